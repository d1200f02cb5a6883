//! [`Bits`]: a growable set of small indices, one bit each, read a 64-bit word at a time.

/// A set of indices (entity indices here), one bit each.
///
/// Query scans read it a word at a time ([`Bits::word`]): the runs of entities a query
/// matches are the runs of ones in the AND of its components' words.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// Whether `index` is in the set.
    #[inline]
    pub(crate) fn contains(&self, index: usize) -> bool {
        self.words
            .get(index / 64)
            .is_some_and(|word| word >> (index % 64) & 1 == 1)
    }

    /// Adds `index`.
    #[inline]
    pub(crate) fn insert(&mut self, index: usize) {
        let word = index / 64;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << (index % 64);
    }

    /// Removes `index` (nothing happens when it is not in the set).
    #[inline]
    pub(crate) fn remove(&mut self, index: usize) {
        if let Some(word) = self.words.get_mut(index / 64) {
            *word &= !(1 << (index % 64));
        }
    }

    /// Word `word`: bit `b` says whether index `word * 64 + b` is in the set (all zero past
    /// the last word stored).
    #[inline]
    pub(crate) fn word(&self, word: usize) -> u64 {
        self.words.get(word).copied().unwrap_or(0)
    }

    /// Every index in the set, in increasing order.
    pub(crate) fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + bit
                })
            })
        })
    }

    /// Heap bytes held.
    pub(crate) fn memory_usage(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_and_contains_agree_across_words() {
        let mut bits = Bits::default();
        for i in [0, 63, 64, 130] {
            bits.insert(i);
        }
        bits.remove(63);
        bits.remove(1_000); // past the end: nothing to do
        assert!(bits.contains(0) && bits.contains(64) && bits.contains(130));
        assert!(!bits.contains(63) && !bits.contains(1) && !bits.contains(10_000));
        assert_eq!(bits.ones().collect::<Vec<_>>(), [0, 64, 130]);
        assert_eq!(bits.word(1), 1);
        assert_eq!(bits.word(2), 1 << 2);
        assert_eq!(bits.word(99), 0);
    }
}
