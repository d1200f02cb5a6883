use ecs_core::{Bundle, Component};

#[derive(Component)]
struct Pos(f32);

#[derive(Bundle)]
enum Either {
    Left(Pos),
}

#[derive(Bundle)]
union Raw {
    a: u32,
}

#[derive(Bundle)]
struct ArgumentsOnField {
    #[bundle(flatten)]
    pos: Pos,
}

#[derive(Bundle)]
#[bundle]
struct BareOnStruct {
    pos: Pos,
}

fn main() {}
