//! SIM verification against the CAMARA operator simulator, over the in-process bus.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_verification_against_a_camara_operator() {
    idv_tests::sim::run("memory://").await;
}
