//! Face-authentication jobs. User-state operations (look up, unregister, unlock) and the
//! user's state checks (the spec's failure codes: deactivated, unregistered, locked, and
//! the lockout counter behind "locked") are here; registration, authentication and
//! comparison run the face pipeline in [`crate::face::ops`]. When the face models are not
//! installed those answer "not performed" rather than any score.


pub mod engine;
pub mod evidence;
pub mod legacy;
pub mod ops;
pub mod user;

pub use user::*;

use idv_jobs::JobHandler;
use async_trait::async_trait;
use idv_schemas::api::CusUserRequest;
use idv_schemas::jobs::{Job, Work};
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group, Operation};
use idv_store::{FaceUserRecord, Store, StoreError};
use serde_json::{json, Value};
use std::sync::Arc;


pub const MODELS_MISSING: &str =
    "the face models are not installed on this worker: run scripts/models.sh (docs/VISION.md) and restart it";

pub struct FaceHandler {
    pub store: Arc<dyn Store>,
    /// The face pipeline, when its models are installed.
    pub biometrics: Option<crate::face::ops::Biometrics>,
    /// Consecutive failed authentications that lock a user (0: never;
    /// `IDV_FACE_AUTH_MAX_FAILURES`).
    pub max_auth_failures: u32,
}

/// mix_compare_faces_sync jobs (compare topic).
pub struct CompareHandler {
    pub biometrics: Option<crate::face::ops::Biometrics>,
}

#[async_trait]
impl JobHandler for CompareHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        let Some(b) = &self.biometrics else {
            return Ok(Envelope::error(job.operation().group(), &ErrorKind::NotAvailable { reason: MODELS_MISSING.into() }));
        };
        match &job.work {
            // compare_faces_sync is the published SDK's name for the same comparison.
            Work::MixCompareFacesSync(req) | Work::CompareFacesSync(req) => b.compare(job, req).await,
            Work::VerifyFaceLivenessSync(req) => b.verify_liveness(job, req).await,
            Work::VerifyPortraitSanitySync(req) => b.verify_portrait(job, req).await,
            _ => Ok(crate::not_this_pool(job, "a comparison")),
        }
    }
}

use idv_schemas::clock::now_rfc3339 as now;


impl FaceHandler {
    /// A login refused because the user is locked, in the user's histories (result
    /// `locked`), with the request's own device, app and location.
    async fn record_refusal(&self, job: &Job, user: &FaceUserRecord) -> Result<(), StoreError> {
        use crate::face::ops::{add_history, HistoryEntry, HistoryInput};
        let req = match &job.work {
            Work::FaceAuth(req) => Some(req),
            _ => None,
        };
        let input = req.map(HistoryInput::of_auth).unwrap_or_default();
        let live = req.and_then(|r| r.faces.first()).and_then(|f| f.id.as_deref()).unwrap_or_default();
        let entry = HistoryEntry { action: "login", status: "failure", result: "locked", live_face_id: live, face_type: "", extra: Vec::new() };
        add_history(self.store.as_ref(), job, user, &input, entry).await
    }

    async fn user(&self, job: &Job, cus_user_id: &str) -> Result<Option<FaceUserRecord>, StoreError> {
        self.store.get_face_user(&job.client_id, cus_user_id).await
    }

    async fn lookup(&self, job: &Job, req: &CusUserRequest) -> Result<Envelope, StoreError> {
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
        match job.operation() {
            Operation::FaceAuthUnregister => {
                // Biometric templates are not kept for an unregistered user.
                self.store.delete_face_templates(&job.client_id, cus_user_id).await?;
                user.is_unregistered = true;
            }
            // choice: unlock clears the lock and the failure count; the spec does not state
            // other flags.
            _ => {
                user.is_locked = false;
                user.failed_auth_ids.clear();
            }
        }
        user.updated_at = now();
        self.store.put_face_user(&user).await?;
        // The id is the request id, so a redelivered job answers with the same id.
        Ok(Envelope::ok(
            Group::Face,
            json!({"status": "success", "request_id": job.request_id, id_field: job.request_id, "face_auth_user": user_json(&user)}),
        ))
    }

    async fn biometric(&self, job: &Job, cus_user_id: &str) -> Result<Envelope, StoreError> {
        let user = self.user(job, cus_user_id).await?;
        match (job.operation(), &user) {
            (Operation::FaceAuth, None) => return Ok(Envelope::error(Group::Face, &ErrorKind::FaceUserNotFound)),
            (op, Some(u)) => {
                if let Some(code) = blocking_state(u, op, &job.request_id) {
                    if code == FailureCode::FaceAuthUserLocked {
                        self.record_refusal(job, u).await?;
                    }
                    return Ok(Envelope::finished(
                        Group::Face,
                        json!({"status": "failure", "request_id": job.request_id}),
                        vec![ApiError::failure(code, code.as_str().replace('_', " "))],
                    ));
                }
            }
            _ => {}
        }
        match (&self.biometrics, &job.work, user) {
            (Some(b), Work::FaceAuthRegister(req), _) => b.register(self.store.as_ref(), job, req).await,
            (Some(b), Work::FaceAuth(req), Some(u)) => b.authenticate(self.store.as_ref(), job, req, u, self.max_auth_failures).await,
            _ => Ok(Envelope::error(Group::Face, &ErrorKind::NotAvailable { reason: MODELS_MISSING.into() })),
        }
    }
}

#[async_trait]
impl JobHandler for FaceHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
        match &job.work {
            Work::FaceAuthUser(req) => self.lookup(job, req).await,
            Work::FaceAuthUnregister(req) => self.set_flag(job, &req.cus_user_id, "unregister_id").await,
            Work::FaceAuthUnlock(req) => self.set_flag(job, &req.cus_user_id, "unlock_id").await,
            Work::FaceAuthRegister(req) => self.biometric(job, &req.cus_user_id).await,
            Work::FaceAuth(req) => self.biometric(job, &req.cus_user_id).await,
            _ => Ok(crate::not_this_pool(job, "a face")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(op: Operation, payload: Value) -> Job {
        idv_jobs::conformance::job(op, "client-a", payload)
    }

    fn user(cus: &str) -> FaceUserRecord {
        FaceUserRecord {
            face_auth_id: "img-1".into(),
            metadata: r#"{"expiry_date_face":"2027-01-01T00:00:00Z"}"#.into(),
            is_locked: true,
            ..FaceUserRecord::new("fu-1", "client-a", cus, "ak", &now())
        }
    }

    fn handler() -> FaceHandler {
        FaceHandler {
            store: Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap()),
            biometrics: None,
            max_auth_failures: 5,
        }
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
        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "u1", "faces": []}))).await.unwrap();
        assert_eq!(env.first_error_code(), Some("face_auth_user_unregistered"));
    }

    #[tokio::test]
    async fn biometric_without_models_is_not_performed_never_a_score() {
        let h = handler();
        h.store.put_face_user(&FaceUserRecord { is_locked: false, ..user("u2") }).await.unwrap();
        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "u2", "faces": []}))).await.unwrap();
        assert_eq!(env.http_status, 501);
        assert_eq!(env.body["errors"][0]["detail"]["reason"], "not_performed");
        assert!(env.body.get("data").is_some_and(|d| d.is_null()), "no score is made up");
        let env = h.handle(&job(Operation::FaceAuth, json!({"cus_user_id": "nobody", "faces": []}))).await.unwrap();
        assert_eq!(env.http_status, 404);
    }

    #[test]
    fn the_nth_consecutive_failure_locks_and_a_match_resets() {
        let mut u = FaceUserRecord { is_locked: false, ..user("u") };
        for i in 1..=2 {
            let up = record_auth_outcome(&mut u, &format!("r{i}"), true, 3);
            assert_eq!(up, LockoutUpdate { changed: true, locked_by_this: false });
        }
        // A redelivered job is not counted again.
        assert_eq!(record_auth_outcome(&mut u, "r2", true, 3), LockoutUpdate { changed: false, locked_by_this: false });
        assert_eq!(u.failed_auth_ids.len(), 2);
        // A match clears the count: two more failures do not lock.
        assert!(record_auth_outcome(&mut u, "ok", false, 3).changed);
        assert!(u.failed_auth_ids.is_empty());
        record_auth_outcome(&mut u, "r3", true, 3);
        record_auth_outcome(&mut u, "r4", true, 3);
        assert!(!u.is_locked);
        // The third in a row locks, and says so (also when redelivered).
        assert_eq!(record_auth_outcome(&mut u, "r5", true, 3), LockoutUpdate { changed: true, locked_by_this: true });
        assert!(u.is_locked);
        assert_eq!(record_auth_outcome(&mut u, "r5", true, 3), LockoutUpdate { changed: false, locked_by_this: true });
        // 0 never locks.
        let mut v = FaceUserRecord { is_locked: false, ..user("v") };
        for i in 0..20 {
            record_auth_outcome(&mut v, &format!("x{i}"), true, 0);
        }
        assert!(!v.is_locked);
    }

    #[test]
    fn a_locked_user_is_refused_except_for_the_attempt_that_locked_it() {
        let u = FaceUserRecord { failed_auth_ids: vec!["r1".into(), "r2".into()], ..user("u") };
        assert_eq!(blocking_state(&u, Operation::FaceAuth, "r3"), Some(FailureCode::FaceAuthUserLocked));
        assert_eq!(blocking_state(&u, Operation::FaceAuth, "r2"), None, "the locking job, redelivered");
        assert_eq!(blocking_state(&u, Operation::FaceAuthRegister, "r3"), None, "registration is not locked out");
        let d = FaceUserRecord { is_deactivated: true, ..u };
        assert_eq!(blocking_state(&d, Operation::FaceAuthRegister, "r3"), Some(FailureCode::FaceAuthUserDeactivated));
    }

    #[tokio::test]
    async fn a_deactivated_user_is_refused_on_authenticate_and_register() {
        let h = handler();
        h.store.put_face_user(&FaceUserRecord { is_locked: false, is_deactivated: true, ..user("u3") }).await.unwrap();
        for op in [Operation::FaceAuth, Operation::FaceAuthRegister] {
            let env = h.handle(&job(op, json!({"cus_user_id": "u3", "faces": [{"id": "img-9"}]}))).await.unwrap();
            assert_eq!((env.http_status, env.first_error_code()), (200, Some("face_auth_user_deactivated")), "{op:?}");
            assert_eq!(env.body["data"]["status"], "failure");
        }
    }

    #[tokio::test]
    async fn a_locked_refusal_is_in_the_histories_with_the_logins_own_fields_and_unlock_clears_the_count() {
        let h = handler();
        h.store.put_face_user(&FaceUserRecord { failed_auth_ids: vec!["a".into(), "b".into()], ..user("u4") }).await.unwrap();
        let refused = job(
            Operation::FaceAuth,
            json!({"cus_user_id": "u4", "faces": [{"id": "img-7"}], "device_id": "phone-2", "app_id": "app-2", "lat": 1.5, "lng": 2.5,
                   "auth_type": "payment", "client_transaction_id": "tx-9", "metadata": {"k": "v"}}),
        );
        let env = h.handle(&refused).await.unwrap();
        assert_eq!(env.first_error_code(), Some("face_auth_user_locked"));
        let env = h.handle(&job(Operation::FaceAuthUser, json!({"cus_user_id": "u4"}))).await.unwrap();
        let hist = &env.body["data"]["histories"][0];
        assert_eq!((hist["id"].as_str(), hist["status"].as_str(), hist["result"].as_str()), (Some(refused.request_id.as_str()), Some("failure"), Some("locked")));
        assert_eq!((hist["device_id"].as_str(), hist["app_id"].as_str()), (Some("phone-2"), Some("app-2")));
        assert_eq!((hist["latitude"].as_f64(), hist["longitude"].as_f64()), (Some(1.5), Some(2.5)));
        assert_eq!((hist["auth_type"].as_str(), hist["client_transaction_id"].as_str()), (Some("payment"), Some("tx-9")));
        assert_eq!((hist["live_face_id"].as_str(), hist["metadata"]["k"].as_str()), (Some("img-7"), Some("v")));

        h.handle(&job(Operation::FaceAuthUnlock, json!({"cus_user_id": "u4"}))).await.unwrap();
        let u = h.store.get_face_user("client-a", "u4").await.unwrap().unwrap();
        assert!(!u.is_locked && u.failed_auth_ids.is_empty(), "unlock clears the lock and the count");
    }
}
