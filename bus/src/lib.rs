//! The bus: jobs go from ingest to worker pools, results come back to the ingest instance
//! that waits. One trait, two implementations picked by URL:
//!
//! | URL | implementation | feature |
//! |---|---|---|
//! | `memory://` | [`memory::InProcessBus`]: bounded logs in this process | always |
//! | `kafka://host:port[,host:port]` | `kafka::KafkaBus` (rdkafka) | `kafka` |
//!
//! Semantics both give (and [`conformance`] checks): per-key ordering (a key always maps
//! to one partition), consumer groups that split partitions, at-least-once delivery
//! (a message is redelivered until a consumer of the group commits it, so commit only
//! after the work is durably done), and backpressure on publish.

use async_trait::async_trait;
use std::sync::Arc;

#[cfg(any(test, feature = "testing"))]
pub mod conformance;
#[cfg(feature = "kafka")]
pub mod kafka;
pub mod memory;
#[cfg(feature = "testing")]
pub mod testing;

#[derive(Debug, thiserror::Error)]
pub enum BusError {
    #[error("bus URL {0:?} is not valid: {1}")]
    BadUrl(String, String),
    #[error("the {scheme}:// bus needs the `{feature}` feature; rebuild with `--features {feature}`")]
    NotCompiled { scheme: String, feature: &'static str },
    #[error("unknown topic {0}")]
    UnknownTopic(String),
    #[error("bus is closed")]
    Closed,
    #[error("bus backend error: {0}")]
    Backend(String),
}

/// Where a new consumer group starts reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFrom {
    /// The oldest retained message (job topics: no job is lost before workers start).
    Earliest,
    /// Only messages published after the group was created (results for one instance).
    Latest,
}

/// One message handed to a consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub key: Vec<u8>,
    pub payload: Vec<u8>,
}

#[async_trait]
pub trait Bus: Send + Sync + 'static {
    /// Create the topics if missing, each with `partitions` partitions. Idempotent.
    async fn ensure_topics(&self, topics: &[&str], partitions: u32) -> Result<(), BusError>;

    /// Append a message; returns once the bus has accepted it durably (Kafka: acks=all).
    /// Waits while the bus is full: producers feel backpressure instead of growing memory.
    async fn publish(&self, topic: &str, key: &[u8], payload: &[u8]) -> Result<(), BusError>;

    /// Join consumer group `group` on `topic`.
    async fn subscribe(&self, topic: &str, group: &str, start: StartFrom) -> Result<Box<dyn Consumer>, BusError>;

    /// Every message published to `topic` (all partitions) after this call returns, with
    /// no consumer group: nothing is committed and nothing is left behind on the broker
    /// when the consumer goes away (`commit` is accepted and does nothing). For readers
    /// that want everything and keep no position, like each ingest instance reading the
    /// results topic. The default joins a fresh group from `Latest`, which is equivalent
    /// where groups cost nothing (the in-process bus).
    async fn subscribe_broadcast(&self, topic: &str) -> Result<Box<dyn Consumer>, BusError> {
        let group = format!("broadcast-{}", uuid::Uuid::new_v4());
        self.subscribe(topic, &group, StartFrom::Latest).await
    }

    /// Messages in `topic` not yet committed by `group`, where the backend can tell cheaply.
    async fn lag(&self, _topic: &str, _group: &str) -> Option<u64> {
        None
    }

    /// Whether the bus answers now (readiness probes): `Err` while its brokers are
    /// unreachable. The in-process bus always answers.
    async fn check(&self) -> Result<(), BusError> {
        Ok(())
    }

    /// Short name of the backend, for logs and metrics.
    fn backend(&self) -> &'static str;
}

#[async_trait]
pub trait Consumer: Send {
    /// The next message for this member of the group; waits until there is one.
    async fn recv(&mut self) -> Result<Delivery, BusError>;

    /// Record that `delivery` (and everything before it on its partition) is done.
    /// Call only after the work's effects are durably written.
    async fn commit(&mut self, delivery: &Delivery) -> Result<(), BusError>;
}

/// The next delivery, or `None` once `shutdown` flips. Receive errors (a broker away, a
/// rebalance) are logged and retried after a second: consumer loops never exit on them.
pub async fn recv_until_shutdown(
    consumer: &mut Box<dyn Consumer>,
    shutdown: &mut tokio::sync::watch::Receiver<bool>,
) -> Option<Delivery> {
    loop {
        let delivery = tokio::select! {
            d = consumer.recv() => d,
            _ = shutdown.changed() => return None,
        };
        match delivery {
            Ok(d) => return Some(d),
            Err(e) => {
                tracing::error!(error = %e, "consumer failed; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
                    _ = shutdown.changed() => return None,
                }
            }
        }
    }
}

/// Open a bus from its URL. A scheme whose backend is not compiled in is an error.
pub async fn open(url: &str) -> Result<Arc<dyn Bus>, BusError> {
    let scheme = url.split_once("://").map(|(s, _)| s).unwrap_or("");
    match scheme {
        "memory" => Ok(Arc::new(memory::InProcessBus::new(memory::Config::default()))),
        #[cfg(feature = "kafka")]
        "kafka" => Ok(Arc::new(kafka::KafkaBus::connect(url)?)),
        #[cfg(not(feature = "kafka"))]
        "kafka" => Err(BusError::NotCompiled { scheme: "kafka".into(), feature: "kafka" }),
        _ => Err(BusError::BadUrl(url.into(), "expected memory:// or kafka://host:port".into())),
    }
}

/// Stable partition for a key (FNV-1a), used by the in-process bus.
pub fn partition_for(key: &[u8], partitions: u32) -> i32 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % u64::from(partitions.max(1))) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn unknown_scheme_and_missing_feature_are_errors() {
        assert!(matches!(open("redis://x").await, Err(BusError::BadUrl(..))));
        #[cfg(not(feature = "kafka"))]
        assert!(matches!(open("kafka://127.0.0.1:9092").await, Err(BusError::NotCompiled { .. })));
        assert!(open("memory://").await.is_ok());
    }

    #[test]
    fn partition_is_stable_and_in_range() {
        for k in [&b"a"[..], b"client\0user", b""] {
            let p = partition_for(k, 8);
            assert!((0..8).contains(&p));
            assert_eq!(p, partition_for(k, 8));
        }
    }
}
