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

/// No worker is running: the caller gets 408 after the wait, the request stays pollable
/// ("processing"), and once a worker joins, the job (still on the bus, uncommitted) is done
/// and polling returns its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_is_408_and_the_result_can_be_polled_later() {
    use serde_json::json;
    let ingest_only = idv::Roles { ingest: true, worker: false, scorer: false };
    let mut h = idv_tests::Harness::start_roles("memory://", ingest_only, |s| s.request_timeout_ms = Some(300)).await;
    let creds = h.create_key("acme").await;
    let r = h.client.call(&creds, "/v1/face_auth_user", &json!({"cus_user_id": "late"})).await;
    assert_eq!((r.status, r.code()), (408, Some("request_timeout_exception")));
    assert!(h.state().pending.is_empty(), "the waiter is removed on timeout");

    let request_id = r.body["errors"][0]["detail"]["request_id"].as_str().expect("408 names the request").to_string();
    let polled = h.client.call(&creds, "/v1/get_request_result", &json!({"request_id": request_id})).await;
    assert_eq!((polled.status, polled.body["data"]["status"].as_str()), (200, Some("processing")));
    h.start_more(idv::Roles { ingest: false, worker: true, scorer: false }).await;
    // The worker picks the uncommitted job up from the bus; polling then sees its result.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let r = h.client.call(&creds, "/v1/get_request_result", &json!({"request_id": request_id})).await;
        if r.body["data"]["status"] == "success" {
            assert_eq!(r.body["data"]["verdict"], "not_registered");
            assert_eq!(r.body["data"]["request_id"], request_id.as_str());
            break;
        }
        assert!(std::time::Instant::now() < deadline, "workers never answered: {:?}", r.body);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    h.stop().await;
}

/// Shutdown while a request waits: the caller gets an answer, not a hang.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_answers_waiting_requests() {
    use serde_json::json;
    let ingest_only = idv::Roles { ingest: true, worker: false, scorer: false };
    let mut h = idv_tests::Harness::start_roles("memory://", ingest_only, |s| s.request_timeout_ms = Some(30_000)).await;
    let creds = h.create_key("acme").await;
    let client = h.client.clone();
    let waiting = tokio::spawn(async move { client.call(&creds, "/v1/face_auth_user", &json!({"cus_user_id": "u"})).await });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let started = std::time::Instant::now();
    h.shutdown_ingest(std::time::Duration::from_millis(500)).await;
    let r = tokio::time::timeout(std::time::Duration::from_secs(5), waiting).await.expect("answered").expect("task");
    assert_eq!(r.status, 500, "{:?}", r.body);
    assert!(r.body["errors"][0]["message"].as_str().unwrap_or_default().contains("shutting down"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    h.stop().await;
}

/// Two ingest instances over one store (as behind a load balancer): with
/// IDV_REPLAY_GUARD=store a request captured on one is refused on the other; with `local`
/// it would not be (the unit test in ingest/src/replay.rs shows that side).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_sent_to_another_ingest_instance_is_refused() {
    let mut h = idv_tests::Harness::start("memory://", |s| s.replay_guard = Some("store".into())).await;
    let second = h.start_more(idv::Roles { ingest: true, worker: false, scorer: false }).await.expect("second ingest listens");
    let acme = h.create_key("acme").await;
    let signing = idv_tests::Signing { timestamp: Some(idv_tests::now_rfc3339()), send_md5: true, ..Default::default() };
    let body = b"{\"cus_user_id\":\"replayed\"}".to_vec();
    let first = h.client.call_with(&acme, "/v1/face_auth_user", body.clone(), signing.clone()).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    let replay = second.call_with(&acme, "/v1/face_auth_user", body, signing).await;
    assert_eq!((replay.status, replay.code()), (401, Some("access_denied_exception")), "{:?}", replay.body);
    // A fresh signature is accepted by the second instance (its workers are the first's).
    let fresh = second.call(&acme, "/v1/face_auth_user", &serde_json::json!({"cus_user_id": "replayed"})).await;
    assert_eq!(fresh.status, 200, "{:?}", fresh.body);
    h.stop().await;
}
