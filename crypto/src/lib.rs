//! Cryptographic primitives of idv, each with known-answer and must-fail vectors.
//!
//! - [`access_key`]: the spec's Access Key signature (HMAC-SHA256) and Content-MD5.
//! - [`sealed`]: AES-256-GCM sealing of secrets, templates and blobs at rest.
//! - [`device`]: the behavioral SDK protocol (RSA-OAEP/PSS via aws-lc-rs, AES-GCM envelopes,
//!   the batch hash chain); docs/BEHAVIOR_PROTOCOL.md.
//! - [`jwt`]: HS256 access tokens for the eKYC full check (RFC 7515 known answer).
//! - [`ct_eq`]: constant-time equality for anything secret.

pub mod access_key;
pub mod device;
pub mod jwt;
pub mod sealed;

/// Constant-time byte equality (length is not secret).
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// Fill `n` bytes from the OS CSPRNG.
pub fn random_bytes(n: usize) -> Vec<u8> {
    use rand::RngCore;
    let mut v = vec![0u8; n];
    rand::rngs::OsRng.fill_bytes(&mut v);
    v
}

/// HMAC-SHA256 of `data` under `key` (RFC 4231 vectors in `access_key`'s tests).
pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    use hmac::Mac;
    // HMAC takes keys of any length: new_from_slice cannot fail for it.
    let mut mac = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// A 32-byte key for one purpose, derived from the master key (HMAC-SHA256 keyed by the
/// master key over `label`): subkeys never need storing and rotate with the master key.
pub fn derive_key(master_key: &[u8], label: &str) -> Vec<u8> {
    hmac_sha256(master_key, label.as_bytes()).to_vec()
}

/// Lowercase hex HMAC-SHA256 of `data` under `key` (keyed, so short inputs such as phone
/// numbers cannot be recovered by trying them all).
pub fn hmac_hex(key: &[u8], data: &[u8]) -> String {
    hex::encode(hmac_sha256(key, data))
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ct_eq_basics() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"abcd"));
    }

    #[test]
    fn sha256_known_answer() {
        // FIPS 180-2, "abc".
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
