//! The response envelope: `{data, errors}` (spec, Errors), or errors-only for the
//! behavioral group.

use crate::error::{ApiError, ErrorKind, Group};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A finished response: HTTP status plus the JSON body. This is what a worker writes to
/// the store and sends back over the bus, so polling returns byte-for-byte the same body.
/// For a personal operation (`Operation::personal`, SIM) the body is one `sealed:v1:…`
/// string there, opened by ingest before it answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope {
    pub http_status: u16,
    pub body: Value,
    /// Seconds for `Retry-After`, when the error carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_secs: Option<u64>,
}

impl Envelope {
    /// Processing finished: HTTP 200, `data` holds the result (its `status` the verdict).
    pub fn ok(group: Group, data: Value) -> Self {
        Self::finished(group, data, Vec::new())
    }

    /// Processing finished with `status: failure`: HTTP 200 with `data` and the reasons.
    pub fn finished(group: Group, data: Value, errors: Vec<ApiError>) -> Self {
        let body = if group == Group::Behavior && errors.is_empty() {
            serde_json::json!({ "data": data })
        } else {
            serde_json::json!({ "data": data, "errors": errors })
        };
        Envelope { http_status: 200, body, retry_after_secs: None }
    }

    /// Any other error: no data, the group's code and status.
    pub fn error(group: Group, kind: &ErrorKind) -> Self {
        let (status, _) = kind.code_and_status(group);
        let err = kind.to_api_error(group);
        let body = if group == Group::Behavior {
            serde_json::json!({ "errors": [err] })
        } else {
            serde_json::json!({ "data": Value::Null, "errors": [err] })
        };
        let retry_after_secs = match kind {
            ErrorKind::RateLimited { retry_after_secs }
            | ErrorKind::Overloaded { retry_after_secs }
            | ErrorKind::QueueUnavailable { retry_after_secs } => Some(*retry_after_secs),
            _ => None,
        };
        Envelope { http_status: status, body, retry_after_secs }
    }

    /// The first error code in the body, if any (for metrics and tests).
    pub fn first_error_code(&self) -> Option<&str> {
        self.body.get("errors")?.as_array()?.first()?.get("code")?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn behavioral_errors_have_no_data_key() {
        let e = Envelope::error(Group::Behavior, &ErrorKind::MissingNonce);
        assert_eq!(e.http_status, 400);
        assert!(e.body.get("data").is_none());
        assert_eq!(e.first_error_code(), Some("missing_nonce"));
    }

    #[test]
    fn other_errors_have_empty_data() {
        let e = Envelope::error(Group::Face, &ErrorKind::RequestNotFound);
        assert_eq!(e.http_status, 404);
        assert_eq!(e.body["data"], Value::Null);
        assert_eq!(e.first_error_code(), Some("request_not_found_exception"));
    }

    #[test]
    fn finished_failure_is_http_200() {
        let e = Envelope::finished(
            Group::Face,
            json!({"status": "failure"}),
            vec![ApiError::failure(crate::FailureCode::FaceAuthUserLocked, "locked")],
        );
        assert_eq!(e.http_status, 200);
        assert_eq!(e.first_error_code(), Some("face_auth_user_locked"));
    }
}
