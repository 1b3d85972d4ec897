//! Operator-entered states (deactivated users and devices, deleted devices) and what a
//! refused login records, over the in-process bus.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deactivation_deletion_and_locked_refusals_over_http() {
    idv_tests::states::run("memory://").await;
}
