//! The operators' side: CAMARA operations ([`Api`], [`API_TABLE`]), operator
//! configuration ([`TelcoConfig`], [`OtpFormat`]) and the HTTP client ([`Telcos`]:
//! OAuth2 client credentials, token cache, one call per operation). No verdicts here:
//! those are [`super::verdicts`], pure.

use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use super::verdicts::*;

/// Operator API calls time out after this.
pub const TELCO_TIMEOUT: Duration = Duration::from_secs(10);
/// CAMARA's bound on a One Time Password SMS `code` (`maxLength: 10`).
pub const CAMARA_OTP_MAX_LEN: usize = 10;

/// The CAMARA operations this adapter calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    SendCode,
    ValidateCode,
    KycMatch,
    DeviceSwap,
    CallForwardings,
    UnconditionalCallForwardings,
    SubscriptionStatus,
    DeviceReachability,
    NumberRecycling,
}

/// Every operation: its key in an operator's `apis` overrides, and its default path
/// (appended to the operator's `base_url`). The one place operator paths live: an entry
/// `"apis": {"number_recycling": "/number-recycling/v0.1/check"}` in the telcos file
/// replaces a path for that operator, `null` marks the operation as not offered (its
/// statements answer no_data without a call). The OTP operations cannot be `null`.
pub const API_TABLE: &[(Api, &str, &str)] = &[
    (Api::SendCode, "send_code", "/one-time-password-sms/v1/send-code"),
    (Api::ValidateCode, "validate_code", "/one-time-password-sms/v1/validate-code"),
    (Api::KycMatch, "kyc_match", "/kyc-match/v0.3/match"),
    (Api::DeviceSwap, "device_swap", "/device-swap/v1/check"),
    (Api::CallForwardings, "call_forwardings", "/call-forwarding-signal/v0.3/call-forwardings"),
    (Api::UnconditionalCallForwardings, "unconditional_call_forwardings", "/call-forwarding-signal/v0.3/unconditional-call-forwardings"),
    // "retrive" is how the CAMARA Subscription Status v0.1 definition spells the path.
    (Api::SubscriptionStatus, "subscription_status", "/subscription-status/v0.1/retrive-subscription-status"),
    (Api::DeviceReachability, "device_reachability_status", "/device-reachability-status/v1/retrieve"),
    (Api::NumberRecycling, "number_recycling", "/number-recycling/v0.2/check"),
];

impl Api {
    /// Its key in the `apis` overrides.
    pub fn key(self) -> &'static str {
        API_TABLE.iter().find(|(a, _, _)| *a == self).map_or("", |(_, k, _)| k)
    }

    pub fn default_path(self) -> &'static str {
        API_TABLE.iter().find(|(a, _, _)| *a == self).map_or("", |(_, _, p)| p)
    }
}

/// The verify_info statements (every name of the spec) and the operation that answers
/// each; `None`: no CAMARA API can, the verdict is always `no_data`.
pub const STATEMENT_APIS: &[(&str, Option<Api>)] = &[
    ("is_id", Some(Api::KycMatch)),
    ("is_name", Some(Api::KycMatch)),
    ("is_dob", Some(Api::KycMatch)),
    ("is_issue_date", None),
    ("is_port_out", None),
    ("is_port_in", None),
    ("is_active_last_90", Some(Api::DeviceReachability)),
    ("is_subscriber_active", Some(Api::SubscriptionStatus)),
    ("has_usage_last_90", None),
    ("has_changed_device_last_30", Some(Api::DeviceSwap)),
    // CallForwardings, falling back to UnconditionalCallForwardings.
    ("is_use_cf_service", Some(Api::CallForwardings)),
    ("has_changed_id_last_30", Some(Api::NumberRecycling)),
    ("is_top_20_contact_last_30", None),
];

/// The operation answering `statement`, if any. Pure.
pub fn api_of(statement: &str) -> Option<Api> {
    STATEMENT_APIS.iter().find(|(s, _)| *s == statement).and_then(|(_, a)| *a)
}

/// The characters an operator's OTP codes are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OtpCharset {
    /// ASCII digits `0-9`.
    Digits,
    /// ASCII letters and digits (CAMARA's own example code is `AJY3`).
    Alphanumeric,
}

/// The format of an operator's OTP codes (telcos file: `"otp_format": {"min_length": 6,
/// "max_length": 6, "charset": "digits"}`, each key optional). Default: 4 to 8 ASCII
/// digits, what SMS OTPs are in practice; CAMARA only bounds a code to 10 characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OtpFormat {
    pub min_length: usize,
    pub max_length: usize,
    pub charset: OtpCharset,
}

impl Default for OtpFormat {
    fn default() -> Self {
        OtpFormat { min_length: 4, max_length: 8, charset: OtpCharset::Digits }
    }
}

impl OtpFormat {
    /// Whether `otp` (already trimmed) is a code in this format. Pure.
    pub fn accepts(&self, otp: &str) -> bool {
        let charset_ok = match self.charset {
            OtpCharset::Digits => otp.bytes().all(|b| b.is_ascii_digit()),
            OtpCharset::Alphanumeric => otp.bytes().all(|b| b.is_ascii_alphanumeric()),
        };
        // All ASCII once the charset holds, so bytes are characters.
        charset_ok && (self.min_length..=self.max_length).contains(&otp.len())
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if self.min_length == 0 || self.min_length > self.max_length || self.max_length > CAMARA_OTP_MAX_LEN {
            return Err(format!("otp_format: need 1 <= min_length <= max_length <= {CAMARA_OTP_MAX_LEN}"));
        }
        Ok(())
    }
}

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
    /// The format of the codes it texts; checked before validate-code.
    #[serde(default)]
    pub otp_format: OtpFormat,
    /// Path overrides by [`API_TABLE`] key; `null`: the operation is not offered.
    #[serde(default)]
    pub apis: BTreeMap<String, Option<String>>,
}

impl TelcoConfig {
    /// The path of `api` at this operator, `None` when it does not offer it. Pure.
    pub fn path(&self, api: Api) -> Option<&str> {
        match self.apis.get(api.key()) {
            Some(over) => over.as_deref(),
            None => Some(api.default_path()),
        }
    }
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
    /// The operator's token endpoint refused the client credentials.
    #[error("operator refused the OAuth token: {status}")]
    Token { status: u16 },
    /// The operator answered with a CAMARA error code (or an error status).
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


/// `date` as CAMARA's `YYYY-MM-DD`. Pure.
pub fn camara_day(date: time::Date) -> String {
    format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day())
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
        // A country code is `+` and 1 to 3 digits: anything else would turn national
        // numbers into something that is not E.164 (found by the fuzzer).
        if let Some(cc) = &file.default_country_code {
            let digits = cc.strip_prefix('+').unwrap_or_default();
            if !((1..=3).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0')) {
                return Err(format!("default_country_code must be + and 1 to 3 digits, not {cc:?}"));
            }
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
            t.otp_format.check().map_err(|e| format!("operator {}: {e}", t.code))?;
            for (key, path) in &t.apis {
                let Some((api, _, _)) = API_TABLE.iter().find(|(_, k, _)| k == key) else {
                    let known: Vec<&str> = API_TABLE.iter().map(|(_, k, _)| *k).collect();
                    return Err(format!("operator {}: unknown key apis.{key} (known: {})", t.code, known.join(", ")));
                };
                match path {
                    None if matches!(api, Api::SendCode | Api::ValidateCode) => {
                        return Err(format!("operator {}: apis.{key} cannot be null (SIM verification needs the OTP API)", t.code));
                    }
                    Some(p) if !p.starts_with('/') => return Err(format!("operator {}: apis.{key} must be a path starting with /", t.code)),
                    _ => {}
                }
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

    /// The operator with code `code`.
    pub fn by_code(&self, code: &str) -> Option<&TelcoConfig> {
        self.file.telcos.iter().find(|t| t.code == code)
    }

    pub(crate) async fn token(&self, t: &TelcoConfig) -> Result<Option<String>, TelcoError> {
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
        let resp = self
            .http
            .post(url)
            .form(&form)
            .send()
            .await
            .map_err(|e| TelcoError::Transport(format!("token: {}", e.without_url())))?;
        if !resp.status().is_success() {
            return Err(TelcoError::Token { status: resp.status().as_u16() });
        }
        let v: Value = resp.json().await.map_err(|e| TelcoError::Transport(format!("token: {}", e.without_url())))?;
        let tok = v["access_token"].as_str().ok_or_else(|| TelcoError::Transport("token: no access_token".into()))?.to_string();
        // Refresh a minute early; never trust a lifetime over a day (some servers send huge
        // values for "never").
        let ttl = v["expires_in"].as_u64().unwrap_or(300).min(86_400).saturating_sub(60).max(1);
        let until = Instant::now().checked_add(Duration::from_secs(ttl)).unwrap_or_else(Instant::now);
        self.tokens.lock().unwrap_or_else(|e| e.into_inner()).insert(t.code.clone(), (tok.clone(), until));
        Ok(Some(tok))
    }

    /// POST `body` to `path` of the operator's API: Ok((status, JSON body or Null)). A 401
    /// drops the cached token and retries once with a fresh one (tokens get revoked).
    pub(crate) async fn call(&self, t: &TelcoConfig, path: &str, body: &Value) -> Result<(u16, Value), TelcoError> {
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

    pub(crate) fn refused(status: u16, body: &Value) -> TelcoError {
        let code = serde_json::from_value::<CamaraError>(body.clone()).map(|e| e.code).unwrap_or_default();
        TelcoError::Refused { status, code }
    }

    /// One CAMARA operation: Ok(None) when the operator does not offer it (no call made),
    /// Ok(Some(body)) on 2xx, Err(Refused) on an error status.
    pub async fn post(&self, t: &TelcoConfig, api: Api, body: &Value) -> Result<Option<Value>, TelcoError> {
        let Some(path) = t.path(api) else { return Ok(None) };
        let (status, v) = self.call(t, path, body).await?;
        if (200..=299).contains(&status) {
            Ok(Some(v))
        } else {
            Err(Self::refused(status, &v))
        }
    }

    pub async fn send_code(&self, t: &TelcoConfig, e164: &str) -> Result<String, TelcoError> {
        let body = json!({"phoneNumber": e164, "message": "{{code}} is your verification code"});
        let v = self.post(t, Api::SendCode, &body).await?.unwrap_or(Value::Null);
        match v["authenticationId"].as_str() {
            Some(id) if !id.is_empty() && id.len() <= 64 => Ok(id.to_string()),
            _ => Err(TelcoError::Refused { status: 200, code: "no authenticationId".into() }),
        }
    }

    pub async fn validate_code(&self, t: &TelcoConfig, authentication_id: &str, code: &str) -> Result<OtpCheck, TelcoError> {
        let body = json!({"authenticationId": authentication_id, "code": code});
        match self.post(t, Api::ValidateCode, &body).await {
            Ok(_) => Ok(OtpCheck::Valid),
            Err(TelcoError::Refused { status: 400, code }) if code == "ONE_TIME_PASSWORD_SMS.INVALID_OTP" => Ok(OtpCheck::Invalid),
            Err(TelcoError::Refused { status: 400, code }) if code == "ONE_TIME_PASSWORD_SMS.VERIFICATION_EXPIRED" => Ok(OtpCheck::Expired),
            Err(TelcoError::Refused { status: 400, code }) if code == "ONE_TIME_PASSWORD_SMS.VERIFICATION_FAILED" => Ok(OtpCheck::TooManyAttempts),
            Err(other) => Err(other),
        }
    }

    /// `api` for verify_info, only when `needed`: Ok(Some(answer)) for a usable answer,
    /// Ok(None) when not needed, not offered or refused (its statements are no_data),
    /// Err for a transport or token failure (the request fails).
    pub(crate) async fn ask(&self, t: &TelcoConfig, api: Api, needed: bool, body: Value) -> Result<Option<Value>, TelcoError> {
        if !needed {
            return Ok(None);
        }
        match self.post(t, api, &body).await {
            Ok(v) => Ok(v),
            Err(TelcoError::Refused { status, code }) => {
                tracing::info!(telco = %t.code, api = api.key(), status, code = %code, "operator answered no data");
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Call Forwarding Signal: the list of active forwardings, or, when the operator does
    /// not offer that operation (404/501, or `null` in its `apis`), the unconditional one.
    pub(crate) async fn ask_call_forwarding(&self, t: &TelcoConfig, needed: bool, e164: &str) -> Result<(Option<Value>, Option<Value>), TelcoError> {
        if !needed {
            return Ok((None, None));
        }
        let body = json!({"phoneNumber": e164});
        let list = match t.path(Api::CallForwardings) {
            None => None,
            Some(_) => match self.post(t, Api::CallForwardings, &body).await {
                Ok(v) => return Ok((v, None)),
                Err(TelcoError::Refused { status: 404 | 501, .. }) => None,
                Err(TelcoError::Refused { status, code }) => {
                    tracing::info!(telco = %t.code, api = Api::CallForwardings.key(), status, code = %code, "operator answered no data");
                    return Ok((None, None));
                }
                Err(e) => return Err(e),
            },
        };
        Ok((list, self.ask(t, Api::UnconditionalCallForwardings, true, body).await?))
    }
}

