//! The one conformance suite every [`Store`] backend runs. Ids are fresh per run, so it
//! can run against a shared ScyllaDB keyspace.

use crate::{AccessKeyRecord, BlobMeta, ClientRecord, Completion, FaceUserRecord, RequestRecord, Store, StoreError};
use std::future::Future;
use std::sync::Arc;

fn fresh(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4())
}

pub async fn run_all<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn Store>>,
{
    clients_and_keys(make().await).await;
    request_completion_is_compare_and_set(make().await).await;
    blob_meta_round_trip(make().await).await;
    face_users_are_scoped_by_client(make().await).await;
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
        id: fresh("fu"),
        client_id: fresh("client"),
        cus_user_id: cus.clone(),
        access_key_id: "ak".into(),
        face_auth_id: "img-1".into(),
        id_card_face_id: String::new(),
        device_id: "d".into(),
        app_id: "a".into(),
        latitude: Some(10.5),
        longitude: None,
        metadata: r#"{"expiry_date_face":"2027-01-01T00:00:00Z"}"#.into(),
        is_deactivated: false,
        is_unregistered: false,
        is_locked: false,
        created_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-01T00:00:00Z".into(),
    };
    store.put_face_user(&user).await.expect("put");
    assert_eq!(store.get_face_user(&user.client_id, &cus).await.expect("get"), Some(user.clone()));
    assert_eq!(store.get_face_user(&fresh("other-client"), &cus).await.expect("get"), None, "scoped by client");
    user.is_unregistered = true;
    user.updated_at = "2026-01-02T00:00:00Z".into();
    store.put_face_user(&user).await.expect("update");
    assert_eq!(store.get_face_user(&user.client_id, &cus).await.expect("get"), Some(user));
}
