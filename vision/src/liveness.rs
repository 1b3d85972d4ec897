//! Passive liveness (pipeline stage 6, one selfie): `fr_liveness.onnx` of npm
//! `faceplugin-face-recognition-js` 0.0.1 beside physical cues of a medium
//! (`spoof_cues.rs`), combined by one policy ([`passive_verdict`]).
//!
//! The model is run as the package's `lib/fr_liveness.js` crops for it — the face box
//! scaled 2.7× about its centre and shifted inside the image
//! ([`crate::faceplugin::js_align_window`]), 128×128 (INTER_LINEAR), raw values 0–255 as
//! `[1, 3, 128, 128]`, 3 logits, softmax, class 0 = live — but with the channels in
//! **BGR** order, where the JS passes RGB. Why (docs/VISION.md, "Passive liveness"): the
//! crop is Silent-Face-Anti-Spoofing's (`CropImage`, scale 2.7), whose training and test
//! code read images with OpenCV, i.e. BGR; and on the real faces here RGB refuses 207 of
//! 330 real video frames where BGR refuses none. The other order is still run: the model
//! alone refuses a face only when both orders call it not live with near certainty.
//!
//! Evaluated on real faces (BPCER) and on a **synthetic** attack set
//! (`attack_synth.rs`, APCER); no real spoof data exists in any registry this project
//! can use.
//!
//! A missing model, a failed inference or a face that cannot be cropped is
//! [`LivenessResult::NotPerformed`] — never a guess.

use crate::detect::Face;
use crate::faceplugin::{clamp_box, faceplugin_box, js_align_window, js_int_box, resize_linear_rgb, run_single, softmax, FaceModelError};
use crate::registry::ids;
use crate::spoof_cues::SpoofCues;
use crate::runtime::{Model, ModelError, ModelRuntime};
use image::RgbImage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Channel order fed to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelOrder {
    /// What the package's JS feeds (channels 0, 1, 2 of OpenCV.js's RGBA image).
    Rgb,
    /// Reversed: what OpenCV's `imread` gives the training code of Silent-Face-Anti-
    /// Spoofing, whose crop this model uses. Default (module doc).
    Bgr,
}

/// Liveness settings.
#[derive(Debug, Clone)]
pub struct LivenessParams {
    /// Below this live-class probability the model's answer is "not live" (0.5: the
    /// live class holds the majority; the JS sets no threshold). On its own that makes
    /// the passive verdict `uncertain`, not `spoof`.
    pub threshold: f32,
    /// Scale of the crop around the face box (the JS: 2.7).
    pub crop_scale: f64,
    pub channel_order: ChannelOrder,
    /// The model alone calls a face a spoof only when its live class is below this in
    /// *both* channel orders (docs/VISION.md: no real face here goes below 0.045).
    pub certain_spoof: f32,
}

impl Default for LivenessParams {
    fn default() -> Self {
        LivenessParams { threshold: 0.5, crop_scale: 2.7, channel_order: ChannelOrder::Bgr, certain_spoof: 0.03 }
    }
}

/// The passive check's three-way answer (docs/VISION.md, "Passive liveness: the
/// policy"). Only `Spoof` refuses: the model's "not live" on its own is `Uncertain`,
/// because on real faces it is wrong too often to refuse anyone on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassiveVerdict {
    Live,
    Uncertain,
    Spoof,
}

/// Periodic-structure cue (`spoof_cues::periodic_peak`, log10 of peak over ring median)
/// from which a face is called a spoof whatever the model says. Real faces here: at most
/// 1.13 over 468 faces and variants (docs/VISION.md).
pub const PERIODIC_PEAK_SPOOF: f32 = 1.3;
/// Below this the cue does not lower the score at all (the bulk of real faces: p95 0.93).
const PERIODIC_PEAK_CLEAN: f32 = 0.9;

/// The policy (docs/VISION.md, "Passive liveness: the policy"): a screen's or a print's
/// periodic structure → `Spoof`; the model sure in both channel orders (live class
/// below `certain_spoof` in each) → `Spoof`; the model's live class below its threshold
/// in the configured order → `Uncertain`; else `Live`.
pub fn passive_verdict(model_live: f32, other_order_live: f32, cues: &SpoofCues, params: &LivenessParams) -> PassiveVerdict {
    if cues.periodic_peak.is_some_and(|p| p >= PERIODIC_PEAK_SPOOF) || model_live.max(other_order_live) < params.certain_spoof {
        PassiveVerdict::Spoof
    } else if model_live < params.threshold {
        PassiveVerdict::Uncertain
    } else {
        PassiveVerdict::Live
    }
}

/// The reported score: the model's live probability, capped by the cue's own score
/// (1 up to [`PERIODIC_PEAK_CLEAN`], 0.5 at [`PERIODIC_PEAK_SPOOF`], 0 at 0.4 above it),
/// so that a face refused on the cue never shows a live-looking score.
pub fn combined_score(model_live: f32, cues: &SpoofCues) -> f32 {
    let cue = match cues.periodic_peak {
        None => 1.0,
        Some(p) if p <= PERIODIC_PEAK_CLEAN => 1.0,
        Some(p) if p < PERIODIC_PEAK_SPOOF => 1.0 - 0.5 * (p - PERIODIC_PEAK_CLEAN) / (PERIODIC_PEAK_SPOOF - PERIODIC_PEAK_CLEAN),
        // Strictly below 0.5 from the spoof threshold on: a refused face never scores 0.5.
        Some(p) => (0.5 - 0.5 * (p - PERIODIC_PEAK_SPOOF) / 0.4).clamp(0.0, 0.499),
    };
    model_live.min(cue).clamp(0.0, 1.0)
}

/// The API's `liveness_check` (`is_live`, `score`), or why it was not performed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LivenessResult {
    Performed {
        verdict: PassiveVerdict,
        /// 0 to 1, below 0.5 unless `live`: the model's live probability (configured
        /// channel order), lowered by the periodic-structure cue (see [`combined_score`]).
        score: f32,
        /// The three class probabilities in the configured order (class 0 = live; 1 and
        /// 2 unnamed by the package).
        probabilities: [f32; 3],
        /// The live probability in the other channel order, run only when the
        /// configured order's is below `certain_spoof` (the only case it can change).
        other_order_live: Option<f32>,
        cues: SpoofCues,
    },
    NotPerformed {
        /// True when the model or the runtime is not installed (deployment problem).
        not_installed: bool,
        reason: String,
    },
}

impl LivenessResult {
    /// `Some(true)` live, `Some(false)` spoof, `None` uncertain or not performed (no
    /// verdict either way).
    pub fn is_live(&self) -> Option<bool> {
        match self {
            LivenessResult::Performed { verdict: PassiveVerdict::Live, .. } => Some(true),
            LivenessResult::Performed { verdict: PassiveVerdict::Spoof, .. } => Some(false),
            LivenessResult::Performed { verdict: PassiveVerdict::Uncertain, .. } | LivenessResult::NotPerformed { .. } => None,
        }
    }

    /// The verdict and score when the check ran.
    pub fn performed(&self) -> Option<(PassiveVerdict, f32)> {
        match self {
            LivenessResult::Performed { verdict, score, .. } => Some((*verdict, *score)),
            LivenessResult::NotPerformed { .. } => None,
        }
    }

    fn not_performed(e: &FaceModelError) -> Self {
        LivenessResult::NotPerformed { not_installed: e.is_not_installed(), reason: e.to_string() }
    }
}

/// The liveness model, loaded.
#[derive(Clone)]
pub struct LivenessModel {
    model: Arc<dyn Model>,
}

impl LivenessModel {
    /// Loads `faceplugin-liveness`.
    pub fn load(runtime: &dyn ModelRuntime) -> Result<Self, ModelError> {
        Ok(LivenessModel { model: runtime.load(ids::FACEPLUGIN_LIVENESS)? })
    }

    /// The `[1, 3, 128, 128]` input for `face`, or `None` when the face cannot be cropped.
    pub fn input(image: &RgbImage, face: &Face, params: &LivenessParams) -> Option<Vec<f32>> {
        let b = js_int_box(clamp_box(faceplugin_box(face), image.width(), image.height()));
        let win = js_align_window(image.width(), image.height(), b, params.crop_scale)?;
        let rgb = resize_linear_rgb(image, win, 128, 128);
        if rgb.len() != 128 * 128 * 3 {
            return None;
        }
        let plane = 128 * 128;
        let mut input = vec![0f32; 3 * plane];
        for (i, p) in rgb.chunks_exact(3).enumerate() {
            for c in 0..3 {
                let src = match params.channel_order {
                    ChannelOrder::Rgb => c,
                    ChannelOrder::Bgr => 2 - c,
                };
                input[c * plane + i] = f32::from(p[src]);
            }
        }
        Some(input)
    }

    /// The three class probabilities for `face` (class 0 = live). Blocking, CPU-bound.
    pub fn probabilities(&self, image: &RgbImage, face: &Face, params: &LivenessParams) -> Result<[f32; 3], FaceModelError> {
        let model = self.model.as_ref();
        let input = Self::input(image, face, params)
            .ok_or_else(|| FaceModelError::BadCrop { model: model.id().to_string(), reason: format!("face box {:?} cannot be cropped", face.rect) })?;
        let out = run_single(model, &[1, 3, 128, 128], &input, 3)?;
        let p = softmax(&out);
        Ok([p[0], p[1], p[2]])
    }

    /// Liveness of `face`: the model (in the other channel order too when the first is
    /// near certain of a spoof), the cues, the policy. Any failure is `NotPerformed`.
    pub fn check(&self, image: &RgbImage, face: &Face, params: &LivenessParams) -> LivenessResult {
        let other = LivenessParams {
            channel_order: match params.channel_order {
                ChannelOrder::Rgb => ChannelOrder::Bgr,
                ChannelOrder::Bgr => ChannelOrder::Rgb,
            },
            ..params.clone()
        };
        let p = match self.probabilities(image, face, params) {
            Ok(p) => p,
            Err(e) => return LivenessResult::not_performed(&e),
        };
        let q = if p[0] < params.certain_spoof {
            match self.probabilities(image, face, &other) {
                Ok(q) => Some(q[0]),
                Err(e) => return LivenessResult::not_performed(&e),
            }
        } else {
            None
        };
        let cues = crate::spoof_cues::measure(image, face);
        // Without the second run the other order cannot make it a spoof: pass 1.
        let verdict = passive_verdict(p[0], q.unwrap_or(1.0), &cues, params);
        LivenessResult::Performed { verdict, score: combined_score(p[0], &cues), probabilities: p, other_order_live: q, cues }
    }
}

/// Loads the model and checks `face`; a model that cannot be loaded is `NotPerformed`.
pub fn passive_liveness(runtime: &dyn ModelRuntime, image: &RgbImage, face: &Face, params: &LivenessParams) -> LivenessResult {
    match LivenessModel::load(runtime) {
        Ok(m) => m.check(image, face, params),
        Err(e) => LivenessResult::not_performed(&FaceModelError::Model(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cues(peak: Option<f32>) -> SpoofCues {
        SpoofCues { periodic_peak: peak, black_level: 0.05 }
    }

    #[test]
    fn only_strong_evidence_is_a_spoof() {
        let p = LivenessParams::default();
        // The model alone leaning "not live" is uncertain, not a spoof.
        assert_eq!(passive_verdict(0.2, 0.9, &cues(Some(0.7)), &p), PassiveVerdict::Uncertain);
        assert_eq!(passive_verdict(0.01, 0.9, &cues(Some(0.7)), &p), PassiveVerdict::Uncertain, "the other order disagrees");
        assert_eq!(passive_verdict(0.01, 0.02, &cues(Some(0.7)), &p), PassiveVerdict::Spoof, "both orders near certain");
        // A screen's or a print's periodic structure is a spoof whatever the model says.
        assert_eq!(passive_verdict(0.99, 0.99, &cues(Some(1.4)), &p), PassiveVerdict::Spoof);
        assert_eq!(passive_verdict(0.99, 0.99, &cues(Some(1.2)), &p), PassiveVerdict::Live);
        // A face too small for a spectrum is judged by the model.
        assert_eq!(passive_verdict(0.8, 1.0, &cues(None), &p), PassiveVerdict::Live);
    }

    #[test]
    fn the_score_agrees_with_the_verdict() {
        let p = LivenessParams::default();
        for model in [0.0f32, 0.02, 0.3, 0.49, 0.5, 0.7, 1.0] {
            for peak in [None, Some(0.5), Some(1.0), Some(1.29), Some(1.3), Some(1.6), Some(2.5)] {
                let c = cues(peak);
                let (v, s) = (passive_verdict(model, model, &c, &p), combined_score(model, &c));
                assert!((0.0..=1.0).contains(&s), "{model} {peak:?}: {s}");
                assert_eq!(v == PassiveVerdict::Live, s >= 0.5, "{model} {peak:?}: {v:?} with score {s}");
            }
        }
    }
}
