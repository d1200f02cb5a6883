//! [`QueryData`]: what a query yields per entity, and how each part fetches its value.

use std::marker::PhantomData;
use std::ptr::NonNull;

use super::{FetchContext, QueryBuilder};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{ColumnAccess, EntityPlace, QueryChunk, SlotRole, SparseLookup, Storage};

/// A query's per-entity item: `&T`, `&mut T`, [`Mut<T>`](crate::Mut), `Option<&T>`,
/// `Option<&mut T>`, `Option<Mut<T>>`, [`Has<T>`](super::Has), [`Ref<T>`](super::Ref),
/// [`AnyOf<(..)>`](super::AnyOf), `Entity`, and tuples of up to 12 of these.
///
/// What `&mut T` yields depends on `T`'s [`Component::Mutability`]: a plain `&mut T` for a
/// [`Mutable`](crate::Mutable) type, a [`Mut<T>`](crate::Mut) guard that records the first
/// write for [`Changed<T>`](crate::Changed) for a [`Tracked`](crate::Tracked) one (so a
/// write cannot bypass tracking), and for an [`Immutable`](crate::Immutable) type it does
/// not compile:
///
/// ```
/// # use ecs_core::{World, Component, Changed, testing::VecStorage};
/// #[derive(Component)]
/// #[component(track_changes)]
/// struct Pos(f32);
/// let mut world = World::<VecStorage>::new();
/// world.spawn(Pos(0.0));
/// let mut moved = world.query_state::<&Pos, Changed<Pos>>().unwrap();
/// assert_eq!(moved.iter(&world).count(), 1, "the first run sees the spawn");
/// world.query::<&mut Pos>().for_each(|mut p| p.0 += 1.0); // a `Mut<Pos>`: recorded
/// assert_eq!(moved.iter(&world).count(), 1);
/// ```
///
/// ```compile_fail,E0277
/// # use ecs_core::{World, Component, testing::VecStorage};
/// #[derive(Component)]
/// #[component(immutable)]
/// struct Seed(u64);
/// let mut world = World::<VecStorage>::new();
/// world.query::<&mut Seed>().for_each(|s| s.0 += 1); // error: `Seed` is immutable
/// ```
///
/// # Safety
/// * `init` must record in the builder every component the fetch reads (`read`) or writes
///   (`write`), so that aliasing is rejected before iteration. Callers (query states and
///   tuples of query data) call it outside any `Or` (see [`QueryBuilder::begin_any`]), so
///   the role it gives a slot is the slot's role in the descriptor.
/// * `fetch_row` may only be called for a row of the chunk the fetch was made from, at most
///   once per row while its previous items live (any number of times for a
///   [`ReadOnlyQueryData`], whose items are shared borrows); it must only touch that row's
///   values.
/// * `fetch_entity` must only touch `entity`'s values, found through its place.
/// * `fetch_row` and `fetch_entity` answer `None` when the entity lacks a component of a
///   `Required` slot this part added (`QueryState::get` relies on it to reject stale
///   handles without asking the allocator).
/// * When `is_dense_chunk` answers true for a fetch, `fetch_row` answers `Some` for every row
///   of its chunk, and `fetch_dense_row` returns what `fetch_row` would have wrapped.
/// * A fetch, and its clones, may be used from other threads than the one that made it (by
///   `par_for_each`, on disjoint rows): it may hold only pointers into the storage and
///   shared references to `Sync` data.
/// * Items borrow only the world (values in its storage, its change logs), never the query
///   state: not the `State`, the backend's query cache, nor [`FetchContext::run`].
///   [`World::query_ref`](crate::World::query_ref) frees the state it built for the call
///   when its iterator is dropped, while the items live on for the world's borrow.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be fetched by a query",
    label = "not query data",
    note = "a query fetches `&T`, `&mut T`, `Mut<T>`, `Option<..>` of those, `Has<T>`, `Ref<T>`, \
            `AnyOf<(..)>`, `Entity`, and tuples of up to 12 of them, where `T` is a component; \
            filters (`With<T>`, `Without<T>`, `Changed<T>`) go in the second type parameter"
)]
pub unsafe trait QueryData {
    /// The value yielded for one entity, borrowing the world for `'w`.
    type Item<'w>;
    /// Component ids and slot indices, computed once per query.
    type State: Send + Sync + 'static;
    /// Per-chunk state: resolved column pointers (cloned per batch by `par_for_each`).
    type Fetch<'w, S: Storage + 'w>: Clone;

    /// Registers the slots and access of this part of the query.
    fn init(builder: &mut QueryBuilder<'_>) -> Self::State;

    /// Resolves the chunk's columns for this part.
    ///
    /// # Safety
    /// `chunk` comes from the descriptor built with this `state`, in `ctx`'s world.
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        state: &Self::State,
        chunk: &S::Chunk<'w>,
        ctx: FetchContext<'w, S>,
    ) -> Self::Fetch<'w, S>;

    /// The item for `row` (whose entity is `entity`), or `None` if that entity lacks a required
    /// component (possible only through sparse look-ups).
    ///
    /// # Safety
    /// `row` is below the chunk's length; see the trait's contract.
    unsafe fn fetch_row<'w, S: Storage + 'w>(
        fetch: &mut Self::Fetch<'w, S>,
        row: usize,
        entity: Entity,
    ) -> Option<Self::Item<'w>>;

    /// Whether every row of the fetch's chunk reads from dense columns, with no look-up and no
    /// missing component. The chunk loop then runs [`QueryData::fetch_dense_row`]: a loop
    /// with no per-row branch, which the compiler can vectorise. Deciding it here, once per
    /// chunk, keeps that loop from depending on whether the optimiser unswitches a per-row
    /// test (it stopped doing so for the sparse backend's joins when the caller's crate was
    /// compiled as one code-generation unit: three times slower). `false` unless overridden.
    #[inline(always)]
    fn is_dense_chunk<'w, S: Storage + 'w>(_fetch: &Self::Fetch<'w, S>) -> bool {
        false
    }

    /// The item for `row` of a chunk for which [`QueryData::is_dense_chunk`] answered true.
    ///
    /// # Safety
    /// As for [`QueryData::fetch_row`], and `is_dense_chunk(fetch)` answered true.
    #[inline(always)]
    unsafe fn fetch_dense_row<'w, S: Storage + 'w>(
        fetch: &mut Self::Fetch<'w, S>,
        row: usize,
        entity: Entity,
    ) -> Self::Item<'w> {
        // SAFETY: `fetch_row`'s contract is the caller's; on a dense chunk it answers `Some`
        // for every row (trait contract).
        unsafe { Self::fetch_row::<S>(fetch, row, entity).unwrap_unchecked() }
    }

    /// Pushes the conditions this part puts on which entities match beyond its slots'
    /// roles (an [`AnyOf`](super::AnyOf)'s "at least one"), as a run-time query's filters:
    /// what a trace records of a query, for a replay to take the same rows. Nothing unless
    /// overridden.
    fn conditions(_state: &Self::State, _out: &mut Vec<super::DynFilter>) {}

    /// The item for one entity, read through its `place` (found once for all parts of the
    /// query); `None` if it lacks a component of a `Required` slot this part added.
    ///
    /// # Safety
    /// `place` is `entity`'s place in `ctx`'s storage. `entity` is live in `ctx`'s world, or
    /// the query has a `Required` slot (whose read then answers `None`: storages compare whole
    /// handles). While the item lives, nothing else accesses the components this query writes
    /// for `entity` (in particular, no other item of this query for the same entity exists),
    /// and nothing writes the components it reads.
    unsafe fn fetch_entity<'w, S: Storage + 'w>(
        state: &Self::State,
        ctx: FetchContext<'w, S>,
        place: &S::Place<'w>,
        entity: Entity,
    ) -> Option<Self::Item<'w>>;
}

/// Queries that only read, and may run on a shared `&World`.
///
/// # Safety
/// The implementing query writes nothing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` writes, so it needs the world exclusively",
    label = "a query that writes",
    note = "use `world.query` / `QueryState::iter_mut` / `Query::iter_mut` (or `for_each`) for \
            queries with `&mut T` or `Mut<T>`; `&World` only hands out shared references"
)]
pub unsafe trait ReadOnlyQueryData: QueryData {}

/// One slot's resolved access within a chunk.
///
/// `dense` is null unless the chunk holds the component densely. `offset` is the distance
/// from the chunk row to the look-up position found last (see
/// [`SparseLookup::lookup_hinted`]): while rows and values run in step it makes each
/// look-up one comparison.
///
/// `misses` counts the hints that missed since the last one that hit (a look-up that finds
/// nothing leaves it as it is). From `RESYNC_MISSES` (8) on it counts every look-up, made
/// without a hint but for one every `RESYNC_EVERY` (64) rows: a hint waits for the previous
/// look-up's answer, so through a set whose order follows no table (the hybrid's unaligned
/// joins) hinting chains every row's cache misses behind the last row's.
pub struct ColumnFetch<'w, S: Storage + 'w> {
    dense: *mut u8,
    sparse: Option<&'w S::Lookup>,
    offset: usize,
    misses: u32,
}

/// Hint misses in a row after which [`ColumnFetch`] stops hinting.
const RESYNC_MISSES: u32 = 8;
/// Once past [`RESYNC_MISSES`], one row in this many still tries its hint (and re-learns
/// the offset), so a run in step that starts later is found again.
const RESYNC_EVERY: u32 = 64;

impl<S: Storage> Clone for ColumnFetch<'_, S> {
    #[inline]
    fn clone(&self) -> Self {
        ColumnFetch {
            dense: self.dense,
            sparse: self.sparse,
            offset: self.offset,
            misses: self.misses,
        }
    }
}

impl<'w, S: Storage + 'w> ColumnFetch<'w, S> {
    /// Resolves slot `slot` of `chunk`. Always inlined: it runs once per chunk and slot, and
    /// a call here costs a small table's iteration more than the resolving does.
    #[inline(always)]
    pub fn new(chunk: &S::Chunk<'w>, slot: usize) -> Self {
        Self::from_access(chunk.column(slot))
    }

    /// [`ColumnFetch::new`] through [`QueryChunk::column_unchecked`].
    ///
    /// # Safety
    /// `slot` is below the slot count of the descriptor `chunk` was made for.
    #[inline(always)]
    pub unsafe fn new_unchecked(chunk: &S::Chunk<'w>, slot: usize) -> Self {
        // SAFETY: the caller's promise is the method's.
        Self::from_access(unsafe { chunk.column_unchecked(slot) })
    }

    /// The fetch of a resolved slot.
    #[inline(always)]
    fn from_access(access: ColumnAccess<'w, <S::Chunk<'w> as QueryChunk<'w>>::Lookup>) -> Self {
        match access {
            ColumnAccess::Dense(ptr) => ColumnFetch {
                dense: ptr.as_ptr(),
                sparse: None,
                offset: 0,
                misses: 0,
            },
            ColumnAccess::Sparse(lookup) => ColumnFetch {
                dense: std::ptr::null_mut(),
                sparse: Some(lookup),
                offset: 0,
                misses: 0,
            },
            ColumnAccess::Absent => ColumnFetch {
                dense: std::ptr::null_mut(),
                sparse: None,
                offset: 0,
                misses: 0,
            },
        }
    }

    /// Pointer to the row's `T` for a *required* slot.
    ///
    /// # Safety
    /// `row` is within the chunk; `T` is the slot's component type; the slot's role in the
    /// descriptor the chunk was made for is `Required`.
    #[inline(always)]
    pub unsafe fn required<T: Component>(
        &mut self,
        row: usize,
        entity: Entity,
    ) -> Option<NonNull<T>> {
        if S::is_dense::<T>() || !self.dense.is_null() {
            debug_assert!(
                !self.dense.is_null(),
                "dense backend answered no column for a required slot"
            );
            // SAFETY: `dense` is not null: either tested just now, or `is_dense::<T>()` holds,
            // and then the storage answers neither `Absent` nor `Sparse` for a required slot
            // of `T` (the `Storage` contract), so `new` kept the chunk's `Dense` base of `T`s;
            // `row` is in bounds (caller).
            return Some(unsafe { self.dense_at(row) });
        }
        self.lookup(row, entity)
    }

    /// Pointer to the row's `T` for an *optional* slot (`None` when absent).
    ///
    /// # Safety
    /// As for [`ColumnFetch::required`].
    #[inline(always)]
    pub unsafe fn optional<T: Component>(
        &mut self,
        row: usize,
        entity: Entity,
    ) -> Option<NonNull<T>> {
        if !self.dense.is_null() {
            // SAFETY: `dense` was tested, and is the chunk's `Dense` base of `T`s; `row` is in
            // bounds (caller).
            return Some(unsafe { self.dense_at(row) });
        }
        if S::is_dense::<T>() {
            return None;
        }
        self.lookup(row, entity)
    }

    /// Whether the slot reads every row of the chunk without a look-up: the chunk holds the
    /// column densely, or `T` always lives in dense columns in this backend (then a null
    /// column means absent: an optional slot of a chunk without `T`).
    #[inline(always)]
    pub fn is_dense<T: Component>(&self) -> bool {
        S::is_dense::<T>() || !self.dense.is_null()
    }

    /// Pointer to the row's `T` for a *required* slot of a dense chunk (always `Some`; an
    /// `Option` so that it stands where [`ColumnFetch::dense_optional`] does).
    ///
    /// # Safety
    /// As for [`ColumnFetch::required`], and [`ColumnFetch::is_dense`] answered true.
    #[inline(always)]
    pub unsafe fn dense_required<T: Component>(&self, row: usize) -> Option<NonNull<T>> {
        debug_assert!(!self.dense.is_null(), "no dense column for a required slot");
        // SAFETY: `is_dense` held: the column is not null, or `is_dense::<T>()` holds and the
        // storage answers `Dense` for a required slot of `T` (the `Storage` contract), so
        // `dense` is the chunk's base of `T`s; `row` is in bounds (caller).
        Some(unsafe { self.dense_at(row) })
    }

    /// Pointer to the row's `T` for an *optional* slot of a dense chunk (`None` when the
    /// chunk lacks `T`).
    ///
    /// # Safety
    /// As for [`ColumnFetch::optional`], and [`ColumnFetch::is_dense`] answered true.
    #[inline(always)]
    pub unsafe fn dense_optional<T: Component>(&self, row: usize) -> Option<NonNull<T>> {
        if self.dense.is_null() {
            // `is_dense` held with no column: `T` is dense in this backend, so absent.
            return None;
        }
        // SAFETY: `dense` was tested, and is the chunk's `Dense` base of `T`s; `row` is in
        // bounds (caller).
        Some(unsafe { self.dense_at(row) })
    }

    /// Pointer to row `row` of the dense column: the one place the four dense paths above
    /// turn a base and a row into a pointer.
    ///
    /// # Safety
    /// `dense` is not null and is the base of the chunk's `Dense` column of `T`s (what
    /// [`ColumnFetch::new`] kept from `ColumnAccess::Dense`); `row` is within the chunk.
    #[inline(always)]
    unsafe fn dense_at<T: Component>(&self, row: usize) -> NonNull<T> {
        // SAFETY: `dense` is not null and `row` is within the column's rows (caller), so the
        // offset (`row * size_of::<T>()`, 0 for a zero-sized `T`) stays within the column's
        // allocation, and the result is not null.
        unsafe { NonNull::new_unchecked(self.dense.cast::<T>().add(row)) }
    }

    /// Whether the row has the component (for filters); `dense_answer` is what a dense column
    /// means (present), absence without look-up means absent.
    #[inline(always)]
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        if !self.dense.is_null() {
            return true;
        }
        match self.sparse {
            Some(lookup) if !S::is_dense::<T>() => lookup.contains(entity),
            _ => false,
        }
    }

    #[inline]
    fn lookup<T>(&mut self, row: usize, entity: Entity) -> Option<NonNull<T>> {
        let sparse = self.sparse?;
        if self.misses >= RESYNC_MISSES {
            // Out of step: plain look-ups, independent of each other, with a hinted one
            // every `RESYNC_EVERY` rows to notice a run in step. The counter moves on its
            // own, not with the answers.
            self.misses = self.misses.wrapping_add(1);
            if self.misses % RESYNC_EVERY != 0 {
                return sparse.lookup(entity).map(NonNull::cast);
            }
        }
        let hint = row.wrapping_add(self.offset);
        let (ptr, pos) = sparse.lookup_hinted(hint, entity)?;
        if pos == hint {
            self.misses = 0;
        } else {
            self.misses = self.misses.wrapping_add(1);
            self.offset = pos.wrapping_sub(row);
        }
        Some(ptr.cast())
    }
}

/// State of a single-component fetch: its slot index and component id.
///
/// `slot` is the index of the slot `init` added to the builder, so it is below the slot
/// count of the descriptor that builder makes.
#[doc(hidden)]
pub struct SlotState<T> {
    pub(crate) slot: usize,
    pub(crate) id: ComponentId,
    marker: PhantomData<fn() -> T>,
}

impl<T: Component> SlotState<T> {
    /// Registers `T`, records its access (`write` or not) and adds a slot with `role`.
    pub(crate) fn init(builder: &mut QueryBuilder<'_>, write: bool, role: SlotRole) -> Self {
        let id = builder.register::<T>();
        if write {
            builder.write(id);
        } else {
            builder.read(id);
        }
        SlotState {
            slot: builder.slot(id, role),
            id,
            marker: PhantomData,
        }
    }

    /// Registers `T` and adds a slot with `role`, recording no access: for a part that asks
    /// only whether an entity holds `T` ([`Has`](super::has::Has)).
    pub(crate) fn presence(builder: &mut QueryBuilder<'_>, role: SlotRole) -> Self {
        let id = builder.register::<T>();
        SlotState {
            slot: builder.slot(id, role),
            id,
            marker: PhantomData,
        }
    }
}

macro_rules! component_fetch {
    (
        $ty:ty, $item:ty, $role:expr, $get:ident, $dense:ident,
        |$p:ident| $make:expr, $missing:expr
    ) => {
        // SAFETY: records its one component as read; `fetch_row` touches only the
        // given row's value, `fetch_entity` only the entity's; the fetch holds a storage
        // pointer and a `Sync` look-up. `is_dense_chunk` answers true only when the chunk
        // gave the slot a dense column or `T` is dense in this backend (whose storage then
        // answers `Dense` for a required slot and `Dense` or `Absent` for an optional one,
        // the `Storage` contract's dense types): `fetch_row` then answers `Some` on every row
        // (the value, or for an optional slot its `Option`), as `fetch_dense_row` does.
        unsafe impl<T: Component> QueryData for $ty {
            type Item<'w> = $item;
            type State = SlotState<T>;
            type Fetch<'w, S: Storage + 'w> = ColumnFetch<'w, S>;

            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                SlotState::init(builder, false, $role)
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
                row: usize,
                entity: Entity,
            ) -> Option<Self::Item<'w>> {
                // SAFETY: `row` is in the chunk (caller); the slot holds `T`, in the role
                // `init` gave it (`required` is called only for a `Required` slot: a query
                // item is never inside an `Or`, the one place roles are relaxed).
                let ptr = unsafe { fetch.$get::<T>(row, entity) };
                #[allow(unused_unsafe)]
                // SAFETY: the pointer is to this row's initialised `T`; the access recorded in
                // `init` guarantees no other part of the query aliases it, and each row is
                // fetched once, so the reference is unique (for `&mut`) for `'w`.
                unsafe {
                    let $p = ptr;
                    $make
                }
            }

            #[inline(always)]
            fn is_dense_chunk<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>) -> bool {
                fetch.is_dense::<T>()
            }

            #[inline(always)]
            unsafe fn fetch_dense_row<'w, S: Storage + 'w>(
                fetch: &mut Self::Fetch<'w, S>,
                row: usize,
                _: Entity,
            ) -> Self::Item<'w> {
                // SAFETY: as in `fetch_row`; the chunk is dense for this slot (caller).
                let ptr = unsafe { fetch.$dense::<T>(row) };
                #[allow(unused_unsafe)]
                // SAFETY: as in `fetch_row`.
                let item = || unsafe {
                    let $p = ptr;
                    $make
                };
                // SAFETY: the pointer is present (required slot) or the item is an `Option`
                // (optional slot), so `$make` answers `Some`.
                unsafe { item().unwrap_unchecked() }
            }

            #[inline]
            #[allow(clippy::question_mark)] // `$missing` is not always `None`
            unsafe fn fetch_entity<'w, S: Storage + 'w>(
                state: &Self::State,
                _: FetchContext<'w, S>,
                place: &S::Place<'w>,
                _: Entity,
            ) -> Option<Self::Item<'w>> {
                let ptr = place.ptr_of::<T>(state.id).map(NonNull::cast::<T>);
                if ptr.is_none() {
                    return $missing;
                }
                #[allow(unused_unsafe)]
                // SAFETY: the storage returned the entity's initialised `T`; the caller
                // guarantees no other access to it conflicts for `'w`.
                unsafe {
                    let $p = ptr;
                    $make
                }
            }
        }
    };
}

component_fetch!(
    &T,
    &'w T,
    SlotRole::Required,
    required,
    dense_required,
    |p| Some(&*p?.as_ptr()),
    None
);
component_fetch!(
    Option<&T>,
    Option<&'w T>,
    SlotRole::Optional,
    optional,
    dense_optional,
    |p| Some(p.map(|p| &*p.as_ptr())),
    Some(None)
);

// SAFETY: `&T` and `Option<&T>` only read.
unsafe impl<T: Component> ReadOnlyQueryData for &T {}
// SAFETY: as above.
unsafe impl<T: Component> ReadOnlyQueryData for Option<&T> {}

// SAFETY: touches no component; `fetch_row` answers `Some` on every row, so every chunk is
// dense for it.
unsafe impl QueryData for Entity {
    type Item<'w> = Entity;
    type State = ();
    type Fetch<'w, S: Storage + 'w> = ();

    fn init(_: &mut QueryBuilder<'_>) {}

    #[inline(always)]
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        _: &(),
        _: &S::Chunk<'w>,
        _: FetchContext<'w, S>,
    ) -> Self::Fetch<'w, S> {
    }

    #[inline(always)]
    unsafe fn fetch_row<'w, S: Storage + 'w>(
        _: &mut (),
        _: usize,
        entity: Entity,
    ) -> Option<Entity> {
        Some(entity)
    }

    #[inline(always)]
    fn is_dense_chunk<'w, S: Storage + 'w>(_: &()) -> bool {
        true
    }

    #[inline(always)]
    unsafe fn fetch_dense_row<'w, S: Storage + 'w>(_: &mut (), _: usize, entity: Entity) -> Entity {
        entity
    }

    #[inline]
    unsafe fn fetch_entity<'w, S: Storage + 'w>(
        _: &(),
        _: FetchContext<'w, S>,
        _: &S::Place<'w>,
        entity: Entity,
    ) -> Option<Entity> {
        Some(entity)
    }
}
// SAFETY: reads nothing but the handle.
unsafe impl ReadOnlyQueryData for Entity {}

macro_rules! tuple_query {
    ($($name:ident $index:tt),*) => {
        // SAFETY: each part records its own access; rows are forwarded unchanged; a chunk is
        // dense only when it is for every part, so every part's `fetch_row` answers `Some`.
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            type State = ($($name::State,)*);
            type Fetch<'w, S: Storage + 'w> = ($($name::Fetch<'w, S>,)*);


            #[allow(unused_variables, clippy::unused_unit)]
            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                ($($name::init(builder),)*)
            }

            #[allow(unused_variables)]
            fn conditions(state: &Self::State, out: &mut Vec<super::DynFilter>) {
                $($name::conditions(&state.$index, out);)*
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline(always)]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &Self::State,
                chunk: &S::Chunk<'w>,
                ctx: FetchContext<'w, S>,
            ) -> Self::Fetch<'w, S> {
                // SAFETY: forwarded contract.
                unsafe { ($($name::fetch_chunk::<S>(&state.$index, chunk, ctx),)*) }
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline(always)]
            unsafe fn fetch_row<'w, S: Storage + 'w>(fetch: &mut Self::Fetch<'w, S>, row: usize, entity: Entity) -> Option<Self::Item<'w>> {
                // SAFETY: forwarded contract.
                unsafe { Some(($($name::fetch_row::<S>(&mut fetch.$index, row, entity)?,)*)) }
            }

            #[allow(unused_variables, clippy::unused_unit)]
            #[inline(always)]
            fn is_dense_chunk<'w, S: Storage + 'w>(fetch: &Self::Fetch<'w, S>) -> bool {
                true $(&& $name::is_dense_chunk::<S>(&fetch.$index))*
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline(always)]
            unsafe fn fetch_dense_row<'w, S: Storage + 'w>(fetch: &mut Self::Fetch<'w, S>, row: usize, entity: Entity) -> Self::Item<'w> {
                // SAFETY: forwarded contract; every part answered dense.
                unsafe { ($($name::fetch_dense_row::<S>(&mut fetch.$index, row, entity),)*) }
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline]
            unsafe fn fetch_entity<'w, S: Storage + 'w>(
                state: &Self::State,
                ctx: FetchContext<'w, S>,
                place: &S::Place<'w>,
                entity: Entity,
            ) -> Option<Self::Item<'w>> {
                // SAFETY: forwarded contract; the parts touch distinct components (access).
                unsafe { Some(($($name::fetch_entity::<S>(&state.$index, ctx, place, entity)?,)*)) }
            }
        }
        // SAFETY: every part is read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

tuple_query!();
tuple_query!(A 0);
tuple_query!(A 0, B 1);
tuple_query!(A 0, B 1, C 2);
tuple_query!(A 0, B 1, C 2, D 3);
tuple_query!(A 0, B 1, C 2, D 3, E 4);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
