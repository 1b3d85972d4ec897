//! Ingest settings. Defaults are the documented choices for values the spec leaves open
//! (docs/API.md): timestamp window, wait time, size limits, rate limit.

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct IngestConfig {
    /// Identifies this ingest instance; results are routed back by it.
    pub instance_id: String,
    /// Largest accepted |server time - X-TV-Timestamp|.
    pub timestamp_skew: Duration,
    /// How long a synchronous call waits for its result before 408.
    pub request_timeout: Duration,
    /// While waiting, how often the store is checked too (covers a missed bus result).
    pub store_poll_interval: Duration,
    pub max_body_bytes: usize,
    pub max_image_bytes: usize,
    pub max_file_bytes: usize,
    /// Request bodies held in memory at once, over all requests of this instance
    /// (`ingest/src/body_budget.rs`).
    pub body_budget_bytes: usize,
    /// Sustained requests per second per access key, and the burst above it.
    pub rate_limit_per_sec: f64,
    pub rate_limit_burst: u32,
}

impl Default for IngestConfig {
    fn default() -> Self {
        IngestConfig {
            instance_id: format!("ingest-{}", uuid::Uuid::new_v4()),
            timestamp_skew: Duration::from_secs(300),
            request_timeout: Duration::from_secs(30),
            store_poll_interval: Duration::from_millis(500),
            max_body_bytes: 64 * 1024 * 1024,
            max_image_bytes: 10 * 1024 * 1024,
            max_file_bytes: 50 * 1024 * 1024,
            // Four of the largest bodies (a 64 MiB face request) at once.
            body_budget_bytes: 256 * 1024 * 1024,
            rate_limit_per_sec: 50.0,
            rate_limit_burst: 100,
        }
    }
}
