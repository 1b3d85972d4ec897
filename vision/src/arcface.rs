//! The second face embedding: `fr_feature.onnx` of npm `faceplugin-face-recognition-js`
//! 0.0.1 (MobileFaceNet class, 512 numbers; the package says MIT, its training data is
//! not stated), run as the package's `lib/fr_feature.js` runs it:
//! - five points from the 68 landmarks (`convert68pts5pts`): each eye's centre as the
//!   mean of its points 37, 38, 40, 41 (and 43, 44, 46, 47), the nose tip (30), each
//!   mouth corner as the mean of the outer and inner corner (48/60, 54/64);
//! - `cv.getAffineTransform` from the first three (eyes, nose) onto ArcFace's 112×112
//!   template, `cv.warpAffine` (bilinear, black outside);
//! - RGB, `(p − 127) / 128`, `[1, 3, 112, 112]`.
//!
//! Evaluated as a second opinion beside dlib's embedding (`matcher_eval`) and **not used
//! by the service**: on the real pairs here it separates people far worse than dlib
//! (genuine median distance 0.86 against impostors from 1.05 up; alone it rejects 56% of
//! impostors at full genuine acceptance, dlib 99%), and the mean of the two gains
//! nothing (docs/VISION.md, "Matcher"). Without the 68-landmark model the five points
//! are MTCNN's.

use crate::detect::Face;
use crate::embed::Embedding;
use crate::faceplugin::{run_single, FaceModelError};
use crate::landmarks::{Landmarker, Landmarks68};
use crate::registry::ids;
use crate::runtime::{Model, ModelError, ModelRuntime};
use image::RgbImage;
use std::sync::Arc;

/// The registry version of the package that ships the model.
pub const MODEL_VERSION: &str = "0.0.1";
/// Output length.
pub const DIM: usize = 512;

/// ArcFace's five reference points in the 112×112 crop (`REFERENCE_FACIAL_POINTS`).
const REFERENCE: [[f64; 2]; 3] = [[38.29459953, 51.69630051], [73.53179932, 51.50139999], [56.02519989, 71.73660278]];

/// The model, loaded.
#[derive(Clone)]
pub struct ArcFaceEmbedder {
    model: Arc<dyn Model>,
}

/// `convert68pts5pts` of the JS: eyes, nose, mouth corners.
pub fn five_from_68(lm: &Landmarks68) -> [[f32; 2]; 5] {
    let p = &lm.points;
    let mean = |ks: &[usize]| {
        let n = ks.len() as f32;
        [ks.iter().map(|&k| p[k][0]).sum::<f32>() / n, ks.iter().map(|&k| p[k][1]).sum::<f32>() / n]
    };
    [mean(&[37, 38, 40, 41]), mean(&[43, 44, 46, 47]), p[30], mean(&[48, 60]), mean(&[54, 64])]
}

/// The affine map taking `src[i]` to `dst[i]` (three points, exactly), as
/// `[a, b, c, d, e, f]`: `x' = a x + b y + c`, `y' = d x + e y + f`. `None` when the
/// points are collinear.
pub fn affine_from_three(src: [[f64; 2]; 3], dst: [[f64; 2]; 3]) -> Option<[f64; 6]> {
    let [[x0, y0], [x1, y1], [x2, y2]] = src;
    let det = x0 * (y1 - y2) - y0 * (x1 - x2) + (x1 * y2 - x2 * y1);
    if det.abs() < 1e-9 {
        return None;
    }
    // Solve [x y 1] · (a b c) = x' for each output coordinate (Cramer's rule).
    let solve = |v0: f64, v1: f64, v2: f64| {
        let a = (v0 * (y1 - y2) - y0 * (v1 - v2) + (v1 * y2 - v2 * y1)) / det;
        let b = (x0 * (v1 - v2) - v0 * (x1 - x2) + (x1 * v2 - x2 * v1)) / det;
        let c = (x0 * (y1 * v2 - y2 * v1) - y0 * (x1 * v2 - x2 * v1) + v0 * (x1 * y2 - x2 * y1)) / det;
        (a, b, c)
    };
    let (a, b, c) = solve(dst[0][0], dst[1][0], dst[2][0]);
    let (d, e, f) = solve(dst[0][1], dst[1][1], dst[2][1]);
    Some([a, b, c, d, e, f])
}

/// `cv.warpAffine(src, dst, m, 112×112)`: for every output pixel, the source point
/// through the inverse map, bilinear, black outside. RGB bytes, row-major.
pub fn warp_affine(image: &RgbImage, m: [f64; 6], size: u32) -> Option<Vec<u8>> {
    let [a, b, c, d, e, f] = m;
    let det = a * e - b * d;
    if det.abs() < 1e-12 {
        return None;
    }
    // Inverse map.
    let (ia, ib, id, ie) = (e / det, -b / det, -d / det, a / det);
    let (ic, if_) = (-(ia * c + ib * f), -(id * c + ie * f));
    let (w, h) = (i64::from(image.width()), i64::from(image.height()));
    let px = |x: i64, y: i64| -> [f64; 3] {
        if x < 0 || y < 0 || x >= w || y >= h {
            [0.0; 3]
        } else {
            image.get_pixel(x as u32, y as u32).0.map(f64::from)
        }
    };
    let mut out = Vec::with_capacity((size * size * 3) as usize);
    for v in 0..size {
        for u in 0..size {
            let (uf, vf) = (f64::from(u), f64::from(v));
            let (sx, sy) = (ia * uf + ib * vf + ic, id * uf + ie * vf + if_);
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let (p00, p10, p01, p11) = (px(x0, y0), px(x0 + 1, y0), px(x0, y0 + 1), px(x0 + 1, y0 + 1));
            for k in 0..3 {
                let top = p00[k] * (1.0 - fx) + p10[k] * fx;
                let bot = p01[k] * (1.0 - fx) + p11[k] * fx;
                out.push((top * (1.0 - fy) + bot * fy).round().clamp(0.0, 255.0) as u8);
            }
        }
    }
    Some(out)
}

/// Interleaved RGB bytes as the planar `[3, n]` floats the embedding models take, each
/// byte through `f`.
pub(crate) fn planar(rgb: &[u8], f: impl Fn(u8) -> f32) -> Vec<f32> {
    let plane = rgb.len() / 3;
    let mut out = vec![0f32; 3 * plane];
    for (i, p) in rgb.chunks_exact(3).enumerate() {
        for c in 0..3 {
            out[c * plane + i] = f(p[c]);
        }
    }
    out
}

/// Runs an embedding model on one aligned `side`×`side` crop and L2-normalises its `dim`
/// outputs; an all-zero output is an error, not an embedding.
pub(crate) fn unit_embedding(model: &dyn Model, input: &[f32], side: usize, dim: usize, version: &str) -> Result<Embedding, FaceModelError> {
    let v = run_single(model, &[1, 3, side, side], input, dim)?;
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !(norm.is_finite() && norm > 1e-6) {
        return Err(FaceModelError::UnexpectedOutput { model: model.id().to_string(), what: "a zero embedding".into() });
    }
    Ok(Embedding { model_id: model.id().to_string(), model_version: version.to_string(), vector: v.iter().map(|x| x / norm).collect() })
}

impl ArcFaceEmbedder {
    pub fn load(runtime: &dyn ModelRuntime) -> Result<Self, ModelError> {
        Ok(ArcFaceEmbedder { model: runtime.load(ids::FACEPLUGIN_FEATURE)? })
    }

    /// The model's input for the face with these five points (eyes, nose, mouth).
    pub fn input(image: &RgbImage, five: [[f32; 2]; 5]) -> Option<Vec<f32>> {
        let src = [0, 1, 2].map(|k| [f64::from(five[k][0]), f64::from(five[k][1])]);
        let m = affine_from_three(src, REFERENCE)?;
        let rgb = warp_affine(image, m, 112)?;
        Some(planar(&rgb, |v| (f32::from(v) - 127.0) / 128.0))
    }

    /// The L2-normalised embedding of `face`: five points from `landmarks` when given,
    /// else MTCNN's. Blocking, CPU-bound.
    pub fn embed(&self, image: &RgbImage, face: &Face, landmarks: Option<&Landmarks68>) -> Result<Embedding, FaceModelError> {
        let model = self.model.as_ref();
        let five = landmarks.map(five_from_68).unwrap_or(face.landmarks5);
        let input = Self::input(image, five)
            .ok_or_else(|| FaceModelError::BadCrop { model: model.id().to_string(), reason: "degenerate face points".into() })?;
        unit_embedding(model, &input, 112, DIM, MODEL_VERSION)
    }

    /// [`Self::embed`] with the 68 landmarks computed here when a landmarker is given.
    pub fn embed_with(&self, image: &RgbImage, face: &Face, landmarker: Option<&Landmarker>) -> Result<Embedding, FaceModelError> {
        let lm = landmarker.and_then(|l| l.landmarks(image, face).ok());
        self.embed(image, face, lm.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_maps_the_three_points() {
        let src = [[10.0, 20.0], [50.0, 22.0], [30.0, 45.0]];
        let m = affine_from_three(src, REFERENCE).expect("not collinear");
        for (s, d) in src.iter().zip(REFERENCE) {
            let x = m[0] * s[0] + m[1] * s[1] + m[2];
            let y = m[3] * s[0] + m[4] * s[1] + m[5];
            assert!((x - d[0]).abs() < 1e-9 && (y - d[1]).abs() < 1e-9, "{x},{y} vs {d:?}");
        }
        assert!(affine_from_three([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], REFERENCE).is_none());
    }

    #[test]
    fn identity_warp_copies_and_outside_is_black() {
        let img = RgbImage::from_fn(112, 112, |x, y| image::Rgb([x as u8, y as u8, 7]));
        let same = warp_affine(&img, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 112).expect("invertible");
        assert_eq!(same, img.as_raw().clone());
        let shifted = warp_affine(&img, [1.0, 0.0, 200.0, 0.0, 1.0, 0.0], 112).expect("invertible");
        assert!(shifted.iter().all(|&v| v == 0));
    }
}
