//! Pipeline stage 1: untrusted bytes to an upright RGB image.
//!
//! Only JPEG, PNG and WebP are accepted (the only decoders compiled in). The declared
//! dimensions are checked before any pixel is decoded, so a small file that claims a
//! huge image is refused without allocating it. EXIF orientation (JPEG, PNG, WebP) is
//! applied, so detection sees the photo the way a viewer shows it. Transparent pixels
//! are composited over white rather than dropped, so a transparent background does not
//! turn into whatever colour the encoder left under it.

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageError, ImageFormat, ImageReader, RgbImage};
use std::io::Cursor;

/// Size limits applied before and during decoding.
#[derive(Debug, Clone)]
pub struct DecodeLimits {
    /// Encoded size.
    pub max_bytes: usize,
    /// Longest side, in pixels.
    pub max_side: u32,
    /// Width × height.
    pub max_pixels: u64,
    /// Shortest side: anything smaller cannot contain a usable face or card.
    pub min_side: u32,
    /// Longest side the caller works at: a larger image is scaled down (area averaging)
    /// right after decoding, so every later stage (detector pyramids, QR search) costs
    /// what this size costs, not what the upload's size would. `None`: full size.
    pub working_side: Option<u32>,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits {
            // The ingest tier's own cap on an uploaded image (ingest/src/config.rs).
            max_bytes: 10 * 1024 * 1024,
            max_side: 10_000,
            // 40 MP: any phone camera; 120 MB as RGB, the most one decode may hold.
            max_pixels: 40_000_000,
            min_side: 16,
            working_side: None,
        }
    }
}

impl DecodeLimits {
    /// Faces: MTCNN and the embedder work on faces of a few hundred pixels; 2048 px keeps
    /// a face a tenth of a 40 MP photo's width at ~200 px.
    pub fn faces() -> Self {
        DecodeLimits { working_side: Some(2048), ..DecodeLimits::default() }
    }
    /// Cards: printed text and QR modules need more pixels than faces.
    pub fn cards() -> Self {
        DecodeLimits { working_side: Some(4096), ..DecodeLimits::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("image is empty")]
    Empty,
    #[error("image is {bytes} bytes, the limit is {max}")]
    TooManyBytes { bytes: usize, max: usize },
    #[error("not a JPEG, PNG or WebP image")]
    UnsupportedFormat,
    #[error("image too large: {0}")]
    TooLarge(String),
    #[error("image is {width}x{height}; each side must be at least {min_side} pixels")]
    TooSmall { width: u32, height: u32, min_side: u32 },
    #[error("corrupt {format} image: {reason}")]
    Corrupt { format: &'static str, reason: String },
}

fn format_name(f: ImageFormat) -> &'static str {
    match f {
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::Png => "PNG",
        ImageFormat::WebP => "WebP",
        _ => "unsupported",
    }
}

fn classify(format: ImageFormat, e: ImageError) -> DecodeError {
    match e {
        ImageError::Limits(l) => DecodeError::TooLarge(l.to_string()),
        ImageError::Unsupported(_) => DecodeError::UnsupportedFormat,
        other => DecodeError::Corrupt { format: format_name(format), reason: other.to_string() },
    }
}

/// Decodes `bytes` (JPEG, PNG or WebP) into an upright 8-bit RGB image (at most
/// `limits.working_side` on its longest side).
pub fn decode(bytes: &[u8], limits: &DecodeLimits) -> Result<RgbImage, DecodeError> {
    decode_scaled(bytes, limits).map(|(img, _)| img)
}

/// As [`decode`], with the factor from the returned image's pixels to the upload's
/// (1.0 when it was not scaled down): positions reported to a client are multiplied by it.
pub fn decode_scaled(bytes: &[u8], limits: &DecodeLimits) -> Result<(RgbImage, f32), DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::Empty);
    }
    if bytes.len() > limits.max_bytes {
        return Err(DecodeError::TooManyBytes { bytes: bytes.len(), max: limits.max_bytes });
    }
    // By magic bytes, never by a declared content type or file name.
    let format = match image::guess_format(bytes) {
        Ok(f @ (ImageFormat::Jpeg | ImageFormat::Png | ImageFormat::WebP)) => f,
        _ => return Err(DecodeError::UnsupportedFormat),
    };
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut decoder_limits = image::Limits::default();
    decoder_limits.max_image_width = Some(limits.max_side);
    decoder_limits.max_image_height = Some(limits.max_side);
    // The decoded image (up to 16-bit RGBA before conversion) plus decoder scratch.
    decoder_limits.max_alloc = Some(limits.max_pixels.saturating_mul(8).saturating_add(64 << 20));
    reader.limits(decoder_limits);
    let mut decoder = reader.into_decoder().map_err(|e| classify(format, e))?;

    let (width, height) = decoder.dimensions();
    if width.max(height) > limits.max_side || u64::from(width) * u64::from(height) > limits.max_pixels {
        return Err(DecodeError::TooLarge(format!(
            "{width}x{height}; the limits are {} px a side and {} pixels",
            limits.max_side, limits.max_pixels
        )));
    }
    if width.min(height) < limits.min_side {
        return Err(DecodeError::TooSmall { width, height, min_side: limits.min_side });
    }
    // A malformed EXIF block is not worth refusing an otherwise good photo for.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| classify(format, e))?;
    img.apply_orientation(orientation);
    let mut scale = 1.0f32;
    if let Some(side) = limits.working_side.filter(|&s| width.max(height) > s) {
        img = img.thumbnail(side, side);
        scale = width.max(height) as f32 / img.width().max(img.height()).max(1) as f32;
    }
    Ok((to_rgb_over_white(img), scale))
}

fn to_rgb_over_white(img: DynamicImage) -> RgbImage {
    if !img.color().has_alpha() {
        return img.into_rgb8();
    }
    let rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    let mut out = RgbImage::new(w, h);
    for (o, p) in out.pixels_mut().zip(rgba.pixels()) {
        let a = u32::from(p[3]);
        for c in 0..3 {
            // Rounded integer blend: c·a + 255·(1−a), in 0..=255.
            o[c] = ((u32::from(p[c]) * a + 255 * (255 - a) + 127) / 255) as u8;
        }
    }
    out
}
