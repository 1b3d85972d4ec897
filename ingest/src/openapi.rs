//! `/openapi.json`: an OpenAPI 3.1 document generated from the operation table and the
//! very request types the handlers parse (schemars, with the limits their `Validate`
//! impls check), so it cannot drift from the code. Responses are declared as
//! `idv_schemas::Envelope` and the handlers write them; `response_tests` checks real
//! bodies against the declarations, and `scripts/api_fuzz.sh` a live server.

use idv_schemas::api::*;
use idv_schemas::ops::AuthScheme;
use idv_schemas::{Group, Operation};
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

fn request_schema(op: Operation) -> Value {
    serde_json::to_value(op.request_schema()).unwrap_or(Value::Null)
}

const API_ERROR: &str = "#/components/schemas/ApiError";

/// The `errors` array of an envelope.
fn errors_array() -> Value {
    json!({"type": "array", "items": {"$ref": API_ERROR}})
}

/// Response schemas shared by every operation (`components/schemas`), exactly as
/// `idv_schemas::Envelope` writes them (docs/API.md "Envelope").
fn envelope_components(defs: &mut Map<String, Value>) {
    let one_error = json!({"type": "array", "items": {"$ref": API_ERROR}, "minItems": 1, "maxItems": 1});
    defs.insert(
        "ErrorEnvelope".into(),
        json!({
            "description": "Any error but a `failure` verdict (face, comparison, card, SIM, eKYC, uploads, polling): `data` null and one error.",
            "type": "object",
            "required": ["data", "errors"],
            "properties": {"data": {"type": "null"}, "errors": one_error},
            "additionalProperties": false
        }),
    );
    defs.insert(
        "BehaviorErrorEnvelope".into(),
        json!({
            "description": "An error of a behavioral operation: one error and no `data` key at all.",
            "type": "object",
            "required": ["errors"],
            "properties": {"errors": one_error},
            "additionalProperties": false
        }),
    );
    // End-to-end encrypted answers of the device operations (docs/BEHAVIOR_PROTOCOL.md).
    defs.insert(
        "EncryptedAnswer".into(),
        json!({
            "type": "object",
            "required": ["data", "response_key", "signature"],
            "properties": {
                "data": {"type": "string", "description": "base64 AES-GCM ciphertext of the answer envelope"},
                "response_key": {"type": "string", "description": "base64 RSA-OAEP-SHA256 encrypted AES key"},
                "signature": {"type": "string", "description": "base64 RSA-PSS-SHA256 signature of response_key followed by data"}
            },
            "additionalProperties": false
        }),
    );
}

/// A finished job's `{data, errors}`: `data.status` `success` with no errors (and the
/// operation's own `success_fields`), or `failure` with the errors that say why.
fn result_envelope(success_fields: &[&str]) -> Value {
    json!({
        "type": "object",
        "required": ["data", "errors"],
        "properties": {
            "data": {
                "type": "object",
                "required": ["status", "request_id"],
                "properties": {"status": {"enum": ["success", "failure"]}, "request_id": {"type": "string", "minLength": 1}}
            },
            "errors": errors_array()
        },
        "additionalProperties": false,
        "oneOf": [
            {"properties": {"data": {"required": success_fields, "properties": {"status": {"const": "success"}}}, "errors": {"maxItems": 0}}},
            {"properties": {"data": {"properties": {"status": {"const": "failure"}}}, "errors": {"minItems": 1}}}
        ]
    })
}

/// `data` keys every `success` answer of a job-backed operation carries beside `status`
/// and `request_id` (docs/API.md, Operations; the handlers in workers/).
fn success_fields(op: Operation) -> &'static [&'static str] {
    match op {
        Operation::FaceAuthRegister => &["register_id", "user_metadata", "histories", "face_auth_user", "face_types"],
        Operation::FaceAuth => &["auth_id"],
        Operation::FaceAuthUser => &["verdict"],
        Operation::FaceAuthUnregister => &["unregister_id", "face_auth_user"],
        Operation::FaceAuthUnlock => &["unlock_id", "face_auth_user"],
        Operation::MixCompareFacesSync | Operation::CompareFacesSync => &["transaction_id", "image1", "image2", "portrait_sanity", "compare_faces"],
        Operation::ReadIdCardInfoWithSanity | Operation::ReadIdCardInfoSync => &["image1", "image2", "card_information", "not_performed"],
        Operation::SimSendOtp | Operation::SimVerifyOtp | Operation::SimVerifyInfo => &["phone_number"],
        Operation::VerifyFaceLivenessSync => &["is_live", "score", "images"],
        Operation::VerifyPortraitSanitySync => &["image", "portrait_sanity"],
        _ => &[],
    }
}

/// The eKYC full check's 200 (workers/src/card/ekyc.rs): no `data.status`; top-level
/// `message`, `time`, `verdict`.
fn ekyc_envelope() -> Value {
    json!({
        "type": "object",
        "required": ["data", "errors", "message", "time", "verdict"],
        "properties": {
            "data": {
                "type": "object",
                "required": ["request_id", "card_information", "compare_faces", "liveness_check", "portrait_sanity", "card_sanity", "card_tampering", "not_performed"],
                "properties": {
                    "request_id": {"type": "string", "minLength": 1},
                    "card_information": {"type": "array"},
                    "compare_faces": {"type": "array"},
                    "liveness_check": {"type": ["object", "null"]},
                    "portrait_sanity": {"type": ["object", "null"]},
                    "card_sanity": {
                        "type": ["object", "null"],
                        "required": ["verdict", "score", "score_details", "verdict_details"],
                        "properties": {
                            "verdict": {"enum": ["good", "incomplete", "image_too_blur", "image_too_dark", "image_too_bright", "image_has_hole", "image_has_cut", "image_has_hole_and_cut"]},
                            "score": {"type": "number", "minimum": 0, "maximum": 1},
                            "score_details": {"type": "array", "items": {"type": "object", "required": ["verdict", "score"]}},
                            "not_performed": {"type": "array", "items": {"enum": ["blur", "dark", "bright", "hole", "cut"]}},
                            "verdict_details": {"type": "object"}
                        }
                    },
                    "card_tampering": {
                        "type": ["object", "null"],
                        "required": ["verdict", "score", "details"],
                        "properties": {
                            "verdict": {"enum": ["good", "tampered", "incomplete"]},
                            "score": {"type": "number", "minimum": 0, "maximum": 1},
                            "details": {"type": "array", "items": {"type": "object", "required": ["verdict", "score", "name", "info"]}}
                        }
                    },
                    "not_performed": {"type": "array", "items": {"type": "string"}}
                }
            },
            "errors": {"type": "array", "maxItems": 0},
            "message": {"type": "string"},
            "time": {"type": "string", "format": "date-time"},
            "verdict": {"enum": ["success", "failure"]}
        },
        "additionalProperties": false
    })
}

/// `{data: <data>, errors: []}`: an answer ingest gives itself (uploads).
fn ok_envelope(data: Value) -> Value {
    json!({
        "type": "object",
        "required": ["data", "errors"],
        "properties": {"data": data, "errors": {"type": "array", "maxItems": 0}},
        "additionalProperties": false
    })
}

/// An uploaded blob as `POST /v1/images`, `/v1/files` and `PATCH /v1/images/{id}` answer
/// it (`uploads::resource_json`): the id under `image_id` or `file_id` and under `id`.
fn upload_resource() -> Value {
    let mut properties = json!({
        "status": {"const": "success"},
        "id": {"type": "string", "minLength": 1},
        "request_id": {"type": "string", "minLength": 1},
        "size": {"type": "integer", "minimum": 0},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "label": {"type": ["string", "null"]},
        "metadata": {"type": "object"},
        "content_type": {"type": ["string", "null"]},
        "created_at": {"type": "string"}
    });
    let common = ["status", "id", "request_id", "size", "sha256", "label", "metadata", "content_type", "created_at"];
    let mut variants = Vec::new();
    for key in ["image_id", "file_id"] {
        let mut required: Vec<&str> = common.to_vec();
        required.push(key);
        variants.push(json!({"required": required}));
    }
    if let Some(p) = properties.as_object_mut() {
        p.insert("image_id".into(), json!({"type": "string", "minLength": 1}));
        p.insert("file_id".into(), json!({"type": "string", "minLength": 1}));
    }
    json!({"type": "object", "properties": properties, "oneOf": variants, "additionalProperties": false})
}

/// A behavioral operation's 200 (`Envelope::ok` with the behavioral group: no `errors`).
fn register_device_envelope() -> Value {
    json!({
        "type": "object",
        "required": ["data"],
        "properties": {"data": {
            "type": "object",
            "required": ["customer_user_device_id", "status"],
            "properties": {"customer_user_device_id": {"type": "string", "minLength": 1}, "status": {"const": "success"}},
            "additionalProperties": false
        }},
        "additionalProperties": false
    })
}

/// `behavior/score`'s 200: a score (no `errors` key), or an engine-side `failure` with its
/// errors; `decision` and `evaluation_details` for callers under the policy check.
fn score_envelope() -> Value {
    json!({
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {
                "type": "object",
                "required": ["request_id", "status"],
                "properties": {"request_id": {"type": "string", "minLength": 1}, "status": {"enum": ["success", "failure"]}}
            },
            "errors": errors_array(),
            "decision": {"type": "object", "required": ["final_action"]},
            "evaluation_details": {"type": "object", "required": ["applied_policies"]}
        },
        "additionalProperties": false,
        "oneOf": [
            {
                "not": {"required": ["errors"]},
                "properties": {"data": {
                    "required": ["behavior_score", "risk_level", "groups", "explainers", "server_infos"],
                    "properties": {
                        "status": {"const": "success"},
                        "behavior_score": {"type": "integer", "minimum": 0, "maximum": 1000},
                        "risk_level": {"enum": ["LOW", "MEDIUM", "HIGH", "CRITICAL"]}
                    }
                }}
            },
            {"required": ["errors"], "properties": {"data": {"properties": {"status": {"const": "failure"}}}, "errors": {"minItems": 1}}}
        ]
    })
}

/// What `get_request_result` answers with 200: any finished envelope it stored (device
/// operations excepted), or `processing`.
fn polled_envelope() -> Value {
    json!({"anyOf": [
        result_envelope(&[]),
        ekyc_envelope(),
        register_device_envelope(),
        score_envelope(),
        ok_envelope(json!({
            "type": "object",
            "required": ["status", "request_id", "operation"],
            "properties": {"status": {"const": "processing"}, "request_id": {"type": "string"}, "operation": {"type": "string"}},
            "additionalProperties": false
        }))
    ]})
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// The responses of one operation: its 200, and its group's error envelope for every
/// other status (the 5xx and 429 described on their own).
fn responses(op: Operation, upload_data: &Value) -> Value {
    let error = match op {
        // A stored answer comes back as it was: any group's error shape.
        Operation::GetRequestResult => json!({"anyOf": [{"$ref": "#/components/schemas/ErrorEnvelope"}, {"$ref": "#/components/schemas/BehaviorErrorEnvelope"}]}),
        _ if op.group() == Group::Behavior => json!({"$ref": "#/components/schemas/BehaviorErrorEnvelope"}),
        _ => json!({"$ref": "#/components/schemas/ErrorEnvelope"}),
    };
    let (ok_description, ok) = match op {
        Operation::CreateChallenge | Operation::PushEventBatch => ("the answer, encrypted to the device", json!({"$ref": "#/components/schemas/EncryptedAnswer"})),
        Operation::RegisterDevice => ("the device is registered", register_device_envelope()),
        Operation::BehaviorScore => ("scored (or an engine-side failure: data.status failure with its errors)", score_envelope()),
        Operation::EkycFullChecks => ("processing finished; verdict carries the outcome", ekyc_envelope()),
        Operation::UploadImage | Operation::UploadFile => ("stored; data.id is accepted as an ImageData id (files: a Video id)", ok_envelope(upload_data.clone())),
        Operation::Images | Operation::Files => ("stored; data.image_id (files: data.file_id) is accepted as an ImageData id (files: a Video id)", ok_envelope(upload_resource())),
        Operation::GetRequestResult => ("the finished envelope as the operation answered it, or data.status processing", polled_envelope()),
        _ => ("processing finished; data.status carries the verdict", result_envelope(success_fields(op))),
    };
    let retry_after = |required: bool| json!({"Retry-After": {"required": required, "description": "seconds to wait", "schema": {"type": "string", "pattern": "^[0-9]+$"}}});
    json!({
        "200": {"description": ok_description, "content": json_content(ok)},
        "429": {"description": "rate_limit_exception: over the rate limit; retry after Retry-After seconds", "headers": retry_after(true), "content": json_content(error.clone())},
        "500": {"description": "internal_server_error: an unexpected fault; errors[0].detail.incident_id finds it in the server log (retry later)", "content": json_content(error.clone())},
        "501": {"description": "not_performed: this deployment cannot run a check the operation needs (errors[0].detail.detail says which, e.g. models not installed, no operator configured); not a fault: do not retry", "content": json_content(error.clone())},
        "503": {"description": "service_unavailable: the instance is shutting down before the request reached a worker, or holds as many request bodies as its budget allows (Retry-After: 1); retry", "headers": retry_after(false), "content": json_content(error.clone())},
        "default": {"description": "error envelope (error tables in docs/API.md)", "content": json_content(error)}
    })
}

fn security(auth: AuthScheme) -> Value {
    match auth {
        AuthScheme::AccessKey => json!([{"accessKey": []}]),
        AuthScheme::CustomerUserDevice => json!([{"customerUserDevice": []}]),
        AuthScheme::Jwt => json!([{"jwt": []}]),
    }
}

/// `GET` and `PATCH /v1/images/{id}` (router `image_resource`, uploads.rs).
fn image_resource_item(prefix: &str) -> Value {
    let error = json!({"$ref": "#/components/schemas/ErrorEnvelope"});
    let id = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "an uploaded image's id"}]);
    let op_id = |name: &str| if prefix.is_empty() { name.to_string() } else { format!("{name}_api") };
    json!({
        "parameters": id,
        "get": {
            "operationId": op_id("get_image"),
            "tags": ["Face"],
            "description": "The uploaded bytes, with the content type they were uploaded with.",
            "security": [{"accessKey": []}],
            "responses": {
                "200": {"description": "the bytes", "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}},
                "default": {"description": "error envelope (image_not_found_exception for another client's or an unknown id)", "content": json_content(error.clone())}
            }
        },
        "patch": {
            "operationId": op_id("update_image"),
            "tags": ["Face"],
            "description": "Set the label; merge metadata into what is stored (replace it with override: true).",
            "security": [{"accessKey": []}],
            "requestBody": {"required": true, "content": json_content(json!({
                "type": "object",
                "properties": {
                    "label": {"type": ["string", "null"], "maxLength": idv_schemas::validate::limits::LABEL},
                    "metadata": {"description": "a JSON object, or a string holding one", "type": ["object", "string"]},
                    "metatada": {"description": "the SDK's spelling of metadata", "type": ["object", "string"]},
                    "override": {"type": "boolean"}
                }
            }))},
            "responses": {
                "200": {"description": "the updated image", "content": json_content(ok_envelope(upload_resource()))},
                "default": {"description": "error envelope", "content": json_content(error)}
            }
        }
    })
}

pub fn document() -> Value {
    let mut paths = Map::new();
    let mut defs = Map::new();
    let api_error = hoist_defs(serde_json::to_value(schemars::schema_for!(idv_schemas::ApiError)).unwrap_or(Value::Null), &mut defs);
    defs.insert("ApiError".into(), api_error);
    envelope_components(&mut defs);
    let upload_data = hoist_defs(serde_json::to_value(schemars::schema_for!(UploadResponse)).unwrap_or(Value::Null), &mut defs);
    for op in Operation::ALL {
        let media_type = if matches!(op, Operation::Images | Operation::Files) { "multipart/form-data" } else { "application/json" };
        let mut content = Map::new();
        content.insert(media_type.to_string(), json!({"schema": hoist_defs(request_schema(*op), &mut defs)}));
        let request_body = json!({"required": true, "content": content});
        for prefix in ["", "/api"] {
            if !prefix.is_empty() && !op.path().starts_with("/v1/") {
                continue;
            }
            // operationId is unique across the document: the `/api` twin is `<name>_api`.
            let operation_id = if prefix.is_empty() { op.name().to_string() } else { format!("{}_api", op.name()) };
            let item = json!({
                "post": {
                    "operationId": operation_id,
                    "tags": [format!("{:?}", op.group())],
                    "deprecated": *op == Operation::EkycFullChecks,
                    "security": security(op.auth()),
                    "requestBody": request_body.clone(),
                    "responses": responses(*op, &upload_data)
                }
            });
            paths.insert(format!("{prefix}{}", op.path()), item);
        }
    }
    for prefix in ["", "/api"] {
        paths.insert(format!("{prefix}/v1/images/{{id}}"), image_resource_item(prefix));
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

/// The declared response schemas against the bodies the server really writes: each body
/// must match the schema of its operation and status, and bodies of another shape must not
/// (a schema that accepts anything documents nothing).
#[cfg(test)]
mod response_tests {
    use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group, Operation};
    use serde_json::{json, Value};

    /// A JSON Schema check for the keywords the document uses (`pattern`, `format`,
    /// `propertyNames` and `contentMediaType` are not checked). Returns why `v` does not
    /// match.
    fn check(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
        let Some(s) = schema.as_object() else {
            return if schema == &json!(false) { Err(format!("{at}: nothing allowed")) } else { Ok(()) };
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.strip_prefix("#/components/schemas/").ok_or_else(|| format!("{at}: $ref {r}"))?;
            check(doc, &doc["components"]["schemas"][name], v, at)?;
        }
        if let Some(t) = s.get("type") {
            let types: Vec<&str> = match t {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            let is = |name: &str| match name {
                "null" => v.is_null(),
                "boolean" => v.is_boolean(),
                "object" => v.is_object(),
                "array" => v.is_array(),
                "string" => v.is_string(),
                "number" => v.is_number(),
                "integer" => v.is_i64() || v.is_u64(),
                _ => false,
            };
            if !types.iter().any(|t| is(t)) {
                return Err(format!("{at}: {v} is not of type {t}"));
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                return Err(format!("{at}: {v} is not {c}"));
            }
        }
        if let Some(Value::Array(e)) = s.get("enum") {
            if !e.contains(v) {
                return Err(format!("{at}: {v} is not one of {e:?}"));
            }
        }
        if let Some(text) = v.as_str() {
            let n = text.chars().count() as u64;
            if s.get("minLength").and_then(Value::as_u64).is_some_and(|m| n < m) || s.get("maxLength").and_then(Value::as_u64).is_some_and(|m| n > m) {
                return Err(format!("{at}: length {n} out of range"));
            }
        }
        if let Some(n) = v.as_f64() {
            if s.get("minimum").and_then(Value::as_f64).is_some_and(|m| n < m) || s.get("maximum").and_then(Value::as_f64).is_some_and(|m| n > m) {
                return Err(format!("{at}: {n} out of range"));
            }
        }
        if let Some(o) = v.as_object() {
            if s.get("maxProperties").and_then(Value::as_u64).is_some_and(|m| (o.len() as u64) > m) {
                return Err(format!("{at}: more than maxProperties"));
            }
            for r in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !o.contains_key(r) {
                    return Err(format!("{at}: {r} is required"));
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (k, item) in o {
                match props.and_then(|p| p.get(k)) {
                    Some(p) => check(doc, p, item, &format!("{at}.{k}"))?,
                    None => {
                        if let Some(extra) = s.get("additionalProperties") {
                            check(doc, extra, item, &format!("{at}.{k}"))?;
                        }
                    }
                }
            }
        }
        if let Some(a) = v.as_array() {
            if s.get("minItems").and_then(Value::as_u64).is_some_and(|m| (a.len() as u64) < m) {
                return Err(format!("{at}: fewer than minItems"));
            }
            if s.get("maxItems").and_then(Value::as_u64).is_some_and(|m| (a.len() as u64) > m) {
                return Err(format!("{at}: more than maxItems"));
            }
            if let Some(items) = s.get("items") {
                for (i, item) in a.iter().enumerate() {
                    check(doc, items, item, &format!("{at}[{i}]"))?;
                }
            }
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            for sub in all {
                check(doc, sub, v, at)?;
            }
        }
        if let Some(Value::Array(any)) = s.get("anyOf") {
            if !any.iter().any(|sub| check(doc, sub, v, at).is_ok()) {
                return Err(format!("{at}: matches none of anyOf"));
            }
        }
        if let Some(Value::Array(one)) = s.get("oneOf") {
            let n = one.iter().filter(|sub| check(doc, sub, v, at).is_ok()).count();
            if n != 1 {
                return Err(format!("{at}: matches {n} of oneOf"));
            }
        }
        if let Some(not) = s.get("not") {
            if check(doc, not, v, at).is_ok() {
                return Err(format!("{at}: matches `not`"));
            }
        }
        Ok(())
    }

    /// The schema declared for `status` on `path` (or `default`), as schemathesis picks it.
    fn declared<'a>(doc: &'a Value, path: &str, method: &str, status: u16) -> &'a Value {
        let responses = &doc["paths"][path][method]["responses"];
        let r = if responses[status.to_string()].is_object() { &responses[status.to_string()] } else { &responses["default"] };
        &r["content"]["application/json"]["schema"]
    }

    fn conforms(doc: &Value, path: &str, status: u16, body: &Value) -> Result<(), String> {
        check(doc, declared(doc, path, "post", status), body, path)
    }

    fn error_kinds() -> Vec<ErrorKind> {
        vec![
            ErrorKind::invalid("faces[0].base64", "not base64"),
            ErrorKind::InvalidParameter { field: None, message: "request body is larger than 10 bytes".into() },
            ErrorKind::AccessDenied,
            ErrorKind::TimeSkewed,
            ErrorKind::RateLimited { retry_after_secs: 1 },
            ErrorKind::Timeout { request_id: Some("r".into()) },
            ErrorKind::ImageNotFound { field: Some("image1".into()) },
            ErrorKind::RequestNotFound,
            ErrorKind::FaceUserNotFound,
            ErrorKind::Internal { message: "disk full".into() },
            ErrorKind::NotAvailable { reason: "models are not installed".into() },
            ErrorKind::Overloaded { retry_after_secs: 1 },
            ErrorKind::QueueUnavailable { retry_after_secs: 5 },
            ErrorKind::Interrupted,
            ErrorKind::ShuttingDown,
            ErrorKind::MethodNotAllowed,
            ErrorKind::ChallengeNotFound,
            ErrorKind::BootstrapWaitTimeout,
        ]
    }

    /// Parse and validate `body` as the router does for `op`.
    fn server_accepts(op: Operation, body: &Value) -> bool {
        use idv_schemas::api::*;
        use idv_schemas::validate::{parse_json, Validate};
        fn run<T: serde::de::DeserializeOwned + Validate>(bytes: &[u8]) -> bool {
            parse_json::<T>(bytes).is_ok_and(|r| r.validate().is_ok())
        }
        let bytes = body.to_string().into_bytes();
        match op {
            Operation::FaceAuthRegister => run::<FaceAuthRegisterRequest>(&bytes),
            Operation::FaceAuth => run::<FaceAuthRequest>(&bytes),
            Operation::FaceAuthUser | Operation::FaceAuthUnlock => run::<CusUserRequest>(&bytes),
            Operation::MixCompareFacesSync => run::<MixCompareFacesRequest>(&bytes),
            Operation::ReadIdCardInfoWithSanity => run::<ReadIdCardRequest>(&bytes),
            Operation::EkycFullChecks => run::<EkycFullChecksRequest>(&bytes),
            Operation::SimSendOtp => run::<SimSendOtpRequest>(&bytes),
            Operation::SimVerifyInfo => run::<SimVerifyInfoRequest>(&bytes),
            Operation::UploadImage => run::<UploadImageRequest>(&bytes),
            Operation::GetRequestResult => run::<GetRequestResultRequest>(&bytes),
            other => panic!("no parser wired for {other:?} in this test"),
        }
    }

    #[test]
    fn request_schemas_state_the_limits_the_server_checks() {
        let doc = super::document();
        let img = json!({"base64": "aGVsbG8="});
        let long = "x".repeat(300);
        // (operation, a body the server accepts, bodies it refuses in validation)
        let cases = [
            (Operation::FaceAuthUser, json!({"cus_user_id": "u1"}), vec![json!({"cus_user_id": ""}), json!({"cus_user_id": long})]),
            (
                Operation::FaceAuth,
                json!({"cus_user_id": "u1", "faces": [img], "history_return_count": 5, "lat": 10.5, "selfie_type": "passive"}),
                vec![
                    json!({"cus_user_id": "u1", "faces": []}),
                    json!({"cus_user_id": "u1", "faces": [img], "history_return_count": 101}),
                    json!({"cus_user_id": "u1", "faces": [img], "lat": 91.0}),
                    json!({"cus_user_id": "u1", "faces": [img], "selfie_type": "selfie"}),
                    json!({"cus_user_id": "u1", "faces": [{"id": "a", "base64": "aGVsbG8="}]}),
                    json!({"cus_user_id": "u1", "faces": [{}]}),
                    json!({"cus_user_id": "u1", "faces": [{"id": "a", "label": "l"}]}),
                ],
            ),
            (
                Operation::FaceAuthRegister,
                json!({"cus_user_id": "u1", "face_in_id_card": img, "face_type": "id_card"}),
                vec![json!({"cus_user_id": "u1"}), json!({"cus_user_id": "u1", "faces": []}), json!({"cus_user_id": "u1", "faces": [img], "face_priority": "x"})],
            ),
            (Operation::MixCompareFacesSync, json!({"image1": {"id": "a"}, "image2": img}), vec![json!({"image1": {"id": ""}, "image2": img})]),
            (
                Operation::ReadIdCardInfoWithSanity,
                json!({"card_type": "vn.national_id", "image1": img}),
                vec![json!({"card_type": "xx", "image1": img}), json!({"card_type": "in.pan", "image1": img, "qr1_images": vec![img.clone(); 11]})],
            ),
            (
                Operation::EkycFullChecks,
                json!({"card_type": "in.aadhaar", "image1": img, "metadata": {"client_uid": "c"}}),
                vec![
                    json!({"card_type": "in.aadhaar", "image1": img, "metadata": {}}),
                    json!({"card_type": "in.aadhaar", "image1": {"id": "a"}, "metadata": {"client_uid": "c"}}),
                    json!({"card_type": "in.aadhaar", "image1": img, "selfies": vec![img.clone(); 4], "metadata": {"client_uid": "c"}}),
                ],
            ),
            (Operation::SimSendOtp, json!({"phone_number": "+84912345678"}), vec![json!({"phone_number": ""}), json!({"phone_number": "1".repeat(33)})]),
            (
                Operation::SimVerifyInfo,
                json!({"phone_number": "+84912345678", "fields": [{"name": "is_id", "value": ""}]}),
                vec![
                    json!({"phone_number": "+84912345678", "fields": []}),
                    json!({"phone_number": "+84912345678", "fields": [{"name": "nope", "value": ""}]}),
                    json!({"phone_number": "+84912345678", "fields": [{"name": "is_id", "value": "1".repeat(257)}]}),
                ],
            ),
            (
                Operation::UploadImage,
                json!({"base64": "aGVsbG8=", "label": "l", "metadata": {"k": 1}}),
                vec![json!({"base64": "aGVsbG8=", "label": "l".repeat(129)}), json!({"base64": "aGVsbG8=", "metadata": {"k": {"nested": 1}}})],
            ),
            (Operation::GetRequestResult, json!({"request_id": "r"}), vec![json!({"request_id": ""})]),
        ];
        for (op, good, bads) in cases {
            let schema = &doc["paths"][op.path()]["post"]["requestBody"]["content"]["application/json"]["schema"];
            assert!(server_accepts(op, &good), "{op:?}: the server refuses {good}");
            check(&doc, schema, &good, op.path()).unwrap_or_else(|why| panic!("{op:?}: the schema refuses {good}: {why}"));
            for bad in bads {
                assert!(!server_accepts(op, &bad), "{op:?}: the server accepts {bad}");
                assert!(check(&doc, schema, &bad, op.path()).is_err(), "{op:?}: the schema accepts {bad}, which the server refuses");
            }
        }
    }

    #[test]
    fn operation_ids_are_unique() {
        let doc = super::document();
        let mut seen = std::collections::HashSet::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (method, op) in item.as_object().into_iter().flatten() {
                if let Some(id) = op.get("operationId").and_then(Value::as_str) {
                    assert!(seen.insert(id.to_string()), "operationId {id} of {method} {path} is used twice");
                }
            }
        }
        assert!(seen.contains("face_auth") && seen.contains("face_auth_api"), "{seen:?}");
    }

    #[test]
    fn every_error_body_matches_its_declared_schema_and_no_other_shape_does() {
        let doc = super::document();
        for op in Operation::ALL {
            for kind in error_kinds() {
                let env = Envelope::error(op.group(), &kind);
                if let Err(why) = conforms(&doc, op.path(), env.http_status, &env.body) {
                    panic!("{} {}: {} does not match: {why}", op.path(), env.http_status, env.body);
                }
                // The other group's shape is not what this operation answers.
                let mut other = env.body.clone();
                match other.as_object_mut() {
                    Some(o) if op.group() == Group::Behavior => {
                        o.insert("data".into(), Value::Null);
                    }
                    Some(o) => {
                        o.remove("data");
                    }
                    None => {}
                }
                if *op != Operation::GetRequestResult {
                    assert!(conforms(&doc, op.path(), env.http_status, &other).is_err(), "{} accepts {other}", op.path());
                }
                // Exactly one error, with a code and a message; detail is an object.
                let mut two = env.body.clone();
                let first = two["errors"][0].clone();
                two["errors"] = json!([first.clone(), first]);
                assert!(conforms(&doc, op.path(), env.http_status, &two).is_err(), "{} accepts two errors", op.path());
                let mut bad_detail = env.body.clone();
                bad_detail["errors"][0]["detail"] = json!("text");
                assert!(conforms(&doc, op.path(), env.http_status, &bad_detail).is_err(), "{} accepts a string detail", op.path());
            }
        }
    }

    #[test]
    fn upload_answers_match_their_declared_data() {
        let doc = super::document();
        let meta = |kind: &str, label: Option<&str>| idv_store::BlobMeta {
            id: "img-1".into(),
            client_id: "c".into(),
            kind: kind.into(),
            size: 3,
            sha256: "ab".repeat(32),
            label: label.map(str::to_string),
            content_type: None,
            metadata: None,
            created_at: "2026-01-01T00:00:00Z".into(),
        };
        for label in [Some("selfie"), None] {
            for path in ["/v1/upload_image", "/v1/upload_file"] {
                let env = crate::router::upload_response(&meta("image", label), "req-1".into());
                conforms(&doc, path, 200, &env.body).unwrap_or_else(|why| panic!("{path}: {}: {why}", env.body));
                let mut no_id = env.body.clone();
                no_id["data"].as_object_mut().map(|d| d.remove("id"));
                assert!(conforms(&doc, path, 200, &no_id).is_err(), "{path} accepts data without id");
                assert!(conforms(&doc, path, 200, &json!({"data": null, "errors": []})).is_err(), "{path} accepts data null");
            }
            for (path, kind) in [("/v1/images", "image"), ("/v1/files", "file")] {
                let env = Envelope::ok(Group::Face, crate::uploads::resource_json(&meta(kind, label), "req-1".into()));
                conforms(&doc, path, 200, &env.body).unwrap_or_else(|why| panic!("{path}: {}: {why}", env.body));
                let mut no_kind_id = env.body.clone();
                no_kind_id["data"].as_object_mut().map(|d| d.remove(if kind == "image" { "image_id" } else { "file_id" }));
                assert!(conforms(&doc, path, 200, &no_kind_id).is_err(), "{path} accepts data without its id key");
                let patched = &doc["paths"]["/v1/images/{id}"]["patch"]["responses"]["200"]["content"]["application/json"]["schema"];
                if kind == "image" {
                    check(&doc, patched, &env.body, "PATCH").unwrap_or_else(|why| panic!("PATCH: {why}"));
                }
            }
        }
    }

    #[test]
    fn finished_answers_match_the_declared_200_and_malformed_ones_do_not() {
        let doc = super::document();
        let failure = |code: FailureCode| ApiError::failure(code, "why");
        let ok = [
            ("/v1/face_auth_user", Envelope::ok(Group::Face, json!({"status": "success", "request_id": "r", "verdict": "not_registered"})).body),
            (
                "/v1/face_auth",
                Envelope::finished(Group::Face, json!({"status": "failure", "request_id": "r"}), vec![failure(FailureCode::FaceAuthUserLocked)]).body,
            ),
            ("/v1/sim_verification_send_otp", Envelope::ok(Group::Sim, json!({"status": "success", "request_id": "r", "phone_number": "+84"})).body),
            ("/v1/register_device", Envelope::ok(Group::Behavior, json!({"customer_user_device_id": "d", "status": "success"})).body),
            (
                "/v1/behavior/score",
                Envelope::finished(Group::Behavior, json!({"request_id": "r", "status": "failure"}), vec![ApiError { code: "no_event_data".into(), message: "m".into(), detail: None }]).body,
            ),
            (
                "/v1/behavior/score",
                json!({"data": {"request_id": "r", "status": "success", "behavior_score": 1000, "risk_level": "LOW", "groups": {}, "explainers": [], "server_infos": {}}, "decision": {"final_action": "ALLOW", "action_payload": null}, "evaluation_details": {"applied_policies": []}}),
            ),
            (
                "/portal/ekyc/full_checks",
                json!({"data": {"request_id": "r", "card_information": [], "compare_faces": [], "liveness_check": null, "portrait_sanity": null, "card_sanity": null, "card_tampering": null, "not_performed": ["card_sanity"]}, "errors": [], "message": "m", "time": "2026-01-01T00:00:00Z", "verdict": "failure"}),
            ),
            (
                "/portal/ekyc/full_checks",
                json!({"data": {"request_id": "r", "card_information": [], "compare_faces": [], "liveness_check": null, "portrait_sanity": null,
                                "card_sanity": {"verdict": "good", "score": 1.0, "score_details": [{"verdict": "image_too_blur", "score": 0.0}], "verdict_details": {"first_issue": "good"}},
                                "card_tampering": {"verdict": "good", "score": 0.0, "details": [{"verdict": "good", "score": 0.0, "name": "portrait", "info": "a face on the card"}]},
                                "not_performed": []}, "errors": [], "message": "every check ran and passed", "time": "2026-01-01T00:00:00Z", "verdict": "success"}),
            ),
            ("/v1/get_request_result", json!({"data": {"status": "processing", "request_id": "r", "operation": "face_auth"}, "errors": []})),
            ("/v1/get_request_result", Envelope::ok(Group::Behavior, json!({"customer_user_device_id": "d", "status": "success"})).body),
        ];
        for (path, body) in &ok {
            conforms(&doc, path, 200, body).unwrap_or_else(|why| panic!("{path}: {body}: {why}"));
        }
        let not_ok = [
            // success with errors, failure without
            ("/v1/face_auth_user", json!({"data": {"status": "success", "request_id": "r", "verdict": "registered"}, "errors": [{"code": "c", "message": "m"}]})),
            ("/v1/face_auth", json!({"data": {"status": "failure", "request_id": "r"}, "errors": []})),
            // a success without the operation's own fields
            ("/v1/face_auth_user", json!({"data": {"status": "success", "request_id": "r"}, "errors": []})),
            // no request id; no errors key on a non-behavioral answer
            ("/v1/sim_verification_send_otp", json!({"data": {"status": "success", "phone_number": "+84"}, "errors": []})),
            ("/v1/face_auth_user", json!({"data": {"status": "success", "request_id": "r", "verdict": "registered"}})),
            // a behavioral success carries no errors key; a score without its score
            ("/v1/register_device", json!({"data": {"customer_user_device_id": "d", "status": "success"}, "errors": []})),
            ("/v1/behavior/score", json!({"data": {"request_id": "r", "status": "success"}})),
            ("/portal/ekyc/full_checks", json!({"data": {"request_id": "r"}, "errors": []})),
        ];
        for (path, body) in &not_ok {
            assert!(conforms(&doc, path, 200, body).is_err(), "{path} accepts {body}");
        }
    }
}
