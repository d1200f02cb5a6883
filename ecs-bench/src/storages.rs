//! Two hand-written single-component storages from seed 004, the comparison points for the
//! backends:
//!
//! * [`CompactSparseSet`]: sparse array → dense entities + dense values, with both removal
//!   strategies of the seed: swap-remove (`RemoveAndSwapBack`) and order-preserving shift
//!   (`List`).
//! * [`LinearStorage`]: the "leaky" linear array indexed by entity index, with a presence
//!   bitmap (the seed's `C * N + ceil(N / 8)` layout).
//!
//! ```text
//!   CompactSparseSet            sparse: [ 2 | - | 0 | 1 ]   (entity index → dense position)
//!                               dense:  [ 2 | 3 | 0 ]       (position → entity index)
//!                               data:   [ c | d | a ]
//!   LinearStorage               data:   [ a | ? | c | d ]   present: 0b1101
//! ```

const ABSENT: u32 = u32::MAX;

/// A sparse set for one component type, keyed by entity index (see the module docs).
///
/// # Invariants
/// `dense` and `data` are parallel; `sparse[dense[p]] == p` for every position `p`, and
/// `sparse[i] == ABSENT` for every index not in `dense`.
#[derive(Debug, Clone, Default)]
pub struct CompactSparseSet<T> {
    sparse: Vec<u32>,
    dense: Vec<u32>,
    data: Vec<T>,
}

impl<T> CompactSparseSet<T> {
    /// An empty set with room for indices `0..indices` and `values` values.
    pub fn with_capacity(indices: usize, values: usize) -> Self {
        CompactSparseSet {
            sparse: vec![ABSENT; indices],
            dense: Vec::with_capacity(values),
            data: Vec::with_capacity(values),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the set holds no value.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The values, densely packed.
    pub fn values(&self) -> &[T] {
        &self.data
    }

    fn position(&self, index: u32) -> Option<usize> {
        match self.sparse.get(index as usize) {
            Some(&p) if p != ABSENT => Some(p as usize),
            _ => None,
        }
    }

    /// The value at `index`.
    pub fn get(&self, index: u32) -> Option<&T> {
        self.position(index).map(|p| &self.data[p])
    }

    /// Sets the value at `index`, returning the previous one.
    pub fn insert(&mut self, index: u32, value: T) -> Option<T> {
        if let Some(p) = self.position(index) {
            return Some(std::mem::replace(&mut self.data[p], value));
        }
        if self.sparse.len() <= index as usize {
            self.sparse.resize(index as usize + 1, ABSENT);
        }
        self.sparse[index as usize] = self.dense.len() as u32;
        self.dense.push(index);
        self.data.push(value);
        None
    }

    /// Removes the value at `index` by moving the last value into its place: O(1), but the
    /// dense order changes.
    pub fn remove_swap(&mut self, index: u32) -> Option<T> {
        let p = self.position(index)?;
        self.sparse[index as usize] = ABSENT;
        self.dense.swap_remove(p);
        if let Some(&moved) = self.dense.get(p) {
            self.sparse[moved as usize] = p as u32;
        }
        Some(self.data.swap_remove(p))
    }

    /// Removes the value at `index` by shifting every later value down one place: keeps the
    /// dense order, O(len - position).
    pub fn remove_shift(&mut self, index: u32) -> Option<T> {
        let p = self.position(index)?;
        self.sparse[index as usize] = ABSENT;
        self.dense.remove(p);
        for (q, &moved) in self.dense.iter().enumerate().skip(p) {
            self.sparse[moved as usize] = q as u32;
        }
        Some(self.data.remove(p))
    }
}

/// A linear array indexed by entity index with a presence bitmap (see the module docs).
///
/// It grows in pages of 32 slots with exact reservations, as the seed's reference
/// implementation does; every slot holds a `T` (absent ones hold `T::default()`), so its
/// size is `size_of::<T>()` per slot plus one bit per slot whatever the utilisation.
#[derive(Debug, Clone, Default)]
pub struct LinearStorage<T> {
    data: Vec<T>,
    present: Vec<u64>,
    len: usize,
}

/// Slots are added in pages of this many.
pub const LINEAR_PAGE: usize = 32;

impl<T: Copy + Default> LinearStorage<T> {
    /// An empty storage.
    pub fn new() -> Self {
        LinearStorage {
            data: Vec::new(),
            present: Vec::new(),
            len: 0,
        }
    }

    /// Makes room for entity indices `0..bound` in one step (a world knows its index bound).
    pub fn reserve_index_bound(&mut self, bound: usize) {
        let slots = bound.div_ceil(LINEAR_PAGE) * LINEAR_PAGE;
        if slots > self.data.len() {
            self.data.reserve_exact(slots - self.data.len());
            self.data.resize(slots, T::default());
            let words = slots.div_ceil(64);
            self.present.reserve_exact(words - self.present.len());
            self.present.resize(words, 0);
        }
    }

    /// Number of present values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no value is present.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `index` holds a value.
    pub fn contains(&self, index: usize) -> bool {
        self.present
            .get(index / 64)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    /// The value at `index`.
    pub fn get(&self, index: usize) -> Option<&T> {
        self.contains(index).then(|| &self.data[index])
    }

    /// Sets the value at `index`, growing by whole pages as needed.
    pub fn insert(&mut self, index: usize, value: T) {
        if index >= self.data.len() {
            self.reserve_index_bound(index + 1);
        }
        if !self.contains(index) {
            self.present[index / 64] |= 1 << (index % 64);
            self.len += 1;
        }
        self.data[index] = value;
    }

    /// Removes the value at `index` (the slot stays allocated: the array "leaks" the gap).
    pub fn remove(&mut self, index: usize) -> Option<T> {
        if !self.contains(index) {
            return None;
        }
        self.present[index / 64] &= !(1 << (index % 64));
        self.len -= 1;
        Some(self.data[index])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_invariants<T>(set: &CompactSparseSet<T>) {
        for (p, &i) in set.dense.iter().enumerate() {
            assert_eq!(set.sparse[i as usize], p as u32);
        }
        let present = set.sparse.iter().filter(|&&p| p != ABSENT).count();
        assert_eq!(present, set.dense.len());
        assert_eq!(set.dense.len(), set.data.len());
    }

    #[test]
    fn swap_and_shift_remove_the_same_values() {
        let mut swap = CompactSparseSet::with_capacity(10, 10);
        let mut shift = CompactSparseSet::with_capacity(10, 10);
        for i in 0..10u32 {
            swap.insert(i, i * 10);
            shift.insert(i, i * 10);
        }
        for i in [3u32, 0, 9, 5] {
            assert_eq!(swap.remove_swap(i), Some(i * 10));
            assert_eq!(shift.remove_shift(i), Some(i * 10));
            check_invariants(&swap);
            check_invariants(&shift);
        }
        assert_eq!(
            shift.values(),
            &[10, 20, 40, 60, 70, 80],
            "shift keeps order"
        );
        let mut swapped = swap.values().to_vec();
        swapped.sort_unstable();
        assert_eq!(swapped, shift.values());
        assert_eq!(swap.remove_swap(3), None);
        assert_eq!(swap.get(4), Some(&40));
    }

    #[test]
    fn linear_storage_grows_by_pages() {
        let mut linear = LinearStorage::<u64>::new();
        linear.insert(40, 7);
        assert_eq!(linear.data.len(), 64);
        assert_eq!(linear.get(40), Some(&7));
        assert_eq!(linear.get(39), None);
        assert_eq!(linear.remove(40), Some(7));
        assert!(linear.is_empty());
        assert_eq!(linear.data.capacity(), 64, "removal leaks the slot");
    }
}
