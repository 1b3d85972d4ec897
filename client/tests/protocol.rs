//! The reference client (rsa crate) against the server-side functions of idv-crypto
//! (aws-lc-rs): two RSA implementations, so these check the wire format. Vectors and
//! TEST-ONLY keys come from crypto/testdata (see make_vectors.sh there).
#![allow(clippy::unwrap_used)]

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use idv_client::{batch_hash, BatchChain, ClientError, DeviceKeys, DeviceSession};
use idv_crypto::access_key::content_md5;
use idv_crypto::device::{self as server, EncryptedResponse, ServerKeyPair};
use serde_json::{json, Value};

macro_rules! testdata {
    ($name:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../crypto/testdata/", $name))
    };
}

const SERVER_PK8: &[u8] = testdata!("server_2048.pk8.der");
const SERVER_SPKI: &[u8] = testdata!("server_2048.spki.der");
const DEVICE_PK8: &[u8] = testdata!("device_2048.pk8.der");
const DEVICE_SPKI: &[u8] = testdata!("device_2048.spki.der");
const RSA_1024_SPKI: &[u8] = testdata!("rsa_1024.spki.der");
const RSA_1024_PK8: &[u8] = testdata!("rsa_1024.pk8.der");
const RESPONSE_OK: &[u8] = testdata!("response_ok.json");

const URI: &str = "/v1/behavior/create_challenge";
const TS: &str = "2026-01-01T00:00:00Z";

fn srv() -> ServerKeyPair {
    ServerKeyPair::from_pkcs8_der(SERVER_PK8).unwrap()
}

fn device() -> DeviceKeys {
    DeviceKeys::from_pkcs8_der(DEVICE_PK8).unwrap()
}

fn session() -> DeviceSession {
    DeviceSession::new("cud-1", device(), SERVER_SPKI).unwrap()
}

fn header<'a>(h: &'a [(&'static str, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
}

/// What the server does with a device request; returns the decrypted plaintext.
fn server_accept(
    s: &ServerKeyPair,
    device_der: &[u8],
    method: &str,
    uri: &str,
    headers: &[(&'static str, String)],
    body: &[u8],
) -> Result<Vec<u8>, &'static str> {
    let (_id, esk, sig) = server::parse_device_authorization(header(headers, "Authorization").ok_or("no auth")?)
        .ok_or("auth shape")?;
    let ts = header(headers, "X-TV-Timestamp").ok_or("no timestamp")?;
    let md5 = header(headers, "X-TV-Content-MD5").ok_or("no md5")?;
    if md5 != content_md5(body) {
        return Err("md5 mismatch");
    }
    if !server::verify_device_signature(device_der, method, uri, ts, esk, md5, sig) {
        return Err("signature");
    }
    let key = server::decrypt_secret_key(s, esk).map_err(|_| "secret key")?;
    let v: Value = serde_json::from_slice(body).map_err(|_| "body json")?;
    server::open_b64(&key, v["data"].as_str().ok_or("no data")?).map_err(|_| "body decrypt")
}

fn respond(s: &ServerKeyPair, device_der: &[u8], plaintext: &Value) -> Vec<u8> {
    let r = server::encrypt_response(s, device_der, plaintext.to_string().as_bytes()).unwrap();
    serde_json::to_vec(&r).unwrap()
}

#[test]
fn register_device_bodies() {
    let s = srv();
    let keys = device();
    assert_eq!(keys.public_key_der(), DEVICE_SPKI, "same SPKI DER as openssl");
    assert_eq!(keys.public_key_der_b64(), B64.encode(DEVICE_SPKI));

    let plain = keys.register_device_body("kp-1", SERVER_SPKI, "user-1", "phone-1", false).unwrap();
    assert_eq!(
        plain,
        json!({"key_pair_id": "kp-1", "device_public_key": B64.encode(DEVICE_SPKI), "cus_user_id": "user-1", "device_id": "phone-1"})
    );
    assert!(plain.get("protocol").is_none());
    assert_eq!(server::decode_device_public_key(plain["device_public_key"].as_str().unwrap()).unwrap(), DEVICE_SPKI);

    let enc = keys.register_device_body("kp-1", SERVER_SPKI, "user-1", "phone-1", true).unwrap();
    assert_eq!(enc["protocol"], "encrypted");
    assert_eq!(enc["key_pair_id"], "kp-1");
    assert_eq!(enc["cus_user_id"], "user-1");
    assert_eq!(enc["device_id"], "phone-1");
    let der = server::decrypt_device_public_key(
        &s,
        enc["encrypted_secret_key"].as_str().unwrap(),
        enc["device_public_key"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!(der, DEVICE_SPKI);
    // Another server key pair cannot read it.
    let other = ServerKeyPair::generate().unwrap();
    assert!(server::decrypt_device_public_key(
        &other,
        enc["encrypted_secret_key"].as_str().unwrap(),
        enc["device_public_key"].as_str().unwrap()
    )
    .is_err());
    // The encrypted protocol needs an acceptable server key.
    assert!(matches!(
        keys.register_device_body("kp-1", RSA_1024_SPKI, "u", "d", true),
        Err(ClientError::ServerKey(_))
    ));
}

#[test]
fn request_round_trip() {
    let s = srv();
    let sess = session();
    let plaintext = br#"{"session_id":"s-1"}"#;
    let body = sess.encrypt_body(plaintext);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 1, "only data");
    let headers = sess.sign_request("POST", URI, TS, &body, None).unwrap();
    let names: Vec<_> = headers.iter().map(|(k, _)| *k).collect();
    assert_eq!(names, ["Authorization", "X-TV-Timestamp", "X-TV-Content-MD5"]);
    let auth = header(&headers, "Authorization").unwrap();
    let (id, esk, _) = server::parse_device_authorization(auth).unwrap();
    assert_eq!((id, esk), ("cud-1", sess.encrypted_secret_key()));
    assert_eq!(header(&headers, "X-TV-Timestamp"), Some(TS));
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &headers, &body).unwrap(), plaintext);
    assert_eq!(&server::decrypt_secret_key(&s, esk).unwrap(), sess.secret_key());

    // Same session, next request: same encrypted_secret_key (one server private-key op).
    let body2 = sess.encrypt_body(plaintext);
    assert_ne!(body2, body, "fresh nonce per message");
    let h2 = sess.sign_request("POST", URI, TS, &body2, Some("ch-9")).unwrap();
    assert_eq!(server::parse_device_authorization(header(&h2, "Authorization").unwrap()).unwrap().1, esk);
    assert_eq!(header(&h2, "X-Challenge-ID"), Some("TV ch-9"));
    assert_eq!(server::parse_challenge_header(header(&h2, "X-Challenge-ID").unwrap()), Some("ch-9"));
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &h2, &body2).unwrap(), plaintext);

    // prepare() = encrypt_body + sign_request("POST", ..).
    let p = sess.prepare(URI, TS, plaintext, None).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &p.headers, &p.body).unwrap(), plaintext);
}

#[test]
fn request_tampering_is_detected() {
    let s = srv();
    let sess = session();
    let body = sess.encrypt_body(br#"{"session_id":"s-1"}"#);
    let headers = sess.sign_request("POST", URI, TS, &body, None).unwrap();
    let (_, esk, sig) = server::parse_device_authorization(header(&headers, "Authorization").unwrap()).unwrap();
    let md5 = header(&headers, "X-TV-Content-MD5").unwrap();
    // Signature over a different string.
    assert!(!server::verify_device_signature(DEVICE_SPKI, "PUT", URI, TS, esk, md5, sig), "method");
    assert!(!server::verify_device_signature(DEVICE_SPKI, "POST", "/api/v1/behavior/create_challenge", TS, esk, md5, sig), "uri");
    assert!(!server::verify_device_signature(DEVICE_SPKI, "POST", URI, "2026-01-01T00:00:01Z", esk, md5, sig), "ts");
    assert!(!server::verify_device_signature(DEVICE_SPKI, "POST", URI, TS, esk, &content_md5(b"{}"), sig), "body");
    let other_esk = session().encrypted_secret_key().to_string();
    assert!(!server::verify_device_signature(DEVICE_SPKI, "POST", URI, TS, &other_esk, md5, sig), "esk swapped");
    // Another device's key.
    assert!(!server::verify_device_signature(SERVER_SPKI, "POST", URI, TS, esk, md5, sig), "other key");
    // A flipped byte in the body: the MD5 no longer matches; with a recomputed MD5 the
    // signature fails; and even a correctly re-signed flipped body fails AES-GCM.
    let mut v: Value = serde_json::from_slice(&body).unwrap();
    let mut raw = B64.decode(v["data"].as_str().unwrap()).unwrap();
    raw[20] ^= 1;
    v["data"] = Value::String(B64.encode(raw));
    let flipped = serde_json::to_vec(&v).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &headers, &flipped), Err("md5 mismatch"));
    let mut h = headers.clone();
    for (k, val) in h.iter_mut() {
        if *k == "X-TV-Content-MD5" {
            *val = content_md5(&flipped);
        }
    }
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &h, &flipped), Err("signature"));
    let resigned = sess.sign_request("POST", URI, TS, &flipped, None).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &resigned, &flipped), Err("body decrypt"));
    // A body encrypted under another session's key.
    let other = session();
    let foreign = other.encrypt_body(b"{}");
    let h = sess.sign_request("POST", URI, TS, &foreign, None).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &h, &foreign), Err("body decrypt"));
    // A session made with another server's public key: its secret key does not decrypt here.
    let wrong_server = ServerKeyPair::generate().unwrap();
    let ws = DeviceSession::new("cud-1", device(), &wrong_server.public_key_der()).unwrap();
    let b = ws.encrypt_body(b"{}");
    let h = ws.sign_request("POST", URI, TS, &b, None).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &h, &b), Err("secret key"));
}

#[test]
fn rotation() {
    let s = srv();
    let mut sess = session();
    let (old_esk, old_key) = (sess.encrypted_secret_key().to_string(), *sess.secret_key());
    let old_body = sess.encrypt_body(b"{}");
    sess.rotate_secret_key().unwrap();
    assert_ne!(sess.encrypted_secret_key(), old_esk);
    assert_ne!(sess.secret_key(), &old_key);
    assert_eq!(&server::decrypt_secret_key(&s, sess.encrypted_secret_key()).unwrap(), sess.secret_key());
    // A body under the old key, signed with the new encrypted_secret_key, does not open.
    let h = sess.sign_request("POST", URI, TS, &old_body, None).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &h, &old_body), Err("body decrypt"));
    let body = sess.encrypt_body(b"{}");
    let h = sess.sign_request("POST", URI, TS, &body, None).unwrap();
    assert_eq!(server_accept(&s, DEVICE_SPKI, "POST", URI, &h, &body).unwrap(), b"{}");
}

#[test]
fn response_known_answer() {
    // Made by openssl + Python cryptography (crypto/testdata/make_vectors.sh).
    let v = session().open_response(RESPONSE_OK).unwrap();
    assert_eq!(v, json!({"data": {"status": "success"}}));
}

#[test]
fn response_round_trip() {
    let s = srv();
    let sess = session();
    let plaintext = json!({"data": {"challenge_id": "c-1", "nonce": "ab".repeat(32), "server_public_key": B64.encode(SERVER_SPKI)}});
    let body = respond(&s, DEVICE_SPKI, &plaintext);
    assert_eq!(sess.open_response(&body).unwrap(), plaintext);
}

#[test]
fn response_tampering_is_detected() {
    let s = srv();
    let sess = session();
    let body = respond(&s, DEVICE_SPKI, &json!({"data": {"status": "success"}}));
    let resp: EncryptedResponse = serde_json::from_slice(&body).unwrap();

    // Flipped byte in data.
    let mut raw = B64.decode(&resp.data).unwrap();
    raw[15] ^= 1;
    let t = EncryptedResponse { data: B64.encode(raw), ..resp.clone() };
    assert!(matches!(sess.open_response(&serde_json::to_vec(&t).unwrap()), Err(ClientError::ResponseSignature)));
    // Flipped byte in response_key.
    let mut raw = B64.decode(&resp.response_key).unwrap();
    raw[3] ^= 1;
    let t = EncryptedResponse { response_key: B64.encode(raw), ..resp.clone() };
    assert!(matches!(sess.open_response(&serde_json::to_vec(&t).unwrap()), Err(ClientError::ResponseSignature)));
    // Signed by another server key.
    let other = ServerKeyPair::generate().unwrap();
    let forged = respond(&other, DEVICE_SPKI, &json!({"data": {"status": "success"}}));
    assert!(matches!(sess.open_response(&forged), Err(ClientError::ResponseSignature)));
    // Signature over the wrong string (data ‖ response_key instead of response_key ‖ data).
    let wrong = B64.encode(s.sign_pss(format!("{}{}", resp.data, resp.response_key).as_bytes()).unwrap());
    let t = EncryptedResponse { signature: wrong, ..resp.clone() };
    assert!(matches!(sess.open_response(&serde_json::to_vec(&t).unwrap()), Err(ClientError::ResponseSignature)));
    // Truncated signature.
    let t = EncryptedResponse { signature: resp.signature[..resp.signature.len() - 8].to_string(), ..resp.clone() };
    assert!(matches!(sess.open_response(&serde_json::to_vec(&t).unwrap()), Err(ClientError::ResponseSignature)));
    // Properly signed, but encrypted to another device key.
    let to_other = respond(&s, SERVER_SPKI, &json!({}));
    assert!(matches!(sess.open_response(&to_other), Err(ClientError::ResponseDecrypt)));
    // Error envelopes are not encrypted.
    let err = br#"{"errors":[{"code":"access_denied"}]}"#;
    assert!(matches!(sess.open_response(err), Err(ClientError::Api(_))));
    assert!(matches!(sess.open_response(b"not json"), Err(ClientError::Malformed(_))));
    assert!(matches!(sess.open_response(br#"{"data":"x"}"#), Err(ClientError::Malformed(_))));
    // The untampered one still opens.
    assert_eq!(sess.open_response(&body).unwrap(), json!({"data": {"status": "success"}}));
}

#[test]
fn unacceptable_keys_are_refused() {
    assert!(matches!(DeviceSession::new("cud-1", device(), RSA_1024_SPKI), Err(ClientError::ServerKey(_))));
    assert!(matches!(DeviceSession::new("cud-1", device(), b"junk"), Err(ClientError::ServerKey(_))));
    assert!(DeviceKeys::from_pkcs8_der(RSA_1024_PK8).is_err(), "1024-bit device key");
    assert!(DeviceKeys::from_pkcs8_der(b"junk").is_err());
    let k = device();
    assert_eq!(DeviceKeys::from_pkcs8_der(&k.to_pkcs8_der().unwrap()).unwrap().public_key_der(), DEVICE_SPKI);
}

#[test]
fn generated_device_keys_work_end_to_end() {
    let s = ServerKeyPair::generate().unwrap();
    let keys = DeviceKeys::generate().unwrap();
    server::validate_public_key_der(keys.public_key_der()).unwrap();
    let sess = DeviceSession::new("cud-2", keys.clone(), &s.public_key_der()).unwrap();
    let body = sess.encrypt_body(b"{}");
    let h = sess.sign_request("POST", URI, TS, &body, None).unwrap();
    assert_eq!(server_accept(&s, keys.public_key_der(), "POST", URI, &h, &body).unwrap(), b"{}");
    let resp = respond(&s, keys.public_key_der(), &json!({"data": {}}));
    assert_eq!(sess.open_response(&resp).unwrap(), json!({"data": {}}));
}

// ----- hash chain

/// What the server does: hash the raw text of `data` as it appears in the body.
fn server_check_batch(plaintext: &str, prev: &str, seq: u64) -> String {
    #[derive(serde::Deserialize)]
    struct B<'a> {
        seq: u64,
        prev_batch_hash: String,
        batch_hash: String,
        #[serde(borrow)]
        data: &'a serde_json::value::RawValue,
    }
    let b: B = serde_json::from_str(plaintext).unwrap();
    assert_eq!(b.seq, seq);
    assert_eq!(b.prev_batch_hash, prev);
    assert_eq!(batch_hash(&b.prev_batch_hash, b.seq, b.data.get().as_bytes()), b.batch_hash);
    b.batch_hash
}

#[test]
fn batch_chain_known_answer() {
    let nonce = "ab".repeat(32);
    let mut c = BatchChain::new(nonce.clone());
    assert_eq!((c.next_seq(), c.prev_batch_hash()), (0, ""));
    let p0 = c.next_plaintext(&json!({"events": []}));
    let v: Value = serde_json::from_str(&p0).unwrap();
    // printf '\n0\n{"events":[]}' | sha256sum
    let h0 = "06f02a6c61151c0840cb2a2ad1f297882c4e3fcf96cb76d45e1d145f43d7ed55";
    assert_eq!(
        v,
        json!({"nonce": nonce, "seq": 0, "prev_batch_hash": "", "batch_hash": h0, "data": {"events": []}})
    );
    assert_eq!(p0, format!(r#"{{"nonce":"{nonce}","seq":0,"prev_batch_hash":"","batch_hash":"{h0}","data":{{"events":[]}}}}"#));
    assert_eq!((c.next_seq(), c.prev_batch_hash()), (1, h0));
    let p1 = c.next_plaintext(&serde_json::from_str(r#"{"events":[{"t":1,"k":"x"}]}"#).unwrap());
    // printf '%s\n1\n{"events":[{"k":"x","t":1}]}' "$h0" | sha256sum  (serde_json sorts keys)
    let v1: Value = serde_json::from_str(&p1).unwrap();
    assert_eq!(v1["prev_batch_hash"], h0);
    assert_eq!(v1["batch_hash"], "ea8c2e1cc9b80d087c325fd27f0a1e241169e730ac95d38c6a4ab6dc7ab9bde8");
    assert!(p1.ends_with(r#""data":{"events":[{"k":"x","t":1}]}}"#));
}

#[test]
fn batch_chain_server_side_check() {
    let mut c = BatchChain::new("n");
    let mut prev = String::new();
    let datas = [
        json!({"events": []}),
        json!({"events": [{"type": "touch", "x": 1.5, "y": -2e-7, "t": 1_700_000_000_123u64}]}),
        json!({"events": [{"text": "é ✓ \"quoted\" \\ \n\u{0001}"}], "meta": {"z": 1, "a": [null, true]}}),
    ];
    for (seq, d) in datas.iter().enumerate() {
        let p = c.next_plaintext(d);
        prev = server_check_batch(&p, &prev, seq as u64);
        // Through the encrypted body and back, the bytes (hence the hash) are unchanged.
        let s = session();
        let opened = server::open_b64(s.secret_key(), serde_json::from_slice::<Value>(&s.encrypt_body(p.as_bytes())).unwrap()["data"].as_str().unwrap()).unwrap();
        assert_eq!(opened, p.as_bytes());
    }
    // The Value form, serialized compactly, passes the same check.
    let mut c2 = BatchChain::new("n");
    let mut prev2 = String::new();
    for (seq, d) in datas.iter().enumerate() {
        let v = c2.next(d);
        prev2 = server_check_batch(&serde_json::to_string(&v).unwrap(), &prev2, seq as u64);
    }
    assert_eq!(prev, prev2);
    // Pretty-printing changes the data bytes: the server's check would fail.
    let mut c3 = BatchChain::new("n");
    let pretty = serde_json::to_string_pretty(&c3.next(&datas[0])).unwrap();
    #[derive(serde::Deserialize)]
    struct B<'a> {
        batch_hash: String,
        #[serde(borrow)]
        data: &'a serde_json::value::RawValue,
    }
    let b: B = serde_json::from_str(&pretty).unwrap();
    assert_ne!(batch_hash("", 0, b.data.get().as_bytes()), b.batch_hash);
}
