//! The path every job-backed operation takes:
//! authorize → rate-limit → parse → validate → media → record → register waiter →
//! publish → await (bus result, with a store check as a fallback) → envelope.

use crate::auth::{self, Caller};
use crate::AppState;
use axum::http::HeaderMap;
use idv_schemas::api::HasMedia;
use idv_schemas::jobs::{Job, JOB_SCHEMA_VERSION};
use idv_schemas::validate::{parse_json, Validate};
use idv_schemas::{Envelope, ErrorKind, Operation};
use idv_store::RequestRecord;
use serde::{de::DeserializeOwned, Serialize};
use tracing::Instrument;

/// The raw request as the router hands it over.
pub struct RawRequest<'a> {
    pub method: &'a str,
    /// Path and query exactly as sent (what the signature covers).
    pub uri: &'a str,
    pub headers: &'a HeaderMap,
    pub body: &'a [u8],
}

fn internal(e: impl std::fmt::Display) -> ErrorKind {
    ErrorKind::Internal { message: e.to_string() }
}

/// Authenticate (Access Key) and apply the caller's rate limit.
pub async fn authorize(state: &AppState, raw: &RawRequest<'_>) -> Result<Caller, ErrorKind> {
    let caller =
        auth::authenticate(&state.keys, state.config.timestamp_skew, raw.method, raw.uri, raw.headers, raw.body).await?;
    state
        .limiter
        .check(&caller.access_key_id)
        .map_err(|retry_after_secs| ErrorKind::RateLimited { retry_after_secs })?;
    Ok(caller)
}

/// Which user's state a job touches: its partition key, so one user's jobs are ordered.
pub trait Subject {
    fn subject(&self) -> Option<&str>;
}

macro_rules! subject_field {
    ($field:ident: $($t:ty),*) => { $(impl Subject for $t { fn subject(&self) -> Option<&str> { Some(&self.$field) } })* };
}
use idv_schemas::api::*;
subject_field!(cus_user_id: FaceAuthRegisterRequest, FaceAuthRequest, CusUserRequest, FaceAuthUnregisterRequest, RegisterDeviceRequest);
subject_field!(phone_number: SimSendOtpRequest, SimVerifyOtpRequest, SimVerifyInfoRequest);
subject_field!(challenge_id: BehaviorScoreRequest);
impl Subject for MixCompareFacesRequest {
    fn subject(&self) -> Option<&str> {
        None
    }
}
impl Subject for ReadIdCardRequest {
    fn subject(&self) -> Option<&str> {
        None
    }
}

/// Run a job-backed operation for an already authorized caller.
pub async fn submit<Req>(state: &AppState, op: Operation, caller: &Caller, body: &[u8]) -> Envelope
where
    Req: DeserializeOwned + Serialize + Validate + HasMedia + Subject,
{
    match submit_inner::<Req>(state, op, caller, body).await {
        Ok(env) => env,
        Err(kind) => Envelope::error(op.group(), &kind),
    }
}

async fn submit_inner<Req>(state: &AppState, op: Operation, caller: &Caller, body: &[u8]) -> Result<Envelope, ErrorKind>
where
    Req: DeserializeOwned + Serialize + Validate + HasMedia + Subject,
{
    let mut req: Req = parse_json(body)?;
    req.validate()?;
    crate::media::resolve_media(state, caller, req.media_slots()).await?;
    let topic = op.topic().ok_or_else(|| internal("operation has no job topic"))?;
    let request_id = uuid::Uuid::new_v4().to_string();
    let key = Job::partition_key(&caller.client_id, req.subject().unwrap_or(&request_id));
    let job = Job {
        schema_version: JOB_SCHEMA_VERSION,
        request_id: request_id.clone(),
        operation: op,
        client_id: caller.client_id.clone(),
        access_key_id: caller.access_key_id.clone(),
        reply_to: state.config.instance_id.clone(),
        created_at: crate::now_rfc3339(),
        payload: serde_json::to_value(&req).map_err(internal)?,
    };
    // Every log line of this request carries its id (never the payload: it holds PII).
    let span = tracing::info_span!("request", request_id = %request_id, operation = op.name(), client_id = %caller.client_id);
    run_job(state, job, key, topic).instrument(span).await
}

/// Record a job's request, register its waiter, publish it and await its result.
pub async fn run_job(
    state: &AppState,
    job: Job,
    key: Vec<u8>,
    topic: idv_schemas::ops::Topic,
) -> Result<Envelope, ErrorKind> {
    let request_id = job.request_id.clone();
    let caller_client = job.client_id.clone();
    let op = job.operation;
    let record = RequestRecord {
        request_id: request_id.clone(),
        client_id: caller_client,
        operation: op.name().to_string(),
        created_at: job.created_at.clone(),
        response: None,
        finished_at: None,
    };
    state.store.create_request(&record).await.map_err(internal)?;
    let Some(mut waiter) = state.pending.register(&request_id) else {
        return Err(ErrorKind::NotAvailable { reason: "service is shutting down".into() });
    };
    let payload = serde_json::to_vec(&job).map_err(internal)?;
    state.bus.publish(topic.name(), &key, &payload).await.map_err(internal)?;
    state.metrics.pending.set(state.pending.len() as i64);

    let deadline = tokio::time::Instant::now() + state.config.request_timeout;
    let mut poll = tokio::time::interval(state.config.store_poll_interval);
    poll.tick().await;
    loop {
        tokio::select! {
            got = &mut waiter.rx => {
                return match got {
                    Ok(Some(env)) => Ok(env),
                    _ => Err(ErrorKind::NotAvailable { reason: "service is shutting down".into() }),
                };
            }
            _ = poll.tick() => {
                // A result the bus did not bring here (missed during a rebalance, say) is
                // still in the store.
                if let Some(env) = stored_envelope(state, &request_id).await? {
                    return Ok(env);
                }
            }
            _ = tokio::time::sleep_until(deadline) => {
                tracing::warn!("no result within the wait; the client may poll it later");
                return Err(ErrorKind::Timeout { request_id: Some(request_id) });
            }
        }
    }
}

/// The finished envelope of a request, if a worker stored one.
pub async fn stored_envelope(state: &AppState, request_id: &str) -> Result<Option<Envelope>, ErrorKind> {
    let rec = state.store.get_request(request_id).await.map_err(internal)?;
    match rec.and_then(|r| r.response) {
        Some(text) => serde_json::from_str(&text).map(Some).map_err(internal),
        None => Ok(None),
    }
}
