//! `SparseArray`: the paged map from entity index to dense position.
//!
//! A sparse set needs, for every entity index, "where in the dense arrays is this entity?".
//! A flat `Vec<u64>` indexed by entity index answers in one load but costs 8 bytes for every
//! index up to the largest one ever stored, even when the component is rare. Splitting the
//! index space into fixed-size *pages* and allocating a page only when an index in it is
//! first written keeps the one-load look-up (plus one pointer hop) while a component held by
//! a handful of far-apart entities costs a handful of pages.
//!
//! ```text
//!   entity index 2051  ->  page_of = 2051 / 1024 = 2,  offset_in_page = 2051 % 1024 = 3
//!
//!   pages:  [ Some ]   [ None ]   [ Some ]   [ None ]     one pointer per 1024 indices
//!              |                     |
//!              v                     v
//!   page 0: [ 0 | ∅ | 4 | ∅ | ...]  page 2: [ ∅ | ∅ | ∅ | 1 | ...]   1024 × u64 each
//!             0   1   2   3                  2048       2051
//!
//!   ∅ = ABSENT (0): no value for this index.   (stored values are never 0: see below)
//!   index 2 -> dense 4, index 2051 -> dense 1, index 1030 -> page 1 missing -> absent.
//! ```
//!
//! * **read** (`get`, `entry`): a missing page or an `ABSENT` entry both mean "absent";
//!   reading never allocates, so probing arbitrary handles cannot grow memory.
//! * **absent is 0**: a fresh page is zeroed memory (the allocator's `calloc`, which skips
//!   the fill when the memory is fresh from the OS), and 0 is a value no sparse set stores:
//!   its entries carry the entity's generation, never 0, in the high half. So a set compares
//!   a handle's generation with the entry's high half and needs no separate absence check:
//!   an absent entry's high half (0) matches no handle.
//! * **write** (`entry_mut`): grows the page table to reach the page and allocates the page,
//!   filled with `ABSENT`, the first time an index in it is written.
//!
//! Pages stay allocated once touched: a page emptied by removals is refilled when its
//! indices are reused (the entity allocator recycles indices), so memory is reused rather
//! than returned and re-requested. The page table itself is 8 bytes per 1024 indices.
//!
//! Entries are 64-bit so a sparse set can keep the entity's generation beside the dense
//! position (see `SparseSet`); this layer knows nothing of what the bits mean, it is pure
//! index arithmetic. It needs no `unsafe`.

/// Log2 of [`PAGE_SIZE`].
const PAGE_BITS: u32 = 10;

/// Entries per page: 1024 `u64`s, i.e. 8 KiB, two OS pages.
pub const PAGE_SIZE: usize = 1 << PAGE_BITS;

/// The entry value meaning "this index has no value": 0, so fresh pages are zeroed memory.
/// A value of 0 therefore cannot be stored (it reads back as absent).
pub const ABSENT: u64 = 0;

/// One page of entries.
type Page = [u64; PAGE_SIZE];

/// The page holding `index`.
#[inline]
pub const fn page_of(index: u32) -> usize {
    (index >> PAGE_BITS) as usize
}

/// The position of `index` within its page.
#[inline]
pub const fn offset_in_page(index: u32) -> usize {
    index as usize & (PAGE_SIZE - 1)
}

/// A map from `u32` index to `u64` value with pages allocated on first write.
///
/// # Invariants
/// * `pages[p]` is `Some` exactly for the pages that have been written through
///   [`SparseArray::entry_mut`] (pages are never freed except by dropping the array).
/// * An entry never written, or last set to [`ABSENT`], reads as absent.
#[derive(Clone, Default)]
pub struct SparseArray {
    pages: Vec<Option<Box<Page>>>,
}

impl SparseArray {
    /// An empty array; allocates nothing.
    pub const fn new() -> SparseArray {
        SparseArray { pages: Vec::new() }
    }

    /// The value stored for `index`, or `None` when absent. Never allocates.
    #[inline]
    pub fn get(&self, index: u32) -> Option<u64> {
        let value = self.entry(index)?;
        (value != ABSENT).then_some(value)
    }

    /// The entry for `index` when its page exists: its value or [`ABSENT`]; `None` for an
    /// index whose page was never written. Never allocates. For a caller whose own check
    /// rejects `ABSENT` anyway (a set's generation comparison): one test fewer than
    /// [`SparseArray::get`] for a held index. (A missing page answers `None` rather than
    /// `ABSENT` so that path returns at once instead of joining the comparison.)
    #[inline]
    pub fn entry(&self, index: u32) -> Option<u64> {
        let page = self.pages.get(page_of(index))?.as_deref()?;
        Some(page[offset_in_page(index)])
    }

    /// The entry for `index`, allocating its page (and growing the page table) on first use;
    /// [`ABSENT`] in the entry means "no value". EnTT calls this `assure_at_least`.
    #[inline]
    pub fn entry_mut(&mut self, index: u32) -> &mut u64 {
        &mut self.page_mut(page_of(index))[offset_in_page(index)]
    }

    /// Marks `index` absent and returns its old value. Never allocates.
    #[inline]
    pub fn remove(&mut self, index: u32) -> Option<u64> {
        let old = std::mem::replace(self.existing_entry_mut(index)?, ABSENT);
        (old != ABSENT).then_some(old)
    }

    /// Number of pages allocated so far.
    pub fn page_count(&self) -> usize {
        self.pages.iter().flatten().count()
    }

    /// Heap bytes: the page table plus every allocated page.
    pub fn memory_usage(&self) -> usize {
        self.pages.capacity() * std::mem::size_of::<Option<Box<Page>>>()
            + self.page_count() * std::mem::size_of::<Page>()
    }

    /// Page `page` (entries `page * PAGE_SIZE ..`, at [`offset_in_page`]), allocated (filled
    /// with [`ABSENT`]) if it does not exist yet: for writing a run of indices that share a
    /// page with one look-up.
    #[inline]
    pub fn page_mut(&mut self, page: usize) -> &mut [u64; PAGE_SIZE] {
        // Checked once with a shared look-up, then read again with nothing written between,
        // so the compiler folds the second look-up into the first: one bounds check and one
        // null check on the path every insert takes.
        if !matches!(self.pages.get(page), Some(Some(_))) {
            return self.add_page(page);
        }
        match self.pages.get_mut(page) {
            Some(Some(page)) => page,
            _ => unreachable!("page {page} was found above"),
        }
    }

    /// The entry for `index` when its page exists, without allocating: for rewriting the
    /// entry of an index the caller knows is stored (its page was written, so it exists).
    #[inline]
    pub fn existing_entry_mut(&mut self, index: u32) -> Option<&mut u64> {
        let page = self.pages.get_mut(page_of(index))?.as_deref_mut()?;
        Some(&mut page[offset_in_page(index)])
    }

    /// Grows the page table to reach `page` and allocates the page (all [`ABSENT`]) if it
    /// does not exist yet.
    #[cold]
    #[inline(never)]
    fn add_page(&mut self, page: usize) -> &mut [u64; PAGE_SIZE] {
        if page >= self.pages.len() {
            self.pages.resize_with(page + 1, || None);
        }
        self.pages[page].get_or_insert_with(new_page)
    }
}

/// A fresh page with every entry absent.
#[cold]
fn new_page() -> Box<Page> {
    // Built through a `Vec` so the 8 KiB array is never placed on the stack; `vec![0; n]`
    // asks the allocator for zeroed memory (`ABSENT` is 0).
    const _: () = assert!(ABSENT == 0);
    vec![0u64; PAGE_SIZE]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has exactly PAGE_SIZE entries"))
}

impl std::fmt::Debug for SparseArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseArray")
            .field("table_len", &self.pages.len())
            .field("pages", &self.page_count())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_arithmetic() {
        assert_eq!((page_of(0), offset_in_page(0)), (0, 0));
        assert_eq!((page_of(1023), offset_in_page(1023)), (0, 1023));
        assert_eq!((page_of(1024), offset_in_page(1024)), (1, 0));
        assert_eq!((page_of(2051), offset_in_page(2051)), (2, 3));
        let last = u32::MAX;
        assert_eq!(page_of(last), (1 << (32 - PAGE_BITS)) - 1);
        assert_eq!(offset_in_page(last), PAGE_SIZE - 1);
    }

    #[test]
    fn write_read_remove() {
        let mut a = SparseArray::new();
        assert_eq!(a.get(5), None);
        *a.entry_mut(5) = 7;
        *a.entry_mut(2051) = u64::MAX;
        assert_eq!(
            (a.get(5), a.get(2051), a.get(6)),
            (Some(7), Some(u64::MAX), None)
        );
        assert_eq!(
            (a.entry(5), a.entry(6), a.entry(1 << 30)),
            (Some(7), Some(ABSENT), None)
        );
        assert_eq!(a.remove(5), Some(7));
        assert_eq!(
            (a.get(5), a.remove(5), a.entry(5)),
            (None, None, Some(ABSENT))
        );
        assert_eq!(a.get(2051), Some(u64::MAX));
    }

    #[test]
    fn touching_a_far_index_allocates_one_page() {
        let mut a = SparseArray::new();
        assert_eq!((a.page_count(), a.memory_usage()), (0, 0));
        *a.entry_mut(100_000) = 1;
        assert_eq!(a.page_count(), 1);
        let table = a.pages.capacity() * std::mem::size_of::<Option<Box<Page>>>();
        assert_eq!(a.memory_usage(), table + std::mem::size_of::<Page>());
        // Neighbours in the same page share it; the page's other entries are absent.
        *a.entry_mut(100_001) = 2;
        assert_eq!(a.page_count(), 1);
        assert_eq!(a.get(page_of(100_000) as u32 * PAGE_SIZE as u32), None);
    }

    #[test]
    fn reads_and_removes_of_untouched_pages_do_not_allocate() {
        let mut a = SparseArray::new();
        *a.entry_mut(3) = 1;
        let before = a.memory_usage();
        for index in [1024, 50_000, 1 << 20, u32::MAX] {
            assert_eq!(a.get(index), None);
            assert_eq!(a.remove(index), None);
        }
        assert_eq!((a.memory_usage(), a.page_count()), (before, 1));
        assert_eq!(a.pages.len(), 1, "the page table did not grow");
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "grows a 4-million-entry page table; no unsafe code here"
    )]
    fn last_index_is_addressable() {
        let mut a = SparseArray::new();
        *a.entry_mut(u32::MAX) = 9;
        assert_eq!(a.get(u32::MAX), Some(9));
        assert_eq!(a.page_count(), 1);
    }
}
