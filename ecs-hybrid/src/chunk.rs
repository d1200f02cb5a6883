//! [`HybridChunk`] and [`HybridChunks`]: the runs of rows a hybrid query walks (a table's,
//! with sparse slots looked up or walked in step; runs of a table's rows found through a
//! small sparse set; or the sparse half's).

use ecs_core::component::StorageKind;
use ecs_core::entity::Entity;
use ecs_core::storage::{ColumnAccess, FoldChunk, QueryChunk, QueryDescriptor};
use ecs_sparse::{SparseChunk, SparseChunks, SparseSet, SparseStorage};

use std::ptr::NonNull;

use ecs_archetype::chunk::{ArchetypeChunk, ArchetypeChunks};
use ecs_archetype::query_cache::ABSENT;
use ecs_archetype::record::Records;
use ecs_archetype::table::{Table, TableId};

use crate::query_cache::{HybridQueryCache, NOT_ALIGNED};

/// One run of rows of a hybrid query.
pub enum HybridChunk<'a> {
    /// A table's rows for a query whose components are all table components: exactly the
    /// archetype backend's chunk, with nothing to decide per slot.
    Tables(ArchetypeChunk<'a>),
    /// A table's rows; sparse slots are looked up per entity.
    Table {
        /// The table chunk.
        chunk: ArchetypeChunk<'a>,
        /// Where sparse slots are looked up.
        sparse: &'a SparseStorage,
        /// The query's descriptor.
        descriptor: &'a QueryDescriptor,
        /// The query's plan: each slot's kind and the alignment memo (see
        /// [`HybridQueryCache`]).
        plan: &'a HybridQueryCache,
        /// Whether the plan's alignment memo is current (made at the storage's present
        /// `structure`).
        memo: bool,
    },
    /// Consecutive rows of one table (or a run of rowless entities), found by walking the
    /// query's smallest required sparse set (see [`HybridChunks::Driven`]).
    Run {
        /// The rows' table (the empty set's for rowless entities).
        table: &'a Table,
        /// The table's position among the plan's matched tables (its column list is
        /// `plan.tables.columns(matched)`).
        matched: u32,
        /// The first row.
        start: u32,
        /// The rows' entities.
        entities: &'a [Entity],
        /// The slot of the set the run was found through.
        driver: u32,
        /// That set's value of `entities[0]`, the first of `entities.len()` consecutive ones.
        driven: NonNull<u8>,
        /// Where other sparse slots are looked up.
        sparse: &'a SparseStorage,
        /// The query's descriptor.
        descriptor: &'a QueryDescriptor,
        /// The query's plan.
        plan: &'a HybridQueryCache,
    },
    /// A query over sparse components only, answered by the sparse half.
    Sparse(SparseChunk<'a>),
}

impl<'a> QueryChunk<'a> for HybridChunk<'a> {
    type Lookup = SparseSet;

    #[inline]
    fn entities(&self) -> &'a [Entity] {
        match self {
            HybridChunk::Tables(chunk) | HybridChunk::Table { chunk, .. } => chunk.entities(),
            HybridChunk::Run { entities, .. } => entities,
            HybridChunk::Sparse(chunk) => chunk.entities(),
        }
    }

    /// A table slot is answered inline (the common case, once per chunk and slot); sparse
    /// slots and sparse-half chunks out of line, so the table path stays small enough to
    /// inline into the query's chunk loop.
    #[inline(always)]
    fn column(&self, slot: usize) -> ColumnAccess<'a, SparseSet> {
        match self {
            HybridChunk::Tables(chunk) => match chunk.column(slot) {
                ColumnAccess::Dense(ptr) => ColumnAccess::Dense(ptr),
                ColumnAccess::Sparse(never) => match *never {},
                ColumnAccess::Absent => ColumnAccess::Absent,
            },
            HybridChunk::Table { chunk, plan, .. } if plan.kinds[slot] == StorageKind::Table => {
                match chunk.column(slot) {
                    ColumnAccess::Dense(ptr) => ColumnAccess::Dense(ptr),
                    ColumnAccess::Sparse(never) => match *never {},
                    ColumnAccess::Absent => ColumnAccess::Absent,
                }
            }
            _ => self.non_table_column(slot),
        }
    }

    /// A chunk of a query over table components only reads its table chunk's column
    /// unchecked; the other kinds answer as `column` does.
    #[inline(always)]
    unsafe fn column_unchecked(&self, slot: usize) -> ColumnAccess<'a, SparseSet> {
        match self {
            // SAFETY: the table chunk was made for the plan's table descriptor, which has
            // one slot per slot of the planned descriptor, whose slot count `query_chunks`
            // asserts is this chunk's descriptor's; `slot` is below it (caller).
            HybridChunk::Tables(chunk) => match unsafe { chunk.column_unchecked(slot) } {
                ColumnAccess::Dense(ptr) => ColumnAccess::Dense(ptr),
                ColumnAccess::Sparse(never) => match *never {},
                ColumnAccess::Absent => ColumnAccess::Absent,
            },
            _ => self.column(slot),
        }
    }
}

impl<'a> HybridChunk<'a> {
    /// [`QueryChunk::column`] for a slot that is not a table slot of a table chunk (only
    /// `column` calls it, after its table-slot test failed).
    #[inline(never)]
    fn non_table_column(&self, slot: usize) -> ColumnAccess<'a, SparseSet> {
        match self {
            HybridChunk::Table {
                chunk,
                sparse,
                descriptor,
                plan,
                memo,
            } => {
                debug_assert_eq!(plan.kinds[slot], StorageKind::Sparse, "a table slot");
                let Some(set) = sparse.set(descriptor.slots()[slot].component) else {
                    return ColumnAccess::Absent;
                };
                // A sparse set holding the table's rows in order (entities spawned together,
                // or aligned on request) is walked like one more column. The memo answers
                // while the storage has not changed since it was made; else check now.
                let rows = chunk.entities();
                let aligned = if *memo { &plan.aligned[..] } else { &[] };
                let entry = chunk
                    .key()
                    .and_then(|t| aligned.get(t.index() * descriptor.slots().len() + slot));
                let run = match entry {
                    Some(&NOT_ALIGNED) => None,
                    Some(&pos) => set.run_at(pos as usize, rows.len()),
                    None => set.aligned_with(rows),
                };
                match run {
                    Some(run) => ColumnAccess::Dense(run),
                    None => ColumnAccess::Sparse(set),
                }
            }
            HybridChunk::Run {
                table,
                matched,
                start,
                entities,
                driver,
                driven,
                sparse,
                descriptor,
                plan,
            } => match plan.kinds[slot] {
                StorageKind::Table => match plan.tables.columns(*matched as usize)[slot] {
                    ABSENT => ColumnAccess::Absent,
                    // SAFETY: an entry of the cache's column list other than ABSENT is one of
                    // `table`'s columns, and `start` is one of its rows (the run's
                    // invariant, `Driven::next`), so the offset stays in the column.
                    column => ColumnAccess::Dense(unsafe {
                        table
                            .column_unchecked(column as usize)
                            .get_unchecked(*start as usize)
                    }),
                },
                _ if slot == *driver as usize => ColumnAccess::Dense(*driven),
                _ => match sparse.set(descriptor.slots()[slot].component) {
                    None => ColumnAccess::Absent,
                    Some(set) => match set.aligned_with(entities) {
                        Some(run) => ColumnAccess::Dense(run),
                        None => ColumnAccess::Sparse(set),
                    },
                },
            },
            HybridChunk::Sparse(chunk) => chunk.column(slot),
            HybridChunk::Tables(_) => unreachable!("answered inline by `column`"),
        }
    }
}

/// The chunks of one hybrid query.
pub enum HybridChunks<'a> {
    /// Walking matched tables for a query over table components only.
    AllTables(ArchetypeChunks<'a>),
    /// Walking matched tables.
    Tables {
        /// The table chunks.
        chunks: ArchetypeChunks<'a>,
        /// Where sparse slots are looked up.
        sparse: &'a SparseStorage,
        /// The query's descriptor.
        descriptor: &'a QueryDescriptor,
        /// The query's plan.
        plan: &'a HybridQueryCache,
        /// Whether the plan's alignment memo is current.
        memo: bool,
    },
    /// Walking the query's smallest required sparse set, for a query whose set is much
    /// smaller than the tables it would walk: each entity's record gives its table and
    /// row, and entities at consecutive rows of one matched table make one run.
    Driven(Driven<'a>),
    /// Driven by the sparse half.
    Sparse(SparseChunks<'a>),
}

/// The walk of [`HybridChunks::Driven`].
///
/// # Invariants
/// `records` and `tables` are the table half's, `set` the set of the component of slot
/// `driver`, one of `plan.drivers` (a required sparse slot), `plan` current for that storage (its matched tables, in
/// ascending index, and their column lists built for these tables), all under one shared
/// borrow; `next <= set.len()`.
pub struct Driven<'a> {
    pub(crate) set: &'a SparseSet,
    pub(crate) next: usize,
    pub(crate) driver: usize,
    pub(crate) records: &'a Records,
    pub(crate) tables: &'a [Table],
    pub(crate) sparse: &'a SparseStorage,
    pub(crate) descriptor: &'a QueryDescriptor,
    pub(crate) plan: &'a HybridQueryCache,
}

impl<'a> Driven<'a> {
    /// The table index and row of `entity` (the empty set's table for an entity without a
    /// row, with `u32::MAX`: it has no row).
    #[inline(always)]
    fn place(&self, entity: Entity) -> (usize, u32) {
        match self.records.get_entity(entity) {
            Some(record) => (record.table.index(), record.row),
            None => (TableId::EMPTY.index(), u32::MAX),
        }
    }

    /// [`Driven::next_run`], marked cold for the scan's `next`, inlined where a query runs:
    /// the table walks' arms stay laid out as they were. (A driven run's chunks cost
    /// record look-ups anyway; folds call `next_run` directly.)
    #[cold]
    #[inline(never)]
    fn next_run_cold(&mut self) -> Option<HybridChunk<'a>> {
        self.next_run()
    }

    /// The next run: the set's entities from `next` on, skipping those in unmatched tables;
    /// a run grows while the set's next entity is the table's next row (or, for rowless
    /// entities, while it is rowless too).
    #[inline]
    pub(crate) fn next_run(&mut self) -> Option<HybridChunk<'a>> {
        let entities = self.set.entities();
        while let Some(&first) = entities.get(self.next) {
            let at = self.next;
            self.next += 1;
            let (table, row) = self.place(first);
            // The matched tables are in ascending index.
            let matched = self.plan.tables.matched_tables();
            let Ok(matched) = matched.binary_search_by_key(&table, |id| id.index()) else {
                continue;
            };
            let mut len = 1;
            while let Some(&e) = entities.get(at + len) {
                let (t, r) = self.place(e);
                let follows =
                    t == table && (row == u32::MAX || Some(r) == row.checked_add(len as u32));
                if !follows || (row == u32::MAX) != (r == u32::MAX) {
                    break;
                }
                len += 1;
            }
            self.next = at + len;
            let table_ref = &self.tables[table];
            let (start, run) = if row == u32::MAX {
                (0, &entities[at..at + len])
            } else {
                let start = row as usize;
                (row, &table_ref.entities()[start..start + len])
            };
            return Some(HybridChunk::Run {
                table: table_ref,
                // Positions among the matched tables, and slots, are below `u32::MAX`: the
                // archetype half numbers tables with `u32`s, and drivers are slots below 32.
                matched: matched as u32,
                start,
                entities: run,
                driver: self.driver as u32,
                // `run_at` checks the positions are in the set: `at + len <= set.len()`.
                driven: self.set.run_at(at, len)?,
                sparse: self.sparse,
                descriptor: self.descriptor,
                plan: self.plan,
            });
        }
        None
    }
}

/// A fold over the hybrid's chunks, handed the table half's chunks one by one, each
/// wrapped by `wrap` (always inlined, as the `FoldChunk` contract asks, so the caller's row
/// loop is compiled into each variant's walk).
pub(crate) struct TableFold<'f, F, W> {
    pub(crate) inner: &'f mut F,
    pub(crate) wrap: W,
}

impl<'a, B, F, W> FoldChunk<ArchetypeChunk<'a>, B> for TableFold<'_, F, W>
where
    F: FoldChunk<HybridChunk<'a>, B>,
    W: Fn(ArchetypeChunk<'a>) -> HybridChunk<'a>,
{
    #[inline(always)]
    fn fold_chunk(&mut self, acc: B, chunk: ArchetypeChunk<'a>) -> B {
        self.inner.fold_chunk(acc, (self.wrap)(chunk))
    }
}

impl<'a> Iterator for HybridChunks<'a> {
    type Item = HybridChunk<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<HybridChunk<'a>> {
        match self {
            HybridChunks::Tables {
                chunks,
                sparse,
                descriptor,
                plan,
                memo,
            } => chunks.next().map(|chunk| HybridChunk::Table {
                chunk,
                sparse,
                descriptor,
                plan,
                memo: *memo,
            }),
            HybridChunks::AllTables(chunks) => chunks.next().map(HybridChunk::Tables),
            HybridChunks::Driven(driven) => driven.next_run_cold(),
            HybridChunks::Sparse(chunks) => chunks.next().map(HybridChunk::Sparse),
        }
    }
}
