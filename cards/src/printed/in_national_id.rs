//! The generic Indian national identity card designed for this service: "REPUBLIC OF
//! INDIA", "NATIONAL IDENTITY CARD", then labelled lines "Name:", "Date of Birth:",
//! "Sex: M", "Nationality: INDIAN", "ID No: 2345 6789 0123", "Date of Expiry:".
//!
//! Assumptions:
//! - Each value follows its label on the same line, or on the next line.
//! - `id`: 12 digits in groups of four (or one group on the "ID No" line), Verhoeff
//!   checked as an Aadhaar number ([`super::find_aadhaar_number`]; the line labelled
//!   "ID No" preferred).
//! - `nationality` normalized to the ISO 3166 code: "INDIAN"/"INDIA"/"IND" (within one
//!   edit) → `IND`; anything else is no nationality (a misread, or the next column's label).
//! - `gender`: `M`/`F`/`T` (letters or words).
//! - Other designs' wordings: "Surname" + "Given Names" (→ `name`, given names first,
//!   only with both), "D.O.B", "Valid Till/Upto/Thru"; "Father's Name" is no name label.

use super::{edit_distance, field, find_aadhaar_number, fold_for_match, gender_value, without_words_left_of_label, Doc, FieldCheck, Found, Labels, PrintedField};

pub(crate) const LABELS: Labels = &[
    ("name", &["Name", "Full Name"]),
    // Another design's ICAO-style split name ("Surname: SHARMA", "Given Names: RAHUL
    // KUMAR"): read together, given names first.
    ("surname", &["Surname", "Last Name"]),
    ("given_names", &["Given Names", "Given Name", "First Name"]),
    // A stop, no field: "Father's Name: RAMESH SHARMA" is no `name` label.
    ("relative", &["Father's Name", "Father Name", "Husband's Name", "Mother's Name"]),
    ("dob", &["Date of Birth", "DOB", "D.O.B"]),
    ("gender", &["=Sex", "Gender"]),
    ("nationality", &["Nationality"]),
    ("id_label", &["ID No", "ID Number", "Identity Number"]),
    ("expiry_date", &["Date of Expiry", "Expiry Date", "Valid Until", "Valid Till", "Valid Upto", "Valid Thru"]),
    ("issue_date", &["Date of Issue", "Issue Date"]),
    ("header", &["Republic of India", "National Identity Card"]),
];

fn nationality(s: &str) -> Option<String> {
    let f = fold_for_match(s);
    let text: String = f.chars.iter().collect();
    let india = text.split(' ').any(|w| {
        let w: Vec<char> = w.chars().collect();
        ["indian", "india"].iter().any(|n| edit_distance(&w, &n.chars().collect::<Vec<_>>()) <= 1) || w == ['i', 'n', 'd']
    });
    // Any other reading is a misread (an Indian card's holder is Indian) or the next
    // column's label read into this one ("Nationality aarita fafa / Date of Expiry", the
    // Hindi "समाप्ति तिथि" read as Latin): no value here; the line below may hold it.
    india.then(|| "IND".to_string())
}

pub(crate) fn parse(doc: &Doc) -> Vec<PrintedField> {
    let mut out = Vec::new();
    if let Some((f, check)) = find_aadhaar_number(doc, Some("id_label")) {
        out.push(field("id", f, check));
    }
    let na = FieldCheck::NotApplicable;
    // Both halves or no name: a given name alone is partial.
    let split = || {
        let given = doc.labelled_name("given_names", 1)?;
        let surname = doc.labelled_name("surname", 1)?;
        let value = format!("{} {}", given.value, surname.value);
        Some(Found { value, conf: given.conf.min(surname.conf), lines: [given.lines, surname.lines].concat(), label_line: given.label_line })
    };
    // The portrait's edge read in front of a name under its label ("LE RAJESH NATH
    // MISHRA", "La Imran Naidu" on the independent card set's seed 4) is dropped.
    if let Some(n) = doc.labelled_name("name", 1).map(|n| without_words_left_of_label(doc, n, 2)).or_else(split) {
        out.push(field("name", n, na));
    }
    if let Some(d) = doc.labelled_date("dob", 1) {
        out.push(field("dob", d, FieldCheck::Passed));
    }
    if let Some(g) = doc.labelled("gender", 1, |s, _| gender_value(s, true).map(str::to_string)) {
        out.push(field("gender", g, na));
    }
    if let Some(n) = doc.labelled("nationality", 1, |s, _| nationality(s)) {
        out.push(field("nationality", n, na));
    }
    if let Some(d) = doc.labelled_date("expiry_date", 1) {
        out.push(field("expiry_date", d, FieldCheck::Passed));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;

    const CARD: [&str; 8] = [
        "REPUBLIC OF INDIA",
        "NATIONAL IDENTITY CARD",
        "Name: Rahul Kumar Sharma",
        "Date of Birth: 14/08/1991",
        "Sex: M",
        "Nationality: INDIAN",
        "ID No: 2341 2341 2346",
        "Date of Expiry: 13/08/2031",
    ];

    #[test]
    fn clean_card() {
        let l = lines(&CARD);
        let f = parse_printed("in.national_id", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "234123412346", FieldCheck::Passed),
                ("name", "Rahul Kumar Sharma", FieldCheck::NotApplicable),
                ("dob", "14/08/1991", FieldCheck::Passed),
                ("gender", "M", FieldCheck::NotApplicable),
                ("nationality", "IND", FieldCheck::NotApplicable),
                ("expiry_date", "13/08/2031", FieldCheck::Passed),
            ],
        );
        assert_eq!(get(&f, "id").map(|x| x.lines.clone()), Some(vec![6]));
        assert_eq!(best_type(&l), Some("in.national_id"));
    }

    /// The independent card set's design: two columns of labels over their values, the
    /// Hindi labels read as Latin, the number in one group under "ID No.". Must-fail: the
    /// next column's Hindi label read after "Nationality" ("aarita fafa") is no
    /// nationality (the line below gives it); the twelve digits under the label are the
    /// number; the Hindi name beside the printed one ("Le") is no part of the name.
    #[test]
    fn two_columns_of_labels_and_a_number_under_its_label() {
        let l = lines(&[
            "(3709) URd aa’ GOVERNMENT OF INDIA",
            "as zeta ugar us / National Identity Card",
            "=H / Name a",
            "Le SWATI RANI KULKARNI",
            "realy Sn oF fafa / Date of Birth fer / Sex",
            "Ey 08/07/1988 F",
            "ae wetaat / Nationality aarita fafa / Date of Expiry",
            "IND 03/03/2032",
            "Usa Gea / ID No.",
            "— 350763519397",
        ]);
        let f = parse_printed("in.national_id", Side::Front, &l);
        assert_eq!(value(&f, "nationality"), Some("IND"), "{f:?}");
        assert_eq!(value(&f, "id"), Some("350763519397"), "{f:?}");
        assert_eq!(check(&f, "id"), Some(FieldCheck::Passed));
        assert_eq!(value(&f, "name"), Some("SWATI RANI KULKARNI"), "{f:?}");
        // Twelve digits with no label beside or above them are no number.
        let f = parse_printed("in.national_id", Side::Front, &lines(&["National Identity Card", "Name: Swati Rani", "— 350763519397"]));
        assert_eq!(value(&f, "id"), None, "{f:?}");
        // Split by the reading where the card prints one group (the independent set's seed
        // 14, a noisy photo): joined under the label when the whole passes Verhoeff.
        let split = |number: &'static str| parse_printed("in.national_id", Side::Front, &lines(&["National Identity Card", "Uganda / ID-No.", number]));
        let f = split("_ 6026237771 99");
        assert_eq!(value(&f, "id"), Some("602623777199"), "{f:?}");
        assert_eq!(check(&f, "id"), Some(FieldCheck::Passed));
        // Not when the joined digits fail the check (one digit misread), nor a repaired
        // piece ("O" read for 0), nor with no label above.
        assert_eq!(value(&split("_ 6026237771 98"), "id"), None);
        assert_eq!(value(&split("_ 6O26237771 99"), "id"), None);
        let f = parse_printed("in.national_id", Side::Front, &lines(&["National Identity Card", "Name: Swati Rani", "_ 6026237771 99"]));
        assert_eq!(value(&f, "id"), None, "{f:?}");
        // A nationality that reads as no India is none.
        let f = parse_printed("in.national_id", Side::Front, &lines(&["National Identity Card", "Nationality: waitta fat"]));
        assert_eq!(value(&f, "nationality"), None, "{f:?}");
    }

    #[test]
    fn its_aadhaar_format_number_is_not_a_second_card() {
        // The number has the Aadhaar's format and passes Verhoeff; it counts for the
        // national identity card, whose phrases say more, not for an Aadhaar beside it.
        let l = lines(&CARD);
        let c = crate::printed::classify(&l);
        let aadhaar = c.iter().find(|(t, _)| *t == "in.aadhaar").map_or(0.0, |(_, s)| *s);
        assert!(aadhaar < 0.3, "{c:?}");
        // Without the card's own phrases the same number is an Aadhaar's.
        let bare = lines(&["2341 2341 2346"]);
        assert_eq!(best_type(&bare), Some("in.aadhaar"), "{:?}", crate::printed::classify(&bare));
    }

    #[test]
    fn a_number_both_types_print_is_no_evidence_against_either() {
        // A national identity card photographed at a third of its resolution: the header
        // unread, the labels and the number read. The number alone scores an Aadhaar card
        // 0.6 (enough to refuse the photo as another type); asked as a national identity
        // card, the shared format says nothing against it.
        let l = lines(&["~REPUBL OE IN", "Name: Rahul Kumar Sharma", "Date of Birth: 14/08/1991", "Sex: M", "2341 2341 2346"]);
        let score = |t: &str| crate::printed::classify(&l).iter().find(|(c, _)| *c == t).map_or(0.0, |(_, s)| *s);
        assert!(score("in.aadhaar") >= 0.5 && score("in.national_id") < 0.2, "{:?}", crate::printed::classify(&l));
        let other = crate::printed::best_other_type("in.national_id", &l);
        assert!(other.is_none_or(|(_, s)| s < 0.5), "{other:?}");
        // Asked as a PAN, the same photo is still an Aadhaar's, strongly.
        let other = crate::printed::best_other_type("in.pan", &l);
        assert!(other.is_some_and(|(t, s)| t == "in.aadhaar" && s >= 0.5), "{other:?}");
        // And an Aadhaar asked as a national identity card is refused on its phrases.
        let aadhaar = lines(&["Government of India", "Unique Identification Authority of India", "2341 2341 2346"]);
        let other = crate::printed::best_other_type("in.national_id", &aadhaar);
        assert!(other.is_some_and(|(t, s)| t == "in.aadhaar" && s >= 0.5), "{other:?}");
    }

    #[test]
    fn noisy_card() {
        // Misspelt labels, missing colons, values on the next line, "|" for "1" in the
        // number, a failing Verhoeff check digit is Failed.
        let l = lines(&[
            "REPUBL1C OF INDIA",
            "NATI0NAL IDENTlTY CARD",
            "Narne",
            "Priya Sharma",
            "Date of Birth 01.02.1990",
            "Sex | F",
            "Natlonality",
            "INDIAN",
            "ID No.: 234| 2341 2346",
            "Date of Expry:",
            "31-01-2030",
        ]);
        let f = parse_printed("in.national_id", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "234123412346", FieldCheck::Passed),
                ("name", "Priya Sharma", FieldCheck::NotApplicable),
                ("dob", "01/02/1990", FieldCheck::Passed),
                ("gender", "F", FieldCheck::NotApplicable),
                ("nationality", "IND", FieldCheck::NotApplicable),
                ("expiry_date", "31/01/2030", FieldCheck::Passed),
            ],
        );
        assert_eq!(best_type(&l), Some("in.national_id"));
        let mut t = CARD;
        t[6] = "ID No: 2341 2341 2347";
        let f = parse_printed("in.national_id", Side::Front, &lines(&t));
        assert_eq!((value(&f, "id"), check(&f, "id")), (Some("234123412347"), Some(FieldCheck::Failed)));
        t[3] = "Date of Birth: 31/02/1990";
        let f = parse_printed("in.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "dob"), None);
    }

    /// Another design of the card: ICAO-style split names, "D.O.B", "Gender", "Valid Till".
    #[test]
    fn other_wordings_of_the_labels() {
        let l = lines(&[
            "REPUBLIC OF INDIA",
            "NATIONAL IDENTITY CARD",
            "Surname: SHARMA",
            "Given Names: RAHUL KUMAR",
            "D.O.B: 14/08/1991",
            "Gender: Male",
            "Nationality: Indian",
            "2341 2341 2346",
            "Valid Till: 13/08/2031",
        ]);
        let f = parse_printed("in.national_id", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "234123412346", FieldCheck::Passed),
                ("name", "RAHUL KUMAR SHARMA", FieldCheck::NotApplicable),
                ("dob", "14/08/1991", FieldCheck::Passed),
                ("gender", "M", FieldCheck::NotApplicable),
                ("nationality", "IND", FieldCheck::NotApplicable),
                ("expiry_date", "13/08/2031", FieldCheck::Passed),
            ],
        );
        let mut t = CARD;
        t[7] = "Valid Upto: 13/08/2031";
        assert_eq!(value(&parse_printed("in.national_id", Side::Front, &lines(&t)), "expiry_date"), Some("13/08/2031"));
        // Must-fail: the father's name on its own line is no name; a given name without
        // its surname is no name (partial).
        let l = lines(&["NATIONAL IDENTITY CARD", "Name:", "RAHUL KUMAR SHARMA", "Father's Name: RAMESH SHARMA"]);
        assert_eq!(value(&parse_printed("in.national_id", Side::Front, &l), "name"), Some("RAHUL KUMAR SHARMA"));
        let l = lines(&["NATIONAL IDENTITY CARD", "Surname:", "Given Name: RAHUL KUMAR", "D.O.B: 14/08/1991"]);
        assert_eq!(value(&parse_printed("in.national_id", Side::Front, &l), "name"), None);
    }

    /// India issues no national identity card; this type is a plausible design (see the
    /// module doc), closest to the Multipurpose National Identity Card piloted by the
    /// Registrar General of India under the Ministry of Home Affairs (2007-2009). Its other
    /// layouts' wordings: the header shortened to "NATIONAL ID CARD" or printed in Hindi
    /// ("राष्ट्रीय पहचान पत्र"), and the back, read alone: the ICAO TD1 zone opening
    /// "IDIND" and "Issuing Authority: MINISTRY OF HOME AFFAIRS". Each is this card (before:
    /// the Hindi and short headers left the shared number to an Aadhaar card, the back was
    /// no type). Not fired: an Aadhaar, a passport and a PAN still classify as before.
    #[test]
    fn other_headers_and_the_back_classify_as_this_card() {
        // The number printed without its label (as `other_wordings_of_the_labels` reads it).
        let body = ["Name: Rahul Kumar Sharma", "Date of Birth: 14/08/1991", "Sex: M", "Nationality: INDIAN", "2341 2341 2346"];
        for header in [["REPUBLIC OF INDIA", "NATIONAL ID CARD"], ["भारत गणराज्य", "राष्ट्रीय पहचान पत्र"], ["~ART TUT", "NATIONAL ID CARD"]] {
            let l = lines(&[&header[..], &body[..]].concat());
            assert_eq!(best_type(&l), Some("in.national_id"), "{header:?}: {:?}", crate::printed::classify(&l));
        }
        let back = lines(&[
            "Place of Birth: NEW DELHI",
            "Date of Issue: 14/08/2021",
            "Issuing Authority: MINISTRY OF HOME AFFAIRS",
            "If found, please return to the nearest police station.",
            "IDIND234123412<346<<<<<<<<<<<<",
            "9108148M3108131IND<<<<<<<<<<<4",
            "SHARMA<<RAHUL<KUMAR<<<<<<<<<<<",
        ]);
        assert_eq!(best_type(&back), Some("in.national_id"), "{:?}", crate::printed::classify(&back));
        let c = crate::printed::classify(&back);
        assert!(c.first().is_some_and(|(_, s)| *s >= 0.5), "{c:?}");
        // Not fired.
        let aadhaar = lines(&["Government of India", "Rahul Kumar", "DOB: 14/08/1991", "MALE", "2341 2341 2346"]);
        assert_eq!(best_type(&aadhaar), Some("in.aadhaar"));
        let passport = lines(&["भारत गणराज्य REPUBLIC OF INDIA", "पासपोर्ट PASSPORT", "P<INDSHARMA<<RAHUL<KUMAR<<<<<<<<<<<<<<<<<<<<", "J8369854<4IND8505123M2501094<<<<<<<<<<<<<<02"]);
        assert_eq!(best_type(&passport), Some("in.passport"));
        let pan = lines(&["INCOME TAX DEPARTMENT", "GOVT. OF INDIA", "RAHUL KUMAR", "ABCPE1234F"]);
        assert_eq!(best_type(&pan), Some("in.pan"));
        // The voter card's "ELECTOR PHOTO IDENTITY CARD" / "निर्वाचक फोटो पहचान पत्र" and the
        // Aadhaar's "भारतीय विशिष्ट पहचान प्राधिकरण" are no national identity card's header.
        for other in ["ELECTOR PHOTO IDENTITY CARD", "निर्वाचक फोटो पहचान पत्र", "मतदाता फोटो पहचान पत्र", "भारतीय विशिष्ट पहचान प्राधिकरण", "IDENTITY CARD"] {
            let c = crate::printed::classify(&lines(&[other]));
            assert!(c.iter().all(|(t, _)| *t != "in.national_id"), "{other}: {c:?}");
        }
    }

    /// The lines and boxes (x from, to; y from, to) of the independent set's seed 4
    /// `in.national_id-tilt-002` front: the name line starts 243 px left of its label's
    /// column, the portrait's edge read as "LE" before the name.
    #[test]
    fn a_word_left_of_the_labels_column_is_not_part_of_the_name() {
        let card = |name_line: (&str, u32)| {
            boxed(&[
                ("aA zeta ugar ua / National Identity Card", 53, 1036, 94, 147),
                ("am / Name oe", 362, 1080, 191, 298),
                (name_line.0, name_line.1, 790, 248, 312),
                ("eee ora fafa / Date of Birth fer / Sex", 150, 824, 310, 350),
                ("L 25/03/1954 M", 159, 743, 344, 388),
            ])
        };
        let name = |line: (&str, u32)| value(&parse_printed("in.national_id", Side::Front, &card(line)), "name").map(str::to_string);
        assert_eq!(name(("LE RAJESH NATH MISHRA", 119)).as_deref(), Some("RAJESH NATH MISHRA"));
        assert_eq!(name(("La Imran Naidu", 119)).as_deref(), Some("Imran Naidu"));
        // Must-fail: at the label's column, a short first word is the name's.
        assert_eq!(name(("Om Prakash Verma", 365)).as_deref(), Some("Om Prakash Verma"));
    }

    #[test]
    fn arbitrary_input_never_panics() {
        never_panics(&lines(&CARD), ALPHABET, 61, 80);
    }
}
