//! QR codes in card images (`read_id_card_info_with_sanity`'s `qr1_images`/`qr2_images`,
//! and the QR printed on a card's face): find and decode every QR code in an image with
//! `rqrr` (pure Rust, fast). Large photos are scaled down first (a card's QR stays well
//! above the decoder's need of ~3 px per module at 1600 px), and a second pass on a
//! contrast-stretched image catches QR codes in dim photos. Where rqrr reads nothing,
//! ZXing's reader (`rxing`, its Rust port: the zxing-cpp detector, then the Java one,
//! trying harder) gets the same image: it reads noisy, blurred and low-contrast codes that
//! rqrr does not, at a few times rqrr's cost, paid only when rqrr failed.

use image::{imageops, GrayImage, RgbImage};

/// Longest side the decoder sees.
pub const MAX_SIDE: u32 = 1600;
/// QR codes decoded per image at most (a card carries one; a collage a few).
pub const MAX_CODES: usize = 8;

/// The decoder's grey copy: at most [`MAX_SIDE`] on its longest side. A larger photo is
/// converted and shrunk in one area-averaging pass (`crate::resize::shrink_area_gray`):
/// a full-size grey copy then a triangle filter cost ~0.25-0.35 s per side of a
/// 12-megapixel photo, most of its QR search.
fn to_gray(image: &RgbImage) -> GrayImage {
    let (w, h) = image.dimensions();
    let longest = w.max(h);
    if longest <= MAX_SIDE {
        return imageops::grayscale(image);
    }
    let scale = f64::from(MAX_SIDE) / f64::from(longest);
    let (nw, nh) = (((f64::from(w) * scale).round() as u32).clamp(1, w), ((f64::from(h) * scale).round() as u32).clamp(1, h));
    let shrunk = crate::resize::shrink_area_gray(image.as_raw(), w as usize, h as usize, nw as usize, nh as usize);
    GrayImage::from_raw(nw, nh, shrunk).unwrap_or_else(|| imageops::resize(&imageops::grayscale(image), nw, nh, imageops::FilterType::Triangle))
}

/// Stretches the 2nd..98th percentile of grey levels to 0..255.
fn stretch(gray: &GrayImage) -> GrayImage {
    let mut hist = [0u64; 256];
    for p in gray.pixels() {
        hist[usize::from(p.0[0])] += 1;
    }
    let total: u64 = hist.iter().sum();
    let percentile = |q: f64| {
        let target = (total as f64 * q) as u64;
        let mut acc = 0;
        for (v, n) in hist.iter().enumerate() {
            acc += n;
            if acc > target {
                return v as u8;
            }
        }
        255
    };
    let (lo, hi) = (percentile(0.02), percentile(0.98));
    if hi <= lo.saturating_add(8) {
        return gray.clone();
    }
    let span = f32::from(hi - lo);
    let mut out = gray.clone();
    for p in out.pixels_mut() {
        let v = (f32::from(p.0[0].saturating_sub(lo)) * 255.0 / span).min(255.0);
        p.0[0] = v as u8;
    }
    out
}

fn decode_gray(gray: GrayImage) -> Vec<String> {
    // rqrr asserts on some inputs (a clean code drawn at 1 px per module fails its
    // `scan >= 1` in the timing-pattern measure; found by the fuzzer): a decoder panic
    // means "no code read here", never a crash of the caller.
    std::panic::catch_unwind(move || {
        let mut prepared = rqrr::PreparedImage::prepare(gray);
        prepared
            .detect_grids()
            .into_iter()
            .take(MAX_CODES)
            .filter_map(|g| g.decode().ok().map(|(_, text)| text))
            .collect()
    })
    .unwrap_or_default()
}

/// ZXing's QR reading (rxing) of `gray`: every code found, as UTF-8 text where the code
/// names no character set (the cards' QR codes are UTF-8 or digits).
fn decode_gray_zxing(gray: &GrayImage) -> Vec<String> {
    let (w, h) = gray.dimensions();
    let luma = gray.as_raw().clone();
    // As with rqrr: a decoder panic means "no code read here", never a crash.
    std::panic::catch_unwind(move || {
        let mut hints = rxing::DecodeHints {
            TryHarder: Some(true),
            PossibleFormats: Some(std::collections::HashSet::from([rxing::BarcodeFormat::QR_CODE])),
            CharacterSet: Some("UTF-8".into()),
            ..rxing::DecodeHints::default()
        };
        rxing::helpers::detect_multiple_in_luma_with_hints(luma, w, h, &mut hints)
            .map(|found| found.iter().take(MAX_CODES).map(|r| r.getText().to_string()).collect())
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// Images smaller than this on their longest side are also tried enlarged: a code
/// printed small or cropped tight has modules of one or two pixels.
const SMALL_SIDE: u32 = 400;

/// Which decoders [`decode_qr_codes_with`] tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QrDecoders {
    /// rqrr alone (the evaluation's baseline).
    RqrrOnly,
    /// rqrr, then rxing where rqrr read nothing (the service).
    RqrrThenZxing,
}

/// The text of every QR code found in `image` (in the decoder's order, duplicates
/// removed). Empty when there is none or none decodes.
pub fn decode_qr_codes(image: &RgbImage) -> Vec<String> {
    decode_qr_codes_with(image, QrDecoders::RqrrThenZxing)
}

/// As [`decode_qr_codes`], with the decoders chosen.
pub fn decode_qr_codes_with(image: &RgbImage, decoders: QrDecoders) -> Vec<String> {
    let gray = to_gray(image);
    let mut found = decode_gray(gray.clone());
    if found.is_empty() {
        found = decode_gray(stretch(&gray));
    }
    let small = gray.width().max(gray.height()) < SMALL_SIDE;
    let enlarged = |g: &GrayImage| image::imageops::resize(g, g.width() * 3, g.height() * 3, image::imageops::FilterType::Nearest);
    if found.is_empty() && small {
        found = decode_gray(enlarged(&gray));
    }
    if found.is_empty() && decoders == QrDecoders::RqrrThenZxing {
        found = decode_gray_zxing(&gray);
        if found.is_empty() && small {
            found = decode_gray_zxing(&enlarged(&gray));
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|t| seen.insert(t.clone()));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Luma, Rgb};

    /// Fuzzer finding: rqrr panicked (`scan >= 1`) on a clean code at 1 px per module.
    #[test]
    fn one_pixel_modules_do_not_panic_and_are_read_enlarged() {
        assert_eq!(decode_qr_codes(&qr_image("hello", 1)), vec!["hello".to_string()]);
    }

    fn qr_image(text: &str, module_px: u32) -> RgbImage {
        let code = qrcode::QrCode::new(text.as_bytes()).expect("encode");
        let luma = code.render::<Luma<u8>>().module_dimensions(module_px, module_px).build();
        RgbImage::from_fn(luma.width(), luma.height(), |x, y| {
            let v = luma.get_pixel(x, y).0[0];
            Rgb([v, v, v])
        })
    }

    /// The QR pasted into a larger grey "photo" at (x, y), darkened by `dim` (0..1).
    fn on_background(qr: &RgbImage, w: u32, h: u32, x: u32, y: u32, dim: f32) -> RgbImage {
        let mut img = RgbImage::from_pixel(w, h, Rgb([150, 140, 130]));
        imageops::overlay(&mut img, qr, i64::from(x), i64::from(y));
        for p in img.pixels_mut() {
            for c in p.0.iter_mut() {
                *c = (f32::from(*c) * dim) as u8;
            }
        }
        img
    }

    const TEXT: &str = "079203001234|123456789|Nguyễn Văn A|01011990|Nam|12 Lê Lợi, Quận 1, TP Hồ Chí Minh|15062021";

    /// A photo past [`MAX_SIDE`] goes through the one-pass grey shrink: a code of 8 px
    /// modules in a 3,600 x 2,400 photo (3.6 px a module after it).
    #[test]
    fn finds_the_code_in_a_photo_shrunk_for_the_decoder() {
        let img = on_background(&qr_image(TEXT, 8), 3600, 2400, 2100, 900, 1.0);
        assert_eq!(to_gray(&img).dimensions(), (1600, 1067));
        assert_eq!(decode_qr_codes(&img), vec![TEXT.to_string()]);
    }

    #[test]
    fn finds_the_code_in_a_larger_photo() {
        let img = on_background(&qr_image(TEXT, 5), 1200, 800, 700, 300, 1.0);
        assert_eq!(decode_qr_codes(&img), vec![TEXT.to_string()]);
    }

    #[test]
    fn large_photos_are_scaled_and_dim_ones_stretched() {
        let big = on_background(&qr_image(TEXT, 12), 4000, 3000, 2500, 1200, 1.0);
        assert_eq!(decode_qr_codes(&big), vec![TEXT.to_string()], "4000x3000 photo");
        let dim = on_background(&qr_image(TEXT, 5), 1200, 800, 100, 100, 0.18);
        assert_eq!(decode_qr_codes(&dim), vec![TEXT.to_string()], "dim photo");
    }

    #[test]
    fn no_code_and_noise_give_nothing() {
        assert!(decode_qr_codes(&RgbImage::from_pixel(300, 200, Rgb([255, 255, 255]))).is_empty());
        let noise = RgbImage::from_fn(400, 300, |x, y| {
            let v = ((x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) >> 7) as u8;
            Rgb([v, v, v])
        });
        assert!(decode_qr_codes(&noise).is_empty());
        assert!(decode_qr_codes(&RgbImage::new(1, 1)).is_empty());
    }

    /// A code under heavy speckle noise and blur: rqrr reads nothing, ZXing's reader
    /// (rxing) does; the service's decoder reads it.
    #[test]
    fn zxing_reads_what_rqrr_does_not() {
        let clean = on_background(&qr_image(TEXT, 4), 900, 700, 200, 150, 1.0);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut noisy = image::imageops::blur(&clean, 1.0);
        for p in noisy.pixels_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = (state % 201) as i32 - 100;
            for c in p.0.iter_mut() {
                *c = (i32::from(*c) + n).clamp(0, 255) as u8;
            }
        }
        assert!(decode_qr_codes_with(&noisy, QrDecoders::RqrrOnly).is_empty(), "rqrr read it: make the case harder");
        assert_eq!(decode_qr_codes(&noisy), vec![TEXT.to_string()]);
    }
}
