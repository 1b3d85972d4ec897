//! The platform end to end over the embedded deployment (in-process bus).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn platform_end_to_end_over_in_process_bus() {
    idv_tests::platform::run("memory://").await;
}
