use ecs::prelude::*;

#[derive(Component)]
struct Pos(f32);

fn main() {
    let mut world = World::new();
    world.spawn((Pos(1.0),));
    let moved = world.query_filtered::<&Pos, Changed<Pos>>().count();
    println!("{moved}");
}
