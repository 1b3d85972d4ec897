//! Start roles over backends opened from URLs, and stop them gracefully.

use crate::settings::Settings;
use idv_bus::Bus;
use idv_crypto::sealed::Sealer;
use idv_ingest::{auth::KeyResolver, metrics::Metrics, pending::PendingTable, rate_limit::RateLimiter, AppState};
use idv_schemas::ops::Topic;
use idv_store::blobs::{BlobStore, SealedBlobs};
use idv_store::Store;
use idv_workers::face::FaceHandler;
use idv_jobs::{JobHandler, WorkerDeps};
use idv_workers::FairVision;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Which roles this process runs. `serve` runs all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roles {
    pub ingest: bool,
    pub worker: bool,
    pub scorer: bool,
}

impl Roles {
    pub const ALL: Roles = Roles { ingest: true, worker: true, scorer: true };
}

/// The backends of one process.
#[derive(Clone)]
pub struct Backends {
    pub bus: Arc<dyn Bus>,
    pub store: Arc<dyn Store>,
    pub blobs: Arc<dyn BlobStore>,
    pub sealer: Sealer,
}

pub async fn open_backends(settings: &Settings) -> Result<Backends, String> {
    let sealer = settings.sealer()?;
    let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
    let raw_blobs = idv_store::blobs::open(&settings.blobs_url()).map_err(|e| e.to_string())?;
    let blobs: Arc<dyn BlobStore> = Arc::new(SealedBlobs::new(raw_blobs, sealer.clone()));
    let bus = idv_bus::open(&settings.bus_url()).await.map_err(|e| e.to_string())?;
    let names: Vec<&str> = Topic::ALL.iter().map(|t| t.name()).collect();
    bus.ensure_topics(&names, settings.partitions()).await.map_err(|e| e.to_string())?;
    Ok(Backends { bus, store, blobs, sealer })
}

/// A running process; [`Running::shutdown`] drains it.
pub struct Running {
    /// The HTTP address, when the ingest role runs (else the metrics listener's, if any).
    pub addr: Option<SocketAddr>,
    pub state: Option<AppState>,
    stop: watch::Sender<bool>,
    stop_http: watch::Sender<bool>,
    http: Option<tokio::task::JoinHandle<()>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// The face pipeline, when its models are installed (else face operations answer "not
/// performed", and the log says why).
pub fn biometrics(b: &Backends, threads: usize, passive_liveness_blocks: bool) -> Option<idv_workers::face::ops::Biometrics> {
    match idv_workers::face::engine::FaceEngine::load(threads) {
        Ok(engine) => Some(idv_workers::face::ops::Biometrics { engine, blobs: b.blobs.clone(), sealer: b.sealer.clone(), passive_liveness_blocks }),
        Err(reason) => {
            tracing::warn!(%reason, "face models not available: face operations will answer not performed (run scripts/models.sh)");
            None
        }
    }
}

/// The handler for each job topic (the vision worker pool serves four; the scorer one).
pub fn worker_handlers(
    store: Arc<dyn Store>,
    blobs: Arc<dyn idv_store::blobs::BlobStore>,
    biometrics: Option<idv_workers::face::ops::Biometrics>,
    sim: idv_workers::sim::SimHandler,
    face_auth_max_failures: u32,
    aadhaar_keys: Option<Arc<idv_workers::card::UidaiKeys>>,
) -> Vec<(Topic, Arc<dyn JobHandler>)> {
    vec![
        (Topic::Face, Arc::new(FairVision(FaceHandler { store: store.clone(), biometrics: biometrics.clone(), max_auth_failures: face_auth_max_failures })) as Arc<dyn JobHandler>),
        (Topic::Compare, Arc::new(FairVision(idv_workers::face::CompareHandler { biometrics: biometrics.clone() }))),
        (Topic::Card, Arc::new(FairVision(idv_workers::card::CardHandler { blobs, biometrics, aadhaar_keys, ocr: idv_workers::card::mrz::ocr_engine(), store: Some(store) }))),
        (Topic::Sim, Arc::new(sim)),
    ]
}

pub async fn start(settings: &Settings, roles: Roles) -> Result<Running, String> {
    let backends = open_backends(settings).await?;
    start_with(settings, roles, backends).await
}

/// After a crash of the embedded process, the requests whose jobs were in its memory (the
/// in-process bus keeps nothing) would read "processing" forever: each is finished as
/// interrupted (503 `service_unavailable`, "check, then retry"), which its poll then reads.
/// Only with the in-process bus and every role in this process: on Kafka the jobs survive
/// and a worker finishes them.
pub async fn finish_interrupted(store: &dyn Store) -> Result<usize, String> {
    use idv_schemas::{Envelope, ErrorKind, Group, Operation};
    let now = idv_ingest::now_rfc3339();
    let mut finished = 0;
    for id in store.unfinished_requests(usize::MAX).await.map_err(|e| e.to_string())? {
        let Some(record) = store.get_request(&id).await.map_err(|e| e.to_string())? else { continue };
        let group = Operation::ALL.iter().find(|op| op.name() == record.operation).map_or(Group::Face, |op| op.group());
        let answer = serde_json::to_string(&Envelope::error(group, &ErrorKind::Interrupted)).map_err(|e| e.to_string())?;
        store.complete_request(&id, &answer, &now).await.map_err(|e| e.to_string())?;
        finished += 1;
    }
    Ok(finished)
}

pub async fn start_with(settings: &Settings, roles: Roles, b: Backends) -> Result<Running, String> {
    if roles == Roles::ALL && b.bus.backend() == "memory" {
        // A store that cannot list them (ScyllaDB under `serve`) leaves them as they are.
        match finish_interrupted(b.store.as_ref()).await {
            Ok(0) => {}
            Ok(finished) => {
                tracing::warn!(finished, "requests interrupted by the last stop (their jobs were in memory) answered 503; their polls say so")
            }
            Err(reason) => tracing::warn!(%reason, "requests interrupted by the last stop could not be listed"),
        }
    }
    // Two stop signals: HTTP stops first and drains; workers and the results listener
    // stop after, so the requests being drained still get their answers.
    let (stop, stop_rx) = watch::channel(false);
    let (stop_http, stop_http_rx) = watch::channel(false);
    let mut tasks = Vec::new();
    // One registry per process: the HTTP tier's metrics and the job runtime's.
    let registry = Metrics::process_registry().map_err(|e| e.to_string())?;
    let job_metrics = Arc::new(idv_jobs::metrics::JobMetrics::register(&registry).map_err(|e| e.to_string())?);
    let deps = WorkerDeps { bus: b.bus.clone(), store: b.store.clone(), metrics: job_metrics, sealer: b.sealer.clone() };
    let concurrency = settings.worker_concurrency();
    if roles.worker {
        let telcos = match &settings.telcos_file {
            Some(path) => Some(Arc::new(idv_workers::sim::Telcos::load(path)?)),
            None => None,
        };
        let sim = idv_workers::sim::SimHandler {
            store: b.store.clone(),
            sealer: b.sealer.clone(),
            session_key_secret: idv_crypto::derive_key(&settings.master_key()?, "idv/sim-session-key/v1"),
            telcos,
        };
        let face = biometrics(&b, concurrency, settings.passive_liveness_blocks());
        // Loaded once here: a certificate that does not load stops the start.
        let aadhaar_keys = settings.aadhaar_keys()?;
        for (topic, handler) in worker_handlers(b.store.clone(), b.blobs.clone(), face, sim, settings.face_auth_max_failures(), aadhaar_keys) {
            tasks.extend(idv_jobs::runtime::spawn_pool(deps.clone(), topic, handler, concurrency, stop_rx.clone()).await.map_err(|e| e.to_string())?);
        }
    }
    if roles.scorer {
        let behavior: Arc<dyn JobHandler> = Arc::new(idv_scorer::handler::BehaviorHandler {
            store: b.store.clone(),
            keys: b.store.clone(),
            sealer: b.sealer.clone(),
            config: settings.behavior_config()?,
        });
        tasks.extend(
            idv_jobs::runtime::spawn_pool(deps.clone(), Topic::Behavior, behavior, concurrency, stop_rx.clone())
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    let (mut addr, mut state, mut http) = (None, None, None);
    if roles.ingest {
        let config = settings.ingest_config();
        let keys = Arc::new(KeyResolver::new(b.store.clone(), b.sealer.clone()));
        let demo = idv_ingest::demo::prepare(b.store.as_ref(), &keys, &b.sealer, settings.demo == Some(true), &idv_ingest::now_rfc3339())
            .await
            .map_err(|e| format!("demo page: {e}"))?;
        let st = AppState {
            demo: demo.map(Arc::new),
            jwt_key: idv_ingest::auth::JwtKey::from_master_key(&settings.master_key()?),
            replay: Arc::new(if settings.replay_guard_shared()? {
                idv_ingest::replay::ReplayGuard::shared(config.timestamp_skew * 2, b.store.clone())
            } else {
                idv_ingest::replay::ReplayGuard::new(config.timestamp_skew * 2)
            }),
            limiter: Arc::new(RateLimiter::new(config.rate_limit_per_sec, config.rate_limit_burst)),
            body_budget: Arc::new(idv_ingest::body_budget::BodyBudget::new(config.body_budget_bytes)),
            config: Arc::new(config),
            store: b.store.clone(),
            blobs: b.blobs.clone(),
            bus: b.bus.clone(),
            keys,
            pending: Arc::new(PendingTable::default()),
            metrics: Arc::new(Metrics::in_registry(registry.clone()).map_err(|e| e.to_string())?),
            sealer: b.sealer.clone(),
            subject_key: Arc::new(idv_crypto::derive_key(&settings.master_key()?, "idv/partition-subject/v1")),
            device_keys: Arc::new(idv_ingest::device_auth::DeviceKeyCache::default()),
        };
        let results = idv_ingest::results::subscribe(&st).await.map_err(|e| e.to_string())?;
        tasks.push(tokio::spawn(idv_ingest::results::run(st.clone(), results, stop_rx.clone())));
        tasks.push(tokio::spawn(report_lag(st.clone(), stop_rx.clone())));
        let (bound, task) = serve_http(&settings.listen(), idv_ingest::router::build(st.clone()), stop_http_rx.clone()).await?;
        (addr, http) = (Some(bound), Some(task));
        state = Some(st);
    } else if let Some(listen) = &settings.metrics_listen {
        // Workers and scorers have no HTTP tier: their metrics and probes get their own.
        let router = probes_router(registry, b.store.clone(), b.bus.clone());
        let (bound, task) = serve_http(listen, router, stop_http_rx.clone()).await.map_err(|e| format!("metrics listener: {e}"))?;
        (addr, http) = (Some(bound), Some(task));
    }
    tracing::info!(?roles, addr = ?addr, bus = b.bus.backend(), store = b.store.backend(), blobs = b.blobs.backend(), "idv started");
    Ok(Running { addr, state, stop, stop_http, http, tasks })
}

/// Bind `listen` and serve `router` until `stop` flips (then drain gracefully).
async fn serve_http(
    listen: &str,
    router: axum::Router,
    mut stop: watch::Receiver<bool>,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), String> {
    let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| format!("{listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let task = tokio::spawn(async move {
        // The peer address travels with each request: the demo key is loopback-only.
        let serve = axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>()).with_graceful_shutdown(async move {
            let _ = stop.changed().await;
        });
        if let Err(e) = serve.await {
            tracing::error!(error = %e, %addr, "http server failed");
        }
    });
    Ok((addr, task))
}

/// `/metrics`, `/healthz` and `/readyz` (store and bus reachable) of a process without the
/// HTTP tier.
fn probes_router(registry: prometheus::Registry, store: Arc<dyn Store>, bus: Arc<dyn Bus>) -> axum::Router {
    use axum::http::StatusCode;
    use axum::routing::get;
    axum::Router::new()
        .route("/metrics", get(move || async move { idv_ingest::metrics::render(&registry) }))
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/readyz",
            get(move || async move {
                match idv_ingest::router::readiness(store.as_ref(), bus.as_ref()).await {
                    Ok(()) => (StatusCode::OK, "ready".to_string()),
                    Err(why) => (StatusCode::SERVICE_UNAVAILABLE, why),
                }
            }),
        )
}

/// Publish worker-group lag per job topic as a metric, where the bus can tell.
async fn report_lag(st: AppState, mut stop: watch::Receiver<bool>) {
    loop {
        for topic in Topic::JOBS {
            if let Some(lag) = st.bus.lag(topic.name(), &idv_jobs::runtime::worker_group(topic)).await {
                st.metrics.bus_lag.with_label_values(&[topic.name()]).set(lag as i64);
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
            _ = stop.changed() => return,
        }
    }
}

impl Running {
    /// Stop accepting requests, let in-flight requests finish (their jobs keep running
    /// in the workers), then stop the workers between jobs and fail whatever still waits.
    pub async fn shutdown(self, drain: Duration) {
        let Running { state, stop, stop_http, http, tasks, .. } = self;
        let _ = stop_http.send(true);
        if let Some(http) = http {
            let _ = tokio::time::timeout(drain, http).await;
        }
        if let Some(st) = state {
            st.pending.fail_all();
        }
        let _ = stop.send(true);
        for t in tasks {
            let _ = tokio::time::timeout(drain, t).await;
        }
    }
}
