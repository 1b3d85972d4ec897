//! Routes. Every operation answers on its spec path, and the `/v1` ones also under
//! `/api/v1` (the spec's examples use both). Handlers are thin: read the body, hand it to
//! the operation's path, turn the envelope into a response.

use crate::submit::{authorize, stored_envelope, submit, RequestHead};
use crate::AppState;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use idv_schemas::api::*;
use idv_schemas::ops::AuthScheme;
use idv_schemas::validate::{parse_json, Validate};
use idv_schemas::{Envelope, ErrorKind, Group, Operation};
use std::time::Instant;

pub fn build(state: AppState) -> Router {
    let mut router = Router::new();
    for op in Operation::ALL.iter().copied() {
        let handler = move |State(st): State<AppState>, method: Method, uri: axum::http::Uri, headers: HeaderMap, body: Body| async move {
            handle(st, op, method, uri, headers, body).await
        };
        let route = post(handler).fallback(move || async move { respond(Envelope::error(op.group(), &ErrorKind::MethodNotAllowed)) });
        router = router.route(op.path(), route.clone());
        if op.path().starts_with("/v1/") {
            router = router.route(&format!("/api{}", op.path()), route);
        }
    }
    // Uploaded images as resources (the published SDK's download and update).
    for prefix in ["", "/api"] {
        router = router.route(&format!("{prefix}/v1/images/{{id}}"), get(image_resource).patch(image_resource));
        // SDK operations idv does not offer: a documented code, never a bare 404.
        for path in idv_schemas::ops::UNSUPPORTED_SDK_PATHS {
            let operation = path.rsplit('/').next().unwrap_or_default();
            let answer = move || async move { respond(Envelope::error(Group::CompareCard, &ErrorKind::NotSupported { operation: operation.to_string() })) };
            router = router.route(&format!("{prefix}{path}"), axum::routing::any(answer));
        }
    }
    router
        .route("/demo", get(crate::demo::page))
        .route("/demo/", get(crate::demo::page))
        .route("/demo/{*path}", get(crate::demo::page))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(|State(st): State<AppState>| async move { st.metrics.render() }))
        .route("/openapi.json", get(|| async { axum::Json(crate::openapi::document()) }))
        .fallback(|| async { respond(Envelope::error(Group::Face, &ErrorKind::RouteNotFound)) })
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::demo::loopback_only_key))
        .with_state(state)
}

async fn readyz(State(st): State<AppState>) -> Response {
    match readiness(st.store.as_ref(), st.bus.as_ref()).await {
        Ok(()) => (StatusCode::OK, "ready").into_response(),
        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, why).into_response(),
    }
}

/// Ready when both the store and the bus answer now: a process that can reach only one of
/// them accepts requests it cannot finish (or takes jobs it cannot store). The store must
/// take a write, within [`READY_STORE_WAIT`]: a store that only reads (a stalled writer
/// elsewhere holding its lock) fails every request that records something.
pub async fn readiness(store: &dyn idv_store::Store, bus: &dyn idv_bus::Bus) -> Result<(), String> {
    match tokio::time::timeout(READY_STORE_WAIT, store.check_writable()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("store: {e}")),
        Err(_) => return Err(format!("store: no write possible within {READY_STORE_WAIT:?}")),
    }
    bus.check().await.map_err(|e| format!("bus: {e}"))
}

/// How long `/readyz` waits for the store's write probe.
pub const READY_STORE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

pub fn respond(env: Envelope) -> Response {
    let status = StatusCode::from_u16(env.http_status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut resp = (status, axum::Json(env.body)).into_response();
    if let Some(secs) = env.retry_after_secs {
        if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
            resp.headers_mut().insert("retry-after", v);
        }
    }
    resp
}

/// Who a request comes from, established from its headers alone.
enum Authenticated {
    Key(crate::auth::Caller),
    Device(crate::device_auth::DeviceHead),
}

/// The largest body an operation reads (choice: docs/API.md). Behavioral operations carry
/// small JSON; uploads carry one base64 file; face operations up to 50 images each.
fn body_limit(st: &AppState, op: Operation) -> usize {
    match op.group() {
        Group::Behavior => 2 * idv_schemas::validate::limits::BATCH_DATA_BYTES,
        _ if op == Operation::UploadImage => st.config.max_image_bytes / 3 * 4 + 64 * 1024,
        _ if op == Operation::UploadFile => st.config.max_file_bytes / 3 * 4 + 64 * 1024,
        // Multipart carries the bytes as they are, plus part headers and text parts.
        _ if op == Operation::Images => st.config.max_image_bytes + crate::uploads::MAX_PARTS * crate::uploads::MAX_TEXT_PART.min(4096) + 64 * 1024,
        _ if op == Operation::Files => st.config.max_file_bytes + crate::uploads::MAX_PARTS * crate::uploads::MAX_TEXT_PART.min(4096) + 64 * 1024,
        _ => st.config.max_body_bytes,
    }
}

async fn handle(st: AppState, op: Operation, method: Method, uri: axum::http::Uri, headers: HeaderMap, body: Body) -> Response {
    let started = Instant::now();
    let group = op.group();
    let uri = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let head = RequestHead { method: method.as_str(), uri, headers: &headers };
    // Authenticate on the headers first: nobody unauthenticated gets a body buffered.
    let authenticated = match op.auth() {
        AuthScheme::AccessKey => authorize(&st, &head).await.map(Authenticated::Key),
        AuthScheme::CustomerUserDevice => crate::device_auth::authenticate(&st, &head).await.map(Authenticated::Device),
        AuthScheme::Jwt => crate::submit::authorize_jwt(&st, &head).await.map(Authenticated::Key),
    };
    let mut close_connection = false;
    let env = match authenticated {
        Err(kind) => {
            // Refused on its headers: the body was never read. Left on a keep-alive
            // connection it would be parsed as the next request, so a small body is
            // drained and a large one ends the connection instead.
            close_connection = drain_unread(body).await.is_err();
            Envelope::error(group, &kind)
        }
        Ok(who) => {
            let limit = body_limit(&st, op);
            // Room in the instance's body budget first: its declared length, or its cap.
            let declared = headers
                .get(axum::http::header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(limit)
                .min(limit);
            let Some(_reserved) = st.body_budget.try_reserve(declared) else {
                close_connection = true;
                let env = Envelope::error(group, &ErrorKind::Overloaded { retry_after_secs: 1 });
                return finish_response(&st, op, started, env, close_connection);
            };
            match axum::body::to_bytes(body, limit).await {
                Ok(bytes) => dispatch(&st, op, who, &headers, &bytes).await.unwrap_or_else(|k| Envelope::error(group, &k)),
                Err(_) => {
                    // The rest of the oversized body is still on the connection.
                    close_connection = true;
                    Envelope::error(
                        group,
                        &ErrorKind::InvalidParameter { field: None, message: format!("request body is larger than {limit} bytes") },
                    )
                }
            }
        }
    };
    finish_response(&st, op, started, env, close_connection)
}

/// Metrics, the 5xx log line, and the response (closing the connection when asked).
fn finish_response(st: &AppState, op: Operation, started: Instant, env: Envelope, close_connection: bool) -> Response {
    let status = env.http_status.to_string();
    st.metrics.request_duration.with_label_values(&[op.name(), &status]).observe(started.elapsed().as_secs_f64());
    if let Some(code) = env.first_error_code() {
        st.metrics.errors.with_label_values(&[op.name(), code]).inc();
    }
    if env.http_status >= 500 {
        tracing::warn!(operation = op.name(), status = env.http_status, code = env.first_error_code(), "request failed");
    }
    let mut resp = respond(env);
    if close_connection {
        resp.headers_mut().insert(axum::http::header::CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

/// The most of a refused request's body that is read and dropped to keep its connection
/// usable; past it (or past [`DRAIN_TIME`]) the connection is closed instead.
pub const DRAIN_LIMIT: usize = 64 * 1024;
pub const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(2);

async fn drain_unread(body: Body) -> Result<(), ()> {
    match tokio::time::timeout(DRAIN_TIME, axum::body::to_bytes(body, DRAIN_LIMIT)).await {
        Ok(Ok(_)) => Ok(()),
        _ => Err(()),
    }
}

/// The caller of a request whose body is open: an Access Key (or bearer token) holder
/// whose body passed its Content-MD5 and replay checks, or a device whose body was
/// decrypted and verified.
enum Opened {
    Key(crate::auth::Caller),
    Device(crate::device_auth::DeviceCaller),
}

impl Opened {
    fn key(&self) -> Result<&crate::auth::Caller, ErrorKind> {
        match self {
            Opened::Key(caller) => Ok(caller),
            Opened::Device(_) => Err(ErrorKind::Internal { message: "operation reached the wrong authentication path".into() }),
        }
    }

    fn device(self) -> Result<crate::device_auth::DeviceCaller, ErrorKind> {
        match self {
            Opened::Device(caller) => Ok(caller),
            Opened::Key(_) => Err(ErrorKind::Internal { message: "operation reached the wrong authentication path".into() }),
        }
    }
}

async fn dispatch(st: &AppState, op: Operation, who: Authenticated, headers: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind> {
    let opened = match who {
        Authenticated::Device(head) => Opened::Device(crate::device_auth::open_body(head, headers, body)?),
        Authenticated::Key(caller) => {
            crate::auth::check_body_md5(headers, body, false)?;
            // Bearer tokens are reusable by design; Access Key signatures are single-use.
            if op.auth() == AuthScheme::AccessKey {
                crate::submit::refuse_replay(st, &caller, headers, body).await?;
            }
            Opened::Key(caller)
        }
    };
    // The operation table names each operation's request type; its `Route` says what
    // the router does with it.
    idv_schemas::with_request_type!(op, R => <R as Route>::route(st, op, opened, headers, body).await)
}

/// What the router does with the body of one request type of the operation table.
trait Route {
    async fn route(st: &AppState, op: Operation, who: Opened, headers: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind>;
}

/// Every job-backed request: parsed, validated, published, awaited (`submit`).
impl<R> Route for R
where
    R: crate::submit::JobRequest + serde::de::DeserializeOwned + serde::Serialize + Validate + idv_schemas::api::HasMedia + Send,
{
    async fn route(st: &AppState, op: Operation, who: Opened, _: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind> {
        Ok(submit::<R>(st, op, who.key()?, body).await)
    }
}

impl Route for UploadImageRequest {
    async fn route(st: &AppState, _: Operation, who: Opened, _: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind> {
        upload_image(st, who.key()?, body).await
    }
}

impl Route for UploadFileRequest {
    async fn route(st: &AppState, _: Operation, who: Opened, _: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind> {
        upload_file(st, who.key()?, body).await
    }
}

impl Route for GetRequestResultRequest {
    async fn route(st: &AppState, _: Operation, who: Opened, _: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind> {
        get_result(st, who.key()?, body).await
    }
}

impl Route for MultipartUpload {
    async fn route(st: &AppState, op: Operation, who: Opened, headers: &HeaderMap, body: &[u8]) -> Result<Envelope, ErrorKind> {
        let content_type = headers.get("content-type").and_then(|v| v.to_str().ok());
        crate::uploads::upload(st, who.key()?, content_type, body, if op == Operation::Images { "image" } else { "file" }).await
    }
}

impl Route for CreateChallengeRequest {
    async fn route(st: &AppState, _: Operation, who: Opened, _: &HeaderMap, _: &[u8]) -> Result<Envelope, ErrorKind> {
        crate::behavior::create_challenge(st, who.device()?).await
    }
}

impl Route for PushEventBatchRequest {
    async fn route(st: &AppState, _: Operation, who: Opened, headers: &HeaderMap, _: &[u8]) -> Result<Envelope, ErrorKind> {
        crate::behavior::push_event_batch(st, who.device()?, headers).await
    }
}

pub(crate) fn upload_response(meta: &idv_store::BlobMeta, request_id: String) -> Envelope {
    let data = UploadResponse {
        status: "success".into(),
        id: meta.id.clone(),
        request_id,
        size: meta.size,
        sha256: meta.sha256.clone(),
        label: meta.label.clone(),
        created_at: meta.created_at.clone(),
    };
    Envelope::ok(Group::Face, serde_json::to_value(data).unwrap_or_default())
}

async fn upload_image(st: &AppState, caller: &crate::auth::Caller, body: &[u8]) -> Result<Envelope, ErrorKind> {
    let req: UploadImageRequest = parse_json(body)?;
    req.validate()?;
    let data = decode_media("base64", &req.base64, st.config.max_image_bytes)?;
    let metadata = req.metadata.as_ref().map(|m| serde_json::Value::Object(m.clone()).to_string());
    let meta = crate::media::store_blob(st, caller, "image", data, req.label.clone(), None, metadata).await?;
    Ok(upload_response(&meta, uuid::Uuid::new_v4().to_string()))
}

async fn upload_file(st: &AppState, caller: &crate::auth::Caller, body: &[u8]) -> Result<Envelope, ErrorKind> {
    let req: UploadFileRequest = parse_json(body)?;
    req.validate()?;
    let data = decode_media("base64", &req.base64, st.config.max_file_bytes)?;
    let metadata = req.metadata.as_ref().map(|m| serde_json::Value::Object(m.clone()).to_string());
    let meta =
        crate::media::store_blob(st, caller, "file", data, req.filename.clone(), req.content_type.clone(), metadata).await?;
    Ok(upload_response(&meta, uuid::Uuid::new_v4().to_string()))
}

/// Poll a result by request id: the finished envelope exactly as the synchronous call
/// returned (or would have returned) it; `processing` while a worker has it; 404 for an
/// unknown id or another client's.
async fn get_result(st: &AppState, caller: &crate::auth::Caller, body: &[u8]) -> Result<Envelope, ErrorKind> {
    let req: GetRequestResultRequest = parse_json(body)?;
    req.validate()?;
    let rec = st
        .store
        .get_request(&req.request_id)
        .await
        .map_err(|e| ErrorKind::Internal { message: e.to_string() })?;
    // Answers of the end-to-end encrypted operations are the device's, not the backend's.
    let device_only = [Operation::CreateChallenge.name(), Operation::PushEventBatch.name()];
    match rec {
        Some(r) if r.client_id == caller.client_id && !device_only.contains(&r.operation.as_str()) => match stored_envelope(st, &r.request_id).await? {
            Some(env) => Ok(env),
            None => Ok(Envelope::ok(
                Group::Face,
                serde_json::json!({"status": "processing", "request_id": r.request_id, "operation": r.operation}),
            )),
        },
        _ => Err(ErrorKind::RequestNotFound),
    }
}

/// `GET` (download the bytes) and `PATCH` (label, metadata) of an uploaded image, Access
/// Key signed like every operation (the signature covers the method and this path).
async fn image_resource(
    State(st): State<AppState>,
    method: Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
    body: Body,
) -> Response {
    let group = Group::Face;
    let uri_text = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let head = RequestHead { method: method.as_str(), uri: uri_text, headers: &headers };
    let caller = match authorize(&st, &head).await {
        Ok(c) => c,
        Err(kind) => {
            let close = drain_unread(body).await.is_err();
            let mut resp = respond(Envelope::error(group, &kind));
            if close {
                resp.headers_mut().insert(axum::http::header::CONNECTION, HeaderValue::from_static("close"));
            }
            return resp;
        }
    };
    // A PATCH carries a small JSON object; a GET nothing.
    let body = match axum::body::to_bytes(body, crate::uploads::MAX_TEXT_PART).await {
        Ok(b) => b,
        Err(_) => return respond(Envelope::error(group, &ErrorKind::InvalidParameter { field: None, message: "request body is too large".into() })),
    };
    let answer = async {
        crate::auth::check_body_md5(&headers, &body, false)?;
        crate::submit::refuse_replay(&st, &caller, &headers, &body).await?;
        if method == Method::PATCH {
            return crate::uploads::update(&st, &caller, &id, &body).await.map(respond);
        }
        let meta = crate::uploads::own_image(&st, &caller, &id).await?;
        let bytes = st.blobs.get(&id).await.map_err(|e| ErrorKind::Internal { message: e.to_string() })?.ok_or(ErrorKind::ImageNotFound { field: Some("id".into()) })?;
        let content_type = meta.content_type.unwrap_or_else(|| "application/octet-stream".into());
        let mut resp = (StatusCode::OK, bytes).into_response();
        if let Ok(v) = HeaderValue::from_str(&content_type) {
            resp.headers_mut().insert(axum::http::header::CONTENT_TYPE, v);
        }
        Ok::<Response, ErrorKind>(resp)
    };
    answer.await.unwrap_or_else(|kind| respond(Envelope::error(group, &kind)))
}
