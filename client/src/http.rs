//! HTTP clients (feature `http`, reqwest). The rest of the library is transport-free;
//! this glues its output to a `reqwest::Client`. `base_url` is scheme + host (a path
//! prefix that is part of the signed URI, e.g. `/api`, goes in the path instead).

use crate::{ClientError, DeviceSession};
use serde_json::Value;
use std::time::Duration;

fn http_err(e: reqwest::Error) -> ClientError {
    ClientError::Http(e.to_string())
}

/// POST an encrypted, device-signed request (create_challenge, push_event_batch) and open
/// the response: the plaintext JSON on success, [`ClientError::Api`] on an error envelope.
pub async fn post_device(
    client: &reqwest::Client,
    base_url: &str,
    session: &DeviceSession,
    uri: &str,
    plaintext_json: &[u8],
    challenge_id: Option<&str>,
) -> Result<Value, ClientError> {
    let req = session.prepare(uri, &crate::rfc3339_now(), plaintext_json, challenge_id)?;
    let mut rb = client.post(format!("{base_url}{uri}")).header("Content-Type", "application/json");
    for (k, v) in req.headers {
        rb = rb.header(k, v);
    }
    let resp = rb.body(req.body).send().await.map_err(http_err)?;
    let bytes = resp.bytes().await.map_err(http_err)?;
    session.open_response(&bytes)
}

/// When a refused request is sent again: only answers that say nothing was done (429
/// rate limited, 503 unavailable: refused before any job was published) are retried, each
/// time signed anew (the same headers again would be a replay), after the server's
/// `Retry-After` or else an exponential backoff, at most `max_attempts` sends in all.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub max_attempts: u32,
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { max_attempts: 4, first_delay: Duration::from_millis(250), max_delay: Duration::from_secs(10) }
    }
}

/// A 200 answer: the response JSON (`data`, `errors`) and how many sends it took.
#[derive(Debug)]
pub struct Answer {
    pub body: Value,
    pub attempts: u32,
}

/// A backend client of the Access Key operations: every request signed (docs/API.md,
/// Authentication), refusals retried by [`RetryPolicy`], any other answer than 200 a
/// [`ClientError::Refused`] with the error code.
pub struct AccessKeyClient {
    http: reqwest::Client,
    base_url: String,
    access_key_id: String,
    secret_key: Vec<u8>,
    pub retry: RetryPolicy,
}

impl std::fmt::Debug for AccessKeyClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessKeyClient").field("base_url", &self.base_url).field("access_key_id", &self.access_key_id).finish_non_exhaustive()
    }
}

impl AccessKeyClient {
    pub fn new(base_url: impl Into<String>, access_key_id: impl Into<String>, secret_key: impl Into<Vec<u8>>) -> Self {
        AccessKeyClient {
            http: reqwest::Client::new(),
            base_url: base_url.into(),
            access_key_id: access_key_id.into(),
            secret_key: secret_key.into(),
            retry: RetryPolicy::default(),
        }
    }

    /// POST `body` (serialized once: the bytes signed are the bytes sent) to `path`.
    pub async fn call(&self, path: &str, body: &impl serde::Serialize) -> Result<Answer, ClientError> {
        let bytes = serde_json::to_vec(body).map_err(|e| ClientError::Malformed(e.to_string()))?;
        let mut attempts = 0;
        let mut delay = self.retry.first_delay;
        loop {
            attempts += 1;
            let headers = idv_crypto::access_key::request_headers(
                &self.access_key_id,
                &self.secret_key,
                "POST",
                path,
                &crate::rfc3339_now(),
                &bytes,
            );
            let mut rb = self.http.post(format!("{}{path}", self.base_url)).header("Content-Type", "application/json");
            for (k, v) in headers {
                rb = rb.header(k, v);
            }
            let resp = rb.body(bytes.clone()).send().await.map_err(http_err)?;
            let status = resp.status().as_u16();
            let retry_after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let text = resp.bytes().await.map_err(http_err)?;
            let body: Value = serde_json::from_slice(&text).map_err(|e| ClientError::Malformed(e.to_string()))?;
            if status == 200 {
                return Ok(Answer { body, attempts });
            }
            if matches!(status, 429 | 503) && attempts < self.retry.max_attempts {
                tokio::time::sleep(retry_after.unwrap_or(delay).min(self.retry.max_delay)).await;
                delay = (delay * 2).min(self.retry.max_delay);
                continue;
            }
            let code = body["errors"][0]["code"].as_str().unwrap_or_default().to_string();
            return Err(ClientError::Refused { status, code, attempts, body });
        }
    }

    /// [`AccessKeyClient::call`] for an operation of the service's operation table.
    pub async fn call_operation(&self, op: idv_schemas::Operation, body: &impl serde::Serialize) -> Result<Answer, ClientError> {
        self.call(op.path(), body).await
    }
}
