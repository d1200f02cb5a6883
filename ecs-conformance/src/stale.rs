//! Stale handles: every API answers `None`/`Err`, never another entity's data.

use std::ptr::NonNull;

use ecs_core::{ComponentDescriptor, EcsError, Entity, Storage, StorageKind, With, Without, World};

use crate::components::{Tag, A, B};

fn check_stale<S: Storage>(world: &mut World<S>, e: Entity) {
    assert!(!world.contains(e));
    assert_eq!(world.get::<A>(e), None);
    assert_eq!(world.get_mut::<A>(e), None);
    assert!(!world.has::<A>(e));
    assert_eq!(world.insert(e, A(5)), Err(EcsError::NoSuchEntity(e)));
    assert_eq!(world.remove::<A>(e), Err(EcsError::NoSuchEntity(e)));
    assert_eq!(world.despawn(e), Err(EcsError::NoSuchEntity(e)));
    let a = world.register_component::<A>();
    assert_eq!(world.get_by_id(e, a), None);
    assert_eq!(world.remove_by_id(e, a), Err(EcsError::NoSuchEntity(e)));
    let mut value = std::mem::ManuallyDrop::new(A(1));
    // SAFETY: `value` is a valid A that we never use again.
    let r = unsafe { world.insert_by_id(e, a, NonNull::from(&mut *value).cast()) };
    assert_eq!(r, Err(EcsError::NoSuchEntity(e)));
    let raw = world.register_dynamic(ComponentDescriptor {
        name: "raw".into(),
        layout: std::alloc::Layout::new::<u16>(),
        drop: None,
        storage: StorageKind::Table,
    });
    assert_eq!(
        world.insert_bytes(e, raw, &[1, 2]),
        Err(EcsError::NoSuchEntity(e))
    );
    assert_eq!(world.get_bytes(e, raw), None);
    assert!(world.query::<ecs_core::Entity>().all(|x| x != e));
    check_stale_gets(world, e);
}

/// `QueryState::get` and `QueryView::get` of every shape reject the handle: with a required
/// component (the storage rejects it), with none (the allocator does), and through a filter.
fn check_stale_gets<S: Storage>(world: &mut World<S>, e: Entity) {
    let mut a = world.query_state::<&A, ()>().unwrap();
    let mut entity = world.query_state::<Entity, ()>().unwrap();
    let mut optional = world.query_state::<(Option<&A>, Option<&B>), ()>().unwrap();
    let mut with = world.query_state::<Entity, With<A>>().unwrap();
    let mut without = world.query_state::<Entity, Without<Tag>>().unwrap();
    assert_eq!(a.get(world, e), None);
    assert_eq!(entity.get(world, e), None);
    assert_eq!(optional.get(world, e), None);
    assert_eq!(with.get(world, e), None);
    assert_eq!(without.get(world, e), None);
    // The same shapes through views (table backends: the keyed path and, for the
    // requires-nothing ones, the look-up fallback).
    assert_eq!(a.view(world).get(e), None);
    assert_eq!(entity.view(world).get(e), None);
    assert_eq!(optional.view(world).get(e), None);
    assert_eq!(with.view(world).get(e), None);
    assert_eq!(without.view(world).get(e), None);
    let mut writes = world.query_state::<(&mut A, Option<&B>), ()>().unwrap();
    assert!(writes.get_mut(world, e).is_none());
    assert!(writes.view_mut(world).with(e, |_| ()).is_none());
    assert!(writes.iter_mut(world).count() == world.query::<&A>().count());
}

/// Handles of despawned entities, of entities removed by `clear` and never-issued handles are
/// answered `None` or `NoSuchEntity` by every read, write, insert, removal and query `get`, so a
/// stale handle never reads or changes another entity.
pub fn stale_handles_rejected_everywhere<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((A(1), B("x".into())));
    world.despawn(e).unwrap();
    check_stale(&mut world, e);
    let f = world.spawn((A(2),));
    world.clear();
    check_stale(&mut world, f);
    let never = Entity::new(12_345, 1).unwrap();
    check_stale(&mut world, never);
}

/// A despawned handle must never read a newer entity's values: when the allocator recycles its
/// index, every look-up by the old handle still fails, as the world compares whole handles.
pub fn reused_index_does_not_alias<S: Storage>() {
    let mut world = World::<S>::new();
    let old = world.spawn((A(1), Tag));
    world.despawn(old).unwrap();
    let new = world.spawn((A(2),));
    assert_eq!(new.index(), old.index(), "the allocator recycles the slot");
    assert_ne!(new, old);
    assert_eq!(world.get::<A>(old), None);
    assert_eq!(world.get::<A>(new), Some(&A(2)));
    let get = world
        .query_state::<(Entity, &A, Option<&Tag>), ()>()
        .unwrap();
    assert_eq!(get.get(&world, old), None);
    assert_eq!(get.get(&world, new), Some((new, &A(2), None)));
    let mut viewed = world
        .query_state::<(Entity, &A, Option<&Tag>), ()>()
        .unwrap();
    let view = viewed.view(&world);
    assert_eq!(view.get(old), None, "a view rejects the old handle too");
    assert_eq!(view.get(new), Some((new, &A(2), None)));
    assert!(!world.has::<Tag>(new));
    assert_eq!(world.insert(old, Tag), Err(EcsError::NoSuchEntity(old)));
    assert!(!world.has::<Tag>(new));
}

/// `Entity::PLACEHOLDER` (index `u32::MAX`) is never live: every API answers it as a stale
/// handle on every backend, without touching any entity, and commands on it are skipped.
pub fn placeholder_is_never_live<S: Storage>() {
    use ecs_core::commands::{CommandQueue, Commands};
    let p = ecs_core::Entity::PLACEHOLDER;
    let mut world = World::<S>::new();
    let e = world.spawn((A(1), B("b".into())));
    for _ in 0..3 {
        world.spawn(A(2));
    }
    assert!(!world.contains(p));
    assert_eq!(world.get::<A>(p), None);
    assert!(world.get_mut::<A>(p).is_none());
    assert!(!world.has::<A>(p));
    assert_eq!(world.insert(p, A(3)), Err(EcsError::NoSuchEntity(p)));
    assert_eq!(world.remove::<A>(p), Err(EcsError::NoSuchEntity(p)));
    assert_eq!(world.despawn(p), Err(EcsError::NoSuchEntity(p)));
    assert_eq!(world.set_parent(p, e), Err(EcsError::NoSuchEntity(p)));
    assert!(world.find(p, "A").is_none());
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &world);
    commands.insert(p, A(4));
    commands.despawn(p);
    assert_eq!(world.apply(&mut queue).len(), 2);
    assert_eq!(world.len(), 4);
    assert_eq!(world.get::<A>(e), Some(&A(1)));
}
