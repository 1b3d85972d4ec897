//! Face-authentication jobs. User-state operations (look up, unregister, unlock) are
//! complete here. The biometric operations check the user's state (the spec's failure
//! codes) and then need the vision models of issue #4; until those are in the build they
//! answer "not performed" rather than any score.

use crate::runtime::JobHandler;
use async_trait::async_trait;
use idv_schemas::api::{CusUserRequest, FaceAuthUnregisterRequest};
use idv_schemas::jobs::Job;
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group, Operation};
use idv_store::{FaceUserRecord, Store, StoreError};
use serde_json::{json, Value};
use std::sync::Arc;

/// Histories returned by face_auth_user (choice: docs/API.md).
pub const HISTORIES_RETURNED: usize = 10;

pub const MODELS_MISSING: &str = "face models are not installed in this build (issue #4)";

pub struct FaceHandler {
    pub store: Arc<dyn Store>,
    /// The face pipeline, when its models are installed.
    pub biometrics: Option<crate::face_ops::Biometrics>,
}

/// mix_compare_faces_sync jobs (compare topic).
pub struct CompareHandler {
    pub biometrics: Option<crate::face_ops::Biometrics>,
}

#[async_trait]
impl JobHandler for CompareHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        match &self.biometrics {
            Some(b) if job.operation == Operation::MixCompareFacesSync => b.compare(job).await,
            _ => Ok(Envelope::error(job.operation.group(), &ErrorKind::NotAvailable { reason: MODELS_MISSING.into() })),
        }
    }
}

fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

/// The spec's face_auth_user record as returned to clients.
pub fn user_json(u: &FaceUserRecord) -> Value {
    json!({
        "id": u.id, "client_id": u.client_id, "access_key_id": u.access_key_id,
        "face_auth_id": u.face_auth_id, "id_card_face_id": u.id_card_face_id,
        "cus_user_id": u.cus_user_id, "device_id": u.device_id, "app_id": u.app_id,
        "latitude": u.latitude, "longitude": u.longitude,
        "metadata": serde_json::from_str::<Value>(&u.metadata).unwrap_or_else(|_| json!({})),
        "is_deactivated": u.is_deactivated, "is_unregistered": u.is_unregistered,
        "created_at": u.created_at, "updated_at": u.updated_at,
    })
}

/// Registered face types of a user.
pub fn face_types(u: &FaceUserRecord) -> Vec<&'static str> {
    let mut t = Vec::new();
    if !u.face_auth_id.is_empty() {
        t.push("selfie");
    }
    if !u.id_card_face_id.is_empty() {
        t.push("id_card");
    }
    t
}

/// The state failure that blocks a biometric operation, if any (spec, operation 2).
pub fn blocking_state(u: &FaceUserRecord, op: Operation) -> Option<FailureCode> {
    if u.is_deactivated {
        Some(FailureCode::FaceAuthUserDeactivated)
    } else if op == Operation::FaceAuth && u.is_unregistered {
        Some(FailureCode::FaceAuthUserUnregistered)
    } else if op == Operation::FaceAuth && u.is_locked {
        Some(FailureCode::FaceAuthUserLocked)
    } else {
        None
    }
}

fn parse<T: serde::de::DeserializeOwned>(job: &Job) -> Result<T, Envelope> {
    serde_json::from_value(job.payload.clone()).map_err(|e| {
        Envelope::error(Group::Face, &ErrorKind::Internal { message: format!("job payload unreadable: {e}") })
    })
}

impl FaceHandler {
    async fn user(&self, job: &Job, cus_user_id: &str) -> Result<Option<FaceUserRecord>, StoreError> {
        self.store.get_face_user(&job.client_id, cus_user_id).await
    }

    async fn lookup(&self, job: &Job, req: CusUserRequest) -> Result<Envelope, StoreError> {
        let user = self.user(job, &req.cus_user_id).await?.filter(|u| !u.is_unregistered);
        let histories: Vec<Value> = match &user {
            Some(_) => self
                .store
                .list_face_histories(&job.client_id, &req.cus_user_id, HISTORIES_RETURNED)
                .await?
                .iter()
                .filter_map(|h| serde_json::from_str(&h.record).ok())
                .collect(),
            None => Vec::new(),
        };
        let data = match user {
            Some(u) => json!({
                "status": "success", "request_id": job.request_id, "verdict": "registered",
                "face_types": face_types(&u), "histories": histories,
                "metadata": serde_json::from_str::<Value>(&u.metadata).unwrap_or_else(|_| json!({})),
            }),
            None => json!({"status": "success", "request_id": job.request_id, "verdict": "not_registered"}),
        };
        Ok(Envelope::ok(Group::Face, data))
    }

    async fn set_flag(&self, job: &Job, cus_user_id: &str, id_field: &str) -> Result<Envelope, StoreError> {
        let Some(mut user) = self.user(job, cus_user_id).await? else {
            return Ok(Envelope::error(Group::Face, &ErrorKind::FaceUserNotFound));
        };
        match job.operation {
            Operation::FaceAuthUnregister => {
                // Biometric templates are not kept for an unregistered user.
                self.store.delete_face_templates(&job.client_id, cus_user_id).await?;
                user.is_unregistered = true;
            }
            // choice: unlock clears the lock only; the spec does not state other flags.
            _ => user.is_locked = false,
        }
        user.updated_at = now();
        self.store.put_face_user(&user).await?;
        // The id is the request id, so a redelivered job answers with the same id.
        Ok(Envelope::ok(
            Group::Face,
            json!({"status": "success", "request_id": job.request_id, id_field: job.request_id, "face_auth_user": user_json(&user)}),
        ))
    }

    async fn biometric(&self, job: &Job) -> Result<Envelope, StoreError> {
        let cus_user_id = job.payload["cus_user_id"].as_str().unwrap_or_default().to_string();
        let user = self.user(job, &cus_user_id).await?;
        match (job.operation, &user) {
            (Operation::FaceAuth, None) => return Ok(Envelope::error(Group::Face, &ErrorKind::FaceUserNotFound)),
            (op, Some(u)) => {
                if let Some(code) = blocking_state(u, op) {
                    return Ok(Envelope::finished(
                        Group::Face,
                        json!({"status": "failure", "request_id": job.request_id}),
                        vec![ApiError::failure(code, code.as_str().replace('_', " "))],
                    ));
                }
            }
            _ => {}
        }
        match (&self.biometrics, job.operation, user) {
            (Some(b), Operation::FaceAuthRegister, _) => b.register(self.store.as_ref(), job).await,
            (Some(b), Operation::FaceAuth, Some(u)) => b.authenticate(self.store.as_ref(), job, u).await,
            _ => Ok(Envelope::error(Group::Face, &ErrorKind::NotAvailable { reason: MODELS_MISSING.into() })),
        }
    }
}

#[async_trait]
impl JobHandler for FaceHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        match job.operation {
            Operation::FaceAuthUser => match parse::<CusUserRequest>(job) {
                Ok(req) => self.lookup(job, req).await,
                Err(env) => Ok(env),
            },
            Operation::FaceAuthUnregister => match parse::<FaceAuthUnregisterRequest>(job) {
                Ok(req) => self.set_flag(job, &req.cus_user_id, "unregister_id").await,
                Err(env) => Ok(env),
            },
            Operation::FaceAuthUnlock => match parse::<CusUserRequest>(job) {
                Ok(req) => self.set_flag(job, &req.cus_user_id, "unlock_id").await,
                Err(env) => Ok(env),
            },
            Operation::FaceAuthRegister | Operation::FaceAuth => self.biometric(job).await,
            other => Ok(Envelope::error(
                other.group(),
                &ErrorKind::Internal { message: format!("{} is not a face job", other.name()) },
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idv_schemas::jobs::JOB_SCHEMA_VERSION;

    fn job(op: Operation, payload: Value) -> Job {
        Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: uuid::Uuid::new_v4().to_string(),
            operation: op,
            client_id: "client-a".into(),
            access_key_id: "ak".into(),
            reply_to: "i".into(),
            created_at: now(),
            payload,
        }
    }

    fn user(cus: &str) -> FaceUserRecord {
        FaceUserRecord {
            id: "fu-1".into(),
            client_id: "client-a".into(),
            cus_user_id: cus.into(),
            access_key_id: "ak".into(),
            face_auth_id: "img-1".into(),
            id_card_face_id: String::new(),
            device_id: String::new(),
            app_id: String::new(),
            latitude: None,
            longitude: None,
            metadata: r#"{"expiry_date_face":"2027-01-01T00:00:00Z"}"#.into(),
            is_deactivated: false,
            is_unregistered: false,
            is_locked: true,
            created_at: now(),
            updated_at: now(),
        }
    }

    fn handler() -> FaceHandler {
        FaceHandler { store: Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap()), biometrics: None }
    }

    #[tokio::test]
    async fn lookup_unregister_unlock_lifecycle() {
        let h = handler();
        let env = h.handle(&job(Operation::FaceAuthUser, json!({"cus_user_id": "u1"}))).await.unwrap();
        assert_eq!(env.body["data"]["verdict"], "not_registered");
        let env = h.handle(&job(Operation::FaceAuthUnlock, json!({"cus_user_id": "u1"}))).await.unwrap();
        assert_eq!((env.http_status, env.first_error_code()), (404, Some("face_auth_user_not_found_exception")));

        h.store.put_face_user(&user("u1")).await.unwrap();
        let env = h.handle(&job(Operation::FaceAuthUser, json!({"cus_user_id": "u1"}))).await.unwrap();
        assert_eq!(env.body["data"]["verdict"], "registered");
        assert_eq!(env.body["data"]["face_types"], json!(["selfie"]));
        assert_eq!(env.body["data"]["metadata"]["expiry_date_face"], "2027-01-01T00:00:00Z");

        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "u1", "faces": []}))).await.unwrap();
        assert_eq!(env.first_error_code(), Some("face_auth_user_locked"));
        assert_eq!(env.http_status, 200);

        let unlock = job(Operation::FaceAuthUnlock, json!({"cus_user_id": "u1"}));
        let env = h.handle(&unlock).await.unwrap();
        assert_eq!(env.body["data"]["unlock_id"], unlock.request_id.as_str());
        assert!(!h.store.get_face_user("client-a", "u1").await.unwrap().unwrap().is_locked);

        let env = h.handle(&job(Operation::FaceAuthUnregister, json!({"cus_user_id": "u1"}))).await.unwrap();
        assert_eq!(env.body["data"]["face_auth_user"]["is_unregistered"], true);
        let env = h.handle(&job(Operation::FaceAuthUser, json!({"cus_user_id": "u1"}))).await.unwrap();
        assert_eq!(env.body["data"]["verdict"], "not_registered");
        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "u1"}))).await.unwrap();
        assert_eq!(env.first_error_code(), Some("face_auth_user_unregistered"));
    }

    #[tokio::test]
    async fn biometric_without_models_is_not_performed_never_a_score() {
        let h = handler();
        h.store.put_face_user(&FaceUserRecord { is_locked: false, ..user("u2") }).await.unwrap();
        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "u2"}))).await.unwrap();
        assert_eq!(env.http_status, 500);
        assert_eq!(env.body["errors"][0]["detail"]["reason"], "not_performed");
        assert!(env.body.get("data").is_some_and(|d| d.is_null()), "no score is made up");
        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "nobody"}))).await.unwrap();
        assert_eq!(env.http_status, 404);
    }
}
