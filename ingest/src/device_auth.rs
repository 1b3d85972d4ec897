//! Customer User Device authentication and end-to-end encryption (create_challenge,
//! push_event_batch), byte for byte as docs/BEHAVIOR_PROTOCOL.md states.
//!
//! Order: header shape → timestamp → Content-MD5 (required) → device exists → device
//! signature (before any private-key work, so unauthenticated callers cannot make the
//! server decrypt) → device active → request secret key (RSA-OAEP, cached) → body.
//! Every failure but the timestamp and a deactivated device is 403 `access_denied`.

use crate::auth::{timestamp_fresh, HEADER_CONTENT_MD5, HEADER_TIMESTAMP};
use crate::submit::RequestHead;
use crate::AppState;
use idv_crypto::device::{self, ServerKeyPair};
use idv_schemas::ErrorKind;
use idv_store::DeviceRecord;
use std::sync::Arc;
use std::time::Duration;

/// Decrypted request secret keys and opened server key pairs, so a device that reuses its
/// encrypted key costs one private-key operation per session, not per batch.
pub struct DeviceKeyCache {
    secret_keys: moka::future::Cache<String, [u8; 32]>,
    key_pairs: moka::future::Cache<String, Arc<ServerKeyPair>>,
}

impl Default for DeviceKeyCache {
    fn default() -> Self {
        DeviceKeyCache {
            secret_keys: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(Duration::from_secs(600))
                .build(),
            key_pairs: moka::future::Cache::builder().max_capacity(1_000).time_to_live(Duration::from_secs(600)).build(),
        }
    }
}

/// A device whose request headers authenticated; the body is not read yet.
pub struct DeviceHead {
    pub device: DeviceRecord,
    pub server: Arc<ServerKeyPair>,
    secret_key: [u8; 32],
}

/// An authenticated device request.
pub struct DeviceCaller {
    pub device: DeviceRecord,
    pub server: Arc<ServerKeyPair>,
    /// The decrypted request body (the operation's plaintext JSON).
    pub plaintext: Vec<u8>,
}

fn header<'a>(head: &'a RequestHead<'_>, name: &str) -> Option<&'a str> {
    head.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Open (and cache) the server key pair a device was registered with.
pub async fn server_key_pair(state: &AppState, key_pair_id: &str) -> Result<Arc<ServerKeyPair>, ErrorKind> {
    if let Some(k) = state.device_keys.key_pairs.get(key_pair_id).await {
        return Ok(k);
    }
    let record = state.store.get_key_pair(key_pair_id).await.map_err(ErrorKind::internal)?.ok_or(ErrorKind::AccessDenied)?;
    let pair = Arc::new(idv_store::vault::open_key_pair(&state.sealer, &record).map_err(ErrorKind::internal)?);
    state.device_keys.key_pairs.insert(key_pair_id.to_string(), pair.clone()).await;
    Ok(pair)
}

/// Everything up to the body: signature, device state, rate limit, request secret key.
/// The end-to-end encrypted request body: `{"data": base64 AES-GCM ciphertext}`.
#[derive(serde::Deserialize)]
pub struct Encrypted {
    pub data: String,
}

pub async fn authenticate(state: &AppState, raw: &RequestHead<'_>) -> Result<DeviceHead, ErrorKind> {
    let authz = header(raw, "authorization").ok_or(ErrorKind::AccessDenied)?;
    let (device_id, esk, signature) = device::parse_device_authorization(authz).ok_or(ErrorKind::AccessDenied)?;
    let timestamp = header(raw, HEADER_TIMESTAMP).ok_or(ErrorKind::AccessDenied)?;
    if !timestamp_fresh(timestamp, time::OffsetDateTime::now_utc(), state.config.timestamp_skew) {
        return Err(ErrorKind::TimeSkewed);
    }
    let md5 = header(raw, HEADER_CONTENT_MD5).ok_or(ErrorKind::AccessDenied)?;
    let device = state.store.get_device(device_id).await.map_err(ErrorKind::internal)?.ok_or(ErrorKind::AccessDenied)?;
    if !device::verify_device_signature(&device.public_der, raw.method, raw.uri, timestamp, esk, md5, signature) {
        return Err(ErrorKind::AccessDenied);
    }
    // The device signature covers the (mandatory) Content-MD5, so a different body is a
    // different signature: the signature alone identifies the request, and the check runs
    // here, before any private-key work, with no body.
    if !state.replay.first_use(&device.customer_user_device_id, signature, &[]).await.map_err(ErrorKind::internal)? {
        return Err(ErrorKind::AccessDenied);
    }
    if device.deactivated {
        return Err(ErrorKind::DeviceDeactivated);
    }
    // Rate-limit before any private-key work: a device could otherwise make the server
    // decrypt an unlimited stream of random "encrypted keys".
    state
        .limiter
        .check(&format!("device:{}", device.customer_user_device_id))
        .map_err(|retry_after_secs| ErrorKind::RateLimited { retry_after_secs })?;
    let server = server_key_pair(state, &device.key_pair_id).await?;
    let cache_key = idv_crypto::sha256_hex(format!("{}:{esk}", device.key_pair_id).as_bytes());
    let secret = match state.device_keys.secret_keys.get(&cache_key).await {
        Some(k) => k,
        None => {
            let k = device::decrypt_secret_key(&server, esk).map_err(|_| ErrorKind::AccessDenied)?;
            state.device_keys.secret_keys.insert(cache_key, k).await;
            k
        }
    };
    Ok(DeviceHead { device, server, secret_key: secret })
}

/// Check the body against the signed Content-MD5 and decrypt it.
pub fn open_body(head: DeviceHead, headers: &axum::http::HeaderMap, body: &[u8]) -> Result<DeviceCaller, ErrorKind> {
    crate::auth::check_body_md5(headers, body, true)?;
    let envelope: Encrypted = serde_json::from_slice(body).map_err(|_| ErrorKind::AccessDenied)?;
    let plaintext = device::open_b64(&head.secret_key, &envelope.data).map_err(|_| ErrorKind::AccessDenied)?;
    Ok(DeviceCaller { device: head.device, server: head.server, plaintext })
}

/// Encrypt a successful response to the device and sign it (spec, E2E step 2-3).
pub fn encrypt_response(caller: &DeviceCaller, body: &serde_json::Value) -> Result<serde_json::Value, ErrorKind> {
    let plaintext = serde_json::to_vec(body).map_err(ErrorKind::internal)?;
    let enc = device::encrypt_response(&caller.server, &caller.device.public_der, &plaintext).map_err(ErrorKind::internal)?;
    serde_json::to_value(enc).map_err(ErrorKind::internal)
}
