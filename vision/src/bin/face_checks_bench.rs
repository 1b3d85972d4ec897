//! Latency of the per-face checks on a 640×480 selfie (docs/VISION.md, "What is measured"):
//! 68 landmarks, eye model, portrait sanity (the pure measurements), head pose, passive
//! liveness, and the whole portrait analysis (landmarks + eyes + sanity).
//!
//!     cargo run --release -p idv-vision --bin face_checks_bench -- [ITERATIONS]
//!
//! The selfie is the benchmark portrait of `vision_bench` (face_recognition's obama.jpg,
//! cropped to 4:3, scaled to 640×480, JPEG quality 90, decoded). Detection runs once;
//! each iteration times every stage on that face. One thread, the runtime's defaults
//! (`IDV_VISION_INTRA_THREADS`, default 1). Prints p50/p99 per stage.

use idv_vision::detect::{DetectParams, Mtcnn};
use idv_vision::landmarks::{EyeModel, Landmarker};
use idv_vision::liveness::{LivenessModel, LivenessParams};
use idv_vision::pose::head_pose;
use idv_vision::quality::{assess_portrait, main_face, FaceDetail, PortraitAnalyzer, QualityParams};
use idv_vision::{decode, models_dir, testdata, DecodeLimits, OrtConfig, OrtRuntime, RgbImage};
use std::time::{Duration, Instant};

fn selfie() -> Result<RgbImage, String> {
    let jpeg = testdata::selfie_640x480_jpeg(&models_dir())?;
    decode(&jpeg, &DecodeLimits::default()).map_err(|e| e.to_string())
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e3
}

fn time<T>(samples: &mut Vec<Duration>, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    samples.push(t.elapsed());
    out
}

fn main() {
    let iterations: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    if let Err(e) = run(iterations) {
        eprintln!("face_checks_bench: {e}");
        std::process::exit(2);
    }
}

fn run(iterations: usize) -> Result<(), String> {
    let cfg = OrtConfig::from_env();
    println!(
        "face_checks_bench: {iterations} iterations, 1 thread; intra-op threads {}; {} cores",
        cfg.intra_threads,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    );
    let rt = OrtRuntime::new(cfg);
    let mtcnn = Mtcnn::load(&rt).map_err(|e| e.to_string())?;
    let landmarker = Landmarker::load(&rt).map_err(|e| e.to_string())?;
    let eyes = EyeModel::load(&rt).map_err(|e| e.to_string())?;
    let liveness = LivenessModel::load(&rt).map_err(|e| e.to_string())?;
    let analyzer = PortraitAnalyzer { landmarker: Some(landmarker.clone()), eyes: Some(eyes.clone()) };
    let img = selfie()?;
    let faces = mtcnn.detect(&img, &DetectParams::default()).map_err(|e| e.to_string())?;
    let qp = QualityParams::default();
    let face = main_face(&faces, &qp).cloned().ok_or("no face in the benchmark selfie")?;
    let lp = LivenessParams::default();
    // Warm-up (ONNX Runtime allocates on the first runs).
    for _ in 0..5 {
        let lm = landmarker.landmarks(&img, &face).map_err(|e| e.to_string())?;
        eyes.closed_probability(&img, &lm).map_err(|e| e.to_string())?;
        liveness.probabilities(&img, &face, &lp).map_err(|e| e.to_string())?;
    }
    let names = ["landmarks (68)", "eye model (2 eyes)", "portrait sanity, measurements only", "head pose", "liveness", "portrait analysis (all)"];
    let mut t: Vec<Vec<Duration>> = vec![Vec::with_capacity(iterations); names.len()];
    let mut last = None;
    for _ in 0..iterations {
        let lm = time(&mut t[0], || landmarker.landmarks(&img, &face)).map_err(|e| e.to_string())?;
        let p = time(&mut t[1], || eyes.closed_probability(&img, &lm)).map_err(|e| e.to_string())?;
        let detail = FaceDetail { landmarks: Some(lm.clone()), eye_closed_probabilities: Some(p) };
        time(&mut t[2], || assess_portrait(&img, &faces, &detail, &qp));
        time(&mut t[3], || head_pose(&face, Some(&lm)));
        let live = time(&mut t[4], || liveness.check(&img, &face, &lp));
        let sanity = time(&mut t[5], || analyzer.analyze(&img, &faces, &qp));
        last = Some((sanity, live));
    }
    for (name, v) in names.iter().zip(t.iter_mut()) {
        v.sort_unstable();
        println!("{name:36} p50 {:7.3} ms  p99 {:7.3} ms", pct(v, 0.5), pct(v, 0.99));
    }
    if let Some((sanity, live)) = last {
        println!("face {:?}: portrait {} (score {:.2}); liveness {live:?}", face.bbox, sanity.verdict.as_api_string(), sanity.score);
    }
    Ok(())
}
