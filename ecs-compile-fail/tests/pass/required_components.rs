use ecs::prelude::*;

#[derive(Component, Default, Debug, PartialEq)]
struct Transform(f32);

#[derive(Component, Debug, PartialEq)]
struct Visibility(bool);

#[derive(Component)]
#[component(requires(Transform, Visibility = Visibility(false)))]
struct Sprite;

fn main() {
    let mut world = World::new();
    let e = world.spawn(Sprite);
    assert_eq!(world.get::<Transform>(e), Some(&Transform(0.0)));
    assert_eq!(world.get::<Visibility>(e), Some(&Visibility(false)));
}
