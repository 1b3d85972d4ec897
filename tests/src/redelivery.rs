//! A worker takes a job, does the work, stores the result, and dies before committing
//! the offset. The job comes back to the group; the next worker finds the stored result,
//! re-sends it, and does not run the handler again: the effect happens once.

use async_trait::async_trait;
use idv_bus::{Bus, StartFrom};
use idv_schemas::jobs::{Job, JobResult, JOB_SCHEMA_VERSION};
use idv_schemas::ops::Topic;
use idv_schemas::{Envelope, Group};
use idv_store::{RequestRecord, Store};
use idv_jobs::runtime::{process, worker_group, JobHandler, WorkerDeps};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

struct CountingHandler {
    runs: AtomicUsize,
}

#[async_trait]
impl JobHandler for CountingHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, idv_store::StoreError> {
        let n = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Envelope::ok(Group::Face, serde_json::json!({"status": "success", "request_id": job.request_id, "run": n})))
    }
}

pub async fn run(bus: Arc<dyn Bus>) {
    let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").expect("sqlite"));
    // Fresh topic names so the test can share a broker with others.
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    let jobs_topic = format!("{}.{suffix}", Topic::Face.name());
    bus.ensure_topics(&[&jobs_topic, Topic::Results.name()], 1).await.expect("topics");
    let metrics = Arc::new(idv_jobs::metrics::JobMetrics::unregistered().expect("metrics"));
    let deps = WorkerDeps { bus: bus.clone(), store: store.clone(), metrics: metrics.clone(), sealer: idv_crypto::sealed::Sealer::new(1, &[1u8; 32]).expect("sealer") };
    let handler = CountingHandler { runs: AtomicUsize::new(0) };
    let mut results = bus.subscribe(Topic::Results.name(), &format!("results-{suffix}"), StartFrom::Latest).await.expect("results");

    let request_id = uuid::Uuid::new_v4().to_string();
    let reply_to = format!("ingest-{suffix}");
    store
        .create_request(&RequestRecord {
            request_id: request_id.clone(),
            client_id: "c".into(),
            operation: "face_auth_user".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            response: None,
            finished_at: None,
        })
        .await
        .expect("request");
    let job = Job {
        schema_version: JOB_SCHEMA_VERSION,
        request_id: request_id.clone(),
        client_id: "c".into(),
        access_key_id: "ak".into(),
        reply_to: reply_to.clone(),
        created_at: "2026-01-01T00:00:00Z".into(),
        work: idv_schemas::jobs::Work::FaceAuthUser(idv_schemas::api::CusUserRequest { cus_user_id: "u".into() }),
    };
    bus.publish(&jobs_topic, b"c\0u", &job.encode().expect("json")).await.expect("publish");

    let group = worker_group(Topic::Face) + &suffix;
    {
        let mut dying = bus.subscribe(&jobs_topic, &group, StartFrom::Earliest).await.expect("subscribe");
        let d = tokio::time::timeout(Duration::from_secs(45), dying.recv()).await.expect("job arrives").expect("recv");
        process(&deps, &handler, &d).await.expect("processed");
        // Dies here: result stored and sent, offset never committed.
    }
    let mut next = bus.subscribe(&jobs_topic, &group, StartFrom::Earliest).await.expect("subscribe");
    let d = tokio::time::timeout(Duration::from_secs(45), next.recv()).await.expect("redelivered").expect("recv");
    let redelivered = Job::decode(&d.payload).expect("job");
    assert_eq!(redelivered.request_id, request_id, "the uncommitted job comes back");
    process(&deps, &handler, &d).await.expect("processed again");
    next.commit(&d).await.expect("commit");
    assert_eq!(handler.runs.load(Ordering::SeqCst), 1, "the effect happens once");
    assert_eq!(metrics.redeliveries.with_label_values(&[jobs_topic.as_str()]).get(), 1, "the redelivery is counted");

    // Both deliveries answered, with the same stored result.
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let r = tokio::time::timeout(Duration::from_secs(45), results.recv()).await.expect("result").expect("recv");
        results.commit(&r).await.expect("commit");
        let res: JobResult = serde_json::from_slice(&r.payload).expect("result json");
        if res.request_id == request_id {
            answers.push(res.envelope);
        }
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].body["data"]["run"], 1);
}
