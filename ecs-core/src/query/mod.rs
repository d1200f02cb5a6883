//! Queries: typed views over every entity that has a set of components.
//!
//! A query type `Q` ([`QueryData`]: `&T`, `&mut T`, [`Mut<T>`](crate::Mut), `Option<..>`,
//! `Entity` and tuples of them) and a filter `F` ([`QueryFilter`]: `With<T>`, `Without<T>`,
//! [`Added<T>`], [`Changed<T>`], [`Or`] and tuples) are turned once into a [`QueryState`]: a
//! [`QueryDescriptor`](crate::storage::QueryDescriptor) for the storage, the components read,
//! written and watched ([`Access`], checked for aliasing before any reference exists), the
//! backend's cache of matched tables, and the cursors of its change filters.
//!
//! A run either scans the storage's chunks — per chunk each fetch resolves its column once,
//! per row it is a pointer offset (dense) or a sparse look-up, decided at compile time where
//! the backend allows — or, when a change filter can drive it, visits only the entities in
//! the change logs since the query's previous run, by look-up ([`crate::change`]).
//! [`QueryIter::par_for_each`] runs either kind on rayon. Random access by entity is
//! [`QueryState::get`], or a [`QueryView`] for many look-ups in one borrow of the world.
//! A read-only query can also run through a shared world ([`QueryRefIter`], from
//! [`World::query_ref`](crate::World::query_ref)), on a state built for the call.

mod access;
mod any_of;
mod change_filter;
pub mod dynamic;
mod fetch;
mod filter;
mod has;
mod iter;
mod mut_fetch;
pub mod par;
mod ref_iter;
mod state;
mod tracked_ref;
mod view;
pub mod walk;

pub use access::{Access, QueryBuilder, QueryPlan};
pub use any_of::{AnyOf, AnyOfPart};
pub use change_filter::{Added, Changed, Or};
pub use dynamic::{DynFilter, DynItem, DynItemMut, DynQuery, DynQueryState, DynTerm};
pub use fetch::{ColumnFetch, QueryData, ReadOnlyQueryData};
pub use filter::{Allow, QueryFilter, With, Without};
pub use has::Has;
pub use iter::QueryIter;
pub use par::BatchSize;
pub use ref_iter::QueryRefIter;
pub(crate) use state::exactly_one;
pub use state::QueryState;
pub use tracked_ref::Ref;
pub use view::QueryView;
pub use walk::{QueryWalk, SlotWalk};

use crate::change::{ChangeRun, ChangeStore};
use crate::storage::Storage;
use crate::world::WorldView;

/// What a fetch may look at while a query runs: the storage, the change logs and the
/// query's change run (three references, copied into every chunk iterator).
pub struct FetchContext<'w, S: Storage> {
    storage: &'w S,
    changes: &'w ChangeStore,
    run: &'w ChangeRun,
}

impl<S: Storage> Clone for FetchContext<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Storage> Copy for FetchContext<'_, S> {}

impl<'w, S: Storage> FetchContext<'w, S> {
    pub(crate) fn new(world: WorldView<'w, S>, run: &'w ChangeRun) -> Self {
        FetchContext {
            storage: world.storage(),
            changes: world.changes(),
            run,
        }
    }

    /// The storage backend.
    #[inline]
    pub fn storage(&self) -> &'w S {
        self.storage
    }

    /// The world's change logs.
    #[inline]
    pub fn changes(&self) -> &'w ChangeStore {
        self.changes
    }

    /// What the query's change filters see in this run.
    #[inline]
    pub fn run(&self) -> &'w ChangeRun {
        self.run
    }
}
