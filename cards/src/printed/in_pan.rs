//! India's PAN card (Permanent Account Number, Income Tax Department), front.
//!
//! Assumptions:
//! - The number is one token of ten characters `AAAAA9999A`, found wherever it is;
//!   confusions are repaired positionally (letters in positions 1-5 and 10, digits in
//!   6-9), at most three, and only on a token that already has at least two digits in
//!   6-9 and three letters in 1-5 (so no word becomes a PAN). Its check
//!   ([`super::pan_check`]): the structure and the fourth letter, the holder's category,
//!   one of `P C H F A T B L J G` — any other letter is `Failed`. A token on or after
//!   the "Permanent Account Number" line is preferred.
//! - New design (2018 on): bilingual labels "नाम / Name", "पिता का नाम / Father's
//!   Name", "जन्म की तारीख / Date of Birth", each value on the next line (or after the
//!   label on the same line).
//! - Old design: no labels: "INCOME TAX DEPARTMENT" / "GOVT. OF INDIA", then the
//!   holder's name, the father's name and the date of birth on lines of their own; the
//!   first and second plausible name lines after the header are `name` and
//!   `father_name`.
//! - Neither label nor header read (a blurred card): exactly two plausible name lines
//!   in capitals between the number and the first date are `name` and `father_name`
//!   (the order of both designs).
//! - Since 2018 the mother's name may be printed instead of the father's: "माता का
//!   नाम / Mother's Name" gives `mother_name`, never `father_name`. A "Name" read
//!   exactly after a word within two edits of "Father's" / "Mother's" ("Motber's
//!   Name", the parent's label misread) is no label of the holder's name; nor is a
//!   "Name" with a name line between it and the number (the holder's label stands
//!   right under the number: "ara at ara / Mtr's Name" is the parent's, misread).
//! - Names are printed in capitals; some printers' cards print them in Title Case
//!   ("Rahul Kumar Sharma"), read as printed. A name mixing the two ("Sunith SHARMA")
//!   is a misreading and not given. Title Case is taken at a label only (and for the
//!   holder's unlabelled line when the parent's labelled name is in Title Case too).
//! - `dob`: after "Date of Birth", else the first date anywhere on the card.
//! - A company's, firm's or trust's card prints "निगमन/गठन की तारीख / Date of
//!   Incorporation/Formation" instead: that date is `incorporation_date`, and such a
//!   card gives no `dob` at all (its only date is no birth date) and no `father_name`
//!   from unlabelled lines (a company has no father, and its name may wrap onto a
//!   second line). The old design prints no labels: there the number's fourth letter,
//!   the holder's category (`P` a person; `C`, `F`, `H`, `T`… an organisation), tells
//!   such a card, whose one date is then `incorporation_date`, and whose name is given
//!   only when it stands on one line. On the new design, a name read at its label
//!   on such a card is joined with the one name line under it (a wrapped name) when
//!   the next label, the date or the card's end follows; anything else there: no name.

use super::{
    extract_date, field, repair_positional, tokens, without_words_left_of_label, Doc, FieldCheck, Found, Labels, PrintedField, pan_check,
};

pub(crate) const LABELS: Labels = &[
    ("name", &["Name", "नाम"]),
    ("father_name", &["Father's Name", "Father Name", "पिता का नाम"]),
    // Two edits from "Father's Name": on its own line this spelling is the closer.
    ("mother_name", &["Mother's Name", "Mother Name", "माता का नाम"]),
    ("dob", &["Date of Birth", "जन्म की तारीख", "DOB"]),
    ("incorporation_date", &["Date of Incorporation/Formation", "Date of Incorporation", "Date of Formation", "निगमन/गठन की तारीख"]),
    ("header", &["Income Tax Department", "Govt. of India", "Government of India", "आयकर विभाग", "भारत सरकार"]),
    ("pan_label", &["Permanent Account Number", "Permanent Account Number Card", "स्थायी लेखा संख्या", "स्थायी लेखा संख्या कार्ड"]),
    ("signature", &["Signature", "हस्ताक्षर"]),
];

/// The PAN on the card, with its check.
/// A PAN's shape: five capitals, four digits, a capital.
const PAN_PATTERN: &str = "AAAAA9999A";

pub(crate) fn find_pan(doc: &Doc) -> Option<(Found<String>, FieldCheck)> {
    let label = doc.line_of("pan_label");
    let mut cands = Vec::new();
    for i in 0..doc.len() {
        let text = doc.text(i);
        let mut readings: Vec<(String, usize)> = Vec::new();
        for (tok, _, end) in tokens(text) {
            // Tesseract reads a final J as `)` ("GPBPJ5803)"), `]` ("ULEPR5218]", the
            // independent set's seed 3, a clean card) or `}`, which `tokens` strips as
            // punctuation: the token is also tried with the J, as one repair. Then the
            // bracket is the number's final letter, and a token ending in a digit has
            // none of its own: it is not read as it stands ("QVFPY87338}" for
            // `QVFPY8738J`, seed 21 in perspective, its 8 and J read "38}", gave
            // "QVFPY8733B" with the last digit repaired into a letter).
            let bracket_after = text.get(end..).is_some_and(|rest| rest.starts_with([')', ']', '}']));
            if !(bracket_after && tok.ends_with(|c: char| c.is_ascii_digit())) {
                readings.push((tok.to_string(), 0));
            }
            if bracket_after {
                readings.push((format!("{tok}J"), 1));
            }
        }
        for (tok, closing_repair) in readings {
            // OCR sometimes reads a letter's hook as a mark of its own ("VGNPV5069)J"):
            // a mark inside the token is dropped and counts as one repair.
            let squeezed: String = tok.chars().filter(|c| c.is_alphanumeric()).collect();
            let mut dropped = tok.chars().count() - squeezed.chars().count() + closing_repair;
            let squeezed = match super::undoubled(&squeezed, PAN_PATTERN) {
                Some(one) => {
                    dropped += 1;
                    one
                }
                None => squeezed,
            };
            let Some((id, repairs)) = repair_positional(&squeezed, PAN_PATTERN) else { continue };
            let repairs = repairs + dropped;
            let chars: Vec<char> = squeezed.chars().collect();
            let digits = chars.iter().skip(5).take(4).filter(|c| c.is_ascii_digit()).count();
            let letters = chars.iter().take(5).filter(|c| c.is_alphabetic()).count();
            if repairs > 3 || digits < 2 || letters < 3 {
                continue;
            }
            let check = pan_check(&id);
            let near_label = label.is_some_and(|l| i >= l && i <= l + 2);
            let conf = doc.conf(&[i]) * (1.0 - 0.1 * repairs as f32);
            cands.push((!near_label, check != FieldCheck::Passed, Found { value: id, lines: vec![i], conf, label_line: label }, check));
        }
    }
    // Then the surest reading: the same print read twice, once with a glyph read twice
    // and dropped ("LENPNO2Z16D", two repairs) and once as printed ("LFNPNO216D", one:
    // seed 32's dark card), is the one with fewer repairs (`conf` counts them).
    cands.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.conf.total_cmp(&a.2.conf)));
    cands.into_iter().next().map(|(_, _, f, c)| (f, c))
}

/// Whether `token` is a PAN as printed: five capitals, four digits, a capital (no
/// repair, no check of its category letter).
pub fn printed_pan(token: &str) -> bool {
    let c: Vec<char> = token.chars().collect();
    c.len() == 10 && c.iter().enumerate().all(|(i, ch)| if (5..9).contains(&i) { ch.is_ascii_digit() } else { ch.is_ascii_uppercase() })
}

/// A PAN prints its holder's and father's names in capitals (both designs): a name read
/// with a lowercase letter is a misreading ("Sunith SHARMA" for "SNEHA SHARMA", the
/// label above merged into the line; evaluation seed 41), and no name is better than it.
fn in_capitals(name: &str) -> bool {
    !name.chars().any(char::is_lowercase)
}

/// Whether a name is in Title Case throughout ("Rahul Kumar Sharma"; initials "K."
/// either way): some printers' cards print the names so. One style through the whole
/// name, as [`in_capitals`] asks for capitals: "Sunith SHARMA" mixes them and stays a
/// misreading. Taken only for a value read at its label, or where a labelled name of
/// the same card is in Title Case too: unlabelled lines of `eng`'s Devanagari garbage
/// come out in such words ("Ra", "Wat").
fn in_title_case(name: &str) -> bool {
    let words: Vec<&str> = name.split_whitespace().filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2).collect();
    !words.is_empty() && words.iter().all(|w| w.chars().any(char::is_lowercase))
}

/// A name in one printed style: capitals (the PAN's own print) or Title Case.
fn in_one_style(name: &str) -> bool {
    in_capitals(name) || in_title_case(name)
}

/// Whether line `i`'s "Name" is a parent's label misread: the word before it within two
/// edits of "Father's" or "Mother's" ("Motber's Name"). The exact "Name" then outweighs
/// the parent's label one edit off, and the line would be taken for the holder's label.
fn parents_label(doc: &Doc, i: usize) -> bool {
    let Some(hit) = doc.hits(i).iter().find(|h| h.key == "name") else { return false };
    let before = super::fold_for_match(doc.text(i).get(..hit.bstart).unwrap_or(""));
    let Some(word) = before.chars.split(|&c| c == ' ').rfind(|w| !w.is_empty()) else { return false };
    ["fathers", "mothers"].iter().any(|p| super::edit_distance(word, &p.chars().collect::<Vec<_>>()) <= 2)
}

/// Whether a name line (in capitals or Title Case) stands between the number's line and the "Name"
/// label on line `label`, or, the number unread, on the line right above the label. The
/// new design prints the holder's "नाम / Name" right under the number (the portrait
/// beside it), so a name there makes that "Name" the parent's label misread beyond
/// recognition but for its last word ("ara at ara / Mtr's Name", "(ienaratt/ Fauna
/// tigine" under seed 20's blurred "DIVYA KUMARI BHATT"), and the line under it the
/// mother's or father's name, not the holder's.
fn name_line_above(doc: &Doc, pan_line: Option<usize>, label: usize) -> bool {
    // Where the lines stand, not what they give: a name line misread ("DIVYA RUMIART
    // BHATT", confidence 30) is still one. With the number unread, the line right above
    // the label, of two words or more: a number glare cut short reads as one capital
    // word ("IXEPCO", seed 18), above the holder's own label.
    let (from, fewest_words) = pan_line.map_or((label.saturating_sub(1), 2), |p| (p + 1, 1));
    (from..label).any(|j| doc.hits(j).is_empty() && super::latin_name(doc.text(j), 1.0).is_some_and(|v| in_one_style(&v) && v.split_whitespace().count() >= fewest_words))
}

/// An organisation's name read at its label, whole: a company's or firm's name may wrap
/// onto a second line under the "नाम / Name" label of the new design (no father's name
/// follows; the date's label or the date does). The one name line after the value,
/// before the next label, date or the card's end, is its rest and is joined to it. A
/// line there (or between the label and the value) that is no clean name but holds a
/// word may be part of the name misread, as may a third line: then no name, never a
/// cut one.
fn whole_organisation_name(doc: &Doc, f: Found<String>) -> Option<Found<String>> {
    let first = *f.lines.first()?;
    let label = f.label_line.unwrap_or(first);
    let ends = |k: usize| k >= doc.len() || !doc.hits(k).is_empty() || extract_date(doc.text(k)).is_some();
    let wordy = |k: usize| doc.text(k).split_whitespace().any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3);
    if (label + 1..first).any(wordy) {
        return None;
    }
    let mut rest: Option<(String, usize)> = None;
    let mut k = first + 1;
    while !ends(k) {
        if k > first + 3 {
            return None;
        }
        match super::latin_name(doc.text(k), doc.conf(&[k]).max(0.4)).filter(|v| in_one_style(v)) {
            Some(v) if rest.is_none() => rest = Some((v, k)),
            Some(_) => return None,
            None if wordy(k) => return None,
            None => {}
        }
        k += 1;
    }
    match rest {
        Some((v, k)) => {
            let lines = vec![first, k];
            let value = format!("{} {v}", f.value);
            // Both lines in one print style ("TATA CONSULTANCY Services" is no one name).
            in_one_style(&value).then(|| Found { value, conf: doc.conf(&lines), lines, label_line: f.label_line })
        }
        None => Some(f),
    }
}

pub(crate) fn parse(doc: &Doc) -> Vec<PrintedField> {
    let mut out = Vec::new();
    let pan = find_pan(doc);
    let pan_line = pan.as_ref().and_then(|p| p.0.lines.first().copied());
    // A non-individual's card (company, firm, trust…): its date is no birth date, and
    // the name-and-father layout of a person's card does not hold. Known by its date's
    // label, or, on the old design that prints no labels, by the holder's category, the
    // number's fourth letter (`P` a person; checked, so a misread category that is no
    // category letter decides nothing).
    let organisation = pan.as_ref().is_some_and(|(f, check)| *check == FieldCheck::Passed && f.value.chars().nth(3).is_some_and(|c| c != 'P'));
    let incorporated = doc.line_of("incorporation_date").is_some() || organisation;
    // Old design: plausible name lines after the header, before the date / PAN.
    let header = (0..doc.len()).filter(|&i| doc.has(i, "header")).last();
    // Each name-shaped line in its place, `None` where one was read with too little
    // confidence to give: the first is the holder's and the second the father's by
    // where they stand, so a misread holder's line ("DIVYA RUMIART BHATT" at 0.3, seed
    // 20's blurred PAN) must not make the father's line the first.
    let mut old_names: Vec<Option<Found<String>>> = Vec::new();
    if let Some(h) = header {
        for j in h + 1..doc.len() {
            if doc.has(j, "pan_label") || Some(j) == pan_line || extract_date(doc.text(j)).is_some() {
                break;
            }
            if doc.hits(j).is_empty() && super::latin_name(doc.text(j), 1.0).is_some_and(|v| in_capitals(&v)) {
                let given = super::latin_name(doc.text(j), doc.conf(&[j])).filter(|v| in_capitals(v));
                old_names.push(given.map(|v| Found { value: v, lines: vec![j], conf: doc.conf(&[j]), label_line: None }));
            }
        }
    }
    if let Some((f, check)) = pan {
        out.push(field("id", f, check));
    }
    let latin = |s: &str, conf: f32| super::latin_name(s, conf.max(0.4)).filter(|v| in_capitals(v));
    // A value read at its label: in capitals, or in Title Case on a card printing names so.
    let labelled_latin = |s: &str| super::latin_name(s, 1.0).filter(|v| in_one_style(v));
    // New design whose name labels OCR read neither of (a blurred card: "os New" for
    // "नाम / Name"), nor its header (which the old design's names follow): the plausible
    // name lines between the number and the first date, when there are exactly two, are
    // the holder's and the father's, in the order both designs print them.
    let unlabelled: Vec<Found<String>> = match pan_line {
        Some(p) if !incorporated && doc.line_of("name").is_none() && doc.line_of("father_name").is_none() && doc.line_of("mother_name").is_none() => {
            let found: Vec<Found<String>> = (p + 1..doc.len())
                .take_while(|&j| extract_date(doc.text(j)).is_none())
                .filter(|&j| doc.hits(j).is_empty())
                .filter_map(|j| latin(doc.text(j), doc.conf(&[j])).map(|v| Found { value: v, lines: vec![j], conf: doc.conf(&[j]), label_line: None }))
                .collect();
            if found.len() == 2 { found } else { Vec::new() }
        }
        _ => Vec::new(),
    };
    let father = doc.labelled("father_name", 2, |s, _| labelled_latin(s)).map(|f| without_words_left_of_label(doc, f, 2));
    let mother = doc.labelled("mother_name", 2, |s, _| labelled_latin(s)).map(|f| without_words_left_of_label(doc, f, 2));
    // The parent's name read at its label in Title Case: the card prints its names so.
    let title_case_card = [&father, &mother].into_iter().flatten().any(|f| in_title_case(&f.value) && !in_capitals(&f.value));
    let name = doc
        .labelled("name", 2, |s, _| labelled_latin(s))
        .filter(|f| !f.label_line.is_some_and(|i| parents_label(doc, i) || name_line_above(doc, pan_line, i)))
        .map(|f| without_words_left_of_label(doc, f, 2))
        .and_then(|f| if incorporated { whole_organisation_name(doc, f) } else { Some(f) })
        // An organisation's name may wrap onto a second line: its first line alone is
        // no name.
        .or_else(|| old_names.first().filter(|_| !incorporated || old_names.len() == 1).cloned().flatten())
        .or_else(|| {
            // New design whose "नाम / Name" label OCR did not read: the one plausible name
            // line between the number and the father's (or mother's) name label (two or
            // none: no name).
            let parent = [doc.line_of("father_name"), doc.line_of("mother_name")].into_iter().flatten().min();
            let (pan, parent) = (pan_line?, parent?);
            let mut between = (pan + 1..parent).filter(|&j| doc.hits(j).is_empty()).filter_map(|j| {
                let v = latin(doc.text(j), doc.conf(&[j]))
                    .or_else(|| super::latin_name(doc.text(j), doc.conf(&[j]).max(0.4)).filter(|v| title_case_card && in_title_case(v)))?;
                Some(Found { value: v, lines: vec![j], conf: doc.conf(&[j]), label_line: None })
            });
            let only = between.next()?;
            between.next().is_none().then_some(only)
        });
    let name = name.or_else(|| unlabelled.first().cloned());
    if let Some(n) = name {
        out.push(field("name", n, FieldCheck::NotApplicable));
    }
    let father = father
        // Not where a "Name" label was read: the old design prints none, and under a
        // new design's label the second name line may be a mother's ("Mtr's Name").
        .or_else(|| old_names.get(1).filter(|_| !incorporated && doc.line_of("name").is_none()).cloned().flatten())
        .or_else(|| unlabelled.get(1).cloned());
    if let Some(n) = father {
        out.push(field("father_name", n, FieldCheck::NotApplicable));
    }
    if let Some(n) = mother {
        out.push(field("mother_name", n, FieldCheck::NotApplicable));
    }
    if incorporated {
        // A "Date of Birth" label read on an organisation's number: the print says which
        // date it is (the category letter may be the misreading).
        if let Some(d) = doc.labelled_date("dob", 2) {
            out.push(field("dob", d, FieldCheck::Passed));
        } else if let Some(d) = doc.labelled_date("incorporation_date", 2).or_else(|| first_date(doc)) {
            out.push(field("incorporation_date", d, FieldCheck::Passed));
        }
        return out;
    }
    if let Some(d) = doc.labelled_date("dob", 2).or_else(|| first_date(doc)) {
        out.push(field("dob", d, FieldCheck::Passed));
    }
    out
}

/// The first date anywhere on the card (a card that prints one date, its label unread).
fn first_date(doc: &Doc) -> Option<Found<String>> {
    (0..doc.len()).find_map(|i| extract_date(doc.text(i)).map(|d| Found { value: d, lines: vec![i], conf: doc.conf(&[i]), label_line: None }))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;

    const NEW: [&str; 12] = [
        "आयकर विभाग INCOME TAX DEPARTMENT",
        "भारत सरकार GOVT. OF INDIA",
        "स्थायी लेखा संख्या कार्ड Permanent Account Number Card",
        "ABCPK1234F",
        "नाम / Name",
        "RAHUL KUMAR",
        "पिता का नाम / Father's Name",
        "RAMESH KUMAR",
        "जन्म की तारीख / Date of Birth",
        "14/08/1991",
        "हस्ताक्षर / Signature",
        "~Rahul",
    ];

    #[test]
    fn new_design_clean() {
        let l = lines(&NEW);
        let f = parse_printed("in.pan", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "ABCPK1234F", FieldCheck::Passed),
                ("name", "RAHUL KUMAR", FieldCheck::NotApplicable),
                ("father_name", "RAMESH KUMAR", FieldCheck::NotApplicable),
                ("dob", "14/08/1991", FieldCheck::Passed),
            ],
        );
        assert_eq!(get(&f, "name").map(|x| x.lines.clone()), Some(vec![5]));
        assert_eq!(best_type(&l), Some("in.pan"));
    }

    /// A blurred new-design card (evaluation seed 0, `in.pan-blur-1`, deblurred): neither
    /// name label nor the header was read, the two names were. Must-fail: a third
    /// name-like line between the number and the date, and no name is given.
    #[test]
    fn names_without_their_labels_between_the_number_and_the_date() {
        let read = [
            "ore ee wor eree",
            "COME TAK OCP AATMENT (+) COWT OF mma",
            "owt ow wee ors | Perm erent i mrt Sree Cat",
            "VNSPM8292L",
            "—- See",
            "( \\ DIVYA DEVI MEHTA",
            "i-- ew there",
            "; VENKATESH KUMAR MEHTA",
            "PSION 06/11/1982",
        ];
        let f = parse_printed("in.pan", Side::Front, &lines(&read));
        assert_eq!(get(&f, "name").map(|x| x.value.as_str()), Some("DIVYA DEVI MEHTA"), "{f:?}");
        assert_eq!(get(&f, "father_name").map(|x| x.value.as_str()), Some("VENKATESH KUMAR MEHTA"), "{f:?}");
        let mut three = read.to_vec();
        three.insert(7, "SURESH KUMAR");
        let f = parse_printed("in.pan", Side::Front, &lines(&three));
        assert_eq!((get(&f, "name"), get(&f, "father_name")), (None, None), "{f:?}");
    }

    /// Tesseract read the number's final J as `)` ("GPBPJ5803)", a cut-corner capture
    /// of the evaluation): the J is put back, as a repair. Must-fail: a `)` after a
    /// token that is no PAN gives none, and a `)` after a whole PAN adds nothing.
    #[test]
    fn a_final_j_read_as_a_parenthesis_is_put_back() {
        let read = |number: &str| {
            let text = ["INCOME TAX DEPARTMENT GOVT. OF INDIA", "Permanent Account Number Card", number, "ama / Name", "NEHA JOSHI"];
            parse_printed("in.pan", Side::Front, &lines(&text))
        };
        let f = read("GPBPJ5803)");
        assert_eq!(get(&f, "id").map(|x| x.value.as_str()), Some("GPBPJ5803J"));
        let whole = read("GPBPJ5803J");
        assert!(get(&f, "id").map(|x| x.confidence) < get(&whole, "id").map(|x| x.confidence), "a repaired number scores lower");
        // A `)` after a whole PAN adds nothing; after a token that is no PAN, no PAN.
        assert_eq!(get(&read("GPBPJ5803J)"), "id").map(|x| x.value.as_str()), Some("GPBPJ5803J"));
        assert_eq!(get(&read("ULEPR5218]"), "id").map(|x| x.value.as_str()), Some("ULEPR5218J"));
        assert_eq!(get(&read("ULEPR5218["), "id"), None, "an opening bracket is no J");
        assert_eq!(get(&read("SHARMA)"), "id"), None);
        assert_eq!(get(&read("GPBP5803)"), "id"), None);
        // A `}` too; and a token ending in a digit before the bracket has no final
        // letter of its own (seed 21: "QVFPY87338}" for QVFPY8738J gave "QVFPY8733B").
        assert_eq!(get(&read("GPBPJ5803}"), "id").map(|x| x.value.as_str()), Some("GPBPJ5803J"));
        assert_eq!(get(&read("QVFPY87338}"), "id"), None);
        assert_eq!(get(&read("QVFPY87338"), "id").map(|x| x.value.as_str()), Some("QVFPY8733B"), "without the bracket, the repair as before");
    }

    /// Tesseract read the number's 0 twice, as O and 0 ("ZHZPNO0439Z", a hole-and-cut
    /// capture of the evaluation), or a capital twice ("WYOPSS8865H", the independent
    /// set's number band read alone): one is dropped, as a repair. Must-fail: an
    /// eleven-character token without one such pair, or with two, gives no PAN.
    #[test]
    fn a_glyph_read_twice_as_letter_and_digit_is_read_once() {
        let read = |number: &str| {
            let text = ["INCOME TAX DEPARTMENT GOVT. OF INDIA", "Permanent Account Number Card", number, "ama / Name", "NEHA JOSHI"];
            parse_printed("in.pan", Side::Front, &lines(&text))
        };
        assert_eq!(get(&read("ZHZPNO0439Z"), "id").map(|x| x.value.as_str()), Some("ZHZPN0439Z"));
        assert_eq!(get(&read("ZHZPN04339Z"), "id"), None, "33 is no twin pair");
        assert_eq!(get(&read("ZHZPNO04S5Z"), "id"), None, "two pairs");
        assert_eq!(super::super::undoubled("ZHZPNO0439Z", super::PAN_PATTERN).as_deref(), Some("ZHZPN0439Z"));
        assert_eq!(super::super::undoubled("ZHZPN0439Z", super::PAN_PATTERN), None);
        // Twins where the letters meet the digits too (seed 32's JPEG-35 card): the one
        // drop that leaves the number as printed; must-fail, two such drops give two numbers.
        assert_eq!(super::super::undoubled("ALAPD0O777H", super::PAN_PATTERN).as_deref(), Some("ALAPD0777H"));
        assert_eq!(super::super::undoubled("ALAPD0O7S7H", super::PAN_PATTERN), None, "no drop leaves it as printed");
        // A lower-case l beside a capital I (seed 23's dark PAN): the l goes, either way round.
        assert_eq!(super::super::undoubled("DNPPP2273lI", super::PAN_PATTERN).as_deref(), Some("DNPPP2273I"));
        assert_eq!(super::super::undoubled("DNPPP2273Il", super::PAN_PATTERN).as_deref(), Some("DNPPP2273I"));
        assert_eq!(super::super::undoubled("DNPPP2273ll", super::PAN_PATTERN), None, "two l's are no l and I");
        // One capital read twice: dropped when exactly one such pair gives a PAN as printed.
        assert_eq!(super::super::undoubled("WYOPSS8865H", super::PAN_PATTERN).as_deref(), Some("WYOPS8865H"));
        assert_eq!(super::super::undoubled("WYOPS88865H", super::PAN_PATTERN), None, "a doubled digit may be the number's own");
        assert_eq!(super::super::undoubled("WWYOPS8865H", super::PAN_PATTERN).as_deref(), Some("WYOPS8865H"));
        assert_eq!(super::super::undoubled("AABCDD1234E", super::PAN_PATTERN), None, "two pairs, two different numbers: neither");
        assert_eq!(super::super::undoubled("WYOPSS88X5H", super::PAN_PATTERN), None, "no PAN as printed with one dropped");
        let epic = super::super::in_voter::EPIC_PATTERN;
        assert_eq!(super::super::undoubled("GGXO1715266", epic).as_deref(), Some("GXO1715266"));
        assert_eq!(super::super::undoubled("VVIJ2552814", epic), None, "the I may be the extra glyph as well as a V");
        assert_eq!(super::super::undoubled("VVlJ2552814", epic), None, "an l as an I");
        assert_eq!(super::super::undoubled("VVJI2552814", epic), None, "an I beside the digits too");
    }

    /// The number's print read twice (seed 32's dark card): the reading with fewer
    /// repairs is the number, whichever line comes first. Must-fail twin: a lone reading
    /// with a glyph dropped is still read.
    #[test]
    fn of_two_readings_of_the_number_the_one_with_fewer_repairs_wins() {
        let read = |numbers: &[&str]| {
            let mut text = vec!["INCOME TAX DEPARTMENT GOVT. OF INDIA", "Permanent Account Number Card"];
            text.extend_from_slice(numbers);
            text.extend(["ama / Name", "NITIN NAIDU"]);
            parse_printed("in.pan", Side::Front, &lines(&text))
        };
        assert_eq!(get(&read(&["LENPNO2Z16D", "LFNPNO216D"]), "id").map(|x| x.value.as_str()), Some("LFNPN0216D"));
        assert_eq!(get(&read(&["LFNPNO216D", "LENPNO2Z16D"]), "id").map(|x| x.value.as_str()), Some("LFNPN0216D"));
        assert_eq!(get(&read(&["LENPNO2Z16D"]), "id").map(|x| x.value.as_str()), Some("LENPN0216D"));
    }

    /// A dark capture of the unseen evaluation seed: the name's final J read as `]`
    /// ("MANO] KUMAR MEHTA"), or as `)`. Must-fail: a bracket that is no J's is not taken for one.
    #[test]
    fn a_j_read_as_a_bracket_in_a_name_is_a_j() {
        let read = |name: &str| {
            let text = ["INCOME TAX DEPARTMENT GOVT. OF INDIA", "Permanent Account Number Card", "HMTPM5302N", "ant / Name", name, "ufer at ara / Father's Name", "SURESH MEHTA"];
            parse_printed("in.pan", Side::Front, &lines(&text))
        };
        assert_eq!(get(&read("MANO] KUMAR MEHTA"), "name").map(|x| x.value.as_str()), Some("MANOJ KUMAR MEHTA"));
        // Not a `}`: "BALA}" was BALAJI (seed 34's blurred voter card).
        assert_ne!(get(&read("BALA} SAXENA"), "name").map(|x| x.value.as_str()), Some("BALAJ SAXENA"));
        // A voter card's "MANO) PILLAI" (the independent set's seed 26, tilted).
        assert_eq!(get(&read("MANO) PILLAI"), "name").map(|x| x.value.as_str()), Some("MANOJ PILLAI"));
        assert_ne!(get(&read("(KUMAR) MEHTA"), "name").map(|x| x.value.as_str()), Some("KUMARJ MEHTA"));
        // After the name's last word a `)` is a signature's stroke as often (seed 16's
        // "MAHESH LAL MISHRA)"): never a J.
        assert_ne!(get(&read("MAHESH LAL MISHRA)"), "name").map(|x| x.value.as_str()), Some("MAHESH LAL MISHRAJ"));
        assert_ne!(get(&read("[KUMAR] MEHTA"), "name").map(|x| x.value.as_str()), Some("KUMARJ MEHTA"));
        assert_ne!(get(&read("Mano] Kumar"), "name").map(|x| x.value.as_str()), Some("ManoJ Kumar"));
        assert_eq!(super::super::name_value("A] B]"), None, "a single capital and a bracket is no word");
    }

    /// The independent set's seed 36, a voter card in perspective: "BALAJ! TIWARI", the
    /// last I read as `!`. Must-fail: a `!` beside lowercase letters, two of them, or
    /// beside a single capital is not taken for an I.
    #[test]
    fn an_i_read_as_a_bang_in_a_name_in_capitals_is_an_i() {
        use super::super::name_value;
        assert_eq!(name_value("BALAJ! TIWARI").as_deref(), Some("BALAJI TIWARI"));
        assert_eq!(name_value("SR!NIVAS IYER").as_deref(), Some("SRINIVAS IYER"));
        assert_ne!(name_value("Balaj! Tiwari").as_deref(), Some("BalajI Tiwari"));
        assert_ne!(name_value("BALAJ!! TIWARI").as_deref(), Some("BALAJII TIWARI"));
        assert_ne!(name_value("A! TIWARI").as_deref(), Some("AI TIWARI"));
    }

    /// The lines and boxes (x from, to; y from, to, in the flattened card's pixels) of a
    /// PAN with a cut corner (evaluation seed 29, in.pan-cut-1): the portrait's edge beside
    /// the name was read as a word "EZ" in front of it, and the name line starts 230 px left
    /// of its label, where the other values start at the label's column.
    #[test]
    fn a_word_left_of_the_labels_column_is_not_part_of_the_name() {
        let card = |name_line: (&str, u32)| {
            boxed(&[
                ("INCOME TAX DEPARTMENT GOVT. OF INDIA", 42, 1133, 76, 94),
                ("aurh den daa ars / Permanent Account Number Card", 300, 873, 141, 163),
                ("XSBPY56380", 435, 738, 191, 223),
                ("am / Name", 320, 421, 276, 290),
                (name_line.0, name_line.1, 713, 285, 382),
                ("‘ / ‘ ufer a ara / Father's Name", 129, 567, 357, 388),
                ("SANJAY PRASAD YADAV", 320, 716, 408, 436),
                (", TN aa a arta / Date of Birth", 40, 568, 417, 527),
                ("24/06/1962", 319, 502, 506, 531),
            ])
        };
        let name = |name_line: (&str, u32)| value(&parse_printed("in.pan", Side::Front, &card(name_line)), "name").map(str::to_string);
        assert_eq!(name(("EZ SURESH KUMAR YADAV", 90)).as_deref(), Some("SURESH KUMAR YADAV"));
        assert_eq!(value(&parse_printed("in.pan", Side::Front, &card(("EZ SURESH KUMAR YADAV", 90))), "father_name"), Some("SANJAY PRASAD YADAV"));
        // Must-fail: at the label's column, a short first word is the name's.
        assert_eq!(name(("MD SHAHID KHAN", 321)).as_deref(), Some("MD SHAHID KHAN"));
        assert_eq!(name(("K S RAO", 318)).as_deref(), Some("K S RAO"));
        // A PAN prints names in capitals: a mixed-case reading is not given.
        assert_eq!(name(("Sunith SHARMA", 328)), None);
        // Left of the column with two words only: nothing is dropped (a name is kept whole
        // or not changed at all).
        assert_eq!(name(("EZ YADAV", 90)).as_deref(), Some("EZ YADAV"));
    }

    /// A value is the line under its label, not the next line in the OCR's reading
    /// order. The independent set's seed 18, as read: a dark PAN's header "भारत सरकार"
    /// ("UA AHR", top right) was read right after "Father's Name" (given as the father);
    /// under a cut corner the date's line came before the mother's name above it ("EPMO",
    /// the signature beside the date, given as the mother). Must-fail: the same lines
    /// without their boxes (reading order alone) give those wrong names.
    #[test]
    fn a_value_is_the_line_under_its_label_not_the_next_one_read() {
        let dark = [
            ("INCOME TAX DEPARTMENT", 50, 520, 86, 112),
            ("Permanent Account Number Card", 342, 859, 220, 247),
            ("OGWPA4528Q", 384, 816, 268, 327),
            ("ama / Name", 44, 175, 435, 469),
            ("VIJAY ANSARI", 45, 322, 481, 511),
            ("fer cr ara / Father's Name", 45, 362, 538, 576),
            ("UA AHR", 976, 1152, 23, 72),
            ("GOVT. OF INDIA", 829, 1149, 81, 111),
            ("SANJAY ANSARI", 45, 369, 588, 618),
            ("ora cht ata / Date of Birth", 41, 358, 641, 681),
        ];
        let cut = [
            ("INCOME TAX DEPARTMENT ~~ GOVT. OF INDIA", 51, 1149, 74, 112),
            ("Permanent Account Number Card", 383, 831, 223, 247),
            ("EOMPR3428C", 415, 800, 277, 317),
            ("ama / Name", 54, 168, 440, 471),
            ("FARHAN LAL RAO", 57, 381, 480, 508),
            ("Fret 1 aT4 / Mother's Name", 54, 338, 535, 567),
            ("5/02/1976 EPMO :", 78, 1199, 655, 704),
            ("gear / Signature", 677, 863, 703, 735),
            ("SUNITA RAO", 56, 284, 576, 604),
            (". wt ai ante / Date of Birth", 0, 325, 625, 757),
        ];
        let f = parse_printed("in.pan", Side::Front, &boxed(&dark));
        assert_eq!((value(&f, "name"), value(&f, "father_name")), (Some("VIJAY ANSARI"), Some("SANJAY ANSARI")), "{f:?}");
        let f = parse_printed("in.pan", Side::Front, &boxed(&cut));
        assert_eq!((value(&f, "name"), value(&f, "mother_name")), (Some("FARHAN LAL RAO"), Some("SUNITA RAO")), "{f:?}");
        let unboxed = |rows: &[(&str, u32, u32, u32, u32)]| lines(&rows.iter().map(|r| r.0).collect::<Vec<_>>());
        assert_eq!(value(&parse_printed("in.pan", Side::Front, &unboxed(&dark)), "father_name"), Some("UA AHR"));
        assert_ne!(value(&parse_printed("in.pan", Side::Front, &unboxed(&cut)), "mother_name"), Some("SUNITA RAO"));

        // The label read first of the page and its value fourteen lines on (seed 24, JPEG
        // quality 35): the line right under it is its value wherever it was read.
        let far = [
            ("Aa", 0, 35, 0, 37),
            ("Aral #1 Tq / Mother's Name", 50, 357, 544, 575),
            ("oraz feet (70) We ALTT", 45, 1153, 27, 73),
            ("INCOME TAX DEPARTMENT ~~ GOVT. OF INDIA", 51, 1148, 71, 113),
            ("|", 1194, 1198, 117, 165),
            ("order sen ee eda", 494, 1146, 156, 218),
            ("Permanent Account Number Card He |", 352, 1200, 216, 260),
            ("HDKPY38540 ee", 431, 1142, 275, 328),
            ("a", 1116, 1200, 341, 370),
            ("m", 1022, 1031, 390, 396),
            ("|", 1195, 1199, 401, 447),
            ("am / Name |", 53, 1200, 447, 478),
            ("SANDEEP YADAV |", 56, 1199, 484, 530),
            ("ANJALI YADAV", 54, 309, 584, 620),
            ("ot & ata/Date of Birth", 50, 329, 638, 672),
            ("Q 07/07/1984 geaar / Signature Ge seri GR af er NY", 0, 1200, 681, 757),
        ];
        let f = parse_printed("in.pan", Side::Front, &boxed(&far));
        assert_eq!((value(&f, "name"), value(&f, "mother_name")), (Some("SANDEEP YADAV"), Some("ANJALI YADAV")), "{f:?}");
        // Three label heights under it or more is not right under it.
        let mut lower = far;
        lower[13] = ("ANJALI YADAV", 54, 309, 640, 676);
        lower[14] = ("ot & ata/Date of Birth", 50, 329, 690, 720);
        assert_eq!(value(&parse_printed("in.pan", Side::Front, &boxed(&lower)), "mother_name"), None);
    }

    /// Tesseract lost the "नाम / Name" label line of a clean generated PAN (seed-shifted
    /// evaluation): the name is the one name line between the number and the father's
    /// label. Must-fail: two candidate lines there are no name.
    #[test]
    fn a_name_whose_label_was_not_read_sits_between_the_number_and_the_father() {
        let read = [
            "orrene afrt Ra AAR",
            "INCOME TAX DEPARTMENT GOVT. OF INDIA",
            "aurht dean dean as / Permanent Account Number Card",
            "XUFPS2479H",
            "AMIT SHARMA",
            "afar at ara / Father's Name",
            "VIKRAM PRASAD SHARMA",
            "ora at aka / Date of Birth",
            "09/02/1959",
        ];
        let f = parse_printed("in.pan", Side::Front, &lines(&read));
        assert_eq!(get(&f, "name").map(|x| x.value.as_str()), Some("AMIT SHARMA"));
        assert_eq!(get(&f, "father_name").map(|x| x.value.as_str()), Some("VIKRAM PRASAD SHARMA"));
        let mut two = read.to_vec();
        two.insert(5, "SUNIL VERMA");
        let f = parse_printed("in.pan", Side::Front, &lines(&two));
        assert_eq!(get(&f, "name"), None, "two lines could be the name");
    }

    /// Tesseract's reading of a generated clean PAN (the demo page's card): the J's hook
    /// read as a mark of its own. Must-fail: marks that leave too many repairs.
    #[test]
    fn a_mark_read_inside_the_number_is_dropped() {
        let mut noisy = NEW;
        noisy[3] = "VGNPV5069)J";
        let f = parse_printed("in.pan", Side::Front, &lines(&noisy));
        assert_eq!(get(&f, "id").map(|x| x.value.as_str()), Some("VGNPV5069J"));
        noisy[3] = "V.G|N)P'V5O6Z)J";
        let f = parse_printed("in.pan", Side::Front, &lines(&noisy));
        assert_eq!(get(&f, "id"), None, "six marks and three letter repairs are no PAN");
    }

    /// A company's or firm's PAN (the fourth letter `C`, `F`…) prints "Date of
    /// Incorporation/Formation" where a person's prints "Date of Birth", and no father's
    /// name. Must-fail: before the rule, the date came back as `dob` (the first date on
    /// the card), and the company's name wrapped onto two lines under an unread name
    /// label as `name` and `father_name`; a person's card still gives `dob` and no
    /// `incorporation_date`.
    #[test]
    fn a_companys_date_of_incorporation_is_no_date_of_birth() {
        let company = [
            "आयकर विभाग INCOME TAX DEPARTMENT",
            "भारत सरकार GOVT. OF INDIA",
            "स्थायी लेखा संख्या कार्ड Permanent Account Number Card",
            "AABCT1234C",
            "नाम / Name",
            "TATA CONSULTANCY SERVICES LIMITED",
            "निगमन/गठन की तारीख / Date of Incorporation/Formation",
            "01/04/1995",
        ];
        let f = parse_printed("in.pan", Side::Front, &lines(&company));
        assert_fields(
            &f,
            &[
                ("id", "AABCT1234C", FieldCheck::Passed),
                ("name", "TATA CONSULTANCY SERVICES LIMITED", FieldCheck::NotApplicable),
                ("incorporation_date", "01/04/1995", FieldCheck::Passed),
            ],
        );
        // `eng` reads the Hindi half as Latin; a firm's card says "Formation" alone.
        let mut read = company;
        read[6] = "faarr/aoa at art / Date of Incorporation / Formation";
        let f = parse_printed("in.pan", Side::Front, &lines(&read));
        assert_eq!((value(&f, "incorporation_date"), value(&f, "dob")), (Some("01/04/1995"), None), "{f:?}");
        read[6] = "Date of Formation";
        let f = parse_printed("in.pan", Side::Front, &lines(&read));
        assert_eq!((value(&f, "incorporation_date"), value(&f, "dob")), (Some("01/04/1995"), None), "{f:?}");
        // The name label not read and the name on two lines: neither half is a father.
        let wrapped = [
            "INCOME TAX DEPARTMENT GOVT. OF INDIA",
            "aurht dean dean as / Permanent Account Number Card",
            "AABCT1234C",
            "TATA CONSULTANCY",
            "SERVICES LIMITED",
            "faarr/aoa at art / Date of Incorporation/Formation",
            "01/04/1995",
        ];
        let f = parse_printed("in.pan", Side::Front, &lines(&wrapped));
        assert_eq!((get(&f, "father_name"), get(&f, "dob"), get(&f, "name")), (None, None, None), "{f:?}");
        assert_eq!(value(&f, "incorporation_date"), Some("01/04/1995"));
        // A person's card: the date of birth, as before.
        let f = parse_printed("in.pan", Side::Front, &lines(&NEW));
        assert_eq!((value(&f, "dob"), value(&f, "incorporation_date")), (Some("14/08/1991"), None));
    }

    /// The old design prints no labels: a company's card (fourth letter `C`) is known by
    /// its category, its one date is its incorporation, and no line is a father's.
    /// Must-fail: before the rule the date came back as `dob` and a wrapped name's two
    /// lines as `name` and `father_name`; a person's old card (`P`) still gives `dob`
    /// and the father, and an unchecked category letter decides nothing.
    #[test]
    fn an_old_design_organisations_card_is_known_by_its_category_letter() {
        let card = |name: &[&str], number: &str| {
            let mut t = vec!["INCOME TAX DEPARTMENT      GOVT. OF INDIA"];
            t.extend_from_slice(name);
            t.extend_from_slice(&["15/05/1973", "Permanent Account Number", number, "Signature"]);
            parse_printed("in.pan", Side::Front, &lines(&t))
        };
        let f = card(&["RELIANCE INDUSTRIES LIMITED"], "AAACR5055K");
        assert_fields(
            &f,
            &[
                ("id", "AAACR5055K", FieldCheck::Passed),
                ("name", "RELIANCE INDUSTRIES LIMITED", FieldCheck::NotApplicable),
                ("incorporation_date", "15/05/1973", FieldCheck::Passed),
            ],
        );
        let f = card(&["RELIANCE INDUSTRIES", "PETROCHEMICALS LIMITED"], "AAACR5055K");
        assert_eq!((get(&f, "name"), get(&f, "father_name"), get(&f, "dob")), (None, None, None), "{f:?}");
        assert_eq!(value(&f, "incorporation_date"), Some("15/05/1973"));
        // A person's card: the holder, the father and the date of birth.
        let f = card(&["SUNITA DEVI", "MOHAN LAL SHARMA"], "BNZPD4567K");
        assert_eq!((value(&f, "name"), value(&f, "father_name"), value(&f, "dob")), (Some("SUNITA DEVI"), Some("MOHAN LAL SHARMA"), Some("15/05/1973")));
        // No category letter (X): the card is read as a person's.
        let f = card(&["SUNITA DEVI", "MOHAN LAL SHARMA"], "BNZXD4567K");
        assert_eq!((value(&f, "dob"), get(&f, "incorporation_date")), (Some("15/05/1973"), None));
    }

    /// Since 2018 an applicant may have the mother's name printed instead of the
    /// father's: "माता का नाम / Mother's Name". "Mother's Name" is two edits from
    /// "Father's Name" and ends in "Name". Must-fail: before the key, the card gave no
    /// mother's name; with the holder's label unread, the mother's name came back as
    /// `name`; with "Name" misread "Nane", as `father_name`; and a father's card still
    /// gives `father_name` and no `mother_name`.
    #[test]
    fn a_mothers_name_is_neither_the_holders_nor_a_fathers() {
        let mut card = NEW;
        card[6] = "माता का नाम / Mother's Name";
        card[7] = "SUNITA KUMARI";
        let read = |t: &[&str]| parse_printed("in.pan", Side::Front, &lines(t));
        let expected = [
            ("id", "ABCPK1234F", FieldCheck::Passed),
            ("name", "RAHUL KUMAR", FieldCheck::NotApplicable),
            ("mother_name", "SUNITA KUMARI", FieldCheck::NotApplicable),
            ("dob", "14/08/1991", FieldCheck::Passed),
        ];
        assert_fields(&read(&card), &expected);
        // `eng` reads the Hindi half as Latin; OCR misspells the English one.
        for label in ["ara at ara / Mother's Name", "Mothers Narne", "Mother Name", "ara at ara / Mother's Nane", "माता का नाम"] {
            card[6] = label;
            assert_fields(&read(&card), &expected);
        }
        // The holder's label not read: the name is the one line between the number and
        // the mother's label, never the mother's, and the mother is no father.
        let mut unlabelled = card.to_vec();
        unlabelled[6] = "ara at ara / Mother's Name";
        unlabelled.remove(4);
        assert_fields(&read(&unlabelled), &expected);
        // The mother's label misread where its "Name" is still exact ("Motber's Name"):
        // that "Name" is no holder's label; no name rather than the mother's.
        for misread in ["ara at ara / Motber's Name", "Mohter's Name", "Fatber's Name"] {
            unlabelled[5] = misread;
            let f = read(&unlabelled);
            assert!(f.iter().all(|x| x.value != "SUNITA KUMARI"), "{misread}: {f:?}");
        }
        // A father's card: as before.
        let f = read(&NEW);
        assert_eq!((value(&f, "father_name"), value(&f, "mother_name")), (Some("RAMESH KUMAR"), None));
    }

    /// Item: a card whose names are printed in Title Case ("Rahul Kumar Sharma", another
    /// printer's layout) rather than in capitals: both names are read as printed, not
    /// upper-cased. Must-fail: before the rule neither name came back; a name mixing the
    /// two styles ("Sunith SHARMA", "Rahul KUMAR") is still a misreading and not given;
    /// the holder's label unread, a Title Case line between the number and a Title Case
    /// father's name is the holder's, but not when the father's name is in capitals.
    #[test]
    fn names_printed_in_title_case_are_read_as_printed() {
        let mut card = NEW;
        card[5] = "Rahul Kumar Sharma";
        card[7] = "Ramesh Chandra Sharma";
        let read = |t: &[&str]| parse_printed("in.pan", Side::Front, &lines(t));
        let expected = [
            ("id", "ABCPK1234F", FieldCheck::Passed),
            ("name", "Rahul Kumar Sharma", FieldCheck::NotApplicable),
            ("father_name", "Ramesh Chandra Sharma", FieldCheck::NotApplicable),
            ("dob", "14/08/1991", FieldCheck::Passed),
        ];
        assert_fields(&read(&card), &expected);
        // `eng` reads the Hindi halves as Latin garbage; values after the label.
        let mut glued = card;
        glued[4] = "am / Name";
        glued[6] = "fat a 37H / Father's Name";
        assert_fields(&read(&glued), &expected);
        glued[4] = "am / Name Rahul Kumar Sharma";
        glued[5] = "~ee";
        assert_eq!(value(&read(&glued), "name"), Some("Rahul Kumar Sharma"));
        // An initial stays an initial.
        card[5] = "K S Rao";
        assert_eq!(value(&read(&card), "name"), Some("K S Rao"));
        // Must-fail: mixed styles on one name are misreadings.
        for mixed in ["Rahul KUMAR", "Sunith SHARMA", "RAHUL Kumar"] {
            card[5] = mixed;
            assert_eq!(value(&read(&card), "name"), None, "{mixed}");
        }
        // The holder's label unread: the one Title Case line above a Title Case father.
        let mut unlabelled = NEW.to_vec();
        unlabelled[5] = "Rahul Kumar Sharma";
        unlabelled[7] = "Ramesh Chandra Sharma";
        unlabelled.remove(4);
        assert_fields(&read(&unlabelled), &expected);
        // …but not above a father in capitals (a Title Case line there is no name of
        // that card's print).
        unlabelled[6] = "RAMESH CHANDRA SHARMA";
        let f = read(&unlabelled);
        assert_eq!((get(&f, "name"), value(&f, "father_name")), (None, Some("RAMESH CHANDRA SHARMA")), "{f:?}");
    }

    /// Item: the card printing "माता का नाम / Mother's Name" in the father's place, in
    /// more readings: the value on the label's line, a Title Case card, and the mother's
    /// label misread beyond recognition but for its "Name" ("ara at ara / Mtr's Name")
    /// with the holder's label unread. The new design prints the holder's label right
    /// under the number: a name line between the number and a "Name" label makes that
    /// label a parent's. Must-fail: before the rule the last case gave the mother's name
    /// as the holder's.
    #[test]
    fn a_mothers_name_is_never_the_holders_in_other_readings() {
        let read = |t: &[&str]| parse_printed("in.pan", Side::Front, &lines(t));
        let mut card = NEW;
        card[6] = "माता का नाम / Mother's Name SUNITA KUMARI";
        card[7] = "~ee";
        let f = read(&card);
        assert_eq!((value(&f, "name"), value(&f, "mother_name"), get(&f, "father_name")), (Some("RAHUL KUMAR"), Some("SUNITA KUMARI"), None), "{f:?}");
        card[5] = "Rahul Kumar";
        card[6] = "ara at ara / Mother's Name";
        card[7] = "Sunita Kumari";
        let f = read(&card);
        assert_eq!((value(&f, "name"), value(&f, "mother_name"), get(&f, "father_name")), (Some("Rahul Kumar"), Some("Sunita Kumari"), None), "{f:?}");
        // The mother's label read as a bare "Name", the holder's label lost.
        let card = [
            "INCOME TAX DEPARTMENT GOVT. OF INDIA",
            "aurht dean dean as / Permanent Account Number Card",
            "ABCPK1234F",
            "RAHUL KUMAR",
            "ara at ara / Mtr's Name",
            "SUNITA KUMARI",
            "ora at aka / Date of Birth",
            "14/08/1991",
        ];
        let f = read(&card);
        assert!(f.iter().all(|x| x.value != "SUNITA KUMARI" || x.field == "mother_name"), "{f:?}");
        assert_eq!(get(&f, "father_name"), None, "{f:?}");
        let mut title = card;
        title[3] = "Rahul Kumar";
        title[5] = "Sunita Kumari";
        let f = read(&title);
        assert!(f.iter().all(|x| x.value != "Sunita Kumari" || x.field == "mother_name"), "{f:?}");
        // The holder's label read: as before.
        let f = read(&NEW);
        assert_eq!(value(&f, "name"), Some("RAHUL KUMAR"));
    }

    /// Seed 20's blurred PAN, its number and labels unread, its header read: the holder's
    /// line misread with little confidence ("DIVYA RUMIART BHATT") is not given, and the
    /// line after it, the father's, is not taken for the holder's (it was). Must-fail:
    /// with the holder's line read clear, it is the holder's name as before; a bare
    /// "Name" label with no name line above it labels the holder's.
    #[test]
    fn a_name_label_under_a_name_is_no_holders_label_without_the_number() {
        let read = |t: &[&str]| parse_printed("in.pan", Side::Front, &lines(t));
        // The page's lines as seed 20's first reading gave them, with their boxes.
        let card = boxed(&[
            ("MOOUE TAX RAUNT GOVT. oF INDIA |", 47, 1200, 37, 129),
            ("Sel ea RN HS", 469, 743, 167, 224),
            ("nih BEKO oa", 332, 669, 216, 303),
            (".", 0, 1, 85, 101),
            ("| |", 0, 1198, 122, 164),
            ("; |", 0, 1199, 157, 196),
            ("| |", 0, 1199, 195, 250),
            ("| |", 0, 1198, 236, 278),
            ("| |", 0, 1199, 274, 327),
            ("| |", 0, 1198, 320, 364),
            ("| atte Sa", 0, 189, 426, 500),
            (". DIVYA RUMIART BHATT", 0, 494, 484, 524),
            ("| (ienaratt/ Fauna tigine", 0, 377, 526, 576),
            ("| WENKATESH BHATT", 0, 450, 581, 627),
            ("| dren A area Dit aN UA eS |", 0, 1199, 629, 700),
            ("Sina", 763, 877, 703, 731),
            ("| PWAG/ SE Pott", 0, 704, 694, 727),
            ("ee OR NUR ON SUercva", 418, 1124, 699, 757),
        ]);
        let mut card = card;
        // Its misread line ("RUMIART") read with little confidence.
        card[11].confidence = 0.3;
        let f = parse_printed("in.pan", Side::Front, &card);
        assert_eq!((value(&f, "name"), value(&f, "father_name")), (None, Some("WENKATESH BHATT")), "{f:?}");
        card[11].confidence = 0.9;
        let f = parse_printed("in.pan", Side::Front, &card);
        assert_eq!((value(&f, "name"), value(&f, "father_name")), (Some("DIVYA RUMIART BHATT"), Some("WENKATESH BHATT")), "{f:?}");
        let f = read(&["| atte Sa", "nam / Name", "| DIVYA KUMARI BHATT"]);
        assert_eq!(value(&f, "name"), Some("DIVYA KUMARI BHATT"), "{f:?}");
        // The mother's label read as a bare "Name" and the number unread: the name line
        // right above the label makes it a parent's, so the line under it is no
        // holder's name.
        let f = read(&["INCOME TAX DEPARTMENT GOVT. OF INDIA", "RAHUL KUMAR", "ara at ara / Mtr's Name", "SUNITA KUMARI", "ora at aka / Date of Birth", "14/08/1991"]);
        assert!(f.iter().all(|x| x.value != "SUNITA KUMARI" || x.field == "mother_name"), "{f:?}");
        assert_eq!(value(&f, "name"), Some("RAHUL KUMAR"), "{f:?}");
        // A number glare cut short, read as one capital word above the holder's label
        // (seed 18): the label stays the holder's.
        let f = read(&["INCOME TAX DEPARTMENT GOVT. OF INDIA", "Permanent Account Ni", "IXEPCO", "ama / Name", "ASHA CHAUHAN", "fat a ara / Father's Name", "ARJUN CHAUHAN", "23/12/1999"]);
        assert_eq!((value(&f, "name"), value(&f, "father_name")), (Some("ASHA CHAUHAN"), Some("ARJUN CHAUHAN")), "{f:?}");
    }

    /// Item: a company's card of the new design whose name wraps onto a second line
    /// under its label ("TATA CONSULTANCY" / "SERVICES LIMITED" above "Date of
    /// Incorporation/Formation"): the name is read whole, or not at all, never its first
    /// line alone, and the second line is no father's. Must-fail: before the rule the
    /// first line came back as the name.
    #[test]
    fn a_companys_name_wrapped_under_its_label_is_read_whole_or_not_at_all() {
        let read = |t: &[&str]| parse_printed("in.pan", Side::Front, &lines(t));
        let mut card = vec![
            "आयकर विभाग INCOME TAX DEPARTMENT",
            "भारत सरकार GOVT. OF INDIA",
            "स्थायी लेखा संख्या कार्ड Permanent Account Number Card",
            "AABCT1234C",
            "नाम / Name",
            "TATA CONSULTANCY",
            "SERVICES LIMITED",
            "faarr/aoa at art / Date of Incorporation/Formation",
            "01/04/1995",
        ];
        assert_fields(
            &read(&card),
            &[
                ("id", "AABCT1234C", FieldCheck::Passed),
                ("name", "TATA CONSULTANCY SERVICES LIMITED", FieldCheck::NotApplicable),
                ("incorporation_date", "01/04/1995", FieldCheck::Passed),
            ],
        );
        // The name on the label's line, its rest below.
        let mut same_line = card.clone();
        same_line[4] = "नाम / Name TATA CONSULTANCY";
        same_line[5] = "SERVICES LIMITED";
        same_line.remove(6);
        assert_eq!(value(&read(&same_line), "name"), Some("TATA CONSULTANCY SERVICES LIMITED"));
        // The date's label not read (the category letter tells the company): the date
        // line ends the name.
        let mut unlabelled_date = card.clone();
        unlabelled_date.remove(7);
        let f = read(&unlabelled_date);
        assert_eq!((value(&f, "name"), value(&f, "incorporation_date"), get(&f, "dob")), (Some("TATA CONSULTANCY SERVICES LIMITED"), Some("01/04/1995"), None), "{f:?}");
        // Two print styles: no one name.
        card[6] = "Services Limited";
        assert_eq!(get(&read(&card), "name"), None);
        // The second line misread (no plausible name): no name rather than a cut one.
        card[6] = "SERV1CES LlMITED";
        let f = read(&card);
        assert_eq!((get(&f, "name"), get(&f, "father_name")), (None, None), "{f:?}");
        // Three plausible lines before the date: no telling where the name ends.
        card[6] = "SERVICES LIMITED";
        card.insert(7, "MUMBAI BRANCH");
        card.insert(8, "ara");
        let f = read(&card);
        assert_eq!((get(&f, "name"), get(&f, "father_name")), (None, None), "{f:?}");
        // A person's card: the line after the name is the father's label, as before.
        let f = read(&NEW);
        assert_eq!((value(&f, "name"), value(&f, "father_name")), (Some("RAHUL KUMAR"), Some("RAMESH KUMAR")));
    }

    #[test]
    fn new_design_noisy() {
        // eng model: Devanagari as garbage; PAN with 8 for B and O for 0; labels
        // misspelt; "Fathers" without apostrophe; the date with O for 0.
        let l = lines(&[
            "~sme faa INCOME TAX DEPARTMENT",
            "~on Wat GOVT. OF INDIA",
            "~tera aa den Permanent Account Nurnber Card",
            "A8CPK1Z34F",
            "~aa / Name",
            "RAHUL KUMAR",
            "~fa Ht ara / Fathers Name",
            "RAMESH KUMAR",
            "~oa Ht art / Date of Brith",
            "14/O8/1991",
            "~wet / Signature",
        ]);
        let f = parse_printed("in.pan", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "ABCPK1234F", FieldCheck::Passed),
                ("name", "RAHUL KUMAR", FieldCheck::NotApplicable),
                ("father_name", "RAMESH KUMAR", FieldCheck::NotApplicable),
                ("dob", "14/08/1991", FieldCheck::Passed),
            ],
        );
        assert_eq!(best_type(&l), Some("in.pan"));
    }

    #[test]
    fn old_design() {
        let l = lines(&[
            "~aad fae",
            "INCOME TAX DEPARTMENT      GOVT. OF INDIA",
            "SUNITA DEVI",
            "MOHAN LAL SHARMA",
            "05/11/1978",
            "Permanent Account Number",
            "BNZPD4567K",
            "~Sunita",
            "Signature",
        ]);
        let f = parse_printed("in.pan", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "BNZPD4567K", FieldCheck::Passed),
                ("name", "SUNITA DEVI", FieldCheck::NotApplicable),
                ("father_name", "MOHAN LAL SHARMA", FieldCheck::NotApplicable),
                ("dob", "05/11/1978", FieldCheck::Passed),
            ],
        );
        assert_eq!(best_type(&l), Some("in.pan"));
    }

    #[test]
    fn bad_category_letter_fails() {
        let mut t = NEW;
        t[3] = "ABCXK1234F";
        let f = parse_printed("in.pan", Side::Front, &lines(&t));
        assert_eq!((value(&f, "id"), check(&f, "id")), (Some("ABCXK1234F"), Some(FieldCheck::Failed)));
        t[9] = "31/02/1990";
        let f = parse_printed("in.pan", Side::Front, &lines(&t));
        assert_eq!(value(&f, "dob"), None);
    }

    #[test]
    fn arbitrary_input_never_panics() {
        never_panics(&lines(&NEW), ALPHABET, 31, 80);
    }
}

/// Lines as Tesseract 5 (`eng`) read a generated PAN photo (card_eval): the Devanagari
/// label halves come out as Latin garbage glued to the English label.
#[cfg(test)]
mod tesseract_lines {
    use super::super::test_support::{assert_fields, lines};
    use super::super::{parse_printed, FieldCheck, Side};

    #[test]
    fn labels_behind_garbage_still_find_their_values() {
        let l = lines(&[
            "sree afer UR BAR",
            "INCOME TAX DEPARTMENT GOVT. OF INDIA",
            "qurht car der ws / Permanent Account Number Card",
            "LXQPY0148G",
            "am / Name",
            "( \\ VENKATESH KUMAR YADAV",
            "fat a 37H / Father's Name",
            "ARJUN KUMAR YADAV",
            "y,~N oF a arfta / Date of Birth",
            "04/12/1986",
            "beara / Signature",
        ]);
        let f = parse_printed("in.pan", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "LXQPY0148G", FieldCheck::Passed),
                ("name", "VENKATESH KUMAR YADAV", FieldCheck::NotApplicable),
                ("father_name", "ARJUN KUMAR YADAV", FieldCheck::NotApplicable),
                ("dob", "04/12/1986", FieldCheck::Passed),
            ],
        );
    }
}
