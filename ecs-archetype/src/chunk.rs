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
use ecs_core::storage::{ColumnAccess, NoLookup, QueryChunk};

use crate::archetypes::Archetypes;
use crate::query_cache::{QueryCache, ABSENT};
use crate::record::RowlessRuns;
use crate::table::{Table, TableId};

/// The rows of one matched table, or one run of rowless entities.
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
    pub fn key(&self) -> Option<usize> {
        let id = self.table.id();
        (id != TableId::EMPTY).then_some(id.index())
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
        match self.columns[slot] {
            ABSENT => ColumnAccess::Absent,
            column => ColumnAccess::Dense(self.table.column(column as usize).base_ptr()),
        }
    }
}

/// The chunks of one query: the runs of rowless entities when the query matches the empty
/// set, then its cached tables, skipping empty ones.
#[derive(Debug)]
pub struct ArchetypeChunks<'a> {
    tables: &'a [Table],
    cache: &'a QueryCache,
    next: usize,
    rowless: RowlessRuns<'a>,
}

impl<'a> ArchetypeChunks<'a> {
    /// The chunks of `cache`'s matched tables among `archetypes`' tables; `alive` is every
    /// live entity of the world (where rowless entities are found).
    #[inline]
    pub(crate) fn new(
        archetypes: &'a Archetypes,
        cache: &'a QueryCache,
        alive: &'a [Entity],
    ) -> Self {
        // Matched tables are in ascending id, so the empty set's comes first when matched.
        let matches_empty = cache.matched_tables().first() == Some(&TableId::EMPTY);
        ArchetypeChunks {
            tables: archetypes.tables(),
            cache,
            next: 0,
            rowless: archetypes.rowless_runs(if matches_empty { alive } else { &[] }),
        }
    }
}

impl<'a> Iterator for ArchetypeChunks<'a> {
    type Item = ArchetypeChunk<'a>;

    // Always inlined: returned through memory, the chunk was read back before its stores
    // had landed (a store-forwarding stall per chunk in perf).
    #[inline(always)]
    fn next(&mut self) -> Option<ArchetypeChunk<'a>> {
        // Tested here so that a query without rowless entities to find pays one comparison
        // per chunk, not a call.
        if self.rowless.left != 0 {
            if let Some(run) = self.rowless.next() {
                return Some(ArchetypeChunk {
                    table: &self.tables[TableId::EMPTY.index()],
                    // The runs are armed only when the empty set's table is matched, as the
                    // first.
                    columns: self.cache.columns(0),
                    entities: run,
                });
            }
        }
        let matched = self.cache.matched_tables();
        while let Some(&id) = matched.get(self.next) {
            let i = self.next;
            self.next += 1;
            let table = &self.tables[id.index()];
            if !table.is_empty() {
                return Some(ArchetypeChunk {
                    table,
                    columns: self.cache.columns(i),
                    entities: table.entities(),
                });
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let tables = self.cache.matched_tables().len() - self.next;
        match self.rowless.left {
            0 => (0, Some(tables)),
            // Each run holds at least one of the entities left.
            left => (0, tables.checked_add(left)),
        }
    }
}
