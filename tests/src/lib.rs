//! Black-box test support: an HTTP client that signs requests the way an outside caller
//! would (its own HMAC-SHA256/MD5 code, not the server's), and a harness that starts a
//! whole idv process on a loopback port over a chosen bus.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use md5::{Digest, Md5};
use serde_json::Value;
use sha2::Sha256;
use std::path::PathBuf;

pub mod platform;
pub mod redelivery;
pub mod sim;
pub mod behavior;
pub mod card;
pub mod card_gen;
pub mod card_types;
pub mod cluster;
pub mod ekyc;
pub mod face;
pub mod face_video;
pub mod passport;
pub mod states;

pub const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Credentials as `idv keys create` prints them.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub client_id: String,
    pub access_key_id: String,
    pub secret_key: String,
}

/// How to build one request; every field can be tampered with independently.
#[derive(Debug, Clone, Default)]
pub struct Signing {
    /// Path (and query) the signature covers; defaults to the path sent.
    pub signed_path: Option<String>,
    /// Body the Content-MD5 header is computed over; defaults to the body sent.
    pub md5_of: Option<Vec<u8>>,
    pub send_md5: bool,
    /// RFC 3339 timestamp; defaults to now.
    pub timestamp: Option<String>,
    /// Overrides the secret used to sign.
    pub secret: Option<String>,
}

pub use idv_schemas::clock::now_rfc3339;

pub fn rfc3339_offset(secs: i64) -> String {
    idv_schemas::clock::rfc3339(idv_schemas::clock::now() + time::Duration::seconds(secs))
}

/// `base64(HMAC-SHA256(secret, METHOD\nURI\nTIMESTAMP\nMD5))`, written from the spec.
pub fn sign(secret: &str, method: &str, uri: &str, timestamp: &str, md5: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(format!("{method}\n{uri}\n{timestamp}\n{md5}").as_bytes());
    B64.encode(mac.finalize().into_bytes())
}

pub fn content_md5(body: &[u8]) -> String {
    B64.encode(Md5::digest(body))
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: Value,
}

impl Reply {
    pub fn code(&self) -> Option<&str> {
        self.body["errors"][0]["code"].as_str()
    }
}

#[derive(Clone)]
pub struct Client {
    pub base: String,
    pub http: reqwest::Client,
}

impl Client {
    pub fn new(base: impl Into<String>) -> Self {
        Client { base: base.into(), http: reqwest::Client::new() }
    }

    pub async fn call(&self, creds: &Credentials, path: &str, body: &Value) -> Reply {
        self.call_with(creds, path, serde_json::to_vec(body).expect("json"), Signing { send_md5: true, ..Default::default() })
            .await
    }

    pub async fn call_with(&self, creds: &Credentials, path: &str, body: Vec<u8>, s: Signing) -> Reply {
        Self::reply(self.signed(creds, path, body, s).send().await.expect("request sent")).await
    }

    /// [`Client::call`], where a refused or broken connection (a killed server) is an
    /// `Err` instead of a panic.
    pub async fn try_call(&self, creds: &Credentials, path: &str, body: &Value) -> Result<Reply, String> {
        let body = serde_json::to_vec(body).map_err(|e| e.to_string())?;
        let resp = self.signed(creds, path, body, Signing { send_md5: true, ..Default::default() }).send().await;
        Ok(Self::reply(resp.map_err(|e| e.to_string())?).await)
    }

    fn signed(&self, creds: &Credentials, path: &str, body: Vec<u8>, s: Signing) -> reqwest::RequestBuilder {
        let ts = s.timestamp.clone().unwrap_or_else(now_rfc3339);
        let md5 = if s.send_md5 { content_md5(s.md5_of.as_deref().unwrap_or(&body)) } else { String::new() };
        let secret = s.secret.as_deref().unwrap_or(&creds.secret_key);
        let sig = sign(secret, "POST", s.signed_path.as_deref().unwrap_or(path), &ts, &md5);
        let mut req = self
            .http
            .post(format!("{}{}", self.base, path))
            .header("content-type", "application/json")
            .header("authorization", format!("TV {}:{}", creds.access_key_id, sig))
            .header("x-tv-timestamp", ts);
        if s.send_md5 {
            req = req.header("x-tv-content-md5", md5);
        }
        req.body(body)
    }

    /// POST with `Authorization: Bearer <token>` (the eKYC full check), or no
    /// Authorization header at all when `token` is `None`.
    pub async fn bearer(&self, token: Option<&str>, path: &str, body: &Value) -> Reply {
        let mut req = self.http.post(format!("{}{}", self.base, path)).json(body);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        Self::reply(req.send().await.expect("request sent")).await
    }

    /// Poll `request_id` every half second, `tries` times at most, until it is no longer
    /// "processing": its finished answer, or `None` if it never finished.
    pub async fn poll_finished(&self, creds: &Credentials, request_id: &str, tries: usize) -> Option<Reply> {
        for _ in 0..tries {
            let poll = self.call(creds, "/v1/get_request_result", &serde_json::json!({ "request_id": request_id })).await;
            if poll.body["data"]["status"] != "processing" {
                return Some(poll);
            }
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
        None
    }

    pub async fn raw(&self, method: reqwest::Method, path: &str) -> Reply {
        Self::reply(self.http.request(method, format!("{}{}", self.base, path)).send().await.expect("request sent")).await
    }

    async fn reply(resp: reqwest::Response) -> Reply {
        let status = resp.status().as_u16();
        let retry_after = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        let text = resp.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Reply { status, retry_after, body }
    }
}

/// A whole idv process (all roles) on a loopback port.
pub struct Harness {
    pub client: Client,
    pub data_dir: PathBuf,
    pub settings: idv::Settings,
    pub backends: idv::app::Backends,
    running: Option<idv::Running>,
    extra: Vec<idv::Running>,
    _tmp: tempfile::TempDir,
}

impl Harness {
    pub async fn start(bus_url: &str, tweak: impl FnOnce(&mut idv::Settings)) -> Harness {
        Self::start_roles(bus_url, idv::Roles::ALL, tweak).await
    }

    /// Start only some roles (must include ingest); more can join with [`Harness::start_more`].
    pub async fn start_roles(bus_url: &str, roles: idv::Roles, tweak: impl FnOnce(&mut idv::Settings)) -> Harness {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut settings = idv::Settings {
            listen: Some("127.0.0.1:0".into()),
            data_dir: Some(tmp.path().to_path_buf()),
            bus: Some(bus_url.to_string()),
            worker_concurrency: Some(1),
            partitions: Some(3),
            ..Default::default()
        };
        tweak(&mut settings);
        let backends = idv::app::open_backends(&settings).await.expect("backends open");
        let running = idv::app::start_with(&settings, roles, backends.clone()).await.expect("idv starts");
        let addr = running.addr.expect("ingest role listens");
        Harness {
            client: Client::new(format!("http://{addr}")),
            data_dir: tmp.path().to_path_buf(),
            settings,
            backends,
            running: Some(running),
            extra: Vec::new(),
            _tmp: tmp,
        }
    }

    /// Start more roles over the same backends (for example the workers, later, or a
    /// second ingest instance); returns a client for the new HTTP tier, if it has one.
    pub async fn start_more(&mut self, roles: idv::Roles) -> Option<Client> {
        let r = idv::app::start_with(&self.settings, roles, self.backends.clone()).await.expect("roles start");
        let client = r.addr.map(|addr| Client::new(format!("http://{addr}")));
        self.extra.push(r);
        client
    }

    /// Stop the process that holds the HTTP tier, draining for at most `drain`.
    pub async fn shutdown_ingest(&mut self, drain: std::time::Duration) {
        if let Some(r) = self.running.take() {
            r.shutdown(drain).await;
        }
    }

    /// Stop every role and start them again on the same data directory, with backends
    /// opened anew (as a process restart would: nothing in memory survives, the store and
    /// blobs on disk do). The client points at the new HTTP tier.
    pub async fn restart(&mut self) {
        if let Some(r) = self.running.take() {
            r.shutdown(std::time::Duration::from_secs(5)).await;
        }
        for r in self.extra.drain(..) {
            r.shutdown(std::time::Duration::from_secs(5)).await;
        }
        let backends = idv::app::open_backends(&self.settings).await.expect("backends reopen");
        let running = idv::app::start_with(&self.settings, idv::Roles::ALL, backends.clone()).await.expect("idv restarts");
        let addr = running.addr.expect("ingest role listens");
        self.client = Client::new(format!("http://{addr}"));
        self.backends = backends;
        self.running = Some(running);
    }

    /// Issue an eKYC bearer token the way `idv tokens issue` does, valid `ttl_secs` from
    /// `now` (Unix seconds; in the past for an expired token).
    pub async fn issue_token(&self, client_name: &str, now: i64, ttl_secs: u64) -> String {
        let st = self.state();
        idv_ingest::auth::issue_token(st.store.as_ref(), &st.jwt_key, client_name, std::time::Duration::from_secs(ttl_secs), now)
            .await
            .expect("issue token")
            .access_token
    }

    /// Issue a key the way `idv keys create` does (same store, same master key).
    pub async fn create_key(&self, client_name: &str) -> Credentials {
        let k = self.state().keys.issue(client_name, &now_rfc3339()).await.expect("issue key");
        Credentials { client_id: k.client_id, access_key_id: k.access_key_id, secret_key: k.secret_key }
    }

    pub fn state(&self) -> idv_ingest::AppState {
        self.running.as_ref().and_then(|r| r.state.clone()).expect("ingest state")
    }

    pub async fn stop(mut self) {
        if let Some(r) = self.running.take() {
            r.shutdown(std::time::Duration::from_secs(5)).await;
        }
        for r in self.extra.drain(..) {
            r.shutdown(std::time::Duration::from_secs(5)).await;
        }
    }
}

/// Files under `dir`, recursively (to check that rejected requests write nothing).
pub fn count_files(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| if e.path().is_dir() { count_files(&e.path()) } else { 1 })
        .sum()
}
