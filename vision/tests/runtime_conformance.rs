//! The ModelRuntime conformance suite on the ONNX Runtime implementation.

mod common;

use idv_vision::conformance;
use idv_vision::runtime::ModelRuntime;
use idv_vision::{OrtConfig, OrtRuntime};
use std::path::Path;
use std::sync::Arc;

fn make(dir: &Path) -> Arc<dyn ModelRuntime> {
    let mut cfg = OrtConfig::with_models_dir(dir);
    // Two sessions per model even on one core, so the concurrency check contends for them.
    cfg.sessions_per_model = 2;
    Arc::new(OrtRuntime::new(cfg))
}

#[test]
fn ort_runtime_without_models() {
    conformance::run_without_models(&make);
}

#[test]
fn ort_runtime_with_models() {
    let Some(dir) = common::models_or_skip("ort_runtime_with_models") else { return };
    conformance::run_with_models(&make, &dir);
}
