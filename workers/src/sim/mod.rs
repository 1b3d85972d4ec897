//! SIM verification (`sim_verification_send_otp`, `_verify_otp`, `_verify_info`) through
//! the telecom operators' GSMA Open Gateway / CAMARA APIs (two-legged: OAuth2 client
//! credentials, token cached per operator, the number always in the request body).
//!
//! | spec | CAMARA operation (default path, [`API_TABLE`]) | request | answer → verdict |
//! |---|---|---|---|
//! | send_otp | One Time Password SMS `POST /one-time-password-sms/v1/send-code` | `phoneNumber`, `message` with `{{code}}` | `authenticationId`, kept in the session |
//! | verify_otp | same API, `POST /one-time-password-sms/v1/validate-code` | `authenticationId`, `code` | 2xx → success; `INVALID_OTP` / `VERIFICATION_EXPIRED` / `VERIFICATION_FAILED` → `incorrect_otp` / `otp_expired` / `failed_to_verify_otp` |
//! | `is_id`, `is_name`, `is_dob` | KYC Match `POST /kyc-match/v0.3/match` (one call for all three) | `phoneNumber`, `idDocument`, `name`, `birthdate` (yyyy-MM-dd) | `idDocumentMatch`, `nameMatch`, `birthdateMatch`: `true` → matched, `false` → unmatched, `not_available` or absent → no_data |
//! | `has_changed_device_last_30` | Device Swap `POST /device-swap/v1/check` | `phoneNumber`, `maxAge` 720 (h) | `swapped` true → matched, false → unmatched |
//! | `is_use_cf_service` | Call Forwarding Signal `POST /call-forwarding-signal/v0.3/call-forwardings`; when that one is not offered (404/501), `…/unconditional-call-forwardings` | `phoneNumber` | list: any of `unconditional`, `conditional_busy`, `conditional_not_reachable`, `conditional_no_answer` → matched, only `inactive` → unmatched; fallback: `active` true → matched, false → no_data (conditional forwarding unknown) |
//! | `is_subscriber_active` | Subscription Status `POST /subscription-status/v0.1/retrive-subscription-status` (the spelling of CAMARA's path) | `phoneNumber` | `voiceSmsIn` and `voiceSmsOut` both `active` → matched; either `suspended` → unmatched (`dataService` is not looked at) |
//! | `is_active_last_90` | Device Reachability Status `POST /device-reachability-status/v1/retrieve` | `device.phoneNumber` | `reachable` true with a `lastStatusTime` in the last 90 days → matched; otherwise no_data (unreachable now says nothing about the last 90 days) |
//! | `has_changed_id_last_30` | Number Recycling `POST /number-recycling/v0.2/check` | `phoneNumber`, `specifiedDate` today − 30 days (UTC) | `phoneNumberRecycled` true (the number changed subscriber since) → matched; false → no_data (the same subscriber may have changed ID document; no API says) |
//! | `is_issue_date`, `is_port_out`, `is_port_in`, `has_usage_last_90`, `is_top_20_contact_last_30` | none: KYC Match has no issue date, CAMARA has no porting, usage or contact-graph API | | always no_data |
//!
//! Not used: SIM Swap, KYC Tenure, Device Roaming Status (no spec statement asks about a SIM
//! change, tenure or roaming). Per statement, an operator that answers with an error
//! status (404, 422, 501, …), answers something that is not the API's shape, or does not
//! offer the API (`"apis": {"<key>": null}` in its entry) gives `no_data` for the
//! statements of that API and nothing is guessed; a transport failure (unreachable,
//! timeout) or a refused OAuth token fails the request (`failed_to_verify_info`). The
//! operations a request needs are called concurrently, each once.
//!
//! Operators come from a JSON file (`IDV_TELCOS_FILE`, format in docs/API.md "SIM
//! verification"): each has a `code`, the E.164 prefixes it serves, its API base URL,
//! OAuth2 client credentials, optionally its OTP format (`otp_format`, [`OtpFormat`]:
//! default 4 to 8 ASCII digits) and path overrides (`apis`, keys of [`API_TABLE`]).
//! Without the file every SIM operation answers "not performed"; with it, a malformed
//! number is 400 `invalid_parameter_exception` on `phone_number` (send_otp, verify_otp;
//! verify_info keeps its own `invalid_phone_number`), and a well-formed number no
//! operator serves is `unsupported_telco`. An OTP not in the operator's format is
//! `invalid_otp_format` before any operator call.
//!
//! State per (client, number) is a sealed session in the store (`Store::put_session`,
//! compare-and-set): `sent` (5 min, holds the operator's `authenticationId`), then
//! `verified` (15 min: verify_info is allowed only in this window, so owner data is
//! released only to whoever proved possession of the SIM). The session key is an HMAC
//! under a key derived from the master key: no phone number can be read back from it.


pub mod camara;
pub mod verdicts;

pub use camara::*;
pub use verdicts::*;

use idv_jobs::JobHandler;
use async_trait::async_trait;
use idv_crypto::sealed::Sealer;
use idv_schemas::api::{SimSendOtpRequest, SimVerifyInfoRequest, SimVerifyOtpRequest};
use idv_schemas::jobs::{Job, Personal, Work};
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group};
use idv_store::{SessionRecord, Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use time::OffsetDateTime;

/// How long an OTP may be verified after it was sent.
pub const OTP_TTL_SECS: i64 = 5 * 60;
/// How long verify_info is allowed after a verified OTP.
pub const VERIFIED_TTL_SECS: i64 = 15 * 60;

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

use idv_schemas::clock::unix_now as now;

/// A verification that ran and failed: HTTP 200, `data.status` `failure`, the spec's
/// failure `code` (not an error of the request).
fn failed_check(data: Value, code: FailureCode, message: impl Into<String>) -> Envelope {
    let mut data = data;
    data["status"] = json!("failure");
    Envelope::finished(Group::Sim, data, vec![ApiError::failure(code, message)])
}

/// The job's request, and the answer's common part (`status`, `phone_number`,
/// `request_id`); `Err` with the answer when the sealed payload does not open.
/// Ingest seals SIM payloads; a job recorded before that carries the request in the
/// clear and is read as it is.
fn request<T: serde::de::DeserializeOwned + Clone>(
    sealer: &Sealer,
    job: &Job,
    personal: &Personal<T>,
    phone: impl Fn(&T) -> &String,
) -> Result<(T, Value), Envelope> {
    let bad = |why: &str| Envelope::error(Group::Sim, &ErrorKind::Internal { message: format!("bad job payload: {why}") });
    let req: T = match personal {
        Personal::Sealed { sealed_payload } => {
            let plain = idv_crypto::sealed::open_job_payload(sealer, &job.request_id, sealed_payload).map_err(|e| bad(&e.to_string()))?;
            serde_json::from_slice(&plain).map_err(|e| bad(&e.to_string()))?
        }
        Personal::Plain(req) => req.clone(),
    };
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

    async fn send_otp(&self, telcos: &Telcos, job: &Job, personal: &Personal<SimSendOtpRequest>) -> Result<Envelope, StoreError> {
        let (req, data) = match request(&self.sealer, job, personal, |r: &SimSendOtpRequest| &r.phone_number) {
            Ok(x) => x,
            Err(env) => return Ok(env),
        };
        let Some(e164) = telcos.normalize(&req.phone_number) else {
            return Ok(malformed_number());
        };
        let Some(telco) = telcos.for_number(&e164) else {
            return Ok(failed_check(data, FailureCode::UnsupportedTelco, "no configured operator serves this number"));
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
                return Ok(failed_check(data, FailureCode::FailedToSendOtp, "the operator did not send the OTP"));
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
            return Ok(failed_check(data, FailureCode::FailedToSendOtp, "another request for this number raced this one"));
        }
        let mut data = data;
        data["telco"] = json!(telco.code);
        Ok(Envelope::ok(Group::Sim, data))
    }

    async fn verify_otp(&self, telcos: &Telcos, job: &Job, personal: &Personal<SimVerifyOtpRequest>) -> Result<Envelope, StoreError> {
        let (req, data) = match request(&self.sealer, job, personal, |r: &SimVerifyOtpRequest| &r.phone_number) {
            Ok(x) => x,
            Err(env) => return Ok(env),
        };
        let Some(e164) = telcos.normalize(&req.phone_number) else {
            return Ok(malformed_number());
        };
        let key = self.session_key(&job.client_id, &e164);
        let loaded = self.load(&key).await?;
        if let Some((_, s)) = &loaded {
            if s.state == "verified" && s.verified_by == job.request_id {
                // A redelivered job whose verification was already recorded.
                return Ok(Envelope::ok(Group::Sim, data));
            }
        }
        // The format of the operator that sent the code (else the one serving the number),
        // checked before anything reaches an operator.
        let format = loaded
            .as_ref()
            .and_then(|(_, s)| telcos.by_code(&s.telco))
            .or_else(|| telcos.for_number(&e164))
            .map(|t| t.otp_format)
            .unwrap_or_default();
        let otp = req.otp.trim();
        if !format.accepts(otp) {
            return Ok(failed_check(data, FailureCode::InvalidOtpFormat, otp_format_message(&format)));
        }
        let Some((rec, session)) = loaded else {
            return Ok(failed_check(data, FailureCode::OtpExpired, "no OTP pending for this number (expired or never sent)"));
        };
        if session.state != "sent" {
            return Ok(failed_check(data, FailureCode::OtpAlreadyUsed, "this OTP was already verified"));
        }
        let Some(telco) = telcos.by_code(&session.telco) else {
            return Ok(failed_check(data, FailureCode::FailedToVerifyOtp, "the operator of this session is no longer configured"));
        };
        match telcos.validate_code(telco, &session.authentication_id, otp).await {
            Ok(OtpCheck::Valid) => {
                let verified = SimSession { state: "verified".into(), verified_by: job.request_id.clone(), ..session };
                if !self.save(&key, &verified, VERIFIED_TTL_SECS, Some(rec.version)).await? {
                    return Ok(failed_check(data, FailureCode::OtpAlreadyUsed, "this OTP was already verified"));
                }
                Ok(Envelope::ok(Group::Sim, data))
            }
            Ok(OtpCheck::Invalid) => Ok(failed_check(data, FailureCode::IncorrectOtp, "incorrect OTP")),
            Ok(OtpCheck::Expired) => Ok(failed_check(data, FailureCode::OtpExpired, "the OTP expired")),
            Ok(OtpCheck::TooManyAttempts) => Ok(failed_check(data, FailureCode::FailedToVerifyOtp, "too many wrong attempts: send a new OTP")),
            Err(e) => {
                tracing::warn!(telco = %telco.code, error = %e, "validate-code failed");
                Ok(failed_check(data, FailureCode::FailedToVerifyOtp, "the operator could not verify the OTP"))
            }
        }
    }

    async fn verify_info(&self, telcos: &Telcos, job: &Job, personal: &Personal<SimVerifyInfoRequest>) -> Result<Envelope, StoreError> {
        let (req, data) = match request(&self.sealer, job, personal, |r: &SimVerifyInfoRequest| &r.phone_number) {
            Ok(x) => x,
            Err(env) => return Ok(env),
        };
        let Some(e164) = telcos.normalize(&req.phone_number).filter(|n| telcos.for_number(n).is_some()) else {
            return Ok(failed_check(data, FailureCode::InvalidPhoneNumber, "not a number a configured operator serves"));
        };
        let key = self.session_key(&job.client_id, &e164);
        let session = match self.load(&key).await? {
            Some((_, s)) if s.state == "verified" => s,
            _ => return Ok(failed_check(data, FailureCode::VerificationSessionExpired, "verify an OTP sent to this number first (valid 15 minutes)")),
        };
        let Some(telco) = telcos.by_code(&session.telco) else {
            return Ok(failed_check(data, FailureCode::FailedToVerifyInfo, "the operator of this session is no longer configured"));
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
        let needs = |api: Api| req.fields.iter().any(|f| api_of(&f.name) == Some(api));
        let now = OffsetDateTime::now_utc();
        let recycled_since = camara_day((now - time::Duration::days(30)).date());
        // Each operation the statements need, once, concurrently.
        let (kyc_match, device_swap, call_forwarding, subscription_status, device_reachability, number_recycling) = futures::join!(
            telcos.ask(telco, Api::KycMatch, needs(Api::KycMatch), kyc),
            telcos.ask(telco, Api::DeviceSwap, needs(Api::DeviceSwap), json!({"phoneNumber": e164, "maxAge": 30 * 24})),
            telcos.ask_call_forwarding(telco, needs(Api::CallForwardings), &e164),
            telcos.ask(telco, Api::SubscriptionStatus, needs(Api::SubscriptionStatus), json!({"phoneNumber": e164})),
            telcos.ask(telco, Api::DeviceReachability, needs(Api::DeviceReachability), json!({"device": {"phoneNumber": e164}})),
            telcos.ask(telco, Api::NumberRecycling, needs(Api::NumberRecycling), json!({"phoneNumber": e164, "specifiedDate": recycled_since})),
        );
        let answers = answers_of(kyc_match, device_swap, call_forwarding, subscription_status, device_reachability, number_recycling);
        let answers = match answers {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(telco = %telco.code, error = %e, "verify_info: operator unreachable");
                return Ok(failed_check(data, FailureCode::FailedToVerifyInfo, "the operator could not be reached to check the owner data"));
            }
        };
        let fields: Vec<Value> = req
            .fields
            .iter()
            .map(|f| json!({"name": f.name, "value": f.value, "verdict": statement_verdict(&f.name, &answers, now).as_str()}))
            .collect();
        let mut data = data;
        data["fields"] = json!(fields);
        Ok(Envelope::ok(Group::Sim, data))
    }
}

/// The answers of one verify_info request, or the first transport/token failure.
fn answers_of(
    kyc_match: Result<Option<Value>, TelcoError>,
    device_swap: Result<Option<Value>, TelcoError>,
    call_forwarding: Result<(Option<Value>, Option<Value>), TelcoError>,
    subscription_status: Result<Option<Value>, TelcoError>,
    device_reachability: Result<Option<Value>, TelcoError>,
    number_recycling: Result<Option<Value>, TelcoError>,
) -> Result<Answers, TelcoError> {
    let (call_forwardings, unconditional_call_forwardings) = call_forwarding?;
    Ok(Answers {
        kyc_match: kyc_match?,
        device_swap: device_swap?,
        call_forwardings,
        unconditional_call_forwardings,
        subscription_status: subscription_status?,
        device_reachability: device_reachability?,
        number_recycling: number_recycling?,
    })
}

/// A `phone_number` that is not a phone number: the caller's error, whatever operators
/// are configured.
fn malformed_number() -> Envelope {
    Envelope::error(
        Group::Sim,
        &ErrorKind::invalid("phone_number", "not a phone number: E.164 (+ and 5 to 15 digits), 00 and the digits, or a national number starting with 0 where a default country code is configured"),
    )
}

fn otp_format_message(f: &OtpFormat) -> String {
    let chars = match f.charset {
        OtpCharset::Digits => "digits",
        OtpCharset::Alphanumeric => "letters and digits",
    };
    if f.min_length == f.max_length {
        format!("the OTP is not in the operator's format ({} {chars})", f.min_length)
    } else {
        format!("the OTP is not in the operator's format ({} to {} {chars})", f.min_length, f.max_length)
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
        match &job.work {
            Work::SimSendOtp(personal) => self.send_otp(telcos, job, personal).await,
            Work::SimVerifyOtp(personal) => self.verify_otp(telcos, job, personal).await,
            Work::SimVerifyInfo(personal) => self.verify_info(telcos, job, personal).await,
            _ => Ok(crate::not_this_pool(job, "a SIM")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

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
            otp_format: OtpFormat::default(),
            apis: BTreeMap::new(),
        };
        let telcos = Telcos::new(TelcosFile { default_country_code: None, telcos: vec![t("wide", &["+849"]), t("narrow", &["+8498"])] })?;
        for bad in ["84", "", "+", "+0", "+1234", "é84", "+8a"] {
            let file = TelcosFile { default_country_code: Some(bad.into()), telcos: vec![t("x", &["+84"])] };
            assert!(Telcos::new(file).is_err(), "default_country_code {bad:?} accepted");
        }
        assert_eq!(normalize_number("0912345678", Some("é")), None, "never a panic on a non-ASCII code");
        assert_eq!(telcos.for_number("+84981234567").map(|t| t.code.as_str()), Some("narrow"));
        assert_eq!(telcos.for_number("+84911234567").map(|t| t.code.as_str()), Some("wide"));
        assert!(telcos.for_number("+14155550100").is_none());
        Ok(())
    }

    fn one_telco(entry: Value) -> Result<Telcos, String> {
        let mut t = json!({"code": "t", "prefixes": ["+84"], "base_url": "http://x"});
        if let (Some(t), Some(extra)) = (t.as_object_mut(), entry.as_object()) {
            t.extend(extra.clone());
        }
        let file: TelcosFile = serde_json::from_value(json!({"telcos": [t]})).map_err(|e| e.to_string())?;
        Telcos::new(file)
    }

    #[test]
    fn otp_format_default_is_4_to_8_ascii_digits() {
        let f = OtpFormat::default();
        for ok in ["1234", "004001", "12345678"] {
            assert!(f.accepts(ok), "{ok}");
        }
        // U+0663 is an Arabic-Indic digit: a digit, not an ASCII one.
        for bad in ["", "123", "123456789", "12a4", "12 34", "+123", "12\u{0663}4", "ＡＢ12"] {
            assert!(!f.accepts(bad), "{bad:?}");
        }
        let six = OtpFormat { min_length: 6, max_length: 6, charset: OtpCharset::Alphanumeric };
        assert!(six.accepts("AB4001") && six.accepts("123456"));
        assert!(!six.accepts("AB400") && !six.accepts("AB40011") && !six.accepts("AB-001"));
        assert_eq!(otp_format_message(&six), "the OTP is not in the operator's format (6 letters and digits)");
        assert_eq!(otp_format_message(&f), "the OTP is not in the operator's format (4 to 8 digits)");
    }

    #[test]
    fn telcos_file_otp_format_and_api_paths() -> Result<(), String> {
        // Defaults, and a partial otp_format keeps the other defaults.
        let t = one_telco(json!({"otp_format": {"max_length": 6}}))?;
        let c = t.by_code("t").ok_or("no operator t")?;
        assert_eq!(c.otp_format, OtpFormat { min_length: 4, max_length: 6, charset: OtpCharset::Digits });
        assert_eq!(c.path(Api::NumberRecycling), Some("/number-recycling/v0.2/check"));
        // Overrides and "not offered".
        let t = one_telco(json!({"apis": {"number_recycling": "/number-recycling/v0.1/check", "subscription_status": null}}))?;
        let c = t.by_code("t").ok_or("no operator t")?;
        assert_eq!(c.path(Api::NumberRecycling), Some("/number-recycling/v0.1/check"));
        assert_eq!(c.path(Api::SubscriptionStatus), None);
        assert_eq!(c.path(Api::KycMatch), Some("/kyc-match/v0.3/match"));
        // Mistakes are load errors, not silent defaults.
        for (bad, why) in [
            (json!({"otp_format": {"min_length": 0}}), "otp_format"),
            (json!({"otp_format": {"min_length": 9}}), "otp_format"),
            (json!({"otp_format": {"max_length": 11}}), "otp_format"),
            (json!({"apis": {"sim_swap": "/sim-swap/v1/check"}}), "unknown key apis.sim_swap"),
            (json!({"apis": {"validate_code": null}}), "cannot be null"),
            (json!({"apis": {"device_swap": "device-swap/v1/check"}}), "starting with /"),
        ] {
            match one_telco(bad.clone()) {
                Err(e) => assert!(e.contains(why), "{bad}: {e}"),
                Ok(_) => return Err(format!("{bad} was accepted")),
            }
        }
        let typo: Result<TelcosFile, _> = serde_json::from_value(json!({"telcos": [{"code": "t", "prefixes": [], "base_url": "", "otp_format": {"length": 6}}]}));
        assert!(typo.is_err(), "an unknown otp_format key is an error");
        Ok(())
    }

    #[test]
    fn every_spec_statement_has_one_row() {
        let table: Vec<&str> = STATEMENT_APIS.iter().map(|(s, _)| *s).collect();
        assert_eq!(table, idv_schemas::api::SIM_INFO_FIELDS, "STATEMENT_APIS lists the spec's statements, in order");
        // Every API path is in the one table.
        for (api, key, path) in API_TABLE {
            assert_eq!((api.key(), api.default_path()), (*key, *path));
        }
        let unanswerable: Vec<&str> = STATEMENT_APIS.iter().filter(|(_, a)| a.is_none()).map(|(s, _)| *s).collect();
        assert_eq!(unanswerable, ["is_issue_date", "is_port_out", "is_port_in", "has_usage_last_90", "is_top_20_contact_last_30"]);
        // And a statement without an API is no_data whatever the answers hold.
        let all = Answers {
            kyc_match: Some(json!({"idDocumentMatch": "true", "nameMatch": "true", "birthdateMatch": "true"})),
            device_swap: Some(json!({"swapped": true})),
            call_forwardings: Some(json!(["unconditional"])),
            unconditional_call_forwardings: Some(json!({"active": true})),
            subscription_status: Some(json!({"voiceSmsIn": "active", "voiceSmsOut": "active"})),
            device_reachability: Some(json!({"reachable": true, "lastStatusTime": "2024-01-01T00:00:00Z"})),
            number_recycling: Some(json!({"phoneNumberRecycled": true})),
        };
        let now = time::macros::datetime!(2024-01-02 0:00 UTC);
        for s in unanswerable {
            assert_eq!(statement_verdict(s, &all, now), Verdict::NoData, "{s}");
        }
        for (s, api) in STATEMENT_APIS {
            if api.is_some() {
                assert_eq!(statement_verdict(s, &all, now), Verdict::Matched, "{s}");
                assert_eq!(statement_verdict(s, &Answers::default(), now), Verdict::NoData, "{s} without an answer");
            }
        }
    }

    #[test]
    fn verdicts_from_operator_answers() {
        let now = time::macros::datetime!(2024-06-30 12:00 UTC);
        let with = |f: fn(&mut Answers, Value), v: Value| {
            let mut a = Answers::default();
            f(&mut a, v);
            a
        };
        let v = |s: &str, a: &Answers| statement_verdict(s, a, now);
        // KYC Match.
        let kyc = with(|a, v| a.kyc_match = Some(v), json!({"idDocumentMatch": "true", "nameMatch": "false", "birthdateMatch": "not_available"}));
        assert_eq!((v("is_id", &kyc), v("is_name", &kyc), v("is_dob", &kyc)), (Verdict::Matched, Verdict::Unmatched, Verdict::NoData));
        // Device Swap.
        let swap = |b: Value| with(|a, v| a.device_swap = Some(v), json!({"swapped": b}));
        assert_eq!(v("has_changed_device_last_30", &swap(json!(true))), Verdict::Matched);
        assert_eq!(v("has_changed_device_last_30", &swap(json!(false))), Verdict::Unmatched);
        assert_eq!(v("has_changed_device_last_30", &swap(json!("false"))), Verdict::NoData, "a string is not the API's boolean");
        // Call Forwarding Signal: the list, then the unconditional fallback.
        let cf = |l: Value| call_forwarding_verdict(Some(&l), None);
        assert_eq!(cf(json!(["conditional_no_answer"])), Verdict::Matched);
        assert_eq!(cf(json!(["unconditional", "conditional_busy"])), Verdict::Matched);
        assert_eq!(cf(json!(["inactive"])), Verdict::Unmatched);
        assert_eq!(cf(json!([])), Verdict::NoData);
        assert_eq!(cf(json!(["forwarded_somewhere_new"])), Verdict::NoData);
        assert_eq!(cf(json!(["inactive", 3])), Verdict::NoData);
        assert_eq!(cf(json!({"active": true})), Verdict::NoData, "not a list");
        assert_eq!(call_forwarding_verdict(None, Some(&json!({"active": true}))), Verdict::Matched);
        assert_eq!(call_forwarding_verdict(None, Some(&json!({"active": false}))), Verdict::NoData, "conditional forwarding unknown");
        assert_eq!(call_forwarding_verdict(Some(&json!(["inactive"])), Some(&json!({"active": true}))), Verdict::Unmatched, "the list wins");
        // Subscription Status.
        let sub = |i: &str, o: &str| subscription_verdict(Some(&json!({"voiceSmsIn": i, "voiceSmsOut": o, "dataService": "suspended"})));
        assert_eq!(sub("active", "active"), Verdict::Matched);
        assert_eq!(sub("active", "suspended"), Verdict::Unmatched);
        assert_eq!(sub("suspended", "active"), Verdict::Unmatched);
        assert_eq!(sub("active", "unknown"), Verdict::NoData);
        assert_eq!(subscription_verdict(Some(&json!({}))), Verdict::NoData);
        // Device Reachability Status, within 90 days.
        let reach = |r: bool, t: &str| reachability_verdict(Some(&json!({"reachable": r, "lastStatusTime": t})), now, 90);
        assert_eq!(reach(true, "2024-06-30T11:59:00Z"), Verdict::Matched);
        assert_eq!(reach(true, "2024-04-01T12:00:00+00:00"), Verdict::Matched, "exactly 90 days");
        assert_eq!(reach(true, "2024-04-01T11:59:59Z"), Verdict::NoData, "older than 90 days");
        assert_eq!(reach(false, "2024-06-30T11:59:00Z"), Verdict::NoData, "unreachable now says nothing about the last 90 days");
        assert_eq!(reach(true, "30/06/2024"), Verdict::NoData);
        assert_eq!(reachability_verdict(Some(&json!({"reachable": true})), now, 90), Verdict::NoData, "freshness unknown");
        // Number Recycling.
        let rec = |b: bool| with(|a, v| a.number_recycling = Some(v), json!({"phoneNumberRecycled": b}));
        assert_eq!(v("has_changed_id_last_30", &rec(true)), Verdict::Matched);
        assert_eq!(v("has_changed_id_last_30", &rec(false)), Verdict::NoData, "same subscriber: an ID change is not ruled out");
        assert_eq!(camara_day(time::macros::date!(2024 - 02 - 05)), "2024-02-05");
    }
}

