//! Prometheus metrics served at `/metrics`.

use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry};

pub struct Metrics {
    pub registry: Registry,
    /// Per-operation latency, labelled with the HTTP status.
    pub request_duration: HistogramVec,
    /// Error responses per operation and code.
    pub errors: IntCounterVec,
    /// Requests waiting for a result in this instance.
    pub pending: IntGauge,
    /// Uncommitted jobs per topic for the worker group (where the bus can tell).
    pub bus_lag: IntGaugeVec,
}

impl Metrics {
    /// The HTTP tier's metrics in a registry of their own.
    pub fn new() -> Result<Self, prometheus::Error> {
        Self::in_registry(Self::process_registry()?)
    }

    /// The one registry of a process (every name prefixed `idv_`): the HTTP tier's metrics
    /// and the job runtime's (`idv_jobs::metrics`) go into the same one.
    pub fn process_registry() -> Result<Registry, prometheus::Error> {
        Registry::new_custom(Some("idv".into()), None)
    }

    /// The HTTP tier's metrics, registered in `registry` (shared with the process's other roles).
    pub fn in_registry(registry: Registry) -> Result<Self, prometheus::Error> {
        let request_duration = HistogramVec::new(
            HistogramOpts::new("request_duration_seconds", "Request latency by operation").buckets(vec![
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
            ]),
            &["operation", "status"],
        )?;
        let errors = IntCounterVec::new(Opts::new("request_errors_total", "Error responses"), &["operation", "code"])?;
        let pending = IntGauge::new("pending_requests", "Requests awaiting a result in this instance")?;
        let bus_lag = IntGaugeVec::new(Opts::new("bus_lag_messages", "Uncommitted jobs per topic"), &["topic"])?;
        registry.register(Box::new(request_duration.clone()))?;
        registry.register(Box::new(errors.clone()))?;
        registry.register(Box::new(pending.clone()))?;
        registry.register(Box::new(bus_lag.clone()))?;
        Ok(Metrics { registry, request_duration, errors, pending, bus_lag })
    }

    pub fn render(&self) -> String {
        render(&self.registry)
    }
}

/// The Prometheus text format of everything in `registry`.
pub fn render(registry: &Registry) -> String {
    let mut buf = Vec::new();
    let _ = prometheus::TextEncoder::new().encode(&registry.gather(), &mut buf);
    String::from_utf8(buf).unwrap_or_default()
}

