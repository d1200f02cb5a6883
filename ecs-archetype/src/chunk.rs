//! Query chunks: one per matched, non-empty table, and the runs of rowless entities.
//!
//! A chunk hands the query its rows' entity slice and, per slot, the base pointer of the
//! column (or "absent"). The query then fetches row `i` as `base + i * size`: the per-row work
//! is a pointer offset, and the loop over a chunk is one the compiler can vectorise.
//!
//! Entities with no table component have no row (see
//! [`Archetypes`]). A query that requires no component
//! matches them too: it matches the empty set's table, and in that table's place the chunks
//! are the runs of such entities in the world's live list ([`RowlessRuns`]), every slot
//! absent. Those chunks have no table rows, so they carry no key for random access.

use ecs_core::entity::Entity;
use ecs_core::storage::{ChunkKey, ColumnAccess, FoldChunk, NoLookup, QueryChunk};

use crate::archetypes::Archetypes;
use crate::query_cache::{QueryCache, ABSENT};
use crate::record::RowlessRuns;
use crate::table::{Table, TableId};

/// The rows of one matched table, or one run of rowless entities.
///
/// # Invariant
/// `columns` has one entry per slot of the descriptor the chunk was made for (the cache's
/// slot count, which `query_chunks` asserts is the descriptor's), and every entry is
/// [`ABSENT`] or a valid column index of `table` (the
/// [`QueryCache`] invariant on its column lists, which are the only lists a chunk is built
/// from, each with its own matched table): [`QueryChunk::column`] reads the column without
/// a bounds check.
#[derive(Clone, Copy, Debug)]
pub struct ArchetypeChunk<'a> {
    table: &'a Table,
    /// The column of each descriptor slot in `table` ([`ABSENT`] if none).
    columns: &'a [u32],
    /// The rows' entities: the table's, or a run of rowless entities (`table` is then the
    /// empty set's, which has no columns).
    entities: &'a [Entity],
}

impl<'a> ArchetypeChunk<'a> {
    /// The table whose rows the chunk is ([`TableId::EMPTY`]'s for a run of entities with no
    /// row).
    #[inline]
    pub fn table(&self) -> &'a Table {
        self.table
    }

    /// The key of a chunk of table rows (the table's index); `None` for a run of rowless
    /// entities, which have no row to find them by.
    #[inline]
    pub fn key(&self) -> Option<ChunkKey> {
        let id = self.table.id();
        // The empty table (id 0) holds no row, so it has no key.
        ChunkKey::new(id.raw())
    }
}

impl<'a> QueryChunk<'a> for ArchetypeChunk<'a> {
    type Lookup = NoLookup;

    #[inline]
    fn entities(&self) -> &'a [Entity] {
        self.entities
    }

    #[inline]
    fn column(&self, slot: usize) -> ColumnAccess<'a, NoLookup> {
        // SAFETY: the entry is read from `columns`.
        unsafe { self.access(self.columns[slot]) }
    }

    #[inline(always)]
    unsafe fn column_unchecked(&self, slot: usize) -> ColumnAccess<'a, NoLookup> {
        // SAFETY: `slot` is below the descriptor's slot count (caller), which is the length
        // of `columns` (the type invariant); the entry is read from `columns`.
        unsafe { self.access(*self.columns.get_unchecked(slot)) }
    }
}

impl<'a> ArchetypeChunk<'a> {
    /// The access to `column`, an entry of `columns`.
    ///
    /// # Safety
    /// `column` was read from `self.columns`.
    #[inline(always)]
    unsafe fn access(&self, column: u32) -> ColumnAccess<'a, NoLookup> {
        match column {
            ABSENT => ColumnAccess::Absent,
            // SAFETY: an entry of `columns` other than ABSENT is one of `table`'s columns
            // (the type invariant; the caller read `column` from there).
            column => ColumnAccess::Dense(
                unsafe { self.table.column_unchecked(column as usize) }.base_ptr(),
            ),
        }
    }
}

/// The chunks of one query: the runs of rowless entities when the query matches the empty
/// set, then its cached tables, skipping empty ones.
#[derive(Debug)]
pub struct ArchetypeChunks<'a> {
    /// The matched tables not handed out yet.
    walk: TableWalk<'a>,
    /// The cache, for the rowless runs' column list (its first table's).
    cache: &'a QueryCache,
    rowless: RowlessRuns<'a>,
}

/// The matched tables a query has left to visit, with their column lists.
///
/// # Invariants
/// * Every id in `matched` indexes `tables`: both come from one [`Archetypes`] the cache is
///   current for (`query_chunks` asserts it before building a walk), whose tables are never
///   removed.
/// * `columns.len() == matched.len() * slots`: `columns[i * slots..][..slots]` is the column
///   list of `matched[i]` (the [`QueryCache`] invariant), each entry [`ABSENT`] or a valid
///   column of that table.
/// * `next <= matched.len()`: the tables from `next` on are left.
#[derive(Clone, Debug)]
struct TableWalk<'a> {
    tables: &'a [Table],
    matched: &'a [TableId],
    columns: &'a [u32],
    slots: usize,
    next: usize,
}

impl<'a> TableWalk<'a> {
    /// Leaves no table to visit.
    #[inline(always)]
    fn exhaust(&mut self) {
        self.next = self.matched.len();
    }

    /// The next matched table with rows, as a chunk.
    #[inline(always)]
    fn next_chunk(&mut self) -> Option<ArchetypeChunk<'a>> {
        while let Some(&id) = self.matched.get(self.next) {
            let start = self.next * self.slots;
            self.next += 1;
            // SAFETY: `next < matched.len()`, so `start + slots <= matched.len() * slots ==
            // columns.len()` (the invariant; no overflow, it is a slice length).
            let columns = unsafe { self.columns.get_unchecked(start..start + self.slots) };
            // SAFETY: a matched id indexes `tables` (the invariant).
            let table = unsafe { self.tables.get_unchecked(id.index()) };
            if !table.is_empty() {
                // The chunk invariant: `columns` is this table's list (the invariant).
                return Some(ArchetypeChunk {
                    table,
                    columns,
                    entities: table.entities(),
                });
            }
        }
        None
    }
}

impl<'a> ArchetypeChunks<'a> {
    /// The chunks of `cache`'s matched tables among `archetypes`' tables; `alive` is every
    /// live entity of the world (where rowless entities are found).
    ///
    /// `cache` must be current for `archetypes` (the walk's invariant): the caller asserts
    /// it.
    #[inline]
    pub(crate) fn new(
        archetypes: &'a Archetypes,
        cache: &'a QueryCache,
        alive: &'a [Entity],
    ) -> Self {
        let matched = cache.matched_tables();
        // Matched tables are in ascending id, so the empty set's comes first when matched.
        let matches_empty = matched.first() == Some(&TableId::EMPTY);
        let tables = archetypes.tables();
        ArchetypeChunks {
            walk: TableWalk {
                tables,
                matched,
                columns: cache.all_columns(),
                slots: cache.slots(),
                next: 0,
            },
            cache,
            rowless: archetypes.rowless_runs(if matches_empty { alive } else { &[] }),
        }
    }

    /// The next run of rowless entities, as a chunk. Tested here so that a query without
    /// rowless entities to find pays one comparison per chunk, not a call.
    #[inline(always)]
    fn next_rowless(&mut self) -> Option<ArchetypeChunk<'a>> {
        if self.rowless.left == 0 {
            return None;
        }
        let run = self.rowless.next()?;
        Some(ArchetypeChunk {
            // The empty set's table, in whose place the rowless runs come.
            table: &self.walk.tables[TableId::EMPTY.index()],
            // The runs are armed only when the empty set's table is matched, as the first:
            // its column list is the first (all ABSENT: that table has no column).
            columns: self.cache.columns(0),
            entities: run,
        })
    }

    /// Folds every chunk left, in the order `next` hands them out, and leaves the iterator
    /// exhausted: what [`Storage::fold_chunks`](ecs_core::storage::Storage::fold_chunks)
    /// runs. The walk is a local copy, kept in registers, where a loop of `next` stored its
    /// cursor back after every table: with many small tables that bookkeeping was a large
    /// part of the per-table step. The rowless runs, rare, get a loop of their own, so the
    /// tables' loop does not test for them at every table.
    #[inline(always)]
    pub fn fold<B>(&mut self, init: B, f: &mut impl FoldChunk<ArchetypeChunk<'a>, B>) -> B {
        let mut acc = init;
        while let Some(chunk) = self.next_rowless() {
            acc = f.fold_chunk(acc, chunk);
        }
        let mut walk = self.walk.clone();
        self.walk.exhaust();
        while let Some(chunk) = walk.next_chunk() {
            acc = f.fold_chunk(acc, chunk);
        }
        acc
    }
}

impl<'a> Iterator for ArchetypeChunks<'a> {
    type Item = ArchetypeChunk<'a>;

    // Always inlined: returned through memory, the chunk was read back before its stores
    // had landed (a store-forwarding stall per chunk in perf).
    #[inline(always)]
    fn next(&mut self) -> Option<ArchetypeChunk<'a>> {
        match self.next_rowless() {
            Some(chunk) => Some(chunk),
            None => self.walk.next_chunk(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let tables = self.walk.matched.len() - self.walk.next;
        match self.rowless.left {
            0 => (0, Some(tables)),
            // Each run holds at least one of the entities left.
            left => (0, tables.checked_add(left)),
        }
    }
}
