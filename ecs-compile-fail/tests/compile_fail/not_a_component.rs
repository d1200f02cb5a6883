use ecs::prelude::*;

struct Plain(u32);

fn main() {
    let mut world = World::new();
    world.spawn((Plain(1),));
    let _ = world.query::<&Plain>().count();
}
