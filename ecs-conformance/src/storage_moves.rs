//! Moving a component's storage while the world runs (`World::set_storage`): a backend
//! with both kinds of storage moves it and every answer stays the same; a backend with one
//! kind refuses by name and the world is unchanged.

use std::collections::BTreeMap;

use ecs_core::{Changed, Component, EcsError, Entity, Storage, StorageKind, World};

use crate::components::{size, Tag, A, B};

/// A movable, change-tracked component declared in the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Heat(u32);
impl Component for Heat {
    type Mutability = ecs_core::Tracked;
    const MOVABLE: bool = true;
}

/// A sparse-declared component: a backend keeping it apart from `A` has both kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loose;
impl Component for Loose {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}

/// Every answer the world gives about `Heat`, by entity: its value, whether the joins
/// with `A` and with `B` find it, and whether a `Tag` filter does.
type Answers = BTreeMap<Entity, (Option<Heat>, bool, bool)>;

fn answers<S: Storage>(world: &mut World<S>, all: &[Entity]) -> Answers {
    let mut out: Answers = all
        .iter()
        .filter(|&&e| world.contains(e))
        .map(|&e| (e, (world.get::<Heat>(e).cloned(), false, false)))
        .collect();
    for (e, _, _) in world.query::<(Entity, &A, &Heat)>() {
        out.get_mut(&e).unwrap().1 = true;
    }
    for (e, _, _) in world.query_filtered::<(Entity, &B, &Heat), ecs_core::With<Tag>>() {
        out.get_mut(&e).unwrap().2 = true;
    }
    out
}

/// Moves `Heat` back and forth among churn: on a backend with both kinds each move
/// happens (`storage_kind` follows), on the others each is refused naming the backend
/// (except a move to the one kind it has, which is nothing);
/// every answer, query state and change reader stays the same either way.
pub fn moving_a_component_changes_no_answer<S: Storage>() {
    let (mut world, mut all) = crate::queries::mixed_world::<S>(size(200, 24) as u32);
    for (i, &e) in all.iter().enumerate() {
        if i % 3 != 1 {
            world.insert(e, Heat(i as u32)).unwrap();
        }
    }
    let lone = world.spawn((Heat(999), Loose));
    all.push(lone);
    let both_kinds = world.storage_kind::<Loose>() != world.storage_kind::<A>();
    let mut joined = world.query_state::<(&A, &Heat), ()>().unwrap();
    let mut changed = world.query_state::<&Heat, Changed<Heat>>().unwrap();
    changed.iter(&world).count();

    for (round, kind) in [StorageKind::Sparse, StorageKind::Table, StorageKind::Sparse]
        .into_iter()
        .enumerate()
    {
        let before = answers(&mut world, &all);
        let join_count = joined.iter(&world).count();
        let was = world.storage_kind::<Heat>();
        match world.set_storage::<Heat>(kind) {
            Ok(()) => {
                // Moving to the kind it has is nothing, on every backend.
                let moved = was != Some(kind);
                assert!(
                    both_kinds || !moved,
                    "{}: moved with one kind of storage",
                    S::NAME
                );
                assert_eq!(world.storage_kind::<Heat>(), Some(kind));
            }
            Err(EcsError::Storage { component, reason }) => {
                assert!(!both_kinds, "{}: refused a move: {reason}", S::NAME);
                assert!(
                    component.ends_with("Heat") && reason.contains(S::NAME),
                    "{reason}"
                );
                assert_eq!(world.storage_kind::<Heat>(), was);
            }
            Err(other) => panic!("{}: {other}", S::NAME),
        }
        assert_eq!(
            answers(&mut world, &all),
            before,
            "{} round {round}",
            S::NAME
        );
        assert_eq!(joined.iter(&world).count(), join_count);
        assert_eq!(changed.iter(&world).count(), 0, "a move is not a change");

        // Churn in the new layout: spawn, insert, remove, write, despawn.
        let e = world.spawn((A(1000 + round as u32), Heat(round as u32)));
        all.push(e);
        world.remove::<Heat>(all[round * 3]).ok();
        world.insert(all[round * 3 + 1], Heat(7)).unwrap();
        world.get_mut::<Heat>(e).unwrap().0 += 1;
        world.despawn(all[round * 3 + 2]).unwrap();
        let seen: Vec<u32> = changed.iter(&world).map(|h| h.0).collect();
        assert!(
            seen.contains(&(round as u32 + 1)) && seen.contains(&7),
            "{seen:?}"
        );
    }
}
