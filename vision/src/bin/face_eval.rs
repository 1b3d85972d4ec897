//! Face verification on the photos that can be had here (docs/VISION.md, "Matching"):
//! genuine and impostor distance distributions and error rates at the configured
//! threshold.
//!
//!     cargo run --release -p idv-vision --bin face_eval [-- --pairs]
//!
//! Faces: MTCNN (default parameters) on the 13 installed test photos, aligned and
//! embedded by [`DlibEmbedder`]. Who is who:
//! - face_recognition 1.3.0 `tests/test_images/`: Barack Obama in three distinct photos:
//!   A = obama.jpg, with obama_partial_face.jpg and obama_partial_face2.jpg being crops of
//!   it (re-encoded, the face cut by the border); B = obama2.jpg, with 32bit.png the same
//!   photo as RGBA PNG; C = obama3.jpg. Joe Biden in biden.jpg.
//! - face-api 1.7.15 `demo/sample1..6.jpg`: group photos of women from one photo shoot;
//!   within a photo every face is a different person, across photos the same woman may
//!   appear again (nobody has labelled them).
//!
//! Pairs:
//! - genuine: Obama × Obama from different photos (A×B, A×C, B×C: 11 pairs);
//! - same photo: Obama × Obama from one photo (re-encoded or cropped: 4 pairs), listed
//!   apart, not counted as genuine;
//! - impostor: different people in one group photo (29), each of the 7 Obama and Biden
//!   photos × every group face (147), Obama × Biden (6);
//! - unlabelled: group faces from different group photos, shown as a distribution only.
//!
//! sample3's one detection that is not a face (a torso, docs/VISION.md) is left out.
//! `--pairs` prints every pair; without it, the impostor and unlabelled pairs below
//! 0.65 are printed. `--bench N` then times N network runs on one chip and N/16 runs on
//! batches of 16 (intra-op threads: IDV_VISION_INTRA_THREADS, default 1).

use idv_vision::detect::{DetectParams, Mtcnn};
use idv_vision::matching::{decide, judge, MatchConfig, MatchDecision};
use idv_vision::{decode, models_dir, testdata, DecodeLimits, DlibEmbedder, FaceEmbedder, OrtConfig, OrtRuntime};
use std::time::Instant;

use idv_vision::testdata::EVAL_PHOTOS;

struct FaceRec {
    photo: &'static str,
    /// Person: "obama", "biden", or "" for a group face (a person of its own).
    who: &'static str,
    source: &'static str,
    centre: (f32, f32),
    vector: Vec<f32>,
}

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Genuine,
    SamePhoto,
    Impostor,
    Unlabelled,
}

fn kind(a: &FaceRec, b: &FaceRec) -> Kind {
    match (a.who.is_empty(), b.who.is_empty()) {
        (false, false) if a.who != b.who => Kind::Impostor,
        (false, false) if a.source == b.source => Kind::SamePhoto,
        (false, false) => Kind::Genuine,
        (true, true) if a.source == b.source => Kind::Impostor,
        (true, true) => Kind::Unlabelled,
        _ => Kind::Impostor,
    }
}

/// `genuine`: Some(true) genuine pairs, Some(false) impostor pairs, None unlabelled.
fn stats(name: &str, d: &mut [f32], cfg: &MatchConfig, genuine: Option<bool>) {
    d.sort_by(|a, b| a.total_cmp(b));
    if d.is_empty() {
        println!("{name}: no pairs");
        return;
    }
    let q = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize];
    let mean = d.iter().map(|v| f64::from(*v)).sum::<f64>() / d.len() as f64;
    let (mut m, mut u, mut n) = (0, 0, 0);
    for &v in d.iter() {
        match decide(v, cfg) {
            MatchDecision::Matched => m += 1,
            MatchDecision::Unsure => u += 1,
            MatchDecision::Unmatched => n += 1,
        }
    }
    println!(
        "{name}: {} pairs; distance min {:.3} p5 {:.3} p50 {:.3} mean {:.3} p95 {:.3} max {:.3}",
        d.len(),
        d[0],
        q(0.05),
        q(0.5),
        mean,
        q(0.95),
        d[d.len() - 1]
    );
    println!("    three-way: matched {m}, unsure {u}, unmatched {n}");
    let Some(genuine) = genuine else {
        let plain = d.iter().filter(|&&v| v < cfg.threshold).count();
        println!("    (no labels: {m} matched, {plain} below dlib's plain {:.2})", cfg.threshold);
        return;
    };
    let what = if genuine { "false non-match" } else { "false match" };
    let pct = |n: usize| 100.0 * n as f64 / d.len() as f64;
    // Two-way as configured: matched only below threshold - margin (docs/VISION.md).
    let wrong = d.iter().filter(|&&v| (decide(v, cfg) == MatchDecision::Matched) != genuine).count();
    // dlib's plain rule: matched below the threshold.
    let wrong_plain = d.iter().filter(|&&v| (v < cfg.threshold) != genuine).count();
    println!(
        "    {name} rate, two-way (matched below {:.2}): {wrong}/{} = {:.1}%; with dlib's plain d < {:.2}: {wrong_plain}/{} = {:.1}%",
        cfg.threshold - cfg.unsure_margin,
        d.len(),
        pct(wrong),
        cfg.threshold,
        d.len(),
        pct(wrong_plain),
        name = what
    );
}

fn main() {
    let print_pairs = std::env::args().any(|a| a == "--pairs");
    let dir = models_dir();
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let mtcnn = match Mtcnn::load(&rt) {
        Ok(m) => m,
        Err(e) => return eprintln!("face_eval: {e}"),
    };
    let t = Instant::now();
    let embedder = match DlibEmbedder::load(&rt, &dir) {
        Ok(e) => e,
        Err(e) => return eprintln!("face_eval: {e}"),
    };
    println!("loading the embedder (network sessions + shape predictor): {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let cfg = MatchConfig::default();
    let mut faces: Vec<FaceRec> = Vec::new();
    let (mut align_ms, mut embed_ms) = (Vec::new(), Vec::new());
    let mut last_chip = None;
    for (photo, who, source) in EVAL_PHOTOS {
        let img = match testdata::read_test_image(&dir, photo).map_err(|e| e.to_string()).and_then(|b| {
            decode(&b, &DecodeLimits::default()).map_err(|e| e.to_string())
        }) {
            Ok(i) => i,
            Err(e) => return eprintln!("face_eval: {photo}: {e}"),
        };
        let detected = match mtcnn.detect(&img, &DetectParams::default()) {
            Ok(d) => d,
            Err(e) => return eprintln!("face_eval: {photo}: {e}"),
        };
        for f in &detected {
            let centre = ((f.rect[0] + f.rect[2]) / 2.0, (f.rect[1] + f.rect[3]) / 2.0);
            // sample3's torso (docs/VISION.md): the one detection that is not a face.
            if photo == "testimg-faceapi-sample3" && f.score < 0.9 {
                println!("left out: {photo} detection at ({:.0}, {:.0}), score {:.2} (not a face)", centre.0, centre.1, f.score);
                continue;
            }
            let t = Instant::now();
            let aligned = match embedder.align_face(&img, f) {
                Ok(a) => a,
                Err(e) => return eprintln!("face_eval: {photo}: {e}"),
            };
            let t_align = t.elapsed();
            let e = match embedder.embed_chips(&[&aligned.chip]) {
                Ok(mut e) => e.remove(0),
                Err(e) => return eprintln!("face_eval: {photo}: {e}"),
            };
            align_ms.push(t_align.as_secs_f64() * 1e3);
            last_chip = Some(aligned.chip);
            embed_ms.push((t.elapsed() - t_align).as_secs_f64() * 1e3);
            faces.push(FaceRec { photo, who, source, centre, vector: e.vector });
        }
    }
    println!(
        "{} faces from {} photos; model {} {}; threshold {} (unsure ±{})",
        faces.len(),
        EVAL_PHOTOS.len(),
        embedder.model_id(),
        embedder.model_version(),
        cfg.threshold,
        cfg.unsure_margin
    );
    let (mut genuine, mut impostor, mut unlabelled, mut same_photo) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..faces.len() {
        for j in i + 1..faces.len() {
            let (a, b) = (&faces[i], &faces[j]);
            let Some(d) = idv_vision::matching::euclidean_distance(&a.vector, &b.vector) else { continue };
            let k = kind(a, b);
            let (list, name) = match k {
                Kind::Genuine => (&mut genuine, "genuine"),
                Kind::SamePhoto => (&mut same_photo, "same photo"),
                Kind::Impostor => (&mut impostor, "impostor"),
                Kind::Unlabelled => (&mut unlabelled, "unlabelled"),
            };
            list.push(d);
            let close = matches!(k, Kind::Impostor | Kind::Unlabelled) && d < cfg.threshold + cfg.unsure_margin;
            if print_pairs || close || k == Kind::SamePhoto {
                let r = judge(d, &cfg);
                println!(
                    "  {name}: {} ({:.0},{:.0}) × {} ({:.0},{:.0}): distance {d:.4}, score {:.3}, {}",
                    a.photo,
                    a.centre.0,
                    a.centre.1,
                    b.photo,
                    b.centre.0,
                    b.centre.1,
                    r.score,
                    r.decision.as_str()
                );
            }
        }
    }
    stats("genuine (Obama, different photos)", &mut genuine, &cfg, Some(true));
    stats("same photo (Obama, re-encoded or cropped; not counted)", &mut same_photo, &cfg, Some(true));
    stats("impostor", &mut impostor, &cfg, Some(false));
    stats("unlabelled (group faces across photos; may include the same woman)", &mut unlabelled, &cfg, None);
    for (what, v) in [("align (shape predictor + chip)", &mut align_ms), ("embed (network, 1 chip)", &mut embed_ms)] {
        v.sort_by(|a, b| a.total_cmp(b));
        if let (Some(first), Some(med), Some(last)) = (v.first(), v.get(v.len() / 2), v.last()) {
            println!("{what}: median {med:.2} ms, min {first:.2} ms, max {last:.2} ms over {} faces (max includes first use)", v.len());
        }
    }
    let args: Vec<String> = std::env::args().collect();
    let Some(n) = args.iter().position(|a| a == "--bench").and_then(|i| args.get(i + 1)).and_then(|v| v.parse::<usize>().ok()) else {
        return;
    };
    let Some(chip) = last_chip else { return };
    let mut single = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        if let Err(e) = embedder.embed_chips(&[&chip]) {
            return eprintln!("face_eval: {e}");
        }
        single.push(t.elapsed().as_secs_f64() * 1e3);
    }
    single.sort_by(|a, b| a.total_cmp(b));
    let p = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!("network, 1 chip: p50 {:.2} ms, p99 {:.2} ms ({n} runs)", p(&single, 0.5), p(&single, 0.99));
    let batch: Vec<&idv_vision::RgbImage> = vec![&chip; 16];
    let mut per = Vec::new();
    for _ in 0..(n / 16).max(1) {
        let t = Instant::now();
        if let Err(e) = embedder.embed_chips(&batch) {
            return eprintln!("face_eval: {e}");
        }
        per.push(t.elapsed().as_secs_f64() * 1e3 / 16.0);
    }
    per.sort_by(|a, b| a.total_cmp(b));
    println!("network, batches of 16: p50 {:.2} ms per chip ({} batches)", p(&per, 0.5), per.len());
}
