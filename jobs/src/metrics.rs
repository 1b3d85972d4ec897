//! Prometheus metrics of the job runtime (every worker and scorer process), registered in
//! the process's one registry (`idv/src/app.rs`) and served at `/metrics` by the HTTP tier
//! or, in a process without one, by `--metrics-listen`. The names operators alert on are
//! listed in `ops/prometheus/alerts.yml` and drawn in `ops/grafana/idv.json`; a test checks
//! that every name those files use is one a process exports.

use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry};

pub struct JobMetrics {
    /// Jobs taken off the bus and not finished, per topic.
    pub jobs_in_flight: IntGaugeVec,
    /// Time from taking a job to its result stored and sent, per operation and the
    /// result's HTTP status (what the caller got).
    pub job_duration: HistogramVec,
    /// Jobs delivered again after their result was stored (a worker died or a commit was
    /// lost before the offset moved): re-sent, not redone.
    pub redeliveries: IntCounterVec,
    /// Attempts that could not finish a job (store or bus unreachable), retried with backoff.
    pub job_retries: IntCounterVec,
    /// Offset commits the bus refused (the jobs may come back: handled idempotently).
    pub commit_errors: IntCounterVec,
    /// Messages on a job topic that are not a job of this version (answered if they name
    /// a request, then skipped).
    pub unreadable_jobs: IntCounterVec,
}

impl JobMetrics {
    /// The runtime's metrics, registered in `registry`.
    pub fn register(registry: &Registry) -> Result<Self, prometheus::Error> {
        let m = Self::unregistered()?;
        registry.register(Box::new(m.jobs_in_flight.clone()))?;
        registry.register(Box::new(m.job_duration.clone()))?;
        registry.register(Box::new(m.redeliveries.clone()))?;
        registry.register(Box::new(m.job_retries.clone()))?;
        registry.register(Box::new(m.commit_errors.clone()))?;
        registry.register(Box::new(m.unreadable_jobs.clone()))?;
        Ok(m)
    }

    /// Metrics counted but exported nowhere (tests, tools).
    pub fn unregistered() -> Result<Self, prometheus::Error> {
        let topic = &["topic"];
        Ok(JobMetrics {
            jobs_in_flight: IntGaugeVec::new(Opts::new("jobs_in_flight", "Jobs taken off the bus and not finished"), topic)?,
            job_duration: HistogramVec::new(
                HistogramOpts::new("job_duration_seconds", "Job time from take to result stored and sent").buckets(vec![
                    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
                ]),
                &["operation", "status"],
            )?,
            redeliveries: IntCounterVec::new(Opts::new("job_redeliveries_total", "Jobs delivered again after their result was stored"), topic)?,
            job_retries: IntCounterVec::new(Opts::new("job_retries_total", "Job attempts that failed on the store or bus and were retried"), topic)?,
            commit_errors: IntCounterVec::new(Opts::new("job_commit_errors_total", "Offset commits the bus refused"), topic)?,
            unreadable_jobs: IntCounterVec::new(Opts::new("jobs_unreadable_total", "Messages on a job topic that are not a job"), topic)?,
        })
    }
}
