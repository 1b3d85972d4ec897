//! The idv process: wiring of backends (chosen by URL), roles and lifecycle.
//!
//! One code path, two deployments: `idv serve` starts every role in one process over
//! `memory://` + `sqlite://` + `file://`; `idv ingest|worker|scorer` run one role each over
//! `kafka://` + `scylla://` + `s3://`. Only the URLs differ.

pub mod admin;
pub mod app;
pub mod replay;
pub mod settings;

pub use app::{start, Roles, Running};
pub use settings::Settings;
