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
    // The job was published before the stop: the caller polls it by request id.
    assert_eq!((r.status, r.code()), (408, Some("request_timeout_exception")), "{:?}", r.body);
    assert!(r.body["errors"][0]["detail"]["request_id"].is_string(), "{:?}", r.body);
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

/// A captured request replayed after a restart on the same data directory, within the
/// timestamp window, is refused: the default replay guard is durable (issue 10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_after_a_restart_is_refused() {
    let mut h = idv_tests::Harness::start("memory://", |_| {}).await;
    let acme = h.create_key("acme").await;
    let signing = idv_tests::Signing { timestamp: Some(idv_tests::now_rfc3339()), send_md5: false, ..Default::default() };
    let body = b"{\"cus_user_id\":\"restart\"}".to_vec();
    let first = h.client.call_with(&acme, "/v1/face_auth_user", body.clone(), signing.clone()).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    h.restart().await;
    let replay = h.client.call_with(&acme, "/v1/face_auth_user", body, signing).await;
    assert_eq!((replay.status, replay.code()), (401, Some("access_denied_exception")), "{:?}", replay.body);
    let fresh = h.client.call(&acme, "/v1/face_auth_user", &serde_json::json!({"cus_user_id": "restart"})).await;
    assert_eq!(fresh.status, 200, "{:?}", fresh.body);
    h.stop().await;
}

/// Content-MD5 is optional and timestamps are whole seconds: two different requests to
/// one path in the same second share a signature. Both are honest and both are answered;
/// only the same bytes again are a replay (issue 13).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_requests_in_one_second_without_md5_are_not_a_replay() {
    let h = idv_tests::Harness::start("memory://", |_| {}).await;
    let acme = h.create_key("acme").await;
    let signing = idv_tests::Signing { timestamp: Some(idv_tests::now_rfc3339()), send_md5: false, ..Default::default() };
    let a = h.client.call_with(&acme, "/v1/face_auth_user", b"{\"cus_user_id\":\"one\"}".to_vec(), signing.clone()).await;
    let b = h.client.call_with(&acme, "/v1/face_auth_user", b"{\"cus_user_id\":\"two\"}".to_vec(), signing.clone()).await;
    assert_eq!((a.status, b.status), (200, 200), "{:?} {:?}", a.body, b.body);
    let again = h.client.call_with(&acme, "/v1/face_auth_user", b"{\"cus_user_id\":\"two\"}".to_vec(), signing).await;
    assert_eq!((again.status, again.code()), (401, Some("access_denied_exception")), "{:?}", again.body);
    h.stop().await;
}

/// A request refused on its headers leaves its body unread; the next request on the same
/// keep-alive connection must still be understood (issue 10): small bodies are drained,
/// large ones end the connection with `Connection: close`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_does_not_break_its_keep_alive_connection() {
    let h = idv_tests::Harness::start("memory://", |_| {}).await;
    let acme = h.create_key("acme").await;
    // One connection, reused: reqwest keeps it alive unless the server closes it.
    let http = reqwest::Client::builder().pool_max_idle_per_host(1).build().expect("client");
    let client = idv_tests::Client { base: h.client.base.clone(), http };
    for size in [10 * 1024, 200 * 1024] {
        let body = format!("{{\"cus_user_id\":\"{}\"}}", "x".repeat(size));
        let wrong = idv_tests::Signing { secret: Some("not-the-secret".into()), ..Default::default() };
        let refused = client.call_with(&acme, "/v1/face_auth_user", body.into_bytes(), wrong).await;
        assert_eq!(refused.status, 401, "{:?}", refused.body);
        let next = client.call(&acme, "/v1/face_auth_user", &serde_json::json!({"cus_user_id": "after"})).await;
        assert_eq!(next.status, 200, "body of {size} bytes: {:?}", next.body);
    }
    h.stop().await;
}

/// The published JS SDK signs `METHOD\nPATH\nTIMESTAMP` (three lines, no Content-MD5)
/// with its local offset; both forms are accepted without Content-MD5 (issue 14).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_three_line_signature_with_an_offset_timestamp_is_accepted() {
    use base64::Engine as _;
    use hmac::{Hmac, Mac};
    let h = idv_tests::Harness::start("memory://", |_| {}).await;
    let acme = h.create_key("acme").await;
    let local = time::OffsetDateTime::now_utc().to_offset(time::UtcOffset::from_hms(7, 0, 0).expect("offset"));
    let ts = local.replace_nanosecond(0).expect("whole second").format(&time::format_description::well_known::Rfc3339).expect("format");
    let sign3 = |secret: &str, path: &str| {
        let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(secret.as_bytes()).expect("key");
        mac.update(format!("POST\n{path}\n{ts}").as_bytes());
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    };
    let send = |sig: String, body: &'static str| {
        h.client
            .http
            .post(format!("{}/v1/face_auth_user", h.client.base))
            .header("content-type", "application/json")
            .header("authorization", format!("TV {}:{sig}", acme.access_key_id))
            .header("x-tv-timestamp", ts.clone())
            .body(body)
            .send()
    };
    let ok = send(sign3(&acme.secret_key, "/v1/face_auth_user"), r#"{"cus_user_id":"sdk-1"}"#).await.expect("sent");
    assert_eq!(ok.status().as_u16(), 200);
    // A second SDK call in the same second, another body: not a replay.
    let second = send(sign3(&acme.secret_key, "/v1/face_auth_user"), r#"{"cus_user_id":"sdk-2"}"#).await.expect("sent");
    assert_eq!(second.status().as_u16(), 200);
    // Must-fail: the three-line form under the wrong secret, or over another path.
    let wrong = send(sign3("not-the-secret", "/v1/face_auth_user"), r#"{"cus_user_id":"sdk-3"}"#).await.expect("sent");
    assert_eq!(wrong.status().as_u16(), 401);
    let other_path = send(sign3(&acme.secret_key, "/v1/face_auth"), r#"{"cus_user_id":"sdk-4"}"#).await.expect("sent");
    assert_eq!(other_path.status().as_u16(), 401);
    // Sent to `/api/v1/X` but signed over `/v1/X` (a base URL ending in `/api`): accepted.
    let prefixed = h
        .client
        .http
        .post(format!("{}/api/v1/face_auth_user", h.client.base))
        .header("content-type", "application/json")
        .header("authorization", format!("TV {}:{}", acme.access_key_id, sign3(&acme.secret_key, "/v1/face_auth_user")))
        .header("x-tv-timestamp", ts.clone())
        .body(r#"{"cus_user_id":"sdk-5"}"#)
        .send()
        .await
        .expect("sent");
    assert_eq!(prefixed.status().as_u16(), 200);
    h.stop().await;
}

/// Bodies held in memory are bounded over all requests: past the budget a request is
/// answered 503 with Retry-After before its body is read, and the budget comes back once
/// requests are answered (issue 10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_past_the_memory_budget_is_503_with_retry_after() {
    let h = idv_tests::Harness::start("memory://", |s| s.body_budget_mb = Some(1)).await;
    let acme = h.create_key("acme").await;
    let big = serde_json::json!({"cus_user_id": "u", "pad": "x".repeat(2 * 1024 * 1024)});
    let r = h.client.call(&acme, "/v1/face_auth_user", &big).await;
    assert_eq!((r.status, r.code()), (503, Some("service_unavailable")), "{:?}", r.body);
    assert_eq!(r.retry_after.as_deref(), Some("1"));
    for i in 0..3 {
        let small = h.client.call(&acme, "/v1/face_auth_user", &serde_json::json!({"cus_user_id": format!("u{i}")})).await;
        assert_eq!(small.status, 200, "the budget is returned after each request: {:?}", small.body);
    }
    assert_eq!(h.state().body_budget.available_bytes(), 1024 * 1024);
    h.stop().await;
}

/// `idv sign` prints headers that make a request from any HTTP tool authenticate: sent
/// with the body as signed, the request is answered; the same headers again are a replay,
/// and another body under them is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idv_sign_prints_headers_any_http_tool_can_send() {
    let h = idv_tests::Harness::start("memory://", |_| {}).await;
    let creds = h.create_key("sign-helper").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let body_path = dir.path().join("body.json");
    let body = br#"{"cus_user_id":"nobody-yet"}"#;
    std::fs::write(&body_path, body).expect("body written");
    let out = std::process::Command::new(idv_tests::cluster::idv_binary())
        .args(["sign", "--path", "/v1/face_auth_user", "--body"])
        .arg(&body_path)
        .env("IDV_ACCESS_KEY_ID", &creds.access_key_id)
        .env("IDV_SECRET_KEY", &creds.secret_key)
        .output()
        .expect("idv sign runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).expect("utf-8 headers");
    assert!(!printed.contains(&creds.secret_key), "the secret is never printed");
    let headers: Vec<(String, String)> = printed
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    assert_eq!(headers.len(), 4, "{printed}");
    let send = |bytes: &'static [u8]| {
        let mut req = h.client.http.post(format!("{}/v1/face_auth_user", h.client.base));
        for (k, v) in &headers {
            req = req.header(k.as_str(), v.as_str());
        }
        async move {
            let resp = req.body(bytes).send().await.expect("sent");
            let status = resp.status().as_u16();
            (status, resp.json::<serde_json::Value>().await.unwrap_or_default())
        }
    };
    let (status, answer) = send(body).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer["data"].is_object(), "{answer}");
    let (status, answer) = send(body).await;
    assert_eq!((status, answer["errors"][0]["code"].as_str()), (401, Some("access_denied_exception")), "a replay: {answer}");
    let (status, _) = send(br#"{"cus_user_id":"someone-else"}"#).await;
    assert!((400..500).contains(&status), "another body under the same headers was accepted: {status}");
    h.stop().await;
}

/// The Rust backend client signs every request, sends a rate-limited one again after the
/// server's Retry-After (signed anew: the same headers would be a replay), and reports
/// any other refusal as a typed error with its code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backend_client_retries_refusals_signed_anew_and_types_the_rest() {
    use idv_client::http::{AccessKeyClient, RetryPolicy};
    use idv_client::ClientError;
    let h = idv_tests::Harness::start("memory://", |s| {
        s.rate_limit_per_sec = Some(1.0);
        s.rate_limit_burst = Some(1);
    })
    .await;
    let creds = h.create_key("backend-client").await;
    let mut client = AccessKeyClient::new(h.client.base.clone(), creds.access_key_id.clone(), creds.secret_key.clone().into_bytes());
    let body = serde_json::json!({"cus_user_id": "nobody-yet"});
    let first = client.call_operation(idv_schemas::Operation::FaceAuthUser, &body).await.expect("first call answered");
    assert_eq!((first.attempts, first.body["data"]["verdict"].as_str()), (1, Some("not_registered")), "{:?}", first.body);
    // The bucket is empty: 429 with Retry-After, then a second send that is answered.
    let second = client.call_operation(idv_schemas::Operation::FaceAuthUser, &body).await.expect("answered after a retry");
    assert_eq!(second.attempts, 2, "{:?}", second.body);
    // No retries allowed: the 429 comes back typed.
    client.retry = RetryPolicy { max_attempts: 1, ..RetryPolicy::default() };
    match client.call_operation(idv_schemas::Operation::FaceAuthUser, &body).await {
        Err(ClientError::Refused { status, code, attempts, .. }) => {
            assert_eq!((status, code.as_str(), attempts), (429, "rate_limit_exception", 1));
        }
        other => panic!("expected a typed 429 refusal, got {other:?}"),
    }
    // Typed: a request type of the schemas, the answer's data decoded, its errors typed.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    client.retry = RetryPolicy::default();
    let typed = idv_schemas::api::CusUserRequest { cus_user_id: "nobody-yet".into() };
    let answer = client.call_operation(idv_schemas::Operation::FaceAuthUser, &typed).await.expect("typed call answered");
    #[derive(serde::Deserialize)]
    struct UserAnswer {
        status: String,
        verdict: String,
    }
    let data: UserAnswer = answer.data().expect("data decodes");
    assert_eq!((data.status.as_str(), data.verdict.as_str()), ("success", "not_registered"));
    assert!(answer.errors().expect("errors decode").is_empty() && !answer.is_failure());
    // The device operations and the eKYC check are not this client's.
    for op in [idv_schemas::Operation::PushEventBatch, idv_schemas::Operation::EkycFullChecks] {
        assert!(matches!(client.call_operation(op, &body).await, Err(ClientError::NotAccessKey(_))), "{op:?}");
    }
    // A refusal that is not retried: a wrong secret.
    let wrong = AccessKeyClient::new(h.client.base.clone(), creds.access_key_id.clone(), b"not-the-secret".to_vec());
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    match wrong.call_operation(idv_schemas::Operation::FaceAuthUser, &body).await {
        Err(ClientError::Refused { status, attempts, .. }) => assert_eq!((status, attempts), (401, 1)),
        other => panic!("expected a 401 refusal, got {other:?}"),
    }
    h.stop().await;
}

/// The backend client reaches every Access Key operation of the table: each path takes
/// its signature (an empty body is then refused on its fields, never on its signature).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backend_client_signs_every_access_key_operation() {
    use idv_client::http::AccessKeyClient;
    use idv_client::ClientError;
    let h = idv_tests::Harness::start("memory://", |s| s.rate_limit_burst = Some(1000)).await;
    let creds = h.create_key("every-operation").await;
    let client = AccessKeyClient::new(h.client.base.clone(), creds.access_key_id.clone(), creds.secret_key.clone().into_bytes());
    let mut reached = Vec::new();
    for op in idv_schemas::Operation::ALL.iter().copied().filter(|op| op.auth() == idv_schemas::ops::AuthScheme::AccessKey) {
        let status = match client.call_operation(op, &serde_json::json!({})).await {
            Ok(answer) => 200 + u16::from(answer.is_failure()),
            Err(ClientError::Refused { status, .. }) => status,
            Err(other) => panic!("{op:?}: {other}"),
        };
        assert!(status != 401 && status != 403 && status != 404 && status != 405, "{op:?} answered {status}");
        reached.push(op.name());
    }
    assert!(reached.len() >= 20, "{reached:?}");
    h.stop().await;
}

/// The demo page (`--demo`): its key is handed to and accepted from loopback only (a proxy
/// header makes a request not loopback), and a restart without the demo revokes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_key_is_loopback_only_and_dies_with_its_process() {
    use serde_json::json;
    let mut h = idv_tests::Harness::start("memory://", |s| s.demo = Some(true)).await;
    let http = &h.client.http;
    let page = http.get(format!("{}/demo/", h.client.base)).send().await.expect("page");
    assert_eq!(page.status(), 200);
    let csp = page.headers().get("content-security-policy").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    let sdk = http.get(format!("{}/demo/sdk/index.js", h.client.base)).send().await.expect("sdk");
    assert_eq!(sdk.headers().get("content-type").and_then(|v| v.to_str().ok()), Some("text/javascript; charset=utf-8"));
    let config_url = format!("{}/demo/config.json", h.client.base);
    let proxied = http.get(&config_url).header("x-forwarded-for", "203.0.113.9").send().await.expect("config");
    assert_eq!(proxied.status(), 401, "the config is not handed through a proxy");
    let config: serde_json::Value = http.get(&config_url).send().await.expect("config").json().await.expect("config json");
    let demo = idv_tests::Credentials {
        client_id: config["client_id"].as_str().unwrap_or_default().into(),
        access_key_id: config["access_key_id"].as_str().unwrap_or_default().into(),
        secret_key: config["secret_key"].as_str().unwrap_or_default().into(),
    };
    assert!(demo.access_key_id.starts_with("AK") && config["server_public_key"].as_str().is_some_and(|k| k.len() > 300), "{config}");
    let body = json!({"cus_user_id": "demo-visitor"});
    let direct = h.client.call(&demo, "/v1/face_auth_user", &body).await;
    assert_eq!(direct.status, 200, "{:?}", direct.body);
    // The same key through a proxy, signed correctly: refused before its operation.
    let text = serde_json::to_vec(&body).expect("json");
    let ts = idv_tests::now_rfc3339();
    let md5 = idv_tests::content_md5(&text);
    let sig = idv_tests::sign(&demo.secret_key, "POST", "/v1/face_auth_user", &ts, &md5);
    let via_proxy = http
        .post(format!("{}/v1/face_auth_user", h.client.base))
        .header("authorization", format!("TV {}:{sig}", demo.access_key_id))
        .header("x-tv-timestamp", ts)
        .header("x-tv-content-md5", md5)
        .header("x-forwarded-for", "203.0.113.9")
        .body(text)
        .send()
        .await
        .expect("sent");
    assert_eq!(via_proxy.status(), 401);
    // Another client's key through the same proxy is not the demo's business.
    let acme = h.create_key("acme").await;
    assert_eq!(h.client.call(&acme, "/v1/face_auth_user", &body).await.status, 200);
    // Restarted without the demo: no page, and the key a page saw is revoked.
    h.settings.demo = Some(false);
    h.restart().await;
    let off = h.client.http.get(format!("{}/demo/", h.client.base)).send().await.expect("page");
    assert_eq!(off.status(), 404);
    let after = h.client.call(&demo, "/v1/face_auth_user", &json!({"cus_user_id": "demo-visitor"})).await;
    assert_eq!((after.status, after.code()), (401, Some("access_denied_exception")), "{:?}", after.body);
    assert_eq!(h.client.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "again"})).await.status, 200);
    h.stop().await;
}

/// A request recorded by an embedded process whose job was still in its memory when it
/// died: after the restart its poll reads 503 `service_unavailable` ("check, then retry"),
/// never "processing" forever (issue 15).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_job_died_with_the_process_is_answered_after_the_restart() {
    use serde_json::json;
    let mut h = idv_tests::Harness::start("memory://", |_| {}).await;
    let acme = h.create_key("acme").await;
    let lost = idv_store::RequestRecord {
        request_id: "lost-in-memory".into(),
        client_id: acme.client_id.clone(),
        operation: "face_auth_register".into(),
        created_at: idv_tests::now_rfc3339(),
        response: None,
        finished_at: None,
    };
    h.backends.store.create_request(&lost).await.expect("record");
    let before = h.client.call(&acme, "/v1/get_request_result", &json!({"request_id": "lost-in-memory"})).await;
    assert_eq!(before.body["data"]["status"], "processing", "{:?}", before.body);
    h.restart().await;
    let after = h.client.call(&acme, "/v1/get_request_result", &json!({"request_id": "lost-in-memory"})).await;
    assert_eq!((after.status, after.code()), (503, Some("service_unavailable")), "{:?}", after.body);
    h.stop().await;
}
