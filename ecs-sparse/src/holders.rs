//! [`Holders`]: for each entity slot, which of the storage's sets may hold the entity, so a
//! despawn visits those sets instead of every set.
//!
//! A sparse-set storage keeps no list of an entity's components, so removing an entity
//! means asking every set whether it holds it: one sparse-page read per component type,
//! and with many types those reads miss the cache (a world of 150 component types spent
//! two thirds of its time there). The holders keep, per entity slot, a mask of 64 to 256
//! bits: bit `c % width` is set for every component `c` the entity gained since it was
//! spawned.
//!
//! ```text
//!   width 128, slot 17: bits 0, 2, 69  -> sets 0, 2, 69 (and 128, 130, 197, … if they
//!                                         exist) may hold entity 17
//! ```
//!
//! A despawn reads the mask (one cache line) and asks only the sets its bits name. The
//! width is the fewest 64-bit words that give every set its own bit, up to four words, so a
//! storage of up to 256 component ids asks exactly the sets that hold the entity: a shared
//! bit would send the despawn to a set that answers "no", and each such answer is a cache
//! miss in that set's sparse pages (in a world of 160 types, a 64-bit mask sent every
//! despawn to about one and a half such sets per component). When a set beyond the width
//! appears, the holders are rebuilt wider from the sets, at most three times in a storage's
//! life. Beyond 256 ids, bits are shared again (`c % 256`), which is still correct.
//!
//! Removing a component leaves its bit (a later despawn asks that set once more, which
//! answers "no"), so a mask never needs to be recomputed. The storage switches the holders
//! on only once it has [`TRACK_FROM`] sets: below that, asking every set is as cheap as the
//! mask, and a small world pays nothing.

use ecs_core::component::ComponentId;
use ecs_core::Entity;

use crate::sparse_set::SparseSet;

/// The number of sets from which a storage keeps holders.
pub const TRACK_FROM: usize = 32;

/// Slots per page.
const PAGE: usize = 512;

/// Mask words per slot at most: up to 256 component ids each have their own bit.
const MAX_WORDS: usize = 4;

/// Per-slot masks of the sets that may hold each entity, in pages allocated on first use.
///
/// # Invariants
/// * For every set at index `i` of the storage and every entity `e` it holds, bit
///   `i % (64 × words)` of slot `e.index()` is set (an absent page reads as all zero).
/// * `1 ≤ words ≤ MAX_WORDS`; every page holds `PAGE × words` words, slot `s`'s mask at
///   `s × words ..`.
#[derive(Debug)]
pub struct Holders {
    words: usize,
    pages: Vec<Option<Box<[u64]>>>,
}

/// The sets an entity's mask names: what [`Holders::take`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask {
    words: [u64; MAX_WORDS],
    /// Bits in use (`64 × words`): set `i` has bit `i % width`.
    width: usize,
}

impl Mask {
    /// The indices below `sets` whose bit is set, ascending per bit: exactly the marked
    /// sets while `sets ≤ width`.
    pub fn candidates(self, sets: usize) -> impl Iterator<Item = usize> {
        let width = self.width;
        self.words
            .into_iter()
            .enumerate()
            .flat_map(|(w, word)| Bits(word).map(move |b| w * 64 + b))
            .flat_map(move |bit| (bit..sets).step_by(width))
    }
}

/// The set bits of a word, lowest first.
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(bit)
    }
}

impl Holders {
    /// Holders for the sets as they are (set `i` at `sets[i]`), as wide as they need.
    pub fn build(sets: &[Option<SparseSet>]) -> Holders {
        let mut holders = Holders {
            words: Self::words_for(sets.len()),
            pages: Vec::new(),
        };
        for (i, set) in sets.iter().enumerate() {
            if let Some(set) = set {
                for &entity in set.entities() {
                    holders.mark(entity, ComponentId::new(i as u32));
                }
            }
        }
        holders
    }

    /// The words that give each of `sets` ids its own bit, within `1..=MAX_WORDS`.
    fn words_for(sets: usize) -> usize {
        sets.div_ceil(64).clamp(1, MAX_WORDS)
    }

    /// Whether a storage with `sets` set slots needs wider masks than these (see
    /// [`Holders::build`]).
    pub fn too_narrow_for(&self, sets: usize) -> bool {
        Self::words_for(sets) > self.words
    }

    /// The word and bit of `component` in a slot's mask.
    #[inline]
    fn bit(&self, component: ComponentId) -> (usize, u64) {
        let bit = component.index() % (64 * self.words);
        (bit / 64, 1 << (bit % 64))
    }

    /// The mask words of `entity`'s slot, its page allocated on first use.
    #[inline]
    fn slot_mut(&mut self, entity: Entity) -> &mut [u64] {
        let index = entity.index() as usize;
        let (page, offset) = (index / PAGE, index % PAGE);
        if self.pages.len() <= page {
            self.pages.resize_with(page + 1, || None);
        }
        let words = self.words;
        let page = self.pages[page].get_or_insert_with(|| vec![0; PAGE * words].into());
        &mut page[offset * words..(offset + 1) * words]
    }

    /// Makes `entity`'s slot exist (its page allocated, its mask unchanged), so that
    /// marking it later allocates nothing.
    pub fn reserve_for(&mut self, entity: Entity) {
        self.slot_mut(entity);
    }

    /// Records that `entity` may be held by the set of `component`.
    #[inline]
    pub fn mark(&mut self, entity: Entity, component: ComponentId) {
        let (word, bit) = self.bit(component);
        self.slot_mut(entity)[word] |= bit;
    }

    /// Records that `entity` may be held by the sets of `components`.
    #[inline]
    pub fn mark_all(&mut self, entity: Entity, components: &[ComponentId]) {
        let words = self.words;
        let width = 64 * words;
        let slot = self.slot_mut(entity);
        for c in components {
            let bit = c.index() % width;
            slot[bit / 64] |= 1 << (bit % 64);
        }
    }

    /// The mask of `entity`'s slot, which becomes empty (the entity is leaving every set).
    #[inline]
    pub fn take(&mut self, entity: Entity) -> Mask {
        let index = entity.index() as usize;
        let words = self.words;
        let mut mask = Mask {
            words: [0; MAX_WORDS],
            width: 64 * words,
        };
        if let Some(Some(page)) = self.pages.get_mut(index / PAGE) {
            let slot = &mut page[(index % PAGE) * words..(index % PAGE + 1) * words];
            mask.words[..words].copy_from_slice(slot);
            slot.fill(0);
        }
        mask
    }

    /// Forgets every mask (every set was emptied).
    pub fn clear(&mut self) {
        self.pages.clear();
    }

    /// Heap bytes: the page table and the pages.
    pub fn memory_usage(&self) -> usize {
        self.pages.capacity() * size_of::<Option<Box<[u64]>>>()
            + self.pages.iter().flatten().count() * PAGE * self.words * size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(i: u32) -> ComponentId {
        ComponentId::new(i)
    }

    fn sets_named(mask: Mask, sets: usize) -> Vec<usize> {
        let mut found: Vec<usize> = mask.candidates(sets).collect();
        found.sort_unstable();
        found
    }

    #[test]
    fn masks_accumulate_and_are_taken_once() {
        let mut holders = Holders::build(&[]);
        let e = Entity::new(700, 1).unwrap();
        assert_eq!(
            sets_named(holders.take(e), 64),
            Vec::<usize>::new(),
            "no page"
        );
        holders.mark(e, id(3));
        holders.mark_all(e, &[id(67), id(5)]);
        // One word: bits 3 and 5 also name sets 67 and 69.
        assert_eq!(sets_named(holders.take(e), 70), vec![3, 5, 67, 69]);
        assert_eq!(sets_named(holders.take(e), 70), Vec::<usize>::new());
        let bytes = holders.memory_usage();
        assert!((4096..4096 + 128).contains(&bytes), "one page: {bytes}");
        holders.clear();
        assert!(holders.memory_usage() < 128, "pages freed, table kept");
    }

    #[test]
    fn wider_masks_name_each_set_alone_up_to_256_then_share_bits() {
        for (sets, words) in [(64, 1), (65, 2), (160, 3), (256, 4), (300, 4)] {
            let mut holders = Holders {
                words: Holders::words_for(sets),
                pages: Vec::new(),
            };
            assert_eq!(holders.words, words, "{sets} sets");
            assert!(!holders.too_narrow_for(sets));
            assert!(holders.too_narrow_for(64 * words + 1) == (words < MAX_WORDS));
            let e = Entity::new(1030, 2).unwrap();
            let marked: Vec<usize> = [0, 63, 64, 130, sets - 1]
                .into_iter()
                .filter(|&i| i < sets)
                .collect();
            let ids: Vec<ComponentId> = marked.iter().map(|&i| id(i as u32)).collect();
            holders.mark_all(e, &ids);
            let mut want = marked;
            if sets > 256 {
                // 299 % 256 = 43: set 43 is named too; 0 also names 256, 130 nothing more.
                want.extend([43, 256]);
            }
            want.sort_unstable();
            want.dedup();
            assert_eq!(sets_named(holders.take(e), sets), want, "{sets} sets");
        }
    }
}
