//! Media in requests: ids are checked (exist, belong to the caller's client, right kind);
//! inline base64 is decoded, size-checked and moved to the blob store, and the request is
//! rewritten to reference it (claim check: jobs on the bus stay small and replayable).
//!
//! All decoding happens before the first write, so a request with one broken image
//! writes nothing.

use crate::auth::Caller;
use crate::AppState;
use bytes::Bytes;
use idv_schemas::api::{decode_media, MediaKind, MediaSlot};
use idv_schemas::ErrorKind;
use idv_store::BlobMeta;

pub fn blob_kind(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Image => "image",
        MediaKind::VideoFile => "file",
    }
}

/// Store one blob and its metadata; returns the new id.
pub async fn store_blob(
    state: &AppState,
    caller: &Caller,
    kind: &str,
    data: Vec<u8>,
    label: Option<String>,
    content_type: Option<String>,
    metadata: Option<String>,
) -> Result<BlobMeta, ErrorKind> {
    let prefix = if kind == "image" { "img" } else { "file" };
    let meta = BlobMeta {
        id: format!("{prefix}-{}", uuid::Uuid::new_v4()),
        client_id: caller.client_id.clone(),
        kind: kind.to_string(),
        size: data.len() as u64,
        sha256: idv_crypto::sha256_hex(&data),
        label,
        content_type,
        metadata,
        created_at: crate::now_rfc3339(),
    };
    // Blob first, then metadata: an id is only ever visible once its bytes exist.
    state.blobs.put(&meta.id, Bytes::from(data)).await.map_err(ErrorKind::internal)?;
    state.store.put_blob_meta(&meta).await.map_err(ErrorKind::internal)?;
    Ok(meta)
}

pub async fn resolve_media(state: &AppState, caller: &Caller, mut slots: Vec<MediaSlot<'_>>) -> Result<(), ErrorKind> {
    // Pass 1: check everything, decode inline data; no writes.
    let mut decoded: Vec<Option<Vec<u8>>> = Vec::with_capacity(slots.len());
    for slot in slots.iter() {
        let inline = slot.base64.as_ref().and_then(|b| b.as_deref());
        match (slot.id.as_deref(), inline) {
            (Some(id), _) => {
                let meta = state.store.get_blob_meta(id).await.map_err(ErrorKind::internal)?;
                let ok = meta.is_some_and(|m| m.client_id == caller.client_id && m.kind == blob_kind(slot.kind));
                if !ok {
                    return Err(ErrorKind::ImageNotFound { field: Some(slot.field.clone()) });
                }
                decoded.push(None);
            }
            (None, Some(b64)) => {
                let max = match slot.kind {
                    MediaKind::Image => state.config.max_image_bytes,
                    MediaKind::VideoFile => state.config.max_file_bytes,
                };
                decoded.push(Some(decode_media(&slot.field, b64, max)?));
            }
            (None, None) => return Err(ErrorKind::invalid(slot.field.clone(), "one of id or base64 is required")),
        }
    }
    // Pass 2: move inline data to blobs and reference it. The item's label and metadata
    // go with it, as an upload's do.
    for (slot, data) in slots.iter_mut().zip(decoded) {
        if let Some(data) = data {
            let meta = store_blob(state, caller, blob_kind(slot.kind), data, slot.label.take(), None, slot.metadata.take()).await?;
            *slot.id = Some(meta.id);
            if let Some(b) = slot.base64.as_mut() {
                **b = None;
            }
        }
    }
    Ok(())
}
