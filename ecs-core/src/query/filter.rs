//! [`QueryFilter`]: conditions on which entities a query visits, without fetching values.

use std::marker::PhantomData;

use super::{ColumnFetch, QueryBuilder};
use crate::component::Component;
use crate::entity::Entity;
use crate::storage::{SlotRole, Storage};

/// A condition on the entities a query visits: `()`, [`With<T>`], [`Without<T>`] and tuples
/// (all must hold).
///
/// # Safety
/// `filter_row` may only be called for rows of the chunk its fetch was made from.
pub unsafe trait QueryFilter {
    /// Slot indices, computed once per query.
    type State: Send + Sync + 'static;
    /// Per-chunk state.
    type Fetch<'w, S: Storage + 'w>;

    /// Registers the filter's slots.
    fn init(builder: &mut QueryBuilder<'_>) -> Self::State;

    /// Resolves the chunk's columns.
    ///
    /// # Safety
    /// `chunk` comes from the descriptor built with this `state`.
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        state: &Self::State,
        chunk: &S::Chunk<'w>,
    ) -> Self::Fetch<'w, S>;

    /// Whether the row's entity passes.
    fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool;
}

/// Only entities that have a `T` (which is not fetched).
pub struct With<T>(PhantomData<fn() -> T>);

/// Only entities that have no `T`.
pub struct Without<T>(PhantomData<fn() -> T>);

macro_rules! presence_filter {
    ($ty:ident, $role:expr, |$fetch:ident, $entity:ident| $check:expr) => {
        // SAFETY: reads only presence, of rows in its chunk.
        unsafe impl<T: Component> QueryFilter for $ty<T> {
            type State = usize;
            type Fetch<'w, S: Storage + 'w> = ColumnFetch<'w, S>;

            fn init(builder: &mut QueryBuilder<'_>) -> usize {
                let id = builder.components().register::<T>();
                builder.slot(id, $role)
            }

            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &usize,
                chunk: &S::Chunk<'w>,
            ) -> Self::Fetch<'w, S> {
                ColumnFetch::new(chunk, *state)
            }

            #[inline(always)]
            fn filter_row<'w, S: Storage + 'w>(
                $fetch: &Self::Fetch<'w, S>,
                $entity: Entity,
            ) -> bool {
                // A dense backend only yields chunks that already satisfy the slot.
                S::is_dense::<T>() || $check
            }
        }
    };
}

presence_filter!(With, SlotRole::Required, |fetch, entity| fetch
    .has::<T>(entity));
presence_filter!(Without, SlotRole::Excluded, |fetch, entity| !fetch
    .has::<T>(entity));

macro_rules! tuple_filter {
    ($($name:ident $index:tt),*) => {
        // SAFETY: forwards to each part.
        unsafe impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {
            type State = ($($name::State,)*);
            type Fetch<'w, S: Storage + 'w> = ($($name::Fetch<'w, S>,)*);

            #[allow(unused_variables, clippy::unused_unit)]
            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                ($($name::init(builder),)*)
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(state: &Self::State, chunk: &S::Chunk<'w>) -> Self::Fetch<'w, S> {
                // SAFETY: forwarded contract.
                unsafe { ($($name::fetch_chunk::<S>(&state.$index, chunk),)*) }
            }

            #[allow(unused_variables)]
            #[inline(always)]
            fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool {
                true $(&& $name::filter_row::<S>(&fetch.$index, entity))*
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
