//! The eKYC full check end to end: bearer tokens (issued like `idv tokens issue`) and
//! their refusals; a synthetic card (a real portrait photo and a CCCD QR code on a card
//! shape) against real selfies: card information, comparison, liveness and the verdict.

use crate::card::{card_photo_with, qr, CCCD};
use crate::face::photo;
use crate::{Harness, B64};
use base64::Engine as _;
use serde_json::json;

const PATH: &str = "/portal/ekyc/full_checks";

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Token refusals, with no model needed (the request never reaches a worker).
pub async fn auth(bus_url: &str) {
    let h = Harness::start(bus_url, |_| {}).await;
    let c = &h.client;
    let body = json!({"card_type": "vn.national_id", "image1": {"base64": "aA=="}, "metadata": {"client_uid": "u-1"}});
    let token = h.issue_token("acme", now(), 3600).await;
    let key = idv_crypto::jwt::derive_key(&h.settings.master_key().expect("master key"));
    let mut ghost = idv_crypto::jwt::Claims {
        iss: idv_crypto::jwt::ISSUER.into(),
        aud: idv_crypto::jwt::AUDIENCE.into(),
        sub: "no-such-client".into(),
        iat: now(),
        nbf: None,
        exp: now() + 600,
        jti: "g".into(),
    };
    let unknown_client = idv_crypto::jwt::sign(&ghost, &key);
    ghost.sub = h.state().store.find_client_by_name("acme").await.ok().flatten().map(|c| c.client_id).unwrap_or_default();
    let other_key = idv_crypto::jwt::sign(&ghost, &idv_crypto::jwt::derive_key(&[9u8; 32]));
    let cases = [
        ("no token", None),
        ("garbage", Some("abc.def.ghi".to_string())),
        ("expired", Some(h.issue_token("acme", now() - 7200, 3600).await)),
        ("tampered", Some(format!("{token}x"))),
        ("client does not exist", Some(unknown_client)),
        ("signed with another master key", Some(other_key)),
    ];
    for (what, t) in cases {
        let r = c.bearer(t.as_deref(), PATH, &body).await;
        assert_eq!((r.status, r.code()), (401, Some("access_denied_exception")), "{what}: {:?}", r.body);
    }
    // A token does not open the other operations, nor an access key this one.
    let r = c.bearer(Some(&token), "/v1/face_auth_user", &json!({"cus_user_id": "u"})).await;
    assert_eq!(r.status, 401, "{:?}", r.body);
    let acme = h.create_key("acme").await;
    let r = c.call(&acme, PATH, &body).await;
    assert_eq!((r.status, r.code()), (401, Some("access_denied_exception")), "{:?}", r.body);
    // The scheme name is case-insensitive; a valid token gets past authentication (and
    // validation answers: card_type must be one of the card types).
    let lower = c.http.post(format!("{}{PATH}", c.base)).header("authorization", format!("bearer {token}")).json(&json!({"card_type": "x", "image1": {"base64": "aA=="}, "metadata": {"client_uid": "u"}})).send().await.expect("sent");
    assert_eq!(lower.status().as_u16(), 400);
    h.stop().await;
}

pub async fn run(bus_url: &str) {
    let (Some(obama), Some(obama3), Some(biden)) = (photo("testimg-fr-obama"), photo("testimg-fr-obama3"), photo("testimg-fr-biden")) else {
        return;
    };
    let h = Harness::start(bus_url, |s| s.request_timeout_ms = Some(60_000)).await;
    let c = &h.client;
    let portrait = idv_vision::decode(&obama, &idv_vision::DecodeLimits::default()).expect("decode");
    let card = card_photo_with(Some(&portrait), Some(&qr(CCCD)));
    let body = |selfie: &[u8]| {
        json!({"card_type": "vn.national_id", "image1": {"base64": B64.encode(&card)},
               "selfies": [{"base64": B64.encode(selfie)}], "metadata": {"client_uid": "u-1", "phone_number": "0900000000"}})
    };

    let token = h.issue_token("acme", now(), 3600).await;

    // The same man on the card and in the selfie, the card's QR readable.
    let ok = c.bearer(Some(&token), PATH, &body(&obama3)).await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
    let d = &ok.body["data"];
    let field = |name: &str| d["card_information"].as_array().and_then(|a| a.iter().find(|e| e["field"] == name)).map(|e| e["value"].clone());
    assert_eq!(field("id"), Some(json!("079203001234")), "{d}");
    assert_eq!(d["compare_faces"][0]["result"], "matched", "{d}");
    assert!(d["liveness_check"]["is_live"].is_boolean() && d["portrait_sanity"]["verdict"].is_string(), "{d}");
    // Card sanity and tampering ran: the QR card is judged, its portrait found.
    assert_eq!(d["card_tampering"]["verdict"], "good", "{d}");
    assert!(d["card_tampering"]["details"].as_array().is_some_and(|a| a.iter().any(|c| c["name"] == "portrait" && c["verdict"] == "good")), "{d}");
    // Success only when every check ran and passed (the liveness model judged the real
    // selfie live; if it did not, the message names it). Card sanity runs when the card
    // finder finds this plain synthetic card; when it does not, that check is "not
    // performed", and the verdict cannot be success.
    // A card the finder missed but whose print was read: card sanity `incomplete`, named.
    if d["card_sanity"].is_null() {
        assert_eq!(d["not_performed"], json!(["card_sanity"]), "{d}");
        assert_eq!((ok.body["verdict"].as_str(), ok.body["message"].as_str()), (Some("failure"), Some("not performed: card_sanity")), "{}", ok.body);
    } else if d["card_sanity"]["verdict"] == "incomplete" {
        assert_eq!(ok.body["verdict"], "failure", "{}", ok.body);
        assert!(ok.body["message"].as_str().is_some_and(|m| m.contains("card sanity incomplete")), "{}", ok.body);
    } else {
        assert!(d["card_sanity"]["verdict"].is_string() && d["card_sanity"]["score_details"].is_array(), "{d}");
        assert_eq!(d["not_performed"], json!([]), "{d}");
        assert_eq!((ok.body["verdict"].as_str(), ok.body["message"].as_str()), (Some("success"), Some("every check ran and passed")), "{}", ok.body);
    }
    assert!(ok.body["time"].is_string());

    // Another man in the selfie: the comparison fails, and so does the verdict.
    let other = c.bearer(Some(&token), PATH, &body(&biden)).await;
    assert_eq!(other.status, 200, "{:?}", other.body);
    assert_eq!(other.body["data"]["compare_faces"][0]["result"], "unmatched");
    assert_eq!(other.body["verdict"], "failure");
    assert!(other.body["message"].as_str().is_some_and(|m| m.contains("unmatched")), "{:?}", other.body["message"]);

    // A CCCD photo sent as a PAN card: nothing of a PAN is read (no field invented), and
    // without card information the verdict cannot be success.
    let mut pan = body(&obama3);
    pan["card_type"] = json!("in.pan");
    let r = c.bearer(Some(&token), PATH, &pan).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["data"]["card_information"], json!([]), "{:?}", r.body);
    assert_eq!(r.body["data"]["compare_faces"][0]["result"], "matched", "the face check still ran");
    assert_eq!(r.body["verdict"], "failure", "{:?}", r.body["message"]);

    // A selfie with two faces in it (a held-up photo, a bystander): not a pass.
    let group = photo("testimg-faceapi-sample1").unwrap_or_default();
    let r = c.bearer(Some(&token), PATH, &body(&group)).await;
    assert_eq!(r.body["verdict"], "failure", "{:?}", r.body);
    assert!(r.body["message"].as_str().is_some_and(|m| m.contains("several faces")), "{:?}", r.body["message"]);

    // Validation: client_uid is required; at most 3 selfies.
    let mut no_uid = body(&obama3);
    no_uid["metadata"] = json!({"phone_number": "1"});
    let r = c.bearer(Some(&token), PATH, &no_uid).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    let mut four = body(&obama3);
    four["selfies"] = json!([{"base64": "aA=="}, {"base64": "aA=="}, {"base64": "aA=="}, {"base64": "aA=="}]);
    assert_eq!(c.bearer(Some(&token), PATH, &four).await.status, 400);
    h.stop().await;
}
