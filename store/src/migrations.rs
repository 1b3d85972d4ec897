//! Changes to the schema after its first release, in order, shared by every backend: a
//! database created before a change gets it when a process opens it. Each backend
//! applies every migration whose change it does not have yet (idempotent: two roles
//! starting together may race, and the loser finds the change made) and records how far
//! it got where the database has a place for it (SQLite: `PRAGMA user_version`;
//! ScyllaDB: its own `system_schema` is the record).

/// One schema change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// 1, 2, 3… in the order they were released.
    pub version: u32,
    /// What needed it.
    pub why: &'static str,
    pub change: Change,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A column added to an existing table (`CREATE TABLE IF NOT EXISTS` leaves an
    /// existing table as it is), with its type in each backend's dialect.
    AddColumn { table: &'static str, column: &'static str, sqlite: &'static str, cql: &'static str },
}

pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        why: "a batch names the request that appended it: a redelivered push finds its own batch, a client's re-push does not",
        change: Change::AddColumn { table: "batches", column: "request_id", sqlite: "TEXT NOT NULL DEFAULT ''", cql: "text" },
    },
    Migration {
        version: 2,
        why: "a replay claim names its owner: the claiming request may claim again (a redelivered job)",
        change: Change::AddColumn { table: "replay_claims", column: "owner", sqlite: "TEXT NOT NULL DEFAULT ''", cql: "text" },
    },
];

/// The version a database is at once every migration is applied.
pub fn latest() -> u32 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one_without_gaps() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1, "{m:?}");
        }
        assert_eq!(latest() as usize, MIGRATIONS.len());
    }
}
