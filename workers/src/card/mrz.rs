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

use idv_cards::mrz::{Check, Mrz};
use idv_cards::CardField;
use idv_schemas::jobs::Job;
use idv_vision::mrz::ZoneRead;
use serde_json::{json, Value};

/// Longest one image's decode + MRZ search may take (up to seven OCR calls of ~0.3–1 s
/// each on one core: the page's two searches and its band's re-read, and the same on
/// the page evened when no zone passed) before the job gives up on it ("not performed"). A Tesseract call
/// cannot be interrupted: the blocking thread finishes on its own, its cost bounded by
/// the image size `read_zone` hands it.
pub const MRZ_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(15);

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
/// passport number as `id` (the card number's name in every card type), held to an
/// Indian passport number's structure ([`passport_number`]).
pub fn passport_fields(m: &Mrz) -> Vec<CardField> {
    m.ocr_card_fields()
        .into_iter()
        .map(|mut f| {
            if f.field == "document_number" {
                f.field = "id".into();
                f = passport_number(f);
            }
            f
        })
        .collect()
}

/// A check digit weighs a character by its value mod 10, so it cannot tell `S` (28) from
/// `8` or `G` (16) from `6`: exactly the pairs OCR confuses most in OCR-B. A zone's
/// passport number that is not a letter and seven digits (`81307677` for `S1307677`,
/// check digit passed) is put back into that shape through these pairs alone, `UNSURE`
/// (no check confirms which of the pair was printed); one that no such swap shapes stays
/// as read, `UNSURE`. Never `SURE` against its document's structure.
fn passport_number(f: CardField) -> CardField {
    use idv_cards::printed::{passport_number_check, FieldCheck};
    if passport_number_check(&f.value) == FieldCheck::Passed {
        return f;
    }
    let swapped: String = f
        .value
        .chars()
        .enumerate()
        .map(|(i, c)| match (i, c) {
            (0, '8') => 'S',
            (0, '6') => 'G',
            (1.., 'S') => '8',
            (1.., 'G') => '6',
            _ => c,
        })
        .collect();
    let value = if passport_number_check(&swapped) == FieldCheck::Passed { swapped } else { f.value.clone() };
    CardField { value, ..f }.unsure()
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
/// one ([`td1_fields`] for Vietnam).
pub fn cccd_fields(m: &Mrz) -> Result<Vec<CardField>, String> {
    td1_fields(m, "VNM")
}

/// Whether a zone's header, which no check digit covers, holds what no document writes
/// there: a TD1 or TD2 document code whose first letter is none of ICAO's `I`, `A`,
/// `C`, a TD3 one whose first letter is neither `P` (passports) nor `V` (visas), or an
/// issuing state that is not three letters and fillers. Such a zone's header is misread
/// (a punch at the zone's start read "ID" as "L<"; a mark before a passport's zone read
/// "P<IND" as "CP<IN"), not another document's, so it is no ground to refuse the card
/// type.
pub fn misread_header(m: &Mrz) -> bool {
    let code = m.field("document_type").map(|f| f.value.as_str()).unwrap_or("");
    let issuer = m.field("issuing_state").map(|f| f.value.as_str()).unwrap_or("");
    let first_letters: &[char] = match m.format {
        idv_cards::mrz::Format::Td1 | idv_cards::mrz::Format::Td2 => &['I', 'A', 'C'],
        _ => &['P', 'V'],
    };
    let state_shaped = !issuer.is_empty() && issuer.len() <= 3 && issuer.bytes().all(|b| b.is_ascii_uppercase());
    !code.starts_with(first_letters) || !state_shaped
}

/// Whether a zone's issuing state, which no check digit covers, is `state` misread: one
/// letter off it ("END" for `IND`, the independent set's seed 18, a clean national
/// identity card whose header "IDIND" was read "ITDEND"), while every check digit passes
/// and the nationality, on the second line, is `state` as printed. Another state's code
/// one letter from `state` on a zone of `state`'s national is the one case this takes
/// for `state`'s card: its entries are still only what the check digits cover and the
/// names, each as read.
fn misread_state(m: &Mrz, state: &str) -> bool {
    let issuer = m.field("issuing_state").map(|f| f.value.as_str()).unwrap_or("");
    let nationality = m.field("nationality").map(|f| f.value.as_str()).unwrap_or("");
    let letters_off = issuer.len() == state.len() && issuer.bytes().zip(state.bytes()).filter(|(a, b)| a != b).count() <= 1;
    letters_off && nationality == state && m.all_checks_passed()
}

/// An ID card's TD1 zone issued by `state` as card entries, or why it is not one. A
/// 12-digit number opening the optional data and ending with the document number (the
/// CCCD's citizen number; the document number is its last 9 digits) becomes `id`; sex is
/// `M`/`F` (the one gender vocabulary of every card type); `VNM` nationality is written
/// `Việt Nam` as the card prints it, so the sources compare. A document code no
/// document writes (its first letter none of `I`, `A`, `C`: [`misread_header`]) is a
/// misread `ID` ("LD", the independent set's seed 12; "L<" under a punch, seed 9) when
/// the issuing state is `state`'s: no check digit covers the code, and the entries
/// taken are the ones the check digits cover and the names.
pub fn td1_fields(m: &Mrz, state: &str) -> Result<Vec<CardField>, String> {
    let code = m.field("document_type").map(|f| f.value.as_str()).unwrap_or("");
    let issuer = m.field("issuing_state").map(|f| f.value.as_str()).unwrap_or("");
    let an_id_card = code.starts_with('I') || !code.starts_with(['A', 'C']);
    if m.format != idv_cards::mrz::Format::Td1 || !an_id_card || !(issuer == state || misread_state(m, state)) {
        return Err(format!("the machine-readable zone is not an ID card of {state} ({code:?}, {issuer:?})"));
    }
    let number = m.field("document_number").map(|f| f.value.clone()).unwrap_or_default();
    // A CCCD's document number is the last 9 digits of its citizen number, which opens
    // the optional data: one of another shape, or not the end of the 12 digits read
    // there, passed its check digit by chance ("160049L07" for 160049025 under glare,
    // the independent set's seed 23, its check digit passing and the composite failing):
    // never `SURE`.
    let optional_id: String = m.field("optional_data").map(|f| f.value.chars().take(12).collect()).unwrap_or_default();
    let cccd_number_shaped = number.len() == 9
        && number.bytes().all(|b| b.is_ascii_digit())
        && !(optional_id.len() == 12 && optional_id.bytes().all(|b| b.is_ascii_digit()) && !optional_id.ends_with(&number));
    let mut out = Vec::new();
    for f in m.ocr_card_fields() {
        match f.field.as_str() {
            "optional_data" => {
                let id: String = f.value.chars().take(12).collect();
                if id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit()) && !number.is_empty() && id.ends_with(&number) {
                    out.push(CardField { field: "id".into(), value: id, ..f.clone() });
                }
            }
            "gender" if matches!(f.value.as_str(), "M" | "F") => out.push(f),
            "nationality" if f.value == "VNM" => out.push(CardField { value: "Việt Nam".into(), ..f }),
            // The card prints given names first ("REKHA DEVI GUPTA") where the zone puts
            // the surname first: the name is given in the card's order, so it compares
            // with (and stands in for) the printed one.
            "name" if state == "IND" => {
                let part = |name: &str| m.field(name).map(|p| p.value.as_str()).unwrap_or("");
                let printed_order = [part("first_name"), part("last_name")].into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ");
                out.push(CardField { value: printed_order, ..f });
            }
            "document_number" if state == "VNM" && !cccd_number_shaped => out.push(f.unsure()),
            "name" | "dob" | "expiry_date" | "nationality" | "document_number" => out.push(f),
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::CardHandler;
    use idv_cards::CodecError;
    use idv_schemas::Envelope;
    use idv_vision::ocr::OcrError;
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
    fn a_passport_number_out_of_shape_is_never_sure() -> Result<(), CodecError> {
        // `S` and `8` weigh the same in a check digit: "81307677" passes where
        // "S1307677" was printed (seed 11's in.passport-hole-002).
        let read = |number: &str| PASSPORT.replace("Z1234567<1", &format!("{number}<{}", idv_cards::mrz::check_digit(number).map_or('?', |d| char::from(b'0' + d))));
        let m = idv_cards::mrz::parse(&read("81307677"), YEAR)?;
        assert_eq!(m.check_digit("document_number"), Some(true));
        assert_eq!(entry(&passport_fields(&m), "id"), Some(("S1307677", Some(Unsure))));
        let m = idv_cards::mrz::parse(&read("61307677"), YEAR)?;
        assert_eq!(entry(&passport_fields(&m), "id"), Some(("G1307677", Some(Unsure))));
        let m = idv_cards::mrz::parse(&read("S13G7S77"), YEAR)?;
        assert_eq!(entry(&passport_fields(&m), "id"), Some(("S1367877", Some(Unsure))));
        // Must-fail twins: a shape no such swap gives stays as read, UNSURE; a number in
        // shape keeps its check digit's SURE.
        let m = idv_cards::mrz::parse(&read("71307677"), YEAR)?;
        assert_eq!(entry(&passport_fields(&m), "id"), Some(("71307677", Some(Unsure))));
        let m = idv_cards::mrz::parse(&read("S1307677"), YEAR)?;
        assert_eq!(entry(&passport_fields(&m), "id"), Some(("S1307677", Some(Sure))));
        Ok(())
    }

    #[test]
    fn cccd_back_entries() -> Result<(), CodecError> {
        let m = idv_cards::mrz::parse(CCCD, YEAR)?;
        assert!(m.all_checks_passed(), "{:?}", m.check_digits);
        let f = cccd_fields(&m).map_err(|e| CodecError::Unsupported(Box::leak(e.into_boxed_str())))?;
        assert_eq!(entry(&f, "id"), Some(("001093047064", Some(Sure))));
        assert_eq!(entry(&f, "document_number"), Some(("093047064", Some(Sure))));
        assert_eq!(entry(&f, "gender"), Some(("M", None)));
        assert_eq!(entry(&f, "dob"), Some(("05/01/1993", Some(Sure))));
        assert_eq!(entry(&f, "expiry_date"), Some(("05/01/2033", Some(Sure))));
        assert_eq!(entry(&f, "name"), Some(("UNG HOANG HIEP", None)));
        // A passport's zone is not a CCCD's.
        assert!(cccd_fields(&idv_cards::mrz::parse(PASSPORT, YEAR)?).is_err());
        // A document number misread into another one whose check digit still passes
        // (seed 23's glared CCCD, "160049L07"): a letter in it, or digits that do not end
        // the citizen number read beside it, is never SURE; no `id` is taken from them.
        for misread in ["A93047064", "093047040"] {
            let zone = CCCD.replacen("093047064", misread, 1);
            let m = idv_cards::mrz::parse(&zone, YEAR)?;
            assert!(m.check_digits.iter().any(|c| c.name == "document_number" && c.passed), "{misread}: its check digit passes");
            let f = cccd_fields(&m).map_err(|e| CodecError::Unsupported(Box::leak(e.into_boxed_str())))?;
            assert_eq!(entry(&f, "document_number"), Some((misread, Some(Unsure))), "{misread}");
            assert_eq!(entry(&f, "id"), None, "{misread}");
        }
        Ok(())
    }

    /// A header no document writes (seed 9: a punch at the zone's start read "ID" as
    /// "L<", every check digit passing) is a misread, no other document; another state's
    /// card, a passport, or the card's own zone are read as they say.
    #[test]
    fn a_header_no_document_writes_is_misread() -> Result<(), CodecError> {
        let punched = "L<INDVW25810201<<<<<<<<<<<<<<<\n9502264M3512241IND<<<<<<<<<<<2\nDAS<<SURESH<<<<<<<<<<<<<<<<<<<";
        let m = idv_cards::mrz::parse(punched, YEAR)?;
        assert!(m.all_checks_passed() && misread_header(&m));
        // Its checked entries are the card's (seed 12: "LD" read for "ID"); another
        // document's code, or another state, is not.
        for zone in [punched.to_string(), punched.replacen("L<", "LD", 1)] {
            let f = td1_fields(&idv_cards::mrz::parse(&zone, YEAR)?, "IND").map_err(|e| CodecError::Unsupported(Box::leak(e.into_boxed_str())))?;
            assert_eq!(entry(&f, "document_number"), Some(("VW2581020", Some(Sure))), "{zone}");
            assert_eq!(entry(&f, "dob"), Some(("26/02/1995", Some(Sure))), "{zone}");
        }
        for zone in [punched.replacen("L<", "AC", 1), punched.replacen("L<", "C<", 1)] {
            assert!(td1_fields(&idv_cards::mrz::parse(&zone, YEAR)?, "IND").is_err(), "{zone}");
        }
        assert!(td1_fields(&m, "VNM").is_err());
        assert!(misread_header(&idv_cards::mrz::parse(&punched.replacen("L<IND", "ID1ND", 1), YEAR)?), "a digit in the state");
        for zone in [punched.replacen("L<", "ID", 1), CCCD.to_string(), punched.replacen("L<IND", "IDUTO", 1), PASSPORT.to_string()] {
            assert!(!misread_header(&idv_cards::mrz::parse(&zone, YEAR)?), "{zone}");
        }
        // A passport's header read with a mark before it (seed 33, tilted: "CP<IN…").
        assert!(misread_header(&idv_cards::mrz::parse(&PASSPORT.replacen("P<INDSHARMA", "CP<INDSHARM", 1), YEAR)?));
        Ok(())
    }

    /// An issuing state one letter off the card's ("END" for IND, seed 18: "IDIND" read
    /// "ITDEND"), every check digit passing and the nationality the card's, is the card's
    /// state misread. Must-fail twins: a state two letters off, a nationality that is not
    /// the card's, or a failing check digit still refuse the zone.
    #[test]
    fn an_issuing_state_one_letter_off_is_misread_when_the_rest_is_the_cards() -> Result<(), CodecError> {
        let zone = "TDENDED73573271<<<<<<<<<<<<<<<\n9211188F3508219IND<<<<<<<<<<<0\nNAIR<<ASHA<<<<<<<<<<<<<<<<<<<<";
        let m = idv_cards::mrz::parse(zone, YEAR)?;
        assert!(m.all_checks_passed(), "{:?}", m.check_digits);
        let f = td1_fields(&m, "IND").map_err(|e| CodecError::Unsupported(Box::leak(e.into_boxed_str())))?;
        assert_eq!(entry(&f, "document_number"), Some(("ED7357327", Some(Sure))));
        assert_eq!(entry(&f, "gender"), Some(("F", None)));
        let refused = [
            zone.replacen("TDEND", "IDIMX", 1),
            zone.replacen("IND<<", "UTO<<", 1),
            zone.replacen("9211188F", "9211189F", 1),
        ];
        for z in refused {
            assert!(td1_fields(&idv_cards::mrz::parse(&z, YEAR)?, "IND").is_err(), "{z}");
        }
        assert!(td1_fields(&m, "VNM").is_err());
        Ok(())
    }

    /// India's national identity card prints given names first: the zone's name (surname
    /// first) is given in the card's order; Vietnam's keeps the zone's (and the card's).
    #[test]
    fn the_indian_card_zone_name_is_given_in_the_printed_order() -> Result<(), CodecError> {
        let zone = "IDIND42474897232845<<<<<<<<<<<\n9704219F3006210IND<<<<<<<<<<<9\nGUPTA<<ANJALI<DEVI<<<<<<<<<<<<";
        let m = idv_cards::mrz::parse(zone, YEAR)?;
        let f = td1_fields(&m, "IND").map_err(|e| CodecError::Unsupported(Box::leak(e.into_boxed_str())))?;
        assert_eq!(entry(&f, "name"), Some(("ANJALI DEVI GUPTA", None)));
        assert_eq!(entry(&f, "dob"), Some(("21/04/1997", Some(Sure))));
        assert!(td1_fields(&m, "VNM").is_err(), "an Indian zone is not a CCCD's");
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
                    symbols: Vec::new(),
                    words: Vec::new(),
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
        CardHandler { blobs, biometrics: None, aadhaar_keys: None, ocr, store: None }
    }

    fn read_job(card_type: &str, image2: bool) -> Job {
        let mut payload = json!({"card_type": card_type, "image1": {"id": "img-1"}});
        if image2 {
            payload["image2"] = json!({"id": "img-2"});
        }
        Job {
            schema_version: 1,
            request_id: "r1".into(),
            client_id: "c".into(),
            access_key_id: "k".into(),
            reply_to: "i".into(),
            created_at: "2026-11-23T00:00:00Z".into(),
            work: idv_schemas::jobs::Work::ReadIdCardInfoWithSanity(serde_json::from_value(payload).expect("a card request")),
        }
    }

    async fn answer(ocr: Option<Vec<&'static str>>, card_type: &str, image2: bool) -> Envelope {
        use idv_jobs::JobHandler;
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
        // No check digit covers the name, and no second source read it: UNSURE.
        assert_eq!(verdict(d, "name"), Some(("SHARMA PRIYA KUMARI", Some("UNSURE"))));
        assert_eq!(d["image1"]["mrz"]["raw"], format!("{P1}\n{P2}"));
        assert_eq!(d["image1"]["mrz"]["format"], "TD3");
        assert_eq!(d["image1"]["mrz"]["ocr_language"], "mrz");
        assert_eq!(d["image1"]["mrz"]["parsed"].as_array().map(Vec::len), d["card_information"].as_array().map(Vec::len));
        // The scripted engine has no `eng` data: the printed text was not read, and says so.
        assert_eq!(d["not_performed"], json!(["nfc", "ocr"]));
        assert!(d["image2"].is_null());
        // An O read for a 0 in the date: repaired, and said so.
        let env = answer(Some(vec![P1, "Z1234567<1IND9OO8157F3103142<<<<<<<<<<<<<<<0"]), "in.passport", false).await;
        assert_eq!(verdict(&env.body["data"], "dob"), Some(("15/08/1990", Some("SURE"))), "{}", env.body);
        assert_eq!(env.body["data"]["image1"]["mrz"]["repairs"].as_array().map(Vec::len), Some(2));
        // A check digit that fails: the date is shown UNSURE in `mrz.parsed` and not given
        // (a misread, its digit's or its own), the answer still a success.
        let env = answer(Some(vec![P1, "Z1234567<1IND9008158F3103142<<<<<<<<<<<<<<<0"]), "in.passport", false).await;
        assert_eq!(verdict(&env.body["data"], "dob"), None, "{}", env.body);
        assert!(env.body["data"]["image1"]["mrz"]["parsed"].as_array().is_some_and(|p| p.iter().any(|f| f["field"] == "dob" && f["confidence_verdict"] == "UNSURE")), "{}", env.body);
        assert_eq!(verdict(&env.body["data"], "id"), Some(("Z1234567", Some("SURE"))), "{}", env.body);
        assert_eq!(env.body["data"]["image1"]["mrz"]["check_digits"]["dob"], false);
        // No zone in either image: failure, bad_quality_card_image, mrz searched.
        let env = answer(Some(vec!["REPUBLIC OF INDIA"]), "in.passport", true).await;
        assert_eq!((env.http_status, env.first_error_code()), (200, Some("bad_quality_card_image")), "{}", env.body);
        assert_eq!(env.body["data"]["not_performed"], json!(["nfc", "ocr"]));
        // Another country's passport; an ID card's zone; a visa.
        let env = answer(Some(vec![P1.replacen("IND", "UTO", 1).leak(), P2]), "in.passport", false).await;
        assert_eq!(env.first_error_code(), Some("incorrect_card_type"), "{}", env.body);
        // The same with a check digit failing: its letters may be misread, so it is not
        // refused on them, and not taken either (shown in `mrz.parsed` only).
        let env = answer(Some(vec![P1.replacen("IND", "UTO", 1).leak(), "Z1234567<1IND9008158F3103142<<<<<<<<<<<<<<<0"]), "in.passport", false).await;
        assert_ne!(env.first_error_code(), Some("incorrect_card_type"), "{}", env.body);
        assert_eq!(verdict(&env.body["data"], "id"), None, "{}", env.body);
        assert!(env.body["data"]["image1"]["mrz"]["parsed"].as_array().is_some_and(|p| !p.is_empty()), "{}", env.body);
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
            let env = idv_jobs::JobHandler::handle(&h, &read_job("in.passport", false)).await.expect("handled");
            assert_eq!((env.http_status, env.body["errors"][0]["detail"]["reason"].as_str()), (501, Some("not_performed")), "{}", env.body);
        }
        // A missing image is still 404, whatever OCR can do.
        let dir = tempfile::tempdir().expect("tempdir");
        let h = handler(dir.path(), Some(vec![P1, P2])).await;
        let mut job = read_job("in.passport", false);
        if let idv_schemas::jobs::Work::ReadIdCardInfoWithSanity(req) = &mut job.work {
            req.image1.id = Some("missing".into());
        }
        let env = idv_jobs::JobHandler::handle(&h, &job).await.expect("handled");
        assert_eq!(env.http_status, 404, "{}", env.body);
    }

    #[tokio::test]
    async fn cccd_back_without_a_qr() {
        // No QR anywhere (plain images), the back's zone read: its entries answer.
        let env = answer(Some(vec!["IDVNM0930470641001093047064<<2", "9301054M3301052VNM<<<<<<<<<<<8", "UNG<<HOANG<HIEP<<<<<<<<<<<<<<<"]), "vn.national_id", true).await;
        let d = &env.body["data"];
        assert_eq!((env.http_status, d["status"].as_str()), (200, Some("success")), "{}", env.body);
        assert_eq!(verdict(d, "id"), Some(("001093047064", Some("SURE"))));
        assert_eq!(verdict(d, "gender"), Some(("M", Some("UNSURE"))));
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
            client_id: "c".into(),
            access_key_id: "k".into(),
            reply_to: "i".into(),
            created_at: "2031-05-01T00:00:00Z".into(),
            work: idv_schemas::jobs::Work::FaceAuthUser(idv_schemas::api::CusUserRequest { cus_user_id: "u".into() }),
        };
        assert_eq!(reference_year(&job), 2031);
        job.created_at = "garbage".into();
        assert!(reference_year(&job) >= 2025);
    }
}
