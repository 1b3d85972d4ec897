//! The state idv keeps, behind one trait per concern, with backends picked by URL:
//!
//! | URL | [`Store`] implementation | feature |
//! |---|---|---|
//! | `sqlite://PATH` (or `sqlite::memory:`) | [`sqlite::SqliteStore`]: embedded, bundled SQLite, WAL | always |
//! | `scylla://host:port[,host:port]/keyspace` | `scylla::ScyllaStore` | `scylla` |
//!
//! | URL | [`blobs::BlobStore`] implementation | feature |
//! |---|---|---|
//! | `file://DIR` | [`blobs::LocalDirBlobs`] | always |
//! | `s3://bucket/prefix` | `blobs::ObjectStoreBlobs` (object_store, S3-compatible) | `s3` |
//!
//! The store is deliberately dumb: it never sees plaintext secrets. Callers seal secrets
//! and templates (idv-crypto) before they reach it, so every backend is encrypted at rest
//! for them without backend-specific work. Each trait has one conformance suite
//! ([`conformance`], [`blobs::conformance`]) that every backend runs.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub mod blobs;
pub mod conformance;
#[cfg(feature = "scylla")]
pub mod scylla;
pub mod sqlite;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store URL {0:?} is not valid: {1}")]
    BadUrl(String, String),
    #[error("the {scheme}:// store needs the `{feature}` feature; rebuild with `--features {feature}`")]
    NotCompiled { scheme: String, feature: &'static str },
    #[error("{0} already exists")]
    AlreadyExists(String),
    #[error("store backend error: {0}")]
    Backend(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRecord {
    pub client_id: String,
    pub name: String,
    pub created_at: String,
}

/// An access key. `sealed_secret` is the secret sealed by idv-crypto with the row's id as
/// associated data; the store never holds it in the clear.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessKeyRecord {
    pub access_key_id: String,
    pub client_id: String,
    pub sealed_secret: Vec<u8>,
    pub created_at: String,
    pub revoked: bool,
}

impl std::fmt::Debug for AccessKeyRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessKeyRecord")
            .field("access_key_id", &self.access_key_id)
            .field("client_id", &self.client_id)
            .field("created_at", &self.created_at)
            .field("revoked", &self.revoked)
            .finish_non_exhaustive()
    }
}

/// A request accepted by ingest; `response` is the finished envelope (JSON) once a worker
/// wrote it. Polling by request id reads this.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    pub request_id: String,
    pub client_id: String,
    pub operation: String,
    pub created_at: String,
    pub response: Option<String>,
    pub finished_at: Option<String>,
}

/// Outcome of [`Store::complete_request`]: the first completion wins (compare-and-set), so
/// a redelivered job cannot overwrite the answer a client may already have seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    Stored,
    AlreadyCompleted { response: String },
    UnknownRequest,
}

/// Metadata of an uploaded or inline-moved blob (image or video file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobMeta {
    pub id: String,
    pub client_id: String,
    /// `image` or `file`.
    pub kind: String,
    pub size: u64,
    pub sha256: String,
    pub label: Option<String>,
    pub content_type: Option<String>,
    /// JSON object, as given.
    pub metadata: Option<String>,
    pub created_at: String,
}

/// The spec's face_auth_user record, plus the `is_locked` state its error codes name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaceUserRecord {
    pub id: String,
    pub client_id: String,
    pub cus_user_id: String,
    pub access_key_id: String,
    pub face_auth_id: String,
    pub id_card_face_id: String,
    pub device_id: String,
    pub app_id: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// JSON object.
    pub metadata: String,
    pub is_deactivated: bool,
    pub is_unregistered: bool,
    pub is_locked: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[async_trait]
pub trait Store: Send + Sync + 'static {
    // Clients and access keys.
    async fn create_client(&self, client: &ClientRecord) -> Result<()>;
    async fn get_client(&self, client_id: &str) -> Result<Option<ClientRecord>>;
    async fn find_client_by_name(&self, name: &str) -> Result<Option<ClientRecord>>;
    /// Fails with `AlreadyExists` if the id is taken.
    async fn create_access_key(&self, key: &AccessKeyRecord) -> Result<()>;
    async fn get_access_key(&self, access_key_id: &str) -> Result<Option<AccessKeyRecord>>;
    async fn list_access_keys(&self) -> Result<Vec<AccessKeyRecord>>;
    /// `false` when no such key exists.
    async fn revoke_access_key(&self, access_key_id: &str) -> Result<bool>;

    // Requests and their results.
    /// Fails with `AlreadyExists` if the id is taken.
    async fn create_request(&self, request: &RequestRecord) -> Result<()>;
    async fn complete_request(&self, request_id: &str, response: &str, finished_at: &str) -> Result<Completion>;
    async fn get_request(&self, request_id: &str) -> Result<Option<RequestRecord>>;

    // Blob metadata.
    async fn put_blob_meta(&self, meta: &BlobMeta) -> Result<()>;
    async fn get_blob_meta(&self, id: &str) -> Result<Option<BlobMeta>>;

    // Face-authentication users.
    async fn put_face_user(&self, user: &FaceUserRecord) -> Result<()>;
    async fn get_face_user(&self, client_id: &str, cus_user_id: &str) -> Result<Option<FaceUserRecord>>;

    fn backend(&self) -> &'static str;
}

/// Open a store from its URL. A scheme whose backend is not compiled in is an error.
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    let scheme = url.split_once(':').map(|(s, _)| s).unwrap_or("");
    match scheme {
        "sqlite" => Ok(Arc::new(sqlite::SqliteStore::open_url(url)?)),
        #[cfg(feature = "scylla")]
        "scylla" => Ok(Arc::new(scylla::ScyllaStore::connect(url).await?)),
        #[cfg(not(feature = "scylla"))]
        "scylla" => Err(StoreError::NotCompiled { scheme: "scylla".into(), feature: "scylla" }),
        _ => Err(StoreError::BadUrl(url.into(), "expected sqlite://PATH or scylla://host:port/keyspace".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn unknown_scheme_and_missing_feature_are_errors() {
        assert!(matches!(open("mysql://x").await, Err(StoreError::BadUrl(..))));
        #[cfg(not(feature = "scylla"))]
        assert!(matches!(open("scylla://127.0.0.1:9042/idv").await, Err(StoreError::NotCompiled { .. })));
    }

    #[test]
    fn access_key_debug_hides_the_secret() {
        let k = AccessKeyRecord {
            access_key_id: "ak".into(),
            client_id: "c".into(),
            sealed_secret: vec![1, 2, 3],
            created_at: "t".into(),
            revoked: false,
        };
        assert!(!format!("{k:?}").contains("[1, 2, 3]"));
    }
}
