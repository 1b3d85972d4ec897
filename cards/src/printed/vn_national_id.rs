//! Vietnam's citizen identity card (Căn cước công dân, CCCD: the chip card's front and
//! the older CCCD and CMND fronts, which share its labels), and the dates (and on the
//! 2024 card the residence) on its back.
//!
//! Assumptions:
//! - Bilingual labels ("Họ và tên / Full name:"), read by the `vie` model with
//!   diacritics or by `eng` without (labels are folded before matching, so "Ho va ten"
//!   is "Họ và tên"); each value after its label on the same line ("Số / No.:
//!   079203001234") or on the next ("Họ và tên / Full name:" over the name), and two
//!   labelled values may share a line ("Giới tính / Sex: Nam   Quốc tịch /
//!   Nationality: Việt Nam"). Values are returned as printed (names in capitals on the
//!   card), NFC, with `Ð` (U+00D0, a common misread) as `Đ`.
//! - `id`: 12 digits (CCCD), or 9 (old CMND), after "Số / No." or wherever it stands
//!   alone as one token (never from the back's MRZ); at most two confused letters
//!   repaired. Its check: [`cccd_consistency`] against the date of birth and sex read
//!   off the same card (`NotApplicable` for a 9-digit CMND number, or when no date of
//!   birth was read).
//! - `name`: under (or after) "Họ và tên / Full name" or the 2024 card's "Họ, chữ đệm và
//!   tên khai sinh / Full name", in capitals as printed; the label's own words read on a
//!   line of their own ("KHAI SINH", a misread "FULL NAME") are never the name. A common
//!   family name read with a mark lost ("NGUYÊN" for "NGUYỄN") gets it back.
//! - `gender`: "Nam" → `M`, "Nữ"/"Nu" → `F`. `nationality`: "Việt Nam" for any reading
//!   (or its last two words) within one edit of "Viet Nam" (spaces and diacritics aside);
//!   no other value (only Vietnamese citizens hold these cards: another reading is a
//!   misread).
//! - `place_of_origin`: after "Quê quán / Place of origin" (or the CMND's "Nguyên
//!   quán"), on the same line or the next, and on the line after it when its line ends
//!   with a comma. `address`: after "Nơi thường trú / Place of
//!   residence" (CMND: "Nơi ĐKHK thường trú"), the rest of that line and up to two
//!   following lines until the next label, joined with ", ". On the front, the expiry
//!   printed beside the residence's second line ("Có giá trị đến: 12/05/2041", read into
//!   that line before it, or on a line of its own between the residence's) is no part of
//!   it, and the residence goes on past it.
//! - `expiry_date`: after "Có giá trị đến" / "Date of expiry"; none where the card reads
//!   "Không thời hạn" (no time limit: a card valid for life).
//! - Back: `issue_date` after "Ngày, tháng, năm / Date, month, year", or written out
//!   "Ngày 15 tháng 06 năm 2021" (older backs). The 2024 card (Căn cước) prints on its
//!   back the `address` ("Nơi cư trú / Place of residence"), "Ngày, tháng, năm cấp / Date
//!   of issue" and `expiry_date` ("Ngày, tháng, năm hết hạn / Date of expiry"); its "Nơi
//!   đăng ký khai sinh / Place of birth" is no place of origin and is not returned. Its
//!   issue and expiry labels read one above the other before their two values take them
//!   in order (the issue date the earlier); before one value, it goes to the label on
//!   whose row (or under which) its box lies, to neither where the boxes cannot tell.

use super::{
    clean, edit_distance, extract_date, field, fold_for_match, gender_value, name_value, repair_digits, tokens, Doc, FieldCheck, Found,
    Labels, PrintedField, Side,
};

pub(crate) const LABELS: Labels = &[
    ("id", &["Số / No", "Số định danh cá nhân / Personal identification number", "Số định danh cá nhân", "Personal identification number", "Số CCCD", "Số CMND"]),
    ("name", &["Họ và tên / Full name", "=Họ và tên", "Full name", "=Họ tên", "Họ, chữ đệm và tên khai sinh"]),
    ("dob", &["Ngày sinh / Date of birth", "Ngày sinh", "Date of birth", "Sinh ngày", "Ngày, tháng, năm sinh"]),
    ("gender", &["Giới tính / Sex", "Giới tính", "=Sex"]),
    ("nationality", &["Quốc tịch / Nationality", "Quốc tịch", "Nationality"]),
    ("place_of_origin", &["Quê quán / Place of origin", "Quê quán", "Place of origin", "=Nguyên quán"]),
    ("address", &["Nơi thường trú / Place of residence", "Nơi thường trú", "Place of residence", "Nơi ĐKHK thường trú", "Nơi cư trú"]),
    // The 2024 card's back: "Ngày, tháng, năm cấp / Date of issue" and "Ngày, tháng, năm hết
    // hạn / Date of expiry", in full so that the longer label wins over "Ngày, tháng, năm".
    ("expiry_date", &["Có giá trị đến / Date of expiry", "Có giá trị đến", "Date of expiry", "Giá trị đến", "Ngày, tháng, năm hết hạn"]),
    ("issue_date", &["Ngày, tháng, năm / Date, month, year", "Ngày, tháng, năm", "Date, month, year", "Ngày, tháng, năm cấp", "Date of issue"]),
    // The 2024 card's place of birth registration: not the place of origin ("Quê quán"),
    // and no field; it ends the place of residence above it.
    ("birth_place", &["Nơi đăng ký khai sinh", "Place of birth"]),
    (
        "back",
        &[
            "Đặc điểm nhân dạng / Personal identification",
            "Đặc điểm nhân dạng",
            "Personal identification",
            "Cục trưởng cục cảnh sát quản lý hành chính về trật tự xã hội",
            "Ngón trỏ trái",
            "Ngón trỏ phải",
            "Left index finger",
            "Right index finger",
        ],
    ),
];

/// How a CCCD number agrees with itself and with the card's date of birth and sex.
///
/// A CCCD number is `PPP C YY NNNNNN`: `PPP` the province of birth registration
/// (001-096), `C` the sex and century of birth (0 male / 1 female born 1900-1999, 2 / 3
/// born 2000-2099), `YY` the last two digits of the year of birth, then a serial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CccdConsistency {
    /// 12 ASCII digits.
    pub well_formed: bool,
    /// Digits 1-3 are a province code 001-096.
    pub province: bool,
    /// Digit 4 is 0-3.
    pub century_sex_digit: bool,
    /// Digit 4's century and digits 5-6 agree with the date of birth's year (`None`
    /// without a date of birth).
    pub birth_year: Option<bool>,
    /// Digit 4's sex agrees with the card's sex (`None` without one).
    pub sex: Option<bool>,
}

impl CccdConsistency {
    /// `Failed` when the number is malformed or disagrees with the date of birth or
    /// sex; `Passed` when it is well formed and agrees with the date of birth (and the
    /// sex, when known); `NotApplicable` when no date of birth could confirm it.
    pub fn check(&self) -> FieldCheck {
        if !self.well_formed || !self.province || !self.century_sex_digit || self.birth_year == Some(false) || self.sex == Some(false) {
            FieldCheck::Failed
        } else if self.birth_year == Some(true) {
            FieldCheck::Passed
        } else {
            FieldCheck::NotApplicable
        }
    }
}

/// Checks a CCCD number's structure and its agreement with a date of birth
/// (`DD/MM/YYYY`) and sex (`M`/`F`) read off the same card; see [`CccdConsistency`].
pub fn cccd_consistency(id: &str, dob: Option<&str>, gender: Option<&str>) -> CccdConsistency {
    let well_formed = id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit());
    if !well_formed {
        return CccdConsistency { well_formed, province: false, century_sex_digit: false, birth_year: None, sex: None };
    }
    let province = id.get(0..3).and_then(|p| p.parse::<u32>().ok()).is_some_and(|p| (1..=96).contains(&p));
    let c = id.as_bytes().get(3).map_or(9, |b| b - b'0');
    let century_sex_digit = c <= 3;
    let year = dob.and_then(|d| d.rsplit('/').next()).filter(|y| y.len() == 4).and_then(|y| y.parse::<u32>().ok());
    let birth_year = year.map(|y| {
        let century = match c {
            0 | 1 => (1900..2000).contains(&y),
            2 | 3 => (2000..2100).contains(&y),
            _ => false,
        };
        century && id.get(4..6) == Some(format!("{:02}", y % 100).as_str())
    });
    let sex = gender.filter(|g| matches!(*g, "M" | "F")).filter(|_| century_sex_digit).map(|g| (c % 2 == 0) == (g == "M"));
    CccdConsistency { well_formed, province, century_sex_digit, birth_year, sex }
}

/// A 12- or 9-digit number token in `s` (at most two repairs).
fn id_token(s: &str) -> Option<(String, usize)> {
    tokens(s).into_iter().find_map(|(t, _, _)| {
        let (d, r) = repair_digits(t)?;
        ((d.len() == 12 || d.len() == 9) && r <= 2).then_some((d, r))
    })
}

/// The card's number: after its label, else the first 12-digit token anywhere, else
/// the first 9-digit one (MRZ lines aside).
pub(crate) fn find_id(doc: &Doc) -> Option<Found<String>> {
    let adjust = |f: Found<(String, usize)>| Found { conf: f.conf * (1.0 - 0.1 * f.value.1 as f32), value: f.value.0, lines: f.lines, label_line: f.label_line };
    if let Some(f) = doc.labelled("id", 1, |s, _| id_token(s)) {
        return Some(adjust(f));
    }
    for len in [12, 9] {
        for i in 0..doc.len() {
            if doc.text(i).contains('<') {
                continue;
            }
            let hit = tokens(doc.text(i)).into_iter().find_map(|(t, _, _)| {
                let (d, r) = repair_digits(t)?;
                (d.len() == len && r <= 2).then_some((d, r))
            });
            if let Some(v) = hit {
                return Some(adjust(Found { value: v, lines: vec![i], conf: doc.conf(&[i]), label_line: None }));
            }
        }
    }
    None
}

fn vn_gender(s: &str) -> Option<&'static str> {
    let f: String = fold_for_match(s).chars.iter().collect();
    for w in f.split(' ') {
        match w {
            "nam" => return Some("M"),
            "nu" => return Some("F"),
            _ => {}
        }
    }
    gender_value(s, false)
}

/// Only Vietnamese citizens hold a CCCD or a CMND: a nationality that does not read as
/// "Việt Nam" is a misread (the label's own fragment, "National"), and one whose last
/// two words do is the label run into the value ("Natonalsy: Việt Nam").
fn vn_nationality(s: &str) -> Option<String> {
    let is_viet_nam = |t: &str| {
        let f: Vec<char> = fold_for_match(t).chars.into_iter().filter(|c| *c != ' ').collect();
        edit_distance(&f, &"vietnam".chars().collect::<Vec<_>>()) <= 1
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    let tail = words[words.len().saturating_sub(2)..].join(" ");
    (is_viet_nam(s) || is_viet_nam(&tail)).then(|| "Việt Nam".to_string())
}

/// The name labels' words, in order: the 2024 card's "Họ, chữ đệm và tên khai sinh / Full
/// name" (or "/ Surname, middle name and given name"), the 2021 card's "Họ và tên / Full
/// name"; folded.
const NAME_LABEL_WORDS: [&[&str]; 3] = [
    &["ho", "chu", "dem", "va", "ten", "khai", "sinh", "full", "name"],
    &["ho", "chu", "dem", "va", "ten", "khai", "sinh", "surname", "middle", "name", "and", "given", "name"],
    &["ho", "va", "ten", "full", "name"],
];
/// The label words no Vietnamese full name opens with: the English half's, and "khai sinh"
/// (a name's first word is its family name). The others ("Hồ", "Chu", "Văn"…) are names'.
const NAME_LABEL_OWN_WORDS: [&str; 8] = ["khai", "sinh", "full", "name", "surname", "middle", "and", "given"];

/// `name` without the name label's own words in front of it: the label's tail read on a
/// line of its own under the part that matched ("HỌ, CHỮ ĐỆM VÀ TÊN KHAI SINH" over "EULL
/// NANIE", its English half misread past matching, over the name; "… / Full" over "NAME"),
/// or run into the name ("EULL NANIE NGUYỄN VĂN AN"). Words are the label's within an
/// edit for four letters, two for five or more ("rn" read for "m" free), none for fewer;
/// the run must hold one of [`NAME_LABEL_OWN_WORDS`]: "HỒ VĂN TÂN" stays a name. `None`
/// when nothing else is left.
fn without_name_label_words(name: &str) -> Option<String> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let folded: Vec<Vec<char>> = words
        .iter()
        .map(|w| fold_for_match(w).chars.into_iter().filter(|c| *c != ' ').collect::<String>().replace("rn", "m").chars().collect())
        .collect();
    let close = |w: &[char], label: &str| {
        let tolerance = match w.len() {
            0..=3 => 0,
            4 => 1,
            _ => 2,
        };
        edit_distance(w, &label.chars().collect::<Vec<_>>()) <= tolerance
    };
    let mut run = 0;
    for seq in NAME_LABEL_WORDS {
        for start in 0..seq.len() {
            let n = folded.iter().zip(&seq[start..]).take_while(|(w, l)| close(w, l)).count();
            // One word alone is the label's only as spelled: "TRỊNH", a family name, is
            // within two edits of "sinh".
            let alone_misspelt = n == 1 && folded.first().is_some_and(|w| *w != seq[start].chars().collect::<Vec<_>>());
            if n > run && !alone_misspelt && seq[start..start + n].iter().any(|l| NAME_LABEL_OWN_WORDS.contains(l)) {
                run = n;
            }
        }
    }
    match words.get(run..) {
        Some(rest) if !rest.is_empty() => if run == 0 { Some(name.to_string()) } else { name_value(&rest.join(" ")) },
        _ => None,
    }
}

/// Vietnamese text as printed: `Ð`/`ð` (Latin eth, a misread) as `Đ`/`đ`.
fn vn_text(s: &str) -> String {
    clean(s).replace('Ð', "Đ").replace('ð', "đ")
}

/// A place or address as printed ([`vn_text`]), a semicolon read for its parts' comma
/// ("Lộc Thọ; Nha Trang, Khánh Hòa", the independent set's seed 17 under noise) as the
/// comma: the card separates a place's parts with commas only. A colon against a comma
/// is a speck read between two parts ("Phú Diễn,:Bắc Từ Liêm, Hà Nội", seed 31 under
/// noise, the space after the comma taken for it): a place holds no colon, and the
/// parts are set apart by a comma and a space.
fn vn_place_text(s: &str) -> String {
    let text = vn_text(s).replace(';', ",").replace(",:", ", ").replace(":,", ",");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A place whose last part, its province, is printed whole, never abbreviated: a full
/// stop after it is a speck ("Cẩm Phô, Hội An, Quảng Nam." under noise, the independent
/// set's seed 28), dropped with the space before it.
fn without_closing_stop(place: &str) -> String {
    place.trim_end_matches(|c: char| c == '.' || c.is_whitespace()).to_string()
}

/// Whether a word of a place holds two marks or more in a row between letters ("N-.t" for
/// "Nhơn", a punch's edge read across the word: seed 32): no place's word is so written,
/// and the word's letters there were lost, so the place is no place as printed.
fn marks_inside_a_word(place: &str) -> bool {
    place.split_whitespace().any(|w| {
        let cs: Vec<char> = w.chars().collect();
        let mut i = 0;
        while i < cs.len() {
            if !cs[i].is_alphanumeric() {
                let start = i;
                while i < cs.len() && !cs[i].is_alphanumeric() {
                    i += 1;
                }
                let between_letters = start > 0 && cs[start - 1].is_alphabetic() && cs.get(i).is_some_and(|c| c.is_alphabetic());
                if between_letters && i - start >= 2 {
                    return true;
                }
            } else {
                i += 1;
            }
        }
        false
    })
}

fn place_value(s: &str) -> Option<String> {
    let v = without_closing_stop(&vn_place_text(s));
    (v.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !foreign_to_vietnamese(&v) && !label_fragment(&v) && !marks_inside_a_word(&v)).then(|| with_province_restored(&v)).and_then(|p| with_cut_province(&p))
}

/// A place whose last part, its province, was cut short (glare or the card's edge took
/// the line's end: "Hải Minh, Hải Hậu, Nam Đi"): the part is the start of a province's
/// name and no province itself. Completed where exactly one province starts with it as
/// read (its letters, none of their marks added), it holds at least four letters and it
/// was cut inside the province's last word; otherwise not given (`None`):
/// a place that ends inside its province's name is a wrong place. A place whose last part
/// is no province's start is returned as it is.
fn with_cut_province(place: &str) -> Option<String> {
    let (head, last) = match place.rfind(',') {
        Some(i) => (&place[..=i], place[i + 1..].trim()),
        None => ("", place.trim()),
    };
    let last = last.trim_end_matches(|c: char| !c.is_alphanumeric());
    let folded = |s: &str| fold_for_match(s).chars.into_iter().collect::<String>();
    let key = folded(last);
    if key.is_empty() || VN_PROVINCES.iter().any(|p| folded(p) == key) || !VN_PROVINCES.iter().any(|p| folded(p).starts_with(&key)) {
        return Some(place.to_string());
    }
    // As read: each letter the province's, with none of its marks added (glare that takes
    // the line's end takes the small marks first: "Đi" of "Định").
    let letters = |w: &str| w.chars().map(super::unicode::decomposed).map(|(b, m)| (b.to_lowercase().collect::<String>(), m)).collect::<Vec<_>>();
    let read = letters(last);
    let starts_as_read = |p: &&&str| {
        let known = letters(p);
        known.len() > read.len() && known.iter().zip(&read).all(|((kb, km), (rb, rm))| kb == rb && rm.iter().all(|m| km.contains(m)))
    };
    let mut starts = VN_PROVINCES.iter().filter(starts_as_read);
    match (starts.next(), starts.next()) {
        // Cut inside the province's last word: a part missing a whole word may have lost
        // more than that (the district's line end), so only then is it completed.
        (Some(province), None) if last.chars().filter(|c| c.is_alphabetic()).count() >= 4 && last.split_whitespace().count() == province.split_whitespace().count() => {
            Some(if head.is_empty() { province.to_string() } else { format!("{head} {province}") })
        }
        _ => None,
    }
}

/// Whether a place ends with a province's or a centrally governed city's name, as the
/// card prints it: [`VN_PROVINCES`] (marks and case aside), after its unit's word
/// ("Tỉnh Long An", "TP. Hồ Chí Minh", "Thành phố Hà Nội"), or one of [`LATER_PROVINCES`].
/// A CCCD's place of origin and residence always do: one that ends otherwise lost its
/// end or had it misread ("Ấp Xã, Hnn, Khh", a residence joined to specks a punch left,
/// the independent set's seed 25; "12 Lê Lợi", its second line unread) and is a wrong
/// place, not given.
fn ends_with_province(place: &str) -> bool {
    let last = place.rsplit(',').next().unwrap_or(place).trim().trim_end_matches(|c: char| !c.is_alphanumeric());
    let folded = |s: &str| fold_for_match(s).chars.into_iter().collect::<String>();
    let key = folded(last);
    let name = ["tinh ", "thanh pho ", "tp. ", "tp ", "tp."].iter().find_map(|unit| key.strip_prefix(unit)).unwrap_or(&key).trim();
    !name.is_empty() && VN_PROVINCES.iter().chain(LATER_PROVINCES.iter()).any(|p| folded(p) == name)
}

/// Provinces a card may name beside [`VN_PROVINCES`] (the 63 of 2008-2025): the city of
/// Huế (since 2025, formerly Thừa Thiên Huế) and Hà Tây (to 2008, merged into Hà Nội),
/// still printed on cards of their time.
const LATER_PROVINCES: [&str; 2] = ["Huế", "Hà Tây"];

/// Whether a value read after a place's label is a piece of a label ("Place o" or
/// "origin" of "Quê quán / Place of origin:", the label read across OCR boxes on a card
/// photographed at an angle), not a place.
fn label_fragment(v: &str) -> bool {
    let squeezed = |s: &str| fold_for_match(s).chars.into_iter().filter(|c| *c != ' ').collect::<String>();
    let value = squeezed(v);
    value.chars().count() >= 3
        && ["Quê quán", "Place of origin", "Nơi thường trú", "Place of residence", "Có giá trị đến", "Date of expiry"].iter().any(|label| squeezed(label).contains(&value))
}

/// Whether a place read holds letters outside Vietnamese's alphabet (F, J, W, Z, or a
/// letter with a mark Vietnamese does not put on it: "Hoäng" for "Hoằng", a breve and
/// grave read as a diaeresis) or characters no address prints: a misread ("Quảng PWU,
/// QuaW@ Xương, Thanh Hóa" along a shadow's edge), not given.
fn foreign_to_vietnamese(s: &str) -> bool {
    not_as_printed(s) || s.chars().any(|c| {
        matches!(c, 'f' | 'F' | 'j' | 'J' | 'w' | 'W' | 'z' | 'Z')
            || !(c.is_alphanumeric() || c.is_whitespace() || super::unicode::is_mark(c) || ",.;:/-()'".contains(c))
            || !vietnamese_marks(c)
    })
}

/// Whether a place read has what no place prints: a letter three times in a row (no
/// Vietnamese syllable doubles one, a place's numbers aside) or a parenthesis left
/// unpaired ("Thôn Hạ, nnn) Cẩm Phô, Hội An, Quảng Nam", a cut corner's edge read as
/// letters: the independent set's seed 38). "P. Bến Nghé (Q.1)" pairs its own.
fn not_as_printed(s: &str) -> bool {
    let cs: Vec<char> = s.chars().flat_map(char::to_lowercase).collect();
    let tripled = cs.windows(3).any(|w| w[0].is_alphabetic() && w[0] == w[1] && w[1] == w[2]);
    let mut open = 0i32;
    let mut unpaired = false;
    for c in &cs {
        match c {
            '(' => open += 1,
            ')' if open == 0 => unpaired = true,
            ')' => open -= 1,
            _ => {}
        }
    }
    tripled || unpaired || open != 0
}

/// Whether `c`'s marks are ones Vietnamese writes on its letter: at most one tone (grave,
/// acute, tilde, hook above, dot below), on a vowel (a, e, i, o, u, y: a tone sits on the
/// syllable's vowel, so "Ñinh" for "Ninh" is a speck read as a tilde, the independent
/// set's seed 38 under noise), and a circumflex on a, e or o, a breve on a, a horn on o
/// or u. Đ and letters without marks pass.
fn vietnamese_marks(c: char) -> bool {
    let (base, marks) = super::unicode::decomposed(c);
    let base = base.to_ascii_lowercase();
    let tones = marks.iter().filter(|m| matches!(m, '\u{300}' | '\u{301}' | '\u{303}' | '\u{309}' | '\u{323}')).count();
    tones <= 1
        && marks.iter().all(|m| match m {
            '\u{300}' | '\u{301}' | '\u{303}' | '\u{309}' | '\u{323}' => matches!(base, 'a' | 'e' | 'i' | 'o' | 'u' | 'y'),
            '\u{302}' => matches!(base, 'a' | 'e' | 'o'),
            '\u{306}' => base == 'a',
            '\u{31B}' => matches!(base, 'o' | 'u'),
            _ => false,
        })
}

/// Vietnam's most common family names (nine in ten people bear one of them): a name's
/// first word.
const VN_FAMILY_NAMES: [&str; 24] = [
    "Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng", "Bùi", "Đỗ", "Hồ", "Ngô", "Dương", "Lý",
    "Đinh", "Trịnh", "Đào", "Mai", "Lương", "Trương", "Lâm", "Đoàn",
];

/// `name` with its family name given back the marks the reading lost ("NGUYÊN QUANG
/// BÌNH" → "NGUYỄN …": a tone lost on a capital's circumflex): only a first word whose
/// letters are one common family name's ([`VN_FAMILY_NAMES`]) with some of their marks
/// missing and none added, in a name read with marks (a reading with none, by a model
/// without them, stays one). Written in the word's case; anything else is left alone.
fn with_family_name_restored(name: &str) -> String {
    let (first, rest) = name.split_once(' ').unwrap_or((name, ""));
    let letters = |w: &str| w.chars().map(super::unicode::decomposed).map(|(b, m)| (b.to_lowercase().collect::<String>(), m)).collect::<Vec<_>>();
    let marks = |w: &str| letters(w).iter().map(|(_, m)| m.len()).sum::<usize>();
    let read = letters(first);
    let lost_marks_of = |known: &&&str| {
        let known = letters(known);
        known.len() == read.len()
            && known.iter().zip(&read).all(|((kb, km), (rb, rm))| kb == rb && rm.iter().all(|m| km.contains(m)))
            && marks(first) < known.iter().map(|(_, m)| m.len()).sum::<usize>()
    };
    let mut matches = VN_FAMILY_NAMES.iter().filter(lost_marks_of);
    match (matches.next(), matches.next()) {
        (Some(known), None) if marks(name) > 0 => {
            let spelled = if first.chars().any(char::is_lowercase) { known.to_string() } else { known.to_uppercase() };
            if rest.is_empty() { spelled } else { format!("{spelled} {rest}") }
        }
        _ => name.to_string(),
    }
}

/// Vietnam's 63 provinces and centrally governed cities as printed on cards issued
/// before the 2025 merger: the last part of a place of origin or of residence.
const VN_PROVINCES: [&str; 63] = [
    "Hà Nội", "Hồ Chí Minh", "Hải Phòng", "Đà Nẵng", "Cần Thơ", "An Giang", "Bà Rịa - Vũng Tàu", "Bắc Giang", "Bắc Kạn", "Bạc Liêu",
    "Bắc Ninh", "Bến Tre", "Bình Định", "Bình Dương", "Bình Phước", "Bình Thuận", "Cà Mau", "Cao Bằng", "Đắk Lắk", "Đắk Nông",
    "Điện Biên", "Đồng Nai", "Đồng Tháp", "Gia Lai", "Hà Giang", "Hà Nam", "Hà Tĩnh", "Hải Dương", "Hậu Giang", "Hòa Bình",
    "Hưng Yên", "Khánh Hòa", "Kiên Giang", "Kon Tum", "Lai Châu", "Lâm Đồng", "Lạng Sơn", "Lào Cai", "Long An", "Nam Định",
    "Nghệ An", "Ninh Bình", "Ninh Thuận", "Phú Thọ", "Phú Yên", "Quảng Bình", "Quảng Nam", "Quảng Ngãi", "Quảng Ninh", "Quảng Trị",
    "Sóc Trăng", "Sơn La", "Tây Ninh", "Thái Bình", "Thái Nguyên", "Thanh Hóa", "Thừa Thiên Huế", "Tiền Giang", "Trà Vinh", "Tuyên Quang",
    "Vĩnh Long", "Vĩnh Phúc", "Yên Bái",
];

/// `place` with its province (the part after its last comma) given back the diacritics
/// the reading lost ("Phú Mậu, Phú Vang, Thừa Thiên Hue" → "…, Thừa Thiên Huế"): only a
/// part that folds to exactly one province's name and carries fewer letters with marks
/// than it, in a place whose other parts kept theirs (a reading with no marks at all, by
/// a model without them, stays one: no half-marked value). A part as marked as the name but placed otherwise ("Thanh Hoá", the older
/// tone placement) stays as printed; a part that is no province's name is left alone.
/// A word of one or two characters read after a province's whole name is cut.
fn with_province_restored(place: &str) -> String {
    let (head, last) = match place.rfind(',') {
        Some(i) => (&place[..=i], &place[i + 1..]),
        None => ("", place),
    };
    let folded = |s: &str| fold_for_match(s).chars.into_iter().collect::<String>();
    let marked = |s: &str| s.chars().filter(|c| !c.is_ascii()).count();
    let is_province = |s: &str| VN_PROVINCES.iter().any(|p| folded(p) == folded(s));
    let with_last = |last: &str| if head.is_empty() { last.to_string() } else { format!("{head} {last}") };
    let part = last.trim();
    // A speck or the card's edge read as a short word after the province's whole name
    // ("Hà Nội i"): no place goes on past its province, so it is no part of the value.
    let (part, stray_cut) = match part.rsplit_once(' ') {
        Some((before, stray)) if stray.chars().count() <= 2 && is_province(before) && !is_province(part) => (before.trim_end(), true),
        _ => (part, false),
    };
    let key = folded(part);
    let mut matches = VN_PROVINCES.iter().filter(|p| folded(p) == key);
    match (matches.next(), matches.next()) {
        (Some(province), None) if marked(part) < marked(province) && marked(head) > 0 => with_last(province),
        _ if stray_cut => with_last(part),
        _ => place.to_string(),
    }
}

/// "Ngày 15 tháng 06 năm 2021" → 15/06/2021.
fn written_date(s: &str) -> Option<String> {
    let f: String = fold_for_match(s).chars.iter().collect();
    let words: Vec<&str> = f.split(' ').collect();
    words.windows(6).find_map(|w| match w {
        ["ngay", d, "thang", m, "nam", y] => crate::checked_date(d, m, y).map(|(d, m, y)| format!("{d:02}/{m:02}/{y:04}")),
        _ => None,
    })
}

/// Whether line `j` is a date standing alone (the expiry beside the portrait).
fn date_line(doc: &Doc, j: usize) -> bool {
    extract_date(doc.text(j)).is_some() && doc.text(j).chars().filter(|c| c.is_alphabetic()).count() < 4
}

/// The place of origin. A place too long for one line (the 2016 card writes "Xã Tân
/// Chánh, Huyện Cần Đước, Tỉnh Long An") goes on over the next line when its line ends
/// with a comma; a line holding a label or a date is no part of it.
/// `text`, read on line `j` under (or beside) the label on line `label`, without what
/// stands left of the label's column: a value printed left-aligned under its label that
/// is read from well left of it (by more than 1.5 label heights) holds the portrait's
/// edge first, read as short words ("đi Lộc Thọ", "2n XIN, Phú Hòa": the independent card
/// set's CCCD with a punched hole). Words of one or two characters are dropped there;
/// when the first word left is then in capitals while the place is written in Title Case
/// ("XIN, Phú Hòa"), it is the edge's too, and the line gives no place (`None`): a place
/// with a word lost or added is a wrong place.
fn left_of_column_trimmed(doc: &Doc, label: usize, j: usize, text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    // A speck read as a small letter ("è. Ninh Khánh, …", seed 29 under a dark
    // exposure) starts the line left of the column by less: no place's word starts
    // lowercase, so one so short and so placed is the speck, not a letter cut from the
    // place (what a cut leaves of a word stands at the column, not left of it).
    let speck_first = words.first().is_some_and(|w| w.chars().count() <= 2 && !w.chars().any(char::is_uppercase)) && super::read_left_of_label_by(doc, label, j, 0.75);
    if !super::read_left_of_label(doc, label, j) && !speck_first {
        return Some(text.to_string());
    }
    let lead = words.iter().take_while(|w| w.chars().count() <= 2).count();
    let rest = words.get(lead..).unwrap_or_default();
    let capitals = |w: &str| w.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !w.chars().any(char::is_lowercase);
    let title_case_after = rest.iter().skip(1).any(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().any(char::is_lowercase));
    if rest.is_empty() || (capitals(rest[0]) && title_case_after) {
        return None;
    }
    Some(rest.join(" "))
}

fn place_of_origin(doc: &Doc) -> Option<Found<String>> {
    let p = doc.labelled("place_of_origin", 1, |s, _| place_value(s))?;
    let p = match (p.label_line, p.lines.as_slice()) {
        (Some(label), [line]) => {
            let v = left_of_column_trimmed(doc, label, *line, &p.value).and_then(|v| place_value(&v))?;
            p.with(v)
        }
        _ => p,
    };
    // Every place's name is capitalised: one whose first letter reads lowercase had that
    // letter misread ("bình Bảng" for "Đình Bảng"), and is no place.
    if p.value.chars().find(|c| c.is_alphabetic()).is_some_and(char::is_lowercase) {
        return None;
    }
    let Some(&l) = p.lines.last() else { return Some(p).filter(|p| ends_with_province(&p.value)) };
    let j = l + 1;
    let goes_on = doc.text(l).trim_end().ends_with(',') && j < doc.len() && doc.hits(j).is_empty() && !date_line(doc, j) && !doc.gap(l, j);
    let whole = match goes_on.then(|| place_value(&super::join_parts(&[p.value.clone(), doc.text(j).to_string()]))).flatten() {
        Some(v) => Found { value: v, lines: vec![l, j], conf: doc.conf(&[l, j]), label_line: p.label_line },
        None => p,
    };
    ends_with_province(&whole.value).then_some(whole)
}

/// The place of residence: the rest of its label's line and up to two lines after it.
fn address(doc: &Doc, side: Side) -> Option<PrintedField> {
    let block = match side {
        Side::Front => residence_beside_expiry(doc)?,
        Side::Back => doc.block("address", 2, |j| date_line(doc, j), |_| false)?,
    };
    let parts: Vec<String> = block.value.iter().map(|p| vn_place_text(p)).collect();
    let address = with_cut_province(&with_province_restored(&without_closing_stop(&super::join_parts(&parts))))?;
    (!address.is_empty() && !foreign_to_vietnamese(&address) && !marks_inside_a_word(&address) && ends_with_province(&address)).then(|| field("address", block.with(address), FieldCheck::NotApplicable))
}

/// The front's place of residence, as [`Doc::block`] reads it (the rest of its label's line
/// and up to two lines after it, to the next label), past the expiry beside it. The chip
/// card (and the 2016 card) prints "Có giá trị đến: 12/05/2041" ("Date of expiry" under
/// it) at the bottom left, under the portrait, beside the residence's second line on the
/// right; Tesseract reads the two into one line, the expiry first, or the expiry's line
/// between the residence's. On such a line (see [`beside_expiry`]) the residence's part is
/// what follows the expiry, and a line holding only the expiry is passed over (at most
/// two), the residence going on after it.
fn residence_beside_expiry(doc: &Doc) -> Option<Found<Vec<String>>> {
    let (i, h) = (0..doc.len()).find_map(|i| doc.hits(i).iter().position(|x| x.key == "address").map(|h| (i, h)))?;
    let mut parts = Vec::new();
    let mut lines = Vec::new();
    let first = clean(doc.segment(i, h));
    if !first.is_empty() {
        parts.push(first);
        lines.push(i);
    }
    let (mut last, mut passed) = (i, 0);
    for j in i + 1..doc.len() {
        if j > i + 2 + passed || doc.gap(last, j) {
            break;
        }
        let (part, ends) = match beside_expiry(doc, j) {
            Some(Some(rest)) => (rest, doc.hits(j).iter().any(|x| x.key != "expiry_date")),
            Some(None) if passed < 2 => {
                // No gap counted across it: the expiry stands beside the residence.
                passed += 1;
                last = j;
                continue;
            }
            Some(None) => break,
            None => {
                let pre = left_of_column_trimmed(doc, i, j, &clean(doc.before_labels(j)))?;
                // Past the expiry's line lies the card's bottom edge: a line there is the
                // residence's only when it reads as a place, clearly (not the background).
                if passed > 0 && !pre.is_empty() && !(place_part(&pre) && doc.conf(&[j]) >= 0.5) {
                    break;
                }
                (pre, !doc.hits(j).is_empty())
            }
        };
        if !part.is_empty() {
            if super::noise_part(&part) {
                // A line of the residence read as noise: not the residence printed.
                return None;
            }
            parts.push(part);
            lines.push(j);
            last = j;
        }
        if ends {
            break;
        }
    }
    (!parts.is_empty()).then(|| Found { conf: doc.conf(&lines), value: parts, lines, label_line: Some(i) })
}

/// Whether line `j` holds the front's expiry (its label opening the line, or a date on a
/// line without labels: the expiry's label unread or misread past matching), and then the
/// residence's part read after it: what follows the expiry's date (or its "Không thời
/// hạn", or its label where neither was read) when that reads as a place (`None` when
/// nothing does: the line is the expiry's alone). What stands before a date is the
/// expiry's label, whatever it reads ("Cé giá trj đén:"): the residence is right of it.
fn beside_expiry(doc: &Doc, j: usize) -> Option<Option<String>> {
    let hits = doc.hits(j);
    let after_label = match hits.first() {
        // A misread first word of the label ("Cé" of "Có giá trị đến") may stand before it.
        Some(x) if x.key == "expiry_date" && doc.before_labels(j).chars().filter(|c| c.is_alphabetic()).count() < 4 => doc.segment(j, 0),
        Some(_) => return None,
        // The expiry's value alone on its line, "Không thời hạn" (its label unread):
        // the residence's part is what follows it, as after a date.
        None if extract_date(doc.text(j)).is_some() || super::label_matches(doc.text(j), "Không thời hạn") => doc.text(j),
        None => return None,
    };
    let rest = match after_date(after_label) {
        Some(rest) => rest,
        None => match super::find_label(after_label, "Không thời hạn") {
            Some((_, end, _)) => after_label.get(end..).unwrap_or(""),
            None => after_label,
        },
    };
    let rest = vn_place_text(rest);
    Some(place_part(&rest).then_some(rest))
}

/// Whether `s` reads as a part of a place: a word of letters ("Quận 1"; an unreadable
/// date, "12/O5/2O4l", has none), no letters outside Vietnamese's, no piece of a label
/// ("Date o").
fn place_part(s: &str) -> bool {
    let worded = s.split_whitespace().any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2 && w.chars().all(|c| c.is_alphabetic() || ",.;:".contains(c)));
    worded && !foreign_to_vietnamese(s) && !label_fragment(s)
}

/// The text after the first date in `s` (`None` without one).
fn after_date(s: &str) -> Option<&str> {
    let date = extract_date(s)?;
    s.char_indices().map(|(b, c)| b + c.len_utf8()).find_map(|end| {
        let (head, tail) = (s.get(..end)?, s.get(end..)?);
        (extract_date(head).as_ref() == Some(&date) && !tail.starts_with(|c: char| c.is_ascii_digit())).then_some(tail)
    })
}

/// The expiry date, none on a card valid for life: its expiry reads "Không thời hạn" (no
/// time limit), which no other value on the card does, and a date OCR reads near it is
/// another date (the issue date under labels read as a column before their values).
fn expiry_date(doc: &Doc) -> Option<Found<String>> {
    if valid_for_life(doc) {
        return None;
    }
    doc.labelled_date("expiry_date", 1)
}

/// Whether the card reads "Không thời hạn" (no time limit) for its expiry.
fn valid_for_life(doc: &Doc) -> bool {
    (0..doc.len()).any(|i| super::label_matches(doc.text(i), "Không thời hạn"))
}

/// The 2024 back's issue and expiry labels read one above the other with no date on
/// either, their values on the two lines after them ("Ngày, tháng, năm cấp / Date of
/// issue", "Ngày, tháng, năm hết hạn / Date of expiry", "01/07/2024", "01/07/2049": the
/// labels read as a column before the values). `None` when the labels are not so read or
/// fewer than two values follow them (one date under the expiry's label, the issue's
/// value lost, is the expiry: `the_2024_cards_back`); else the issue and expiry dates, in
/// the values' order: the issue date first and earlier, or the issue date then "Không
/// thời hạn"; two dates out of that order, neither.
#[allow(clippy::type_complexity)]
fn stacked_issue_and_expiry(doc: &Doc) -> Option<(Option<Found<String>>, Option<Found<String>>)> {
    let i = (0..doc.len()).find(|&i| {
        doc.has(i, "issue_date") && doc.has(i + 1, "expiry_date") && extract_date(doc.text(i)).is_none() && extract_date(doc.text(i + 1)).is_none()
    })?;
    let (first, second) = (i + 2, i + 3);
    let value = |j: usize| (doc.hits(j).is_empty()).then(|| extract_date(doc.text(j))).flatten();
    let found = |value: String, j: usize, label: usize| Found { value, lines: vec![j], conf: doc.conf(&[j]), label_line: Some(label) };
    let key = |d: &str| [6..10, 3..5, 0..2].map(|r| d.get(r).unwrap_or("").to_string());
    Some(match (value(first), value(second)) {
        (Some(a), Some(b)) if key(&a) < key(&b) => (Some(found(a, first, i)), Some(found(b, second, i + 1))),
        (Some(_), Some(_)) => (None, None),
        (Some(a), None) if super::label_matches(doc.text(second), "Không thời hạn") => (Some(found(a, first, i)), None),
        // One date after the two labels: its box tells whose it is (see `stacked_row`).
        (Some(a), None) => match stacked_row(doc, first, i, i + 1) {
            Some(StackedRow::Issue) => (Some(found(a, first, i)), None),
            Some(StackedRow::Expiry) => (None, (!valid_for_life(doc)).then(|| found(a, first, i + 1))),
            None => (None, None),
        },
        _ => return None,
    })
}

enum StackedRow {
    Issue,
    Expiry,
}

/// Whose value the one date read after the 2024 back's issue and expiry labels (lines
/// `issue` above `expiry`) is, by its box: where the card prints each date beside its
/// label, Tesseract may read the labels' column before the values', and the one date
/// read (the other lost, or a "Không thời hạn" not read) is the issue date on the issue
/// label's row, the expiry on the expiry's. A date under the expiry label is its value
/// (the issue's value, between the labels, lost); one centred between the labels, under
/// the issue label, the issue's. A date on both rows or neither, above the labels, or lines without
/// boxes: no telling (`None`), and neither date is given.
fn stacked_row(doc: &Doc, date: usize, issue: usize, expiry: usize) -> Option<StackedRow> {
    let (d, a, b) = (doc.lines.get(date)?, doc.lines.get(issue)?, doc.lines.get(expiry)?);
    if d.height == 0 || a.height == 0 || b.height == 0 {
        return None;
    }
    let top = |l: &super::Line| u64::from(l.y);
    let bottom = |l: &super::Line| u64::from(l.y) + u64::from(l.height);
    if bottom(a) > top(b) {
        return None;
    }
    // A box over the better part of both rows is on neither.
    let overlap = |l: &super::Line| bottom(d).min(bottom(l)).saturating_sub(top(d).max(top(l)));
    if 2 * overlap(a) > u64::from(a.height) && 2 * overlap(b) > u64::from(b.height) {
        return None;
    }
    // Twice the date's vertical centre, against twice each label's top and bottom.
    let centre2 = top(d) + bottom(d);
    let on_row = |l: &super::Line| centre2 >= 2 * top(l) && centre2 <= 2 * bottom(l);
    match (on_row(a), on_row(b)) {
        (true, false) => Some(StackedRow::Issue),
        (false, true) => Some(StackedRow::Expiry),
        (true, true) => None,
        (false, false) if top(d) >= bottom(b) => Some(StackedRow::Expiry),
        (false, false) if centre2 > 2 * bottom(a) && centre2 < 2 * top(b) => Some(StackedRow::Issue),
        (false, false) => None,
    }
}

pub(crate) fn parse(doc: &Doc, side: Side) -> Vec<PrintedField> {
    let mut out = Vec::new();
    let na = FieldCheck::NotApplicable;
    if side == Side::Back {
        let (issue, expiry) = stacked_issue_and_expiry(doc).unwrap_or_else(|| {
            let issue = doc.labelled_date("issue_date", 1).or_else(|| {
                (0..doc.len()).find_map(|i| written_date(doc.text(i)).map(|d| Found { value: d, lines: vec![i], conf: doc.conf(&[i]), label_line: None }))
            });
            // The 2024 card (Căn cước) prints the place of residence and the expiry on its back.
            (issue, expiry_date(doc))
        });
        if let Some(d) = issue {
            out.push(field("issue_date", d, FieldCheck::Passed));
        }
        if let Some(d) = expiry {
            out.push(field("expiry_date", d, FieldCheck::Passed));
        }
        out.extend(address(doc, side));
        return out;
    }
    let dob = doc.labelled_date("dob", 1);
    let gender = doc.labelled("gender", 1, |s, _| vn_gender(s));
    if let Some(id) = find_id(doc) {
        let check = if id.value.len() == 12 {
            cccd_consistency(&id.value, dob.as_ref().map(|d| d.value.as_str()), gender.as_ref().map(|g| g.value)).check()
        } else {
            na
        };
        out.push(field("id", id, check));
    }
    if let Some(n) = doc.labelled("name", 2, |s, _| name_value(s).and_then(|n| without_name_label_words(&n)).map(|n| with_family_name_restored(&vn_text(&n)))) {
        out.push(field("name", n, na));
    }
    if let Some(d) = dob {
        out.push(field("dob", d, FieldCheck::Passed));
    }
    if let Some(g) = gender {
        out.push(field("gender", Found { value: g.value.to_string(), lines: g.lines, conf: g.conf, label_line: g.label_line }, na));
    }
    if let Some(n) = doc.labelled("nationality", 1, |s, _| vn_nationality(s)) {
        out.push(field("nationality", n, na));
    }
    if let Some(p) = place_of_origin(doc) {
        out.push(field("place_of_origin", p, na));
    }
    out.extend(address(doc, side));
    if let Some(d) = expiry_date(doc) {
        out.push(field("expiry_date", d, FieldCheck::Passed));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;

    const CHIP: [&str; 16] = [
        "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM",
        "Độc lập - Tự do - Hạnh phúc",
        "SOCIALIST REPUBLIC OF VIET NAM",
        "Independence - Freedom - Happiness",
        "CĂN CƯỚC CÔNG DÂN",
        "Citizen Identity Card",
        "Số / No.: 079090001234",
        "Họ và tên / Full name:",
        "NGUYỄN VĂN AN",
        "Ngày sinh / Date of birth: 01/01/1990",
        "Giới tính / Sex: Nam   Quốc tịch / Nationality: Việt Nam",
        "Quê quán / Place of origin:",
        "Tân Chánh, Cần Đước, Long An",
        "Nơi thường trú / Place of residence: 12 Lê Lợi",
        "Phường Bến Nghé, Quận 1, TP Hồ Chí Minh",
        "Có giá trị đến: 01/01/2030",
    ];

    #[test]
    fn a_place_keeps_to_vietnamese_letters_and_names_its_province_in_full() {
        use super::place_value;
        // Misreads along a shadow's edge: letters Vietnamese has not, a symbol.
        assert_eq!(place_value("Quảng PWU, QuaW@ Xương, Thanh Hóa"), None);
        assert_eq!(place_value("Quảng Phú, Quảng Xương, Thanh Hóa").as_deref(), Some("Quảng Phú, Quảng Xương, Thanh Hóa"));
        // A stray short word after the province is cut; after any other last part it stays.
        assert_eq!(place_value("Láng Hạ, Đống Đa, Hà Nội i").as_deref(), Some("Láng Hạ, Đống Đa, Hà Nội"));
        assert_eq!(place_value("Phú Mậu, Phú Vang, Thừa Thiên Hue ii").as_deref(), Some("Phú Mậu, Phú Vang, Thừa Thiên Huế"));
        assert_eq!(place_value("Láng Hạ, Đống Đa, Hà Nội").as_deref(), Some("Láng Hạ, Đống Đa, Hà Nội"));
        assert_eq!(place_value("Láng Hạ, Đống Đa i").as_deref(), Some("Láng Hạ, Đống Đa i"));
        assert_eq!(place_value("Láng Hạ, Hà Nội abc").as_deref(), Some("Láng Hạ, Hà Nội abc"));
        assert_eq!(place_value("Ea Tu, Buôn Ma Thuột, Đắk Lắk").as_deref(), Some("Ea Tu, Buôn Ma Thuột, Đắk Lắk"));
        assert_eq!(place_value("12/3A Lê Lợi, P. Bến Nghé (Q.1), Hồ Chí Minh").as_deref(), Some("12/3A Lê Lợi, P. Bến Nghé (Q.1), Hồ Chí Minh"));
        // A province cut short: completed where one province starts so, else not given.
        assert_eq!(place_value("Hải Minh, Hải Hậu, Nam Đi").as_deref(), Some("Hải Minh, Hải Hậu, Nam Định"));
        assert_eq!(place_value("Hải Minh, Hải Hậu, Nam Đị").as_deref(), Some("Hải Minh, Hải Hậu, Nam Định"));
        // What a place of origin or residence given whole ends with: a province, after
        // its unit's word or not, a later or earlier one too; never a district, specks
        // or a street (seed 25's "Ấp Xã, Hnn, Khh").
        use super::ends_with_province;
        for whole in ["Láng Hạ, Đống Đa, Hà Nội", "Xã Tân Chánh, Huyện Cần Đước, Tỉnh Long An", "12 Lê Lợi, TP. Hồ Chí Minh", "Phường Thuận Hóa, Thành phố Huế", "Thạch Thất, Hà Tây", "Ea Tu, Buôn Ma Thuột, Đắk Lắk.", "Dong Anh, Ha Noi"] {
            assert!(ends_with_province(whole), "{whole}");
        }
        for cut in ["Ấp Xã, Hnn, Khh", "12 Lê Lợi", "Láng Hạ, Đống Đa", "Láng Hạ, Đống Đa i", "Tỉnh", "Hải Minh, Hải Hậu, Nam Đi"] {
            assert!(!ends_with_province(cut), "{cut}");
        }
        assert_eq!(place_value("Quảng Phú, Quảng Xương, Quảng"), None);
        assert_eq!(place_value("Quảng Phú, Quảng Xương, Thanh"), None);
        assert_eq!(place_value("Hải Minh, Hải Hậu, Nam"), None);
        assert_eq!(place_value("Hai Minh, Hai Hau, Nam Di"), None);
        assert_eq!(place_value("Quảng Phú, Quảng Xương, Thanh Hóa").as_deref(), Some("Quảng Phú, Quảng Xương, Thanh Hóa"));
        assert_eq!(place_value("Hải Minh, Hải Hậu, Hà Nam").as_deref(), Some("Hải Minh, Hải Hậu, Hà Nam"));
        // A province that lost its marks gets them back; one spelled otherwise stays.
        assert_eq!(place_value("Phú Mậu, Phú Vang, Thừa Thiên Hue").as_deref(), Some("Phú Mậu, Phú Vang, Thừa Thiên Huế"));
        assert_eq!(place_value("Đình Bảng, Từ Sơn, Bac Ninh").as_deref(), Some("Đình Bảng, Từ Sơn, Bắc Ninh"));
        // A reading without any marks (Tesseract's English model) stays one: no half-marked value.
        assert_eq!(place_value("Hai Thanh, Hai Hau, Nam Dinh").as_deref(), Some("Hai Thanh, Hai Hau, Nam Dinh"));
        assert_eq!(place_value("Quảng Phú, Quảng Xương, Thanh Hoá").as_deref(), Some("Quảng Phú, Quảng Xương, Thanh Hoá"));
        assert_eq!(place_value("Phú Thượng, Tây Hồ, Hà Nội").as_deref(), Some("Phú Thượng, Tây Hồ, Hà Nội"));
        assert_eq!(place_value("Phú Thượng, Tây Hồ, Ha Noi Moi").as_deref(), Some("Phú Thượng, Tây Hồ, Ha Noi Moi"));
        assert_eq!(place_value("Nam Dinh").as_deref(), Some("Nam Dinh"));
        // The label's own English half read as the value (a card at an angle).
        assert_eq!(place_value("Place o"), None);
        assert_eq!(place_value("origin"), None);
        assert_eq!(place_value("thường trú"), None);
        assert_eq!(place_value("Place of residence"), None);
        assert_eq!(place_value("Plá"), None);
        assert_eq!(place_value("Phú Mậu").as_deref(), Some("Phú Mậu"));
        // The address (place of residence) the same way.
        let mut l: Vec<&str> = CHIP.to_vec();
        if let Some(i) = l.iter().position(|t| t.starts_with("Nơi thường trú")) {
            l.truncate(i + 1);
            l.push("Phường Vĩnh Ninh, TP. Huế, Thừa Thiên Hue");
            l.push("Có giá trị đến: 01/01/2030");
            let f = parse_printed("vn.national_id", Side::Front, &lines(&l));
            assert_eq!(value(&f, "address"), Some("12 Lê Lợi, Phường Vĩnh Ninh, TP. Huế, Thừa Thiên Huế"), "{f:#?}");
        } else {
            panic!("the fixture has a place of residence line");
        }
    }

    #[test]
    fn chip_front_clean() {
        let l = lines(&CHIP);
        let f = parse_printed("vn.national_id", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "079090001234", FieldCheck::Passed),
                ("name", "NGUYỄN VĂN AN", FieldCheck::NotApplicable),
                ("dob", "01/01/1990", FieldCheck::Passed),
                ("gender", "M", FieldCheck::NotApplicable),
                ("nationality", "Việt Nam", FieldCheck::NotApplicable),
                ("place_of_origin", "Tân Chánh, Cần Đước, Long An", FieldCheck::NotApplicable),
                ("address", "12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh", FieldCheck::NotApplicable),
                ("expiry_date", "01/01/2030", FieldCheck::Passed),
            ],
        );
        assert_eq!(get(&f, "address").map(|x| x.lines.clone()), Some(vec![13, 14]));
        assert_eq!(get(&f, "nationality").map(|x| x.lines.clone()), Some(vec![10]));
        let c = classify(&l);
        assert_eq!(c.first().map(|x| x.0), Some("vn.national_id"), "{c:?}");
        assert!(c.iter().all(|x| x.0 != "in.aadhaar" && x.0 != "in.pan"), "{c:?}");
    }

    #[test]
    fn chip_front_without_diacritics_and_noisy() {
        // eng model: diacritics dropped, "rn" for "m", an O in the number, "Nu", dashes,
        // the address on the lines after its label.
        let l = lines(&[
            "CONG HOA XA HOI CHU NGHIA VIET NAM",
            "Doc lap - Tu do - Hanh phuc",
            "CAN CUOC CONG DAN",
            "So / No: 0013O1012345",
            "Ho va ten / Full narne",
            "NGUYEN THI BICH",
            "Ngay sinh / Date of birth 05-11-2001",
            "Gioi tinh / Sex: Nu   Quoc tich / Nationality: VIET NAM",
            "Que quan / Place of origin: Dong Anh, Ha Noi",
            "Noi thuong tru / Place of residence:",
            "So 5 ngo 10 Pho Hue,",
            "Hai Ba Trung, Ha Noi",
            "Co gia tri den: 05/11/2026",
        ]);
        let f = parse_printed("vn.national_id", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "001301012345", FieldCheck::Passed),
                ("name", "NGUYEN THI BICH", FieldCheck::NotApplicable),
                ("dob", "05/11/2001", FieldCheck::Passed),
                ("gender", "F", FieldCheck::NotApplicable),
                ("nationality", "Việt Nam", FieldCheck::NotApplicable),
                ("place_of_origin", "Dong Anh, Ha Noi", FieldCheck::NotApplicable),
                ("address", "So 5 ngo 10 Pho Hue, Hai Ba Trung, Ha Noi", FieldCheck::NotApplicable),
                ("expiry_date", "05/11/2026", FieldCheck::Passed),
            ],
        );
        assert!(get(&f, "id").is_some_and(|x| x.confidence < 0.9));
        let c = classify(&l);
        assert_eq!(c.first().map(|x| x.0), Some("vn.national_id"), "{c:?}");
        assert!(c.iter().all(|x| x.0 != "in.aadhaar" && x.0 != "in.pan"), "{c:?}");
    }

    /// A place of origin too long for one line (the 2016 card writes "Xã …, Huyện …, Tỉnh …")
    /// goes on over the next line. Must-fail: a place that does not end with a comma is
    /// whole, and the line under it (the expiry's label beside the portrait, half read) no
    /// part of it.
    #[test]
    fn a_place_of_origin_over_two_lines_is_read_whole() {
        let mut l: Vec<&str> = CHIP.to_vec();
        l[12] = "Xã Tân Chánh, Huyện Cần Đước,";
        l.insert(13, "Tỉnh Long An");
        let f = parse_printed("vn.national_id", Side::Front, &lines(&l));
        assert_eq!(value(&f, "place_of_origin"), Some("Xã Tân Chánh, Huyện Cần Đước, Tỉnh Long An"), "{f:?}");
        assert_eq!(get(&f, "place_of_origin").map(|x| x.lines.clone()), Some(vec![12, 13]));
        assert_eq!(value(&f, "address"), Some("12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"));
        // A first letter read lowercase (Đ read "b"): a misread place, none.
        l[12] = "bình Bảng, Từ Sơn,";
        l[13] = "Bắc Ninh";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), None);
        l[12] = "Đình Bảng, Từ Sơn,";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), Some("Đình Bảng, Từ Sơn, Bắc Ninh"));
        // A full stop read after the province (seed 28, noise): a speck, dropped; a
        // stop inside the place ("TP. Huế") is print, kept.
        l[12] = "Đình Bảng, Từ Sơn, Bắc Ninh.";
        l[13] = "";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), Some("Đình Bảng, Từ Sơn, Bắc Ninh"));
        l[12] = "Vĩnh Ninh, TP. Huế, Thừa Thiên Huế";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), Some("Vĩnh Ninh, TP. Huế, Thừa Thiên Huế"));
        l[12] = "Đình Bảng, Từ Sơn,";
        l[13] = "Bắc Ninh";
        // A semicolon read for a comma (seed 17, noise): the comma.
        l[12] = "Đình Bảng; Từ Sơn,";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), Some("Đình Bảng, Từ Sơn, Bắc Ninh"));
        // A colon against a comma (seed 31, noise): a speck, the parts set apart as printed.
        l[12] = "Đình Bảng,:Từ Sơn,";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), Some("Đình Bảng, Từ Sơn, Bắc Ninh"));
        // Must-fail twin: a colon elsewhere is not taken for a comma.
        l[12] = "Đình Bảng:Từ Sơn,";
        assert_ne!(value(&parse_printed("vn.national_id", Side::Front, &lines(&l)), "place_of_origin"), Some("Đình Bảng, Từ Sơn, Bắc Ninh"));
        l[12] = "Đình Bảng, Từ Sơn,";
        l[12] = "Tân Chánh, Cần Đước, Long An";
        l[13] = "Cé giá";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&l));
        assert_eq!(value(&f, "place_of_origin"), Some("Tân Chánh, Cần Đước, Long An"), "{f:?}");
        // A speck before it read as a sign (seed 27, noise): the place without it.
        l[12] = "© Tân Chánh, Cần Đước, Long An";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&l));
        assert_eq!(value(&f, "place_of_origin"), Some("Tân Chánh, Cần Đước, Long An"), "{f:?}");
    }

    /// The independent card set's chip card with a punched hole through its QR code (so
    /// its print alone is read): the portrait's lower edge read into the value lines as
    /// short words left of the labels' column ("đi", "2n XIN,"), and "Không thời hạn" (valid
    /// for life, its label unread) on a line under the residence. Must-fail: the place of
    /// origin is given without the mark; the residence, whose second line's first word
    /// left is the edge's too, is not given at all (never with a word added); the expiry's
    /// "Không thời hạn" is no part of it. Lines read at the labels' column are untouched.
    #[test]
    fn words_left_of_the_labels_column_and_the_expirys_phrase_are_no_place() {
        let at = |text: &str, x: u32, y: u32| TextLine { text: text.into(), confidence: 0.9, x, y, width: 500, height: 25 };
        let card = |residence_second: &str| {
            vec![
                at("CĂN CƯỚC CÔNG DÂN", 386, 184),
                at("Số/No: 074060717636", 320, 296),
                at("Họ và tên / Full name:", 323, 359),
                at("NGÔ THÀNH TRUNG", 323, 386),
                at("Quê quán / Place of origin:", 322, 508),
                at("đi Lộc Thọ, Nha Trang, Khánh Hòa", 37, 540),
                at("Nơi thường trú / Place of residence: Số 127 Bạch Đằng,", 323, 566),
                at(residence_second, 60, 600),
                at("Không thời hạn `", 47, 698),
            ]
        };
        let f = parse_printed("vn.national_id", Side::Front, &card("2n XIN, Phú Hòa, Thủ Dầu Một, Bình Dương"));
        assert_eq!(value(&f, "place_of_origin"), Some("Lộc Thọ, Nha Trang, Khánh Hòa"), "{f:?}");
        assert_eq!(value(&f, "address"), None, "{f:?}");
        let f = parse_printed("vn.national_id", Side::Front, &card("2n Phú Hòa, Thủ Dầu Một, Bình Dương"));
        assert_eq!(value(&f, "address"), Some("Số 127 Bạch Đằng, Phú Hòa, Thủ Dầu Một, Bình Dương"), "{f:?}");
        // Read at the labels' column, a short first word is the place's.
        let mut l = card("Phú Hòa, Thủ Dầu Một, Bình Dương");
        l[5] = at("Xã Lộc Thọ, Nha Trang, Khánh Hòa", 322, 540);
        l[7].x = 323;
        let f = parse_printed("vn.national_id", Side::Front, &l);
        assert_eq!(value(&f, "place_of_origin"), Some("Xã Lộc Thọ, Nha Trang, Khánh Hòa"), "{f:?}");
        assert_eq!(value(&f, "address"), Some("Số 127 Bạch Đằng, Phú Hòa, Thủ Dầu Một, Bình Dương"), "{f:?}");
    }

    /// The chip card's front (and the 2016 card's) prints its expiry ("Có giá trị đến:
    /// 12/05/2041", "Date of expiry" under it) at the bottom left, under the portrait,
    /// beside the place of residence's second line on the right: Tesseract reads them into
    /// one line, the expiry first, or the expiry's line between the residence's. Must-fail:
    /// the residence is read whole, without the expiry's label or date (its label read
    /// right, without diacritics, misread, or not at all), and the expiry is its own
    /// field. Not fired: the expiry's line alone (or an unreadable date on it) adds nothing to
    /// the residence; the 2024 card's back, whose expiry is no neighbour of the residence,
    /// reads as before.
    #[test]
    fn the_expiry_beside_the_residence_is_no_part_of_it() {
        let read = |tail: &[&str]| {
            let mut t: Vec<&str> = CHIP[..13].to_vec();
            t.extend(tail);
            let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
            (value(&f, "address").map(String::from), value(&f, "expiry_date").map(String::from), get(&f, "address").map(|x| x.lines.clone()))
        };
        let whole = Some("12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh".to_string());
        let expiry = Some("12/05/2041".to_string());
        let label = "Nơi thường trú / Place of residence: 12 Lê Lợi";
        let second = "Phường Bến Nghé, Quận 1, TP Hồ Chí Minh";
        assert_eq!(read(&[label, "Có giá trị đến: 12/05/2041 Phường Bến Nghé, Quận 1, TP Hồ Chí Minh", "Date of expiry"]), (whole.clone(), expiry.clone(), Some(vec![13, 14])));
        assert_eq!(
            read(&["Noi thuong tru / Place of residence: 12 Le Loi", "Co gia tri den: 12/05/2041 Phuong Ben Nghe, Quan 1, TP Ho Chi Minh"]),
            (Some("12 Le Loi, Phuong Ben Nghe, Quan 1, TP Ho Chi Minh".into()), expiry.clone(), Some(vec![13, 14]))
        );
        assert_eq!(read(&[label, "Cé giá trj đén: 12/05/2041 Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"]), (whole.clone(), expiry.clone(), Some(vec![13, 14])));
        assert_eq!(read(&[label, "Có giá trị đến / Date of expiry: 12/05/2041 Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"]).0, whole);
        // The label unread: the date, not the residence's, is left out (and no expiry without its label).
        assert_eq!(read(&[label, "12/05/2041 Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"]), (whole.clone(), None, Some(vec![13, 14])));
        assert_eq!(read(&[label, "C6 gia tr| den 12/05/2041 Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"]).0, whole);
        // The label beside the residence's second line, the date under it.
        assert_eq!(read(&[label, "Có giá trị đến: Phường Bến Nghé, Quận 1, TP Hồ Chí Minh", "Date of expiry: 12/05/2041"]), (whole.clone(), expiry.clone(), Some(vec![13, 14])));
        // The residence over three lines, the expiry beside the third.
        assert_eq!(
            read(&["Nơi thường trú / Place of residence:", "12 Lê Lợi, Phường Bến Nghé,", "Có giá trị đến: 12/05/2041 Quận 1, TP Hồ Chí Minh"]),
            (whole.clone(), expiry.clone(), Some(vec![14, 15]))
        );
        // The expiry's line read between the residence's.
        assert_eq!(read(&[label, "Có giá trị đến: 12/05/2041", second]), (whole.clone(), expiry.clone(), Some(vec![13, 15])));
        assert_eq!(read(&[label, "Có giá trị đến:", "Date of expiry", "12/05/2041 Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"]), (whole.clone(), expiry.clone(), Some(vec![13, 16])));
        // The residence's label beside the expiry's (the labels' row), its value under it.
        assert_eq!(
            read(&["Có giá trị đến: Nơi thường trú / Place of residence:", "Date of expiry", "12/05/2041 12 Lê Lợi, Phường Bến Nghé,", "Quận 1, TP Hồ Chí Minh"]),
            (whole.clone(), expiry.clone(), Some(vec![15, 16]))
        );
        // Valid for life.
        assert_eq!(read(&[label, "Có giá trị đến: Không thời hạn Phường Bến Nghé, Quận 1, TP Hồ Chí Minh"]), (whole.clone(), None, Some(vec![13, 14])));
        // The expiry's line alone, misread or unreadable, adds nothing.
        // (A residence on one line, whole: one cut short, "12 Lê Lợi", ends with no province
        // and is not given at all.)
        let one_line = "Nơi thường trú / Place of residence: 12 Lê Lợi, Quận 1, TP Hồ Chí Minh";
        let short = Some("12 Lê Lợi, Quận 1, TP Hồ Chí Minh".to_string());
        assert_eq!(read(&[one_line, "Cé giá trj đén: 12/05/2041"]), (short.clone(), expiry.clone(), Some(vec![13])));
        assert_eq!(read(&[one_line, "Có giá trị đến: 12/O5/2O4l"]).0, short);
        assert_eq!(read(&[one_line, "Có giá trị đến: 12/05/2041 Date o"]).0, short);
        assert_eq!(read(&[label, "Cé giá trj đén: 12/05/2041"]), (None, expiry.clone(), None));
        // Past the expiry's line (the card's bottom edge), the background read is no part.
        assert_eq!(read(&[one_line, "Có giá trị đến: 12/05/2041", "~Ặ ăn ii"]).0, short);
        assert_eq!(read(&[one_line, "Có giá trị đến: 12/05/2041", "Date of expiry", "@ 1 | ."]).0, short);
        // The 2024 back: the expiry's line ends the residence, as before.
        let back = ["Nơi cư trú / Place of residence: Số 12 Lê Lợi, Phường Hoàn Kiếm, Thành phố Hà Nội", "Ngày, tháng, năm hết hạn / Date of expiry: 01/07/2049", "IDVNM0900012343079090001234<<8"];
        let f = parse_printed("vn.national_id", Side::Back, &lines(&back));
        assert_eq!((value(&f, "address"), value(&f, "expiry_date")), (Some("Số 12 Lê Lợi, Phường Hoàn Kiếm, Thành phố Hà Nội"), Some("01/07/2049")), "{f:?}");
    }

    #[test]
    fn decomposed_diacritics_are_composed() {
        let mut t = CHIP;
        t[8] = "NGUYE\u{302}\u{303}N VA\u{306}N AN";
        t[12] = "Ta\u{302}n Cha\u{301}nh, Ca\u{302}\u{300}n Ðu\u{31B}o\u{31B}\u{301}c, Long An";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "name"), Some("NGUYỄN VĂN AN"));
        assert_eq!(value(&f, "place_of_origin"), Some("Tân Chánh, Cần Đước, Long An"));
    }

    #[test]
    fn names_close_to_labels_are_values() {
        // "HỒ VĂN TÂN" is two edits from "Họ và tên"; "Cần Đước" one from "Căn cước".
        let mut t = CHIP;
        t[8] = "HỒ VĂN TÂN";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "name"), Some("HỒ VĂN TÂN"));
        assert_eq!(value(&f, "place_of_origin"), Some("Tân Chánh, Cần Đước, Long An"));
    }

    #[test]
    fn old_cmnd_front() {
        let l = lines(&[
            "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM",
            "Độc lập - Tự do - Hạnh phúc",
            "GIẤY CHỨNG MINH NHÂN DÂN",
            "SỐ 025123456",
            "Họ tên: TRẦN VĂN BÌNH",
            "Sinh ngày: 12-03-1985",
            "Nguyên quán: Bình Chánh, TP Hồ Chí Minh",
            "Nơi ĐKHK thường trú: 34 Nguyễn Trãi",
            "Quận 5, TP Hồ Chí Minh",
        ]);
        let f = parse_printed("vn.national_id", Side::Front, &l);
        assert_fields(
            &f,
            &[
                ("id", "025123456", FieldCheck::NotApplicable),
                ("name", "TRẦN VĂN BÌNH", FieldCheck::NotApplicable),
                ("dob", "12/03/1985", FieldCheck::Passed),
                ("place_of_origin", "Bình Chánh, TP Hồ Chí Minh", FieldCheck::NotApplicable),
                ("address", "34 Nguyễn Trãi, Quận 5, TP Hồ Chí Minh", FieldCheck::NotApplicable),
            ],
        );
        assert_eq!(best_type(&l), Some("vn.national_id"));
    }

    #[test]
    fn backs() {
        let l = lines(&[
            "Đặc điểm nhân dạng / Personal identification:",
            "Nốt ruồi C:1cm trên sau đuôi mắt trái",
            "Ngày, tháng, năm / Date, month, year: 15/06/2021",
            "CỤC TRƯỞNG CỤC CẢNH SÁT",
            "QUẢN LÝ HÀNH CHÍNH VỀ TRẬT TỰ XÃ HỘI",
            "Ngón trỏ trái",
            "Ngón trỏ phải",
            "IDVNM0900012343079090001234<<8",
            "9001014M3001012VNM<<<<<<<<<<<4",
            "NGUYEN<<VAN<AN<<<<<<<<<<<<<<<<",
        ]);
        let f = parse_printed("vn.national_id", Side::Back, &l);
        assert_fields(&f, &[("issue_date", "15/06/2021", FieldCheck::Passed)]);
        assert_eq!(best_type(&l), Some("vn.national_id"));
        let l = lines(&["Ngay, thang, nam / Date, month, year:", "15/06/2021"]);
        assert_eq!(value(&parse_printed("vn.national_id", Side::Back, &l), "issue_date"), Some("15/06/2021"));
        let l = lines(&["DAN TOC: Kinh", "Ngày 15 tháng 06 năm 2010", "GIÁM ĐỐC CA TỈNH"]);
        assert_eq!(value(&parse_printed("vn.national_id", Side::Back, &l), "issue_date"), Some("15/06/2010"));
    }

    /// The 2024 card's front (Căn cước): "Số định danh cá nhân / Personal identification
    /// number" over the number, "Họ, chữ đệm và tên khai sinh" and an English half over
    /// the name, "Ngày, tháng, năm sinh / Date of birth" (not the back's issue label), each
    /// value under its label; read with and without diacritics. Pins what the parser
    /// already does; no place of origin, residence or expiry on this side.
    #[test]
    fn the_2024_cards_front() {
        let front = [
            "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM",
            "CĂN CƯỚC",
            "Số định danh cá nhân / Personal identification number",
            "001090001234",
            "Họ, chữ đệm và tên khai sinh / Surname, middle name and given name",
            "NGUYỄN VĂN AN",
            "Ngày, tháng, năm sinh / Date of birth",
            "01/01/1990",
            "Giới tính / Sex",
            "Nam",
            "Quốc tịch / Nationality",
            "Việt Nam",
        ];
        let want = |name| {
            [
                ("id", "001090001234", FieldCheck::Passed),
                ("name", name, FieldCheck::NotApplicable),
                ("dob", "01/01/1990", FieldCheck::Passed),
                ("gender", "M", FieldCheck::NotApplicable),
                ("nationality", "Việt Nam", FieldCheck::NotApplicable),
            ]
        };
        assert_fields(&parse_printed("vn.national_id", Side::Front, &lines(&front)), &want("NGUYỄN VĂN AN"));
        // Read without diacritics, the name label's English half as "Full name".
        let plain = [
            "CONG HOA XA HOI CHU NGHIA VIET NAM",
            "CAN CUOC",
            "So dinh danh ca nhan / Personal identification number",
            "001090001234",
            "Ho, chu dem va ten khai sinh / Full name",
            "NGUYEN VAN AN",
            "Ngay, thang, nam sinh / Date of birth",
            "01/01/1990",
            "Gioi tinh / Sex",
            "Nam",
            "Quoc tich / Nationality",
            "Viet Nam",
        ];
        assert_fields(&parse_printed("vn.national_id", Side::Front, &lines(&plain)), &want("NGUYEN VAN AN"));
    }

    /// The 2024 card's name label, "Họ, chữ đệm và tên khai sinh / Full name", read in
    /// capitals as its print often is, its English half (or its tail, "khai sinh") read on a
    /// line of its own and misread past matching ("EULL NANIE"), or cut ("… / Full" over
    /// "NAME"). Must-fail: the label's own words are never the name; the name under them is,
    /// as printed (capitals; the worker writes it as the QR does). Not fired: names made of
    /// the label's Vietnamese syllables ("HỒ VĂN TÂN", "NGUYỄN KHẢI SINH", "LÊ NAM").
    #[test]
    fn a_family_name_gets_back_the_marks_the_reading_lost() {
        use super::with_family_name_restored as restored;
        assert_eq!(restored("NGUYÊN QUANG BÌNH"), "NGUYỄN QUANG BÌNH");
        assert_eq!(restored("Nguyên Quang Bình"), "Nguyễn Quang Bình");
        assert_eq!(restored("TRAN VĂN AN"), "TRẦN VĂN AN");
        // Marks as printed, marks added or changed, a reading without any, another word,
        // a name no common family name spells: all left as read.
        for name in ["NGUYỄN QUANG BÌNH", "NGUYẾN VĂN AN", "TRÁN VĂN AN", "NGUYEN VAN AN", "THẢO NGUYÊN", "NGUYÊNH VĂN AN", "HÀ VĂN AN"] {
            assert_eq!(restored(name), name);
        }
    }

    #[test]
    fn the_name_labels_own_words_are_no_name() {
        let read = |label: &[&str], name: &str| {
            let mut t = vec!["CĂN CƯỚC", "IDENTITY CARD", "Số định danh cá nhân / Personal identification number", "001090001234"];
            t.extend(label);
            t.extend([name, "Ngày, tháng, năm sinh / Date of birth: 01/01/1990", "Giới tính / Sex: Nam", "Quốc tịch / Nationality: Việt Nam"]);
            let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
            (value(&f, "name").map(String::from), get(&f, "name").map(|x| x.lines.clone()))
        };
        let at = |line: usize, name: &str| (Some(name.to_string()), Some(vec![line]));
        let an = "NGUYỄN VĂN AN";
        assert_eq!(read(&["HỌ, CHỮ ĐỆM VÀ TÊN KHAI SINH / FULL NAME"], an), at(5, an));
        assert_eq!(read(&["HỌ, CHỮ ĐỆM VÀ TÊN KHAI SINH", "FULL NAME"], an), at(6, an));
        assert_eq!(read(&["HỌ, CHỮ ĐỆM VÀ TÊN KHAI SINH", "EULL NANIE"], an), at(6, an));
        assert_eq!(read(&["HO, CHU DEM VA TEN KHAI SINH", "FUIL NARNF"], "NGUYEN VAN AN"), at(6, "NGUYEN VAN AN"));
        assert_eq!(read(&["Họ, chữ đệm và tên khai sinh / Full name", "~KHAI SINH"], an), at(6, an));
        assert_eq!(read(&["Họ, chữ đệm và tên khai sinh / Full name", "TÊN KHAI SINH"], an), at(6, an));
        assert_eq!(read(&["Họ, chữ đệm và tên khai sinh / Full", "NAME"], an), at(6, an));
        assert_eq!(read(&["Họ, chữ đệm và tên khai sinh / Full"], an), at(5, an));
        // The English half run into the name on its line: the name without it.
        assert_eq!(read(&["HỌ, CHỮ ĐỆM VÀ TÊN KHAI SINH"], "EULL NANIE NGUYỄN VĂN AN"), at(5, an));
        // The 2021 card's label the same way.
        assert_eq!(read(&["HỌ VÀ TÊN", "EULL NANIE"], an), at(6, an));
        // Names of the label's syllables are names.
        for name in ["HỒ VĂN TÂN", "NGUYỄN KHẢI SINH", "LÊ NAM", "TRẦN THỊ KHAI", "CHU VĂN SINH", "TRỊNH THANH LINH", "THỊNH VĂN AN"] {
            assert_eq!(read(&["HỌ, CHỮ ĐỆM VÀ TÊN KHAI SINH / FULL NAME"], name), at(5, name));
        }
        // Only the label's words under it: no name.
        let mut t = vec!["CĂN CƯỚC", "Họ, chữ đệm và tên khai sinh", "EULL NANIE", "~KHAI SINH"];
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "name"), None, "{f:?}");
        t.truncate(3);
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "name"), None, "{f:?}");
    }

    /// The 2024 card (Căn cước) moved the place of residence and the issue and expiry dates
    /// to its back. Must-fail: the expiry's "Ngày, tháng, năm hết hạn" is no issue date, even
    /// with the issue date itself unread.
    #[test]
    fn the_2024_cards_back() {
        let back = [
            "Nơi cư trú / Place of residence: Số 12 Lê Lợi, Phường Bến Nghé,",
            "Quận 1, TP. Hồ Chí Minh",
            "Nơi đăng ký khai sinh / Place of birth: Long An",
            "Ngày, tháng, năm cấp / Date of issue",
            "01/07/2024",
            "Ngày, tháng, năm hết hạn / Date of expiry",
            "01/07/2049",
            "IDVNM0900012343079090001234<<8",
        ];
        let f = parse_printed("vn.national_id", Side::Back, &lines(&back));
        assert_fields(
            &f,
            &[
                ("issue_date", "01/07/2024", FieldCheck::Passed),
                ("expiry_date", "01/07/2049", FieldCheck::Passed),
                ("address", "Số 12 Lê Lợi, Phường Bến Nghé, Quận 1, TP. Hồ Chí Minh", FieldCheck::NotApplicable),
            ],
        );
        let mut lost = back.to_vec();
        lost.remove(4);
        let f = parse_printed("vn.national_id", Side::Back, &lines(&lost));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (None, Some("01/07/2049")), "{f:?}");
    }

    /// The 2024 card's issue and expiry labels read as a column before their values ("…
    /// Date of issue", "… Date of expiry", "01/07/2024", "01/07/2049"). Must-fail: the
    /// first date is the issue date, never the expiry; with the dates out of order, which is
    /// which is unknown and neither is given. Not fired: each label over its
    /// own value (`the_2024_cards_back`), one date under the labels (as there).
    #[test]
    fn issue_and_expiry_labels_read_before_their_values() {
        let back = ["Nơi cư trú / Place of residence: Số 12 Lê Lợi", "Ngày, tháng, năm cấp / Date of issue:", "Ngày, tháng, năm hết hạn / Date of expiry:", "01/07/2024", "01/07/2049"];
        let f = parse_printed("vn.national_id", Side::Back, &lines(&back));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (Some("01/07/2024"), Some("01/07/2049")), "{f:?}");
        assert_eq!(get(&f, "expiry_date").map(|x| x.lines.clone()), Some(vec![4]));
        let mut swapped = back;
        swapped.swap(3, 4);
        let f = parse_printed("vn.national_id", Side::Back, &lines(&swapped));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (None, None), "{f:?}");
        let mut life = back;
        life[4] = "Không thời hạn";
        let f = parse_printed("vn.national_id", Side::Back, &lines(&life));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (Some("01/07/2024"), None), "{f:?}");
    }

    /// The 2024 card's back as Tesseract reads it where the dates stand beside their labels
    /// (as boxes: the labels' column first, then the values'), one date of the two read:
    /// the issue and expiry labels one above the other, then the one date. Must-fail: a
    /// date on the issue label's row is the issue date, never the expiry (nor the other
    /// way round); a date on neither row nor under either label, or lines without boxes,
    /// give neither. Not fired: a date on the expiry label's row, or under the expiry
    /// label (its own value, the issue's lost: `the_2024_cards_back`), is the expiry.
    #[test]
    fn one_date_beside_stacked_issue_and_expiry_labels_goes_to_its_row() {
        let at = |text: &str, x: u32, y: u32| TextLine { text: text.into(), confidence: 0.9, x, y, width: 260, height: 22 };
        let labels = |date: TextLine| {
            vec![
                at("Nơi cư trú / Place of residence: Số 12 Lê Lợi, Phường Bến Nghé,", 40, 60),
                at("Quận 1, TP. Hồ Chí Minh", 40, 92),
                at("Ngày, tháng, năm cấp / Date of issue:", 40, 400),
                at("Ngày, tháng, năm hết hạn / Date of expiry:", 40, 436),
                date,
                at("IDVNM0900012343079090001234<<8", 30, 560),
            ]
        };
        let dates = |l: &[TextLine]| {
            let f = parse_printed("vn.national_id", Side::Back, l);
            (value(&f, "issue_date").map(String::from), value(&f, "expiry_date").map(String::from))
        };
        // On the issue label's row (the expiry's value lost, or a card valid for life whose
        // "Không thời hạn" was not read): the issue date.
        let f = parse_printed("vn.national_id", Side::Back, &labels(at("01/07/2024", 430, 401)));
        assert_eq!((value(&f, "issue_date"), value(&f, "expiry_date")), (Some("01/07/2024"), None), "{f:?}");
        assert_eq!(get(&f, "issue_date").map(|x| x.lines.clone()), Some(vec![4]));
        assert_eq!(value(&f, "address"), Some("Số 12 Lê Lợi, Phường Bến Nghé, Quận 1, TP. Hồ Chí Minh"));
        // Read without diacritics, the date a little lower than its label's box.
        let mut plain = labels(at("0l/07/2024", 432, 405));
        plain[2].text = "Ngay, thang, nam cap / Date of issue".into();
        plain[3].text = "Ngay, thang, nam het han / Date of expiry".into();
        assert_eq!(dates(&plain), (Some("01/07/2024".into()), None));
        // Between the two labels (printed under the issue label, read after both): the issue date.
        assert_eq!(dates(&labels(at("01/07/2024", 60, 422))), (Some("01/07/2024".into()), None));
        // On the expiry label's row, or under it: the expiry.
        assert_eq!(dates(&labels(at("01/07/2049", 430, 437))), (None, Some("01/07/2049".into())));
        assert_eq!(dates(&labels(at("01/07/2049", 40, 470))), (None, Some("01/07/2049".into())));
        // Above both labels (read out of order), or on both rows at once: no telling.
        assert_eq!(dates(&labels(at("01/07/2024", 430, 300))), (None, None));
        assert_eq!(dates(&labels(at("01/07/2024", 430, 395)).into_iter().map(|mut l| {
            l.height = if l.text.starts_with("01/") { 70 } else { l.height };
            l
        }).collect::<Vec<_>>()), (None, None));
        // No boxes (heights unknown): no telling either.
        let boxless: Vec<TextLine> = labels(at("01/07/2024", 430, 401)).into_iter().map(|l| TextLine { height: 0, ..l }).collect();
        assert_eq!(dates(&boxless), (None, None));
    }

    /// The 2024 card's front prints "Ngày, tháng, năm sinh / Date of birth" and "Giới tính /
    /// Sex" side by side, each over its value. Read as one row of labels over one row of
    /// values, the date goes to the date of birth and "Nam" to the sex; read as a column
    /// of labels before the values (Tesseract's blocks), the date of birth is not given
    /// rather than guessed. Pins what the parser already does.
    #[test]
    fn the_2024_fronts_date_of_birth_beside_the_sex_label() {
        let mut front = vec![
            "CĂN CƯỚC",
            "Số định danh cá nhân / Personal identification number",
            "001090001234",
            "Họ, chữ đệm và tên khai sinh / Full name",
            "NGUYỄN VĂN AN",
            "Ngày, tháng, năm sinh / Date of birth   Giới tính / Sex",
            "01/01/1990   Nam",
            "Quốc tịch / Nationality",
            "Việt Nam",
        ];
        let f = parse_printed("vn.national_id", Side::Front, &lines(&front));
        assert_eq!((value(&f, "dob"), value(&f, "gender"), check(&f, "id")), (Some("01/01/1990"), Some("M"), Some(FieldCheck::Passed)), "{f:?}");
        front.splice(5..7, ["Ngày, tháng, năm sinh / Date of birth", "Giới tính / Sex", "01/01/1990", "Nam"]);
        let f = parse_printed("vn.national_id", Side::Front, &lines(&front));
        assert_eq!((value(&f, "dob"), value(&f, "expiry_date"), value(&f, "issue_date")), (None, None, None), "{f:?}");
        assert_eq!(value(&f, "name"), Some("NGUYỄN VĂN AN"));
    }

    /// A card valid for life (its holder 60 or over) prints "Không thời hạn" (no time
    /// limit) for its expiry, on the front (CCCD) or the back (2024 card). Must-fail: the
    /// date OCR reads after it (the issue date under labels read as a column before their
    /// values) is no expiry. Not fired: a card with an expiry date gives it.
    #[test]
    fn no_time_limit_is_no_expiry_date() {
        let back = ["Ngày, tháng, năm cấp / Date of issue:", "Ngày, tháng, năm hết hạn / Date of expiry:", "01/07/2024", "Không thời hạn"];
        let f = parse_printed("vn.national_id", Side::Back, &lines(&back));
        assert_eq!(value(&f, "expiry_date"), None, "{f:?}");
        let f = parse_printed("vn.national_id", Side::Back, &lines(&["Ngày, tháng, năm hết hạn / Date of expiry: Không thời hạn"]));
        assert_eq!(value(&f, "expiry_date"), None, "{f:?}");
        let mut t = CHIP;
        t[15] = "Co gia tri den: Khong thoi han";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!((value(&f, "expiry_date"), value(&f, "dob")), (None, Some("01/01/1990")), "{f:?}");
        t[15] = "Có giá trị đến: 01/01/2030";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "expiry_date"), Some("01/01/2030"), "{f:?}");
    }

    #[test]
    fn id_inconsistent_with_dob_fails() {
        // 5th-6th digits 03 (and century digit 2: born 2000s) against a 1990 birth.
        let mut t = CHIP;
        t[6] = "Số / No.: 079203001234";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!((value(&f, "id"), check(&f, "id")), (Some("079203001234"), Some(FieldCheck::Failed)));
        // Same century, other year.
        t[6] = "Số / No.: 079091001234";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(check(&f, "id"), Some(FieldCheck::Failed));
        // Sex digit says female, the card says Nam.
        t[6] = "Số / No.: 079190001234";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(check(&f, "id"), Some(FieldCheck::Failed));
        // No date of birth read: nothing confirms it.
        let mut t = CHIP;
        t[9] = "Ngày sinh / Date of birth: 31/02/1990";
        let f = parse_printed("vn.national_id", Side::Front, &lines(&t));
        assert_eq!(value(&f, "dob"), None);
        assert_eq!(check(&f, "id"), Some(FieldCheck::NotApplicable));
    }

    /// Only Việt Nam: a label's fragment is no nationality, and a label run into the
    /// value still gives the value.
    #[test]
    fn the_nationality_is_viet_nam_or_nothing() {
        assert_eq!(super::vn_nationality("Việt Nam").as_deref(), Some("Việt Nam"));
        assert_eq!(super::vn_nationality("Viet Nan").as_deref(), Some("Việt Nam"));
        assert_eq!(super::vn_nationality("Natonalsy: Việt Nam").as_deref(), Some("Việt Nam"));
        assert_eq!(super::vn_nationality("Neguoaaley: Việt Nam").as_deref(), Some("Việt Nam"));
        assert_eq!(super::vn_nationality("National"), None);
        assert_eq!(super::vn_nationality("Quốc tịch"), None);
    }

    #[test]
    fn consistency_check() {
        let c = cccd_consistency("079090001234", Some("01/01/1990"), Some("M"));
        assert_eq!(c, CccdConsistency { well_formed: true, province: true, century_sex_digit: true, birth_year: Some(true), sex: Some(true) });
        assert_eq!(c.check(), FieldCheck::Passed);
        assert_eq!(cccd_consistency("001301012345", Some("05/11/2001"), Some("F")).check(), FieldCheck::Passed);
        assert_eq!(cccd_consistency("079203001234", Some("01/01/1990"), None).check(), FieldCheck::Failed);
        assert_eq!(cccd_consistency("097090001234", Some("01/01/1990"), None).check(), FieldCheck::Failed, "province 097");
        assert_eq!(cccd_consistency("000090001234", Some("01/01/1990"), None).check(), FieldCheck::Failed, "province 000");
        assert_eq!(cccd_consistency("079490001234", Some("01/01/1990"), None).check(), FieldCheck::Failed, "century digit 4");
        assert_eq!(cccd_consistency("07909000123", Some("01/01/1990"), None).check(), FieldCheck::Failed);
        assert_eq!(cccd_consistency("07909000123x", None, None).check(), FieldCheck::Failed);
        assert_eq!(cccd_consistency("079090001234", None, Some("M")).check(), FieldCheck::NotApplicable);
        assert_eq!(cccd_consistency("079090001234", None, Some("F")).check(), FieldCheck::Failed);
    }

    #[test]
    fn arbitrary_input_never_panics() {
        never_panics(&lines(&CHIP), ALPHABET, 71, 80);
    }

    /// A letter with a mark Vietnamese does not write on it is a misread: the place is not
    /// given (the independent card set's seed 7, a dark CCCD: "Hoäng Đạo" for "Hoằng Đạo").
    /// A chip card's front as seed 29's were read: its header and name rows (boxes as
    /// the page gave them), then `rows`.
    fn chip_front_headed(rows: &[(&str, u32, u32, u32, u32)]) -> Vec<TextLine> {
        let head = [
            ("CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM", 313, 933, 29, 61),
            ("CĂN CƯỚC CÔNG DÂN", 370, 878, 182, 223),
            ("Họ và tên / Full name:", 322, 535, 357, 377),
            ("DƯƠNG THỊ THỦY", 350, 637, 386, 420),
        ];
        boxed(&head.iter().chain(rows).copied().collect::<Vec<_>>())
    }

    /// The independent set's seed 29 chip card, punched beside the residence's label: the
    /// punch's rim read as a sign before it stretched that line's box up above the place
    /// of origin's line. Lines under a label are taken by their middles, so the place is
    /// read. Must-fail: a place line whose middle is below the residence's line stands
    /// under the residence's label, and is no place of origin.
    #[test]
    fn a_line_a_mark_stretched_upwards_stands_where_its_middle_is() {
        let page = |place: (u32, u32)| {
            chip_front_headed(&[
                ("Ngày sinh / Date of birth: 02/09/1962", 322, 706, 435, 460),
                ("Giới tính / Sex: Nữ Quốc tịch / Nationality: Việt Nam", 322, 1023, 474, 500),
                ("Quê quán / Place of origin:", 322, 579, 517, 540),
                ("Mỹ Bình, Long Xuyên, An Giang", 322, 735, place.0, place.1),
                ("® Nơi thường trú / Place of residence: Số 104 Lý Thường Kiệt,", 30, 970, 523, 617),
                ("Có giá trị đến: Hồng Gai, Hạ Long, Quảng Ninh", 41, 736, 620, 647),
            ])
        };
        let f = parse_printed("vn.national_id", Side::Front, &page((550, 577)));
        assert_eq!(value(&f, "place_of_origin"), Some("Mỹ Bình, Long Xuyên, An Giang"), "{f:?}");
        let f = parse_printed("vn.national_id", Side::Front, &page((575, 602)));
        assert_eq!(value(&f, "place_of_origin"), None, "{f:?}");
    }

    /// A speck read as a small letter before a place, left of the labels' column (seed
    /// 29's dark chip card: "è. Ninh Khánh, …" from x 284, the label at 320): no place's
    /// word starts lowercase, so it is dropped. Must-fail: a small letter read at the
    /// column is what a cut left of the place's first word, and the place is not given.
    #[test]
    fn a_speck_left_of_the_column_before_a_place_is_no_part_of_it() {
        let page = |place: &str, x: u32| {
            chip_front_headed(&[
                ("Quê quán / Place of origin:", 320, 594, 516, 540),
                (place, x, 793, 549, 577),
                ("Nơi thường trú / Place of residence: Số 113 Hai Bà Trưng,", 321, 989, 581, 614),
            ])
        };
        let f = parse_printed("vn.national_id", Side::Front, &page("è. Ninh Khánh, Ninh Bình, Ninh Bình", 284));
        assert_eq!(value(&f, "place_of_origin"), Some("Ninh Khánh, Ninh Bình, Ninh Bình"), "{f:?}");
        let f = parse_printed("vn.national_id", Side::Front, &page("h Ninh Khánh, Ninh Bình, Ninh Bình", 320));
        assert_eq!(value(&f, "place_of_origin"), None, "{f:?}");
    }

    /// A word with marks read inside it (a punch's edge: "N-.t ý" for "Nhơn Lý", seed 32)
    /// is no place's word; must-fail twins: marks between digits, after a word, alone.
    #[test]
    fn a_place_with_marks_inside_a_word_is_not_given() {
        assert!(super::marks_inside_a_word("Số 249 Quang Trung, N-.t ý, Quy Nhơn, Bình Định"));
        for printed in ["Số 12/3 Lê Lợi, Bến Nghé, Quận 1, Hồ Chí Minh", "Bà Rịa - Vũng Tàu", "Thôn 3, Ea Kar, Đắk Lắk.", "Số 4-6 Hàng Bạc, Hà Nội", "Cẩm Phô,, Hội An"] {
            assert!(!super::marks_inside_a_word(printed), "{printed}");
        }
        let mut chip = CHIP.to_vec();
        chip[12] = "Hoằng Đạo, H-.ng Hóa, Thanh Hóa";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&chip)), "place_of_origin"), None);
        // The address too, and its twin as printed.
        let residence = CHIP.iter().position(|l| l.contains("Place of residence")).unwrap_or(0);
        let whole = value(&parse_printed("vn.national_id", Side::Front, &lines(&CHIP)), "address").map(str::to_string);
        assert!(whole.is_some());
        let mut chip = CHIP.to_vec();
        let line = chip[residence + 1].replacen("ư", "-.", 1);
        chip[residence + 1] = &line;
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&chip)), "address"), None, "{line}");
    }

    #[test]
    fn a_place_with_a_letter_vietnamese_does_not_write_is_not_given() {
        for printed in ["Hoằng Đạo, Hoằng Hóa, Thanh Hóa", "Quảng Thắng, Thanh Hóa", "Thủ Đức, Hồ Chí Minh", "Cẩm Thượng, Hải Dương", "Ninh Khánh, Ninh Bình", "Thôn Hạ, Cẩm Phô, Hội An, Quảng Nam", "P. Bến Nghé (Q.1), Hồ Chí Minh", "Số 111, Lê Lợi, Huế"] {
            assert!(!super::foreign_to_vietnamese(printed), "{printed}");
            assert!(!super::foreign_to_vietnamese(&nfd_like(printed)), "{printed} with its tone marks apart");
        }
        for misread in ["Hoäng Đạo, Hoãng Hóa, Thanh Hóa", "Hải Dương ç", "Bến Tře", "Ăn Hòå", "Ñinh Khánh, Ninh Bình, Ninh Bình", "Thôn Hạ, nnn) Cẩm Phô, Hội An, Quảng Nam", "Thôn (Hạ, Cẩm Phô"] {
            assert!(super::foreign_to_vietnamese(misread), "{misread}");
        }
        let mut chip = CHIP.to_vec();
        chip[12] = "Hoäng Đạo, Hoằng Hóa, Thanh Hóa";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&chip)), "place_of_origin"), None);
        chip[12] = "Hoằng Đạo, Hoằng Hóa, Thanh Hóa";
        assert_eq!(value(&parse_printed("vn.national_id", Side::Front, &lines(&chip)), "place_of_origin"), Some("Hoằng Đạo, Hoằng Hóa, Thanh Hóa"));
    }

    /// `s` with each letter's tone mark (grave, acute, tilde, hook, dot) written after it as
    /// a combining mark, as Tesseract sometimes gives it.
    fn nfd_like(s: &str) -> String {
        s.chars()
            .flat_map(|c| {
                let (base, marks) = crate::printed::unicode::decomposed(c);
                let recomposed = crate::printed::unicode::nfc(&std::iter::once(base).chain(marks.iter().copied().filter(|m| !matches!(m, '\u{300}' | '\u{301}' | '\u{303}' | '\u{309}' | '\u{323}'))).collect::<String>());
                let tone: Vec<char> = marks.into_iter().filter(|m| matches!(m, '\u{300}' | '\u{301}' | '\u{303}' | '\u{309}' | '\u{323}')).collect();
                recomposed.chars().chain(tone).collect::<Vec<_>>()
            })
            .collect()
    }
}
