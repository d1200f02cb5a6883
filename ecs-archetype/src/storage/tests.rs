//! Behaviour of `World<ArchetypeStorage>`: the typed API, queries, drops, panics, layouts.

use std::alloc::Layout;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ecs_core::testing::VecStorage;
use ecs_core::{
    Component, ComponentDescriptor, EcsError, Entity, Storage, StorageKind, With, Without, World,
};

use super::ArchetypeStorage;
use crate::table::TableId;

type ArchWorld = World<ArchetypeStorage>;

#[derive(Debug, Clone, PartialEq)]
struct A(u32);
impl Component for A {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, PartialEq)]
struct B(u64);
impl Component for B {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, PartialEq)]
struct C(String);
impl Component for C {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, Copy, PartialEq)]
struct Marker;
impl Component for Marker {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, Copy, PartialEq)]
struct Marker2;
impl Component for Marker2 {
    type Mutability = ecs_core::Mutable;
}

/// Counts live clones of its `Arc`: a leak leaves the count high, a double drop makes it low
/// (and is undefined behaviour Miri reports).
#[derive(Clone)]
struct Counted(#[allow(dead_code)] Arc<()>);
impl Component for Counted {
    type Mutability = ecs_core::Mutable;
}
#[derive(Clone)]
struct Counted2(#[allow(dead_code)] Arc<()>);
impl Component for Counted2 {
    type Mutability = ecs_core::Mutable;
}

/// Counts its drops and panics in `Drop` when armed.
struct Bomb {
    armed: bool,
    drops: Arc<AtomicUsize>,
}
impl Component for Bomb {
    type Mutability = ecs_core::Mutable;
}
impl Drop for Bomb {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        if self.armed {
            panic!("Bomb dropped");
        }
    }
}

fn scale(normal: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        normal
    }
}

fn check(world: &ArchWorld) {
    world.storage().archetypes().assert_consistent();
}

#[test]
fn spawn_get_insert_remove_despawn() {
    let mut world = ArchWorld::new();
    let e = world.spawn((A(1), B(2)));
    let f = world.spawn((A(3),));
    let g = world.spawn(());
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    assert_eq!(world.get::<B>(e), Some(&B(2)));
    assert_eq!(world.get::<B>(f), None);
    assert!(world.has::<A>(f) && !world.has::<A>(g));

    assert_eq!(world.insert(f, B(4)), Ok(None));
    assert_eq!(world.insert(f, B(5)), Ok(Some(B(4))));
    assert_eq!(world.insert(g, C("g".into())), Ok(None));
    check(&world);
    world.get_mut::<A>(f).unwrap().0 = 30;
    assert_eq!(world.get::<A>(f), Some(&A(30)));
    assert_eq!(world.get::<C>(g), Some(&C("g".into())));

    assert_eq!(world.remove::<A>(e), Ok(A(1)));
    assert!(matches!(
        world.remove::<A>(e),
        Err(EcsError::MissingComponent { .. })
    ));
    assert_eq!(world.get::<B>(e), Some(&B(2)));
    check(&world);

    assert_eq!(world.despawn(f), Ok(()));
    assert_eq!(world.despawn(f), Err(EcsError::NoSuchEntity(f)));
    assert_eq!(world.get::<A>(f), None);
    assert_eq!(world.insert(f, A(0)), Err(EcsError::NoSuchEntity(f)));
    check(&world);

    // The freed index is reused; the stale handle does not see the new entity.
    let h = world.spawn((A(7),));
    assert_eq!(h.index(), f.index());
    assert_eq!((world.get::<A>(f), world.get::<A>(h)), (None, Some(&A(7))));
    assert!(world
        .storage()
        .get_ptr(f, world.component_id::<A>().unwrap())
        .is_none());
    assert_eq!(world.len(), 3);
    check(&world);
}

#[test]
fn queries_with_without_and_option() {
    let mut world = ArchWorld::new();
    let n = scale(30, 9) as u32;
    for i in 0..n {
        match i % 3 {
            0 => world.spawn((A(i),)),
            1 => world.spawn((A(i), B(i as u64))),
            _ => world.spawn((A(i), B(i as u64), Marker)),
        };
    }
    world.spawn((B(1000),));
    let all: u32 = world.query::<&A>().map(|a| a.0).sum();
    assert_eq!(all, (0..n).sum::<u32>());
    assert_eq!(
        world.query_filtered::<&A, With<B>>().count(),
        (2 * n / 3) as usize
    );
    assert_eq!(
        world.query_filtered::<&A, Without<Marker>>().count(),
        (2 * n / 3) as usize
    );
    assert_eq!(
        world
            .query_filtered::<&B, (With<A>, Without<Marker>)>()
            .count(),
        (n / 3) as usize
    );
    let with_b = world
        .query::<(&A, Option<&B>)>()
        .filter(|(_, b)| b.is_some())
        .count();
    assert_eq!(with_b, (2 * n / 3) as usize);
    world
        .query::<(&mut A, Option<&mut B>)>()
        .for_each(|(a, b)| {
            a.0 += 1;
            if let Some(b) = b {
                b.0 += 1;
            }
        });
    let sum_b: u64 = world.query::<&B>().map(|b| b.0).sum();
    let expected: u64 = (0..n as u64)
        .filter(|i| i % 3 != 0)
        .map(|i| i + 1)
        .sum::<u64>()
        + 1000;
    assert_eq!(sum_b, expected);
    let entities = world.query::<Entity>().count();
    assert_eq!(entities, world.len());
    // Contradictory slots match nothing.
    assert_eq!(world.query_filtered::<&A, Without<A>>().count(), 0);
}

#[test]
fn query_state_sees_tables_created_after_it() {
    let mut world = ArchWorld::new();
    world.spawn((A(1),));
    let mut state = world.query_state::<&A, ()>().unwrap();
    assert_eq!(state.iter(&world).count(), 1);
    world.spawn((A(2), B(2)));
    let e = world.spawn((C("x".into()),));
    world.insert(e, A(3)).unwrap();
    let mut seen: Vec<u32> = state.iter(&world).map(|a| a.0).collect();
    seen.sort_unstable();
    assert_eq!(seen, vec![1, 2, 3]);
    // Emptied tables yield no chunk but stay matched.
    world.clear();
    assert_eq!(state.iter(&world).count(), 0);
    world.spawn((A(4), B(4)));
    assert_eq!(state.iter(&world).map(|a| a.0).collect::<Vec<_>>(), vec![4]);
}

#[test]
fn spawn_batch_fills_a_table_in_one_reservation() {
    let mut world = ArchWorld::new();
    let n = scale(1000, 20);
    let entities = world
        .spawn_batch((0..n as u32).map(|i| (A(i), B(i as u64))))
        .to_vec();
    let archetypes = world.storage().archetypes();
    let table = archetypes.table(archetypes.locate(entities[0]).unwrap().table);
    assert_eq!(table.len(), n);
    // Growing one push at a time would have doubled past `n` (small batches get the
    // growth policy's first capacity).
    let first = |size| n.max(ecs_core::blob::min_capacity(size));
    assert_eq!(table.column(0).capacity(), first(4));
    assert_eq!(table.column(1).capacity(), first(8));
    assert_eq!(world.get::<A>(entities[n - 1]), Some(&A(n as u32 - 1)));
    check(&world);
}

#[test]
fn a_known_bundle_resolves_its_table_once() {
    let mut world = ArchWorld::new();
    world.spawn((A(0), B(0)));
    let lookups = world.storage().archetypes().graph().set_lookups();
    for i in 0..scale(100, 10) as u32 {
        world.spawn((A(i), B(0)));
    }
    world.spawn_batch((0..10).map(|i| (A(i), B(0))));
    assert_eq!(world.storage().archetypes().graph().set_lookups(), lookups);
    // A different field order is a different bundle type, but the same table.
    let e = world.spawn((B(1), A(1)));
    let tables = world.storage().archetypes().tables().len();
    assert_eq!(tables, 2);
    assert_eq!(
        (world.get::<A>(e), world.get::<B>(e)),
        (Some(&A(1)), Some(&B(1)))
    );
}

#[test]
fn values_drop_exactly_once() {
    let counter = Arc::new(());
    let live = || Arc::strong_count(&counter) - 1;
    let mut world = ArchWorld::new();
    let n = scale(20, 6);
    let entities: Vec<Entity> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                world.spawn((Counted(counter.clone()), A(i as u32)))
            } else {
                world.spawn((Counted(counter.clone()),))
            }
        })
        .collect();
    assert_eq!(live(), n);

    // Insert-overwrite hands the old value back (dropped here, by the caller).
    let old = world.insert(entities[0], Counted(counter.clone())).unwrap();
    assert_eq!(live(), n + 1);
    drop(old);
    assert_eq!(live(), n);

    // Insert of a new component moves the row; nothing is dropped or duplicated.
    world
        .insert(entities[1], Counted2(counter.clone()))
        .unwrap();
    world.insert(entities[1], B(1)).unwrap();
    assert_eq!(live(), n + 1);

    // Remove hands the value out.
    let removed = world.remove::<Counted>(entities[2]).unwrap();
    assert_eq!(live(), n + 1);
    drop(removed);
    assert_eq!(live(), n);

    // Despawn drops every component of the entity.
    world.despawn(entities[1]).unwrap();
    assert_eq!(live(), n - 2);
    check(&world);

    // Clear drops everything; the world stays usable.
    world.clear();
    assert_eq!(live(), 0);
    let e = world.spawn((Counted(counter.clone()), Counted2(counter.clone())));
    world.remove::<Counted2>(e).unwrap();
    assert_eq!(live(), 1);
    check(&world);

    // Dropping the world drops what is left.
    world.spawn((Counted(counter.clone()),));
    drop(world);
    assert_eq!(live(), 0);
}

fn bombs(world: &mut ArchWorld, counter: &Arc<()>, drops: &Arc<AtomicUsize>, armed: usize) {
    for i in 0..5 {
        world.spawn((
            Bomb {
                armed: i == armed,
                drops: drops.clone(),
            },
            Counted(counter.clone()),
            A(i as u32),
        ));
    }
}

#[test]
fn panicking_drop_in_despawn_leaves_the_world_usable() {
    let counter = Arc::new(());
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = ArchWorld::new();
    bombs(&mut world, &counter, &drops, 2);
    let victim = world
        .query::<(Entity, &A)>()
        .find(|(_, a)| a.0 == 2)
        .unwrap()
        .0;
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(victim)));
    assert!(result.is_err());
    // The entity is gone, its other component dropped, the rest intact.
    assert!(!world.contains(victim));
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&counter), 1 + 4);
    check(&world);
    let mut left: Vec<u32> = world.query::<&A>().map(|a| a.0).collect();
    left.sort_unstable();
    assert_eq!(left, vec![0, 1, 3, 4]);
    // Still usable.
    let e = world.spawn((A(9),));
    world.insert(e, B(9)).unwrap();
    check(&world);
    drop(world);
    assert_eq!(drops.load(Ordering::SeqCst), 5);
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[test]
fn panicking_drop_in_clear_still_drops_everything() {
    let counter = Arc::new(());
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = ArchWorld::new();
    bombs(&mut world, &counter, &drops, 0);
    world.spawn((Counted(counter.clone()), B(1)));
    let result = catch_unwind(AssertUnwindSafe(|| world.clear()));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::SeqCst), 5);
    assert_eq!(Arc::strong_count(&counter), 1);
    assert!(world.is_empty());
    check(&world);
    world.spawn((A(1), Counted(counter.clone())));
    assert_eq!(world.query::<&A>().count(), 1);
    drop(world);
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[test]
fn panicking_drop_when_the_world_drops_still_drops_everything() {
    let counter = Arc::new(());
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = ArchWorld::new();
    bombs(&mut world, &counter, &drops, 3);
    world.spawn((Counted(counter.clone()), B(1)));
    let result = catch_unwind(AssertUnwindSafe(move || drop(world)));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::SeqCst), 5);
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[test]
fn zero_sized_components_allocate_no_column_memory() {
    let mut world = ArchWorld::new();
    let n = scale(2000, 40);
    let entities = world.spawn_batch((0..n).map(|_| (Marker,))).to_vec();
    for &e in entities.iter().step_by(2) {
        world.insert(e, Marker2).unwrap();
    }
    for &e in entities.iter().step_by(4) {
        world.remove::<Marker>(e).unwrap();
    }
    check(&world);
    let column_bytes: usize = world
        .storage()
        .archetypes()
        .tables()
        .iter()
        .flat_map(|t| (0..t.components().len()).map(move |c| t.column(c).memory_usage()))
        .sum();
    assert_eq!(column_bytes, 0);
    assert_eq!(world.query::<&Marker>().count(), n - n.div_ceil(4));
    assert_eq!(
        world.query::<(&Marker, &Marker2)>().count(),
        n / 2 - n.div_ceil(4)
    );
    assert_eq!(world.remove::<Marker2>(entities[0]), Ok(Marker2));
}

#[repr(align(64))]
#[derive(Debug, Clone, Copy, PartialEq)]
struct Align64(u32);
impl Component for Align64 {
    type Mutability = ecs_core::Mutable;
}

#[repr(align(4096))]
#[derive(Debug, Clone, Copy, PartialEq)]
struct Page(u32);
impl Component for Page {
    type Mutability = ecs_core::Mutable;
}

#[test]
fn over_aligned_components_stay_aligned() {
    let mut world = ArchWorld::new();
    let n = scale(20, 4) as u32;
    let entities: Vec<Entity> = (0..n).map(|i| world.spawn((A(i), Align64(i)))).collect();
    for &e in entities.iter().step_by(2) {
        let i = world.get::<A>(e).unwrap().0;
        world.insert(e, Page(i)).unwrap();
    }
    world.despawn(entities[0]).unwrap();
    world.remove::<Page>(entities[2]).unwrap();
    check(&world);
    for &e in &entities[1..] {
        let i = world.get::<A>(e).unwrap().0;
        let a64 = world.get::<Align64>(e).unwrap();
        assert_eq!((a64.0, a64 as *const Align64 as usize % 64), (i, 0));
        if let Some(page) = world.get::<Page>(e) {
            assert_eq!((page.0, page as *const Page as usize % 4096), (i, 0));
        }
    }
    world
        .query::<(&A, &Align64, Option<&Page>)>()
        .for_each(|(a, a64, page)| {
            assert_eq!(a64.0, a.0);
            assert_eq!(a64 as *const Align64 as usize % 64, 0);
            if let Some(page) = page {
                assert_eq!((page.0, page as *const Page as usize % 4096), (a.0, 0));
            }
        });
    assert_eq!(world.query::<&Page>().count(), (n as usize).div_ceil(2) - 2);
}

#[test]
fn components_by_id_including_unpadded_layouts() {
    let mut world = ArchWorld::new();
    let raw = |layout| ComponentDescriptor {
        name: "Raw".into(),
        layout,
        drop: None,
        storage: StorageKind::Table,
    };
    // Size 3, alignment 4: the registry pads it to 4 bytes, so byte access uses 4.
    let odd = world.register_dynamic(raw(Layout::from_size_align(3, 4).unwrap()));
    let four = world.register_dynamic(raw(Layout::new::<[u8; 4]>()));
    let zst = world.register_dynamic(raw(Layout::from_size_align(0, 8).unwrap()));
    let e = world.spawn((A(1),));
    let f = world.spawn((A(2),));
    assert_eq!(world.component_info(odd).unwrap().layout().size(), 4);
    assert!(world.insert_bytes(e, odd, &[1, 2, 3]).is_err());
    world.insert_bytes(e, odd, &[1, 2, 3, 0]).unwrap();
    world.insert_bytes(f, odd, &[4, 5, 6, 0]).unwrap();
    world.insert_bytes(e, four, &[7, 8, 9, 10]).unwrap();
    world.insert_bytes(e, zst, &[]).unwrap();
    world.insert_bytes(e, odd, &[11, 12, 13, 0]).unwrap();
    check(&world);
    assert_eq!(world.get_bytes(e, odd), Some(&[11u8, 12, 13, 0][..]));
    assert_eq!(world.get_bytes(f, odd), Some(&[4u8, 5, 6, 0][..]));
    assert_eq!(world.get_bytes(e, four), Some(&[7u8, 8, 9, 10][..]));
    assert_eq!(world.get_bytes(e, zst), Some(&[][..]));
    world.remove_by_id(e, odd).unwrap();
    assert!(world.remove_by_id(e, odd).is_err());
    assert_eq!(world.get_bytes(e, odd), None);
    assert_eq!(world.get_bytes(e, four), Some(&[7u8, 8, 9, 10][..]));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    world.remove_by_id(f, odd).unwrap();
    check(&world);
}

#[test]
fn memory_usage_counts_columns_and_keeps_capacity_on_clear() {
    let mut world = ArchWorld::new();
    let empty = world.storage().memory_usage();
    world.spawn_batch((0..scale(100, 10) as u32).map(|i| (A(i), B(i as u64))));
    let filled = world.storage().memory_usage();
    assert!(filled >= empty + scale(100, 10) * (size_of::<A>() + size_of::<B>()));
    world.clear();
    // Capacity is kept for reuse.
    assert_eq!(world.storage().memory_usage(), filled);
}

#[test]
fn entities_without_components_have_no_row() {
    let mut world = ArchWorld::new();
    // (A first batch caches the empty bundle's target; nothing per entity follows.)
    world.spawn_batch([()]);
    let before = world.storage().memory_usage();
    let e = world.spawn(());
    world.spawn_batch((0..99).map(|_| ()));
    assert_eq!(world.storage().archetypes().locate(e), None);
    assert_eq!(world.storage().archetypes().rows(), 0);
    assert_eq!(world.storage().memory_usage(), before, "no row, no record");
    assert_eq!(world.query::<Entity>().count(), 101);
    // The first component is a push into its table; losing the last one leaves the tables.
    world.insert(e, A(1)).unwrap();
    let record = world.storage().archetypes().locate(e).unwrap();
    assert_ne!(record.table, TableId::EMPTY);
    assert_eq!(world.query::<&A>().count(), 1);
    assert_eq!(world.query::<Entity>().count(), 101);
    check(&world);
    assert_eq!(world.remove::<A>(e), Ok(A(1)));
    assert_eq!(world.storage().archetypes().locate(e), None);
    assert!(world.storage().archetypes().table(record.table).is_empty());
    assert_eq!(world.query::<Entity>().count(), 101);
    assert_eq!(world.get::<A>(e), None);
    check(&world);
    world.despawn(e).unwrap();
    assert!(!world.contains(e));
    assert_eq!(world.query::<Entity>().count(), 100);
    assert!(world
        .storage()
        .archetypes()
        .table(TableId::EMPTY)
        .is_empty());
}

#[test]
fn queries_requiring_nothing_find_rowless_entities_between_rows() {
    let mut world = ArchWorld::new();
    // Alternate rowless entities, entities with A and with (A, B), so the runs are short.
    let mut expected = Vec::new();
    let n = scale(60, 12);
    let gone = [3, 7, n - 2];
    for i in 0..n as u32 {
        let e = match i % 3 {
            0 => world.spawn(()),
            1 => world.spawn((A(i),)),
            _ => world.spawn((A(i), B(u64::from(i)))),
        };
        expected.push((e, (i % 3 != 0).then_some(A(i))));
    }
    // Despawn a few and empty one entity, so the live list is permuted.
    for k in gone {
        world.despawn(expected[k].0).unwrap();
    }
    let emptied = expected[4].0;
    world.remove::<A>(emptied).unwrap();
    expected[4].1 = None;
    let expected: Vec<_> = expected
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !gone.contains(k))
        .map(|(_, item)| item)
        .collect();
    let mut found: Vec<(Entity, Option<A>)> = world
        .query::<(Entity, Option<&A>)>()
        .map(|(e, a)| (e, a.map(|a| A(a.0))))
        .collect();
    found.sort_by_key(|(e, _)| *e);
    let mut sorted = expected.clone();
    sorted.sort_by_key(|(e, _)| *e);
    assert_eq!(found, sorted);
    let without: usize = world.query_filtered::<Entity, Without<A>>().count();
    assert_eq!(
        without,
        expected.iter().filter(|(_, a)| a.is_none()).count()
    );
    // Random access agrees, through the state and through a view (whose rowless chunks
    // carry no key).
    let mut state = world.query_state::<(Entity, Option<&A>), ()>().unwrap();
    let want = |(e, a): &(Entity, Option<A>)| Some((*e, a.as_ref().map(|a| a.0)));
    for item in &expected {
        let by_state = state.get(&world, item.0).map(|(e, a)| (e, a.map(|a| a.0)));
        assert_eq!(by_state, want(item), "{:?}", item.0);
    }
    let view = state.view(&world);
    for item in &expected {
        let by_view = view.get(item.0).map(|(e, a)| (e, a.map(|a| a.0)));
        assert_eq!(by_view, want(item), "{:?}", item.0);
    }
    check(&world);
}

/// The shared kit's seeded generator, so failures replay.
use ecs_conformance::kit::Rng;

/// Sorted `(entity, A, B?, C?)` of every entity with `A`, for comparing worlds.
fn snapshot<S: Storage>(world: &mut World<S>) -> Vec<(Entity, u32, Option<u64>, Option<String>)> {
    let mut rows: Vec<_> = world
        .query::<(Entity, &A, Option<&B>, Option<&C>)>()
        .map(|(e, a, b, c)| (e, a.0, b.map(|b| b.0), c.map(|c| c.0.clone())))
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}

fn filtered<S: Storage>(world: &mut World<S>) -> Vec<Entity> {
    let mut rows: Vec<Entity> = world
        .query_filtered::<Entity, (With<B>, Without<Marker>)>()
        .collect();
    rows.sort_unstable();
    rows
}

#[test]
fn matches_the_reference_backend_under_random_operations() {
    let mut arch = ArchWorld::new();
    let mut reference = World::<VecStorage>::new();
    let mut live: Vec<Entity> = Vec::new();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for step in 0..scale(3000, 300) {
        let value = step as u32;
        match rng.index(10) {
            0 | 1 if live.len() < 200 => {
                let (x, y) = match rng.index(4) {
                    0 => (arch.spawn((A(value),)), reference.spawn((A(value),))),
                    1 => (
                        arch.spawn((A(value), B(value as u64))),
                        reference.spawn((A(value), B(value as u64))),
                    ),
                    2 => (
                        arch.spawn((C(value.to_string()), Marker)),
                        reference.spawn((C(value.to_string()), Marker)),
                    ),
                    _ => (arch.spawn(()), reference.spawn(())),
                };
                assert_eq!(x, y);
                live.push(x);
            }
            _ if live.is_empty() => {}
            2 | 3 => {
                let e = live[rng.index(live.len())];
                match rng.index(4) {
                    0 => assert_eq!(arch.insert(e, A(value)), reference.insert(e, A(value))),
                    1 => assert_eq!(
                        arch.insert(e, B(value as u64)),
                        reference.insert(e, B(value as u64))
                    ),
                    2 => assert_eq!(
                        arch.insert(e, C(value.to_string())),
                        reference.insert(e, C(value.to_string()))
                    ),
                    _ => assert_eq!(arch.insert(e, Marker), reference.insert(e, Marker)),
                }
            }
            4 | 5 => {
                let e = live[rng.index(live.len())];
                match rng.index(4) {
                    0 => assert_eq!(arch.remove::<A>(e), reference.remove::<A>(e)),
                    1 => assert_eq!(arch.remove::<B>(e), reference.remove::<B>(e)),
                    2 => assert_eq!(arch.remove::<C>(e), reference.remove::<C>(e)),
                    _ => assert_eq!(arch.remove::<Marker>(e), reference.remove::<Marker>(e)),
                }
            }
            6 => {
                let e = live.swap_remove(rng.index(live.len()));
                assert_eq!(arch.despawn(e), reference.despawn(e));
            }
            7 => {
                let e = live[rng.index(live.len())];
                assert_eq!(arch.get::<A>(e), reference.get::<A>(e));
                assert_eq!(arch.get::<C>(e), reference.get::<C>(e));
                if let Some(b) = arch.get_mut::<B>(e) {
                    b.0 += 1;
                    reference.get_mut::<B>(e).unwrap().0 += 1;
                }
            }
            8 if rng.index(50) == 0 => {
                arch.clear();
                reference.clear();
                live.clear();
            }
            _ => {
                assert_eq!(snapshot(&mut arch), snapshot(&mut reference));
                assert_eq!(filtered(&mut arch), filtered(&mut reference));
            }
        }
    }
    check(&arch);
    assert_eq!(snapshot(&mut arch), snapshot(&mut reference));
    assert_eq!(filtered(&mut arch), filtered(&mut reference));
    assert_eq!(arch.len(), reference.len());
}

#[test]
fn place_reads_what_get_ptr_reads() {
    use ecs_core::storage::EntityPlace;
    let mut world = ArchWorld::new();
    let ab = world.spawn((A(1), B(2)));
    let a = world.spawn((A(3),));
    let empty = world.spawn(());
    let gone = world.spawn((A(4), B(5)));
    world.despawn(gone).unwrap();
    let ids = [
        world.register_component::<A>(),
        world.register_component::<B>(),
        world.register_component::<C>(),
    ];
    let storage = world.storage();
    for e in [ab, a, empty, gone] {
        let place = storage
            .place(e)
            .expect("a row, or rowless for a vacant index");
        for id in ids {
            assert_eq!(place.ptr(id), storage.get_ptr(e, id), "{e:?} {id:?}");
        }
    }
    assert_eq!(storage.place(ab).unwrap().row(), 0);
    assert_eq!(
        storage.archetypes().locate(empty),
        None,
        "no component, no row"
    );
    // A handle whose index another generation now holds (with a row) is certainly stale.
    let reused = world.spawn((C("reuse".into()),));
    assert_eq!(reused.index(), gone.index());
    assert!(
        world.storage().place(gone).is_none(),
        "a stale handle has no place"
    );
}

#[test]
fn typed_place_reads_agree_with_untyped_on_every_row() {
    use ecs_core::storage::{EntityPlace, Storage};
    // Columns of 4, 8, 24 and 0 bytes in one table, several rows each: a stride taken from
    // the wrong size lands on another row's value.
    let mut world = ArchWorld::new();
    let entities: Vec<_> = (0..5)
        .map(|i| world.spawn((A(i), B(u64::from(i) * 10), C(format!("c{i}")), Marker)))
        .collect();
    let (a, b, c, m) = (
        world.register_component::<A>(),
        world.register_component::<B>(),
        world.register_component::<C>(),
        world.register_component::<Marker>(),
    );
    let storage = world.storage();
    for (i, &e) in entities.iter().enumerate() {
        let place = storage.place(e).expect("a row");
        assert_eq!(place.ptr_of::<A>(a), place.ptr(a), "row {i}");
        assert_eq!(place.ptr_of::<B>(b), place.ptr(b), "row {i}");
        assert_eq!(place.ptr_of::<C>(c), place.ptr(c), "row {i}");
        assert_eq!(place.ptr_of::<Marker>(m), place.ptr(m), "row {i}");
        assert_eq!(
            storage.get_ptr_of::<B>(e, b),
            storage.get_ptr(e, b),
            "row {i}"
        );
        // SAFETY: `b` is B's id and the entity has a B.
        let value = unsafe { place.ptr_of::<B>(b).unwrap().cast::<B>().as_ref() };
        assert_eq!(value.0, i as u64 * 10);
    }
    // A component the table lacks answers `None` on the typed path too.
    let only_a = world.spawn((A(9),));
    let storage = world.storage();
    assert_eq!(storage.place(only_a).unwrap().ptr_of::<B>(b), None);
    assert_eq!(storage.get_ptr_of::<B>(only_a, b), None);
}

#[test]
fn chunk_rows_name_the_table_and_row() {
    use ecs_core::storage::{EntityPlace, Storage};
    let mut world = ArchWorld::new();
    let a0 = world.spawn((A(0),));
    let a1 = world.spawn((A(1),));
    let ab = world.spawn((A(2), B(3)));
    let empty = world.spawn(());
    let other_empty = world.spawn(());
    let a = world.register_component::<A>();
    let storage = world.storage();
    let key_row = |e| {
        let at = storage.place(e).unwrap().chunk_row().unwrap();
        (at.key, at.row)
    };
    let rowless = |e| storage.place(e).unwrap().chunk_row().is_none();
    let ((k0, r0), (k1, r1), (kab, rab)) = (key_row(a0), key_row(a1), key_row(ab));
    assert_eq!(
        (k0, r0, r1, rab),
        (k1, 0, 1, 0),
        "one table, rows in spawn order"
    );
    assert_ne!(k0, kab, "another table, another key");
    // Rowless places (the empty table holds no row) have no key, and read nothing.
    assert!(rowless(empty) && rowless(other_empty));
    assert_eq!(storage.place(empty).unwrap().ptr_of::<A>(a), None);
    // Same key: the second row's value is the first's moved by one value.
    let p0 = storage.place(a0).unwrap().ptr_of::<A>(a).unwrap();
    let p1 = storage.place(a1).unwrap().ptr_of::<A>(a).unwrap();
    assert_eq!(
        p0.as_ptr().cast::<A>().wrapping_add(1),
        p1.as_ptr().cast::<A>()
    );
}

#[test]
fn table_row_rejects_rows_past_the_end() {
    let mut world = ArchWorld::new();
    let e = world.spawn((A(1),));
    let archetypes = world.storage().archetypes();
    let table = archetypes.table(archetypes.locate(e).unwrap().table);
    assert!(crate::table::TableRow::new(table, 0).is_some());
    assert!(crate::table::TableRow::new(table, 1).is_none());
}

/// Columns of `A(x)` and `Counted` values for each `x`, as a loader stages them.
pub(crate) fn staged_columns(
    components: &ecs_core::component::Components,
    a: ecs_core::ComponentId,
    counted: ecs_core::ComponentId,
    xs: std::ops::Range<u32>,
    counter: &Arc<()>,
) -> (ecs_core::blob::BlobVec, ecs_core::blob::BlobVec) {
    use ecs_core::blob::BlobVec;
    let mut a_values = BlobVec::for_component(components.info(a));
    let mut c_values = BlobVec::for_component(components.info(counted));
    for x in xs {
        // SAFETY: each array holds its component's type.
        unsafe {
            a_values.push(A(x));
            c_values.push(Counted(counter.clone()));
        }
    }
    (a_values, c_values)
}

/// A loaded column handed to `spawn_columns`: an empty table takes the buffer whole, a table
/// with rows gets a copy; every value is moved once (the `Arc` count tells a leak or a
/// double drop, which Miri would also report).
#[test]
fn spawn_columns_adopts_or_copies_whole_columns() {
    use ecs_core::bundle::BundleInfo;
    use ecs_core::component::Components;
    use ecs_core::storage::ColumnValues;
    let counter = Arc::new(());
    let mut components = Components::default();
    let a = components.register::<A>();
    let counted = components.register::<Counted>();
    let empty = BundleInfo::new::<()>(0, &mut components).unwrap();
    let mut storage = ArchetypeStorage::default();
    let entities: Vec<Entity> = (10..14).map(|i| Entity::new(i, 1).unwrap()).collect();
    let (mut a_values, mut c_values) = staged_columns(&components, a, counted, 0..4, &counter);
    let (pa, pc) = (a_values.base_ptr(), c_values.base_ptr());
    let mut columns = [
        ColumnValues {
            component: a,
            values: pa,
            buffer: Some(&mut a_values),
        },
        ColumnValues {
            component: counted,
            values: pc,
            buffer: Some(&mut c_values),
        },
    ];
    // SAFETY: the entities are distinct and not held; the columns hold 4 owned values each
    // of distinct registered components; the buffers hold exactly those values.
    unsafe { storage.spawn_columns(&entities, &mut columns, &empty, &components) };
    a_values.forget_all();
    c_values.forget_all();
    assert_eq!(Arc::strong_count(&counter), 1 + 4);
    let table = storage.archetypes().locate(entities[2]).unwrap().table;
    assert_eq!(
        storage.archetypes().table(table).len(),
        4,
        "adopted into the empty table"
    );
    assert_eq!(
        // SAFETY: component `a` is `A`.
        unsafe {
            storage
                .get_ptr(entities[3], a)
                .unwrap()
                .cast::<A>()
                .as_ref()
        },
        &A(3)
    );
    // A second batch into the same (now non-empty) table is copied.
    let more: Vec<Entity> = (20..22).map(|i| Entity::new(i, 1).unwrap()).collect();
    let (mut a_values, mut c_values) = staged_columns(&components, a, counted, 7..9, &counter);
    let (pa, pc) = (a_values.base_ptr(), c_values.base_ptr());
    let mut columns = [
        ColumnValues {
            component: counted,
            values: pc,
            buffer: Some(&mut c_values),
        },
        ColumnValues {
            component: a,
            values: pa,
            buffer: None,
        },
    ];
    // SAFETY: as above.
    unsafe { storage.spawn_columns(&more, &mut columns, &empty, &components) };
    a_values.forget_all();
    c_values.forget_all();
    assert_eq!(storage.archetypes().table(table).len(), 6);
    assert_eq!(
        // SAFETY: as above.
        unsafe { storage.get_ptr(more[1], a).unwrap().cast::<A>().as_ref() },
        &A(8)
    );
    // No columns: the entities get no row.
    let bare = [Entity::new(30, 1).unwrap()];
    // SAFETY: a new entity, no columns.
    unsafe { storage.spawn_columns(&bare, &mut [], &empty, &components) };
    assert!(storage.archetypes().locate(bare[0]).is_none());
    assert_eq!(Arc::strong_count(&counter), 1 + 6);
    drop(storage);
    assert_eq!(Arc::strong_count(&counter), 1, "every value dropped once");
}
