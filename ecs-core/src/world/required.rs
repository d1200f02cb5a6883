//! Adding the components an entity's new components require (see
//! [`crate::component::required`]).

use super::by_id::MadeValues;
use super::World;
use crate::bundle::BundleId;
use crate::component::Requirement;
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
        let mut made = MadeValues::default();
        for requirement in required {
            let id = requirement.id();
            if self.storage.contains(entity, id) {
                continue;
            }
            // SAFETY: the requirement writes a value of its component `id` into the fresh
            // buffer of its layout (`Requirement`'s invariant); a bundle's requirements
            // are distinct.
            unsafe {
                made.make(&self.components, id, |buffer| requirement.make(buffer));
            }
        }
        if made.ids().is_empty() {
            return;
        }
        // SAFETY: the entity is live (the caller just stored its bundle) and lacks each
        // made component (asked above).
        unsafe { self.store_made(entity, made) };
    }
}
