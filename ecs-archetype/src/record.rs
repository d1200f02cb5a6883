//! Entity records: where each entity's row is, in one flat array indexed by entity index.
//!
//! `get(entity, component)` is the hot random-access path: record → table → column → row.
//! Keeping the record in a `Vec` indexed by [`Entity::index`](ecs_core::Entity::index) makes the
//! first step one array read, with no hashing; entity indices are dense and reused, so the
//! array stays about as long as the largest number of entities alive at once.
//!
//! ```text
//!   entity index:     0          1          2        3
//!   records:      [(t2, 0)]  [vacant]  [(t2, 1)]  [(t0, 0)]
//!                     │                    │          └──▶ table 0 (no components), row 0
//!                     └────────────────────┴─────────────▶ table 2, rows 0 and 1
//! ```

use crate::table::TableId;

/// Where an entity's components are: its table and row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// The entity's table.
    pub table: TableId,
    /// The entity's row in that table.
    pub row: u32,
}

/// The marker of an entity index with no row (never spawned, or despawned).
const VACANT: Record = Record {
    table: TableId::from_raw(u32::MAX),
    row: u32::MAX,
};

/// Records indexed by entity index.
///
/// Records hold no generation: the table's entity vector does, and
/// [`Archetypes::locate`](crate::archetypes::Archetypes::locate) compares against it.
#[derive(Debug, Default)]
pub struct Records {
    slots: Vec<Record>,
}

impl Records {
    /// The record at entity index `index`, `None` if vacant.
    #[inline]
    pub fn get(&self, index: usize) -> Option<Record> {
        self.slots.get(index).copied().filter(|r| *r != VACANT)
    }

    /// Sets the record at `index`, growing the array as needed.
    #[inline]
    pub(crate) fn set(&mut self, index: usize, table: TableId, row: usize) {
        let record = Record {
            table,
            row: row as u32,
        };
        // A fresh index is usually the next one: push without the cold call.
        if index == self.slots.len() {
            ecs_core::blob::reserve_amortized(&mut self.slots, 1);
            self.slots.push(record);
            return;
        }
        if self.slots.len() < index {
            self.grow(index);
        }
        self.slots[index] = record;
    }

    #[cold]
    fn grow(&mut self, index: usize) {
        self.slots.resize(index + 1, VACANT);
    }

    /// Changes only the row of the (existing) record at `index`.
    #[inline]
    pub(crate) fn set_row(&mut self, index: usize, row: u32) {
        self.slots[index].row = row;
    }

    /// Marks `index` as having no row.
    #[inline]
    pub(crate) fn vacate(&mut self, index: usize) {
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = VACANT;
        }
    }

    /// Vacates every record, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
    }

    /// Number of slots (vacant or not), for consistency checks in tests.
    #[cfg(test)]
    pub(crate) fn slots_len(&self) -> usize {
        self.slots.len()
    }

    /// Heap bytes held.
    pub fn memory_usage(&self) -> usize {
        self.slots.capacity() * size_of::<Record>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_vacate() {
        let mut records = Records::default();
        assert_eq!(records.get(3), None);
        records.set(3, TableId::new(2), 7);
        assert_eq!(
            records.get(3),
            Some(Record {
                table: TableId::new(2),
                row: 7
            })
        );
        assert_eq!(records.get(0), None, "grown slots are vacant");
        records.set_row(3, 1);
        assert_eq!(records.get(3).map(|r| r.row), Some(1));
        records.vacate(3);
        records.vacate(100);
        assert_eq!(records.get(3), None);
        assert_eq!(size_of::<Record>(), 8);
    }
}
