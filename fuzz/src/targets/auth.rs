//! (4) Device requests: the `Authorization: TV id:esk:sig` and `X-Challenge-ID` headers
//! (`idv_crypto::device`), the encrypted body envelope `{"data": base64(nonce ‖ AES-GCM)}`
//! as `ingest/src/device_auth.rs::open_body` reads it (its private struct's shape,
//! repeated here), the decrypted create_challenge / push_event_batch plaintext as
//! `ingest/src/behavior.rs` reads it, and register_device's device public key (DER).
//! (5) The Access Key `Authorization` header, `X-TV-Timestamp` and `verify_request`
//! with random signature strings. (6) JWT (`idv_crypto::jwt::verify`, fixed key).

use super::{fields, is_client_input_error, lines, sig_debug, sig_err, Harness, Target};
use crate::mutate::Shape;
use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::{STANDARD as B64, URL_SAFE_NO_PAD as B64URL};
use base64::Engine as _;
use idv_crypto::{access_key, device, jwt};
use idv_schemas::api::CreateChallengeRequest;
use idv_schemas::validate::{parse_json, Validate};
use idv_schemas::ErrorKind;
use serde_json::Value;
use std::time::Duration;

pub const SERVER_PK8: &[u8] = include_bytes!("../../../crypto/testdata/server_2048.pk8.der");
pub const SERVER_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/server_2048.spki.der");
pub const DEVICE_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/device_2048.spki.der");
const DEVICE_PKCS1_PUB: &[u8] = include_bytes!("../../../crypto/testdata/device_2048.pkcs1pub.der");
const RSA_1024_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/rsa_1024.spki.der");
const RSA_4096_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/rsa_4096.spki.der");
const RSA_6144_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/rsa_6144.spki.der");
const RSA_PSS_OID_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/rsa_pss_oid_2048.spki.der");
const EC_SPKI: &[u8] = include_bytes!("../../../crypto/testdata/ec_p256.spki.der");
/// RSA-OAEP of K32 to the server key (crypto/testdata/make_vectors.sh).
pub const ESK_OK: &str = include_str!("../../../crypto/testdata/esk_ok.b64");
const SIG_DEVICE_OK: &str = include_str!("../../../crypto/testdata/sig_device_ok.b64");
/// `{"session_id":"s-1"}` sealed under K32.
const BODY_ENCRYPTED: &str = include_str!("../../../crypto/testdata/body_encrypted.b64");
const DEVICE_URI: &str = "/v1/behavior/challenges";
const DEVICE_TS: &str = "2026-01-01T00:00:00Z";
const DEVICE_MD5: &str = "q1Ybkpk0ubXWX+0YnSEhqg==";

/// The AES key of the crypto test vectors: bytes 00..1f.
pub const K32: [u8; 32] = {
    let mut k = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        k[i] = i as u8;
        i += 1;
    }
    k
};

fn server() -> device::ServerKeyPair {
    device::ServerKeyPair::from_pkcs8_der(SERVER_PK8).expect("crypto/testdata/server_2048.pk8.der is a server key")
}

/// `seal_b64` with a fixed nonce, so seeds and harness outputs are the same in every run
/// (the supervisor replays runs).
pub fn seal_fixed(key: &[u8; 32], plaintext: &[u8]) -> String {
    let nonce = [0x5au8; 12];
    let ct = Aes256Gcm::new(&(*key).into()).encrypt(Nonce::from_slice(&nonce), plaintext).unwrap_or_default();
    B64.encode([&nonce[..], &ct].concat())
}

// ------------------------------------------------------------------ (5) Access Key

const SECRET: &[u8] = b"secret-key-123";

fn access_key_seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (ts, md5) in [
        ("2026-01-01T00:00:00Z", None),
        ("2026-01-01T07:05:00+07:00", Some("1B2M2Y8AsgTpgAmY7PhCfg==")),
        ("2026-01-01T00:04:59.999999Z", None),
        ("2025-12-31T19:05:00-05:00", Some("")),
    ] {
        for uri in ["/v1/face_auth", "/api/v1/face_auth?x=1"] {
            let sig = access_key::sign(SECRET, "POST", uri, ts, md5.unwrap_or(""));
            out.push(lines(&[&format!("TV ak-1:{sig}"), "POST", uri, ts, md5.unwrap_or("-")]));
        }
        // The JS SDK's three-line form.
        let three = B64.encode(idv_crypto::hmac_sha256(SECRET, access_key::string_to_sign_without_md5("POST", "/v1/face_auth", ts).as_bytes()));
        out.push(lines(&[&format!("TV ak-2:{three}"), "POST", "/v1/face_auth", ts, "-"]));
    }
    out
}

fn access_key_harness() -> Harness {
    let now = time::macros::datetime!(2026-01-01 0:05 UTC);
    Box::new(move |b: &[u8]| {
        let f = fields(b, 5);
        let (header, method, uri, ts) = (&f[0], &f[1], &f[2], &f[3]);
        let md5 = (f[4] != "-").then_some(f[4].as_str());
        let mut sig = u64::from(idv_ingest::auth::timestamp_fresh(ts, now, Duration::from_secs(300)));
        if let Some((id, signature)) = access_key::parse_authorization(header) {
            assert!(!id.is_empty() && !signature.is_empty() && !signature.contains(':'), "parse_authorization gave ({id:?}, {signature:?})");
            let ok = access_key::verify_request(SECRET, method, uri, ts, md5, signature);
            if ok {
                let four = access_key::sign(SECRET, method, uri, ts, md5.unwrap_or(""));
                let three = B64.encode(idv_crypto::hmac_sha256(SECRET, access_key::string_to_sign_without_md5(method, uri, ts).as_bytes()));
                assert!(signature == four || (md5.is_none() && signature == three), "verify_request accepted {signature:?}, which is not the MAC");
            }
            let ok4 = access_key::verify(SECRET, method, uri, ts, md5.unwrap_or(""), signature);
            sig = sig * 8 + 2 + u64::from(ok) * 2 + u64::from(ok4) * 4;
        }
        sig
    })
}

// ------------------------------------------------------------------ (4) device headers

fn device_header_seeds() -> Vec<Vec<u8>> {
    let (esk, sig) = (ESK_OK.trim(), SIG_DEVICE_OK.trim());
    vec![
        lines(&[&format!("TV dev-1:{esk}:{sig}"), "TV 6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10", "POST", DEVICE_URI, DEVICE_TS, DEVICE_MD5]),
        lines(&[&format!("TV dev-1:{esk}:{sig}"), "TV 6F1C2A7E8D8B4C559A3C2B7A3C1D9E10", "POST", "/v1/behavior/events", DEVICE_TS, DEVICE_MD5]),
        lines(&["TV a:b:c", "TV {6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10}", "GET", "/", "", ""]),
    ]
}

fn device_header_harness() -> Harness {
    let server = server();
    Box::new(move |b: &[u8]| {
        let f = fields(b, 6);
        let mut sig = 0u64;
        if let Some((id, esk, signature)) = device::parse_device_authorization(&f[0]) {
            assert!(!id.is_empty() && !esk.is_empty() && !signature.is_empty(), "parse_device_authorization gave an empty part");
            let verified = device::verify_device_signature(DEVICE_SPKI, &f[2], &f[3], &f[4], esk, &f[5], signature);
            sig = 1 + u64::from(verified) * 2;
            sig = sig.wrapping_mul(31)
                ^ match device::decrypt_secret_key(&server, esk) {
                    Ok(k) => 4 + u64::from(k == K32) * 8,
                    Err(e) => sig_debug(&e),
                };
        }
        let challenge = device::parse_challenge_header(&f[1]).map(|id| uuid::Uuid::parse_str(id).map(|u| u.hyphenated().to_string()));
        sig.wrapping_mul(7)
            ^ match challenge {
                None => 100,
                Some(Ok(_)) => 200,
                Some(Err(_)) => 300,
            }
    })
}

// ------------------------------------------------------------------ (4) envelope and plaintext

use idv_ingest::device_auth::Encrypted;
use idv_schemas::api::PushEventBatchRequest;

/// push_event_batch's checks (the plaintext → job step ingest runs), the batch hash, and
/// what the scorer then does with the stored `data_raw` (parse, extract features).
fn push_event_batch(pt: &[u8]) -> Result<u64, ErrorKind> {
    let plain: PushEventBatchRequest = parse_json(pt)?;
    let job = plain.into_job("challenge".into(), "device".into())?;
    let seq = job.seq.unwrap_or(0) as u64;
    let h = device::batch_hash(&job.prev_batch_hash, seq, job.data_raw.as_bytes());
    let mut sig = u64::from(h.len() == 64);
    if let Ok(v) = serde_json::from_str::<Value>(&job.data_raw) {
        sig = sig.wrapping_mul(31) ^ super::behavior::session_sig(&[v]);
    }
    Ok(sig)
}

fn plaintext_sig(pt: &[u8]) -> u64 {
    let create = match parse_json::<CreateChallengeRequest>(pt).and_then(|r| r.validate()) {
        Ok(()) => 1,
        Err(e) => {
            assert!(is_client_input_error(&e), "create_challenge plaintext answered {e:?}");
            sig_err(2, &e)
        }
    };
    let push = match push_event_batch(pt) {
        Ok(s) => s,
        Err(e) => {
            assert!(is_client_input_error(&e), "push_event_batch plaintext answered {e:?}");
            sig_err(3, &e)
        }
    };
    create.wrapping_mul(31) ^ push
}

fn open_envelope(body: &[u8]) -> u64 {
    match serde_json::from_slice::<Encrypted>(body) {
        Err(_) => 1,
        Ok(env) => match device::open_b64(&K32, &env.data) {
            Err(e) => sig_debug(&e),
            Ok(pt) => 100 ^ plaintext_sig(&pt),
        },
    }
}

fn envelope_seeds() -> Vec<Vec<u8>> {
    let mut out = vec![format!(r#"{{"data":"{}"}}"#, BODY_ENCRYPTED.trim()).into_bytes()];
    for pt in plaintext_seeds() {
        out.push(serde_json::json!({ "data": seal_fixed(&K32, &pt) }).to_string().into_bytes());
    }
    out.push(br#"{"data":"","extra":1}"#.to_vec());
    out
}

fn plaintext_seeds() -> Vec<Vec<u8>> {
    let mut out = vec![br#"{"session_id":"s-1"}"#.to_vec()];
    for (i, data) in super::behavior::small_batches().into_iter().take(3).enumerate() {
        let data_text = data.to_string();
        let prev = if i == 0 { String::new() } else { "ab".repeat(32) };
        let hash = device::batch_hash(&prev, i as u64, data_text.as_bytes());
        out.push(format!(r#"{{"nonce":"n-{i}","batch_hash":"{hash}","prev_batch_hash":"{prev}","seq":{i},"data":{data_text}}}"#).into_bytes());
    }
    out
}

// ------------------------------------------------------------------ (4) device public key

fn der_keys() -> Vec<&'static [u8]> {
    vec![DEVICE_SPKI, SERVER_SPKI, DEVICE_PKCS1_PUB, RSA_1024_SPKI, RSA_4096_SPKI, RSA_6144_SPKI, RSA_PSS_OID_SPKI, EC_SPKI]
}

fn public_key_seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for der in der_keys() {
        out.push([&[0u8][..], B64.encode(der).as_bytes()].concat());
        out.push([&[1u8][..], der].concat());
    }
    out.push([&[2u8][..], DEVICE_SPKI].concat());
    out
}

fn public_key_harness() -> Harness {
    let server = server();
    Box::new(move |b: &[u8]| {
        let Some((&mode, data)) = b.split_first() else { return 0 };
        match mode % 3 {
            0 => match device::decode_device_public_key(&String::from_utf8_lossy(data)) {
                Ok(der) => 1 + der.len() as u64 % 7,
                Err(e) => sig_debug(&e),
            },
            1 => match device::validate_public_key_der(data) {
                Ok(()) => {
                    // What the service does with a registered key: encrypt the response
                    // key to it, verify the device's signatures with it.
                    let enc = device::oaep_encrypt(data, &K32).is_ok();
                    let pss = device::verify_pss(data, b"message", &[0u8; 256]);
                    assert!(!pss, "an all-zero signature verified");
                    20 + u64::from(enc)
                }
                Err(e) => 30 ^ sig_debug(&e),
            },
            _ => {
                // register_device with protocol "encrypted": the key sealed under the
                // request secret key (ESK_OK decrypts to K32).
                let sealed = seal_fixed(&K32, data);
                match device::decrypt_device_public_key(&server, ESK_OK.trim(), &sealed) {
                    Ok(der) => {
                        assert_eq!(der, data, "decrypt_device_public_key returned other bytes");
                        40
                    }
                    Err(e) => 50 ^ sig_debug(&e),
                }
            }
        }
    })
}

// ------------------------------------------------------------------ (6) JWT

const JWT_NOW: i64 = 1_800_000_000;

fn jwt_key() -> Vec<u8> {
    jwt::derive_key(&[7u8; 32])
}

fn jwt_seeds() -> Vec<Vec<u8>> {
    let key = jwt_key();
    let claims = jwt::Claims { iss: jwt::ISSUER.into(), aud: jwt::AUDIENCE.into(), sub: "client-1".into(), iat: JWT_NOW, nbf: Some(JWT_NOW - 10), exp: JWT_NOW + 3600, jti: "t1".into() };
    let claims_json = serde_json::to_string(&claims).unwrap_or_default();
    vec![
        lines(&["raw", &jwt::sign(&claims, &key)]),
        lines(&["raw", "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"]),
        lines(&["sign", r#"{"alg":"HS256","typ":"JWT"}"#, &claims_json]),
        lines(&["sign", r#"{"alg":"HS256"}"#, r#"{"iss":"idv","aud":"idv-ekyc","sub":"c","iat":1800000000,"exp":1800003600,"jti":"j"}"#]),
        lines(&["sign", r#"{"alg":"none","crit":["exp"]}"#, &claims_json]),
    ]
}

fn jwt_harness() -> Harness {
    let key = jwt_key();
    Box::new(move |b: &[u8]| {
        let f = fields(b, 3);
        let token = if f[0].starts_with('s') {
            let (h, c) = (B64URL.encode(f[1].as_bytes()), B64URL.encode(f[2].as_bytes()));
            let input = format!("{h}.{c}");
            let s = B64URL.encode(idv_crypto::hmac_sha256(&key, input.as_bytes()));
            format!("{input}.{s}")
        } else {
            f[1].clone()
        };
        let payload = jwt::verify_signature(&token, &key);
        match jwt::verify(&token, &key, JWT_NOW) {
            Ok(c) => {
                assert!(payload.is_ok(), "verify accepted a token verify_signature refused");
                assert!(c.iss == jwt::ISSUER && c.aud == jwt::AUDIENCE && !c.sub.is_empty(), "verify accepted claims not for this service: {c:?}");
                assert!(c.exp.saturating_sub(c.iat) <= jwt::MAX_LIFETIME_SECS, "verify accepted a lifetime over the maximum: {c:?}");
                assert!(JWT_NOW <= c.exp.saturating_add(jwt::LEEWAY_SECS), "verify accepted an expired token: {c:?}");
                1
            }
            Err(e) => 2 ^ sig_debug(&e) ^ u64::from(payload.is_ok()) * 8,
        }
    })
}

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "access_key_auth",
            about: "Access Key Authorization header (parse_authorization), X-TV-Timestamp (timestamp_fresh), verify_request with random signatures",
            shape: Shape::Lines,
            json_after_line: false,
            max_len: 8192,
            seeds: access_key_seeds,
            dict: || ["TV ", ":", "=", "==", "+", "/", "T", "Z", "+07:00", "-00:00", ".", "POST", "GET", "/v1/", "/api"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: access_key_harness,
        },
        Target {
            name: "device_auth_header",
            about: "device Authorization (parse_device_authorization, PSS verify, RSA-OAEP secret key) and X-Challenge-ID",
            shape: Shape::Lines,
            json_after_line: false,
            max_len: 8192,
            seeds: device_header_seeds,
            dict: || ["TV ", ":", "=", "-", "{", "}", "urn:uuid:"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: device_header_harness,
        },
        Target {
            name: "device_envelope",
            about: "encrypted device body {\"data\": base64(nonce|AES-GCM)} as device_auth.rs opens it",
            shape: Shape::Json,
            json_after_line: false,
            max_len: 1 << 20,
            seeds: envelope_seeds,
            dict: super::no_dict,
            harness: || Box::new(open_envelope),
        },
        Target {
            name: "device_plaintext",
            about: "decrypted create_challenge / push_event_batch plaintext (sealed by the harness, opened as ingest does)",
            shape: Shape::Json,
            json_after_line: false,
            max_len: 1 << 20,
            seeds: plaintext_seeds,
            dict: || ["events", "device", "type", "t", "key", "touch", "motion"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: || Box::new(|pt: &[u8]| open_envelope(serde_json::json!({ "data": seal_fixed(&K32, pt) }).to_string().as_bytes())),
        },
        Target {
            name: "device_public_key",
            about: "register_device's device_public_key: base64 (0), DER (1), sealed under the request key (2)",
            shape: Shape::Bytes,
            json_after_line: false,
            max_len: 4096,
            seeds: public_key_seeds,
            dict: || vec![b"\x30\x82".to_vec(), b"\x30\x81".to_vec(), b"\x30\x84\xff\xff\xff\xff".to_vec(), b"\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01".to_vec(), b"\x05\x00".to_vec(), b"\x03\x82".to_vec(), b"\x02\x82\x01\x01\x00".to_vec()],
            harness: public_key_harness,
        },
        Target {
            name: "jwt",
            about: "idv_crypto::jwt::verify with a fixed key: raw tokens, and header/claims re-signed so the claims are reached",
            shape: Shape::Lines,
            json_after_line: false,
            max_len: 16 * 1024,
            seeds: jwt_seeds,
            dict: || ["alg", "HS256", "none", "crit", "typ", "iss", "aud", "sub", "iat", "nbf", "exp", "jti", "idv", "idv-ekyc", ".", "=", "-", "_"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: jwt_harness,
        },
    ]
}
