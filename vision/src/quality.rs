//! Portrait sanity (pipeline stage 3): the API's `portrait_sanity` verdict and score for
//! a selfie, from the decoded image, the faces MTCNN found and, when available, the main
//! face's 68 landmarks and eye-closed probabilities ([`crate::landmarks`]).
//! [`assess_portrait`] is a pure function of those; [`PortraitAnalyzer`] runs the models
//! first.
//!
//! **Checks, in order; the first that fails is the verdict** (the spec returns only the
//! first issue found):
//!
//! | # | verdict | measured | fails when |
//! |---|---|---|---|
//! | 1 | `image_too_dark` | luminance (Rec. 601) of the main face's box: mean | mean < 48 |
//! | 2 | `image_too_bright` | same region: mean, share of pixels with luminance ≥ 250 | mean > 190 or share > 0.25 |
//! | 1–2 | (no face) | the whole image: mean, share ≥ 250, 10th and 90th percentiles | dark: mean < 48 and p90 < 96; bright: share > 0.5, or mean > 190 and p10 > 160 |
//! | 3 | `image_has_no_faces` | faces with detector score ≥ 0.9 | none |
//! | 4 | `image_has_multiple_faces` | other such faces at least 1/3 the main face's height | any |
//! | 5 | `not_qualified` | share of MTCNN's face box outside the image | > 0.10 (the face is cut by the border) |
//! | 6 | `image_too_blur` | sharpness: variance of the 4-neighbour Laplacian of the face box's luminance, resampled to 128 px wide (INTER_AREA; narrower faces at native size), × (128 / mean luminance)² | < 10 |
//! | 7 | `left` / `right` | yaw ([`crate::pose`]): 68 landmarks, else MTCNN's 5 | \|yaw\| > 15°; `left` = the person turned to their own left (nose towards the image's right, yaw > 0) in an unmirrored photo |
//! | 8 | `open_eye,closed_eye` etc. | per eye, `fr_eye.onnx`'s closed probability and the landmark eye aspect ratio (EAR) | some eye has probability ≥ 0.9 and EAR < 0.25; the pair lists the eye on the image's left first |
//! | — | `good` | | every check ran and none failed |
//! | — | `incomplete` | | none of the checks that ran failed, but some did not run (listed in `not_performed`) |
//!
//! The main face is the largest counted face. Exposure comes first because a too dark or
//! too bright photo often hides the face from the detector ("too dark" is the useful
//! answer then). Checks whose inputs are missing are skipped and listed in
//! [`PortraitSanity::skipped`]: eyes without the landmark or eye model; pose falls back
//! to MTCNN's landmarks. A skipped check is never counted as passed: with one skipped,
//! the best verdict is `incomplete`, not `good`.
//!
//! **Score** (0 to 1): each check maps its measurement to a sub-score that is 0.5 at the
//! threshold, 1 comfortably on the good side and 0 far on the bad side (piecewise
//! linear; the anchors are in [`QualityParams`]). A failing verdict's score is that
//! check's sub-score (below 0.5); `good`'s is the lowest sub-score (0.5 or more); the
//! face count checks score 0 when they fail.
//!
//! Not detected: `sunglasses` (the eye model called an eye behind dark sunglasses open in
//! the one test photo that has them, and nothing else here separates them credibly),
//! `not_white_background` (a rule for ID photos, not selfies). Thresholds and the
//! measurements they were calibrated on: docs/VISION.md.

use crate::detect::{BoundingBox, Face};
use crate::landmarks::{EyeModel, Landmarker, Landmarks68};
use crate::pose::{head_pose, HeadPose};
use crate::resize::resize_window_area;
use crate::runtime::ModelRuntime;
use image::RgbImage;
use serde::{Serialize, Serializer};

/// State of one eye in an eye-state verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EyeState {
    OpenEye,
    ClosedEye,
    /// The eye's region is covered: hardly any skin-coloured pixel around the eye
    /// ([`eye_skin_shares`]).
    Sunglasses,
}

impl EyeState {
    pub fn as_str(self) -> &'static str {
        match self {
            EyeState::OpenEye => "open_eye",
            EyeState::ClosedEye => "closed_eye",
            EyeState::Sunglasses => "sunglasses",
        }
    }
}

/// The API's portrait sanity verdicts (those this module can produce).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortraitVerdict {
    /// Every check ran and passed.
    Good,
    /// Nothing that ran failed, but some checks did not run ([`PortraitSanity::skipped`]).
    Incomplete,
    ImageTooBlur,
    ImageTooDark,
    ImageTooBright,
    ImageHasMultipleFaces,
    ImageHasNoFaces,
    /// The face is cut by the image border.
    NotQualified,
    /// The person turned to their own right.
    Right,
    /// The person turned to their own left.
    Left,
    /// Eye states: the eye on the image's left, then the one on its right; at least one
    /// is not `OpenEye`.
    Eyes([EyeState; 2]),
    /// The ID-photo rule ([`apply_white_background_rule`]): the background around the
    /// head is not white.
    NotWhiteBackground,
}

impl PortraitVerdict {
    /// The API string, e.g. `image_too_dark`, `left`, `open_eye,closed_eye`.
    pub fn as_api_string(&self) -> String {
        match self {
            PortraitVerdict::Good => "good".into(),
            PortraitVerdict::Incomplete => "incomplete".into(),
            PortraitVerdict::ImageTooBlur => "image_too_blur".into(),
            PortraitVerdict::ImageTooDark => "image_too_dark".into(),
            PortraitVerdict::ImageTooBright => "image_too_bright".into(),
            PortraitVerdict::ImageHasMultipleFaces => "image_has_multiple_faces".into(),
            PortraitVerdict::ImageHasNoFaces => "image_has_no_faces".into(),
            PortraitVerdict::NotQualified => "not_qualified".into(),
            PortraitVerdict::Right => "right".into(),
            PortraitVerdict::Left => "left".into(),
            PortraitVerdict::Eyes([a, b]) => format!("{},{}", a.as_str(), b.as_str()),
            PortraitVerdict::NotWhiteBackground => "not_white_background".into(),
        }
    }
}

impl Serialize for PortraitVerdict {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_api_string())
    }
}

/// Thresholds (the fail side of each check) and score anchors. Calibration:
/// docs/VISION.md, "Portrait sanity".
#[derive(Debug, Clone)]
pub struct QualityParams {
    /// A detection counts as a face from this MTCNN score on.
    pub min_face_score: f32,
    /// Another face counts for `image_has_multiple_faces` from this share of the main
    /// face's height on.
    pub multiple_min_relative_height: f32,
    /// Mean luminance below this: too dark. Sub-score 0 at 0, 1 at `dark_mean_good`.
    pub dark_mean: f32,
    pub dark_mean_good: f32,
    /// Mean luminance above this: too bright. Sub-score 0 at 255, 1 at `bright_mean_good`.
    pub bright_mean: f32,
    pub bright_mean_good: f32,
    /// Share of pixels with luminance ≥ 250 above this: too bright. Sub-score 0 at 1,
    /// 1 at `clipped_share_good`.
    pub clipped_share: f32,
    pub clipped_share_good: f32,
    /// Without a face, exposure is judged on the whole image, whose content (a dark suit,
    /// a white wall) says less: too dark needs also the 90th percentile below
    /// `whole_dark_p90`; too bright needs a clipped share above `whole_clipped_share`, or
    /// the mean above `bright_mean` with the 10th percentile above `whole_bright_p10`.
    pub whole_dark_p90: f32,
    pub whole_clipped_share: f32,
    pub whole_bright_p10: f32,
    /// Share of the face box outside the image above this: not qualified. Sub-score 0 at
    /// 0.5, 1 at 0.
    pub border_cut_share: f32,
    /// Sharpness below this: too blurred. Sub-score 0 at 0, 1 at `sharpness_good`.
    pub sharpness: f32,
    pub sharpness_good: f32,
    /// |yaw| above this (degrees): turned. Sub-score 0 at 60°, 1 at `yaw_good`.
    pub yaw_deg: f32,
    pub yaw_good: f32,
    /// An eye is closed when the eye model's closed probability is at least this and its
    /// eye aspect ratio below `eye_closed_max_ear`.
    pub eye_closed_probability: f32,
    pub eye_closed_max_ear: f32,
    /// Both eyes are behind sunglasses when less than this share of each one's region
    /// is skin-coloured ([`eye_skin_shares`]).
    pub sunglasses_skin_share: f32,
    /// The ID-photo rule: the background is white when at least this share of it is
    /// white ([`background_white_share`]).
    pub white_background_share: f32,
}

impl Default for QualityParams {
    fn default() -> Self {
        QualityParams {
            min_face_score: 0.9,
            multiple_min_relative_height: 1.0 / 3.0,
            dark_mean: 22.0,
            dark_mean_good: 90.0,
            bright_mean: 190.0,
            bright_mean_good: 160.0,
            clipped_share: 0.25,
            clipped_share_good: 0.05,
            whole_dark_p90: 48.0,
            whole_clipped_share: 0.5,
            whole_bright_p10: 160.0,
            border_cut_share: 0.10,
            sharpness: 10.0,
            sharpness_good: 40.0,
            yaw_deg: 15.0,
            yaw_good: 5.0,
            eye_closed_probability: 0.9,
            eye_closed_max_ear: 0.25,
            sunglasses_skin_share: 0.17,
            white_background_share: 0.8,
        }
    }
}

/// Where exposure was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExposureRegion {
    MainFace,
    WholeImage,
}

/// Everything measured, whatever the verdict (for logs and calibration).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortraitMeasurements {
    /// Faces with score ≥ `min_face_score`.
    pub faces: usize,
    /// Of those, the ones other than the main face at least `multiple_min_relative_height`
    /// of its height.
    pub other_large_faces: usize,
    pub main_face: Option<BoundingBox>,
    pub exposure_region: ExposureRegion,
    pub exposure: Exposure,
    pub border_cut_share: Option<f32>,
    pub sharpness: Option<f32>,
    pub pose: Option<HeadPose>,
    pub eye_aspect_ratios: Option<[f32; 2]>,
    pub eye_closed_probabilities: Option<[f32; 2]>,
    /// Share of skin-coloured pixels around each eye (sunglasses cover them).
    pub eye_skin_shares: Option<[f32; 2]>,
    /// Mean luminance around each eye over the cheeks' (a lens is dark).
    pub eye_darkness: Option<[f32; 2]>,
    /// Share of white pixels in the background beside and above the head (measured on
    /// every portrait; judged only under the ID-photo rule).
    pub background_white_share: Option<f32>,
}

/// The API's `portrait_sanity` (`verdict`, `score`) with what was measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortraitSanity {
    pub verdict: PortraitVerdict,
    pub score: f32,
    pub measurements: PortraitMeasurements,
    /// Checks that could not run (missing model, degenerate landmarks): `pose`, `eyes`.
    pub skipped: Vec<&'static str>,
}

impl PortraitSanity {
    /// The API's `portrait_sanity` object: `verdict`, `score`, and `not_performed` naming
    /// the checks that did not run (absent when every check ran).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({"verdict": self.verdict.as_api_string(), "score": self.score});
        if !self.skipped.is_empty() {
            v["not_performed"] = serde_json::json!(self.skipped);
        }
        v
    }
}

/// What the models said about the main face, when they ran.
#[derive(Debug, Clone, Default)]
pub struct FaceDetail {
    pub landmarks: Option<Landmarks68>,
    /// From [`EyeModel::closed_probability`].
    pub eye_closed_probabilities: Option<[f32; 2]>,
}

/// Piecewise linear: `zero` → 0, `half` → 0.5, `one` → 1, clamped; the anchors may run
/// either way (increasing or decreasing).
fn ramp(x: f32, zero: f32, half: f32, one: f32) -> f32 {
    let seg = |x: f32, a: f32, b: f32, ya: f32| {
        let t = if (b - a).abs() < f32::EPSILON { 1.0 } else { ((x - a) / (b - a)).clamp(0.0, 1.0) };
        ya + 0.5 * t
    };
    let inc = one > zero;
    let below_half = if inc { x < half } else { x > half };
    let v = if below_half { seg(x, zero, half, 0.0) } else { seg(x, half, one, 0.5) };
    if x.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

fn height(f: &Face) -> f32 {
    f.rect[3] - f.rect[1]
}

/// Faces that count (score ≥ `min_face_score`), largest first.
pub fn counted_faces<'a>(faces: &'a [Face], params: &QualityParams) -> Vec<&'a Face> {
    let mut v: Vec<&Face> = faces.iter().filter(|f| f.score >= params.min_face_score).collect();
    v.sort_by(|a, b| {
        let area = |f: &Face| (f.rect[2] - f.rect[0]) * (f.rect[3] - f.rect[1]);
        area(b).total_cmp(&area(a))
    });
    v
}

/// The main face: the largest counted face.
pub fn main_face<'a>(faces: &'a [Face], params: &QualityParams) -> Option<&'a Face> {
    counted_faces(faces, params).into_iter().next()
}

/// Rec. 601 luminance of an RGB pixel, 0 to 255.
fn luminance(p: &[u8]) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// Luminance statistics of a region.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Exposure {
    pub mean: f32,
    /// Share of pixels with luminance ≥ 250.
    pub clipped_share: f32,
    /// 10th and 90th percentiles (whole luminance levels).
    pub p10: f32,
    pub p90: f32,
}

/// Luminance statistics over `region` (the whole image when `None` or empty); all zero
/// for a region with no pixel in the image.
pub fn exposure(image: &RgbImage, region: Option<BoundingBox>) -> Exposure {
    let (w, h) = (image.width() as i32, image.height() as i32);
    let (x0, y0, x1, y1) = match region {
        Some(b) if b.width() > 0 && b.height() > 0 => (b.left.clamp(0, w), b.top.clamp(0, h), b.right.clamp(0, w), b.bottom.clamp(0, h)),
        _ => (0, 0, w, h),
    };
    let raw = image.as_raw();
    let (mut sum, mut clipped, mut n) = (0f64, 0u64, 0u64);
    let mut hist = [0u64; 256];
    for y in y0..y1 {
        let row = &raw[(y as usize * w as usize + x0 as usize) * 3..(y as usize * w as usize + x1 as usize) * 3];
        for p in row.chunks_exact(3) {
            let l = luminance(p);
            sum += f64::from(l);
            clipped += u64::from(l >= 250.0);
            hist[(l.round() as usize).min(255)] += 1;
            n += 1;
        }
    }
    if n == 0 {
        return Exposure { mean: 0.0, clipped_share: 0.0, p10: 0.0, p90: 0.0 };
    }
    let percentile = |q: f64| crate::card_sanity::histogram_percentile(&hist, n, q);
    Exposure { mean: (sum / n as f64) as f32, clipped_share: (clipped as f64 / n as f64) as f32, p10: percentile(0.1), p90: percentile(0.9) }
}

/// Sharpness of the face in `bbox` (see the module doc's table, check 6). `None` for an
/// empty box.
pub fn sharpness(image: &RgbImage, bbox: BoundingBox) -> Option<f32> {
    let (bw, bh) = (bbox.width(), bbox.height());
    if bw < 3 || bh < 3 {
        return None;
    }
    let dw = (bw as usize).min(128);
    let dh = ((bh as f64 * dw as f64 / bw as f64).round() as usize).max(3);
    let rgb = resize_window_area(
        image.as_raw(),
        image.width() as usize,
        image.height() as usize,
        i64::from(bbox.left),
        i64::from(bbox.top),
        bw as usize,
        bh as usize,
        dw,
        dh,
    );
    if rgb.len() != dw * dh * 3 {
        return None;
    }
    let lum: Vec<f32> = rgb.chunks_exact(3).map(|p| 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]).collect();
    let mean = lum.iter().sum::<f32>() / lum.len() as f32;
    let (mut s, mut s2, mut n) = (0f64, 0f64, 0f64);
    for y in 1..dh.saturating_sub(1) {
        for x in 1..dw.saturating_sub(1) {
            let c = lum[y * dw + x];
            let l = lum[(y - 1) * dw + x] + lum[(y + 1) * dw + x] + lum[y * dw + x - 1] + lum[y * dw + x + 1] - 4.0 * c;
            s += f64::from(l);
            s2 += f64::from(l) * f64::from(l);
            n += 1.0;
        }
    }
    if n < 1.0 {
        return None;
    }
    let var = (s2 / n - (s / n) * (s / n)).max(0.0);
    let norm = (128.0 / f64::from(mean.max(1.0))).powi(2);
    Some((var * norm) as f32)
}

/// Share of MTCNN's face box (`Face::rect`) outside the image.
pub fn border_cut_share(face: &Face, img_w: u32, img_h: u32) -> f32 {
    let [x1, y1, x2, y2] = face.rect;
    let area = (x2 - x1) * (y2 - y1);
    if area <= 0.0 || !area.is_finite() {
        return 1.0;
    }
    let (w, h) = (img_w as f32, img_h as f32);
    let inside = (x2.min(w) - x1.max(0.0)).max(0.0) * (y2.min(h) - y1.max(0.0)).max(0.0);
    (1.0 - inside / area).clamp(0.0, 1.0)
}

/// Mean chromaticity `(r, g)` (each channel over the sum) and luminance of the pixels
/// of `img` in the box `(x0, y0, x1, y1)`, clamped to the image.
fn patch_colour(img: &RgbImage, (x0, y0, x1, y1): (f32, f32, f32, f32)) -> Option<([f32; 2], f32)> {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (x0, y0, x1, y1) = (x0.max(0.0) as u32, y0.max(0.0) as u32, x1.min(w) as u32, y1.min(h) as u32);
    let (mut rg, mut lum, mut n) = ([0f32; 2], 0f32, 0f32);
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.get_pixel(x, y).0.map(f32::from);
            let sum = (p[0] + p[1] + p[2]).max(1.0);
            rg[0] += p[0] / sum;
            rg[1] += p[1] / sum;
            lum += 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
            n += 1.0;
        }
    }
    (n >= 4.0).then(|| ([rg[0] / n, rg[1] / n], lum / n))
}

/// Share of skin-coloured pixels in the region any sunglasses lens covers, per eye (the
/// eye on the image's left first): from the eye's corners out by 15% of the eye's width
/// on each side, and from 40% of that width above the eye's centre to 35% below. A
/// pixel is skin-coloured when its chromaticity is within 0.04 of the cheeks' (a patch
/// below each eye, beside the nose) and it is at least 55% as bright; an uncovered eye
/// is mostly eyelid and the skin around it, a lens is glass or plastic of another
/// colour, and darker. Per eye `[skin share, mean luminance over the cheeks']`. `None`
/// when the landmarks are degenerate or a patch is empty.
pub fn eye_skin_shares(image: &RgbImage, lm: &Landmarks68) -> Option<[[f32; 2]; 2]> {
    let iod = lm.inter_ocular();
    if !(iod.is_finite() && iod > 8.0) {
        return None;
    }
    let five = lm.five();
    let nose_y = lm.points[30][1];
    let cheek = |cx: f32| {
        let cy = (five[0][1] + five[1][1]) / 2.0 + 0.62 * (nose_y - (five[0][1] + five[1][1]) / 2.0) + 0.1 * iod;
        let r = 0.12 * iod;
        patch_colour(image, (cx - r, cy - r, cx + r, cy + r))
    };
    let (c1, c2) = (cheek(five[0][0] + 0.1 * iod)?, cheek(five[1][0] - 0.1 * iod)?);
    let skin_rg = [(c1.0[0] + c2.0[0]) / 2.0, (c1.0[1] + c2.0[1]) / 2.0];
    let skin_lum = (c1.1 + c2.1) / 2.0;
    let (w, h) = (image.width() as f32, image.height() as f32);
    let share = |a: usize| -> Option<[f32; 2]> {
        let pts = &lm.points[a..a + 6];
        let (minx, maxx) = pts.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[0]), hi.max(p[0])));
        let ew = (maxx - minx).max(0.2 * iod);
        let cy = pts.iter().map(|p| p[1]).sum::<f32>() / 6.0;
        let (x0, x1) = ((minx - 0.15 * ew).max(0.0), (maxx + 0.15 * ew).min(w));
        let (y0, y1) = ((cy - 0.4 * ew).max(0.0), (cy + 0.35 * ew).min(h));
        let (mut skin, mut n, mut lum_sum) = (0u32, 0u32, 0f32);
        for y in y0 as u32..y1 as u32 {
            for x in x0 as u32..x1 as u32 {
                let p = image.get_pixel(x, y).0.map(f32::from);
                let sum = (p[0] + p[1] + p[2]).max(1.0);
                let (r, g) = (p[0] / sum, p[1] / sum);
                let lum = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
                n += 1;
                lum_sum += lum;
                if (r - skin_rg[0]).abs() < 0.04 && (g - skin_rg[1]).abs() < 0.04 && lum >= 0.55 * skin_lum {
                    skin += 1;
                }
            }
        }
        (n >= 16).then(|| [skin as f32 / n as f32, lum_sum / n as f32 / skin_lum.max(1.0)])
    };
    Some([share(36)?, share(42)?])
}

/// Share of white pixels (luminance ≥ 170 and channels within 30 of each other) in the
/// background of a portrait: the bands left and right of the head (beyond 0.6 face
/// widths from the face box) from the image's top to the chin, and the band above the
/// head (0.6 face heights above the box). `None` when those bands hold less than 3% of
/// the image (a face filling the frame shows no background to judge).
pub fn background_white_share(image: &RgbImage, face: &Face) -> Option<f32> {
    let [x1, y1, x2, y2] = face.rect;
    let (fw, fh) = (x2 - x1, y2 - y1);
    let (w, h) = (image.width(), image.height());
    let left = (x1 - 0.6 * fw).max(0.0) as u32;
    let right = ((x2 + 0.6 * fw).max(0.0) as u32).min(w);
    let chin = (y2.max(0.0) as u32).min(h);
    let top = ((y1 - 0.6 * fh).max(0.0) as u32).min(h);
    let (mut white, mut n) = (0u64, 0u64);
    for y in 0..chin {
        for x in 0..w {
            let beside = x < left || x >= right;
            if !(beside || y < top) {
                continue;
            }
            let p = image.get_pixel(x, y).0;
            let lum = 0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2]);
            let spread = p.iter().max().copied().unwrap_or(0) - p.iter().min().copied().unwrap_or(0);
            n += 1;
            if lum >= 170.0 && spread <= 30 {
                white += 1;
            }
        }
    }
    (n * 100 >= u64::from(w) * u64::from(h) * 3).then(|| white as f32 / n as f32)
}

/// The ID-photo rule, for the operation that checks a portrait for a document
/// (`verify_portrait_sanity_sync`; docs/API.md): a portrait that passed every other
/// check and whose background is not white becomes `not_white_background`. A portrait
/// whose background cannot be seen (the face fills the frame) has `background` added to
/// the checks not performed. Selfies (authentication, comparison, eKYC) are not held to
/// it: a selfie is taken wherever the customer is.
pub fn apply_white_background_rule(mut sanity: PortraitSanity, params: &QualityParams) -> PortraitSanity {
    if !matches!(sanity.verdict, PortraitVerdict::Good | PortraitVerdict::Incomplete) {
        return sanity;
    }
    match sanity.measurements.background_white_share {
        Some(share) if share < params.white_background_share => {
            sanity.verdict = PortraitVerdict::NotWhiteBackground;
            sanity.score = ramp(share, 0.0, params.white_background_share, 1.0).min(0.499);
        }
        Some(_) => {}
        None => {
            sanity.skipped.push("background");
            sanity.verdict = PortraitVerdict::Incomplete;
        }
    }
    sanity
}

/// Portrait sanity of a selfie: `faces` as MTCNN returned them, `detail` what the
/// landmark and eye models said about the main face ([`main_face`]). Pure.
pub fn assess_portrait(image: &RgbImage, faces: &[Face], detail: &FaceDetail, params: &QualityParams) -> PortraitSanity {
    let counted = counted_faces(faces, params);
    let main = counted.first().copied();
    let other_large = main.map_or(0, |m| counted[1..].iter().filter(|f| height(f) >= params.multiple_min_relative_height * height(m)).count());
    let ex = exposure(image, main.map(|f| f.bbox));
    let (luminance_mean, clipped) = (ex.mean, ex.clipped_share);
    let mut m = PortraitMeasurements {
        faces: counted.len(),
        other_large_faces: other_large,
        main_face: main.map(|f| f.bbox),
        exposure_region: if main.is_some() { ExposureRegion::MainFace } else { ExposureRegion::WholeImage },
        exposure: ex,
        border_cut_share: None,
        sharpness: None,
        pose: None,
        eye_aspect_ratios: None,
        eye_closed_probabilities: None,
        eye_skin_shares: None,
        eye_darkness: None,
        background_white_share: main.and_then(|f| background_white_share(image, f)),
    };
    let mut skipped = Vec::new();
    let p = params;
    let dark = ramp(luminance_mean, 0.0, p.dark_mean, p.dark_mean_good);
    let bright = ramp(luminance_mean, 255.0, p.bright_mean, p.bright_mean_good).min(ramp(clipped, 1.0, p.clipped_share, p.clipped_share_good));
    let fail = |verdict, score: f32, m: PortraitMeasurements, skipped| PortraitSanity { verdict, score: score.min(0.499), measurements: m, skipped };
    let (too_dark, too_bright) = if main.is_some() {
        (luminance_mean < p.dark_mean, luminance_mean > p.bright_mean || clipped > p.clipped_share)
    } else {
        (
            luminance_mean < p.dark_mean && ex.p90 < p.whole_dark_p90,
            clipped > p.whole_clipped_share || (luminance_mean > p.bright_mean && ex.p10 > p.whole_bright_p10),
        )
    };
    if too_dark {
        return fail(PortraitVerdict::ImageTooDark, dark, m, skipped);
    }
    if too_bright {
        return fail(PortraitVerdict::ImageTooBright, bright, m, skipped);
    }
    let Some(main) = main else {
        return fail(PortraitVerdict::ImageHasNoFaces, 0.0, m, skipped);
    };
    if other_large > 0 {
        return fail(PortraitVerdict::ImageHasMultipleFaces, 0.0, m, skipped);
    }
    let mut scores = vec![dark, bright];
    let cut = border_cut_share(main, image.width(), image.height());
    m.border_cut_share = Some(cut);
    let cut_score = ramp(cut, 0.5, p.border_cut_share, 0.0);
    if cut > p.border_cut_share {
        return fail(PortraitVerdict::NotQualified, cut_score, m, skipped);
    }
    scores.push(cut_score);
    match sharpness(image, main.bbox) {
        Some(s) => {
            m.sharpness = Some(s);
            let sc = ramp(s, 0.0, p.sharpness, p.sharpness_good);
            if s < p.sharpness {
                return fail(PortraitVerdict::ImageTooBlur, sc, m, skipped);
            }
            scores.push(sc);
        }
        None => skipped.push("blur"),
    }
    match head_pose(main, detail.landmarks.as_ref()) {
        Some(pose) => {
            m.pose = Some(pose);
            let sc = ramp(pose.yaw.abs(), 60.0, p.yaw_deg, p.yaw_good);
            if pose.yaw.abs() > p.yaw_deg {
                // yaw > 0: nose towards the image's right = the person's own left.
                let v = if pose.yaw > 0.0 { PortraitVerdict::Left } else { PortraitVerdict::Right };
                return fail(v, sc, m, skipped);
            }
            scores.push(sc);
        }
        None => skipped.push("pose"),
    }
    match (&detail.landmarks, detail.eye_closed_probabilities) {
        (Some(lm), Some(prob)) => {
            let ear = lm.eye_aspect_ratios();
            m.eye_aspect_ratios = Some(ear);
            m.eye_closed_probabilities = Some(prob);
            let closed = [0, 1].map(|k| prob[k] >= p.eye_closed_probability && ear[k] < p.eye_closed_max_ear);
            // Sunglasses first: behind a dark lens the eye model and the eye aspect
            // ratio see no eye, so their "open" or "closed" means nothing.
            if let Some(cover) = eye_skin_shares(image, lm) {
                let skin = cover.map(|c| c[0]);
                m.eye_skin_shares = Some(skin);
                m.eye_darkness = Some(cover.map(|c| c[1]));
                // Sunglasses cover both eyes: one eye alone with little skin around it
                // is a downcast lid or a shadow (measured on real faces, docs/VISION.md).
                // Darkness is reported, not judged: a mirrored lens reflecting the sky
                // is bright.
                let covered = cover.map(|c| c[0] < p.sunglasses_skin_share);
                if covered.iter().all(|c| *c) {
                    let state = [0, 1].map(|k| {
                        if covered[k] {
                            EyeState::Sunglasses
                        } else if closed[k] {
                            EyeState::ClosedEye
                        } else {
                            EyeState::OpenEye
                        }
                    });
                    let least = skin.iter().cloned().fold(1.0f32, f32::min);
                    return fail(PortraitVerdict::Eyes(state), ramp(least, 0.0, p.sunglasses_skin_share, 0.5), m, skipped);
                }
            }
            if closed.iter().any(|c| *c) {
                let state = closed.map(|c| if c { EyeState::ClosedEye } else { EyeState::OpenEye });
                // 0.5 at the probability threshold, 0 when the model is certain.
                let worst = (0..2).filter(|&k| closed[k]).map(|k| prob[k]).fold(0.0, f32::max);
                let sc = 0.5 * (1.0 - worst) / (1.0 - p.eye_closed_probability).max(1e-6);
                return fail(PortraitVerdict::Eyes(state), sc, m, skipped);
            }
            let worst = prob.iter().zip(ear).map(|(&pr, e)| if e < p.eye_closed_max_ear { pr } else { 0.0 }).fold(0.0, f32::max);
            scores.push(1.0 - 0.5 * (worst / p.eye_closed_probability).min(1.0));
        }
        _ => skipped.push("eyes"),
    }
    let score = scores.into_iter().fold(1.0f32, f32::min).max(0.5);
    let verdict = if skipped.is_empty() { PortraitVerdict::Good } else { PortraitVerdict::Incomplete };
    PortraitSanity { verdict, score, measurements: m, skipped }
}

/// Runs the landmark and eye models on the main face, then [`assess_portrait`]. Models
/// that are not installed are left out (their checks are listed as skipped), never
/// guessed.
#[derive(Clone)]
pub struct PortraitAnalyzer {
    pub landmarker: Option<Landmarker>,
    pub eyes: Option<EyeModel>,
}

/// The face's region with a dim face brought up to mean luminance 90 (gain between 1 and
/// 4; the dark check's `dark_mean_good`), and the landmarks moved into
/// it. Why: the eye model called open eyes of a dim but acceptable photo (half the
/// brightness) closed; a dim room is not a closed eye. Brighter faces are left as they
/// are (gain 1).
fn eye_region_at_standard_exposure(image: &RgbImage, face: &Face, lm: &Landmarks68) -> (RgbImage, Landmarks68) {
    let mean = exposure(image, Some(face.bbox)).mean.max(1.0);
    let gain = (90.0 / mean).clamp(1.0, 4.0);
    let (xs, ys): (Vec<f32>, Vec<f32>) = lm.points[36..48].iter().map(|p| (p[0], p[1])).unzip();
    let (minx, maxx) = xs.iter().fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let (miny, maxy) = ys.iter().fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let margin = (maxx - minx).max(1.0) * 0.6;
    let x0 = (minx - margin).max(0.0).floor() as u32;
    let y0 = (miny - margin).max(0.0).floor() as u32;
    let x1 = ((maxx + margin).ceil().max(0.0) as u32).min(image.width());
    let y1 = ((maxy + margin).ceil().max(0.0) as u32).min(image.height());
    if gain <= 1.0 || x1 <= x0 || y1 <= y0 {
        return (image.clone(), lm.clone());
    }
    let mut crop = image::imageops::crop_imm(image, x0, y0, x1 - x0, y1 - y0).to_image();
    for p in crop.pixels_mut() {
        for c in p.0.iter_mut() {
            *c = (f32::from(*c) * gain).round().min(255.0) as u8;
        }
    }
    let mut shifted = lm.clone();
    for p in shifted.points.iter_mut() {
        p[0] -= x0 as f32;
        p[1] -= y0 as f32;
    }
    (crop, shifted)
}

impl PortraitAnalyzer {
    /// Loads what is installed; logs what is not.
    pub fn load(runtime: &dyn ModelRuntime) -> Self {
        let landmarker = Landmarker::load(runtime).map_err(|e| tracing::warn!(error = %e, "portrait sanity without 68 landmarks")).ok();
        let eyes = EyeModel::load(runtime).map_err(|e| tracing::warn!(error = %e, "portrait sanity without the eye model")).ok();
        PortraitAnalyzer { landmarker, eyes }
    }

    /// The models' view of the main face. A model that fails on this face leaves its
    /// part empty (the check is then skipped).
    pub fn detail(&self, image: &RgbImage, faces: &[Face], params: &QualityParams) -> FaceDetail {
        let Some(face) = main_face(faces, params) else { return FaceDetail::default() };
        let landmarks = self.landmarker.as_ref().and_then(|l| {
            l.landmarks(image, face).map_err(|e| tracing::warn!(error = %e, "landmarks failed")).ok()
        });
        let eye_closed_probabilities = match (&self.eyes, &landmarks) {
            (Some(em), Some(lm)) => {
                let (crop, shifted) = eye_region_at_standard_exposure(image, face, lm);
                em.closed_probability(&crop, &shifted).map_err(|e| tracing::warn!(error = %e, "eye model failed")).ok()
            }
            _ => None,
        };
        FaceDetail { landmarks, eye_closed_probabilities }
    }

    pub fn analyze(&self, image: &RgbImage, faces: &[Face], params: &QualityParams) -> PortraitSanity {
        assess_portrait(image, faces, &self.detail(image, faces, params), params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_anchors() {
        assert_eq!(ramp(0.0, 0.0, 48.0, 90.0), 0.0);
        assert!((ramp(48.0, 0.0, 48.0, 90.0) - 0.5).abs() < 1e-6);
        assert_eq!(ramp(200.0, 0.0, 48.0, 90.0), 1.0);
        // Decreasing anchors.
        assert_eq!(ramp(255.0, 255.0, 190.0, 160.0), 0.0);
        assert!((ramp(190.0, 255.0, 190.0, 160.0) - 0.5).abs() < 1e-6);
        assert_eq!(ramp(100.0, 255.0, 190.0, 160.0), 1.0);
        assert_eq!(ramp(f32::NAN, 0.0, 1.0, 2.0), 0.0);
    }

    #[test]
    fn verdict_strings() {
        assert_eq!(PortraitVerdict::Eyes([EyeState::OpenEye, EyeState::ClosedEye]).as_api_string(), "open_eye,closed_eye");
        assert_eq!(PortraitVerdict::ImageHasNoFaces.as_api_string(), "image_has_no_faces");
        assert_eq!(serde_json::to_string(&PortraitVerdict::Left).ok().as_deref(), Some("\"left\""));
    }

    #[test]
    fn exposure_and_sharpness_of_synthetic_images() {
        let flat = RgbImage::from_pixel(200, 200, image::Rgb([100, 100, 100]));
        let e = exposure(&flat, None);
        assert!((e.mean - 100.0).abs() < 0.01 && e.clipped_share == 0.0 && e.p10 == 100.0 && e.p90 == 100.0, "{e:?}");
        let b = BoundingBox { top: 20, right: 180, bottom: 180, left: 20, angle: 0 };
        assert_eq!(sharpness(&flat, b), Some(0.0));
        let checker = RgbImage::from_fn(200, 200, |x, y| if (x / 4 + y / 4) % 2 == 0 { image::Rgb([40, 40, 40]) } else { image::Rgb([200, 200, 200]) });
        assert!(sharpness(&checker, b).is_some_and(|s| s > 100.0));
        let white = RgbImage::from_pixel(10, 10, image::Rgb([255, 255, 255]));
        assert_eq!(exposure(&white, None), Exposure { mean: 255.0, clipped_share: 1.0, p10: 255.0, p90: 255.0 });
        // Half dark, half bright: the percentiles see both.
        let split = RgbImage::from_fn(100, 10, |x, _| if x < 50 { image::Rgb([20, 20, 20]) } else { image::Rgb([220, 220, 220]) });
        let e = exposure(&split, None);
        assert_eq!((e.p10, e.p90), (20.0, 220.0));
        // A box outside the image: measured on what is inside (nothing → zeros).
        let out = BoundingBox { top: 500, right: 600, bottom: 600, left: 500, angle: 0 };
        assert_eq!(exposure(&flat, Some(out)).mean, 0.0);
    }

    fn face(rect: [f32; 4], score: f32) -> Face {
        let [x1, y1, x2, y2] = rect;
        let bbox = BoundingBox { left: x1.max(0.0) as i32, top: y1.max(0.0) as i32, right: x2 as i32, bottom: y2 as i32, angle: 0 };
        let w = x2 - x1;
        let h = y2 - y1;
        let landmarks5 = [
            [x1 + 0.3 * w, y1 + 0.4 * h],
            [x1 + 0.7 * w, y1 + 0.4 * h],
            [x1 + 0.5 * w, y1 + 0.58 * h],
            [x1 + 0.33 * w, y1 + 0.78 * h],
            [x1 + 0.67 * w, y1 + 0.78 * h],
        ];
        Face { bbox, rect, landmarks5, score }
    }

    #[test]
    fn the_white_background_rule_judges_only_portraits_that_passed() {
        let p = QualityParams::default();
        let f = face([250., 150., 390., 330.], 0.99);
        let white = RgbImage::from_pixel(640, 480, image::Rgb([245, 245, 240]));
        let blue = RgbImage::from_pixel(640, 480, image::Rgb([160, 200, 235]));
        assert!(background_white_share(&white, &f).is_some_and(|s| s > 0.99));
        assert!(background_white_share(&blue, &f).is_some_and(|s| s < 0.01));
        // A face filling the frame shows no background: not judged.
        assert_eq!(background_white_share(&white, &face([-20., -20., 660., 500.], 0.99)), None);
        let sanity = |verdict, share| PortraitSanity {
            verdict,
            score: 0.9,
            measurements: PortraitMeasurements { background_white_share: share, ..assess_portrait(&white, &[], &FaceDetail::default(), &p).measurements },
            skipped: vec![],
        };
        let judged = apply_white_background_rule(sanity(PortraitVerdict::Good, Some(0.3)), &p);
        assert_eq!(judged.verdict, PortraitVerdict::NotWhiteBackground);
        assert!(judged.score < 0.5);
        assert_eq!(apply_white_background_rule(sanity(PortraitVerdict::Good, Some(0.95)), &p).verdict, PortraitVerdict::Good);
        // The first issue found stays the answer.
        assert_eq!(apply_white_background_rule(sanity(PortraitVerdict::ImageTooBlur, Some(0.3)), &p).verdict, PortraitVerdict::ImageTooBlur);
        let unseen = apply_white_background_rule(sanity(PortraitVerdict::Good, None), &p);
        assert_eq!((unseen.verdict, unseen.skipped), (PortraitVerdict::Incomplete, vec!["background"]));
    }

    #[test]
    fn order_of_checks_on_synthetic_input() {
        let p = QualityParams::default();
        let textured = RgbImage::from_fn(400, 400, |x, y| {
            let v = 60 + ((x * 13 + y * 7) % 90) as u8;
            image::Rgb([v, v, v])
        });
        let dark = RgbImage::from_pixel(400, 400, image::Rgb([10, 10, 10]));
        let none = FaceDetail::default();
        // No face, dark image: too dark comes first.
        assert_eq!(assess_portrait(&dark, &[], &none, &p).verdict, PortraitVerdict::ImageTooDark);
        // No face, normal image.
        let r = assess_portrait(&textured, &[], &none, &p);
        assert_eq!((r.verdict, r.score, r.measurements.exposure_region), (PortraitVerdict::ImageHasNoFaces, 0.0, ExposureRegion::WholeImage));
        // A low-score detection does not count.
        assert_eq!(assess_portrait(&textured, &[face([100., 100., 250., 280.], 0.8)], &none, &p).verdict, PortraitVerdict::ImageHasNoFaces);
        // Two faces of similar size; a much smaller one does not count.
        let two = [face([50., 50., 180., 210.], 0.99), face([220., 60., 340., 200.], 0.99)];
        assert_eq!(assess_portrait(&textured, &two, &none, &p).verdict, PortraitVerdict::ImageHasMultipleFaces);
        let small = [face([50., 50., 250., 290.], 0.99), face([300., 60., 340., 110.], 0.99)];
        assert_ne!(assess_portrait(&textured, &small, &none, &p).verdict, PortraitVerdict::ImageHasMultipleFaces);
        // Cut by the border.
        let cut = [face([-100., 50., 100., 290.], 0.99)];
        assert_eq!(assess_portrait(&textured, &cut, &none, &p).verdict, PortraitVerdict::NotQualified);
        // Without landmarks and eye probabilities, eyes are skipped, never guessed.
        let one = [face([100., 80., 300., 320.], 0.99)];
        let r = assess_portrait(&textured, &one, &none, &p);
        assert!(r.skipped.contains(&"eyes"), "{r:?}");
        assert_eq!(r.verdict, PortraitVerdict::Incomplete, "never good over a skipped check: {r:?}");
        assert_eq!(r.to_json()["not_performed"], serde_json::json!(r.skipped), "{r:?}");
        assert!(r.score >= 0.0 && r.score <= 1.0);
    }
}
