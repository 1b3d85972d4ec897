//! The platform end to end over the embedded deployment (in-process bus).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn platform_end_to_end_over_in_process_bus() {
    idv_tests::platform::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_dies_before_commit_and_the_effect_happens_once_in_process() {
    let bus = std::sync::Arc::new(idv_bus::memory::InProcessBus::new(Default::default()));
    idv_tests::redelivery::run(bus).await;
}
