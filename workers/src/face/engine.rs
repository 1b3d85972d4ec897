//! The face pipeline as the workers use it: decode → detect (MTCNN) → portrait sanity →
//! align + embed (dlib, and SFace fused with it when installed) → passive liveness, on the
//! vision pool's threads (never on the async executor). Loaded once per process; when the
//! models are not installed, there is no engine and the face operations answer "not
//! performed".

use idv_vision::embed::{DlibEmbedder, Embedding, FaceEmbedder};
use idv_vision::liveness::{LivenessModel, LivenessParams, LivenessResult};
use idv_vision::matching::MatchConfig;
use idv_vision::pool::VisionPool;
use idv_vision::quality::{PortraitAnalyzer, PortraitSanity, PortraitVerdict, QualityParams};
use idv_vision::{decode_scaled, BoundingBox, DecodeLimits, Face, OrtRuntime};
use std::sync::Arc;

pub struct FaceEngine {
    mtcnn: idv_vision::detect::Mtcnn,
    embedder: DlibEmbedder,
    /// The second embedding, fused with dlib's (`matching::fused_distance`); `None` when
    /// its model is not installed: dlib alone, as before.
    sface: Option<idv_vision::sface::SFaceEmbedder>,
    /// The model id and version templates are tagged with: the fused model's when SFace
    /// is loaded, else dlib's.
    model_id: String,
    model_version: String,
    portrait: PortraitAnalyzer,
    liveness: Option<LivenessModel>,
    pool: VisionPool,
    video: idv_vision::video::VideoDecoder,
    pub match_config: MatchConfig,
}

/// What the pipeline found in one image.
pub struct FaceAnalysis {
    /// 0, 1, or more meaning "several" (portrait sanity's rule: faces under a third of
    /// the main face's height, in the background, do not count), whatever the sanity
    /// verdict (a dark photo of two people still holds two faces).
    pub face_count: usize,
    /// The main face.
    pub face: Option<Face>,
    /// Every face detected with a face score, largest (the main face) first, small
    /// background faces included.
    pub faces: Vec<Face>,
    pub sanity: PortraitSanity,
    /// Embedding of the main face, when there is exactly one: of [`FaceEngine::model`]
    /// (dlib's 128 numbers, followed by SFace's when fused).
    pub embedding: Option<Embedding>,
    pub liveness: LivenessResult,
    /// Head pose of the main face (68 landmarks when that model is installed, else 5).
    pub pose: Option<idv_vision::pose::HeadPose>,
    /// Mean RGB of the main face's inner region (flash liveness).
    pub face_rgb: Option<[f32; 3]>,
}

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("image cannot be decoded: {0}")]
    Decode(String),
    #[error("face pipeline failed: {0}")]
    Pipeline(String),
    /// Video files cannot be decoded in this deployment (no ffmpeg): "not performed".
    #[error("{0}")]
    VideoUnavailable(String),
}

impl FaceEngine {
    /// Load every model; `Err` (with the reason) when any required one is missing.
    pub fn load(threads: usize) -> Result<Arc<FaceEngine>, String> {
        // The runtime only loads; each model keeps what it needs (the ONNX environment is
        // process-wide), so the engine does not hold the runtime.
        let runtime = OrtRuntime::from_env();
        let mtcnn = idv_vision::detect::Mtcnn::load(&runtime).map_err(|e| e.to_string())?;
        let embedder = DlibEmbedder::load(&runtime, &idv_vision::models_dir()).map_err(|e| e.to_string())?;
        let sface = idv_vision::sface::SFaceEmbedder::load(&runtime)
            .map_err(|e| tracing::warn!(error = %e, "SFace not installed: faces are matched by dlib's embedding alone"))
            .ok();
        let (model_id, model_version) = match &sface {
            Some(s) => (idv_vision::matching::FUSED_MODEL_ID.to_string(), format!("{}+{}", embedder.model_version(), s.model_version())),
            None => (embedder.model_id().to_string(), embedder.model_version().to_string()),
        };
        let portrait = PortraitAnalyzer::load(&runtime);
        let liveness = LivenessModel::load(&runtime)
            .map_err(|e| tracing::warn!(error = %e, "passive liveness will be reported as not performed"))
            .ok();
        let pool = VisionPool::new(threads).map_err(|e| e.to_string())?;
        let video = idv_vision::video::VideoDecoder::from_env();
        if !video.available() {
            tracing::warn!("ffmpeg/ffprobe not found: uploaded video files will be reported as not performed");
        }
        Ok(Arc::new(FaceEngine {
            mtcnn,
            embedder,
            sface,
            model_id,
            model_version,
            portrait,
            liveness,
            pool,
            video,
            match_config: MatchConfig::default(),
        }))
    }

    /// The model id and version of this engine's embeddings (and of the templates it
    /// writes).
    pub fn model(&self) -> (&str, &str) {
        (&self.model_id, &self.model_version)
    }

    /// When the engine fuses, dlib's own model id and version: templates written before
    /// SFace was installed, still comparable with the dlib part of a fused embedding
    /// ([`dlib_part`]).
    pub fn legacy_model(&self) -> Option<(&str, &str)> {
        self.sface.as_ref().map(|_| (self.embedder.model_id(), self.embedder.model_version()))
    }

    pub async fn analyze(self: &Arc<Self>, bytes: bytes::Bytes) -> Result<FaceAnalysis, AnalysisError> {
        let engine = self.clone();
        self.pool
            .run(move || engine.analyze_blocking(&bytes))
            .await
            .map_err(|e| AnalysisError::Pipeline(e.to_string()))?
    }

    /// Runs other CPU-bound work of a face job (the ID card's sanity beside a comparison)
    /// on the vision pool, so it takes its turn between clients like the analyses do.
    pub async fn run_on_pool<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Result<T, AnalysisError> {
        self.pool.run(f).await.map_err(|e| AnalysisError::Pipeline(e.to_string()))
    }

    /// Samples an uploaded video file (vision/src/video.rs) and analyzes every sampled
    /// frame; the frames are separate pool jobs, so they spread over the pool's threads.
    /// Results in frame order.
    pub async fn analyze_video(self: &Arc<Self>, bytes: bytes::Bytes) -> Result<Vec<FaceAnalysis>, AnalysisError> {
        use idv_vision::video::VideoError;
        let engine = self.clone();
        let frames = self
            .pool
            .run(move || engine.video.sample(&bytes))
            .await
            .map_err(|e| AnalysisError::Pipeline(e.to_string()))?
            .map_err(|e| match e {
                VideoError::Unavailable(m) => AnalysisError::VideoUnavailable(m),
                VideoError::Invalid(m) => AnalysisError::Decode(m),
                VideoError::Failed(m) => AnalysisError::Pipeline(m),
            })?;
        let jobs = frames.into_iter().map(|frame| {
            let engine = self.clone();
            async move {
                let worker = engine.clone();
                engine.pool.run(move || worker.analyze_image(&frame.image)).await.map_err(|e| AnalysisError::Pipeline(e.to_string()))?
            }
        });
        futures::future::join_all(jobs).await.into_iter().collect()
    }

    fn analyze_blocking(&self, bytes: &[u8]) -> Result<FaceAnalysis, AnalysisError> {
        let (image, scale) = decode_scaled(bytes, &DecodeLimits::faces()).map_err(|e| AnalysisError::Decode(e.to_string()))?;
        let mut analysis = self.analyze_image(&image)?;
        // Analysis ran on the working-size image; boxes are reported in the upload's pixels.
        if scale != 1.0 {
            for f in analysis.faces.iter_mut().chain(analysis.face.iter_mut()) {
                f.bbox = scale_box(f.bbox, scale);
            }
        }
        Ok(analysis)
    }

    fn analyze_image(&self, image: &idv_vision::RgbImage) -> Result<FaceAnalysis, AnalysisError> {
        let detected = self
            .mtcnn
            .detect(image, &idv_vision::DetectParams::default())
            .map_err(|e| AnalysisError::Pipeline(e.to_string()))?;
        let params = QualityParams::default();
        // The models' view of the main face once: its 68 landmarks (when installed) serve
        // portrait sanity, the head pose and SFace's alignment.
        let detail = self.portrait.detail(image, &detected, &params);
        let sanity = idv_vision::quality::assess_portrait(image, &detected, &detail, &params);
        let landmarks = detail.landmarks;
        let faces: Vec<Face> = idv_vision::quality::counted_faces(&detected, &params).into_iter().cloned().collect();
        let face = faces.first().cloned();
        let face_count = count_faces(face.is_some(), sanity.measurements.other_large_faces);
        let (embedding, liveness) = match &face {
            Some(face) => {
                // SFace runs on a thread of its own beside dlib and the liveness model: one
                // caller's selfie then takes the time of the longer branch, not the sum
                // (the pool's threads are per request; this uses an idle core).
                let (dlib, sface, liveness) = std::thread::scope(|scope| {
                    let sface = self.sface.as_ref().map(|m| scope.spawn(|| m.embed(image, face, landmarks.as_ref())));
                    let dlib = self.embedder.embed_faces(image, std::slice::from_ref(face));
                    let liveness = match &self.liveness {
                        Some(m) => m.check(image, face, &LivenessParams::default()),
                        None => LivenessResult::NotPerformed { not_installed: true, reason: "liveness model not installed".into() },
                    };
                    let sface = sface.map(|h| h.join().unwrap_or_else(|_| Err(idv_vision::faceplugin::FaceModelError::UnexpectedOutput { model: "sface".into(), what: "a panic".into() })));
                    (dlib, sface, liveness)
                });
                let dlib = dlib.map_err(|e| AnalysisError::Pipeline(e.to_string()))?.into_iter().next();
                let embedding = match (sface, dlib) {
                    (Some(s), Some(d)) => {
                        let s = s.map_err(|e| AnalysisError::Pipeline(e.to_string()))?;
                        let mut vector = d.vector;
                        vector.extend_from_slice(&s.vector);
                        Some(Embedding { model_id: self.model_id.clone(), model_version: self.model_version.clone(), vector })
                    }
                    (_, d) => d,
                };
                (embedding, liveness)
            }
            None => (None, LivenessResult::NotPerformed { not_installed: false, reason: "no face".into() }),
        };
        let pose = face.as_ref().and_then(|f| idv_vision::pose::head_pose(f, landmarks.as_ref()));
        let face_rgb = face.as_ref().and_then(|f| idv_vision::flash::face_mean_rgb(image, f.bbox));
        Ok(FaceAnalysis { face_count, face, faces, sanity, embedding, liveness, pose, face_rgb })
    }
}

/// The dlib part of an embedding of [`FaceEngine::model`]: the first 128 numbers of a
/// fused vector, or the whole vector of dlib alone. Pure.
pub fn dlib_part(vector: &[f32]) -> &[f32] {
    &vector[..vector.len().min(idv_vision::matching::FUSED_PART)]
}

/// `b` in pixels `scale` times larger. Pure.
pub fn scale_box(b: BoundingBox, scale: f32) -> BoundingBox {
    let s = |v: i32| (v as f32 * scale).round() as i32;
    BoundingBox { top: s(b.top), right: s(b.right), bottom: s(b.bottom), left: s(b.left), angle: b.angle }
}

/// Faces that count for "one face" checks: the main face and the others at least a third
/// of its height (portrait sanity measures them whatever verdict it gives).
pub fn count_faces(has_main: bool, other_large_faces: usize) -> usize {
    if has_main {
        1 + other_large_faces
    } else {
        0
    }
}

/// `faces` of an image in mix_compare_faces_sync: every face found, main face first, with
/// ids `image{n}-face-{i}` (the main face is `-face-0`, the one compared).
pub fn faces_json(n: u8, faces: &[Face]) -> Vec<serde_json::Value> {
    faces
        .iter()
        .enumerate()
        .map(|(i, f)| serde_json::json!({"id": format!("image{n}-face-{i}"), "bounding_box": bbox_json(&f.bbox)}))
        .collect()
}

/// The spec's failure code for a sanity verdict that blocks authentication, if any.
pub fn blocking_verdict(v: &PortraitVerdict) -> Option<idv_schemas::FailureCode> {
    use idv_schemas::FailureCode::*;
    match v {
        PortraitVerdict::ImageTooBlur => Some(ImageTooBlur),
        PortraitVerdict::ImageTooDark => Some(ImageTooDark),
        PortraitVerdict::ImageTooBright => Some(ImageTooBright),
        PortraitVerdict::ImageHasNoFaces => Some(ImageHasNoFaces),
        _ => None,
    }
}

pub fn bbox_json(b: &BoundingBox) -> serde_json::Value {
    serde_json::json!({"top": b.top, "right": b.right, "bottom": b.bottom, "left": b.left, "angle": b.angle})
}

/// The spec's full liveness response (`images`, `is_live`, `request_id`, `score`,
/// `status`) for one image, or `None` when not performed. `images` holds the per-image
/// verdict (one image here; the spec does not show its fields).
pub fn liveness_json(l: &LivenessResult, request_id: &str, image_id: Option<&str>) -> Option<serde_json::Value> {
    match l {
        // An uncertain passive result has no `is_live` (no verdict either way) and says
        // so in `verdict` (docs/API.md).
        LivenessResult::Performed { verdict, score, .. } => {
            let mut image = serde_json::json!({"id": image_id, "score": score, "verdict": verdict});
            let mut check = serde_json::json!({
                "score": score, "verdict": verdict, "request_id": request_id, "status": "success",
            });
            if let Some(live) = l.is_live() {
                image["is_live"] = serde_json::json!(live);
                check["is_live"] = serde_json::json!(live);
            }
            check["images"] = serde_json::json!([image]);
            Some(check)
        }
        LivenessResult::NotPerformed { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(left: i32, width: i32) -> Face {
        let b = BoundingBox { top: 10, right: left + width, bottom: 10 + width, left, angle: 0 };
        Face { bbox: b, rect: [left as f32, 10.0, (left + width) as f32, (10 + width) as f32], landmarks5: [[0.0; 2]; 5], score: 0.99 }
    }

    #[test]
    fn boxes_scale_back_to_the_uploads_pixels() {
        let b = BoundingBox { top: 10, right: 210, bottom: 310, left: 100, angle: 3 };
        assert_eq!(scale_box(b, 2.5), BoundingBox { top: 25, right: 525, bottom: 775, left: 250, angle: 3 });
        assert_eq!(scale_box(b, 1.0), b);
    }

    #[test]
    fn every_face_is_listed_main_face_first() {
        let faces = faces_json(1, &[face(100, 200), face(400, 40)]);
        assert_eq!(faces.len(), 2);
        assert_eq!(faces[0]["id"], "image1-face-0");
        assert_eq!(faces[1]["id"], "image1-face-1");
        assert_eq!(faces[1]["bounding_box"]["left"], 400);
        assert!(faces_json(2, &[]).is_empty());
    }

    #[test]
    fn large_other_faces_count_whatever_the_verdict() {
        assert_eq!(count_faces(false, 0), 0);
        assert_eq!(count_faces(true, 0), 1);
        assert_eq!(count_faces(true, 2), 3);
    }
}
