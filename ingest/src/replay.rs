//! Replay protection: a request — its signature *and* its body — is accepted once. A
//! captured request replayed within the timestamp window is refused as `access_denied`;
//! outside the window the timestamp check refuses it. Legitimate retries sign again (new
//! timestamp).
//!
//! Why the body is part of the key: Content-MD5 is optional, so the Access Key signature
//! covers only method, path and a whole-second timestamp. Two different honest requests to
//! the same path in the same second then share a signature; keying on the signature alone
//! refused the second one. A replay is the same signature with the same bytes.
//!
//! Two scopes (`IDV_REPLAY_GUARD`, docs/API.md): `store` (the default in every deployment)
//! claims each request in the store ([`Store::claim_once`], atomic and durable), so a
//! replay is refused after a restart and by any other ingest instance; `local` remembers
//! in this instance's memory only (an explicit opt-out: a restart forgets). The local
//! memory stays in front in both modes: a replay to the same instance costs no store
//! round trip.

use idv_store::{Store, StoreError};
use std::sync::Arc;
use std::time::Duration;

pub struct ReplayGuard {
    seen: moka::future::Cache<[u8; 32], ()>,
    shared: Option<Arc<dyn Store>>,
    window: Duration,
}

impl ReplayGuard {
    /// Remember signatures in this instance for `window` (twice the accepted clock skew
    /// covers a timestamp at either edge).
    pub fn new(window: Duration) -> Self {
        ReplayGuard { seen: moka::future::Cache::builder().max_capacity(2_000_000).time_to_live(window).build(), shared: None, window }
    }

    /// As [`ReplayGuard::new`], and claim every signature in `store`, shared by all
    /// ingest instances.
    pub fn shared(window: Duration, store: Arc<dyn Store>) -> Self {
        ReplayGuard { shared: Some(store), ..Self::new(window) }
    }

    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// `Ok(true)` the first time `(who, signature, body)` is presented, `Ok(false)` on a
    /// replay; `Err` when the shared store cannot answer (the caller refuses the request:
    /// a replay check that did not run is not a pass). Callers whose signature already
    /// covers something unique per request (the device scheme's random encrypted key)
    /// may pass an empty body.
    pub async fn first_use(&self, who: &str, signature: &str, body: &[u8]) -> Result<bool, StoreError> {
        let key = replay_key(who, signature, body);
        if !self.seen.entry(key).or_insert(()).await.is_fresh() {
            return Ok(false);
        }
        match &self.shared {
            // A fresh owner each time: no second presentation may count as the holder's.
            Some(store) => store.claim_once(&format!("replay:{}", hex::encode(key)), &uuid::Uuid::new_v4().to_string(), self.window).await,
            None => Ok(true),
        }
    }
}

/// The guard's key: SHA-256 over (who, signature, SHA-256 of the body), the first two
/// length-prefixed so no two different triples share an input.
pub fn replay_key(who: &str, signature: &str, body: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for part in [who.as_bytes(), signature.as_bytes()] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    h.update(sha2::Sha256::digest(body));
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn same_signature_with_another_body_is_not_a_replay() -> Result<(), StoreError> {
        let g = ReplayGuard::new(Duration::from_secs(60));
        assert!(g.first_use("ak1", "sig", b"{\"cus_user_id\":\"a\"}").await?);
        assert!(g.first_use("ak1", "sig", b"{\"cus_user_id\":\"b\"}").await?, "a different request in the same second");
        assert!(!g.first_use("ak1", "sig", b"{\"cus_user_id\":\"a\"}").await?, "the same bytes again are a replay");
        assert_ne!(replay_key("a", "b\0", b""), replay_key("a\0b", "", b""));
        Ok(())
    }

    #[tokio::test]
    async fn second_use_is_a_replay() -> Result<(), StoreError> {
        let g = ReplayGuard::new(Duration::from_secs(60));
        assert!(g.first_use("ak1", "sig", b"x").await?);
        assert!(!g.first_use("ak1", "sig", b"x").await?);
        assert!(g.first_use("ak2", "sig", b"x").await?, "scoped by key");
        assert!(g.first_use("ak1", "sig2", b"x").await?);
        Ok(())
    }

    #[tokio::test]
    async fn a_replay_to_another_instance_is_refused_when_shared() -> Result<(), StoreError> {
        let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:")?);
        let (a, b) = (ReplayGuard::shared(Duration::from_secs(60), store.clone()), ReplayGuard::shared(Duration::from_secs(60), store));
        assert!(a.first_use("ak1", "sig", b"x").await?);
        assert!(!b.first_use("ak1", "sig", b"x").await?, "the other instance sees the claim");
        assert!(b.first_use("ak1", "sig2", b"x").await?);
        assert!(!a.first_use("ak1", "sig2", b"x").await?);
        // Two local-only instances do not share: the gap the shared mode closes.
        let (c, d) = (ReplayGuard::new(Duration::from_secs(60)), ReplayGuard::new(Duration::from_secs(60)));
        assert!(c.first_use("ak1", "sig", b"x").await? && d.first_use("ak1", "sig", b"x").await?);
        Ok(())
    }
}
