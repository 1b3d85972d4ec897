//! The distributed store: ScyllaDB through the `scylla` driver (1.x).
//!
//! URL: `scylla://host:port[,host:port...]/keyspace[?param=value&...]`. A host without
//! a port gets 9042; IPv6 hosts are written in brackets (`[::1]:9042`). Parameters:
//! * `replication_factor=N` (default 3): only used when this store creates the keyspace,
//!   and never above the node count of the datacenter (lowered with a warning: a factor
//!   above the nodes makes every LOCAL_QUORUM statement fail with Unavailable).
//! * `datacenter=NAME`: the local DC; the load-balancing policy sends every statement to
//!   its nodes and never fails over to another DC. Required when the cluster has several
//!   DCs (refused otherwise); a one-DC cluster needs nothing.
//! * `serial=local|global` (default `local`): the Paxos phase of LWTs at `LOCAL_SERIAL`
//!   or `SERIAL` (see Consistency).
//! * `user=NAME`: password authentication; the password comes from `IDV_SCYLLA_PASSWORD`,
//!   never from the URL (a `password=` parameter is refused). TLS is not supported yet.
//!
//! # Schema
//!
//! `ops/scylla/schema.cql` is embedded and run on connect when a table is missing (every
//! statement is `CREATE ... IF NOT EXISTS`); see that file for the table layout. When every
//! table the file creates already exists no DDL is sent, so many replicas starting at once
//! do not race schema changes; the list of tables checked is taken from the file itself,
//! so a table added there (e.g. the behavioral tables `key_pairs`, `key_pairs_by_client`,
//! `devices`, `challenges`, `batches`, `baselines`) is created on the next connect to an
//! older keyspace.
//!
//! # Consistency
//!
//! * Plain reads and writes run at `LOCAL_QUORUM`: with RF 3 a write is acknowledged by two
//!   replicas of the local datacenter and a read asks two, so a read always overlaps the
//!   last acknowledged write in that datacenter (read-your-writes for callers served by
//!   one DC), while an API call (which reads its access key) never waits on another DC.
//!   Other DCs converge asynchronously (normally within milliseconds); a key revoked in
//!   one DC can validate in another for that long.
//! * Compare-and-set (creating clients, names, access keys, requests, key pairs, devices,
//!   challenges and baselines; revoking a key; completing a request; (de)activating a key
//!   pair or device; deleting a device; moving a challenge's chain head; scoring a challenge; replacing a
//!   baseline) is a lightweight transaction. Its Paxos phase runs at `LOCAL_SERIAL` by
//!   default: every role of a deployment works in one named DC (`datacenter=`), so every
//!   LWT of the deployment is decided by the same replicas and no API call (three LWTs:
//!   replay claim, request creation, completion) waits on another DC. Roles spread over
//!   several DCs at once need `serial=global` (`SERIAL`: a majority of all replicas, so two
//!   DCs can never both accept the same client name, request id or replay claim), at one
//!   cross-DC round trip per LWT. The commit phase runs at `LOCAL_QUORUM`, so the plain
//!   reads above see the outcome in the local DC.
//! * Each table is written either only by LWTs or only by plain writes, never both:
//!   mixing them on one row breaks Paxos' linearizability.
//!   LWT-written: `clients`, `clients_by_name`, `access_keys`, `requests`, `key_pairs`,
//!   `devices`, `challenges`, `baselines`, `batches`. Plain-written: `blobs`, `face_users`,
//!   `key_pairs_by_client`, `devices_by_user`.
//! * Reads and plain upserts are marked idempotent (the driver may retry or speculate);
//!   LWTs are not: a blind retry of an `INSERT ... IF NOT EXISTS` that did apply would
//!   report `AlreadyExists` for the caller's own row. As with any LWT, one that fails with
//!   a driver error (e.g. a timeout) may still have applied: a caller that retries an
//!   `append_batch` or `put_baseline` then sees `false` for its own write.
//!
//! # Expiry
//!
//! * Requests (results kept for polling) live [`REQUEST_TTL_SECS`] (7 days) from their
//!   creation; the completion is written with the same TTL, so its cells outlive the
//!   creation cells by the job's duration. A row whose creation cells expired reads as
//!   absent (`get_request` → `None`, `complete_request` → `UnknownRequest`).
//! * Blob metadata has no TTL: the blob bytes have no retention policy either (local dir
//!   and S3 keep them), and registered face users reference their images by id, so
//!   metadata expiring under live bytes would break them. Retention, when it comes, must be
//!   set for bytes and metadata together.
//! * Challenges and their batches live [`CHALLENGE_TTL_SECS`] (7 days): the nonce is only
//!   accepted for minutes, but scoring (and re-scoring) reads the batches afterwards. Every
//!   write to either table (creation, each chain-head move, scoring, each batch row) carries
//!   that TTL, so cells written later outlive the creation cells by up to the challenge's
//!   active life. A challenge row whose creation cells expired reads as absent
//!   (`get_challenge` → `None`, `list_batches` → empty, `finalize_challenge` → `false`,
//!   `append_batch` → `false`, because its `status` is gone or `scored`).
//! * Clients, access keys, face users, key pairs, devices and baselines never expire.
//!
//! # Layout choices
//!
//! * `face_users` is keyed by `((client_id, cus_user_id))`: one small partition per user,
//!   always read by both keys; the record is stored as JSON text, as in SQLite, because it
//!   is only ever read and written whole.
//! * `clients_by_name` is the unique index for names, claimed with `IF NOT EXISTS` before
//!   the client row is written. If a process dies between the two writes the name stays
//!   claimed by an id with no client row: `find_client_by_name` ignores such a claim,
//!   retrying the same `create_client` completes it, and a creation under another id that
//!   finds it finishes the dangling creation (writes the client row for the claim's id), so
//!   a timeout between the two steps never holds a name forever.
//! * `list_access_keys` is a paged full scan of `access_keys`, acceptable because the
//!   table holds a few keys per client, and it is an admin operation. `list_key_pairs(None)`
//!   is the same kind of scan of `key_pairs`.
//! * `list_key_pairs(Some(client))` reads the client's partition of the lookup table
//!   `key_pairs_by_client` and then each key pair by id, instead of `ALLOW FILTERING` over
//!   `key_pairs`: its cost stays one partition plus a few point reads however many clients
//!   there are. `create_key_pair` writes the lookup row (plain write) *before* the LWT
//!   insert, so a key pair is never unlisted (a crash between the two leaves only a lookup
//!   row, and a retry completes the creation). Lookup rows whose key pair is missing or
//!   belongs to another client (its id was taken) are ignored on read; the lookup row
//!   carries no mutable state (the `active` flag is read from `key_pairs`).
//! * `list_devices` reads the (client, user) partition of `devices_by_user` and then each
//!   device by id, the same pattern (lookup row written first, dangling rows ignored).
//! * The batch hash chain: `batches` is keyed by `((challenge_id), seq, batch_hash)`, and
//!   `append_batch` (1) claims the batch row (`IF NOT EXISTS`; two racing pushes of different
//!   batches for the same seq write two different rows, neither overwrites the other, and
//!   the same batch pushed under two request ids keeps the first: the second stops here), then
//!   (2) moves the head with `UPDATE challenges SET last_seq, last_hash ... IF status =
//!   'open' AND last_seq = seq - 1 AND last_hash = prev_batch_hash`. Writing the row first means a
//!   committed head never points at a missing batch. The losing racer's row stays (it
//!   expires with the TTL); it is never deleted, because a replay of the committed batch
//!   has the same key as the committed row. Since `batch_hash` covers seq, prev hash and
//!   the exact data (docs/BEHAVIOR_PROTOCOL.md, checked by the caller), a row with the
//!   winner's key holds the winner's data; such a replay writes nothing (`IF NOT EXISTS`).
//!   `list_batches` reads the head first, then the whole partition, and walks back from
//!   `last_hash` via `prev_batch_hash` to seq 0, so only the committed chain is returned.
//!   In the local DC the rows it needs are always there (each was acknowledged at
//!   `LOCAL_QUORUM` before its head move began); a reader in another DC may briefly see a
//!   head whose batch row has not arrived yet, and then gets an error rather than a
//!   truncated chain.
//! * `baselines` is keyed by `((client_id, cus_user_id))`: the first write is
//!   `INSERT ... IF NOT EXISTS`, later ones `UPDATE ... IF version = expected`.

mod schema;
mod statements;
mod url;

pub use url::*;
use schema::*;
use statements::*;

use crate::prelude::*;
use crate::{
    AccessKeyRecord, BaselineRecord, BatchRecord, BlobMeta, ChallengeRecord, ClientRecord, Completion, DeviceRecord,
    FaceHistoryRecord, FaceTemplateRecord, FaceUserRecord, KeyPairRecord, RequestRecord, Result, SessionRecord, Store, StoreError,
};
use async_trait::async_trait;
use futures::{StreamExt, TryStreamExt};
use scylla::client::execution_profile::ExecutionProfile;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::policies::load_balancing::DefaultPolicy;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::Consistency;
use scylla::value::MaybeUnset;
use std::collections::HashMap;

/// How long a request and its result stay readable for polling: 7 days, in seconds.
/// `ops/scylla/schema.cql` sets the same value as the table default (a test checks).
pub const REQUEST_TTL_SECS: i32 = 7 * 24 * 3600;

/// How long a challenge and its batches stay readable: 7 days, in seconds. Every write to
/// `challenges` and `batches` carries it; `ops/scylla/schema.cql` sets the same value as
/// both tables' default (a test checks).
pub const CHALLENGE_TTL_SECS: i32 = 7 * 24 * 3600;

/// How many key pairs `list_key_pairs(Some(client))` reads at once.
const KEY_PAIR_READ_CONCURRENCY: usize = 16;

/// Consistency for plain reads/writes and for the commit phase of LWTs (see module docs).
const CONSISTENCY: Consistency = Consistency::LocalQuorum;
fn driver(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("scylla: {e}"))
}

pub struct ScyllaStore {
    session: Session,
    keyspace: String,
    st: Statements,
}

/// One-row reads and creations that must not overwrite.
impl ScyllaStore {
    /// The row `statement` selects, if any.
    async fn first_row<R>(&self, statement: &PreparedStatement, values: impl scylla::serialize::row::SerializeRow) -> Result<Option<R>>
    where
        R: for<'f, 'm> scylla::deserialize::row::DeserializeRow<'f, 'm>,
    {
        let res = self.session.execute_unpaged(statement, values).await.map_err(driver)?;
        res.into_rows_result().map_err(driver)?.maybe_first_row::<R>().map_err(driver)
    }

    /// Run an `INSERT ... IF NOT EXISTS`; `AlreadyExists(taken())` when the row was there.
    async fn insert_new(
        &self,
        statement: &PreparedStatement,
        values: impl scylla::serialize::row::SerializeRow,
        taken: impl FnOnce() -> String,
    ) -> Result<()> {
        let res = self.session.execute_unpaged(statement, values).await.map_err(driver)?;
        if Lwt::from_result(res)?.applied {
            Ok(())
        } else {
            Err(StoreError::AlreadyExists(taken()))
        }
    }
}

/// Lookup tables (a partition of ids) and the records they point at.
impl ScyllaStore {
    /// The ids in one partition of a lookup table.
    async fn lookup_ids(&self, statement: &PreparedStatement, key: impl scylla::serialize::row::SerializeRow) -> Result<Vec<String>> {
        self.session
            .execute_iter(statement.clone(), key)
            .await
            .map_err(driver)?
            .rows_stream::<(String,)>()
            .map_err(driver)?
            .map_ok(|(id,)| id)
            .try_collect()
            .await
            .map_err(driver)
    }

    /// Each id read by `read`, [`KEY_PAIR_READ_CONCURRENCY`] at a time; `None` where a
    /// lookup row points at nothing (a failed creation, a deletion).
    async fn read_each<T, F, Fut>(&self, ids: Vec<String>, read: F) -> Result<Vec<Option<T>>>
    where
        F: Fn(String) -> Fut,
        Fut: std::future::Future<Output = Result<Option<T>>>,
    {
        futures::stream::iter(ids).map(read).buffer_unordered(KEY_PAIR_READ_CONCURRENCY).try_collect().await
    }
}

type AccessKeyRow = (String, String, Vec<u8>, String, bool);

fn key_from_row((access_key_id, client_id, sealed_secret, created_at, revoked): AccessKeyRow) -> AccessKeyRecord {
    AccessKeyRecord { access_key_id, client_id, sealed_secret, created_at, revoked }
}

type KeyPairRow = (String, String, Vec<u8>, Vec<u8>, String, bool);

fn key_pair_from_row(
    (key_pair_id, client_id, public_der, sealed_private, created_at, active): KeyPairRow,
) -> KeyPairRecord {
    KeyPairRecord { key_pair_id, client_id, public_der, sealed_private, created_at, active }
}

type DeviceRow = (String, String, String, String, String, Vec<u8>, bool, String);

fn device_from_row(
    (customer_user_device_id, client_id, cus_user_id, device_id, key_pair_id, public_der, deactivated, created_at): DeviceRow,
) -> DeviceRecord {
    DeviceRecord {
        customer_user_device_id,
        client_id,
        cus_user_id,
        device_id,
        key_pair_id,
        public_der,
        deactivated,
        created_at,
    }
}

/// Everything but the key is optional: a row whose creation cells expired keeps the cells
/// written later (chain head, status) a while longer.
type ChallengeRow = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

/// `None` for the tail of an expired challenge (see the module docs).
fn challenge_from_row(row: ChallengeRow) -> Option<ChallengeRecord> {
    let (
        challenge_id,
        client_id,
        customer_user_device_id,
        cus_user_id,
        session_id,
        nonce,
        status,
        created_at,
        expires_at,
        last_seq,
        last_hash,
    ) = row;
    Some(ChallengeRecord {
        challenge_id,
        client_id: client_id?,
        customer_user_device_id: customer_user_device_id?,
        cus_user_id: cus_user_id?,
        session_id: session_id?,
        nonce: nonce?,
        status: status?,
        created_at: created_at?,
        expires_at: expires_at?,
        last_seq: last_seq?,
        last_hash: last_hash?,
    })
}

/// A row of `batches` without its partition key: seq, batch_hash, prev_batch_hash, data,
/// received_at, request_id (null in rows written before the column existed).
type BatchRow = (i64, String, String, String, String, Option<String>);
/// A batch row's columns after its (seq, batch_hash) key: prev_batch_hash, data,
/// received_at, request_id.
type BatchRowRest = (String, String, String, Option<String>);

/// The committed chain of a challenge whose head is (`last_seq`, `last_hash`), from all
/// rows of its `batches` partition: walk back from the head via `prev_batch_hash` to seq 0
/// and return the chain in seq order. Rows off that path (pushes that lost the
/// compare-and-set) are ignored. A missing link is an error, never a shorter chain.
fn committed_chain(
    challenge_id: &str,
    last_seq: i64,
    last_hash: &str,
    rows: Vec<BatchRow>,
) -> Result<Vec<BatchRecord>> {
    let mut by_key: HashMap<(i64, String), BatchRowRest> = rows
        .into_iter()
        .map(|(seq, batch_hash, prev_batch_hash, data, received_at, request_id)| {
            ((seq, batch_hash), (prev_batch_hash, data, received_at, request_id))
        })
        .collect();
    let mut chain = Vec::new();
    let (mut seq, mut hash) = (last_seq, last_hash.to_string());
    while seq >= 0 {
        let Some((prev_batch_hash, data, received_at, request_id)) = by_key.remove(&(seq, hash.clone())) else {
            return Err(StoreError::Backend(format!(
                "scylla: the batch chain of challenge {challenge_id} has no batch {seq} with hash {hash:?} \
                 (head: {last_seq}, {last_hash:?}); its row may not have reached this datacenter yet"
            )));
        };
        let next = prev_batch_hash.clone();
        chain.push(BatchRecord {
            challenge_id: challenge_id.to_string(),
            seq,
            prev_batch_hash,
            batch_hash: std::mem::replace(&mut hash, next),
            data,
            received_at,
            request_id: request_id.unwrap_or_default(),
        });
        seq -= 1;
    }
    chain.reverse();
    Ok(chain)
}

fn unset_if_none(v: &Option<String>) -> MaybeUnset<&str> {
    match v {
        Some(s) => MaybeUnset::Set(s.as_str()),
        None => MaybeUnset::Unset,
    }
}

impl ScyllaStore {
    /// Connects, creates the keyspace and tables when missing, prepares every statement.
    pub async fn connect(url: &str) -> Result<Self> {
        let cfg = ScyllaUrl::parse(url)?;
        let serial = cfg.serial.consistency();
        let mut profile = ExecutionProfile::builder().consistency(CONSISTENCY).serial_consistency(Some(serial));
        if let Some(dc) = &cfg.datacenter {
            // LOCAL_QUORUM and LOCAL_SERIAL count in the coordinator's DC: coordinators
            // must be in the named one, with no failover to another.
            let policy = DefaultPolicy::builder().prefer_datacenter(dc.clone()).permit_dc_failover(false).build();
            profile = profile.load_balancing_policy(policy);
        }
        let mut builder = SessionBuilder::new().known_nodes(&cfg.hosts).default_execution_profile_handle(profile.build().into_handle());
        if let Some(user) = &cfg.user {
            let password = std::env::var(PASSWORD_ENV)
                .map_err(|_| StoreError::BadUrl(url.into(), format!("user={user} needs the password in {PASSWORD_ENV}")))?;
            builder = builder.user(user.as_str(), password);
        }
        let session = builder.build().await.map_err(|e| driver(format!("connecting to {}: {e}", cfg.hosts.join(","))))?;
        let nodes_in_dc = nodes_in_local_dc(&session, &cfg)?;
        ensure_schema(&session, &cfg, nodes_in_dc).await?;
        let st = Statements::prepare(&session, &cfg.keyspace, serial).await?;
        Ok(ScyllaStore { session, keyspace: cfg.keyspace, st })
    }

    /// The keyspace this store uses.
    pub fn keyspace(&self) -> &str {
        &self.keyspace
    }

    async fn get_client_by_id(&self, client_id: &str) -> Result<Option<ClientRecord>> {
        let row = self.first_row::<(String, String, String)>(&self.st.get_client, (client_id,)).await?;
        Ok(row.map(|(client_id, name, created_at)| ClientRecord { client_id, name, created_at }))
    }
}

#[async_trait]
impl KeyStore for ScyllaStore {
    async fn create_client(&self, client: &ClientRecord) -> Result<()> {
        let exists = || StoreError::AlreadyExists(format!("client {}", client.name));
        // 1. Claim the name. A claim already held by this very id is a retry of a creation
        //    that died between the two steps: carry on and finish it.
        let claim = self
            .session
            .execute_unpaged(&self.st.claim_client_name, (&client.name, &client.client_id))
            .await
            .map_err(driver)?;
        let claim = Lwt::from_result(claim)?;
        if !claim.applied && claim.text("client_id").as_deref() != Some(client.client_id.as_str()) {
            // Held by another id. A creation that died (or timed out) between the two steps
            // leaves a claim with no client row, which would hold the name forever: finish
            // that creation for it (its id is known only to this claim), so the name names a
            // client again. The name stays taken either way.
            if let Some(holder) = claim.text("client_id") {
                if self.get_client_by_id(&holder).await?.is_none() {
                    let finish = self
                        .session
                        .execute_unpaged(&self.st.insert_client, (&holder, &client.name, &client.created_at))
                        .await
                        .map_err(driver)?;
                    let applied = Lwt::from_result(finish)?.applied;
                    tracing::info!(name = %client.name, applied, "finished a client creation that stopped after claiming its name");
                }
            }
            return Err(exists());
        }
        // 2. Create the client row.
        let insert = self
            .session
            .execute_unpaged(&self.st.insert_client, (&client.client_id, &client.name, &client.created_at))
            .await
            .map_err(driver)?;
        let insert = Lwt::from_result(insert)?;
        // Applied, or finished for this very claim by another caller (above).
        if insert.applied || (claim.applied && insert.text("name").as_deref() == Some(client.name.as_str())) {
            return Ok(());
        }
        // The id is taken: give back the name if this call claimed it.
        if claim.applied {
            let release = self
                .session
                .execute_unpaged(&self.st.release_client_name, (&client.name, &client.client_id))
                .await
                .map_err(driver)?;
            if !Lwt::from_result(release)?.applied {
                tracing::warn!(name = %client.name, "client name claim changed before it could be released");
            }
        }
        Err(exists())
    }

    async fn get_client(&self, client_id: &str) -> Result<Option<ClientRecord>> {
        self.get_client_by_id(client_id).await
    }

    async fn find_client_by_name(&self, name: &str) -> Result<Option<ClientRecord>> {
        let id = self.first_row::<(Option<String>,)>(&self.st.get_client_id_by_name, (name,)).await?;
        let Some((Some(client_id),)) = id else { return Ok(None) };
        // A claim whose client row is missing (creation died half-way) or names another
        // client is not an answer.
        Ok(self.get_client_by_id(&client_id).await?.filter(|c| c.name == name))
    }

    async fn create_access_key(&self, key: &AccessKeyRecord) -> Result<()> {
        let row = (&key.access_key_id, &key.client_id, &key.sealed_secret, &key.created_at, key.revoked);
        self.insert_new(&self.st.insert_access_key, row, || format!("access key {}", key.access_key_id)).await
    }

    async fn get_access_key(&self, access_key_id: &str) -> Result<Option<AccessKeyRecord>> {
        let row = self.first_row::<AccessKeyRow>(&self.st.get_access_key, (access_key_id,)).await?;
        Ok(row.map(key_from_row))
    }

    async fn list_access_keys(&self) -> Result<Vec<AccessKeyRecord>> {
        // Full scan, paged by the driver; see the module docs.
        let pager = self.session.execute_iter(self.st.list_access_keys.clone(), ()).await.map_err(driver)?;
        let mut keys: Vec<AccessKeyRecord> = pager
            .rows_stream::<AccessKeyRow>()
            .map_err(driver)?
            .map_ok(key_from_row)
            .try_collect()
            .await
            .map_err(driver)?;
        // Same order as the SQLite store.
        keys.sort_by(|a, b| (&a.created_at, &a.access_key_id).cmp(&(&b.created_at, &b.access_key_id)));
        Ok(keys)
    }

    async fn revoke_access_key(&self, access_key_id: &str) -> Result<bool> {
        let res = self.session.execute_unpaged(&self.st.revoke_access_key, (access_key_id,)).await.map_err(driver)?;
        Ok(Lwt::from_result(res)?.applied)
    }

    async fn create_key_pair(&self, key_pair: &KeyPairRecord) -> Result<()> {
        let k = key_pair;
        // 1. The lookup row first (see the module docs): harmless if step 2 fails.
        self.session
            .execute_unpaged(&self.st.index_key_pair, (&k.client_id, &k.key_pair_id))
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)?;
        // 2. The key pair itself.
        let row = (&k.key_pair_id, &k.client_id, &k.public_der, &k.sealed_private, &k.created_at, k.active);
        self.insert_new(&self.st.insert_key_pair, row, || format!("key pair {}", k.key_pair_id)).await
    }

    async fn get_key_pair(&self, key_pair_id: &str) -> Result<Option<KeyPairRecord>> {
        let row = self.first_row::<KeyPairRow>(&self.st.get_key_pair, (key_pair_id,)).await?;
        Ok(row.map(key_pair_from_row))
    }

    async fn list_key_pairs(&self, client_id: Option<&str>) -> Result<Vec<KeyPairRecord>> {
        let mut key_pairs: Vec<KeyPairRecord> = match client_id {
            // Full scan, paged by the driver; see the module docs.
            None => self
                .session
                .execute_iter(self.st.list_key_pairs.clone(), ())
                .await
                .map_err(driver)?
                .rows_stream::<KeyPairRow>()
                .map_err(driver)?
                .map_ok(key_pair_from_row)
                .try_collect()
                .await
                .map_err(driver)?,
            // The client's lookup partition, then each key pair by id.
            Some(client_id) => {
                let ids = self.lookup_ids(&self.st.list_key_pair_ids_of_client, (client_id,)).await?;
                let found = self.read_each(ids, |id| async move { self.get_key_pair(&id).await }).await?;
                // Lookup rows left by failed creations point at no key pair, or at another
                // client's.
                found.into_iter().flatten().filter(|k| k.client_id == client_id).collect()
            }
        };
        // Same order as the SQLite store.
        key_pairs.sort_by(|a, b| (&a.created_at, &a.key_pair_id).cmp(&(&b.created_at, &b.key_pair_id)));
        Ok(key_pairs)
    }

    async fn set_key_pair_active(&self, key_pair_id: &str, active: bool) -> Result<bool> {
        let res =
            self.session.execute_unpaged(&self.st.set_key_pair_active, (active, key_pair_id)).await.map_err(driver)?;
        Ok(Lwt::from_result(res)?.applied)
    }
}

#[async_trait]
impl RequestStore for ScyllaStore {
    async fn create_request(&self, request: &RequestRecord) -> Result<()> {
        let r = request;
        let row = (
            &r.request_id,
            &r.client_id,
            &r.operation,
            &r.created_at,
            // Unset, not null: a null would write a tombstone.
            unset_if_none(&r.response),
            unset_if_none(&r.finished_at),
            REQUEST_TTL_SECS,
        );
        self.insert_new(&self.st.insert_request, row, || format!("request {}", r.request_id)).await
    }

    async fn complete_request(&self, request_id: &str, response: &str, finished_at: &str) -> Result<Completion> {
        let res = self
            .session
            .execute_unpaged(&self.st.complete_request, (REQUEST_TTL_SECS, response, finished_at, request_id))
            .await
            .map_err(driver)?;
        let lwt = Lwt::from_result(res)?;
        if lwt.applied {
            return Ok(Completion::Stored);
        }
        // Not applied: the condition `client_id != null AND response = null` was false
        // when Paxos evaluated it, so either there is no (live) row, or it has a response.
        if lwt.text("client_id").is_none() {
            return Ok(Completion::UnknownRequest);
        }
        match lwt.text("response") {
            Some(response) => Ok(Completion::AlreadyCompleted { response }),
            None => Err(StoreError::Backend(format!(
                "scylla: completion of request {request_id} was not applied, yet the server reports it open"
            ))),
        }
    }

    async fn get_request(&self, request_id: &str) -> Result<Option<RequestRecord>> {
        type RequestRow = (String, Option<String>, Option<String>, Option<String>, Option<String>, Option<String>);
        let row = self.first_row::<RequestRow>(&self.st.get_request, (request_id,)).await?;
        // A row without its creation cells is the tail of an expired request.
        Ok(row.and_then(|(request_id, client_id, operation, created_at, response, finished_at)| {
            Some(RequestRecord {
                request_id,
                client_id: client_id?,
                operation: operation?,
                created_at: created_at?,
                response,
                finished_at,
            })
        }))
    }

    async fn put_blob_meta(&self, meta: &BlobMeta) -> Result<()> {
        let size =
            i64::try_from(meta.size).map_err(|_| StoreError::Backend(format!("blob size {} too large", meta.size)))?;
        // Nulls (not unset) for absent optional fields: this is a replace, like SQLite's
        // INSERT OR REPLACE, so an earlier value must not survive.
        self.session
            .execute_unpaged(
                &self.st.put_blob_meta,
                (
                    &meta.id,
                    &meta.client_id,
                    &meta.kind,
                    size,
                    &meta.sha256,
                    &meta.label,
                    &meta.content_type,
                    &meta.metadata,
                    &meta.created_at,
                ),
            )
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)
    }

    async fn get_blob_meta(&self, id: &str) -> Result<Option<BlobMeta>> {
        type BlobRow = (String, String, String, i64, String, Option<String>, Option<String>, Option<String>, String);
        let row = self.first_row::<BlobRow>(&self.st.get_blob_meta, (id,)).await?;
        Ok(row.map(|(id, client_id, kind, size, sha256, label, content_type, metadata, created_at)| BlobMeta {
            id,
            client_id,
            kind,
            size: size.max(0) as u64,
            sha256,
            label,
            content_type,
            metadata,
            created_at,
        }))
    }

    async fn claim_once(&self, key: &str, owner: &str, ttl: std::time::Duration) -> Result<bool> {
        let res = self.session.execute_unpaged(&self.st.claim_replay_key, (key, owner, ttl_secs(ttl))).await.map_err(driver)?;
        // Not applied: the LWT answer carries the current holder.
        let lwt = Lwt::from_result(res)?;
        Ok(lwt.applied || lwt.text("owner").as_deref() == Some(owner))
    }
}

#[async_trait]
impl FaceStore for ScyllaStore {
    async fn put_face_user(&self, user: &FaceUserRecord) -> Result<()> {
        let record = serde_json::to_string(user).map_err(|e| StoreError::Backend(e.to_string()))?;
        self.session
            .execute_unpaged(&self.st.put_face_user, (&user.client_id, &user.cus_user_id, record))
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)
    }

    async fn get_face_user(&self, client_id: &str, cus_user_id: &str) -> Result<Option<FaceUserRecord>> {
        let row = self.first_row::<(String,)>(&self.st.get_face_user, (client_id, cus_user_id)).await?;
        row.map(|(s,)| serde_json::from_str(&s).map_err(|e| StoreError::Backend(format!("face user record: {e}"))))
            .transpose()
    }

    async fn put_face_template(&self, t: &FaceTemplateRecord) -> Result<()> {
        self.session
            .execute_unpaged(
                &self.st.put_face_template,
                (
                    &t.client_id,
                    &t.cus_user_id,
                    &t.template_id,
                    &t.face_type,
                    &t.model_id,
                    &t.model_version,
                    &t.sealed_vector,
                    &t.image_id,
                    &t.created_at,
                ),
            )
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)
    }

    async fn list_face_templates(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<FaceTemplateRecord>> {
        type TemplateRow = (String, String, String, String, String, String, Vec<u8>, String, String);
        let rows: Vec<TemplateRow> = self
            .session
            .execute_iter(self.st.list_face_templates.clone(), (client_id, cus_user_id))
            .await
            .map_err(driver)?
            .rows_stream::<TemplateRow>()
            .map_err(driver)?
            .try_collect()
            .await
            .map_err(driver)?;
        let mut out: Vec<FaceTemplateRecord> = rows
            .into_iter()
            .map(|(client_id, cus_user_id, template_id, face_type, model_id, model_version, sealed_vector, image_id, created_at)| {
                FaceTemplateRecord {
                    client_id,
                    cus_user_id,
                    template_id,
                    face_type,
                    model_id,
                    model_version,
                    sealed_vector,
                    image_id,
                    created_at,
                }
            })
            .collect();
        out.sort_by(|a, b| (&a.created_at, &a.template_id).cmp(&(&b.created_at, &b.template_id)));
        Ok(out)
    }

    async fn delete_face_templates(&self, client_id: &str, cus_user_id: &str) -> Result<()> {
        self.session
            .execute_unpaged(&self.st.delete_face_templates, (client_id, cus_user_id))
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)
    }

    async fn add_face_history(&self, h: &FaceHistoryRecord) -> Result<()> {
        self.session
            .execute_unpaged(
                &self.st.add_face_history,
                (&h.client_id, &h.cus_user_id, &h.created_at, &h.id, &h.status, &h.record),
            )
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)
    }

    async fn list_face_histories(&self, client_id: &str, cus_user_id: &str, limit: usize) -> Result<Vec<FaceHistoryRecord>> {
        type HistoryRow = (String, String, String, String, String, String);
        // `LIMIT 0` is a CQL error; SQLite answers nothing, and so does this.
        if limit == 0 {
            return Ok(Vec::new());
        }
        // The clustering order (created_at DESC, id DESC) makes LIMIT the newest ones.
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let rows: Vec<HistoryRow> = self
            .session
            .execute_iter(self.st.list_face_histories.clone(), (client_id, cus_user_id, limit))
            .await
            .map_err(driver)?
            .rows_stream::<HistoryRow>()
            .map_err(driver)?
            .try_collect()
            .await
            .map_err(driver)?;
        Ok(rows
            .into_iter()
            .map(|(client_id, cus_user_id, id, created_at, status, record)| FaceHistoryRecord {
                client_id,
                cus_user_id,
                id,
                created_at,
                status,
                record,
            })
            .collect())
    }
}

#[async_trait]
impl BehaviorStore for ScyllaStore {
    async fn create_device(&self, device: &DeviceRecord) -> Result<()> {
        let d = device;
        // 1. The lookup row first (as for key pairs): harmless if step 2 fails.
        self.session
            .execute_unpaged(&self.st.index_device, (&d.client_id, &d.cus_user_id, &d.customer_user_device_id))
            .await
            .map_err(driver)?
            .result_not_rows()
            .map_err(driver)?;
        // 2. The device itself.
        let row = (
            &d.customer_user_device_id,
            &d.client_id,
            &d.cus_user_id,
            &d.device_id,
            &d.key_pair_id,
            &d.public_der,
            d.deactivated,
            &d.created_at,
        );
        self.insert_new(&self.st.insert_device, row, || format!("device {}", d.customer_user_device_id)).await
    }

    async fn get_device(&self, customer_user_device_id: &str) -> Result<Option<DeviceRecord>> {
        let row = self.first_row::<DeviceRow>(&self.st.get_device, (customer_user_device_id,)).await?;
        Ok(row.map(device_from_row))
    }

    async fn set_device_deactivated(&self, customer_user_device_id: &str, deactivated: bool) -> Result<bool> {
        let res = self
            .session
            .execute_unpaged(&self.st.set_device_deactivated, (deactivated, customer_user_device_id))
            .await
            .map_err(driver)?;
        Ok(Lwt::from_result(res)?.applied)
    }

    async fn list_devices(&self, client_id: &str, cus_user_id: &str) -> Result<Vec<DeviceRecord>> {
        let ids = self.lookup_ids(&self.st.list_device_ids_of_user, (client_id, cus_user_id)).await?;
        let found = self.read_each(ids, |id| async move { self.get_device(&id).await }).await?;
        // Lookup rows of failed creations or deleted devices point at nothing, or (an id
        // taken) at someone else's device.
        let mut devices: Vec<DeviceRecord> =
            found.into_iter().flatten().filter(|d| d.client_id == client_id && d.cus_user_id == cus_user_id).collect();
        // Same order as the SQLite store.
        devices.sort_by(|a, b| (&a.created_at, &a.customer_user_device_id).cmp(&(&b.created_at, &b.customer_user_device_id)));
        Ok(devices)
    }

    async fn delete_device(&self, customer_user_device_id: &str) -> Result<bool> {
        let res = self.session.execute_unpaged(&self.st.delete_device, (customer_user_device_id,)).await.map_err(driver)?;
        let lwt = Lwt::from_result(res)?;
        if lwt.applied {
            // The lookup row is only tidied: a leftover one is ignored on read.
            if let (Some(client), Some(user)) = (lwt.text("client_id"), lwt.text("cus_user_id")) {
                self.session
                    .execute_unpaged(&self.st.unindex_device, (client, user, customer_user_device_id))
                    .await
                    .map_err(driver)?
                    .result_not_rows()
                    .map_err(driver)?;
            }
        }
        Ok(lwt.applied)
    }

    async fn create_challenge(&self, challenge: &ChallengeRecord) -> Result<()> {
        let c = challenge;
        let row = (
            &c.challenge_id,
            &c.client_id,
            &c.customer_user_device_id,
            &c.cus_user_id,
            &c.session_id,
            &c.nonce,
            &c.status,
            &c.created_at,
            c.expires_at,
            c.last_seq,
            &c.last_hash,
            CHALLENGE_TTL_SECS,
        );
        self.insert_new(&self.st.insert_challenge, row, || format!("challenge {}", c.challenge_id)).await
    }

    async fn get_challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>> {
        let row = self.first_row::<ChallengeRow>(&self.st.get_challenge, (challenge_id,)).await?;
        Ok(row.and_then(challenge_from_row))
    }

    async fn append_batch(&self, batch: &BatchRecord) -> Result<bool> {
        let b = batch;
        // No seq can follow a head below -1; refusing here also keeps `seq - 1` in range.
        if b.seq < 0 {
            return Ok(false);
        }
        let expected_seq = b.seq - 1;
        // 1. The batch row, before the head can point at it (see the module docs). Keyed
        //    by its hash too, so it cannot overwrite a racing push's row; claimed with IF
        //    NOT EXISTS, so the same batch pushed twice (a re-signed retry, another request
        //    id) keeps the first request's id: the request that claims the row is the only
        //    one that may move the head to it, as in SQLite, where the second insert of a
        //    committed batch is refused.
        let res = self
            .session
            .execute_unpaged(
                &self.st.insert_batch,
                (
                    &b.challenge_id,
                    b.seq,
                    &b.batch_hash,
                    &b.prev_batch_hash,
                    &b.data,
                    &b.received_at,
                    &b.request_id,
                    CHALLENGE_TTL_SECS,
                ),
            )
            .await
            .map_err(driver)?;
        let row = Lwt::from_result(res)?;
        if !row.applied && row.text("request_id").as_deref() != Some(b.request_id.as_str()) {
            return Ok(false);
        }
        // 2. Move the head: compare-and-set on (status, last_seq, last_hash). A losing
        //    push's row from step 1 stays behind, off the chain, until its TTL.
        let res = self
            .session
            .execute_unpaged(
                &self.st.move_challenge_head,
                (CHALLENGE_TTL_SECS, b.seq, &b.batch_hash, &b.challenge_id, expected_seq, &b.prev_batch_hash),
            )
            .await
            .map_err(driver)?;
        Ok(Lwt::from_result(res)?.applied)
    }

    async fn list_batches(&self, challenge_id: &str) -> Result<Vec<BatchRecord>> {
        // The head first, then the rows: every row the head (or an older head) reaches was
        // written before that head was committed, so reading in this order finds it.
        let Some(head) = self.get_challenge(challenge_id).await? else { return Ok(Vec::new()) };
        if head.last_seq < 0 {
            return Ok(Vec::new());
        }
        let rows: Vec<BatchRow> = self
            .session
            .execute_iter(self.st.list_batch_rows.clone(), (challenge_id,))
            .await
            .map_err(driver)?
            .rows_stream::<BatchRow>()
            .map_err(driver)?
            .try_collect()
            .await
            .map_err(driver)?;
        committed_chain(challenge_id, head.last_seq, &head.last_hash, rows)
    }

    async fn finalize_challenge(&self, challenge_id: &str) -> Result<bool> {
        let res = self
            .session
            .execute_unpaged(&self.st.finalize_challenge, (CHALLENGE_TTL_SECS, challenge_id))
            .await
            .map_err(driver)?;
        Ok(Lwt::from_result(res)?.applied)
    }

    async fn get_baseline(&self, client_id: &str, cus_user_id: &str) -> Result<Option<BaselineRecord>> {
        type BaselineRow = (String, String, i64, Vec<u8>, String);
        let row = self.first_row::<BaselineRow>(&self.st.get_baseline, (client_id, cus_user_id)).await?;
        Ok(row.map(|(client_id, cus_user_id, version, data, updated_at)| BaselineRecord {
            client_id,
            cus_user_id,
            version,
            data,
            updated_at,
        }))
    }

    async fn put_baseline(&self, baseline: &BaselineRecord, expected_version: Option<i64>) -> Result<bool> {
        let b = baseline;
        let res = match expected_version {
            None => self
                .session
                .execute_unpaged(
                    &self.st.insert_baseline,
                    (&b.client_id, &b.cus_user_id, b.version, &b.data, &b.updated_at),
                )
                .await
                .map_err(driver)?,
            Some(expected) => self
                .session
                .execute_unpaged(
                    &self.st.update_baseline,
                    (b.version, &b.data, &b.updated_at, &b.client_id, &b.cus_user_id, expected),
                )
                .await
                .map_err(driver)?,
        };
        Ok(Lwt::from_result(res)?.applied)
    }
}

#[async_trait]
impl SessionStore for ScyllaStore {
    async fn get_session(&self, key: &str) -> Result<Option<SessionRecord>> {
        let now = crate::unix_now_ms() / 1000;
        let row = self
            .session
            .execute_unpaged(&self.st.get_session, (key,))
            .await
            .map_err(driver)?
            .into_rows_result()
            .map_err(driver)?
            .maybe_first_row::<(String, Option<i64>, Option<Vec<u8>>, Option<i64>)>()
            .map_err(driver)?;
        Ok(row.and_then(|(key, version, data, expires_at)| {
            let (version, data, expires_at) = (version?, data?, expires_at?);
            (expires_at > now).then_some(SessionRecord { key, version, data, expires_at })
        }))
    }

    async fn put_session(&self, session: &SessionRecord, expected_version: Option<i64>) -> Result<bool> {
        let s = session;
        // The row lives until its expiry (TTL rounded up, clamped), then vanishes by itself.
        let remaining_ms = (s.expires_at * 1000 - crate::unix_now_ms()).max(0);
        let ttl = ttl_secs(std::time::Duration::from_millis(u64::try_from(remaining_ms).unwrap_or(0)));
        let res = match expected_version {
            None => {
                let res = self
                    .session
                    .execute_unpaged(&self.st.insert_session, (&s.key, s.version, &s.data, s.expires_at, ttl))
                    .await
                    .map_err(driver)?;
                let lwt = Lwt::from_result(res)?;
                // A row past its expiry whose TTL has not run out yet (TTLs are whole
                // seconds) is absent to readers, and SQLite lets a new session replace it:
                // so does this, by its version.
                let expired_version = match (lwt.bigint("expires_at"), lwt.bigint("version")) {
                    (Some(expires_at), Some(version)) if expires_at <= crate::unix_now_ms() / 1000 => Some(version),
                    _ => None,
                };
                match (lwt.applied, expired_version) {
                    (true, _) => return Ok(true),
                    (false, None) => return Ok(false),
                    (false, Some(v)) => self
                        .session
                        .execute_unpaged(&self.st.update_session, (ttl, s.version, &s.data, s.expires_at, &s.key, v))
                        .await
                        .map_err(driver)?,
                }
            }
            Some(v) => self
                .session
                .execute_unpaged(&self.st.update_session, (ttl, s.version, &s.data, s.expires_at, &s.key, v))
                .await
                .map_err(driver)?,
        };
        Ok(Lwt::from_result(res)?.applied)
    }
}

impl Store for ScyllaStore {
    fn backend(&self) -> &'static str {
        "scylla"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<ScyllaUrl> {
        ScyllaUrl::parse(url)
    }

    #[test]
    fn url_with_one_host() {
        let u = parse("scylla://127.0.0.1:9042/idv").expect("valid url");
        assert_eq!(u.hosts, vec!["127.0.0.1:9042"]);
        assert_eq!(u.keyspace, "idv");
        assert_eq!(u.replication_factor, DEFAULT_REPLICATION_FACTOR);
    }

    #[test]
    fn url_with_host_list_default_port_ipv6_and_parameters() {
        let u =
            parse("scylla://db1:9042, db2 ,[::1]:19042,[fe80::1]/IDV_Test?replication_factor=1").expect("valid url");
        assert_eq!(u.hosts, vec!["db1:9042", "db2:9042", "[::1]:19042", "[fe80::1]:9042"]);
        assert_eq!(u.keyspace, "idv_test", "unquoted CQL identifiers fold to lower case");
        assert_eq!(u.replication_factor, 1);
    }

    #[test]
    fn bad_urls() {
        for url in [
            "scylla://127.0.0.1:9042",  // no keyspace
            "scylla://127.0.0.1:9042/", // empty keyspace
            "scylla://127.0.0.1:9042/?replication_factor=1",
            "scylla:///idv",               // no host
            "scylla://a:9042,,b:9042/idv", // empty host in list
            "scylla://a:port/idv",         // bad port
            "scylla://a:0/idv",
            "scylla://a:70000/idv",
            "scylla://[::1/idv",
            "scylla://a/idv;DROP", // keyspace is spliced into CQL
            "scylla://a/1idv",
            "scylla://a/idv.x",
            "scylla://a/idv?replication_factor=0",
            "scylla://a/idv?replication_factor=x",
            "scylla://a/idv?consistency=one",
            "scylla://user@a/idv",
            "sqlite://x",
        ] {
            assert!(matches!(parse(url), Err(StoreError::BadUrl(..))), "{url} must be refused");
        }
        let long = format!("scylla://a/{}", "k".repeat(49));
        assert!(matches!(parse(&long), Err(StoreError::BadUrl(..))));
    }

    #[tokio::test]
    async fn connect_refuses_a_bad_url_before_touching_the_network() {
        assert!(matches!(ScyllaStore::connect("scylla://127.0.0.1:9042").await, Err(StoreError::BadUrl(..))));
        assert!(matches!(crate::open("scylla://127.0.0.1:9042/").await, Err(StoreError::BadUrl(..))));
    }

    #[test]
    fn embedded_schema_splits_into_the_expected_statements() {
        let st = schema_statements("idv_x", 1).expect("schema parses");
        assert_eq!(st[0].table, None);
        assert!(st[0].cql.starts_with("CREATE KEYSPACE IF NOT EXISTS idv_x"));
        assert!(st[0].cql.contains("'replication_factor': 1}"));
        let tables: Vec<_> = st.iter().filter_map(|s| s.table.as_deref()).collect();
        assert_eq!(
            tables,
            [
                "clients",
                "clients_by_name",
                "access_keys",
                "requests",
                "blobs",
                "face_users",
                "face_templates",
                "face_histories",
                "key_pairs",
                "key_pairs_by_client",
                "devices",
                "devices_by_user",
                "challenges",
                "batches",
                "sessions",
                "replay_claims",
                "baselines",
            ]
        );
        for s in &st {
            assert!(!s.cql.contains("__"), "placeholder left in {}", s.cql);
            assert!(!s.cql.contains("--"), "comment left in {}", s.cql);
            if s.table.is_some() {
                assert!(s.cql.starts_with("CREATE TABLE IF NOT EXISTS idv_x."), "{}", s.cql);
            }
        }
    }

    #[test]
    fn url_parameters_for_datacenter_serial_scope_and_user() {
        let u = parse("scylla://a/idv?datacenter=eu-west_1&serial=global&user=idv").expect("valid url");
        assert_eq!(u.datacenter.as_deref(), Some("eu-west_1"));
        assert_eq!(u.serial, SerialScope::Global);
        assert_eq!(u.user.as_deref(), Some("idv"));
        let d = parse("scylla://a/idv").expect("valid url");
        assert_eq!((d.datacenter, d.serial, d.user), (None, SerialScope::Local, None));
        for bad in [
            "scylla://a/idv?password=hunter2",
            "scylla://a/idv?serial=quorum",
            "scylla://a/idv?datacenter=",
            "scylla://a/idv?datacenter=dc'1",
            "scylla://a/idv?user=a%20b",
        ] {
            assert!(matches!(parse(bad), Err(StoreError::BadUrl(..))), "{bad} must be refused");
        }
        let e = parse("scylla://a/idv?password=hunter2").expect_err("refused").to_string();
        assert!(e.contains(PASSWORD_ENV), "{e}");
    }

    #[test]
    fn replication_factor_never_exceeds_the_datacenters_nodes() {
        assert_eq!(effective_replication_factor(3, 1), (1, true), "docker-compose's single node");
        assert_eq!(effective_replication_factor(3, 5), (3, false));
        assert_eq!(effective_replication_factor(3, 3), (3, false));
        assert_eq!(effective_replication_factor(5, 3), (3, true));
        assert_eq!(effective_replication_factor(1, 0), (1, false), "an empty node list still gets 1");
    }

    #[test]
    fn a_lost_ddl_race_is_recognised_and_other_errors_are_not() {
        assert!(lost_a_ddl_race("Invalid column name owner because it conflicts with an existing column"));
        assert!(lost_a_ddl_race("Table idv.requests already exists"));
        assert!(!lost_a_ddl_race("Unavailable: cannot achieve consistency level LOCAL_QUORUM"));
        assert!(!lost_a_ddl_race("Invalid syntax at line 1"));
    }

    #[test]
    fn ttls_round_up_and_stay_within_what_scylladb_accepts() {
        use std::time::Duration;
        assert_eq!(ttl_secs(Duration::from_millis(1900)), 2, "rounded up, never down");
        assert_eq!(ttl_secs(Duration::from_secs(300)), 300);
        assert_eq!(ttl_secs(Duration::from_millis(1)), 1);
        assert_eq!(ttl_secs(Duration::ZERO), 1, "0 would mean never expires");
        assert_eq!(ttl_secs(Duration::from_secs(u64::MAX)), MAX_TTL_SECS);
        assert_eq!(ttl_secs(Duration::from_secs(10 * 630_720_000)), MAX_TTL_SECS);
    }

    #[test]
    fn schema_default_ttl_matches_the_request_ttl() {
        let st = schema_statements("k", 3).expect("schema parses");
        let requests = st.iter().find(|s| s.table.as_deref() == Some("requests")).expect("requests table");
        assert!(requests.cql.contains(&format!("default_time_to_live = {REQUEST_TTL_SECS}")), "{}", requests.cql);
        assert_eq!(REQUEST_TTL_SECS, 604_800);
    }

    #[test]
    fn schema_default_ttl_matches_the_challenge_ttl() {
        let st = schema_statements("k", 3).expect("schema parses");
        for table in ["challenges", "batches"] {
            let s = st.iter().find(|s| s.table.as_deref() == Some(table)).expect("table");
            assert!(s.cql.contains(&format!("default_time_to_live = {CHALLENGE_TTL_SECS}")), "{}", s.cql);
        }
        for table in ["key_pairs", "key_pairs_by_client", "devices", "devices_by_user", "baselines"] {
            let s = st.iter().find(|s| s.table.as_deref() == Some(table)).expect("table");
            assert!(!s.cql.contains("default_time_to_live"), "{table} must not expire: {}", s.cql);
        }
        assert_eq!(CHALLENGE_TTL_SECS, 604_800);
    }

    #[test]
    fn added_columns_are_in_the_schema_file_too() {
        let st = schema_statements("k", 3).expect("schema parses");
        for m in crate::migrations::MIGRATIONS {
            let crate::migrations::Change::AddColumn { table, column, cql: cql_type, .. } = m.change;
            let t = st.iter().find(|s| s.table.as_deref() == Some(table)).expect("table");
            assert!(t.cql.contains(&format!("{column} {cql_type}")), "{table}.{column} missing from ops/scylla/schema.cql");
        }
    }

    #[test]
        fn batches_key_includes_the_hash() {
        let st = schema_statements("k", 3).expect("schema parses");
        let batches = st.iter().find(|s| s.table.as_deref() == Some("batches")).expect("batches table");
        assert!(batches.cql.contains("PRIMARY KEY ((challenge_id), seq, batch_hash)"), "{}", batches.cql);
    }

    fn row(seq: i64, prev: &str, hash: &str) -> BatchRow {
        (seq, hash.into(), prev.into(), format!("data-{hash}"), "t".into(), Some(format!("req-{hash}")))
    }

    #[test]
    fn committed_chain_follows_the_head_and_ignores_losing_rows() {
        let rows = vec![
            row(2, "h1", "h2-lost"),
            row(1, "h0", "h1"),
            row(0, "", "h0-lost"),
            row(0, "", "h0"),
            row(2, "h1", "h2"),
            row(1, "h0-lost", "h1-lost"),
            row(3, "h2-lost", "h3-lost"),
        ];
        let chain = committed_chain("c", 2, "h2", rows).expect("chain");
        let links: Vec<_> = chain.iter().map(|b| (b.seq, b.prev_batch_hash.as_str(), b.batch_hash.as_str())).collect();
        assert_eq!(links, [(0, "", "h0"), (1, "h0", "h1"), (2, "h1", "h2")]);
        assert!(chain.iter().all(|b| b.challenge_id == "c" && b.data == format!("data-{}", b.batch_hash)));
        assert!(chain.iter().all(|b| b.request_id == format!("req-{}", b.batch_hash)));
    }

    #[test]
    fn committed_chain_of_an_empty_head_is_empty() {
        assert!(committed_chain("c", -1, "", vec![row(0, "", "h0")]).expect("chain").is_empty());
    }

    #[test]
    fn committed_chain_with_a_missing_link_is_an_error() {
        let rows = vec![row(0, "", "h0"), row(2, "h1", "h2")];
        assert!(matches!(committed_chain("c", 2, "h2", rows), Err(StoreError::Backend(_))));
        assert!(matches!(committed_chain("c", 0, "h0", vec![]), Err(StoreError::Backend(_))));
    }

    #[test]
    fn expired_challenge_tail_reads_as_absent() {
        let tail: ChallengeRow =
            ("c".into(), None, None, None, None, None, Some("scored".into()), None, None, Some(3), Some("h3".into()));
        assert_eq!(challenge_from_row(tail), None);
    }
}

