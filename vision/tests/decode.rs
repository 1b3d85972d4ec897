//! Pipeline stage 1, decode: formats, EXIF orientation, size limits, corrupt input.

mod common;

use idv_vision::{decode, DecodeError, DecodeLimits, RgbImage};
use image::{ImageEncoder, Rgb, Rgba, RgbaImage};

const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLUE: [u8; 3] = [0, 0, 255];
const WHITE: [u8; 3] = [255, 255, 255];

/// 40×20, one colour per quadrant: top-left red, top-right green, bottom-left blue,
/// bottom-right white. Big flat blocks survive JPEG.
fn quadrants() -> RgbImage {
    RgbImage::from_fn(40, 20, |x, y| {
        Rgb(match (x < 20, y < 10) {
            (true, true) => RED,
            (false, true) => GREEN,
            (true, false) => BLUE,
            (false, false) => WHITE,
        })
    })
}

/// Colour names of the four corners (TL, TR, BL, BR), sampled 3 px inside.
fn corners(img: &RgbImage) -> [&'static str; 4] {
    let (w, h) = img.dimensions();
    let name = |x: u32, y: u32| {
        let p = img.get_pixel(x, y).0;
        let near = |c: [u8; 3]| p.iter().zip(c).all(|(&a, b)| (i32::from(a) - i32::from(b)).abs() < 60);
        if near(RED) {
            "red"
        } else if near(GREEN) {
            "green"
        } else if near(BLUE) {
            "blue"
        } else if near(WHITE) {
            "white"
        } else {
            "?"
        }
    };
    [name(3, 3), name(w - 4, 3), name(3, h - 4), name(w - 4, h - 4)]
}

fn png(img: &RgbImage) -> Vec<u8> {
    let mut buf = Vec::new();
    image::codecs::png::PngEncoder::new(&mut buf)
        .write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgb8)
        .expect("encode PNG");
    buf
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut c = (data.len() as u32).to_be_bytes().to_vec();
    c.extend_from_slice(kind);
    c.extend_from_slice(data);
    let mut crc_in = kind.to_vec();
    crc_in.extend_from_slice(data);
    c.extend_from_slice(&crc32(&crc_in).to_be_bytes());
    c
}

/// Position just after the IHDR chunk (8-byte signature + 25-byte IHDR).
const AFTER_IHDR: usize = 8 + 25;

#[test]
fn jpeg_exif_orientations_are_applied() {
    let jpeg = common::encode_jpeg(&quadrants(), 95);
    // EXIF orientation → what a viewer shows: corners TL, TR, BL, BR and the size.
    let cases: [(u16, [&str; 4], (u32, u32)); 8] = [
        (1, ["red", "green", "blue", "white"], (40, 20)),
        (2, ["green", "red", "white", "blue"], (40, 20)),
        (3, ["white", "blue", "green", "red"], (40, 20)),
        (4, ["blue", "white", "red", "green"], (40, 20)),
        (5, ["red", "blue", "green", "white"], (20, 40)),
        (6, ["blue", "red", "white", "green"], (20, 40)),
        (7, ["white", "green", "blue", "red"], (20, 40)),
        (8, ["green", "white", "red", "blue"], (20, 40)),
    ];
    for (orientation, want, dims) in cases {
        let img = decode(&common::jpeg_with_orientation(&jpeg, orientation), &DecodeLimits::default()).expect("decode");
        assert_eq!(img.dimensions(), dims, "orientation {orientation}");
        assert_eq!(corners(&img), want, "orientation {orientation}");
    }
    // No EXIF at all, and a nonsense orientation value: stored as is.
    assert_eq!(corners(&decode(&jpeg, &DecodeLimits::default()).expect("decode")), ["red", "green", "blue", "white"]);
    let odd = decode(&common::jpeg_with_orientation(&jpeg, 42), &DecodeLimits::default()).expect("decode");
    assert_eq!(corners(&odd), ["red", "green", "blue", "white"]);
}

#[test]
fn png_exif_orientation_is_applied() {
    let plain = png(&quadrants());
    let mut rotated = plain[..AFTER_IHDR].to_vec();
    rotated.extend_from_slice(&png_chunk(b"eXIf", &common::exif_tiff(6)));
    rotated.extend_from_slice(&plain[AFTER_IHDR..]);
    let img = decode(&rotated, &DecodeLimits::default()).expect("decode");
    assert_eq!(img.dimensions(), (20, 40));
    assert_eq!(corners(&img), ["blue", "red", "white", "green"]);
}

#[test]
fn png_webp_and_alpha() {
    let src = quadrants();
    // PNG and lossless WebP are exact.
    assert_eq!(decode(&png(&src), &DecodeLimits::default()).expect("png"), src);
    let mut webp = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
        .write_image(src.as_raw(), src.width(), src.height(), image::ExtendedColorType::Rgb8)
        .expect("encode WebP");
    assert_eq!(decode(&webp, &DecodeLimits::default()).expect("webp"), src);
    // Transparency is composited over white: transparent black becomes white, half
    // transparent black mid grey, opaque pixels stay.
    let rgba = RgbaImage::from_fn(20, 20, |x, _| match x {
        0..=6 => Rgba([0, 0, 0, 0]),
        7..=13 => Rgba([0, 0, 0, 128]),
        _ => Rgba([10, 200, 30, 255]),
    });
    let mut buf = Vec::new();
    image::codecs::png::PngEncoder::new(&mut buf)
        .write_image(rgba.as_raw(), 20, 20, image::ExtendedColorType::Rgba8)
        .expect("encode");
    let img = decode(&buf, &DecodeLimits::default()).expect("decode RGBA PNG");
    assert_eq!(img.get_pixel(0, 0).0, [255, 255, 255]);
    assert_eq!(img.get_pixel(10, 0).0, [127, 127, 127]);
    assert_eq!(img.get_pixel(19, 19).0, [10, 200, 30]);
    // 16-bit grey PNG becomes 8-bit RGB (the encoder takes native-endian samples).
    let grey16: Vec<u8> = (0..20 * 20).flat_map(|_| 0x8000u16.to_ne_bytes()).collect();
    let mut buf = Vec::new();
    image::codecs::png::PngEncoder::new(&mut buf)
        .write_image(&grey16, 20, 20, image::ExtendedColorType::L16)
        .expect("encode");
    assert_eq!(decode(&buf, &DecodeLimits::default()).expect("decode L16").get_pixel(5, 5).0, [128, 128, 128]);
}

#[test]
fn size_limits() {
    let src = quadrants();
    let jpeg = common::encode_jpeg(&src, 90);
    // Encoded size.
    let small = DecodeLimits { max_bytes: jpeg.len() - 1, ..Default::default() };
    assert!(matches!(decode(&jpeg, &small), Err(DecodeError::TooManyBytes { .. })));
    // Side and pixel count.
    let narrow = DecodeLimits { max_side: 39, ..Default::default() };
    assert!(matches!(decode(&jpeg, &narrow), Err(DecodeError::TooLarge(_))));
    let few = DecodeLimits { max_pixels: 799, ..Default::default() };
    assert!(matches!(decode(&jpeg, &few), Err(DecodeError::TooLarge(_))));
    assert!(decode(&jpeg, &DecodeLimits { max_pixels: 800, max_side: 40, ..Default::default() }).is_ok());
    // Too small to hold a face.
    let tiny = DecodeLimits { min_side: 21, ..Default::default() };
    assert!(matches!(decode(&jpeg, &tiny), Err(DecodeError::TooSmall { width: 40, height: 20, min_side: 21 })));
}

#[test]
fn huge_declared_dimensions_are_refused_before_decoding() {
    // Decompression bombs: small files whose headers claim 65000×65000 (4.2 gigapixels,
    // 12.7 GB as RGB). Refused from the header, without allocating the image.
    let mut jpeg = common::encode_jpeg(&quadrants(), 90);
    let sof = jpeg.windows(2).position(|w| w == [0xFF, 0xC0]).expect("baseline SOF0 marker");
    // SOF0: marker, length (2), precision (1), height (2), width (2).
    jpeg[sof + 5..sof + 7].copy_from_slice(&65000u16.to_be_bytes());
    jpeg[sof + 7..sof + 9].copy_from_slice(&65000u16.to_be_bytes());
    let t = std::time::Instant::now();
    assert!(matches!(decode(&jpeg, &DecodeLimits::default()), Err(DecodeError::TooLarge(_))));
    assert!(t.elapsed() < std::time::Duration::from_secs(1));

    let mut bomb = png(&quadrants());
    let mut ihdr = bomb[12..29].to_vec(); // "IHDR" + 13 data bytes
    ihdr[4..8].copy_from_slice(&65000u32.to_be_bytes());
    ihdr[8..12].copy_from_slice(&65000u32.to_be_bytes());
    bomb[16..29].copy_from_slice(&ihdr[4..]);
    bomb[29..33].copy_from_slice(&crc32(&ihdr).to_be_bytes());
    assert!(matches!(decode(&bomb, &DecodeLimits::default()), Err(DecodeError::TooLarge(_))));
}

#[test]
fn corrupt_data_is_a_clean_error() {
    let limits = DecodeLimits::default();
    assert_eq!(decode(&[], &limits), Err(DecodeError::Empty));
    assert_eq!(decode(b"hello, world", &limits), Err(DecodeError::UnsupportedFormat));
    assert_eq!(decode(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", &limits), Err(DecodeError::UnsupportedFormat));
    assert_eq!(decode(b"BM\x1e\x00\x00\x00\x00\x00\x00\x00\x1a\x00\x00\x00", &limits), Err(DecodeError::UnsupportedFormat));
    // Right magic, garbage after it.
    let mut bad_jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bad_jpeg.extend(std::iter::repeat_n(0x5A, 200));
    assert!(matches!(decode(&bad_jpeg, &limits), Err(DecodeError::Corrupt { format: "JPEG", .. })));
    let mut bad_png = png(&quadrants());
    bad_png[20] ^= 0xFF; // inside IHDR: its CRC no longer matches
    assert!(matches!(decode(&bad_png, &limits), Err(DecodeError::Corrupt { format: "PNG", .. })));
    let truncated_png = &png(&quadrants())[..60];
    assert!(matches!(decode(truncated_png, &limits), Err(DecodeError::Corrupt { format: "PNG", .. })));
    let mut webp = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
        .write_image(quadrants().as_raw(), 40, 20, image::ExtendedColorType::Rgb8)
        .expect("encode WebP");
    assert!(matches!(decode(&webp[..webp.len() / 2], &limits), Err(DecodeError::Corrupt { format: "WebP", .. })));

    // Truncations and flipped bytes anywhere: an image or an error, never a panic.
    let inputs = [common::encode_jpeg(&quadrants(), 90), png(&quadrants()), webp];
    for input in &inputs {
        for cut in (0..input.len()).step_by(7) {
            let _ = decode(&input[..cut], &limits);
        }
        let mut seed = 12345u32;
        for _ in 0..300 {
            let mut m = input.clone();
            for _ in 0..3 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let at = (seed >> 8) as usize % m.len();
                m[at] ^= (seed >> 24) as u8 | 1;
            }
            if let Ok(img) = decode(&m, &limits) {
                assert!(img.width() >= limits.min_side && img.height() >= limits.min_side);
            }
        }
    }
}

#[test]
fn real_photos_decode() {
    let Some(dir) = common::models_or_skip("real_photos_decode") else { return };
    for (id, dims) in [
        ("testimg-fr-obama", (910, 1137)),
        ("testimg-fr-biden", (970, 2204)),
        // RGBA PNG.
        ("testimg-fr-32bit", (626, 1200)),
        ("testimg-faceapi-sample1", (1920, 1280)),
        ("testimg-faceapi-sample6", (1920, 1537)),
    ] {
        let img = decode(&common::image_bytes(&dir, id), &DecodeLimits::default()).expect(id);
        assert_eq!(img.dimensions(), dims, "{id}");
    }
    // The same photo as JPEG and as RGBA PNG in face_recognition's set.
    let a = decode(&common::image_bytes(&dir, "testimg-fr-obama2"), &DecodeLimits::default()).expect("jpeg");
    let b = decode(&common::image_bytes(&dir, "testimg-fr-32bit"), &DecodeLimits::default()).expect("png");
    let diff: u64 = a.as_raw().iter().zip(b.as_raw()).map(|(&x, &y)| u64::from(x.abs_diff(y))).sum();
    assert!((diff as f64 / a.as_raw().len() as f64) < 8.0, "mean difference {}", diff as f64 / a.as_raw().len() as f64);
}

/// A large upload is scaled to the working size right after decoding, aspect kept, so
/// later stages cost what that size costs (issue 10: a 10000x4000 PNG cost seconds).
#[test]
fn large_images_are_scaled_to_the_working_side() {
    let mut png = Vec::new();
    image::RgbImage::from_pixel(6000, 2400, image::Rgb([90, 120, 150]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encode");
    let faces = decode(&png, &DecodeLimits::faces()).expect("decode");
    assert_eq!(faces.dimensions(), (2048, 819));
    let cards = decode(&png, &DecodeLimits::cards()).expect("decode");
    assert_eq!(cards.dimensions().0, 4096);
    assert_eq!(decode(&png, &DecodeLimits::default()).expect("decode").dimensions(), (6000, 2400), "no working side: full size");
}

/// A JPEG at least twice the working side is decoded at a fraction of its size by the
/// inverse DCT (issue 10): same shown size, orientation and content as the full decode
/// scaled down, within JPEG noise.
#[test]
fn large_jpegs_are_decoded_scaled_with_orientation_kept() {
    let (w, h) = (4400u32, 1760u32);
    let big = RgbImage::from_fn(w, h, |x, y| {
        let shade = ((x / 40 + y / 40) % 2 * 40) as u8;
        Rgb(match (x < w / 2, y < h / 2) {
            (true, true) => [255, shade, shade],
            (false, true) => [shade, 255, shade],
            (true, false) => [shade, shade, 255],
            (false, false) => [255, 255, 255 - shade],
        })
    });
    let jpeg = common::encode_jpeg(&big, 90);
    let faces = decode(&jpeg, &DecodeLimits::faces()).expect("decode");
    assert_eq!(faces.dimensions(), (2048, 819));
    assert_eq!(corners(&faces), ["red", "green", "blue", "white"]);
    // The reference: the full-size decode scaled the way the working side always was.
    let full = decode(&jpeg, &DecodeLimits::default()).expect("decode");
    let reference = image::imageops::thumbnail(&full, 2048, 819);
    let diff: u64 = faces.as_raw().iter().zip(reference.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
    let mean = diff as f64 / faces.as_raw().len() as f64;
    assert!(mean < 6.0, "mean difference from the full decode {mean}");
    // Rotated by EXIF: shown upright, 819 wide.
    let rotated = decode(&common::jpeg_with_orientation(&jpeg, 6), &DecodeLimits::faces()).expect("decode");
    assert_eq!(rotated.dimensions(), (819, 2048));
    assert_eq!(corners(&rotated), ["blue", "red", "white", "green"]);
    // Cards keep more pixels: 4400 is under twice 4096, so the full decoder runs.
    assert_eq!(decode(&jpeg, &DecodeLimits::cards()).expect("decode").dimensions(), (4096, 1638));
    // A truncated large JPEG is still decoded as far as it goes, or refused cleanly.
    match decode(&jpeg[..jpeg.len() / 2], &DecodeLimits::faces()) {
        Ok(img) => assert_eq!(img.dimensions(), (2048, 819)),
        Err(e) => assert!(matches!(e, DecodeError::Corrupt { .. }), "{e:?}"),
    }
}
