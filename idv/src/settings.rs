//! Settings: defaults, then a TOML file (`--config`), then environment (`IDV_*`), then
//! flags. The defaults are the embedded deployment.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone, Default, Deserialize, clap::Args)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Address the HTTP tier listens on [default: 127.0.0.1:8080].
    #[arg(long, env = "IDV_LISTEN")]
    pub listen: Option<String>,
    /// Directory for embedded data (SQLite, blobs, master key) [default: ./idv-data].
    #[arg(long, env = "IDV_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Bus URL: memory:// (default) or kafka://host:port.
    #[arg(long, env = "IDV_BUS")]
    pub bus: Option<String>,
    /// Store URL: sqlite://PATH (default DATA_DIR/idv.db) or scylla://host:port/keyspace.
    #[arg(long, env = "IDV_STORE")]
    pub store: Option<String>,
    /// Blob URL: file://DIR (default DATA_DIR/blobs) or s3://bucket/prefix.
    #[arg(long, env = "IDV_BLOBS")]
    pub blobs: Option<String>,
    /// Master key (base64 of 32 bytes) sealing secrets and blobs at rest. Default: read
    /// or create DATA_DIR/master.key. Required to be the same on every distributed role.
    #[arg(long, env = "IDV_MASTER_KEY", hide_env_values = true)]
    pub master_key: Option<String>,
    /// Address of a `/metrics`, `/healthz` and `/readyz` listener for a process without the
    /// HTTP tier (`idv worker`, `idv scorer`); the ingest role serves them on its own
    /// address. Unset: no listener.
    #[arg(long, env = "IDV_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// Partitions per topic when topics are created [default: 8].
    #[arg(long, env = "IDV_PARTITIONS")]
    pub partitions: Option<u32>,
    /// Consumers per job topic in worker/scorer roles [default: number of CPUs].
    #[arg(long, env = "IDV_WORKER_CONCURRENCY")]
    pub worker_concurrency: Option<usize>,
    /// Sustained requests/s per access key [default: 50].
    #[arg(long, env = "IDV_RATE_LIMIT_PER_SEC")]
    pub rate_limit_per_sec: Option<f64>,
    /// Burst per access key [default: 100].
    #[arg(long, env = "IDV_RATE_LIMIT_BURST")]
    pub rate_limit_burst: Option<u32>,
    /// Milliseconds a synchronous call waits for its result before 408 [default: 30000].
    #[arg(long, env = "IDV_REQUEST_TIMEOUT_MS")]
    pub request_timeout_ms: Option<u64>,
    /// Accepted clock skew of X-TV-Timestamp in seconds [default: 300].
    #[arg(long, env = "IDV_TIMESTAMP_SKEW_SECS")]
    pub timestamp_skew_secs: Option<u64>,
    /// Request bodies held in memory at once by this ingest instance, in MiB; past it a
    /// request is answered 503 with Retry-After before its body is read [default: 256].
    #[arg(long, env = "IDV_BODY_BUDGET_MB")]
    pub body_budget_mb: Option<u64>,
    /// Behavioral policy file (JSON, docs/SCORING.md); empty: default mapping only.
    #[arg(long, env = "IDV_POLICY_FILE")]
    pub policy_file: Option<PathBuf>,
    /// Who gets the policy check: `*`, or comma-separated client ids / access key ids.
    #[arg(long, env = "IDV_POLICY_CLIENTS")]
    pub policy_clients: Option<String>,
    /// Fold scored sessions into the baseline when `is_update` is omitted [default: false].
    #[arg(long, env = "IDV_BASELINE_AUTO_UPDATE")]
    pub baseline_auto_update: Option<bool>,
    /// Whether the passive liveness model's "not live" fails face_auth (and selfie videos)
    /// with image_non_liveness; false reports it only [default: true]. The model's measured
    /// false reject rate on real video frames is high (docs/VISION.md).
    #[arg(long, env = "IDV_PASSIVE_LIVENESS_BLOCKS")]
    pub passive_liveness_blocks: Option<bool>,
    /// Consecutive failed face authentications (unmatched or image_non_liveness) after
    /// which a user is locked until face_auth_unlock; 0 never locks [default: 5].
    #[arg(long, env = "IDV_FACE_AUTH_MAX_FAILURES")]
    pub face_auth_max_failures: Option<u32>,
    /// Replay protection scope: `store` (claimed in the durable store, so a replay is
    /// refused after a restart and by every ingest instance) or `local` (this instance's
    /// memory only: a restart forgets) [default: `store`].
    #[arg(long, env = "IDV_REPLAY_GUARD")]
    pub replay_guard: Option<String>,
    /// Telecom operators for SIM verification (JSON; docs/API.md "SIM verification").
    /// Without it the SIM operations answer "not performed".
    #[arg(long, env = "IDV_TELCOS_FILE")]
    pub telcos_file: Option<PathBuf>,
    /// UIDAI's certificate or public key for the Aadhaar Secure QR's signature: PEM (one
    /// or more CERTIFICATE / PUBLIC KEY blocks: UIDAI re-keys, older cards keep the older
    /// key) or one DER certificate or public key. Read once at start. Without it a Secure
    /// QR is read with its signature answered `not_verified`.
    #[arg(long, env = "IDV_AADHAAR_CERT")]
    pub aadhaar_cert: Option<PathBuf>,
    /// Serve the demo page at `/demo/` with a demo Access Key usable only from loopback
    /// (docs/API.md "Demo page"); off by default. Every start revokes earlier demo keys.
    #[arg(long, env = "IDV_DEMO", num_args = 0..=1, default_missing_value = "true")]
    pub demo: Option<bool>,
    /// TOML file with any of these settings (flags and env win over it).
    #[arg(long, env = "IDV_CONFIG")]
    #[serde(skip)]
    pub config: Option<PathBuf>,
}

macro_rules! merge_fields {
    ($self:ident, $other:ident, $($f:ident),*) => { $( if $self.$f.is_none() { $self.$f = $other.$f; } )* };
}

impl Settings {
    /// Fill unset values from the `--config` file, if any.
    pub fn with_file(mut self) -> Result<Self, String> {
        let Some(path) = self.config.clone() else { return Ok(self) };
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: Settings = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        merge_fields!(self, file, listen, data_dir, bus, store, blobs, master_key, partitions, worker_concurrency,
            rate_limit_per_sec, rate_limit_burst, request_timeout_ms, timestamp_skew_secs, body_budget_mb, policy_file, policy_clients,
            baseline_auto_update, passive_liveness_blocks, face_auth_max_failures, replay_guard, telcos_file, aadhaar_cert, demo);
        Ok(self)
    }

    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(|| PathBuf::from("./idv-data"))
    }
    /// Whether the passive model's "not live" blocks (a setting's default, not a
    /// verdict: blocking is the safe side).
    pub fn passive_liveness_blocks(&self) -> bool {
        self.passive_liveness_blocks != Some(false)
    }
    pub fn listen(&self) -> String {
        self.listen.clone().unwrap_or_else(|| "127.0.0.1:8080".into())
    }
    pub fn bus_url(&self) -> String {
        self.bus.clone().unwrap_or_else(|| "memory://".into())
    }
    /// Whether replay protection claims signatures in the shared store.
    pub fn replay_guard_shared(&self) -> Result<bool, String> {
        match self.replay_guard.as_deref() {
            Some("store") => Ok(true),
            Some("local") => Ok(false),
            Some(other) => Err(format!("IDV_REPLAY_GUARD must be local or store, not {other:?}")),
            // Durable everywhere by default: an in-memory guard accepts a replay after a
            // restart within the timestamp window.
            None => Ok(true),
        }
    }

    pub fn store_url(&self) -> String {
        self.store.clone().unwrap_or_else(|| format!("sqlite://{}", self.data_dir().join("idv.db").display()))
    }
    pub fn blobs_url(&self) -> String {
        self.blobs.clone().unwrap_or_else(|| format!("file://{}", self.data_dir().join("blobs").display()))
    }
    pub fn partitions(&self) -> u32 {
        self.partitions.unwrap_or(8)
    }
    pub fn face_auth_max_failures(&self) -> u32 {
        self.face_auth_max_failures.unwrap_or(5)
    }
    pub fn worker_concurrency(&self) -> usize {
        self.worker_concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2))
    }

    pub fn ingest_config(&self) -> idv_ingest::IngestConfig {
        let mut c = idv_ingest::IngestConfig::default();
        if let Some(v) = self.rate_limit_per_sec {
            c.rate_limit_per_sec = v;
        }
        if let Some(v) = self.rate_limit_burst {
            c.rate_limit_burst = v;
        }
        if let Some(v) = self.request_timeout_ms {
            c.request_timeout = Duration::from_millis(v);
        }
        if let Some(mb) = self.body_budget_mb {
            c.body_budget_bytes = usize::try_from(mb.saturating_mul(1024 * 1024)).unwrap_or(usize::MAX);
        }
        if let Some(v) = self.timestamp_skew_secs {
            c.timestamp_skew = Duration::from_secs(v);
        }
        c
    }

    /// The scorer's configuration; a policy file that does not load is an error at start.
    pub fn behavior_config(&self) -> Result<idv_scorer::handler::BehaviorConfig, String> {
        let policies = match &self.policy_file {
            Some(path) => idv_scoring::policy::PolicySet::from_file(path).map_err(|e| format!("{}: {e}", path.display()))?,
            None => idv_scoring::policy::PolicySet::empty(),
        };
        Ok(idv_scorer::handler::BehaviorConfig {
            policies: std::sync::Arc::new(policies),
            policy_scope: idv_scorer::handler::PolicyScope::parse(self.policy_clients.as_deref().unwrap_or("")),
            auto_update_baseline: self.baseline_auto_update.unwrap_or(false),
        })
    }

    /// The Aadhaar Secure QR signing key(s) from `IDV_AADHAAR_CERT`, if set; a file that
    /// does not load is an error at start (not a silent `not_verified` on every card).
    pub fn aadhaar_keys(&self) -> Result<Option<std::sync::Arc<idv_workers::card::UidaiKeys>>, String> {
        let Some(path) = &self.aadhaar_cert else { return Ok(None) };
        let bytes = std::fs::read(path).map_err(|e| format!("IDV_AADHAAR_CERT {}: {e}", path.display()))?;
        let keys = idv_workers::card::UidaiKeys::from_bytes(&bytes).map_err(|e| format!("IDV_AADHAAR_CERT {}: {e}", path.display()))?;
        Ok(Some(std::sync::Arc::new(keys)))
    }

    /// The sealer over the master key (secrets, key pairs, blobs and baselines at rest).
    pub fn sealer(&self) -> Result<idv_crypto::sealed::Sealer, String> {
        idv_crypto::sealed::Sealer::new(1, &self.master_key()?).map_err(|e| e.to_string())
    }

    /// The master key: from settings, else DATA_DIR/master.key (created, mode 0600).
    pub fn master_key(&self) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let decode = |s: &str| {
            base64::engine::general_purpose::STANDARD
                .decode(s.trim())
                .map_err(|e| format!("master key is not base64: {e}"))
                .and_then(|k| if k.len() == 32 { Ok(k) } else { Err("master key must be 32 bytes".to_string()) })
        };
        if let Some(k) = &self.master_key {
            return decode(k);
        }
        let path = self.data_dir().join("master.key");
        if path.exists() {
            return decode(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
        }
        let key = idv_crypto::random_bytes(32);
        write_private(&path, &base64::engine::general_purpose::STANDARD.encode(&key))?;
        Ok(key)
    }
}

fn write_private(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts.open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    std::io::Write::write_all(&mut f, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_embedded() {
        let s = Settings { data_dir: Some("/tmp/x".into()), ..Default::default() };
        assert_eq!(s.listen(), "127.0.0.1:8080");
        assert_eq!(s.bus_url(), "memory://");
        assert_eq!(s.store_url(), "sqlite:///tmp/x/idv.db");
        assert_eq!(s.blobs_url(), "file:///tmp/x/blobs");
    }

    #[test]
    fn file_fills_only_unset_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idv.toml");
        std::fs::write(&path, "listen = \"0.0.0.0:9000\"\nbus = \"kafka://k:9092\"\n").unwrap();
        let s = Settings { bus: Some("memory://".into()), config: Some(path), ..Default::default() }.with_file().unwrap();
        assert_eq!(s.listen(), "0.0.0.0:9000");
        assert_eq!(s.bus_url(), "memory://", "flags/env win over the file");
    }

    #[test]
    fn face_auth_lockout_defaults_to_five_and_can_be_set() {
        assert_eq!(Settings::default().face_auth_max_failures(), 5);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idv.toml");
        std::fs::write(&path, "face_auth_max_failures = 3\n").unwrap();
        let s = Settings { config: Some(path), ..Default::default() }.with_file().unwrap();
        assert_eq!(s.face_auth_max_failures(), 3);
    }

    #[test]
    fn master_key_is_created_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings { data_dir: Some(dir.path().into()), ..Default::default() };
        let k1 = s.master_key().unwrap();
        assert_eq!(k1, s.master_key().unwrap());
        assert!(Settings { master_key: Some("short".into()), ..Default::default() }.master_key().is_err());
    }
}
