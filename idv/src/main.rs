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
}

#[derive(Subcommand)]
enum KeysAction {
    /// Create an access key (and the client, if new); prints JSON with the secret, once.
    Create {
        #[arg(long)]
        client: String,
        #[command(flatten)]
        settings: Settings,
    },
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

async fn keys(action: KeysAction) -> Result<(), String> {
    match action {
        KeysAction::Create { client, settings } => {
            let settings = settings.with_file()?;
            let store = idv_store::open(&settings.store_url()).await.map_err(|e| e.to_string())?;
            let sealer = idv_crypto::sealed::Sealer::new(1, &settings.master_key()?).map_err(|e| e.to_string())?;
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("idv: {e}");
            ExitCode::FAILURE
        }
    }
}
