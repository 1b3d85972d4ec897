//! SIM verification (`sim_verification_send_otp`, `_verify_otp`, `_verify_info`) through
//! the telecom operators' GSMA Open Gateway / CAMARA APIs:
//!
//! | spec | CAMARA |
//! |---|---|
//! | send_otp | One Time Password SMS `POST /one-time-password-sms/v1/send-code` |
//! | verify_otp | same API, `POST /one-time-password-sms/v1/validate-code` |
//! | verify_info `is_id`, `is_name`, `is_dob` | KYC Match `POST /kyc-match/v0.3/match` |
//! | verify_info `has_changed_device_last_30` | Device Swap `POST /device-swap/v1/check` (maxAge 720 h) |
//! | the other verify_info names | no CAMARA API: verdict `no_data` |
//!
//! Operators come from a JSON file (`IDV_TELCOS_FILE`, format in docs/API.md "SIM
//! verification"): each has a `code`, the E.164 prefixes it serves, its API base URL and
//! OAuth2 client credentials. Without the file every SIM operation answers "not
//! performed"; with it, a number no operator serves is `unsupported_telco`.
//!
//! State per (client, number) is a sealed session in the store (`Store::put_session`,
//! compare-and-set): `sent` (5 min, holds the operator's `authenticationId`), then
//! `verified` (15 min: verify_info is allowed only in this window, so owner data is
//! released only to whoever proved possession of the SIM). The session key is an HMAC
//! under a key derived from the master key: no phone number can be read back from it.

use crate::runtime::JobHandler;
use async_trait::async_trait;
use idv_crypto::sealed::Sealer;
use idv_schemas::api::{SimSendOtpRequest, SimVerifyInfoRequest, SimVerifyOtpRequest};
use idv_schemas::jobs::Job;
use idv_schemas::ops::Operation;
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group};
use idv_store::{SessionRecord, Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long an OTP may be verified after it was sent.
pub const OTP_TTL_SECS: i64 = 5 * 60;
/// How long verify_info is allowed after a verified OTP.
pub const VERIFIED_TTL_SECS: i64 = 15 * 60;
/// Operator API calls time out after this.
pub const TELCO_TIMEOUT: Duration = Duration::from_secs(10);

/// One operator, as configured.
#[derive(Debug, Clone, Deserialize)]
pub struct TelcoConfig {
    /// The code returned as `telco`.
    pub code: String,
    /// E.164 prefixes (with `+`) of the numbers it serves.
    pub prefixes: Vec<String>,
    /// Base URL of its CAMARA APIs (`https://api.operator.example`).
    pub base_url: String,
    /// OAuth2 token endpoint for the client-credentials grant; none: no Authorization.
    #[serde(default)]
    pub token_url: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub client_secret: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TelcosFile {
    /// Prefix for national numbers written with a leading 0 (e.g. `+84`).
    #[serde(default)]
    pub default_country_code: Option<String>,
    pub telcos: Vec<TelcoConfig>,
}

/// The configured operators and an HTTP client to reach them.
pub struct Telcos {
    file: TelcosFile,
    http: reqwest::Client,
    tokens: Mutex<std::collections::HashMap<String, (String, Instant)>>,
}

#[derive(Debug, thiserror::Error)]
pub enum TelcoError {
    #[error("operator unreachable or failed: {0}")]
    Transport(String),
    /// The operator answered with a CAMARA error code.
    #[error("operator refused: {status} {code}")]
    Refused { status: u16, code: String },
}

/// What validate-code said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtpCheck {
    Valid,
    Invalid,
    Expired,
    TooManyAttempts,
}

/// E.164 form of `raw` (spaces, dashes, dots and parentheses dropped; `00` and a national
/// leading `0` rewritten), or `None` when it is not a phone number. Pure.
pub fn normalize_number(raw: &str, default_country_code: Option<&str>) -> Option<String> {
    let compact: String = raw.chars().filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')')).collect();
    let e164 = if let Some(rest) = compact.strip_prefix('+') {
        format!("+{rest}")
    } else if let Some(rest) = compact.strip_prefix("00") {
        format!("+{rest}")
    } else if let (Some(rest), Some(cc)) = (compact.strip_prefix('0'), default_country_code) {
        format!("{cc}{rest}")
    } else {
        return None;
    };
    let digits = &e164[1..];
    let ok = (5..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0');
    ok.then_some(e164)
}

/// `dd/MM/yyyy` → `yyyy-MM-dd` (CAMARA's date form). Pure.
pub fn camara_date(ddmmyyyy: &str) -> Option<String> {
    let parts: Vec<&str> = ddmmyyyy.trim().split('/').collect();
    let [d, m, y] = parts.as_slice() else { return None };
    let (d, m, y) = idv_cards::checked_date(d, m, y)?;
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

#[derive(Deserialize)]
struct CamaraError {
    #[serde(default)]
    code: String,
}

impl Telcos {
    pub fn load(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: TelcosFile = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::new(file)
    }

    pub fn new(file: TelcosFile) -> Result<Self, String> {
        if file.telcos.is_empty() {
            return Err("the telcos file lists no operator".into());
        }
        let mut codes: Vec<&str> = file.telcos.iter().map(|t| t.code.as_str()).collect();
        codes.sort_unstable();
        if codes.windows(2).any(|w| w[0] == w[1]) {
            return Err("operator codes must be unique in the telcos file".into());
        }
        for t in &file.telcos {
            if t.prefixes.iter().any(|p| !(p.len() > 1 && p.starts_with('+') && p[1..].bytes().all(|b| b.is_ascii_digit()))) {
                return Err(format!("operator {}: prefixes must be E.164 (+country code...)", t.code));
            }
        }
        let http = reqwest::Client::builder().timeout(TELCO_TIMEOUT).build().map_err(|e| e.to_string())?;
        Ok(Telcos { file, http, tokens: Mutex::new(Default::default()) })
    }

    pub fn normalize(&self, raw: &str) -> Option<String> {
        normalize_number(raw, self.file.default_country_code.as_deref())
    }

    /// The operator serving `e164` (longest matching prefix).
    pub fn for_number(&self, e164: &str) -> Option<&TelcoConfig> {
        self.file
            .telcos
            .iter()
            .filter_map(|t| t.prefixes.iter().filter(|p| e164.starts_with(p.as_str())).map(|p| (p.len(), t)).max_by_key(|(n, _)| *n))
            .max_by_key(|(n, _)| *n)
            .map(|(_, t)| t)
    }

    async fn token(&self, t: &TelcoConfig) -> Result<Option<String>, TelcoError> {
        let Some(url) = &t.token_url else { return Ok(None) };
        if let Some((tok, until)) = self.tokens.lock().unwrap_or_else(|e| e.into_inner()).get(&t.code) {
            if Instant::now() < *until {
                return Ok(Some(tok.clone()));
            }
        }
        let form = [
            ("grant_type", "client_credentials"),
            ("client_id", t.client_id.as_deref().unwrap_or_default()),
            ("client_secret", t.client_secret.as_deref().unwrap_or_default()),
        ];
        let body = serde_urlencoded_pairs(&form);
        let resp = self
            .http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| TelcoError::Transport(format!("token: {}", e.without_url())))?;
        if !resp.status().is_success() {
            return Err(TelcoError::Refused { status: resp.status().as_u16(), code: "token".into() });
        }
        let v: Value = resp.json().await.map_err(|e| TelcoError::Transport(format!("token: {}", e.without_url())))?;
        let tok = v["access_token"].as_str().ok_or_else(|| TelcoError::Transport("token: no access_token".into()))?.to_string();
        // Refresh a minute early.
        // Refresh a minute early; never trust a lifetime over a day (some servers send huge
        // values for "never").
        let ttl = v["expires_in"].as_u64().unwrap_or(300).min(86_400).saturating_sub(60).max(1);
        let until = Instant::now().checked_add(Duration::from_secs(ttl)).unwrap_or_else(Instant::now);
        self.tokens.lock().unwrap_or_else(|e| e.into_inner()).insert(t.code.clone(), (tok.clone(), until));
        Ok(Some(tok))
    }

    /// POST `body` to `path` of the operator's API: Ok((status, JSON body or Null)). A 401
    /// drops the cached token and retries once with a fresh one (tokens get revoked).
    async fn call(&self, t: &TelcoConfig, path: &str, body: &Value) -> Result<(u16, Value), TelcoError> {
        let mut retried = false;
        loop {
            let mut req = self.http.post(format!("{}{path}", t.base_url.trim_end_matches('/'))).json(body);
            if let Some(tok) = self.token(t).await? {
                req = req.bearer_auth(tok);
            }
            req = req.header("x-correlator", uuid::Uuid::new_v4().to_string());
            // Errors without the URL: it names the operator's host, which clients need not see.
            let resp = req.send().await.map_err(|e| TelcoError::Transport(format!("{path}: {}", e.without_url())))?;
            let status = resp.status().as_u16();
            if status == 401 && t.token_url.is_some() && !retried {
                self.tokens.lock().unwrap_or_else(|e| e.into_inner()).remove(&t.code);
                retried = true;
                continue;
            }
            let text = resp.text().await.map_err(|e| TelcoError::Transport(format!("{path}: {}", e.without_url())))?;
            return Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)));
        }
    }

    fn refused(status: u16, body: &Value) -> TelcoError {
        let code = serde_json::from_value::<CamaraError>(body.clone()).map(|e| e.code).unwrap_or_default();
        TelcoError::Refused { status, code }
    }

    pub async fn send_code(&self, t: &TelcoConfig, e164: &str) -> Result<String, TelcoError> {
        let body = json!({"phoneNumber": e164, "message": "{{code}} is your verification code"});
        let (status, v) = self.call(t, "/one-time-password-sms/v1/send-code", &body).await?;
        match (status, v["authenticationId"].as_str()) {
            (200..=299, Some(id)) if !id.is_empty() && id.len() <= 64 => Ok(id.to_string()),
            _ => Err(Self::refused(status, &v)),
        }
    }

    pub async fn validate_code(&self, t: &TelcoConfig, authentication_id: &str, code: &str) -> Result<OtpCheck, TelcoError> {
        let body = json!({"authenticationId": authentication_id, "code": code});
        let (status, v) = self.call(t, "/one-time-password-sms/v1/validate-code", &body).await?;
        if (200..=299).contains(&status) {
            return Ok(OtpCheck::Valid);
        }
        match Self::refused(status, &v) {
            TelcoError::Refused { status: 400, code } if code == "ONE_TIME_PASSWORD_SMS.INVALID_OTP" => Ok(OtpCheck::Invalid),
            TelcoError::Refused { status: 400, code } if code == "ONE_TIME_PASSWORD_SMS.VERIFICATION_EXPIRED" => Ok(OtpCheck::Expired),
            TelcoError::Refused { status: 400, code } if code == "ONE_TIME_PASSWORD_SMS.VERIFICATION_FAILED" => Ok(OtpCheck::TooManyAttempts),
            other => Err(other),
        }
    }

    /// KYC Match: the operator's `…Match` answers (`"true"`, `"false"`, `"not_available"`).
    pub async fn kyc_match(&self, t: &TelcoConfig, body: &Value) -> Result<Value, TelcoError> {
        let (status, v) = self.call(t, "/kyc-match/v0.3/match", body).await?;
        if (200..=299).contains(&status) && v.is_object() {
            Ok(v)
        } else {
            Err(Self::refused(status, &v))
        }
    }

    pub async fn device_swapped(&self, t: &TelcoConfig, e164: &str, max_age_hours: u32) -> Result<bool, TelcoError> {
        let (status, v) = self.call(t, "/device-swap/v1/check", &json!({"phoneNumber": e164, "maxAge": max_age_hours})).await?;
        match (status, v["swapped"].as_bool()) {
            (200..=299, Some(b)) => Ok(b),
            _ => Err(Self::refused(status, &v)),
        }
    }
}

/// `application/x-www-form-urlencoded` for a few ASCII-safe pairs.
fn serde_urlencoded_pairs(pairs: &[(&str, &str)]) -> String {
    fn enc(s: &str) -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    }
    pairs.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&")
}

/// The sealed content of a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SimSession {
    telco: String,
    authentication_id: String,
    /// `sent` or `verified`.
    state: String,
    /// The send_otp request that created it, and the verify_otp request that verified
    /// it: a redelivered job finds its own work done and answers as the first time.
    sent_by: String,
    #[serde(default)]
    verified_by: String,
}

pub struct SimHandler {
    pub store: Arc<dyn Store>,
    pub sealer: Sealer,
    /// Keys session names (HMAC of client and number), derived from the master key.
    pub session_key_secret: Vec<u8>,
    /// `None`: no operator configured, every SIM operation is "not performed".
    pub telcos: Option<Arc<Telcos>>,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

fn fail(data: Value, code: FailureCode, message: impl Into<String>) -> Envelope {
    let mut data = data;
    data["status"] = json!("failure");
    Envelope::finished(Group::Sim, data, vec![ApiError::failure(code, message)])
}

/// The job's request, and the answer's common part (`status`, `phone_number`,
/// `request_id`); `Err` with the answer when the payload is not that request.
fn request<T: serde::de::DeserializeOwned>(job: &Job, phone: impl Fn(&T) -> &String) -> Result<(T, Value), Envelope> {
    let req: T = serde_json::from_value(job.payload.clone())
        .map_err(|_| Envelope::error(Group::Sim, &ErrorKind::Internal { message: "bad job payload".into() }))?;
    let data = json!({"status": "success", "phone_number": phone(&req), "request_id": job.request_id});
    Ok((req, data))
}

impl SimHandler {
    fn session_key(&self, client_id: &str, e164: &str) -> String {
        format!("sim:{}", idv_crypto::hmac_hex(&self.session_key_secret, format!("{client_id}\0{e164}").as_bytes()))
    }

    async fn load(&self, key: &str) -> Result<Option<(SessionRecord, SimSession)>, StoreError> {
        let Some(rec) = self.store.get_session(key).await? else { return Ok(None) };
        let opened = self.sealer.open(&rec.data, key.as_bytes()).ok().and_then(|b| serde_json::from_slice::<SimSession>(&b).ok());
        Ok(opened.map(|s| (rec, s)))
    }

    async fn save(&self, key: &str, s: &SimSession, ttl: i64, expected: Option<i64>) -> Result<bool, StoreError> {
        let data = self.sealer.seal(&serde_json::to_vec(s).unwrap_or_default(), key.as_bytes());
        // A new session's version is the clock in ms, not 1: an update that read an older
        // session (since expired and replaced) cannot match the new one's version.
        let version = expected.map_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(1), |v| v + 1);
        self.store.put_session(&SessionRecord { key: key.into(), version, data, expires_at: now() + ttl }, expected).await
    }

    async fn send_otp(&self, telcos: &Telcos, job: &Job) -> Result<Envelope, StoreError> {
        let (req, data) = match request::<SimSendOtpRequest>(job, |r| &r.phone_number) {
            Ok(x) => x,
            Err(env) => return Ok(env),
        };
        let Some(e164) = telcos.normalize(&req.phone_number) else {
            return Ok(fail(data, FailureCode::UnsupportedTelco, "not a phone number any configured operator serves"));
        };
        let Some(telco) = telcos.for_number(&e164) else {
            return Ok(fail(data, FailureCode::UnsupportedTelco, "no configured operator serves this number"));
        };
        let key = self.session_key(&job.client_id, &e164);
        let existing = self.load(&key).await?;
        if existing.as_ref().is_some_and(|(_, s)| s.sent_by == job.request_id) {
            // This very request already sent the SMS (a redelivered job): do not send again.
            let mut data = data;
            data["telco"] = json!(telco.code);
            return Ok(Envelope::ok(Group::Sim, data));
        }
        let authentication_id = match telcos.send_code(telco, &e164).await {
            Ok(id) => id,
            Err(e) => {
                tracing::warn!(telco = %telco.code, error = %e, "send-code failed");
                return Ok(fail(data, FailureCode::FailedToSendOtp, "the operator did not send the OTP"));
            }
        };
        let session = SimSession {
            telco: telco.code.clone(),
            authentication_id,
            state: "sent".into(),
            sent_by: job.request_id.clone(),
            verified_by: String::new(),
        };
        // A new OTP replaces whatever session there was for this number.
        let expected = existing.map(|(r, _)| r.version);
        if !self.save(&key, &session, OTP_TTL_SECS, expected).await? {
            return Ok(fail(data, FailureCode::FailedToSendOtp, "another request for this number raced this one"));
        }
        let mut data = data;
        data["telco"] = json!(telco.code);
        Ok(Envelope::ok(Group::Sim, data))
    }

    async fn verify_otp(&self, telcos: &Telcos, job: &Job) -> Result<Envelope, StoreError> {
        let (req, data) = match request::<SimVerifyOtpRequest>(job, |r| &r.phone_number) {
            Ok(x) => x,
            Err(env) => return Ok(env),
        };
        let Some(e164) = telcos.normalize(&req.phone_number) else {
            return Ok(fail(data, FailureCode::OtpExpired, "no OTP was sent to this number"));
        };
        let key = self.session_key(&job.client_id, &e164);
        let Some((rec, session)) = self.load(&key).await? else {
            return Ok(fail(data, FailureCode::OtpExpired, "no OTP pending for this number (expired or never sent)"));
        };
        if session.state == "verified" && session.verified_by == job.request_id {
            // A redelivered job whose verification was already recorded.
            return Ok(Envelope::ok(Group::Sim, data));
        }
        if session.state != "sent" {
            return Ok(fail(data, FailureCode::OtpAlreadyUsed, "this OTP was already verified"));
        }
        // CAMARA codes are at most 10 characters, letters and digits.
        let otp = req.otp.trim();
        if otp.is_empty() || otp.len() > 10 || !otp.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(fail(data, FailureCode::IncorrectOtp, "the OTP is not in the operator's format"));
        }
        let Some(telco) = telcos.file.telcos.iter().find(|t| t.code == session.telco) else {
            return Ok(fail(data, FailureCode::FailedToVerifyOtp, "the operator of this session is no longer configured"));
        };
        match telcos.validate_code(telco, &session.authentication_id, otp).await {
            Ok(OtpCheck::Valid) => {
                let verified = SimSession { state: "verified".into(), verified_by: job.request_id.clone(), ..session };
                if !self.save(&key, &verified, VERIFIED_TTL_SECS, Some(rec.version)).await? {
                    return Ok(fail(data, FailureCode::OtpAlreadyUsed, "this OTP was already verified"));
                }
                Ok(Envelope::ok(Group::Sim, data))
            }
            Ok(OtpCheck::Invalid) => Ok(fail(data, FailureCode::IncorrectOtp, "incorrect OTP")),
            Ok(OtpCheck::Expired) => Ok(fail(data, FailureCode::OtpExpired, "the OTP expired")),
            Ok(OtpCheck::TooManyAttempts) => Ok(fail(data, FailureCode::FailedToVerifyOtp, "too many wrong attempts: send a new OTP")),
            Err(e) => {
                tracing::warn!(telco = %telco.code, error = %e, "validate-code failed");
                Ok(fail(data, FailureCode::FailedToVerifyOtp, "the operator could not verify the OTP"))
            }
        }
    }

    async fn verify_info(&self, telcos: &Telcos, job: &Job) -> Result<Envelope, StoreError> {
        let (req, data) = match request::<SimVerifyInfoRequest>(job, |r| &r.phone_number) {
            Ok(x) => x,
            Err(env) => return Ok(env),
        };
        let Some(e164) = telcos.normalize(&req.phone_number).filter(|n| telcos.for_number(n).is_some()) else {
            return Ok(fail(data, FailureCode::InvalidPhoneNumber, "not a number a configured operator serves"));
        };
        let key = self.session_key(&job.client_id, &e164);
        let session = match self.load(&key).await? {
            Some((_, s)) if s.state == "verified" => s,
            _ => return Ok(fail(data, FailureCode::VerificationSessionExpired, "verify an OTP sent to this number first (valid 15 minutes)")),
        };
        let Some(telco) = telcos.file.telcos.iter().find(|t| t.code == session.telco) else {
            return Ok(fail(data, FailureCode::FailedToVerifyInfo, "the operator of this session is no longer configured"));
        };
        // KYC Match for the identity fields, in one call.
        let mut kyc = json!({"phoneNumber": e164});
        for (i, f) in req.fields.iter().enumerate() {
            match f.name.as_str() {
                "is_id" => kyc["idDocument"] = json!(f.value),
                "is_name" => kyc["name"] = json!(f.value),
                "is_dob" => match camara_date(&f.value) {
                    Some(d) => kyc["birthdate"] = json!(d),
                    None => return Ok(Envelope::error(Group::Sim, &ErrorKind::invalid(format!("fields[{i}].value"), "a date dd/MM/yyyy"))),
                },
                _ => {}
            }
        }
        let needs_kyc = req.fields.iter().any(|f| matches!(f.name.as_str(), "is_id" | "is_name" | "is_dob"));
        let kyc_answer = if needs_kyc {
            match telcos.kyc_match(telco, &kyc).await {
                Ok(v) => Some(v),
                Err(e) => {
                    tracing::warn!(telco = %telco.code, error = %e, "kyc-match failed");
                    return Ok(fail(data, FailureCode::FailedToVerifyInfo, "the operator could not check the owner data"));
                }
            }
        } else {
            None
        };
        let verdict_of = |v: &Value| match v.as_str().or_else(|| v.as_bool().map(|b| if b { "true" } else { "false" })) {
            Some("true") => "matched",
            Some("false") => "unmatched",
            _ => "no_data",
        };
        let mut fields = Vec::new();
        for f in &req.fields {
            let verdict = match (f.name.as_str(), &kyc_answer) {
                ("is_id", Some(k)) => verdict_of(&k["idDocumentMatch"]),
                ("is_name", Some(k)) => verdict_of(&k["nameMatch"]),
                ("is_dob", Some(k)) => verdict_of(&k["birthdateMatch"]),
                ("has_changed_device_last_30", _) => match telcos.device_swapped(telco, &e164, 720).await {
                    Ok(true) => "matched",
                    Ok(false) => "unmatched",
                    Err(e) => {
                        tracing::warn!(telco = %telco.code, error = %e, "device-swap failed");
                        return Ok(fail(data, FailureCode::FailedToVerifyInfo, "the operator could not check device changes"));
                    }
                },
                // The spec's other statements have no CAMARA API: not known, not guessed.
                _ => "no_data",
            };
            fields.push(json!({"name": f.name, "value": f.value, "verdict": verdict}));
        }
        let mut data = data;
        data["fields"] = json!(fields);
        Ok(Envelope::ok(Group::Sim, data))
    }
}

#[async_trait]
impl JobHandler for SimHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        let Some(telcos) = &self.telcos else {
            return Ok(Envelope::error(
                Group::Sim,
                &ErrorKind::NotAvailable { reason: "no telecom operator is configured (IDV_TELCOS_FILE)".into() },
            ));
        };
        match job.operation {
            Operation::SimSendOtp => self.send_otp(telcos, job).await,
            Operation::SimVerifyOtp => self.verify_otp(telcos, job).await,
            Operation::SimVerifyInfo => self.verify_info(telcos, job).await,
            other => Ok(Envelope::error(Group::Sim, &ErrorKind::Internal { message: format!("{} is not a SIM job", other.name()) })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_normalize_to_e164() {
        assert_eq!(normalize_number("+84 98-123 4567", None).as_deref(), Some("+84981234567"));
        assert_eq!(normalize_number("0084981234567", None).as_deref(), Some("+84981234567"));
        assert_eq!(normalize_number("0981234567", Some("+84")).as_deref(), Some("+84981234567"));
        assert_eq!(normalize_number("0981234567", None), None, "national form needs a country code");
        for bad in ["", "+", "+0123456", "+84abc", "+1234", "+1234567890123456", "98123"] {
            assert_eq!(normalize_number(bad, Some("+84")), None, "{bad}");
        }
    }

    #[test]
    fn dates_and_form_encoding() {
        assert_eq!(camara_date("01/02/1990").as_deref(), Some("1990-02-01"));
        assert_eq!(camara_date("1/2/1990").as_deref(), Some("1990-02-01"));
        assert_eq!(camara_date("31/02/1990"), None);
        assert_eq!(camara_date("1990-02-01"), None);
        assert_eq!(serde_urlencoded_pairs(&[("a b", "c&d=é")]), "a%20b=c%26d%3D%C3%A9");
    }

    #[test]
    fn longest_prefix_wins() -> Result<(), String> {
        let t = |code: &str, p: &[&str]| TelcoConfig {
            code: code.into(),
            prefixes: p.iter().map(|s| s.to_string()).collect(),
            base_url: "http://x".into(),
            token_url: None,
            client_id: None,
            client_secret: None,
        };
        let telcos = Telcos::new(TelcosFile { default_country_code: None, telcos: vec![t("wide", &["+849"]), t("narrow", &["+8498"])] })?;
        assert_eq!(telcos.for_number("+84981234567").map(|t| t.code.as_str()), Some("narrow"));
        assert_eq!(telcos.for_number("+84911234567").map(|t| t.code.as_str()), Some("wide"));
        assert!(telcos.for_number("+14155550100").is_none());
        Ok(())
    }
}
