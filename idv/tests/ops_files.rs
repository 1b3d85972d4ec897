//! The operator files under `ops/` against what the processes export: every `idv_` metric
//! the alert rules and the Grafana dashboard use must exist (a renamed metric would
//! otherwise silence an alert without a word), and the rules cover what operators are
//! told to alert on.

use idv_ingest::metrics::Metrics;
use idv_jobs::metrics::JobMetrics;
use std::collections::BTreeSet;
use std::path::Path;

fn exported() -> BTreeSet<String> {
    let registry = Metrics::process_registry().expect("registry");
    let http = Metrics::in_registry(registry.clone()).expect("http metrics");
    let jobs = JobMetrics::register(&registry).expect("job metrics");
    // A labelled family is exported once it has a child: give each one.
    http.request_duration.with_label_values(&["op", "200"]).observe(0.1);
    http.errors.with_label_values(&["op", "code"]).inc();
    http.bus_lag.with_label_values(&["topic"]).set(1);
    http.pending.set(1);
    jobs.jobs_in_flight.with_label_values(&["topic"]).set(1);
    jobs.job_duration.with_label_values(&["op", "200"]).observe(0.1);
    for c in [&jobs.redeliveries, &jobs.job_retries, &jobs.commit_errors, &jobs.unreadable_jobs] {
        c.with_label_values(&["topic"]).inc();
    }
    registry.gather().iter().map(|f| f.name().to_string()).collect()
}

/// `idv_…` identifiers in `text`, histogram sample suffixes folded into their family.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("idv_") {
        let start = i + at;
        let boundary = start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let end = text[start..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(text.len(), |n| start + n);
        // A bare `idv_` is the prefix mentioned in prose, not a metric.
        if boundary && end > start + "idv_".len() {
            let name = &text[start..end];
            let family = ["_bucket", "_sum", "_count"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(name);
            names.insert(family.to_string());
        }
        i = end;
    }
    names
}

fn ops_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn alert_rules_and_dashboard_use_only_exported_metrics() {
    let exported = exported();
    for rel in ["ops/prometheus/alerts.yml", "ops/grafana/idv.json"] {
        let used = metric_names(&ops_file(rel));
        assert!(used.len() >= 6, "{rel} uses the metrics: {used:?}");
        let unknown: Vec<_> = used.iter().filter(|n| !exported.contains(*n)).collect();
        assert!(unknown.is_empty(), "{rel} uses metrics no process exports: {unknown:?} (exported: {exported:?})");
    }
}

#[test]
fn alert_rules_cover_lag_timeouts_errors_and_redeliveries() {
    let rules = ops_file("ops/prometheus/alerts.yml");
    let used = metric_names(&rules);
    for needed in [
        "idv_bus_lag_messages",
        "idv_jobs_in_flight",
        "idv_job_duration_seconds",
        "idv_job_redeliveries_total",
        "idv_job_retries_total",
        "idv_request_errors_total",
    ] {
        assert!(used.contains(needed), "no alert on {needed}");
    }
    assert!(rules.contains("request_timeout_exception"), "408s are alerted on");
    assert!(rules.contains("internal_server_error"), "store/bus faults seen by the HTTP tier are alerted on");
    // Every rule has the fields Prometheus and Alertmanager need.
    let alerts = rules.matches("- alert:").count();
    assert!(alerts >= 6);
    assert_eq!(rules.matches("\n        expr:").count(), alerts, "one expr per alert");
    assert_eq!(rules.matches("severity:").count(), alerts, "one severity per alert");
    assert_eq!(rules.matches("summary:").count(), alerts, "one summary per alert");
}

#[test]
fn the_dashboard_is_json_with_a_query_per_panel() {
    let dash: serde_json::Value = serde_json::from_str(&ops_file("ops/grafana/idv.json")).expect("the dashboard is JSON");
    let panels = dash["panels"].as_array().expect("panels");
    assert!(panels.len() >= 6);
    for p in panels {
        let targets = p["targets"].as_array().expect("targets");
        assert!(!targets.is_empty() && targets.iter().all(|t| t["expr"].as_str().is_some_and(|e| e.contains("idv_"))), "{p}");
    }
}

fn idv_help(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_idv")).args(args).arg("--help").output().expect("idv runs");
    assert!(out.status.success(), "idv {args:?} --help: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// docker-compose.yml against the binary it runs (no Docker engine here: this is as far
/// as CI can check it): every role's command and flags exist, every `IDV_` variable is a
/// setting, and the one-node ScyllaDB gets replication factor 1.
#[test]
fn docker_compose_runs_commands_and_settings_the_binary_has() {
    let compose = ops_file("docker-compose.yml");
    let mut commands = 0;
    for line in compose.lines().map(str::trim) {
        let Some(list) = line.strip_prefix("command: [").or_else(|| line.strip_prefix("entrypoint: [")) else { continue };
        let args: Vec<String> = list.trim_end_matches(']').split(',').map(|a| a.trim().trim_matches('"').to_string()).collect();
        // Only the idv roles: the infrastructure images have their own entrypoints.
        let args: Vec<&str> = match args.first().map(String::as_str) {
            Some("idv") => args[1..].iter().map(String::as_str).collect(),
            Some("ingest" | "worker" | "scorer" | "serve") => args.iter().map(String::as_str).collect(),
            _ => continue,
        };
        let subcommands: Vec<&str> = args.iter().copied().take_while(|a| !a.starts_with('-')).collect();
        let help = idv_help(&subcommands);
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            assert!(help.contains(flag), "idv {subcommands:?} has no {flag}:\n{help}");
        }
        commands += 1;
    }
    assert!(commands >= 4, "ingest, worker, scorer and keys are in the compose file");
    let settings_help = idv_help(&["serve"]);
    let mut vars = 0;
    for line in compose.lines().map(str::trim) {
        let Some((name, _)) = line.split_once(':') else { continue };
        if name.starts_with("IDV_") {
            assert!(settings_help.contains(&format!("[env: {name}")), "{name} is not a setting of idv:\n{settings_help}");
            vars += 1;
        }
    }
    assert!(vars >= 5, "the roles' settings are in the compose file");
    assert_eq!(compose.matches("image: scylladb/").count(), 1, "one ScyllaDB node");
    assert!(compose.contains("IDV_STORE: scylla://scylla:9042/idv?replication_factor=1"), "a one-node keyspace needs factor 1");
}
