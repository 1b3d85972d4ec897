//! Portrait sanity evaluation (docs/VISION.md, "Portrait sanity: evaluation"):
//! - **false refusals**: the real photos and video frames (the main face), as captured,
//!   darker ×0.5, mirrored, JPEG quality 30 — images a person would accept — refused as
//!   too dark, too bright or too blurred; beside them ×0.1 (which should be too dark);
//! - **sunglasses** on labelled variants made here: dark lenses painted over both eyes of
//!   the real faces from their 68 landmarks (four tints, with a reflection) → the eye
//!   verdict must name sunglasses; the same faces without them must not;
//! - **white background** (the ID-photo rule of `verify_portrait_sanity_sync`): the head
//!   of each real photo cut out as an ellipse and put on backgrounds of known colour
//!   (white, off-white, light grey under dim light → white; light blue, beige, mid grey,
//!   the original background → not white).
//!
//!     cargo run --release -p idv-vision --bin sanity_eval [-- --frames N]
//!
//! Prints figures; asserts nothing. Synthetic variants are named as such.

use idv_vision::detect::{DetectParams, Face, Mtcnn};
use idv_vision::landmarks::Landmarks68;
use idv_vision::quality::{apply_white_background_rule, main_face, EyeState, PortraitAnalyzer, PortraitSanity, PortraitVerdict, QualityParams};
use idv_vision::testdata::{self, SINGLE_PERSON_PHOTOS};
use idv_vision::video::VideoDecoder;
use idv_vision::{decode, models_dir, DecodeLimits, OrtConfig, OrtRuntime, RgbImage};
use std::collections::BTreeMap;

const VIDEOS: [&str; 4] = ["testvid-pyfeat-single-face", "testvid-pyfeat-pexels", "testvid-pyfeat-face-noface", "testvid-pyfeat-noface-face"];

struct Eval {
    mtcnn: Mtcnn,
    analyzer: PortraitAnalyzer,
    params: QualityParams,
}

impl Eval {
    fn sanity(&self, img: &RgbImage) -> (PortraitSanity, Option<Face>) {
        let faces = self.mtcnn.detect(img, &DetectParams::default()).unwrap_or_default();
        let main = main_face(&faces, &self.params).cloned();
        (self.analyzer.analyze(img, &faces, &self.params), main)
    }
}

fn sunglasses(img: &RgbImage, lm: &Landmarks68, tint: [f32; 3]) -> RgbImage {
    let mut out = img.clone();
    let five = lm.five();
    let iod = lm.inter_ocular();
    let (w, h) = (img.width() as i64, img.height() as i64);
    for (k, a) in [36usize, 42].iter().enumerate() {
        let pts = &lm.points[*a..*a + 6];
        let (minx, maxx) = pts.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[0]), hi.max(p[0])));
        let ew = (maxx - minx).max(0.2 * iod);
        let (cx, cy) = (five[k][0], five[k][1] - 0.1 * ew);
        let (rx, ry) = (0.78 * ew, 0.58 * ew);
        for y in (cy - ry) as i64..=(cy + ry) as i64 {
            for x in (cx - rx) as i64..=(cx + rx) as i64 {
                if x < 0 || y < 0 || x >= w || y >= h {
                    continue;
                }
                let (dx, dy) = ((x as f32 - cx) / rx, (y as f32 - cy) / ry);
                let d = dx * dx + dy * dy;
                if d > 1.0 {
                    continue;
                }
                let p = out.get_pixel_mut(x as u32, y as u32);
                let glint = if dy < -0.3 && dx > -0.2 && dx < 0.5 { 35.0 * (1.0 - d) } else { 0.0 };
                // The frame: a dark rim at the lens's edge.
                let rim = if d > 0.85 { 0.4 } else { 1.0 };
                for c in 0..3 {
                    p.0[c] = ((tint[c] + 0.1 * f32::from(p.0[c]) + glint) * rim).clamp(0.0, 255.0) as u8;
                }
            }
        }
    }
    // Bridge.
    let (y, x0, x1) = ((five[0][1] + five[1][1]) / 2.0 - 0.1 * iod, five[0][0] + 0.35 * iod, five[1][0] - 0.35 * iod);
    for yy in (y - 0.03 * iod) as i64..=(y + 0.03 * iod) as i64 {
        for xx in x0 as i64..=x1 as i64 {
            if xx >= 0 && yy >= 0 && xx < w && yy < h {
                *out.get_pixel_mut(xx as u32, yy as u32) = image::Rgb([20, 20, 20]);
            }
        }
    }
    out
}

/// The head (an ellipse around the face box, shoulders below it) kept, everything else
/// replaced by `bg` with a slight vertical shading (synthetic).
fn on_background(img: &RgbImage, face: &Face, bg: [f32; 3]) -> RgbImage {
    let [x1, y1, x2, y2] = face.rect;
    let (fw, fh) = (x2 - x1, y2 - y1);
    let (cx, cy) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0 - 0.12 * fh);
    let (rx, ry) = (0.75 * fw, 0.85 * fh);
    let mut out = img.clone();
    let h = img.height() as f32;
    for (x, y, p) in out.enumerate_pixels_mut() {
        let (xf, yf) = (x as f32, y as f32);
        let (dx, dy) = ((xf - cx) / rx, (yf - cy) / ry);
        let head = dx * dx + dy * dy <= 1.0;
        let shoulders = yf > y2 + 0.1 * fh && (xf - cx).abs() < 1.4 * fw;
        if head || shoulders {
            continue;
        }
        let shade = 1.0 - 0.06 * yf / h;
        *p = image::Rgb(bg.map(|v| (v * shade).clamp(0.0, 255.0) as u8));
    }
    out
}

fn main() {
    let mut frames_per_video = 12usize;
    let mut images: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--frames" => frames_per_video = args.next().and_then(|v| v.parse().ok()).unwrap_or(12),
            "--image" => images.extend(args.next()),
            _ => return eprintln!("usage: sanity_eval [--frames N] [--image FILE]..."),
        }
    }
    let dir = models_dir();
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let mtcnn = match Mtcnn::load(&rt) {
        Ok(m) => m,
        Err(e) => return eprintln!("sanity_eval: {e}"),
    };
    let analyzer = PortraitAnalyzer::load(&rt);
    let Some(landmarker) = analyzer.landmarker.clone() else { return eprintln!("sanity_eval: landmark model not installed") };
    let eval = Eval { mtcnn, analyzer, params: QualityParams::default() };
    if !images.is_empty() {
        // Every confident face of the given photos, one at a time, the pose check
        // relaxed so that each reaches the eye check.
        let relaxed = QualityParams { yaw_deg: 90.0, ..QualityParams::default() };
        for path in &images {
            let Ok(img) = std::fs::read(path).map_err(|e| e.to_string()).and_then(|b| decode(&b, &DecodeLimits::default()).map_err(|e| e.to_string())) else {
                eprintln!("sanity_eval: {path}: cannot read");
                continue;
            };
            let faces = eval.mtcnn.detect(&img, &DetectParams::default()).unwrap_or_default();
            for f in faces.iter().filter(|f| f.score >= 0.9) {
                let s = eval.analyzer.analyze(&img, std::slice::from_ref(f), &relaxed);
                let m = &s.measurements;
                println!(
                    "{path} face at ({:.0},{:.0}): {} | eye skin {:?} darkness {:?} | white background {:?}",
                    f.rect[0],
                    f.rect[1],
                    s.verdict.as_api_string(),
                    m.eye_skin_shares,
                    m.eye_darkness,
                    m.background_white_share
                );
            }
        }
        return;
    }
    // Real images with one main face: the single-person photos and video frames.
    let mut real: Vec<(String, RgbImage)> = Vec::new();
    for id in SINGLE_PERSON_PHOTOS {
        match testdata::read_test_image(&dir, id).and_then(|b| decode(&b, &DecodeLimits::default()).map_err(|e| e.to_string())) {
            Ok(img) => real.push((format!("photo {id}"), img)),
            Err(e) => return eprintln!("sanity_eval: {id}: {e}"),
        }
    }
    let mut decoder = VideoDecoder::from_env();
    decoder.limits.sample_frames = frames_per_video;
    for id in VIDEOS {
        match testdata::read_test_video(&dir, id).and_then(|b| decoder.sample(&b).map_err(|e| e.to_string())) {
            Ok(frames) => real.extend(frames.into_iter().enumerate().map(|(i, f)| (format!("frame {id}#{i}"), f.image))),
            Err(e) => eprintln!("sanity_eval: {id}: {e} (left out)"),
        }
    }

    // 1. False refusals on exposure and blur.
    println!("== portrait sanity: refusals (too dark / too bright / too blurred) of real images with a face");
    let refusal = |v: PortraitVerdict| matches!(v, PortraitVerdict::ImageTooDark | PortraitVerdict::ImageTooBright | PortraitVerdict::ImageTooBlur);
    let mut table: BTreeMap<&str, (usize, usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for (name, img) in &real {
        let (base, face) = eval.sanity(img);
        if face.is_none() {
            continue; // frames where the person left the picture
        }
        let variants: [(&str, RgbImage); 5] = [
            ("as captured", img.clone()),
            ("darker x0.5", testdata::scaled_exposure(img, 0.5)),
            ("mirrored", image::imageops::flip_horizontal(img)),
            ("JPEG q30", testdata::jpeg_roundtrip(img, 30)),
            ("darker x0.1 (should be too dark)", testdata::scaled_exposure(img, 0.1)),
        ];
        let _ = base;
        for (kind, v) in variants {
            let (s, _) = eval.sanity(&v);
            let e = table.entry(kind).or_default();
            e.0 += 1;
            if refusal(s.verdict) {
                e.1 += 1;
                if !kind.contains("0.1") {
                    println!("  refused: {name} {kind}: {}", s.verdict.as_api_string());
                }
            }
            *e.2.entry(s.verdict.as_api_string()).or_default() += 1;
        }
    }
    for (kind, (n, refused, verdicts)) in &table {
        println!("{kind:<34} {refused:>3}/{n:<3} refused ({:.1}%)   verdicts {verdicts:?}", 100.0 * *refused as f64 / (*n).max(1) as f64);
    }

    // 2. Sunglasses (synthetic lenses on the real faces).
    println!("== sunglasses (synthetic lenses painted from the 68 landmarks)");
    let tints = [("black", [15.0, 15.0, 18.0]), ("brown", [55.0, 35.0, 20.0]), ("green", [25.0, 45.0, 30.0]), ("grey-blue", [40.0, 48.0, 62.0])];
    let (mut with_n, mut with_hit, mut without_n, mut without_false) = (0, 0, 0, 0);
    let mut shares_real: Vec<f32> = Vec::new();
    let mut dark_real: Vec<f32> = Vec::new();
    let mut dark_glasses: Vec<f32> = Vec::new();
    // Every face reaches the eye check here, turned ones too (the yaw check comes first
    // in the service).
    let relaxed = Eval { mtcnn: Mtcnn::load(&rt).expect("loaded above"), analyzer: eval.analyzer.clone(), params: QualityParams { yaw_deg: 90.0, ..QualityParams::default() } };
    let mut shares_glasses: Vec<f32> = Vec::new();
    let has_sunglasses = |v: PortraitVerdict| matches!(v, PortraitVerdict::Eyes(e) if e.contains(&EyeState::Sunglasses));
    for (i, (_, img)) in real.iter().enumerate() {
        let (s, face) = relaxed.sanity(img);
        let Some(face) = face else { continue };
        without_n += 1;
        without_false += usize::from(has_sunglasses(s.verdict));
        shares_real.extend(s.measurements.eye_skin_shares.into_iter().flatten());
        dark_real.extend(s.measurements.eye_darkness.into_iter().flatten());
        if has_sunglasses(s.verdict) {
            println!("  false: {} (skin {:?}, darkness {:?})", real[i].0, s.measurements.eye_skin_shares, s.measurements.eye_darkness);
        }
        let Ok(lm) = landmarker.landmarks(img, &face) else { continue };
        let (_, tint) = tints[i % tints.len()];
        let g = sunglasses(img, &lm, tint);
        let (sg, _) = relaxed.sanity(&g);
        with_n += 1;
        with_hit += usize::from(has_sunglasses(sg.verdict));
        shares_glasses.extend(sg.measurements.eye_skin_shares.into_iter().flatten());
        dark_glasses.extend(sg.measurements.eye_darkness.into_iter().flatten());
        if !has_sunglasses(sg.verdict) {
            println!("  missed: {} -> {} (skin shares {:?})", real[i].0, sg.verdict.as_api_string(), sg.measurements.eye_skin_shares);
        }
    }
    let q = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        if v.is_empty() {
            return "-".to_string();
        }
        format!("min {:.2} p50 {:.2} max {:.2}", v[0], v[v.len() / 2], v[v.len() - 1])
    };
    println!("with sunglasses (synthetic): {with_hit}/{with_n} named sunglasses; eye skin share {}", q(&mut shares_glasses));
    println!("without: {without_false}/{without_n} wrongly named sunglasses; eye skin share {}", q(&mut shares_real));
    println!("eye region luminance over the cheeks': with {}; without {}", q(&mut dark_glasses), q(&mut dark_real));

    // 3. White background (the ID-photo rule).
    println!("== white background (ID-photo rule; synthetic backgrounds around the real heads)");
    let backgrounds: [(&str, Option<[f32; 3]>, bool); 7] = [
        ("white", Some([252.0, 252.0, 252.0]), true),
        ("off-white", Some([236.0, 234.0, 226.0]), true),
        ("white under dim light", Some([196.0, 196.0, 200.0]), true),
        ("light blue", Some([165.0, 200.0, 235.0]), false),
        ("beige", Some([225.0, 200.0, 160.0]), false),
        ("mid grey", Some([140.0, 140.0, 140.0]), false),
        ("original background", None, false),
    ];
    for (name, bg, white) in backgrounds {
        let (mut n, mut right) = (0, 0);
        // Portraits that pass every other check (the rule judges only those): the
        // single-person photos and every 4th video frame.
        for (id, img) in real.iter().enumerate().filter(|(i, (n, _))| n.starts_with("photo") || i % 4 == 0).map(|(_, r)| r) {
            let (base, Some(face)) = eval.sanity(img) else { continue };
            if !matches!(base.verdict, PortraitVerdict::Good | PortraitVerdict::Incomplete) {
                continue;
            }
            let v = match bg {
                Some(c) => on_background(img, &face, c),
                None => img.clone(),
            };
            let (s, _) = eval.sanity(&v);
            if !matches!(s.verdict, PortraitVerdict::Good | PortraitVerdict::Incomplete) {
                continue; // the cut-out changed another verdict (e.g. exposure): not judged
            }
            let judged = apply_white_background_rule(s, &eval.params);
            if judged.skipped.contains(&"background") {
                continue;
            }
            n += 1;
            let said_white = judged.verdict != PortraitVerdict::NotWhiteBackground;
            if said_white == white {
                right += 1;
            } else {
                println!("  wrong: {id} on {name}: {} (white share {:?})", judged.verdict.as_api_string(), judged.measurements.background_white_share);
            }
        }
        println!("{name:<24} expected {:<9} {right}/{n} right", if white { "white" } else { "not white" });
    }
}
