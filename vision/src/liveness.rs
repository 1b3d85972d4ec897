//! Passive liveness (pipeline stage 6, one selfie) with `fr_liveness.onnx` of npm
//! `faceplugin-face-recognition-js` 0.0.1, run as the package's `lib/fr_liveness.js` runs
//! it: the face box scaled 2.7× about its centre and shifted inside the image
//! ([`crate::faceplugin::js_align_window`]), resized to 128×128 (INTER_LINEAR), raw RGB
//! values 0–255 as `[1, 3, 128, 128]` (no normalisation), 3 logits, softmax; the JS
//! reports `p[0]` as the live score.
//!
//! **Never evaluated on spoofs here**: no spoof data set exists in any registry this
//! project can use. What was measured (docs/VISION.md): the scores on the real faces of
//! the test photos. The package claims iBeta level 2 for its commercial SDKs; nothing
//! says this npm model is that one. Treat `is_live` as an unvalidated signal.
//!
//! A missing model, a failed inference or a face that cannot be cropped is
//! [`LivenessResult::NotPerformed`] — never a guess.

use crate::detect::Face;
use crate::faceplugin::{clamp_box, faceplugin_box, js_align_window, js_int_box, resize_linear_rgb, run_single, softmax, FaceModelError};
use crate::registry::ids;
use crate::runtime::{Model, ModelError, ModelRuntime};
use image::RgbImage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Channel order fed to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelOrder {
    /// What the package's JS feeds (channels 0, 1, 2 of OpenCV.js's RGBA image). Default.
    Rgb,
    /// Reversed. Measured to give higher live scores on the real test faces (the model
    /// may have been trained on OpenCV's BGR images), but unvalidated either way.
    Bgr,
}

/// Liveness settings.
#[derive(Debug, Clone)]
pub struct LivenessParams {
    /// `is_live` when the live score is at least this. 0.5: the live class holds the
    /// majority of the probability (the JS sets no threshold).
    pub threshold: f32,
    /// Scale of the crop around the face box (the JS: 2.7).
    pub crop_scale: f64,
    pub channel_order: ChannelOrder,
}

impl Default for LivenessParams {
    fn default() -> Self {
        LivenessParams { threshold: 0.5, crop_scale: 2.7, channel_order: ChannelOrder::Rgb }
    }
}

/// The API's `liveness_check` (`is_live`, `score`), or why it was not performed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LivenessResult {
    Performed {
        is_live: bool,
        /// Probability of the live class, 0 to 1.
        score: f32,
        /// All three class probabilities (class 0 = live; 1 and 2 unnamed by the package).
        probabilities: [f32; 3],
    },
    NotPerformed {
        /// True when the model or the runtime is not installed (deployment problem).
        not_installed: bool,
        reason: String,
    },
}

impl LivenessResult {
    /// `Some(is_live)` when performed.
    pub fn is_live(&self) -> Option<bool> {
        match self {
            LivenessResult::Performed { is_live, .. } => Some(*is_live),
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

    /// Liveness of `face`; any failure is `NotPerformed`.
    pub fn check(&self, image: &RgbImage, face: &Face, params: &LivenessParams) -> LivenessResult {
        match self.probabilities(image, face, params) {
            Ok(p) => LivenessResult::Performed { is_live: p[0] >= params.threshold, score: p[0], probabilities: p },
            Err(e) => LivenessResult::not_performed(&e),
        }
    }
}

/// Loads the model and checks `face`; a model that cannot be loaded is `NotPerformed`.
pub fn passive_liveness(runtime: &dyn ModelRuntime, image: &RgbImage, face: &Face, params: &LivenessParams) -> LivenessResult {
    match LivenessModel::load(runtime) {
        Ok(m) => m.check(image, face, params),
        Err(e) => LivenessResult::not_performed(&FaceModelError::Model(e)),
    }
}
