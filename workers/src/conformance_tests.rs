//! The handler conformance suite (`idv_jobs::conformance`) on the workers' handlers.

#[allow(clippy::unwrap_used)]
mod tests {
    //! The suite on the workers' handlers as a deployment without face models runs them
    //! (the user-state operations, and "not performed" answers). `tests/` runs it on the
    //! SIM handler against its operator simulator, the scorer on `BehaviorHandler`.
    use crate::card::CardHandler;
    use crate::face::{CompareHandler, FaceHandler};
    use async_trait::async_trait;
    use idv_jobs::conformance::*;
    use idv_jobs::JobHandler;
    use idv_schemas::jobs::Job;
    use idv_schemas::{Envelope, Operation};
    use idv_store::{Store, StoreError};
    use serde_json::{json, Value};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn job(op: Operation, payload: Value) -> Job {
        idv_jobs::conformance::job(op, "client-a", payload)
    }

    fn sqlite() -> Arc<dyn Store> {
        Arc::new(idv_store::sqlite::SqliteStore::open_url("sqlite::memory:").unwrap())
    }

    #[tokio::test]
    async fn face_handler_conforms() {
        let store = sqlite();
        // A registered user, as registration leaves it (written directly: no models here).
        let user = idv_store::FaceUserRecord {
            face_auth_id: "img-1".into(),
            is_locked: true,
            ..idv_store::FaceUserRecord::new("fu-1", "client-a", "u1", "ak", "2026-11-23T00:00:00Z")
        };
        store.put_face_user(&user).await.unwrap();
        let handler: Arc<dyn JobHandler> = Arc::new(FaceHandler { store: store.clone(), biometrics: None, max_auth_failures: 5 });
        let cases = vec![
            Case::new("face_auth_user, registered", job(Operation::FaceAuthUser, json!({"cus_user_id": "u1"}))),
            Case::new("face_auth_user, unknown", job(Operation::FaceAuthUser, json!({"cus_user_id": "nobody"}))),
            Case::new("face_auth, locked", job(Operation::FaceAuth, json!({"cus_user_id": "u1", "faces": [{"id": "img-2"}]}))),
            Case::new("face_auth_unlock", job(Operation::FaceAuthUnlock, json!({"cus_user_id": "u1"}))),
            Case::new("face_auth, no models", job(Operation::FaceAuth, json!({"cus_user_id": "u1", "faces": [{"id": "img-2"}]}))),
            Case::new("face_auth_unlock, unknown", job(Operation::FaceAuthUnlock, json!({"cus_user_id": "nobody"}))),
            Case::new("face_auth_unregister", job(Operation::FaceAuthUnregister, json!({"cus_user_id": "u1"}))),
        ];
        let probe = store.clone();
        run_suite(handler, store, cases, move || {
            let store = probe.clone();
            async move {
                let user = store.get_face_user("client-a", "u1").await.unwrap().map(|u| stable(&serde_json::to_value(u).unwrap()));
                let histories = store.list_face_histories("client-a", "u1", 100).await.unwrap().len();
                let templates = store.list_face_templates("client-a", "u1").await.unwrap().len();
                format!("{user:?} {histories} {templates}")
            }
        })
        .await;
    }

    /// A handler whose answer counts its runs: what a non-idempotent handler looks like.
    struct RunCounter(AtomicUsize);

    #[async_trait]
    impl JobHandler for RunCounter {
        async fn handle(&self, job: &Job) -> Result<Envelope, StoreError> {
            let n = self.0.fetch_add(1, Ordering::SeqCst);
            Ok(Envelope::ok(idv_schemas::Group::Face, json!({"status": "success", "request_id": job.request_id, "run": n})))
        }
    }

    #[tokio::test]
    #[should_panic(expected = "answer changed on a repeat")]
    async fn the_suite_catches_a_handler_that_answers_differently() {
        let handler: Arc<dyn JobHandler> = Arc::new(RunCounter(AtomicUsize::new(0)));
        let cases = vec![Case::new("counter", job(Operation::FaceAuthUser, json!({"cus_user_id": "u"})))];
        run_suite(handler, sqlite(), cases, || async { String::new() }).await;
    }

    #[tokio::test]
    async fn compare_and_card_handlers_conform() {
        let store = sqlite();
        let dir = std::env::temp_dir().join(format!("idv-conformance-{}", uuid::Uuid::new_v4()));
        let blobs = idv_store::blobs::open(&format!("file://{}", dir.display())).unwrap();
        let compare: Arc<dyn JobHandler> = Arc::new(CompareHandler { biometrics: None });
        let image = json!({"id": "missing-image"});
        let cases = vec![Case::new("mix_compare_faces_sync, no models", job(Operation::MixCompareFacesSync, json!({"image1": image, "image2": image})))];
        run_suite(compare, store.clone(), cases, || async { String::new() }).await;
        let card: Arc<dyn JobHandler> = Arc::new(CardHandler { blobs, biometrics: None, aadhaar_keys: None, ocr: None, store: None });
        let cases = vec![
            Case::new("read card, image missing", job(Operation::ReadIdCardInfoWithSanity, json!({"card_type": "vn.national_id", "image1": image}))),
            Case::new("read card, type without a reader", job(Operation::ReadIdCardInfoWithSanity, json!({"card_type": "in.pan", "image1": image}))),
            Case::new("read passport, no OCR in this build", job(Operation::ReadIdCardInfoWithSanity, json!({"card_type": "in.passport", "image1": image}))),
        ];
        run_suite(card, store, cases, || async { String::new() }).await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}
