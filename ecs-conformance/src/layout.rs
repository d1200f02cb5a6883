//! Unusual layouts: zero-sized components, over-aligned components, run-time components.

use std::alloc::Layout;

use ecs_core::{Component, ComponentDescriptor, EcsError, Storage, StorageKind, World};

use crate::components::{size, A};

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Zst;
impl Component for Zst {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Zst2;
impl Component for Zst2 {
    type Mutability = ecs_core::Mutable;
}

#[repr(align(64))]
#[derive(Debug, PartialEq, Clone, Copy)]
struct Line(u64);
impl Component for Line {
    type Mutability = ecs_core::Mutable;
}

#[repr(align(4096))]
#[derive(Debug, PartialEq, Clone, Copy)]
struct Page(u32);
impl Component for Page {
    type Mutability = ecs_core::Mutable;
}

/// Entities holding only zero-sized components cost bookkeeping but no value bytes, and queries
/// count them right through removals and despawns.
pub fn zero_sized_only_entities<S: Storage>() {
    let n = size(100_000, 300);
    let mut world = World::<S>::new();
    let baseline = world.memory_usage();
    let entities = world.spawn_batch((0..n).map(|_| (Zst, Zst2))).to_vec();
    assert_eq!(world.query::<(&Zst, &Zst2)>().count(), n);
    // Only bookkeeping grows (ids, rows): no value bytes. 64 bytes per entity is a generous
    // bound for indices alone; a ZST column that allocated per value would still fit, so
    // also check that removal and re-adding keep counts right.
    assert!(world.memory_usage() - baseline < 64 * n + 65_536);
    for e in entities.iter().step_by(2) {
        assert_eq!(world.remove::<Zst>(*e), Ok(Zst));
    }
    assert_eq!(world.query::<&Zst>().count(), n / 2);
    assert_eq!(world.query::<&Zst2>().count(), n);
    for e in entities.iter().step_by(3) {
        world.despawn(*e).unwrap();
    }
    let alive = entities.iter().filter(|e| world.contains(**e)).count();
    assert_eq!(world.query::<&Zst2>().count(), alive);
}

/// Components aligned to 64 and 4096 bytes are stored at addresses with that alignment, also
/// after structural moves, so references to them are valid.
pub fn over_aligned_components<S: Storage>() {
    let mut world = World::<S>::new();
    let n = size(40, 6) as u32;
    let entities: Vec<_> = (0..n)
        .map(|i| match i % 3 {
            0 => world.spawn((Line(i as u64), Page(i))),
            1 => world.spawn((Page(i), A(i))),
            _ => world.spawn((A(i), Line(i as u64))),
        })
        .collect();
    for (i, e) in entities.iter().enumerate() {
        if let Some(p) = world.get::<Page>(*e) {
            assert_eq!(p as *const Page as usize % 4096, 0);
            assert_eq!(p.0, i as u32);
        }
        if let Some(l) = world.get::<Line>(*e) {
            assert_eq!(l as *const Line as usize % 64, 0);
        }
    }
    for (l, p) in world.query::<(&Line, &Page)>() {
        assert_eq!(l as *const Line as usize % 64, 0);
        assert_eq!(p as *const Page as usize % 4096, 0);
        assert_eq!(l.0, p.0 as u64);
    }
    // Structural moves keep alignment.
    for e in &entities {
        world.insert(*e, Page(7)).unwrap();
    }
    for p in world.query::<&Page>() {
        assert_eq!(p as *const Page as usize % 4096, 0);
    }
    assert_eq!(world.query::<&Page>().count(), entities.len());
}

/// Run-time components registered by descriptor are padded to their alignment, stored and read
/// back as bytes in tables and sparse sets, and `insert_bytes` refuses a wrong size or a type
/// that is not plain data.
pub fn dynamic_components<S: Storage>() {
    let mut world = World::<S>::new();
    let fog = world.register_dynamic(ComponentDescriptor {
        name: "Fog".into(),
        layout: Layout::new::<[u32; 3]>(),
        drop: None,
        storage: StorageKind::Sparse,
    });
    let odd = world.register_dynamic(ComponentDescriptor {
        name: "Odd".into(),
        layout: Layout::from_size_align(5, 1).unwrap(),
        drop: None,
        storage: StorageKind::Table,
    });
    let unpadded = world.register_dynamic(ComponentDescriptor {
        name: "Unpadded".into(),
        layout: Layout::from_size_align(3, 2).unwrap(),
        drop: None,
        storage: StorageKind::Table,
    });
    assert_eq!(
        world.component_info(unpadded).unwrap().layout().size(),
        4,
        "padded at registration"
    );
    let e = world.spawn((A(1),));
    let f = world.spawn(());
    world.insert_bytes(f, unpadded, &[1, 2, 3, 4]).unwrap();
    world.insert_bytes(e, unpadded, &[5, 6, 7, 8]).unwrap();
    world.remove_by_id(e, unpadded).unwrap();
    assert_eq!(world.get_bytes(f, unpadded), Some(&[1u8, 2, 3, 4][..]));
    world.insert_bytes(e, fog, &[1; 12]).unwrap();
    world.insert_bytes(e, odd, &[9, 8, 7, 6, 5]).unwrap();
    world.insert_bytes(f, odd, &[1, 2, 3, 4, 5]).unwrap();
    assert_eq!(world.get_bytes(e, fog), Some(&[1u8; 12][..]));
    world.insert_bytes(e, fog, &[2; 12]).unwrap();
    assert_eq!(world.get_bytes(e, fog), Some(&[2u8; 12][..]));
    assert_eq!(world.get_bytes(e, odd), Some(&[9u8, 8, 7, 6, 5][..]));
    assert_eq!(world.get_bytes(f, odd), Some(&[1u8, 2, 3, 4, 5][..]));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    assert!(matches!(
        world.insert_bytes(e, fog, &[0; 3]),
        Err(EcsError::SizeMismatch {
            expected: 12,
            actual: 3,
            ..
        })
    ));
    let a = world.component_id::<A>().unwrap();
    assert!(matches!(
        world.insert_bytes(e, a, &[0; 4]),
        Err(EcsError::NotPlainData(_))
    ));
    world.remove_by_id(e, odd).unwrap();
    assert_eq!(world.get_bytes(e, odd), None);
    assert_eq!(world.get_bytes(e, fog), Some(&[2u8; 12][..]));
    assert!(matches!(
        world.remove_by_id(e, odd),
        Err(EcsError::MissingComponent { .. })
    ));
    world.despawn(e).unwrap();
    assert_eq!(world.get_bytes(f, odd), Some(&[1u8, 2, 3, 4, 5][..]));
}

/// Entities with no component (spawned empty, reserved and flushed, or emptied by removals)
/// are live, found by every query that requires nothing, and take components like any
/// other, wherever the backend keeps them (the table backends keep no row for them).
pub fn entities_without_components<S: Storage>() {
    let n = size(300, 24) as u32;
    let mut world = World::<S>::new();
    let reserved = world.reserve_entity();
    let mut model: Vec<(ecs_core::Entity, Option<A>)> = vec![];
    for i in 0..n {
        let e = match i % 4 {
            0 => world.spawn(()),
            1 => world.spawn((A(i),)),
            2 => world.spawn_batch([(), ()])[1],
            _ => world.spawn((A(i), Zst)),
        };
        model.push((e, (i % 4 == 1 || i % 4 == 3).then_some(A(i))));
    }
    assert!(world.contains(reserved));
    model.push((reserved, None));
    // Empty some, fill some, despawn some, so the live list is permuted.
    for (k, (e, a)) in model.iter_mut().enumerate() {
        if k % 5 == 0 {
            // Lose every component (a round trip through a table for the empty ones).
            world.insert(*e, A(7)).unwrap();
            world.remove::<A>(*e).unwrap();
            world.remove::<Zst>(*e).ok();
            *a = None;
        } else if k % 5 == 1 && a.is_none() {
            assert_eq!(world.insert(*e, A(k as u32)), Ok(None));
            *a = Some(A(k as u32));
        }
    }
    for (e, _) in model.iter().step_by(7) {
        world.despawn(*e).unwrap();
    }
    model.retain(|(e, _)| world.contains(*e));
    // (The spawn_batch pairs' first entities are live and empty too: counted by `len`.)
    let live = world.len();
    assert_eq!(world.query::<ecs_core::Entity>().count(), live);
    let mut found: Vec<_> = world
        .query::<(ecs_core::Entity, Option<&A>)>()
        .map(|(e, a)| (e, a.copied()))
        .collect();
    found.sort_by_key(|(e, _)| *e);
    for (e, a) in &model {
        let at = found.binary_search_by_key(e, |(f, _)| *f).expect("found");
        assert_eq!(found[at].1, *a, "{e:?}");
        assert_eq!(world.get::<A>(*e).copied(), *a);
    }
    let without = world
        .query_filtered::<ecs_core::Entity, ecs_core::Without<A>>()
        .count();
    assert_eq!(without, live - world.query::<&A>().count());
    let mut state = world
        .query_state::<(ecs_core::Entity, Option<&A>), ()>()
        .unwrap();
    for (e, a) in &model {
        assert_eq!(state.get(&world, *e).map(|(_, a)| a.copied()), Some(*a));
    }
    let view = state.view(&world);
    for (e, a) in &model {
        assert_eq!(view.get(*e).map(|(_, a)| a.copied()), Some(*a), "{e:?}");
    }
}
