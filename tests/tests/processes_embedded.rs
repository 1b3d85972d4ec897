//! The embedded deployment (`idv serve`) killed with SIGKILL while uploads and face
//! registrations are in flight, then started again on the same data directory: every
//! write it acknowledged is there and usable, and no image id exists without its bytes
//! (blob first, then metadata). Counts are printed.

use idv_tests::cluster::{Cluster, Role};
use idv_tests::B64;
use base64::Engine as _;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Default)]
struct Acknowledged {
    /// Upload id → the sha256 the server answered.
    uploads: Vec<(String, String)>,
    registrations: Vec<String>,
    /// Requests that got no answer: the process died under them.
    broken: usize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_of_idv_serve_mid_write_keeps_every_acknowledged_write() {
    let Some(photo) = idv_tests::face::photo("testimg-fr-obama") else { return };
    let photo_b64 = Arc::new(B64.encode(&photo));
    let mut cluster = Cluster::new("memory://", &[("IDV_REQUEST_TIMEOUT_MS", "20000")]);
    let serve = cluster.start(Role::Serve).await;
    let creds = cluster.create_key("acme");
    let client = cluster.client(serve);

    const REQUESTS: usize = 80;
    let next = Arc::new(AtomicUsize::new(0));
    let acked = Arc::new(AtomicUsize::new(0));
    let log: Arc<Mutex<Acknowledged>> = Arc::default();
    let mut senders = Vec::new();
    for _ in 0..8 {
        let (next, acked, log, client, creds, photo_b64) =
            (next.clone(), acked.clone(), log.clone(), client.clone(), creds.clone(), photo_b64.clone());
        senders.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= REQUESTS {
                    return;
                }
                // Uploads and registrations alternate: both write blobs, the second also
                // a template and a user through a job.
                let (path, body) = if i % 2 == 0 {
                    ("/v1/upload_image", json!({"base64": photo_b64.as_str(), "label": format!("u{i}")}))
                } else {
                    ("/v1/face_auth_register", json!({"cus_user_id": format!("r{i}"), "faces": [{"base64": photo_b64.as_str()}]}))
                };
                let reply = client.try_call(&creds, path, &body).await;
                let mut log = log.lock().expect("log");
                match reply {
                    Ok(r) if r.status == 200 && i % 2 == 0 => {
                        let id = r.body["data"]["id"].as_str().expect("upload id").to_string();
                        let sha = r.body["data"]["sha256"].as_str().expect("upload sha256").to_string();
                        log.uploads.push((id, sha));
                        acked.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(r) if r.status == 200 => {
                        assert_eq!(r.body["data"]["status"], "success", "{}", r.body);
                        log.registrations.push(format!("r{i}"));
                        acked.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(r) => panic!("{path}: {} {}", r.status, r.body),
                    Err(_) => log.broken += 1,
                }
            }
        }));
    }
    while acked.load(Ordering::SeqCst) < 12 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cluster.process(serve).kill_9();
    for s in senders {
        s.await.expect("sender");
    }
    let serve = cluster.restart(serve).await;
    let client = cluster.client(serve);
    let log = std::mem::take(&mut *log.lock().expect("log"));

    // Every acknowledged upload: metadata, bytes with the answered digest, and usable by id.
    let (store, blobs) = (cluster.store().await, cluster.blobs());
    for (id, sha) in &log.uploads {
        let meta = store.get_blob_meta(id).await.expect("store").unwrap_or_else(|| panic!("upload {id} lost its metadata"));
        assert_eq!(&meta.sha256, sha);
        let bytes = blobs.get(id).await.expect("blobs").unwrap_or_else(|| panic!("upload {id} lost its bytes"));
        assert_eq!(hex::encode(Sha256::digest(&bytes)), *sha, "upload {id} bytes changed");
    }
    if let Some((id, _)) = log.uploads.first() {
        let r = client.call(&creds, "/v1/face_auth_register", &json!({"cus_user_id": "after-restart", "faces": [{"id": id}]})).await;
        assert_eq!((r.status, r.body["data"]["status"].as_str()), (200, Some("success")), "an upload from before the crash is usable: {}", r.body);
    }
    // Every acknowledged registration: one template.
    for user in &log.registrations {
        let n = store.list_face_templates(&creds.client_id, user).await.expect("store").len();
        assert_eq!(n, 1, "registration {user} was acknowledged: one template");
    }
    // Nothing half-written: no image id without its bytes, whoever wrote it.
    let db = rusqlite::Connection::open(cluster.data_dir.join("idv.db")).expect("open the SQLite file");
    let ids: Vec<String> = {
        let mut st = db.prepare("SELECT id FROM blobs").expect("query");
        let rows = st.query_map([], |r| r.get::<_, String>(0)).expect("rows");
        rows.collect::<Result<_, _>>().expect("ids")
    };
    let mut without_bytes = Vec::new();
    for id in &ids {
        if blobs.get(id).await.expect("blobs").is_none() {
            without_bytes.push(id.clone());
        }
    }
    // Requests whose jobs died with the process: finished at the restart as interrupted
    // (their polls read 503), none left "processing" forever.
    let unfinished: i64 =
        db.query_row("SELECT COUNT(*) FROM requests WHERE response IS NULL", [], |r| r.get(0)).expect("count unfinished requests");
    let interrupted: i64 = db
        .query_row("SELECT COUNT(*) FROM requests WHERE response LIKE '%service_unavailable%'", [], |r| r.get(0))
        .expect("count interrupted requests");
    assert_eq!(unfinished, 0, "requests left processing forever after the restart");
    idv_tests::cluster::report(&format!(
        "kill -9 idv serve: {REQUESTS} requests, acknowledged uploads {} and registrations {}, broken by the kill {}; \
         after restart: acknowledged writes present {}/{}, image ids without bytes {} of {}, interrupted requests answered 503 for their polls {interrupted}, left processing 0",
        log.uploads.len(),
        log.registrations.len(),
        log.broken,
        log.uploads.len() + log.registrations.len(),
        log.uploads.len() + log.registrations.len(),
        without_bytes.len(),
        ids.len()
    ));
    assert!(log.broken > 0, "the kill happened while requests were in flight");
    assert!(without_bytes.is_empty(), "image ids without bytes: {without_bytes:?}");
}

/// A stalled store: another process holds SQLite's write lock for longer than the store's
/// busy timeout (5 s). Requests that need a write fail with the envelope's
/// `internal_server_error` (an incident id, no detail), none hangs, `/readyz` answers
/// 503 (no write possible) and 200 again after, nothing is half-written, and once the lock is gone the same requests
/// succeed without anyone restarting anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stalled_store_fails_requests_cleanly_and_the_service_recovers_alone() {
    let mut cluster = Cluster::new("memory://", &[("IDV_REQUEST_TIMEOUT_MS", "20000")]);
    let serve = cluster.start(Role::Serve).await;
    let creds = cluster.create_key("acme");
    let client = cluster.client(serve);
    let lookup = |i: usize| json!({"cus_user_id": format!("nobody-{i}")});
    let r = client.call(&creds, "/v1/face_auth_user", &lookup(0)).await;
    assert_eq!((r.status, r.body["data"]["verdict"].as_str()), (200, Some("not_registered")), "before the stall: {}", r.body);

    // Another process takes the write lock and keeps it for 15 s.
    let db_path = cluster.data_dir.join("idv.db");
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let db = rusqlite::Connection::open(db_path).expect("open");
        db.execute_batch("BEGIN IMMEDIATE; INSERT INTO clients (client_id, name, created_at) VALUES ('stall', 'stall', 'x');")
            .expect("write lock");
        locked_tx.send(()).expect("signal");
        std::thread::sleep(Duration::from_secs(15));
        db.execute_batch("ROLLBACK").expect("release");
    });
    locked_rx.recv().expect("locked");
    let started = std::time::Instant::now();
    // Two at once: the store's one connection serializes them, each waiting its 5 s.
    let stalled = futures_join(&client, &creds, (1..=2).map(lookup).collect()).await;
    let took = started.elapsed();
    for r in &stalled {
        assert_eq!(r.status, 500, "during the stall: {}", r.body);
        assert_eq!(r.body["errors"][0]["code"], "internal_server_error", "{}", r.body);
        assert!(r.body["errors"][0]["detail"]["incident_id"].is_string(), "an incident id to find the log line: {}", r.body);
    }
    assert!(took < Duration::from_secs(14), "answered by the busy timeouts, not after the stall: {took:?}");
    let (ready, _) = cluster.get(serve, "/readyz").await.expect("readyz answers during the stall");
    assert_eq!(ready, 503, "not ready while no write can be made");
    holder.join().expect("lock holder");
    let (ready_after, _) = cluster.get(serve, "/readyz").await.expect("readyz after the stall");
    assert_eq!(ready_after, 200, "ready again once the lock is gone");
    // The lock is gone: the same requests succeed, nothing from the failed ones is there.
    for body in (1..=2).map(lookup) {
        let r = client.call(&creds, "/v1/face_auth_user", &body).await;
        assert_eq!((r.status, r.body["data"]["verdict"].as_str()), (200, Some("not_registered")), "after the stall: {}", r.body);
    }
    let db = rusqlite::Connection::open(cluster.data_dir.join("idv.db")).expect("open");
    let unfinished: i64 =
        db.query_row("SELECT COUNT(*) FROM requests WHERE response IS NULL", [], |r| r.get(0)).expect("count unfinished requests");
    assert_eq!(unfinished, 0, "no request left half-written");
    idv_tests::cluster::report(&format!(
        "stalled store (write lock held 15 s): {} requests answered 500 internal_server_error in {:.1} s, /readyz {ready} meanwhile; \
         after the stall the same requests succeed, requests left unfinished 0",
        stalled.len(),
        took.as_secs_f64()
    ));
}

async fn futures_join(client: &idv_tests::Client, creds: &idv_tests::Credentials, bodies: Vec<serde_json::Value>) -> Vec<idv_tests::Reply> {
    let mut tasks = Vec::new();
    for body in bodies {
        let (client, creds) = (client.clone(), creds.clone());
        tasks.push(tokio::spawn(async move { client.call(&creds, "/v1/face_auth_user", &body).await }));
    }
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.expect("request task"));
    }
    out
}
