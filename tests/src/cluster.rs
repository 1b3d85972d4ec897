//! The distributed deployment as an operator runs it: the `idv` binary started as separate
//! OS processes (`idv ingest`, `idv worker`, `idv scorer`) over a Kafka-protocol broker and
//! one shared store, each process killable with SIGKILL and restartable.
//!
//! The shared store is the embedded SQLite file in WAL mode, opened by every process of
//! this one host (SQLite's locking is per host: several hosts need ScyllaDB). Blobs are
//! the local directory beside it. Every process gets the same master key, as every role
//! of a deployment must.
//!
//! The binary is `IDV_BIN`, else `idv` beside the test executable's `deps/` folder (where
//! `cargo test --workspace` builds it, with the workspace's features: `.ci/run` turns
//! `idv/distributed` on, without which the roles refuse `kafka://`).

use crate::{Client, Credentials};
use base64::Engine as _;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A role of the `idv` binary, as its subcommand names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `idv serve`: every role in one process (the embedded deployment with `memory://`).
    Serve,
    Ingest,
    Worker,
    Scorer,
}

impl Role {
    fn serves_http(self) -> bool {
        matches!(self, Role::Serve | Role::Ingest)
    }

    fn subcommand(self) -> &'static str {
        match self {
            Role::Serve => "serve",
            Role::Ingest => "ingest",
            Role::Worker => "worker",
            Role::Scorer => "scorer",
        }
    }
}

/// One running role process; killed (SIGKILL) on drop.
pub struct RoleProcess {
    pub role: Role,
    /// Which instance of its role (0, 1, ...), for names and logs.
    pub index: usize,
    /// The HTTP address of an ingest process.
    pub addr: Option<SocketAddr>,
    child: Child,
    log: PathBuf,
}

impl RoleProcess {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The process's log (stdout and stderr), for failure messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// SIGKILL, as `kill -9` does: no drain, no commit, no flush.
    pub fn kill_9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for RoleProcess {
    fn drop(&mut self) {
        self.kill_9();
    }
}

/// Print a fault test's counts where `.ci/run`'s log shows them: straight to the process's
/// stderr, which the test harness does not capture (`println!` output of a passing test
/// is swallowed). `scripts/test.sh` repeats these lines in its closing summary.
pub fn report(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A throwaway broker for a test (`None` when `IDV_SKIP_KAFKA=1`); a broker that cannot
/// start fails the test.
#[cfg(feature = "kafka")]
pub async fn start_broker() -> Option<idv_bus::testing::TansuBroker> {
    tokio::task::spawn_blocking(idv_bus::testing::TansuBroker::start_unless_skipped)
        .await
        .expect("broker start task")
        .unwrap_or_else(|e| panic!("tansu broker: {e}"))
}

/// The `idv` binary the tests run as separate processes.
pub fn idv_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("IDV_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    // target/<profile>/deps/<test>-<hash> (a test) or target/<profile>/<bin> (a
    // benchmark binary) → target/<profile>/idv
    let exe = std::env::current_exe().expect("executable path");
    let mut dir = exe.parent().expect("target/<profile>");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir = dir.parent().unwrap_or(dir);
    }
    dir.join(format!("idv{}", std::env::consts::EXE_SUFFIX))
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).and_then(|l| l.local_addr()).expect("a free loopback port").port()
}

/// Separate role processes over one broker and one data directory.
pub struct Cluster {
    pub bin: PathBuf,
    pub bus_url: String,
    pub data_dir: PathBuf,
    master_key: [u8; 32],
    env: Vec<(String, String)>,
    pub processes: Vec<RoleProcess>,
    _tmp: tempfile::TempDir,
}

impl Cluster {
    /// A cluster with no processes yet over `bus_url`; `env` adds or overrides settings
    /// (`IDV_*`) for every process.
    pub fn new(bus_url: &str, env: &[(&str, &str)]) -> Cluster {
        let bin = idv_binary();
        assert!(
            bin.is_file(),
            "{} not found: build it with `cargo build -p idv --features distributed` or set IDV_BIN",
            bin.display()
        );
        let tmp = tempfile::tempdir().expect("tempdir");
        let master_key_bytes = rand::random::<[u8; 32]>();
        let master_key = crate::B64.encode(master_key_bytes);
        let mut all: Vec<(String, String)> = vec![
            ("IDV_BUS".into(), bus_url.into()),
            ("IDV_DATA_DIR".into(), tmp.path().display().to_string()),
            ("IDV_MASTER_KEY".into(), master_key),
            // Load tests send faster than the default per-key limit allows.
            ("IDV_RATE_LIMIT_PER_SEC".into(), "10000".into()),
            ("IDV_RATE_LIMIT_BURST".into(), "10000".into()),
            ("RUST_LOG".into(), "warn".into()),
        ];
        for (k, v) in env {
            all.retain(|(name, _)| name != k);
            all.push(((*k).into(), (*v).into()));
        }
        Cluster {
            bin,
            bus_url: bus_url.into(),
            data_dir: tmp.path().to_path_buf(),
            master_key: master_key_bytes,
            env: all,
            processes: Vec::new(),
            _tmp: tmp,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args).env_remove("IDV_CONFIG").envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Start one more process of `role`; an ingest process is returned once `/readyz`
    /// answers 200 (it has joined the bus and reached the store).
    pub async fn start(&mut self, role: Role) -> usize {
        self.start_listening(role, role.serves_http()).await
    }

    /// [`Cluster::start`]; with `listen`, a worker or scorer also gets `--metrics-listen`
    /// (its `/metrics` and `/readyz`), and is returned once it is ready.
    pub async fn start_listening(&mut self, role: Role, listen: bool) -> usize {
        let index = self.processes.iter().filter(|p| p.role == role).count();
        let log = self.data_dir.join(format!("{}-{index}-{}.log", role.subcommand(), self.processes.len()));
        let out = std::fs::File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        let mut cmd = self.command(&[role.subcommand()]);
        let addr = (listen || role.serves_http()).then(|| SocketAddr::from((Ipv4Addr::LOCALHOST, free_port())));
        if let Some(a) = addr {
            cmd.args([if role.serves_http() { "--listen" } else { "--metrics-listen" }, &a.to_string()]);
        }
        let child = cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn().expect("idv role starts");
        let mut p = RoleProcess { role, index, addr, child, log };
        if let Some(a) = addr {
            let http = reqwest::Client::new();
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                assert!(!p.has_exited(), "idv {} exited at start:\n{}", role.subcommand(), p.log_tail());
                let ready = http.get(format!("http://{a}/readyz")).send().await.map(|r| r.status().as_u16() == 200);
                if ready.unwrap_or(false) {
                    break;
                }
                assert!(Instant::now() < deadline, "idv {} not ready on {a} after 60 s:\n{}", role.subcommand(), p.log_tail());
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        self.processes.push(p);
        self.processes.len() - 1
    }

    /// The process at `slot` (as [`Cluster::start`] returned it).
    pub fn process(&mut self, slot: usize) -> &mut RoleProcess {
        &mut self.processes[slot]
    }

    /// SIGKILL the process at `slot`, then start a new process of the same role in its
    /// place (an operator's restart policy); returns the new slot.
    pub async fn restart(&mut self, slot: usize) -> usize {
        self.processes[slot].kill_9();
        let role = self.processes[slot].role;
        let listen = self.processes[slot].addr.is_some();
        self.start_listening(role, listen).await
    }

    /// `GET path` on the listener of the process at `slot`: (status, body).
    pub async fn get(&self, slot: usize, path: &str) -> Result<(u16, String), String> {
        let addr = self.processes[slot].addr.ok_or("the process does not listen")?;
        let r = reqwest::get(format!("http://{addr}{path}")).await.map_err(|e| e.to_string())?;
        let status = r.status().as_u16();
        Ok((status, r.text().await.map_err(|e| e.to_string())?))
    }

    /// A signing client for the ingest process at `slot`.
    pub fn client(&self, slot: usize) -> Client {
        let addr = self.processes[slot].addr.expect("an ingest process");
        Client::new(format!("http://{addr}"))
    }

    /// An admin command (`idv keys create ...`) over this cluster's store and master key;
    /// the JSON object it prints.
    pub fn cli(&self, args: &[&str]) -> serde_json::Value {
        let out = self.command(args).output().expect("idv runs");
        assert!(out.status.success(), "idv {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("idv {args:?} prints one JSON object: {e}"))
    }

    /// `idv keys create --client NAME` over this cluster's store.
    pub fn create_key(&self, client_name: &str) -> Credentials {
        let v = self.cli(&["keys", "create", "--client", client_name]);
        let field = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("keys create printed no {k}")).to_string();
        Credentials { client_id: field("client_id"), access_key_id: field("access_key_id"), secret_key: field("secret_key") }
    }

    /// The shared store, opened by the test as one more process would.
    pub async fn store(&self) -> std::sync::Arc<dyn idv_store::Store> {
        idv_store::open(&format!("sqlite://{}", self.data_dir.join("idv.db").display())).await.expect("store opens")
    }

    /// The shared blobs (local directory), unsealed with the cluster's master key.
    pub fn blobs(&self) -> std::sync::Arc<dyn idv_store::blobs::BlobStore> {
        let raw = idv_store::blobs::open(&format!("file://{}", self.data_dir.join("blobs").display())).expect("blobs open");
        let sealer = idv_crypto::sealed::Sealer::new(1, &self.master_key).expect("sealer");
        std::sync::Arc::new(idv_store::blobs::SealedBlobs::new(raw, sealer))
    }

    /// Every process's log tail, for a failure message.
    pub fn logs(&self) -> String {
        self.processes
            .iter()
            .map(|p| format!("--- {} {} (pid {}):\n{}", p.role.subcommand(), p.index, p.child.id(), p.log_tail()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}
