//! The published baseline detector: scaled Manhattan (Araújo et al. 2004; Killourhy &
//! Maxion 2009, "Comparing anomaly-detection algorithms for keystroke dynamics"), run on the
//! same feature vectors as the engine. Training: per-feature mean and mean absolute
//! deviation over the enrollment vectors. Anomaly score: sum over features of
//! |x - mean| / MAD. Our vectors can lack features (a session without typing), so the sum
//! runs over the features present in both and is divided by their number; features whose
//! MAD is 0 are skipped. It sees only the numeric behavioral features, not the device
//! description.

use crate::features::{SessionFeatures, FEATURES};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScaledManhattan {
    /// feature -> (mean, mean absolute deviation)
    pub params: BTreeMap<&'static str, (f64, f64)>,
}

impl ScaledManhattan {
    pub fn train(sessions: &[SessionFeatures]) -> ScaledManhattan {
        let mut params = BTreeMap::new();
        for def in FEATURES {
            let xs: Vec<f64> = sessions.iter().filter_map(|s| s.value(def.name)).collect();
            if xs.is_empty() {
                continue;
            }
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let mad = xs.iter().map(|x| (x - mean).abs()).sum::<f64>() / n;
            params.insert(def.name, (mean, mad));
        }
        ScaledManhattan { params }
    }

    /// Anomaly score (higher = less like the enrolled user); `None` when nothing compares.
    pub fn anomaly(&self, s: &SessionFeatures) -> Option<f64> {
        let mut sum = 0.0;
        let mut n = 0usize;
        for (name, (mean, mad)) in &self.params {
            if *mad <= 0.0 || !mad.is_finite() {
                continue;
            }
            if let Some(x) = s.value(name) {
                sum += (x - mean).abs() / mad;
                n += 1;
            }
        }
        (n > 0).then(|| sum / n as f64)
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
    fn genuine_less_anomalous_than_impostor_on_average() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let users = synth::population(5, 5);
        let (mut g, mut i) = (0.0, 0.0);
        for (k, u) in users.iter().enumerate() {
            let train: Vec<_> = (0..5).map(|_| crate::extract(&u.session_batches(2, &mut rng)).unwrap()).collect();
            let m = ScaledManhattan::train(&train);
            g += m.anomaly(&crate::extract(&u.session_batches(2, &mut rng)).unwrap()).unwrap();
            let other = &users[(k + 1) % users.len()];
            i += m.anomaly(&crate::extract(&other.session_batches(2, &mut rng)).unwrap()).unwrap();
        }
        assert!(g < i, "genuine {g} impostor {i}");
    }
}
