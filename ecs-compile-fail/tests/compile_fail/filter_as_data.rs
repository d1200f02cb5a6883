use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    let _ = world.query::<With<Hp>>().count();
}
