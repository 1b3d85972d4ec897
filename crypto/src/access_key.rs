//! Access Key authentication (spec, Authentication):
//!
//! `Authorization: TV <access_key_id>:<signature>` where signature =
//! HMAC-SHA256(secret_key, METHOD "\n" URI "\n" X-TV-Timestamp "\n" Content-MD5).
//!
//! Choices the spec leaves open (docs/API.md): the signature is standard base64 with
//! padding; URI is the request path exactly as sent, including an `/api` prefix and the
//! query string if any; an absent Content-MD5 header signs as the empty string.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use md5::{Digest, Md5};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The exact bytes that are signed.
pub fn string_to_sign(method: &str, uri: &str, timestamp: &str, content_md5: &str) -> String {
    format!("{method}\n{uri}\n{timestamp}\n{content_md5}")
}

fn mac(secret: &[u8], method: &str, uri: &str, timestamp: &str, content_md5: &str) -> HmacSha256 {
    // HMAC accepts keys of any length; new_from_slice cannot fail for HMAC.
    let mut m = <HmacSha256 as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
    m.update(string_to_sign(method, uri, timestamp, content_md5).as_bytes());
    m
}

/// The signature a client sends (standard base64).
pub fn sign(secret: &[u8], method: &str, uri: &str, timestamp: &str, content_md5: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(mac(secret, method, uri, timestamp, content_md5).finalize().into_bytes())
}

/// Verify a presented signature in constant time. Malformed base64 is simply a mismatch.
pub fn verify(secret: &[u8], method: &str, uri: &str, timestamp: &str, content_md5: &str, signature_b64: &str) -> bool {
    let Ok(sig) = base64::engine::general_purpose::STANDARD.decode(signature_b64) else {
        return false;
    };
    mac(secret, method, uri, timestamp, content_md5).verify_slice(&sig).is_ok()
}

/// The three-line form a client may sign when it sends no Content-MD5:
/// `METHOD \n URI \n TIMESTAMP`, no fourth line and no trailing newline (what the
/// published TrustVision JS SDK signs). The four-line form stays the documented one.
pub fn string_to_sign_without_md5(method: &str, uri: &str, timestamp: &str) -> String {
    format!("{method}\n{uri}\n{timestamp}")
}

/// Verify a request's signature: against the four-line form with `content_md5` when the
/// header was sent; without it, against the four-line form with an empty fourth line
/// *and* the three-line form. Both MACs are always computed and each compared in
/// constant time, so the answer's timing does not say which form matched.
pub fn verify_request(secret: &[u8], method: &str, uri: &str, timestamp: &str, content_md5: Option<&str>, signature_b64: &str) -> bool {
    let Ok(sig) = base64::engine::general_purpose::STANDARD.decode(signature_b64) else {
        return false;
    };
    match content_md5 {
        Some(md5) => mac(secret, method, uri, timestamp, md5).verify_slice(&sig).is_ok(),
        None => {
            let four = mac(secret, method, uri, timestamp, "").verify_slice(&sig).is_ok();
            let mut three = <HmacSha256 as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
            three.update(string_to_sign_without_md5(method, uri, timestamp).as_bytes());
            let three = three.verify_slice(&sig).is_ok();
            four | three
        }
    }
}

/// `X-TV-Content-MD5`: base64 of the MD5 of the body.
pub fn content_md5(body: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(Md5::digest(body))
}

/// The headers that sign one Access Key request with `body` as its exact bytes:
/// `Authorization`, `X-TV-Timestamp` and `X-TV-Content-MD5` (the four-line form, over
/// the body's MD5). What `idv sign` prints for curl and other HTTP tools.
pub fn request_headers(access_key_id: &str, secret: &[u8], method: &str, uri: &str, timestamp: &str, body: &[u8]) -> [(&'static str, String); 3] {
    let md5 = content_md5(body);
    let signature = sign(secret, method, uri, timestamp, &md5);
    [
        ("Authorization", format!("TV {access_key_id}:{signature}")),
        ("X-TV-Timestamp", timestamp.to_string()),
        ("X-TV-Content-MD5", md5),
    ]
}

/// Parse `TV <access_key_id>:<signature>`; `None` on any other shape.
pub fn parse_authorization(header: &str) -> Option<(&str, &str)> {
    let rest = header.strip_prefix("TV ")?;
    let (id, sig) = rest.split_once(':')?;
    if id.is_empty() || sig.is_empty() || sig.contains(':') {
        return None;
    }
    Some((id, sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::hmac_hex;

    /// Known answers computed independently (Python's hmac module) for both forms.
    #[test]
    fn both_signature_forms_known_answers_and_must_fails() {
        let (k, ts) = (b"secret-key-123", "2026-11-23T21:04:05+07:00");
        let three = "BrQIKQLNarSrIla+W3khSBdxzH/bpQJ70s+Twd8bKmo=";
        let four = "z385caxoqjPqaT40N+31OnM4zUJbgia/MbmETs3U3Q8=";
        assert_eq!(sign(k, "POST", "/v1/face_auth", ts, ""), four);
        assert!(verify_request(k, "POST", "/v1/face_auth", ts, None, three));
        assert!(verify_request(k, "POST", "/v1/face_auth", ts, None, four));
        // With a Content-MD5 header only the four-line form over it counts.
        assert!(!verify_request(k, "POST", "/v1/face_auth", ts, Some("1B2M2Y8AsgTpgAmY7PhCfg=="), three));
        assert!(!verify_request(k, "POST", "/v1/face_auth", ts, Some("1B2M2Y8AsgTpgAmY7PhCfg=="), four));
        assert!(verify_request(k, "POST", "/v1/face_auth", ts, Some("1B2M2Y8AsgTpgAmY7PhCfg=="), &sign(k, "POST", "/v1/face_auth", ts, "1B2M2Y8AsgTpgAmY7PhCfg==")));
        // Must-fail: another path, timestamp, key, or a malformed signature.
        assert!(!verify_request(k, "POST", "/v1/face_auth_user", ts, None, three));
        assert!(!verify_request(k, "POST", "/v1/face_auth", "2026-11-23T21:04:06+07:00", None, three));
        assert!(!verify_request(b"other", "POST", "/v1/face_auth", ts, None, three));
        assert!(!verify_request(k, "POST", "/v1/face_auth", ts, None, "not base64!"));
        assert!(!verify_request(k, "POST", "/v1/face_auth", ts, None, ""));
    }

    /// The headers of a signed request: known answers computed independently (Python's
    /// hashlib and hmac modules), and must-fails for another body, path or key.
    #[test]
    fn request_headers_sign_the_body_and_path() {
        let (k, ts, body) = (b"secret-key-123", "2026-11-23T21:04:05+07:00", br#"{"cus_user_id":"u1"}"#);
        let [(auth_name, auth), (ts_name, ts_value), (md5_name, md5)] = request_headers("ak-1", k, "POST", "/v1/face_auth_user", ts, body);
        assert_eq!((auth_name, ts_name, md5_name), ("Authorization", "X-TV-Timestamp", "X-TV-Content-MD5"));
        assert_eq!(ts_value, ts);
        assert_eq!(md5, "SvFJ6dOnp+XYoforoVCYxA==");
        assert_eq!(auth, "TV ak-1:TaLbyw9Bwgh6JmvY5ajVQmm9EnT7ipEdxSQ4sWik8Vc=");
        let (_, signature) = parse_authorization(&auth).unwrap();
        assert!(verify_request(k, "POST", "/v1/face_auth_user", ts, Some(&md5), signature));
        assert!(!verify_request(k, "POST", "/v1/face_auth_user", ts, Some(&content_md5(b"{}")), signature), "another body");
        assert!(!verify_request(k, "POST", "/v1/face_auth", ts, Some(&md5), signature), "another path");
        assert!(!verify_request(b"other", "POST", "/v1/face_auth_user", ts, Some(&md5), signature), "another key");
    }

    #[test]
    fn hmac_sha256_rfc4231_vectors() {
        // Test case 1.
        assert_eq!(
            hmac_hex(&[0x0b; 20], b"Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        // Test case 2.
        assert_eq!(
            hmac_hex(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: key longer than the block size.
        assert_eq!(
            hmac_hex(&[0xaa; 131], b"Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn md5_rfc1321_vectors() {
        assert_eq!(hex::encode(Md5::digest(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex::encode(Md5::digest(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(content_md5(b""), "1B2M2Y8AsgTpgAmY7PhCfg==");
    }

    #[test]
    fn signature_known_answer() {
        // Computed independently: printf 'POST\n/v1/face_auth\n2026-01-01T00:00:00Z\n' |
        //   openssl dgst -sha256 -hmac secret -binary | base64
        let sig = sign(b"secret", "POST", "/v1/face_auth", "2026-01-01T00:00:00Z", "");
        assert_eq!(sig, "2lwZ7/kfWRCkSkOQiIc/sURbgz5QIVG1BMhybEj7yGM=");
        assert!(verify(b"secret", "POST", "/v1/face_auth", "2026-01-01T00:00:00Z", "", &sig));
    }

    #[test]
    fn must_fail_vectors() {
        let sig = sign(b"secret", "POST", "/v1/x", "t", "m");
        assert!(!verify(b"secreT", "POST", "/v1/x", "t", "m", &sig), "wrong secret");
        assert!(!verify(b"secret", "GET", "/v1/x", "t", "m", &sig), "other method");
        assert!(!verify(b"secret", "POST", "/api/v1/x", "t", "m", &sig), "other uri");
        assert!(!verify(b"secret", "POST", "/v1/x", "t2", "m", &sig), "other timestamp");
        assert!(!verify(b"secret", "POST", "/v1/x", "t", "", &sig), "md5 dropped");
        assert!(!verify(b"secret", "POST", "/v1/x", "t", "m", "not base64!"), "garbage");
        assert!(!verify(b"secret", "POST", "/v1/x", "t", "m", &sig[..sig.len() - 4]), "truncated");
        assert!(!verify(b"secret", "POST", "/v1/x", "t", "m", ""), "empty");
    }

    #[test]
    fn authorization_header_shapes() {
        assert_eq!(parse_authorization("TV ak:sig"), Some(("ak", "sig")));
        assert_eq!(parse_authorization("TV ak:"), None);
        assert_eq!(parse_authorization("Bearer x"), None);
        assert_eq!(parse_authorization("TV a:b:c"), None);
        assert_eq!(parse_authorization("TV :b"), None);
    }
}
