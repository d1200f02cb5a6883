use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

fn main() {
    let world = World::new();
    // `&World` hands out shared references only: a writing query needs `&mut World`.
    for hp in world.query_ref::<&mut Hp>() {
        hp.0 += 1;
    }
}
