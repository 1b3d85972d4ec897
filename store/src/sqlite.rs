//! The embedded store: bundled SQLite in WAL mode. One connection behind a mutex, used
//! from tokio's blocking pool so the async executor never waits on disk.
//! Why one connection: the embedded deployment's writes are small and serialized anyway;
//! a pool can come when a benchmark shows the mutex in a profile.

use crate::prelude::*;
use crate::{
    AccessKeyRecord, BaselineRecord, BatchRecord, BlobMeta, ChallengeRecord, ClientRecord, Completion, DeviceRecord,
    FaceHistoryRecord, FaceTemplateRecord, FaceUserRecord, KeyPairRecord, RequestRecord, Result, SessionRecord, Store, StoreError,
};
use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension};
use std::sync::{Arc, Mutex};

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS clients (
    client_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS access_keys (
    access_key_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    created_at TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS requests (
    request_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    created_at TEXT NOT NULL,
    response TEXT,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS blobs (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    label TEXT,
    content_type TEXT,
    metadata TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS key_pairs (
    key_pair_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    public_der BLOB NOT NULL,
    sealed_private BLOB NOT NULL,
    created_at TEXT NOT NULL,
    active INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS devices (
    customer_user_device_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    cus_user_id TEXT NOT NULL,
    device_id TEXT NOT NULL,
    key_pair_id TEXT NOT NULL,
    public_der BLOB NOT NULL,
    deactivated INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS devices_by_user ON devices (client_id, cus_user_id);
CREATE TABLE IF NOT EXISTS challenges (
    challenge_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    customer_user_device_id TEXT NOT NULL,
    cus_user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    nonce TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    last_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    challenge_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    prev_batch_hash TEXT NOT NULL,
    batch_hash TEXT NOT NULL,
    data TEXT NOT NULL,
    received_at TEXT NOT NULL,
    request_id TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (challenge_id, seq)
);
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    data BLOB NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS replay_claims (
    key TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    owner TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS baselines (
    client_id TEXT NOT NULL,
    cus_user_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    data BLOB NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (client_id, cus_user_id)
);
CREATE TABLE IF NOT EXISTS face_templates (
    client_id TEXT NOT NULL,
    cus_user_id TEXT NOT NULL,
    template_id TEXT NOT NULL,
    face_type TEXT NOT NULL,
    model_id TEXT NOT NULL,
    model_version TEXT NOT NULL,
    sealed_vector BLOB NOT NULL,
    image_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (client_id, cus_user_id, template_id)
);
CREATE TABLE IF NOT EXISTS face_histories (
    client_id TEXT NOT NULL,
    cus_user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (client_id, cus_user_id, id)
);
CREATE INDEX IF NOT EXISTS face_histories_by_time ON face_histories (client_id, cus_user_id, created_at);
CREATE TABLE IF NOT EXISTS face_users (
    client_id TEXT NOT NULL,
    cus_user_id TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (client_id, cus_user_id)
);
"#;

#[derive(Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// Replay claims made, to prune expired ones every `PRUNE_EVERY` claims.
    claims: Arc<std::sync::atomic::AtomicU64>,
    /// The background checkpointer of a file database; it stops when the last clone of the
    /// store is dropped.
    _checkpointer: Option<Arc<Checkpointer>>,
    /// Replay claims and chain appends wait here for the group writer ([`GroupWriter`]).
    write_queue: std::sync::mpsc::Sender<Write>,
}

/// A replay claim waiting to be written.
struct Claim {
    key: String,
    owner: String,
    now_ms: i64,
    expires_ms: i64,
    prune: bool,
}

/// A write of the group-committed kinds, and where its answer goes.
enum Write {
    /// A replay claim: `true` when this owner holds it now.
    Claim(Claim, tokio::sync::oneshot::Sender<Result<bool>>),
    /// A batch appended to its challenge's chain (compare-and-set on the head): `true` when
    /// it was appended.
    Append(Box<BatchRecord>, tokio::sync::oneshot::Sender<Result<bool>>),
}

impl Write {
    fn answer(self, answer: Result<bool>) {
        let reply = match self {
            Write::Claim(_, reply) | Write::Append(_, reply) => reply,
        };
        let _ = reply.send(answer);
    }
}

/// Writes committed by one transaction at most.
const GROUP_COMMIT: usize = 64;

/// Writes replay claims and chain appends in batches: every such write waiting when the
/// writer thread takes the connection goes into one transaction, and each is answered only
/// after that commit, so each is as durable as alone. Every device request and every Access
/// Key request makes one claim and every push one append; a commit each (WAL frames for the
/// tables and their indexes) cost a push about a quarter of its throughput for the claims
/// alone (the behavior benchmark with `local` replay protection instead: 965-988 →
/// 1,294-1,471 pushes/s), and the append's hand-off to the blocking pool (a thread switch
/// each way) about as much as the write (issue 11's profile). A write alone is not
/// delayed: the writer wakes for the first one and takes only what is already queued.
struct GroupWriter;

impl GroupWriter {
    fn start(conn: Arc<Mutex<Connection>>) -> Result<std::sync::mpsc::Sender<Write>> {
        let (queue, waiting) = std::sync::mpsc::channel::<Write>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                // Ends when every clone of the store (every sender) is gone.
                while let Ok(first) = waiting.recv() {
                    let mut batch = vec![first];
                    while batch.len() < GROUP_COMMIT {
                        match waiting.try_recv() {
                            Ok(write) => batch.push(write),
                            Err(_) => break,
                        }
                    }
                    let written = {
                        let mut conn = conn.lock().unwrap_or_else(|e| e.into_inner());
                        write_group(&mut conn, &batch)
                    };
                    match written {
                        Ok(answers) => {
                            for (write, answer) in batch.into_iter().zip(answers) {
                                write.answer(answer);
                            }
                        }
                        // Nothing of the batch was committed: every caller gets the error
                        // (a replay check that did not run is not a pass).
                        Err(e) => {
                            for write in batch {
                                write.answer(Err(StoreError::Backend(e.to_string())));
                            }
                        }
                    }
                }
            })
            .map_err(backend)?;
        Ok(queue)
    }
}

/// One transaction for `batch`, in order: each write's own answer (a failed append, rolled
/// back to its savepoint, fails alone), or `Err` when the transaction did not commit.
fn write_group(conn: &mut Connection, batch: &[Write]) -> Result<Vec<Result<bool>>> {
    let mut tx = conn.transaction().map_err(backend)?;
    let mut answers = Vec::with_capacity(batch.len());
    for write in batch {
        answers.push(match write {
            Write::Claim(c, _) => write_claim(&tx, c)?,
            Write::Append(b, _) => {
                // The batch's two statements stand or fall together, apart from the others.
                let mut one = tx.savepoint().map_err(backend)?;
                match append_to_chain(&one, b) {
                    Ok(appended) => {
                        one.commit().map_err(backend)?;
                        Ok(appended)
                    }
                    Err(e) => {
                        one.rollback().map_err(backend)?;
                        Err(e)
                    }
                }
            }
        });
    }
    // Expired claims are pruned now and then, so the table stays the size of one window's
    // traffic.
    if let Some(c) = batch.iter().find_map(|w| match w {
        Write::Claim(c, _) if c.prune => Some(c),
        _ => None,
    }) {
        tx.exec("DELETE FROM replay_claims WHERE expires_at <= ?1", params![c.now_ms]).map_err(backend)?;
    }
    tx.commit().map_err(backend)?;
    Ok(answers)
}

/// `true` when the claim was recorded or its owner already held it.
fn write_claim(tx: &Connection, c: &Claim) -> Result<Result<bool>> {
    // An expired claim is taken over; a live one is left alone (0 rows changed).
    let n = tx
        .exec(
            "INSERT INTO replay_claims (key, expires_at, owner) VALUES (?1, ?2, ?4)
             ON CONFLICT(key) DO UPDATE SET expires_at = excluded.expires_at, owner = excluded.owner
             WHERE replay_claims.expires_at <= ?3",
            params![c.key, c.expires_ms, c.now_ms, c.owner],
        )
        .map_err(backend)?;
    // Held already: by this owner (a repeat of the same request) or another.
    let mine = n == 1
        || tx
            .row(
                "SELECT owner = ?2 FROM replay_claims WHERE key = ?1 AND expires_at > ?3",
                params![c.key, c.owner, c.now_ms],
                |r| r.get::<_, bool>(0),
            )
            .optional()
            .map_err(backend)?
            .unwrap_or(false);
    Ok(Ok(mine))
}

/// Moves the chain's head from the batch's predecessor to the batch (compare-and-set: the
/// challenge must be open with that head) and stores the batch; `false`, with nothing
/// written, when the head had moved.
fn append_to_chain(conn: &Connection, b: &BatchRecord) -> Result<bool> {
    let moved = conn
        .exec(
            "UPDATE challenges SET last_seq = ?2, last_hash = ?3
             WHERE challenge_id = ?1 AND status = 'open' AND last_seq = ?4 AND last_hash = ?5",
            params![b.challenge_id, b.seq, b.batch_hash, b.seq - 1, b.prev_batch_hash],
        )
        .map_err(backend)?;
    if moved != 1 {
        return Ok(false);
    }
    conn.exec(
        "INSERT INTO batches (challenge_id, seq, prev_batch_hash, batch_hash, data, received_at, request_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![b.challenge_id, b.seq, b.prev_batch_hash, b.batch_hash, b.data, b.received_at, b.request_id],
    )
    .map_err(backend)?;
    Ok(true)
}

/// How often the background thread copies the WAL into the database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);
/// The WAL size (pages) at which a commit checkpoints by itself: a safety net only, far
/// above what the background thread lets the WAL reach.
const AUTOCHECKPOINT_PAGES: u32 = 16_384;

/// Checkpoints a file database's WAL from its own connection and thread, off the request
/// path. SQLite's default checkpoints inside the commit that crosses 1,000 pages: that
/// commit then copies ~4 MB and fsyncs while holding the store's one connection, and every
/// request waits behind it (the push benchmark: p99 halved and throughput +25% without
/// it). A PASSIVE checkpoint takes no writer lock, so commits go on meanwhile; durability is
/// unchanged (a commit is durable in the WAL, checkpointed or not).
struct Checkpointer {
    stop: Mutex<Option<std::sync::mpsc::Sender<()>>>,
}

impl Checkpointer {
    fn start(path: &str) -> Result<Checkpointer> {
        let conn = Connection::open(path).map_err(backend)?;
        conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;").map_err(backend)?;
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || loop {
                let last = matches!(rx.recv_timeout(CHECKPOINT_EVERY), Err(std::sync::mpsc::RecvTimeoutError::Disconnected));
                // Busy (another process's checkpoint) or failed: the next round tries again,
                // and the commit-time safety net bounds the WAL meanwhile.
                if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                    tracing::debug!(error = %e, "background checkpoint did not run");
                }
                if last {
                    return;
                }
            })
            .map_err(backend)?;
        Ok(Checkpointer { stop: Mutex::new(Some(tx)) })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        // Dropping the sender wakes the thread for a last checkpoint, then it ends.
        self.stop.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

const PRUNE_EVERY: u64 = 1024;

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation)
}

/// Brings a database to [`migrations::latest`]: every shared migration it lacks, then the
/// version recorded in `PRAGMA user_version`. A column's presence is checked even below
/// the recorded version (a database created by this release already has every column).
fn migrate(conn: &Connection) -> Result<()> {
    let at: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(backend)?;
    for m in crate::migrations::MIGRATIONS.iter().filter(|m| m.version > at) {
        match m.change {
            crate::migrations::Change::AddColumn { table, column, sqlite, .. } => {
                let present = conn
                    .prepare(&format!("SELECT 1 FROM pragma_table_info('{table}') WHERE name = ?1"))
                    .and_then(|mut st| st.exists([column]))
                    .map_err(backend)?;
                if !present {
                    conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {sqlite}")).map_err(backend)?;
                }
            }
        }
    }
    if at < crate::migrations::latest() {
        conn.execute_batch(&format!("PRAGMA user_version = {}", crate::migrations::latest())).map_err(backend)?;
    }
    Ok(())
}

impl SqliteStore {
    /// `sqlite://PATH`, `sqlite:PATH`, or `sqlite::memory:`.
    pub fn open_url(url: &str) -> Result<Self> {
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .ok_or_else(|| StoreError::BadUrl(url.into(), "expected sqlite://PATH".into()))?;
        if path.is_empty() {
            return Err(StoreError::BadUrl(url.into(), "empty path".into()));
        }
        if path == ":memory:" {
            return Self::from_connection(Connection::open_in_memory().map_err(backend)?);
        }
        if let Some(dir) = std::path::Path::new(path).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(backend)?;
            }
        }
        let mut store = Self::from_connection(Connection::open(path).map_err(backend)?)?;
        {
            let conn = store.conn.lock().unwrap_or_else(|e| e.into_inner());
            conn.pragma_update(None, "wal_autocheckpoint", AUTOCHECKPOINT_PAGES).map_err(backend)?;
            // After a checkpoint empties it, the WAL file is cut back to this size.
            conn.pragma_update(None, "journal_size_limit", 64i64 * 1024 * 1024).map_err(backend)?;
        }
        store._checkpointer = Some(Arc::new(Checkpointer::start(path)?));
        Ok(store)
    }

    fn from_connection(conn: Connection) -> Result<Self> {
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;")
            .map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(backend)?;
        migrate(&conn)?;
        // Room for every statement of the store (about 45), so none is re-prepared.
        conn.set_prepared_statement_cache_capacity(64);
        let conn = Arc::new(Mutex::new(conn));
        let write_queue = GroupWriter::start(conn.clone())?;
        Ok(SqliteStore { conn, claims: Arc::default(), _checkpointer: None, write_queue })
    }

    async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut guard)
        })
        .await
        .map_err(backend)?
    }

    /// A read of a few rows: run on the caller's thread when the connection is free, on the
    /// blocking pool (as `run`) when another call holds it. In WAL mode a read never waits
    /// for another process's writer, so it costs tens of microseconds on the runtime
    /// thread; the blocking pool's hand-off (a thread switch there and one back) cost a
    /// push more than the read itself (issue 11's profile). Writes always go through `run`:
    /// one can wait up to the busy timeout for another process's write lock.
    async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        match self.read_inline(f) {
            Ok(answer) => answer,
            Err(f) => self.run(f).await,
        }
    }

    /// A write through the group writer, answered after its transaction committed.
    async fn group_write(&self, write: impl FnOnce(tokio::sync::oneshot::Sender<Result<bool>>) -> Write) -> Result<bool> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let stopped = || StoreError::Backend("the store's group writer stopped".into());
        self.write_queue.send(write(reply)).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// `f`'s answer when the connection was free, `f` back when it was not.
    fn read_inline<T, F: FnOnce(&mut Connection) -> Result<T>>(&self, f: F) -> std::result::Result<Result<T>, F> {
        match self.conn.try_lock() {
            Ok(mut conn) => Ok(f(&mut conn)),
            Err(_) => Err(f),
        }
    }
}

/// Statements through the connection's prepared-statement cache: the store runs the same
/// few dozen statements over and over, and preparing one (parsing and planning the SQL)
/// costs about as much as running it. Every query below goes through these.
trait Cached {
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
    fn row<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn row<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

fn row_to_request(r: &rusqlite::Row<'_>) -> rusqlite::Result<RequestRecord> {
    Ok(RequestRecord {
        request_id: r.get(0)?,
        client_id: r.get(1)?,
        operation: r.get(2)?,
        created_at: r.get(3)?,
        response: r.get(4)?,
        finished_at: r.get(5)?,
    })
}

fn row_to_key(r: &rusqlite::Row<'_>) -> rusqlite::Result<AccessKeyRecord> {
    Ok(AccessKeyRecord {
        access_key_id: r.get(0)?,
        client_id: r.get(1)?,
        sealed_secret: r.get(2)?,
        created_at: r.get(3)?,
        revoked: r.get::<_, i64>(4)? != 0,
    })
}

fn row_to_key_pair(r: &rusqlite::Row<'_>) -> rusqlite::Result<KeyPairRecord> {
    Ok(KeyPairRecord {
        key_pair_id: r.get(0)?,
        client_id: r.get(1)?,
        public_der: r.get(2)?,
        sealed_private: r.get(3)?,
        created_at: r.get(4)?,
        active: r.get::<_, i64>(5)? != 0,
    })
}

fn row_to_device(r: &rusqlite::Row<'_>) -> rusqlite::Result<DeviceRecord> {
    Ok(DeviceRecord {
        customer_user_device_id: r.get(0)?,
        client_id: r.get(1)?,
        cus_user_id: r.get(2)?,
        device_id: r.get(3)?,
        key_pair_id: r.get(4)?,
        public_der: r.get(5)?,
        deactivated: r.get::<_, i64>(6)? != 0,
        created_at: r.get(7)?,
    })
}

fn row_to_challenge(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChallengeRecord> {
    Ok(ChallengeRecord {
        challenge_id: r.get(0)?,
        client_id: r.get(1)?,
        customer_user_device_id: r.get(2)?,
        cus_user_id: r.get(3)?,
        session_id: r.get(4)?,
        nonce: r.get(5)?,
        status: r.get(6)?,
        created_at: r.get(7)?,
        expires_at: r.get(8)?,
        last_seq: r.get(9)?,
        last_hash: r.get(10)?,
    })
}

const KEY_PAIR_COLUMNS: &str = "key_pair_id, client_id, public_der, sealed_private, created_at, active";
const DEVICE_COLUMNS: &str =
    "customer_user_device_id, client_id, cus_user_id, device_id, key_pair_id, public_der, deactivated, created_at";
const CHALLENGE_COLUMNS: &str =
    "challenge_id, client_id, customer_user_device_id, cus_user_id, session_id, nonce, status, created_at, expires_at, last_seq, last_hash";

fn row_to_client(r: &rusqlite::Row<'_>) -> rusqlite::Result<ClientRecord> {
    Ok(ClientRecord { client_id: r.get(0)?, name: r.get(1)?, created_at: r.get(2)? })
}

#[async_trait]
impl KeyStore for SqliteStore {
    async fn create_client(&self, client: &ClientRecord) -> Result<()> {
        let c = client.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT INTO clients (client_id, name, created_at) VALUES (?1, ?2, ?3)",
                params![c.client_id, c.name, c.created_at],
            )
            .map(|_| ())
            .map_err(|e| if is_unique_violation(&e) { StoreError::AlreadyExists(format!("client {}", c.name)) } else { backend(e) })
        })
        .await
    }

    async fn get_client(&self, client_id: &str) -> Result<Option<ClientRecord>> {
        let id = client_id.to_string();
        self.read(move |conn| {
            conn.row("SELECT client_id, name, created_at FROM clients WHERE client_id = ?1", [id], row_to_client)
                .optional()
                .map_err(backend)
        })
        .await
    }

    async fn find_client_by_name(&self, name: &str) -> Result<Option<ClientRecord>> {
        let name = name.to_string();
        self.read(move |conn| {
            conn.row("SELECT client_id, name, created_at FROM clients WHERE name = ?1", [name], row_to_client)
                .optional()
                .map_err(backend)
        })
        .await
    }

    async fn create_access_key(&self, key: &AccessKeyRecord) -> Result<()> {
        let k = key.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT INTO access_keys (access_key_id, client_id, sealed_secret, created_at, revoked) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![k.access_key_id, k.client_id, k.sealed_secret, k.created_at, k.revoked as i64],
            )
            .map(|_| ())
            .map_err(|e| {
                if is_unique_violation(&e) { StoreError::AlreadyExists(format!("access key {}", k.access_key_id)) } else { backend(e) }
            })
        })
        .await
    }

    async fn get_access_key(&self, access_key_id: &str) -> Result<Option<AccessKeyRecord>> {
        let id = access_key_id.to_string();
        self.read(move |conn| {
            conn.row(
                "SELECT access_key_id, client_id, sealed_secret, created_at, revoked FROM access_keys WHERE access_key_id = ?1",
                [id],
                row_to_key,
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn list_access_keys(&self) -> Result<Vec<AccessKeyRecord>> {
        self.run(|conn| {
            let mut st = conn
                .prepare_cached("SELECT access_key_id, client_id, sealed_secret, created_at, revoked FROM access_keys ORDER BY created_at, access_key_id")
                .map_err(backend)?;
            let rows = st.query_map([], row_to_key).map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(backend)
        })
        .await
    }

    async fn revoke_access_key(&self, access_key_id: &str) -> Result<bool> {
        let id = access_key_id.to_string();
        self.run(move |conn| {
            conn.exec("UPDATE access_keys SET revoked = 1 WHERE access_key_id = ?1", [id])
                .map(|n| n > 0)
                .map_err(backend)
        })
        .await
    }

    async fn create_key_pair(&self, key_pair: &KeyPairRecord) -> Result<()> {
        let k = key_pair.clone();
        self.run(move |conn| {
            conn.exec(
                &format!("INSERT INTO key_pairs ({KEY_PAIR_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
                params![k.key_pair_id, k.client_id, k.public_der, k.sealed_private, k.created_at, k.active as i64],
            )
            .map(|_| ())
            .map_err(|e| if is_unique_violation(&e) { StoreError::AlreadyExists(format!("key pair {}", k.key_pair_id)) } else { backend(e) })
        })
        .await
    }

    async fn get_key_pair(&self, key_pair_id: &str) -> Result<Option<KeyPairRecord>> {
        let id = key_pair_id.to_string();
        self.read(move |conn| {
            conn.row(&format!("SELECT {KEY_PAIR_COLUMNS} FROM key_pairs WHERE key_pair_id = ?1"), [id], row_to_key_pair)
                .optional()
                .map_err(backend)
        })
        .await
    }

    async fn list_key_pairs(&self, client_id: Option<&str>) -> Result<Vec<KeyPairRecord>> {
        let client = client_id.map(str::to_string);
        self.run(move |conn| {
            let mut st = conn
                .prepare_cached(&format!(
                    "SELECT {KEY_PAIR_COLUMNS} FROM key_pairs WHERE ?1 IS NULL OR client_id = ?1 ORDER BY created_at, key_pair_id"
                ))
                .map_err(backend)?;
            let rows = st.query_map([client], row_to_key_pair).map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(backend)
        })
        .await
    }

    async fn set_key_pair_active(&self, key_pair_id: &str, active: bool) -> Result<bool> {
        let id = key_pair_id.to_string();
        self.run(move |conn| {
            conn.exec("UPDATE key_pairs SET active = ?2 WHERE key_pair_id = ?1", params![id, active as i64])
                .map(|n| n > 0)
                .map_err(backend)
        })
        .await
    }
}

#[async_trait]
impl RequestStore for SqliteStore {
    async fn claim_once(&self, key: &str, owner: &str, ttl: std::time::Duration) -> Result<bool> {
        let now_ms = crate::unix_now_ms();
        let claim = Claim {
            key: key.to_string(),
            owner: owner.to_string(),
            now_ms,
            expires_ms: now_ms.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)),
            prune: self.claims.fetch_add(1, std::sync::atomic::Ordering::Relaxed).is_multiple_of(PRUNE_EVERY),
        };
        self.group_write(|reply| Write::Claim(claim, reply)).await
    }

    async fn create_request(&self, request: &RequestRecord) -> Result<()> {
        let r = request.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT INTO requests (request_id, client_id, operation, created_at, response, finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![r.request_id, r.client_id, r.operation, r.created_at, r.response, r.finished_at],
            )
            .map(|_| ())
            .map_err(|e| if is_unique_violation(&e) { StoreError::AlreadyExists(format!("request {}", r.request_id)) } else { backend(e) })
        })
        .await
    }

    async fn complete_request(&self, request_id: &str, response: &str, finished_at: &str) -> Result<Completion> {
        let (id, resp, at) = (request_id.to_string(), response.to_string(), finished_at.to_string());
        self.run(move |conn| {
            let tx = conn.transaction().map_err(backend)?;
            let n = tx
                .exec(
                    "UPDATE requests SET response = ?2, finished_at = ?3 WHERE request_id = ?1 AND response IS NULL",
                    params![id, resp, at],
                )
                .map_err(backend)?;
            let outcome = if n == 1 {
                Completion::Stored
            } else {
                let existing: Option<Option<String>> = tx
                    .row("SELECT response FROM requests WHERE request_id = ?1", [&id], |r| r.get(0))
                    .optional()
                    .map_err(backend)?;
                match existing {
                    None => Completion::UnknownRequest,
                    Some(Some(response)) => Completion::AlreadyCompleted { response },
                    Some(None) => return Err(StoreError::Backend("completion raced".into())),
                }
            };
            tx.commit().map_err(backend)?;
            Ok(outcome)
        })
        .await
    }

    async fn get_request(&self, request_id: &str) -> Result<Option<RequestRecord>> {
        let id = request_id.to_string();
        self.read(move |conn| {
            conn.row(
                "SELECT request_id, client_id, operation, created_at, response, finished_at FROM requests WHERE request_id = ?1",
                [id],
                row_to_request,
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn put_blob_meta(&self, meta: &BlobMeta) -> Result<()> {
        let m = meta.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO blobs (id, client_id, kind, size, sha256, label, content_type, metadata, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![m.id, m.client_id, m.kind, m.size as i64, m.sha256, m.label, m.content_type, m.metadata, m.created_at],
            )
            .map(|_| ())
            .map_err(backend)
        })
        .await
    }

    async fn get_blob_meta(&self, id: &str) -> Result<Option<BlobMeta>> {
        let id = id.to_string();
        self.read(move |conn| {
            conn.row(
                "SELECT id, client_id, kind, size, sha256, label, content_type, metadata, created_at FROM blobs WHERE id = ?1",
                [id],
                |r| {
                    Ok(BlobMeta {
                        id: r.get(0)?,
                        client_id: r.get(1)?,
                        kind: r.get(2)?,
                        size: r.get::<_, i64>(3)?.max(0) as u64,
                        sha256: r.get(4)?,
                        label: r.get(5)?,
                        content_type: r.get(6)?,
                        metadata: r.get(7)?,
                        created_at: r.get(8)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn unfinished_requests(&self, limit: usize) -> Result<Vec<String>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(move |conn| {
            let mut st = conn
                .prepare_cached("SELECT request_id FROM requests WHERE response IS NULL ORDER BY created_at LIMIT ?1")
                .map_err(backend)?;
            let rows = st.query_map([limit], |r| r.get::<_, String>(0)).map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<String>>>().map_err(backend)
        })
        .await
    }

    /// Takes the write lock and gives it back at once (nothing written): fails after the
    /// busy timeout while another process or connection holds it.
    async fn check_writable(&self) -> Result<()> {
        self.run(|c| {
            let taken = c.execute_batch("BEGIN IMMEDIATE");
            if !c.is_autocommit() {
                c.execute_batch("ROLLBACK").map_err(backend)?;
            }
            taken.map_err(backend)
        })
        .await
    }
}

#[async_trait]
impl FaceStore for SqliteStore {
    async fn put_face_user(&self, user: &FaceUserRecord) -> Result<()> {
        let record = serde_json::to_string(user).map_err(backend)?;
        let (client, cus) = (user.client_id.clone(), user.cus_user_id.clone());
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO face_users (client_id, cus_user_id, record) VALUES (?1, ?2, ?3)",
                params![client, cus, record],
            )
            .map(|_| ())
            .map_err(backend)
        })
        .await
    }

    async fn get_face_user(&self, client_id: &str, cus_user_id: &str) -> Result<Option<FaceUserRecord>> {
        let (client, cus) = (client_id.to_string(), cus_user_id.to_string());
        self.read(move |conn| {
            let rec: Option<String> = conn
                .row(
                    "SELECT record FROM face_users WHERE client_id = ?1 AND cus_user_id = ?2",
                    params![client, cus],
                    |r| r.get(0),
                )
                .optional()
                .map_err(backend)?;
            rec.map(|s| serde_json::from_str(&s).map_err(backend)).transpose()
        })
        .await
    }

    async fn put_face_template(&self, template: &FaceTemplateRecord) -> Result<()> {
        let t = template.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO face_templates
                 (client_id, cus_user_id, template_id, face_type, model_id, model_version, sealed_vector, image_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    t.client_id, t.cus_user_id, t.template_id, t.face_type, t.model_id, t.model_version, t.sealed_vector,
                    t.image_id, t.created_at
                ],
            )
            .map(|_| ())
            .map_err(backend)
        })
        .await
    }

    async fn list_face_templates(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<FaceTemplateRecord>> {
        let (client, cus) = (client_id.to_string(), cus_user_id.to_string());
        self.run(move |conn| {
            let mut st = conn
                .prepare_cached(
                    "SELECT client_id, cus_user_id, template_id, face_type, model_id, model_version, sealed_vector, image_id, created_at
                     FROM face_templates WHERE client_id = ?1 AND cus_user_id = ?2 ORDER BY created_at, template_id",
                )
                .map_err(backend)?;
            let rows = st
                .query_map(params![client, cus], |r| {
                    Ok(FaceTemplateRecord {
                        client_id: r.get(0)?,
                        cus_user_id: r.get(1)?,
                        template_id: r.get(2)?,
                        face_type: r.get(3)?,
                        model_id: r.get(4)?,
                        model_version: r.get(5)?,
                        sealed_vector: r.get(6)?,
                        image_id: r.get(7)?,
                        created_at: r.get(8)?,
                    })
                })
                .map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(backend)
        })
        .await
    }

    async fn delete_face_templates(&self, client_id: &str, cus_user_id: &str) -> Result<()> {
        let (client, cus) = (client_id.to_string(), cus_user_id.to_string());
        self.run(move |conn| {
            conn.exec("DELETE FROM face_templates WHERE client_id = ?1 AND cus_user_id = ?2", params![client, cus])
                .map(|_| ())
                .map_err(backend)
        })
        .await
    }

    async fn add_face_history(&self, history: &FaceHistoryRecord) -> Result<()> {
        let h = history.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO face_histories (client_id, cus_user_id, id, created_at, status, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![h.client_id, h.cus_user_id, h.id, h.created_at, h.status, h.record],
            )
            .map(|_| ())
            .map_err(backend)
        })
        .await
    }

    async fn list_face_histories(&self, client_id: &str, cus_user_id: &str, limit: usize) -> Result<Vec<FaceHistoryRecord>> {
        let (client, cus) = (client_id.to_string(), cus_user_id.to_string());
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(move |conn| {
            let mut st = conn
                .prepare_cached(
                    "SELECT client_id, cus_user_id, id, created_at, status, record FROM face_histories
                     WHERE client_id = ?1 AND cus_user_id = ?2 ORDER BY created_at DESC, id DESC LIMIT ?3",
                )
                .map_err(backend)?;
            let rows = st
                .query_map(params![client, cus, limit], |r| {
                    Ok(FaceHistoryRecord {
                        client_id: r.get(0)?,
                        cus_user_id: r.get(1)?,
                        id: r.get(2)?,
                        created_at: r.get(3)?,
                        status: r.get(4)?,
                        record: r.get(5)?,
                    })
                })
                .map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(backend)
        })
        .await
    }
}

#[async_trait]
impl BehaviorStore for SqliteStore {
    async fn create_device(&self, device: &DeviceRecord) -> Result<()> {
        let d = device.clone();
        self.run(move |conn| {
            conn.exec(
                &format!("INSERT INTO devices ({DEVICE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
                params![
                    d.customer_user_device_id, d.client_id, d.cus_user_id, d.device_id, d.key_pair_id, d.public_der,
                    d.deactivated as i64, d.created_at
                ],
            )
            .map(|_| ())
            .map_err(|e| {
                if is_unique_violation(&e) { StoreError::AlreadyExists(format!("device {}", d.customer_user_device_id)) } else { backend(e) }
            })
        })
        .await
    }

    async fn get_device(&self, customer_user_device_id: &str) -> Result<Option<DeviceRecord>> {
        let id = customer_user_device_id.to_string();
        self.read(move |conn| {
            conn.row(
                &format!("SELECT {DEVICE_COLUMNS} FROM devices WHERE customer_user_device_id = ?1"),
                [id],
                row_to_device,
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn set_device_deactivated(&self, customer_user_device_id: &str, deactivated: bool) -> Result<bool> {
        let id = customer_user_device_id.to_string();
        self.run(move |conn| {
            conn.exec(
                "UPDATE devices SET deactivated = ?2 WHERE customer_user_device_id = ?1",
                params![id, deactivated as i64],
            )
            .map(|n| n > 0)
            .map_err(backend)
        })
        .await
    }

    async fn list_devices(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<DeviceRecord>> {
        let (client, cus) = (client_id.to_string(), cus_user_id.to_string());
        self.run(move |conn| {
            let mut st = conn
                .prepare_cached(&format!(
                    "SELECT {DEVICE_COLUMNS} FROM devices WHERE client_id = ?1 AND cus_user_id = ?2
                     ORDER BY created_at, customer_user_device_id"
                ))
                .map_err(backend)?;
            let rows = st.query_map(params![client, cus], row_to_device).map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(backend)
        })
        .await
    }

    async fn delete_device(&self, customer_user_device_id: &str) -> Result<bool> {
        let id = customer_user_device_id.to_string();
        self.run(move |conn| {
            conn.exec("DELETE FROM devices WHERE customer_user_device_id = ?1", [id]).map(|n| n > 0).map_err(backend)
        })
        .await
    }

    async fn create_challenge(&self, challenge: &ChallengeRecord) -> Result<()> {
        let c = challenge.clone();
        self.run(move |conn| {
            conn.exec(
                &format!("INSERT INTO challenges ({CHALLENGE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"),
                params![
                    c.challenge_id, c.client_id, c.customer_user_device_id, c.cus_user_id, c.session_id, c.nonce,
                    c.status, c.created_at, c.expires_at, c.last_seq, c.last_hash
                ],
            )
            .map(|_| ())
            .map_err(|e| {
                if is_unique_violation(&e) { StoreError::AlreadyExists(format!("challenge {}", c.challenge_id)) } else { backend(e) }
            })
        })
        .await
    }

    async fn get_challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>> {
        let id = challenge_id.to_string();
        self.read(move |conn| {
            conn.row(&format!("SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE challenge_id = ?1"), [id], row_to_challenge)
                .optional()
                .map_err(backend)
        })
        .await
    }

    async fn append_batch(&self, batch: &BatchRecord) -> Result<bool> {
        let batch = Box::new(batch.clone());
        self.group_write(|reply| Write::Append(batch, reply)).await
    }

    async fn list_batches(&self, challenge_id: &str) -> Result<Vec<BatchRecord>> {
        let id = challenge_id.to_string();
        self.run(move |conn| {
            let mut st = conn
                .prepare_cached(
                    "SELECT challenge_id, seq, prev_batch_hash, batch_hash, data, received_at, request_id FROM batches
                     WHERE challenge_id = ?1 ORDER BY seq",
                )
                .map_err(backend)?;
            let rows = st
                .query_map([id], |r| {
                    Ok(BatchRecord {
                        challenge_id: r.get(0)?,
                        seq: r.get(1)?,
                        prev_batch_hash: r.get(2)?,
                        batch_hash: r.get(3)?,
                        data: r.get(4)?,
                        received_at: r.get(5)?,
                        request_id: r.get(6)?,
                    })
                })
                .map_err(backend)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(backend)
        })
        .await
    }

    async fn finalize_challenge(&self, challenge_id: &str) -> Result<bool> {
        let id = challenge_id.to_string();
        self.run(move |conn| {
            conn.exec("UPDATE challenges SET status = 'scored' WHERE challenge_id = ?1", [id])
                .map(|n| n > 0)
                .map_err(backend)
        })
        .await
    }

    async fn get_baseline(&self, client_id: &str, cus_user_id: &str) -> Result<Option<BaselineRecord>> {
        let (client, cus) = (client_id.to_string(), cus_user_id.to_string());
        self.read(move |conn| {
            conn.row(
                "SELECT client_id, cus_user_id, version, data, updated_at FROM baselines WHERE client_id = ?1 AND cus_user_id = ?2",
                params![client, cus],
                |r| {
                    Ok(BaselineRecord {
                        client_id: r.get(0)?,
                        cus_user_id: r.get(1)?,
                        version: r.get(2)?,
                        data: r.get(3)?,
                        updated_at: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn put_baseline(&self, baseline: &BaselineRecord, expected_version: Option<i64>) -> Result<bool> {
        let b = baseline.clone();
        self.run(move |conn| {
            let n = match expected_version {
                None => conn.exec(
                    "INSERT OR IGNORE INTO baselines (client_id, cus_user_id, version, data, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![b.client_id, b.cus_user_id, b.version, b.data, b.updated_at],
                ),
                Some(v) => conn.exec(
                    "UPDATE baselines SET version = ?3, data = ?4, updated_at = ?5
                     WHERE client_id = ?1 AND cus_user_id = ?2 AND version = ?6",
                    params![b.client_id, b.cus_user_id, b.version, b.data, b.updated_at, v],
                ),
            }
            .map_err(backend)?;
            Ok(n == 1)
        })
        .await
    }
}

#[async_trait]
impl SessionStore for SqliteStore {
    async fn get_session(&self, key: &str) -> Result<Option<SessionRecord>> {
        let key = key.to_string();
        self.read(move |conn| {
            conn.row(
                "SELECT key, version, data, expires_at FROM sessions WHERE key = ?1 AND expires_at > ?2",
                params![key, crate::unix_now_ms() / 1000],
                |r| Ok(SessionRecord { key: r.get(0)?, version: r.get(1)?, data: r.get(2)?, expires_at: r.get(3)? }),
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn put_session(&self, session: &SessionRecord, expected_version: Option<i64>) -> Result<bool> {
        let s = session.clone();
        self.run(move |conn| {
            let now = crate::unix_now_ms() / 1000;
            let n = match expected_version {
                // New, or taking over an expired one.
                None => conn.exec(
                    "INSERT INTO sessions (key, version, data, expires_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(key) DO UPDATE SET version = excluded.version, data = excluded.data, expires_at = excluded.expires_at
                     WHERE sessions.expires_at <= ?5",
                    params![s.key, s.version, s.data, s.expires_at, now],
                ),
                Some(v) => conn.exec(
                    "UPDATE sessions SET version = ?2, data = ?3, expires_at = ?4 WHERE key = ?1 AND version = ?5 AND expires_at > ?6",
                    params![s.key, s.version, s.data, s.expires_at, v, now],
                ),
            }
            .map_err(backend)?;
            Ok(n == 1)
        })
        .await
    }
}

impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The conformance suite, one test per check, on an in-memory database.
    mod conformance_in_memory {
        use super::*;
        crate::store_conformance_tests!(async { Arc::new(SqliteStore::open_url("sqlite::memory:").unwrap()) as Arc<dyn Store> });
    }

    /// And on a file in WAL mode with its background checkpointer, as deployed.
    mod conformance_on_file {
        use super::*;
        crate::store_conformance_tests!(async {
            // Kept: a store outlives the test body's scope in some checks.
            let dir = tempfile::tempdir().unwrap().keep();
            Arc::new(SqliteStore::open_url(&format!("sqlite://{}", dir.join("idv.db").display())).unwrap()) as Arc<dyn Store>
        });
    }

    /// Claims written in batches: of 200 concurrent claims on 50 keys (four owners each)
    /// exactly one per key wins, and every won claim is on disk once answered (a reopened
    /// store refuses a new owner).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn batched_replay_claims_have_one_winner_per_key_and_are_durable() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("idv.db").display());
        let store = Arc::new(SqliteStore::open_url(&url).unwrap());
        let window = std::time::Duration::from_secs(60);
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..200 {
            let store = store.clone();
            tasks.spawn(async move { (i % 50, store.claim_once(&format!("key-{}", i % 50), &format!("owner-{i}"), window).await.unwrap()) });
        }
        let mut winners = [0usize; 50];
        while let Some(done) = tasks.join_next().await {
            let (key, won) = done.unwrap();
            winners[key] += usize::from(won);
        }
        assert!(winners.iter().all(|w| *w == 1), "winners per key: {winners:?}");
        drop(store);
        let reopened = SqliteStore::open_url(&url).unwrap();
        for k in 0..50 {
            assert!(!reopened.claim_once(&format!("key-{k}"), "someone-new", window).await.unwrap(), "claim key-{k} was not kept");
        }
    }

    /// Appends that wait for the group writer together share a transaction: racing pushes
    /// of one place in a chain get one winner, every chain is whole, a failing append
    /// (here: its row is there already, though the head is behind it) fails alone and
    /// leaves nothing of itself, and every answered append is on disk.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grouped_appends_have_one_winner_per_place_and_fail_alone() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("idv.db").display());
        let store = Arc::new(SqliteStore::open_url(&url).unwrap());
        let challenge = |id: &str| ChallengeRecord {
            challenge_id: id.into(),
            client_id: "c".into(),
            customer_user_device_id: "d".into(),
            cus_user_id: "u".into(),
            session_id: "s".into(),
            nonce: "n".into(),
            status: "open".into(),
            created_at: "2026-12-02T00:00:00Z".into(),
            expires_at: i64::MAX,
            last_seq: -1,
            last_hash: String::new(),
        };
        let batch = |chain: &str, seq: i64, who: &str| BatchRecord {
            challenge_id: chain.into(),
            seq,
            prev_batch_hash: if seq == 0 { String::new() } else { format!("{chain}-{}", seq - 1) },
            batch_hash: format!("{chain}-{seq}"),
            data: format!("{{\"by\":\"{who}\"}}"),
            received_at: "2026-12-02T00:00:00Z".into(),
            request_id: who.into(),
        };
        for c in ["a", "b", "c", "broken"] {
            store.create_challenge(&challenge(c)).await.unwrap();
        }
        // The broken chain's first place is taken by a row its head does not know of.
        {
            let conn = store.conn.lock().unwrap();
            let b = batch("broken", 0, "stray");
            conn.execute(
                "INSERT INTO batches (challenge_id, seq, prev_batch_hash, batch_hash, data, received_at, request_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![b.challenge_id, b.seq, b.prev_batch_hash, b.batch_hash, b.data, b.received_at, b.request_id],
            )
            .unwrap();
        }
        // Three chains of 20 places, each place pushed by three racers, all at once.
        let mut tasks = tokio::task::JoinSet::new();
        for round in 0..20 {
            for chain in ["a", "b", "c"] {
                for racer in 0..3 {
                    let store = store.clone();
                    tasks.spawn(async move {
                        // Each racer retries its place until the place before it is filled.
                        loop {
                            let b = batch(chain, round, &format!("{chain}-{round}-{racer}"));
                            if store.append_batch(&b).await.unwrap() {
                                return (chain, round, true);
                            }
                            let head = store.get_challenge(chain).await.unwrap().unwrap().last_seq;
                            if head >= round {
                                return (chain, round, false);
                            }
                            tokio::task::yield_now().await;
                        }
                    });
                }
            }
        }
        let broken = {
            let store = store.clone();
            tokio::spawn(async move { store.append_batch(&batch("broken", 0, "mine")).await })
        };
        let mut winners = std::collections::HashMap::new();
        while let Some(done) = tasks.join_next().await {
            let (chain, round, won) = done.unwrap();
            *winners.entry((chain, round)).or_insert(0) += usize::from(won);
        }
        assert!(winners.values().all(|w| *w == 1), "winners per place: {winners:?}");
        assert!(broken.await.unwrap().is_err(), "an append whose row could not be written answered as done");
        drop(store);
        let reopened = SqliteStore::open_url(&url).unwrap();
        for chain in ["a", "b", "c"] {
            let batches = reopened.list_batches(chain).await.unwrap();
            assert_eq!(batches.len(), 20, "chain {chain}");
            assert!(batches.iter().enumerate().all(|(i, b)| b.seq == i as i64), "chain {chain} has a gap");
            assert_eq!(reopened.get_challenge(chain).await.unwrap().unwrap().last_seq, 19);
        }
        // The failed append left its head where it was and the stray row alone.
        assert_eq!(reopened.get_challenge("broken").await.unwrap().unwrap().last_seq, -1);
        let rows = reopened.list_batches("broken").await.unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].request_id, "stray");
    }

    /// Commits land in the WAL only (the commit-time checkpoint is far away); the database
    /// file grows only if the background thread checkpoints.
    #[tokio::test]
    async fn the_wal_is_checkpointed_in_the_background() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idv.db");
        let store = SqliteStore::open_url(&format!("sqlite://{}", path.display())).unwrap();
        let response = "r".repeat(1000);
        for i in 0..300 {
            let id = format!("req-{i}");
            let rec = RequestRecord {
                request_id: id.clone(),
                client_id: "c".into(),
                operation: "face_auth".into(),
                created_at: "t".into(),
                response: None,
                finished_at: None,
            };
            store.create_request(&rec).await.unwrap();
            store.complete_request(&id, &response, "t").await.unwrap();
        }
        // ~300 KB of rows: about 75 pages, far below AUTOCHECKPOINT_PAGES.
        let started = std::time::Instant::now();
        while std::fs::metadata(&path).unwrap().len() < 200_000 {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "the WAL was not checkpointed into the database file");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(store.get_request("req-299").await.unwrap().and_then(|r| r.response), Some(response));
    }

    #[tokio::test]
    async fn conformance_on_disk_and_data_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/idv.db", dir.path().display());
        crate::conformance::run_all(|| async { Arc::new(SqliteStore::open_url(&url).unwrap()) as Arc<dyn Store> }).await;
        let client = ClientRecord { client_id: "c-persist".into(), name: "persist".into(), created_at: "t".into() };
        SqliteStore::open_url(&url).unwrap().create_client(&client).await.unwrap();
        let reopened = SqliteStore::open_url(&url).unwrap();
        assert_eq!(reopened.get_client("c-persist").await.unwrap(), Some(client));
    }

    #[tokio::test]
    async fn a_database_from_before_batches_request_id_is_migrated() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("old.db");
        {
            let old = Connection::open(&path).expect("open");
            old.execute_batch(
                "CREATE TABLE batches (challenge_id TEXT NOT NULL, seq INTEGER NOT NULL, prev_batch_hash TEXT NOT NULL,
                 batch_hash TEXT NOT NULL, data TEXT NOT NULL, received_at TEXT NOT NULL, PRIMARY KEY (challenge_id, seq));
                 INSERT INTO batches VALUES ('c', 0, '', 'h0', '{}', 't');",
            )
            .expect("old schema");
        }
        let store = SqliteStore::open_url(&format!("sqlite://{}", path.display())).expect("open migrates");
        let rows = store.list_batches("c").await.expect("list");
        assert_eq!((rows.len(), rows[0].request_id.as_str()), (1, ""), "old rows read with an empty request id");
        // Opening again finds the column and changes nothing.
        SqliteStore::open_url(&format!("sqlite://{}", path.display())).expect("reopen");
        // Every shared migration is recorded as applied, and both added columns exist.
        let conn = Connection::open(&path).expect("open");
        let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("user_version");
        assert_eq!(version, crate::migrations::latest());
        for table in ["batches", "replay_claims"] {
            let columns: Vec<String> = conn
                .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
                .and_then(|mut st| st.query_map([], |r| r.get(0)).and_then(|rows| rows.collect()))
                .expect("columns");
            let added = crate::migrations::MIGRATIONS.iter().filter_map(|m| match m.change {
                crate::migrations::Change::AddColumn { table: t, column, .. } if t == table => Some(column),
                _ => None,
            });
            for column in added {
                assert!(columns.iter().any(|c| c == column), "{table}.{column}: {columns:?}");
            }
        }
    }

    #[tokio::test]
    async fn unfinished_requests_are_the_ones_without_an_answer_oldest_first() {
        let store = SqliteStore::open_url("sqlite::memory:").expect("open");
        for (id, at) in [("b", "2026-01-01T00:00:02Z"), ("a", "2026-01-01T00:00:01Z"), ("done", "2026-01-01T00:00:00Z")] {
            let record = RequestRecord { request_id: id.into(), client_id: "c".into(), operation: "face_auth".into(), created_at: at.into(), response: None, finished_at: None };
            store.create_request(&record).await.expect("create");
        }
        store.complete_request("done", "{}", "2026-01-01T00:00:03Z").await.expect("complete");
        assert_eq!(store.unfinished_requests(10).await.expect("list"), vec!["a".to_string(), "b".to_string()]);
        assert_eq!(store.unfinished_requests(1).await.expect("list"), vec!["a".to_string()]);
        assert!(store.check_writable().await.is_ok());
    }

    #[tokio::test]
    async fn a_face_user_written_before_the_lockout_counter_reads_with_no_failures() {
        let store = SqliteStore::open_url("sqlite::memory:").expect("open");
        let old = r#"{"id":"fu","client_id":"c","cus_user_id":"u","access_key_id":"ak","face_auth_id":"img","id_card_face_id":"",
            "device_id":"","app_id":"","latitude":null,"longitude":null,"metadata":"{}","is_deactivated":false,
            "is_unregistered":false,"is_locked":false,"created_at":"t","updated_at":"t"}"#;
        store
            .run(move |conn| {
                conn.execute("INSERT INTO face_users (client_id, cus_user_id, record) VALUES ('c', 'u', ?1)", [old]).map_err(backend)
            })
            .await
            .expect("old row");
        let user = store.get_face_user("c", "u").await.expect("get").expect("present");
        assert!(user.failed_auth_ids.is_empty());
    }

    #[test]
    fn bad_urls() {
        assert!(SqliteStore::open_url("sqlite://").is_err());
        assert!(SqliteStore::open_url("postgres://x").is_err());
    }
}
