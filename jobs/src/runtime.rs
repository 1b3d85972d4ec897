//! The consume → handle → store → reply → commit loop every worker role runs.
//!
//! At-least-once, idempotent by request id: a job redelivered after a crash finds its
//! result already stored (first completion wins in the store) and only re-sends it; its
//! effect is not applied twice. Handlers whose effects are not naturally idempotent must
//! check the stored state themselves (see `face::FaceHandler`).

use async_trait::async_trait;
use idv_bus::{Bus, Consumer, Delivery, StartFrom};
use idv_schemas::jobs::{Job, JobDecodeError, JobResult, RESULT_SCHEMA_VERSION};
use idv_schemas::ops::Topic;
use idv_schemas::{Envelope, ErrorKind, Group, Operation};
use crate::metrics::JobMetrics;
use idv_store::{Completion, Store};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;
use tracing::Instrument;

#[async_trait]
pub trait JobHandler: Send + Sync + 'static {
    /// Run one job to its response envelope. Errors the caller should see are envelopes;
    /// `Err` means "could not decide now" (store down): the job is retried, not answered.
    async fn handle(&self, job: &Job) -> Result<Envelope, idv_store::StoreError>;
}

#[derive(Clone)]
pub struct WorkerDeps {
    pub bus: Arc<dyn Bus>,
    pub store: Arc<dyn Store>,
    pub metrics: Arc<JobMetrics>,
    /// Seals the answers of personal operations.
    pub sealer: idv_crypto::sealed::Sealer,
}

/// The consumer group of the workers of a topic.
pub fn worker_group(topic: Topic) -> String {
    format!("idv-workers-{}", topic.name())
}

use idv_schemas::clock::now_rfc3339 as now;

/// Start `concurrency` consumers of `topic`, all in the topic's worker group.
pub async fn spawn_pool(
    deps: WorkerDeps,
    topic: Topic,
    handler: Arc<dyn JobHandler>,
    concurrency: usize,
    shutdown: watch::Receiver<bool>,
) -> Result<Vec<tokio::task::JoinHandle<()>>, idv_bus::BusError> {
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let consumer = deps.bus.subscribe(topic.name(), &worker_group(topic), StartFrom::Earliest).await?;
        tasks.push(tokio::spawn(run_consumer(deps.clone(), consumer, handler.clone(), shutdown.clone())));
    }
    Ok(tasks)
}

/// Jobs one consumer runs at once: its read-ahead window. Jobs of different keys (client,
/// customer user) in the window run concurrently, so the vision pool's fair slots
/// (`vision/src/pool.rs`) see every client's waiting work and a burst of one client's
/// heavy jobs no longer stands in front of another client's job on the partition; one
/// key's jobs still run one after another, in offset order. Offsets are committed in order:
/// only up to the first job that is not done.
pub const READ_AHEAD: usize = 32;

/// A job of the window, as its task reports it back.
struct Finished {
    partition: i32,
    offset: i64,
    key: Vec<u8>,
    sequence: u64,
    done: bool,
}

/// Offsets received and not yet committed, per partition, and whether each is done.
#[derive(Default)]
struct CommitWindow {
    partitions: HashMap<i32, BTreeMap<i64, bool>>,
}

impl CommitWindow {
    fn received(&mut self, partition: i32, offset: i64) {
        self.partitions.entry(partition).or_default().insert(offset, false);
    }

    /// Marks `offset` done; returns the offset to commit when the run of done offsets at
    /// the start of the partition grew.
    fn done(&mut self, partition: i32, offset: i64) -> Option<i64> {
        let offsets = self.partitions.get_mut(&partition)?;
        if let Some(d) = offsets.get_mut(&offset) {
            *d = true;
        }
        let mut last = None;
        while let Some(entry) = offsets.first_entry() {
            if !*entry.get() {
                break;
            }
            last = Some(entry.remove_entry().0);
        }
        last
    }
}

pub async fn run_consumer(
    deps: WorkerDeps,
    mut consumer: Box<dyn Consumer>,
    handler: Arc<dyn JobHandler>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut running: JoinSet<Finished> = JoinSet::new();
    let mut window = CommitWindow::default();
    // The completion of the last job taken per key: the next job of that key waits for it.
    let mut last_of_key: HashMap<Vec<u8>, (u64, oneshot::Receiver<()>)> = HashMap::new();
    let mut sequence = 0u64;
    let mut topic = String::new();
    let mut receiving = true;
    loop {
        if !receiving && running.is_empty() {
            return;
        }
        tokio::select! {
            biased;
            joined = running.join_next(), if !running.is_empty() => {
                deps.metrics.jobs_in_flight.with_label_values(&[topic.as_str()]).dec();
                let finished = match joined {
                    Some(Ok(f)) => f,
                    // A panicking job is not done: its offset is never committed here and
                    // the job comes back to the group after a restart.
                    Some(Err(e)) => {
                        tracing::error!(error = %e, "job task failed; its offset stays uncommitted");
                        continue;
                    }
                    None => continue,
                };
                if last_of_key.get(&finished.key).is_some_and(|(seq, _)| *seq == finished.sequence) {
                    last_of_key.remove(&finished.key);
                }
                if !finished.done {
                    continue;
                }
                if let Some(offset) = window.done(finished.partition, finished.offset) {
                    let up_to = Delivery { topic: topic.clone(), partition: finished.partition, offset, key: Vec::new(), payload: Vec::new() };
                    if let Err(e) = consumer.commit(&up_to).await {
                        deps.metrics.commit_errors.with_label_values(&[topic.as_str()]).inc();
                        tracing::warn!(error = %e, "commit failed; the job may be redelivered (handled idempotently)");
                    }
                }
            }
            delivery = idv_bus::recv_until_shutdown(&mut consumer, &mut shutdown), if receiving && running.len() < READ_AHEAD => {
                let Some(delivery) = delivery else {
                    // Shutting down: take nothing new; the jobs running finish (or give up
                    // at their next retry) and what is done is committed.
                    receiving = false;
                    continue;
                };
                topic.clone_from(&delivery.topic);
                deps.metrics.jobs_in_flight.with_label_values(&[topic.as_str()]).inc();
                window.received(delivery.partition, delivery.offset);
                sequence += 1;
                let (done_tx, done_rx) = oneshot::channel();
                let before = last_of_key.insert(delivery.key.clone(), (sequence, done_rx)).map(|(_, rx)| rx);
                let (deps, handler, mut shutdown) = (deps.clone(), handler.clone(), shutdown.clone());
                let sequence_of_job = sequence;
                running.spawn(async move {
                    if let Some(before) = before {
                        // Sent or dropped: either way the key's previous job has finished.
                        let _ = before.await;
                    }
                    let done = process_until_done(&deps, handler.as_ref(), &delivery, &mut shutdown).await;
                    drop(done_tx);
                    Finished { partition: delivery.partition, offset: delivery.offset, key: delivery.key, sequence: sequence_of_job, done }
                });
            }
        }
    }
}

/// Retries `delivery` until its work is durably done (`true`), or until shutdown
/// (`false`: left uncommitted, it comes back to the group).
async fn process_until_done(deps: &WorkerDeps, handler: &dyn JobHandler, delivery: &Delivery, shutdown: &mut watch::Receiver<bool>) -> bool {
    let mut backoff = Duration::from_millis(100);
    loop {
        match process(deps, handler, delivery).await {
            Ok(()) => return true,
            Err(e) => {
                deps.metrics.job_retries.with_label_values(&[delivery.topic.as_str()]).inc();
                tracing::warn!(error = %e, offset = delivery.offset, "job not done; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = shutdown.changed() => return false,
                }
                backoff = (backoff * 2).min(Duration::from_secs(10));
            }
        }
    }
}

/// One delivery, start to finish. `Ok` means its result is stored and sent.
pub async fn process(deps: &WorkerDeps, handler: &dyn JobHandler, delivery: &Delivery) -> Result<(), idv_store::StoreError> {
    let started = std::time::Instant::now();
    // The payload is decoded here, once, into its operation's type.
    let job = match Job::decode(&delivery.payload) {
        Ok(job) => job,
        Err(e) => {
            deps.metrics.unreadable_jobs.with_label_values(&[delivery.topic.as_str()]).inc();
            // A job that cannot be read never will be: answer it if it names a request,
            // then let it go rather than block the partition.
            tracing::error!(error = %e, offset = delivery.offset, "unreadable job skipped");
            match e {
                JobDecodeError::Payload { request_id, reply_to, operation, .. }
                | JobDecodeError::NoJob { request_id, reply_to, operation } => {
                    let env = Envelope::error(operation.group(), &ErrorKind::Internal { message: "unreadable job".into() });
                    finish(deps, &request_id, &reply_to, env, Some(operation)).await?;
                }
                JobDecodeError::Envelope(_) => {
                    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&delivery.payload) {
                        if let (Some(id), Some(reply_to)) = (v["request_id"].as_str(), v["reply_to"].as_str()) {
                            let env = Envelope::error(Group::Face, &ErrorKind::Internal { message: "unreadable job".into() });
                            finish(deps, id, reply_to, env, None).await?;
                        }
                    }
                }
            }
            return Ok(());
        }
    };
    // Redelivered after its result was stored: re-send, do not redo. (An operation
    // without a request record is idempotent by its own state: see `Operation::recorded`.)
    let recorded = job.operation().recorded();
    let stored = if recorded { deps.store.get_request(&job.request_id).await?.and_then(|r| r.response) } else { None };
    if let Some(env) = stored.and_then(|text| serde_json::from_str::<Envelope>(&text).ok()) {
        deps.metrics.redeliveries.with_label_values(&[delivery.topic.as_str()]).inc();
        return send(deps, &job.request_id, &job.reply_to, env).await;
    }
    let span = tracing::info_span!("job", request_id = %job.request_id, operation = job.operation().name());
    let work = async {
        let env = handler.handle(&job).await?;
        tracing::debug!(status = env.http_status, "job done");
        let status = env.http_status.to_string();
        finish(deps, &job.request_id, &job.reply_to, env, Some(job.operation())).await?;
        deps.metrics.job_duration.with_label_values(&[job.operation().name(), status.as_str()]).observe(started.elapsed().as_secs_f64());
        Ok(())
    };
    work.instrument(span).await
}

/// Store the answer (first completion wins) when the request has a record, then send it;
/// the body of a personal operation's answer is sealed first (`Operation::personal`), so
/// neither the results topic nor the store holds it in the clear. `op` is `None` for a
/// job too broken to name its operation (its answer is an internal error: nothing to seal).
async fn finish(deps: &WorkerDeps, request_id: &str, reply_to: &str, mut env: Envelope, op: Option<Operation>) -> Result<(), idv_store::StoreError> {
    let (recorded, personal) = match op {
        Some(op) => (op.recorded(), op.personal()),
        None => (true, false),
    };
    if personal {
        env.body = idv_crypto::sealed::seal_answer_body(&deps.sealer, request_id, &env.body);
    }
    if !recorded {
        return send(deps, request_id, reply_to, env).await;
    }
    let text = serde_json::to_string(&env).map_err(|e| idv_store::StoreError::Backend(e.to_string()))?;
    let winner = match deps.store.complete_request(request_id, &text, &now()).await? {
        Completion::Stored | Completion::UnknownRequest => env,
        Completion::AlreadyCompleted { response } => serde_json::from_str(&response).unwrap_or(env),
    };
    send(deps, request_id, reply_to, winner).await
}

async fn send(deps: &WorkerDeps, request_id: &str, reply_to: &str, envelope: Envelope) -> Result<(), idv_store::StoreError> {
    let result = JobResult {
        schema_version: RESULT_SCHEMA_VERSION,
        request_id: request_id.to_string(),
        reply_to: reply_to.to_string(),
        envelope,
    };
    let payload = serde_json::to_vec(&result).map_err(|e| idv_store::StoreError::Backend(e.to_string()))?;
    deps.bus
        .publish(Topic::Results.name(), reply_to.as_bytes(), &payload)
        .await
        .map_err(|e| idv_store::StoreError::Backend(format!("result not sent: {e}")))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use idv_bus::memory::{Config, InProcessBus};
    use idv_schemas::Operation;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::Instant;

    /// Jobs of client "slow" take 150 ms; "fail" is never done (store away); others are
    /// instant. Records each job's end and the most "slow" jobs that ran at once.
    #[derive(Default)]
    struct Recorder {
        ends: Mutex<Vec<(String, Instant)>>,
        slow_now: AtomicUsize,
        slow_most: AtomicUsize,
    }

    #[async_trait]
    impl JobHandler for Recorder {
        async fn handle(&self, job: &Job) -> Result<Envelope, idv_store::StoreError> {
            match job.client_id.as_str() {
                "slow" => {
                    let now = self.slow_now.fetch_add(1, Ordering::SeqCst) + 1;
                    self.slow_most.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    self.slow_now.fetch_sub(1, Ordering::SeqCst);
                }
                "fail" => return Err(idv_store::StoreError::Backend("store away".into())),
                _ => {}
            }
            self.ends.lock().unwrap().push((job.client_id.clone(), Instant::now()));
            Ok(Envelope::ok(Group::Face, serde_json::json!({})))
        }
    }

    async fn publish(bus: &InProcessBus, client: &str) {
        let job = crate::conformance::job(Operation::FaceAuthUser, client, serde_json::json!({"cus_user_id": "u"}));
        let key = Job::partition_key(client, "");
        bus.publish(Topic::Face.name(), &key, &job.encode().unwrap()).await.unwrap();
    }

    fn start(bus: &InProcessBus, handler: Arc<Recorder>) -> (watch::Sender<bool>, tokio::task::JoinHandle<()>) {
        let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap());
        let deps = WorkerDeps {
            bus: Arc::new(bus.clone()),
            store,
            metrics: Arc::new(JobMetrics::unregistered().unwrap()),
            sealer: idv_crypto::sealed::Sealer::new(1, &[1u8; 32]).unwrap(),
        };
        let (stop, stop_rx) = watch::channel(false);
        let bus = bus.clone();
        let task = tokio::spawn(async move {
            let consumer = bus.subscribe(Topic::Face.name(), &worker_group(Topic::Face), StartFrom::Earliest).await.unwrap();
            run_consumer(deps, consumer, handler, stop_rx).await;
        });
        (stop, task)
    }

    /// One partition: a key's burst runs one job at a time, and another key's job behind
    /// it on the partition runs beside the burst instead of after it.
    #[tokio::test]
    async fn other_keys_run_beside_a_burst_and_one_key_runs_in_order() {
        let bus = InProcessBus::new(Config { default_partitions: 1, ..Config::default() });
        bus.ensure_topics(&[Topic::Face.name()], 1).await.unwrap();
        for _ in 0..4 {
            publish(&bus, "slow").await;
        }
        publish(&bus, "quick").await;
        let recorder = Arc::new(Recorder::default());
        let started = Instant::now();
        let (stop, task) = start(&bus, recorder.clone());
        let group = worker_group(Topic::Face);
        while bus.lag(Topic::Face.name(), &group).await != Some(0) {
            assert!(started.elapsed() < Duration::from_secs(10), "the jobs were not all committed");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let ends = recorder.ends.lock().unwrap().clone();
        assert_eq!(ends.len(), 5);
        let quick = ends.iter().find(|(c, _)| c == "quick").unwrap().1;
        let first_slow = ends.iter().find(|(c, _)| c == "slow").unwrap().1;
        assert!(quick < first_slow, "the quick job waited behind the burst");
        assert_eq!(recorder.slow_most.load(Ordering::SeqCst), 1, "one key's jobs ran at once");
        assert!(started.elapsed() >= Duration::from_millis(600), "four 150 ms jobs of one key ran in sequence");
        stop.send(true).unwrap();
        task.await.unwrap();
    }

    /// Offsets are committed only up to the first job that is not done, however many
    /// after it are; shutdown leaves that job uncommitted.
    #[tokio::test]
    async fn commits_stop_at_the_first_job_not_done() {
        let bus = InProcessBus::new(Config { default_partitions: 1, ..Config::default() });
        bus.ensure_topics(&[Topic::Face.name()], 1).await.unwrap();
        for client in ["a", "fail", "b", "c"] {
            publish(&bus, client).await;
        }
        let recorder = Arc::new(Recorder::default());
        let (stop, task) = start(&bus, recorder.clone());
        let started = Instant::now();
        while recorder.ends.lock().unwrap().len() < 3 {
            assert!(started.elapsed() < Duration::from_secs(10), "the jobs after the failing one did not run");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(bus.lag(Topic::Face.name(), &worker_group(Topic::Face)).await, Some(3), "committed past a job not done");
        stop.send(true).unwrap();
        tokio::time::timeout(Duration::from_secs(5), task).await.expect("the consumer stops on shutdown").unwrap();
        assert_eq!(bus.lag(Topic::Face.name(), &worker_group(Topic::Face)).await, Some(3));
    }

    #[test]
    fn the_commit_window_advances_over_done_offsets_only() {
        let mut w = CommitWindow::default();
        for o in 10..14 {
            w.received(0, o);
        }
        assert_eq!(w.done(0, 12), None);
        assert_eq!(w.done(0, 10), Some(10));
        assert_eq!(w.done(0, 11), Some(12));
        assert_eq!(w.done(0, 13), Some(13));
        assert_eq!(w.done(1, 5), None, "a partition with nothing received");
    }
}
