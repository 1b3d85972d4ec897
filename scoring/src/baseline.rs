//! The per (client, user) behavioral baseline: incremental per-feature statistics and
//! device-attribute counts, serializable to JSON for storage.
//!
//! Whether a scored session is folded is the caller's decision (spec, "Behavioral
//! baseline" state table); [`Baseline::fold`] only does the arithmetic. The baseline is a
//! bounded-size summary: one Welford accumulator per feature (its count saturates at
//! [`WINDOW`], after which it behaves as an exponentially weighted average that follows
//! slow drift) and at most [`MAX_VALUES_PER_ATTRIBUTE`] counted values per device attribute.

use crate::features::{SessionFeatures, FEATURES, FEATURE_SCHEMA_VERSION};
use crate::stats::Welford;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Effective memory of the per-feature statistics, in sessions.
pub const WINDOW: u32 = 50;
/// Distinct values remembered per device attribute.
pub const MAX_VALUES_PER_ATTRIBUTE: usize = 8;

/// Statistics of one feature over the folded sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct FeatureStats {
    /// The feature's value across sessions.
    pub value: Welford,
    /// The number of observations the value was computed from (ln), across sessions; used
    /// to widen the tolerance for sessions with fewer observations than usual.
    pub ln_obs: Welford,
}

/// A user's baseline. `Default` is the empty baseline (no session folded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    #[serde(default = "schema_version")]
    pub schema_version: u32,
    #[serde(default)]
    sessions: u32,
    #[serde(default)]
    features: BTreeMap<String, FeatureStats>,
    /// attribute -> value -> number of folded sessions that had it.
    #[serde(default)]
    device: BTreeMap<String, BTreeMap<String, u32>>,
}

fn schema_version() -> u32 {
    FEATURE_SCHEMA_VERSION
}

impl Default for Baseline {
    fn default() -> Self {
        Baseline { schema_version: FEATURE_SCHEMA_VERSION, sessions: 0, features: BTreeMap::new(), device: BTreeMap::new() }
    }
}

impl Baseline {
    /// Number of sessions (feature vectors) folded so far; this is the `embedding_count`.
    pub fn sessions(&self) -> u32 {
        self.sessions
    }

    pub fn is_empty(&self) -> bool {
        self.sessions == 0
    }

    /// Folds one session into the baseline.
    pub fn fold(&mut self, session: &SessionFeatures) {
        self.sessions = self.sessions.saturating_add(1);
        for def in FEATURES {
            if let Some(o) = session.observed(def.name) {
                let st = self.features.entry(def.name.to_string()).or_default();
                st.value.push_capped(o.value, WINDOW);
                st.ln_obs.push_capped(f64::from(o.n.max(1)).ln(), WINDOW);
            }
        }
        for (attr, value) in session.device.attributes() {
            let counts = self.device.entry(attr.to_string()).or_default();
            let c = counts.entry(value).or_insert(0);
            *c = c.saturating_add(1);
            while counts.len() > MAX_VALUES_PER_ATTRIBUTE {
                // Forget the least frequent value (the first such in key order).
                let victim = counts.iter().min_by_key(|(_, c)| **c).map(|(k, _)| k.clone());
                match victim {
                    Some(k) => {
                        counts.remove(&k);
                    }
                    None => break,
                }
            }
        }
    }

    /// The statistics of one feature, if it was ever observed and the stored numbers are sane.
    pub fn feature(&self, name: &str) -> Option<&FeatureStats> {
        self.features.get(name).filter(|s| s.value.n > 0 && s.value.is_sane())
    }

    /// How many folded sessions had `value` for device attribute `attr`; `None` when the
    /// attribute was never reported.
    pub fn device_count(&self, attr: &str, value: &str) -> Option<u32> {
        let counts = self.device.get(attr)?;
        if counts.is_empty() {
            return None;
        }
        Some(counts.get(value).copied().unwrap_or(0))
    }

    /// The values remembered for a device attribute.
    pub fn device_values(&self, attr: &str) -> impl Iterator<Item = &str> {
        self.device.get(attr).into_iter().flat_map(|m| m.keys().map(String::as_str))
    }

    /// True when the baseline has recorded this device attribute at all.
    pub fn has_attribute(&self, attr: &str) -> bool {
        self.device.get(attr).is_some_and(|c| !c.is_empty())
    }

    /// Serializes to JSON text for storage.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// Reads a stored baseline. Unknown fields are ignored; missing ones default.
    pub fn from_json(text: &str) -> Result<Baseline, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::synth;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn fold_counts_and_roundtrips() {
        let user = synth::User::new(7);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut b = Baseline::default();
        assert_eq!(b.sessions(), 0);
        let mut typed = 0;
        let mut dwell = crate::stats::Welford::default();
        for _ in 0..4 {
            let s = crate::extract(&user.session_batches(3, &mut rng)).unwrap();
            if let Some(x) = s.value("keystroke.dwell_mean") {
                typed += 1;
                dwell.push(x);
            }
            b.fold(&s);
        }
        assert_eq!(b.sessions(), 4);
        assert_eq!(b.feature("motion.pitch").unwrap().value.n, 4);
        // Features only count the sessions that had them.
        let st = b.feature("keystroke.dwell_mean").unwrap();
        assert!(typed >= 2);
        assert_eq!(st.value.n, typed);
        assert!((st.value.mean - dwell.mean).abs() < 1e-12);
        assert!(st.value.sd().unwrap() > 0.0);
        let model = user.device.model.clone();
        assert_eq!(b.device_count("model", &model), Some(4));
        assert_eq!(b.device_count("model", "nope"), Some(0));
        let text = b.to_json().unwrap();
        // serde_json's default float parsing may differ from the written value in the last
        // bit; the round trip is exact up to that.
        let back = Baseline::from_json(&text).unwrap();
        assert_eq!(back.sessions(), b.sessions());
        assert_eq!(back.device, b.device);
        for (k, st) in &b.features {
            let o = back.feature(k).unwrap();
            assert_eq!(o.value.n, st.value.n);
            assert!((o.value.mean - st.value.mean).abs() <= 1e-12 * st.value.mean.abs().max(1.0));
            assert!((o.value.m2 - st.value.m2).abs() <= 1e-12 * st.value.m2.abs().max(1.0));
        }
        // An empty object is an empty baseline.
        assert_eq!(Baseline::from_json("{}").unwrap(), Baseline::default());
    }

    #[test]
    fn device_values_are_bounded() {
        let user = synth::User::new(3);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let base = crate::extract(&user.session_batches(1, &mut rng)).unwrap();
        let mut b = Baseline::default();
        for i in 0..40 {
            let mut s = base.clone();
            s.device.timezone = Some(format!("Zone/{i}"));
            b.fold(&s);
        }
        assert!(b.device.get("timezone").unwrap().len() <= MAX_VALUES_PER_ATTRIBUTE);
        assert_eq!(b.device_count("timezone", "Zone/39"), Some(1));
    }
}
