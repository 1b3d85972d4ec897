//! Records one job of every job-backed operation exactly as ingest publishes it, into
//! `schemas/testdata/jobs-v<N>.jsonl`, and the results the workers sent back into
//! `results-v<N>.jsonl`: the messages a data team finds on the topics. The schemas crate
//! decodes both files in its tests, and `scripts/topic_schemas.sh` validates them against
//! the published topic schemas, so a change to the job types that would make recorded
//! topics unreadable fails there. Run by hand when a schema version changes (the old
//! files stay):
//! `IDV_RECORD_JOBS=$PWD/schemas/testdata/jobs-v<N>.jsonl cargo test -p idv-tests --test record_jobs -- --ignored`.

use base64::Engine as _;
use idv_schemas::ops::Topic;
use idv_tests::{behavior, card, face, Harness};
use rand::SeedableRng;
use serde_json::{json, Value};
use std::time::Duration;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "records fixtures; run by hand (see the module comment)"]
async fn record_one_job_of_every_operation() {
    let Ok(out) = std::env::var("IDV_RECORD_JOBS") else { return };
    let selfie = face::photo("testimg-fr-obama").expect("face photos installed (scripts/models.sh)");
    let h = Harness::start("memory://", |s| s.request_timeout_ms = Some(20_000)).await;
    // Tap every job topic before anything is published (the in-process bus keeps a
    // message until every group subscribed to it has read it).
    let mut taps = Vec::new();
    for topic in Topic::JOBS {
        taps.push(h.backends.bus.subscribe(topic.name(), "record-jobs", idv_bus::StartFrom::Earliest).await.expect("tap"));
    }
    let mut results = h.backends.bus.subscribe(Topic::Results.name(), "record-jobs", idv_bus::StartFrom::Earliest).await.expect("tap");
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let image = json!({"base64": B64.encode(&selfie), "label": "selfie", "metadata": {"k": "v"}});
    let up = c.call(&acme, "/v1/upload_image", &json!({"base64": B64.encode(&selfie)})).await;
    let by_id = json!({"id": up.body["data"]["id"]});
    let card_photo = B64.encode(card::card_photo_with(None, Some(&card::qr(card::CCCD))));
    let card_body = json!({"card_type": "vn.national_id", "image1": {"base64": card_photo}, "metadata": {"client_uid": "u-1"}});
    let calls: Vec<(&str, Value)> = vec![
        ("/v1/face_auth_register", json!({"cus_user_id": "u-1", "faces": [by_id.clone()], "metadata": {"tier": "gold"}})),
        ("/v1/face_auth", json!({"cus_user_id": "u-1", "faces": [image.clone()], "device_id": "d-1", "latitude": 10.5})),
        ("/v1/face_auth_user", json!({"cus_user_id": "u-1"})),
        ("/v1/face_auth_unlock", json!({"cus_user_id": "u-1"})),
        ("/v1/face_auth_unregister", json!({"cus_user_id": "u-1"})),
        ("/v1/mix_compare_faces_sync", json!({"image1": by_id.clone(), "image2": image.clone()})),
        ("/v1/compare_faces_sync", json!({"image1": by_id.clone(), "image2": by_id.clone()})),
        ("/v1/verify_face_liveness_sync", json!({"images": [by_id.clone()]})),
        ("/v1/verify_portrait_sanity_sync", json!({"image": by_id.clone()})),
        ("/v1/read_id_card_info_with_sanity", card_body.clone()),
        ("/v1/read_id_card_info_sync", card_body.clone()),
        ("/v1/verify_id_card_sanity_sync", card_body.clone()),
        ("/v1/detect_id_card_tampering_sync", json!({"image": by_id.clone()})),
        ("/v1/sim_verification_send_otp", json!({"phone_number": "0981234567"})),
        ("/v1/sim_verification_verify_otp", json!({"phone_number": "0981234567", "otp": "1234"})),
        ("/v1/sim_verification_verify_info", json!({"phone_number": "0981234567", "fields": [{"name": "is_id", "value": "079203001234"}, {"name": "is_port_out", "value": ""}]})),
    ];
    for (path, body) in &calls {
        let r = c.call(&acme, path, body).await;
        assert_ne!(r.status, 400, "{path}: {:?}", r.body);
    }
    let token = h.issue_token("acme", time::OffsetDateTime::now_utc().unix_timestamp(), 3600).await;
    let mut ekyc = card_body.clone();
    ekyc["selfies"] = json!([image.clone()]);
    let r = c.bearer(Some(&token), "/portal/ekyc/full_checks", &ekyc).await;
    assert_ne!(r.status, 400, "{:?}", r.body);
    // Behavior: register (plain and encrypted protocols), a challenge, two batches, a
    // score with transaction data (sealed on the bus).
    let (device, _) = behavior::register(&h, &acme, true, "u-2").await;
    let (challenge_id, nonce) = behavior::challenge(c, &device).await;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    behavior::push_session(c, &device, &challenge_id, &nonce, &idv_scoring::synth::User::new(5).session_batches(2, &mut rng)).await;
    let tx = json!({"transaction_amount": 10, "account_number": "ACC-1", "beneficiary_account_number": "ACC-2", "currency_code": "VND"});
    let r = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": challenge_id, "transaction_data": tx, "is_update": true})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);

    let mut lines = Vec::new();
    for tap in &mut taps {
        while let Ok(Ok(d)) = tokio::time::timeout(Duration::from_secs(2), tap.recv()).await {
            lines.push(String::from_utf8(d.payload).expect("jobs are UTF-8 JSON"));
        }
    }
    assert!(lines.len() >= calls.len() + 6, "{} jobs recorded", lines.len());
    std::fs::write(&out, lines.join("\n") + "\n").expect("write recording");
    let mut answers = Vec::new();
    while let Ok(Ok(d)) = tokio::time::timeout(Duration::from_secs(2), results.recv()).await {
        answers.push(String::from_utf8(d.payload).expect("results are UTF-8 JSON"));
    }
    assert!(answers.len() >= lines.len(), "{} results recorded", answers.len());
    std::fs::write(out.replace("jobs-", "results-"), answers.join("\n") + "\n").expect("write recording");
    h.stop().await;
}
