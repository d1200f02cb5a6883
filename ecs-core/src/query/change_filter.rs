//! The change filters [`Added<T>`] and [`Changed<T>`], and [`Or`].
//!
//! See [`crate::change`] for how a run decides what changed; here each filter only names its
//! change slot (a cursor in one log), says whether it can drive a run, and checks one entity.

use std::marker::PhantomData;

use super::filter::{PresenceFetch, PresenceState};
use super::{DynFilter, FetchContext, QueryBuilder, QueryFilter};
use crate::change::{ChangeKind, ChangeProbe};
use crate::component::TrackedComponent;
use crate::entity::Entity;
use crate::storage::{SlotRole, Storage};

/// Entities whose `T` was added since this query (system) last ran: spawned with it, or
/// given it by `insert` when they lacked it (a component removed and re-added counts).
///
/// `T` must track changes (`#[component(track_changes)]`; a compile-time error otherwise).
/// On a query's first run every entity with `T` passes. Implies `With<T>`.
pub struct Added<T: TrackedComponent>(PhantomData<fn() -> T>);

/// Entities whose `T` was added or written (through [`Mut`](crate::Mut), `insert`, or marked
/// by hand) since this query (system) last ran. Each entity is reported once per run however
/// often it changed; changes made while the query's own run is in progress are reported on
/// its next run.
///
/// `T` must track changes (`#[component(track_changes)]`; a compile-time error otherwise).
/// On a query's first run every entity with `T` passes. Implies `With<T>`.
///
/// ```compile_fail,E0277
/// # use ecs_core::{World, Component, Changed, testing::VecStorage};
/// #[derive(Component)]
/// struct Untracked(f32);
/// let mut world = World::<VecStorage>::new();
/// world.query_filtered::<&Untracked, Changed<Untracked>>().count(); // error: not tracked
/// ```
///
/// ```
/// # use ecs_core::{World, Component, Changed, testing::VecStorage};
/// #[derive(Component)]
/// #[component(track_changes)]
/// struct Pos(f32);
/// let mut world = World::<VecStorage>::new();
/// let a = world.spawn((Pos(0.0),));
/// let _b = world.spawn((Pos(0.0),));
/// let mut moved = world.query_state::<&Pos, Changed<Pos>>().unwrap();
/// assert_eq!(moved.iter(&world).count(), 2);
/// world.get_mut_tracked::<Pos>(a).unwrap().0 += 1.0;
/// assert_eq!(moved.iter(&world).map(|p| p.0).collect::<Vec<_>>(), vec![1.0]);
/// assert!(moved.is_log_driven(), "only the changed entity was looked at");
/// ```
pub struct Changed<T: TrackedComponent>(PhantomData<fn() -> T>);

/// Matches when any of the filters in the tuple does: `Or<(Changed<A>, Changed<B>)>` reacts
/// to changes of components the query does not fetch (a render system redrawing whatever
/// moved or was recoloured, as in the change-tracking workloads of docs/workloads.md).
///
/// An `Or` of change filters drives the run from the union of their logs (O(changes)); an
/// `Or` that mixes in a presence filter must scan.
pub struct Or<T>(PhantomData<fn() -> T>);

/// State of a change filter: the presence of `T` and its change slot.
#[doc(hidden)]
pub struct ChangeFilterState {
    presence: PresenceState,
    change_slot: usize,
}

/// Per-chunk state of a change filter: presence, and the slot's changed set (`None`: all).
#[doc(hidden)]
pub struct ChangeFilterFetch<'w, S: Storage + 'w> {
    presence: PresenceFetch<'w, S>,
    changed: Option<&'w [Entity]>,
}

impl<S: Storage> Clone for ChangeFilterFetch<'_, S> {
    #[inline]
    fn clone(&self) -> Self {
        ChangeFilterFetch {
            presence: self.presence.clone(),
            changed: self.changed,
        }
    }
}

macro_rules! change_filter {
    ($ty:ident, $kind:expr, $dyn:path) => {
        // SAFETY: reads presence of rows in its chunk and the run's changed set (shared,
        // `Sync`); drives only by its own slot, whose window holds every entity it accepts
        // after the first run.
        unsafe impl<T: TrackedComponent> QueryFilter for $ty<T> {
            type State = ChangeFilterState;
            type Fetch<'w, S: Storage + 'w> = ChangeFilterFetch<'w, S>;

            fn init(builder: &mut QueryBuilder<'_>) -> ChangeFilterState {
                let presence = PresenceState::init::<T>(builder, SlotRole::Required);
                ChangeFilterState {
                    change_slot: builder.change_slot(presence.id, $kind),
                    presence,
                }
            }

            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &ChangeFilterState,
                chunk: &S::Chunk<'w>,
                ctx: FetchContext<'w, S>,
            ) -> Self::Fetch<'w, S> {
                ChangeFilterFetch {
                    presence: state.presence.fetch(chunk),
                    changed: ctx.run().scan_set(state.change_slot),
                }
            }

            #[inline]
            fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool {
                fetch.presence.has::<T>(entity)
                    && fetch
                        .changed
                        .is_none_or(|set| set.binary_search(&entity).is_ok())
            }

            #[inline]
            fn matches_entity<S: Storage, P: ChangeProbe>(
                state: &ChangeFilterState,
                storage: &S,
                probe: &P,
                entity: Entity,
            ) -> bool {
                // The change check first: it is a look-up in an array the run already touched.
                probe.changed(state.change_slot, entity)
                    && storage.contains(entity, state.presence.id)
            }

            fn driving(state: &ChangeFilterState, out: &mut Vec<usize>) -> bool {
                out.push(state.change_slot);
                true
            }

            fn conditions(state: &ChangeFilterState, out: &mut Vec<DynFilter>) {
                out.push($dyn(state.presence.id));
            }
        }
    };
}

change_filter!(Added, ChangeKind::Added, DynFilter::Added);
change_filter!(Changed, ChangeKind::Changed, DynFilter::Changed);

macro_rules! or_filter {
    ($($name:ident $index:tt),*) => {
        // SAFETY: forwards to each part (whose slots are relaxed to optional, so each checks
        // presence per row); drives only when every alternative drives, by the union of
        // their slots.
        unsafe impl<$($name: QueryFilter),*> QueryFilter for Or<($($name,)*)> {
            type State = ($($name::State,)*);
            type Fetch<'w, S: Storage + 'w> = ($($name::Fetch<'w, S>,)*);


            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                builder.begin_any();
                let state = ($($name::init(builder),)*);
                builder.end_any();
                state
            }

            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &Self::State,
                chunk: &S::Chunk<'w>,
                ctx: FetchContext<'w, S>,
            ) -> Self::Fetch<'w, S> {
                // SAFETY: forwarded contract.
                unsafe { ($($name::fetch_chunk::<S>(&state.$index, chunk, ctx),)*) }
            }

            #[inline]
            fn filter_row<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>, entity: Entity) -> bool {
                false $(|| $name::filter_row::<S>(&fetch.$index, entity))*
            }

            #[inline]
            fn matches_entity<S: Storage, P: ChangeProbe>(
                state: &Self::State,
                storage: &S,
                probe: &P,
                entity: Entity,
            ) -> bool {
                false $(|| $name::matches_entity(&state.$index, storage, probe, entity))*
            }

            fn conditions(state: &Self::State, out: &mut Vec<DynFilter>) {
                let mut any = Vec::new();
                $(
                    let mut part = Vec::new();
                    $name::conditions(&state.$index, &mut part);
                    any.push(match part.len() {
                        1 => part.pop().expect("one condition"),
                        _ => DynFilter::All(part),
                    });
                )*
                out.push(DynFilter::Or(any));
            }

            fn driving(state: &Self::State, out: &mut Vec<usize>) -> bool {
                let len = out.len();
                $(if !$name::driving(&state.$index, out) {
                    out.truncate(len);
                    return false;
                })*
                true
            }
        }
    };
}

or_filter!(A 0);
or_filter!(A 0, B 1);
or_filter!(A 0, B 1, C 2);
or_filter!(A 0, B 1, C 2, D 3);
or_filter!(A 0, B 1, C 2, D 3, E 4);
or_filter!(A 0, B 1, C 2, D 3, E 4, F 5);
or_filter!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
or_filter!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
