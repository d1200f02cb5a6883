//! Linking and unlinking: [`World::set_parent`], [`World::spawn_child`],
//! [`World::remove_parent`], and what [`World::despawn`] does to keep links exact.
//!
//! Every public operation checks everything first (live handles, no cycle) and then only
//! writes: nothing after the checks can fail, so an error leaves the world as it was.

use std::mem::MaybeUninit;
use std::ptr::NonNull;

use super::{ChildOf, Children, LinkIds};
use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

impl<S: Storage> World<S> {
    /// Makes `child` the last child of `parent`. A child that had another parent moves
    /// (its old siblings close the gap); one that already is `parent`'s child stays where it
    /// is. Records [`Added<ChildOf>`](crate::Added) for a child that had no parent,
    /// [`Changed<ChildOf>`](crate::Changed) for one that moved.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle; [`EcsError::HierarchyCycle`] when
    /// `parent` is `child` or one of its descendants. The world is unchanged on error.
    ///
    /// ```
    /// # use ecs_core::{World, EcsError, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let (a, b, c) = (world.spawn(()), world.spawn(()), world.spawn(()));
    /// world.set_parent(c, a).unwrap();
    /// world.set_parent(c, b).unwrap(); // moves
    /// assert_eq!(world.children(a).unwrap().count(), 0);
    /// assert_eq!(world.parent(c), Ok(Some(b)));
    /// assert_eq!(world.set_parent(b, c), Err(EcsError::HierarchyCycle { child: b, parent: c }));
    /// ```
    pub fn set_parent(&mut self, child: Entity, parent: Entity) -> Result<(), EcsError> {
        self.flush();
        self.check(child)?;
        self.check(parent)?;
        let ids = self.link_ids();
        if self.is_self_or_ancestor(ids, child, parent) {
            return Err(EcsError::HierarchyCycle { child, parent });
        }
        match self.link_of(ids, child) {
            Some(link) if link.parent == parent => return Ok(()),
            Some(_) => {
                self.unlink(ids, child);
                let prev = self.last_child(ids, parent);
                let slot = self.child_of_mut(ids, child).expect("checked above");
                *slot = ChildOf {
                    parent,
                    prev,
                    next: None,
                };
                self.changes_mut().on_changed(ids.child_of, child);
            }
            None => {
                let link = ChildOf {
                    parent,
                    prev: self.last_child(ids, parent),
                    next: None,
                };
                // SAFETY: `child` is live (checked), so held; `T` is `ChildOf`.
                let old = unsafe { self.insert_link(child, ids, link) };
                debug_assert!(old.is_none(), "the child had no ChildOf");
                self.changes_mut().on_added(ids.child_of, child);
            }
        }
        self.append(ids, parent, child);
        Ok(())
    }

    /// Spawns an entity with `bundle` as the last child of `parent`, in one step (on a table
    /// backend the child's row is written once, with its `ChildOf`).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale `parent`: nothing is spawned and the bundle is
    /// dropped.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Wheel(u8);
    /// let mut world = World::<VecStorage>::new();
    /// let car = world.spawn(());
    /// let wheels: Vec<_> = (0..4).map(|i| world.spawn_child(car, Wheel(i)).unwrap()).collect();
    /// assert_eq!(world.children(car).unwrap().collect::<Vec<_>>(), wheels);
    /// ```
    pub fn spawn_child<B: Bundle>(
        &mut self,
        parent: Entity,
        bundle: B,
    ) -> Result<Entity, EcsError> {
        self.flush();
        self.check(parent)?;
        let ids = self.link_ids();
        let link = ChildOf {
            parent,
            prev: self.last_child(ids, parent),
            next: None,
        };
        if self.needs_attention() && self.attend() {
            let mut bundle = std::mem::ManuallyDrop::new((bundle, link));
            // SAFETY: the bundle is handed over and never dropped here.
            return Ok(unsafe {
                self.spawn_child_reacting(ids, parent, NonNull::from(&mut *bundle))
            });
        }
        let child = self.spawn((bundle, link));
        self.append(ids, parent, child);
        Ok(child)
    }

    /// [`World::spawn_child`] where something reacts: the child's hooks and observers wait
    /// until it is linked (and a panicking one leaves it linked). Spawns through the
    /// type-erased path, so the typed spawn keeps the fast path as its one caller.
    ///
    /// # Safety
    /// `bundle` points to a `B` this call takes over (the caller must not use or drop it).
    #[cold]
    #[inline(never)]
    unsafe fn spawn_child_reacting<B: Bundle>(
        &mut self,
        ids: LinkIds,
        parent: Entity,
        bundle: NonNull<B>,
    ) -> Entity {
        let held = crate::world::HoldReactions::new(self);
        // SAFETY: forwarded contract.
        let child = unsafe { held.world.spawn_reacting(bundle) };
        held.world.append(ids, parent, child);
        held.release();
        child
    }

    /// Makes `child` a root: unlinks it from its parent and removes its [`ChildOf`]; its own
    /// children stay its children. Returns the parent it had.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let parent = world.spawn(());
    /// let child = world.spawn_child(parent, ()).unwrap();
    /// assert_eq!(world.remove_parent(child), Ok(Some(parent)));
    /// assert_eq!(world.remove_parent(child), Ok(None));
    /// assert_eq!(world.parent(child), Ok(None));
    /// ```
    pub fn remove_parent(&mut self, child: Entity) -> Result<Option<Entity>, EcsError> {
        self.flush();
        self.check(child)?;
        let Some(ids) = self.hierarchy else {
            return Ok(None);
        };
        let Some(link) = self.link_of(ids, child) else {
            return Ok(None);
        };
        self.unlink(ids, child);
        self.remove_link_component(child, ids.child_of);
        Ok(Some(link.parent))
    }

    /// Makes `child`, which has no parent, the last child of `parent` without the cycle
    /// check of [`World::set_parent`] (an ancestor walk per link, quadratic on a deep
    /// chain): for a loader that has checked that its links form a forest. Records
    /// [`Added<ChildOf>`](crate::Added).
    #[cfg(feature = "serde")]
    pub(crate) fn link_loaded(&mut self, child: Entity, parent: Entity) {
        let ids = self.link_ids();
        debug_assert!(
            self.link_of(ids, child).is_none(),
            "a loaded child has no parent yet"
        );
        let link = ChildOf {
            parent,
            prev: self.last_child(ids, parent),
            next: None,
        };
        // SAFETY: `child` is live (just loaded), so held; `T` is `ChildOf`.
        let old = unsafe { self.insert_link(child, ids, link) };
        debug_assert!(old.is_none());
        self.changes_mut().on_added(ids.child_of, child);
        self.append(ids, parent, child);
    }

    /// `parent`'s last child, if it has children.
    fn last_child(&self, ids: LinkIds, parent: Entity) -> Option<Entity> {
        self.head_of(ids, parent).map(|(_, last, _)| last)
    }

    /// Whether `entity` is `of` or one of its ancestors (the walk up from `of`).
    fn is_self_or_ancestor(&self, ids: LinkIds, entity: Entity, of: Entity) -> bool {
        let mut at = Some(of);
        while let Some(e) = at {
            if e == entity {
                return true;
            }
            at = self.link_of(ids, e).map(|l| l.parent);
        }
        false
    }

    /// Links `child`, whose `ChildOf` already names `parent` with `prev` = the parent's
    /// last child, in as the parent's last child.
    fn append(&mut self, ids: LinkIds, parent: Entity, child: Entity) {
        match self.children_mut(ids, parent) {
            Some(head) => {
                let last = std::mem::replace(&mut head.last, child);
                head.count += 1;
                self.child_of_mut(ids, last)
                    .expect("a listed child has a ChildOf")
                    .next = Some(child);
            }
            None => {
                let head = Children {
                    first: child,
                    last: child,
                    count: 1,
                };
                // SAFETY: `parent` is live (callers check), so held; `ids.children` is
                // `Children`'s id in this world's registry.
                let old = unsafe { self.insert_link(parent, ids, head) };
                debug_assert!(old.is_none(), "the parent had no Children");
            }
        }
    }

    /// Takes `child` out of its parent's list (closing the gap, removing the parent's
    /// `Children` with its last child). The child's own `ChildOf` is left as it was, for the
    /// caller to rewrite, remove or despawn.
    pub(crate) fn unlink(&mut self, ids: LinkIds, child: Entity) {
        let Some(link) = self.link_of(ids, child) else {
            return;
        };
        match link.prev {
            Some(prev) => self.child_of_mut(ids, prev).expect("sibling").next = link.next,
            None => {
                if let (Some(next), Some(head)) = (link.next, self.children_mut(ids, link.parent)) {
                    head.first = next;
                }
            }
        }
        match link.next {
            Some(next) => self.child_of_mut(ids, next).expect("sibling").prev = link.prev,
            None => {
                if let (Some(prev), Some(head)) = (link.prev, self.children_mut(ids, link.parent)) {
                    head.last = prev;
                }
            }
        }
        let head = self
            .children_mut(ids, link.parent)
            .expect("a child's parent has Children");
        head.count -= 1;
        if head.count == 0 {
            self.remove_link_component(link.parent, ids.children);
        }
    }

    /// What [`World::despawn`] does first for a live entity of a world with relationships:
    /// unlink it from its parent and make its children roots.
    pub(crate) fn detach(&mut self, ids: LinkIds, entity: Entity) {
        self.unlink(ids, entity);
        let Some((first, _, _)) = self.head_of(ids, entity) else {
            return;
        };
        let mut at = Some(first);
        while let Some(child) = at {
            at = self.link_of(ids, child).and_then(|l| l.next);
            self.remove_link_component(child, ids.child_of);
        }
        // The entity's `Children` is dropped with it.
    }

    /// Removes relationship component `id` (plain data: no drop to run) from `entity`.
    pub(crate) fn remove_link_component(
        &mut self,
        entity: Entity,
        id: crate::component::ComponentId,
    ) {
        // Both link components are at most this size and alignment.
        let mut slot = MaybeUninit::<ChildOf>::uninit();
        // SAFETY: `slot` is a disjoint buffer large and aligned enough for a `ChildOf` or a
        // `Children` (both hold only handles and a count, and need no drop, so the moved
        // value is simply forgotten).
        let moved = unsafe {
            self.storage_mut()
                .remove_into(entity, id, NonNull::from(&mut slot).cast())
        };
        debug_assert!(moved, "the entity had the link component");
    }

    /// Stores a relationship component on `entity`.
    ///
    /// # Safety
    /// `entity` is held; `T` is `ChildOf` or `Children`, with its id in `ids`.
    unsafe fn insert_link<T: crate::component::Component>(
        &mut self,
        entity: Entity,
        ids: LinkIds,
        value: T,
    ) -> Option<T> {
        let id = if std::any::TypeId::of::<T>() == std::any::TypeId::of::<ChildOf>() {
            ids.child_of
        } else {
            ids.children
        };
        let (storage, components) = self.storage_and_components();
        // SAFETY: forwarded contract: `entity` held, `id` is `T`'s id in `components`.
        unsafe { storage.insert(entity, id, value, components) }
    }

    /// Refuses an operation that would add or remove relationship component `id` directly.
    #[inline]
    pub(crate) fn refuse_link_component(
        &self,
        entity: Entity,
        id: crate::component::ComponentId,
    ) -> Result<(), EcsError> {
        match self.hierarchy {
            Some(ids) if ids.names(id) => Err(EcsError::HierarchyComponent {
                entity,
                component: ids.name(id),
            }),
            _ => Ok(()),
        }
    }
}
