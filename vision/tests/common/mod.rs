//! Shared by the integration tests: where the installed models are, and the rule for
//! when they are not: fail with a clear message, unless IDV_SKIP_MODELS=1, then print a
//! SKIPPED line and pass. CI runs scripts/models.sh first.
#![allow(dead_code)]

use idv_vision::registry::EntryKind;
use idv_vision::testdata;
use std::path::PathBuf;

/// The models dir if the runtime, the models and the test photos are installed;
/// `None` (after printing SKIPPED) when they are not and IDV_SKIP_MODELS=1; else panics.
pub fn models_or_skip(test: &str) -> Option<PathBuf> {
    let dir = idv_vision::models_dir();
    let missing = testdata::missing(&dir, &[EntryKind::Runtime, EntryKind::Model, EntryKind::Data, EntryKind::TestImage, EntryKind::TestVideo]);
    if missing.is_empty() {
        return Some(dir);
    }
    let shown: Vec<&str> = missing.iter().take(3).map(String::as_str).collect();
    let what = format!("vision models not installed in {} ({} files missing: {}…)", dir.display(), missing.len(), shown.join(", "));
    if std::env::var("IDV_SKIP_MODELS").as_deref() == Ok("1") {
        println!("SKIPPED: {test}: {what}; IDV_SKIP_MODELS=1");
        None
    } else {
        panic!("{what}: run scripts/models.sh first, or set IDV_SKIP_MODELS=1 to skip the tests that need them");
    }
}

pub fn video_bytes(dir: &std::path::Path, id: &str) -> Vec<u8> {
    testdata::read_test_video(dir, id).unwrap_or_else(|e| panic!("{e}"))
}

/// ffmpeg for the video tests: the same rule as the models (scripts/test.sh installs
/// Debian's ffmpeg).
pub fn video_decoder_or_skip(test: &str) -> Option<idv_vision::video::VideoDecoder> {
    let decoder = idv_vision::video::VideoDecoder::from_env();
    if decoder.available() {
        return Some(decoder);
    }
    if std::env::var("IDV_SKIP_MODELS").as_deref() == Ok("1") {
        println!("SKIPPED: {test}: ffmpeg/ffprobe not installed; IDV_SKIP_MODELS=1");
        None
    } else {
        panic!("ffmpeg/ffprobe not found: install Debian's ffmpeg (scripts/test.sh does), or set IDV_SKIP_MODELS=1");
    }
}

pub fn image_bytes(dir: &std::path::Path, id: &str) -> Vec<u8> {
    testdata::read_test_image(dir, id).unwrap_or_else(|e| panic!("{e}"))
}

/// A JPEG APP1 segment holding an EXIF block with just an orientation tag (1..=8).
pub fn exif_app1(orientation: u16) -> Vec<u8> {
    let tiff = exif_tiff(orientation);
    let len = (2 + 6 + tiff.len()) as u16;
    let mut seg = vec![0xFF, 0xE1];
    seg.extend_from_slice(&len.to_be_bytes());
    seg.extend_from_slice(b"Exif\0\0");
    seg.extend_from_slice(&tiff);
    seg
}

/// Big-endian TIFF header and one IFD with tag 0x0112 (Orientation, SHORT).
pub fn exif_tiff(orientation: u16) -> Vec<u8> {
    let mut t = b"MM\0\x2A\0\0\0\x08".to_vec();
    t.extend_from_slice(&1u16.to_be_bytes()); // one entry
    t.extend_from_slice(&0x0112u16.to_be_bytes());
    t.extend_from_slice(&3u16.to_be_bytes()); // SHORT
    t.extend_from_slice(&1u32.to_be_bytes()); // count
    t.extend_from_slice(&orientation.to_be_bytes());
    t.extend_from_slice(&[0, 0]);
    t.extend_from_slice(&0u32.to_be_bytes()); // no next IFD
    t
}

/// `jpeg` with an EXIF orientation inserted right after SOI.
pub fn jpeg_with_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    assert_eq!(&jpeg[..2], &[0xFF, 0xD8], "not a JPEG");
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&exif_app1(orientation));
    out.extend_from_slice(&jpeg[2..]);
    out
}

pub fn encode_jpeg(img: &image::RgbImage, quality: u8) -> Vec<u8> {
    let mut buf = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, quality).encode_image(img).expect("encode JPEG");
    buf
}
