//! Cloning an entity: a new entity with a copy of each component whose type opted in
//! ([`Component::CLONE`](crate::Component::CLONE)), named instances and their names
//! included, and optionally its whole subtree.

use super::by_id::MadeValues;
use super::World;
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
        // The copy's reactions run once it is linked beside the original.
        self.with_reactions_held(|world| {
            let copy = world.clone_components(entity);
            if let Some(parent) = world.parent(entity)? {
                world.set_parent(copy, parent)?;
            }
            Ok(copy)
        })
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
        // The copies' reactions run once the whole copy is linked.
        self.with_reactions_held(|world| {
            let root = world.clone_entity(entity)?;
            let mut pending = vec![(entity, root)];
            while let Some((original, copy)) = pending.pop() {
                let children: Vec<Entity> = world.children(original)?.collect();
                for child in children {
                    let child_copy = world.clone_components(child);
                    world.set_parent(child_copy, copy)?;
                    pending.push((child, child_copy));
                }
            }
            Ok(root)
        })
    }

    /// A new entity with a clone of each cloneable component of live `entity` (not its
    /// links), named instances indexed under their names.
    fn clone_components(&mut self, entity: Entity) -> Entity {
        let links = [
            self.components.id::<ChildOf>(),
            self.components.id::<Children>(),
        ];
        let mut made = MadeValues::default();
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
            // SAFETY: `value` is the entity's initialised value of `id`, which `&mut self`
            // keeps from any write; `clone` is `id`'s registered clone function, writing a
            // value of `id` into the fresh buffer of its layout; each registered id once.
            unsafe {
                made.make(&self.components, id, |buffer| clone(value, buffer));
            }
        }
        let copy = self.spawn(());
        // SAFETY: `copy` was just spawned empty: live, lacking every component.
        let ids = unsafe { self.store_made(copy, made) };
        for &id in &ids {
            // A fresh entity holds no name yet: each instance keeps its own.
            if let Some(instance) = self.components.info(id).instance() {
                self.index.add(copy.index(), id, instance.name());
            }
        }
        // What the copied components require and the copy lacks (a component that did not
        // opt into cloning), as for any entity that gets them.
        let required = self.components.required_by(&ids);
        if !required.is_empty() {
            self.add_required(copy, &required);
        }
        if self.reacts() {
            self.after_store(copy, &ids, &[]);
        }
        copy
    }
}
