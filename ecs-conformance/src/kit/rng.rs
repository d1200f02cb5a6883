//! [`Rng`]: the seeded generator every test, fuzzer and benchmark generator of the workspace
//! draws from (SplitMix64: tiny, fast, and a seed names one stream forever).

/// SplitMix64: a 64-bit state moved by a fixed odd step and mixed on the way out.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible for the small `n` tests use).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An index in `0..n` (`n > 0`).
    #[inline]
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Uniform in `[0, 1)`, with 53 random bits (every `f64` step of that range).
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Puts `items` in a random order (Fisher-Yates: each order equally likely, up to the
    /// modulo bias of [`Rng::below`]).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.index(i + 1));
        }
    }
}

/// A well-mixed 64-bit hash of one value: the first output of the generator seeded with
/// `x` (SplitMix64's finaliser), for digests and checksums built from the same mixing.
#[inline]
pub fn mix(x: u64) -> u64 {
    Rng::new(x).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_one_stream() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let first: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(first[0], first[1]);
        assert_ne!(Rng::new(8).next_u64(), first[0]);
        assert!((0..1_000).all(|_| a.index(10) < 10));
        assert!((0..1_000).all(|_| (0.0..1.0).contains(&a.unit_f64())));
        assert_eq!(mix(7), first[0]);
    }

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let mut items: Vec<u32> = (0..100).collect();
        Rng::new(1).shuffle(&mut items);
        let mut again: Vec<u32> = (0..100).collect();
        Rng::new(1).shuffle(&mut again);
        assert_eq!(items, again, "one seed, one order");
        assert_ne!(items, (0..100).collect::<Vec<_>>(), "the order changed");
        items.sort_unstable();
        assert_eq!(
            items,
            (0..100).collect::<Vec<_>>(),
            "nothing lost or repeated"
        );
    }
}
