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
#[cfg(any(test, feature = "testing"))]
pub mod conformance;
pub mod migrations;
#[cfg(feature = "scylla")]
pub mod scylla;
pub mod sqlite;
pub mod vault;

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
    /// Request ids of the consecutive failed authentications since the last match or
    /// unlock: the lockout counter is its length. Ids rather than a number so that a
    /// redelivered job (same request id) is not counted twice. Records written before the
    /// field existed read as no failures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_auth_ids: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl FaceUserRecord {
    /// A user as registration first creates it: nothing registered yet, no flags, no
    /// failures, `{}` metadata, created and updated at `now`.
    pub fn new(id: impl Into<String>, client_id: impl Into<String>, cus_user_id: impl Into<String>, access_key_id: impl Into<String>, now: &str) -> Self {
        FaceUserRecord {
            id: id.into(),
            client_id: client_id.into(),
            cus_user_id: cus_user_id.into(),
            access_key_id: access_key_id.into(),
            face_auth_id: String::new(),
            id_card_face_id: String::new(),
            device_id: String::new(),
            app_id: String::new(),
            latitude: None,
            longitude: None,
            metadata: "{}".into(),
            is_deactivated: false,
            is_unregistered: false,
            is_locked: false,
            failed_auth_ids: Vec::new(),
            created_at: now.to_string(),
            updated_at: now.to_string(),
        }
    }
}

/// A server RSA key pair for the behavioral SDK protocol. The private key (PKCS#8 DER) is
/// sealed by the caller.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPairRecord {
    pub key_pair_id: String,
    pub client_id: String,
    /// PKIX DER.
    pub public_der: Vec<u8>,
    pub sealed_private: Vec<u8>,
    pub created_at: String,
    /// Inactive key pairs keep serving registered devices but take no new registrations.
    pub active: bool,
}

impl std::fmt::Debug for KeyPairRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyPairRecord")
            .field("key_pair_id", &self.key_pair_id)
            .field("client_id", &self.client_id)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

/// customer_user_device (spec: created by register_device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceRecord {
    pub customer_user_device_id: String,
    pub client_id: String,
    pub cus_user_id: String,
    pub device_id: String,
    pub key_pair_id: String,
    /// Device public key, PKIX DER.
    pub public_der: Vec<u8>,
    pub deactivated: bool,
    pub created_at: String,
}

pub const CHALLENGE_OPEN: &str = "open";
pub const CHALLENGE_SCORED: &str = "scored";

/// A behavioral challenge and the head of its batch hash chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeRecord {
    pub challenge_id: String,
    pub client_id: String,
    pub customer_user_device_id: String,
    pub cus_user_id: String,
    pub session_id: String,
    /// 64 hex characters.
    pub nonce: String,
    /// [`CHALLENGE_OPEN`] or [`CHALLENGE_SCORED`].
    pub status: String,
    pub created_at: String,
    /// Unix seconds after which the nonce is no longer accepted.
    pub expires_at: i64,
    /// Seq of the last accepted batch; -1 before the first.
    pub last_seq: i64,
    /// batch_hash of the last accepted batch; empty before the first.
    pub last_hash: String,
}

/// One accepted batch of behavioral events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchRecord {
    pub challenge_id: String,
    pub seq: i64,
    pub prev_batch_hash: String,
    pub batch_hash: String,
    /// The batch's `data` value, JSON text exactly as received.
    pub data: String,
    pub received_at: String,
    /// The push request that appended it: a redelivered push job (same request id) finds
    /// its batch already there and answers as it did, where a client re-push (new request
    /// id) of the same seq is `invalid_batch_events`.
    #[serde(default)]
    pub request_id: String,
}

/// Milliseconds since the Unix epoch (0 before it), for expiry columns.
pub(crate) fn unix_now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A short-lived session (SIM verification's OTP state): opaque `data` (sealed by the
/// caller), a `version` for compare-and-set, and an expiry (Unix seconds) after which it
/// reads as absent and may be created again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub key: String,
    pub version: i64,
    pub data: Vec<u8>,
    pub expires_at: i64,
}

/// A (client, user) behavioral baseline. `data` is sealed by the caller (biometric
/// template); `version` increases by one on every write (compare-and-set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineRecord {
    pub client_id: String,
    pub cus_user_id: String,
    pub version: i64,
    pub data: Vec<u8>,
    pub updated_at: String,
}

/// A face template (embedding) of a registered user. The vector is sealed by the caller
/// (biometric data); `model_id`/`model_version` say which model made it, so a template is
/// never compared with one from another model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaceTemplateRecord {
    pub client_id: String,
    pub cus_user_id: String,
    pub template_id: String,
    /// `selfie` or `id_card`.
    pub face_type: String,
    pub model_id: String,
    pub model_version: String,
    pub sealed_vector: Vec<u8>,
    /// The blob the face came from.
    pub image_id: String,
    pub created_at: String,
}

/// One registration or login attempt (spec: History record), kept as its JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaceHistoryRecord {
    pub client_id: String,
    pub cus_user_id: String,
    pub id: String,
    /// RFC 3339; histories list newest first.
    pub created_at: String,
    /// `success` or `failure`.
    pub status: String,
    /// The history record as returned to clients (JSON object text).
    pub record: String,
}

/// Clients, their access keys, and the server key pairs of the device protocol.
#[async_trait]
pub trait KeyStore: Send + Sync {
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

    // Behavioral: server key pairs.
    async fn create_key_pair(&self, key_pair: &KeyPairRecord) -> Result<()>;
    async fn get_key_pair(&self, key_pair_id: &str) -> Result<Option<KeyPairRecord>>;
    /// All key pairs, or those of one client.
    async fn list_key_pairs(&self, client_id: Option<&str>) -> Result<Vec<KeyPairRecord>>;
    /// `false` when no such key pair exists.
    async fn set_key_pair_active(&self, key_pair_id: &str, active: bool) -> Result<bool>;
}

/// Requests and their results (the compare-and-set `complete_request`), uploaded blobs'
/// metadata, and single-use claims (the replay guard).
#[async_trait]
pub trait RequestStore: Send + Sync {
    // Requests and their results.
    /// Fails with `AlreadyExists` if the id is taken.
    async fn create_request(&self, request: &RequestRecord) -> Result<()>;
    async fn complete_request(&self, request_id: &str, response: &str, finished_at: &str) -> Result<Completion>;
    async fn get_request(&self, request_id: &str) -> Result<Option<RequestRecord>>;

    // Blob metadata.
    async fn put_blob_meta(&self, meta: &BlobMeta) -> Result<()>;
    async fn get_blob_meta(&self, id: &str) -> Result<Option<BlobMeta>>;

    // Replay protection shared by every ingest instance.
    /// Record `key` for `owner` for `ttl` unless someone holds it and it has not expired:
    /// `true` when this call recorded it (the first use) or `owner` already holds it (the
    /// same request again, e.g. a redelivered job), `false` when another owner holds it.
    /// Atomic across concurrent callers and instances. Callers that must refuse every
    /// second use pass a fresh owner each time.
    async fn claim_once(&self, key: &str, owner: &str, ttl: std::time::Duration) -> Result<bool>;

    /// Whether this store would take a write now (`/readyz`): an error when it cannot.
    /// The default reads, which sees an unreachable store; a backend that can also see a
    /// stalled writer (SQLite: another process holding the write lock) says so.
    async fn check_writable(&self) -> Result<()> {
        self.get_request("readyz-probe").await.map(|_| ())
    }

    /// Ids of requests recorded but not finished, oldest first, at most `limit`: what an
    /// embedded process finds after a crash (their jobs were in its memory). Only the
    /// embedded store lists them; a distributed deployment's jobs survive on the bus.
    async fn unfinished_requests(&self, limit: usize) -> Result<Vec<String>> {
        let _ = limit;
        Err(StoreError::Backend("listing unfinished requests is only offered by the embedded store".into()))
    }
}

/// Face-authentication users, their sealed templates and their histories.
#[async_trait]
pub trait FaceStore: Send + Sync {
    // Face-authentication users.
    async fn put_face_user(&self, user: &FaceUserRecord) -> Result<()>;
    async fn get_face_user(&self, client_id: &str, cus_user_id: &str) -> Result<Option<FaceUserRecord>>;

    // Face templates and histories.
    /// Insert or replace (by client, user, template id).
    async fn put_face_template(&self, template: &FaceTemplateRecord) -> Result<()>;
    async fn list_face_templates(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<FaceTemplateRecord>>;
    /// Remove every template of a user (unregistration: biometric data is not kept).
    async fn delete_face_templates(&self, client_id: &str, cus_user_id: &str) -> Result<()>;
    async fn add_face_history(&self, history: &FaceHistoryRecord) -> Result<()>;
    /// Newest first, at most `limit`.
    async fn list_face_histories(&self, client_id: &str, cus_user_id: &str, limit: usize) -> Result<Vec<FaceHistoryRecord>>;
}

/// Behavioral state: devices, challenges with their hash-chained batches, baselines.
#[async_trait]
pub trait BehaviorStore: Send + Sync {
    // Behavioral: devices.
    /// Fails with `AlreadyExists` if the id is taken.
    async fn create_device(&self, device: &DeviceRecord) -> Result<()>;
    async fn get_device(&self, customer_user_device_id: &str) -> Result<Option<DeviceRecord>>;
    /// `false` when no such device exists.
    async fn set_device_deactivated(&self, customer_user_device_id: &str, deactivated: bool) -> Result<bool>;
    /// Every device registered for (client, user), oldest first (one `device_id` may have
    /// several registrations).
    async fn list_devices(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<DeviceRecord>>;
    /// Remove a device record (operator action); `false` when no such device exists.
    async fn delete_device(&self, customer_user_device_id: &str) -> Result<bool>;

    // Behavioral: challenges and their hash chains.
    /// Fails with `AlreadyExists` if the id is taken.
    async fn create_challenge(&self, challenge: &ChallengeRecord) -> Result<()>;
    async fn get_challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>>;
    /// Extend the chain by `batch` only if the challenge is open and its head is still
    /// (`batch.seq - 1`, `batch.prev_batch_hash`): compare-and-set, so of two racing
    /// pushes at most one extends the chain. `false` when the condition does not hold.
    async fn append_batch(&self, batch: &BatchRecord) -> Result<bool>;
    /// The accepted batches of a challenge, in seq order (only the committed chain).
    async fn list_batches(&self, challenge_id: &str) -> Result<Vec<BatchRecord>>;
    /// Whether the chain of `challenge_id` holds a batch appended by `request_id`: how a
    /// push (which has no request record) is found done after a redelivery or a lost
    /// result. Read only off the fast path, so the whole chain is read.
    async fn batch_appended_by(&self, challenge_id: &str, request_id: &str) -> Result<bool> {
        Ok(!request_id.is_empty() && self.list_batches(challenge_id).await?.iter().any(|b| b.request_id == request_id))
    }
    /// Mark a challenge scored (later pushes are refused). `false` if it does not exist.
    async fn finalize_challenge(&self, challenge_id: &str) -> Result<bool>;

    // Behavioral: baselines.
    async fn get_baseline(&self, client_id: &str, cus_user_id: &str) -> Result<Option<BaselineRecord>>;
    /// Write `baseline` if the stored version is `expected_version` (`None`: no baseline
    /// yet). `false` when another writer got there first.
    async fn put_baseline(&self, baseline: &BaselineRecord, expected_version: Option<i64>) -> Result<bool>;
}

/// Short-lived sealed sessions (SIM verification), compare-and-set with expiry.
#[async_trait]
pub trait SessionStore: Send + Sync {
    // Short-lived sessions.
    /// The session under `key`, unless absent or expired.
    async fn get_session(&self, key: &str) -> Result<Option<SessionRecord>>;
    /// Write `session` if the stored version is `expected_version` (`None`: no live
    /// session, an expired one counts as none). `false` when the condition does not hold.
    async fn put_session(&self, session: &SessionRecord, expected_version: Option<i64>) -> Result<bool>;
}

/// A whole backend: every area. Code that needs one area takes that trait (an
/// `Arc<dyn Store>` coerces to `Arc<dyn BehaviorStore>` and the others); each area has
/// its conformance checks in [`conformance`], run per backend by [`store_conformance_tests`].
pub trait Store: KeyStore + RequestStore + FaceStore + BehaviorStore + SessionStore + Send + Sync + 'static {
    fn backend(&self) -> &'static str;
}

/// The store traits, for `use idv_store::prelude::*` where store methods are called.
pub mod prelude {
    pub use crate::{BehaviorStore, FaceStore, KeyStore, RequestStore, SessionStore, Store};
}

/// The client named `name`, created if it does not exist yet.
pub async fn ensure_client(store: &dyn Store, name: &str, now: &str) -> Result<ClientRecord> {
    if let Some(c) = store.find_client_by_name(name).await? {
        return Ok(c);
    }
    let c = ClientRecord { client_id: uuid::Uuid::new_v4().to_string(), name: name.to_string(), created_at: now.to_string() };
    match store.create_client(&c).await {
        Ok(()) => Ok(c),
        // Created concurrently under the same name: use that one.
        Err(StoreError::AlreadyExists(_)) => store.find_client_by_name(name).await?.ok_or(StoreError::AlreadyExists(name.into())),
        Err(e) => Err(e),
    }
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
