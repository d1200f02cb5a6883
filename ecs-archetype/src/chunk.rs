//! Query chunks: one per matched, non-empty table.
//!
//! A chunk hands the query its table's entity slice and, per slot, the base pointer of the
//! column (or "absent"). The query then fetches row `i` as `base + i * size`: the per-row work
//! is a pointer offset, and the loop over a chunk is one the compiler can vectorise.

use ecs_core::entity::Entity;
use ecs_core::storage::{ColumnAccess, NoLookup, QueryChunk};

use crate::query_cache::{QueryCache, ABSENT};
use crate::table::Table;

/// The rows of one matched table.
#[derive(Clone, Copy, Debug)]
pub struct ArchetypeChunk<'a> {
    table: &'a Table,
    /// The column of each descriptor slot in `table` ([`ABSENT`] if none).
    columns: &'a [u32],
}

impl<'a> ArchetypeChunk<'a> {
    /// The table whose rows the chunk is.
    #[inline]
    pub fn table(&self) -> &'a Table {
        self.table
    }
}

impl<'a> QueryChunk<'a> for ArchetypeChunk<'a> {
    type Lookup = NoLookup;

    #[inline]
    fn entities(&self) -> &'a [Entity] {
        self.table.entities()
    }

    #[inline]
    fn column(&self, slot: usize) -> ColumnAccess<'a, NoLookup> {
        match self.columns[slot] {
            ABSENT => ColumnAccess::Absent,
            column => ColumnAccess::Dense(self.table.column(column as usize).base_ptr()),
        }
    }
}

/// The chunks of one query: its cached tables, skipping empty ones.
#[derive(Debug)]
pub struct ArchetypeChunks<'a> {
    tables: &'a [Table],
    cache: &'a QueryCache,
    next: usize,
}

impl<'a> ArchetypeChunks<'a> {
    /// The chunks of `cache`'s matched tables among `tables`.
    pub(crate) fn new(tables: &'a [Table], cache: &'a QueryCache) -> Self {
        ArchetypeChunks {
            tables,
            cache,
            next: 0,
        }
    }
}

impl<'a> Iterator for ArchetypeChunks<'a> {
    type Item = ArchetypeChunk<'a>;

    #[inline]
    fn next(&mut self) -> Option<ArchetypeChunk<'a>> {
        let matched = self.cache.matched_tables();
        while let Some(&id) = matched.get(self.next) {
            let i = self.next;
            self.next += 1;
            let table = &self.tables[id.index()];
            if !table.is_empty() {
                return Some(ArchetypeChunk {
                    table,
                    columns: self.cache.columns(i),
                });
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.cache.matched_tables().len() - self.next))
    }
}
