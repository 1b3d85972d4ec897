//! Pipeline stage 5: match. Euclidean distance between two embeddings → a score in
//! 0..1 and the spec's `matched` / `unmatched` / `unsure` (compare_faces) or
//! `matched` / `unmatched` (face authentication). Pure functions.
//!
//! Defaults ([`MatchConfig::default`]) and the evidence for them:
//! - `threshold` 0.6: dlib's documented decision threshold for this model ("if the
//!   distance is less than 0.6 they are the same person"; 99.38% on the LFW benchmark
//!   as published by dlib, with dlib's own alignment, which [`crate::embed`] reproduces).
//!   It is also the distance threshold stored in the model file's metric loss and
//!   face_recognition's default `tolerance`.
//! - `unsure_margin` 0.05: `unsure` for 0.55 ≤ d < 0.65, `matched` below 0.55,
//!   `unmatched` from 0.65. Measured here (`face_eval`, docs/VISION.md): genuine pairs
//!   of one man across photos at 0.22–0.43; impostor pairs of different women in one
//!   group photo (one photo shoot, similar age and make-up) as close as 0.558, four of
//!   29 below 0.6 — dlib itself gives the same distances for them. So 0.6 alone is not
//!   safe for these faces, and the band's lower edge is where `matched` starts
//!   (face_recognition 1.3.0's README: when people look alike, lower the tolerance, e.g.
//!   to 0.54; the model mixes up children at 0.6).
//! - The two-way decision (face authentication, `matched` / `unmatched`) is `matched`
//!   only for the three-way `matched`: an `unsure` pair is not accepted. Set
//!   `unsure_margin` to 0 for dlib's plain `d < 0.6`.
//! - The score is a logistic of the distance, 0.5 at the threshold and 0.75 / 0.25 at the
//!   band's edges, so `matched` ⇔ score > 0.75 and `unmatched` ⇔ score ≤ 0.25. It is
//!   monotone in the distance and comparable across calls, **not** a calibrated
//!   probability (calibrating needs labelled data that cannot be had here).

use crate::embed::Embedding;
use serde::{Deserialize, Serialize};

/// Thresholds of the match decision, in Euclidean distance between embeddings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// The decision threshold: the centre of the `unsure` band, score 0.5.
    pub threshold: f32,
    /// Half-width of the `unsure` band around `threshold`; `matched` (three-way and
    /// two-way) needs a distance below `threshold - unsure_margin`.
    pub unsure_margin: f32,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig { threshold: 0.6, unsure_margin: 0.05 }
    }
}

impl MatchConfig {
    /// Checks the values: a positive finite threshold, a margin in `[0, threshold)`.
    pub fn validate(&self) -> Result<(), MatchError> {
        let ok = self.threshold.is_finite()
            && self.threshold > 0.0
            && self.unsure_margin.is_finite()
            && self.unsure_margin >= 0.0
            && self.unsure_margin < self.threshold;
        if ok {
            Ok(())
        } else {
            Err(MatchError::BadConfig(format!("threshold {} / unsure_margin {}", self.threshold, self.unsure_margin)))
        }
    }
}

/// The three-way result of compare_faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchDecision {
    Matched,
    Unmatched,
    Unsure,
}

impl MatchDecision {
    pub fn as_str(&self) -> &'static str {
        match self {
            MatchDecision::Matched => "matched",
            MatchDecision::Unmatched => "unmatched",
            MatchDecision::Unsure => "unsure",
        }
    }
}

/// One comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    pub distance: f32,
    /// 0..1, higher = more alike; 0.5 at the threshold.
    pub score: f32,
    /// Three-way: `unsure` near the threshold.
    pub decision: MatchDecision,
    /// Two-way (face authentication): `decision == Matched` (an unsure pair is not
    /// accepted).
    pub matched: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatchError {
    #[error("embeddings of different models cannot be compared: {0} vs {1}")]
    DifferentModels(String, String),
    #[error("embeddings of different lengths: {0} vs {1}")]
    DifferentLengths(usize, usize),
    #[error("empty or non-finite embedding")]
    BadEmbedding,
    #[error("invalid match configuration: {0}")]
    BadConfig(String),
}

/// Euclidean distance; `None` for different lengths, empty or non-finite input.
pub fn euclidean_distance(a: &[f32], b: &[f32]) -> Option<f32> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let sum: f64 = a.iter().zip(b).map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2)).sum();
    let d = sum.sqrt() as f32;
    d.is_finite().then_some(d)
}

/// Model id of the fused embedding the service makes when SFace is installed: dlib's 128
/// numbers followed by SFace's 128 (L2-normalised), compared by [`fused_distance`].
pub const FUSED_MODEL_ID: &str = "dlib-resnet-v1+sface";
/// Length of each part of a fused vector.
pub const FUSED_PART: usize = 128;
/// SFace's cosine distance at its documented threshold (1 − 0.363).
const SFACE_THRESHOLD_DISTANCE: f32 = 1.0 - crate::sface::COSINE_THRESHOLD;
/// dlib's documented threshold (the scale the match bands are written in).
const DLIB_THRESHOLD: f32 = 0.6;

/// The fused distance of two fused vectors, on dlib's scale: the mean of dlib's Euclidean
/// distance and SFace's cosine distance rescaled so that each model's own documented
/// threshold lands on 0.6 (`0.5 · d_dlib + 0.5 · 0.6 · (1 − cos) / 0.637`). Each model
/// votes with the same weight at its own threshold; on the real pairs here
/// (docs/VISION.md, "Matcher") the mean keeps every genuine pair below every impostor,
/// look-alikes included, which neither model does alone by as wide a margin. `None` for
/// vectors that are not two 128-number parts or not finite.
pub fn fused_distance(a: &[f32], b: &[f32]) -> Option<f32> {
    if a.len() != 2 * FUSED_PART || b.len() != 2 * FUSED_PART {
        return None;
    }
    let d_dlib = euclidean_distance(&a[..FUSED_PART], &b[..FUSED_PART])?;
    let cos: f64 = a[FUSED_PART..].iter().zip(&b[FUSED_PART..]).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let d = 0.5 * d_dlib + 0.5 * DLIB_THRESHOLD * (1.0 - cos as f32) / SFACE_THRESHOLD_DISTANCE;
    d.is_finite().then_some(d)
}

/// The distance between two vectors of the model `model_id`: [`fused_distance`] for the
/// fused model, Euclidean otherwise (dlib alone).
pub fn model_distance(model_id: &str, a: &[f32], b: &[f32]) -> Option<f32> {
    if model_id == FUSED_MODEL_ID {
        fused_distance(a, b)
    } else {
        euclidean_distance(a, b)
    }
}

/// The score of a distance: `1 / (1 + exp((d - threshold) / s))` with `s` such that the
/// band's edges score 0.75 and 0.25 (a step at the threshold when the margin is 0).
pub fn score(distance: f32, cfg: &MatchConfig) -> f32 {
    let d = f64::from(distance) - f64::from(cfg.threshold);
    if cfg.unsure_margin <= 0.0 {
        return if d < 0.0 { 1.0 } else { 0.0 };
    }
    let s = f64::from(cfg.unsure_margin) / 3f64.ln();
    (1.0 / (1.0 + (d / s).exp())) as f32
}

/// The three-way decision: `matched` below `threshold - margin`, `unmatched` from
/// `threshold + margin` on, `unsure` between.
pub fn decide(distance: f32, cfg: &MatchConfig) -> MatchDecision {
    if distance < cfg.threshold - cfg.unsure_margin {
        MatchDecision::Matched
    } else if distance >= cfg.threshold + cfg.unsure_margin {
        MatchDecision::Unmatched
    } else {
        MatchDecision::Unsure
    }
}

/// Distance, score and decisions for a distance.
pub fn judge(distance: f32, cfg: &MatchConfig) -> MatchResult {
    let decision = decide(distance, cfg);
    MatchResult { distance, score: score(distance, cfg), decision, matched: decision == MatchDecision::Matched }
}

/// Compares two embeddings of the same model.
pub fn compare(a: &Embedding, b: &Embedding, cfg: &MatchConfig) -> Result<MatchResult, MatchError> {
    cfg.validate()?;
    if (a.model_id.as_str(), a.model_version.as_str()) != (b.model_id.as_str(), b.model_version.as_str()) {
        return Err(MatchError::DifferentModels(
            format!("{} {}", a.model_id, a.model_version),
            format!("{} {}", b.model_id, b.model_version),
        ));
    }
    if a.vector.len() != b.vector.len() {
        return Err(MatchError::DifferentLengths(a.vector.len(), b.vector.len()));
    }
    let d = model_distance(&a.model_id, &a.vector, &b.vector).ok_or(MatchError::BadEmbedding)?;
    Ok(judge(d, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emb(v: Vec<f32>) -> Embedding {
        Embedding { model_id: "m".into(), model_version: "1".into(), vector: v }
    }

    /// A fused vector: dlib part `d` (padded with zeros), SFace part the unit vector at
    /// `angle` radians in its first two coordinates.
    fn fused(d: &[f32], angle: f32) -> Vec<f32> {
        let mut v = vec![0.0; 2 * FUSED_PART];
        v[..d.len()].copy_from_slice(d);
        v[FUSED_PART] = angle.cos();
        v[FUSED_PART + 1] = angle.sin();
        v
    }

    #[test]
    fn fused_distance_puts_each_models_threshold_at_dlibs() {
        // dlib 0.6 apart and SFace exactly at its documented threshold: 0.6.
        let at_threshold = (crate::sface::COSINE_THRESHOLD).acos();
        let d = fused_distance(&fused(&[0.0], 0.0), &fused(&[0.6], at_threshold)).expect("fused vectors");
        assert!((d - 0.6).abs() < 1e-5, "{d}");
        // Identical faces: 0. dlib says the same person (0.3), SFace orthogonal (cos 0):
        // 0.5·0.3 + 0.5·0.6/0.637 = 0.621, outside the matched band.
        assert!(fused_distance(&fused(&[0.1, 0.2], 0.3), &fused(&[0.1, 0.2], 0.3)).expect("fused") < 1e-6);
        let split = fused_distance(&fused(&[0.0], 0.0), &fused(&[0.3], std::f32::consts::FRAC_PI_2)).expect("fused");
        assert!((split - (0.15 + 0.3 / 0.637)).abs() < 1e-4, "{split}");
        assert_eq!(decide(split, &MatchConfig::default()), MatchDecision::Unsure);
    }

    #[test]
    fn fused_distance_refuses_vectors_of_another_shape() {
        assert_eq!(fused_distance(&[0.0; 128], &[0.0; 128]), None);
        assert_eq!(fused_distance(&fused(&[0.0], 0.0), &[0.0; 255]), None);
        let mut nan = fused(&[0.0], 0.0);
        nan[3] = f32::NAN;
        assert_eq!(fused_distance(&nan, &fused(&[0.0], 0.0)), None);
        // model_distance: fused for the fused id, Euclidean for any other.
        assert_eq!(model_distance("dlib-resnet-v1", &[0.0, 3.0], &[4.0, 0.0]), Some(5.0));
        assert_eq!(model_distance(FUSED_MODEL_ID, &[0.0, 3.0], &[4.0, 0.0]), None);
    }

    #[test]
    fn distance() {
        assert_eq!(euclidean_distance(&[0.0, 3.0], &[4.0, 0.0]), Some(5.0));
        assert_eq!(euclidean_distance(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(euclidean_distance(&[], &[]), None);
        assert_eq!(euclidean_distance(&[f32::NAN], &[0.0]), None);
        assert_eq!(euclidean_distance(&[f32::INFINITY], &[0.0]), None);
    }

    #[test]
    fn bands_at_the_defaults() {
        let c = MatchConfig::default();
        assert_eq!(decide(0.0, &c), MatchDecision::Matched);
        // (Exactly at an edge, f32 rounding of threshold ± margin decides.)
        assert_eq!(decide(0.5499, &c), MatchDecision::Matched);
        assert_eq!(decide(0.5501, &c), MatchDecision::Unsure);
        assert_eq!(decide(0.5999, &c), MatchDecision::Unsure);
        assert_eq!(decide(0.6, &c), MatchDecision::Unsure);
        assert_eq!(decide(0.6499, &c), MatchDecision::Unsure);
        assert_eq!(decide(0.6501, &c), MatchDecision::Unmatched);
        assert_eq!(decide(2.0, &c), MatchDecision::Unmatched);
        // Two-way: only a three-way `matched` is accepted.
        assert!(judge(0.5499, &c).matched);
        assert!(!judge(0.5501, &c).matched);
        assert!(!judge(0.5999, &c).matched);
        // Zero margin: no unsure band at all.
        let z = MatchConfig { unsure_margin: 0.0, ..c };
        assert_eq!(decide(0.5999, &z), MatchDecision::Matched);
        assert_eq!(decide(0.6, &z), MatchDecision::Unmatched);
        assert!(judge(0.5999, &z).matched && !judge(0.6, &z).matched);
    }

    #[test]
    fn score_is_monotone_and_agrees_with_the_bands() {
        let c = MatchConfig::default();
        assert!((score(0.6, &c) - 0.5).abs() < 1e-6);
        assert!((score(0.55, &c) - 0.75).abs() < 1e-5);
        assert!((score(0.65, &c) - 0.25).abs() < 1e-5);
        let mut last = 1.0f32;
        for i in 0..=200 {
            let d = i as f32 * 0.01;
            let s = score(d, &c);
            assert!((0.0..=1.0).contains(&s) && s <= last, "d {d}: {s} after {last}");
            last = s;
            // The decision is the same whether read from the distance or the score
            // (away from the exact edges, where rounding decides).
            if (d - 0.55).abs() > 1e-3 && (d - 0.65).abs() > 1e-3 {
                let by_score = if s > 0.75 {
                    MatchDecision::Matched
                } else if s <= 0.25 {
                    MatchDecision::Unmatched
                } else {
                    MatchDecision::Unsure
                };
                assert_eq!(by_score, decide(d, &c), "d {d}");
            }
        }
        assert!(score(0.0, &c) > 0.99999 && score(1.5, &c) < 1e-5);
        let z = MatchConfig { unsure_margin: 0.0, ..c };
        assert_eq!((score(0.59, &z), score(0.6, &z)), (1.0, 0.0));
    }

    #[test]
    fn compare_checks_models_and_lengths() {
        let c = MatchConfig::default();
        let r = compare(&emb(vec![0.0, 0.0]), &emb(vec![0.3, 0.4]), &c).expect("compares");
        assert!((r.distance - 0.5).abs() < 1e-6);
        assert_eq!(r.decision, MatchDecision::Matched);
        assert!(r.matched && r.score > 0.75);
        let other = Embedding { model_version: "2".into(), ..emb(vec![0.0, 0.0]) };
        assert!(matches!(compare(&emb(vec![0.0, 0.0]), &other, &c), Err(MatchError::DifferentModels(..))));
        assert_eq!(compare(&emb(vec![0.0]), &emb(vec![0.0, 1.0]), &c), Err(MatchError::DifferentLengths(1, 2)));
        assert_eq!(compare(&emb(vec![f32::NAN]), &emb(vec![0.0]), &c), Err(MatchError::BadEmbedding));
        assert_eq!(compare(&emb(vec![]), &emb(vec![]), &c), Err(MatchError::BadEmbedding));
    }

    #[test]
    fn config_validation() {
        assert!(MatchConfig::default().validate().is_ok());
        for (t, m) in [(0.0, 0.0), (-0.6, 0.05), (f32::NAN, 0.05), (0.6, -0.1), (0.6, 0.6), (0.6, f32::INFINITY)] {
            let c = MatchConfig { threshold: t, unsure_margin: m };
            assert!(c.validate().is_err(), "{c:?}");
            assert!(compare(&emb(vec![0.0]), &emb(vec![0.0]), &c).is_err());
        }
    }
}
