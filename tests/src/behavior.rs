//! The behavioral integration flow end to end, through the reference client
//! (idv-client), over a given bus: register device → challenge → 3 batches → score
//! (first session enrolls) → second session scores for real; then every tampering case,
//! each rejected with the spec's code and leaving the chain as it was.

use crate::{Client, Credentials, Harness, Reply};
use idv_client::{BatchChain, DeviceKeys, DeviceSession};
use rand::SeedableRng;
use serde_json::{json, Value};

const CREATE: &str = "/v1/behavior/create_challenge";
const PUSH: &str = "/v1/behavior/push_event_batch";

/// Send a device request prepared by the client; returns the status and the opened body.
pub async fn device_call(c: &Client, s: &DeviceSession, uri: &str, plaintext: &[u8], challenge: Option<&str>) -> Reply {
    let prepared = s.prepare(uri, &idv_client::rfc3339_now(), plaintext, challenge).expect("prepare");
    send_prepared(c, uri, prepared.body, prepared.headers).await.opened(s)
}

pub async fn send_prepared(c: &Client, uri: &str, body: Vec<u8>, headers: Vec<(&'static str, String)>) -> Reply {
    let mut req = c.http.post(format!("{}{uri}", c.base)).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let resp = req.body(body).send().await.expect("sent");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    Reply { status, retry_after: None, body: serde_json::from_str(&text).unwrap_or(Value::String(text)) }
}

impl Reply {
    /// Open an encrypted success body (errors are plain).
    fn opened(mut self, s: &DeviceSession) -> Reply {
        if self.status == 200 {
            let raw = serde_json::to_vec(&self.body).expect("json");
            self.body = s.open_response(&raw).expect("response verifies and decrypts");
        }
        self
    }
}

pub struct Device {
    pub session: DeviceSession,
    pub id: String,
}

/// A new device of `user` registered through `c` under the server key pair
/// (`key_pair_id`, `server_der`), with an open challenge: (device, challenge id, nonce).
/// For clusters of separate processes, where the key pair comes from `idv keypairs create`.
pub async fn device_with_challenge(c: &Client, creds: &Credentials, key_pair_id: &str, server_der: &[u8], user: &str) -> (Device, String, String) {
    let keys = DeviceKeys::generate().expect("device keys");
    let body = keys.register_device_body(key_pair_id, server_der, user, "device-1", false).expect("body");
    let r = c.call(creds, "/v1/register_device", &body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let id = r.body["data"]["customer_user_device_id"].as_str().expect("id").to_string();
    let session = DeviceSession::new(id.clone(), keys, server_der).expect("session");
    let device = Device { session, id };
    let (challenge, nonce) = challenge(c, &device).await;
    (device, challenge, nonce)
}

pub async fn register(h: &Harness, creds: &Credentials, encrypted: bool, user: &str) -> (Device, Vec<u8>) {
    let kp = idv_store::vault::issue_key_pair(h.backends.store.as_ref(), &h.backends.sealer, &creds.client_id, &crate::now_rfc3339())
        .await
        .expect("key pair");
    let keys = DeviceKeys::generate().expect("device keys");
    let body = keys.register_device_body(&kp.key_pair_id, &kp.public_der, user, "device-1", encrypted).expect("body");
    let r = h.client.call(creds, "/v1/register_device", &body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["data"]["status"], "success");
    let id = r.body["data"]["customer_user_device_id"].as_str().expect("id").to_string();
    let session = DeviceSession::new(id.clone(), keys, &kp.public_der).expect("session");
    (Device { session, id }, kp.public_der)
}

pub async fn challenge(c: &Client, d: &Device) -> (String, String) {
    let r = device_call(c, &d.session, CREATE, br#"{"session_id":"sdk-session-1"}"#, None).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let data = &r.body["data"];
    assert_eq!(data["nonce"].as_str().map(str::len), Some(64));
    (data["challenge_id"].as_str().expect("challenge_id").into(), data["nonce"].as_str().expect("nonce").into())
}

pub async fn push_session(c: &Client, d: &Device, challenge_id: &str, nonce: &str, batches: &[Value]) -> BatchChain {
    let mut chain = BatchChain::new(nonce);
    for data in batches {
        let plaintext = chain.next_plaintext(data);
        let r = device_call(c, &d.session, PUSH, plaintext.as_bytes(), Some(challenge_id)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["data"]["status"], "success");
    }
    chain
}

fn batch_text(nonce: &str, seq: i64, prev: &str, hash: &str, data: &str) -> String {
    format!(r#"{{"nonce":"{nonce}","seq":{seq},"prev_batch_hash":"{prev}","batch_hash":"{hash}","data":{data}}}"#)
}

fn hash(prev: &str, seq: i64, data: &str) -> String {
    idv_crypto::device::batch_hash(prev, seq as u64, data.as_bytes())
}

async fn chain_head(h: &Harness, challenge_id: &str) -> (i64, String) {
    let c = h.backends.store.get_challenge(challenge_id).await.expect("store").expect("challenge");
    (c.last_seq, c.last_hash)
}

pub async fn run(bus_url: &str) {
    let h = Harness::start(bus_url, |_| {}).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let user = idv_scoring::synth::User::new(7);
    let impostor = idv_scoring::synth::User::new(99);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);

    // 1-4: register (encrypted protocol), challenge, three batches, first score enrolls.
    let (device, _) = register(&h, &acme, true, "user-1").await;
    let (ch1, nonce1) = challenge(c, &device).await;
    push_session(c, &device, &ch1, &nonce1, &user.session_batches(3, &mut rng)).await;
    let first = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": ch1})).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    let d = &first.body["data"];
    assert_eq!((d["behavior_score"].as_i64(), d["risk_level"].as_str()), (Some(1000), Some("LOW")));
    assert_eq!(d["more_details"]["is_first_session"], true);
    assert_eq!(d["more_details"]["embedding_count"], 1);
    assert!(first.body.get("decision").is_none(), "no policy check unless enabled");

    // 5: the second session is scored for real.
    let (ch2, nonce2) = challenge(c, &device).await;
    push_session(c, &device, &ch2, &nonce2, &user.session_batches(3, &mut rng)).await;
    let genuine = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": ch2, "is_update": true})).await;
    assert_eq!(genuine.status, 200, "{:?}", genuine.body);
    let g = &genuine.body["data"];
    assert!(g.get("more_details").is_none(), "not a first session: {g}");
    let genuine_score = g["behavior_score"].as_i64().expect("score");
    assert!((0..=1000).contains(&genuine_score));
    for group in ["device_description", "device_behavior", "user_behavior"] {
        assert!(g["groups"][group]["score"].is_number() && g["groups"][group]["weight"].is_number(), "{g}");
    }
    // Re-scoring is allowed and gets a new request id.
    let again = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": ch2, "is_update": false})).await;
    assert_eq!(again.status, 200);
    assert_ne!(again.body["data"]["request_id"], g["request_id"]);

    // Someone else's behaviour on the same device scores lower than the genuine user's.
    let (ch3, nonce3) = challenge(c, &device).await;
    push_session(c, &device, &ch3, &nonce3, &impostor.session_batches(3, &mut rng)).await;
    let other = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": ch3, "is_update": false})).await;
    let other_score = other.body["data"]["behavior_score"].as_i64().expect("score");
    assert!(other_score < genuine_score, "impostor {other_score} vs genuine {genuine_score}");

    tampering(&h, &acme, &device).await;
    h.stop().await;
}

async fn tampering(h: &Harness, acme: &Credentials, device: &Device) {
    let c = &h.client;
    let (ch, nonce) = challenge(c, device).await;
    let data0 = r#"{"events":[]}"#;
    let h0 = hash("", 0, data0);
    let ok0 = batch_text(&nonce, 0, "", &h0, data0);
    let r = device_call(c, &device.session, PUSH, ok0.as_bytes(), Some(&ch)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let head = chain_head(h, &ch).await;
    assert_eq!(head, (0, h0.clone()));
    let data1 = r#"{"events":[{"type":"focus","t":5}]}"#;
    let h1 = hash(&h0, 1, data1);

    let rejected = |name: &'static str, reply: Reply, status: u16, code: &'static str| {
        assert_eq!((reply.status, reply.code()), (status, Some(code)), "{name}: {:?}", reply.body);
        assert!(reply.body.get("data").is_none(), "{name}: behavioral errors carry no data");
        name
    };

    // Forged device signature: another device key signs for this device id.
    let impostor_keys = DeviceKeys::generate().expect("keys");
    let forged = DeviceSession::new(device.id.clone(), impostor_keys, device.session.server_public_key_der()).expect("session");
    let text = batch_text(&nonce, 1, &h0, &h1, data1);
    rejected("forged signature", device_call(c, &forged, PUSH, text.as_bytes(), Some(&ch)).await, 403, "access_denied");

    // Wrong AES key: the body is encrypted under a key other than the one in the header.
    let mut other_key = device.session.clone();
    other_key.rotate_secret_key().expect("rotate");
    let body = other_key.encrypt_body(text.as_bytes());
    let headers = device.session.sign_request("POST", PUSH, &idv_client::rfc3339_now(), &body, Some(&ch)).expect("sign");
    rejected("wrong AES key", send_prepared(c, PUSH, body, headers).await, 403, "access_denied");

    // Reused seq, skipped seq, broken prev hash, wrong batch hash.
    let reuse = batch_text(&nonce, 0, "", &h0, data0);
    rejected("reused seq", device_call(c, &device.session, PUSH, reuse.as_bytes(), Some(&ch)).await, 400, "invalid_batch_events");
    let skip = batch_text(&nonce, 2, &h0, &hash(&h0, 2, data1), data1);
    rejected("skipped seq", device_call(c, &device.session, PUSH, skip.as_bytes(), Some(&ch)).await, 400, "invalid_batch_events");
    let broken = batch_text(&nonce, 1, &"0".repeat(64), &hash(&"0".repeat(64), 1, data1), data1);
    rejected("broken prev_batch_hash", device_call(c, &device.session, PUSH, broken.as_bytes(), Some(&ch)).await, 400, "invalid_batch_events");
    let wrong = batch_text(&nonce, 1, &h0, &"f".repeat(64), data1);
    rejected("wrong batch_hash", device_call(c, &device.session, PUSH, wrong.as_bytes(), Some(&ch)).await, 400, "invalid_batch_events");

    // Nonces: missing, and replayed from another challenge.
    let (other_ch, other_nonce) = challenge(c, device).await;
    let replayed = batch_text(&other_nonce, 1, &h0, &h1, data1);
    rejected("replayed nonce", device_call(c, &device.session, PUSH, replayed.as_bytes(), Some(&ch)).await, 400, "invalid_nonce");
    let no_nonce = format!(r#"{{"seq":1,"prev_batch_hash":"{h0}","batch_hash":"{h1}","data":{data1}}}"#);
    rejected("missing nonce", device_call(c, &device.session, PUSH, no_nonce.as_bytes(), Some(&ch)).await, 400, "missing_nonce");
    rejected("missing challenge id", device_call(c, &device.session, PUSH, text.as_bytes(), None).await, 400, "missing_challenge_id");
    rejected("unknown challenge", device_call(c, &device.session, PUSH, text.as_bytes(), Some(&uuid::Uuid::new_v4().to_string())).await, 400, "challenge_not_found");
    assert_eq!(chain_head(h, &ch).await, head, "no rejected push changed the chain");

    // The genuine next batch is still accepted after all that.
    let r = device_call(c, &device.session, PUSH, text.as_bytes(), Some(&ch)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);

    // Score errors: not a UUID, unknown, empty, another client's.
    rejected("invalid challenge id", c.call(acme, "/v1/behavior/score", &json!({"challenge_id": "nope"})).await, 400, "invalid_challenge_id");
    rejected("score unknown", c.call(acme, "/v1/behavior/score", &json!({"challenge_id": uuid::Uuid::new_v4().to_string()})).await, 400, "challenge_not_found");
    rejected("no batches", c.call(acme, "/v1/behavior/score", &json!({"challenge_id": other_ch})).await, 400, "no_batch_events");
    let globex = h.create_key("globex").await;
    rejected("another client's challenge", c.call(&globex, "/v1/behavior/score", &json!({"challenge_id": ch})).await, 400, "challenge_access_denied");

    // Push after score.
    let scored = c.call(acme, "/v1/behavior/score", &json!({"challenge_id": ch, "is_update": false})).await;
    assert_eq!(scored.status, 200, "{:?}", scored.body);
    let h2 = hash(&h1, 2, data1);
    let late = batch_text(&nonce, 2, &h1, &h2, data1);
    rejected("push after score", device_call(c, &device.session, PUSH, late.as_bytes(), Some(&ch)).await, 400, "invalid_challenge_status");
    assert_eq!(chain_head(h, &ch).await, (1, h1.clone()));

    // Deactivated device: challenges and scores refuse it.
    assert!(h.backends.store.set_device_deactivated(&device.id, true).await.expect("deactivate"));
    rejected("deactivated device", device_call(c, &device.session, CREATE, br#"{"session_id":"x"}"#, None).await, 400, "customer_user_device_deactivated");
    rejected("score on deactivated device", c.call(acme, "/v1/behavior/score", &json!({"challenge_id": ch})).await, 400, "customer_user_device_deactivated");

    // Access-key failures of the behavioral group are 403 access_denied.
    let mut bad = acme.clone();
    bad.secret_key = "wrong".into();
    rejected("bad access key", c.call(&bad, "/v1/behavior/score", &json!({"challenge_id": ch})).await, 403, "access_denied");
}

/// The operator-enabled policy check: every score answer (first sessions included) carries
/// `decision` and `evaluation_details`; policies see transaction_data, whose account fields
/// never reach the bus in the clear.
pub async fn run_policies(bus_url: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("policies.json");
    std::fs::write(
        &file,
        r#"{"version": "test-1", "policies": [
            {"policy_id": "blocklist", "policy_name": "Blocked beneficiary", "policy_version": "7", "priority": 1,
             "expression": "has(transaction.beneficiary_account_number) && transaction.beneficiary_account_number == '666'",
             "outcome": "OVERRIDDEN", "final_action": "BLOCK"}]}"#,
    )
    .expect("policy file");
    let h = Harness::start(bus_url, |s| {
        s.policy_file = Some(file.clone());
        s.policy_clients = Some("*".into());
    })
    .await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let mut jobs = h
        .backends
        .bus
        .subscribe(idv_schemas::ops::Topic::Behavior.name(), "test-replay", idv_bus::StartFrom::Earliest)
        .await
        .expect("replay consumer");
    let user = idv_scoring::synth::User::new(3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let (device, _) = register(&h, &acme, false, "user-p").await;

    // First session: default mapping (LOW → ALLOW), no policy matched.
    let (ch1, n1) = challenge(c, &device).await;
    push_session(c, &device, &ch1, &n1, &user.session_batches(2, &mut rng)).await;
    let first = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": ch1})).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    assert_eq!(first.body["decision"]["final_action"], "ALLOW");
    assert_eq!(first.body["decision"]["action_payload"], Value::Null);
    assert_eq!(first.body["evaluation_details"]["applied_policies"], json!([]));

    // A transfer to a blocked account: the policy overrides whatever the score says.
    let (ch2, n2) = challenge(c, &device).await;
    push_session(c, &device, &ch2, &n2, &user.session_batches(2, &mut rng)).await;
    let tx = json!({"transaction_amount": 10, "account_number": "ACC-SECRET-123", "beneficiary_account_number": "666"});
    let blocked = c.call(&acme, "/v1/behavior/score", &json!({"challenge_id": ch2, "transaction_data": tx})).await;
    assert_eq!(blocked.status, 200, "{:?}", blocked.body);
    assert_eq!(blocked.body["decision"]["final_action"], "BLOCK");
    assert_eq!(blocked.body["evaluation_details"]["applied_policies"][0]["policy_id"], "blocklist");
    assert_eq!(blocked.body["evaluation_details"]["applied_policies"][0]["policy_outcome"], "OVERRIDDEN");

    // A data team replaying the behavior topic sees the account fields sealed.
    let mut seen_score_job = false;
    while let Ok(Ok(d)) = tokio::time::timeout(std::time::Duration::from_secs(5), jobs.recv()).await {
        let text = String::from_utf8_lossy(&d.payload).to_string();
        assert!(!text.contains("ACC-SECRET-123"), "account numbers never reach the bus in the clear");
        if text.contains(&ch2) && text.contains("transaction_data") {
            let job: Value = serde_json::from_str(&text).expect("job json");
            let acct = job["payload"]["transaction_data"]["account_number"].as_str().unwrap_or_default();
            assert!(acct.starts_with("sealed:v1:"), "{acct}");
            seen_score_job = true;
            break;
        }
    }
    assert!(seen_score_job, "the score job was on the behavior topic");
    h.stop().await;
}
