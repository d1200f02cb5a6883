//! How a query reads slot arrays: the runs of consecutive entity indices that match it.
//!
//! ```text
//!   index:        0  1  2  3  4  5  6  7
//!   held:         1  1  1  1  1  0  1  1
//!   Position:     1  1  1  0  1  0  1  1
//!   Velocity:     1  1  1  1  1  0  1  0
//!   Frozen:       0  1  0  0  0  0  0  0
//!   (&mut Position, &Velocity), Without<Frozen>:
//!   match:        1  0  1  0  1  0  1  0   → chunks [0], [2], [4], [6]
//! ```
//!
//! The match bits are computed a 64-bit word at a time (held AND each required component's
//! bits AND NOT each excluded one's). Each maximal run of ones is one chunk: its entities
//! are a slice of the storage's handles, and every required component is a dense column
//! there, since its slots for those indices are consecutive. Optional components are looked
//! up per entity. A world whose entities mostly hold the same components gets long runs and
//! a plain indexed loop; a fragmented one gets short runs.

use ecs_core::component::ComponentId;
use ecs_core::entity::Entity;
use ecs_core::storage::{ColumnAccess, QueryChunk, QueryDescriptor, SlotRole};

use crate::column::Column;
use crate::storage::ArrayStorage;

/// A query's components sorted by role, worked out once per query (its cache).
#[derive(Debug, Default)]
pub struct ArrayQueryCache {
    planned: bool,
    required: Vec<ComponentId>,
    excluded: Vec<ComponentId>,
}

impl ArrayQueryCache {
    /// Fills the cache for `descriptor` (once: a cache only ever serves one descriptor).
    pub(crate) fn plan(&mut self, descriptor: &QueryDescriptor) {
        if !self.planned {
            self.required = descriptor.required().collect();
            self.excluded = descriptor.excluded().collect();
            self.planned = true;
        }
    }
}

/// One run of consecutive entity indices matching a query.
pub struct ArrayChunk<'a> {
    storage: &'a ArrayStorage,
    descriptor: &'a QueryDescriptor,
    start: usize,
    entities: &'a [Entity],
}

impl<'a> QueryChunk<'a> for ArrayChunk<'a> {
    type Lookup = Column;

    #[inline]
    fn entities(&self) -> &'a [Entity] {
        self.entities
    }

    #[inline]
    fn column(&self, slot: usize) -> ColumnAccess<'a, Column> {
        let slot = self.descriptor.slots()[slot];
        match (slot.role, self.storage.column(slot.component)) {
            (SlotRole::Excluded, _) | (_, None) => ColumnAccess::Absent,
            (SlotRole::Required, Some(column)) => {
                // SAFETY: every index of the run is present in a required component's
                // column (that is how the run was found), so `start` is below its capacity.
                ColumnAccess::Dense(unsafe { column.slot(self.start) })
            }
            (SlotRole::Optional, Some(column)) => ColumnAccess::Sparse(column),
        }
    }
}

/// The chunks of one query: the matching runs, in index order.
pub struct ArrayChunks<'a> {
    storage: &'a ArrayStorage,
    descriptor: &'a QueryDescriptor,
    cache: &'a ArrayQueryCache,
    next: usize,
    end: usize,
}

impl<'a> ArrayChunks<'a> {
    /// The runs of `storage` matching the query `cache` was planned for.
    pub(crate) fn new(
        storage: &'a ArrayStorage,
        cache: &'a ArrayQueryCache,
        descriptor: &'a QueryDescriptor,
    ) -> ArrayChunks<'a> {
        // A required component no entity ever held: nothing matches.
        let all_stored = cache
            .required
            .iter()
            .all(|&id| storage.column(id).is_some());
        ArrayChunks {
            storage,
            descriptor,
            cache,
            next: 0,
            end: if all_stored {
                storage.handles().len()
            } else {
                0
            },
        }
    }

    /// Word `word` of the match bits: held, every required component, no excluded one.
    #[inline]
    fn matches(&self, word: usize) -> u64 {
        let present = |id: &ComponentId| {
            self.storage
                .column(*id)
                .map_or(0, |column| column.present_word(word))
        };
        let mut bits = self.storage.held_word(word);
        for id in &self.cache.required {
            bits &= present(id);
        }
        for id in &self.cache.excluded {
            bits &= !present(id);
        }
        bits
    }

    /// The first index at or after `from` (and before `end`) whose match bit is `value`.
    fn first_where(&self, from: usize, value: bool) -> usize {
        let mut index = from;
        while index < self.end {
            let word = index / 64;
            let bits = if value {
                self.matches(word)
            } else {
                !self.matches(word)
            };
            let bits = bits & (!0u64 << (index % 64));
            if bits != 0 {
                return (word * 64 + bits.trailing_zeros() as usize).min(self.end);
            }
            index = (word + 1) * 64;
        }
        self.end
    }
}

impl<'a> Iterator for ArrayChunks<'a> {
    type Item = ArrayChunk<'a>;

    fn next(&mut self) -> Option<ArrayChunk<'a>> {
        let start = self.first_where(self.next, true);
        if start >= self.end {
            self.next = self.end;
            return None;
        }
        let end = self.first_where(start, false);
        self.next = end;
        Some(ArrayChunk {
            storage: self.storage,
            descriptor: self.descriptor,
            start,
            entities: &self.storage.handles()[start..end],
        })
    }
}
