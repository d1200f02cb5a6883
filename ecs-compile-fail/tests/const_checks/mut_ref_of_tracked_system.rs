use ecs::prelude::*;

#[derive(Component)]
#[component(track_changes)]
struct Hp(u32);

fn heal(mut query: Query<&mut Hp>) {
    query.for_each(|hp| hp.0 += 1);
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
}
