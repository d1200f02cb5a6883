//! The world's part of a snapshot load's commit (see [`crate::snapshot`]): entities added
//! with handles announced in advance, stored a run of rows at a time from columns of values.
//!
//! Between [`World::alloc_loaded`] and the [`World::store_loaded`] calls that store every
//! allocated entity, the world's "live exactly when stored" invariant is broken: the loader
//! runs no user code in between and stores every entity before returning.

use std::ptr::NonNull;

use super::World;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// Flushes reserved entities, then makes room for `n` new ones and returns the handles
    /// [`World::alloc_loaded`] will give them (nothing is live yet: the world is unchanged
    /// but for spare capacity).
    pub(crate) fn prepare_loaded(&mut self, n: usize) -> Vec<Entity> {
        self.flush();
        self.entities.reserve(n);
        self.entities.upcoming(n).to_vec()
    }

    /// Makes the entities [`World::prepare_loaded`] announced live, in order. The caller
    /// stores every one of them with [`World::store_loaded`] before anything else touches
    /// the world.
    pub(crate) fn alloc_loaded(&mut self, announced: &[Entity]) {
        for &expected in announced {
            let entity = self.entities.alloc_reserved();
            debug_assert_eq!(entity, expected, "alloc hands out the announced handles");
        }
    }

    /// Stores `entities` (allocated by [`World::alloc_loaded`], not stored yet) with the
    /// values of `columns`: row `i` of each column is entity `i`'s.
    ///
    /// # Safety
    /// The entities are distinct and not stored yet; the components of `columns` are
    /// distinct and registered here; each pointer is to `entities.len()` initialised values
    /// of its component (outside the storage, usable on any thread), handed over: the
    /// caller never uses or drops them again.
    pub(crate) unsafe fn store_loaded(
        &mut self,
        entities: &[Entity],
        columns: &[(ComponentId, NonNull<u8>)],
    ) {
        let empty = self.bundles.info::<()>(&mut self.components);
        // SAFETY: the entities are live (allocated) and not held; `empty` is `()`'s info
        // against the registry; the columns as the caller promises.
        unsafe {
            self.storage
                .spawn_columns(entities, columns, empty, &self.components)
        };
    }

    /// Enters loaded named instance `id` of `entity` in the entity index (the loader
    /// checked that no other component of the entity has its name).
    pub(crate) fn index_loaded(&mut self, entity: Entity, id: ComponentId) {
        let instance = self
            .components
            .info(id)
            .instance()
            .expect("index_loaded is called for named instances");
        self.index.add(entity.index(), id, instance.name());
    }
}
