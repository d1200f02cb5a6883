use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn heal(hp: &mut Hp) {
    hp.0 += 1;
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
}
