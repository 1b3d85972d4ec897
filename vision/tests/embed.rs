//! Alignment, embedding and matching on the real photos (installed by scripts/models.sh;
//! see tests/common).
//!
//! - Parity with dlib itself: tests/data/dlib_reference.json holds what the real dlib
//!   20.0.1 computes on the exact pixels decode() gives (made by make_dlib_reference.py):
//!   the Rust shape predictor must give dlib's landmarks, and the Rust chip + converted
//!   ONNX network dlib's descriptor, on the same face rectangles.
//! - Verification on the photos: the same person matches across photos, different
//!   people do not, at the default threshold (different people in one group photo, and
//!   Obama or Biden against the group photos' faces, are the impostor pairs).

mod common;

use idv_vision::detect::{DetectParams, Face, Mtcnn};
use idv_vision::embed::{chip_from_landmarks, AlignedFace};
use idv_vision::matching::{compare, euclidean_distance, MatchDecision};
use idv_vision::registry::ids;
use idv_vision::{
    decode, dlib_rect_from_mtcnn, DecodeLimits, DlibEmbedder, DlibRect, Embedding, FaceEmbedder, MatchConfig, OrtConfig, OrtRuntime,
    RgbImage,
};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

const OBAMA: [&str; 6] = [
    "testimg-fr-obama",
    "testimg-fr-obama2",
    "testimg-fr-obama3",
    "testimg-fr-32bit",
    "testimg-fr-obama-partial-face",
    "testimg-fr-obama-partial-face2",
];
const BIDEN: &str = "testimg-fr-biden";
use idv_vision::testdata::GROUP_PHOTOS as GROUPS;

struct Fixture {
    mtcnn: Mtcnn,
    embedder: DlibEmbedder,
    images: HashMap<&'static str, Arc<RgbImage>>,
}

fn fixture(test: &str) -> Option<&'static Fixture> {
    static F: OnceLock<Option<Fixture>> = OnceLock::new();
    let dir = common::models_or_skip(test)?;
    F.get_or_init(|| {
        let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
        let mtcnn = Mtcnn::load(&rt).expect("load MTCNN");
        let embedder = DlibEmbedder::load(&rt, &dir).expect("load the dlib embedder");
        let mut images = HashMap::new();
        for id in OBAMA.iter().chain([BIDEN].iter()).chain(GROUPS.iter()) {
            let img = decode(&common::image_bytes(&dir, id), &DecodeLimits::default()).expect("decode test photo");
            images.insert(*id, Arc::new(img));
        }
        Some(Fixture { mtcnn, embedder, images })
    })
    .as_ref()
}

/// MTCNN faces and their embeddings, computed once per photo.
fn faces(f: &Fixture, id: &str) -> Vec<(Face, Embedding)> {
    type Cache = std::sync::Mutex<HashMap<String, Vec<(Face, Embedding)>>>;
    static D: OnceLock<Cache> = OnceLock::new();
    let cache = D.get_or_init(Default::default);
    if let Some(d) = cache.lock().expect("lock").get(id) {
        return d.clone();
    }
    let img = &f.images[id];
    let found = f.mtcnn.detect(img, &DetectParams::default()).expect("detect");
    let emb = f.embedder.embed_faces(img, &found).expect("embed");
    let out: Vec<(Face, Embedding)> = found.into_iter().zip(emb).collect();
    cache.lock().expect("lock").insert(id.to_string(), out.clone());
    out
}

fn reference() -> serde_json::Value {
    serde_json::from_str(include_str!("data/dlib_reference.json")).expect("dlib_reference.json parses")
}

fn rect_of(v: &serde_json::Value) -> DlibRect {
    let r: Vec<i64> = serde_json::from_value(v.clone()).expect("rect");
    DlibRect { left: r[0], top: r[1], right: r[2], bottom: r[3] }
}

#[test]
fn landmarks_and_descriptors_match_dlib() {
    let Some(f) = fixture("landmarks_and_descriptors_match_dlib") else { return };
    let reference = reference();
    let cases = reference["faces"].as_array().expect("faces");
    assert!(cases.len() >= 30, "only {} reference faces", cases.len());
    let (mut worst_dist, mut worst_abs) = (0f32, 0f32);
    let mut landmark_mismatches = Vec::new();
    let mut chips = Vec::new();
    let mut wanted = Vec::new();
    for case in cases {
        let id = case["image"].as_str().expect("image");
        let img = &f.images[id];
        let rect = rect_of(&case["rect"]);
        if case["source"] == "mtcnn" {
            // The MTCNN → dlib rectangle mapping is the one the reference used.
            let b: Vec<f32> = serde_json::from_value(case["mtcnn_box"].clone()).expect("mtcnn_box");
            assert_eq!(dlib_rect_from_mtcnn([b[0], b[1], b[2], b[3]]), rect, "{id}: mapping of {b:?}");
        }
        let want: Vec<[i64; 2]> = serde_json::from_value(case["landmarks"].clone()).expect("landmarks");
        let got = f.embedder.shape_predictor().predict(img, &rect);
        if got != want {
            landmark_mismatches.push(format!("{id} {rect:?}: {got:?} vs dlib {want:?}"));
        }
        // The descriptor from dlib's own landmarks: checks chip + network alone.
        let lm: [[i64; 2]; 5] = want.clone().try_into().expect("5 landmarks");
        chips.push(chip_from_landmarks(img, &lm).expect("chip"));
        let desc: Vec<f32> = serde_json::from_value(case["descriptor"].clone()).expect("descriptor");
        assert_eq!(desc.len(), 128);
        wanted.push((id, rect, desc));
    }
    let chip_refs: Vec<&RgbImage> = chips.iter().collect();
    let got = f.embedder.embed_chips(&chip_refs).expect("embed");
    for ((id, rect, want), e) in wanted.iter().zip(&got) {
        let d = euclidean_distance(&e.vector, want).expect("distance");
        let a = e.vector.iter().zip(want).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        println!("{id} {rect:?}: distance to dlib {d:.2e}, max abs {a:.2e}");
        worst_dist = worst_dist.max(d);
        worst_abs = worst_abs.max(a);
    }
    println!("{} faces: worst distance to dlib's descriptor {worst_dist:.2e}, worst component {worst_abs:.2e}", got.len());
    assert!(landmark_mismatches.is_empty(), "landmarks differ from dlib's:\n{}", landmark_mismatches.join("\n"));
    assert!(worst_dist < PARITY_DISTANCE, "descriptor {worst_dist} from dlib's (limit {PARITY_DISTANCE})");
}

/// Largest Euclidean distance allowed between our descriptor and dlib's for the same
/// face (descriptors have norm ≈ 1; same-person pairs lie at 0.3–0.5).
const PARITY_DISTANCE: f32 = 1e-5;

#[test]
fn embeddings_record_their_model() {
    let Some(f) = fixture("embeddings_record_their_model") else { return };
    let e = &faces(f, "testimg-fr-obama")[0].1;
    assert_eq!((e.model_id.as_str(), e.model_version.as_str()), (ids::DLIB_RESNET, "0.3.0"));
    assert_eq!((f.embedder.model_id(), f.embedder.model_version()), (ids::DLIB_RESNET, "0.3.0"));
    assert_eq!(e.vector.len(), 128);
    let norm = e.vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((0.5..2.0).contains(&norm), "norm {norm}");
}

#[test]
fn batched_and_single_embeddings_agree() {
    let Some(f) = fixture("batched_and_single_embeddings_agree") else { return };
    let img = &f.images["testimg-faceapi-sample5"];
    let found: Vec<Face> = faces(f, "testimg-faceapi-sample5").into_iter().map(|(face, _)| face).collect();
    assert!(found.len() >= 4);
    let batch = f.embedder.embed_faces(img, &found).expect("batch");
    for (face, b) in found.iter().zip(&batch) {
        let single = f.embedder.embed_faces(img, std::slice::from_ref(face)).expect("single");
        let d = euclidean_distance(&single[0].vector, &b.vector).expect("distance");
        assert!(d < 1e-4, "batch vs single: {d}");
    }
    // Same input, same output.
    let again = f.embedder.embed_faces(img, &found).expect("again");
    assert_eq!(again, batch);
}

#[test]
fn same_person_matches_across_photos() {
    let Some(f) = fixture("same_person_matches_across_photos") else { return };
    let cfg = MatchConfig::default();
    let obama: Vec<(&str, Embedding)> = OBAMA
        .iter()
        .map(|id| {
            let found = faces(f, id);
            assert_eq!(found.len(), 1, "{id}");
            (*id, found[0].1.clone())
        })
        .collect();
    for i in 0..obama.len() {
        for j in i + 1..obama.len() {
            let r = compare(&obama[i].1, &obama[j].1, &cfg).expect("compare");
            println!("{} × {}: {:.4} {}", obama[i].0, obama[j].0, r.distance, r.decision.as_str());
            assert!(r.matched, "{} × {}: {r:?}", obama[i].0, obama[j].0);
            assert_eq!(r.decision, MatchDecision::Matched, "{} × {}: {r:?}", obama[i].0, obama[j].0);
            assert!(r.score > 0.75);
        }
    }
    // obama2.jpg and 32bit.png are the same photo: (almost) the same embedding.
    let same = compare(&obama[1].1, &obama[3].1, &cfg).expect("compare");
    assert!(same.distance < 0.05, "{same:?}");
    let biden = &faces(f, BIDEN)[0].1;
    for (id, e) in &obama {
        let r = compare(e, biden, &cfg).expect("compare");
        println!("{id} × biden: {:.4} {}", r.distance, r.decision.as_str());
        assert!(!r.matched && r.decision == MatchDecision::Unmatched, "{id} × biden: {r:?}");
        assert!(r.score < 0.25);
    }
}

#[test]
fn different_people_do_not_match() {
    // Impostor pairs whose identities are certain: the people within one group photo,
    // Obama or Biden against anyone in the group photos. (Across group photos nothing
    // is asserted: they come from one photo shoot and may show the same woman twice;
    // face_eval lists those pairs apart.)
    let Some(f) = fixture("different_people_do_not_match") else { return };
    let cfg = MatchConfig::default();
    let mut groups: Vec<Vec<(String, Embedding)>> = Vec::new();
    // (Obama × Biden is checked in same_person_matches_across_photos.)
    for id in GROUPS {
        let mut people = Vec::new();
        for (face, e) in faces(f, id) {
            // sample3's torso (the one non-face detection, score 0.79, docs/VISION.md) is
            // no person; sample2's profile face (score 0.78) is one.
            if id == "testimg-faceapi-sample3" && face.score < 0.9 {
                continue;
            }
            let (cx, cy) = ((face.rect[0] + face.rect[2]) / 2.0, (face.rect[1] + face.rect[3]) / 2.0);
            people.push((format!("{id} ({cx:.0},{cy:.0})"), e));
        }
        assert!(people.len() >= 2, "{id}: {} faces", people.len());
        groups.push(people);
    }
    let known: Vec<(String, Embedding)> =
        [OBAMA[0], OBAMA[2], BIDEN].iter().map(|id| (id.to_string(), faces(f, id)[0].1.clone())).collect();
    // Different women in one photo: none is `matched` (three-way and two-way). Some are
    // `unsure`, and four lie below dlib's plain 0.6 (0.558 at the closest; dlib itself
    // gives the same distances): that is why `matched` needs d < 0.55.
    let (mut within, mut unsure, mut below_06, mut closest) = (0, 0, 0, f32::INFINITY);
    for people in &groups {
        for i in 0..people.len() {
            for j in i + 1..people.len() {
                let r = compare(&people[i].1, &people[j].1, &cfg).expect("compare");
                within += 1;
                closest = closest.min(r.distance);
                unsure += usize::from(r.decision == MatchDecision::Unsure);
                below_06 += usize::from(r.distance < 0.6);
                assert!(!r.matched, "{} × {}: {r:?}", people[i].0, people[j].0);
                assert_ne!(r.decision, MatchDecision::Matched, "{} × {}: {r:?}", people[i].0, people[j].0);
            }
        }
    }
    println!("{within} pairs within group photos: closest {closest:.4}, {unsure} unsure, {below_06} below 0.6");
    assert_eq!(within, 29);
    assert!(unsure <= 7 && below_06 <= 4, "{unsure} unsure, {below_06} below 0.6: worse than measured");
    // Obama and Biden against every face in the group photos: clearly `unmatched`.
    let mut across = 0;
    for (kn, ke) in &known {
        for people in &groups {
            for (pn, pe) in people {
                let r = compare(ke, pe, &cfg).expect("compare");
                across += 1;
                assert_eq!(r.decision, MatchDecision::Unmatched, "{kn} × {pn}: {r:?}");
                assert!(!r.matched && r.score < 0.25, "{kn} × {pn}: {r:?}");
            }
        }
    }
    assert_eq!(across, 63);
}

#[test]
fn mtcnn_rectangle_gives_dlibs_alignment() {
    // The full path (MTCNN → mapped rectangle → landmarks → chip → embedding) against
    // dlib on its own HOG rectangle for the same face: close, not equal (the rectangles
    // differ a little, and the predictor's output moves with them).
    let Some(f) = fixture("mtcnn_rectangle_gives_dlibs_alignment") else { return };
    let reference = reference();
    let mut checked = 0;
    let mut worst = 0f32;
    for case in reference["faces"].as_array().expect("faces").iter().filter(|c| c["source"] == "hog") {
        let id = case["image"].as_str().expect("image");
        let rect = rect_of(&case["rect"]);
        let (cx, cy) = ((rect.left + rect.right) as f32 / 2.0, (rect.top + rect.bottom) as f32 / 2.0);
        let Some((face, e)) = faces(f, id).into_iter().find(|(face, _)| {
            let r = face.rect;
            cx >= r[0] && cx <= r[2] && cy >= r[1] && cy <= r[3]
        }) else {
            continue;
        };
        let want: Vec<f32> = serde_json::from_value(case["descriptor"].clone()).expect("descriptor");
        let d = euclidean_distance(&e.vector, &want).expect("distance");
        let aligned: AlignedFace = f.embedder.align_face(&f.images[id], &face).expect("align");
        let dlib_lm: Vec<[i64; 2]> = serde_json::from_value(case["landmarks"].clone()).expect("landmarks");
        let lm_shift = aligned
            .landmarks
            .iter()
            .zip(&dlib_lm)
            .map(|(a, b)| (((a[0] - b[0]).pow(2) + (a[1] - b[1]).pow(2)) as f32).sqrt())
            .fold(0f32, f32::max);
        println!("{id} {rect:?}: mapped {:?}, landmarks within {lm_shift:.1} px, descriptor distance {d:.4}", aligned.rect);
        worst = worst.max(d);
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} faces found by both detectors");
    assert!(worst < MTCNN_VS_HOG_DISTANCE, "worst {worst}");
}

/// Largest descriptor distance between the MTCNN-rectangle path and dlib on its HOG
/// rectangle for the same face (measured worst, with margin; see docs/VISION.md).
const MTCNN_VS_HOG_DISTANCE: f32 = 0.15;

#[test]
fn missing_models_mean_not_performed() {
    let empty = std::env::temp_dir().join(format!("idv-vision-embed-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("mkdir");
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&empty));
    let err = DlibEmbedder::load(&rt, &empty).err().expect("no models installed");
    assert!(err.is_not_installed(), "{err}");
    assert!(err.to_string().contains("not installed: run scripts/models.sh"), "{err}");
    // The predictor alone missing is "not installed" too.
    let err = idv_vision::embed::load_shape_predictor(&empty, ids::DLIB_SHAPE_PREDICTOR_5).expect_err("missing");
    assert!(err.is_not_installed(), "{err}");
    assert!(err.to_string().contains("not installed: run scripts/models.sh"), "{err}");
    let _ = std::fs::remove_dir_all(&empty);
}

/// Maintenance: writes Rust's chips for the reference faces (from dlib's landmarks) as
/// PPM, to compare with the chips make_dlib_reference.py writes from dlib.
/// `IDV_DUMP_CHIPS=DIR cargo test -p idv-vision --test embed -- --ignored dump_chips`.
#[test]
#[ignore]
fn dump_chips() {
    let Some(f) = fixture("dump_chips") else { return };
    let out = std::env::var("IDV_DUMP_CHIPS").expect("set IDV_DUMP_CHIPS to a directory");
    std::fs::create_dir_all(&out).expect("mkdir");
    for case in reference()["faces"].as_array().expect("faces") {
        let id = case["image"].as_str().expect("image");
        let rect = rect_of(&case["rect"]);
        let lm: Vec<[i64; 2]> = serde_json::from_value(case["landmarks"].clone()).expect("landmarks");
        let lm: [[i64; 2]; 5] = lm.try_into().expect("5");
        let chip = chip_from_landmarks(&f.images[id], &lm).expect("chip");
        let mut ppm = b"P6\n150 150\n255\n".to_vec();
        ppm.extend_from_slice(chip.as_raw());
        let src = case["source"].as_str().unwrap_or("x");
        std::fs::write(format!("{out}/{id}-{src}-{}-{}.ppm", rect.left, rect.top), ppm).expect("write");
    }
}
