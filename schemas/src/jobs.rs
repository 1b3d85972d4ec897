//! What travels on the bus: jobs (ingest → workers) and results (workers → ingest).
//! Both carry a schema version so data teams replaying a topic know what they read.

use crate::envelope::Envelope;
use crate::ops::Operation;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const JOB_SCHEMA_VERSION: u32 = 1;
pub const RESULT_SCHEMA_VERSION: u32 = 1;

/// A unit of work. `payload` is the validated request with inline media already moved to
/// blobs (references only), so a job is small and safe to replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub schema_version: u32,
    pub request_id: String,
    pub operation: Operation,
    pub client_id: String,
    pub access_key_id: String,
    /// The ingest instance waiting for the result (results are routed back by it).
    pub reply_to: String,
    /// RFC 3339.
    pub created_at: String,
    pub payload: Value,
}

impl Job {
    /// Partition key: all jobs of one (client, customer user) land on one partition, so
    /// one consumer at a time changes that user's state, in order.
    pub fn partition_key(client_id: &str, subject: &str) -> Vec<u8> {
        let mut k = Vec::with_capacity(client_id.len() + subject.len() + 1);
        k.extend_from_slice(client_id.as_bytes());
        k.push(0);
        k.extend_from_slice(subject.as_bytes());
        k
    }
}

/// A finished job's response, routed back to the waiting ingest instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub schema_version: u32,
    pub request_id: String,
    pub reply_to: String,
    pub envelope: Envelope,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_round_trips_through_json() {
        let job = Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: "r".into(),
            operation: Operation::FaceAuthUser,
            client_id: "c".into(),
            access_key_id: "k".into(),
            reply_to: "i".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            payload: serde_json::json!({"cus_user_id": "u"}),
        };
        let bytes = serde_json::to_vec(&job).unwrap();
        assert_eq!(serde_json::from_slice::<Job>(&bytes).unwrap(), job);
        assert!(String::from_utf8(bytes).unwrap().contains("\"operation\":\"face_auth_user\""));
    }

    #[test]
    fn partition_key_separates_client_and_user() {
        assert_ne!(Job::partition_key("ab", "c"), Job::partition_key("a", "bc"));
    }
}
