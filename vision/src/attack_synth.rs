//! A **synthetic** presentation-attack set built from real photos (evaluation data, not a
//! detector; docs/VISION.md, "Passive liveness: evaluation"). No spoof data exists in
//! any registry this project can reach, so each attack is simulated from the physics of
//! the medium and of the camera that photographs it again. ISO/IEC 30107-3 vocabulary:
//! these are presentation attack instruments (PAIs) of four species; figures measured on
//! them are APCER on *synthetic* attacks and say nothing about real ones.
//!
//! Every species starts from a real photo and its face box, renders the medium at its
//! own resolution ("physical" pixels), and captures it with a simulated camera: optics
//! blur, a slight rotation, resampling onto the camera's pixels (which is where moiré
//! comes from), sensor noise, JPEG. Deterministic for a seed.
//!
//! - [`AttackKind::Print`]: a photo printed on paper — amplitude-modulated halftone
//!   (one screen per ink, at the classic 15°/75°/0°/45° angles), lifted blacks and dull
//!   whites (paper and ink gamut), paper grain, the sheet's edge and a hand holding it
//!   inside the frame.
//! - [`AttackKind::Screen`]: the photo replayed on a phone or monitor — RGB sub-pixel
//!   stripes with a dark matrix between pixels, backlight black level and a blue tint,
//!   refresh banding, a specular glare, and the device's black bezel.
//! - [`AttackKind::CutOut`]: a printed face cut along its outline and held in front of
//!   a real scene (the print's halftone and gamut, a sharp paper edge around the head).
//! - [`AttackKind::RecaptureBlur`]: a screen replay filmed out of focus from further
//!   away: the pixel grid averages out, what remains is blur, gamut and double
//!   compression.

use image::{Rgb, RgbImage};

/// The attack species.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttackKind {
    Print,
    Screen,
    CutOut,
    RecaptureBlur,
}

impl AttackKind {
    pub const ALL: [AttackKind; 4] = [AttackKind::Print, AttackKind::Screen, AttackKind::CutOut, AttackKind::RecaptureBlur];

    pub fn name(self) -> &'static str {
        match self {
            AttackKind::Print => "print (synthetic)",
            AttackKind::Screen => "screen replay (synthetic)",
            AttackKind::CutOut => "cut-out print (synthetic)",
            AttackKind::RecaptureBlur => "recapture, defocused (synthetic)",
        }
    }
}

use crate::splitmix::SplitMix64 as Rng;

/// Planar float image, values 0–255.
#[derive(Clone)]
struct Plane {
    w: usize,
    h: usize,
    c: [Vec<f32>; 3],
}

impl Plane {
    fn new(w: usize, h: usize, fill: [f32; 3]) -> Self {
        Plane { w, h, c: [vec![fill[0]; w * h], vec![fill[1]; w * h], vec![fill[2]; w * h]] }
    }

    fn from_rgb(img: &RgbImage) -> Self {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let mut p = Plane::new(w, h, [0.0; 3]);
        for (i, px) in img.pixels().enumerate() {
            for k in 0..3 {
                p.c[k][i] = f32::from(px[k]);
            }
        }
        p
    }

    fn to_rgb(&self) -> RgbImage {
        let mut out = RgbImage::new(self.w as u32, self.h as u32);
        for (i, px) in out.pixels_mut().enumerate() {
            *px = Rgb([0, 1, 2].map(|k| self.c[k][i].round().clamp(0.0, 255.0) as u8));
        }
        out
    }

    /// Bilinear sample, `outside` beyond the borders.
    fn sample(&self, x: f32, y: f32, outside: [f32; 3]) -> [f32; 3] {
        if !(x >= 0.0 && y >= 0.0 && x <= (self.w - 1) as f32 && y <= (self.h - 1) as f32) {
            return outside;
        }
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(self.w - 1), (y0 + 1).min(self.h - 1));
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        [0, 1, 2].map(|k| {
            let c = &self.c[k];
            let top = c[y0 * self.w + x0] * (1.0 - fx) + c[y0 * self.w + x1] * fx;
            let bot = c[y1 * self.w + x0] * (1.0 - fx) + c[y1 * self.w + x1] * fx;
            top * (1.0 - fy) + bot * fy
        })
    }

    /// Separable Gaussian blur.
    fn blur(&mut self, sigma: f32) {
        if sigma < 0.3 {
            return;
        }
        let r = (sigma * 3.0).ceil() as i64;
        let k: Vec<f32> = (-r..=r).map(|i| (-((i * i) as f32) / (2.0 * sigma * sigma)).exp()).collect();
        let sum: f32 = k.iter().sum();
        let k: Vec<f32> = k.iter().map(|v| v / sum).collect();
        let (w, h) = (self.w as i64, self.h as i64);
        for c in &mut self.c {
            let mut tmp = vec![0f32; c.len()];
            for y in 0..h {
                for x in 0..w {
                    let mut acc = 0.0;
                    for (j, kv) in k.iter().enumerate() {
                        let xx = (x + j as i64 - r).clamp(0, w - 1);
                        acc += kv * c[(y * w + xx) as usize];
                    }
                    tmp[(y * w + x) as usize] = acc;
                }
            }
            for y in 0..h {
                for x in 0..w {
                    let mut acc = 0.0;
                    for (j, kv) in k.iter().enumerate() {
                        let yy = (y + j as i64 - r).clamp(0, h - 1);
                        acc += kv * tmp[(yy * w + x) as usize];
                    }
                    c[(y * w + x) as usize] = acc;
                }
            }
        }
    }
}

/// The region of `img` around the face box (scaled `context` times), resized so that the
/// face is `face_px` wide: the part of the photo the attacker shows.
fn face_region(img: &RgbImage, rect: [f32; 4], context: f32, face_px: f32) -> RgbImage {
    let [x1, y1, x2, y2] = rect;
    let (cx, cy) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
    let side = (x2 - x1).max(y2 - y1) * context;
    let (iw, ih) = (img.width() as f32, img.height() as f32);
    let left = (cx - side / 2.0).clamp(0.0, (iw - 2.0).max(0.0));
    let top = (cy - side / 2.0).clamp(0.0, (ih - 2.0).max(0.0));
    let w = side.min(iw - left).max(2.0);
    let h = side.min(ih - top).max(2.0);
    let crop = image::imageops::crop_imm(img, left as u32, top as u32, w as u32, h as u32).to_image();
    let scale = face_px / (x2 - x1).max(1.0);
    let (nw, nh) = (((w * scale) as u32).max(16), ((h * scale) as u32).max(16));
    image::imageops::resize(&crop, nw, nh, image::imageops::FilterType::Triangle)
}

/// The printed sheet at `dots` physical pixels per photo pixel: gamut of paper and ink,
/// one halftone screen per ink (CMY + K), paper grain.
fn print_medium(photo: &RgbImage, dots: usize, rng: &mut Rng) -> Plane {
    let src = Plane::from_rgb(photo);
    let (w, h) = (src.w * dots, src.h * dots);
    let mut out = Plane::new(w, h, [0.0; 3]);
    // Halftone cell of 4–6 physical pixels; angles per ink as in offset printing.
    let period = rng.uniform(4.0, 6.0);
    let angles = [15f32, 75.0, 0.0, 45.0].map(f32::to_radians);
    let paper = [rng.uniform(236.0, 246.0), rng.uniform(234.0, 244.0), rng.uniform(226.0, 238.0)];
    let ink_black = rng.uniform(28.0, 45.0);
    for y in 0..h {
        for x in 0..w {
            let s = src.sample(x as f32 / dots as f32, y as f32 / dots as f32, [255.0; 3]);
            // Ink coverage: CMY from RGB, black generation from their minimum.
            let cmy = s.map(|v| 1.0 - v / 255.0);
            let k = cmy.iter().cloned().fold(1.0f32, f32::min) * 0.8;
            let cov = [cmy[0] - k, cmy[1] - k, cmy[2] - k, k];
            let mut rgb = paper;
            for (ink, &c) in cov.iter().enumerate() {
                let (sn, cs) = angles[ink].sin_cos();
                let (u, v) = ((x as f32 * cs + y as f32 * sn) / period, (-(x as f32) * sn + y as f32 * cs) / period);
                // Clustered dot: a dot grows from each cell's centre with coverage.
                let d = 0.25 * ((2.0 * std::f32::consts::PI * u).cos() + (2.0 * std::f32::consts::PI * v).cos()) + 0.5;
                if d < c.clamp(0.0, 1.0) {
                    match ink {
                        3 => rgb = rgb.map(|p| p * ink_black / 255.0 + 0.0),
                        i => rgb[i] *= 0.3,
                    }
                }
            }
            let grain = 1.0 + 0.02 * rng.normal();
            for k in 0..3 {
                out.c[k][y * w + x] = rgb[k] * grain;
            }
        }
    }
    // Ink spreads into the paper.
    out.blur(0.7);
    out
}

/// The screen showing the photo at `sub` physical pixels per photo pixel (3 sub-pixel
/// columns and a dark matrix line): backlight black, tint, refresh banding.
fn screen_medium(photo: &RgbImage, rng: &mut Rng) -> Plane {
    let src = Plane::from_rgb(photo);
    let cell = 4; // physical pixels per screen pixel: R, G, B stripes + 1 dark column/row
    let (w, h) = (src.w * cell, src.h * cell);
    let mut out = Plane::new(w, h, [0.0; 3]);
    let black = rng.uniform(8.0, 22.0);
    let tint = [rng.uniform(0.88, 0.96), rng.uniform(0.95, 1.0), 1.0];
    let band_period = h as f32 / rng.uniform(3.0, 7.0);
    let band_phase = rng.uniform(0.0, std::f32::consts::TAU);
    for y in 0..h {
        let band = 1.0 + 0.05 * (2.0 * std::f32::consts::PI * y as f32 / band_period + band_phase).sin();
        for x in 0..w {
            let (px, py) = (x / cell, y / cell);
            let (sx, sy) = (x % cell, y % cell);
            let i = y * w + x;
            if sx == 3 || sy == 3 {
                for k in 0..3 {
                    out.c[k][i] = black * 0.5;
                }
                continue;
            }
            let v = src.c[sx][py * src.w + px];
            // A lit sub-pixel is one of the cell's 16 physical pixels for its channel
            // (3 of 16 with the matrix): the camera's exposure brings the cell's mean
            // back to the pixel's value. Not clipped here: the lens blurs before the
            // sensor clips.
            out.c[sx][i] = black + v * tint[sx] * band * (255.0 - black) / 255.0 * (16.0 / 3.0);
            for k in 0..3 {
                if k != sx {
                    out.c[k][i] = black * 0.6;
                }
            }
        }
    }
    // Mild diffusion by the cover glass.
    out.blur(0.5);
    out
}

/// A real-looking surrounding scene: the source photo itself, enlarged and blurred (a
/// wall, a room), so the medium sits in an ordinary environment.
fn scene(photo: &RgbImage, w: usize, h: usize, rng: &mut Rng) -> Plane {
    let bg = image::imageops::resize(photo, (w / 4).max(8) as u32, (h / 4).max(8) as u32, image::imageops::FilterType::Triangle);
    let mut p = Plane::from_rgb(&image::imageops::resize(&bg, w as u32, h as u32, image::imageops::FilterType::Triangle));
    let dim = rng.uniform(0.55, 0.85);
    for c in &mut p.c {
        for v in c.iter_mut() {
            *v *= dim;
        }
    }
    p
}

/// The camera: the medium (`medium`, physical pixels) placed in `scene` at `scale`
/// camera pixels per physical pixel, rotated by `angle` (radians); optics blur (sigma in
/// camera pixels), sensor noise, then JPEG at `quality`. `bezel` (physical pixels) draws a
/// black frame around the medium; `cut` keeps only an ellipse of the medium (a cut-out).
struct Capture {
    scale: f32,
    angle: f32,
    blur: f32,
    noise: f32,
    quality: u8,
    bezel: f32,
    cut: bool,
    hand: bool,
}

fn capture(medium: &Plane, scene_src: &RgbImage, cap: &Capture, rng: &mut Rng) -> RgbImage {
    // Camera frame: the medium (with bezel) covers about 70% of the frame's width.
    let mw = (medium.w as f32 + 2.0 * cap.bezel) * cap.scale;
    let mh = (medium.h as f32 + 2.0 * cap.bezel) * cap.scale;
    let (fw, fh) = ((mw / 0.72) as usize, (mh / 0.72) as usize);
    let mut bg = scene(scene_src, fw, fh, rng);
    // Blur the medium at physical resolution first (the lens acts before sampling).
    let mut m = medium.clone();
    m.blur(cap.blur / cap.scale);
    let (cx, cy) = (fw as f32 / 2.0 + rng.uniform(-0.03, 0.03) * fw as f32, fh as f32 / 2.0);
    let (sn, cs) = cap.angle.sin_cos();
    let (hw, hh) = (medium.w as f32 / 2.0, medium.h as f32 / 2.0);
    for y in 0..fh {
        for x in 0..fw {
            // Camera pixel → physical coordinates of the medium (centred).
            let (dx, dy) = ((x as f32 - cx) / cap.scale, (y as f32 - cy) / cap.scale);
            let (u, v) = (dx * cs + dy * sn, -dx * sn + dy * cs);
            let (mx, my) = (u + hw, v + hh);
            let i = y * fw + x;
            let inside_bezel = u.abs() <= hw + cap.bezel && v.abs() <= hh + cap.bezel;
            let inside = u.abs() <= hw - 0.5 && v.abs() <= hh - 0.5;
            if cap.cut {
                // An ellipse around the head (the face sits in the middle third).
                let (ex, ey) = (u / (hw * 0.62), (v + hh * 0.05) / (hh * 0.80));
                if ex * ex + ey * ey > 1.0 {
                    continue;
                }
            }
            if inside {
                let s = m.sample(mx, my, [0.0; 3]);
                for k in 0..3 {
                    bg.c[k][i] = s[k];
                }
            } else if inside_bezel && cap.bezel > 0.0 {
                for k in 0..3 {
                    bg.c[k][i] = 12.0;
                }
            }
        }
    }
    if cap.hand {
        // A thumb over the lower corner of the sheet.
        let (hx, hy) = (cx + (hw * 0.75) * cap.scale, cy + (hh * 0.95) * cap.scale);
        let r = 0.10 * mw;
        let skin = [rng.uniform(170.0, 215.0), rng.uniform(120.0, 160.0), rng.uniform(95.0, 130.0)];
        for y in 0..fh {
            for x in 0..fw {
                let (ex, ey) = ((x as f32 - hx) / (r * 0.7), (y as f32 - hy) / r);
                if ex * ex + ey * ey <= 1.0 {
                    let shade = 0.85 + 0.15 * (1.0 - (ex * ex + ey * ey));
                    for k in 0..3 {
                        bg.c[k][y * fw + x] = skin[k] * shade;
                    }
                }
            }
        }
    }
    // A little blur over the whole frame (the surroundings are not sharper than the
    // medium), then sensor noise.
    bg.blur(0.4);
    for c in &mut bg.c {
        for v in c.iter_mut() {
            *v += cap.noise * rng.normal();
        }
    }
    let img = bg.to_rgb();
    // JPEG, as a phone camera stores it.
    let mut jpeg = Vec::new();
    if image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, cap.quality).encode_image(&img).is_ok() {
        if let Ok(d) = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg) {
            return d.to_rgb8();
        }
    }
    img
}

/// Adds a specular glare (a bright, smooth reflection) over part of `p`.
fn glare(p: &mut Plane, rng: &mut Rng) {
    let (gx, gy) = (rng.uniform(0.2, 0.8) * p.w as f32, rng.uniform(0.1, 0.5) * p.h as f32);
    let r = rng.uniform(0.15, 0.3) * p.w as f32;
    let strength = rng.uniform(40.0, 90.0);
    for y in 0..p.h {
        for x in 0..p.w {
            let d2 = ((x as f32 - gx).powi(2) + (y as f32 - gy).powi(2)) / (r * r);
            let add = strength * (-d2).exp();
            for k in 0..3 {
                let i = y * p.w + x;
                p.c[k][i] += add;
            }
        }
    }
}

/// One synthetic attack of `kind` made from the real photo `photo` and its face box
/// `rect` (`[x1, y1, x2, y2]`), deterministic for `seed`. The face in the returned
/// capture is about 150–230 camera pixels wide.
pub fn synthesize(kind: AttackKind, photo: &RgbImage, rect: [f32; 4], seed: u64) -> RgbImage {
    let mut rng = Rng(seed ^ (kind as u64 + 1).wrapping_mul(0x1234_5678_9ABC_DEF1));
    match kind {
        AttackKind::Print | AttackKind::CutOut => {
            // A print of the photo with the face 90–120 photo pixels wide, 2 dots per
            // photo pixel; the camera sees 0.8–1.1 camera pixels per dot.
            let shown = face_region(photo, rect, 2.6, rng.uniform(90.0, 120.0));
            let medium = print_medium(&shown, 2, &mut rng);
            let cap = Capture {
                scale: rng.uniform(0.8, 1.1),
                angle: rng.uniform(-0.06, 0.06),
                blur: rng.uniform(0.5, 0.9),
                noise: rng.uniform(1.0, 3.0),
                quality: rng.uniform(80.0, 92.0) as u8,
                bezel: 0.0,
                cut: kind == AttackKind::CutOut,
                hand: kind == AttackKind::Print,
            };
            capture(&medium, photo, &cap, &mut rng)
        }
        AttackKind::Screen | AttackKind::RecaptureBlur => {
            // A phone screen: the face 45–70 screen pixels wide, 4 physical pixels per
            // screen pixel; the camera sees 0.7–1.0 camera pixels per physical pixel. The
            // defocused recapture films it out of focus (the grid averages out) and
            // stores it at a lower JPEG quality.
            let defocused = kind == AttackKind::RecaptureBlur;
            let shown = face_region(photo, rect, 2.4, rng.uniform(45.0, 70.0));
            let mut medium = screen_medium(&shown, &mut rng);
            glare(&mut medium, &mut rng);
            let cap = Capture {
                scale: rng.uniform(0.7, 1.0),
                angle: rng.uniform(-0.05, 0.05),
                blur: if defocused { rng.uniform(2.0, 3.0) } else { rng.uniform(0.5, 0.8) },
                noise: rng.uniform(1.0, 3.0),
                quality: if defocused { rng.uniform(60.0, 75.0) } else { rng.uniform(80.0, 92.0) } as u8,
                bezel: medium.w as f32 * 0.05,
                cut: false,
                hand: false,
            };
            capture(&medium, photo, &cap, &mut rng)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn photo() -> RgbImage {
        RgbImage::from_fn(200, 200, |x, y| Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) / 2 % 256) as u8]))
    }

    #[test]
    fn attacks_are_deterministic_and_differ_by_seed() {
        for kind in AttackKind::ALL {
            let a = synthesize(kind, &photo(), [60.0, 60.0, 140.0, 140.0], 1);
            let b = synthesize(kind, &photo(), [60.0, 60.0, 140.0, 140.0], 1);
            let c = synthesize(kind, &photo(), [60.0, 60.0, 140.0, 140.0], 2);
            assert_eq!(a, b, "{kind:?}");
            assert_ne!(a, c, "{kind:?}");
            assert!(a.width() >= 150 && a.height() >= 150, "{kind:?}: {}x{}", a.width(), a.height());
        }
    }

    #[test]
    fn a_print_lifts_the_blacks() {
        let black = RgbImage::from_pixel(120, 120, Rgb([0, 0, 0]));
        let p = synthesize(AttackKind::Print, &black, [30.0, 30.0, 90.0, 90.0], 5);
        let c = p.get_pixel(p.width() / 2, p.height() / 2);
        assert!(c[0] > 15 && c[1] > 15, "{c:?}");
    }
}
