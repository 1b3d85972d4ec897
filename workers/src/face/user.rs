//! A face-authentication user's state as the spec states it: the record clients see,
//! the registered face types, what blocks a biometric operation (deactivated,
//! unregistered, locked), and the lockout counter. Pure: the handlers
//! ([`super::FaceHandler`], [`super::ops`]) read and write the record.

use idv_schemas::{FailureCode, Operation};
use idv_store::FaceUserRecord;
use serde_json::{json, Value};

/// Histories returned by face_auth_user (choice: docs/API.md).
pub const HISTORIES_RETURNED: usize = 10;

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
/// `request_id` is the job's: the authentication that locked the user is not refused
/// when its job is redelivered (it is answered as it was, unmatched).
pub fn blocking_state(u: &FaceUserRecord, op: Operation, request_id: &str) -> Option<FailureCode> {
    let locked_by_this = u.failed_auth_ids.last().is_some_and(|id| id == request_id);
    if u.is_deactivated {
        Some(FailureCode::FaceAuthUserDeactivated)
    } else if op == Operation::FaceAuth && u.is_unregistered {
        Some(FailureCode::FaceAuthUserUnregistered)
    } else if op == Operation::FaceAuth && u.is_locked && !locked_by_this {
        Some(FailureCode::FaceAuthUserLocked)
    } else {
        None
    }
}

/// What one authentication did to the user's lockout state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockoutUpdate {
    /// The record changed and must be written.
    pub changed: bool,
    /// This attempt is the one that locked the user.
    pub locked_by_this: bool,
}

/// Applies an authentication's outcome to the lockout state: a failure (unmatched or
/// image_non_liveness) is counted once per request id, and the `max_failures`-th in a
/// row locks the user (0: never); a match clears the count. Unlock clears both.
pub fn record_auth_outcome(u: &mut FaceUserRecord, request_id: &str, failed: bool, max_failures: u32) -> LockoutUpdate {
    if !failed {
        let changed = !u.failed_auth_ids.is_empty();
        u.failed_auth_ids.clear();
        return LockoutUpdate { changed, locked_by_this: false };
    }
    let mut changed = false;
    if !u.failed_auth_ids.iter().any(|id| id == request_id) {
        u.failed_auth_ids.push(request_id.to_string());
        changed = true;
    }
    let limit = usize::try_from(max_failures).unwrap_or(usize::MAX);
    if max_failures > 0 && !u.is_locked && u.failed_auth_ids.len() >= limit {
        u.is_locked = true;
        changed = true;
    }
    let locked_by_this = u.is_locked && u.failed_auth_ids.last().is_some_and(|id| id == request_id);
    LockoutUpdate { changed, locked_by_this }
}

