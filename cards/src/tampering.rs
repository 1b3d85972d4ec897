//! Card tampering (issue 8; the eKYC check's `card_tampering`, and
//! `detect_id_card_tampering_sync`): what the card's own integrity marks and the
//! agreement of its sources say. Pure: the card worker gathers the evidence, this weighs
//! it. Named checks (`details[].name`), each `good`, `tampered` or `not_performed` with a
//! score (0–1, how strongly it points to tampering) and an `info` line:
//!
//! | name | tampered when |
//! |---|---|
//! | `qr_signature` | the Aadhaar Secure QR's signature does not verify |
//! | `mrz_check_digits` | a check digit of the machine-readable zone fails |
//! | `id_checksum` | the printed card number fails its own check (Verhoeff, structure) |
//! | `sources_agree` | the QR or MRZ and the printed text read a field differently |
//! | `portrait` | the card front carries no face |
//!
//! A check the card cannot have (no QR on a PAN card) is left out; one that could have
//! run and did not (no face models for `portrait`) is `not_performed`. The verdict:
//! `tampered` when any check is; else `incomplete` when any check was not performed (a
//! check that did not run is never a pass); else `good`. Not detected (documented):
//! a portrait swapped for another real face, altered printed text that no second source
//! covers, physical alterations without a machine-readable trace.

use crate::merge::{Agreement, Disagreement};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckVerdict {
    Good,
    Tampered,
    NotPerformed,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TamperCheck {
    pub name: &'static str,
    pub verdict: CheckVerdict,
    pub score: f32,
    pub info: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tampering {
    /// `good`, `tampered` or `incomplete` (module doc).
    pub verdict: &'static str,
    /// The strongest evidence of tampering, 0–1.
    pub score: f32,
    pub details: Vec<TamperCheck>,
}

/// The evidence (`None`: the card carries no such mark, or it was not read).
#[derive(Debug, Clone, Default)]
pub struct Evidence<'a> {
    /// The Secure QR's signature: `Some(true)` verified, `Some(false)` failed.
    pub qr_signature: Option<bool>,
    /// The zone's check digits: (passed, total).
    pub mrz_check_digits: Option<(usize, usize)>,
    /// The printed card number's own check: `Some(true)` passed.
    pub id_checksum: Option<bool>,
    /// From `crate::merge`: fields read the same / differently by two sources.
    pub agreements: &'a [Agreement],
    pub disagreements: &'a [Disagreement],
    /// A face on the card front: `Some(Ok(found))`, or `Some(Err(why))` when the face
    /// detector could not run; `None` for sides that carry no portrait.
    pub portrait: Option<Result<bool, String>>,
}

fn check(name: &'static str, tampered: bool, info: String) -> TamperCheck {
    let (verdict, score) = if tampered { (CheckVerdict::Tampered, 1.0) } else { (CheckVerdict::Good, 0.0) };
    TamperCheck { name, verdict, score, info }
}

/// The verdict over the evidence (module doc).
pub fn assess(e: &Evidence<'_>) -> Tampering {
    let mut details = Vec::new();
    if let Some(ok) = e.qr_signature {
        details.push(check("qr_signature", !ok, if ok { "signature verified".into() } else { "signature does not verify".into() }));
    }
    if let Some((passed, total)) = e.mrz_check_digits {
        details.push(check("mrz_check_digits", passed < total, format!("{passed} of {total} check digits pass")));
    }
    if let Some(ok) = e.id_checksum {
        details.push(check("id_checksum", !ok, if ok { "the card number passes its check".into() } else { "the card number fails its check".into() }));
    }
    if !e.agreements.is_empty() || !e.disagreements.is_empty() {
        let info = if e.disagreements.is_empty() {
            format!("{} field(s) read the same from two sources", e.agreements.len())
        } else {
            let fields: Vec<String> = e.disagreements.iter().map(|d| format!("{} ({} vs {})", d.field, d.first.0.as_str(), d.second.0.as_str())).collect();
            format!("read differently: {}", fields.join(", "))
        };
        details.push(check("sources_agree", !e.disagreements.is_empty(), info));
    }
    match &e.portrait {
        Some(Ok(found)) => details.push(check("portrait", !found, if *found { "a face on the card".into() } else { "no face on the card front".into() })),
        Some(Err(why)) => details.push(TamperCheck { name: "portrait", verdict: CheckVerdict::NotPerformed, score: 0.0, info: why.clone() }),
        None => {}
    }
    let score = details.iter().map(|d| d.score).fold(0.0, f32::max);
    let verdict = if details.iter().any(|d| d.verdict == CheckVerdict::Tampered) {
        "tampered"
    } else if details.is_empty() || details.iter().any(|d| d.verdict == CheckVerdict::NotPerformed) {
        // Nothing checked at all is not a clean card either.
        "incomplete"
    } else {
        "good"
    };
    Tampering { verdict, score, details }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::Source;

    #[test]
    fn any_tampered_check_decides_and_nothing_checked_is_not_good() {
        let clean = assess(&Evidence { qr_signature: Some(true), portrait: Some(Ok(true)), ..Evidence::default() });
        assert_eq!((clean.verdict, clean.score, clean.details.len()), ("good", 0.0, 2));
        let forged = assess(&Evidence { qr_signature: Some(false), portrait: Some(Ok(true)), ..Evidence::default() });
        assert_eq!((forged.verdict, forged.score), ("tampered", 1.0));
        assert_eq!(assess(&Evidence::default()).verdict, "incomplete");
        let no_models = assess(&Evidence { id_checksum: Some(true), portrait: Some(Err("no face models".into())), ..Evidence::default() });
        assert_eq!(no_models.verdict, "incomplete");
    }

    #[test]
    fn disagreeing_sources_and_failed_digits_are_named() {
        let d = [Disagreement { field: "dob".into(), first: (Source::Qr, "01/01/1990".into()), second: (Source::Printed, "01/01/1991".into()) }];
        let t = assess(&Evidence { disagreements: &d, mrz_check_digits: Some((3, 4)), portrait: Some(Ok(true)), ..Evidence::default() });
        assert_eq!(t.verdict, "tampered");
        let names: Vec<_> = t.details.iter().filter(|c| c.verdict == CheckVerdict::Tampered).map(|c| c.name).collect();
        assert_eq!(names, ["mrz_check_digits", "sources_agree"]);
        assert!(t.details[1].info.contains("dob (qr vs ocr)"), "{}", t.details[1].info);
        let missing = assess(&Evidence { portrait: Some(Ok(false)), ..Evidence::default() });
        assert_eq!((missing.verdict, missing.details[0].info.as_str()), ("tampered", "no face on the card front"));
    }
}
