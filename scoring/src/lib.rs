//! The behavioral scoring engine (docs/SCORING.md). The scorer role (`idv-scorer`:
//! the behavior topic's handler, topic replay) runs it over the store; this crate has no
//! I/O at all, no async runtime, no store or bus.
//!
//! # The engine
//!
//! Pure functions, no I/O, no panics on input:
//!
//! - [`extract`]`(batches: &[serde_json::Value]) -> Result<SessionFeatures, FeatureError>`:
//!   the `data` objects of a challenge's batches, in `seq` order, to a feature vector.
//!   Hostile input is skipped or rejected (see [`features`]); work is capped by
//!   [`features::MAX_BATCHES`] and [`features::MAX_EVENTS`]. [`FeatureError::code`] gives
//!   the engine error code for a `data.status = "failure"` answer.
//! - [`Baseline`] (serde JSON, `Default` = empty): [`Baseline::fold`]`(&mut self, &SessionFeatures)`
//!   and [`Baseline::sessions`]`() -> u32` (the `embedding_count`). The caller applies the
//!   spec's `is_update` table and decides whether to fold.
//! - [`score`]`(baseline: &Baseline, session: &SessionFeatures) -> Result<ScoreOutcome, NotScorable>` and
//!   [`first_session`]`(embedding_count: u32) -> ScoreOutcome`.
//!   [`ScoreOutcome::to_data`]`(&self, request_id: &str) -> serde_json::Value` is the
//!   answer's `data` object (adds `request_id`, `status: "success"`, `server_infos`).
//! - [`policy`]: [`policy::PolicySet::from_json`] / [`policy::PolicySet::from_file`]
//!   (validated at load), [`policy::PolicySet::evaluate`]`(&self, context: &Value, risk_level: RiskLevel) -> PolicyDecision`,
//!   [`policy::PolicyDecision::decision_json`] / [`policy::PolicyDecision::evaluation_details_json`],
//!   and [`scoring_context`]`(outcome: &ScoreOutcome, transaction: Option<&Value>, device: Option<&Value>) -> Value`.
//! - [`synth`]: seeded synthetic users ([`synth::User::new`]`(seed)`,
//!   [`synth::User::session_batches`]`(n_batches, rng) -> Vec<Value>`) for tests.
//! - [`eval`] and the `behavior_eval` binary: EER of the engine vs. scaled Manhattan.
//!
//! Typical use in the score handler:
//!
//! ```no_run
//! # use idv_scoring::*;
//! # fn demo(batches: Vec<serde_json::Value>, stored: Option<String>, is_update: Option<bool>,
//! #         tx: Option<serde_json::Value>, policies: Option<&policy::PolicySet>) -> Result<(), FeatureError> {
//! let session = extract(&batches)?;
//! let mut baseline = stored.and_then(|t| Baseline::from_json(&t).ok()).unwrap_or_default();
//! let outcome = if baseline.is_empty() {
//!     if is_update != Some(false) { baseline.fold(&session); /* store baseline */ }
//!     first_session(baseline.sessions())
//! } else {
//!     // Nothing comparable: answer `insufficient_behavior_data`, never a middle score.
//!     let Ok(out) = score(&baseline, &session) else { return Ok(()) };
//!     if is_update == Some(true) { baseline.fold(&session); /* store baseline */ }
//!     out
//! };
//! let mut body = serde_json::json!({"data": outcome.to_data("request-uuid")});
//! if let Some(set) = policies {
//!     let ctx = scoring_context(&outcome, tx.as_ref(), Some(&session.device.to_json()));
//!     let d = set.evaluate(&ctx, outcome.risk_level);
//!     body["decision"] = d.decision_json();
//!     body["evaluation_details"] = d.evaluation_details_json();
//! }
//! # Ok(()) }
//! ```

pub mod baseline;
pub mod engine;
pub mod eval;
pub mod features;
pub mod manhattan;
pub mod policy;
pub mod stats;
pub mod synth;

pub use baseline::Baseline;
pub use engine::{first_session, score, Explainer, NotScorable, GroupScore, Groups, MoreDetails, RiskLevel, ScoreOutcome};
pub use features::{extract, DeviceInfo, FeatureError, SessionFeatures, SignalGroup};
pub use policy::scoring_context;
