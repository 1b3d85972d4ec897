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
