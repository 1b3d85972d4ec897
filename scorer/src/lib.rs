//! The scorer role: consumes the behavior topic (register_device, score). The scoring
//! engine, baselines and the device protocol are issue #3; until they land, behavior jobs
//! are answered "not performed" through the shared worker runtime.

use idv_workers::unavailable::Unavailable;
use idv_workers::JobHandler;
use std::sync::Arc;

pub const ENGINE_MISSING: &str = "the behavioral scoring engine is not in this build (issue #3)";

pub fn handler() -> Arc<dyn JobHandler> {
    Arc::new(Unavailable { reason: ENGINE_MISSING })
}
