// An unmarked field must be a component: a nested bundle needs `#[bundle]`.
use ecs::prelude::*;

#[derive(Component)]
struct Pos(f32);
#[derive(Component)]
struct Vel(f32);

#[derive(Bundle)]
struct Body {
    pos: Pos,
    vel: Vel,
}

#[derive(Bundle)]
struct Ship {
    body: Body,
}


// A field marked `#[bundle]` must be a bundle.
#[derive(Bundle)]
struct Marked {
    #[bundle]
    raw: u32,
}

fn main() {}
