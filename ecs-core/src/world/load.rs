//! The world's part of a snapshot load's commit (and of `spawn_zeroed`): entities added
//! with handles announced in advance, stored a run of rows at a time from columns of values.
//!
//! Between [`World::alloc_loaded`] and the [`World::store_loaded`] calls that store every
//! allocated entity, the world's "live exactly when stored" invariant is broken: the loader
//! runs no user code in between and stores every entity before returning.

use std::ops::Range;

use super::World;
#[cfg(feature = "serde")]
use crate::component::ComponentId;
#[cfg(feature = "serde")]
use crate::entity::Entity;
use crate::storage::{ColumnValues, Storage};

impl<S: Storage> World<S> {
    /// Flushes reserved entities, then makes room for `n` new ones, whose handles
    /// [`Entities::upcoming`](crate::entities::Entities::upcoming) now tells (nothing is
    /// live yet: the world is unchanged but for spare capacity). Returns where they will be
    /// in the live list.
    pub(crate) fn prepare_loaded(&mut self, n: usize) -> usize {
        self.flush();
        self.entities.reserve(n);
        self.entities.len()
    }

    /// Makes the `n` entities [`World::prepare_loaded`] announced live, in order (rows
    /// `base..base + n` of the live list). The caller stores every one of them with
    /// [`World::store_loaded`] before anything else touches the world.
    pub(crate) fn alloc_loaded(&mut self, n: usize) {
        self.entities.alloc_upcoming(n);
    }

    /// Stores the live entities at `rows` of the live list (allocated by
    /// [`World::alloc_loaded`], not stored yet) with the values of `columns`: row `i` of each
    /// column is the `i`-th entity's.
    ///
    /// # Safety
    /// The entities are not stored yet; the columns as [`Storage::spawn_columns`] requires
    /// them (distinct components registered here, one owned value per entity each, handed
    /// over; a buffer only when it holds exactly those values).
    pub(crate) unsafe fn store_loaded(
        &mut self,
        rows: Range<usize>,
        columns: &mut [ColumnValues<'_>],
    ) {
        let empty = self.bundles.info::<()>(&mut self.components);
        let entities = &self.entities.alive()[rows];
        // SAFETY: the entities are live (allocated), distinct and not held; `empty` is
        // `()`'s info against the registry; the columns as the caller promises.
        unsafe {
            self.storage
                .spawn_columns(entities, columns, empty, &self.components)
        };
    }

    /// Enters loaded named instance `id` of `entity` in the entity index (the loader
    /// checked that no other component of the entity has its name).
    #[cfg(feature = "serde")]
    pub(crate) fn index_loaded(&mut self, entity: Entity, id: ComponentId) {
        let instance = self
            .components
            .info(id)
            .instance()
            .expect("index_loaded is called for named instances");
        self.index.add(entity.index(), id, instance.name());
    }
}
