//! Behavioral ingestion and scoring, beside the machine's RSA-2048 signing rate measured
//! in the same run (every encrypted push response costs one RSA-PSS signature, so that
//! rate is the ceiling of push throughput per core).
//!
//!     cargo run --release -p idv-benches --bin behavior [-- BATCHES CONCURRENCY]

use idv_benches::{closed_loop, percentile};
use idv_client::BatchChain;
use rand::SeedableRng;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PUSH: &str = "/v1/behavior/push_event_batch";

fn rsa_sign_rate(threads: usize, window: Duration) -> f64 {
    let key = Arc::new(idv_crypto::device::ServerKeyPair::generate().expect("key"));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let key = key.clone();
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut n = 0u64;
                while start.elapsed() < window {
                    let _ = key.sign_pss(b"response_key||data");
                    n += 1;
                }
                n as f64 / start.elapsed().as_secs_f64()
            })
        })
        .collect();
    handles.into_iter().filter_map(|h| h.join().ok()).sum()
}

#[tokio::main]
async fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let total = args.first().copied().unwrap_or(2_000);
    let concurrency = args.get(1).copied().unwrap_or(16);
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("behavior: {total} batches, {concurrency} concurrent devices, {cpus} CPUs");

    let signs = rsa_sign_rate(cpus, Duration::from_secs(2));
    println!("{:<44} {:>9.0} signs/s (all cores, aws-lc RSA-2048 PSS)", "RSA-2048 sign rate (baseline)", signs);

    let h = idv_tests::Harness::start("memory://", |s| {
        s.rate_limit_per_sec = Some(1e9);
        s.rate_limit_burst = Some(1_000_000_000);
        s.worker_concurrency = Some(2);
    })
    .await;
    let creds = h.create_key("bench").await;
    let user = idv_scoring::synth::User::new(11);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    // One device and challenge per concurrent caller. Requests are prepared (encrypted and
    // signed with the device key) before the clock starts, and responses are checked by
    // status only, so the figure is the server's, not the load generator's RSA work.
    let per_lane = total.div_ceil(concurrency);
    let mut lanes = Vec::new();
    for i in 0..concurrency {
        let (device, _) = idv_tests::behavior::register(&h, &creds, false, &format!("bench-user-{i}")).await;
        let (challenge, nonce) = idv_tests::behavior::challenge(&h.client, &device).await;
        // A tenth of a synthetic session: a typical SDK flush.
        let batch = user.session_batches(10, &mut rng).remove(0);
        if i == 0 {
            println!("batch data: {} bytes of JSON", serde_json::to_string(&batch).map(|t| t.len()).unwrap_or(0));
        }
        let mut chain = BatchChain::new(nonce);
        let ts = idv_client::rfc3339_now();
        let prepared: Vec<_> = (0..per_lane)
            .map(|_| {
                let text = chain.next_plaintext(&batch);
                device.session.prepare(PUSH, &ts, text.as_bytes(), Some(&challenge)).expect("prepare")
            })
            .collect();
        lanes.push(Arc::new(tokio::sync::Mutex::new(prepared.into_iter())));
    }
    let client = h.client.clone();
    let lanes = Arc::new(lanes);
    let push = closed_loop("push_event_batch (E2E, signed response)", per_lane * concurrency, concurrency, move |i| {
        let lanes = lanes.clone();
        let client = client.clone();
        async move {
            // Each lane is one device pushing its chain in order.
            let lane = lanes[i % lanes.len()].clone();
            let mut lane = lane.lock().await;
            let Some(p) = lane.next() else { return false };
            let r = idv_tests::behavior::send_prepared(&client, PUSH, p.body, p.headers).await;
            r.status == 200
        }
    })
    .await;
    push.print();
    println!("  ratio to the RSA sign rate: {:.2} (pushes per available signature)", push.rps() / signs);

    // Score latency: each challenge holds about total/concurrency batches.
    let mut lat = Vec::new();
    let score_calls = 40.min(concurrency * 4);
    for i in 0..score_calls {
        // Fresh short sessions so every call scores against an enrolled baseline.
        let (device, _) = idv_tests::behavior::register(&h, &creds, false, "score-user").await;
        let _ = i; // every device belongs to the same user: one baseline, scored each time
        let (challenge, nonce) = idv_tests::behavior::challenge(&h.client, &device).await;
        idv_tests::behavior::push_session(&h.client, &device, &challenge, &nonce, &user.session_batches(3, &mut rng)).await;
        let t = Instant::now();
        let r = h.client.call(&creds, "/v1/behavior/score", &json!({"challenge_id": challenge})).await;
        lat.push(t.elapsed());
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    lat.sort_unstable();
    println!(
        "{:<44} p50 {:>8.3} ms   p99 {:>8.3} ms   ({} calls, first one enrolls)",
        "behavior/score (3 batches per session)",
        percentile(&lat, 0.5).as_secs_f64() * 1e3,
        percentile(&lat, 0.99).as_secs_f64() * 1e3,
        lat.len()
    );
    h.stop().await;
}
