//! Request and response bodies of every operation (spec, Endpoints), with their checks.
//!
//! Unknown request fields are ignored (clients of a versioned API add fields before the
//! server knows them). Media may come inline (`base64`) or by reference (`id`); ingest
//! moves inline media to the blob store before a job is published, so jobs on the bus only
//! carry references (see [`MediaSlot`]).

use crate::error::ErrorKind;
use crate::validate::{self as v, limits, MetadataKind, Validate};
use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub type JsonObject = Map<String, Value>;

/// Schema helpers: the request types' `/openapi.json` schemas state the limits their
/// `Validate` impls check (a generator that follows the document sends what the server
/// accepts, and a client reads the limits there).
mod doc {
    use serde_json::{json, Value};

    /// An optional string field restricted to `values` (absent or null is fine too).
    pub fn enum_or_null(values: &[&str]) -> Value {
        let mut v: Vec<Value> = values.iter().map(|s| json!(s)).collect();
        v.push(Value::Null);
        Value::Array(v)
    }

    /// `string_json` (docs/API.md Conventions): a flat object of strings, integers,
    /// floats or booleans, at most 64 keys (keys ≤ 128 characters, strings ≤ 4096); or a
    /// string holding such an object. The comparison and card operations take strings only.
    pub fn string_json(schema: &mut schemars::Schema) {
        let object = json!({
            "type": "object",
            "maxProperties": crate::validate::limits::METADATA_KEYS,
            "propertyNames": {"maxLength": crate::validate::limits::METADATA_KEY_LEN},
            "additionalProperties": {"type": ["string", "integer", "number", "boolean"], "maxLength": crate::validate::limits::METADATA_VALUE_LEN}
        });
        *schema = schemars::Schema::try_from(json!({
            "description": "string_json: an object, or a string holding one; null counts as absent",
            "anyOf": [object, {"type": "string", "contentMediaType": "application/json"}, {"type": "null"}]
        }))
        .unwrap_or_default();
    }

    /// `json_object`: any JSON object, at most 64 keys and 16 KiB serialized.
    pub fn json_object(schema: &mut schemars::Schema) {
        *schema = schemars::Schema::try_from(json!({
            "description": "json_object: any JSON object (at most 64 keys, 16 KiB serialized), or a string holding one; null counts as absent",
            "anyOf": [
                {"type": "object", "maxProperties": crate::validate::limits::METADATA_KEYS},
                {"type": "string", "contentMediaType": "application/json"},
                {"type": "null"}
            ]
        }))
        .unwrap_or_default();
    }
}

/// `metadata` as an object, or as a string holding a JSON object: the spec types it
/// `string_json` on the face endpoints, and SDKs send that as a serialized object. Either
/// way the request carries an object from here on. A string that is not a JSON object is
/// an invalid parameter (`parse_json` names the field).
pub mod object_or_json_string {
    use super::JsonObject;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<JsonObject>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
                Ok(Value::Object(m)) => Ok(Some(m)),
                _ => Err(D::Error::custom("metadata given as a string must hold a JSON object")),
            },
            Some(_) => Err(D::Error::custom("metadata must be an object or a string holding a JSON object")),
        }
    }
}

/// ImageData (spec, Resources): either `id`, or `base64` with optional label and metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("oneOf" = [
    {"required": ["id"], "properties": {"id": {"type": "string"}}, "not": {"anyOf": [{"required": ["base64"]}, {"required": ["label"]}, {"required": ["metadata"]}]}},
    {"required": ["base64"], "properties": {"base64": {"type": "string"}}, "not": {"required": ["id"]}}
]))]
pub struct ImageData {
    /// An id returned by `upload_image` (or `POST /v1/images`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = limits::ID_LEN), pattern(r"\S"))]
    pub id: Option<String>,
    /// Standard base64 (padding optional, a `data:...;base64,` prefix accepted); at most
    /// 10 MiB decoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "byte"), length(min = 1))]
    pub base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::LABEL))]
    pub label: Option<String>,
    /// `string_json` on the face operations and the eKYC check; strings only on the
    /// comparison and card operations.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::string_json)]
    pub metadata: Option<JsonObject>,
}

impl ImageData {
    pub fn check(&self, field: &str, kind: MetadataKind) -> Result<(), ErrorKind> {
        match (&self.id, &self.base64) {
            (Some(_), Some(_)) => Err(ErrorKind::invalid(field, "give either id or base64, not both")),
            (None, None) => Err(ErrorKind::invalid(field, "one of id or base64 is required")),
            (Some(id), None) => {
                if self.label.is_some() || self.metadata.is_some() {
                    return Err(ErrorKind::invalid(field, "label and metadata go with base64, not with id"));
                }
                v::required_str(&format!("{field}.id"), id, limits::ID_LEN)
            }
            (None, Some(_)) => {
                v::max_len(&format!("{field}.label"), self.label.as_deref(), limits::LABEL)?;
                v::metadata(&format!("{field}.metadata"), self.metadata.as_ref(), kind)
            }
        }
    }
}

/// A frame of an inline video. `id` is an extension: a frame may reference an uploaded
/// image instead of carrying base64 (ingest uses it when it moves frames to blobs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("anyOf" = [
    {"required": ["id"], "properties": {"id": {"type": "string"}}},
    {"required": ["base64"], "properties": {"base64": {"type": "string"}}}
]))]
pub struct FrameData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "byte"))]
    pub base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::LABEL))]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::string_json)]
    pub metadata: Option<JsonObject>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("oneOf" = [
    {"required": ["id"], "properties": {"id": {"type": "string"}}, "not": {"anyOf": [{"required": ["frames"]}, {"required": ["metadata"]}]}},
    {"required": ["frames"], "properties": {"frames": {"type": "array"}}, "not": {"required": ["id"]}}
]))]
pub struct Video {
    /// An `upload_file` id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = limits::ID_LEN), pattern(r"\S"))]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::string_json)]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = limits::FRAMES_PER_VIDEO))]
    pub frames: Option<Vec<FrameData>>,
}

impl Video {
    fn check(&self, field: &str) -> Result<(), ErrorKind> {
        match (&self.id, &self.frames) {
            (Some(_), Some(_)) => Err(ErrorKind::invalid(field, "give either id or frames, not both")),
            (None, None) => Err(ErrorKind::invalid(field, "one of id or frames is required")),
            (Some(id), None) => {
                if self.metadata.is_some() {
                    return Err(ErrorKind::invalid(field, "metadata goes with frames, not with id"));
                }
                v::required_str(&format!("{field}.id"), id, limits::ID_LEN)
            }
            (None, Some(frames)) => {
                if frames.is_empty() {
                    return Err(ErrorKind::invalid(format!("{field}.frames"), "frames must not be empty"));
                }
                v::max_items(&format!("{field}.frames"), Some(frames), limits::FRAMES_PER_VIDEO)?;
                v::metadata(&format!("{field}.metadata"), self.metadata.as_ref(), MetadataKind::StringJson)?;
                for (i, f) in frames.iter().enumerate() {
                    let at = format!("{field}.frames[{i}]");
                    if f.base64.is_none() && f.id.is_none() {
                        return Err(ErrorKind::invalid(at, "a frame needs base64"));
                    }
                    v::max_len(&format!("{at}.label"), f.label.as_deref(), limits::LABEL)?;
                    v::metadata(&format!("{at}.metadata"), f.metadata.as_ref(), MetadataKind::StringJson)?;
                }
                Ok(())
            }
        }
    }
}

pub const GESTURES: &[&str] = &["left", "right", "up", "down"];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GestureImage {
    #[schemars(extend("enum" = GESTURES))]
    pub gesture: String,
    #[schemars(length(min = 1, max = limits::MEDIA_ENTRIES))]
    pub images: Vec<ImageData>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GestureVideo {
    #[schemars(extend("enum" = GESTURES))]
    pub gesture: String,
    #[schemars(length(min = 1, max = limits::MEDIA_ENTRIES))]
    pub videos: Vec<Video>,
}

/// What kind of blob a media slot refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    VideoFile,
}

/// One place in a request where media is referenced (`id`) or inline (`base64`).
pub struct MediaSlot<'a> {
    pub field: String,
    pub kind: MediaKind,
    pub id: &'a mut Option<String>,
    /// `None` for slots that can only hold references (uploaded video files).
    pub base64: Option<&'a mut Option<String>>,
    /// The inline item's `label` and `metadata` (JSON object text), stored with its blob
    /// as an upload stores them. They also stay in the request (the flash check reads
    /// its frames' `flash_color`).
    pub label: Option<String>,
    pub metadata: Option<String>,
}

fn metadata_text(m: Option<&JsonObject>) -> Option<String> {
    m.map(|m| Value::Object(m.clone()).to_string())
}

/// Implemented by requests that carry media, so ingest can resolve references and move
/// inline data to blobs in one generic pass.
pub trait HasMedia {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>>;
}

fn image_slot<'a>(field: String, img: &'a mut ImageData, out: &mut Vec<MediaSlot<'a>>) {
    let (label, metadata) = (img.label.clone(), metadata_text(img.metadata.as_ref()));
    out.push(MediaSlot { field, kind: MediaKind::Image, id: &mut img.id, base64: Some(&mut img.base64), label, metadata });
}

fn images_slots<'a>(field: &str, imgs: Option<&'a mut Vec<ImageData>>, out: &mut Vec<MediaSlot<'a>>) {
    for (i, img) in imgs.into_iter().flatten().enumerate() {
        image_slot(format!("{field}[{i}]"), img, out);
    }
}

fn video_slots<'a>(field: String, video: &'a mut Video, out: &mut Vec<MediaSlot<'a>>) {
    if video.id.is_some() {
        out.push(MediaSlot { field, kind: MediaKind::VideoFile, id: &mut video.id, base64: None, label: None, metadata: None });
    } else {
        for (i, f) in video.frames.iter_mut().flatten().enumerate() {
            let (label, metadata) = (f.label.clone(), metadata_text(f.metadata.as_ref()));
            out.push(MediaSlot {
                field: format!("{field}.frames[{i}]"),
                kind: MediaKind::Image,
                id: &mut f.id,
                base64: Some(&mut f.base64),
                label,
                metadata,
            });
        }
    }
}

fn videos_slots<'a>(field: &str, videos: Option<&'a mut Vec<Video>>, out: &mut Vec<MediaSlot<'a>>) {
    for (i, video) in videos.into_iter().flatten().enumerate() {
        video_slots(format!("{field}[{i}]"), video, out);
    }
}

fn gesture_slots<'a>(
    gesture_faces: Option<&'a mut Vec<GestureImage>>,
    gesture_videos: Option<&'a mut Vec<GestureVideo>>,
    out: &mut Vec<MediaSlot<'a>>,
) {
    for (i, g) in gesture_faces.into_iter().flatten().enumerate() {
        images_slots(&format!("gesture_faces[{i}].images"), Some(&mut g.images), out);
    }
    for (i, g) in gesture_videos.into_iter().flatten().enumerate() {
        videos_slots(&format!("gesture_videos[{i}].videos"), Some(&mut g.videos), out);
    }
}

/// Decode base64 media (standard alphabet, padding optional, data-URL prefix tolerated).
pub fn decode_media(field: &str, b64: &str, max_bytes: usize) -> Result<Vec<u8>, ErrorKind> {
    let s = match b64.find(";base64,") {
        Some(i) if b64.starts_with("data:") => &b64[i + 8..],
        _ => b64,
    };
    let s = s.trim();
    // Cheap bound before decoding: 4 base64 chars carry 3 bytes.
    if s.len() / 4 * 3 > max_bytes + 3 {
        return Err(ErrorKind::invalid(field, format!("{field} is larger than {max_bytes} bytes")));
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let bytes = engine
        .decode(s)
        .map_err(|e| ErrorKind::invalid(field, format!("{field} is not valid base64: {e}")))?;
    if bytes.is_empty() {
        return Err(ErrorKind::invalid(field, format!("{field} is empty")));
    }
    if bytes.len() > max_bytes {
        return Err(ErrorKind::invalid(field, format!("{field} is larger than {max_bytes} bytes")));
    }
    Ok(bytes)
}

fn check_images(field: &str, imgs: Option<&Vec<ImageData>>, max: usize, kind: MetadataKind) -> Result<(), ErrorKind> {
    v::max_items(field, imgs, max)?;
    for (i, img) in imgs.into_iter().flatten().enumerate() {
        img.check(&format!("{field}[{i}]"), kind)?;
    }
    Ok(())
}

fn check_face_media(
    gesture_faces: Option<&Vec<GestureImage>>,
    videos: Option<&Vec<Video>>,
    gesture_videos: Option<&Vec<GestureVideo>>,
) -> Result<(), ErrorKind> {
    v::max_items("gesture_faces", gesture_faces, limits::MEDIA_ENTRIES)?;
    for (i, g) in gesture_faces.into_iter().flatten().enumerate() {
        let at = format!("gesture_faces[{i}]");
        v::one_of(&format!("{at}.gesture"), Some(&g.gesture), GESTURES)?;
        if g.images.is_empty() {
            return Err(ErrorKind::invalid(format!("{at}.images"), "images must not be empty"));
        }
        check_images(&format!("{at}.images"), Some(&g.images), limits::MEDIA_ENTRIES, MetadataKind::StringJson)?;
    }
    v::max_items("videos", videos, limits::MEDIA_ENTRIES)?;
    for (i, video) in videos.into_iter().flatten().enumerate() {
        video.check(&format!("videos[{i}]"))?;
    }
    v::max_items("gesture_videos", gesture_videos, limits::MEDIA_ENTRIES)?;
    for (i, g) in gesture_videos.into_iter().flatten().enumerate() {
        let at = format!("gesture_videos[{i}]");
        v::one_of(&format!("{at}.gesture"), Some(&g.gesture), GESTURES)?;
        if g.videos.is_empty() {
            return Err(ErrorKind::invalid(format!("{at}.videos"), "videos must not be empty"));
        }
        v::max_items(&format!("{at}.videos"), Some(&g.videos), limits::MEDIA_ENTRIES)?;
        for (j, video) in g.videos.iter().enumerate() {
            video.check(&format!("{at}.videos[{j}]"))?;
        }
    }
    Ok(())
}

fn check_history(count: Option<i64>, status: Option<&str>) -> Result<(), ErrorKind> {
    if let Some(c) = count {
        if !(0..=limits::HISTORY_RETURN_COUNT_MAX).contains(&c) {
            return Err(ErrorKind::invalid(
                "history_return_count",
                format!("history_return_count must be within 0..={}", limits::HISTORY_RETURN_COUNT_MAX),
            ));
        }
    }
    v::one_of("history_return_status", status, &["success", "failure", "all"])
}

// ---------------------------------------------------------------- 1. face_auth_register

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("anyOf" = [
    {"required": ["faces"], "properties": {"faces": {"type": "array", "minItems": 1}}},
    {"required": ["face_in_id_card"], "properties": {"face_in_id_card": {"type": "object"}}}
]))]
pub struct FaceAuthRegisterRequest {
    #[schemars(length(min = 1, max = limits::CUS_USER_ID), pattern(r"\S"))]
    pub cus_user_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub faces: Option<Vec<ImageData>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub gesture_faces: Option<Vec<GestureImage>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub videos: Option<Vec<Video>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub gesture_videos: Option<Vec<GestureVideo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face_in_id_card: Option<ImageData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::DEVICE_ID))]
    pub device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::APP_ID))]
    pub app_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -90.0, max = 90.0))]
    pub lat: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -180.0, max = 180.0))]
    pub lng: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = doc::enum_or_null(&["selfie", "id_card"])))]
    pub face_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::SELFIE_TYPE))]
    pub selfie_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = limits::HISTORY_RETURN_COUNT_MAX))]
    pub history_return_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = doc::enum_or_null(&["success", "failure", "all"])))]
    pub history_return_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::json_object)]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = doc::enum_or_null(&["selfie", "id_card"])))]
    pub face_priority: Option<String>,
    /// Report-only; a non-boolean value is ignored with a warning (spec), so it is kept
    /// as raw JSON here and resolved by [`FaceAuthRegisterRequest::camera_challenge_performed`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<bool>")]
    pub camera_challenge_performed: Option<Value>,
}

impl FaceAuthRegisterRequest {
    /// `(value, warning)`: non-boolean input counts as false and yields a warning.
    pub fn camera_challenge_performed(&self) -> (bool, Option<&'static str>) {
        match &self.camera_challenge_performed {
            None | Some(Value::Null) => (false, None),
            Some(Value::Bool(b)) => (*b, None),
            Some(_) => (false, Some("camera_challenge_performed is not a boolean; ignored")),
        }
    }
}

impl Validate for FaceAuthRegisterRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::required_str("cus_user_id", &self.cus_user_id, limits::CUS_USER_ID)?;
        if self.face_in_id_card.is_none() && self.faces.as_ref().is_none_or(|f| f.is_empty()) {
            return Err(ErrorKind::invalid("faces", "at least one of face_in_id_card or faces is required"));
        }
        check_images("faces", self.faces.as_ref(), limits::MEDIA_ENTRIES, MetadataKind::StringJson)?;
        if let Some(img) = &self.face_in_id_card {
            img.check("face_in_id_card", MetadataKind::StringJson)?;
        }
        check_face_media(self.gesture_faces.as_ref(), self.videos.as_ref(), self.gesture_videos.as_ref())?;
        v::max_len("device_id", self.device_id.as_deref(), limits::DEVICE_ID)?;
        v::max_len("app_id", self.app_id.as_deref(), limits::APP_ID)?;
        v::lat_lng(self.lat, self.lng)?;
        v::one_of("face_type", self.face_type.as_deref(), &["selfie", "id_card"])?;
        v::max_len("selfie_type", self.selfie_type.as_deref(), limits::SELFIE_TYPE)?;
        v::one_of("face_priority", self.face_priority.as_deref(), &["selfie", "id_card"])?;
        check_history(self.history_return_count, self.history_return_status.as_deref())?;
        v::json_object("metadata", self.metadata.as_ref())
    }
}

impl HasMedia for FaceAuthRegisterRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        images_slots("faces", self.faces.as_mut(), &mut out);
        if let Some(img) = self.face_in_id_card.as_mut() {
            image_slot("face_in_id_card".into(), img, &mut out);
        }
        videos_slots("videos", self.videos.as_mut(), &mut out);
        gesture_slots(self.gesture_faces.as_mut(), self.gesture_videos.as_mut(), &mut out);
        out
    }
}

// ---------------------------------------------------------------- 2. face_auth

pub const AUTH_SELFIE_TYPES: &[&str] = &[
    "light", "passive", "active", "flash", "flash_8", "flash_16", "flash_32", "flash_edge", "flash_advanced",
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FaceAuthRequest {
    #[schemars(length(min = 1, max = limits::CUS_USER_ID), pattern(r"\S"))]
    pub cus_user_id: String,
    #[schemars(length(min = 1, max = limits::MEDIA_ENTRIES))]
    pub faces: Vec<ImageData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub gesture_faces: Option<Vec<GestureImage>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub videos: Option<Vec<Video>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MEDIA_ENTRIES))]
    pub gesture_videos: Option<Vec<GestureVideo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::DEVICE_ID))]
    pub device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::APP_ID))]
    pub app_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -90.0, max = 90.0))]
    pub lat: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -180.0, max = 180.0))]
    pub lng: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::AUTH_TYPE))]
    pub auth_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::CLIENT_TRANSACTION_ID))]
    pub client_transaction_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = doc::enum_or_null(AUTH_SELFIE_TYPES)))]
    pub selfie_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = limits::HISTORY_RETURN_COUNT_MAX))]
    pub history_return_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = doc::enum_or_null(&["success", "failure", "all"])))]
    pub history_return_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::json_object)]
    pub metadata: Option<JsonObject>,
}

impl Validate for FaceAuthRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::required_str("cus_user_id", &self.cus_user_id, limits::CUS_USER_ID)?;
        if self.faces.is_empty() {
            return Err(ErrorKind::invalid("faces", "faces must not be empty"));
        }
        check_images("faces", Some(&self.faces), limits::MEDIA_ENTRIES, MetadataKind::StringJson)?;
        check_face_media(self.gesture_faces.as_ref(), self.videos.as_ref(), self.gesture_videos.as_ref())?;
        v::max_len("device_id", self.device_id.as_deref(), limits::DEVICE_ID)?;
        v::max_len("app_id", self.app_id.as_deref(), limits::APP_ID)?;
        v::lat_lng(self.lat, self.lng)?;
        v::max_len("auth_type", self.auth_type.as_deref(), limits::AUTH_TYPE)?;
        v::max_len("client_transaction_id", self.client_transaction_id.as_deref(), limits::CLIENT_TRANSACTION_ID)?;
        v::max_len("selfie_type", self.selfie_type.as_deref(), limits::SELFIE_TYPE)?;
        v::one_of("selfie_type", self.selfie_type.as_deref(), AUTH_SELFIE_TYPES)?;
        check_history(self.history_return_count, self.history_return_status.as_deref())?;
        v::json_object("metadata", self.metadata.as_ref())
    }
}

impl HasMedia for FaceAuthRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        images_slots("faces", Some(&mut self.faces), &mut out);
        videos_slots("videos", self.videos.as_mut(), &mut out);
        gesture_slots(self.gesture_faces.as_mut(), self.gesture_videos.as_mut(), &mut out);
        out
    }
}

// ---------------------------------------------------------------- 3-5. user, unregister, unlock

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CusUserRequest {
    #[schemars(length(min = 1, max = limits::CUS_USER_ID), pattern(r"\S"))]
    pub cus_user_id: String,
}

impl Validate for CusUserRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::required_str("cus_user_id", &self.cus_user_id, limits::CUS_USER_ID)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FaceAuthUnregisterRequest {
    #[schemars(length(min = 1, max = limits::CUS_USER_ID), pattern(r"\S"))]
    pub cus_user_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::DEVICE_ID))]
    pub device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::APP_ID))]
    pub app_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -90.0, max = 90.0))]
    pub lat: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -180.0, max = 180.0))]
    pub lng: Option<f64>,
}

impl Validate for FaceAuthUnregisterRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::required_str("cus_user_id", &self.cus_user_id, limits::CUS_USER_ID)?;
        v::max_len("device_id", self.device_id.as_deref(), limits::DEVICE_ID)?;
        v::max_len("app_id", self.app_id.as_deref(), limits::APP_ID)?;
        v::lat_lng(self.lat, self.lng)
    }
}

// ---------------------------------------------------------------- 6. mix_compare_faces_sync

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MixCompareFacesRequest {
    pub image1: ImageData,
    pub image2: ImageData,
}

impl Validate for MixCompareFacesRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        self.image1.check("image1", MetadataKind::StringsOnly)?;
        self.image2.check("image2", MetadataKind::StringsOnly)
    }
}

impl HasMedia for MixCompareFacesRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        image_slot("image1".into(), &mut self.image1, &mut out);
        image_slot("image2".into(), &mut self.image2, &mut out);
        out
    }
}

// ---------------------------------------------------------------- legacy TrustVision operations

/// `verify_face_liveness_sync` (the published TrustVision SDK's shape): passive liveness
/// of each image.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyFaceLivenessRequest {
    #[schemars(length(min = 1, max = limits::MEDIA_ENTRIES))]
    pub images: Vec<ImageData>,
    /// Gestures the SDK may name beside the images; not evaluated here (docs/API.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gestures: Option<Vec<String>>,
}

impl Validate for VerifyFaceLivenessRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        if self.images.is_empty() {
            return Err(ErrorKind::invalid("images", "images must not be empty"));
        }
        check_images("images", Some(&self.images), limits::MEDIA_ENTRIES, MetadataKind::StringsOnly)
    }
}

impl HasMedia for VerifyFaceLivenessRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        images_slots("images", Some(&mut self.images), &mut out);
        out
    }
}

/// `verify_portrait_sanity_sync` and `detect_id_card_tampering_sync`: one image.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SingleImageRequest {
    pub image: ImageData,
}

impl Validate for SingleImageRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        self.image.check("image", MetadataKind::StringsOnly)
    }
}

impl HasMedia for SingleImageRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        image_slot("image".into(), &mut self.image, &mut out);
        out
    }
}

// ---------------------------------------------------------------- 7. read_id_card_info_with_sanity

pub const CARD_TYPES: &[&str] = &["in.aadhaar", "in.pan", "in.voter", "in.passport", "in.national_id", "vn.national_id"];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadIdCardRequest {
    #[schemars(extend("enum" = CARD_TYPES))]
    pub card_type: String,
    pub image1: ImageData,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image2: Option<ImageData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::QR_IMAGES))]
    pub qr1_images: Option<Vec<ImageData>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::QR_IMAGES))]
    pub qr2_images: Option<Vec<ImageData>>,
}

impl Validate for ReadIdCardRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::one_of("card_type", Some(&self.card_type), CARD_TYPES)?;
        self.image1.check("image1", MetadataKind::StringsOnly)?;
        if let Some(img) = &self.image2 {
            img.check("image2", MetadataKind::StringsOnly)?;
        }
        check_images("qr1_images", self.qr1_images.as_ref(), limits::QR_IMAGES, MetadataKind::StringsOnly)?;
        check_images("qr2_images", self.qr2_images.as_ref(), limits::QR_IMAGES, MetadataKind::StringsOnly)
    }
}

impl HasMedia for ReadIdCardRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        image_slot("image1".into(), &mut self.image1, &mut out);
        if let Some(img) = self.image2.as_mut() {
            image_slot("image2".into(), img, &mut out);
        }
        images_slots("qr1_images", self.qr1_images.as_mut(), &mut out);
        images_slots("qr2_images", self.qr2_images.as_mut(), &mut out);
        out
    }
}

// ---------------------------------------------------------------- 8. portal/ekyc/full_checks

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EkycFullChecksRequest {
    #[schemars(extend("enum" = CARD_TYPES))]
    pub card_type: String,
    /// The card front, inline (`base64` required: an `id` is refused).
    #[schemars(extend("required" = ["base64"]))]
    pub image1: ImageData,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image2: Option<ImageData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::FULL_CHECK_SELFIES))]
    pub selfies: Option<Vec<ImageData>>,
    /// Identity information (`json_object`); `client_uid` a non-empty string.
    #[schemars(extend(
        "required" = ["client_uid"],
        "properties" = {"client_uid": {"type": "string", "pattern": "\\S"}},
        "maxProperties" = limits::METADATA_KEYS
    ))]
    pub metadata: JsonObject,
}

impl Validate for EkycFullChecksRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::one_of("card_type", Some(&self.card_type), CARD_TYPES)?;
        if self.image1.base64.is_none() {
            return Err(ErrorKind::invalid("image1.base64", "image1.base64 is required"));
        }
        self.image1.check("image1", MetadataKind::StringJson)?;
        if let Some(img) = &self.image2 {
            img.check("image2", MetadataKind::StringJson)?;
        }
        check_images("selfies", self.selfies.as_ref(), limits::FULL_CHECK_SELFIES, MetadataKind::StringJson)?;
        match self.metadata.get("client_uid") {
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            _ => return Err(ErrorKind::invalid("metadata.client_uid", "metadata.client_uid must not be empty")),
        }
        v::json_object("metadata", Some(&self.metadata))
    }
}

impl HasMedia for EkycFullChecksRequest {
    fn media_slots(&mut self) -> Vec<MediaSlot<'_>> {
        let mut out = Vec::new();
        image_slot("image1".into(), &mut self.image1, &mut out);
        if let Some(img) = self.image2.as_mut() {
            image_slot("image2".into(), img, &mut out);
        }
        images_slots("selfies", self.selfies.as_mut(), &mut out);
        out
    }
}

// ---------------------------------------------------------------- 9-11. SIM verification

fn check_phone(field: &str, phone: &str) -> Result<(), ErrorKind> {
    v::required_str(field, phone, limits::PHONE_NUMBER)
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimSendOtpRequest {
    #[schemars(length(min = 1, max = limits::PHONE_NUMBER), pattern(r"\S"))]
    pub phone_number: String,
}

impl Validate for SimSendOtpRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        check_phone("phone_number", &self.phone_number)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimVerifyOtpRequest {
    #[schemars(length(min = 1, max = limits::PHONE_NUMBER), pattern(r"\S"))]
    pub phone_number: String,
    #[schemars(length(min = 1, max = limits::OTP), pattern(r"\S"))]
    pub otp: String,
}

impl Validate for SimVerifyOtpRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        check_phone("phone_number", &self.phone_number)?;
        v::required_str("otp", &self.otp, limits::OTP)
    }
}

pub const SIM_INFO_FIELDS: &[&str] = &[
    "is_id", "is_name", "is_dob", "is_issue_date", "is_port_out", "is_port_in", "is_active_last_90",
    "is_subscriber_active", "has_usage_last_90", "has_changed_device_last_30", "is_use_cf_service",
    "has_changed_id_last_30", "is_top_20_contact_last_30",
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimInfoField {
    #[schemars(extend("enum" = SIM_INFO_FIELDS))]
    pub name: String,
    #[schemars(length(max = limits::SIM_FIELD_VALUE))]
    pub value: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimVerifyInfoRequest {
    #[schemars(length(min = 1, max = limits::PHONE_NUMBER), pattern(r"\S"))]
    pub phone_number: String,
    /// Each `name` at most once.
    #[schemars(length(min = 1, max = limits::SIM_FIELDS))]
    pub fields: Vec<SimInfoField>,
}

impl Validate for SimVerifyInfoRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        check_phone("phone_number", &self.phone_number)?;
        if self.fields.is_empty() {
            return Err(ErrorKind::invalid("fields", "fields must not be empty"));
        }
        v::max_items("fields", Some(&self.fields), limits::SIM_FIELDS)?;
        for (i, f) in self.fields.iter().enumerate() {
            v::one_of(&format!("fields[{i}].name"), Some(&f.name), SIM_INFO_FIELDS)?;
            // One verdict per statement: a repeated name would get the verdict of another
            // value.
            if self.fields[..i].iter().any(|g| g.name == f.name) {
                return Err(ErrorKind::invalid(format!("fields[{i}].name"), "each field name at most once"));
            }
            v::max_len(&format!("fields[{i}].value"), Some(&f.value), limits::SIM_FIELD_VALUE)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- 12-15. behavioral

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RegisterDeviceRequest {
    #[schemars(extend("format" = "uuid"))]
    pub key_pair_id: String,
    #[schemars(length(min = 1, max = 8192), pattern(r"\S"))]
    pub device_public_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_secret_key: Option<String>,
    #[schemars(length(min = 1, max = limits::CUS_USER_ID), pattern(r"\S"))]
    pub cus_user_id: String,
    #[schemars(length(min = 1, max = limits::DEVICE_ID), pattern(r"\S"))]
    pub device_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = doc::enum_or_null(&["", "encrypted"])))]
    pub protocol: Option<String>,
}

impl Validate for RegisterDeviceRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        if uuid::Uuid::parse_str(&self.key_pair_id).is_err() {
            return Err(ErrorKind::invalid("key_pair_id", "key_pair_id must be a UUID"));
        }
        v::required_str("device_public_key", &self.device_public_key, 8192)?;
        v::required_str("cus_user_id", &self.cus_user_id, limits::CUS_USER_ID)?;
        v::required_str("device_id", &self.device_id, limits::DEVICE_ID)?;
        v::one_of("protocol", self.protocol.as_deref(), &["", "encrypted"])?;
        if self.protocol.as_deref() == Some("encrypted") && self.encrypted_secret_key.as_deref().is_none_or(str::is_empty) {
            return Err(ErrorKind::invalid("encrypted_secret_key", "encrypted_secret_key is required when protocol is encrypted"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreateChallengeRequest {
    #[schemars(length(min = 1, max = limits::SESSION_ID), pattern(r"\S"))]
    pub session_id: String,
}

impl Validate for CreateChallengeRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::required_str("session_id", &self.session_id, limits::SESSION_ID)
    }
}

/// push_event_batch's plaintext (after end-to-end decryption). Every field is read as
/// optional so that a missing one gets its own code (`missing_nonce`, …), and `data` is
/// kept as the exact text received: the batch hash covers those bytes, not a
/// re-serialization.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("required" = ["nonce", "batch_hash", "data"]))]
pub struct PushEventBatchRequest {
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub nonce: Option<String>,
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub batch_hash: Option<String>,
    /// Empty or absent for the first batch of a challenge.
    #[serde(default)]
    pub prev_batch_hash: Option<String>,
    /// Absent: the next in the chain.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub seq: Option<i64>,
    /// The events, a JSON object of at most `limits::BATCH_DATA_BYTES` bytes.
    #[serde(default)]
    #[schemars(with = "Option<JsonObject>")]
    pub data: Option<Box<serde_json::value::RawValue>>,
}

impl PushEventBatchRequest {
    /// The answer to an accepted push (before it is encrypted to the device).
    pub fn accepted() -> crate::Envelope {
        crate::Envelope::ok(crate::Group::Behavior, serde_json::json!({"status": "success"}))
    }

    /// The checks of the plaintext (docs/BEHAVIOR_PROTOCOL.md, in its order) and the job
    /// that carries the batch to the scorer, for the challenge named in `X-Challenge-ID`
    /// and the authenticated device.
    pub fn into_job(self, challenge_id: String, customer_user_device_id: String) -> Result<crate::jobs::PushBatchJob, ErrorKind> {
        let nonce = self.nonce.filter(|n| !n.is_empty()).ok_or(ErrorKind::MissingNonce)?;
        let batch_hash = self.batch_hash.filter(|h| !h.is_empty()).ok_or_else(|| ErrorKind::invalid("batch_hash", "batch_hash is required"))?;
        let data = self.data.ok_or_else(|| ErrorKind::invalid("data", "data is required"))?;
        if !data.get().trim_start().starts_with('{') {
            return Err(ErrorKind::invalid("data", "data must be an object"));
        }
        if data.get().len() > limits::BATCH_DATA_BYTES {
            return Err(ErrorKind::invalid("data", format!("data is larger than {} bytes", limits::BATCH_DATA_BYTES)));
        }
        if self.seq.is_some_and(|s| s < 0) {
            return Err(ErrorKind::invalid("seq", "seq must not be negative"));
        }
        Ok(crate::jobs::PushBatchJob {
            challenge_id,
            customer_user_device_id,
            nonce,
            seq: self.seq,
            prev_batch_hash: self.prev_batch_hash.unwrap_or_default(),
            batch_hash,
            data_raw: data.get().to_string(),
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TransactionData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_amount: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_holder_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beneficiary_account_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beneficiary_account_holder_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beneficiary_bank_code: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BehaviorScoreRequest {
    #[schemars(extend("format" = "uuid"))]
    pub challenge_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_data: Option<TransactionData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_update: Option<bool>,
}

impl Validate for BehaviorScoreRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        if self.challenge_id.is_empty() {
            return Err(ErrorKind::MissingChallengeId);
        }
        if uuid::Uuid::parse_str(&self.challenge_id).is_err() {
            return Err(ErrorKind::InvalidChallengeId);
        }
        Ok(())
    }
}

impl BehaviorScoreRequest {
    /// Canonical lowercase hyphenated form of the (validated) challenge id.
    pub fn normalize(&mut self) {
        if let Ok(id) = uuid::Uuid::parse_str(&self.challenge_id) {
            self.challenge_id = id.hyphenated().to_string();
        }
    }
}

// ---------------------------------------------------------------- operations the spec references

/// Image upload (spec: referenced, not shown). The returned `id` is accepted by ImageData.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UploadImageRequest {
    #[schemars(extend("format" = "byte"), length(min = 1))]
    pub base64: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::LABEL))]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::string_json)]
    pub metadata: Option<JsonObject>,
}

impl Validate for UploadImageRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::max_len("label", self.label.as_deref(), limits::LABEL)?;
        v::metadata("metadata", self.metadata.as_ref(), MetadataKind::StringJson)
    }
}

/// File upload (videos; spec: referenced, not shown). The returned `id` is accepted by Video.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UploadFileRequest {
    #[schemars(extend("format" = "byte"), length(min = 1))]
    pub base64: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 255))]
    pub filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 128))]
    pub content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "object_or_json_string::deserialize")]
    #[schemars(transform = doc::string_json)]
    pub metadata: Option<JsonObject>,
}

impl Validate for UploadFileRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::max_len("filename", self.filename.as_deref(), 255)?;
        v::max_len("content_type", self.content_type.as_deref(), 128)?;
        v::metadata("metadata", self.metadata.as_ref(), MetadataKind::StringJson)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UploadResponse {
    pub status: String,
    pub id: String,
    pub request_id: String,
    pub size: u64,
    pub sha256: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub created_at: String,
}

/// Poll a result by request id (spec: referenced, not shown).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetRequestResultRequest {
    #[schemars(length(min = 1, max = limits::ID_LEN), pattern(r"\S"))]
    pub request_id: String,
}

impl Validate for GetRequestResultRequest {
    fn validate(&self) -> Result<(), ErrorKind> {
        v::required_str("request_id", &self.request_id, limits::ID_LEN)
    }
}

macro_rules! no_media {
    ($($t:ty),*) => { $(impl HasMedia for $t { fn media_slots(&mut self) -> Vec<MediaSlot<'_>> { Vec::new() } })* };
}
no_media!(
    CusUserRequest, FaceAuthUnregisterRequest, SimSendOtpRequest, SimVerifyOtpRequest, SimVerifyInfoRequest,
    RegisterDeviceRequest, CreateChallengeRequest, BehaviorScoreRequest, GetRequestResultRequest
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::parse_json;

    fn img_b64() -> ImageData {
        ImageData { base64: Some("aGVsbG8=".into()), ..Default::default() }
    }

    #[test]
    fn register_requires_a_face() {
        let r = FaceAuthRegisterRequest { cus_user_id: "u".into(), ..Default::default() };
        assert_eq!(
            r.validate(),
            Err(ErrorKind::invalid("faces", "at least one of face_in_id_card or faces is required"))
        );
        let r = FaceAuthRegisterRequest { cus_user_id: "u".into(), face_in_id_card: Some(img_b64()), ..Default::default() };
        assert!(r.validate().is_ok());
    }

    #[test]
    fn fifty_one_faces_are_rejected_with_the_field() {
        let r = FaceAuthRequest { cus_user_id: "u".into(), faces: vec![img_b64(); 51], ..Default::default() };
        match r.validate() {
            Err(ErrorKind::InvalidParameter { field, .. }) => assert_eq!(field.as_deref(), Some("faces")),
            other => panic!("{other:?}"),
        }
        let r = FaceAuthRequest { cus_user_id: "u".into(), faces: vec![img_b64(); 50], ..Default::default() };
        assert!(r.validate().is_ok());
    }

    #[test]
    fn image_id_and_base64_are_exclusive() {
        let both = ImageData { id: Some("x".into()), base64: Some("aA==".into()), ..Default::default() };
        assert!(both.check("image1", MetadataKind::StringsOnly).is_err());
        let id_with_label = ImageData { id: Some("x".into()), label: Some("l".into()), ..Default::default() };
        assert!(id_with_label.check("image1", MetadataKind::StringsOnly).is_err());
    }

    #[test]
    fn camera_challenge_non_boolean_is_ignored_with_warning() {
        let r: FaceAuthRegisterRequest =
            parse_json(br#"{"cus_user_id":"u","faces":[{"base64":"aA=="}],"camera_challenge_performed":"yes"}"#).unwrap();
        assert_eq!(r.camera_challenge_performed(), (false, Some("camera_challenge_performed is not a boolean; ignored")));
        assert!(r.validate().is_ok());
    }

    #[test]
    fn wrong_selfie_type_on_authenticate() {
        let r = FaceAuthRequest { cus_user_id: "u".into(), faces: vec![img_b64()], selfie_type: Some("Standard".into()), ..Default::default() };
        assert!(r.validate().is_err());
    }

    #[test]
    fn decode_media_rejects_broken_and_oversize() {
        assert_eq!(decode_media("f", "aGVsbG8=", 100).unwrap(), b"hello");
        assert_eq!(decode_media("f", "aGVsbG8", 100).unwrap(), b"hello");
        assert_eq!(decode_media("f", "data:image/png;base64,aGVsbG8=", 100).unwrap(), b"hello");
        assert!(decode_media("f", "a$$$", 100).is_err());
        assert!(decode_media("f", "aGVsbG8=", 3).is_err());
        assert!(decode_media("f", "", 3).is_err());
    }

    #[test]
    fn media_slots_cover_every_inline_image() {
        let mut r: FaceAuthRegisterRequest = parse_json(
            br#"{"cus_user_id":"u","faces":[{"base64":"aA=="},{"id":"img-1"}],
                 "face_in_id_card":{"base64":"aA=="},
                 "videos":[{"frames":[{"base64":"aA=="},{"base64":"aA=="}],"metadata":{}}],
                 "gesture_faces":[{"gesture":"left","images":[{"base64":"aA=="}]}],
                 "gesture_videos":[{"gesture":"up","videos":[{"id":"vid-1"}]}]}"#,
        )
        .unwrap();
        r.validate().unwrap();
        let fields: Vec<String> = r.media_slots().into_iter().map(|s| s.field).collect();
        assert_eq!(
            fields,
            vec![
                "faces[0]", "faces[1]", "face_in_id_card", "videos[0].frames[0]", "videos[0].frames[1]",
                "gesture_faces[0].images[0]", "gesture_videos[0].videos[0]"
            ]
        );
    }

    #[test]
    fn ekyc_requires_client_uid() {
        let mut r = EkycFullChecksRequest { card_type: "vn.national_id".into(), image1: img_b64(), ..Default::default() };
        assert!(r.validate().is_err());
        r.metadata.insert("client_uid".into(), Value::String("c1".into()));
        assert!(r.validate().is_ok());
        r.selfies = Some(vec![img_b64(); 4]);
        assert!(r.validate().is_err());
    }

    #[test]
    fn string_json_metadata_is_an_object_or_a_string_holding_one() {
        // A string holding a JSON object, on an image, a frame and the request itself.
        let r: FaceAuthRequest = parse_json(
            br##"{"cus_user_id":"u","faces":[{"base64":"aA==","metadata":"{\"k\":\"v\",\"n\":1}"}],
                 "videos":[{"frames":[{"base64":"aA==","metadata":"{\"flash_color\":\"#FF0000\"}"}],"metadata":"{}"}],
                 "metadata":"{\"channel\":\"app\"}"}"##,
        )
        .expect("string_json as a string is accepted");
        assert_eq!(r.faces[0].metadata.as_ref().and_then(|m| m.get("n")), Some(&Value::from(1)));
        let frame = &r.videos.as_ref().expect("videos")[0].frames.as_ref().expect("frames")[0];
        assert_eq!(frame.metadata.as_ref().and_then(|m| m.get("flash_color")), Some(&Value::from("#FF0000")));
        assert_eq!(r.metadata.as_ref().and_then(|m| m.get("channel")), Some(&Value::from("app")));
        assert!(r.validate().is_ok());
        // An object is still accepted, and so are absent and null.
        let r: FaceAuthRegisterRequest =
            parse_json(br#"{"cus_user_id":"u","faces":[{"base64":"aA==","metadata":{"k":"v"}}],"metadata":null}"#).expect("object");
        assert_eq!(r.faces.as_ref().expect("faces")[0].metadata.as_ref().and_then(|m| m.get("k")), Some(&Value::from("v")));
        assert_eq!(r.metadata, None);
        // A string that is not a JSON object, or another type, names the field.
        for (body, field) in [
            (&br#"{"cus_user_id":"u","faces":[{"base64":"aA==","metadata":"not json"}]}"#[..], "faces[0].metadata"),
            (&br#"{"cus_user_id":"u","faces":[{"base64":"aA=="}],"metadata":"[1,2]"}"#[..], "metadata"),
            (&br#"{"cus_user_id":"u","faces":[{"base64":"aA=="}],"metadata":7}"#[..], "metadata"),
        ] {
            match parse_json::<FaceAuthRequest>(body) {
                Err(ErrorKind::InvalidParameter { field: Some(f), .. }) => assert_eq!(f, field),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn inline_media_slots_carry_their_label_and_metadata() {
        let mut r: FaceAuthRequest = parse_json(
            br##"{"cus_user_id":"u","faces":[{"base64":"aA==","label":"selfie","metadata":"{\"k\":\"v\"}"}],
                 "videos":[{"frames":[{"base64":"aA==","label":"f0","metadata":{"flash_color":"#00FF00"}}],"metadata":{}}]}"##,
        )
        .expect("parse");
        let slots = r.media_slots();
        assert_eq!((slots[0].label.as_deref(), slots[0].metadata.as_deref()), (Some("selfie"), Some(r#"{"k":"v"}"#)));
        assert_eq!((slots[1].label.as_deref(), slots[1].metadata.as_deref()), (Some("f0"), Some(r##"{"flash_color":"#00FF00"}"##)));
    }

    #[test]
    fn score_challenge_id_errors() {
        let r = BehaviorScoreRequest { challenge_id: "nope".into(), ..Default::default() };
        assert_eq!(r.validate(), Err(ErrorKind::InvalidChallengeId));
        let r = BehaviorScoreRequest { challenge_id: "".into(), ..Default::default() };
        assert_eq!(r.validate(), Err(ErrorKind::MissingChallengeId));
    }
}

#[cfg(test)]
mod mutation_tests {
    //! Seeded mutation of valid bodies (flips, truncations, splices): parsing and
    //! validation must answer Ok or an InvalidParameter-style error, never panic.
    use super::*;
    use crate::validate::parse_json;

    /// Parse and validate `body` as `T`: every outcome must be a pass or the spec's
    /// invalid-parameter error (never another kind, never a panic). Returns
    /// (parsed, validated) so the caller can see both sides were exercised.
    fn check<T: serde::de::DeserializeOwned + Validate>(body: &[u8]) -> (bool, bool) {
        // The spec's client-input codes: invalid parameter, and the behavioral table's
        // own rows for a malformed challenge id or nonce.
        let invalid = |e: &ErrorKind| {
            matches!(
                e,
                ErrorKind::InvalidParameter { .. }
                    | ErrorKind::InvalidChallengeId
                    | ErrorKind::MissingChallengeId
                    | ErrorKind::InvalidNonce
                    | ErrorKind::MissingNonce
            )
        };
        match parse_json::<T>(body) {
            Ok(v) => match v.validate() {
                Ok(()) => (true, true),
                Err(e) => {
                    assert!(invalid(&e), "validate gave {e:?} for {:?}", String::from_utf8_lossy(body));
                    (true, false)
                }
            },
            Err(e) => {
                assert!(invalid(&e), "parse gave {e:?} for {:?}", String::from_utf8_lossy(body));
                (false, false)
            }
        }
    }

    #[test]
    fn mutated_bodies_never_panic() {
        let seeds: &[&[u8]] = &[
            br#"{"cus_user_id":"u","faces":[{"base64":"aGVsbG8="},{"id":"img-1"}],"videos":[{"frames":[{"base64":"aA=="}],"metadata":{"a":1}}],"gesture_faces":[{"gesture":"left","images":[{"base64":"aA=="}]}],"lat":1.5,"metadata":{"k":"v"}}"#,
            br#"{"card_type":"vn.national_id","image1":{"base64":"aA==","label":"front","metadata":{"a":"b"}},"qr1_images":[{"id":"x"}]}"#,
            br#"{"phone_number":"+84123","fields":[{"name":"is_id","value":"1"}]}"#,
            br#"{"challenge_id":"6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10","transaction_data":{"transaction_amount":10.5},"is_update":true}"#,
        ];
        let mut state: u64 = 0x9e3779b97f4a7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut outcomes = [0usize; 3];
        for seed in seeds {
            for _ in 0..1500 {
                let mut b = seed.to_vec();
                for _ in 0..(next() % 4 + 1) {
                    let i = (next() as usize) % b.len().max(1);
                    match next() % 4 {
                        0 => b[i] = (next() & 0xff) as u8,
                        1 => b.truncate(i),
                        2 => b.insert(i, b"{}[],:\"\\0e-9"[(next() % 12) as usize]),
                        _ => {
                            let j = (next() as usize) % b.len().max(1);
                            let chunk: Vec<u8> = b[i.min(j)..i.max(j)].to_vec();
                            b.extend_from_slice(&chunk);
                        }
                    }
                    if b.is_empty() {
                        break;
                    }
                }
                for (p, v) in [
                    check::<FaceAuthRegisterRequest>(&b),
                    check::<FaceAuthRequest>(&b),
                    check::<ReadIdCardRequest>(&b),
                    check::<MixCompareFacesRequest>(&b),
                    check::<SimVerifyInfoRequest>(&b),
                    check::<BehaviorScoreRequest>(&b),
                    check::<EkycFullChecksRequest>(&b),
                ] {
                    outcomes[usize::from(p) + usize::from(v)] += 1;
                }
            }
        }
        // Refused, parsed but invalid, and fully valid bodies all occurred: the mutations
        // reached every branch, so the assertions above were exercised.
        assert!(outcomes.iter().all(|&n| n > 0), "outcomes (refused, invalid, valid): {outcomes:?}");
    }
}

/// The published SDK's upload form (`POST /v1/images`, `/v1/files`), `multipart/form-data`:
/// a `file` part, an optional `label`, and `metadata` (a JSON object) or `metadata[key]`
/// parts. Parsed by ingest's multipart reader, not as JSON; this type gives the form its
/// place in the operation table and its schema.
pub struct MultipartUpload;

impl JsonSchema for MultipartUpload {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MultipartUpload".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {"type": "string", "format": "binary"},
                "label": {"type": "string", "maxLength": limits::LABEL},
                "metadata": {"type": "string", "description": "a JSON object; or send metadata[key] parts"}
            }
        })
    }
}
