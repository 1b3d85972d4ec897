//! The model runtime abstraction: load a model by registry id, run it on f32 tensors.
//! [`crate::ort_runtime::OrtRuntime`] is the implementation; [`crate::conformance`] is the
//! one suite every implementation must pass.

use ndarray::{ArrayD, ArrayViewD};
use std::path::PathBuf;
use std::sync::Arc;

/// Why a model could not be loaded or run. `NotInstalled` and `RuntimeUnavailable` are
/// deployment problems: callers answer "not performed" ([`ModelError::is_not_installed`]).
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("unknown model {0}: not in models/manifest.json")]
    UnknownModel(String),
    #[error("model {id} not installed: run scripts/models.sh ({} {reason})", path.display())]
    NotInstalled { id: String, path: PathBuf, reason: String },
    #[error("ONNX Runtime not available: run scripts/models.sh or set ORT_DYLIB_PATH ({0})")]
    RuntimeUnavailable(String),
    #[error("model registry: {0}")]
    Registry(String),
    #[error("model {id}: bad input: {reason}")]
    BadInput { id: String, reason: String },
    #[error("model {id}: inference failed: {reason}")]
    Inference { id: String, reason: String },
}

impl ModelError {
    /// True when the model files or the runtime library are absent or wrong on this
    /// machine: the operation was not performed, no verdict can be given.
    pub fn is_not_installed(&self) -> bool {
        matches!(self, ModelError::NotInstalled { .. } | ModelError::RuntimeUnavailable(_))
    }
}

/// A loaded model. `run` may be called from many threads at once; implementations
/// bound the concurrency themselves (a session pool) and block until a session is free.
pub trait Model: Send + Sync {
    /// Registry id, e.g. `mtcnn-pnet`.
    fn id(&self) -> &str;
    /// Registry version (the version of the package that ships it).
    fn version(&self) -> &str;
    /// Input names in the model's order; `run` takes one tensor per input, in this order.
    fn input_names(&self) -> &[String];
    /// Output names in the model's order; `run` returns one tensor per output, in this order.
    fn output_names(&self) -> &[String];
    /// Runs inference. Blocking and CPU-bound: never call it on an async executor thread.
    fn run(&self, inputs: &[ArrayViewD<'_, f32>]) -> Result<Vec<ArrayD<f32>>, ModelError>;
}

/// Loads models by registry id (`models/manifest.json`) from the models dir.
pub trait ModelRuntime: Send + Sync {
    /// Loads (or returns the already-loaded) model `id`. Cheap after the first call.
    fn load(&self, id: &str) -> Result<Arc<dyn Model>, ModelError>;
}
