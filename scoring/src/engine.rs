//! Scoring a session against a baseline: per-feature robust z-scores, per-group evidence,
//! the 0-1000 score, risk level, confidence and explainers (docs/SCORING.md, "Scoring").

use crate::baseline::Baseline;
use crate::features::{FeatureDef, SignalGroup, SessionFeatures, FEATURES, FEATURE_SCHEMA_VERSION};
use crate::stats::neg_log10_upper_tail;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Identifies the scoring model in `server_infos`.
pub const MODEL_ID: &str = "idv-behavior-robust-z-v1";
/// Default group weights (renormalized over the groups that have data).
pub const GROUP_WEIGHTS: GroupWeights = GroupWeights { device_description: 0.2, device_behavior: 0.3, user_behavior: 0.5 };
/// Pseudo-sessions of the prior standard deviation mixed into a baseline's own dispersion.
pub const PRIOR_SESSIONS: f64 = 4.0;
/// |z| is capped here before it enters the group statistic (robustness to one wild feature).
pub const Z_CAP: f64 = 6.0;
/// Features with |z| at least this are eligible as explainers.
pub const EXPLAIN_Z: f64 = 2.0;
/// Most explainers returned.
pub const MAX_EXPLAINERS: usize = 5;
/// `is_confident` needs at least this many folded sessions ...
pub const CONFIDENT_MIN_SESSIONS: u32 = 3;
/// ... and at least this many behavioral features compared (present in the session and
/// seen in at least 2 baseline sessions) ...
pub const CONFIDENT_MIN_FEATURES: usize = 8;
/// Why a session could not be scored. Answered as a failure code
/// (`insufficient_behavior_data`, docs/SCORING.md), never as a made-up middle score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotScorable {
    /// No behavioral feature and no device attribute could be compared with the baseline.
    NoEvidence,
    /// The computed score is not a number (a corrupt baseline, say).
    NotANumber,
}

impl NotScorable {
    pub fn reason(self) -> &'static str {
        match self {
            NotScorable::NoEvidence => "nothing in this session can be compared with the user's baseline",
            NotScorable::NotANumber => "the score could not be computed from this baseline",
        }
    }
}

/// Evidence (-log10 p) to score: piecewise linear through these points.
const SCORE_MAP: [(f64, f64); 5] = [(0.0, 1000.0), (2.0, 700.0), (4.0, 400.0), (8.0, 100.0), (12.0, 0.0)];

/// Penalties, in evidence units (-log10 p), for a device attribute never seen in the baseline.
pub const DEVICE_PENALTIES: &[(&str, f64)] = &[
    ("model", 6.0),
    ("os", 8.0),
    ("screen", 4.0),
    ("os_version", 1.0),
    ("sdk_version", 0.5),
    ("locale", 2.0),
    ("timezone", 1.5),
];
/// Penalty for an `os_version` or `sdk_version` newer than every version in the baseline
/// (routine updates), instead of the full penalty.
pub const VERSION_UPGRADE_PENALTY: f64 = 0.25;
/// Penalty for an attribute the baseline knows but this session does not report.
pub const DEVICE_MISSING_PENALTY: f64 = 1.0;
/// Penalty for batches of one session describing different devices.
pub const DEVICE_INCONSISTENT_PENALTY: f64 = 6.0;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupWeights {
    pub device_description: f64,
    pub device_behavior: f64,
    pub user_behavior: f64,
}

impl GroupWeights {
    fn get(&self, g: SignalGroup) -> f64 {
        match g {
            SignalGroup::DeviceDescription => self.device_description,
            SignalGroup::DeviceBehavior => self.device_behavior,
            SignalGroup::UserBehavior => self.user_behavior,
        }
    }
}

/// Risk level per the spec's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
    Critical,
}

impl RiskLevel {
    /// 700-1000 LOW, 400-699 MEDIUM, 100-399 HIGH, 0-99 CRITICAL.
    pub fn from_score(score: u16) -> RiskLevel {
        match score {
            700.. => RiskLevel::Low,
            400..=699 => RiskLevel::Medium,
            100..=399 => RiskLevel::High,
            _ => RiskLevel::Critical,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RiskLevel::Low => "LOW",
            RiskLevel::Medium => "MEDIUM",
            RiskLevel::High => "HIGH",
            RiskLevel::Critical => "CRITICAL",
        }
    }

    /// `is_fraud` is true only for CRITICAL.
    pub fn is_fraud(self) -> bool {
        self == RiskLevel::Critical
    }
}

/// One entry of `data.groups`. `score` is null (and `weight` 0) when the group had nothing
/// to compare in this session.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupScore {
    pub score: Option<u16>,
    pub weight: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Groups {
    pub device_description: GroupScore,
    pub device_behavior: GroupScore,
    pub user_behavior: GroupScore,
}

/// How an explained feature moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Numeric feature above the baseline.
    Higher,
    /// Numeric feature below the baseline.
    Lower,
    /// Device attribute never seen in the baseline (or the device changed mid-session).
    Changed,
    /// Device attribute the baseline knows but the session did not report.
    Missing,
}

/// One entry of `data.explainers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explainer {
    /// Feature name (docs/SCORING.md, "Features") or `device.<attribute>`.
    pub feature: String,
    pub group: SignalGroup,
    pub direction: Direction,
    /// Signed robust z-score for numeric features (2 decimals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MoreDetails {
    pub is_first_session: bool,
    pub embedding_count: u32,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The result of scoring; serializes to exactly the spec's `data` fields of a score answer
/// (without `request_id`, `status`, `server_infos`: see [`ScoreOutcome::to_data`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreOutcome {
    pub behavior_score: u16,
    pub risk_level: RiskLevel,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_fraud: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_confident: bool,
    pub groups: Groups,
    pub explainers: Vec<Explainer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_details: Option<MoreDetails>,
    /// Unrounded score (for evaluation); not part of the answer.
    #[serde(skip)]
    pub raw_score: f64,
    /// Behavioral features compared; not part of the answer.
    #[serde(skip)]
    pub compared_features: usize,
}

impl ScoreOutcome {
    fn from_score(raw: f64, groups: Groups, explainers: Vec<Explainer>, is_confident: bool, compared: usize) -> Result<ScoreOutcome, NotScorable> {
        if !raw.is_finite() {
            return Err(NotScorable::NotANumber);
        }
        let raw = raw.clamp(0.0, 1000.0);
        let behavior_score = raw.round() as u16;
        let risk_level = RiskLevel::from_score(behavior_score);
        Ok(ScoreOutcome {
            behavior_score,
            risk_level,
            is_fraud: risk_level.is_fraud(),
            is_confident,
            groups,
            explainers,
            more_details: None,
            raw_score: raw,
            compared_features: compared,
        })
    }

    pub fn is_first_session(&self) -> bool {
        self.more_details.is_some_and(|m| m.is_first_session)
    }

    /// The spec's `data` object: the outcome plus `request_id`, `status: "success"` and
    /// `server_infos` (engine, engine_version, model_id, feature_schema).
    pub fn to_data(&self, request_id: &str) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or_else(|_| json!({}));
        if let Some(o) = v.as_object_mut() {
            o.insert("request_id".into(), json!(request_id));
            o.insert("status".into(), json!("success"));
            o.insert("server_infos".into(), server_infos());
        }
        v
    }
}

/// The `server_infos` object.
pub fn server_infos() -> Value {
    json!({
        "engine": "idv-scorer",
        "engine_version": env!("CARGO_PKG_VERSION"),
        "model_id": MODEL_ID,
        "feature_schema": FEATURE_SCHEMA_VERSION,
    })
}

/// The synthetic first-session result: 1000, LOW, every group 1000 with the default
/// weights, no explainers, `more_details {is_first_session: true, embedding_count}`.
/// `embedding_count` is the number of sessions folded into the baseline after this call
/// (1 when the first session enrolled it, 0 when `is_update` was false).
pub fn first_session(embedding_count: u32) -> ScoreOutcome {
    let g = |w: f64| GroupScore { score: Some(1000), weight: w };
    let groups = Groups {
        device_description: g(GROUP_WEIGHTS.device_description),
        device_behavior: g(GROUP_WEIGHTS.device_behavior),
        user_behavior: g(GROUP_WEIGHTS.user_behavior),
    };
    // The spec's enrollment answer, marked as such by `more_details.is_first_session`
    // (not a comparison: there is nothing to compare with yet).
    ScoreOutcome {
        behavior_score: 1000,
        risk_level: RiskLevel::from_score(1000),
        is_fraud: false,
        is_confident: false,
        groups,
        explainers: Vec::new(),
        more_details: Some(MoreDetails { is_first_session: true, embedding_count }),
        raw_score: 1000.0,
        compared_features: 0,
    }
}

/// Options of the engine (the defaults are what [`score`] uses; the evaluation binary uses
/// others for ablations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineOptions {
    pub group_weights: GroupWeights,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { group_weights: GROUP_WEIGHTS }
    }
}

/// Scores `session` against `baseline`. An empty baseline cannot be compared with: the
/// caller answers a first session with [`first_session`] instead; if called anyway, or
/// when nothing else can be compared, the answer is [`NotScorable`], never a score.
pub fn score(baseline: &Baseline, session: &SessionFeatures) -> Result<ScoreOutcome, NotScorable> {
    score_with(baseline, session, &EngineOptions::default())
}

/// Robust z-score of one feature, if it can be compared. Signed.
pub fn feature_z(baseline: &Baseline, session: &SessionFeatures, def: &FeatureDef) -> Option<f64> {
    let st = baseline.feature(def.name)?;
    let o = session.observed(def.name)?;
    let nb = f64::from(st.value.n);
    let mu = st.value.mean()?;
    let prior2 = def.prior_sd * def.prior_sd;
    let mut var = match st.value.variance() {
        Some(s2) => ((nb - 1.0) * s2 + PRIOR_SESSIONS * prior2) / ((nb - 1.0) + PRIOR_SESSIONS),
        None => prior2,
    };
    // Predictive spread: the baseline mean itself is uncertain.
    var *= 1.0 + 1.0 / nb;
    // Fewer observations than usual: noisier session value (half the variance is assumed to
    // be sampling noise).
    if let Some(ln_n) = st.ln_obs.mean() {
        let ratio = ln_n.exp() / f64::from(o.n.max(1));
        var *= (0.5 + 0.5 * ratio).clamp(0.75, 4.0);
    }
    let z = (o.value - mu) / var.sqrt();
    z.is_finite().then_some(z)
}

fn evidence_to_score(l: f64) -> f64 {
    if !l.is_finite() || l <= SCORE_MAP[0].0 {
        return if l.is_finite() { SCORE_MAP[0].1 } else { 0.0 };
    }
    for w in SCORE_MAP.windows(2) {
        let ((l0, s0), (l1, s1)) = (w[0], w[1]);
        if l <= l1 {
            return s0 + (s1 - s0) * (l - l0) / (l1 - l0);
        }
    }
    SCORE_MAP[SCORE_MAP.len() - 1].1
}

fn is_version(attr: &str) -> bool {
    attr == "os_version" || attr == "sdk_version"
}

/// True when dotted version `a` is strictly newer than `b` (numeric components compared
/// numerically, missing components count as 0; a non-numeric component makes it false).
pub fn version_newer(a: &str, b: &str) -> bool {
    let parse = |v: &str| -> Option<Vec<u64>> { v.split('.').take(8).map(|p| p.trim().parse::<u64>().ok()).collect() };
    let (Some(x), Some(y)) = (parse(a), parse(b)) else { return false };
    let n = x.len().max(y.len());
    for i in 0..n {
        let (p, q) = (x.get(i).copied().unwrap_or(0), y.get(i).copied().unwrap_or(0));
        if p != q {
            return p > q;
        }
    }
    false
}

/// Half-normal moments of |z| under "same user": E|z| and Var|z|.
const HALF_NORMAL_MEAN: f64 = 0.797_884_560_802_865_4;
const HALF_NORMAL_VAR: f64 = 1.0 - 2.0 / std::f64::consts::PI;

struct GroupEvidence {
    evidence: f64,
    coverage: f64,
}

/// Like [`score`] with explicit options.
pub fn score_with(baseline: &Baseline, session: &SessionFeatures, opts: &EngineOptions) -> Result<ScoreOutcome, NotScorable> {
    let mut zs: Vec<(&FeatureDef, f64)> = Vec::new();
    for def in FEATURES {
        if let Some(z) = feature_z(baseline, session, def) {
            zs.push((def, z));
        }
    }
    let behavioral = |group: SignalGroup| -> Option<GroupEvidence> {
        let total_w: f64 = FEATURES.iter().filter(|d| d.group == group).map(|d| d.weight).sum();
        let (mut t, mut e, mut v, mut w) = (0.0, 0.0, 0.0, 0.0);
        for (def, z) in zs.iter().filter(|(d, _)| d.group == group) {
            t += def.weight * z.abs().min(Z_CAP);
            e += def.weight * HALF_NORMAL_MEAN;
            v += def.weight * def.weight * HALF_NORMAL_VAR;
            w += def.weight;
        }
        if w <= 0.0 || v <= 0.0 {
            return None;
        }
        let u = (t - e) / v.sqrt();
        Some(GroupEvidence { evidence: neg_log10_upper_tail(u), coverage: (w / total_w).min(1.0) })
    };

    // Device description.
    let mut device_explainers: Vec<(f64, Explainer)> = Vec::new();
    let attrs = session.device.attributes();
    // With no attribute in the baseline, only an inconsistent session is device evidence:
    // a perfect device score over nothing compared would be made up.
    let baseline_has_attributes = DEVICE_PENALTIES.iter().any(|(a, _)| baseline.has_attribute(a));
    let nothing_to_compare = !baseline_has_attributes && (attrs.is_empty() || session.device_consistent);
    let device = if nothing_to_compare || baseline.is_empty() {
        None
    } else {
        let mut l = 0.0;
        for (attr, penalty) in DEVICE_PENALTIES {
            if !baseline.has_attribute(attr) {
                continue;
            }
            let reported = attrs.iter().find(|(a, _)| a == attr);
            let (p, dir) = match reported {
                Some((_, value)) => match baseline.device_count(attr, value) {
                    Some(0) if is_version(attr) && baseline.device_values(attr).all(|old| version_newer(value, old)) => {
                        (VERSION_UPGRADE_PENALTY, Direction::Changed)
                    }
                    Some(0) => (*penalty, Direction::Changed),
                    _ => (0.0, Direction::Changed),
                },
                None => (DEVICE_MISSING_PENALTY, Direction::Missing),
            };
            if p > 0.0 {
                l += p;
                device_explainers.push((
                    p,
                    Explainer { feature: format!("device.{attr}"), group: SignalGroup::DeviceDescription, direction: dir, z: None },
                ));
            }
        }
        if !session.device_consistent {
            l += DEVICE_INCONSISTENT_PENALTY;
            device_explainers.push((
                DEVICE_INCONSISTENT_PENALTY,
                Explainer {
                    feature: "device.consistency".into(),
                    group: SignalGroup::DeviceDescription,
                    direction: Direction::Changed,
                    z: None,
                },
            ));
        }
        Some(GroupEvidence { evidence: l, coverage: 1.0 })
    };

    let parts = [
        (SignalGroup::DeviceDescription, device),
        (SignalGroup::DeviceBehavior, behavioral(SignalGroup::DeviceBehavior)),
        (SignalGroup::UserBehavior, behavioral(SignalGroup::UserBehavior)),
    ];
    let mut scores = [None; 3];
    let mut weights = [0.0; 3];
    for (i, (g, ev)) in parts.iter().enumerate() {
        if let Some(ev) = ev {
            scores[i] = Some(evidence_to_score(ev.evidence));
            weights[i] = opts.group_weights.get(*g).max(0.0) * ev.coverage;
        }
    }
    let total: f64 = weights.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return Err(NotScorable::NoEvidence);
    }
    let raw = scores.iter().zip(weights.iter()).map(|(s, w)| s.unwrap_or(0.0) * w).sum::<f64>() / total;
    let gs = |i: usize| GroupScore {
        score: if weights[i] > 0.0 { scores[i].map(|s| s.round().clamp(0.0, 1000.0) as u16) } else { None },
        weight: (weights[i] / total * 1000.0).round() / 1000.0,
    };
    let groups = Groups { device_description: gs(0), device_behavior: gs(1), user_behavior: gs(2) };

    // Explainers: device changes first (by penalty), then the most deviating features.
    device_explainers.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut explainers: Vec<Explainer> = device_explainers.into_iter().map(|(_, e)| e).collect();
    let mut feats: Vec<&(&FeatureDef, f64)> = zs.iter().filter(|(_, z)| z.abs() >= EXPLAIN_Z).collect();
    feats.sort_by(|a, b| (b.0.weight * b.1.abs().min(Z_CAP)).total_cmp(&(a.0.weight * a.1.abs().min(Z_CAP))));
    for (def, z) in feats {
        if explainers.len() >= MAX_EXPLAINERS {
            break;
        }
        explainers.push(Explainer {
            feature: def.name.to_string(),
            group: def.group,
            direction: if *z > 0.0 { Direction::Higher } else { Direction::Lower },
            z: Some((z * 100.0).round() / 100.0),
        });
    }
    explainers.truncate(MAX_EXPLAINERS);

    let compared = zs
        .iter()
        .filter(|(d, _)| baseline.feature(d.name).is_some_and(|s| s.value.n >= 2))
        .count();
    let is_confident = baseline.sessions() >= CONFIDENT_MIN_SESSIONS
        && compared >= CONFIDENT_MIN_FEATURES
        && !session.device.is_empty();
    ScoreOutcome::from_score(raw, groups, explainers, is_confident, zs.len())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::synth;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn risk_table_boundaries() {
        let cases = [
            (0, RiskLevel::Critical),
            (99, RiskLevel::Critical),
            (100, RiskLevel::High),
            (399, RiskLevel::High),
            (400, RiskLevel::Medium),
            (699, RiskLevel::Medium),
            (700, RiskLevel::Low),
            (1000, RiskLevel::Low),
        ];
        for (s, r) in cases {
            assert_eq!(RiskLevel::from_score(s), r, "score {s}");
            assert_eq!(r.is_fraud(), s <= 99);
        }
    }

    #[test]
    fn version_comparison() {
        assert!(version_newer("17.5", "16.7"));
        assert!(version_newer("14", "13"));
        assert!(version_newer("1.10.0", "1.9.9"));
        assert!(version_newer("2", "1.9"));
        assert!(!version_newer("1.4", "1.4.0"));
        assert!(!version_newer("13", "14"));
        assert!(!version_newer("14-beta", "13"));
        assert!(!version_newer("", "1"));
    }

    #[test]
    fn os_update_costs_less_than_downgrade() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let u = synth::User::new(31);
        let b = enrolled(&u, 5, &mut rng);
        let mut newer = crate::extract(&u.session_batches(2, &mut rng)).unwrap();
        let mut older = newer.clone();
        newer.device.os_version = Some("99".into());
        older.device.os_version = Some("1".into());
        let (n, o) = (score(&b, &newer).unwrap(), score(&b, &older).unwrap());
        assert!(n.groups.device_description.score > o.groups.device_description.score);
        assert!(o.explainers.iter().any(|e| e.feature == "device.os_version" && e.direction == Direction::Changed));
    }

    #[test]
    fn evidence_map_is_monotone() {
        assert_eq!(evidence_to_score(0.0), 1000.0);
        assert_eq!(evidence_to_score(2.0), 700.0);
        assert_eq!(evidence_to_score(4.0), 400.0);
        assert_eq!(evidence_to_score(8.0), 100.0);
        assert_eq!(evidence_to_score(50.0), 0.0);
        assert_eq!(evidence_to_score(f64::NAN), 0.0);
        let mut last = f64::INFINITY;
        for i in 0..200 {
            let s = evidence_to_score(f64::from(i) * 0.07);
            assert!(s <= last);
            last = s;
        }
    }

    #[test]
    fn first_session_shape() {
        let v = first_session(1).to_data("req-1");
        assert_eq!(v["behavior_score"], 1000);
        assert_eq!(v["risk_level"], "LOW");
        assert_eq!(v["more_details"], json!({"is_first_session": true, "embedding_count": 1}));
        assert_eq!(v["request_id"], "req-1");
        assert_eq!(v["status"], "success");
        assert!(v.get("is_fraud").is_none());
        assert!(v.get("is_confident").is_none());
        assert!(v.get("raw_score").is_none());
        assert_eq!(v["explainers"], json!([]));
        for g in ["device_description", "device_behavior", "user_behavior"] {
            assert_eq!(v["groups"][g]["score"], 1000);
            assert!(v["groups"][g]["weight"].as_f64().unwrap() > 0.0);
        }
        assert_eq!(first_session(0).to_data("r")["more_details"]["embedding_count"], 0);
    }

    fn enrolled(user: &synth::User, k: usize, rng: &mut ChaCha8Rng) -> Baseline {
        let mut b = Baseline::default();
        for _ in 0..k {
            b.fold(&crate::extract(&user.session_batches(3, rng)).unwrap());
        }
        b
    }

    #[test]
    fn genuine_scores_higher_than_impostors() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let users = synth::population(77, 6);
        let mut wins = 0;
        let mut total = 0;
        for (i, u) in users.iter().enumerate() {
            let b = enrolled(u, 5, &mut rng);
            let genuine = score(&b, &crate::extract(&u.session_batches(2, &mut rng)).unwrap()).unwrap();
            for (j, other) in users.iter().enumerate() {
                if i == j {
                    continue;
                }
                // Impostor on the victim's own device: behavior only.
                let imp = score(&b, &crate::extract(&other.session_batches_on(&u.device, 2, &mut rng)).unwrap()).unwrap();
                total += 1;
                if genuine.raw_score > imp.raw_score {
                    wins += 1;
                }
            }
        }
        assert!(wins * 10 >= total * 8, "genuine beat impostor in {wins}/{total}");
    }

    #[test]
    fn outcome_serializes_to_spec_fields() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let u = synth::User::new(1);
        let other = synth::User::new(2);
        let b = enrolled(&u, 6, &mut rng);
        let s = crate::extract(&other.session_batches(2, &mut rng)).unwrap();
        let out = score(&b, &s).unwrap();
        let v = out.to_data("r");
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        for k in &keys {
            assert!(
                ["behavior_score", "risk_level", "is_fraud", "is_confident", "groups", "explainers", "request_id", "status", "server_infos"]
                    .contains(k),
                "unexpected key {k}"
            );
        }
        assert!(v.get("more_details").is_none());
        let score = v["behavior_score"].as_u64().unwrap();
        assert!(score <= 1000);
        assert_eq!(v["risk_level"], RiskLevel::from_score(score as u16).as_str());
        assert_eq!(v.get("is_fraud").is_some(), out.risk_level == RiskLevel::Critical);
        // A different user on a different device: the device explainers come first.
        if out.groups.device_description.score.is_some_and(|s| s < 1000) {
            assert_eq!(out.explainers[0].group, SignalGroup::DeviceDescription);
        }
        let wsum = ["device_description", "device_behavior", "user_behavior"]
            .iter()
            .map(|g| v["groups"][g]["weight"].as_f64().unwrap())
            .sum::<f64>();
        assert!((wsum - 1.0).abs() < 0.01);
    }

    #[test]
    fn confidence_rule() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let u = synth::User::new(9);
        let b2 = enrolled(&u, 2, &mut rng);
        let b5 = enrolled(&u, 5, &mut rng);
        let s = crate::extract(&u.session_batches(2, &mut rng)).unwrap();
        assert!(!score(&b2, &s).unwrap().is_confident);
        assert!(score(&b5, &s).unwrap().is_confident);
        // Only a few keystrokes: not enough features compared.
        let few = crate::extract(&[json!({"device": u.device.to_json(), "events": [
            {"type": "key_down", "t": 0, "key_class": "alpha"}, {"type": "key_up", "t": 90},
            {"type": "key_down", "t": 300, "key_class": "alpha"}, {"type": "key_up", "t": 380},
            {"type": "key_down", "t": 600, "key_class": "alpha"}, {"type": "key_up", "t": 690},
            {"type": "key_down", "t": 900, "key_class": "alpha"}, {"type": "key_up", "t": 980},
            {"type": "key_down", "t": 1200, "key_class": "alpha"}, {"type": "key_up", "t": 1290},
            {"type": "key_down", "t": 1500, "key_class": "alpha"}, {"type": "key_up", "t": 1580}
        ]})])
        .unwrap();
        let out = score(&b5, &few).unwrap();
        assert!(!out.is_confident);
        assert!(out.behavior_score <= 1000);
    }

    #[test]
    fn empty_or_corrupt_baseline_is_safe() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let u = synth::User::new(4);
        let s = crate::extract(&u.session_batches(1, &mut rng)).unwrap();
        assert_eq!(score(&Baseline::default(), &s), Err(NotScorable::NoEvidence), "no fixed middle score");
        // Sessions recorded but nothing in them comparable with this session.
        let bare = Baseline::from_json(r#"{"sessions": 3, "features": {}, "device": {}}"#).unwrap();
        assert_eq!(score(&bare, &s), Err(NotScorable::NoEvidence), "nothing compared is not a perfect score");
        let corrupt = Baseline::from_json(
            r#"{"sessions": 4, "features": {"keystroke.dwell_mean": {"value": {"n": 4, "mean": 1e308, "m2": 1e308}, "ln_obs": {"n": 1, "mean": -5, "m2": 0}},
                "tap.duration_mean": {"value": {"n": 4000000000, "mean": 4.0, "m2": -1}, "ln_obs": {"n": 0, "mean": 0, "m2": 0}}},
                "device": {"model": {}}}"#,
        )
        .unwrap();
        match score(&corrupt, &s) {
            Ok(out) => assert!(out.behavior_score <= 1000 && out.raw_score.is_finite()),
            Err(e) => assert_eq!(e, NotScorable::NotANumber),
        }
    }
}
