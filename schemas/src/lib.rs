//! The contract of idv in types: request/response bodies of every operation, the one
//! error-code table that maps semantic errors to the spec's codes and HTTP statuses per
//! operation group, and the versioned envelopes that travel on the bus.
//!
//! Nothing here does IO; everything is pure and tested directly.

pub mod api;
pub mod clock;
pub mod envelope;
pub mod error;
pub mod jobs;
pub mod ops;
pub mod validate;

pub use envelope::Envelope;
pub use error::{ApiError, ErrorKind, FailureCode, Group};
pub use ops::Operation;
