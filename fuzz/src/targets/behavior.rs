//! (7) The behavioral event-batch schema: a session's batch `data` objects (as the scorer
//! reads them back, one JSON value per batch) through `idv_scoring::extract`, then what
//! the score handler does with the features (fold into a baseline, score, the answer's
//! data). Seeds are synthetic sessions from `idv_scoring::synth`.

use super::{Harness, Target};
use crate::mutate::Shape;
use crate::rng::fnv1a;
use idv_scoring::{extract, features::FEATURES, first_session, score, synth, Baseline};
use rand::SeedableRng;
use serde_json::Value;

/// Features, baseline fold and score of one session; a signature of what came out.
pub fn session_sig(batches: &[Value]) -> u64 {
    match extract(batches) {
        Err(e) => fnv1a(e.code().as_bytes()),
        Ok(s) => {
            let computed = FEATURES.iter().filter(|d| s.value(d.name).is_some()).count() as u64;
            let mut baseline = Baseline::default();
            baseline.fold(&s);
            baseline.fold(&s);
            let scored = match score(&baseline, &s) {
                Ok(outcome) => {
                    let _ = outcome.to_data("r-1");
                    1 + outcome.behavior_score as u64 % 3
                }
                Err(_) => 9,
            };
            let _ = first_session(baseline.sessions()).to_data("r-0");
            (computed << 8) ^ (scored << 4) ^ u64::from(s.device_consistent) ^ (u64::from(s.counts.skipped.min(3)) << 20)
        }
    }
}

/// Batches of synthetic sessions, each cut to its first 30 events (small seeds mutate fast).
pub fn small_batches() -> Vec<Value> {
    let mut out = Vec::new();
    for seed in 1..=3u64 {
        let user = synth::User::new(seed);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for mut batch in user.session_batches(2, &mut rng) {
            if let Some(events) = batch.get_mut("events").and_then(Value::as_array_mut) {
                events.truncate(30);
            }
            out.push(batch);
        }
    }
    out
}

fn seeds() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = small_batches().chunks(2).map(|c| Value::Array(c.to_vec()).to_string().into_bytes()).collect();
    // Whole sessions (a few hundred events), one of them as a single object.
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let full = synth::User::new(7).session_batches(3, &mut rng);
    if let Some(first) = full.first() {
        out.push(first.to_string().into_bytes());
    }
    out.push(Value::Array(full).to_string().into_bytes());
    out
}

fn harness() -> Harness {
    Box::new(|b: &[u8]| match serde_json::from_slice::<Value>(b) {
        Err(_) => 1,
        Ok(Value::Array(batches)) => 2 ^ session_sig(&batches).wrapping_mul(3),
        Ok(one) => 3 ^ session_sig(&[one]).wrapping_mul(5),
    })
}

pub fn targets() -> Vec<Target> {
    vec![Target {
        name: "behavior_features",
        about: "idv_scoring::extract over a session's batches (array, or one batch), then fold and score",
        shape: Shape::Json,
        json_after_line: false,
        max_len: 4 << 20,
        seeds,
        dict: || {
            ["events", "device", "type", "t", "key", "key_class", "down", "up", "touch", "tap", "swipe", "motion", "scroll", "app", "x", "y", "pressure", "size", "pitch", "roll", "model", "os", "os_version", "screen_width", "locale", "timezone", "sdk_version"]
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect()
        },
        harness,
    }]
}
