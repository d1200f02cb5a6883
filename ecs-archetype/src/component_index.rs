//! The component index: for each component, every table that holds it and in which column.
//!
//! Matching a query against tables one by one would cost O(tables) per new query, and there
//! are always many more tables than components. Instead a query starts from the tables of
//! its *rarest* required component — read straight from this index — and only checks the
//! rest of its components on those candidates (jecs calls this list the component's
//! "archetype map").
//!
//! ```text
//!   component ─▶ [(table, column), ...]        in table-creation order
//!   Position  ─▶ [(t1, 0), (t2, 0), (t4, 1)]
//!   Velocity  ─▶ [(t2, 1), (t4, 2)]
//!   Frozen    ─▶ [(t4, 0)]
//! ```
//!
//! Because table ids grow in creation order, each list is sorted by table id, and "tables with
//! `Velocity` created since I last looked" is a binary search away.
//!
//! The index also remembers each component's layout and drop function, so that a table can
//! be created for a component set without the world's registry at hand (removing a component
//! creates the smaller table from what the index already knows).

use std::alloc::Layout;

use ecs_core::blob::BlobVec;
use ecs_core::component::{ComponentId, ComponentInfo, DropFn};

use crate::table::{Table, TableId};

/// Where one table keeps one component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableColumn {
    /// The table.
    pub table: TableId,
    /// The component's column in that table.
    pub column: u32,
}

/// What the index knows about one component.
#[derive(Debug)]
struct ComponentEntry {
    layout: Layout,
    drop: Option<DropFn>,
    tables: Vec<TableColumn>,
}

/// Component → tables holding it (see the module docs).
///
/// # Invariants
/// * `entries[c.index()]` is `Some` once component `c` has been learnt; its layout and drop
///   function are the registered ones.
/// * Each `tables` list holds every table having the component, exactly once, in ascending
///   table id, with the column the table keeps it in.
#[derive(Debug, Default)]
pub struct ComponentIndex {
    entries: Vec<Option<ComponentEntry>>,
}

impl ComponentIndex {
    /// Records a component's layout and drop function (idempotent).
    pub(crate) fn learn(&mut self, info: &ComponentInfo) {
        let index = info.id().index();
        if self.entries.len() <= index {
            self.entries.resize_with(index + 1, || None);
        }
        self.entries[index].get_or_insert_with(|| ComponentEntry {
            layout: info.layout(),
            drop: info.drop_fn(),
            tables: Vec::new(),
        });
    }

    /// Whether the index knows `component`.
    #[inline]
    pub fn is_known(&self, component: ComponentId) -> bool {
        self.entry(component).is_some()
    }

    /// The registered layout of `component` (unpadded, as registered), if known.
    #[inline]
    pub fn layout(&self, component: ComponentId) -> Option<Layout> {
        self.entry(component).map(|e| e.layout)
    }

    /// Every table holding `component`, in creation order (empty for an unknown component).
    #[inline]
    pub fn tables_with(&self, component: ComponentId) -> &[TableColumn] {
        self.entry(component).map_or(&[], |e| &e.tables)
    }

    /// The tables holding `component` created at or after table `since`.
    #[inline]
    pub fn tables_with_since(&self, component: ComponentId, since: usize) -> &[TableColumn] {
        let all = self.tables_with(component);
        &all[all.partition_point(|tc| tc.table.index() < since)..]
    }

    /// An empty column for `component`.
    ///
    /// # Panics
    /// If the component has not been learnt.
    pub(crate) fn new_column(&self, component: ComponentId) -> BlobVec {
        let entry = self
            .entry(component)
            .expect("a table component the index has not learnt");
        BlobVec::new(entry.layout, entry.drop)
    }

    /// Lists a new table (its id above every listed one) under each of its components.
    pub(crate) fn add_table(&mut self, table: &Table) {
        for (column, &component) in table.components().iter().enumerate() {
            let entry = self.entries[component.index()]
                .as_mut()
                .expect("a table component the index has not learnt");
            debug_assert!(entry.tables.last().is_none_or(|l| l.table < table.id()));
            entry.tables.push(TableColumn {
                table: table.id(),
                column: column as u32,
            });
        }
    }

    /// Heap bytes held (approximate: capacities times entry sizes).
    pub fn memory_usage(&self) -> usize {
        let lists: usize = self
            .entries
            .iter()
            .flatten()
            .map(|e| e.tables.capacity() * size_of::<TableColumn>())
            .sum();
        self.entries.capacity() * size_of::<Option<ComponentEntry>>() + lists
    }

    #[inline]
    fn entry(&self, component: ComponentId) -> Option<&ComponentEntry> {
        self.entries.get(component.index())?.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archetypes::Archetypes;
    use ecs_core::component::{Component, Components};

    struct A;
    impl Component for A {
        type Mutability = ecs_core::Mutable;
    }
    struct B(#[allow(dead_code)] u8);
    impl Component for B {
        type Mutability = ecs_core::Mutable;
    }
    struct C(#[allow(dead_code)] u16);
    impl Component for C {
        type Mutability = ecs_core::Mutable;
    }

    #[test]
    fn lists_tables_in_creation_order_with_columns() {
        let mut components = Components::default();
        let (a, b, c) = (
            components.register::<A>(),
            components.register::<B>(),
            components.register::<C>(),
        );
        let mut archetypes = Archetypes::default();
        let t_b = archetypes.table_for(&[b], &components);
        let t_abc = archetypes.table_for(&[a, b, c], &components);
        let t_ac = archetypes.table_for(&[a, c], &components);
        let index = archetypes.component_index();
        let tc = |table, column| TableColumn { table, column };
        assert_eq!(index.tables_with(a), &[tc(t_abc, 0), tc(t_ac, 0)]);
        assert_eq!(index.tables_with(b), &[tc(t_b, 0), tc(t_abc, 1)]);
        assert_eq!(index.tables_with(c), &[tc(t_abc, 2), tc(t_ac, 1)]);
        assert_eq!(index.tables_with_since(b, t_abc.index()), &[tc(t_abc, 1)]);
        assert_eq!(index.tables_with_since(b, t_ac.index()), &[]);
        assert!(index.tables_with(ComponentId::new(40)).is_empty());
        assert!(!index.is_known(ComponentId::new(40)));
        // Asking for an existing set creates nothing and lists nothing twice.
        assert_eq!(archetypes.table_for(&[a, c], &components), t_ac);
        assert_eq!(archetypes.component_index().tables_with(a).len(), 2);
    }

    #[test]
    fn new_columns_use_the_learnt_layout() {
        let mut components = Components::default();
        let c = components.register::<C>();
        let mut index = ComponentIndex::default();
        index.learn(components.info(c));
        assert!(index.is_known(c));
        assert_eq!(index.new_column(c).item_layout(), Layout::new::<C>());
    }
}
