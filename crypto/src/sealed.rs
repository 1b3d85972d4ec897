//! Sealing data at rest with AES-256-GCM.
//!
//! Format of a sealed value: `version(1) || key_id(4, big endian) || nonce(12) ||
//! ciphertext+tag`. The associated data binds a value to its purpose and row (for
//! example `b"access_key:" + key_id`), so a sealed secret cannot be swapped onto
//! another row. Nonces are random (96-bit); keys are rotated long before the
//! 2^32-messages bound for random nonces matters.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};

const VERSION: u8 = 1;
const HEADER: usize = 1 + 4 + 12;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SealError {
    #[error("sealed value is malformed")]
    Malformed,
    #[error("sealed with key {0}, which this process does not hold")]
    UnknownKey(u32),
    #[error("sealed value failed authentication")]
    Authentication,
    #[error("master key must be 32 bytes")]
    BadKey,
}

/// Prefix of a sealed value carried as text: `sealed:v1:<base64 of the sealed bytes>`.
pub const SEALED_TEXT_PREFIX: &str = "sealed:v1:";

/// Whether `text` is a sealed value ([`SEALED_TEXT_PREFIX`]): what a reader without the
/// master key must not take for the value itself.
pub fn is_sealed_text(text: &str) -> bool {
    text.starts_with(SEALED_TEXT_PREFIX)
}

/// A job payload sealed for the bus (`sealed:v1:…`), bound to its request id: jobs whose
/// whole request is personal data (SIM: phone numbers, OTP codes, KYC statements) travel
/// and rest in the topic this way, and only a process with the master key reads them.
pub fn seal_job_payload(sealer: &Sealer, request_id: &str, payload_json: &[u8]) -> String {
    use base64::Engine as _;
    let sealed = sealer.seal(payload_json, format!("job-payload:{request_id}").as_bytes());
    format!("{SEALED_TEXT_PREFIX}{}", base64::engine::general_purpose::STANDARD.encode(sealed))
}

/// The payload [`seal_job_payload`] sealed; fails on another request id, key or tampering.
pub fn open_job_payload(sealer: &Sealer, request_id: &str, text: &str) -> Result<Vec<u8>, SealError> {
    use base64::Engine as _;
    let b64 = text.strip_prefix(SEALED_TEXT_PREFIX).ok_or(SealError::Malformed)?;
    let sealed = base64::engine::general_purpose::STANDARD.decode(b64).map_err(|_| SealError::Malformed)?;
    sealer.open(&sealed, format!("job-payload:{request_id}").as_bytes())
}

/// One text field sealed where it stands (`sealed:v1:…`), bound to `purpose` (for
/// example `transaction_data:account_number`): the field keeps its place in a JSON
/// document while its value is unreadable without the master key.
pub fn seal_text(sealer: &Sealer, purpose: &str, value: &str) -> String {
    use base64::Engine as _;
    let sealed = sealer.seal(value.as_bytes(), purpose.as_bytes());
    format!("{SEALED_TEXT_PREFIX}{}", base64::engine::general_purpose::STANDARD.encode(sealed))
}

/// The text [`seal_text`] sealed for `purpose`; `Ok(None)` when `text` is not sealed at
/// all (a plain value), an error when it is sealed and does not open.
pub fn open_text(sealer: &Sealer, purpose: &str, text: &str) -> Result<Option<String>, SealError> {
    use base64::Engine as _;
    let Some(b64) = text.strip_prefix(SEALED_TEXT_PREFIX) else { return Ok(None) };
    let sealed = base64::engine::general_purpose::STANDARD.decode(b64).map_err(|_| SealError::Malformed)?;
    let plain = sealer.open(&sealed, purpose.as_bytes())?;
    String::from_utf8(plain).map(Some).map_err(|_| SealError::Malformed)
}

/// The body of an answer that holds personal data (SIM: phone numbers), sealed where it
/// stands and bound to its request id: the envelope keeps its status and shape on the
/// results topic and in the request store, its body becomes one `sealed:v1:…` string.
pub fn seal_answer_body(sealer: &Sealer, request_id: &str, body: &serde_json::Value) -> serde_json::Value {
    serde_json::Value::String(seal_text(sealer, &format!("answer:{request_id}"), &body.to_string()))
}

/// The body [`seal_answer_body`] sealed; `Ok(None)` when `body` is not sealed (any other
/// answer), an error when it is sealed and does not open (another request, key or
/// tampering).
pub fn open_answer_body(sealer: &Sealer, request_id: &str, body: &serde_json::Value) -> Result<Option<serde_json::Value>, SealError> {
    let Some(text) = body.as_str() else { return Ok(None) };
    match open_text(sealer, &format!("answer:{request_id}"), text)? {
        Some(json) => serde_json::from_str(&json).map(Some).map_err(|_| SealError::Malformed),
        None => Ok(None),
    }
}

/// A master key with an id (the id is stored with every sealed value for rotation).
#[derive(Clone)]
pub struct Sealer {
    key_id: u32,
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer").field("key_id", &self.key_id).finish_non_exhaustive()
    }
}

impl Sealer {
    pub fn new(key_id: u32, key: &[u8]) -> Result<Self, SealError> {
        let cipher = Aes256Gcm::new_from_slice(key).map_err(|_| SealError::BadKey)?;
        Ok(Sealer { key_id, cipher })
    }

    pub fn key_id(&self) -> u32 {
        self.key_id
    }

    pub fn seal(&self, plaintext: &[u8], aad: &[u8]) -> Vec<u8> {
        let nonce = crate::random_bytes(12);
        self.seal_with_nonce(plaintext, aad, &nonce)
    }

    fn seal_with_nonce(&self, plaintext: &[u8], aad: &[u8], nonce: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + plaintext.len() + 16);
        out.push(VERSION);
        out.extend_from_slice(&self.key_id.to_be_bytes());
        out.extend_from_slice(nonce);
        // Encryption with a valid key and 12-byte nonce only fails past 64 GiB.
        let ct = self
            .cipher
            .encrypt(Nonce::from_slice(nonce), Payload { msg: plaintext, aad })
            .unwrap_or_default();
        out.extend_from_slice(&ct);
        out
    }

    pub fn open(&self, sealed: &[u8], aad: &[u8]) -> Result<Vec<u8>, SealError> {
        if sealed.len() < HEADER + 16 || sealed[0] != VERSION {
            return Err(SealError::Malformed);
        }
        let key_id = u32::from_be_bytes([sealed[1], sealed[2], sealed[3], sealed[4]]);
        if key_id != self.key_id {
            return Err(SealError::UnknownKey(key_id));
        }
        self.cipher
            .decrypt(Nonce::from_slice(&sealed[5..HEADER]), Payload { msg: &sealed[HEADER..], aad })
            .map_err(|_| SealError::Authentication)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_sealed_job_payload_opens_only_for_its_request_and_key() {
        let s = Sealer::new(1, &[3u8; 32]).unwrap();
        let text = seal_job_payload(&s, "req-1", br#"{"otp":"123456"}"#);
        assert!(text.starts_with(SEALED_TEXT_PREFIX) && !text.contains("123456"));
        assert_eq!(open_job_payload(&s, "req-1", &text).unwrap(), br#"{"otp":"123456"}"#);
        assert_eq!(open_job_payload(&s, "req-2", &text), Err(SealError::Authentication), "bound to its request id");
        let other = Sealer::new(1, &[4u8; 32]).unwrap();
        assert_eq!(open_job_payload(&other, "req-1", &text), Err(SealError::Authentication));
        assert_eq!(open_job_payload(&s, "req-1", "sealed:v1:!!"), Err(SealError::Malformed));
        assert_eq!(open_job_payload(&s, "req-1", r#"{"otp":"1"}"#), Err(SealError::Malformed));
        let mut tampered = text.clone().into_bytes();
        let last = tampered.len() - 3;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(open_job_payload(&s, "req-1", std::str::from_utf8(&tampered).unwrap()).is_err());
    }
    use super::*;

    #[test]
    fn a_sealed_text_field_opens_only_for_its_purpose_and_key() {
        let s = Sealer::new(1, &[3u8; 32]).unwrap();
        let text = seal_text(&s, "transaction_data:account_number", "ACC-1");
        assert!(text.starts_with(SEALED_TEXT_PREFIX) && !text.contains("ACC-1"));
        assert_eq!(open_text(&s, "transaction_data:account_number", &text), Ok(Some("ACC-1".into())));
        assert_eq!(open_text(&s, "transaction_data:bank_code", &text), Err(SealError::Authentication), "bound to its purpose");
        assert_eq!(open_text(&Sealer::new(1, &[4u8; 32]).unwrap(), "transaction_data:account_number", &text), Err(SealError::Authentication));
        assert_eq!(open_text(&s, "p", "ACC-1"), Ok(None), "a plain value is not sealed");
        assert_eq!(open_text(&s, "p", "sealed:v1:%%"), Err(SealError::Malformed));
        // A sealed value whose plaintext is not UTF-8 is refused, not mangled.
        let bytes = s.seal(&[0xff, 0xfe], b"p");
        use base64::Engine as _;
        let not_text = format!("{SEALED_TEXT_PREFIX}{}", base64::engine::general_purpose::STANDARD.encode(bytes));
        assert_eq!(open_text(&s, "p", &not_text), Err(SealError::Malformed));
    }

    #[test]
    fn aes_256_gcm_known_answer() {
        // NIST GCM test vector (gcmEncryptExtIV256, Count 0 with PT): key, IV, PT, AAD empty.
        let key = hex::decode("31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22").unwrap();
        let iv = hex::decode("0d18e06c7c725ac9e362e1ce").unwrap();
        let pt = hex::decode("2db5168e932556f8089a0622981d017d").unwrap();
        let s = Sealer::new(7, &key).unwrap();
        let sealed = s.seal_with_nonce(&pt, b"", &iv);
        assert_eq!(
            hex::encode(&sealed[HEADER..]),
            "fa4362189661d163fcd6a56d8bf0405a\
             d636ac1bbedd5cc3ee727dc2ab4a9489"
        );
        assert_eq!(s.open(&sealed, b"").unwrap(), pt);
    }

    #[test]
    fn must_fail_vectors() {
        let s = Sealer::new(1, &[9u8; 32]).unwrap();
        let sealed = s.seal(b"secret", b"row-1");
        assert_eq!(s.open(&sealed, b"row-1").unwrap(), b"secret");
        assert_eq!(s.open(&sealed, b"row-2"), Err(SealError::Authentication), "other row");
        let mut flipped = sealed.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(s.open(&flipped, b"row-1"), Err(SealError::Authentication), "tag flipped");
        let mut body = sealed.clone();
        body[HEADER] ^= 0x80;
        assert_eq!(s.open(&body, b"row-1"), Err(SealError::Authentication), "ciphertext flipped");
        assert_eq!(s.open(&sealed[..10], b"row-1"), Err(SealError::Malformed), "truncated");
        let other = Sealer::new(2, &[9u8; 32]).unwrap();
        assert_eq!(other.open(&sealed, b"row-1"), Err(SealError::UnknownKey(1)), "other key id");
        let wrong = Sealer::new(1, &[8u8; 32]).unwrap();
        assert_eq!(wrong.open(&sealed, b"row-1"), Err(SealError::Authentication), "wrong key");
        assert!(Sealer::new(1, &[0u8; 16]).is_err());
    }

    #[test]
    fn nonces_differ() {
        let s = Sealer::new(1, &[9u8; 32]).unwrap();
        assert_ne!(s.seal(b"x", b""), s.seal(b"x", b""));
    }


    #[test]
    fn answer_bodies_open_only_for_their_request() {
        let sealer = Sealer::new(1, &[9u8; 32]).unwrap();
        let body = serde_json::json!({"data": {"phone_number": "+84901234567", "status": "success"}, "errors": []});
        let sealed = seal_answer_body(&sealer, "req-1", &body);
        let text = sealed.as_str().unwrap();
        assert!(text.starts_with(SEALED_TEXT_PREFIX) && !text.contains("8490"), "{text}");
        assert_eq!(open_answer_body(&sealer, "req-1", &sealed).unwrap(), Some(body.clone()));
        // Must-fail: another request id, another key, a flipped byte.
        assert!(open_answer_body(&sealer, "req-2", &sealed).is_err());
        assert!(open_answer_body(&Sealer::new(1, &[8u8; 32]).unwrap(), "req-1", &sealed).is_err());
        let mut bytes = text.as_bytes().to_vec();
        let last = bytes.len() - 3;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        let tampered = serde_json::Value::String(String::from_utf8(bytes).unwrap());
        assert!(open_answer_body(&sealer, "req-1", &tampered).is_err());
        // A plain body is not sealed: nothing to open.
        assert_eq!(open_answer_body(&sealer, "req-1", &body).unwrap(), None);
        assert_eq!(open_answer_body(&sealer, "req-1", &serde_json::json!("plain text")).unwrap(), None);
    }
}
