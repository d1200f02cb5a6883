use ecs::prelude::*;

#[derive(Component)]
#[component(on_add = add_shadow)]
struct Ship;

#[derive(Component)]
struct Shadow;

// The form the failing case should have used: the insert is queued, and applied when
// the spawn that ran the hook is over.
fn add_shadow(mut world: HookWorld<'_>, ctx: HookContext) {
    world.commands().insert(ctx.entity, Shadow);
}

fn main() {
    let mut world = World::new();
    let ship = world.spawn(Ship);
    assert!(world.has::<Shadow>(ship));
}
