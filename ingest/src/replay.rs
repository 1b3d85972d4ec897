//! Replay protection: a signature is accepted once. A captured request (headers and body)
//! replayed within the timestamp window is refused as `access_denied`; outside the window
//! the timestamp check refuses it. Legitimate retries sign again (new timestamp).
//!
//! The memory is per ingest instance; with several instances behind a load balancer a
//! replay could land on another instance within the window (docs/API.md).

use std::time::Duration;

pub struct ReplayGuard {
    seen: moka::future::Cache<[u8; 32], ()>,
}

impl ReplayGuard {
    /// Remember signatures for `window` (twice the accepted clock skew covers a timestamp
    /// at either edge).
    pub fn new(window: Duration) -> Self {
        ReplayGuard { seen: moka::future::Cache::builder().max_capacity(2_000_000).time_to_live(window).build() }
    }

    /// `true` the first time `(who, signature)` is presented, `false` on a replay.
    pub async fn first_use(&self, who: &str, signature: &str) -> bool {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        h.update(who.as_bytes());
        h.update([0]);
        h.update(signature.as_bytes());
        let key: [u8; 32] = h.finalize().into();
        self.seen.entry(key).or_insert(()).await.is_fresh()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn second_use_is_a_replay() {
        let g = ReplayGuard::new(Duration::from_secs(60));
        assert!(g.first_use("ak1", "sig").await);
        assert!(!g.first_use("ak1", "sig").await);
        assert!(g.first_use("ak2", "sig").await, "scoped by key");
        assert!(g.first_use("ak1", "sig2").await);
    }
}
