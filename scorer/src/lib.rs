//! The scorer role: consumes the behavior topic (register_device, create_challenge,
//! push_event_batch, score) with [`handler::BehaviorHandler`] over the store, and replays
//! recorded topics ([`replay`]). The scoring itself is the pure engine, `idv-scoring`.

pub mod handler;
pub mod replay;
