//! Pipeline stage 7: an uploaded video file to a handful of frames.
//!
//! Decoding is delegated to **ffmpeg** (Debian's `ffmpeg` package; `IDV_FFMPEG` /
//! `IDV_FFPROBE` name other binaries), run as a child process on a private temporary
//! copy of the file: no media parser runs inside the service process, and a decoder that
//! hangs is killed at [`VideoLimits::timeout`]. No maintained pure-Rust crate decodes the
//! codecs phones record (H.264 and HEVC in MP4/MOV).
//!
//! **Sampling** (docs/VISION.md "Video input"): [`VideoLimits::sample_frames`] frames
//! (default 12), evenly spread over the whole video (ffmpeg's `fps` filter at
//! `n / duration`), scaled down so the longest side is at most
//! [`VideoLimits::max_side`]. Videos longer than [`VideoLimits::max_duration_s`] are
//! refused rather than truncated: a liveness or gesture check must see the whole capture.
//! Rotation metadata is applied (ffmpeg's default autorotation), as EXIF orientation is
//! for photos.
//!
//! **Hardening**: `-protocol_whitelist file` (a playlist cannot make ffmpeg fetch a URL or
//! read another local file through a `concat:`/`subfile:` protocol), `-format_whitelist`
//! limited to the container formats phones produce, `-nostdin`, audio/subtitle/data
//! streams dropped, a wall-clock timeout, and the output frames decoded again by
//! [`crate::decode`] with its usual limits.

use crate::decode::{decode, DecodeLimits};
use image::RgbImage;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Limits and sampling for [`VideoDecoder::sample`].
#[derive(Debug, Clone)]
pub struct VideoLimits {
    /// Encoded size (the ingest tier's cap on an uploaded file).
    pub max_bytes: usize,
    /// Longer videos are refused.
    pub max_duration_s: f64,
    /// Frames taken, evenly spread over the video.
    pub sample_frames: usize,
    /// Longest side of a sampled frame, in pixels.
    pub max_side: u32,
    /// ffprobe + ffmpeg together, wall clock.
    pub timeout: Duration,
}

impl Default for VideoLimits {
    fn default() -> Self {
        VideoLimits {
            max_bytes: 50 * 1024 * 1024,
            max_duration_s: 60.0,
            sample_frames: 12,
            max_side: 1280,
            timeout: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VideoError {
    /// The decoder is not installed: the caller reports "not performed".
    #[error("video decoding is not available: {0}")]
    Unavailable(String),
    /// The file is not a video we can read (the client's fault: 400).
    #[error("video cannot be decoded: {0}")]
    Invalid(String),
    #[error("video decoding failed: {0}")]
    Failed(String),
}

/// One frame taken from a video.
#[derive(Debug, Clone)]
pub struct SampledFrame {
    /// Position among the sampled frames (0-based).
    pub index: usize,
    /// Approximate time in the video, seconds.
    pub time_s: f64,
    pub image: RgbImage,
}

/// Container formats ffmpeg may open (its demuxer names): MP4/MOV/3GP, Matroska/WebM, AVI.
const FORMAT_WHITELIST: &str = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi";
/// Decoders ffmpeg may open: the video codecs phones and browsers record, and the audio
/// codecs that travel with them (stream probing opens the audio decoder even though audio
/// is dropped). Every other decoder stays unreachable however the container labels a
/// stream.
const CODEC_WHITELIST: &str = "h264,hevc,vp8,vp9,av1,mpeg4,mjpeg,aac,mp3,mp3float,opus,vorbis,pcm_s16le,pcm_s16be,pcm_f32le,amrnb,amrwb";
/// Largest frame (width × height) decoded: 4096 × 4096.
const MAX_FRAME_PIXELS: u64 = 4096 * 4096;
/// Frames a video of unknown duration may have (60 s at 60 fps).
const MAX_PACKETS_UNKNOWN_DURATION: u64 = 3600;

/// The hardening arguments every ffmpeg/ffprobe run gets, before `-i`/the input.
fn input_hardening(cmd: &mut Command) {
    cmd.args(["-protocol_whitelist", "file", "-format_whitelist", FORMAT_WHITELIST, "-codec_whitelist", CODEC_WHITELIST])
        // One decoding thread: a request's video must not take every core from the pool.
        .args(["-threads", "1"])
        // Nothing of the service's environment (master key, store credentials) reaches
        // the child; PATH only, so it finds its own libraries the usual way.
        .env_clear()
        .envs(std::env::var_os("PATH").map(|p| ("PATH", p)));
}

/// The ffmpeg and ffprobe binaries to run, and the limits.
#[derive(Debug, Clone)]
pub struct VideoDecoder {
    pub ffmpeg: String,
    pub ffprobe: String,
    pub limits: VideoLimits,
}

impl VideoDecoder {
    /// `IDV_FFMPEG` / `IDV_FFPROBE`, else `ffmpeg` / `ffprobe` from `PATH`.
    pub fn from_env() -> Self {
        let tool = |var: &str, default: &str| std::env::var(var).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| default.to_string());
        VideoDecoder { ffmpeg: tool("IDV_FFMPEG", "ffmpeg"), ffprobe: tool("IDV_FFPROBE", "ffprobe"), limits: VideoLimits::default() }
    }

    /// Whether ffmpeg and ffprobe can be started (a cheap `-version` call each).
    pub fn available(&self) -> bool {
        [&self.ffmpeg, &self.ffprobe].iter().all(|bin| {
            Command::new(bin)
                .arg("-version")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
    }

    /// Decodes up to `limits.sample_frames` frames of the video in `bytes`.
    pub fn sample(&self, bytes: &[u8]) -> Result<Vec<SampledFrame>, VideoError> {
        sample_video(self, bytes)
    }
}

/// Runs `cmd` to completion or until `deadline`, returning (success, stdout, stderr).
fn run_until(mut cmd: Command, deadline: Instant) -> Result<(bool, Vec<u8>, String), VideoError> {
    use std::io::Read;
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            VideoError::Unavailable("ffmpeg/ffprobe not found (install Debian's ffmpeg, or set IDV_FFMPEG and IDV_FFPROBE)".into())
        } else {
            VideoError::Failed(format!("cannot start the decoder: {e}"))
        }
    })?;
    // Readers on their own threads so a chatty child cannot block on a full pipe.
    // Past the kept prefix the rest is drained, not left in the pipe: a closed pipe would
    // kill a chatty but healthy decoder with SIGPIPE.
    fn read_capped(stream: Option<impl Read>, cap: u64) -> Vec<u8> {
        let mut buf = Vec::new();
        if let Some(mut s) = stream {
            let _ = (&mut s).take(cap).read_to_end(&mut buf);
            let _ = std::io::copy(&mut s, &mut std::io::sink());
        }
        buf
    }
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || read_capped(stdout, 4 * 1024 * 1024));
    let err_reader = std::thread::spawn(move || String::from_utf8_lossy(&read_capped(stderr, 64 * 1024)).into_owned());
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                // The input made the decoder too slow: refused like any undecodable file.
                return Err(VideoError::Invalid("the video takes too long to decode".into()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VideoError::Failed(format!("waiting for the decoder: {e}")));
            }
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    Ok((status.success(), out, err))
}

/// What ffprobe says about the first video stream.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInfo {
    pub width: u32,
    pub height: u32,
    pub duration_s: Option<f64>,
    /// Frames counted (`-count_packets`), asked for only when the duration is unknown.
    pub packets: Option<u64>,
}

/// Parses `ffprobe -of json -show_entries format=duration:stream=width,height,duration`.
/// Pure; `None` when there is no video stream with dimensions.
pub fn parse_probe(json: &[u8]) -> Option<VideoInfo> {
    let v: serde_json::Value = serde_json::from_slice(json).ok()?;
    let stream = v.get("streams")?.as_array()?.first()?;
    let width = u32::try_from(stream.get("width")?.as_u64()?).ok()?;
    let height = u32::try_from(stream.get("height")?.as_u64()?).ok()?;
    let seconds = |x: Option<&serde_json::Value>| x.and_then(|d| d.as_str()).and_then(|d| d.parse::<f64>().ok()).filter(|d| d.is_finite() && *d > 0.0);
    let duration_s = seconds(stream.get("duration")).or_else(|| seconds(v.get("format").and_then(|f| f.get("duration"))));
    let packets = stream.get("nb_read_packets").and_then(|p| p.as_str()).and_then(|p| p.parse::<u64>().ok()).filter(|p| *p > 0);
    (width > 0 && height > 0).then_some(VideoInfo { width, height, duration_s, packets })
}

fn probe(decoder: &VideoDecoder, input: &Path, deadline: Instant) -> Result<VideoInfo, VideoError> {
    let run = |count_packets: bool| {
        let mut cmd = Command::new(&decoder.ffprobe);
        cmd.args(["-v", "error"]);
        input_hardening(&mut cmd);
        if count_packets {
            cmd.arg("-count_packets");
        }
        cmd.args(["-select_streams", "v:0", "-show_entries", "format=duration:stream=width,height,duration,nb_read_packets", "-of", "json"])
            .arg(input);
        run_until(cmd, deadline)
    };
    let (ok, out, err) = run(false)?;
    if !ok {
        return Err(VideoError::Invalid(first_line(&err, "not a readable video")));
    }
    let info = parse_probe(&out).ok_or_else(|| VideoError::Invalid("no video stream".into()))?;
    if u64::from(info.width) * u64::from(info.height) > MAX_FRAME_PIXELS {
        return Err(VideoError::Invalid(format!("video frames are {}x{}; at most 4096x4096 pixels", info.width, info.height)));
    }
    if info.duration_s.is_some() {
        return Ok(info);
    }
    // No duration in the container (browser WebM, for example): count the frames, so the
    // samples still spread over the whole video.
    let (ok, out, err) = run(true)?;
    if !ok {
        return Err(VideoError::Invalid(first_line(&err, "not a readable video")));
    }
    parse_probe(&out).ok_or_else(|| VideoError::Invalid("no video stream".into()))
}

fn first_line(stderr: &str, fallback: &str) -> String {
    // ffmpeg prefixes lines with the temporary path; keep only the reason.
    stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.rsplit(": ").next().unwrap_or(l).trim().chars().take(200).collect())
        .unwrap_or_else(|| fallback.to_string())
}

/// The `-vf` chain for `n` frames spread over the video, longest side at most
/// `max_side`: by time when the duration is known, else every k-th of the counted
/// frames. Pure (tested directly).
pub fn filter_chain(n: usize, info: &VideoInfo, max_side: u32) -> String {
    let scale = format!("scale=w='min({max_side},iw)':h='min({max_side},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2");
    match (info.duration_s, info.packets) {
        // A little under n/duration so the last sample still falls inside the video.
        (Some(d), _) => format!("fps={:.6},{scale}", (n as f64 / d) * 0.999),
        (None, Some(p)) => format!("select='not(mod(n\\,{}))',{scale}", p.div_ceil(n.max(1) as u64).max(1)),
        // Nothing known: the first n frames (still bounded by -frames:v).
        (None, None) => scale,
    }
}

fn sample_video(decoder: &VideoDecoder, bytes: &[u8]) -> Result<Vec<SampledFrame>, VideoError> {
    let limits = &decoder.limits;
    if bytes.is_empty() {
        return Err(VideoError::Invalid("video is empty".into()));
    }
    if bytes.len() > limits.max_bytes {
        return Err(VideoError::Invalid(format!("video is {} bytes, the limit is {}", bytes.len(), limits.max_bytes)));
    }
    let deadline = Instant::now() + limits.timeout;
    let dir = tempfile::Builder::new()
        .prefix("idv-video-")
        .tempdir()
        .map_err(|e| VideoError::Failed(format!("temporary directory: {e}")))?;
    let input: PathBuf = dir.path().join("input");
    std::fs::write(&input, bytes).map_err(|e| VideoError::Failed(format!("temporary file: {e}")))?;
    let info = probe(decoder, &input, deadline)?;
    if let Some(d) = info.duration_s {
        if d > limits.max_duration_s {
            return Err(VideoError::Invalid(format!("video is {d:.1} s long, the limit is {:.0} s", limits.max_duration_s)));
        }
    }
    if info.duration_s.is_none() && info.packets.is_some_and(|p| p > MAX_PACKETS_UNKNOWN_DURATION) {
        return Err(VideoError::Invalid(format!("video of unknown duration with more than {MAX_PACKETS_UNKNOWN_DURATION} frames")));
    }
    let n = limits.sample_frames.max(1);
    let pattern = dir.path().join("frame-%03d.png");
    let mut cmd = Command::new(&decoder.ffmpeg);
    cmd.args(["-v", "error", "-nostdin"]);
    input_hardening(&mut cmd);
    cmd.arg("-i")
        .arg(&input)
        .args(["-map", "0:v:0", "-an", "-sn", "-dn", "-fps_mode", "vfr", "-vf", &filter_chain(n, &info, limits.max_side)])
        // Uncompressed PNG: the frames live for milliseconds in a private directory.
        .args(["-frames:v", &n.to_string(), "-f", "image2", "-c:v", "png", "-compression_level", "0"])
        .arg(&pattern);
    let (ok, _, err) = run_until(cmd, deadline)?;
    if !ok {
        return Err(VideoError::Invalid(first_line(&err, "the video stream cannot be decoded")));
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .map_err(|e| VideoError::Failed(e.to_string()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("frame-")))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(VideoError::Invalid("the video has no frames".into()));
    }
    let frame_limits = DecodeLimits { max_bytes: 64 * 1024 * 1024, ..DecodeLimits::default() };
    let step = info.duration_s.map(|d| d / n as f64).unwrap_or(0.0);
    names
        .iter()
        .take(n)
        .enumerate()
        .map(|(index, path)| {
            let png = std::fs::read(path).map_err(|e| VideoError::Failed(e.to_string()))?;
            let image = decode(&png, &frame_limits).map_err(|e| VideoError::Invalid(format!("frame {index}: {e}")))?;
            Ok(SampledFrame { index, time_s: index as f64 * step, image })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_output_is_parsed() -> Result<(), String> {
        let json = br#"{"programs":[],"streams":[{"width":640,"height":360,"duration":"2.400000"}],"format":{"duration":"2.433"}}"#;
        let info = parse_probe(json).ok_or("no info")?;
        assert_eq!(info, VideoInfo { width: 640, height: 360, duration_s: Some(2.4), packets: None });
        let json = br#"{"streams":[{"width":8,"height":6,"nb_read_packets":"95"}],"format":{}}"#;
        assert_eq!(parse_probe(json).and_then(|i| i.packets), Some(95));
        // Stream duration missing (MKV): the container's.
        let json = br#"{"streams":[{"width":8,"height":6}],"format":{"duration":"5.5"}}"#;
        assert_eq!(parse_probe(json).and_then(|i| i.duration_s), Some(5.5));
        Ok(())
    }

    #[test]
    fn probe_without_video_or_garbage_is_none() {
        assert_eq!(parse_probe(br#"{"streams":[],"format":{}}"#), None);
        assert_eq!(parse_probe(br#"{"streams":[{"width":0,"height":5}]}"#), None);
        assert_eq!(parse_probe(b"not json"), None);
        // A negative or NaN duration is "unknown", not a number to divide by.
        let v = parse_probe(br#"{"streams":[{"width":2,"height":2,"duration":"-3"}]}"#);
        assert_eq!(v.and_then(|i| i.duration_s), None);
    }

    #[test]
    fn filter_spreads_samples_over_the_duration() {
        let info = |d, p| VideoInfo { width: 8, height: 8, duration_s: d, packets: p };
        let f = filter_chain(12, &info(Some(24.0), None), 1280);
        assert!(f.starts_with("fps=0.499500,"), "{f}");
        assert!(f.contains("min(1280,iw)"));
        let f = filter_chain(12, &info(None, Some(95)), 640);
        assert!(f.starts_with("select='not(mod(n\\,8))',"), "{f}");
        assert!(!filter_chain(12, &info(None, None), 640).contains("fps="));
    }

    #[test]
    fn empty_and_oversize_input_are_refused_before_decoding() {
        let mut decoder = VideoDecoder::from_env();
        decoder.limits.max_bytes = 4;
        assert!(matches!(decoder.sample(b""), Err(VideoError::Invalid(_))));
        assert!(matches!(decoder.sample(b"12345"), Err(VideoError::Invalid(_))));
    }
}
