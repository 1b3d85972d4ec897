//! India's voter ID (EPIC, Electors Photo Identity Card, Election Commission of India).
//!
//! Assumptions:
//! - The EPIC number is three letters and seven digits, one token or two ("ABC
//!   1234567"), found wherever it is; confusions repaired positionally (at most three,
//!   on a token with at least two letters and four digits in place). Check: the
//!   structure ([`super::epic_check`]).
//! - Older cards print a state-format number ("AP/12/123/123456", "UP/61/304/352050"):
//!   two capitals, then groups of 2-3, 3 and 6-7 digits, separated by "/" (spaces
//!   around a slash allowed). Read only as printed, no confusion repaired (a letter in
//!   a digit group, "AP/l2/…", gives nothing), only when no three-letter number is on
//!   the card, and given as printed without spaces; its lengths vary by state and no
//!   check digit is known, so its check is `NotApplicable`. The old Andhra Pradesh
//!   cards' "AP" and twelve digits with no slash ("AP231620123456") likewise, as a
//!   whole word only.
//! - Front labels, English or bilingual, value after the label on the same line or on
//!   the next: "Elector's Name" / "Name"; one of "Father's Name", "Husband's Name",
//!   "Mother's Name" (→ `father_name` and `relation` `father`/`husband`/`mother`, the
//!   first in reading order). A label naming two relations ("Father's/Husband's Name",
//!   "पिता/पति का नाम") gives `father_name` and no `relation`: the name may be either's;
//!   so does one naming none ("Relation's Name", "Relative's Name").
//!   "Sex" / "Gender" ("Male", "Female", "पुरुष", "M");
//!   "Date of Birth" (or "Date of Birth / Age") with `DD/MM/YYYY` or `DD-MM-YYYY`, else
//!   `age` from "Age as on 1.1.2008 : 25" (the number after the last colon) or a bare
//!   number after "Date of Birth / Age" on its line. A date after "as on" is the
//!   age's reference date ("Date of Birth / Age as on 1.1.2008 : 35"), never `dob`; a
//!   year of birth alone ("Year of Birth : 1975") gives nothing (no field for it).
//! - Back: "Address" and its value over up to four following lines (joined with ", "),
//!   ending before a line opening with a label, "Date", "Electoral Registration
//!   Officer", "Assembly Constituency" or "Part No". The sex and the date of birth (or
//!   age) by their labels as on the front: the PVC card (2015 on) and the e-EPIC print
//!   them on the back.

use super::{
    address_repaired, epic_check, field, gender_value, join_parts, repair_positional, tokens, undoubled, Doc, FieldCheck, Found, Labels,
    PrintedField, Side,
};

pub(crate) const LABELS: Labels = &[
    ("name", &["Elector's Name", "Electors Name", "Name", "निर्वाचक का नाम", "नाम"]),
    ("father", &["Father's Name", "Father Name", "पिता का नाम"]),
    ("husband", &["Husband's Name", "Husband Name", "पति का नाम"]),
    ("mother", &["Mother's Name", "Mother Name", "माता का नाम"]),
    // A label that names no one relation (some cards and print-outs: "Relation's Name",
    // "Relative's Name"): the relative's name, with no `relation`.
    ("relative", &["Relation's Name", "Relative's Name", "Relation Name", "Relative Name"]),
    ("gender", &["Sex", "Gender", "लिंग"]),
    ("dob", &["Date of Birth", "Date of Birth / Age", "DOB", "जन्म तिथि", "जन्म की तारीख"]),
    ("age", &["Age as on", "Age", "आयु"]),
    ("address", &["Address", "पता"]),
    ("header", &["Election Commission of India", "Identity Card", "भारत निर्वाचन आयोग", "पहचान पत्र"]),
    ("officer", &["Electoral Registration Officer", "Assembly Constituency", "=Part No", "=Date", "Facsimile Signature", "=Note"]),
];

/// The relation label keys ("relative": a label naming none of them).
const RELATIONS: [&str; 4] = ["father", "husband", "mother", "relative"];

/// The relation words that can open a label naming two relations ("Father's/Husband's
/// Name", "Father / Husband Name", "पिता/पति का नाम"), where the label's last words take
/// the hit and the first relation is left without one.
const RELATION_WORDS: [(&str, &[&str]); 3] =
    [("father", &["Father's", "Father", "पिता"]), ("husband", &["Husband's", "Husband", "पति"]), ("mother", &["Mother's", "Mother", "माता"])];

/// The relation a word of a voter card's relative's label names when it is one of
/// [`RELATION_WORDS`] exactly (a curly apostrophe read for the straight one, case aside:
/// "Mother's", "FATHER'S", "पति"); a word a letter off ("Mothar's") names none here.
pub fn relation_of_word(word: &str) -> Option<&'static str> {
    let word = word.replace('’', "'").to_lowercase();
    RELATION_WORDS.iter().find(|(_, words)| words.iter().any(|w| w.to_lowercase() == word)).map(|(k, _)| *k)
}

/// The first relation label in reading order: the key its value follows, and whether
/// it names one relation only. The label runs over the relation hits in a row on its
/// line ("Father's Name / Husband's Name") and the text before them back to the
/// previous other label; a relation word there of another key ("Father's/" before
/// "Husband's Name") makes it name two. And the line the label is on.
fn relation_label(doc: &Doc) -> Option<(&'static str, bool, usize)> {
    let i = (0..doc.len()).find(|&i| doc.hits(i).iter().any(|h| RELATIONS.contains(&h.key)))?;
    let hits = doc.hits(i);
    let first = hits.iter().position(|h| RELATIONS.contains(&h.key))?;
    let run = hits.get(first..)?.iter().take_while(|h| RELATIONS.contains(&h.key)).collect::<Vec<_>>();
    let last = run.last()?;
    let start = first.checked_sub(1).and_then(|p| hits.get(p)).map_or(0, |h| h.bend);
    let label_text = doc.text(i).get(start..last.bend).unwrap_or("");
    let mut keys: Vec<&str> = run.iter().map(|h| h.key).collect();
    keys.extend(RELATION_WORDS.iter().filter(|(_, words)| words.iter().any(|w| super::label_matches(label_text, w))).map(|(k, _)| *k));
    keys.sort_unstable();
    keys.dedup();
    Some((last.key, keys.len() == 1 && last.key != "relative", i))
}

/// An EPIC number's shape: three capitals, seven digits.
pub(crate) const EPIC_PATTERN: &str = "AAA9999999";

/// The EPIC number on the card, with its check.
pub(crate) fn find_epic(doc: &Doc) -> Option<(Found<String>, FieldCheck)> {
    for i in 0..doc.len() {
        let toks = tokens(doc.text(i));
        let mut cands: Vec<String> = toks.iter().map(|t| t.0.to_string()).collect();
        cands.extend(toks.windows(2).map(|w| format!("{}{}", w[0].0, w[1].0)));
        for read in cands {
            // One glyph read twice ("GXO01715266"): dropped, as one repair more.
            let (tok, dropped) = match undoubled(&read, EPIC_PATTERN) {
                Some(one) => (one, 1),
                None => (read, 0),
            };
            let Some((id, repairs)) = repair_positional(&tok, EPIC_PATTERN) else { continue };
            let repairs = repairs + dropped;
            let chars: Vec<char> = tok.chars().collect();
            let letters = chars.iter().take(3).filter(|c| c.is_alphabetic()).count();
            let digits = chars.iter().skip(3).filter(|c| c.is_ascii_digit()).count();
            // One capital read as a capital where the other two are zeros: the O's of an
            // "OOD…" number ("00D7328385", the independent set's seed 30, a JPEG-35
            // card), its seven digits read as digits. A zero read for any other letter,
            // or a digit short, does not count so.
            let zeros_for_os = letters == 1 && chars.iter().take(3).all(|c| c.is_alphabetic() || *c == '0') && digits == 7;
            if repairs <= 3 && (letters >= 2 || zeros_for_os) && digits >= 4 {
                let check = epic_check(&id);
                let conf = doc.conf(&[i]) * (1.0 - 0.1 * repairs as f32);
                return Some((Found { value: id, lines: vec![i], conf, label_line: None }, check));
            }
        }
    }
    None
}

/// An older state-format number ("AP/12/123/123456", see the module doc), the first
/// found, exactly as printed but for spaces around its slashes.
fn find_old_epic(doc: &Doc) -> Option<Found<String>> {
    (0..doc.len()).find_map(|i| {
        let cs: Vec<char> = doc.text(i).chars().collect();
        (0..cs.len())
            .find_map(|p| old_epic_at(&cs, p))
            .or_else(|| doc.text(i).split_whitespace().find(|w| is_unslashed_old_epic(w)).map(str::to_string))
            .map(|value| Found { value, lines: vec![i], conf: doc.conf(&[i]), label_line: None })
    })
}

/// The old Andhra Pradesh (and Telangana) cards print their number as "AP" and twelve
/// digits, fourteen characters with no slashes (the Election Commission's letters on
/// renumbering them, Namasthe Telangana, 27 Nov 2023): a whole word of two capitals
/// and exactly twelve digits, read as printed (nothing repaired, nothing glued to it).
fn is_unslashed_old_epic(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() == 14 && b.iter().take(2).all(u8::is_ascii_uppercase) && b.iter().skip(2).all(u8::is_ascii_digit)
}

/// The state-format number starting at `p` in `cs`, if one does: two capitals not
/// inside a word, then digit groups of the lengths in `GROUPS`, each after a "/", and
/// nothing letter- or digit-like, nor another "/", right after the last.
fn old_epic_at(cs: &[char], p: usize) -> Option<String> {
    const GROUPS: [(usize, usize); 3] = [(2, 3), (3, 3), (6, 7)];
    let letter = |q: usize| cs.get(q).is_some_and(char::is_ascii_uppercase);
    if (p > 0 && cs.get(p - 1).is_some_and(|c| c.is_alphanumeric())) || !letter(p) || !letter(p + 1) {
        return None;
    }
    let mut out: String = cs.get(p..p + 2)?.iter().collect();
    let mut q = p + 2;
    let skip_spaces = |q: &mut usize| {
        while cs.get(*q) == Some(&' ') {
            *q += 1;
        }
    };
    for (min, max) in GROUPS {
        skip_spaces(&mut q);
        if cs.get(q) != Some(&'/') {
            return None;
        }
        q += 1;
        skip_spaces(&mut q);
        let start = q;
        while cs.get(q).is_some_and(char::is_ascii_digit) {
            q += 1;
        }
        if !(min..=max).contains(&(q - start)) {
            return None;
        }
        out.push('/');
        out.extend(cs.get(start..q)?);
    }
    // A letter, digit or "|" glued to the last group is a misread digit or a longer
    // number; a further "/" another format.
    let mut after = q;
    skip_spaces(&mut after);
    if cs.get(q).is_some_and(|&c| c.is_alphanumeric() || c == '|') || cs.get(after) == Some(&'/') {
        return None;
    }
    Some(out)
}

fn age_value(s: &str) -> Option<String> {
    let after = s.rsplit(':').next().unwrap_or(s);
    let (t, _, _) = tokens(after).pop()?;
    let n: u32 = t.parse().ok().filter(|_| t.len() <= 3)?;
    (1..=150).contains(&n).then(|| n.to_string())
}

/// Whether `s` holds an age's qualifying date: "as on" and a digit ("Age as on 1.1.2008
/// : 35", the old cards' age line). That date is the roll's reference date, no birth
/// date.
fn as_on_date(s: &str) -> bool {
    let folded: String = super::fold_for_match(s).chars.iter().collect();
    folded.match_indices("as on ").any(|(p, m)| (p == 0 || folded.get(..p).is_some_and(|b| b.ends_with(' '))) && folded.get(p + m.len()..).is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())))
}

/// "Date of Birth / Age : 35" (the holder's birth date unknown): the longer label takes
/// in "Age", so no age label is left. Only a bare number on the label's own line, and
/// only when the label read says "Age": "Date of Birth : 35" or a date ("14/08/91") is
/// no age.
fn age_under_dob_label(doc: &Doc) -> Option<Found<String>> {
    let bare = |s: &str| {
        let t = s.trim_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '-' | '.' | '|'));
        let n: u32 = t.parse().ok().filter(|_| (1..=3).contains(&t.len()) && t.chars().all(|c| c.is_ascii_digit()))?;
        (1..=150).contains(&n).then(|| n.to_string())
    };
    let says_age = |i: usize| {
        doc.hits(i).iter().any(|h| h.key == "dob" && super::fold_for_match(doc.text(i).get(h.bstart..h.bend).unwrap_or("")).chars.ends_with(&['a', 'g', 'e']))
    };
    // "Date of Birth / Age as on 1.1.2008 : 35": the number after the qualifying date.
    let qualified = |s: &str| if as_on_date(s) { s.rsplit_once(':').and_then(|(_, n)| bare(n)) } else { bare(s) };
    doc.labelled("dob", 0, |s, _| qualified(s)).filter(|f| f.label_line.is_some_and(says_age))
}

/// The word read right before label hit `hit` on line `line` ("nand's" of "nand's Name"),
/// empty where the label starts its line.
fn word_before_label<'a>(doc: &'a Doc, line: usize, hit: &super::Hit) -> &'a str {
    let before = doc.text(line).get(..hit.bstart).unwrap_or("").trim_end();
    before.rsplit(char::is_whitespace).next().unwrap_or("")
}

/// Whether the word before a "Name" label is the holder's "Elector's" (or what is left
/// of it: "lector's").
fn electors(word: &str) -> bool {
    word.to_lowercase().contains("lector")
}

/// Whether the word before a "Name" label is a possessive of three letters or more other
/// than "Elector's" ("her's" of "Father's", "nand's" of "Husband's"): a relative's label.
fn relatives_possessive(word: &str) -> bool {
    !electors(word) && word.chars().count() >= 3 && ["'s", "’s", "s'"].iter().any(|p| word.ends_with(p))
}

/// Whether the word before a "Name" label is what the holder's label reads there: the
/// slash of "नाम / Name" (or a bar it was read as), or nothing (the label starts its
/// line).
fn holders_separator(word: &str) -> bool {
    matches!(word, "" | "/" | "|" | "l" | "I" | "1")
}

/// Whether the line right above line `label` (with no label on it) is a name in
/// capitals: the holder's, whose own label glare or blur took ("J] PATEL |" above "aa ;
/// Name: MOHAMMED PATEL", the independent set's seed 28: "Father's" washed out of the
/// relative's label). The card prints the holder's name first, so a "Name" label under
/// it is a relative's, when the word before "Name" is no part of the holder's label
/// (neither its slash nor "Elector's").
/// So is a line that ends with two words or more of a name as the card prints names in
/// title case ("aa / Nai h Nath Thakur" above "aaelt a1 ; Name: Ramesh Thakur", seed 26,
/// overexposed: the holder's label and first name washed to "aa / Nai h").
fn name_line_right_above(doc: &Doc, label: usize) -> bool {
    let Some(above) = label.checked_sub(1) else { return false };
    let title_case = |w: &&str| {
        let mut cs = w.chars();
        cs.next().is_some_and(|c| c.is_uppercase()) && w.chars().count() >= 2 && cs.all(|c| c.is_lowercase())
    };
    let title_case_tail = doc.text(above).split_whitespace().rev().take_while(title_case).count() >= 2;
    doc.hits(above).is_empty() && (super::latin_name(doc.text(above), 1.0).is_some_and(|v| !v.chars().any(char::is_lowercase)) || title_case_tail)
}

pub(crate) fn parse(doc: &Doc, side: Side) -> Vec<PrintedField> {
    let mut out = Vec::new();
    if let Some((f, check)) = find_epic(doc) {
        out.push(field("id", f, check));
    } else if let Some(f) = find_old_epic(doc) {
        out.push(field("id", f, FieldCheck::NotApplicable));
    }
    let latin = |s: &str, _| super::latin_name(s, 1.0);
    // The card prints a name on its label's line; the line below is taken only when the
    // label's line holds nothing after the label. When it holds words that are no name
    // ("mran Prasad Choudhary", a blurred "Imran" that lost its capital), the line below
    // is the next field ("See Female" for "Sex : Female", evaluation seed 101), not it.
    let labelled_name = |key: &str| {
        doc.labelled(key, 1, latin).filter(|f| match (f.label_line, f.lines.first()) {
            (Some(label), Some(&line)) if line != label => {
                let after = doc.hits(label).iter().position(|h| h.key == key).map_or("", |h| doc.segment(label, h));
                !after.split_whitespace().any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3)
            }
            _ => true,
        })
    };
    match side {
        Side::Front => {
            // "her's Name : Mahesh Sharma" (glare took "Fat" of "Father's"): a "Name"
            // label after a possessive word is a relation's, its relation word lost; the
            // holder's name is not given from it (the holder's own label was washed out).
            // A lone "s" before "Name" ("s Name: Manoj Iyer", seed 18's glare: the
            // possessive's end of "Father's" or "Elector's", the rest washed out) is
            // either label: it is a relation's when the card shows no relation label
            // elsewhere (its own relation word is what glare took), the holder's when
            // it does.
            let relation_elsewhere = (0..doc.len()).any(|i| doc.hits(i).iter().any(|h| RELATIONS.contains(&h.key)));
            let relations_label = |line: usize| {
                doc.hits(line).iter().filter(|h| h.key == "name").all(|h| {
                    let word = word_before_label(doc, line, h);
                    // Or a lone letter the possessive's end was misread as ("g Name:
                    // ABHISHEK CHATTERJEE", seed 22's glare, the father's name given as
                    // the holder's).
                    let lone_letter = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
                    let possessive_end = lone_letter || ["s", "'s", "’s", "s'"].contains(&word.to_lowercase().as_str());
                    relatives_possessive(word) || (possessive_end && !relation_elsewhere)
                        || (!electors(word) && !holders_separator(word) && name_line_right_above(doc, line))
                })
            };
            if let Some(n) = labelled_name("name").filter(|f| !f.label_line.is_some_and(relations_label)) {
                out.push(field("name", n, FieldCheck::NotApplicable));
            }
            let relation = relation_label(doc);
            if relation.is_none() {
                if let Some(f) = name_under_lost_relation_word(doc) {
                    out.push(field("father_name", f, FieldCheck::NotApplicable));
                }
            }
            if let Some((k, one, label)) = relation {
                // The relation is what its label says, read or not the name after it: a
                // blurred card's second reading that misread the mother's name ("FATIMA
                // Y¥4DAV") still read "Mother's Name", and so confirms the relation the
                // first reading gave (the independent set's seed 35).
                let name = labelled_name(k);
                let rel = match &name {
                    Some(f) => Found { value: k.to_string(), ..f.clone() },
                    None => Found { value: k.to_string(), lines: vec![label], conf: doc.conf(&[label]), label_line: Some(label) },
                };
                if let Some(f) = name {
                    out.push(field("father_name", f, FieldCheck::NotApplicable));
                }
                if one {
                    out.push(field("relation", rel, FieldCheck::NotApplicable));
                }
            }
        }
        Side::Back => {
            // An address ends with its state (`super::ends_with_indian_state`), or with the
            // PIN code printed on the line after it: a line after that is another label's
            // ("Assembly Constituency" misread "y Sly Constituency"), not the address's.
            let pin_code = |t: &str| t.trim().len() == 6 && t.trim().bytes().all(|b| b.is_ascii_digit());
            let after_state = |j: usize| j.checked_sub(1).is_some_and(|i| super::ends_with_indian_state(doc.text(i))) && !pin_code(doc.text(j));
            let stop = |j: usize| doc.has(j, "officer") || doc.has(j, "header") || after_state(j);
            if let Some(block) = doc.block("address", 4, stop, |_| false) {
                let (address, repaired) = address_repaired(&join_parts(&block.value));
                // Its state read without the comma before it: a comma lost, no address
                // as printed (`state_without_its_comma`); nor one with marks of print
                // left unread in it (`marks_of_unread_print`).
                if !address.is_empty() && !super::state_without_its_comma(&address) && !super::marks_of_unread_print(&address) {
                    let mut f = field("address", block.with(address), FieldCheck::NotApplicable);
                    f.confidence *= 1.0 - 0.1 * repaired as f32;
                    out.push(f);
                }
            }
        }
    }
    // The PVC card (2015 on) and the e-EPIC print these on the back, above the address.
    // Read by their labels on either side; the back's "Part No. & Name" and "Assembly
    // Constituency No. & Name" keep the names to the front.
    if let Some(g) = doc.labelled("gender", 1, |s, _| gender_value(s, true).map(str::to_string)).or_else(|| gender_after_slash(doc)) {
        out.push(field("gender", g, FieldCheck::NotApplicable));
    }
    // "Date of Birth / Age as on 1.1.2008 : 35": the date is the age's reference, no
    // birth date.
    let birth_date = |s: &str, col: Option<usize>| match col {
        _ if as_on_date(s) => None,
        None => super::extract_date(s),
        Some(n) => super::date_slots(s).into_iter().nth(n).flatten(),
    };
    if let Some(d) = doc.labelled("dob", 1, birth_date) {
        out.push(field("dob", d, FieldCheck::Passed));
    } else if let Some(a) = doc.labelled("age", 1, |s, _| age_value(s)).or_else(|| age_under_dob_label(doc)) {
        out.push(field("age", a, FieldCheck::NotApplicable));
    } else if let Some(d) = (side == Side::Front).then(|| lone_front_date(doc)).flatten() {
        out.push(field("dob", d, FieldCheck::Passed));
    }
    out
}

/// The relative's name under a "Name" label whose relation word was lost (glare took
/// "Father's" or "Husband's"), where no relation label was read anywhere: the label
/// after a possessive of three letters or more that is not "Elector's" ("nand's Name :
/// Ajay Patel", the independent set's seed 32), or under the holder's name line
/// ([`name_line_right_above`]: "aa ; Name: MOHAMMED PATEL" under "J] PATEL |", seed
/// 28), or the second "Name" label of the front read bare, the first being the holder's
/// ("Name : POOJA MENON" under "ama / Name : BALAJI MENON", seed 25): the card prints the
/// holder's name first and the relative's right under it. A lone letter or "s" before
/// "Name" (either label's end) says nothing here. The value on the label's own line
/// only; no `relation` (the word that said which is lost).
fn name_under_lost_relation_word(doc: &Doc) -> Option<Found<String>> {
    let name_lines: Vec<usize> = (0..doc.len()).filter(|&i| doc.has(i, "name")).collect();
    name_lines.iter().enumerate().find_map(|(n, &i)| {
        let (h, hit) = doc.hits(i).iter().enumerate().find(|(_, h)| h.key == "name")?;
        let word = word_before_label(doc, i, hit);
        // The second label only as a bare "Name" (its relation word gone whole): one
        // still holding a misread word there ("Pathe Name: [VER AN MENON", a blurred
        // card's second reading) is left to the relation's label, which a reading that
        // read it gives.
        let relatives = relatives_possessive(word) || (!electors(word) && ((!holders_separator(word) && name_line_right_above(doc, i)) || (n == 1 && holders_separator(word))));
        if !relatives {
            return None;
        }
        let value = super::latin_name(doc.segment(i, h), 1.0)?;
        Some(Found { value, lines: vec![i], conf: doc.conf(&[i]), label_line: Some(i) })
    })
}

/// The sex as the bilingual card prints it, "पुरुष / Male", read after its slash where
/// its label could not be taken for one ("ider: yes / Male", "afeet / Female": glare
/// took the label or misread the Hindi; the independent set's seeds 31 and 32): the
/// English word right after a slash starts where the card printed it, so it is whole at
/// its start, and a word cut at its end still says which when it holds three letters or
/// more ("Fema!" of "Female", seed 38: only "Female" starts so). On a line holding no
/// other label; `M` or `F`.
fn gender_after_slash(doc: &Doc) -> Option<Found<String>> {
    (0..doc.len()).filter(|&i| doc.hits(i).iter().all(|h| h.key == "gender")).find_map(|i| {
        let words: Vec<&str> = doc.text(i).split_whitespace().collect();
        // Each word after a slash: a word "/", one ending with it ("yes/"), or its own
        // leading slash ("/Male").
        let after_slash = words.iter().enumerate().filter_map(|(k, w)| match w.strip_prefix('/') {
            Some(rest) => Some(rest),
            None => (k > 0 && words[k - 1].ends_with('/')).then_some(*w),
        });
        let g = after_slash.into_iter().find_map(|after| {
            let letters: String = after.chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase();
            let cut_from = |word: &str| letters.chars().count() >= 3 && word.starts_with(letters.as_str());
            [("female", "F"), ("male", "M")].into_iter().find(|(word, _)| cut_from(word)).map(|(_, g)| g)
        })?;
        Some(Found { value: g.to_string(), lines: vec![i], conf: doc.conf(&[i]), label_line: None })
    })
}

/// The one date on a voter card's front read with no label left on its line (glare
/// washed "Date of Birth" out: "22/10/1995" alone, the independent set's seed 37; "or
/// fef 18/06/1950", its Hindi label misread, seed 26): the front prints no other date
/// in full (an age's reference date is written "1.1.2008", with stops), so it is the
/// date of birth. Only a date written with slashes or hyphens and four-digit year as
/// printed, on a line holding no label and no "as on", where it is the only such date
/// on the side.
fn lone_front_date(doc: &Doc) -> Option<Found<String>> {
    let printed_full = |t: &str| {
        let cs: Vec<char> = t.chars().collect();
        cs.windows(10).any(|w| {
            let sep = w[2];
            matches!(sep, '/' | '-') && w[5] == sep && [0, 1, 3, 4, 6, 7, 8, 9].iter().all(|&k| w[k].is_ascii_digit())
        })
    };
    let dated: Vec<usize> = (0..doc.len()).filter(|&i| printed_full(doc.text(i))).collect();
    let [i] = dated.as_slice() else { return None };
    let text = doc.text(*i);
    if !doc.hits(*i).is_empty() || as_on_date(text) || super::extract_dates(text).len() != 1 {
        return None;
    }
    let value = super::extract_date(text)?;
    Some(Found { value, lines: vec![*i], conf: doc.conf(&[*i]), label_line: None })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;

    const FRONT: [&str; 8] = [
        "ELECTION COMMISSION OF INDIA",
        "IDENTITY CARD",
        "ABC1234567",
        "Elector's Name : Rahul Kumar",
        "Father's Name : Ramesh Kumar",
        "Sex : Male",
        "Date of Birth : 14/08/1991",
        "~ae",
    ];

    #[test]
    fn front_clean() {
        let l = lines(&FRONT);
        let f = parse_printed("in.voter", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "ABC1234567", FieldCheck::Passed),
                ("name", "Rahul Kumar", FieldCheck::NotApplicable),
                ("father_name", "Ramesh Kumar", FieldCheck::NotApplicable),
                ("relation", "father", FieldCheck::NotApplicable),
                ("gender", "M", FieldCheck::NotApplicable),
                ("dob", "14/08/1991", FieldCheck::Passed),
            ],
        );
        assert_eq!(best_type(&l), Some("in.voter"));
    }

    /// The independent card set's seed 21: a clean card's "JIU9205759" read
    /// "JI1U9205759", one in perspective's "GXO1715266" read "GXO01715266" (one glyph
    /// read as its letter and its digit). Must-fail: an eleventh character that is no
    /// twin of its neighbour ("GX001715266": two zeros may both be printed) gives no
    /// number, nor does a token with two such pairs.
    #[test]
    fn a_glyph_of_the_number_read_twice_is_read_once() {
        let mut read = FRONT;
        let at = read.iter().position(|l| *l == "ABC1234567").unwrap_or(0);
        for (misread, number) in [("JI1U9205759", Some("JIU9205759")), ("GXO01715266", Some("GXO1715266")), ("GXOO1715266", Some("GXO1715266")), ("GX001715266", None), ("GXO017S5266", None)] {
            read[at] = misread;
            let f = parse_printed("in.voter", Side::Front, &lines(&read));
            assert_eq!(get(&f, "id").map(|x| x.value.as_str()), number, "{misread}");
        }
    }

    /// A number whose first two letters are O's read as zeros (the independent set's
    /// seed 30, a JPEG-35 card: "00D7328385"). Must-fail: another digit in a letter's
    /// place, a digit short, no letter read at all.
    #[test]
    fn an_epic_number_whose_os_were_read_as_zeros() {
        let mut read = FRONT;
        let at = read.iter().position(|l| *l == "ABC1234567").unwrap_or(0);
        for (misread, number) in [("00D7328385", Some("OOD7328385")), ("0D07328385", Some("ODO7328385")), ("01D7328385", None), ("00D732838S", None), ("0007328385", None)] {
            read[at] = misread;
            let f = parse_printed("in.voter", Side::Front, &lines(&read));
            assert_eq!(get(&f, "id").map(|x| x.value.as_str()), number, "{misread}");
        }
    }

    /// A tilted capture of the evaluation: the number's T read as `™`. Must-fail: the
    /// sign is not taken for any other letter.
    #[test]
    fn a_t_read_as_a_trademark_sign_is_a_t() {
        let mut read = FRONT;
        let at = read.iter().position(|l| *l == "ABC1234567").unwrap_or(0);
        read[at] = "™NQ3554262";
        let f = parse_printed("in.voter", Side::Front, &lines(&read));
        assert_eq!(get(&f, "id").map(|x| x.value.as_str()), Some("TNQ3554262"));
        read[at] = "™Q3554262";
        assert_eq!(get(&parse_printed("in.voter", Side::Front, &lines(&read)), "id"), None);
    }

    /// A blurred card (evaluation seed 101, `in.voter-blur-1`, deblurred): the father's
    /// name lost its first capital and is no name; the line below is the sex, misread,
    /// and is not taken for the name. Values on the line below an empty label still are.
    #[test]
    fn no_name_from_the_next_line_when_the_labels_line_held_words() {
        let mut read = FRONT;
        read[4] = "Fathers Nome | mran Prasad Choudhary";
        read[5] = "See Female";
        let f = parse_printed("in.voter", Side::Front, &lines(&read));
        assert_eq!(get(&f, "father_name"), None, "{f:?}");
        assert_eq!(get(&f, "name").map(|x| x.value.as_str()), Some("Rahul Kumar"));
        read[4] = "Father's Name :";
        read[5] = "Ramesh Kumar";
        let f = parse_printed("in.voter", Side::Front, &lines(&read));
        assert_eq!(get(&f, "father_name").map(|x| x.value.as_str()), Some("Ramesh Kumar"), "{f:?}");
    }

    /// Older cards print a state-format number ("AP/12/123/123456"): two state letters,
    /// then slash-separated groups of digits. Read only as printed, with no check.
    /// Must-fail: before the rule, no `id`; a digit group with a letter in it ("l2"), a
    /// group of the wrong length, lowercase state letters or a fifth group give none;
    /// and a new-format number on the same card still wins.
    #[test]
    fn an_older_state_format_number() {
        let mut card = FRONT;
        let at = card.iter().position(|l| *l == "ABC1234567").unwrap_or(0);
        for (printed, id) in [
            ("AP/12/123/123456", "AP/12/123/123456"),
            ("UP/61/304/352050", "UP/61/304/352050"),
            ("GJ/05/034/123456", "GJ/05/034/123456"),
            ("WB/01/001/012345", "WB/01/001/012345"),
            ("MH/123/456/1234567", "MH/123/456/1234567"),
            ("AP / 12 / 123 / 123456", "AP/12/123/123456"),
            ("Epic No. : AP/12/123/123456", "AP/12/123/123456"),
        ] {
            card[at] = printed;
            let f = parse_printed("in.voter", Side::Front, &lines(&card));
            assert_eq!((value(&f, "id"), check(&f, "id")), (Some(id), Some(FieldCheck::NotApplicable)), "{printed}: {f:?}");
        }
        for unclean in ["AP/l2/123/123456", "AP/12/I23/123456", "AP/12/123/12345O", "AP/1/123/123456", "AP/12/12/123456", "AP/12/123/12345", "AP/12/123/12345678", "ap/12/123/123456", "XAP/12/123/123456", "AP/12/123/123456/1", "AP/12/123/123456|", "A/12/123/123456"] {
            card[at] = unclean;
            let f = parse_printed("in.voter", Side::Front, &lines(&card));
            assert_eq!(get(&f, "id"), None, "{unclean}: {f:?}");
        }
        card[at] = "AP/12/123/123456";
        card[1] = "IDENTITY CARD ABC1234567";
        let f = parse_printed("in.voter", Side::Front, &lines(&card));
        assert_eq!((value(&f, "id"), check(&f, "id")), (Some("ABC1234567"), Some(FieldCheck::Passed)));
    }

    /// Some cards print one label for two relations ("Father's/Husband's Name", "पिता/पति
    /// का नाम"): the name may be either's. Must-fail: before the rule, `relation` said
    /// `husband` for all of these (the label's last word won); "Father's Name /
    /// Husband's Name" gave no name. A plain "Husband's Name", "Father's Name" or
    /// "Mother's Name" still gives its relation.
    #[test]
    fn a_label_naming_two_relations_gives_no_relation() {
        let mut card = FRONT;
        for label in [
            "Father's/Husband's Name : Ramesh Kumar",
            "Father / Husband Name : Ramesh Kumar",
            "Father's or Husband's Name : Ramesh Kumar",
            "पिता/पति का नाम : Ramesh Kumar",
            "पिता/पति का नाम / Father's/Husband's Name : Ramesh Kumar",
            "Husband's/Father's Name : Ramesh Kumar",
            "Father's Name / Husband's Name : Ramesh Kumar",
        ] {
            card[4] = label;
            let f = parse_printed("in.voter", Side::Front, &lines(&card));
            assert_eq!((value(&f, "father_name"), value(&f, "relation")), (Some("Ramesh Kumar"), None), "{label}: {f:?}");
        }
        // The value on the next line.
        card[4] = "Father's / Husband's Name :";
        card[5] = "Ramesh Kumar";
        let f = parse_printed("in.voter", Side::Front, &lines(&card));
        assert_eq!((value(&f, "father_name"), value(&f, "relation")), (Some("Ramesh Kumar"), None), "{f:?}");
        card[5] = FRONT[5];
        // One relation each; a label before it on its line is no part of it.
        for (label, relation) in [
            ("Husband's Name : Ramesh Kumar", "husband"),
            ("पति का नाम : Ramesh Kumar", "husband"),
            ("Father's Name : Ramesh Kumar", "father"),
            ("Mother's Name : Ramesh Kumar", "mother"),
            ("Age : 35   Husband's Name : Ramesh Kumar", "husband"),
        ] {
            card[4] = label;
            let f = parse_printed("in.voter", Side::Front, &lines(&card));
            assert_eq!((value(&f, "father_name"), value(&f, "relation")), (Some("Ramesh Kumar"), Some(relation)), "{label}: {f:?}");
        }
        // A name read as no name still leaves the relation its label says (seed 35's
        // blurred card, its second reading); a label naming two still gives none.
        card[4] = "am an am / Mother's Name : FATIMA Y¥4DAV";
        let f = parse_printed("in.voter", Side::Front, &lines(&card));
        assert_eq!((value(&f, "father_name"), value(&f, "relation")), (None, Some("mother")), "{f:?}");
        card[4] = "Father's/Husband's Name : FATIMA Y¥4DAV";
        let f = parse_printed("in.voter", Side::Front, &lines(&card));
        assert_eq!((value(&f, "father_name"), value(&f, "relation")), (None, None), "{f:?}");
    }

    /// Item: old state-format numbers as the brief and real old cards print them
    /// ("AP/09/054/123456", "UP/44/222/0123456"; the old Andhra Pradesh / Telangana
    /// cards print "AP" and twelve digits, fourteen characters in all, per the Election
    /// Commission's letter reported by Namasthe Telangana, 27 Nov 2023): read as printed,
    /// with no check (`NotApplicable`: the merge gives it `UNSURE`), and never `SURE`.
    /// Must-fail: before the rule the fourteen-character form gave no `id`; two capitals
    /// glued to other text, eleven or thirteen digits, a digit misread as a letter
    /// ("AP23162O123456") or a space inside give none; a new-format number still wins.
    #[test]
    fn older_state_numbers_as_real_old_cards_print_them() {
        let mut card = FRONT;
        let at = card.iter().position(|l| *l == "ABC1234567").unwrap_or(0);
        for (printed, id) in [
            ("AP/09/054/123456", "AP/09/054/123456"),
            ("UP/44/222/0123456", "UP/44/222/0123456"),
            ("AP231620123456", "AP231620123456"),
            ("Epic No. AP231620123456", "AP231620123456"),
            ("Identity Card No: AP231620123456", "AP231620123456"),
        ] {
            card[at] = printed;
            let f = parse_printed("in.voter", Side::Front, &lines(&card));
            assert_eq!((value(&f, "id"), check(&f, "id")), (Some(id), Some(FieldCheck::NotApplicable)), "{printed}: {f:?}");
            let id = get(&f, "id").map(PrintedField::card_field);
            assert!(id.is_some_and(|c| c.confidence_verdict.is_none()), "{printed}: never SURE by itself");
        }
        for unclean in ["AP23162012345", "AP2316201234567", "XAP231620123456", "AP23162O123456", "ap231620123456", "AP231620123456X", "AP 231620123456"] {
            card[at] = unclean;
            let f = parse_printed("in.voter", Side::Front, &lines(&card));
            assert_eq!(get(&f, "id"), None, "{unclean}: {f:?}");
        }
        card[at] = "AP231620123456";
        card[1] = "IDENTITY CARD ABC1234567";
        let f = parse_printed("in.voter", Side::Front, &lines(&card));
        assert_eq!((value(&f, "id"), check(&f, "id")), (Some("ABC1234567"), Some(FieldCheck::Passed)));
    }

    /// Item: combined and generic relation labels ("Father / Mother / Husband Name",
    /// "Relation's Name", "Relative's Name"): the relative's name is `father_name` (the
    /// field docs/API.md gives), with no `relation` (the label does not say which), and
    /// never the holder's name. Must-fail: before the rule "Relation's Name : Ramesh
    /// Kumar" gave no `father_name`, and with the holder's label unread its "Name" made
    /// the relative the holder.
    #[test]
    fn a_generic_or_three_way_relation_label_gives_the_relatives_name() {
        let read = |t: &[&str]| parse_printed("in.voter", Side::Front, &lines(t));
        let mut card = FRONT;
        for label in [
            "Father / Mother / Husband Name : Ramesh Kumar",
            "Father's/Mother's/Husband's Name : Ramesh Kumar",
            "Relation's Name : Ramesh Kumar",
            "Relative's Name : Ramesh Kumar",
            "Relation Name : Ramesh Kumar",
            "Relatives Narne : Ramesh Kumar",
        ] {
            card[4] = label;
            let f = read(&card);
            assert_eq!((value(&f, "name"), value(&f, "father_name"), value(&f, "relation")), (Some("Rahul Kumar"), Some("Ramesh Kumar"), None), "{label}: {f:?}");
        }
        // The value on the next line.
        card[4] = "Relative's Name :";
        card[5] = "Ramesh Kumar";
        let f = read(&card);
        assert_eq!((value(&f, "father_name"), value(&f, "relation")), (Some("Ramesh Kumar"), None), "{f:?}");
        // The holder's label unread: the relative is no holder.
        let mut unlabelled = FRONT;
        unlabelled[3] = "Rahul Kumar";
        for label in ["Relation's Name : Ramesh Kumar", "Relative's Name : Ramesh Kumar", "Husband's Name : Ramesh Kumar", "Father / Mother / Husband Name : Ramesh Kumar"] {
            unlabelled[4] = label;
            let f = read(&unlabelled);
            assert_eq!((get(&f, "name"), value(&f, "father_name")), (None, Some("Ramesh Kumar")), "{label}: {f:?}");
        }
        // A relation's label that lost its relation word to glare ("her's Name" for
        // "Father's Name", seed 11) names no holder; the holder's own label still does.
        // The holder's name read from `card` with its fifth line `label`.
        let name_under = |card: [&str; 8], label: &str| {
            let mut card = card;
            card[4] = label;
            value(&read(&card), "name").map(String::from)
        };
        for label in ["her's Name : Mahesh Sharma", "ther’s Name : Mahesh Sharma"] {
            assert_eq!(name_under(unlabelled, label), None, "{label}");
        }
        // A lone "s" is the end of either possessive ("s Name: Manoj Iyer", seed 18's
        // glare, was the father's name given as the holder's), and so is a lone letter
        // it was misread as ("g Name", seed 22): with no relation label on the card it is
        // the relation's; with one, the holder's.
        for label in ["s Name : Mahesh Sharma", "'s Name: Mahesh Sharma", "g Name: Mahesh Sharma"] {
            assert_eq!(name_under(unlabelled, label), None, "{label}");
        }
        let mut holder_washed = FRONT;
        for label in ["s Name : Rahul Kumar", "g Name : Rahul Kumar"] {
            holder_washed[3] = label;
            let f = read(&holder_washed);
            assert_eq!((value(&f, "name"), value(&f, "father_name")), (Some("Rahul Kumar"), Some("Ramesh Kumar")), "{f:?}");
        }
        // A relative's label whose relation word glare washed out to signs ("aa ; Name:
        // MOHAMMED PATEL", seed 28) under the holder's name in capitals, its own label
        // washed out ("J] PATEL |"): a relative's label, no holder's name from it. With
        // the holder's slash before "Name", or the label starting its line, the holder's.
        let mut washed = FRONT;
        washed[3] = "J] PATEL |";
        for label in ["aa ; Name: MOHAMMED PATEL", "ee, Name : MOHAMMED PATEL"] {
            assert_eq!(name_under(washed, label), None, "{label}");
        }
        for label in ["ama / Name: BALAJI PATEL", "Name : BALAJI PATEL", "ama | Name: BALAJI PATEL"] {
            assert_eq!(name_under(washed, label).as_deref(), Some("BALAJI PATEL"), "{label}");
        }
        // A name printed in title case ends the line above, its label and first name
        // washed out ("aa / Nai h Nath Thakur", seed 26, overexposed): the same.
        washed[3] = "aa / Nai h Nath Thakur";
        assert_eq!(name_under(washed, "aaelt a1 ; Name: Ramesh Thakur"), None);
        assert_eq!(name_under(washed, "ama / Name: Ramesh Thakur").as_deref(), Some("Ramesh Thakur"));
        // One word in title case is no name's end; nor are words in lower case.
        for above in ["aa / Nai h Thakur", "aa / Nai h nath thakur"] {
            washed[3] = above;
            assert_eq!(name_under(washed, "aaelt a1 ; Name: Ramesh Thakur").as_deref(), Some("Ramesh Thakur"), "{above}");
        }
        // Nor without a name in capitals right above: the holder's label misread.
        washed[3] = "ura Pata sirart =";
        assert_eq!(name_under(washed, "aa ; Name: BALAJI PATEL").as_deref(), Some("BALAJI PATEL"));
        let mut lost = FRONT;
        lost[4] = "her's Name : Ramesh Kumar";
        let f = read(&lost);
        assert_eq!(value(&f, "name"), Some("Rahul Kumar"), "{f:?}");
        // "Husband's Name" alone still says which relation.
        card[4] = "Husband's Name : Ramesh Kumar";
        card[5] = FRONT[5];
        let f = read(&card);
        assert_eq!((value(&f, "father_name"), value(&f, "relation")), (Some("Ramesh Kumar"), Some("husband")), "{f:?}");
    }

    /// A relative's "Name" label whose relation word glare took, where no relation label
    /// was read: the relative's name by the label's place (the second "Name" label, one
    /// under the holder's name line, one after another possessive than "Elector's"), no
    /// relation. And the front's one date whose label glare took: the date of birth.
    #[test]
    fn a_relatives_name_and_a_birth_date_whose_labels_glare_took() {
        let front = |rows: &[&str]| parse_printed("in.voter", Side::Front, &lines(rows));
        let pair = |f: &[PrintedField]| (value(f, "name").map(String::from), value(f, "father_name").map(String::from), value(f, "relation").map(String::from));
        let some = |v: &str| Some(v.to_string());
        // The second "Name" label (seed 25: "Mother's" washed out).
        let f = front(&["ELECTION COMMISSION OF INDIA", "ABC1234567", "ama / Name : BALAJI MENON", "Name : POOJA MENON", "Gender : Male"]);
        assert_eq!(pair(&f), (some("BALAJI MENON"), some("POOJA MENON"), None), "{f:?}");
        // After a possessive other than the holder's (seed 32: "Husband's" cut to "nand's").
        let f = front(&["ELECTION COMMISSION OF INDIA", "ABC1234567", "nand's Name : Ajay Patel", "Sex : M"]);
        assert_eq!(pair(&f), (None, some("Ajay Patel"), None), "{f:?}");
        // Under the holder's name line, its own label washed out (seed 28).
        let f = front(&["ELECTION COMMISSION OF INDIA", "ABC1234567", "J] PATEL |", "aa ; Name: MOHAMMED PATEL"]);
        assert_eq!(pair(&f), (None, some("MOHAMMED PATEL"), None), "{f:?}");
        // Not from the holder's own label, alone on the card: its slash, "Elector's", or a
        // lone "s" (either label's end) before "Name".
        for label in ["ama / Name : BALAJI MENON", "Elector's Name : BALAJI MENON", "s Name : BALAJI MENON", "Name : BALAJI MENON"] {
            let f = front(&["ELECTION COMMISSION OF INDIA", "ABC1234567", label, "Sex : M"]);
            assert_eq!(value(&f, "father_name"), None, "{label}: {f:?}");
        }
        // The second label holding a misread word before "Name" (a blurred card's
        // second reading): not by place.
        let f = front(&["ABC1234567", "amt / Name: VECRAM MENON", "Tat art: Pathe Name: VER AN MENON"]);
        assert_eq!(value(&f, "father_name"), None, "{f:?}");
        // A relation label read elsewhere says which name is whose: not by place.
        let f = front(&["ABC1234567", "Name : BALAJI MENON", "Name : POOJA MENON", "Father's Name : RAVI MENON"]);
        assert_eq!(value(&f, "father_name"), Some("RAVI MENON"), "{f:?}");
        // The one date, its label gone (seed 37: "22/10/1995" alone; seed 26, the Hindi
        // label misread): the date of birth.
        for row in ["22/10/1995", "or fef 18-06-1950"] {
            let f = front(&["ELECTION COMMISSION OF INDIA", "ABC1234567", "Elector's Name : MANOJ MENON", row]);
            assert!(value(&f, "dob").is_some_and(|d| d.len() == 10), "{row}: {f:?}");
        }
        // Not an age's reference date ("1.1.2008", stops), not one of two dates, not on a
        // line with another label, not on the back.
        for rows in [
            vec!["ABC1234567", "Age as on 1.1.2008 : 25"],
            vec!["ABC1234567", "1.1.2008 : 25"],
            vec!["ABC1234567", "22/10/1995", "Date : 04/01/2023"],
            vec!["ABC1234567", "22/10/1995 12/01/2020"],
            vec!["ABC1234567", "Name : 22/10/1995"],
        ] {
            let f = front(&rows);
            assert_eq!(value(&f, "dob"), None, "{rows:?}: {f:?}");
        }
        let back = parse_printed("in.voter", Side::Back, &lines(&["Address : Flat 1, MG Road, Patna, Bihar", "04/01/2023"]));
        assert_eq!(value(&back, "dob"), None, "{back:?}");
    }

    /// The bilingual sex value "पुरुष / Male" read after its slash where its label was not
    /// read as one: whole at its start, cut at its end still saying which from three
    /// letters on; not after another label, not without the slash ("Male" alone may be
    /// what glare left of "Female"), not from two letters.
    #[test]
    fn a_sex_read_after_its_slash_without_its_label() {
        let gender = |row: &str| value(&parse_printed("in.voter", Side::Front, &lines(&["ELECTION COMMISSION OF INDIA", "ABC1234567", row])), "gender").map(String::from);
        for (row, want) in [("ider: yes / Male", "M"), ("afeet / Female", "F"), ("fert / Gender: afeen / Fema!", "F"), ("afeet /Female", "F"), ("yes/ Mal", "M")] {
            assert_eq!(gender(row).as_deref(), Some(want), "{row}");
        }
        for row in ["Male", "remale", "afeet / Fe", "Name : RAVI / Male", "afeet / Malek", "yes / Femur"] {
            assert_eq!(gender(row), None, "{row}");
        }
    }

    #[test]
    fn front_noisy_bilingual_and_age() {
        // Bilingual labels, values on the next line, OCR noise in the number (0 for
        // O, 1 for I), Husband's Name, Hindi sex value, age instead of a date.
        let l = lines(&[
            "~aad Prater arr",
            "ELECTION COMMISSION 0F INDIA",
            "IDENTITY CARD",
            "X0Y 98765l2",
            "Electors Narne",
            "Sunita Devi",
            "Husband's Name :",
            "Mohan Lal",
            "लिंग / Sex : पुरुष",
            "Age as on 1.1.2008 : 25",
        ]);
        let f = parse_printed("in.voter", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "XOY9876512", FieldCheck::Passed),
                ("name", "Sunita Devi", FieldCheck::NotApplicable),
                ("father_name", "Mohan Lal", FieldCheck::NotApplicable),
                ("relation", "husband", FieldCheck::NotApplicable),
                ("gender", "M", FieldCheck::NotApplicable),
                ("age", "25", FieldCheck::NotApplicable),
            ],
        );
        assert_eq!(best_type(&l), Some("in.voter"));
        // New design: "Name", "Mother's Name", "Gender", "Date of Birth / Age", dashes.
        let l = lines(&[
            "Election Commission of India",
            "Elector Photo Identity Card",
            "KLM7654321",
            "Name : Anita Rao",
            "Mother's Name : Lakshmi Rao",
            "Gender : Female",
            "Date of Birth / Age : 02-03-1995",
        ]);
        let f = parse_printed("in.voter", Side::Front, &l);
        assert_eq!(
            [value(&f, "name"), value(&f, "father_name"), value(&f, "relation"), value(&f, "gender"), value(&f, "dob")],
            [Some("Anita Rao"), Some("Lakshmi Rao"), Some("mother"), Some("F"), Some("02/03/1995")]
        );
    }

    #[test]
    fn back() {
        let l = lines(&[
            "Address :",
            "H.No. 12, MG Road,",
            "Shivaji Nagar, Bangalore 560001",
            "Date : 12/12/2012",
            "Electoral Registration Officer",
            "ABC1234567",
        ]);
        let f = parse_printed("in.voter", Side::Back, &l);
        assert_fields(
            &f,
            &[("id", "ABC1234567", FieldCheck::Passed), ("address", "H.No. 12, MG Road, Shivaji Nagar, Bangalore 560001", FieldCheck::NotApplicable)],
        );
        assert_eq!(best_type(&l), Some("in.voter"));
    }

    /// The PVC card (2015 on) and the e-EPIC print the sex and the date of birth on the
    /// back, above the address.
    #[test]
    fn the_pvc_cards_back_gives_sex_and_date_of_birth() {
        let l = lines(&[
            "~fery / Gender : yore / Male",
            "~STA fafer / Date of Birth / Age : 14-08-1991",
            "Address : H.No. 12, MG Road,",
            "Shivaji Nagar, Bangalore 560001",
            "Electoral Registration Officer",
            "Assembly Constituency No. & Name : 151 - Shivajinagar",
            "Download Date : 12/12/2021",
        ]);
        let f = parse_printed("in.voter", Side::Back, &l);
        assert_fields(
            &f,
            &[
                ("gender", "M", FieldCheck::NotApplicable),
                ("dob", "14/08/1991", FieldCheck::Passed),
                ("address", "H.No. 12, MG Road, Shivaji Nagar, Bangalore 560001", FieldCheck::NotApplicable),
            ],
        );
    }

    /// "Date of Birth / Age : 35": cards of holders whose birth date is unknown print the
    /// age under the combined label. Must-fail: a date, a short year or a number under a
    /// plain "Date of Birth" is no age.
    #[test]
    fn the_age_under_the_date_of_birth_label() {
        let mut t = FRONT;
        t[6] = "Date of Birth / Age : 35";
        let f = parse_printed("in.voter", Side::Front, &lines(&t));
        assert_eq!((value(&f, "age"), value(&f, "dob")), (Some("35"), None), "{f:?}");
        for bad in ["Date of Birth / Age : 14/08/91", "Date of Birth / Age : 31-02-1990", "Date of Birth : 35"] {
            t[6] = bad;
            let f = parse_printed("in.voter", Side::Front, &lines(&t));
            assert_eq!((value(&f, "age"), value(&f, "dob")), (None, None), "{bad}: {f:?}");
        }
    }

    /// Item: year-only birth information on old cards ("Age as on 1.1.2008 : 35", "Year
    /// of Birth : 1975"): the age where printed (docs/API.md's `age`), no full date made
    /// up, and the qualifying date of the age ("1.1.2008") never a `dob`; a year of
    /// birth alone gives nothing (no field for it on this card type). Must-fail: before
    /// the rule "Date of Birth / Age as on 1.1.2008 : 35" gave `dob` 01/01/2008.
    #[test]
    fn year_only_birth_information_gives_no_date_of_birth() {
        let read = |t: &[&str], side: Side| parse_printed("in.voter", side, &lines(t));
        let mut t = FRONT;
        for (printed, age) in [
            ("Age as on 1.1.2008 : 35", Some("35")),
            ("Age as on 1.1.2008: 35", Some("35")),
            ("Age as on 01-01-2008 : 35", Some("35")),
            ("Age as on 1.1.2008 35", Some("35")),
            ("Age : 35", Some("35")),
            ("Date of Birth / Age as on 1.1.2008 : 35", Some("35")),
            ("Date of Birth/Age as on 01.01.2008 : 35", Some("35")),
            ("Year of Birth : 1975", None),
            ("Year of Birth: 1975", None),
            ("Age as on 1.1.2008 :", None),
        ] {
            t[6] = printed;
            for side in [Side::Front, Side::Back] {
                let f = read(&t, side);
                assert_eq!((value(&f, "age"), get(&f, "dob")), (age, None), "{printed} {side:?}: {f:?}");
            }
        }
        // The age beside a full date of birth on its line: the date is the birth date.
        t[6] = "Date of Birth : 14/08/1991   Age as on 1.1.2008 : 16";
        let f = read(&t, Side::Front);
        assert_eq!(value(&f, "dob"), Some("14/08/1991"), "{f:?}");
        // On one line with the sex.
        t[5] = "Sex : Male   Age as on 1.1.2008 : 35";
        t[6] = "~ee";
        let f = read(&t, Side::Front);
        assert_eq!((value(&f, "gender"), value(&f, "age"), get(&f, "dob")), (Some("M"), Some("35"), None), "{f:?}");
        // A full date of birth still is one.
        let f = read(&FRONT, Side::Front);
        assert_eq!((value(&f, "dob"), get(&f, "age")), (Some("14/08/1991"), None));
    }

    #[test]
    fn impossible_date_is_no_dob() {
        let mut t = FRONT;
        t[6] = "Date of Birth : 31-02-1990";
        let f = parse_printed("in.voter", Side::Front, &lines(&t));
        assert_eq!(value(&f, "dob"), None);
    }

    /// A line of the address read as noise (`super::noise_part`, a glyph or a mark read
    /// as a line of its own): no address rather than one with "Cc" in it (the block
    /// reader every parser's addresses go through, `Doc::block`).
    #[test]
    fn an_address_line_read_as_noise_gives_no_address() {
        let f = parse_printed("in.voter", Side::Back, &lines(&["Address : H.No. 53, Station Road, Sector 5", "Gurgaon, Haryana"]));
        assert_eq!(value(&f, "address"), Some("H.No. 53, Station Road, Sector 5, Gurgaon, Haryana"), "{f:?}");
        let f = parse_printed("in.voter", Side::Back, &lines(&["Address : H.No. 53, Station Road, Sector 5", "Cc", "Gurgaon, Haryana"]));
        assert_eq!(value(&f, "address"), None, "{f:?}");
        // A relation opening the address, read "5/0" (`super::relation_repaired`).
        let f = parse_printed("in.voter", Side::Back, &lines(&["Address : 5/0 Vikram Prasad, H.No. 53, Station Road", "Gurgaon, Haryana"]));
        assert_eq!(value(&f, "address"), Some("S/O Vikram Prasad, H.No. 53, Station Road, Gurgaon, Haryana"), "{f:?}");
        // Read "$/O" (a dollar sign for the S, under blur), on the label's line or the next;
        // a dollar sign anywhere else is noise.
        for l in [vec!["Address : $/O Vikram Prasad, H.No. 53, Station Road", "Gurgaon, Haryana"], vec!["Address :", "$/O Vikram Prasad, H.No. 53, Station Road", "Gurgaon, Haryana"]] {
            let f = parse_printed("in.voter", Side::Back, &lines(&l));
            assert_eq!(value(&f, "address"), Some("S/O Vikram Prasad, H.No. 53, Station Road, Gurgaon, Haryana"), "{f:?}");
        }
        let f = parse_printed("in.voter", Side::Back, &lines(&["Address : H.No. 53, Station Road", "$/O Gurgaon, Haryana"]));
        assert_eq!(value(&f, "address"), None, "{f:?}");
    }

    /// The address ends with its state, or with the PIN code on the line after it: the
    /// constituency's line after it, its label misread, is no part of it.
    #[test]
    fn an_address_ends_with_its_state() {
        let back = ["Address : 9-11-49, Church Street, Adyar, Chennai, Tamil Nadu", "y Sly Constituency No. & Name : 174 - Govindpura"];
        let f = parse_printed("in.voter", Side::Back, &lines(&back));
        assert_eq!(value(&f, "address"), Some("9-11-49, Church Street, Adyar, Chennai, Tamil Nadu"), "{f:?}");
        let f = parse_printed("in.voter", Side::Back, &lines(&["Address : 9-11-49, Church Street, Adyar, Chennai, Tamil Nadu", "600020"]));
        assert_eq!(value(&f, "address"), Some("9-11-49, Church Street, Adyar, Chennai, Tamil Nadu, 600020"), "{f:?}");
        // A line ending with a city named like a state ("New Delhi") does not end it.
        let f = parse_printed("in.voter", Side::Back, &lines(&["Address : 12, Janpath, New Delhi", "Delhi"]));
        assert_eq!(value(&f, "address"), Some("12, Janpath, New Delhi, Delhi"), "{f:?}");
    }

    #[test]
    fn arbitrary_input_never_panics() {
        never_panics(&lines(&FRONT), ALPHABET, 41, 80);
    }
}

/// Lines as Tesseract 5 (`eng`) read a generated voter card (card_eval): "Iyer" as "lyer".
#[cfg(test)]
mod tesseract_lines {
    use super::super::test_support::{lines, value};
    use super::super::{parse_printed, Side};

    #[test]
    fn a_capital_i_read_as_l_is_repaired_in_names() {
        let l = lines(&[
            "ELECTION COMMISSION OF INDIA",
            "ueum ux / IDENTITY CARD",
            "JHX9168915",
            "Elector's Name : Meera lyer",
            "Father's Name : Pradeep lyer",
            "Sex : Female",
            "Date of Birth : 17/04/1971",
        ]);
        let f = parse_printed("in.voter", Side::Front, &l);
        assert_eq!(value(&f, "name"), Some("Meera Iyer"));
        assert_eq!(value(&f, "father_name"), Some("Pradeep Iyer"));
        assert_eq!(value(&f, "id"), Some("JHX9168915"));
    }
}
