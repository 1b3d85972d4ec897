//! The embedded schema (`ops/scylla/schema.cql`), applied at connect, and the shared
//! migrations (`crate::migrations`) a keyspace lacks.

use crate::{Result, StoreError};
use scylla::client::session::Session;
use scylla::statement::{Consistency, Statement};
use std::collections::HashSet;

use super::*;

pub(crate) const SCHEMA: &str = include_str!("../../../ops/scylla/schema.cql");
pub(crate) const KEYSPACE_PLACEHOLDER: &str = "__KEYSPACE__";
pub(crate) const RF_PLACEHOLDER: &str = "__REPLICATION_FACTOR__";

/// One statement of the embedded schema, placeholders replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaStatement {
    /// The table it creates; `None` for the keyspace.
    pub(crate) table: Option<String>,
    pub(crate) cql: String,
}

/// Splits the embedded schema into statements: whole-line `--` comments dropped, split on
/// `;` (the file promises no other semicolons), placeholders replaced.
pub(crate) fn schema_statements(keyspace: &str, replication_factor: u32) -> Result<Vec<SchemaStatement>> {
    let text: String = SCHEMA.lines().filter(|l| !l.trim_start().starts_with("--")).collect::<Vec<_>>().join("\n");
    let table_prefix = format!("CREATE TABLE IF NOT EXISTS {KEYSPACE_PLACEHOLDER}.");
    let mut out = Vec::new();
    for raw in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let table = if let Some(after) = raw.strip_prefix(&table_prefix) {
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            Some(name)
        } else if raw.starts_with("CREATE KEYSPACE IF NOT EXISTS ") {
            None
        } else {
            return Err(StoreError::Backend(format!("unexpected statement in ops/scylla/schema.cql: {raw:.60}")));
        };
        let cql = raw.replace(KEYSPACE_PLACEHOLDER, keyspace).replace(RF_PLACEHOLDER, &replication_factor.to_string());
        out.push(SchemaStatement { table, cql });
    }
    Ok(out)
}

/// The nodes of the datacenter this store works in: the named one, else the only one. A
/// cluster of several DCs without `datacenter=` is refused: LOCAL_QUORUM would count in
/// whichever DC a request's coordinator happened to be, and read-your-writes breaks.
pub(crate) fn nodes_in_local_dc(session: &Session, cfg: &ScyllaUrl) -> Result<usize> {
    let state = session.get_cluster_state();
    let nodes = state.get_nodes_info();
    let dcs: HashSet<Option<&str>> = nodes.iter().map(|n| n.datacenter.as_deref()).collect();
    match &cfg.datacenter {
        Some(dc) => {
            let n = nodes.iter().filter(|n| n.datacenter.as_deref() == Some(dc.as_str())).count();
            if n == 0 {
                let known: Vec<_> = dcs.iter().flatten().collect();
                return Err(driver(format!("datacenter {dc:?} has no node (the cluster's: {known:?})")));
            }
            Ok(n)
        }
        None if dcs.len() > 1 => {
            let known: Vec<_> = dcs.iter().flatten().collect();
            Err(StoreError::BadUrl(
                format!("scylla://{}/{}", cfg.hosts.join(","), cfg.keyspace),
                format!("the cluster spans datacenters {known:?}: name the local one with ?datacenter=NAME"),
            ))
        }
        None => Ok(nodes.len()),
    }
}

/// Whether a failed DDL statement lost a race with another process running the same DDL
/// (several roles starting at once): the object exists now, which is all that was asked.
pub(crate) fn lost_a_ddl_race(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("already exist") || m.contains("conflicts with an existing column") || m.contains("duplicate")
}

/// Runs the embedded schema unless every table of it already exists in the keyspace.
pub(crate) async fn ensure_schema(session: &Session, cfg: &ScyllaUrl, nodes_in_dc: usize) -> Result<()> {
    let (replication_factor, lowered) = effective_replication_factor(cfg.replication_factor, nodes_in_dc);
    if lowered {
        tracing::warn!(
            requested = cfg.replication_factor,
            replication_factor,
            "replication factor lowered to the datacenter's node count (used only if the keyspace is created now)"
        );
    }
    let statements = schema_statements(&cfg.keyspace, replication_factor)?;
    let mut lookup = Statement::new("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?");
    lookup.set_consistency(Consistency::One);
    let existing: HashSet<String> = session
        .query_unpaged(lookup, (cfg.keyspace.as_str(),))
        .await
        .map_err(driver)?
        .into_rows_result()
        .map_err(driver)?
        .rows::<(String,)>()
        .map_err(driver)?
        .map(|r| r.map(|(t,)| t))
        .collect::<std::result::Result<_, _>>()
        .map_err(driver)?;
    if !statements.iter().filter_map(|s| s.table.as_ref()).all(|t| existing.contains(t)) {
        tracing::info!(keyspace = %cfg.keyspace, "creating the ScyllaDB keyspace and tables that are missing");
        for s in statements {
            // Unprepared and not marked idempotent, so the driver does not retry it blindly;
            // IF NOT EXISTS makes a rerun of connect harmless, and the driver awaits schema
            // agreement after each statement before the next one (and before preparing).
            if let Err(e) = session.query_unpaged(s.cql.as_str(), ()).await {
                // IF NOT EXISTS does not make concurrent CREATEs from several processes
                // safe in ScyllaDB (one can fail on schema agreement or a conflicting
                // definition): the other process's identical statement won, carry on.
                if !lost_a_ddl_race(&e.to_string()) {
                    return Err(driver(format!("{e} in: {}", s.cql)));
                }
                tracing::info!(error = %e, "schema statement raced another process; it exists now");
            }
        }
    }
    add_missing_columns(session, cfg).await
}

/// The shared migrations (`crate::migrations`) a keyspace lacks, by column presence in
/// `system_schema.columns` (the schema itself is the record of what was applied).
pub(crate) async fn add_missing_columns(session: &Session, cfg: &ScyllaUrl) -> Result<()> {
    for m in crate::migrations::MIGRATIONS {
        let crate::migrations::Change::AddColumn { table, column, cql: cql_type, .. } = m.change;
        let mut lookup = Statement::new(
            "SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ? AND column_name = ?",
        );
        lookup.set_consistency(Consistency::One);
        let found = session
            .query_unpaged(lookup, (cfg.keyspace.as_str(), table, column))
            .await
            .map_err(driver)?
            .into_rows_result()
            .map_err(driver)?
            .rows_num();
        if found == 0 {
            tracing::info!(keyspace = %cfg.keyspace, table, column, "adding a column to an existing ScyllaDB table");
            let alter = format!("ALTER TABLE {}.{table} ADD {column} {cql_type}", cfg.keyspace);
            // ScyllaDB has no `ADD IF NOT EXISTS`: another role starting now may add the
            // same column first, which is a success here.
            if let Err(e) = session.query_unpaged(alter.as_str(), ()).await {
                if !lost_a_ddl_race(&e.to_string()) {
                    return Err(driver(format!("{e} in: {alter}")));
                }
            }
        }
    }
    Ok(())
}

