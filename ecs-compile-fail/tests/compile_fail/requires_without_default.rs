use ecs::prelude::*;

#[derive(Component)]
struct Transform(f32);

#[derive(Component)]
#[component(requires(Transform))]
struct Sprite;

fn main() {
    let mut world = World::new();
    world.spawn(Sprite);
}
