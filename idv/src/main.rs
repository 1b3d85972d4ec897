//! `idv`: the one binary. See `idv --help`.

use clap::{Parser, Subcommand};
use idv::{Roles, Settings};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "idv", version, about = "Identity verification service")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Everything in one process over the embedded backends (the default deployment).
    Serve(#[command(flatten)] Settings),
    /// The HTTP tier only (distributed deployment).
    Ingest(#[command(flatten)] Settings),
    /// The vision/card/SIM worker pool only (distributed deployment).
    Worker(#[command(flatten)] Settings),
    /// The behavioral scorer only (distributed deployment).
    Scorer(#[command(flatten)] Settings),
    /// Manage access keys.
    Keys {
        #[command(subcommand)]
        action: KeysAction,
    },
    /// Manage the server RSA key pairs of the behavioral SDK protocol.
    Keypairs {
        #[command(subcommand)]
        action: KeypairsAction,
    },
    /// Re-run the behavioral engine over the recorded behavior and results topics (Kafka)
    /// with this run's policy settings, without joining consumer groups or writing any
    /// state; writes one JSON line per score request (recorded answer, new answer) and
    /// prints a summary. Sealed transaction fields are opened only with an explicit
    /// --master-key / IDV_MASTER_KEY.
    Replay {
        /// Only jobs created at or after this RFC 3339 time (default: everything retained).
        #[arg(long)]
        since: Option<String>,
        /// Only jobs created before this RFC 3339 time.
        #[arg(long)]
        until: Option<String>,
        /// The report (JSON lines).
        #[arg(long)]
        out: std::path::PathBuf,
        #[command(flatten)]
        settings: Settings,
    },
    /// Print the headers that sign one Access Key request, one `Name: value` per line (for
    /// curl: `-H @headers.txt`). The body must be sent byte for byte as signed.
    Sign {
        /// The request path as it will be sent, query string included (`/v1/face_auth_user`).
        #[arg(long)]
        path: String,
        /// The HTTP method.
        #[arg(long, default_value = "POST")]
        method: String,
        /// A file with the exact body bytes (`-`: standard input); without it, an empty body.
        #[arg(long)]
        body: Option<std::path::PathBuf>,
        /// The access key id.
        #[arg(long, env = "IDV_ACCESS_KEY_ID")]
        access_key_id: String,
        /// The secret key (from the environment, it stays out of the shell's history).
        #[arg(long, env = "IDV_SECRET_KEY", hide_env_values = true)]
        secret_key: String,
        /// The timestamp to sign (default: now, RFC 3339 UTC); the server accepts it within
        /// its clock-skew window.
        #[arg(long)]
        timestamp: Option<String>,
    },
    /// Issue bearer tokens for the eKYC full check (`/portal/ekyc/full_checks`).
    Tokens {
        #[command(subcommand)]
        action: TokensAction,
    },
    /// Deactivate or reactivate a face-authentication user (face_auth and
    /// face_auth_register then answer face_auth_user_deactivated).
    Users {
        #[command(subcommand)]
        action: UsersAction,
    },
    /// Deactivate, reactivate or delete a behavioral device of a user (its requests then
    /// answer customer_user_device_deactivated, or customer_user_device_not_found).
    Devices {
        #[command(subcommand)]
        action: DevicesAction,
    },
}

/// A command about one face-authentication user of an existing client (by name or id).
#[derive(clap::Args)]
struct ForUser {
    #[arg(long)]
    client: String,
    /// The client's cus_user_id.
    #[arg(long)]
    user: String,
    #[command(flatten)]
    settings: Settings,
}

#[derive(Subcommand)]
enum UsersAction {
    /// Deactivate the user; prints JSON with its state.
    Deactivate(ForUser),
    /// Reactivate the user; prints JSON with its state.
    Reactivate(ForUser),
}

/// A command about the devices of one user of an existing client (by name or id).
#[derive(clap::Args)]
struct ForDevice {
    #[arg(long)]
    client: String,
    /// The client's cus_user_id.
    #[arg(long)]
    user: String,
    /// The device_id given to register_device (every registration of it), or one
    /// customer_user_device_id.
    #[arg(long)]
    device: String,
    #[command(flatten)]
    settings: Settings,
}

#[derive(Subcommand)]
enum DevicesAction {
    /// Deactivate the device; prints one JSON line per device record.
    Deactivate(ForDevice),
    /// Reactivate the device; prints one JSON line per device record.
    Reactivate(ForDevice),
    /// Delete the device records; prints one JSON line per device record.
    Delete(ForDevice),
}

#[derive(Subcommand)]
enum TokensAction {
    /// Issue a token for a client (created if new); prints JSON with access_token. Signed
    /// with a key derived from the master key: every instance sharing it accepts the token.
    Issue {
        #[command(flatten)]
        client: ForClient,
        /// Validity in seconds.
        #[arg(long, default_value_t = 3600)]
        ttl_secs: u64,
    },
}

/// A command about one client (created if new), with the usual settings.
#[derive(clap::Args)]
struct ForClient {
    #[arg(long)]
    client: String,
    #[command(flatten)]
    settings: Settings,
}

#[derive(Subcommand)]
enum KeypairsAction {
    /// Create a key pair for a client (created if new); prints JSON with key_pair_id and
    /// public_key (base64 PKIX DER).
    Create(ForClient),
    /// List key pairs as JSON lines (public parts only).
    List(#[command(flatten)] Settings),
    /// Create a new key pair for a client and stop offering its older ones to new device
    /// registrations (registered devices keep working with theirs).
    Rotate(ForClient),
}

#[derive(Subcommand)]
enum KeysAction {
    /// Create an access key (and the client, if new); prints JSON with the secret, once.
    Create(ForClient),
    /// List access keys as JSON lines (never secrets).
    List(#[command(flatten)] Settings),
    /// Revoke an access key.
    Revoke {
        access_key_id: String,
        #[command(flatten)]
        settings: Settings,
    },
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("IDV_LOG").unwrap_or_else(|_| "info".into());
    // Logs go to stderr: stdout stays clean for commands that print JSON.
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).json().init();
}

async fn run_roles(settings: Settings, roles: Roles) -> Result<(), String> {
    let settings = settings.with_file()?;
    let running = idv::start(&settings, roles).await?;
    if let Some(addr) = running.addr {
        eprintln!("idv listening on http://{addr}");
    }
    shutdown_signal().await;
    tracing::info!("shutting down: draining in-flight work");
    running.shutdown(Duration::from_secs(30)).await;
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

async fn replay(settings: Settings, since: Option<String>, until: Option<String>, out: std::path::PathBuf) -> Result<(), String> {
    let settings = settings.with_file()?;
    let summary = idv::replay::run(&settings, since.as_deref(), until.as_deref(), &out).await?;
    println!("{}", serde_json::to_string(&summary).map_err(|e| e.to_string())?);
    Ok(())
}

async fn keys(action: KeysAction) -> Result<(), String> {
    match action {
        KeysAction::Create(ForClient { client, settings }) => {
            let settings = settings.with_file()?;
            let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
            let sealer = settings.sealer()?;
            let resolver = idv_ingest::auth::KeyResolver::new(store, sealer);
            let issued = resolver.issue(&client, &idv_ingest::now_rfc3339()).await.map_err(|e| e.to_string())?;
            println!("{}", serde_json::to_string(&issued).map_err(|e| e.to_string())?);
        }
        KeysAction::List(settings) => {
            let settings = settings.with_file()?;
            let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
            for k in store.list_access_keys().await.map_err(|e| e.to_string())? {
                let line = serde_json::json!({
                    "access_key_id": k.access_key_id, "client_id": k.client_id,
                    "created_at": k.created_at, "revoked": k.revoked,
                });
                println!("{line}");
            }
        }
        KeysAction::Revoke { access_key_id, settings } => {
            let settings = settings.with_file()?;
            let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
            if !store.revoke_access_key(&access_key_id).await.map_err(|e| e.to_string())? {
                return Err(format!("no access key {access_key_id}"));
            }
            println!("{}", serde_json::json!({"access_key_id": access_key_id, "revoked": true}));
        }
    }
    Ok(())
}

fn sign_request(path: &str, method: &str, body: Option<&std::path::Path>, access_key_id: &str, secret: &str, timestamp: Option<String>) -> Result<(), String> {
    use std::io::Read as _;
    let bytes = match body {
        None => Vec::new(),
        Some(p) if p.as_os_str() == "-" => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).map_err(|e| format!("reading the body from standard input: {e}"))?;
            buf
        }
        Some(p) => std::fs::read(p).map_err(|e| format!("reading the body from {}: {e}", p.display()))?,
    };
    let timestamp = timestamp.unwrap_or_else(idv_ingest::now_rfc3339);
    let method = method.to_ascii_uppercase();
    for (name, value) in idv_crypto::access_key::request_headers(access_key_id, secret.as_bytes(), &method, path, &timestamp, &bytes) {
        println!("{name}: {value}");
    }
    println!("Content-Type: application/json");
    Ok(())
}

async fn issue_token(client: &str, settings: Settings, ttl_secs: u64) -> Result<(), String> {
    let settings = settings.with_file()?;
    let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
    let key = idv_ingest::auth::JwtKey::from_master_key(&settings.master_key()?);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| e.to_string())?.as_secs();
    let now = i64::try_from(now).map_err(|e| e.to_string())?;
    let issued = idv_ingest::auth::issue_token(store.as_ref(), &key, client, Duration::from_secs(ttl_secs), now)
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", serde_json::to_string(&issued).map_err(|e| e.to_string())?);
    Ok(())
}

async fn users(action: UsersAction) -> Result<(), String> {
    let (ForUser { client, user, settings }, deactivated) = match action {
        UsersAction::Deactivate(u) => (u, true),
        UsersAction::Reactivate(u) => (u, false),
    };
    let settings = settings.with_file()?;
    let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
    let out = idv::admin::set_user_deactivated(store.as_ref(), &client, &user, deactivated, &idv_ingest::now_rfc3339()).await?;
    println!("{out}");
    Ok(())
}

async fn devices(action: DevicesAction) -> Result<(), String> {
    use idv::admin::DeviceAction;
    let (ForDevice { client, user, device, settings }, what) = match action {
        DevicesAction::Deactivate(d) => (d, DeviceAction::Deactivate),
        DevicesAction::Reactivate(d) => (d, DeviceAction::Reactivate),
        DevicesAction::Delete(d) => (d, DeviceAction::Delete),
    };
    let settings = settings.with_file()?;
    let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
    for line in idv::admin::device_action(store.as_ref(), &client, &user, &device, what).await? {
        println!("{line}");
    }
    Ok(())
}

fn key_pair_json(k: &idv_store::KeyPairRecord) -> serde_json::Value {
    use base64::Engine as _;
    serde_json::json!({
        "key_pair_id": k.key_pair_id,
        "public_key": base64::engine::general_purpose::STANDARD.encode(&k.public_der),
    })
}

async fn keypairs(action: KeypairsAction) -> Result<(), String> {
    let (settings, client, rotate) = match action {
        KeypairsAction::List(settings) => {
            let settings = settings.with_file()?;
            let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
            for k in store.list_key_pairs(None).await.map_err(|e| e.to_string())? {
                let mut line = key_pair_json(&k);
                line["client_id"] = k.client_id.clone().into();
                line["active"] = k.active.into();
                line["created_at"] = k.created_at.clone().into();
                println!("{line}");
            }
            return Ok(());
        }
        KeypairsAction::Create(ForClient { client, settings }) => (settings, client, false),
        KeypairsAction::Rotate(ForClient { client, settings }) => (settings, client, true),
    };
    let settings = settings.with_file()?;
    let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
    let sealer = settings.sealer()?;
    let now = idv_ingest::now_rfc3339();
    let client = idv_store::ensure_client(store.as_ref(), &client, &now).await.map_err(|e| e.to_string())?;
    let older = store.list_key_pairs(Some(&client.client_id)).await.map_err(|e| e.to_string())?;
    let created = idv_store::vault::issue_key_pair(store.as_ref(), &sealer, &client.client_id, &now).await.map_err(|e| e.to_string())?;
    if rotate {
        for k in older.iter().filter(|k| k.active) {
            store.set_key_pair_active(&k.key_pair_id, false).await.map_err(|e| e.to_string())?;
        }
    }
    println!("{}", key_pair_json(&created));
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(s) => {
            init_tracing();
            run_roles(s, Roles::ALL).await
        }
        Command::Ingest(s) => {
            init_tracing();
            run_roles(s, Roles { ingest: true, worker: false, scorer: false }).await
        }
        Command::Worker(s) => {
            init_tracing();
            run_roles(s, Roles { ingest: false, worker: true, scorer: false }).await
        }
        Command::Scorer(s) => {
            init_tracing();
            run_roles(s, Roles { ingest: false, worker: false, scorer: true }).await
        }
        Command::Keys { action } => keys(action).await,
        Command::Replay { since, until, out, settings } => replay(settings, since, until, out).await,
        Command::Keypairs { action } => keypairs(action).await,
        Command::Users { action } => users(action).await,
        Command::Devices { action } => devices(action).await,
        Command::Sign { path, method, body, access_key_id, secret_key, timestamp } => {
            sign_request(&path, &method, body.as_deref(), &access_key_id, &secret_key, timestamp)
        }
        Command::Tokens { action: TokensAction::Issue { client: ForClient { client, settings }, ttl_secs } } => {
            issue_token(&client, settings, ttl_secs).await
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("idv: {e}");
            ExitCode::FAILURE
        }
    }
}
