//! Flash liveness (`selfie_type` `flash`, `flash_8`, `flash_16`, `flash_32`,
//! `flash_edge`, `flash_advanced`): the colours the phone's screen shows must come back
//! reflected from the face, frame by frame.
//!
//! **Capture protocol** (what the SDK does; docs/VISION.md "Flash liveness"):
//! 1. Pick a fresh random sequence of [`required_colours`] screen colours from
//!    [`PALETTE`] (never reuse a sequence), such that every RGB channel is on in some
//!    colours and off in others.
//! 2. For each colour: fill the screen with it at full brightness, wait ≥ 150 ms for the
//!    camera's exposure to settle, capture one frame.
//! 3. Send the frames as `videos[0].frames` of face_auth (or face_auth_register), in
//!    capture order (`index`), each with metadata `{"flash_color": "#RRGGBB"}`.
//!
//! **Check** ([`judge`], pure): per frame, the mean RGB of the inner face region
//! ([`face_mean_rgb`]). For each RGB channel whose declared intensity varies, the Pearson
//! correlation between the declared intensity and the measured one, and the slope of
//! the fit (grey levels gained per unit of screen colour). `score` is the mean
//! correlation (clipped to 0..1); live when `score ≥ min_correlation`, the mean slope is
//! at least `min_gain`, and at least `min_face_share` of the frames show a face.
//!
//! **What this defends against, and what not**: frames that were not captured under this
//! sequence (an injected or replayed video, a photo or a screen held still under a
//! different or no flash) do not follow the declared colours — on random data the chance
//! agreement rate is measured in the tests. A printed photo or a screen held in front of
//! the flashing phone *does* reflect the colours: this check does not separate it from a
//! face (the passive model is meant for that; neither was evaluated on real spoofs, for
//! none exist here). Bright daylight can drown the reflection (`min_gain` fails: a false
//! reject, reported with its reason). The thresholds were set on synthetic captures
//! only; no real flash capture was available.

use crate::detect::BoundingBox;
use image::RgbImage;
use serde::Serialize;

/// Screen colours the SDK picks from: the corners of the RGB cube.
pub const PALETTE: [[u8; 3]; 8] = [
    [0, 0, 0],
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
    [0, 255, 255],
    [255, 0, 255],
    [255, 255, 0],
    [255, 255, 255],
];

/// Colour frames required for a flash `selfie_type`; `None` when it is not a flash type.
pub fn required_colours(selfie_type: &str) -> Option<usize> {
    match selfie_type {
        "flash" | "flash_8" | "flash_edge" => Some(8),
        "flash_16" | "flash_advanced" => Some(16),
        "flash_32" => Some(32),
        _ => None,
    }
}

/// `#RRGGBB` (or `RRGGBB`) to 0..1 per channel.
pub fn parse_colour(s: &str) -> Option<[f32; 3]> {
    let hex = s.trim().strip_prefix('#').unwrap_or(s.trim());
    if hex.len() != 6 || !hex.is_ascii() {
        return None;
    }
    let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok().map(|v| f32::from(v) / 255.0);
    Some([channel(0)?, channel(2)?, channel(4)?])
}

/// Mean RGB (0..255) of the inner face region: the middle half of the box's width, from
/// 30% to 80% of its height (cheeks, nose, mouth: skin that faces the screen, no hair or
/// background). `None` when the region is empty.
pub fn face_mean_rgb(image: &RgbImage, bbox: BoundingBox) -> Option<[f32; 3]> {
    let (w, h) = (bbox.right - bbox.left, bbox.bottom - bbox.top);
    let x0 = (bbox.left + w / 4).max(0) as u32;
    let x1 = ((bbox.left + 3 * w / 4).max(0) as u32).min(image.width());
    let y0 = (bbox.top + 3 * h / 10).max(0) as u32;
    let y1 = ((bbox.top + 4 * h / 5).max(0) as u32).min(image.height());
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    let mut sum = [0f64; 3];
    for y in y0..y1 {
        for x in x0..x1 {
            let p = image.get_pixel(x, y).0;
            for c in 0..3 {
                sum[c] += f64::from(p[c]);
            }
        }
    }
    let n = f64::from((x1 - x0) * (y1 - y0));
    Some(sum.map(|s| (s / n) as f32))
}

/// One frame: the colour the screen showed, and the face's mean RGB (`None`: no face).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlashSample {
    pub declared: [f32; 3],
    pub face_rgb: Option<[f32; 3]>,
}

#[derive(Debug, Clone)]
pub struct FlashParams {
    pub min_correlation: f32,
    /// Grey levels (0..255) per unit of screen colour, averaged over channels.
    pub min_gain: f32,
    pub min_face_share: f32,
    /// A channel whose declared intensity has a smaller standard deviation is left out.
    pub min_declared_std: f32,
}

impl Default for FlashParams {
    fn default() -> Self {
        FlashParams { min_correlation: 0.7, min_gain: 2.0, min_face_share: 0.75, min_declared_std: 0.2 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FlashResult {
    Performed {
        is_live: bool,
        score: f32,
        /// Mean slope, grey levels per unit of screen colour.
        gain: f32,
        /// Per channel (R, G, B) correlation; `None` for a channel left out.
        correlations: [Option<f32>; 3],
        frames: usize,
        frames_with_face: usize,
        /// Why not live, when not.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    NotPerformed { reason: String },
}

impl FlashResult {
    pub fn is_live(&self) -> Option<bool> {
        match self {
            FlashResult::Performed { is_live, .. } => Some(*is_live),
            FlashResult::NotPerformed { .. } => None,
        }
    }
}

fn mean(v: &[f32]) -> f32 {
    v.iter().sum::<f32>() / v.len().max(1) as f32
}

/// Pearson correlation and least-squares slope of `y` on `x`; `None` without variance in
/// `x`.
fn correlation_and_slope(x: &[f32], y: &[f32]) -> Option<(f32, f32, f32)> {
    let (mx, my) = (mean(x), mean(y));
    let (mut sxx, mut syy, mut sxy) = (0f32, 0f32, 0f32);
    for (a, b) in x.iter().zip(y) {
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
        sxy += (a - mx) * (b - my);
    }
    let n = x.len().max(1) as f32;
    let std_x = (sxx / n).sqrt();
    if sxx <= 0.0 {
        return None;
    }
    let corr = if syy > 0.0 { sxy / (sxx.sqrt() * syy.sqrt()) } else { 0.0 };
    Some((corr, sxy / sxx, std_x))
}

/// The flash verdict for `samples` in capture order, `required` colour frames expected.
/// Pure.
pub fn judge(samples: &[FlashSample], required: usize, params: &FlashParams) -> FlashResult {
    if samples.len() < required {
        return FlashResult::NotPerformed { reason: format!("{} flash frames sent, {required} required", samples.len()) };
    }
    let with_face: Vec<(&[f32; 3], &[f32; 3])> = samples.iter().filter_map(|s| s.face_rgb.as_ref().map(|f| (&s.declared, f))).collect();
    let mut correlations = [None; 3];
    let mut gains = Vec::new();
    for c in 0..3 {
        let x: Vec<f32> = with_face.iter().map(|(d, _)| d[c]).collect();
        let y: Vec<f32> = with_face.iter().map(|(_, f)| f[c]).collect();
        if let Some((corr, slope, std_x)) = correlation_and_slope(&x, &y) {
            if std_x >= params.min_declared_std {
                correlations[c] = Some(corr);
                gains.push(slope);
            }
        }
    }
    let frames = samples.len();
    let frames_with_face = with_face.len();
    let face_share = frames_with_face as f32 / frames as f32;
    let used: Vec<f32> = correlations.iter().flatten().copied().collect();
    if used.len() < 2 && face_share >= params.min_face_share {
        return FlashResult::NotPerformed { reason: "the declared colours vary in fewer than two RGB channels".into() };
    }
    let score = mean(&used).clamp(0.0, 1.0);
    let gain = mean(&gains);
    let reason = if face_share < params.min_face_share {
        Some(format!("a face in {frames_with_face} of {frames} flash frames"))
    } else if gain < params.min_gain {
        Some(format!("no reflection of the screen colours on the face (gain {gain:.2})"))
    } else if score < params.min_correlation {
        Some(format!("the face does not follow the declared colours (correlation {score:.2})"))
    } else {
        None
    };
    let score = if face_share < params.min_face_share { 0.0 } else { score };
    FlashResult::Performed { is_live: reason.is_none(), score, gain, correlations, frames, frames_with_face, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic noise in -1..1 (xorshift), so the tests need no RNG crate.
    struct Noise(u64);
    impl Noise {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        }
        fn colour(&mut self) -> [f32; 3] {
            let i = ((self.next() + 1.0) * 4.0) as usize % PALETTE.len();
            PALETTE[i].map(|v| f32::from(v) / 255.0)
        }
    }

    /// A face of skin albedo (0.6, 0.45, 0.35) lit by ambient light plus the screen.
    fn reflect(declared: [f32; 3], strength: f32, noise: &mut Noise) -> [f32; 3] {
        let albedo = [0.6, 0.45, 0.35];
        [0, 1, 2].map(|c| 110.0 * albedo[c] + strength * albedo[c] * declared[c] + 1.5 * noise.next())
    }

    fn sequence(n: usize, noise: &mut Noise) -> Vec<[f32; 3]> {
        loop {
            let s: Vec<[f32; 3]> = (0..n).map(|_| noise.colour()).collect();
            // The SDK's rule: every channel both on and off.
            if (0..3).all(|c| s.iter().any(|d| d[c] > 0.5) && s.iter().any(|d| d[c] < 0.5)) {
                return s;
            }
        }
    }

    #[test]
    fn colours_and_types_parse() {
        assert_eq!(parse_colour("#FF0080"), Some([1.0, 0.0, 128.0 / 255.0]));
        assert_eq!(parse_colour("00ff00"), Some([0.0, 1.0, 0.0]));
        assert_eq!(parse_colour("#FF00"), None);
        assert_eq!(parse_colour("#GG0000"), None);
        assert_eq!(parse_colour("#ÿÿÿ"), None);
        assert_eq!(required_colours("flash_16"), Some(16));
        assert_eq!(required_colours("passive"), None);
    }

    #[test]
    fn a_face_that_reflects_the_declared_colours_is_live() {
        let mut noise = Noise(7);
        for n in [8, 16, 32] {
            let seq = sequence(n, &mut noise);
            let samples: Vec<FlashSample> = seq.iter().map(|&d| FlashSample { declared: d, face_rgb: Some(reflect(d, 25.0, &mut noise)) }).collect();
            let r = judge(&samples, n, &FlashParams::default());
            assert_eq!(r.is_live(), Some(true), "{n}: {r:?}");
        }
    }

    #[test]
    fn frames_captured_under_another_sequence_are_not_live() {
        let mut noise = Noise(11);
        let seq = sequence(8, &mut noise);
        let other = sequence(8, &mut noise);
        let samples: Vec<FlashSample> = seq.iter().zip(&other).map(|(&d, &o)| FlashSample { declared: d, face_rgb: Some(reflect(o, 25.0, &mut noise)) }).collect();
        assert_eq!(judge(&samples, 8, &FlashParams::default()).is_live(), Some(false));
    }

    #[test]
    fn no_reflection_missing_faces_and_short_sequences() {
        let mut noise = Noise(3);
        let seq = sequence(8, &mut noise);
        // A still image: nothing changes but noise.
        let still: Vec<FlashSample> = seq.iter().map(|&d| FlashSample { declared: d, face_rgb: Some(reflect(d, 0.0, &mut noise)) }).collect();
        assert_eq!(judge(&still, 8, &FlashParams::default()).is_live(), Some(false));
        // Faces in only half the frames.
        let half: Vec<FlashSample> = seq
            .iter()
            .enumerate()
            .map(|(i, &d)| FlashSample { declared: d, face_rgb: (i % 2 == 0).then(|| reflect(d, 25.0, &mut noise)) })
            .collect();
        assert_eq!(judge(&half, 8, &FlashParams::default()).is_live(), Some(false));
        // Too few frames, or one colour repeated: not performed, not a verdict.
        assert!(matches!(judge(&still[..5], 8, &FlashParams::default()), FlashResult::NotPerformed { .. }));
        let grey: Vec<FlashSample> = (0..8).map(|_| FlashSample { declared: [1.0; 3], face_rgb: Some([90.0; 3]) }).collect();
        assert!(matches!(judge(&grey, 8, &FlashParams::default()), FlashResult::NotPerformed { .. }));
    }

    /// Chance agreement: frames that reflect a random sequence, judged against another
    /// random sequence, 10,000 times per length. Printed, and bounded.
    #[test]
    fn chance_acceptance_of_a_foreign_sequence_is_rare() {
        let mut noise = Noise(2024);
        for (n, bound) in [(8usize, 0.005f32), (16, 0.001)] {
            let trials = 10_000;
            let mut accepted = 0;
            for _ in 0..trials {
                let seq = sequence(n, &mut noise);
                let other = sequence(n, &mut noise);
                let samples: Vec<FlashSample> = seq.iter().zip(&other).map(|(&d, &o)| FlashSample { declared: d, face_rgb: Some(reflect(o, 25.0, &mut noise)) }).collect();
                if judge(&samples, n, &FlashParams::default()).is_live() == Some(true) {
                    accepted += 1;
                }
            }
            let rate = accepted as f32 / trials as f32;
            println!("flash, {n} colours: foreign sequence accepted {accepted}/{trials} ({:.3}%)", rate * 100.0);
            assert!(rate <= bound, "{n} colours: {rate}");
        }
    }

    #[test]
    fn face_region_mean_is_taken_inside_the_box() {
        let mut img = RgbImage::from_pixel(100, 100, image::Rgb([0, 0, 0]));
        for y in 30..80 {
            for x in 25..75 {
                img.put_pixel(x, y, image::Rgb([200, 100, 50]));
            }
        }
        let bbox = BoundingBox { top: 0, right: 100, bottom: 100, left: 0, angle: 0 };
        assert_eq!(face_mean_rgb(&img, bbox), Some([200.0, 100.0, 50.0]));
        let outside = BoundingBox { top: 200, right: 300, bottom: 300, left: 200, angle: 0 };
        assert_eq!(face_mean_rgb(&img, outside), None);
    }
}
