//! The behavior-topic job handler: register_device, create_challenge, push_event_batch
//! and score, over the store. Every condition of the spec's behavioral error table is
//! decided here, in the order docs/BEHAVIOR_PROTOCOL.md gives.

use idv_scoring::baseline::Baseline;
use idv_scoring::engine::{first_session, score, ScoreOutcome};
use idv_scoring::features::extract;
use idv_scoring::policy::PolicySet;
use async_trait::async_trait;
use base64::Engine as _;
use idv_crypto::device;
use idv_crypto::sealed::Sealer;
use idv_schemas::api::{BehaviorScoreRequest, PushEventBatchRequest, RegisterDeviceRequest};
use idv_schemas::jobs::{CreateChallengeJob, Job, PushBatchJob, Work};
use idv_schemas::{ApiError, Envelope, ErrorKind, Group};
use idv_store::{BaselineRecord, BatchRecord, BehaviorStore, ChallengeRecord, DeviceRecord, KeyStore, StoreError, CHALLENGE_OPEN};
use idv_jobs::JobHandler;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// How long a challenge's nonce is accepted (choice: docs/BEHAVIOR_PROTOCOL.md).
pub const CHALLENGE_TTL_SECS: i64 = 15 * 60;
/// Compare-and-set retries of a baseline update before giving up.
const BASELINE_CAS_RETRIES: usize = 5;

/// Who gets the policy check (operators enable it per client or per access key).
#[derive(Debug, Clone, Default)]
pub enum PolicyScope {
    #[default]
    Nobody,
    Everyone,
    /// Client ids and access key ids.
    Only(HashSet<String>),
}

impl PolicyScope {
    /// `""` → nobody, `"*"` → everyone, else a comma-separated list of ids.
    pub fn parse(spec: &str) -> PolicyScope {
        match spec.trim() {
            "" => PolicyScope::Nobody,
            "*" => PolicyScope::Everyone,
            list => PolicyScope::Only(list.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()),
        }
    }

    pub fn covers(&self, client_id: &str, access_key_id: &str) -> bool {
        match self {
            PolicyScope::Nobody => false,
            PolicyScope::Everyone => true,
            PolicyScope::Only(ids) => ids.contains(client_id) || ids.contains(access_key_id),
        }
    }
}

#[derive(Clone)]
pub struct BehaviorConfig {
    pub policies: Arc<PolicySet>,
    pub policy_scope: PolicyScope,
    /// Fold scored sessions into the baseline when `is_update` is omitted (spec: "only if
    /// the deployment policy opts in").
    pub auto_update_baseline: bool,
}

impl Default for BehaviorConfig {
    fn default() -> Self {
        BehaviorConfig { policies: Arc::new(PolicySet::empty()), policy_scope: PolicyScope::Nobody, auto_update_baseline: false }
    }
}

pub struct BehaviorHandler {
    /// Devices, challenges and their chains, baselines.
    pub store: Arc<dyn BehaviorStore>,
    /// The server key pairs devices register against.
    pub keys: Arc<dyn KeyStore>,
    pub sealer: Sealer,
    pub config: BehaviorConfig,
}

type Outcome = Result<Envelope, StoreError>;

/// The job is answered with the error `kind` (the request is refused).
fn refuse(kind: ErrorKind) -> Outcome {
    Ok(Envelope::error(Group::Behavior, &kind))
}

/// An internal error, answered (not retried): the job cannot be done as it is.
fn internal_answer(e: impl std::fmt::Display) -> Envelope {
    Envelope::error(Group::Behavior, &ErrorKind::internal(e))
}

use idv_schemas::clock::{now, rfc3339};

/// Ids derived from the request id, so a redelivered job creates the same record.
/// The id a job's record gets (device, challenge): derived from the request id, so a
/// redelivered job, and a replay of the topic (`crate::replay`), find the same one.
pub fn derived_id(request_id: &str, what: &str) -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("idv:{what}:{request_id}").as_bytes()).to_string()
}

fn baseline_aad(client_id: &str, cus_user_id: &str) -> Vec<u8> {
    format!("baseline:{client_id}:{cus_user_id}").into_bytes()
}

/// Open a transaction field sealed by ingest (`sealed:v1:<base64>`), for the policy
/// context only; it is never stored or logged in the clear.
pub fn open_field(sealer: &Sealer, name: &str, value: &Value) -> Value {
    let Some(text) = value.as_str() else { return value.clone() };
    match idv_crypto::sealed::open_text(sealer, &format!("transaction_data:{name}"), text) {
        Ok(Some(plain)) => Value::String(plain),
        Ok(None) => value.clone(),
        // Sealed and not openable here: absent to the policy, never the sealed text.
        Err(_) => Value::Null,
    }
}

impl BehaviorHandler {
    async fn register_device(&self, job: &Job, req: &RegisterDeviceRequest) -> Outcome {
        let key_pair = match self.keys.get_key_pair(&req.key_pair_id).await? {
            Some(k) if k.client_id == job.client_id && k.active => k,
            _ => return refuse(ErrorKind::invalid("key_pair_id", "unknown or inactive key pair")),
        };
        // A device the operator deactivated (`idv devices deactivate`) stays deactivated:
        // registering the same device_id again would otherwise mint an active record.
        let registered = self.store.list_devices(&job.client_id, &req.cus_user_id).await?;
        if registered.iter().any(|d| d.device_id == req.device_id && d.deactivated) {
            return refuse(ErrorKind::DeviceDeactivated);
        }
        let der = if req.protocol.as_deref() == Some("encrypted") {
            let server = match idv_store::vault::open_key_pair(&self.sealer, &key_pair) {
                Ok(s) => s,
                Err(e) => return Ok(internal_answer(e)),
            };
            let esk = req.encrypted_secret_key.as_deref().unwrap_or_default();
            device::decrypt_device_public_key(&server, esk, &req.device_public_key)
        } else {
            device::decode_device_public_key(&req.device_public_key)
        };
        let Ok(der) = der else {
            return refuse(ErrorKind::invalid("device_public_key", "device_public_key is not a usable RSA public key"));
        };
        let record = DeviceRecord {
            customer_user_device_id: derived_id(&job.request_id, "device"),
            client_id: job.client_id.clone(),
            cus_user_id: req.cus_user_id.clone(),
            device_id: req.device_id.clone(),
            key_pair_id: key_pair.key_pair_id,
            public_der: der,
            deactivated: false,
            created_at: rfc3339(now()),
        };
        match self.store.create_device(&record).await {
            Ok(()) | Err(StoreError::AlreadyExists(_)) => {}
            Err(e) => return Err(e),
        }
        Ok(Envelope::ok(
            Group::Behavior,
            json!({"customer_user_device_id": record.customer_user_device_id, "status": "success"}),
        ))
    }

    async fn active_device(&self, id: &str) -> Result<Result<DeviceRecord, ErrorKind>, StoreError> {
        Ok(match self.store.get_device(id).await? {
            None => Err(ErrorKind::DeviceNotFound),
            Some(d) if d.deactivated => Err(ErrorKind::DeviceDeactivated),
            Some(d) => Ok(d),
        })
    }

    async fn create_challenge(&self, job: &Job, req: &CreateChallengeJob) -> Outcome {
        let device = match self.active_device(&req.customer_user_device_id).await? {
            Ok(d) => d,
            Err(kind) => return refuse(kind),
        };
        let Some(key_pair) = self.keys.get_key_pair(&device.key_pair_id).await? else {
            return Ok(internal_answer("the device's key pair is missing"));
        };
        let challenge_id = derived_id(&job.request_id, "challenge");
        let challenge = match self.store.get_challenge(&challenge_id).await? {
            Some(existing) => existing, // redelivered job: same answer
            None => {
                let created = now();
                let c = ChallengeRecord {
                    challenge_id: challenge_id.clone(),
                    client_id: device.client_id.clone(),
                    customer_user_device_id: device.customer_user_device_id.clone(),
                    cus_user_id: device.cus_user_id.clone(),
                    session_id: req.session_id.clone(),
                    nonce: hex::encode(idv_crypto::random_bytes(32)),
                    status: CHALLENGE_OPEN.into(),
                    created_at: rfc3339(created),
                    expires_at: created.unix_timestamp() + CHALLENGE_TTL_SECS,
                    last_seq: -1,
                    last_hash: String::new(),
                };
                self.store.create_challenge(&c).await?;
                c
            }
        };
        Ok(Envelope::ok(
            Group::Behavior,
            json!({
                "challenge_id": challenge.challenge_id,
                "nonce": challenge.nonce,
                "server_public_key": base64::engine::general_purpose::STANDARD.encode(&key_pair.public_der),
            }),
        ))
    }

    async fn push_event_batch(&self, job: &Job, batch: &PushBatchJob) -> Outcome {
        let challenge_id = batch.challenge_id.as_str();
        let Some(challenge) = self.store.get_challenge(challenge_id).await? else {
            return refuse(ErrorKind::ChallengeNotFound);
        };
        if challenge.client_id != job.client_id || challenge.customer_user_device_id != batch.customer_user_device_id {
            return refuse(ErrorKind::ChallengeAccessDenied);
        }
        let seq = batch.seq.unwrap_or(challenge.last_seq + 1);
        let (prev, claimed, nonce) = (batch.prev_batch_hash.as_str(), batch.batch_hash.as_str(), batch.nonce.as_str());
        let nonce_ok = idv_crypto::ct_eq(nonce.as_bytes(), challenge.nonce.as_bytes());
        // A redelivered job (the worker appended the batch, then died before its result
        // was stored) finds its own batch in the chain: the push succeeded. Looked up only
        // for a request with the challenge's nonce whose batch sits at or below the head
        // (or is the head), so neither a normal push nor a stranger's costs a chain read.
        let at_or_below_head = seq <= challenge.last_seq || (!claimed.is_empty() && claimed == challenge.last_hash);
        if nonce_ok && at_or_below_head && self.store.batch_appended_by(challenge_id, &job.request_id).await? {
            return Ok(PushEventBatchRequest::accepted());
        }
        if !nonce_ok || now().unix_timestamp() > challenge.expires_at {
            return refuse(ErrorKind::InvalidNonce);
        }
        if challenge.status != CHALLENGE_OPEN {
            return refuse(ErrorKind::InvalidChallengeStatus);
        }
        // The engine reads at most MAX_BATCHES batches; more would only cost storage and
        // memory at scoring time.
        if seq >= idv_scoring::features::MAX_BATCHES as i64 {
            return refuse(ErrorKind::InvalidBatchEvents {
                message: format!("a challenge takes at most {} batches", idv_scoring::features::MAX_BATCHES),
            });
        }
        if seq != challenge.last_seq + 1 || prev != challenge.last_hash {
            return refuse(ErrorKind::InvalidBatchEvents {
                message: format!("batch does not continue the chain (expected seq {})", challenge.last_seq + 1),
            });
        }
        let data = batch.data_raw.as_str();
        if device::batch_hash(prev, seq.max(0) as u64, data.as_bytes()) != claimed {
            return refuse(ErrorKind::InvalidBatchEvents { message: "batch_hash does not match the batch".into() });
        }
        let batch = BatchRecord {
            challenge_id: challenge_id.to_string(),
            seq,
            prev_batch_hash: prev.to_string(),
            batch_hash: claimed.to_string(),
            data: data.to_string(),
            received_at: rfc3339(now()),
            request_id: job.request_id.clone(),
        };
        if !self.store.append_batch(&batch).await? {
            if self.store.batch_appended_by(challenge_id, &job.request_id).await? {
                return Ok(PushEventBatchRequest::accepted());
            }
            // Another push extended the chain (or the challenge was scored) meanwhile.
            let status = self.store.get_challenge(challenge_id).await?.map(|c| c.status);
            return refuse(if status.as_deref() == Some(CHALLENGE_OPEN) {
                ErrorKind::InvalidBatchEvents { message: "another batch took this place in the chain".into() }
            } else {
                ErrorKind::InvalidChallengeStatus
            });
        }
        Ok(PushEventBatchRequest::accepted())
    }

    async fn score(&self, job: &Job, req: &BehaviorScoreRequest) -> Outcome {
        let Some(challenge) = self.store.get_challenge(&req.challenge_id).await? else {
            return refuse(ErrorKind::ChallengeNotFound);
        };
        if challenge.client_id != job.client_id {
            return refuse(ErrorKind::ChallengeAccessDenied);
        }
        let device = match self.active_device(&challenge.customer_user_device_id).await? {
            Ok(d) => d,
            Err(kind) => return refuse(kind),
        };
        // Scoring finalizes the challenge first, so no batch can slip in after the read.
        self.store.finalize_challenge(&challenge.challenge_id).await?;
        let batches = self.store.list_batches(&challenge.challenge_id).await?;
        if batches.is_empty() {
            return refuse(ErrorKind::NoBatchEvents);
        }
        let data: Vec<Value> = batches.iter().filter_map(|b| serde_json::from_str(&b.data).ok()).collect();
        let session = match extract(&data) {
            Ok(s) => s,
            Err(e) => {
                // Engine-side failure: HTTP 200, data.status failure, engine code.
                return Ok(Envelope::finished(
                    Group::Behavior,
                    json!({"request_id": job.request_id, "status": "failure"}),
                    vec![ApiError { code: e.code().to_string(), message: e.to_string(), detail: None }],
                ));
            }
        };
        let (client, user) = (challenge.client_id.as_str(), device.cus_user_id.as_str());
        let mut outcome = None;
        let mut enrolling = false;
        for _ in 0..BASELINE_CAS_RETRIES {
            match self.score_once(&job.request_id, client, user, &session, req.is_update).await? {
                Round::Done(o) => {
                    outcome = Some(o);
                    break;
                }
                Round::Lost { first } => enrolling = first, // lost a compare-and-set: read again
                Round::Failed(kind) => return refuse(kind),
            }
        }
        let Some(outcome) = outcome else {
            return refuse(if enrolling {
                ErrorKind::BootstrapWaitTimeout
            } else {
                ErrorKind::Internal { message: "baseline kept changing; retry".into() }
            });
        };
        let mut body = json!({"data": outcome.to_data(&job.request_id)});
        if let Some(decision) = policy_decision(&self.config, job, req.transaction_data.as_ref(), Some(&self.sealer), &outcome, &session) {
            body["decision"] = decision.decision_json();
            body["evaluation_details"] = decision.evaluation_details_json();
        }
        Ok(Envelope { http_status: 200, body, retry_after_secs: None })
    }

    /// One read-score-write round over the sealed [`StoredBaseline`].
    async fn score_once(
        &self,
        request_id: &str,
        client: &str,
        user: &str,
        session: &idv_scoring::features::SessionFeatures,
        is_update: Option<bool>,
    ) -> Result<Round, StoreError> {
        let aad = baseline_aad(client, user);
        let stored = self.store.get_baseline(client, user).await?;
        let (mut state, version) = match &stored {
            None => (StoredBaseline::default(), None),
            Some(rec) => match self.open_baseline(rec, &aad) {
                Ok(b) => (b, Some(rec.version)),
                Err(message) => return Ok(Round::Failed(ErrorKind::Internal { message })),
            },
        };
        // This job already folded its session (a retry after the write): answer as then.
        if let Some(last) = state.last_fold.as_ref().filter(|l| l.request_id == request_id) {
            return Ok(Round::Done(last.outcome.clone()));
        }
        let first = state.baseline.is_empty();
        let (outcome, fold) = match score_against(&state.baseline, session, is_update, self.config.auto_update_baseline) {
            Ok(scored) => scored,
            // Nothing is written: an unscorable session does not change the baseline.
            Err(why) => return Ok(Round::Failed(ErrorKind::InsufficientBehaviorData { message: why.reason().into() })),
        };
        if fold {
            state.baseline.fold(session);
            state.last_fold = Some(LastFold { request_id: request_id.to_string(), outcome: outcome.clone() });
            let text = match serde_json::to_string(&state) {
                Ok(t) => t,
                Err(e) => return Ok(Round::Failed(ErrorKind::Internal { message: e.to_string() })),
            };
            let record = BaselineRecord {
                client_id: client.to_string(),
                cus_user_id: user.to_string(),
                version: version.unwrap_or(0) + 1,
                data: self.sealer.seal(text.as_bytes(), &aad),
                updated_at: rfc3339(now()),
            };
            match self.store.put_baseline(&record, version).await {
                Ok(true) => {}
                Ok(false) => return Ok(Round::Lost { first }),
                Err(_) if first => return Ok(Round::Failed(ErrorKind::BootstrapFailed)),
                Err(e) => return Err(e),
            }
        }
        Ok(Round::Done(outcome))
    }

    fn open_baseline(&self, rec: &BaselineRecord, aad: &[u8]) -> Result<StoredBaseline, String> {
        let plain = self.sealer.open(&rec.data, aad).map_err(|e| format!("baseline: {e}"))?;
        serde_json::from_slice(&plain).map_err(|e| format!("baseline: {e}"))
    }
}

/// The score of `session` against `baseline`, and whether the session is to be folded into
/// it: the first session enrolls (unless `is_update` is false) and answers the synthetic
/// first-session result; later ones fold when `is_update` says so, or by the deployment's
/// default. Pure: the handler stores the fold, a replay keeps it in memory.
pub fn score_against(
    baseline: &idv_scoring::baseline::Baseline,
    session: &idv_scoring::features::SessionFeatures,
    is_update: Option<bool>,
    auto_update_baseline: bool,
) -> Result<(idv_scoring::engine::ScoreOutcome, bool), idv_scoring::engine::NotScorable> {
    let first = baseline.is_empty();
    let fold = match (first, is_update) {
        (true, Some(false)) => false,
        (true, _) => true,
        (false, Some(u)) => u,
        (false, None) => auto_update_baseline,
    };
    let outcome = if first { first_session(if fold { baseline.sessions() + 1 } else { 0 }) } else { score(baseline, session)? };
    Ok((outcome, fold))
}

/// The deployment policy's decision for a scored session, when the policy covers the
/// caller. Sealed transaction fields are opened with `sealer`; without one (a replay run
/// without the master key) they stay sealed and rules on them see `null`.
pub fn policy_decision(
    config: &BehaviorConfig,
    job: &Job,
    transaction: Option<&idv_schemas::api::TransactionData>,
    sealer: Option<&Sealer>,
    outcome: &idv_scoring::engine::ScoreOutcome,
    session: &idv_scoring::features::SessionFeatures,
) -> Option<idv_scoring::policy::PolicyDecision> {
    if !config.policy_scope.covers(&job.client_id, &job.access_key_id) {
        return None;
    }
    let tx = transaction.and_then(|t| serde_json::to_value(t).ok()).map(|mut t| {
        if let Some(obj) = t.as_object_mut() {
            for (k, v) in obj.iter_mut() {
                *v = match sealer {
                    Some(sealer) => open_field(sealer, k, v),
                    None if v.as_str().is_some_and(idv_crypto::sealed::is_sealed_text) => Value::Null,
                    None => v.clone(),
                };
            }
        }
        t
    });
    let ctx = idv_scoring::scoring_context(outcome, tx.as_ref(), Some(&session.device.to_json()));
    Some(config.policies.evaluate(&ctx, outcome.risk_level))
}

/// What the store holds (sealed) per (client, user): the baseline, and the last fold's
/// request and answer, so a redelivered score job neither folds twice nor answers
/// differently.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct StoredBaseline {
    baseline: Baseline,
    #[serde(default)]
    last_fold: Option<LastFold>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct LastFold {
    request_id: String,
    outcome: ScoreOutcome,
}

enum Round {
    Done(ScoreOutcome),
    /// Another writer won the compare-and-set; `first` if this was an enrollment.
    Lost { first: bool },
    Failed(ErrorKind),
}

#[async_trait]
impl JobHandler for BehaviorHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        match &job.work {
            Work::RegisterDevice(req) => self.register_device(job, req).await,
            Work::CreateChallenge(req) => self.create_challenge(job, req).await,
            Work::PushEventBatch(batch) => self.push_event_batch(job, batch).await,
            Work::BehaviorScore(req) => self.score(job, req).await,
            _ => Ok(internal_answer(format!("{} is not a behavior job", job.operation().name()))),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The 503 paths of first-session enrollment, with a store whose baseline writes fail
    //! or always lose the compare-and-set (everything else is the real SQLite store).
    use super::*;
    use idv_schemas::jobs::JOB_SCHEMA_VERSION;
    use idv_schemas::Operation;
    use idv_store::*;

    #[derive(Clone, Copy)]
    enum BaselineWrites {
        Fail,
        AlwaysLose,
    }

    struct FlakyBaselines {
        inner: idv_store::sqlite::SqliteStore,
        mode: BaselineWrites,
    }

    /// Only the behavioral area: the handler reads key pairs from another store.
    #[async_trait]
    impl BehaviorStore for FlakyBaselines {
        async fn create_device(&self, device: &DeviceRecord) -> Result<()> {
            self.inner.create_device(device).await
        }
        async fn get_device(&self, id: &str) -> Result<Option<DeviceRecord>> {
            self.inner.get_device(id).await
        }
        async fn set_device_deactivated(&self, id: &str, deactivated: bool) -> Result<bool> {
            self.inner.set_device_deactivated(id, deactivated).await
        }
        async fn list_devices(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<DeviceRecord>> {
            self.inner.list_devices(client_id, cus_user_id).await
        }
        async fn delete_device(&self, id: &str) -> Result<bool> {
            self.inner.delete_device(id).await
        }
        async fn create_challenge(&self, challenge: &ChallengeRecord) -> Result<()> {
            self.inner.create_challenge(challenge).await
        }
        async fn get_challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>> {
            self.inner.get_challenge(challenge_id).await
        }
        async fn append_batch(&self, batch: &BatchRecord) -> Result<bool> {
            self.inner.append_batch(batch).await
        }
        async fn list_batches(&self, challenge_id: &str) -> Result<Vec<BatchRecord>> {
            self.inner.list_batches(challenge_id).await
        }
        async fn finalize_challenge(&self, challenge_id: &str) -> Result<bool> {
            self.inner.finalize_challenge(challenge_id).await
        }
        async fn get_baseline(&self, client_id: &str, cus_user_id: &str) -> Result<Option<BaselineRecord>> {
            self.inner.get_baseline(client_id, cus_user_id).await
        }
        async fn put_baseline(&self, _baseline: &BaselineRecord, _expected: Option<i64>) -> Result<bool> {
            match self.mode {
                BaselineWrites::Fail => Err(StoreError::Backend("disk full".into())),
                BaselineWrites::AlwaysLose => Ok(false),
            }
        }
    }

    async fn scored_challenge(store: &dyn BehaviorStore) -> String {
        let device = DeviceRecord {
            customer_user_device_id: "dev-1".into(),
            client_id: "client-a".into(),
            cus_user_id: "user-1".into(),
            device_id: "d".into(),
            key_pair_id: "kp".into(),
            public_der: vec![],
            deactivated: false,
            created_at: "t".into(),
        };
        store.create_device(&device).await.unwrap();
        let challenge = ChallengeRecord {
            challenge_id: uuid::Uuid::new_v4().to_string(),
            client_id: "client-a".into(),
            customer_user_device_id: "dev-1".into(),
            cus_user_id: "user-1".into(),
            session_id: "s".into(),
            nonce: "ab".repeat(32),
            status: CHALLENGE_OPEN.into(),
            created_at: "t".into(),
            expires_at: i64::MAX,
            last_seq: -1,
            last_hash: String::new(),
        };
        store.create_challenge(&challenge).await.unwrap();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let batches = idv_scoring::synth::User::new(5).session_batches(2, &mut rng);
        let mut prev = String::new();
        for (seq, data) in batches.iter().enumerate() {
            let text = serde_json::to_string(data).unwrap();
            let hash = device::batch_hash(&prev, seq as u64, text.as_bytes());
            let b = BatchRecord {
                challenge_id: challenge.challenge_id.clone(),
                seq: seq as i64,
                prev_batch_hash: prev.clone(),
                batch_hash: hash.clone(),
                data: text,
                received_at: "t".into(),
                request_id: format!("push-{seq}"),
            };
            assert!(store.append_batch(&b).await.unwrap());
            prev = hash;
        }
        challenge.challenge_id
    }

    async fn score_with(mode: BaselineWrites) -> Envelope {
        let store = Arc::new(FlakyBaselines { inner: idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap(), mode });
        let challenge_id = scored_challenge(store.as_ref()).await;
        let keys: Arc<dyn KeyStore> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap());
        let handler = BehaviorHandler { store, keys, sealer: Sealer::new(1, &[1u8; 32]).unwrap(), config: BehaviorConfig::default() };
        let job = Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: uuid::Uuid::new_v4().to_string(),
            client_id: "client-a".into(),
            access_key_id: "ak".into(),
            reply_to: "i".into(),
            created_at: "t".into(),
            work: Work::BehaviorScore(BehaviorScoreRequest { challenge_id, ..Default::default() }),
        };
        handler.handle(&job).await.unwrap()
    }

    #[tokio::test]
    async fn enrollment_write_failure_is_bootstrap_failed() {
        let env = score_with(BaselineWrites::Fail).await;
        assert_eq!((env.http_status, env.first_error_code()), (503, Some("bootstrap_failed")));
        assert!(env.body.get("data").is_none());
    }

    #[tokio::test]
    async fn losing_every_enrollment_race_is_bootstrap_wait_timeout() {
        let env = score_with(BaselineWrites::AlwaysLose).await;
        assert_eq!((env.http_status, env.first_error_code()), (503, Some("bootstrap_wait_timeout")));
    }

    #[tokio::test]
    async fn a_redelivered_push_finds_its_batch_and_a_client_re_push_does_not() {
        let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").expect("store"));
        let challenge_id = scored_challenge(store.as_ref()).await;
        let handler = BehaviorHandler { store: store.clone(), keys: store.clone(), sealer: Sealer::new(1, &[1u8; 32]).expect("sealer"), config: BehaviorConfig::default() };
        let chain = store.list_batches(&challenge_id).await.expect("list");
        let last = chain.last().expect("two batches");
        let push = |request_id: &str| Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: request_id.into(),
            client_id: "client-a".into(),
            access_key_id: "ak".into(),
            reply_to: "i".into(),
            created_at: "t".into(),
            work: Work::PushEventBatch(PushBatchJob {
                challenge_id: challenge_id.clone(),
                customer_user_device_id: "dev-1".into(),
                nonce: "ab".repeat(32),
                seq: Some(last.seq),
                prev_batch_hash: last.prev_batch_hash.clone(),
                batch_hash: last.batch_hash.clone(),
                data_raw: last.data.clone(),
            }),
        };
        // The job that appended batch 1, delivered again.
        let again = handler.handle(&push(&last.request_id)).await.expect("handle");
        assert_eq!((again.http_status, again.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", again.body);
        // The same bytes under a new request: a reused seq.
        let re_push = handler.handle(&push("another-request")).await.expect("handle");
        assert_eq!((re_push.http_status, re_push.first_error_code()), (400, Some("invalid_batch_events")));
        assert_eq!(store.list_batches(&challenge_id).await.expect("list").len(), 2, "nothing appended");
        // Another client's job with the same request id learns nothing.
        let mut foreign = push(&last.request_id);
        foreign.client_id = "client-b".into();
        let env = handler.handle(&foreign).await.expect("handle");
        assert_eq!(env.first_error_code(), Some("challenge_access_denied"));
    }

    /// The workers' one JobHandler suite: a repeated score or push answers as the first
    /// time and folds, appends and finalizes once.
    #[tokio::test]
    async fn behavior_handler_conforms() {
        use idv_jobs::conformance::{run_suite, Case};
        let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").expect("store"));
        let challenge_id = scored_challenge(store.as_ref()).await;
        let chain = store.list_batches(&challenge_id).await.expect("list");
        let last = chain.last().expect("two batches");
        let job = |op: Operation, payload: Value| idv_jobs::conformance::job(op, "client-a", payload);
        let mut push = job(
            Operation::PushEventBatch,
            json!({"challenge_id": challenge_id, "customer_user_device_id": "dev-1", "nonce": "ab".repeat(32),
                   "seq": last.seq, "prev_batch_hash": last.prev_batch_hash, "batch_hash": last.batch_hash, "data_raw": last.data}),
        );
        push.request_id = last.request_id.clone();
        let cases = vec![
            Case::new("push_event_batch, redelivered", push),
            Case::new("behavior/score, first session", job(Operation::BehaviorScore, json!({"challenge_id": challenge_id}))),
            Case::new("behavior/score, unknown challenge", job(Operation::BehaviorScore, json!({"challenge_id": uuid::Uuid::new_v4().to_string()}))),
        ];
        let handler: Arc<dyn JobHandler> =
            Arc::new(BehaviorHandler { store: store.clone(), keys: store.clone(), sealer: Sealer::new(1, &[1u8; 32]).expect("sealer"), config: BehaviorConfig::default() });
        let probe = store.clone();
        let challenge = challenge_id.clone();
        run_suite(handler, store, cases, move || {
            let (store, challenge) = (probe.clone(), challenge.clone());
            async move {
                let baseline = store.get_baseline("client-a", "user-1").await.expect("baseline").map(|b| b.version);
                let batches = store.list_batches(&challenge).await.expect("batches").len();
                let status = store.get_challenge(&challenge).await.expect("challenge").map(|c| format!("{c:?}"));
                format!("{baseline:?} {batches} {status:?}")
            }
        })
        .await;
    }

    #[test]
    fn policy_scope_parsing() {
        assert!(!PolicyScope::parse("").covers("c", "k"));
        assert!(PolicyScope::parse("*").covers("c", "k"));
        let only = PolicyScope::parse("c1, AK2");
        assert!(only.covers("c1", "x") && only.covers("x", "AK2") && !only.covers("c2", "AK3"));
    }
}
