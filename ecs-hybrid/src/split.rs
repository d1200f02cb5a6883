//! How the hybrid splits a spawned bundle: table components into the row, sparse ones into
//! the sparse half's sets (the archetype backend's [`OffTable`] hook).

use std::ptr::NonNull;

use ecs_archetype::split::OffTable;
use ecs_core::component::{Component, ComponentId, Components, StorageKind};
use ecs_core::entity::Entity;
use ecs_core::storage::Storage;
use ecs_sparse::SparseStorage;

/// The hybrid's split of a spawned bundle (see [`ecs_archetype::split`]): table components
/// go to the table row, sparse ones into the sparse half's sets.
pub(crate) struct SparseFields<'a>(pub(crate) &'a mut SparseStorage);

// SAFETY: typed components are registered with `T::STORAGE` (a named instance of `T` with
// `T`'s storage kind), so the two answers agree, and the kind of a type that is not movable
// never changes (`World::set_storage` refuses it). A movable type's kind may change: the
// hybrid forgets its cached bundles with every move (`HybridStorage::migrate`).
unsafe impl OffTable for SparseFields<'_> {
    #[inline(always)]
    fn in_tables<T: Component>() -> bool {
        T::STORAGE == StorageKind::Table
    }

    #[inline]
    fn id_in_tables(id: ComponentId, components: &Components) -> bool {
        components.info(id).storage() == StorageKind::Table
    }

    fn store<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    ) {
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: the entity is new, so it lacks this component; the value is an owned `T`
        // (the component `id`, by the `Bundle` contract) that the `ManuallyDrop` keeps us
        // from dropping.
        unsafe {
            self.0
                .insert_new(entity, id, NonNull::from(&*value).cast(), components)
        }
    }
}
