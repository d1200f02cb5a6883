use ecs::prelude::*;

#[derive(Component)]
#[component(track_changes)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    let e = world.spawn((Hp(3),));
    world.get_mut::<Hp>(e).unwrap().0 += 1;
}
