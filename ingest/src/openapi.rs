//! `/openapi.json`: an OpenAPI 3.1 document generated from the operation table and the
//! very request types the handlers parse (schemars), so it cannot drift from the code.

use idv_schemas::api::*;
use idv_schemas::ops::AuthScheme;
use idv_schemas::Operation;
use serde_json::{json, Map, Value};

/// Moves a schemars root schema's `$defs` into `defs` (the document's
/// `components/schemas`) and points every `$ref` there, so the schema resolves from the
/// document root (generators and fuzzers follow `#/components/schemas/X`).
fn hoist_defs(mut schema: Value, defs: &mut Map<String, Value>) -> Value {
    if let Some(Value::Object(found)) = schema.as_object_mut().and_then(|o| o.remove("$defs")) {
        for (name, mut def) in found {
            rewrite_refs(&mut def);
            defs.entry(name).or_insert(def);
        }
    }
    if let Some(o) = schema.as_object_mut() {
        o.remove("$schema");
    }
    rewrite_refs(&mut schema);
    schema
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/$defs/") {
                    *r = format!("#/components/schemas/{name}");
                }
            }
            o.values_mut().for_each(rewrite_refs);
        }
        Value::Array(a) => a.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

/// The SDK-style upload form: a `file` part, optional `label`, `metadata[k]` parts.
fn multipart_schema() -> Value {
    json!({
        "type": "object",
        "required": ["file"],
        "properties": {
            "file": {"type": "string", "format": "binary"},
            "label": {"type": "string", "maxLength": idv_schemas::validate::limits::LABEL},
            "metadata": {"type": "string", "description": "a JSON object; or send metadata[key] parts"}
        }
    })
}

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
        Operation::CompareFacesSync => schemars::schema_for!(MixCompareFacesRequest),
        Operation::ReadIdCardInfoSync | Operation::VerifyIdCardSanitySync => schemars::schema_for!(ReadIdCardRequest),
        Operation::VerifyFaceLivenessSync => schemars::schema_for!(VerifyFaceLivenessRequest),
        Operation::VerifyPortraitSanitySync | Operation::DetectIdCardTamperingSync => schemars::schema_for!(SingleImageRequest),
        // multipart/form-data: described in `document` (no JSON body).
        Operation::Images | Operation::Files => return multipart_schema(),
    };
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

pub fn document() -> Value {
    let mut paths = Map::new();
    let mut defs = Map::new();
    let api_error = hoist_defs(serde_json::to_value(schemars::schema_for!(idv_schemas::ApiError)).unwrap_or(Value::Null), &mut defs);
    defs.insert("ApiError".into(), api_error);
    let envelope = json!({
        "type": "object",
        "properties": {
            "data": {"type": ["object", "null"]},
            "errors": {"type": "array", "items": {"$ref": "#/components/schemas/ApiError"}}
        }
    });
    // End-to-end encrypted answers of the device operations (docs/BEHAVIOR_PROTOCOL.md).
    let encrypted = json!({
        "type": "object",
        "required": ["data", "response_key", "signature"],
        "properties": {
            "data": {"type": "string", "description": "base64 AES-GCM ciphertext of the answer envelope"},
            "response_key": {"type": "string", "description": "base64 RSA-OAEP-SHA256 encrypted AES key"},
            "signature": {"type": "string", "description": "base64 RSA-PSS-SHA256 signature of response_key followed by data"}
        }
    });
    for op in Operation::ALL {
        let security = match op.auth() {
            AuthScheme::AccessKey => json!([{"accessKey": []}]),
            AuthScheme::CustomerUserDevice => json!([{"customerUserDevice": []}]),
            AuthScheme::Jwt => json!([{"jwt": []}]),
        };
        let media_type = if matches!(op, Operation::Images | Operation::Files) { "multipart/form-data" } else { "application/json" };
        let mut content = Map::new();
        content.insert(media_type.to_string(), json!({"schema": hoist_defs(request_schema(*op), &mut defs)}));
        let request_body = json!({"required": true, "content": content});
        let item = json!({
            "post": {
                "operationId": op.name(),
                "tags": [format!("{:?}", op.group())],
                "deprecated": *op == Operation::EkycFullChecks,
                "security": security,
                "requestBody": request_body,
                "responses": {
                    "200": if op.auth() == AuthScheme::CustomerUserDevice {
                        json!({"description": "the answer, encrypted to the device", "content": {"application/json": {"schema": encrypted.clone()}}})
                    } else {
                        json!({"description": "processing finished; data.status carries the verdict", "content": {"application/json": {"schema": envelope.clone()}}})
                    },
                    "500": {"description": "internal_server_error: an unexpected fault; errors[0].detail.incident_id finds it in the server log (retry later)", "content": {"application/json": {"schema": envelope.clone()}}},
                    "501": {"description": "not_performed: this deployment cannot run a check the operation needs (errors[0].detail.detail says which, e.g. models not installed, no operator configured); not a fault: do not retry", "content": {"application/json": {"schema": envelope.clone()}}},
                    "503": {"description": "service_unavailable: the instance is shutting down before the request reached a worker; retry", "content": {"application/json": {"schema": envelope.clone()}}},
                    "default": {"description": "error envelope (error tables in docs/API.md)", "content": {"application/json": {"schema": envelope.clone()}}}
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
        "components": {"schemas": defs, "securitySchemes": {
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
            let content = &doc["paths"][op.path()]["post"]["requestBody"]["content"];
            let schema = if content["application/json"].is_object() { &content["application/json"]["schema"] } else { &content["multipart/form-data"]["schema"] };
            assert!(schema.is_object(), "{} has no schema", op.path());
        }
        let reg = &doc["paths"]["/v1/face_auth_register"]["post"]["requestBody"]["content"]["application/json"]["schema"];
        assert!(reg["properties"]["cus_user_id"].is_object());
        assert!(doc["paths"]["/api/v1/face_auth"].is_object());
        // Every reference resolves from the document root.
        fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(o) => {
                    if let Some(r) = o.get("$ref").and_then(|r| r.as_str()) {
                        out.push(r.to_string());
                    }
                    o.values().for_each(|v| refs(v, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        refs(&doc, &mut all);
        assert!(all.iter().any(|r| r == "#/components/schemas/ImageData"), "{all:?}");
        for r in &all {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{r} does not point at components/schemas"));
            assert!(doc["components"]["schemas"][name].is_object(), "{r} does not resolve");
        }
        let not_performed = doc["paths"]["/v1/face_auth"]["post"]["responses"]["501"]["description"].as_str().unwrap_or_default();
        assert!(not_performed.starts_with("not_performed"), "{not_performed}");
    }
}
