//! Open-loop load with a mix of operations at a set rate for a set time, against a whole
//! `idv` (embedded backends) in this process; prints throughput, latency percentiles,
//! answers by status and code, and RSS over time.
//!
//!     cargo run --release -p idv-benches --bin load [-- RATE SECONDS]
//!
//! RATE 0 (the default) first measures the mix's capacity (each operation's own maximum,
//! closed loop, 32 callers, 5 s, combined by the mix's weights) and then runs at 80% of
//! it: the soak the issue asks for (SECONDS default 600). The mix:
//! 70% `face_auth_user` (auth, store, bus, worker), 20% `upload_image` (an 8 KiB image
//! sealed to disk), 10% `mix_compare_faces_sync` on a real photo when the face models are
//! installed (else a 501 `not_performed`, counted apart). A request is an error when its
//! answer is not 200, not a documented 429 and not that 501. RSS is this process's
//! (server and load generator together), sampled every 10 s; the figure to watch is its
//! growth from the first sample after warm-up to the last.

use base64::Engine as _;
use idv_benches::percentile;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    answers: BTreeMap<String, usize>,
    errors: usize,
}

/// Requests per second answered 200 by 32 callers sending operation `index` of the mix
/// (`i % 10` of the call) back to back for `window`.
async fn capacity<F, Fut>(call: Arc<F>, index: u64, window: Duration) -> f64
where
    F: Fn(u64) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = (u16, String)> + Send,
{
    let started = Instant::now();
    let done = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut callers = Vec::new();
    for k in 0..32u64 {
        let (c, done) = (call.clone(), done.clone());
        callers.push(tokio::spawn(async move {
            let mut n = k;
            while started.elapsed() < window {
                if c(n * 10 + index).await.0 == 200 && started.elapsed() <= window {
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                n += 32;
            }
        }));
    }
    for c in callers {
        let _ = c.await;
    }
    done.load(std::sync::atomic::Ordering::Relaxed) as f64 / window.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let mut rate = args.first().copied().unwrap_or(0) as f64;
    let seconds = args.get(1).copied().unwrap_or(600);
    let h = idv_tests::Harness::start("memory://", |s| {
        s.rate_limit_per_sec = Some(1e9);
        s.rate_limit_burst = Some(1_000_000_000);
        s.worker_concurrency = Some(2);
        s.request_timeout_ms = Some(60_000);
    })
    .await;
    let creds = h.create_key("load").await;
    let client = h.client.clone();
    let b64 = base64::engine::general_purpose::STANDARD;
    let small_image = b64.encode(vec![0x5au8; 8 * 1024]);
    let photo = idv_vision::testdata::read_test_image(&idv_vision::models_dir(), "testimg-fr-obama").ok().map(|b| b64.encode(b));
    println!(
        "load: {} CPUs; compare on a real photo: {}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        if photo.is_some() { "yes" } else { "no (models not installed: 501 not_performed)" }
    );

    let call = {
        let (client, creds) = (client.clone(), creds.clone());
        let (small_image, photo) = (small_image.clone(), photo.clone());
        Arc::new(move |i: u64| {
            let (client, creds, small_image, photo) = (client.clone(), creds.clone(), small_image.clone(), photo.clone());
            async move {
                let r = match i % 10 {
                    0..=6 => client.call(&creds, "/v1/face_auth_user", &json!({"cus_user_id": format!("u{}", i % 1000)})).await,
                    7 | 8 => client.call(&creds, "/v1/upload_image", &json!({"base64": small_image, "label": "load"})).await,
                    _ => {
                        let img = json!({"base64": photo.unwrap_or_else(|| small_image.clone())});
                        client.call(&creds, "/v1/mix_compare_faces_sync", &json!({"image1": img, "image2": img})).await
                    }
                };
                (r.status, r.code().unwrap_or("").to_string())
            }
        })
    };

    if rate <= 0.0 {
        // The mix's capacity: each operation's own maximum (32 callers back to back for
        // 5 s, answers 200 within the window), combined by the mix's weights,
        // 1 / Σ wᵢ / maxᵢ. One closed loop over the whole mix overstates it (it measured
        // 981 req/s, and a soak at 80% of that buried the CPU-bound compares).
        let mut inverse = 0.0;
        for (name, weight, index) in [("face_auth_user", 0.7, 0u64), ("upload_image", 0.2, 7), ("mix_compare_faces_sync", 0.1, 9)] {
            let max = capacity(call.clone(), index, Duration::from_secs(5)).await;
            println!("maximum of {name} alone (closed loop, 32 callers, 5 s): {max:.1} req/s");
            inverse += weight / max.max(0.1);
        }
        let mix = 1.0 / inverse;
        rate = (mix * 0.8).max(1.0);
        println!("capacity of the mix: {mix:.1} req/s; soak at 80%: {rate:.1} req/s");
    }

    let tally = Arc::new(Mutex::new(Tally::default()));
    let started = Instant::now();
    let interval = Duration::from_secs_f64(1.0 / rate);
    let mut next = tokio::time::interval(interval);
    next.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let inflight = Arc::new(tokio::sync::Semaphore::new(4096));
    let mut sent = 0u64;
    let mut dropped = 0u64;
    let mut last_rss = Instant::now();
    let mut rss_samples = vec![(0u64, rss_mib())];
    while started.elapsed() < Duration::from_secs(seconds) {
        next.tick().await;
        let Ok(permit) = inflight.clone().try_acquire_owned() else {
            // More than 4096 requests outstanding: the server is not keeping up.
            dropped += 1;
            continue;
        };
        let (call, tally) = (call.clone(), tally.clone());
        let i = sent;
        tokio::spawn(async move {
            let t = Instant::now();
            let (status, code) = call(i).await;
            let elapsed = t.elapsed();
            let mut tl = tally.lock().unwrap_or_else(|e| e.into_inner());
            tl.latencies.push(elapsed);
            *tl.answers.entry(format!("{status} {code}")).or_default() += 1;
            let documented = status == 200 || status == 429 || (status == 501 && code == "not_performed");
            if !documented {
                tl.errors += 1;
            }
            drop(permit);
        });
        sent += 1;
        if last_rss.elapsed() >= Duration::from_secs(10) {
            last_rss = Instant::now();
            rss_samples.push((started.elapsed().as_secs(), rss_mib()));
        }
    }
    // Let outstanding requests finish (bounded).
    let _ = tokio::time::timeout(Duration::from_secs(60), inflight.acquire_many(4096)).await;
    let elapsed = started.elapsed();
    rss_samples.push((elapsed.as_secs(), rss_mib()));

    let mut tl = tally.lock().unwrap_or_else(|e| e.into_inner());
    tl.latencies.sort();
    let done = tl.latencies.len();
    println!(
        "offered {rate:.0} req/s for {seconds} s; {done} answered in {} s ({:.0} req/s), {dropped} not sent (over 4096 outstanding)",
        elapsed.as_secs(),
        done as f64 / elapsed.as_secs_f64()
    );
    println!(
        "latency p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(&tl.latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&tl.latencies, 0.90).as_secs_f64() * 1e3,
        percentile(&tl.latencies, 0.99).as_secs_f64() * 1e3,
        tl.latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3
    );
    for (answer, n) in &tl.answers {
        println!("  answers {answer:<40} {n}");
    }
    println!("errors (not 200, not 429, not 501 not_performed): {}", tl.errors);
    let rss: Vec<String> = rss_samples.iter().map(|(t, m)| format!("{t}s {m:.0}")).collect();
    println!("RSS MiB over time: {}", rss.join(", "));
    // Growth after warm-up: from the second sample (10 s in) to the last.
    if let (Some(first), Some(last)) = (rss_samples.get(1), rss_samples.last()) {
        println!("RSS growth after warm-up: {:+.1}%", (last.1 / first.1.max(1.0) - 1.0) * 100.0);
    }
    h.stop().await;
}
