//! One table from semantic error kinds to the spec's `(HTTP status, code)` pairs.
//!
//! The spec gives each operation group its own error table: the same condition (say, a
//! bad parameter) is `invalid_parameter_exception` for face operations and `invalid_param`
//! for behavioral ones, and an auth failure is 401 in one group and 403 in another. Code
//! raises an [`ErrorKind`]; [`ErrorKind::code_and_status`] is the only place that knows
//! the per-group spelling. Choices the spec leaves open are marked `// choice:` and listed
//! in docs/API.md.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The operation groups, each with its own error table in the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// face_auth_register, face_auth, face_auth_user, face_auth_unregister, face_auth_unlock,
    /// and the upload/poll operations they reference.
    Face,
    /// mix_compare_faces_sync and read_id_card_info_with_sanity.
    CompareCard,
    /// sim_verification_*.
    Sim,
    /// register_device, behavior/*: errors-only bodies.
    Behavior,
    /// portal/ekyc/full_checks (JWT).
    Ekyc,
}

/// A semantic error, independent of how a group spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidParameter { field: Option<String>, message: String },
    AccessDenied,
    TimeSkewed,
    RateLimited { retry_after_secs: u64 },
    /// The wait ran out; `request_id` lets the caller poll the result later.
    Timeout { request_id: Option<String> },
    ImageNotFound { field: Option<String> },
    RequestNotFound,
    FaceUserNotFound,
    IncorrectNumberOfFaces,
    /// An unexpected fault. `message` is for the server log only: clients get a generic
    /// message and an incident id that finds the log line (store and bus errors name
    /// paths, hosts and statements that are none of the caller's business).
    Internal { message: String },
    /// The capability exists in the API but no worker in this deployment can perform it
    /// (for example the face models are not installed). Reported honestly, never faked,
    /// and never as a 500: it is not a fault, and retrying does not change it.
    NotAvailable { reason: String },
    /// An operation of the published TrustVision SDK that idv does not offer
    /// (`ops::UNSUPPORTED_SDK_PATHS`).
    NotSupported { operation: String },
    /// The instance holds as many request bodies in memory as its budget allows: retry
    /// after `retry_after_secs`.
    Overloaded { retry_after_secs: u64 },
    /// The job could not be handed to the bus (the broker is away): nothing was done;
    /// retry after `retry_after_secs`.
    QueueUnavailable { retry_after_secs: u64 },
    /// The process stopped (a crash) while the request's job was in its memory: its answer
    /// was never stored, and whether its effect was applied is unknown.
    Interrupted,
    /// This instance is stopping before the request was handed to a worker: retry
    /// (another instance, or this one after its restart, will take it).
    ShuttingDown,
    // Behavioral group only.
    InvalidChallengeId,
    ChallengeNotFound,
    ChallengeAccessDenied,
    InvalidChallengeStatus,
    DeviceNotFound,
    DeviceDeactivated,
    NoBatchEvents,
    InvalidBatchEvents { message: String },
    /// Nothing in the session could be compared with the baseline, or the score is not a
    /// number: a failure, not a fixed middle score (no spec code exists: choice).
    InsufficientBehaviorData { message: String },
    MissingNonce,
    InvalidNonce,
    MissingChallengeId,
    BootstrapFailed,
    BootstrapWaitTimeout,
    /// Unknown path (no spec code exists: choice).
    RouteNotFound,
    /// Not a POST (no spec code exists: choice).
    MethodNotAllowed,
}

impl ErrorKind {
    /// A fault of ours (store, bus, a bug): 500 with an incident id; `detail` goes to the
    /// log only.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        ErrorKind::Internal { message: detail.to_string() }
    }

    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorKind::InvalidParameter { field: Some(field.into()), message: message.into() }
    }

    /// The spec's `(HTTP status, code)` for this error in `group`.
    pub fn code_and_status(&self, group: Group) -> (u16, &'static str) {
        use ErrorKind::*;
        let behavior = group == Group::Behavior;
        match self {
            InvalidParameter { .. } if behavior => (400, "invalid_param"),
            InvalidParameter { .. } => (400, "invalid_parameter_exception"),
            AccessDenied if behavior => (403, "access_denied"),
            AccessDenied => (401, "access_denied_exception"),
            TimeSkewed if behavior => (403, "request_time_too_skewed"),
            TimeSkewed => (400, "request_time_too_skewed"),
            // choice: the behavioral table has no 429 row; the same code is used there.
            RateLimited { .. } => (429, "rate_limit_exception"),
            // choice: 408 in every group (the comparison/card table omits it, but a
            // request that outlives the wait still has to be answered).
            Timeout { .. } => (408, "request_timeout_exception"),
            // choice: comparison and card operations accept image ids too, so the face
            // table's code is used there as well.
            ImageNotFound { .. } => (404, "image_not_found_exception"),
            RequestNotFound => (404, "request_not_found_exception"),
            FaceUserNotFound => (404, "face_auth_user_not_found_exception"),
            IncorrectNumberOfFaces => (400, "incorrect_number_of_faces"),
            Internal { .. } => (500, "internal_server_error"),
            // choice: the spec has no code for a capability a deployment lacks; 500 would
            // page the caller's on-call and invite retries (docs/API.md, deviations).
            NotAvailable { .. } => (501, "not_performed"),
            // choice: documented in docs/API.md "TrustVision SDK compatibility".
            NotSupported { .. } => (501, "not_supported"),
            // choice: the spec has no 503 outside the behavioral bootstrap rows.
            ShuttingDown | Overloaded { .. } | QueueUnavailable { .. } | Interrupted => (503, "service_unavailable"),
            InvalidChallengeId => (400, "invalid_challenge_id"),
            ChallengeNotFound => (400, "challenge_not_found"),
            ChallengeAccessDenied => (400, "challenge_access_denied"),
            InvalidChallengeStatus => (400, "invalid_challenge_status"),
            DeviceNotFound => (400, "customer_user_device_not_found"),
            DeviceDeactivated => (400, "customer_user_device_deactivated"),
            NoBatchEvents => (400, "no_batch_events"),
            InvalidBatchEvents { .. } => (400, "invalid_batch_events"),
            InsufficientBehaviorData { .. } => (400, "insufficient_behavior_data"),
            MissingNonce => (400, "missing_nonce"),
            InvalidNonce => (400, "invalid_nonce"),
            MissingChallengeId => (400, "missing_challenge_id"),
            BootstrapFailed => (503, "bootstrap_failed"),
            BootstrapWaitTimeout => (503, "bootstrap_wait_timeout"),
            RouteNotFound => (404, "route_not_found"),
            MethodNotAllowed => (405, "method_not_allowed"),
        }
    }

    fn message(&self) -> String {
        use ErrorKind::*;
        match self {
            InvalidParameter { message, .. } => message.clone(),
            AccessDenied => "not authorized".into(),
            TimeSkewed => "X-TV-Timestamp is too far from server time".into(),
            RateLimited { .. } => "throughput limit exceeded".into(),
            Timeout { .. } => "processing took too long; poll the result by request_id".into(),
            ImageNotFound { .. } => "image id not found".into(),
            RequestNotFound => "request id not found".into(),
            FaceUserNotFound => "face authentication user not found".into(),
            IncorrectNumberOfFaces => "selfie or original image has more than 1 face".into(),
            Internal { .. } => "unexpected error; quote detail.incident_id to the operator".into(),
            NotAvailable { reason } => format!("not performed: {reason}"),
            ShuttingDown => "this instance is shutting down; retry".into(),
            Overloaded { .. } => "too many large requests in flight; retry after Retry-After seconds".into(),
            QueueUnavailable { .. } => "the job queue cannot be reached; nothing was done; retry after Retry-After seconds".into(),
            Interrupted => "the service restarted before this request finished; it may or may not have taken effect: check, then retry".into(),
            NotSupported { operation } => format!("{operation} is not offered by this service (docs/API.md)"),
            InvalidChallengeId => "challenge id is not a valid UUID".into(),
            ChallengeNotFound => "challenge does not exist".into(),
            ChallengeAccessDenied => "challenge does not belong to this client".into(),
            InvalidChallengeStatus => "challenge already submitted or invalid".into(),
            DeviceNotFound => "the challenge's device record does not exist".into(),
            DeviceDeactivated => "the challenge's device is deactivated".into(),
            NoBatchEvents => "no batch events for this challenge".into(),
            InvalidBatchEvents { message } | InsufficientBehaviorData { message } => message.clone(),
            MissingNonce => "nonce missing from request".into(),
            InvalidNonce => "nonce does not match the challenge or is expired".into(),
            MissingChallengeId => "challenge id missing from context".into(),
            BootstrapFailed => "first-session enrollment failed; retry".into(),
            BootstrapWaitTimeout => "another request is enrolling this baseline; retry".into(),
            RouteNotFound => "no such operation".into(),
            MethodNotAllowed => "every operation is a POST".into(),
        }
    }

    fn detail(&self) -> Option<Value> {
        use ErrorKind::*;
        match self {
            InvalidParameter { field: Some(f), .. } | ImageNotFound { field: Some(f) } => {
                Some(json!({ "field": f }))
            }
            RateLimited { retry_after_secs } | Overloaded { retry_after_secs } | QueueUnavailable { retry_after_secs } => {
                Some(json!({ "retry_after": retry_after_secs }))
            }
            Timeout { request_id: Some(id) } => Some(json!({ "request_id": id })),
            NotAvailable { reason } => Some(json!({ "reason": "not_performed", "detail": reason })),
            _ => None,
        }
    }

    /// The error object of the envelope, spelled for `group`. An internal fault's own
    /// message goes to the log under a fresh incident id, and only the id to the client.
    pub fn to_api_error(&self, group: Group) -> ApiError {
        let (_, code) = self.code_and_status(group);
        let detail = match self {
            ErrorKind::Internal { message } => {
                let incident_id = uuid::Uuid::new_v4().to_string();
                tracing::error!(incident_id = %incident_id, ?group, "internal error: {message}");
                Some(json!({ "incident_id": incident_id }))
            }
            _ => self.detail(),
        };
        ApiError { code: code.to_string(), message: self.message(), detail }
    }
}

/// One entry of the envelope's `errors` array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApiError {
    pub code: String,
    pub message: String,
    /// Always an object when present (`detail.field`, `detail.retry_after`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Map<String, Value>")]
    pub detail: Option<Value>,
}

impl ApiError {
    pub fn failure(code: FailureCode, message: impl Into<String>) -> Self {
        ApiError { code: code.as_str().to_string(), message: message.into(), detail: None }
    }
    pub fn with_detail(mut self, detail: Map<String, Value>) -> Self {
        self.detail = Some(Value::Object(detail));
        self
    }
}

macro_rules! failure_codes {
    ($($variant:ident => $code:literal),* $(,)?) => {
        /// Codes that come with HTTP 200 and `data.status = "failure"` (spec, per operation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum FailureCode { $($variant),* }
        impl FailureCode {
            pub const ALL: &'static [FailureCode] = &[$(FailureCode::$variant),*];
            pub fn as_str(self) -> &'static str {
                match self { $(FailureCode::$variant => $code),* }
            }
        }
    };
}

failure_codes! {
    FaceAuthUserDeactivated => "face_auth_user_deactivated",
    FaceAuthUserUnregistered => "face_auth_user_unregistered",
    FaceAuthUserLocked => "face_auth_user_locked",
    ImageTooBlur => "image_too_blur",
    ImageTooDark => "image_too_dark",
    ImageTooBright => "image_too_bright",
    ImageHasNoFaces => "image_has_no_faces",
    ImageNonLiveness => "image_non_liveness",
    IncorrectCardType => "incorrect_card_type",
    NocardOrMulticardImage => "nocard_or_multicard_image",
    ImageHasHole => "image_has_hole",
    ImageHasCut => "image_has_cut",
    ImageHasHoleAndCut => "image_has_hole_and_cut",
    BadQualityCardImage => "bad_quality_card_image",
    UnexpectedError => "unexpected_error",
    FailedToSendOtp => "failed_to_send_otp",
    InvalidOtpFormat => "invalid_otp_format",
    UnsupportedTelco => "unsupported_telco",
    IncorrectOtp => "incorrect_otp",
    OtpExpired => "otp_expired",
    OtpAlreadyUsed => "otp_already_used",
    FailedToVerifyOtp => "failed_to_verify_otp",
    InvalidPhoneNumber => "invalid_phone_number",
    VerificationSessionExpired => "verification_session_expired",
    FailedToVerifyInfo => "failed_to_verify_info",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_condition_is_spelled_per_group() {
        let e = ErrorKind::invalid("cus_user_id", "too long");
        assert_eq!(e.code_and_status(Group::Face), (400, "invalid_parameter_exception"));
        assert_eq!(e.code_and_status(Group::Behavior), (400, "invalid_param"));
        assert_eq!(ErrorKind::AccessDenied.code_and_status(Group::Sim), (401, "access_denied_exception"));
        assert_eq!(ErrorKind::AccessDenied.code_and_status(Group::Behavior), (403, "access_denied"));
        assert_eq!(ErrorKind::TimeSkewed.code_and_status(Group::Face), (400, "request_time_too_skewed"));
        assert_eq!(ErrorKind::TimeSkewed.code_and_status(Group::Behavior), (403, "request_time_too_skewed"));
        assert_eq!(ErrorKind::BootstrapWaitTimeout.code_and_status(Group::Behavior), (503, "bootstrap_wait_timeout"));
    }

    #[test]
    fn invalid_parameter_names_the_field() {
        let e = ErrorKind::invalid("faces", "at most 50 entries").to_api_error(Group::Face);
        assert_eq!(e.detail, Some(json!({"field": "faces"})));
    }

    #[test]
    fn internal_detail_stays_in_the_log() {
        let secret = "sqlite: disk I/O error at /var/lib/idv/idv.db (statement INSERT INTO keys)";
        for group in [Group::Face, Group::CompareCard, Group::Sim, Group::Behavior, Group::Ekyc] {
            let kind = ErrorKind::Internal { message: secret.into() };
            assert_eq!(kind.code_and_status(group), (500, "internal_server_error"));
            let e = kind.to_api_error(group);
            let text = serde_json::to_string(&e).unwrap_or_default();
            assert!(!text.contains("sqlite") && !text.contains("/var/lib"), "{text}");
            let id = e.detail.as_ref().and_then(|d| d["incident_id"].as_str()).unwrap_or_default();
            assert!(uuid::Uuid::parse_str(id).is_ok(), "{text}");
        }
    }

    #[test]
    fn not_performed_is_not_a_fault() {
        let kind = ErrorKind::NotAvailable { reason: "face models are not installed".into() };
        for group in [Group::Face, Group::CompareCard, Group::Sim, Group::Behavior, Group::Ekyc] {
            assert_eq!(kind.code_and_status(group), (501, "not_performed"));
        }
        let e = kind.to_api_error(Group::Face);
        assert_eq!(e.detail, Some(json!({"reason": "not_performed", "detail": "face models are not installed"})));
    }

    #[test]
    fn failure_codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in FailureCode::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {}", c.as_str());
        }
    }
}
