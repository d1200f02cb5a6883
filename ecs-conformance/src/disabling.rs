//! Entity disabling: every query path leaves disabled entities out unless the query names
//! `Disabled`, on every layout (tables, sparse sets, groups, aligned and scattered rows).

use std::collections::BTreeSet;

use ecs_core::query::{Allow, DynQuery, QueryFilter, ReadOnlyQueryData};
use ecs_core::{
    BatchSize, Changed, Commands, Component, Disabled, Entity, Has, Storage, StorageKind, With,
    Without, World,
};

use crate::components::{size, Tag, A, B};
use crate::kit::snapshot::Pos;

/// A sparse-set component in a hybrid world (the hybrid's runs of table chunks then hold
/// a sparse slot beside the hidden one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loose(u32);
impl Component for Loose {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}

/// Change-tracked, for the runs a change log drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hp(u32);
impl Component for Hp {
    type Mutability = ecs_core::Tracked;
}

/// A world of `n` entities over several tables and sets: the query tests' mixed world
/// (every entity `A`, every second `B`, every third `Tag`), and every fifth `Loose`, every
/// fourth `Hp`.
fn world<S: Storage>(n: u32) -> (World<S>, Vec<Entity>) {
    let (mut world, all) = crate::queries::mixed_world::<S>(n);
    for (i, &e) in all.iter().enumerate() {
        if i % 5 == 0 {
            world.insert(e, Loose(i as u32)).unwrap();
        }
        if i % 4 == 0 {
            world.insert(e, Hp(i as u32)).unwrap();
        }
    }
    (world, all)
}

/// What `Q` filtered by `F` yields through every path of a query state: `next`, `fold`,
/// `par_for_each`, `get`, a view, and `query_ref` (entities, sorted), all agreeing.
fn every_path<S, F>(world: &mut World<S>, all: &[Entity]) -> BTreeSet<Entity>
where
    S: Storage,
    F: QueryFilter + 'static,
{
    let stepped: BTreeSet<Entity> = {
        let mut out = BTreeSet::new();
        for e in world.query_filtered::<Entity, (With<A>, F)>() {
            out.insert(e);
        }
        out
    };
    let folded: BTreeSet<Entity> =
        world
            .query_filtered::<Entity, (With<A>, F)>()
            .fold(BTreeSet::new(), |mut out, e| {
                out.insert(e);
                out
            });
    assert_eq!(stepped, folded, "fold against next");
    let parallel = std::sync::Mutex::new(BTreeSet::new());
    world
        .query_filtered::<Entity, (With<A>, F)>()
        .par_for_each_batched(BatchSize::Rows(7), |e| {
            parallel.lock().unwrap().insert(e);
        });
    assert_eq!(stepped, parallel.into_inner().unwrap(), "par_for_each");
    let mut state = world.query_state::<(Entity, &A), (With<A>, F)>().unwrap();
    let got: BTreeSet<Entity> = all
        .iter()
        .filter_map(|&e| state.get(world, e).map(|(e, _)| e))
        .collect();
    assert_eq!(stepped, got, "get");
    let view = state.view(world);
    let viewed: BTreeSet<Entity> = all
        .iter()
        .filter_map(|&e| view.get(e).map(|(e, _)| e))
        .collect();
    assert_eq!(stepped, viewed, "view");
    let shared: BTreeSet<Entity> = world.query_filtered_ref::<Entity, (With<A>, F)>().collect();
    assert_eq!(stepped, shared, "query_ref");
    stepped
}

fn set(entities: impl IntoIterator<Item = Entity>) -> BTreeSet<Entity> {
    entities.into_iter().collect()
}

/// Disabled entities leave every query path (scans by `next`, `fold` and in parallel,
/// `get`, views, `query_ref`, run-time queries) unless the query names `Disabled`
/// (`Allow`, `With`, `Without`, `Has`, `Option<&Disabled>`); scattered, in runs, all of a
/// table and none, on tables, sets, groups; and enabling brings them back.
pub fn disabled_entities_leave_every_query_path<S: Storage>() {
    let n = size(240, 40) as u32;
    let (mut world, all) = world::<S>(n);
    let everyone = set(all.iter().copied());
    // Before anything is disabled (and before `Disabled` is registered): everything.
    assert_eq!(every_path::<S, ()>(&mut world, &all), everyone);
    let patterns: [&dyn Fn(usize) -> bool; 5] = [
        &|i| i % 7 == 3,            // scattered
        &|i| (10..40).contains(&i), // one run
        &|i| i % 2 == 0,            // every `B` holder: whole tables
        &|_| true,                  // everything
        &|i| i % 3 != 0 || i == 0,  // all but a few
    ];
    for (p, pattern) in patterns.iter().enumerate() {
        let hidden: BTreeSet<Entity> = (0..all.len())
            .filter(|&i| pattern(i))
            .map(|i| all[i])
            .collect();
        for &e in &all {
            if hidden.contains(&e) {
                world.disable(e).unwrap();
            } else {
                world.enable(e).unwrap();
            }
        }
        let visible: BTreeSet<Entity> = everyone.difference(&hidden).copied().collect();
        assert_eq!(
            every_path::<S, ()>(&mut world, &all),
            visible,
            "pattern {p}"
        );
        assert_eq!(
            every_path::<S, Allow<Disabled>>(&mut world, &all),
            everyone,
            "pattern {p}, Allow"
        );
        assert_eq!(every_path::<S, With<Disabled>>(&mut world, &all), hidden);
        assert_eq!(
            every_path::<S, Without<Disabled>>(&mut world, &all),
            visible
        );
        let flagged = set(world
            .query::<(Entity, Has<Disabled>)>()
            .filter(|(_, d)| *d)
            .map(|(e, _)| e));
        assert_eq!(flagged, hidden, "pattern {p}, Has");
        let optional = world.query::<(Entity, Option<&Disabled>)>().count();
        assert_eq!(optional, all.len(), "pattern {p}, Option");
        // Joins with the other components keep the rule.
        let with_b = set(world.query_filtered::<Entity, With<B>>());
        let expected: BTreeSet<Entity> = visible
            .iter()
            .copied()
            .filter(|&e| world.get::<B>(e).is_some())
            .collect();
        assert_eq!(with_b, expected, "pattern {p}, B");
        let loose = set(world.query::<(Entity, &Loose)>().map(|(e, _)| e));
        let expected: BTreeSet<Entity> = visible
            .iter()
            .copied()
            .filter(|&e| world.get::<Loose>(e).is_some())
            .collect();
        assert_eq!(loose, expected, "pattern {p}, Loose");
        // Run-time queries leave them out too.
        let a = world.register_component::<A>();
        let mut dynamic = world.dyn_query(&DynQuery::new().read(a)).unwrap();
        assert_eq!(set(dynamic.entities(&world)), visible, "pattern {p}, dyn");
        // `get` on the world still reaches a disabled entity.
        for &e in &hidden {
            assert!(world.get::<A>(e).is_some() && world.is_disabled(e));
        }
        if p == 1 {
            // A group reorders the sets (where the backend has groups): same answers.
            let _ = world.group::<(A, B)>();
            assert_eq!(every_path::<S, ()>(&mut world, &all), visible, "grouped");
        }
    }
    for &e in &all {
        world.enable(e).unwrap();
    }
    assert_eq!(every_path::<S, ()>(&mut world, &all), everyone);
}

/// A query state built before `Disabled` was ever registered leaves disabled entities out
/// from the first look-up after the first `disable` (before its next run), and in its next
/// run and view; so does a run-time query resolved before.
pub fn states_built_before_the_first_disable_catch_up<S: Storage>() {
    let (mut world, all) = world::<S>(size(60, 20) as u32);
    let mut state = world.query_state::<(Entity, &A), ()>().unwrap();
    let mut entities_only = world.query_state::<Entity, ()>().unwrap();
    let a = world.register_component::<A>();
    let mut dynamic = world.dyn_query(&DynQuery::new().read(a)).unwrap();
    assert_eq!(state.iter(&world).count(), all.len());
    world.disable(all[3]).unwrap();
    world.disable(all[10]).unwrap();
    assert!(state.get(&world, all[3]).is_none());
    assert!(state.get(&world, all[4]).is_some());
    assert!(entities_only.get(&world, all[10]).is_none());
    assert_eq!(state.iter(&world).count(), all.len() - 2);
    assert_eq!(entities_only.iter(&world).count(), all.len() - 2);
    assert!(state.get(&world, all[3]).is_none());
    assert_eq!(dynamic.entities(&world).len(), all.len() - 2);
    let view = state.view(&world);
    assert!(view.get(all[10]).is_none() && view.get(all[11]).is_some());
}

/// A run driven by a change log (`Changed<T>` after the first run) leaves out the disabled
/// entities whose value changed; enabling one again does not count as its change.
pub fn change_driven_runs_leave_disabled_entities_out<S: Storage>() {
    let (mut world, all) = world::<S>(size(80, 24) as u32);
    let mut changed = world.query_state::<Entity, Changed<Hp>>().unwrap();
    assert_eq!(changed.iter(&world).count(), all.len().div_ceil(4));
    let holders: Vec<Entity> = all.iter().copied().step_by(4).collect();
    world.disable(holders[1]).unwrap();
    for &e in &holders[..4] {
        world.get_mut::<Hp>(e).unwrap().0 += 1;
    }
    let seen = set(changed.iter(&world));
    assert_eq!(seen, set([holders[0], holders[2], holders[3]]));
    world.enable(holders[1]).unwrap();
    assert_eq!(changed.iter(&world).count(), 0);
}

/// Disabling keeps the entity whole: its components, its handle, its place in the
/// hierarchy; a clone of a disabled entity is disabled; commands disable and enable; a
/// snapshot whose registry names `Disabled` keeps it; despawning a disabled entity works.
pub fn disabled_entities_stay_whole<S: Storage>() {
    let mut world = World::<S>::new();
    let parent = world.spawn((A(1),));
    let child = world.spawn_child(parent, (A(2), B("c".into()))).unwrap();
    world.disable(parent).unwrap();
    assert_eq!(world.children(parent).unwrap().collect::<Vec<_>>(), [child]);
    assert_eq!(world.parent(child), Ok(Some(parent)));
    assert!(!world.is_disabled(child), "disabling is not inherited");
    assert_eq!(world.query::<&A>().count(), 1);
    let copy = world.clone_entity(parent).unwrap();
    // `A` does not opt in to cloning; `Disabled` does.
    assert!(world.is_disabled(copy) && world.get::<A>(copy).is_none());
    let mut queue = ecs_core::CommandQueue::new();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.insert(child, Disabled);
        commands.remove::<Disabled>(parent);
    }
    world.apply(&mut queue);
    assert!(world.is_disabled(child) && !world.is_disabled(parent));
    world.despawn(copy).unwrap();
    world.despawn_recursive(parent).unwrap();
    assert!(world.is_empty());
    assert!(world.disable(child).is_err());
}

/// A snapshot whose registry names `Disabled` saves and loads which entities are disabled;
/// the loaded world's queries leave them out.
pub fn snapshots_keep_disabled_entities<S: Storage>() {
    let registry = || {
        ecs_core::SnapshotRegistry::new()
            .component::<Pos>("Pos")
            .component::<Disabled>("Disabled")
    };
    let mut world = World::<S>::new();
    let shown = world.spawn((Pos { x: 1.0, y: 0.0 },));
    let hidden = world.spawn((Pos { x: 2.0, y: 0.0 }, Disabled));
    let json = serde_json::to_string(&registry().save(&world)).unwrap();
    let mut copy = World::<S>::new();
    let map = registry()
        .load(&mut copy, &mut serde_json::Deserializer::from_str(&json))
        .unwrap();
    assert!(copy.is_disabled(map.get(hidden).unwrap()));
    assert!(!copy.is_disabled(map.get(shown).unwrap()));
    let xs: Vec<f32> = copy.query::<&Pos>().map(|p| p.x).collect();
    assert_eq!(xs, [1.0]);
}

/// Reads every `Q` item through a state's `single` (one match) to pin that `single` counts
/// only enabled entities.
pub fn single_counts_enabled_entities<S: Storage>() {
    let mut world = World::<S>::new();
    let player = world.spawn((A(1), Tag));
    let ghost = world.spawn((A(2), Tag));
    let mut state = world.query_state::<&A, With<Tag>>().unwrap();
    assert!(state.single(&world).is_err());
    world.disable(ghost).unwrap();
    assert_eq!(state.single(&world).unwrap(), &A(1));
    let _ = player;
    fn count<S: Storage, Q: ReadOnlyQueryData + 'static>(world: &World<S>) -> usize {
        world.query_ref::<Q>().count()
    }
    assert_eq!(count::<S, &A>(&world), 1);
    assert_eq!(count::<S, (&A, Has<Disabled>)>(&world), 2);
}
