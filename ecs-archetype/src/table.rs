//! Tables: one per archetype (set of component types), one column per component.
//!
//! A table stores every entity that has *exactly* its set of components. Each component is a
//! type-erased column ([`BlobVec`]); the entity of row `i` is `entities[i]`, and its value of
//! component `components[c]` is item `i` of `columns[c]`. Because every row of a table has the
//! same components, a query that matches the table can walk each column with a plain pointer
//! offset: no per-row checks, no look-ups.
//!
//! ```text
//!   Table {Position, Velocity, Frozen}        components sorted by id: [2, 5, 9]
//!
//!             entities   columns[0]: Position   columns[1]: Velocity   columns[2]: Frozen (ZST)
//!   row 0 ──▶   3v1       (0.0, 1.0)             (1.0, 0.0)             ()
//!   row 1 ──▶   7v2       (4.0, 2.0)             (0.0, 1.0)             ()
//!   row 2 ──▶   1v1       (8.0, 3.0)             (0.5, 0.5)             ()
//!
//!   swap-remove row 0: the last row (1v1) moves into the hole, in every column at once
//!   row 0 ──▶   1v1       (8.0, 3.0)             (0.5, 0.5)             ()
//!   row 1 ──▶   7v2       (4.0, 2.0)             (0.0, 1.0)             ()
//! ```
//!
//! A table knows nothing about entity records: operations that move a row report which entity
//! changed row, and the caller ([`Archetypes`](crate::archetypes::Archetypes)) fixes its record.
//! Mutating operations are crate-private: only the archetype layer may break and restore the
//! "all columns are parallel" invariant.

use std::ptr::NonNull;

use ecs_core::blob::BlobVec;
use ecs_core::component::{Component, ComponentId, Components};
use ecs_core::entity::Entity;
use ecs_core::layout::{ComponentBytes, StorageUnit, UnitKind};
use ecs_core::storage::{ChunkKey, ChunkRow, ColumnValues, EntityPlace};
use ecs_core::unwind::for_each_completing;

use crate::component_index::ComponentIndex;

/// The most rows a table may hold: rows are kept as `u32` in entity records.
pub const MAX_ROWS: usize = u32::MAX as usize;

/// The index of a table within its storage.
///
/// Tables are never removed (an emptied table stays, ready for the next entity of its
/// archetype), so a `TableId` stays valid for the storage's lifetime and ids grow in creation
/// order — which is what lets a query cache remember "I have seen tables `0..n`".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(u32);

impl TableId {
    /// The table of the empty component set, created with the storage. It never holds a
    /// row: an entity with no table component has no row and a vacant record (see
    /// [`Archetypes`](crate::archetypes::Archetypes)); the table stays as the start of the
    /// archetype graph's edges and as the match of queries that require no component.
    pub const EMPTY: TableId = TableId(0);

    /// The id as a number (the table's index).
    #[inline]
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// The id of the table at `index`.
    ///
    /// # Panics
    /// If `index` does not fit in 32 bits.
    pub fn new(index: usize) -> TableId {
        TableId(u32::try_from(index).expect("more than 2^32 tables"))
    }

    /// The id as an index into the storage's tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a row move did, so the caller can fix entity records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowMove {
    /// The row the entity now has in the destination table.
    pub(crate) dst_row: usize,
    /// The entity that was moved into the vacated source row (`None` if it was the last row).
    pub(crate) moved: Option<Entity>,
}

/// Moves row `row`'s value of each `(from, to)` column pair to the end of `to` and
/// swap-removes it from `from` (forgotten there, so it is owned once, by `to`).
///
/// # Safety
/// Each pair holds one component; `row < from.len()`; `to` has room for one more item.
unsafe fn move_paired<'a>(
    pairs: impl Iterator<Item = (&'a mut BlobVec, &'a mut BlobVec)>,
    row: usize,
) {
    for (from, to) in pairs {
        // SAFETY: the pair holds one component in two tables' columns (distinct arrays);
        // `row < from.len()` and `to` has room (caller).
        unsafe { from.move_to_unchecked(row, to) };
    }
}

/// The entities of one archetype and their components, one column per component.
///
/// # Invariants
/// * `components` is sorted ascending and free of duplicates; `columns[c]` holds values of
///   component `components[c]` (created from its registered layout and drop function; for
///   a Rust type `T` that layout is `Layout::new::<T>()`, so the column's stride is
///   `size_of::<T>()`, which typed reads rely on).
/// * Every column has exactly `entities.len()` items: row `i` of every column belongs to
///   `entities[i]` (broken only inside the crate-private mutating methods, never across
///   a return or an unwind).
/// * `entities.len() <= MAX_ROWS`.
/// * `room` is at most `entities.capacity()` and at most every column's capacity, so a
///   table with `len() < room` has room for one more row in all of them.
/// * `column_of[components[c].index()] == c` for every column `c`, every other entry is
///   `NO_COLUMN`, and `column_of.len()` is the largest component index plus one (so
///   `column_index` answers with one look-up; `column_index` never returns a column out of
///   range).
pub struct Table {
    id: TableId,
    components: Box<[ComponentId]>,
    /// `column_of[c]` is the column of component index `c`, or [`NO_COLUMN`]; as long as the
    /// largest component index in the table plus one (a table's set never changes, so a larger
    /// index is never in it). Makes `column_index` one load instead of a binary search on
    /// every `World::get`.
    column_of: Box<[u16]>,
    columns: Box<[BlobVec]>,
    entities: Vec<Entity>,
    /// Rows the table has room for without growing (the smallest capacity of `entities`
    /// and the columns): reserving room for a row is one comparison, not one per column.
    room: usize,
}

/// "Not in this table" in [`Table`]'s `column_of`.
const NO_COLUMN: u16 = u16::MAX;

impl Table {
    /// An empty table for the sorted set `components`, every one known to `index`.
    pub(crate) fn new(
        id: TableId,
        components: Box<[ComponentId]>,
        index: &ComponentIndex,
    ) -> Table {
        debug_assert!(components.windows(2).all(|w| w[0] < w[1]), "unsorted set");
        let columns = components.iter().map(|&c| index.new_column(c)).collect();
        let len = components.last().map_or(0, |c| c.index() + 1);
        let mut column_of = vec![NO_COLUMN; len].into_boxed_slice();
        for (column, c) in components.iter().enumerate() {
            column_of[c.index()] = u16::try_from(column).expect("more than 65,535 components");
        }
        Table {
            id,
            components,
            column_of,
            columns,
            entities: Vec::new(),
            room: 0,
        }
    }

    /// This table's id.
    #[inline]
    pub fn id(&self) -> TableId {
        self.id
    }

    /// The archetype: component ids, sorted ascending; column `i` holds `components()[i]`.
    #[inline]
    pub fn components(&self) -> &[ComponentId] {
        &self.components
    }

    /// Number of rows (entities).
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// True when the table holds no entity.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entity of each row, in row order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The column holding `component`, if the table has it (one look-up, no search).
    #[inline]
    pub fn column_index(&self, component: ComponentId) -> Option<usize> {
        match self.column_of.get(component.index()) {
            Some(&column) if column != NO_COLUMN => Some(usize::from(column)),
            _ => None,
        }
    }

    /// Whether the table's archetype includes `component`.
    #[inline]
    pub fn has(&self, component: ComponentId) -> bool {
        self.column_index(component).is_some()
    }

    /// Column `index` (see [`Table::column_index`]).
    ///
    /// # Panics
    /// If `index` is not below the number of components.
    #[inline]
    pub fn column(&self, index: usize) -> &BlobVec {
        &self.columns[index]
    }

    /// [`Table::column`] without the bounds check, for a query walking many small tables.
    ///
    /// # Safety
    /// `index` is below the table's column count.
    #[inline]
    pub unsafe fn column_unchecked(&self, index: usize) -> &BlobVec {
        // SAFETY: the caller keeps `index` in bounds.
        unsafe { self.columns.get_unchecked(index) }
    }

    /// The table as one unit of a [`StorageLayout`](ecs_core::layout::StorageLayout): its
    /// component set with each column's bytes, its rows, the capacity of its entity vector
    /// and all its bytes ([`Table::memory_usage`]).
    pub fn layout(&self, components: &Components) -> StorageUnit {
        StorageUnit {
            kind: UnitKind::Table,
            components: self
                .components
                .iter()
                .zip(self.columns.iter())
                .map(|(&c, column)| ComponentBytes::new(c, components, column.memory_usage()))
                .collect(),
            rows: self.len(),
            capacity: self.entities.capacity(),
            pages: None,
            bytes: self.memory_usage(),
        }
    }

    /// Heap bytes held: column buffers, the entity vector and the component list.
    pub fn memory_usage(&self) -> usize {
        let columns: usize = self.columns.iter().map(BlobVec::memory_usage).sum();
        columns
            + self.columns.len() * size_of::<BlobVec>()
            + self.components.len() * size_of::<ComponentId>()
            + self.entities.capacity() * size_of::<Entity>()
    }

    /// Makes room for `additional` more rows in every column and the entity vector.
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.entities.len().saturating_add(additional) > self.room {
            self.grow(additional);
        }
    }

    /// Grows the entity vector and every column to hold `additional` more rows.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, additional: usize) {
        ecs_core::blob::reserve_amortized(&mut self.entities, additional);
        for column in self.columns.iter_mut() {
            column.reserve(additional);
        }
        self.update_room();
    }

    /// Whether `room` is within every capacity (the type invariant the unchecked pushes of
    /// a row move rely on): for consistency checks.
    pub(crate) fn room_fits(&self) -> bool {
        self.room <= self.entities.capacity()
            && self.columns.iter().all(|c| self.room <= c.capacity())
    }

    /// Recomputes `room` from the capacities (after any of them changed).
    fn update_room(&mut self) {
        self.room = self
            .columns
            .iter()
            .map(BlobVec::capacity)
            .fold(self.entities.capacity(), usize::min);
    }

    /// Appends a row for `entity` whose values `write` pushes onto the columns; returns the row.
    ///
    /// The caller has reserved room for the row (see [`Table::reserve`]; a batch reserves
    /// once for many rows, see [`crate::archetypes::Archetypes::push_batch`]), so pushing
    /// within it cannot reallocate. Should `write` unwind after pushing onto some columns, the
    /// values it pushed are dropped and the table is left as it was.
    ///
    /// # Panics
    /// If the table already holds [`MAX_ROWS`] rows (before `write` runs).
    ///
    /// # Safety
    /// `write` pushes at most one value onto each column, of that column's component; if it
    /// returns, it has pushed exactly one onto every column. The entity vector and every
    /// column have room for one more item.
    #[inline]
    pub(crate) unsafe fn push_row(
        &mut self,
        entity: Entity,
        write: impl FnOnce(&mut [BlobVec]),
    ) -> usize {
        assert!(self.len() < MAX_ROWS, "more than 2^32 rows in one table");
        debug_assert!(self.entities.len() < self.entities.capacity());
        let row = self.entities.len();
        /// Drops whatever `write` pushed if it unwinds, restoring parallel columns.
        struct Rollback<'a>(&'a mut [BlobVec], usize);
        impl Drop for Rollback<'_> {
            fn drop(&mut self) {
                let rows = self.1;
                for_each_completing(self.0.iter_mut(), |column| {
                    if column.len() > rows {
                        // SAFETY: the column holds `rows + 1` values; the last one was pushed
                        // by the unwinding `write` and is owned by the column.
                        unsafe { column.swap_remove_and_drop_unchecked(rows) };
                    }
                });
            }
        }
        let rollback = Rollback(&mut self.columns, row);
        write(rollback.0);
        std::mem::forget(rollback);
        debug_assert!(self.columns.iter().all(|c| c.len() == row + 1));
        // Capacity was reserved (caller): this push does not reallocate or panic.
        self.entities.push(entity);
        row
    }

    /// Appends one row per entity of `entities`, each column's values copied from its
    /// source in one block (row `i` of the new rows takes value `i`), or, when the table is
    /// empty and the source offers its buffer, the buffer swapped in whole. Nothing in it
    /// runs user code, so the columns stay parallel.
    ///
    /// # Panics
    /// If the table would hold more than [`MAX_ROWS`] rows, or a component of the table has
    /// no source (before anything is appended).
    ///
    /// # Safety
    /// `sources` holds one entry per component of the table, each as
    /// [`Storage::spawn_columns`](ecs_core::Storage::spawn_columns) requires it:
    /// `entities.len()` initialised values of the component, laid out as its column lays
    /// them out, outside this table, usable on any thread, handed over (the caller never
    /// uses or drops them again); a buffer only when it holds exactly those values.
    pub(crate) unsafe fn extend_rows(
        &mut self,
        entities: &[Entity],
        sources: &mut [ColumnValues<'_>],
    ) {
        assert!(
            self.len() + entities.len() <= MAX_ROWS,
            "more than 2^32 rows in one table"
        );
        assert!(
            self.components
                .iter()
                .all(|&c| sources.iter().any(|s| s.component == c)),
            "every column has a source"
        );
        let adopt = self.entities.is_empty();
        self.reserve(if adopt { 0 } else { entities.len() });
        ecs_core::blob::reserve_amortized(&mut self.entities, entities.len());
        // An adopted buffer may hold less than the column did: no room is promised until
        // the capacities are read again below (nor if anything here unwinds).
        self.room = 0;
        for (column, &component) in self.columns.iter_mut().zip(self.components.iter()) {
            let source = sources
                .iter_mut()
                .find(|s| s.component == component)
                .expect("checked above");
            match source.buffer.as_deref_mut() {
                // SAFETY: the buffer holds exactly the `entities.len()` values of the
                // column's component (caller) and the column is empty (so the caller gets
                // an empty buffer back); both hold values of that component.
                Some(buffer) if adopt => unsafe { column.swap_buffers(buffer) },
                // SAFETY: the caller's pointer holds `entities.len()` owned values of the
                // column's component, outside the table; `append_raw` makes room for them.
                _ => unsafe { column.append_raw(source.values, entities.len()) },
            }
        }
        // Reserved above: no reallocation, no panic.
        self.entities.extend_from_slice(entities);
        self.update_room();
    }

    /// Moves row `row` into `dst`, whose set is this table's plus the component of its
    /// column `at`, taking that column's value from `value`; swap-removes the row here.
    ///
    /// Every `insert` of a new table component comes here: the columns pair up in order
    /// around `at`, so a move is one copy per column, with no walk over the two sets.
    ///
    /// # Panics
    /// If `dst` already holds [`MAX_ROWS`] rows (before anything moves).
    ///
    /// # Safety
    /// `row < self.len()`; `dst`'s set is as described; `value` points to an owned value of
    /// the added component, outside the tables, which the caller forgets.
    pub(crate) unsafe fn move_row_adding(
        &mut self,
        row: usize,
        dst: &mut Table,
        at: usize,
        value: NonNull<u8>,
    ) -> RowMove {
        debug_assert!(row < self.len());
        debug_assert_eq!(dst.columns.len(), self.columns.len() + 1);
        assert!(dst.len() < MAX_ROWS, "more than 2^32 rows in one table");
        dst.reserve(1);
        let (before, rest) = dst.columns.split_at_mut(at);
        let (added, after) = rest.split_first_mut().expect("`at` is a column of `dst`");
        let pairs = self.columns.iter_mut().zip(before.iter_mut().chain(after));
        // SAFETY: the columns pair up (same component, caller); `row < len`; room reserved.
        unsafe { move_paired(pairs, row) };
        // SAFETY: `value` is an owned value of the added component (caller); room reserved.
        unsafe { added.push_from_unchecked(value) };
        self.move_entity_to(row, dst)
    }

    /// Moves row `row` into `dst`, whose set is this table's plus the components of `added`
    /// (sorted by component, none of them here), each of whose values is pushed onto its
    /// column; swap-removes the row here. One move for any number of added components: what
    /// a queued bundle does ([`Table::move_row_adding`] is the one-component case).
    ///
    /// # Panics
    /// If `dst` already holds [`MAX_ROWS`] rows (before anything moves).
    ///
    /// # Safety
    /// `row < self.len()`; `dst`'s set is as described and `added` is sorted by component;
    /// each value points to an owned value of its component, outside the tables, which the
    /// caller forgets.
    pub(crate) unsafe fn move_row_adding_many(
        &mut self,
        row: usize,
        dst: &mut Table,
        added: &[(ComponentId, NonNull<u8>)],
    ) -> RowMove {
        debug_assert!(row < self.len());
        debug_assert_eq!(dst.columns.len(), self.columns.len() + added.len());
        assert!(dst.len() < MAX_ROWS, "more than 2^32 rows in one table");
        dst.reserve(1);
        let mut own = self
            .columns
            .iter_mut()
            .zip(self.components.iter())
            .peekable();
        let mut new = added.iter().peekable();
        for (column, &component) in dst.columns.iter_mut().zip(dst.components.iter()) {
            match own.peek() {
                Some(&(_, &c)) if c == component => {
                    let (from, _) = own.next().expect("peeked");
                    // SAFETY: `from` holds `component` too (the sets differ only by
                    // `added`); `row < len`; room was reserved in `column`.
                    unsafe { from.move_to_unchecked(row, column) };
                }
                _ => {
                    let &(c, value) = new.next().expect("dst's set is ours plus `added`");
                    debug_assert_eq!(c, component, "`added` is sorted and not ours");
                    // SAFETY: an owned value of `component` (caller); room reserved.
                    unsafe { column.push_from_unchecked(value) };
                }
            }
        }
        self.move_entity_to(row, dst)
    }

    /// Moves row `row` into `dst`, whose set is this table's minus the component of this
    /// table's column `at`, whose value is moved to `out`; swap-removes the row here.
    ///
    /// Every `remove` of a table component comes here (see [`Table::move_row_adding`]).
    ///
    /// # Panics
    /// If `dst` already holds [`MAX_ROWS`] rows (before anything moves).
    ///
    /// # Safety
    /// `row < self.len()`; `dst`'s set is as described; `out` is valid for writing one value
    /// of the removed component and does not overlap the tables.
    pub(crate) unsafe fn move_row_removing(
        &mut self,
        row: usize,
        dst: &mut Table,
        at: usize,
        out: NonNull<u8>,
    ) -> RowMove {
        debug_assert!(row < self.len());
        debug_assert_eq!(dst.columns.len() + 1, self.columns.len());
        assert!(dst.len() < MAX_ROWS, "more than 2^32 rows in one table");
        dst.reserve(1);
        let (before, rest) = self.columns.split_at_mut(at);
        let (removed, after) = rest.split_first_mut().expect("`at` is a column of `self`");
        let pairs = before.iter_mut().chain(after).zip(dst.columns.iter_mut());
        // SAFETY: the columns pair up (same component, caller); `row < len`; room reserved.
        unsafe { move_paired(pairs, row) };
        // SAFETY: `row < len`; `out` is writable and disjoint (caller); the value leaves the
        // column (moved out).
        unsafe { removed.swap_remove_into_unchecked(row, out) };
        self.move_entity_to(row, dst)
    }

    /// Takes row `row` out of a table with one column: its value is moved to `out` and the
    /// row is swap-removed. This is removing an entity's last table component: an entity with
    /// no table component has no row (see [`Archetypes`](crate::archetypes::Archetypes)), so
    /// the row goes nowhere. Returns the entity moved into row `row` (`None` if it was the last
    /// row). Nothing is dropped, so no user code runs.
    ///
    /// # Safety
    /// `row < self.len()`; the table has exactly one column; `out` is valid for writing one
    /// value of its component and does not overlap the tables.
    pub(crate) unsafe fn swap_remove_only_value_into(
        &mut self,
        row: usize,
        out: NonNull<u8>,
    ) -> Option<Entity> {
        debug_assert!(row < self.len());
        debug_assert_eq!(self.columns.len(), 1);
        // SAFETY: the table has one column (caller), holding `entities.len() > row` values
        // (table invariant, caller); `out` is writable and disjoint (caller); the value leaves
        // the column (moved out), and the row leaves `entities` next, keeping them parallel.
        unsafe { self.columns[0].swap_remove_into_unchecked(row, out) };
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// The entity half of a row move, once every column has moved: row `row`'s entity
    /// leaves this table (swap-remove) and is appended to `dst`.
    fn move_entity_to(&mut self, row: usize, dst: &mut Table) -> RowMove {
        let entity = self.entities.swap_remove(row);
        let dst_row = dst.entities.len();
        dst.entities.push(entity);
        debug_assert!(dst.columns.iter().all(|c| c.len() == dst_row + 1));
        debug_assert!(self.columns.iter().all(|c| c.len() == self.entities.len()));
        RowMove {
            dst_row,
            moved: self.entities.get(row).copied(),
        }
    }

    /// Swap-removes row `row` and drops its values.
    ///
    /// The entity bookkeeping is committed first: the row leaves `entities` and
    /// `records_fixup(moved)` is called with the entity now at `row` (if any) *before* any
    /// value's `Drop` runs. The drops then run column by column; if one panics, the others
    /// still run and every column still loses the row, so the table stays consistent.
    ///
    /// # Safety
    /// `row < self.len()`; `records_fixup` does not panic.
    pub(crate) unsafe fn swap_remove_and_drop_row(
        &mut self,
        row: usize,
        records_fixup: impl FnOnce(Option<Entity>),
    ) {
        debug_assert!(row < self.len());
        self.entities.swap_remove(row);
        records_fixup(self.entities.get(row).copied());
        for_each_completing(self.columns.iter_mut(), |column| {
            // SAFETY: every column held `entities.len() + 1 > row` values.
            unsafe { column.swap_remove_and_drop_unchecked(row) }
        });
    }

    /// Drops every row. The entity vector is emptied before any value's `Drop` runs; if one
    /// panics, every other value is still dropped and all columns end empty.
    pub(crate) fn clear(&mut self) {
        self.entities.clear();
        for_each_completing(self.columns.iter_mut(), BlobVec::clear);
    }
}

/// One row of a table, found once: each component is then read from its column at that row
/// (the archetype backend's [`EntityPlace`]).
///
/// An entity with no table component has no row; its place is *rowless*: a table with no
/// columns, so that every read answers `None` and no row is ever read.
///
/// # Invariant
/// `row < table.len()`, or the table has no columns (a rowless place); the shared borrow of
/// the table keeps it so.
#[derive(Clone, Copy, Debug)]
pub struct TableRow<'a> {
    table: &'a Table,
    row: usize,
}

impl<'a> TableRow<'a> {
    /// Row `row` of `table`, if the table has it.
    pub fn new(table: &'a Table, row: usize) -> Option<TableRow<'a>> {
        // SAFETY: just checked.
        (row < table.len()).then(|| unsafe { TableRow::new_unchecked(table, row) })
    }

    /// Row `row` of `table`, unchecked.
    ///
    /// # Safety
    /// `row < table.len()`.
    #[inline]
    pub unsafe fn new_unchecked(table: &'a Table, row: usize) -> TableRow<'a> {
        debug_assert!(row < table.len());
        TableRow { table, row }
    }

    /// The place of an entity without a row: `table` must have no columns (the empty set's
    /// table), else `None`. Every read through it answers `None`.
    pub fn rowless(table: &'a Table) -> Option<TableRow<'a>> {
        table
            .columns
            .is_empty()
            .then_some(TableRow { table, row: 0 })
    }

    /// The table.
    pub fn table(&self) -> &'a Table {
        self.table
    }

    /// The row (0 for a rowless place, which reads no row).
    pub fn row(&self) -> usize {
        self.row
    }
}

impl EntityPlace for TableRow<'_> {
    #[inline]
    fn ptr(&self, component: ComponentId) -> Option<NonNull<u8>> {
        let column = self.table.column_index(component)?;
        // SAFETY: the table has a column, so this is no rowless place and `row < table.len()`
        // (type invariant), every column's length (table invariant); `column_index` answers
        // only columns in range.
        Some(unsafe {
            self.table
                .columns
                .get_unchecked(column)
                .get_unchecked(self.row)
        })
    }

    /// `ptr` with `T`'s size as the stride, so the value's address is the row (known from
    /// the record) times a constant: it does not wait for a load of the column's item size
    /// and a multiplication, the last two steps from an entity to its value on every typed
    /// `get` and hierarchy step.
    ///
    /// The address is computed with wrapping arithmetic: exact for `component` = `T`'s id
    /// (the method's contract, under which `T`'s size is the column's stride, by the table
    /// invariant on column layouts, and the row is in bounds), and for any other id merely
    /// wrong, never undefined to compute.
    #[inline]
    fn ptr_of<T: Component>(&self, component: ComponentId) -> Option<NonNull<u8>> {
        let column = self.table.column_index(component)?;
        // SAFETY: `column_index` answers only columns in range.
        let base = unsafe { self.table.columns.get_unchecked(column) }.base_ptr();
        NonNull::new(base.as_ptr().cast::<T>().wrapping_add(self.row).cast())
    }

    /// The table's index and the row. Every place of one table reads a component from that
    /// table's one column at its own row, and a table lacking the component answers `None`
    /// for all its places (the `Storage` contract's "Rows").
    #[inline]
    fn chunk_row(&self) -> Option<ChunkRow> {
        // Rows fit 32 bits: records store them as `u32`.
        Some(ChunkRow {
            key: ChunkKey::new(self.table.id().raw())?,
            row: self.row as u32,
        })
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("id", &self.id)
            .field("components", &self.components)
            .field("len", &self.entities.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecs_core::component::{Component, Components};
    use std::alloc::Layout;

    #[derive(Debug, PartialEq, Clone)]
    struct A(u32);
    impl Component for A {
        type Mutability = ecs_core::Mutable;
    }
    #[derive(Debug, PartialEq, Clone)]
    struct B(String);
    impl Component for B {
        type Mutability = ecs_core::Mutable;
    }
    #[derive(Debug, PartialEq, Clone)]
    struct C(u64);
    impl Component for C {
        type Mutability = ecs_core::Mutable;
    }

    struct Setup {
        ids: [ComponentId; 3],
        index: ComponentIndex,
    }

    fn setup() -> Setup {
        let mut components = Components::default();
        let ids = [
            components.register::<A>(),
            components.register::<B>(),
            components.register::<C>(),
        ];
        let mut index = ComponentIndex::default();
        for id in ids {
            index.learn(components.info(id));
        }
        Setup { ids, index }
    }

    fn entity(i: u32) -> Entity {
        Entity::new(i, 1).unwrap()
    }

    /// Pushes a row of (A, B) onto a table whose columns are exactly [A, B].
    fn push_ab(table: &mut Table, e: Entity, i: u32) {
        table.reserve(1);
        // SAFETY: the table's columns are A then B, with room for a row; one value is pushed
        // onto each.
        unsafe {
            table.push_row(e, |cols| {
                cols[0].push(A(i));
                cols[1].push(B(i.to_string()));
            })
        };
    }

    /// Reads a value of type `T` from `column` at `row`.
    ///
    /// # Safety
    /// The column holds `T` and `row` is in bounds.
    unsafe fn read<T: Clone>(table: &Table, column: usize, row: usize) -> T {
        // SAFETY: forwarded.
        unsafe {
            table
                .column(column)
                .get_unchecked(row)
                .cast::<T>()
                .as_ref()
                .clone()
        }
    }

    fn assert_parallel(table: &Table) {
        for c in 0..table.components().len() {
            assert_eq!(
                table.column(c).len(),
                table.len(),
                "column {c} not parallel"
            );
        }
    }

    #[test]
    fn move_row_keeps_columns_parallel() {
        let s = setup();
        let [a, b, c] = s.ids;
        let mut ab = Table::new(TableId::new(1), Box::new([a, b]), &s.index);
        let mut abc = Table::new(TableId::new(2), Box::new([a, b, c]), &s.index);
        for i in 0..4 {
            push_ab(&mut ab, entity(i), i);
        }
        let mut extra = std::mem::ManuallyDrop::new(C(99));
        let extra_ptr = NonNull::from(&mut *extra).cast::<u8>();
        // SAFETY: row 1 exists; `abc` is `ab` plus C at column 2; `extra` is an owned C,
        // never used again.
        let moved = unsafe { ab.move_row_adding(1, &mut abc, 2, extra_ptr) };
        assert_eq!(
            moved,
            RowMove {
                dst_row: 0,
                moved: Some(entity(3))
            }
        );
        assert_parallel(&ab);
        assert_parallel(&abc);
        assert_eq!(ab.entities(), &[entity(0), entity(3), entity(2)]);
        assert_eq!(abc.entities(), &[entity(1)]);
        // SAFETY: column types and rows as laid out above.
        unsafe {
            assert_eq!(read::<A>(&ab, 0, 1), A(3));
            assert_eq!(read::<B>(&ab, 1, 1), B("3".into()));
            assert_eq!(read::<A>(&abc, 0, 0), A(1));
            assert_eq!(read::<B>(&abc, 1, 0), B("1".into()));
            assert_eq!(read::<C>(&abc, 2, 0), C(99));
        }

        // And back, taking C out; moving the last row reports no moved entity.
        let mut out = std::mem::MaybeUninit::<C>::uninit();
        let out_ptr = NonNull::from(&mut out).cast::<u8>();
        // SAFETY: row 0 exists; `ab` is `abc` minus its column 2 (C); `out` holds one C.
        let moved = unsafe { abc.move_row_removing(0, &mut ab, 2, out_ptr) };
        assert_eq!(
            moved,
            RowMove {
                dst_row: 3,
                moved: None
            }
        );
        // SAFETY: the move wrote the C into `out`.
        assert_eq!(unsafe { out.assume_init() }, C(99));
        assert!(abc.is_empty());
        assert_parallel(&ab);
        assert_parallel(&abc);
        // SAFETY: row 3 of `ab` is the moved-back entity 1.
        assert_eq!(unsafe { read::<B>(&ab, 1, 3) }, B("1".into()));
    }

    #[test]
    fn drop_row_reports_moved_entity_before_dropping() {
        let s = setup();
        let [a, b, _] = s.ids;
        let mut ab = Table::new(TableId::new(1), Box::new([a, b]), &s.index);
        for i in 0..3 {
            push_ab(&mut ab, entity(i), i);
        }
        let mut seen = None;
        // SAFETY: row 0 exists; the fixup does not panic.
        unsafe { ab.swap_remove_and_drop_row(0, |moved| seen = Some(moved)) };
        assert_eq!(seen, Some(Some(entity(2))));
        assert_eq!(ab.entities(), &[entity(2), entity(1)]);
        assert_parallel(&ab);
        // SAFETY: row 0 is now entity 2's (A, B).
        assert_eq!(unsafe { read::<B>(&ab, 1, 0) }, B("2".into()));
        // SAFETY: the last row exists.
        unsafe { ab.swap_remove_and_drop_row(1, |moved| seen = Some(moved)) };
        assert_eq!(seen, Some(None));
        ab.clear();
        assert!(ab.is_empty());
        assert_parallel(&ab);
    }

    #[test]
    fn push_row_rolls_back_when_write_unwinds() {
        let s = setup();
        let [a, b, _] = s.ids;
        let mut ab = Table::new(TableId::new(1), Box::new([a, b]), &s.index);
        push_ab(&mut ab, entity(0), 0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ab.reserve(1);
            // SAFETY: room is reserved; pushes at most one A and then unwinds before B.
            unsafe {
                ab.push_row(entity(1), |cols| {
                    cols[0].push(A(1));
                    panic!("write failed");
                })
            }
        }));
        assert!(result.is_err());
        assert_eq!(ab.entities(), &[entity(0)]);
        assert_parallel(&ab);
        push_ab(&mut ab, entity(2), 2);
        // SAFETY: row 1 is entity 2's (A, B).
        assert_eq!(unsafe { read::<A>(&ab, 0, 1) }, A(2));
    }

    #[test]
    fn column_lookup_by_id() {
        let s = setup();
        let [a, b, c] = s.ids;
        let ac = Table::new(TableId::new(1), Box::new([a, c]), &s.index);
        assert_eq!(ac.column_index(a), Some(0));
        assert_eq!(ac.column_index(c), Some(1));
        assert_eq!(ac.column_index(b), None);
        assert!(ac.has(c) && !ac.has(b));
        assert_eq!(ac.column(1).item_layout(), Layout::new::<C>());
    }
}
