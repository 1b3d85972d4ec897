//! Worker pools. A pool consumes one job topic in the group `idv-workers-<topic>` and runs
//! each job through a [`runtime::JobHandler`]; [`runtime`] owns the at-least-once
//! discipline (result durably stored, then sent back, then the offset committed).
//!
//! Handlers here: [`face`] (face-authentication users, comparison), [`card`] (card
//! reading and, through [`ekyc`], the eKYC full check), [`sim`] (SIM verification through
//! operators' CAMARA APIs). What a handler cannot do in a deployment it answers "not
//! performed" (`ErrorKind::NotAvailable`), never with a made-up verdict.

pub mod card;
pub mod card_mrz;
pub mod card_read;
pub mod card_scan;
pub mod conformance;
pub mod ekyc;
pub mod face;
pub mod face_engine;
pub mod face_evidence;
pub mod face_ops;
pub mod legacy;
pub mod metrics;
pub mod runtime;
pub mod sim;

pub use runtime::{JobHandler, WorkerDeps};
