//! The backend contract: what a storage must provide for [`World`](crate::World) to run on it.
//!
//! The world owns the entity allocator and the component registry; a [`Storage`] owns the
//! component values and answers "where is component C of entity E" and "which runs of rows
//! match this query". Everything above it — the typed API, queries, filters, change
//! detection and systems — is written once against this trait and monomorphised per backend;
//! nothing in an iteration loop goes through dynamic dispatch.
//!
//! # Queries in chunks
//! A query is described to the storage as a list of [slots](QuerySlot): a component id and
//! whether it is required, optional or excluded. The storage answers with *chunks*: runs of
//! rows sharing one entity slice, and for each slot a [`ColumnAccess`]:
//!
//! * `Dense(base)`: every row of the chunk has the component, row `i` at `base + i * size`
//!   (an archetype column, the dense array of the sparse set driving the iteration, or of
//!   each owned set of a driving group, or a run of another set that holds exactly the
//!   chunk's entities in order);
//! * `Sparse(lookup)`: rows may or may not have it; look it up by entity;
//! * `Absent`: no row of the chunk has it.
//!
//! When [`Storage::is_dense`] says a component type is always dense in a backend, queries skip
//! the `Sparse` branch at compile time, so an archetype query's inner loop is a plain indexed
//! loop over column pointers.

use std::ptr::NonNull;

use crate::blob::BlobVec;
use crate::bundle::{Bundle, BundleInfo};
use crate::component::{Component, ComponentId, Components, StorageKind};
use crate::entity::Entity;
use crate::layout::StorageLayout;

/// How one slot of a query is reached within one chunk.
pub enum ColumnAccess<'a, L> {
    /// Every row has the component; row `i`'s value is at `base + i * item_size`.
    Dense(NonNull<u8>),
    /// Some rows may have the component: look it up by entity.
    Sparse(&'a L),
    /// No row of the chunk has the component.
    Absent,
}

impl<L> Clone for ColumnAccess<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for ColumnAccess<'_, L> {}

/// Per-entity look-up into a storage that does not keep a component in the chunk's rows.
pub trait SparseLookup: Sync {
    /// Pointer to `entity`'s value, or `None` when it has none.
    fn lookup(&self, entity: Entity) -> Option<NonNull<u8>>;
    /// [`lookup`](SparseLookup::lookup) with a guess of where the value sits; also returns
    /// where it was found, so the caller can guess the next one.
    ///
    /// Queries walk a chunk row by row and guess "the same offset from the row as last
    /// time": components spawned together sit in runs at a fixed offset in each store, so a
    /// backend can check the guessed position before its index look-up. The pointer must be
    /// the one `lookup(entity)` gives; the position is only ever used as a later `hint`.
    #[inline]
    fn lookup_hinted(&self, hint: usize, entity: Entity) -> Option<(NonNull<u8>, usize)> {
        self.lookup(entity).map(|ptr| (ptr, hint))
    }
    /// Whether `entity` has a value.
    fn contains(&self, entity: Entity) -> bool {
        self.lookup(entity).is_some()
    }
    /// True only when no entity has a value (an empty set): a query leaving out the
    /// holders of a component skips its per-row look-ups then (the `Disabled` set while
    /// nothing is disabled). The default, false, is always correct.
    #[inline]
    fn holds_none(&self) -> bool {
        false
    }
}

/// A look-up type for backends that never answer `Sparse`.
#[derive(Debug)]
pub enum NoLookup {}

impl SparseLookup for NoLookup {
    fn lookup(&self, _: Entity) -> Option<NonNull<u8>> {
        match *self {}
    }
}

/// One component's values for [`Storage::spawn_columns`]: contiguous values of the
/// component, one per entity being stored, handed over to the storage.
pub struct ColumnValues<'a> {
    /// The component.
    pub component: ComponentId,
    /// The first value; the others follow at the component's size apart.
    pub values: NonNull<u8>,
    /// The caller's buffer holding exactly these values, when it can give it up: a storage
    /// adding them to an empty column may swap buffers with it instead of copying.
    pub buffer: Option<&'a mut BlobVec>,
}

/// One run of rows yielded by [`Storage::query_chunks`].
pub trait QueryChunk<'a> {
    /// The backend's per-entity look-up (see [`ColumnAccess::Sparse`]).
    type Lookup: SparseLookup + 'a;
    /// The entities of the rows, in row order.
    fn entities(&self) -> &'a [Entity];
    /// How slot `slot` of the query's descriptor is reached in this chunk.
    fn column(&self, slot: usize) -> ColumnAccess<'a, Self::Lookup>;

    /// [`QueryChunk::column`] for a slot the caller knows is one of the descriptor's: a
    /// backend may skip its bounds check (a query walking many small tables resolves each
    /// slot once per table). The default is `column`.
    ///
    /// # Safety
    /// `slot` is below the slot count of the descriptor the chunk was made for.
    #[inline(always)]
    unsafe fn column_unchecked(&self, slot: usize) -> ColumnAccess<'a, Self::Lookup> {
        self.column(slot)
    }
}

/// The key of a chunk that random access can find again (a table's index in a table
/// backend): what [`Storage::chunk_key`] answers and [`ChunkRow`] holds. Keys are non-zero
/// (a table backend leaves its empty table, which holds no row, unkeyed), so
/// `Option<ChunkKey>` and `Option<ChunkRow>` cost no more than the values, and the key is
/// its own index: [`ChunkKey::index`] is free.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkKey(std::num::NonZeroU32);

impl ChunkKey {
    /// The key `key`; `None` for 0, which names no chunk.
    #[inline]
    pub const fn new(key: u32) -> Option<ChunkKey> {
        match std::num::NonZeroU32::new(key) {
            Some(key) => Some(ChunkKey(key)),
            None => None,
        }
    }

    /// The key as a number (at least 1).
    #[inline]
    pub const fn get(self) -> u32 {
        self.0.get()
    }

    /// The key as an index (at least 1: a table of chunks by key leaves slot 0 unused).
    #[inline]
    pub const fn index(self) -> usize {
        self.0.get() as usize
    }
}

/// A chunk's key and a row in it: where a keyed backend keeps an entity (what
/// [`Storage::entity_row`] and [`EntityPlace::chunk_row`] answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkRow {
    /// The chunk.
    pub key: ChunkKey,
    /// The row in it.
    pub row: u32,
}

/// An entity found in a storage once, for reading several of its components after one
/// look-up (what [`QueryState::get`](crate::QueryState::get) does per call).
///
/// A table backend finds the entity's row once and then reads each column at that row; a
/// backend with no per-entity record answers each read by entity ([`ByEntity`]).
pub trait EntityPlace: Copy {
    /// Pointer to the entity's value of `component`: exactly what
    /// [`Storage::get_ptr`] answers for the entity this place was found for.
    fn ptr(&self, component: ComponentId) -> Option<NonNull<u8>>;

    /// [`EntityPlace::ptr`] for `component` = `T`'s id: the same answer, for a backend that
    /// can tell where `T` is kept from the type alone (`T::STORAGE` of a type that is not
    /// [`MOVABLE`](Component::MOVABLE), as [`Storage::is_dense`] does) and so skip looking up where `component` is kept, or
    /// that can use `T`'s size as the stride. Typed queries and
    /// [`EntityRef::get`](crate::EntityRef::get) read through this. For a `component` that
    /// is not `T`'s id the answer is unspecified (the crate passes only `T`'s id).
    #[inline]
    fn ptr_of<T: Component>(&self, component: ComponentId) -> Option<NonNull<u8>> {
        self.ptr(component)
    }

    /// The place's chunk (a key) and row in it, for a backend that keeps each dense type's
    /// values of a chunk in one array indexed by row (the `Storage` contract's "Rows"): a
    /// walk reading the same components of entity after entity (the hierarchy's
    /// [`Descendants`](crate::hierarchy::Descendants)) then resolves each chunk's arrays
    /// once and reads the next entity of that chunk by its row alone. The default answers
    /// `None`: every read goes through `ptr_of`.
    #[inline]
    fn chunk_row(&self) -> Option<ChunkRow> {
        None
    }
}

/// The [`EntityPlace`] of a backend that keeps no per-entity record: each read is a
/// [`Storage::get_ptr`] by entity, so finding the entity first would save nothing.
pub struct ByEntity<'a, S> {
    storage: &'a S,
    entity: Entity,
}

impl<'a, S: Storage> ByEntity<'a, S> {
    /// The place of `entity` in `storage` (not checked: reads answer `None` for an entity
    /// the storage does not hold, as `get_ptr` does).
    #[inline]
    pub fn new(storage: &'a S, entity: Entity) -> Self {
        ByEntity { storage, entity }
    }
}

impl<S> Clone for ByEntity<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for ByEntity<'_, S> {}

impl<S: Storage> EntityPlace for ByEntity<'_, S> {
    #[inline]
    fn ptr(&self, component: ComponentId) -> Option<NonNull<u8>> {
        self.storage.get_ptr(self.entity, component)
    }
}

/// What a query slot asks of an entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotRole {
    /// The entity must have the component (a fetched `&T`/`&mut T`, or `With<T>`).
    Required,
    /// Fetched if present (`Option<&T>`); does not affect matching.
    Optional,
    /// The entity must not have the component (`Without<T>`).
    Excluded,
}

/// One component a query touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuerySlot {
    /// The component.
    pub component: ComponentId,
    /// How it affects matching.
    pub role: SlotRole,
}

/// The storage-facing description of a query: its slots, in the order fetches refer to them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryDescriptor {
    slots: Vec<QuerySlot>,
}

impl QueryDescriptor {
    /// Adds a slot and returns its index.
    pub fn push(&mut self, component: ComponentId, role: SlotRole) -> usize {
        self.slots.push(QuerySlot { component, role });
        self.slots.len() - 1
    }

    /// All slots in order.
    #[inline]
    pub fn slots(&self) -> &[QuerySlot] {
        &self.slots
    }

    /// Components that must be present.
    pub fn required(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.with_role(SlotRole::Required)
    }

    /// Components that must be absent.
    pub fn excluded(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.with_role(SlotRole::Excluded)
    }

    fn with_role(&self, role: SlotRole) -> impl Iterator<Item = ComponentId> + '_ {
        self.slots
            .iter()
            .filter(move |s| s.role == role)
            .map(|s| s.component)
    }
}

/// What [`Storage::fold_chunks`] does with each chunk: a query scan's per-chunk step
/// (resolve the chunk's columns, then run its rows).
///
/// A trait rather than a closure so the step can be marked always-inline: an override of
/// `fold_chunks` that calls it in several places (one per chunk variant) then gets a copy
/// specialised to each variant, where a closure called from several places is compiled
/// once, out of line, and tests the variant again inside.
pub trait FoldChunk<C, B> {
    /// Folds `chunk` into `acc`.
    fn fold_chunk(&mut self, acc: B, chunk: C) -> B;
}

/// A storage backend.
///
/// # Safety
/// Implementors promise, and [`World`](crate::World) and queries rely on it for memory
/// safety. "The registry" is the [`Components`] every call that takes one is given (the
/// world's; its ids never change meaning); "held" means spawned into the storage and not
/// despawned since.
/// * **Values.** `get_ptr(e, c)` is `Some` exactly when the storage holds `e` with a value of
///   `c`, comparing the whole handle (a stale handle whose index was reused answers `None`;
///   `World::get` relies on this instead of checking liveness again), and then points to
///   that initialised value; `contains(e, c)` is `get_ptr(e, c).is_some()`. Pointers for
///   distinct `(e, c)` pairs never overlap.
/// * **Where values live.** Values live in raw allocations (such as
///   [`BlobVec`]), not in memory covered by a `&self` borrow, and stay
///   put until the next `&mut self` call: every pointer handed out through `&self` (by
///   `get_ptr`, places, chunks and their look-ups) is valid for the whole borrow, also after
///   the chunk or iterator that gave it, or the query cache it was read through, is dropped
///   (a cache holds no values: [`World::query_ref`](crate::World::query_ref) drops its state
///   while the items live on). Callers write through these pointers
///   while holding the storage exclusively, or while holding it shared with the right to the
///   values they write (systems, `par_for_each`); the `&self` methods never read or write
///   component values, only the storage's own bookkeeping, so they may run on other threads
///   meanwhile.
/// * **Entities.** The storage holds exactly the entities spawned into it and not despawned
///   (it may keep nothing at all for one without components: queries then find it in
///   `alive`).
/// * **Places.** `place(e)` answers `None` only for an entity the storage does not hold, and
///   otherwise a place whose `ptr(c)` is what `get_ptr(e, c)` answers, for every `c` and
///   for stale handles too, while the borrow lasts; `ptr_of::<T>(c)` answers the same for
///   `c` = `T`'s id.
/// * **Rows.** If two places found through one shared borrow of the storage answer
///   `chunk_row()` with the same key `k` and rows `r1` and `r2`, then for every `T` with
///   `is_dense::<T>()` and `c` = `T`'s id, `ptr_of::<T>(c)` is `None` on both, or `Some(p1)`
///   and `Some(p2)` with `p2 == p1.wrapping_offset(r2 as isize - r1 as isize)` in units of
///   `T`, both in one allocation (one array of `T`s per key), so a pointer derived from
///   `p1` may read `p2` while the borrow lasts.
/// * **Keys.** If `entity_row(e)` is `Some` with key `k` and row `r`, the storage holds `e`,
///   and every chunk of `query_chunks` (any descriptor, same borrow) whose `chunk_key` is
///   `Some(k)` has `e` at row `r` (`r < entities().len()`), with its values at row `r` of
///   each `Dense` column.
///   When every chunk of a query has a key and `e` matches the descriptor, one of them has
///   key `k` (no two chunks of a query share a key). If `entity_row(e)` is `None`, `e` is in
///   no keyed chunk of any query (it may be in unkeyed ones).
/// * **Query caches.** `update_query_cache(cache, d, registry)` makes `cache` describe `d`
///   for the storage as it is now, from a `Default` cache or one that was only ever updated
///   for `d` with this storage and registry (what [`QueryState`](crate::QueryState) does).
/// * **Chunks.** For such a cache, with no `&mut self` call since its update and `alive`
///   the world's live entities, `query_chunks` yields chunks whose entities are live and
///   pairwise distinct across all chunks, and every entity matching `d` (all required
///   slots present, all excluded absent) in one of them. For slot `s` (component `c`) of a
///   chunk: `Dense(base)` means every row `i` holds `c`, its value at
///   `base + i * size` (the pointer `get_ptr(entities[i], c)` gives); `Sparse(lookup)` means
///   `lookup.lookup(e)` is `get_ptr(e, c)` for every entity, `lookup_hinted` gives the same
///   pointer whatever the hint, and `lookup.contains(e)` agrees; `Absent` means no row of the
///   chunk holds `c`. A row whose required slots are all `Dense` and excluded slots all
///   `Absent` matches `d` without further checks.
/// * **Dense types.** If `is_dense::<T>()` is true, for a cache updated with the registry `T`
///   is registered in, a chunk never answers `Sparse` for a slot of `T`, and never yields a
///   chunk where a required slot of `T` is `Absent` or an excluded slot is `Dense`, whether
///   or not a value of `T` was ever stored.
/// * **Kinds that move.** A backend whose `set_storage` can succeed decides where a
///   [`MOVABLE`](Component::MOVABLE) type's values are by what it keeps at run time, never
///   by `T::STORAGE`: in `is_dense` (false for it), `ptr_of`, `get_ptr_of`, typed inserts
///   and removes, and spawns. Query caches planned before a successful `set_storage` are
///   planned again on their next update.
/// * **Moves.** `remove_into` answering true has moved the entity's initialised value into
///   `dst` and forgotten it; answering false it touched neither `dst` nor the storage.
/// * **Drops.** Every value moved in is dropped exactly once (by `despawn`, `clear`, `Drop`)
///   or moved out once (`remove_into`); a panicking `Drop` leaves the storage consistent and
///   the remaining values still dropped.
///
/// What the world promises in return is written on each `unsafe fn` (`spawn`,
/// `spawn_batch`, `reserve`, `group`, `insert`, `insert_new`, `remove_into`): a safe caller
/// cannot pass a bundle description, component id or registry that does not fit, so those
/// methods are `unsafe` to call. What the world itself trusts of users' code (codecs,
/// descriptors, bundles, drops) is listed in [`crate::safety`].
pub unsafe trait Storage: Default + Send + Sync + 'static {
    /// The backend's name in reports and messages (`"archetype"`, `"sparse"`, ...).
    const NAME: &'static str;

    /// Whether [`Storage::chunk_key`] can answer `Some` (a table backend). `false` (the
    /// default) lets random access ([`QueryView`](crate::query::QueryView)) go straight to
    /// [`Storage::place`] at compile time, without walking the chunks for keys first. Only
    /// speed depends on it: a backend that keys chunks while saying `false` is read through
    /// `place` anyway, and one that says `true` without keying any chunk only walks its
    /// chunks once per view for nothing.
    const KEYS_CHUNKS: bool = false;

    /// Whether this storage can record traces ([`crate::trace::Traced`]): the world's
    /// recording code is compiled only where this is true, so a storage that keeps the
    /// default pays nothing for it. A storage saying `true` answers `Some` from
    /// [`Storage::recorder`] and [`Storage::recorder_mut`].
    const TRACED: bool = false;

    /// Look-up used for [`ColumnAccess::Sparse`].
    type Lookup: SparseLookup;
    /// A run of rows (see [`QueryChunk`]).
    type Chunk<'a>: QueryChunk<'a, Lookup = Self::Lookup>
    where
        Self: 'a;
    /// The chunks of one query.
    type Chunks<'a>: Iterator<Item = Self::Chunk<'a>>
    where
        Self: 'a;
    /// Per-query state the backend keeps between runs (matched tables, ...).
    type QueryCache: Default + Send + Sync + 'static;
    /// An entity found once for several component reads (see [`EntityPlace`]).
    type Place<'a>: EntityPlace
    where
        Self: 'a;

    /// Whether every value of `T` lives in dense chunk columns in this backend (a
    /// compile-time fact; queries drop their sparse branch for such types). A backend whose
    /// [`Storage::set_storage`] can move `T` answers false for a
    /// [`MOVABLE`](Component::MOVABLE) `T` (see the contract's "Kinds that move").
    fn is_dense<T: Component>() -> bool;

    /// Stores a new entity with the bundle's components.
    ///
    /// # Safety
    /// `entity` is live in the world and not held by the storage; `info` is the
    /// [`BundleInfo`] the world resolved for `B` against `components` (its ids are `B`'s
    /// components in field order; its [`BundleId`](crate::bundle::BundleId) names `B` alone
    /// in this world); `components` is the registry.
    unsafe fn spawn<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
    );

    /// Stores a batch of new entities, each with its bundle (what `World::spawn_batch` calls).
    ///
    /// The default spawns one by one; backends override it to resolve the bundle's layout
    /// once and append rows without per-row capacity checks.
    ///
    /// # Safety
    /// As for [`Storage::spawn`], for every entity of the batch (pairwise distinct).
    unsafe fn spawn_batch<B: Bundle>(
        &mut self,
        batch: impl Iterator<Item = (Entity, B)>,
        info: &BundleInfo,
        components: &Components,
    ) {
        for (entity, bundle) in batch {
            // SAFETY: forwarded contract, per entity.
            unsafe { self.spawn(entity, bundle, info, components) };
        }
    }

    /// Stores new entities whose components come as columns of values (what loading a
    /// snapshot does): `entities[i]` gets, for each column, the value at
    /// `values + i * size` (`size` the component's registered, padded size), moved in.
    /// Every entity gets exactly the components of `columns` (none when it is empty).
    ///
    /// The default spawns each entity with no component and inserts its values one by one;
    /// backends override it to place a whole column at once (one copy per column into a
    /// table, one append per sparse set), or to take a column's [`buffer`](ColumnValues)
    /// itself where their own is empty.
    ///
    /// # Safety
    /// * The entities are live in the world, pairwise distinct, and not held by the storage.
    /// * `empty` is the [`BundleInfo`] the world resolved for `()` against `components`, the
    ///   registry.
    /// * The components of `columns` are pairwise distinct and registered in `components`;
    ///   each column's `values` points to `entities.len()` initialised values of its
    ///   component, outside this storage, which may be used and dropped on any thread (as a
    ///   `Send + Sync` type's) and which the caller will not use or drop again; a `buffer`,
    ///   when given, holds exactly those values and nothing else, and may be swapped with a
    ///   buffer of the storage's (the caller then forgets whatever it holds without
    ///   dropping it).
    unsafe fn spawn_columns(
        &mut self,
        entities: &[Entity],
        columns: &mut [ColumnValues<'_>],
        empty: &BundleInfo,
        components: &Components,
    ) {
        // SAFETY: forwarded contract.
        unsafe { spawn_columns_by_entity(self, entities, columns, empty, components) }
    }

    /// Makes `owned` an owning group (see [`World::group`](crate::World::group)): from now on
    /// the storage keeps the entities holding all of them packed together, so a query
    /// requiring them walks parallel arrays. The default answers that the backend has none.
    ///
    /// # Errors
    /// [`EcsError::Group`](crate::EcsError::Group) when the backend keeps no groups, or the
    /// components cannot form one there.
    ///
    /// # Safety
    /// `owned` are registered in `components`, the registry.
    unsafe fn group(
        &mut self,
        owned: &[ComponentId],
        components: &Components,
    ) -> Result<(), crate::EcsError> {
        let _ = (owned, components);
        Err(crate::EcsError::Group {
            reason: format!(
                "the {} backend keeps no owning groups (they reorder sparse sets; tables keep \
                 an archetype's components together already)",
                Self::NAME
            ),
        })
    }

    /// Reorders `component`'s values, kept outside the tables, to follow the tables' rows
    /// (table by table, row by row), so that a query joining it with table components reads
    /// it like one more column until entities move again. Returns whether anything was
    /// reordered: only a backend keeping tables *and* sets (the hybrid) has anything to
    /// align; the default does nothing and answers false.
    ///
    /// Implementations keep every promise of this contract: the same entities hold the same
    /// values, only their order in the component's own storage changes.
    fn align_with_tables(&mut self, component: ComponentId) -> bool {
        let _ = component;
        false
    }

    /// Where this backend keeps `component`'s values. A backend with one kind of storage
    /// answers it whatever the component asked for (the default: tables; the sparse-set
    /// backends answer sparse); the hybrid answers the kind the registry records now.
    fn storage_kind(&self, component: ComponentId, components: &Components) -> StorageKind {
        let _ = (component, components);
        StorageKind::Table
    }

    /// Moves every value of `component` into storage `kind`: entities keep their handles
    /// and values; nothing is dropped, no value is added or removed. All or nothing: room
    /// for every value is made before the first one moves, and the moves themselves run
    /// no user code, so an error or a panic (an allocation failing) leaves every value
    /// where it was. The default refuses: only a backend with both kinds of storage (the
    /// hybrid) can move a component between them.
    ///
    /// # Errors
    /// [`EcsError::Storage`](crate::EcsError::Storage) when the backend cannot keep `component` as `kind` (one kind
    /// of storage for every component, or an owning group holds it); nothing moved.
    ///
    /// # Safety
    /// `component` is registered in `components`, the world's registry, which records its
    /// current kind and says it is movable ([`ComponentInfo::movable`]); on `Ok` the caller
    /// records `kind` for it in the registry before any other call to this storage (plans
    /// and spawns read the kind there).
    ///
    /// [`ComponentInfo::movable`]: crate::component::ComponentInfo::movable
    unsafe fn set_storage(
        &mut self,
        component: ComponentId,
        kind: StorageKind,
        components: &Components,
    ) -> Result<(), crate::EcsError> {
        let _ = kind;
        Err(crate::EcsError::Storage {
            component: components.info(component).name().to_owned(),
            reason: format!(
                "the {} backend keeps every component in one kind of storage; only the \
                 hybrid backend moves a component between tables and sparse sets",
                Self::NAME
            ),
        })
    }

    /// Prepares room for `additional` entities spawned with bundle `info`.
    ///
    /// # Safety
    /// `info` and `components` as for [`Storage::spawn`].
    unsafe fn reserve(&mut self, info: &BundleInfo, components: &Components, additional: usize);

    /// Removes an entity and drops all its components. Does nothing for an unknown entity.
    fn despawn(&mut self, entity: Entity);

    /// Pointer to `entity`'s value of `component`, if it has one.
    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>>;

    /// [`Storage::get_ptr`] for `component` = `T`'s id: the same answer, for a backend that
    /// can tell where `T` is kept from the type alone (see [`EntityPlace::ptr_of`]). The
    /// world's typed `get`, `get_mut` and `has` read through this.
    #[inline]
    fn get_ptr_of<T: Component>(
        &self,
        entity: Entity,
        component: ComponentId,
    ) -> Option<NonNull<u8>> {
        self.get_ptr(entity, component)
    }

    /// Finds `entity` once, for reading several of its components (a table backend's row).
    ///
    /// `None` when the storage can tell it does not hold `entity`; a backend without
    /// per-entity records may answer with a place whose reads all answer `None` instead.
    fn place(&self, entity: Entity) -> Option<Self::Place<'_>>;

    /// The key of the chunk `entity` is in and its row there, when the backend's chunks are
    /// keyed (tables); see [`Storage::chunk_key`]. The default answers `None`: random access
    /// then reads through [`Storage::place`].
    #[inline]
    fn entity_row(&self, entity: Entity) -> Option<ChunkRow> {
        let _ = entity;
        None
    }

    /// A small number naming `chunk` among a query's chunks (a table's index), so that a
    /// [`QueryView`](crate::query::QueryView) can resolve each chunk's columns once and then
    /// answer `get(entity)` from [`Storage::entity_row`]. The default answers `None`.
    #[inline]
    fn chunk_key(chunk: &Self::Chunk<'_>) -> Option<ChunkKey> {
        let _ = chunk;
        None
    }

    /// Whether `entity` has `component`.
    fn contains(&self, entity: Entity, component: ComponentId) -> bool {
        self.get_ptr(entity, component).is_some()
    }

    /// Adds a component the entity does not have yet, taking ownership of the value.
    ///
    /// # Safety
    /// `entity` is held and lacks `component`; `components` is the registry; `value` points
    /// to an initialised value of `component` (as registered there), outside this storage,
    /// that may be used and dropped on any thread (as a `Send + Sync` type's), and that the
    /// caller will not use or drop again.
    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    );

    /// Adds several components the entity does not have yet at once, taking ownership of
    /// each value: what a queued command's bundle does, so that a table backend moves the
    /// row once (straight into the table of the final set) instead of once per component.
    ///
    /// The default inserts them one by one ([`Storage::insert_new`]).
    ///
    /// # Safety
    /// `entity` is held and lacks every component of `values`, which are pairwise distinct;
    /// `components` is the registry; each value is as for [`Storage::insert_new`] (an
    /// initialised value of its component, outside this storage, usable and droppable on any
    /// thread, which the caller will not use or drop again).
    unsafe fn insert_new_many(
        &mut self,
        entity: Entity,
        values: &mut [(ComponentId, NonNull<u8>)],
        components: &Components,
    ) {
        for &(component, value) in values.iter() {
            // SAFETY: forwarded contract, one component at a time (distinct, so each is
            // still lacking when its turn comes).
            unsafe { self.insert_new(entity, component, value, components) };
        }
    }

    /// Sets `entity`'s `T`, returning the previous value.
    ///
    /// # Safety
    /// `entity` is held; `id` is `T`'s id in `components`, the registry.
    unsafe fn insert<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    ) -> Option<T> {
        if let Some(ptr) = self.get_ptr(entity, id) {
            // SAFETY: `get_ptr` points to the entity's value of `id`, a `T` (caller), and no
            // one else uses it while we hold `&mut self`; `replace` keeps it initialised.
            return Some(unsafe { ptr.cast::<T>().as_ptr().replace(value) });
        }
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: `get_ptr` answered `None`, so the held entity lacks `id` (the contract's
        // "values" promise); the value is an owned `T` (`Send + Sync`), on our stack, which
        // the `ManuallyDrop` keeps us from dropping.
        unsafe { self.insert_new(entity, id, NonNull::from(&*value).cast(), components) };
        None
    }

    /// Moves `entity`'s `component` into `dst` and removes it; false if it had none.
    ///
    /// # Safety
    /// `dst` is valid for writing one value of `component` and does not overlap the storage.
    unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool;

    /// Removes `entity`'s `T` and returns it, `None` if it had none: [`Storage::remove_into`]
    /// for a typed component, which a backend may do with copies sized at compile time.
    /// [`World::remove`](crate::World::remove) and [`World::take`](crate::World::take) go
    /// through this.
    ///
    /// # Safety
    /// `id` is `T`'s id, or a named instance of `T`'s, in the registry.
    #[inline]
    unsafe fn remove_typed<T: Component>(&mut self, entity: Entity, id: ComponentId) -> Option<T> {
        let mut out = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `out` is a slot for one `T`, `id`'s type (caller), on our stack: writable
        // and outside the storage.
        let moved = unsafe { self.remove_into(entity, id, NonNull::from(&mut out).cast()) };
        // SAFETY: `remove_into` answered true, so it wrote an initialised `T` into `out`.
        moved.then(|| unsafe { out.assume_init() })
    }

    /// Drops every component of every entity; the storage stays usable.
    fn clear(&mut self);

    /// Brings `cache` up to date with the storage's current layout for `descriptor`.
    ///
    /// `components` is the registry every slot's component was registered in: it answers
    /// each slot's [`StorageKind`] even for a component no value of which
    /// was ever stored, so a backend never has to guess where a slot's values would live.
    fn update_query_cache(
        &self,
        cache: &mut Self::QueryCache,
        descriptor: &QueryDescriptor,
        components: &Components,
    );

    /// The chunks matching `descriptor`. `cache` was brought up to date by
    /// `update_query_cache` with no `&mut self` call since; `alive` is every live entity.
    fn query_chunks<'a>(
        &'a self,
        cache: &'a Self::QueryCache,
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> Self::Chunks<'a>;

    /// Folds the chunks left in `chunks`, in order, as `for chunk in chunks` does: a query's
    /// `for_each` scan runs through this. A backend whose chunk type is an enum (the hybrid
    /// backend's, table or sparse) can override it to match once per run and fold each
    /// variant's chunks with the variant known, so the per-chunk set-up (entities, column
    /// pointers) does not test the variant again at every chunk.
    ///
    /// An override hands `f` exactly the chunks `chunks.next()` would, in the same order,
    /// and leaves `chunks` exhausted: the chunk promises of the safety contract above are
    /// promises about those chunks.
    #[inline(always)]
    fn fold_chunks<'a, B>(
        chunks: &mut Self::Chunks<'a>,
        init: B,
        f: &mut impl FoldChunk<Self::Chunk<'a>, B>,
    ) -> B
    where
        Self: 'a,
    {
        let mut acc = init;
        for chunk in chunks {
            acc = f.fold_chunk(acc, chunk);
        }
        acc
    }

    /// Heap bytes held by the storage (columns, sets, indices).
    fn memory_usage(&self) -> usize;

    /// The trace recorder of a storage that records ([`Storage::TRACED`]); `None` (the
    /// default) for every other.
    #[inline]
    fn recorder(&self) -> Option<&crate::trace::Recorder> {
        None
    }

    /// [`Storage::recorder`], mutably.
    #[inline]
    fn recorder_mut(&mut self) -> Option<&mut crate::trace::Recorder> {
        None
    }

    /// What the storage holds, unit by unit (tables, sparse sets), with its groups and the
    /// bytes outside any unit (records, indices, caches): what
    /// [`World::layout`](crate::World::layout) shows a learner. Component names come from
    /// `components`, the registry.
    ///
    /// The layout's [`bytes`](StorageLayout::bytes) must equal
    /// [`memory_usage`](Storage::memory_usage) (not a safety promise: the conformance suite
    /// checks it). The default itemises nothing: one bookkeeping line with the total.
    fn layout(&self, components: &Components) -> StorageLayout {
        let _ = components;
        StorageLayout::opaque(self.memory_usage())
    }
}

/// [`Storage::spawn_columns`] one entity at a time: each spawned with no component, then
/// its values inserted one by one. The trait's default; a backend's override falls back to
/// it where its bulk path does not apply (the sparse backend with owning groups, which must
/// see every arrival).
///
/// # Safety
/// As for [`Storage::spawn_columns`].
pub unsafe fn spawn_columns_by_entity<S: Storage>(
    storage: &mut S,
    entities: &[Entity],
    columns: &[ColumnValues<'_>],
    empty: &BundleInfo,
    components: &Components,
) {
    for (row, &entity) in entities.iter().enumerate() {
        // SAFETY: the entity is live and not held (caller); `empty` is `()`'s info.
        unsafe { storage.spawn(entity, (), empty, components) };
        for column in columns {
            let (component, base) = (column.component, column.values);
            let size = components.info(component).layout().size();
            // SAFETY: the entity is now held and lacks `component` (it was spawned with
            // none, and the column ids are distinct); row `row` of the column is an owned,
            // initialised value of it (caller), handed over once.
            unsafe { storage.insert_new(entity, component, base.add(row * size), components) };
        }
    }
}
