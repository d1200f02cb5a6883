//! [`HybridChunk`] and [`HybridChunks`]: the runs of rows a hybrid query walks (a table's,
//! with sparse slots looked up or walked in step; or the sparse half's).

use ecs_core::component::StorageKind;
use ecs_core::entity::Entity;
use ecs_core::storage::{ColumnAccess, FoldChunk, QueryChunk, QueryDescriptor};
use ecs_sparse::{SparseChunk, SparseChunks, SparseSet, SparseStorage};

use ecs_archetype::chunk::{ArchetypeChunk, ArchetypeChunks};

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
    /// A query over sparse components only, answered by the sparse half.
    Sparse(SparseChunk<'a>),
}

impl<'a> QueryChunk<'a> for HybridChunk<'a> {
    type Lookup = SparseSet;

    #[inline]
    fn entities(&self) -> &'a [Entity] {
        match self {
            HybridChunk::Tables(chunk) | HybridChunk::Table { chunk, .. } => chunk.entities(),
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
    /// Driven by the sparse half.
    Sparse(SparseChunks<'a>),
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
            HybridChunks::Sparse(chunks) => chunks.next().map(HybridChunk::Sparse),
        }
    }
}
