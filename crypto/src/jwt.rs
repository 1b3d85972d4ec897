//! JWT access tokens for the deprecated eKYC full check (`/portal/ekyc/full_checks`):
//! compact JWS with HS256 only (RFC 7515 / 7519). The spec does not show how tokens are
//! obtained; here operators issue them (`idv tokens issue`), signed with a key derived
//! from the master key, so every ingest instance verifies them without shared state.
//!
//! Verification is strict: the header must name `alg` `HS256` (no `none`, no other
//! algorithm, so no algorithm confusion), the signature is compared in constant time
//! before any claim is trusted, `iss` and `aud` must be ours, `exp` must be in the future
//! and `nbf`/`iat` not in it (with a small leeway), and `sub` names the client. Tokens
//! over 8 KiB are refused before decoding.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

pub const ISSUER: &str = "idv";
pub const AUDIENCE: &str = "idv-ekyc";
/// Longest token accepted.
pub const MAX_TOKEN_LEN: usize = 8 * 1024;
/// Clock skew tolerated on exp / nbf / iat, seconds.
pub const LEEWAY_SECS: i64 = 60;
/// Longest validity a token may have (`exp - iat`): tokens cannot be revoked one by one,
/// so they must not live long.
pub const MAX_LIFETIME_SECS: i64 = 24 * 3600;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    /// The client id the token acts for.
    pub sub: String,
    pub iat: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    pub exp: i64,
    /// Token id (for logs and revocation lists).
    pub jti: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    #[error("malformed token")]
    Malformed,
    #[error("unsupported algorithm")]
    Algorithm,
    #[error("bad signature")]
    Signature,
    #[error("token expired")]
    Expired,
    #[error("token not valid yet")]
    NotYetValid,
    #[error("token is not for this service")]
    WrongAudience,
}



/// Signs `claims` as a compact JWS with HS256.
pub fn sign(claims: &Claims, key: &[u8]) -> String {
    let header = B64URL.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = B64URL.encode(serde_json_bytes(claims));
    let signing_input = format!("{header}.{payload}");
    let sig = B64URL.encode(crate::hmac_sha256(key, signing_input.as_bytes()));
    format!("{signing_input}.{sig}")
}

fn serde_json_bytes(claims: &Claims) -> Vec<u8> {
    // Claims is plain data: serialization cannot fail.
    serde_json::to_vec(claims).unwrap_or_default()
}

/// Checks the HS256 signature of a compact JWS and returns its decoded payload; trusts
/// nothing in it. `Err` for anything but a well-formed HS256 token signed with `key`.
pub fn verify_signature(token: &str, key: &[u8]) -> Result<Vec<u8>, JwtError> {
    if token.len() > MAX_TOKEN_LEN {
        return Err(JwtError::Malformed);
    }
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(JwtError::Malformed);
    };
    let header_bytes = B64URL.decode(h).map_err(|_| JwtError::Malformed)?;
    let header: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&header_bytes).map_err(|_| JwtError::Malformed)?;
    // Only HS256; and no critical extensions we would have to understand (a `crit` key
    // of any value, null included, is refused).
    if header.get("alg").and_then(|a| a.as_str()) != Some("HS256") || header.contains_key("crit") {
        return Err(JwtError::Algorithm);
    }
    let sig = B64URL.decode(s).map_err(|_| JwtError::Malformed)?;
    let expected = crate::hmac_sha256(key, &token.as_bytes()[..h.len() + 1 + p.len()]);
    if !crate::ct_eq(&sig, &expected) {
        return Err(JwtError::Signature);
    }
    B64URL.decode(p).map_err(|_| JwtError::Malformed)
}

/// Verifies `token` for this service at time `now` (Unix seconds): signature first, then
/// the claims.
pub fn verify(token: &str, key: &[u8], now: i64) -> Result<Claims, JwtError> {
    let payload = verify_signature(token, key)?;
    let claims: Claims = serde_json::from_slice(&payload).map_err(|_| JwtError::Malformed)?;
    if claims.iss != ISSUER || claims.aud != AUDIENCE || claims.sub.is_empty() {
        return Err(JwtError::WrongAudience);
    }
    if now > claims.exp.saturating_add(LEEWAY_SECS) || claims.exp.saturating_sub(claims.iat) > MAX_LIFETIME_SECS {
        return Err(JwtError::Expired);
    }
    if claims.iat.max(claims.nbf.unwrap_or(i64::MIN)) > now.saturating_add(LEEWAY_SECS) {
        return Err(JwtError::NotYetValid);
    }
    Ok(claims)
}

/// The token signing key, derived from the master key (HMAC-SHA256 with a fixed label),
/// so it never needs storing and rotates with the master key.
pub fn derive_key(master_key: &[u8]) -> Vec<u8> {
    crate::derive_key(master_key, "idv/jwt-signing-key/v1")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7515, Appendix A.1: the HS256 example (key as a JWK, token as printed).
    const RFC_KEY: &str = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";
    const RFC_TOKEN: &str = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

    fn rfc_key() -> Vec<u8> {
        B64URL.decode(RFC_KEY).unwrap_or_default()
    }

    fn claims(now: i64) -> Claims {
        Claims { iss: ISSUER.into(), aud: AUDIENCE.into(), sub: "client-1".into(), iat: now, nbf: None, exp: now + 3600, jti: "t1".into() }
    }

    #[test]
    fn rfc7515_a1_known_answer() -> Result<(), JwtError> {
        let payload = verify_signature(RFC_TOKEN, &rfc_key())?;
        assert_eq!(payload, b"{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}");
        // Its claims are not ours (no aud, sub, iat, jti): refused after the signature.
        assert_eq!(verify(RFC_TOKEN, &rfc_key(), 1_300_000_000), Err(JwtError::Malformed));
        Ok(())
    }

    #[test]
    fn round_trip() -> Result<(), JwtError> {
        let key = derive_key(&[7u8; 32]);
        let c = claims(1_800_000_000);
        assert_eq!(verify(&sign(&c, &key), &key, 1_800_000_100)?, c);
        Ok(())
    }

    #[test]
    fn must_fail() {
        let key = derive_key(&[7u8; 32]);
        let now = 1_800_000_000;
        let good = sign(&claims(now), &key);
        let (h, rest) = good.split_once('.').unwrap_or_default();
        let (p, s) = rest.split_once('.').unwrap_or_default();
        let none_alg = format!("{}.{p}.", B64URL.encode(br#"{"alg":"none","typ":"JWT"}"#));
        let hs512 = format!("{}.{p}.{s}", B64URL.encode(br#"{"alg":"HS512"}"#));
        let rs256 = format!("{}.{p}.{s}", B64URL.encode(br#"{"alg":"RS256"}"#));
        let crit = format!("{}.{p}.{s}", B64URL.encode(br#"{"alg":"HS256","crit":["exp"]}"#));
        let crit_null = format!("{}.{p}.{s}", B64URL.encode(br#"{"alg":"HS256","crit":null}"#));
        let alg_number = format!("{}.{p}.{s}", B64URL.encode(br#"{"alg":256}"#));
        let mut long_lived = claims(now);
        long_lived.exp = now + MAX_LIFETIME_SECS + 1;
        let mut future_iat = claims(now);
        future_iat.iat = now + 3600;
        future_iat.nbf = Some(now - 10);
        let mut tampered_claims = claims(now);
        tampered_claims.sub = "client-2".into();
        let tampered = format!("{h}.{}.{s}", B64URL.encode(serde_json::to_vec(&tampered_claims).unwrap_or_default()));
        let cases: Vec<(&str, String, JwtError)> = vec![
            ("empty", String::new(), JwtError::Malformed),
            ("two parts", format!("{h}.{p}"), JwtError::Malformed),
            ("four parts", format!("{good}.x"), JwtError::Malformed),
            ("bad base64", format!("{h}.{p}.!!!"), JwtError::Malformed),
            ("padded base64", format!("{h}.{p}.{s}="), JwtError::Malformed),
            ("alg none", none_alg, JwtError::Algorithm),
            ("alg HS512", hs512, JwtError::Algorithm),
            ("alg RS256", rs256, JwtError::Algorithm),
            ("crit header", crit, JwtError::Algorithm),
            ("crit null", crit_null, JwtError::Algorithm),
            ("alg not a string", alg_number, JwtError::Algorithm),
            ("lifetime over 24 h", sign(&long_lived, &key), JwtError::Expired),
            ("iat in the future despite nbf", sign(&future_iat, &key), JwtError::NotYetValid),
            ("tampered payload", tampered, JwtError::Signature),
            ("wrong key", sign(&claims(now), &derive_key(&[8u8; 32])), JwtError::Signature),
            ("huge", format!("{good}{}", "A".repeat(MAX_TOKEN_LEN)), JwtError::Malformed),
        ];
        for (what, token, want) in cases {
            assert_eq!(verify(&token, &key, now).err(), Some(want), "{what}");
        }
        assert_eq!(verify(&good, &key, now + 3600 + LEEWAY_SECS + 1).err(), Some(JwtError::Expired));
        assert_eq!(verify(&good, &key, now - LEEWAY_SECS - 1).err(), Some(JwtError::NotYetValid));
        let mut other_aud = claims(now);
        other_aud.aud = "someone-else".into();
        assert_eq!(verify(&sign(&other_aud, &key), &key, now).err(), Some(JwtError::WrongAudience));
    }
}
