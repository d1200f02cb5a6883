//! [`Holders`]: for each entity slot, which of the storage's sets may hold the entity, so a
//! despawn visits those sets instead of every set.
//!
//! A sparse-set storage keeps no list of an entity's components, so removing an entity
//! means asking every set whether it holds it: one sparse-page read per component type,
//! and with many types those reads miss the cache (a world of 150 component types spent
//! two thirds of its time there). The holders keep, per entity slot, a 64-bit mask with
//! bit `c % 64` set for every component `c` the entity gained since it was spawned:
//!
//! ```text
//!   slot 17: 0b…0010_0101  -> sets 0, 2, 5, 64, 66, 69, 128, … may hold entity 17
//! ```
//!
//! A despawn reads the mask (one load) and asks only the sets whose bit is set. Removing a
//! component leaves its bit (a later despawn asks that set once more, which answers "no"),
//! so the mask never needs to be recomputed. The storage switches the holders on only once
//! it has [`TRACK_FROM`] sets: below that, asking every set is as cheap as the mask, and a
//! small world pays nothing.

use ecs_core::component::ComponentId;
use ecs_core::Entity;

use crate::sparse_set::SparseSet;

/// The number of sets from which a storage keeps holders.
pub const TRACK_FROM: usize = 32;

/// Slots per page (4 KiB of masks).
const PAGE: usize = 512;

/// The bit of `component` in a mask.
#[inline]
pub fn bit(component: ComponentId) -> u64 {
    1 << (component.index() % 64)
}

/// The mask of several components.
#[inline]
pub fn bits(components: &[ComponentId]) -> u64 {
    components.iter().fold(0, |mask, &c| mask | bit(c))
}

/// Per-slot masks of the sets that may hold each entity, in pages allocated on first use.
///
/// # Invariant
/// For every set at index `i` of the storage and every entity `e` it holds, bit `i % 64` of
/// slot `e.index()` is set (an absent page reads as all zero).
#[derive(Debug, Default)]
pub struct Holders {
    pages: Vec<Option<Box<[u64; PAGE]>>>,
}

impl Holders {
    /// Holders for the sets as they are (set `i` at `sets[i]`).
    pub fn build(sets: &[Option<SparseSet>]) -> Holders {
        let mut holders = Holders::default();
        for (i, set) in sets.iter().enumerate() {
            if let Some(set) = set {
                let b = bit(ComponentId::new(i as u32));
                for &entity in set.entities() {
                    holders.mark(entity, b);
                }
            }
        }
        holders
    }

    /// Records that `entity` may be held by the sets of `bits`.
    #[inline]
    pub fn mark(&mut self, entity: Entity, bits: u64) {
        let index = entity.index() as usize;
        let (page, offset) = (index / PAGE, index % PAGE);
        if self.pages.len() <= page {
            self.pages.resize_with(page + 1, || None);
        }
        self.pages[page].get_or_insert_with(|| Box::new([0; PAGE]))[offset] |= bits;
    }

    /// The mask of `entity`'s slot, which becomes empty (the entity is leaving every set).
    #[inline]
    pub fn take(&mut self, entity: Entity) -> u64 {
        let index = entity.index() as usize;
        match self.pages.get_mut(index / PAGE) {
            Some(Some(page)) => std::mem::take(&mut page[index % PAGE]),
            _ => 0,
        }
    }

    /// Forgets every mask (every set was emptied).
    pub fn clear(&mut self) {
        self.pages.clear();
    }

    /// Heap bytes: the page table and the pages.
    pub fn memory_usage(&self) -> usize {
        self.pages.capacity() * size_of::<Option<Box<[u64; PAGE]>>>()
            + self.pages.iter().flatten().count() * size_of::<[u64; PAGE]>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_accumulate_and_are_taken_once() {
        let mut holders = Holders::default();
        let e = Entity::new(700, 1).unwrap();
        assert_eq!(holders.take(e), 0, "no page: no set");
        holders.mark(e, bit(ComponentId::new(3)));
        holders.mark(e, bits(&[ComponentId::new(67), ComponentId::new(5)]));
        assert_eq!(holders.take(e), (1 << 3) | (1 << 5));
        assert_eq!(holders.take(e), 0);
        let bytes = holders.memory_usage();
        assert!((4096..4096 + 64).contains(&bytes), "one page: {bytes}");
        holders.clear();
        assert!(holders.memory_usage() < 64, "pages freed, table kept");
    }
}
