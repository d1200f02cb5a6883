use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::component::{Component, ComponentDescriptor, StorageKind};
use ecs_core::{Changed, EcsError, Entity, World};

use crate::HybridStorage;

thread_local! {
    /// The step at which the next move panics.
    static FAIL_AT: Cell<Option<&'static str>> = const { Cell::new(None) };
    /// Whether this thread is inside a move's commit.
    static IN_COMMIT: Cell<bool> = const { Cell::new(false) };
    /// Allocations this thread made inside commits.
    static COMMIT_ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// The move's step hook (see `migrate::step`): panics where a test asked, and marks the
/// commit for the allocation count.
pub(super) fn step(name: &'static str) {
    if FAIL_AT.with(|f| f.get()) == Some(name) {
        FAIL_AT.with(|f| f.set(None));
        panic!("injected failure: {name}");
    }
    match name {
        "commit begins" => IN_COMMIT.with(|c| c.set(true)),
        "commit ends" => IN_COMMIT.with(|c| c.set(false)),
        _ => {}
    }
}

/// Counts the allocations made inside a commit (the commit must make none).
struct CountingInCommit;

impl CountingInCommit {
    fn note(&self) {
        if IN_COMMIT.try_with(Cell::get).unwrap_or(false) {
            COMMIT_ALLOCATIONS.with(|n| n.set(n.get() + 1));
        }
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counting touches only
// `const`-initialised thread-locals without destructors, which allocate nothing.
unsafe impl GlobalAlloc for CountingInCommit {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.note();
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.note();
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.note();
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingInCommit = CountingInCommit;

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(f32);
impl Component for Pos {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Clone)]
struct Burning(String);
impl Component for Burning {
    type Mutability = ecs_core::Tracked;
    const MOVABLE: bool = true;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct Tag;
impl Component for Tag {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
    const MOVABLE: bool = true;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct Other;
impl Component for Other {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}

type HybridWorld = World<HybridStorage>;

/// Entities in three tables (with and without `Burning`), a rowless one with only a sparse
/// `Tag`, and one with nothing.
fn world() -> (HybridWorld, Vec<Entity>) {
    let mut world = HybridWorld::new();
    let mut entities = Vec::new();
    for i in 0..12 {
        let e = match i % 4 {
            0 => world.spawn((Pos(i as f32), Burning(format!("b{i}")))),
            1 => world.spawn((Pos(i as f32),)),
            2 => world.spawn((Burning(format!("b{i}")), Tag)),
            _ => world.spawn((Pos(i as f32), Burning(format!("b{i}")), Tag)),
        };
        entities.push(e);
    }
    entities.push(world.spawn((Tag,)));
    entities.push(world.spawn(()));
    (world, entities)
}

/// Every entity's values, in handle order.
fn values(world: &HybridWorld, entities: &[Entity]) -> Vec<(Option<Pos>, Option<Burning>, bool)> {
    entities
        .iter()
        .map(|&e| {
            (
                world.get::<Pos>(e).copied(),
                world.get::<Burning>(e).cloned(),
                world.get::<Tag>(e).is_some(),
            )
        })
        .collect()
}

/// What a query joining `Burning` with `Pos` finds, sorted.
fn joined(world: &mut HybridWorld) -> Vec<(u32, String)> {
    let mut found: Vec<_> = world
        .query::<(&Pos, &Burning)>()
        .map(|(p, b)| (p.0 as u32, b.0.clone()))
        .collect();
    found.sort();
    found
}

fn set_len<T: Component>(world: &HybridWorld) -> usize {
    let id = world.component_id::<T>().unwrap();
    world.storage().sparse().set(id).map_or(0, |s| s.len())
}

#[test]
fn a_component_moves_to_its_set_and_back_keeping_every_value() {
    let (mut world, entities) = world();
    let before = values(&world, &entities);
    let joined_before = joined(&mut world);
    let mut state = world.query_state::<(&Pos, &Burning), ()>().unwrap();
    assert_eq!(state.iter(&world).count(), 6);

    world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
    assert_eq!(world.storage_kind::<Burning>(), Some(StorageKind::Sparse));
    assert_eq!(set_len::<Burning>(&world), 9);
    world.storage().archetypes().assert_consistent();
    assert_eq!(values(&world, &entities), before);
    assert_eq!(joined(&mut world), joined_before);
    // A query state planned before the move plans again.
    assert_eq!(state.iter(&world).count(), 6);
    // No table keeps a row holding Burning.
    let id = world.component_id::<Burning>().unwrap();
    for table in world.storage().archetypes().tables() {
        assert!(table.column_index(id).is_none() || table.is_empty());
    }

    world.set_storage::<Burning>(StorageKind::Table).unwrap();
    assert_eq!(world.storage_kind::<Burning>(), Some(StorageKind::Table));
    assert_eq!(set_len::<Burning>(&world), 0);
    world.storage().archetypes().assert_consistent();
    assert_eq!(values(&world, &entities), before);
    assert_eq!(joined(&mut world), joined_before);
    assert_eq!(state.iter(&world).count(), 6);
    // The entity that had only sparse components has a row again.
    assert!(world.storage().archetypes().locate(entities[2]).is_some());
}

#[test]
fn a_sparse_component_moves_into_rows_and_rowless_entities_gain_one() {
    let (mut world, entities) = world();
    let lone = entities[12];
    assert!(world.storage().archetypes().locate(lone).is_none());
    let before = values(&world, &entities);
    world.set_storage::<Tag>(StorageKind::Table).unwrap();
    assert!(world.storage().archetypes().locate(lone).is_some());
    assert_eq!(values(&world, &entities), before);
    assert_eq!(world.query::<&Tag>().count(), 7);
    world.set_storage::<Tag>(StorageKind::Sparse).unwrap();
    assert!(world.storage().archetypes().locate(lone).is_none());
    assert_eq!(values(&world, &entities), before);
    world.storage().archetypes().assert_consistent();
}

#[test]
fn spawns_inserts_and_removes_after_a_move_go_to_the_new_half() {
    let (mut world, _) = world();
    // Resolve the bundle before the move, so a stale cached layout would show.
    world.spawn((Pos(0.0), Burning("early".into())));
    world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
    let rows = world.storage().archetypes().rows();
    let e = world.spawn((Pos(1.0), Burning("late".into())));
    assert_eq!(world.storage().archetypes().rows(), rows + 1);
    assert_eq!(set_len::<Burning>(&world), 11);
    let row = world.storage().archetypes().locate(e);
    assert_eq!(world.remove::<Burning>(e), Ok(Burning("late".into())));
    assert_eq!(world.storage().archetypes().locate(e), row, "no row moved");
    assert_eq!(world.insert(e, Burning("again".into())), Ok(None));
    assert_eq!(world.storage().archetypes().locate(e), row, "no row moved");
    world.get_mut::<Burning>(e).unwrap().0.push('!');
    assert_eq!(world.get::<Burning>(e), Some(&Burning("again!".into())));
    assert_eq!(world.take::<Burning>(e), Ok(Burning("again!".into())));
    world.storage().archetypes().assert_consistent();
}

#[test]
fn change_detection_sees_no_change_from_a_move() {
    let (mut world, entities) = world();
    let mut changed = world.query_state::<&Burning, Changed<Burning>>().unwrap();
    assert_eq!(changed.iter(&world).count(), 9, "first run sees every add");
    world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
    assert_eq!(changed.iter(&world).count(), 0);
    world.get_mut::<Burning>(entities[0]).unwrap().0.push('*');
    world.set_storage::<Burning>(StorageKind::Table).unwrap();
    let seen: Vec<_> = changed.iter(&world).map(|b| b.0.clone()).collect();
    assert_eq!(seen, vec!["b0*".to_string()]);
}

#[test]
fn refusals_leave_the_world_unchanged() {
    let (mut world, entities) = world();
    let before = values(&world, &entities);
    // Not movable: refused by the world before the storage is asked.
    let err = world.set_storage::<Other>(StorageKind::Table).unwrap_err();
    assert!(matches!(&err, EcsError::Storage { reason, .. } if reason.contains("movable")));
    // A group owns Tag: it cannot go to the tables.
    world.spawn((Tag, Other));
    world.group::<(Tag, Other)>().unwrap();
    let err = world.set_storage::<Tag>(StorageKind::Table).unwrap_err();
    assert!(
        matches!(&err, EcsError::Storage { reason, .. } if reason.contains("group")),
        "{err}"
    );
    assert_eq!(world.storage_kind::<Tag>(), Some(StorageKind::Sparse));
    assert_eq!(values(&world, &entities), before);
    // Moving to the kind it has is nothing.
    assert_eq!(world.set_storage::<Burning>(StorageKind::Table), Ok(()));
    assert_eq!(values(&world, &entities), before);
}

#[test]
fn a_panic_while_preparing_leaves_every_value_in_its_place() {
    for (step, to) in [
        ("tables reserved", StorageKind::Sparse),
        ("set reserved", StorageKind::Sparse),
        ("tables reserved", StorageKind::Table),
    ] {
        let (mut world, entities) = world();
        if to == StorageKind::Table {
            world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
        }
        let before = values(&world, &entities);
        let joined_before = joined(&mut world);
        let kind = world.storage_kind::<Burning>();
        FAIL_AT.with(|f| f.set(Some(step)));
        let result = catch_unwind(AssertUnwindSafe(|| world.set_storage::<Burning>(to)));
        assert!(result.is_err(), "{step}: the injected panic");
        assert_eq!(world.storage_kind::<Burning>(), kind, "{step}");
        assert_eq!(values(&world, &entities), before, "{step}");
        assert_eq!(joined(&mut world), joined_before, "{step}");
        world.storage().archetypes().assert_consistent();
        // And the move succeeds afterwards.
        world.set_storage::<Burning>(to).unwrap();
        assert_eq!(values(&world, &entities), before, "{step}");
        assert_eq!(joined(&mut world), joined_before, "{step}");
    }
}

#[test]
fn run_time_components_and_named_instances_move_on_their_own() {
    let mut world = HybridWorld::new();
    let id = world.register_dynamic(ComponentDescriptor {
        name: "Heat".into(),
        layout: std::alloc::Layout::new::<u64>(),
        drop: None,
        storage: StorageKind::Table,
    });
    let e = world.spawn((Pos(1.0),));
    world.insert_bytes(e, id, &7_u64.to_ne_bytes()).unwrap();
    world.insert_named(e, "left", Burning("l".into())).unwrap();
    world.insert(e, Burning("main".into())).unwrap();
    let left = world.instance_id::<Burning>("left");

    world.set_storage_by_id(id, StorageKind::Sparse).unwrap();
    world.set_storage_by_id(left, StorageKind::Sparse).unwrap();
    assert_eq!(world.storage_kind_by_id(id), Some(StorageKind::Sparse));
    assert_eq!(world.storage_kind_by_id(left), Some(StorageKind::Sparse));
    assert_eq!(world.storage_kind::<Burning>(), Some(StorageKind::Table));
    assert_eq!(world.get_bytes(e, id), Some(&7_u64.to_ne_bytes()[..]));
    assert_eq!(
        world.get_named::<Burning>(e, "left"),
        Some(&Burning("l".into()))
    );
    assert_eq!(world.get::<Burning>(e), Some(&Burning("main".into())));
    world.set_storage_by_id(left, StorageKind::Table).unwrap();
    assert_eq!(
        world.get_named::<Burning>(e, "left"),
        Some(&Burning("l".into()))
    );
    world.despawn(e).unwrap();
    world.storage().archetypes().assert_consistent();
}

#[test]
fn relationships_survive_a_move() {
    let (mut world, entities) = world();
    let parent = entities[0];
    world.set_parent(entities[3], parent).unwrap();
    world.set_parent(entities[2], parent).unwrap();
    world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
    let mut children: Vec<_> = world.children(parent).unwrap().collect();
    children.sort();
    let mut expected = vec![entities[2], entities[3]];
    expected.sort();
    assert_eq!(children, expected);
    world.despawn_recursive(parent).unwrap();
    assert!(!world.contains(entities[3]));
    assert_eq!(set_len::<Burning>(&world), 6);
}

#[test]
fn a_component_never_stored_moves_and_is_spawned_where_it_was_sent() {
    let mut world = HybridWorld::new();
    world.register_component::<Burning>();
    world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
    let e = world.spawn((Pos(1.0), Burning("new".into())));
    assert_eq!(set_len::<Burning>(&world), 1);
    assert_eq!(world.get::<Burning>(e), Some(&Burning("new".into())));
    assert_eq!(joined(&mut world), vec![(1, "new".to_string())]);
    world.storage().archetypes().assert_consistent();
}

#[test]
fn a_join_driven_down_the_moved_set_finds_the_same_entities() {
    let mut world = HybridWorld::new();
    let entities: Vec<Entity> = (0..200).map(|i| world.spawn((Pos(i as f32),))).collect();
    for &e in entities.iter().step_by(50) {
        world.insert(e, Burning(format!("{e:?}"))).unwrap();
    }
    let mut added = world
        .query_state::<&Burning, ecs_core::Added<Burning>>()
        .unwrap();
    assert_eq!(added.iter(&world).count(), 4);
    let before = joined(&mut world);
    // Four holders among 200 rows: the join walks the set once it is sparse.
    world.set_storage::<Burning>(StorageKind::Sparse).unwrap();
    assert_eq!(joined(&mut world), before);
    let mut state = world.query_state::<(&Pos, &Burning), ()>().unwrap();
    let walk = state.walk(&world);
    assert_eq!(
        walk.rows, 4,
        "driven: the walk visits the set's four rows, {walk:?}"
    );
    assert_eq!(added.iter(&world).count(), 0, "a move is not an add");
    world.set_storage::<Burning>(StorageKind::Table).unwrap();
    assert_eq!(joined(&mut world), before);
    assert_eq!(added.iter(&world).count(), 0, "a move is not an add");
}

#[test]
fn a_commit_allocates_nothing() {
    let (mut world, _) = world();
    // More holders, in more tables, some rowless, and sets with holders kept.
    for i in 0..300_u32 {
        match i % 3 {
            0 => world.spawn((Pos(i as f32), Burning(i.to_string()))),
            1 => world.spawn((Burning(i.to_string()), Tag)),
            _ => world.spawn((Pos(i as f32), Tag, Other)),
        };
    }
    for kind in [StorageKind::Sparse, StorageKind::Table, StorageKind::Sparse] {
        COMMIT_ALLOCATIONS.with(|n| n.set(0));
        world.set_storage::<Burning>(kind).unwrap();
        assert_eq!(COMMIT_ALLOCATIONS.with(Cell::get), 0, "moving to {kind:?}");
    }
    for kind in [StorageKind::Table, StorageKind::Sparse] {
        COMMIT_ALLOCATIONS.with(|n| n.set(0));
        world.set_storage::<Tag>(kind).unwrap();
        assert_eq!(
            COMMIT_ALLOCATIONS.with(Cell::get),
            0,
            "moving Tag to {kind:?}"
        );
    }
    world.storage().archetypes().assert_consistent();
}
