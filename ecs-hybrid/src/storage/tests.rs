use super::*;
use ecs_core::storage::{ColumnAccess, QueryChunk};
use ecs_core::{With, Without, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(f32);
impl Component for Pos {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct Vel(f32);
impl Component for Vel {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct OnFire(u32);
impl Component for OnFire {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}
#[derive(Debug, PartialEq, Clone, Copy)]
struct Buff;
impl Component for Buff {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}

type HybridWorld = World<HybridStorage>;

fn scale(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

#[test]
fn sparse_components_move_no_table_rows() {
    let mut world = HybridWorld::new();
    let entities: Vec<_> = (0..scale(100, 10))
        .map(|i| world.spawn((Pos(i as f32), Vel(1.0))))
        .collect();
    let target = entities[3];
    let record = world.storage().archetypes().locate(target).unwrap();
    let pos_ptr = world.get::<Pos>(target).unwrap() as *const Pos;
    let tables = world.storage().archetypes().tables().len();

    world.insert(target, OnFire(3)).unwrap();
    world.insert(target, Buff).unwrap();
    assert_eq!(
        world.storage().archetypes().locate(target),
        Some(record),
        "row stayed put"
    );
    assert_eq!(
        world.get::<Pos>(target).unwrap() as *const Pos,
        pos_ptr,
        "no column data moved"
    );
    assert_eq!(
        world.storage().archetypes().tables().len(),
        tables,
        "no table created"
    );
    assert_eq!(world.remove::<OnFire>(target), Ok(OnFire(3)));
    assert_eq!(world.storage().archetypes().locate(target), Some(record));
    assert_eq!(world.get::<Pos>(target).unwrap() as *const Pos, pos_ptr);
    // Every other entity's row is untouched too.
    for (i, e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Pos>(*e), Some(&Pos(i as f32)));
    }
    // A table component does move the row.
    world.remove::<Vel>(target).unwrap();
    assert_ne!(
        world.storage().archetypes().locate(target).unwrap().table,
        record.table
    );
    assert!(world.has::<Buff>(target));
}

#[test]
fn spawn_splits_bundles_between_halves() {
    let mut world = HybridWorld::new();
    let e = world.spawn((OnFire(1), Pos(2.0), Buff));
    let record = world.storage().archetypes().locate(e).unwrap();
    assert_eq!(
        world
            .storage()
            .archetypes()
            .table(record.table)
            .components()
            .len(),
        1
    );
    assert_eq!(world.storage().sparse().sets().count(), 2);
    assert_eq!(world.get::<OnFire>(e), Some(&OnFire(1)));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(2.0)));
    assert!(world.has::<Buff>(e));
    // Only sparse components: no table row at all, yet found by every read and query.
    let only_sparse = world.spawn((Buff,));
    assert_eq!(world.storage().archetypes().locate(only_sparse), None);
    assert!(world.has::<Buff>(only_sparse));
    assert_eq!(world.query::<(Entity, &Buff)>().count(), 2);
    let mut entities: Vec<Entity> = world.query_filtered::<Entity, With<Buff>>().collect();
    entities.sort();
    assert_eq!(entities, [e, only_sparse]);
    let mut rows: Vec<(Entity, Option<&Pos>)> = world
        .query_filtered::<(Entity, Option<&Pos>), With<Buff>>()
        .collect();
    rows.sort_by_key(|(e, _)| *e);
    assert_eq!(rows, [(e, Some(&Pos(2.0))), (only_sparse, None)]);
    world.storage().archetypes().assert_consistent();
}

#[test]
fn queries_mix_tables_and_sets() {
    let mut world = HybridWorld::new();
    let n = scale(300, 30);
    for i in 0..n {
        let e = world.spawn((Pos(i as f32),));
        if i % 2 == 0 {
            world.insert(e, Vel(1.0)).unwrap();
        }
        if i % 3 == 0 {
            world.insert(e, OnFire(i as u32)).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, Buff).unwrap();
        }
    }
    let count = |f: &dyn Fn(usize) -> bool| (0..n).filter(|i| f(*i)).count();
    assert_eq!(
        world.query::<(&Pos, &OnFire)>().count(),
        count(&|i| i % 3 == 0)
    );
    assert_eq!(
        world.query::<(&Pos, &Vel, &OnFire)>().count(),
        count(&|i| i % 6 == 0)
    );
    assert_eq!(world.query::<&OnFire>().count(), count(&|i| i % 3 == 0));
    assert_eq!(
        world.query::<(&OnFire, &Buff)>().count(),
        count(&|i| i % 15 == 0)
    );
    assert_eq!(
        world.query_filtered::<&Pos, Without<OnFire>>().count(),
        count(&|i| i % 3 != 0)
    );
    assert_eq!(
        world.query_filtered::<&OnFire, Without<Vel>>().count(),
        count(&|i| i % 3 == 0 && i % 2 != 0)
    );
    assert_eq!(
        world
            .query_filtered::<&Vel, (With<Buff>, Without<OnFire>)>()
            .count(),
        count(&|i| i % 10 == 0 && i % 3 != 0)
    );
    assert_eq!(
        world
            .query::<(&Pos, Option<&OnFire>)>()
            .filter(|(_, f)| f.is_some())
            .count(),
        count(&|i| i % 3 == 0)
    );
    world
        .query::<(&Pos, &mut OnFire)>()
        .for_each(|(p, f)| f.0 = p.0 as u32 + 1000);
    for (p, f) in world.query::<(&Pos, &OnFire)>() {
        assert_eq!(f.0, p.0 as u32 + 1000);
    }
    world
        .query_filtered::<&mut Pos, With<Buff>>()
        .for_each(|p| p.0 = -1.0);
    assert_eq!(
        world.query::<&Pos>().filter(|p| p.0 == -1.0).count(),
        count(&|i| i % 5 == 0)
    );
}

#[test]
fn table_only_queries_take_the_dense_path() {
    let mut world = HybridWorld::new();
    world.spawn((Pos(1.0), Vel(2.0), OnFire(0)));
    world.spawn((Pos(1.0), Vel(2.0)));
    let mut state = world.query_state::<(&Pos, &Vel), ()>().unwrap();
    let _ = state.iter(&world).count();
    // Every chunk of a table-only query answers Dense for every slot.
    let storage = world.storage();
    let mut cache = HybridQueryCache::default();
    storage.update_query_cache(&mut cache, state.descriptor(), world.components());
    let mut chunks = 0;
    for chunk in storage.query_chunks(&cache, state.descriptor(), &[]) {
        chunks += 1;
        assert!(matches!(chunk, HybridChunk::Tables(_)));
        for slot in 0..2 {
            assert!(matches!(chunk.column(slot), ColumnAccess::Dense(_)));
        }
    }
    assert_eq!(
        chunks, 1,
        "both entities share one table: the sparse OnFire did not split them"
    );
}

#[test]
#[should_panic(expected = "query cache planned for another descriptor")]
fn a_cache_planned_for_another_descriptor_is_refused() {
    // Table chunks read their columns unchecked by slot: chunks of a two-slot plan must not
    // be handed out for a one-slot descriptor.
    let mut world = HybridWorld::new();
    world.spawn((Pos(1.0), Vel(2.0)));
    let two = world.query_state::<(&Pos, &Vel), ()>().unwrap();
    let one = world.query_state::<&Pos, ()>().unwrap();
    let storage = world.storage();
    let mut cache = HybridQueryCache::default();
    storage.update_query_cache(&mut cache, two.descriptor(), world.components());
    let _ = storage.query_chunks(&cache, one.descriptor(), &[]).count();
}

/// For each chunk a query over `descriptor` walks, whether slot `slot` answers `Dense`.
fn dense_chunks(world: &HybridWorld, descriptor: &QueryDescriptor, slot: usize) -> Vec<bool> {
    let storage = world.storage();
    let mut cache = HybridQueryCache::default();
    storage.update_query_cache(&mut cache, descriptor, world.components());
    storage
        .query_chunks(&cache, descriptor, &[])
        .map(|chunk| matches!(chunk.column(slot), ColumnAccess::Dense(_)))
        .collect()
}

#[test]
fn a_sparse_set_holding_a_tables_rows_in_order_is_walked_densely() {
    let mut world = HybridWorld::new();
    let n = scale(200, 12);
    // Spawned together: OnFire's set holds the (Pos) table's entities in the same order.
    let entities = world
        .spawn_batch((0..n).map(|i| (Pos(i as f32), OnFire(i as u32))))
        .to_vec();
    let mut state = world.query_state::<(&Pos, &mut OnFire), ()>().unwrap();
    let slots = |world: &HybridWorld, state: &ecs_core::QueryState<_, (), HybridStorage>| {
        dense_chunks(world, state.descriptor(), 1)
    };
    assert_eq!(slots(&world, &state), vec![true], "OnFire answers Dense");
    state
        .iter_mut(&mut world)
        .for_each(|(p, f)| f.0 += p.0 as u32);
    assert_eq!(world.get::<OnFire>(entities[5]), Some(&OnFire(10)));
    // Out of step (one entity loses OnFire, the last takes its place): looked up again.
    world.remove::<OnFire>(entities[0]).unwrap();
    assert_eq!(slots(&world, &state), vec![false]);
    let sum: u32 = world.query::<&OnFire>().map(|f| f.0).sum();
    assert_eq!(sum, (1..n as u32).map(|i| 2 * i).sum::<u32>());
}

#[test]
fn aligning_a_set_with_the_tables_makes_every_table_read_it_densely() {
    let mut world = HybridWorld::new();
    let n = scale(300, 24);
    // Spawned together, then split over three tables by later inserts: OnFire's set keeps
    // the spawn order, which no table follows any more. Entity 7 and the rowless entities
    // (OnFire only) are mixed in.
    let entities: Vec<Entity> = (0..n)
        .map(|i| world.spawn((Pos(i as f32), OnFire(i as u32))))
        .collect();
    for (i, &e) in entities.iter().enumerate() {
        if i % 3 == 1 {
            world.insert(e, Vel(1.0)).unwrap();
        }
    }
    let rowless: Vec<Entity> = (0..3).map(|i| world.spawn((OnFire(1000 + i),))).collect();
    world.remove::<Pos>(entities[7]).unwrap();
    let state = world.query_state::<(&Pos, &OnFire), ()>().unwrap();
    let dense_slots = |world: &HybridWorld| dense_chunks(world, state.descriptor(), 1);
    let before: Vec<(Pos, OnFire)> = {
        let mut all: Vec<_> = world
            .query::<(&Pos, &OnFire)>()
            .map(|(p, f)| (*p, *f))
            .collect();
        all.sort_by_key(|(_, f)| f.0);
        all
    };
    assert!(dense_slots(&world).contains(&false), "out of step before");

    assert!(world.align_with_tables::<OnFire>());
    assert_eq!(
        dense_slots(&world),
        vec![true, true],
        "every table reads OnFire densely"
    );
    let mut after: Vec<(Pos, OnFire)> = world
        .query::<(&Pos, &OnFire)>()
        .map(|(p, f)| (*p, *f))
        .collect();
    after.sort_by_key(|(_, f)| f.0);
    assert_eq!(after, before, "the same entities with the same values");
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<OnFire>(e), Some(&OnFire(i as u32)));
    }
    for (i, &e) in rowless.iter().enumerate() {
        assert_eq!(world.get::<OnFire>(e), Some(&OnFire(1000 + i as u32)));
    }
    // The rowless entities come last, in their order.
    let set = world
        .storage()
        .sparse()
        .set(world.components().id::<OnFire>().unwrap())
        .unwrap();
    assert_eq!(&set.entities()[set.len() - 3..], &rowless[..]);

    // A table component, a component never stored and the other backends: nothing to do.
    assert!(!world.align_with_tables::<Pos>());
    assert!(!world.align_with_tables::<Buff>());
}

#[test]
fn an_alignment_memo_made_before_a_change_is_not_used() {
    let mut world = HybridWorld::new();
    let n = scale(50, 8);
    let entities = world
        .spawn_batch((0..n).map(|i| (Pos(i as f32), OnFire(i as u32))))
        .to_vec();
    let state = world.query_state::<(&Pos, &OnFire), ()>().unwrap();
    let mut cache = HybridQueryCache::default();
    world
        .storage()
        .update_query_cache(&mut cache, state.descriptor(), world.components());
    let dense = |world: &HybridWorld, cache: &HybridQueryCache| {
        world
            .storage()
            .query_chunks(cache, state.descriptor(), &[])
            .map(|chunk| matches!(chunk.column(1), ColumnAccess::Dense(_)))
            .collect::<Vec<bool>>()
    };
    assert_eq!(dense(&world, &cache), vec![true], "the memo answers");
    // The set's order changes (its first entity leaves, the last takes its place) and the
    // cache is not brought up to date: the memo, made before, must not answer.
    world.remove::<OnFire>(entities[0]).unwrap();
    assert_eq!(dense(&world, &cache), vec![false]);
    world
        .storage()
        .update_query_cache(&mut cache, state.descriptor(), world.components());
    assert_eq!(
        dense(&world, &cache),
        vec![false],
        "a new memo: out of step"
    );
    // Aligned again: the next update's memo says so.
    assert!(world.align_with_tables::<OnFire>());
    world
        .storage()
        .update_query_cache(&mut cache, state.descriptor(), world.components());
    let sum: u32 = world.query::<(&Pos, &OnFire)>().map(|(_, f)| f.0).sum();
    assert_eq!(sum, (1..n as u32).sum());
    assert_eq!(
        dense(&world, &cache),
        vec![false],
        "entity 0 has no OnFire: rows differ"
    );
}

#[test]
fn a_set_owned_by_a_group_keeps_the_groups_order() {
    #[derive(Debug, PartialEq, Clone, Copy)]
    struct Shield(u32);
    impl Component for Shield {
        type Mutability = ecs_core::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }
    let mut world = HybridWorld::new();
    world.group::<(OnFire, Shield)>().unwrap();
    let e = world.spawn((Pos(1.0), OnFire(1), Shield(2)));
    world.spawn((Pos(2.0), OnFire(3)));
    assert!(!world.align_with_tables::<OnFire>());
    assert_eq!(world.get::<Shield>(e), Some(&Shield(2)));
    assert_eq!(world.query::<(&OnFire, &Shield)>().count(), 1);
}

#[test]
fn a_kind_learned_later_refreshes_cached_plans() {
    let mut world = HybridWorld::new();
    world.spawn((Pos(1.0),));
    let mut state = world.query_state::<(&Pos, &OnFire), ()>().unwrap();
    assert_eq!(state.iter(&world).count(), 0);
    let mut sparse_only = world.query_state::<&Buff, ()>().unwrap();
    assert_eq!(sparse_only.iter(&world).count(), 0);
    let e = world.spawn((Pos(2.0), OnFire(1), Buff));
    assert_eq!(state.iter(&world).count(), 1);
    assert_eq!(sparse_only.iter(&world).count(), 1);
    world.despawn(e).unwrap();
    assert_eq!(state.iter(&world).count(), 0);
    assert_eq!(sparse_only.iter(&world).count(), 0);
}

#[test]
fn despawn_and_clear_reach_both_halves() {
    let mut world = HybridWorld::new();
    let a = world.spawn((Pos(1.0), OnFire(1)));
    let b = world.spawn((Buff, Vel(1.0)));
    world.despawn(a).unwrap();
    assert_eq!(world.query::<&OnFire>().count(), 0);
    assert_eq!(
        world
            .storage()
            .sparse()
            .set(world.component_id::<OnFire>().unwrap())
            .unwrap()
            .len(),
        0
    );
    world.clear();
    assert!(!world.contains(b));
    assert_eq!(world.query::<&Buff>().count(), 0);
    assert_eq!(world.query::<&Vel>().count(), 0);
}

#[test]
fn place_reads_table_and_sparse_components() {
    use ecs_core::storage::EntityPlace;
    let mut world = HybridWorld::new();
    let both = world.spawn((Pos(1.0), OnFire(2)));
    let table_only = world.spawn((Pos(3.0), Vel(4.0)));
    let sparse_only = world.spawn((Buff,));
    let gone = world.spawn((Pos(5.0), OnFire(6)));
    world.despawn(gone).unwrap();
    let ids = [
        world.register_component::<Pos>(),
        world.register_component::<Vel>(),
        world.register_component::<OnFire>(),
        world.register_component::<Buff>(),
    ];
    let storage = world.storage();
    assert_eq!(
        storage.archetypes().locate(sparse_only),
        None,
        "no table component, no row"
    );
    for e in [both, table_only, sparse_only] {
        let place = storage.place(e).expect("every live entity has a place");
        for id in ids {
            assert_eq!(place.ptr(id), storage.get_ptr(e, id), "{e:?} {id:?}");
        }
        // The typed reads (by `T::STORAGE`, no kind look-up) answer the same.
        assert_eq!(place.ptr_of::<Pos>(ids[0]), place.ptr(ids[0]));
        assert_eq!(place.ptr_of::<Vel>(ids[1]), place.ptr(ids[1]));
        assert_eq!(place.ptr_of::<OnFire>(ids[2]), place.ptr(ids[2]));
        assert_eq!(place.ptr_of::<Buff>(ids[3]), place.ptr(ids[3]));
        assert_eq!(storage.get_ptr_of::<Pos>(e, ids[0]), place.ptr(ids[0]));
        assert_eq!(storage.get_ptr_of::<OnFire>(e, ids[2]), place.ptr(ids[2]));
        assert_eq!(storage.get_ptr_of::<Buff>(e, ids[3]), place.ptr(ids[3]));
    }
    // A component no entity stored yet has no kind learned: both reads answer nothing.
    #[derive(Debug)]
    struct Never;
    impl Component for Never {
        type Mutability = ecs_core::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }
    let mut world2 = HybridWorld::new();
    let e2 = world2.spawn((Pos(0.0),));
    let never = world2.register_component::<Never>();
    let unstored = world2.register_component::<Vel>();
    let place = world2.storage().place(e2).unwrap();
    assert_eq!(
        (place.ptr(never), place.ptr_of::<Never>(never)),
        (None, None)
    );
    assert_eq!(
        (place.ptr(unstored), place.ptr_of::<Vel>(unstored)),
        (None, None)
    );
    let storage2 = world2.storage();
    assert_eq!(storage2.get_ptr_of::<Never>(e2, never), None);
    assert_eq!(storage2.get_ptr_of::<Vel>(e2, unstored), None);
    assert!(storage.place(both).unwrap().ptr(ids[2]).is_some());
    assert!(storage.place(sparse_only).unwrap().ptr(ids[3]).is_some());
    // `gone`'s index is vacant: a rowless place whose reads answer nothing.
    let gone_place = storage.place(gone).expect("vacant index: rowless place");
    assert!(ids.iter().all(|&id| gone_place.ptr(id).is_none()));
    let get = world.query_state::<(&Pos, &OnFire), ()>().unwrap();
    assert_eq!(get.get(&world, both), Some((&Pos(1.0), &OnFire(2))));
    assert_eq!(get.get(&world, table_only), None);
    assert_eq!(get.get(&world, gone), None);
}

#[test]
fn sparse_components_can_be_grouped_table_ones_cannot() {
    #[derive(Debug, PartialEq, Clone, Copy)]
    struct Slow(u32);
    impl Component for Slow {
        type Mutability = ecs_core::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }
    let mut world = HybridWorld::new();
    let err = world.group::<(Pos, OnFire)>().unwrap_err();
    assert!(err.to_string().contains("table component"), "{err}");
    let n = scale(500, 40) as u32;
    let entities: Vec<Entity> = (0..n)
        .map(|i| match i % 3 {
            0 => world.spawn((Pos(i as f32), OnFire(i), Slow(i))),
            1 => world.spawn((OnFire(i),)),
            _ => world.spawn((Slow(i), Vel(1.0))),
        })
        .collect();
    world.group::<(OnFire, Slow)>().unwrap();
    let group_len = |w: &HybridWorld| w.storage().sparse().groups()[0].len();
    assert_eq!(group_len(&world), n.div_ceil(3) as usize);
    // Gaining and losing grouped components keeps the packed range and the answers right.
    for &e in entities.iter().skip(1).step_by(3) {
        world.insert(e, Slow(7)).unwrap();
    }
    for &e in entities.iter().step_by(6) {
        world.remove::<OnFire>(e).unwrap();
    }
    for &e in entities.iter().skip(1).step_by(9) {
        world.despawn(e).unwrap();
    }
    let expected = entities
        .iter()
        .filter(|&&e| world.has::<OnFire>(e) && world.has::<Slow>(e))
        .count();
    assert_eq!(group_len(&world), expected);
    assert_eq!(world.query::<(&OnFire, &Slow)>().count(), expected);
    assert_eq!(world.query::<(&Pos, &OnFire, &Slow)>().count(), {
        let with_pos = |e: &&Entity| world.has::<Pos>(**e);
        entities
            .iter()
            .filter(with_pos)
            .filter(|&&e| world.has::<OnFire>(e) && world.has::<Slow>(e))
            .count()
    });
}

/// `spawn_columns` splits a segment's columns: table components into the table (adopted
/// whole when it is empty), sparse ones into their sets; every value moved once.
#[test]
fn spawn_columns_splits_table_and_sparse_columns() {
    use std::sync::Arc;

    use ecs_core::blob::BlobVec;
    use ecs_core::bundle::BundleInfo;
    use ecs_core::component::Components;
    use ecs_core::storage::{ColumnValues, Storage};

    #[derive(Debug, PartialEq)]
    struct Table(u32);
    impl Component for Table {
        type Mutability = ecs_core::Mutable;
    }
    struct Churn(#[allow(dead_code)] Arc<()>);
    impl Component for Churn {
        type Mutability = ecs_core::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }
    let counter = Arc::new(());
    let mut components = Components::default();
    let table = components.register::<Table>();
    let churn = components.register::<Churn>();
    let empty = BundleInfo::new::<()>(0, &mut components).unwrap();
    let mut storage = HybridStorage::default();
    let entities: Vec<Entity> = (0..5).map(|i| Entity::new(i, 1).unwrap()).collect();
    let mut t_values = BlobVec::for_component(components.info(table));
    let mut c_values = BlobVec::for_component(components.info(churn));
    for i in 0..5 {
        // SAFETY: each array holds its component's type.
        unsafe {
            t_values.push(Table(i));
            c_values.push(Churn(counter.clone()));
        }
    }
    let (pt, pc) = (t_values.base_ptr(), c_values.base_ptr());
    let mut columns = [
        ColumnValues {
            component: churn,
            values: pc,
            buffer: Some(&mut c_values),
        },
        ColumnValues {
            component: table,
            values: pt,
            buffer: Some(&mut t_values),
        },
    ];
    // SAFETY: new distinct entities; 5 owned values per column, the buffers exactly those.
    unsafe { storage.spawn_columns(&entities, &mut columns, &empty, &components) };
    t_values.forget_all();
    c_values.forget_all();
    assert_eq!(storage.kind(churn), Some(StorageKind::Sparse));
    assert_eq!(storage.sparse().set(churn).unwrap().len(), 5);
    assert_eq!(
        // SAFETY: component `table` is `Table`.
        unsafe {
            storage
                .get_ptr(entities[4], table)
                .unwrap()
                .cast::<Table>()
                .as_ref()
        },
        &Table(4)
    );
    assert!(storage.get_ptr(entities[1], churn).is_some());
    assert_eq!(Arc::strong_count(&counter), 6);
    drop(storage);
    assert_eq!(Arc::strong_count(&counter), 1, "every value dropped once");
}

/// `spawn_columns` with every column in one half hands them over whole: table-only
/// entities get rows, sparse-only ones none, and each value lands once.
#[test]
fn spawn_columns_of_one_half_go_there_whole() {
    use ecs_core::blob::BlobVec;
    use ecs_core::bundle::BundleInfo;
    use ecs_core::component::Components;
    use ecs_core::storage::{ColumnValues, Storage};

    let mut components = Components::default();
    let pos = components.register::<Pos>();
    let fire = components.register::<OnFire>();
    let empty = BundleInfo::new::<()>(0, &mut components).unwrap();
    let mut storage = HybridStorage::default();
    let entities: Vec<Entity> = (0..6).map(|i| Entity::new(i, 1).unwrap()).collect();
    for (half, id) in [(&entities[..3], pos), (&entities[3..], fire)] {
        let mut values = BlobVec::for_component(components.info(id));
        for i in 0..3 {
            // SAFETY: each array holds its component's type.
            unsafe {
                match id == pos {
                    true => values.push(Pos(i as f32)),
                    false => values.push(OnFire(i)),
                }
            }
        }
        let mut columns = [ColumnValues {
            component: id,
            values: values.base_ptr(),
            buffer: Some(&mut values),
        }];
        // SAFETY: new distinct entities; 3 owned values, the buffer exactly those.
        unsafe { storage.spawn_columns(half, &mut columns, &empty, &components) };
        values.forget_all();
    }
    assert_eq!(
        storage.archetypes().rows(),
        3,
        "only the Pos entities have rows"
    );
    assert_eq!(storage.sparse().set(fire).unwrap().len(), 3);
    assert!(storage.sparse().set(pos).is_none());
    // SAFETY: components `pos` and `fire` are `Pos` and `OnFire`.
    unsafe {
        let p = storage.get_ptr(entities[2], pos).unwrap().cast::<Pos>();
        assert_eq!(p.as_ref(), &Pos(2.0));
        let f = storage.get_ptr(entities[5], fire).unwrap().cast::<OnFire>();
        assert_eq!(f.as_ref(), &OnFire(2));
    }
    assert!(
        storage.entity_row(entities[4]).is_none(),
        "no row for sparse only"
    );
}

/// Each chunk's variant and entities, as a fold step sees them.
struct Record(Vec<(u8, Vec<Entity>)>);

impl<'a> FoldChunk<HybridChunk<'a>, usize> for Record {
    fn fold_chunk(&mut self, acc: usize, chunk: HybridChunk<'a>) -> usize {
        let variant = match chunk {
            HybridChunk::Tables(_) => 0,
            HybridChunk::Table { .. } => 1,
            HybridChunk::Sparse(_) => 2,
            HybridChunk::Run { .. } => 3,
        };
        self.0.push((variant, chunk.entities().to_vec()));
        acc + 1
    }
}

fn chunk_lists<Q: ecs_core::query::QueryData>(world: &mut HybridWorld) -> (Record, Record) {
    let state = world.query_state::<Q, ()>().unwrap();
    let storage = world.storage();
    let mut cache = HybridQueryCache::default();
    storage.update_query_cache(&mut cache, state.descriptor(), world.components());
    let alive = world.entities().alive();
    let mut by_next = Record(Vec::new());
    for chunk in storage.query_chunks(&cache, state.descriptor(), alive) {
        by_next.fold_chunk(0, chunk);
    }
    let mut by_fold = Record(Vec::new());
    let mut chunks = storage.query_chunks(&cache, state.descriptor(), alive);
    let folded = HybridStorage::fold_chunks(&mut chunks, 0, &mut by_fold);
    assert_eq!(
        folded,
        by_fold.0.len(),
        "the accumulator threads through every chunk"
    );
    assert!(
        chunks.next().is_none(),
        "the fold leaves the chunks exhausted"
    );
    (by_next, by_fold)
}

#[test]
fn folding_chunks_hands_out_what_next_does() {
    let mut world = HybridWorld::new();
    for i in 0..12 {
        let e = world.spawn((Pos(i as f32),));
        if i % 2 == 0 {
            world.insert(e, Vel(1.0)).unwrap();
        }
        if i % 12 == 0 {
            world.insert(e, OnFire(i)).unwrap();
        }
        if i % 4 == 0 {
            world.insert(e, Buff).unwrap();
        }
    }
    let cases = [
        (chunk_lists::<&Pos>(&mut world), 0),
        (chunk_lists::<(&Pos, Option<&OnFire>)>(&mut world), 1),
        (chunk_lists::<(&OnFire, &Buff)>(&mut world), 2),
        // 1 of 12 rows on fire: the set drives the query.
        (chunk_lists::<(&Pos, &OnFire)>(&mut world), 3),
    ];
    for ((by_next, by_fold), variant) in cases {
        assert!(!by_next.0.is_empty());
        assert!(by_next.0.iter().all(|(v, _)| *v == variant));
        assert_eq!(by_next.0, by_fold.0, "the same chunks, in the same order");
    }
}

#[test]
fn the_derive_attribute_decides_which_half_keeps_a_type() {
    #[derive(ecs_core::Component)]
    #[component(storage = "sparse", track_changes)]
    struct Poison(#[allow(dead_code)] u32);
    #[derive(ecs_core::Component)]
    #[component(track_changes)]
    struct Hp(#[allow(dead_code)] u32);

    let mut world = HybridWorld::new();
    let e = world.spawn((Pos(1.0), Poison(2), Hp(3)));
    let (pos, poison, hp) = (
        world.component_id::<Pos>().unwrap(),
        world.component_id::<Poison>().unwrap(),
        world.component_id::<Hp>().unwrap(),
    );
    let hybrid = world.storage();
    assert_eq!(hybrid.kind(poison), Some(StorageKind::Sparse));
    assert_eq!(hybrid.kind(pos), Some(StorageKind::Table));
    assert_eq!(hybrid.kind(hp), Some(StorageKind::Table));
    assert!(hybrid.sparse().set(poison).unwrap().contains(e));
    assert!(
        hybrid.sparse().set(hp).is_none() && hybrid.sparse().set(pos).is_none(),
        "table components stay out of the sets"
    );
}

/// The items of `(Entity, &Pos, &OnFire, Option<&Vel>)` without `Buff`, sorted.
fn burning_items(world: &mut HybridWorld) -> Vec<(Entity, f32, u32, Option<f32>)> {
    let mut items: Vec<_> = world
        .query_filtered::<(Entity, &Pos, &OnFire, Option<&Vel>), Without<Buff>>()
        .map(|(e, p, f, v)| (e, p.0, f.0, v.map(|v| v.0)))
        .collect();
    items.sort_by_key(|item| item.0);
    items
}

#[test]
fn a_small_sparse_set_drives_a_join_and_finds_exactly_its_matches() {
    let mut world = HybridWorld::new();
    let mut expected = Vec::new();
    let n = scale(400, 60) as u32;
    // Entities in three tables and none; one in twenty-three on fire, in no table's order.
    for i in 0..n {
        let e = match i % 4 {
            0 => world.spawn((Pos(i as f32),)),
            1 => world.spawn((Pos(i as f32), Vel(1.0))),
            2 => world.spawn((Vel(2.0),)),
            _ => world.spawn(()),
        };
        let burning = (i * 5) % 23 == 0;
        if burning {
            world.insert(e, OnFire(i)).unwrap();
        }
        let buffed = i % 3 == 0;
        if buffed {
            world.insert(e, Buff).unwrap();
        }
        if burning && !buffed && i % 4 < 2 {
            expected.push((e, i as f32, i, (i % 4 == 1).then_some(1.0)));
        }
    }
    expected.sort_by_key(|item| item.0);
    let state = world
        .query_state::<(Entity, &Pos, &OnFire, Option<&Vel>), Without<Buff>>()
        .unwrap();
    let mut cache = HybridQueryCache::default();
    let storage = world.storage();
    storage.update_query_cache(&mut cache, state.descriptor(), world.components());
    let chunks = storage.query_chunks(&cache, state.descriptor(), world.entities().alive());
    assert!(
        matches!(chunks, HybridChunks::Driven(_)),
        "driven by OnFire"
    );
    assert_eq!(burning_items(&mut world), expected);

    // Writes through a driven run land on the entity's own row.
    world
        .query::<(&mut Pos, &OnFire)>()
        .for_each(|(p, f)| p.0 = f.0 as f32 + 0.5);
    for (e, pos, fire, _) in &mut expected {
        *pos = *fire as f32 + 0.5;
        assert_eq!(world.get::<Pos>(*e), Some(&Pos(*pos)));
    }
    assert_eq!(burning_items(&mut world), expected);
}

#[test]
fn a_set_in_its_tables_order_is_driven_in_runs_of_rows() {
    let mut world = HybridWorld::new();
    let n = scale(1000, 40);
    world.spawn_batch((0..n).map(|i| (Pos(i as f32),)));
    let fire = n / 20;
    let burning: Vec<Entity> = world
        .spawn_batch((0..fire).map(|i| (Pos(i as f32), OnFire(i as u32))))
        .to_vec();
    // A rowless entity on fire, and one with a row in another table.
    let rowless = world.spawn((OnFire(7),));
    let other = world.spawn((Pos(-1.0), Vel(1.0), OnFire(8)));
    let (lists, _) = chunk_lists::<(&Pos, &OnFire)>(&mut world);
    assert_eq!(
        lists.0,
        [(3, burning.clone()), (3, vec![other])],
        "one run for the batch, one for the other table; the rowless entity has no Pos"
    );
    // Requiring no table component, the query matches rowless entities too: they make
    // runs of their own.
    let (lists, _) = chunk_lists::<(&OnFire, Option<&Pos>)>(&mut world);
    assert_eq!(
        lists.0,
        [(3, burning.clone()), (3, vec![rowless]), (3, vec![other])]
    );
    let found: Vec<(Entity, Option<f32>)> = world
        .query::<(Entity, &OnFire, Option<&Pos>)>()
        .map(|(e, _, p)| (e, p.map(|p| p.0)))
        .collect();
    assert_eq!(found.len(), fire + 2);
    assert!(found.contains(&(rowless, None)));
    assert!(found.contains(&(other, Some(-1.0))));
}
