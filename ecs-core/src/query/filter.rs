//! [`QueryFilter`]: conditions on which entities a query visits, without fetching values.
//!
//! Filters are `()`, [`With<T>`], [`Without<T>`], the change filters
//! [`Added<T>`](super::Added) and [`Changed<T>`](super::Changed), [`Or<(..)>`](super::Or), and
//! tuples (all must hold).

use std::marker::PhantomData;

use super::{ColumnFetch, DynFilter, FetchContext, QueryBuilder};
use crate::change::ChangeProbe;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{SlotRole, Storage};

/// A condition on the entities a query visits.
///
/// A filter is checked two ways: per row of a chunk (`fetch_chunk` + `filter_row`, the scan)
/// and per entity by look-up (`matches_entity`, used when a change log drives the query and
/// by `get`). Both must agree.
///
/// # Safety
/// * `init` does not initialise a [`QueryData`](super::QueryData) (its slots would be
///   relaxed to `Optional` inside an `Or`, while its fetch reads them as the role it gave).
/// * `filter_row` answers from what its fetch holds (pointers into the storage and its
///   look-ups) and never hands out references to component values.
/// * A fetch, and its clones, may be used from other threads (by `par_for_each`): it may
///   hold only pointers into the storage and shared references to `Sync` data.
/// * `matches_entity` answers false for an entity lacking a component of a `Required` slot
///   this filter added (`QueryState::get` relies on it to reject stale handles).
/// * `driving` may only return true if every entity the filter accepts (after the query's
///   first run) has an entry in the window of one of the change slots it pushed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query filter",
    label = "not a filter",
    note = "filters are `With<T>`, `Without<T>`, `Added<T>`, `Changed<T>`, `Or<(..)>`, `()` and \
            tuples of them; what a query fetches (`&T`, `&mut T`, `Entity`) goes in its first \
            type parameter"
)]
pub unsafe trait QueryFilter {
    /// Slot indices, computed once per query.
    type State: Send + Sync + 'static;
    /// Per-chunk state.
    type Fetch<'w, S: Storage + 'w>: Clone;

    /// Registers the filter's slots.
    fn init(builder: &mut QueryBuilder<'_>) -> Self::State;

    /// Resolves the chunk's columns.
    ///
    /// # Safety
    /// `chunk` comes from the descriptor built with this `state`, in `ctx`'s world.
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        state: &Self::State,
        chunk: &S::Chunk<'w>,
        ctx: FetchContext<'w, S>,
    ) -> Self::Fetch<'w, S>;

    /// Whether the row's entity passes.
    fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool;

    /// Whether `entity` passes, by look-up (change slots are asked through `probe`). The
    /// entity may be stale when the query has a `Required` slot; storages answer for the
    /// whole handle, so it then fails there.
    fn matches_entity<S: Storage, P: ChangeProbe>(
        state: &Self::State,
        storage: &S,
        probe: &P,
        entity: Entity,
    ) -> bool;

    /// Pushes the filter's conditions as a run-time query's filters, which together accept
    /// what it accepts (what a trace records of a query, for a replay to run).
    fn conditions(state: &Self::State, out: &mut Vec<DynFilter>);

    /// Pushes change slots whose log windows together hold every entity this filter accepts,
    /// and returns true; returns false (pushing nothing) when no such set exists.
    fn driving(state: &Self::State, out: &mut Vec<usize>) -> bool {
        let _ = (state, out);
        false
    }
}

/// Only entities that have a `T` (which is not fetched).
pub struct With<T>(PhantomData<fn() -> T>);

/// Only entities that have no `T`.
pub struct Without<T>(PhantomData<fn() -> T>);

/// Every entity, whether or not it has a `T` (which is not fetched): the filter that names
/// `T` without constraining anything. `Allow<Disabled>` is how a query includes disabled
/// entities (see [`crate::disabled`]).
pub struct Allow<T>(PhantomData<fn() -> T>);

// SAFETY: an optional slot that no fetch reads; accepts every row and every entity, never
// drives.
unsafe impl<T: Component> QueryFilter for Allow<T> {
    type State = ();
    type Fetch<'w, S: Storage + 'w> = ();

    fn init(builder: &mut QueryBuilder<'_>) {
        let id = builder.register::<T>();
        builder.slot(id, SlotRole::Optional);
    }

    #[inline]
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(_: &(), _: &S::Chunk<'w>, _: FetchContext<'w, S>) {}

    #[inline(always)]
    fn filter_row<'w, S: Storage + 'w>(_: &(), _: Entity) -> bool {
        true
    }

    #[inline]
    fn matches_entity<S: Storage, P: ChangeProbe>(_: &(), _: &S, _: &P, _: Entity) -> bool {
        true
    }

    fn conditions(_: &(), _: &mut Vec<DynFilter>) {}
}

/// State of a filter on one component's presence.
#[doc(hidden)]
pub struct PresenceState {
    slot: usize,
    pub(crate) id: ComponentId,
    /// Whether the storage enforces the slot's role (false inside an `Or`).
    constrained: bool,
}

impl PresenceState {
    /// Registers `T` and a slot with `role` (relaxed to optional inside an `Or`).
    pub(crate) fn init<T: Component>(builder: &mut QueryBuilder<'_>, role: SlotRole) -> Self {
        let id = builder.register::<T>();
        PresenceState {
            constrained: !builder.in_any(),
            slot: builder.slot(id, role),
            id,
        }
    }

    #[inline]
    pub(crate) fn fetch<'w, S: Storage + 'w>(&self, chunk: &S::Chunk<'w>) -> PresenceFetch<'w, S> {
        PresenceFetch {
            column: ColumnFetch::new(chunk, self.slot),
            constrained: self.constrained,
        }
    }
}

/// Per-chunk state of a presence filter.
#[doc(hidden)]
pub struct PresenceFetch<'w, S: Storage + 'w> {
    column: ColumnFetch<'w, S>,
    constrained: bool,
}

impl<S: Storage> Clone for PresenceFetch<'_, S> {
    #[inline]
    fn clone(&self) -> Self {
        PresenceFetch {
            column: self.column.clone(),
            constrained: self.constrained,
        }
    }
}

impl<S: Storage> PresenceFetch<'_, S> {
    /// Whether the row has `T`. A dense backend only yields chunks that satisfy a constrained
    /// slot, so then no look-up is needed (decided at compile time per backend).
    #[inline(always)]
    pub(crate) fn has<T: Component>(&self, entity: Entity) -> bool {
        (self.constrained && S::is_dense::<T>()) || self.column.has::<T>(entity)
    }

    /// Whether the row lacks `T` (see [`PresenceFetch::has`]).
    #[inline(always)]
    fn lacks<T: Component>(&self, entity: Entity) -> bool {
        (self.constrained && S::is_dense::<T>()) || !self.column.has::<T>(entity)
    }
}

macro_rules! presence_filter {
    ($ty:ident, $role:expr, $row:ident, $dyn:path, |$storage:ident, $id:ident, $entity:ident| $check:expr) => {
        // SAFETY: reads only presence, of rows in its chunk; never drives.
        unsafe impl<T: Component> QueryFilter for $ty<T> {
            type State = PresenceState;
            type Fetch<'w, S: Storage + 'w> = PresenceFetch<'w, S>;

            fn init(builder: &mut QueryBuilder<'_>) -> PresenceState {
                PresenceState::init::<T>(builder, $role)
            }

            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &PresenceState,
                chunk: &S::Chunk<'w>,
                _: FetchContext<'w, S>,
            ) -> Self::Fetch<'w, S> {
                state.fetch(chunk)
            }

            #[inline(always)]
            fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool {
                fetch.$row::<T>(entity)
            }

            #[inline]
            fn matches_entity<S: Storage, P: ChangeProbe>(
                state: &PresenceState,
                $storage: &S,
                _: &P,
                $entity: Entity,
            ) -> bool {
                let $id = state.id;
                $check
            }

            fn conditions(state: &PresenceState, out: &mut Vec<DynFilter>) {
                out.push($dyn(state.id));
            }
        }
    };
}

presence_filter!(
    With,
    SlotRole::Required,
    has,
    DynFilter::With,
    |storage, id, entity| storage.contains(entity, id)
);
presence_filter!(
    Without,
    SlotRole::Excluded,
    lacks,
    DynFilter::Without,
    |storage, id, entity| !storage.contains(entity, id)
);

macro_rules! tuple_filter {
    ($($name:ident $index:tt),*) => {
        // SAFETY: forwards to each part; drives only by a part that drives (a conjunction
        // accepts nothing its parts reject).
        unsafe impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {
            type State = ($($name::State,)*);
            type Fetch<'w, S: Storage + 'w> = ($($name::Fetch<'w, S>,)*);


            #[allow(unused_variables, clippy::unused_unit)]
            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                ($($name::init(builder),)*)
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &Self::State,
                chunk: &S::Chunk<'w>,
                ctx: FetchContext<'w, S>,
            ) -> Self::Fetch<'w, S> {
                // SAFETY: forwarded contract.
                unsafe { ($($name::fetch_chunk::<S>(&state.$index, chunk, ctx),)*) }
            }

            #[allow(unused_variables)]
            #[inline(always)]
            fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool {
                true $(&& $name::filter_row::<S>(&fetch.$index, entity))*
            }

            #[allow(unused_variables)]
            #[inline]
            fn matches_entity<S: Storage, P: ChangeProbe>(
                state: &Self::State,
                storage: &S,
                probe: &P,
                entity: Entity,
            ) -> bool {
                true $(&& $name::matches_entity(&state.$index, storage, probe, entity))*
            }

            #[allow(unused_variables)]
            fn conditions(state: &Self::State, out: &mut Vec<DynFilter>) {
                $($name::conditions(&state.$index, out);)*
            }

            #[allow(unused_variables)]
            fn driving(state: &Self::State, out: &mut Vec<usize>) -> bool {
                $(if $name::driving(&state.$index, out) {
                    return true;
                })*
                false
            }
        }
    };
}

tuple_filter!();
tuple_filter!(A 0);
tuple_filter!(A 0, B 1);
tuple_filter!(A 0, B 1, C 2);
tuple_filter!(A 0, B 1, C 2, D 3);
tuple_filter!(A 0, B 1, C 2, D 3, E 4);
tuple_filter!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_filter!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_filter!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
