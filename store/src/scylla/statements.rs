//! Every prepared statement, and the lightweight-transaction outcome reader.

use crate::Result;
use scylla::client::session::Session;
use scylla::response::query_result::QueryResult;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};
use scylla::value::{CqlValue, Row};
use std::collections::HashMap;

use super::*;

/// The outcome of a lightweight transaction: `[applied]`, and the old row's columns the
/// server sent back. ScyllaDB always sends the whole old row (nulls where there was no
/// row); Cassandra sends only the conditioned columns, and only when not applied. Columns
/// are therefore looked up by name, and an absent column reads as null.
pub(crate) struct Lwt {
    pub(crate) applied: bool,
    pub(crate) old: HashMap<String, Option<CqlValue>>,
}

impl Lwt {
    pub(crate) fn from_result(result: QueryResult) -> Result<Self> {
        let rows = result.into_rows_result().map_err(driver)?;
        let names: Vec<String> = rows.column_specs().iter().map(|c| c.name().to_string()).collect();
        let row = rows.maybe_first_row::<Row>().map_err(driver)?.ok_or_else(|| driver("LWT result has no row"))?;
        let mut applied = None;
        let mut old = HashMap::new();
        for (name, value) in names.into_iter().zip(row.columns) {
            if name == "[applied]" {
                applied = value.as_ref().and_then(CqlValue::as_boolean);
            } else {
                old.insert(name, value);
            }
        }
        let applied = applied.ok_or_else(|| driver("LWT result has no [applied] column"))?;
        Ok(Lwt { applied, old })
    }

    pub(crate) fn text(&self, column: &str) -> Option<String> {
        self.old.get(column).cloned().flatten().and_then(CqlValue::into_string)
    }

    pub(crate) fn bigint(&self, column: &str) -> Option<i64> {
        self.old.get(column).and_then(|v| v.as_ref()).and_then(CqlValue::as_bigint)
    }
}

/// Statements prepared once at connect.
pub(crate) struct Statements {
    pub(crate) claim_client_name: PreparedStatement,
    pub(crate) release_client_name: PreparedStatement,
    pub(crate) get_client_id_by_name: PreparedStatement,
    pub(crate) insert_client: PreparedStatement,
    pub(crate) get_client: PreparedStatement,
    pub(crate) insert_access_key: PreparedStatement,
    pub(crate) get_access_key: PreparedStatement,
    pub(crate) list_access_keys: PreparedStatement,
    pub(crate) revoke_access_key: PreparedStatement,
    pub(crate) insert_request: PreparedStatement,
    pub(crate) complete_request: PreparedStatement,
    pub(crate) get_request: PreparedStatement,
    pub(crate) put_blob_meta: PreparedStatement,
    pub(crate) get_blob_meta: PreparedStatement,
    pub(crate) put_face_user: PreparedStatement,
    pub(crate) get_face_user: PreparedStatement,
    pub(crate) put_face_template: PreparedStatement,
    pub(crate) list_face_templates: PreparedStatement,
    pub(crate) delete_face_templates: PreparedStatement,
    pub(crate) add_face_history: PreparedStatement,
    pub(crate) list_face_histories: PreparedStatement,
    pub(crate) insert_key_pair: PreparedStatement,
    pub(crate) index_key_pair: PreparedStatement,
    pub(crate) get_key_pair: PreparedStatement,
    pub(crate) list_key_pairs: PreparedStatement,
    pub(crate) list_key_pair_ids_of_client: PreparedStatement,
    pub(crate) set_key_pair_active: PreparedStatement,
    pub(crate) insert_device: PreparedStatement,
    pub(crate) index_device: PreparedStatement,
    pub(crate) get_device: PreparedStatement,
    pub(crate) set_device_deactivated: PreparedStatement,
    pub(crate) list_device_ids_of_user: PreparedStatement,
    pub(crate) delete_device: PreparedStatement,
    pub(crate) unindex_device: PreparedStatement,
    pub(crate) insert_challenge: PreparedStatement,
    pub(crate) get_challenge: PreparedStatement,
    pub(crate) move_challenge_head: PreparedStatement,
    pub(crate) finalize_challenge: PreparedStatement,
    pub(crate) insert_batch: PreparedStatement,
    pub(crate) list_batch_rows: PreparedStatement,
    pub(crate) get_baseline: PreparedStatement,
    pub(crate) insert_baseline: PreparedStatement,
    pub(crate) update_baseline: PreparedStatement,
    pub(crate) claim_replay_key: PreparedStatement,
    pub(crate) get_session: PreparedStatement,
    pub(crate) insert_session: PreparedStatement,
    pub(crate) update_session: PreparedStatement,
}

pub(crate) const KEY_PAIR_COLUMNS: &str = "key_pair_id, client_id, public_der, sealed_private, created_at, active";
pub(crate) const DEVICE_COLUMNS: &str =
    "customer_user_device_id, client_id, cus_user_id, device_id, key_pair_id, public_der, deactivated, created_at";
pub(crate) const CHALLENGE_COLUMNS: &str = "challenge_id, client_id, customer_user_device_id, cus_user_id, session_id, nonce, \
                                 status, created_at, expires_at, last_seq, last_hash";

#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// Reads and plain upserts: LOCAL_QUORUM, idempotent.
    Plain,
    /// Lightweight transactions: Paxos at the URL's serial scope (`LOCAL_SERIAL` unless
    /// `serial=global`), LOCAL_QUORUM commit, not idempotent.
    Lwt,
}

pub(crate) async fn prepare(session: &Session, serial: SerialConsistency, cql: String, kind: Kind) -> Result<PreparedStatement> {
    let mut p = session.prepare(cql.as_str()).await.map_err(|e| driver(format!("preparing {cql:?}: {e}")))?;
    p.set_consistency(CONSISTENCY);
    match kind {
        Kind::Plain => {
            p.set_serial_consistency(None);
            p.set_is_idempotent(true);
        }
        Kind::Lwt => {
            p.set_serial_consistency(Some(serial));
            p.set_is_idempotent(false);
        }
    }
    Ok(p)
}

impl Statements {
    pub(crate) async fn prepare(s: &Session, ks: &str, serial: SerialConsistency) -> Result<Self> {
        use Kind::*;
        Ok(Statements {
            claim_client_name: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.clients_by_name (name, client_id) VALUES (?, ?) IF NOT EXISTS"),
                Lwt,
            )
            .await?,
            release_client_name: prepare(s, serial, format!("DELETE FROM {ks}.clients_by_name WHERE name = ? IF client_id = ?"), Lwt)
                .await?,
            get_client_id_by_name: prepare(s, serial, format!("SELECT client_id FROM {ks}.clients_by_name WHERE name = ?"), Plain)
                .await?,
            insert_client: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.clients (client_id, name, created_at) VALUES (?, ?, ?) IF NOT EXISTS"),
                Lwt,
            )
            .await?,
            get_client: prepare(s, serial, format!("SELECT client_id, name, created_at FROM {ks}.clients WHERE client_id = ?"), Plain)
                .await?,
            insert_access_key: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.access_keys (access_key_id, client_id, sealed_secret, created_at, revoked) \
                     VALUES (?, ?, ?, ?, ?) IF NOT EXISTS"
                ),
                Lwt,
            )
            .await?,
            get_access_key: prepare(
                s,
                serial,
                format!(
                    "SELECT access_key_id, client_id, sealed_secret, created_at, revoked FROM {ks}.access_keys \
                     WHERE access_key_id = ?"
                ),
                Plain,
            )
            .await?,
            list_access_keys: prepare(
                s,
                serial,
                format!("SELECT access_key_id, client_id, sealed_secret, created_at, revoked FROM {ks}.access_keys"),
                Plain,
            )
            .await?,
            revoke_access_key: prepare(
                s,
                serial,
                format!("UPDATE {ks}.access_keys SET revoked = true WHERE access_key_id = ? IF EXISTS"),
                Lwt,
            )
            .await?,
            insert_request: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.requests (request_id, client_id, operation, created_at, response, finished_at) \
                     VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?"
                ),
                Lwt,
            )
            .await?,
            // `IF client_id != null` makes a missing (or expired) row fail the condition:
            // `response = null` alone holds for a missing row, and the UPDATE would then
            // create a stray row holding only a response.
            complete_request: prepare(
                s,
                serial,
                format!(
                    "UPDATE {ks}.requests USING TTL ? SET response = ?, finished_at = ? WHERE request_id = ? \
                     IF client_id != null AND response = null"
                ),
                Lwt,
            )
            .await?,
            get_request: prepare(
                s,
                serial,
                format!(
                    "SELECT request_id, client_id, operation, created_at, response, finished_at FROM {ks}.requests \
                     WHERE request_id = ?"
                ),
                Plain,
            )
            .await?,
            put_blob_meta: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.blobs (id, client_id, kind, size, sha256, label, content_type, metadata, created_at) \
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                Plain,
            )
            .await?,
            get_blob_meta: prepare(
                s,
                serial,
                format!(
                    "SELECT id, client_id, kind, size, sha256, label, content_type, metadata, created_at FROM {ks}.blobs \
                     WHERE id = ?"
                ),
                Plain,
            )
            .await?,
            put_face_user: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.face_users (client_id, cus_user_id, record) VALUES (?, ?, ?)"),
                Plain,
            )
            .await?,
            get_face_user: prepare(
                s,
                serial,
                format!("SELECT record FROM {ks}.face_users WHERE client_id = ? AND cus_user_id = ?"),
                Plain,
            )
            .await?,
            put_face_template: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.face_templates (client_id, cus_user_id, template_id, face_type, model_id, \
                     model_version, sealed_vector, image_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                Plain,
            )
            .await?,
            list_face_templates: prepare(
                s,
                serial,
                format!(
                    "SELECT client_id, cus_user_id, template_id, face_type, model_id, model_version, sealed_vector, \
                     image_id, created_at FROM {ks}.face_templates WHERE client_id = ? AND cus_user_id = ?"
                ),
                Plain,
            )
            .await?,
            delete_face_templates: prepare(
                s,
                serial,
                format!("DELETE FROM {ks}.face_templates WHERE client_id = ? AND cus_user_id = ?"),
                Plain,
            )
            .await?,
            add_face_history: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.face_histories (client_id, cus_user_id, created_at, id, status, record) \
                     VALUES (?, ?, ?, ?, ?, ?)"
                ),
                Plain,
            )
            .await?,
            list_face_histories: prepare(
                s,
                serial,
                format!(
                    "SELECT client_id, cus_user_id, id, created_at, status, record FROM {ks}.face_histories \
                     WHERE client_id = ? AND cus_user_id = ? LIMIT ?"
                ),
                Plain,
            )
            .await?,
            insert_key_pair: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.key_pairs ({KEY_PAIR_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS"),
                Lwt,
            )
            .await?,
            index_key_pair: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.key_pairs_by_client (client_id, key_pair_id) VALUES (?, ?)"),
                Plain,
            )
            .await?,
            get_key_pair: prepare(s, serial, format!("SELECT {KEY_PAIR_COLUMNS} FROM {ks}.key_pairs WHERE key_pair_id = ?"), Plain)
                .await?,
            list_key_pairs: prepare(s, serial, format!("SELECT {KEY_PAIR_COLUMNS} FROM {ks}.key_pairs"), Plain).await?,
            list_key_pair_ids_of_client: prepare(
                s,
                serial,
                format!("SELECT key_pair_id FROM {ks}.key_pairs_by_client WHERE client_id = ?"),
                Plain,
            )
            .await?,
            set_key_pair_active: prepare(
                s,
                serial,
                format!("UPDATE {ks}.key_pairs SET active = ? WHERE key_pair_id = ? IF EXISTS"),
                Lwt,
            )
            .await?,
            insert_device: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.devices ({DEVICE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS"),
                Lwt,
            )
            .await?,
            index_device: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.devices_by_user (client_id, cus_user_id, customer_user_device_id) VALUES (?, ?, ?)"),
                Plain,
            )
            .await?,
            get_device: prepare(
                s,
                serial,
                format!("SELECT {DEVICE_COLUMNS} FROM {ks}.devices WHERE customer_user_device_id = ?"),
                Plain,
            )
            .await?,
            list_device_ids_of_user: prepare(
                s,
                serial,
                format!("SELECT customer_user_device_id FROM {ks}.devices_by_user WHERE client_id = ? AND cus_user_id = ?"),
                Plain,
            )
            .await?,
            delete_device: prepare(s, serial, format!("DELETE FROM {ks}.devices WHERE customer_user_device_id = ? IF EXISTS"), Lwt).await?,
            unindex_device: prepare(
                s,
                serial,
                format!("DELETE FROM {ks}.devices_by_user WHERE client_id = ? AND cus_user_id = ? AND customer_user_device_id = ?"),
                Plain,
            )
            .await?,
            set_device_deactivated: prepare(
                s,
                serial,
                format!("UPDATE {ks}.devices SET deactivated = ? WHERE customer_user_device_id = ? IF EXISTS"),
                Lwt,
            )
            .await?,
            insert_challenge: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.challenges ({CHALLENGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
                     IF NOT EXISTS USING TTL ?"
                ),
                Lwt,
            )
            .await?,
            get_challenge: prepare(
                s,
                serial,
                format!("SELECT {CHALLENGE_COLUMNS} FROM {ks}.challenges WHERE challenge_id = ?"),
                Plain,
            )
            .await?,
            // A missing (or expired) row has no status, so it fails `status = 'open'`.
            move_challenge_head: prepare(
                s,
                serial,
                format!(
                    "UPDATE {ks}.challenges USING TTL ? SET last_seq = ?, last_hash = ? WHERE challenge_id = ? \
                     IF status = '{open}' AND last_seq = ? AND last_hash = ?",
                    open = crate::CHALLENGE_OPEN
                ),
                Lwt,
            )
            .await?,
            // `IF client_id != null` rather than `IF EXISTS`: a row whose creation cells
            // expired (only later-written cells left) counts as missing, as in get_challenge.
            finalize_challenge: prepare(
                s,
                serial,
                format!(
                    "UPDATE {ks}.challenges USING TTL ? SET status = '{scored}' WHERE challenge_id = ? \
                     IF client_id != null",
                    scored = crate::CHALLENGE_SCORED
                ),
                Lwt,
            )
            .await?,
            insert_batch: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.batches (challenge_id, seq, batch_hash, prev_batch_hash, data, received_at, request_id) \
                     VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?"
                ),
                Lwt,
            )
            .await?,
            list_batch_rows: prepare(
                s,
                serial,
                format!(
                    "SELECT seq, batch_hash, prev_batch_hash, data, received_at, request_id FROM {ks}.batches \
                     WHERE challenge_id = ?"
                ),
                Plain,
            )
            .await?,
            get_baseline: prepare(
                s,
                serial,
                format!(
                    "SELECT client_id, cus_user_id, version, data, updated_at FROM {ks}.baselines \
                     WHERE client_id = ? AND cus_user_id = ?"
                ),
                Plain,
            )
            .await?,
            insert_baseline: prepare(
                s,
                serial,
                format!(
                    "INSERT INTO {ks}.baselines (client_id, cus_user_id, version, data, updated_at) \
                     VALUES (?, ?, ?, ?, ?) IF NOT EXISTS"
                ),
                Lwt,
            )
            .await?,
            // A missing row has a null version, so it fails the condition.
            update_baseline: prepare(
                s,
                serial,
                format!(
                    "UPDATE {ks}.baselines SET version = ?, data = ?, updated_at = ? \
                     WHERE client_id = ? AND cus_user_id = ? IF version = ?"
                ),
                Lwt,
            )
            .await?,
            claim_replay_key: prepare(s, serial, format!("INSERT INTO {ks}.replay_claims (key, owner) VALUES (?, ?) IF NOT EXISTS USING TTL ?"), Lwt)
                .await?,
            // A serial read: it finishes any Paxos round still in flight, so a session
            // write whose LWT timed out but was accepted is seen. The SIM worker's "did
            // this request already send the SMS?" check reads here; a LOCAL_QUORUM read
            // could miss that write and send a second SMS.
            get_session: {
                let mut p =
                    prepare(s, serial, format!("SELECT key, version, data, expires_at FROM {ks}.sessions WHERE key = ?"), Plain)
                        .await?;
                p.set_consistency(match serial {
                    SerialConsistency::LocalSerial => Consistency::LocalSerial,
                    _ => Consistency::Serial,
                });
                p
            },
            insert_session: prepare(
                s,
                serial,
                format!("INSERT INTO {ks}.sessions (key, version, data, expires_at) VALUES (?, ?, ?, ?) IF NOT EXISTS USING TTL ?"),
                Lwt,
            )
            .await?,
            update_session: prepare(
                s,
                serial,
                format!("UPDATE {ks}.sessions USING TTL ? SET version = ?, data = ?, expires_at = ? WHERE key = ? IF version = ?"),
                Lwt,
            )
            .await?,
        })
    }
}

