//! [`WorldLayout`]: a world's memory described storage unit by storage unit, so a learner can
//! see what a backend did with their entities instead of reading one byte total.
//!
//! ```text
//!   World::layout()
//!     ├─ entity allocator   live / free / retired slots, bytes
//!     ├─ storage (the backend describes itself: Storage::layout)
//!     │    ├─ units         one per archetype table or sparse set: its components, rows,
//!     │    │                capacity, sparse pages touched, value bytes per component, bytes
//!     │    ├─ groups        owning groups and how many entities they pack
//!     │    └─ bookkeeping   records, indices, caches: bytes that belong to no unit
//!     └─ change logs        per tracked component: entries retained, bytes
//! ```
//!
//! Every byte [`World::memory_usage`](crate::World::memory_usage) counts is in exactly one
//! place here, so [`WorldLayout::bytes`] equals it (the conformance suite checks this on every
//! backend). `Display` prints the layout as a table; [`WorldLayout::summary`] is one line.

use std::fmt;

use crate::component::{ComponentId, Components};

/// What a storage unit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitKind {
    /// An archetype table: one column per component, one row per entity holding exactly
    /// that component set.
    Table,
    /// A sparse set: one component's values, packed, with a paged index by entity.
    SparseSet,
    /// Any other container a backend keeps values in (the reference backend's columns).
    Other,
}

impl UnitKind {
    /// How the unit is named in tables (`table`, `sparse set`, `storage`).
    pub fn label(self) -> &'static str {
        match self {
            UnitKind::Table => "table",
            UnitKind::SparseSet => "sparse set",
            UnitKind::Other => "storage",
        }
    }
}

/// Bytes held for one component type (its values, or its change logs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentBytes {
    /// The component.
    pub id: ComponentId,
    /// Its registered name.
    pub name: String,
    /// Heap bytes.
    pub bytes: usize,
}

impl ComponentBytes {
    /// `bytes` bytes of component `id`, named from `components` by
    /// [`Components::short_name`] (`Position`, not `game::Position`; a named instance as
    /// `Front (Shield)`).
    pub fn new(id: ComponentId, components: &Components, bytes: usize) -> ComponentBytes {
        let name = match components.get(id) {
            Some(_) => components.short_name(id),
            None => format!("#{}", id.index()),
        };
        ComponentBytes { id, name, bytes }
    }
}

/// One place a backend keeps component values in: an archetype table or a sparse set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageUnit {
    /// Table or sparse set.
    pub kind: UnitKind,
    /// The components it holds, each with the bytes of its values (a column, or a set's
    /// dense data), in the unit's order.
    pub components: Vec<ComponentBytes>,
    /// Rows of a table, values of a set.
    pub rows: usize,
    /// Rows the unit's entity array holds before it must grow.
    pub capacity: usize,
    /// Sparse-index pages allocated (sparse sets only): each covers a fixed run of entity
    /// indices, allocated when an index in it is first written.
    pub pages: Option<usize>,
    /// Every heap byte of the unit: its values, its entity array, its index.
    pub bytes: usize,
}

impl StorageUnit {
    /// Bytes of the unit that are not component values (entity arrays, sparse pages).
    pub fn overhead(&self) -> usize {
        self.bytes - self.components.iter().map(|c| c.bytes).sum::<usize>()
    }

    /// `{A, B, C}`.
    pub fn component_set(&self) -> String {
        let names: Vec<&str> = self.components.iter().map(|c| c.name.as_str()).collect();
        format!("{{{}}}", names.join(", "))
    }
}

/// An owning group: components whose sets keep their common entities packed in front.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupLayout {
    /// The owned components' names.
    pub components: Vec<String>,
    /// Entities holding all of them (the packed prefix of every owned set).
    pub len: usize,
}

/// Bytes a backend holds outside any unit: entity records, indices, caches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bookkeeping {
    /// What the bytes are for (`entity records`, `archetype graph`, ...).
    pub name: &'static str,
    /// Heap bytes.
    pub bytes: usize,
}

/// What a backend reports about itself (see [`Storage::layout`](crate::Storage::layout)).
///
/// # Contract
/// [`StorageLayout::bytes`] equals the backend's
/// [`Storage::memory_usage`](crate::Storage::memory_usage) at the same moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StorageLayout {
    /// Tables and sparse sets, in the backend's order.
    pub units: Vec<StorageUnit>,
    /// Owning groups.
    pub groups: Vec<GroupLayout>,
    /// Bytes outside the units.
    pub bookkeeping: Vec<Bookkeeping>,
}

impl StorageLayout {
    /// A layout that says nothing but its byte total (the default of backends that do not
    /// describe themselves).
    pub fn opaque(bytes: usize) -> StorageLayout {
        let mut layout = StorageLayout::default();
        layout.add_bookkeeping("storage (not itemised by this backend)", bytes);
        layout
    }

    /// Adds a bookkeeping line (skipped when `bytes` is 0, so tables stay short).
    pub fn add_bookkeeping(&mut self, name: &'static str, bytes: usize) {
        if bytes > 0 {
            self.bookkeeping.push(Bookkeeping { name, bytes });
        }
    }

    /// Appends `other` (the second half of a hybrid backend).
    pub fn append(&mut self, mut other: StorageLayout) {
        self.units.append(&mut other.units);
        self.groups.append(&mut other.groups);
        self.bookkeeping.append(&mut other.bookkeeping);
    }

    /// Every byte: units and bookkeeping.
    pub fn bytes(&self) -> usize {
        self.units.iter().map(|u| u.bytes).sum::<usize>()
            + self.bookkeeping.iter().map(|b| b.bytes).sum::<usize>()
    }

    /// Units of one kind.
    pub fn count(&self, kind: UnitKind) -> usize {
        self.units.iter().filter(|u| u.kind == kind).count()
    }
}

/// The entity allocator's share (see [`crate::entities`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocatorLayout {
    /// Live entities.
    pub live: usize,
    /// Freed slots waiting, pre-linked, to be handed out again.
    pub free: usize,
    /// Slots whose generation ran out, never reused.
    pub retired: usize,
    /// Heap bytes of its two arrays.
    pub bytes: usize,
}

/// One tracked component's change logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeLogLayout {
    /// The component and the bytes of its two logs (added, changed).
    pub component: ComponentBytes,
    /// Entries kept for readers that have not seen them yet, in both logs.
    pub retained: usize,
}

/// A world's memory, unit by unit (see the module docs). Made by
/// [`World::layout`](crate::World::layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldLayout {
    /// The backend's name.
    pub backend: &'static str,
    /// The entity allocator.
    pub entities: AllocatorLayout,
    /// What the backend holds.
    pub storage: StorageLayout,
    /// The change logs of tracked components.
    pub change_logs: Vec<ChangeLogLayout>,
    /// Bytes of the change-log table itself (one slot per component id).
    pub change_log_table: usize,
}

impl WorldLayout {
    /// Every byte: what [`World::memory_usage`](crate::World::memory_usage) answers.
    pub fn bytes(&self) -> usize {
        self.entities.bytes + self.storage.bytes() + self.change_bytes()
    }

    /// Bytes of every change log.
    pub fn change_bytes(&self) -> usize {
        self.change_log_table
            + self
                .change_logs
                .iter()
                .map(|l| l.component.bytes)
                .sum::<usize>()
    }

    /// Archetype tables.
    pub fn tables(&self) -> usize {
        self.storage.count(UnitKind::Table)
    }

    /// Sparse sets.
    pub fn sparse_sets(&self) -> usize {
        self.storage.count(UnitKind::SparseSet)
    }

    /// Value bytes per component type, summed over every unit holding it, largest first
    /// (ties by name).
    pub fn component_bytes(&self) -> Vec<ComponentBytes> {
        let mut totals: Vec<ComponentBytes> = Vec::new();
        for c in self.storage.units.iter().flat_map(|u| &u.components) {
            match totals.iter_mut().find(|t| t.id == c.id) {
                Some(total) => total.bytes += c.bytes,
                None => totals.push(c.clone()),
            }
        }
        totals.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
        totals
    }

    /// One line: `archetype: 3 tables, 0 sparse sets, 1,000 entities, 60.2 KiB`.
    pub fn summary(&self) -> String {
        format!(
            "{}: {}, {}, {}, {}",
            self.backend,
            counted(self.tables(), "table", "tables"),
            counted(self.sparse_sets(), "sparse set", "sparse sets"),
            counted(self.entities.live, "entity", "entities"),
            format_bytes(self.bytes())
        )
    }
}

impl fmt::Display for WorldLayout {
    /// A table: the allocator, one line per unit, groups, bookkeeping, change logs, bytes per
    /// component type and the total.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.summary())?;
        let e = &self.entities;
        writeln!(
            f,
            "  entity allocator: {} live, {} free, {} retired slots: {}",
            format_count(e.live),
            format_count(e.free),
            format_count(e.retired),
            format_bytes(e.bytes)
        )?;
        if !self.storage.units.is_empty() {
            writeln!(
                f,
                "  {:<10} {:>9} {:>9} {:>6} {:>10}  components",
                "unit", "rows", "capacity", "pages", "bytes"
            )?;
        }
        for unit in &self.storage.units {
            let pages = unit.pages.map_or_else(|| "-".to_owned(), format_count);
            writeln!(
                f,
                "  {:<10} {:>9} {:>9} {:>6} {:>10}  {}",
                unit.kind.label(),
                format_count(unit.rows),
                format_count(unit.capacity),
                pages,
                format_bytes(unit.bytes),
                unit.component_set()
            )?;
        }
        for group in &self.storage.groups {
            writeln!(
                f,
                "  group {{{}}}: {} entities packed in front",
                group.components.join(", "),
                format_count(group.len)
            )?;
        }
        for b in &self.storage.bookkeeping {
            writeln!(f, "  {}: {}", b.name, format_bytes(b.bytes))?;
        }
        for log in &self.change_logs {
            writeln!(
                f,
                "  change logs of {}: {} entries, {}",
                log.component.name,
                format_count(log.retained),
                format_bytes(log.component.bytes)
            )?;
        }
        let per_type: Vec<String> = self
            .component_bytes()
            .iter()
            .map(|c| format!("{} {}", c.name, format_bytes(c.bytes)))
            .collect();
        if !per_type.is_empty() {
            writeln!(f, "  values by component: {}", per_type.join(", "))?;
        }
        write!(
            f,
            "  total: {} (= memory_usage)",
            format_bytes(self.bytes())
        )
    }
}

/// `1 table`, `3 tables`, `1,000 entities`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", format_count(n), if n == 1 { one } else { many })
}

/// `1.5 MiB`, `330.7 KiB`, `12 B`.
pub fn format_bytes(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

/// `1,234,567`.
pub fn format_count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(kind: UnitKind, values: usize, bytes: usize) -> StorageUnit {
        StorageUnit {
            kind,
            components: vec![ComponentBytes {
                id: ComponentId::new(1),
                name: "A".into(),
                bytes: values,
            }],
            rows: 2,
            capacity: 4,
            pages: (kind == UnitKind::SparseSet).then_some(1),
            bytes,
        }
    }

    #[test]
    fn bytes_add_up_and_per_type_totals_merge_units() {
        let mut storage = StorageLayout::default();
        storage.units.push(unit(UnitKind::Table, 16, 48));
        storage.units.push(unit(UnitKind::SparseSet, 16, 8_240));
        storage.add_bookkeeping("records", 96);
        storage.add_bookkeeping("nothing", 0);
        assert_eq!(storage.bookkeeping.len(), 1, "zero-byte lines are skipped");
        assert_eq!(storage.bytes(), 48 + 8_240 + 96);
        assert_eq!(storage.units[1].overhead(), 8_224);
        let layout = WorldLayout {
            backend: "test",
            entities: AllocatorLayout {
                live: 2,
                free: 1,
                retired: 0,
                bytes: 36,
            },
            storage,
            change_logs: Vec::new(),
            change_log_table: 0,
        };
        assert_eq!(layout.bytes(), 36 + 48 + 8_240 + 96);
        assert_eq!(layout.component_bytes()[0].bytes, 32);
        assert_eq!((layout.tables(), layout.sparse_sets()), (1, 1));
        let text = layout.to_string();
        assert!(text.starts_with("test: 1 table, 1 sparse set, 2 entities, 8.2 KiB\n"));
        assert!(
            text.contains("  sparse set         2         4      1    8.0 KiB  {A}"),
            "{text}"
        );
        assert!(text.ends_with("total: 8.2 KiB (= memory_usage)"), "{text}");
    }

    #[test]
    fn formats() {
        assert_eq!(format_bytes(2048), "2.0 KiB");
        assert_eq!(format_bytes(12), "12 B");
        assert_eq!(format_count(1_234_567), "1,234,567");
        assert_eq!(format_count(12), "12");
    }
}
