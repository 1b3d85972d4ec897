//! (1) Request bodies, one target per request type that `ingest/src/router.rs` dispatches
//! (and the create_challenge plaintext, `ingest/src/behavior.rs`): `parse_json::<T>`,
//! `validate()`, and for requests with media what ingest does next (`media_slots`, each
//! inline item through `decode_media`). Every refusal must be the spec's client-input
//! error family, as in schemas' own mutation test.

use super::{is_client_input_error, sig_err, Harness, Target};
use crate::mutate::Shape;
use base64::Engine as _;
use idv_schemas::api::{self, HasMedia};
use idv_schemas::validate::{parse_json, Validate};
use serde::de::DeserializeOwned;

/// The ingest tier's default cap on one image (ingest/src/config.rs).
const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;

fn check(stage: &str, e: &idv_schemas::ErrorKind, body: &[u8]) {
    assert!(is_client_input_error(e), "{stage} answered {e:?} (not a client-input error) for {:?}", String::from_utf8_lossy(&body[..body.len().min(300)]));
}

fn plain<T: DeserializeOwned + Validate + 'static>() -> Harness {
    Box::new(|b: &[u8]| match parse_json::<T>(b) {
        Err(e) => {
            check("parse_json", &e, b);
            sig_err(1, &e)
        }
        Ok(v) => match v.validate() {
            Ok(()) => 2,
            Err(e) => {
                check("validate", &e, b);
                sig_err(3, &e)
            }
        },
    })
}

fn with_media<T: DeserializeOwned + Validate + HasMedia + 'static>() -> Harness {
    Box::new(|b: &[u8]| match parse_json::<T>(b) {
        Err(e) => {
            check("parse_json", &e, b);
            sig_err(1, &e)
        }
        Ok(mut v) => match v.validate() {
            Err(e) => {
                check("validate", &e, b);
                sig_err(3, &e)
            }
            Ok(()) => {
                // Which answers the inline items got (a set: not how many of each).
                let mut answers = std::collections::BTreeSet::new();
                for slot in v.media_slots() {
                    let inline = slot.base64.and_then(|b| b.as_deref().map(str::to_owned));
                    if let Some(b64) = inline {
                        match api::decode_media(&slot.field, &b64, MAX_IMAGE_BYTES) {
                            Ok(bytes) => answers.insert(bytes.len().min(4) as u64),
                            Err(e) => {
                                check("decode_media", &e, b);
                                answers.insert(sig_err(5, &e))
                            }
                        };
                    }
                }
                answers.into_iter().fold(4u64, |h, a| h.wrapping_mul(31) ^ a)
            }
        },
    })
}

fn dict() -> Vec<Vec<u8>> {
    let mut d: Vec<Vec<u8>> = Vec::new();
    for list in [api::AUTH_SELFIE_TYPES, api::GESTURES, api::CARD_TYPES, api::SIM_INFO_FIELDS] {
        d.extend(list.iter().map(|s| s.as_bytes().to_vec()));
    }
    for s in [
        "selfie", "id_card", "success", "failure", "all", "encrypted", "base64", "id", "label", "metadata", "frames", "videos",
        "images", "client_uid", "flash_color", "#FF0000", "index", "gesture", "gestures",
    ] {
        d.push(s.as_bytes().to_vec());
    }
    d
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

const FACE_AUTH_REGISTER: &[&str] = &[
    r#"{"cus_user_id":"u","faces":[{"base64":"aA=="}]}"#,
    r##"{"cus_user_id":"u-1","faces":[{"base64":"aGVsbG8=","label":"selfie","metadata":{"k":"v","n":1,"b":true}},{"id":"img-1"}],"face_in_id_card":{"base64":"data:image/png;base64,aGVsbG8="},"videos":[{"frames":[{"base64":"aA==","index":0,"label":"f0","metadata":"{\"flash_color\":\"#FF0000\"}"},{"id":"img-2"}],"metadata":{"a":1}}],"gesture_faces":[{"gesture":"left","images":[{"base64":"aA=="}]}],"gesture_videos":[{"gesture":"up","videos":[{"id":"vid-1"}]}],"device_id":"d-1","app_id":"app","lat":10.5,"lng":106.7,"face_type":"selfie","selfie_type":"passive","history_return_count":5,"history_return_status":"all","metadata":{"channel":"app"},"face_priority":"id_card","camera_challenge_performed":true}"##,
    r#"{"cus_user_id":"u","face_in_id_card":{"id":"img-9"},"camera_challenge_performed":"yes","metadata":"{\"k\":\"v\"}"}"#,
];

const FACE_AUTH: &[&str] = &[
    r#"{"cus_user_id":"u","faces":[{"base64":"aA=="}]}"#,
    r##"{"cus_user_id":"u-1","faces":[{"base64":"aGVsbG8=","label":"selfie","metadata":"{\"k\":\"v\",\"n\":1}"}],"videos":[{"frames":[{"base64":"aA==","metadata":{"flash_color":"#00FF00"}}],"metadata":"{}"}],"gesture_faces":[{"gesture":"down","images":[{"id":"img-1"}]}],"gesture_videos":[{"gesture":"right","videos":[{"frames":[{"base64":"aA=="}]}]}],"device_id":"d","app_id":"a","lat":-10.25,"lng":-106.5,"auth_type":"login","client_transaction_id":"tx-1","selfie_type":"flash_8","history_return_count":100,"history_return_status":"failure","metadata":{"channel":"web"}}"##,
];

const CUS_USER: &[&str] = &[r#"{"cus_user_id":"u-1"}"#, r#"{"cus_user_id":"Nguyễn"}"#];

const UNREGISTER: &[&str] = &[r#"{"cus_user_id":"u","device_id":"d","app_id":"a","lat":1.0,"lng":2.0}"#, r#"{"cus_user_id":"u"}"#];

const MIX_COMPARE: &[&str] = &[
    r#"{"image1":{"base64":"aGVsbG8=","label":"a","metadata":{"k":"v"}},"image2":{"id":"img-2"}}"#,
    r#"{"image1":{"id":"a"},"image2":{"base64":"aA=="}}"#,
];

const READ_ID_CARD: &[&str] = &[
    r#"{"card_type":"vn.national_id","image1":{"base64":"aA==","label":"front","metadata":{"a":"b"}},"image2":{"id":"x"},"qr1_images":[{"id":"x"}],"qr2_images":[{"base64":"aA=="}]}"#,
    r#"{"card_type":"in.aadhaar","image1":{"id":"img-1"}}"#,
];

const EKYC: &[&str] = &[
    r#"{"card_type":"in.aadhaar","image1":{"base64":"aA=="},"image2":{"base64":"aA==","metadata":{"n":1}},"selfies":[{"base64":"aA=="},{"id":"s-2"}],"metadata":{"client_uid":"c1","extra":{"nested":[1,2]}}}"#,
    r#"{"card_type":"vn.national_id","image1":{"base64":"aGVsbG8="},"metadata":{"client_uid":"c1"}}"#,
];

const SIM_SEND_OTP: &[&str] = &[r#"{"phone_number":"+84912345678"}"#, r#"{"phone_number":"0912 345 678"}"#];

const SIM_VERIFY_OTP: &[&str] = &[r#"{"phone_number":"+84912345678","otp":"123456"}"#];

const SIM_VERIFY_INFO: &[&str] = &[
    r#"{"phone_number":"+84123","fields":[{"name":"is_id","value":"1"},{"name":"is_name","value":"Nguyen Van A"},{"name":"is_dob","value":"01/01/1990"}]}"#,
    r#"{"phone_number":"+84912345678","fields":[{"name":"is_subscriber_active","value":""}]}"#,
];

fn register_device_seeds() -> Vec<Vec<u8>> {
    let spki = b64(super::auth::DEVICE_SPKI);
    let esk = super::auth::ESK_OK.trim();
    let sealed = super::auth::seal_fixed(&super::auth::K32, super::auth::DEVICE_SPKI);
    vec![
        format!(r#"{{"key_pair_id":"6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10","device_public_key":"{spki}","cus_user_id":"u","device_id":"d"}}"#).into_bytes(),
        format!(r#"{{"key_pair_id":"6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10","device_public_key":"{sealed}","encrypted_secret_key":"{esk}","cus_user_id":"u","device_id":"d","protocol":"encrypted"}}"#).into_bytes(),
        format!(r#"{{"key_pair_id":"6F1C2A7E-8D8B-4C55-9A3C-2B7A3C1D9E10","device_public_key":"{spki}","cus_user_id":"u","device_id":"d","protocol":""}}"#).into_bytes(),
    ]
}

const BEHAVIOR_SCORE: &[&str] = &[
    r#"{"challenge_id":"6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10","transaction_data":{"transaction_id":"t","transaction_timestamp":"2026-01-01T00:00:00Z","transaction_amount":10.5,"currency_code":"VND","transaction_type":"transfer","channel":"app","transaction_status":"pending","account_number":"123","account_holder_name":"A","bank_code":"B","beneficiary_account_number":"456","beneficiary_account_holder_name":"C","beneficiary_bank_code":"D"},"is_update":true}"#,
    r#"{"challenge_id":"6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10"}"#,
];

const UPLOAD_IMAGE: &[&str] = &[
    r#"{"base64":"aGVsbG8=","label":"l","metadata":{"k":"v","n":1,"b":true}}"#,
    r#"{"base64":"data:image/jpeg;base64,aGVsbG8=","metadata":"{\"k\":\"v\"}"}"#,
];

const UPLOAD_FILE: &[&str] = &[r#"{"base64":"aGVsbG8=","filename":"a.mp4","content_type":"video/mp4","metadata":"{\"k\":\"v\"}"}"#, r#"{"base64":"aA=="}"#];

const GET_RESULT: &[&str] = &[r#"{"request_id":"6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10"}"#];

const LIVENESS: &[&str] = &[r#"{"images":[{"base64":"aA=="},{"id":"i","label":null}],"gestures":["left","up"]}"#, r#"{"images":[{"base64":"aGVsbG8=","metadata":{"k":"v"}}]}"#];

const SINGLE_IMAGE: &[&str] = &[r#"{"image":{"base64":"aA==","label":"x","metadata":{"a":"b"}}}"#, r#"{"image":{"id":"img-1"}}"#];

const CREATE_CHALLENGE: &[&str] = &[r#"{"session_id":"s-1"}"#];

fn strs(xs: &[&str]) -> Vec<Vec<u8>> {
    xs.iter().map(|s| s.as_bytes().to_vec()).collect()
}

macro_rules! target {
    ($name:literal, $about:literal, $harness:expr, $seeds:expr) => {
        Target { name: $name, about: $about, shape: Shape::Json, json_after_line: false, max_len: 1 << 20, seeds: $seeds, dict, harness: $harness }
    };
}

pub fn targets() -> Vec<Target> {
    vec![
        target!("json_face_auth_register", "FaceAuthRegisterRequest: parse, validate, inline media", with_media::<api::FaceAuthRegisterRequest>, || strs(FACE_AUTH_REGISTER)),
        target!("json_face_auth", "FaceAuthRequest: parse, validate, inline media", with_media::<api::FaceAuthRequest>, || strs(FACE_AUTH)),
        target!("json_cus_user", "CusUserRequest (face_auth_user, face_auth_unlock)", with_media::<api::CusUserRequest>, || strs(CUS_USER)),
        target!("json_face_auth_unregister", "FaceAuthUnregisterRequest", with_media::<api::FaceAuthUnregisterRequest>, || strs(UNREGISTER)),
        target!("json_mix_compare_faces", "MixCompareFacesRequest (also compare_faces_sync)", with_media::<api::MixCompareFacesRequest>, || strs(MIX_COMPARE)),
        target!("json_read_id_card", "ReadIdCardRequest (read_id_card_info*, verify_id_card_sanity)", with_media::<api::ReadIdCardRequest>, || strs(READ_ID_CARD)),
        target!("json_ekyc_full_checks", "EkycFullChecksRequest", with_media::<api::EkycFullChecksRequest>, || strs(EKYC)),
        target!("json_sim_send_otp", "SimSendOtpRequest", with_media::<api::SimSendOtpRequest>, || strs(SIM_SEND_OTP)),
        target!("json_sim_verify_otp", "SimVerifyOtpRequest", with_media::<api::SimVerifyOtpRequest>, || strs(SIM_VERIFY_OTP)),
        target!("json_sim_verify_info", "SimVerifyInfoRequest", with_media::<api::SimVerifyInfoRequest>, || strs(SIM_VERIFY_INFO)),
        target!("json_register_device", "RegisterDeviceRequest", with_media::<api::RegisterDeviceRequest>, register_device_seeds),
        target!("json_behavior_score", "BehaviorScoreRequest", with_media::<api::BehaviorScoreRequest>, || strs(BEHAVIOR_SCORE)),
        target!("json_upload_image", "UploadImageRequest", plain::<api::UploadImageRequest>, || strs(UPLOAD_IMAGE)),
        target!("json_upload_file", "UploadFileRequest", plain::<api::UploadFileRequest>, || strs(UPLOAD_FILE)),
        target!("json_get_request_result", "GetRequestResultRequest", with_media::<api::GetRequestResultRequest>, || strs(GET_RESULT)),
        target!("json_verify_face_liveness", "VerifyFaceLivenessRequest", with_media::<api::VerifyFaceLivenessRequest>, || strs(LIVENESS)),
        target!("json_single_image", "SingleImageRequest (verify_portrait_sanity, detect_id_card_tampering)", with_media::<api::SingleImageRequest>, || strs(SINGLE_IMAGE)),
        target!("json_create_challenge", "CreateChallengeRequest (device plaintext)", with_media::<api::CreateChallengeRequest>, || strs(CREATE_CHALLENGE)),
    ]
}
