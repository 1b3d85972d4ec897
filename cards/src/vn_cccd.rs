//! The QR code on Vietnam's chip-based citizen identity card (Căn cước công dân, CCCD,
//! front side, and the 2024 Căn cước card): UTF-8 text, fields separated by `|`:
//!
//! ```text
//! 079203001234|123456789|Nguyễn Văn A|01011990|Nam|12 Lê Lợi, Bến Nghé, Quận 1, TP Hồ Chí Minh|15062021
//! id (12 digits) | former 9-digit CMND number (may be empty) | full name | date of birth
//! DDMMYYYY | sex (Nam / Nữ) | place of residence | date of issue DDMMYYYY
//! ```
//!
//! Some cards append further fields (e.g. the card's expiry on newer cards); they are
//! ignored. Output field names follow the spec's list: `id`, `old_id` (when present),
//! `name`, `dob`, `gender`, `address`, `issue_date`; dates normalized to `DD/MM/YYYY`,
//! sex (`Nam`/`Nữ` on the card) to the one gender vocabulary of every card type, `M`/`F`,
//! whitespace trimmed.

use crate::{CardField, CodecError};

const CARD: &str = "vn.national_id";
/// QR text longer than this is not a CCCD (the real ones are ~100–200 bytes).
const MAX_LEN: usize = 1024;

fn invalid(field: &'static str, reason: impl Into<String>) -> CodecError {
    CodecError::InvalidField { field, reason: reason.into() }
}

/// `DDMMYYYY` → `DD/MM/YYYY`, checking that the day exists (leap years included).
pub fn normalize_date(field: &'static str, s: &str) -> Result<String, CodecError> {
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(field, "expected 8 digits DDMMYYYY"));
    }
    let (d, m, y) = crate::checked_date(&s[0..2], &s[2..4], &s[4..8]).ok_or_else(|| invalid(field, format!("no such date {s}")))?;
    Ok(format!("{d:02}/{m:02}/{y:04}"))
}

/// Parses the QR text of a CCCD into card_information entries.
pub fn parse(text: &str) -> Result<Vec<CardField>, CodecError> {
    if text.len() > MAX_LEN || !text.contains('|') {
        return Err(CodecError::NotThisCard(CARD));
    }
    let parts: Vec<&str> = text.trim().split('|').map(str::trim).collect();
    if parts.len() < 7 {
        return Err(CodecError::NotThisCard(CARD));
    }
    let id = parts[0];
    if id.len() != 12 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CodecError::NotThisCard(CARD));
    }
    let old_id = parts[1];
    if !old_id.is_empty() && (old_id.len() != 9 || !old_id.bytes().all(|b| b.is_ascii_digit())) {
        return Err(invalid("old_id", "expected 9 digits or nothing"));
    }
    let name = parts[2];
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(invalid("name", "empty or with control characters"));
    }
    let dob = normalize_date("dob", parts[3])?;
    let gender = match parts[4] {
        "Nam" => "M",
        "Nữ" | "Nu" | "Nư" => "F",
        other => return Err(invalid("gender", format!("expected Nam or Nữ, got {other:?}"))),
    };
    let address = parts[5];
    if address.chars().any(char::is_control) {
        return Err(invalid("address", "control characters"));
    }
    let issue_date = normalize_date("issue_date", parts[6])?;
    let mut out = vec![CardField::new("id", id)];
    if !old_id.is_empty() {
        out.push(CardField::new("old_id", old_id));
    }
    out.extend([
        CardField::new("name", name),
        CardField::new("dob", dob),
        CardField::new("gender", gender),
        CardField::new("address", address),
        CardField::new("issue_date", issue_date),
    ]);
    Ok(out)
}

/// A CCCD holder's name in the one form the service answers: every word capitalised
/// ("Nguyễn Văn An"), NFC — as the card's QR code writes it and as Vietnamese names are
/// written. The card prints the name in capitals; answering the print's form only when
/// the QR went unread would give one card two names depending on the photo.
pub fn name_in_written_form(name: &str) -> String {
    let composed = crate::printed::nfc(name);
    let words: Vec<String> = composed
        .split_whitespace()
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars.flat_map(char::to_lowercase)).collect(),
                None => String::new(),
            }
        })
        .collect();
    crate::printed::nfc(&words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "079203001234|123456789|Nguyễn Văn A|29021992|Nam|12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh|15062021";

    fn value<'a>(fields: &'a [CardField], name: &str) -> Option<&'a str> {
        fields.iter().find(|f| f.field == name).map(|f| f.value.as_str())
    }

    #[test]
    fn a_name_printed_in_capitals_is_answered_as_the_qr_writes_it() {
        assert_eq!(name_in_written_form("NGUYỄN VĂN AN"), "Nguyễn Văn An");
        assert_eq!(name_in_written_form("ĐẶNG  THỊ HƯƠNG "), "Đặng Thị Hương");
        assert_eq!(name_in_written_form("Nguyễn Văn A"), "Nguyễn Văn A");
        // Decomposed tone marks (U+0301 after E) come out composed.
        assert_eq!(name_in_written_form("LE\u{0302}\u{0301} VA\u{0306}N"), "Lế Văn");
        assert_eq!(name_in_written_form(""), "");
    }

    #[test]
    fn known_answer() -> Result<(), CodecError> {
        let f = parse(SAMPLE)?;
        let names: Vec<&str> = f.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(names, ["id", "old_id", "name", "dob", "gender", "address", "issue_date"]);
        assert_eq!(value(&f, "id"), Some("079203001234"));
        assert_eq!(value(&f, "name"), Some("Nguyễn Văn A"));
        assert_eq!(value(&f, "dob"), Some("29/02/1992"));
        assert_eq!(value(&f, "issue_date"), Some("15/06/2021"));
        assert_eq!(value(&f, "address"), Some("12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"));
        Ok(())
    }

    #[test]
    fn without_the_old_number_and_with_extra_fields() -> Result<(), CodecError> {
        let f = parse("001099012345||Trần Thị B|05111999|Nữ|Hà Nội|01072024|01072049\n")?;
        assert_eq!(value(&f, "old_id"), None);
        assert_eq!(value(&f, "gender"), Some("F"));
        assert_eq!(value(&f, "issue_date"), Some("01/07/2024"));
        Ok(())
    }

    #[test]
    fn must_fail() {
        let not_card = ["", "hello", "https://example.com/?a|b", "12345|x|y|z|w|v|u", &"9".repeat(2000)];
        for t in not_card {
            assert!(matches!(parse(t), Err(CodecError::NotThisCard(_))), "{t:?}");
        }
        let bad = [
            ("dob", SAMPLE.replace("29021992", "29021993")),   // not a leap year
            ("dob", SAMPLE.replace("29021992", "2902199")),    // 7 digits
            ("issue_date", SAMPLE.replace("15062021", "15132021")), // month 13
            ("gender", SAMPLE.replace("|Nam|", "|M|")),
            ("old_id", SAMPLE.replace("123456789", "12345")),
            ("name", SAMPLE.replace("Nguyễn Văn A", "")),
            ("name", SAMPLE.replace("Nguyễn Văn A", "A\u{0}B")),
        ];
        crate::testing::assert_invalid_fields(parse, &bad);
    }

    /// Random and mutated inputs: never a panic (a slice on a char boundary, an overflow).
    #[test]
    fn arbitrary_input_never_panics() {
        crate::testing::never_panics(parse, SAMPLE, "", "0123456789|Nữ Nam/ễăâ\u{0}\u{202e}é|||", 7);
    }
}
