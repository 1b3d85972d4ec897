//! Offline evaluation on the synthetic population (docs/SCORING.md, "Evaluation").
//!
//! Protocol: every user gets `sessions` sessions on their own device; the first `enroll`
//! are folded into the engine's baseline and used to train the scaled-Manhattan detector
//! (hold-out: nothing after them is used for enrollment or tuning). Genuine attempts are
//! the user's later sessions. Two impostor sets are scored against every user:
//! - `other_device`: one held-out session of every other user, on that user's own device
//!   (the brief's "other users' sessions");
//! - `same_device`: a fresh session of every other user's behavior on the victim's device
//!   (device description and hardware identical; only behavior differs).
//!
//! In 10% of users (drawn from the seed) the device gets an OS and SDK update between
//! enrollment and the test sessions, so that genuine sessions also see device drift.

use crate::baseline::Baseline;
use crate::engine::{score_with, EngineOptions, GroupWeights, RiskLevel, GROUP_WEIGHTS};
use crate::features::SessionFeatures;
use crate::manhattan::ScaledManhattan;
use crate::synth::{self, derive_seed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalConfig {
    pub seed: u64,
    pub users: usize,
    pub sessions: usize,
    pub enroll: usize,
    pub batches: usize,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig { seed: 20_240_601, users: 100, sessions: 15, enroll: 5, batches: 3 }
    }
}

/// Equal error rate of two score sets where higher means "more genuine". Sweeps every
/// distinct threshold; returns the mean of FAR and FRR where they are closest.
pub fn eer(genuine: &[f64], impostor: &[f64]) -> f64 {
    if genuine.is_empty() || impostor.is_empty() {
        return f64::NAN;
    }
    let mut all: Vec<(f64, bool)> = genuine.iter().map(|s| (*s, true)).chain(impostor.iter().map(|s| (*s, false))).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ng, ni) = (genuine.len() as f64, impostor.len() as f64);
    // Threshold below everything: accept all -> FRR 0, FAR 1.
    let mut best = (f64::INFINITY, 0.5);
    let mut rejected_g = 0.0;
    let mut rejected_i = 0.0;
    let mut i = 0;
    loop {
        let frr = rejected_g / ng;
        let far = (ni - rejected_i) / ni;
        let gap = (far - frr).abs();
        if gap < best.0 {
            best = (gap, (far + frr) / 2.0);
        }
        if i >= all.len() {
            break;
        }
        // Reject every score equal to the next value (ties move together).
        let v = all[i].0;
        while i < all.len() && all[i].0 == v {
            if all[i].1 {
                rejected_g += 1.0;
            } else {
                rejected_i += 1.0;
            }
            i += 1;
        }
    }
    best.1
}

/// Scores of one detector on one impostor scenario.
#[derive(Debug, Clone, Default)]
pub struct Scores {
    pub genuine: Vec<f64>,
    pub impostor: Vec<f64>,
}

impl Scores {
    pub fn eer(&self) -> f64 {
        eer(&self.genuine, &self.impostor)
    }
}

#[derive(Debug, Clone, Default)]
pub struct ScenarioReport {
    pub engine: Scores,
    pub engine_behavior_only: Scores,
    pub manhattan: Scores,
    /// Risk levels given by the engine to impostor attempts (LOW, MEDIUM, HIGH, CRITICAL).
    pub impostor_risk: [usize; 4],
}

#[derive(Debug, Clone, Default)]
pub struct EvalReport {
    pub config: Option<EvalConfig>,
    pub users: usize,
    pub enrollment_sessions: usize,
    pub genuine_attempts: usize,
    pub upgraded_users: usize,
    /// Generated sessions the extractor rejected (e.g. no interaction at all); not scored.
    pub extraction_failures: usize,
    pub genuine_risk: [usize; 4],
    pub other_device: ScenarioReport,
    pub same_device: ScenarioReport,
}

fn risk_index(r: RiskLevel) -> usize {
    match r {
        RiskLevel::Low => 0,
        RiskLevel::Medium => 1,
        RiskLevel::High => 2,
        RiskLevel::Critical => 3,
    }
}

struct Enrolled {
    baseline: Baseline,
    manhattan: ScaledManhattan,
}

fn extract_ok(batches: &[serde_json::Value]) -> Option<SessionFeatures> {
    crate::extract(batches).ok()
}

/// Runs the protocol. Deterministic in `cfg`.
pub fn run(cfg: &EvalConfig) -> EvalReport {
    let users = synth::population(cfg.seed, cfg.users);
    let enroll = cfg.enroll.clamp(1, cfg.sessions.saturating_sub(1).max(1));
    let behavior_only = EngineOptions { group_weights: GroupWeights { device_description: 0.0, ..GROUP_WEIGHTS } };
    let full = EngineOptions::default();

    // Sessions of every user on their own device.
    let mut sessions: Vec<Vec<SessionFeatures>> = Vec::with_capacity(users.len());
    let mut upgraded_users = 0;
    let mut failures = 0;
    for (ui, u) in users.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed ^ 0x5E55_1045, ui as u64));
        let upgrade = rng.gen_bool(0.1);
        upgraded_users += usize::from(upgrade);
        let later = u.device.upgraded();
        let mut list = Vec::with_capacity(cfg.sessions);
        for si in 0..cfg.sessions {
            let device = if upgrade && si >= enroll { &later } else { &u.device };
            match extract_ok(&u.session_batches_on(device, cfg.batches, &mut rng)) {
                Some(f) => list.push(f),
                None => failures += 1,
            }
        }
        sessions.push(list);
    }
    let enrolled: Vec<Enrolled> = sessions
        .iter()
        .map(|list| {
            let train = &list[..enroll.min(list.len())];
            let mut baseline = Baseline::default();
            for s in train {
                baseline.fold(s);
            }
            Enrolled { baseline, manhattan: ScaledManhattan::train(train) }
        })
        .collect();

    let mut report = EvalReport {
        config: Some(*cfg),
        users: users.len(),
        enrollment_sessions: enroll,
        upgraded_users,
        extraction_failures: failures,
        ..Default::default()
    };
    let push = |sc: &mut ScenarioReport, e: &Enrolled, s: &SessionFeatures, genuine: bool| -> RiskLevel {
        // A session the engine refuses to score counts as the lowest score (a refusal,
        // as the service answers it): never a middle score that helps either side.
        let scored = |opts: &EngineOptions| match score_with(&e.baseline, s, opts) {
            Ok(o) => (o.raw_score, o.risk_level),
            Err(_) => (0.0, RiskLevel::Critical),
        };
        let (out, out_risk) = scored(&full);
        let (beh, _) = scored(&behavior_only);
        let man = -e.manhattan.anomaly(s).unwrap_or(f64::INFINITY);
        let (a, b, c) = if genuine {
            (&mut sc.engine.genuine, &mut sc.engine_behavior_only.genuine, &mut sc.manhattan.genuine)
        } else {
            (&mut sc.engine.impostor, &mut sc.engine_behavior_only.impostor, &mut sc.manhattan.impostor)
        };
        a.push(out);
        b.push(beh);
        c.push(man);
        out_risk
    };

    for (ui, e) in enrolled.iter().enumerate() {
        // Genuine attempts (shared by both scenarios).
        for s in sessions[ui].iter().skip(enroll) {
            let r = push(&mut report.other_device, e, s, true);
            push(&mut report.same_device, e, s, true);
            report.genuine_risk[risk_index(r)] += 1;
            report.genuine_attempts += 1;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed ^ 0x1A9057E5, ui as u64));
        for (vi, v) in users.iter().enumerate() {
            if vi == ui {
                continue;
            }
            // Other users' held-out sessions on their own devices.
            let held_out = &sessions[vi][enroll.min(sessions[vi].len())..];
            if !held_out.is_empty() {
                let s = &held_out[ui % held_out.len()];
                let r = push(&mut report.other_device, e, s, false);
                report.other_device.impostor_risk[risk_index(r)] += 1;
            }
            // Other users' behavior on the victim's device.
            match extract_ok(&v.session_batches_on(&users[ui].device, cfg.batches, &mut rng)) {
                Some(s) => {
                    let r = push(&mut report.same_device, e, &s, false);
                    report.same_device.impostor_risk[risk_index(r)] += 1;
                }
                None => report.extraction_failures += 1,
            }
        }
    }
    report
}

/// Per-feature dispersion on a population: pooled within-user sd across sessions,
/// between-user sd of user means, the prior sd of the catalogue, and the share of
/// sessions that have the feature. For documentation and for choosing priors on a
/// development seed (never the reported one).
pub fn feature_table(cfg: &EvalConfig) -> String {
    let users = synth::population(cfg.seed, cfg.users);
    let mut per_user: Vec<Vec<SessionFeatures>> = Vec::new();
    for (ui, u) in users.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed ^ 0xFEA7, ui as u64));
        per_user.push((0..cfg.sessions).filter_map(|_| extract_ok(&u.session_batches(cfg.batches, &mut rng))).collect());
    }
    let total_sessions: usize = per_user.iter().map(Vec::len).sum();
    let mut out = format!("{:<28} {:>10} {:>10} {:>10} {:>8} {:>9}\n", "feature", "within_sd", "between_sd", "prior_sd", "ratio", "present");
    for def in crate::features::FEATURES {
        let mut within = crate::stats::Welford::default();
        let mut pooled = 0.0;
        let mut dof = 0.0;
        let mut present = 0usize;
        for list in &per_user {
            let mut w = crate::stats::Welford::default();
            for s in list {
                if let Some(x) = s.value(def.name) {
                    w.push(x);
                    present += 1;
                }
            }
            if let (Some(v), Some(m)) = (w.variance(), w.mean()) {
                pooled += v * f64::from(w.n - 1);
                dof += f64::from(w.n - 1);
                within.push(m);
            }
        }
        let wsd = if dof > 0.0 { (pooled / dof).sqrt() } else { f64::NAN };
        let bsd = within.sd().unwrap_or(f64::NAN);
        out.push_str(&format!(
            "{:<28} {:>10.4} {:>10.4} {:>10.4} {:>8.2} {:>8.0}%\n",
            def.name,
            wsd,
            bsd,
            def.prior_sd,
            bsd / wsd,
            100.0 * present as f64 / total_sessions.max(1) as f64
        ));
    }
    out
}

fn pct(n: usize, total: usize) -> String {
    if total == 0 {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * n as f64 / total as f64)
}

impl EvalReport {
    /// Human-readable report (what `behavior_eval` prints).
    pub fn render(&self) -> String {
        let mut s = String::new();
        let cfg = self.config.unwrap_or_default();
        s.push_str("behavior_eval: SYNTHETIC population (no public behavioral data set); see docs/SCORING.md\n");
        s.push_str(&format!(
            "seed {}  users {}  sessions/user {}  enrollment sessions/user {} (hold-out: tests use later sessions only)\n",
            cfg.seed, self.users, cfg.sessions, self.enrollment_sessions
        ));
        s.push_str(&format!("users whose device got an OS/SDK update after enrollment: {}\n", self.upgraded_users));
        s.push_str(&format!(
            "generated sessions rejected by the extractor (no usable interaction), not scored: {}\n",
            self.extraction_failures
        ));
        s.push_str(&format!(
            "genuine attempts: {}  impostor attempts: other_device {}  same_device {}\n\n",
            self.genuine_attempts,
            self.other_device.engine.impostor.len(),
            self.same_device.engine.impostor.len()
        ));
        s.push_str("EER (lower is better)            other_device   same_device\n");
        let row = |name: &str, a: &Scores, b: &Scores| format!("{name:<32} {:>11.2}%  {:>11.2}%\n", 100.0 * a.eer(), 100.0 * b.eer());
        s.push_str(&row("engine (robust z + device)", &self.other_device.engine, &self.same_device.engine));
        s.push_str(&row(
            "engine, behavior groups only",
            &self.other_device.engine_behavior_only,
            &self.same_device.engine_behavior_only,
        ));
        s.push_str(&row("scaled Manhattan (K&M 2009)", &self.other_device.manhattan, &self.same_device.manhattan));
        let risk_row = |name: &str, counts: &[usize], total: usize| {
            let cells: Vec<String> = counts.iter().map(|&c| format!("{:<7}", pct(c, total))).collect();
            format!("{name:<25} {}\n", cells.join(" "))
        };
        s.push_str("\nengine risk levels        LOW     MEDIUM  HIGH    CRITICAL\n");
        s.push_str(&risk_row("genuine", &self.genuine_risk, self.genuine_attempts));
        for (name, sc) in [("impostor other_device", &self.other_device), ("impostor same_device", &self.same_device)] {
            s.push_str(&risk_row(name, &sc.impostor_risk, sc.impostor_risk.iter().sum()));
        }
        s
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn eer_edge_cases() {
        assert_eq!(eer(&[1.0, 2.0, 3.0], &[-1.0, 0.0]), 0.0);
        assert_eq!(eer(&[0.0, 0.0], &[1.0, 1.0]), 1.0);
        let e = eer(&[1.0, 2.0, 3.0, 4.0], &[0.0, 1.5, 2.5, -1.0]);
        assert!((0.2..=0.3).contains(&e), "{e}");
        assert!(eer(&[], &[1.0]).is_nan());
        // All tied: 50%.
        assert_eq!(eer(&[1.0, 1.0], &[1.0, 1.0]), 0.5);
    }

    #[test]
    fn small_evaluation_runs_and_separates() {
        let r = run(&EvalConfig { seed: 1, users: 8, sessions: 7, enroll: 4, batches: 2 });
        assert_eq!(r.users, 8);
        assert_eq!(r.genuine_attempts, 8 * 3);
        assert_eq!(r.same_device.engine.impostor.len(), 8 * 7);
        assert!(r.other_device.engine.eer() < 0.25, "{}", r.render());
        assert!(r.same_device.engine.eer() < 0.4, "{}", r.render());
        assert!(r.render().contains("SYNTHETIC"));
    }
}
