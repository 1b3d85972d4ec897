//! Signed round trip through the pipeline vs. a bare axum handler, in the same run.
//!
//!     cargo run --release -p idv-benches --bin roundtrip [-- REQUESTS CONCURRENCY]
//!     cargo run --release -p idv-benches --features kafka --bin roundtrip   # adds Kafka (tansu)
//!
//! The pipeline call is `face_auth_user`: Access Key verification, a store insert, a job
//! on the bus, a worker doing one store read, the result stored and sent back. The
//! baseline is an axum handler answering a fixed JSON body on the same machine. The figure
//! to compare across machines is the ratio, not the absolute numbers.

use idv_benches::closed_loop;
use serde_json::json;

async fn bare_axum() -> String {
    let app = axum::Router::new().route(
        "/v1/face_auth_user",
        axum::routing::post(|| async { axum::Json(json!({"data": {"status": "success"}, "errors": []})) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

async fn pipeline(label: &str, bus_url: &str, total: usize, concurrency: usize) -> idv_benches::Summary {
    let h = idv_tests::Harness::start(bus_url, |s| {
        s.rate_limit_per_sec = Some(1e9);
        s.rate_limit_burst = Some(1_000_000_000);
        s.worker_concurrency = Some(2);
    })
    .await;
    let creds = h.create_key("bench").await;
    let client = h.client.clone();
    // Warm up connections and the bus.
    for i in 0..20 {
        client.call(&creds, "/v1/face_auth_user", &json!({"cus_user_id": format!("w{i}")})).await;
    }
    let s = closed_loop(label, total, concurrency, move |i| {
        let client = client.clone();
        let creds = creds.clone();
        async move { client.call(&creds, "/v1/face_auth_user", &json!({"cus_user_id": format!("u{i}")})).await.status == 200 }
    })
    .await;
    h.stop().await;
    s
}

#[tokio::main]
async fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let total = args.first().copied().unwrap_or(5_000);
    let concurrency = args.get(1).copied().unwrap_or(32);
    println!("roundtrip: {total} requests, {concurrency} concurrent callers, {} CPUs", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0));

    let base = bare_axum().await;
    let http = reqwest::Client::new();
    let baseline = closed_loop("bare axum handler (baseline)", total, concurrency, move |_| {
        let http = http.clone();
        let url = format!("{base}/v1/face_auth_user");
        async move { http.post(url).body("{}").send().await.map(|r| r.status().is_success()).unwrap_or(false) }
    })
    .await;
    baseline.print();

    let embedded = pipeline("signed face_auth_user, embedded (memory://)", "memory://", total, concurrency).await;
    embedded.print();
    println!("  ratio to baseline: throughput {:.3}x, p50 {:.1}x", embedded.rps() / baseline.rps(), embedded.p50.as_secs_f64() / baseline.p50.as_secs_f64().max(1e-9));

    #[cfg(feature = "kafka")]
    {
        match idv_bus::testing::TansuBroker::start() {
            Ok(broker) => {
                // Extra client options for the run, e.g. IDV_BENCH_KAFKA_OPTS=consumer.fetch.min.bytes=1
                let url = idv_benches::kafka_url(&broker.url);
                let kafka = pipeline("signed face_auth_user, Kafka (tansu)", &url, total, concurrency).await;
                kafka.print();
                println!("  ratio to baseline: throughput {:.3}x, p50 {:.1}x", kafka.rps() / baseline.rps(), kafka.p50.as_secs_f64() / baseline.p50.as_secs_f64().max(1e-9));
            }
            Err(e) => println!("Kafka run skipped: {e}"),
        }
    }
}
