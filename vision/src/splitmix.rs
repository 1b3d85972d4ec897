//! SplitMix64: the one seeded generator behind the crate's synthetic data (the attack set
//! in `attack_synth.rs`, the card photos of `card_box`'s tests), so a seed gives the same
//! images on every run and platform.

pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) (24 bits).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Approximately normal (sum of four uniforms), mean 0, sd 1.
    pub fn normal(&mut self) -> f32 {
        (0..4).map(|_| self.uniform(-1.0, 1.0)).sum::<f32>() * 0.866
    }

    /// Normal by Box–Muller, mean 0, sd 1.
    #[cfg(test)]
    pub fn gauss(&mut self) -> f32 {
        let u1 = self.unit().max(1e-7);
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f32::consts::PI * u2).cos()
    }
}
