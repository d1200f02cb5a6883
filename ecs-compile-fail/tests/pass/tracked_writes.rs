//! What a tracked component's writes look like: `&mut T` in a query (a system's too) and
//! `get_mut` hand out a `Mut<T>` that records the write, so `Changed<T>` sees it with no
//! ceremony. It must build and run.
use ecs::prelude::*;

#[derive(Component)]
#[component(track_changes)]
struct Hp(u32);

fn heal(mut query: Query<&mut Hp>) {
    query.for_each(|mut hp| hp.0 += 1);
}

fn main() {
    let mut world = World::new();
    let e = world.spawn((Hp(3),));
    let mut changed = world.query_state::<&Hp, Changed<Hp>>().unwrap();
    assert_eq!(changed.iter(&world).count(), 1, "the first run sees the spawn");
    world.get_mut::<Hp>(e).unwrap().0 += 1;
    assert_eq!(changed.iter(&world).count(), 1, "get_mut recorded the write");
    for mut hp in world.query::<&mut Hp>() {
        hp.0 += 1;
    }
    assert_eq!(changed.iter(&world).count(), 1, "&mut Hp recorded the write");
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
    schedule.run(&mut world);
    assert_eq!(changed.iter(&world).count(), 1, "the system's &mut Hp recorded it");
    assert_eq!(changed.iter(&world).count(), 0, "and nothing since");
    assert_eq!(world.get::<Hp>(e).unwrap().0, 6);
}
