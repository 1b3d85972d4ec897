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

impl Answer {
    /// `data.status` is `failure`: the operation ran and said no (the codes in
    /// [`Answer::errors`]); a 200 answer is not always a yes.
    pub fn is_failure(&self) -> bool {
        self.body["data"]["status"] == "failure"
    }

    /// The envelope's errors, typed (a `failure` answer's reasons; empty on success).
    pub fn errors(&self) -> Result<Vec<idv_schemas::error::ApiError>, ClientError> {
        match &self.body["errors"] {
            Value::Null => Ok(Vec::new()),
            errors => serde_json::from_value(errors.clone()).map_err(|e| ClientError::Malformed(format!("errors: {e}"))),
        }
    }

    /// `data` decoded into the caller's type (the fields docs/API.md lists for the
    /// operation; a type with only the fields it needs ignores the rest).
    pub fn data<T: serde::de::DeserializeOwned>(&self) -> Result<T, ClientError> {
        serde_json::from_value(self.body["data"].clone()).map_err(|e| ClientError::Malformed(format!("data: {e}")))
    }
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
            // The status decides first: a proxy's HTML 503 is retried like the service's,
            // and a refusal that is not JSON is still a refusal (its body then null).
            let parsed = serde_json::from_slice::<Value>(&text);
            if status == 200 {
                let body = parsed.map_err(|e| ClientError::Malformed(e.to_string()))?;
                return Ok(Answer { body, attempts });
            }
            let body = parsed.unwrap_or(Value::Null);
            if matches!(status, 429 | 503) && attempts < self.retry.max_attempts {
                tokio::time::sleep(retry_after.unwrap_or(delay).min(self.retry.max_delay)).await;
                delay = (delay * 2).min(self.retry.max_delay);
                continue;
            }
            let code = body["errors"][0]["code"].as_str().unwrap_or_default().to_string();
            return Err(ClientError::Refused { status, code, attempts, body });
        }
    }

    /// [`AccessKeyClient::call`] for an operation of the service's operation table, with
    /// its request type from `idv_schemas::api` (or any body that serializes the same).
    pub async fn call_operation(&self, op: idv_schemas::Operation, body: &impl serde::Serialize) -> Result<Answer, ClientError> {
        if op.auth() != idv_schemas::ops::AuthScheme::AccessKey {
            return Err(ClientError::NotAccessKey(op.name()));
        }
        self.call(op.path(), body).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A server (a thread) that answers its connections in turn with `answers` (raw
    /// HTTP/1.1), and records each request's head.
    fn serve(answers: Vec<&'static str>) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let task = std::thread::spawn(move || {
            let mut heads = Vec::new();
            for answer in answers {
                let Ok((mut sock, _)) = listener.accept() else { break };
                // The whole request (head, then Content-Length bytes), so that closing
                // never drops unread data (which would reset the connection).
                let mut got = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let text = String::from_utf8_lossy(&got).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text[..end].lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok())).unwrap_or(0);
                        if got.len() >= end + 4 + len {
                            break;
                        }
                    }
                    match sock.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                heads.push(String::from_utf8_lossy(&got).to_string());
                let _ = sock.write_all(answer.as_bytes());
            }
            heads
        });
        (url, task)
    }

    #[tokio::test]
    async fn a_proxy_page_is_retried_and_a_non_json_refusal_is_still_a_refusal() {
        let (url, task) = serve(vec![
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Type: text/html\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<html></html>",
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{\"data\":{\"ok\":1}}",
        ]);
        let client = AccessKeyClient::new(url, "ak-1", b"secret".to_vec());
        let answer = client.call("/v1/x", &serde_json::json!({"a": 1})).await.expect("answered after one retry");
        assert_eq!((answer.attempts, answer.body["data"]["ok"].as_i64()), (2, Some(1)));
        let heads = task.join().expect("server");
        // signed anew: the two requests carry different signatures
        let auth = |h: &str| h.lines().find(|l| l.to_ascii_lowercase().starts_with("authorization:")).map(str::to_string);
        assert!(auth(&heads[0]).is_some() && auth(&heads[0]) != auth(&heads[1]), "{heads:?}");

        let (url, _task) = serve(vec!["HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 6\r\nConnection: close\r\n\r\n<html>"]);
        let client = AccessKeyClient::new(url, "ak-1", b"secret".to_vec());
        match client.call("/v1/x", &serde_json::json!({})).await {
            Err(ClientError::Refused { status: 502, code, attempts: 1, body: Value::Null }) => assert_eq!(code, ""),
            other => panic!("{other:?}"),
        }
    }
}
