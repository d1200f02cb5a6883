use ecs::prelude::*;

#[derive(Component)]
#[component(on_remove = count)]
struct Ship;

// A hook is `fn(HookWorld, HookContext)`, not a function of the world.
fn count(_world: &mut World) {}

fn main() {
    let mut world = World::new();
    world.spawn(Ship);
}
