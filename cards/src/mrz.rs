//! The machine-readable zone (ICAO Doc 9303) of passports and ID cards: the text of the
//! two or three lines of OCR-B (what an OCR step, not this crate, reads off the image)
//! to fields, with every check digit verified.
//!
//! # Formats
//!
//! Positions are 1-based, as in Doc 9303; `cd` is a check digit.
//!
//! - **TD1** (3 × 30; ID cards, e.g. the back of Vietnam's chip CCCD), Part 5:
//!   line 1: 1–2 document code, 3–5 issuing state, 6–14 document number, 15 cd,
//!   16–30 optional data; line 2: 1–6 date of birth `YYMMDD`, 7 cd, 8 sex, 9–14 expiry,
//!   15 cd, 16–18 nationality, 19–29 optional data 2, 30 composite cd over line 1 6–30
//!   and line 2 1–7, 9–15, 19–29; line 3: name.
//! - **TD2** (2 × 36), Part 6: line 1: 1–2 document code, 3–5 issuing state, 6–36 name;
//!   line 2: 1–9 document number, 10 cd, 11–13 nationality, 14–19 date of birth, 20 cd,
//!   21 sex, 22–27 expiry, 28 cd, 29–35 optional data, 36 composite cd over 1–10, 14–20,
//!   22–35.
//! - **TD3** (2 × 44; passports), Part 4: line 1 as TD2 with the name in 6–44; line 2:
//!   1–9 document number, 10 cd, 11–13 nationality, 14–19 date of birth, 20 cd, 21 sex,
//!   22–27 expiry, 28 cd, 29–42 personal number, 43 cd, 44 composite cd over 1–10, 14–20,
//!   22–43.
//!
//! A TD1/TD2 document number longer than 9 characters has `<` in its check digit's place;
//! its remaining characters open the optional data, followed by the check digit (over
//! the whole number) and a filler. Machine-readable visas (document code `V…`, no
//! composite check digit) are refused as [`CodecError::Unsupported`].
//!
//! Check digits: characters valued `0`–`9` → 0–9, `A`–`Z` → 10–35, `<` → 0, weighted
//! 7, 3, 1 repeating, sum mod 10. A check digit `<` is accepted only over a field that
//! is all fillers (Doc 9303's rule for an unused personal number).
//!
//! Input: the lines separated by line breaks (surrounding whitespace and blank lines
//! ignored), or the whole zone as one line of 90, 72 or 88 characters. Every character
//! must be `A`–`Z`, `0`–`9` or `<`: anything else (lowercase included) is
//! [`CodecError::InvalidField`] `mrz`, since a zone with such a character was misread and
//! its positions can no longer be trusted.
//!
//! # Output
//!
//! [`Mrz::fields`] (each with its [`Check`]) and [`Mrz::check_digits`] (each check
//! digit, passed or not, the composite included). A field's check is:
//! - `passed`: its own check digit matches (document number, date of birth, expiry,
//!   personal number; dates must also exist) or, for optional data that has none, the
//!   composite check digit matches;
//! - `failed`: that check digit does not match, or the field is not well formed for its
//!   type (a date that does not exist; a digit in a country code or a name; a sex other
//!   than `M`, `F`, `X` or `<`). A failed field is never verified:
//!   [`Mrz::card_fields`] marks it `confidence_verdict: UNSURE`;
//! - `unchecked`: no check digit covers it (document code, issuing state, nationality,
//!   sex, names): returned as read.
//!
//! For a zone read by OCR (no value is exact), [`Mrz::ocr_card_fields`] marks a `passed`
//! field `SURE`, a `failed` one `UNSURE` and leaves an `unchecked` one without a verdict.
//!
//! Field names: `document_type` (the code without fillers), `issuing_state`,
//! `document_number`, `last_name` (primary identifier), `first_name` (secondary
//! identifier: all given names), `name` (both, in the zone's order), `nationality`,
//! `dob` and `expiry_date` (`DD/MM/YYYY`; a date with unknown parts written `<` is given
//! as read, `YYMMDD`; an expiry all fillers, a document without one, is not given),
//! `gender` (`M`, `F`, or `X` for `X` and `<`), `personal_number`
//! (TD3), `optional_data`, `optional_data_2` (TD1), the last three only when not empty.
//! Fillers become spaces in names and are trimmed elsewhere.
//!
//! Years have two digits, so the caller gives the current year: a date of birth is in
//! the century that puts it at or before that year; an expiry date within 50 years
//! before or 49 after it.
//!
//! # Repair
//!
//! [`parse_with_repair`] is a separate, explicit step for OCR output. It tries the
//! common OCR confusions O→0, I→1, B→8, S→5 and nothing else, and only where a
//! position's type leaves no doubt about which of the pair belongs there:
//! - numeric positions (dates, check digits): a letter O/I/B/S there is replaced by the
//!   digit it resembles, and the repair is kept only if the check digit over that field
//!   then passes;
//! - alphabetic positions (document code, states, names, sex) hold letters only, but no
//!   check digit covers them, so no repair there could be confirmed: none is made (a
//!   digit there leaves the field `failed`);
//! - alphanumeric positions (document number, optional data, personal number) could hold
//!   either, and a change there confirmed by a check digit alone would be a 1-in-10
//!   guess (the composite weighs the document number exactly as its own digit does, so
//!   it cannot tell): never repaired.
//!
//! Each field's own check digit is repaired first, then the composite digit itself.
//! Finally the composite must pass over the repaired zone (a second check, with other
//! weights, over the dates): if it does not, no repair at all is kept. [`Mrz::repairs`]
//! lists every change made.

use crate::{CardField, CodecError};

const CARD: &str = "MRZ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Td1,
    Td2,
    Td3,
}

/// What a field's check says (module doc, "Output").
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    Passed,
    Failed,
    Unchecked,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MrzField {
    pub field: &'static str,
    pub value: String,
    pub check: Check,
}

/// One check digit of the zone: `document_number`, `dob`, `expiry_date`,
/// `personal_number` (TD3) or `composite`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckDigit {
    pub name: &'static str,
    pub passed: bool,
}

/// One character changed by [`parse_with_repair`] (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repair {
    pub line: usize,
    pub column: usize,
    pub from: char,
    pub to: char,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mrz {
    pub format: Format,
    /// The zone's lines as read (after repairs, if any).
    pub lines: Vec<String>,
    pub fields: Vec<MrzField>,
    pub check_digits: Vec<CheckDigit>,
    pub repairs: Vec<Repair>,
}

impl Mrz {
    /// Whether every check digit passed.
    pub fn all_checks_passed(&self) -> bool {
        self.check_digits.iter().all(|c| c.passed)
    }

    /// A check digit's outcome by name.
    pub fn check_digit(&self, name: &str) -> Option<bool> {
        self.check_digits.iter().find(|c| c.name == name).map(|c| c.passed)
    }

    pub fn field(&self, name: &str) -> Option<&MrzField> {
        self.fields.iter().find(|f| f.field == name)
    }

    /// `card_information` entries for a zone read by OCR, where no value is exact: a
    /// field whose check passed (its own check digit, or the composite for optional data)
    /// is `SURE`, a failed one `UNSURE`, an unchecked one (no check digit covers it:
    /// document code, states, names, sex) has no verdict. Never `SURE` without a passed
    /// check.
    pub fn ocr_card_fields(&self) -> Vec<CardField> {
        self.fields
            .iter()
            .map(|f| {
                let c = CardField::new(f.field, f.value.clone());
                match f.check {
                    Check::Passed => c.sure(),
                    Check::Failed => c.unsure(),
                    Check::Unchecked => c,
                }
            })
            .collect()
    }

    /// `card_information` entries; a field whose check failed is marked UNSURE.
    pub fn card_fields(&self) -> Vec<CardField> {
        self.fields
            .iter()
            .map(|f| {
                let c = CardField::new(f.field, f.value.clone());
                if f.check == Check::Failed {
                    c.unsure()
                } else {
                    c
                }
            })
            .collect()
    }
}

fn invalid(field: &'static str, reason: impl Into<String>) -> CodecError {
    CodecError::InvalidField { field, reason: reason.into() }
}

/// A character's check-digit value; `None` outside the MRZ alphabet.
fn char_value(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some(u32::from(c - b'0')),
        b'A'..=b'Z' => Some(u32::from(c - b'A') + 10),
        b'<' => Some(0),
        _ => None,
    }
}

/// The 7-3-1 check digit of `data` (ASCII); `None` if a character is outside the MRZ
/// alphabet.
pub fn check_digit(data: &str) -> Option<u8> {
    let mut sum = 0u32;
    for (i, c) in data.bytes().enumerate() {
        sum += char_value(c)? * [7, 3, 1][i % 3];
    }
    Some((sum % 10) as u8)
}

/// Whether `cd` is the check digit of `data` (module doc: `<` only over all fillers).
fn verify(data: &[u8], cd: u8) -> bool {
    match cd {
        b'0'..=b'9' => std::str::from_utf8(data).ok().and_then(check_digit) == Some(cd - b'0'),
        b'<' => data.iter().all(|&c| c == b'<'),
        _ => false,
    }
}

/// `[start, end)` of one line (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    line: usize,
    start: usize,
    end: usize,
}

const fn span(line: usize, start: usize, end: usize) -> Span {
    Span { line, start, end }
}

impl Span {
    fn bytes<'a>(&self, lines: &'a [Vec<u8>]) -> &'a [u8] {
        lines.get(self.line).and_then(|l| l.get(self.start..self.end)).unwrap_or(&[])
    }
    fn positions(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (self.start..self.end).map(move |c| (self.line, c))
    }
}

/// What may stand in a position, for the repair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Numeric,
    AlphaNumeric,
}

/// A check digit and what it covers.
#[derive(Debug, Clone)]
struct Group {
    name: &'static str,
    covered: Vec<(Span, Kind)>,
    /// `None`: a long document number with no room left for its check digit.
    digit: Option<(usize, usize)>,
}

impl Group {
    fn data(&self, lines: &[Vec<u8>]) -> Vec<u8> {
        self.covered.iter().flat_map(|(s, _)| s.bytes(lines).iter().copied()).collect()
    }
    fn passes(&self, lines: &[Vec<u8>]) -> bool {
        match self.digit {
            Some((l, c)) => lines.get(l).and_then(|line| line.get(c)).is_some_and(|&cd| verify(&self.data(lines), cd)),
            None => false,
        }
    }
}

/// Where everything is, for one zone (the long document number moves things).
#[derive(Debug, Clone)]
struct Plan {
    format: Format,
    doc_code: Span,
    issuing_state: Span,
    names: Span,
    nationality: Span,
    sex: Span,
    document_number: Group,
    dob: Group,
    expiry: Group,
    personal_number: Option<Group>,
    /// Fields checked by the composite only: (name, span).
    optional: Vec<(&'static str, Span)>,
    composite: Group,
}

/// A document number of 9 characters at `principal` with its check digit at `digit`, or,
/// when that is `<`, continued at the start of `optional` and followed by its check digit
/// and a filler. Returns the number's group and what is left of the optional data.
fn document_number(lines: &[Vec<u8>], principal: Span, digit: (usize, usize), optional: Span) -> (Group, Span) {
    let at = |(l, c): (usize, usize)| lines.get(l).and_then(|line| line.get(c)).copied();
    if at(digit) != Some(b'<') {
        let g = Group { name: "document_number", covered: vec![(principal, Kind::AlphaNumeric)], digit: Some(digit) };
        return (g, optional);
    }
    let run = optional.bytes(lines).iter().take_while(|&&c| c != b'<').count();
    if run == 0 {
        let g = Group { name: "document_number", covered: vec![(principal, Kind::AlphaNumeric)], digit: None };
        return (g, optional);
    }
    let ext = span(optional.line, optional.start, optional.start + run - 1);
    let cd = (optional.line, optional.start + run - 1);
    let rest = span(optional.line, (optional.start + run + 1).min(optional.end), optional.end);
    let g = Group { name: "document_number", covered: vec![(principal, Kind::AlphaNumeric), (ext, Kind::AlphaNumeric)], digit: Some(cd) };
    (g, rest)
}

fn date_group(name: &'static str, date: Span, digit: (usize, usize)) -> Group {
    Group { name, covered: vec![(date, Kind::Numeric)], digit: Some(digit) }
}

fn plan(format: Format, lines: &[Vec<u8>]) -> Plan {
    match format {
        Format::Td1 => {
            let (document_number, optional) = document_number(lines, span(0, 5, 14), (0, 14), span(0, 15, 30));
            Plan {
                format,
                doc_code: span(0, 0, 2),
                issuing_state: span(0, 2, 5),
                names: span(2, 0, 30),
                nationality: span(1, 15, 18),
                sex: span(1, 7, 8),
                document_number,
                dob: date_group("dob", span(1, 0, 6), (1, 6)),
                expiry: date_group("expiry_date", span(1, 8, 14), (1, 14)),
                personal_number: None,
                optional: vec![("optional_data", optional), ("optional_data_2", span(1, 18, 29))],
                composite: Group {
                    name: "composite",
                    covered: vec![
                        (span(0, 5, 30), Kind::AlphaNumeric),
                        (span(1, 0, 7), Kind::Numeric),
                        (span(1, 8, 15), Kind::Numeric),
                        (span(1, 18, 29), Kind::AlphaNumeric),
                    ],
                    digit: Some((1, 29)),
                },
            }
        }
        Format::Td2 => {
            let (document_number, optional) = document_number(lines, span(1, 0, 9), (1, 9), span(1, 28, 35));
            Plan {
                format,
                doc_code: span(0, 0, 2),
                issuing_state: span(0, 2, 5),
                names: span(0, 5, 36),
                nationality: span(1, 10, 13),
                sex: span(1, 20, 21),
                document_number,
                dob: date_group("dob", span(1, 13, 19), (1, 19)),
                expiry: date_group("expiry_date", span(1, 21, 27), (1, 27)),
                personal_number: None,
                optional: vec![("optional_data", optional)],
                composite: Group {
                    name: "composite",
                    covered: vec![(span(1, 0, 10), Kind::AlphaNumeric), (span(1, 13, 20), Kind::Numeric), (span(1, 21, 35), Kind::AlphaNumeric)],
                    digit: Some((1, 35)),
                },
            }
        }
        Format::Td3 => Plan {
            format,
            doc_code: span(0, 0, 2),
            issuing_state: span(0, 2, 5),
            names: span(0, 5, 44),
            nationality: span(1, 10, 13),
            sex: span(1, 20, 21),
            document_number: Group { name: "document_number", covered: vec![(span(1, 0, 9), Kind::AlphaNumeric)], digit: Some((1, 9)) },
            dob: date_group("dob", span(1, 13, 19), (1, 19)),
            expiry: date_group("expiry_date", span(1, 21, 27), (1, 27)),
            personal_number: Some(Group { name: "personal_number", covered: vec![(span(1, 28, 42), Kind::AlphaNumeric)], digit: Some((1, 42)) }),
            optional: vec![],
            composite: Group {
                name: "composite",
                covered: vec![(span(1, 0, 10), Kind::AlphaNumeric), (span(1, 13, 20), Kind::Numeric), (span(1, 21, 43), Kind::AlphaNumeric)],
                digit: Some((1, 43)),
            },
        },
    }
}

/// The zone's lines and format, every character checked.
fn lines_of(text: &str) -> Result<(Format, Vec<Vec<u8>>), CodecError> {
    let mut lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    // The whole zone on one line: cut it into its lines.
    let joined: Vec<String>;
    if let [one] = lines.as_slice() {
        let width = match one.len() {
            90 => 30,
            72 => 36,
            88 => 44,
            _ => return Err(CodecError::NotThisCard(CARD)),
        };
        if !one.is_ascii() {
            return Err(CodecError::NotThisCard(CARD));
        }
        joined = one.as_bytes().chunks(width).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
        lines = joined.iter().map(String::as_str).collect();
    }
    let lens: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
    let format = match lens.as_slice() {
        [30, 30, 30] => Format::Td1,
        [36, 36] => Format::Td2,
        [44, 44] => Format::Td3,
        _ => return Err(CodecError::NotThisCard(CARD)),
    };
    for (i, l) in lines.iter().enumerate() {
        if let Some((col, c)) = l.chars().enumerate().find(|(_, c)| !matches!(c, 'A'..='Z' | '0'..='9' | '<')) {
            return Err(invalid("mrz", format!("{c:?} at line {} column {} is not an MRZ character", i + 1, col + 1)));
        }
    }
    let lines: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
    let first = lines.first().and_then(|l| l.first()).copied().unwrap_or(b'<');
    if first == b'V' {
        return Err(CodecError::Unsupported("machine-readable visas"));
    }
    if !first.is_ascii_uppercase() {
        return Err(invalid("document_type", "the document code must start with a letter"));
    }
    Ok((format, lines))
}

fn trim_fillers(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim_matches('<').to_string()
}

/// Fillers → single spaces, trimmed.
fn name_part(s: &str) -> String {
    s.split('<').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// `YYMMDD` → `DD/MM/YYYY`, the century chosen by `century(yy)`; `None` if the day does
/// not exist or a part is not digits.
fn date(b: &[u8], century: impl Fn(u32) -> u32) -> Option<String> {
    let s = std::str::from_utf8(b).ok()?;
    if s.len() != 6 || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let yy: u32 = s[0..2].parse().ok()?;
    let year = century(yy).to_string();
    let (d, m, y) = crate::checked_date(&s[4..6], &s[2..4], &year)?;
    Some(format!("{d:02}/{m:02}/{y:04}"))
}

fn check_of(passed: bool) -> Check {
    if passed {
        Check::Passed
    } else {
        Check::Failed
    }
}

fn build(format: Format, lines: Vec<Vec<u8>>, reference_year: u32, repairs: Vec<Repair>) -> Mrz {
    let p = plan(format, &lines);
    let mut fields = Vec::new();
    let mut push = |field: &'static str, value: String, check: Check| fields.push(MrzField { field, value, check });
    let alpha_ok = |b: &[u8]| b.iter().all(|c| c.is_ascii_uppercase() || *c == b'<');

    let code = p.doc_code.bytes(&lines);
    push("document_type", trim_fillers(code), if alpha_ok(code) { Check::Unchecked } else { Check::Failed });
    let state = p.issuing_state.bytes(&lines);
    push("issuing_state", trim_fillers(state), if alpha_ok(state) { Check::Unchecked } else { Check::Failed });

    let doc_ok = p.document_number.passes(&lines);
    let number: String = p.document_number.covered.iter().map(|(s, _)| trim_fillers(s.bytes(&lines))).collect();
    // Fillers only pad a number after its last character (ICAO 9303-3): one before a
    // character is a misread one ("BL09793<C" for BL0979365, seed 19's glared card). No
    // number is given from it, even with its check digit passing: `<` weighs 0 in a
    // check digit, as `0` does.
    let filler_inside = p.document_number.covered.iter().any(|(s, _)| String::from_utf8_lossy(s.bytes(&lines)).trim_end_matches('<').contains('<'));
    if !filler_inside {
        push("document_number", number, check_of(doc_ok));
    }

    let names_b = p.names.bytes(&lines);
    let names_check = if alpha_ok(names_b) { Check::Unchecked } else { Check::Failed };
    let names = String::from_utf8_lossy(names_b).into_owned();
    // The names end at the first run of three fillers: ICAO 9303-3 separates the primary
    // and secondary identifiers by two and their components by one, then fills. Letters
    // read after such a run are no name ("…<CHANDRA<<<J", the card's edge read on a
    // zone evened out of glare).
    let names = names.find("<<<").map_or(names.as_str(), |end| &names[..end]);
    let (primary, secondary) = match names.find("<<") {
        Some(i) => (name_part(&names[..i]), name_part(&names[i + 2..])),
        None => (name_part(&names), String::new()),
    };
    if !primary.is_empty() {
        push("last_name", primary.clone(), names_check);
    }
    if !secondary.is_empty() {
        push("first_name", secondary.clone(), names_check);
    }
    let full = [primary, secondary].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ");
    if !full.is_empty() {
        push("name", full, names_check);
    }

    let nat = p.nationality.bytes(&lines);
    push("nationality", trim_fillers(nat), if alpha_ok(nat) { Check::Unchecked } else { Check::Failed });

    let dob_b = p.dob.covered.first().map(|(s, _)| s.bytes(&lines)).unwrap_or(&[]);
    let dob = date(dob_b, |yy| if 2000 + yy <= reference_year { 2000 + yy } else { 1900 + yy });
    // Unknown parts (`<`) are allowed in a date of birth: given as read.
    let dob_form_ok = dob.is_some() || dob_b.contains(&b'<');
    let dob_ok = p.dob.passes(&lines) && dob_form_ok;
    push("dob", dob.unwrap_or_else(|| String::from_utf8_lossy(dob_b).into_owned()), check_of(dob_ok));

    let sex = p.sex.bytes(&lines);
    let (gender, sex_check) = match sex {
        b"M" => ("M", Check::Unchecked),
        b"F" => ("F", Check::Unchecked),
        b"X" | b"<" => ("X", Check::Unchecked),
        _ => ("", Check::Failed),
    };
    push("gender", if gender.is_empty() { String::from_utf8_lossy(sex).into_owned() } else { gender.to_string() }, sex_check);

    let exp_b = p.expiry.covered.first().map(|(s, _)| s.bytes(&lines)).unwrap_or(&[]);
    let exp = date(exp_b, |yy| {
        // The century putting the date within [reference - 50, reference + 49].
        let low = reference_year.saturating_sub(50);
        (1900..=2100).step_by(100).map(|c| c + yy).find(|y| *y >= low && *y < low + 100).unwrap_or(2000 + yy)
    });
    let exp_ok = p.expiry.passes(&lines) && (exp.is_some() || exp_b.contains(&b'<'));
    // An expiry written all in fillers is a document without one (a Vietnamese card valid
    // for life, "Không thời hạn"): no date to give, though its check digit still counts.
    if exp.is_some() || !exp_b.iter().all(|&b| b == b'<') {
        push("expiry_date", exp.unwrap_or_else(|| String::from_utf8_lossy(exp_b).into_owned()), check_of(exp_ok));
    }

    let mut check_digits: Vec<CheckDigit> =
        [&p.document_number, &p.dob, &p.expiry].iter().map(|g| CheckDigit { name: g.name, passed: g.passes(&lines) }).collect();
    if let Some(g) = &p.personal_number {
        let ok = g.passes(&lines);
        check_digits.push(CheckDigit { name: g.name, passed: ok });
        let value = trim_fillers(&g.data(&lines));
        if !value.is_empty() {
            push("personal_number", value, check_of(ok));
        }
    }
    let composite_ok = p.composite.passes(&lines);
    check_digits.push(CheckDigit { name: p.composite.name, passed: composite_ok });
    for (name, s) in &p.optional {
        let value = trim_fillers(s.bytes(&lines));
        if !value.is_empty() {
            push(name, value, check_of(composite_ok));
        }
    }
    let lines = lines.into_iter().map(|l| String::from_utf8_lossy(&l).into_owned()).collect();
    Mrz { format: p.format, lines, fields, check_digits, repairs }
}

/// Parses a zone's text (module doc). `reference_year`: the current year, to place
/// two-digit years. Check digits that fail are reported, not errors.
pub fn parse(text: &str, reference_year: u32) -> Result<Mrz, CodecError> {
    let (format, lines) = lines_of(text)?;
    Ok(build(format, lines, reference_year, Vec::new()))
}

type Change = ((usize, usize), u8, u8);

fn apply(lines: &mut [Vec<u8>], changes: &[Change], forward: bool) {
    for &((l, c), from, to) in changes {
        if let Some(ch) = lines.get_mut(l).and_then(|line| line.get_mut(c)) {
            *ch = if forward { to } else { from };
        }
    }
}

/// The digit an O, I, B or S in a numeric position stands for.
fn confused_digit(c: u8) -> Option<u8> {
    match c {
        b'O' => Some(b'0'),
        b'I' => Some(b'1'),
        b'B' => Some(b'8'),
        b'S' => Some(b'5'),
        _ => None,
    }
}

/// Where `judge` fails, replaces every O/I/B/S in the numeric positions of `covered` and
/// at `digit` by its digit, and keeps that only if `judge` then passes (module doc,
/// "Repair"). Returns the changes kept.
fn repair(covered: &[(Span, Kind)], digit: Option<(usize, usize)>, judge: &Group, lines: &mut [Vec<u8>]) -> Vec<Repair> {
    if judge.passes(lines) {
        return Vec::new();
    }
    let Some(digit) = digit else { return Vec::new() };
    let at = |(l, c): (usize, usize)| lines.get(l).and_then(|line| line.get(c)).copied();
    let changes: Vec<Change> = covered
        .iter()
        .filter(|(_, kind)| *kind == Kind::Numeric)
        .flat_map(|(s, _)| s.positions())
        .chain([digit])
        .filter_map(|pos| {
            let c = at(pos)?;
            Some((pos, c, confused_digit(c)?))
        })
        .collect();
    if changes.is_empty() {
        return Vec::new();
    }
    apply(lines, &changes, true);
    if !judge.passes(lines) {
        apply(lines, &changes, false);
        return Vec::new();
    }
    changes.iter().map(|&((l, c), from, to)| Repair { line: l + 1, column: c + 1, from: char::from(from), to: char::from(to) }).collect()
}

/// As [`parse`], after the explicit OCR repair (module doc, "Repair"); what was changed
/// is in [`Mrz::repairs`].
pub fn parse_with_repair(text: &str, reference_year: u32) -> Result<Mrz, CodecError> {
    let (format, mut lines) = lines_of(text)?;
    // Repairs never touch `<`, so the plan (which looks for the long document number's
    // `<`) stays right for the repaired lines.
    let p = plan(format, &lines);
    let mut repairs = Vec::new();
    for g in [&p.document_number, &p.dob, &p.expiry].into_iter().chain(p.personal_number.as_ref()) {
        repairs.extend(repair(&g.covered, g.digit, g, &mut lines));
    }
    // The composite digit itself last, judged over everything it covers (the fields with
    // their own digits are settled above and not touched again).
    repairs.extend(repair(&[], p.composite.digit, &p.composite, &mut lines));
    if !repairs.is_empty() && !p.composite.passes(&lines) {
        // The composite weighs the dates differently from their own digits: a repair its
        // own digit accepted by coincidence (the letter was not a misread digit) shows
        // here. Keep none.
        let (_, original) = lines_of(text)?;
        return Ok(build(format, original, reference_year, Vec::new()));
    }
    Ok(build(format, lines, reference_year, repairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConfidenceVerdict;

    const YEAR: u32 = 2024;
    /// ICAO Doc 9303 specimens (Part 4 TD3, Part 5 TD1, Part 6 TD2).
    const TD3: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10";
    const TD1: &str = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<";
    const TD2: &str = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6";
    /// A 12-character document number (Doc 9303 Part 5's long-number example).
    const TD1_LONG: &str = "I<UTOD23145890<7349<<<<<<<<<<<\n3407127M9507122UTO<<<<<<<<<<<2\nSTEVENSON<<PETER<JOHN<<<<<<<<<";

    fn values(m: &Mrz) -> Vec<(&str, &str, Check)> {
        m.fields.iter().map(|f| (f.field, f.value.as_str(), f.check)).collect()
    }

    fn cd(s: &str) -> char {
        char::from(b'0' + check_digit(s).unwrap_or(0))
    }

    fn pad(s: &str, n: usize) -> String {
        format!("{s:<<n$}")
    }

    /// A TD1 zone with every check digit computed (a long number goes into optional data).
    #[allow(clippy::too_many_arguments)]
    fn td1(number: &str, opt1: &str, dob: &str, sex: &str, exp: &str, nat: &str, opt2: &str, names: &str) -> String {
        let (principal, ncd, opt) = if number.len() <= 9 {
            (pad(number, 9), cd(&pad(number, 9)), opt1.to_string())
        } else {
            (number[..9].to_string(), '<', format!("{}{}<{opt1}", &number[9..], cd(number)))
        };
        let l1 = format!("I<UTO{principal}{ncd}{}", pad(&opt, 15));
        let mut l2 = format!("{dob}{}{sex}{exp}{}{nat}{}", cd(dob), cd(exp), pad(opt2, 11));
        let composite = cd(&format!("{}{}{}{}", &l1[5..30], &l2[0..7], &l2[8..15], &l2[18..29]));
        l2.push(composite);
        format!("{l1}\n{l2}\n{}", pad(names, 30))
    }

    /// A TD3 zone with every check digit computed.
    fn td3(number: &str, dob: &str, sex: &str, exp: &str, personal: &str, names: &str) -> String {
        let num = pad(number, 9);
        let pn = pad(personal, 14);
        let pcd = if personal.is_empty() { '<' } else { cd(&pn) };
        let mut l2 = format!("{num}{}UTO{dob}{}{sex}{exp}{}{pn}{pcd}", cd(&num), cd(dob), cd(exp));
        let composite = cd(&format!("{}{}{}", &l2[0..10], &l2[13..20], &l2[21..43]));
        l2.push(composite);
        format!("{}\n{l2}", pad(&format!("P<UTO{names}"), 44))
    }

    #[test]
    fn check_digit_known_answers() {
        assert_eq!(check_digit("L898902C3"), Some(6));
        assert_eq!(check_digit("D23145890"), Some(7));
        assert_eq!(check_digit("740812"), Some(2));
        assert_eq!(check_digit("120415"), Some(9));
        assert_eq!(check_digit("ZE184226B<<<<<"), Some(1));
        assert_eq!(check_digit("D23145890734"), Some(9));
        assert_eq!(check_digit("<<<"), Some(0));
        assert_eq!(check_digit(""), Some(0));
        assert_eq!(check_digit("ab"), None);
    }

    #[test]
    fn known_answer_td3() -> Result<(), CodecError> {
        let m = parse(TD3, YEAR)?;
        assert_eq!(m.format, Format::Td3);
        use Check::*;
        assert_eq!(
            values(&m),
            [
                ("document_type", "P", Unchecked),
                ("issuing_state", "UTO", Unchecked),
                ("document_number", "L898902C3", Passed),
                ("last_name", "ERIKSSON", Unchecked),
                ("first_name", "ANNA MARIA", Unchecked),
                ("name", "ERIKSSON ANNA MARIA", Unchecked),
                ("nationality", "UTO", Unchecked),
                ("dob", "12/08/1974", Passed),
                ("gender", "F", Unchecked),
                ("expiry_date", "15/04/2012", Passed),
                ("personal_number", "ZE184226B", Passed),
            ]
        );
        let names: Vec<(&str, bool)> = m.check_digits.iter().map(|c| (c.name, c.passed)).collect();
        assert_eq!(names, [("document_number", true), ("dob", true), ("expiry_date", true), ("personal_number", true), ("composite", true)]);
        assert!(m.all_checks_passed() && m.repairs.is_empty());
        assert!(m.card_fields().iter().all(|f| f.confidence_verdict.is_none()));
        Ok(())
    }

    /// A filler read inside a document number ("BL09793<C", seed 19) gives no number:
    /// with its check digit failing, and with it passing too (`<` for `0` weighs the
    /// same: "L8989<2C3" for L898902C3). Must-pass twin: the number read whole.
    #[test]
    fn a_document_number_with_a_filler_inside_is_not_given() -> Result<(), CodecError> {
        let number = |zone: &str| parse(zone, YEAR).map(|m| m.fields.iter().find(|f| f.field == "document_number").map(|f| (f.value.clone(), f.check)));
        assert_eq!(number(TD3)?, Some(("L898902C3".to_string(), Check::Passed)));
        let passing = TD3.replace("L898902C36", "L8989<2C36");
        assert!(parse(&passing, YEAR)?.check_digits.iter().any(|c| c.name == "document_number" && c.passed), "`<` weighs as `0`");
        assert_eq!(number(&passing)?, None);
        assert_eq!(number(&TD1.replace("D231458907", "D2314<8907"))?, None);
        assert_eq!(number(TD1)?, Some(("D23145890".to_string(), Check::Passed)));
        Ok(())
    }

    /// Letters read after three fillers on a names line are no name (the card's edge
    /// read as "J" at the end of an evened zone's names line); the same names without
    /// them as ever.
    #[test]
    fn names_end_at_three_fillers() -> Result<(), CodecError> {
        let name = |zone: &str| parse(zone, YEAR).map(|m| m.fields.iter().find(|f| f.field == "name").map(|f| f.value.clone()));
        assert_eq!(name(TD1)?.as_deref(), Some("ERIKSSON ANNA MARIA"));
        let junk = TD1.replace("ERIKSSON<<ANNA<MARIA<<<<<<<<<<", "ERIKSSON<<ANNA<MARIA<<<<<<<<<J");
        assert_eq!(name(&junk)?.as_deref(), Some("ERIKSSON ANNA MARIA"));
        // Two fillers still part the identifiers, one the components.
        let parts = TD1.replace("ERIKSSON<<ANNA<MARIA<<<<<<<<<<", "ERIKSSON<<ANNA<MARIA<LISA<<<<<");
        assert_eq!(name(&parts)?.as_deref(), Some("ERIKSSON ANNA MARIA LISA"));
        Ok(())
    }

    #[test]
    fn known_answer_td1_and_td2() -> Result<(), CodecError> {
        use Check::*;
        let expected = [
            ("document_type", "I", Unchecked),
            ("issuing_state", "UTO", Unchecked),
            ("document_number", "D23145890", Passed),
            ("last_name", "ERIKSSON", Unchecked),
            ("first_name", "ANNA MARIA", Unchecked),
            ("name", "ERIKSSON ANNA MARIA", Unchecked),
            ("nationality", "UTO", Unchecked),
            ("dob", "12/08/1974", Passed),
            ("gender", "F", Unchecked),
            ("expiry_date", "15/04/2012", Passed),
        ];
        for (text, format) in [(TD1, Format::Td1), (TD2, Format::Td2)] {
            let m = parse(text, YEAR)?;
            assert_eq!(m.format, format);
            assert_eq!(values(&m), expected, "{format:?}");
            assert!(m.all_checks_passed(), "{format:?}");
            assert_eq!(m.check_digits.len(), 4);
        }
        // The long document number: 12 characters, its check digit in the optional data.
        let m = parse(TD1_LONG, YEAR)?;
        assert_eq!(m.field("document_number").map(|f| (f.value.as_str(), f.check)), Some(("D23145890734", Passed)));
        assert_eq!(m.field("optional_data"), None);
        assert_eq!(m.field("dob").map(|f| f.value.as_str()), Some("12/07/1934"));
        assert_eq!(m.field("expiry_date").map(|f| f.value.as_str()), Some("12/07/1995"));
        assert_eq!(m.field("gender").map(|f| f.value.as_str()), Some("M"));
        assert!(m.all_checks_passed());
        Ok(())
    }

    #[test]
    fn an_expiry_all_fillers_is_no_date() -> Result<(), CodecError> {
        // A card valid for life: the zone's expiry is six fillers, its check digit 0.
        let z = td1("154360535", "036154360535", "540301", "F", "<<<<<<", "VNM", "", "HUYNH<<BAO<HANH");
        let m = parse(&z, YEAR)?;
        assert!(m.all_checks_passed(), "{z}");
        assert_eq!(m.field("expiry_date"), None, "{z}");
        assert!(m.check_digits.iter().any(|c| c.name == "expiry_date" && c.passed));
        // A date with one part unknown is still given as read.
        let z = td1("154360535", "036154360535", "540301", "F", "30<<<<", "VNM", "", "HUYNH<<BAO<HANH");
        assert_eq!(parse(&z, YEAR)?.field("expiry_date").map(|f| f.value.as_str()), Some("30<<<<"));
        Ok(())
    }

    #[test]
    fn input_forms_and_optional_data() -> Result<(), CodecError> {
        // One line, CRLF, indentation and blank lines: the same zone.
        for t in [TD3.replace('\n', ""), TD3.replace('\n', "\r\n"), format!("\n  {}  \n\n", TD3.replace('\n', "\n\t"))] {
            assert_eq!(parse(&t, YEAR)?.fields, parse(TD3, YEAR)?.fields);
        }
        // Optional data (checked by the composite only); a built long number.
        let z = td1("AB1234567", "VN0792030012", "900101", "M", "300101", "VNM", "X1", "NGUYEN<<VAN<A");
        let m = parse(&z, YEAR)?;
        assert!(m.all_checks_passed(), "{z}");
        assert_eq!(m.field("optional_data").map(|f| (f.value.as_str(), f.check)), Some(("VN0792030012", Check::Passed)));
        assert_eq!(m.field("optional_data_2").map(|f| (f.value.as_str(), f.check)), Some(("X1", Check::Passed)));
        assert_eq!(m.field("name").map(|f| f.value.as_str()), Some("NGUYEN VAN A"));
        assert_eq!(m.field("expiry_date").map(|f| f.value.as_str()), Some("01/01/2030"));
        let z = td1("ABCDEFGHIJKLM", "77", "900101", "<", "300101", "VNM", "", "A");
        let m = parse(&z, YEAR)?;
        assert!(m.all_checks_passed(), "{z}");
        assert_eq!(m.field("document_number").map(|f| f.value.as_str()), Some("ABCDEFGHIJKLM"));
        assert_eq!(m.field("optional_data").map(|f| f.value.as_str()), Some("77"));
        assert_eq!(m.field("gender").map(|f| f.value.as_str()), Some("X"));
        // Unknown parts of a date of birth; an unused personal number with check digit `<`.
        let z = td3("X1", "74<<<<", "M", "300101", "", "DOE<<JOHN");
        let m = parse(&z, YEAR)?;
        assert!(m.all_checks_passed(), "{z}");
        assert_eq!(m.field("dob").map(|f| (f.value.as_str(), f.check)), Some(("74<<<<", Check::Passed)));
        assert_eq!(m.field("personal_number"), None);
        Ok(())
    }

    /// Each check digit changed to each other digit: that check fails, its field is
    /// reported failed and marked UNSURE, never verified.
    #[test]
    fn every_check_digit_flipped_fails() -> Result<(), CodecError> {
        let long = td1("AB1234567", "OPT", "900101", "F", "300101", "VNM", "OPT2", "A<<B");
        let cases: [(&str, &[((usize, usize), &str, Option<&str>)]); 4] = [
            (
                TD3,
                &[
                    ((1, 9), "document_number", Some("document_number")),
                    ((1, 19), "dob", Some("dob")),
                    ((1, 27), "expiry_date", Some("expiry_date")),
                    ((1, 42), "personal_number", Some("personal_number")),
                    ((1, 43), "composite", None),
                ],
            ),
            (
                TD1,
                &[((0, 14), "document_number", Some("document_number")), ((1, 6), "dob", Some("dob")), ((1, 14), "expiry_date", Some("expiry_date")), ((1, 29), "composite", None)],
            ),
            (
                TD2,
                &[((1, 9), "document_number", Some("document_number")), ((1, 19), "dob", Some("dob")), ((1, 27), "expiry_date", Some("expiry_date")), ((1, 35), "composite", None)],
            ),
            (&long, &[((1, 29), "composite", Some("optional_data")), ((1, 29), "composite", Some("optional_data_2"))]),
        ];
        for (zone, digits) in cases {
            let lines: Vec<&str> = zone.lines().collect();
            for &((l, c), check, field) in digits {
                let original = lines[l].as_bytes()[c];
                for d in b'0'..=b'9' {
                    if d == original {
                        continue;
                    }
                    let mut changed: Vec<Vec<u8>> = lines.iter().map(|x| x.as_bytes().to_vec()).collect();
                    changed[l][c] = d;
                    let text = changed.iter().map(|x| String::from_utf8_lossy(x).into_owned()).collect::<Vec<_>>().join("\n");
                    let m = parse(&text, YEAR)?;
                    assert_eq!(m.check_digit(check), Some(false), "{text}");
                    assert!(!m.all_checks_passed());
                    if let Some(field) = field {
                        assert_eq!(m.field(field).map(|f| f.check), Some(Check::Failed), "{field} in {text}");
                        let entry = m.card_fields().into_iter().find(|f| f.field == field);
                        assert_eq!(entry.and_then(|f| f.confidence_verdict), Some(ConfidenceVerdict::Unsure));
                    }
                    // Fields not covered by the failing digit keep their own result.
                    assert_eq!(m.field("nationality").map(|f| f.check), Some(Check::Unchecked));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn ocr_fields_are_sure_only_when_checked() -> Result<(), CodecError> {
        let verdicts = |m: &Mrz| m.ocr_card_fields().into_iter().map(|f| (f.field, f.confidence_verdict)).collect::<Vec<_>>();
        let sure = Some(ConfidenceVerdict::Sure);
        let m = parse(TD3, YEAR)?;
        for (field, v) in verdicts(&m) {
            let checked = ["document_number", "dob", "expiry_date", "personal_number"].contains(&field.as_str());
            assert_eq!(v, if checked { sure } else { None }, "{field}");
        }
        // The date of birth's check digit changed: that field UNSURE, the others as before.
        let m = parse(&TD3.replace("7408122F", "7408123F"), YEAR)?;
        let v = verdicts(&m);
        assert!(v.contains(&("dob".to_string(), Some(ConfidenceVerdict::Unsure))), "{v:?}");
        assert!(v.contains(&("document_number".to_string(), sure)) && v.contains(&("expiry_date".to_string(), sure)), "{v:?}");
        // Random zones: SURE exactly where the check passed.
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(44);
        let chars: Vec<char> = "ABOISZ0123456789<<<<".chars().collect();
        for i in 0..2000 {
            let (n, w) = [(3, 30), (2, 36), (2, 44)][i % 3];
            let text = (0..n).map(|_| (0..w).map(|_| chars[rng.gen_range(0..chars.len())]).collect::<String>()).collect::<Vec<_>>().join("\n");
            if let Ok(m) = parse_with_repair(&text, YEAR) {
                for (f, c) in m.fields.iter().zip(m.ocr_card_fields()) {
                    assert_eq!(c.confidence_verdict == sure, f.check == Check::Passed, "{text}");
                    assert_eq!(c.confidence_verdict == Some(ConfidenceVerdict::Unsure), f.check == Check::Failed, "{text}");
                }
            }
        }
        Ok(())
    }

    #[test]
    fn must_fail() -> Result<(), CodecError> {
        for t in ["", "hello", "P<UTO", &TD3.replace('\n', "\n\n").replace("<10", "<1"), &format!("{TD1}\n{TD1}"), &"<".repeat(89)] {
            assert!(matches!(parse(t, YEAR), Err(CodecError::NotThisCard(_))), "{t:?}");
        }
        for t in [TD3.replace("ERIKSSON", "Eriksson"), TD3.replace("ANNA<", "ANNA "), TD1.replace("UTO<", "UTÖ<")] {
            assert!(matches!(parse(&t, YEAR), Err(CodecError::InvalidField { field: "mrz", .. })), "{t}");
        }
        assert!(matches!(parse(&TD3.replacen("P<", "V<", 1), YEAR), Err(CodecError::Unsupported(_))));
        assert!(matches!(parse(&TD3.replacen("P<", "<<", 1), YEAR), Err(CodecError::InvalidField { field: "document_type", .. })));
        // A day that does not exist, with a matching check digit: the field fails, the
        // digit passes.
        let z = td3("X1", "741312", "F", "300101", "", "A");
        let m = parse(&z, YEAR)?;
        assert_eq!((m.check_digit("dob"), m.field("dob").map(|f| (f.value.as_str(), f.check))), (Some(true), Some(("741312", Check::Failed))));
        let z = td3("X1", "740229", "F", "300101", "", "A");
        assert_eq!(parse(&z, YEAR)?.field("dob").map(|f| f.check), Some(Check::Failed), "1974 is not a leap year");
        // Malformed alphabetic fields: failed, whatever the digits say.
        let m = parse(&TD3.replace("UTO7408", "UT07408"), YEAR)?;
        assert_eq!(m.field("nationality").map(|f| (f.value.as_str(), f.check)), Some(("UT0", Check::Failed)));
        let m = parse(&TD3.replace("2F12", "2Q12"), YEAR)?;
        assert_eq!(m.field("gender").map(|f| (f.value.as_str(), f.check)), Some(("Q", Check::Failed)));
        // "T", which the Indian passport's printed page gives a transgender holder, is no
        // ICAO sex: as read, failed (never verified), not turned into `X`.
        let m = parse(&TD3.replace("2F12", "2T12"), YEAR)?;
        assert_eq!(m.field("gender").map(|f| (f.value.as_str(), f.check)), Some(("T", Check::Failed)));
        let m = parse(&TD3.replace("ANNA", "ANN4"), YEAR)?;
        assert_eq!(m.field("first_name").map(|f| f.check), Some(Check::Failed));
        // A long number with no room left for its check digit.
        let m = parse(&TD1.replace("D231458907<", "D23145890<<"), YEAR)?;
        assert_eq!(m.check_digit("document_number"), Some(false));
        Ok(())
    }

    #[test]
    fn repair_fixes_only_what_a_check_digit_confirms() -> Result<(), CodecError> {
        // O for 0 in a date (a numeric position), confirmed by the date's check digit.
        let ocr = TD3.replace("7408122F", "74O8122F");
        assert_eq!(parse(&ocr, YEAR)?.field("dob").map(|f| f.check), Some(Check::Failed));
        let m = parse_with_repair(&ocr, YEAR)?;
        assert_eq!(m.repairs, [Repair { line: 2, column: 16, from: 'O', to: '0' }]);
        assert!(m.all_checks_passed());
        assert_eq!(m.fields, parse(TD3, YEAR)?.fields);
        // I, O and S in an expiry date and its check digit, and I in the composite digit.
        let ocr = TD3.replace("1204159ZE", "I2O4IS9ZE").replace("<<<<<10", "<<<<<1O");
        let m = parse_with_repair(&ocr, YEAR)?;
        assert!(m.all_checks_passed(), "{:?}", m.repairs);
        assert_eq!(m.repairs.len(), 5);
        assert_eq!(m.lines.join("\n"), TD3);
        // B for 8 in a TD1 check digit and date.
        let ocr = TD1.replace("7408122F", "74OB122F");
        let m = parse_with_repair(&ocr, YEAR)?;
        assert_eq!(m.repairs, [Repair { line: 2, column: 3, from: 'O', to: '0' }, Repair { line: 2, column: 4, from: 'B', to: '8' }]);
        assert!(m.all_checks_passed());
        // The document number is alphanumeric: B may be B or 8, so it is not repaired,
        // even though 8 would pass (and so would a wrong 1 → I: D23I45B90).
        let ocr = TD1.replace("D23145890", "D23145B90");
        let m = parse_with_repair(&ocr, YEAR)?;
        assert!(m.repairs.is_empty());
        assert_eq!(m.field("document_number").map(|f| (f.value.as_str(), f.check)), Some(("D23145B90", Check::Failed)));
        // Nothing confirms it: left alone, still failed.
        let wrong = TD3.replace("7408122F", "74O8123F");
        let m = parse_with_repair(&wrong, YEAR)?;
        assert!(m.repairs.is_empty());
        assert_eq!(m.field("dob").map(|f| (f.value.as_str(), f.check)), Some(("74O812", Check::Failed)));
        // Alphabetic positions are never repaired (no check digit could confirm it).
        let m = parse_with_repair(&TD3.replace("UTO7408", "UT07408"), YEAR)?;
        assert!(m.repairs.is_empty());
        assert_eq!(m.field("nationality").map(|f| (f.value.as_str(), f.check)), Some(("UT0", Check::Failed)));
        // A zone that passes is not touched.
        for z in [TD1, TD2, TD3, TD1_LONG] {
            assert!(parse_with_repair(z, YEAR)?.repairs.is_empty());
        }
        // Other confusions (here Z for 2) are not tried.
        let m = parse_with_repair(&TD3.replace("7408122F", "74081Z2F"), YEAR)?;
        assert!(m.repairs.is_empty() && !m.all_checks_passed());
        // A date repair its own digit accepts but the composite does not (the letter
        // stood for another digit and a second error hides it): no repair is kept.
        let z = td3("X1", "740812", "F", "300101", "", "A");
        let lines: Vec<&str> = z.lines().collect();
        let mut found = false;
        for bad in b'1'..=b'9' {
            // 740812 → 74O812 with the composite changed so it no longer matches.
            let mut l2 = lines[1].as_bytes().to_vec();
            l2[15] = b'O';
            l2[43] = bad;
            let text = format!("{}\n{}", lines[0], String::from_utf8_lossy(&l2));
            if parse(&text.replace("74O812", "740812"), YEAR)?.check_digit("composite") == Some(false) {
                let m = parse_with_repair(&text, YEAR)?;
                assert!(m.repairs.is_empty(), "{text}");
                assert_eq!(m.field("dob").map(|f| f.check), Some(Check::Failed));
                found = true;
            }
        }
        assert!(found);
        Ok(())
    }

    /// Random valid zones with one digit of a date or check digit read as its look-alike
    /// letter: always repaired, exactly back to the zone. The same letter in the document
    /// number or personal number: never repaired.
    #[test]
    fn repair_properties_on_random_zones() -> Result<(), CodecError> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(31);
        let alnum = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let pick = |rng: &mut rand::rngs::StdRng, n: usize| (0..n).map(|_| char::from(alnum[rng.gen_range(0..alnum.len())])).collect::<String>();
        let look_alike = |c: u8| match c {
            b'0' => Some(b'O'),
            b'1' => Some(b'I'),
            b'8' => Some(b'B'),
            b'5' => Some(b'S'),
            _ => None,
        };
        let (mut numeric, mut alphanumeric) = (0, 0);
        for _ in 0..600 {
            let len = rng.gen_range(6..=9);
            let number = pick(&mut rng, len);
            let date = |rng: &mut rand::rngs::StdRng| format!("{:02}{:02}{:02}", rng.gen_range(0..100), rng.gen_range(1..=12), rng.gen_range(1..=28));
            let zone = td3(&number, &date(&mut rng), "M", &date(&mut rng), &pick(&mut rng, 8), "DOE<<JANE");
            assert!(parse(&zone, YEAR)?.all_checks_passed(), "{zone}");
            let mut l: Vec<Vec<u8>> = zone.lines().map(|x| x.as_bytes().to_vec()).collect();
            let spots: Vec<usize> = (0..44).filter(|&c| !(10..13).contains(&c) && c != 20 && look_alike(l[1][c]).is_some()).collect();
            let Some(&c) = spots.get(rng.gen_range(0..spots.len().max(1))) else { continue };
            let Some(to) = look_alike(l[1][c]) else { continue };
            l[1][c] = to;
            let text = l.iter().map(|x| String::from_utf8_lossy(x).into_owned()).collect::<Vec<_>>().join("\n");
            let m = parse_with_repair(&text, YEAR)?;
            let numeric_position = (13..20).contains(&c) || (21..28).contains(&c) || c == 9 || c == 42 || c == 43;
            if numeric_position {
                assert_eq!(m.lines.join("\n"), zone, "{text}");
                assert!(m.all_checks_passed() && m.repairs.len() == 1);
                numeric += 1;
            } else {
                assert!(m.repairs.is_empty(), "{text}: {:?}", m.repairs);
                assert_eq!(m.lines.join("\n"), text);
                alphanumeric += 1;
            }
        }
        assert!(numeric > 100 && alphanumeric > 50, "{numeric} {alphanumeric}");
        Ok(())
    }

    #[test]
    fn arbitrary_input_never_panics() {
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<<<<<<\n";
        crate::testing::never_panics(|t| parse(t, YEAR).map(|m| m.card_fields()), TD3, "", alphabet, 41);
        crate::testing::never_panics_n(|t| parse_with_repair(t, YEAR).map(|m| m.card_fields()), TD1, "", "OIBS0185<\nAZ\u{e9} ", 42, 5000);
        // Zones of the right shape with random content, every format, both entry points;
        // card_fields marks exactly the failed fields UNSURE.
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(43);
        let chars: Vec<char> = "ABOISZ0123456789<<<<".chars().collect();
        for i in 0..3000 {
            let (n, w) = [(3, 30), (2, 36), (2, 44)][i % 3];
            let text = (0..n).map(|_| (0..w).map(|_| chars[rng.gen_range(0..chars.len())]).collect::<String>()).collect::<Vec<_>>().join("\n");
            for m in [parse(&text, YEAR), parse_with_repair(&text, rng.gen_range(0..3000))].into_iter().flatten() {
                for (f, c) in m.fields.iter().zip(m.card_fields()) {
                    assert_eq!(f.check == Check::Failed, c.confidence_verdict == Some(ConfidenceVerdict::Unsure));
                }
            }
        }
    }
}
