//! Entity records: where each entity's row is, in one flat array indexed by entity index.
//!
//! `get(entity, component)` is the hot random-access path: record → table → column → row.
//! Keeping the record in a `Vec` indexed by [`Entity::index`](ecs_core::Entity::index) makes the
//! first step one array read, with no hashing; entity indices are dense and reused, so the
//! array stays about as long as the largest number of entities alive at once.
//!
//! Each slot also keeps the generation of the entity it belongs to, so a handle is checked
//! in the same cache line that locates it (a stale handle whose index was reused does not
//! match). Checking it against the table's entity vector instead would be a second cache
//! miss, dependent on the first, on every random `get`.
//!
//! ```text
//!   entity index:      0            1             2            3 ...
//!   records:      [(t2, 0, g1)]  [vacant]  [(t2, 1, g3)]  [vacant]     (past the end: vacant)
//!                     │                    │
//!                     └────────────────────┴─────────────▶ table 2, rows 0 and 1
//! ```
//!
//! A vacant slot is an index with no row: never spawned, despawned, or held by a live entity
//! with no table component. Such an entity costs the storage nothing, not even a slot: a
//! million entities spawned empty leave this array untouched, and their first component is
//! a push into its table rather than a move out of an empty-set table. Which of the three a
//! vacant index is, only the world's entity allocator knows.

use ecs_core::Entity;

use crate::table::TableId;

/// Where an entity's components are: its table and row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// The entity's table.
    pub table: TableId,
    /// The entity's row in that table.
    pub row: u32,
}

/// One entity index's slot: its record and the generation of the entity holding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    record: Record,
    /// The holder's generation; 0 (which no entity has) when vacant.
    generation: u32,
}

/// The marker of an entity index with no row (never spawned, or despawned): generation 0,
/// which no entity has. Its record is never read (`get` answers `None` first).
const VACANT: Slot = Slot {
    record: Record {
        table: TableId::EMPTY,
        row: 0,
    },
    generation: 0,
};

/// Records indexed by entity index.
///
/// # Invariant
/// A slot is `VACANT` exactly when its generation is 0 (entity generations start at 1).
#[derive(Debug, Default)]
pub struct Records {
    slots: Vec<Slot>,
}

impl Records {
    /// The entity indices with a slot, vacant or not: at least the number of entities
    /// with a row.
    #[inline]
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// The record at entity index `index`, `None` if vacant.
    #[inline]
    pub fn get(&self, index: usize) -> Option<Record> {
        let slot = self.slots.get(index)?;
        (slot.generation != 0).then_some(slot.record)
    }

    /// `entity`'s record: `None` if its slot is vacant or holds another generation (a
    /// stale handle). One load and one comparison.
    #[inline]
    pub fn get_entity(&self, entity: Entity) -> Option<Record> {
        let slot = self.slots.get(entity.index() as usize)?;
        (slot.generation == entity.generation()).then_some(slot.record)
    }

    /// Sets `entity`'s record, growing the array as needed.
    #[inline]
    pub(crate) fn set(&mut self, entity: Entity, table: TableId, row: usize) {
        let index = entity.index() as usize;
        let record = Slot {
            record: Record {
                table,
                row: row as u32,
            },
            generation: entity.generation(),
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

    /// Reserves room for `additional` more slots past the current end (where fresh entity
    /// indices go).
    pub(crate) fn reserve(&mut self, additional: usize) {
        ecs_core::blob::reserve_amortized(&mut self.slots, additional);
    }

    /// Makes the slot of `index` exist (vacant if it was not), so that setting it later
    /// allocates nothing.
    pub(crate) fn reserve_slot(&mut self, index: usize) {
        if self.slots.len() <= index {
            self.grow(index);
        }
    }

    #[cold]
    fn grow(&mut self, index: usize) {
        self.slots.resize(index + 1, VACANT);
    }

    /// Changes only the row of the (existing) record at `index`.
    #[inline]
    pub(crate) fn set_row(&mut self, index: usize, row: u32) {
        self.slots[index].record.row = row;
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

    /// Number of slots (vacant or not), for consistency checks.
    pub(crate) fn slots_len(&self) -> usize {
        self.slots.len()
    }

    /// Heap bytes held.
    pub fn memory_usage(&self) -> usize {
        self.slots.capacity() * size_of::<Slot>()
    }
}

/// The live entities that have no row, found in the world's live list as maximal runs of
/// consecutive entries with vacant records: the rows a query requiring no component yields
/// besides the tables' (entities spawned together empty are one run, so one chunk).
///
/// The search stops once `left` such entities were found (the live count minus the tables'
/// rows, counted in one pass over the tables), so when every live entity has a row no entity
/// is visited.
///
/// # Invariant
/// `alive` holds live entities only (so a vacant record means "no row", not "stale"), and at
/// most `left` of those from position `next` on have vacant records.
#[derive(Clone, Debug)]
pub struct RowlessRuns<'a> {
    pub(crate) alive: &'a [Entity],
    pub(crate) records: &'a Records,
    pub(crate) next: usize,
    pub(crate) left: usize,
}

impl RowlessRuns<'_> {
    fn has_row(&self, position: usize) -> bool {
        self.records
            .get(self.alive[position].index() as usize)
            .is_some()
    }
}

impl<'a> Iterator for RowlessRuns<'a> {
    type Item = &'a [Entity];

    fn next(&mut self) -> Option<&'a [Entity]> {
        if self.left == 0 {
            return None;
        }
        let len = self.alive.len();
        let mut start = self.next;
        while start < len && self.has_row(start) {
            start += 1;
        }
        let mut end = start;
        while end < len && end - start < self.left && !self.has_row(end) {
            end += 1;
        }
        self.next = end;
        // Fewer than `left` found by the end of the list can only follow a broken invariant;
        // stop rather than loop.
        self.left = if end == len {
            0
        } else {
            self.left - (end - start)
        };
        (end > start).then(|| &self.alive[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_vacate() {
        let mut records = Records::default();
        assert_eq!(records.get(3), None);
        let e = Entity::new(3, 5).unwrap();
        records.set(e, TableId::new(2), 7);
        assert_eq!(
            records.get(3),
            Some(Record {
                table: TableId::new(2),
                row: 7
            })
        );
        assert_eq!(records.get(0), None, "grown slots are vacant");
        assert_eq!(records.get_entity(e), records.get(3));
        assert_eq!(
            records.get_entity(Entity::new(3, 4).unwrap()),
            None,
            "stale"
        );
        assert_eq!(
            records.get_entity(Entity::new(0, 1).unwrap()),
            None,
            "vacant"
        );
        assert_eq!(
            records.get_entity(Entity::new(9, 1).unwrap()),
            None,
            "past the end"
        );
        records.set_row(3, 1);
        assert_eq!(records.get(3).map(|r| r.row), Some(1));
        records.vacate(3);
        records.vacate(100);
        assert_eq!(records.get(3), None);
        assert_eq!(records.get_entity(e), None, "vacated");
        assert_eq!(size_of::<Slot>(), 12);
    }
}
