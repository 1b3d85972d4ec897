//! Face operations end to end on real photos (the models step's test images): register,
//! look up, authenticate (same person matches, another does not, a group photo is
//! refused), compare, unregister.

use crate::{Harness, B64};
use base64::Engine as _;
use serde_json::json;

/// The photo bytes, or `None` (with a SKIPPED line) when IDV_SKIP_MODELS=1 and the models
/// step has not run. Without that variable a missing model is a failure.
pub fn photo(id: &str) -> Option<Vec<u8>> {
    let dir = idv_vision::models_dir();
    match idv_vision::testdata::read_test_image(&dir, id) {
        Ok(b) => Some(b),
        Err(e) if std::env::var("IDV_SKIP_MODELS").as_deref() == Ok("1") => {
            println!("SKIPPED: face end-to-end: {e}; IDV_SKIP_MODELS=1");
            None
        }
        Err(e) => panic!("{e}: run scripts/models.sh first, or set IDV_SKIP_MODELS=1"),
    }
}

pub async fn run(bus_url: &str) {
    let (Some(obama), Some(obama2), Some(obama3), Some(biden), Some(group)) = (
        photo("testimg-fr-obama"),
        photo("testimg-fr-obama2"),
        photo("testimg-fr-obama3"),
        photo("testimg-fr-biden"),
        photo("testimg-faceapi-sample1"),
    ) else {
        return;
    };
    let h = Harness::start(bus_url, |s| s.request_timeout_ms = Some(60_000)).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;

    // Register by reference (upload first) and look the user up.
    let up = c.call(&acme, "/v1/upload_image", &json!({"base64": B64.encode(&obama), "label": "selfie"})).await;
    assert_eq!(up.status, 200, "{:?}", up.body);
    let reg = c
        .call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "obama", "faces": [{"id": up.body["data"]["id"]}], "metadata": {"tier": "gold"}}))
        .await;
    assert_eq!(reg.status, 200, "{:?}", reg.body);
    let d = &reg.body["data"];
    assert_eq!(d["status"], "success", "{d}");
    assert!(d["user_metadata"]["expiry_date_face"].is_string());
    assert_eq!(d["user_metadata"]["tier"], "gold");
    assert_eq!(d["histories"][0]["auth_action"], "register");
    // The selfie's own passive liveness is reported on registration as on face_auth: a
    // verdict, or "not performed" with no is_live.
    let lc = &d["validate_faces_result"]["liveness_check"];
    match d["validate_faces_result"].get("is_live") {
        Some(live) => assert!(live.is_boolean() && lc["images"][0]["is_live"].is_boolean(), "{d}"),
        None => assert_eq!(lc["status"], "not_performed", "{d}"),
    }
    let user = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "obama"})).await;
    assert_eq!(user.body["data"]["verdict"], "registered");
    assert_eq!(user.body["data"]["face_types"], json!(["selfie"]));

    // Another photo of the same man matches; another man does not.
    let auth = |img: &[u8]| json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(img)}]});
    let same = c.call(&acme, "/v1/face_auth", &auth(&obama3)).await;
    assert_eq!(same.status, 200, "{:?}", same.body);
    assert_eq!(same.body["data"]["auth_check"]["result"], "matched", "{:?}", same.body);
    let score = same.body["data"]["auth_check"]["score"].as_f64().expect("score");
    assert!((0.0..=1.0).contains(&score));
    assert!(same.body["data"]["validate_faces_result"]["sanity_verdict"].is_string());
    let images = &same.body["data"]["validate_faces_result"]["liveness_check"]["images"];
    assert!(images[0]["is_live"].is_boolean() && images[0]["score"].is_number(), "{images}");
    let other = c.call(&acme, "/v1/face_auth", &json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(&biden)}]})).await;
    assert_eq!(other.status, 200, "{:?}", other.body);
    assert_eq!(other.body["data"]["auth_check"]["result"], "unmatched", "{:?}", other.body);
    let several = c.call(&acme, "/v1/face_auth", &auth(&group)).await;
    assert_eq!((several.status, several.code()), (400, Some("incorrect_number_of_faces")), "{:?}", several.body);
    let turned = c.call(&acme, "/v1/face_auth", &auth(&obama2)).await;
    assert_eq!(turned.status, 200, "{:?}", turned.body);

    // Active liveness with gesture images: a turn to the right is there; a "left" is not.
    let gesture = |g: &str| {
        json!({"cus_user_id": "obama", "selfie_type": "active", "faces": [{"base64": B64.encode(&obama)}],
               "gesture_faces": [{"gesture": g, "images": [{"base64": B64.encode(&obama2)}]}]})
    };
    let right = c.call(&acme, "/v1/face_auth", &gesture("right")).await;
    assert_eq!(right.status, 200, "{:?}", right.body);
    assert_eq!(right.body["data"]["validate_faces_result"]["liveness_check"]["gestures"][0]["performed"], true, "{:?}", right.body);
    assert!(right.body["errors"].as_array().is_none_or(|e| e.is_empty()), "{:?}", right.body);
    let wrong = c.call(&acme, "/v1/face_auth", &gesture("left")).await;
    assert_eq!((wrong.status, wrong.code()), (200, Some("image_non_liveness")), "{:?}", wrong.body);
    assert_eq!(wrong.body["data"]["validate_faces_result"]["liveness_check"]["gestures"][0]["performed"], false);

    // Compare an ID-card-like image with a selfie.
    let cmp = |a: &[u8], b: &[u8]| json!({"image1": {"base64": B64.encode(a)}, "image2": {"base64": B64.encode(b)}});
    let m = c.call(&acme, "/v1/mix_compare_faces_sync", &cmp(&obama, &obama3)).await;
    assert_eq!(m.status, 200, "{:?}", m.body);
    assert_eq!(m.body["data"]["compare_faces"][0]["result"], "matched", "{:?}", m.body);
    assert!(m.body["data"]["image1"]["faces"][0]["bounding_box"]["top"].is_number());
    assert_eq!(m.body["data"]["image1"]["faces"][0]["id"], "image1-face-0");
    assert_eq!(m.body["data"]["transaction_id"], m.body["data"]["request_id"], "{:?}", m.body);
    let crowd = c.call(&acme, "/v1/mix_compare_faces_sync", &cmp(&group, &obama3)).await;
    assert_eq!((crowd.status, crowd.code()), (400, Some("incorrect_number_of_faces")), "{:?}", crowd.body);
    let u = c.call(&acme, "/v1/mix_compare_faces_sync", &cmp(&obama, &biden)).await;
    assert_eq!(u.body["data"]["compare_faces"][0]["result"], "unmatched", "{:?}", u.body);

    // Unregister: templates go, and authentication says so.
    let un = c.call(&acme, "/v1/face_auth_unregister", &json!({"cus_user_id": "obama"})).await;
    assert_eq!(un.body["data"]["face_auth_user"]["is_unregistered"], true);
    assert!(h.backends.store.list_face_templates(&acme.client_id, "obama").await.expect("list").is_empty());
    let gone = c.call(&acme, "/v1/face_auth", &auth(&obama3)).await;
    assert_eq!(gone.code(), Some("face_auth_user_unregistered"), "{:?}", gone.body);
    h.stop().await;
}

/// Lockout: with IDV_FACE_AUTH_MAX_FAILURES=2, the second unmatched login in a row is
/// answered as usual and locks the user; the next login is face_auth_user_locked; the
/// histories show both; face_auth_unlock lets the genuine user in again.
pub async fn run_lockout(bus_url: &str) {
    let (Some(obama), Some(obama3), Some(biden)) = (photo("testimg-fr-obama"), photo("testimg-fr-obama3"), photo("testimg-fr-biden")) else {
        return;
    };
    let h = Harness::start(bus_url, |s| {
        s.request_timeout_ms = Some(60_000);
        s.face_auth_max_failures = Some(2);
    })
    .await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let reg = c.call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(&obama)}]})).await;
    assert_eq!(reg.body["data"]["status"], "success", "{:?}", reg.body);
    let auth = |img: &[u8]| json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(img)}], "device_id": "phone-9"});
    // A match between failures resets the count.
    for img in [&biden, &obama3, &biden, &biden] {
        let r = c.call(&acme, "/v1/face_auth", &auth(img)).await;
        assert_eq!((r.status, r.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    }
    let locked = c.call(&acme, "/v1/face_auth", &auth(&obama3)).await;
    assert_eq!((locked.status, locked.code()), (200, Some("face_auth_user_locked")), "{:?}", locked.body);
    let user = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "obama"})).await;
    let hist = &user.body["data"]["histories"];
    assert_eq!((hist[0]["result"].as_str(), hist[0]["device_id"].as_str()), (Some("locked"), Some("phone-9")), "{hist}");
    assert_eq!((hist[1]["result"].as_str(), hist[1]["user_locked"].as_bool()), (Some("unmatched"), Some(true)), "{hist}");
    let unlock = c.call(&acme, "/v1/face_auth_unlock", &json!({"cus_user_id": "obama"})).await;
    assert_eq!(unlock.status, 200, "{:?}", unlock.body);
    let again = c.call(&acme, "/v1/face_auth", &auth(&obama3)).await;
    assert_eq!(again.body["data"]["auth_check"]["result"], "matched", "{:?}", again.body);
    h.stop().await;
}

/// Templates written before SFace was installed (dlib alone) keep working: a user whose
/// only template is of dlib alone is compared on the dlib part of the selfie's fused
/// embedding; the matched login adds a fused template, which the next login uses; an
/// impostor is refused on the old template as on the new.
pub async fn run_legacy_template_upgrade(bus_url: &str) {
    let (Some(obama), Some(obama3), Some(biden)) = (photo("testimg-fr-obama"), photo("testimg-fr-obama3"), photo("testimg-fr-biden")) else {
        return;
    };
    let h = Harness::start(bus_url, |s| s.request_timeout_ms = Some(60_000)).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let store = &h.backends.store;
    let reg = c.call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(&obama)}]})).await;
    assert_eq!(reg.body["data"]["status"], "success", "{:?}", reg.body);
    let fused = store.list_face_templates(&acme.client_id, "obama").await.expect("list");
    assert_eq!(fused.len(), 1);
    assert_eq!(fused[0].model_id, idv_vision::matching::FUSED_MODEL_ID, "the models step installs SFace: registration writes fused templates");
    // Rewrite it as the service wrote it before: dlib's 128 numbers, tagged dlib.
    let aad = |id: &str| format!("face_template:{}:obama:{id}", acme.client_id).into_bytes();
    let sealer = &h.backends.sealer;
    let bytes = sealer.open(&fused[0].sealed_vector, &aad(&fused[0].template_id)).expect("template opens");
    assert_eq!(bytes.len(), 256 * 4, "dlib 128 + SFace 128 numbers");
    let mut old = fused[0].clone();
    old.template_id = "legacy-dlib".into();
    old.model_id = "dlib-resnet-v1".into();
    old.model_version = "0.3.0".into();
    old.sealed_vector = sealer.seal(&bytes[..128 * 4], &aad("legacy-dlib"));
    store.delete_face_templates(&acme.client_id, "obama").await.expect("delete");
    store.put_face_template(&old).await.expect("put");

    let auth = |img: &[u8]| json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(img)}]});
    let impostor = c.call(&acme, "/v1/face_auth", &auth(&biden)).await;
    assert_eq!(impostor.body["data"]["auth_check"]["result"], "unmatched", "{:?}", impostor.body);
    assert_eq!(store.list_face_templates(&acme.client_id, "obama").await.expect("list").len(), 1, "an unmatched login adds nothing");
    let same = c.call(&acme, "/v1/face_auth", &auth(&obama3)).await;
    assert_eq!(same.body["data"]["auth_check"]["result"], "matched", "{:?}", same.body);
    let after = store.list_face_templates(&acme.client_id, "obama").await.expect("list");
    let models: Vec<&str> = after.iter().map(|t| t.model_id.as_str()).collect();
    assert_eq!(after.len(), 2, "{models:?}");
    assert!(models.contains(&"dlib-resnet-v1") && models.contains(&idv_vision::matching::FUSED_MODEL_ID), "{models:?}");
    // The next logins use the fused template: the same man matches, the other does not,
    // and no further template is added.
    let again = c.call(&acme, "/v1/face_auth", &auth(&obama)).await;
    assert_eq!(again.body["data"]["auth_check"]["result"], "matched", "{:?}", again.body);
    let other = c.call(&acme, "/v1/face_auth", &auth(&biden)).await;
    assert_eq!(other.body["data"]["auth_check"]["result"], "unmatched", "{:?}", other.body);
    assert_eq!(store.list_face_templates(&acme.client_id, "obama").await.expect("list").len(), 2);
    h.stop().await;
}
