//! India's passport, the printed (visual inspection) zone of the data page: a
//! secondary source beside the MRZ (read by [`crate::mrz`]).
//!
//! Assumptions:
//! - Bilingual labels ("उपनाम / Surname", "दिया गया नाम / Given Name(s)") with each
//!   value on the line below; several labels may share a line with their values below
//!   in the same order ("Type / Country Code / Passport No." over "P IND J8369854";
//!   "Sex / Date of Birth" over "M 12/05/1985"; "Date of Issue / Date of Expiry" over
//!   two dates — the k-th date under the k-th date label).
//! - `id`: a letter and seven digits (positional repairs, at most two, on a token with
//!   at least five digits), preferably under "Passport No.", never from the MRZ (lines
//!   with `<<`), nor from the last page's "Old Passport No." and the two lines under it.
//!   Check: the structure ([`super::passport_number_check`]).
//! - `nationality` printed "INDIAN" (misreads within one edit) answered as its ICAO code
//!   `IND`, else nothing.
//! - `gender`: `M`, `F` or `T` (a single letter only on the line under its label; the
//!   zone's "<" or "X" for unspecified, which the page does not print, gives none);
//!   dates `DD/MM/YYYY`; `place_of_birth` as printed.

use super::{
    edit_distance, field, fold_for_match, gender_value, name_value, passport_number_check, repair_positional, tokens, without_words_left_of_label, Doc, FieldCheck, Found,
    Labels, PrintedField,
};

pub(crate) const LABELS: Labels = &[
    ("type", &["=Type", "प्रकार"]),
    ("country_code", &["Country Code", "कोड"]),
    ("id_label", &["Passport No", "पासपोर्ट नं"]),
    // The last page's previous passport. Exact: "au/Passport No." is no "Old", and the
    // longer label takes the line from "Passport No".
    ("old_passport", &["=Old Passport No", "=Old Passport Number"]),
    ("last_name", &["Surname", "उपनाम"]),
    ("first_name", &["Given Name(s)", "Given Names", "Given Name", "दिया गया नाम"]),
    ("nationality", &["Nationality", "राष्ट्रीयता"]),
    ("gender", &["=Sex", "लिंग"]),
    ("dob", &["Date of Birth", "जन्मतिथि", "जन्म तिथि"]),
    ("place_of_birth", &["Place of Birth", "जन्म स्थान"]),
    ("place_of_issue", &["Place of Issue", "जारी करने का स्थान"]),
    ("issue_date", &["Date of Issue", "जारी करने की तिथि"]),
    ("expiry_date", &["Date of Expiry", "समाप्ति की तिथि"]),
    ("header", &["Republic of India", "भारत गणराज्य", "Passport", "पासपोर्ट"]),
];

/// The passport number, with its check.
pub(crate) fn find_passport_number(doc: &Doc) -> Option<(Found<String>, FieldCheck)> {
    let label = doc.line_of("id_label");
    // The last page prints the holder's previous passport under "Old Passport No. with
    // Date and Place of Issue" ("H1234567 10/01/2005 DELHI"): not this passport's number.
    let old: Vec<usize> = (0..doc.len()).filter(|&i| doc.has(i, "old_passport")).collect();
    let mut cands = Vec::new();
    for i in 0..doc.len() {
        if doc.text(i).contains("<<") || old.iter().any(|&o| (o..=o + 2).contains(&i)) {
            continue;
        }
        let raw = doc.text(i);
        let text = dollar_read_for_s(raw);
        for (tok, start, end) in tokens(&text) {
            let Some((id, repairs)) = repair_positional(tok, "A9999999") else { continue };
            let repairs = repairs + usize::from(raw.get(start..end).is_some_and(|t| t.starts_with('$')));
            let digits = tok.chars().skip(1).filter(|c| c.is_ascii_digit()).count();
            if repairs > 2 || digits < 5 || !tok.starts_with(|c: char| c.is_alphabetic()) && repairs > 1 {
                continue;
            }
            let near = label.is_some_and(|l| i > l && i <= l + 2);
            let conf = doc.conf(&[i]) * (1.0 - 0.1 * repairs as f32);
            cands.push((!near, Found { value: id.clone(), lines: vec![i], conf, label_line: label }, passport_number_check(&id)));
        }
    }
    cands.sort_by_key(|c| c.0);
    cands.into_iter().next().map(|(_, f, c)| (f, c))
}

/// `text` with a dollar sign that starts a word and is followed by a digit read as the
/// S it stands for ("P IND $9012901" for "P IND S9012901", the independent set's seed 29,
/// a passport page with a cut corner): OCR reads a bold S so, and no number on the page
/// starts with a currency sign. Byte for byte the same length, so a token's place in it
/// is its place in `text`.
fn dollar_read_for_s(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let starts_word = prev.is_none_or(char::is_whitespace);
        out.push(if c == '$' && starts_word && chars.peek().is_some_and(char::is_ascii_digit) { 'S' } else { c });
        prev = Some(c);
    }
    out
}

/// The place of birth where its label was not read: the line right under the row of
/// nationality, sex and date of birth ("INDIAN M 29/08/1971", the row's own labels
/// read or not), where India's data page prints it, in that row's column and as tall
/// (its print, not a label's: a label line is about half as tall), of capitals and
/// commas only ("JAIPUR, RAJASTHAN"). The labels are the page's smallest print and the
/// first a blur takes (the independent set's seeds 24-34: 19 of 22 blurred pages gave
/// no place of birth, its label lost, the value itself often read the same by both
/// readings; 4 of them give it so). Nothing when the row is not found, or
/// the line under it is a label's, another's, or holds anything but a place's letters.
fn place_of_birth_under_its_row(doc: &Doc) -> Option<Found<String>> {
    let row = (0..doc.len()).find(|&i| doc.hits(i).is_empty() && nationality(doc.text(i)).is_some() && super::extract_date(doc.text(i)).is_some())?;
    let under = row + 1;
    if under >= doc.len() || !doc.hits(under).is_empty() {
        return None;
    }
    let (r, u) = (&doc.lines[row], &doc.lines[under]);
    let column = u.x.abs_diff(r.x) <= r.height;
    let below = u.y > r.y && u.y <= r.y + 2 * r.height;
    let as_tall = 5 * u.height >= 4 * r.height && 4 * u.height <= 5 * r.height;
    let text = u.text.trim();
    let words: Vec<&str> = text.split(' ').collect();
    let place_word = |w: &str| {
        let body = w.strip_suffix(',').unwrap_or(w);
        body.chars().count() >= 2 && body.chars().all(|c| c.is_ascii_uppercase())
    };
    let place = words.iter().all(|w| place_word(w)) && !words.last().is_some_and(|w| w.ends_with(','));
    (column && below && as_tall && place).then(|| Found { value: text.to_string(), lines: vec![under], conf: doc.conf(&[under]), label_line: None })
}

/// An Indian passport's holder is Indian: `IND` or nothing. The Hindi half of the next
/// label, read as Latin between two labels on the real page's one row ("Nationality fer
/// / Sex"), is no nationality.
fn nationality(s: &str) -> Option<String> {
    let f = fold_for_match(s);
    let text: String = f.chars.iter().collect();
    let indian: Vec<char> = "indian".chars().collect();
    // The ICAO code, as the zone and the national identity card give it.
    text.split(' ').any(|w| edit_distance(&w.chars().collect::<Vec<_>>(), &indian) <= 1).then(|| "IND".to_string())
}

/// The type and the issuing country printed before the number on its line ("P IND
/// J8369854", under "Type / Country Code / Passport No."): a type India issues (`P`
/// ordinary, `D` diplomatic, `S` official) and its code `IND`, exactly as printed, or
/// nothing: any other capital there is a misread one ("E" for a compressed "P").
fn type_and_country(doc: &Doc, number: &Found<String>) -> (Option<Found<String>>, Option<Found<String>>) {
    let Some(&line) = number.lines.first() else { return (None, None) };
    let text = dollar_read_for_s(doc.text(line));
    let toks: Vec<&str> = tokens(&text).into_iter().map(|(t, _, _)| t).collect();
    let Some(at) = toks.iter().position(|t| t.len() >= 8 && t.chars().filter(|c| c.is_ascii_digit()).count() >= 5) else { return (None, None) };
    let upper = |t: &str, n: usize| t.len() == n && t.chars().all(|c| c.is_ascii_uppercase());
    let found = |v: &str| Found { value: v.to_string(), lines: vec![line], conf: doc.conf(&[line]), label_line: number.label_line };
    match toks.get(..at) {
        Some([kind, code]) if upper(kind, 1) && upper(code, 3) => (
            ["P", "D", "S"].contains(kind).then(|| found(kind)),
            (*code == "IND").then(|| found(code)),
        ),
        _ => (None, None),
    }
}

pub(crate) fn parse(doc: &Doc) -> Vec<PrintedField> {
    let mut out = Vec::new();
    let na = FieldCheck::NotApplicable;
    if let Some((f, check)) = find_passport_number(doc) {
        let (kind, code) = type_and_country(doc, &f);
        out.extend(kind.map(|k| field("document_type", k, na)));
        out.extend(code.map(|c| field("issuing_state", c, na)));
        out.push(field("id", f, check));
    }
    // The names and the place of birth printed left-aligned under their labels: a line
    // read from well left of the label's column starts with the portrait's edge
    // (`without_words_left_of_label`: "GR MUKHERJEE", seed 15; "F UO AHMEDABAD, GUJARAT",
    // seed 17's jpeg35 page).
    for key in ["last_name", "first_name", "place_of_birth"] {
        if let Some(v) = doc.labelled(key, 1, |s, _| name_value(s).filter(|v| v.chars().any(|c| c.is_ascii_alphabetic()))) {
            let mut v = without_words_left_of_label(doc, v, 1);
            if key == "place_of_birth" {
                v.value = super::without_marks_after_state(v.value);
                // A state read without the comma before it: a comma lost, no place as
                // printed (`state_without_its_comma`).
                if super::state_without_its_comma(&v.value) {
                    continue;
                }
            }
            out.push(field(key, v, na));
        }
    }
    if !out.iter().any(|f| f.field == "place_of_birth") {
        out.extend(place_of_birth_under_its_row(doc).filter(|v| !super::state_without_its_comma(&v.value)).map(|v| field("place_of_birth", v, na)));
    }
    // The whole name as the zone writes it (surname, then given names): a second source
    // for the zone's name, and the name when the zone's line is misread.
    let part = |name: &str| out.iter().find(|f| f.field == name).cloned();
    if let (Some(last), Some(first)) = (part("last_name"), part("first_name")) {
        let whole = Found {
            value: format!("{} {}", last.value, first.value),
            lines: last.lines.iter().chain(&first.lines).copied().collect(),
            conf: last.confidence.min(first.confidence),
            label_line: None,
        };
        out.push(field("name", whole, na));
    }
    if let Some(v) = doc.labelled("nationality", 1, |s, _| nationality(s)) {
        out.push(field("nationality", v, na));
    }
    // A single letter is the sex only on the value line under the label: on the label's
    // row, "Sex sient F / Date of Birth", it is the next label's Hindi half read as Latin.
    if let Some(g) = doc.labelled("gender", 1, |s, col| gender_value(s, col.is_some()).map(str::to_string)) {
        out.push(field("gender", g, na));
    }
    // The dates up to two lines under their label: the signature beside the labels of
    // the dates of issue and expiry reads as a line of noise between them and their
    // dates ("gi AS he WEE", the independent set's seed 12, a clean page). A line with
    // a label ends the search (`Doc::labelled`), and the zone holds no date.
    for (key, name) in [("dob", "dob"), ("issue_date", "issue_date")] {
        if let Some(d) = doc.labelled_date(key, 2) {
            out.push(field(name, d, FieldCheck::Passed));
        }
    }
    // The expiry is printed right of the date of issue, on its row. Where the issue's
    // label was not read (washed out by an overexposed photo, the independent set's seed
    // 13: "sit e of Expiry" over "09/01/2016 08/01/2026"), the expiry's label is the
    // row's first and its date is still the row's second, not its first; where the
    // second lost its day and month to glare ("09/10/2019 2029", seed 16), the first is
    // still the issue's, and the expiry is not read.
    let expiry = doc.labelled("expiry_date", 2, |s, col| match col {
        None => super::extract_date(s),
        Some(0) => {
            let slots = super::date_slots(s);
            if slots.len() >= 2 {
                slots.last().cloned().flatten()
            } else if date_remnant_after_first_date(s) {
                None
            } else {
                slots.into_iter().next().flatten()
            }
        }
        Some(n) => super::date_slots(s).into_iter().nth(n).flatten(),
    });
    if let Some(d) = expiry {
        out.push(field("expiry_date", d, FieldCheck::Passed));
    }
    out
}

/// Whether a passport's date of expiry follows from its date of issue as India prints
/// them (`DD/MM/YYYY` both): valid ten years (an adult's passport) or five (a minor's),
/// to the day before the anniversary of issue (issued 06/08/2023, expires 05/08/2033).
/// An issue on 29 February has its anniversary on 28 February or 1 March of a common
/// year; both are taken. The card worker makes a printed date of issue that a zone's
/// checked expiry follows from so `SURE` (`crate::merge`'s strong check): the zone's
/// check digit vouches for the expiry, and a misread date of issue that still lands on
/// the day, month and year this rule asks is far rarer than one misread alike twice.
/// A passport issued for another term (a short-validity one) simply gains nothing.
pub fn expiry_follows_issue(issue: &str, expiry: &str) -> bool {
    let (Some((id, im, iy)), Some((ed, em, ey))) = (super::day_month_year(issue), super::day_month_year(expiry)) else { return false };
    // The day after the expiry: the anniversary of issue.
    let day_after = match crate::checked_date(&(ed + 1).to_string(), &em.to_string(), &ey.to_string()) {
        Some(next) => next,
        None if em == 12 => (1, 1, ey + 1),
        None => (1, em + 1, ey),
    };
    [5, 10].iter().any(|years| {
        let y = iy + years;
        let anniversaries: &[(u32, u32)] = if (id, im) == (29, 2) && crate::checked_date("29", "2", &y.to_string()).is_none() { &[(28, 2), (1, 3)] } else { &[(id, im)] };
        anniversaries.iter().any(|&(d, m)| day_after == (d, m, y))
    })
}

/// The one date printed on the page that `expiry` follows from as a date of issue
/// ([`expiry_follows_issue`]), in any of `lines`, whatever label it was read under or
/// none: a blurred page loses its small labels first and keeps its larger dates ("14/08/2020
/// 13/08/2030" read whole under labels read as "Ser ae —", the independent set's seed 26),
/// and no other date on a data page stands so to its expiry (a date of birth is decades
/// earlier, the expiry itself is no anniversary of itself). `None` where none does or
/// two different ones do.
pub fn issue_date_for_expiry<'a>(lines: impl IntoIterator<Item = &'a str>, expiry: &str) -> Option<String> {
    let mut found: Option<String> = None;
    for date in lines.into_iter().flat_map(super::extract_dates) {
        if expiry_follows_issue(&date, expiry) {
            match &found {
                Some(f) if *f != date => return None,
                _ => found = Some(date),
            }
        }
    }
    found
}

/// Whether a row holds, after its first date, a word of four digits or more: what is
/// left of a second date whose day and month were lost ("09/10/2019 2029").
fn date_remnant_after_first_date(row: &str) -> bool {
    let words: Vec<&str> = row.split_whitespace().collect();
    let Some(first) = words.iter().position(|w| super::extract_date(w).is_some()) else { return false };
    words[first + 1..].iter().any(|w| w.chars().filter(char::is_ascii_digit).count() >= 4)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;

    const PAGE: [&str; 19] = [
        "भारत गणराज्य REPUBLIC OF INDIA",
        "पासपोर्ट PASSPORT",
        "प्रकार/Type  कोड/Country Code  पासपोर्ट नं./Passport No.",
        "P IND J8369854",
        "उपनाम / Surname",
        "SHARMA",
        "दिया गया नाम / Given Name(s)",
        "RAHUL KUMAR",
        "राष्ट्रीयता / Nationality",
        "भारतीय / INDIAN",
        "लिंग / Sex   जन्मतिथि / Date of Birth",
        "M   12/05/1985",
        "जन्म स्थान / Place of Birth",
        "NEW DELHI, DELHI",
        "जारी करने का स्थान / Place of Issue",
        "DELHI",
        "जारी करने की तिथि / Date of Issue   समाप्ति की तिथि / Date of Expiry",
        "10/01/2015   09/01/2025",
        "P<INDSHARMA<<RAHUL<KUMAR<<<<<<<<<<<<<<<<<<<<",
    ];

    fn expected() -> Vec<(&'static str, &'static str, FieldCheck)> {
        vec![
            ("document_type", "P", FieldCheck::NotApplicable),
            ("issuing_state", "IND", FieldCheck::NotApplicable),
            ("id", "J8369854", FieldCheck::Passed),
            ("last_name", "SHARMA", FieldCheck::NotApplicable),
            ("first_name", "RAHUL KUMAR", FieldCheck::NotApplicable),
            ("name", "SHARMA RAHUL KUMAR", FieldCheck::NotApplicable),
            ("nationality", "IND", FieldCheck::NotApplicable),
            ("gender", "M", FieldCheck::NotApplicable),
            ("dob", "12/05/1985", FieldCheck::Passed),
            ("place_of_birth", "NEW DELHI, DELHI", FieldCheck::NotApplicable),
            ("issue_date", "10/01/2015", FieldCheck::Passed),
            ("expiry_date", "09/01/2025", FieldCheck::Passed),
        ]
    }

    /// A place of birth whose state was read without the comma before it ("HYDERABAD
    /// TELANGANA", seed 31's noisy page) is not given; with it, or a city named after its
    /// state ("NEW DELHI"), it is.
    #[test]
    fn a_place_of_birth_that_lost_its_comma_is_not_given() {
        let mut page = PAGE;
        for (read, given) in [("HYDERABAD TELANGANA", None), ("HYDERABAD, TELANGANA", Some("HYDERABAD, TELANGANA")), ("NEW DELHI", Some("NEW DELHI"))] {
            page[13] = read;
            let f = parse_printed("in.passport", Side::Front, &lines(&page));
            assert_eq!(get(&f, "place_of_birth").map(|x| x.value.as_str()), given, "{read}");
        }
    }

    /// The type and country come only from the number's own line, as two tokens of one
    /// and three capitals before it; anything else there gives neither.
    #[test]
    fn type_and_country_are_read_only_as_printed_before_the_number() {
        let mut page = PAGE;
        page[3] = "P 1ND J8369854";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((get(&f, "document_type"), get(&f, "issuing_state")), (None, None));
        assert_eq!(get(&f, "id").map(|x| x.value.as_str()), Some("J8369854"));
        page[3] = "J8369854";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((get(&f, "document_type"), get(&f, "issuing_state")), (None, None));
        // A type or code India does not issue is a misread: not given (the other is).
        page[3] = "E IND J8369854";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((get(&f, "document_type"), get(&f, "issuing_state").map(|x| x.value.as_str())), (None, Some("IND")));
        page[3] = "D INO J8369854";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((get(&f, "document_type").map(|x| x.value.as_str()), get(&f, "issuing_state")), (Some("D"), None));
    }

    /// A bold S read as a dollar sign ("P IND $9012901", seed 29's cut passport page): the
    /// S, counted as a repair (confidence lowered). Must-fail: a dollar sign inside a
    /// word, or before a letter, is no S, and gives no number.
    #[test]
    fn a_dollar_sign_starting_the_number_is_its_s() {
        let mut page = PAGE;
        page[3] = "P IND $9012901";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!(value(&f, "id"), Some("S9012901"));
        assert!(get(&f, "id").is_some_and(|x| x.confidence < 0.9), "{f:?}");
        assert_eq!((value(&f, "document_type"), value(&f, "issuing_state")), (Some("P"), Some("IND")));
        for misread in ["P IND 9$012901", "P IND $S012901"] {
            page[3] = misread;
            assert_eq!(value(&parse_printed("in.passport", Side::Front, &lines(&page)), "id"), None, "{misread}");
        }
        assert_eq!(super::dollar_read_for_s("$9012901 a$1 $x"), "S9012901 a$1 $x");
    }

    #[test]
    fn data_page_clean() {
        let l = lines(&PAGE);
        let f = parse_printed("in.passport", Side::Front, &l);
        assert_fields(&f, &expected());
        assert_eq!(get(&f, "expiry_date").map(|x| x.lines.clone()), Some(vec![17]));
        assert_eq!(best_type(&l), Some("in.passport"));
    }

    #[test]
    fn data_page_noisy() {
        // eng model: Devanagari as garbage, labels misspelt, O for 0 in the number and
        // the expiry, "INDlAN", a female holder.
        let l = lines(&[
            "~Ana Tora REPUBLIC OF INDIA",
            "~ure PASSPORT",
            "~aR/Type 1/Country Code urate #./Passport No.",
            "P IND J836985O",
            "~su4 / Surnarne",
            "SHARMA",
            "~fear wer am / Given Narne(s)",
            "PRIYA",
            "~trea / Natlonality",
            "~anda / INDlAN",
            "~fer / Sex   sient / Date of Brith",
            "F   12/05/1985",
            "~sa eae / Place of Birth",
            "MUMBAI, MAHARASHTRA",
            "~ant ar at fafa / Date of lssue   arate At fafer / Date of Expiry",
            "10/01/2015   O9/01/2025",
        ]);
        let f = parse_printed("in.passport", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("document_type", "P", FieldCheck::NotApplicable),
                ("issuing_state", "IND", FieldCheck::NotApplicable),
                ("id", "J8369850", FieldCheck::Passed),
                ("last_name", "SHARMA", FieldCheck::NotApplicable),
                ("first_name", "PRIYA", FieldCheck::NotApplicable),
                ("name", "SHARMA PRIYA", FieldCheck::NotApplicable),
                ("nationality", "IND", FieldCheck::NotApplicable),
                ("gender", "F", FieldCheck::NotApplicable),
                ("dob", "12/05/1985", FieldCheck::Passed),
                ("place_of_birth", "MUMBAI, MAHARASHTRA", FieldCheck::NotApplicable),
                ("issue_date", "10/01/2015", FieldCheck::Passed),
                ("expiry_date", "09/01/2025", FieldCheck::Passed),
            ],
        );
        assert_eq!(best_type(&l), Some("in.passport"));
    }

    /// The real data page prints nationality, sex and date of birth on one row, each label
    /// Hindi first: `eng` reads the Hindi halves as Latin between the English labels
    /// ("fer /", "sient F /"), which are neither a nationality nor a sex.
    #[test]
    fn nationality_sex_and_date_of_birth_on_one_row() {
        let l = lines(&[
            "~Ana Tora REPUBLIC OF INDIA",
            "~aR/Type 1/Country Code urate #./Passport No.",
            "P IND J8369854",
            "~su4 / Surname",
            "SHARMA",
            "~fear wer am / Given Name(s)",
            "RAHUL KUMAR",
            "~trea / Nationality fer / Sex sient F / Date of Birth",
            "INDIAN M 12/05/1985",
        ]);
        let f = parse_printed("in.passport", Side::Front, &l);
        assert_eq!((value(&f, "nationality"), value(&f, "gender"), value(&f, "dob")), (Some("IND"), Some("M"), Some("12/05/1985")), "{f:?}");
    }

    /// Indian passports print "T" (transgender) beside "M" and "F" under "Sex"; ICAO
    /// zones write "<" (or "X") for unspecified, which the printed page does not. Already
    /// right before this test: "T" under the label is `T`, "<" and "X" give no gender.
    /// Must-fail: run with the single letter "t" dropped from `gender_value`, the "T"
    /// cases fail; a "T" on the label's row (the next label's Hindi half read as Latin)
    /// is no sex.
    #[test]
    fn a_transgender_holders_t_and_no_gender_from_a_filler() {
        let mut page = PAGE;
        for (row, gender) in [("T   12/05/1985", Some("T")), ("<   12/05/1985", None), ("<<  12/05/1985", None), ("X   12/05/1985", None)] {
            page[11] = row;
            let f = parse_printed("in.passport", Side::Front, &lines(&page));
            assert_eq!((value(&f, "gender"), value(&f, "dob")), (gender, Some("12/05/1985")), "{row}: {f:?}");
        }
        let row = |labels: &str, values: &str| value(&parse_printed("in.passport", Side::Front, &lines(&[labels, values])), "gender").map(str::to_string);
        assert_eq!(row("~trea / Nationality fer / Sex sient F / Date of Birth", "INDIAN T 12/05/1985").as_deref(), Some("T"));
        assert_eq!(row("~trea / Nationality fer / Sex sient T / Date of Birth", "INDIAN < 12/05/1985"), None);
    }

    /// Since 2021 Indian passports may print "X" under "Sex" for a transgender holder (the
    /// Bengaluru RPO's first such passport, Outlook India, 2022), as the zone writes "X".
    /// docs/API.md allows `X` for an unspecified passport holder, but the print's "X" (and a
    /// filler "<") gives no gender here, as
    /// `a_transgender_holders_t_and_no_gender_from_a_filler` pins for the stacked layout:
    /// the zone's check-digit-backed `X` is what gives it. Pins, for every layout of the
    /// row, that the letter is never read as `M` or `F`: it passed before any change.
    #[test]
    fn a_printed_x_is_never_male_or_female() {
        let mut page = PAGE;
        for row in ["X   12/05/1985", "x   12/05/1985", "X/X   12/05/1985", "X  12 /05/ 1985"] {
            page[11] = row;
            let f = parse_printed("in.passport", Side::Front, &lines(&page));
            assert_eq!((value(&f, "gender"), value(&f, "dob")), (None, Some("12/05/1985")), "{row}: {f:?}");
        }
        let read = |l: &[&str]| parse_printed("in.passport", Side::Front, &lines(l));
        for l in [
            &["~trea / Nationality fer / Sex sient F / Date of Birth", "INDIAN X 12/05/1985"][..],
            &["~trea / Nationality fer / Sex sient M / Date of Birth", "INDIAN x 12/05/1985"],
            &["लिंग / Sex: X", "जन्मतिथि / Date of Birth: 12/05/1985"],
            &["Sex X   Date of Birth 12/05/1985"],
            &["~fer / Sex", "X"],
        ] {
            let f = read(l);
            assert_eq!(value(&f, "gender"), None, "{l:?}: {f:?}");
        }
    }

    /// A holder with one name has an empty surname row, and a value line OCR lost leaves its
    /// label without one: neither takes the next label's Hindi half (read as Latin).
    #[test]
    fn an_empty_row_does_not_take_the_next_labels_hindi_half() {
        let l = lines(&[
            "~aR/Type 1/Country Code urate #./Passport No.",
            "P IND J8369854",
            "~su4 / Surname",
            "~fear wer am / Given Name(s)",
            "MURUGAN",
            "~trea / Nationality",
            "INDIAN",
            "~sa eae / Place of Birth",
            "~ant ar at fafa / Place of Issue",
            "CHENNAI",
        ]);
        let f = parse_printed("in.passport", Side::Front, &l);
        assert_eq!(
            (value(&f, "last_name"), value(&f, "first_name"), value(&f, "name"), value(&f, "place_of_birth")),
            (None, Some("MURUGAN"), None, None),
            "{f:?}"
        );
    }

    /// The last page (asked for beside the data page in Indian KYC) prints the holder's
    /// previous passport: its number is not this passport's.
    #[test]
    fn the_old_passport_number_on_the_last_page_is_no_id() {
        let l = lines(&[
            "~fiat / aaah anata at art / Name of Father / Legal Guardian",
            "RAMESH KUMAR SHARMA",
            "~Ara at ara / Name of Mother",
            "SUNITA SHARMA",
            "~van / Address",
            "H NO 12, MG ROAD, NEW DELHI",
            "PIN:110001, DELHI, INDIA",
            "~gu urate at a. / Old Passport No. with Date and Place of Issue",
            "H1234567 10/01/2005 DELHI",
            "~hrss a. / File No.",
            "DL1067123456789",
        ]);
        let f = parse_printed("in.passport", Side::Back, &l);
        assert_eq!(get(&f, "id"), None, "{f:?}");
        assert_eq!(get(&f, "issue_date"), None, "{f:?}");
    }

    /// A line of noise (the signature beside the labels) between the labels of the
    /// dates of issue and expiry and their dates; the dates stay in their columns.
    #[test]
    fn dates_a_line_of_noise_below_their_labels_are_read() {
        let mut page: Vec<&str> = PAGE.to_vec();
        page.insert(17, "gi AS he WEE");
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (Some("10/01/2015"), Some("09/01/2025")));
        // Two lines of noise: too far from the label.
        page.insert(17, "oy BN Gaal");
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (None, None));
    }

    /// The surname's line read from the portrait's edge, well left of its label's column
    /// (the independent set's seed 15, a passport with a punch and a cut corner, boxes as
    /// read): the short word the edge gave is not the surname's. A surname of two words
    /// printed at the label's column stays whole.
    #[test]
    fn a_surname_read_from_left_of_its_label_loses_the_portrait_edge() {
        let page = |surname: (&'static str, u32)| {
            boxed(&[
                ("a REPUBLIC OF INDIA", 116, 781, 80, 108),
                ("war / Type ats / Country Code urauté a. / Passport No.", 380, 1027, 128, 159),
                ("P IND U2330072", 387, 972, 167, 195),
                ("saa / Surname", 384, 539, 202, 231),
                (surname.0, surname.1, 613, 217, 276),
                ("fear wat am / Given Name(s)", 384, 646, 272, 304),
                ("o l co PRADEEP", 156, 557, 296, 358),
            ])
        };
        let f = parse_printed("in.passport", Side::Front, &page(("GR MUKHERJEE", 121)));
        assert_eq!((value(&f, "last_name"), value(&f, "first_name")), (Some("MUKHERJEE"), Some("PRADEEP")), "{f:?}");
        assert_eq!(value(&f, "name"), Some("MUKHERJEE PRADEEP"));
        let f = parse_printed("in.passport", Side::Front, &page(("DE SOUZA", 386)));
        assert_eq!(value(&f, "last_name"), Some("DE SOUZA"), "{f:?}");
    }

    /// The place of birth's line read from the portrait's edge (the independent set's
    /// seed 17, a jpeg35 page, boxes as read): the marks the edge gave are not the
    /// place's. Must-fail: a place at the label's column keeps a short first word.
    #[test]
    fn the_dates_of_issue_and_expiry_read_as_two_lines_right_first_stay_in_their_columns() {
        // The independent set's seed 31, a page with its bottom-left corner cut: the row
        // of dates read as two lines, the expiry's first (before, the expiry was taken
        // for the date of issue, and no expiry read). The row read as one line, as
        // usual, reads the same.
        let page = |dates: &[(&'static str, u32, u32)]| {
            let mut rows = vec![
                ("REPUBLIC OF INDIA", 420, 781, 79, 107),
                ("uit at chr ert / Place of Issue", 390, 685, 487, 520),
                ("PATNA", 392, 505, 525, 550),
                ("unt aes ct fafa / Date of Issue aarfta a fafa / Date of Expiry", 386, 1047, 560, 591),
            ];
            rows.extend(dates.iter().map(|&(t, x0, x1)| (t, x0, x1, 598, 624)));
            parse_printed("in.passport", Side::Front, &boxed(&rows))
        };
        for f in [page(&[("20/03/2029", 774, 939), ("21/03/2019", 390, 555)]), page(&[("21/03/2019 20/03/2029", 390, 939)])] {
            assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (Some("21/03/2019"), Some("20/03/2029")), "{f:?}");
        }
    }

    #[test]
    fn a_place_of_birth_read_from_left_of_its_label_loses_the_portrait_edge() {
        let page = |place: (&'static str, u32)| {
            boxed(&[
                ("ca REPUBLIC OF INDIA", 101, 779, 63, 123),
                ("war/Type ats/ Country Code uramié 4. / Passport No.", 400, 1055, 127, 151),
                ("P IND J6735959", 403, 986, 162, 190),
                ("aq ei / Place of Birth", 396, 633, 415, 446),
                (place.0, place.1, 829, 439, 541),
                ("ant ae a BI / Place of Issue", 400, 706, 486, 516),
                ("DELHI", 402, 508, 525, 553),
            ])
        };
        let f = parse_printed("in.passport", Side::Front, &page(("F UO AHMEDABAD, GUJARAT", 44)));
        assert_eq!(value(&f, "place_of_birth"), Some("AHMEDABAD, GUJARAT"), "{f:?}");
        let f = parse_printed("in.passport", Side::Front, &page(("GO AHMEDABAD, GUJARAT", 398)));
        assert_eq!(value(&f, "place_of_birth"), Some("GO AHMEDABAD, GUJARAT"), "{f:?}");
    }

    /// The date of issue's label washed out (seed 13's overexposed page): the expiry's
    /// label alone on its row still takes the row's second date. Must-fail: the first.
    #[test]
    fn the_expiry_is_the_second_date_of_its_row_when_the_issues_label_is_lost() {
        let mut page: Vec<&str> = PAGE.to_vec();
        page[16] = "sit e of Expiry";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (None, Some("09/01/2025")), "{f:?}");
        // The second date's day and month lost: no expiry (the first is the issue's).
        page[17] = "10/01/2015 2025";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!(value(&f, "expiry_date"), None, "{f:?}");
        // One date on the row: that one.
        page[17] = "09/01/2025";
        let f = parse_printed("in.passport", Side::Front, &lines(&page));
        assert_eq!(value(&f, "expiry_date"), Some("09/01/2025"));
    }

    /// Ten years or five, to the day before the anniversary of issue; must-fail twins:
    /// the anniversary itself, a day off, another term, a date that does not exist.
    #[test]
    fn an_expiry_follows_from_its_issue_as_india_prints_it() {
        assert!(expiry_follows_issue("06/08/2023", "05/08/2033"));
        assert!(expiry_follows_issue("06/08/2023", "05/08/2028"));
        assert!(expiry_follows_issue("01/01/2015", "31/12/2024"));
        assert!(expiry_follows_issue("01/03/2015", "28/02/2025"));
        assert!(!expiry_follows_issue("01/03/2014", "28/02/2024"));
        assert!(expiry_follows_issue("01/03/2015", "29/02/2020"));
        assert!(expiry_follows_issue("29/02/2016", "27/02/2026"));
        assert!(expiry_follows_issue("29/02/2016", "28/02/2026"));
        assert!(!expiry_follows_issue("06/08/2023", "06/08/2033"));
        assert!(!expiry_follows_issue("06/08/2023", "04/08/2033"));
        assert!(!expiry_follows_issue("06/08/2023", "05/08/2032"));
        assert!(!expiry_follows_issue("06/08/2027", "05/08/2033"));
        assert!(!expiry_follows_issue("06/09/2023", "05/08/2033"));
        assert!(!expiry_follows_issue("31/02/2023", "30/02/2033"));
        assert!(!expiry_follows_issue("06/08/2023", "05/08/2033 "));
        assert!(!expiry_follows_issue("", "05/08/2033"));
    }

    /// A date of issue found by its expiry where no label was read; must-fail twins: no
    /// date that stands so, two that do.
    #[test]
    fn a_date_of_issue_is_found_by_its_expiry_without_its_label() {
        let page = ["Ser ae —", "14/08/2020 13/08/2030", "P<INDTHAKUR<<DIVYA<<<<<<<<<<<<<<<<<<<<<<<<<<", "INDIAN ne F 24/12/1965"];
        assert_eq!(issue_date_for_expiry(page, "13/08/2030").as_deref(), Some("14/08/2020"));
        assert_eq!(issue_date_for_expiry(page, "13/08/2031"), None);
        assert_eq!(issue_date_for_expiry(["14/08/2020 13/08/2030", "14/08/2020"], "13/08/2030").as_deref(), Some("14/08/2020"));
        assert_eq!(issue_date_for_expiry(["14/08/2020 13/08/2030", "14/08/2025"], "13/08/2030"), None);
    }

    #[test]
    fn impossible_dates_are_not_returned() {
        let mut t = PAGE;
        t[17] = "31/02/2015   09/01/2025";
        let f = parse_printed("in.passport", Side::Front, &lines(&t));
        // The impossible date is no date, and the other stays in its column.
        assert!(f.iter().all(|x| x.value != "31/02/2015"));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (None, Some("09/01/2025")));
    }

    /// A blurred page whose labels no reading found (the independent set's seed 34): the
    /// place of birth is the line under the row of nationality, sex and date of birth,
    /// in its column and as tall. Must-fail twins: a label-sized line there (a label
    /// misread in capitals), one in another column, one holding more than a place's
    /// letters, and no row above it.
    #[test]
    fn a_place_of_birth_whose_label_was_lost_is_the_line_under_its_row() {
        let page = |under: (&'static str, u32, u32, u32, u32)| {
            boxed(&[
                ("REPUBLIC OF INDIA", 440, 761, 83, 108),
                ("Ps Senin ees 16843952", 392, 989, 140, 197),
                ("PATEL", 391, 500, 213, 288),
                ("INDIAN M 29/08/1971", 392, 1026, 354, 435),
                under,
                ("GHAZIABAD", 391, 606, 500, 581),
                ("22/01/2021 27/01/2031", 392, 980, 571, 625),
            ])
        };
        let read = |under| parse_printed("in.passport", Side::Front, &page(under));
        assert_eq!(value(&read(("JAIPUR, RAJASTHAN", 388, 736, 428, 510)), "place_of_birth"), Some("JAIPUR, RAJASTHAN"));
        assert_eq!(value(&read(("BHOPAL", 388, 530, 428, 510)), "place_of_birth"), Some("BHOPAL"));
        for under in [
            ("MY PAR SUE", 388, 736, 440, 460),
            ("JAIPUR, RAJASTHAN", 700, 1030, 428, 510),
            ("JAIPUR, RAJASTHAN 3", 388, 736, 428, 510),
            ("Jaipur, Rajasthan", 388, 736, 428, 510),
            ("JAIPUR,", 388, 736, 428, 510),
        ] {
            assert_eq!(value(&read(under), "place_of_birth"), None, "{under:?}");
        }
        let mut no_row = page(("JAIPUR, RAJASTHAN", 388, 736, 428, 510));
        no_row[3].text = "29/08/1971".into();
        assert_eq!(value(&parse_printed("in.passport", Side::Front, &no_row), "place_of_birth"), None);
    }

    #[test]
    fn arbitrary_input_never_panics() {
        never_panics(&lines(&PAGE), ALPHABET, 51, 80);
    }
}
