//! Card reading from the machine-readable zone (issue 8): `in.passport` (TD3) read from
//! its MRZ alone, and the TD1 zone on the back of Vietnam's chip CCCD (`vn.national_id`
//! `image2`) beside its QR code. The zone is found and read by OCR
//! (`idv_vision::mrz::read_zone` over the [`TextRecognizer`] the handler was given) and
//! parsed with its check digits by `idv_cards::mrz::parse_with_repair`. Choices:
//! docs/API.md "Card reading in detail".
//!
//! Values read by OCR are never exact: an entry whose check digit passed is `SURE`, one
//! whose check failed `UNSURE`, and one no check digit covers (names, nationality, sex,
//! issuing state, document code) carries no verdict (`Mrz::ocr_card_fields`).

use crate::card::CardHandler;
use crate::face_ops::Stop;
use idv_cards::mrz::{Check, Mrz};
use idv_cards::{CardField, CodecError};
use idv_schemas::api::ImageData;
use idv_schemas::jobs::Job;
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group};
use idv_vision::mrz::ZoneRead;
use idv_vision::ocr::OcrError;
use serde_json::{json, Value};

/// Longest one image's decode + MRZ search may take (up to four OCR calls of ~0.3–1 s
/// each on one core) before the job gives up on it ("not performed"). A Tesseract call
/// cannot be interrupted: the blocking thread finishes on its own, its cost bounded by
/// the image size `read_zone` hands it.
pub const MRZ_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(15);

/// What the answer's `not_performed` lists once the MRZ was searched.
pub const NOT_PERFORMED_WITH_MRZ: [&str; 4] = ["ocr", "nfc", "card_box", "card_sanity"];

/// The outcome of searching one image for a zone.
pub(crate) enum MrzSearch {
    /// A zone was read; `mrz` is its parse (an error when the lines are not a zone the
    /// parser takes: a visa, a document code that is not a letter).
    Found { zone: ZoneRead, mrz: Result<Mrz, CodecError> },
    /// OCR ran and found no zone.
    NotFound,
    /// The search could not run (no engine, no language data, over the time budget):
    /// the reason.
    NotPerformed(String),
}

/// The OCR engine compiled into this build (`idv_vision::ocr::recognizer`), for the card
/// handler; the log says whether it has the language data MRZ reading needs.
pub fn ocr_engine() -> Option<std::sync::Arc<dyn idv_vision::ocr::TextRecognizer>> {
    let ocr = idv_vision::ocr::recognizer();
    match &ocr {
        Some(o) => {
            let mrz = o.has_language(idv_vision::mrz::MRZ_LANG);
            let eng = o.has_language(idv_vision::mrz::FALLBACK_LANG);
            if mrz || eng {
                tracing::info!(engine = %o.describe(), mrz, eng, "OCR available for machine-readable zones");
            } else {
                tracing::warn!(engine = %o.describe(), "no OCR language data (mrz, eng): MRZ reading will answer not performed (run scripts/models.sh; apt tesseract-ocr-eng)");
            }
        }
        None => tracing::warn!("OCR is not in this build (feature `ocr`): MRZ reading (in.passport) will answer not performed"),
    }
    ocr
}

/// How well a reading of a zone parses (`idv_vision::mrz::read_zone`'s judge): its check
/// digits that pass plus its fields that are not `failed`, out of both; `None` when the
/// lines are not a zone the parser takes. A date that passes its check digit but does not
/// exist (a letter read into it) counts against the reading.
pub fn judge(lines: &[String], year: u32) -> idv_vision::mrz::Judgement {
    let m = idv_cards::mrz::parse_with_repair(&lines.join("\n"), year).ok()?;
    let digits = m.check_digits.iter().filter(|c| c.passed).count();
    let fields = m.fields.iter().filter(|f| f.check != Check::Failed).count();
    Some((digits + fields, m.check_digits.len() + m.fields.len()))
}

/// The year two-digit MRZ years are placed around: the job's own (so a redelivered job
/// parses the same way), else the current one.
pub(crate) fn reference_year(job: &Job) -> u32 {
    job.created_at.get(0..4).and_then(|y| y.parse().ok()).unwrap_or_else(|| u32::try_from(time::OffsetDateTime::now_utc().year()).unwrap_or(2026))
}

impl CardHandler {
    /// Reads the zone in one image (decode and OCR on a blocking thread, within
    /// [`MRZ_TIME_BUDGET`]). Stops only for what stops any card read: a missing image
    /// (404), one that does not decode (400), a store error.
    pub(crate) async fn mrz_search(&self, group: Group, field: &str, image: &ImageData, year: u32) -> Result<MrzSearch, Stop> {
        let Some(ocr) = self.ocr.clone() else {
            return Ok(MrzSearch::NotPerformed("reading the machine-readable zone needs OCR (Tesseract), which is not in this build".into()));
        };
        let bytes = self.image_bytes(group, field, image).await?;
        let task = tokio::task::spawn_blocking(move || {
            let img = idv_vision::decode(&bytes, &idv_vision::DecodeLimits::cards())?;
            Ok::<_, idv_vision::DecodeError>(idv_vision::mrz::read_zone(&img, ocr.as_ref(), &|lines| judge(lines, year)))
        });
        let read = match tokio::time::timeout(MRZ_TIME_BUDGET, task).await {
            Err(_) => {
                return Ok(MrzSearch::NotPerformed(format!(
                    "reading the machine-readable zone of {field} took longer than {} s",
                    MRZ_TIME_BUDGET.as_secs()
                )))
            }
            Ok(Err(_)) => return Ok(MrzSearch::NotPerformed(format!("OCR failed on {field}"))),
            Ok(Ok(Err(e))) => return Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid(field, e.to_string())))),
            Ok(Ok(Ok(r))) => r,
        };
        Ok(match read {
            Ok(Some(zone)) => {
                let mrz = idv_cards::mrz::parse_with_repair(&zone.zone.lines.join("\n"), year);
                MrzSearch::Found { zone, mrz }
            }
            Ok(None) => MrzSearch::NotFound,
            Err(e @ (OcrError::Unavailable(_) | OcrError::LanguageMissing { .. } | OcrError::Failed(_) | OcrError::BadInput(_))) => {
                tracing::warn!(error = %e, "MRZ not read");
                MrzSearch::NotPerformed(e.to_string())
            }
        })
    }

    /// `in.passport`: the TD3 zone of `image1`, else of `image2` (docs/API.md).
    pub(crate) async fn read_passport(&self, job: &Job, group: Group, image1: &ImageData, image2: Option<&ImageData>) -> Result<Envelope, Stop> {
        let year = reference_year(job);
        let mut sides = [Some(side_json(image1)), image2.map(side_json)];
        let mut found = None;
        for (i, image) in [Some(image1), image2].into_iter().enumerate() {
            let Some(image) = image else { continue };
            match self.mrz_search(group, &format!("image{}", i + 1), image, year).await? {
                MrzSearch::NotPerformed(reason) => return Ok(Envelope::error(group, &ErrorKind::NotAvailable { reason })),
                MrzSearch::NotFound => {}
                MrzSearch::Found { zone, mrz } => {
                    found = Some((i, zone, mrz));
                    break;
                }
            }
        }
        let mut data = json!({
            "request_id": job.request_id, "status": "success", "image1": Value::Null, "image2": Value::Null,
            "card_information": [], "not_performed": NOT_PERFORMED_WITH_MRZ,
        });
        let failure = |mut data: Value, code: FailureCode, sides: [Option<Value>; 2], message: String| {
            data["status"] = json!("failure");
            data["image1"] = sides[0].clone().unwrap_or(Value::Null);
            data["image2"] = sides[1].clone().unwrap_or(Value::Null);
            Ok(Envelope::finished(group, data, vec![ApiError::failure(code, message)]))
        };
        let Some((i, zone, mrz)) = found else {
            let images = if image2.is_some() { "image1 or image2" } else { "image1" };
            return failure(data, FailureCode::BadQualityCardImage, sides, format!("no machine-readable zone could be read in {images}"));
        };
        let fields = match &mrz {
            Ok(m) => passport_fields(m),
            Err(_) => Vec::new(),
        };
        if let Some(side) = sides[i].as_mut() {
            side["mrz"] = mrz_json(&zone, mrz.as_ref().ok(), &fields);
        }
        let m = match mrz {
            Ok(m) => m,
            Err(CodecError::Unsupported(what)) => return failure(data, FailureCode::IncorrectCardType, sides, format!("the machine-readable zone is not a passport's ({what} are not read)")),
            Err(e) => return failure(data, FailureCode::BadQualityCardImage, sides, format!("the machine-readable zone could not be read: {e}")),
        };
        if let Some(why) = not_an_indian_passport(&m) {
            return failure(data, FailureCode::IncorrectCardType, sides, why);
        }
        data["image1"] = sides[0].take().unwrap_or(Value::Null);
        data["image2"] = sides[1].take().unwrap_or(Value::Null);
        data["card_information"] = json!(fields);
        Ok(Envelope::ok(group, data))
    }
}

/// A side of the answer before anything is read into it.
fn side_json(image: &ImageData) -> Value {
    json!({"id": image.id, "qr": null, "ocr": null, "mrz": null, "nfc": null, "card_box": null})
}

/// The side's `mrz` object (docs/API.md): `parsed` (the entries as in
/// `card_information`), `raw` (the lines as OCR read them, spaces removed, joined by line
/// breaks), and what the reading and the check digits say.
pub(crate) fn mrz_json(zone: &ZoneRead, mrz: Option<&Mrz>, parsed: &[CardField]) -> Value {
    let mut o = json!({
        "parsed": if mrz.is_some() { json!(parsed) } else { Value::Null },
        "raw": zone.zone.read.join("\n"),
        "fillers_adjusted": zone.zone.fillers_adjusted,
        "ocr_confidence": (zone.zone.confidence * 10.0).round() / 10.0,
        "ocr_language": zone.lang,
    });
    if let Some(m) = mrz {
        o["format"] = json!(format!("{:?}", m.format).to_uppercase());
        o["check_digits"] = Value::Object(m.check_digits.iter().map(|c| (c.name.to_string(), json!(c.passed))).collect());
        o["repairs"] = json!(m.repairs.iter().map(|r| json!({"line": r.line, "column": r.column, "from": r.from, "to": r.to})).collect::<Vec<_>>());
    }
    o
}

/// `in.passport`'s `card_information`: the zone's fields with their verdicts, the
/// passport number as `id` (the card number's name in every card type).
pub fn passport_fields(m: &Mrz) -> Vec<CardField> {
    m.ocr_card_fields()
        .into_iter()
        .map(|mut f| {
            if f.field == "document_number" {
                f.field = "id".into();
            }
            f
        })
        .collect()
}

/// Why a well-read zone is not an Indian passport's: a document code other than `P…`, or
/// an issuing state (read as letters) other than `IND`.
pub fn not_an_indian_passport(m: &Mrz) -> Option<String> {
    let code = m.field("document_type").map(|f| f.value.as_str()).unwrap_or("");
    if !code.starts_with('P') {
        return Some(format!("the machine-readable zone is not a passport's (document code {code:?})"));
    }
    match m.field("issuing_state") {
        Some(s) if s.check != Check::Failed && s.value != "IND" => {
            Some(format!("the passport was issued by {:?}, not India (in.passport reads Indian passports)", s.value))
        }
        _ => None,
    }
}

/// The CCCD back's zone (`IDVNM…`, TD1) as `vn.national_id` entries, or why it is not
/// one. The 12-digit ID number opens the optional data (the document number is its last
/// 9 digits): it becomes `id`; sex becomes `Nam`/`Nữ` as the QR code has it.
pub fn cccd_fields(m: &Mrz) -> Result<Vec<CardField>, String> {
    let code = m.field("document_type").map(|f| f.value.as_str()).unwrap_or("");
    let state = m.field("issuing_state").map(|f| f.value.as_str()).unwrap_or("");
    if m.format != idv_cards::mrz::Format::Td1 || !code.starts_with('I') || state != "VNM" {
        return Err(format!("the machine-readable zone is not a Vietnamese ID card's ({code:?}, {state:?})"));
    }
    let number = m.field("document_number").map(|f| f.value.clone()).unwrap_or_default();
    let mut out = Vec::new();
    for f in m.ocr_card_fields() {
        match f.field.as_str() {
            "optional_data" => {
                let id: String = f.value.chars().take(12).collect();
                if id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit()) && id.ends_with(&number) {
                    out.push(CardField { field: "id".into(), value: id, confidence_verdict: f.confidence_verdict });
                }
            }
            "gender" => {
                let value = match f.value.as_str() {
                    "M" => "Nam",
                    "F" => "Nữ",
                    _ => continue,
                };
                out.push(CardField { value: value.into(), ..f });
            }
            "name" | "dob" | "expiry_date" | "nationality" | "document_number" => out.push(f),
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use idv_cards::ConfidenceVerdict::{Sure, Unsure};

    const YEAR: u32 = 2026;
    const PASSPORT: &str = "P<INDSHARMA<<PRIYA<KUMARI<<<<<<<<<<<<<<<<<<<\nZ1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0";
    const CCCD: &str = "IDVNM0930470641001093047064<<2\n9301054M3301052VNM<<<<<<<<<<<8\nUNG<<HOANG<HIEP<<<<<<<<<<<<<<<";

    fn entry<'a>(f: &'a [CardField], name: &str) -> Option<(&'a str, Option<idv_cards::ConfidenceVerdict>)> {
        f.iter().find(|e| e.field == name).map(|e| (e.value.as_str(), e.confidence_verdict))
    }

    #[test]
    fn passport_entries_and_verdicts() -> Result<(), CodecError> {
        let m = idv_cards::mrz::parse(PASSPORT, YEAR)?;
        assert!(m.all_checks_passed(), "{:?}", m.check_digits);
        let f = passport_fields(&m);
        assert_eq!(entry(&f, "id"), Some(("Z1234567", Some(Sure))));
        assert_eq!(entry(&f, "dob"), Some(("15/08/1990", Some(Sure))));
        assert_eq!(entry(&f, "expiry_date"), Some(("14/03/2031", Some(Sure))));
        assert_eq!(entry(&f, "name"), Some(("SHARMA PRIYA KUMARI", None)));
        assert_eq!(entry(&f, "gender"), Some(("F", None)));
        assert_eq!(entry(&f, "nationality"), Some(("IND", None)));
        assert_eq!(entry(&f, "issuing_state"), Some(("IND", None)));
        assert_eq!(entry(&f, "document_number"), None);
        assert_eq!(not_an_indian_passport(&m), None);
        // A check digit that fails: that field UNSURE, never SURE.
        let m = idv_cards::mrz::parse(&PASSPORT.replace("9008157F", "9008155F"), YEAR)?;
        let f = passport_fields(&m);
        assert_eq!(entry(&f, "dob"), Some(("15/08/1990", Some(Unsure))));
        assert_eq!(entry(&f, "id"), Some(("Z1234567", Some(Sure))));
        // Another state's passport, an ID card.
        let m = idv_cards::mrz::parse(&PASSPORT.replace("P<IND", "P<UTO"), YEAR)?;
        assert!(not_an_indian_passport(&m).is_some_and(|w| w.contains("UTO")));
        let m = idv_cards::mrz::parse(CCCD, YEAR)?;
        assert!(not_an_indian_passport(&m).is_some());
        Ok(())
    }

    #[test]
    fn cccd_back_entries() -> Result<(), CodecError> {
        let m = idv_cards::mrz::parse(CCCD, YEAR)?;
        assert!(m.all_checks_passed(), "{:?}", m.check_digits);
        let f = cccd_fields(&m).map_err(|e| CodecError::Unsupported(Box::leak(e.into_boxed_str())))?;
        assert_eq!(entry(&f, "id"), Some(("001093047064", Some(Sure))));
        assert_eq!(entry(&f, "document_number"), Some(("093047064", Some(Sure))));
        assert_eq!(entry(&f, "gender"), Some(("Nam", None)));
        assert_eq!(entry(&f, "dob"), Some(("05/01/1993", Some(Sure))));
        assert_eq!(entry(&f, "expiry_date"), Some(("05/01/2033", Some(Sure))));
        assert_eq!(entry(&f, "name"), Some(("UNG HOANG HIEP", None)));
        // A passport's zone is not a CCCD's.
        assert!(cccd_fields(&idv_cards::mrz::parse(PASSPORT, YEAR)?).is_err());
        Ok(())
    }

    /// A recognizer that reads the same lines off any image (`None`: no language data).
    struct Fixed(Option<Vec<&'static str>>);

    impl idv_vision::ocr::TextRecognizer for Fixed {
        fn read_lines(&self, _: &image::GrayImage, _: &idv_vision::ocr::OcrParams<'_>) -> Result<Vec<idv_vision::ocr::OcrLine>, OcrError> {
            let lines = self.0.clone().unwrap_or_default();
            Ok(lines
                .iter()
                .enumerate()
                .map(|(i, t)| idv_vision::ocr::OcrLine {
                    text: (*t).into(),
                    confidence: 90.0,
                    bbox: idv_vision::ocr::TextBox { x: 100, y: 100 + 40 * i as u32, width: 1100, height: 28 },
                })
                .collect())
        }
        fn has_language(&self, lang: &str) -> bool {
            self.0.is_some() && lang == "mrz"
        }
        fn describe(&self) -> String {
            "fixed".into()
        }
    }

    fn png() -> bytes::Bytes {
        let img = image::GrayImage::from_pixel(1500, 1100, image::Luma([220]));
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).expect("encode PNG");
        bytes::Bytes::from(out)
    }

    async fn handler(dir: &std::path::Path, ocr: Option<Vec<&'static str>>) -> CardHandler {
        let blobs: std::sync::Arc<dyn idv_store::blobs::BlobStore> =
            std::sync::Arc::new(idv_store::blobs::LocalDirBlobs::new(dir).expect("blob dir"));
        blobs.put("img-1", png()).await.expect("put");
        blobs.put("img-2", png()).await.expect("put");
        let ocr = ocr.map(|o| std::sync::Arc::new(Fixed(Some(o))) as std::sync::Arc<dyn idv_vision::ocr::TextRecognizer>);
        CardHandler { blobs, biometrics: None, aadhaar_keys: None, ocr }
    }

    fn read_job(card_type: &str, image2: bool) -> Job {
        let mut payload = json!({"card_type": card_type, "image1": {"id": "img-1"}});
        if image2 {
            payload["image2"] = json!({"id": "img-2"});
        }
        Job {
            schema_version: 1,
            request_id: "r1".into(),
            operation: idv_schemas::ops::Operation::ReadIdCardInfoWithSanity,
            client_id: "c".into(),
            access_key_id: "k".into(),
            reply_to: "i".into(),
            created_at: "2026-11-23T00:00:00Z".into(),
            payload,
        }
    }

    async fn answer(ocr: Option<Vec<&'static str>>, card_type: &str, image2: bool) -> Envelope {
        use crate::runtime::JobHandler;
        let dir = tempfile::tempdir().expect("tempdir");
        let h = handler(dir.path(), ocr).await;
        h.handle(&read_job(card_type, image2)).await.expect("handled")
    }

    fn verdict<'a>(data: &'a Value, name: &str) -> Option<(&'a str, Option<&'a str>)> {
        let e = data["card_information"].as_array()?.iter().find(|e| e["field"] == name)?;
        Some((e["value"].as_str()?, e["confidence_verdict"].as_str()))
    }

    const P1: &str = "P<INDSHARMA<<PRIYA<KUMARI<<<<<<<<<<<<<<<<<<<";
    const P2: &str = "Z1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0";

    #[tokio::test]
    async fn passport_answers() {
        // Read: every entry, verdicts by check digit, `mrz` on the side, `mrz` performed.
        let env = answer(Some(vec!["REPUBLIC OF INDIA", P1, "Z1234567<1IND90081 57F3103142<<<<<<<<<<<<<<<0"]), "in.passport", false).await;
        let d = &env.body["data"];
        assert_eq!((env.http_status, d["status"].as_str()), (200, Some("success")), "{}", env.body);
        assert_eq!(verdict(d, "id"), Some(("Z1234567", Some("SURE"))));
        assert_eq!(verdict(d, "dob"), Some(("15/08/1990", Some("SURE"))));
        assert_eq!(verdict(d, "name"), Some(("SHARMA PRIYA KUMARI", None)));
        assert_eq!(d["image1"]["mrz"]["raw"], format!("{P1}\n{P2}"));
        assert_eq!(d["image1"]["mrz"]["format"], "TD3");
        assert_eq!(d["image1"]["mrz"]["ocr_language"], "mrz");
        assert_eq!(d["image1"]["mrz"]["parsed"], d["card_information"]);
        assert_eq!(d["not_performed"], json!(NOT_PERFORMED_WITH_MRZ));
        assert!(d["image2"].is_null());
        // An O read for a 0 in the date: repaired, and said so.
        let env = answer(Some(vec![P1, "Z1234567<1IND9OO8157F3103142<<<<<<<<<<<<<<<0"]), "in.passport", false).await;
        assert_eq!(verdict(&env.body["data"], "dob"), Some(("15/08/1990", Some("SURE"))), "{}", env.body);
        assert_eq!(env.body["data"]["image1"]["mrz"]["repairs"].as_array().map(Vec::len), Some(2));
        // A check digit that fails: UNSURE, the answer still a success.
        let env = answer(Some(vec![P1, "Z1234567<1IND9008158F3103142<<<<<<<<<<<<<<<0"]), "in.passport", false).await;
        assert_eq!(verdict(&env.body["data"], "dob"), Some(("15/08/1990", Some("UNSURE"))), "{}", env.body);
        assert_eq!(env.body["data"]["image1"]["mrz"]["check_digits"]["dob"], false);
        // No zone in either image: failure, bad_quality_card_image, mrz searched.
        let env = answer(Some(vec!["REPUBLIC OF INDIA"]), "in.passport", true).await;
        assert_eq!((env.http_status, env.first_error_code()), (200, Some("bad_quality_card_image")), "{}", env.body);
        assert!(env.body["errors"][0]["message"].as_str().is_some_and(|m| m.contains("image1 or image2")));
        assert_eq!(env.body["data"]["not_performed"], json!(NOT_PERFORMED_WITH_MRZ));
        // Another country's passport; an ID card's zone; a visa.
        let env = answer(Some(vec![P1.replacen("IND", "UTO", 1).leak(), P2]), "in.passport", false).await;
        assert_eq!(env.first_error_code(), Some("incorrect_card_type"), "{}", env.body);
        let env = answer(Some(vec!["IDVNM0930470641001093047064<<2", "9301054M3301052VNM<<<<<<<<<<<8", "UNG<<HOANG<HIEP<<<<<<<<<<<<<<<"]), "in.passport", false).await;
        assert_eq!(env.first_error_code(), Some("incorrect_card_type"), "{}", env.body);
        let env = answer(Some(vec![P1.replacen("P<", "V<", 1).leak(), P2]), "in.passport", false).await;
        assert_eq!(env.first_error_code(), Some("incorrect_card_type"), "{}", env.body);
        assert!(env.body["data"]["image1"]["mrz"]["parsed"].is_null());
    }

    #[tokio::test]
    async fn passport_without_ocr_is_not_performed() {
        for ocr in [None, Some(Fixed(None))] {
            let dir = tempfile::tempdir().expect("tempdir");
            let mut h = handler(dir.path(), None).await;
            h.ocr = ocr.map(|o| std::sync::Arc::new(o) as std::sync::Arc<dyn idv_vision::ocr::TextRecognizer>);
            let env = crate::runtime::JobHandler::handle(&h, &read_job("in.passport", false)).await.expect("handled");
            assert_eq!((env.http_status, env.body["errors"][0]["detail"]["reason"].as_str()), (501, Some("not_performed")), "{}", env.body);
        }
        // A missing image is still 404, whatever OCR can do.
        let dir = tempfile::tempdir().expect("tempdir");
        let h = handler(dir.path(), Some(vec![P1, P2])).await;
        let mut job = read_job("in.passport", false);
        job.payload["image1"]["id"] = json!("missing");
        let env = crate::runtime::JobHandler::handle(&h, &job).await.expect("handled");
        assert_eq!(env.http_status, 404, "{}", env.body);
    }

    #[tokio::test]
    async fn cccd_back_without_a_qr() {
        // No QR anywhere (plain images), the back's zone read: its entries answer.
        let env = answer(Some(vec!["IDVNM0930470641001093047064<<2", "9301054M3301052VNM<<<<<<<<<<<8", "UNG<<HOANG<HIEP<<<<<<<<<<<<<<<"]), "vn.national_id", true).await;
        let d = &env.body["data"];
        assert_eq!((env.http_status, d["status"].as_str()), (200, Some("success")), "{}", env.body);
        assert_eq!(verdict(d, "id"), Some(("001093047064", Some("SURE"))));
        assert_eq!(verdict(d, "gender"), Some(("Nam", None)));
        assert_eq!(d["image2"]["mrz"]["format"], "TD1");
        assert!(d["image1"]["mrz"].is_null());
        // Without a back, or without OCR: as before (no QR: not performed).
        let env = answer(Some(vec![]), "vn.national_id", false).await;
        assert_eq!(env.http_status, 501, "{}", env.body);
        let env = answer(None, "vn.national_id", true).await;
        assert_eq!(env.http_status, 501, "{}", env.body);
        // A passport's zone on the back of a CCCD: another card type.
        let env = answer(Some(vec![P1, P2]), "vn.national_id", true).await;
        assert_eq!(env.first_error_code(), Some("incorrect_card_type"), "{}", env.body);
    }

    #[test]
    fn reference_year_is_the_jobs() {
        let mut job = Job {
            schema_version: 1,
            request_id: "r".into(),
            operation: idv_schemas::ops::Operation::ReadIdCardInfoWithSanity,
            client_id: "c".into(),
            access_key_id: "k".into(),
            reply_to: "i".into(),
            created_at: "2031-05-01T00:00:00Z".into(),
            payload: json!({}),
        };
        assert_eq!(reference_year(&job), 2031);
        job.created_at = "garbage".into();
        assert!(reference_year(&job) >= 2025);
    }
}
