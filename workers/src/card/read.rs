//! From scanned sides to the answer of `read_id_card_info_with_sanity` (issue 8), as one
//! pure function ([`read_card`]) that the card handler, the eKYC check and the tests call:
//! every side's QR codes through the card type's codec, its machine-readable zone through
//! the MRZ parser, its printed text through `idv_cards::printed`; the card type checked
//! against what the text looks like; the values merged (`idv_cards::merge`: QR, then MRZ,
//! then print, with `SURE` only where a machine check or a second source vouches); card
//! sanity and tampering from the same evidence. Which failure wins is one ordered list
//! ([`read_card`]'s body, documented in docs/API.md "Card reading in detail").

use crate::card::{Codec, SIGNATURE_FAILED};
use crate::card::mrz::{cccd_fields, mrz_json, not_an_indian_passport, passport_fields};
use crate::card::scan::{Located, MrzOutcome, OcrOutcome, SideScan};
use idv_cards::in_aadhaar_secure::Signature;
use idv_cards::merge::{Check, Reading, Source};
use idv_cards::printed::{FieldCheck, PrintedField, Side, TextLine};
use idv_cards::tampering::Tampering;
use idv_cards::{CardField, CodecError, ConfidenceVerdict};
use idv_schemas::FailureCode;
use idv_vision::card_sanity::{CardSanity, CardSanityVerdict};
use idv_vision::ocr::OcrLine;
use serde_json::{json, Value};

/// One side as the handler hands it over.
pub struct SideInput<'a> {
    /// The uploaded image's id.
    pub id: Option<&'a str>,
    pub scan: &'a SideScan,
    /// QR texts of the side's close-ups (`qr1_images` / `qr2_images`), after the photo's.
    pub close_up_qr_texts: Vec<String>,
    /// Where the flattened card was stored (`transformed_image_id`).
    pub transformed_image_id: Option<String>,
}

/// Everything the answer needs.
#[derive(Debug)]
pub struct CardReading {
    pub image1: Value,
    pub image2: Value,
    pub card_information: Vec<CardField>,
    /// `status: failure` with this code and message (the fields stay in the answer).
    pub failure: Option<(FailureCode, String)>,
    /// Nothing could be read because a needed stage is not in this build: 501
    /// `not_performed` with this reason.
    pub not_available: Option<String>,
    /// The first side's sanity issue, else the front's verdict (`None`: no card found).
    pub sanity: Option<CardSanity>,
    pub tampering: Tampering,
    /// Stages that could have run and did not.
    pub not_performed: Vec<&'static str>,
}

/// A printed-text check strong enough to make an OCR-read value `SURE` on its own: the
/// Verhoeff digit of Aadhaar-style numbers (one in ten misreads would pass a single check
/// digit, far fewer than the plausibility checks of dates and names let through).
fn printed_check(card_type: &str, f: &PrintedField) -> Check {
    match f.check {
        FieldCheck::Failed => Check::Failed,
        FieldCheck::Passed if f.field == "id" && matches!(card_type, "in.aadhaar" | "in.national_id") => Check::Strong,
        FieldCheck::Passed | FieldCheck::NotApplicable => Check::Weak,
    }
}

/// The card type one photo shows, for the operations that are not told it
/// (`detect_id_card_tampering_sync`), or `None` when it is none of the six. In order of
/// strength: a QR code one type's codec reads (the CCCD's text QR, Aadhaar's XML or
/// Secure QR); a passport's machine-readable zone (`P` document code); the printed text
/// classified (`idv_cards::printed::classify`, at least 0.5). Pure.
pub fn detect_card_type(scan: &SideScan, codec_of: &dyn Fn(&str) -> Option<Codec<'static>>) -> Option<&'static str> {
    for card_type in ["vn.national_id", "in.aadhaar"] {
        if let Some(codec) = codec_of(card_type) {
            if scan.qr_texts.iter().any(|t| codec.parse(t).is_ok()) {
                return Some(card_type);
            }
        }
    }
    if let MrzOutcome::Found(zone) = &scan.mrz {
        if zone.zone.lines.first().is_some_and(|l| l.starts_with('P')) {
            return Some("in.passport");
        }
    }
    match &scan.ocr {
        OcrOutcome::Lines(lines) => idv_cards::printed::classify(&text_lines(lines))
            .into_iter()
            .filter(|(_, score)| *score >= 0.5)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(t, _)| t),
        OcrOutcome::NotPerformed(_) => None,
    }
}

pub(crate) fn text_lines(lines: &[OcrLine]) -> Vec<TextLine> {
    lines
        .iter()
        .map(|l| TextLine {
            text: l.text.clone(),
            confidence: (l.confidence / 100.0).clamp(0.0, 1.0),
            x: l.bbox.x,
            y: l.bbox.y,
            width: l.bbox.width,
            height: l.bbox.height,
        })
        .collect()
}

/// The side's `ocr.raw` text boxes (the contract's shape: `text`, `bounding_box` as four
/// points, `label` the field the line was read into or "", `line`, `group`), in the
/// flattened card's pixels (`transformed_image_id`), or the upload's when no card was
/// found: each page coordinate times `scale` ([`SideScan::text_box_scale`]).
fn raw_boxes(lines: &[OcrLine], printed: &[PrintedField], scale: f32) -> Value {
    let boxes: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let label = printed.iter().find(|f| f.lines.contains(&i)).map_or("", |f| f.field);
            let [x0, y0, x1, y1] = [l.bbox.x, l.bbox.y, l.bbox.right(), l.bbox.bottom()].map(|v| v as f32 * scale);
            json!({
                "text": l.text,
                "bounding_box": [{"x": x0, "y": y0}, {"x": x1, "y": y0}, {"x": x1, "y": y1}, {"x": x0, "y": y1}],
                "label": label, "line": i, "group": 0,
                "confidence": (l.confidence.clamp(0.0, 100.0) / 100.0 * 1000.0).round() / 1000.0,
            })
        })
        .collect();
    Value::Array(boxes)
}

/// What one side contributed.
#[derive(Default)]
struct SideRead {
    json: Value,
    readings: Vec<Reading>,
    /// Card numbers (`id`) and Aadhaar last-4s seen in machine-checked sources.
    ids: Vec<String>,
    last4s: Vec<String>,
    signature: Option<Signature>,
    qr_wrong_card: bool,
    qr_invalid: Option<String>,
    qr_unsupported: Option<String>,
    mrz_checks: Option<(usize, usize)>,
    mrz_refusal: Option<(FailureCode, String)>,
    printed_id_check: Option<bool>,
    types: Vec<(&'static str, f32)>,
    /// The best type other than the requested one, its shared identifier format not
    /// counted (`idv_cards::printed::best_other_type`).
    other_type: Option<(&'static str, f32)>,
    ocr_not_performed: bool,
    mrz_not_performed: bool,
    /// A zone was searched for (found or not).
    mrz_searched: bool,
    anything_read: bool,
    /// The values of the side's second reading (`SideScan::reread`): its printed fields
    /// whose own check did not fail, its zone's fields when every check digit passed.
    reread: Vec<(String, String)>,
    /// A blurred or soft side's zone entries held between characters its check digits
    /// verify (`between_checked_characters`), given as read though no check digit covers
    /// them.
    zone_between_checks: Vec<(String, String)>,
    /// A blurred or soft side's zone entries that no check digit covers and that the
    /// side's second reading did not read alike: given only where the card's print reads
    /// them too (`read_card`).
    zone_unconfirmed: Vec<Reading>,
    /// An Aadhaar side's views of its number in three groups, with the confidence of the
    /// line each came from (`aadhaar_number_groups`).
    number_groups: Vec<(idv_cards::printed::NumberGroups, f32)>,
    /// The side's card sanity: its card's, or for a card the finder missed whose print or
    /// codes were read, the whole photo's exposure checks (`incomplete`: blur, holes and
    /// cuts not judged).
    sanity: Option<CardSanity>,
}

fn read_side(card_type: &str, codec: Option<Codec<'_>>, side: Side, input: &SideInput<'_>, year: u32) -> SideRead {
    let scan = input.scan;
    let mut out = SideRead::default();
    // In the upload's pixels: the photo may have been scaled down at decode.
    let to_upload = scan.upload_scale;
    let card_box = match &scan.located {
        Located::Card(q) => json!(q.scaled(to_upload, to_upload)),
        Located::FillsFrame => {
            let (w, h) = (scan.photo_width as f32 * to_upload, scan.photo_height as f32 * to_upload);
            json!({"top_left": {"x": 0.0, "y": 0.0}, "top_right": {"x": w, "y": 0.0}, "bottom_right": {"x": w, "y": h}, "bottom_left": {"x": 0.0, "y": h}})
        }
        Located::NoCard | Located::Several(_) => Value::Null,
    };

    // QR: the first text the codec reads (the photo's codes, then the close-ups').
    let mut qr = Value::Null;
    if let Some(codec) = codec {
        for text in scan.qr_texts.iter().chain(input.close_up_qr_texts.iter()) {
            match codec.parse(text) {
                Ok(read) => {
                    out.signature = read.signature.or(out.signature);
                    for f in &read.fields {
                        if f.field == "id" {
                            out.ids.push(f.value.clone());
                        }
                        if f.field == "id_last4" {
                            out.last4s.push(f.value.clone());
                        }
                        out.readings.push(Reading::qr(f));
                    }
                    let mut q = serde_json::Map::new();
                    q.insert("parsed".into(), json!(read.fields));
                    q.insert("raw".into(), json!(text));
                    q.extend(read.extra);
                    qr = Value::Object(q);
                    out.anything_read = true;
                    break;
                }
                Err(CodecError::NotThisCard(_)) => out.qr_wrong_card = true,
                Err(e @ CodecError::InvalidField { .. }) => out.qr_invalid = Some(e.to_string()),
                Err(e @ CodecError::Unsupported(_)) => out.qr_unsupported = Some(e.to_string()),
            }
        }
    }

    // The machine-readable zone.
    let mut mrz = Value::Null;
    match &scan.mrz {
        MrzOutcome::NotSearched => {}
        MrzOutcome::NotFound => out.mrz_searched = true,
        MrzOutcome::NotPerformed(_) => out.mrz_not_performed = true,
        MrzOutcome::Found(zone) => {
            out.mrz_searched = true;
            let year_parsed = idv_cards::mrz::parse_with_repair(&zone.zone.lines.join("\n"), year);
            let blurred_photo = input.scan.sanity.as_ref().is_some_and(|s| s.verdict == CardSanityVerdict::ImageTooBlur);
            // A refused zone's entries are shown in `mrz.parsed` (what it says) but not
            // merged into the card's.
            let mut shown: Option<Vec<CardField>> = None;
            let fields = match &year_parsed {
                Ok(m) => {
                    out.mrz_checks = Some((m.check_digits.iter().filter(|c| c.passed).count(), m.check_digits.len()));
                    // A zone refuses the card type only when it was read whole, on a photo
                    // sharp enough to read: with a check digit failing, or on a blurred
                    // photo, its unchecked letters may be misreads (a blurred `IND` read
                    // `IMB`, `VNM` read `VMR`), and the card is judged by its sanity.
                    // Nor when its header, which no check digit covers, holds what no
                    // document writes there (`misread_header`).
                    let read_whole = m.check_digits.iter().all(|c| c.passed) && !blurred_photo && !crate::card::mrz::misread_header(m);
                    match card_type {
                        "in.passport" => match not_an_indian_passport(m) {
                            None => passport_fields(m),
                            // Another state's or document's zone: refused when read whole;
                            // otherwise (a letter may be misread) neither refused nor
                            // taken: shown only.
                            Some(why) => {
                                out.mrz_refusal = read_whole.then_some((FailureCode::IncorrectCardType, why));
                                shown = Some(passport_fields(m));
                                Vec::new()
                            }
                        },
                        "vn.national_id" => cccd_fields(m).unwrap_or_else(|why| {
                            out.mrz_refusal = read_whole.then_some((FailureCode::IncorrectCardType, why));
                            Vec::new()
                        }),
                        _ => crate::card::mrz::td1_fields(m, "IND").unwrap_or_else(|why| {
                            out.mrz_refusal = read_whole.then_some((FailureCode::IncorrectCardType, why));
                            Vec::new()
                        }),
                    }
                }
                Err(CodecError::Unsupported(what)) => {
                    out.mrz_refusal = Some((FailureCode::IncorrectCardType, format!("the machine-readable zone is not this card's ({what} are not read)")));
                    Vec::new()
                }
                Err(e) => {
                    out.mrz_refusal = Some((FailureCode::BadQualityCardImage, format!("the machine-readable zone could not be read: {e}")));
                    Vec::new()
                }
            };
            let confidence = (zone.zone.confidence / 100.0).clamp(0.0, 1.0);
            // A zone whose check digits mostly fail was misread throughout, and so is
            // one with any failing on a photo too blurred to read: its names, which no
            // check digit covers, are as wrong as its numbers. It is shown in
            // `mrz.parsed` but is no source for the card. (Blur turns characters into
            // others; a dark photo, once its contrast is stretched, reads as well as a
            // bright one: passports at 12-16 % brightness read 100 % of their fields.)
            let misread = year_parsed.as_ref().is_ok_and(|m| {
                let failed = m.check_digits.iter().filter(|c| !c.passed).count();
                failed * 2 > m.check_digits.len() || (failed > 0 && blurred_photo)
            });
            let (fields, unconfirmed, shown) = if misread {
                (Vec::new(), Vec::new(), Some(shown.unwrap_or(fields)))
            } else if blurred_photo || input.scan.sanity.as_ref().is_some_and(crate::card::scan::reads_soft) {
                // Even a zone whose check digits pass, on such a photo, vouches only for
                // what they cover (a name or nationality beside them may be misread),
                // and for what the card's second reading read alike in its own zone.
                // (Not a CCCD's name: its zone spells it without the diacritics the card
                // prints, "DANG THANH YEN" for "Đặng Thanh Yến", so both readings agreeing
                // on it says nothing of the name as printed.)
                let second: Vec<(String, String)> = scan
                    .reread
                    .iter()
                    .filter_map(|r| match &r.mrz {
                        MrzOutcome::Found(again) => checked_zone_fields(card_type, again, year),
                        _ => None,
                    })
                    .flatten()
                    .filter(|f| !(card_type == "vn.national_id" && f.field == "name"))
                    .map(|f| (f.field, f.value))
                    .collect();
                let all = fields.clone();
                let between: Vec<(String, String)> = fields.iter().filter(|f| between_checked_characters(card_type, f)).map(|f| (f.field.clone(), f.value.clone())).collect();
                let (kept, unconfirmed) = fields.into_iter().partition(|f| {
                    f.confidence_verdict == Some(ConfidenceVerdict::Sure) || second.iter().chain(&between).any(|(field, value)| *field == f.field && *value == f.value)
                });
                out.zone_between_checks.extend(between);
                out.reread.extend(second);
                (kept, unconfirmed, Some(shown.unwrap_or(all)))
            } else {
                (fields, Vec::new(), shown)
            };
            if misread {
                // Its check digits say nothing about the card (tampering: not performed).
                out.mrz_checks = None;
            }
            // The line the names are on (TD1: the third; TD2, TD3: the first) read longer
            // than its format (`Reading::overlong_line`).
            let name_line = if zone.zone.lines.len() == 3 { 2 } else { 0 };
            // So is a card's (TD1) names line whose first word the page's own reading of
            // the zone read with its first letter or two fewer, the rest alike
            // ("THAKUR<<KARTHIK…" on the page, "OTHAKUR<<KARTHIK…" from the zone's band:
            // the independent set's seed 32, a cut national identity card): a mark
            // before the line read as a letter by one of the two, and no check digit
            // says which.
            let page_lines: &[idv_vision::ocr::OcrLine] = match &scan.ocr {
                OcrOutcome::Lines(lines) => lines,
                OcrOutcome::NotPerformed(_) => &[],
            };
            let names_overlong = zone.zone.read.get(name_line).zip(zone.zone.lines.get(name_line)).is_some_and(|(read, fitted)| read.len() > fitted.len())
                || (zone.zone.lines.len() == 3 && zone.zone.lines.get(2).is_some_and(|names| page_lines.iter().any(|l| first_letters_fewer(names, &l.text))));
            // A names line read short of its format on a side with a cut corner on the
            // left, where the zone's lines start, may have lost its first letters to the
            // cut ("ATEL<<NEHA" for PATEL<<NEHA, seed 18's national identity card cut at
            // the zone's corner): no check digit covers the names, and the fillers
            // fitted after them hide the loss. A corner cut on the right takes a line's
            // end, fillers first (seed 33's passport: "…KUMAR<<<…" a filler short, its
            // names whole).
            let names_cut = zone.zone.read.get(name_line).zip(zone.zone.lines.get(name_line)).is_some_and(|(read, fitted)| start_cut_short(cut_off(input.scan.sanity.as_ref()), read, fitted));
            // A passport's zone is TD3: one read as TD2 is TD3's lines read short (glare
            // washing their middle out: "NITIN PRASAI" of NITIN PRASAD, seed 23). The
            // second line's entries and check digits sit where TD3 puts them; the names
            // were cut at TD2's width.
            let names_short = card_type == "in.passport" && year_parsed.as_ref().is_ok_and(|m| m.format != idv_cards::mrz::Format::Td3);
            let zone_reading = |f: &CardField| {
                let name = matches!(f.field.as_str(), "name" | "first_name" | "last_name");
                // A zone spells names in letters and fillers only: one read with a digit
                // is its fillers misread ("REKHA DEVI 4 SMEHTA" for "MEHTA<<REKHA<DEVI" on
                // a card photographed small), no name. Shown in `mrz.parsed`, not merged.
                // Nor is a date the codec gave as read (`YYMMDD`, unknown parts as `<`)
                // whose check digit failed: no date at all ("27051<", seed 23's glared
                // passport, its zone's lines joined short under the glare).
                let raw_date = matches!(f.field.as_str(), "dob" | "expiry_date") && f.confidence_verdict != Some(ConfidenceVerdict::Sure) && !ddmmyyyy(&f.value);
                (!raw_date && !(name && (names_cut || names_short || f.value.chars().any(|c| c.is_ascii_digit())))).then(|| Reading::mrz(f, confidence, name && names_overlong, name && card_type == "in.national_id"))
            };
            for f in &fields {
                if f.field == "id" && f.confidence_verdict == Some(ConfidenceVerdict::Sure) {
                    out.ids.push(f.value.clone());
                }
                out.readings.extend(zone_reading(f));
            }
            out.zone_unconfirmed = unconfirmed.iter().filter_map(zone_reading).collect();
            out.anything_read |= !fields.is_empty();
            mrz = mrz_json(zone, year_parsed.as_ref().ok(), shown.as_deref().unwrap_or(&fields));
        }
    }

    // The printed text.
    let mut ocr = Value::Null;
    let mut first_printed: Vec<PrintedField> = Vec::new();
    match &scan.ocr {
        OcrOutcome::NotPerformed(_) => out.ocr_not_performed = true,
        OcrOutcome::Lines(lines) => {
            let text = text_lines(lines);
            first_printed = idv_cards::printed::parse_printed(card_type, side, &text);
            let printed = &first_printed;
            out.types = idv_cards::printed::classify(&text);
            out.other_type = idv_cards::printed::best_other_type(card_type, &text);
            // A noisy card's values as its smoothed copy read them (`SideScan::noisy`).
            let read_again: Vec<PrintedField> = if scan.noisy { values_read_again(scan, card_type, side, year) } else { Vec::new() };
            // Names ending with the family name another of them ends with: whole at
            // their end (`idv_cards::printed::family_name_shared`).
            let family_ends = idv_cards::printed::family_name_shared(printed);
            for f in printed {
                let trimmed = without_words_set_apart(f, lines);
                let f = trimmed.as_ref().unwrap_or(f);
                if refused_printed_ending(scan, f, lines, year, family_ends.contains(&f.field) && trimmed.is_none()) {
                    continue;
                }
                // Read otherwise from the smoothed copy: one of the two readings misread it.
                // Not where only the spaces differ: smoothing closes a name's word gaps
                // ("HARPREETSINGHDAS" for "HARPREET SINGH DAS", seed 29's noisy PAN),
                // every letter read alike; the first reading saw the gaps.
                if read_again.iter().any(|g| g.field == f.field && !same_but_spaces(&g.value, &f.value)) {
                    continue;
                }
                give_printed(&mut out, card_type, f, lines);
            }
            if card_type == "in.aadhaar" {
                out.number_groups = aadhaar_number_groups(lines, punched_hole(scan.sanity.as_ref()), cut_off(scan.sanity.as_ref()));
            }
            out.anything_read |= !printed.is_empty();
            let parsed: Vec<Value> = printed.iter().map(|f| json!({"field": f.field, "value": f.value, "confidence_score": (f.confidence * 1000.0).round() / 1000.0})).collect();
            ocr = json!({"parsed": parsed, "raw": raw_boxes(lines, printed, scan.text_box_scale())});
        }
    }

    // An overexposed side read as photographed too (`SideScan::as_photographed`): a value
    // the darkened reading neither gave nor read otherwise is given from it, judged as
    // any printed value is.
    if let Some(OcrOutcome::Lines(lines)) = &scan.as_photographed {
        for f in idv_cards::printed::parse_printed(card_type, side, &text_lines(lines)) {
            let given = out.readings.iter().any(|r| r.source == Source::Printed && r.field == f.field);
            let read_otherwise = first_printed.iter().any(|d| d.field == f.field && d.value != f.value);
            let trimmed = without_words_set_apart(&f, lines);
            let f = trimmed.as_ref().unwrap_or(&f);
            if given || read_otherwise || refused_printed(scan, f, lines, year) {
                continue;
            }
            out.anything_read = true;
            give_printed(&mut out, card_type, f, lines);
        }
    }

    // Fields a later reading gave that the first did not parse (each given once).
    let mut taken_from_rereads: Vec<&str> = Vec::new();
    for lines in scan.reread.iter().filter_map(|r| match &r.ocr {
        OcrOutcome::Lines(lines) => Some(lines),
        OcrOutcome::NotPerformed(_) => None,
    }) {
        // A value whose own check fails is a misread however often it is read.
        let mut again = idv_cards::printed::parse_printed(card_type, side, &text_lines(lines));
        again.retain(|f| f.check != FieldCheck::Failed);
        out.reread.extend(again.iter().map(|f| (f.field.to_string(), f.value.clone())));
        // A value whose characters a later reading read alike at the same place, though
        // it misread the label beside them ("Dete of Get) 08/08/1992" under "Dote of Orth
        // 08/08/1992") and so parsed no value there: the characters are what the later
        // reading confirms; where the value is, the first reading's labels said.
        if let OcrOutcome::Lines(first) = &scan.ocr {
            for f in first_printed.iter().filter(|f| f.check != FieldCheck::Failed) {
                let from: Vec<&idv_vision::ocr::OcrLine> = f.lines.iter().filter_map(|&i| first.get(i)).collect();
                if read_alike_in_place(&f.value, &from, lines) {
                    out.reread.push((f.field.to_string(), f.value.clone()));
                }
            }
            // And the other way: a field the first reading parsed nothing for (its label
            // misread there), a later one did, and the first read the value's characters
            // alike at the same place: a reading of the card as the first's would be. Two
            // later readings agreeing without the first are not enough (tried with a third
            // reading of the card as photographed, on the blurred captures of seeds 15-20:
            // one value more, and one wrong, "VILAY SHAH", a PAN's J misread alike by the
            // milder deconvolution and the photo).
            for f in again.iter().filter(|f| !first_printed.iter().any(|p| p.field == f.field)) {
                if taken_from_rereads.contains(&f.field) {
                    continue;
                }
                let from: Vec<&idv_vision::ocr::OcrLine> = f.lines.iter().filter_map(|&i| lines.get(i)).collect();
                if read_alike_in_place(&f.value, &from, first) && !refused_printed(scan, f, lines, year) {
                    out.readings.push(Reading::printed(f, printed_check(card_type, f), None));
                    out.reread.push((f.field.to_string(), f.value.clone()));
                    taken_from_rereads.push(f.field);
                }
            }
        }
    }

    // A card the finder did not find but whose print or codes were read (a photo cut to a
    // card turned too little for its outline to show against the slivers of table) still
    // had its exposure judged, on the whole photo: `incomplete`, never `good`, and never
    // nothing, as though no check had run. A photo in which nothing was read keeps no
    // verdict but an exposure issue (its answer is "no card").
    out.sanity = scan.sanity.clone().or_else(|| scan.photo_exposure.clone().filter(|_| out.anything_read));
    out.json = json!({
        "id": input.id, "transformed_image_id": input.transformed_image_id, "card_box": card_box,
        "qr": qr, "ocr": ocr, "mrz": mrz, "nfc": null,
        "card_sanity": out.sanity.as_ref().map(sanity_json),
    });
    out
}

/// A printed value given: its reading, with an identifier's per-character confidences
/// from the line it was read on, and its check kept for the answer.
fn give_printed(out: &mut SideRead, card_type: &str, f: &PrintedField, lines: &[idv_vision::ocr::OcrLine]) {
    if f.field == "id" {
        out.printed_id_check = match f.check {
            FieldCheck::Passed => Some(true),
            FieldCheck::Failed => Some(false),
            FieldCheck::NotApplicable => out.printed_id_check,
        };
    }
    let digits = (f.field == "id").then(|| f.lines.iter().find_map(|&i| lines.get(i).and_then(|l| idv_cards::printed::digit_confidences(&f.value, &l.symbols)))).flatten();
    out.readings.push(Reading::printed(f, printed_check(card_type, f), digits));
}

/// Whether two readings of a value hold the same characters, spaces aside.
fn same_but_spaces(a: &str, b: &str) -> bool {
    a.chars().filter(|c| !c.is_whitespace()).eq(b.chars().filter(|c| !c.is_whitespace()))
}

/// Whether `value` is a date written as the service writes dates, `DD/MM/YYYY` (the
/// printed dates' own reading, `idv_cards::printed::extract_date`, gives it back as it is).
fn ddmmyyyy(value: &str) -> bool {
    idv_cards::printed::extract_date(value).as_deref() == Some(value)
}

/// The printed values a side's later readings give (`SideScan::reread`), each as the
/// first reading's would be taken: not one whose own check failed, words set apart
/// trimmed, none a hole, cut or glare refuses ([`refused_printed`]).
fn values_read_again(scan: &SideScan, card_type: &str, side: Side, year: u32) -> Vec<PrintedField> {
    scan.reread
        .iter()
        .filter_map(|r| match &r.ocr {
            OcrOutcome::Lines(lines) => Some(lines),
            OcrOutcome::NotPerformed(_) => None,
        })
        .flat_map(|lines| {
            idv_cards::printed::parse_printed(card_type, side, &text_lines(lines))
                .into_iter()
                .filter(|g| g.check != FieldCheck::Failed)
                .map(|g| without_words_set_apart(&g, lines).unwrap_or(g))
                .filter(|g| !refused_printed(scan, g, lines, year))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether a printed value is no source for the card, though shown in `ocr.parsed`. One
/// read across a punched hole lost what the hole took ("Ring R alt Lake"), one read into
/// a cut corner what the cut took ("I JAY SANDHU" for "VIJAY SANDHU"), and one read
/// beside a glare spot may have lost what the glare washed out ("ARJUN KUMAR" of "ARJUN
/// KUMAR YADAV": on a flattened card, where the paper beside it is washed out,
/// `glare_took_nothing_ending`; with no card found, anywhere near the spot, `washed_out`); one
/// read up to the card's edge may have lost what ran off it (`runs_off_card`), and one
/// with a word read far from the others holds something else (`words_set_apart`; cut
/// off where the value was read before it, `without_words_set_apart`), unless its own
/// check passed (a number whose check digit still holds was not cut; a date's check,
/// a real calendar day, holds for a date that lost a digit too, and does not count).
/// A date of birth or of issue after the request's year is a misread ("12/07/2032" for
/// "12/07/2022", a CCCD at a third of its resolution): no card is issued, nor its
/// holder born, in the future. `lines`: the reading `f` came from.
fn refused_printed(scan: &SideScan, f: &PrintedField, lines: &[idv_vision::ocr::OcrLine], year: u32) -> bool {
    refused_printed_ending(scan, f, lines, year, false)
}

/// [`refused_printed`], for a value whose end is known (`ends_known`: a name ending with
/// the family name another name of its side ends with, `idv_cards::printed::family_name_shared`):
/// glare beside its end took nothing of it.
fn refused_printed_ending(scan: &SideScan, f: &PrintedField, lines: &[idv_vision::ocr::OcrLine], year: u32, ends_known: bool) -> bool {
    let hole = punched_hole(scan.sanity.as_ref());
    let card_glare = scan.sanity.as_ref().and_then(|s| s.measures.glare_box);
    let source_lines = || f.lines.iter().filter_map(|&i| lines.get(i));
    let corner = cut_off(scan.sanity.as_ref());
    // A value near a glare spot (`washed_out`) may have lost a word to it. On a
    // flattened card the pixels beside the value say whether it did
    // (`glare_took_nothing_ending`), and say it for every value of a card lit bright all over
    // (`idv_vision::card_sanity::overexposure`); with no card found (the photo read
    // whole, its pixels not kept) being near is enough.
    let near = |spot: Option<[f32; 4]>| washed_out(spot).is_some_and(|g| source_lines().any(|l| crosses(&widened(&l.bbox), g)));
    // A "spot" covering most of a card lit bright all over is that overexposure, no spot
    // in it (seed 28's voter back: its saturated region the whole card, the paper "away
    // from it" nowhere): judged as a card overexposed all over.
    let overexposed_card = scan.flat.is_some() && scan.overexposed_all_over();
    let card_glare = card_glare.filter(|_| !overexposed_card);
    let glared = match (card_glare, scan.flat.as_ref(), scan.sanity.as_ref(), overexposed_photo(scan)) {
        (Some(spot), Some(card), Some(judged), _) => {
            let paper = idv_vision::card_sanity::paper_luma(card, Some(grown(spot, GLARE_FADE_SHARE)));
            (near(Some(spot)) || idv_vision::card_sanity::overexposure(&judged.measures) >= 0.5) && !glare_took_nothing_ending(card, Lit::Spot { paper }, f, lines, ends_known)
        }
        // A card lit bright all over, no spot found in it (its paper clipped nearly
        // everywhere): every value is judged by its own print and the paper beside it.
        (None, Some(card), Some(_), _) if overexposed_card => !glare_took_nothing_ending(card, Lit::Overexposed, f, lines, ends_known),
        // So is a card on white paper overexposed all over, its edges washed out with the
        // paper so that no card was found: the whole photo read shows its print as a
        // flattened card would (seed 19's PAN, its four values lost to "too bright").
        (None, None, Some(_), Some(page)) => !glare_took_nothing_ending(page, Lit::Overexposed, f, lines, ends_known),
        _ => near(card_glare.or(scan.photo_glare_box)),
    };
    // Where the value was read: the label before it is no part of it ("Address : 4-3-64,
    // …" under a cut top-left corner lost nothing of the address to the cut).
    let source: Vec<&idv_vision::ocr::OcrLine> = source_lines().collect();
    let value_boxes = || if f.field == "gender" { gender_word_boxes(&f.value, &source) } else { value_boxes(&f.value, &source) };
    let cut = hole.is_some_and(|h| value_boxes().iter().chain(word_before_value(&f.value, &source).as_ref()).any(|b| crosses_disk(b, h)))
        || glared
        || corner.is_some_and(|c| {
            let boxes = value_boxes();
            boxes.iter().any(|b| reaches_into(b, c)) && !starts_at_margin_clear_of_cut(scan.sanity.as_ref(), &f.value, &source, lines) && !ends_whole_at_cut(scan, f, &boxes, c)
        })
        || scan.flat.as_ref().is_some_and(|card| runs_off_card(card.width(), &f.value, &source))
        || (f.lines.len() == 1 && source_lines().any(|l| words_set_apart(&f.value, l).is_some() || crossed_after(&f.value, l)))
        || matches!(f.lines.as_slice(), [at] if crossed_by_line_after(&f.value, *at, lines))
        || (f.lines.len() > 1 && gap_in_lines(&f.value, &source));
    // A date's check (a real calendar day) holds for a date that lost a digit as well:
    // "03/02/1976" under a cut corner read "5/02/1976" is the real day 05/02/1976
    // (seed 18), "12/02/1952" at a hole's edge "*2/02/1952". A check digit or a
    // number's structure vouches that nothing was cut; a date only when read in full.
    // A date read whole as printed (two-digit day and month, its four-digit year) at its
    // source still vouches for itself: a hole or cut beside it took nothing of it.
    let date = idv_cards::printed::is_date_key(f.field);
    let printed_whole = || source_lines().any(|l| l.text.chars().map(|c| if matches!(c, '-' | '.') { '/' } else { c }).collect::<String>().contains(f.value.as_str()));
    // A number's shape (a PAN's, an EPIC's, a passport number's letters and digits) holds
    // for whatever was repaired into it: it vouches that nothing was cut only for a
    // number read as printed ("Lj 10938053" beside a punch, the Y of LJY0938053 half
    // taken and read as a 1, repaired to a shapely "LJI0938053": seed 32). A check digit
    // (Verhoeff, a CCCD number against its date of birth) holds however it was read.
    let shape_only = f.value.chars().any(|c| c.is_ascii_alphabetic());
    let vouched = f.check == FieldCheck::Passed && (!date || printed_whole()) && (!shape_only || source_lines().any(|l| read_as_printed(&f.value, &l.text)));
    (!vouched && cut) || (matches!(f.field, "dob" | "issue_date" | "incorporation_date") && date_year(&f.value).is_some_and(|y| y > year)) || marks_doubted(f, &source) || name_word_guessed(f, &source)
}

/// Whether a name holds a word the engine read at a confidence no word of print is read
/// at ([`NAME_WORD_GUESSED`]): it saw strokes there and guessed letters ("PNESH SHAH"
/// for RAJESH SHAH, the independent set's seed 37, a national identity card, "PNESH" at
/// 0 beside "SHAH" at 94, its band read alone no better).
fn name_word_guessed(f: &PrintedField, source: &[&idv_vision::ocr::OcrLine]) -> bool {
    f.field.ends_with("name") && value_spans(&f.value, source).is_some_and(|spans| source.iter().zip(&spans).any(|(l, &(j, k))| l.words.get(j..k).unwrap_or(&[]).iter().any(|w| w.confidence.is_some_and(|c| c < NAME_WORD_GUESSED))))
}

/// Confidence (0-100) under which a name's word is a guess ([`name_word_guessed`]).
const NAME_WORD_GUESSED: f32 = 1.0;

/// Least confidence (0-100) of a name's word with diacritics below which its marks are
/// doubted ([`marks_doubted`]).
const MARKED_WORD_DOUBT: f32 = 60.0;

/// Whether a name holds a word with diacritics that the engine read with little
/// confidence ([`MARKED_WORD_DOUBT`]): a tone mark is a few pixels, and a word the
/// engine doubted may carry another one than printed ("TUẦN" for TUẤN at confidence
/// 47, its letters each at 92 or more: the independent set's seed 32, a punched CCCD).
/// The back's zone spells names without marks, so nothing else vouches for them.
fn marks_doubted(f: &PrintedField, source: &[&idv_vision::ocr::OcrLine]) -> bool {
    if !f.field.ends_with("name") || f.value.is_ascii() {
        return false;
    }
    value_spans(&f.value, source).is_some_and(|spans| {
        source.iter().zip(&spans).any(|(l, &(j, k))| l.text.split(' ').skip(j).zip(&l.words[j..k]).any(|(t, w)| !t.is_ascii() && w.confidence.is_some_and(|c| c < MARKED_WORD_DOUBT)))
    })
}

/// Whether `value` stands in a line's text as read, spaces, case and the O/0 confusion
/// aside (what Tesseract reads of a clear letter or digit in a number set in capitals):
/// no other character of it was repaired into the number's shape.
fn read_as_printed(value: &str, text: &str) -> bool {
    let plain = |s: &str| s.chars().filter(|c| !c.is_whitespace()).map(|c| if c == 'O' || c == 'o' { '0' } else { c.to_ascii_uppercase() }).collect::<String>();
    plain(text).contains(&plain(value))
}

/// How far after a value's last word (in word heights) a mark read there may be what a
/// hole or cut left of a lost word of it: the word's spacing and a long word's width
/// (a dozen capitals).
const LOST_WORD_HEIGHTS: u32 = 8;

/// Each of a printed value's lines from its first word of the value on (`value_spans`):
/// the line without the label read before the value. What was read after the value
/// stays (a mark read at a hole's edge may be all a lost word left), up to a gap of
/// [`LOST_WORD_HEIGHTS`]. The line's own box where the value's words are not found so
/// (no word boxes, a repaired value).
fn value_boxes(value: &str, source: &[&idv_vision::ocr::OcrLine]) -> Vec<idv_vision::ocr::TextBox> {
    let spans = value_spans(value, source);
    source
        .iter()
        .enumerate()
        .map(|(i, line)| {
            // The value's words and what was read after them, up to a gap no lost word
            // of the value explains ([`LOST_WORD_HEIGHTS`]: "VIKRAM MUKHERJEE y", seed
            // 17, a mark 22 heights off in a cut corner, is none of it).
            let first = spans.as_ref().and_then(|s| s.get(i)).and_then(|&(j, k)| {
                let words = line.words.get(j..).filter(|w| !w.is_empty())?;
                let mut end = k.saturating_sub(j).clamp(1, words.len());
                while let (Some(a), Some(b)) = (words.get(end - 1), words.get(end)) {
                    if b.bbox.x > a.bbox.right() + LOST_WORD_HEIGHTS * a.bbox.height.max(b.bbox.height) {
                        break;
                    }
                    end += 1;
                }
                words.get(..end)
            });
            first.and_then(|ws| ws.iter().map(|w| w.bbox).reduce(|a, b| a.union(&b))).unwrap_or(line.bbox)
        })
        .collect()
}

/// The word read just before a value on its first line, unless it ends a label ("Name:"):
/// a punch there may have taken the value's first word, read as noise the parser left
/// out ("v@@imep Tiwari" for "MOHAMMED TIWARI", the independent set's seed 12, a PAN
/// punched over the name's start), so the value's own words clear of the punch do not
/// make it whole. `None` when the value starts its line or its words are not found.
fn word_before_value(value: &str, source: &[&idv_vision::ocr::OcrLine]) -> Option<idv_vision::ocr::TextBox> {
    let (j, _) = *value_spans(value, source)?.first()?;
    let line = source.first()?;
    let before = line.text.split(' ').nth(j.checked_sub(1)?).filter(|_| line.text.split(' ').count() == line.words.len())?;
    (!before.ends_with(':')).then(|| line.words.get(j - 1).map(|w| w.bbox)).flatten()
}

/// Where a gender was read: on each of its lines, the word that says it ("Female" of
/// "Gender: महिला / Female ©", the value `F` spelled nowhere), the last one where
/// several do; the line's own box where none does or there are no word boxes. A punch
/// after the word took nothing of it: a gender is one closed word, and a word it cut
/// short ("male" of "Female") stands beside the punch.
fn gender_word_boxes(value: &str, source: &[&idv_vision::ocr::OcrLine]) -> Vec<idv_vision::ocr::TextBox> {
    source
        .iter()
        .map(|line| {
            let words: Vec<&str> = line.text.split(' ').collect();
            let says = (words.len() == line.words.len()).then(|| words.iter().rposition(|w| idv_cards::printed::gender_value(w, true) == Some(value))).flatten();
            says.and_then(|i| line.words.get(i)).map_or(line.bbox, |w| w.bbox)
        })
        .collect()
}

/// Whether a printed value may run off the flattened card (`card_width` wide): on one of
/// its lines it holds the line's first word, read from the card's left edge, or its last,
/// read up to the right edge (within 2 px). Print stops short of a card's edge by its
/// margin, so a word there was cut by it: a long name printed past the edge of a card
/// photographed tight read "Mukherje" for "Mukherjee". Lines without word boxes are not
/// judged.
fn runs_off_card(card_width: u32, value: &str, source: &[&idv_vision::ocr::OcrLine]) -> bool {
    let Some(spans) = value_spans(value, source) else { return false };
    source.iter().zip(spans).any(|(line, (j, k))| {
        let at_left = j == 0 && line.words.first().is_some_and(|w| w.bbox.x <= 2);
        let at_right = k == line.words.len() && line.words.last().is_some_and(|w| w.bbox.right() + 2 >= card_width);
        at_left || at_right
    })
}

/// Where two neighbouring words of a one-line value stand further apart than two of
/// their heights, or the second is off the first's row (its middle outside the first's
/// box, or twice its height): how many of its words come after the gap. Print spaces a
/// value's words by a fraction of a height on one row, so a word that far off is
/// something else read into the line (a card's chip beside the name, read "Lax":
/// "Anjali Bhatt Lax" for "Anjali Bhatt"; a PAN's signature under the father's name's
/// end, read "PAUCLS"). `None` without a gap, or without word boxes.
fn words_set_apart(value: &str, line: &idv_vision::ocr::OcrLine) -> Option<usize> {
    let [(j, k)] = value_spans(value, &[line])?[..] else { return None };
    let words = line.words.get(j..k)?;
    Some(words.len() - gap_among(words)? - 1)
}

/// Whether a value read over several lines has, on one of them, two neighbouring words
/// set apart as [`words_set_apart`] finds them: what was printed between them was lost
/// (glare washing "Govt. School, Kot" out of an Aadhaar's address, a speck read "(" in
/// its place, 260 px before "hrud,": seed 16).
fn gap_in_lines(value: &str, source: &[&idv_vision::ocr::OcrLine]) -> bool {
    value_spans(value, source).is_some_and(|spans| source.iter().zip(spans).any(|(line, (j, k))| line.words.get(j..k).is_some_and(|w| gap_among(w).is_some())))
}

/// The first of `words` (one line's, in order) after which the next stands further
/// off than two of their heights, or off the row so far (`words_set_apart`).
fn gap_among(words: &[idv_vision::ocr::TsvWord]) -> Option<usize> {
    // The row so far: the words before, together (a hyphen's short box is no row).
    let row = |i: usize| words[..=i].iter().map(|w| w.bbox).reduce(|a, b| a.union(&b));
    (0..words.len().saturating_sub(1)).find(|&i| {
        let (a, b) = (words[i].bbox, words[i + 1].bbox);
        let height = a.height.max(b.height);
        let middle = b.y + b.height / 2;
        let off_row = row(i).is_some_and(|r| r.height > 0 && (middle < r.y || middle > r.bottom() || b.height > 2 * r.height));
        height > 0 && (b.x > a.right() + 2 * height || off_row)
    })
}

/// Whether the word read right after a one-line value is a stroke across a word of it:
/// more than twice the value's height, and no further from its last word than a
/// height (print spaces words by a fraction of one). A PAN's signature drawn across the
/// father's name's last word reads as one tall word ("ABHISHEK CHANDRA MENTE" for
/// "ABHISHEK CHANDRA MENON", the independent set's seed 12): the words before it are
/// no whole value. A signature beside the value stands further off
/// ("DINESH LAL MEHTA PAUCLS", `words_set_apart`: the value ends before it).
fn crossed_after(value: &str, line: &idv_vision::ocr::OcrLine) -> bool {
    let Some((span, row)) = value_row(value, line) else { return false };
    let (Some(last), Some(next)) = (span.end.checked_sub(1).and_then(|i| line.words.get(i)), line.words.get(span.end)) else { return false };
    stroke_over_end(row, last.bbox, next.bbox, row.height)
}

/// [`crossed_after`] where the engine read the stroke as a line of its own: another line
/// of the reading (`lines`, the value's own at `at`) whose first word stands on the
/// value's row, more than twice its height, and starts after the value's first word and
/// no further than half a height past its last. A PAN's signature drawn over the
/// father's name's last letter read "pO ah oe" 4 px after "IMRAN CHANDRA SAXEN" (for
/// "SAXENA", the independent set's seed 35): what is left is no whole value. A ghost
/// portrait 24 px (two thirds of a height) after a whole name is not such a stroke
/// (seed 33's "SANJAY CHANDRA BANERJEE"; a first version at a height lost it).
fn crossed_by_line_after(value: &str, at: usize, lines: &[idv_vision::ocr::OcrLine]) -> bool {
    let Some(line) = lines.get(at) else { return false };
    let Some((span, row)) = value_row(value, line) else { return false };
    let (Some(first), Some(last)) = (line.words.get(span.start), span.end.checked_sub(1).and_then(|i| line.words.get(i))) else { return false };
    lines.iter().enumerate().filter(|&(i, _)| i != at).any(|(_, other)| {
        let stroke = other.words.first().map_or(other.bbox, |w| w.bbox);
        let on_row = stroke.y < row.bottom() && stroke.bottom() > row.y;
        on_row && stroke.x > first.bbox.x && stroke_over_end(row, last.bbox, stroke, row.height / 2)
    })
}

/// Where a one-line value's words are among `line`'s, and the box they fill together (its
/// row, of some height); `None` where the value is not found on the line as one run of
/// its words.
fn value_row(value: &str, line: &idv_vision::ocr::OcrLine) -> Option<(std::ops::Range<usize>, idv_vision::ocr::TextBox)> {
    let &[(j, k)] = value_spans(value, &[line])?.as_slice() else { return None };
    let row = line.words.get(j..k)?.iter().map(|w| w.bbox).reduce(|a, b| a.union(&b)).filter(|r| r.height > 0)?;
    Some((j..k, row))
}

/// Whether a box read after a value's last word (`last`) is a stroke across it: more
/// than twice the value's row's height, starting no further than `reach` past that word.
fn stroke_over_end(row: idv_vision::ocr::TextBox, last: idv_vision::ocr::TextBox, stroke: idv_vision::ocr::TextBox, reach: u32) -> bool {
    stroke.height > 2 * row.height && stroke.x <= last.right() + reach
}

/// `f` without the words read after a wide gap at its end (`words_set_apart`), where
/// that leaves a value of two words or more: "Anjali Bhatt" of "Anjali Bhatt Lax", the
/// chip read beside the name. `None` where nothing stands apart, or `f` is no one-line
/// value of words without a check of its own.
fn without_words_set_apart(f: &PrintedField, lines: &[idv_vision::ocr::OcrLine]) -> Option<PrintedField> {
    let [line] = f.lines.as_slice() else { return None };
    let after = words_set_apart(&f.value, lines.get(*line)?)?;
    let words: Vec<&str> = f.value.split_whitespace().collect();
    let kept = words.len().checked_sub(after).filter(|&k| k >= 2 && f.check == FieldCheck::NotApplicable)?;
    Some(PrintedField { value: words[..kept].join(" "), ..f.clone() })
}

/// Whether a second reading (`again`) read `value` where the first reading read it from
/// (`from`): its words, in order and together, in the second reading's lines on the same
/// rows. A value of one word (a date, a number) is whole by its own format. One of
/// several words (a name, an address) may have lost a word the first reading misread as
/// label or noise ("DEVI MEHTA" of "DIVYA DEVI MEHTA"), which the second reading would
/// show next to it: there, the words beside it in the second reading must be those beside
/// it in the first, or no letters or digits at all.
fn read_alike_in_place(value: &str, from: &[&idv_vision::ocr::OcrLine], again: &[idv_vision::ocr::OcrLine]) -> bool {
    fn words(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty())
    }
    // Lines' words each with its box where the engine gave the line's words one for one
    // (a word's pieces between commas share it).
    fn boxed<'a>(lines: impl Iterator<Item = &'a idv_vision::ocr::OcrLine>) -> Vec<(&'a str, Option<idv_vision::ocr::TextBox>)> {
        lines
            .flat_map(|l| {
                let tokens: Vec<&str> = l.text.split(' ').collect();
                let aligned = tokens.len() == l.words.len();
                tokens.into_iter().enumerate().flat_map(move |(k, t)| {
                    let b = aligned.then(|| l.words[k].bbox);
                    words(t).map(move |w| (w, b))
                })
            })
            .collect()
    }
    let same_row = |a: &idv_vision::ocr::TextBox, b: &idv_vision::ocr::TextBox| {
        let rows = a.bottom().min(b.bottom()).saturating_sub(a.y.max(b.y));
        let columns = a.right().min(b.right()).saturating_sub(a.x.max(b.x));
        columns > 0 && 2 * rows >= a.height.min(b.height)
    };
    let want: Vec<&str> = words(value).collect();
    // The second reading's lines on the value's rows, left to right; a glyph or two read
    // inside another line's extent are some of its glyphs read again (seed 19's blurred
    // PAN: "s" at x 112-126 within "ANITA NAIDU" at 52-322), not a word beside the value.
    let on_rows: Vec<&idv_vision::ocr::OcrLine> = again.iter().filter(|l| from.iter().any(|f| same_row(&f.bbox, &l.bbox))).collect();
    let fragment_within = |l: &idv_vision::ocr::OcrLine| {
        l.text.chars().filter(|c| c.is_alphanumeric()).count() <= 2
            && on_rows.iter().any(|o| o.bbox.width > l.bbox.width && o.bbox.x <= l.bbox.x && l.bbox.right() <= o.bbox.right() && same_row(&o.bbox, &l.bbox))
    };
    let mut row: Vec<&idv_vision::ocr::OcrLine> = on_rows.iter().copied().filter(|l| !fragment_within(l)).collect();
    row.sort_by_key(|l| l.bbox.x);
    let second = boxed(row.iter().copied());
    let first = boxed(from.iter().copied());
    let at = |seen: &[(&str, Option<idv_vision::ocr::TextBox>)]| {
        (0..seen.len().saturating_sub(want.len()) + 1).filter(|&i| !want.is_empty() && seen.get(i..i + want.len()).is_some_and(|s| s.iter().map(|(w, _)| *w).eq(want.iter().copied()))).collect::<Vec<_>>()
    };
    let (Some(&i), seen_twice) = (at(&first).first(), at(&second)) else { return false };
    // A word beside the value is one at a word's spacing: one set apart from it by more
    // than two of their heights (as `gap_among` sets words apart) is another column's
    // (the QR code beside an Aadhaar's name read "See eS" 182 pixels after "Kavita
    // Verma", 29 pixels tall: the independent set's seed 22, blurred), not a word the
    // other reading lost.
    fn beside<'a>(seen: &[(&'a str, Option<idv_vision::ocr::TextBox>)], j: usize, len: usize) -> (Option<&'a str>, Option<&'a str>) {
        let apart = |a: Option<idv_vision::ocr::TextBox>, b: Option<idv_vision::ocr::TextBox>| match (a, b) {
            (Some(a), Some(b)) => b.x > a.right() + 2 * a.height.max(b.height),
            _ => false,
        };
        let before = j.checked_sub(1).and_then(|b| seen.get(b)).filter(|(_, bx)| !apart(*bx, seen.get(j).and_then(|s| s.1)));
        let after = seen.get(j + len).filter(|(_, bx)| !apart(seen.get(j + len - 1).and_then(|s| s.1), *bx));
        (before.map(|s| s.0), after.map(|s| s.0))
    }
    let (before, after) = beside(&first, i, want.len());
    let fits = |theirs: Option<&str>, ours: Option<&str>| theirs.is_none() || theirs == ours || theirs.is_some_and(|w| !w.chars().any(char::is_alphanumeric));
    seen_twice.into_iter().any(|j| {
        let (b, a) = beside(&second, j, want.len());
        want.len() == 1 || (fits(b, before) && fits(a, after))
    })
}

/// The words of OCR lines as a label's or a value's words are told apart: split at
/// spaces, slashes, colons and commas, each trimmed of the characters `kept` does not
/// keep, empty ones left out.
fn words_read(lines: &[&idv_vision::ocr::OcrLine], kept: impl Fn(char) -> bool) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l.text.split(|c: char| c.is_whitespace() || matches!(c, '/' | ':' | ',')))
        .map(|w| w.trim_matches(|c: char| !kept(c)).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether a blurred Indian card's gender (`M`, `F`) was read by its first reading as a
/// whole gender word, exactly (`idv_cards::printed::gender_of_word`: "Female", "MALE",
/// "महिला", "पुरुष", not a one-letter code nor a word repaired into one), and no word of any reading (`first`, `later`) reads as
/// the other gender. Blur misreads a letter or two of a word ("Famaie" in the second
/// reading of seed 28's voter card); it does not turn one of these words into the other,
/// which would take two letters added or lost. On the blur captures of the independent
/// set's seeds 24-35, the first reading's gender was never wrong, and right ones had gone
/// ungiven for want of a second reading reading the word alike: 8 are given so, none
/// wrong. A CCCD's "Nam" is also a word of "Việt Nam": not judged so.
fn gender_word_read(card_type: &str, value: &str, first: &[&idv_vision::ocr::OcrLine], later: &[&idv_vision::ocr::OcrLine]) -> bool {
    let words = |lines: &[&idv_vision::ocr::OcrLine]| words_read(lines, char::is_alphanumeric);
    let (first, later) = (words(first), words(later));
    card_type.starts_with("in.")
        && matches!(value, "M" | "F")
        && first.iter().any(|w| idv_cards::printed::gender_of_word(w) == Some(value))
        && !first.iter().chain(&later).any(|w| idv_cards::printed::gender_value(w, false).is_some_and(|g| g != value))
}

/// Whether a blurred Indian card's gender (`M`, `F`) was read by its first reading as the
/// one-letter code after its own label, ending a line ("Sex: M"), that letter at
/// [`BLURRED_CHARACTER_CONFIDENCE`] or more, and no reading (`first`, `later`) reads the
/// other gender there or as a whole word. A one-letter value is too short for
/// [`vouched_by_confidence`] (its letter is found anywhere: the "F" of "OF INDIA"); here
/// it is the letter after the label. Blur turns an M into an N or an H, not into an F. On
/// the blur captures of the independent set's seeds 24-36, three voter cards' "Sex: M"
/// read so (at 100), the second reading dropping the letter, were right and ungiven; no
/// code so read was wrong.
fn gender_code_read(card_type: &str, value: &str, first: &[&idv_vision::ocr::OcrLine], later: &[&idv_vision::ocr::OcrLine]) -> bool {
    let other = match value {
        "M" => "F",
        "F" => "M",
        _ => return false,
    };
    // The code a line ends with after a sex or gender label, with its letter's confidence.
    let code = |l: &idv_vision::ocr::OcrLine| -> Option<(String, f32)> {
        let tokens: Vec<&str> = l.text.split(|c: char| c.is_whitespace() || c == ':' || c == '/').filter(|t| !t.is_empty()).collect();
        let (last, before) = tokens.split_last()?;
        let labelled = before.iter().any(|t| matches!(t.to_lowercase().as_str(), "sex" | "gender"));
        let letter = l.symbols.iter().rev().find(|(c, _)| c.is_alphanumeric()).filter(|(c, _)| last.chars().eq(std::iter::once(*c)));
        labelled.then(|| (last.to_string(), letter.map_or(0.0, |(_, conf)| conf / 100.0)))
    };
    let whole_words_other = |lines: &[&idv_vision::ocr::OcrLine]| words_read(lines, char::is_alphanumeric).iter().any(|w| idv_cards::printed::gender_of_word(w) == Some(other));
    card_type.starts_with("in.")
        && first.iter().filter_map(|l| code(l)).any(|(c, conf)| c == value && conf >= BLURRED_CHARACTER_CONFIDENCE)
        && !first.iter().chain(later).filter_map(|l| code(l)).any(|(c, _)| c == other)
        && !whole_words_other(first)
        && !whole_words_other(later)
}

/// Whether a blurred voter card's `relation` (`father`, `mother`, `husband`) was read by
/// its first reading as a whole relation word of its label, exactly
/// (`idv_cards::printed::relation_of_word`: "Mother's", "Father's"), and no word of any
/// reading (`first`, `later`) names another relation. As with a gender word
/// ([`gender_word_read`]), blur misreads a letter or two of the word; turning one
/// relation into another takes two letters or more. On the blur captures of the
/// independent set's seeds 24-35, the first reading's relation was never wrong, and
/// right ones went ungiven where the second reading garbled the label ("jothver'4" for
/// "Mother's", seed 26).
fn relation_word_read(card_type: &str, value: &str, first: &[&idv_vision::ocr::OcrLine], later: &[&idv_vision::ocr::OcrLine]) -> bool {
    // A possessive's apostrophe is part of the label's word ("Mother's").
    let words = |lines: &[&idv_vision::ocr::OcrLine]| words_read(lines, |c| c.is_alphanumeric() || c == '\'' || c == '’');
    let (first, later) = (words(first), words(later));
    card_type == "in.voter"
        && matches!(value, "father" | "mother" | "husband")
        && first.iter().any(|w| idv_cards::printed::relation_of_word(w) == Some(value))
        && !first.iter().chain(&later).any(|w| idv_cards::printed::relation_of_word(w).is_some_and(|r| r != value))
}

/// Whether a blurred card's value was read by its first reading with every character at
/// [`BLURRED_CHARACTER_CONFIDENCE`] or more (Tesseract's confidence in each character of
/// one line that reads it, `idv_cards::printed::digit_confidences`; a repaired character
/// scores less). Such a value is given `UNSURE` without a second reading reading it
/// alike. Measured on the blur captures of the independent set's seeds 15-20 (72 cards,
/// the first reading's 72 values no later reading confirmed): at 0.95, 35 right and none
/// wrong on the Indian cards (a PAN's "GHATT" for "BHATT" read at 0.92); on the CCCD 5
/// of 7 wrong (tone marks, "Thủ Dức" for "Thủ Đức", and an issue date's 5 read as 8 at
/// 0.95 and over), so a CCCD's values are never vouched for so. A value over several
/// lines (an address) is in no one line and is not vouched for.
fn vouched_by_confidence(card_type: &str, value: &str, first_reading: &[&idv_vision::ocr::OcrLine]) -> bool {
    if card_type == "vn.national_id" {
        return false;
    }
    // A short value's characters are found anywhere (the "F" of a gender in "OF INDIA").
    let characters: String = value.chars().filter(|c| c.is_alphanumeric()).collect();
    characters.chars().count() >= VOUCHED_MIN_CHARACTERS
        && first_reading
            .iter()
            .filter_map(|l| idv_cards::printed::digit_confidences(&characters, &l.symbols))
            .any(|scores| scores.iter().all(|&c| c >= BLURRED_CHARACTER_CONFIDENCE))
}

/// Least confidence of each character of a blurred card's value given on its first
/// reading alone (`vouched_by_confidence`).
const BLURRED_CHARACTER_CONFIDENCE: f32 = 0.95;

/// Fewest letters and digits of a value `vouched_by_confidence` judges.
const VOUCHED_MIN_CHARACTERS: usize = 4;

/// The year of a `DD/MM/YYYY` value.
fn date_year(value: &str) -> Option<u32> {
    value.rsplit('/').next().filter(|y| y.len() == 4).and_then(|y| y.parse().ok())
}

/// The card's fields from a zone read whose check digits all pass and which belongs to
/// `card_type` (`None` otherwise).
fn checked_zone_fields(card_type: &str, zone: &idv_vision::mrz::ZoneRead, year: u32) -> Option<Vec<CardField>> {
    let m = idv_cards::mrz::parse_with_repair(&zone.zone.lines.join("\n"), year).ok()?;
    if !m.check_digits.iter().all(|c| c.passed) {
        return None;
    }
    match card_type {
        "in.passport" => not_an_indian_passport(&m).is_none().then(|| passport_fields(&m)),
        "vn.national_id" => cccd_fields(&m).ok(),
        _ => crate::card::mrz::td1_fields(&m, "IND").ok(),
    }
}

/// Edge blur σ̂ of a whole photo (no card found in it) from which its print is read as
/// blurred (only `SURE` values given): a card fills 55–80 % of a photo's width, so one
/// blurred past card sanity's `BLUR_SIGMA` (1.4) at its own width measures about 0.8–1.1
/// over the whole photo; the card-less glare photos of the evaluation measure ≤ 0.81.
const NO_CARD_BLUR_SIGMA: f32 = 1.0;

/// A side's views of an Aadhaar number printed in three groups of four digits
/// (`idv_cards::printed::number_from_groups`), each with its line's confidence (0-1):
/// three words in a row of a line whose words are its text's, a group taken where its
/// word is four digits and clear of the side's punch and cut (`crosses_disk`,
/// `reaches_into`), at least two so, and the third holding a digit or crossing the
/// punch or cut (what a punch left of a group: "x0", "709"). Not inside a run of four
/// words of four digits (the Aadhaar letter's sixteen-digit VID).
fn aadhaar_number_groups(lines: &[idv_vision::ocr::OcrLine], hole: Option<(f32, f32, f32)>, cut: Option<[f32; 4]>) -> Vec<(idv_cards::printed::NumberGroups, f32)> {
    let mut views = Vec::new();
    for line in lines {
        let texts: Vec<&str> = line.text.split(' ').collect();
        if texts.len() != line.words.len() || texts.len() < 3 {
            continue;
        }
        let four_digits = |t: &str| t.len() == 4 && t.bytes().all(|b| b.is_ascii_digit());
        let damaged = |i: usize| hole.is_some_and(|h| crosses_disk(&line.words[i].bbox, h)) || cut.is_some_and(|c| reaches_into(&line.words[i].bbox, c));
        for start in 0..=texts.len() - 3 {
            let run_beside = (start > 0 && four_digits(texts[start - 1])) || texts.get(start + 3).is_some_and(|t| four_digits(t));
            if run_beside {
                continue;
            }
            let groups: idv_cards::printed::NumberGroups = std::array::from_fn(|k| (four_digits(texts[start + k]) && !damaged(start + k)).then(|| texts[start + k].to_string()));
            let whole = groups.iter().flatten().count();
            let rest_is_a_group = (0..3).all(|k| groups[k].is_some() || texts[start + k].bytes().any(|b| b.is_ascii_digit()) || damaged(start + k));
            if whole == 2 && rest_is_a_group {
                views.push((groups, (line.confidence / 100.0).clamp(0.0, 1.0)));
            }
        }
    }
    views
}

/// Where a punched hole is in the side's card (the flattened card's pixels, as OCR's
/// boxes), when card sanity found one: the disk its box holds, `(x, y, radius)`. A disk,
/// not its box grown: a box's corners reach 2.1 radii out, and took a name printed
/// clear above a punch for one the punch cut (the independent set's seed 10, a PAN).
fn punched_hole(sanity: Option<&CardSanity>) -> Option<(f32, f32, f32)> {
    let s = sanity?;
    if !s.details.iter().any(|d| d.0 == CardSanityVerdict::ImageHasHole && d.1 >= 0.5) {
        return None;
    }
    let [x0, y0, x1, y1] = s.measures.hole_box?;
    Some((0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (x1 - x0).max(y1 - y0)))
}

/// How far past a punch's radius it may have taken print along a line
/// ([`crosses_disk`]): letters it cut into at a value's end are dropped, and the box of
/// what was read stops short of the hole by up to a letter.
const PUNCH_REACH_ALONG: f32 = 1.25;

/// How far past a punch's radius it may have taken print across lines: a line's box
/// spans its letters' full height wherever letters beside the hole are whole, so a punch
/// that cut into a line's letters reaches into its box; only the hole's measured edge's
/// error is allowed for. A father's name 9 px under a punch above its label (seed 19's
/// PAN, the disk's radius 59) lost nothing to it.
const PUNCH_REACH_ACROSS: f32 = 1.1;

/// Whether a box reaches a punch `(x, y, radius)` ([`punched_hole`]): its point nearest
/// the centre is within the punch's reach, [`PUNCH_REACH_ALONG`] radii along the line and
/// [`PUNCH_REACH_ACROSS`] across it.
///
/// A punch whose middle is above or below the box reaches it only where the disk itself
/// does, by more than [`PUNCH_NICK`] of the box's height: a disk that touches a line's
/// foot took no letter whole (nor did it where its measured edge stops short of the
/// box), and a letter's bars are thicker than that nick. The independent set's seed 30,
/// a PAN punched under its mother's name: the disk 1 px into the name's box, the name
/// read whole, refused by the reach alone; seeds 26 and 29 lost fathers' names 4-6 px
/// clear of their punches so.
fn crosses_disk(line: &idv_vision::ocr::TextBox, (cx, cy, r): (f32, f32, f32)) -> bool {
    let (nx, ny) = (cx.clamp(line.x as f32, line.right() as f32), cy.clamp(line.y as f32, line.bottom() as f32));
    let within_reach = ((nx - cx) / (PUNCH_REACH_ALONG * r)).powi(2) + ((ny - cy) / (PUNCH_REACH_ACROSS * r)).powi(2) <= 1.0;
    if !within_reach {
        return false;
    }
    let beside_the_line = cy >= line.y as f32 && cy <= line.bottom() as f32;
    beside_the_line || r - (nx - cx).hypot(ny - cy) > PUNCH_NICK * line.height as f32
}

/// How deep into a line's box, as a share of its height, a punch above or below it may
/// reach and have taken nothing ([`crosses_disk`]).
const PUNCH_NICK: f32 = 0.1;

/// Where a cut corner took the card (the flattened card's pixels, as OCR's boxes), when
/// card sanity found one: the corner and its legs, grown by a quarter (the cut's edge and
/// the letters it cut into). `[x, y, leg along x, leg along y]`.
fn cut_off(sanity: Option<&CardSanity>) -> Option<[f32; 4]> {
    let s = sanity?;
    if !s.details.iter().any(|d| d.0 == CardSanityVerdict::ImageHasCut && d.1 >= 0.5) {
        return None;
    }
    let [x, y, along_x, along_y] = s.measures.cut_corner?;
    Some([x, y, 1.25 * along_x, 1.25 * along_y])
}

/// Whether `page_text` (a line of the page's reading) reads a zone's names line
/// (`names`, as fitted) with its first word one or two letters shorter at its start and
/// the rest alike up to the next word's end: "THAKUR<<KARTHIK<<<<<K<<<y" beside
/// "OTHAKUR<<KARTHIK<<<…". Spaces in the page's reading are dropped.
fn first_letters_fewer(names: &str, page_text: &str) -> bool {
    let page: String = page_text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_uppercase();
    let Some(first_end) = names.find('<') else { return false };
    // The first word, the fillers after it and the next word.
    let next_end = names[first_end..].find(|c: char| c != '<').and_then(|start| names[first_end + start..].find('<').map(|end| first_end + start + end));
    let Some(next_end) = next_end else { return false };
    (1..=2).any(|lost| first_end > lost + 2 && page.starts_with(&names[lost..next_end]))
}

/// Whether a zone's line `read` shorter than its format (`fitted`) may have lost its
/// start to a cut corner (`cut`, as [`cut_off`] gives it): one on the card's left, where
/// the zone's lines start.
fn start_cut_short(cut: Option<[f32; 4]>, read: &str, fitted: &str) -> bool {
    cut.is_some_and(|[cx, ..]| cx <= 1.0) && read.len() < fitted.len()
}

/// Whether every line of a value beside a cut corner on the card's left starts at the
/// print's left margin, clear of the cut: where the value's words on it reach into the
/// grown cut at all, its first word of the value begins right of where the cut, as
/// measured (not grown as in [`cut_off`]), reaches at that word's rows, by a tenth of its
/// height ([`CUT_CLEARANCE_HEIGHTS`]), and within half a height of where a line above or
/// below it starts that the cut did not reach. A value that lost its start
/// to the cut would start right of the margin (its first read word is its second
/// printed one) or in the cut; one that starts at the margin beside it lost nothing
/// there, and a left corner takes nothing from a line's end. Seed 19's PAN: a father's
/// name under its label, both at x 38-43, the cut reaching x 34 at its capitals' foot,
/// was refused with all its letters read. A cut corner on the right is not judged so
/// (values do not end at a margin).
fn starts_at_margin_clear_of_cut(sanity: Option<&CardSanity>, value: &str, source: &[&idv_vision::ocr::OcrLine], lines: &[idv_vision::ocr::OcrLine]) -> bool {
    let Some([cx, cy, along_x, along_y]) = sanity.and_then(|s| s.measures.cut_corner) else { return false };
    let Some(grown) = cut_off(sanity) else { return false };
    let Some(spans) = value_spans(value, source) else { return false };
    if cx > 1.0 || along_x <= 0.0 || along_y <= 0.0 {
        return false;
    }
    source.iter().zip(&spans).all(|(line, &(j, _))| {
        let Some(first) = line.words.get(j) else { return false };
        // The value's words: a label before them in the cut lost nothing of the value.
        let from_value = line.words[j..].iter().map(|w| w.bbox).reduce(|a, b| a.union(&b)).unwrap_or(line.bbox);
        if !reaches_into(&from_value, grown) {
            return true;
        }
        // A box may take in the cut's edge below the letters (seed 19: 53 px for 30 px
        // capitals), and a Q's tail: the letters stand as tall as the line's shortest
        // word, from its first word's top.
        let Some(h) = line.words.iter().map(|w| w.bbox.height).min().map(|h| h as f32) else { return false };
        let (top, bottom) = (first.bbox.y as f32, first.bbox.y as f32 + h);
        let nearest_row = cy.clamp(top, bottom);
        let reach = along_x * (1.0 - (nearest_row - cy).abs() / along_y);
        let clear = first.bbox.x as f32 >= reach.max(0.0) + CUT_CLEARANCE_HEIGHTS * h;
        // A line above or below it, clear of the cut, starting at its column: the
        // margin (an address's last line under a cut top-left corner, the card's next
        // line below it, seed 24's voter card).
        let at_margin = lines.iter().any(|other| {
            let apart = other.bbox.bottom() as f32 <= top || other.bbox.y as f32 >= first.bbox.y as f32 + h;
            apart && !reaches_into(&other.bbox, grown) && (other.bbox.x as f32 - first.bbox.x as f32).abs() <= 0.5 * h
        });
        clear && at_margin
    })
}

/// Whether a value that reaches into a cut corner on the card's right reaches into it
/// only with its last line, and that line ends the value whole: a place that ends with
/// its state (`idv_cards::printed::ends_with_indian_state`) lost nothing off its end
/// (seed 29's voter back: "…, Hyderabad, Telangana" printed up to a top-right cut,
/// every letter read). A right corner takes only lines' ends; an earlier line's end may
/// have lost a word, and is refused.
fn ends_whole_at_cut(scan: &SideScan, f: &PrintedField, boxes: &[idv_vision::ocr::TextBox], corner: [f32; 4]) -> bool {
    let right_corner = scan.flat.as_ref().is_some_and(|card| corner[0] > 0.5 * card.width() as f32);
    let Some((last, earlier)) = boxes.split_last() else { return false };
    right_corner
        && WRAPPING_FIELDS.contains(&f.field)
        && idv_cards::printed::ends_with_indian_state(&f.value)
        && reaches_into(last, corner)
        && !earlier.iter().any(|b| reaches_into(b, corner))
}

/// How far right of a cut's measured edge a value's first letter must start to be whole
/// (`starts_at_margin_clear_of_cut`), in its line's word heights: the edge's measure is
/// a few pixels off.
const CUT_CLEARANCE_HEIGHTS: f32 = 0.1;

/// Whether a line's box reaches into a cut corner's triangle (`cut_off`): its point
/// nearest the corner is inside.
fn reaches_into(line: &idv_vision::ocr::TextBox, [cx, cy, along_x, along_y]: [f32; 4]) -> bool {
    let (nx, ny) = (cx.clamp(line.x as f32, line.right() as f32), cy.clamp(line.y as f32, line.bottom() as f32));
    along_x > 0.0 && along_y > 0.0 && (nx - cx).abs() / along_x + (ny - cy).abs() / along_y < 1.0
}

/// The whole photo read for a side with no card found, when that photo is overexposed
/// all over with no glare spot in it (`SideScan::overexposed_all_over`): its values are
/// judged by their own print (`Lit::Overexposed`), as on a flattened card. A card on
/// white paper lit white all over (seed 19's voter card back) is one saturated region.
fn overexposed_photo(scan: &SideScan) -> Option<&image::RgbImage> {
    scan.photo_page.as_ref().filter(|_| scan.flat.is_none() && scan.overexposed_all_over())
}

/// Where print may be washed out by glare (the pixels of the page OCR read): a glare
/// spot grown by three quarters of its half-size each way. A reflection fades out: the
/// spot is where every channel saturates, and around it print keeps too little contrast
/// to be read whole (a Gaussian highlight that saturates out to radius r still blends
/// half the print away out to ~1.7 r). Near it, a value is judged by the pixels beside
/// it where they were kept (`glare_took_nothing_ending`), refused where not (no card found).
fn washed_out(glare_box: Option<[f32; 4]>) -> Option<[f32; 4]> {
    Some(grown(glare_box?, GLARE_FADE_SHARE))
}

/// How far around a glare spot's box a reflection still fades print, as a share of the
/// box's size each way (`washed_out`).
const GLARE_FADE_SHARE: f32 = 0.375;

/// Fields whose value may run on over a second line of print, and so lose a whole line
/// to glare.
const WRAPPING_FIELDS: [&str; 4] = ["address", "place_of_origin", "place_of_birth", "place_of_issue"];

/// A zone beside a value shows its paper, and so that no word of the value is there
/// unread, when under half of it is faded by glare (its paper, not its noise, lit past
/// `idv_vision::card_sanity::FADED_HEADROOM`) and under a tenth saturated (where a
/// word's letters would be white on white, however bold).
fn shows_paper(w: idv_vision::card_sanity::Washed) -> bool {
    w.faded < 0.5 && w.saturated < 0.1
}

/// Whether a printed value on a card with a glare spot lost no word to it: wherever a
/// word of it could have been and is not read (beside its words on their lines, up to
/// the neighbouring word or twice the line's height out, and for a value that wraps
/// (`WRAPPING_FIELDS`) a line and a half below each of its lines), the card's paper
/// shows as paper (`shows_paper`). Glare washes print out by lighting the paper
/// under it past white; paper not so lit would show the word. Bold print read in a
/// saturated patch is print read, not print lost: what counts is where nothing was read.
/// Only a value whose words are found on its lines (`value_spans`) can be judged:
/// another is not given. `paper`: the card's paper away from the spot
/// (`idv_vision::card_sanity::paper_luma`).
/// `ends_known`: the value's end is known (a name ending with the family name another
/// name of its side ends with): nothing can follow it on its last line, as after an
/// Indian place's state.
fn glare_took_nothing_ending(card: &image::RgbImage, lit: Lit, f: &PrintedField, lines: &[idv_vision::ocr::OcrLine], ends_known: bool) -> bool {
    let source: Vec<&idv_vision::ocr::OcrLine> = f.lines.iter().filter_map(|&i| lines.get(i)).collect();
    // A gender is found as the word it was read from ("FEMALE" for F): the word whose
    // start glare could take ("MALE" of "FEMALE").
    let printed = match f.field {
        "gender" => source.iter().flat_map(|l| l.text.split(' ')).filter(|w| gender_word(w) == Some(f.value.as_str())).last().map(str::to_string),
        _ => Some(f.value.clone()),
    };
    // A gender printed as its one-letter code ("M") is whole by its form as a date is:
    // glare that took letters after it leaves it the same code ("M" of "MALE").
    let one_letter = printed.as_ref().is_some_and(|w| w.chars().count() == 1);
    let Some(spans) = printed.and_then(|v| value_spans(&v, &source)) else { return false };
    // Every word of it read with some confidence: print that glare faded without washing
    // it out is what is misread beside a spot ("ANSAI" for "ANSARI", confidence 30).
    let words = || source.iter().zip(&spans).flat_map(|(l, &(j, k))| &l.words[j..k]);
    // A one-letter gender code read right after its label ("Sex: M") is held to a lower
    // confidence (`GLARE_CODE_MIN_CONFIDENCE`): a lone capital scores low however clear
    // (58 and 39 beside seeds 16 and 17's glare spots, both read right), the label
    // before it says nothing was lost before it, and M and F are not misread as each
    // other.
    let after_label = one_letter && f.field == "gender" && source.iter().zip(&spans).any(|(l, &(j, _))| {
        // The label's colon may be read as a word of its own ("Sex : F").
        let before: Vec<&str> = l.text.split(' ').take(j).collect();
        let label = match before.as_slice() {
            [.., label, colon] if !colon.chars().any(char::is_alphanumeric) => Some(*label),
            [.., label] => Some(*label),
            [] => None,
        };
        label.is_some_and(is_gender_label)
    });
    let least = if after_label { GLARE_CODE_MIN_CONFIDENCE } else { GLARE_MIN_CONFIDENCE };
    if words().any(|w| w.confidence.is_none_or(|c| c < least)) {
        return false;
    }
    // On a card lit bright all over, its own print still dark beside wherever a word of
    // it could have been lost: the light that would have washed a word there out fades
    // the word next to it too. A word read between two others, or where the value
    // provably starts (after its label, at its first line's margin) or ends (a
    // state), has no lost word beside it however its ink lifts (seed 28's voter back:
    // "Jayanagar, Bengaluru," at luma 59 and 52 where its address's second line starts
    // under its first, both right). A lone value in a fixed form is whole by its form,
    // and judged by its ink alone.
    let lone = words().count() == 1 && (fixed_form(f.field, &f.value) || one_letter);
    if lit == Lit::Overexposed && lone && !words().all(|w| dark_ink(card, w.bbox)) {
        return false;
    }
    // A value of one word in a fixed form (a date, a card's number) is whole by its form:
    // a word lost beside it would be characters lost from it, and the rest would not
    // have that form (nor be found as that word, `value_spans`).
    if lone {
        return true;
    }
    // A place or address on a card lit bright all over, one of its words faded to light
    // grey: the comma after that word, thinner than its letters, fades to the paper and
    // is lost ("Lotus Enclave Station Road" for "Lotus Enclave, Station Road", seed 37's
    // voter back, "Enclave" at luma 204, the paper between it and "Station" 243).
    if lit == Lit::Overexposed && WRAPPING_FIELDS.contains(&f.field) && !words().all(|w| ink_luma(card, w.bbox).is_some_and(|ink| ink <= OVEREXPOSED_PUNCTUATION_INK)) {
        return false;
    }
    let clear = |zone: [f32; 4]| match lit {
        Lit::Spot { paper } => idv_vision::card_sanity::washed(card, zone, paper).is_none_or(shows_paper),
        Lit::Overexposed => !faded_print_in(card, zone),
    };
    // An Indian place that ends with its state ends there: nothing of it can follow on
    // its last line or below it (`idv_cards::printed::ends_with_indian_state`).
    let ends_whole = WRAPPING_FIELDS.contains(&f.field) && idv_cards::printed::ends_with_indian_state(&f.value);
    let last_line = source.len().saturating_sub(1);
    // Each zone with the value's words beside it, whose ink must stay dark on a card
    // overexposed all over.
    let mut zones: Vec<([f32; 4], Vec<idv_vision::ocr::TextBox>)> = Vec::new();
    // Where the value's first line starts: its first word, and the line (its label).
    let mut starts: Vec<f32> = Vec::new();
    for (i, (line, &(j, k))) in source.iter().zip(&spans).enumerate() {
        let words = &line.words[j..k];
        let (Some(first), Some(last)) = (words.first(), words.last()) else { return false };
        // A gender word loses its meaning only at its start ("MALE" of "FEMALE"): what
        // glare took after it ("Mal" of "Male") leaves the same gender, or none.
        let ends_here = ((ends_whole || ends_known) && i == last_line) || f.field == "gender";
        let mut heights: Vec<u32> = words.iter().map(|w| w.bbox.height).collect();
        heights.sort_unstable();
        let h = heights[heights.len() / 2] as f32;
        let top = words.iter().map(|w| w.bbox.y).min().unwrap_or(first.bbox.y) as f32 - h / 4.0;
        let bottom = words.iter().map(|w| w.bbox.bottom()).max().unwrap_or(first.bbox.bottom()) as f32 + h / 4.0;
        let (x0, x1) = (first.bbox.x as f32, last.bbox.right() as f32);
        // Before its first word: up to the word before it when that is near enough to
        // leave no room for another, else two heights out.
        let before = j.checked_sub(1).map(|p| line.words[p].bbox.right() as f32);
        // A line the value runs on to that starts where the value's first line starts,
        // or that line's label, lost nothing at its start.
        // So did a value's first line that starts at the margin of a line of print right
        // above it (its label: a PAN's "AJAY ANSARI" under "Father's Name", both at
        // x 60, seed 29's overexposed card): a word lost before it would have left the
        // value starting right of that margin.
        let under_margin = i == 0
            && lines.iter().any(|above| {
                let gap = first.bbox.y as f32 - above.bbox.bottom() as f32;
                (0.0..=2.5 * h).contains(&gap) && (above.bbox.x as f32 - x0).abs() <= h / 2.0
            });
        let aligned = under_margin || starts.iter().any(|&s| (x0 - s).abs() <= h);
        // A stroke or bracket read right before it (") Rani Ansari" for "Bhavana Rani
        // Ansari", seed 25, the first name washed grey at a reflection's edge): what
        // glare left of a word, as after it. A label's colon or slash is a label's.
        let mark_before = j.checked_sub(1).and_then(|p| line.text.split(' ').nth(p)).is_some_and(|w| !w.is_empty() && w.chars().all(|c| FADED_WORD_MARKS.contains(&c)));
        // A word ending with a comma right before a place ("'R, RAJASTHAN" for "JAIPUR,
        // RAJASTHAN", seed 29's passport, the city washed to its last letter): the place
        // began before it. A label ends with a colon, not a comma.
        let comma_before = j.checked_sub(1).and_then(|p| line.text.split(' ').nth(p)).is_some_and(|w| w.ends_with(','));
        if mark_before || (comma_before && WRAPPING_FIELDS.contains(&f.field)) {
            return false;
        }
        match before {
            Some(b) if x0 - b <= h => {}
            Some(b) => zones.push(([b, top, x0, bottom], vec![first.bbox])),
            None if aligned => {}
            None => zones.push(([x0 - 2.0 * h, top, x0, bottom], vec![first.bbox])),
        }
        if starts.is_empty() {
            starts = vec![x0, line.bbox.x as f32];
        }
        // A mark read right after it ("Meera |" for "Meera Iyer", the rest faded into
        // a stroke): print was there that did not read as letters. So is a "letter" of
        // under half the value's height ("VÕ BẢO ï" for "VÕ BẢO NGỌC LAN", its "ï"
        // 10 px high beside 32 px capitals): what glare left of a word, not a word.
        // And a stroke read glued to its last word ("VENKATESH K\" for "VENKATESH
        // KUMAR YADAV"), one the value does not end with.
        let mark = |t: &str| !t.chars().any(char::is_alphanumeric);
        let glued = k.checked_sub(1).and_then(|last| line.text.split(' ').nth(last)).and_then(|w| w.chars().last()).is_some_and(|c| STROKE_MARKS.contains(&c) && !f.value.ends_with(c));
        let residue = glued || line.text.split(' ').nth(k).is_some_and(mark) || line.words.get(k).is_some_and(|n| (n.bbox.height as f32) < h / 2.0);
        if !ends_here && residue {
            return false;
        }
        let after = line.words.get(k).map(|n| n.bbox.x as f32);
        match after {
            _ if ends_here => {}
            Some(a) if a - x1 <= h => {}
            Some(a) => zones.push(([x1, top, a, bottom], vec![last.bbox])),
            None => zones.push(([x1, top, x1 + 2.0 * h, bottom], vec![last.bbox])),
        }
        // Between two of its words far enough apart for a word lost between them, on a
        // card overexposed all over (where its words' ink is otherwise not judged).
        if lit == Lit::Overexposed {
            for pair in words.windows(2) {
                if let [a, b] = pair {
                    if b.bbox.x as f32 - a.bbox.right() as f32 > h {
                        zones.push(([a.bbox.right() as f32, top, b.bbox.x as f32, bottom], vec![a.bbox, b.bbox]));
                    }
                }
            }
        }
        // Below it, unless the value's next line is read right there: that line's own
        // zones judge what could be lost beside it.
        let next_below = source.get(i + 1).is_some_and(|n| (n.bbox.y as f32) < bottom + 1.5 * h);
        if WRAPPING_FIELDS.contains(&f.field) && !ends_here && !next_below {
            zones.push(([x0, bottom, x1 + 2.0 * h, bottom + 1.5 * h], words.iter().map(|w| w.bbox).collect()));
        }
    }
    zones.into_iter().all(|(zone, beside)| {
        // On a card overexposed all over, the value's word beside the zone still dark
        // (a word lost there would have left it lifted grey), or, lifted, the light's
        // slope across that word saying a word there would have been dark enough to
        // show on the darkened copy the side was read from, and nothing there, faint
        // as it may be (seed 36's voter card, "RAJESH SINGH IYER" at luma 165 under a
        // flash lighting the card evenly, its paper clipped after it).
        let dark_beside = || beside.iter().all(|&b| ink_luma(card, b).is_some_and(|ink| ink <= OVEREXPOSED_EDGE_INK));
        let shown = || matches!(beside.as_slice(), [b] if !faint_print_in(card, zone) && ink_toward(card, *b, zone).is_some_and(|ink| ink <= OVEREXPOSED_SHOWN_INK));
        clear(zone) && (lit != Lit::Overexposed || dark_beside() || shown())
    })
}

/// Whether a zone entry no check digit covers is held between characters that check
/// digits verify, in a zone on a blurred photo whose check digits all pass: the sex
/// (`M`, `F`), one character between the date of birth's check digit and the expiry
/// date in every format (TD1, TD2, TD3), both verified; blur that left every verified
/// character right around it would have to turn one letter into another sex's. And a
/// passport's document code `P`, the one the zone was accepted as a passport's for
/// (`crate::card::mrz::not_an_indian_passport`). Given as read, `UNSURE` (seed 16's
/// blurred passports read both, all five check digits passing, and gave neither).
fn between_checked_characters(card_type: &str, f: &CardField) -> bool {
    (f.field == "gender" && matches!(f.value.as_str(), "M" | "F")) || (card_type == "in.passport" && f.field == "document_type" && f.value == "P")
}

/// What the strokes left of a word faded by glare are read as, glued to the word before
/// them ([`glare_took_nothing_ending`]): no value printed on a card ends with one.
const STROKE_MARKS: [char; 7] = ['|', '\\', '/', '!', '_', '~', '¦'];

/// What a word faded by glare before a value is read as, standing alone
/// ([`glare_took_nothing_ending`]): strokes and brackets, not a label's colon, slash or dash.
const FADED_WORD_MARKS: [char; 12] = ['|', '\\', '!', '_', '~', '¦', '(', ')', '[', ']', '{', '}'];

/// How a card was lit too bright, for [`glare_took_nothing_ending`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lit {
    /// A glare spot: the paper beside a value, away from the spot, is at `paper`
    /// (`idv_vision::card_sanity::paper_luma`); a zone lit well past it is washed out.
    Spot { paper: f32 },
    /// Overexposed all over (`idv_vision::card_sanity::overexposure` ≥ 0.5) with no spot
    /// found: the paper is clipped everywhere, so clipped paper beside a value says
    /// nothing. What does: the value's own print stays dark where a word of it could
    /// have been lost ([`OVEREXPOSED_EDGE_INK`]; a lone number or date all over,
    /// [`dark_ink`]), and nothing beside it is print faded to grey
    /// ([`faded_print_in`]). A flash's hotspot fades
    /// print gradually (seed 16's overexposed PAN: its number's strokes from luma 65 to
    /// 243 over a sixth of the card), so a word washed out beside a value whose strokes
    /// stay black leaves grey strokes between them.
    Overexposed,
}

/// Darkest luma (0-255) of the strokes of a word of unfaded print on an overexposed card
/// ([`dark_ink`]): black print read there measures 1-20, a number a hotspot fades 65 and
/// lighter.
const OVEREXPOSED_INK: f32 = 50.0;

/// Darkest luma of a value's word beside a place where a word of it could have been
/// lost, on a card overexposed all over ([`glare_took_nothing_ending`]): a word washed out
/// there would have left the word beside it lifted well past this. Measured on the
/// independent set's glared cards, right values end with words at 56-65 (seed 27's
/// "GOPAL PRASAD GILL", "SRINIVAS SINGH"; seed 29's "MAHESH ANSARI" at 60), values that
/// lost a word at 85 and 119 (seed 26's "LÝ MINH" of "Lý Minh Tiến Phúc", seed 24's
/// "Ravi Shai" of "Ravi Sharma").
const OVEREXPOSED_EDGE_INK: f32 = 75.0;

/// Lightest 2nd-percentile luma ([`ink_luma`]) of a place's or address's word on a card
/// overexposed all over at which the commas beside it still show ([`glare_took_nothing_ending`]):
/// seed 37's voter back read its commas after words at 71-160 and lost the one after
/// "Enclave" at 204.
const OVEREXPOSED_PUNCTUATION_INK: f32 = 180.0;

/// Luma under which a pixel beside a value on an overexposed card is print, faded or
/// not ([`faded_print_in`]): clipped paper there reads 245-255.
const OVEREXPOSED_PRINT: f32 = 215.0;

/// Share of a zone's pixels that may be print ([`OVEREXPOSED_PRINT`]) and the zone still
/// hold no word: noise and a stray mark (a word's strokes fill 15-25 % of its box).
const OVEREXPOSED_PRINT_SHARE: f32 = 0.02;

/// Whether a word's box (`[x, y, w, h]` in the card's pixels) holds strokes as dark as
/// unfaded print: its 2nd-percentile luma at most [`OVEREXPOSED_INK`].
fn dark_ink(card: &image::RgbImage, b: idv_vision::ocr::TextBox) -> bool {
    ink_luma(card, b).is_some_and(|ink| ink <= OVEREXPOSED_INK)
}

/// The 2nd-percentile luma of a word's box (`[x, y, w, h]` in the card's pixels): its
/// strokes' darkest. `None` for a box off the card.
fn ink_luma(card: &image::RgbImage, b: idv_vision::ocr::TextBox) -> Option<f32> {
    use idv_vision::card_sanity::{luma, zone_on_card};
    let [x0, y0, x1, y1] = zone_on_card(card, [b.x as f32, b.y as f32, b.right() as f32, b.bottom() as f32])?;
    let mut lumas: Vec<u8> = (y0..y1).flat_map(|y| (x0..x1).map(move |x| (x, y))).map(|(x, y)| luma(&card.get_pixel(x, y).0).round() as u8).collect();
    lumas.sort_unstable();
    lumas.get(lumas.len() / 50).map(|&l| f32::from(l))
}

/// Luma a word's print would have at a zone beside a value's word `b` on a card
/// overexposed all over, by the light's slope across `b` itself: the 2nd-percentile luma
/// of `b`'s half nearer the zone, plus the change from its far half to its near half
/// per pixel times the distance from the near half's middle to the zone's middle.
fn ink_toward(card: &image::RgbImage, b: idv_vision::ocr::TextBox, zone: [f32; 4]) -> Option<f32> {
    let half = b.width / 2;
    if half < 2 {
        return None;
    }
    let left = idv_vision::ocr::TextBox { width: half, ..b };
    let right = idv_vision::ocr::TextBox { x: b.x + half, width: b.width - half, ..b };
    let zone_middle = (zone[0] + zone[2]) / 2.0;
    let (near, far) = if zone_middle >= (b.x + half) as f32 { (right, left) } else { (left, right) };
    let (near_ink, far_ink) = (ink_luma(card, near)?, ink_luma(card, far)?);
    let near_middle = near.x as f32 + near.width as f32 / 2.0;
    let slope = (near_ink - far_ink).max(0.0) / half as f32;
    Some(near_ink + slope * (zone_middle - near_middle).abs())
}

/// Whether a zone holds print faded nearly to the paper: [`print_in`] under
/// [`OVEREXPOSED_FAINT_PRINT`]. A zone off the card could hold anything: it vouches for
/// nothing.
fn faint_print_in(card: &image::RgbImage, zone: [f32; 4]) -> bool {
    print_in(card, zone, OVEREXPOSED_FAINT_PRINT) != Some(false)
}

/// Luma under which a pixel beside a value on a card overexposed all over is print
/// faded nearly to the paper (`faint_print_in`): the darkened reading
/// (`crate::card::scan::OVEREXPOSED_READING_GAMMA`) shows it at 187 and darker.
const OVEREXPOSED_FAINT_PRINT: f32 = 245.0;

/// Luma at most that a word lost beside a value would have, by the light's slope across
/// the value's word next to it (`ink_toward`), for the value to be judged whole where
/// that word is lifted past [`OVEREXPOSED_EDGE_INK`]: print so dark shows on the
/// darkened copy the side was read from.
const OVEREXPOSED_SHOWN_INK: f32 = 200.0;

/// Whether a zone (`[x0, y0, x1, y1]`, cut to the card) holds print, faded or not: more
/// than [`OVEREXPOSED_PRINT_SHARE`] of its pixels under [`OVEREXPOSED_PRINT`]. A zone
/// off the card holds none.
fn faded_print_in(card: &image::RgbImage, zone: [f32; 4]) -> bool {
    print_in(card, zone, OVEREXPOSED_PRINT) == Some(true)
}

/// Whether more than [`OVEREXPOSED_PRINT_SHARE`] of a zone's pixels (`[x0, y0, x1, y1]`,
/// cut to the card) are darker than `luma_under`: print there. `None` for a zone off the
/// card.
fn print_in(card: &image::RgbImage, zone: [f32; 4], luma_under: f32) -> Option<bool> {
    use idv_vision::card_sanity::{luma, zone_on_card};
    let [x0, y0, x1, y1] = zone_on_card(card, zone)?;
    let print = (y0..y1).flat_map(|y| (x0..x1).map(move |x| (x, y))).filter(|&(x, y)| luma(&card.get_pixel(x, y).0) < luma_under).count();
    Some(print as f32 > OVEREXPOSED_PRINT_SHARE * ((x1 - x0) * (y1 - y0)) as f32)
}

/// The gender a printed word says: an English or Hindi word (`gender_value`) or
/// Vietnamese "Nam", "Nữ".
fn gender_word(word: &str) -> Option<&'static str> {
    match word.to_lowercase().as_str() {
        "nam" => Some("M"),
        "nữ" | "nu" => Some("F"),
        _ => idv_cards::printed::gender_value(word, true),
    }
}

/// Least confidence of each word of a value read on a card with a glare spot
/// (`glare_took_nothing_ending`); print read clear there measures 90-97.
const GLARE_MIN_CONFIDENCE: f32 = 60.0;

/// Least confidence of a one-letter gender code read right after its label on a card
/// with a glare spot (`glare_took_nothing_ending`).
const GLARE_CODE_MIN_CONFIDENCE: f32 = 30.0;

/// Whether an OCR word is a gender's label ("Sex:", "Sex.", "Gender", "Sex/Gender:"),
/// its punctuation aside.
fn is_gender_label(word: &str) -> bool {
    let letters: String = word.chars().filter(|c| c.is_alphabetic() || *c == '/').collect::<String>().to_lowercase();
    matches!(letters.rsplit('/').next(), Some("sex" | "gender"))
}

/// Whether `value` is a date (`DD/MM/YYYY`) or a card number of a fixed form: twelve
/// digits (Aadhaar, CCCD), a PAN (`AAAAA9999A`), a voter's EPIC number (`AAA9999999`), a
/// passport's (`A9999999`); a PIN code, a year, a voter's age. A character lost from one
/// leaves another form.
fn fixed_form(field: &str, value: &str) -> bool {
    let shape: String = value.chars().map(|c| if c.is_ascii_digit() { '9' } else if c.is_ascii_uppercase() { 'A' } else { c }).collect();
    match field {
        "dob" | "issue_date" | "expiry_date" | "incorporation_date" => shape == "99/99/9999",
        "id" => ["999999999999", "AAAAA9999A", "AAA9999999", "A9999999"].contains(&shape.as_str()),
        // An Indian PIN code's six digits (seed 29's glared Aadhaar back: "Maharashtra -
        // 400041" beside a reflection, read at confidence 96), a year of birth's four.
        "pin_code" => shape == "999999",
        "year_of_birth" => shape == "9999",
        // A voter's age of two digits, 18 or more (seed 29's glared voter card: "Age as
        // on 1.1.2010: 37" under a reflection): a digit lost before or after it would
        // make an age past 100 of one under 18.
        "age" => shape == "99" && value.parse::<u32>().is_ok_and(|a| a >= 18),
        _ => false,
    }
}

/// Where a printed value's words are on the lines it was read from: for each line, the
/// range of its words (`OcrLine::words`) that hold the value's letters and digits, in
/// order and together (a line's tail for the first of several lines, whole lines
/// between, a head for the last), case aside and with at most one character in eight
/// differing (the parsers' repairs: "O" read for "0"). `None` when they are not there
/// so, or a line has no word boxes.
fn value_spans(value: &str, source: &[&idv_vision::ocr::OcrLine]) -> Option<Vec<(usize, usize)>> {
    fn letters(text: &str) -> Vec<char> {
        text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_uppercase).collect()
    }
    let alike = |a: &[char], b: &[char]| a.len() == b.len() && a.iter().zip(b).filter(|(x, y)| x != y).count() <= a.len() / 8;
    let want = letters(value);
    let mut at = 0;
    let mut spans = Vec::new();
    for (i, line) in source.iter().enumerate() {
        let tokens: Vec<Vec<char>> = line.text.split(' ').map(letters).collect();
        if tokens.len() != line.words.len() || tokens.is_empty() {
            return None;
        }
        let (first, last) = (i == 0, i + 1 == source.len());
        let rest = want.get(at..)?;
        // The runs this line may hold, shortest reach first: from `j` to `k`.
        let starts: Vec<usize> = if first { (0..tokens.len()).collect() } else { vec![0] };
        let found = starts.into_iter().find_map(|j| {
            let ends: Vec<usize> = if last { (j + 1..=tokens.len()).collect() } else { vec![tokens.len()] };
            ends.into_iter().find_map(|k| {
                let got: Vec<char> = tokens[j..k].concat();
                let whole = got.len() == rest.len();
                let fits = !got.is_empty() && (if last { whole } else { got.len() < rest.len() }) && rest.get(..got.len()).is_some_and(|r| alike(r, &got));
                // A run starts and ends on a word with letters or digits.
                (fits && !tokens[j].is_empty() && !tokens[k - 1].is_empty()).then_some((j, k, got.len()))
            })
        });
        let (j, k, n) = found?;
        spans.push((j, k));
        at += n;
    }
    (at == want.len()).then_some(spans)
}

/// A box `[x0, y0, x1, y1]` grown each way by `share` of its width and height.
fn grown([x0, y0, x1, y1]: [f32; 4], share: f32) -> [f32; 4] {
    let (gx, gy) = (share * (x1 - x0), share * (y1 - y0));
    [x0 - gx, y0 - gy, x1 + gx, y1 + gy]
}

/// An OCR line's box widened by its height at either end and half of it up and down:
/// the words a reflection took from a line's ends are not in its box, nor is the
/// next line of a value that the reflection took whole.
fn widened(line: &idv_vision::ocr::TextBox) -> idv_vision::ocr::TextBox {
    let mut b = *line;
    b.x = b.x.saturating_sub(line.height);
    b.y = b.y.saturating_sub(line.height / 2);
    b.width = line.width + 2 * line.height;
    b.height = 2 * line.height;
    b
}

/// Whether an OCR line's box overlaps `area` (`[x0, y0, x1, y1]`).
fn crosses(line: &idv_vision::ocr::TextBox, area: [f32; 4]) -> bool {
    let (x0, y0) = (line.x as f32, line.y as f32);
    let (x1, y1) = (x0 + line.width as f32, y0 + line.height as f32);
    x0 < area[2] && area[0] < x1 && y0 < area[3] && area[1] < y1
}

/// The card's sanity from its sides' (front first): the first side with an issue, else
/// the first side some check could not judge (`incomplete`), else the front's. A punched
/// hole and a cut corner go through the card, so one seen on either side counts for the
/// card: a hole on one side and a cut on the other (each side's finder sees what its own
/// background and print let it) make `image_has_hole_and_cut`; and one side's hole or
/// cut check stands for a side where it could not run (a scan of the front, a photo of
/// the back on a table). `None` when every side is `good` as it is (the front's stands).
pub fn card_sanity_of_sides(sides: &[&CardSanity]) -> Option<CardSanity> {
    use CardSanityVerdict::{Good, ImageHasCut, ImageHasHole, ImageHasHoleAndCut, Incomplete};
    let mut first = first_issue(sides.iter().copied()).filter(|s| s.verdict != Good)?.clone();
    if first.verdict == Incomplete {
        for check in first.not_performed().into_iter().filter(|c| matches!(c, ImageHasHole | ImageHasCut)) {
            if let Some(judged) = sides.iter().find_map(|s| s.details.iter().find(|d| d.0 == check)) {
                first.details.push(*judged);
            }
        }
        if first.not_performed().is_empty() {
            first.verdict = Good;
            first.score = 1.0 - first.details.iter().map(|d| d.1).fold(0f32, f32::max);
        }
    }
    let seen = |v: CardSanityVerdict| sides.iter().any(|s| s.verdict == v || s.verdict == ImageHasHoleAndCut);
    if matches!(first.verdict, ImageHasHole | ImageHasCut) && seen(ImageHasHole) && seen(ImageHasCut) {
        first.verdict = ImageHasHoleAndCut;
        first.score = sides.iter().map(|s| s.score).fold(first.score, f32::min);
    }
    Some(first)
}

/// Of several sides' sanities (front first): the first with an issue, else the first
/// `incomplete`, else the first.
pub fn first_issue<'a>(sides: impl Iterator<Item = &'a CardSanity> + Clone) -> Option<&'a CardSanity> {
    sides.clone().find(|s| s.verdict.is_issue()).or_else(|| sides.clone().find(|s| s.verdict == CardSanityVerdict::Incomplete)).or_else(|| sides.clone().next())
}

/// A side's (or the answer's) `card_sanity` object: the verdict, its score, every
/// check's own score (`score_details`, the eKYC contract's shape), and `not_performed`,
/// the checks that could not run (absent when every check ran).
pub fn sanity_json(s: &CardSanity) -> Value {
    let mut j = json!({
        "verdict": s.verdict,
        "score": (s.score * 1000.0).round() / 1000.0,
        "score_details": s.details.iter().map(|(v, score)| json!({"verdict": v, "score": (score * 1000.0).round() / 1000.0})).collect::<Vec<_>>(),
    });
    let skipped = s.not_performed();
    if !skipped.is_empty() {
        j["not_performed"] = json!(skipped.iter().map(|c| c.check_name()).collect::<Vec<_>>());
    }
    j
}

/// The failure code of a card sanity verdict (`None` for `good`).
pub fn sanity_failure(v: CardSanityVerdict) -> Option<FailureCode> {
    Some(match v {
        CardSanityVerdict::Good | CardSanityVerdict::Incomplete => return None,
        CardSanityVerdict::ImageTooBlur => FailureCode::ImageTooBlur,
        CardSanityVerdict::ImageTooDark => FailureCode::ImageTooDark,
        CardSanityVerdict::ImageTooBright => FailureCode::ImageTooBright,
        CardSanityVerdict::ImageHasHole => FailureCode::ImageHasHole,
        CardSanityVerdict::ImageHasCut => FailureCode::ImageHasCut,
        CardSanityVerdict::ImageHasHoleAndCut => FailureCode::ImageHasHoleAndCut,
    })
}

/// How sure the text must be of another type, and how unsure of the requested one,
/// before the photo is refused as `incorrect_card_type` (a misread keyword must not
/// refuse a real card).
const OTHER_TYPE_SCORE: f32 = 0.5;
const REQUESTED_TYPE_SCORE: f32 = 0.2;
/// Two types scoring this high in one photo's text: two cards.
const MULTICARD_TYPE_SCORE: f32 = 0.6;

/// The whole reading (module doc). `portrait`: whether a face was found on the front
/// (`None` when not looked for; tampering then leaves the check out). `year`: the
/// two-digit-year pivot of MRZ dates (`crate::card::mrz::reference_year`).
/// A passport's printed date of issue that the zone's checked expiry follows from (ten
/// years or five, to the day before: `idv_cards::printed::expiry_follows_issue`) is
/// vouched for by that check digit, its check made strong: the date of issue is in no
/// zone, and a blurred page's two readings seldom agree on it. Where the print's parser
/// found no date of issue (a blurred page's labels lost first), the one date on the page
/// that the expiry follows from is it (`idv_cards::printed::issue_date_for_expiry`, in
/// any reading's line of `page`), given as a printed reading under the same strong check.
/// The independent set: 12 of 14 blurred passports over seeds 24-30 gave no date of
/// issue. Only a zone expiry whose check digit passed vouches; other types' terms are
/// not one rule.
fn issue_dates_vouched_by_expiry(card_type: &str, readings: &mut Vec<Reading>, page: &[&idv_vision::ocr::OcrLine]) {
    if card_type != "in.passport" {
        return;
    }
    let checked_expiries: Vec<String> = readings.iter().filter(|r| r.source == Source::Mrz && r.field == "expiry_date" && r.check == Check::Strong).map(|r| r.value.clone()).collect();
    // A printed date of issue on or after the checked expiry is no date of issue: another
    // date taken under its label (the expiry beside it, where a punch took the date of
    // issue: "04/11/2024" for 05/11/2014, the independent set's seed 24).
    let day_order = |d: &str| idv_cards::printed::day_month_year(d).map(|(day, month, year)| (year, month, day));
    readings.retain(|r| {
        !(r.source == Source::Printed && r.field == "issue_date" && checked_expiries.iter().any(|e| day_order(&r.value).zip(day_order(e)).is_some_and(|(issue, expiry)| issue >= expiry)))
    });
    for r in readings.iter_mut().filter(|r| r.source == Source::Printed && r.field == "issue_date" && r.check == Check::Weak) {
        if checked_expiries.iter().any(|e| idv_cards::printed::expiry_follows_issue(&r.value, e)) {
            r.check = Check::Strong;
        }
    }
    if readings.iter().any(|r| r.source == Source::Printed && r.field == "issue_date") {
        return;
    }
    let [expiry] = checked_expiries.as_slice() else { return };
    if let Some(issue) = idv_cards::printed::issue_date_for_expiry(page.iter().map(|l| l.text.as_str()), expiry) {
        // The engine's confidence in the best line that holds it.
        let confidence = page.iter().filter(|l| idv_cards::printed::extract_dates(&l.text).contains(&issue)).map(|l| (l.confidence / 100.0).clamp(0.0, 1.0)).fold(0.0, f32::max);
        readings.push(Reading::composed("issue_date", issue, confidence, Check::Strong));
    }
}

pub fn read_card(
    card_type: &str,
    codec: Option<Codec<'_>>,
    front: &SideInput<'_>,
    back: Option<&SideInput<'_>>,
    portrait: Option<Result<bool, String>>,
    year: u32,
) -> CardReading {
    let f = read_side(card_type, codec, Side::Front, front, year);
    let b = back.map(|b| read_side(card_type, codec, Side::Back, b, year));
    let sides: Vec<&SideRead> = std::iter::once(&f).chain(b.as_ref()).collect();
    let mut readings: Vec<Reading> = sides.iter().flat_map(|s| s.readings.iter().cloned()).collect();
    if card_type == "vn.national_id" && !readings.iter().any(|r| r.field == "name" && r.source != Source::Mrz) {
        // A CCCD's zone writes the name without its diacritics ("HO<<THANH<QUANG" for
        // "Hồ Thành Quang"): it can confirm the QR's or the print's, never stand in for them.
        readings.retain(|r| !(r.field == "name" && r.source == Source::Mrz));
    }
    // A blurred or soft card's zone entry that no check digit covers (a name, the
    // nationality), from a zone whose check digits all pass, is given where the card's
    // print, in either reading, holds the same words: the zone and the print are two
    // places on the card in two typefaces, read by two models, and a misreading of
    // each that comes out alike is far less likely than one place misread alike twice
    // (which is how the second reading vouches). Blur takes the small labels first, so
    // the print's parser, which finds a value by its label, took none of these: the
    // independent set's seed 15 blurred passport read "DAS ae" and "NITIN ae" where
    // its zone read DAS<<NITIN, and its zone's second reading misread the given names
    // (`idv_cards::merge::printed_words_of_zone_value`). The print's spelling goes in
    // as a printed reading the zone's then confirms. Not a CCCD's name (its zone drops
    // the diacritics the card prints).
    let mut confirmed_by_print: Vec<(String, String)> = Vec::new();
    // Every line every reading of either side read.
    let every_reading: Vec<&idv_vision::ocr::OcrLine> = std::iter::once(front.scan)
        .chain(back.map(|b| b.scan))
        .flat_map(|scan| std::iter::once(&scan.ocr).chain(scan.reread.iter().map(|r| &r.ocr)))
        .flat_map(|ocr| match ocr {
            OcrOutcome::Lines(lines) => lines.iter().collect::<Vec<_>>(),
            OcrOutcome::NotPerformed(_) => Vec::new(),
        })
        .collect();
    if sides.iter().any(|s| !s.zone_unconfirmed.is_empty()) {
        let both_readings: Vec<&str> = every_reading.iter().map(|l| l.text.as_str()).collect();
        for zone in sides.iter().flat_map(|s| s.zone_unconfirmed.iter()) {
            if card_type == "vn.national_id" && zone.field == "name" {
                continue;
            }
            let Some(spelled) = idv_cards::merge::printed_words_of_zone_value(&zone.value, both_readings.iter().copied()) else { continue };
            if spelled != zone.value {
                readings.push(Reading::composed(&zone.field, spelled.clone(), zone.confidence, Check::Weak));
            }
            readings.push(zone.clone());
            confirmed_by_print.push((zone.field.clone(), zone.value.clone()));
            confirmed_by_print.push((zone.field.clone(), spelled));
        }
        // The zone's whole name (surname, then given names), where both its parts are
        // given: a passport prints them on two lines, never together.
        let vouched = |field: &str, value: &str| sides.iter().flat_map(|s| s.reread.iter().chain(&s.zone_between_checks)).chain(&confirmed_by_print).any(|(f, v)| f == field && v == value);
        let parts: Vec<(String, String)> = sides.iter().flat_map(|s| s.readings.iter().chain(&s.zone_unconfirmed)).filter(|r| r.source == Source::Mrz && matches!(r.field.as_str(), "last_name" | "first_name")).map(|r| (r.field.clone(), r.value.clone())).collect();
        let whole_names: Vec<Reading> = sides
            .iter()
            .flat_map(|s| s.zone_unconfirmed.iter())
            .filter(|zone| card_type != "vn.national_id" && zone.field == "name" && !vouched("name", &zone.value))
            .filter(|zone| {
                parts.iter().filter(|(f, _)| f == "last_name").any(|(_, last)| {
                    parts.iter().filter(|(f, _)| f == "first_name").any(|(_, first)| zone.value == format!("{last} {first}") && vouched("last_name", last) && vouched("first_name", first))
                })
            })
            .cloned()
            .collect();
        for zone in whole_names {
            confirmed_by_print.push((zone.field.clone(), zone.value.clone()));
            readings.push(zone);
        }
    }
    // A name only the zone gave, though a printed line ends with it (its label misread,
    // so no parser took it): the print's spelling, as a printed reading the zone's then
    // confirms (`idv_cards::merge::printed_spelling_of_zone_name`). Not for a CCCD,
    // whose print has diacritics the zone cannot show.
    if card_type != "vn.national_id" {
        let zone_names: Vec<Reading> = readings.iter().filter(|r| r.source == Source::Mrz && r.field.ends_with("name") && r.check != Check::Failed && !r.overlong_line).cloned().collect();
        let printed_lines: Vec<&idv_vision::ocr::OcrLine> = std::iter::once(front.scan)
            .chain(back.map(|b| b.scan))
            .flat_map(|scan| match &scan.ocr {
                OcrOutcome::Lines(lines) => lines.iter().collect::<Vec<_>>(),
                OcrOutcome::NotPerformed(_) => Vec::new(),
            })
            .collect();
        for zone in zone_names {
            if readings.iter().any(|r| r.field == zone.field && r.source == Source::Printed) {
                continue;
            }
            let Some(spelled) = idv_cards::merge::printed_spelling_of_zone_name(&zone.value, printed_lines.iter().map(|l| l.text.as_str())) else { continue };
            let confidence = printed_lines.iter().find(|l| l.text.contains(&spelled)).map_or(0.0, |l| (l.confidence / 100.0).clamp(0.0, 1.0));
            readings.push(Reading::composed(&zone.field, spelled, confidence, Check::Weak));
        }
    }
    issue_dates_vouched_by_expiry(card_type, &mut readings, &every_reading);
    // An Aadhaar number no source gave whole, from the groups its two sides read around a
    // punch (`idv_cards::printed::number_from_groups`): Verhoeff-checked, as a printed
    // number is.
    if card_type == "in.aadhaar" && !readings.iter().any(|r| r.field == "id") {
        let views: Vec<&(idv_cards::printed::NumberGroups, f32)> = sides.iter().flat_map(|s| s.number_groups.iter()).collect();
        let groups: Vec<idv_cards::printed::NumberGroups> = views.iter().map(|v| v.0.clone()).collect();
        if let Some(id) = idv_cards::printed::number_from_groups(&groups) {
            // The least confidence of the lines whose groups are the number's.
            let of_number = |g: &idv_cards::printed::NumberGroups| g.iter().enumerate().all(|(k, x)| x.as_ref().is_none_or(|x| id.get(4 * k..4 * k + 4) == Some(x.as_str())));
            let confidence = views.iter().filter(|v| of_number(&v.0)).map(|v| v.1).fold(1.0, f32::min);
            // First of the printed readings, where the print gives the number.
            readings.insert(0, Reading::composed("id", id, confidence, Check::Strong));
        }
    }
    let mut merged = idv_cards::merge::merge(&readings);
    // An Aadhaar's `id_last4`, a CCCD's document number, from the card's number where
    // the code or zone that gives it was not read.
    idv_cards::merge::with_fields_of_id(card_type, &mut merged.fields);
    if card_type == "vn.national_id" {
        // One name form whichever source gave it (`idv_cards::vn_cccd::name_in_written_form`).
        for field in merged.fields.iter_mut().filter(|f| f.field == "name") {
            field.value = idv_cards::vn_cccd::name_in_written_form(&field.value);
        }
    }

    let signature = sides.iter().filter_map(|s| s.signature).find(|s| *s == Signature::Failed).or_else(|| sides.iter().find_map(|s| s.signature));
    let mrz_checks = sides.iter().find_map(|s| s.mrz_checks);
    let tampering = idv_cards::tampering::assess(&idv_cards::tampering::Evidence {
        qr_signature: match signature {
            Some(Signature::Verified) => Some(true),
            Some(Signature::Failed) => Some(false),
            _ => None,
        },
        mrz_check_digits: mrz_checks,
        id_checksum: sides.iter().find_map(|s| s.printed_id_check),
        agreements: &merged.agreements,
        disagreements: &merged.disagreements,
        portrait,
    });
    let side_sanity: Vec<&CardSanity> = std::iter::once(&f).chain(b.as_ref()).filter_map(|side| side.sanity.as_ref()).collect();
    let sanity = card_sanity_of_sides(&side_sanity).or_else(|| f.sanity.clone());

    let mut not_performed: Vec<&'static str> = vec!["nfc"];
    if sides.iter().any(|s| s.ocr_not_performed) {
        not_performed.push("ocr");
    }
    if sides.iter().any(|s| s.mrz_not_performed) {
        not_performed.push("mrz");
    }

    // Failures, first match wins.
    let mut ids: Vec<String> = Vec::new();
    let mut last4s: Vec<String> = Vec::new();
    for s in &sides {
        for id in &s.ids {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        for l in &s.last4s {
            if !last4s.contains(l) {
                last4s.push(l.clone());
            }
        }
    }
    let anything_read = sides.iter().any(|s| s.anything_read);
    let best_other = f.other_type;
    let requested_score = f.types.iter().find(|(t, _)| *t == card_type).map_or(0.0, |(_, s)| *s);
    let failure: Option<(FailureCode, String)> = if let Located::Several(n) = front.scan.located {
        Some((FailureCode::NocardOrMulticardImage, format!("{n} cards in image1")))
    } else if matches!(back.map(|b| &b.scan.located), Some(Located::Several(_))) {
        Some((FailureCode::NocardOrMulticardImage, "several cards in image2".into()))
    } else if let [(first, a), (second, b), ..] = f.types.as_slice().iter().filter(|(_, s)| *s >= MULTICARD_TYPE_SCORE).copied().collect::<Vec<_>>().as_slice() {
        // The finder saw no two shapes (cards touching, or laid on another card), but
        // the text holds two card types, each strongly.
        Some((FailureCode::NocardOrMulticardImage, format!("image1 holds the text of two cards ({first} {a:.2}, {second} {b:.2})")))
    } else if front.scan.located == Located::NoCard
        && !anything_read
        && !f.ocr_not_performed
        && f.types.is_empty()
        && front.scan.qr_texts.is_empty()
        // A photo too dark or too bright to find a card in gets that answer instead (a
        // plain wall measures "blurred": no edges at all, which is what no card means).
        && !front.scan.sanity.as_ref().is_some_and(|s| matches!(s.verdict, CardSanityVerdict::ImageTooDark | CardSanityVerdict::ImageTooBright))
    {
        // No card shape, and the text (read) holds nothing card-like either: both must
        // agree, so a card the finder missed is still read, and a build without OCR
        // answers "not performed" rather than "no card".
        Some((FailureCode::NocardOrMulticardImage, "no card found in image1".into()))
    } else if let Some((other, score)) = best_other.filter(|(_, s)| *s >= OTHER_TYPE_SCORE && requested_score < REQUESTED_TYPE_SCORE) {
        Some((FailureCode::IncorrectCardType, format!("image1 looks like {other} (score {score:.2}), not {card_type}")))
    } else if let Some(refusal) = sides.iter().find_map(|s| s.mrz_refusal.clone().filter(|(c, _)| *c == FailureCode::IncorrectCardType)) {
        Some(refusal)
    } else if ids.len() > 1 || last4s.len() > 1 || ids.iter().any(|id| last4s.iter().any(|l| !id.ends_with(l.as_str()))) {
        Some((FailureCode::NocardOrMulticardImage, "the QR codes or the machine-readable zone belong to different cards".into()))
    } else if let Some(code) = sanity.as_ref().and_then(|s| sanity_failure(s.verdict)) {
        Some((code, format!("card sanity: {}", code.as_str())))
    } else if signature == Some(Signature::Failed) {
        Some((FailureCode::BadQualityCardImage, SIGNATURE_FAILED.into()))
    } else if merged.fields.is_empty() {
        if let Some(why) = sides.iter().find_map(|s| s.qr_invalid.clone()) {
            Some((FailureCode::BadQualityCardImage, why))
        } else if sides.iter().any(|s| s.qr_wrong_card) {
            Some((FailureCode::IncorrectCardType, format!("the QR code is not a {card_type} QR code")))
        } else if let Some(refusal) = sides.iter().find_map(|s| s.mrz_refusal.clone()) {
            Some(refusal)
        } else if sides.iter().all(|s| s.ocr_not_performed && !s.mrz_searched) {
            // Nothing that reads print ran: "not performed" below, not a bad image.
            None
        } else {
            Some((FailureCode::BadQualityCardImage, "no field of the card could be read".into()))
        }
    } else {
        None
    };
    // Nothing read, and the stage that would have read it is not in this build.
    let not_available = (failure.is_none() && merged.fields.is_empty()).then(|| {
        sides
            .iter()
            .find_map(|s| s.qr_unsupported.clone())
            .unwrap_or_else(|| format!("no {card_type} QR code could be read, and OCR is not in this build"))
    });
    // On a photo judged too blurred or too bright to read, a value nothing confirms is as
    // likely a misread as not (a blurred passport number read as another well-formed one,
    // an address cut short where glare washed it out): only values a check or a second
    // source vouches for (SURE) are given.
    // So is a photo in which no card was found (its whole photo read) whose print is
    // blurred: card sanity gives no verdict without a card, the measure still says.
    let blurred_without_card = std::iter::once(front.scan)
        .chain(back.map(|b| b.scan))
        .any(|scan| scan.photo_blur_sigma.is_some_and(|b| b.is_finite() && b >= NO_CARD_BLUR_SIGMA));
    // So is a card read soft (`crate::card::scan::SOFT_FROM_SIGMA`: a small photo
    // enlarged, sharp enough by card sanity, whose letters OCR misreads as other letters).
    let soft_side = std::iter::once(front.scan).chain(back.map(|b| b.scan)).any(|scan| scan.sanity.as_ref().is_some_and(crate::card::scan::reads_soft));
    // Too bright by a glare spot is not: the print away from the spot reads as well as
    // ever, and a value glare may have taken a word of is not given
    // (`glare_took_nothing`, on the flattened card's pixels), however much of the card
    // the spot saturates.
    // Nor is a card found and overexposed all over: each value is judged by its own
    // print and the paper beside it (`Lit::Overexposed`).
    let sides_scanned = || std::iter::once(front.scan).chain(back.map(|b| b.scan));
    let judged_by_pixels = sides_scanned().any(|scan| scan.flat.is_some() && scan.sanity.as_ref().is_some_and(|s| s.measures.glare_box.is_some()))
        || sides_scanned().all(|scan| scan.flat.is_some() || overexposed_photo(scan).is_some() || !scan.sanity.as_ref().is_some_and(|s| s.verdict == CardSanityVerdict::ImageTooBright));
    let unreadable = blurred_without_card
        || soft_side
        || sanity.as_ref().is_some_and(|s| match s.verdict {
            CardSanityVerdict::ImageTooBlur => true,
            CardSanityVerdict::ImageTooBright => !judged_by_pixels && idv_vision::card_sanity::overexposure(&s.measures) >= 0.5,
            _ => false,
        });
    // A blurred (or soft) card is read twice, from two deconvolutions (`SideScan::reread`): a value
    // both readings give (print, or a zone whose check digits pass) is no misread of one
    // of them, and is given, still `UNSURE` (two readings of one photo, not two sources).
    let read_twice = |f: &CardField| {
        sides.iter().flat_map(|s| s.reread.iter().chain(&s.zone_between_checks)).chain(&confirmed_by_print).any(|(field, value)| {
            // A CCCD's name in the form the merged one takes (above).
            *field == f.field && (*value == f.value || (card_type == "vn.national_id" && field == "name" && idv_cards::vn_cccd::name_in_written_form(value) == f.value))
        })
    };
    // On a card judged too blurred, a value its first reading read with every character
    // at high confidence is given too (`vouched_by_confidence`).
    let blurred_card = sanity.as_ref().is_some_and(|s| s.verdict == CardSanityVerdict::ImageTooBlur);
    // Gathered only for a blurred card: no other card's values are vouched so.
    let first_readings: Vec<&idv_vision::ocr::OcrLine> = sides_scanned()
        .filter(|_| blurred_card)
        .filter_map(|scan| match &scan.ocr {
            OcrOutcome::Lines(lines) => Some(lines),
            OcrOutcome::NotPerformed(_) => None,
        })
        .flatten()
        .collect();
    // Not a value whose own check failed (its merged score 0), nor one a later reading
    // read otherwise as confidently: two readings each sure of other letters vouch for
    // neither ("SRINTWAS JOSHI" and "SRINIVAS JOSHI" on the independent set's seed 30, a
    // blurred voter card). A later reading less sure of its letters leaves the first's
    // confidence standing for a word, not for a number of digits alone: a digit read
    // otherwise is a digit in doubt ("147058" at 0.95 and over, "149968" after it, for
    // the PIN 141058: seed 32's blurred Aadhaar).
    let later_readings: Vec<&idv_vision::ocr::OcrLine> = sides_scanned()
        .filter(|_| blurred_card)
        .flat_map(|scan| scan.reread.iter())
        .filter_map(|r| match &r.ocr {
            OcrOutcome::Lines(lines) => Some(lines),
            OcrOutcome::NotPerformed(_) => None,
        })
        .flatten()
        .collect();
    // Nor for a digit of a number with letters that a later reading read otherwise at
    // least as surely: an EPIC number's "OYQ0230196", its 9 at 0.95, and "OYQ0230136"
    // after it, its 3 at 0.99 (seed 31's blurred voter card, the later right); a later
    // digit read less surely leaves the number ("HDB6411644", its 6 at 0.95, after
    // "HDB6411844", its 8 at 0.99: seed 24, the first right). Where either reading's
    // confidences cannot be found, the digit read otherwise voids it.
    let digits_only = |v: &str| v.chars().any(|c| c.is_ascii_digit()) && !v.chars().any(char::is_alphabetic);
    let digits_of = |v: &str| v.chars().filter(char::is_ascii_digit).collect::<String>();
    let digit_read_as_surely = |first: &str, later: &str| {
        let scores = |value: &str, lines: &[&idv_vision::ocr::OcrLine]| lines.iter().find_map(|l| idv_cards::printed::digit_confidences(value, &l.symbols));
        match (scores(first, &first_readings), scores(later, &later_readings)) {
            (Some(a), Some(b)) if a.len() == b.len() && first.chars().count() == later.chars().count() => {
                first.chars().zip(later.chars()).zip(a.iter().zip(&b)).any(|((x, y), (ca, cb))| x != y && (x.is_ascii_digit() || y.is_ascii_digit()) && cb >= ca)
            }
            _ => true,
        }
    };
    let read_otherwise = |f: &CardField| {
        sides.iter().flat_map(|s| s.reread.iter()).any(|(field, value)| {
            *field == f.field
                && *value != f.value
                && (digits_only(&f.value) || (digits_of(value) != digits_of(&f.value) && digit_read_as_surely(&f.value, value)) || vouched_by_confidence(card_type, value, &later_readings))
        })
    };
    let confident = |f: &CardField| blurred_card && f.confidence_score.is_some_and(|c| c > 0.0) && !read_otherwise(f) && vouched_by_confidence(card_type, &f.value, &first_readings);
    // And a gender its first reading read as a whole word, no reading reading the other
    // (`gender_word_read`).
    let gender_read_whole = |f: &CardField| {
        blurred_card
            && f.field == "gender"
            && !read_otherwise(f)
            && (gender_word_read(card_type, &f.value, &first_readings, &later_readings) || gender_code_read(card_type, &f.value, &first_readings, &later_readings))
    };
    // So is a voter card's relation its label's word names, read whole (`relation_word_read`).
    let relation_read_whole = |f: &CardField| blurred_card && f.field == "relation" && !read_otherwise(f) && relation_word_read(card_type, &f.value, &first_readings, &later_readings);
    // A number with letters (a PAN's, an EPIC's, a passport's) that no reading read as
    // printed, a glyph repaired into its shape: on such a photo the repair is a guess
    // both readings make alike ("IGEPAS258U" read twice, the S repaired to a 5 where an 8
    // was printed: the independent set's seed 28, a blurred PAN). Only a source that
    // vouches for it (SURE) gives it.
    let repaired_into_shape = |f: &CardField| {
        f.field == "id"
            && f.value.chars().any(|c| c.is_ascii_alphabetic())
            // Not a number a code or a zone gave with its check passing (seed 26's blurred
            // passport: "S3886215", its check digit holding, printed "S3686215").
            && !sides.iter().any(|s| s.ids.contains(&f.value))
            && !sides_scanned().any(|scan| match &scan.ocr {
                OcrOutcome::Lines(lines) => lines.iter().any(|l| read_as_printed(&f.value, &l.text)),
                OcrOutcome::NotPerformed(_) => false,
            })
    };
    let card_information = if unreadable {
        merged.fields.into_iter().filter(|f| f.confidence_verdict == Some(idv_cards::ConfidenceVerdict::Sure) || ((read_twice(f) || confident(f) || gender_read_whole(f) || relation_read_whole(f)) && !repaired_into_shape(f))).collect()
    } else {
        merged.fields
    };
    CardReading {
        image1: f.json,
        image2: b.map_or(Value::Null, |b| b.json),
        card_information,
        failure,
        not_available,
        sanity,
        tampering,
        not_performed,
    }
}

#[cfg(test)]
mod sanity_tests {
    use super::*;
    use idv_vision::card_sanity::CardMeasures;
    use CardSanityVerdict::*;

    fn side(verdict: CardSanityVerdict, score: f32) -> CardSanity {
        let measures = CardMeasures { blur_sigma: 0.3, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        CardSanity { verdict, score, details: Vec::new(), measures }
    }

    /// The page reading a card's zone names line with its first word's first letter
    /// fewer ("THAKUR<<KARTHIK…" beside "OTHAKUR<<KARTHIK…", seed 32): one of the two
    /// read a mark as a letter. Must-fail twins: the same reading, another word, or a
    /// first word shorter by three letters, is no such doubt.
    #[test]
    fn a_zone_names_line_the_page_read_with_a_first_letter_fewer_is_doubted() {
        let names = "OTHAKUR<<KARTHIK<<<<<<<<<<<<<<";
        assert!(super::first_letters_fewer(names, "THAKUR<<KARTHIK<<<<<K<<<<<<<<<y"));
        assert!(super::first_letters_fewer(names, "HAKUR << KARTHIK <<<"));
        assert!(!super::first_letters_fewer(names, "OTHAKUR<<KARTHIK<<<<<<<<<<<<<<"));
        assert!(!super::first_letters_fewer(names, "THAKUR<<KARTIK<<<<"));
        assert!(!super::first_letters_fewer(names, "KUR<<KARTHIK<<<<"));
        assert!(!super::first_letters_fewer("DAS<<SURESH<<<<<<<<<<<<<<<<<<<", "S<<SURESH"));
    }

    /// A zone line read a character short beside a cut corner on the left may have lost
    /// its first letters; beside one on the right (seed 33's passport), its end's
    /// fillers. Must-fail twins: no cut, or a line read whole, lost nothing.
    #[test]
    fn a_zone_line_read_short_lost_its_start_only_beside_a_cut_on_the_left() {
        let (short, fitted) = ("P<INDAGARWAL<<RAJESH<KUMAR<<<", "P<INDAGARWAL<<RAJESH<KUMAR<<<<");
        assert!(super::start_cut_short(Some([0.0, 845.0, 120.0, 90.0]), short, fitted));
        assert!(!super::start_cut_short(Some([1200.0, 845.0, 120.0, 90.0]), short, fitted));
        assert!(!super::start_cut_short(None, short, fitted));
        assert!(!super::start_cut_short(Some([0.0, 845.0, 120.0, 90.0]), fitted, fitted));
    }

    #[test]
    fn a_hole_on_one_side_and_a_cut_on_the_other_is_both() {
        let verdict = |sides: &[CardSanity]| card_sanity_of_sides(&sides.iter().collect::<Vec<_>>()).map(|s| (s.verdict, s.score));
        assert_eq!(verdict(&[side(ImageHasHole, 0.3), side(ImageHasCut, 0.1)]), Some((ImageHasHoleAndCut, 0.1)));
        assert_eq!(verdict(&[side(Good, 1.0), side(ImageHasCut, 0.2)]), Some((ImageHasCut, 0.2)));
        assert_eq!(verdict(&[side(ImageHasHole, 0.2), side(ImageHasHole, 0.1)]), Some((ImageHasHole, 0.2)));
        // The first issue still wins when it is not a hole or a cut.
        assert_eq!(verdict(&[side(ImageTooBlur, 0.1), side(ImageHasCut, 0.2)]), Some((ImageTooBlur, 0.1)));
        assert_eq!(verdict(&[side(Good, 1.0), side(Good, 0.9)]), None);
    }

    /// A side whose holes and cuts were not judged (a scanned front) and a side on a table.
    #[test]
    fn one_sides_hole_and_cut_judgement_stands_for_the_other() {
        let unjudged = || CardSanity { verdict: Incomplete, score: 1.0, details: vec![(ImageTooBlur, 0.0), (ImageTooDark, 0.0), (ImageTooBright, 0.1)], measures: side(Good, 1.0).measures };
        let judged = |hole: f32, cut: f32| CardSanity { details: vec![(ImageTooBlur, 0.0), (ImageTooDark, 0.0), (ImageTooBright, 0.0), (ImageHasHole, hole), (ImageHasCut, cut)], ..side(Good, 1.0) };
        // The back shows neither: the card is good, with the back's judgements.
        let s = card_sanity_of_sides(&[&unjudged(), &judged(0.05, 0.2)]).expect("a merged sanity");
        assert_eq!((s.verdict, s.not_performed()), (Good, vec![]));
        assert!((s.score - 0.8).abs() < 1e-6, "{s:?}");
        // A back with its cut not judged either (a corner outside the photo): incomplete.
        let mut no_cut = judged(0.0, 0.0);
        no_cut.details.pop();
        no_cut.verdict = Incomplete;
        let s = card_sanity_of_sides(&[&unjudged(), &no_cut]).expect("a sanity");
        assert_eq!((s.verdict, s.not_performed()), (Incomplete, vec![ImageHasCut]));
        // Only one side: incomplete as it is, the checks named.
        assert_eq!(card_sanity_of_sides(&[&unjudged()]).map(|s| s.verdict), Some(Incomplete));
        assert_eq!(sanity_json(&unjudged())["not_performed"], json!(["hole", "cut"]));
        assert_eq!(sanity_json(&unjudged())["verdict"], "incomplete");
        assert!(sanity_json(&judged(0.0, 0.0)).get("not_performed").is_none());
        // A side with an issue wins over an incomplete one.
        assert_eq!(card_sanity_of_sides(&[&unjudged(), &side(ImageHasHole, 0.2)]).map(|s| s.verdict), Some(ImageHasHole));
    }
}

#[cfg(test)]
mod print_tests {
    use super::*;
    use crate::card::scan::{Located, MrzOutcome, OcrOutcome, SecondReading, SideScan};
    use idv_vision::card_sanity::CardMeasures;
    use idv_vision::ocr::{OcrLine, TextBox};

    /// A CCCD front read from print alone (lines 50 px apart from y = 40, x 300–900),
    /// with the given card sanity.
    fn cccd_front_scan(sanity: Option<CardSanity>) -> SideScan {
        let text = [
            "CĂN CƯỚC CÔNG DÂN",
            "Citizen Identity Card",
            "Số / No.: 079090001234",
            "Họ và tên / Full name:",
            "NGUYỄN VĂN AN",
            "Ngày sinh / Date of birth: 01/01/1990",
            "Giới tính / Sex: Nam   Quốc tịch / Nationality: Việt Nam",
        ];
        let lines = text
            .iter()
            .enumerate()
            .map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 95.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() })
            .collect();
        SideScan {
            photo_width: 1200,
            photo_height: 760,
            upload_scale: 1.0,
            located: Located::FillsFrame,
            flat: None,
            sanity,
            qr_texts: Vec::new(),
            ocr: OcrOutcome::Lines(lines),
            mrz: MrzOutcome::NotSearched,
            photo_blur_sigma: None,
            photo_glare_box: None,
            photo_exposure: None,
            reread: Vec::new(),
            noisy: false,
            photo_page: None,
            as_photographed: None,
        }
    }

    /// A passport's printed date of issue is vouched for by the zone's checked expiry it
    /// leads to; must-fail twins: an expiry that does not follow, a zone expiry whose
    /// check digit is not known to pass, another card type.
    #[test]
    fn a_passports_issue_date_is_vouched_for_by_the_checked_expiry() {
        let reading = |source: Source, field: &str, value: &str, check: Check| Reading { source, field: field.into(), value: value.into(), confidence: 0.8, check, digits: None, overlong_line: false, print_case_unknown: false };
        let readings = |expiry: &str, check: Check| vec![reading(Source::Mrz, "expiry_date", expiry, check), reading(Source::Printed, "issue_date", "06/08/2023", Check::Weak)];
        let issue_check = |card_type: &str, mut r: Vec<Reading>| {
            issue_dates_vouched_by_expiry(card_type, &mut r, &[]);
            r.iter().find(|r| r.field == "issue_date").map(|r| r.check)
        };
        assert_eq!(issue_check("in.passport", readings("05/08/2033", Check::Strong)), Some(Check::Strong));
        assert_eq!(issue_check("in.passport", readings("05/08/2028", Check::Strong)), Some(Check::Strong));
        assert_eq!(issue_check("in.passport", readings("05/08/2032", Check::Strong)), Some(Check::Weak));
        assert_eq!(issue_check("in.passport", readings("05/08/2033", Check::Weak)), Some(Check::Weak));
        assert_eq!(issue_check("in.passport", readings("05/08/2033", Check::Failed)), Some(Check::Weak));
        assert_eq!(issue_check("in.national_id", readings("05/08/2033", Check::Strong)), Some(Check::Weak));
        // A date of issue on or after the checked expiry is none (the expiry taken under
        // the label); must-fail twin: an expiry whose check digit is not known to pass.
        assert_eq!(issue_check("in.passport", readings("06/08/2023", Check::Strong)), None);
        assert_eq!(issue_check("in.passport", readings("05/08/2023", Check::Strong)), None);
        assert_eq!(issue_check("in.passport", readings("06/08/2023", Check::Weak)), Some(Check::Weak));
        // Merged, the vouched date is SURE, the other UNSURE.
        let mut vouched = readings("05/08/2033", Check::Strong);
        issue_dates_vouched_by_expiry("in.passport", &mut vouched, &[]);
        let merged = idv_cards::merge::merge(&vouched);
        let verdict = |m: &idv_cards::merge::Merged| m.fields.iter().find(|f| f.field == "issue_date").and_then(|f| f.confidence_verdict);
        assert_eq!(verdict(&merged), Some(idv_cards::ConfidenceVerdict::Sure));
        assert_eq!(verdict(&idv_cards::merge::merge(&readings("05/08/2032", Check::Strong))), Some(idv_cards::ConfidenceVerdict::Unsure));
        // No printed date of issue parsed (its label lost to blur, seed 26): the page's
        // date the checked expiry follows from, SURE; must-fail twins: an expiry whose
        // check digit is not known to pass, a page with no such date.
        let line = |text: &str| OcrLine { text: text.into(), confidence: 88.0, bbox: TextBox { x: 400, y: 570, width: 560, height: 57 }, symbols: Vec::new(), words: Vec::new() };
        let page = [line("Ser ae —"), line("14/08/2020 13/08/2030"), line("INDIAN ne F —-2.a/12/2965")];
        let page: Vec<&OcrLine> = page.iter().collect();
        let from_page = |expiry: &str, check: Check| {
            let mut r = vec![reading(Source::Mrz, "expiry_date", expiry, check)];
            issue_dates_vouched_by_expiry("in.passport", &mut r, &page);
            idv_cards::merge::merge(&r).fields.into_iter().find(|f| f.field == "issue_date").map(|f| (f.value, f.confidence_verdict, f.confidence_score))
        };
        assert_eq!(from_page("13/08/2030", Check::Strong), Some(("14/08/2020".into(), Some(idv_cards::ConfidenceVerdict::Sure), Some(0.88))));
        assert_eq!(from_page("13/08/2030", Check::Weak), None);
        assert_eq!(from_page("12/08/2030", Check::Strong), None);
    }

    fn read_front(scan: &SideScan) -> CardReading {
        let front = SideInput { id: None, scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
        read_card("vn.national_id", Codec::of("vn.national_id", None), &front, None, None, 2026)
    }

    fn value<'a>(reading: &'a CardReading, field: &str) -> Option<&'a str> {
        reading.card_information.iter().find(|f| f.field == field).map(|f| f.value.as_str())
    }

    /// A photo scaled down at decode (`upload_scale` 2) or read whole at another width
    /// than its own: `card_box` and, with no card found, the `ocr.raw` boxes are the
    /// upload's pixels; with a card, the boxes stay the flattened card's.
    #[test]
    fn positions_are_given_in_the_uploads_pixels() {
        use idv_vision::card_box::{CardQuad, Point};
        let quad = CardQuad::from_corners([Point::new(100.0, 50.0), Point::new(1100.0, 60.0), Point::new(1090.0, 690.0), Point::new(110.0, 680.0)]);
        let first_box = |r: &CardReading| {
            let b = &r.image1["ocr"]["raw"][0]["bounding_box"];
            [b[0]["x"].as_f64(), b[0]["y"].as_f64(), b[2]["x"].as_f64(), b[2]["y"].as_f64()].map(|v| v.unwrap_or(f64::NAN))
        };
        // A card found in a photo the decoder halved: its corners doubled; the text
        // boxes are the flattened card's (300, 40)-(900, 70) as read.
        let mut found = cccd_front_scan(None);
        (found.photo_width, found.photo_height, found.upload_scale) = (2000, 1500, 2.0);
        (found.located, found.flat) = (Located::Card(quad), Some(idv_vision::RgbImage::new(1200, 757)));
        let r = read_front(&found);
        assert_eq!(r.image1["card_box"]["top_right"]["x"].as_f64(), Some(2200.0), "{}", r.image1["card_box"]);
        assert_eq!(r.image1["card_box"]["bottom_left"]["y"].as_f64(), Some(1360.0));
        assert_eq!(first_box(&r), [300.0, 40.0, 900.0, 70.0]);
        // No card in the same photo: read whole at 1600 px wide (the photo 2000 decoded,
        // 4000 uploaded), so its boxes are 2.5 times the page's.
        let mut whole = cccd_front_scan(None);
        (whole.photo_width, whole.photo_height, whole.upload_scale, whole.located) = (2000, 1500, 2.0, Located::NoCard);
        let r = read_front(&whole);
        assert!(r.image1["card_box"].is_null());
        assert_eq!(first_box(&r), [750.0, 100.0, 2250.0, 175.0]);
        // A small photo read whole at the flattened width: its boxes shrink back.
        (whole.photo_width, whole.photo_height, whole.upload_scale) = (800, 600, 1.0);
        let small = first_box(&read_front(&whole));
        let expected = [300.0, 40.0, 900.0, 70.0].map(|v: f64| v * 800.0 / 1200.0);
        assert!(small.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-3), "{small:?}: 800 / 1200 of the page");
    }

    /// A number's shape vouches for it beside a hole or cut only as read (`refused_printed`):
    /// known answers, and must-fail twins where a character was repaired into the shape.
    #[test]
    fn a_number_is_read_as_printed_only_without_repairs_but_o_for_0() {
        assert!(read_as_printed("LJY0938053", "LJY 0938053"));
        assert!(read_as_printed("LFNPN0216D", "LFNPNO216D"));
        assert!(read_as_printed("LJY0938053", "Lj y0938053 IN"));
        assert!(!read_as_printed("LJI0938053", "Lj 10938053"));
        assert!(!read_as_printed("LENPN0216D", "LENPNO2Z16D"));
    }

    #[test]
    fn a_value_read_across_a_punched_hole_is_not_given() {
        let holed = |hole_box: [f32; 4]| {
            let measures = CardMeasures { blur_sigma: 0.3, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.004, corner_coverage: 1.0, hole_box: Some(hole_box), glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
            Some(CardSanity { verdict: CardSanityVerdict::ImageHasHole, score: 0.2, details: vec![(CardSanityVerdict::ImageHasHole, 0.8)], measures })
        };
        // A hole through the name's line (y 240–270): the name is not given, but shown.
        let reading = read_front(&cccd_front_scan(holed([560.0, 236.0, 600.0, 276.0])));
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        assert!(reading.image1["ocr"]["parsed"].to_string().contains("NGUYỄN VĂN AN"), "{}", reading.image1["ocr"]);
        assert_eq!(value(&reading, "dob"), Some("01/01/1990"));
        // A hole through the number's line (y 140–170): its check still holds, so it stays.
        let reading = read_front(&cccd_front_scan(holed([860.0, 136.0, 890.0, 166.0])));
        assert_eq!(value(&reading, "id"), Some("079090001234"), "{:?}", reading.card_information);
        // A hole away from the print: every value is given.
        let reading = read_front(&cccd_front_scan(holed([1000.0, 600.0, 1040.0, 640.0])));
        assert_eq!(value(&reading, "name"), Some("Nguyễn Văn An"), "{:?}", reading.card_information);
    }

    #[test]
    fn a_value_read_into_a_cut_corner_is_not_given() {
        let cut = |cut_corner: [f32; 4]| {
            let measures = CardMeasures { blur_sigma: 0.3, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 0.1, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: Some(cut_corner) };
            Some(CardSanity { verdict: CardSanityVerdict::ImageHasCut, score: 0.2, details: vec![(CardSanityVerdict::ImageHasCut, 0.9)], measures })
        };
        // The top left corner cut 600 px along either side (750 grown): the lines starting
        // at x 300 down to y 450 reach into it. The name is not given, but shown; the
        // number's and the date's checks still hold, so they stay.
        let reading = read_front(&cccd_front_scan(cut([0.0, 0.0, 600.0, 600.0])));
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        assert!(reading.image1["ocr"]["parsed"].to_string().contains("NGUYỄN VĂN AN"), "{}", reading.image1["ocr"]);
        assert_eq!(value(&reading, "id"), Some("079090001234"), "{:?}", reading.card_information);
        assert_eq!(value(&reading, "dob"), Some("01/01/1990"), "a date read whole vouches for itself");
        // A date read with a one-digit day there is a real day, but may have lost its
        // first digit to the cut ("5/02/1976" of 03/02/1976, seed 18): not given.
        let mut short_day = cccd_front_scan(cut([0.0, 0.0, 600.0, 600.0]));
        if let OcrOutcome::Lines(lines) = &mut short_day.ocr {
            lines[5].text = "Ngày sinh / Date of birth: 1/01/1990".into();
        }
        let reading = read_front(&short_day);
        assert_eq!(value(&reading, "dob"), None, "{:?}", reading.card_information);
        // Nor anywhere else: the card prints "01/01/1990", so a one-digit day lost a digit
        // (`idv_cards::printed::extract_date`); a day read whole is given.
        let mut uncut = cccd_front_scan(None);
        if let OcrOutcome::Lines(lines) = &mut uncut.ocr {
            lines[5].text = "Ngày sinh / Date of birth: 1/01/1990".into();
        }
        assert_eq!(value(&read_front(&uncut), "dob"), None, "no cut: a digit lost all the same");
        if let OcrOutcome::Lines(lines) = &mut uncut.ocr {
            lines[5].text = "Ngày sinh / Date of birth: 01/01/1990".into();
        }
        assert_eq!(value(&read_front(&uncut), "dob"), Some("01/01/1990"), "no cut: as read");
        // The bottom right corner cut 400 px each way: no line reaches it.
        let reading = read_front(&cccd_front_scan(cut([1200.0, 760.0, 400.0, 400.0])));
        assert_eq!(value(&reading, "name"), Some("Nguyễn Văn An"), "{:?}", reading.card_information);
        assert_eq!(value(&reading, "dob"), Some("01/01/1990"));
    }

    /// A father's name starting at the print's left margin beside a cut bottom-left
    /// corner (seed 19's PAN: its label above at x 43, the name at x 38, the cut reaching
    /// x 34 at the capitals' foot) lost nothing to the cut. Must-fail: the name read from
    /// its second word (its first lost to the cut: right of the margin), a deeper cut
    /// reaching past its first letter, no line above starting at its column, a cut on the
    /// right.
    #[test]
    fn a_value_at_the_margin_beside_a_cut_corner_lost_nothing() {
        let sanity = |cut_corner: [f32; 4]| {
            let measures = CardMeasures { blur_sigma: 0.2, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 6.0, luma_p10: 90.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 0.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: Some(cut_corner) };
            CardSanity { verdict: CardSanityVerdict::ImageHasCut, score: 0.0, details: vec![(CardSanityVerdict::ImageHasCut, 1.0)], measures }
        };
        let label = worded_line(&[("ftet", 43), ("Father's", 186), ("Name", 297)], 546);
        let mut name = worded_line(&[("ABHISHEK", 38), ("NATH", 286), ("QURESHI", 414)], 598);
        // The first word's box takes in the cut's edge below it.
        name.words[0].bbox.height = 53;
        name.bbox.height = 53;
        let judge = |cut: [f32; 4], value: &str, name: &OcrLine, label: &OcrLine| {
            let lines = vec![label.clone(), name.clone()];
            let corner = cut_off(Some(&sanity(cut))).expect("a cut");
            assert!(reaches_into(&name.bbox, corner), "the name's box reaches into the grown cut");
            starts_at_margin_clear_of_cut(Some(&sanity(cut)), value, &[&lines[1]], &lines)
        };
        let seed_19 = [0.0, 757.0, 152.5, 166.4];
        assert!(judge(seed_19, "ABHISHEK NATH QURESHI", &name, &label));
        let mut second_word_on = worded_line(&[("NATH", 70), ("QURESHI", 198)], 598);
        second_word_on.bbox.height = 53;
        assert!(!judge(seed_19, "NATH QURESHI", &second_word_on, &label), "right of the margin");
        assert!(!judge([0.0, 757.0, 200.0, 220.0], "ABHISHEK NATH QURESHI", &name, &label), "the cut reaches its first letter");
        let elsewhere = worded_line(&[("Signature", 660)], 546);
        assert!(!judge(seed_19, "ABHISHEK NATH QURESHI", &name, &elsewhere), "no line above starts at its column");
        // The same geometry mirrored to a right corner is not judged so.
        let right = sanity([1200.0, 757.0, 152.5, 166.4]);
        let lines = vec![label.clone(), name.clone()];
        assert!(!starts_at_margin_clear_of_cut(Some(&right), "ABHISHEK NATH QURESHI", &[&lines[1]], &lines));

        // An address under a cut top-left corner (seed 24's voter card back): its label
        // in the cut, its first line's value clear of it, its last line at the margin
        // that the card's next line, below it, starts at. Must-fail: no line at that
        // margin; the next line starting elsewhere.
        let top_left = [0.0, 0.0, 159.4, 158.1];
        let address = "House No. 182, Main Road, Mumbai, Mumbai Suburban, Maharashtra";
        let first = worded_line(&[("y/", 101), ("Address", 115), (":", 269), ("House", 287), ("No.", 394), ("182,", 456), ("Main", 530), ("Road,", 614), ("Mumbai,", 707)], 67);
        let last = worded_line(&[("Mumbai", 66), ("Suburban,", 201), ("Maharashtra", 369)], 116);
        let judge = |next: Option<OcrLine>| {
            let lines: Vec<OcrLine> = [Some(first.clone()), Some(last.clone()), next].into_iter().flatten().collect();
            assert!(reaches_into(&last.bbox, cut_off(Some(&sanity(top_left))).expect("a cut")), "the last line reaches into the grown cut");
            starts_at_margin_clear_of_cut(Some(&sanity(top_left)), address, &[&lines[0], &lines[1]], &lines)
        };
        assert!(judge(Some(worded_line(&[("Assembly", 63), ("Constituency", 191)], 199))));
        assert!(!judge(None), "no line at the margin");
        assert!(!judge(Some(worded_line(&[("Assembly", 120), ("Constituency", 248)], 199))), "the next line starts elsewhere");
    }

    #[test]
    fn a_value_read_beside_a_glare_spot_is_not_given() {
        let glared = |glare_box: [f32; 4], glare_share: f32, clipped_share: f32| {
            let measures = CardMeasures { blur_sigma: 0.3, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share, glare_box: Some(glare_box), solid_saturated_share: 0.0, cut_corner: None };
            Some(CardSanity { verdict: CardSanityVerdict::ImageTooBright, score: 0.3, details: vec![(CardSanityVerdict::ImageTooBright, 0.7)], measures })
        };
        // A spot just past the end of the name's line (x 300–900, y 240–270), where the
        // rest of the name was washed out: the name is not given, but shown; the lines
        // above and below it are.
        let reading = read_front(&cccd_front_scan(glared([940.0, 245.0, 980.0, 265.0], 0.02, 0.05)));
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        assert!(reading.image1["ocr"]["parsed"].to_string().contains("NGUYỄN VĂN AN"), "{}", reading.image1["ocr"]);
        assert_eq!(value(&reading, "dob"), Some("01/01/1990"), "{:?}", reading.card_information);
        assert_eq!(reading.failure.as_ref().map(|f| f.0), Some(FailureCode::ImageTooBright));
        // A spot away from the print: too bright by its glare, yet every value is given
        // (UNSURE as ever), not only the SURE ones.
        let reading = read_front(&cccd_front_scan(glared([1000.0, 600.0, 1060.0, 660.0], 0.02, 0.05)));
        assert_eq!(value(&reading, "name"), Some("Nguyễn Văn An"), "{:?}", reading.card_information);
        assert_eq!(reading.failure.as_ref().map(|f| f.0), Some(FailureCode::ImageTooBright));
        // The same spot on a card overexposed all over (half its pixels clipped): only
        // SURE values, as before glare spots were measured.
        let reading = read_front(&cccd_front_scan(glared([1000.0, 600.0, 1060.0, 660.0], 0.02, 0.5)));
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
    }

    /// `scan`'s lines with word boxes as Tesseract gives them (18 px a character, 10 px
    /// between words, confidence 95), on a flattened card of paper at luminance 200
    /// with `white` saturated (a glare spot's core).
    fn on_glared_card(mut scan: SideScan, white: [u32; 4]) -> SideScan {
        let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("cccd_front_scan reads lines") };
        for line in lines.iter_mut() {
            let mut x = line.bbox.x;
            line.words = line
                .text
                .split(' ')
                .map(|w| {
                    let width = 18 * w.chars().count() as u32;
                    let word = idv_vision::ocr::TsvWord { bbox: TextBox { x, y: line.bbox.y, width, height: line.bbox.height }, confidence: Some(95.0), chars: w.chars().count() };
                    x += width + 10;
                    word
                })
                .collect();
            line.bbox.width = x - 10 - line.bbox.x;
        }
        let [x0, y0, x1, y1] = white;
        scan.flat = Some(image::RgbImage::from_fn(1200, 760, |x, y| image::Rgb([if (x0..x1).contains(&x) && (y0..y1).contains(&y) { 255 } else { 200 }; 3])));
        scan
    }

    /// On a flattened card, the pixels beside a value say whether a glare spot could
    /// have taken a word of it: paper lit white just past the name's end could hide its
    /// last word (not given); the same spot at the card's corner hides none (given, on a
    /// card whose spot saturates half of it, which the spot's box alone would refuse
    /// every UNSURE value of); a date is whole by its form whatever is beside it; a word
    /// read with little confidence beside glare is not given.
    #[test]
    fn a_value_beside_a_glare_spot_is_given_where_the_paper_beside_it_shows() {
        let glared = |glare_box: [f32; 4]| {
            let measures = CardMeasures { blur_sigma: 0.3, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 255.0, clipped_share: 0.5, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.05, glare_box: Some(glare_box), solid_saturated_share: 0.0, cut_corner: None };
            Some(CardSanity { verdict: CardSanityVerdict::ImageTooBright, score: 0.3, details: vec![(CardSanityVerdict::ImageTooBright, 0.9)], measures })
        };
        // The name "NGUYỄN VĂN AN" is read at x 300-556, y 240-270; the date's line ends
        // at x 944 (y 290-320).
        let past_name = [560, 230, 700, 280];
        let reading = read_front(&on_glared_card(cccd_front_scan(glared([560.0, 230.0, 700.0, 280.0])), past_name));
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        assert_eq!(value(&reading, "dob"), Some("01/01/1990"), "{:?}", reading.card_information);
        assert_eq!(reading.failure.as_ref().map(|f| f.0), Some(FailureCode::ImageTooBright));
        let corner = [1000, 600, 1200, 760];
        let reading = read_front(&on_glared_card(cccd_front_scan(glared([1000.0, 600.0, 1200.0, 760.0])), corner));
        assert_eq!(value(&reading, "name"), Some("Nguyễn Văn An"), "{:?}", reading.card_information);
        // Without the card's pixels (the same spot and overexposure), only SURE values.
        assert_eq!(value(&read_front(&cccd_front_scan(glared([1000.0, 600.0, 1200.0, 760.0]))), "name"), None);
        // White just past the date: the date is given, as whole by its form.
        let past_date = [946, 280, 1100, 330];
        let reading = read_front(&on_glared_card(cccd_front_scan(glared([946.0, 280.0, 1100.0, 330.0])), past_date));
        assert_eq!(value(&reading, "dob"), Some("01/01/1990"), "{:?}", reading.card_information);
        // A mark read right after the name (its last word faded into a stroke), the spot
        // at the corner: not given.
        let mut scan = cccd_front_scan(glared([1000.0, 600.0, 1200.0, 760.0]));
        let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("lines") };
        lines[4].text = "NGUYỄN VĂN AN |".into();
        let scan = on_glared_card(scan, corner);
        assert_eq!(value(&read_front(&scan), "name"), None);
        // A word of the name read with confidence 40, the spot at the corner: not given.
        let mut scan = on_glared_card(cccd_front_scan(glared([1000.0, 600.0, 1200.0, 760.0])), corner);
        let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("lines") };
        lines[4].words[1].confidence = Some(40.0);
        assert_eq!(value(&read_front(&scan), "name"), None);
        // What glare left of a next word, read as a "letter" a third of the name's height
        // ("VÕ BẢO ï", the independent set's seed 27): not given; the same word at the
        // name's height is a word, and the name is judged as before (given).
        let with_next_word = |height: u32| {
            let mut scan = cccd_front_scan(glared([1000.0, 600.0, 1200.0, 760.0]));
            let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("lines") };
            lines[4].text = "NGUYỄN VĂN AN ï".into();
            let mut scan = on_glared_card(scan, corner);
            let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("lines") };
            lines[4].words[3].bbox.height = height;
            read_front(&scan)
        };
        assert_eq!(value(&with_next_word(10), "name"), None);
        assert_eq!(value(&with_next_word(30), "name"), Some("Nguyễn Văn An"));
        // A stroke glued to the name's last word ("VENKATESH K\" for "VENKATESH KUMAR
        // YADAV"): not given; a period there (an initial's) is no stroke.
        let glued = |last: &str| {
            let mut scan = cccd_front_scan(glared([1000.0, 600.0, 1200.0, 760.0]));
            let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("lines") };
            lines[4].text = format!("NGUYỄN VĂN {last}");
            read_front(&on_glared_card(scan, corner))
        };
        assert_eq!(value(&glued("AN\\"), "name"), None, "{:?}", glued("AN\\").image1["ocr"]);
        assert_eq!(value(&glued("AN|"), "name"), None);
        let initial = glued("AN.");
        assert!(value(&initial, "name").is_some(), "{:?}", initial.card_information);
    }

    /// A card overexposed all over whose saturated region is found as a "spot" covering
    /// it whole (seed 28's voter back, its box the whole card): judged as overexposed,
    /// each value by its own print (black strokes on clipped paper: given). Must-fail: a
    /// spot of a third of the card beside the name is a spot, and the clipped paper past
    /// the name could hide a word of it (not given).
    #[test]
    fn a_spot_covering_an_overexposed_card_is_its_overexposure() {
        let with_spot = |spot: [f32; 4]| {
            let measures = CardMeasures { blur_sigma: 0.1, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 32.0, luma_p10: 251.0, luma_p90: 255.0, clipped_share: 0.9, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: Some(spot), solid_saturated_share: 0.9, cut_corner: None };
            let bright = CardSanity { verdict: CardSanityVerdict::ImageTooBright, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBright, 1.0)], measures };
            let mut scan = on_glared_card(cccd_front_scan(Some(bright)), [0, 0, 0, 0]);
            let OcrOutcome::Lines(lines) = &scan.ocr else { unreachable!("cccd_front_scan reads lines") };
            let words: Vec<TextBox> = lines.iter().flat_map(|l| l.words.iter().map(|w| w.bbox)).collect();
            scan.flat = Some(image::RgbImage::from_fn(1200, 760, |x, y| {
                let word = words.iter().any(|b| (b.x..b.right()).contains(&x) && (b.y + 4..b.bottom() - 4).contains(&y) && x % 4 == 0);
                image::Rgb([if word { 12 } else { 255 }; 3])
            }));
            value(&read_front(&scan), "name").map(str::to_string)
        };
        assert_eq!(with_spot([0.0, 8.0, 1192.0, 752.0]), Some("Nguyễn Văn An".into()));
        assert_eq!(with_spot([560.0, 200.0, 960.0, 500.0]), None, "a spot beside the name");
        // A broad reflection across 70 % of the card (seed 25's Aadhaar) is a spot too.
        assert_eq!(with_spot([0.0, 176.0, 1200.0, 704.0]), None, "a broad reflection");
    }

    /// A two-line Indian address with glare washing the paper out after its second line
    /// (the independent set's seed 9, a voter card's back): ending with its state, it
    /// lost nothing there; the same address stopping at a city could have lost words
    /// (not judged whole). The first line's "below" is its second line, read.
    #[test]
    fn an_address_ending_with_its_state_lost_nothing_to_glare_after_it() {
        let line = |text: &str, y: u32| {
            let mut x = 60;
            let words: Vec<idv_vision::ocr::TsvWord> = text
                .split(' ')
                .map(|w| {
                    let width = 18 * w.chars().count() as u32;
                    let word = idv_vision::ocr::TsvWord { bbox: TextBox { x, y, width, height: 30 }, confidence: Some(95.0), chars: w.chars().count() };
                    x += width + 10;
                    word
                })
                .collect();
            OcrLine { text: text.into(), confidence: 95.0, bbox: TextBox { x: 60, y, width: x - 70, height: 30 }, symbols: Vec::new(), words }
        };
        let judge = |second: &str, value: &str| {
            let lines = vec![line("Address : House No. 378, Main Road,", 70), line(second, 118)];
            // Paper washed to white right of the second line's end, and below it.
            let end = lines[1].bbox.right();
            let card = image::RgbImage::from_fn(1200, 760, |x, y| image::Rgb([if x > end + 4 && (111..400).contains(&y) || (160..400).contains(&y) { 255 } else { 200 }; 3]));
            let f = PrintedField { field: "address", value: value.into(), confidence: 0.95, check: FieldCheck::NotApplicable, lines: vec![0, 1] };
            glare_took_nothing(&card, Lit::Spot { paper: 200.0 }, &f, &lines)
        };
        assert!(judge("Mumbai Suburban, Maharashtra", "House No. 378, Main Road, Mumbai Suburban, Maharashtra"));
        assert!(!judge("Mumbai Suburban, Andheri", "House No. 378, Main Road, Mumbai Suburban, Andheri"));
    }

    /// A gender printed as its one-letter code at a glare spot's edge (the independent
    /// set's seed 14, a national identity card: "M" under "Sex", the paper left of it
    /// washed white): whole by its form. Must-fail: a gender word ("MALE", whose "FE"
    /// glare may have taken) in the same place is not judged whole, nor a one-letter
    /// code read with little confidence. Paper washed after a gender word takes nothing
    /// of it; after a name, it may have.
    #[test]
    fn a_one_letter_gender_beside_glare_is_whole() {
        let card = image::RgbImage::from_fn(1200, 760, |x, _| image::Rgb([if x < 700 { 255 } else { 200 }; 3]));
        let judge = |word: &str, confidence: f32| {
            let mut line = worded_line(&[(word, 711)], 376);
            line.words[0].confidence = Some(confidence);
            let f = PrintedField { field: "gender", value: "M".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
            glare_took_nothing(&card, Lit::Spot { paper: 200.0 }, &f, &[line])
        };
        assert!(judge("M", 93.0));
        assert!(!judge("MALE", 93.0));
        assert!(!judge("M", 40.0));
        // Washed after the word only ("Male" at the spot's left edge, an Aadhaar of seed
        // 12): a gender word loses its meaning only at its start.
        let card = image::RgbImage::from_fn(1200, 760, |x, _| image::Rgb([if x > 800 { 255 } else { 200 }; 3]));
        let f = PrintedField { field: "gender", value: "M".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        assert!(glare_took_nothing(&card, Lit::Spot { paper: 200.0 }, &f, &[worded_line(&[("/", 690), ("MALE", 711)], 376)]));
        let name = PrintedField { field: "name", value: "ARJUN".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        assert!(!glare_took_nothing(&card, Lit::Spot { paper: 200.0 }, &name, &[worded_line(&[("/", 690), ("ARJUN", 711)], 376)]), "a name may have lost a word after it");
    }

    /// A name ending with the family name a parent's name on its side ends with too (the
    /// independent set's seed 37, a PAN: "MEENA MISHRA" and "DEEPAK MISHRA", the paper
    /// after both washed white) lost nothing after it; washed before its first word, it
    /// may still have lost one there. Must-fail: the same name on its own.
    #[test]
    fn a_name_ending_with_a_shared_family_name_lost_nothing_after_it() {
        let name = PrintedField { field: "name", value: "MEENA MISHRA".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        let line = worded_line(&[("MEENA", 300), ("MISHRA", 420)], 376);
        let washed_after = image::RgbImage::from_fn(1200, 760, |x, _| image::Rgb([if x > 560 { 255 } else { 200 }; 3]));
        assert!(glare_took_nothing_ending(&washed_after, Lit::Spot { paper: 200.0 }, &name, std::slice::from_ref(&line), true));
        assert!(!glare_took_nothing_ending(&washed_after, Lit::Spot { paper: 200.0 }, &name, std::slice::from_ref(&line), false));
        let washed_before = image::RgbImage::from_fn(1200, 760, |x, _| image::Rgb([if x < 290 { 255 } else { 200 }; 3]));
        assert!(!glare_took_nothing_ending(&washed_before, Lit::Spot { paper: 200.0 }, &name, std::slice::from_ref(&line), true));
    }

    /// A one-letter gender code read right after its label beside a glare spot (seeds 16
    /// and 17's voter cards: "Sex: M" at confidence 58, "Sex. F" at 39, both right) is
    /// given at a lower confidence than other words. Must-fail: the same code with no
    /// label before it, a gender word after its label, or a code read at 20.
    #[test]
    fn a_gender_code_after_its_label_beside_glare_is_read_at_a_lower_confidence() {
        let card = image::RgbImage::from_fn(1200, 760, |x, _| image::Rgb([if x < 380 { 255 } else { 200 }; 3]));
        let judge = |words: &[(&str, u32)], value: &str, confidence: f32| {
            let mut line = worded_line(words, 376);
            if let Some(last) = line.words.last_mut() {
                last.confidence = Some(confidence);
            }
            let f = PrintedField { field: "gender", value: value.into(), confidence: 0.5, check: FieldCheck::NotApplicable, lines: vec![0] };
            glare_took_nothing(&card, Lit::Spot { paper: 200.0 }, &f, &[line])
        };
        assert!(judge(&[("Sex:", 400), ("M", 480)], "M", 58.0));
        assert!(judge(&[("Sex.", 400), ("F", 480)], "F", 39.0));
        assert!(judge(&[("Sex", 400), (":", 460), ("F", 480)], "F", 39.0));
        assert!(judge(&[("Gender:", 400), ("F", 540)], "F", 39.0));
        assert!(!judge(&[("/", 400), ("F", 480)], "F", 39.0), "no label before it");
        assert!(!judge(&[("Sex:", 400), ("FEMALE", 480)], "F", 39.0), "a word, not a code");
        assert!(!judge(&[("Sex:", 400), ("M", 480)], "M", 20.0));
        assert!(judge(&[("/", 400), ("F", 480)], "F", 93.0), "a code read clear needs no label");
    }

    /// On a card overexposed all over (its paper clipped everywhere, seed 16's PAN), a
    /// name is judged by its own print and the paper beside it: black strokes with
    /// clipped paper around them are given. Must-fail: the name's last word's strokes
    /// faded to grey (the flash's hotspot reaching it), grey strokes of a faded word
    /// just after it, or a word read with little confidence.
    #[test]
    fn a_value_on_an_overexposed_card_is_judged_by_its_own_print() {
        let line = worded_line(&[("ARJUN", 300), ("KUMAR", 420)], 376);
        let name = PrintedField { field: "name", value: "ARJUN KUMAR".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        // Clipped paper, with strokes (every fourth column of a box's middle rows) of the
        // given luma in each box.
        let card_with = |strokes: &[(u32, u32, u8)]| {
            image::RgbImage::from_fn(1200, 760, |x, y| {
                let ink = strokes.iter().find(|&&(x0, x1, _)| (x0..x1).contains(&x) && x % 4 == 0 && (380..402).contains(&y)).map(|s| s.2);
                image::Rgb([ink.unwrap_or(255); 3])
            })
        };
        let judge = |card: &image::RgbImage, line: &OcrLine| glare_took_nothing(card, Lit::Overexposed, &name, std::slice::from_ref(line));
        assert!(judge(&card_with(&[(300, 390, 12), (420, 510, 12)]), &line));
        // Its last word faded grey, the light rising across it toward a hotspot (from 85
        // on its left half to 150 on its right): a word after it would be fainter still,
        // lost to the paper; the value may have lost it.
        assert!(!judge(&card_with(&[(300, 390, 12), (420, 465, 85), (465, 510, 150)]), &line), "its last word fading toward a hotspot");
        // Faded evenly (a flash lighting the card all over, seed 36's voter card at 165):
        // a word after it would show as well on the darkened copy, and none is there.
        assert!(judge(&card_with(&[(300, 390, 12), (420, 510, 150)]), &line), "faded evenly");
        assert!(!judge(&card_with(&[(300, 390, 12), (420, 510, 150), (530, 580, 235)]), &line), "faint print after it");
        // Lifted a little toward the hotspot (seed 29's "MAHESH ANSARI", its last word at
        // luma 60): whole; lifted as a word that lost the next, fading across it (85 and
        // more, seed 26's "LÝ MINH"): not.
        assert!(judge(&card_with(&[(300, 390, 12), (420, 510, 60)]), &line));
        assert!(!judge(&card_with(&[(300, 390, 12), (420, 465, 90), (465, 510, 150)]), &line), "its last word lifted as one beside a lost word");
        // A word between two others lifted as far: no word could be lost beside it (seed
        // 28's voter address, its second line's first words at 52-59 under the first's).
        let three = worded_line(&[("ARJUN", 300), ("KUMAR", 420), ("YADAV", 540)], 376);
        let three_name = PrintedField { value: "ARJUN KUMAR YADAV".into(), ..name.clone() };
        let judge_three = |card: &image::RgbImage| glare_took_nothing(card, Lit::Overexposed, &three_name, std::slice::from_ref(&three));
        assert!(judge_three(&card_with(&[(300, 390, 12), (420, 510, 120), (540, 630, 12)])));
        assert!(!judge_three(&card_with(&[(300, 390, 12), (420, 510, 12), (540, 585, 120), (585, 630, 180)])), "its last word lifted, fading");
        // Faded print left of the value (the card's edge, a table's sliver): refused,
        // unless the value starts at the margin of its label right above it (a PAN's
        // father's name under "Father's Name", seed 29), which says nothing was lost there.
        // A bracket read right before it (") Rani Ansari" for "Bhavana Rani Ansari", seed
        // 25): what glare left of a word; a label's colon there is the label's.
        for (mark, given) in [(")", false), ("|", false), (":", true), ("/", true)] {
            let marked = worded_line(&[(mark, 270), ("ARJUN", 300), ("KUMAR", 420)], 376);
            assert_eq!(judge(&card_with(&[(300, 390, 12), (420, 510, 12)]), &marked), given, "{mark}");
        }
        let speck = card_with(&[(240, 280, 150), (300, 390, 12), (420, 510, 12)]);
        assert!(!judge(&speck, &line), "faded print before it");
        let label = worded_line(&[("Name", 300)], 330);
        assert!(glare_took_nothing(&speck, Lit::Overexposed, &PrintedField { lines: vec![1], ..name.clone() }, &[label.clone(), line.clone()]));
        let off_margin = worded_line(&[("Name", 340)], 330);
        assert!(!glare_took_nothing(&speck, Lit::Overexposed, &PrintedField { lines: vec![1], ..name.clone() }, &[off_margin, line.clone()]), "a label off the value's margin");
        assert!(!judge(&card_with(&[(300, 390, 12), (420, 510, 12), (530, 580, 190)]), &line), "a faded word after it");
        let mut unsure = line.clone();
        unsure.words[1].confidence = Some(40.0);
        assert!(!judge(&card_with(&[(300, 390, 12), (420, 510, 12)]), &unsure));
        // The same card judged as one with a glare spot would refuse the name: the paper
        // beside it is clipped.
        assert!(!glare_took_nothing(&card_with(&[(300, 390, 12), (420, 510, 12)]), Lit::Spot { paper: 200.0 }, &name, std::slice::from_ref(&line)));
    }

    /// A name with a word the engine read at confidence 0 ("PNESH SHAH", seed 37) is a
    /// guess and not given; must-fail twins: the same word at 5 (seed 24's "NITIN
    /// CHAUHAN", every word of its line read at about 5, right), a date so read.
    #[test]
    fn a_name_word_read_at_no_confidence_is_a_guess() {
        let mut line = worded_line(&[("PNESH", 359), ("SHAH", 530)], 260);
        line.words[0].confidence = Some(0.0);
        let name = PrintedField { field: "name", value: "PNESH SHAH".into(), confidence: 0.47, check: FieldCheck::NotApplicable, lines: vec![0] };
        assert!(name_word_guessed(&name, &[&line]));
        assert!(name_word_guessed(&PrintedField { field: "father_name", ..name.clone() }, &[&line]));
        line.words[0].confidence = Some(5.0);
        assert!(!name_word_guessed(&name, &[&line]), "read at 5");
        let mut date = worded_line(&[("12/03/1990", 359)], 260);
        date.words[0].confidence = Some(0.0);
        assert!(!name_word_guessed(&PrintedField { field: "dob", value: "12/03/1990".into(), ..name.clone() }, &[&date]));
    }

    /// A place on a card overexposed all over, read from its darkened copy: one of its
    /// words faded to light grey may have lost the comma after it (seed 37's "Lotus
    /// Enclave Station Road", "Enclave" at luma 204), so the place is not given; faded
    /// less (150), its commas show and it is. A word ending with a comma read right
    /// before it ("'R, RAJASTHAN", seed 29's passport, "JAIPUR" washed to its last
    /// letter) is the place's own lost start; a label's colon there is the label's.
    #[test]
    fn a_place_on_an_overexposed_card_is_given_only_where_its_commas_show() {
        let card_with = |strokes: &[(u32, u32, u8)]| {
            image::RgbImage::from_fn(1200, 760, |x, y| {
                let ink = strokes.iter().find(|&&(x0, x1, _)| (x0..x1).contains(&x) && x % 4 == 0 && (380..402).contains(&y)).map(|s| s.2);
                image::Rgb([ink.unwrap_or(255); 3])
            })
        };
        let place = PrintedField { field: "place_of_birth", value: "JAIPUR, RAJASTHAN".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        let line = worded_line(&[("JAIPUR,", 300), ("RAJASTHAN", 440)], 376);
        let judge = |second_word_ink: u8| glare_took_nothing(&card_with(&[(300, 426, 12), (440, 602, second_word_ink)]), Lit::Overexposed, &place, std::slice::from_ref(&line));
        assert!(judge(12));
        assert!(judge(150), "faded, its commas still showing");
        assert!(!judge(204), "faded to light grey");
        // The same faded word in a name: no comma to lose.
        let name = PrintedField { field: "name", value: "ARJUN KUMAR".into(), ..place.clone() };
        let name_line = worded_line(&[("ARJUN", 300), ("KUMAR", 420)], 376);
        let ink_at_edges = card_with(&[(300, 390, 12), (420, 510, 12)]);
        assert!(glare_took_nothing(&ink_at_edges, Lit::Overexposed, &name, std::slice::from_ref(&name_line)));
        // A word ending with a comma before the place.
        let rajasthan = PrintedField { value: "RAJASTHAN".into(), ..place.clone() };
        let card = card_with(&[(250, 286, 12), (300, 462, 12)]);
        for (before, given) in [("'R,", false), ("Birth:", true)] {
            let line = worded_line(&[(before, 250), ("RAJASTHAN", 300)], 376);
            assert_eq!(glare_took_nothing(&card, Lit::Overexposed, &rajasthan, std::slice::from_ref(&line)), given, "{before}");
        }
    }

    /// A card on white paper overexposed all over (seed 19's PAN): its edges wash out
    /// with the paper, no card is found, and the whole photo is read. Its values are
    /// judged by their own print in that photo as on a flattened card: black strokes
    /// with clipped paper around them are given. Must-fail: the name's last word faded
    /// grey (a hotspot reaching it), or the photo's pixels not kept, give only SURE
    /// values (none here).
    #[test]
    fn a_card_overexposed_on_white_paper_and_not_found_is_judged_by_the_photo() {
        let measures = CardMeasures { blur_sigma: 0.1, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 32.0, luma_p10: 251.0, luma_p90: 255.0, clipped_share: 0.9, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.02, cut_corner: None };
        let not_found = || {
            let bright = CardSanity { verdict: CardSanityVerdict::ImageTooBright, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBright, 1.0)], measures: measures.clone() };
            SideScan { flat: None, located: Located::NoCard, ..on_glared_card(cccd_front_scan(Some(bright)), [0, 0, 0, 0]) }
        };
        let scan = not_found();
        let OcrOutcome::Lines(lines) = &scan.ocr else { unreachable!("cccd_front_scan reads lines") };
        let words: Vec<TextBox> = lines.iter().flat_map(|l| l.words.iter().map(|w| w.bbox)).collect();
        // "AN", the name's last word (line 4).
        let last_name_word = lines[4].words.last().map(|w| w.bbox);
        let photo_with = |faded: Option<TextBox>| {
            image::RgbImage::from_fn(1200, 760, |x, y| {
                let word = words.iter().find(|b| (b.x..b.right()).contains(&x) && (b.y + 4..b.bottom() - 4).contains(&y) && x % 4 == 0);
                // The faded word lifted from 120 to 220 across it, toward a hotspot.
                image::Rgb([word.map_or(255, |b| if Some(*b) == faded { (120 + 100 * (x - b.x) / b.width.max(1)) as u8 } else { 12 }); 3])
            })
        };
        let given = |page: Option<image::RgbImage>| {
            let reading = read_front(&SideScan { photo_page: page, ..not_found() });
            assert_eq!(reading.failure.as_ref().map(|f| f.0), Some(FailureCode::ImageTooBright));
            (value(&reading, "name").map(str::to_string), value(&reading, "dob").map(str::to_string))
        };
        assert_eq!(given(Some(photo_with(None))), (Some("Nguyễn Văn An".into()), Some("01/01/1990".into())));
        assert_eq!(given(Some(photo_with(last_name_word))), (None, Some("01/01/1990".into())), "the name's last word faded");
        assert_eq!(given(None), (None, None), "no pixels kept: only SURE values");
        // The photo's saturated region covering it whole (a card on white paper, seed
        // 19's voter back) is its overexposure: judged so. A spot over the name is a
        // spot: the name beside it is not given.
        let with_spot = |spot: [f32; 4]| {
            let reading = read_front(&SideScan { photo_page: Some(photo_with(None)), photo_glare_box: Some(spot), ..not_found() });
            value(&reading, "name").map(str::to_string)
        };
        assert_eq!(with_spot([0.0, 0.0, 1200.0, 760.0]), Some("Nguyễn Văn An".into()));
        assert_eq!(with_spot([500.0, 200.0, 700.0, 300.0]), None);
    }

    /// A value over two lines with a gap on one (seed 16's Aadhaar address: glare
    /// washed "Govt. School, Kot" out, a speck read "(" 260 px before "hrud,") lost
    /// what was printed in the gap; the same lines spaced as print are whole.
    #[test]
    fn a_gap_inside_a_value_over_lines_is_something_lost() {
        let first = worded_line(&[("Address:", 63), ("Temple", 230), ("Road,", 350)], 309);
        let gapped = worded_line(&[("Behind", 64), ("(", 180), ("hrud,", 441), ("Pune", 541)], 363);
        let value = "Temple Road, Behind ( hrud, Pune";
        assert!(gap_in_lines(value, &[&first, &gapped]));
        let whole = worded_line(&[("Behind", 64), ("Govt.", 180), ("School,", 290), ("Pune", 430)], 363);
        assert!(!gap_in_lines("Temple Road, Behind Govt. School, Pune", &[&first, &whole]));
    }

    /// A line of `words`, each at its x (18 px a character, 30 high) on row `y`.
    /// [`glare_took_nothing_ending`] for a value whose end is not known.
    fn glare_took_nothing(card: &image::RgbImage, lit: Lit, f: &PrintedField, lines: &[idv_vision::ocr::OcrLine]) -> bool {
        glare_took_nothing_ending(card, lit, f, lines, false)
    }

    fn worded_line(words: &[(&str, u32)], y: u32) -> OcrLine {
        let boxes: Vec<idv_vision::ocr::TsvWord> = words
            .iter()
            .map(|(w, x)| idv_vision::ocr::TsvWord { bbox: TextBox { x: *x, y, width: 18 * w.chars().count() as u32, height: 30 }, confidence: Some(95.0), chars: w.chars().count() })
            .collect();
        let text = words.iter().map(|(w, _)| *w).collect::<Vec<_>>().join(" ");
        let (left, right) = (words.first().map_or(0, |w| w.1), boxes.last().map_or(0, |b| b.bbox.right()));
        OcrLine { text, confidence: 95.0, bbox: TextBox { x: left, y, width: right - left, height: 30 }, symbols: Vec::new(), words: boxes }
    }

    /// An Aadhaar number's groups around a punch (the independent set's seed 30: the
    /// front "4328 7479 x0", the back "4328 709 9140"); must-fail twins: a group the punch
    /// crosses though read as four digits, a line with one group whole, a VID's run of
    /// four groups.
    #[test]
    fn an_aadhaar_numbers_groups_are_read_around_a_punch() {
        let groups = |g: [Option<&str>; 3]| -> idv_cards::printed::NumberGroups { g.map(|x| x.map(str::to_string)) };
        let front = worded_line(&[("4328", 134), ("7479", 330), ("x0", 560)], 600);
        let punch = Some((600.0, 620.0, 40.0));
        assert_eq!(aadhaar_number_groups(&[front.clone()], punch, None), vec![(groups([Some("4328"), Some("7479"), None]), 0.95)]);
        let back = worded_line(&[("4328", 313), ("709", 510), ("9140", 700)], 600);
        assert_eq!(aadhaar_number_groups(&[back], Some((560.0, 620.0, 45.0)), None), vec![(groups([Some("4328"), None, Some("9140")]), 0.95)]);
        // The punch on the second group, read as four digits all the same: not taken.
        let crossed = worded_line(&[("4328", 134), ("7479", 330), ("x0", 560)], 600);
        assert_eq!(aadhaar_number_groups(&[crossed], Some((380.0, 620.0, 40.0)), None), vec![]);
        assert_eq!(aadhaar_number_groups(&[worded_line(&[("4328", 134), ("x9", 330), ("x0", 560)], 600)], punch, None), vec![]);
        assert_eq!(aadhaar_number_groups(&[worded_line(&[("VID", 40), ("9134", 134), ("5678", 330), ("1234", 500), ("5678", 650)], 600)], None, None), vec![]);
        // A whole number is no view of one in part.
        assert_eq!(aadhaar_number_groups(&[worded_line(&[("4328", 134), ("7479", 330), ("9140", 560)], 600)], None, None), vec![]);
    }

    /// A label read into a cut corner (the independent set's seed 10, a voter back cut
    /// top left) took nothing of the value after it; what was read after a value stays
    /// part of where it was read.
    #[test]
    fn a_values_place_leaves_out_the_label_before_it() {
        let address = worded_line(&[("Address", 63), (":", 200), ("4-3-64,", 230), ("Tilak", 370), ("Marg", 480)], 84);
        let boxes = value_boxes("4-3-64, Tilak Marg", &[&address]);
        assert_eq!(boxes, vec![TextBox { x: 230, y: 84, width: 480 + 72 - 230, height: 30 }]);
        // The cut's corner and legs, grown (`cut_off`): the label reaches into it, the value not.
        let corner = [0.0, 0.0, 199.0, 187.0];
        assert!(reaches_into(&address.bbox, corner) && !reaches_into(&boxes[0], corner));
        // A mark read after the value is kept in its place.
        let marked = worded_line(&[("BHAVANA", 300), ("SINGH", 450), ("a", 700)], 300);
        assert_eq!(value_boxes("BHAVANA SINGH", &[&marked]), vec![marked.bbox]);
        // Not one read far past any lost word ("VIKRAM MUKHERJEE y", seed 17: a mark in a
        // cut corner 22 heights off).
        let far = worded_line(&[("BHAVANA", 300), ("SINGH", 450), ("y", 1182)], 300);
        assert_eq!(value_boxes("BHAVANA SINGH", &[&far]), vec![TextBox { x: 300, y: 300, width: 450 + 90 - 300, height: 30 }]);
        // Without word boxes, the line's box.
        let bare = OcrLine { words: Vec::new(), ..address.clone() };
        assert_eq!(value_boxes("4-3-64, Tilak Marg", &[&bare]), vec![address.bbox]);
    }

    /// A punch is judged as the disk it is: a name printed clear above it (the
    /// independent set's seed 10, a PAN: 14 px above the disk, inside its box grown by a
    /// quarter) is not crossed; a line through it, or its rim, is.
    #[test]
    fn a_punch_is_a_disk() {
        let measures = CardMeasures { blur_sigma: 0.3, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.008, corner_coverage: 1.0, hole_box: Some([62.8, 529.6, 164.2, 630.7]), glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let sanity = CardSanity { verdict: CardSanityVerdict::ImageHasHole, score: 0.2, details: vec![(CardSanityVerdict::ImageHasHole, 0.9)], measures };
        let hole = punched_hole(Some(&sanity)).expect("a hole judged");
        let name = TextBox { x: 51, y: 484, width: 290, height: 31 };
        assert!(crosses(&name, grown([62.8, 529.6, 164.2, 630.7], 0.25)), "the grown box would take it");
        assert!(!crosses_disk(&name, hole));
        assert!(crosses_disk(&TextBox { x: 53, y: 593, width: 367, height: 31 }, hole), "through the punch");
        assert!(crosses_disk(&TextBox { x: 170, y: 570, width: 200, height: 30 }, hole), "at its rim");
        assert!(!crosses_disk(&TextBox { x: 190, y: 570, width: 200, height: 30 }, hole));
        // A punch under a line whose box it touches (seed 30's PAN: the disk 1 px into the
        // mother's name's box) took nothing; one a third of the line's height into it did.
        let under = CardSanity { measures: CardMeasures { hole_box: Some([275.12, 613.95, 355.67, 690.64]), ..sanity.measures.clone() }, ..sanity.clone() };
        let punch = punched_hole(Some(&under)).expect("a hole judged");
        assert!(!crosses_disk(&TextBox { x: 55, y: 584, width: 271, height: 29 }, punch));
        assert!(crosses_disk(&TextBox { x: 55, y: 594, width: 271, height: 29 }, punch));
        assert!(crosses_disk(&TextBox { x: 55, y: 588, width: 271, height: 29 }, punch), "4 px into it");
    }

    /// A blurred Indian card's gender read as a whole word by the first reading is given;
    /// must-fail twins: a one-letter code, a word read a letter off ("Famaie"), a reading
    /// with a word of the other gender, a CCCD.
    #[test]
    fn a_gender_read_as_a_whole_word_on_a_blurred_card() {
        let l = |text: &str| OcrLine { text: text.into(), confidence: 70.0, bbox: TextBox { x: 0, y: 0, width: 10, height: 10 }, symbols: Vec::new(), words: Vec::new() };
        let (female, male, garbled) = (l("fam / Gender : afar / Female"), l("kv / Gender : gow / Male"), l("fan) Gender. aifet/ Famaie"));
        assert!(gender_word_read("in.voter", "F", &[&female], &[&garbled]));
        assert!(gender_word_read("in.aadhaar", "M", &[&l("पुरुष / MALE")], &[]));
        assert!(gender_word_read("in.aadhaar", "F", &[&l("au Female")], &[]));
        assert!(!gender_word_read("in.voter", "F", &[&garbled], &[&female]), "the first reading read no whole word");
        assert!(!gender_word_read("in.voter", "M", &[&l("Sex : M")], &[]), "a code");
        assert!(!gender_word_read("in.voter", "F", &[&female], &[&male]), "a later reading read the other");
        assert!(!gender_word_read("in.voter", "M", &[&male], &[&l("Gender : Femaie")]), "the other, a letter off");
        assert!(!gender_word_read("in.voter", "M", &[&female], &[]), "not the value's word");
        assert!(!gender_word_read("vn.national_id", "M", &[&l("Giới tính / Sex: Nam")], &[]));
    }

    /// Seed 29's blurred voter card: "Sex: M", its M at 100, the second reading "Sex:".
    /// Must-fail twins: the letter read unsure, no label before it, a later reading
    /// reading the other code or word, another country's card.
    #[test]
    fn a_gender_code_read_surely_after_its_label_on_a_blurred_card() {
        let l = |text: &str, last: f32| {
            let mut symbols: Vec<(char, f32)> = text.chars().filter(|c| !c.is_whitespace()).map(|c| (c, 99.0)).collect();
            if let Some(s) = symbols.last_mut() {
                s.1 = last;
            }
            OcrLine { text: text.into(), confidence: 70.0, bbox: TextBox { x: 0, y: 0, width: 10, height: 10 }, symbols, words: Vec::new() }
        };
        let (sex_m, dropped) = (l("Sex: M", 100.0), l("Sex:", 99.0));
        assert!(gender_code_read("in.voter", "M", &[&sex_m], &[&dropped]));
        assert!(gender_code_read("in.voter", "F", &[&l("fer / Gender : F", 97.0)], &[]));
        assert!(!gender_code_read("in.voter", "M", &[&l("Sex: M", 90.0)], &[]), "read unsure");
        assert!(!gender_code_read("in.voter", "M", &[&l("OF INDIA M", 100.0)], &[]), "no label");
        assert!(!gender_code_read("in.voter", "M", &[&sex_m], &[&l("Sex: F", 80.0)]), "the other code");
        assert!(!gender_code_read("in.voter", "M", &[&sex_m], &[&l("Gender Female", 80.0)]), "the other word");
        assert!(!gender_code_read("in.voter", "F", &[&sex_m], &[]), "not the value's code");
        assert!(!gender_code_read("vn.national_id", "M", &[&sex_m], &[]));
    }

    /// Seed 26's blurred voter card: "Mother's Name" read whole by the first reading, the
    /// second garbling it ("jothver'4"). Must-fail twins: a word a letter off, a later
    /// reading naming another relation, a label naming two, another card type.
    #[test]
    fn a_relation_read_as_a_whole_word_on_a_blurred_card() {
        let l = |text: &str| OcrLine { text: text.into(), confidence: 70.0, bbox: TextBox { x: 0, y: 0, width: 10, height: 10 }, symbols: Vec::new(), words: Vec::new() };
        let (mother, garbled) = (l("w &r 3m / Mother's Name _ KAVITA PATEL"), l("wet) ae a jothver'4 «arrie KAVITA PATEL"));
        assert!(relation_word_read("in.voter", "mother", &[&mother], &[&garbled]));
        assert!(relation_word_read("in.voter", "father", &[&l("FATHER’S NAME : AJAY JOSHI")], &[]));
        assert!(!relation_word_read("in.voter", "mother", &[&l("Mothar's Name : KAVITA PATEL")], &[]), "a letter off");
        assert!(!relation_word_read("in.voter", "mother", &[&mother], &[&l("Father's Name KAVITA PATEL")]), "a later reading named another");
        assert!(!relation_word_read("in.voter", "father", &[&l("Father's/Husband's Name : AJAY JOSHI")], &[]), "a label naming two");
        assert!(!relation_word_read("in.voter", "father", &[&mother], &[]), "not the value's word");
        assert!(!relation_word_read("in.pan", "father", &[&l("Father's Name")], &[]));
    }

    /// A punch after the word that says the gender took nothing of it; one on the word
    /// did (seed 11, a voter card punched after "Female").
    #[test]
    fn a_gender_is_judged_where_its_word_was_read() {
        let line = worded_line(&[("fert", 351), ("/", 440), ("Gender:", 470), ("afget", 620), ("/", 740), ("Female", 770), ("©", 1100)], 441);
        let boxes = gender_word_boxes("F", &[&line]);
        assert_eq!(boxes, vec![line.words[5].bbox]);
        let hole = (1120.0, 470.0, 40.0);
        assert!(!crosses_disk(&boxes[0], hole));
        assert!(crosses_disk(&line.bbox, hole), "the line's box reaches the punch");
        let cut = (760.0, 455.0, 40.0);
        assert!(crosses_disk(&boxes[0], cut));
        // No word says it: the line's box.
        let other = worded_line(&[("Sexo", 371), ("rE", 440)], 355);
        assert_eq!(gender_word_boxes("F", &[&other]), vec![other.bbox]);
    }

    /// A word of a value at the card's edge may have been cut by it; a word read two
    /// heights or more from the others is no part of the value (the chip beside a name).
    #[test]
    fn a_value_at_the_cards_edge_or_with_a_word_set_apart() {
        let line = |words: &[(&str, u32)]| worded_line(words, 300);
        // "Mukherje" ends at 1200, the card's width: cut; at 1150 it is whole.
        let relative = line(&[("Name:", 358), ("Prakash", 470), ("Singh", 606), ("Mukherje", 1056)]);
        assert!(runs_off_card(1200, "Prakash Singh Mukherje", &[&relative]));
        assert!(!runs_off_card(1250, "Prakash Singh Mukherje", &[&relative]));
        // A mark after the value reaches the edge, not the value.
        let dob = line(&[("28/09/1957", 40), ("Signature", 600), ("S", 1182)]);
        assert!(!runs_off_card(1200, "28/09/1957", &[&dob]));
        let left = line(&[("Anjali", 0), ("Bhatt", 130)]);
        assert!(runs_off_card(1200, "Anjali Bhatt", &[&left]));

        let name = line(&[("Anjali", 366), ("Bhatt", 490), ("Lax", 1026)]);
        assert_eq!(words_set_apart("Anjali Bhatt Lax", &name), Some(1));
        let close = line(&[("Anjali", 366), ("Bhatt", 490), ("Lax", 600)]);
        assert_eq!(words_set_apart("Anjali Bhatt Lax", &close), None);
        let f = PrintedField { field: "name", value: "Anjali Bhatt Lax".into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        assert_eq!(without_words_set_apart(&f, &[name.clone()]).map(|f| f.value), Some("Anjali Bhatt".to_string()));
        // Too little left before the gap: nothing to give (and `refused_printed` refuses it).
        let short = line(&[("Anjali", 366), ("Lax", 1026)]);
        let g = PrintedField { value: "Anjali Lax".into(), ..f.clone() };
        assert_eq!(without_words_set_apart(&g, &[short.clone()]), None);
        assert_eq!(words_set_apart("Anjali Lax", &short), Some(1));
        // A word off the row: the PAN's signature read after the father's name (seed 11:
        // "DINESH LAL MEHTA PAUCLS", the last word's box below the others and taller).
        let mut father = line(&[("DINESH", 50), ("LAL", 200), ("MEHTA", 290), ("PAUCLS", 420)]);
        father.words[3].bbox = TextBox { x: 420, y: 320, width: 200, height: 70 };
        assert_eq!(words_set_apart("DINESH LAL MEHTA PAUCLS", &father), Some(1));
        father.words[3].bbox = TextBox { x: 420, y: 300, width: 108, height: 62 };
        assert_eq!(words_set_apart("DINESH LAL MEHTA PAUCLS", &father), Some(1), "twice the row's height");
        // Must-fail twins: a taller word on the row (a capital after small letters), a
        // hyphen's short box before a word, a word a little low.
        father.words[3].bbox = TextBox { x: 420, y: 296, width: 108, height: 38 };
        assert_eq!(words_set_apart("DINESH LAL MEHTA PAUCLS", &father), None);
        // A punch over the word before the value (seed 12: "v@@imep Tiwari" for
        // "MOHAMMED TIWARI"): that word is the value's; a label's is not.
        let punched = line(&[("v@@imep", 44), ("Tiwari", 200)]);
        assert_eq!(word_before_value("Tiwari", &[&punched]).map(|b| b.x), Some(44));
        assert_eq!(word_before_value("v@@imep Tiwari", &[&punched]), None, "the value starts its line");
        let labelled = line(&[("Name:", 44), ("Tiwari", 200)]);
        assert_eq!(word_before_value("Tiwari", &[&labelled]), None);
        // A stroke across the value's last word, right after the word before it (seed
        // 12: "ABHISHEK CHANDRA MENTE", the signature over "MENON"): what is left is no
        // whole value. Beside the value, or no taller than a word, it is not.
        let mut crossed = line(&[("ABHISHEK", 55), ("CHANDRA", 220), ("MENTE", 360)]);
        crossed.words[2].bbox = TextBox { x: 360, y: 280, width: 199, height: 90 };
        assert_eq!(words_set_apart("ABHISHEK CHANDRA MENTE", &crossed), Some(1));
        assert!(crossed_after("ABHISHEK CHANDRA", &crossed));
        assert!(!crossed_after("ABHISHEK CHANDRA MENTE", &crossed), "nothing after the value");
        crossed.words[2].bbox.x = 340;
        assert!(crossed_after("ABHISHEK CHANDRA", &crossed), "touching the word before");
        crossed.words[2].bbox.x = 346 + 31;
        assert!(!crossed_after("ABHISHEK CHANDRA", &crossed), "more than a height after the word before");
        crossed.words[2].bbox = TextBox { x: 360, y: 296, width: 199, height: 60 };
        assert!(!crossed_after("ABHISHEK CHANDRA", &crossed), "no more than twice the value's height");
        father.words[3].bbox = TextBox { x: 420, y: 320, width: 200, height: 70 };
        assert!(!crossed_after("DINESH LAL MEHTA", &father), "a signature beside the value");
        // The stroke read as a line of its own (seed 35: "pO ah oe" at x 624, 78 px tall,
        // right after "SAXEN", 32 px, ending at 620; here 30 px, ending at 558).
        let name = line(&[("IMRAN", 49), ("CHANDRA", 219), ("SAXEN", 468)]);
        let mut stroke = line(&[("pO", 570), ("ah", 779)]);
        stroke.words[0].bbox = TextBox { x: 562, y: 298, width: 150, height: 78 };
        assert!(crossed_by_line_after("IMRAN CHANDRA SAXEN", 0, &[name.clone(), stroke.clone()]));
        // Must-fail twins: beside the value (further than half a height), off its row, no
        // taller than twice the value, before its start, and the value's own line.
        let mut twin = stroke.clone();
        twin.words[0].bbox.x = 558 + 16;
        assert!(!crossed_by_line_after("IMRAN CHANDRA SAXEN", 0, &[name.clone(), twin]), "beside the value");
        let mut twin = stroke.clone();
        twin.words[0].bbox.y = 400;
        assert!(!crossed_by_line_after("IMRAN CHANDRA SAXEN", 0, &[name.clone(), twin]), "off its row");
        let mut twin = stroke.clone();
        twin.words[0].bbox.height = 60;
        assert!(!crossed_by_line_after("IMRAN CHANDRA SAXEN", 0, &[name.clone(), twin]), "no more than twice its height");
        let mut twin = stroke.clone();
        twin.words[0].bbox.x = 20;
        assert!(!crossed_by_line_after("IMRAN CHANDRA SAXEN", 0, &[name.clone(), twin]), "a portrait's edge before it");
        assert!(!crossed_by_line_after("IMRAN CHANDRA SAXEN", 0, &[name.clone()]), "no other line");
        let mut part = line(&[("253", 50), ("-", 120), ("Govt.", 150), ("School", 260)]);
        part.words[1].bbox = TextBox { x: 120, y: 312, width: 12, height: 4 };
        assert_eq!(words_set_apart("253 - Govt. School", &part), None);
        part.words[3].bbox.y = 310;
        assert_eq!(words_set_apart("253 - Govt. School", &part), None);
    }

    #[test]
    fn a_values_words_are_found_on_its_lines() {
        let line = |text: &str| OcrLine { text: text.into(), confidence: 95.0, bbox: TextBox { x: 0, y: 0, width: 10, height: 10 }, symbols: Vec::new(), words: vec![idv_vision::ocr::TsvWord { bbox: TextBox { x: 0, y: 0, width: 10, height: 10 }, confidence: Some(95.0), chars: 1 }; text.split(' ').count()] };
        let (name, address, next) = (line("ama / Name: VENKATESH JOSHI"), line("Address : Flat 441, Lotus Enclave,"), line("Indore, Madhya Pradesh PIN"));
        assert_eq!(value_spans("VENKATESH JOSHI", &[&name]), Some(vec![(3, 5)]));
        assert_eq!(value_spans("Venkatesh Joshi", &[&name]), Some(vec![(3, 5)]), "case aside");
        assert_eq!(value_spans("JOSHI", &[&name]), Some(vec![(4, 5)]));
        // A value over two lines: the first's tail, the second's head.
        assert_eq!(value_spans("Flat 441, Lotus Enclave, Indore, Madhya Pradesh", &[&address, &next]), Some(vec![(2, 6), (0, 3)]));
        // One character in eight repaired is found; more, or a character added, is not.
        assert_eq!(value_spans("UMZ9510582", &[&line("EPIC UMZ951O582")]), Some(vec![(1, 2)]));
        assert_eq!(value_spans("UMZ9510582", &[&line("EPIC UMZ95IOS82")]), None);
        assert_eq!(value_spans("07/02/1971", &[&line("INDIAN 7/02/1971")]), None);
        // Lines without word boxes (read another way) are not judged.
        let bare = OcrLine { words: Vec::new(), ..name.clone() };
        assert_eq!(value_spans("VENKATESH JOSHI", &[&bare]), None);
        assert!(fixed_form("dob", "01/01/1990") && fixed_form("id", "UMZ9510582") && fixed_form("id", "079090001234"));
        assert!(!fixed_form("dob", "1/01/1990") && !fixed_form("id", "MZ9510582") && !fixed_form("name", "01/01/1990"));
        assert!(fixed_form("pin_code", "400041") && fixed_form("year_of_birth", "1992"));
        assert!(!fixed_form("pin_code", "40041") && !fixed_form("year_of_birth", "992") && !fixed_form("pin_code", "4000411"));
        assert!(fixed_form("age", "37") && !fixed_form("age", "12") && !fixed_form("age", "7") && !fixed_form("age", "103"));
    }

    /// A noisy card's second reading that closed a name's word gaps confirms it; one that
    /// read a letter otherwise does not.
    #[test]
    fn readings_that_differ_only_in_spaces_agree() {
        assert!(same_but_spaces("HARPREETSINGHDAS", "HARPREET SINGH DAS"));
        assert!(!same_but_spaces("HARPREET SINGH DAS", "HARPREET SINGH DAB"));
        assert!(!same_but_spaces("Jaipuy", "Jaipur"));
    }

    /// An address printed up to a cut corner on the card's right (seed 29's voter back,
    /// "…, Hyderabad, Telangana" against a top-right cut) that ends with its state lost
    /// nothing off its end. Must-fail: one that ends otherwise, one whose earlier line
    /// reaches into the cut (a word may be lost at that line's end), a cut on the left
    /// (it takes lines' starts), a field that is no place.
    #[test]
    fn a_place_ending_with_its_state_at_a_right_cut_is_whole() {
        let scan = on_glared_card(cccd_front_scan(None), [0, 0, 0, 0]);
        let address = |value: &str| PrintedField { field: "address", value: value.into(), confidence: 0.9, check: FieldCheck::NotApplicable, lines: vec![0] };
        let right_cut = [1200.0, 0.0, 150.0, 200.0];
        let at_cut = TextBox { x: 63, y: 76, width: 1066, height: 39 };
        let clear = TextBox { x: 63, y: 300, width: 400, height: 39 };
        assert!(ends_whole_at_cut(&scan, &address("House No. 199, Main Road, Ameerpet, Hyderabad, Telangana"), &[at_cut], right_cut));
        assert!(ends_whole_at_cut(&scan, &address("Flat 2, Main Road, Hyderabad, Telangana"), &[clear, at_cut], right_cut));
        assert!(!ends_whole_at_cut(&scan, &address("House No. 199, Main Road, Ameerpet, Hyderabad"), &[at_cut], right_cut));
        assert!(!ends_whole_at_cut(&scan, &address("Flat 2, Main Road, Hyderabad, Telangana"), &[at_cut, clear], right_cut), "an earlier line at the cut");
        assert!(!ends_whole_at_cut(&scan, &address("House No. 199, Main Road, Ameerpet, Hyderabad, Telangana"), &[at_cut], [0.0, 0.0, 150.0, 200.0]), "a left cut");
        let name = PrintedField { field: "name", ..address("Telangana") };
        assert!(!ends_whole_at_cut(&scan, &name, &[at_cut], right_cut), "no place");
    }

    /// A printed date of birth (or of issue) after the request's year is a misread, no
    /// source: not given, still shown in `ocr.parsed`.
    #[test]
    fn a_birth_date_after_the_requests_year_is_not_given() {
        let mut scan = cccd_front_scan(None);
        let OcrOutcome::Lines(lines) = &mut scan.ocr else { unreachable!("cccd_front_scan reads lines") };
        lines[5].text = "Ngày sinh / Date of birth: 01/01/2090".into();
        let reading = read_front(&scan);
        assert_eq!(value(&reading, "dob"), None, "{:?}", reading.card_information);
        assert_eq!(reading.image1["ocr"]["parsed"].as_array().map(|p| p.iter().any(|f| f["field"] == "dob" && f["value"] == "01/01/2090")), Some(true));
        assert_eq!(value(&read_front(&cccd_front_scan(None)), "dob"), Some("01/01/1990"));
    }

    /// A card the finder missed (a photo cut to a card turned under a degree) whose print
    /// was read: its card sanity is the whole photo's exposure checks, `incomplete` with
    /// blur, hole and cut not performed — not absent, as though nothing had been judged,
    /// and not `good`. A photo in which nothing was read has none (its answer is "no card").
    #[test]
    fn a_card_the_finder_missed_but_read_is_incomplete_not_unjudged() {
        let photo = image::RgbImage::from_pixel(1200, 760, image::Rgb([200, 200, 200]));
        let exposure = idv_vision::card_sanity::exposure_sanity(idv_vision::card_sanity::card_sanity(&photo, None));
        let missed = SideScan { located: Located::NoCard, photo_exposure: Some(exposure), ..cccd_front_scan(None) };
        let reading = read_front(&missed);
        assert_eq!(value(&reading, "id"), Some("079090001234"), "{:?}", reading.card_information);
        let sanity = reading.sanity.as_ref().unwrap_or_else(|| panic!("no card sanity"));
        assert_eq!(sanity.verdict, CardSanityVerdict::Incomplete);
        let skipped: Vec<&str> = sanity.not_performed().iter().map(|c| c.check_name()).collect();
        assert_eq!(skipped, ["blur", "hole", "cut"]);
        assert_eq!(reading.image1["card_sanity"]["verdict"], "incomplete");
        assert_eq!(reading.failure, None);
        // Nothing read: no verdict, and the answer is "no card".
        let empty = SideScan { ocr: OcrOutcome::Lines(Vec::new()), ..missed };
        let reading = read_front(&empty);
        assert!(reading.sanity.is_none(), "{:?}", reading.sanity);
        assert_eq!(reading.failure.as_ref().map(|f| f.0), Some(FailureCode::NocardOrMulticardImage));
    }

    #[test]
    fn a_blurred_card_gives_the_printed_values_its_second_reading_agrees_on() {
        let measures = CardMeasures { blur_sigma: 2.6, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let blurred = Some(CardSanity { verdict: CardSanityVerdict::ImageTooBlur, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBlur, 1.0)], measures });
        let first = cccd_front_scan(blurred);
        // Read once: nothing is given (no value of a CCCD's print is under a strong check).
        let reading = read_front(&first);
        assert!(reading.card_information.is_empty(), "{:?}", reading.card_information);
        // Read again: the same name (printed in capitals, given in its written form), another
        // date of birth. The name is given, UNSURE; the date, read two ways, is not.
        let OcrOutcome::Lines(lines) = &first.ocr else { unreachable!("cccd_front_scan reads lines") };
        let mut again = lines.clone();
        again[5].text = "Ngày sinh / Date of birth: 07/01/1990".into();
        let scan = SideScan { reread: vec![SecondReading { ocr: OcrOutcome::Lines(again), mrz: MrzOutcome::NotSearched }], ..cccd_front_scan(first.sanity.clone()) };
        let reading = read_front(&scan);
        let name = reading.card_information.iter().find(|f| f.field == "name").unwrap_or_else(|| panic!("no name in {:?}", reading.card_information));
        assert_eq!((name.value.as_str(), name.confidence_verdict), ("Nguyễn Văn An", Some(ConfidenceVerdict::Unsure)));
        assert_eq!(value(&reading, "dob"), None, "{:?}", reading.card_information);
        assert_eq!(reading.failure.as_ref().map(|f| f.0), Some(FailureCode::ImageTooBlur));
    }

    /// A blurred card's value given on its first reading's confidence alone (every
    /// character at 0.95 or more): a later reading that read a number of digits otherwise,
    /// however unsure, voids it (seed 32's PIN "147058", "149968" after it, for 141058);
    /// one less sure of a name's letters leaves the name. Must-fail twin: the date read
    /// alike stays.
    #[test]
    fn a_blurred_cards_confident_number_read_otherwise_later_is_not_given() {
        let measures = CardMeasures { blur_sigma: 2.6, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let blurred = Some(CardSanity { verdict: CardSanityVerdict::ImageTooBlur, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBlur, 1.0)], measures });
        let page = |id: &str, name: &str, dob: &str, per_char: f32| {
            let text = ["ELECTION COMMISSION OF INDIA", "IDENTITY CARD", id, name, "Sex : Female", dob];
            let lines = text
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let symbols = t.chars().filter(|c| !c.is_whitespace()).map(|c| (c, per_char)).collect();
                    OcrLine { text: (*t).to_string(), confidence: per_char, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols, words: Vec::new() }
                })
                .collect();
            OcrOutcome::Lines(lines)
        };
        let read_as_surely = |again_id: &str, again_dob: &str, again_per_char: f32| {
            let first = page("OYQ0230196", "Elector's Name : NISHA RANI JOSHI", "Date of Birth : 12/03/1957", 97.0);
            let again = page(again_id, "Elector's Name : NISHA RANL JOSHI", again_dob, again_per_char);
            let scan = SideScan { ocr: first, reread: vec![SecondReading { ocr: again, mrz: MrzOutcome::NotSearched }], ..cccd_front_scan(blurred.clone()) };
            let front = SideInput { id: None, scan: &scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.voter", Codec::of("in.voter", None), &front, None, None, 2026)
        };
        let read_both = |again_id: &str, again_dob: &str| read_as_surely(again_id, again_dob, 60.0);
        let read = |again_dob: &str| read_both("OYQ0230196", again_dob);
        let otherwise = read("Date of Birth : 12/08/1957");
        assert_eq!(value(&otherwise, "dob"), None, "{:?}", otherwise.card_information);
        assert_eq!(value(&otherwise, "name"), Some("NISHA RANI JOSHI"), "{:?}", otherwise.card_information);
        let alike = read("Date of Birth : 12/03/1957");
        assert_eq!(value(&alike, "dob"), Some("12/03/1957"), "{:?}", alike.card_information);
        assert_eq!(value(&alike, "id"), Some("OYQ0230196"), "{:?}", alike.card_information);
        // An EPIC number whose digits a later reading read otherwise as surely (seed 31:
        // the later "OYQ0230136" right): not given; read less surely (seed 24), it is.
        let number_otherwise = read_as_surely("OYQ0230136", "Date of Birth : 12/03/1957", 97.0);
        assert_eq!(value(&number_otherwise, "id"), None, "{:?}", number_otherwise.card_information);
        let less_surely = read_both("OYQ0230136", "Date of Birth : 12/03/1957");
        assert_eq!(value(&less_surely, "id"), Some("OYQ0230196"), "{:?}", less_surely.card_information);
        // Digits read otherwise where no date parses, however surely ("25-82-2005" beside
        // "25-02-2008", seed 30): no later value stands against the first's (voiding for
        // such digits read as surely lost two right dates for one wrong over seeds 24-33).
        let no_date = read_as_surely("OYQ0230196", "Date of Birth : 12/83/1957", 97.0);
        assert_eq!(value(&no_date, "dob"), Some("12/03/1957"), "{:?}", no_date.card_information);
    }

    /// A blurred card's PAN number both readings read with an S where a digit stands
    /// (seed 28: "IGEPAS258U", an 8 printed): the repair to a 5 is a guess they make
    /// alike, and the number is not given. Must-fail twin: read as printed twice, it is.
    #[test]
    fn a_blurred_cards_number_repaired_into_shape_is_not_given() {
        let measures = CardMeasures { blur_sigma: 2.6, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let blurred = Some(CardSanity { verdict: CardSanityVerdict::ImageTooBlur, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBlur, 1.0)], measures });
        let page = |number: &str| {
            let text = ["INCOME TAX DEPARTMENT", "Permanent Account Number Card", number, "Name", "MAHESH AGARWAL"];
            let lines = text
                .iter()
                .enumerate()
                .map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 80.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() })
                .collect();
            OcrOutcome::Lines(lines)
        };
        let read = |number: &str| {
            let scan = SideScan { ocr: page(number), reread: vec![SecondReading { ocr: page(number), mrz: MrzOutcome::NotSearched }], ..cccd_front_scan(blurred.clone()) };
            let front = SideInput { id: None, scan: &scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.pan", Codec::of("in.pan", None), &front, None, None, 2026)
        };
        let repaired = read("IGEPAS258U");
        assert_eq!(value(&repaired, "id"), None, "{:?}", repaired.card_information);
        assert_eq!(value(&repaired, "name"), Some("MAHESH AGARWAL"), "{:?}", repaired.card_information);
        let as_printed = read("IGEPA8258U");
        assert_eq!(value(&as_printed, "id"), Some("IGEPA8258U"), "{:?}", as_printed.card_information);
    }

    /// A noisy photo's card (seed 20's voter card, sensor noise σ 26: "VISAY JOSHI" for
    /// VIJAY JOSHI) read again from a smoothed copy: a value the two readings read
    /// differently is not given, the rest is. Must-fail twins: read alike, or on a card
    /// not judged noisy, the value stays; a value the copy did not read at all stays.
    #[test]
    fn a_noisy_card_gives_no_value_its_smoothed_copy_read_otherwise() {
        let voter_front = |relative: &str| {
            let text = ["ELECTION COMMISSION OF INDIA", "IDENTITY CARD", "MNQ8038705", "Elector's Name : NISHA RANI JOSHI", relative, "Sex : Female"];
            let lines = text.iter().enumerate().map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 90.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() }).collect();
            OcrOutcome::Lines(lines)
        };
        let read = |noisy: bool, again: &str| {
            let scan = SideScan { ocr: voter_front("Husband's Name : VISAY JOSHI"), reread: vec![SecondReading { ocr: voter_front(again), mrz: MrzOutcome::NotSearched }], noisy, ..cccd_front_scan(None) };
            let front = SideInput { id: None, scan: &scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.voter", Codec::of("in.voter", None), &front, None, None, 2026)
        };
        let noisy = read(true, "Husband's Name : VIJAY JOSHI");
        assert_eq!(value(&noisy, "father_name"), None, "{:?}", noisy.card_information);
        assert_eq!(value(&noisy, "name"), Some("NISHA RANI JOSHI"));
        assert_eq!(value(&read(true, "Husband's Name : VISAY JOSHI"), "father_name"), Some("VISAY JOSHI"), "read alike");
        assert_eq!(value(&read(false, "Husband's Name : VIJAY JOSHI"), "father_name"), Some("VISAY JOSHI"), "not noisy");
        assert_eq!(value(&read(true, "ee"), "father_name"), Some("VISAY JOSHI"), "not read again");
    }

    /// The second reading misread the label beside a value and so parsed none there, but
    /// read the value's characters alike at the same place: the value is given.
    #[test]
    fn a_blurred_card_gives_a_value_its_second_reading_read_alike_under_a_misread_label() {
        let measures = CardMeasures { blur_sigma: 2.6, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let blurred = Some(CardSanity { verdict: CardSanityVerdict::ImageTooBlur, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBlur, 1.0)], measures });
        // A voter card's front (lines 50 px apart), its date of birth on the last line.
        let voter_front = |dob_line: &str| {
            let text = ["ELECTION COMMISSION OF INDIA", "IDENTITY CARD", "MNQ8038705", "Elector's Name : Sunita Banerjee", "Father's Name : Vikram Prasad Banerjee", "Sex : Female", dob_line];
            let lines = text.iter().enumerate().map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 80.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() }).collect();
            OcrOutcome::Lines(lines)
        };
        let read_twice = |first: &str, again: Option<&str>| {
            let scan = SideScan { ocr: voter_front(first), reread: again.map(|a| SecondReading { ocr: voter_front(a), mrz: MrzOutcome::NotSearched }).into_iter().collect(), ..cccd_front_scan(blurred.clone()) };
            let front = SideInput { id: None, scan: &scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.voter", Codec::of("in.voter", None), &front, None, None, 2026)
        };
        let read = |again: Option<&str>| read_twice("Date of Birth : 08/08/1992", again);
        // Read once, the date is not given; read alike, it is.
        assert_eq!(value(&read(None), "dob"), None);
        assert_eq!(value(&read(Some("Date of Birth : 08/08/1992")), "dob"), Some("08/08/1992"));
        // The label misread in the second reading (no date parsed there), the date's
        // characters alike at the same place: given.
        assert_eq!(value(&read(Some("Dete of Get) 08/08/1992")), "dob"), Some("08/08/1992"));
        // Other characters confirm nothing.
        assert_eq!(value(&read(Some("Dete of Get) 08/06/1992")), "dob"), None);
        // The other way round: the label misread in the first reading, read in the second.
        assert_eq!(value(&read_twice("Dete of Get) 08/08/1992", Some("Date of Birth : 08/08/1992")), "dob"), Some("08/08/1992"));
        assert_eq!(value(&read_twice("Dete of Get) 08/06/1992", Some("Date of Birth : 08/08/1992")), "dob"), None);
        assert_eq!(value(&read_twice("Dete of Get) 08/08/1992", None), "dob"), None);
    }

    /// A blurred card whose first reading read nothing, its two later readings the same
    /// values: nothing is given. Two later readings of one photo agreeing without the
    /// first misread alike too often (tried: seed 15's blurred PAN gave "VILAY SHAH" for
    /// "VIJAY SHAH" from the milder deconvolution and the photo as taken). With the
    /// first reading reading the value alike, it is given, once.
    #[test]
    fn two_later_readings_without_the_first_give_nothing() {
        let measures = CardMeasures { blur_sigma: 2.6, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let blurred = Some(CardSanity { verdict: CardSanityVerdict::ImageTooBlur, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBlur, 1.0)], measures });
        let voter_front = |name: &str| {
            let text = ["ELECTION COMMISSION OF INDIA", "IDENTITY CARD", "MNQ8038705", name, "Sex : Female"];
            let lines = text.iter().enumerate().map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 80.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() }).collect();
            OcrOutcome::Lines(lines)
        };
        let read = |first: OcrOutcome| {
            let later = [voter_front("Elector's Name : Sunita Banerjee"), voter_front("Elector's Name : Sunita Banerjee")];
            let scan = SideScan { ocr: first, reread: later.into_iter().map(|ocr| SecondReading { ocr, mrz: MrzOutcome::NotSearched }).collect(), ..cccd_front_scan(blurred.clone()) };
            let front = SideInput { id: None, scan: &scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.voter", Codec::of("in.voter", None), &front, None, None, 2026)
        };
        let nothing = OcrOutcome::Lines(vec![OcrLine { text: "ELECTION COMMISSION OF INDIA".into(), confidence: 40.0, bbox: TextBox { x: 300, y: 40, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() }]);
        let reading = read(nothing);
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        let reading = read(voter_front("Elector's Nane Sunita Banerjee"));
        assert_eq!(value(&reading, "name"), Some("Sunita Banerjee"), "{:?}", reading.card_information);
        assert_eq!(reading.card_information.iter().filter(|f| f.field == "name").count(), 1);
    }

    /// A blurred card's value read with every character at 95 or more is vouched for by
    /// its confidence. Must-fail: one character at 90, a CCCD's value (its tone marks and
    /// digits misread with confidence when blurred), a value of three characters (found
    /// anywhere), a value over two lines (in no one line).
    #[test]
    fn a_blurred_value_read_with_high_confidence_is_vouched_for() {
        let line = |text: &str, low_at: Option<usize>| {
            let symbols = text.chars().filter(|c| !c.is_whitespace()).enumerate().map(|(i, c)| (c, if Some(i) == low_at { 90.0 } else { 97.0 })).collect();
            OcrLine { text: text.into(), confidence: 96.0, bbox: TextBox { x: 50, y: 480, width: 400, height: 32 }, symbols, words: Vec::new() }
        };
        let read = [line("Name : ANITA NAIDU", None)];
        let first: Vec<&OcrLine> = read.iter().collect();
        assert!(vouched_by_confidence("in.pan", "ANITA NAIDU", &first));
        assert!(!vouched_by_confidence("vn.national_id", "ANITA NAIDU", &first));
        let low = [line("Name : ANITA NAIDU", Some(9))];
        assert!(!vouched_by_confidence("in.pan", "ANITA NAIDU", &low.iter().collect::<Vec<_>>()), "its N at 90");
        let short = [line("Sex : F", None)];
        assert!(!vouched_by_confidence("in.voter", "F", &short.iter().collect::<Vec<_>>()));
        let two = [line("House No. 12, MG Road,", None), line("Lucknow, Uttar Pradesh", None)];
        assert!(!vouched_by_confidence("in.voter", "House No. 12, MG Road, Lucknow, Uttar Pradesh", &two.iter().collect::<Vec<_>>()));
    }

    /// A fragment the second reading split off inside the value's extent (seed 19's
    /// blurred PAN: "s" at x 112-126 within "ANITA NAIDU" at 52-322) is none of the words
    /// beside it; a word read beside it still is.
    #[test]
    fn a_fragment_read_inside_a_value_is_no_word_beside_it() {
        let line = |text: &str, x: u32, width: u32| OcrLine { text: text.into(), confidence: 80.0, bbox: TextBox { x, y: 487, width, height: 35 }, symbols: Vec::new(), words: Vec::new() };
        let first = line("ANITA NAIDU", 52, 268);
        assert!(read_alike_in_place("ANITA NAIDU", &[&first], &[line("s", 112, 14), line("ANITA NAIDU", 52, 270)]));
        assert!(!read_alike_in_place("ANITA NAIDU", &[&first], &[line("ANITA NAIDU", 52, 270), line("KUMARI", 300, 150)]), "a word after it");
        assert!(!read_alike_in_place("ANITA NAIDU", &[&first], &[line("ANITA NAIDU", 52, 270), line("DIVYA", 0, 60)]), "a word before it, though listed after");
    }

    #[test]
    fn a_value_of_several_words_is_read_alike_only_with_what_was_beside_it() {
        let line = |text: &str| OcrLine { text: text.into(), confidence: 80.0, bbox: TextBox { x: 100, y: 200, width: 500, height: 30 }, symbols: Vec::new(), words: Vec::new() };
        let first = line("( \\ DEVI MEHTA");
        let alike = |again: &str| read_alike_in_place("DEVI MEHTA", &[&first], &[line(again)]);
        assert!(alike("( \\ DEVI MEHTA"));
        assert!(alike("| DEVI MEHTA"), "noise beside it, no word");
        assert!(alike("DEVI MEHTA"));
        // The first reading may have lost a word the second shows: "DIVYA DEVI MEHTA".
        assert!(!alike("Name DIVYA DEVI MEHTA"));
        assert!(!alike("DEVI MEHTA SHARMA"));
        assert!(!alike("DEVI MENTA"));
        // One word (a date, a number) is whole by its format, whatever is beside it.
        let dob = line("Dote of Orth 08/08/1992");
        assert!(read_alike_in_place("08/08/1992", &[&dob], &[line("Dete of Get) 08/08/1992")]));
        assert!(!read_alike_in_place("08/08/1992", &[&dob], &[line("Dete of Get) 08/06/1992")]));
        // The same characters on another row are another value.
        let below = OcrLine { bbox: TextBox { y: 250, ..dob.bbox }, ..line("Dete of Get) 08/08/1992") };
        assert!(!read_alike_in_place("08/08/1992", &[&dob], &[below]));
        // Words read as far from the value as another column are none beside it (seed
        // 22's blurred Aadhaar: the card's edge and its QR code read around the name,
        // "= Kavita Verma See eS"). Must-fail: the same words at a word's spacing are.
        let word = |x: u32, width: u32, height: u32| idv_vision::ocr::TsvWord { bbox: TextBox { x, y: 296, width, height }, confidence: Some(50.0), chars: 3 };
        let alone = OcrLine { text: "Kavita Verma".into(), confidence: 96.0, bbox: TextBox { x: 368, y: 304, width: 282, height: 29 }, symbols: Vec::new(), words: vec![word(368, 132, 29), word(516, 134, 29)] };
        let around = |see_at: u32| {
            let words = vec![word(23, 18, 47), word(368, 132, 29), word(516, 134, 29), word(see_at, 189, 46), word(see_at + 254, 66, 48)];
            OcrLine { text: "= Kavita Verma See eS".into(), confidence: 60.0, bbox: TextBox { x: 23, y: 293, width: see_at + 320 - 23, height: 51 }, symbols: Vec::new(), words }
        };
        assert!(read_alike_in_place("Kavita Verma", &[&alone], &[around(832)]));
        assert!(!read_alike_in_place("Kavita Verma", &[&alone], &[around(665)]), "a word at a word's spacing");
        // A value not in the first reading's own words as given (repaired, reformatted)
        // is not confirmed by characters.
        assert!(!read_alike_in_place("08/08/1992", &[&line("Dote of Orth 08-08-1992")], &[line("Dete of Get) 08-08-1992")]));
    }

    /// A card sharp enough for card sanity but read soft (`SOFT_FROM_SIGMA`: a small photo
    /// enlarged, whose letters OCR misreads as others, "Roed" for "Road") is answered as
    /// a blurred one: `good`, no failure, but only what both readings give. Just under
    /// the line, one reading is enough.
    #[test]
    fn a_soft_card_gives_only_what_its_second_reading_agrees_on() {
        use crate::card::scan::SOFT_FROM_SIGMA;
        let sanity = |blur_sigma: f32| {
            let measures = CardMeasures { blur_sigma, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
            Some(CardSanity { verdict: CardSanityVerdict::Good, score: 0.9, details: vec![(CardSanityVerdict::ImageTooBlur, 0.1)], measures })
        };
        let sharp = read_front(&cccd_front_scan(sanity(SOFT_FROM_SIGMA - 0.05)));
        assert_eq!(value(&sharp, "name"), Some("Nguyễn Văn An"), "{:?}", sharp.card_information);
        let first = cccd_front_scan(sanity(SOFT_FROM_SIGMA + 0.1));
        let once = read_front(&first);
        assert!(once.card_information.is_empty(), "{:?}", once.card_information);
        let OcrOutcome::Lines(lines) = &first.ocr else { unreachable!("cccd_front_scan reads lines") };
        let mut again = lines.clone();
        again[5].text = "Ngày sinh / Date of birth: 07/01/1990".into();
        let twice = read_front(&SideScan { reread: vec![SecondReading { ocr: OcrOutcome::Lines(again), mrz: MrzOutcome::NotSearched }], ..first });
        assert_eq!(value(&twice, "name"), Some("Nguyễn Văn An"), "{:?}", twice.card_information);
        assert_eq!(value(&twice, "dob"), None, "{:?}", twice.card_information);
        assert_eq!(twice.failure, None);
        assert_eq!(twice.sanity.map(|s| s.verdict), Some(CardSanityVerdict::Good));
    }

    /// A side of a card found filling the photo (1200 x 757) whose only reading is `mrz`.
    fn zone_side(mrz: MrzOutcome, sanity: CardSanity) -> SideScan {
        SideScan { photo_height: 757, ocr: OcrOutcome::Lines(Vec::new()), mrz, ..cccd_front_scan(Some(sanity)) }
    }

    /// A zone's date whose check digit failed is given only as a date: one the codec
    /// gave as read, unknown parts and all ("27051<", seed 23's glared passport, its
    /// zone's lines joined short), is none; nor is a date that failed its check digit
    /// (`idv_cards::merge`: a misread). Must-fail twin: a date whose digit passes is given.
    #[test]
    fn a_zone_date_as_read_that_failed_its_check_is_no_date() {
        let read = |second: &str| read_zone_text("in.national_id", &format!("IDINDDZ48930383<<<<<<<<<<<<<<<\n{second}\nPATEL<<NEHA<<<<<<<<<<<<<<<<<<<"));
        let unknown_day = read("6712282F32051<0IND<<<<<<<<<<<0");
        assert_eq!(value(&unknown_day, "expiry_date"), None, "{:?}", unknown_day.card_information);
        assert_eq!(value(&unknown_day, "dob"), Some("28/12/1967"));
        let misread_day = read("6712282F3205160IND<<<<<<<<<<<0");
        assert_eq!(value(&misread_day, "expiry_date"), None, "{:?}", misread_day.card_information);
        let read_right = read("6712282F3205161IND<<<<<<<<<<<0");
        assert_eq!(value(&read_right, "expiry_date"), Some("16/05/2032"), "{:?}", read_right.card_information);
        assert!(super::ddmmyyyy("16/05/2032") && !super::ddmmyyyy("32051<") && !super::ddmmyyyy("1/05/2032"));
    }

    /// A card of `card_type` read from a zone alone (`text`, its lines), on a side judged good.
    fn read_zone_text(card_type: &str, text: &str) -> CardReading {
        use idv_vision::mrz::{ZoneCandidate, ZoneRead};
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let zone = MrzOutcome::Found(ZoneRead {
            zone: ZoneCandidate { read: lines.clone(), lines, bbox: TextBox { x: 0, y: 480, width: 1200, height: 240 }, confidence: 90.0, fillers_adjusted: false },
            judgement: Some((4, 4)),
            lang: "mrz",
            ocr_calls: 1,
        });
        let measures = CardMeasures { blur_sigma: 0.25, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 16.0, luma_p10: 158.0, luma_p90: 244.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let scan = zone_side(zone, CardSanity { verdict: CardSanityVerdict::Good, score: 1.0, details: Vec::new(), measures });
        let side = SideInput { id: None, scan: &scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
        read_card(card_type, None, &side, None, None, 2026)
    }

    /// A passport's zone read at TD2's width is TD3's read short (seed 23's glared
    /// passport, "NITIN PRASAI" of NITIN PRASAD): its checked entries stand, its names
    /// are cut. Must-fail twin: the zone at TD3's width gives the names.
    #[test]
    fn a_passport_zone_read_short_as_td2_gives_no_names() {
        let short = read_zone_text("in.passport", "P<INDSHARMA<<PRIYA<KUMAR<<<<<<<<<<<<\nZ1234567<1IND9008157F3103142<<<<<<<0");
        assert_eq!((value(&short, "id"), value(&short, "dob")), (Some("Z1234567"), Some("15/08/1990")), "{:?}", short.card_information);
        assert_eq!((value(&short, "first_name"), value(&short, "name")), (None, None), "{:?}", short.card_information);
        let whole = read_zone_text("in.passport", "P<INDSHARMA<<PRIYA<KUMARI<<<<<<<<<<<<<<<<<<<\nZ1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0");
        assert_eq!(value(&whole, "first_name"), Some("PRIYA KUMARI"), "{:?}", whole.card_information);
    }

    /// A national identity card's zone whose names line was read a letter short on a
    /// side with a cut corner ("ATEL<<NEHA", seed 18: the cut took the P of PATEL, and
    /// the fillers fitted after the names hid it) gives the entries its check digits
    /// cover, not the names: the print's name stands alone, `UNSURE`. Must-fail twins: the
    /// same zone read whole on that side, or read short on an uncut side (a filler run
    /// miscounted), confirms the print's name (`SURE`). (Since 2026-12-07 such a card's
    /// zone name never stands for a name the print did not read: its print's case is
    /// unknown, `Reading::print_case_unknown`.)
    #[test]
    fn a_zone_names_line_read_short_beside_a_cut_gives_no_names() {
        use idv_vision::mrz::{ZoneCandidate, ZoneRead};
        const ZONE: [&str; 3] = ["IDINDDZ48930383<<<<<<<<<<<<<<<", "6712282F3205150IND<<<<<<<<<<<0", "ATEL<<NEHA<<<<<<<<<<<<<<<<<<<<"];
        let zone = |names_read: &str| {
            let lines: Vec<String> = ZONE.iter().map(|l| l.to_string()).collect();
            let read = vec![ZONE[0].to_string(), ZONE[1].to_string(), names_read.to_string()];
            MrzOutcome::Found(ZoneRead {
                zone: ZoneCandidate { read, lines, bbox: TextBox { x: 0, y: 480, width: 1200, height: 240 }, confidence: 90.0, fillers_adjusted: true },
                judgement: Some((4, 4)),
                lang: "mrz",
                ocr_calls: 1,
            })
        };
        let sanity = |cut_corner: Option<[f32; 4]>| {
            let measures = CardMeasures { blur_sigma: 0.25, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 16.0, luma_p10: 158.0, luma_p90: 244.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 0.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner };
            let verdict = if cut_corner.is_some() { CardSanityVerdict::ImageHasCut } else { CardSanityVerdict::Good };
            CardSanity { verdict, score: 0.0, details: vec![(CardSanityVerdict::ImageHasCut, if cut_corner.is_some() { 1.0 } else { 0.0 })], measures }
        };
        let back = |names_read: &str, cut_corner: Option<[f32; 4]>| {
            let text = ["GOVERNMENT OF INDIA", "Name", "NEHA ATEL"];
            let lines = text.iter().enumerate().map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 90.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 400, height: 30 }, symbols: Vec::new(), words: Vec::new() }).collect();
            SideScan { ocr: OcrOutcome::Lines(lines), ..zone_side(zone(names_read), sanity(cut_corner)) }
        };
        let name = |r: &CardReading| r.card_information.iter().find(|f| f.field == "name").map(|f| (f.value.clone(), f.confidence_verdict));
        let read = |scan: &SideScan| {
            let side = SideInput { id: None, scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.national_id", None, &side, None, None, 2026)
        };
        let corner = Some([0.0, 757.0, 143.0, 145.0]);
        let short = "ATEL<<NEHA<<<<<<<<<<<<<<<<<<<";
        let cut = read(&back(short, corner));
        assert_eq!(value(&cut, "document_number"), Some("DZ4893038"), "{:?}", cut.card_information);
        assert_eq!(name(&cut), Some(("NEHA ATEL".to_string(), Some(ConfidenceVerdict::Unsure))), "{:?}", cut.card_information);
        assert_eq!(name(&read(&back(ZONE[2], corner))), Some(("NEHA ATEL".to_string(), Some(ConfidenceVerdict::Sure))));
        assert_eq!(name(&read(&back(short, None))), Some(("NEHA ATEL".to_string(), Some(ConfidenceVerdict::Sure))));
    }

    #[test]
    fn a_blurred_passport_gives_the_zone_entries_its_second_reading_agrees_on() {
        use idv_vision::mrz::{ZoneCandidate, ZoneRead};
        let zone = |text: &str| {
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            MrzOutcome::Found(ZoneRead {
                zone: ZoneCandidate { read: lines.clone(), lines, bbox: TextBox { x: 0, y: 600, width: 1200, height: 90 }, confidence: 90.0, fillers_adjusted: false },
                judgement: Some((5, 5)),
                lang: "mrz",
                ocr_calls: 1,
            })
        };
        const READ: &str = "P<INDSHARMA<<PRIYA<KUMARI<<<<<<<<<<<<<<<<<<<\nZ1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0";
        // The second zone misreads the given names; its check digits (which do not cover
        // names) still pass.
        const MISREAD: &str = "P<INDSHARMA<<PRIYA<KUMARL<<<<<<<<<<<<<<<<<<<\nZ1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0";
        let measures = CardMeasures { blur_sigma: 2.6, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 150.0, luma_p90: 240.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None };
        let blurred = CardSanity { verdict: CardSanityVerdict::ImageTooBlur, score: 0.0, details: vec![(CardSanityVerdict::ImageTooBlur, 1.0)], measures };
        let passport = |second: Option<&str>| SideScan {
            photo_width: 1200,
            photo_height: 850,
            upload_scale: 1.0,
            located: Located::FillsFrame,
            flat: None,
            sanity: Some(blurred.clone()),
            qr_texts: Vec::new(),
            ocr: OcrOutcome::Lines(Vec::new()),
            mrz: zone(READ),
            photo_blur_sigma: None,
            photo_glare_box: None,
            photo_exposure: None,
            reread: second.map(|z| SecondReading { ocr: OcrOutcome::Lines(Vec::new()), mrz: zone(z) }).into_iter().collect(),
            noisy: false,
            photo_page: None,
            as_photographed: None,
        };
        let read = |scan: &SideScan| {
            let front = SideInput { id: None, scan, close_up_qr_texts: Vec::new(), transformed_image_id: None };
            read_card("in.passport", None, &front, None, None, 2026)
        };
        // Read once: only what the check digits cover.
        let once = read(&passport(None));
        assert_eq!(value(&once, "id"), Some("Z1234567"));
        assert_eq!(value(&once, "last_name"), None, "{:?}", once.card_information);
        // And what lies between characters they verify: the sex, and the passport's code.
        let sex = once.card_information.iter().find(|f| f.field == "gender").unwrap_or_else(|| panic!("{:?}", once.card_information));
        assert_eq!((sex.value.as_str(), sex.confidence_verdict), ("F", Some(ConfidenceVerdict::Unsure)));
        assert_eq!(value(&once, "document_type"), Some("P"));
        // Read twice alike: the surname and the nationality too, UNSURE.
        let twice = read(&passport(Some(READ)));
        let surname = twice.card_information.iter().find(|f| f.field == "last_name").unwrap_or_else(|| panic!("{:?}", twice.card_information));
        assert_eq!((surname.value.as_str(), surname.confidence_verdict), ("SHARMA", Some(ConfidenceVerdict::Unsure)));
        assert_eq!(value(&twice, "nationality"), Some("IND"));
        // The second zone read the given names otherwise: they are not given.
        let differently = read(&passport(Some(MISREAD)));
        assert_eq!(value(&differently, "last_name"), Some("SHARMA"));
        assert_eq!(value(&differently, "first_name"), None, "{:?}", differently.card_information);

        // The second zone misread the given names, but the print (one reading of it)
        // reads the surname and the given names as the first zone does: those are given;
        // a print that read the given names otherwise confirms nothing.
        let page = |given: &str| {
            let text = ["REPUBLIC OF INDIA", "Surname", "SHARMA", "Given Name(s)", given];
            let lines = text.iter().enumerate().map(|(i, t)| OcrLine { text: (*t).to_string(), confidence: 60.0, bbox: TextBox { x: 300, y: 40 + 50 * i as u32, width: 600, height: 30 }, symbols: Vec::new(), words: Vec::new() }).collect();
            OcrOutcome::Lines(lines)
        };
        let printed_alike = read(&SideScan { ocr: page("PRIYA KUMARI"), ..passport(Some(MISREAD)) });
        assert_eq!(value(&printed_alike, "first_name"), Some("PRIYA KUMARI"), "{:?}", printed_alike.card_information);
        assert_eq!(value(&printed_alike, "name"), Some("SHARMA PRIYA KUMARI"), "{:?}", printed_alike.card_information);
        let printed_otherwise = read(&SideScan { ocr: page("PRIYA KUMAR"), ..passport(Some(MISREAD)) });
        assert_eq!(value(&printed_otherwise, "first_name"), None, "{:?}", printed_otherwise.card_information);
        assert_eq!(value(&printed_otherwise, "last_name"), Some("SHARMA"));
        // Nor does the print confirm a zone some of whose check digits fail on a blurred
        // photo (misread throughout): nothing of it is given.
        const FAILING: &str = "P<INDSHARMA<<PRIYA<KUMARI<<<<<<<<<<<<<<<<<<<\nZ1234567<1IND9008157F3103143<<<<<<<<<<<<<<<0";
        let failing = read(&SideScan { ocr: page("PRIYA KUMARI"), mrz: zone(FAILING), ..passport(None) });
        assert!(failing.card_information.iter().all(|f| f.value != "PRIYA KUMARI" && f.value != "SHARMA PRIYA KUMARI"), "{:?}", failing.card_information);
        assert_eq!(value(&failing, "gender"), None, "{:?}", failing.card_information);

        // A CCCD's zone read alike twice: its sex is given, its name (spelt without the
        // card's diacritics) is not.
        const CCCD: &str = "IDVNM0930470641001093047064<<2\n9301054M3301052VNM<<<<<<<<<<<8\nUNG<<HOANG<HIEP<<<<<<<<<<<<<<<";
        let cccd = SideScan { mrz: zone(CCCD), reread: vec![SecondReading { ocr: OcrOutcome::Lines(Vec::new()), mrz: zone(CCCD) }], ..passport(None) };
        let front = SideInput { id: None, scan: &cccd, close_up_qr_texts: Vec::new(), transformed_image_id: None };
        let reading = read_card("vn.national_id", None, &front, None, None, 2026);
        assert_eq!(value(&reading, "gender"), Some("M"), "{:?}", reading.card_information);
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        // Read once from a sharp photo on which nothing else gives a name: the zone's
        // name still is not the card's (it confirms a QR's or a print's, never stands in).
        let sharp = SideScan { sanity: None, mrz: zone(CCCD), ..passport(None) };
        let front = SideInput { id: None, scan: &sharp, close_up_qr_texts: Vec::new(), transformed_image_id: None };
        let reading = read_card("vn.national_id", None, &front, None, None, 2026);
        assert_eq!(value(&reading, "gender"), Some("M"), "{:?}", reading.card_information);
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);

        // A sharp passport whose zone read a filler as a digit in the given names (its
        // check digits, which do not cover names, all pass): no name with the digit (the
        // given names, the whole name) from it, the rest as read.
        const FILLER_MISREAD: &str = "P<INDSHARMA<<PRIYA4KUMARI<<<<<<<<<<<<<<<<<<<\nZ1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0";
        for (zone_text, names) in [(READ, true), (FILLER_MISREAD, false)] {
            let sharp = SideScan { sanity: None, mrz: zone(zone_text), ..passport(None) };
            let reading = read(&sharp);
            assert_eq!(value(&reading, "id"), Some("Z1234567"), "{:?}", reading.card_information);
            assert_eq!(value(&reading, "last_name"), Some("SHARMA"), "{:?}", reading.card_information);
            assert_eq!(value(&reading, "name"), names.then_some("SHARMA PRIYA KUMARI"), "{:?}", reading.card_information);
            let want = names.then_some("PRIYA KUMARI");
            assert_eq!(value(&reading, "first_name"), want, "{:?}", reading.card_information);
            let shown = &reading.image1["mrz"]["parsed"];
            assert!(shown.to_string().contains(if names { "PRIYA KUMARI" } else { "PRIYA4KUMARI" }), "{shown}");
        }
    }

    #[test]
    fn a_blurred_photo_without_a_card_gives_only_checked_values() {
        let whole_photo = |blur: f32| SideScan { located: Located::NoCard, photo_blur_sigma: Some(blur), ..cccd_front_scan(None) };
        let reading = read_front(&whole_photo(1.3));
        assert_eq!(value(&reading, "name"), None, "{:?}", reading.card_information);
        assert!(reading.card_information.iter().all(|f| f.confidence_verdict == Some(ConfidenceVerdict::Sure)), "{:?}", reading.card_information);
        // Sharp: every value is given; no structure at all (infinite): not "blurred".
        for blur in [0.4, f32::INFINITY] {
            let reading = read_front(&whole_photo(blur));
            assert_eq!(value(&reading, "name"), Some("Nguyễn Văn An"), "σ̂ {blur}: {:?}", reading.card_information);
        }
    }

    #[test]
    fn a_cccd_read_from_its_print_alone_names_its_holder_as_its_qr_would() {
        let scan = cccd_front_scan(None);
        let reading = read_front(&scan);
        assert_eq!(value(&reading, "name"), Some("Nguyễn Văn An"), "{:?}", reading.card_information);
        // The side's own OCR result still shows what the print says.
        assert!(reading.image1.to_string().contains("NGUYỄN VĂN AN"), "{}", reading.image1);
    }
}
