//! What travels on the bus: jobs (ingest → workers) and results (workers → ingest).
//! Both carry a schema version so data teams replaying a topic know what they read.
//!
//! A job's payload is typed by its operation ([`Work`]): decoded once, where a job is
//! read ([`Job::decode`]), so handlers match on a variant instead of re-parsing JSON. The
//! JSON on the bus is the same as before the payload was typed (`operation` beside
//! `payload`), so recorded topics stay readable: `testdata/jobs-v1.jsonl` holds jobs
//! recorded from a running ingest, decoded by this module's tests. JSON Schemas of both
//! envelopes are generated from these types ([`topic_schemas`]) and checked in under
//! `schemas/topics/`.

use crate::api::{
    BehaviorScoreRequest, CusUserRequest, EkycFullChecksRequest, FaceAuthRegisterRequest, FaceAuthRequest,
    FaceAuthUnregisterRequest, MixCompareFacesRequest, ReadIdCardRequest, RegisterDeviceRequest, SimSendOtpRequest,
    SimVerifyInfoRequest, SimVerifyOtpRequest, SingleImageRequest, VerifyFaceLivenessRequest,
};
use crate::envelope::Envelope;
use crate::ops::Operation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub const JOB_SCHEMA_VERSION: u32 = 1;
pub const RESULT_SCHEMA_VERSION: u32 = 1;

/// A unit of work. The payload is the validated request with inline media already moved
/// to blobs (references only), so a job is small and safe to replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub schema_version: u32,
    pub request_id: String,
    pub client_id: String,
    pub access_key_id: String,
    /// The ingest instance waiting for the result (results are routed back by it).
    pub reply_to: String,
    /// RFC 3339.
    pub created_at: String,
    /// What to do; its variant is the job's operation.
    pub work: Work,
}

/// A create_challenge job: the session the device named, and the device ingest
/// authenticated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreateChallengeJob {
    pub session_id: String,
    pub customer_user_device_id: String,
}

/// A push_event_batch job: the decrypted batch, with the challenge from the
/// `X-Challenge-ID` header and the device ingest authenticated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PushBatchJob {
    pub challenge_id: String,
    pub customer_user_device_id: String,
    pub nonce: String,
    /// Absent: the next in the chain (docs/BEHAVIOR_PROTOCOL.md).
    pub seq: Option<i64>,
    /// Empty for the first batch of a challenge.
    pub prev_batch_hash: String,
    pub batch_hash: String,
    /// The batch's `data` object as the exact text the device sent: the batch hash covers
    /// these bytes, not a re-serialization.
    pub data_raw: String,
}

/// A request that is personal data as a whole (SIM verification: phone numbers, OTP
/// codes, KYC statements). Ingest publishes it sealed; a job recorded before sealing
/// existed (or by a test) may be plain. Opening needs the master key:
/// `idv_crypto::sealed::open_job_payload`, bound to the job's request id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Personal<T> {
    Sealed {
        /// `sealed:v1:<base64>`: AES-GCM under the master key, the request id as AAD.
        sealed_payload: String,
    },
    Plain(T),
}

/// Why bytes read off a job topic are not a job.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JobDecodeError {
    /// Not even the envelope reads: nobody can be answered.
    #[error("unreadable job: {0}")]
    Envelope(String),
    /// The envelope reads, its payload does not fit its operation: the request can be
    /// answered (with an internal error), then skipped.
    #[error("job {request_id} ({}): payload unreadable: {message}", operation.name())]
    Payload { request_id: String, reply_to: String, operation: Operation, message: String },
    /// An operation that ingest answers itself never travels as a job.
    #[error("job {request_id}: {} has no job payload", operation.name())]
    NoJob { request_id: String, reply_to: String, operation: Operation },
}

macro_rules! work {
    ($($op:ident($t:ty)),* $(,)?) => {
        /// The work of a job, tagged by its operation: one variant per operation that
        /// travels on a job topic, carrying that operation's payload type.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Work { $($op($t)),* }

        /// The payload alone, as the variant's type serializes it (the operation travels
        /// beside it in the envelope).
        impl Serialize for Work {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self { $(Work::$op(p) => p.serialize(serializer)),* }
            }
        }

        impl Work {
            pub fn operation(&self) -> Operation {
                match self { $(Work::$op(_) => Operation::$op),* }
            }

            /// The payload of `operation` read from `payload` (a `serde_json::Value`, or
            /// a deserializer over the bytes off the topic), or `Ok(None)` for an
            /// operation without jobs.
            pub fn decode<'de, D: serde::Deserializer<'de>>(operation: Operation, payload: D) -> Result<Option<Work>, D::Error> {
                Ok(Some(match operation {
                    $(Operation::$op => Work::$op(<$t>::deserialize(payload)?),)*
                    _ => return Ok(None),
                }))
            }

            /// Each operation with jobs and its payload's schema.
            fn payload_schemas(generator: &mut schemars::SchemaGenerator) -> Vec<(Operation, schemars::Schema)> {
                vec![$((Operation::$op, generator.subschema_for::<$t>())),*]
            }
        }
    };
}

work! {
    FaceAuthRegister(FaceAuthRegisterRequest),
    FaceAuth(FaceAuthRequest),
    FaceAuthUser(CusUserRequest),
    FaceAuthUnlock(CusUserRequest),
    FaceAuthUnregister(FaceAuthUnregisterRequest),
    MixCompareFacesSync(MixCompareFacesRequest),
    CompareFacesSync(MixCompareFacesRequest),
    VerifyFaceLivenessSync(VerifyFaceLivenessRequest),
    VerifyPortraitSanitySync(SingleImageRequest),
    ReadIdCardInfoWithSanity(ReadIdCardRequest),
    ReadIdCardInfoSync(ReadIdCardRequest),
    VerifyIdCardSanitySync(ReadIdCardRequest),
    DetectIdCardTamperingSync(SingleImageRequest),
    EkycFullChecks(EkycFullChecksRequest),
    SimSendOtp(Personal<SimSendOtpRequest>),
    SimVerifyOtp(Personal<SimVerifyOtpRequest>),
    SimVerifyInfo(Personal<SimVerifyInfoRequest>),
    RegisterDevice(RegisterDeviceRequest),
    CreateChallenge(CreateChallengeJob),
    PushEventBatch(PushBatchJob),
    BehaviorScore(BehaviorScoreRequest),
}

/// A job as it is on the topic. The payload is kept as the raw text and read once into
/// its operation's type; the envelope fields still answer the request when it cannot be.
#[derive(Deserialize)]
struct WireJob<'a> {
    schema_version: u32,
    request_id: String,
    operation: Operation,
    client_id: String,
    access_key_id: String,
    reply_to: String,
    created_at: String,
    #[serde(borrow)]
    payload: &'a serde_json::value::RawValue,
}

#[derive(Serialize)]
struct WireJobOut<'a> {
    schema_version: u32,
    request_id: &'a str,
    operation: Operation,
    client_id: &'a str,
    access_key_id: &'a str,
    reply_to: &'a str,
    created_at: &'a str,
    payload: &'a Work,
}

impl Job {
    pub fn operation(&self) -> Operation {
        self.work.operation()
    }

    /// Read a job off a topic.
    pub fn decode(bytes: &[u8]) -> Result<Job, JobDecodeError> {
        let wire: WireJob<'_> = serde_json::from_slice(bytes).map_err(|e| JobDecodeError::Envelope(e.to_string()))?;
        let WireJob { schema_version, request_id, operation, client_id, access_key_id, reply_to, created_at, payload } = wire;
        match Work::decode(operation, &mut serde_json::Deserializer::from_str(payload.get())) {
            Ok(Some(work)) => Ok(Job { schema_version, request_id, client_id, access_key_id, reply_to, created_at, work }),
            Ok(None) => Err(JobDecodeError::NoJob { request_id, reply_to, operation }),
            Err(e) => Err(JobDecodeError::Payload { request_id, reply_to, operation, message: e.to_string() }),
        }
    }

    /// The bytes published for this job.
    pub fn encode(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(&WireJobOut {
            schema_version: self.schema_version,
            request_id: &self.request_id,
            operation: self.operation(),
            client_id: &self.client_id,
            access_key_id: &self.access_key_id,
            reply_to: &self.reply_to,
            created_at: &self.created_at,
            payload: &self.work,
        })
    }

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobResult {
    pub schema_version: u32,
    pub request_id: String,
    pub reply_to: String,
    pub envelope: Envelope,
}

impl JsonSchema for Job {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Job".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let string = json!({"type": "string"});
        let variants: Vec<Value> = Work::payload_schemas(generator)
            .into_iter()
            .map(|(op, payload)| {
                json!({
                    "properties": {"operation": {"const": serde_json::to_value(op).unwrap_or(Value::Null)}, "payload": payload},
                })
            })
            .collect();
        // In a job, inline media are already blobs: an image is an `id`, with the label
        // and metadata it was sent with (a combination the request schema refuses).
        if let Some(Value::Object(image)) = generator.definitions_mut().get_mut("ImageData") {
            image.remove("oneOf");
            image.insert("required".into(), json!(["id"]));
            image.insert("not".into(), json!({"required": ["base64"]}));
            image.insert("description".into(), json!("An image in a job: the blob `id` (ingest stored inline base64 as a blob), with the label and metadata sent with it."));
        }
        for def in generator.definitions_mut().values_mut() {
            drop_inline_media_requirements(def);
        }
        let schema = json!({
            "description": "A job on an idv.jobs.* topic: the request of `operation`, media as blob ids. The payload's shape is chosen by `operation`.",
            "type": "object",
            "required": ["schema_version", "request_id", "operation", "client_id", "access_key_id", "reply_to", "created_at", "payload"],
            "properties": {
                "schema_version": {"type": "integer", "const": JOB_SCHEMA_VERSION},
                "request_id": string,
                "operation": {"type": "string"},
                "client_id": string,
                "access_key_id": {"type": "string", "description": "The access key, `device:<customer_user_device_id>` or `jwt:<token id>`."},
                "reply_to": {"type": "string", "description": "The ingest instance awaiting the result."},
                "created_at": {"type": "string", "format": "date-time"},
                "payload": {},
            },
            "oneOf": variants,
        });
        schemars::Schema::try_from(schema).unwrap_or_default()
    }
}

/// A request may insist on inline media (`{"$ref": ImageData, "required": ["base64"]}`,
/// the eKYC card front); in its job the image is a blob id like every other.
fn drop_inline_media_requirements(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let image_ref = map.get("$ref").and_then(Value::as_str).is_some_and(|r| r.ends_with("/ImageData"));
            if image_ref && map.get("required") == Some(&json!(["base64"])) {
                map.remove("required");
            }
            map.values_mut().for_each(drop_inline_media_requirements);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_inline_media_requirements),
        _ => {}
    }
}

/// The JSON Schemas of the topics' messages, by file name under `schemas/topics/`
/// (the schema version in the name: a new version is a new file, old ones stay).
pub fn topic_schemas() -> Vec<(String, Value)> {
    let to_value = |s: schemars::Schema| serde_json::to_value(s).unwrap_or(Value::Null);
    vec![
        (format!("job.v{JOB_SCHEMA_VERSION}.schema.json"), to_value(schemars::schema_for!(Job))),
        (format!("result.v{RESULT_SCHEMA_VERSION}.schema.json"), to_value(schemars::schema_for!(JobResult))),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const RECORDED: &str = include_str!("../testdata/jobs-v1.jsonl");

    fn job(work: Work) -> Job {
        Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: "r".into(),
            client_id: "c".into(),
            access_key_id: "k".into(),
            reply_to: "i".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            work,
        }
    }

    #[test]
    fn job_round_trips_through_json() {
        let job = job(Work::FaceAuthUser(CusUserRequest { cus_user_id: "u".into() }));
        let bytes = job.encode().unwrap();
        assert_eq!(Job::decode(&bytes).unwrap(), job);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains("\"operation\":\"face_auth_user\""), "{text}");
        assert!(text.contains("\"payload\":{\"cus_user_id\":\"u\"}"), "{text}");
    }

    /// Jobs recorded from a running ingest before the payload was typed (every
    /// operation that has jobs): each decodes, to its operation's variant, and encodes
    /// back to the same JSON value.
    #[test]
    fn recorded_jobs_of_every_operation_decode_and_encode_back_unchanged() {
        let mut seen = std::collections::HashSet::new();
        for line in RECORDED.lines().filter(|l| !l.trim().is_empty()) {
            let job = Job::decode(line.as_bytes()).unwrap_or_else(|e| panic!("{e}: {line}"));
            let original: Value = serde_json::from_str(line).unwrap();
            assert_eq!(original["operation"], serde_json::to_value(job.operation()).unwrap());
            let again: Value = serde_json::from_slice(&job.encode().unwrap()).unwrap();
            assert_eq!(again, original, "{}", job.operation().name());
            seen.insert(job.operation());
        }
        for op in Operation::ALL.iter().filter(|op| op.topic().is_some()) {
            assert!(seen.contains(op), "no recorded job of {}", op.name());
        }
        // The SIM jobs were recorded sealed.
        assert!(RECORDED.lines().filter(|l| l.contains("\"sim_")).all(|l| l.contains("\"sealed_payload\":\"sealed:v1:")));
    }

    #[test]
    fn recorded_results_decode_and_encode_back_unchanged() {
        let recorded = include_str!("../testdata/results-v1.jsonl");
        for line in recorded.lines().filter(|l| !l.trim().is_empty()) {
            let result: JobResult = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            assert_eq!(serde_json::to_value(&result).unwrap(), serde_json::from_str::<Value>(line).unwrap());
        }
        assert!(recorded.lines().count() >= RECORDED.lines().count());
    }

    #[test]
    fn every_operation_with_a_topic_has_a_job_payload_and_no_other() {
        for op in Operation::ALL.iter().copied() {
            let decoded = Work::decode(op, json!({}));
            match op.topic() {
                // `{}` is not a valid payload of any of them: the type was tried.
                Some(_) => assert!(decoded.is_err(), "{}", op.name()),
                None => assert!(matches!(decoded, Ok(None)), "{}", op.name()),
            }
        }
    }

    #[test]
    fn a_payload_that_does_not_fit_its_operation_still_names_its_request() {
        let text = r#"{"schema_version":1,"request_id":"r-9","operation":"face_auth","client_id":"c","access_key_id":"k","reply_to":"i-1","created_at":"t","payload":{"cus_user_id":7}}"#;
        match Job::decode(text.as_bytes()) {
            Err(JobDecodeError::Payload { request_id, reply_to, operation, .. }) => {
                assert_eq!((request_id.as_str(), reply_to.as_str(), operation), ("r-9", "i-1", Operation::FaceAuth))
            }
            other => panic!("{other:?}"),
        }
        let upload = text.replace("\"face_auth\"", "\"upload_image\"");
        assert!(matches!(Job::decode(upload.as_bytes()), Err(JobDecodeError::NoJob { .. })));
        assert!(matches!(Job::decode(b"{\"request_id\":\"r\"}"), Err(JobDecodeError::Envelope(_))));
        assert!(matches!(Job::decode(b"\xff"), Err(JobDecodeError::Envelope(_))));
    }

    #[test]
    fn personal_payloads_read_sealed_or_plain() {
        let sealed: Personal<SimSendOtpRequest> = serde_json::from_value(json!({"sealed_payload": "sealed:v1:AA"})).unwrap();
        assert_eq!(sealed, Personal::Sealed { sealed_payload: "sealed:v1:AA".into() });
        let plain: Personal<SimSendOtpRequest> = serde_json::from_value(json!({"phone_number": "0981234567"})).unwrap();
        assert!(matches!(plain, Personal::Plain(r) if r.phone_number == "0981234567"));
    }

    /// The checked-in topic schemas are the ones the types generate: a change to a job
    /// type shows up as a diff under schemas/topics/ (regenerate with
    /// `IDV_BLESS_SCHEMAS=1 cargo test -p idv-schemas`), and a new schema version as a
    /// new file beside the old ones.
    #[test]
    fn checked_in_topic_schemas_match_the_types() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("topics");
        for (name, schema) in topic_schemas() {
            let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
            let path = dir.join(&name);
            if std::env::var_os("IDV_BLESS_SCHEMAS").is_some() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &text).unwrap();
            }
            let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(on_disk == text, "{} differs from the types; regenerate it (see this test's comment)", path.display());
        }
    }

    /// Every recorded job validates against the generated job schema where it says
    /// most: its operation is one the schema lists, with a payload schema.
    #[test]
    fn the_job_schema_names_every_recorded_operation() {
        let schema = serde_json::to_value(schemars::schema_for!(Job)).unwrap();
        let listed: Vec<&Value> = schema["oneOf"].as_array().unwrap().iter().map(|v| &v["properties"]["operation"]["const"]).collect();
        for line in RECORDED.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            assert!(listed.contains(&&v["operation"]), "{}", v["operation"]);
        }
        assert_eq!(listed.len(), Operation::ALL.iter().filter(|op| op.topic().is_some()).count());
    }

    #[test]
    fn partition_key_separates_client_and_user() {
        assert_ne!(Job::partition_key("ab", "c"), Job::partition_key("a", "bc"));
    }
}
