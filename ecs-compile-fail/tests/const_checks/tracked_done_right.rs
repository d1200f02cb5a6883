//! The forms the other cases should have used: `Mut<T>` and `get_mut_tracked` for a tracked
//! type, `Changed<T>` only on a tracked type. It must build (and its being here makes the
//! harness build every case instead of only checking it: these errors appear at build time).
use ecs::prelude::*;

#[derive(Component)]
#[component(track_changes)]
struct Hp(u32);

fn heal(mut query: Query<Mut<Hp>>) {
    query.for_each(|mut hp| hp.0 += 1);
}

fn main() {
    let mut world = World::new();
    let e = world.spawn((Hp(3),));
    world.get_mut_tracked::<Hp>(e).unwrap().0 += 1;
    for mut hp in world.query::<Mut<Hp>>() {
        hp.0 += 1;
    }
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
    schedule.run(&mut world);
    assert_eq!(world.query_filtered::<&Hp, Changed<Hp>>().count(), 1);
    assert_eq!(world.get::<Hp>(e).unwrap().0, 6);
}
