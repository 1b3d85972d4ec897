//! The behavioral SDK protocol's device cryptography (docs/BEHAVIOR_PROTOCOL.md), server side.
//!
//! - Server key pairs ([`ServerKeyPair`], RSA-2048): every PRIVATE-key operation (OAEP
//!   decryption of client AES keys, PSS signing of responses) goes through `aws-lc-rs`,
//!   which is constant time; the `rsa` crate is not (RUSTSEC-2023-0071).
//! - RSA-OAEP is always SHA-256 with MGF1-SHA-256 and an empty label; RSA-PSS is always
//!   SHA-256, MGF1-SHA-256, salt length 32 (verification rejects any other salt length).
//! - AES-256-GCM envelopes: base64(nonce(12) ‖ ciphertext ‖ tag(16)), empty associated data.
//! - Public keys travel as PKIX SubjectPublicKeyInfo DER; device keys must be RSA,
//!   2048..=4096 bits ([`validate_public_key_der`]).
//! - [`batch_hash`]: the one definition of the push_event_batch hash chain, shared with
//!   the reference client (idv-client).

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{
    KeySize, OaepPrivateDecryptingKey, OaepPublicEncryptingKey, PrivateDecryptingKey, PublicEncryptingKey,
    OAEP_SHA256_MGF1SHA256,
};
use aws_lc_rs::signature::{RsaKeyPair, UnparsedPublicKey, RSA_PSS_2048_8192_SHA256, RSA_PSS_SHA256};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;

/// Length of request secret keys and response keys (AES-256).
pub const SECRET_KEY_LEN: usize = 32;
/// Smallest RSA modulus accepted, in bits.
pub const MIN_RSA_BITS: usize = 2048;
/// Largest RSA modulus accepted, in bits.
pub const MAX_RSA_BITS: usize = 4096;
/// Bits of the server key pairs [`ServerKeyPair::generate`] makes.
pub const SERVER_RSA_BITS: usize = 2048;

const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone, Copy)]
pub enum DeviceCryptoError {
    #[error("RSA key generation failed")]
    KeyGeneration,
    #[error("private key is not an acceptable PKCS#8 RSA key")]
    BadPrivateKey,
    #[error("public key is not an RSA SubjectPublicKeyInfo")]
    BadPublicKey,
    #[error("RSA key size is outside 2048..=4096 bits")]
    KeySize,
    #[error("malformed base64 or wrong length")]
    Malformed,
    #[error("decryption failed")]
    Decrypt,
    #[error("secret key must be 32 bytes")]
    SecretKeyLength,
    #[error("encryption failed")]
    Encrypt,
    #[error("signing failed")]
    Sign,
}

// ---------------------------------------------------------------------------------------
// Server key pairs

/// A server RSA key pair (private half sealed at rest by the caller, see
/// [`crate::sealed::Sealer`]). Cheap to share behind an `Arc`; all operations take `&self`.
pub struct ServerKeyPair {
    signing: RsaKeyPair,
    decrypting: OaepPrivateDecryptingKey,
    public_der: Vec<u8>,
    bits: usize,
}

impl std::fmt::Debug for ServerKeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerKeyPair").field("bits", &self.bits).finish_non_exhaustive()
    }
}

impl ServerKeyPair {
    /// A fresh RSA-2048 key pair.
    pub fn generate() -> Result<Self, DeviceCryptoError> {
        let kp = RsaKeyPair::generate(KeySize::Rsa2048).map_err(|_| DeviceCryptoError::KeyGeneration)?;
        let pkcs8 = kp.as_der().map_err(|_| DeviceCryptoError::KeyGeneration)?;
        Self::from_pkcs8_der(pkcs8.as_ref())
    }

    /// Import an unencrypted PKCS#8 (RFC 5208) DER RSA private key of 2048..=4096 bits.
    pub fn from_pkcs8_der(pkcs8: &[u8]) -> Result<Self, DeviceCryptoError> {
        let signing = RsaKeyPair::from_pkcs8(pkcs8).map_err(key_rejected)?;
        let private = PrivateDecryptingKey::from_pkcs8(pkcs8).map_err(key_rejected)?;
        let bits = private.key_size_bits();
        if !(MIN_RSA_BITS..=MAX_RSA_BITS).contains(&bits) {
            return Err(DeviceCryptoError::KeySize);
        }
        let public_der = private
            .public_key()
            .as_der()
            .map_err(|_| DeviceCryptoError::BadPrivateKey)?
            .as_ref()
            .to_vec();
        let decrypting = OaepPrivateDecryptingKey::new(private).map_err(|_| DeviceCryptoError::BadPrivateKey)?;
        Ok(ServerKeyPair { signing, decrypting, public_der, bits })
    }

    /// The private key as unencrypted PKCS#8 DER: seal it before it goes anywhere.
    pub fn to_pkcs8_der(&self) -> Result<Vec<u8>, DeviceCryptoError> {
        Ok(self.signing.as_der().map_err(|_| DeviceCryptoError::BadPrivateKey)?.as_ref().to_vec())
    }

    /// PKIX SubjectPublicKeyInfo DER of the public key.
    pub fn public_key_der(&self) -> Vec<u8> {
        self.public_der.clone()
    }

    /// base64 of [`Self::public_key_der`] (create_challenge's `server_public_key`).
    pub fn public_key_der_b64(&self) -> String {
        B64.encode(&self.public_der)
    }

    pub fn key_size_bits(&self) -> usize {
        self.bits
    }

    /// RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) decryption.
    pub fn decrypt_oaep(&self, ciphertext: &[u8]) -> Result<Vec<u8>, DeviceCryptoError> {
        if ciphertext.len() != self.decrypting.key_size_bytes() {
            return Err(DeviceCryptoError::Malformed);
        }
        let mut out = vec![0u8; self.decrypting.min_output_size()];
        let n = self
            .decrypting
            .decrypt(&OAEP_SHA256_MGF1SHA256, ciphertext, &mut out, None)
            .map_err(|_| DeviceCryptoError::Decrypt)?
            .len();
        out.truncate(n);
        Ok(out)
    }

    /// RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) signature of `message`.
    pub fn sign_pss(&self, message: &[u8]) -> Result<Vec<u8>, DeviceCryptoError> {
        let mut sig = vec![0u8; self.signing.public_modulus_len()];
        // aws-lc-rs ignores the rng argument (AWS-LC draws the salt itself).
        let rng = aws_lc_rs::rand::SystemRandom::new();
        self.signing
            .sign(&RSA_PSS_SHA256, &rng, message, &mut sig)
            .map_err(|_| DeviceCryptoError::Sign)?;
        Ok(sig)
    }
}

fn key_rejected(e: aws_lc_rs::error::KeyRejected) -> DeviceCryptoError {
    match e.description_() {
        "TooSmall" | "TooLarge" => DeviceCryptoError::KeySize,
        _ => DeviceCryptoError::BadPrivateKey,
    }
}

// ---------------------------------------------------------------------------------------
// Public-key operations (no secrets: device keys and the server's public key)

/// Accept only an RSA (rsaEncryption OID) SubjectPublicKeyInfo of 2048..=4096 bits.
/// PKCS#1 `RSAPublicKey`, RSASSA-PSS-OID keys, EC keys and trailing garbage are refused.
pub fn validate_public_key_der(der: &[u8]) -> Result<(), DeviceCryptoError> {
    parse_public_key(der).map(|_| ())
}

fn parse_public_key(der: &[u8]) -> Result<PublicEncryptingKey, DeviceCryptoError> {
    // AWS-LC also parses id-RSASSA-PSS keys as RSA; such a key is restricted to PSS
    // signatures (RFC 4055) and must not be used for OAEP, so require rsaEncryption.
    if !has_rsa_encryption_oid(der) {
        return Err(DeviceCryptoError::BadPublicKey);
    }
    let key = PublicEncryptingKey::from_der(der).map_err(|e| match e.description_() {
        "TooSmall" | "TooLarge" => DeviceCryptoError::KeySize,
        _ => DeviceCryptoError::BadPublicKey,
    })?;
    if !(MIN_RSA_BITS..=MAX_RSA_BITS).contains(&key.key_size_bits()) {
        return Err(DeviceCryptoError::KeySize);
    }
    Ok(key)
}

/// DER tag + length header at the start of `der`: (tag, header length, content length).
fn der_header(der: &[u8]) -> Option<(u8, usize, usize)> {
    let tag = *der.first()?;
    let first = *der.get(1)?;
    if first < 0x80 {
        return Some((tag, 2, usize::from(first)));
    }
    let n = usize::from(first & 0x7f);
    if n == 0 || n > 4 {
        return None;
    }
    let mut len = 0usize;
    for b in der.get(2..2 + n)? {
        len = (len << 8) | usize::from(*b);
    }
    Some((tag, 2 + n, len))
}

/// SubjectPublicKeyInfo ::= SEQUENCE { SEQUENCE { OID rsaEncryption, .. }, BIT STRING },
/// with nothing after the outer SEQUENCE.
fn has_rsa_encryption_oid(der: &[u8]) -> bool {
    const RSA_ENCRYPTION_OID: &[u8] = &[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    let Some((0x30, outer, len)) = der_header(der) else {
        return false;
    };
    if outer.checked_add(len) != Some(der.len()) {
        return false; // trailing bytes (AWS-LC would ignore them)
    }
    let Some(rest) = der.get(outer..) else {
        return false;
    };
    let Some((0x30, inner, _)) = der_header(rest) else {
        return false;
    };
    rest.get(inner..).is_some_and(|alg| alg.starts_with(RSA_ENCRYPTION_OID))
}

/// base64 PKIX DER (register_device's plain `device_public_key`) → validated DER.
pub fn decode_device_public_key(device_public_key_b64: &str) -> Result<Vec<u8>, DeviceCryptoError> {
    let der = B64.decode(device_public_key_b64).map_err(|_| DeviceCryptoError::Malformed)?;
    validate_public_key_der(&der)?;
    Ok(der)
}

/// RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) encryption to a validated public key.
pub fn oaep_encrypt(public_der: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, DeviceCryptoError> {
    let key = OaepPublicEncryptingKey::new(parse_public_key(public_der)?).map_err(|_| DeviceCryptoError::Encrypt)?;
    let mut out = vec![0u8; key.ciphertext_size()];
    let n = key
        .encrypt(&OAEP_SHA256_MGF1SHA256, plaintext, &mut out, None)
        .map_err(|_| DeviceCryptoError::Encrypt)?
        .len();
    out.truncate(n);
    Ok(out)
}

/// Verify an RSA-PSS (SHA-256, MGF1-SHA-256, salt exactly 32) signature with a validated
/// public key. Any malformed input is simply `false`.
pub fn verify_pss(public_der: &[u8], message: &[u8], signature: &[u8]) -> bool {
    if validate_public_key_der(public_der).is_err() {
        return false;
    }
    UnparsedPublicKey::new(&RSA_PSS_2048_8192_SHA256, public_der).verify(message, signature).is_ok()
}

// ---------------------------------------------------------------------------------------
// AES-256-GCM envelopes

/// base64(nonce(12) ‖ AES-256-GCM ciphertext ‖ tag(16)), fresh random nonce, empty AAD.
pub fn seal_b64(key: &[u8; SECRET_KEY_LEN], plaintext: &[u8]) -> String {
    let nonce = crate::random_bytes(NONCE_LEN);
    seal_b64_with_nonce(key, plaintext, &nonce)
}

fn seal_b64_with_nonce(key: &[u8; SECRET_KEY_LEN], plaintext: &[u8], nonce: &[u8]) -> String {
    let cipher = Aes256Gcm::new(&(*key).into());
    let mut out = Vec::with_capacity(NONCE_LEN + plaintext.len() + TAG_LEN);
    out.extend_from_slice(nonce);
    // Encryption with a valid key and 12-byte nonce only fails past 64 GiB.
    out.extend_from_slice(&cipher.encrypt(Nonce::from_slice(nonce), plaintext).unwrap_or_default());
    B64.encode(out)
}

/// Open a [`seal_b64`] envelope.
pub fn open_b64(key: &[u8; SECRET_KEY_LEN], envelope_b64: &str) -> Result<Vec<u8>, DeviceCryptoError> {
    let raw = B64.decode(envelope_b64).map_err(|_| DeviceCryptoError::Malformed)?;
    if raw.len() < NONCE_LEN + TAG_LEN {
        return Err(DeviceCryptoError::Malformed);
    }
    let (nonce, ct) = raw.split_at(NONCE_LEN);
    Aes256Gcm::new(&(*key).into())
        .decrypt(Nonce::from_slice(nonce), ct)
        .map_err(|_| DeviceCryptoError::Decrypt)
}

// ---------------------------------------------------------------------------------------
// Requests: Customer User Device authentication

/// Parse `TV <customer_user_device_id>:<encrypted_secret_key>:<signature>`; `None` on any
/// other shape (exactly three non-empty parts).
pub fn parse_device_authorization(header: &str) -> Option<(&str, &str, &str)> {
    let rest = header.strip_prefix("TV ")?;
    let mut parts = rest.split(':');
    let (id, esk, sig) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || id.is_empty() || esk.is_empty() || sig.is_empty() {
        return None;
    }
    Some((id, esk, sig))
}

/// Parse `X-Challenge-ID: TV <challenge_id>`.
pub fn parse_challenge_header(header: &str) -> Option<&str> {
    let id = header.strip_prefix("TV ")?;
    (!id.is_empty() && !id.contains(char::is_whitespace)).then_some(id)
}

/// The exact text the device signs:
/// `METHOD "\n" URI "\n" X-TV-Timestamp "\n" encrypted_secret_key "\n" X-TV-Content-MD5`.
pub fn string_to_sign_device(
    method: &str,
    uri: &str,
    timestamp: &str,
    encrypted_secret_key_b64: &str,
    content_md5: &str,
) -> String {
    format!("{method}\n{uri}\n{timestamp}\n{encrypted_secret_key_b64}\n{content_md5}")
}

/// Verify the device's PSS signature (a public-key operation: do it BEFORE
/// [`decrypt_secret_key`], so unauthenticated requests cost no private-key work).
pub fn verify_device_signature(
    device_public_der: &[u8],
    method: &str,
    uri: &str,
    timestamp: &str,
    encrypted_secret_key_b64: &str,
    content_md5: &str,
    signature_b64: &str,
) -> bool {
    let Ok(sig) = B64.decode(signature_b64) else {
        return false;
    };
    let sts = string_to_sign_device(method, uri, timestamp, encrypted_secret_key_b64, content_md5);
    verify_pss(device_public_der, sts.as_bytes(), &sig)
}

/// Decrypt a request secret key (`encrypted_secret_key`): exactly 32 bytes or an error.
pub fn decrypt_secret_key(
    server: &ServerKeyPair,
    encrypted_secret_key_b64: &str,
) -> Result<[u8; SECRET_KEY_LEN], DeviceCryptoError> {
    let ct = B64.decode(encrypted_secret_key_b64).map_err(|_| DeviceCryptoError::Malformed)?;
    let pt = server.decrypt_oaep(&ct)?;
    <[u8; SECRET_KEY_LEN]>::try_from(pt.as_slice()).map_err(|_| DeviceCryptoError::SecretKeyLength)
}

/// register_device, `protocol = "encrypted"`: decrypt and validate the device public key.
pub fn decrypt_device_public_key(
    server: &ServerKeyPair,
    encrypted_secret_key_b64: &str,
    device_public_key_b64: &str,
) -> Result<Vec<u8>, DeviceCryptoError> {
    let key = decrypt_secret_key(server, encrypted_secret_key_b64)?;
    let der = open_b64(&key, device_public_key_b64)?;
    validate_public_key_der(&der)?;
    Ok(der)
}

// ---------------------------------------------------------------------------------------
// Responses

/// The encrypted success response body.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EncryptedResponse {
    /// base64(nonce ‖ AES-256-GCM(plaintext JSON) ‖ tag) under the response key.
    pub data: String,
    /// base64(RSA-OAEP-SHA-256 of the response key, to the device public key).
    pub response_key: String,
    /// base64(RSA-PSS-SHA-256 by the server over `response_key` ‖ `data`).
    pub signature: String,
}

/// The exact text the server signs: the `response_key` base64 text immediately followed
/// by the `data` base64 text.
pub fn string_to_sign_response(response_key_b64: &str, data_b64: &str) -> String {
    let mut s = String::with_capacity(response_key_b64.len() + data_b64.len());
    s.push_str(response_key_b64);
    s.push_str(data_b64);
    s
}

/// Encrypt a success response to the device: fresh response key, fresh nonce, signed.
pub fn encrypt_response(
    server: &ServerKeyPair,
    device_public_der: &[u8],
    plaintext_json: &[u8],
) -> Result<EncryptedResponse, DeviceCryptoError> {
    let mut key = [0u8; SECRET_KEY_LEN];
    key.copy_from_slice(&crate::random_bytes(SECRET_KEY_LEN));
    let response_key = B64.encode(oaep_encrypt(device_public_der, &key)?);
    let data = seal_b64(&key, plaintext_json);
    let signature = B64.encode(server.sign_pss(string_to_sign_response(&response_key, &data).as_bytes())?);
    Ok(EncryptedResponse { data, response_key, signature })
}

/// Verify a response's server signature (what a device does first).
pub fn verify_response_signature(server_public_der: &[u8], response: &EncryptedResponse) -> bool {
    let Ok(sig) = B64.decode(&response.signature) else {
        return false;
    };
    verify_pss(
        server_public_der,
        string_to_sign_response(&response.response_key, &response.data).as_bytes(),
        &sig,
    )
}

// ---------------------------------------------------------------------------------------
// push_event_batch hash chain

/// hex(SHA-256(prev_batch_hash ‖ "\n" ‖ decimal seq ‖ "\n" ‖ D)), D being the exact bytes
/// of the batch's `data` JSON value as they appear in the decrypted request body.
pub fn batch_hash(prev_batch_hash: &str, seq: u64, data_json: &[u8]) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(prev_batch_hash.as_bytes());
    h.update(b"\n");
    h.update(seq.to_string().as_bytes());
    h.update(b"\n");
    h.update(data_json);
    hex::encode(h.finalize())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! Vectors in crypto/testdata were produced independently by the OpenSSL CLI and Python
    //! `cryptography` (see testdata/make_vectors.sh). The keys there are TEST-ONLY.
    use super::*;

    const SERVER_PK8: &[u8] = include_bytes!("../testdata/server_2048.pk8.der");
    const SERVER_SPKI: &[u8] = include_bytes!("../testdata/server_2048.spki.der");
    const DEVICE_PK8: &[u8] = include_bytes!("../testdata/device_2048.pk8.der");
    const DEVICE_SPKI: &[u8] = include_bytes!("../testdata/device_2048.spki.der");
    const DEVICE_PKCS1_PUB: &[u8] = include_bytes!("../testdata/device_2048.pkcs1pub.der");
    const RSA_1024_PK8: &[u8] = include_bytes!("../testdata/rsa_1024.pk8.der");
    const RSA_1024_SPKI: &[u8] = include_bytes!("../testdata/rsa_1024.spki.der");
    const RSA_4096_SPKI: &[u8] = include_bytes!("../testdata/rsa_4096.spki.der");
    const RSA_6144_SPKI: &[u8] = include_bytes!("../testdata/rsa_6144.spki.der");
    const RSA_PSS_OID_SPKI: &[u8] = include_bytes!("../testdata/rsa_pss_oid_2048.spki.der");
    const EC_SPKI: &[u8] = include_bytes!("../testdata/ec_p256.spki.der");

    const ESK_OK: &str = include_str!("../testdata/esk_ok.b64");
    const SIG_DEVICE_OK: &str = include_str!("../testdata/sig_device_ok.b64");
    const DPK_ENCRYPTED: &str = include_str!("../testdata/dpk_encrypted.b64");
    const BODY_ENCRYPTED: &str = include_str!("../testdata/body_encrypted.b64");

    /// The AES key of every vector: bytes 00..1f.
    fn k32() -> [u8; 32] {
        core::array::from_fn(|i| i as u8)
    }

    fn server() -> ServerKeyPair {
        ServerKeyPair::from_pkcs8_der(SERVER_PK8).unwrap()
    }

    /// What a device does with `response_key` (test only; devices use their own library).
    fn device_open(resp: &EncryptedResponse) -> Result<Vec<u8>, DeviceCryptoError> {
        let key = PrivateDecryptingKey::from_pkcs8(DEVICE_PK8).unwrap();
        let key = OaepPrivateDecryptingKey::new(key).unwrap();
        let ct = B64.decode(&resp.response_key).map_err(|_| DeviceCryptoError::Malformed)?;
        let mut out = vec![0u8; key.min_output_size()];
        let rk = key
            .decrypt(&OAEP_SHA256_MGF1SHA256, &ct, &mut out, None)
            .map_err(|_| DeviceCryptoError::Decrypt)?;
        let rk: [u8; 32] = (&*rk).try_into().map_err(|_| DeviceCryptoError::SecretKeyLength)?;
        open_b64(&rk, &resp.data)
    }

    fn reencode_flipped(b64: &str, at: usize) -> String {
        let mut raw = B64.decode(b64).unwrap();
        raw[at] ^= 0x01;
        B64.encode(raw)
    }

    // ----- AES-256-GCM

    #[test]
    fn aes_gcm_envelope_known_answer() {
        // Python `cryptography` AESGCM, key 00..1f, nonce cafebabefacedbaddecaf888.
        let nonce = hex::decode("cafebabefacedbaddecaf888").unwrap();
        assert_eq!(seal_b64_with_nonce(&k32(), br#"{"session_id":"s-1"}"#, &nonce), BODY_ENCRYPTED);
        assert_eq!(open_b64(&k32(), BODY_ENCRYPTED).unwrap(), br#"{"session_id":"s-1"}"#);
        assert_eq!(open_b64(&k32(), DPK_ENCRYPTED).unwrap(), DEVICE_SPKI);
        // NIST gcmEncryptExtIV256 Count 0 (as in sealed.rs), through the envelope format.
        let key: [u8; 32] = hex::decode("31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22")
            .unwrap()
            .try_into()
            .unwrap();
        let iv = hex::decode("0d18e06c7c725ac9e362e1ce").unwrap();
        let pt = hex::decode("2db5168e932556f8089a0622981d017d").unwrap();
        let env = B64.decode(seal_b64_with_nonce(&key, &pt, &iv)).unwrap();
        assert_eq!(hex::encode(&env[..12]), "0d18e06c7c725ac9e362e1ce");
        assert_eq!(hex::encode(&env[12..]), "fa4362189661d163fcd6a56d8bf0405ad636ac1bbedd5cc3ee727dc2ab4a9489");
    }

    #[test]
    fn aes_gcm_envelope_must_fail() {
        let sealed = seal_b64(&k32(), b"secret");
        assert_eq!(open_b64(&k32(), &sealed).unwrap(), b"secret");
        let mut wrong = k32();
        wrong[0] ^= 1;
        assert_eq!(open_b64(&wrong, &sealed), Err(DeviceCryptoError::Decrypt), "wrong key");
        let n = B64.decode(&sealed).unwrap().len();
        assert_eq!(open_b64(&k32(), &reencode_flipped(&sealed, n - 1)), Err(DeviceCryptoError::Decrypt), "tag");
        assert_eq!(open_b64(&k32(), &reencode_flipped(&sealed, 12)), Err(DeviceCryptoError::Decrypt), "ct");
        assert_eq!(open_b64(&k32(), &reencode_flipped(&sealed, 0)), Err(DeviceCryptoError::Decrypt), "nonce");
        assert_eq!(open_b64(&k32(), &reencode_flipped(BODY_ENCRYPTED, 40)), Err(DeviceCryptoError::Decrypt));
        let short = B64.encode([0u8; 27]);
        assert_eq!(open_b64(&k32(), &short), Err(DeviceCryptoError::Malformed), "shorter than nonce+tag");
        assert_eq!(open_b64(&k32(), "not base64!"), Err(DeviceCryptoError::Malformed));
        assert_eq!(open_b64(&k32(), ""), Err(DeviceCryptoError::Malformed));
        assert_ne!(seal_b64(&k32(), b"x"), seal_b64(&k32(), b"x"), "fresh nonces");
    }

    // ----- Server key pairs

    #[test]
    fn server_key_pair_import_known_answer() {
        let s = server();
        assert_eq!(s.key_size_bits(), 2048);
        // The public key openssl derived from the same PKCS#8 file.
        assert_eq!(s.public_key_der(), SERVER_SPKI);
        assert_eq!(B64.decode(s.public_key_der_b64()).unwrap(), SERVER_SPKI);
        let again = ServerKeyPair::from_pkcs8_der(&s.to_pkcs8_der().unwrap()).unwrap();
        assert_eq!(again.public_key_der(), SERVER_SPKI);
    }

    #[test]
    fn server_key_pair_generate() {
        let s = ServerKeyPair::generate().unwrap();
        assert_eq!(s.key_size_bits(), SERVER_RSA_BITS);
        assert_ne!(s.public_key_der(), SERVER_SPKI);
        validate_public_key_der(&s.public_key_der()).unwrap();
        let back = ServerKeyPair::from_pkcs8_der(&s.to_pkcs8_der().unwrap()).unwrap();
        assert_eq!(back.public_key_der(), s.public_key_der());
        let sig = back.sign_pss(b"m").unwrap();
        assert!(verify_pss(&s.public_key_der(), b"m", &sig));
        assert!(format!("{s:?}").contains("2048"));
    }

    #[test]
    fn server_key_pair_must_fail() {
        assert_eq!(ServerKeyPair::from_pkcs8_der(RSA_1024_PK8).unwrap_err(), DeviceCryptoError::KeySize);
        assert_eq!(ServerKeyPair::from_pkcs8_der(b"garbage").unwrap_err(), DeviceCryptoError::BadPrivateKey);
        assert_eq!(ServerKeyPair::from_pkcs8_der(SERVER_SPKI).unwrap_err(), DeviceCryptoError::BadPrivateKey);
        assert!(ServerKeyPair::from_pkcs8_der(&SERVER_PK8[..SERVER_PK8.len() - 1]).is_err(), "truncated");
    }

    // ----- RSA-OAEP: request secret keys

    #[test]
    fn oaep_decrypt_openssl_vector() {
        // openssl pkeyutl -encrypt, OAEP SHA-256 / MGF1-SHA-256, empty label, of 00..1f.
        assert_eq!(decrypt_secret_key(&server(), ESK_OK).unwrap(), k32());
    }

    #[test]
    fn oaep_must_fail_vectors() {
        let s = server();
        let v = |name: &str| std::fs::read_to_string(format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let d = DeviceCryptoError::Decrypt;
        assert_eq!(decrypt_secret_key(&s, &v("esk_sha1.b64")), Err(d), "OAEP-SHA-1");
        assert_eq!(decrypt_secret_key(&s, &v("esk_mgf1_sha1.b64")), Err(d), "MGF1-SHA-1 (Java default)");
        assert_eq!(decrypt_secret_key(&s, &v("esk_label.b64")), Err(d), "non-empty label");
        assert_eq!(decrypt_secret_key(&s, &v("esk_pkcs1v15.b64")), Err(d), "PKCS#1 v1.5");
        assert_eq!(decrypt_secret_key(&s, &v("esk_other_key.b64")), Err(d), "to another key");
        for at in [0, 100, 255] {
            assert_eq!(decrypt_secret_key(&s, &reencode_flipped(ESK_OK, at)), Err(d), "tampered at {at}");
        }
        let l = DeviceCryptoError::SecretKeyLength;
        assert_eq!(decrypt_secret_key(&s, &v("esk_len16.b64")), Err(l), "16-byte key");
        assert_eq!(decrypt_secret_key(&s, &v("esk_len33.b64")), Err(l), "33-byte key");
        let m = DeviceCryptoError::Malformed;
        let raw = B64.decode(ESK_OK).unwrap();
        assert_eq!(decrypt_secret_key(&s, &B64.encode(&raw[..255])), Err(m), "truncated");
        assert_eq!(decrypt_secret_key(&s, &B64.encode([&raw[..], &[0]].concat())), Err(m), "extended");
        assert_eq!(decrypt_secret_key(&s, "not base64!"), Err(m));
        assert_eq!(decrypt_secret_key(&s, ""), Err(m));
        // The same ciphertext under a different server key pair.
        let other = ServerKeyPair::generate().unwrap();
        assert_eq!(decrypt_secret_key(&other, ESK_OK), Err(d), "wrong server key");
    }

    #[test]
    fn oaep_encrypt_round_trip() {
        let s = server();
        let ct = oaep_encrypt(SERVER_SPKI, &k32()).unwrap();
        assert_eq!(ct.len(), 256);
        assert_eq!(decrypt_secret_key(&s, &B64.encode(&ct)).unwrap(), k32());
        assert_ne!(oaep_encrypt(SERVER_SPKI, &k32()).unwrap(), ct, "randomized");
        assert_eq!(oaep_encrypt(RSA_1024_SPKI, &k32()), Err(DeviceCryptoError::KeySize));
        assert_eq!(oaep_encrypt(DEVICE_PKCS1_PUB, &k32()), Err(DeviceCryptoError::BadPublicKey));
    }

    // ----- RSA-PSS: device request signatures

    #[test]
    fn string_to_sign_device_known_answer() {
        assert_eq!(
            string_to_sign_device("POST", "/v1/x?a=1", "2026-01-01T00:00:00Z", "RVNL", "MD5="),
            "POST\n/v1/x?a=1\n2026-01-01T00:00:00Z\nRVNL\nMD5="
        );
    }

    const URI: &str = "/v1/behavior/challenges";
    const TS: &str = "2026-01-01T00:00:00Z";
    const MD5: &str = "q1Ybkpk0ubXWX+0YnSEhqg==";

    #[test]
    fn device_signature_openssl_vector() {
        // openssl dgst -sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32.
        assert!(verify_device_signature(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, SIG_DEVICE_OK));
    }

    #[test]
    fn device_signature_must_fail() {
        let v = |name: &str| std::fs::read_to_string(format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let ok = SIG_DEVICE_OK;
        let f = |key: &[u8], m: &str, u: &str, t: &str, e: &str, c: &str, s: &str| verify_device_signature(key, m, u, t, e, c, s);
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, &v("sig_device_salt20.b64")), "salt 20");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, &v("sig_device_pkcs1v15.b64")), "PKCS#1 v1.5");
        assert!(!f(DEVICE_SPKI, "GET", URI, TS, ESK_OK, MD5, ok), "other method");
        assert!(!f(DEVICE_SPKI, "POST", "/api/v1/behavior/challenges", TS, ESK_OK, MD5, ok), "other uri");
        assert!(!f(DEVICE_SPKI, "POST", URI, "2026-01-01T00:00:01Z", ESK_OK, MD5, ok), "other timestamp");
        let esk2 = v("esk_sha1.b64");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, &esk2, MD5, ok), "other encrypted_secret_key");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, "", ok), "md5 dropped");
        assert!(!f(SERVER_SPKI, "POST", URI, TS, ESK_OK, MD5, ok), "another key");
        assert!(!f(DEVICE_PKCS1_PUB, "POST", URI, TS, ESK_OK, MD5, ok), "PKCS#1 public key encoding");
        assert!(!f(RSA_1024_SPKI, "POST", URI, TS, ESK_OK, MD5, ok), "1024-bit key");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, &reencode_flipped(ok, 128)), "flipped bit");
        let raw = B64.decode(ok).unwrap();
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, &B64.encode(&raw[..255])), "truncated");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, &B64.encode([&raw[..], &[0]].concat())), "extended");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, ""), "empty");
        assert!(!f(DEVICE_SPKI, "POST", URI, TS, ESK_OK, MD5, "not base64!"), "garbage");
    }

    // ----- RSA-PSS: server signatures; encrypted responses

    #[test]
    fn server_signature_verifies_and_is_strict() {
        let s = server();
        let sig = s.sign_pss(b"payload").unwrap();
        assert_eq!(sig.len(), 256);
        assert!(verify_pss(SERVER_SPKI, b"payload", &sig));
        assert!(!verify_pss(SERVER_SPKI, b"payload.", &sig), "other message");
        assert!(!verify_pss(DEVICE_SPKI, b"payload", &sig), "other key");
        assert!(!verify_pss(SERVER_SPKI, b"payload", &sig[..255]), "truncated");
        assert_ne!(s.sign_pss(b"payload").unwrap(), sig, "PSS is randomized");
    }

    #[test]
    fn encrypted_response_round_trip() {
        let s = server();
        let plaintext = br#"{"data":{"status":"success"}}"#;
        let resp = encrypt_response(&s, DEVICE_SPKI, plaintext).unwrap();
        assert_eq!(B64.decode(&resp.response_key).unwrap().len(), 256);
        assert!(verify_response_signature(SERVER_SPKI, &resp));
        assert_eq!(device_open(&resp).unwrap(), plaintext);
        let json = serde_json::to_value(&resp).unwrap();
        assert_eq!(json.as_object().unwrap().len(), 3);
        for k in ["data", "response_key", "signature"] {
            assert!(json[k].is_string(), "{k}");
        }
        // The signed text is response_key immediately followed by data.
        let sig = B64.decode(&resp.signature).unwrap();
        assert!(verify_pss(SERVER_SPKI, format!("{}{}", resp.response_key, resp.data).as_bytes(), &sig));
    }

    #[test]
    fn encrypted_response_openssl_vector() {
        // openssl OAEP of 00..1f to the device key, Python AES-GCM, openssl PSS by the server.
        let resp: EncryptedResponse = serde_json::from_str(include_str!("../testdata/response_ok.json")).unwrap();
        assert!(verify_response_signature(SERVER_SPKI, &resp));
        assert!(!verify_response_signature(DEVICE_SPKI, &resp), "not the server key");
        assert_eq!(device_open(&resp).unwrap(), br#"{"data":{"status":"success"}}"#);
    }

    #[test]
    fn encrypted_response_must_fail() {
        let s = server();
        let resp = encrypt_response(&s, DEVICE_SPKI, b"{}").unwrap();
        let other = encrypt_response(&s, DEVICE_SPKI, b"{}").unwrap();
        let data_flipped = EncryptedResponse { data: reencode_flipped(&resp.data, 14), ..resp.clone() };
        assert!(!verify_response_signature(SERVER_SPKI, &data_flipped), "data flipped");
        assert_eq!(device_open(&data_flipped), Err(DeviceCryptoError::Decrypt), "GCM catches it too");
        let swapped = EncryptedResponse { data: other.data.clone(), ..resp.clone() };
        assert!(!verify_response_signature(SERVER_SPKI, &swapped), "data of another response");
        let rk_swapped = EncryptedResponse { response_key: other.response_key.clone(), ..resp.clone() };
        assert!(!verify_response_signature(SERVER_SPKI, &rk_swapped), "response_key of another response");
        let by_other = ServerKeyPair::generate().unwrap();
        let forged = encrypt_response(&by_other, DEVICE_SPKI, b"{}").unwrap();
        assert!(!verify_response_signature(SERVER_SPKI, &forged), "signed by another server key");
        let tag_flipped = EncryptedResponse { signature: reencode_flipped(&resp.signature, 255), ..resp.clone() };
        assert!(!verify_response_signature(SERVER_SPKI, &tag_flipped), "signature flipped");
        // Response to a key that is not an acceptable device key.
        assert_eq!(encrypt_response(&s, RSA_1024_SPKI, b"{}"), Err(DeviceCryptoError::KeySize));
        assert_eq!(encrypt_response(&s, EC_SPKI, b"{}"), Err(DeviceCryptoError::BadPublicKey));
        // Encrypted to the server key instead of the device key: the device cannot open it.
        let to_server = encrypt_response(&s, SERVER_SPKI, b"{}").unwrap();
        assert_eq!(device_open(&to_server), Err(DeviceCryptoError::Decrypt));
    }

    // ----- Public keys, register_device

    #[test]
    fn public_key_validation() {
        validate_public_key_der(DEVICE_SPKI).unwrap();
        validate_public_key_der(SERVER_SPKI).unwrap();
        validate_public_key_der(RSA_4096_SPKI).unwrap();
        assert_eq!(validate_public_key_der(RSA_1024_SPKI), Err(DeviceCryptoError::KeySize));
        assert_eq!(validate_public_key_der(RSA_6144_SPKI), Err(DeviceCryptoError::KeySize));
        assert_eq!(validate_public_key_der(EC_SPKI), Err(DeviceCryptoError::BadPublicKey));
        assert_eq!(validate_public_key_der(DEVICE_PKCS1_PUB), Err(DeviceCryptoError::BadPublicKey));
        assert_eq!(validate_public_key_der(RSA_PSS_OID_SPKI), Err(DeviceCryptoError::BadPublicKey));
        assert_eq!(validate_public_key_der(b""), Err(DeviceCryptoError::BadPublicKey));
        assert_eq!(validate_public_key_der(&DEVICE_SPKI[..200]), Err(DeviceCryptoError::BadPublicKey));
        let trailing = [DEVICE_SPKI, &[0u8]].concat();
        assert_eq!(validate_public_key_der(&trailing), Err(DeviceCryptoError::BadPublicKey));
        assert_eq!(decode_device_public_key(&B64.encode(DEVICE_SPKI)).unwrap(), DEVICE_SPKI);
        assert_eq!(decode_device_public_key("%%"), Err(DeviceCryptoError::Malformed));
        assert_eq!(decode_device_public_key(&B64.encode(RSA_1024_SPKI)), Err(DeviceCryptoError::KeySize));
    }

    #[test]
    fn decrypt_device_public_key_vector() {
        // esk: openssl OAEP of 00..1f; device_public_key: Python AES-GCM of the SPKI DER.
        assert_eq!(decrypt_device_public_key(&server(), ESK_OK, DPK_ENCRYPTED).unwrap(), DEVICE_SPKI);
    }

    #[test]
    fn decrypt_device_public_key_must_fail() {
        let s = server();
        let mut other_key = k32();
        other_key[31] ^= 1;
        let under_other = seal_b64(&other_key, DEVICE_SPKI);
        assert_eq!(decrypt_device_public_key(&s, ESK_OK, &under_other), Err(DeviceCryptoError::Decrypt));
        let flipped = reencode_flipped(DPK_ENCRYPTED, 50);
        assert_eq!(decrypt_device_public_key(&s, ESK_OK, &flipped), Err(DeviceCryptoError::Decrypt));
        let small = seal_b64(&k32(), RSA_1024_SPKI);
        assert_eq!(decrypt_device_public_key(&s, ESK_OK, &small), Err(DeviceCryptoError::KeySize));
        let ec = seal_b64(&k32(), EC_SPKI);
        assert_eq!(decrypt_device_public_key(&s, ESK_OK, &ec), Err(DeviceCryptoError::BadPublicKey));
        let plain = B64.encode(DEVICE_SPKI);
        assert!(decrypt_device_public_key(&s, ESK_OK, &plain).is_err(), "plain key under encrypted protocol");
        let esk_other = reencode_flipped(ESK_OK, 7);
        assert_eq!(decrypt_device_public_key(&s, &esk_other, DPK_ENCRYPTED), Err(DeviceCryptoError::Decrypt));
    }

    // ----- Headers, hash chain

    #[test]
    fn authorization_header_shapes() {
        assert_eq!(parse_device_authorization("TV dev:esk:sig"), Some(("dev", "esk", "sig")));
        assert_eq!(parse_device_authorization("TV dev:esk=:sig=="), Some(("dev", "esk=", "sig==")));
        assert_eq!(parse_device_authorization("TV dev:esk"), None, "access-key shape");
        assert_eq!(parse_device_authorization("TV dev:esk:sig:x"), None);
        assert_eq!(parse_device_authorization("TV :esk:sig"), None);
        assert_eq!(parse_device_authorization("TV dev::sig"), None);
        assert_eq!(parse_device_authorization("TV dev:esk:"), None);
        assert_eq!(parse_device_authorization("Bearer dev:esk:sig"), None);
        assert_eq!(parse_device_authorization("tv dev:esk:sig"), None);
        assert_eq!(parse_challenge_header("TV 7f0c"), Some("7f0c"));
        assert_eq!(parse_challenge_header("TV "), None);
        assert_eq!(parse_challenge_header("7f0c"), None);
        assert_eq!(parse_challenge_header("TV a b"), None);
    }

    #[test]
    fn batch_hash_known_answer() {
        // printf '\n0\n{"events":[]}' | sha256sum
        let h0 = batch_hash("", 0, br#"{"events":[]}"#);
        assert_eq!(h0, "06f02a6c61151c0840cb2a2ad1f297882c4e3fcf96cb76d45e1d145f43d7ed55");
        // printf '%s\n1\n{"events":[{"t":1,"k":"x"}]}' "$h0" | sha256sum
        assert_eq!(
            batch_hash(&h0, 1, br#"{"events":[{"t":1,"k":"x"}]}"#),
            "3ffc66971464e7d61206a0d006d0e60d9345f82656943216157fe53efe01d576"
        );
        // Must differ: other seq, other prev, whitespace in the data text.
        assert_ne!(batch_hash("", 1, br#"{"events":[]}"#), h0);
        assert_ne!(batch_hash("x", 0, br#"{"events":[]}"#), h0);
        assert_ne!(batch_hash("", 0, br#"{"events": []}"#), h0);
    }
}
