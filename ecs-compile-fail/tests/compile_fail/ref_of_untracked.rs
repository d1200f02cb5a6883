use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn report(hp: Query<(Entity, Ref<Hp>)>) {
    for (e, hp) in hp.iter() {
        if hp.is_changed() {
            println!("{e:?}: {}", hp.0);
        }
    }
}

fn main() {
    let mut world = World::new();
    world.spawn((Hp(3),));
    let mut schedule = Schedule::new();
    schedule.add_system(report);
    schedule.run(&mut world);
}
