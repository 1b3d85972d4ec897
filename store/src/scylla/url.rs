//! The `scylla://` URL: contact points, keyspace, replication, datacenter, serial scope, user.

use crate::{Result, StoreError};
use scylla::statement::SerialConsistency;

pub(crate) const DEFAULT_PORT: u16 = 9042;
pub(crate) const DEFAULT_REPLICATION_FACTOR: u32 = 3;

/// The environment variable holding the password of the URL's `user`: never in the URL,
/// which appears in settings, process lists and logs.
pub const PASSWORD_ENV: &str = "IDV_SCYLLA_PASSWORD";

/// Which replicas the Paxos phase of a lightweight transaction asks (`serial=` in the URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerialScope {
    /// `LOCAL_SERIAL` (default): a majority of the local datacenter's replicas. Every role
    /// of one deployment names the same `datacenter`, so every LWT of the deployment runs
    /// in that DC and uniqueness holds; API calls never wait on another DC.
    Local,
    /// `SERIAL`: a majority of all replicas, for roles spread over several DCs at once
    /// (uniqueness across DCs, at one cross-DC round trip per LWT, three per API call).
    Global,
}

impl SerialScope {
    pub(crate) fn consistency(self) -> SerialConsistency {
        match self {
            SerialScope::Local => SerialConsistency::LocalSerial,
            SerialScope::Global => SerialConsistency::Serial,
        }
    }
}

/// The replication factor a new keyspace gets: the one asked for, never more than the
/// nodes of the datacenter (a factor above them makes every LOCAL_QUORUM read, write and
/// LWT fail with Unavailable), at least 1. Returns the factor and whether it was lowered.
pub fn effective_replication_factor(requested: u32, nodes_in_dc: usize) -> (u32, bool) {
    let nodes = u32::try_from(nodes_in_dc).unwrap_or(u32::MAX).max(1);
    if requested > nodes {
        (nodes, true)
    } else {
        (requested.max(1), false)
    }
}

/// ScyllaDB's largest TTL (20 years, in seconds); a larger one fails the write.
pub const MAX_TTL_SECS: i32 = 630_720_000;

/// A TTL for `USING TTL ?`: whole seconds rounded *up* (a claim or session must not vanish
/// before its time: 1.9 s is 2 s, not 1), at least 1 (0 means "never expires"), at most
/// [`MAX_TTL_SECS`].
pub fn ttl_secs(ttl: std::time::Duration) -> i32 {
    let secs = ttl.as_secs().saturating_add(u64::from(ttl.subsec_nanos() > 0));
    i32::try_from(secs.clamp(1, MAX_TTL_SECS as u64)).unwrap_or(MAX_TTL_SECS)
}

/// A parsed `scylla://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScyllaUrl {
    /// `host:port` contact points, in URL order.
    pub hosts: Vec<String>,
    /// Lower-cased keyspace name (CQL folds unquoted identifiers to lower case).
    pub keyspace: String,
    /// Used only when the keyspace is created by [`ScyllaStore::connect`], and never above
    /// the datacenter's node count ([`effective_replication_factor`]).
    pub replication_factor: u32,
    /// `datacenter=NAME`: the local DC, preferred by the load-balancing policy (no
    /// failover to other DCs for LOCAL_* statements). Required when the cluster spans
    /// several DCs.
    pub datacenter: Option<String>,
    /// `serial=local|global` (default local).
    pub serial: SerialScope,
    /// `user=NAME`: password authentication, the password from [`PASSWORD_ENV`].
    pub user: Option<String>,
}

impl ScyllaUrl {
    pub fn parse(url: &str) -> Result<Self> {
        let bad = |why: &str| StoreError::BadUrl(url.into(), why.into());
        let rest =
            url.strip_prefix("scylla://").ok_or_else(|| bad("expected scylla://host:port[,host:port]/keyspace"))?;
        let (hosts_part, path) = rest.split_once('/').ok_or_else(|| bad("missing /keyspace"))?;
        let (keyspace, query) = match path.split_once('?') {
            Some((k, q)) => (k, Some(q)),
            None => (path, None),
        };

        let mut hosts = Vec::new();
        for host in hosts_part.split(',') {
            hosts.push(parse_host(host.trim()).map_err(|why| bad(&why))?);
        }

        if keyspace.is_empty() {
            return Err(bad("missing keyspace"));
        }
        // Validated strictly: the name is spliced into CQL text.
        let valid = keyspace.len() <= 48
            && keyspace.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && keyspace.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(bad("keyspace must be a letter followed by up to 47 letters, digits or underscores"));
        }

        let mut replication_factor = DEFAULT_REPLICATION_FACTOR;
        let (mut datacenter, mut serial, mut user) = (None, SerialScope::Local, None);
        // A name that goes to the driver or CQL as is: letters, digits and `_.-`.
        let plain_name = |v: &str| !v.is_empty() && v.len() <= 128 && v.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("replication_factor", v)) => {
                    replication_factor = v
                        .parse()
                        .ok()
                        .filter(|n| (1..=64).contains(n))
                        .ok_or_else(|| bad("replication_factor must be a number from 1 to 64"))?;
                }
                Some(("datacenter", v)) if plain_name(v) => datacenter = Some(v.to_string()),
                Some(("datacenter", _)) => return Err(bad("datacenter must be letters, digits, '_', '.' or '-'")),
                Some(("serial", "local")) => serial = SerialScope::Local,
                Some(("serial", "global")) => serial = SerialScope::Global,
                Some(("serial", _)) => return Err(bad("serial must be local or global")),
                Some(("user", v)) if plain_name(v) => user = Some(v.to_string()),
                Some(("user", _)) => return Err(bad("user must be letters, digits, '_', '.' or '-'")),
                Some(("password", _)) => {
                    return Err(bad(&format!("never put the password in the URL; set {PASSWORD_ENV}")));
                }
                _ => {
                    return Err(bad(&format!(
                        "unknown URL parameter {pair:?} (known: replication_factor, datacenter, serial, user)"
                    )))
                }
            }
        }

        Ok(ScyllaUrl { hosts, keyspace: keyspace.to_ascii_lowercase(), replication_factor, datacenter, serial, user })
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port` → `host:port`.
pub(crate) fn parse_host(host: &str) -> std::result::Result<String, String> {
    if host.is_empty() {
        return Err("empty host in host list".into());
    }
    let (name, port) = if let Some(v6) = host.strip_prefix('[') {
        let (addr, after) = v6.split_once(']').ok_or_else(|| format!("unclosed [ in host {host:?}"))?;
        if addr.is_empty() {
            return Err(format!("empty address in host {host:?}"));
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or_else(|| format!("expected :port after ] in host {host:?}"))?),
        };
        (format!("[{addr}]"), port)
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name.to_string(), Some(port)),
            None => (host.to_string(), None),
        }
    };
    if name.is_empty() || name.contains(['@', '/', '?', '#', ' ']) {
        return Err(format!("invalid host {host:?}"));
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(|| format!("invalid port in host {host:?}"))?,
    };
    Ok(format!("{name}:{port}"))
}

