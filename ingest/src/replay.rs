//! Replay protection: a signature is accepted once. A captured request (headers and body)
//! replayed within the timestamp window is refused as `access_denied`; outside the window
//! the timestamp check refuses it. Legitimate retries sign again (new timestamp).
//!
//! Two scopes (`IDV_REPLAY_GUARD`, docs/API.md): `local` remembers signatures in this
//! ingest instance only (enough for the embedded deployment, one instance); `store` also
//! claims each signature in the shared store ([`Store::claim_once`], atomic), so a replay
//! sent to another instance behind the load balancer is refused too. The local memory
//! stays in front in both modes: a replay to the same instance costs no store round trip.

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

    /// `Ok(true)` the first time `(who, signature)` is presented, `Ok(false)` on a
    /// replay; `Err` when the shared store cannot answer (the caller refuses the request:
    /// a replay check that did not run is not a pass).
    pub async fn first_use(&self, who: &str, signature: &str) -> Result<bool, StoreError> {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        h.update(who.as_bytes());
        h.update([0]);
        h.update(signature.as_bytes());
        let key: [u8; 32] = h.finalize().into();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn second_use_is_a_replay() -> Result<(), StoreError> {
        let g = ReplayGuard::new(Duration::from_secs(60));
        assert!(g.first_use("ak1", "sig").await?);
        assert!(!g.first_use("ak1", "sig").await?);
        assert!(g.first_use("ak2", "sig").await?, "scoped by key");
        assert!(g.first_use("ak1", "sig2").await?);
        Ok(())
    }

    #[tokio::test]
    async fn a_replay_to_another_instance_is_refused_when_shared() -> Result<(), StoreError> {
        let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:")?);
        let (a, b) = (ReplayGuard::shared(Duration::from_secs(60), store.clone()), ReplayGuard::shared(Duration::from_secs(60), store));
        assert!(a.first_use("ak1", "sig").await?);
        assert!(!b.first_use("ak1", "sig").await?, "the other instance sees the claim");
        assert!(b.first_use("ak1", "sig2").await?);
        assert!(!a.first_use("ak1", "sig2").await?);
        // Two local-only instances do not share: the gap the shared mode closes.
        let (c, d) = (ReplayGuard::new(Duration::from_secs(60)), ReplayGuard::new(Duration::from_secs(60)));
        assert!(c.first_use("ak1", "sig").await? && d.first_use("ak1", "sig").await?);
        Ok(())
    }
}
