//! Query chunks: a query is driven from the smallest set it requires.
//!
//! A join over sparse sets walks one set's dense arrays and looks every entity up in the
//! others. Which set drives decides the cost: every driving row costs one look-up per other
//! component, and the rows that lack one are wasted. So the driver is the *smallest* set
//! among the query's required components:
//!
//! ```text
//!   query (&mut Position, &Velocity, With<Player>)
//!
//!   Position  [10 000 entities]   \
//!   Velocity  [ 2 000 entities]    > drive from Player: 3 rows, each looked up in
//!   Player    [     3 entities]   /  Position and Velocity (6 look-ups, not 20 000)
//! ```
//!
//! The storage yields a single chunk whose rows are the driver's dense entities. The
//! driver's own slot answers `Dense` (its data array is parallel to those entities, so the
//! fetch is a pointer offset); other components answer `Sparse` (their set, for a look-up)
//! or `Absent` when no value of them was ever stored. If a required component has no set at
//! all, nothing can match and no chunk is yielded. A query with no required component
//! (only `Option<&T>`, `Without<T>`, `Entity`) walks every live entity.

use ecs_core::component::ComponentId;
use ecs_core::storage::{ColumnAccess, QueryChunk, QueryDescriptor};
use ecs_core::Entity;

use crate::sparse_set::SparseSet;
use crate::storage::SparseStorage;

/// Where a query's rows come from.
#[derive(Debug)]
pub(crate) enum Driver<'a> {
    /// No required component: every live entity is a candidate.
    Alive,
    /// The smallest set among the required components.
    Set(ComponentId, &'a SparseSet),
    /// A required component has no set, so no entity can match.
    NoMatch,
}

impl<'a> Driver<'a> {
    /// Picks the smallest set among `descriptor`'s required slots.
    pub(crate) fn choose(storage: &'a SparseStorage, descriptor: &QueryDescriptor) -> Driver<'a> {
        let mut driver = Driver::Alive;
        for id in descriptor.required() {
            let Some(set) = storage.set(id) else {
                return Driver::NoMatch;
            };
            match driver {
                Driver::Set(_, best) if best.len() <= set.len() => {}
                _ => driver = Driver::Set(id, set),
            }
        }
        driver
    }
}

/// The single chunk of a sparse-storage query (see the module docs).
pub struct SparseChunk<'a> {
    storage: &'a SparseStorage,
    descriptor: &'a QueryDescriptor,
    entities: &'a [Entity],
    driver: Option<ComponentId>,
}

/// The chunks of one sparse-storage query: none or one.
pub type SparseChunks<'a> = std::option::IntoIter<SparseChunk<'a>>;

impl<'a> SparseChunk<'a> {
    /// A chunk over `entities`: the dense entities of `driver`'s set, or every live entity
    /// when `driver` is `None`.
    pub(crate) fn new(
        storage: &'a SparseStorage,
        descriptor: &'a QueryDescriptor,
        entities: &'a [Entity],
        driver: Option<ComponentId>,
    ) -> SparseChunk<'a> {
        SparseChunk {
            storage,
            descriptor,
            entities,
            driver,
        }
    }

    /// The component whose set drives the chunk, if any.
    pub fn driver(&self) -> Option<ComponentId> {
        self.driver
    }
}

impl<'a> QueryChunk<'a> for SparseChunk<'a> {
    type Lookup = SparseSet;

    #[inline]
    fn entities(&self) -> &'a [Entity] {
        self.entities
    }

    #[inline]
    fn column(&self, slot: usize) -> ColumnAccess<'a, SparseSet> {
        let id = self.descriptor.slots()[slot].component;
        match self.storage.set(id) {
            Some(set) if Some(id) == self.driver => ColumnAccess::Dense(set.data_ptr()),
            Some(set) => ColumnAccess::Sparse(set),
            None => ColumnAccess::Absent,
        }
    }
}

impl std::fmt::Debug for SparseChunk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseChunk")
            .field("rows", &self.entities.len())
            .field("driver", &self.driver)
            .finish()
    }
}

#[cfg(test)]
mod tests;
