//! The QR code of India's Aadhaar letter and card in its original (pre-2019) form: one
//! XML element with the resident's data as attributes:
//!
//! ```text
//! <?xml version="1.0" encoding="UTF-8"?>
//! <PrintLetterBarcodeData uid="234123412346" name="Rahul Kumar" gender="M" yob="1990"
//!  co="S/O Ram Kumar" house="12" street="MG Road" lm="Near Temple" loc="Sector 5"
//!  vtc="Gurgaon" po="Gurgaon" dist="Gurgaon" subdist="Gurgaon" state="Haryana"
//!  pc="122001" dob="15/08/1990"/>
//! ```
//!
//! The Aadhaar number's last digit is a Verhoeff check digit, verified here. The newer
//! "Secure QR" (a long decimal number: compressed, signed data with a photo) is not this
//! format: it is [`CodecError::NotThisCard`] here and read by
//! [`crate::in_aadhaar_secure`], which checks UIDAI's signature.
//!
//! Output: `id`, `name`, `gender` (`M`/`F`/`T` as printed), `dob` (`DD/MM/YYYY`) or
//! `year_of_birth`, `address` (the address parts joined with ", " in the letter's order),
//! `pin_code`.

use crate::{CardField, CodecError};

const CARD: &str = "in.aadhaar";
const MAX_LEN: usize = 4096;
/// Address attributes in the order the letter prints them (the Secure QR's address is
/// joined in the same order, so both codes of one card give the same `address`).
/// The pin code is not part of `address`: it is its own entry, `pin_code`, as every
/// Aadhaar reader (QR and print) answers it.
pub(crate) const ADDRESS_PARTS: [&str; 10] = ["co", "house", "street", "lm", "loc", "vtc", "po", "subdist", "dist", "state"];

fn invalid(field: &'static str, reason: impl Into<String>) -> CodecError {
    CodecError::InvalidField { field, reason: reason.into() }
}

// Verhoeff: the dihedral group D5 multiplication table, the position permutation and
// the inverse table.
const D: [[u8; 10]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const P: [[u8; 10]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/// Whether a string of ASCII digits passes the Verhoeff check (its last digit being the
/// check digit). Non-digits fail.
pub fn verhoeff_valid(digits: &str) -> bool {
    let mut c = 0u8;
    for (i, b) in digits.bytes().rev().enumerate() {
        if !b.is_ascii_digit() {
            return false;
        }
        c = D[usize::from(c)][usize::from(P[i % 8][usize::from(b - b'0')])];
    }
    !digits.is_empty() && c == 0
}

/// The five XML entities, and numeric character references; `None` for anything else
/// (an unknown entity means the text is not what it claims).
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find(';')?;
        let entity = &after[..end];
        let ch = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = entity.strip_prefix("#x").or_else(|| entity.strip_prefix("#X")) {
                    u32::from_str_radix(hex, 16).ok()?
                } else {
                    entity.strip_prefix('#')?.parse::<u32>().ok()?
                };
                char::from_u32(code)?
            }
        };
        out.push(ch);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// The attributes of the one `PrintLetterBarcodeData` element, in order. `None` when the
/// text is not such an element.
fn attributes(text: &str) -> Option<Vec<(String, String)>> {
    let start = text.find("<PrintLetterBarcodeData")? + "<PrintLetterBarcodeData".len();
    let body = &text[start..];
    let end = body.find("/>").or_else(|| body.find('>'))?;
    let mut rest = body[..end].trim_start();
    let mut out = Vec::new();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let name = rest[..eq].trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let value_end = after[1..].find(quote)? + 1;
        out.push((name.to_string(), unescape(&after[1..value_end])?));
        rest = after[value_end + 1..].trim_start();
    }
    Some(out)
}

/// `DD/MM/YYYY`, `DD-MM-YYYY` or `YYYY-MM-DD` → `DD/MM/YYYY`.
pub(crate) fn normalize_dob(s: &str) -> Result<String, CodecError> {
    let parts: Vec<&str> = s.split(['/', '-']).collect();
    let (d, m, y) = match parts.as_slice() {
        [y, m, d] if y.len() == 4 => (*d, *m, *y),
        [d, m, y] => (*d, *m, *y),
        _ => return Err(invalid("dob", format!("unknown date format {s:?}"))),
    };
    let (d, m, y) = crate::checked_date(d, m, y).ok_or_else(|| invalid("dob", format!("no such date {s:?}")))?;
    Ok(format!("{d:02}/{m:02}/{y:04}"))
}

/// Parses the text of an Aadhaar QR code into card_information entries.
pub fn parse(text: &str) -> Result<Vec<CardField>, CodecError> {
    let trimmed = text.trim();
    if trimmed.len() > 100 && trimmed.bytes().all(|b| b.is_ascii_digit()) {
        // A Secure QR: `in_aadhaar_secure::parse` reads it (the service tries both).
        return Err(CodecError::NotThisCard("in.aadhaar XML"));
    }
    if trimmed.len() > MAX_LEN {
        return Err(CodecError::NotThisCard(CARD));
    }
    let attrs = attributes(trimmed).ok_or(CodecError::NotThisCard(CARD))?;
    let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.trim()).filter(|v| !v.is_empty());
    let uid = get("uid").ok_or(CodecError::NotThisCard(CARD))?;
    if uid.len() != 12 || !verhoeff_valid(uid) || uid.starts_with(['0', '1']) {
        return Err(invalid("id", "not a valid Aadhaar number (12 digits, Verhoeff check, not starting with 0 or 1)"));
    }
    let name = get("name").ok_or_else(|| invalid("name", "missing"))?;
    if name.chars().any(char::is_control) {
        return Err(invalid("name", "control characters"));
    }
    let mut out = vec![CardField::new("id", uid), CardField::new("name", name)];
    if let Some(g) = get("gender") {
        match g {
            "M" | "F" | "T" | "MALE" | "FEMALE" | "TRANSGENDER" => out.push(CardField::new("gender", &g[..1])),
            other => return Err(invalid("gender", format!("expected M, F or T, got {other:?}"))),
        }
    }
    match (get("dob"), get("yob")) {
        (Some(dob), _) => out.push(CardField::new("dob", normalize_dob(dob)?)),
        (None, Some(yob)) if yob.len() == 4 && yob.bytes().all(|b| b.is_ascii_digit()) => out.push(CardField::new("year_of_birth", yob)),
        (None, Some(yob)) => return Err(invalid("yob", format!("{yob:?}"))),
        (None, None) => {}
    }
    let address: Vec<&str> = ADDRESS_PARTS.iter().filter_map(|k| get(k)).collect();
    if address.iter().any(|p| p.chars().any(char::is_control)) {
        return Err(invalid("address", "control characters"));
    }
    if !address.is_empty() {
        out.push(CardField::new("address", address.join(", ")));
    }
    if let Some(pc) = get("pc") {
        if pc.len() != 6 || !pc.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid("pin_code", "expected 6 digits"));
        }
        out.push(CardField::new("pin_code", pc));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<PrintLetterBarcodeData uid="234123412346" name="Rahul Kumar" gender="M" yob="1990" co="S/O Ram &amp; Sons" house="12" street="MG Road" lm="Near Temple" loc="Sector 5" vtc="Gurgaon" po="Gurgaon" dist="Gurgaon" subdist="Gurgaon" state="Haryana" pc="122001" dob="15/08/1990"/>"#;

    fn value<'a>(f: &'a [CardField], name: &str) -> Option<&'a str> {
        f.iter().find(|x| x.field == name).map(|x| x.value.as_str())
    }

    #[test]
    fn verhoeff_known_answers() {
        // Wikipedia's worked example: 236 has check digit 3.
        assert!(verhoeff_valid("2363"));
        assert!(!verhoeff_valid("2364"));
        assert!(verhoeff_valid("234123412346"), "UIDAI's sample number");
        assert!(!verhoeff_valid("234123412345"));
        // Every single-digit error and every adjacent transposition of the sample is caught.
        let s: Vec<u8> = b"234123412346".to_vec();
        for i in 0..s.len() {
            for d in b'0'..=b'9' {
                if d != s[i] {
                    let mut t = s.clone();
                    t[i] = d;
                    assert!(!verhoeff_valid(std::str::from_utf8(&t).unwrap_or("")), "digit {i} -> {}", d - b'0');
                }
            }
            if i + 1 < s.len() && s[i] != s[i + 1] {
                let mut t = s.clone();
                t.swap(i, i + 1);
                assert!(!verhoeff_valid(std::str::from_utf8(&t).unwrap_or("")), "swap {i}");
            }
        }
        assert!(!verhoeff_valid("") && !verhoeff_valid("12a4"));
    }

    #[test]
    fn known_answer() -> Result<(), CodecError> {
        let f = parse(SAMPLE)?;
        assert_eq!(value(&f, "id"), Some("234123412346"));
        assert_eq!(value(&f, "name"), Some("Rahul Kumar"));
        assert_eq!(value(&f, "gender"), Some("M"));
        assert_eq!(value(&f, "dob"), Some("15/08/1990"));
        assert_eq!(value(&f, "pin_code"), Some("122001"));
        assert_eq!(
            value(&f, "address"),
            Some("S/O Ram & Sons, 12, MG Road, Near Temple, Sector 5, Gurgaon, Gurgaon, Gurgaon, Gurgaon, Haryana")
        );
        // Year of birth only; single quotes; ISO date.
        let f = parse("<PrintLetterBarcodeData uid='234123412346' name='A B' gender='F' yob='1985'/>")?;
        assert_eq!((value(&f, "year_of_birth"), value(&f, "dob")), (Some("1985"), None));
        let f = parse(&SAMPLE.replace("15/08/1990", "1990-08-15"))?;
        assert_eq!(value(&f, "dob"), Some("15/08/1990"));
        Ok(())
    }

    #[test]
    fn must_fail() {
        for t in ["", "hello", "<Other uid=\"234123412346\"/>", "079203001234|x|y|01011990|Nam|a|01012020"] {
            assert!(matches!(parse(t), Err(CodecError::NotThisCard(_))), "{t:?}");
        }
        let secure = "9".repeat(1500);
        assert!(matches!(parse(&secure), Err(CodecError::NotThisCard(_))));
        let bad = [
            ("id", SAMPLE.replace("234123412346", "234123412345")),
            ("id", SAMPLE.replace("234123412346", "034123412346")),
            ("gender", SAMPLE.replace("gender=\"M\"", "gender=\"X\"")),
            ("dob", SAMPLE.replace("15/08/1990", "31/02/1990")),
            ("pin_code", SAMPLE.replace("122001", "12200")),
            ("name", SAMPLE.replace("name=\"Rahul Kumar\"", "name=\"\"")),
        ];
        crate::testing::assert_invalid_fields(parse, &bad);
        // Unknown entity, unterminated quote, attribute without a value.
        for t in [SAMPLE.replace("&amp;", "&bogus;"), SAMPLE.replace("name=\"Rahul Kumar\"", "name=\"Rahul"), SAMPLE.replace("gender=\"M\"", "gender")] {
            assert!(parse(&t).is_err(), "{t}");
        }
    }

    #[test]
    fn arbitrary_input_never_panics() {
        let alphabet = "<>/=\"' &;#x0123456789abcPrintLetterBarcodeDatauid\u{e9}\u{0}";
        crate::testing::never_panics(parse, SAMPLE, "<PrintLetterBarcodeData ", alphabet, 11);
    }
}
