//! `/openapi.json`: an OpenAPI 3.1 document generated from the operation table and the
//! very request types the handlers parse (schemars), so it cannot drift from the code.

use idv_schemas::api::*;
use idv_schemas::ops::AuthScheme;
use idv_schemas::Operation;
use serde_json::{json, Map, Value};

fn request_schema(op: Operation) -> Value {
    let schema = match op {
        Operation::FaceAuthRegister => schemars::schema_for!(FaceAuthRegisterRequest),
        Operation::FaceAuth => schemars::schema_for!(FaceAuthRequest),
        Operation::FaceAuthUser | Operation::FaceAuthUnlock => schemars::schema_for!(CusUserRequest),
        Operation::FaceAuthUnregister => schemars::schema_for!(FaceAuthUnregisterRequest),
        Operation::MixCompareFacesSync => schemars::schema_for!(MixCompareFacesRequest),
        Operation::ReadIdCardInfoWithSanity => schemars::schema_for!(ReadIdCardRequest),
        Operation::EkycFullChecks => schemars::schema_for!(EkycFullChecksRequest),
        Operation::SimSendOtp => schemars::schema_for!(SimSendOtpRequest),
        Operation::SimVerifyOtp => schemars::schema_for!(SimVerifyOtpRequest),
        Operation::SimVerifyInfo => schemars::schema_for!(SimVerifyInfoRequest),
        Operation::RegisterDevice => schemars::schema_for!(RegisterDeviceRequest),
        Operation::CreateChallenge => schemars::schema_for!(CreateChallengeRequest),
        Operation::PushEventBatch => schemars::schema_for!(PushEventBatchRequest),
        Operation::BehaviorScore => schemars::schema_for!(BehaviorScoreRequest),
        Operation::UploadImage => schemars::schema_for!(UploadImageRequest),
        Operation::UploadFile => schemars::schema_for!(UploadFileRequest),
        Operation::GetRequestResult => schemars::schema_for!(GetRequestResultRequest),
    };
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

pub fn document() -> Value {
    let mut paths = Map::new();
    let envelope = json!({
        "type": "object",
        "properties": {
            "data": {"type": ["object", "null"]},
            "errors": {"type": "array", "items": serde_json::to_value(schemars::schema_for!(idv_schemas::ApiError)).unwrap_or(Value::Null)}
        }
    });
    for op in Operation::ALL {
        let security = match op.auth() {
            AuthScheme::AccessKey => json!([{"accessKey": []}]),
            AuthScheme::CustomerUserDevice => json!([{"customerUserDevice": []}]),
            AuthScheme::Jwt => json!([{"jwt": []}]),
        };
        let item = json!({
            "post": {
                "operationId": op.name(),
                "tags": [format!("{:?}", op.group())],
                "deprecated": *op == Operation::EkycFullChecks,
                "security": security,
                "requestBody": {"required": true, "content": {"application/json": {"schema": request_schema(*op)}}},
                "responses": {
                    "200": {"description": "processing finished; data.status carries the verdict", "content": {"application/json": {"schema": envelope.clone()}}},
                    "default": {"description": "error envelope (see the spec's error tables)", "content": {"application/json": {"schema": envelope.clone()}}}
                }
            }
        });
        paths.insert(op.path().to_string(), item.clone());
        if op.path().starts_with("/v1/") {
            paths.insert(format!("/api{}", op.path()), item);
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "idv identity verification API", "version": env!("CARGO_PKG_VERSION")},
        "paths": paths,
        "components": {"securitySchemes": {
            "accessKey": {"type": "apiKey", "in": "header", "name": "Authorization", "description": "TV <access_key_id>:<base64 HMAC-SHA256> with X-TV-Timestamp; see docs/API.md"},
            "customerUserDevice": {"type": "apiKey", "in": "header", "name": "Authorization", "description": "TV <customer_user_device_id>:<encrypted_secret_key>:<signature>"},
            "jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
        }}
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_operation_is_documented_with_a_request_schema() {
        let doc = super::document();
        for op in idv_schemas::Operation::ALL {
            let schema = &doc["paths"][op.path()]["post"]["requestBody"]["content"]["application/json"]["schema"];
            assert!(schema.is_object(), "{} has no schema", op.path());
        }
        let reg = &doc["paths"]["/v1/face_auth_register"]["post"]["requestBody"]["content"]["application/json"]["schema"];
        assert!(reg["properties"]["cus_user_id"].is_object());
        assert!(doc["paths"]["/api/v1/face_auth"].is_object());
    }
}
