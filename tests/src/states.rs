//! States the spec names but no API operation enters, reached end to end over HTTP through
//! the operator's commands (`idv users`, `idv devices`: [`idv::admin`]): a deactivated
//! face user, a deactivated and a deleted device. Also what a refused (locked) login
//! leaves in the histories: the login's own fields, and its inline image stored with its
//! label and metadata (given as a string_json string). Needs no face models.

use crate::behavior::{challenge, device_call, push_session, register};
use crate::{Harness, B64};
use base64::Engine as _;
use idv::admin::{self, DeviceAction};
use idv_store::FaceUserRecord;
use rand::SeedableRng;
use serde_json::json;

fn face_user(client_id: &str, cus_user_id: &str) -> FaceUserRecord {
    FaceUserRecord {
        face_auth_id: "img-registered".into(),
        device_id: "registration-phone".into(),
        app_id: "registration-app".into(),
        ..FaceUserRecord::new(format!("fu-{cus_user_id}"), client_id, cus_user_id, "ak", &crate::now_rfc3339())
    }
}

pub async fn run(bus_url: &str) {
    let h = Harness::start(bus_url, |_| {}).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let store = h.backends.store.clone();
    let now = crate::now_rfc3339();
    // Bytes only ingest sees (it checks base64, not images): the state checks come first.
    let image = B64.encode(b"image bytes");

    // A face user the operator deactivates: authenticate and register are refused.
    store.put_face_user(&face_user(&acme.client_id, "dee")).await.expect("user");
    let out = admin::set_user_deactivated(store.as_ref(), "acme", "dee", true, &now).await.expect("deactivate");
    assert_eq!(out["is_deactivated"], true);
    for path in ["/v1/face_auth", "/v1/face_auth_register"] {
        let r = c.call(&acme, path, &json!({"cus_user_id": "dee", "faces": [{"base64": image}]})).await;
        assert_eq!((r.status, r.code()), (200, Some("face_auth_user_deactivated")), "{path}: {:?}", r.body);
        assert_eq!(r.body["data"]["status"], "failure");
    }
    admin::set_user_deactivated(store.as_ref(), "acme", "dee", false, &now).await.expect("reactivate");
    let r = c.call(&acme, "/v1/face_auth", &json!({"cus_user_id": "dee", "faces": [{"base64": image}]})).await;
    assert_ne!(r.code(), Some("face_auth_user_deactivated"), "reactivated: {:?}", r.body);

    // A locked user: the refusal is in the histories with the login's own fields, and the
    // inline image is stored with its label and metadata.
    store
        .put_face_user(&FaceUserRecord { is_locked: true, failed_auth_ids: vec!["a".into()], ..face_user(&acme.client_id, "lok") })
        .await
        .expect("user");
    let login = json!({
        "cus_user_id": "lok", "device_id": "login-phone", "app_id": "login-app", "lat": 10.5, "lng": 106.7,
        "auth_type": "payment", "client_transaction_id": "tx-1", "metadata": "{\"channel\":\"app\"}",
        "faces": [{"base64": image, "label": "selfie-front", "metadata": "{\"camera\":\"front\",\"attempt\":2}"}],
    });
    let r = c.call(&acme, "/v1/face_auth", &login).await;
    assert_eq!((r.status, r.code()), (200, Some("face_auth_user_locked")), "{:?}", r.body);
    let user = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "lok"})).await;
    let hist = &user.body["data"]["histories"][0];
    assert_eq!((hist["status"].as_str(), hist["result"].as_str()), (Some("failure"), Some("locked")), "{hist}");
    assert_eq!((hist["device_id"].as_str(), hist["app_id"].as_str()), (Some("login-phone"), Some("login-app")), "{hist}");
    assert_eq!((hist["latitude"].as_f64(), hist["longitude"].as_f64()), (Some(10.5), Some(106.7)), "{hist}");
    assert_eq!((hist["auth_type"].as_str(), hist["client_transaction_id"].as_str()), (Some("payment"), Some("tx-1")), "{hist}");
    assert_eq!(hist["metadata"]["channel"], "app", "{hist}");
    let blob = hist["live_face_id"].as_str().expect("the login's image id");
    let meta = store.get_blob_meta(blob).await.expect("store").expect("blob meta");
    assert_eq!(meta.label.as_deref(), Some("selfie-front"), "label");
    let stored: serde_json::Value = serde_json::from_str(meta.metadata.as_deref().expect("metadata")).expect("json");
    assert_eq!(stored, json!({"camera": "front", "attempt": 2}));
    // A string_json that is not a JSON object is refused, naming the field.
    let bad = json!({"cus_user_id": "lok", "faces": [{"base64": image, "metadata": "camera=front"}]});
    let r = c.call(&acme, "/v1/face_auth", &bad).await;
    assert_eq!((r.status, r.code()), (400, Some("invalid_parameter_exception")), "{:?}", r.body);
    assert_eq!(r.body["errors"][0]["detail"]["field"], "faces[0].metadata", "{:?}", r.body);

    devices(&h, &acme).await;
    h.stop().await;
}

/// A device the operator deactivates, reactivates and deletes.
async fn devices(h: &Harness, acme: &crate::Credentials) {
    let c = &h.client;
    let store = h.backends.store.clone();
    let (device, _) = register(h, acme, false, "dev-user").await;
    let out = admin::device_action(store.as_ref(), "acme", "dev-user", "device-1", DeviceAction::Deactivate).await.expect("deactivate");
    assert_eq!(out.len(), 1);
    let r = device_call(c, &device.session, "/v1/behavior/create_challenge", br#"{"session_id":"s-1"}"#, None).await;
    assert_eq!((r.status, r.code()), (400, Some("customer_user_device_deactivated")), "{:?}", r.body);
    // Registering the same device id again does not bring it back.
    let kp = idv_store::vault::issue_key_pair(store.as_ref(), &h.backends.sealer, &acme.client_id, &crate::now_rfc3339()).await.expect("key pair");
    let keys = idv_client::DeviceKeys::generate().expect("keys");
    let body = keys.register_device_body(&kp.key_pair_id, &kp.public_der, "dev-user", "device-1", false).expect("body");
    let r = c.call(acme, "/v1/register_device", &body).await;
    assert_eq!((r.status, r.code()), (400, Some("customer_user_device_deactivated")), "{:?}", r.body);

    // Reactivated, it works again; a challenge with batches, then the device is
    // deactivated (score: deactivated), then deleted (score: not found).
    admin::device_action(store.as_ref(), "acme", "dev-user", &device.id, DeviceAction::Reactivate).await.expect("reactivate");
    let (ch, nonce) = challenge(c, &device).await;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    push_session(c, &device, &ch, &nonce, &idv_scoring::synth::User::new(5).session_batches(2, &mut rng)).await;
    admin::device_action(store.as_ref(), "acme", "dev-user", "device-1", DeviceAction::Deactivate).await.expect("deactivate");
    let r = c.call(acme, "/v1/behavior/score", &json!({"challenge_id": ch})).await;
    assert_eq!((r.status, r.code()), (400, Some("customer_user_device_deactivated")), "{:?}", r.body);
    let out = admin::device_action(store.as_ref(), "acme", "dev-user", "device-1", DeviceAction::Delete).await.expect("delete");
    assert_eq!(out[0]["deleted"], true);
    let r = c.call(acme, "/v1/behavior/score", &json!({"challenge_id": ch})).await;
    assert_eq!((r.status, r.code()), (400, Some("customer_user_device_not_found")), "{:?}", r.body);
}
