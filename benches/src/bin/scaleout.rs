//! What a second worker process buys: face registrations per second through Kafka with
//! one and with two `idv worker` processes (separate OS processes, each with one consumer
//! and one vision thread, `IDV_WORKER_CONCURRENCY=1`), and the face topic's consumer lag
//! during the burst, sampled from the broker every 250 ms. Same machine, same run: the
//! ratio is the figure; the absolute rates depend on the cores (two here, shared with the
//! broker, the ingest process and this load generator).
//!
//!     cargo build --release -p idv --features distributed
//!     cargo run --release -p idv-benches --features kafka --bin scaleout [-- JOBS CLIENTS]
//!
//! Needs the tansu broker (scripts/lib.sh installs it) and the models (scripts/models.sh).
#![cfg_attr(not(feature = "kafka"), allow(unused))]

#[cfg(not(feature = "kafka"))]
fn main() {
    eprintln!("scaleout: build with --features kafka");
    std::process::exit(2);
}

#[cfg(feature = "kafka")]
#[tokio::main]
async fn main() {
    use base64::Engine as _;
    use idv_bus::Bus as _;
    use idv_tests::cluster::{Cluster, Role};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let jobs = args.first().copied().unwrap_or(80);
    let clients = args.get(1).copied().unwrap_or(16);
    let Some(photo) = idv_tests::face::photo("testimg-fr-obama") else { return };
    let photo_b64 = Arc::new(idv_tests::B64.encode(&photo));
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("scaleout: {jobs} face registrations per run, {clients} concurrent clients, {cpus} CPUs");

    let mut rates = Vec::new();
    for workers in [1usize, 2] {
        let broker = idv_bus::testing::TansuBroker::start().unwrap_or_else(|e| panic!("tansu: {e}"));
        let mut cluster = Cluster::new(
            &broker.url,
            &[("IDV_PARTITIONS", "8"), ("IDV_WORKER_CONCURRENCY", "1"), ("IDV_REQUEST_TIMEOUT_MS", "300000")],
        );
        let ingest = cluster.start(Role::Ingest).await;
        for _ in 0..workers {
            // Returned once it answers /readyz: its consumers have their partitions.
            cluster.start_listening(Role::Worker, true).await;
        }
        let creds = cluster.create_key("bench");
        let client = cluster.client(ingest);
        let photo_b64 = photo_b64.clone();
        let register = move |user: String| {
            let (client, creds, photo_b64) = (client.clone(), creds.clone(), photo_b64.clone());
            async move {
                let body = serde_json::json!({"cus_user_id": user, "faces": [{"base64": photo_b64.as_str()}]});
                matches!(client.try_call(&creds, "/v1/face_auth_register", &body).await, Ok(r) if r.status == 200)
            }
        };
        // Warm-up: every worker has joined the group and loaded its models (one job per
        // partition reaches every member).
        for i in 0..8 {
            assert!(register(format!("warm-{i}")).await, "warm-up registration failed:\n{}", cluster.logs());
        }
        let bus = Arc::new(idv_bus::kafka::KafkaBus::connect(&broker.url).expect("kafka bus"));
        let group = idv_jobs::runtime::worker_group(idv_schemas::ops::Topic::Face);
        let (peak_lag, sampling) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(true)));
        let sampler = {
            let (bus, group, peak_lag, sampling) = (bus.clone(), group.clone(), peak_lag.clone(), sampling.clone());
            tokio::spawn(async move {
                while sampling.load(Ordering::SeqCst) {
                    if let Some(lag) = bus.lag(idv_schemas::ops::Topic::Face.name(), &group).await {
                        peak_lag.fetch_max(lag, Ordering::SeqCst);
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            })
        };
        let started = Instant::now();
        let summary = idv_benches::closed_loop(&format!("{workers} worker process(es)"), jobs, clients, move |i| {
            register(format!("user-{i}"))
        })
        .await;
        let elapsed = started.elapsed();
        sampling.store(false, Ordering::SeqCst);
        let _ = sampler.await;
        summary.print();
        println!(
            "{:<44} {:>9.2} jobs/s   peak face-topic lag {} jobs   ({:.1} s)",
            "",
            jobs as f64 / elapsed.as_secs_f64(),
            peak_lag.load(Ordering::SeqCst),
            elapsed.as_secs_f64()
        );
        assert_eq!(summary.errors, 0, "registrations failed:\n{}", cluster.logs());
        rates.push(summary.rps());
        drop(cluster);
        drop(broker);
    }
    println!("{:<44} {:>9.2}x", "2 workers / 1 worker (same run)", rates[1] / rates[0].max(1e-9));
}
