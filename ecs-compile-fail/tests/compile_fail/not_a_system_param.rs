use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

// A parameter set holds system parameters only: `u32` is not one.
fn heal(mut set: ParamSet<(Query<&mut Hp>, u32)>) {
    set.p0().for_each(|hp| hp.0 += 1);
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
}
