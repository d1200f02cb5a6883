//! Owning groups: the packed-prefix invariant under every structural change, query driving,
//! and the errors of `World::group`.

use ecs_core::storage::{ColumnAccess, QueryChunk, QueryDescriptor, SlotRole, Storage};
use ecs_core::{Component, EcsError, Entity, World};

use crate::SparseStorage;

#[derive(Debug, PartialEq, Clone, Copy)]
struct A(u32);
impl Component for A {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Clone)]
struct B(String);
impl Component for B {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct C(u8);
impl Component for C {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct Z;
impl Component for Z {
    type Mutability = ecs_core::Mutable;
}

const OPS: usize = if cfg!(miri) { 300 } else { 20_000 };

/// Checks the `Group` invariant of every group of `world` against its sets.
fn check_groups(world: &World<SparseStorage>) {
    let storage = world.storage();
    for group in storage.groups() {
        let sets: Vec<_> = group
            .owned()
            .iter()
            .map(|&c| storage.set(c).expect("owned sets exist"))
            .collect();
        for p in 0..group.len() {
            let e = sets[0].entities()[p];
            assert!(sets.iter().all(|s| s.entities()[p] == e), "row {p} differs");
        }
        for set in &sets {
            for (p, &e) in set.entities().iter().enumerate() {
                let holds_all = sets.iter().all(|s| s.contains(e));
                assert_eq!(p < group.len(), holds_all, "{e:?} at {p}");
            }
        }
    }
}

/// The shared kit's seeded generator, so failures replay.
use ecs_conformance::kit::Rng;

/// Random spawns, inserts, removes, despawns and a clear, with a group over (A, B) made
/// midway: the invariant holds after every step, and grouped queries give exactly what an
/// ungrouped world (same operations) gives.
#[test]
fn random_changes_keep_the_group_packed_and_queries_right() {
    let mut grouped = World::<SparseStorage>::new();
    let mut plain = World::<SparseStorage>::new();
    let mut live: Vec<(Entity, Entity)> = Vec::new();
    let mut rng = Rng::new(0x6A0B_5EED);
    for op in 0..OPS {
        if op == OPS / 4 {
            grouped.group::<(A, B)>().unwrap();
            check_groups(&grouped);
        }
        if op == OPS / 2 {
            grouped.clear();
            plain.clear();
            live.clear();
        }
        let pick = (!live.is_empty()).then(|| rng.index(live.len()));
        let v = op as u32;
        match (rng.index(8), pick) {
            (0 | 1, _) | (_, None) => {
                let (g, p) = match rng.index(3) {
                    0 => (
                        grouped.spawn((A(v), B(v.to_string()))),
                        plain.spawn((A(v), B(v.to_string()))),
                    ),
                    1 => (grouped.spawn((A(v), C(1))), plain.spawn((A(v), C(1)))),
                    _ => (grouped.spawn(()), plain.spawn(())),
                };
                live.push((g, p));
            }
            (2, Some(i)) => {
                let (g, p) = live[i];
                assert_eq!(grouped.insert(g, A(v)).ok(), plain.insert(p, A(v)).ok());
            }
            (3, Some(i)) => {
                let (g, p) = live[i];
                let b = B(v.to_string());
                assert_eq!(grouped.insert(g, b.clone()).ok(), plain.insert(p, b).ok());
            }
            (4, Some(i)) => {
                let (g, p) = live[i];
                assert_eq!(grouped.remove::<A>(g).ok(), plain.remove::<A>(p).ok());
            }
            (5, Some(i)) => {
                let (g, p) = live[i];
                assert_eq!(grouped.remove::<B>(g).ok(), plain.remove::<B>(p).ok());
            }
            (6, Some(i)) => {
                let (g, p) = live.swap_remove(i);
                grouped.despawn(g).unwrap();
                plain.despawn(p).unwrap();
            }
            (_, Some(i)) => {
                let (g, p) = live[i];
                assert_eq!(grouped.insert(g, C(2)).ok(), plain.insert(p, C(2)).ok());
            }
        }
        check_groups(&grouped);
        if op % 97 == 0 {
            compare_queries(&mut grouped, &mut plain, &live);
        }
    }
    compare_queries(&mut grouped, &mut plain, &live);
}

/// The grouped and plain worlds answer the same queries (entities paired by spawn order).
fn compare_queries(
    grouped: &mut World<SparseStorage>,
    plain: &mut World<SparseStorage>,
    live: &[(Entity, Entity)],
) {
    let to_plain = |g: Entity| live.iter().find(|(x, _)| *x == g).map(|(_, p)| *p).unwrap();
    let mut got: Vec<(Entity, u32, String)> = grouped
        .query::<(Entity, &A, &B)>()
        .map(|(e, a, b)| (to_plain(e), a.0, b.0.clone()))
        .collect();
    let mut want: Vec<(Entity, u32, String)> = plain
        .query::<(Entity, &A, &B)>()
        .map(|(e, a, b)| (e, a.0, b.0.clone()))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let count = |w: &mut World<SparseStorage>| w.query::<(&A, &B, &C)>().count();
    assert_eq!(count(grouped), count(plain));
    let mut written = 0;
    grouped.query::<(&mut A, &B)>().for_each(|(a, _)| {
        a.0 = a.0.wrapping_add(1);
        written += 1;
    });
    plain
        .query::<(&mut A, &B)>()
        .for_each(|(a, _)| a.0 = a.0.wrapping_add(1));
    assert_eq!(
        written,
        grouped
            .storage()
            .groups()
            .first()
            .map_or(written, |g| g.len())
    );
}

#[test]
fn a_query_over_the_group_walks_its_packed_rows_densely() {
    let mut world = World::<SparseStorage>::new();
    for i in 0..10u32 {
        let e = world.spawn((A(i),));
        if i % 2 == 0 {
            world.insert(e, B(i.to_string())).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, C(0)).unwrap();
        }
    }
    world.group::<(A, B)>().unwrap();
    let (a, b, c) = (
        world.component_id::<A>().unwrap(),
        world.component_id::<B>().unwrap(),
        world.component_id::<C>().unwrap(),
    );
    let storage = world.storage();
    let alive = world.entities().alive();
    let mut descriptor = QueryDescriptor::default();
    let slot_b = descriptor.push(b, SlotRole::Required);
    let slot_a = descriptor.push(a, SlotRole::Required);
    let chunk = storage
        .query_chunks(&(), &descriptor, alive)
        .next()
        .unwrap();
    assert_eq!(chunk.dense(), &[a, b]);
    assert_eq!(chunk.entities().len(), 5);
    assert_eq!(chunk.entities(), &storage.set(b).unwrap().entities()[..5]);
    assert!(matches!(chunk.column(slot_a), ColumnAccess::Dense(_)));
    assert!(matches!(chunk.column(slot_b), ColumnAccess::Dense(_)));
    // A rarer required component drives instead (C: 2 entities, both with A; one with B).
    descriptor.push(c, SlotRole::Required);
    let chunk = storage
        .query_chunks(&(), &descriptor, alive)
        .next()
        .unwrap();
    assert_eq!(chunk.dense(), &[c]);
    assert!(matches!(chunk.column(slot_a), ColumnAccess::Sparse(_)));
    // The group alone is not enough when the query needs only part of it, or excludes part.
    let mut only_a = QueryDescriptor::default();
    only_a.push(a, SlotRole::Required);
    let chunk = storage.query_chunks(&(), &only_a, alive).next().unwrap();
    assert_eq!((chunk.dense(), chunk.entities().len()), (&[a][..], 10));
    let mut excludes = QueryDescriptor::default();
    excludes.push(a, SlotRole::Required);
    excludes.push(b, SlotRole::Required);
    excludes.push(b, SlotRole::Excluded);
    let chunk = storage.query_chunks(&(), &excludes, alive).next().unwrap();
    assert_eq!(chunk.dense().len(), 1);
    assert_eq!(world.query::<(&A, &B)>().count(), 5);
    let sum: u32 = world.query::<(&A, &B)>().map(|(a, _)| a.0).sum();
    assert_eq!(sum, 2 + 4 + 6 + 8);
}

#[test]
fn bad_groups_are_errors() {
    let mut world = World::<SparseStorage>::new();
    assert!(matches!(world.group::<(A,)>(), Err(EcsError::Group { .. })));
    world.group::<(A, B)>().unwrap();
    let err = world.group::<(B, C)>().unwrap_err();
    assert!(err.to_string().contains("already owned"), "{err}");
    world.group::<(C, Z)>().unwrap();
    assert_eq!(world.storage().groups().len(), 2);
    check_groups(&world);
}

#[test]
fn a_group_made_late_packs_existing_entities_and_drops_nothing() {
    let mut world = World::<SparseStorage>::new();
    let counter = std::sync::Arc::new(());
    #[derive(Clone)]
    struct Counted(#[allow(dead_code)] std::sync::Arc<()>);
    impl Component for Counted {
        type Mutability = ecs_core::Mutable;
    }
    let entities: Vec<Entity> = (0..50u32)
        .map(|i| match i % 3 {
            0 => world.spawn((A(i), Counted(counter.clone()))),
            1 => world.spawn((A(i),)),
            _ => world.spawn((Counted(counter.clone()),)),
        })
        .collect();
    world.group::<(A, Counted)>().unwrap();
    check_groups(&world);
    assert_eq!(world.storage().groups()[0].len(), 17);
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(
            world.get::<A>(e).map(|a| a.0),
            (i % 3 != 2).then_some(i as u32)
        );
    }
    for &e in entities.iter().step_by(2) {
        world.despawn(e).unwrap();
        check_groups(&world);
    }
    drop(world);
    assert_eq!(
        std::sync::Arc::strong_count(&counter),
        1,
        "every value dropped once"
    );
}

#[test]
fn spawn_batch_and_by_id_changes_keep_the_group() {
    let mut world = World::<SparseStorage>::new();
    world.group::<(A, C)>().unwrap();
    let batch = world
        .spawn_batch((0..20u32).map(|i| (A(i), C(i as u8))))
        .to_vec();
    world.spawn_batch((0..10u32).map(|i| (A(100 + i),)));
    check_groups(&world);
    assert_eq!(world.storage().groups()[0].len(), 20);
    let c = world.component_id::<C>().unwrap();
    for &e in batch.iter().step_by(2) {
        world.remove_by_id(e, c).unwrap();
        check_groups(&world);
    }
    assert_eq!(world.storage().groups()[0].len(), 10);
    let lone = world.spawn((A(7),));
    let mut value = std::mem::ManuallyDrop::new(C(9));
    // SAFETY: `value` is a valid `C`, the component `c` names, never used again.
    unsafe {
        world
            .insert_by_id(lone, c, std::ptr::NonNull::from(&mut *value).cast())
            .unwrap();
    }
    check_groups(&world);
    assert_eq!(world.storage().groups()[0].len(), 11);
    assert_eq!(world.query::<(&A, &C)>().count(), 11);
}

#[test]
fn a_panicking_drop_in_despawn_leaves_the_group_right() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static ARMED: AtomicBool = AtomicBool::new(false);
    #[derive(Debug)]
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            if ARMED.swap(false, Ordering::SeqCst) {
                panic!("boom (intentional)");
            }
        }
    }
    impl Component for Bomb {
        type Mutability = ecs_core::Mutable;
    }
    let mut world = World::<SparseStorage>::new();
    world.group::<(A, Bomb)>().unwrap();
    let entities: Vec<Entity> = (0..6u32).map(|i| world.spawn((A(i), Bomb))).collect();
    ARMED.store(true, Ordering::SeqCst);
    let boom = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.despawn(entities[2]).unwrap();
    }));
    assert!(boom.is_err(), "the armed drop panicked");
    check_groups(&world);
    assert!(!world.contains(entities[2]));
    assert_eq!(world.storage().groups()[0].len(), 5);
    assert_eq!(world.query::<(&A, &Bomb)>().count(), 5);
    world.despawn(entities[3]).unwrap();
    check_groups(&world);
    assert_eq!(world.storage().groups()[0].len(), 4);
}
