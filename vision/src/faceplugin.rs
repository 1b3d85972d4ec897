//! What the models of npm `faceplugin-face-recognition-js` 0.0.1 (`fr_landmark.onnx`,
//! `fr_eye.onnx`, `fr_liveness.onnx`) need around them, reproduced from the package's own
//! JavaScript (`lib/fr_landmark.js`, `lib/fr_eye.js`, `lib/fr_liveness.js`,
//! `lib/fr_detect.js`), which runs them under OpenCV.js:
//!
//! - `cv.imread(canvas)` gives **RGBA**; every crop is `image.roi(rect)` followed by
//!   `cv.resize(crop, size)`, i.e. OpenCV's default `INTER_LINEAR`, reproduced here in its
//!   8-bit fixed-point form ([`resize_linear_rgb`]).
//! - Grey images come from `cv.cvtColor(rgba, COLOR_BGR2GRAY)`: OpenCV then reads the
//!   first channel as blue, so red gets blue's weight and blue red's ([`js_gray`]). The
//!   JS does this for the landmark and eye models and it is kept (measured: swapping the
//!   weights back moves the landmarks by under 0.5% of the inter-ocular distance).
//! - The models were run on the boxes of the package's own detector (`fr_detect.onnx`),
//!   squared to the detector's box height (`scaleResult`). This crate detects with MTCNN,
//!   so [`faceplugin_box`] maps an MTCNN box to the box `fr_detect` would give, with a
//!   mapping fitted on the test photos (docs/VISION.md, "faceplugin box").
//!
//! Deliberate difference: a landmark crop that extends past the image border is padded
//! with black ([`landmark_window`]) where the JS clamps the box and stretches the crop;
//! measured on the two border-cut test photos, padding halves the landmark error (mean
//! distance to MTCNN's points 0.037 vs 0.071 and 0.065 vs 0.101 of the inter-ocular
//! distance). Inside the image both give the same window.

use crate::detect::Face;
use crate::runtime::{Model, ModelError};
use image::RgbImage;
use ndarray::{ArrayD, ArrayViewD, IxDyn};

/// Why one of these models could not give an answer. [`FaceModelError::is_not_installed`]
/// means "not performed" (deployment problem); the others mean this input could not be
/// processed (a box of no size, a degenerate eye crop) or the model misbehaved.
#[derive(Debug, thiserror::Error)]
pub enum FaceModelError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("model {model} returned {what}")]
    UnexpectedOutput { model: String, what: String },
    #[error("cannot crop for {model}: {reason}")]
    BadCrop { model: String, reason: String },
}

impl FaceModelError {
    /// The model or the runtime is not installed: report "not performed".
    pub fn is_not_installed(&self) -> bool {
        matches!(self, FaceModelError::Model(e) if e.is_not_installed())
    }
}

/// A crop window in image pixels; it may extend past the image (those pixels are black).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
}

/// The box `fr_detect.onnx` + `scaleResult` would give for the face MTCNN found, as
/// `[x1, y1, x2, y2]` (not clamped): a square of side 0.965 × MTCNN's larger side,
/// centred 0.016 × that side above MTCNN's centre. Fitted on the 26 faces both detectors
/// find in the test photos (border-cut faces left out): median ratio of `fr_detect`'s
/// side to MTCNN's height 0.964 (spread ±6%), centre offset +1.8% / −1.6% of the size
/// (x / y; x is not applied, it is within the spread).
pub fn faceplugin_box(face: &Face) -> [f32; 4] {
    let [x1, y1, x2, y2] = face.rect;
    let side = (x2 - x1).max(y2 - y1);
    let cx = (x1 + x2) * 0.5;
    let cy = (y1 + y2) * 0.5 - 0.016 * side;
    let s = 0.965 * side;
    [cx - s * 0.5, cy - s * 0.5, cx + s * 0.5, cy + s * 0.5]
}

/// `fr_detect.js` `scaleResult` clamps its boxes to `[0, w − 1] × [0, h − 1]`; the liveness
/// crop starts from such a box.
pub fn clamp_box(b: [f32; 4], img_w: u32, img_h: u32) -> [f32; 4] {
    let (w, h) = ((img_w as f32 - 1.0).max(0.0), (img_h as f32 - 1.0).max(0.0));
    [b[0].max(0.0), b[1].max(0.0), b[2].min(w), b[3].min(h)]
}

/// The JS's `parseInt` of the box corners and `width = |x2 − x1|`, `height = |y2 − y1|`:
/// `(x1, y1, width, height)`.
pub fn js_int_box(b: [f32; 4]) -> (i64, i64, i64, i64) {
    let t = |v: f32| v.trunc() as i64;
    let (x1, y1, x2, y2) = (t(b[0]), t(b[1]), t(b[2]), t(b[3]));
    (x1, y1, (x2 - x1).abs(), (y2 - y1).abs())
}

/// `alignLivenessImage` / `alignLandmarkImage` of the JS (the crop of Silent-Face-Anti-
/// Spoofing's `CropImage`): the box scaled by `scale` about its centre (less if the image
/// is too small), shifted back inside the image, truncated to integers. `None` for a box
/// of no size.
pub fn js_align_window(img_w: u32, img_h: u32, (x, y, bw, bh): (i64, i64, i64, i64), scale_value: f64) -> Option<Window> {
    if bw <= 0 || bh <= 0 || img_w < 2 || img_h < 2 {
        return None;
    }
    let (src_w, src_h) = (f64::from(img_w), f64::from(img_h));
    let (x, y, bw, bh) = (x as f64, y as f64, bw as f64, bh as f64);
    let scale = ((src_h - 1.0) / bh).min((src_w - 1.0) / bw).min(scale_value);
    let (nw, nh) = (bw * scale, bh * scale);
    let (cx, cy) = (bw / 2.0 + x, bh / 2.0 + y);
    let (mut ltx, mut lty, mut rbx, mut rby) = (cx - nw / 2.0, cy - nh / 2.0, cx + nw / 2.0, cy + nh / 2.0);
    if ltx < 0.0 {
        rbx -= ltx;
        ltx = 0.0;
    }
    if lty < 0.0 {
        rby -= lty;
        lty = 0.0;
    }
    if rbx > src_w - 1.0 {
        ltx -= rbx - src_w + 1.0;
        rbx = src_w - 1.0;
    }
    if rby > src_h - 1.0 {
        lty -= rby - src_h + 1.0;
        rby = src_h - 1.0;
    }
    // cv.Rect(max(int(ltx), 0), max(int(lty), 0), min(int(rbx − ltx), w − 1), min(int(rby − lty), h − 1))
    let win = Window {
        x: (ltx.trunc() as i64).max(0),
        y: (lty.trunc() as i64).max(0),
        w: ((rbx - ltx).trunc() as i64).min(i64::from(img_w) - 1),
        h: ((rby - lty).trunc() as i64).min(i64::from(img_h) - 1),
    };
    // OpenCV's roi() would throw on a rect outside the image; the arithmetic above keeps
    // it inside, this is a guard against float surprises.
    let inside = win.w > 0 && win.h > 0 && win.x + win.w <= i64::from(img_w) && win.y + win.h <= i64::from(img_h);
    inside.then_some(win)
}

/// The landmark model's crop: the integer box of [`faceplugin_box`] itself (the JS aligns
/// with scale 1.0, which inside the image is the box), padded with black where it leaves
/// the image. Returns the window; landmarks map back as `x1 + u · w`, `y1 + v · h`.
pub fn landmark_window(face: &Face) -> Option<Window> {
    let (x, y, w, h) = js_int_box(faceplugin_box(face));
    (w > 0 && h > 0).then_some(Window { x, y, w, h })
}

/// OpenCV's fixed-point scale for `INTER_LINEAR` on 8-bit images.
const COEF_SCALE: f32 = 2048.0;

/// Per destination index: the two source indices (clamped) and their fixed-point weights,
/// as OpenCV's `resize` computes them for `INTER_LINEAR` (`fx = (dx + 0.5)·scale − 0.5`,
/// weights `saturate_cast<short>((1 − fx)·2048)`, `saturate_cast<short>(fx·2048)`).
/// `reset_at_border`: on the x axis OpenCV sets `fx = 0` where the tap leaves the source;
/// on the y axis it only clamps the row index.
fn linear_taps(src: usize, dst: usize, reset_at_border: bool) -> Vec<(usize, usize, i64, i64)> {
    // As OpenCV: inv_scale = dst / src, scale = 1 / inv_scale (not src / dst: the last
    // bit differs now and then, and with it a rounded weight).
    let scale = 1.0 / (dst as f64 / src as f64);
    (0..dst)
        .map(|d| {
            let f = ((d as f64 + 0.5) * scale - 0.5) as f32;
            let mut s = f.floor() as i64;
            let mut f = f - s as f32;
            if reset_at_border {
                if s < 0 {
                    f = 0.0;
                    s = 0;
                }
                if s >= src as i64 - 1 {
                    f = 0.0;
                    s = src as i64 - 1;
                }
            }
            let a0 = ((1.0 - f) * COEF_SCALE).round_ties_even() as i64;
            let a1 = (f * COEF_SCALE).round_ties_even() as i64;
            let last = src as i64 - 1;
            (s.clamp(0, last) as usize, (s + 1).clamp(0, last) as usize, a0, a1)
        })
        .collect()
}

/// `cv.resize(image.roi(window), (dw, dh))` with OpenCV's default `INTER_LINEAR` on an
/// 8-bit 3-channel image, in OpenCV's fixed-point arithmetic (`HResizeLinear`, then the
/// vectorised `VResizeLinear`). Checked against opencv-python-headless 5.0 (x86) on 40
/// random sizes of random images: identical to the unit. OpenCV's plain-C path (a build
/// without SIMD, possibly OpenCV.js) rounds the vertical pass differently: ±1 on ~12% of
/// the values. OpenCV's special case of an exact 2× shrink (handed to `INTER_AREA`) is
/// reproduced too. Window pixels outside the image are black. Returns interleaved RGB,
/// empty if a size is 0.
pub fn resize_linear_rgb(img: &RgbImage, win: Window, dw: usize, dh: usize) -> Vec<u8> {
    if win.w <= 0 || win.h <= 0 || dw == 0 || dh == 0 {
        return Vec::new();
    }
    let (sw, sh) = (win.w as usize, win.h as usize);
    let (iw, ih) = (i64::from(img.width()), i64::from(img.height()));
    let raw = img.as_raw();
    let px = |sx: usize, sy: usize, c: usize| -> i64 {
        let (x, y) = (win.x + sx as i64, win.y + sy as i64);
        if x < 0 || y < 0 || x >= iw || y >= ih {
            0
        } else {
            i64::from(raw[((y * iw + x) * 3) as usize + c])
        }
    };
    let mut out = vec![0u8; dw * dh * 3];
    if sw == 2 * dw && sh == 2 * dh {
        // INTER_AREA fast path: the mean of each 2×2 block, rounded.
        for dy in 0..dh {
            for dx in 0..dw {
                for c in 0..3 {
                    let s = px(2 * dx, 2 * dy, c) + px(2 * dx + 1, 2 * dy, c) + px(2 * dx, 2 * dy + 1, c) + px(2 * dx + 1, 2 * dy + 1, c);
                    out[(dy * dw + dx) * 3 + c] = ((s + 2) >> 2) as u8;
                }
            }
        }
        return out;
    }
    let xt = linear_taps(sw, dw, true);
    let yt = linear_taps(sh, dh, false);
    // Horizontal pass for one source row: dw × 3 values scaled by 2048.
    let hrow = |sy: usize| -> Vec<i64> {
        let mut r = vec![0i64; dw * 3];
        for (dx, &(s0, s1, a0, a1)) in xt.iter().enumerate() {
            for c in 0..3 {
                r[dx * 3 + c] = if s0 == s1 { px(s0, sy, c) * COEF_SCALE as i64 } else { px(s0, sy, c) * a0 + px(s1, sy, c) * a1 };
            }
        }
        r
    };
    let mut cache: Vec<Option<Vec<i64>>> = vec![None; sh];
    for (dy, &(r0, r1, b0, b1)) in yt.iter().enumerate() {
        for r in [r0, r1] {
            if cache[r].is_none() {
                cache[r] = Some(hrow(r));
            }
        }
        let (Some(row0), Some(row1)) = (&cache[r0], &cache[r1]) else { continue };
        for i in 0..dw * 3 {
            // OpenCV's vectorised rounding (`VResizeLinearVec_32s8u`), which every native
            // build (x86 SSE/AVX, ARM NEON) uses: ((b0·(r0 >> 4)) >> 16) + ((b1·(r1 >> 4)) >> 16) + 2) >> 2.
            let v = (((b0 * (row0[i] >> 4)) >> 16) + ((b1 * (row1[i] >> 4)) >> 16) + 2) >> 2;
            out[dy * dw * 3 + i] = v.clamp(0, 255) as u8;
        }
        // Rows above the current ones are not needed again (taps only move down).
        if r0 > 0 {
            cache[r0 - 1] = None;
        }
    }
    out
}

/// `cv.cvtColor(rgba, COLOR_BGR2GRAY)` on an RGB(A) pixel, as the JS calls it: OpenCV's
/// 8-bit fixed-point weights (`B2Y` 3735, `G2Y` 19235, `R2Y` 9798, shift 15; identical to
/// opencv-python 5.0 on 160,000 random pixels) with the red channel read as blue.
pub fn js_gray(r: u8, g: u8, b: u8) -> u8 {
    ((u32::from(r) * 3735 + u32::from(g) * 19235 + u32::from(b) * 9798 + (1 << 14)) >> 15) as u8
}

/// Softmax of a logit vector (the JS's `softmax`, computed stably).
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = logits.iter().map(|v| (v - max).exp()).collect();
    let sum: f32 = e.iter().sum();
    e.into_iter().map(|v| v / sum).collect()
}

/// Runs a single-input model on `data` shaped `shape` and returns its only output,
/// checking that it holds exactly `want` finite numbers.
pub fn run_single(model: &dyn Model, shape: &[usize], data: &[f32], want: usize) -> Result<Vec<f32>, FaceModelError> {
    let unexpected = |what: String| FaceModelError::UnexpectedOutput { model: model.id().to_string(), what };
    let input = ArrayViewD::from_shape(IxDyn(shape), data).map_err(|e| unexpected(format!("an input shape error: {e}")))?;
    let out: Vec<ArrayD<f32>> = model.run(&[input])?;
    let first = out.into_iter().next().ok_or_else(|| unexpected("no output".into()))?;
    if first.len() != want {
        return Err(unexpected(format!("an output of shape {:?}, expected {want} values", first.shape())));
    }
    let v: Vec<f32> = first.iter().copied().collect();
    if v.iter().any(|x| !x.is_finite()) {
        return Err(unexpected("a non-finite value".into()));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| image::Rgb([(x * 7 + y * 3) as u8, (x * 2 + y * 11) as u8, (255 - x - y) as u8]))
    }

    #[test]
    fn same_size_resize_is_a_copy() {
        let img = ramp(20, 15);
        let out = resize_linear_rgb(&img, Window { x: 0, y: 0, w: 20, h: 15 }, 20, 15);
        assert_eq!(out, img.as_raw().clone());
    }

    #[test]
    fn resize_of_a_constant_is_constant_and_outside_is_black() {
        let img = RgbImage::from_pixel(30, 30, image::Rgb([200, 100, 50]));
        let out = resize_linear_rgb(&img, Window { x: 3, y: 4, w: 17, h: 13 }, 64, 64);
        assert!(out.chunks(3).all(|p| p == [200, 100, 50]), "{:?}", &out[..9]);
        // Window entirely outside: black.
        let out = resize_linear_rgb(&img, Window { x: 100, y: 100, w: 10, h: 10 }, 4, 4);
        assert!(out.iter().all(|&v| v == 0));
        assert!(resize_linear_rgb(&img, Window { x: 0, y: 0, w: 0, h: 10 }, 4, 4).is_empty());
    }

    /// Numbers from OpenCV 5.0 (`cv2.resize(a, (3, 2))`, INTER_LINEAR, x86) on the 7×5
    /// ramp `a[y, x] = 10·x + 37·y` in 3 channels (the plain-C rounding would give 174
    /// for the last value).
    #[test]
    fn matches_opencv_on_a_small_case() {
        let img = RgbImage::from_fn(7, 5, |x, y| {
            let v = (10 * x + 37 * y) as u8;
            image::Rgb([v, v, v])
        });
        let out = resize_linear_rgb(&img, Window { x: 0, y: 0, w: 7, h: 5 }, 3, 2);
        let got: Vec<u8> = out.chunks(3).map(|p| p[0]).collect();
        assert_eq!(got, vec![34, 58, 81, 127, 150, 173]);
    }

    #[test]
    fn align_window_matches_the_js() {
        // A 100×100 box in the middle of a 640×480 image, scale 2.7: 270×270 centred.
        let w = js_align_window(640, 480, (270, 190, 100, 100), 2.7).expect("window");
        assert_eq!(w, Window { x: 185, y: 105, w: 270, h: 270 });
        // Near the left border: shifted right to start at 0.
        let w = js_align_window(640, 480, (10, 190, 100, 100), 2.7).expect("window");
        assert_eq!((w.x, w.w), (0, 270));
        // Box bigger than the image allows: the scale shrinks to fit.
        let w = js_align_window(640, 480, (200, 100, 300, 300), 2.7).expect("window");
        assert!(w.h <= 479 && w.y >= 0 && w.y + w.h <= 480, "{w:?}");
        assert_eq!(js_align_window(640, 480, (0, 0, 0, 10), 2.7), None);
    }

    #[test]
    fn gray_uses_the_swapped_weights_of_the_js() {
        assert_eq!(js_gray(255, 255, 255), 255);
        assert_eq!(js_gray(0, 0, 0), 0);
        // Pure red is weighted like blue (0.114), pure blue like red (0.299).
        assert_eq!(js_gray(255, 0, 0), 29);
        assert_eq!(js_gray(0, 0, 255), 76);
    }

    #[test]
    fn softmax_sums_to_one() {
        let p = softmax(&[1.0, 2.0, 3.0]);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(p[2] > p[1] && p[1] > p[0]);
        let p = softmax(&[1000.0, 0.0]);
        assert!((p[0] - 1.0).abs() < 1e-6);
    }
}

#[cfg(test)]
mod registry_tests {
    use crate::registry::{ids, EntryKind, Registry};

    #[test]
    fn the_manifest_lists_the_faceplugin_models() {
        let r = Registry::builtin().expect("manifest parses");
        for id in [ids::FACEPLUGIN_LANDMARK68, ids::FACEPLUGIN_EYE, ids::FACEPLUGIN_LIVENESS] {
            let e = r.get(id).expect("listed");
            assert_eq!((e.kind, e.version.as_str()), (EntryKind::Model, "0.0.1"));
            let p = r.package(&e.package).expect("package listed");
            assert_eq!((p.registry.as_str(), p.name.as_str()), ("npm", "faceplugin-face-recognition-js"));
        }
    }
}
