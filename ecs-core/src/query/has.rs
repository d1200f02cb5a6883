//! [`Has<T>`]: whether an entity holds a component, as a query item.

use std::marker::PhantomData;

use super::fetch::SlotState;
use super::{ColumnFetch, FetchContext, QueryBuilder, QueryData, ReadOnlyQueryData};
use crate::component::Component;
use crate::entity::Entity;
use crate::storage::{EntityPlace, SlotRole, Storage};

/// A query item answering whether the entity holds a `T`: `true` or `false`, for every
/// entity the rest of the query matches (an optional presence test, where `Option<&T>`
/// would borrow the value).
///
/// It reads no value, so it does not conflict with a query part or another system that
/// writes `T`: `(&mut Pos, Has<Frozen>)` and `(&mut Pos, Has<Pos>)` are both allowed, and
/// a system holding `Query<Has<Pos>>` runs beside one writing `Pos`.
///
/// ```
/// # use ecs_core::{World, Component, query::Has, testing::VecStorage};
/// #[derive(Component)]
/// struct Pos(f32);
/// #[derive(Component)]
/// struct Frozen;
/// let mut world = World::<VecStorage>::new();
/// world.spawn((Pos(0.0),));
/// world.spawn((Pos(0.0), Frozen));
/// world.query::<(&mut Pos, Has<Frozen>)>().for_each(|(p, frozen)| {
///     if !frozen {
///         p.0 += 1.0;
///     }
/// });
/// let mut moved: Vec<f32> = world.query::<&Pos>().map(|p| p.0).collect();
/// moved.sort_by(f32::total_cmp);
/// assert_eq!(moved, [0.0, 1.0]);
/// ```
pub struct Has<T>(PhantomData<fn() -> T>);

// SAFETY: records no access, as it touches no value: its slot only asks the storage where
// `T` lives (an `Optional` slot, so it rules out no row). `fetch_row` answers `Some` on
// every row, from the chunk's column or a look-up of the row's entity; `fetch_entity` asks
// the entity's place. `is_dense_chunk` answers true only when the slot needs no look-up
// (a dense column: every row holds `T`; none while `T` is dense in this backend: no row
// does), and `fetch_dense_row` then answers what `fetch_row` would. The fetch holds a
// storage pointer and a `Sync` look-up.
unsafe impl<T: Component> QueryData for Has<T> {
    type Item<'w> = bool;
    type State = SlotState<T>;
    type Fetch<'w, S: Storage + 'w> = ColumnFetch<'w, S>;

    fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
        SlotState::presence(builder, SlotRole::Optional)
    }

    #[inline(always)]
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        state: &Self::State,
        chunk: &S::Chunk<'w>,
        _: FetchContext<'w, S>,
    ) -> Self::Fetch<'w, S> {
        // SAFETY: `state.slot` is a slot of the descriptor built with `state`, which
        // `chunk` was made for (this function's contract).
        unsafe { ColumnFetch::new_unchecked(chunk, state.slot) }
    }

    #[inline(always)]
    unsafe fn fetch_row<'w, S: Storage + 'w>(
        fetch: &mut Self::Fetch<'w, S>,
        _: usize,
        entity: Entity,
    ) -> Option<bool> {
        Some(fetch.has::<T>(entity))
    }

    #[inline(always)]
    fn is_dense_chunk<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>) -> bool {
        fetch.is_dense::<T>()
    }

    #[inline(always)]
    unsafe fn fetch_dense_row<'w, S: Storage + 'w>(
        fetch: &mut Self::Fetch<'w, S>,
        _: usize,
        entity: Entity,
    ) -> bool {
        fetch.has::<T>(entity)
    }

    #[inline]
    unsafe fn fetch_entity<'w, S: Storage + 'w>(
        state: &Self::State,
        _: FetchContext<'w, S>,
        place: &S::Place<'w>,
        _: Entity,
    ) -> Option<bool> {
        Some(place.ptr_of::<T>(state.id).is_some())
    }
}

// SAFETY: reads and writes no value.
unsafe impl<T: Component> ReadOnlyQueryData for Has<T> {}
