//! The demo page (`idv serve --demo`, served at `/demo/`): static files embedded in the
//! binary, and a demo Access Key that the page signs with in the browser.
//!
//! The key is a real key of the reserved client [`DEMO_CLIENT`], so every operation runs
//! exactly as for any client. What keeps it from being a key anyone can use: it is handed
//! out (`/demo/config.json`) and accepted only from a loopback peer that came straight to
//! this process ([`from_loopback`]: no proxy headers), and the process revokes the demo
//! client's keys at every start, so a key seen in a page dies with the process that issued
//! it. Behind a reverse proxy on the same host every visitor is "loopback": the demo is
//! for a developer's machine and stays off unless asked for (docs/API.md "Demo page").

use crate::router::respond;
use crate::AppState;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use idv_schemas::{Envelope, ErrorKind, Group, Operation};
use std::net::SocketAddr;

/// The client whose Access Keys only loopback callers may use.
pub const DEMO_CLIENT: &str = "idv-demo";

/// What `/demo/config.json` hands to a loopback visitor.
#[derive(Clone, serde::Serialize)]
pub struct DemoConfig {
    pub client_id: String,
    pub access_key_id: String,
    pub secret_key: String,
    pub key_pair_id: String,
    /// Base64 of the server key pair's public key (DER SubjectPublicKeyInfo).
    pub server_public_key: String,
}

impl std::fmt::Debug for DemoConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoConfig").field("client_id", &self.client_id).field("access_key_id", &self.access_key_id).finish_non_exhaustive()
    }
}

/// The page's files: (path under `/demo/`, content type, bytes). `sdk/` holds the web
/// SDK's compiled modules (`sdk/web/dist/src`), kept equal to them by scripts/web_sdk.sh.
const FILES: &[(&str, &str, &str)] = &[
    ("", "text/html; charset=utf-8", include_str!("../demo/index.html")),
    ("app.js", "text/javascript; charset=utf-8", include_str!("../demo/app.js")),
    ("style.css", "text/css; charset=utf-8", include_str!("../demo/style.css")),
    ("sdk/index.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/index.js")),
    ("sdk/backend.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/backend.js")),
    ("sdk/capture.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/capture.js")),
    ("sdk/chain.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/chain.js")),
    ("sdk/encoding.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/encoding.js")),
    ("sdk/md5.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/md5.js")),
    ("sdk/protocol.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/protocol.js")),
    ("sdk/selfie.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/selfie.js")),
    ("sdk/session.js", "text/javascript; charset=utf-8", include_str!("../demo/sdk/session.js")),
];

/// The SDK module names the page embeds (scripts/web_sdk.sh compares them with the build).
pub fn sdk_files() -> impl Iterator<Item = &'static str> {
    FILES.iter().filter_map(|(path, _, _)| path.strip_prefix("sdk/"))
}

/// The page's own rules: scripts, styles and requests from this origin only; camera
/// frames and chosen files shown through blob: and data: URLs.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'";

/// Did this request come straight from this machine? Needs the peer address the server
/// records ([`ConnectInfo`]); without it, or with any proxy header, the answer is no.
pub fn from_loopback(req: &Request) -> bool {
    let proxied = ["forwarded", "x-forwarded-for", "x-real-ip"].iter().any(|h| req.headers().contains_key(*h));
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| addr.ip());
    !proxied && peer.is_some_and(|ip| ip.is_loopback() || ip.to_canonical().is_loopback())
}

/// Serve one of the page's files (GET `/demo/...`), or the config to a loopback visitor.
pub async fn page(State(st): State<AppState>, req: Request) -> Response {
    let path = req.uri().path().strip_prefix("/demo").unwrap_or_default().trim_start_matches('/').to_string();
    let Some(config) = st.demo.as_deref() else {
        return (StatusCode::NOT_FOUND, "the demo page is off: start `idv serve --demo` (docs/API.md \"Demo page\")\n").into_response();
    };
    if req.uri().path() == "/demo" {
        // Relative module imports (`./sdk/index.js`) resolve against `/demo/`.
        return (StatusCode::PERMANENT_REDIRECT, [(header::LOCATION, "/demo/")]).into_response();
    }
    if path == "config.json" {
        if !from_loopback(&req) {
            return respond(Envelope::error(Group::Face, &ErrorKind::AccessDenied));
        }
        return with_page_headers(axum::Json(config).into_response(), None);
    }
    match FILES.iter().find(|(p, _, _)| *p == path) {
        Some((name, content_type, body)) => {
            let body = match page_dir_override() {
                // Only the table's names are read: a request cannot name another file.
                Some(dir) => match std::fs::read(dir.join(if name.is_empty() { "index.html" } else { name })) {
                    Ok(bytes) => axum::body::Body::from(bytes),
                    Err(e) => return (StatusCode::NOT_FOUND, format!("IDV_DEMO_DIR: {e}\n")).into_response(),
                },
                None => axum::body::Body::from(*body),
            };
            with_page_headers((StatusCode::OK, body).into_response(), Some(content_type))
        }
        None => (StatusCode::NOT_FOUND, "no such file in the demo page\n").into_response(),
    }
}

/// `IDV_DEMO_DIR`: serve the page's files from this folder (`ingest/demo`) instead of the
/// copies compiled in, to work on the page without rebuilding the binary.
fn page_dir_override() -> Option<std::path::PathBuf> {
    std::env::var_os("IDV_DEMO_DIR").filter(|d| !d.is_empty()).map(std::path::PathBuf::from)
}

fn with_page_headers(mut resp: Response, content_type: Option<&'static str>) -> Response {
    let h = resp.headers_mut();
    if let Some(ct) = content_type {
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    resp
}

/// Refuse the demo key from anywhere but loopback, before the request reaches its
/// operation. Other keys pass untouched; so does everything when the demo is off (its
/// keys were revoked at start).
pub async fn loopback_only_key(State(st): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(config) = st.demo.as_deref() {
        let key_id = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(idv_crypto::access_key::parse_authorization)
            .map(|(id, _)| id);
        if key_id == Some(config.access_key_id.as_str()) && !from_loopback(&req) {
            let path = req.uri().path();
            let group = Operation::ALL
                .iter()
                .find(|op| path == op.path() || path.strip_prefix("/api") == Some(op.path()))
                .map_or(Group::Face, |op| op.group());
            tracing::warn!(path, "demo access key refused from a non-loopback peer");
            return respond(Envelope::error(group, &ErrorKind::AccessDenied));
        }
    }
    next.run(req).await
}

/// At start: revoke every key of the demo client (a key some page saw must not outlive
/// the process that issued it), then, when the demo is on, issue a fresh key and reuse or
/// create the client's server key pair.
pub async fn prepare(
    store: &dyn idv_store::Store,
    keys: &crate::auth::KeyResolver,
    sealer: &idv_crypto::sealed::Sealer,
    demo_on: bool,
    now: &str,
) -> Result<Option<DemoConfig>, String> {
    let existing = store.find_client_by_name(DEMO_CLIENT).await.map_err(|e| e.to_string())?;
    if let Some(client) = &existing {
        for key in store.list_access_keys().await.map_err(|e| e.to_string())? {
            if key.client_id == client.client_id && !key.revoked {
                store.revoke_access_key(&key.access_key_id).await.map_err(|e| e.to_string())?;
            }
        }
    }
    if !demo_on {
        return Ok(None);
    }
    let issued = keys.issue(DEMO_CLIENT, now).await.map_err(|e| e.to_string())?;
    let pairs = store.list_key_pairs(Some(&issued.client_id)).await.map_err(|e| e.to_string())?;
    let pair = match pairs.into_iter().find(|k| k.active) {
        Some(pair) => pair,
        None => idv_store::vault::issue_key_pair(store, sealer, &issued.client_id, now).await.map_err(|e| e.to_string())?,
    };
    use base64::Engine as _;
    Ok(Some(DemoConfig {
        client_id: issued.client_id,
        access_key_id: issued.access_key_id,
        secret_key: issued.secret_key,
        key_pair_id: pair.key_pair_id,
        server_public_key: base64::engine::general_purpose::STANDARD.encode(&pair.public_der),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    fn request(peer: Option<IpAddr>, headers: &[(&str, &str)]) -> Request {
        let mut builder = axum::http::Request::builder().uri("/demo/config.json");
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        let mut req = builder.body(Body::empty()).unwrap_or_default();
        if let Some(ip) = peer {
            req.extensions_mut().insert(ConnectInfo(SocketAddr::new(ip, 40000)));
        }
        req
    }

    #[test]
    fn only_a_direct_loopback_peer_counts_as_loopback() {
        assert!(from_loopback(&request(Some(IpAddr::V4(Ipv4Addr::LOCALHOST)), &[])));
        assert!(from_loopback(&request(Some(IpAddr::V4(Ipv4Addr::new(127, 3, 2, 1))), &[])));
        assert!(from_loopback(&request(Some(IpAddr::V6(Ipv6Addr::LOCALHOST)), &[])));
        assert!(from_loopback(&request(Some(IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped())), &[])));
        // Must-fails: another host, no recorded peer, a proxy in between.
        assert!(!from_loopback(&request(Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7))), &[])));
        assert!(!from_loopback(&request(Some(IpAddr::V6(Ipv4Addr::new(192, 168, 1, 2).to_ipv6_mapped())), &[])));
        assert!(!from_loopback(&request(None, &[])));
        for proxy in ["forwarded", "x-forwarded-for", "x-real-ip"] {
            assert!(!from_loopback(&request(Some(IpAddr::V4(Ipv4Addr::LOCALHOST)), &[(proxy, "203.0.113.9")])), "{proxy}");
        }
    }

    #[test]
    fn the_page_embeds_every_sdk_module_it_imports() {
        let names: Vec<&str> = sdk_files().collect();
        let index = FILES.iter().find(|(p, _, _)| *p == "sdk/index.js").map(|f| f.2).unwrap_or_default();
        for line in index.lines().filter(|l| l.starts_with("export * from")) {
            let module = line.split('"').nth(1).unwrap_or_default().trim_start_matches("./");
            assert!(names.contains(&module), "sdk/index.js exports {module}, which the page does not embed");
        }
    }
}
