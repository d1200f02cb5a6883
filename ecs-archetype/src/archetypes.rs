//! `Archetypes`: the tables and everything that finds things in them — the archetype graph,
//! the component index and the entity records — kept in step.
//!
//! This layer is deliberately ignorant of *which* components go in tables: it is handed
//! component sets and values and places them. The archetype backend puts every component in
//! a table; a hybrid backend can reuse this layer for its table components and keep the rest
//! in sparse sets.
//!
//! ```text
//!   records[e.index()] ──▶ (table, row) ──▶ tables[table].columns[c][row]
//!                                              ▲
//!   graph: set ─▶ table; table ─(+C/−C)─▶ table │
//!   component index: C ─▶ [(table, column), ...] (what queries start from)
//! ```

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use ecs_core::blob::BlobVec;
use ecs_core::component::{ComponentId, Components};
use ecs_core::entity::Entity;
use ecs_core::layout::StorageLayout;
use ecs_core::storage::{ChunkKey, ChunkRow, ColumnValues, EntityPlace};
use ecs_core::unwind::for_each_completing;

use crate::component_index::ComponentIndex;
use crate::graph::ArchetypeGraph;
use crate::record::{Record, Records, RowlessRuns};
use crate::table::{RowMove, Table, TableId, TableRow};

/// Tables, graph, component index and entity records.
///
/// # Invariants
/// * `tables[i].id() == TableId::new(i)`; table 0 is the empty set and holds no row; no two
///   tables have the same component set; tables are never removed.
/// * `graph` maps each table's set to its id, and its edges are correct (see
///   [`ArchetypeGraph`]); `index` lists every table under each of its components and knows
///   every component any table holds.
/// * For every row `r` of every table `t`, `records.get_entity(t.entities()[r])` is
///   `(t, r)`; all other records are vacant. So each entity is in at most one table, once,
///   and a handle matching its record's generation is the entity in that row.
/// * An entity the world holds with no table component has no row and a vacant record
///   (so entities spawned empty cost nothing here). The world's allocator, not this type,
///   tells such an entity from a stale handle: callers only pass live entities to the
///   mutating methods, and queries that require no component find these entities in the
///   world's live list ([`Archetypes::rowless_runs`]).
#[derive(Debug)]
pub struct Archetypes {
    id: u64,
    tables: Vec<Table>,
    graph: ArchetypeGraph,
    index: ComponentIndex,
    records: Records,
}

impl Default for Archetypes {
    fn default() -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let mut archetypes = Archetypes {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            tables: Vec::new(),
            graph: ArchetypeGraph::default(),
            index: ComponentIndex::default(),
            records: Records::default(),
        };
        let empty = archetypes.create_table(Vec::new());
        debug_assert_eq!(empty, TableId::EMPTY);
        archetypes
    }
}

impl Archetypes {
    /// A process-unique id of this set of tables, so a query cache is never read against
    /// tables it was not built from.
    #[inline]
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// All tables, indexed by [`TableId::index`].
    #[inline]
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// One table.
    ///
    /// # Panics
    /// If `id` is not a table of this storage.
    #[inline]
    pub fn table(&self, id: TableId) -> &Table {
        &self.tables[id.index()]
    }

    /// The archetype graph.
    #[inline]
    pub fn graph(&self) -> &ArchetypeGraph {
        &self.graph
    }

    /// The component index.
    #[inline]
    pub fn component_index(&self) -> &ComponentIndex {
        &self.index
    }

    /// The entity records.
    #[inline]
    pub fn records(&self) -> &Records {
        &self.records
    }

    /// Where `entity` is: its record, whose generation must match the handle's, so a stale
    /// handle whose index was reused is not mistaken for the live one.
    #[inline]
    pub fn locate(&self, entity: Entity) -> Option<Record> {
        self.records.get_entity(entity)
    }

    /// `entity`'s row, found once for reading several of its components.
    ///
    /// An entity with a vacant record (no table component, if it is live) gets a rowless
    /// place, whose reads all answer `None`; `None` only for a handle that is certainly stale
    /// (its index is held by another generation).
    #[inline]
    pub fn place(&self, entity: Entity) -> Option<TableRow<'_>> {
        match self.locate(entity) {
            // The bound check reads the table header, not a row: no extra cache miss.
            Some(record) => TableRow::new(&self.tables[record.table.index()], record.row as usize),
            None => self.rowless_place(entity),
        }
    }

    #[cold]
    fn rowless_place(&self, entity: Entity) -> Option<TableRow<'_>> {
        if self.records.get(entity.index() as usize).is_some() {
            return None;
        }
        TableRow::rowless(&self.tables[TableId::EMPTY.index()])
    }

    /// Rows in all tables: the entities holding at least one table component.
    pub fn rows(&self) -> usize {
        self.tables.iter().map(Table::len).sum()
    }

    /// The entities of `alive` (the world's live entities) that have no row, as maximal runs
    /// of consecutive entries: what a query requiring no component yields besides the
    /// tables' rows (see [`RowlessRuns`]).
    #[inline]
    pub fn rowless_runs<'a>(&'a self, alive: &'a [Entity]) -> RowlessRuns<'a> {
        RowlessRuns {
            alive,
            records: &self.records,
            next: 0,
            left: match alive.len() {
                0 => 0,
                live => live.saturating_sub(self.rows()),
            },
        }
    }

    /// `entity`'s table index and row, from its record alone.
    #[inline]
    pub fn entity_row(&self, entity: Entity) -> Option<ChunkRow> {
        let record = self.locate(entity)?;
        // The empty table (id 0) holds no row: a vacant record has no key.
        Some(ChunkRow {
            key: ChunkKey::new(record.table.raw())?,
            row: record.row,
        })
    }

    /// Pointer to `entity`'s value of `component`, if it has one in a table.
    #[inline]
    pub fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        self.place(entity)?.ptr(component)
    }

    /// The table for a set of components (any order; duplicates ignored), created if needed.
    pub fn table_for(&mut self, set: &[ComponentId], components: &Components) -> TableId {
        let mut sorted = set.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        for &component in &sorted {
            self.index.learn(components.info(component));
        }
        self.find_or_create(sorted)
    }

    /// The table an entity of `from` moves to when it gains `component` (`from` itself if
    /// it already has it). A cached graph edge after the first time.
    #[inline]
    pub fn add_target(
        &mut self,
        from: TableId,
        component: ComponentId,
        components: &Components,
    ) -> TableId {
        match self.graph.take_edge(from, component).add {
            Some(to) => to,
            None => self.add_target_uncached(from, component, components),
        }
    }

    #[cold]
    fn add_target_uncached(
        &mut self,
        from: TableId,
        component: ComponentId,
        components: &Components,
    ) -> TableId {
        let ids = self.tables[from.index()].components();
        let Err(at) = ids.binary_search(&component) else {
            return from;
        };
        let mut set = ids.to_vec();
        set.insert(at, component);
        self.index.learn(components.info(component));
        let to = self.find_or_create(set);
        self.graph.cache_add_edge(from, component, to);
        to
    }

    /// The table an entity of `from` moves to when it loses `component` (`from` itself if
    /// it does not have it). A cached graph edge after the first time.
    #[inline]
    pub fn remove_target(&mut self, from: TableId, component: ComponentId) -> TableId {
        match self.graph.take_edge(from, component).remove {
            Some(to) => to,
            None => self.remove_target_uncached(from, component),
        }
    }

    #[cold]
    fn remove_target_uncached(&mut self, from: TableId, component: ComponentId) -> TableId {
        let ids = self.tables[from.index()].components();
        let Ok(at) = ids.binary_search(&component) else {
            return from;
        };
        let mut set = ids.to_vec();
        set.remove(at);
        // Every component left is in `from`, so the index already knows it.
        let to = self.find_or_create(set);
        self.graph.cache_add_edge(to, component, from);
        to
    }

    /// The table of a sorted, duplicate-free set whose components the index knows.
    fn find_or_create(&mut self, set: Vec<ComponentId>) -> TableId {
        match self.graph.find(&set) {
            Some(id) => id,
            None => self.create_table(set),
        }
    }

    fn create_table(&mut self, set: Vec<ComponentId>) -> TableId {
        let id = TableId::new(self.tables.len());
        let set = set.into_boxed_slice();
        let table = Table::new(id, set.clone(), &self.index);
        self.index.add_table(&table);
        self.graph.add_table(set, id);
        self.tables.push(table);
        id
    }

    /// Makes room for `additional` more rows in `table` and as many fresh records (one
    /// reservation for a batch); nothing for the empty set, whose entities get no row.
    pub fn reserve(&mut self, table: TableId, additional: usize) {
        if table == TableId::EMPTY {
            return;
        }
        self.tables[table.index()].reserve(additional);
        self.records.reserve(additional);
    }

    /// Makes `entity`'s record slot exist (vacant if it has no row), so that giving it a
    /// row later allocates no record.
    pub fn reserve_record(&mut self, entity: Entity) {
        self.records.reserve_slot(entity.index() as usize);
    }

    /// Appends one row of `table` per item of `batch` (new entities, not yet here), each
    /// written by `write(columns, entity, item)`; records them. For the empty set no row is
    /// appended and no record written (type invariant), but `write` still sees each item,
    /// with no columns, for whatever it keeps elsewhere (the hybrid's sparse components).
    ///
    /// Room is reserved for the batch's lower size hint up front and again whenever it runs
    /// out, so `write` finds room for one value in every column and may push without a
    /// capacity check ([`BlobVec::push_unchecked`]). Each row's record is written with it (a
    /// separate pass after the rows was slower on single spawns, which come here as batches
    /// of one).
    ///
    /// # Safety
    /// `write` pushes at most one value onto each column, of that column's component; if it
    /// returns, it has pushed exactly one onto every column.
    pub(crate) unsafe fn push_batch<B>(
        &mut self,
        table: TableId,
        batch: impl Iterator<Item = (Entity, B)>,
        mut write: impl FnMut(&mut [BlobVec], Entity, B),
    ) {
        if table == TableId::EMPTY {
            for (entity, item) in batch {
                write(&mut [], entity, item);
            }
            return;
        }
        let t = &mut self.tables[table.index()];
        let mut room = 0usize;
        let mut batch = batch.into_iter();
        while let Some((entity, item)) = batch.next() {
            if room == 0 {
                room = batch.size_hint().0.saturating_add(1);
                t.reserve(room);
            }
            debug_assert!(self.records.get(entity.index() as usize).is_none());
            // SAFETY: `room > 0` rows are reserved in every column and the entity vector;
            // `write` as promised by the caller.
            let row = unsafe { t.push_row(entity, |columns| write(columns, entity, item)) };
            room -= 1;
            self.records.set(entity, table, row);
        }
    }

    /// Appends one row per entity of `entities` (new, not yet here) to the table of
    /// `columns`' component set, each column's values copied in one block (or its buffer
    /// taken whole by an empty table), and records them. Nothing for the empty set (such
    /// entities get no row).
    ///
    /// # Safety
    /// The entities are distinct and have no row; the columns as
    /// [`Storage::spawn_columns`](ecs_core::Storage::spawn_columns) requires them (distinct
    /// components registered in `components`, the registry; `entities.len()` owned values
    /// each; a buffer only when it holds exactly those values).
    pub(crate) unsafe fn push_columns(
        &mut self,
        entities: &[Entity],
        columns: &mut [ColumnValues<'_>],
        components: &Components,
    ) {
        let set: Vec<ComponentId> = columns.iter().map(|c| c.component).collect();
        let table = self.table_for(&set, components);
        if table == TableId::EMPTY || entities.is_empty() {
            return;
        }
        self.records.reserve(entities.len());
        let t = &mut self.tables[table.index()];
        let start = t.len();
        // SAFETY: the table's set is exactly the columns' components (distinct), so every
        // column of it gets the caller's owned values of its component.
        unsafe { t.extend_rows(entities, columns) };
        for (row, &entity) in (start..).zip(entities) {
            debug_assert!(self.records.get(entity.index() as usize).is_none());
            self.records.set(entity, table, row);
        }
    }

    /// Moves `entity` (located at `from`) to table `to` with `move_row` (given the source
    /// and destination tables) and fixes the records of both entities it moved.
    ///
    /// # Panics
    /// If `to` is `from`'s table.
    fn relocate(
        &mut self,
        entity: Entity,
        from: Record,
        to: TableId,
        move_row: impl FnOnce(&mut Table, &mut Table) -> RowMove,
    ) {
        debug_assert_eq!(self.locate(entity), Some(from));
        let (src, dst) = pair_mut(&mut self.tables, from.table.index(), to.index());
        let moved = move_row(src, dst);
        if let Some(moved) = moved.moved {
            self.records.set_row(moved.index() as usize, from.row);
        }
        self.records.set(entity, to, moved.dst_row);
    }

    /// Adds a table component `entity` lacks, moving its row to the table with it.
    ///
    /// # Safety
    /// `entity` is live in the world (held here, with or without a row) and lacks
    /// `component`; `components` is the registry every call is given; `value` points to an
    /// owned value of `component` (registered layouts are padded, so it is readable as a whole
    /// item), outside the tables, that may be used and dropped on any thread (as a `Send + Sync` type's), and that the caller will not use or drop again.
    pub unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        let from = self.locate(entity);
        // SAFETY: forwarded contract; `from` was just located.
        unsafe { self.insert_new_at(entity, from, component, value, components) }
    }

    /// Sets `entity`'s table component `component` to `value`: replaced in place (the old
    /// value returned) when it has one, else added by moving the row. One `locate` for both
    /// cases.
    ///
    /// # Safety
    /// `component` is `T`'s id in `components`, the registry every call is given; `entity` is
    /// live in the world (a vacant record means it has no table component).
    #[inline]
    pub unsafe fn insert<T>(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: T,
        components: &Components,
    ) -> Option<T> {
        let record = self.locate(entity);
        let row = record.and_then(|r| TableRow::new(&self.tables[r.table.index()], r.row as usize));
        if let Some(ptr) = row.and_then(|row| row.ptr(component)) {
            // SAFETY: the pointer is to the entity's `T` (caller: `component` is `T`'s id),
            // exclusive to us (`&mut self`); `replace` keeps it initialised throughout.
            return Some(unsafe { ptr.cast::<T>().as_ptr().replace(value) });
        }
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: the entity lacks `component` (checked above) and `record` is its location;
        // the value is owned and, in a `ManuallyDrop`, never dropped by us.
        unsafe {
            self.insert_new_at(
                entity,
                record,
                component,
                NonNull::from(&*value).cast(),
                components,
            )
        };
        None
    }

    /// [`Archetypes::insert_new`] for an entity already located (`None`: it has no row).
    ///
    /// # Safety
    /// As for `insert_new`; `from` is `locate(entity)`, with nothing changed since.
    pub unsafe fn insert_new_at(
        &mut self,
        entity: Entity,
        from: Option<Record>,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        let Some(from) = from else {
            // SAFETY: forwarded contract; the entity has no row.
            return unsafe { self.insert_first(entity, component, value, components) };
        };
        let to = self.add_target(from.table, component, components);
        let at = self.tables[to.index()]
            .column_index(component)
            .expect("the add target holds the added component");
        self.relocate(entity, from, to, |src, dst| {
            // SAFETY: `from` is the entity's record, so its row is in bounds. `to` is
            // `from`'s set plus `component` (it differs from `from`: the caller promises the
            // entity lacks the component), at column `at`; `value` is the caller's owned
            // value of it, forgotten by the caller.
            unsafe { src.move_row_adding(from.row as usize, dst, at, value) }
        });
    }

    /// Adds several table components `entity` lacks at once: its row moves once, to the
    /// table of its set plus all of them (or, for an entity with no row, one row is pushed
    /// there). `values` is sorted by component on the way.
    ///
    /// # Safety
    /// As for [`Archetypes::insert_new`], for each of `values`: the entity lacks every one,
    /// they are pairwise distinct, each value owned and forgotten by the caller.
    pub unsafe fn insert_new_many(
        &mut self,
        entity: Entity,
        values: &mut [(ComponentId, NonNull<u8>)],
        components: &Components,
    ) {
        if let [(component, value)] = *values {
            // SAFETY: forwarded contract, one component.
            return unsafe { self.insert_new(entity, component, value, components) };
        }
        if values.is_empty() {
            return;
        }
        values.sort_unstable_by_key(|&(component, _)| component);
        let from = self.locate(entity);
        let base = from.map_or(TableId::EMPTY, |r| r.table);
        let mut set = self.tables[base.index()].components().to_vec();
        for &(component, _) in values.iter() {
            self.index.learn(components.info(component));
            set.push(component);
        }
        set.sort_unstable();
        debug_assert!(set.windows(2).all(|w| w[0] < w[1]), "lacked and distinct");
        let to = self.find_or_create(set);
        let Some(from) = from else {
            let table = &mut self.tables[to.index()];
            table.reserve(1);
            // SAFETY: `to`'s set is exactly the values' components, sorted as `values` now
            // are, so each column gets one owned value of its own component; room for one
            // row was just reserved.
            let row = unsafe {
                table.push_row(entity, |columns| {
                    for (column, &(_, value)) in columns.iter_mut().zip(values.iter()) {
                        column.push_from_unchecked(value);
                    }
                })
            };
            self.records.set(entity, to, row);
            return;
        };
        self.relocate(entity, from, to, |src, dst| {
            // SAFETY: `from` is the entity's record, so its row is in bounds; `to` is its
            // set plus the values' components (sorted, none of them in `from`: the caller
            // promises the entity lacks them); the values are owned and forgotten.
            unsafe { src.move_row_adding_many(from.row as usize, dst, values) }
        });
    }

    /// Gives `entity`, which has no row, its first table component: a new row of the table
    /// of `{component}` (a push; nothing moves).
    ///
    /// # Safety
    /// As for `insert_new`, and `entity` has no row.
    unsafe fn insert_first(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        debug_assert!(self.records.get(entity.index() as usize).is_none());
        let to = self.add_target(TableId::EMPTY, component, components);
        let table = &mut self.tables[to.index()];
        table.reserve(1);
        // SAFETY: `to`'s set is exactly `{component}`, so the one push is onto its only
        // column, of the value's component; room for one row was just reserved. `value` is
        // the caller's owned value, forgotten by the caller.
        let row = unsafe {
            table.push_row(entity, |columns| {
                columns[0].push_from_unchecked(value);
            })
        };
        self.records.set(entity, to, row);
    }

    /// Moves `entity`'s table component `component` into `dst` and moves its row to the table
    /// without it (or out of the tables, for its last one); false (and nothing changed) if it
    /// has none.
    ///
    /// # Safety
    /// `dst` is valid for writing one value of `component` and does not overlap the tables.
    pub unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool {
        let Some(from) = self.locate(entity) else {
            return false;
        };
        let to = self.remove_target(from.table, component);
        if to == from.table {
            return false; // the entity does not have the component
        }
        let at = self.tables[from.table.index()]
            .column_index(component)
            .expect("a table that loses the component holds it");
        if to == TableId::EMPTY {
            // SAFETY: `from` is the entity's record, so its row is in bounds; its table loses
            // its last component, so it has exactly the one column, `at`; `dst` as promised.
            unsafe { self.remove_last_into(entity, from, dst) };
            return true;
        }
        self.relocate(entity, from, to, |src, out_table| {
            // SAFETY: `from` is the entity's record, so its row is in bounds. `to` is
            // `from`'s set minus `component`, `from`'s column `at`; `dst` is valid for one
            // value of it and disjoint from the tables (caller).
            unsafe { src.move_row_removing(from.row as usize, out_table, at, dst) }
        });
        true
    }

    /// Moves the value of `entity`'s last table component into `dst`; the entity leaves the
    /// tables (no row, vacant record: type invariant).
    ///
    /// # Safety
    /// `from` is `entity`'s record; its table has one column; `dst` is valid for writing one
    /// value of it and does not overlap the tables.
    unsafe fn remove_last_into(&mut self, entity: Entity, from: Record, dst: NonNull<u8>) {
        let table = &mut self.tables[from.table.index()];
        // SAFETY: as the caller promises; the record's row is in bounds (type invariant).
        let moved = unsafe { table.swap_remove_only_value_into(from.row as usize, dst) };
        if let Some(moved) = moved {
            self.records.set_row(moved.index() as usize, from.row);
        }
        self.records.vacate(entity.index() as usize);
    }

    /// Removes `entity` and drops its table components; false if it is not here.
    ///
    /// Its record is vacated and the row-moved entity's record fixed before any `Drop` runs,
    /// so a panicking `Drop` leaves the records right (and the other values still dropped).
    pub(crate) fn despawn(&mut self, entity: Entity) -> bool {
        let Some(record) = self.locate(entity) else {
            return false;
        };
        self.records.vacate(entity.index() as usize);
        let records = &mut self.records;
        let table = &mut self.tables[record.table.index()];
        // SAFETY: a located record names the entity's row, in bounds (type invariant:
        // records and rows agree); the fixup only writes a record
        // (`set_row` of an entity in this table, whose record exists) and cannot panic.
        unsafe {
            table.swap_remove_and_drop_row(record.row as usize, |moved| {
                if let Some(moved) = moved {
                    records.set_row(moved.index() as usize, record.row);
                }
            });
        }
        true
    }

    /// Drops every row of every table; tables, edges and the index stay for reuse.
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        for_each_completing(self.tables.iter_mut(), Table::clear);
    }

    /// One unit per table with components (the empty set's table never holds a row), then
    /// the bytes of the table list, graph, component index and records.
    pub fn layout(&self, components: &Components) -> StorageLayout {
        let (empty, tables) = self
            .tables
            .split_first()
            .expect("table 0, the empty set's, always exists");
        let mut layout = StorageLayout {
            units: tables.iter().map(|t| t.layout(components)).collect(),
            ..StorageLayout::default()
        };
        layout.add_bookkeeping("entity records", self.records.memory_usage());
        layout.add_bookkeeping(
            "table list",
            self.tables.capacity() * size_of::<Table>() + empty.memory_usage(),
        );
        layout.add_bookkeeping("archetype graph", self.graph.memory_usage());
        layout.add_bookkeeping("component index", self.index.memory_usage());
        layout
    }

    /// Heap bytes held by tables, graph, index and records.
    pub fn memory_usage(&self) -> usize {
        let tables: usize = self.tables.iter().map(Table::memory_usage).sum();
        self.tables.capacity() * size_of::<Table>()
            + tables
            + self.graph.memory_usage()
            + self.index.memory_usage()
            + self.records.memory_usage()
    }

    /// Checks every invariant of the type, panicking at the first broken one: for the tests
    /// of this storage and of storages built on it (the hybrid backend's).
    pub fn assert_consistent(&self) {
        let mut rows = 0;
        for (i, table) in self.tables.iter().enumerate() {
            assert_eq!(table.id().index(), i);
            assert!(table.room_fits(), "{table:?}: room beyond a capacity");
            for c in 0..table.components().len() {
                assert_eq!(table.column(c).len(), table.len(), "{table:?} column {c}");
            }
            for (row, &entity) in table.entities().iter().enumerate() {
                let expected = Record {
                    table: table.id(),
                    row: row as u32,
                };
                assert_eq!(self.locate(entity), Some(expected), "{entity:?}");
            }
            rows += table.len();
        }
        let records = (0..self.records.slots_len())
            .filter(|&i| self.records.get(i).is_some())
            .count();
        assert_eq!(records, rows, "records without rows");
    }
}

/// Two distinct elements of a slice, both mutably.
///
/// # Panics
/// If `a == b` or either is out of bounds.
#[inline(always)]
fn pair_mut<T>(slice: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "moving a row to its own table");
    if a < b {
        let (low, high) = slice.split_at_mut(b);
        (&mut low[a], &mut high[0])
    } else {
        let (low, high) = slice.split_at_mut(a);
        (&mut high[0], &mut low[b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecs_core::component::Component;

    #[derive(Debug, PartialEq)]
    struct A(u32);
    impl Component for A {
        type Mutability = ecs_core::Mutable;
    }
    #[derive(Debug, PartialEq)]
    struct B(u32);
    impl Component for B {
        type Mutability = ecs_core::Mutable;
    }

    fn entity(i: u32) -> Entity {
        Entity::new(i, 1).unwrap()
    }

    #[test]
    fn moves_keep_records_right() {
        let mut components = Components::default();
        let (a, b) = (components.register::<A>(), components.register::<B>());
        let mut archetypes = Archetypes::default();
        let t_a = archetypes.table_for(&[a], &components);
        // SAFETY: `t_a` has one column, of A; one A is pushed per row.
        unsafe {
            archetypes.push_batch(t_a, (0..5).map(|i| (entity(i), A(i))), |cols, _, a| {
                cols[0].push(a)
            })
        };
        archetypes.assert_consistent();
        // Move entity 1 to {A, B}: entity 4 fills its row in {A}.
        let from = archetypes.locate(entity(1)).unwrap();
        let mut value = std::mem::ManuallyDrop::new(B(10));
        let ptr = NonNull::from(&mut *value).cast::<u8>();
        // SAFETY: `from` is entity 1's record and it lacks B; the B value is owned and never
        // used again.
        unsafe { archetypes.insert_new_at(entity(1), Some(from), b, ptr, &components) };
        archetypes.assert_consistent();
        assert_eq!(archetypes.locate(entity(4)).unwrap().row, 1);
        let record = archetypes.locate(entity(1)).unwrap();
        let t_ab = archetypes.table_for(&[a, b], &components);
        assert_eq!((record.table, record.row), (t_ab, 0));
        let b_ptr = archetypes.get_ptr(entity(1), b).unwrap();
        // SAFETY: the pointer is entity 1's B.
        assert_eq!(unsafe { b_ptr.cast::<B>().as_ref() }, &B(10));
        let a_ptr = archetypes.get_ptr(entity(4), a).unwrap();
        // SAFETY: the pointer is entity 4's A.
        assert_eq!(unsafe { a_ptr.cast::<A>().as_ref() }, &A(4));

        assert!(archetypes.despawn(entity(0)));
        assert!(!archetypes.despawn(entity(0)));
        archetypes.assert_consistent();
        // A stale handle on a reused index is not found.
        assert_eq!(archetypes.locate(Entity::new(2, 2).unwrap()), None);
        archetypes.clear();
        archetypes.assert_consistent();
        assert_eq!(archetypes.locate(entity(1)), None);
        assert_eq!(archetypes.tables().len(), 3, "tables survive clear");
    }

    #[test]
    fn pair_mut_either_order() {
        let mut v = [1, 2, 3];
        let (x, y) = pair_mut(&mut v, 2, 0);
        std::mem::swap(x, y);
        assert_eq!(v, [3, 2, 1]);
    }
}
