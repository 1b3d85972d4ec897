//! The ingest tier: an axum router whose handlers stay thin (parse, authorize, publish,
//! await). Each piece of the path lives in its own module:
//!
//! - [`auth`]: Access Key signatures, timestamp window, Content-MD5.
//! - [`rate_limit`]: token bucket per access key.
//! - [`media`]: resolve image/file ids, move inline base64 to blobs (claim check).
//! - [`pending`]: the wait-by-request-id table.
//! - [`submit`]: the generic path every job-backed operation takes.
//! - [`results`]: the results-topic consumer that wakes waiters.
//! - [`router`]: routes (`/v1`, `/api/v1`, `/portal`), health, metrics, OpenAPI.

pub mod auth;
pub mod behavior;
pub mod body_budget;
pub mod config;
pub mod demo;
pub mod device_auth;
pub mod media;
pub mod metrics;
pub mod openapi;
pub mod pending;
pub mod rate_limit;
pub mod replay;
pub mod uploads;
pub mod results;
pub mod router;
pub mod submit;

use idv_bus::Bus;
use idv_store::blobs::BlobStore;
use idv_store::Store;
use std::sync::Arc;

pub use config::IngestConfig;

/// Everything a handler needs. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<IngestConfig>,
    pub store: Arc<dyn Store>,
    pub blobs: Arc<dyn BlobStore>,
    pub bus: Arc<dyn Bus>,
    pub keys: Arc<auth::KeyResolver>,
    pub pending: Arc<pending::PendingTable>,
    pub limiter: Arc<rate_limit::RateLimiter>,
    pub metrics: Arc<metrics::Metrics>,
    /// Master-key sealer (transaction data, personal job payloads, server key pairs).
    pub sealer: idv_crypto::sealed::Sealer,
    /// Keys the HMAC that stands for a personal subject (a phone number) in partition keys;
    /// derived from the master key, so every ingest instance maps a number to one partition.
    pub subject_key: Arc<Vec<u8>>,
    pub device_keys: Arc<device_auth::DeviceKeyCache>,
    pub replay: Arc<replay::ReplayGuard>,
    /// Verifies the eKYC full check's bearer tokens.
    pub jwt_key: auth::JwtKey,
    /// Bytes of request bodies held in memory at once, over all requests.
    pub body_budget: Arc<body_budget::BodyBudget>,
    /// The demo page's key and key pair, when `idv serve --demo` runs (`demo.rs`).
    pub demo: Option<Arc<demo::DemoConfig>>,
}

pub use idv_schemas::clock::now_rfc3339;
