//! SIM verification end to end over HTTP, against an operator simulator that speaks the
//! CAMARA APIs the SIM worker calls (OAuth2 client credentials, One Time Password SMS,
//! KYC Match, Device Swap) with the request and error shapes of their specifications.
//! No real operator is reachable from here; this shows the service's side of the
//! protocol, its session rules and every failure code, not any operator's behaviour.

use crate::Harness;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const SUBSCRIBER: &str = "+84981234567";
const BLOCKED: &str = "+84980000000";
const TOKEN: &str = "operator-token-1";

#[derive(Default)]
struct Operator {
    /// authenticationId → (phone, code, wrong attempts)
    pending: Mutex<HashMap<String, (String, String, u32)>>,
    /// phone → last code sent (what the subscriber's phone would show)
    inbox: Mutex<HashMap<String, String>>,
    codes_sent: Mutex<u32>,
}

fn camara_error(status: StatusCode, code: &str) -> Response {
    (status, Json(json!({"status": status.as_u16(), "code": code, "message": code}))).into_response()
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

async fn token(Form(form): Form<HashMap<String, String>>) -> Response {
    let ok = form.get("grant_type").map(String::as_str) == Some("client_credentials")
        && form.get("client_id").map(String::as_str) == Some("idv")
        && form.get("client_secret").map(String::as_str) == Some("s3cret & more");
    if !ok {
        return camara_error(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED");
    }
    Json(json!({"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600})).into_response()
}

async fn send_code(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    if !authorized(&headers) {
        return camara_error(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED");
    }
    let phone = body["phoneNumber"].as_str().unwrap_or_default().to_string();
    if !body["message"].as_str().is_some_and(|m| m.contains("{{code}}")) || !phone.starts_with('+') {
        return camara_error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT");
    }
    if phone == BLOCKED {
        return camara_error(StatusCode::FORBIDDEN, "ONE_TIME_PASSWORD_SMS.PHONE_NUMBER_BLOCKED");
    }
    let n = {
        let mut sent = op.codes_sent.lock().unwrap_or_else(|e| e.into_inner());
        *sent += 1;
        *sent
    };
    let code = format!("{:04}", 4000 + n);
    let id = uuid::Uuid::new_v4().to_string();
    op.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), (phone.clone(), code.clone(), 0));
    op.inbox.lock().unwrap_or_else(|e| e.into_inner()).insert(phone, code);
    Json(json!({"authenticationId": id})).into_response()
}

async fn validate_code(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    if !authorized(&headers) {
        return camara_error(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED");
    }
    let id = body["authenticationId"].as_str().unwrap_or_default();
    let code = body["code"].as_str().unwrap_or_default();
    let mut pending = op.pending.lock().unwrap_or_else(|e| e.into_inner());
    let Some(entry) = pending.get_mut(id) else {
        return camara_error(StatusCode::BAD_REQUEST, "ONE_TIME_PASSWORD_SMS.VERIFICATION_EXPIRED");
    };
    if entry.1 != code {
        entry.2 += 1;
        if entry.2 >= 3 {
            pending.remove(id);
            return camara_error(StatusCode::BAD_REQUEST, "ONE_TIME_PASSWORD_SMS.VERIFICATION_FAILED");
        }
        return camara_error(StatusCode::BAD_REQUEST, "ONE_TIME_PASSWORD_SMS.INVALID_OTP");
    }
    pending.remove(id);
    StatusCode::NO_CONTENT.into_response()
}

async fn kyc_match(headers: HeaderMap, Json(body): Json<Value>) -> Response {
    if !authorized(&headers) {
        return camara_error(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED");
    }
    let known = body["phoneNumber"] == SUBSCRIBER;
    let record = json!({"idDocument": "079203001234", "name": "Nguyen Van A", "birthdate": "1990-01-01"});
    let mut out = serde_json::Map::new();
    for (field, answer) in [("idDocument", "idDocumentMatch"), ("name", "nameMatch"), ("birthdate", "birthdateMatch")] {
        if let Some(given) = body.get(field) {
            let verdict = if !known { "not_available" } else if *given == record[field] { "true" } else { "false" };
            out.insert(answer.into(), json!(verdict));
        }
    }
    Json(Value::Object(out)).into_response()
}

async fn device_swap(headers: HeaderMap, Json(body): Json<Value>) -> Response {
    if !authorized(&headers) || body["maxAge"].as_u64().is_none() {
        return camara_error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT");
    }
    Json(json!({"swapped": body["phoneNumber"] == SUBSCRIBER})).into_response()
}

async fn start_operator() -> (String, Arc<Operator>) {
    let op = Arc::new(Operator::default());
    let app = Router::new()
        .route("/oauth/token", post(token))
        .route("/one-time-password-sms/v1/send-code", post(send_code))
        .route("/one-time-password-sms/v1/validate-code", post(validate_code))
        .route("/kyc-match/v0.3/match", post(kyc_match))
        .route("/device-swap/v1/check", post(device_swap))
        .with_state(op.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), op)
}

pub async fn run(bus_url: &str) {
    let (base, op) = start_operator().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("telcos.json");
    let config = json!({"default_country_code": "+84", "telcos": [{
        "code": "vtl", "prefixes": ["+8498"], "base_url": base, "token_url": format!("{base}/oauth/token"),
        "client_id": "idv", "client_secret": "s3cret & more"}]});
    std::fs::write(&file, config.to_string()).expect("write telcos file");
    let h = Harness::start(bus_url, |s| s.telcos_file = Some(file.clone())).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let other = h.create_key("other-bank").await;
    let code_of = |phone: &str| op.inbox.lock().unwrap_or_else(|e| e.into_inner()).get(phone).cloned().unwrap_or_default();

    // Send: national form accepted, the operator named.
    let sent = c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": "098 123 4567"})).await;
    assert_eq!(sent.status, 200, "{:?}", sent.body);
    assert_eq!(*op.codes_sent.lock().unwrap_or_else(|e| e.into_inner()), 1, "one SMS per send_otp");
    assert_eq!((sent.body["data"]["status"].as_str(), sent.body["data"]["telco"].as_str()), (Some("success"), Some("vtl")), "{:?}", sent.body);
    // Owner data only after the OTP.
    let info = json!({"phone_number": SUBSCRIBER, "fields": [
        {"name": "is_id", "value": "079203001234"}, {"name": "is_name", "value": "Tran Thi B"},
        {"name": "is_dob", "value": "01/01/1990"}, {"name": "has_changed_device_last_30", "value": ""},
        {"name": "is_port_out", "value": ""}]});
    let early = c.call(&acme, "/v1/sim_verification_verify_info", &info).await;
    assert_eq!((early.status, early.code()), (200, Some("verification_session_expired")), "{:?}", early.body);
    // Wrong code, right code, the same code again.
    let wrong = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": "0000"})).await;
    assert_eq!((wrong.status, wrong.code()), (200, Some("incorrect_otp")), "{:?}", wrong.body);
    let otp = code_of(SUBSCRIBER);
    let right = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": otp})).await;
    assert_eq!((right.status, right.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", right.body);
    let again = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": otp})).await;
    assert_eq!((again.status, again.code()), (200, Some("otp_already_used")), "{:?}", again.body);
    // Now the owner data, per field; statements with no operator API are no_data.
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &info).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let verdicts: Vec<(String, String)> = r.body["data"]["fields"]
        .as_array()
        .map(|a| a.iter().map(|f| (f["name"].as_str().unwrap_or("").to_string(), f["verdict"].as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default();
    let expect = [("is_id", "matched"), ("is_name", "unmatched"), ("is_dob", "matched"), ("has_changed_device_last_30", "matched"), ("is_port_out", "no_data")];
    assert_eq!(verdicts, expect.map(|(a, b)| (a.to_string(), b.to_string())).to_vec(), "{:?}", r.body);
    // Another client did not verify this number.
    let theirs = c.call(&other, "/v1/sim_verification_verify_info", &info).await;
    assert_eq!(theirs.code(), Some("verification_session_expired"), "{:?}", theirs.body);
    // A bad date, a repeated statement: the caller's errors.
    let mut bad_date = info.clone();
    bad_date["fields"] = json!([{"name": "is_dob", "value": "1990-01-01"}]);
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &bad_date).await;
    assert_eq!((r.status, r.body["errors"][0]["detail"]["field"].as_str()), (400, Some("fields[0].value")), "{:?}", r.body);
    let mut twice = info.clone();
    twice["fields"] = json!([{"name": "is_name", "value": "Alice"}, {"name": "is_name", "value": "Nguyen Van A"}]);
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &twice).await;
    assert_eq!((r.status, r.body["errors"][0]["detail"]["field"].as_str()), (400, Some("fields[1].name")), "{:?}", r.body);

    // A number the operator serves but holds no owner data for: not_available is no_data,
    // and no device swap is unmatched.
    let stranger = "+84981111111";
    c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": stranger})).await;
    let ok = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": stranger, "otp": code_of(stranger)})).await;
    assert_eq!(ok.body["data"]["status"], "success", "{:?}", ok.body);
    let r = c
        .call(&acme, "/v1/sim_verification_verify_info", &json!({"phone_number": stranger, "fields": [{"name": "is_id", "value": "1"}, {"name": "has_changed_device_last_30", "value": ""}]}))
        .await;
    let got: Vec<&str> = r.body["data"]["fields"].as_array().map(|a| a.iter().filter_map(|f| f["verdict"].as_str()).collect()).unwrap_or_default();
    assert_eq!(got, ["no_data", "unmatched"], "{:?}", r.body);

    // Failures: no operator for the number, the operator refusing, nothing pending, and
    // three wrong codes (the operator gives up on the code).
    let foreign = c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": "+14155550100"})).await;
    assert_eq!((foreign.status, foreign.code()), (200, Some("unsupported_telco")), "{:?}", foreign.body);
    let blocked = c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": BLOCKED})).await;
    assert_eq!((blocked.status, blocked.code()), (200, Some("failed_to_send_otp")), "{:?}", blocked.body);
    let never = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": "+84987654321", "otp": "1234"})).await;
    assert_eq!((never.status, never.code()), (200, Some("otp_expired")), "{:?}", never.body);
    c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": "+84987654321"})).await;
    let mut last = None;
    for attempt in 0..3 {
        let r = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": "+84987654321", "otp": "0000"})).await;
        if attempt < 2 {
            assert_eq!(r.code(), Some("incorrect_otp"), "attempt {attempt}");
        }
        last = Some(r);
    }
    assert_eq!(last.and_then(|r| r.code().map(str::to_string)).as_deref(), Some("failed_to_verify_otp"));

    // At-least-once delivery: the same send_otp and verify_otp jobs handled twice (a
    // worker died after doing the work, before storing the result) answer success both
    // times, and the subscriber gets one SMS.
    let handler = idv_workers::sim::SimHandler {
        store: h.backends.store.clone(),
        sealer: h.backends.sealer.clone(),
        session_key_secret: idv_crypto::derive_key(&h.settings.master_key().expect("master key"), "idv/sim-session-key/v1"),
        telcos: Some(Arc::new(idv_workers::sim::Telcos::load(&file).expect("telcos"))),
    };
    let job = |op: idv_schemas::ops::Operation, id: &str, payload: Value| idv_schemas::jobs::Job {
        schema_version: idv_schemas::jobs::JOB_SCHEMA_VERSION,
        request_id: id.into(),
        operation: op,
        client_id: "redelivery-client".into(),
        access_key_id: "ak".into(),
        reply_to: "i".into(),
        created_at: "t".into(),
        payload,
    };
    use idv_workers::runtime::JobHandler as _;
    let number = "+84982222222";
    let before = *op.codes_sent.lock().unwrap_or_else(|e| e.into_inner());
    let send = job(idv_schemas::ops::Operation::SimSendOtp, "send-1", json!({"phone_number": number}));
    for round in 0..2 {
        let env = handler.handle(&send).await.expect("handle");
        assert_eq!(env.body["data"]["status"], "success", "round {round}: {:?}", env.body);
    }
    assert_eq!(*op.codes_sent.lock().unwrap_or_else(|e| e.into_inner()), before + 1, "one SMS for one request");
    let verify = job(idv_schemas::ops::Operation::SimVerifyOtp, "verify-1", json!({"phone_number": number, "otp": code_of(number)}));
    for round in 0..2 {
        let env = handler.handle(&verify).await.expect("handle");
        assert_eq!(env.body["data"]["status"], "success", "round {round}: {:?}", env.body);
    }
    // A different request presenting the same code is a reuse.
    let reuse = job(idv_schemas::ops::Operation::SimVerifyOtp, "verify-2", json!({"phone_number": number, "otp": code_of(number)}));
    assert_eq!(handler.handle(&reuse).await.expect("handle").first_error_code(), Some("otp_already_used"));
    h.stop().await;

    // Without an operator file, SIM verification is "not performed".
    let h = Harness::start(bus_url, |_| {}).await;
    let acme = h.create_key("acme").await;
    let r = h.client.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": SUBSCRIBER})).await;
    assert_eq!((r.status, r.body["errors"][0]["detail"]["reason"].as_str()), (500, Some("not_performed")), "{:?}", r.body);
    h.stop().await;
}
