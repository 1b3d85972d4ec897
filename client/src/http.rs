//! Optional HTTP helpers (feature `http`, reqwest). The library itself is transport-free;
//! these only glue its output to a `reqwest::Client`. `base_url` is scheme + host (+ any
//! path prefix that is part of the signed URI, e.g. `/api`, goes in `uri` instead).

use crate::{ClientError, DeviceSession};
use serde_json::Value;

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

/// POST a plain JSON request with the Access Key scheme (register_device, behavior/score).
/// Returns the HTTP status and the response JSON.
pub async fn post_access_key(
    client: &reqwest::Client,
    base_url: &str,
    access_key_id: &str,
    secret_key: &[u8],
    uri: &str,
    body_json: &Value,
) -> Result<(u16, Value), ClientError> {
    use idv_crypto::access_key;
    let body = body_json.to_string().into_bytes();
    let ts = crate::rfc3339_now();
    let md5 = access_key::content_md5(&body);
    let sig = access_key::sign(secret_key, "POST", uri, &ts, &md5);
    let resp = client
        .post(format!("{base_url}{uri}"))
        .header("Content-Type", "application/json")
        .header("Authorization", format!("TV {access_key_id}:{sig}"))
        .header("X-TV-Timestamp", ts)
        .header("X-TV-Content-MD5", md5)
        .body(body)
        .send()
        .await
        .map_err(http_err)?;
    let status = resp.status().as_u16();
    let bytes = resp.bytes().await.map_err(http_err)?;
    let v = serde_json::from_slice(&bytes).map_err(|e| ClientError::Malformed(e.to_string()))?;
    Ok((status, v))
}
