use ecs::prelude::*;

#[derive(Component)]
#[component(immutable)]
struct Seed(u64);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Seed(7));
    world.get_mut::<Seed>(e).unwrap().0 += 1;
    for seed in world.query::<&mut Seed>() {
        seed.0 += 1;
    }
}
