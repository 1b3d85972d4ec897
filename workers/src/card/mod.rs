//! `read_id_card_info_with_sanity` (issue 8): each side scanned once
//! ([`crate::card::scan`]: card found and flattened, card sanity, QR codes, printed text
//! by OCR, the machine-readable zone where the type has one), then read as a whole
//! ([`crate::card::read::read_card`]: codecs, printed-field parsers, card type check,
//! merge with confidence, tampering evidence). This file holds the handler: the QR codecs
//! per card type, the blocking scan within its budget, the flattened card stored as
//! `transformed_image_id`, and the answer. Choices: docs/API.md "Card reading in detail".
//!
//! `in.aadhaar` reads the original XML QR, else the signed Secure QR
//! (`idv_cards::in_aadhaar_secure`), whose signature is checked with the operator's UIDAI
//! key(s) (`IDV_AADHAAR_CERT`, loaded once at start). The side's `qr` says
//! `signature`: `verified`, `not_verified` (no certificate configured: the data is
//! returned as read, like the unsigned XML QR's) or `failed`. A failed signature is never
//! a verified card: its fields come back with `confidence_verdict: UNSURE` and the answer
//! is `status: failure` with `bad_quality_card_image` (as for a damaged code).


pub mod ekyc;
pub mod mrz;
pub mod read;
pub mod scan;

use crate::card::mrz::reference_year;
use crate::card::read::{read_card, sanity_json, CardReading, SideInput};
use crate::card::scan::{scan_side, ScanPlan, SideScan, SCAN_TIME_BUDGET};
use idv_jobs::JobHandler;
use async_trait::async_trait;
pub use idv_cards::in_aadhaar_secure::UidaiKeys;
use idv_cards::in_aadhaar_secure::Signature;
use idv_cards::{CardField, CodecError};
use idv_schemas::api::{ImageData, ReadIdCardRequest};
use idv_schemas::jobs::{Job, Work};
use idv_schemas::{ApiError, Envelope, ErrorKind, Group};
use crate::face::ops::{finish, Stop};
use idv_store::blobs::BlobStore;
use idv_vision::ocr::TextRecognizer;
use serde_json::{json, Value};
use std::sync::Arc;

/// Longest one image's decode + QR search may take before the job gives up on it
/// ("not performed"). rqrr has no cap on finder-pattern candidates, so a crafted image
/// can make its search slow: the job stops waiting here (the blocking thread finishes
/// on its own).
pub const QR_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// A card type's QR codec.
#[derive(Clone, Copy)]
pub enum Codec<'a> {
    /// An unsigned format: the fields are what the code says.
    Plain(fn(&str) -> Result<Vec<CardField>, CodecError>),
    /// `in.aadhaar`: the XML QR, else the Secure QR checked with these keys (`None`: no
    /// certificate configured).
    Aadhaar(Option<&'a UidaiKeys>),
}

/// What a codec made of one QR text.
pub struct QrRead {
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

impl<'a> Codec<'a> {
    /// The QR codec of a card type, if it carries a QR code this build reads.
    pub fn of(card_type: &str, aadhaar_keys: Option<&'a UidaiKeys>) -> Option<Codec<'a>> {
        match card_type {
            "vn.national_id" => Some(Codec::Plain(idv_cards::vn_cccd::parse)),
            "in.aadhaar" => Some(Codec::Aadhaar(aadhaar_keys)),
            _ => None,
        }
    }

    pub fn parse(&self, text: &str) -> Result<QrRead, CodecError> {
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
    pub biometrics: Option<crate::face::ops::Biometrics>,
    /// The operator's UIDAI key(s) for the Aadhaar Secure QR's signature (`None`: not
    /// configured; its signature is then answered `not_verified`).
    pub aadhaar_keys: Option<Arc<UidaiKeys>>,
    /// OCR for machine-readable zones (`idv_vision::ocr::recognizer()`; `None`: not in
    /// this build, so MRZ reading is "not performed").
    pub ocr: Option<Arc<dyn TextRecognizer>>,
    /// Where flattened cards are recorded as the caller's images (`None`: not stored,
    /// `transformed_image_id` null).
    pub store: Option<Arc<dyn idv_store::Store>>,
}

/// Why a Secure QR whose signature failed is refused (the answer's failure message).
pub(crate) const SIGNATURE_FAILED: &str =
    "the Aadhaar Secure QR's signature does not verify with the configured UIDAI certificate: its data may have been altered";

impl CardHandler {
    /// The QR codec of a card type, if this build has one.
    pub(crate) fn codec(&self, card_type: &str) -> Option<Codec<'_>> {
        Codec::of(card_type, self.aadhaar_keys.as_deref())
    }
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

    /// Decodes and scans one side (`crate::card::scan`) on a blocking thread, within
    /// [`SCAN_TIME_BUDGET`]. Stops for a missing image (404), one that does not decode
    /// (400), a store error, and a scan that overruns its budget or crashes (501).
    pub(crate) async fn scan(&self, group: Group, field: &str, image: &ImageData, plan: ScanPlan) -> Result<SideScan, Stop> {
        let bytes = self.image_bytes(group, field, image).await?;
        let ocr = self.ocr.clone();
        let task = tokio::task::spawn_blocking(move || {
            let (photo, upload_scale) = idv_vision::decode_scaled(&bytes, &idv_vision::DecodeLimits::cards())?;
            Ok::<_, idv_vision::DecodeError>(scan_side(&photo, upload_scale, &plan, ocr.as_deref()))
        });
        let not_performed = |reason: String| Stop::Answer(Envelope::error(group, &ErrorKind::NotAvailable { reason }));
        match tokio::time::timeout(SCAN_TIME_BUDGET, task).await {
            Err(_) => Err(not_performed(format!("reading {field} took longer than {} s", SCAN_TIME_BUDGET.as_secs()))),
            Ok(Err(_)) => Err(not_performed(format!("the card reader failed on {field}"))),
            Ok(Ok(Err(e))) => Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid(field, e.to_string())))),
            Ok(Ok(Ok(scan))) => Ok(scan),
        }
    }

    /// Stores a side's flattened card as an image of the caller's (JPEG; blob first,
    /// then metadata, as uploads) and returns its id, or `None` when there is none or no
    /// store to record it in. The id derives from the request, so a redelivered job
    /// rewrites the same image.
    pub(crate) async fn store_flat(&self, job: &Job, side: u8, scan: &SideScan) -> Result<Option<String>, Stop> {
        let (Some(flat), Some(store)) = (&scan.flat, &self.store) else { return Ok(None) };
        let mut jpeg = Vec::new();
        if image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90).encode_image(flat).is_err() {
            return Ok(None);
        }
        let id = format!("img-{}-card{side}", job.request_id);
        let meta = idv_store::BlobMeta {
            id: id.clone(),
            client_id: job.client_id.clone(),
            kind: "image".into(),
            size: jpeg.len() as u64,
            sha256: idv_crypto::sha256_hex(&jpeg),
            label: Some(format!("image{side} card, flattened")),
            content_type: Some("image/jpeg".into()),
            metadata: None,
            created_at: idv_schemas::clock::now_rfc3339(),
        };
        self.blobs.put(&id, bytes::Bytes::from(jpeg)).await.map_err(Stop::Store)?;
        store.put_blob_meta(&meta).await.map_err(Stop::Store)?;
        Ok(Some(id))
    }

    /// Scans both sides and reads the card (`crate::card::read::read_card`), the flattened
    /// sides stored. `portrait`: the eKYC check's face evidence for tampering.
    /// `front_scanned`: the front already scanned (`detect_id_card_tampering_sync` scans once
    /// to recognise the type), used when it read what the type's plan reads
    /// (`ScanPlan::covers`) instead of scanning the photo again.
    pub(crate) async fn read_sides(
        &self,
        job: &Job,
        group: Group,
        card_type: &str,
        sides: [(Option<&ImageData>, Option<&Vec<ImageData>>); 2],
        portrait: Option<Result<bool, String>>,
        front_scanned: Option<(ScanPlan, SideScan)>,
    ) -> Result<CardReading, Stop> {
        let year = reference_year(job);
        let codec = self.codec(card_type);
        // Both sides scanned at once (two blocking threads: the OCR of one side is most
        // of a card's time, and the two sides are independent).
        let [(front_image, front_close_ups), (back_image, back_close_ups)] = sides;
        let Some(front_image) = front_image else {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid("image1", "required"))));
        };
        let front_plan = ScanPlan::for_card_type(card_type, false, year);
        let front_scan = async {
            match front_scanned {
                Some((plan, scan)) if plan.covers(&front_plan) => Ok(scan.narrowed_to(&front_plan)),
                _ => self.scan(group, "image1", front_image, front_plan).await,
            }
        };
        let back_scan = async {
            match back_image {
                Some(image) => self.scan(group, "image2", image, ScanPlan::for_card_type(card_type, true, year)).await.map(Some),
                None => Ok(None),
            }
        };
        let (front_scan, back_scan) = tokio::join!(front_scan, back_scan);
        let mut scans: Vec<(SideScan, Vec<String>, Option<String>, Option<String>)> = Vec::new();
        for (i, (scan, image, close_ups)) in [(Some(front_scan?), Some(front_image), front_close_ups), (back_scan?, back_image, back_close_ups)].into_iter().enumerate() {
            let (Some(scan), Some(image)) = (scan, image) else { continue };
            let n = i as u8 + 1;
            // The close-ups only when the side's own photo gave no code the codec reads.
            let mut close_up = Vec::new();
            if let Some(codec) = codec {
                for (k, qr) in close_ups.into_iter().flatten().enumerate() {
                    if scan.qr_texts.iter().chain(close_up.iter()).any(|t| codec.parse(t).is_ok()) {
                        break;
                    }
                    close_up.extend(self.qr_texts(group, &format!("qr{n}_images[{k}]"), qr).await?);
                }
            }
            let flat_id = self.store_flat(job, n, &scan).await?;
            scans.push((scan, close_up, flat_id, image.id.clone()));
        }
        let inputs: Vec<SideInput<'_>> = scans
            .iter()
            .map(|(scan, close_up, flat_id, id)| SideInput { id: id.as_deref(), scan, close_up_qr_texts: close_up.clone(), transformed_image_id: flat_id.clone() })
            .collect();
        let Some(front) = inputs.first() else {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid("image1", "required"))));
        };
        Ok(read_card(card_type, codec, front, inputs.get(1), portrait, year))
    }

    /// `verify_id_card_sanity_sync` (the published SDK's): each side's card found and
    /// judged (`card_scan::locate_and_judge`), nothing read. `card_sanity` is the first
    /// side with an issue, else the front's; no card in `image1`: `failure`
    /// `nocard_or_multicard_image`.
    async fn sanity_only(&self, job: &Job, req: &ReadIdCardRequest) -> Result<Envelope, Stop> {
        let group = Group::CompareCard;
        let mut sides = Vec::new();
        for (n, image) in [(1, Some(&req.image1)), (2, req.image2.as_ref())] {
            let Some(image) = image else { continue };
            let field = format!("image{n}");
            let bytes = self.image_bytes(group, &field, image).await?;
            let task = tokio::task::spawn_blocking(move || {
                idv_vision::decode(&bytes, &idv_vision::DecodeLimits::cards()).map(|photo| crate::card::scan::locate_and_judge(&photo).sanity)
            });
            let sanity = match tokio::time::timeout(SCAN_TIME_BUDGET, task).await {
                Ok(Ok(Ok(s))) => s,
                Ok(Ok(Err(e))) => return Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid(field, e.to_string())))),
                _ => return Err(Stop::Answer(Envelope::error(group, &ErrorKind::NotAvailable { reason: format!("judging {field} failed or took too long") }))),
            };
            sides.push((image.id.clone(), sanity));
        }
        // A good back does not stand for a front with no card (`nocard_or_multicard_image`).
        let front_found = sides.first().is_some_and(|(_, s)| s.is_some());
        let first = crate::card::read::first_issue(sides.iter().filter_map(|(_, s)| s.as_ref())).filter(|s| front_found || s.verdict != idv_vision::card_sanity::CardSanityVerdict::Good);
        let side_json = |i: usize| sides.get(i).map_or(Value::Null, |(id, s)| json!({"id": id, "card_sanity": s.as_ref().map(sanity_json)}));
        let mut data = json!({"request_id": job.request_id, "status": "success", "image1": side_json(0), "image2": side_json(1), "card_sanity": first.map(sanity_json)});
        if first.is_none() {
            data["status"] = json!("failure");
            return Ok(Envelope::finished(group, data, vec![ApiError::failure(idv_schemas::FailureCode::NocardOrMulticardImage, "no card found in image1")]));
        }
        Ok(Envelope::ok(group, data))
    }

    /// `detect_id_card_tampering_sync` (the published SDK's): one photo of a card, its
    /// type not given. The photo is scanned as a Latin-script card with a zone
    /// (`in.passport`'s plan), the type recognised (`card_read::detect_card_type`), then
    /// the card read as that type, both sides' evidence weighed by
    /// `idv_cards::tampering`. No card: `failure` `nocard_or_multicard_image`; a card of
    /// none of the six types, or no OCR in this deployment: 501 `not_performed` (nothing
    /// to weigh is never `good`). The `portrait` check is left out (no face models here).
    async fn tampering_only(&self, job: &Job, req: &idv_schemas::api::SingleImageRequest) -> Result<Envelope, Stop> {
        let group = Group::CompareCard;
        let year = reference_year(job);
        let first_plan = ScanPlan::for_recognition(year);
        let first = self.scan(group, "image", &req.image, first_plan).await?;
        if matches!(first.located, crate::card::scan::Located::NoCard | crate::card::scan::Located::Several(_)) && first.qr_texts.is_empty() {
            let code = if matches!(first.located, crate::card::scan::Located::Several(_)) { "more than one card in image" } else { "no card found in image" };
            let data = json!({"request_id": job.request_id, "status": "failure", "image": {"id": req.image.id}});
            return Ok(Envelope::finished(group, data, vec![ApiError::failure(idv_schemas::FailureCode::NocardOrMulticardImage, code)]));
        }
        // The detector only asks whether a codec reads a text: no keys needed for that
        // (an unverified Secure QR still names its card type).
        let codec_of = |t: &str| -> Option<Codec<'static>> { Codec::of(t, None) };
        let Some(card_type) = crate::card::read::detect_card_type(&first, &codec_of) else {
            let reason = match &first.ocr {
                crate::card::scan::OcrOutcome::NotPerformed(r) => format!("the card type could not be recognised: OCR not performed ({r})"),
                crate::card::scan::OcrOutcome::Lines(_) => "the card is none of the six supported types: tampering cannot be weighed".to_string(),
            };
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::NotAvailable { reason })));
        };
        let r = self
            .read_sides(job, group, card_type, [(Some(&req.image), None), (None, None)], None, Some((first_plan, first)))
            .await?;
        if let Some(reason) = r.not_available {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::NotAvailable { reason })));
        }
        // The published SDK's type reads `card_tampering.result`; the API's word is
        // `verdict` (as in the eKYC check): both are given.
        let mut tampering = serde_json::to_value(&r.tampering).map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
        tampering["result"] = tampering["verdict"].clone();
        let data = json!({
            "request_id": job.request_id,
            "status": "success",
            "image": r.image1,
            "card_type": card_type,
            "card_tampering": tampering,
        });
        Ok(Envelope::ok(group, data))
    }

    async fn read(&self, job: &Job, req: &ReadIdCardRequest) -> Result<Envelope, Stop> {
        let group = Group::CompareCard;
        let r = self
            .read_sides(job, group, &req.card_type, [(Some(&req.image1), req.qr1_images.as_ref()), (req.image2.as_ref(), req.qr2_images.as_ref())], None, None)
            .await?;
        if let Some(reason) = r.not_available {
            return Ok(Envelope::error(group, &ErrorKind::NotAvailable { reason }));
        }
        let mut data = json!({
            "request_id": job.request_id, "status": "success", "image1": r.image1, "image2": r.image2,
            "card_information": r.card_information, "card_sanity": r.sanity.as_ref().map(sanity_json),
            "not_performed": r.not_performed,
        });
        match r.failure {
            None => Ok(Envelope::ok(group, data)),
            Some((code, message)) => {
                data["status"] = json!("failure");
                Ok(Envelope::finished(group, data, vec![ApiError::failure(code, message)]))
            }
        }
    }
}

/// The whole card reading over photos in memory, on this thread: what the handler does
/// for `read_id_card_info_with_sanity`, minus storage (no `transformed_image_id`) and
/// close-ups. For the evaluation command (`idv-benches --bin card_eval`) and tests.
/// `photos`: the front's and (optionally) the back's encoded bytes.
pub fn read_photos(
    card_type: &str,
    front: &[u8],
    back: Option<&[u8]>,
    aadhaar_keys: Option<&UidaiKeys>,
    ocr: Option<&dyn TextRecognizer>,
    year: u32,
) -> Result<CardReading, idv_vision::DecodeError> {
    let codec = Codec::of(card_type, aadhaar_keys);
    let scan = |i: usize, bytes: &[u8]| -> Result<SideScan, idv_vision::DecodeError> {
        let (photo, upload_scale) = idv_vision::decode_scaled(bytes, &idv_vision::DecodeLimits::cards())?;
        Ok(scan_side(&photo, upload_scale, &ScanPlan::for_card_type(card_type, i == 1, year), ocr))
    };
    // Both sides at once, as the handler scans them.
    let (front_scan, back_scan) = std::thread::scope(|s| {
        let back_scan = back.map(|b| s.spawn(move || scan(1, b)));
        let front_scan = scan(0, front);
        (front_scan, back_scan.map(|h| h.join()))
    });
    let mut scans = vec![front_scan?];
    match back_scan {
        Some(Ok(b)) => scans.push(b?),
        Some(Err(_)) => return Err(idv_vision::DecodeError::Corrupt { format: "card", reason: "the scan of the back failed".into() }),
        None => {}
    }
    let inputs: Vec<SideInput<'_>> = scans.iter().map(|scan| SideInput { id: None, scan, close_up_qr_texts: Vec::new(), transformed_image_id: None }).collect();
    let Some(first) = inputs.first() else { return Err(idv_vision::DecodeError::Empty) };
    Ok(read_card(card_type, codec, first, inputs.get(1), None, year))
}

#[async_trait]
impl JobHandler for CardHandler {
    async fn handle(&self, job: &Job) -> Result<Envelope, idv_store::StoreError> {
        match &job.work {
            // read_id_card_info_sync is the published SDK's name for the same reading.
            Work::ReadIdCardInfoWithSanity(req) | Work::ReadIdCardInfoSync(req) => finish(self.read(job, req).await),
            Work::VerifyIdCardSanitySync(req) => finish(self.sanity_only(job, req).await),
            Work::DetectIdCardTamperingSync(req) => finish(self.tampering_only(job, req).await),
            Work::EkycFullChecks(req) => finish(self.full_checks(job, req).await),
            _ => Ok(crate::not_this_pool(job, "a card")),
        }
    }
}

