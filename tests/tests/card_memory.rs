//! Card reading (QR) end to end over the in-process bus.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_qr_reading_over_http() {
    idv_tests::card::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aadhaar_secure_qr_with_a_certificate_over_http() {
    idv_tests::card::secure_qr_with_certificate("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ekyc_full_check_with_bearer_tokens_over_http() {
    idv_tests::ekyc::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ekyc_bearer_token_refusals() {
    idv_tests::ekyc::auth("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_six_card_types_and_every_failure_code_over_http() {
    idv_tests::card_types::run("memory://").await;
}
