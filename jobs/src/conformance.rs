//! The one conformance suite every [`JobHandler`] runs, as `idv_store::conformance` is
//! for stores. Delivery is at-least-once, so any job may reach a handler twice: a worker
//! can die after the handler's effects and before the result is stored. Every handler
//! therefore must
//!
//! 1. answer a repeated job as it answered it the first time (same status, same code,
//!    same body apart from clock fields), and
//! 2. not repeat its effects (the caller's `effects` probe reads the same before and
//!    after the repeat: histories, SMS sent, baseline versions...);
//!
//! and through the runtime ([`crate::runtime::process`]),
//!
//! 3. a job redelivered after its result was stored is not handled again, and the stored
//!    answer is the first one; for an operation without a request record
//!    (`Operation::recorded`), a redelivered job is answered the same again, acts once,
//!    and leaves no record.
//!
//! Run it with [`run_suite`] from each handler's tests (workers, scorer, tests/); the
//! `testing` feature exposes it to other crates.

use crate::runtime::{process, JobHandler, WorkerDeps};
use async_trait::async_trait;
use idv_bus::Delivery;
use idv_schemas::jobs::Job;
use idv_schemas::ops::Topic;
use idv_schemas::Envelope;
use idv_store::{RequestRecord, Store, StoreError};
use serde_json::Value;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One job to run through the suite, named for failure messages.
pub struct Case {
    pub name: String,
    pub job: Job,
}

impl Case {
    pub fn new(name: impl Into<String>, job: Job) -> Self {
        Case { name: name.into(), job }
    }
}

/// A job for a suite case or a handler test: a fresh request id, `client_id`'s, answered
/// to instance `test`.
/// `payload` is the operation's payload as JSON (it panics on one that does not fit: a
/// test's own input).
pub fn job(op: idv_schemas::Operation, client_id: &str, payload: Value) -> Job {
    let work = match idv_schemas::jobs::Work::decode(op, payload) {
        Ok(Some(work)) => work,
        Ok(None) => panic!("{} has no jobs", op.name()),
        Err(e) => panic!("not a {} payload: {e}", op.name()),
    };
    Job {
        schema_version: idv_schemas::jobs::JOB_SCHEMA_VERSION,
        request_id: uuid::Uuid::new_v4().to_string(),
        client_id: client_id.into(),
        access_key_id: "ak".into(),
        reply_to: "test".into(),
        created_at: "2026-11-23T00:00:00Z".into(),
        work,
    }
}

/// Fields that legitimately differ between two runs of the same job: clock readings and
/// the incident id of an internal error (a fresh one per answer, by design).
const VOLATILE: &[&str] = &["created_at", "updated_at", "time", "finished_at", "incident_id", "expiry_date_face"];

/// The body with every [`VOLATILE`] key removed, at any depth.
pub fn stable(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().filter(|(k, _)| !VOLATILE.contains(&k.as_str())).map(|(k, v)| (k.clone(), stable(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(stable).collect()),
        other => other.clone(),
    }
}

struct Counting {
    inner: Arc<dyn JobHandler>,
    runs: AtomicUsize,
}

#[async_trait]
impl JobHandler for Counting {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        self.inner.handle(job).await
    }
}

/// The master key of the suite's runtime (seals the answers of personal operations).
fn test_sealer() -> idv_crypto::sealed::Sealer {
    idv_crypto::sealed::Sealer::new(1, &[7u8; 32]).unwrap_or_else(|e| panic!("sealer: {e}"))
}

/// Runs every check on every case. `effects` reads whatever the handler changes (in its
/// store, its operator simulator...) as a comparable string.
pub async fn run_suite<F, Fut>(handler: Arc<dyn JobHandler>, store: Arc<dyn Store>, cases: Vec<Case>, effects: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = String>,
{
    assert!(!cases.is_empty(), "a suite without cases checks nothing");
    for case in cases {
        repeated_job_answers_the_same_and_acts_once(handler.as_ref(), &case, &effects).await;
        if case.job.operation().recorded() {
            stored_result_is_not_recomputed(handler.clone(), store.clone(), &case).await;
        } else {
            redelivery_without_a_record_answers_the_same(handler.clone(), store.clone(), &case, &effects).await;
        }
    }
}

async fn repeated_job_answers_the_same_and_acts_once<F, Fut>(handler: &dyn JobHandler, case: &Case, effects: &F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = String>,
{
    let name = &case.name;
    let first = handler.handle(&case.job).await.unwrap_or_else(|e| panic!("{name}: first run: {e}"));
    let after_first = effects().await;
    let second = handler.handle(&case.job).await.unwrap_or_else(|e| panic!("{name}: repeated run: {e}"));
    let after_second = effects().await;
    assert_eq!(first.http_status, second.http_status, "{name}: status changed on a repeat");
    assert_eq!(first.first_error_code(), second.first_error_code(), "{name}: code changed on a repeat");
    assert_eq!(stable(&first.body), stable(&second.body), "{name}: answer changed on a repeat");
    assert_eq!(after_first, after_second, "{name}: effects repeated");
}

/// Both answers sent on the results topic are the same, the effects did not repeat, and
/// no request record was written.
async fn redelivery_without_a_record_answers_the_same<F, Fut>(handler: Arc<dyn JobHandler>, store: Arc<dyn Store>, case: &Case, effects: &F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = String>,
{
    let name = &case.name;
    let bus = idv_bus::open("memory://").await.unwrap_or_else(|e| panic!("{name}: bus: {e}"));
    bus.ensure_topics(&[Topic::Results.name()], 1).await.unwrap_or_else(|e| panic!("{name}: topics: {e}"));
    let mut results = bus.subscribe_broadcast(Topic::Results.name()).await.unwrap_or_else(|e| panic!("{name}: results: {e}"));
    let metrics = Arc::new(crate::metrics::JobMetrics::unregistered().unwrap_or_else(|e| panic!("{name}: metrics: {e}")));
    let deps = WorkerDeps { bus, store: store.clone(), metrics, sealer: test_sealer() };
    let delivery = Delivery {
        topic: "conformance".into(),
        partition: 0,
        offset: 0,
        key: Vec::new(),
        payload: case.job.encode().unwrap_or_default(),
    };
    let mut answers = Vec::new();
    let mut seen = Vec::new();
    for attempt in ["first delivery", "redelivery"] {
        process(&deps, handler.as_ref(), &delivery).await.unwrap_or_else(|e| panic!("{name}: {attempt}: {e}"));
        seen.push(effects().await);
        let sent = results.recv().await.unwrap_or_else(|e| panic!("{name}: {attempt}: no result sent: {e}"));
        let result: idv_schemas::jobs::JobResult =
            serde_json::from_slice(&sent.payload).unwrap_or_else(|e| panic!("{name}: {attempt}: unreadable result: {e}"));
        assert_eq!(result.request_id, case.job.request_id, "{name}: {attempt}: the result names another request");
        answers.push(result.envelope);
    }
    assert_eq!(seen[0], seen[1], "{name}: effects repeated on a redelivery");
    assert_eq!(answers[0].http_status, answers[1].http_status, "{name}: status changed on a redelivery");
    assert_eq!(answers[0].first_error_code(), answers[1].first_error_code(), "{name}: code changed on a redelivery");
    assert_eq!(stable(&answers[0].body), stable(&answers[1].body), "{name}: answer changed on a redelivery");
    let record = store.get_request(&case.job.request_id).await.unwrap_or_else(|e| panic!("{name}: read record: {e}"));
    assert!(record.is_none(), "{name}: an operation without a request record wrote one");
}

async fn stored_result_is_not_recomputed(handler: Arc<dyn JobHandler>, store: Arc<dyn Store>, case: &Case) {
    let name = &case.name;
    // A fresh request id: this part starts from nothing stored.
    let mut job = case.job.clone();
    job.request_id = uuid::Uuid::new_v4().to_string();
    store
        .create_request(&RequestRecord {
            request_id: job.request_id.clone(),
            client_id: job.client_id.clone(),
            operation: job.operation().name().into(),
            created_at: job.created_at.clone(),
            response: None,
            finished_at: None,
        })
        .await
        .unwrap_or_else(|e| panic!("{name}: create request: {e}"));
    let bus = idv_bus::open("memory://").await.unwrap_or_else(|e| panic!("{name}: bus: {e}"));
    bus.ensure_topics(&[Topic::Results.name()], 1).await.unwrap_or_else(|e| panic!("{name}: topics: {e}"));
    let metrics = Arc::new(crate::metrics::JobMetrics::unregistered().unwrap_or_else(|e| panic!("{name}: metrics: {e}")));
    let deps = WorkerDeps { bus, store: store.clone(), metrics: metrics.clone(), sealer: test_sealer() };
    let counting = Counting { inner: handler, runs: AtomicUsize::new(0) };
    let delivery = Delivery {
        topic: "conformance".into(),
        partition: 0,
        offset: 0,
        key: Vec::new(),
        payload: job.encode().unwrap_or_default(),
    };
    process(&deps, &counting, &delivery).await.unwrap_or_else(|e| panic!("{name}: first delivery: {e}"));
    let stored = store.get_request(&job.request_id).await.ok().flatten().and_then(|r| r.response);
    assert!(stored.is_some(), "{name}: no result stored after the first delivery");
    process(&deps, &counting, &delivery).await.unwrap_or_else(|e| panic!("{name}: redelivery: {e}"));
    assert_eq!(counting.runs.load(Ordering::SeqCst), 1, "{name}: a stored result was computed again");
    assert_eq!(metrics.redeliveries.with_label_values(&["conformance"]).get(), 1, "{name}: the redelivery is counted");
    let again = store.get_request(&job.request_id).await.ok().flatten().and_then(|r| r.response);
    assert_eq!(stored, again, "{name}: the stored answer changed");
}
