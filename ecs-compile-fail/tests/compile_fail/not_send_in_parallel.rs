use std::rc::Rc;

use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    world.spawn((Hp(1),));
    let counter = Rc::new(std::cell::Cell::new(0));
    world.query::<&Hp>().par_for_each(|_| counter.set(counter.get() + 1));
}
