//! The job runtime: what every worker role (the vision workers, the SIM worker, the
//! scorer) runs around its [`JobHandler`]. [`runtime`] owns the at-least-once discipline
//! (result durably stored, then sent back, then the offset committed); [`metrics`] the
//! job metrics an operator alerts on; [`conformance`] (feature `testing`) the one suite
//! every handler runs. No model, codec or protocol lives here: a role links only what
//! its handlers need.

#[cfg(any(test, feature = "testing"))]
pub mod conformance;
pub mod metrics;
pub mod runtime;

pub use runtime::{JobHandler, WorkerDeps};
