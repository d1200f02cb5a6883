//! [`Ref<T>`]: a component read together with whether it was added or changed since the
//! query last ran.

use std::fmt;
use std::ops::Deref;

use super::fetch::SlotState;
use super::{ColumnFetch, FetchContext, QueryBuilder, QueryData, ReadOnlyQueryData};
use crate::change::{ChangeKind, ChangeProbe};
use crate::component::TrackedComponent;
use crate::entity::Entity;
use crate::storage::{EntityPlace, SlotRole, Storage};

/// A query item reading `T` and answering, per entity, whether its `T` was added
/// ([`Ref::is_added`]) or changed ([`Ref::is_changed`]) since this query (system) last
/// ran: what `Added<T>` and `Changed<T>` filter on, as values beside every item rather
/// than as a filter. On a query's first run every value is added and changed.
///
/// `T` must track changes (`#[component(track_changes)]`): only then does the world keep
/// the logs the answers come from, so an untracked type is a compile-time error.
///
/// ```
/// # use ecs_core::{World, Component, query::Ref, testing::VecStorage};
/// #[derive(Component)]
/// #[component(track_changes)]
/// struct Hp(u32);
/// let mut world = World::<VecStorage>::new();
/// let a = world.spawn((Hp(3),));
/// let b = world.spawn((Hp(5),));
/// let mut hp = world.query_state::<Ref<Hp>, ()>().unwrap();
/// assert!(hp.iter(&world).all(|hp| hp.is_added() && hp.is_changed()));
/// world.get_mut_tracked::<Hp>(a).unwrap().0 -= 1;
/// let changed: Vec<u32> = hp.iter(&world).filter(|hp| hp.is_changed()).map(|hp| hp.0).collect();
/// assert_eq!(changed, [2]);
/// assert!(hp.iter(&world).all(|hp| !hp.is_added()));
/// # let _ = b;
/// ```
///
/// ```compile_fail,E0277
/// # use ecs_core::{World, Component, query::Ref, testing::VecStorage};
/// #[derive(Component)]
/// struct Untracked(u32);
/// let mut world = World::<VecStorage>::new();
/// world.query::<Ref<Untracked>>().count(); // error: `Untracked` does not track changes
/// ```
pub struct Ref<'w, T> {
    value: &'w T,
    added: bool,
    changed: bool,
}

impl<'w, T> Ref<'w, T> {
    /// Whether the entity's `T` was added (spawned with it, or inserted when it had none)
    /// since the query last ran.
    pub fn is_added(&self) -> bool {
        self.added
    }

    /// Whether the entity's `T` was added or written since the query last ran.
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    /// The value, for as long as the query's borrow of the world.
    pub fn into_inner(self) -> &'w T {
        self.value
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> AsRef<T> for Ref<'_, T> {
    fn as_ref(&self) -> &T {
        self.value
    }
}

impl<T> Clone for Ref<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Ref<'_, T> {}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ref")
            .field("value", self.value)
            .field("added", &self.added)
            .field("changed", &self.changed)
            .finish()
    }
}

/// A [`Ref`]'s state: its value's slot and its two change slots.
#[doc(hidden)]
pub struct RefState<T> {
    value: SlotState<T>,
    added: usize,
    changed: usize,
}

/// A [`Ref`]'s per-chunk state: the column and this run's added and changed sets (`None`:
/// the first run, when every value is both).
#[doc(hidden)]
pub struct RefFetch<'w, S: Storage + 'w> {
    column: ColumnFetch<'w, S>,
    added: Option<&'w [Entity]>,
    changed: Option<&'w [Entity]>,
}

impl<S: Storage> Clone for RefFetch<'_, S> {
    fn clone(&self) -> Self {
        RefFetch {
            column: self.column.clone(),
            added: self.added,
            changed: self.changed,
        }
    }
}

impl<'w, S: Storage + 'w> RefFetch<'w, S> {
    /// The item of `entity`, whose value is at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to `entity`'s initialised `T`, which nothing writes for `'w`.
    #[inline(always)]
    unsafe fn item<T>(&self, ptr: std::ptr::NonNull<T>, entity: Entity) -> Ref<'w, T> {
        let holds =
            |set: Option<&[Entity]>| set.is_none_or(|set| set.binary_search(&entity).is_ok());
        Ref {
            // SAFETY: the caller's promise.
            value: unsafe { &*ptr.as_ptr() },
            added: holds(self.added),
            changed: holds(self.changed),
        }
    }
}

// SAFETY: records its one component as read (as `&T`); `fetch_row` touches only the given
// row's value, `fetch_entity` only the entity's; the fetch holds a storage pointer, a
// `Sync` look-up and the run's sets (shared, read-only while the run lasts).
// `is_dense_chunk` answers as `&T`'s, and `fetch_dense_row` then answers what `fetch_row`
// would (the slot is required).
unsafe impl<'r, T: TrackedComponent> QueryData for Ref<'r, T> {
    type Item<'w> = Ref<'w, T>;
    type State = RefState<T>;
    type Fetch<'w, S: Storage + 'w> = RefFetch<'w, S>;

    fn init(builder: &mut QueryBuilder<'_>) -> RefState<T> {
        let value = SlotState::init(builder, false, SlotRole::Required);
        RefState {
            added: builder.item_change_slot(value.id, ChangeKind::Added),
            changed: builder.item_change_slot(value.id, ChangeKind::Changed),
            value,
        }
    }

    #[inline(always)]
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        state: &RefState<T>,
        chunk: &S::Chunk<'w>,
        ctx: FetchContext<'w, S>,
    ) -> RefFetch<'w, S> {
        RefFetch {
            // SAFETY: `state.value.slot` is a slot of the descriptor built with `state`,
            // which `chunk` was made for (this function's contract).
            column: unsafe { ColumnFetch::new_unchecked(chunk, state.value.slot) },
            added: ctx.run().item_set(state.added),
            changed: ctx.run().item_set(state.changed),
        }
    }

    #[inline(always)]
    unsafe fn fetch_row<'w, S: Storage + 'w>(
        fetch: &mut RefFetch<'w, S>,
        row: usize,
        entity: Entity,
    ) -> Option<Ref<'w, T>> {
        // SAFETY: `row` is in the chunk (caller); the slot holds `T` and is required.
        let ptr = unsafe { fetch.column.required::<T>(row, entity) }?;
        // SAFETY: the row's initialised `T`; the access recorded in `init` (a read) keeps
        // writers away for `'w`.
        Some(unsafe { fetch.item(ptr, entity) })
    }

    #[inline(always)]
    fn is_dense_chunk<'w, S: Storage + 'w>(fetch: &RefFetch<'w, S>) -> bool {
        fetch.column.is_dense::<T>()
    }

    #[inline(always)]
    unsafe fn fetch_dense_row<'w, S: Storage + 'w>(
        fetch: &mut RefFetch<'w, S>,
        row: usize,
        entity: Entity,
    ) -> Ref<'w, T> {
        // SAFETY: as in `fetch_row`; the chunk is dense for this slot (caller), so the
        // pointer is present.
        unsafe {
            let ptr = fetch.column.dense_required::<T>(row).unwrap_unchecked();
            fetch.item(ptr, entity)
        }
    }

    #[inline]
    unsafe fn fetch_entity<'w, S: Storage + 'w>(
        state: &RefState<T>,
        ctx: FetchContext<'w, S>,
        place: &S::Place<'w>,
        entity: Entity,
    ) -> Option<Ref<'w, T>> {
        let ptr = place.ptr_of::<T>(state.value.id)?.cast::<T>();
        let probe = ctx.run().probe(ctx.changes());
        Some(Ref {
            // SAFETY: the storage returned the entity's initialised `T`; the caller
            // guarantees no write to it for `'w`.
            value: unsafe { &*ptr.as_ptr() },
            added: probe.changed(state.added, entity),
            changed: probe.changed(state.changed, entity),
        })
    }
}

// SAFETY: only reads.
unsafe impl<T: TrackedComponent> ReadOnlyQueryData for Ref<'_, T> {}
