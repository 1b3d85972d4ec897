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
//!
//! A lens's disk is undone in linear light ([`wiener_deblur_disk`]): the lens spreads
//! light, and the camera encodes it (sRGB's curve) only after; deconvolving the
//! encoded values undoes another blur, one that spreads dark print on white paper
//! further than the lens did. Decoding first and encoding after took the independent
//! card set's defocused captures (seeds 3, 5, 7, 9, 11, 12: 72 cards, 576 values) from
//! 208 to 222 values given right, wrong 2 → 1. The Gaussian stays on the encoded values:
//! it stands for blurs of no known origin (in-camera processing, a blur applied to an
//! encoded image), and its σ̂ → σ line ([`sigma_for_deblur`]) was fitted on those.

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
    wiener(gray, Blur::Gaussian(sigma), noise_to_signal, Light::Encoded)
}

/// Wiener deconvolution of `gray` for a lens's defocus: a disk of `radius` pixels (the
/// circle of confusion), whose transfer function is taken from the disk itself (an Airy
/// pattern with rings of zeros, where a Gaussian has none: a Gaussian of the same width
/// restores the low frequencies and leaves the strokes soft, the disk restores them
/// between its zeros). The noise-to-signal ratio is at least [`DISK_MIN_NOISE_TO_SIGNAL`].
/// Unchanged as [`wiener_deblur`] for a radius that is not a positive finite number.
pub fn wiener_deblur_disk(gray: &GrayImage, radius: f32, noise_to_signal: f32) -> GrayImage {
    wiener(gray, Blur::Disk(radius), noise_to_signal.max(DISK_MIN_NOISE_TO_SIGNAL), Light::Linear)
}

/// Smallest noise-to-signal ratio a disk's deconvolution is given: near the disk's
/// zeros its gain is 1/(2√k) (5× here), which at the measured noise of a sharp photo
/// lifts JPEG's blocks into strokes. On the independent card set's defocused captures
/// (seed 1, 20 sides, Tesseract's text of each) 0.01 read as many values as 0.003.
pub const DISK_MIN_NOISE_TO_SIGNAL: f32 = 0.01;

/// A defocus disk's radius, in pixels of an image `width` wide, from card sanity's
/// defocus σ ([`crate::card_sanity::CardMeasures::defocus_sigma`], at `work_width`):
/// R = [`RADIUS_AT_ZERO`] + [`RADIUS_PER_DEFOCUS_SIGMA`]·σ, a straight line fitted on
/// the independent card set's defocused captures (seeds 1-7, 140 sides, disks of 5.3-9.4
/// px on a 1200-px card: relative error 12 % (sd), 30 % at most). `None` when no defocus
/// was fitted (σ 0) or the measure is not a finite positive number.
pub fn radius_for_deblur(defocus_sigma: f32, work_width: u32, width: u32) -> Option<f32> {
    if !(defocus_sigma.is_finite() && defocus_sigma > 0.0) || work_width == 0 {
        return None;
    }
    Some((RADIUS_AT_ZERO + RADIUS_PER_DEFOCUS_SIGMA * defocus_sigma) * width as f32 / work_width as f32)
}

/// Offset of the defocus σ → disk radius line ([`radius_for_deblur`]), working pixels.
pub const RADIUS_AT_ZERO: f32 = 2.05;
/// Slope of the defocus σ → disk radius line ([`radius_for_deblur`]).
pub const RADIUS_PER_DEFOCUS_SIGMA: f32 = 1.37;

/// The radius of the lens's disk that defocused `gray` (a flattened card), read off its
/// power spectrum, or `None` when the spectrum shows no disk (a Gaussian-like blur, or
/// too little print). Why: a disk's transfer function is zero on rings, the first at
/// f = [`DISK_FIRST_ZERO`]/R cycles per pixel and the second [`DISK_ZERO_RATIO`] times
/// farther out, and the photo's power drops there below its neighbours'; a Gaussian's
/// has no zeros. The radial mean of the log power (Hann-windowed, bins of
/// [`SPECTRUM_BIN`]) is compared at f and at the second zero's frequency with its mean
/// over ±25 % around each (the two bins either side left out); the deepest sum over
/// radii from 0.75 to 1.3 times `guess` decides. On the independent card set's defocused
/// captures (seed 2, 12 fronts) the sum was -1.42 to -3.74 and the radius within 6 % of
/// the disk drawn, 0.9-1.26 times the guess from the defocus σ; on the own evaluation's
/// Gaussian blurs -0.65 to -1.06, and -1.28 to -1.36 only on backs of little print, at
/// radii 1.35-1.6 times the guess (outside the search): a disk is taken below
/// [`DISK_DIP`].
pub fn defocus_disk_radius(gray: &GrayImage, guess: f32) -> Option<f32> {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    if !(guess.is_finite() && guess > 0.0) || w < 64 || h < 64 || w.saturating_mul(h) > MAX_PIXELS {
        return None;
    }
    let (pw, ph) = (smooth_size(w), smooth_size(h));
    let mean = gray.as_raw().iter().map(|&v| f32::from(v)).sum::<f32>() / (w * h) as f32;
    let hann = |i: usize, n: usize| 0.5 - 0.5 * (2.0 * std::f32::consts::PI * i as f32 / (n - 1) as f32).cos();
    let mut buf = vec![Complex32::new(0.0, 0.0); pw * ph];
    for y in 0..h {
        let wy = hann(y, h);
        for x in 0..w {
            buf[y * pw + x] = Complex32::new((f32::from(gray.as_raw()[y * w + x]) - mean) * wy * hann(x, w), 0.0);
        }
    }
    let mut planner = FftPlanner::<f32>::new();
    planner.plan_fft_forward(pw).process(&mut buf);
    let mut t = transpose(&buf, pw, ph);
    drop(buf);
    planner.plan_fft_forward(ph).process(&mut t);
    let bins = (0.5 / SPECTRUM_BIN) as usize;
    let (mut power, mut count) = (vec![0f64; bins], vec![0u32; bins]);
    for (x, column) in t.chunks_exact(ph).enumerate() {
        let fx = freq(x, pw);
        for (y, v) in column.iter().enumerate() {
            let b = (fx.hypot(freq(y, ph)) / SPECTRUM_BIN) as usize;
            if b < bins {
                power[b] += f64::from(v.norm_sqr());
                count[b] += 1;
            }
        }
    }
    let log_power: Vec<f32> = power.iter().zip(&count).map(|(&p, &n)| if n == 0 { 0.0 } else { ((p / f64::from(n)) + 1e-9).ln() as f32 }).collect();
    let bin_of = |f: f32| (f / SPECTRUM_BIN) as usize;
    // Log power at f less its mean over ±25 % around f, the two bins either side left out.
    let dip = |f: f32| -> Option<f32> {
        let (i, lo, hi) = (bin_of(f), bin_of(0.75 * f), bin_of(1.25 * f));
        if hi >= bins || lo == 0 {
            return None;
        }
        let around: Vec<f32> = (lo..=hi).filter(|&j| j + 2 < i || j > i + 2).map(|j| log_power[j]).collect();
        (!around.is_empty()).then(|| log_power[i] - around.iter().sum::<f32>() / around.len() as f32)
    };
    let (from, to) = (DISK_FIRST_ZERO / (1.3 * guess), DISK_FIRST_ZERO / (0.75 * guess));
    let mut best: Option<(f32, f32)> = None;
    let mut f = from;
    while f <= to {
        if let (Some(a), Some(b)) = (dip(f), dip(DISK_ZERO_RATIO * f)) {
            if best.is_none_or(|(score, _)| a + b < score) {
                best = Some((a + b, f));
            }
        }
        f += SPECTRUM_BIN;
    }
    best.filter(|&(score, _)| score < DISK_DIP).map(|(_, f)| DISK_FIRST_ZERO / f)
}

/// A disk of radius R's first zero, R·f (2J₁(2πRf)/(2πRf) = 0 at 2πRf = 3.8317).
pub const DISK_FIRST_ZERO: f32 = 0.6098;
/// Its second zero's frequency over its first's (7.0156 / 3.8317).
pub const DISK_ZERO_RATIO: f32 = 1.831;
/// Width of the bins of [`defocus_disk_radius`]'s radial spectrum, cycles per pixel.
pub const SPECTRUM_BIN: f32 = 0.002;
/// Deepest two-zero dip of the log power ([`defocus_disk_radius`]) that is no disk.
pub const DISK_DIP: f32 = -1.25;

/// The blur a deconvolution undoes.
#[derive(Debug, Clone, Copy)]
enum Blur {
    Gaussian(f32),
    Disk(f32),
}

/// The values a deconvolution works on (module doc): the image's sRGB-encoded values,
/// or the light they encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Light {
    Encoded,
    Linear,
}

fn wiener(gray: &GrayImage, blur: Blur, noise_to_signal: f32, light: Light) -> GrayImage {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    let width = match blur {
        Blur::Gaussian(s) | Blur::Disk(s) => s,
    };
    if !(width.is_finite() && width > 0.0) || w == 0 || h == 0 || w.saturating_mul(h) > MAX_PIXELS || !(noise_to_signal.is_finite() && noise_to_signal > 0.0) {
        return gray.clone();
    }
    // Mirror margin: the Gaussian is negligible past 4σ, the disk is nothing past R.
    let pad = match blur {
        Blur::Gaussian(sigma) => (4.0 * sigma).ceil() as usize + 8,
        Blur::Disk(radius) => radius.ceil() as usize + 8,
    };
    let (pw, ph) = (smooth_size(w + 2 * pad), smooth_size(h + 2 * pad));
    let src = gray.as_raw();
    let mut buf: Vec<Complex32> = Vec::with_capacity(pw * ph);
    for y in 0..ph {
        let sy = mirror(y as isize - pad as isize, h);
        let row = &src[sy * w..(sy + 1) * w];
        for x in 0..pw {
            let sx = mirror(x as isize - pad as isize, w);
            let v = row[sx];
            buf.push(Complex32::new(if light == Light::Linear { decoded(v) } else { f32::from(v) }, 0.0));
        }
    }

    let mut planner = FftPlanner::<f32>::new();
    let (row_fwd, row_inv) = (planner.plan_fft_forward(pw), planner.plan_fft_inverse(pw));
    let (col_fwd, col_inv) = (planner.plan_fft_forward(ph), planner.plan_fft_inverse(ph));
    // A 2-D transform as the image's is laid out after it: rows, then columns (as rows
    // of the transpose).
    let forward = |mut b: Vec<Complex32>| {
        row_fwd.process(&mut b);
        let mut t = transpose(&b, pw, ph);
        col_fwd.process(&mut t);
        t
    };

    let mut t = forward(buf);
    match blur {
        Blur::Gaussian(sigma) => {
            let two_pi2_s2 = 2.0 * std::f32::consts::PI.powi(2) * sigma * sigma;
            let fx2: Vec<f32> = (0..pw).map(|i| freq(i, pw).powi(2)).collect();
            for (x, column) in t.chunks_exact_mut(ph).enumerate() {
                for (y, v) in column.iter_mut().enumerate() {
                    let otf = (-two_pi2_s2 * (fx2[x] + freq(y, ph).powi(2))).exp();
                    *v *= otf / (otf * otf + noise_to_signal);
                }
            }
        }
        Blur::Disk(radius) => {
            // The disk centred on the origin (wrapped around), its rim anti-aliased over
            // a pixel, summing to 1.
            let signed = |i: usize, n: usize| if i <= n / 2 { i as f32 } else { i as f32 - n as f32 };
            let mut kernel: Vec<Complex32> = Vec::with_capacity(pw * ph);
            let mut total = 0.0;
            for y in 0..ph {
                for x in 0..pw {
                    let d = signed(x, pw).hypot(signed(y, ph));
                    let v = (radius + 0.5 - d).clamp(0.0, 1.0);
                    total += v;
                    kernel.push(Complex32::new(v, 0.0));
                }
            }
            if total <= 0.0 {
                return gray.clone();
            }
            for k in &mut kernel {
                k.re /= total;
            }
            let otf = forward(kernel);
            for (v, h) in t.iter_mut().zip(&otf) {
                *v *= h.conj() / (h.norm_sqr() + noise_to_signal);
            }
        }
    }
    col_inv.process(&mut t);
    let mut back = transpose(&t, ph, pw);
    drop(t);
    row_inv.process(&mut back);

    let norm = 1.0 / (pw * ph) as f32;
    GrayImage::from_fn(w as u32, h as u32, |x, y| {
        let v = back[(y as usize + pad) * pw + x as usize + pad].re * norm;
        image::Luma([if light == Light::Linear { encoded(v) } else { v.round().clamp(0.0, 255.0) as u8 }])
    })
}

/// An sRGB-encoded value (0-255) as the light it encodes, on the same 0-255 scale.
fn decoded(v: u8) -> f32 {
    let c = f32::from(v) / 255.0;
    255.0 * if c <= 0.040_45 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// Light on a 0-255 scale, sRGB-encoded (clamped to the scale: a deconvolution's
/// overshoot past white or black is white or black).
fn encoded(light: f32) -> u8 {
    let c = (light / 255.0).clamp(0.0, 1.0);
    let e = if c <= 0.003_130_8 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (255.0 * e).round().clamp(0.0, 255.0) as u8
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

    /// A disk's defocus (radius 6) on strokes: its own deconvolution undoes most of it,
    /// and better than a Gaussian of the disk's σ (R/2) does.
    #[test]
    fn a_defocus_disk_is_mostly_undone_and_better_than_by_a_gaussian() {
        let sharp = strokes(240, 160);
        let blurred = disk_blur(&sharp, 6);
        let before = mean_abs_diff(&blurred, &sharp);
        let by_disk = mean_abs_diff(&wiener_deblur_disk(&blurred, 6.0, MIN_NOISE_TO_SIGNAL), &sharp);
        let by_gaussian = mean_abs_diff(&wiener_deblur(&blurred, 3.0, MIN_NOISE_TO_SIGNAL), &sharp);
        assert!(by_disk < 0.75 * before, "disk {by_disk} vs blurred {before}");
        assert!(by_disk < 0.8 * by_gaussian, "disk {by_disk} vs gaussian {by_gaussian}");
        // Radii that are no radius change nothing.
        for radius in [0.0, -2.0, f32::NAN] {
            assert_eq!(wiener_deblur_disk(&blurred, radius, MIN_NOISE_TO_SIGNAL), blurred);
        }
        assert_eq!(radius_for_deblur(0.0, 1000, 1200), None);
        let radius = radius_for_deblur(2.5, 1000, 1200).unwrap_or_default();
        assert!((radius - (RADIUS_AT_ZERO + 2.5 * RADIUS_PER_DEFOCUS_SIGMA) * 1.2).abs() < 1e-5);
    }

    /// The spectrum tells a disk from a Gaussian: strokes defocused by a disk of radius 6
    /// give a radius near 6 (searched from a guess 20 % off); blurred by a Gaussian of
    /// the disk's σ, none; nor a flat or tiny image.
    #[test]
    fn a_defocus_disk_shows_in_the_spectrum_and_a_gaussian_does_not() {
        // Letters' strokes at pseudo-random places (`crate::testdata::print_strokes`).
        let mut next = crate::testdata::xorshift(0x9e37_79b9);
        let text = crate::testdata::print_strokes(600, 400, &mut next);
        // A photo's noise (uniform, σ ≈ 2.3 grey levels) under both blurs, as a camera's.
        let mut noisy = |img: GrayImage| GrayImage::from_fn(img.width(), img.height(), |x, y| image::Luma([(i32::from(img.get_pixel(x, y).0[0]) + next(9) as i32 - 4).clamp(0, 255) as u8]));
        let disk_blurred = noisy(disk_blur(&text, 6));
        let radius = defocus_disk_radius(&disk_blurred, 7.2);
        assert!(radius.is_some_and(|r| (5.4..=6.6).contains(&r)), "{radius:?}");
        let gaussian_blurred = noisy(gaussian_blur(&text, 3.0));
        assert_eq!(defocus_disk_radius(&gaussian_blurred, 7.2), None);
        assert_eq!(defocus_disk_radius(&GrayImage::from_pixel(600, 400, image::Luma([200])), 7.2), None);
        assert_eq!(defocus_disk_radius(&GrayImage::new(32, 32), 7.2), None);
        assert_eq!(defocus_disk_radius(&disk_blurred, f32::NAN), None);
    }

    /// An exact, separable Gaussian blur (mirrored borders).
    fn gaussian_blur(img: &GrayImage, sigma: f32) -> GrayImage {
        let r = (4.0 * sigma).ceil() as isize;
        let k: Vec<f32> = (-r..=r).map(|i| (-(i * i) as f32 / (2.0 * sigma * sigma)).exp()).collect();
        let total: f32 = k.iter().sum();
        let (w, h) = (img.width() as usize, img.height() as usize);
        let pass = |src: &[f32], along_x: bool| -> Vec<f32> {
            let mut out = vec![0f32; w * h];
            for y in 0..h {
                for x in 0..w {
                    out[y * w + x] = (-r..=r)
                        .zip(&k)
                        .map(|(i, kv)| {
                            let (sx, sy) = if along_x { (mirror(x as isize + i, w), y) } else { (x, mirror(y as isize + i, h)) };
                            kv * src[sy * w + sx]
                        })
                        .sum::<f32>()
                        / total;
                }
            }
            out
        };
        let src: Vec<f32> = img.as_raw().iter().map(|&v| f32::from(v)).collect();
        let out = pass(&pass(&src, true), false);
        GrayImage::from_fn(w as u32, h as u32, |x, y| image::Luma([out[y as usize * w + x as usize].round() as u8]))
    }

    /// A lens's defocus of `img`: a disk of radius `r` spreading its light (decoded,
    /// averaged, encoded again).
    fn disk_blur(img: &GrayImage, r: i32) -> GrayImage {
        let (w, h) = img.dimensions();
        GrayImage::from_fn(w, h, |x, y| {
            let (mut sum, mut n) = (0.0f32, 0.0f32);
            for dy in -r..=r {
                for dx in -r..=r {
                    if dx * dx + dy * dy <= r * r {
                        let (sx, sy) = (mirror(x as isize + dx as isize, w as usize), mirror(y as isize + dy as isize, h as usize));
                        sum += decoded(img.get_pixel(sx as u32, sy as u32).0[0]);
                        n += 1.0;
                    }
                }
            }
            image::Luma([encoded(sum / n)])
        })
    }

    /// A lens's disk undone in the light it spread is undone better than in the
    /// encoded values (module doc); and the two conversions are each other's inverse.
    #[test]
    fn a_defocus_disk_is_undone_in_linear_light() {
        for v in 0..=255u8 {
            assert_eq!(encoded(decoded(v)), v);
        }
        assert_eq!((decoded(0), decoded(255)), (0.0, 255.0));
        assert!((decoded(128) - 55.0).abs() < 0.5, "mid grey is a fifth of the light: {}", decoded(128));
        assert_eq!((encoded(-40.0), encoded(300.0)), (0, 255), "overshoot is clamped");
        let sharp = strokes(240, 160);
        let blurred = disk_blur(&sharp, 6);
        let k = DISK_MIN_NOISE_TO_SIGNAL;
        let linear = mean_abs_diff(&wiener(&blurred, Blur::Disk(6.0), k, Light::Linear), &sharp);
        let in_encoded = mean_abs_diff(&wiener(&blurred, Blur::Disk(6.0), k, Light::Encoded), &sharp);
        assert!(linear < 0.85 * in_encoded, "linear {linear} vs encoded {in_encoded}");
        assert_eq!(wiener_deblur_disk(&blurred, 6.0, k), wiener(&blurred, Blur::Disk(6.0), k, Light::Linear));
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
