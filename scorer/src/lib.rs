//! The scorer role: consumes the behavior topic (register_device, create_challenge,
//! push_event_batch, score) with [`handler::BehaviorHandler`] over the store, and replays
//! recorded topics ([`replay`]). The scoring itself is the pure engine in `idv-scoring`,
//! re-exported here.

pub mod handler;
pub mod replay;

pub use idv_scoring::*;
pub use idv_scoring::{baseline, engine, eval, features, manhattan, policy, stats, synth};
