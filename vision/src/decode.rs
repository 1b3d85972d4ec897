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
    // Far larger than the working side: scaled while decoding (JPEG in the inverse DCT,
    // PNG row by row), so the full-size image is never held. WebP, and anything these
    // paths do not take, is decoded at full size and scaled after.
    let scaled_while_decoding = match (format, limits.working_side) {
        (ImageFormat::Jpeg, Some(side)) => decode_jpeg_dct_scaled(bytes, side, limits),
        (ImageFormat::Png, Some(side)) => decode_png_box_scaled(bytes, side),
        _ => None,
    };
    let mut img = match scaled_while_decoding {
        Some(img) => img,
        None => DynamicImage::from_decoder(decoder).map_err(|e| classify(format, e))?,
    };
    img.apply_orientation(orientation);
    let rgb = to_rgb_over_white(img);
    let (w, h) = rgb.dimensions();
    let long = w.max(h);
    match limits.working_side.filter(|&s| long > s) {
        // Area averaging in one 8-bit pass (`crate::resize`): a 4,096-8,192 px photo, which
        // the inverse DCT cannot halve to the working side, is brought to 4,096 in
        // 0.2-0.3 s, where `image`'s thumbnail filter took 0.4-0.6 s.
        Some(side) => {
            let k = f64::from(side) / f64::from(long);
            let fit = |v: u32| ((f64::from(v) * k).round() as u32).clamp(1, side);
            let shrunk = crate::resize::shrink_rgb_image(&rgb, fit(w), fit(h)).ok_or_else(|| DecodeError::TooLarge(format!("{w}x{h}")))?;
            let scale = width.max(height) as f32 / shrunk.width().max(shrunk.height()).max(1) as f32;
            Ok((shrunk, scale))
        }
        None => Ok((rgb, width.max(height) as f32 / long.max(1) as f32)),
    }
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

/// A non-interlaced 8-bit (after expansion) PNG at least twice the working side, read
/// one row at a time and averaged over k×k boxes (k = the whole factor that still leaves
/// the working side) as the rows come: memory is the output plus one row of sums, not
/// the full image (a 10000×4000 PNG of a few KiB is 120 MB as RGB). `None` for
/// interlaced or 16-bit-only layouts and for anything the row reader refuses: the full
/// decoder takes those, and answers the client's error when the file is corrupt.
fn decode_png_box_scaled(bytes: &[u8], working_side: u32) -> Option<DynamicImage> {
    use png::{BitDepth, ColorType, Transformations};
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    // Palette and low bit depths to 8-bit, tRNS to an alpha channel, 16-bit to 8.
    decoder.set_transformations(Transformations::EXPAND | Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let (width, height, interlaced) = (reader.info().width, reader.info().height, reader.info().interlaced);
    if interlaced || working_side == 0 || width.max(height) < working_side.saturating_mul(2) {
        return None;
    }
    let channels: usize = match reader.output_color_type() {
        (ColorType::Grayscale, BitDepth::Eight) => 1,
        (ColorType::GrayscaleAlpha, BitDepth::Eight) => 2,
        (ColorType::Rgb, BitDepth::Eight) => 3,
        (ColorType::Rgba, BitDepth::Eight) => 4,
        _ => return None,
    };
    let k = width.max(height) / working_side;
    let (out_w, out_h) = (width.div_ceil(k), height.div_ceil(k));
    let (w, kk) = (width as usize, k as usize);
    let mut out = Vec::with_capacity(out_w as usize * out_h as usize * channels);
    let mut sums = vec![0u32; out_w as usize * channels];
    let mut rows_in_box = 0u32;
    for y in 0..height {
        let row = reader.next_row().ok()??;
        let data = row.data().get(..w * channels)?;
        match channels {
            1 => add_row_into_boxes::<1>(data, &mut sums, kk),
            2 => add_row_into_boxes::<2>(data, &mut sums, kk),
            3 => add_row_into_boxes::<3>(data, &mut sums, kk),
            _ => add_row_into_boxes::<4>(data, &mut sums, kk),
        }
        rows_in_box += 1;
        if rows_in_box == k || y + 1 == height {
            for (ox, box_sums) in sums.chunks_exact(channels).enumerate() {
                // The last column of boxes may be narrower than k.
                let cols = (w - ox * kk).min(kk) as u32;
                let n = cols * rows_in_box;
                out.extend(box_sums.iter().map(|&s| ((s + n / 2) / n) as u8));
            }
            sums.fill(0);
            rows_in_box = 0;
        }
    }
    match channels {
        1 => image::GrayImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageLuma8),
        2 => image::GrayAlphaImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageLumaA8),
        3 => RgbImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageRgb8),
        _ => image::RgbaImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageRgba8),
    }
}

/// Adds one row of `C`-channel pixels into the sums of its boxes, `k` pixels a box (the
/// channel count fixed at compile time: this loop is the row path's whole cost).
fn add_row_into_boxes<const C: usize>(row: &[u8], sums: &mut [u32], k: usize) {
    for (pixels, sum) in row.chunks(k * C).zip(sums.chunks_exact_mut(C)) {
        let mut acc = [0u32; C];
        for pixel in pixels.chunks_exact(C) {
            for c in 0..C {
                acc[c] += u32::from(pixel[c]);
            }
        }
        for c in 0..C {
            sum[c] += acc[c];
        }
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

    /// `decode_scaled`'s factor takes the upload's pixels to the decoded ones whichever
    /// path scaled it: the inverse DCT or the PNG boxes landing exactly on the working
    /// side (once answered 1), the area shrink after a full decode, or none.
    #[test]
    fn the_factor_maps_the_decoded_pixels_back_to_the_uploads() {
        let limits = |side| DecodeLimits { working_side: Some(side), ..DecodeLimits::default() };
        let dims = |(img, k): (RgbImage, f32)| (img.width(), img.height(), k);
        assert_eq!(decode_scaled(&jpeg(1024, 512), &limits(512)).map(dims), Ok((512, 256, 2.0)), "inverse DCT at 1/2");
        let wide = png(DynamicImage::ImageRgb8(RgbImage::from_pixel(800, 200, image::Rgb([9, 99, 199]))));
        assert_eq!(decode_scaled(&wide, &limits(400)).map(dims), Ok((400, 100, 2.0)), "PNG boxes of 2");
        let (img, k) = decode_scaled(&jpeg(900, 300), &limits(600)).expect("decodes");
        assert_eq!((img.width(), img.height(), k), (600, 200, 1.5), "full decode, then shrunk");
        // The shrink averages: a flat colour stays that colour.
        let (flat, _) = decode_scaled(&wide, &limits(300)).expect("decodes");
        assert_eq!((flat.dimensions(), flat.get_pixel(150, 37).0), ((300, 75), [9, 99, 199]));
        assert_eq!(decode_scaled(&jpeg(300, 200), &limits(600)).map(dims), Ok((300, 200, 1.0)), "small enough already");
    }

    fn png(img: DynamicImage) -> Vec<u8> {
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), ImageFormat::Png).expect("encode");
        out
    }

    /// Box averages, the narrower last box, every colour layout; refused layouts and
    /// sizes go to the full decoder.
    #[test]
    fn png_rows_are_averaged_into_boxes() {
        // 9×4, k = 9 / 4 = 2: boxes of 2×2, the last column 1 wide.
        let img = image::GrayImage::from_fn(9, 4, |x, y| image::Luma([(x * 10 + y * 20) as u8]));
        let scaled = decode_png_box_scaled(&png(DynamicImage::ImageLuma8(img)), 4).expect("scaled");
        let g = scaled.into_luma8();
        assert_eq!(g.dimensions(), (5, 2));
        // Box (0,0): x 0..2, y 0..2 → (0 + 10 + 20 + 30) / 4 = 15.
        assert_eq!(g.get_pixel(0, 0).0, [15]);
        // Last box of the first row: x 8, y 0..2 → (80 + 100) / 2 = 90.
        assert_eq!(g.get_pixel(4, 0).0, [90]);
        // Box (1,1): x 2..4, y 2..4 → (60 + 70 + 80 + 90) / 4 = 75.
        assert_eq!(g.get_pixel(1, 1).0, [75]);
        for layout in [
            DynamicImage::ImageRgb8(RgbImage::from_pixel(300, 120, image::Rgb([10, 20, 30]))),
            DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(300, 120, image::Rgba([10, 20, 30, 40]))),
            DynamicImage::ImageLumaA8(image::GrayAlphaImage::from_pixel(300, 120, image::LumaA([7, 9]))),
            DynamicImage::ImageRgb16(image::ImageBuffer::from_pixel(300, 120, image::Rgb([2570u16, 5140, 7710]))),
        ] {
            let color = layout.color();
            let scaled = decode_png_box_scaled(&png(layout), 100).unwrap_or_else(|| panic!("{color:?} not scaled"));
            assert_eq!((scaled.width(), scaled.height()), (100, 40), "{color:?}");
            assert_eq!(scaled.to_rgb8().get_pixel(50, 20).0[0], if color.channel_count() <= 2 { 7 } else { 10 }, "{color:?}");
        }
        let small = png(DynamicImage::ImageRgb8(RgbImage::new(150, 60)));
        assert!(decode_png_box_scaled(&small, 100).is_none(), "under twice the working side");
        assert!(decode_png_box_scaled(b"\x89PNG\r\n\x1a\n broken", 100).is_none());
    }
}
