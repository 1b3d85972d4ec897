//! The honest answer for a capability whose engine is not in this build: HTTP 500
//! `internal_server_error` with `detail.reason = "not_performed"`, never a made-up verdict.

use crate::runtime::JobHandler;
use async_trait::async_trait;
use idv_schemas::jobs::Job;
use idv_schemas::{Envelope, ErrorKind};

pub struct Unavailable {
    pub reason: &'static str,
}

#[async_trait]
impl JobHandler for Unavailable {
    async fn handle(&self, job: &Job) -> Result<Envelope, idv_store::StoreError> {
        Ok(Envelope::error(job.operation.group(), &ErrorKind::NotAvailable { reason: self.reason.to_string() }))
    }
}
