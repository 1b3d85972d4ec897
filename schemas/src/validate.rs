//! Parsing and constraint checks for request bodies. Every failure names the field, so
//! the envelope's `detail.field` can point at it.

use crate::error::ErrorKind;
use serde_json::{Map, Value};

/// Spec limits (Limits table). Values the spec leaves open are `// choice:`.
pub mod limits {
    pub const CUS_USER_ID: usize = 256;
    pub const DEVICE_ID: usize = 256;
    pub const APP_ID: usize = 128;
    pub const SELFIE_TYPE: usize = 64;
    pub const AUTH_TYPE: usize = 64;
    pub const MEDIA_ENTRIES: usize = 50;
    pub const FULL_CHECK_SELFIES: usize = 3;
    // choice: limits the spec does not show.
    pub const CLIENT_TRANSACTION_ID: usize = 256;
    pub const HISTORY_RETURN_COUNT_MAX: i64 = 100;
    pub const LABEL: usize = 128;
    pub const METADATA_KEYS: usize = 64;
    pub const METADATA_KEY_LEN: usize = 128;
    pub const METADATA_VALUE_LEN: usize = 4096;
    pub const QR_IMAGES: usize = 10;
    pub const FRAMES_PER_VIDEO: usize = 300;
    pub const PHONE_NUMBER: usize = 32;
    pub const OTP: usize = 16;
    pub const SIM_FIELDS: usize = 32;
    pub const SIM_FIELD_VALUE: usize = 256;
    pub const SESSION_ID: usize = 256;
    pub const ID_LEN: usize = 128;
    /// The largest `data` of one behavioral batch, in bytes.
    pub const BATCH_DATA_BYTES: usize = 1024 * 1024;
}

/// Parse a JSON body into `T`; a syntax error or a wrong type names the offending field.
pub fn parse_json<'a, T: serde::Deserialize<'a>>(body: &'a [u8]) -> Result<T, ErrorKind> {
    if body.is_empty() {
        return Err(ErrorKind::InvalidParameter { field: None, message: "request body is empty".into() });
    }
    // JSON is UTF-8 throughout; serde_json skips ignored strings without checking them.
    if std::str::from_utf8(body).is_err() {
        return Err(ErrorKind::InvalidParameter { field: None, message: "request body is not valid UTF-8".into() });
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path.is_empty() { None } else { Some(path) };
        ErrorKind::InvalidParameter { field, message: e.into_inner().to_string() }
    })?;
    // One JSON value and nothing after it but whitespace: `{...} xyz` is not a request.
    de.end().map_err(|e| ErrorKind::InvalidParameter { field: None, message: e.to_string() })?;
    Ok(value)
}

/// Implemented by every request type.
pub trait Validate {
    fn validate(&self) -> Result<(), ErrorKind>;
}

pub fn required_str(field: &str, value: &str, max: usize) -> Result<(), ErrorKind> {
    if value.trim().is_empty() {
        return Err(ErrorKind::invalid(field, format!("{field} must not be empty")));
    }
    max_len(field, Some(value), max)
}

pub fn max_len(field: &str, value: Option<&str>, max: usize) -> Result<(), ErrorKind> {
    match value {
        Some(v) if v.chars().count() > max => {
            Err(ErrorKind::invalid(field, format!("{field} is longer than {max} characters")))
        }
        _ => Ok(()),
    }
}

pub fn max_items<T>(field: &str, value: Option<&Vec<T>>, max: usize) -> Result<(), ErrorKind> {
    match value {
        Some(v) if v.len() > max => {
            Err(ErrorKind::invalid(field, format!("{field} has more than {max} entries")))
        }
        _ => Ok(()),
    }
}

pub fn one_of(field: &str, value: Option<&str>, allowed: &[&str]) -> Result<(), ErrorKind> {
    match value {
        Some(v) if !allowed.contains(&v) => Err(ErrorKind::invalid(
            field,
            format!("{field} must be one of {}", allowed.join(", ")),
        )),
        _ => Ok(()),
    }
}

pub fn lat_lng(lat: Option<f64>, lng: Option<f64>) -> Result<(), ErrorKind> {
    if let Some(v) = lat {
        if !(-90.0..=90.0).contains(&v) {
            return Err(ErrorKind::invalid("lat", "lat must be within -90..90"));
        }
    }
    if let Some(v) = lng {
        if !(-180.0..=180.0).contains(&v) {
            return Err(ErrorKind::invalid("lng", "lng must be within -180..180"));
        }
    }
    Ok(())
}

/// Which values a metadata map may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataKind {
    /// `string_json`: values are string, int, float or bool.
    StringJson,
    /// string keys, string values (comparison and card endpoints).
    StringsOnly,
}

pub fn metadata(field: &str, map: Option<&Map<String, Value>>, kind: MetadataKind) -> Result<(), ErrorKind> {
    let Some(map) = map else { return Ok(()) };
    if map.len() > limits::METADATA_KEYS {
        return Err(ErrorKind::invalid(field, format!("{field} has more than {} keys", limits::METADATA_KEYS)));
    }
    for (k, v) in map {
        let at = format!("{field}.{k}");
        if k.chars().count() > limits::METADATA_KEY_LEN {
            return Err(ErrorKind::invalid(field, "metadata key too long"));
        }
        let ok = match (kind, v) {
            (_, Value::String(s)) => s.chars().count() <= limits::METADATA_VALUE_LEN,
            (MetadataKind::StringJson, Value::Number(_) | Value::Bool(_)) => true,
            _ => false,
        };
        if !ok {
            let what = match kind {
                MetadataKind::StringJson => "a string, int, float or bool",
                MetadataKind::StringsOnly => "a string",
            };
            return Err(ErrorKind::invalid(at, format!("metadata values must be {what}")));
        }
    }
    Ok(())
}

/// `json_object` metadata stored with a customer or login: any JSON object, bounded size.
pub fn json_object(field: &str, map: Option<&Map<String, Value>>) -> Result<(), ErrorKind> {
    let Some(map) = map else { return Ok(()) };
    if map.len() > limits::METADATA_KEYS {
        return Err(ErrorKind::invalid(field, format!("{field} has more than {} keys", limits::METADATA_KEYS)));
    }
    let size = serde_json::to_vec(map).map(|v| v.len()).unwrap_or(usize::MAX);
    if size > 16 * 1024 {
        return Err(ErrorKind::invalid(field, format!("{field} is larger than 16 KiB")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Probe {
        name: String,
        inner: Option<Inner>,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        n: i64,
    }

    #[test]
    fn wrong_type_names_the_nested_field() {
        let err = parse_json::<Probe>(br#"{"name":"a","inner":{"n":"x"}}"#).unwrap_err();
        match err {
            ErrorKind::InvalidParameter { field, .. } => assert_eq!(field.as_deref(), Some("inner.n")),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn trailing_bytes_and_invalid_utf8_are_refused() {
        assert!(parse_json::<Probe>(br#"{"name":"a"}"#).is_ok());
        assert!(parse_json::<Probe>(b"{\"name\":\"a\"}  \n").is_ok(), "trailing whitespace is fine");
        assert!(matches!(parse_json::<Probe>(br#"{"name":"a"} xyz"#), Err(ErrorKind::InvalidParameter { .. })));
        assert!(matches!(parse_json::<Probe>(br#"{"name":"a"}{"name":"b"}"#), Err(ErrorKind::InvalidParameter { .. })));
        // Invalid UTF-8 inside a field the type ignores.
        assert!(matches!(parse_json::<Probe>(b"{\"name\":\"a\",\"junk\":\"\xff\xfe\"}"), Err(ErrorKind::InvalidParameter { .. })));
    }

    #[test]
    fn malformed_json_and_empty_body_are_invalid_parameters() {
        assert!(matches!(parse_json::<Probe>(b"{nope"), Err(ErrorKind::InvalidParameter { .. })));
        assert!(matches!(parse_json::<Probe>(b""), Err(ErrorKind::InvalidParameter { .. })));
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        let s = "é".repeat(256);
        assert!(max_len("cus_user_id", Some(&s), 256).is_ok());
        assert!(max_len("cus_user_id", Some(&format!("{s}x")), 256).is_err());
    }

    #[test]
    fn metadata_kinds() {
        let m: Map<String, Value> = serde_json::from_str(r#"{"a":1,"b":true,"c":"s"}"#).unwrap();
        assert!(metadata("metadata", Some(&m), MetadataKind::StringJson).is_ok());
        assert!(metadata("metadata", Some(&m), MetadataKind::StringsOnly).is_err());
        let nested: Map<String, Value> = serde_json::from_str(r#"{"a":{"b":1}}"#).unwrap();
        assert!(metadata("metadata", Some(&nested), MetadataKind::StringJson).is_err());
    }
}
