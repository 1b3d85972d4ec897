//! Passive liveness evaluation (docs/VISION.md, "Passive liveness: evaluation"), ISO/IEC
//! 30107-3 vocabulary:
//! - **BPCER** per real-image kind: every confident face (MTCNN score ≥ 0.9, counted as
//!   portrait sanity counts them) of the installed real photos and of frames sampled
//!   from the real videos, and of their variants — darker (×0.5), mirrored, JPEG quality
//!   30, low resolution (×0.4) — is a bona fide presentation; every one refused is a
//!   classification error.
//! - **APCER** per attack species: [`idv_vision::attack_synth`] makes synthetic print,
//!   screen-replay, cut-out and defocused-recapture attacks from the same real faces
//!   (two seeds each); every one accepted as live is an error. Synthetic: these figures
//!   say how the policy treats the simulated physics, not real attacks.
//!
//! Each method is shown on its own beside the policy the service runs: the model alone
//! at its own threshold (both channel orders), the periodic-structure cue alone, and
//! `passive_verdict` (live / uncertain / spoof; only `spoof` refuses).
//!
//!     cargo run --release -p idv-vision --bin liveness_eval [-- --frames N] [--csv FILE]
//!
//! Prints figures; asserts nothing.

use idv_vision::attack_synth::{synthesize, AttackKind};
use idv_vision::detect::{DetectParams, Face, Mtcnn};
use idv_vision::liveness::{ChannelOrder, LivenessModel, LivenessParams, LivenessResult, PassiveVerdict};
use idv_vision::quality::{counted_faces, main_face, QualityParams};
use idv_vision::spoof_cues::SpoofCues;
use idv_vision::testdata::{self, EVAL_PHOTOS};
use idv_vision::video::VideoDecoder;
use idv_vision::{decode, models_dir, DecodeLimits, OrtConfig, OrtRuntime, RgbImage};
use std::collections::BTreeMap;
use std::io::Write;

const VIDEOS: [&str; 4] = ["testvid-pyfeat-single-face", "testvid-pyfeat-pexels", "testvid-pyfeat-face-noface", "testvid-pyfeat-noface-face"];

/// One face judged.
struct Sample {
    kind: String,
    source: String,
    model_rgb: f32,
    model_bgr: f32,
    cues: SpoofCues,
    verdict: PassiveVerdict,
}

struct Judge {
    mtcnn: Mtcnn,
    liveness: LivenessModel,
}

impl Judge {
    fn faces(&self, img: &RgbImage) -> Vec<Face> {
        self.mtcnn.detect(img, &DetectParams::default()).unwrap_or_default()
    }

    fn judge(&self, kind: &str, source: &str, img: &RgbImage, face: &Face) -> Option<Sample> {
        // The service's own check: BGR (the default order) and RGB, the cues, the policy.
        let rgb = LivenessParams { channel_order: ChannelOrder::Rgb, ..LivenessParams::default() };
        let model_rgb = self.liveness.probabilities(img, face, &rgb).ok()?[0];
        match self.liveness.check(img, face, &LivenessParams::default()) {
            LivenessResult::Performed { verdict, probabilities, cues, .. } => {
                Some(Sample { kind: kind.to_string(), source: source.to_string(), model_rgb, model_bgr: probabilities[0], cues, verdict })
            }
            LivenessResult::NotPerformed { .. } => None,
        }
    }
}

fn lowres(img: &RgbImage, f: f32) -> RgbImage {
    let (w, h) = (((img.width() as f32 * f) as u32).max(16), ((img.height() as f32 * f) as u32).max(16));
    image::imageops::resize(img, w, h, image::imageops::FilterType::Triangle)
}

/// The real-image variants: (kind suffix, image).
fn variants(img: &RgbImage) -> Vec<(&'static str, RgbImage)> {
    vec![
        ("as captured", img.clone()),
        ("darker x0.5", testdata::scaled_exposure(img, 0.5)),
        ("mirrored", image::imageops::flip_horizontal(img)),
        ("JPEG q30", testdata::jpeg_roundtrip(img, 30)),
        ("low resolution x0.4", lowres(img, 0.4)),
    ]
}

fn main() {
    let mut frames_per_video = 24usize;
    let mut csv: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--frames" => frames_per_video = args.next().and_then(|v| v.parse().ok()).unwrap_or(24),
            "--csv" => csv = args.next(),
            _ => return eprintln!("usage: liveness_eval [--frames N] [--csv FILE]"),
        }
    }
    let dir = models_dir();
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let judge = match (Mtcnn::load(&rt), LivenessModel::load(&rt)) {
        (Ok(mtcnn), Ok(liveness)) => Judge { mtcnn, liveness },
        (Err(e), _) => return eprintln!("liveness_eval: {e}"),
        (_, Err(e)) => return eprintln!("liveness_eval: liveness model: {e}"),
    };
    let qp = QualityParams::default();
    // Real sources: (source kind, name, image).
    let mut sources: Vec<(&str, String, RgbImage)> = Vec::new();
    for (id, _, _) in EVAL_PHOTOS {
        match testdata::read_test_image(&dir, id).and_then(|b| decode(&b, &DecodeLimits::default()).map_err(|e| e.to_string())) {
            Ok(img) => sources.push(("photo", id.to_string(), img)),
            Err(e) => return eprintln!("liveness_eval: {id}: {e}"),
        }
    }
    let mut decoder = VideoDecoder::from_env();
    decoder.limits.sample_frames = frames_per_video;
    if decoder.available() {
        for id in VIDEOS {
            match testdata::read_test_video(&dir, id).and_then(|b| decoder.sample(&b).map_err(|e| e.to_string())) {
                Ok(frames) => sources.extend(frames.into_iter().enumerate().map(|(i, f)| ("video frame", format!("{id}#{i}"), f.image))),
                Err(e) => eprintln!("liveness_eval: {id}: {e} (frames left out)"),
            }
        }
    } else {
        eprintln!("liveness_eval: ffmpeg not found: video frames left out");
    }
    let mut samples: Vec<Sample> = Vec::new();
    // Bona fide presentations.
    let mut attack_faces: Vec<(String, usize, [f32; 4])> = Vec::new();
    for (si, (kind, name, img)) in sources.iter().enumerate() {
        for (suffix, v) in variants(img) {
            let faces = judge.faces(&v);
            for face in counted_faces(&faces, &qp) {
                if let Some(s) = judge.judge(&format!("real {kind}, {suffix}"), name, &v, face) {
                    samples.push(s);
                }
            }
        }
        // Attack sources: the main face of every photo, every face of 60 px or more in
        // group photos, every 4th video frame's main face.
        let faces = judge.faces(img);
        let chosen: Vec<&Face> = if *kind == "photo" {
            counted_faces(&faces, &qp).into_iter().filter(|f| f.rect[2] - f.rect[0] >= 60.0).collect()
        } else if name.ends_with(|c: char| c.is_ascii_digit()) && name.rsplit('#').next().and_then(|n| n.parse::<usize>().ok()).is_some_and(|n| n % 4 == 0) {
            main_face(&faces, &qp).into_iter().collect()
        } else {
            Vec::new()
        };
        attack_faces.extend(chosen.into_iter().map(|f| (name.clone(), si, f.rect)));
    }
    // Attack presentations (synthetic).
    let mut no_face: BTreeMap<&str, usize> = BTreeMap::new();
    for kind in AttackKind::ALL {
        for (n, (name, si, rect)) in attack_faces.iter().enumerate() {
            for seed in 0..2u64 {
                let img = synthesize(kind, &sources[*si].2, *rect, seed * 1000 + n as u64);
                let faces = judge.faces(&img);
                match main_face(&faces, &qp).and_then(|f| judge.judge(&format!("attack: {}", kind.name()), name, &img, f)) {
                    Some(s) => samples.push(s),
                    None => *no_face.entry(kind.name()).or_default() += 1,
                }
            }
        }
    }
    report(&samples, &no_face);
    if let Some(path) = csv {
        if let Err(e) = write_csv(&path, &samples) {
            eprintln!("liveness_eval: {path}: {e}");
        }
    }
}

fn write_csv(path: &str, samples: &[Sample]) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    writeln!(f, "kind\tsource\tmodel_rgb\tmodel_bgr\tperiodic_peak\tblack_level\tverdict")?;
    for s in samples {
        writeln!(
            f,
            "{}\t{}\t{:.4}\t{:.4}\t{}\t{:.3}\t{:?}",
            s.kind,
            s.source,
            s.model_rgb,
            s.model_bgr,
            s.cues.periodic_peak.map_or("".into(), |v| format!("{v:.3}")),
            s.cues.black_level,
            s.verdict
        )?;
    }
    Ok(())
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / d as f64)
    }
}

fn report(samples: &[Sample], no_face: &BTreeMap<&str, usize>) {
    let mut kinds: Vec<&str> = samples.iter().map(|s| s.kind.as_str()).collect();
    kinds.dedup();
    kinds.sort();
    kinds.dedup();
    let th = LivenessParams::default().threshold;
    let peak_th = idv_vision::liveness::PERIODIC_PEAK_SPOOF;
    println!(
        "{:<46} {:>5} | {:>10} {:>10} | {:>10} | {:>8} {:>9} {:>6} | {:>6} {:>6}",
        "presentations", "n", "model RGB", "model BGR", "peak cue", "live", "uncertain", "spoof", "BPCER", "APCER"
    );
    for kind in kinds {
        let group: Vec<&Sample> = samples.iter().filter(|s| s.kind == kind).collect();
        let n = group.len();
        let attack = kind.starts_with("attack");
        let refused = |f: &dyn Fn(&Sample) -> bool| group.iter().filter(|s| f(s)).count();
        let rgb = refused(&|s| s.model_rgb < th);
        let bgr = refused(&|s| s.model_bgr < th);
        let peak = refused(&|s| s.cues.periodic_peak.is_some_and(|p| p >= peak_th));
        let live = refused(&|s| s.verdict == PassiveVerdict::Live);
        let unsure = refused(&|s| s.verdict == PassiveVerdict::Uncertain);
        let spoof = refused(&|s| s.verdict == PassiveVerdict::Spoof);
        // "refused" columns: for real faces a refusal is an error, for attacks an
        // acceptance is; the policy refuses only `spoof`.
        let show = |k: usize| if attack { format!("{}/{n} acc", n - k) } else { format!("{k}/{n} ref") };
        println!(
            "{kind:<46} {n:>5} | {:>10} {:>10} | {:>10} | {live:>8} {unsure:>9} {spoof:>6} | {:>6} {:>6}",
            show(rgb),
            show(bgr),
            show(peak),
            if attack { "".into() } else { pct(spoof, n) },
            if attack { pct(n - spoof, n) } else { "".into() },
        );
    }
    for (k, n) in no_face {
        println!("attack: {k}: {n} captures with no face found (not counted above)");
    }
    let dist = |name: &str, f: &dyn Fn(&Sample) -> Option<f32>, real: bool| {
        let mut v: Vec<f32> = samples.iter().filter(|s| s.kind.starts_with("real") == real).filter_map(f).collect();
        v.sort_by(f32::total_cmp);
        if v.is_empty() {
            return;
        }
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        println!(
            "{name} on {} faces: min {:.3} p5 {:.3} p50 {:.3} p95 {:.3} max {:.3}",
            if real { "real" } else { "attack" },
            q(0.0),
            q(0.05),
            q(0.5),
            q(0.95),
            q(1.0)
        );
    };
    for real in [true, false] {
        dist("periodic peak", &|s| s.cues.periodic_peak, real);
        dist("black level", &|s| Some(s.cues.black_level), real);
        dist("model RGB live score", &|s| Some(s.model_rgb), real);
    }
}
