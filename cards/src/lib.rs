//! ID-card data codecs: pure functions from what a card carries (the text of its QR
//! code: Vietnam's CCCD, India's original Aadhaar QR and its signed Secure QR; the
//! machine-readable zone of passports and ID cards, once OCR gives its text) to the API's
//! normalized `card_information` entries. No IO, no images:
//! `vision/src/qr.rs` finds and decodes QR codes in images, `workers/src/card/mod.rs` wires
//! both into `read_id_card_info_with_sanity`. Every codec is total over arbitrary input
//! (tested with random and mutated strings): bad data is an error, never a panic.
//!
//! Where a card carries its own integrity check (the Secure QR's RSA signature, the MRZ's
//! check digits), a value that fails it is never returned as verified: it comes back
//! with [`CardField::confidence_verdict`] `UNSURE` (and the codec's result says which
//! check failed), so no caller can mistake it for checked data.

pub mod in_aadhaar;
pub mod in_aadhaar_secure;
pub mod merge;
pub mod mrz;
pub mod printed;
pub mod tampering;
pub mod vn_cccd;

use serde::Serialize;

/// Day, month and year written as decimal parts (day and month one or two digits, year
/// four), when that calendar day exists (leap years included) between 1900 and 2100.
/// The one date check every card codec (and SIM's date fields) uses.
pub fn checked_date(day: &str, month: &str, year: &str) -> Option<(u32, u32, u32)> {
    let digits = |s: &str, len: std::ops::RangeInclusive<usize>| {
        (len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u32>().ok()).flatten()
    };
    let (d, m, y) = (digits(day, 1..=2)?, digits(month, 1..=2)?, digits(year, 4..=4)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (d >= 1 && d <= days && (1900..=2100).contains(&y)).then_some((d, m, y))
}

/// The contract's `confidence_verdict` of a `card_information` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ConfidenceVerdict {
    #[serde(rename = "SURE")]
    Sure,
    #[serde(rename = "UNSURE")]
    Unsure,
}

/// One `card_information` entry (the spec's field/value). `confidence_verdict` is left
/// out (`None`) for exact data (a QR read as is); codecs set it to `UNSURE` on a value
/// whose own check failed (a Secure QR whose signature does not verify, an MRZ field whose
/// check digit does not match), so that value is never passed on as verified.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardField {
    pub field: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence_verdict: Option<ConfidenceVerdict>,
    /// 0–1, set where sources are merged (`merge`): 1 for exact data, the OCR confidence
    /// for OCR-read values, 0 for a value whose own check failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence_score: Option<f32>,
    /// Identifiers read by OCR: the engine's confidence in each character returned,
    /// 0–1 (`printed::digit_confidences`); absent where no OCR reading of these
    /// characters backs the value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digit_confidence_scores: Option<Vec<f32>>,
}

impl CardField {
    pub fn new(field: &str, value: impl Into<String>) -> Self {
        CardField { field: field.to_string(), value: value.into(), confidence_verdict: None, confidence_score: None, digit_confidence_scores: None }
    }

    /// The same entry marked `UNSURE`.
    pub fn unsure(self) -> Self {
        CardField { confidence_verdict: Some(ConfidenceVerdict::Unsure), ..self }
    }

    /// The same entry marked `SURE` (a value read by OCR that its own check confirms).
    pub fn sure(self) -> Self {
        CardField { confidence_verdict: Some(ConfidenceVerdict::Sure), ..self }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The text is not this card's format at all (another card, another QR code).
    #[error("not a {0} QR code")]
    NotThisCard(&'static str),
    /// The format is right but a field is invalid.
    #[error("invalid {field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    /// This card's QR, in a variant this build cannot read (answered "not performed").
    #[error("{0} is not readable in this build")]
    Unsupported(&'static str),
}

/// Test helpers shared by the codecs' must-fail and random-input tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::{CardField, CodecError};

    /// Each `(field, text)` must fail with `InvalidField` naming that field.
    pub fn assert_invalid_fields(parse: fn(&str) -> Result<Vec<CardField>, CodecError>, cases: &[(&str, String)]) {
        for (field, text) in cases {
            match parse(text) {
                Err(CodecError::InvalidField { field: f, .. }) => assert_eq!(f, *field, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    /// 20,000 random strings over `alphabet` (behind `prefix`) and single-character
    /// mutations of `sample`: the codec answers, never panics.
    pub fn never_panics(parse: fn(&str) -> Result<Vec<CardField>, CodecError>, sample: &str, prefix: &str, alphabet: &str, seed: u64) {
        never_panics_n(parse, sample, prefix, alphabet, seed, 20_000);
    }

    /// As [`never_panics`], `rounds` times (for codecs whose every call inflates and
    /// verifies a signature, where 20,000 rounds take seconds in a debug build).
    pub fn never_panics_n(parse: fn(&str) -> Result<Vec<CardField>, CodecError>, sample: &str, prefix: &str, alphabet: &str, seed: u64, rounds: usize) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let alphabet: Vec<char> = alphabet.chars().collect();
        for _ in 0..rounds {
            let len = rng.gen_range(0..160);
            let s: String = (0..len).map(|_| alphabet[rng.gen_range(0..alphabet.len())]).collect();
            let _ = parse(&format!("{prefix}{s}"));
            let mut m: Vec<char> = sample.chars().collect();
            let i = rng.gen_range(0..m.len());
            m[i] = alphabet[rng.gen_range(0..alphabet.len())];
            let _ = parse(&m.into_iter().collect::<String>());
        }
    }
}
