//! The operation table: every operation's path, error group, auth scheme and the bus topic
//! its jobs go to. Routing, auth, OpenAPI and workers all read this one table.

use crate::error::Group;
use serde::{Deserialize, Serialize};

/// Job families, one bus topic each (plus the results topic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    Behavior,
    Face,
    Card,
    Compare,
    Sim,
    Results,
}

impl Topic {
    pub const JOBS: [Topic; 5] = [Topic::Behavior, Topic::Face, Topic::Card, Topic::Compare, Topic::Sim];
    pub const ALL: [Topic; 6] =
        [Topic::Behavior, Topic::Face, Topic::Card, Topic::Compare, Topic::Sim, Topic::Results];

    /// The topic name on the bus (Kafka topic names are these strings).
    pub fn name(self) -> &'static str {
        match self {
            Topic::Behavior => "idv.jobs.behavior",
            Topic::Face => "idv.jobs.face",
            Topic::Card => "idv.jobs.card",
            Topic::Compare => "idv.jobs.compare",
            Topic::Sim => "idv.jobs.sim",
            Topic::Results => "idv.results",
        }
    }

    pub fn from_name(name: &str) -> Option<Topic> {
        Topic::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// How a caller proves who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthScheme {
    /// `Authorization: TV <access_key_id>:<signature>` (HMAC-SHA256).
    AccessKey,
    /// `Authorization: TV <customer_user_device_id>:<encrypted_secret_key>:<signature>` + E2E.
    CustomerUserDevice,
    /// JWT bearer token (deprecated eKYC full check).
    Jwt,
}

macro_rules! operations {
    ($d:tt $($variant:ident => ($path:literal, $group:ident, $auth:ident, $topic:expr, $request:ty)),* $(,)?) => {
        /// Every operation the service answers.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Operation { $($variant),* }

        impl Operation {
            pub const ALL: &'static [Operation] = &[$(Operation::$variant),*];
            /// Path without the optional `/api` prefix.
            pub fn path(self) -> &'static str { match self { $(Operation::$variant => $path),* } }
            pub fn group(self) -> Group { match self { $(Operation::$variant => Group::$group),* } }
            pub fn auth(self) -> AuthScheme { match self { $(Operation::$variant => AuthScheme::$auth),* } }
            /// The job topic, or `None` when ingest answers by itself (uploads, polling).
            pub fn topic(self) -> Option<Topic> { match self { $(Operation::$variant => $topic),* } }
            /// The JSON Schema of the request body (the type the router parses; for the
            /// device operations, the plaintext inside the encrypted envelope).
            pub fn request_schema(self) -> schemars::Schema {
                match self { $(Operation::$variant => schemars::schema_for!($request)),* }
            }
        }

        /// Runs `$body` with `$T` bound to the request type of the operation `$op` (from the
        /// operation table): the router's dispatch is generated from the table, so an
        /// operation cannot be added without saying what its body is.
        /// `with_request_type!(op, R => handle::<R>(...).await)`.
        #[macro_export]
        macro_rules! with_request_type {
            ($d op:expr, $d T:ident => $d body:expr) => {
                match $d op {
                    $($crate::ops::Operation::$variant => {
                        #[allow(unused_qualifications)]
                        type $d T = $request;
                        $d body
                    })*
                }
            };
        }
    };
}

use crate::api::*;

operations! {
    $
    FaceAuthRegister => ("/v1/face_auth_register", Face, AccessKey, Some(Topic::Face), FaceAuthRegisterRequest),
    FaceAuth => ("/v1/face_auth", Face, AccessKey, Some(Topic::Face), FaceAuthRequest),
    FaceAuthUser => ("/v1/face_auth_user", Face, AccessKey, Some(Topic::Face), CusUserRequest),
    FaceAuthUnregister => ("/v1/face_auth_unregister", Face, AccessKey, Some(Topic::Face), FaceAuthUnregisterRequest),
    FaceAuthUnlock => ("/v1/face_auth_unlock", Face, AccessKey, Some(Topic::Face), CusUserRequest),
    MixCompareFacesSync => ("/v1/mix_compare_faces_sync", CompareCard, AccessKey, Some(Topic::Compare), MixCompareFacesRequest),
    ReadIdCardInfoWithSanity => ("/v1/read_id_card_info_with_sanity", CompareCard, AccessKey, Some(Topic::Card), ReadIdCardRequest),
    EkycFullChecks => ("/portal/ekyc/full_checks", Ekyc, Jwt, Some(Topic::Card), EkycFullChecksRequest),
    SimSendOtp => ("/v1/sim_verification_send_otp", Sim, AccessKey, Some(Topic::Sim), SimSendOtpRequest),
    SimVerifyOtp => ("/v1/sim_verification_verify_otp", Sim, AccessKey, Some(Topic::Sim), SimVerifyOtpRequest),
    SimVerifyInfo => ("/v1/sim_verification_verify_info", Sim, AccessKey, Some(Topic::Sim), SimVerifyInfoRequest),
    RegisterDevice => ("/v1/register_device", Behavior, AccessKey, Some(Topic::Behavior), RegisterDeviceRequest),
    CreateChallenge => ("/v1/behavior/create_challenge", Behavior, CustomerUserDevice, Some(Topic::Behavior), CreateChallengeRequest),
    PushEventBatch => ("/v1/behavior/push_event_batch", Behavior, CustomerUserDevice, Some(Topic::Behavior), PushEventBatchRequest),
    BehaviorScore => ("/v1/behavior/score", Behavior, AccessKey, Some(Topic::Behavior), BehaviorScoreRequest),
    // Referenced by the spec, shapes not shown: see docs/API.md.
    UploadImage => ("/v1/upload_image", Face, AccessKey, None, UploadImageRequest),
    UploadFile => ("/v1/upload_file", Face, AccessKey, None, UploadFileRequest),
    GetRequestResult => ("/v1/get_request_result", Face, AccessKey, None, GetRequestResultRequest),
    // The published TrustVision SDK's operations that map onto what idv does
    // (docs/API.md "TrustVision SDK compatibility"). Multipart uploads answer in ingest.
    Images => ("/v1/images", Face, AccessKey, None, MultipartUpload),
    Files => ("/v1/files", Face, AccessKey, None, MultipartUpload),
    CompareFacesSync => ("/v1/compare_faces_sync", CompareCard, AccessKey, Some(Topic::Compare), MixCompareFacesRequest),
    ReadIdCardInfoSync => ("/v1/read_id_card_info_sync", CompareCard, AccessKey, Some(Topic::Card), ReadIdCardRequest),
    VerifyFaceLivenessSync => ("/v1/verify_face_liveness_sync", CompareCard, AccessKey, Some(Topic::Compare), VerifyFaceLivenessRequest),
    VerifyPortraitSanitySync => ("/v1/verify_portrait_sanity_sync", CompareCard, AccessKey, Some(Topic::Compare), SingleImageRequest),
    VerifyIdCardSanitySync => ("/v1/verify_id_card_sanity_sync", CompareCard, AccessKey, Some(Topic::Card), ReadIdCardRequest),
    DetectIdCardTamperingSync => ("/v1/detect_id_card_tampering_sync", CompareCard, AccessKey, Some(Topic::Card), SingleImageRequest),
}

impl Operation {
    /// Whether a job of this operation has a request record: written by ingest before the
    /// job is published, completed by the worker (first completion wins), read by
    /// `get_request_result`, by ingest when the bus result does not arrive, and by the
    /// job runtime to re-send instead of redo a redelivered job.
    ///
    /// A push has none: its answer is the device's (never pollable), and its effect is
    /// idempotent without one, because each batch in the chain keeps the request id
    /// that appended it (the scorer and ingest's fallback read that instead). Skipping
    /// the record saves three of a push's seven store round trips.
    pub fn recorded(self) -> bool {
        !matches!(self, Operation::PushEventBatch)
    }

    /// Whether the whole request and its answer are personal data (SIM: phone numbers, OTP
    /// codes, KYC statements): the job travels sealed (`seal_job_payload`), its partition
    /// key is an HMAC of the number, and the answer's body is sealed on the results topic
    /// and in the request store (`seal_answer_body`), opened only by ingest.
    pub fn personal(self) -> bool {
        matches!(self, Operation::SimSendOtp | Operation::SimVerifyOtp | Operation::SimVerifyInfo)
    }
}

/// SDK operations with no counterpart in idv: answered 501 `not_supported` (after
/// authentication), never a bare 404. Paths without the optional `/api` prefix.
pub const UNSUPPORTED_SDK_PATHS: &[&str] = &[
    "/v1/search_faces_sync",
    "/v1/index_faces_sync",
    "/v1/delete_faces",
    "/v1/detect_faces_sync",
    "/v1/convert_pdf_sync",
    "/v1/ekyc_pdf",
    "/v1/transactions",
    "/v1/client_settings",
];

impl Operation {
    pub fn name(self) -> &'static str {
        self.path().rsplit('/').next().unwrap_or("unknown")
    }

    /// Find the operation for a request path, with or without the `/api` prefix.
    pub fn from_path(path: &str) -> Option<Operation> {
        let path = path.strip_prefix("/api").unwrap_or(path);
        Operation::ALL.iter().copied().find(|op| op.path() == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_with_and_without_api_prefix() {
        for op in Operation::ALL {
            assert_eq!(Operation::from_path(op.path()), Some(*op));
            assert_eq!(Operation::from_path(&format!("/api{}", op.path())), Some(*op));
        }
        assert_eq!(Operation::from_path("/v1/nope"), None);
    }

    #[test]
    fn topic_names_round_trip() {
        for t in Topic::ALL {
            assert_eq!(Topic::from_name(t.name()), Some(t));
        }
    }
}
