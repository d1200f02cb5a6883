//! [`QueryRefIter`]: a read-only query run through a shared world, owning the query state it
//! iterates (what [`World::query_ref`](crate::World::query_ref) returns).
//!
//! [`World::query`](crate::World::query) keeps each query type's state in the world, which
//! takes `&mut World` (the state's table cache is updated, new component types are
//! registered). Through `&World` nothing can be stored or registered, so `query_ref` builds a
//! state for the one call, without registering ([`QueryState::resolve`]), and the iterator
//! owns it:
//!
//! ```text
//!   QueryRefIter<'w>
//!   +-----------------------------+         heap (one allocation per call)
//!   | iter: QueryIter<'w> --------+----+    +----------------------------+
//!   |   (dropped first)           |    +--> | QueryState: descriptor,    |
//!   | state: OwnedState ----------+-------> |   fetch states, cache      |
//!   |   (frees the state)         |         +----------------------------+
//!   +-----------------------------+
//!   items: &'w T into the world's storage; they never point into the state
//! ```

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use super::{BatchSize, QueryFilter, QueryIter, QueryState, ReadOnlyQueryData};
use crate::storage::Storage;
use crate::world::World;

/// The items of a read-only query run through a shared world: made by
/// [`World::query_ref`](crate::World::query_ref) and
/// [`World::query_filtered_ref`](crate::World::query_filtered_ref), which see there.
///
/// It owns the query state it runs (built for the call), and its items borrow only the
/// world, so they may outlive the iterator. Dropping it frees the state, so (unlike
/// [`QueryIter`]) it counts as a use of the world's borrow where it is dropped: drop it, or
/// let it go out of scope, before changing the world.
///
/// # Invariant
/// `iter` is initialised exactly while `state` is `Some`, and then borrows the state
/// `state` owns, which stays at one heap address and is only read meanwhile. `Drop` drops
/// `iter` before the `state` field frees the allocation.
///
/// `iter` is a `MaybeUninit` for a second reason: its borrows of the state end when the
/// state is freed, which may happen inside a function the iterator was moved into (an
/// adapter's `collect`). References in a moved value are asserted valid for the whole call
/// they are passed to; inside a `MaybeUninit` they are not, which is what they need.
pub struct QueryRefIter<'w, Q: ReadOnlyQueryData, F: QueryFilter, S: Storage + 'w> {
    iter: MaybeUninit<QueryIter<'w, Q, F, S>>,
    state: Option<OwnedState<Q, F, S>>,
}

/// A run taken out of a [`QueryRefIter`] and the state it borrows (drop the run first).
type Run<'w, Q, F, S> = (QueryIter<'w, Q, F, S>, OwnedState<Q, F, S>);

/// A query state on the heap, freed on drop.
///
/// A raw pointer rather than a `Box`: moving a `Box` asserts unique access to what it
/// points to, which would invalidate the shared borrows the iterator beside it holds.
struct OwnedState<Q: ReadOnlyQueryData, F: QueryFilter, S: Storage> {
    ptr: NonNull<QueryState<Q, F, S>>,
    owns: PhantomData<QueryState<Q, F, S>>,
}

impl<Q: ReadOnlyQueryData, F: QueryFilter, S: Storage> Drop for OwnedState<Q, F, S> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `Box::leak` (`QueryRefIter::new`) and is freed only here;
        // the iterator borrowing it was dropped first (`QueryRefIter`'s invariant).
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, S: Storage + 'w> QueryRefIter<'w, Q, F, S> {
    /// Resolves `Q` and `F` against `world` without registering anything, and starts
    /// iterating (the state's change filters pass every entity, as on a first run).
    pub(crate) fn new(world: &'w World<S>) -> Self
    where
        Q: 'w,
        F: 'w,
    {
        let Some(mut state) = QueryState::<Q, F, S>::resolve(world) else {
            return QueryRefIter {
                iter: MaybeUninit::uninit(),
                state: None,
            };
        };
        state.update_cache(world.view());
        let state = OwnedState {
            ptr: NonNull::from(Box::leak(Box::new(state))),
            owns: PhantomData,
        };
        // SAFETY: the allocation lives until `state` is dropped, after the iterator (the
        // type's invariant), and nothing writes it meanwhile; the iterator's items borrow
        // only the world, never the state (the `QueryData` contract), so `'w` may outlast it.
        let shared: &'w QueryState<Q, F, S> = unsafe { state.ptr.as_ref() };
        // SAFETY: the query only reads and `&World` only hands out shared borrows; the cache
        // was updated just now, with the world borrowed since; the state never begins a run
        // (`resolve` made no change logs), so no other iterator of it exists.
        let iter = unsafe { shared.iter_prepared(world.view()) };
        QueryRefIter {
            iter: MaybeUninit::new(iter),
            state: Some(state),
        }
    }

    /// The run and the state it borrows, leaving `self` empty (`None` if it was); the
    /// caller drops the run first.
    fn take_run(&mut self) -> Option<Run<'w, Q, F, S>> {
        let state = self.state.take()?;
        // SAFETY: `iter` is initialised while `state` was `Some` (invariant); with `state`
        // now `None`, nothing reads or drops it again.
        let iter = unsafe { self.iter.assume_init_read() };
        Some((iter, state))
    }

    /// Calls `f` on every remaining item, in parallel when the run is large enough (see
    /// [`QueryIter::par_for_each`]).
    pub fn par_for_each(self, f: impl Fn(Q::Item<'w>) + Send + Sync) {
        self.par_for_each_batched(BatchSize::Auto, f);
    }

    /// [`QueryRefIter::par_for_each`] with an explicit batching policy.
    pub fn par_for_each_batched(mut self, batch: BatchSize, f: impl Fn(Q::Item<'w>) + Send + Sync) {
        if let Some((iter, state)) = self.take_run() {
            iter.par_for_each_batched(batch, f);
            drop(state);
        }
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, S: Storage + 'w> Drop for QueryRefIter<'w, Q, F, S> {
    fn drop(&mut self) {
        if self.state.is_some() {
            // SAFETY: `iter` is initialised while `state` is `Some` (invariant) and dropped
            // only here, before the `state` field frees what it borrows.
            unsafe { self.iter.assume_init_drop() };
        }
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, S: Storage + 'w> Iterator
    for QueryRefIter<'w, Q, F, S>
{
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        self.state.as_ref()?; // nothing to run: the query matches nothing
                              // SAFETY: `iter` is initialised while `state` is `Some` (invariant).
        unsafe { self.iter.assume_init_mut() }.next()
    }

    #[inline]
    fn fold<B, G: FnMut(B, Self::Item) -> B>(mut self, init: B, g: G) -> B {
        match self.take_run() {
            Some((iter, state)) => {
                let acc = iter.fold(init, g);
                drop(state);
                acc
            }
            None => init,
        }
    }
}
