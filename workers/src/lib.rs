//! Worker pools. A pool consumes one job topic in the group `idv-workers-<topic>` and runs
//! each job through a [`JobHandler`]; the job runtime (`idv_jobs::runtime`) owns the
//! at-least-once discipline (result durably stored, then sent back, then the offset
//! committed).
//!
//! Handlers here: [`face`] (face-authentication users, comparison), [`card`] (card
//! reading and, through [`card::ekyc`], the eKYC full check), [`sim`] (SIM verification through
//! operators' CAMARA APIs). What a handler cannot do in a deployment it answers "not
//! performed" (`ErrorKind::NotAvailable`), never with a made-up verdict.

pub mod card;
pub mod face;
pub mod sim;

pub use idv_jobs::{JobHandler, WorkerDeps};

/// A job of another topic's operation, delivered to this pool (misrouted by hand: ingest
/// publishes by the operation table).
pub fn not_this_pool(job: &idv_schemas::jobs::Job, what: &str) -> idv_schemas::Envelope {
    let op = job.operation();
    idv_schemas::Envelope::error(op.group(), &idv_schemas::ErrorKind::internal(format!("{} is not {what} job", op.name())))
}


#[cfg(test)]
mod conformance_tests;

/// Runs a vision job with its client named to the vision pool, which grants its slots
/// fairly between clients (`idv_vision::pool`): one client's heavy jobs do not starve
/// another's. Wraps the face, compare and card handlers (not the SIM one: no vision).
pub struct FairVision<H>(pub H);

#[async_trait::async_trait]
impl<H: JobHandler> JobHandler for FairVision<H> {
    async fn handle(&self, job: &idv_schemas::jobs::Job) -> Result<idv_schemas::Envelope, idv_store::StoreError> {
        idv_vision::pool::CLIENT.scope(job.client_id.clone(), self.0.handle(job)).await
    }
}

#[cfg(test)]
mod fair_vision_tests {
    use super::*;
    use idv_schemas::{Envelope, Group, Operation};

    /// Answers with the client the vision pool would see.
    struct SeenClient;

    #[async_trait::async_trait]
    impl JobHandler for SeenClient {
        async fn handle(&self, _: &idv_schemas::jobs::Job) -> Result<Envelope, idv_store::StoreError> {
            let seen = idv_vision::pool::CLIENT.try_with(String::clone).ok();
            Ok(Envelope::ok(Group::Face, serde_json::json!({ "client": seen })))
        }
    }

    #[tokio::test]
    async fn the_vision_pool_sees_the_jobs_client() {
        let job = idv_jobs::conformance::job(Operation::FaceAuthUser, "client-b", serde_json::json!({"cus_user_id": "u"}));
        let bare = SeenClient.handle(&job).await.expect("handled");
        assert!(bare.body["data"]["client"].is_null(), "{}", bare.body);
        let fair = FairVision(SeenClient).handle(&job).await.expect("handled");
        assert_eq!(fair.body["data"]["client"], "client-b", "{}", fair.body);
    }
}
