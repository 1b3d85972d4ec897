//! Replaying recorded behavioral traffic through the engine, for data teams: the jobs of
//! the behavior topic (device registrations, challenges, pushed batches, score requests)
//! and, where recorded, their results, in topic order. Devices, chains and baselines are
//! rebuilt in memory, every score request is scored again with this replay's
//! [`BehaviorConfig`] (a new policy file, a baseline auto-update setting), and each yields
//! one [`ReplayLine`]: the recorded answer beside the new one. Nothing is written anywhere:
//! no store, no bus (`idv replay`, `idv/src/replay.rs`, does the reading and the report).
//!
//! What a replay can and cannot reproduce:
//! - A chain is rebuilt from the pushes that continue it (seq and previous hash), checked
//!   against the challenge's nonce when the recorded create_challenge answer carries it;
//!   pushes the service refused for other reasons (expired nonce, scored challenge) are
//!   refused here too where the recording shows it (their recorded answer is not success).
//! - Baselines start empty at the start of the range: a user enrolled before it is
//!   replayed as if enrolling in it, and the line says so (`baseline_from_range`).
//! - Sealed transaction fields are opened only with the deployment's master key; without
//!   it policy rules on them see `null` (the line says `transaction_sealed`).

use idv_scoring::baseline::Baseline;
use idv_scoring::features::extract;
use crate::handler::{derived_id, policy_decision, score_against, BehaviorConfig};
use idv_crypto::sealed::Sealer;
use idv_schemas::api::BehaviorScoreRequest;
use idv_schemas::jobs::{Job, PushBatchJob, Work};
use idv_schemas::Envelope;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// One scored session, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayLine {
    pub request_id: String,
    pub created_at: String,
    pub client_id: String,
    pub cus_user_id: Option<String>,
    pub challenge_id: String,
    /// The answer the service gave (from the results topic), if recorded.
    pub before: Option<Answer>,
    /// This replay's answer.
    pub after: Answer,
    /// `before` and `after` differ in score, risk level or final action.
    pub changed: bool,
    /// The user had no baseline in the replayed range before this session.
    pub baseline_from_range: bool,
    /// The request carried sealed transaction fields this replay could not open.
    pub transaction_sealed: bool,
}

/// The parts of a score answer a replay compares.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// `success`, or the error code.
    pub status: String,
    pub behavior_score: Option<u64>,
    pub risk_level: Option<String>,
    /// The policy's `decision.final_action`, when a policy applied.
    pub final_action: Option<String>,
}

impl Answer {
    /// The comparable parts of a recorded or replayed score envelope.
    pub fn of(env: &Envelope) -> Answer {
        let body = &env.body;
        let code = body["errors"][0]["code"].as_str();
        let data = &body["data"];
        Answer {
            status: code.map(str::to_string).unwrap_or_else(|| data["status"].as_str().unwrap_or("success").to_string()),
            behavior_score: data["behavior_score"].as_u64(),
            risk_level: data["risk_level"].as_str().map(str::to_string),
            final_action: body["decision"]["final_action"].as_str().map(str::to_string),
        }
    }

    fn failed(code: &str) -> Answer {
        Answer { status: code.to_string(), behavior_score: None, risk_level: None, final_action: None }
    }
}

struct Chain {
    client_id: String,
    device_id: String,
    nonce: Option<String>,
    last_seq: i64,
    last_hash: String,
    batches: BTreeMap<i64, String>,
    scored: bool,
}

/// The replay's in-memory state, fed in topic order.
pub struct Replay {
    config: BehaviorConfig,
    sealer: Option<Sealer>,
    /// Recorded answers by request id (the results topic).
    recorded: HashMap<String, Envelope>,
    /// customer_user_device_id → (client, cus_user_id).
    devices: HashMap<String, (String, String)>,
    challenges: HashMap<String, Chain>,
    baselines: HashMap<(String, String), Baseline>,
    /// Jobs seen per operation, for the summary.
    pub seen: BTreeMap<&'static str, usize>,
}

impl Replay {
    /// `sealer`: the deployment's master key, to open sealed transaction fields.
    pub fn new(config: BehaviorConfig, sealer: Option<Sealer>) -> Replay {
        Replay {
            config,
            sealer,
            recorded: HashMap::new(),
            devices: HashMap::new(),
            challenges: HashMap::new(),
            baselines: HashMap::new(),
            seen: BTreeMap::new(),
        }
    }

    /// A recorded answer (read from the results topic before the jobs are applied).
    pub fn record_result(&mut self, request_id: String, envelope: Envelope) {
        self.recorded.insert(request_id, envelope);
    }

    fn recorded_failure(&self, request_id: &str) -> bool {
        self.recorded.get(request_id).is_some_and(|e| e.http_status != 200 || e.body["errors"].as_array().is_some_and(|a| !a.is_empty()))
    }

    /// Apply one job; a score request yields its line.
    pub fn apply(&mut self, job: &Job) -> Option<ReplayLine> {
        *self.seen.entry(job.operation().name()).or_default() += 1;
        match &job.work {
            Work::RegisterDevice(req) => {
                if !self.recorded_failure(&job.request_id) {
                    self.devices.insert(derived_id(&job.request_id, "device"), (job.client_id.clone(), req.cus_user_id.clone()));
                }
                None
            }
            Work::CreateChallenge(req) => {
                if !self.recorded_failure(&job.request_id) {
                    let nonce = self.recorded.get(&job.request_id).and_then(|e| e.body["data"]["nonce"].as_str().map(str::to_string));
                    let chain = Chain {
                        client_id: job.client_id.clone(),
                        device_id: req.customer_user_device_id.clone(),
                        nonce,
                        last_seq: -1,
                        last_hash: String::new(),
                        batches: BTreeMap::new(),
                        scored: false,
                    };
                    self.challenges.insert(derived_id(&job.request_id, "challenge"), chain);
                }
                None
            }
            Work::PushEventBatch(batch) => {
                self.push(job, batch);
                None
            }
            Work::BehaviorScore(req) => Some(self.score(job, req)),
            _ => None,
        }
    }

    fn push(&mut self, job: &Job, batch: &PushBatchJob) {
        if self.recorded_failure(&job.request_id) {
            return;
        }
        let Some(chain) = self.challenges.get_mut(&batch.challenge_id) else { return };
        let nonce_ok = chain.nonce.as_deref().is_none_or(|n| n == batch.nonce);
        let seq = batch.seq.unwrap_or(chain.last_seq + 1);
        let continues = seq == chain.last_seq + 1 && batch.prev_batch_hash == chain.last_hash;
        if chain.scored || !nonce_ok || !continues || chain.client_id != job.client_id {
            return;
        }
        chain.last_seq = seq;
        chain.last_hash = batch.batch_hash.clone();
        chain.batches.insert(seq, batch.data_raw.clone());
    }

    fn score(&mut self, job: &Job, req: &BehaviorScoreRequest) -> ReplayLine {
        let before = self.recorded.get(&job.request_id).map(Answer::of);
        let challenge_id = req.challenge_id.clone();
        let transaction_sealed = self.sealer.is_none()
            && req.transaction_data.as_ref().and_then(|t| serde_json::to_value(t).ok()).is_some_and(|t| {
                t.as_object().is_some_and(|o| o.values().any(|v| v.as_str().is_some_and(idv_crypto::sealed::is_sealed_text)))
            });
        let mut line = ReplayLine {
            request_id: job.request_id.clone(),
            created_at: job.created_at.clone(),
            client_id: job.client_id.clone(),
            cus_user_id: None,
            challenge_id: challenge_id.clone(),
            before,
            after: Answer::failed("challenge_not_found"),
            changed: false,
            baseline_from_range: false,
            transaction_sealed,
        };
        let Some(chain) = self.challenges.get_mut(&challenge_id) else { return self.finish(line) };
        if chain.client_id != job.client_id {
            line.after = Answer::failed("challenge_access_denied");
            return self.finish(line);
        }
        chain.scored = true;
        let Some((client, user)) = self.devices.get(&chain.device_id).cloned() else {
            line.after = Answer::failed("customer_user_device_not_found");
            return self.finish(line);
        };
        line.cus_user_id = Some(user.clone());
        if chain.batches.is_empty() {
            line.after = Answer::failed("no_batch_events");
            return self.finish(line);
        }
        let data: Vec<Value> = chain.batches.values().filter_map(|b| serde_json::from_str(b).ok()).collect();
        let session = match extract(&data) {
            Ok(s) => s,
            Err(e) => {
                line.after = Answer::failed(e.code());
                return self.finish(line);
            }
        };
        let baseline = self.baselines.entry((client, user)).or_default();
        line.baseline_from_range = baseline.is_empty();
        match score_against(baseline, &session, req.is_update, self.config.auto_update_baseline) {
            Ok((outcome, fold)) => {
                if fold {
                    baseline.fold(&session);
                }
                let decision = policy_decision(&self.config, job, req.transaction_data.as_ref(), self.sealer.as_ref(), &outcome, &session);
                line.after = Answer {
                    status: "success".into(),
                    behavior_score: Some(u64::from(outcome.behavior_score)),
                    risk_level: serde_json::to_value(outcome.risk_level).ok().and_then(|v| v.as_str().map(str::to_string)),
                    final_action: decision.and_then(|d| d.decision_json()["final_action"].as_str().map(str::to_string)),
                };
            }
            Err(_) => line.after = Answer::failed("insufficient_behavior_data"),
        }
        self.finish(line)
    }

    fn finish(&self, mut line: ReplayLine) -> ReplayLine {
        line.changed = line.before.as_ref().is_some_and(|b| b != &line.after);
        line
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use idv_schemas::jobs::JOB_SCHEMA_VERSION;
    use idv_schemas::{Group, Operation};
    use rand::SeedableRng;
    use serde_json::json;

    fn job(request_id: &str, operation: Operation, payload: Value) -> Job {
        Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: request_id.into(),
            client_id: "c".into(),
            access_key_id: "ak".into(),
            reply_to: "i".into(),
            created_at: "2026-11-26T00:00:00Z".into(),
            work: idv_schemas::jobs::Work::decode(operation, payload).unwrap().unwrap(),
        }
    }

    /// Register a device and open a challenge; returns the challenge id.
    fn open(replay: &mut Replay, tag: &str) -> String {
        replay.apply(&job(&format!("reg-{tag}"), Operation::RegisterDevice, json!({"cus_user_id": "u", "key_pair_id": "00000000-0000-4000-8000-000000000000", "device_public_key": "k", "device_id": "d"})));
        let device = derived_id(&format!("reg-{tag}"), "device");
        replay.apply(&job(&format!("ch-{tag}"), Operation::CreateChallenge, json!({"customer_user_device_id": device, "session_id": "s"})));
        derived_id(&format!("ch-{tag}"), "challenge")
    }

    fn push(challenge: &str, seq: i64, prev: &str, data: &Value) -> (Job, String) {
        let text = data.to_string();
        let hash = idv_crypto::device::batch_hash(prev, seq as u64, text.as_bytes());
        let payload = json!({"challenge_id": challenge, "customer_user_device_id": "d", "nonce": "n", "seq": seq, "prev_batch_hash": prev, "batch_hash": hash, "data_raw": text});
        (job(&format!("push-{challenge}-{seq}"), Operation::PushEventBatch, payload), hash)
    }

    fn session(replay: &mut Replay, challenge: &str, batches: &[Value]) {
        let mut prev = String::new();
        for (seq, data) in batches.iter().enumerate() {
            let (j, hash) = push(challenge, seq as i64, &prev, data);
            replay.apply(&j);
            prev = hash;
        }
    }

    #[test]
    fn a_session_is_scored_against_the_baseline_the_range_built() {
        let user = idv_scoring::synth::User::new(1);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut replay = Replay::new(BehaviorConfig::default(), None);
        let first = open(&mut replay, "1");
        session(&mut replay, &first, &user.session_batches(3, &mut rng));
        let line = replay.apply(&job("score-1", Operation::BehaviorScore, json!({"challenge_id": first}))).unwrap();
        assert_eq!((line.after.behavior_score, line.baseline_from_range), (Some(1000), true), "first session: {line:?}");
        assert_eq!(line.before, None);
        let second = open(&mut replay, "2");
        session(&mut replay, &second, &user.session_batches(3, &mut rng));
        // The recorded answer differs from what this replay computes: `changed`.
        let recorded = Envelope::ok(Group::Behavior, json!({"status": "success", "behavior_score": 1, "risk_level": "HIGH"}));
        replay.record_result("score-2".into(), recorded);
        let line = replay.apply(&job("score-2", Operation::BehaviorScore, json!({"challenge_id": second, "is_update": false}))).unwrap();
        assert_eq!(line.after.status, "success");
        assert!(!line.baseline_from_range);
        assert!(line.changed && line.after.behavior_score != Some(1), "{line:?}");
        assert_eq!(line.cus_user_id.as_deref(), Some("u"));
    }

    #[test]
    fn pushes_that_do_not_continue_the_chain_and_refused_jobs_are_left_out() {
        let user = idv_scoring::synth::User::new(2);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut replay = Replay::new(BehaviorConfig::default(), None);
        let ch = open(&mut replay, "a");
        let batch = user.session_batches(1, &mut rng).remove(0);
        // A gap (seq 1 first) and a broken link are not appended: nothing to score.
        replay.apply(&push(&ch, 1, "", &batch).0);
        replay.apply(&push(&ch, 0, "not-the-head", &batch).0);
        let line = replay.apply(&job("s", Operation::BehaviorScore, json!({"challenge_id": ch}))).unwrap();
        assert_eq!(line.after.status, "no_batch_events");
        // A registration the service refused creates no device here either.
        replay.record_result("reg-b".into(), Envelope::error(Group::Behavior, &idv_schemas::ErrorKind::DeviceDeactivated));
        let ch = open(&mut replay, "b");
        session(&mut replay, &ch, &[batch]);
        let line = replay.apply(&job("s2", Operation::BehaviorScore, json!({"challenge_id": ch}))).unwrap();
        assert_eq!(line.after.status, "customer_user_device_not_found");
        let unknown = replay.apply(&job("s3", Operation::BehaviorScore, json!({"challenge_id": "nope"}))).unwrap();
        assert_eq!(unknown.after.status, "challenge_not_found");
        assert_eq!(replay.seen.get("score"), Some(&3));
    }
}
