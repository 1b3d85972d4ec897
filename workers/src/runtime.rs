//! The consume → handle → store → reply → commit loop every worker role runs.
//!
//! At-least-once, idempotent by request id: a job redelivered after a crash finds its
//! result already stored (first completion wins in the store) and only re-sends it; its
//! effect is not applied twice. Handlers whose effects are not naturally idempotent must
//! check the stored state themselves (see `face::FaceHandler`).

use async_trait::async_trait;
use idv_bus::{Bus, Consumer, Delivery, StartFrom};
use idv_schemas::jobs::{Job, JobResult, RESULT_SCHEMA_VERSION};
use idv_schemas::ops::Topic;
use idv_schemas::{Envelope, ErrorKind, Group};
use idv_store::{Completion, Store};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
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
}

/// The consumer group of the workers of a topic.
pub fn worker_group(topic: Topic) -> String {
    format!("idv-workers-{}", topic.name())
}

fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

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

pub async fn run_consumer(
    deps: WorkerDeps,
    mut consumer: Box<dyn Consumer>,
    handler: Arc<dyn JobHandler>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        let Some(delivery) = idv_bus::recv_until_shutdown(&mut consumer, &mut shutdown).await else { return };
        // Retry until the work is durably done; only then commit. On shutdown the job is
        // left uncommitted and comes back to the group.
        let mut backoff = Duration::from_millis(100);
        loop {
            match process(&deps, handler.as_ref(), &delivery).await {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(error = %e, offset = delivery.offset, "job not done; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = shutdown.changed() => return,
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
            }
        }
        if let Err(e) = consumer.commit(&delivery).await {
            tracing::warn!(error = %e, "commit failed; the job may be redelivered (handled idempotently)");
        }
    }
}

/// One delivery, start to finish. `Ok` means its result is stored and sent.
pub async fn process(deps: &WorkerDeps, handler: &dyn JobHandler, delivery: &Delivery) -> Result<(), idv_store::StoreError> {
    let job: Job = match serde_json::from_slice(&delivery.payload) {
        Ok(job) => job,
        Err(e) => {
            // A job that cannot be read never will be: answer it if it names a request,
            // then let it go rather than block the partition.
            tracing::error!(error = %e, offset = delivery.offset, "unreadable job skipped");
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&delivery.payload) {
                if let (Some(id), Some(reply_to)) = (v["request_id"].as_str(), v["reply_to"].as_str()) {
                    let env = Envelope::error(Group::Face, &ErrorKind::Internal { message: "unreadable job".into() });
                    finish(deps, id, reply_to, env).await?;
                }
            }
            return Ok(());
        }
    };
    // Redelivered after its result was stored: re-send, do not redo.
    if let Some(rec) = deps.store.get_request(&job.request_id).await? {
        if let Some(text) = rec.response {
            if let Ok(env) = serde_json::from_str::<Envelope>(&text) {
                return send(deps, &job.request_id, &job.reply_to, env).await;
            }
        }
    }
    let span = tracing::info_span!("job", request_id = %job.request_id, operation = job.operation.name());
    // The vision pool grants its slots fairly between clients (vision/src/pool.rs).
    let client = job.client_id.clone();
    let work = async {
        let env = idv_vision::pool::CLIENT.scope(client, handler.handle(&job)).await?;
        tracing::debug!(status = env.http_status, "job done");
        finish(deps, &job.request_id, &job.reply_to, env).await
    };
    work.instrument(span).await
}

async fn finish(deps: &WorkerDeps, request_id: &str, reply_to: &str, env: Envelope) -> Result<(), idv_store::StoreError> {
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
