//! Liveness evidence sent beside the selfie of face_auth / face_auth_register: selfie
//! videos (inline frames or uploaded files), gesture images and gesture videos (active
//! liveness), and flash frames (`selfie_type` flash*). Each piece is checked against the
//! selfie's identity; the outcome goes to `validate_faces_result.liveness_check`
//! (`videos`, `gestures`, `flash`) and any failure makes the request fail with
//! `image_non_liveness`. Rules and sampling: docs/VISION.md "Video input", "Active
//! liveness", "Flash liveness".
//!
//! `is_live` is a liveness verdict, never a default: it is true only when some liveness
//! method ran (the passive model on the selfie or on video frames, a gesture, flash) and
//! every one that ran passed. The selfie's person in every video frame is a consistency
//! check, not liveness: a video whose frames got no passive verdict is listed in
//! `liveness_check.not_performed`, and with nothing performed `is_live` is absent.

use crate::face::engine::{liveness_json, AnalysisError, FaceAnalysis};
use crate::face::ops::{Biometrics, Stop};
use idv_schemas::api::{GestureImage, GestureVideo, ImageData, Video};
use idv_schemas::{Envelope, ErrorKind, Group};
use idv_vision::flash::{self, FlashParams, FlashResult, FlashSample};
use idv_vision::liveness::LivenessResult;
use idv_vision::matching::MatchDecision;
use idv_vision::pose::{check_gesture, Gesture, GestureParams};
use idv_schemas::jobs::Job;
use idv_store::Store;
use serde_json::{json, Value};

/// Videos analyzed per request, `videos` and `gesture_videos` together, in request order;
/// the rest are listed as not analyzed (never a pass). Bounds one request's work: each
/// video is an ffmpeg run or 12 frame analyses (~35 ms each).
pub const MAX_VIDEOS_ANALYZED: usize = 5;
/// How long a flash colour sequence stays used for a (client, user): a recorded capture
/// replayed with its own colours within this time is refused.
pub const FLASH_SEQUENCE_MEMORY: std::time::Duration = std::time::Duration::from_secs(90 * 24 * 3600);
/// Frames analyzed per inline video, evenly spread (uploaded files: the decoder samples).
pub const MAX_INLINE_FRAMES: usize = 12;
/// Flash frames analyzed at most (flash_32 plus slack).
pub const MAX_FLASH_FRAMES: usize = 40;

/// The request's liveness inputs (face_auth and face_auth_register share them), and what
/// the flash check needs to remember used colour sequences.
pub struct LivenessInputs<'a> {
    pub gesture_faces: Option<&'a Vec<GestureImage>>,
    pub videos: Option<&'a Vec<Video>>,
    pub gesture_videos: Option<&'a Vec<GestureVideo>>,
    pub selfie_type: Option<&'a str>,
    pub store: &'a dyn Store,
    pub job: &'a Job,
    pub cus_user_id: &'a str,
}

/// [`LivenessInputs`] of a face_auth or face_auth_register request (the two request types
/// share these field names but not a type).
#[macro_export]
macro_rules! liveness_inputs {
    ($req:expr, $store:expr, $job:expr) => {
        $crate::face::evidence::LivenessInputs {
            gesture_faces: $req.gesture_faces.as_ref(),
            videos: $req.videos.as_ref(),
            gesture_videos: $req.gesture_videos.as_ref(),
            selfie_type: $req.selfie_type.as_deref(),
            store: $store,
            job: $job,
            cus_user_id: &$req.cus_user_id,
        }
    };
}

/// What the evidence showed: JSON for `liveness_check`, the liveness methods that ran
/// and did not, and the first failure.
#[derive(Default)]
pub struct Evidence {
    pub videos: Vec<Value>,
    pub gestures: Vec<Value>,
    pub flash: Option<Value>,
    /// `Some(reason)`: the request fails with image_non_liveness (history `result`).
    pub failed: Option<String>,
    /// Liveness methods that ran (named by field, or `flash`), with their own verdict.
    pub verdicts: Vec<(String, bool)>,
    /// Liveness methods that could not run: `{"method", "reason"}`.
    pub not_performed: Vec<Value>,
}

impl Evidence {
    fn fail(&mut self, reason: String) {
        if self.failed.is_none() {
            self.failed = Some(reason);
        }
    }

    fn verdict(&mut self, method: &str, live: bool) {
        self.verdicts.push((method.to_string(), live));
    }

    fn skipped(&mut self, method: &str, reason: impl Into<String>) {
        self.not_performed.push(json!({"method": method, "reason": reason.into()}));
    }

    /// The request's liveness verdict, with the selfie's passive result: `Some(false)`
    /// when any method that ran said not live or the evidence failed; `Some(true)` when
    /// at least one ran and all passed; `None` when none ran (not performed). A passive
    /// "not live" that does not block the request still makes it `Some(false)`.
    pub fn is_live(&self, passive: &LivenessResult) -> Option<bool> {
        let passive = passive.is_live();
        if self.failed.is_some() || passive == Some(false) || self.verdicts.iter().any(|(_, live)| !live) {
            Some(false)
        } else if passive.is_some() || !self.verdicts.is_empty() {
            Some(true)
        } else {
            None
        }
    }

    /// Writes `liveness_check` (the selfie's passive result when it ran, the evidence's
    /// sub-results, what was not performed) and `is_live` ([`Evidence::is_live`]) into
    /// `validate_faces_result`. With nothing performed `is_live` is absent and
    /// `liveness_check.status` is `not_performed` (spec: absent means not performed).
    pub fn write_into(&self, validate: &mut Value, request_id: &str, selfie_id: Option<&str>, passive: &LivenessResult) {
        let mut check = liveness_json(passive, request_id, selfie_id).unwrap_or_else(|| json!({"request_id": request_id, "status": "success"}));
        if !self.videos.is_empty() {
            check["videos"] = json!(self.videos);
        }
        if !self.gestures.is_empty() {
            check["gestures"] = json!(self.gestures);
        }
        if let Some(f) = &self.flash {
            check["flash"] = f.clone();
        }
        let mut not_performed = Vec::new();
        if let LivenessResult::NotPerformed { reason, .. } = passive {
            not_performed.push(json!({"method": "passive", "reason": reason}));
        }
        not_performed.extend(self.not_performed.iter().cloned());
        if !not_performed.is_empty() {
            check["not_performed"] = json!(not_performed);
        }
        let live = self.is_live(passive);
        match live {
            Some(live) => check["is_live"] = json!(live),
            // The passive check ran and was uncertain: performed, no verdict.
            None if passive.performed().is_some() => {
                if let Some(c) = check.as_object_mut() {
                    c.remove("is_live");
                }
            }
            None => {
                check["status"] = json!("not_performed");
                if let Some(c) = check.as_object_mut() {
                    c.remove("is_live");
                }
            }
        }
        if !validate.is_object() {
            *validate = json!({});
        }
        match live {
            Some(live) => validate["is_live"] = json!(live),
            None => {
                if let Some(v) = validate.as_object_mut() {
                    v.remove("is_live");
                }
            }
        }
        validate["liveness_check"] = check;
    }
}

/// Indices of `n` items, at most `k`, evenly spread and including the first and last.
pub fn spread(n: usize, k: usize) -> Vec<usize> {
    if n <= k {
        return (0..n).collect();
    }
    if k <= 1 {
        return vec![0];
    }
    let mut out: Vec<usize> = (0..k).map(|i| (i * (n - 1) + (k - 1) / 2) / (k - 1)).collect();
    out.dedup();
    out
}

/// A video's frames as analyzed, or why they could not be.
enum Frames {
    /// (position in the request's `frames`, or sample index for a file; analysis)
    Analyzed(Vec<(usize, FaceAnalysis)>),
    NotPerformed(String),
}

impl Biometrics {
    async fn video_frames(&self, group: Group, field: &str, video: &Video, limit: usize) -> Result<Frames, Stop> {
        if let Some(id) = &video.id {
            let Some(bytes) = self.blobs.get(id).await? else {
                return Err(Stop::Answer(Envelope::error(group, &ErrorKind::ImageNotFound { field: Some(format!("{field}.id")) })));
            };
            return match self.engine.analyze_video(bytes).await {
                Ok(frames) => Ok(Frames::Analyzed(frames.into_iter().enumerate().collect())),
                Err(AnalysisError::VideoUnavailable(m)) => Ok(Frames::NotPerformed(m)),
                Err(e) => Err(Self::analysis_stop(group, field, e)),
            };
        }
        let frames = video.frames.as_deref().unwrap_or_default();
        // Capture order: `index` when given (stable for ties and for frames without one).
        let mut order: Vec<usize> = (0..frames.len()).collect();
        // A frame without `index` sorts at its own position.
        order.sort_by_key(|&i| frames[i].index.unwrap_or(i as i64));
        let mut out = Vec::new();
        for k in spread(order.len(), limit) {
            let i = order[k];
            let image = ImageData { id: frames[i].id.clone(), ..ImageData::default() };
            out.push((i, self.analyze(group, &format!("{field}.frames[{i}]"), &image).await?));
        }
        Ok(Frames::Analyzed(out))
    }

    /// Whether `frame`'s face is the selfie's person (matched or unsure).
    fn same_person(&self, selfie: &FaceAnalysis, frame: &FaceAnalysis) -> bool {
        match (&selfie.embedding, &frame.embedding) {
            (Some(a), Some(b)) => idv_vision::matching::compare(a, b, &self.engine.match_config).is_ok_and(|m| m.decision != MatchDecision::Unmatched),
            _ => false,
        }
    }

    /// Checks every piece of liveness evidence against `selfie`.
    pub(crate) async fn liveness_evidence(&self, group: Group, inputs: &LivenessInputs<'_>, selfie: &FaceAnalysis) -> Result<Evidence, Stop> {
        let mut ev = Evidence::default();
        let videos: &[Video] = inputs.videos.map(Vec::as_slice).unwrap_or_default();
        let flash_colours = inputs.selfie_type.and_then(flash::required_colours);
        // The flash capture is videos[0] when its frames declare colours.
        let flash_video = flash_colours.and_then(|_| videos.first()).filter(|v| {
            v.frames.as_ref().is_some_and(|f| f.iter().any(|f| f.metadata.as_ref().is_some_and(|m| m.contains_key("flash_color"))))
        });
        if let Some(required) = flash_colours {
            match flash_video {
                Some(v) => self.check_flash(group, inputs, v, required, selfie, &mut ev).await?,
                None => {
                    let reason = "no flash frames: send videos[0].frames with metadata flash_color (docs/VISION.md)";
                    ev.skipped("flash", reason);
                    ev.flash = Some(json!({"status": "not_performed", "reason": reason}));
                }
            }
        }
        let skip = usize::from(flash_video.is_some());
        let mut budget = MAX_VIDEOS_ANALYZED;
        for (i, video) in videos.iter().enumerate().skip(skip) {
            let field = format!("videos[{i}]");
            if budget == 0 {
                ev.skipped(&field, "not analyzed: over the per-request video budget");
                ev.videos.push(json!({"field": field, "analyzed": false}));
                continue;
            }
            budget -= 1;
            let result = self.check_selfie_video(group, &field, video, selfie, &mut ev).await?;
            ev.videos.push(result);
        }
        for (i, g) in inputs.gesture_faces.map(Vec::as_slice).unwrap_or_default().iter().enumerate() {
            let Some(image) = g.images.first() else { continue };
            let field = format!("gesture_faces[{i}].images[0]");
            let frame = self.analyze(group, &field, image).await?;
            let result = self.check_gesture_frames(&g.gesture, &field, selfie, &[frame], &mut ev);
            ev.gestures.push(result);
        }
        for (i, g) in inputs.gesture_videos.map(Vec::as_slice).unwrap_or_default().iter().enumerate() {
            for (j, video) in g.videos.iter().enumerate() {
                let field = format!("gesture_videos[{i}].videos[{j}]");
                if budget == 0 {
                    ev.skipped(&field, "not analyzed: over the per-request video budget");
                    ev.gestures.push(json!({"gesture": g.gesture, "field": field, "analyzed": false}));
                    continue;
                }
                budget -= 1;
                match self.video_frames(group, &field, video, MAX_INLINE_FRAMES).await? {
                    Frames::Analyzed(frames) => {
                        let frames: Vec<FaceAnalysis> = frames.into_iter().map(|(_, a)| a).collect();
                        let result = self.check_gesture_frames(&g.gesture, &field, selfie, &frames, &mut ev);
                        ev.gestures.push(result);
                    }
                    Frames::NotPerformed(reason) => {
                        ev.skipped(&field, reason.clone());
                        ev.gestures.push(json!({"gesture": g.gesture, "field": field, "status": "not_performed", "reason": reason}));
                    }
                }
            }
        }
        Ok(ev)
    }

    /// A selfie video: a face in some frame, one face per frame, the selfie's person in
    /// every frame with a face (consistency), and passive liveness on the majority of
    /// those frames (the liveness verdict; without one the video's liveness is not
    /// performed, whatever the frames show).
    async fn check_selfie_video(&self, group: Group, field: &str, video: &Video, selfie: &FaceAnalysis, ev: &mut Evidence) -> Result<Value, Stop> {
        let frames = match self.video_frames(group, field, video, MAX_INLINE_FRAMES).await? {
            Frames::Analyzed(f) => f,
            Frames::NotPerformed(reason) => {
                ev.skipped(field, reason.clone());
                return Ok(json!({"field": field, "status": "not_performed", "reason": reason}));
            }
        };
        let with_face: Vec<&FaceAnalysis> = frames.iter().map(|(_, a)| a).filter(|a| a.face_count > 0).collect();
        let several = with_face.iter().any(|a| a.face_count > 1);
        let same_person = !with_face.is_empty() && with_face.iter().all(|a| self.same_person(selfie, a));
        // Frames with a passive verdict; uncertain frames vote neither way.
        let scores: Vec<(bool, f32)> = with_face.iter().filter_map(|a| Some((a.liveness.is_live()?, a.liveness.performed()?.1))).collect();
        let (is_live, score) = if scores.is_empty() {
            (None, None)
        } else {
            let live = scores.iter().filter(|(l, _)| *l).count();
            (Some(2 * live >= scores.len()), Some(scores.iter().map(|(_, s)| s).sum::<f32>() / scores.len() as f32))
        };
        let inconsistent = if with_face.is_empty() {
            Some(format!("no face in {field}"))
        } else if several {
            Some(format!("several faces in {field}"))
        } else if !same_person {
            Some(format!("{field} shows another person"))
        } else {
            None
        };
        if let Some(r) = &inconsistent {
            ev.fail(r.clone());
        }
        let reason = match (&inconsistent, is_live) {
            (Some(r), _) => Some(r.clone()),
            (None, Some(true)) => None,
            (None, Some(false)) => Some(format!("{field} is not live")),
            (None, None) => Some(format!("no liveness verdict on the frames of {field}")),
        };
        match is_live {
            Some(live) => {
                ev.verdict(field, live);
                if !live && self.passive_liveness_blocks {
                    ev.fail(format!("{field} is not live"));
                }
            }
            None => {
                let why = with_face
                    .iter()
                    .find_map(|a| match &a.liveness {
                        LivenessResult::NotPerformed { reason, .. } => Some(reason.clone()),
                        LivenessResult::Performed { verdict, .. } => Some(format!("the passive check was {verdict:?}").to_lowercase()),
                    })
                    .unwrap_or_else(|| "no face in its frames".into());
                ev.skipped(field, format!("no passive liveness verdict on its frames: {why}"));
            }
        }
        Ok(json!({
            "field": field, "frames": frames.len(), "frames_with_face": with_face.len(),
            "same_person": same_person, "is_live": is_live, "score": score,
            "passed": inconsistent.is_none() && is_live == Some(true), "reason": reason,
        }))
    }

    /// Active liveness: the requested head movement from the (frontal) selfie to some
    /// frame, by the selfie's person in every frame with a face.
    fn check_gesture_frames(&self, gesture: &str, field: &str, selfie: &FaceAnalysis, frames: &[FaceAnalysis], ev: &mut Evidence) -> Value {
        let Ok(expected) = gesture.parse::<Gesture>() else {
            ev.skipped(field, "unknown gesture");
            return json!({"gesture": gesture, "field": field, "status": "not_performed", "reason": "unknown gesture"});
        };
        let mut poses = vec![selfie.pose];
        poses.extend(frames.iter().map(|f| f.pose));
        let same: Vec<bool> = std::iter::once(true).chain(frames.iter().map(|f| f.embedding.is_none() || self.same_person(selfie, f))).collect();
        let someone_else = same.iter().any(|s| !s);
        let identity = |_reference: usize, frame: usize| same.get(frame).copied().unwrap_or(false);
        let verdict = check_gesture(expected, &poses, &GestureParams::default(), Some(&identity));
        let passed = verdict.passed() && !someone_else;
        ev.verdict(field, passed);
        if !passed {
            ev.fail(if someone_else { format!("{field} shows another person") } else { format!("gesture {gesture} not performed") });
        }
        json!({"gesture": gesture, "field": field, "frames": frames.len(), "performed": passed, "detail": format!("{verdict:?}")})
    }

    async fn check_flash(
        &self,
        group: Group,
        inputs: &LivenessInputs<'_>,
        video: &Video,
        required: usize,
        selfie: &FaceAnalysis,
        ev: &mut Evidence,
    ) -> Result<(), Stop> {
        let frames = video.frames.as_deref().unwrap_or_default();
        let declared: Vec<Option<[f32; 3]>> = frames
            .iter()
            .map(|f| f.metadata.as_ref().and_then(|m| m.get("flash_color")).and_then(Value::as_str).and_then(flash::parse_colour))
            .collect();
        if frames.iter().zip(&declared).any(|(f, d)| d.is_none() && f.metadata.as_ref().is_some_and(|m| m.contains_key("flash_color"))) {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid("videos[0].frames", "flash_color must be #RRGGBB"))));
        }
        let analyzed = match self.video_frames(group, "videos[0]", video, MAX_FLASH_FRAMES).await? {
            Frames::Analyzed(f) => f,
            Frames::NotPerformed(reason) => {
                ev.skipped("flash", reason.clone());
                ev.flash = Some(json!({"status": "not_performed", "reason": reason}));
                return Ok(());
            }
        };
        let mut samples = Vec::new();
        let mut someone_else = false;
        for (i, a) in &analyzed {
            let Some(colour) = declared.get(*i).copied().flatten() else { continue };
            let one_face = a.face_count == 1;
            if one_face && !self.same_person(selfie, a) {
                someone_else = true;
            }
            samples.push(FlashSample { declared: colour, face_rgb: if one_face { a.face_rgb } else { None } });
        }
        let result = flash::judge(&samples, required, &FlashParams::default());
        let mut value = serde_json::to_value(&result).unwrap_or(Value::Null);
        value["same_person"] = json!(!someone_else);
        // Flash frames were sent: from here on every outcome is a verdict. Too few frames
        // or a sequence that does not vary is a failed capture, not "not performed" (else
        // a client could switch the check off by sending a degenerate sequence).
        let failure = match (&result, someone_else) {
            (FlashResult::NotPerformed { reason }, _) => Some(format!("flash liveness: {reason}")),
            (_, true) => Some("the flash frames show another person".to_string()),
            (FlashResult::Performed { is_live: false, reason, .. }, false) => {
                Some(format!("flash liveness: {}", reason.as_deref().unwrap_or("not live")))
            }
            (FlashResult::Performed { is_live: true, .. }, false) => {
                // A live capture: its colour sequence is used up for this user, so the same
                // recording (frames and colours) replayed later is refused.
                let sequence: Vec<String> = samples.iter().map(|s| s.declared.map(|c| format!("{c:.3}")).join(",")).collect();
                if self.claim_flash_sequence(inputs, &sequence.join(";")).await? {
                    None
                } else {
                    Some("flash liveness: this colour sequence was already used (replayed capture)".to_string())
                }
            }
        };
        ev.verdict("flash", failure.is_none());
        if let Some(reason) = failure {
            value["is_live"] = json!(false);
            value["reason"] = json!(reason);
            ev.fail(reason);
        }
        ev.flash = Some(value);
        Ok(())
    }

    /// `true` when this request may use `sequence`: its first use for the (client, user),
    /// or a redelivery of the request that used it first (at-least-once delivery must not
    /// turn a success into a failure).
    async fn claim_flash_sequence(&self, inputs: &LivenessInputs<'_>, sequence: &str) -> Result<bool, Stop> {
        use sha2::Digest;
        let key = hex::encode(sha2::Sha256::digest(format!("{}\0{}\0{sequence}", inputs.job.client_id, inputs.cus_user_id)));
        Ok(inputs.store.claim_once(&format!("flash:{key}"), &inputs.job.request_id, FLASH_SEQUENCE_MEMORY).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::{spread, Evidence};
    use idv_vision::liveness::{LivenessResult, PassiveVerdict};
    use idv_vision::spoof_cues::SpoofCues;
    use serde_json::json;

    fn no_cues() -> SpoofCues {
        SpoofCues { periodic_peak: Some(0.6), black_level: 0.05 }
    }

    fn uncertain() -> LivenessResult {
        LivenessResult::Performed { verdict: PassiveVerdict::Uncertain, score: 0.3, probabilities: [0.3, 0.5, 0.2], other_order_live: None, cues: no_cues() }
    }

    #[test]
    fn an_uncertain_passive_result_is_performed_without_a_verdict() {
        let v = written(&Evidence::default(), &uncertain());
        assert!(v.get("is_live").is_none(), "{v}");
        assert_eq!(v["liveness_check"]["status"], "success", "{v}");
        assert_eq!(v["liveness_check"]["verdict"], "uncertain", "{v}");
        assert!(v["liveness_check"].get("not_performed").is_none(), "it ran: {v}");
        let mut ev = Evidence::default();
        ev.verdict("gesture_faces[0]", true);
        assert_eq!(ev.is_live(&uncertain()), Some(true), "active evidence decides");
    }

    fn passive(live: bool) -> LivenessResult {
        let verdict = if live { PassiveVerdict::Live } else { PassiveVerdict::Spoof };
        LivenessResult::Performed { verdict, score: if live { 0.9 } else { 0.1 }, probabilities: [0.0; 3], other_order_live: None, cues: no_cues() }
    }

    fn no_passive() -> LivenessResult {
        LivenessResult::NotPerformed { not_installed: true, reason: "liveness model not installed".into() }
    }

    fn written(ev: &Evidence, passive: &LivenessResult) -> serde_json::Value {
        let mut v = json!({"sanity_verdict": "good"});
        ev.write_into(&mut v, "req-1", Some("img-1"), passive);
        v
    }

    #[test]
    fn with_no_liveness_method_run_is_live_is_absent_and_the_reason_listed() {
        let v = written(&Evidence::default(), &no_passive());
        assert!(v.get("is_live").is_none(), "{v}");
        assert_eq!(v["liveness_check"]["status"], "not_performed");
        assert!(v["liveness_check"].get("is_live").is_none(), "{v}");
        assert_eq!(v["liveness_check"]["not_performed"][0], json!({"method": "passive", "reason": "liveness model not installed"}));
        assert_eq!(v["sanity_verdict"], "good", "the rest of validate_faces_result stays");
    }

    #[test]
    fn the_same_person_in_video_frames_is_not_liveness() {
        // A video whose frames show the selfie's person but got no liveness verdict.
        let mut ev = Evidence::default();
        ev.videos.push(json!({"field": "videos[0]", "same_person": true, "is_live": null, "passed": false}));
        ev.skipped("videos[0]", "no passive liveness verdict on its frames: liveness model not installed");
        let v = written(&ev, &no_passive());
        assert!(v.get("is_live").is_none(), "{v}");
        assert_eq!(v["liveness_check"]["status"], "not_performed");
        assert_eq!(v["liveness_check"]["not_performed"][1]["method"], "videos[0]");
        assert_eq!(ev.is_live(&no_passive()), None);
    }

    #[test]
    fn a_not_live_verdict_that_does_not_block_still_makes_is_live_false() {
        // The selfie judged not live (the request may go on when passive liveness does
        // not block): false, never true.
        let v = written(&Evidence::default(), &passive(false));
        assert_eq!((v["is_live"].as_bool(), v["liveness_check"]["is_live"].as_bool()), (Some(false), Some(false)));
        // The selfie live, a selfie video's frames not live (not blocking): false.
        let mut ev = Evidence::default();
        ev.verdict("videos[0]", false);
        let v = written(&ev, &passive(true));
        assert_eq!(v["is_live"], false, "{v}");
        assert_eq!(v["liveness_check"]["images"][0]["is_live"], true, "the selfie's own verdict stays in images");
    }

    #[test]
    fn is_live_is_true_only_when_a_method_ran_and_every_one_passed() {
        assert_eq!(Evidence::default().is_live(&passive(true)), Some(true));
        let mut ev = Evidence::default();
        ev.verdict("flash", true);
        let v = written(&ev, &no_passive());
        assert_eq!(v["is_live"], true, "flash passed, the passive model did not run: {v}");
        assert_eq!(v["liveness_check"]["status"], "success");
        assert_eq!(v["liveness_check"]["not_performed"][0]["method"], "passive");
        ev.verdict("gesture_faces[0].images[0]", false);
        assert_eq!(ev.is_live(&passive(true)), Some(false));
        let mut failed = Evidence::default();
        failed.fail("videos[0] shows another person".into());
        assert_eq!(failed.is_live(&passive(true)), Some(false), "a failed check is never live");
        assert_eq!(failed.is_live(&no_passive()), Some(false));
    }

    #[test]
    fn spread_keeps_ends_and_bounds_the_count() {
        assert_eq!(spread(5, 12), vec![0, 1, 2, 3, 4]);
        assert_eq!(spread(300, 12).len(), 12);
        assert_eq!(spread(300, 12).first(), Some(&0));
        assert_eq!(spread(300, 12).last(), Some(&299));
        assert_eq!(spread(13, 12), vec![0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]);
        assert_eq!(spread(10, 1), vec![0]);
        assert!(spread(0, 12).is_empty());
    }
}
