//! The platform's end-to-end scenario, run over each bus (tests/tests/*.rs).

use crate::{count_files, rfc3339_offset, Harness, Signing, B64};
use base64::Engine as _;
use serde_json::{json, Value};

/// Rate limit of the scenario's server: big enough for the scenario, small enough that a
/// burst of 80 requests must hit it.
pub const RATE_PER_SEC: f64 = 5.0;
pub const RATE_BURST: u32 = 40;

pub async fn run(bus_url: &str) {
    let h = Harness::start(bus_url, |s| {
        s.rate_limit_per_sec = Some(RATE_PER_SEC);
        s.rate_limit_burst = Some(RATE_BURST);
        s.request_timeout_ms = Some(20_000);
    })
    .await;
    let c = &h.client;
    let acme = h.create_key("acme").await;

    // A signed request goes through the bus to a worker and back.
    let ok = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "user-1"})).await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
    assert_eq!(ok.body["data"]["status"], "success");
    assert_eq!(ok.body["data"]["verdict"], "not_registered");
    let request_id = ok.body["data"]["request_id"].as_str().expect("request_id").to_string();
    // Same operation under the /api prefix (signed over the path actually sent).
    let api = c.call(&acme, "/api/v1/face_auth_user", &json!({"cus_user_id": "user-1"})).await;
    assert_eq!(api.status, 200, "{:?}", api.body);

    // Authentication failures, each with the spec's code.
    let body = serde_json::to_vec(&json!({"cus_user_id": "user-1"})).expect("json");
    let wrong_secret = c
        .call_with(&acme, "/v1/face_auth_user", body.clone(), Signing { secret: Some("not-the-secret".into()), send_md5: true, ..Default::default() })
        .await;
    assert_eq!((wrong_secret.status, wrong_secret.code()), (401, Some("access_denied_exception")));

    let tampered_body = serde_json::to_vec(&json!({"cus_user_id": "user-2"})).expect("json");
    let altered = c
        .call_with(&acme, "/v1/face_auth_user", tampered_body, Signing { md5_of: Some(body.clone()), send_md5: true, ..Default::default() })
        .await;
    assert_eq!((altered.status, altered.code()), (401, Some("access_denied_exception")), "altered body");

    let altered_path = c
        .call_with(&acme, "/v1/face_auth_unlock", body.clone(), Signing { signed_path: Some("/v1/face_auth_user".into()), send_md5: true, ..Default::default() })
        .await;
    assert_eq!((altered_path.status, altered_path.code()), (401, Some("access_denied_exception")), "altered path");

    for skew in [-3600, 3600] {
        let skewed = c
            .call_with(&acme, "/v1/face_auth_user", body.clone(), Signing { timestamp: Some(rfc3339_offset(skew)), send_md5: true, ..Default::default() })
            .await;
        assert_eq!((skewed.status, skewed.code()), (400, Some("request_time_too_skewed")), "skew {skew}");
    }

    // A captured request replayed as is (same headers, same body) is refused.
    let ts = crate::now_rfc3339();
    let once = Signing { timestamp: Some(ts), send_md5: true, ..Default::default() };
    let first = c.call_with(&acme, "/v1/face_auth_user", b"{\"cus_user_id\":\"replayed\"}".to_vec(), once.clone()).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    let replay = c.call_with(&acme, "/v1/face_auth_user", b"{\"cus_user_id\":\"replayed\"}".to_vec(), once).await;
    assert_eq!((replay.status, replay.code()), (401, Some("access_denied_exception")), "replayed request");

    let mut unknown = acme.clone();
    unknown.access_key_id = "AKDOESNOTEXIST".into();
    let r = c.call(&unknown, "/v1/face_auth_user", &json!({"cus_user_id": "u"})).await;
    assert_eq!((r.status, r.code()), (401, Some("access_denied_exception")), "unknown key");

    let revoked = h.create_key("acme").await;
    assert_eq!(c.call(&revoked, "/v1/face_auth_user", &json!({"cus_user_id": "u"})).await.status, 200);
    assert!(h.state().store.revoke_access_key(&revoked.access_key_id).await.expect("revoke"));
    let r = c.call(&revoked, "/v1/face_auth_user", &json!({"cus_user_id": "u"})).await;
    assert_eq!((r.status, r.code()), (401, Some("access_denied_exception")), "revoked key");

    // Validation: the spec's code, the field named, nothing written.
    let blobs_dir = h.data_dir.join("blobs");
    let files_before = count_files(&blobs_dir);
    let r = c.call_with(&acme, "/v1/face_auth_user", b"{not json".to_vec(), Signing { send_md5: true, ..Default::default() }).await;
    assert_eq!((r.status, r.code()), (400, Some("invalid_parameter_exception")), "malformed json");
    let r = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "x".repeat(257)})).await;
    assert_eq!((r.status, r.code()), (400, Some("invalid_parameter_exception")));
    assert_eq!(r.body["errors"][0]["detail"]["field"], "cus_user_id");
    assert_eq!(r.body["data"], Value::Null);
    let r = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": 42})).await;
    assert_eq!((r.status, r.code()), (400, Some("invalid_parameter_exception")), "wrong type");
    let good = B64.encode(b"\xff\xd8\xff\xe0 a jpeg-ish payload");
    let r = c
        .call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "u", "faces": [{"base64": good}, {"base64": "%%%not-base64"}]}))
        .await;
    assert_eq!((r.status, r.code()), (400, Some("invalid_parameter_exception")), "broken base64");
    assert_eq!(r.body["errors"][0]["detail"]["field"], "faces[1]");
    let r = c.call(&acme, "/v1/face_auth", &json!({"cus_user_id": "u", "faces": vec![json!({"id": "x"}); 51]})).await;
    assert_eq!(r.body["errors"][0]["detail"]["field"], "faces");
    assert_eq!(count_files(&blobs_dir), files_before, "rejected requests leave nothing behind");

    // Garbage to every Access Key operation: the group's invalid-parameter code, never a 5xx.
    for op in idv_schemas::Operation::ALL {
        if op.auth() != idv_schemas::ops::AuthScheme::AccessKey {
            continue;
        }
        // Its own key per operation, so the scenario stays under the rate limit.
        let fuzzer = h.create_key("acme").await;
        for garbage in [&b"{\"cus_user_id\": [1, 2,"[..], b"[]", b"null", b"\"text\"", b"{\"image1\": 5}"] {
            let r = c.call_with(&fuzzer, op.path(), garbage.to_vec(), Signing { send_md5: true, ..Default::default() }).await;
            assert_eq!(r.status, 400, "{} {:?}: {:?}", op.path(), String::from_utf8_lossy(garbage), r.body);
            let want = if op.group() == idv_schemas::Group::Behavior { "invalid_param" } else { "invalid_parameter_exception" };
            assert_eq!(r.code(), Some(want), "{}", op.path());
        }
    }

    // Upload, then reference by id.
    let up = c.call(&acme, "/v1/upload_image", &json!({"base64": good, "label": "selfie"})).await;
    assert_eq!(up.status, 200, "{:?}", up.body);
    let image_id = up.body["data"]["id"].as_str().expect("id").to_string();
    assert_eq!(count_files(&blobs_dir), files_before + 1);
    let missing = c
        .call(&acme, "/v1/mix_compare_faces_sync", &json!({"image1": {"id": image_id}, "image2": {"id": "img-nope"}}))
        .await;
    assert_eq!((missing.status, missing.code()), (404, Some("image_not_found_exception")));
    assert_eq!(missing.body["errors"][0]["detail"]["field"], "image2");
    let other = h.create_key("globex").await;
    let foreign = c.call(&other, "/v1/mix_compare_faces_sync", &json!({"image1": {"id": image_id}, "image2": {"id": image_id}})).await;
    assert_eq!(foreign.code(), Some("image_not_found_exception"), "another client's image is not visible");
    let referenced = c.call(&acme, "/v1/mix_compare_faces_sync", &json!({"image1": {"id": image_id}, "image2": {"id": image_id}})).await;
    // The reference resolved and the job reached the compare worker: with the models
    // installed it finds the bytes are no real image (400, field image1); without them it
    // says the comparison was not performed. Never a made-up score.
    match referenced.status {
        400 => assert_eq!(referenced.body["errors"][0]["detail"]["field"], "image1", "{:?}", referenced.body),
        501 => assert_eq!(referenced.body["errors"][0]["detail"]["reason"], "not_performed"),
        other => panic!("unexpected {other}: {:?}", referenced.body),
    }

    // Polling: a finished request returns its result; unknown and foreign ids are 404.
    let polled = c.call(&acme, "/v1/get_request_result", &json!({"request_id": request_id})).await;
    assert_eq!(polled.status, 200);
    assert_eq!(polled.body, ok.body, "polling returns the same body");
    let r = c.call(&acme, "/v1/get_request_result", &json!({"request_id": uuid::Uuid::new_v4().to_string()})).await;
    assert_eq!((r.status, r.code()), (404, Some("request_not_found_exception")));
    let r = c.call(&other, "/v1/get_request_result", &json!({"request_id": request_id})).await;
    assert_eq!((r.status, r.code()), (404, Some("request_not_found_exception")), "another client's request");

    // Routes that are not operations.
    assert_eq!(c.raw(reqwest::Method::GET, "/v1/face_auth_user").await.status, 405);
    assert_eq!(c.raw(reqwest::Method::POST, "/v1/nope").await.status, 404);
    assert_eq!(c.raw(reqwest::Method::GET, "/healthz").await.status, 200);
    assert_eq!(c.raw(reqwest::Method::GET, "/readyz").await.status, 200);
    let metrics = c.raw(reqwest::Method::GET, "/metrics").await;
    let text = metrics.body.as_str().unwrap_or_default().to_string();
    assert!(text.contains("idv_request_duration_seconds_bucket{operation=\"face_auth_user\""), "{text}");
    assert!(text.contains("idv_request_errors_total{code=\"access_denied_exception\""), "{text}");
    let openapi = c.raw(reqwest::Method::GET, "/openapi.json").await;
    assert_eq!(openapi.body["openapi"], "3.1.0");

    // A burst over the key's limit gets 429 with Retry-After.
    let burst = h.create_key("bursty").await;
    let calls = (0..80).map(|i| {
        let c = c.clone();
        let burst = burst.clone();
        async move { c.call(&burst, "/v1/face_auth_user", &json!({"cus_user_id": format!("b{i}")})).await }
    });
    let replies = futures_join_all(calls).await;
    let limited: Vec<_> = replies.iter().filter(|r| r.status == 429).collect();
    assert!(!limited.is_empty(), "a burst of 80 over a burst limit of {RATE_BURST} must be limited");
    assert!(limited.iter().all(|r| r.code() == Some("rate_limit_exception") && r.retry_after.is_some()));
    assert!(replies.iter().filter(|r| r.status == 200).count() >= RATE_BURST as usize - 1);

    h.stop().await;
}

async fn futures_join_all<F: std::future::Future<Output = crate::Reply> + Send + 'static>(
    futs: impl Iterator<Item = F>,
) -> Vec<crate::Reply> {
    let handles: Vec<_> = futs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}
