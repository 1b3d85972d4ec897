//! The two device-authenticated operations (create_challenge, push_event_batch): device
//! authentication and decryption here, the domain work in the scorer (behavior topic),
//! the successful answer encrypted and signed back to the device.

use crate::device_auth::{self, DeviceCaller};
use crate::submit::{new_job, run_job};
use axum::http::HeaderMap;
use crate::AppState;
use idv_schemas::api::{CreateChallengeRequest, PushEventBatchRequest};
use idv_schemas::jobs::{CreateChallengeJob, Job, Work};
use idv_schemas::ops::Topic;
use idv_schemas::validate::{parse_json, Validate};
use idv_schemas::{Envelope, ErrorKind, Group};

fn device_job(st: &AppState, caller: &DeviceCaller, work: Work) -> (Job, Vec<u8>) {
    let d = &caller.device;
    let job = new_job(st, uuid::Uuid::new_v4().to_string(), &d.client_id, &format!("device:{}", d.customer_user_device_id), work);
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
    let work = Work::CreateChallenge(CreateChallengeJob {
        session_id: req.session_id,
        customer_user_device_id: caller.device.customer_user_device_id.clone(),
    });
    let (job, key) = device_job(st, &caller, work);
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
    let plain: PushEventBatchRequest = parse_json(&caller.plaintext)?;
    let batch = plain.into_job(challenge_id, caller.device.customer_user_device_id.clone())?;
    let (job, key) = device_job(st, &caller, Work::PushEventBatch(batch));
    answer(st, &caller, job, key).await
}

/// Group of every error raised here.
pub const GROUP: Group = Group::Behavior;
