//! `read_id_card_info_with_sanity`: the card's QR code(s), found in the card images and
//! the `qr1_images`/`qr2_images` (`idv_vision::qr`), parsed by the card type's codec
//! (`idv_cards`); for `in.passport`, and on the back of Vietnam's chip CCCD, the
//! machine-readable zone read by OCR ([`crate::card_mrz`]). Only what was read is
//! returned: OCR of the printed fields, NFC, the card box and card sanity are not in this
//! build and are listed in `data.not_performed` (and `mrz` where no zone was searched),
//! never guessed. Card types without a reader here answer "not performed" as a whole.
//! Choices: docs/API.md "Card reading".
//!
//! `in.aadhaar` reads the original XML QR, else the signed Secure QR
//! (`idv_cards::in_aadhaar_secure`), whose signature is checked with the operator's UIDAI
//! key(s) (`IDV_AADHAAR_CERT`, loaded once at start). The side's `qr` says
//! `signature`: `verified`, `not_verified` (no certificate configured: the data is
//! returned as read, like the unsigned XML QR's) or `failed`. A failed signature is never
//! a verified card: its fields come back with `confidence_verdict: UNSURE` and the answer
//! is `status: failure` with `bad_quality_card_image` (as for a damaged code).

use crate::card_mrz::{cccd_fields, mrz_json, reference_year, MrzSearch, NOT_PERFORMED_WITH_MRZ};
use crate::runtime::JobHandler;
use async_trait::async_trait;
pub use idv_cards::in_aadhaar_secure::UidaiKeys;
use idv_cards::in_aadhaar_secure::Signature;
use idv_cards::{CardField, CodecError};
use idv_schemas::api::{ImageData, ReadIdCardRequest};
use idv_schemas::jobs::Job;
use idv_schemas::ops::Operation;
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group};
use crate::face_ops::Stop;
use idv_store::blobs::BlobStore;
use idv_vision::ocr::TextRecognizer;
use serde_json::{json, Value};
use std::sync::Arc;

/// What this build does not do for a card, reported with every answer.
pub const NOT_PERFORMED: [&str; 5] = ["ocr", "mrz", "nfc", "card_box", "card_sanity"];
/// Longest one image's decode + QR search may take before the job gives up on it
/// ("not performed"). rqrr has no cap on finder-pattern candidates, so a crafted image
/// can make its search slow: the job stops waiting here (the blocking thread finishes
/// on its own).
pub const QR_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// A card type's QR codec.
#[derive(Clone, Copy)]
pub(crate) enum Codec<'a> {
    /// An unsigned format: the fields are what the code says.
    Plain(fn(&str) -> Result<Vec<CardField>, CodecError>),
    /// `in.aadhaar`: the XML QR, else the Secure QR checked with these keys (`None`: no
    /// certificate configured).
    Aadhaar(Option<&'a UidaiKeys>),
}

/// What a codec made of one QR text.
pub(crate) struct QrRead {
    pub fields: Vec<CardField>,
    /// The signature's outcome, for signed formats (the Aadhaar Secure QR).
    pub signature: Option<Signature>,
    /// What the side's `qr` object adds beside `parsed` and `raw`.
    pub extra: serde_json::Map<String, Value>,
}

impl QrRead {
    fn plain(fields: Vec<CardField>) -> Self {
        QrRead { fields, signature: None, extra: serde_json::Map::new() }
    }
}

impl Codec<'_> {
    pub(crate) fn parse(&self, text: &str) -> Result<QrRead, CodecError> {
        match self {
            Codec::Plain(parse) => parse(text).map(QrRead::plain),
            Codec::Aadhaar(keys) => match idv_cards::in_aadhaar::parse(text) {
                // Not the XML QR (a long number, or other text): the Secure QR, if it is one.
                Err(CodecError::NotThisCard(_)) => {
                    let q = idv_cards::in_aadhaar_secure::parse(text, *keys)?;
                    let mut extra = serde_json::Map::new();
                    extra.insert("format".into(), json!("secure_qr"));
                    extra.insert("version".into(), json!(q.layout.name()));
                    extra.insert("signature".into(), json!(q.signature.as_str()));
                    extra.insert("reference_id".into(), json!(q.reference_id));
                    extra.insert("photo_bytes".into(), json!(q.photo.len()));
                    Ok(QrRead { fields: q.fields, signature: Some(q.signature), extra })
                }
                other => other.map(QrRead::plain),
            },
        }
    }
}

pub struct CardHandler {
    pub blobs: Arc<dyn BlobStore>,
    /// The face pipeline, for the eKYC full check's comparison and liveness (`None`:
    /// models not installed, those checks are not performed).
    pub biometrics: Option<crate::face_ops::Biometrics>,
    /// The operator's UIDAI key(s) for the Aadhaar Secure QR's signature (`None`: not
    /// configured; its signature is then answered `not_verified`).
    pub aadhaar_keys: Option<Arc<UidaiKeys>>,
    /// OCR for machine-readable zones (`idv_vision::ocr::recognizer()`; `None`: not in
    /// this build, so MRZ reading is "not performed").
    pub ocr: Option<Arc<dyn TextRecognizer>>,
}

/// Why a Secure QR whose signature failed is refused (the answer's failure message).
pub(crate) const SIGNATURE_FAILED: &str =
    "the Aadhaar Secure QR's signature does not verify with the configured UIDAI certificate: its data may have been altered";

impl CardHandler {
    /// The QR codec of a card type, if this build has one.
    pub(crate) fn codec(&self, card_type: &str) -> Option<Codec<'_>> {
        match card_type {
            "vn.national_id" => Some(Codec::Plain(idv_cards::vn_cccd::parse)),
            "in.aadhaar" => Some(Codec::Aadhaar(self.aadhaar_keys.as_deref())),
            _ => None,
        }
    }
}

/// One side of the card: the QR texts found in its image and its QR images.
pub(crate) struct Side {
    pub id: Option<String>,
    pub texts: Vec<String>,
}

impl CardHandler {
    /// The stored bytes of an uploaded image (404 naming the field when absent).
    pub(crate) async fn image_bytes(&self, group: Group, field: &str, image: &ImageData) -> Result<bytes::Bytes, Stop> {
        let id = image.id.as_deref().unwrap_or_default();
        match self.blobs.get(id).await {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(Stop::Answer(Envelope::error(group, &ErrorKind::ImageNotFound { field: Some(field.into()) }))),
            Err(e) => Err(Stop::Store(e)),
        }
    }

    async fn qr_texts(&self, group: Group, field: &str, image: &ImageData) -> Result<Vec<String>, Stop> {
        let bytes = self.image_bytes(group, field, image).await?;
        // Decoding and QR search are CPU work: off the async executor, within a budget.
        let task = tokio::task::spawn_blocking(move || {
            idv_vision::decode(&bytes, &idv_vision::DecodeLimits::cards()).map(|img| idv_vision::qr::decode_qr_codes(&img))
        });
        let not_performed = |reason: String| Stop::Answer(Envelope::error(group, &ErrorKind::NotAvailable { reason }));
        let decoded = match tokio::time::timeout(QR_TIME_BUDGET, task).await {
            Err(_) => return Err(not_performed(format!("the QR search in {field} took longer than {} s", QR_TIME_BUDGET.as_secs()))),
            // The decoder panicked on this image (a known rqrr failure mode).
            Ok(Err(_)) => return Err(not_performed(format!("the QR decoder failed on {field}"))),
            Ok(Ok(d)) => d,
        };
        decoded.map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::invalid(field, e.to_string()))))
    }

    /// The QR texts of one side: its image first, then its QR images, stopping at the
    /// first image whose QR the codec reads (no work beyond what answers the request).
    pub(crate) async fn side(
        &self,
        group: Group,
        n: u8,
        image: Option<&ImageData>,
        qr_images: Option<&Vec<ImageData>>,
        codec: Codec<'_>,
    ) -> Result<Option<Side>, Stop> {
        let Some(image) = image else { return Ok(None) };
        let mut texts = self.qr_texts(group, &format!("image{n}"), image).await?;
        for (i, qr) in qr_images.into_iter().flatten().enumerate() {
            if texts.iter().any(|t| codec.parse(t).is_ok()) {
                break;
            }
            texts.extend(self.qr_texts(group, &format!("qr{n}_images[{i}]"), qr).await?);
        }
        Ok(Some(Side { id: image.id.clone(), texts }))
    }

    async fn read(&self, job: &Job) -> Result<Envelope, Stop> {
        let group = Group::CompareCard;
        let req: ReadIdCardRequest = serde_json::from_value(job.payload.clone())
            .map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
        if req.card_type == "in.passport" {
            return self.read_passport(job, group, &req.image1, req.image2.as_ref()).await;
        }
        let Some(codec) = self.codec(&req.card_type) else {
            return Ok(Envelope::error(
                group,
                &ErrorKind::NotAvailable { reason: format!("reading {} needs OCR, which is not in this build", req.card_type) },
            ));
        };
        let front = self.side(group, 1, Some(&req.image1), req.qr1_images.as_ref(), codec).await?;
        let back = self.side(group, 2, req.image2.as_ref(), req.qr2_images.as_ref(), codec).await?;
        // The chip CCCD's back carries a TD1 machine-readable zone: read when a back was
        // sent and OCR is available (its fields add to the QR's; a zone that cannot be
        // searched leaves `mrz` in not_performed and the QR answer as it was).
        let mut mrz_searched = false;
        let mut back_mrz = Value::Null;
        let mut mrz_fields: Vec<CardField> = Vec::new();
        let mut mrz_wrong_card = false;
        if let (Some(image2), "vn.national_id") = (req.image2.as_ref(), req.card_type.as_str()) {
            match self.mrz_search(group, "image2", image2, reference_year(job)).await? {
                MrzSearch::NotPerformed(_) => {}
                MrzSearch::NotFound => mrz_searched = true,
                MrzSearch::Found { zone, mrz } => {
                    mrz_searched = true;
                    match mrz.as_ref().map_err(|e| e.to_string()).and_then(cccd_fields) {
                        Ok(fields) => mrz_fields = fields,
                        Err(_) => mrz_wrong_card = true,
                    }
                    back_mrz = mrz_json(&zone, mrz.as_ref().ok(), &mrz_fields);
                }
            }
        }
        let mut card_information: Vec<CardField> = Vec::new();
        // Card numbers read (`id`), and last digits of numbers (`id_last4`, Secure QR).
        let mut card_ids: Vec<String> = Vec::new();
        let mut last4s: Vec<String> = Vec::new();
        let mut signature_failed = false;
        let mut wrong_card = false;
        let mut invalid: Option<String> = None;
        let mut unsupported: Option<String> = None;
        let mut side_json = |side: &Option<Side>| -> Value {
            let Some(side) = side else { return Value::Null };
            let mut qr = Value::Null;
            for text in &side.texts {
                match codec.parse(text) {
                    Ok(read) => {
                        for (name, seen) in [("id", &mut card_ids), ("id_last4", &mut last4s)] {
                            if let Some(id) = read.fields.iter().find(|f| f.field == name) {
                                if !seen.contains(&id.value) {
                                    seen.push(id.value.clone());
                                }
                            }
                        }
                        signature_failed |= read.signature == Some(Signature::Failed);
                        for f in &read.fields {
                            if !card_information.iter().any(|c| c.field == f.field) {
                                card_information.push(f.clone());
                            }
                        }
                        let mut q = serde_json::Map::new();
                        q.insert("parsed".into(), json!(read.fields));
                        q.insert("raw".into(), json!(text));
                        q.extend(read.extra);
                        qr = Value::Object(q);
                        break;
                    }
                    Err(CodecError::NotThisCard(_)) => wrong_card = true,
                    Err(e @ CodecError::InvalidField { .. }) => invalid = Some(e.to_string()),
                    Err(e @ CodecError::Unsupported(_)) => unsupported = Some(e.to_string()),
                }
            }
            json!({"id": side.id, "qr": qr, "ocr": null, "mrz": null, "nfc": null, "card_box": null})
        };
        let image1 = side_json(&front);
        let mut image2 = side_json(&back);
        if image2.is_object() {
            image2["mrz"] = back_mrz;
        }
        // The zone's fields after the QR's (the QR's are exact); its card number counts
        // for the two-cards check only when its check digits confirm it.
        for f in mrz_fields {
            if f.field == "id" && f.confidence_verdict == Some(idv_cards::ConfidenceVerdict::Sure) && !card_ids.contains(&f.value) {
                card_ids.push(f.value.clone());
            }
            if !card_information.iter().any(|c| c.field == f.field) {
                card_information.push(f);
            }
        }
        wrong_card |= mrz_wrong_card;
        let not_performed: &[&str] = if mrz_searched { &NOT_PERFORMED_WITH_MRZ } else { &NOT_PERFORMED };
        let mut data = json!({
            "request_id": job.request_id, "status": "success", "image1": image1, "image2": image2,
            "card_information": card_information, "not_performed": not_performed,
        });
        // The two sides (or a side and a QR close-up) belong to different cards: two
        // numbers, two last-4s, or a number that does not end with a Secure QR's last 4.
        let different_cards =
            card_ids.len() > 1 || last4s.len() > 1 || card_ids.iter().any(|id| last4s.iter().any(|l| !id.ends_with(l.as_str())));
        if different_cards {
            data["status"] = json!("failure");
            return Ok(Envelope::finished(
                group,
                data,
                vec![ApiError::failure(FailureCode::NocardOrMulticardImage, "the QR codes (or the QR code and the machine-readable zone) belong to different cards")],
            ));
        }
        if signature_failed {
            // Altered or foreign data: the fields stay in the answer, marked UNSURE, for the
            // operator to see; the card is not read as verified.
            data["status"] = json!("failure");
            return Ok(Envelope::finished(group, data, vec![ApiError::failure(FailureCode::BadQualityCardImage, SIGNATURE_FAILED)]));
        }
        if !card_information.is_empty() {
            return Ok(Envelope::ok(group, data));
        }
        data["status"] = json!("failure");
        if let Some(reason) = invalid {
            // The card's own QR, but a field in it is not valid (a damaged or forged code).
            return Ok(Envelope::finished(group, data, vec![ApiError::failure(FailureCode::BadQualityCardImage, reason)]));
        }
        if let Some(reason) = unsupported {
            return Ok(Envelope::error(group, &ErrorKind::NotAvailable { reason }));
        }
        if wrong_card {
            return Ok(Envelope::finished(
                group,
                data,
                vec![ApiError::failure(FailureCode::IncorrectCardType, format!("the QR code is not a {} QR code", req.card_type))],
            ));
        }
        Ok(Envelope::error(group, &ErrorKind::NotAvailable { reason: "no QR code could be read, and OCR is not in this build".into() }))
    }
}

#[async_trait]
impl JobHandler for CardHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, idv_store::StoreError> {
        match job.operation {
            // read_id_card_info_sync is the published SDK's name for the same reading.
            Operation::ReadIdCardInfoWithSanity | Operation::ReadIdCardInfoSync => finish(self.read(job).await),
            Operation::VerifyIdCardSanitySync | Operation::DetectIdCardTamperingSync => Ok(Envelope::error(
                job.operation.group(),
                &ErrorKind::NotAvailable { reason: "card sanity and tampering detection are not in this build (docs/STATUS.md)".into() },
            )),
            Operation::EkycFullChecks => finish(self.full_checks(job).await),
            other => Ok(Envelope::error(other.group(), &ErrorKind::Internal { message: format!("{} is not a card job", other.name()) })),
        }
    }
}

fn finish(r: Result<Envelope, Stop>) -> Result<Envelope, idv_store::StoreError> {
    match r {
        Ok(env) | Err(Stop::Answer(env)) => Ok(env),
        Err(Stop::Store(e)) => Err(e),
    }
}
