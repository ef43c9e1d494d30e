//! The one seedable generator of the crate, for replayable runs: tests,
//! benchmarks, the fuzzer ([`testkit`](crate::testkit) re-exports it) and
//! the seeded procedures that make committed positions. It depends on
//! nothing else here, so the games may use it without depending on the
//! test kit.

/// A small, fast, seedable generator (SplitMix64, Steele, Lea and Flood
/// 2014): not for secrets, only for replayable runs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    ///
    /// # Panics
    ///
    /// If `n == 0`.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        self.next_u64() % n
    }

    /// An index into a slice of `len` items.
    ///
    /// # Panics
    ///
    /// If `len == 0`.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// One of `items`.
    ///
    /// # Panics
    ///
    /// If `items` is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// `true` with probability `p` (in steps of 1/2^32).
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 32) as f64) < p * 4_294_967_296.0
    }
}
