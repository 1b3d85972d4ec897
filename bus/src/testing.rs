//! Test support (feature `testing`): a throwaway Kafka-protocol broker for tests.
//!
//! No Kafka or Redpanda server can run in this project's environments, so tests start
//! `tansu` (a Kafka-compatible broker with an in-memory store) on a free loopback port and
//! kill it when done. Other crates' tests use it too:
//!
//! ```no_run
//! # fn main() -> Result<(), String> {
//! let Some(broker) = idv_bus::testing::TansuBroker::start_unless_skipped()? else {
//!     return Ok(()); // IDV_SKIP_KAFKA=1
//! };
//! let url = broker.url.clone(); // kafka://127.0.0.1:PORT?producer.batch.num.messages=1
//! # Ok(()) }
//! ```
//!
//! Known tansu 0.6 behaviour: a group member that is not the leader has its JoinGroup held
//! for a fixed 3 s (`PAUSE_MS` in its group coordinator), so every rebalance that adds a
//! member, or replaces a departed one, takes about 3 s however short the client timeouts.
//!
//! A second one, which loses messages: a Fetch from an offset inside a record batch
//! returns only the batches that *start* at or after that offset (tansu-storage 0.6
//! dynostore `fetch`: `offsets.split_off(&offset)` over batch base offsets), so the rest
//! of the batch is skipped. That happens whenever a consumer resumes mid-batch: after a
//! commit, a rebalance or a pause. [`TansuBroker::url`] therefore makes the producer send
//! one record per batch (`producer.batch.num.messages=1`); any other tansu deployment
//! needs the same URL option. Apache Kafka returns the containing batch and needs nothing.
//!
//! A third, which costs latency: a Fetch waits its whole `fetch.wait.max.ms` (librdkafka's
//! default 500 ms) even when records arrive meanwhile, so every hop of a round trip took
//! ~500 ms (measured with `benches/src/bin/roundtrip.rs`: p50 504 ms, 63 req/s). The URL
//! lowers it to 10 ms (p50 43 ms, 744 req/s in the same run). Apache Kafka answers a
//! waiting Fetch as soon as data arrives, so production URLs leave the default.
//!
//! The binary is found via `IDV_TANSU_BIN`, else `$IDV_TOOLS_DIR/bin/tansu` (default
//! `$HOME/.cache/idv/tools/bin/tansu`, where `scripts/lib.sh` installs it), else `tansu` on
//! `PATH`. Install it with `cargo install tansu --locked --features dynostore,libsql
//! --root ~/.cache/idv/tools` (the default features lack the `memory://` store, and
//! `libsql` brings the `sqlite://` one that [`BrokerStorage::Sqlite`] restarts on).

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Env var naming the tansu binary.
pub const TANSU_BIN_ENV: &str = "IDV_TANSU_BIN";
/// Env var that, set to `1`, makes [`TansuBroker::start_unless_skipped`] skip.
pub const SKIP_ENV: &str = "IDV_SKIP_KAFKA";
/// Env var with the broker's `RUST_LOG` (default `warn`). Not inherited from the test's own
/// `RUST_LOG`: at `debug` tansu writes thousands of lines per request burst and slows down.
pub const LOG_ENV: &str = "IDV_TANSU_LOG";

/// How long the broker may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A running tansu broker, killed on drop.
pub struct TansuBroker {
    /// `kafka://127.0.0.1:PORT?producer.batch.num.messages=1&consumer.fetch.wait.max.ms=10`, for [`crate::open`]
    /// (the option works around tansu's mid-batch fetch bug, see the module docs).
    pub url: String,
    /// `127.0.0.1:PORT`, for raw clients.
    pub addr: SocketAddr,
    child: Child,
    log: PathBuf,
    bin: PathBuf,
    storage: BrokerStorage,
}

/// Where a test broker keeps its topics, offsets and groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerStorage {
    /// tansu's `memory://`: gone when the broker stops.
    Memory,
    /// tansu's `sqlite://` (built with the `libsql` feature) in this folder: a broker
    /// restarted on it has its data back.
    Sqlite(PathBuf),
}

impl TansuBroker {
    /// Where the tansu binary is, if anywhere.
    pub fn find_binary() -> Option<PathBuf> {
        if let Some(p) = std::env::var_os(TANSU_BIN_ENV).filter(|p| !p.is_empty()) {
            // An explicit setting wins, even if wrong: start() then reports it.
            return Some(PathBuf::from(p));
        }
        // Where scripts/lib.sh installs it: $IDV_TOOLS_DIR, default $HOME/.cache/idv/tools.
        let tools = std::env::var_os("IDV_TOOLS_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/idv/tools")));
        if let Some(p) = tools.map(|d| d.join("bin/tansu")).filter(|p| p.is_file()) {
            return Some(p);
        }
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path).map(|d| d.join("tansu")).find(|p| p.is_file())
    }

    /// `Ok(None)` when `IDV_SKIP_KAFKA=1` (the caller should print that it skipped),
    /// otherwise [`TansuBroker::start`].
    pub fn start_unless_skipped() -> Result<Option<TansuBroker>, String> {
        if std::env::var(SKIP_ENV).is_ok_and(|v| v == "1") {
            return Ok(None);
        }
        Self::start().map(Some)
    }

    /// Start a broker with an in-memory store on a free loopback port and wait until it
    /// accepts connections.
    pub fn start() -> Result<TansuBroker, String> {
        Self::start_with(BrokerStorage::Memory)
    }

    /// [`TansuBroker::start`] with the given storage.
    pub fn start_with(storage: BrokerStorage) -> Result<TansuBroker, String> {
        let bin = Self::find_binary().ok_or_else(|| {
            format!(
                "tansu broker binary not found (set {TANSU_BIN_ENV}, install it into \
                 $HOME/.cache/idv/tools/bin with `cargo install tansu --locked --features dynostore,libsql \
                 --root ~/.cache/idv/tools`, or put it on PATH); set {SKIP_ENV}=1 to skip Kafka tests"
            )
        })?;
        if !bin.is_file() {
            return Err(format!("tansu broker binary {} does not exist (from {TANSU_BIN_ENV}?)", bin.display()));
        }
        // The port is free when we look; another process could take it before tansu binds.
        // Then tansu exits, and we try another port.
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .and_then(|l| l.local_addr())
                .map_err(|e| format!("no free port: {e}"))?
                .port();
            match Self::start_once(&bin, port, &storage) {
                Ok(b) => return Ok(b),
                Err(e) => last_error = e,
            }
        }
        Err(last_error)
    }

    /// Kill the broker (SIGKILL: no flush, no goodbye to its clients).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Start the broker again on the same port and storage (after [`TansuBroker::kill`],
    /// or killing it first): clients reconnect to the address they know.
    pub fn restart(&mut self) -> Result<(), String> {
        self.kill();
        let port = self.addr.port();
        let deadline = Instant::now() + START_TIMEOUT;
        // The port was just released: binding it again can fail for a moment.
        loop {
            match Self::start_once(&self.bin, port, &self.storage) {
                Ok(mut fresh) => {
                    std::mem::swap(&mut self.child, &mut fresh.child);
                    // `fresh` now holds the dead child; its Drop reaps it and removes its log.
                    let _ = std::fs::copy(&fresh.log, &self.log);
                    return Ok(());
                }
                Err(e) if Instant::now() >= deadline => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }

    fn start_once(bin: &Path, port: u16, storage: &BrokerStorage) -> Result<TansuBroker, String> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listener = format!("tcp://{addr}");
        let log = std::env::temp_dir().join(format!("idv-tansu-{port}.log"));
        let out = std::fs::File::create(&log).map_err(|e| format!("create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
        let mut command = Command::new(bin);
        command.arg("broker").args(["--listener-url", &listener]).args(["--advertised-listener-url", &listener]);
        match storage {
            BrokerStorage::Memory => command.args(["--storage-engine", "memory://tansu/"]),
            // tansu resolves a sqlite:// path against its working directory.
            BrokerStorage::Sqlite(dir) => command.current_dir(dir).args(["--storage-engine", "sqlite://tansu.db"]),
        };
        let child = command
            .env("RUST_LOG", std::env::var(LOG_ENV).unwrap_or_else(|_| "warn".into()))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn();
        let child = match child {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_file(&log);
                return Err(format!("could not run {}: {e}", bin.display()));
            }
        };
        // From here on, Drop kills the child on every error path.
        // See the module docs for both options.
        let url = format!("kafka://{addr}?producer.batch.num.messages=1&consumer.fetch.wait.max.ms=10");
        let mut broker = TansuBroker { url, addr, child, log, bin: bin.to_path_buf(), storage: storage.clone() };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = broker.child.try_wait() {
                return Err(format!("tansu exited with {status} before listening; log:\n{}", broker.log_tail()));
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(broker);
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "tansu not listening on {addr} after {START_TIMEOUT:?}; log:\n{}",
                    broker.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The broker's log file (kept after a failed test, removed otherwise).
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// The last lines of the broker's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for TansuBroker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("tansu log kept at {}", self.log.display());
        } else {
            let _ = std::fs::remove_file(&self.log);
        }
    }
}
