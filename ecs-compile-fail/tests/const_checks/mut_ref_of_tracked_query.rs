use ecs::prelude::*;

#[derive(Component)]
#[component(track_changes)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    world.spawn((Hp(3),));
    for hp in world.query::<&mut Hp>() {
        hp.0 += 1;
    }
}
