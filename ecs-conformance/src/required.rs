//! Required components: a type naming others its entities must hold gets them, made by
//! their constructors, on every path that adds it, without replacing a value the entity
//! holds or the bundle brings.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::commands::CommandQueue;
use ecs_core::prelude::*;
use ecs_core::Storage;

/// Required by [`Sprite`], made by `Default`.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Transform(pub f32);

/// Required by [`Sprite`], made by its expression; tracked, for `Added`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(track_changes)]
pub struct Visibility(pub bool);

/// Requires a [`Transform`] and a hidden [`Visibility`].
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[component(requires(Transform, Visibility = Visibility(false)))]
pub struct Sprite(pub u32);

/// Requires a [`Sprite`], so transitively the rest; in sparse sets on the hybrid backend.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[component(requires(Sprite), storage = "sparse")]
pub struct Player;

fn parts<S: Storage>(
    world: &World<S>,
    e: Entity,
) -> (Option<Sprite>, Option<Transform>, Option<Visibility>) {
    (
        world.get::<Sprite>(e).copied(),
        world.get::<Transform>(e).copied(),
        world.get::<Visibility>(e).copied(),
    )
}

/// Spawn, spawn_batch, insert (an entity's own value kept), commands and transitive
/// requirements, with the added components seen by `Added`.
pub fn required_components_are_added_when_missing<S: Storage>() {
    let mut world = World::<S>::new();
    let mut added = world.query_state::<Entity, Added<Visibility>>().unwrap();
    assert_eq!(added.iter(&world).count(), 0);
    let plain = world.spawn((Sprite(1),));
    assert_eq!(
        parts(&world, plain),
        (
            Some(Sprite(1)),
            Some(Transform(0.0)),
            Some(Visibility(false))
        )
    );
    let given = world.spawn((Sprite(2), Transform(5.0)));
    assert_eq!(
        parts(&world, given).1,
        Some(Transform(5.0)),
        "the bundle's value stays"
    );
    let player = world.spawn((Player,));
    assert_eq!(
        parts(&world, player),
        (
            Some(Sprite(0)),
            Some(Transform(0.0)),
            Some(Visibility(false))
        ),
        "transitively"
    );
    let shown = world.spawn((Visibility(true),));
    world.insert(shown, Sprite(3)).unwrap();
    assert_eq!(
        parts(&world, shown),
        (
            Some(Sprite(3)),
            Some(Transform(0.0)),
            Some(Visibility(true))
        ),
        "the entity's value stays"
    );
    let batch = world.spawn_batch((0..50).map(Sprite)).to_vec();
    assert!(batch
        .iter()
        .all(|&e| world.has::<Transform>(e)
            && world.get::<Visibility>(e) == Some(&Visibility(false))));
    let mut queue = CommandQueue::new();
    let queued = Commands::new(&mut queue, &world).spawn((Player,));
    world.apply(&mut queue);
    assert_eq!(
        parts(&world, queued).2,
        Some(Visibility(false)),
        "through commands"
    );
    let mut seen: Vec<Entity> = added.iter(&world).collect();
    seen.sort();
    let mut expected = vec![plain, given, player, shown, queued];
    expected.extend(&batch);
    expected.sort();
    assert_eq!(seen, expected, "required values are added values");
    assert_eq!(world.query::<&Transform>().count(), 55);
}

/// `A` requires `B`, which requires `A`.
#[derive(Component, Default)]
#[component(requires(CycleB))]
pub struct CycleA;

/// See [`CycleA`].
#[derive(Component, Default)]
#[component(requires(CycleA))]
pub struct CycleB;

/// A requirement cycle is refused when the types are registered, naming them, and the
/// world stays usable.
pub fn requirement_cycles_are_refused_by_name<S: Storage>() {
    let mut world = World::<S>::new();
    let kept = world.spawn((Sprite(1),));
    let err = catch_unwind(AssertUnwindSafe(|| {
        world.spawn((CycleA,));
    }))
    .expect_err("a cycle is refused");
    let message = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("`CycleA` requires `CycleB`, which requires `CycleA`"),
        "{message}"
    );
    assert_eq!(world.get::<Sprite>(kept), Some(&Sprite(1)));
    // Refused every time, not only when the types are first registered.
    for attempt in 0..2 {
        let again = catch_unwind(AssertUnwindSafe(|| {
            world.spawn((CycleB, Sprite(attempt)));
        }));
        assert!(again.is_err(), "attempt {attempt}");
    }
    assert_eq!(world.len(), 1);
}

/// Made by a constructor that panics.
#[derive(Component, Debug, PartialEq)]
pub struct Fragile(pub Vec<u32>);

/// Requires a [`Transform`] (made first) and a [`Fragile`] whose constructor panics.
#[derive(Component, Debug, PartialEq)]
#[component(requires(Transform, Fragile = panic!("no Fragile today")))]
pub struct Doomed(pub Vec<u32>);

/// A constructor that panics leaves the entity with what it had (no requirement half
/// added, the values made before it dropped), and the world consistent.
pub fn a_panicking_constructor_adds_nothing<S: Storage>() {
    let mut world = World::<S>::new();
    let other = world.spawn((Sprite(7),));
    let before = world.len();
    let result = catch_unwind(AssertUnwindSafe(|| world.spawn((Doomed(vec![1, 2]),))));
    assert!(result.is_err());
    assert_eq!(world.len(), before + 1, "the spawn itself happened");
    let doomed: Vec<(Entity, usize)> = world
        .query::<(Entity, &Doomed)>()
        .map(|(e, d)| (e, d.0.len()))
        .collect();
    assert_eq!(doomed.len(), 1);
    let e = doomed[0].0;
    assert!(!world.has::<Transform>(e) && !world.has::<Fragile>(e));
    assert_eq!(parts(&world, other).1, Some(Transform(0.0)));
    world.despawn(e).unwrap();
    world.clear();
    assert!(world.is_empty());
}
