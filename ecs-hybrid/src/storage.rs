//! `HybridStorage`: archetype tables for table components, sparse sets for sparse ones.
//!
//! Each component type chooses ([`Component::STORAGE`], or the descriptor of a run-time
//! component); a movable one can change its mind while the world runs (see the `migrate`
//! module). Dense, stable data (positions, meshes) lives in tables and iterates densely;
//! churny data (tags, buffs, timers) lives in sparse sets, so adding or removing it moves no
//! table row.
//!
//! ```text
//!   entity e ──record──▶ table {Position, Velocity}, row 7      (table components)
//!            ──sparse──▶ OnFire set: dense slot 2               (sparse components)
//!
//!   insert OnFire on e : one push into the OnFire set; e's row stays where it is
//!   insert Mass on e   : e's row moves to table {Position, Velocity, Mass}
//! ```
//!
//! Queries: when a query touches any table component, it walks the tables matching its table
//! components (densely, with `is_dense` folding the checks away for them) and looks sparse
//! components up per row; or, when its smallest required sparse set holds at most one
//! entity for eight rows of those tables, it walks that set and reads each entity's row. When it touches only sparse components, it is answered exactly as
//! the sparse backend answers it: driven by the smallest required set.
//!
//! Sparse components can form owning groups (`World::group`), kept by the sparse half: a
//! query over only sparse components then walks the group's packed rows.
//!
//! A query's plan takes each slot's kind from the component registry, which knows it from
//! registration on, whether or not a value was ever stored: a required table component that
//! no entity holds matches no table, exactly as in the archetype backend. (The storage also
//! notes each kind the first time a value of it is stored, for the look-ups by id, which get
//! no registry: a component never stored has no value to find.)

use std::ptr::NonNull;

use ecs_core::bundle::{Bundle, BundleInfo};
use ecs_core::component::{Component, ComponentId, Components, StorageKind};
use ecs_core::entity::Entity;
use ecs_core::layout::StorageLayout;
use ecs_core::storage::{ChunkKey, ChunkRow, ColumnValues, FoldChunk, QueryDescriptor, Storage};
use ecs_core::unwind::for_each_completing;
use ecs_core::EcsError;
use ecs_sparse::{SparseSet, SparseStorage};

use ecs_archetype::archetypes::Archetypes;
use ecs_archetype::table::TableId;
use ecs_archetype::ArchetypeStorage;

use crate::chunk::{Driven, HybridChunk, HybridChunks, TableFold};

/// A query is driven by its smallest required sparse set when the set holds at most one
/// entity for this many rows its tables hold (see `HybridStorage::choose_driver`). Each
/// entity driven costs a record look-up and, where its neighbours in the set are not its
/// neighbours in the table, a run of its own; a walk pays one look-up per row. At one in
/// two (a tag on every other entity), and at one in four and a half (the compare_storages
/// example's fire, 27 % more instructions driven), the walk is still the cheaper plan.
const DRIVE_BELOW: usize = 8;
use crate::place::HybridPlace;
use crate::query_cache::{HybridQueryCache, NO_DRIVER};
use crate::split::SparseFields;

/// Table components in archetypes, sparse components in sparse sets, in one world.
///
/// # Invariants
/// * Every entity the world holds with a table component has a table row holding them; one
///   with none has no row (as in [`Archetypes`]). Its sparse components are in `sparse`.
/// * `kinds[c]` is `Some(k)` once any value of component `c` was stored, with `k` the kind
///   the registry records for `c` (its declared kind, or the one it was moved to); table
///   components only ever live in `tables`, sparse ones only in `sparse` (a set left empty
///   by a move to the tables holds nothing).
/// * Every bundle `tables` spawns or reserves for is split by `SparseFields` (table
///   components in the table, sparse ones handed to `sparse`).
/// * `plans` is never 0 and changes (is incremented) whenever a component moves between
///   the halves ([`Storage::set_storage`]): a query plan stamped with another value (0:
///   never planned) may name a slot's kind wrongly and is made again.
/// * `structure` changes (is incremented) at the start of every `&mut self` method, so
///   while it keeps a value no table's entities and no set's entities have changed: what
///   makes a [`HybridQueryCache`]'s alignment memo, stamped with the value it was computed
///   at, exact.
#[derive(Debug)]
pub struct HybridStorage {
    pub(crate) tables: ArchetypeStorage,
    pub(crate) sparse: SparseStorage,
    pub(crate) kinds: Vec<Option<StorageKind>>,
    pub(crate) structure: u64,
    pub(crate) plans: u64,
}

impl Default for HybridStorage {
    fn default() -> Self {
        HybridStorage {
            tables: ArchetypeStorage::default(),
            sparse: SparseStorage::default(),
            kinds: Vec::new(),
            structure: 0,
            plans: 1,
        }
    }
}

impl HybridStorage {
    /// Marks a `&mut self` call (see the `structure` invariant): any alignment memo made
    /// before it is no longer used.
    #[inline(always)]
    pub(crate) fn restructure(&mut self) {
        self.structure = self.structure.wrapping_add(1);
    }

    /// The table half.
    pub fn archetypes(&self) -> &Archetypes {
        self.tables.archetypes()
    }

    /// The sparse half.
    pub fn sparse(&self) -> &SparseStorage {
        &self.sparse
    }

    /// The kind this storage keeps `component` as, once a value of it was stored.
    #[inline]
    pub fn kind(&self, component: ComponentId) -> Option<StorageKind> {
        self.kinds.get(component.index()).copied().flatten()
    }

    /// The slot whose set should drive `descriptor`'s next run: the query's smallest
    /// required sparse set, when it holds at most one entity for `DRIVE_BELOW` rows the
    /// table walk would visit (each of its entities then costs a record look-up, where the
    /// walk pays a set look-up per row); `NO_DRIVER` otherwise.
    fn choose_driver(&self, cache: &HybridQueryCache, descriptor: &QueryDescriptor) -> u8 {
        let mut best: Option<(u32, usize)> = None;
        let mut drivers = cache.drivers;
        while drivers != 0 {
            let slot = drivers.trailing_zeros();
            drivers &= drivers - 1;
            let len = self
                .sparse
                .set(descriptor.slots()[slot as usize].component)
                .map_or(usize::MAX, SparseSet::len);
            if best.is_none_or(|(_, smallest)| len < smallest) {
                best = Some((slot, len));
            }
        }
        let Some((slot, len)) = best.filter(|(_, len)| *len != usize::MAX) else {
            return NO_DRIVER;
        };
        let enough = len.saturating_mul(DRIVE_BELOW);
        // Rows are at most the records' slots: a set this large never drives.
        if enough > self.archetypes().records().slots() {
            return NO_DRIVER;
        }
        let tables = self.archetypes().tables();
        let matched = cache.tables.matched_tables();
        // A query matching rowless entities walks every live one besides the rows.
        if matched.first() != Some(&TableId::EMPTY) {
            let mut rows = 0;
            for id in matched {
                rows += tables[id.index()].len();
                if rows >= enough {
                    break;
                }
            }
            if rows < enough {
                return NO_DRIVER;
            }
        }
        slot as u8
    }

    /// The walk of the set `cache.drive` chose (see [`HybridStorage::choose_driver`]).
    fn driven<'a>(
        &'a self,
        cache: &'a HybridQueryCache,
        descriptor: &'a QueryDescriptor,
    ) -> Option<Driven<'a>> {
        let driver = cache.drive as usize;
        // Only a required sparse slot drives (a plan's own choice always is one).
        if driver >= 32 || cache.drivers & (1 << driver) == 0 {
            return None;
        }
        Some(Driven {
            set: self.sparse.set(descriptor.slots().get(driver)?.component)?,
            next: 0,
            driver,
            records: self.archetypes().records(),
            tables: self.archetypes().tables(),
            sparse: &self.sparse,
            descriptor,
            plan: cache,
        })
    }

    /// Notes the kinds of a bundle's components (see [`HybridStorage::kind`]).
    #[inline]
    fn learn_bundle(&mut self, info: &BundleInfo, components: &Components) {
        for &id in info.components() {
            if self.kind(id).is_none() {
                self.learn(id, components);
            }
        }
    }

    // Out of line: a component's kind is learned once, on its first store.
    #[cold]
    #[inline(never)]
    fn learn(&mut self, component: ComponentId, components: &Components) -> StorageKind {
        let kind = components.info(component).storage();
        if self.kinds.len() <= component.index() {
            self.kinds.resize(component.index() + 1, None);
        }
        self.kinds[component.index()] = Some(kind);
        kind
    }
}

// SAFETY:
// * Table values live in `BlobVec` columns, sparse values in `SparseSet`s (raw allocations);
//   an (entity, component) pair is in exactly one place (type invariant: a component has one
//   kind at a time), so pointers for distinct pairs do not overlap.
// * A plan with no sparse slot yields the archetype backend's chunks for the query's own
//   descriptor (its table descriptor is the descriptor), with their guarantees unchanged.
// * Table plans yield each matched table once and each entity has at most one row, so each
//   entity is in at most one chunk; every entity matching the descriptor is in a table
//   matching its table slots (required table slots Dense, excluded Absent, exactly as the
//   archetype backend guarantees), or, with no table component, in a run of rowless
//   entities, yielded when the table descriptor has no required slot (the archetype
//   backend's chunks, table slots `Absent`); sparse slots answer `Sparse`, whose look-ups
//   only answer for entities holding the value, or `Dense` at the run of the set that holds
//   exactly the chunk's entities in order, so each row's value, parallel to the rows: either
//   `SparseSet::aligned_with` compared them just now, or the alignment memo compared them
//   when it was made and is only used while `structure` still has the value it was made at
//   (no `&mut self` call since, so neither the table's entities nor the set's changed), with
//   `run_at` checking that the run lies in the set. All-sparse plans delegate to
//   `SparseStorage`, which upholds the same contract.
// * Driven plans walk one required sparse set, which holds each entity once, so each
//   entity is in at most one run; every entity matching the descriptor holds that
//   component, so it is in the set, and its run is yielded when its table is matched (the
//   table plan's rule; the empty set's table, for a rowless entity). A run is rows
//   `start..start + len` of that table, checked by slicing its entities, so table slots
//   read the matched table's column list at row `start` (`Dense` where the table has the
//   column, `Absent` where not, as the table plan), other sparse slots as in table plans,
//   and the driving slot is `Dense` at the set's positions the run was built from, which
//   hold exactly the run's entities in order (each was checked to be the table's next row)
//   and lie in the set (`run_at`). Runs have no key.
// * `is_dense::<T>()` is true only for table components that are not movable
//   (`T::STORAGE`, which is also the kind `T` is registered with and keeps: only movable
//   kinds change). The plan takes every slot's kind from the registry, stored or not, so a table component's slot is never planned as sparse: an all-sparse plan has no
//   table slot, and a table plan keeps each table slot's role in the table descriptor. Table
//   chunks come only from tables matching that descriptor, so a required table slot is a
//   column of the table (`Dense`) and an excluded one is not (`Absent`); a component no
//   table holds matches no table and yields no chunk. Table slots never answer `Sparse`.
// * `place` is the entity's table row (rowless for an entity without one, as in the
//   archetype backend) plus the entity for sparse reads; its `ptr` answers as `get_ptr`
//   (same kind dispatch). Table chunks are keyed by table index with the table's rows, and
//   `entity_row` is the record's (table index, row), `Some` for every entity with a row, as
//   in the archetype backend; runs of rowless entities and sparse-half chunks have no key.
// * Values are dropped exactly once by the halves (each panic-safe); `despawn` and `clear`
//   run both halves even if one panics.
unsafe impl Storage for HybridStorage {
    const NAME: &'static str = "hybrid";
    const KEYS_CHUNKS: bool = true;
    type Lookup = SparseSet;
    type Chunk<'a> = HybridChunk<'a>;
    type Chunks<'a> = HybridChunks<'a>;
    type QueryCache = HybridQueryCache;
    type Place<'a> = HybridPlace<'a>;

    /// A table component that never moves: a movable one may be in a set by the time a
    /// query runs.
    #[inline(always)]
    fn is_dense<T: Component>() -> bool {
        T::STORAGE == StorageKind::Table && !T::MOVABLE
    }

    /// One match per run instead of one per chunk: each arm folds its own half's chunks
    /// wrapped in its variant, so the query's per-chunk set-up sees the variant it was
    /// just given (the archetype backend's chunk, for a query over table components only).
    /// The chunks are exactly those `HybridChunks::next` yields, in its order.
    #[inline(always)]
    fn fold_chunks<'a, B>(
        chunks: &mut HybridChunks<'a>,
        init: B,
        f: &mut impl FoldChunk<HybridChunk<'a>, B>,
    ) -> B {
        let mut acc = init;
        match chunks {
            HybridChunks::AllTables(tables) => {
                acc = tables.fold(
                    acc,
                    &mut TableFold {
                        inner: f,
                        wrap: HybridChunk::Tables,
                    },
                );
            }
            HybridChunks::Tables {
                chunks,
                sparse,
                descriptor,
                plan,
                memo,
            } => {
                // The fields are wrapped one by one, as in `next`: a `Copy` struct of the
                // four, copied into each chunk, made the many-archetype joins (query_2..4,
                // docs/workloads.md) run more instructions.
                let (sparse, descriptor, plan, memo) = (*sparse, *descriptor, *plan, *memo);
                acc = chunks.fold(
                    acc,
                    &mut TableFold {
                        inner: f,
                        wrap: |chunk| HybridChunk::Table {
                            chunk,
                            sparse,
                            descriptor,
                            plan,
                            memo,
                        },
                    },
                );
            }
            HybridChunks::Driven(driven) => {
                while let Some(chunk) = driven.next_run() {
                    acc = f.fold_chunk(acc, chunk);
                }
            }
            HybridChunks::Sparse(sets) => {
                for chunk in sets {
                    acc = f.fold_chunk(acc, HybridChunk::Sparse(chunk));
                }
            }
        }
        acc
    }

    /// The table half's spawn, split by `SparseFields`.
    #[inline]
    unsafe fn spawn<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
    ) {
        if B::COUNT == 0 {
            return; // neither half keeps anything for an entity without components
        }
        self.restructure();
        self.learn_bundle(info, components);
        // SAFETY: forwarded contract; every spawn and reserve splits by `SparseFields` (type
        // invariant).
        unsafe {
            self.tables.spawn_split(
                entity,
                bundle,
                info,
                components,
                &mut SparseFields(&mut self.sparse),
            )
        };
    }

    unsafe fn spawn_batch<B: Bundle>(
        &mut self,
        batch: impl Iterator<Item = (Entity, B)>,
        info: &BundleInfo,
        components: &Components,
    ) {
        self.restructure();
        self.learn_bundle(info, components);
        let sparse = &mut SparseFields(&mut self.sparse);
        // SAFETY: as in `spawn`.
        unsafe {
            self.tables
                .spawn_batch_split(batch, info, components, sparse)
        };
    }

    /// Table columns into the segment's table in one block each (through the table half),
    /// sparse columns appended to their sets (through the sparse half, which keeps its
    /// groups and marks its holders).
    unsafe fn spawn_columns(
        &mut self,
        entities: &[Entity],
        columns: &mut [ColumnValues<'_>],
        empty: &BundleInfo,
        components: &Components,
    ) {
        self.restructure();
        let mut sparse_columns = 0;
        for column in columns.iter() {
            let kind = match self.kind(column.component) {
                Some(kind) => kind,
                None => self.learn(column.component, components),
            };
            sparse_columns += usize::from(kind == StorageKind::Sparse);
        }
        // One half holds every column (the common case): handed over as they are, with no
        // list to allocate per spawn.
        if sparse_columns == 0 || sparse_columns == columns.len() {
            let (table, sparse): (&mut [ColumnValues<'_>], &mut [ColumnValues<'_>]) =
                match sparse_columns {
                    0 => (columns, &mut []),
                    _ => (&mut [], columns),
                };
            // SAFETY: forwarded contract, each half given its own columns (the entities are
            // not held, so have no row and are in no set).
            unsafe {
                self.tables
                    .spawn_columns(entities, table, empty, components);
                self.sparse
                    .spawn_columns(entities, sparse, empty, components);
            }
            return;
        }
        let mut table = Vec::with_capacity(columns.len());
        let mut sparse = Vec::with_capacity(sparse_columns);
        for column in columns {
            let column = ColumnValues {
                component: column.component,
                values: column.values,
                buffer: column.buffer.as_deref_mut(),
            };
            // Learned above.
            match self.kind(column.component) {
                Some(StorageKind::Sparse) => sparse.push(column),
                _ => table.push(column),
            }
        }
        // SAFETY: forwarded contract, each half given its own columns (the entities are not
        // held, so have no row and are in no set).
        unsafe {
            self.tables
                .spawn_columns(entities, &mut table, empty, components);
            self.sparse
                .spawn_columns(entities, &mut sparse, empty, components);
        }
    }

    /// Groups of sparse components, kept by the sparse half (a query over only sparse
    /// components is answered there, so it walks the group's packed rows). Table
    /// components are already stored together by their tables.
    unsafe fn group(
        &mut self,
        owned: &[ComponentId],
        components: &Components,
    ) -> Result<(), EcsError> {
        self.restructure();
        if let Some(&c) = owned
            .iter()
            .find(|&&c| components.info(c).storage() != StorageKind::Sparse)
        {
            return Err(EcsError::Group {
                reason: format!(
                    "{} is a table component; the hybrid backend groups sparse components \
                     only (tables already keep an archetype's components together)",
                    components.info(c).name()
                ),
            });
        }
        // SAFETY: forwarded contract (`owned` are in the registry).
        unsafe { self.sparse.group(owned, components)? };
        for &c in owned {
            self.learn(c, components);
        }
        Ok(())
    }

    unsafe fn reserve(&mut self, info: &BundleInfo, components: &Components, additional: usize) {
        self.restructure();
        // SAFETY: as in `spawn`.
        unsafe {
            self.tables
                .reserve_split::<SparseFields<'_>>(info, components, additional)
        };
    }

    fn despawn(&mut self, entity: Entity) {
        self.restructure();
        if self.sparse.set_count() == 0 {
            // No sparse value was ever stored: the table half is all there is.
            return self.tables.despawn(entity);
        }
        /// Despawns from the sparse half when dropped: after the table half, even if one of
        /// its values' `Drop` panics.
        struct SparseHalf<'a>(&'a mut SparseStorage, Entity);
        impl Drop for SparseHalf<'_> {
            fn drop(&mut self) {
                self.0.despawn(self.1);
            }
        }
        let _sparse = SparseHalf(&mut self.sparse, entity);
        self.tables.despawn(entity);
    }

    /// Straight to the component's half, inlined: a change-driven query asks this of every
    /// candidate entity, per filtered component.
    #[inline(always)]
    fn contains(&self, entity: Entity, component: ComponentId) -> bool {
        match self.kind(component) {
            Some(StorageKind::Table) => self.tables.get_ptr(entity, component).is_some(),
            Some(StorageKind::Sparse) => self.sparse.contains(entity, component),
            None => false,
        }
    }

    #[inline]
    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        match self.kind(component)? {
            StorageKind::Table => self.tables.get_ptr(entity, component),
            StorageKind::Sparse => self.sparse.get_ptr(entity, component),
        }
    }

    /// The half `T::STORAGE` names, as `HybridPlace::ptr_of` reads (a movable type: the
    /// half it is kept in now).
    #[inline]
    fn get_ptr_of<T: Component>(
        &self,
        entity: Entity,
        component: ComponentId,
    ) -> Option<NonNull<u8>> {
        if T::MOVABLE {
            return self.get_ptr(entity, component);
        }
        match T::STORAGE {
            StorageKind::Table => self.tables.get_ptr_of::<T>(entity, component),
            StorageKind::Sparse => self.sparse.get_ptr(entity, component),
        }
    }

    /// The entity's table row, found once (rowless if it has no table component); sparse
    /// components are still read by entity.
    #[inline]
    fn place(&self, entity: Entity) -> Option<HybridPlace<'_>> {
        Some(HybridPlace {
            storage: self,
            row: self.tables.place(entity)?,
            entity,
        })
    }

    /// The record's table index and row (table chunks are keyed by table).
    #[inline]
    fn entity_row(&self, entity: Entity) -> Option<ChunkRow> {
        self.tables.entity_row(entity)
    }

    /// Table chunks: the table's index. Runs of rowless entities and chunks of the sparse
    /// half have no key.
    #[inline]
    fn chunk_key(chunk: &HybridChunk<'_>) -> Option<ChunkKey> {
        match chunk {
            HybridChunk::Tables(chunk) | HybridChunk::Table { chunk, .. } => chunk.key(),
            // A run is part of a table: the key names whole tables.
            HybridChunk::Run { .. } | HybridChunk::Sparse(_) => None,
        }
    }

    /// Straight to the component's half, each of which finds the entity once.
    // Always inlined, as the halves' own inserts: the choice of half is a constant per `T`.
    #[inline(always)]
    unsafe fn insert<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    ) -> Option<T> {
        self.restructure();
        if self.kind(id).is_none() {
            self.learn(id, components);
        }
        // `id` is `T`'s id or a named instance of `T`, registered with `T::STORAGE` either
        // way (the type invariant `SparseFields` relies on too): deciding on the constant
        // leaves the other half's insert out of this `T`'s code, so a table insert carries
        // none of the sparse path's registers and branches. A movable type goes to the half
        // it is kept in now.
        let in_tables = match T::MOVABLE {
            false => T::STORAGE == StorageKind::Table,
            true => self.kind(id) == Some(StorageKind::Table),
        };
        if in_tables {
            // SAFETY: forwarded contract (`entity` held, `id` is `T`'s id in the registry).
            unsafe { self.tables.insert(entity, id, value, components) }
        } else {
            // SAFETY: as above.
            unsafe { self.sparse.insert(entity, id, value, components) }
        }
    }

    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        self.restructure();
        let kind = match self.kind(component) {
            Some(kind) => kind,
            None => self.learn(component, components),
        };
        match kind {
            // SAFETY: forwarded contract (the entity is held and lacks the component).
            StorageKind::Sparse => unsafe {
                self.sparse.insert_new(entity, component, value, components)
            },
            // SAFETY: forwarded contract.
            StorageKind::Table => unsafe {
                self.tables.insert_new(entity, component, value, components)
            },
        }
    }

    /// Table components in one row move (through the table half), sparse ones pushed onto
    /// their sets one by one.
    unsafe fn insert_new_many(
        &mut self,
        entity: Entity,
        values: &mut [(ComponentId, NonNull<u8>)],
        components: &Components,
    ) {
        self.restructure();
        let mut table = Vec::with_capacity(values.len());
        for &(component, value) in values.iter() {
            let kind = match self.kind(component) {
                Some(kind) => kind,
                None => self.learn(component, components),
            };
            match kind {
                // SAFETY: forwarded contract (the entity is held and lacks the component).
                StorageKind::Sparse => unsafe {
                    self.sparse.insert_new(entity, component, value, components)
                },
                StorageKind::Table => table.push((component, value)),
            }
        }
        // SAFETY: forwarded contract for the table components.
        unsafe { self.tables.insert_new_many(entity, &mut table, components) };
    }

    unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool {
        self.restructure();
        match self.kind(component) {
            None => false,
            // SAFETY: forwarded contract.
            Some(StorageKind::Sparse) => unsafe { self.sparse.remove_into(entity, component, dst) },
            // SAFETY: forwarded contract.
            Some(StorageKind::Table) => unsafe { self.tables.remove_into(entity, component, dst) },
        }
    }

    /// The half `T::STORAGE` names (a typed component that is not movable is kept as its
    /// declared kind; a movable one in the half it is kept in now).
    #[inline(always)]
    unsafe fn remove_typed<T: Component>(&mut self, entity: Entity, id: ComponentId) -> Option<T> {
        self.restructure();
        let in_tables = match T::MOVABLE {
            false => T::STORAGE == StorageKind::Table,
            true => match self.kind(id) {
                Some(kind) => kind == StorageKind::Table,
                None => return None,
            },
        };
        if in_tables {
            // SAFETY: forwarded contract.
            unsafe { self.tables.remove_typed::<T>(entity, id) }
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.sparse.remove_typed::<T>(entity, id) }
        }
    }

    fn clear(&mut self) {
        self.restructure();
        let (tables, sparse) = (&mut self.tables, &mut self.sparse);
        for_each_completing(0..2, |half| match half {
            0 => tables.clear(),
            _ => sparse.clear(),
        });
    }

    fn update_query_cache(
        &self,
        cache: &mut HybridQueryCache,
        descriptor: &QueryDescriptor,
        components: &Components,
    ) {
        if cache.planned_at != self.plans {
            cache.plan(descriptor, components);
            cache.planned_at = self.plans;
        }
        debug_assert_eq!(
            cache.kinds.len(),
            descriptor.slots().len(),
            "another descriptor"
        );
        if !cache.all_sparse {
            let HybridQueryCache {
                tables,
                table_descriptor,
                ..
            } = cache;
            self.tables
                .update_query_cache(tables, table_descriptor, components);
            if cache.drivers != 0 {
                cache.drive = self.choose_driver(cache, descriptor);
            }
            if cache.joins_sets && cache.aligned_at != Some(self.structure) {
                cache.memoize_alignment(self, descriptor);
            }
        }
    }

    fn query_chunks<'a>(
        &'a self,
        cache: &'a HybridQueryCache,
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> HybridChunks<'a> {
        if cache.all_sparse {
            return HybridChunks::Sparse(self.sparse.query_chunks(&(), descriptor, alive));
        }
        // A cache planned for another descriptor would hand out chunks with another slot
        // count: table chunks read a slot's column unchecked (`column_unchecked`), so this
        // is checked, once per query run.
        assert_eq!(
            cache.kinds.len(),
            descriptor.slots().len(),
            "query cache planned for another descriptor"
        );
        if !cache.joins_sets {
            // Every slot is a table component, so the table descriptor is the query's.
            return HybridChunks::AllTables(self.tables.query_chunks(
                &cache.tables,
                &cache.table_descriptor,
                alive,
            ));
        }
        if cache.drive != NO_DRIVER {
            if let Some(driven) = self.driven(cache, descriptor) {
                return HybridChunks::Driven(driven);
            }
        }
        HybridChunks::Tables {
            chunks: self
                .tables
                .query_chunks(&cache.tables, &cache.table_descriptor, alive),
            sparse: &self.sparse,
            descriptor,
            plan: cache,
            // The memo only while the storage is as it was when the memo was made.
            memo: cache.aligned_at == Some(self.structure),
        }
    }

    /// The kind the registry records: the declared one, or the one a move chose.
    fn storage_kind(&self, component: ComponentId, components: &Components) -> StorageKind {
        components.info(component).storage()
    }

    /// Moves the component's values between the halves (see the `migrate` module).
    unsafe fn set_storage(
        &mut self,
        component: ComponentId,
        kind: StorageKind,
        components: &Components,
    ) -> Result<(), EcsError> {
        if components.info(component).storage() == kind {
            return Ok(());
        }
        // SAFETY: forwarded contract.
        unsafe { self.migrate(component, kind, components) }
    }

    /// Sorts the set by (table, row): entities with a row in table order, each table's rows
    /// in order, rowless entities last; then `aligned_with` finds every table's run.
    fn align_with_tables(&mut self, component: ComponentId) -> bool {
        self.restructure();
        if self.kind(component) != Some(StorageKind::Sparse) {
            return false;
        }
        let archetypes = self.tables.archetypes();
        self.sparse
            .sort_set_by_key(component, |entity| match archetypes.locate(entity) {
                Some(record) => ((record.table.index() as u64) << 32) | u64::from(record.row),
                None => u64::MAX,
            })
    }

    fn memory_usage(&self) -> usize {
        self.tables.memory_usage()
            + self.sparse.memory_usage()
            + self.kinds.capacity() * size_of::<Option<StorageKind>>()
    }

    /// The table half's layout, then the sparse half's, then the kind kept per component.
    fn layout(&self, components: &Components) -> StorageLayout {
        let mut layout = self.tables.layout(components);
        layout.append(self.sparse.layout(components));
        layout.add_bookkeeping(
            "storage kind per component",
            self.kinds.capacity() * size_of::<Option<StorageKind>>(),
        );
        layout
    }
}

#[cfg(test)]
mod tests;
