//! The results listener: each ingest instance reads the whole results topic from the
//! moment it starts ([`idv_bus::Bus::subscribe_broadcast`]: no consumer group, so
//! restarts leave nothing behind on the broker) and wakes the waiters it holds. Results
//! for other instances are skipped. A missed result costs nothing: the waiter also checks
//! the store.

use crate::AppState;
use idv_bus::Consumer;
use idv_schemas::jobs::JobResult;
use idv_schemas::ops::Topic;

/// Join the results topic; do this before serving so no early result is missed.
pub async fn subscribe(state: &AppState) -> Result<Box<dyn Consumer>, idv_bus::BusError> {
    state.bus.subscribe_broadcast(Topic::Results.name()).await
}

pub async fn run(state: AppState, mut consumer: Box<dyn Consumer>, mut shutdown: tokio::sync::watch::Receiver<bool>) {
    loop {
        let Some(delivery) = idv_bus::recv_until_shutdown(&mut consumer, &mut shutdown).await else { return };
        match serde_json::from_slice::<JobResult>(&delivery.payload) {
            Ok(result) if result.reply_to == state.config.instance_id => {
                let envelope = crate::submit::opened_answer(&state, &result.request_id, result.envelope)
                    .unwrap_or_else(|kind| idv_schemas::Envelope::error(idv_schemas::Group::Sim, &kind));
                state.pending.deliver(&result.request_id, envelope);
                state.metrics.pending.set(state.pending.len() as i64);
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, offset = delivery.offset, "unreadable result skipped"),
        }
        if let Err(e) = consumer.commit(&delivery).await {
            tracing::warn!(error = %e, "results commit failed");
        }
    }
}
