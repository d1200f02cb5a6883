//! The bundle cache: for each bundle type, its table and the column of each of its fields.
//!
//! Spawning `(Position, Velocity)` a million times should not sort and hash
//! `{Position, Velocity}` a million times. The world gives every bundle type a dense
//! [`BundleId`](ecs_core::bundle::BundleId); this cache keeps, at that index, the table the
//! bundle's entities go to and, per field in tuple order, the table column it is written to.
//! A spawn is then an array read plus one typed write per field.
//!
//! ```text
//!   bundle (Velocity, Position)  ──BundleId 3──▶  targets[3] = { table: t2, field_columns: [1, 0] }
//!   table t2 = {Position, Velocity}                                 field 0 (Velocity) ─▶ column 1
//!                                                                   field 1 (Position) ─▶ column 0
//! ```

use ecs_core::bundle::BundleInfo;
use ecs_core::component::{ComponentId, Components};

use crate::archetypes::Archetypes;
use crate::table::TableId;

/// Marks a bundle field kept outside the table (the hybrid backend routes such fields to its
/// sparse sets; the all-tables backend never uses it).
pub const NOT_IN_TABLE: u32 = u32::MAX;

/// Where a bundle's entities go.
#[derive(Debug)]
pub struct BundleTarget {
    /// The table of the bundle's component set.
    pub table: TableId,
    /// For each bundle field (tuple order), its column in `table`, or [`NOT_IN_TABLE`].
    pub field_columns: Box<[u32]>,
}

/// Bundle targets indexed by `BundleId`.
///
/// # Invariants
/// `targets[b]`, once set, was resolved from the `BundleInfo` with id `b` of the one world
/// this storage belongs to, against the `Archetypes` it is used with: the table's component
/// set is the bundle's, and `field_columns[i]` holds the bundle's field `i`. Kept by the
/// storages' callers: the `unsafe` `Storage::spawn`, `spawn_batch` and `reserve` are given
/// only the world's own resolutions, in which an id names one bundle type.
#[derive(Debug, Default)]
pub struct BundleCache {
    targets: Vec<Option<BundleTarget>>,
}

impl BundleCache {
    /// Forgets every resolved bundle: the next use of each resolves it again, with
    /// `in_table`'s answers of that time (after a component changed storage).
    pub(crate) fn clear(&mut self) {
        self.targets.clear();
    }

    /// The target of `info`'s bundle, resolved (and its table created) on first use,
    /// keeping only the fields `in_table` accepts in the table (the others get
    /// [`NOT_IN_TABLE`]; the all-tables backend accepts every field). `in_table` must give the
    /// same answers every time for a given cache until it is cleared (it is only consulted
    /// on first use of a bundle).
    #[inline]
    pub(crate) fn resolve_split(
        &mut self,
        info: &BundleInfo,
        archetypes: &mut Archetypes,
        components: &Components,
        in_table: impl Fn(ComponentId) -> bool,
    ) -> &BundleTarget {
        let index = info.id().index();
        if self.targets.get(index).is_none_or(Option::is_none) {
            self.resolve_new(info, archetypes, components, in_table);
        }
        let target = self.targets[index].as_ref().expect("resolved just above");
        debug_assert!(info
            .components()
            .iter()
            .zip(&target.field_columns)
            .all(|(&c, &col)| {
                col == NOT_IN_TABLE
                    || archetypes.table(target.table).components()[col as usize] == c
            }));
        target
    }

    #[cold]
    fn resolve_new(
        &mut self,
        info: &BundleInfo,
        archetypes: &mut Archetypes,
        components: &Components,
        in_table: impl Fn(ComponentId) -> bool,
    ) {
        let table_set: Vec<ComponentId> = info
            .components()
            .iter()
            .copied()
            .filter(|&c| in_table(c))
            .collect();
        let table = archetypes.table_for(&table_set, components);
        let columns = archetypes.table(table);
        let field_columns = info
            .components()
            .iter()
            .map(|&c| columns.column_index(c).map_or(NOT_IN_TABLE, |i| i as u32))
            .collect();
        let index = info.id().index();
        if self.targets.len() <= index {
            self.targets.resize_with(index + 1, || None);
        }
        self.targets[index] = Some(BundleTarget {
            table,
            field_columns,
        });
    }

    /// Heap bytes held.
    pub fn memory_usage(&self) -> usize {
        let fields: usize = self
            .targets
            .iter()
            .flatten()
            .map(|t| t.field_columns.len() * size_of::<u32>())
            .sum();
        self.targets.capacity() * size_of::<Option<BundleTarget>>() + fields
    }
}
