//! [`QueryView`]: a query's random access (`get` by entity) for one borrow of the
//! world, with each matching table's columns resolved once.
//!
//! [`QueryState::get`] finds the entity, then each component's column in the entity's table
//! (a look-up per component per call). A view does the column part once per table, up front
//! — it walks the query's chunks as a scan would and keeps each chunk's resolved fetch by the
//! chunk's key ([`Storage::chunk_key`]) — so a `get` is the entity's record, one index into
//! the kept fetches and a row offset per component. On a shuffled `get` of many entities the
//! shorter path keeps more of their cache misses in flight at once.
//!
//! Backends whose chunks have no keys ([`Storage::KEYS_CHUNKS`] false, sparse sets: every read
//! is by entity anyway) answer every `get` through the entity's place, as `QueryState::get`
//! does, decided at compile time.

use super::{FetchContext, QueryData, QueryFilter, QueryState, ReadOnlyQueryData};
use crate::entity::Entity;
use crate::storage::{ChunkKey, ChunkRow, ColumnAccess, QueryChunk, SparseLookup, Storage};
use crate::world::WorldView;

/// Random access to a query's items for one borrow of the world: made by
/// [`QueryState::view`] (read-only queries, shared world: [`QueryView::get`]) or
/// [`QueryState::view_mut`] (any query, exclusive world: [`QueryView::with`], or
/// [`QueryView::get_mut`] for one item at a time).
///
/// # Invariant
/// When `S::KEYS_CHUNKS` is true: `fetches[k]` is `Some` exactly for the keys of the chunks
/// `query_chunks` yields for the state's descriptor in `world` (whose cache was brought up
/// to date first), holding that chunk's fetch, except chunks whose every row holds the
/// state's hidden component (`Disabled`, see [`crate::disabled`]); `keyed` is whether every
/// chunk had a key and none held the hidden component in only some rows. When it is false the chunks are not walked at all: `fetches` is empty and `keyed` false,
/// and every `get` goes through the state's look-up. The world is borrowed (shared or
/// exclusive, as `new`'s contract allows) for `'w`, so the chunks stay valid.
pub struct QueryView<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    state: &'w QueryState<Q, F, S>,
    world: WorldView<'w, S>,
    fetches: Vec<Option<Q::Fetch<'w, S>>>,
    keyed: bool,
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> QueryView<'w, Q, F, S> {
    /// Resolves every matching chunk of `world` (whose query cache is up to date), for a
    /// backend that keys chunks; for one that does not, only records the borrow.
    ///
    /// # Safety
    /// For `'w`, nothing else accesses the components `Q` writes, and nothing writes the
    /// components it reads (a read-only query on a shared world, or any query on an
    /// exclusively borrowed one).
    pub(super) unsafe fn new(state: &'w QueryState<Q, F, S>, world: WorldView<'w, S>) -> Self {
        let ctx = FetchContext::new(world, &state.changes);
        let mut fetches: Vec<Option<Q::Fetch<'w, S>>> = Vec::new();
        if !S::KEYS_CHUNKS {
            return QueryView {
                state,
                world,
                fetches,
                keyed: false,
            };
        }
        let mut keyed = true;
        let chunks =
            world
                .storage()
                .query_chunks(&state.cache, &state.descriptor, world.entities().alive());
        for chunk in chunks {
            let Some(key) = S::chunk_key(&chunk).map(ChunkKey::index) else {
                keyed = false;
                continue;
            };
            if let Some(slot) = state.hidden() {
                match chunk.column(slot) {
                    ColumnAccess::Absent => {}
                    ColumnAccess::Sparse(lookup) if lookup.holds_none() => {}
                    // Every row disabled: no fetch, so no item for them.
                    ColumnAccess::Dense(_) => continue,
                    // Some rows disabled: the state's look-up tells them apart.
                    ColumnAccess::Sparse(_) => keyed = false,
                }
            }
            if fetches.len() <= key {
                fetches.resize_with(key + 1, || None);
            }
            // SAFETY: the chunk comes from the state's descriptor, in `ctx`'s world.
            fetches[key] = Some(unsafe { Q::fetch_chunk::<S>(&state.data, &chunk, ctx) });
        }
        QueryView {
            state,
            world,
            fetches,
            keyed,
        }
    }

    /// Calls `f` with the item of `entity` if it matches the query, and returns what `f`
    /// returns; `None` for a stale handle or an entity lacking a required component (or
    /// failing the filter). The way to write through a view: the item lives only inside
    /// `f`, so two items of one entity never coexist.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(3),));
    /// let mut state = world.query_state::<&mut Hp, ()>().unwrap();
    /// let mut view = state.view_mut(&mut world);
    /// assert_eq!(view.with(e, |hp| { hp.0 -= 1; hp.0 }), Some(2));
    /// ```
    ///
    /// The item cannot leave the closure (two `&mut` to one value would follow):
    ///
    /// ```compile_fail
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// # #[derive(Component)]
    /// # struct Hp(u32);
    /// # let mut world = World::<VecStorage>::new();
    /// # let e = world.spawn((Hp(3),));
    /// # let mut state = world.query_state::<&mut Hp, ()>().unwrap();
    /// let mut view = state.view_mut(&mut world);
    /// let escaped = view.with(e, |hp| hp);
    /// ```
    #[inline]
    pub fn with<R>(
        &mut self,
        entity: Entity,
        f: impl for<'a> FnOnce(Q::Item<'a>) -> R,
    ) -> Option<R> {
        // SAFETY: `&mut self` for the call, and the item cannot leave `f` (its lifetime is
        // `f`'s own), so no other item of this view exists meanwhile; the view's borrow of
        // the world allows `Q`'s access (`new`'s contract).
        unsafe { self.item(entity) }.map(f)
    }

    /// The item of `entity` if it matches the query, for any query (one that writes
    /// included), borrowing the view mutably: only one item of the view lives at a time, so
    /// two items of one entity never coexist. `None` as for [`QueryView::with`].
    ///
    /// Answers through the state's look-up, as [`QueryState::get_mut`] does, not through
    /// the view's resolved columns: an item of those has the view's lifetime `'w`, and
    /// shortening it to this borrow would need a promise (items covariant in their lifetime)
    /// that [`QueryData`] does not make. [`QueryView::with`] keeps the resolved path.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Armor(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(10), Armor(4)));
    /// let mut state = world.query_state::<(&mut Hp, &Armor), ()>().unwrap();
    /// let mut view = state.view_mut(&mut world);
    /// let (hp, armor) = view.get_mut(e).unwrap();
    /// hp.0 -= 6 - armor.0;
    /// assert_eq!(view.get_mut(e).unwrap().0 .0, 8);
    /// ```
    ///
    /// An item cannot outlive the next call (two `&mut` to one value would follow):
    ///
    /// ```compile_fail,E0499
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// # #[derive(Component)]
    /// # struct Hp(u32);
    /// # let mut world = World::<VecStorage>::new();
    /// # let e = world.spawn((Hp(3),));
    /// # let mut state = world.query_state::<&mut Hp, ()>().unwrap();
    /// let mut view = state.view_mut(&mut world);
    /// let first = view.get_mut(e).unwrap();
    /// let second = view.get_mut(e).unwrap();
    /// first.0 += second.0;
    /// ```
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<Q::Item<'_>> {
        // SAFETY: the view's borrow of the world allows `Q`'s access (`new`'s contract), and
        // the item borrows the view mutably, so no other item of this view exists while it
        // lives (a read-only query's `get` items may: they only read, like this one then).
        // The shared borrows of the state and world are shortened to this call's borrow.
        unsafe { self.state.get_in(self.world, entity) }
    }

    /// The item of `entity`, through its table's resolved fetch where the backend keys
    /// chunks, else through the state's look-up.
    ///
    /// # Safety
    /// No other item of this view for `entity` that writes exists while the returned one
    /// lives (any number of items of a read-only query may).
    #[inline]
    unsafe fn item(&self, entity: Entity) -> Option<Q::Item<'w>> {
        if !S::KEYS_CHUNKS {
            // SAFETY: the world's borrow allows `Q`'s access (`new`), and the caller keeps
            // items of one entity from aliasing.
            return unsafe { self.state.get_in(self.world, entity) };
        }
        if !self.keyed {
            // SAFETY: as this function's.
            return unsafe { self.item_by_place(entity) };
        }
        if S::TRACED {
            // SAFETY: as this function's.
            let item = unsafe { self.item_by_row(entity) };
            self.state.record_get(self.world, entity, item.is_some());
            return item;
        }
        // SAFETY: as this function's.
        unsafe { self.item_by_row(entity) }
    }

    /// [`QueryView::item`] for a keying backend whose chunks are all keyed: the entity's
    /// row of its chunk's fetch, without recording the look-up.
    ///
    /// # Safety
    /// As for [`QueryView::item`].
    #[inline]
    unsafe fn item_by_row(&self, entity: Entity) -> Option<Q::Item<'w>> {
        // `None`: a stale handle, or an entity with no row (it matches only queries whose
        // chunks include unkeyed ones, and those take the path above).
        let ChunkRow { key, row } = self.world.storage().entity_row(entity)?;
        let (key, row) = (key.index(), row as usize);
        // No fetch for the key: every chunk has a key and none is the entity's, so it does
        // not match the descriptor (the `Storage` contract on `entity_row`), or its chunk's
        // rows are all disabled.
        let mut fetch = self.fetches.get(key)?.as_ref()?.clone();
        if !self.filter_passes(entity) {
            return None;
        }
        // SAFETY: `row` is `entity`'s row of the chunk `fetch` was made from (the `Storage`
        // contract on `entity_row` and `chunk_key`, and the type invariant); the caller
        // keeps items of one row from aliasing a write.
        unsafe { Q::fetch_row::<S>(&mut fetch, row, entity) }
    }

    /// [`QueryView::item`] for a keying backend whose chunks, this time, were not all keyed
    /// (a query matching rowless entities): the state's look-up. Out of line so the keyed
    /// path, the one a table backend's `get` loop runs, stays short (inlined, this call's
    /// register needs made that loop spill its sum and handle pointer).
    ///
    /// # Safety
    /// As for [`QueryView::item`].
    #[inline(never)]
    unsafe fn item_by_place(&self, entity: Entity) -> Option<Q::Item<'w>> {
        // SAFETY: the world's borrow allows `Q`'s access (`new`), and the caller keeps items
        // of one entity from aliasing.
        unsafe { self.state.get_in(self.world, entity) }
    }

    /// The filter, by look-up (as `QueryState::get` asks it); free for `()`.
    #[inline]
    fn filter_passes(&self, entity: Entity) -> bool {
        let probe = self.state.changes.probe(self.world.changes());
        F::matches_entity(&self.state.filter, self.world.storage(), &probe, entity)
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, S: Storage + 'w> QueryView<'w, Q, F, S> {
    /// The item of `entity` if it matches the query; `None` for a stale handle or an entity
    /// lacking a required component (or failing the filter).
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<Q::Item<'w>> {
        // SAFETY: the query only reads, so items of one entity may coexist.
        unsafe { self.item(entity) }
    }

    /// Whether `entity` matches the query.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }
}
