//! Decode and face-detection latency on 640×480 photos (docs/VISION.md, "What is measured").
//!
//!     cargo run --release -p idv-vision --bin vision_bench -- [ITERATIONS] [THREADS]
//!
//! Two JPEG photos made from the installed test photos (scripts/models.sh): a
//! one-person portrait (face_recognition's obama.jpg, cropped to 4:3) and a group of
//! three (face-api's sample1.jpg, cropped to 4:3), each scaled to 640×480 and encoded at
//! quality 90. Each iteration decodes the bytes and detects with the default parameters
//! (min face 40). THREADS > 1 runs that many loops at once over the same runtime, to see
//! the session pools under contention. Prints p50/p99 per photo and stage.

use idv_vision::detect::{DetectParams, Mtcnn};
use idv_vision::{decode, models_dir, testdata, DecodeLimits, OrtConfig, OrtRuntime, RgbImage};
use image::imageops::FilterType;
use std::time::{Duration, Instant};

fn photo(id: &str, crop_top: f32) -> Result<(Vec<u8>, RgbImage), String> {
    let bytes = testdata::read_test_image(&models_dir(), id)?;
    let img = decode(&bytes, &DecodeLimits::default()).map_err(|e| format!("{id}: {e}"))?;
    let (w, h) = img.dimensions();
    // Largest 4:3 window, at `crop_top` of the spare height (faces are high in portraits).
    let (cw, ch) = if w * 3 > h * 4 { (h * 4 / 3, h) } else { (w, w * 3 / 4) };
    let x = (w - cw) / 2;
    let y = ((h - ch) as f32 * crop_top) as u32;
    let cropped = image::imageops::crop_imm(&img, x, y, cw, ch).to_image();
    let small = image::imageops::resize(&cropped, 640, 480, FilterType::Triangle);
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90).encode_image(&small).map_err(|e| e.to_string())?;
    Ok((jpeg, small))
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iterations: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let threads: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    if let Err(e) = run(iterations, threads) {
        eprintln!("vision_bench: {e}");
        std::process::exit(2);
    }
}

fn run(iterations: usize, threads: usize) -> Result<(), String> {
    let cfg = OrtConfig::from_env();
    println!(
        "vision_bench: {iterations} iterations x {threads} thread(s); sessions per model {}, intra-op threads {}; {} cores",
        cfg.sessions_per_model,
        cfg.intra_threads,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    );
    let rt = OrtRuntime::new(cfg);
    let mtcnn = Mtcnn::load(&rt).map_err(|e| e.to_string())?;
    let params = DetectParams::default();
    for (name, id, crop_top) in [("portrait, 1 face", "testimg-fr-obama", 0.0), ("group, 3 faces", "testimg-faceapi-sample1", 0.3)] {
        let (jpeg, _) = photo(id, crop_top)?;
        // Warm-up: first runs allocate ONNX Runtime's arenas.
        let first = decode(&jpeg, &DecodeLimits::default()).map_err(|e| e.to_string())?;
        let faces = mtcnn.detect(&first, &params).map_err(|e| e.to_string())?;
        for _ in 0..5 {
            let _ = mtcnn.detect(&first, &params);
        }
        let started = Instant::now();
        let per_thread: Vec<Result<Vec<(Duration, Duration)>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut t = Vec::with_capacity(iterations);
                        for _ in 0..iterations {
                            let t0 = Instant::now();
                            let img = decode(&jpeg, &DecodeLimits::default()).map_err(|e| e.to_string())?;
                            let t1 = Instant::now();
                            mtcnn.detect(&img, &params).map_err(|e| e.to_string())?;
                            t.push((t1 - t0, t1.elapsed()));
                        }
                        Ok(t)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("bench thread panicked".into()))).collect()
        });
        let wall = started.elapsed();
        let mut dec = Vec::new();
        let mut det = Vec::new();
        let mut tot = Vec::new();
        for r in per_thread {
            for (a, b) in r? {
                dec.push(a);
                det.push(b);
                tot.push(a + b);
            }
        }
        for v in [&mut dec, &mut det, &mut tot] {
            v.sort_unstable();
        }
        println!(
            "{name} (640x480 JPEG, {} bytes, {} face(s) found): decode p50 {:.2} ms p99 {:.2} ms | detect p50 {:.2} ms p99 {:.2} ms | total p50 {:.2} ms p99 {:.2} ms | {:.1} images/s",
            jpeg.len(),
            faces.len(),
            pct(&dec, 0.5),
            pct(&dec, 0.99),
            pct(&det, 0.5),
            pct(&det, 0.99),
            pct(&tot, 0.5),
            pct(&tot, 0.99),
            tot.len() as f64 / wall.as_secs_f64()
        );
    }
    Ok(())
}
