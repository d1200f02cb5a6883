use ecs::prelude::*;

#[derive(Component)]
struct Pos(f32);

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_system(|moved: Query<&Pos, Added<Pos>>| {
        println!("{}", moved.iter().count());
    });
}
