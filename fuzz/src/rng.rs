//! A small seeded generator (SplitMix64): the whole run is a function of `--seed`, so a
//! crash seen once can be replayed (the supervisor relies on that, see `main.rs`).

/// The project's one SplitMix64 (`idv_vision::splitmix`), with the fuzzer's helpers.
pub struct Rng(idv_vision::splitmix::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(idv_vision::splitmix::SplitMix64(seed ^ 0x5DEE_CE66_D1CE_4E5B))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// In `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den.max(1) < num
    }

    pub fn byte(&mut self) -> u8 {
        (self.next_u64() >> 24) as u8
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> Option<&'a T> {
        if xs.is_empty() {
            None
        } else {
            Some(&xs[self.below(xs.len())])
        }
    }
}

/// FNV-1a, for file names and outcome signatures (stable across runs and builds).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
