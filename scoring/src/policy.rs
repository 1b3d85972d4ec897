//! Policy check (spec, section 15): versioned policies with CEL boolean expressions over the
//! scoring context, combined into `decision` and `evaluation_details`.
//!
//! Policies are data: a JSON file (docs/SCORING.md, "Policies") loaded once by
//! [`PolicySet::from_json`] / [`PolicySet::from_file`], which validates everything that can
//! be validated without a request: field values, unique ids, the STEP_UP payload, and each
//! expression (it must parse, call only known functions, name only context variables or
//! macro-bound ones, and yield a boolean on a sample context). A bad policy file is an
//! error at load, never at request time. At request time an expression that fails on the
//! actual context (e.g. a field absent from `transaction`) does not match; the failure is
//! reported in [`PolicyDecision::errors`] for logs.
//!
//! Combination of several matching policies (evaluated in ascending `priority`, ties in
//! file order; all matching ones are listed in `applied_policies`, in that order):
//! 1. the first matching OVERRIDDEN policy sets the action, whatever it is;
//! 2. otherwise, if ESCALATED policies match, the most severe of their actions applies
//!    when it is more severe than the default;
//! 3. otherwise, if DOWNGRADED policies match, the first one's action applies when it is
//!    less severe than the default;
//! 4. otherwise (and for NO_CHANGE matches) the default mapping of the risk level holds.
//!
//! Severity: ALLOW < STEP_UP SOFT_OTP < STEP_UP FACE_AUTHEN (or other challenge) < REVIEW < BLOCK.

use crate::engine::{RiskLevel, ScoreOutcome};
use cel_interpreter::objects::{Key, Map as CelMap};
use cel_interpreter::{Context, ExecutionError, Program, Value as CelValue};
use std::collections::HashMap;
use std::sync::Arc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Most policies in one set.
pub const MAX_POLICIES: usize = 256;
/// Longest expression, in bytes.
pub const MAX_EXPRESSION_LEN: usize = 4_096;
/// Longest policy_id / policy_name / policy_version.
pub const MAX_ID_LEN: usize = 128;
/// Largest serialized action_payload, in bytes.
pub const MAX_PAYLOAD_LEN: usize = 4_096;

/// Top-level variables of the scoring context (see [`scoring_context`]).
pub const CONTEXT_VARIABLES: &[&str] = &[
    "behavior_score",
    "risk_level",
    "is_fraud",
    "is_confident",
    "is_first_session",
    "groups",
    "explainers",
    "transaction",
    "device",
];

/// Functions an expression may call (the CEL built-ins of cel-interpreter); operators and
/// macros (`has`, `all`, `exists`, `exists_one`, `map`, `filter`) are always allowed.
pub const ALLOWED_FUNCTIONS: &[&str] = &[
    "contains", "size", "max", "min", "startsWith", "endsWith", "string", "bytes", "double", "int", "uint", "matches",
    "duration", "timestamp", "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
    "getHours", "getMinutes", "getSeconds", "getMilliseconds",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PolicyOutcome {
    NoChange,
    Escalated,
    Downgraded,
    Overridden,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FinalAction {
    Allow,
    StepUp,
    Review,
    Block,
}

/// An action with its payload (`None` serializes as `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    pub final_action: FinalAction,
    pub action_payload: Option<Value>,
}

impl Action {
    /// ALLOW 0, STEP_UP SOFT_OTP 1, STEP_UP other 2, REVIEW 3, BLOCK 4.
    pub fn severity(&self) -> u8 {
        match self.final_action {
            FinalAction::Allow => 0,
            FinalAction::StepUp => {
                let soft = self
                    .action_payload
                    .as_ref()
                    .and_then(|p| p.get("challenge_type"))
                    .and_then(Value::as_str)
                    .is_some_and(|c| c == "SOFT_OTP");
                if soft {
                    1
                } else {
                    2
                }
            }
            FinalAction::Review => 3,
            FinalAction::Block => 4,
        }
    }
}

/// The spec's default mapping when no policy matches.
pub fn default_action(risk: RiskLevel) -> Action {
    match risk {
        RiskLevel::Low => Action { final_action: FinalAction::Allow, action_payload: None },
        RiskLevel::Medium => {
            Action { final_action: FinalAction::StepUp, action_payload: Some(json!({"challenge_type": "SOFT_OTP"})) }
        }
        RiskLevel::High => {
            Action { final_action: FinalAction::StepUp, action_payload: Some(json!({"challenge_type": "FACE_AUTHEN"})) }
        }
        RiskLevel::Critical => Action { final_action: FinalAction::Review, action_payload: None },
    }
}

/// One policy as written in the policy file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    pub policy_id: String,
    pub policy_name: String,
    pub policy_version: String,
    /// Lower is evaluated first; default 100.
    #[serde(default = "default_priority")]
    pub priority: i32,
    /// Disabled policies are loaded (and validated) but never evaluated.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// CEL expression that must evaluate to a boolean.
    pub expression: String,
    pub outcome: PolicyOutcome,
    /// Required unless `outcome` is NO_CHANGE (where it must be absent).
    #[serde(default)]
    pub final_action: Option<FinalAction>,
    /// Object or null; for STEP_UP it must hold `challenge_type` SOFT_OTP or FACE_AUTHEN.
    #[serde(default)]
    pub action_payload: Option<Value>,
    #[serde(default)]
    pub description: Option<String>,
}

fn default_priority() -> i32 {
    100
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    version: Option<String>,
    policies: Vec<PolicySpec>,
}

/// Why a policy file was rejected.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot read policy file: {0}")]
    Io(#[from] std::io::Error),
    #[error("policy file is not valid: {0}")]
    Format(#[from] serde_json::Error),
    #[error("policy {policy_id:?}: {message}")]
    Invalid { policy_id: String, message: String },
    #[error("too many policies ({0}, at most {MAX_POLICIES})")]
    TooMany(usize),
}

fn invalid(id: &str, message: impl Into<String>) -> PolicyError {
    PolicyError::Invalid { policy_id: id.to_string(), message: message.into() }
}

struct Policy {
    spec: PolicySpec,
    action: Option<Action>,
    program: Program,
}

/// A validated, ordered set of policies.
pub struct PolicySet {
    version: Option<String>,
    policies: Vec<Policy>,
}

impl std::fmt::Debug for PolicySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicySet")
            .field("version", &self.version)
            .field("policies", &self.policies.iter().map(|p| &p.spec.policy_id).collect::<Vec<_>>())
            .finish()
    }
}

/// One entry of `evaluation_details.applied_policies`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppliedPolicy {
    pub policy_id: String,
    pub policy_name: String,
    pub policy_version: String,
    pub policy_outcome: PolicyOutcome,
}

/// A policy whose expression failed on the request's context (treated as not matching).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyEvalError {
    pub policy_id: String,
    pub message: String,
}

/// The result of the policy check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyDecision {
    pub action: Action,
    pub default_action: Action,
    pub applied: Vec<AppliedPolicy>,
    /// For logs and metrics only; not part of the answer.
    pub errors: Vec<PolicyEvalError>,
}

impl PolicyDecision {
    /// The answer's `decision`: `{"final_action": ..., "action_payload": {...} | null}`.
    pub fn decision_json(&self) -> Value {
        json!({"final_action": self.action.final_action, "action_payload": self.action.action_payload})
    }

    /// The answer's `evaluation_details`: `{"applied_policies": [...]}`.
    pub fn evaluation_details_json(&self) -> Value {
        json!({"applied_policies": self.applied})
    }
}

fn compile(source: &str) -> Result<Program, String> {
    match catch_unwind(AssertUnwindSafe(|| Program::compile(source))) {
        Ok(Ok(p)) => Ok(p),
        Ok(Err(e)) => Err(format!("expression does not parse: {e}")),
        Err(_) => Err("expression does not parse (parser failure)".into()),
    }
}

fn execute(program: &Program, ctx: &Context) -> Result<CelValue, String> {
    match catch_unwind(AssertUnwindSafe(|| program.execute(ctx))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("evaluation failure".into()),
    }
}

/// Whether `name` occurs as the variable of a macro in `source`, e.g. `.exists(x, ...)`.
fn is_macro_binder(source: &str, name: &str) -> bool {
    let mut rest = source;
    while let Some(i) = rest.find('(') {
        let after = rest[i + 1..].trim_start();
        if let Some(tail) = after.strip_prefix(name) {
            if tail.trim_start().starts_with(',') {
                return true;
            }
        }
        rest = &rest[i + 1..];
    }
    false
}

/// A context with every variable present and typical values, for load-time checks.
fn sample_context() -> Value {
    json!({
        "behavior_score": 650,
        "risk_level": "MEDIUM",
        "is_fraud": false,
        "is_confident": true,
        "is_first_session": false,
        "groups": {
            "device_description": {"score": 1000, "weight": 0.2},
            "device_behavior": {"score": 600, "weight": 0.3},
            "user_behavior": {"score": 500, "weight": 0.5}
        },
        "explainers": ["keystroke.dd_mean"],
        "transaction": {
            "transaction_id": "t-1", "transaction_timestamp": "2025-01-01T10:00:00Z",
            "transaction_amount": 1500000.0, "currency_code": "VND", "transaction_type": "TRANSFER",
            "channel": "MOBILE", "transaction_status": "PENDING",
            "account_number": "0001", "account_holder_name": "A", "bank_code": "B1",
            "beneficiary_account_number": "0002", "beneficiary_account_holder_name": "B", "beneficiary_bank_code": "B2"
        },
        "device": {"model": "Pixel 7", "os": "android", "os_version": "14", "screen_width": 412, "screen_height": 915,
                   "screen_density": 2.625, "locale": "vi-VN", "timezone": "Asia/Ho_Chi_Minh", "sdk_version": "1.5.0"}
    })
}

/// Deepest JSON nesting converted into the CEL context; deeper values become null.
pub const MAX_CONTEXT_DEPTH: usize = 32;

/// JSON to CEL: integers become CEL `int` (`uint` only beyond i64), other numbers `double`.
fn to_cel(v: &Value, depth: usize) -> CelValue {
    if depth > MAX_CONTEXT_DEPTH {
        return CelValue::Null;
    }
    match v {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                CelValue::Int(i)
            } else if let Some(u) = n.as_u64() {
                CelValue::UInt(u)
            } else {
                CelValue::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => CelValue::String(Arc::new(s.clone())),
        Value::Array(a) => CelValue::List(Arc::new(a.iter().map(|x| to_cel(x, depth + 1)).collect())),
        Value::Object(o) => {
            let map: HashMap<Key, CelValue> =
                o.iter().map(|(k, x)| (Key::String(Arc::new(k.clone())), to_cel(x, depth + 1))).collect();
            CelValue::Map(CelMap { map: Arc::new(map) })
        }
    }
}

fn cel_context(context: &Value) -> (Context<'static>, Vec<String>) {
    let mut ctx = Context::default();
    let mut problems = Vec::new();
    if let Some(obj) = context.as_object() {
        for (k, v) in obj {
            ctx.add_variable_from_value(k.as_str(), to_cel(v, 0));
        }
    } else {
        problems.push("context is not an object".into());
    }
    (ctx, problems)
}

fn validate_spec(spec: &PolicySpec) -> Result<Option<Action>, PolicyError> {
    let id = spec.policy_id.as_str();
    for (field, v) in [("policy_id", &spec.policy_id), ("policy_name", &spec.policy_name), ("policy_version", &spec.policy_version)] {
        if v.trim().is_empty() || v.len() > MAX_ID_LEN || v.chars().any(char::is_control) {
            return Err(invalid(id, format!("{field} must be 1 to {MAX_ID_LEN} printable characters")));
        }
    }
    if spec.expression.trim().is_empty() || spec.expression.len() > MAX_EXPRESSION_LEN {
        return Err(invalid(id, format!("expression must be 1 to {MAX_EXPRESSION_LEN} bytes")));
    }
    let payload = match &spec.action_payload {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => {
            if serde_json::to_string(v).map(|s| s.len()).unwrap_or(usize::MAX) > MAX_PAYLOAD_LEN {
                return Err(invalid(id, "action_payload too large"));
            }
            Some(v.clone())
        }
        Some(_) => return Err(invalid(id, "action_payload must be an object or null")),
    };
    match (spec.outcome, spec.final_action) {
        (PolicyOutcome::NoChange, None) => {
            if payload.is_some() {
                return Err(invalid(id, "a NO_CHANGE policy takes no action_payload"));
            }
            Ok(None)
        }
        (PolicyOutcome::NoChange, Some(_)) => Err(invalid(id, "a NO_CHANGE policy takes no final_action")),
        (_, None) => Err(invalid(id, "final_action is required unless the outcome is NO_CHANGE")),
        (_, Some(action)) => {
            if action == FinalAction::StepUp {
                let ct = payload.as_ref().and_then(|p| p.get("challenge_type")).and_then(Value::as_str);
                if !matches!(ct, Some("SOFT_OTP") | Some("FACE_AUTHEN")) {
                    return Err(invalid(id, "STEP_UP needs action_payload.challenge_type SOFT_OTP or FACE_AUTHEN"));
                }
            }
            Ok(Some(Action { final_action: action, action_payload: payload }))
        }
    }
}

fn validate_program(spec: &PolicySpec, program: &Program, sample: &Context) -> Result<(), PolicyError> {
    let id = spec.policy_id.as_str();
    let refs = program.references();
    for f in refs.functions() {
        let operator = f.starts_with('_') || f.starts_with('@') || f.starts_with('!') || f.starts_with('-');
        if !operator && !ALLOWED_FUNCTIONS.contains(&f) {
            return Err(invalid(id, format!("unknown function {f:?}")));
        }
    }
    for v in refs.variables() {
        if !CONTEXT_VARIABLES.contains(&v) && !is_macro_binder(&spec.expression, v) {
            return Err(invalid(id, format!("unknown variable {v:?} (context variables: {})", CONTEXT_VARIABLES.join(", "))));
        }
    }
    match catch_unwind(AssertUnwindSafe(|| program.execute(sample))) {
        Ok(Ok(CelValue::Bool(_))) => Ok(()),
        Ok(Ok(other)) => Err(invalid(id, format!("expression must yield a boolean, yields {:?}", other.type_of()))),
        Ok(Err(ExecutionError::UndeclaredReference(name))) => Err(invalid(id, format!("undeclared reference {name:?}"))),
        // Other failures depend on the data (e.g. a transaction field a sample lacks).
        Ok(Err(_)) => Ok(()),
        Err(_) => Err(invalid(id, "expression evaluation fails")),
    }
}

impl PolicySet {
    /// A set without policies: every decision is the default mapping.
    pub fn empty() -> PolicySet {
        PolicySet { version: None, policies: Vec::new() }
    }

    /// Loads and validates a policy file's text (JSON; docs/SCORING.md, "Policies").
    pub fn from_json(text: &str) -> Result<PolicySet, PolicyError> {
        let file: PolicyFile = serde_json::from_str(text)?;
        if file.policies.len() > MAX_POLICIES {
            return Err(PolicyError::TooMany(file.policies.len()));
        }
        let (sample, problems) = cel_context(&sample_context());
        debug_assert!(problems.is_empty(), "{problems:?}");
        let mut seen = std::collections::HashSet::new();
        let mut policies = Vec::with_capacity(file.policies.len());
        for spec in file.policies {
            let action = validate_spec(&spec)?;
            if !seen.insert(spec.policy_id.clone()) {
                return Err(invalid(&spec.policy_id, "duplicate policy_id"));
            }
            let program = compile(&spec.expression).map_err(|m| invalid(&spec.policy_id, m))?;
            validate_program(&spec, &program, &sample)?;
            policies.push(Policy { spec, action, program });
        }
        // Stable: ties keep file order.
        policies.sort_by_key(|p| p.spec.priority);
        Ok(PolicySet { version: file.version, policies })
    }

    /// Reads and validates a policy file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<PolicySet, PolicyError> {
        let text = std::fs::read_to_string(path)?;
        PolicySet::from_json(&text)
    }

    /// The file's `version` string, if any.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    pub fn len(&self) -> usize {
        self.policies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    /// The validated policies, in evaluation order.
    pub fn specs(&self) -> impl Iterator<Item = &PolicySpec> {
        self.policies.iter().map(|p| &p.spec)
    }

    /// Evaluates every enabled policy over `context` (normally [`scoring_context`]) and
    /// combines the matches with the default mapping of `risk_level`.
    pub fn evaluate(&self, context: &Value, risk_level: RiskLevel) -> PolicyDecision {
        let default = default_action(risk_level);
        let mut applied = Vec::new();
        let mut errors = Vec::new();
        let mut matched: Vec<&Policy> = Vec::new();
        if !self.policies.is_empty() {
            let (ctx, problems) = cel_context(context);
            for p in problems {
                errors.push(PolicyEvalError { policy_id: String::new(), message: p });
            }
            for p in self.policies.iter().filter(|p| p.spec.enabled) {
                match execute(&p.program, &ctx) {
                    Ok(CelValue::Bool(true)) => matched.push(p),
                    Ok(CelValue::Bool(false)) => {}
                    Ok(other) => errors.push(PolicyEvalError {
                        policy_id: p.spec.policy_id.clone(),
                        message: format!("not a boolean: {:?}", other.type_of()),
                    }),
                    Err(message) => errors.push(PolicyEvalError { policy_id: p.spec.policy_id.clone(), message }),
                }
            }
        }
        for p in &matched {
            applied.push(AppliedPolicy {
                policy_id: p.spec.policy_id.clone(),
                policy_name: p.spec.policy_name.clone(),
                policy_version: p.spec.policy_version.clone(),
                policy_outcome: p.spec.outcome,
            });
        }
        let with = |o: PolicyOutcome| matched.iter().filter(move |p| p.spec.outcome == o).filter_map(|p| p.action.as_ref());
        let action = if let Some(a) = with(PolicyOutcome::Overridden).next() {
            a.clone()
        } else if let Some(a) = with(PolicyOutcome::Escalated).fold(None::<&Action>, |best, a| match best {
            Some(b) if b.severity() >= a.severity() => Some(b),
            _ => Some(a),
        }) {
            if a.severity() > default.severity() {
                a.clone()
            } else {
                default.clone()
            }
        } else if let Some(a) = with(PolicyOutcome::Downgraded).next() {
            if a.severity() < default.severity() {
                a.clone()
            } else {
                default.clone()
            }
        } else {
            default.clone()
        };
        PolicyDecision { action, default_action: default, applied, errors }
    }
}

/// The scoring context policies are evaluated over (docs/SCORING.md, "Policy context").
/// `transaction` is the request's `transaction_data` as given (an empty object when absent
/// or not an object); `device` is what the caller knows about the device (typically
/// `SessionFeatures::device.to_json()`, optionally with record ids), an empty object when
/// absent.
pub fn scoring_context(outcome: &ScoreOutcome, transaction: Option<&Value>, device: Option<&Value>) -> Value {
    let obj = |v: Option<&Value>| match v {
        Some(Value::Object(m)) => Value::Object(m.clone()),
        _ => Value::Object(Map::new()),
    };
    let group = |g: &crate::engine::GroupScore| json!({"score": g.score, "weight": g.weight});
    json!({
        "behavior_score": outcome.behavior_score,
        "risk_level": outcome.risk_level.as_str(),
        "is_fraud": outcome.is_fraud,
        "is_confident": outcome.is_confident,
        "is_first_session": outcome.is_first_session(),
        "groups": {
            "device_description": group(&outcome.groups.device_description),
            "device_behavior": group(&outcome.groups.device_behavior),
            "user_behavior": group(&outcome.groups.user_behavior),
        },
        "explainers": outcome.explainers.iter().map(|e| e.feature.clone()).collect::<Vec<_>>(),
        "transaction": obj(transaction),
        "device": obj(device),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engine::first_session;

    fn ctx(score: u16, risk: &str, tx: Value) -> Value {
        let mut c = sample_context();
        c["behavior_score"] = json!(score);
        c["risk_level"] = json!(risk);
        c["transaction"] = tx;
        c
    }

    #[test]
    fn default_mapping_without_policies() {
        let set = PolicySet::empty();
        let cases = [
            (RiskLevel::Low, json!({"final_action": "ALLOW", "action_payload": null})),
            (RiskLevel::Medium, json!({"final_action": "STEP_UP", "action_payload": {"challenge_type": "SOFT_OTP"}})),
            (RiskLevel::High, json!({"final_action": "STEP_UP", "action_payload": {"challenge_type": "FACE_AUTHEN"}})),
            (RiskLevel::Critical, json!({"final_action": "REVIEW", "action_payload": null})),
        ];
        for (risk, want) in cases {
            let d = set.evaluate(&json!({}), risk);
            assert_eq!(d.decision_json(), want, "{risk:?}");
            assert_eq!(d.evaluation_details_json(), json!({"applied_policies": []}));
        }
    }

    const FILE: &str = r#"{
      "version": "2025-06-01",
      "policies": [
        {"policy_id": "big-transfer", "policy_name": "Big transfers need face", "policy_version": "3", "priority": 10,
         "expression": "has(transaction.transaction_amount) && transaction.transaction_amount > 50000000 && risk_level != 'LOW'",
         "outcome": "ESCALATED", "final_action": "STEP_UP", "action_payload": {"challenge_type": "FACE_AUTHEN"}},
        {"policy_id": "trusted-beneficiary", "policy_name": "Own accounts", "policy_version": "1", "priority": 20,
         "expression": "has(transaction.beneficiary_bank_code) && transaction.beneficiary_bank_code in ['B2', 'B9'] && behavior_score >= 500",
         "outcome": "DOWNGRADED", "final_action": "ALLOW"},
        {"policy_id": "blocklist", "policy_name": "Blocked beneficiary", "policy_version": "7", "priority": 1,
         "expression": "has(transaction.beneficiary_account_number) && transaction.beneficiary_account_number == '666'",
         "outcome": "OVERRIDDEN", "final_action": "BLOCK", "action_payload": {"reason": "blocklist"}},
        {"policy_id": "audit-first", "policy_name": "Audit first sessions", "policy_version": "1",
         "expression": "is_first_session", "outcome": "NO_CHANGE"},
        {"policy_id": "new-device", "policy_name": "Device changed", "policy_version": "2",
         "expression": "explainers.exists(e, e == 'device.model') && groups.device_description.score < 300",
         "outcome": "ESCALATED", "final_action": "REVIEW"}
      ]
    }"#;

    #[test]
    fn combination_rules() {
        let set = PolicySet::from_json(FILE).unwrap();
        assert_eq!(set.len(), 5);
        assert_eq!(set.version(), Some("2025-06-01"));
        // Escalation beats downgrade; MEDIUM default SOFT_OTP becomes FACE_AUTHEN.
        let d = set.evaluate(
            &ctx(650, "MEDIUM", json!({"transaction_amount": 90000000, "beneficiary_bank_code": "B2"})),
            RiskLevel::Medium,
        );
        assert_eq!(d.decision_json()["action_payload"]["challenge_type"], "FACE_AUTHEN");
        let ids: Vec<&str> = d.applied.iter().map(|a| a.policy_id.as_str()).collect();
        assert_eq!(ids, ["big-transfer", "trusted-beneficiary"]);
        assert_eq!(d.evaluation_details_json()["applied_policies"][1]["policy_outcome"], "DOWNGRADED");
        // Downgrade alone: MEDIUM -> ALLOW.
        let d = set.evaluate(&ctx(650, "MEDIUM", json!({"transaction_amount": 10, "beneficiary_bank_code": "B9"})), RiskLevel::Medium);
        assert_eq!(d.decision_json(), json!({"final_action": "ALLOW", "action_payload": null}));
        // Override wins over everything, listed first (priority 1).
        let d = set.evaluate(
            &ctx(900, "LOW", json!({"transaction_amount": 90000000, "beneficiary_account_number": "666", "beneficiary_bank_code": "B2"})),
            RiskLevel::Low,
        );
        assert_eq!(d.decision_json(), json!({"final_action": "BLOCK", "action_payload": {"reason": "blocklist"}}));
        assert_eq!(d.applied[0].policy_id, "blocklist");
        // An escalation that is not more severe than the default changes nothing but is listed.
        let d = set.evaluate(&ctx(50, "CRITICAL", json!({"transaction_amount": 90000000})), RiskLevel::Critical);
        assert_eq!(d.decision_json()["final_action"], "REVIEW");
        assert_eq!(d.applied.len(), 1);
        // Missing transaction fields: no match, no error thanks to has().
        let d = set.evaluate(&ctx(650, "MEDIUM", json!({})), RiskLevel::Medium);
        assert!(d.applied.is_empty() && d.errors.is_empty(), "{:?}", d.errors);
        assert_eq!(d.decision_json()["action_payload"]["challenge_type"], "SOFT_OTP");
    }

    #[test]
    fn first_session_context_and_no_change() {
        let set = PolicySet::from_json(FILE).unwrap();
        let out = first_session(1);
        let c = scoring_context(&out, Some(&json!({"transaction_amount": 1})), None);
        assert_eq!(c["is_first_session"], true);
        assert_eq!(c["risk_level"], "LOW");
        let d = set.evaluate(&c, out.risk_level);
        assert_eq!(d.applied.len(), 1);
        assert_eq!(d.applied[0].policy_outcome, PolicyOutcome::NoChange);
        assert_eq!(d.decision_json(), json!({"final_action": "ALLOW", "action_payload": null}));
    }

    #[test]
    fn bad_policies_rejected_at_load() {
        let one = |expr: &str, extra: &str| {
            format!(
                r#"{{"policies": [{{"policy_id": "p", "policy_name": "n", "policy_version": "1", "expression": {}, "outcome": "ESCALATED", "final_action": "REVIEW"{extra}}}]}}"#,
                serde_json::to_string(expr).unwrap()
            )
        };
        for bad in [
            "behavior_score >",                 // syntax
            "behavior_scor < 100",              // unknown variable
            "frobnicate(behavior_score)",       // unknown function
            "behavior_score + 1",               // not boolean
            "risk_level",                       // not boolean
            "",                                 // empty
        ] {
            let r = PolicySet::from_json(&one(bad, ""));
            assert!(matches!(r, Err(PolicyError::Invalid { .. })), "{bad:?} accepted: {r:?}");
        }
        // Macros with bound variables are fine.
        PolicySet::from_json(&one("explainers.exists(x, x.startsWith('device.'))", "")).unwrap();
        PolicySet::from_json(&one("explainers.all(f, f != 'swipe.bow_mean') && device.os == 'ios'", "")).unwrap();
        // Structural problems.
        assert!(PolicySet::from_json(r#"{"policies": [{"policy_id": "p"}]}"#).is_err());
        assert!(PolicySet::from_json(r#"{"policies": [], "extra": 1}"#).is_err());
        assert!(PolicySet::from_json("not json").is_err());
        let step_up_without_payload = r#"{"policies": [{"policy_id": "p", "policy_name": "n", "policy_version": "1",
            "expression": "true", "outcome": "ESCALATED", "final_action": "STEP_UP"}]}"#;
        assert!(PolicySet::from_json(step_up_without_payload).is_err());
        let bad_outcome = r#"{"policies": [{"policy_id": "p", "policy_name": "n", "policy_version": "1",
            "expression": "true", "outcome": "MAYBE", "final_action": "ALLOW"}]}"#;
        assert!(PolicySet::from_json(bad_outcome).is_err());
        let no_change_with_action = r#"{"policies": [{"policy_id": "p", "policy_name": "n", "policy_version": "1",
            "expression": "true", "outcome": "NO_CHANGE", "final_action": "ALLOW"}]}"#;
        assert!(PolicySet::from_json(no_change_with_action).is_err());
        let dup = r#"{"policies": [
            {"policy_id": "p", "policy_name": "n", "policy_version": "1", "expression": "true", "outcome": "NO_CHANGE"},
            {"policy_id": "p", "policy_name": "n", "policy_version": "2", "expression": "false", "outcome": "NO_CHANGE"}]}"#;
        assert!(PolicySet::from_json(dup).is_err());
        assert!(PolicySet::from_file("/nonexistent/policies.json").is_err());
    }

    #[test]
    fn runtime_errors_do_not_match() {
        let set = PolicySet::from_json(
            r#"{"policies": [{"policy_id": "p", "policy_name": "n", "policy_version": "1",
               "expression": "transaction.transaction_amount > 10", "outcome": "OVERRIDDEN", "final_action": "BLOCK"}]}"#,
        )
        .unwrap();
        let d = set.evaluate(&ctx(800, "LOW", json!({})), RiskLevel::Low);
        assert!(d.applied.is_empty());
        assert_eq!(d.errors.len(), 1);
        assert_eq!(d.decision_json()["final_action"], "ALLOW");
        // A hostile context (not an object, deep values) is survived.
        let d = set.evaluate(&json!([1, 2, 3]), RiskLevel::High);
        assert_eq!(d.decision_json()["action_payload"]["challenge_type"], "FACE_AUTHEN");
        let d = set.evaluate(&ctx(800, "LOW", json!({"transaction_amount": "a lot"})), RiskLevel::Low);
        assert!(d.applied.is_empty());
    }

    #[test]
    fn policy_set_is_shareable() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PolicySet>();
    }
}
