//! Deblurring a photographed card before OCR.
//!
//! Why: a card photographed slightly out of focus is still readable to a person (its
//! number, names and dates stand out) while Tesseract reads almost nothing of it; card
//! sanity answers `image_too_blur` for it, but the caller also gets whatever could be
//! read. Undoing the blur before OCR turns that "almost nothing" into most fields.
//!
//! How: Wiener deconvolution with a Gaussian point-spread function of the blur card
//! sanity measured (`card_sanity`'s edge blur σ̂, see [`sigma_for_deblur`]), on the
//! luminance only (OCR reads grey). In the Fourier domain the blurred image is
//! `B = H·S + N` with `H(f) = exp(−2π²σ²|f|²)`; the estimate is `Ŝ = B·H / (H² + k)`,
//! `k` the noise-to-signal ratio ([`noise_to_signal`]): where the blur left more signal
//! than noise the frequency is restored, where it left less it is let go (an exact
//! inverse `1/H` would amplify the noise there without bound). The image is mirrored
//! at its borders before transforming so the transform's wrap-around does not ring at
//! the edges.
//!
//! A real defocus blur is closer to a disk than a Gaussian and motion blur is a line:
//! a Gaussian of the measured width still undoes most of a defocus; a motion blur is
//! not undone (nothing here estimates a direction).

use image::GrayImage;
use rustfft::num_complex::Complex32;
use rustfft::FftPlanner;

/// Smallest noise-to-signal ratio the Wiener filter is given ([`noise_to_signal`]): the
/// noise measure cannot see what JPEG compression smoothed away, and below this the
/// filter's gain (up to 1/(2√k), 16× here) lifts compression artefacts into strokes.
pub const MIN_NOISE_TO_SIGNAL: f32 = 0.001;

/// The Wiener filter's noise-to-signal power ratio for `gray`: the noise variance
/// measured by Immerkær's method (the image convolved with a mask that cancels
/// planes and, nearly, a blurred image's smooth shapes: σ_n = √(π/2)·mean|response|/6)
/// over the image's variance, at least [`MIN_NOISE_TO_SIGNAL`]. A noisy photo is then
/// sharpened less, a clean one more.
pub fn noise_to_signal(gray: &GrayImage) -> f32 {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    if w < 3 || h < 3 {
        return MIN_NOISE_TO_SIGNAL;
    }
    let px = |x: usize, y: usize| f64::from(gray.as_raw()[y * w + x]);
    let mut abs_sum = 0.0;
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let corners = px(x - 1, y - 1) + px(x + 1, y - 1) + px(x - 1, y + 1) + px(x + 1, y + 1);
            let sides = px(x, y - 1) + px(x - 1, y) + px(x + 1, y) + px(x, y + 1);
            abs_sum += (corners - 2.0 * sides + 4.0 * px(x, y)).abs();
        }
    }
    let n = ((w - 2) * (h - 2)) as f64;
    let noise_sigma = (std::f64::consts::FRAC_PI_2).sqrt() * abs_sum / (6.0 * n);
    let count = (w * h) as f64;
    let mean = gray.as_raw().iter().map(|&v| f64::from(v)).sum::<f64>() / count;
    let variance = gray.as_raw().iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / count;
    if variance <= 0.0 {
        return MIN_NOISE_TO_SIGNAL;
    }
    ((noise_sigma * noise_sigma / variance) as f32).max(MIN_NOISE_TO_SIGNAL)
}

/// Measured edge blur (σ̂ at `card_sanity::WORK_WIDTH`) from which a card is deblurred
/// before OCR. Clean synthetic captures measure 0.15–0.40; a card that is already
/// sharp enough is left alone (deconvolving with a wrong, small σ only adds ringing).
pub const DEBLUR_FROM_SIGMA: f32 = 1.0;

/// The Gaussian σ, in pixels of an image `width` wide, to deblur with, from card
/// sanity's edge blur σ̂ measured at `work_width`. σ̂ is exact for a blurred step edge;
/// printed text is mostly thin strokes, for which the measure reads low (a stroke's
/// gradient energy falls faster with blur than an edge's): σ = [`SIGMA_AT_ZERO`] +
/// [`SIGMA_PER_MEASURED`]·σ̂, a straight line fitted on the six card types' flat
/// fronts blurred by σ 2–4.5 (the test
/// `the_deblur_sigma_follows_a_known_blur_on_every_card_type` in `tests/src/card_gen.rs`
/// measures it: within 15 % of the true σ on every type).
pub fn sigma_for_deblur(measured_blur_sigma: f32, work_width: u32, width: u32) -> Option<f32> {
    if !(measured_blur_sigma.is_finite() && measured_blur_sigma >= DEBLUR_FROM_SIGMA) || work_width == 0 {
        return None;
    }
    Some((SIGMA_AT_ZERO + SIGMA_PER_MEASURED * measured_blur_sigma) * width as f32 / work_width as f32)
}

/// Offset of the σ̂ → σ line ([`sigma_for_deblur`]), working pixels.
pub const SIGMA_AT_ZERO: f32 = 1.05;
/// Slope of the σ̂ → σ line ([`sigma_for_deblur`]).
pub const SIGMA_PER_MEASURED: f32 = 1.13;

/// Largest image deblurred (pixels): a flattened card is 1200 px wide, under 1 MP; the
/// transform's two complex buffers cost 16 bytes a pixel (with the mirrored margins), so
/// this bounds a deblur's memory to about 60 MB.
pub const MAX_PIXELS: usize = 3_000_000;

/// Wiener deconvolution of `gray` for a Gaussian blur of `sigma` pixels (module doc).
/// Returns the image unchanged when `sigma` is not a positive finite number, or when
/// the image is empty or larger than [`MAX_PIXELS`].
pub fn wiener_deblur(gray: &GrayImage, sigma: f32, noise_to_signal: f32) -> GrayImage {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    if !(sigma.is_finite() && sigma > 0.0) || w == 0 || h == 0 || w.saturating_mul(h) > MAX_PIXELS || !(noise_to_signal.is_finite() && noise_to_signal > 0.0) {
        return gray.clone();
    }
    // Mirror margin: the Gaussian is negligible past 4σ.
    let pad = (4.0 * sigma).ceil() as usize + 8;
    let (pw, ph) = (smooth_size(w + 2 * pad), smooth_size(h + 2 * pad));
    let src = gray.as_raw();
    let mut buf: Vec<Complex32> = Vec::with_capacity(pw * ph);
    for y in 0..ph {
        let sy = mirror(y as isize - pad as isize, h);
        let row = &src[sy * w..(sy + 1) * w];
        for x in 0..pw {
            let sx = mirror(x as isize - pad as isize, w);
            buf.push(Complex32::new(f32::from(row[sx]), 0.0));
        }
    }

    let mut planner = FftPlanner::<f32>::new();
    let (row_fwd, row_inv) = (planner.plan_fft_forward(pw), planner.plan_fft_inverse(pw));
    let (col_fwd, col_inv) = (planner.plan_fft_forward(ph), planner.plan_fft_inverse(ph));

    // Rows, then columns (as rows of the transpose), filter, and back.
    row_fwd.process(&mut buf);
    let mut t = transpose(&buf, pw, ph);
    drop(buf);
    col_fwd.process(&mut t);
    let two_pi2_s2 = 2.0 * std::f32::consts::PI.powi(2) * sigma * sigma;
    let fx2: Vec<f32> = (0..pw).map(|i| freq(i, pw).powi(2)).collect();
    for (x, column) in t.chunks_exact_mut(ph).enumerate() {
        for (y, v) in column.iter_mut().enumerate() {
            let otf = (-two_pi2_s2 * (fx2[x] + freq(y, ph).powi(2))).exp();
            *v *= otf / (otf * otf + noise_to_signal);
        }
    }
    col_inv.process(&mut t);
    let mut back = transpose(&t, ph, pw);
    drop(t);
    row_inv.process(&mut back);

    let norm = 1.0 / (pw * ph) as f32;
    GrayImage::from_fn(w as u32, h as u32, |x, y| {
        let v = back[(y as usize + pad) * pw + x as usize + pad].re * norm;
        image::Luma([v.round().clamp(0.0, 255.0) as u8])
    })
}

/// Frequency of FFT bin `i` of `n`, cycles per pixel (as numpy's `fftfreq`).
fn freq(i: usize, n: usize) -> f32 {
    let i = if i <= n / 2 { i as f32 } else { i as f32 - n as f32 };
    i / n as f32
}

/// Index `i` reflected into `0..n` (…, 1, 0, 0, 1, …, n−1, n−1, n−2, …).
fn mirror(i: isize, n: usize) -> usize {
    let n = n as isize;
    let period = 2 * n;
    let m = i.rem_euclid(period);
    (if m < n { m } else { period - 1 - m }) as usize
}

/// The smallest size ≥ `n` whose only prime factors are 2, 3 and 5 (fast transforms).
fn smooth_size(n: usize) -> usize {
    (n.max(1)..).find(|&m| {
        let mut r = m;
        for p in [2, 3, 5] {
            while r % p == 0 {
                r /= p;
            }
        }
        r == 1
    })
    .unwrap_or(n)
}

/// `src` (`rows` rows of `cols`) transposed.
fn transpose(src: &[Complex32], cols: usize, rows: usize) -> Vec<Complex32> {
    let mut out = vec![Complex32::new(0.0, 0.0); src.len()];
    for (y, row) in src.chunks_exact(cols).enumerate() {
        for (x, v) in row.iter().enumerate() {
            out[x * rows + y] = *v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bars of a few widths, like strokes of print, on a light background.
    fn strokes(w: u32, h: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            let band = (y / 20) % 4;
            let period = 12 + band * 4;
            let dark = (x / period) % 2 == 0 && x > 10 && x + 10 < w && y > 10 && y + 10 < h;
            image::Luma([if dark { 40 } else { 220 }])
        })
    }

    fn mean_abs_diff(a: &GrayImage, b: &GrayImage) -> f32 {
        let n = a.as_raw().len().max(1) as f32;
        a.as_raw().iter().zip(b.as_raw()).map(|(&p, &q)| (f32::from(p) - f32::from(q)).abs()).sum::<f32>() / n
    }

    #[test]
    fn a_gaussian_blur_is_mostly_undone() {
        let sharp = strokes(240, 160);
        let blurred = image::imageops::blur(&sharp, 3.0);
        let restored = wiener_deblur(&blurred, 3.0, MIN_NOISE_TO_SIGNAL);
        let (before, after) = (mean_abs_diff(&blurred, &sharp), mean_abs_diff(&restored, &sharp));
        assert!(after < 0.75 * before, "deblurred {after} vs blurred {before}");
        // A somewhat wrong σ (the measure is approximate) still helps.
        for s in [2.5, 3.5] {
            let r = wiener_deblur(&blurred, s, MIN_NOISE_TO_SIGNAL);
            assert!(mean_abs_diff(&r, &sharp) < 0.85 * before, "σ {s}");
        }
    }

    #[test]
    fn the_size_is_kept_and_nonsense_sigmas_change_nothing() {
        let img = strokes(101, 37);
        assert_eq!(wiener_deblur(&img, 2.0, MIN_NOISE_TO_SIGNAL).dimensions(), (101, 37));
        for s in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(wiener_deblur(&img, s, MIN_NOISE_TO_SIGNAL), img);
        }
        assert_eq!(wiener_deblur(&GrayImage::new(0, 0), 2.0, MIN_NOISE_TO_SIGNAL).dimensions(), (0, 0));
        // Past the size bound: unchanged (and no transform's memory spent).
        let tall = GrayImage::from_fn(1, MAX_PIXELS as u32 + 1, |_, y| image::Luma([(y % 200) as u8]));
        assert_eq!(wiener_deblur(&tall, 2.0, MIN_NOISE_TO_SIGNAL), tall);
        // A flat image stays flat (no ringing from the borders).
        let flat = GrayImage::from_pixel(64, 48, image::Luma([128]));
        assert!(wiener_deblur(&flat, 3.0, MIN_NOISE_TO_SIGNAL).pixels().all(|p| p.0[0].abs_diff(128) <= 1));
    }

    #[test]
    fn mirror_and_smooth_sizes() {
        let got: Vec<usize> = (-3..7).map(|i| mirror(i, 3)).collect();
        assert_eq!(got, vec![2, 1, 0, 0, 1, 2, 2, 1, 0, 0]);
        assert_eq!(smooth_size(1), 1);
        assert_eq!(smooth_size(7), 8);
        assert_eq!(smooth_size(1217), 1250);
        assert_eq!(smooth_size(1024), 1024);
    }

    #[test]
    fn only_a_blurred_card_is_deblurred() {
        assert_eq!(sigma_for_deblur(0.4, 1000, 1200), None);
        assert_eq!(sigma_for_deblur(f32::INFINITY, 1000, 1200), None);
        assert_eq!(sigma_for_deblur(2.0, 0, 1200), None);
        let s = sigma_for_deblur(2.0, 1000, 1200).unwrap_or_default();
        assert!((s - (SIGMA_AT_ZERO + 2.0 * SIGMA_PER_MEASURED) * 1.2).abs() < 1e-5);
    }
}
