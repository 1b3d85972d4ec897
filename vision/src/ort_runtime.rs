//! [`ModelRuntime`] over ONNX Runtime (`ort` 2.0.0-rc.15, `load-dynamic`).
//!
//! Threads: each model gets a pool of `sessions_per_model` sessions (default: the number
//! of cores), each running with `intra_threads` intra-op threads (default 1) and one
//! inter-op thread, spinning disabled. So one model never runs more than
//! `sessions_per_model` inferences at once and never uses more than
//! `sessions_per_model × intra_threads` threads; a caller that finds every session busy
//! blocks until one is free. One intra-op thread is the default because MTCNN's small
//! convolutions were measured slower on 2 threads than on 1 on the project's 2-core
//! machines (docs/VISION.md); throughput comes from running requests side by side.
//! `Session::run` needs `&mut Session`, hence one mutex per session.

use crate::registry::{ids, models_dir, EntryKind, Registry};
use crate::runtime::{Model, ModelError, ModelRuntime};
use ndarray::{ArrayD, ArrayViewD, CowArray};
use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::{TensorRef, ValueType};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// How the runtime finds files and sizes its pools.
#[derive(Debug, Clone)]
pub struct OrtConfig {
    /// Where `scripts/models.sh` installed the models.
    pub models_dir: PathBuf,
    /// The ONNX Runtime shared library. `None`: the manifest's runtime file in `models_dir`.
    pub dylib: Option<PathBuf>,
    /// Sessions per model: how many inferences of one model may run at once.
    pub sessions_per_model: usize,
    /// Intra-op threads per session.
    pub intra_threads: usize,
    /// Check each model file's SHA-256 against the manifest before loading it.
    pub verify_sha256: bool,
}

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).filter(|n: &usize| *n > 0)
}

impl OrtConfig {
    /// Defaults, overridden by `IDV_MODELS_DIR`, `ORT_DYLIB_PATH`, `IDV_VISION_SESSIONS`
    /// and `IDV_VISION_INTRA_THREADS`.
    pub fn from_env() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        OrtConfig {
            models_dir: models_dir(),
            dylib: std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()).map(PathBuf::from),
            sessions_per_model: env_usize("IDV_VISION_SESSIONS").unwrap_or(cores),
            intra_threads: env_usize("IDV_VISION_INTRA_THREADS").unwrap_or(1),
            verify_sha256: true,
        }
    }

    /// [`OrtConfig::from_env`] with another models dir.
    pub fn with_models_dir(dir: impl Into<PathBuf>) -> Self {
        OrtConfig { models_dir: dir.into(), ..OrtConfig::from_env() }
    }

    /// Intra-op threads for the model `id`: [`OrtConfig::intra_threads`], except SFace,
    /// which takes at least 2. It runs on its own thread beside dlib's embedding and the
    /// liveness model (workers' face engine) and is the longest of them (36 ms against
    /// 8 ms for dlib on one thread here); with two threads one selfie's analysis ends
    /// ~10 ms sooner on two cores, and a busy pool loses nothing (the work is the same).
    pub fn intra_threads_for(&self, id: &str) -> usize {
        if id == crate::registry::ids::SFACE {
            self.intra_threads.max(2)
        } else {
            self.intra_threads
        }
    }
}

/// ONNX Runtime allows one environment per process (and `ort` loads one library per
/// process), so every `OrtRuntime` shares it. It is created by the first runtime that
/// loads a model; a failed attempt (library missing) leaves it unset, so a later
/// attempt, after `scripts/models.sh`, can succeed.
static ENVIRONMENT: Mutex<Option<ort::environment::Environment>> = Mutex::new(None);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks cannot leave the data half-updated in a
    // way that matters (a session, a map insert), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn environment(cfg: &OrtConfig, registry: &Registry) -> Result<ort::environment::Environment, ModelError> {
    let mut env = lock(&ENVIRONMENT);
    if let Some(e) = env.as_ref() {
        return Ok(e.clone());
    }
    let installed = registry
        .get(ids::ONNXRUNTIME)
        .filter(|e| e.kind == EntryKind::Runtime)
        .ok_or_else(|| ModelError::Registry("no onnxruntime entry in models/manifest.json".into()))?;
    let (path, expected_hash) = match &cfg.dylib {
        Some(p) => (p.clone(), None),
        None => (cfg.models_dir.join(&installed.dest), Some(installed.sha256.as_str())),
    };
    // Checked here rather than left to `ort`: with a missing library `ort` would try
    // other paths and, on some code paths, panic; we want a plain error.
    if !path.is_file() {
        return Err(ModelError::RuntimeUnavailable(format!("{} not found", path.display())));
    }
    if let Some(expected) = expected_hash {
        let bytes = std::fs::read(&path).map_err(|e| ModelError::RuntimeUnavailable(format!("{}: {e}", path.display())))?;
        if sha256_hex(&bytes) != expected {
            return Err(ModelError::RuntimeUnavailable(format!(
                "{} does not match the SHA-256 in models/manifest.json",
                path.display()
            )));
        }
    }
    let builder = ort::init_from(&path).map_err(|e| ModelError::RuntimeUnavailable(e.to_string()))?;
    let built = builder
        .with_name("idv-vision")
        .build()
        .map_err(|e| ModelError::RuntimeUnavailable(format!("creating the ONNX Runtime environment: {e}")))?;
    tracing::info!(library = %path.display(), "ONNX Runtime loaded");
    *env = Some(built.clone());
    Ok(built)
}

/// The ONNX Runtime implementation of [`ModelRuntime`].
pub struct OrtRuntime {
    cfg: OrtConfig,
    loaded: Mutex<HashMap<String, Arc<OrtModel>>>,
}

impl OrtRuntime {
    pub fn new(cfg: OrtConfig) -> Self {
        OrtRuntime { cfg, loaded: Mutex::new(HashMap::new()) }
    }

    /// [`OrtConfig::from_env`].
    pub fn from_env() -> Self {
        Self::new(OrtConfig::from_env())
    }

    pub fn config(&self) -> &OrtConfig {
        &self.cfg
    }

    fn load_model(&self, id: &str) -> Result<OrtModel, ModelError> {
        let registry = Registry::builtin().map_err(ModelError::Registry)?;
        let entry = registry
            .get(id)
            .filter(|e| e.kind == EntryKind::Model)
            .ok_or_else(|| ModelError::UnknownModel(id.to_string()))?;
        let path = self.cfg.models_dir.join(&entry.dest);
        let not_installed = |reason: String| ModelError::NotInstalled { id: id.to_string(), path: path.clone(), reason };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_installed("file missing".into())),
            Err(e) => return Err(not_installed(e.to_string())),
        };
        if self.cfg.verify_sha256 && sha256_hex(&bytes) != entry.sha256 {
            return Err(not_installed("SHA-256 does not match models/manifest.json".into()));
        }
        let env = environment(&self.cfg, registry)?;
        let n = self.cfg.sessions_per_model.max(1);
        let mut sessions = Vec::with_capacity(n);
        for _ in 0..n {
            // Built from the bytes just hashed, so what runs is what was verified.
            let session = Session::builder(&env)
                .and_then(|b| b.with_optimization_level(GraphOptimizationLevel::Level3).map_err(Into::into))
                .and_then(|b| b.with_intra_threads(self.cfg.intra_threads_for(id).max(1)).map_err(Into::into))
                .and_then(|b| b.with_inter_threads(1).map_err(Into::into))
                // Idle pool threads must not spin: the cores are shared with other work.
                .and_then(|b| b.with_intra_op_spinning(false).map_err(Into::into))
                .and_then(|mut b| b.commit_from_memory(&bytes))
                .map_err(|e| not_installed(format!("ONNX Runtime cannot load it: {e}")))?;
            sessions.push(Mutex::new(session));
        }
        let first = lock(&sessions[0]);
        let input_names: Vec<String> = first.inputs().iter().map(|o| o.name().to_string()).collect();
        let input_shapes: Vec<Option<Vec<i64>>> = first
            .inputs()
            .iter()
            .map(|o| match o.dtype() {
                ValueType::Tensor { shape, .. } => Some(shape.iter().copied().collect()),
                _ => None,
            })
            .collect();
        let output_names: Vec<String> = first.outputs().iter().map(|o| o.name().to_string()).collect();
        drop(first);
        tracing::info!(model = id, version = %entry.version, sessions = n, intra_threads = self.cfg.intra_threads_for(id), "model loaded");
        Ok(OrtModel {
            id: id.to_string(),
            version: entry.version.clone(),
            input_names,
            input_shapes,
            output_names,
            sessions,
            next: AtomicUsize::new(0),
        })
    }
}

impl ModelRuntime for OrtRuntime {
    fn load(&self, id: &str) -> Result<Arc<dyn Model>, ModelError> {
        // Held while loading: two callers asking for the same model load it once.
        // Loading is rare (once per model per process), so serialising it costs nothing.
        let mut loaded = lock(&self.loaded);
        if let Some(m) = loaded.get(id) {
            return Ok(m.clone());
        }
        let model = Arc::new(self.load_model(id)?);
        loaded.insert(id.to_string(), model.clone());
        Ok(model)
    }
}

/// One model: a pool of sessions.
pub struct OrtModel {
    id: String,
    version: String,
    input_names: Vec<String>,
    /// Declared input shapes (-1 for a dynamic dimension), to reject bad input with a
    /// clear message before ONNX Runtime does.
    input_shapes: Vec<Option<Vec<i64>>>,
    output_names: Vec<String>,
    sessions: Vec<Mutex<Session>>,
    /// Round-robin start for the search for a free session.
    next: AtomicUsize,
}

impl OrtModel {
    fn bad_input(&self, reason: String) -> ModelError {
        ModelError::BadInput { id: self.id.clone(), reason }
    }

    fn check_inputs(&self, inputs: &[ArrayViewD<'_, f32>]) -> Result<(), ModelError> {
        if inputs.len() != self.input_names.len() {
            return Err(self.bad_input(format!("{} inputs given, the model takes {}", inputs.len(), self.input_names.len())));
        }
        for (i, (input, declared)) in inputs.iter().zip(&self.input_shapes).enumerate() {
            let name = &self.input_names[i];
            if input.is_empty() {
                return Err(self.bad_input(format!("input {name} is empty (shape {:?})", input.shape())));
            }
            if let Some(declared) = declared {
                let shape = input.shape();
                let fits = shape.len() == declared.len()
                    && shape.iter().zip(declared).all(|(&got, &want)| want < 0 || got as i64 == want);
                if !fits {
                    return Err(self.bad_input(format!("input {name} has shape {shape:?}, the model expects {declared:?}")));
                }
            }
        }
        Ok(())
    }

    /// A free session if there is one, else waits for the round-robin choice.
    fn session(&self) -> MutexGuard<'_, Session> {
        let n = self.sessions.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for k in 0..n {
            match self.sessions[(start + k) % n].try_lock() {
                Ok(s) => return s,
                Err(std::sync::TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {}
            }
        }
        lock(&self.sessions[start])
    }
}

impl Model for OrtModel {
    fn id(&self) -> &str {
        &self.id
    }
    fn version(&self) -> &str {
        &self.version
    }
    fn input_names(&self) -> &[String] {
        &self.input_names
    }
    fn output_names(&self) -> &[String] {
        &self.output_names
    }

    fn run(&self, inputs: &[ArrayViewD<'_, f32>]) -> Result<Vec<ArrayD<f32>>, ModelError> {
        self.check_inputs(inputs)?;
        let infer = |reason: String| ModelError::Inference { id: self.id.clone(), reason };
        // ONNX Runtime reads contiguous row-major memory; copy only views that are not.
        let owned: Vec<CowArray<'_, f32, ndarray::IxDyn>> = inputs.iter().map(|v| v.as_standard_layout()).collect();
        let mut values: Vec<SessionInputValue<'_>> = Vec::with_capacity(owned.len());
        for a in &owned {
            let t = TensorRef::from_array_view(a).map_err(|e| infer(e.to_string()))?;
            values.push(t.into());
        }
        let mut session = self.session();
        let outputs = session.run(values.as_slice()).map_err(|e| infer(e.to_string()))?;
        // Copied out: the outputs borrow the session, which goes back to the pool here.
        let mut result = Vec::with_capacity(self.output_names.len());
        for name in &self.output_names {
            let value = outputs.get(name.as_str()).ok_or_else(|| infer(format!("output {name} missing")))?;
            let array = value.try_extract_array::<f32>().map_err(|e| infer(format!("output {name}: {e}")))?;
            result.push(array.to_owned());
        }
        Ok(result)
    }
}

/// The library path the runtime would use with this config (for messages and docs).
pub fn dylib_path(cfg: &OrtConfig) -> Option<PathBuf> {
    if let Some(p) = &cfg.dylib {
        return Some(p.clone());
    }
    let registry = Registry::builtin().ok()?;
    registry.get(ids::ONNXRUNTIME).map(|e| cfg.models_dir.join(&e.dest))
}
