use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    let a = world.spawn((Hp(1),));
    let b = world.spawn((Hp(2),));
    let first = world.get_mut::<Hp>(a).unwrap();
    let second = world.get_mut::<Hp>(b).unwrap();
    std::mem::swap(&mut first.0, &mut second.0);
}
