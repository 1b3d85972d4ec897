//! Small numeric helpers: Welford accumulators and normal tail probabilities.
//!
//! Everything here is total: non-finite inputs are ignored or mapped to safe values, so a
//! hostile session or a corrupted stored baseline can never produce NaN scores or panics.

use serde::{Deserialize, Serialize};

/// Incremental mean and dispersion (Welford 1962). `n` saturates at `cap` (when given to
/// [`Welford::push_capped`]): from then on each new value gets weight `1/cap`, i.e. the
/// accumulator turns into an exponentially weighted one and follows slow drift.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Welford {
    /// Number of values folded (saturating at the cap used).
    pub n: u32,
    pub mean: f64,
    /// Sum of squared deviations from the mean (Welford's M2).
    pub m2: f64,
}

impl Welford {
    /// Folds one value; non-finite values are ignored.
    pub fn push(&mut self, x: f64) {
        self.push_capped(x, u32::MAX);
    }

    /// Folds one value with the effective count saturating at `cap` (>= 2).
    pub fn push_capped(&mut self, x: f64, cap: u32) {
        if !x.is_finite() {
            return;
        }
        let cap = cap.max(2);
        if !self.is_sane() {
            *self = Welford::default();
        }
        if self.n < cap {
            self.n += 1;
            let n = f64::from(self.n);
            let d = x - self.mean;
            self.mean += d / n;
            self.m2 += d * (x - self.mean);
        } else {
            // Exponentially weighted update with the same effective window.
            // EW mean/variance with alpha = 1/cap: v' = (1-a)(v + a d^2), stored as M2 = v (n-1).
            let n = f64::from(cap);
            let a = 1.0 / n;
            let d = x - self.mean;
            self.mean += a * d;
            self.m2 = (1.0 - a) * (self.m2 + (n - 1.0) * a * d * d);
        }
        if !self.is_sane() {
            *self = Welford::default();
        }
    }

    /// Sample variance (n-1 denominator); `None` with fewer than two values.
    pub fn variance(&self) -> Option<f64> {
        if self.n < 2 || !self.is_sane() {
            return None;
        }
        Some((self.m2 / f64::from(self.n - 1)).max(0.0))
    }

    pub fn sd(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// Mean, or `None` when empty or not finite.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0 && self.is_sane()).then_some(self.mean)
    }

    /// True when the stored numbers are usable (guards deserialized baselines).
    pub fn is_sane(&self) -> bool {
        self.mean.is_finite() && self.m2.is_finite() && self.m2 >= 0.0
    }
}

/// ln of the upper tail probability Q(z) = P(Z > z) of the standard normal distribution.
/// Uses the Chebyshev fit of erfc from Numerical Recipes (relative error < 1.2e-7
/// everywhere), evaluated in log space so that it does not underflow for large z.
pub fn ln_normal_upper_tail(z: f64) -> f64 {
    if z.is_nan() {
        return 0.0;
    }
    let x = z / std::f64::consts::SQRT_2;
    // erfc(x) for x >= 0 as t * exp(poly); erfc(-x) = 2 - erfc(x).
    let ax = x.abs().min(1e6);
    let t = 1.0 / (1.0 + 0.5 * ax);
    let poly = -ax * ax - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ln_erfc_pos = t.ln() + poly;
    let ln_erfc = if x >= 0.0 {
        ln_erfc_pos
    } else {
        (2.0 - ln_erfc_pos.exp()).ln()
    };
    ln_erfc - std::f64::consts::LN_2
}

/// -log10 of the upper tail probability of the standard normal at `z` (0 for z = -inf).
pub fn neg_log10_upper_tail(z: f64) -> f64 {
    (-ln_normal_upper_tail(z) / std::f64::consts::LN_10).max(0.0)
}

/// Median of a slice (copies and sorts; NaN-free input expected, NaNs are dropped).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn welford_matches_two_pass() {
        let xs = [3.0, 5.0, 9.0, 11.0, 2.5, 7.25];
        let mut w = Welford::default();
        for x in xs {
            w.push(x);
        }
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
        assert!((w.mean - mean).abs() < 1e-12);
        assert!((w.variance().unwrap() - var).abs() < 1e-9);
        w.push(f64::NAN);
        w.push(f64::INFINITY);
        assert_eq!(w.n, 6);
    }

    #[test]
    fn capped_welford_tracks_drift_and_stays_bounded() {
        let mut w = Welford::default();
        for _ in 0..100 {
            w.push_capped(1.0, 10);
        }
        for _ in 0..100 {
            w.push_capped(5.0, 10);
        }
        assert_eq!(w.n, 10);
        assert!((w.mean - 5.0).abs() < 0.01, "mean {}", w.mean);
        assert!(w.variance().unwrap() < 0.1);
    }

    #[test]
    fn corrupted_welford_is_not_used() {
        let w = Welford { n: 5, mean: f64::NAN, m2: 1.0 };
        assert!(w.mean().is_none() && w.variance().is_none());
        let w = Welford { n: 5, mean: 1.0, m2: -3.0 };
        assert!(w.variance().is_none());
    }

    #[test]
    fn normal_tail_values() {
        // Q(0)=0.5, Q(1.6449)=0.05, Q(3.719)=1e-4, Q(-1.6449)=0.95
        assert!((ln_normal_upper_tail(0.0).exp() - 0.5).abs() < 1e-6);
        assert!((ln_normal_upper_tail(1.644_853_6).exp() - 0.05).abs() < 1e-6);
        assert!((neg_log10_upper_tail(3.719_016) - 4.0).abs() < 1e-3);
        assert!((ln_normal_upper_tail(-1.644_853_6).exp() - 0.95).abs() < 1e-6);
        // Far tail stays finite and monotone.
        let a = neg_log10_upper_tail(20.0);
        let b = neg_log10_upper_tail(40.0);
        assert!(a.is_finite() && b.is_finite() && b > a && a > 80.0);
        assert_eq!(neg_log10_upper_tail(f64::NEG_INFINITY), 0.0);
        assert!(neg_log10_upper_tail(f64::INFINITY).is_finite());
    }
}
