//! [`ArchetypeStorage`]: the [`Storage`] implementation over [`Archetypes`].
//!
//! Every component lives in a table column, so every query slot is dense: the backend tells
//! queries so at compile time (`is_dense` is `true`) and they drop their sparse branch.
//!
//! * spawn: bundle cache → table; one typed push per field; one record write. An entity
//!   spawned with no component gets no row and no record: it costs only its allocator slot.
//! * insert of a new component / remove: follow the graph edge, move the row (shared columns
//!   copied, the differing component supplied or handed out), fix two records.
//! * despawn: swap-remove the row, fix the moved entity's record, then drop the values.
//! * query: the query cache's matched tables, one chunk per non-empty table; a query that
//!   requires no component also gets the runs of component-less entities of the live list.

use std::ptr::NonNull;

use ecs_core::bundle::{Bundle, BundleInfo};
use ecs_core::component::{Component, ComponentId, Components};
use ecs_core::entity::Entity;
use ecs_core::layout::StorageLayout;
use ecs_core::storage::{
    ChunkKey, ChunkRow, ColumnValues, EntityPlace, FoldChunk, NoLookup, QueryDescriptor, Storage,
};

use crate::archetypes::Archetypes;
use crate::bundle_cache::BundleCache;
use crate::chunk::{ArchetypeChunk, ArchetypeChunks};
use crate::query_cache::QueryCache;
use crate::split::{AllInTables, ColumnWriter, OffTable};
use crate::table::TableRow;

/// Archetype storage: each entity's components in one row of the table of its component set.
///
/// ```
/// use ecs_archetype::ArchetypeStorage;
/// use ecs_core::{Component, World, Without};
///
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// #[derive(Component)]
/// struct Frozen;
///
/// let mut world = World::<ArchetypeStorage>::new();
/// let moving = world.spawn((Position(0.0), Velocity(2.0)));
/// let frozen = world.spawn((Position(0.0), Velocity(2.0), Frozen));
/// world
///     .query_filtered::<(&mut Position, &Velocity), Without<Frozen>>()
///     .for_each(|(p, v)| p.0 += v.0);
/// assert_eq!(world.get::<Position>(moving).unwrap().0, 2.0);
/// assert_eq!(world.get::<Position>(frozen).unwrap().0, 0.0);
/// // Two component sets, two tables (plus the empty set's, which never holds a row).
/// assert_eq!(world.storage().archetypes().tables().len(), 3);
/// ```
#[derive(Debug, Default)]
pub struct ArchetypeStorage {
    archetypes: Archetypes,
    bundles: BundleCache,
}

impl ArchetypeStorage {
    /// Forgets every bundle's resolved table and field columns, so the next spawn of each
    /// bundle type asks its split again where each field goes: what a storage built on
    /// this one calls after moving a component between the tables and elsewhere (the
    /// [`OffTable`] contract for movable types).
    pub fn forget_bundles(&mut self) {
        self.bundles.clear();
    }

    /// The tables, graph, component index and records, for moving rows (a storage built on
    /// this one changing where a component lives).
    #[inline]
    pub fn archetypes_mut(&mut self) -> &mut Archetypes {
        &mut self.archetypes
    }

    /// The tables, graph, component index and records (read-only).
    #[inline]
    pub fn archetypes(&self) -> &Archetypes {
        &self.archetypes
    }
}

impl ArchetypeStorage {
    /// Spawns `entity` with `bundle`: its table fields into a table row, the fields `off`
    /// keeps elsewhere handed to it (see [`crate::split`]). The all-tables backend spawns
    /// through it with [`AllInTables`]; an entity spawned with no component gets no row and
    /// no record (the `Archetypes` invariant), so nothing is done.
    ///
    /// # Safety
    /// As for [`Storage::spawn`]; and every spawn and reserve on this storage uses the same
    /// `O` (the bundle cache keeps the split of the first).
    #[inline]
    pub unsafe fn spawn_split<B: Bundle, O: OffTable>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
        off: &mut O,
    ) {
        if info.components().is_empty() {
            return;
        }
        // SAFETY: forwarded contract (a batch of one).
        unsafe { self.spawn_batch_split(std::iter::once((entity, bundle)), info, components, off) };
    }

    /// [`ArchetypeStorage::spawn_split`] for a batch: the bundle's table and columns are
    /// resolved once, then each row is appended without a capacity check.
    ///
    /// # Safety
    /// As for [`Storage::spawn_batch`], with the same `O` on every call (see
    /// [`ArchetypeStorage::spawn_split`]).
    pub unsafe fn spawn_batch_split<B: Bundle, O: OffTable>(
        &mut self,
        batch: impl Iterator<Item = (Entity, B)>,
        info: &BundleInfo,
        components: &Components,
        off: &mut O,
    ) {
        let in_table = |c: ComponentId| O::id_in_tables(c, components);
        let target = self
            .bundles
            .resolve_split(info, &mut self.archetypes, components, in_table);
        let field_columns = &target.field_columns;
        // SAFETY: `info` is the world's resolution of `B` (caller), so the cached target's
        // table set is exactly the bundle's table fields (split by the same `O` every time),
        // which `field_columns` maps one-to-one onto its columns; `visit` pushes at most one
        // value of the right type onto each and, when it returns, exactly one (the other
        // fields go to `off`, `OffTable` contract); a panic midway is rolled back by
        // `push_batch`.
        unsafe {
            self.archetypes.push_batch(
                target.table,
                batch,
                #[inline(always)]
                |columns, entity, bundle| {
                    bundle.visit(&mut ColumnWriter {
                        columns,
                        field_columns,
                        off: &mut *off,
                        ids: info.components(),
                        entity,
                        components,
                    })
                },
            );
        }
    }

    /// Makes room for `additional` entities spawned with `info`'s bundle (its table
    /// fields, as split by `O`).
    ///
    /// # Safety
    /// As for [`Storage::reserve`], with the same `O` as every spawn on this storage.
    pub unsafe fn reserve_split<O: OffTable>(
        &mut self,
        info: &BundleInfo,
        components: &Components,
        additional: usize,
    ) {
        let in_table = |c: ComponentId| O::id_in_tables(c, components);
        let table = self
            .bundles
            .resolve_split(info, &mut self.archetypes, components, in_table)
            .table;
        self.archetypes.reserve(table, additional);
    }
}

// SAFETY:
// * `get_ptr` and chunk pointers point into `BlobVec` columns (raw allocations, not covered by
//   the `&self` borrow); a `(table, row, column)` holds one value, so pointers for distinct
//   `(entity, component)` pairs do not overlap, and they stay valid until a `&mut self` call.
// * Each live entity is in at most one table row (`Archetypes` invariant), each matched table
//   is listed once in the query cache and yields one chunk, so each entity with a row
//   appears at most once; every table fitting the descriptor is in the cache (`QueryCache`
//   invariant: every table is examined, and a fitting table holds the rarest required
//   component, so it is a candidate). Dense pointers are column bases valid for the table's
//   `len()` rows. A live entity without a row matches exactly the descriptors with no
//   required slot, which are the ones matching the empty set's table; for those the chunks
//   begin with the runs of `alive` (distinct live entities) whose records are vacant, i.e.
//   the rowless entities, each once, every slot `Absent` (the empty set has no column).
// * `is_dense` is true for every type and no chunk answers `Sparse`: required slots of matched
//   tables always have a column (Dense), excluded slots never (Absent).
// * `place` is the entity's record (generation-checked) and reads its table's columns at its
//   row, as `get_ptr` does; a vacant record gives a rowless place, whose reads answer `None`
//   as `get_ptr` does; `None` only when the index is held by another generation (stale).
//   `entity_row` is the record's (table index, row), `Some` for every entity with a row; a
//   table chunk's key is its table's index and its rows are the table's, so the entity is at
//   that row of the chunk keyed by its table, which is the only chunk it can be in. An
//   entity without a row gives `None` and is only ever in unkeyed chunks (rowless runs).
// * Values are dropped exactly once: by `Table::swap_remove_and_drop_row`, `Table::clear` or
//   the columns' own `Drop`, each panic-safe; moved between tables bytewise (owned once);
//   moved out once by `remove_into`.
unsafe impl Storage for ArchetypeStorage {
    const NAME: &'static str = "archetype";
    const KEYS_CHUNKS: bool = true;

    type Lookup = NoLookup;
    type Chunk<'a> = ArchetypeChunk<'a>;
    type Chunks<'a> = ArchetypeChunks<'a>;
    type QueryCache = QueryCache;
    type Place<'a> = TableRow<'a>;

    #[inline(always)]
    fn is_dense<T: Component>() -> bool {
        true
    }

    /// A batch of one: the same path as `spawn_batch`.
    #[inline]
    unsafe fn spawn<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
    ) {
        if B::COUNT == 0 {
            return; // no row for an entity without components (see the module docs)
        }
        // SAFETY: forwarded contract; this storage splits every bundle with `AllInTables`.
        unsafe { self.spawn_split(entity, bundle, info, components, &mut AllInTables) };
    }

    unsafe fn spawn_batch<B: Bundle>(
        &mut self,
        batch: impl Iterator<Item = (Entity, B)>,
        info: &BundleInfo,
        components: &Components,
    ) {
        // SAFETY: as in `spawn`.
        unsafe { self.spawn_batch_split(batch, info, components, &mut AllInTables) };
    }

    /// The segment's table, each column copied into it in one block (or its buffer taken
    /// whole, when the table is empty).
    unsafe fn spawn_columns(
        &mut self,
        entities: &[Entity],
        columns: &mut [ColumnValues<'_>],
        _: &BundleInfo,
        components: &Components,
    ) {
        // SAFETY: forwarded contract (the entities are not held, so have no row).
        unsafe { self.archetypes.push_columns(entities, columns, components) };
    }

    unsafe fn reserve(&mut self, info: &BundleInfo, components: &Components, additional: usize) {
        // SAFETY: as in `spawn`.
        unsafe { self.reserve_split::<AllInTables>(info, components, additional) };
    }

    #[inline]
    fn despawn(&mut self, entity: Entity) {
        self.archetypes.despawn(entity);
    }

    #[inline]
    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        self.archetypes.get_ptr(entity, component)
    }

    /// The row's typed read ([`EntityPlace::ptr_of`]): the value's offset from the row
    /// alone, with `T`'s size known.
    #[inline]
    fn get_ptr_of<T: Component>(
        &self,
        entity: Entity,
        component: ComponentId,
    ) -> Option<NonNull<u8>> {
        self.archetypes.place(entity)?.ptr_of::<T>(component)
    }

    #[inline]
    fn place(&self, entity: Entity) -> Option<TableRow<'_>> {
        self.archetypes.place(entity)
    }

    /// The record's table index and row (no table is read).
    #[inline]
    fn entity_row(&self, entity: Entity) -> Option<ChunkRow> {
        self.archetypes.entity_row(entity)
    }

    /// A chunk of table rows: its table's index; a run of rowless entities has no key.
    #[inline]
    fn chunk_key(chunk: &ArchetypeChunk<'_>) -> Option<ChunkKey> {
        chunk.key()
    }

    /// One `locate` for both the "replace" and the "move to a new table" case (the default
    /// method looks the entity up twice).
    #[inline]
    unsafe fn insert<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    ) -> Option<T> {
        // SAFETY: `id` is `T`'s id in the registry and `entity` is held (caller).
        unsafe { self.archetypes.insert(entity, id, value, components) }
    }

    #[inline]
    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        // SAFETY: forwarded contract.
        unsafe {
            self.archetypes
                .insert_new(entity, component, value, components)
        }
    }

    unsafe fn insert_new_many(
        &mut self,
        entity: Entity,
        values: &mut [(ComponentId, NonNull<u8>)],
        components: &Components,
    ) {
        // SAFETY: forwarded contract.
        unsafe { self.archetypes.insert_new_many(entity, values, components) }
    }

    #[inline]
    unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool {
        // SAFETY: forwarded contract.
        unsafe { self.archetypes.remove_into(entity, component, dst) }
    }

    fn clear(&mut self) {
        self.archetypes.clear();
    }

    #[inline]
    fn update_query_cache(
        &self,
        cache: &mut QueryCache,
        descriptor: &QueryDescriptor,
        _: &Components,
    ) {
        cache.update(&self.archetypes, descriptor);
    }

    #[inline]
    fn query_chunks<'a>(
        &'a self,
        cache: &'a QueryCache,
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> ArchetypeChunks<'a> {
        cache.assert_current(&self.archetypes, descriptor.slots().len());
        ArchetypeChunks::new(&self.archetypes, cache, alive)
    }

    /// The walk over the matched tables with its cursor in a register
    /// ([`ArchetypeChunks::fold`]).
    #[inline(always)]
    fn fold_chunks<'a, B>(
        chunks: &mut ArchetypeChunks<'a>,
        init: B,
        f: &mut impl FoldChunk<ArchetypeChunk<'a>, B>,
    ) -> B {
        chunks.fold(init, f)
    }

    fn memory_usage(&self) -> usize {
        self.archetypes.memory_usage() + self.bundles.memory_usage()
    }

    /// One unit per table, then the tables' bookkeeping and the bundle cache.
    fn layout(&self, components: &Components) -> StorageLayout {
        let mut layout = self.archetypes.layout(components);
        layout.add_bookkeeping("bundle cache", self.bundles.memory_usage());
        layout
    }
}

#[cfg(test)]
mod tests;
