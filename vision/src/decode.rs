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
    let dct_scaled = match (format, limits.working_side) {
        (ImageFormat::Jpeg, Some(side)) => decode_jpeg_dct_scaled(bytes, side, limits),
        _ => None,
    };
    let mut img = match dct_scaled {
        Some(img) => img,
        None => DynamicImage::from_decoder(decoder).map_err(|e| classify(format, e))?,
    };
    img.apply_orientation(orientation);
    let mut scale = 1.0f32;
    if let Some(side) = limits.working_side.filter(|&s| width.max(height) > s) {
        img = img.thumbnail(side, side);
        scale = width.max(height) as f32 / img.width().max(img.height()).max(1) as f32;
    }
    Ok((to_rgb_over_white(img), scale))
}

/// A JPEG at least twice the working side decoded at 1/2, 1/4 or 1/8 of its size by the
/// inverse DCT itself (the smallest factor that still leaves the working side), so a
/// 40 MP photo never exists at full size in memory and its pixels cost a fraction of the
/// time. `None` when no factor applies or the colour model is not 8-bit grey or RGB
/// (CMYK, 12-bit): the full decoder takes those, as before.
fn decode_jpeg_dct_scaled(bytes: &[u8], working_side: u32, limits: &DecodeLimits) -> Option<DynamicImage> {
    use jpeg_decoder::{Decoder, PixelFormat};
    // A JPEG this decoder refuses goes to the full decoder, which may tolerate it (and
    // answers the client's error when it does not): never refuse what was accepted before.
    let corrupt = |e: jpeg_decoder::Error| tracing::debug!(error = %e, "scaled JPEG decode failed; decoding at full size");
    let mut decoder = Decoder::new(Cursor::new(bytes));
    // The coefficient buffers of a progressive JPEG are the largest allocation.
    decoder.set_max_decoding_buffer_size(usize::try_from(limits.max_pixels.saturating_mul(8)).unwrap_or(usize::MAX));
    decoder.read_info().map_err(corrupt).ok()?;
    let info = decoder.info()?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    if width.max(height) < working_side.saturating_mul(2) || !matches!(info.pixel_format, PixelFormat::L8 | PixelFormat::RGB24) {
        return None;
    }
    // Ask for the working side on the longer axis: the decoder picks the smallest
    // factor whose result is at least that large.
    let side = u16::try_from(working_side).unwrap_or(u16::MAX);
    let (req_w, req_h) = if width >= height {
        (side, u16::try_from(u64::from(height) * u64::from(working_side) / u64::from(width).max(1)).unwrap_or(1).max(1))
    } else {
        (u16::try_from(u64::from(width) * u64::from(working_side) / u64::from(height).max(1)).unwrap_or(1).max(1), side)
    };
    let (w, h) = decoder.scale(req_w, req_h).map_err(corrupt).ok()?;
    let pixels = decoder.decode().map_err(corrupt).ok()?;
    let (w, h) = (u32::from(w), u32::from(h));
    match info.pixel_format {
        PixelFormat::L8 => image::GrayImage::from_raw(w, h, pixels).map(DynamicImage::ImageLuma8),
        _ => RgbImage::from_raw(w, h, pixels).map(DynamicImage::ImageRgb8),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let img = RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 128]));
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Jpeg).expect("encode");
        out
    }

    /// The inverse DCT picks the smallest factor that still leaves the working side.
    #[test]
    fn dct_scaling_picks_the_factor_that_keeps_the_working_side() {
        let bytes = jpeg(4400, 1760);
        let limits = DecodeLimits::default();
        let dims = |side| decode_jpeg_dct_scaled(&bytes, side, &limits).map(|i| (i.width(), i.height()));
        assert_eq!(dims(2048), Some((2200, 880)));
        assert_eq!(dims(1000), Some((1100, 440)));
        assert_eq!(dims(500), Some((550, 220)));
        // Under twice the working side: no factor applies, the full decoder runs.
        assert_eq!(dims(4096), None);
        assert_eq!(decode_jpeg_dct_scaled(b"not a jpeg", 100, &limits).map(|i| i.width()), None);
    }
}
