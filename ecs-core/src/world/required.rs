//! Adding the components an entity's new components require (see
//! [`crate::component::required`]).

use std::ptr::NonNull;

use super::by_id::{PendingDrops, TempValue};
use super::World;
use crate::bundle::BundleId;
use crate::component::{ComponentId, Requirement};
use crate::entity::Entity;
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// Adds to `entity`, which just got bundle `bundle`, each component the bundle's types
    /// require that it lacks, made by its constructor; a value the entity holds is kept.
    /// Out of line and reached only for bundles whose types require something
    /// ([`Bundle::REQUIRES`](crate::bundle::Bundle::REQUIRES)).
    #[cold]
    #[inline(never)]
    pub(crate) fn add_required_of(&mut self, entity: Entity, bundle: BundleId) {
        if let Some(required) = self.bundles.required(bundle).cloned() {
            self.add_required(entity, &required);
        }
    }

    /// Adds to `entity` each of `required` it lacks, in one storage call (a table backend
    /// moves the row once). Every value is made before anything is stored: a constructor
    /// that panics leaves the entity as it was, the values made so far dropped.
    pub(crate) fn add_required(&mut self, entity: Entity, required: &[Requirement]) {
        let mut made = PendingDrops::default();
        let mut ids = Vec::new();
        for requirement in required {
            let id = requirement.id();
            if self.storage.contains(entity, id) {
                continue;
            }
            let info = self.components.info(id);
            let buffer = TempValue::new(info.layout());
            // SAFETY: a fresh, aligned buffer of the component's registered layout, holding
            // no value (the requirement's invariant asks no more).
            unsafe { requirement.make(buffer.ptr) };
            made.0.push((buffer, info.drop_fn()));
            ids.push(id);
        }
        if ids.is_empty() {
            return;
        }
        // Ownership passes to the storage with the call: from here on nothing drops the
        // values; the buffers are freed when this function returns (or unwinds).
        let buffers: Vec<TempValue> = std::mem::take(&mut made.0)
            .into_iter()
            .map(|(buffer, _)| buffer)
            .collect();
        let mut values: Vec<(ComponentId, NonNull<u8>)> = ids
            .iter()
            .copied()
            .zip(buffers.iter().map(|b| b.ptr))
            .collect();
        // SAFETY: the entity is live (the caller just stored its bundle), so held, and lacks
        // each of `values` (asked above), which are distinct (a bundle's requirements are);
        // each value is an initialised value of its component (`Send + Sync`, as every
        // component), made here and never used again but by the storage.
        unsafe {
            self.storage
                .insert_new_many(entity, &mut values, &self.components)
        };
        drop(buffers);
        for id in ids {
            if self.components.info(id).tracks_changes() {
                self.changes.on_added(id, entity);
            }
        }
    }
}
