//! The one conformance suite every [`Store`] backend runs. Ids are fresh per run, so it
//! can run against a shared ScyllaDB keyspace.

use crate::{
    AccessKeyRecord, BaselineRecord, BatchRecord, BlobMeta, ChallengeRecord, ClientRecord, Completion, DeviceRecord,
    FaceHistoryRecord, FaceTemplateRecord, FaceUserRecord, KeyPairRecord, RequestRecord, SessionRecord, Store, StoreError, CHALLENGE_OPEN,
    CHALLENGE_SCORED,
};
use std::future::Future;
use std::sync::Arc;

fn fresh(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4())
}

/// Every check, one after another (a backend configuration tested as a whole, e.g. the
/// on-disk SQLite file that is then reopened). Backends run the checks as separate tests
/// with [`store_conformance_tests`](crate::store_conformance_tests).
pub async fn run_all<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn Store>>,
{
    clients_and_keys(make().await).await;
    key_pairs_and_devices(make().await).await;
    request_completion_is_compare_and_set(make().await).await;
    blob_meta_round_trip(make().await).await;
    replay_claims_are_first_use_only(make().await).await;
    face_users_are_scoped_by_client(make().await).await;
    face_templates_and_histories(make().await).await;
    batch_chain_is_compare_and_set(make().await).await;
    baseline_writes_are_compare_and_set(make().await).await;
    sessions_are_compare_and_set_and_expire(make().await).await;
}

/// The conformance suite of every store area as one `#[tokio::test]` per check, in a
/// module per area (`keys`, `requests`, `face`, `behavior`, `sessions`), for the backend
/// `$make` opens (an async expression giving a fresh `Arc<dyn Store>`; names in scope
/// where the macro is invoked are visible to it). Attributes after it (`, #[ignore = ".."]`)
/// go on every test. As Quickwit's `metastore_test_suite!`: a failing check is named by
/// the test that failed, per backend.
#[macro_export]
macro_rules! store_conformance_tests {
    ($make:expr $(, #[$attr:meta])* $(,)?) => {
        $crate::store_conformance_tests!(@area [$(#[$attr])*] ($make) keys: clients_and_keys, key_pairs_and_devices);
        $crate::store_conformance_tests!(@area [$(#[$attr])*] ($make) requests:
            request_completion_is_compare_and_set, blob_meta_round_trip, replay_claims_are_first_use_only);
        $crate::store_conformance_tests!(@area [$(#[$attr])*] ($make) face: face_users_are_scoped_by_client, face_templates_and_histories);
        $crate::store_conformance_tests!(@area [$(#[$attr])*] ($make) behavior:
            batch_chain_is_compare_and_set, baseline_writes_are_compare_and_set);
        $crate::store_conformance_tests!(@area [$(#[$attr])*] ($make) sessions: sessions_are_compare_and_set_and_expire);
    };
    (@area [$($attrs:tt)*] ($make:expr) $area:ident: $($check:ident),+ $(,)?) => {
        mod $area {
            #[allow(unused_imports)]
            use super::*;
            $crate::store_conformance_tests!(@tests [$($attrs)*] ($make) $($check),+);
        }
    };
    (@tests [$($attrs:tt)*] ($make:expr) $check:ident $(, $rest:ident)*) => {
        #[tokio::test]
        $($attrs)*
        async fn $check() {
            let store: std::sync::Arc<dyn $crate::Store> = $make.await;
            $crate::conformance::$check(store).await;
        }
        $crate::store_conformance_tests!(@tests [$($attrs)*] ($make) $($rest),*);
    };
    (@tests [$($attrs:tt)*] ($make:expr)) => {};
}

pub async fn sessions_are_compare_and_set_and_expire(store: Arc<dyn Store>) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    let key = fresh("session");
    let s1 = SessionRecord { key: key.clone(), version: 1, data: vec![1, 2, 3], expires_at: now + 600 };
    assert!(store.put_session(&s1, None).await.expect("create"));
    assert!(!store.put_session(&s1, None).await.expect("create again"), "a live session is not replaced by a create");
    assert_eq!(store.get_session(&key).await.expect("get"), Some(s1.clone()));
    let s2 = SessionRecord { version: 2, data: vec![9], ..s1.clone() };
    assert!(store.put_session(&s2, Some(1)).await.expect("update"));
    assert!(!store.put_session(&SessionRecord { version: 3, ..s2.clone() }, Some(1)).await.expect("stale"), "stale version loses");
    assert_eq!(store.get_session(&key).await.expect("get").map(|s| s.data), Some(vec![9]));
    // Two racing updates from the same version: one wins.
    let (x, y) = (SessionRecord { version: 3, data: vec![3], ..s2.clone() }, SessionRecord { version: 3, data: vec![4], ..s2.clone() });
    let (a, b) = tokio::join!(store.put_session(&x, Some(2)), store.put_session(&y, Some(2)));
    assert_eq!([a.expect("a"), b.expect("b")].iter().filter(|w| **w).count(), 1, "one winner");
    assert_eq!(store.get_session(&fresh("missing")).await.expect("get"), None);
    // Expiry: gone for readers, and a new session may take the key.
    let short = SessionRecord { key: fresh("session"), version: 1, data: vec![7], expires_at: now + 1 };
    assert!(store.put_session(&short, None).await.expect("create"));
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(store.get_session(&short.key).await.expect("get"), None, "expired");
    assert!(!store.put_session(&SessionRecord { version: 2, ..short.clone() }, Some(1)).await.expect("update expired"));
    assert!(store.put_session(&SessionRecord { expires_at: now + 600, ..short.clone() }, None).await.expect("recreate"));
}

pub async fn replay_claims_are_first_use_only(store: Arc<dyn Store>) {
    let window = std::time::Duration::from_secs(60);
    let (a, b) = (fresh("sig"), fresh("sig"));
    assert!(store.claim_once(&a, "r1", window).await.expect("claim"), "first use");
    assert!(!store.claim_once(&a, "r2", window).await.expect("claim"), "second use within the window");
    assert!(store.claim_once(&a, "r1", window).await.expect("claim"), "the holder claims again (a redelivery)");
    assert!(store.claim_once(&b, "r2", window).await.expect("claim"), "another key");
    // Racing first uses of one key: exactly one wins.
    let c = fresh("sig");
    let (x, y) = tokio::join!(store.claim_once(&c, "r3", window), store.claim_once(&c, "r4", window));
    assert_eq!([x.expect("x"), y.expect("y")].iter().filter(|w| **w).count(), 1, "one winner");
    // After its window a key may be used again (the timestamp check refuses it by then).
    let d = fresh("sig");
    assert!(store.claim_once(&d, "r5", std::time::Duration::from_secs(1)).await.expect("claim"));
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert!(store.claim_once(&d, "r6", window).await.expect("claim"), "expired claim is taken over");
    assert!(!store.claim_once(&d, "r5", window).await.expect("claim"), "the former holder lost it");
}

pub async fn clients_and_keys(store: Arc<dyn Store>) {
    let client = ClientRecord { client_id: fresh("client"), name: fresh("name"), created_at: "2026-01-01T00:00:00Z".into() };
    store.create_client(&client).await.expect("create client");
    assert_eq!(store.get_client(&client.client_id).await.expect("get"), Some(client.clone()));
    assert_eq!(store.find_client_by_name(&client.name).await.expect("find"), Some(client.clone()));
    assert_eq!(store.get_client(&fresh("missing")).await.expect("get"), None);

    let key = AccessKeyRecord {
        access_key_id: fresh("ak"),
        client_id: client.client_id.clone(),
        sealed_secret: vec![1, 2, 3, 255],
        created_at: "2026-01-01T00:00:00Z".into(),
        revoked: false,
    };
    store.create_access_key(&key).await.expect("create key");
    assert!(
        matches!(store.create_access_key(&key).await, Err(StoreError::AlreadyExists(_))),
        "a key id cannot be reused"
    );
    assert_eq!(store.get_access_key(&key.access_key_id).await.expect("get key"), Some(key.clone()));
    assert!(store.list_access_keys().await.expect("list").iter().any(|k| k.access_key_id == key.access_key_id));
    assert!(store.revoke_access_key(&key.access_key_id).await.expect("revoke"));
    assert!(store.get_access_key(&key.access_key_id).await.expect("get").expect("present").revoked);
    assert!(!store.revoke_access_key(&fresh("nope")).await.expect("revoke missing"));
}

pub async fn request_completion_is_compare_and_set(store: Arc<dyn Store>) {
    let req = RequestRecord {
        request_id: fresh("req"),
        client_id: "c".into(),
        operation: "face_auth_user".into(),
        created_at: "2026-01-01T00:00:00Z".into(),
        response: None,
        finished_at: None,
    };
    store.create_request(&req).await.expect("create request");
    assert!(matches!(store.create_request(&req).await, Err(StoreError::AlreadyExists(_))));
    assert_eq!(store.get_request(&req.request_id).await.expect("get"), Some(req.clone()));

    let first = store.complete_request(&req.request_id, r#"{"n":1}"#, "2026-01-01T00:00:01Z").await.expect("complete");
    assert_eq!(first, Completion::Stored);
    let second = store.complete_request(&req.request_id, r#"{"n":2}"#, "2026-01-01T00:00:02Z").await.expect("complete");
    assert_eq!(second, Completion::AlreadyCompleted { response: r#"{"n":1}"#.into() }, "first completion wins");
    let got = store.get_request(&req.request_id).await.expect("get").expect("present");
    assert_eq!(got.response.as_deref(), Some(r#"{"n":1}"#));
    assert_eq!(got.finished_at.as_deref(), Some("2026-01-01T00:00:01Z"));

    let unknown = store.complete_request(&fresh("req"), "{}", "t").await.expect("complete unknown");
    assert_eq!(unknown, Completion::UnknownRequest);
    assert_eq!(store.get_request(&fresh("req")).await.expect("get"), None);
}

pub async fn blob_meta_round_trip(store: Arc<dyn Store>) {
    let meta = BlobMeta {
        id: fresh("img"),
        client_id: "c".into(),
        kind: "image".into(),
        size: 1234,
        sha256: "ab".repeat(32),
        label: Some("selfie".into()),
        content_type: None,
        metadata: Some(r#"{"k":1}"#.into()),
        created_at: "2026-01-01T00:00:00Z".into(),
    };
    store.put_blob_meta(&meta).await.expect("put");
    assert_eq!(store.get_blob_meta(&meta.id).await.expect("get"), Some(meta));
    assert_eq!(store.get_blob_meta(&fresh("img")).await.expect("get"), None);
}

pub async fn face_users_are_scoped_by_client(store: Arc<dyn Store>) {
    let cus = fresh("user");
    let mut user = FaceUserRecord {
        face_auth_id: "img-1".into(),
        device_id: "d".into(),
        app_id: "a".into(),
        latitude: Some(10.5),
        metadata: r#"{"expiry_date_face":"2027-01-01T00:00:00Z"}"#.into(),
        ..FaceUserRecord::new(fresh("fu"), fresh("client"), cus.clone(), "ak", "2026-01-01T00:00:00Z")
    };
    store.put_face_user(&user).await.expect("put");
    assert_eq!(store.get_face_user(&user.client_id, &cus).await.expect("get"), Some(user.clone()));
    assert_eq!(store.get_face_user(&fresh("other-client"), &cus).await.expect("get"), None, "scoped by client");
    user.is_unregistered = true;
    user.updated_at = "2026-01-02T00:00:00Z".into();
    store.put_face_user(&user).await.expect("update");
    assert_eq!(store.get_face_user(&user.client_id, &cus).await.expect("get"), Some(user.clone()));
    // The lockout state (failed authentications, lock, deactivation) is kept, and cleared.
    user.failed_auth_ids = vec!["req-1".into(), "req-2".into()];
    user.is_locked = true;
    user.is_deactivated = true;
    store.put_face_user(&user).await.expect("update");
    let got = store.get_face_user(&user.client_id, &cus).await.expect("get").expect("present");
    assert_eq!((got.failed_auth_ids.len(), got.is_locked, got.is_deactivated), (2, true, true));
    user.failed_auth_ids.clear();
    user.is_locked = false;
    store.put_face_user(&user).await.expect("update");
    assert_eq!(store.get_face_user(&user.client_id, &cus).await.expect("get"), Some(user));
}

pub async fn key_pairs_and_devices(store: Arc<dyn Store>) {
    let client = fresh("client");
    let kp = KeyPairRecord {
        key_pair_id: uuid::Uuid::new_v4().to_string(),
        client_id: client.clone(),
        public_der: vec![0x30, 0x82, 1, 2],
        sealed_private: vec![9; 40],
        created_at: "2026-01-01T00:00:00Z".into(),
        active: true,
    };
    store.create_key_pair(&kp).await.expect("create key pair");
    assert!(matches!(store.create_key_pair(&kp).await, Err(StoreError::AlreadyExists(_))));
    assert_eq!(store.get_key_pair(&kp.key_pair_id).await.expect("get"), Some(kp.clone()));
    let listed = store.list_key_pairs(Some(&client)).await.expect("list");
    assert_eq!(listed, vec![kp.clone()]);
    assert!(store.list_key_pairs(Some(&fresh("other"))).await.expect("list").is_empty());
    assert!(store.list_key_pairs(None).await.expect("list all").iter().any(|k| k.key_pair_id == kp.key_pair_id));
    assert!(store.set_key_pair_active(&kp.key_pair_id, false).await.expect("deactivate"));
    assert!(!store.get_key_pair(&kp.key_pair_id).await.expect("get").expect("present").active);
    assert!(!store.set_key_pair_active(&fresh("kp"), false).await.expect("missing"));

    let device = DeviceRecord {
        customer_user_device_id: uuid::Uuid::new_v4().to_string(),
        client_id: client.clone(),
        cus_user_id: "user-1".into(),
        device_id: "device-1".into(),
        key_pair_id: kp.key_pair_id.clone(),
        public_der: vec![1, 2, 3],
        deactivated: false,
        created_at: "2026-01-01T00:00:00Z".into(),
    };
    store.create_device(&device).await.expect("create device");
    assert!(matches!(store.create_device(&device).await, Err(StoreError::AlreadyExists(_))));
    assert_eq!(store.get_device(&device.customer_user_device_id).await.expect("get"), Some(device.clone()));
    assert!(store.set_device_deactivated(&device.customer_user_device_id, true).await.expect("deactivate"));
    assert!(store.get_device(&device.customer_user_device_id).await.expect("get").expect("present").deactivated);
    assert!(!store.set_device_deactivated(&fresh("dev"), true).await.expect("missing"));

    // Listing by (client, user): every registration, the user's only.
    let again = DeviceRecord {
        customer_user_device_id: uuid::Uuid::new_v4().to_string(),
        created_at: "2026-01-02T00:00:00Z".into(),
        ..device.clone()
    };
    store.create_device(&again).await.expect("second registration");
    let other_user = DeviceRecord {
        customer_user_device_id: uuid::Uuid::new_v4().to_string(),
        cus_user_id: "user-2".into(),
        ..device.clone()
    };
    store.create_device(&other_user).await.expect("another user's device");
    let listed = store.list_devices(&client, "user-1").await.expect("list");
    let ids: Vec<&str> = listed.iter().map(|d| d.customer_user_device_id.as_str()).collect();
    assert_eq!(ids, [device.customer_user_device_id.as_str(), again.customer_user_device_id.as_str()], "oldest first");
    assert!(listed[0].deactivated && !listed[1].deactivated, "state as stored");
    assert!(store.list_devices(&fresh("client"), "user-1").await.expect("list").is_empty(), "scoped by client");

    // Deleting: gone for reads and listings; a second delete finds nothing.
    assert!(store.delete_device(&again.customer_user_device_id).await.expect("delete"));
    assert_eq!(store.get_device(&again.customer_user_device_id).await.expect("get"), None);
    assert!(!store.delete_device(&again.customer_user_device_id).await.expect("delete again"));
    let listed = store.list_devices(&client, "user-1").await.expect("list");
    assert_eq!(listed.iter().map(|d| d.customer_user_device_id.as_str()).collect::<Vec<_>>(), [device.customer_user_device_id.as_str()]);
}

fn batch(challenge_id: &str, seq: i64, prev: &str, hash: &str) -> BatchRecord {
    BatchRecord {
        challenge_id: challenge_id.to_string(),
        seq,
        prev_batch_hash: prev.to_string(),
        batch_hash: hash.to_string(),
        data: format!(r#"{{"events":[{seq}]}}"#),
        received_at: "2026-01-01T00:00:00Z".into(),
        request_id: format!("push-{hash}"),
    }
}

pub async fn batch_chain_is_compare_and_set(store: Arc<dyn Store>) {
    let challenge = ChallengeRecord {
        challenge_id: uuid::Uuid::new_v4().to_string(),
        client_id: "c".into(),
        customer_user_device_id: "d".into(),
        cus_user_id: "u".into(),
        session_id: "s".into(),
        nonce: "ab".repeat(32),
        status: CHALLENGE_OPEN.into(),
        created_at: "2026-01-01T00:00:00Z".into(),
        expires_at: 1_800_000_000,
        last_seq: -1,
        last_hash: String::new(),
    };
    store.create_challenge(&challenge).await.expect("create challenge");
    assert!(matches!(store.create_challenge(&challenge).await, Err(StoreError::AlreadyExists(_))));
    assert_eq!(store.get_challenge(&challenge.challenge_id).await.expect("get"), Some(challenge.clone()));
    let id = challenge.challenge_id.as_str();

    assert!(store.append_batch(&batch(id, 0, "", "h0")).await.expect("append 0"));
    assert!(!store.append_batch(&batch(id, 0, "", "h0-again")).await.expect("replayed seq"), "seq 0 is taken");
    assert!(!store.append_batch(&batch(id, 2, "h0", "h2")).await.expect("skipped seq"), "gap");
    assert!(!store.append_batch(&batch(id, 1, "wrong", "h1")).await.expect("broken link"), "prev hash must match");
    assert!(store.append_batch(&batch(id, 1, "h0", "h1")).await.expect("append 1"));
    let head = store.get_challenge(id).await.expect("get").expect("present");
    assert_eq!((head.last_seq, head.last_hash.as_str()), (1, "h1"));

    // Two racing pushes of the same next seq: exactly one extends the chain.
    let (b2a, b2b) = (batch(id, 2, "h1", "h2a"), batch(id, 2, "h1", "h2b"));
    let (a, b) = tokio::join!(store.append_batch(&b2a), store.append_batch(&b2b));
    assert_eq!([a.expect("a"), b.expect("b")].iter().filter(|x| **x).count(), 1, "one winner");
    let chain = store.list_batches(id).await.expect("list");
    assert_eq!(chain.iter().map(|b| b.seq).collect::<Vec<_>>(), vec![0, 1, 2]);
    assert_eq!(chain[2].batch_hash, store.get_challenge(id).await.expect("get").expect("present").last_hash);
    assert_eq!(chain[1].data, r#"{"events":[1]}"#);
    assert_eq!(chain[1].request_id, "push-h1", "the appending request is kept");
    // The same batch again under another request id (a re-signed retry): refused, and the
    // committed row keeps the request that appended it (its redelivery must find itself).
    let resigned = BatchRecord { request_id: "push-h1-resigned".into(), ..batch(id, 1, "h0", "h1") };
    assert!(!store.append_batch(&resigned).await.expect("re-signed push"), "a committed batch is not appended twice");
    assert_eq!(store.list_batches(id).await.expect("list")[1].request_id, "push-h1", "the first request stays");

    assert!(store.finalize_challenge(id).await.expect("finalize"));
    assert_eq!(store.get_challenge(id).await.expect("get").expect("present").status, CHALLENGE_SCORED);
    assert!(!store.append_batch(&batch(id, 3, &chain[2].batch_hash, "h3")).await.expect("after score"), "scored challenges take no batches");
    assert!(!store.finalize_challenge(&uuid::Uuid::new_v4().to_string()).await.expect("missing"));
    assert!(store.list_batches(&uuid::Uuid::new_v4().to_string()).await.expect("list missing").is_empty());
}

pub async fn baseline_writes_are_compare_and_set(store: Arc<dyn Store>) {
    let client = fresh("client");
    assert_eq!(store.get_baseline(&client, "u").await.expect("get"), None);
    let mut b = BaselineRecord {
        client_id: client.clone(),
        cus_user_id: "u".into(),
        version: 1,
        data: vec![1, 2, 3],
        updated_at: "2026-01-01T00:00:00Z".into(),
    };
    assert!(store.put_baseline(&b, None).await.expect("enroll"));
    assert!(!store.put_baseline(&b, None).await.expect("second enroll"), "only one enrollment wins");
    assert_eq!(store.get_baseline(&client, "u").await.expect("get"), Some(b.clone()));
    b.version = 2;
    b.data = vec![4];
    assert!(!store.put_baseline(&b, Some(0)).await.expect("stale"), "stale version refused");
    assert!(store.put_baseline(&b, Some(1)).await.expect("update"));
    assert_eq!(store.get_baseline(&client, "u").await.expect("get").expect("present").data, vec![4]);
    assert_eq!(store.get_baseline(&fresh("c"), "u").await.expect("get"), None);
}

pub async fn face_templates_and_histories(store: Arc<dyn Store>) {
    let client = fresh("client");
    let template = |id: &str, face_type: &str| FaceTemplateRecord {
        client_id: client.clone(),
        cus_user_id: "u".into(),
        template_id: id.to_string(),
        face_type: face_type.to_string(),
        model_id: "dlib_resnet".into(),
        model_version: "1".into(),
        sealed_vector: vec![7; 48],
        image_id: format!("img-{id}"),
        created_at: format!("2026-01-01T00:00:0{}Z", id.len() % 10),
    };
    store.put_face_template(&template("t1", "selfie")).await.expect("put");
    store.put_face_template(&template("t22", "id_card")).await.expect("put");
    let mut replaced = template("t1", "selfie");
    replaced.sealed_vector = vec![8; 48];
    store.put_face_template(&replaced).await.expect("replace");
    let listed = store.list_face_templates(&client, "u").await.expect("list");
    assert_eq!(listed.len(), 2);
    assert!(listed.contains(&replaced) && listed.contains(&template("t22", "id_card")));
    assert!(store.list_face_templates(&fresh("other"), "u").await.expect("list").is_empty(), "scoped by client");
    store.delete_face_templates(&client, "u").await.expect("delete");
    assert!(store.list_face_templates(&client, "u").await.expect("list").is_empty());

    for (i, status) in ["success", "failure", "success"].iter().enumerate() {
        let h = FaceHistoryRecord {
            client_id: client.clone(),
            cus_user_id: "u".into(),
            id: format!("h{i}"),
            created_at: format!("2026-01-01T00:00:0{i}Z"),
            status: status.to_string(),
            record: format!(r#"{{"id":"h{i}"}}"#),
        };
        store.add_face_history(&h).await.expect("add");
    }
    let newest = store.list_face_histories(&client, "u", 2).await.expect("list");
    assert_eq!(newest.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["h2", "h1"], "newest first, limited");
    // A redelivered job rewrites its record (same id and time): still one record.
    let again = FaceHistoryRecord {
        client_id: client.clone(),
        cus_user_id: "u".into(),
        id: "h1".into(),
        created_at: "2026-01-01T00:00:01Z".into(),
        status: "failure".into(),
        record: r#"{"id":"h1","again":true}"#.into(),
    };
    store.add_face_history(&again).await.expect("rewrite");
    let all = store.list_face_histories(&client, "u", 10).await.expect("list");
    assert_eq!(all.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["h2", "h1", "h0"], "one record per id");
    assert_eq!(all[1].record, again.record);
    assert!(store.list_face_histories(&client, "u", 0).await.expect("limit 0").is_empty(), "a limit of 0 lists nothing");
    assert!(store.list_face_histories(&fresh("c"), "u", 10).await.expect("list").is_empty());
}
