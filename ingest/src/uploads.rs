//! Uploads the way the published TrustVision SDK sends them (docs/API.md "TrustVision SDK
//! compatibility"): `POST /v1/images` and `POST /v1/files` as `multipart/form-data` with a
//! `file` part, an optional `label` and metadata as `metadata[k]` parts (or one `metadata`
//! part holding a JSON object); `GET /v1/images/{id}` downloads the bytes and
//! `PATCH /v1/images/{id}` updates label and metadata. Same blobs, same size limits and
//! same ids as the JSON `upload_image`/`upload_file`: an id from either works in every
//! operation.
//!
//! The form is parsed by `multer` (the parser axum's own multipart uses) from the body
//! ingest has already read under its cap, so no part can make it read more.

use crate::auth::Caller;
use crate::AppState;
use bytes::Bytes;
use idv_schemas::validate::limits;
use idv_schemas::{Envelope, ErrorKind, Group};
use serde_json::{json, Map, Value};

/// Text parts (label, metadata entries) larger than this are refused.
pub const MAX_TEXT_PART: usize = 64 * 1024;
/// Parts per form: a file, a label and metadata entries.
pub const MAX_PARTS: usize = 64;

/// What a multipart upload carried.
#[derive(Debug, Default, PartialEq)]
pub struct UploadForm {
    pub file: Vec<u8>,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub label: Option<String>,
    pub metadata: Map<String, Value>,
}

fn invalid(field: &str, message: impl Into<String>) -> ErrorKind {
    ErrorKind::invalid(field, message)
}

/// Parse a multipart upload whose body was already read. `max_file` bounds the file part.
/// Unknown text parts are ignored (the SDK sends caller-chosen keys such as
/// `imageLabel`); a second `file` part, a missing one, or an oversized part is refused.
pub async fn parse_form(content_type: Option<&str>, body: Bytes, max_file: usize) -> Result<UploadForm, ErrorKind> {
    let boundary = content_type
        .and_then(|ct| multer::parse_boundary(ct).ok())
        .ok_or_else(|| ErrorKind::InvalidParameter { field: None, message: "expected multipart/form-data with a boundary".into() })?;
    let stream = futures::stream::once(async move { Ok::<Bytes, std::convert::Infallible>(body) });
    let mut multipart = multer::Multipart::new(stream, boundary);
    let mut form = UploadForm::default();
    let mut seen_file = false;
    let mut parts = 0usize;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => return Err(ErrorKind::InvalidParameter { field: None, message: format!("malformed multipart body: {e}") }),
        };
        parts += 1;
        if parts > MAX_PARTS {
            return Err(ErrorKind::InvalidParameter { field: None, message: format!("at most {MAX_PARTS} form parts") });
        }
        let name = field.name().unwrap_or_default().to_string();
        if name == "file" {
            if seen_file {
                return Err(invalid("file", "exactly one file part"));
            }
            seen_file = true;
            form.filename = field.file_name().map(str::to_string);
            form.content_type = field.content_type().map(|m| m.to_string());
            let bytes = field.bytes().await.map_err(|e| invalid("file", format!("unreadable file part: {e}")))?;
            if bytes.is_empty() {
                return Err(invalid("file", "file is empty"));
            }
            if bytes.len() > max_file {
                return Err(invalid("file", format!("file is larger than {max_file} bytes")));
            }
            form.file = bytes.to_vec();
            continue;
        }
        let bytes = field.bytes().await.map_err(|e| invalid(&name, format!("unreadable part: {e}")))?;
        if bytes.len() > MAX_TEXT_PART {
            return Err(invalid(&name, format!("part is larger than {MAX_TEXT_PART} bytes")));
        }
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| invalid(&name, "not valid UTF-8"))?;
        if name == "label" {
            if text.chars().count() > limits::LABEL {
                return Err(invalid("label", format!("at most {} characters", limits::LABEL)));
            }
            form.label = Some(text);
        } else if name == "metadata" {
            // One part holding a JSON object (string_json).
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(m)) => form.metadata.extend(m),
                _ => return Err(invalid("metadata", "metadata must be a JSON object")),
            }
        } else if let Some(key) = name.strip_prefix("metadata[").and_then(|k| k.strip_suffix(']')) {
            form.metadata.insert(key.to_string(), Value::String(text));
        }
    }
    if !seen_file {
        return Err(invalid("file", "a file part is required"));
    }
    Ok(form)
}

/// `POST /v1/images` (`kind` "image") and `POST /v1/files` ("file"): the answer names the
/// id as the SDK reads it (`image_id` / `file_id`) and as upload_image does (`id`).
pub async fn upload(state: &AppState, caller: &Caller, content_type: Option<&str>, body: &[u8], kind: &str) -> Result<Envelope, ErrorKind> {
    let max = if kind == "image" { state.config.max_image_bytes } else { state.config.max_file_bytes };
    let form = parse_form(content_type, Bytes::copy_from_slice(body), max).await?;
    let metadata = (!form.metadata.is_empty()).then(|| Value::Object(form.metadata.clone()).to_string());
    let label = form.label.clone().or_else(|| form.filename.clone());
    let meta = crate::media::store_blob(state, caller, kind, form.file, label, form.content_type, metadata).await?;
    Ok(Envelope::ok(Group::Face, resource_json(&meta, uuid::Uuid::new_v4().to_string())))
}

/// An uploaded blob as the SDK and upload_image both read it.
pub fn resource_json(meta: &idv_store::BlobMeta, request_id: String) -> Value {
    let id_key = if meta.kind == "image" { "image_id" } else { "file_id" };
    let metadata = meta.metadata.as_deref().and_then(|m| serde_json::from_str::<Value>(m).ok()).unwrap_or_else(|| json!({}));
    json!({
        "status": "success", id_key: meta.id, "id": meta.id, "request_id": request_id,
        "size": meta.size, "sha256": meta.sha256, "label": meta.label, "metadata": metadata,
        "content_type": meta.content_type, "created_at": meta.created_at,
    })
}

/// The caller's own image, or `image_not_found_exception`.
pub async fn own_image(state: &AppState, caller: &Caller, id: &str) -> Result<idv_store::BlobMeta, ErrorKind> {
    let meta = state.store.get_blob_meta(id).await.map_err(|e| ErrorKind::Internal { message: e.to_string() })?;
    meta.filter(|m| m.client_id == caller.client_id && m.kind == "image").ok_or(ErrorKind::ImageNotFound { field: Some("id".into()) })
}

/// `PATCH /v1/images/{id}`: `label`, and `metadata` merged into what is stored (replaced
/// with `"override": true`). `metatada` is accepted for `metadata` (the SDK's type
/// declaration spells it so).
pub async fn update(state: &AppState, caller: &Caller, id: &str, body: &[u8]) -> Result<Envelope, ErrorKind> {
    let mut meta = own_image(state, caller, id).await?;
    let req: Map<String, Value> = idv_schemas::validate::parse_json(body)?;
    if let Some(label) = req.get("label") {
        match label {
            Value::String(l) if l.chars().count() <= limits::LABEL => meta.label = Some(l.clone()),
            Value::Null => meta.label = None,
            _ => return Err(invalid("label", format!("label must be a string of at most {} characters", limits::LABEL))),
        }
    }
    let given = req.get("metadata").or_else(|| req.get("metatada"));
    if let Some(given) = given {
        let new: Map<String, Value> = match given {
            Value::Object(m) => m.clone(),
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(m)) => m,
                _ => return Err(invalid("metadata", "metadata must be a JSON object or a string holding one")),
            },
            _ => return Err(invalid("metadata", "metadata must be a JSON object or a string holding one")),
        };
        let replace = req.get("override").and_then(Value::as_bool).unwrap_or(false);
        let mut merged: Map<String, Value> =
            if replace { Map::new() } else { meta.metadata.as_deref().and_then(|m| serde_json::from_str(m).ok()).unwrap_or_default() };
        merged.extend(new);
        meta.metadata = Some(Value::Object(merged).to_string());
    }
    state.store.put_blob_meta(&meta).await.map_err(|e| ErrorKind::Internal { message: e.to_string() })?;
    Ok(Envelope::ok(Group::Face, resource_json(&meta, uuid::Uuid::new_v4().to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Bytes) {
        let boundary = "----idv-test-boundary";
        let mut body = Vec::new();
        for (name, filename, data) in parts {
            body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            match filename {
                Some(f) => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: image/jpeg\r\n\r\n").as_bytes()),
                None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
            }
            body.extend_from_slice(data);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        (format!("multipart/form-data; boundary={boundary}"), Bytes::from(body))
    }

    #[tokio::test]
    async fn the_sdk_form_parses() {
        let (ct, body) = form(&[("file", Some("face.jpg"), b"\xff\xd8jpeg"), ("label", None, b"portrait"), ("metadata[source]", None, b"web"), ("imageLabel", None, b"x")]);
        let f = parse_form(Some(&ct), body, 1024).await.unwrap_or_default();
        assert_eq!(f.file, b"\xff\xd8jpeg");
        assert_eq!((f.filename.as_deref(), f.content_type.as_deref(), f.label.as_deref()), (Some("face.jpg"), Some("image/jpeg"), Some("portrait")));
        assert_eq!(f.metadata.get("source"), Some(&json!("web")));
    }

    #[tokio::test]
    async fn bad_forms_are_invalid_parameters_naming_the_part() {
        let field_of = |r: Result<UploadForm, ErrorKind>| match r {
            Err(ErrorKind::InvalidParameter { field, .. }) => field,
            other => panic!("expected an invalid parameter, got {other:?}"),
        };
        let (ct, body) = form(&[("label", None, b"no file")]);
        assert_eq!(field_of(parse_form(Some(&ct), body, 1024).await).as_deref(), Some("file"));
        let (ct, body) = form(&[("file", Some("a"), b"1"), ("file", Some("b"), b"2")]);
        assert_eq!(field_of(parse_form(Some(&ct), body, 1024).await).as_deref(), Some("file"));
        let (ct, body) = form(&[("file", Some("a"), &[7u8; 2048])]);
        assert_eq!(field_of(parse_form(Some(&ct), body, 1024).await).as_deref(), Some("file"));
        let (ct, body) = form(&[("file", Some("a"), b"1"), ("metadata", None, b"[1]")]);
        assert_eq!(field_of(parse_form(Some(&ct), body, 1024).await).as_deref(), Some("metadata"));
        let (ct, body) = form(&[("file", Some("a"), b"1"), ("label", None, b"\xff\xfe")]);
        assert_eq!(field_of(parse_form(Some(&ct), body, 1024).await).as_deref(), Some("label"));
        // Not multipart at all, or a body cut short.
        assert!(parse_form(Some("application/json"), Bytes::from_static(b"{}"), 1024).await.is_err());
        let (ct, body) = form(&[("file", Some("a"), b"12345")]);
        assert!(parse_form(Some(&ct), body.slice(..body.len() / 2), 1024).await.is_err());
    }

    #[tokio::test]
    async fn random_bodies_never_panic() {
        let (ct, body) = form(&[("file", Some("a"), b"12345"), ("label", None, b"l"), ("metadata[k]", None, b"v")]);
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..2000 {
            let mut b = body.to_vec();
            for _ in 0..3 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state as usize) % b.len().max(1);
                match state % 3 {
                    0 => b[i] = (state >> 8) as u8,
                    1 => b.truncate(i),
                    _ => b.insert(i, b"\r\n-\""[(state >> 16) as usize % 4]),
                }
            }
            let _ = parse_form(Some(&ct), Bytes::from(b), 1024).await;
        }
    }
}
