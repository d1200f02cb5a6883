use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    world.spawn((Hp(1),));
    let mut kept: Option<&mut Hp> = None;
    world.query::<&mut Hp>().for_each(|hp| kept = Some(hp));
    world.spawn((Hp(2),));
    kept.unwrap().0 = 0;
}
