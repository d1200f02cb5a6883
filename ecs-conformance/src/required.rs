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

/// Requires [`Mid`] (made as `Mid(1)`); cloneable.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(requires(Mid = Mid(1)), clone)]
pub struct Top(pub u32);

/// Requires [`Base`] (made by `Default`); cloneable; in sparse sets on the hybrid backend.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(requires(Base), clone, storage = "sparse")]
pub struct Mid(pub u32);

/// Required by [`Mid`]; not cloneable.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Base(pub u32);

/// What the model believes one entity holds: `Top`, `Mid`, `Base` values.
type Held = [Option<u32>; 3];

/// Random spawns, inserts, removes, despawns and clones of entities holding the chain
/// `Top` requires `Mid` requires `Base`, checked against a plain model after every step:
/// a requirement is added only when missing, never replaces a value, is not re-added by a
/// remove, and a clone copies exactly the cloneable components, then gets what they
/// require and it lacks, as any entity getting them.
pub fn requirements_and_clones_match_a_model<S: Storage>() {
    use std::collections::HashMap;
    let mut world = World::<S>::new();
    let mut model: HashMap<Entity, Held> = HashMap::new();
    let mut rng = crate::kit::Rng::new(0x5EED_0043);
    let require = |held: &mut Held| {
        if held[0].is_some() && held[1].is_none() {
            held[1] = Some(1);
        }
        if held[1].is_some() && held[2].is_none() {
            held[2] = Some(0);
        }
    };
    for step in 0..crate::components::size(3_000, 300) {
        let live: Vec<Entity> = model.keys().copied().collect();
        let pick = (!live.is_empty()).then(|| live[rng.index(live.len())]);
        let value = rng.below(1000) as u32 + 10;
        match (rng.index(7), pick) {
            (0, _) | (_, None) => {
                let (e, mut held): (Entity, Held) = match rng.index(4) {
                    0 => (world.spawn((Top(value),)), [Some(value), None, None]),
                    1 => (
                        world.spawn((Top(value), Base(value + 1))),
                        [Some(value), None, Some(value + 1)],
                    ),
                    2 => (world.spawn((Mid(value),)), [None, Some(value), None]),
                    _ => (world.spawn((Base(value),)), [None, None, Some(value)]),
                };
                require(&mut held);
                model.insert(e, held);
            }
            (1, Some(e)) => {
                world.insert(e, Top(value)).unwrap();
                let held = model.get_mut(&e).unwrap();
                held[0] = Some(value);
                require(held);
            }
            (2, Some(e)) => {
                world.insert(e, Mid(value)).unwrap();
                let held = model.get_mut(&e).unwrap();
                held[1] = Some(value);
                require(held);
            }
            (3, Some(e)) => {
                let which = rng.index(3);
                let held = model.get_mut(&e).unwrap();
                let removed = match which {
                    0 => world.remove::<Top>(e).map(|c| c.0).ok(),
                    1 => world.remove::<Mid>(e).map(|c| c.0).ok(),
                    _ => world.remove::<Base>(e).map(|c| c.0).ok(),
                };
                assert_eq!(removed, held[which].take(), "step {step}: remove");
            }
            (4, Some(e)) => {
                world.despawn(e).unwrap();
                model.remove(&e);
            }
            (_, Some(e)) => {
                let copy = world.clone_entity(e).unwrap();
                let held = model[&e];
                // `Top` and `Mid` are copied; `Base` is not cloneable, so the copy gets it
                // as a requirement of what it holds, if anything requires it.
                let mut expected: Held = [held[0], held[1], None];
                require(&mut expected);
                model.insert(copy, expected);
            }
        }
        for (&e, held) in &model {
            let actual: Held = [
                world.get::<Top>(e).map(|c| c.0),
                world.get::<Mid>(e).map(|c| c.0),
                world.get::<Base>(e).map(|c| c.0),
            ];
            assert_eq!(actual, *held, "step {step}: {e:?}");
        }
    }
    assert_eq!(world.len(), model.len());
}
