//! [`ComponentSet<T>`]: one component type's values in one sparse set, typed — the per-type
//! storage API (count, all values, all entities, add, has, get, remove; the removal-order
//! workloads of docs/workloads.md run it) on the
//! same [`SparseSet`] the sparse backend keeps each component in.
//!
//! ```text
//!   Count        len()                      number of values
//!   All          values() / values_mut()    the values, packed: a plain slice
//!   AllEntities  entities()                 their entities, parallel to values()
//!   Add          insert(e, v)               push at the end; the sparse index points there
//!   Has          contains(e)                one sparse look-up, generation checked
//!   Ref          get(e) / get_mut(e)        sparse look-up, then the dense value
//!   Remove       remove(e)                  swap-remove: the last value fills the hole, O(1)
//!                remove_ordered(e)          shift: every later value moves down, O(n)
//! ```
//!
//! Swap-removal keeps the values packed in O(1) but reorders them; shifting keeps their
//! order at a cost that grows with what follows the removed value: removing every value of
//! a set front to back moves n²/2 values. The `component_storage` example times both.

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use ecs_core::component::{Component, Components};
use ecs_core::layout::StorageUnit;
use ecs_core::{EcsError, Entity};

use crate::SparseSet;

/// The values of one component type `T`, keyed by entity (see the module docs).
///
/// # Invariants
/// `set` was made from `T`'s registered info in `registry`, so every value in it is a `T`.
pub struct ComponentSet<T: Component> {
    set: SparseSet,
    registry: Components,
    values: PhantomData<T>,
}

impl<T: Component> Default for ComponentSet<T> {
    fn default() -> Self {
        ComponentSet::new()
    }
}

impl<T: Component> ComponentSet<T> {
    /// An empty set; allocates only its small registry of one type.
    ///
    /// ```
    /// # use ecs_core::{Component, Entity};
    /// # use ecs_sparse::ComponentSet;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// let mut set = ComponentSet::<Health>::new();
    /// let e = Entity::new(3, 1).unwrap();
    /// assert_eq!(set.insert(e, Health(10)), Ok(None));
    /// assert!(set.contains(e));
    /// assert_eq!(set.get(e).map(|h| h.0), Some(10));
    /// assert_eq!(set.remove(e).map(|h| h.0), Some(10));
    /// assert_eq!(set.len(), 0);
    /// ```
    pub fn new() -> Self {
        let mut registry = Components::default();
        let id = registry.register::<T>();
        ComponentSet {
            set: SparseSet::new(registry.info(id)),
            registry,
            values: PhantomData,
        }
    }

    /// Count: how many entities have a value.
    #[inline]
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// True when no entity has a value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// All: the values, packed, parallel to [`ComponentSet::entities`].
    #[inline]
    pub fn values(&self) -> &[T] {
        // SAFETY: the set's data holds `len` initialised `T`s (type invariant) packed at
        // `size_of::<T>()` strides from `data_ptr` (aligned, dangling when empty or
        // zero-sized), and `&self` keeps them from being mutated or moved.
        unsafe { std::slice::from_raw_parts(self.set.data_ptr().cast::<T>().as_ptr(), self.len()) }
    }

    /// All, writable: every value, for a pass that updates them in place.
    #[inline]
    pub fn values_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `values`; `&mut self` makes this the only access to the values
        // (they live in the set's raw buffer, outside any borrow of the set).
        unsafe {
            std::slice::from_raw_parts_mut(self.set.data_ptr().cast::<T>().as_ptr(), self.len())
        }
    }

    /// AllEntities: the entities, in the order of [`ComponentSet::values`].
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        self.set.entities()
    }

    /// Add: gives `entity` a value, handing back the one it replaced.
    ///
    /// # Errors
    /// [`EcsError::IndexTaken`] when the set holds another generation of `entity`'s index
    /// (one of the two handles is stale); nothing is stored.
    pub fn insert(&mut self, entity: Entity, value: T) -> Result<Option<T>, EcsError> {
        if let Some(held) = self.held_under_index(entity) {
            return Err(EcsError::IndexTaken {
                held,
                given: entity,
            });
        }
        // SAFETY: the set holds `T`s (type invariant), a `Component`, so `Send + Sync`; the
        // index is free or held by this very handle (checked above), so adding cannot panic.
        Ok(unsafe { self.set.insert_or_replace(entity, value) })
    }

    /// The entity the set holds under `entity`'s index when it is another generation.
    fn held_under_index(&self, entity: Entity) -> Option<Entity> {
        let position = self.set.sparse().get(entity.index())? as u32 as usize;
        let held = self.set.entities()[position];
        (held != entity).then_some(held)
    }

    /// Has: whether `entity` (this generation) has a value.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.set.contains(entity)
    }

    /// Where `entity`'s value sits in [`ComponentSet::values`].
    #[inline]
    pub fn position(&self, entity: Entity) -> Option<usize> {
        self.set.dense_index(entity)
    }

    /// Ref: `entity`'s value.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        self.position(entity).map(|p| &self.values()[p])
    }

    /// Ref, writable: `entity`'s value.
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        let p = self.position(entity)?;
        Some(&mut self.values_mut()[p])
    }

    /// Remove: takes `entity`'s value out, moving the last value into its place (O(1); the
    /// order of the values changes).
    pub fn remove(&mut self, entity: Entity) -> Option<T> {
        // SAFETY: `remove_into` writes exactly one `T` (the set's type) into `out` when it
        // answers true.
        self.take_with(|set, out| unsafe { set.remove_into(entity, out) })
    }

    /// Remove, keeping the order of the values: every later value moves down one place
    /// (O(values after it)).
    pub fn remove_ordered(&mut self, entity: Entity) -> Option<T> {
        // SAFETY: as in `remove`; a standalone set belongs to no group.
        self.take_with(|set, out| unsafe { set.remove_ordered_into(entity, out) })
    }

    /// Runs a removal that moves one value into the slot it is given (answering true) or
    /// touches nothing (false), and hands the value back.
    fn take_with(&mut self, remove: impl FnOnce(&mut SparseSet, NonNull<u8>) -> bool) -> Option<T> {
        let mut out = MaybeUninit::<T>::uninit();
        let moved = remove(&mut self.set, NonNull::from(&mut out).cast());
        // SAFETY: `remove` answered true, so it moved an initialised `T` into `out`, which
        // nothing else owns now.
        moved.then(|| unsafe { out.assume_init() })
    }

    /// Removes every value (dropping them); pages and buffers stay for reuse.
    pub fn clear(&mut self) {
        self.set.clear();
    }

    /// Heap bytes of the set: values, entities, sparse pages (the small registry naming
    /// the type is not counted).
    pub fn memory_usage(&self) -> usize {
        self.set.memory_usage()
    }

    /// The set as a layout unit (rows, capacity, pages, bytes).
    pub fn layout(&self) -> StorageUnit {
        self.set.layout(&self.registry)
    }
}

impl<T: Component + std::fmt::Debug> std::fmt::Debug for ComponentSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.entities().iter().zip(self.values()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Name(String);
    impl Component for Name {
        type Mutability = ecs_core::Mutable;
    }

    fn e(index: u32) -> Entity {
        Entity::new(index, 1).unwrap()
    }

    fn names(set: &ComponentSet<Name>) -> Vec<&str> {
        set.values().iter().map(|n| n.0.as_str()).collect()
    }

    #[test]
    fn crud_and_both_removals() {
        let mut set = ComponentSet::<Name>::new();
        for (i, name) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
            assert_eq!(set.insert(e(i as u32 * 700), Name(name.into())), Ok(None));
        }
        assert_eq!(
            set.insert(e(0), Name("A".into())),
            Ok(Some(Name("a".into())))
        );
        assert_eq!(set.len(), 5);
        assert!(set.contains(e(700)) && !set.contains(e(1)));
        assert_eq!(set.get(e(1400)), Some(&Name("c".into())));
        set.get_mut(e(1400)).unwrap().0.push('!');
        assert_eq!(set.remove(e(700)), Some(Name("b".into())));
        assert_eq!(
            names(&set),
            ["A", "e", "c!", "d"],
            "the last value filled the hole"
        );
        assert_eq!(set.remove_ordered(e(0)), Some(Name("A".into())));
        assert_eq!(names(&set), ["e", "c!", "d"], "the rest kept their order");
        assert_eq!(set.entities(), [e(2800), e(1400), e(2100)]);
        for (i, &entity) in set.entities().iter().enumerate() {
            assert_eq!(set.position(entity), Some(i));
        }
        assert_eq!((set.remove(e(0)), set.remove_ordered(e(0))), (None, None));
        assert_eq!(set.layout().rows, 3);
        assert_eq!(set.layout().bytes, set.memory_usage());
    }

    #[test]
    fn another_generation_of_a_held_index_is_refused() {
        let mut set = ComponentSet::<Name>::new();
        let old = Entity::new(4, 1).unwrap();
        let new = Entity::new(4, 2).unwrap();
        set.insert(old, Name("old".into())).unwrap();
        assert_eq!(
            set.insert(new, Name("new".into())),
            Err(EcsError::IndexTaken {
                held: old,
                given: new
            })
        );
        assert_eq!((set.len(), set.get(new)), (1, None));
    }
}
