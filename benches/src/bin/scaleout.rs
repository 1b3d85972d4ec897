//! What a second worker process buys: face registrations per second through Kafka with
//! one and with two `idv worker` processes (separate OS processes, each with one consumer
//! and one vision thread, `IDV_WORKER_CONCURRENCY=1`), and pushes per second with one and
//! with two `idv scorer` processes; each with its topic's consumer lag during the burst,
//! sampled from the broker every 250 ms. Same machine, same run: the ratio is the figure;
//! the absolute rates depend on the cores (two here, shared with the broker, the ingest
//! process and this load generator).
//!
//!     cargo build --release -p idv --features distributed
//!     cargo run --release -p idv-benches --features kafka --bin scaleout [-- face|push] [JOBS CLIENTS]
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
    use idv_tests::cluster::{Cluster, Role};
    use std::sync::Arc;
    use std::time::Instant;

    let only = std::env::args().nth(1).filter(|a| a == "face" || a == "push");
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let jobs = args.first().copied().unwrap_or(80);
    let clients = args.get(1).copied().unwrap_or(16);
    if only.as_deref() != Some("face") {
        pushes::run(clients).await;
    }
    if only.as_deref() == Some("push") {
        return;
    }
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
        let lag = LagSampler::start(&broker.url, idv_schemas::ops::Topic::Face);
        let started = Instant::now();
        let summary = idv_benches::closed_loop(&format!("{workers} worker process(es)"), jobs, clients, move |i| {
            register(format!("user-{i}"))
        })
        .await;
        let elapsed = started.elapsed();
        let peak_lag = lag.stop().await;
        summary.print();
        println!(
            "{:<44} {:>9.2} jobs/s   peak face-topic lag {} jobs   ({:.1} s)",
            "",
            jobs as f64 / elapsed.as_secs_f64(),
            peak_lag,
            elapsed.as_secs_f64()
        );
        assert_eq!(summary.errors, 0, "registrations failed:\n{}", cluster.logs());
        rates.push(summary.rps());
        drop(cluster);
        drop(broker);
    }
    println!("{:<44} {:>9.2}x", "2 workers / 1 worker (same run)", rates[1] / rates[0].max(1e-9));
}

/// The peak consumer lag of a topic's worker group, sampled from the broker every 250 ms
/// until stopped.
#[cfg(feature = "kafka")]
struct LagSampler {
    peak: std::sync::Arc<std::sync::atomic::AtomicU64>,
    sampling: std::sync::Arc<std::sync::atomic::AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

#[cfg(feature = "kafka")]
impl LagSampler {
    fn start(broker_url: &str, topic: idv_schemas::ops::Topic) -> LagSampler {
        use idv_bus::Bus as _;
        use std::sync::atomic::Ordering;
        let bus = idv_bus::kafka::KafkaBus::connect(broker_url).expect("kafka bus");
        let group = idv_jobs::runtime::worker_group(topic);
        let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let (p, on) = (peak.clone(), sampling.clone());
        let task = tokio::spawn(async move {
            while on.load(Ordering::SeqCst) {
                if let Some(lag) = bus.lag(topic.name(), &group).await {
                    p.fetch_max(lag, Ordering::SeqCst);
                }
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
        });
        LagSampler { peak, sampling, task }
    }

    async fn stop(self) -> u64 {
        self.sampling.store(false, std::sync::atomic::Ordering::SeqCst);
        let _ = self.task.await;
        self.peak.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Pushes per second with one and two `idv scorer` processes behind one `idv ingest`.
#[cfg(feature = "kafka")]
mod pushes {
    use super::LagSampler;
    use base64::Engine as _;
    use idv_client::BatchChain;
    use idv_tests::cluster::{Cluster, Role};
    use std::sync::Arc;
    use std::time::Instant;

    const PUSH: &str = "/v1/behavior/push_event_batch";
    /// Batches per device (a challenge takes at most 256).
    const BATCHES: usize = 150;

    pub async fn run(devices: usize) {
        println!("pushes: {devices} devices x {BATCHES} batches per run, 1 idv ingest");
        let mut rates = Vec::new();
        for scorers in [1usize, 2] {
            let broker = idv_bus::testing::TansuBroker::start().unwrap_or_else(|e| panic!("tansu: {e}"));
            let mut cluster = Cluster::new(&broker.url, &[("IDV_PARTITIONS", "8"), ("IDV_REQUEST_TIMEOUT_MS", "300000")]);
            let ingest = cluster.start(Role::Ingest).await;
            for _ in 0..scorers {
                cluster.start_listening(Role::Scorer, true).await;
            }
            let creds = cluster.create_key("bench");
            let kp = cluster.cli(&["keypairs", "create", "--client", "bench"]);
            let kp_id = kp["key_pair_id"].as_str().expect("key_pair_id").to_string();
            let server_der = idv_tests::B64.decode(kp["public_key"].as_str().expect("public_key")).expect("base64 key");
            let client = cluster.client(ingest);
            let user = idv_scoring::synth::User::new(7);
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
            let batch = user.session_batches(10, &mut rng).remove(0);
            // Every request is encrypted and signed before the clock starts: the figure is
            // the pipeline's, not the load generator's RSA work.
            let mut lanes = Vec::new();
            for d in 0..devices {
                let (device, challenge, nonce) =
                    idv_tests::behavior::device_with_challenge(&client, &creds, &kp_id, &server_der, &format!("user-{d}")).await;
                let mut chain = BatchChain::new(nonce);
                let ts = idv_client::rfc3339_now();
                let prepared: Vec<_> = (0..BATCHES)
                    .map(|_| device.session.prepare(PUSH, &ts, chain.next_plaintext(&batch).as_bytes(), Some(&challenge)).expect("prepare"))
                    .collect();
                lanes.push(Arc::new(tokio::sync::Mutex::new(prepared.into_iter())));
            }
            let lanes = Arc::new(lanes);
            let lag = LagSampler::start(&broker.url, idv_schemas::ops::Topic::Behavior);
            let started = Instant::now();
            let summary = idv_benches::closed_loop(&format!("pushes, {scorers} scorer process(es)"), devices * BATCHES, devices, move |i| {
                let (lanes, client) = (lanes.clone(), client.clone());
                async move {
                    let lane = lanes[i % lanes.len()].clone();
                    let mut lane = lane.lock().await;
                    let Some(p) = lane.next() else { return false };
                    idv_tests::behavior::send_prepared(&client, PUSH, p.body, p.headers).await.status == 200
                }
            })
            .await;
            let elapsed = started.elapsed();
            let peak_lag = lag.stop().await;
            summary.print();
            println!("{:<44} {:>9.2} pushes/s   peak behavior-topic lag {} jobs   ({:.1} s)", "", summary.rps(), peak_lag, elapsed.as_secs_f64());
            assert_eq!(summary.errors, 0, "pushes failed:\n{}", cluster.logs());
            rates.push(summary.rps());
        }
        println!("{:<44} {:>9.2}x", "2 scorers / 1 scorer (same run)", rates[1] / rates[0].max(1e-9));
    }
}
