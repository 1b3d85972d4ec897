//! Server key pairs of the behavioral protocol: issued with their private key sealed under
//! the master key (bound to the key pair id), and opened for use. One place, used by the
//! CLI, ingest (device authentication) and the scorer (encrypted device registration).

use crate::{KeyPairRecord, Result, Store, StoreError};
use idv_crypto::device::ServerKeyPair;
use idv_crypto::sealed::Sealer;

fn aad(key_pair_id: &str) -> Vec<u8> {
    format!("key_pair:{key_pair_id}").into_bytes()
}

/// Generate an RSA-2048 key pair for `client_id` and store it (private key sealed).
pub async fn issue_key_pair(store: &dyn Store, sealer: &Sealer, client_id: &str, now: &str) -> Result<KeyPairRecord> {
    let pair = ServerKeyPair::generate().map_err(|e| StoreError::Backend(format!("key generation: {e}")))?;
    let pkcs8 = pair.to_pkcs8_der().map_err(|e| StoreError::Backend(format!("key export: {e}")))?;
    let key_pair_id = uuid::Uuid::new_v4().to_string();
    let record = KeyPairRecord {
        sealed_private: sealer.seal(&pkcs8, &aad(&key_pair_id)),
        key_pair_id,
        client_id: client_id.to_string(),
        public_der: pair.public_key_der(),
        created_at: now.to_string(),
        active: true,
    };
    store.create_key_pair(&record).await?;
    Ok(record)
}

/// Open a stored key pair for private-key use.
pub fn open_key_pair(sealer: &Sealer, record: &KeyPairRecord) -> Result<ServerKeyPair> {
    let pkcs8 = sealer
        .open(&record.sealed_private, &aad(&record.key_pair_id))
        .map_err(|e| StoreError::Backend(format!("key pair {}: {e}", record.key_pair_id)))?;
    ServerKeyPair::from_pkcs8_der(&pkcs8).map_err(|e| StoreError::Backend(format!("key pair {}: {e}", record.key_pair_id)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[tokio::test]
    async fn issue_then_open_and_sealed_at_rest() {
        let store = crate::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap();
        let sealer = Sealer::new(1, &[5u8; 32]).unwrap();
        let rec = issue_key_pair(&store, &sealer, "client-a", "2026-01-01T00:00:00Z").await.unwrap();
        let stored = store.get_key_pair(&rec.key_pair_id).await.unwrap().unwrap();
        let pair = open_key_pair(&sealer, &stored).unwrap();
        assert_eq!(pair.public_key_der(), stored.public_der);
        // Another master key, or the sealed key moved to another id, cannot be opened.
        assert!(open_key_pair(&Sealer::new(1, &[6u8; 32]).unwrap(), &stored).is_err());
        let moved = KeyPairRecord { key_pair_id: "other".into(), ..stored };
        assert!(open_key_pair(&sealer, &moved).is_err());
    }
}
