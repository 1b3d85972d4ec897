//! 68 face landmarks (the iBUG 300-W layout) with `fr_landmark.onnx` of npm
//! `faceplugin-face-recognition-js` 0.0.1, and eye openness with its `fr_eye.onnx`, both
//! run as the package's JS runs them (`lib/fr_landmark.js`, `lib/fr_eye.js`; the shared
//! pre-processing is in [`crate::faceplugin`]).
//!
//! Landmark model: input `[1, 1, 64, 64]`, the face box crop resized (INTER_LINEAR) to
//! 64×64, grey (the JS's BGR2GRAY on RGBA), pixels `/ 256`; output `[1, 136]`, `(u, v)` per
//! point relative to the crop: `x = x1 + u·w`, `y = y1 + v·h`. The JS truncates the
//! results to integers; [`Landmarks68`] keeps them as floats (the eye crop truncates them
//! as the JS does).
//!
//! Eye model: per eye a square crop centred on the mean of the eyelid points (37, 38, 40,
//! 41 and 43, 44, 46, 47), side 1.6 × the corner-to-corner width (39 − 36, 45 − 42),
//! resized to 24×24, grey, `/ 255`; output `[1, 2]`, softmax. The JS returns `p[0] > p[1]`
//! without naming the classes; on labelled video frames (docs/VISION.md) class 0 is
//! **closed**: [`EyeModel::closed_probability`].

use crate::detect::Face;
use crate::faceplugin::{js_gray, landmark_window, resize_linear_rgb, run_single, softmax, FaceModelError, Window};
use crate::registry::ids;
use crate::runtime::{Model, ModelError, ModelRuntime};
use image::RgbImage;
use std::sync::Arc;

/// 68 landmarks, `(x, y)` in image pixels, iBUG 300-W order: 0–16 jaw line (from the
/// image's left), 17–26 brows, 27–30 nose bridge down to the tip (30), 31–35 nostrils,
/// 36–41 the eye on the image's left (36 outer corner), 42–47 the eye on the image's
/// right (45 outer corner), 48–67 mouth (48 and 54 the corners).
#[derive(Debug, Clone, PartialEq)]
pub struct Landmarks68 {
    pub points: [[f32; 2]; 68],
}

fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

impl Landmarks68 {
    /// Eye aspect ratio (Soukupová & Čech 2016), `(|p2 − p6| + |p3 − p5|) / (2 |p1 − p4|)`,
    /// of the eye on the image's left and the one on its right. 0 when an eye has no width.
    pub fn eye_aspect_ratios(&self) -> [f32; 2] {
        [36, 42].map(|a| {
            let p = &self.points[a..a + 6];
            let w = dist(p[0], p[3]);
            if w <= f32::EPSILON {
                0.0
            } else {
                (dist(p[1], p[5]) + dist(p[2], p[4])) / (2.0 * w)
            }
        })
    }

    /// The five points of MTCNN's layout ([`Face::landmarks5`]): eye centres (image
    /// left, image right), nose tip, mouth corners (image left, image right).
    pub fn five(&self) -> [[f32; 2]; 5] {
        let centre = |a: usize| {
            let p = &self.points[a..a + 6];
            [p.iter().map(|q| q[0]).sum::<f32>() / 6.0, p.iter().map(|q| q[1]).sum::<f32>() / 6.0]
        };
        [centre(36), centre(42), self.points[30], self.points[48], self.points[54]]
    }

    /// The distance between the eye centres.
    pub fn inter_ocular(&self) -> f32 {
        let f = self.five();
        dist(f[0], f[1])
    }
}

/// The landmark model, loaded.
#[derive(Clone)]
pub struct Landmarker {
    model: Arc<dyn Model>,
}

impl Landmarker {
    /// Loads `faceplugin-landmark68`.
    pub fn load(runtime: &dyn ModelRuntime) -> Result<Self, ModelError> {
        Ok(Landmarker { model: runtime.load(ids::FACEPLUGIN_LANDMARK68)? })
    }

    /// The 64×64 grey input tensor for `face` and the crop window it was taken from.
    pub fn input(image: &RgbImage, face: &Face) -> Option<(Vec<f32>, Window)> {
        let win = landmark_window(face)?;
        let rgb = resize_linear_rgb(image, win, 64, 64);
        if rgb.len() != 64 * 64 * 3 {
            return None;
        }
        Some((rgb.chunks_exact(3).map(|p| f32::from(js_gray(p[0], p[1], p[2])) / 256.0).collect(), win))
    }

    /// The 68 landmarks of `face` (a face MTCNN found in `image`). Blocking, CPU-bound.
    pub fn landmarks(&self, image: &RgbImage, face: &Face) -> Result<Landmarks68, FaceModelError> {
        let model = self.model.as_ref();
        let (input, win) = Self::input(image, face)
            .ok_or_else(|| FaceModelError::BadCrop { model: model.id().to_string(), reason: format!("face box {:?} has no size", face.rect) })?;
        let out = run_single(model, &[1, 1, 64, 64], &input, 136)?;
        let mut points = [[0f32; 2]; 68];
        for (k, p) in points.iter_mut().enumerate() {
            *p = [win.x as f32 + out[2 * k] * win.w as f32, win.y as f32 + out[2 * k + 1] * win.h as f32];
        }
        Ok(Landmarks68 { points })
    }
}

/// The eye-openness model, loaded.
#[derive(Clone)]
pub struct EyeModel {
    model: Arc<dyn Model>,
}

/// `getEyeBBox` of `fr_eye.js` for one eye (`first` = 36 or 42), on the landmarks
/// truncated to integers as the JS has them: `(x, y, size)`, the square crop. `None`
/// when the crop has no size.
pub fn eye_crop(lm: &Landmarks68, first: usize, img_w: u32, img_h: u32) -> Option<Window> {
    let t = |k: usize, c: usize| f64::from(lm.points[k][c].trunc());
    let cx = ((t(first + 1, 0) + t(first + 2, 0) + t(first + 4, 0) + t(first + 5, 0)) / 4.0).trunc();
    let cy = ((t(first + 1, 1) + t(first + 2, 1) + t(first + 4, 1) + t(first + 5, 1)) / 4.0).trunc();
    let mut size = ((t(first + 3, 0) - t(first, 0)) * 1.6).trunc() as i64;
    let x = ((cx - size as f64 / 2.0).trunc() as i64).max(0);
    let y = ((cy - size as f64 / 2.0).trunc() as i64).max(0);
    let (w, h) = (i64::from(img_w), i64::from(img_h));
    if x + size >= w {
        size = w - x - 1;
    }
    if y + size >= h {
        size = h - y - 1;
    }
    (size > 0 && x < w && y < h).then_some(Window { x, y, w: size, h: size })
}

impl EyeModel {
    /// Loads `faceplugin-eye`.
    pub fn load(runtime: &dyn ModelRuntime) -> Result<Self, ModelError> {
        Ok(EyeModel { model: runtime.load(ids::FACEPLUGIN_EYE)? })
    }

    /// Probability that each eye is closed: the eye on the image's left (36–41), then
    /// the one on its right (42–47). Blocking, CPU-bound.
    pub fn closed_probability(&self, image: &RgbImage, lm: &Landmarks68) -> Result<[f32; 2], FaceModelError> {
        let model = self.model.as_ref();
        let mut p = [0f32; 2];
        for (k, first) in [36, 42].into_iter().enumerate() {
            let win = eye_crop(lm, first, image.width(), image.height())
                .ok_or_else(|| FaceModelError::BadCrop { model: model.id().to_string(), reason: format!("eye {first}..{} has no size", first + 5) })?;
            let rgb = resize_linear_rgb(image, win, 24, 24);
            let input: Vec<f32> = rgb.chunks_exact(3).map(|q| f32::from(js_gray(q[0], q[1], q[2])) / 255.0).collect();
            let out = run_single(model, &[1, 1, 24, 24], &input, 2)?;
            p[k] = softmax(&out)[0];
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic frontal layout: eyes 40 px wide with lids 10 px apart.
    fn layout() -> Landmarks68 {
        let mut points = [[0f32; 2]; 68];
        for (i, p) in points.iter_mut().enumerate() {
            *p = [100.0 + i as f32, 100.0];
        }
        for (a, x0) in [(36, 60.0), (42, 140.0)] {
            points[a] = [x0, 100.0];
            points[a + 1] = [x0 + 13.0, 95.0];
            points[a + 2] = [x0 + 27.0, 95.0];
            points[a + 3] = [x0 + 40.0, 100.0];
            points[a + 4] = [x0 + 27.0, 105.0];
            points[a + 5] = [x0 + 13.0, 105.0];
        }
        Landmarks68 { points }
    }

    #[test]
    fn eye_aspect_ratio_of_a_known_eye() {
        let ear = layout().eye_aspect_ratios();
        assert!((ear[0] - 0.25).abs() < 1e-6 && (ear[1] - 0.25).abs() < 1e-6, "{ear:?}");
        let mut flat = layout();
        for k in [37, 38, 40, 41] {
            flat.points[k][1] = 100.0;
        }
        assert_eq!(flat.eye_aspect_ratios()[0], 0.0);
    }

    #[test]
    fn eye_crop_follows_the_js() {
        let lm = layout();
        // Centre x = (73 + 87 + 87 + 73) / 4 = 80, y = 100; size = 40 × 1.6 = 64.
        assert_eq!(eye_crop(&lm, 36, 640, 480), Some(Window { x: 48, y: 68, w: 64, h: 64 }));
        // Near the right border the size shrinks to fit.
        assert_eq!(eye_crop(&lm, 42, 180, 480).map(|w| (w.x, w.w)), Some((128, 51)));
        // Outside the image: no crop.
        assert_eq!(eye_crop(&lm, 42, 100, 100), None);
    }

    #[test]
    fn five_points_are_eye_centres_nose_and_mouth_corners() {
        let lm = layout();
        let f = lm.five();
        assert_eq!(f[0], [80.0, 100.0]);
        assert_eq!(f[1], [160.0, 100.0]);
        assert!((lm.inter_ocular() - 80.0).abs() < 1e-4);
    }
}
