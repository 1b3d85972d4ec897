//! Physical cues of a presentation attack, measured on the face region (pure functions;
//! docs/VISION.md, "Passive liveness: the policy").
//!
//! A face shown on a screen or on paper and photographed again carries the medium's
//! structure, which a face in front of a camera does not:
//! - **periodic structure** — a screen's pixel grid, a print's halftone screen, and the
//!   moiré both make when the camera samples them again are *regular*: they put isolated
//!   peaks into the face's spatial spectrum, where skin, hair and sensor noise spread
//!   their energy smoothly over each ring of frequencies. [`periodic_peak`] is the
//!   strongest such peak against the median of its ring. JPEG's 8-pixel blocks are
//!   regular too, so the bins of the 8-pixel lattice are left out.
//! - **reduced gamut** — paper cannot be darker than its ink nor brighter than its
//!   white: the blacks of a recaptured print are lifted. [`black_level`] reports the dark
//!   end of the face box relative to its bright end.
//!
//! The cues are measured, not judged, here; `liveness.rs` holds the policy that turns
//! them and the model's score into a verdict, and the thresholds were set on real faces
//! (docs/VISION.md) so that a real face is not refused on a cue.

use crate::detect::Face;
use image::RgbImage;
use serde::{Deserialize, Serialize};

/// The cues of one face.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpoofCues {
    /// Strongest isolated high-frequency peak of the face's spectrum: log10 of its
    /// magnitude over its ring's median. `None` when the face is too small to measure
    /// (under [`MIN_SPECTRUM_SIDE`] pixels).
    pub periodic_peak: Option<f32>,
    /// 2nd percentile of the face box's luminance over its 98th (0 to 1): how far the
    /// blacks are lifted relative to the whites.
    pub black_level: f32,
}

/// Faces narrower than this (pixels) get no spectrum: too few periods of any grid fit.
pub const MIN_SPECTRUM_SIDE: u32 = 48;
/// The spectrum is taken on at most this many pixels a side (the face's centre, native
/// resolution: resampling would average a fine grid away).
const MAX_SPECTRUM_SIDE: usize = 256;

/// Measures every cue of `face` in `image`.
pub fn measure(image: &RgbImage, face: &Face) -> SpoofCues {
    SpoofCues { periodic_peak: periodic_peak(image, face), black_level: black_level(image, face) }
}

fn luma(p: &image::Rgb<u8>) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// The face box clamped to the image, as `(x, y, w, h)`.
fn face_box(image: &RgbImage, face: &Face) -> Option<(u32, u32, u32, u32)> {
    let [x1, y1, x2, y2] = face.rect;
    let (w, h) = (image.width() as f32, image.height() as f32);
    let (x1, y1) = (x1.max(0.0).floor(), y1.max(0.0).floor());
    let (x2, y2) = (x2.min(w).floor(), y2.min(h).floor());
    if !(x2 > x1 && y2 > y1) {
        return None;
    }
    Some((x1 as u32, y1 as u32, (x2 - x1) as u32, (y2 - y1) as u32))
}

/// See [`SpoofCues::black_level`]. 0 for a face box that cannot be cut.
pub fn black_level(image: &RgbImage, face: &Face) -> f32 {
    let Some((x, y, w, h)) = face_box(image, face) else { return 0.0 };
    let mut hist = [0u32; 256];
    for yy in y..y + h {
        for xx in x..x + w {
            hist[luma(image.get_pixel(xx, yy)).round().clamp(0.0, 255.0) as usize] += 1;
        }
    }
    let total: u32 = hist.iter().sum();
    let pct = |q: f32| {
        let want = (q * total as f32).ceil().max(1.0) as u32;
        let mut acc = 0;
        for (v, n) in hist.iter().enumerate() {
            acc += n;
            if acc >= want {
                return v as f32;
            }
        }
        255.0
    };
    let (lo, hi) = (pct(0.02), pct(0.98));
    if hi <= 0.0 {
        0.0
    } else {
        (lo / hi).clamp(0.0, 1.0)
    }
}

/// See [`SpoofCues::periodic_peak`].
pub fn periodic_peak(image: &RgbImage, face: &Face) -> Option<f32> {
    let (x, y, w, h) = face_box(image, face)?;
    let side = w.min(h);
    if side < MIN_SPECTRUM_SIDE {
        return None;
    }
    // Largest power of two that fits, centred on the box (the face's middle: skin, eyes,
    // nose; little background).
    let mut n = 32usize;
    while n * 2 <= side as usize && n * 2 <= MAX_SPECTRUM_SIDE {
        n *= 2;
    }
    let (x0, y0) = (x + (w - n as u32) / 2, y + (h - n as u32) / 2);
    let mut gray: Vec<f32> = Vec::with_capacity(n * n);
    for yy in 0..n as u32 {
        for xx in 0..n as u32 {
            gray.push(luma(image.get_pixel(x0 + xx, y0 + yy)));
        }
    }
    Some(peak_ratio(&gray, n))
}

/// log10 of the strongest isolated peak over its ring's median, for an `n`×`n` grey
/// patch (`n` a power of two). Pure; the unit of [`periodic_peak`].
pub fn peak_ratio(gray: &[f32], n: usize) -> f32 {
    let mean = gray.iter().sum::<f32>() / gray.len().max(1) as f32;
    // Hann window: the patch's borders would otherwise put a cross of energy on the axes.
    let hann: Vec<f32> = (0..n).map(|i| 0.5 - 0.5 * (2.0 * std::f32::consts::PI * i as f32 / n as f32).cos()).collect();
    let mut re: Vec<f32> = gray.iter().enumerate().map(|(i, v)| (v - mean) * hann[i / n] * hann[i % n]).collect();
    let mut im = vec![0f32; n * n];
    fft2d(&mut re, &mut im, n);
    let mag: Vec<f32> = re.iter().zip(&im).map(|(a, b)| (a * a + b * b).sqrt()).collect();
    // Rings of integer radius over the half-plane (the spectrum of a real patch is
    // symmetric); high frequencies only: periods under 16 pixels (video codecs' 16-pixel
    // macroblocks left out) up to the Nyquist ring.
    let half = n as i64 / 2;
    let r_min = (n / 16 + 2) as i64;
    let mut rings: Vec<Vec<f32>> = vec![Vec::new(); half as usize + 1];
    let mut cells: Vec<(usize, f32)> = Vec::new();
    let lattice = (n / 8) as i64;
    for v in 0..=half {
        for u in -half + 1..=half {
            if v == 0 && u <= 0 {
                continue;
            }
            let r = ((u * u + v * v) as f32).sqrt().round() as i64;
            if r < r_min || r > half {
                continue;
            }
            let m = mag[((v.rem_euclid(n as i64)) as usize) * n + (u.rem_euclid(n as i64)) as usize];
            rings[r as usize].push(m);
            // The 8-pixel lattice (JPEG blocks) and the axes next to the origin are not
            // candidates; they still count in their ring's median.
            let near = |k: i64| {
                let d = k.rem_euclid(lattice);
                d <= 1 || d >= lattice - 1
            };
            if (near(u) && near(v)) || u.abs() <= 1 || v <= 1 {
                continue;
            }
            cells.push((r as usize, m));
        }
    }
    let medians: Vec<f32> = rings
        .iter_mut()
        .map(|ring| {
            if ring.is_empty() {
                return f32::NAN;
            }
            ring.sort_by(f32::total_cmp);
            ring[ring.len() / 2]
        })
        .collect();
    let best = cells
        .iter()
        .filter_map(|&(r, m)| {
            let med = medians[r];
            (med.is_finite() && med > 1e-6).then(|| m / med)
        })
        .fold(1.0f32, f32::max);
    best.log10()
}

/// In-place 2-D FFT of an `n`×`n` complex array (`n` a power of two), rows then columns.
fn fft2d(re: &mut [f32], im: &mut [f32], n: usize) {
    let tw = twiddles(n);
    let mut row_re = vec![0f32; n];
    let mut row_im = vec![0f32; n];
    for y in 0..n {
        row_re.copy_from_slice(&re[y * n..(y + 1) * n]);
        row_im.copy_from_slice(&im[y * n..(y + 1) * n]);
        fft(&mut row_re, &mut row_im, &tw);
        re[y * n..(y + 1) * n].copy_from_slice(&row_re);
        im[y * n..(y + 1) * n].copy_from_slice(&row_im);
    }
    for x in 0..n {
        for y in 0..n {
            row_re[y] = re[y * n + x];
            row_im[y] = im[y * n + x];
        }
        fft(&mut row_re, &mut row_im, &tw);
        for y in 0..n {
            re[y * n + x] = row_re[y];
            im[y * n + x] = row_im[y];
        }
    }
}

/// `(cos, sin)` of `−2πk/n` for `k < n/2`.
fn twiddles(n: usize) -> Vec<(f32, f32)> {
    (0..n / 2)
        .map(|k| {
            let (s, c) = (-2.0 * std::f64::consts::PI * k as f64 / n as f64).sin_cos();
            (c as f32, s as f32)
        })
        .collect()
}

/// Iterative radix-2 FFT (length a power of two); `tw` from [`twiddles`] of that length.
fn fft(re: &mut [f32], im: &mut [f32], tw: &[(f32, f32)]) {
    let n = re.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let step = n / len;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (c, s) = tw[k * step];
                let (a, b) = (start + k, start + k + len / 2);
                let (tr, ti) = (re[b] * c - im[b] * s, re[b] * s + im[b] * c);
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
        len <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..n * n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                128.0 + ((s >> 33) % 64) as f32 - 32.0
            })
            .collect()
    }

    #[test]
    fn fft_of_a_cosine_has_its_two_bins() {
        let n = 16;
        let mut re: Vec<f32> = (0..n).map(|i| (2.0 * std::f32::consts::PI * 3.0 * i as f32 / n as f32).cos()).collect();
        let mut im = vec![0f32; n];
        fft(&mut re, &mut im, &twiddles(n));
        for (k, (a, b)) in re.iter().zip(&im).enumerate() {
            let m = (a * a + b * b).sqrt();
            if k == 3 || k == 13 {
                assert!((m - 8.0).abs() < 1e-3, "bin {k}: {m}");
            } else {
                assert!(m < 1e-3, "bin {k}: {m}");
            }
        }
    }

    #[test]
    fn a_fine_grid_stands_out_of_noise_and_noise_does_not() {
        let n = 128;
        let plain = noise(n, 7);
        // A pixel grid of period 3.3 px at a slight angle (a screen seen by a camera).
        let grid: Vec<f32> = plain
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let (x, y) = ((i % n) as f32, (i / n) as f32);
                v + 20.0 * (2.0 * std::f32::consts::PI * (x * 0.98 + y * 0.2) / 3.3).cos()
            })
            .collect();
        let (p, g) = (peak_ratio(&plain, n), peak_ratio(&grid, n));
        assert!(p < 0.8, "noise alone: {p}");
        assert!(g > 1.2, "grid: {g}");
    }

    #[test]
    fn jpeg_block_frequencies_are_not_peaks() {
        let n = 128;
        let blocks: Vec<f32> = noise(n, 3)
            .iter()
            .enumerate()
            .map(|(i, v)| v + if (i % n) % 8 == 0 || (i / n) % 8 == 0 { 25.0 } else { 0.0 })
            .collect();
        assert!(peak_ratio(&blocks, n) < 0.8, "{}", peak_ratio(&blocks, n));
    }
}
