//! Face chips as dlib cuts them: `get_face_chip_details(shape, size, padding)` and
//! `extract_image_chip` with bilinear interpolation, ported from dlib 20.0.1
//! (`dlib/image_transforms/interpolation.h`, `image_pyramid.h`, `geometry/`). The dlib
//! ResNet was trained on chips made this way (150×150, padding 0.25, from the 5-point
//! shape predictor), and its published accuracy holds only for them.
//!
//! What dlib does, and so this:
//! 1. A similarity transform (least squares, Umeyama) from dlib's 5-point template,
//!    padded and scaled to the chip, onto the detected points gives the chip's rotation
//!    angle, scale and centre: a rotated rectangle in the image.
//! 2. If that rectangle is much larger than the chip, the image is first reduced by an
//!    image pyramid (`pyramid_down<2>`: a 5×5 [1 4 6 4 1]² filter in integer arithmetic,
//!    then every other row and column), so the bilinear sampling does not alias. Only the
//!    part of the image around the chip (grown by a margin per level) is reduced.
//! 3. Each chip pixel is sampled bilinearly (in double, truncated to u8 as dlib's
//!    `static_cast<unsigned char>` does) at its place in the chosen pyramid level;
//!    outside that level's image it is black.
//!
//! The arithmetic follows dlib's order of operations so that chips agree to the bit in
//! almost every pixel; dlib finds its affine maps with a pseudo-inverse where this uses
//! the closed form, which can differ in the last bits (documented by the parity test).

use image::RgbImage;

/// dlib's 5-point chip template (`get_face_chip_details`): the outer and inner corner of
/// the eye on the image's right, the outer and inner corner of the other eye, the
/// bottom of the nose, in a unit square.
const TEMPLATE_5: [[f64; 2]; 5] = [
    [0.8595674595992, 0.2134981538014],
    [0.6460604764104, 0.2289674387677],
    [0.1205750620789, 0.2137274526848],
    [0.3340850613712, 0.2290642403242],
    [0.4901123135679, 0.6277975316475],
];

/// dlib `drectangle`: double corners, `right`/`bottom` inclusive (width `r - l + 1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DRect {
    pub l: f64,
    pub t: f64,
    pub r: f64,
    pub b: f64,
}

impl DRect {
    fn is_empty(&self) -> bool {
        self.t > self.b || self.l > self.r
    }
    fn width(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.r - self.l + 1.0
        }
    }
    fn height(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.b - self.t + 1.0
        }
    }
    fn area(&self) -> f64 {
        self.width() * self.height()
    }
    fn center(&self) -> [f64; 2] {
        [(self.l + self.r) / 2.0, (self.t + self.b) / 2.0]
    }
    /// `drectangle(p1) + drectangle(p2)`.
    fn spanning(p: [f64; 2], q: [f64; 2]) -> DRect {
        DRect { l: p[0].min(q[0]), t: p[1].min(q[1]), r: p[0].max(q[0]), b: p[1].max(q[1]) }
    }
    /// `*this + drectangle(p)`.
    fn add_point(self, p: [f64; 2]) -> DRect {
        if self.is_empty() {
            return DRect { l: p[0], t: p[1], r: p[0], b: p[1] };
        }
        DRect { l: self.l.min(p[0]), t: self.t.min(p[1]), r: self.r.max(p[0]), b: self.b.max(p[1]) }
    }
    fn tl(&self) -> [f64; 2] {
        [self.l, self.t]
    }
    fn tr(&self) -> [f64; 2] {
        [self.r, self.t]
    }
    fn bl(&self) -> [f64; 2] {
        [self.l, self.b]
    }
    fn br(&self) -> [f64; 2] {
        [self.r, self.b]
    }
}

/// Where to cut a chip: dlib `chip_details` (a rectangle rotated by `angle` radians
/// about its centre, resampled to `rows × cols`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChipDetails {
    pub rect: DRect,
    pub angle: f64,
    pub rows: u32,
    pub cols: u32,
}

/// An affine map `m · p + b` (dlib `point_transform_affine`), `m` row-major.
#[derive(Debug, Clone, Copy)]
struct Affine {
    m: [f64; 4],
    b: [f64; 2],
}

impl Affine {
    fn apply(&self, p: [f64; 2]) -> [f64; 2] {
        [(self.m[0] * p[0] + self.m[1] * p[1]) + self.b[0], (self.m[2] * p[0] + self.m[3] * p[1]) + self.b[1]]
    }
}

/// dlib `find_similarity_transform(from, to)` (Umeyama in double; in 2-D its least-
/// squares rotation+scale is the closed form `[[a, -b], [b, a]]`).
fn similarity(from: &[[f64; 2]], to: &[[f64; 2]]) -> Affine {
    let n = from.len() as f64;
    let (mut mf, mut mt) = ([0f64; 2], [0f64; 2]);
    for (f, t) in from.iter().zip(to) {
        mf = [mf[0] + f[0], mf[1] + f[1]];
        mt = [mt[0] + t[0], mt[1] + t[1]];
    }
    mf = [mf[0] / n, mf[1] / n];
    mt = [mt[0] / n, mt[1] / n];
    let (mut sigma, mut c) = (0f64, [0f64; 4]);
    for (f, t) in from.iter().zip(to) {
        let (fx, fy, tx, ty) = (f[0] - mf[0], f[1] - mf[1], t[0] - mt[0], t[1] - mt[1]);
        sigma += fx * fx + fy * fy;
        c = [c[0] + tx * fx, c[1] + tx * fy, c[2] + ty * fx, c[3] + ty * fy];
    }
    sigma /= n;
    let c = c.map(|v| v / n);
    let (a, b) = if sigma == 0.0 { (1.0, 0.0) } else { ((c[0] + c[3]) / sigma, (c[2] - c[1]) / sigma) };
    let m = [a, -b, b, a];
    let b_ = [mt[0] - (m[0] * mf[0] + m[1] * mf[1]), mt[1] - (m[2] * mf[0] + m[3] * mf[1])];
    Affine { m, b: b_ }
}

/// dlib `get_face_chip_details(det, size, padding)` for a 5-point shape (the points of
/// `shape_predictor_5_face_landmarks.dat`, in its order). `None` for a size of 0, a
/// negative or non-finite padding, or non-finite points.
pub fn face_chip_details(parts: &[[f64; 2]; 5], size: u32, padding: f64) -> Option<ChipDetails> {
    if size == 0 || !(padding >= 0.0 && padding.is_finite()) || parts.iter().flatten().any(|v| !v.is_finite()) {
        return None;
    }
    let s = f64::from(size);
    let from: Vec<[f64; 2]> =
        TEMPLATE_5.iter().map(|p| [(padding + p[0]) / (2.0 * padding + 1.0) * s, (padding + p[1]) / (2.0 * padding + 1.0) * s]).collect();
    // dlib chip_details(chip_points, img_points, dims).
    let tform = similarity(&from, parts);
    let p = [tform.m[0], tform.m[2]]; // m · (1, 0)
    let angle = p[1].atan2(p[0]);
    let scale = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let centre = tform.apply([s / 2.0, s / 2.0]);
    // centered_drect(centre, size·scale, size·scale)
    let w = s * scale - 1.0;
    let rect = DRect { l: centre[0] - w / 2.0, t: centre[1] - w / 2.0, r: centre[0] + w / 2.0, b: centre[1] + w / 2.0 };
    Some(ChipDetails { rect, angle, rows: size, cols: size })
}

/// An RGB image or a window of one, owned.
struct Plane {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

impl Plane {
    fn window(img: &RgbImage, x0: usize, y0: usize, w: usize, h: usize) -> Plane {
        let iw = img.width() as usize;
        let raw = img.as_raw();
        let mut px = Vec::with_capacity(w * h * 3);
        for y in y0..y0 + h {
            px.extend_from_slice(&raw[(y * iw + x0) * 3..(y * iw + x0 + w) * 3]);
        }
        Plane { w, h, px }
    }
}

/// dlib `pyramid_down<2>` on an RGB image (the rgb→rgb overload: 16-bit sums, integer
/// division by 256). Smaller than 9×9 gives an empty image, as in dlib.
fn pyramid_down(src: &Plane) -> Plane {
    if src.h <= 8 || src.w <= 8 {
        return Plane { w: 0, h: 0, px: Vec::new() };
    }
    let tw = (src.w - 3) / 2;
    let (dw, dh) = (tw, (src.h - 3) / 2);
    // Row filter: every row, every other column.
    let mut tmp = vec![0u32; src.h * tw * 3];
    for r in 0..src.h {
        let row = &src.px[r * src.w * 3..(r + 1) * src.w * 3];
        for c in 0..tw {
            let oc = 2 * c;
            for ch in 0..3 {
                let p = |k: usize| u32::from(row[(oc + k) * 3 + ch]);
                tmp[(r * tw + c) * 3 + ch] = p(0) + p(1) * 4 + p(2) * 6 + p(3) * 4 + p(4);
            }
        }
    }
    // Column filter on every other row, starting at row 2.
    let mut px = vec![0u8; dw * dh * 3];
    let mut dr = 0;
    let mut r = 2;
    while r + 2 < src.h && dr < dh {
        for c in 0..tw {
            for ch in 0..3 {
                let t = |k: usize| tmp[(k * tw + c) * 3 + ch];
                let v = t(r - 2) + t(r - 1) * 4 + t(r) * 6 + t(r + 1) * 4 + t(r + 2);
                px[(dr * dw + c) * 3 + ch] = (v / 256) as u8;
            }
        }
        dr += 1;
        r += 2;
    }
    Plane { w: dw, h: dh, px }
}

/// `pyramid_down<2>::rect_down`: each corner `p / 2 - (1.25, 0.75)`.
fn rect_down(r: &DRect) -> DRect {
    let down = |p: [f64; 2]| [p[0] / 2.0 - 1.25, p[1] / 2.0 - 0.75];
    DRect::spanning(down(r.tl()), down(r.br()))
}

/// dlib `rotate_point(center, p, angle)`.
fn rotate_point(c: [f64; 2], p: [f64; 2], sin: f64, cos: f64) -> [f64; 2] {
    let (x, y) = (p[0] - c[0], p[1] - c[1]);
    [(cos * x - sin * y) + c[0], (sin * x + cos * y) + c[1]]
}

/// dlib `interpolate_bilinear` + `transform_image` with a black background.
fn sample(src: &Plane, map: &Affine, rows: u32, cols: u32) -> RgbImage {
    let mut out = RgbImage::new(cols, rows);
    let (sw, sh) = (src.w as i64, src.h as i64);
    for r in 0..rows {
        for c in 0..cols {
            let p = map.apply([f64::from(c), f64::from(r)]);
            if !(p[0].is_finite() && p[1].is_finite()) {
                continue;
            }
            let left = p[0].floor() as i64;
            let top = p[1].floor() as i64;
            if !(left >= 0 && top >= 0 && left + 1 < sw && top + 1 < sh) {
                continue;
            }
            let lr = p[0] - left as f64;
            let tb = p[1] - top as f64;
            let at = |x: i64, y: i64, ch: usize| f64::from(src.px[((y * sw + x) * 3) as usize + ch]);
            let mut pixel = [0u8; 3];
            for (ch, v) in pixel.iter_mut().enumerate() {
                let (tl, tr, bl, br) = (at(left, top, ch), at(left + 1, top, ch), at(left, top + 1, ch), at(left + 1, top + 1, ch));
                let value = (1.0 - tb) * ((1.0 - lr) * tl + lr * tr) + tb * ((1.0 - lr) * bl + lr * br);
                *v = value as u8; // static_cast<unsigned char>: truncation
            }
            out.put_pixel(c, r, image::Rgb(pixel));
        }
    }
    out
}

/// dlib `extract_image_chip(img, details, chip)` with bilinear interpolation (through
/// `extract_image_chips`, image pyramid included).
pub fn extract_image_chip(img: &RgbImage, d: &ChipDetails) -> RgbImage {
    let size = f64::from(d.rows) * f64::from(d.cols);
    let finite = [d.rect.l, d.rect.t, d.rect.r, d.rect.b, d.angle].iter().all(|v| v.is_finite());
    if d.rows == 0 || d.cols == 0 || !finite || d.rect.is_empty() {
        return RgbImage::new(d.cols, d.rows);
    }
    let (iw, ih) = (f64::from(img.width()), f64::from(img.height()));
    if d.angle == 0.0 && f64::from(d.rows) == d.rect.height() && f64::from(d.cols) == d.rect.width() {
        return basic_chip(img, d);
    }
    // Pyramid depth: reduce while the (reduced) rectangle is larger than the chip.
    let mut depth = 0usize;
    let mut grow = 2.0f64;
    let mut rect = rect_down(&d.rect);
    while rect.area() > size {
        rect = rect_down(&rect);
        depth += 1;
        grow = grow * 2.0 + 2.0;
    }
    let (sin, cos) = if d.angle == 0.0 { (0.0, 1.0) } else { (d.angle.sin(), d.angle.cos()) };
    let centre = d.rect.center();
    let mut rot = DRect { l: 0.0, t: 0.0, r: -1.0, b: -1.0 };
    for corner in [d.rect.tl(), d.rect.tr(), d.rect.bl(), d.rect.br()] {
        rot = rot.add_point(rotate_point(centre, corner, sin, cos));
    }
    // grow_rect(rot, grow).intersect(get_rect(img)), rounded to a `rectangle` (lround).
    let g = DRect { l: (rot.l - grow).max(0.0), t: (rot.t - grow).max(0.0), r: (rot.r + grow).min(iw - 1.0), b: (rot.b + grow).min(ih - 1.0) };
    let (bl, bt, br, bb) = (g.l.round(), g.t.round(), g.r.round(), g.b.round());
    if bl > br || bt > bb {
        return RgbImage::new(d.cols, d.rows); // the chip lies outside the image
    }
    let (bx, by) = (bl as usize, bt as usize);
    let window = Plane::window(img, bx, by, (br - bl) as usize + 1, (bb - bt) as usize + 1);
    let mut levels = Vec::with_capacity(depth);
    for i in 0..depth {
        let next = pyramid_down(if i == 0 { &window } else { &levels[i - 1] });
        levels.push(next);
    }
    // The level to sample from, and the chip's rectangle in it.
    let mut level: Option<usize> = None;
    let mut rect = DRect { l: d.rect.l - bl, t: d.rect.t - bt, r: d.rect.r - bl, b: d.rect.b - bt };
    while rect_down(&rect).area() > size {
        level = Some(level.map_or(0, |l| l + 1));
        rect = rect_down(&rect);
    }
    let c = rect.center();
    let to = [rect.tl(), rect.tr(), rect.bl()].map(|p| rotate_point(c, p, sin, cos));
    // find_affine_transform from the chip's corners (0,0), (cols-1,0), (0,rows-1).
    let (w1, h1) = (f64::from(d.cols) - 1.0, f64::from(d.rows) - 1.0);
    let m = [
        if w1 > 0.0 { (to[1][0] - to[0][0]) / w1 } else { 0.0 },
        if h1 > 0.0 { (to[2][0] - to[0][0]) / h1 } else { 0.0 },
        if w1 > 0.0 { (to[1][1] - to[0][1]) / w1 } else { 0.0 },
        if h1 > 0.0 { (to[2][1] - to[0][1]) / h1 } else { 0.0 },
    ];
    let map = Affine { m, b: to[0] };
    let src = match level {
        None => &window,
        Some(l) => match levels.get(l) {
            Some(p) => p,
            None => return RgbImage::new(d.cols, d.rows),
        },
    };
    sample(src, &map, d.rows, d.cols)
}

/// dlib `impl::basic_extract_image_chip`: a plain copy (zero outside the image).
fn basic_chip(img: &RgbImage, d: &ChipDetails) -> RgbImage {
    let (l, t) = (d.rect.l.round() as i64, d.rect.t.round() as i64);
    let mut out = RgbImage::new(d.cols, d.rows);
    for r in 0..d.rows {
        for c in 0..d.cols {
            let (x, y) = (l + i64::from(c), t + i64::from(r));
            if x >= 0 && y >= 0 && x < i64::from(img.width()) && y < i64::from(img.height()) {
                out.put_pixel(c, r, *img.get_pixel(x as u32, y as u32));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_points_map_onto_themselves() {
        // Points placed exactly where the template puts them in a 150-pixel chip with
        // padding 0.25: no rotation, scale 1, the chip is the rectangle (0,0)-(149,149).
        let parts = TEMPLATE_5.map(|p| [(0.25 + p[0]) / 1.5 * 150.0, (0.25 + p[1]) / 1.5 * 150.0]);
        let d = face_chip_details(&parts, 150, 0.25).expect("details");
        assert!(d.angle.abs() < 1e-12, "{d:?}");
        for (got, want) in [d.rect.l, d.rect.t, d.rect.r, d.rect.b].iter().zip([0.5, 0.5, 149.5, 149.5]) {
            assert!((got - want).abs() < 1e-9, "{d:?}");
        }
    }

    #[test]
    fn rotated_and_scaled_face() {
        // The template rotated by 30° and scaled ×2 about the chip centre.
        let (s, c) = (30f64.to_radians().sin(), 30f64.to_radians().cos());
        let parts = TEMPLATE_5.map(|p| {
            let (x, y) = ((0.25 + p[0]) / 1.5 * 150.0 - 75.0, (0.25 + p[1]) / 1.5 * 150.0 - 75.0);
            [500.0 + 2.0 * (c * x - s * y), 400.0 + 2.0 * (s * x + c * y)]
        });
        let d = face_chip_details(&parts, 150, 0.25).expect("details");
        assert!((d.angle - 30f64.to_radians()).abs() < 1e-9);
        assert!((d.rect.r - d.rect.l - 299.0).abs() < 1e-9, "{d:?}");
        assert!(((d.rect.l + d.rect.r) / 2.0 - 500.0).abs() < 1e-9 && ((d.rect.t + d.rect.b) / 2.0 - 400.0).abs() < 1e-9);
        assert!(face_chip_details(&parts, 0, 0.25).is_none());
        assert!(face_chip_details(&parts, 150, f64::NAN).is_none());
    }

    #[test]
    fn pyramid_down_matches_hand_computed_values() {
        // A constant image stays constant (16·16·v / 256 = v); size (n-3)/2.
        let src = Plane { w: 13, h: 11, px: vec![200; 13 * 11 * 3] };
        let d = pyramid_down(&src);
        assert_eq!((d.w, d.h), (5, 4));
        assert!(d.px.iter().all(|&v| v == 200));
        // A single bright pixel at (4, 4) spreads as the outer product of [1 4 6 4 1].
        let mut px = vec![0u8; 13 * 11 * 3];
        px[(4 * 13 + 4) * 3] = 255;
        let d = pyramid_down(&Plane { w: 13, h: 11, px });
        // Output (1,1) is centred on input (4,4): 255·36/256 = 35.
        assert_eq!(d.px[(d.w + 1) * 3], 35);
        // Output (0,1) is centred on (2,4): weight 1·6 → 255·6/256 = 5.
        assert_eq!(d.px[d.w * 3], 5);
        assert_eq!(pyramid_down(&Plane { w: 8, h: 100, px: vec![0; 2400] }).w, 0);
    }

    #[test]
    fn chips_from_synthetic_images() {
        // A horizontal gradient; an unrotated chip of a 300-pixel square centred on
        // (400, 300) needs one pyramid level and still shows the gradient left to right.
        let img = RgbImage::from_fn(800, 600, |x, _| image::Rgb([(x / 4) as u8, 100, 50]));
        let rect = DRect { l: 250.5, t: 150.5, r: 549.5, b: 449.5 };
        let chip = extract_image_chip(&img, &ChipDetails { rect, angle: 0.0, rows: 150, cols: 150 });
        assert_eq!(chip.dimensions(), (150, 150));
        let (a, b) = (chip.get_pixel(10, 75)[0], chip.get_pixel(140, 75)[0]);
        assert!((60..70).contains(&a) && (130..140).contains(&b), "{a} {b}");
        assert!(chip.pixels().all(|p| p[1] == 100 && p[2] == 50));
        // Rotated by 90°: the gradient runs top to bottom instead (a clockwise turn of the
        // rectangle maps chip rows onto image columns).
        let chip = extract_image_chip(&img, &ChipDetails { rect, angle: std::f64::consts::FRAC_PI_2, rows: 150, cols: 150 });
        let (top, bottom) = (chip.get_pixel(75, 10)[0], chip.get_pixel(75, 140)[0]);
        assert!(top.abs_diff(b) <= 2 && bottom.abs_diff(a) <= 2 || top.abs_diff(a) <= 2 && bottom.abs_diff(b) <= 2, "{top} {bottom}");
        // Entirely outside the image: black, no panic.
        let far = DRect { l: 5000.0, t: 5000.0, r: 5299.0, b: 5299.0 };
        let chip = extract_image_chip(&img, &ChipDetails { rect: far, angle: 0.3, rows: 150, cols: 150 });
        assert!(chip.pixels().all(|p| p.0 == [0, 0, 0]));
        // Degenerate input.
        let nan = DRect { l: f64::NAN, t: 0.0, r: 1.0, b: 1.0 };
        assert_eq!(extract_image_chip(&img, &ChipDetails { rect: nan, angle: 0.0, rows: 4, cols: 4 }).dimensions(), (4, 4));
        // An exact-size unrotated chip is a plain copy.
        let copy = extract_image_chip(&img, &ChipDetails { rect: DRect { l: 10.0, t: 20.0, r: 159.0, b: 169.0 }, angle: 0.0, rows: 150, cols: 150 });
        assert_eq!(copy.get_pixel(0, 0), img.get_pixel(10, 20));
    }
}
