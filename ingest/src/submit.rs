//! The path every job-backed operation takes:
//! authorize → rate-limit → parse → validate → media → record → register waiter →
//! publish → await (bus result, with a store check as a fallback) → envelope.

use crate::auth::{self, Caller};
use crate::AppState;
use axum::http::HeaderMap;
use idv_schemas::api::HasMedia;
use idv_schemas::jobs::{Job, Personal, Work, JOB_SCHEMA_VERSION};
use idv_schemas::validate::{parse_json, Validate};
use idv_schemas::{Envelope, ErrorKind, Operation};
use idv_store::RequestRecord;
use serde::{de::DeserializeOwned, Serialize};
use tracing::Instrument;

/// What arrives before the body: enough to authenticate (the signatures cover the
/// Content-MD5 header, not the body), so no body is buffered for an unauthenticated caller.
pub struct RequestHead<'a> {
    pub method: &'a str,
    /// Path and query exactly as sent (what the signature covers).
    pub uri: &'a str,
    pub headers: &'a HeaderMap,
}

/// Authenticate a bearer token (the eKYC full check) and apply the client's rate limit.
pub async fn authorize_jwt(state: &AppState, head: &RequestHead<'_>) -> Result<Caller, ErrorKind> {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let caller = auth::authenticate_jwt(state.store.as_ref(), &state.jwt_key, head.headers, now).await?;
    state
        .limiter
        .check(&format!("jwt:{}", caller.client_id))
        .map_err(|retry_after_secs| ErrorKind::RateLimited { retry_after_secs })?;
    Ok(caller)
}

/// Authenticate (Access Key, headers only) and apply the caller's rate limit. The replay
/// check needs the body and comes after it is read: [`refuse_replay`].
pub async fn authorize(state: &AppState, head: &RequestHead<'_>) -> Result<Caller, ErrorKind> {
    let caller = auth::authenticate(&state.keys, state.config.timestamp_skew, head.method, head.uri, head.headers).await?;
    state
        .limiter
        .check(&caller.access_key_id)
        .map_err(|retry_after_secs| ErrorKind::RateLimited { retry_after_secs })?;
    Ok(caller)
}

/// Refuse an Access Key request whose signature and body were both accepted before
/// (docs/API.md "Replay protection"): the same bytes signed the same way are a replay;
/// another body under the same whole-second signature is another request.
pub async fn refuse_replay(state: &AppState, caller: &Caller, headers: &HeaderMap, body: &[u8]) -> Result<(), ErrorKind> {
    let signature = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or_default();
    match state.replay.first_use(&caller.access_key_id, signature, body).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(ErrorKind::AccessDenied),
        // A replay check that did not run is not a pass.
        Err(e) => Err(ErrorKind::internal(e)),
    }
}

/// Whose state a job touches: its partition key, so one user's jobs are ordered.
pub enum SubjectRef<'a> {
    /// A customer user id or phone number, as given.
    Direct(&'a str),
    /// The customer user of a behavioral challenge (looked up in the store).
    Challenge(&'a str),
    /// No user: the request id spreads such jobs over partitions.
    None,
}

/// What ingest needs from a request type beyond parsing and validation.
pub trait JobRequest {
    fn subject(&self) -> SubjectRef<'_>;
    /// Bring ids to their canonical form before they are used as keys.
    fn normalize(&mut self) {}
    /// Encrypt fields that must never reach the bus or the store in the clear.
    fn seal_sensitive(&mut self, _sealer: &idv_crypto::sealed::Sealer) {}
}

macro_rules! subject_field {
    ($field:ident: $($t:ty),*) => { $(impl JobRequest for $t { fn subject(&self) -> SubjectRef<'_> { SubjectRef::Direct(&self.$field) } })* };
}
use idv_schemas::api::*;
subject_field!(cus_user_id: FaceAuthRegisterRequest, FaceAuthRequest, CusUserRequest, FaceAuthUnregisterRequest, RegisterDeviceRequest);
// Personal requests (`Operation::personal`): keyed by an HMAC of the number, below.
subject_field!(phone_number: SimSendOtpRequest, SimVerifyOtpRequest, SimVerifyInfoRequest);
impl JobRequest for MixCompareFacesRequest {
    fn subject(&self) -> SubjectRef<'_> {
        SubjectRef::None
    }
}
impl JobRequest for EkycFullChecksRequest {
    fn subject(&self) -> SubjectRef<'_> {
        SubjectRef::None
    }
}
impl JobRequest for VerifyFaceLivenessRequest {
    fn subject(&self) -> SubjectRef<'_> {
        SubjectRef::None
    }
}
impl JobRequest for SingleImageRequest {
    fn subject(&self) -> SubjectRef<'_> {
        SubjectRef::None
    }
}
impl JobRequest for ReadIdCardRequest {
    fn subject(&self) -> SubjectRef<'_> {
        SubjectRef::None
    }
}

/// Seal one transaction_data field (AES-GCM under the master key, bound to the field name).
fn seal_field(sealer: &idv_crypto::sealed::Sealer, name: &str, value: &mut Option<String>) {
    if let Some(v) = value.as_mut() {
        *v = idv_crypto::sealed::seal_text(sealer, &format!("transaction_data:{name}"), v);
    }
}

impl JobRequest for BehaviorScoreRequest {
    fn subject(&self) -> SubjectRef<'_> {
        SubjectRef::Challenge(&self.challenge_id)
    }
    /// Sender and recipient account data are encrypted before they leave ingest.
    fn normalize(&mut self) {
        BehaviorScoreRequest::normalize(self);
    }
    fn seal_sensitive(&mut self, sealer: &idv_crypto::sealed::Sealer) {
        if let Some(t) = self.transaction_data.as_mut() {
            seal_field(sealer, "account_number", &mut t.account_number);
            seal_field(sealer, "account_holder_name", &mut t.account_holder_name);
            seal_field(sealer, "bank_code", &mut t.bank_code);
            seal_field(sealer, "beneficiary_account_number", &mut t.beneficiary_account_number);
            seal_field(sealer, "beneficiary_account_holder_name", &mut t.beneficiary_account_holder_name);
            seal_field(sealer, "beneficiary_bank_code", &mut t.beneficiary_bank_code);
        }
    }
}

/// A new job for `op`, answered to this ingest instance.
pub fn new_job(state: &AppState, request_id: String, client_id: &str, access_key_id: &str, work: Work) -> Job {
    Job {
        schema_version: JOB_SCHEMA_VERSION,
        request_id,
        client_id: client_id.to_string(),
        access_key_id: access_key_id.to_string(),
        reply_to: state.config.instance_id.clone(),
        created_at: crate::now_rfc3339(),
        work,
    }
}

/// The job payload of `op` for a parsed request: the request itself, or, for a personal
/// one, the request sealed under the master key and bound to its request id.
fn work_of<Req: Serialize + JobRequest>(state: &AppState, op: Operation, request_id: &str, req: &Req) -> Result<Work, ErrorKind> {
    let payload = if op.personal() {
        let plain = serde_json::to_vec(req).map_err(ErrorKind::internal)?;
        serde_json::to_value(Personal::<()>::Sealed { sealed_payload: idv_crypto::sealed::seal_job_payload(&state.sealer, request_id, &plain) })
    } else {
        serde_json::to_value(req)
    };
    // Through the payload's JSON, the form the job travels in: the request types are
    // shared between operations (CusUserRequest is two), the payload variant is not.
    Work::decode(op, payload.map_err(ErrorKind::internal)?).map_err(ErrorKind::internal)?.ok_or_else(|| ErrorKind::internal("operation has no job topic"))
}

/// Run a job-backed operation for an already authorized caller.
pub async fn submit<Req>(state: &AppState, op: Operation, caller: &Caller, body: &[u8]) -> Envelope
where
    Req: DeserializeOwned + Serialize + Validate + HasMedia + JobRequest,
{
    match submit_inner::<Req>(state, op, caller, body).await {
        Ok(env) => env,
        Err(kind) => Envelope::error(op.group(), &kind),
    }
}

async fn submit_inner<Req>(state: &AppState, op: Operation, caller: &Caller, body: &[u8]) -> Result<Envelope, ErrorKind>
where
    Req: DeserializeOwned + Serialize + Validate + HasMedia + JobRequest,
{
    let mut req: Req = parse_json(body)?;
    req.validate()?;
    crate::media::resolve_media(state, caller, req.media_slots()).await?;
    JobRequest::normalize(&mut req);
    req.seal_sensitive(&state.sealer);
    let topic = op.topic().ok_or_else(|| ErrorKind::internal("operation has no job topic"))?;
    let request_id = uuid::Uuid::new_v4().to_string();
    let work = work_of(state, op, &request_id, &req)?;
    let job = new_job(state, request_id, &caller.client_id, &caller.access_key_id, work);
    let subject = match req.subject() {
        SubjectRef::Direct(s) if op.personal() => idv_crypto::hmac_hex(&state.subject_key, s.as_bytes()),
        SubjectRef::Direct(s) => s.to_string(),
        SubjectRef::Challenge(id) => match state.store.get_challenge(id).await.map_err(ErrorKind::internal)? {
            Some(c) => c.cus_user_id,
            // The scorer answers challenge_not_found; any partition will do.
            None => id.to_string(),
        },
        SubjectRef::None => job.request_id.clone(),
    };
    let key = Job::partition_key(&caller.client_id, &subject);
    let request_id = job.request_id.clone();
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
    let op = job.operation();
    if op.recorded() {
        let record = RequestRecord {
            request_id: request_id.clone(),
            client_id: job.client_id.clone(),
            operation: op.name().to_string(),
            created_at: job.created_at.clone(),
            response: None,
            finished_at: None,
        };
        state.store.create_request(&record).await.map_err(ErrorKind::internal)?;
    }
    let settled = Settled::of(&job);
    let Some(mut waiter) = state.pending.register(&request_id) else {
        // Nothing was published: the caller retries (this request id is never used).
        return Err(ErrorKind::ShuttingDown);
    };
    let payload = job.encode().map_err(ErrorKind::internal)?;
    let deadline = tokio::time::Instant::now() + state.config.request_timeout;
    // The publish runs as a task of its own: while the broker is away the producer holds
    // the job (up to its `message.timeout.ms`, minutes), and the caller gets its 408 at
    // the deadline, as for any long job, instead of hanging until the producer gives up.
    let recorded = op.recorded().then(|| request_id.clone());
    let publishing = tokio::spawn(publish_or_refuse(state.clone(), op.group(), topic, key, payload, recorded));
    match tokio::time::timeout_at(deadline, publishing).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(refused))) => return Err(refused),
        Ok(Err(task)) => return Err(ErrorKind::internal(task)),
        Err(_) => return Err(ErrorKind::Timeout { request_id: Some(request_id) }),
    }
    state.metrics.pending.set(state.pending.len() as i64);

    let mut poll = tokio::time::interval(state.config.store_poll_interval);
    poll.tick().await;
    loop {
        tokio::select! {
            got = &mut waiter.rx => {
                return match got {
                    Ok(Some(env)) => Ok(env),
                    // Published already: a worker may still finish it, so the caller
                    // polls by request id, as after any wait that ran out.
                    _ => Err(ErrorKind::Timeout { request_id: Some(request_id) }),
                };
            }
            _ = poll.tick() => {
                // A result the bus did not bring here (missed during a rebalance, say) is
                // still in the store.
                if let Some(env) = settled.read(state).await? {
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

/// Publish a job; when the bus refuses it for good, the request is finished as refused
/// (503 with Retry-After) so that a poll reads that answer, not "processing" forever.
/// Nothing else was written for it. A worker that still gets the job later (a delivery
/// the producer could not confirm) finds the request finished and does not run it.
async fn publish_or_refuse(
    state: AppState,
    group: idv_schemas::Group,
    topic: idv_schemas::ops::Topic,
    key: Vec<u8>,
    payload: Vec<u8>,
    recorded: Option<String>,
) -> Result<(), ErrorKind> {
    let Err(e) = state.bus.publish(topic.name(), &key, &payload).await else { return Ok(()) };
    tracing::warn!(topic = topic.name(), error = %e, "job not handed to the bus; request refused with 503");
    let refused = ErrorKind::QueueUnavailable { retry_after_secs: QUEUE_RETRY_AFTER_SECS };
    if let Some(request_id) = recorded {
        let answer = serde_json::to_string(&Envelope::error(group, &refused)).map_err(ErrorKind::internal)?;
        state.store.complete_request(&request_id, &answer, &crate::now_rfc3339()).await.map_err(ErrorKind::internal)?;
    }
    Err(refused)
}

/// What a client refused because the bus is away is told to wait before retrying.
pub const QUEUE_RETRY_AFTER_SECS: u64 = 5;

/// Where ingest finds a job's answer when the bus did not bring it.
enum Settled {
    /// The request record's stored response.
    Record { request_id: String },
    /// A push (no record): the chain holds a batch appended by the request. A push the
    /// scorer refused leaves no trace; its caller gets the 408 and sends a new request.
    Chain { challenge_id: String, request_id: String },
}

impl Settled {
    fn of(job: &Job) -> Settled {
        match &job.work {
            Work::PushEventBatch(batch) => {
                Settled::Chain { challenge_id: batch.challenge_id.clone(), request_id: job.request_id.clone() }
            }
            _ => Settled::Record { request_id: job.request_id.clone() },
        }
    }

    async fn read(&self, state: &AppState) -> Result<Option<Envelope>, ErrorKind> {
        match self {
            Settled::Record { request_id } => stored_envelope(state, request_id).await,
            Settled::Chain { challenge_id, request_id } => {
                let appended = state.store.batch_appended_by(challenge_id, request_id).await.map_err(ErrorKind::internal)?;
                Ok(appended.then(PushEventBatchRequest::accepted))
            }
        }
    }
}

/// The finished envelope of a request, if a worker stored one.
pub async fn stored_envelope(state: &AppState, request_id: &str) -> Result<Option<Envelope>, ErrorKind> {
    let rec = state.store.get_request(request_id).await.map_err(ErrorKind::internal)?;
    match rec.and_then(|r| r.response) {
        Some(text) => {
            let env: Envelope = serde_json::from_str(&text).map_err(ErrorKind::internal)?;
            opened_answer(state, request_id, env).map(Some)
        }
        None => Ok(None),
    }
}

/// An answer as the client sees it: a body the worker sealed (`Operation::personal`) is
/// opened here, the only place that needs it in the clear.
pub fn opened_answer(state: &AppState, request_id: &str, mut env: Envelope) -> Result<Envelope, ErrorKind> {
    if let Some(body) = idv_crypto::sealed::open_answer_body(&state.sealer, request_id, &env.body).map_err(ErrorKind::internal)? {
        env.body = body;
    }
    Ok(env)
}
