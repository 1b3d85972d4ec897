//! Access Key authentication of server-side callers (spec, Authentication).
//!
//! Order of checks, each failure answering the group's access-denied or skew code:
//! header shape → timestamp window → key exists and is not revoked → HMAC in constant
//! time (either signing form, docs/API.md "Signing"); after the body is read, the router
//! checks it against the signed Content-MD5 ([`check_body_md5`]) and the replay guard. The secret key is the HMAC key as the UTF-8 bytes of
//! the string `idv keys create` printed. Secrets are sealed at rest; the resolver opens
//! them per request (no cache, so a revocation takes effect on the next request).

use axum::http::HeaderMap;
use idv_crypto::access_key;
use idv_crypto::sealed::Sealer;
use idv_schemas::ErrorKind;
use idv_store::{AccessKeyRecord, Store, StoreError};
use std::sync::Arc;
use std::time::Duration;

pub const HEADER_TIMESTAMP: &str = "x-tv-timestamp";
pub const HEADER_CONTENT_MD5: &str = "x-tv-content-md5";

/// Who a verified request comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub client_id: String,
    pub access_key_id: String,
}

pub struct KeyResolver {
    store: Arc<dyn Store>,
    sealer: Sealer,
}

fn aad(access_key_id: &str) -> Vec<u8> {
    format!("access_key:{access_key_id}").into_bytes()
}

/// What `idv keys create` prints, once.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IssuedKey {
    pub client_id: String,
    pub access_key_id: String,
    pub secret_key: String,
}

impl KeyResolver {
    pub fn new(store: Arc<dyn Store>, sealer: Sealer) -> Self {
        KeyResolver { store, sealer }
    }

    /// The client and secret for a key id, or `None` when unknown, revoked or unreadable.
    pub async fn resolve(&self, access_key_id: &str) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        let Some(rec) = self.store.get_access_key(access_key_id).await? else { return Ok(None) };
        if rec.revoked {
            return Ok(None);
        }
        match self.sealer.open(&rec.sealed_secret, &aad(access_key_id)) {
            Ok(secret) => Ok(Some((rec.client_id, secret))),
            Err(e) => {
                tracing::warn!(access_key_id, error = %e, "access key secret cannot be opened");
                Ok(None)
            }
        }
    }

    /// Create a client (if new) and an access key for it; the secret is returned once.
    pub async fn issue(&self, client_name: &str, now: &str) -> Result<IssuedKey, StoreError> {
        let client = idv_store::ensure_client(self.store.as_ref(), client_name, now).await?;
        let access_key_id = format!("AK{}", hex::encode(idv_crypto::random_bytes(10)).to_uppercase());
        let secret_key = base64_url(&idv_crypto::random_bytes(32));
        let rec = AccessKeyRecord {
            access_key_id: access_key_id.clone(),
            client_id: client.client_id.clone(),
            sealed_secret: self.sealer.seal(secret_key.as_bytes(), &aad(&access_key_id)),
            created_at: now.to_string(),
            revoked: false,
        };
        self.store.create_access_key(&rec).await?;
        Ok(IssuedKey { client_id: client.client_id, access_key_id, secret_key })
    }
}

/// Unpadded base64url (RFC 4648 §5): the secret keys' text form.
fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Is `timestamp` (RFC 3339) within `window` of `now`?
pub fn timestamp_fresh(timestamp: &str, now: time::OffsetDateTime, window: Duration) -> bool {
    let Ok(ts) = time::OffsetDateTime::parse(timestamp, &time::format_description::well_known::Rfc3339) else {
        return false;
    };
    let diff = (now - ts).abs();
    diff <= time::Duration::try_from(window).unwrap_or(time::Duration::MAX)
}

/// Verify an Access Key request's headers. `uri` is the path and query exactly as sent.
/// The body is checked afterwards against the signed Content-MD5 ([`check_body_md5`]).
pub async fn authenticate(
    keys: &KeyResolver,
    skew: Duration,
    method: &str,
    uri: &str,
    headers: &HeaderMap,
) -> Result<Caller, ErrorKind> {
    let authz = header(headers, "authorization").ok_or(ErrorKind::AccessDenied)?;
    let (access_key_id, signature) = access_key::parse_authorization(authz).ok_or(ErrorKind::AccessDenied)?;
    let timestamp = header(headers, HEADER_TIMESTAMP).ok_or(ErrorKind::AccessDenied)?;
    if !timestamp_fresh(timestamp, time::OffsetDateTime::now_utc(), skew) {
        return Err(ErrorKind::TimeSkewed);
    }
    // No header (or an empty one): both the documented four-line form and the three-line
    // form of the published JS SDK are accepted (docs/API.md "Signing").
    let content_md5 = header(headers, HEADER_CONTENT_MD5).filter(|v| !v.is_empty());
    let resolved = keys
        .resolve(access_key_id)
        .await
        .map_err(|e| ErrorKind::Internal { message: format!("key lookup failed: {e}") })?;
    let Some((client_id, secret)) = resolved else { return Err(ErrorKind::AccessDenied) };
    // Operations answer under `/v1/X` and `/api/v1/X`; a client whose base URL ends in
    // `/api` may sign the operation path without it (the published JS SDK does), so that
    // path is accepted too. Each candidate is verified in constant time.
    let without_api = uri.strip_prefix("/api").filter(|rest| rest.starts_with("/v1/"));
    let signed = access_key::verify_request(&secret, method, uri, timestamp, content_md5, signature)
        | without_api.is_some_and(|u| access_key::verify_request(&secret, method, u, timestamp, content_md5, signature));
    if !signed {
        return Err(ErrorKind::AccessDenied);
    }
    Ok(Caller { client_id, access_key_id: access_key_id.to_string() })
}

/// The body must match `X-TV-Content-MD5` when that (signed) header is sent; `required`
/// makes the header mandatory (device requests).
pub fn check_body_md5(headers: &HeaderMap, body: &[u8], required: bool) -> Result<(), ErrorKind> {
    match header(headers, HEADER_CONTENT_MD5).filter(|v| !v.is_empty()) {
        None if required => Err(ErrorKind::AccessDenied),
        None => Ok(()),
        Some(md5) if idv_crypto::ct_eq(md5.as_bytes(), access_key::content_md5(body).as_bytes()) => Ok(()),
        Some(_) => Err(ErrorKind::AccessDenied),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn timestamp_window() -> TestResult {
        let now = time::OffsetDateTime::parse("2026-01-01T00:05:00Z", &time::format_description::well_known::Rfc3339)?;
        let w = Duration::from_secs(300);
        assert!(timestamp_fresh("2026-01-01T00:00:00Z", now, w));
        assert!(timestamp_fresh("2026-01-01T00:10:00Z", now, w));
        assert!(!timestamp_fresh("2026-01-01T00:10:01Z", now, w), "future");
        assert!(!timestamp_fresh("2025-12-31T23:59:59Z", now, w), "stale");
        assert!(!timestamp_fresh("yesterday", now, w));
        // Offsets and fractions (the JS SDK sends local time with its offset).
        assert!(timestamp_fresh("2026-01-01T07:05:00+07:00", now, w));
        assert!(timestamp_fresh("2025-12-31T19:05:00.250-05:00", now, w));
        assert!(!timestamp_fresh("2026-01-01T07:05:00+09:00", now, w), "the offset is honoured");
        Ok(())
    }

    #[test]
    fn secret_encoding_is_url_safe_unpadded() {
        assert_eq!(base64_url(b"\xfb\xff"), "-_8");
        assert_eq!(base64_url(&[0u8; 32]).len(), 43);
    }

    #[tokio::test]
    async fn issue_resolve_revoke() -> TestResult {
        let store: Arc<dyn Store> = Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:")?);
        let keys = KeyResolver::new(store.clone(), Sealer::new(1, &[3u8; 32])?);
        let k = keys.issue("acme", "2026-01-01T00:00:00Z").await?;
        let (client, secret) = keys.resolve(&k.access_key_id).await?.ok_or("key resolves")?;
        assert_eq!(client, k.client_id);
        assert_eq!(secret, k.secret_key.as_bytes());
        let raw = store.get_access_key(&k.access_key_id).await?.ok_or("stored")?;
        assert!(!raw.sealed_secret.windows(8).any(|w| w == &k.secret_key.as_bytes()[..8]), "sealed at rest");
        let k2 = keys.issue("acme", "2026-01-01T00:00:00Z").await?;
        assert_eq!(k2.client_id, k.client_id, "same client, second key");
        store.revoke_access_key(&k.access_key_id).await?;
        assert!(keys.resolve(&k.access_key_id).await?.is_none());
        // A different master key cannot open it: treated as unknown, never a panic.
        let other = KeyResolver::new(store, Sealer::new(1, &[4u8; 32])?);
        assert!(other.resolve(&k2.access_key_id).await?.is_none());
        Ok(())
    }
}

/// The eKYC token key (derived from the master key, `idv_crypto::jwt::derive_key`). Never
/// printed.
#[derive(Clone)]
pub struct JwtKey(Arc<Vec<u8>>);

impl JwtKey {
    pub fn from_master_key(master_key: &[u8]) -> Self {
        JwtKey(Arc::new(idv_crypto::jwt::derive_key(master_key)))
    }
}

impl std::fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtKey(..)")
    }
}

/// An issued eKYC access token.
#[derive(Debug, serde::Serialize)]
pub struct IssuedToken {
    pub client_id: String,
    pub access_token: String,
    pub token_type: &'static str,
    pub expires_in: u64,
}

/// Issues a token for `client_name` (the client is created if new, as for access keys),
/// valid `ttl` from `now` (Unix seconds), at most 24 hours (longer is cut to 24 hours).
/// `idv tokens issue` calls this.
pub async fn issue_token(store: &dyn Store, key: &JwtKey, client_name: &str, ttl: Duration, now: i64) -> Result<IssuedToken, StoreError> {
    let created = time::OffsetDateTime::from_unix_timestamp(now)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default();
    let client = idv_store::ensure_client(store, client_name, &created).await?;
    let claims = idv_crypto::jwt::Claims {
        iss: idv_crypto::jwt::ISSUER.into(),
        aud: idv_crypto::jwt::AUDIENCE.into(),
        sub: client.client_id.clone(),
        iat: now,
        nbf: None,
        exp: now.saturating_add(i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX).min(idv_crypto::jwt::MAX_LIFETIME_SECS)),
        jti: uuid::Uuid::new_v4().to_string(),
    };
    Ok(IssuedToken {
        client_id: client.client_id,
        access_token: idv_crypto::jwt::sign(&claims, &key.0),
        token_type: "Bearer",
        expires_in: ttl.as_secs().min(idv_crypto::jwt::MAX_LIFETIME_SECS as u64),
    })
}

/// `Authorization: Bearer <token>` for the eKYC full check: a valid token of ours
/// (`idv_crypto::jwt::verify`) whose client exists. Every failure is `AccessDenied`, the
/// response does not say which.
pub async fn authenticate_jwt(store: &dyn Store, key: &JwtKey, headers: &HeaderMap, now: i64) -> Result<Caller, ErrorKind> {
    let value = headers.get("authorization").and_then(|v| v.to_str().ok()).ok_or(ErrorKind::AccessDenied)?;
    // The scheme name is case-insensitive (RFC 6750 / 9110).
    let (scheme, token) = value.split_once(' ').ok_or(ErrorKind::AccessDenied)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ErrorKind::AccessDenied);
    }
    let token = token.trim();
    let claims = idv_crypto::jwt::verify(token, &key.0, now).map_err(|_| ErrorKind::AccessDenied)?;
    store
        .get_client(&claims.sub)
        .await
        .map_err(|e| ErrorKind::Internal { message: e.to_string() })?
        .ok_or(ErrorKind::AccessDenied)?;
    Ok(Caller { client_id: claims.sub, access_key_id: format!("jwt:{}", claims.jti) })
}
