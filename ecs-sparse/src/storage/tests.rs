//! `SparseStorage` through the public `World<SparseStorage>` API: spawn, insert, remove, get,
//! despawn, clear, run-time components, drops and panics.

use super::*;
use std::alloc::Layout;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ecs_core::component::StorageKind;
use ecs_core::{ComponentDescriptor, EcsError, World};

const N: u32 = if cfg!(miri) { 30 } else { 2000 };

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(f32, f32);
impl Component for Pos {
    type Mutability = ecs_core::Mutable;
}

#[derive(Debug, PartialEq, Clone)]
struct Name(String);
impl Component for Name {
    type Mutability = ecs_core::Mutable;
}

#[derive(Debug, PartialEq)]
struct Tag;
impl Component for Tag {
    type Mutability = ecs_core::Mutable;
}

#[derive(Debug, PartialEq)]
#[repr(align(4096))]
struct Aligned(u64);
impl Component for Aligned {
    type Mutability = ecs_core::Mutable;
}

/// Counts how many of its values are alive (Arc strong count minus the test's own handle).
#[derive(Clone)]
struct Counted(#[allow(dead_code)] Arc<()>);
impl Component for Counted {
    type Mutability = ecs_core::Mutable;
}

fn alive(counter: &Arc<()>) -> usize {
    Arc::strong_count(counter) - 1
}

#[test]
fn spawn_get_and_mutate() {
    let mut world = World::<SparseStorage>::new();
    let a = world.spawn((Pos(1.0, 2.0), Name("a".into())));
    let b = world.spawn((Pos(3.0, 4.0),));
    let c = world.spawn(());
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1.0, 2.0)));
    assert_eq!(world.get::<Name>(a).map(|n| n.0.as_str()), Some("a"));
    assert_eq!((world.get::<Name>(b), world.get::<Pos>(c)), (None, None));
    world.get_mut::<Pos>(b).unwrap().0 = 9.0;
    assert_eq!(world.get::<Pos>(b), Some(&Pos(9.0, 4.0)));
    assert!(world.has::<Name>(a) && !world.has::<Name>(b) && !world.has::<Tag>(a));
    let pos = world.component_id::<Pos>().unwrap();
    let name = world.component_id::<Name>().unwrap();
    assert_eq!(world.storage().set(pos).map(SparseSet::len), Some(2));
    assert_eq!(world.storage().set(name).unwrap().entities(), &[a]);
}

#[test]
fn insert_replace_and_remove() {
    let mut world = World::<SparseStorage>::new();
    let e = world.spawn((Pos(0.0, 0.0),));
    assert_eq!(world.insert(e, Name("x".into())), Ok(None));
    assert_eq!(
        world.insert(e, Name("y".into())),
        Ok(Some(Name("x".into())))
    );
    assert_eq!(world.insert(e, Tag), Ok(None));
    assert_eq!(world.remove::<Name>(e), Ok(Name("y".into())));
    assert!(matches!(
        world.remove::<Name>(e),
        Err(EcsError::MissingComponent { .. })
    ));
    assert_eq!(world.remove::<Tag>(e), Ok(Tag));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(0.0, 0.0)));
    // A component type never stored has no set: removing it is a clean error.
    struct Never;
    impl Component for Never {
        type Mutability = ecs_core::Mutable;
    }
    world.register_component::<Never>();
    assert!(world.remove::<Never>(e).is_err());
}

#[test]
fn despawn_removes_from_every_set_and_index_reuse_starts_clean() {
    let mut world = World::<SparseStorage>::new();
    let keep = world.spawn((Pos(1.0, 1.0), Name("keep".into())));
    let gone = world.spawn((Pos(2.0, 2.0), Name("gone".into()), Tag));
    world.despawn(gone).unwrap();
    assert_eq!(world.despawn(gone), Err(EcsError::NoSuchEntity(gone)));
    assert!(world.storage().sets().all(|set| !set.contains(gone)));
    // The allocator hands the same index out again, with a new generation.
    let reused = world.spawn((Tag,));
    assert_eq!(reused.index(), gone.index());
    assert_ne!(reused, gone);
    assert!(!world.has::<Pos>(reused) && !world.has::<Name>(reused));
    assert_eq!(world.get::<Name>(keep).map(|n| n.0.as_str()), Some("keep"));
    assert_eq!(world.get::<Tag>(gone), None);
    let tag = world.component_id::<Tag>().unwrap();
    assert!(!world.storage().contains(gone, tag) && world.storage().contains(reused, tag));
}

#[test]
fn every_value_is_dropped_exactly_once() {
    let counter = Arc::new(());
    let c = || Counted(counter.clone());
    let mut world = World::<SparseStorage>::new();
    let entities: Vec<Entity> = (0..N)
        .map(|i| world.spawn((c(), Pos(i as f32, 0.0))))
        .collect();
    assert_eq!(alive(&counter), N as usize);
    // Replace: the old value comes back to us and is dropped here.
    drop(world.insert(entities[0], c()));
    assert_eq!(alive(&counter), N as usize);
    drop(world.remove::<Counted>(entities[1]).unwrap());
    world.despawn(entities[2]).unwrap();
    assert_eq!(alive(&counter), N as usize - 2);
    world.clear();
    assert_eq!(alive(&counter), 0);
    world.spawn((c(),));
    world.spawn_batch((0..3).map(|_| (c(), Tag)));
    assert_eq!(alive(&counter), 4);
    drop(world);
    assert_eq!(alive(&counter), 0);
}

/// Panics in `Drop` when armed; counts every drop.
struct Bomb {
    armed: bool,
    drops: Arc<AtomicUsize>,
}
impl Component for Bomb {
    type Mutability = ecs_core::Mutable;
}
impl Drop for Bomb {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
        if self.armed {
            panic!("bomb went off");
        }
    }
}

#[test]
fn panicking_drop_in_despawn_still_removes_and_drops_the_rest() {
    let counter = Arc::new(());
    let drops = Arc::new(AtomicUsize::new(0));
    let bomb = |armed| Bomb {
        armed,
        drops: drops.clone(),
    };
    let mut world = World::<SparseStorage>::new();
    let other = world.spawn((Counted(counter.clone()), bomb(false), Pos(1.0, 1.0)));
    let victim = world.spawn((Counted(counter.clone()), bomb(true), Pos(2.0, 2.0)));
    let last = world.spawn((Counted(counter.clone()), bomb(false), Pos(3.0, 3.0)));
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(victim)));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::Relaxed), 1);
    assert_eq!(
        alive(&counter),
        2,
        "the victim's other components were dropped"
    );
    assert!(!world.contains(victim));
    assert!(world.storage().sets().all(|set| !set.contains(victim)));
    assert_eq!(world.query::<&Pos>().count(), 2);
    assert_eq!(world.get::<Pos>(last), Some(&Pos(3.0, 3.0)));
    assert_eq!(world.get::<Pos>(other), Some(&Pos(1.0, 1.0)));
    drop(world);
    assert_eq!((drops.load(Ordering::Relaxed), alive(&counter)), (3, 0));
}

#[test]
fn panicking_drop_in_clear_still_drops_everything() {
    let counter = Arc::new(());
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::<SparseStorage>::new();
    for i in 0..4 {
        let bomb = Bomb {
            armed: i == 1,
            drops: drops.clone(),
        };
        world.spawn((bomb, Counted(counter.clone())));
    }
    assert!(catch_unwind(AssertUnwindSafe(|| world.clear())).is_err());
    assert_eq!((drops.load(Ordering::Relaxed), alive(&counter)), (4, 0));
    assert!(world.storage().sets().all(SparseSet::is_empty));
    let e = world.spawn((Pos(0.0, 0.0),));
    assert_eq!(world.query::<&Pos>().count(), 1);
    assert!(world.has::<Pos>(e));
}

#[test]
fn zero_sized_and_over_aligned_components() {
    let mut world = World::<SparseStorage>::new();
    let entities: Vec<Entity> = (0..N)
        .map(|i| world.spawn((Tag, Aligned(u64::from(i)))))
        .collect();
    for (i, &e) in entities.iter().enumerate() {
        let value = world.get::<Aligned>(e).unwrap();
        assert_eq!(value.0, i as u64);
        assert_eq!(value as *const Aligned as usize % 4096, 0);
        assert_eq!(world.get::<Tag>(e), Some(&Tag));
    }
    for &e in entities.iter().step_by(2) {
        world.remove::<Tag>(e).unwrap();
        assert_eq!(world.remove::<Aligned>(e).unwrap().0, u64::from(e.index()));
    }
    assert_eq!(world.query::<(&Tag, &Aligned)>().count(), (N / 2) as usize);
    for (tag, aligned) in world.query::<(&Tag, &Aligned)>() {
        assert_eq!(*tag, Tag);
        assert_eq!(aligned as *const Aligned as usize % 4096, 0);
    }
}

#[test]
fn runtime_components_by_id() {
    let mut world = World::<SparseStorage>::new();
    let fog = world.register_dynamic(ComponentDescriptor {
        name: "Fog".into(),
        layout: Layout::new::<[f32; 2]>(),
        drop: None,
        storage: StorageKind::Sparse,
    });
    let e = world.spawn((Pos(0.0, 0.0),));
    let bytes: Vec<u8> = [0.5f32, 2.0].iter().flat_map(|f| f.to_ne_bytes()).collect();
    world.insert_bytes(e, fog, &bytes).unwrap();
    assert_eq!(world.get_bytes(e, fog), Some(&bytes[..]));
    world.insert_bytes(e, fog, &[0; 8]).unwrap();
    assert_eq!(world.get_bytes(e, fog), Some(&[0u8; 8][..]));
    world.remove_by_id(e, fog).unwrap();
    assert_eq!(world.get_bytes(e, fog), None);
    assert!(world.remove_by_id(e, fog).is_err());
}

#[test]
fn spawn_batch_reserves_once() {
    let mut world = World::<SparseStorage>::new();
    let entities = world
        .spawn_batch((0..N).map(|i| (Pos(i as f32, 0.0), Tag)))
        .to_vec();
    let dense_bytes = |set: &SparseSet| set.memory_usage() - set.sparse().memory_usage();
    let pos = world.component_id::<Pos>().unwrap();
    let tag = world.component_id::<Tag>().unwrap();
    let (pos, tag) = (
        world.storage().set(pos).unwrap(),
        world.storage().set(tag).unwrap(),
    );
    assert_eq!((pos.len(), tag.len()), (N as usize, N as usize));
    // Exactly N entities (8 bytes) and N values: reserved up front, never doubled (a small
    // batch gets the growth policy's first capacity instead).
    let rows = (N as usize).max(ecs_core::blob::min_capacity(8));
    assert_eq!(dense_bytes(pos), rows * (8 + 8));
    assert_eq!(
        dense_bytes(tag),
        rows * 8,
        "a zero-sized value costs nothing"
    );
    assert_eq!(world.get::<Pos>(entities[3]), Some(&Pos(3.0, 0.0)));
}

#[test]
fn churn_reuses_memory() {
    let mut world = World::<SparseStorage>::new();
    let round = |world: &mut World<SparseStorage>| {
        let entities = world
            .spawn_batch((0..N).map(|i| (Pos(i as f32, 0.0),)))
            .to_vec();
        for &e in &entities {
            world.insert(e, Name(String::new())).unwrap();
            world.insert(e, Tag).unwrap();
        }
        for &e in &entities {
            world.remove::<Name>(e).unwrap();
            world.despawn(e).unwrap();
        }
        world.memory_usage()
    };
    let first = round(&mut world);
    for _ in 0..3 {
        assert_eq!(round(&mut world), first, "memory is reused, not grown");
    }
    assert!(world.storage().sets().all(SparseSet::is_empty));
}

#[test]
fn memory_usage_counts_sets_and_pages() {
    let mut world = World::<SparseStorage>::new();
    let empty = world.storage().memory_usage();
    let e = world.spawn((Pos(0.0, 0.0),));
    let storage = world.storage();
    let pos = storage.set(world.component_id::<Pos>().unwrap()).unwrap();
    assert_eq!(pos.sparse().page_count(), 1);
    assert!(pos.memory_usage() >= 4096, "one sparse page");
    let table = storage.sets.capacity() * std::mem::size_of::<Option<SparseSet>>();
    assert_eq!(storage.memory_usage(), table + pos.memory_usage());
    assert!(storage.memory_usage() > empty);
    assert!(pos.contains(e));
    assert!(format!("{storage:?}").contains("SparseSet"));
    assert_eq!(SparseStorage::NAME, "sparse");
    assert!(!SparseStorage::is_dense::<Pos>());
}

/// `spawn_columns` appends whole columns to the sets (an empty set takes the buffer itself),
/// and with an owning group goes entity by entity so the group stays packed.
#[test]
fn spawn_columns_appends_whole_columns_and_keeps_groups() {
    use ecs_core::blob::BlobVec;
    use ecs_core::bundle::BundleInfo;
    use ecs_core::component::Components;
    use ecs_core::storage::ColumnValues;
    for grouped in [false, true] {
        let counter = Arc::new(());
        let mut components = Components::default();
        let pos = components.register::<Pos>();
        let counted = components.register::<Counted>();
        let empty = BundleInfo::new::<()>(0, &mut components).unwrap();
        let mut storage = SparseStorage::new();
        if grouped {
            // SAFETY: both components are registered in `components`.
            unsafe { storage.group(&[pos, counted], &components).unwrap() };
        }
        for (batch, first) in [(0u32, 0u32), (1, 6)] {
            let entities: Vec<Entity> = (first..first + 6)
                .map(|i| Entity::new(i, 1).unwrap())
                .collect();
            let mut p_values = BlobVec::for_component(components.info(pos));
            let mut c_values = BlobVec::for_component(components.info(counted));
            for i in 0..6 {
                // SAFETY: each array holds its component's type.
                unsafe {
                    p_values.push(Pos(i as f32, batch as f32));
                    c_values.push(Counted(counter.clone()));
                }
            }
            let (pp, pc) = (p_values.base_ptr(), c_values.base_ptr());
            let mut columns = [
                ColumnValues {
                    component: pos,
                    values: pp,
                    buffer: Some(&mut p_values),
                },
                ColumnValues {
                    component: counted,
                    values: pc,
                    buffer: None,
                },
            ];
            // SAFETY: new distinct entities; 6 owned values per column, the buffer exactly those.
            unsafe { storage.spawn_columns(&entities, &mut columns, &empty, &components) };
            p_values.forget_all();
            c_values.forget_all();
            // SAFETY: component `pos` is `Pos`.
            let read = unsafe {
                storage
                    .get_ptr(entities[5], pos)
                    .unwrap()
                    .cast::<Pos>()
                    .as_ref()
            };
            assert_eq!(read, &Pos(5.0, batch as f32));
        }
        assert_eq!(storage.set(pos).unwrap().len(), 12);
        assert_eq!(alive(&counter), 12);
        if grouped {
            assert_eq!(
                storage.groups()[0].len(),
                12,
                "every arrival joined the group"
            );
        }
        drop(storage);
        assert_eq!(alive(&counter), 0, "every value dropped once");
    }
}

/// With many component types the storage keeps holders (which sets may hold each entity):
/// every way an entity gains a component marks it, and despawn, asking only the marked
/// sets, still removes the entity from each set that held it; components held before the
/// holders were kept are found too, and removed components leave a harmless stale mark.
#[test]
fn despawn_with_many_component_types_leaves_no_set_holding_the_entity() {
    let types = TRACK_FROM + 40;
    let mut world = World::<SparseStorage>::new();
    let raw = |world: &mut World<SparseStorage>, i: usize| {
        world.register_dynamic(ComponentDescriptor {
            name: format!("c{i}").into(),
            layout: Layout::new::<u32>(),
            drop: None,
            storage: StorageKind::Sparse,
        })
    };
    let ids: Vec<ComponentId> = (0..types).map(|i| raw(&mut world, i)).collect();
    let n: usize = if cfg!(miri) { 12 } else { 300 };
    // Typed components first (their sets exist before holders are kept), then a batch.
    let early: Vec<Entity> = (0..n as u32)
        .map(|i| world.spawn((Pos(i as f32, 0.0),)))
        .collect();
    world.spawn_batch((0..n).map(|i| (Pos(i as f32, 1.0), Tag)));
    let mut held: Vec<(Entity, Vec<ComponentId>)> = Vec::new();
    for (k, &e) in early.iter().enumerate() {
        let mine: Vec<ComponentId> = ids.iter().copied().skip(k % 7).step_by(5).collect();
        for &id in &mine {
            world
                .insert_bytes(e, id, &(k as u32).to_ne_bytes())
                .unwrap();
        }
        held.push((e, mine));
    }
    assert!(
        world.storage().holders.is_some(),
        "{types} sets: holders kept"
    );
    for (k, (e, mine)) in held.iter().enumerate() {
        if k % 3 == 0 {
            world.remove_by_id(*e, mine[0]).unwrap();
        }
        if k % 2 == 0 {
            world.despawn(*e).unwrap();
        }
    }
    for (k, (e, mine)) in held.iter().enumerate() {
        for (j, &id) in mine.iter().enumerate() {
            let want = k % 2 == 1 && !(j == 0 && k % 3 == 0);
            assert_eq!(
                world.storage().contains(*e, id),
                want,
                "entity {k}, type {j}"
            );
        }
    }
    let pos = world.component_id::<Pos>().unwrap();
    assert_eq!(
        world.storage().set(pos).unwrap().len(),
        2 * n - n.div_ceil(2),
        "despawned entities left the typed set too"
    );
    // Spawned, batch-spawned and inserted once the holders are kept.
    let late = world.spawn((Pos(-1.0, 0.0), Name("late".into())));
    world.insert(late, Tag).unwrap();
    let batch = world
        .spawn_batch((0..n).map(|i| (Name(format!("b{i}")), Tag)))
        .to_vec();
    world.despawn(late).unwrap();
    for &e in batch.iter().step_by(2) {
        world.despawn(e).unwrap();
    }
    let (name, tag) = (
        world.component_id::<Name>().unwrap(),
        world.component_id::<Tag>().unwrap(),
    );
    for id in [pos, name, tag] {
        assert!(!world.storage().contains(late, id));
    }
    for (k, &e) in batch.iter().enumerate() {
        let want = k % 2 == 1;
        assert_eq!(world.storage().contains(e, name), want, "batch {k}");
        assert_eq!(world.storage().contains(e, tag), want, "batch {k}");
    }
    world.clear();
    assert!(world.storage().sets().all(|set| set.is_empty()));
}

/// A snapshot load puts its entities into the sets through `spawn_columns`, which must mark
/// the holders as a spawn does: with many component types, despawning loaded entities leaves
/// no set holding them, whether the load made the sets (and started the holders) or merged
/// into sets that were there.
#[test]
fn snapshot_load_with_many_component_types_then_despawn_leaves_no_set_holding_the_entity() {
    use ecs_core::snapshot::{DynamicCodec, SnapshotRegistry};
    let types = TRACK_FROM + 8;
    let descriptor = |i: usize| ComponentDescriptor {
        name: format!("c{i}").into(),
        layout: Layout::new::<u32>(),
        drop: None,
        storage: StorageKind::Sparse,
    };
    let mut registry = SnapshotRegistry::new();
    for i in 0..types {
        registry.add_dynamic(&format!("c{i}"), descriptor(i), DynamicCodec::plain_bytes());
    }
    let mut source = World::<SparseStorage>::new();
    let ids: Vec<ComponentId> = (0..types)
        .map(|i| source.register_dynamic(descriptor(i)))
        .collect();
    let n = if cfg!(miri) { 6 } else { 200 };
    for k in 0..n {
        let e = source.spawn(());
        for &id in ids.iter().skip(k % 3).step_by(2) {
            source
                .insert_bytes(e, id, &(k as u32).to_ne_bytes())
                .unwrap();
        }
    }
    let bytes = postcard::to_allocvec(&registry.save(&source)).unwrap();
    let mut world = World::<SparseStorage>::new();
    let mut loaded = Vec::new();
    for _ in 0..2 {
        let map = registry
            .load(&mut world, &mut postcard::Deserializer::from_bytes(&bytes))
            .unwrap();
        assert!(
            world.storage().holders.is_some(),
            "{types} sets: holders kept"
        );
        loaded.extend(map.loaded());
    }
    for &e in loaded.iter().step_by(2) {
        world.despawn(e).unwrap();
    }
    for (k, &e) in loaded.iter().enumerate() {
        let held = world.storage().sets().filter(|set| set.contains(e)).count();
        let want = if k % 2 == 0 {
            0
        } else {
            ids.iter().skip(k % n % 3).step_by(2).count()
        };
        assert_eq!(held, want, "loaded entity {k}");
    }
}
