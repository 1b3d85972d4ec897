//! Worker pools. A pool consumes one job topic in the group `idv-workers-<topic>` and runs
//! each job through a [`runtime::JobHandler`]; [`runtime`] owns the at-least-once
//! discipline (result durably stored, then sent back, then the offset committed).
//!
//! Handlers here: [`face`] (face-authentication users), and honest "not performed"
//! answers for capabilities whose engines are not in this build ([`unavailable`]).

pub mod card;
pub mod ekyc;
pub mod face;
pub mod face_engine;
pub mod face_evidence;
pub mod face_ops;
pub mod runtime;
pub mod unavailable;

pub use runtime::{JobHandler, WorkerDeps};
