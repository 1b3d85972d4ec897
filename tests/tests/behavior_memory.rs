//! The behavioral integration flow and tampering cases over the in-process bus.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behavioral_flow_over_in_process_bus() {
    idv_tests::behavior::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_check_and_sealed_transaction_data_over_in_process_bus() {
    idv_tests::behavior::run_policies("memory://").await;
}
