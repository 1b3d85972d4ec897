//! Reference client for the behavioral SDK protocol (docs/BEHAVIOR_PROTOCOL.md): the
//! DEVICE side, used by tests, the load tool and the docs' examples.
//!
//! Transport-free: it builds request bodies and headers and opens response bodies; the
//! caller sends them (the optional `http` feature adds a small reqwest helper).
//!
//! RSA on the device side uses the `rsa` crate, deliberately a different implementation
//! from the server's (aws-lc-rs, in idv-crypto), so the round-trip tests check the wire
//! format rather than one library against itself. (RUSTSEC-2023-0071, the `rsa` crate's
//! private-key timing leak, concerns a remote attacker timing many private-key operations
//! on a server; here the private key is the device's own, used for one signature per
//! request and one decryption per response, with blinding.) The AES-GCM envelopes, the
//! Content-MD5 and the batch hash come from idv-crypto, so there is one definition of each.
//!
//! ```no_run
//! # fn main() -> Result<(), idv_client::ClientError> {
//! use idv_client::{BatchChain, DeviceKeys, DeviceSession};
//! # let (key_pair_id, server_der, device_id, challenge_id, nonce) = ("", vec![], "", "", "");
//! let keys = DeviceKeys::generate()?;
//! // The client's backend sends this to register_device (Access Key scheme):
//! let register = keys.register_device_body(key_pair_id, &server_der, "user-1", "phone-1", true)?;
//! // ... and gets back customer_user_device_id:
//! let mut session = DeviceSession::new(device_id, keys, &server_der)?;
//! let body = session.encrypt_body(br#"{"session_id":"s-1"}"#);
//! let headers = session.sign_request("POST", "/v1/behavior/create_challenge", "2026-01-01T00:00:00Z", &body, None)?;
//! // send body + headers; then: let plaintext = session.open_response(&response_bytes)?;
//! let mut chain = BatchChain::new(nonce);
//! let batch = chain.next_plaintext(&serde_json::json!({"events": []}));
//! let body = session.encrypt_body(batch.as_bytes());
//! let headers = session.sign_request("POST", "/v1/behavior/push_event_batch", "2026-01-01T00:00:00Z", &body, Some(challenge_id))?;
//! # let _ = (register, headers); Ok(()) }
//! ```

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use idv_crypto::device::{self as proto, EncryptedResponse, SECRET_KEY_LEN};
use rand::rngs::OsRng;
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use rsa::signature::{RandomizedSigner, SignatureEncoding, Verifier};
use rsa::traits::PublicKeyParts;
use rsa::{Oaep, RsaPrivateKey, RsaPublicKey};
use serde_json::Value;
use sha2::Sha256;

#[cfg(feature = "http")]
pub mod http;

/// Bits of the device keys [`DeviceKeys::generate`] makes.
pub const DEVICE_RSA_BITS: usize = 2048;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("RSA: {0}")]
    Rsa(String),
    #[error("key: {0}")]
    Key(String),
    #[error("server public key rejected: {0}")]
    ServerKey(idv_crypto::device::DeviceCryptoError),
    #[error("response is not an encrypted response: {0}")]
    Malformed(String),
    #[error("response signature does not verify with the server public key")]
    ResponseSignature,
    #[error("response could not be decrypted")]
    ResponseDecrypt,
    /// The server answered with the (unencrypted) error envelope `{"errors": [...]}`.
    #[error("server error response: {0}")]
    Api(Value),
    #[cfg(feature = "http")]
    #[error("http: {0}")]
    Http(String),
    /// An Access Key request answered with another status than 200, after the retries
    /// the client's policy allows: the HTTP status, the first error code, the whole body.
    #[cfg(feature = "http")]
    #[error("refused: HTTP {status} {code} after {attempts} attempt(s)")]
    Refused { status: u16, code: String, attempts: u32, body: Value },
    /// An operation this client cannot send: it is not Access Key signed (the device
    /// operations go through [`DeviceSession`], the eKYC check takes a bearer token).
    #[cfg(feature = "http")]
    #[error("{0} is not an Access Key operation")]
    NotAccessKey(&'static str),
}

fn rsa_err(e: rsa::Error) -> ClientError {
    ClientError::Rsa(e.to_string())
}

// ---------------------------------------------------------------------------------------
// Device keys

/// The device's RSA key pair (the private key never leaves the device).
#[derive(Clone)]
pub struct DeviceKeys {
    private: RsaPrivateKey,
    public_der: Vec<u8>,
}

impl std::fmt::Debug for DeviceKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceKeys").field("bits", &(self.private.size() * 8)).finish_non_exhaustive()
    }
}

impl DeviceKeys {
    /// A fresh RSA-2048 key pair (slow in unoptimized builds: seconds).
    pub fn generate() -> Result<Self, ClientError> {
        Self::from_private(RsaPrivateKey::new(&mut OsRng, DEVICE_RSA_BITS).map_err(rsa_err)?)
    }

    /// Import a PKCS#8 DER private key (2048..=4096 bits).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, ClientError> {
        Self::from_private(RsaPrivateKey::from_pkcs8_der(der).map_err(|e| ClientError::Key(e.to_string()))?)
    }

    fn from_private(private: RsaPrivateKey) -> Result<Self, ClientError> {
        let public_der = private
            .to_public_key()
            .to_public_key_der()
            .map_err(|e| ClientError::Key(e.to_string()))?
            .as_bytes()
            .to_vec();
        proto::validate_public_key_der(&public_der).map_err(|e| ClientError::Key(e.to_string()))?;
        Ok(DeviceKeys { private, public_der })
    }

    /// PKCS#8 DER of the private key (to persist it on the device).
    pub fn to_pkcs8_der(&self) -> Result<Vec<u8>, ClientError> {
        Ok(self.private.to_pkcs8_der().map_err(|e| ClientError::Key(e.to_string()))?.as_bytes().to_vec())
    }

    /// PKIX SubjectPublicKeyInfo DER of the public key.
    pub fn public_key_der(&self) -> &[u8] {
        &self.public_der
    }

    /// base64 of [`Self::public_key_der`] (register_device's plain `device_public_key`).
    pub fn public_key_der_b64(&self) -> String {
        B64.encode(&self.public_der)
    }

    /// The register_device request (sent by the client's backend with its Access Key).
    /// `encrypted = false`: plain protocol, `device_public_key` = base64 DER (the server
    /// key is not used). `encrypted = true`: `protocol = "encrypted"`, a fresh AES key
    /// OAEP-encrypted to `server_public_key_der`, the DER sealed under it.
    pub fn register_device_body(
        &self,
        key_pair_id: &str,
        server_public_key_der: &[u8],
        cus_user_id: &str,
        device_id: &str,
        encrypted: bool,
    ) -> Result<Value, ClientError> {
        if !encrypted {
            return Ok(serde_json::json!({
                "key_pair_id": key_pair_id,
                "device_public_key": self.public_key_der_b64(),
                "cus_user_id": cus_user_id,
                "device_id": device_id,
            }));
        }
        let server = parse_server_key(server_public_key_der)?;
        let key = random_key();
        Ok(serde_json::json!({
            "key_pair_id": key_pair_id,
            "protocol": "encrypted",
            "encrypted_secret_key": oaep_encrypt_b64(&server, &key)?,
            "device_public_key": proto::seal_b64(&key, &self.public_der),
            "cus_user_id": cus_user_id,
            "device_id": device_id,
        }))
    }

    /// RSA-PSS (SHA-256, MGF1-SHA-256, salt 32), base64.
    pub fn sign_pss_b64(&self, message: &[u8]) -> Result<String, ClientError> {
        let signer = rsa::pss::BlindedSigningKey::<Sha256>::new(self.private.clone());
        let sig = signer.try_sign_with_rng(&mut OsRng, message).map_err(|e| ClientError::Rsa(e.to_string()))?;
        Ok(B64.encode(sig.to_bytes()))
    }

    /// RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) decryption.
    pub fn decrypt_oaep(&self, ciphertext: &[u8]) -> Result<Vec<u8>, ClientError> {
        self.private.decrypt(Oaep::new::<Sha256>(), ciphertext).map_err(rsa_err)
    }
}

fn random_key() -> [u8; SECRET_KEY_LEN] {
    use rand::RngCore;
    let mut k = [0u8; SECRET_KEY_LEN];
    OsRng.fill_bytes(&mut k);
    k
}

fn parse_server_key(der: &[u8]) -> Result<RsaPublicKey, ClientError> {
    proto::validate_public_key_der(der).map_err(ClientError::ServerKey)?;
    RsaPublicKey::from_public_key_der(der).map_err(|e| ClientError::Key(e.to_string()))
}

fn oaep_encrypt_b64(key: &RsaPublicKey, plaintext: &[u8]) -> Result<String, ClientError> {
    Ok(B64.encode(key.encrypt(&mut OsRng, Oaep::new::<Sha256>(), plaintext).map_err(rsa_err)?))
}

// ---------------------------------------------------------------------------------------
// Sessions: request signing, body encryption, response opening

/// A registered device talking to the server: its id, keys, the server public key of
/// the key pair it registered with, and the request secret key with its
/// `encrypted_secret_key` (made once per session, so the server pays one private-key
/// operation per session; [`Self::rotate_secret_key`] makes a new one).
#[derive(Clone)]
pub struct DeviceSession {
    customer_user_device_id: String,
    keys: DeviceKeys,
    server_public: RsaPublicKey,
    server_public_der: Vec<u8>,
    secret_key: [u8; SECRET_KEY_LEN],
    encrypted_secret_key: String,
}

impl std::fmt::Debug for DeviceSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceSession")
            .field("customer_user_device_id", &self.customer_user_device_id)
            .field("encrypted_secret_key", &self.encrypted_secret_key)
            .finish_non_exhaustive()
    }
}

/// A ready-to-send request: the `{"data": ...}` body and its headers.
#[derive(Debug, Clone)]
pub struct PreparedRequest {
    pub body: Vec<u8>,
    pub headers: Vec<(&'static str, String)>,
}

impl DeviceSession {
    pub fn new(
        customer_user_device_id: impl Into<String>,
        keys: DeviceKeys,
        server_public_key_der: &[u8],
    ) -> Result<Self, ClientError> {
        let server_public = parse_server_key(server_public_key_der)?;
        let secret_key = random_key();
        let encrypted_secret_key = oaep_encrypt_b64(&server_public, &secret_key)?;
        Ok(DeviceSession {
            customer_user_device_id: customer_user_device_id.into(),
            keys,
            server_public,
            server_public_der: server_public_key_der.to_vec(),
            secret_key,
            encrypted_secret_key,
        })
    }

    /// A new request secret key and `encrypted_secret_key` for the following requests.
    pub fn rotate_secret_key(&mut self) -> Result<(), ClientError> {
        let secret_key = random_key();
        self.encrypted_secret_key = oaep_encrypt_b64(&self.server_public, &secret_key)?;
        self.secret_key = secret_key;
        Ok(())
    }

    pub fn customer_user_device_id(&self) -> &str {
        &self.customer_user_device_id
    }

    pub fn keys(&self) -> &DeviceKeys {
        &self.keys
    }

    pub fn server_public_key_der(&self) -> &[u8] {
        &self.server_public_der
    }

    /// The base64 text sent in `Authorization`.
    pub fn encrypted_secret_key(&self) -> &str {
        &self.encrypted_secret_key
    }

    /// The current request secret key (the device's own secret; for tests and debugging).
    pub fn secret_key(&self) -> &[u8; SECRET_KEY_LEN] {
        &self.secret_key
    }

    /// Headers for a request whose body (as sent) is `body`: `Authorization`,
    /// `X-TV-Timestamp`, `X-TV-Content-MD5` and, when given, `X-Challenge-ID`.
    /// `uri` is the path and query exactly as sent; `timestamp` RFC 3339.
    pub fn sign_request(
        &self,
        method: &str,
        uri: &str,
        timestamp: &str,
        body: &[u8],
        challenge_id: Option<&str>,
    ) -> Result<Vec<(&'static str, String)>, ClientError> {
        let md5 = idv_crypto::access_key::content_md5(body);
        let sts = proto::string_to_sign_device(method, uri, timestamp, &self.encrypted_secret_key, &md5);
        let sig = self.keys.sign_pss_b64(sts.as_bytes())?;
        let mut h = vec![
            (
                "Authorization",
                format!("TV {}:{}:{}", self.customer_user_device_id, self.encrypted_secret_key, sig),
            ),
            ("X-TV-Timestamp", timestamp.to_string()),
            ("X-TV-Content-MD5", md5),
        ];
        if let Some(id) = challenge_id {
            h.push(("X-Challenge-ID", format!("TV {id}")));
        }
        Ok(h)
    }

    /// The encrypted request body `{"data": "<base64(nonce ‖ ct ‖ tag)>"}` (fresh nonce).
    pub fn encrypt_body(&self, plaintext_json: &[u8]) -> Vec<u8> {
        let data = proto::seal_b64(&self.secret_key, plaintext_json);
        serde_json::json!({ "data": data }).to_string().into_bytes()
    }

    /// [`Self::encrypt_body`] + [`Self::sign_request`] (method POST).
    pub fn prepare(
        &self,
        uri: &str,
        timestamp: &str,
        plaintext_json: &[u8],
        challenge_id: Option<&str>,
    ) -> Result<PreparedRequest, ClientError> {
        let body = self.encrypt_body(plaintext_json);
        let headers = self.sign_request("POST", uri, timestamp, &body, challenge_id)?;
        Ok(PreparedRequest { body, headers })
    }

    /// Open an encrypted success response: verify the server signature with the server
    /// public key FIRST, then decrypt `response_key` with the device private key, then
    /// `data`; returns the plaintext JSON (the `{"data": {...}}` envelope). An unencrypted
    /// `{"errors": [...]}` body is [`ClientError::Api`].
    pub fn open_response(&self, body: &[u8]) -> Result<Value, ClientError> {
        let v: Value = serde_json::from_slice(body).map_err(|e| ClientError::Malformed(e.to_string()))?;
        if let Some(errors) = v.get("errors") {
            return Err(ClientError::Api(errors.clone()));
        }
        let resp: EncryptedResponse = serde_json::from_value(v).map_err(|e| ClientError::Malformed(e.to_string()))?;
        let sig = B64.decode(&resp.signature).map_err(|_| ClientError::ResponseSignature)?;
        let sig = rsa::pss::Signature::try_from(sig.as_slice()).map_err(|_| ClientError::ResponseSignature)?;
        let verifier = rsa::pss::VerifyingKey::<Sha256>::new(self.server_public.clone());
        let signed = proto::string_to_sign_response(&resp.response_key, &resp.data);
        verifier.verify(signed.as_bytes(), &sig).map_err(|_| ClientError::ResponseSignature)?;
        let rk = B64.decode(&resp.response_key).map_err(|_| ClientError::ResponseDecrypt)?;
        let rk = self.keys.decrypt_oaep(&rk).map_err(|_| ClientError::ResponseDecrypt)?;
        let rk = <[u8; SECRET_KEY_LEN]>::try_from(rk.as_slice()).map_err(|_| ClientError::ResponseDecrypt)?;
        let plaintext = proto::open_b64(&rk, &resp.data).map_err(|_| ClientError::ResponseDecrypt)?;
        serde_json::from_slice(&plaintext).map_err(|e| ClientError::Malformed(e.to_string()))
    }
}

/// Current time as RFC 3339 UTC to the millisecond, for `X-TV-Timestamp`.
pub fn rfc3339_now() -> String {
    rfc3339_millis(time::OffsetDateTime::now_utc())
}

/// `t` in RFC 3339 to the millisecond. Milliseconds, not whole seconds: a request
/// retried within the same second (a 503 after a 250 ms backoff) must be signed anew,
/// and with an unchanged timestamp over the same body its signature would be the first
/// one's, which the replay guard refuses.
pub fn rfc3339_millis(t: time::OffsetDateTime) -> String {
    let t = t.replace_nanosecond(t.nanosecond() / 1_000_000 * 1_000_000).unwrap_or(t);
    t.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// push_event_batch hash chain

/// The client side of the push_event_batch hash chain for one challenge.
#[derive(Debug, Clone)]
pub struct BatchChain {
    nonce: String,
    next_seq: u64,
    prev_batch_hash: String,
}

/// The canonical batch hash (defined once, in idv-crypto).
pub use idv_crypto::device::batch_hash;

#[derive(serde::Serialize)]
struct BatchPlaintext<'a> {
    nonce: &'a str,
    seq: u64,
    prev_batch_hash: &'a str,
    batch_hash: &'a str,
    data: &'a serde_json::value::RawValue,
}

impl BatchChain {
    /// A chain for the challenge whose nonce create_challenge returned.
    pub fn new(nonce: impl Into<String>) -> Self {
        BatchChain { nonce: nonce.into(), next_seq: 0, prev_batch_hash: String::new() }
    }

    pub fn nonce(&self) -> &str {
        &self.nonce
    }

    /// The seq the next batch will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The previous batch's hash (`""` before the first batch).
    pub fn prev_batch_hash(&self) -> &str {
        &self.prev_batch_hash
    }

    /// The next batch's plaintext request as JSON text, `data` serialized once and those
    /// same bytes hashed and embedded. Advances the chain. Preferred over [`Self::next`].
    pub fn next_plaintext(&mut self, data: &Value) -> String {
        // Serializing a Value cannot fail (its map keys are strings).
        let data_text = serde_json::to_string(data).unwrap_or_default();
        let hash = batch_hash(&self.prev_batch_hash, self.next_seq, data_text.as_bytes());
        let out = match serde_json::value::RawValue::from_string(data_text) {
            Ok(raw) => serde_json::to_string(&BatchPlaintext {
                nonce: &self.nonce,
                seq: self.next_seq,
                prev_batch_hash: &self.prev_batch_hash,
                batch_hash: &hash,
                data: &raw,
            })
            .unwrap_or_default(),
            Err(_) => String::new(), // unreachable: serde_json's own output is valid JSON
        };
        self.next_seq += 1;
        self.prev_batch_hash = hash;
        out
    }

    /// The next batch's plaintext request `{"nonce","seq","prev_batch_hash","batch_hash","data"}`
    /// as a Value. Serialize it COMPACTLY (`serde_json::to_vec` / `to_string`, not pretty):
    /// that reproduces the hashed `data` bytes exactly. Advances the chain.
    pub fn next(&mut self, data: &Value) -> Value {
        let text = self.next_plaintext(data);
        // Re-parse of our own output; `data` round-trips to the same Value.
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_carry_milliseconds_so_retries_within_a_second_differ() {
        let t = time::macros::datetime!(2026-11-23 21:04:05.250_999 UTC);
        assert_eq!(rfc3339_millis(t), "2026-11-23T21:04:05.25Z");
        let later = t + time::Duration::milliseconds(250);
        assert_ne!(rfc3339_millis(t), rfc3339_millis(later));
        assert_eq!(rfc3339_millis(time::macros::datetime!(2026-11-23 21:04:05 UTC)), "2026-11-23T21:04:05Z");
        // what the server parses
        assert!(time::OffsetDateTime::parse(&rfc3339_millis(t), &time::format_description::well_known::Rfc3339).is_ok());
    }
}
