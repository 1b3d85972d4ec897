//! One `card_information` from every source that read the card (issue 8): the QR code
//! (exact bytes, error-corrected; the Aadhaar Secure QR also signed), the machine-readable
//! zone (OCR, most fields under check digits) and the printed text (OCR). Pure: the card
//! worker hands the readings in, this decides which value each field gets, how sure it is,
//! and where the sources contradict each other (which `crate::tampering` weighs).
//!
//! Rules (docs/API.md "Card reading in detail"):
//! - A field's value comes from the most trusted source that has it: QR, then an MRZ
//!   value whose check did not fail, then a printed value whose check did not fail, then
//!   the failed ones (still returned, never `SURE`).
//! - `SURE` only for a value a machine check vouches for: a QR value (exact data; unless
//!   its signature failed), an MRZ value whose check digit passed, a printed value under a
//!   strong check (a Verhoeff-checked number), or any value that a second, independent
//!   source read the same. Everything else is `UNSURE`, and so is any value another source
//!   contradicts: a returned wrong value is far worse than a missing one, and a wrong value
//!   marked `SURE` is the worst outcome of all.
//! - `confidence_score`: 1 for QR data (decoded exactly), the OCR engine's confidence
//!   (0–1) for OCR-read values, the best of agreeing sources; 0 for a value whose own
//!   check failed.

use crate::{CardField, ConfidenceVerdict};

/// Where a reading came from, most trusted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Qr,
    Mrz,
    Printed,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Qr => "qr",
            Source::Mrz => "mrz",
            Source::Printed => "ocr",
        }
    }
}

/// What the value's own check said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// A check that vouches for the value (signature, check digit, Verhoeff).
    Strong,
    /// Only a plausibility check passed or none applies (a name, a real calendar date).
    Weak,
    /// Its own check failed (a signature, a check digit, an impossible structure).
    Failed,
}

/// One source's value of one field.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub source: Source,
    pub field: String,
    pub value: String,
    /// 0–1: 1 for exact data, the OCR confidence for OCR.
    pub confidence: f32,
    pub check: Check,
    /// An OCR-read identifier's per-character confidences (0–1), where found.
    pub digits: Option<Vec<f32>>,
    /// Read from a zone line that OCR read longer than its format: a stray mark (the
    /// card's edge beside the line's first letter) may have been read into it as a
    /// letter, so it is no fuller reading of a name than the print's
    /// ("WBANERJEE<<PRADEEP" for "PRADEEP BANERJEE"). It still confirms a print it
    /// reads the same as.
    pub overlong_line: bool,
    /// A zone's name on a card whose print sets names in capitals or as written
    /// (`in.national_id`): the zone's capitals say nothing of which, so with no print
    /// read it is no name as printed ("POOJA KUMARI PILLAI" for the print's "Pooja Kumari
    /// Pillai": the independent set's seeds 25-29 and 32, blur and glare). It still
    /// confirms a print it reads the same as, which is then given as printed.
    pub print_case_unknown: bool,
}

impl Reading {
    /// A QR value: exact, vouched for unless the code's signature failed.
    pub fn qr(f: &CardField) -> Reading {
        let failed = f.confidence_verdict == Some(ConfidenceVerdict::Unsure);
        Reading {
            source: Source::Qr,
            field: f.field.clone(),
            value: f.value.clone(),
            confidence: if failed { 0.0 } else { 1.0 },
            check: if failed { Check::Failed } else { Check::Strong },
            digits: None,
            overlong_line: false,
            print_case_unknown: false,
        }
    }

    /// A printed value read by OCR, with its check as the caller judged it and, for an
    /// identifier, its per-character confidences.
    pub fn printed(f: &crate::printed::PrintedField, check: Check, digits: Option<Vec<f32>>) -> Reading {
        Reading { source: Source::Printed, field: f.field.to_string(), value: f.value.clone(), confidence: f.confidence, check, digits, overlong_line: false, print_case_unknown: false }
    }

    /// A printed value the caller put together rather than a parser's field (a date of
    /// issue found from the zone's expiry, a zone's name as the print spells it, a number
    /// from its groups), with its check as the caller judged it.
    pub fn composed(field: &str, value: String, confidence: f32, check: Check) -> Reading {
        Reading { source: Source::Printed, field: field.to_string(), value, confidence, check, digits: None, overlong_line: false, print_case_unknown: false }
    }

    /// An MRZ value as `Mrz::ocr_card_fields` marks it (SURE: check digit passed; UNSURE:
    /// failed; none: no check digit covers it), with the zone's OCR confidence (0–1).
    /// `overlong_line`: the value's line was read longer than its format;
    /// `print_case_unknown`: see the field.
    pub fn mrz(f: &CardField, confidence: f32, overlong_line: bool, print_case_unknown: bool) -> Reading {
        let check = match f.confidence_verdict {
            Some(ConfidenceVerdict::Sure) => Check::Strong,
            Some(ConfidenceVerdict::Unsure) => Check::Failed,
            None => Check::Weak,
        };
        Reading { source: Source::Mrz, field: f.field.clone(), value: f.value.clone(), confidence, check, digits: None, overlong_line, print_case_unknown }
    }
}

/// Two sources that read one field differently.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Disagreement {
    pub field: String,
    pub first: (Source, String),
    pub second: (Source, String),
}

/// Two sources that read one field the same.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Agreement {
    pub field: String,
    pub sources: (Source, Source),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    pub fields: Vec<CardField>,
    pub agreements: Vec<Agreement>,
    pub disagreements: Vec<Disagreement>,
}

/// Two readings spelt alike, diacritics included: case and spacing aside (a card prints
/// names in capitals, its QR may not).
fn same_spelling(a: &str, b: &str) -> bool {
    let words = |s: &str| s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
    words(a) == words(b)
}

/// How two readings of a field compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Same,
    /// Close enough to be one value misread (a letter in a long address).
    Close,
    Different,
}

/// Compares two values of `field` the way the sources can differ without contradicting
/// each other: case, diacritics (an MRZ has none), spacing and punctuation never count;
/// identifiers and dates must then be identical; free text (names, addresses) may differ
/// by OCR slips (`Close`: at most 1 edit in 8 characters; `Different` beyond 1 in 3).
pub fn compare(field: &str, a: &str, b: &str) -> Comparison {
    let (mut a, mut b) = (spaced(a), spaced(b));
    if field == "nationality" {
        // A zone's country code against the printed word for it.
        for v in [&mut a, &mut b] {
            if let Some((_, code)) = NATIONALITY_CODES.iter().find(|(word, _)| *word == v.replace(' ', "")) {
                *v = (*code).to_string();
            }
        }
    }
    if a == b {
        return Comparison::Same;
    }
    // Names: the same words in another order (a zone writes the surname first).
    if field.ends_with("name") && !a.is_empty() && words(&a) == words(&b) {
        return Comparison::Same;
    }
    // Names are measured word order aside.
    let (a, b) = if field.ends_with("name") { (words(&a).concat(), words(&b).concat()) } else { (a.replace(' ', ""), b.replace(' ', "")) };
    if is_exact_field(field) || a.is_empty() || b.is_empty() {
        return Comparison::Different;
    }
    let d = edit_distance(&a, &b);
    let n = a.chars().count().max(b.chars().count());
    if d * 8 <= n {
        Comparison::Close
    } else if d * 3 > n {
        Comparison::Different
    } else {
        // Between the two: neither vouched for nor contradicted.
        Comparison::Close
    }
}

/// A value's words, each its letters and digits only (marks dropped), empty ones left out.
fn alphanumeric_words(s: &str) -> Vec<String> {
    s.split_whitespace().map(|w| w.chars().filter(|c| c.is_alphanumeric()).collect::<String>()).filter(|w| !w.is_empty()).collect()
}

/// Whether `print` (in capitals, plain ASCII) reads `zone`'s words in order, one or more
/// of them without its first letters ("MENON OHIT" of MENON ROHIT), each such word of
/// two letters or more.
fn lost_first_letters(print: &str, zone: &str) -> bool {
    let (p, z) = (alphanumeric_words(print), alphanumeric_words(zone));
    let capitals = |w: &String| w.chars().all(|c| c.is_ascii_uppercase());
    let cut_short = |pw: &String, zw: &String| pw.len() >= 2 && zw.len() > pw.len() && zw.ends_with(pw.as_str());
    !p.is_empty()
        && p.len() == z.len()
        && p.iter().chain(&z).all(capitals)
        && p.iter().zip(&z).all(|(pw, zw)| pw == zw || cut_short(pw, zw))
        && p.iter().zip(&z).any(|(pw, zw)| cut_short(pw, zw))
}

/// Whether `print` (in capitals, plain ASCII) is `zone`'s words whole, in order, but
/// for one run of the zone's words it has not, each of three letters or more (a zone's
/// fillers misread as letters make a word of one or two: "RAHUL K"); with
/// `end_lost_too` false, a run other than the zone's last words (a zone line read
/// longer than its format may end in a speck read as letters).
fn lost_whole_words(print: &str, zone: &str, end_lost_too: bool) -> bool {
    let (p, z) = (alphanumeric_words(print), alphanumeric_words(zone));
    let capitals = |w: &String| w.chars().all(|c| c.is_ascii_uppercase());
    if p.is_empty() || z.len() <= p.len() || !p.iter().chain(&z).all(capitals) {
        return false;
    }
    let lost = z.len() - p.len();
    let ends = if end_lost_too { p.len() } else { p.len() - 1 };
    (0..=ends).any(|at| z[..at] == p[..at] && z[at + lost..] == p[at..] && z[at..at + lost].iter().all(|w| w.len() >= 3))
}

/// `print` (plain ASCII capitals) split into words as `zone` (capitals, its words in any
/// rotation: a zone writes the surname first) splits the same letters, where the two
/// split them differently; `None` where the letters differ or the split is the same.
fn resplit_as_zone(print: &str, zone: &str) -> Option<String> {
    if !print.chars().all(|c| c.is_ascii_uppercase() || c == ' ') {
        return None;
    }
    let zone_words: Vec<&str> = zone.split_whitespace().collect();
    if zone_words.is_empty() || zone_words.iter().any(|w| !w.chars().all(|c| c.is_ascii_uppercase())) {
        return None;
    }
    let letters: String = print.split_whitespace().collect();
    let print_words: Vec<&str> = print.split_whitespace().collect();
    (0..zone_words.len()).find_map(|turn| {
        let rotated: Vec<&str> = zone_words[turn..].iter().chain(&zone_words[..turn]).copied().collect();
        (rotated.concat() == letters && rotated != print_words).then(|| rotated.join(" "))
    })
}

/// Whether `print`'s last words are `zone`'s words, in order, after one or more words
/// the zone has not (letters and digits compared, case aside).
fn after_stray_words(print: &str, zone: &str) -> bool {
    let words = |s: &str| -> Vec<String> { alphanumeric_words(s).iter().map(|w| w.to_uppercase()).collect() };
    let (p, z) = (words(print), words(zone));
    !z.is_empty() && p.len() > z.len() && p[p.len() - z.len()..] == z[..]
}

/// The print's spelling of a name a machine-readable zone read (`zone`, given names
/// first as the zone parser orders them), found on a printed line the parsers took no
/// name from (its label misread, a mark read before it: "PEN Hemant Rao"): the line's
/// last words are the zone's words in order, letters compared and case aside, each of
/// ASCII letters only, save one mark of a single character read after them (the edge of
/// a punched hole: "Bhavana Singh a"). Returned as printed ("Hemant Rao"): a zone
/// writes every name in capitals, the card may not. A line whose words mix capitals and
/// lower case is no spelling (OCR misreads case). `None` for a zone name of one word
/// (too easily a word of another line), when no line ends so, or when two lines spell
/// it differently.
pub fn printed_spelling_of_zone_name<'a>(zone: &str, lines: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let zone_words: Vec<String> = zone.split_whitespace().map(str::to_uppercase).collect();
    if zone_words.len() < 2 || zone_words.iter().any(|w| !w.chars().all(|c| c.is_ascii_uppercase())) {
        return None;
    }
    let mut found: Option<String> = None;
    for line in lines {
        let mut words: Vec<String> = line.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string()).filter(|w| !w.is_empty()).collect();
        if words.last().is_some_and(|w| w.chars().count() == 1) && zone_words.last().is_some_and(|z| z.chars().count() > 1) {
            words.pop();
        }
        let Some(tail) = words.len().checked_sub(zone_words.len()).map(|at| &words[at..]) else { continue };
        if !spell_zone_words(tail, &zone_words) {
            continue;
        }
        if !one_spelling(&mut found, tail.join(" ")) {
            return None;
        }
    }
    found
}

/// Whether printed `words` are the zone's `zone_words` (in capitals) letter for letter,
/// in capitals or in one case throughout: a word in capitals beside one not (of two
/// letters or more) is OCR's case misread, not the print's spelling ("Divya RANI" off a
/// blurred passport printing DIVYA RANI, the independent set's seed 13).
fn spell_zone_words<P: AsRef<str>, Z: AsRef<str>>(words: &[P], zone_words: &[Z]) -> bool {
    words.len() == zone_words.len()
        && words.iter().zip(zone_words).all(|(p, z)| p.as_ref().chars().all(|c| c.is_ascii_alphabetic()) && p.as_ref().to_uppercase() == z.as_ref())
        && !mixes_case(&words.iter().map(AsRef::as_ref).collect::<Vec<&str>>().join(" "))
}

/// Keeps `spelled` as the one spelling found so far; false when another was found before.
fn one_spelling(found: &mut Option<String>, spelled: String) -> bool {
    match found {
        Some(other) if *other != spelled => false,
        _ => {
            *found = Some(spelled);
            true
        }
    }
}

/// The print's spelling of a zone's value that no check digit covers (a name, a
/// nationality code), where a printed line holds its words: one word (`DAS`, `IND`) as a
/// word of a line in capitals; several (`RAHUL SHAH`) as consecutive words of a line, in
/// the zone's capitals or in one case throughout (`Rahul Shah`, returned so). Each of
/// the zone's words has two letters or more (a single letter, a sex or a document code,
/// is too easily a speck read as a letter) and letters only. `None` when no line holds
/// them, or when two lines spell them differently. Unlike
/// [`printed_spelling_of_zone_name`], the words may stand anywhere in the line: on a
/// blurred card the labels around a value are read as noise ("DAS ae"), so a line
/// neither starts nor ends with its value.
pub fn printed_words_of_zone_value<'a>(zone: &str, lines: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let zone_words: Vec<&str> = zone.split_whitespace().collect();
    if zone_words.is_empty() || zone_words.iter().any(|w| w.chars().count() < 2 || !w.chars().all(|c| c.is_ascii_uppercase())) {
        return None;
    }
    let mut found: Option<String> = None;
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric())).filter(|w| !w.is_empty()).collect();
        for run in words.windows(zone_words.len()) {
            let alike = if zone_words.len() == 1 { run[0] == zone_words[0] } else { spell_zone_words(run, &zone_words) };
            if alike && !one_spelling(&mut found, run.join(" ")) {
                return None;
            }
        }
    }
    found
}

/// Whether `name`'s words (of two letters or more) mix capitals and lower case: a word
/// all in capitals beside one that is not ("Divya RANI"). A card prints a name in one
/// case throughout, so OCR misread the case of one of them.
fn mixes_case(name: &str) -> bool {
    let capitals: Vec<bool> = name.split_whitespace().filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() > 1).map(|w| w.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase)).collect();
    capitals.contains(&true) && capitals.contains(&false)
}

/// Whether `short` reads as `long` with letters lost, word order aside (a zone writes
/// the surname first): each of its words lies inside a different word of `long`, and
/// `long` has more letters. A `long` with a digit in it is no fuller reading of a name
/// (a zone's filler misread: "VENKATESH KUMAR 9 6REDDY").
fn loses_letters(short: &str, long: &str) -> bool {
    let (short, long) = (spaced(short), spaced(long));
    if long.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let (sw, lw): (Vec<&str>, Vec<&str>) = (short.split_whitespace().collect(), long.split_whitespace().collect());
    let letters = |ws: &[&str]| ws.iter().map(|w| w.chars().filter(|c| c.is_alphabetic()).count()).sum::<usize>();
    if sw.is_empty() || letters(&sw) >= letters(&lw) {
        return false;
    }
    let mut used = vec![false; lw.len()];
    sw.iter().all(|w| match (0..lw.len()).find(|&i| !used[i] && lw[i].contains(w)) {
        Some(i) => {
            used[i] = true;
            true
        }
        None => false,
    })
}

/// Printed nationalities (as [`comparable`] leaves them) and their ICAO codes.
const NATIONALITY_CODES: [(&str, &str); 4] = [("indian", "ind"), ("india", "ind"), ("vietnam", "vnm"), ("vietnamese", "vnm")];

/// Fields whose value is a code or a date: any difference is a different value.
fn is_exact_field(field: &str) -> bool {
    matches!(
        field,
        "id" | "id_last4" | "old_id" | "document_number" | "dob" | "year_of_birth" | "issue_date" | "expiry_date" | "incorporation_date" | "gender" | "pin_code" | "personal_number"
    )
}

/// [`comparable`] keeping one space between words.
fn spaced(s: &str) -> String {
    crate::printed::fold(s)
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a [`spaced`] string, sorted.
fn words(s: &str) -> Vec<&str> {
    let mut w: Vec<&str> = s.split(' ').collect();
    w.sort_unstable();
    w
}

/// Lower case, diacritics removed (`printed::fold`, the parsers' own folding), letters
/// and digits only.
pub fn comparable(s: &str) -> String {
    crate::printed::fold(s).chars().filter(|c| c.is_alphanumeric()).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The entries a zone's check digits cover (ICAO 9303: the document number, the dates of
/// birth and expiry, the optional personal number).
const ZONE_CHECKED_FIELDS: [&str; 5] = ["id", "document_number", "dob", "expiry_date", "personal_number"];

/// The merge (module doc). Fields keep the order they first appear in, sources taken
/// most trusted first.
pub fn merge(readings: &[Reading]) -> Merged {
    let mut sorted: Vec<&Reading> = readings.iter().filter(|r| !r.value.trim().is_empty()).collect();
    sorted.sort_by_key(|r| r.source);
    let mut names: Vec<&str> = Vec::new();
    for r in &sorted {
        if !names.contains(&r.field.as_str()) {
            names.push(&r.field);
        }
    }
    let mut out = Merged::default();
    for name in names {
        let of_field: Vec<&Reading> = sorted.iter().copied().filter(|r| r.field == name).collect();
        // The most trusted source whose check did not fail, else the most trusted.
        let Some(chosen) = of_field.iter().copied().find(|r| r.check != Check::Failed).or_else(|| of_field.first().copied()) else {
            continue;
        };
        // A zone's entry whose own check digit failed, and that no other source read with
        // a check that held: one of its characters (or the digit) was misread, most likely
        // the entry's, which has more of them ("PEL0235" for PE1903623, seed 32's glared
        // card). Shown in `mrz.parsed`, not given.
        if chosen.source == Source::Mrz && chosen.check == Check::Failed && ZONE_CHECKED_FIELDS.contains(&name) {
            continue;
        }
        // A zone's name or place is no better read than the print's (no check digit
        // covers it, and the zone drops diacritics and cuts long names): where the print
        // has one too, the print's is given, as printed. They agree or it is UNSURE.
        let chosen = match chosen {
            c if c.source == Source::Mrz && c.check == Check::Weak && !is_exact_field(name) => {
                of_field.iter().copied().find(|r| r.source == Source::Printed && r.check != Check::Failed).unwrap_or(c)
            }
            c => c,
        };
        let mut confirmed = false;
        let mut contradicted = false;
        let mut score = chosen.confidence;
        for other in of_field.iter().copied().filter(|r| r.source != chosen.source) {
            match compare(name, &chosen.value, &other.value) {
                Comparison::Same => {
                    if other.check != Check::Failed {
                        confirmed = true;
                        score = score.max(other.confidence);
                    }
                    out.agreements.push(Agreement { field: name.to_string(), sources: (chosen.source, other.source) });
                }
                Comparison::Close => {}
                Comparison::Different => {
                    contradicted = true;
                    out.disagreements.push(Disagreement {
                        field: name.to_string(),
                        first: (chosen.source, chosen.value.clone()),
                        second: (other.source, other.value.clone()),
                    });
                }
            }
        }
        // A zone's name read from a line longer than its format (a stray mark at the
        // card's edge read as letters: "LJOSHI<<HARISH<KUMAR<<<…<S" for
        // "JOSHI<<HARISH<KUMAR", its print washed out by glare) is no name on its own:
        // it may confirm a print that reads the same, never stand for one.
        if chosen.source == Source::Mrz && (chosen.overlong_line || chosen.print_case_unknown) && !confirmed {
            continue;
        }
        // A zone's text has no diacritics, no punctuation and the surname first: where
        // the print reads the same words, the value is given as printed.
        let shown = match chosen.source {
            Source::Mrz if !is_exact_field(name) => of_field
                .iter()
                .find(|r| r.source == Source::Printed && r.check != Check::Failed && compare(name, &chosen.value, &r.value) == Comparison::Same)
                .map_or(&chosen.value, |r| &r.value),
            _ => &chosen.value,
        };
        // A name or place the print and the zone read differently, where one lost letters
        // of the other (cut short where the print faded or a corner was cut: "ER" for
        // "IYER", "HAN SNEHA" for "SNEHA KHAN"; a whole word lost counts even where the
        // rest compares close): the more complete one is given, UNSURE. The zone's only
        // where the print is plain ASCII (the zone has no diacritics): a print with
        // diacritics cut short ("Thành Quang" of "HO THANH QUANG") is not given at all.
        // The zone cut short, or two readings neither of which holds the other: the
        // print's, UNSURE, as before.
        let mut more_complete: Option<String> = None;
        if !confirmed && !is_exact_field(name) && chosen.source == Source::Printed {
            // A print in capitals that reads the zone's words whole but for a run of them
            // ("KUMAR" and "AGARWAL KUMAR" for RAJESH KUMAR and AGARWAL RAJESH KUMAR: the
            // independent set's seed 33, a punched passport whose page layout read RAJESH
            // with the portrait): the print lost them. The zone's, UNSURE. A zone line
            // read longer than its format vouches so only for words inside it, not at
            // its end.
            let words_lost = of_field.iter().find(|r| r.source == Source::Mrz && r.check != Check::Failed && lost_whole_words(&chosen.value, &r.value, !r.overlong_line));
            // A print in capitals with the zone's letters, in the zone's order, split
            // into words elsewhere ("DIV YA PATEL" for PATEL<<DIVYA: the independent
            // set's seed 36, a dark card whose print OCR read with a gap in a word): a
            // zone writes each gap as a filler, a glyph of its own on a fixed pitch,
            // where the print's gaps are only spacing OCR may misjudge. The zone's
            // words, UNSURE.
            let split_as_zone = of_field.iter().filter(|r| r.source == Source::Mrz && r.check != Check::Failed && !r.overlong_line).find_map(|zone| resplit_as_zone(&chosen.value, &zone.value));
            if let Some(resplit) = split_as_zone {
                more_complete = Some(resplit);
            } else if let Some(zone) = words_lost {
                more_complete = Some(zone.value.clone());
            } else if let Some(zone) = of_field.iter().find(|r| r.source == Source::Mrz && !r.overlong_line && compare(name, &chosen.value, &r.value) != Comparison::Same) {
                let word_lost = chosen.value.split_whitespace().count() != zone.value.split_whitespace().count();
                if (contradicted || word_lost) && loses_letters(&chosen.value, &zone.value) {
                    if !chosen.value.is_ascii() {
                        continue;
                    }
                    // Only against a print that compares different, word for word: a
                    // zone whose fillers were read as letters ("REKHA KUMARI B EGUPTA",
                    // "KARTHIK KUMAR S GSHARMA") has words the print has not, and the
                    // whole print stays.
                    if contradicted && !word_lost {
                        more_complete = Some(zone.value.clone());
                    }
                } else if chosen.value.is_ascii() && after_stray_words(&chosen.value, &zone.value) {
                    // A print that reads the zone's words after words the zone has not
                    // ("GES. BALAJI" for BALAJI: the portrait's edge beside the given
                    // names read as a word): a zone spells a name from its first word (a
                    // long one is cut at its end), so what the print has before them is
                    // no part of it. The zone's words are given as the print spells
                    // them ("ER. Sandeep Das": "Sandeep Das", not the zone's capitals),
                    // UNSURE.
                    more_complete = Some(printed_spelling_of_zone_name(&zone.value, [chosen.value.as_str()]).unwrap_or_else(|| zone.value.clone()));
                } else if lost_first_letters(&chosen.value, &zone.value) {
                    // A print in capitals whose word lacks the zone word's first letters
                    // ("OHIT" for ROHIT: the independent set's seed 21, glare beside the
                    // given name washed its R out): the zone's, UNSURE. Only letters
                    // lost at a word's start: a zone's filler misread as a letter adds
                    // one at a word's end ("MENONK"), and that print stays.
                    more_complete = Some(zone.value.clone());
                }
            }
        }
        // A print confirmed by a zone whose words mix capitals and lower case: one of its
        // words had its case misread (a blurred passport's DIVYA RANI read "Divya RANI",
        // the independent set's seed 13): the zone's capitals, UNSURE.
        let mut case_misread = false;
        if confirmed && chosen.source == Source::Printed && !is_exact_field(name) && mixes_case(&chosen.value) {
            if let Some(zone) = of_field.iter().find(|r| r.source == Source::Mrz && r.check != Check::Failed && compare(name, &chosen.value, &r.value) == Comparison::Same) {
                more_complete = Some(zone.value.clone());
                case_misread = true;
            }
        }
        let shown = more_complete.as_ref().unwrap_or(shown);
        // A zone has no diacritics: it vouches for a print's letters, never for its marks
        // ("Nguyên Ngọc Vy" and "Nguyễn Ngọc Vy" are both NGUYEN<<NGOC<VY; the independent
        // set's seed 8 had the first given SURE). Nor punctuation, which a zone does not
        // write either: a noisy passport's "IMRAN." was SURE on the zone's IMRAN (seed
        // 16). A value shown with marks or punctuation is SURE only where a reading spelt
        // with the same marks vouches for it: a checked one (the QR's), or two that spell
        // it alike.
        let spelt_alike: Vec<&Reading> = of_field.iter().copied().filter(|r| r.check != Check::Failed && same_spelling(&r.value, shown)).collect();
        let plain = is_exact_field(name) || shown.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ');
        let marks_vouched = plain || spelt_alike.iter().any(|r| r.check == Check::Strong) || spelt_alike.len() >= 2;
        let sure = chosen.check != Check::Failed && !contradicted && (chosen.check == Check::Strong || confirmed) && marks_vouched && !case_misread;
        if chosen.check == Check::Failed {
            score = 0.0;
        }
        // Per-character confidences come from an OCR reading of exactly the value shown.
        let digits = of_field.iter().find(|r| r.digits.is_some() && r.value == *shown).and_then(|r| r.digits.clone());
        out.fields.push(CardField {
            field: name.to_string(),
            value: shown.clone(),
            confidence_verdict: Some(if sure { ConfidenceVerdict::Sure } else { ConfidenceVerdict::Unsure }),
            confidence_score: Some((score.clamp(0.0, 1.0) * 1000.0).round() / 1000.0),
            digit_confidence_scores: digits,
        });
    }
    out
}

/// The fields a card's number gives where no source read them (**choice**, docs/API.md:
/// one field a client can key on whichever source the card was read by), inserted after
/// `id`; nothing where the field is there already:
/// - an Aadhaar's `id_last4` (the Secure QR's; the code unread: blur, glare) from an `id`
///   given `SURE` (Verhoeff-checked, or a QR's): its last four digits, which the code's
///   reference id starts with, with the number's verdict and score;
/// - a CCCD's `document_number` (the back's zone's; the zone unread: dark, a hole) from
///   its twelve-digit `id` whose own check did not fail: its last nine digits, which the
///   zone's document number is, `UNSURE` (the card's convention, not a reading), with the
///   number's score; also in place of a zone's document number whose check digit failed.
pub fn with_fields_of_id(card_type: &str, fields: &mut Vec<CardField>) {
    let (field, from, verdict) = match card_type {
        "in.aadhaar" => ("id_last4", 8, None),
        "vn.national_id" => ("document_number", 3, Some(ConfidenceVerdict::Unsure)),
        _ => return,
    };
    // A value of the field already given stands, unless its own check failed (merged at
    // score 0: a zone's document number whose check digit did not hold, "050104G6U"
    // under glare, seed 25): then the number's digits replace it.
    let given = fields.iter().position(|f| f.field == field);
    if given.is_some_and(|g| fields[g].confidence_score != Some(0.0)) {
        return;
    }
    let twelve_digits = |f: &CardField| f.field == "id" && f.value.len() == 12 && f.value.bytes().all(|b| b.is_ascii_digit());
    // Not from a number whose own check failed (merged at score 0): its digits are in doubt.
    let checked = |f: &CardField| f.confidence_score.is_some_and(|c| c > 0.0);
    let Some(at) = fields.iter().position(|f| twelve_digits(f) && checked(f) && (verdict.is_some() || f.confidence_verdict == Some(ConfidenceVerdict::Sure))) else {
        return;
    };
    let id = &fields[at];
    let derived = CardField {
        field: field.into(),
        value: id.value[from..].to_string(),
        confidence_verdict: verdict.or(id.confidence_verdict),
        confidence_score: id.confidence_score,
        digit_confidence_scores: id.digit_confidence_scores.as_ref().map(|d| d.iter().skip(from).copied().collect()),
    };
    match given {
        Some(g) => fields[g] = derived,
        None => fields.insert(at + 1, derived),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConfidenceVerdict::{Sure, Unsure};

    #[test]
    fn a_zone_value_is_found_in_the_words_of_a_printed_line() {
        // One word, anywhere in a line, in capitals.
        assert_eq!(printed_words_of_zone_value("DAS", ["REPUBLIC OF INDIA", "DAS ae"]), Some("DAS".into()));
        assert_eq!(printed_words_of_zone_value("IND", ["Pp IND S6088s63"]), Some("IND".into()));
        // Several, consecutive, in the zone's capitals or in one case throughout.
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["eee RAHUL SHAH ;"]), Some("RAHUL SHAH".into()));
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["Rahul Shah"]), Some("Rahul Shah".into()));
        // Must not: a word inside another, a single letter, case mixed or misread, the
        // words apart or in another order, a digit in the zone's value, two spellings.
        assert_eq!(printed_words_of_zone_value("DAS", ["DASH ae", "das"]), None);
        assert_eq!(printed_words_of_zone_value("M", ["INDIAN M 28/10/2005"]), None);
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["Rahul SHAH"]), None);
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["RAMUL SHAH"]), None);
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["RAHUL", "SHAH"]), None);
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["SHAH RAHUL"]), None);
        assert_eq!(printed_words_of_zone_value("RAHU1 SHAH", ["RAHU1 SHAH"]), None);
        assert_eq!(printed_words_of_zone_value("RAHUL SHAH", ["RAHUL SHAH", "Rahul Shah"]), None);
        assert_eq!(printed_words_of_zone_value("", ["RAHUL SHAH"]), None);
    }

    fn r(source: Source, field: &str, value: &str, confidence: f32, check: Check) -> Reading {
        Reading { source, field: field.into(), value: value.into(), confidence, check, digits: None, overlong_line: false, print_case_unknown: false }
    }

    fn verdict(m: &Merged, field: &str) -> (String, Option<ConfidenceVerdict>) {
        let f = m.fields.iter().find(|f| f.field == field).expect(field);
        (f.value.clone(), f.confidence_verdict)
    }

    /// A zone entry whose check digit failed is no value on its own (seed 32's glared
    /// card: "PEL0235" for PE1903623); must-fail twins: the print's reading of it is
    /// given, and a zone entry whose digit passed is.
    #[test]
    fn a_zone_entry_whose_check_digit_failed_is_not_given() {
        let failed = r(Source::Mrz, "document_number", "PEL0235", 0.35, Check::Failed);
        assert!(merge(std::slice::from_ref(&failed)).fields.is_empty());
        let printed = r(Source::Printed, "document_number", "PE1903623", 0.8, Check::Weak);
        assert_eq!(verdict(&merge(&[failed, printed]), "document_number"), ("PE1903623".into(), Some(ConfidenceVerdict::Unsure)));
        let passed = r(Source::Mrz, "document_number", "PE1903623", 0.35, Check::Strong);
        assert_eq!(verdict(&merge(&[passed]), "document_number"), ("PE1903623".into(), Some(ConfidenceVerdict::Sure)));
    }

    /// A zone's name on a card whose print's case is unknown stands for no name (seed 27's
    /// blurred card: the print "Pooja Kumari Pillai", the zone's capitals given); it
    /// still confirms the print, given as printed. Must-fail twin: a zone name whose
    /// print is known to be in capitals (a passport's) stands alone, UNSURE.
    #[test]
    fn a_zone_name_of_unknown_print_case_only_confirms() {
        let zone = Reading { print_case_unknown: true, ..r(Source::Mrz, "name", "POOJA KUMARI PILLAI", 0.9, Check::Weak) };
        assert!(merge(std::slice::from_ref(&zone)).fields.is_empty());
        let printed = r(Source::Printed, "name", "Pooja Kumari Pillai", 0.8, Check::Weak);
        assert_eq!(verdict(&merge(&[zone.clone(), printed]), "name"), ("Pooja Kumari Pillai".into(), Some(ConfidenceVerdict::Sure)));
        let capitals = Reading { print_case_unknown: false, ..zone };
        assert_eq!(verdict(&merge(&[capitals]), "name"), ("POOJA KUMARI PILLAI".into(), Some(ConfidenceVerdict::Unsure)));
    }

    #[test]
    fn a_zone_name_is_given_as_the_print_spells_it_at_a_lines_end() {
        let spelled = |zone: &str, lines: &[&str]| printed_spelling_of_zone_name(zone, lines.iter().copied());
        assert_eq!(spelled("HEMANT RAO", &["ara / Name", "PEN Hemant Rao", "oo 01/06/2003 M"]).as_deref(), Some("Hemant Rao"));
        assert_eq!(spelled("MEENA DEVI SANDHU", &["Meena Devi Sandhu,"]).as_deref(), Some("Meena Devi Sandhu"));
        // Not at the line's end, another word in it, one word only, two spellings.
        assert_eq!(spelled("BHAVANA SINGH", &["£e>® Bhavana Singh a"]).as_deref(), Some("Bhavana Singh"));
        assert_eq!(spelled("RAVI K", &["Name: Ravi K"]).as_deref(), Some("Ravi K"));
        assert_eq!(spelled("HEMANT RAO", &["Hemant Rao Kumar"]), None);
        assert_eq!(spelled("HEMANT RAO", &["Hemant Rao ab"]), None);
        assert_eq!(spelled("HEMANT RAO", &["Hemant Raoo"]), None);
        assert_eq!(spelled("RAO", &["Father: Suresh Rao"]), None);
        assert_eq!(spelled("HEMANT RAO", &["Hemant Rao", "HEMANT RAO"]), None);
        assert_eq!(spelled("HEMANT RAO", &["Hemant Rao", "x Hemant Rao"]).as_deref(), Some("Hemant Rao"));
        // Capitals beside lower case: OCR's case misread (a blurred passport's DIVYA RANI).
        assert_eq!(spelled("DIVYA RANI", &["beet Divya RANI"]), None);
        assert_eq!(spelled("DIVYA RANI", &["beet DIVYA RANI"]).as_deref(), Some("DIVYA RANI"));
        // Letters the zone cannot write are no match (a print's digit, diacritics).
        assert_eq!(spelled("HEMANT RAO", &["Hemant Ra0"]), None);
        assert_eq!(spelled("NGUYEN VAN AN", &["Nguyễn Văn An"]), None);
    }

    #[test]
    fn a_print_with_words_before_the_zones_name_gives_the_zones() {
        // The portrait's edge read before a passport's given names (the independent card
        // set's seed 7, a tilted passport): the zone's, UNSURE.
        let m = merge(&[r(Source::Mrz, "first_name", "BALAJI", 0.9, Check::Weak), r(Source::Printed, "first_name", "GES. BALAJI", 0.55, Check::Weak)]);
        assert_eq!(verdict(&m, "first_name"), ("BALAJI".into(), Some(Unsure)));
        // A print in mixed case gives the zone's words as printed (seed 8's national
        // identity card: "ER. Sandeep Das" under SANDEEP DAS).
        let m = merge(&[r(Source::Mrz, "name", "SANDEEP DAS", 0.9, Check::Weak), r(Source::Printed, "name", "ER. Sandeep Das", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("Sandeep Das".into(), Some(Unsure)));
        // Words after the zone's (a zone cut short at its end), or another order: the print's.
        let m = merge(&[r(Source::Mrz, "first_name", "BALAJI", 0.9, Check::Weak), r(Source::Printed, "first_name", "BALAJI KUMAR", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "first_name").0, "BALAJI KUMAR");
        // A print in capitals that lost a word's first letters (seed 21, glare beside a
        // passport's given name: "OHIT" under ROHIT): the zone's, UNSURE. Not a zone
        // with a letter more at a word's end (a filler misread).
        let first_name_of = |zone: &str, print: &str| verdict(&merge(&[r(Source::Mrz, "first_name", zone, 0.92, Check::Weak), r(Source::Printed, "first_name", print, 0.58, Check::Weak)]), "first_name");
        assert_eq!(first_name_of("ROHIT", "OHIT"), ("ROHIT".into(), Some(Unsure)));
        assert_eq!(first_name_of("ROHITK", "ROHIT"), ("ROHIT".into(), Some(Unsure)));
        let m = merge(&[r(Source::Mrz, "name", "PATEL BALAJI", 0.9, Check::Weak), r(Source::Printed, "name", "S BALAJI PATEL", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name").0, "S BALAJI PATEL");
        assert!(after_stray_words("GES. BALAJI", "balaji") && !after_stray_words("BALAJI", "BALAJI") && !after_stray_words("X BALAJI", ""));
        assert!(lost_whole_words("KUMAR", "RAJESH KUMAR", false) && lost_whole_words("AGARWAL KUMAR", "AGARWAL RAJESH KUMAR", false) && lost_whole_words("SINGH", "RAM LAL SINGH", false) && lost_whole_words("RAJESH", "RAJESH KUMAR", true));
        assert!(!lost_whole_words("RAHUL", "RAHUL K", true) && !lost_whole_words("RAHUL", "RAHUL KK", true), "fillers read as letters");
        assert!(!lost_whole_words("RAJESH", "RAJESH KUMAR", false), "the end of a line read overlong");
        assert!(!lost_whole_words("Kumar", "RAJESH KUMAR", true) && !lost_whole_words("KUMAR", "KUMAR", true) && !lost_whole_words("KUMAR", "RAJESH KUMARI", true) && !lost_whole_words("RAJESH SINGH", "RAM RAJESH LAL SINGH", true), "two runs lost");
        assert_eq!(first_name_of("RAJESH KUMAR", "KUMAR"), ("RAJESH KUMAR".into(), Some(Unsure)));
        assert!(lost_first_letters("OHIT", "ROHIT") && lost_first_letters("MENON OHIT", "MENON ROHIT") && lost_first_letters("HIT", "ROHIT"));
        assert!(!lost_first_letters("ROHIT", "ROHITK"), "a letter more at the zone word's end");
        assert!(!lost_first_letters("ROHIT", "ROHIT") && !lost_first_letters("T", "ROHIT") && !lost_first_letters("Ohit", "ROHIT") && !lost_first_letters("OHIT", "ROHIT MENON"));
        // A print whose words mix capitals and lower case, the zone reading the same
        // words: the zone's capitals, UNSURE (the independent set's seed 13, a blurred
        // passport); in one case throughout, the print's, SURE.
        let m = merge(&[r(Source::Mrz, "first_name", "DIVYA RANI", 0.9, Check::Weak), r(Source::Printed, "first_name", "Divya RANI", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "first_name"), ("DIVYA RANI".into(), Some(Unsure)));
        let m = merge(&[r(Source::Mrz, "first_name", "DIVYA RANI", 0.9, Check::Weak), r(Source::Printed, "first_name", "Divya Rani", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "first_name"), ("Divya Rani".into(), Some(Sure)));
        assert!(mixes_case("Divya RANI") && !mixes_case("DIVYA RANI K") && !mixes_case("Ravi K") && !mixes_case("McDonald Rao"));
    }

    #[test]
    fn a_print_with_the_zones_letters_split_elsewhere_gives_the_zones_words() {
        // Seed 36's dark national identity card: "DIV YA PATEL" printed, PATEL<<DIVYA in
        // the zone (parsed given names first). The zone's words, UNSURE; so too a gap
        // lost, and a zone in surname-first order.
        let name_of = |zone: &str, print: &str| verdict(&merge(&[r(Source::Mrz, "name", zone, 0.92, Check::Weak), r(Source::Printed, "name", print, 0.94, Check::Weak)]), "name");
        assert_eq!(name_of("DIVYA PATEL", "DIV YA PATEL"), ("DIVYA PATEL".into(), Some(Unsure)));
        assert_eq!(name_of("DIVYA PATEL", "DIVYAPATEL"), ("DIVYA PATEL".into(), Some(Unsure)));
        assert_eq!(name_of("PATEL DIVYA", "DIVYA PAT EL"), ("DIVYA PATEL".into(), Some(Unsure)));
        // The same words: confirmed, the print's, SURE. Other letters, or a print not in
        // plain capitals: the print's as before.
        assert_eq!(name_of("PATEL DIVYA", "DIVYA PATEL"), ("DIVYA PATEL".into(), Some(Sure)));
        assert_eq!(name_of("DIVYA PATEL", "DIV YA PATIL").0, "DIV YA PATIL");
        assert_eq!(name_of("DIVYA PATEL", "Div ya Patel").0, "Div ya Patel");
        assert_eq!(resplit_as_zone("DIVYA PATEL", "DIVYA PATEL"), None);
        assert_eq!(resplit_as_zone("DIV YA", "DIVYA K"), None);
    }

    #[test]
    fn a_cards_number_gives_the_fields_that_are_part_of_it_where_no_source_did() {
        let sure = |field: &str, value: &str| CardField { confidence_verdict: Some(Sure), confidence_score: Some(0.9), ..CardField::new(field, value) };
        let shown = |fields: &[CardField]| fields.iter().map(|f| (f.field.clone(), f.value.clone(), f.confidence_verdict)).collect::<Vec<_>>();
        let mut fields = vec![sure("id", "234567890123"), sure("name", "Ravi")];
        with_fields_of_id("in.aadhaar", &mut fields);
        let want = |v: &[(&str, &str, Option<ConfidenceVerdict>)]| v.iter().map(|(f, x, c)| (f.to_string(), x.to_string(), *c)).collect::<Vec<_>>();
        assert_eq!(shown(&fields), want(&[("id", "234567890123", Some(Sure)), ("id_last4", "0123", Some(Sure)), ("name", "Ravi", Some(Sure))]));
        // A CCCD's document number is its number's last nine digits, UNSURE.
        let mut cccd = vec![sure("id", "037180053469")];
        with_fields_of_id("vn.national_id", &mut cccd);
        assert_eq!(shown(&cccd), want(&[("id", "037180053469", Some(Sure)), ("document_number", "180053469", Some(Unsure))]));
        // Must-fail twins: an Aadhaar number not SURE, one not twelve digits, a QR's last
        // four kept, a zone's document number kept, another type untouched.
        let mut unsure = vec![CardField { confidence_verdict: Some(Unsure), ..sure("id", "234567890123") }];
        with_fields_of_id("in.aadhaar", &mut unsure);
        assert_eq!(unsure.len(), 1);
        let mut short = vec![sure("id", "23456789012")];
        with_fields_of_id("in.aadhaar", &mut short);
        assert_eq!(short.len(), 1);
        let mut from_qr = vec![sure("id", "234567890123"), sure("id_last4", "9999")];
        with_fields_of_id("in.aadhaar", &mut from_qr);
        assert_eq!(shown(&from_qr), want(&[("id", "234567890123", Some(Sure)), ("id_last4", "9999", Some(Sure))]));
        let mut zone = vec![sure("id", "037180053469"), sure("document_number", "180053460")];
        with_fields_of_id("vn.national_id", &mut zone);
        assert_eq!(shown(&zone)[1], ("document_number".into(), "180053460".into(), Some(Sure)));
        // A zone's document number whose check digit failed (merged at score 0) gives
        // way to the number's digits (seed 25's glared CCCD, "050104G6U").
        let mut misread = vec![sure("id", "036050104891"), CardField { confidence_verdict: Some(Unsure), confidence_score: Some(0.0), ..sure("document_number", "050104G6U") }];
        with_fields_of_id("vn.national_id", &mut misread);
        assert_eq!(shown(&misread), want(&[("id", "036050104891", Some(Sure)), ("document_number", "050104891", Some(Unsure))]));
        let mut failed = vec![CardField { confidence_verdict: Some(Unsure), confidence_score: Some(0.0), ..sure("id", "037180053469") }];
        with_fields_of_id("vn.national_id", &mut failed);
        assert_eq!(failed.len(), 1, "a number whose check failed gives nothing");
        let mut national = vec![sure("id", "234567890123")];
        with_fields_of_id("in.national_id", &mut national);
        assert_eq!(national.len(), 1);
    }

    #[test]
    fn qr_wins_and_a_printed_value_alone_is_never_sure_without_a_strong_check() {
        let m = merge(&[
            r(Source::Printed, "name", "NGUYEN VAN AN", 0.91, Check::Weak),
            r(Source::Printed, "dob", "01/01/1990", 0.95, Check::Weak),
            r(Source::Qr, "name", "Nguyễn Văn An", 1.0, Check::Strong),
            r(Source::Printed, "id", "234567890123", 0.8, Check::Strong),
        ]);
        assert_eq!(verdict(&m, "name"), ("Nguyễn Văn An".into(), Some(Sure)));
        assert_eq!(verdict(&m, "dob"), ("01/01/1990".into(), Some(Unsure)), "OCR alone, no check digit");
        assert_eq!(verdict(&m, "id"), ("234567890123".into(), Some(Sure)), "Verhoeff-checked");
        assert_eq!(m.agreements.len(), 1);
        assert!(m.disagreements.is_empty());
    }

    #[test]
    fn a_second_source_confirms_and_a_contradiction_is_never_sure() {
        let m = merge(&[
            r(Source::Mrz, "dob", "01/01/1990", 0.9, Check::Strong),
            r(Source::Printed, "dob", "01/01/1990", 0.7, Check::Weak),
            r(Source::Mrz, "name", "NGUYEN VAN AN", 0.9, Check::Weak),
            r(Source::Printed, "name", "NGUYỄN VĂN AN", 0.7, Check::Weak),
            r(Source::Qr, "id", "079203001234", 1.0, Check::Strong),
            r(Source::Printed, "id", "079203001284", 0.9, Check::Weak),
        ]);
        // The zone confirms the print's letters, not its marks: shown as printed, UNSURE.
        assert_eq!(verdict(&m, "name"), ("NGUYỄN VĂN AN".into(), Some(Unsure)), "MRZ name shown as printed, its marks unvouched");
        assert_eq!(verdict(&m, "id"), ("079203001234".into(), Some(Unsure)), "contradicted");
        assert_eq!(m.disagreements.len(), 1);
        assert_eq!(m.disagreements[0].field, "id");
    }

    #[test]
    fn a_zone_vouches_for_letters_never_for_diacritics() {
        // Seed 8's cut CCCD: the print lost a tone mark, the zone (no marks) read alike.
        let m = merge(&[r(Source::Mrz, "name", "NGUYEN NGOC VY", 0.9, Check::Weak), r(Source::Printed, "name", "Nguyên Ngọc Vy", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("Nguyên Ngọc Vy".into(), Some(Unsure)));
        // A print without marks the zone reads alike stays SURE.
        let m = merge(&[r(Source::Mrz, "name", "SHARMA PRIYA", 0.9, Check::Weak), r(Source::Printed, "name", "SHARMA PRIYA", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("SHARMA PRIYA".into(), Some(Sure)));
        // The QR spells the marks: SURE, whatever the print's case.
        let m = merge(&[r(Source::Qr, "name", "Nguyễn Ngọc Vy", 1.0, Check::Strong), r(Source::Mrz, "name", "NGUYEN NGOC VY", 0.9, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("Nguyễn Ngọc Vy".into(), Some(Sure)));
        assert!(same_spelling("NGUYỄN  NGỌC VY", "Nguyễn Ngọc Vy") && !same_spelling("Nguyên Ngọc Vy", "Nguyễn Ngọc Vy"));
        // Nor for punctuation it does not write (seed 16's noisy passport: "IMRAN."),
        // unless two readings spell it alike.
        let m = merge(&[r(Source::Mrz, "first_name", "IMRAN", 0.9, Check::Weak), r(Source::Printed, "first_name", "IMRAN.", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "first_name"), ("IMRAN.".into(), Some(Unsure)));
        let m = merge(&[r(Source::Qr, "name", "K. RAMESH", 1.0, Check::Weak), r(Source::Printed, "name", "K. RAMESH", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("K. RAMESH".into(), Some(Sure)));
    }

    #[test]
    fn a_zone_name_that_disagrees_with_the_print_gives_way_to_it() {
        // The zone's first letter lost at a cut corner: the name as printed, UNSURE.
        let m = merge(&[r(Source::Mrz, "name", "HAN SNEHA", 0.9, Check::Weak), r(Source::Printed, "name", "SNEHA KHAN", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("SNEHA KHAN".into(), Some(Unsure)));
        // A zone's checked number still wins over the print's.
        let m = merge(&[r(Source::Mrz, "id", "C1234567", 0.9, Check::Strong), r(Source::Printed, "id", "C1234561", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "id"), ("C1234567".into(), Some(Unsure)));
        // The zone alone: its name.
        let m = merge(&[r(Source::Mrz, "name", "SHARMA PRIYA", 0.9, Check::Weak)]);
        assert_eq!(verdict(&m, "name").0, "SHARMA PRIYA");
    }

    #[test]
    fn a_name_cut_short_by_one_source_is_given_whole() {
        // The print faded at the name's start (a shadow, glare): the zone's, UNSURE.
        let m = merge(&[r(Source::Mrz, "last_name", "IYER", 0.9, Check::Weak), r(Source::Printed, "last_name", "ER", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "last_name"), ("IYER".into(), Some(Unsure)));
        // Two readings neither of which holds the other: the print's, UNSURE, the
        // disagreement kept.
        let m = merge(&[r(Source::Mrz, "name", "PATEL RAVI", 0.9, Check::Weak), r(Source::Printed, "name", "MEHTA RAVI", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("MEHTA RAVI".into(), Some(Unsure)));
        assert_eq!(m.disagreements.len(), 1);
        // A print with diacritics cut short: the zone's form (none) is not the card's.
        let m = merge(&[r(Source::Mrz, "name", "HO THANH QUANG", 0.9, Check::Weak), r(Source::Printed, "name", "Thành Quang", 0.8, Check::Weak)]);
        assert!(m.fields.iter().all(|f| f.field != "name"), "{:?}", m.fields);
        assert!(loses_letters("Thành Quang", "HO THANH QUANG") && !loses_letters("HO THANH QUANG", "Thành Quang"));
        assert!(!loses_letters("SNEHA KHAN", "SNEHA KHAN") && !loses_letters("", "A"));
        // A zone whose filler was read as digits is not the fuller reading: the print's.
        let m = merge(&[r(Source::Mrz, "name", "VENKATESH KUMAR 9 6REDDY", 0.9, Check::Weak), r(Source::Printed, "name", "VENKATESH KUMAR REDDY", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("VENKATESH KUMAR REDDY".into(), Some(Unsure)));
        // Nor one whose fillers were read as letters, close to the whole print or not.
        let m = merge(&[r(Source::Mrz, "name", "KARTHIK KUMAR S GSHARMA", 0.9, Check::Weak), r(Source::Printed, "name", "KARTHIK KUMAR SHARMA", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("KARTHIK KUMAR SHARMA".into(), Some(Unsure)));
        let m = merge(&[r(Source::Mrz, "name", "REKHA KUMARI B EGUPTA", 0.9, Check::Weak), r(Source::Printed, "name", "REKHA KUMARI GUPTA", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("REKHA KUMARI GUPTA".into(), Some(Unsure)));
        // Nor one from a line read longer than its format, whose extra letter is a stray
        // mark at the card's edge ("WBANERJEE<<PRADEEP", a tilted card): the print's.
        // Read at its length, the same zone would be given (the print faded).
        let zone = |overlong_line| Reading { overlong_line, ..r(Source::Mrz, "name", "PRADEEP WBANERJEE", 0.9, Check::Weak) };
        let m = merge(&[zone(true), r(Source::Printed, "name", "PRADEEP BANERJEE", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("PRADEEP BANERJEE".into(), Some(Unsure)));
        let m = merge(&[zone(false), r(Source::Printed, "name", "PRADEEP BANERJEE", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("PRADEEP WBANERJEE".into(), Some(Unsure)));
        // Alone (the print washed out or unread), an overlong line's name is not given;
        // read at its length, it is.
        let m = merge(&[zone(true)]);
        assert_eq!(m.fields.iter().find(|f| f.field == "name"), None);
        let m = merge(&[zone(false)]);
        assert_eq!(verdict(&m, "name"), ("PRADEEP WBANERJEE".into(), Some(Unsure)));
        // An overlong line still confirms a print it reads the same.
        let m = merge(&[Reading { overlong_line: true, ..r(Source::Mrz, "name", "BANERJEE PRADEEP", 0.9, Check::Weak) }, r(Source::Printed, "name", "PRADEEP BANERJEE", 0.8, Check::Weak)]);
        assert_eq!(verdict(&m, "name"), ("PRADEEP BANERJEE".into(), Some(Sure)));
    }

    #[test]
    fn failed_checks_lose_to_passing_ones_and_stay_unsure() {
        let m = merge(&[
            r(Source::Mrz, "id", "C1234567", 0.9, Check::Failed),
            r(Source::Printed, "id", "C1234561", 0.8, Check::Weak),
            r(Source::Qr, "name", "A B", 0.0, Check::Failed),
        ]);
        assert_eq!(verdict(&m, "id"), ("C1234561".into(), Some(Unsure)));
        let name = m.fields.iter().find(|f| f.field == "name").expect("name");
        assert_eq!((name.confidence_verdict, name.confidence_score), (Some(Unsure), Some(0.0)));
    }

    #[test]
    fn comparisons_ignore_case_diacritics_and_spacing_but_not_digits() {
        assert_eq!(compare("name", "Nguyễn Văn An", "NGUYEN  VAN AN"), Comparison::Same);
        assert_eq!(compare("dob", "01/01/1990", "01/01/1996"), Comparison::Different);
        assert_eq!(compare("address", "12 Le Loi, Phuong Ben Nghe, Quan 1", "12 Le Lol, Phuong Ben Nghe, Quan 1"), Comparison::Close);
        assert_eq!(compare("name", "Rahul Kumar", "Priya Sharma"), Comparison::Different);
        assert_eq!(compare("id", "", "1"), Comparison::Different);
        assert_eq!(compare("nationality", "IND", "INDIAN"), Comparison::Same);
        assert_eq!(compare("nationality", "Việt Nam", "VNM"), Comparison::Same);
        assert_eq!(compare("nationality", "IND", "VNM"), Comparison::Different);
        assert_eq!(compare("name", "PATEL ANJALI", "Anjali Patel"), Comparison::Same);
        assert_eq!(compare("name", "PATEL ANJALI", "Anjali Patil"), Comparison::Close);
    }
}
