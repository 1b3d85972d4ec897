//! SIM verification end to end over HTTP, against operator simulators that speak the
//! CAMARA APIs the SIM worker calls (OAuth2 client credentials, One Time Password SMS,
//! KYC Match, Device Swap, Call Forwarding Signal, Subscription Status, Device
//! Reachability Status, Number Recycling) with the request and error shapes of their
//! specifications. Answers are set per number (`Line`); every request is counted per
//! path, so a test can assert which operator calls a request made (none for a malformed
//! OTP). A second simulator offers only some APIs (the rest 404, one 501). No real
//! operator is reachable from here; this shows the service's side of the protocol, its
//! session rules and every failure code, not any operator's behaviour.

use crate::Harness;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const SUBSCRIBER: &str = "+84981234567";
const BLOCKED: &str = "+84980000000";
/// A subscriber of the second operator (prefix +8497), which offers fewer APIs.
const SMALL_SUBSCRIBER: &str = "+84971234567";
const TOKEN: &str = "operator-token-1";

const SEND_CODE: &str = "/one-time-password-sms/v1/send-code";
const VALIDATE_CODE: &str = "/one-time-password-sms/v1/validate-code";
const KYC_MATCH: &str = "/kyc-match/v0.3/match";
const DEVICE_SWAP: &str = "/device-swap/v1/check";
const CALL_FORWARDINGS: &str = "/call-forwarding-signal/v0.3/call-forwardings";
const UNCONDITIONAL: &str = "/call-forwarding-signal/v0.3/unconditional-call-forwardings";
const SUBSCRIPTION_STATUS: &str = "/subscription-status/v0.1/retrive-subscription-status";
const REACHABILITY: &str = "/device-reachability-status/v1/retrieve";
const NUMBER_RECYCLING: &str = "/number-recycling/v0.2/check";

/// What the operator's network APIs hold about one number; tests set it per number. A
/// number without a line is unknown to those APIs (404 IDENTIFIER_NOT_FOUND).
#[derive(Clone)]
struct Line {
    /// KYC record: idDocument, name, birthdate; none: KYC Match answers not_available.
    kyc: Option<(&'static str, &'static str, &'static str)>,
    /// Days since the device (IMEI) last changed.
    device_swapped_days_ago: Option<i64>,
    /// Call Forwarding Signal's list: `inactive`, or the kinds set up.
    forwardings: Vec<&'static str>,
    /// Subscription Status: voice/SMS inbound, outbound.
    voice_sms: (&'static str, &'static str),
    /// Device Reachability Status, and how many days ago it was last updated.
    reachable: bool,
    status_days_ago: i64,
    /// Days since the number changed subscriber.
    recycled_days_ago: Option<i64>,
}

impl Default for Line {
    fn default() -> Self {
        Line {
            kyc: None,
            device_swapped_days_ago: None,
            forwardings: vec!["inactive"],
            voice_sms: ("active", "active"),
            reachable: true,
            status_days_ago: 0,
            recycled_days_ago: None,
        }
    }
}

#[derive(Default)]
struct Operator {
    /// Put before the 4 digits of a code: the second operator texts 6 letters and digits.
    code_prefix: &'static str,
    /// authenticationId → (phone, code, wrong attempts)
    pending: Mutex<HashMap<String, (String, String, u32)>>,
    /// phone → last code sent (what the subscriber's phone would show)
    inbox: Mutex<HashMap<String, String>>,
    codes_sent: Mutex<u32>,
    /// Requests per path (served or not).
    calls: Mutex<HashMap<String, u32>>,
    lines: Mutex<HashMap<String, Line>>,
}

impl Operator {
    fn calls(&self, path: &str) -> u32 {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).get(path).copied().unwrap_or(0)
    }

    fn set_line(&self, phone: &str, line: Line) {
        self.lines.lock().unwrap_or_else(|e| e.into_inner()).insert(phone.into(), line);
    }

    fn line(&self, phone: &Value) -> Option<Line> {
        self.lines.lock().unwrap_or_else(|e| e.into_inner()).get(phone.as_str()?).cloned()
    }
}

async fn count_calls(State(op): State<Arc<Operator>>, req: Request, next: Next) -> Response {
    *op.calls.lock().unwrap_or_else(|e| e.into_inner()).entry(req.uri().path().to_string()).or_default() += 1;
    next.run(req).await
}

/// A bus message's text (JSON, or a key) with the values the service generates itself
/// blanked: UUIDs (alone or after a prefix, "ingest-<uuid>") and RFC 3339 times. A
/// four-digit OTP turns up inside them by chance ("…T19:12:43.940011764Z" holds "4001":
/// a CI run failed so), and they carry nothing of a request; every other value is
/// searched as sent.
fn generated_values_blanked(text: &str) -> String {
    fn generated(s: &str) -> bool {
        let uuid_tail = s.len() >= 36 && s.get(s.len() - 36..).is_some_and(|t| uuid::Uuid::parse_str(t).is_ok());
        let time = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).is_ok();
        uuid_tail || time
    }
    fn blank(v: &mut Value) {
        match v {
            Value::String(s) if generated(s) => *s = String::new(),
            Value::Array(items) => items.iter_mut().for_each(blank),
            Value::Object(fields) => fields.values_mut().for_each(blank),
            _ => {}
        }
    }
    match serde_json::from_str::<Value>(text) {
        Ok(mut v) => {
            blank(&mut v);
            v.to_string()
        }
        Err(_) if generated(text) => String::new(),
        Err(_) => text.to_string(),
    }
}

fn camara_error(status: StatusCode, code: &str) -> Response {
    (status, Json(json!({"status": status.as_u16(), "code": code, "message": code}))).into_response()
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

/// CAMARA request-body strictness: an object with only `allowed` keys, `phoneNumber`
/// (or `device.phoneNumber`) in E.164.
fn well_formed(body: &Value, allowed: &[&str]) -> bool {
    let Some(o) = body.as_object() else { return false };
    let phone = body["phoneNumber"].as_str().or_else(|| body["device"]["phoneNumber"].as_str());
    o.keys().all(|k| allowed.contains(&k.as_str())) && phone.is_some_and(|p| p.starts_with('+') && p.len() > 5)
}

/// Checks common to the network APIs: the token, the body, the number known. `Err`: the
/// CAMARA error to answer.
fn network_api(op: &Operator, headers: &HeaderMap, body: &Value, allowed: &[&str]) -> Result<Line, (StatusCode, &'static str)> {
    if !authorized(headers) {
        return Err((StatusCode::UNAUTHORIZED, "UNAUTHENTICATED"));
    }
    if !well_formed(body, allowed) {
        return Err((StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"));
    }
    let phone = if body["device"].is_object() { &body["device"]["phoneNumber"] } else { &body["phoneNumber"] };
    op.line(phone).ok_or((StatusCode::NOT_FOUND, "IDENTIFIER_NOT_FOUND"))
}

fn today() -> time::Date {
    time::OffsetDateTime::now_utc().date()
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
    let code = format!("{}{:04}", op.code_prefix, 4000 + n);
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

async fn kyc_match(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    if !authorized(&headers) {
        return camara_error(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED");
    }
    let record = op.line(&body["phoneNumber"]).and_then(|l| l.kyc).map(|(id, name, dob)| json!({"idDocument": id, "name": name, "birthdate": dob}));
    let mut out = serde_json::Map::new();
    for (field, answer) in [("idDocument", "idDocumentMatch"), ("name", "nameMatch"), ("birthdate", "birthdateMatch")] {
        if let Some(given) = body.get(field) {
            let verdict = match &record {
                None => "not_available",
                Some(r) if *given == r[field] => "true",
                Some(_) => "false",
            };
            out.insert(answer.into(), json!(verdict));
        }
    }
    Json(Value::Object(out)).into_response()
}

async fn device_swap(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let Some(max_age) = body["maxAge"].as_i64().filter(|h| (1..=2400).contains(h)) else {
        return camara_error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT");
    };
    match network_api(&op, &headers, &body, &["phoneNumber", "maxAge"]) {
        Ok(line) => Json(json!({"swapped": line.device_swapped_days_ago.is_some_and(|d| d * 24 <= max_age)})).into_response(),
        Err((status, code)) => camara_error(status, code),
    }
}

async fn call_forwardings(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    match network_api(&op, &headers, &body, &["phoneNumber"]) {
        Ok(line) => Json(json!(line.forwardings)).into_response(),
        Err((status, code)) => camara_error(status, code),
    }
}

async fn unconditional_call_forwardings(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    match network_api(&op, &headers, &body, &["phoneNumber"]) {
        Ok(line) => Json(json!({"active": line.forwardings.contains(&"unconditional")})).into_response(),
        Err((status, code)) => camara_error(status, code),
    }
}

async fn not_implemented() -> Response {
    camara_error(StatusCode::NOT_IMPLEMENTED, "NOT_IMPLEMENTED")
}

async fn subscription_status(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    match network_api(&op, &headers, &body, &["phoneNumber"]) {
        Ok(line) => Json(json!({"voiceSmsIn": line.voice_sms.0, "voiceSmsOut": line.voice_sms.1, "dataService": "active"})).into_response(),
        Err((status, code)) => camara_error(status, code),
    }
}

async fn device_reachability(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    // The device object only: a top-level phoneNumber is not this API's.
    match network_api(&op, &headers, &body, &["device"]) {
        Ok(line) => {
            let at = time::OffsetDateTime::now_utc() - time::Duration::days(line.status_days_ago);
            let at = at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
            let mut out = json!({"reachable": line.reachable, "lastStatusTime": at});
            if line.reachable {
                out["connectivity"] = json!(["DATA", "SMS"]);
            }
            Json(out).into_response()
        }
        Err((status, code)) => camara_error(status, code),
    }
}

async fn number_recycling(State(op): State<Arc<Operator>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let Some(since) = body["specifiedDate"].as_str().and_then(|d| time::Date::parse(d, &format).ok()) else {
        return camara_error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT");
    };
    match network_api(&op, &headers, &body, &["phoneNumber", "specifiedDate"]) {
        Ok(line) => {
            let recycled = line.recycled_days_ago.is_some_and(|d| today() - time::Duration::days(d) > since);
            Json(json!({"phoneNumberRecycled": recycled})).into_response()
        }
        Err((status, code)) => camara_error(status, code),
    }
}

/// Which APIs a simulated operator serves.
#[derive(Clone, Copy, PartialEq)]
enum Offer {
    /// Every API the SIM worker calls.
    All,
    /// OTP and KYC Match; Call Forwarding Signal's list answers 501 (the spec allows it),
    /// its unconditional check works; the rest is not there (404).
    Few,
}

async fn start_operator(offer: Offer, code_prefix: &'static str) -> (String, Arc<Operator>) {
    let op = Arc::new(Operator { code_prefix, ..Default::default() });
    let mut app = Router::new()
        .route("/oauth/token", post(token))
        .route(SEND_CODE, post(send_code))
        .route(VALIDATE_CODE, post(validate_code))
        .route(KYC_MATCH, post(kyc_match))
        .route(UNCONDITIONAL, post(unconditional_call_forwardings));
    app = match offer {
        Offer::All => app
            .route(DEVICE_SWAP, post(device_swap))
            .route(CALL_FORWARDINGS, post(call_forwardings))
            .route(SUBSCRIPTION_STATUS, post(subscription_status))
            .route(REACHABILITY, post(device_reachability))
            .route(NUMBER_RECYCLING, post(number_recycling)),
        Offer::Few => app.route(CALL_FORWARDINGS, post(not_implemented)),
    };
    let app = app.layer(axum::middleware::from_fn_with_state(op.clone(), count_calls)).with_state(op.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), op)
}

/// The verdicts of a verify_info answer, by statement.
fn verdicts(body: &Value) -> Vec<(String, String)> {
    body["data"]["fields"]
        .as_array()
        .map(|a| a.iter().map(|f| (f["name"].as_str().unwrap_or("").to_string(), f["verdict"].as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default()
}

fn pairs(expect: &[(&str, &str)]) -> Vec<(String, String)> {
    expect.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// All 13 statements of the spec, in its order.
fn every_statement(id: &str, name: &str, dob: &str) -> Value {
    json!([
        {"name": "is_id", "value": id}, {"name": "is_name", "value": name}, {"name": "is_dob", "value": dob},
        {"name": "is_issue_date", "value": "01/01/2015"}, {"name": "is_port_out", "value": ""}, {"name": "is_port_in", "value": ""},
        {"name": "is_active_last_90", "value": ""}, {"name": "is_subscriber_active", "value": ""}, {"name": "has_usage_last_90", "value": ""},
        {"name": "has_changed_device_last_30", "value": ""}, {"name": "is_use_cf_service", "value": ""}, {"name": "has_changed_id_last_30", "value": ""},
        {"name": "is_top_20_contact_last_30", "value": "+84912345678"}
    ])
}

pub async fn run(bus_url: &str) {
    let (base, op) = start_operator(Offer::All, "").await;
    let (small_base, small) = start_operator(Offer::Few, "AB").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("telcos.json");
    // vtl: every API, the default OTP format (4 to 8 digits). vnp: few APIs, codes of 6
    // letters and digits, Number Recycling marked as not offered.
    let config = json!({"default_country_code": "+84", "telcos": [
        {"code": "vtl", "prefixes": ["+8498"], "base_url": base, "token_url": format!("{base}/oauth/token"),
         "client_id": "idv", "client_secret": "s3cret & more"},
        {"code": "vnp", "prefixes": ["+8497"], "base_url": small_base, "token_url": format!("{small_base}/oauth/token"),
         "client_id": "idv", "client_secret": "s3cret & more",
         "otp_format": {"min_length": 6, "max_length": 6, "charset": "alphanumeric"},
         "apis": {"number_recycling": null}}]});
    std::fs::write(&file, config.to_string()).expect("write telcos file");
    let h = Harness::start(bus_url, |s| s.telcos_file = Some(file.clone())).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let other = h.create_key("other-bank").await;
    // Everything the SIM jobs carry is read back off the topic at the end.
    let mut topic = h
        .backends
        .bus
        .subscribe(idv_schemas::ops::Topic::Sim.name(), "test-sim-topic-reader", idv_bus::StartFrom::Earliest)
        .await
        .expect("sim topic reader");
    // And every answer sent back, from now on.
    let mut results = h.backends.bus.subscribe_broadcast(idv_schemas::ops::Topic::Results.name()).await.expect("results reader");
    let code_of = |phone: &str| {
        let from = |o: &Operator| o.inbox.lock().unwrap_or_else(|e| e.into_inner()).get(phone).cloned();
        from(&op).or_else(|| from(&small)).unwrap_or_default()
    };
    // The subscriber: known to KYC, device changed 3 days ago, calls forwarded, active,
    // reachable now, the number changed hands 10 days ago.
    op.set_line(
        SUBSCRIBER,
        Line {
            kyc: Some(("079203001234", "Nguyen Van A", "1990-01-01")),
            device_swapped_days_ago: Some(3),
            forwardings: vec!["unconditional", "conditional_busy"],
            voice_sms: ("active", "active"),
            reachable: true,
            status_days_ago: 0,
            recycled_days_ago: Some(10),
        },
    );

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
    // An OTP not in the operator's format (4 to 8 digits): invalid_otp_format, and the
    // operator is not asked.
    for malformed in ["12ab", "123", "123456789", "１２３４"] {
        let r = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": malformed})).await;
        assert_eq!((r.status, r.code(), r.body["data"]["status"].as_str()), (200, Some("invalid_otp_format"), Some("failure")), "{malformed:?}: {:?}", r.body);
    }
    assert_eq!(op.calls(VALIDATE_CODE), 0, "no validate-code call for a malformed OTP");
    // Wrong code, right code, the same code again.
    let wrong = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": "0000"})).await;
    assert_eq!((wrong.status, wrong.code()), (200, Some("incorrect_otp")), "{:?}", wrong.body);
    assert_eq!(op.calls(VALIDATE_CODE), 1, "a well-formed OTP reaches the operator");
    let otp = code_of(SUBSCRIBER);
    let right = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": otp})).await;
    assert_eq!((right.status, right.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", right.body);
    let again = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SUBSCRIBER, "otp": otp})).await;
    assert_eq!((again.status, again.code()), (200, Some("otp_already_used")), "{:?}", again.body);
    // On the bus: no phone number, OTP or KYC statement in the clear, in payloads or keys.
    let mut jobs_seen = 0;
    while let Ok(Ok(d)) = tokio::time::timeout(std::time::Duration::from_secs(5), topic.recv()).await {
        let (payload, key) = (String::from_utf8_lossy(&d.payload).into_owned(), String::from_utf8_lossy(&d.key).into_owned());
        let (searched, key_searched) = (generated_values_blanked(&payload), generated_values_blanked(&key));
        for secret in ["981234567", "0981234567", otp.as_str(), "079203001234", "Tran Thi B"] {
            assert!(!searched.contains(secret) && !key_searched.contains(secret), "{secret:?} in the clear on the SIM topic: {payload}");
        }
        let job = idv_schemas::jobs::Job::decode(&d.payload).expect("a job");
        let sealed = match &job.work {
            idv_schemas::jobs::Work::SimSendOtp(idv_schemas::jobs::Personal::Sealed { sealed_payload })
            | idv_schemas::jobs::Work::SimVerifyOtp(idv_schemas::jobs::Personal::Sealed { sealed_payload })
            | idv_schemas::jobs::Work::SimVerifyInfo(idv_schemas::jobs::Personal::Sealed { sealed_payload }) => Some(sealed_payload),
            _ => None,
        };
        assert!(sealed.is_some_and(|p| p.starts_with("sealed:v1:")), "{payload}");
        jobs_seen += 1;
    }
    assert!(jobs_seen >= 8, "the SIM jobs so far were read back: {jobs_seen}");
    // The answers (which repeat the number to the client): sealed on the results topic and
    // in the request store, in the clear only in the HTTP answers above.
    assert!(right.body["data"].to_string().contains("981234567") || sent.body["data"].to_string().contains("981234567"), "the client sees the number: {:?}", right.body);
    let mut answers_seen = 0;
    while let Ok(Ok(d)) = tokio::time::timeout(std::time::Duration::from_secs(2), results.recv()).await {
        let text = String::from_utf8_lossy(&d.payload);
        let searched = generated_values_blanked(&text);
        for secret in ["981234567", otp.as_str(), "079203001234", "Tran Thi B"] {
            assert!(!searched.contains(secret), "{secret:?} in the clear on the results topic: {text}");
        }
        answers_seen += 1;
    }
    assert!(answers_seen >= 8, "the SIM answers so far were read back: {answers_seen}");
    for entry in std::fs::read_dir(&h.data_dir).expect("data dir").flatten() {
        let path = entry.path();
        if path.is_file() {
            let bytes = std::fs::read(&path).expect("data file");
            assert!(!bytes.windows(9).any(|w| w == b"981234567"), "the number in the clear at rest in {}", path.display());
        }
    }
    // Now the owner data, per field; statements with no operator API are no_data.
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &info).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let expect = [("is_id", "matched"), ("is_name", "unmatched"), ("is_dob", "matched"), ("has_changed_device_last_30", "matched"), ("is_port_out", "no_data")];
    assert_eq!(verdicts(&r.body), pairs(&expect), "{:?}", r.body);
    // Every statement: one call per operator API, each mapped statement answered.
    let before: Vec<u32> = [KYC_MATCH, DEVICE_SWAP, CALL_FORWARDINGS, UNCONDITIONAL, SUBSCRIPTION_STATUS, REACHABILITY, NUMBER_RECYCLING].map(|p| op.calls(p)).to_vec();
    let all = json!({"phone_number": SUBSCRIBER, "fields": every_statement("079203001234", "Tran Thi B", "01/01/1990")});
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &all).await;
    let expect = [
        ("is_id", "matched"), ("is_name", "unmatched"), ("is_dob", "matched"), ("is_issue_date", "no_data"),
        ("is_port_out", "no_data"), ("is_port_in", "no_data"), ("is_active_last_90", "matched"),
        ("is_subscriber_active", "matched"), ("has_usage_last_90", "no_data"), ("has_changed_device_last_30", "matched"),
        ("is_use_cf_service", "matched"), ("has_changed_id_last_30", "matched"), ("is_top_20_contact_last_30", "no_data"),
    ];
    assert_eq!(verdicts(&r.body), pairs(&expect), "{:?}", r.body);
    let after: Vec<u32> = [KYC_MATCH, DEVICE_SWAP, CALL_FORWARDINGS, UNCONDITIONAL, SUBSCRIPTION_STATUS, REACHABILITY, NUMBER_RECYCLING].map(|p| op.calls(p)).to_vec();
    let made: Vec<u32> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(made, [1, 1, 1, 0, 1, 1, 1], "one call per API (kyc, swap, cf list, cf unconditional, status, reachability, recycling)");
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

    // A number the operator serves but holds no owner data for, with the other answers
    // the other way: not_available is no_data; no device swap, no forwarding, outbound
    // suspended are unmatched; unreachable now and a number that changed hands 100 days
    // ago say nothing about 90 / 30 days: no_data.
    let stranger = "+84981111111";
    op.set_line(
        stranger,
        Line {
            kyc: None,
            device_swapped_days_ago: Some(45),
            forwardings: vec!["inactive"],
            voice_sms: ("active", "suspended"),
            reachable: false,
            status_days_ago: 0,
            recycled_days_ago: Some(100),
        },
    );
    c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": stranger})).await;
    let ok = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": stranger, "otp": code_of(stranger)})).await;
    assert_eq!(ok.body["data"]["status"], "success", "{:?}", ok.body);
    let r = c
        .call(&acme, "/v1/sim_verification_verify_info", &json!({"phone_number": stranger, "fields": [{"name": "is_id", "value": "1"}, {"name": "has_changed_device_last_30", "value": ""}]}))
        .await;
    let got: Vec<&str> = r.body["data"]["fields"].as_array().map(|a| a.iter().filter_map(|f| f["verdict"].as_str()).collect()).unwrap_or_default();
    assert_eq!(got, ["no_data", "unmatched"], "{:?}", r.body);
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &json!({"phone_number": stranger, "fields": every_statement("1", "X", "02/02/1992")})).await;
    let expect = [
        ("is_id", "no_data"), ("is_name", "no_data"), ("is_dob", "no_data"), ("is_issue_date", "no_data"),
        ("is_port_out", "no_data"), ("is_port_in", "no_data"), ("is_active_last_90", "no_data"),
        ("is_subscriber_active", "unmatched"), ("has_usage_last_90", "no_data"), ("has_changed_device_last_30", "unmatched"),
        ("is_use_cf_service", "unmatched"), ("has_changed_id_last_30", "no_data"), ("is_top_20_contact_last_30", "no_data"),
    ];
    assert_eq!(verdicts(&r.body), pairs(&expect), "{:?}", r.body);
    // The operator's record of this number disappears (404 IDENTIFIER_NOT_FOUND from each
    // network API): no_data for those statements, not a failure of the request.
    op.lines.lock().unwrap_or_else(|e| e.into_inner()).remove(stranger);
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &json!({"phone_number": stranger, "fields": every_statement("1", "X", "02/02/1992")})).await;
    assert_eq!(r.body["data"]["status"], "success", "{:?}", r.body);
    assert!(verdicts(&r.body).iter().all(|(_, v)| v == "no_data"), "{:?}", r.body);

    // The second operator: its own OTP format, and the APIs it lacks answer no_data.
    small.set_line(SMALL_SUBSCRIBER, Line { kyc: Some(("012345678901", "Le Thi C", "1985-05-05")), forwardings: vec!["unconditional"], ..Line::default() });
    let sent = c.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": SMALL_SUBSCRIBER})).await;
    assert_eq!(sent.body["data"]["telco"], "vnp", "{:?}", sent.body);
    let r = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SMALL_SUBSCRIBER, "otp": "1234"})).await;
    assert_eq!(r.code(), Some("invalid_otp_format"), "vnp codes are 6 letters and digits: {:?}", r.body);
    assert_eq!(small.calls(VALIDATE_CODE), 0);
    let r = c.call(&acme, "/v1/sim_verification_verify_otp", &json!({"phone_number": SMALL_SUBSCRIBER, "otp": code_of(SMALL_SUBSCRIBER)})).await;
    assert_eq!(r.body["data"]["status"], "success", "{:?}", r.body);
    let small_all = json!({"phone_number": SMALL_SUBSCRIBER, "fields": every_statement("012345678901", "Le Thi C", "05/05/1985")});
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &small_all).await;
    let expect = [
        ("is_id", "matched"), ("is_name", "matched"), ("is_dob", "matched"), ("is_issue_date", "no_data"),
        ("is_port_out", "no_data"), ("is_port_in", "no_data"), ("is_active_last_90", "no_data"),
        ("is_subscriber_active", "no_data"), ("has_usage_last_90", "no_data"), ("has_changed_device_last_30", "no_data"),
        // The list is 501 there; the unconditional check says forwarding is on.
        ("is_use_cf_service", "matched"), ("has_changed_id_last_30", "no_data"), ("is_top_20_contact_last_30", "no_data"),
    ];
    assert_eq!(verdicts(&r.body), pairs(&expect), "{:?}", r.body);
    assert_eq!((small.calls(CALL_FORWARDINGS), small.calls(UNCONDITIONAL)), (1, 1));
    assert_eq!((small.calls(DEVICE_SWAP), small.calls(SUBSCRIPTION_STATUS), small.calls(REACHABILITY)), (1, 1, 1), "asked, answered 404");
    assert_eq!(small.calls(NUMBER_RECYCLING), 0, "configured as not offered: never called");
    // Unconditional forwarding off: conditional forwarding is unknown, so no_data.
    small.set_line(SMALL_SUBSCRIBER, Line { forwardings: vec!["conditional_busy"], ..Line::default() });
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &json!({"phone_number": SMALL_SUBSCRIBER, "fields": [{"name": "is_use_cf_service", "value": ""}]})).await;
    assert_eq!(verdicts(&r.body), pairs(&[("is_use_cf_service", "no_data")]), "{:?}", r.body);

    // Phone numbers: a malformed one is the caller's error (400 naming the field), a
    // well-formed one no operator serves is unsupported_telco.
    for op_path in ["/v1/sim_verification_send_otp", "/v1/sim_verification_verify_otp"] {
        for bad in ["12345abc", "981234567", "+0123456", "+84 98 1234 5678 9012"] {
            let mut body = json!({"phone_number": bad});
            if op_path.ends_with("verify_otp") {
                body["otp"] = json!("1234");
            }
            let r = c.call(&acme, op_path, &body).await;
            assert_eq!(
                (r.status, r.code(), r.body["errors"][0]["detail"]["field"].as_str()),
                (400, Some("invalid_parameter_exception"), Some("phone_number")),
                "{op_path} {bad}: {:?}",
                r.body
            );
        }
    }
    let r = c.call(&acme, "/v1/sim_verification_verify_info", &json!({"phone_number": "12345abc", "fields": [{"name": "is_id", "value": "1"}]})).await;
    assert_eq!((r.status, r.code()), (200, Some("invalid_phone_number")), "verify_info has its own code: {:?}", r.body);

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
    let session_key_secret = idv_crypto::derive_key(&h.settings.master_key().expect("master key"), "idv/sim-session-key/v1");
    let handler = idv_workers::sim::SimHandler {
        store: h.backends.store.clone(),
        sealer: h.backends.sealer.clone(),
        session_key_secret: session_key_secret.clone(),
        telcos: Some(Arc::new(idv_workers::sim::Telcos::load(&file).expect("telcos"))),
    };
    let job = |op: idv_schemas::ops::Operation, id: &str, payload: Value| idv_schemas::jobs::Job {
        schema_version: idv_schemas::jobs::JOB_SCHEMA_VERSION,
        request_id: id.into(),
        client_id: "redelivery-client".into(),
        access_key_id: "ak".into(),
        reply_to: "i".into(),
        created_at: "t".into(),
        work: idv_schemas::jobs::Work::decode(op, payload).expect("a SIM payload").expect("a SIM operation"),
    };
    use idv_jobs::runtime::JobHandler as _;
    let number = "+84982222222";
    let before = *op.codes_sent.lock().unwrap_or_else(|e| e.into_inner());
    let send = job(idv_schemas::ops::Operation::SimSendOtp, "send-1", json!({"phone_number": number}));
    for round in 0..2 {
        let env = handler.handle(&send).await.expect("handle");
        assert_eq!(env.body["data"]["status"], "success", "round {round}: {:?}", env.body);
    }
    assert_eq!(*op.codes_sent.lock().unwrap_or_else(|e| e.into_inner()), before + 1, "one SMS for one request");
    let verify = job(idv_schemas::ops::Operation::SimVerifyOtp, "verify-1", json!({"phone_number": number, "otp": code_of(number)}));
    let validations = op.calls(VALIDATE_CODE);
    for round in 0..2 {
        let env = handler.handle(&verify).await.expect("handle");
        assert_eq!(env.body["data"]["status"], "success", "round {round}: {:?}", env.body);
    }
    assert_eq!(op.calls(VALIDATE_CODE), validations + 1, "one validate-code for one request");
    // A different request presenting the same code is a reuse.
    let reuse = job(idv_schemas::ops::Operation::SimVerifyOtp, "verify-2", json!({"phone_number": number, "otp": code_of(number)}));
    assert_eq!(handler.handle(&reuse).await.expect("handle").first_error_code(), Some("otp_already_used"));
    // The operator unreachable during verify_info (nothing listens there): the request
    // fails as before, it is not answered no_data.
    let down = dir.path().join("telcos-down.json");
    let mut down_config = config.clone();
    down_config["telcos"][0]["base_url"] = json!("http://127.0.0.1:9");
    down_config["telcos"][0]["token_url"] = json!("http://127.0.0.1:9/oauth/token");
    std::fs::write(&down, down_config.to_string()).expect("write telcos file");
    let unreachable = idv_workers::sim::SimHandler {
        store: h.backends.store.clone(),
        sealer: h.backends.sealer.clone(),
        session_key_secret,
        telcos: Some(Arc::new(idv_workers::sim::Telcos::load(&down).expect("telcos"))),
    };
    let info_job = job(idv_schemas::ops::Operation::SimVerifyInfo, "info-1", json!({"phone_number": number, "fields": [{"name": "is_subscriber_active", "value": ""}]}));
    assert_eq!(unreachable.handle(&info_job).await.expect("handle").first_error_code(), Some("failed_to_verify_info"));
    let env = handler.handle(&info_job).await.expect("handle");
    assert_eq!(env.body["data"]["fields"][0]["verdict"], "no_data", "reachable, no line for this number: {:?}", env.body);

    // The workers' one JobHandler suite on the SIM handler: every operation answered the
    // same when repeated, with no second operator call (the simulator counts them all).
    let fresh = "+84983333333";
    let cases = vec![
        idv_jobs::conformance::Case::new("send_otp", job(idv_schemas::ops::Operation::SimSendOtp, "c-send", json!({"phone_number": fresh}))),
        idv_jobs::conformance::Case::new("verify_otp", job(idv_schemas::ops::Operation::SimVerifyOtp, "c-verify", json!({"phone_number": fresh, "otp": code_of(fresh)}))),
        idv_jobs::conformance::Case::new(
            "verify_info",
            job(idv_schemas::ops::Operation::SimVerifyInfo, "c-info", json!({"phone_number": fresh, "fields": [{"name": "is_subscriber_active", "value": ""}]})),
        ),
        idv_jobs::conformance::Case::new("verify_otp, malformed", job(idv_schemas::ops::Operation::SimVerifyOtp, "c-bad", json!({"phone_number": fresh, "otp": "12ab"}))),
    ];
    let probe = op.clone();
    idv_jobs::conformance::run_suite(Arc::new(handler), h.backends.store.clone(), cases, move || {
        let op = probe.clone();
        async move {
            let mut calls: Vec<(String, u32)> = op.calls.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(k, v)| (k.clone(), *v)).collect();
            calls.sort();
            format!("{calls:?} sms={}", *op.codes_sent.lock().unwrap_or_else(|e| e.into_inner()))
        }
    })
    .await;
    h.stop().await;

    // Without an operator file, SIM verification is "not performed".
    let h = Harness::start(bus_url, |_| {}).await;
    let acme = h.create_key("acme").await;
    let r = h.client.call(&acme, "/v1/sim_verification_send_otp", &json!({"phone_number": SUBSCRIBER})).await;
    // The status is the error table's for "not performed" (schemas/src/error.rs).
    let (status, _) = idv_schemas::ErrorKind::NotAvailable { reason: String::new() }.code_and_status(idv_schemas::Group::Sim);
    assert_eq!((r.status, r.body["errors"][0]["detail"]["reason"].as_str()), (status, Some("not_performed")), "{:?}", r.body);
    h.stop().await;
}

#[cfg(test)]
mod tests {
    /// Generated values (UUIDs, an "ingest-" reply topic, RFC 3339 times) are blanked;
    /// must-fail twins: a phone number, a name, a sealed payload and a plain key stay.
    #[test]
    fn only_generated_values_are_blanked() {
        let text = r#"{"request_id":"8ad76028-4eac-45c7-af2b-7f198aa41f01","reply_to":"ingest-f294a9d6-e26d-4c2b-b6ac-9897b3965035","created_at":"2026-12-07T19:12:43.940011764Z","payload":{"phone":"0981234567","name":"Tran Thi B","sealed_payload":"sealed:v1:AQAA4001"}}"#;
        let searched = super::generated_values_blanked(text);
        assert!(!searched.contains("4001764") && !searched.contains("8ad76028") && !searched.contains("f294a9d6"), "{searched}");
        for kept in ["0981234567", "Tran Thi B", "sealed:v1:AQAA4001"] {
            assert!(searched.contains(kept), "{kept}: {searched}");
        }
        assert_eq!(super::generated_values_blanked("0981234567"), "0981234567");
        assert_eq!(super::generated_values_blanked("8ad76028-4eac-45c7-af2b-7f198aa41f01"), "");
    }
}
