use ecs::prelude::*;

fn rewire(mut links: Query<(Mut<ChildOf>, &mut Children)>) {
    links.for_each(|_| {});
}

fn main() {
    let mut world = World::new();
    let parent = world.spawn(());
    world.spawn_child(parent, ()).unwrap();
    let _ = world.get_mut::<Children>(parent);
    let mut schedule = Schedule::new();
    schedule.add_system(rewire);
}
