//! The one conformance suite every [`ModelRuntime`] implementation runs (like
//! `idv_bus::conformance`). It panics on failure: it is test code, called from tests.
//!
//! [`run_without_models`] needs nothing installed; [`run_with_models`] needs the MTCNN
//! networks that `scripts/models.sh` installs, and uses them as small real models.

use crate::registry::{ids, EntryKind, Registry};
use crate::runtime::{Model, ModelError, ModelRuntime};
use ndarray::{ArrayD, ArrayViewD, IxDyn};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Makes a runtime that loads from the given models dir.
pub type Factory<'a> = &'a dyn Fn(&Path) -> Arc<dyn ModelRuntime>;

fn scratch_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!("idv-vision-{tag}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

/// Checks that need no installed model.
pub fn run_without_models(make: Factory<'_>) {
    let registry = Registry::builtin().expect("manifest");
    let empty = scratch_dir("empty");
    let rt = make(&empty);

    // Unknown ids, and registry entries that are not models, are refused by name.
    for id in ["no-such-model", ids::ONNXRUNTIME, "testimg-fr-obama"] {
        match rt.load(id) {
            Err(ModelError::UnknownModel(got)) => assert_eq!(got, id),
            Err(other) => panic!("load({id}): expected UnknownModel, got {other}"),
            Ok(_) => panic!("load({id}) succeeded"),
        }
    }

    // A model that is not installed: a clear error that callers map to "not performed".
    match rt.load(ids::MTCNN_PNET) {
        Err(e) => {
            assert!(e.is_not_installed(), "{e}");
            let msg = e.to_string();
            assert!(msg.contains("model mtcnn-pnet not installed: run scripts/models.sh"), "{msg}");
        }
        Ok(_) => panic!("loaded a model from an empty dir"),
    }

    // A file that does not match the manifest is not loaded.
    let entry = registry.get(ids::MTCNN_PNET).expect("pnet in manifest");
    assert_eq!(entry.kind, EntryKind::Model);
    let bad = empty.join(&entry.dest);
    std::fs::create_dir_all(bad.parent().expect("dest has a parent")).expect("mkdir");
    std::fs::write(&bad, b"not an onnx model").expect("write");
    match make(&empty).load(ids::MTCNN_PNET) {
        Err(e) => assert!(e.is_not_installed(), "{e}"),
        Ok(_) => panic!("loaded a file whose hash is wrong"),
    }
    let _ = std::fs::remove_dir_all(&empty);
}

fn zeros(shape: &[usize]) -> ArrayD<f32> {
    ArrayD::zeros(IxDyn(shape))
}

/// A deterministic, non-constant input.
fn pattern(shape: &[usize], seed: u32) -> ArrayD<f32> {
    let mut k = seed;
    ArrayD::from_shape_fn(IxDyn(shape), |_| {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        ((k >> 16) % 256) as f32 / 128.0 - 1.0
    })
}

fn run(m: &dyn Model, inputs: &[ArrayD<f32>]) -> Result<Vec<ArrayD<f32>>, ModelError> {
    let views: Vec<ArrayViewD<'_, f32>> = inputs.iter().map(|a| a.view()).collect();
    m.run(&views)
}

fn expect_bad_input(m: &dyn Model, inputs: &[ArrayD<f32>], what: &str) {
    match run(m, inputs) {
        Err(ModelError::BadInput { id, .. }) => assert_eq!(id, m.id()),
        Err(other) => panic!("{what}: expected BadInput, got {other}"),
        Ok(_) => panic!("{what}: accepted"),
    }
}

/// Checks against the installed models in `models_dir`.
pub fn run_with_models(make: Factory<'_>, models_dir: &Path) {
    let registry = Registry::builtin().expect("manifest");
    let rt = make(models_dir);

    // Loading: id and version from the registry, names from the model, cached.
    let pnet = rt.load(ids::MTCNN_PNET).expect("load pnet");
    let entry = registry.get(ids::MTCNN_PNET).expect("pnet in manifest");
    assert_eq!((pnet.id(), pnet.version()), (entry.id.as_str(), entry.version.as_str()));
    assert_eq!(pnet.input_names().len(), 1);
    assert_eq!(pnet.output_names().len(), 2);
    let again = rt.load(ids::MTCNN_PNET).expect("load pnet again");
    assert_eq!(again.id(), pnet.id());

    // Dynamic spatial size and batch: outputs in the model's order and shapes.
    let out = run(pnet.as_ref(), &[zeros(&[2, 30, 20, 3])]).expect("run pnet");
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].shape(), &[2, 10, 5, 4]);
    assert_eq!(out[1].shape(), &[2, 10, 5, 2]);
    for p in out[1].exact_chunks(IxDyn(&[1, 1, 1, 2])) {
        let s: f32 = p.iter().sum();
        assert!((s - 1.0).abs() < 1e-4, "softmax sums to {s}");
    }

    // Bad input is an error, never a panic or a crash in the runtime.
    let rnet = rt.load(ids::MTCNN_RNET).expect("load rnet");
    expect_bad_input(rnet.as_ref(), &[zeros(&[1, 23, 24, 3])], "wrong fixed dimension");
    expect_bad_input(rnet.as_ref(), &[zeros(&[24, 24, 3])], "wrong rank");
    expect_bad_input(rnet.as_ref(), &[zeros(&[0, 24, 24, 3])], "empty batch");
    expect_bad_input(rnet.as_ref(), &[], "no input");
    expect_bad_input(rnet.as_ref(), &[zeros(&[1, 24, 24, 3]), zeros(&[1, 24, 24, 3])], "two inputs");
    // P-Net needs at least 12×12; smaller is a runtime error, not a crash.
    match run(pnet.as_ref(), &[zeros(&[1, 5, 5, 3])]) {
        Err(ModelError::BadInput { .. } | ModelError::Inference { .. }) => {}
        Err(other) => panic!("tiny pnet input: {other}"),
        Ok(out) => assert!(out.iter().all(|o| o.is_empty()), "tiny pnet input gave {:?}", out[0].shape()),
    }

    // A non-contiguous view gives the same result as its contiguous copy.
    let a = pattern(&[1, 24, 24, 3], 7);
    let t = a.clone().permuted_axes(IxDyn(&[0, 2, 1, 3]));
    let t_contig = t.as_standard_layout().into_owned();
    let via_view = rnet.run(&[t.view()]).expect("run on a permuted view");
    let via_copy = run(rnet.as_ref(), &[t_contig]).expect("run on a copy");
    assert_eq!(via_view, via_copy);

    // Concurrency: many threads, distinct inputs; each gets exactly its own answer.
    let inputs: Vec<ArrayD<f32>> = (0..8).map(|s| pattern(&[3, 24, 24, 3], s)).collect();
    let expected: Vec<Vec<ArrayD<f32>>> = inputs.iter().map(|i| run(rnet.as_ref(), std::slice::from_ref(i)).expect("run")).collect();
    std::thread::scope(|s| {
        for t in 0..8 {
            let (rnet, inputs, expected) = (&rnet, &inputs, &expected);
            s.spawn(move || {
                for r in 0..10 {
                    let k = (t + r) % inputs.len();
                    let got = run(rnet.as_ref(), std::slice::from_ref(&inputs[k])).expect("concurrent run");
                    assert_eq!(got, expected[k], "thread {t} run {r}: result differs");
                }
            });
        }
    });
}
