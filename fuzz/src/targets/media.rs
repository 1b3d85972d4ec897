//! (2) Inline media: base64 text through `idv_schemas::api::decode_media` and on into
//! `idv_vision::decode`; image bytes through `idv_vision::decode` with
//! `DecodeLimits::default()` (JPEG with EXIF, PNG with its CRCs fixed after mutation so
//! the decoder sees past them, WebP); and QR codes in card images
//! (`idv_vision::qr::decode_qr_codes`, rqrr) on rendered and perturbed codes, whose text
//! goes on to the card codecs as `workers/src/card/mod.rs` does; and the two decoders'
//! grid decoding alone on module grids (`qr_modules`), thousands of times faster.

use super::{sig_err, sig_str, Harness, Target};
use crate::mutate::Shape;
use crate::rng::Rng;
use base64::Engine as _;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{ExtendedColorType, GrayImage, ImageEncoder, Luma, Rgb, RgbImage};
use idv_vision::{decode, DecodeLimits};

fn encode(kind: &str, w: u32, h: u32, color: ExtendedColorType) -> Vec<u8> {
    let channels = match color {
        ExtendedColorType::L8 => 1,
        ExtendedColorType::La8 => 2,
        ExtendedColorType::Rgb8 => 3,
        ExtendedColorType::Rgba8 => 4,
        ExtendedColorType::L16 => 2,
        ExtendedColorType::Rgb16 => 6,
        _ => 3,
    };
    let pixels: Vec<u8> = (0..(w * h) as usize * channels).map(|i| ((i * 37) ^ (i / 7 * 13)) as u8).collect();
    let mut out = Vec::new();
    let r = match kind {
        "png" => PngEncoder::new(&mut out).write_image(&pixels, w, h, color),
        "jpeg" => JpegEncoder::new_with_quality(&mut out, 75).write_image(&pixels, w, h, color),
        _ => WebPEncoder::new_lossless(&mut out).write_image(&pixels, w, h, color),
    };
    if r.is_err() {
        out.clear();
    }
    out
}

/// A JPEG with an EXIF APP1 segment saying "rotate 90°" (orientation 6).
fn jpeg_with_exif(orientation: u8) -> Vec<u8> {
    let jpeg = encode("jpeg", 24, 16, ExtendedColorType::Rgb8);
    let mut tiff: Vec<u8> = b"II\x2a\x00\x08\x00\x00\x00".to_vec();
    tiff.extend_from_slice(&[1, 0]);
    tiff.extend_from_slice(&[0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0]);
    tiff.extend_from_slice(&[0, 0, 0, 0]);
    let mut app1 = vec![0xff, 0xe1];
    let len = (2 + 6 + tiff.len()) as u16;
    app1.extend_from_slice(&len.to_be_bytes());
    app1.extend_from_slice(b"Exif\0\0");
    app1.extend_from_slice(&tiff);
    let mut out = jpeg[..2.min(jpeg.len())].to_vec();
    out.extend_from_slice(&app1);
    out.extend_from_slice(jpeg.get(2..).unwrap_or(&[]));
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Recomputes every chunk CRC of a PNG, so mutations inside chunks reach the parser.
pub fn fix_png_crcs(b: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    if !out.starts_with(b"\x89PNG\r\n\x1a\n") {
        return out;
    }
    let mut pos = 8usize;
    while pos + 8 <= out.len() {
        let len = u32::from_be_bytes([out[pos], out[pos + 1], out[pos + 2], out[pos + 3]]) as usize;
        let Some(end) = (pos + 8).checked_add(len) else { break };
        if end + 4 > out.len() {
            break;
        }
        let crc = crc32(&out[pos + 4..end]);
        out[end..end + 4].copy_from_slice(&crc.to_be_bytes());
        pos = end + 4;
    }
    out
}

/// A PNG with an eXIf chunk (orientation 3) after IHDR.
fn png_with_exif() -> Vec<u8> {
    let png = encode("png", 20, 18, ExtendedColorType::Rgb8);
    let mut tiff: Vec<u8> = b"MM\x00\x2a\x00\x00\x00\x08".to_vec();
    tiff.extend_from_slice(&[0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0]);
    let mut chunk = (tiff.len() as u32).to_be_bytes().to_vec();
    chunk.extend_from_slice(b"eXIf");
    chunk.extend_from_slice(&tiff);
    chunk.extend_from_slice(&[0, 0, 0, 0]);
    // Signature (8) + IHDR (4 + 4 + 13 + 4).
    let at = 33.min(png.len());
    let mut out = png[..at].to_vec();
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&png[at..]);
    fix_png_crcs(&out)
}

pub fn image_seeds() -> Vec<Vec<u8>> {
    vec![
        encode("png", 32, 24, ExtendedColorType::Rgb8),
        encode("png", 20, 20, ExtendedColorType::Rgba8),
        encode("png", 16, 17, ExtendedColorType::L8),
        encode("png", 17, 16, ExtendedColorType::La8),
        encode("png", 18, 18, ExtendedColorType::Rgb16),
        png_with_exif(),
        encode("jpeg", 32, 24, ExtendedColorType::Rgb8),
        encode("jpeg", 16, 40, ExtendedColorType::L8),
        jpeg_with_exif(6),
        jpeg_with_exif(8),
        encode("webp", 20, 20, ExtendedColorType::Rgba8),
        encode("webp", 33, 17, ExtendedColorType::Rgb8),
    ]
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect()
}

fn decode_sig(bytes: &[u8]) -> u64 {
    decode_sig_with(bytes, &DecodeLimits::default())
}

fn decode_sig_with(bytes: &[u8], limits: &DecodeLimits) -> u64 {
    match decode(bytes, limits) {
        Ok(img) => 1 + u64::from(img.width() > img.height()),
        Err(e) => sig_str(&e.to_string()),
    }
}

fn image_harness() -> Harness {
    Box::new(|b: &[u8]| {
        let Some((&mode, data)) = b.split_first() else { return 0 };
        // Bit 0: fix PNG CRCs; mode / 2 % 3: the limits ingest's, the face and the card
        // workers' callers use (the latter two scale large images to a working size).
        let limits = match mode / 2 % 3 {
            0 => DecodeLimits::default(),
            1 => DecodeLimits::faces(),
            _ => DecodeLimits::cards(),
        };
        if mode % 2 == 1 {
            decode_sig_with(&fix_png_crcs(data), &limits) ^ 0x55
        } else {
            decode_sig_with(data, &limits)
        }
    })
}

fn b64_seeds() -> Vec<Vec<u8>> {
    let e = base64::engine::general_purpose::STANDARD;
    let imgs = image_seeds();
    let mut out = vec![b"aGVsbG8=".to_vec(), b"aGVsbG8".to_vec(), b"data:image/png;base64,aGVsbG8=".to_vec(), b" aA== \n".to_vec()];
    for (i, img) in imgs.iter().enumerate() {
        let s = e.encode(img);
        out.push(match i % 3 {
            0 => s.into_bytes(),
            1 => format!("data:image/jpeg;base64,{}", s.trim_end_matches('=')).into_bytes(),
            _ => format!("  {s}\r\n").into_bytes(),
        });
    }
    out
}

fn b64_harness() -> Harness {
    Box::new(|b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        match idv_schemas::api::decode_media("image", &s, 10 * 1024 * 1024) {
            Ok(bytes) => 3 ^ decode_sig(&bytes).wrapping_mul(5),
            Err(e) => {
                assert!(super::is_client_input_error(&e), "decode_media answered {e:?}");
                sig_err(1, &e)
            }
        }
    })
}

fn qr_seed(text: &[u8]) -> Vec<u8> {
    let mut v = vec![2u8, 0];
    v.extend_from_slice(&[0; 8]);
    v.extend_from_slice(text);
    v
}

fn qr_seeds() -> Vec<Vec<u8>> {
    let mut out = vec![qr_seed(b"hello"), qr_seed(super::cards::CCCD_SAMPLE.as_bytes()), qr_seed(super::cards::MRZ_TD3.as_bytes())];
    out.push(qr_seed(super::cards::AADHAAR_XML_SAMPLE.as_bytes()));
    // A noisy variant of each (perturbations on).
    let noisy: Vec<Vec<u8>> = out
        .iter()
        .map(|s| {
            let mut n = s.clone();
            n[1] = 5;
            n[2] = 42;
            n
        })
        .collect();
    out.extend(noisy);
    out
}

fn perturb(img: &mut GrayImage, rng: &mut Rng, module: u32) {
    let (w, h) = img.dimensions();
    if w < 2 || h < 2 {
        return;
    }
    let (x, y) = (rng.below(w as usize) as u32, rng.below(h as usize) as u32);
    match rng.below(9) {
        // Invert a module-sized block.
        0 => {
            for yy in y..(y + module).min(h) {
                for xx in x..(x + module).min(w) {
                    let p = img.get_pixel(xx, yy).0[0];
                    img.put_pixel(xx, yy, Luma([255 - p]));
                }
            }
        }
        // A line across.
        1 => {
            let v = if rng.chance(1, 2) { 0 } else { 255 };
            if rng.chance(1, 2) {
                (0..w).for_each(|xx| img.put_pixel(xx, y, Luma([v])));
            } else {
                (0..h).for_each(|yy| img.put_pixel(x, yy, Luma([v])));
            }
        }
        // Copy a block (a finder pattern, often) elsewhere.
        2 => {
            let s = (module * 8).min(w).min(h);
            let (dx, dy) = (rng.below((w - s + 1) as usize) as u32, rng.below((h - s + 1) as usize) as u32);
            let block = image::imageops::crop_imm(&*img, 0, 0, s, s).to_image();
            image::imageops::replace(img, &block, i64::from(dx), i64::from(dy));
        }
        // Salt and pepper.
        3 => {
            for _ in 0..64 {
                let (px, py) = (rng.below(w as usize) as u32, rng.below(h as usize) as u32);
                img.put_pixel(px, py, Luma([rng.byte()]));
            }
        }
        // Rescale (nearest), odd sizes included.
        4 => {
            let nw = (rng.range(w as usize / 2, w as usize * 2).max(1) as u32).min(800);
            let nh = (rng.range(h as usize / 2, h as usize * 2).max(1) as u32).min(800);
            *img = image::imageops::resize(&*img, nw, nh, image::imageops::FilterType::Nearest);
        }
        // Invert everything.
        5 => image::imageops::invert(img),
        // Crop a border.
        6 => {
            let (cx, cy) = (x.min(w / 4), y.min(h / 4));
            *img = image::imageops::crop_imm(&*img, cx, cy, (w - cx).max(1), (h - cy).max(1)).to_image();
        }
        // Shift a band of rows.
        7 => {
            let k = rng.range(1, module as usize * 3) as u32;
            for yy in y..(y + module * 2).min(h) {
                let row: Vec<u8> = (0..w).map(|xx| img.get_pixel(xx, yy).0[0]).collect();
                for xx in 0..w {
                    img.put_pixel(xx, yy, Luma([row[((xx + k) % w) as usize]]));
                }
            }
        }
        // Erase a rectangle.
        _ => {
            for yy in y..(y + module * 3).min(h) {
                for xx in x..(x + module * 3).min(w) {
                    img.put_pixel(xx, yy, Luma([255]));
                }
            }
        }
    }
}

fn qr_harness() -> Harness {
    Box::new(|b: &[u8]| {
        if b.len() < 10 {
            return 0;
        }
        let module = u32::from(b[0] % 4) + 1;
        let rounds = usize::from(b[1] % 48);
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&b[2..10]);
        let mut rng = Rng::new(u64::from_le_bytes(seed));
        let text = &b[10..];
        let mut img: GrayImage = match qrcode::QrCode::new(text) {
            Ok(code) => code.render::<Luma<u8>>().module_dimensions(module, module).build(),
            Err(_) => GrayImage::from_fn(64, 64, |_, _| Luma([rng.byte()])),
        };
        for _ in 0..rounds {
            perturb(&mut img, &mut rng, module);
        }
        let rgb = RgbImage::from_fn(img.width(), img.height(), |x, y| {
            let v = img.get_pixel(x, y).0[0];
            Rgb([v, v, v])
        });
        let texts = idv_vision::qr::decode_qr_codes(&rgb);
        let mut sig = texts.len() as u64;
        for t in &texts {
            sig = sig.wrapping_mul(31) ^ super::cards::read_as_card_handler(t);
        }
        sig
    })
}

/// Modules per side of a QR code of `version` (1-40), ISO/IEC 18004.
fn qr_side(version: usize) -> usize {
    17 + 4 * version
}

/// A module grid packed as the qr_modules target reads it: the version (1-40) in the first
/// byte, then the modules row by row, one bit each, most significant first (1 = dark).
fn pack_modules(version: usize, dark: impl Fn(usize, usize) -> bool) -> Vec<u8> {
    let size = qr_side(version);
    let mut out = vec![(version - 1) as u8];
    out.resize(1 + (size * size).div_ceil(8), 0);
    for y in 0..size {
        for x in 0..size {
            if dark(x, y) {
                let i = y * size + x;
                out[1 + i / 8] |= 0x80 >> (i % 8);
            }
        }
    }
    out
}

fn qr_module_seeds() -> Vec<Vec<u8>> {
    let texts: [&[u8]; 5] = [
        b"hello",
        super::cards::CCCD_SAMPLE.as_bytes(),
        super::cards::MRZ_TD3.as_bytes(),
        super::cards::AADHAAR_XML_SAMPLE.as_bytes(),
        b"0123456789012345678901234567890123456789",
    ];
    texts
        .iter()
        .filter_map(|t| qrcode::QrCode::new(t).ok())
        .filter_map(|code| {
            let qrcode::Version::Normal(v) = code.version() else { return None };
            let width = code.width();
            let colors = code.to_colors();
            let version = usize::try_from(v).ok()?;
            Some(pack_modules(version, |x, y| colors.get(y * width + x) == Some(&qrcode::Color::Dark)))
        })
        .collect()
}

/// Both decoders on a module grid, each inside `catch_unwind` as `vision/src/qr.rs` calls
/// them (a decoder panic there means "no code read", so it is not a crash here either); the
/// texts go on to the card codecs.
fn qr_modules_harness() -> Harness {
    Box::new(|b: &[u8]| {
        let Some((&v, bits)) = b.split_first() else { return 0 };
        let version = usize::from(v % 40) + 1;
        let size = qr_side(version);
        let dark = |x: usize, y: usize| {
            let i = y * size + x;
            bits.get(i / 8).is_some_and(|byte| byte & (0x80 >> (i % 8)) != 0)
        };
        let grid = rqrr::Grid::new(rqrr::SimpleGrid::from_func(size, dark));
        let rows: Vec<Vec<bool>> = (0..size).map(|y| (0..size).map(|x| dark(x, y)).collect()).collect();
        let by_rqrr = std::panic::catch_unwind(|| grid.decode().map(|(_, text)| text)).ok();
        let by_rxing = std::panic::catch_unwind(|| {
            let hints = rxing::DecodeHints { CharacterSet: Some("UTF-8".into()), ..rxing::DecodeHints::default() };
            rxing::qrcode::decoder::qrcode_decoder::decode_bool_array_with_hints(&rows, &hints).map(|r| r.getText().to_string())
        })
        .ok();
        let mut sig = version as u64;
        for (i, read) in [by_rqrr.map(|r| r.map_err(|e| format!("{e:?}"))), by_rxing.map(|r| r.map_err(|e| format!("{e:?}")))].into_iter().enumerate() {
            sig = sig.wrapping_mul(31)
                ^ match read {
                    None => 1 + i as u64,
                    Some(Err(e)) => sig_str(&e),
                    Some(Ok(text)) => 10 ^ super::cards::read_as_card_handler(&text),
                };
        }
        sig
    })
}

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "base64_media",
            about: "inline base64 media: decode_media, then idv_vision::decode",
            shape: Shape::Text,
            json_after_line: false,
            max_len: 256 * 1024,
            seeds: b64_seeds,
            dict: || ["data:", ";base64,", "=", "==", "+", "/", "-", "_", " ", "\n", "data:image/png;base64,"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: b64_harness,
        },
        Target {
            name: "image_decode",
            about: "idv_vision::decode (JPEG, PNG, WebP; EXIF orientation); first byte: PNG CRCs fixed (odd), limits default/faces/cards",
            shape: Shape::Bytes,
            json_after_line: false,
            max_len: 256 * 1024,
            seeds: || image_seeds().into_iter().enumerate().map(|(i, s)| [vec![i as u8 % 6], s].concat()).collect(),
            dict: || {
                [&b"\xff\xd8"[..], b"\xff\xd9", b"\xff\xc0", b"\xff\xc2", b"\xff\xc4", b"\xff\xda", b"\xff\xdb", b"\xff\xe1", b"Exif\0\0", b"IHDR", b"IDAT", b"IEND", b"PLTE", b"tRNS", b"eXIf", b"iCCP", b"RIFF", b"WEBP", b"VP8L", b"VP8 ", b"VP8X", b"ALPH", b"EXIF", b"\xff\xff\xff\x7f", b"\x00\x00\x27\x10"]
                    .iter()
                    .map(|s| s.to_vec())
                    .collect()
            },
            harness: image_harness,
        },
        Target {
            name: "qr_image",
            about: "idv_vision::qr::decode_qr_codes (rqrr) on rendered, perturbed QR codes; texts to the card codecs",
            shape: Shape::Bytes,
            json_after_line: false,
            max_len: 512,
            seeds: qr_seeds,
            dict: super::no_dict,
            harness: qr_harness,
        },
        Target {
            name: "qr_modules",
            about: "the QR decoders behind qr_image (rqrr's Grid, rxing's bit-matrix decoder) on module grids: format and version information, error correction, segments",
            shape: Shape::Bytes,
            json_after_line: false,
            max_len: 1 + (qr_side(40) * qr_side(40)).div_ceil(8),
            seeds: qr_module_seeds,
            dict: super::no_dict,
            harness: qr_modules_harness,
        },
    ]
}
