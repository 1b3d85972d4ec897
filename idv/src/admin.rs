//! Operator actions on end-user state, behind `idv users` and `idv devices`: the
//! transitions into and out of "deactivated" that the spec names but does not expose as an
//! operation (face_auth_user_deactivated, customer_user_device_deactivated), and removing
//! a device record (after which its challenges score as customer_user_device_not_found).
//! Each returns the JSON the CLI prints; failures are messages for the operator.

use idv_store::{ClientRecord, DeviceRecord, Store};
use serde_json::{json, Value};

fn store_error(e: idv_store::StoreError) -> String {
    e.to_string()
}

/// The client named `client`, or with that id. Never created: acting on a client that does
/// not exist is a typo to report, not a client to make.
pub async fn find_client(store: &dyn Store, client: &str) -> Result<ClientRecord, String> {
    if let Some(c) = store.find_client_by_name(client).await.map_err(store_error)? {
        return Ok(c);
    }
    store.get_client(client).await.map_err(store_error)?.ok_or_else(|| format!("no client named or with id {client:?}"))
}

/// Deactivates or reactivates a face-authentication user; prints its state.
pub async fn set_user_deactivated(store: &dyn Store, client: &str, user: &str, deactivated: bool, now: &str) -> Result<Value, String> {
    let c = find_client(store, client).await?;
    let mut record = store
        .get_face_user(&c.client_id, user)
        .await
        .map_err(store_error)?
        .ok_or_else(|| format!("no face-authentication user {user:?} for client {client:?}"))?;
    if record.is_deactivated != deactivated {
        record.is_deactivated = deactivated;
        record.updated_at = now.to_string();
        store.put_face_user(&record).await.map_err(store_error)?;
    }
    Ok(json!({
        "client_id": record.client_id, "cus_user_id": record.cus_user_id,
        "is_deactivated": record.is_deactivated, "is_unregistered": record.is_unregistered,
        "is_locked": record.is_locked, "failed_authentications": record.failed_auth_ids.len(),
        "updated_at": record.updated_at,
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceAction {
    Deactivate,
    Reactivate,
    Delete,
}

fn device_json(d: &DeviceRecord) -> Value {
    json!({
        "customer_user_device_id": d.customer_user_device_id, "client_id": d.client_id,
        "cus_user_id": d.cus_user_id, "device_id": d.device_id, "deactivated": d.deactivated,
    })
}

/// The user's device records that `device` names: every registration of that `device_id`,
/// or the one record whose `customer_user_device_id` it is.
pub async fn find_devices(store: &dyn Store, client_id: &str, user: &str, device: &str) -> Result<Vec<DeviceRecord>, String> {
    let mut found: Vec<DeviceRecord> = store
        .list_devices(client_id, user)
        .await
        .map_err(store_error)?
        .into_iter()
        .filter(|d| d.device_id == device || d.customer_user_device_id == device)
        .collect();
    // A ScyllaDB device registered before the per-user lookup existed is only found by
    // its id.
    if found.is_empty() {
        if let Some(d) = store.get_device(device).await.map_err(store_error)? {
            if d.client_id == client_id && d.cus_user_id == user {
                found.push(d);
            }
        }
    }
    Ok(found)
}

/// Applies `action` to every record `device` names (see [`find_devices`]); one JSON object
/// per record.
pub async fn device_action(store: &dyn Store, client: &str, user: &str, device: &str, action: DeviceAction) -> Result<Vec<Value>, String> {
    let c = find_client(store, client).await?;
    let found = find_devices(store, &c.client_id, user, device).await?;
    if found.is_empty() {
        return Err(format!("no device {device:?} registered for user {user:?} of client {client:?}"));
    }
    let mut out = Vec::new();
    for mut d in found {
        let mut line = match action {
            DeviceAction::Delete => {
                let deleted = store.delete_device(&d.customer_user_device_id).await.map_err(store_error)?;
                let mut v = device_json(&d);
                v["deleted"] = json!(deleted);
                v
            }
            DeviceAction::Deactivate | DeviceAction::Reactivate => {
                let deactivated = action == DeviceAction::Deactivate;
                if !store.set_device_deactivated(&d.customer_user_device_id, deactivated).await.map_err(store_error)? {
                    return Err(format!("device {} disappeared meanwhile", d.customer_user_device_id));
                }
                d.deactivated = deactivated;
                device_json(&d)
            }
        };
        line["action"] = json!(match action {
            DeviceAction::Deactivate => "deactivate",
            DeviceAction::Reactivate => "reactivate",
            DeviceAction::Delete => "delete",
        });
        out.push(line);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use idv_store::FaceUserRecord;

    async fn store_with_client() -> (std::sync::Arc<dyn Store>, ClientRecord) {
        let store: std::sync::Arc<dyn Store> = std::sync::Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").expect("store"));
        let c = idv_store::ensure_client(store.as_ref(), "acme", "t").await.expect("client");
        (store, c)
    }

    fn user(client_id: &str) -> FaceUserRecord {
        FaceUserRecord { face_auth_id: "img".into(), ..FaceUserRecord::new("fu", client_id, "u1", "ak", "t") }
    }

    fn device(client_id: &str, id: &str, device_id: &str, at: &str) -> DeviceRecord {
        DeviceRecord {
            customer_user_device_id: id.into(),
            client_id: client_id.into(),
            cus_user_id: "u1".into(),
            device_id: device_id.into(),
            key_pair_id: "kp".into(),
            public_der: vec![1],
            deactivated: false,
            created_at: at.into(),
        }
    }

    #[tokio::test]
    async fn users_deactivate_and_reactivate_by_client_name_or_id() {
        let (store, c) = store_with_client().await;
        store.put_face_user(&user(&c.client_id)).await.expect("put");
        let out = set_user_deactivated(store.as_ref(), "acme", "u1", true, "t2").await.expect("deactivate");
        assert_eq!((out["is_deactivated"].as_bool(), out["updated_at"].as_str()), (Some(true), Some("t2")));
        assert!(store.get_face_user(&c.client_id, "u1").await.expect("get").expect("user").is_deactivated);
        set_user_deactivated(store.as_ref(), &c.client_id, "u1", false, "t3").await.expect("reactivate by id");
        assert!(!store.get_face_user(&c.client_id, "u1").await.expect("get").expect("user").is_deactivated);
        assert!(set_user_deactivated(store.as_ref(), "acme", "nobody", true, "t").await.is_err(), "unknown user");
        assert!(set_user_deactivated(store.as_ref(), "no-such-client", "u1", true, "t").await.is_err(), "unknown client");
        assert!(store.find_client_by_name("no-such-client").await.expect("find").is_none(), "never created");
    }

    #[tokio::test]
    async fn devices_by_device_id_cover_every_registration_and_delete_removes_them() {
        let (store, c) = store_with_client().await;
        for d in [device(&c.client_id, "cud-1", "phone", "t1"), device(&c.client_id, "cud-2", "phone", "t2"), device(&c.client_id, "cud-3", "tablet", "t3")] {
            store.create_device(&d).await.expect("create");
        }
        let out = device_action(store.as_ref(), "acme", "u1", "phone", DeviceAction::Deactivate).await.expect("deactivate");
        assert_eq!(out.len(), 2, "both registrations of the device id");
        let state = |id: &'static str| {
            let store = store.clone();
            async move { store.get_device(id).await.expect("get").map(|d| d.deactivated) }
        };
        assert_eq!((state("cud-1").await, state("cud-2").await, state("cud-3").await), (Some(true), Some(true), Some(false)));
        device_action(store.as_ref(), "acme", "u1", "cud-2", DeviceAction::Reactivate).await.expect("by customer_user_device_id");
        assert_eq!((state("cud-1").await, state("cud-2").await), (Some(true), Some(false)));
        let out = device_action(store.as_ref(), "acme", "u1", "tablet", DeviceAction::Delete).await.expect("delete");
        assert_eq!(out[0]["deleted"], true);
        assert_eq!(state("cud-3").await, None);
        assert!(device_action(store.as_ref(), "acme", "u1", "tablet", DeviceAction::Delete).await.is_err(), "nothing left to delete");
        assert!(device_action(store.as_ref(), "acme", "someone-else", "phone", DeviceAction::Deactivate).await.is_err(), "another user's");
    }
}
