//! What a hostile or careless client can make one request cost (issue 10), each figure
//! beside a baseline measured in the same run:
//!
//!     cargo run --release -p idv-benches --bin hostile
//!
//! 1. **Decode**: a 7744×5163 (40 MP) JPEG and a 10000×4000 PNG taken to the face
//!    working side (2048 px) by the old path (full-size decode, then area averaging) and
//!    scaled while decoding (`vision/src/decode.rs`: the JPEG in the inverse DCT, the PNG
//!    row by row into boxes), each in a fresh process: time and peak RSS above its start.
//! 2. **Amplification**: a 10000×4000 PNG of a few KiB, uploaded once, then used by a
//!    119-byte `mix_compare_faces_sync` and a card read; CPU seconds and peak RSS per
//!    request against the same requests on a real 640×480 selfie.
//! 3. **Fairness**: one client's 8 such heavy compares in flight, then another client's
//!    ordinary compare: its latency against the same compare alone (the vision pool grants
//!    slots round-robin between clients, `vision/src/pool.rs`).
//! 4. **Bodies**: 16 concurrent 60 MiB request bodies with the default body budget
//!    (256 MiB, `IDV_BODY_BUDGET_MB`) and with the budget out of the way (the baseline):
//!    answers by status and the peak RSS above the start.
//!
//! CPU seconds and RSS are this process's (server and load generator together): the
//! generator's share is one shared 60 MiB buffer and a few photos. Compares need the face
//! models (`scripts/models.sh`); without them those lines say "not performed".

use base64::Engine as _;
use bytes::Bytes;
use idv_vision::{decode, models_dir, testdata, DecodeLimits};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// This process's user + system CPU time (`/proc/self/stat` fields 14 and 15, in clock
/// ticks of 1/100 s on Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Field 14 (utime) is index 11 after the state field (field 3 is index 0).
    (ticks(11) + ticks(12)) / 100.0
}

fn status_kib(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// Resets the peak-RSS mark to the current RSS (Linux `clear_refs` 5) and returns the
/// current RSS in MiB.
fn reset_peak() -> f64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    status_kib("VmRSS:") / 1024.0
}

fn peak_mib() -> f64 {
    status_kib("VmHWM:") / 1024.0
}

/// Runs `f`, returning its result, wall time, CPU seconds and peak RSS above the start.
async fn measured<T, Fut: std::future::Future<Output = T>>(f: impl FnOnce() -> Fut) -> (T, Duration, f64, f64) {
    let start_rss = reset_peak();
    let cpu = cpu_seconds();
    let t = Instant::now();
    let out = f().await;
    (out, t.elapsed(), cpu_seconds() - cpu, (peak_mib() - start_rss).max(0.0))
}

fn big_jpeg() -> Result<Vec<u8>, String> {
    let photo = testdata::read_test_image(&models_dir(), "testimg-fr-obama")?;
    let img = image::load_from_memory(&photo).map_err(|e| e.to_string())?;
    let big = img.resize_exact(7744, 5163, image::imageops::FilterType::Triangle).into_rgb8();
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90).encode_image(&big).map_err(|e| e.to_string())?;
    Ok(out)
}

/// 10000×4000, one colour: a few KiB as PNG, 120 MB as RGB.
fn wide_png() -> Vec<u8> {
    let mut out = Vec::new();
    let img = image::RgbImage::from_pixel(10_000, 4_000, image::Rgb([200, 190, 180]));
    let _ = img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png);
    out
}

/// One decode in a fresh process (`--decode-child full|scaled FILE`), so the peak is
/// this decode's alone, not memory the allocator kept from an earlier one. Prints
/// "MILLISECONDS PEAK_MIB".
fn decode_child(mode: &str, path: &str) -> Result<(), String> {
    let jpeg = std::fs::read(path).map_err(|e| e.to_string())?;
    let start_rss = reset_peak();
    let t = Instant::now();
    let img = if mode.ends_with("scaled") {
        decode(&jpeg, &DecodeLimits::faces()).map_err(|e| e.to_string())?
    } else {
        let full = decode(&jpeg, &DecodeLimits::default()).map_err(|e| e.to_string())?;
        image::imageops::thumbnail(&full, 2048, 2048 * full.height() / full.width().max(1))
    };
    let elapsed = t.elapsed();
    std::hint::black_box(&img);
    println!("{} {}", elapsed.as_secs_f64() * 1e3, (peak_mib() - start_rss).max(0.0));
    Ok(())
}

fn decode_section() -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let jpeg = big_jpeg()?;
    let png = wide_png();
    for (title, bytes) in [
        (format!("7744x5163 JPEG ({:.1} MiB)", jpeg.len() as f64 / 1048576.0), jpeg),
        (format!("10000x4000 PNG ({} KiB)", png.len() / 1024), png),
    ] {
        let file = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
        std::fs::write(file.path(), &bytes).map_err(|e| e.to_string())?;
        println!("1. decode: {title} to 2048 px, best of 3, each in a fresh process");
        let mut rows = Vec::new();
        for (label, mode) in [("full decode, then area averaging (before)", "full"), ("scaled while decoding (now)", "scaled")] {
            let mut best = (f64::MAX, 0.0f64);
            for _ in 0..3 {
                let out = std::process::Command::new(&exe)
                    .arg("--decode-child")
                    .arg(mode)
                    .arg(file.path())
                    .output()
                    .map_err(|e| e.to_string())?;
                let text = String::from_utf8_lossy(&out.stdout);
                let mut fields = text.split_whitespace().filter_map(|v| v.parse::<f64>().ok());
                let (Some(ms), Some(peak)) = (fields.next(), fields.next()) else {
                    return Err(format!("decode child: {text} {}", String::from_utf8_lossy(&out.stderr)));
                };
                if ms < best.0 {
                    best = (ms, peak);
                }
            }
            println!("   {label:<44} {:>7.1} ms   peak RSS +{:>6.1} MiB", best.0, best.1);
            rows.push(best);
        }
        if let [before, now] = rows[..] {
            println!("   ratio now/before: time {:.2}x, peak memory {:.2}x", now.0 / before.0.max(1e-9), now.1 / before.1.max(0.1));
        }
    }
    Ok(())
}

async fn http_sections() {
    let b64 = base64::engine::general_purpose::STANDARD;
    let h = idv_tests::Harness::start("memory://", |s| {
        s.worker_concurrency = Some(2);
        s.request_timeout_ms = Some(120_000);
    })
    .await;
    let (heavy_client, light_client) = (h.create_key("heavy").await, h.create_key("light").await);
    let selfie = testdata::selfie_640x480_jpeg(&models_dir()).ok().map(|b| b64.encode(b));
    let Some(selfie) = selfie else {
        println!("2./3. not performed: the face test photos are not installed (scripts/models.sh)");
        h.stop().await;
        return;
    };
    let png = wide_png();
    let up = h.client.call(&heavy_client, "/v1/upload_image", &json!({"base64": b64.encode(&png), "label": "wide"})).await;
    let Some(wide_id) = up.body["data"]["id"].as_str().map(str::to_string) else {
        println!("2./3. the wide PNG upload was refused: {} {:?}", up.status, up.body);
        h.stop().await;
        return;
    };
    let up = h.client.call(&light_client, "/v1/upload_image", &json!({"base64": selfie, "label": "selfie"})).await;
    let light_id = up.body["data"]["id"].as_str().unwrap_or_default().to_string();
    let up = h.client.call(&heavy_client, "/v1/upload_image", &json!({"base64": selfie, "label": "selfie"})).await;
    let heavy_selfie_id = up.body["data"]["id"].as_str().unwrap_or_default().to_string();

    let compare = |creds: idv_tests::Credentials, first: String, second: String| {
        let client = h.client.clone();
        async move {
            let body = json!({"image1": {"id": first}, "image2": {"id": second}});
            let r = client.call(&creds, "/v1/mix_compare_faces_sync", &body).await;
            (r.status, r.code().unwrap_or("").to_string(), serde_json::to_vec(&body).map(|b| b.len()).unwrap_or(0))
        }
    };
    let read_card = |creds: idv_tests::Credentials, image: String| {
        let client = h.client.clone();
        async move {
            let r = client.call(&creds, "/v1/read_id_card_info_with_sanity", &json!({"card_type": "vn.national_id", "image1": {"id": image}})).await;
            (r.status, r.code().unwrap_or("").to_string(), 0)
        }
    };

    println!("2. amplification: one request on the 10000x4000 PNG ({} bytes) against the same on the 640x480 selfie", png.len());
    // Warm the models first: the first compare loads them.
    let _ = compare(light_client.clone(), light_id.clone(), light_id.clone()).await;
    let mut rows: BTreeMap<&str, (Duration, f64, f64)> = BTreeMap::new();
    for (label, fut) in [
        ("compare, selfie x selfie", Box::pin(compare(heavy_client.clone(), heavy_selfie_id.clone(), heavy_selfie_id.clone())) as std::pin::Pin<Box<dyn std::future::Future<Output = (u16, String, usize)>>>),
        ("compare, wide PNG x selfie", Box::pin(compare(heavy_client.clone(), wide_id.clone(), heavy_selfie_id.clone()))),
        ("card read, selfie", Box::pin(read_card(heavy_client.clone(), heavy_selfie_id.clone()))),
        ("card read, wide PNG", Box::pin(read_card(heavy_client.clone(), wide_id.clone()))),
    ] {
        let ((status, code, bytes), wall, cpu, peak) = measured(|| fut).await;
        let size = if bytes > 0 { format!(" ({bytes}-byte body)") } else { String::new() };
        println!("   {label:<28}{size:<18} {status} {code:<24} wall {:>7.0} ms  CPU {cpu:>5.2} s  peak RSS +{peak:>6.1} MiB", wall.as_secs_f64() * 1e3);
        rows.insert(label, (wall, cpu, peak));
    }
    for (heavy, light) in [("compare, wide PNG x selfie", "compare, selfie x selfie"), ("card read, wide PNG", "card read, selfie")] {
        if let (Some(a), Some(b)) = (rows.get(heavy), rows.get(light)) {
            println!("   ratio {heavy} / {light}: CPU {:.1}x, peak memory +{:.0} MiB", a.1 / b.1.max(0.01), a.2 - b.2);
        }
    }

    println!("3. fairness: another client's compare while one client has 8 heavy compares in flight");
    let mut alone = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let _ = compare(light_client.clone(), light_id.clone(), light_id.clone()).await;
        alone.push(t.elapsed());
    }
    alone.sort();
    let mut heavy = Vec::new();
    for _ in 0..8 {
        heavy.push(tokio::spawn(compare(heavy_client.clone(), wide_id.clone(), heavy_selfie_id.clone())));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t = Instant::now();
    let (status, _, _) = compare(light_client.clone(), light_id.clone(), light_id.clone()).await;
    let behind = t.elapsed();
    let heavy_started = Instant::now();
    let mut heavy_ok = 0;
    for j in heavy {
        if matches!(j.await, Ok((200, _, _))) {
            heavy_ok += 1;
        }
    }
    let alone_median = alone[alone.len() / 2];
    println!(
        "   alone (median of 3) {:.0} ms; behind 8 heavy {:.0} ms (answer {status}); ratio {:.2}x; the heavy ones: {heavy_ok}/8 answered 200, last {:.1} s after the light one",
        alone_median.as_secs_f64() * 1e3,
        behind.as_secs_f64() * 1e3,
        behind.as_secs_f64() / alone_median.as_secs_f64().max(1e-9),
        heavy_started.elapsed().as_secs_f64()
    );
    h.stop().await;
}

/// 16 bodies of 60 MiB at once, all the same bytes (one buffer on the generator's side),
/// each signed with its own timestamp.
async fn bodies(budget_mb: Option<u64>) -> (BTreeMap<String, usize>, f64, Duration) {
    let h = idv_tests::Harness::start("memory://", |s| {
        s.body_budget_mb = budget_mb;
        s.rate_limit_per_sec = Some(1e9);
        s.rate_limit_burst = Some(1_000_000_000);
    })
    .await;
    let creds = h.create_key("bodies").await;
    let mut body = br#"{"cus_user_id":"u","pad":""#.to_vec();
    body.resize(60 * 1024 * 1024 - 2, b'x');
    body.extend_from_slice(br#""}"#);
    let body = Bytes::from(body);
    let start_rss = reset_peak();
    let t = Instant::now();
    let mut calls = Vec::new();
    for i in 0..16 {
        let (http, base, creds, body) = (h.client.http.clone(), h.client.base.clone(), creds.clone(), body.clone());
        calls.push(tokio::spawn(async move {
            // A distinct fraction per request: same body and second would be a replay.
            let now = idv_tests::now_rfc3339();
            let ts = format!("{}.{i:03}Z", now.get(..19).unwrap_or_default());
            let sig = idv_tests::sign(&creds.secret_key, "POST", "/v1/face_auth_user", &ts, "");
            let r = http
                .post(format!("{base}/v1/face_auth_user"))
                .header("content-type", "application/json")
                .header("authorization", format!("TV {}:{}", creds.access_key_id, sig))
                .header("x-tv-timestamp", ts)
                .body(body)
                .send()
                .await;
            match r {
                Ok(r) => {
                    let retry = if r.headers().contains_key("retry-after") { " Retry-After" } else { "" };
                    let status = r.status().as_u16();
                    let text = r.text().await.unwrap_or_default();
                    let code = serde_json::from_str::<serde_json::Value>(&text)
                        .ok()
                        .and_then(|v| v["errors"][0]["code"].as_str().map(str::to_string))
                        .unwrap_or_default();
                    format!("{status} {code}{retry}")
                }
                Err(e) => format!("not answered: {e}"),
            }
        }));
    }
    let mut answers = BTreeMap::new();
    for c in calls {
        *answers.entry(c.await.unwrap_or_else(|e| format!("task failed: {e}"))).or_default() += 1;
    }
    let elapsed = t.elapsed();
    let peak = (peak_mib() - start_rss).max(0.0);
    h.stop().await;
    (answers, peak, elapsed)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let (Some("--decode-child"), Some(mode), Some(path)) = (args.first().map(String::as_str), args.get(1), args.get(2)) {
        if let Err(e) = decode_child(mode, path) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    if let Err(e) = decode_section() {
        println!("1. decode: not performed: {e}");
    }
    http_sections().await;
    println!("4. bodies: 16 concurrent 60 MiB face_auth_user bodies");
    let mut peaks = Vec::new();
    for (label, budget) in [("default budget (256 MiB)", None), ("no budget (100 GiB, the baseline)", Some(100 * 1024))] {
        let (answers, peak, elapsed) = bodies(budget).await;
        let summary: Vec<String> = answers.iter().map(|(a, n)| format!("{n} x {a}")).collect();
        println!("   {label:<36} peak RSS +{peak:>6.0} MiB in {:.1} s; answers: {}", elapsed.as_secs_f64(), summary.join(", "));
        peaks.push(peak);
    }
    if let [bounded, unbounded] = peaks[..] {
        println!("   ratio budget / baseline: peak memory {:.2}x", bounded / unbounded.max(1.0));
    }
}
