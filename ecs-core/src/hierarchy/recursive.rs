//! [`World::despawn_recursive`]: a subtree despawned children first, with no allocation and
//! with the links exact at every step, so a panicking `Drop` midway leaves a consistent
//! (smaller) tree.
//!
//! The walk is post-order through the links themselves: start at the leftmost leaf; after
//! despawning an entity, go to the leftmost leaf of its next sibling, or else to its parent
//! (whose children are all gone by then). An entity is always its parent's *first*
//! remaining child when its turn comes, so taking it out of the list is two writes (the
//! parent's `first` and count, the next sibling's `prev`); the parent's emptied `Children`
//! goes with the parent, despawned next.

use super::LinkIds;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

impl<S: Storage> World<S> {
    /// Despawns `entity` and all its descendants, and unlinks `entity` from its parent.
    ///
    /// Every component of every entity of the subtree is dropped once. If a `Drop` panics,
    /// the entity being despawned is gone, the links of what is left are exact (the
    /// remaining part of the subtree is a tree of its own, its root no longer a child of
    /// the old parent), and the panic goes on.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let root = world.spawn(());
    /// let branch = world.spawn_child(root, ()).unwrap();
    /// let leaf = world.spawn_child(branch, ()).unwrap();
    /// let other = world.spawn_child(root, ()).unwrap();
    /// world.despawn_recursive(branch).unwrap();
    /// assert!(!world.contains(branch) && !world.contains(leaf));
    /// assert_eq!(world.children(root).unwrap().collect::<Vec<_>>(), [other]);
    /// ```
    pub fn despawn_recursive(&mut self, entity: Entity) -> Result<(), EcsError> {
        let reacting = self.enter();
        self.check(entity)?;
        let Some(ids) = self.hierarchy else {
            return self.despawn(entity);
        };
        if reacting {
            // Every entity's despawn reactions, descendants first, with the whole subtree
            // in place: a panicking hook leaves it all there.
            let mut subtree: Vec<Entity> = self.descendants(entity)?.collect();
            subtree.reverse();
            subtree.push(entity);
            for &member in &subtree {
                self.before_despawn(member);
            }
        }
        // From here on the subtree is a tree of its own (the root's `ChildOf` is stale until
        // the root goes; the guard removes it if a panic stops the walk first).
        self.unlink(ids, entity);
        let mut walk = SubtreeDespawn {
            world: self,
            ids,
            root: entity,
            emptied: None,
        };
        walk.run();
        drop(walk);
        if reacting {
            self.settle();
        }
        Ok(())
    }
}

/// The post-order walk of [`World::despawn_recursive`]; its `Drop` repairs what a panic
/// interrupted.
///
/// # Invariant
/// Between steps, every live entity's links are exact except: the root's `ChildOf` names a
/// parent that no longer lists it, and `emptied` (when set) has a `Children` with count 0.
/// Both are repaired by `Drop` if still live when the walk stops early.
struct SubtreeDespawn<'w, S: Storage> {
    world: &'w mut World<S>,
    ids: LinkIds,
    root: Entity,
    emptied: Option<Entity>,
}

impl<S: Storage> SubtreeDespawn<'_, S> {
    fn run(&mut self) {
        let mut at = self.leftmost_leaf(self.root);
        loop {
            let link = if at == self.root {
                None
            } else {
                self.world.link_of(self.ids, at)
            };
            if let Some(link) = link {
                self.pop_first_child(link.parent, link.next);
            }
            self.world.despawn_unlinked(at);
            let Some(link) = link else {
                return; // the root
            };
            at = match link.next {
                Some(next) => self.leftmost_leaf(next),
                None => link.parent,
            };
        }
    }

    /// Takes `parent`'s first child out of its list; `next` is that child's next sibling.
    fn pop_first_child(&mut self, parent: Entity, next: Option<Entity>) {
        let ids = self.ids;
        let head = self
            .world
            .children_mut(ids, parent)
            .expect("a child's parent has Children");
        head.count -= 1;
        match next {
            Some(next) => {
                head.first = next;
                self.world.child_of_mut(ids, next).expect("sibling").prev = None;
            }
            None => self.emptied = Some(parent),
        }
    }

    /// The first entity reached from `entity` by first-child links that has no child.
    fn leftmost_leaf(&self, mut entity: Entity) -> Entity {
        while let Some((first, _, _)) = self.world.head_of(self.ids, entity) {
            entity = first;
        }
        entity
    }
}

impl<S: Storage> Drop for SubtreeDespawn<'_, S> {
    fn drop(&mut self) {
        let (world, ids) = (&mut *self.world, self.ids);
        if let Some(parent) = self.emptied {
            if matches!(world.head_of(ids, parent), Some((_, _, 0))) {
                world.remove_link_component(parent, ids.children);
            }
        }
        if world.link_of(ids, self.root).is_some() {
            world.remove_link_component(self.root, ids.child_of);
        }
    }
}
