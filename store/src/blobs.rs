//! Blob storage (uploaded images and videos, and inline media moved out of requests).
//!
//! [`SealedBlobs`] wraps any backend so biometric images are encrypted at rest with the
//! deployment's master key, whatever the backend.

use crate::{Result, StoreError};
use async_trait::async_trait;
use bytes::Bytes;
use std::path::PathBuf;
use std::sync::Arc;

#[async_trait]
pub trait BlobStore: Send + Sync + 'static {
    async fn put(&self, key: &str, data: Bytes) -> Result<()>;
    async fn get(&self, key: &str) -> Result<Option<Bytes>>;
    async fn delete(&self, key: &str) -> Result<()>;
    fn backend(&self) -> &'static str;
}

/// Keys are ids this service generates; anything else is refused so a key can never
/// escape the blob directory.
fn check_key(key: &str) -> Result<()> {
    let ok = !key.is_empty()
        && key.len() <= 200
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !key.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(StoreError::Backend(format!("invalid blob key {key:?}")))
    }
}

/// Open blobs from a URL: `file://DIR` (or a bare path), `s3://bucket/prefix` (feature `s3`).
pub fn open(url: &str) -> Result<Arc<dyn BlobStore>> {
    if let Some(dir) = url.strip_prefix("file://") {
        return Ok(Arc::new(LocalDirBlobs::new(dir)?));
    }
    if url.starts_with("s3://") {
        #[cfg(feature = "s3")]
        return Ok(Arc::new(ObjectStoreBlobs::s3(url)?));
        #[cfg(not(feature = "s3"))]
        return Err(StoreError::NotCompiled { scheme: "s3".into(), feature: "s3" });
    }
    if url.contains("://") {
        return Err(StoreError::BadUrl(url.into(), "expected file://DIR or s3://bucket/prefix".into()));
    }
    Ok(Arc::new(LocalDirBlobs::new(url)?))
}

/// A local directory; writes go to a temp file and are renamed into place, so a reader
/// never sees half a blob and a crash leaves nothing half-written.
pub struct LocalDirBlobs {
    dir: PathBuf,
}

impl LocalDirBlobs {
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::Backend(format!("{}: {e}", dir.display())))?;
        Ok(LocalDirBlobs { dir })
    }

    fn path(&self, key: &str) -> Result<PathBuf> {
        check_key(key)?;
        // Two-level fan-out keeps directories small.
        let shard = key.get(key.len().saturating_sub(2)..).unwrap_or("00");
        Ok(self.dir.join(shard).join(key))
    }
}

fn io(e: std::io::Error) -> StoreError {
    StoreError::Backend(e.to_string())
}

#[async_trait]
impl BlobStore for LocalDirBlobs {
    async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        let path = self.path(key)?;
        let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_else(|| self.dir.clone());
        tokio::fs::create_dir_all(&dir).await.map_err(io)?;
        let tmp = dir.join(format!(".{key}.{}.tmp", uuid::Uuid::new_v4()));
        tokio::fs::write(&tmp, &data).await.map_err(io)?;
        tokio::fs::rename(&tmp, &path).await.map_err(io)
    }

    async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        match tokio::fs::read(self.path(key)?).await {
            Ok(v) => Ok(Some(Bytes::from(v))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(e)),
        }
    }

    async fn delete(&self, key: &str) -> Result<()> {
        match tokio::fs::remove_file(self.path(key)?).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(e)),
        }
    }

    fn backend(&self) -> &'static str {
        "file"
    }
}

/// Any `object_store` backend: S3-compatible storage in the distributed deployment; the
/// conformance suite runs it over object_store's in-memory store (no S3 is reachable here).
#[cfg(feature = "s3")]
pub struct ObjectStoreBlobs {
    store: Arc<dyn object_store::ObjectStore>,
    prefix: String,
}

#[cfg(feature = "s3")]
impl ObjectStoreBlobs {
    /// `s3://bucket/prefix`; credentials and endpoint from the usual AWS_* variables.
    pub fn s3(url: &str) -> Result<Self> {
        let parsed = url::Url::parse(url).map_err(|e| StoreError::BadUrl(url.into(), e.to_string()))?;
        let bucket = parsed.host_str().ok_or_else(|| StoreError::BadUrl(url.into(), "missing bucket".into()))?;
        let store = object_store::aws::AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .build()
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        Ok(Self::new(Arc::new(store), parsed.path().trim_matches('/')))
    }

    pub fn new(store: Arc<dyn object_store::ObjectStore>, prefix: &str) -> Self {
        ObjectStoreBlobs { store, prefix: prefix.trim_matches('/').to_string() }
    }

    fn path(&self, key: &str) -> Result<object_store::path::Path> {
        check_key(key)?;
        Ok(if self.prefix.is_empty() {
            object_store::path::Path::from(key)
        } else {
            object_store::path::Path::from(format!("{}/{key}", self.prefix))
        })
    }
}

#[cfg(feature = "s3")]
#[async_trait]
impl BlobStore for ObjectStoreBlobs {
    async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        self.store
            .put(&self.path(key)?, object_store::PutPayload::from_bytes(data))
            .await
            .map(|_| ())
            .map_err(|e| StoreError::Backend(e.to_string()))
    }

    async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        match self.store.get(&self.path(key)?).await {
            Ok(r) => r.bytes().await.map(Some).map_err(|e| StoreError::Backend(e.to_string())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(StoreError::Backend(e.to_string())),
        }
    }

    async fn delete(&self, key: &str) -> Result<()> {
        match self.store.delete(&self.path(key)?).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(StoreError::Backend(e.to_string())),
        }
    }

    fn backend(&self) -> &'static str {
        "object_store"
    }
}

/// Encrypts every blob with AES-256-GCM before it reaches the inner backend; the key of
/// the blob is the associated data, so blobs cannot be swapped between keys.
pub struct SealedBlobs {
    inner: Arc<dyn BlobStore>,
    sealer: idv_crypto::sealed::Sealer,
}

impl SealedBlobs {
    pub fn new(inner: Arc<dyn BlobStore>, sealer: idv_crypto::sealed::Sealer) -> Self {
        SealedBlobs { inner, sealer }
    }
}

#[async_trait]
impl BlobStore for SealedBlobs {
    async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        let sealed = self.sealer.seal(&data, key.as_bytes());
        self.inner.put(key, Bytes::from(sealed)).await
    }

    async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        match self.inner.get(key).await? {
            None => Ok(None),
            Some(sealed) => self
                .sealer
                .open(&sealed, key.as_bytes())
                .map(|v| Some(Bytes::from(v)))
                .map_err(|e| StoreError::Backend(format!("blob {key}: {e}"))),
        }
    }

    async fn delete(&self, key: &str) -> Result<()> {
        self.inner.delete(key).await
    }

    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
}

#[cfg(any(test, feature = "testing"))]
pub mod conformance {
    //! The one conformance suite every [`BlobStore`] runs.
    use super::BlobStore;
    use bytes::Bytes;

    pub async fn run_all(blobs: &dyn BlobStore) {
        let key = format!("blob-{}", uuid::Uuid::new_v4());
        assert_eq!(blobs.get(&key).await.expect("get missing"), None);
        let data = Bytes::from((0..=255u8).cycle().take(70_000).collect::<Vec<u8>>());
        blobs.put(&key, data.clone()).await.expect("put");
        assert_eq!(blobs.get(&key).await.expect("get"), Some(data));
        blobs.put(&key, Bytes::from_static(b"v2")).await.expect("overwrite");
        assert_eq!(blobs.get(&key).await.expect("get"), Some(Bytes::from_static(b"v2")));
        blobs.delete(&key).await.expect("delete");
        assert_eq!(blobs.get(&key).await.expect("get deleted"), None);
        blobs.delete(&key).await.expect("delete is idempotent");
        for bad in ["../etc/passwd", "a/b", "", ".hidden"] {
            assert!(blobs.put(bad, Bytes::from_static(b"x")).await.is_err(), "key {bad:?} must be refused");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer() -> idv_crypto::sealed::Sealer {
        idv_crypto::sealed::Sealer::new(1, &[7u8; 32]).unwrap()
    }

    #[tokio::test]
    async fn local_dir_conformance() {
        let dir = tempfile::tempdir().unwrap();
        conformance::run_all(&LocalDirBlobs::new(dir.path()).unwrap()).await;
    }

    #[tokio::test]
    async fn sealed_local_dir_conformance_and_ciphertext_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let inner: Arc<dyn BlobStore> = Arc::new(LocalDirBlobs::new(dir.path()).unwrap());
        let sealed = SealedBlobs::new(inner.clone(), sealer());
        conformance::run_all(&sealed).await;
        sealed.put("face-1", Bytes::from_static(b"JPEG-PLAINTEXT")).await.unwrap();
        let raw = inner.get("face-1").await.unwrap().unwrap();
        assert!(!raw.windows(14).any(|w| w == b"JPEG-PLAINTEXT"), "plaintext must not reach the disk");
        // A blob moved to another key fails authentication instead of being served.
        inner.put("face-2", raw).await.unwrap();
        assert!(sealed.get("face-2").await.is_err());
    }

    #[cfg(feature = "s3")]
    #[tokio::test]
    async fn object_store_adapter_conformance() {
        let blobs = ObjectStoreBlobs::new(Arc::new(object_store::memory::InMemory::new()), "prefix/x");
        conformance::run_all(&blobs).await;
        conformance::run_all(&SealedBlobs::new(Arc::new(blobs), sealer())).await;
    }

    #[test]
    fn urls() {
        assert!(open("ftp://x").is_err());
        #[cfg(not(feature = "s3"))]
        assert!(matches!(open("s3://bucket/p"), Err(StoreError::NotCompiled { .. })));
    }
}
