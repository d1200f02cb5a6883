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
//!
//! An owning group ([`crate::group`]) whose components the query all requires is a better
//! driver when it is no larger than the smallest set: its rows are the packed front of its
//! sets, parallel in all of them, so every owned slot answers `Dense` and only components
//! outside the group are looked up.
//!
//! Without a group, sets are often aligned anyway: entities spawned with a bundle, or given
//! a component in a loop, sit in the same order in each set. So before answering `Sparse`,
//! a slot checks whether its set holds the chunk's rows as one consecutive run
//! ([`SparseSet::aligned_with`]: one look-up and a `memcmp` of the ids, stopping at the
//! first difference); if so it answers `Dense` at that run, and the join walks both sets
//! like a table. When the sets are not aligned the check costs one look-up, or at worst one
//! extra pass over the ids.
//!
//! ```text
//!   driver D:   [ e7 e8 e9 ]          C: [ e1 e2 e7 e8 e9 e4 ]  -> C's run at 2..5 equals
//!                                                                the rows: Dense at 2
//! ```

use ecs_core::component::ComponentId;
use ecs_core::storage::{ColumnAccess, QueryChunk, QueryDescriptor};
use ecs_core::Entity;

use crate::group::Group;
use crate::sparse_set::SparseSet;
use crate::storage::SparseStorage;

/// Where a query's rows come from.
#[derive(Debug)]
pub(crate) enum Driver<'a> {
    /// No required component: every live entity is a candidate.
    Alive,
    /// The smallest set among the required components.
    Set(&'a SparseSet),
    /// A group whose owned components are all required, no larger than any required set;
    /// with the set of its first owned component.
    Group(&'a Group, &'a SparseSet),
    /// A required component has no set, so no entity can match.
    NoMatch,
}

impl<'a> Driver<'a> {
    /// Picks the smallest set among `descriptor`'s required slots, or a group over required
    /// components that is no larger.
    #[inline]
    pub(crate) fn choose(storage: &'a SparseStorage, descriptor: &QueryDescriptor) -> Driver<'a> {
        let mut smallest: Option<&SparseSet> = None;
        for id in descriptor.required() {
            let Some(set) = storage.set(id) else {
                return Driver::NoMatch;
            };
            if smallest.is_none_or(|best| set.len() < best.len()) {
                smallest = Some(set);
            }
        }
        let Some(smallest) = smallest else {
            return Driver::Alive;
        };
        let usable = |group: &&Group| {
            group.len() <= smallest.len()
                && group
                    .owned()
                    .iter()
                    .all(|c| descriptor.required().any(|r| r == *c))
                && !group
                    .owned()
                    .iter()
                    .any(|c| descriptor.excluded().any(|x| x == *c))
        };
        match storage
            .groups()
            .iter()
            .filter(usable)
            .min_by_key(|g| g.len())
        {
            Some(group) => {
                let first = storage.set(group.owned()[0]).expect("owned sets exist");
                Driver::Group(group, first)
            }
            None => Driver::Set(smallest),
        }
    }

    /// The chunk this driver yields, if any.
    #[inline]
    pub(crate) fn chunk(
        self,
        storage: &'a SparseStorage,
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> Option<SparseChunk<'a>> {
        let (entities, dense): (&[Entity], &[ComponentId]) = match self {
            Driver::Alive => (alive, &[]),
            Driver::Set(set) => (set.entities(), std::slice::from_ref(set.component_ref())),
            Driver::Group(group, first) => (&first.entities()[..group.len()], group.owned()),
            Driver::NoMatch => return None,
        };
        Some(SparseChunk {
            storage,
            descriptor,
            entities,
            dense,
        })
    }
}

/// The single chunk of a sparse-storage query (see the module docs).
///
/// # Invariant
/// Every set of a component in `dense` holds, at each position `p < entities.len()`, the
/// entity `entities[p]` (its data is parallel to the rows). (Other sets answer `Dense`
/// only after [`SparseSet::aligned_with`] found the rows as one run in them.)
pub struct SparseChunk<'a> {
    storage: &'a SparseStorage,
    descriptor: &'a QueryDescriptor,
    entities: &'a [Entity],
    dense: &'a [ComponentId],
}

/// The chunks of one sparse-storage query: none or one.
pub type SparseChunks<'a> = std::option::IntoIter<SparseChunk<'a>>;

impl<'a> SparseChunk<'a> {
    /// The component whose set drives the chunk (a group's first owned component), if any.
    pub fn driver(&self) -> Option<ComponentId> {
        self.dense.first().copied()
    }

    /// The components whose data is parallel to the chunk's rows (answered `Dense`): the
    /// driving set's, or every component of the driving group.
    pub fn dense(&self) -> &'a [ComponentId] {
        self.dense
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
            Some(set) if self.dense.contains(&id) => ColumnAccess::Dense(set.data_ptr()),
            Some(set) => match set.aligned_with(self.entities) {
                Some(run) => ColumnAccess::Dense(run),
                None => ColumnAccess::Sparse(set),
            },
            None => ColumnAccess::Absent,
        }
    }
}

impl std::fmt::Debug for SparseChunk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseChunk")
            .field("rows", &self.entities.len())
            .field("dense", &self.dense)
            .finish()
    }
}

#[cfg(test)]
mod tests;
