//! [`HybridPlace`]: one entity found in a [`HybridStorage`], for reads of any number of its
//! components (its table row found once, its sparse components each read by its set).

use std::ptr::NonNull;

use ecs_archetype::table::TableRow;
use ecs_core::component::{Component, ComponentId, StorageKind};
use ecs_core::entity::Entity;
use ecs_core::storage::{ChunkRow, EntityPlace, Storage};

use crate::storage::HybridStorage;

/// An entity found in a [`HybridStorage`]: its table row (found once) for table components,
/// the entity itself for sparse ones (each read by its set).
#[derive(Clone, Copy)]
pub struct HybridPlace<'a> {
    pub(crate) storage: &'a HybridStorage,
    pub(crate) row: TableRow<'a>,
    pub(crate) entity: Entity,
}

impl EntityPlace for HybridPlace<'_> {
    #[inline]
    fn ptr(&self, component: ComponentId) -> Option<NonNull<u8>> {
        match self.storage.kind(component)? {
            StorageKind::Table => self.row.ptr(component),
            StorageKind::Sparse => self.storage.sparse.get_ptr(self.entity, component),
        }
    }

    /// The half `T::STORAGE` names, with no look-up of the kind: a typed component that is
    /// not movable is kept as its declared kind (the registry records `T::STORAGE`), and a
    /// half that never stored it answers `None`, as `ptr` does. A movable type is read as
    /// `ptr` reads it.
    #[inline]
    fn ptr_of<T: Component>(&self, component: ComponentId) -> Option<NonNull<u8>> {
        if T::MOVABLE {
            return self.ptr(component);
        }
        match T::STORAGE {
            StorageKind::Table => self.row.ptr_of::<T>(component),
            StorageKind::Sparse => self.storage.sparse.get_ptr(self.entity, component),
        }
    }

    /// The table row's: the types the "Rows" promise covers (`is_dense`, table kind) are
    /// read from the row exactly as the table backend reads them.
    #[inline]
    fn chunk_row(&self) -> Option<ChunkRow> {
        self.row.chunk_row()
    }
}
