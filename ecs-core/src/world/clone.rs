//! Cloning an entity: a new entity with a copy of each component whose type opted in
//! ([`Component::CLONE`](crate::Component::CLONE)), named instances and their names
//! included, and optionally its whole subtree.

use std::ptr::NonNull;

use super::by_id::{PendingDrops, TempValue};
use super::World;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::hierarchy::{ChildOf, Children};
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// Spawns a copy of `entity`: every component whose type opted into cloning
    /// (`#[component(clone)]` on a type that is `Clone`, or
    /// [`Component::CLONE`](crate::Component::CLONE)) is cloned, named instances under their
    /// names; components that did not opt in are left out, and
    /// what the copied ones require is added as for any entity that gets them. The copy
    /// gets the same parent as `entity` (a sibling) and no children; see
    /// [`World::clone_subtree`] for those.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// # Panics
    /// If a component's `clone` panics: nothing is spawned, the copies made so far dropped.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component, Clone, Debug, PartialEq)]
    /// #[component(clone)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Unique; // not cloneable: left out
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(3), Unique));
    /// let copy = world.clone_entity(e).unwrap();
    /// assert_eq!(world.get::<Hp>(copy), Some(&Hp(3)));
    /// assert!(!world.has::<Unique>(copy));
    /// ```
    pub fn clone_entity(&mut self, entity: Entity) -> Result<Entity, EcsError> {
        self.flush();
        self.check(entity)?;
        let copy = self.clone_components(entity);
        if let Some(parent) = self.parent(entity)? {
            self.set_parent(copy, parent)?;
        }
        Ok(copy)
    }

    /// [`World::clone_entity`] of `entity` and of all its descendants, the copies linked
    /// as the originals are (children in the same order); the copy of `entity` gets its
    /// parent. Returns the copy of `entity`.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// # Panics
    /// As [`World::clone_entity`]; the copies spawned before the panic stay in the world.
    pub fn clone_subtree(&mut self, entity: Entity) -> Result<Entity, EcsError> {
        let root = self.clone_entity(entity)?;
        let mut pending = vec![(entity, root)];
        while let Some((original, copy)) = pending.pop() {
            let children: Vec<Entity> = self.children(original)?.collect();
            for child in children {
                let child_copy = self.clone_components(child);
                self.set_parent(child_copy, copy)?;
                pending.push((child, child_copy));
            }
        }
        Ok(root)
    }

    /// A new entity with a clone of each cloneable component of live `entity` (not its
    /// links), named instances indexed under their names.
    fn clone_components(&mut self, entity: Entity) -> Entity {
        let links = [
            self.components.id::<ChildOf>(),
            self.components.id::<Children>(),
        ];
        let mut made = PendingDrops::default();
        let mut ids: Vec<ComponentId> = Vec::new();
        for info in self.components.iter() {
            let id = info.id();
            if links.contains(&Some(id)) {
                continue;
            }
            let (Some(clone), Some(value)) = (
                self.components.clone_fn(id),
                self.storage.get_ptr(entity, id),
            ) else {
                continue;
            };
            let buffer = TempValue::new(info.layout());
            // SAFETY: `value` is the entity's initialised value of `id`, which `&mut self`
            // keeps from any write; `buffer` is an aligned buffer of its layout holding no
            // value; `clone` is `id`'s registered clone function.
            unsafe { clone(value, buffer.ptr) };
            made.0.push((buffer, info.drop_fn()));
            ids.push(id);
        }
        // Ownership of the clones passes to the storage below: nothing drops them from
        // here on; the buffers are freed when this function returns (or unwinds).
        let buffers: Vec<TempValue> = std::mem::take(&mut made.0)
            .into_iter()
            .map(|(buffer, _)| buffer)
            .collect();
        let mut values: Vec<(ComponentId, NonNull<u8>)> = ids
            .iter()
            .copied()
            .zip(buffers.iter().map(|b| b.ptr))
            .collect();
        let copy = self.spawn(());
        // SAFETY: `copy` was just spawned empty (live, held, lacking every id); the ids
        // are distinct (one per registered component); each value is an initialised clone
        // of its component, made here and used by the storage alone from now on.
        unsafe {
            self.storage
                .insert_new_many(copy, &mut values, &self.components)
        };
        drop(buffers);
        for &id in &ids {
            let info = self.components.info(id);
            if let Some(instance) = info.instance() {
                // A fresh entity holds no name yet: each instance keeps its own.
                self.index.add(copy.index(), id, instance.name());
            }
            if info.tracks_changes() {
                self.changes.on_added(id, copy);
            }
        }
        // What the copied components require and the copy lacks (a component that did not
        // opt into cloning), as for any entity that gets them.
        let required = self.components.required_by(&ids);
        if !required.is_empty() {
            self.add_required(copy, &required);
        }
        copy
    }
}
