//! Queries on `SparseStorage`: driver choice, chunk columns, filters, and a differential run
//! against `ecs_core`'s reference `VecStorage`.

use super::*;
use ecs_core::storage::{SlotRole, Storage};
use ecs_core::testing::VecStorage;
use ecs_core::{Component, With, Without, World};

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
struct C;
impl Component for C {
    type Mutability = ecs_core::Mutable;
}

#[derive(Debug, PartialEq, Clone, Copy)]
struct D(u64);
impl Component for D {
    type Mutability = ecs_core::Mutable;
}

const N: u32 = if cfg!(miri) { 24 } else { 600 };

/// `N` entities with `A`, every third also with `B`, every tenth also with `C`.
fn populated() -> (World<SparseStorage>, Vec<Entity>) {
    let mut world = World::<SparseStorage>::new();
    let entities = (0..N)
        .map(|i| {
            let e = world.spawn((A(i),));
            if i % 3 == 0 {
                world.insert(e, B(i.to_string())).unwrap();
            }
            if i % 10 == 0 {
                world.insert(e, C).unwrap();
            }
            e
        })
        .collect();
    (world, entities)
}

/// The chunk of a query over `world` (a sparse query yields at most one).
fn the_chunk<'a>(
    world: &'a World<SparseStorage>,
    descriptor: &'a QueryDescriptor,
) -> Option<SparseChunk<'a>> {
    let alive = world.entities().alive();
    world.storage().query_chunks(&(), descriptor, alive).next()
}

fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort_unstable();
    entities
}

#[test]
fn drives_from_the_smallest_required_set() {
    let (mut world, _) = populated();
    let (a, b, c) = (
        world.register_component::<A>(),
        world.register_component::<B>(),
        world.register_component::<C>(),
    );
    let mut descriptor = QueryDescriptor::default();
    let slot_a = descriptor.push(a, SlotRole::Required);
    let slot_b = descriptor.push(b, SlotRole::Required);
    let slot_c = descriptor.push(c, SlotRole::Optional);
    let storage = world.storage();
    let alive = world.entities().alive();
    let mut chunks = storage.query_chunks(&(), &descriptor, alive);
    let chunk = chunks.next().unwrap();
    assert!(chunks.next().is_none(), "one chunk");
    assert_eq!(chunk.driver(), Some(b));
    let b_set = storage.set(b).unwrap();
    assert_eq!(chunk.entities(), b_set.entities());
    assert!(matches!(chunk.column(slot_b), ColumnAccess::Dense(p) if p == b_set.data_ptr()));
    assert!(
        matches!(chunk.column(slot_a), ColumnAccess::Sparse(set) if std::ptr::eq(set, storage.set(a).unwrap()))
    );
    assert!(matches!(chunk.column(slot_c), ColumnAccess::Sparse(_)));

    // Adding a rarer required component moves the driver to it.
    let slot_c2 = descriptor.push(c, SlotRole::Required);
    let chunk = storage
        .query_chunks(&(), &descriptor, alive)
        .next()
        .unwrap();
    assert_eq!(chunk.driver(), Some(c));
    assert_eq!(chunk.entities().len(), N.div_ceil(10) as usize);
    assert!(matches!(chunk.column(slot_c2), ColumnAccess::Dense(_)));
    assert!(
        matches!(chunk.column(slot_c), ColumnAccess::Dense(_)),
        "same component"
    );
    assert!(matches!(chunk.column(slot_b), ColumnAccess::Sparse(_)));
}

#[test]
fn sets_holding_the_rows_in_order_answer_dense() {
    let mut world = World::<SparseStorage>::new();
    // Five entities with only A first, so the (A, D) entities sit at A's positions 5.. .
    world.spawn_batch((0..5).map(|i| (A(i),)));
    let both = world
        .spawn_batch((0..N).map(|i| (A(100 + i), D(u64::from(i)))))
        .to_vec();
    let (a, d) = (
        world.register_component::<A>(),
        world.register_component::<D>(),
    );
    let mut descriptor = QueryDescriptor::default();
    let slot_a = descriptor.push(a, SlotRole::Required);
    let slot_d = descriptor.push(d, SlotRole::Required);
    // Where slot `slot` of the query's one chunk reads: the run's start, or `None` (look-up).
    let dense_at = |world: &World<SparseStorage>, slot: usize| {
        let chunk = the_chunk(world, &descriptor).unwrap();
        assert_eq!(chunk.driver(), Some(d));
        match chunk.column(slot) {
            ColumnAccess::Dense(p) => Some(p.as_ptr()),
            _ => None,
        }
    };
    let a_data = world.storage().set(a).unwrap().data_ptr().as_ptr();
    assert_eq!(
        dense_at(&world, slot_a),
        Some(a_data.wrapping_add(5 * size_of::<A>())),
        "A holds D's rows in order from position 5"
    );
    assert!(dense_at(&world, slot_d).is_some());
    let sum = |world: &mut World<SparseStorage>| {
        world
            .query::<(&A, &D)>()
            .map(|(a, d)| u64::from(a.0) * 1000 + d.0)
            .sum::<u64>()
    };
    let expected: u64 = (0..u64::from(N)).map(|i| (100 + i) * 1000 + i).sum();
    assert_eq!(sum(&mut world), expected);
    // Writes through the dense run land on the right entities.
    world
        .query::<(&mut A, &D)>()
        .for_each(|(a, d)| a.0 += d.0 as u32);
    assert_eq!(world.get::<A>(both[7]), Some(&A(107 + 7)));

    // Removing D from one entity moves D's last entity into its place: the order differs
    // from A's, so A answers by look-up again, with the same results.
    world.remove::<D>(both[1]).unwrap();
    assert_eq!(dense_at(&world, slot_a), None);
    let expected: u64 = (0..u64::from(N))
        .filter(|&i| i != 1)
        .map(|i| (100 + 2 * i) * 1000 + i)
        .sum();
    assert_eq!(sum(&mut world), expected);
}

#[test]
fn a_required_component_without_a_set_yields_no_chunk() {
    let (mut world, _) = populated();
    let a = world.register_component::<A>();
    let d = world.register_component::<D>();
    let mut descriptor = QueryDescriptor::default();
    descriptor.push(a, SlotRole::Required);
    descriptor.push(d, SlotRole::Required);
    assert!(the_chunk(&world, &descriptor).is_none());
    assert_eq!(world.query::<(&A, &D)>().count(), 0);
}

#[test]
fn without_required_slots_every_live_entity_is_a_row() {
    let (mut world, _) = populated();
    let b = world.register_component::<B>();
    let d = world.register_component::<D>();
    let mut descriptor = QueryDescriptor::default();
    let slot_b = descriptor.push(b, SlotRole::Optional);
    let slot_d = descriptor.push(d, SlotRole::Excluded);
    let chunk = the_chunk(&world, &descriptor).unwrap();
    let alive = world.entities().alive();
    assert_eq!((chunk.entities(), chunk.driver()), (alive, None));
    assert!(matches!(chunk.column(slot_b), ColumnAccess::Sparse(_)));
    assert!(matches!(chunk.column(slot_d), ColumnAccess::Absent));
    assert_eq!(world.query::<Option<&B>>().count(), N as usize);
    let with_b = world.query::<Option<&B>>().flatten().count();
    assert_eq!(with_b, N.div_ceil(3) as usize);
}

#[test]
fn joins_and_filters_match_the_expected_entities() {
    let (mut world, entities) = populated();
    let expect = |f: &dyn Fn(u32) -> bool| {
        sorted(entities.iter().copied().filter(|e| f(e.index())).collect())
    };
    let both: Vec<Entity> = world.query::<(Entity, &A, &B)>().map(|(e, ..)| e).collect();
    assert_eq!(sorted(both), expect(&|i| i % 3 == 0));
    for (_, a, b) in world.query::<(Entity, &A, &B)>() {
        assert_eq!(b.0, a.0.to_string());
    }
    let with_c: Vec<Entity> = world.query_filtered::<Entity, With<C>>().collect();
    assert_eq!(sorted(with_c), expect(&|i| i % 10 == 0));
    let a_not_b: Vec<Entity> = world
        .query_filtered::<Entity, (With<A>, Without<B>)>()
        .collect();
    assert_eq!(sorted(a_not_b), expect(&|i| i % 3 != 0));
    let b_not_c = world.query_filtered::<&B, Without<C>>().count();
    assert_eq!(b_not_c, expect(&|i| i % 3 == 0 && i % 10 != 0).len());
    let a_with_opt_b: Vec<(u32, Option<String>)> = world
        .query_filtered::<(&A, Option<&B>), With<C>>()
        .map(|(a, b)| (a.0, b.map(|b| b.0.clone())))
        .collect();
    assert_eq!(a_with_opt_b.len(), N.div_ceil(10) as usize);
    for (a, b) in a_with_opt_b {
        assert_eq!(b, (a % 3 == 0).then(|| a.to_string()));
    }
    // Required and excluded at once: nothing can match.
    assert_eq!(world.query_filtered::<&A, Without<A>>().count(), 0);
}

#[test]
fn mutation_through_a_sparse_join() {
    let (mut world, entities) = populated();
    // Driven by B; A is reached through look-ups and written.
    world
        .query_filtered::<&mut A, With<B>>()
        .for_each(|a| a.0 += 1000);
    for (i, &e) in entities.iter().enumerate() {
        let bump = if i % 3 == 0 { 1000 } else { 0 };
        assert_eq!(world.get::<A>(e), Some(&A(i as u32 + bump)));
    }
    for (a, b) in world.query::<(&mut A, &mut B)>() {
        b.0.push('!');
        a.0 = 0;
    }
    assert!(world
        .query::<(&A, &B)>()
        .all(|(a, b)| a.0 == 0 && b.0.ends_with('!')));
}

/// A small deterministic generator for the differential test.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}

/// What a world looks like through queries, in a backend-independent order.
type Snapshot = Vec<(u64, Option<A>, Option<B>, bool, Option<D>)>;

fn snapshot<S: Storage>(world: &mut World<S>) -> Snapshot {
    let mut rows: Snapshot = world
        .query::<(Entity, Option<&A>, Option<&B>, Option<&C>, Option<&D>)>()
        .map(|(e, a, b, c, d)| (e.to_bits(), a.copied(), b.cloned(), c.is_some(), d.copied()))
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}

fn joins<S: Storage>(world: &mut World<S>) -> [Vec<u64>; 4] {
    let keys = |mut v: Vec<u64>| {
        v.sort_unstable();
        v
    };
    [
        keys(
            world
                .query::<(Entity, &A, &B)>()
                .map(|(e, ..)| e.to_bits())
                .collect(),
        ),
        keys(
            world
                .query_filtered::<Entity, (With<C>, Without<D>)>()
                .map(Entity::to_bits)
                .collect(),
        ),
        keys(
            world
                .query_filtered::<(Entity, &D), With<A>>()
                .map(|(e, _)| e.to_bits())
                .collect(),
        ),
        keys(
            world
                .query_filtered::<Entity, (Without<A>, Without<B>)>()
                .map(Entity::to_bits)
                .collect(),
        ),
    ]
}

/// Applies one random operation; returns a printable outcome to compare across backends.
fn step<S: Storage>(world: &mut World<S>, live: &mut Vec<Entity>, rng: &mut Lcg) -> String {
    let pick = |live: &Vec<Entity>, rng: &mut Lcg| live[rng.below(live.len() as u32) as usize];
    let op = if live.is_empty() { 0 } else { rng.below(9) };
    let v = rng.below(1000);
    match op {
        0 | 1 => {
            let e = match v % 4 {
                0 => world.spawn((A(v),)),
                1 => world.spawn((A(v), B(v.to_string()))),
                2 => world.spawn((C, D(u64::from(v)))),
                _ => world.spawn(()),
            };
            live.push(e);
            format!("spawn {e:?}")
        }
        2 => format!("{:?}", world.insert(pick(live, rng), A(v))),
        3 => format!("{:?}", world.insert(pick(live, rng), B(v.to_string()))),
        4 => format!("{:?}", world.insert(pick(live, rng), C)),
        5 => format!("{:?}", world.remove::<A>(pick(live, rng))),
        6 => format!("{:?}", world.remove::<B>(pick(live, rng))),
        7 => {
            let e = pick(live, rng);
            world
                .query_filtered::<&mut D, With<C>>()
                .for_each(|d| d.0 += 1);
            format!("{:?}", world.remove::<D>(e))
        }
        _ => {
            let index = rng.below(live.len() as u32) as usize;
            let e = live.swap_remove(index);
            format!("{:?} {:?}", world.despawn(e), world.despawn(e))
        }
    }
}

#[test]
fn matches_the_reference_backend_under_random_operations() {
    let steps = if cfg!(miri) { 150 } else { 4000 };
    let (mut sparse, mut reference) = (World::<SparseStorage>::new(), World::<VecStorage>::new());
    let (mut live_s, mut live_r) = (Vec::new(), Vec::new());
    let (mut rng_s, mut rng_r) = (Lcg(7), Lcg(7));
    for i in 0..steps {
        let a = step(&mut sparse, &mut live_s, &mut rng_s);
        let b = step(&mut reference, &mut live_r, &mut rng_r);
        assert_eq!(a, b, "step {i}");
        if i % 50 == 0 || i == steps - 1 {
            assert_eq!(snapshot(&mut sparse), snapshot(&mut reference), "step {i}");
            assert_eq!(joins(&mut sparse), joins(&mut reference), "step {i}");
        }
    }
    assert!(!live_s.is_empty(), "the run ends with entities alive");
    sparse.clear();
    reference.clear();
    assert_eq!(snapshot(&mut sparse), snapshot(&mut reference));
}
