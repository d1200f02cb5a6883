use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    // What a query fetches goes first; the second parameter takes filters only.
    let _ = world.query_filtered::<Entity, &Hp>().count();
}
