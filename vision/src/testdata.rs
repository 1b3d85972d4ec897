//! Finding what `scripts/models.sh` installed: used by the tests, the benchmark and
//! readiness checks. Never panics.

use crate::registry::{EntryKind, Registry};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Ids of the manifest entries of the given kinds whose file is absent from `dir`.
pub fn missing(dir: &Path, kinds: &[EntryKind]) -> Vec<String> {
    match Registry::builtin() {
        Ok(r) => r
            .entries()
            .iter()
            .filter(|e| kinds.contains(&e.kind) && !dir.join(&e.dest).is_file())
            .map(|e| e.id.clone())
            .collect(),
        Err(e) => vec![e],
    }
}

/// Reads the installed test image `id` and checks its SHA-256 against the manifest.
pub fn read_test_image(dir: &Path, id: &str) -> Result<Vec<u8>, String> {
    let registry = Registry::builtin()?;
    let entry = registry
        .get(id)
        .filter(|e| e.kind == EntryKind::TestImage)
        .ok_or_else(|| format!("{id} is not a test image in models/manifest.json"))?;
    let path: PathBuf = dir.join(&entry.dest);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e} (run scripts/models.sh)", path.display()))?;
    if hex::encode(Sha256::digest(&bytes)) != entry.sha256 {
        return Err(format!("{}: SHA-256 does not match models/manifest.json (run scripts/models.sh)", path.display()));
    }
    Ok(bytes)
}
