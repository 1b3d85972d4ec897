//! Vision models for face and card operations (issue #4): image decoding, the model
//! registry, the ONNX Runtime model runtime with per-model session pools, MTCNN face
//! detection, dlib alignment (shape predictor + face chips) and the dlib ResNet
//! embedding, and matching; OCR behind a trait (`ocr`, Tesseract with the `tesseract`
//! feature) and the MRZ reader on top of it (`mrz`). See `docs/VISION.md`.
//!
//! Everything here is synchronous and CPU-bound: call it from the vision worker pool
//! ([`pool::VisionPool`]) or `spawn_blocking`, never directly on an async executor thread.
//!
//! A model that is not installed is an error ([`ModelError::NotInstalled`], "model X not
//! installed: run scripts/models.sh") that callers turn into "not performed"; nothing in
//! this crate panics on missing files or bad input.

pub mod arcface;
pub mod attack_synth;
pub mod card_box;
pub mod card_sanity;
pub mod chip;
pub mod conformance;
pub mod deblur;
pub mod decode;
pub mod detect;
pub mod faceplugin;
pub mod flash;
pub mod landmarks;
pub mod liveness;
pub mod mrz;
pub mod ocr;
pub mod pose;
pub mod qr;
pub mod quality;
pub mod embed;
pub mod matching;
pub mod ort_runtime;
pub mod pool;
pub mod registry;
pub mod resize;
pub mod sface;
pub mod runtime;
pub mod shape_predictor;
pub mod spoof_cues;
pub mod splitmix;
pub mod testdata;
pub mod video;

pub use decode::{decode, decode_scaled, DecodeError, DecodeLimits};
pub use detect::{detect_faces, BoundingBox, DetectError, DetectParams, Face};
pub use embed::{dlib_rect_from_mtcnn, DlibEmbedder, EmbedError, Embedding, FaceEmbedder};
pub use matching::{compare, MatchConfig, MatchDecision, MatchResult};
pub use ort_runtime::{OrtConfig, OrtRuntime};
pub use registry::{models_dir, Registry};
pub use runtime::{Model, ModelError, ModelRuntime};
pub use shape_predictor::{DlibRect, ShapePredictor};

/// `image::RgbImage`, re-exported so callers need not depend on `image` themselves.
pub use image::RgbImage;
