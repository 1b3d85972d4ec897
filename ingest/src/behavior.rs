//! The two device-authenticated operations (create_challenge, push_event_batch): device
//! authentication and decryption here, the domain work in the scorer (behavior topic),
//! the successful answer encrypted and signed back to the device.

use crate::device_auth::{self, DeviceCaller};
use crate::submit::{new_job, run_job};
use axum::http::HeaderMap;
use crate::AppState;
use idv_schemas::api::CreateChallengeRequest;
use idv_schemas::jobs::Job;
use idv_schemas::ops::Topic;
use idv_schemas::validate::{parse_json, Validate};
use idv_schemas::{Envelope, ErrorKind, Group, Operation};
use serde_json::{json, value::RawValue, Value};

/// Largest `data` of one batch (choice: docs/API.md).
pub const MAX_BATCH_DATA_BYTES: usize = 1024 * 1024;

/// The push_event_batch plaintext, keeping `data` as the exact bytes received (the
/// batch hash covers those bytes, not a re-serialization).
#[derive(serde::Deserialize)]
pub struct PushPlaintext<'a> {
    #[serde(default)]
    pub nonce: Option<String>,
    #[serde(default)]
    pub batch_hash: Option<String>,
    #[serde(default)]
    pub prev_batch_hash: Option<String>,
    #[serde(default)]
    pub seq: Option<i64>,
    #[serde(borrow, default)]
    pub data: Option<&'a RawValue>,
}

fn device_job(st: &AppState, op: Operation, caller: &DeviceCaller, payload: Value) -> (Job, Vec<u8>) {
    let d = &caller.device;
    let job = new_job(st, op, &d.client_id, &format!("device:{}", d.customer_user_device_id), payload);
    (job, Job::partition_key(&d.client_id, &d.cus_user_id))
}

async fn answer(st: &AppState, caller: &DeviceCaller, job: Job, key: Vec<u8>) -> Result<Envelope, ErrorKind> {
    let env = run_job(st, job, key, Topic::Behavior).await?;
    if env.http_status != 200 || env.body.get("errors").is_some() {
        return Ok(env);
    }
    Ok(Envelope { http_status: 200, body: device_auth::encrypt_response(caller, &env.body)?, retry_after_secs: None })
}

pub async fn create_challenge(st: &AppState, caller: DeviceCaller) -> Result<Envelope, ErrorKind> {
    let req: CreateChallengeRequest = parse_json(&caller.plaintext)?;
    req.validate()?;
    let payload = json!({"session_id": req.session_id, "customer_user_device_id": caller.device.customer_user_device_id});
    let (job, key) = device_job(st, Operation::CreateChallenge, &caller, payload);
    answer(st, &caller, job, key).await
}

/// `X-Challenge-ID: TV <uuid>`.
fn challenge_id(headers: &HeaderMap) -> Result<String, ErrorKind> {
    let value = headers.get("x-challenge-id").ok_or(ErrorKind::MissingChallengeId)?;
    let value = value.to_str().map_err(|_| ErrorKind::InvalidChallengeId)?;
    let id = idv_crypto::device::parse_challenge_header(value).ok_or(ErrorKind::InvalidChallengeId)?;
    // Canonical lowercase hyphenated form (SDKs may send uppercase).
    let id = uuid::Uuid::parse_str(id).map_err(|_| ErrorKind::InvalidChallengeId)?;
    Ok(id.hyphenated().to_string())
}

pub async fn push_event_batch(st: &AppState, caller: DeviceCaller, headers: &HeaderMap) -> Result<Envelope, ErrorKind> {
    let challenge_id = challenge_id(headers)?;
    let plain: PushPlaintext<'_> = parse_json(&caller.plaintext)?;
    let nonce = plain.nonce.filter(|n| !n.is_empty()).ok_or(ErrorKind::MissingNonce)?;
    let batch_hash = plain.batch_hash.filter(|h| !h.is_empty()).ok_or_else(|| ErrorKind::invalid("batch_hash", "batch_hash is required"))?;
    let data = plain.data.ok_or_else(|| ErrorKind::invalid("data", "data is required"))?;
    if !data.get().trim_start().starts_with('{') {
        return Err(ErrorKind::invalid("data", "data must be an object"));
    }
    if data.get().len() > MAX_BATCH_DATA_BYTES {
        return Err(ErrorKind::invalid("data", format!("data is larger than {MAX_BATCH_DATA_BYTES} bytes")));
    }
    if plain.seq.is_some_and(|s| s < 0) {
        return Err(ErrorKind::invalid("seq", "seq must not be negative"));
    }
    let payload = json!({
        "challenge_id": challenge_id,
        "customer_user_device_id": caller.device.customer_user_device_id,
        "nonce": nonce,
        "seq": plain.seq,
        "prev_batch_hash": plain.prev_batch_hash.unwrap_or_default(),
        "batch_hash": batch_hash,
        "data_raw": data.get(),
    });
    let (job, key) = device_job(st, Operation::PushEventBatch, &caller, payload);
    answer(st, &caller, job, key).await
}

/// Group of every error raised here.
pub const GROUP: Group = Group::Behavior;
