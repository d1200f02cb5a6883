use ecs::prelude::*;

#[derive(Component)]
#[component(on_add = add_shadow)]
struct Ship;

#[derive(Component)]
struct Shadow;

// A hook runs inside the operation that stores `Ship`: it may not change the world's
// structure itself (`HookWorld` has no `insert`); `world.commands().insert(..)` defers it.
fn add_shadow(mut world: HookWorld<'_>, ctx: HookContext) {
    world.insert(ctx.entity, Shadow).unwrap();
}

fn main() {
    let mut world = World::new();
    world.spawn(Ship);
}
