//! [`SlotPages`]: the prototype of every entity slot, two bytes a slot while the registry
//! has fewer than 65,536 prototypes.
//!
//! ```text
//!   slot:   0    1    2  … 2047 | 2048 …         (pages of 2,048 slots, allocated on first use)
//!   page 0: P3   P3   P5 …  P0  | page 1: absent  (an absent page reads as P0 everywhere)
//! ```
//!
//! A page holds `u16` prototype ids (4 KiB) until the first id that does not fit; then
//! every page is widened to `u32` (8 KiB) once, for good. The original design's index kept a hash map
//! from entity to prototype, which dominated its memory; two bytes per slot of the pages in
//! use, with no growth slack, is about 2 bytes per live entity.

/// Slots per page.
const PAGE: usize = 2048;

/// The prototype id every slot starts at (the empty prototype).
const EMPTY: u32 = 0;

/// One page of prototype ids at width `W`.
type Page<W> = Option<Box<[W; PAGE]>>;

/// Per-slot prototype ids in pages allocated on first use.
///
/// # Invariant
/// A slot whose page is absent holds [`EMPTY`]. While `Narrow`, every id stored is below
/// 2^16; [`SlotPages::set`] widens before storing one that is not.
#[derive(Debug)]
pub(super) enum SlotPages {
    /// Two bytes a slot.
    Narrow(Vec<Page<u16>>),
    /// Four bytes a slot, once an id needed more than two.
    Wide(Vec<Page<u32>>),
}

impl Default for SlotPages {
    fn default() -> Self {
        SlotPages::Narrow(Vec::new())
    }
}

#[inline]
fn split(slot: u32) -> (usize, usize) {
    (slot as usize / PAGE, slot as usize % PAGE)
}

/// The id at `slot` in pages of width `W` ([`EMPTY`] where the page is absent).
#[inline]
fn read<W: Copy + Into<u32>>(pages: &[Page<W>], slot: u32) -> u32 {
    let (page, offset) = split(slot);
    match pages.get(page) {
        Some(Some(page)) => page[offset].into(),
        _ => EMPTY,
    }
}

/// Stores `value` at `slot` and returns what was there; allocates the page only for a value
/// other than [`EMPTY`].
fn write<W: Copy + Into<u32> + Default>(pages: &mut Vec<Page<W>>, slot: u32, value: W) -> u32 {
    let (page, offset) = split(slot);
    if pages.get(page).is_none_or(Option::is_none) {
        if value.into() == EMPTY {
            return EMPTY;
        }
        if pages.len() <= page {
            pages.resize_with(page + 1, || None);
        }
        pages[page] = Some(Box::new([W::default(); PAGE]));
    }
    let page = pages[page].as_mut().expect("allocated above");
    std::mem::replace(&mut page[offset], value).into()
}

impl SlotPages {
    /// The prototype of `slot`.
    #[inline]
    pub(super) fn get(&self, slot: u32) -> u32 {
        match self {
            SlotPages::Narrow(pages) => read(pages, slot),
            SlotPages::Wide(pages) => read(pages, slot),
        }
    }

    /// Sets the prototype of `slot` to `value`, returning the previous one.
    pub(super) fn set(&mut self, slot: u32, value: u32) -> u32 {
        if let SlotPages::Narrow(pages) = self {
            match u16::try_from(value) {
                Ok(narrow) => return write(pages, slot, narrow),
                Err(_) => self.widen(),
            }
        }
        match self {
            SlotPages::Wide(pages) => write(pages, slot, value),
            SlotPages::Narrow(_) => unreachable!("widened above"),
        }
    }

    /// Converts every page to four bytes a slot (once, when an id first needs it).
    #[cold]
    fn widen(&mut self) {
        if let SlotPages::Narrow(pages) = self {
            let wide = pages
                .iter()
                .map(|page| page.as_ref().map(|page| Box::new(page.map(u32::from))))
                .collect();
            *self = SlotPages::Wide(wide);
        }
    }

    /// The slots whose prototype is not [`EMPTY`].
    pub(super) fn occupied(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut collect = |page_index: usize, ids: &mut dyn Iterator<Item = u32>| {
            let base = (page_index * PAGE) as u32;
            out.extend(
                ids.enumerate()
                    .filter(|&(_, id)| id != EMPTY)
                    .map(|(o, _)| base + o as u32),
            );
        };
        match self {
            SlotPages::Narrow(pages) => {
                for (p, page) in pages.iter().enumerate() {
                    if let Some(page) = page {
                        collect(p, &mut page.iter().map(|&id| u32::from(id)));
                    }
                }
            }
            SlotPages::Wide(pages) => {
                for (p, page) in pages.iter().enumerate() {
                    if let Some(page) = page {
                        collect(p, &mut page.iter().copied());
                    }
                }
            }
        }
        out
    }

    /// Heap bytes: the page table and the pages in use.
    pub(super) fn bytes(&self) -> usize {
        fn of<W>(pages: &Vec<Page<W>>) -> usize {
            pages.capacity() * size_of::<Page<W>>()
                + pages.iter().flatten().count() * size_of::<[W; PAGE]>()
        }
        match self {
            SlotPages::Narrow(pages) => of(pages),
            SlotPages::Wide(pages) => of(pages),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_pages_read_empty_and_writing_empty_allocates_nothing() {
        let mut slots = SlotPages::default();
        assert_eq!(slots.get(5), EMPTY);
        assert_eq!(slots.set(100_000, EMPTY), EMPTY);
        assert_eq!(slots.bytes(), 0);
        assert_eq!(slots.set(3, 7), EMPTY);
        assert_eq!(slots.set(3, 9), 7);
        assert_eq!(slots.get(3), 9);
        assert_eq!(slots.get(PAGE as u32 + 3), EMPTY);
        assert_eq!(slots.occupied(), [3]);
        let bytes = slots.bytes();
        assert!(
            (2 * PAGE..2 * PAGE + 64).contains(&bytes),
            "one 4 KiB page: {bytes}"
        );
    }

    #[test]
    fn an_id_past_two_bytes_widens_every_page() {
        let mut slots = SlotPages::default();
        slots.set(1, 65_535);
        slots.set(5_000, 12);
        assert!(matches!(slots, SlotPages::Narrow(_)));
        assert_eq!(slots.set(2, 70_000), EMPTY);
        assert!(matches!(slots, SlotPages::Wide(_)));
        assert_eq!(
            (slots.get(1), slots.get(2), slots.get(5_000)),
            (65_535, 70_000, 12)
        );
        assert_eq!(slots.occupied(), [1, 2, 5_000]);
        assert_eq!(slots.set(1, EMPTY), 65_535);
        assert_eq!(slots.occupied(), [2, 5_000]);
    }
}
