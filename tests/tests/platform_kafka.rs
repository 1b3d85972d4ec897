//! The same end-to-end scenario over Kafka: a real Kafka-protocol broker (tansu) started
//! on a loopback port for this test. Built with `--features idv-tests/kafka`.
#![cfg(feature = "kafka")]

use idv_tests::cluster::start_broker as broker;
use std::sync::Arc;


#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn platform_end_to_end_over_kafka() {
    let Some(broker) = broker().await else { return };
    idv_tests::platform::run(&broker.url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_dies_before_commit_and_the_effect_happens_once_over_kafka() {
    let Some(broker) = broker().await else { return };
    let bus = Arc::new(idv_bus::kafka::KafkaBus::connect(&broker.url).expect("kafka bus"));
    idv_tests::redelivery::run(bus).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behavioral_flow_over_kafka() {
    let Some(broker) = broker().await else { return };
    idv_tests::behavior::run(&broker.url).await;
}

/// The vision workers behind Kafka: face register/authenticate/compare on real photos,
/// and card QR reading, with jobs and results crossing the broker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn face_and_card_jobs_over_kafka() {
    let Some(broker) = broker().await else { return };
    idv_tests::face::run(&broker.url).await;
    idv_tests::card::run(&broker.url).await;
}

/// The broker goes away (kill -9) under a running service: a request is not left hanging
/// until the producer gives up (minutes) but answered 408 at the wait with its request
/// id, and once the producer gives up on the job the request is finished as refused
/// (503 `service_unavailable`, Retry-After) — what a poll then reads, never "processing"
/// forever (issue 15, broker restart).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_that_goes_away_gets_408_then_a_pollable_503() {
    use serde_json::json;
    let Some(broker) = broker().await else { return };
    let url = format!("{}&producer.message.timeout.ms=4000", broker.url);
    let h = idv_tests::Harness::start(&url, |s| s.request_timeout_ms = Some(2500)).await;
    let acme = h.create_key("acme").await;
    let before = h.client.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "before"})).await;
    assert_eq!(before.status, 200, "{:?}", before.body);
    drop(broker); // SIGKILL
    let started = std::time::Instant::now();
    let during = h.client.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "during"})).await;
    let waited = started.elapsed();
    assert_eq!((during.status, during.code()), (408, Some("request_timeout_exception")), "{:?}", during.body);
    assert!(waited < std::time::Duration::from_secs(10), "answered after {waited:?}");
    let request_id = during.body["errors"][0]["detail"]["request_id"].as_str().expect("request id to poll").to_string();
    // The producer gives up after message.timeout.ms; the request is then refused for good.
    let mut polled = None;
    for _ in 0..40 {
        let poll = h.client.call(&acme, "/v1/get_request_result", &json!({"request_id": request_id})).await;
        if poll.body["data"]["status"] != json!("processing") {
            polled = Some(poll);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    let polled = polled.expect("the request is finished once the producer gives up");
    assert_eq!((polled.status, polled.code()), (503, Some("service_unavailable")), "{:?}", polled.body);
    eprintln!("broker killed: request answered 408 after {:.1} s; its poll reads 503 service_unavailable", waited.as_secs_f64());
    h.stop().await;
}
