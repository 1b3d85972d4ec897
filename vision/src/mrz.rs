//! The machine-readable zone (ICAO 9303) of passports and ID cards, found in a photo and
//! read with OCR ([`crate::ocr`]). Parsing and check digits are `idv_cards::mrz`'s: this
//! module only finds the zone's lines and asks a caller-given judge (the parser) which
//! reading is best. One exception: a line that lost its end is taken only where the
//! check digits it still holds pass, judged here line by line ([`fit_line`],
//! [`icao_check_digit`], the same 7-3-1 sum: this crate does not depend on the parser's).
//!
//! # Finding the zone (the band finder, [`find_zones`])
//!
//! The zone is the lowest group of text lines that look like MRZ lines: after removing
//! spaces, only `A`–`Z`, `0`–`9` and `<`, and 44 (TD3, passports), 36 (TD2) or 30 (TD1,
//! ID cards) characters, two lines of 44 or 36 or three of 30, one under the other
//! (each line's top within three line heights of the one above, their horizontal extents
//! overlapping by half the narrower one). A zone with no `<` at all is not one.
//!
//! OCR often miscounts long runs of the `<` filler. A line at most [`MAX_FILLER_FIX`]
//! characters too short or too long is fitted by lengthening or shortening its **last**
//! run of two or more `<` (in every ICAO layout the last run is filler before the end of
//! the line or before its final check digits, so fields before it keep their positions,
//! and a fitted line 2 is still judged by its check digits). A line that ends in fillers
//! may lack up to [`MAX_END_LOSS`] (a cut corner or glare took its end, final check
//! digits included, and those checks fail): it is taken where the check digits wholly
//! within what was read pass, and a line of names, which no digit checks, keeps no
//! names ([`fit_line`]). Other readings of a
//! line are candidates too, judged by the check digits like the fit, which wins ties: a
//! line one or two characters too long without its first ones (a stray mark left of the
//! zone read as a letter) or without its last ones (a speck after it); a line shorter
//! than the zone's without its first one or two, fitted (a stray mark before a line that
//! also lost its end). A first line one character too long drops instead, of its first
//! six, the first whose removal leaves the issuing state the second line's nationality
//! (a letter read into the header, which no check digit covers; a letter, not a digit,
//! opens the document code). Every combination of the lines' readings is a candidate.
//! Such a zone says `fillers_adjusted`.
//!
//! # Reading ([`read_zone`])
//!
//! 1. The photo, in grey, scaled so its width is 1200–2000 px (at most 12 MP), and
//!    straightened when the text of its lower half is skewed by 0.5° or more (the skew:
//!    the shear that makes the rows of ink sharpest, searched over ±10°; ink: pixels
//!    darker than their surroundings).
//! 2. The lower half is read (layout analysis, language `mrz` — the OCR-B model
//!    scripts/models.sh installs — else `eng`, the recognised characters restricted to the
//!    MRZ alphabet) and zones are found in its lines. Each is judged by the caller's
//!    parser (checks passed); the best, ties to the lowest, is kept.
//! 3. If it does not pass every check, or kept no names (a names line that lost its
//!    end, [`fit_line`]: read again here and from the evened page below), or its band
//!    is skewed by 0.5° or more (names have
//!    no check digit, and a skewed line's are the likeliest misread): the band is cut out
//!    (with a margin), straightened again (the band's own skew), scaled so a line is
//!    ~40 px high, and read again as one block of text; that reading is kept if it judges
//!    better, or as well with a higher OCR confidence.
//! 4. Only if the lower half holds no zone at all, the whole photo is read the same way.
//!
//! At most three OCR calls per photo. Photos turned by more than 10°, or upside down,
//! are not straightened.

use crate::ocr::{Layout, OcrError, OcrLine, OcrParams, TextBox, TextRecognizer};
use image::{imageops, GrayImage, RgbImage};

/// The characters of an MRZ.
pub const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<";
/// The OCR-B MRZ model (scripts/models.sh installs it into the models dir's `tessdata/`).
pub const MRZ_LANG: &str = "mrz";
/// Used when the MRZ model is not installed (Debian's `tesseract-ocr-eng`).
pub const FALLBACK_LANG: &str = "eng";
/// Characters a line may be off by and still be fitted to its length (module doc).
pub const MAX_FILLER_FIX: usize = 2;
/// How many characters a line that ends in fillers may lack and still be fitted (module
/// doc): a corner cut off a passport page took the end of its zone (the independent
/// set's seed 31: line 2 read 41 characters, its personal number's last fillers and both
/// final check digits gone; the document number's, the birth date's and the expiry's
/// digits whole).
pub const MAX_END_LOSS: usize = 5;
/// (line length, lines) of TD3, TD2, TD1.
pub const FORMATS: [(usize, usize); 3] = [(44, 2), (36, 2), (30, 3)];

/// A group of lines that looks like a zone.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneCandidate {
    /// The lines as they will be parsed (spaces removed, fillers fitted).
    pub lines: Vec<String>,
    /// The lines as the OCR read them.
    pub read: Vec<String>,
    /// Around every line. From [`read_zone`]: in the coordinates of the prepared page
    /// (scaled to the reading width and straightened), not the photo's.
    pub bbox: TextBox,
    /// Mean OCR confidence of the lines, 0–100.
    pub confidence: f32,
    pub fillers_adjusted: bool,
}

/// `text` without whitespace, if every remaining character is an MRZ character.
pub fn clean(text: &str) -> Option<String> {
    let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    (!s.is_empty() && s.bytes().all(|b| ALPHABET.as_bytes().contains(&b))).then_some(s)
}

/// `line` (already [`clean`]) fitted to `width` characters (module doc): `(line,
/// adjusted)`, or `None` if it cannot be.
pub fn fit(line: &str, width: usize) -> Option<(String, bool)> {
    let len = line.len();
    if len == width {
        return Some((line.to_string(), false));
    }
    if len.abs_diff(width) > MAX_FILLER_FIX {
        return None;
    }
    // The last run of two or more fillers.
    let b = line.as_bytes();
    let mut end = b.len();
    let run = loop {
        let stop = b[..end].iter().rposition(|&c| c == b'<')? + 1;
        let start = b[..stop].iter().rposition(|&c| c != b'<').map_or(0, |i| i + 1);
        if stop - start >= 2 {
            break (start, stop);
        }
        end = start;
    };
    let (start, stop) = run;
    let new_run = (stop - start + width).checked_sub(len).filter(|&n| n >= 1)?;
    let fitted = format!("{}{}{}", &line[..start], "<".repeat(new_run), &line[stop..]);
    Some((fitted, true))
}

/// Line `index` of a zone of `count` lines `width` wide fitted as [`fit`] does, or, where
/// that fails, as a line that lost its end (module doc, [`MAX_END_LOSS`]): it ends in
/// fillers, lacks at most that many characters, and is filled with fillers to its width.
/// Such a line is taken only where what is left can be judged: the check digits wholly
/// within what was read pass (a glare that took characters inside the line and left its
/// filler end looks the same, "GR7563L<<…" for "GR7563090…", and fails them); a line of
/// names, which no digit checks (glare took "H<CHA" of "RAJESH<CHANDRA" and the line
/// still ended in fillers), keeps its header and loses its names (no name is given from
/// it).
fn fit_line(line: &str, width: usize, count: usize, index: usize) -> Option<(String, bool)> {
    if let Some(fitted) = fit(line, width) {
        return Some(fitted);
    }
    let len = line.len();
    if len >= width || width - len > MAX_END_LOSS || !line.ends_with("<<") {
        return None;
    }
    let filled = format!("{line}{}", "<".repeat(width - len));
    // Where each line's names start (TD1: the third line; TD2, TD3: the first, after its
    // type and state), and where each line's check digits stand (`(field, digit)`).
    let names_from = match (count, index) {
        (3, 2) => Some(0),
        (2, 0) => Some(5),
        _ => None,
    };
    if let Some(from) = names_from {
        return Some((format!("{}{}", &filled[..from], "<".repeat(width - from)), true));
    }
    let checks: &[(std::ops::Range<usize>, usize)] = match (count, index) {
        (3, 0) => &[(5..14, 14)],
        (3, 1) => &[(0..6, 6), (8..14, 14)],
        (2, 1) => &[(0..9, 9), (13..19, 19), (21..27, 27)],
        _ => &[],
    };
    let judged = checks.iter().filter(|(_, digit)| *digit < len).collect::<Vec<_>>();
    let passes = |field: &std::ops::Range<usize>, digit: usize| filled.get(field.clone()).zip(filled.as_bytes().get(digit)).is_some_and(|(f, &d)| d.is_ascii_digit() && icao_check_digit(f) == Some(d - b'0'));
    (!judged.is_empty() && judged.iter().all(|(field, digit)| passes(field, *digit))).then_some((filled, true))
}

/// ICAO 9303's check digit of `field` (weights 7, 3, 1; `<` 0, digits their value,
/// letters 10-35); `None` for a character outside the zone's alphabet.
fn icao_check_digit(field: &str) -> Option<u8> {
    let mut sum = 0u32;
    for (i, c) in field.bytes().enumerate() {
        let v = match c {
            b'<' => 0,
            b'0'..=b'9' => u32::from(c - b'0'),
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return None,
        };
        sum += v * [7, 3, 1][i % 3];
    }
    Some((sum % 10) as u8)
}

/// Zones among `lines` (module doc), the lowest first.
pub fn find_zones(lines: &[OcrLine]) -> Vec<ZoneCandidate> {
    let mut sorted: Vec<&OcrLine> = lines.iter().filter(|l| l.bbox.height > 0).collect();
    sorted.sort_by_key(|l| l.bbox.y + l.bbox.height / 2);
    let cleaned: Vec<Option<String>> = sorted.iter().map(|l| clean(&l.text)).collect();
    let mut found = Vec::new();
    for (width, count) in FORMATS {
        for start in 0..sorted.len().saturating_sub(count - 1) {
            let window = &sorted[start..start + count];
            let mut fitted = Vec::with_capacity(count);
            for (i, line) in cleaned[start..start + count].iter().enumerate() {
                if i > 0 && !stacked(window[i - 1], window[i]) {
                    break;
                }
                match line.as_deref().and_then(|l| fit_line(l, width, count, i)) {
                    Some(f) => fitted.push(f),
                    None => break,
                }
            }
            if fitted.len() != count || !fitted.iter().any(|(l, _)| l.contains('<')) {
                continue;
            }
            let bbox = window.iter().skip(1).fold(window[0].bbox, |b, l| b.union(&l.bbox));
            let read: Vec<String> = cleaned[start..start + count].iter().flatten().cloned().collect();
            // A stray mark left of the zone (the page's edge, a shadow) read as a letter
            // before a line's first character ("WT7910139<9IND…" for "T7910139<9IND…":
            // the fitted line's fields all shift and every check digit fails): the zone
            // with such lines' leading extra characters dropped is a candidate too,
            // judged by its check digits like any other.
            // The first line's extra character may instead sit in its header, which no
            // check digit covers ("IDINDNKL3341010…" for "IDINDKL3341010…": dropping
            // the first letter passes every check but reads the type "DI" and the state
            // "NDN"): the character dropped is the first one, from the line's start on,
            // that leaves the issuing state the nationality the second line gives.
            // The second line's nationality as fitted, or, where that is no letters, as
            // read without one or two characters leading it (a mark before both lines:
            // "CP<INDSAXENA…" over "0T3338405<9IND…", the independent set's seed 33, a
            // tilted passport, whose fitted second line gives "9IN").
            let at = if count == 3 { 15..18 } else { 10..13 };
            let letters = |n: &&str| n.bytes().all(|b| b.is_ascii_uppercase());
            let nationality = fitted.get(1).and_then(|(l, _)| l.get(at.clone())).filter(letters).or_else(|| {
                let second = read.get(1)?;
                let extra = second.len().checked_sub(width).filter(|e| (1..=2).contains(e))?;
                second.get(at.start + extra..at.end + extra).filter(letters)
            });
            // A speck after a line's last character is read as one too ("…<<<<<62" for
            // "…<<<<<6", seed 31's blurred CCCD: the fillers' fit shifts the composite
            // into the optional data): the line without its last characters is a
            // candidate of its own. Each line's readings (as fitted, without what leads,
            // without what trails) are combined with the others', every combination judged
            // by its check digits (at most three lines of three readings each).
            let alternatives: Vec<Vec<(String, bool)>> = fitted
                .iter()
                .zip(&read)
                .enumerate()
                .map(|(i, ((l, a), raw))| {
                    let mut options = vec![(l.clone(), *a)];
                    let mut leading = match raw.len().checked_sub(width) {
                        Some(1) if i == 0 => {
                            let dropped = |p: usize| format!("{}{}", &raw[..p], &raw[p + 1..]);
                            // A document code is letters: "I1DVNM…" loses its 1, not its I
                            // (either leaves the state VNM).
                            let keeps_state = |d: &String| nationality.is_some_and(|n| d.get(2..5) == Some(n));
                            let in_header = (0..=5).map(dropped).filter(keeps_state).min_by_key(|d| !d.starts_with(|c: char| c.is_ascii_uppercase()));
                            Some(in_header.unwrap_or_else(|| raw[1..].to_string()))
                        }
                        Some(extra @ 1..=2) => Some(raw[extra..].to_string()),
                        _ => None,
                    };
                    let trailing = matches!(raw.len().checked_sub(width), Some(1..=2)).then(|| raw[..width].to_string());
                    // A first line whose fit leaves the issuing state other than the
                    // nationality, while dropping a character of its header leaves it the
                    // nationality: the drop goes first. No check digit covers a TD3
                    // zone's first line, so the two tie, and ties go to the first.
                    if i == 0 && nationality.is_some_and(|n| l.get(2..5) != Some(n) && leading.as_deref().and_then(|d| d.get(2..5)) == Some(n)) {
                        if let Some(header) = leading.take() {
                            options.insert(0, (header, true));
                        }
                    }
                    for option in [leading, trailing].into_iter().flatten() {
                        if !options.iter().any(|(o, _)| *o == option) {
                            options.push((option, true));
                        }
                    }
                    // A stray mark before a line shorter than the zone's (a line that
                    // also lost its end: "6V9064075<2IND…" read 42 long, seed 31's cut
                    // passport): the line without it, fitted.
                    if raw.len() < width {
                        for lead in 1..=2 {
                            if let Some((fitted, _)) = raw.get(lead..).and_then(|rest| fit_line(rest, width, count, i)) {
                                if !options.iter().any(|(o, _)| *o == fitted) {
                                    options.push((fitted, true));
                                }
                            }
                        }
                    }
                    options
                })
                .collect();
            let mut combinations: Vec<Vec<(String, bool)>> = vec![Vec::new()];
            for options in &alternatives {
                combinations = combinations.iter().flat_map(|c| options.iter().map(move |o| c.iter().cloned().chain(std::iter::once(o.clone())).collect())).collect();
            }
            // The fillers' fit first (it wins ties: `best` keeps the first of equal rank).
            for lines in combinations {
                found.push(ZoneCandidate {
                    read: read.clone(),
                    fillers_adjusted: lines.iter().any(|(_, a)| *a),
                    lines: lines.into_iter().map(|(l, _)| l).collect(),
                    bbox,
                    confidence: window.iter().map(|l| l.confidence).sum::<f32>() / count as f32,
                });
            }
        }
    }
    found.sort_by_key(|c| std::cmp::Reverse(c.bbox.bottom()));
    found
}

/// Whether `lower` sits right under `upper` (module doc).
fn stacked(upper: &OcrLine, lower: &OcrLine) -> bool {
    let (a, b) = (upper.bbox, lower.bbox);
    let h = a.height.max(b.height).max(1);
    let below = b.y > a.y && b.y - a.y <= 3 * h;
    let overlap = a.right().min(b.right()).saturating_sub(a.x.max(b.x));
    below && overlap * 2 >= a.width.min(b.width)
}

/// A reading's judgement by the caller's parser: (checks passed, checks), `None` when the
/// lines do not parse as a zone at all. "Every check passed" is the two being equal.
pub type Judgement = Option<(usize, usize)>;

/// What [`read_zone`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneRead {
    pub zone: ZoneCandidate,
    pub judgement: Judgement,
    /// The language data used (`mrz`, or `eng` when the MRZ model is not installed).
    pub lang: &'static str,
    /// OCR calls made.
    pub ocr_calls: u32,
}

impl ZoneRead {
    pub fn all_passed(&self) -> bool {
        matches!(self.judgement, Some((p, n)) if p == n)
    }
}

/// Sort key: parsed before unparsed, more check digits passed, then one with its names
/// (not [`names_lost`]), then lower in the image.
fn rank(j: &Judgement, zone: &ZoneCandidate) -> (bool, usize, bool, u32) {
    (j.is_some(), j.map_or(0, |(p, _)| p), !names_lost(zone), zone.bbox.bottom())
}

/// Whether a zone's names line is fillers alone: [`fit_line`] kept no names from a line of
/// names that lost its end (every zone holds a name: ICAO 9303's primary identifier).
/// Such a zone is read again ([`read_zone`]'s step 3) for its names.
pub fn names_lost(zone: &ZoneCandidate) -> bool {
    let names = match zone.lines.as_slice() {
        [_, _, names] => names.get(..),
        [names, _] => names.get(5..),
        _ => None,
    };
    names.is_some_and(|n| n.bytes().all(|b| b == b'<'))
}

/// Width range the photo is scaled into before reading, and its pixel cap.
const MIN_WIDTH: u32 = 1200;
const MAX_WIDTH: u32 = 2000;
const MAX_PIXELS: u64 = 12_000_000;
/// Line height the refinement pass scales a band to.
const LINE_HEIGHT: f32 = 40.0;

fn resize(gray: &GrayImage, scale: f32) -> GrayImage {
    if (scale - 1.0).abs() < 1e-3 {
        return gray.clone();
    }
    let (w, h) = gray.dimensions();
    let (nw, nh) = (((w as f32 * scale).round() as u32).max(1), ((h as f32 * scale).round() as u32).max(1));
    let filter = if scale < 1.0 { imageops::FilterType::Triangle } else { imageops::FilterType::CatmullRom };
    imageops::resize(gray, nw, nh, filter)
}

/// The photo in grey at the reading scale (step 1).
pub fn prepare(image: &RgbImage) -> GrayImage {
    let gray = imageops::grayscale(image);
    let (w, h) = gray.dimensions();
    let width = w.max(1) as f32;
    let mut scale = if w > MAX_WIDTH {
        MAX_WIDTH as f32 / width
    } else if w < MIN_WIDTH {
        MIN_WIDTH as f32 / width
    } else {
        1.0
    };
    let pixels = (w as f32 * scale) as f64 * (h as f32 * scale) as f64;
    if pixels > MAX_PIXELS as f64 {
        scale *= (MAX_PIXELS as f64 / pixels).sqrt() as f32;
    }
    if (h as f32 * scale) > crate::ocr::MAX_SIDE as f32 {
        scale = crate::ocr::MAX_SIDE as f32 / h as f32;
    }
    resize(&gray, scale)
}

struct Reader<'a> {
    ocr: &'a dyn TextRecognizer,
    lang: &'static str,
    judge: &'a dyn Fn(&[String]) -> Judgement,
    calls: u32,
}

impl Reader<'_> {
    fn read(&mut self, image: &GrayImage, layout: Layout) -> Result<Vec<OcrLine>, OcrError> {
        self.calls += 1;
        self.ocr.read_lines(image, &OcrParams { lang: self.lang, char_whitelist: Some(ALPHABET), layout, confidences: false })
    }

    /// The best zone in `region` of `page` (step 2), boxes in `page` coordinates.
    fn best_in(&mut self, page: &GrayImage, region: TextBox) -> Result<Option<(ZoneCandidate, Judgement)>, OcrError> {
        if region.width < crate::ocr::MIN_SIDE || region.height < crate::ocr::MIN_SIDE {
            return Ok(None);
        }
        let crop = imageops::crop_imm(page, region.x, region.y, region.width, region.height).to_image();
        let lines = self.read(&crop, Layout::Auto)?;
        Ok(self.best(find_zones(&lines), 1.0, region.x, region.y))
    }

    fn best(&self, zones: Vec<ZoneCandidate>, scale: f32, dx: u32, dy: u32) -> Option<(ZoneCandidate, Judgement)> {
        let mut best: Option<(ZoneCandidate, Judgement)> = None;
        for mut z in zones {
            z.bbox = z.bbox.unscale(scale, dx, dy);
            let j = (self.judge)(&z.lines);
            if best.as_ref().is_none_or(|(b, bj)| rank(&j, &z) > rank(bj, b)) {
                best = Some((z, j));
            }
        }
        best
    }

    /// Step 3: the band of `zone` cut out of `page`, straightened, scaled and read as one
    /// block. With `force` false (the zone passed every check), only when the band is
    /// skewed by [`MIN_SKEW`] or more (names have no check digit: a skewed band's are the
    /// likeliest misread).
    fn refine(&mut self, page: &GrayImage, zone: &ZoneCandidate, force: bool) -> Result<Option<(ZoneCandidate, Judgement)>, OcrError> {
        let b = zone.bbox;
        let line_h = (b.height as f32 / zone.lines.len().max(1) as f32).max(1.0);
        let (mx, my) = ((line_h * 1.5) as u32, (line_h * 0.8) as u32);
        let x = b.x.saturating_sub(mx);
        let y = b.y.saturating_sub(my);
        let w = (b.right() + mx).min(page.width()).saturating_sub(x);
        let h = (b.bottom() + my).min(page.height()).saturating_sub(y);
        if w < crate::ocr::MIN_SIDE || h < crate::ocr::MIN_SIDE {
            return Ok(None);
        }
        let mut crop = imageops::crop_imm(page, x, y, w, h).to_image();
        let skew = skew_degrees(&crop);
        if !force && skew.abs() < MIN_SKEW {
            return Ok(None);
        }
        // The skewed band's box is taller than its lines: scale by the text's own height.
        let mut line_h = line_h;
        if skew.abs() >= MIN_SKEW {
            crop = rotate_gray(&crop, -skew);
            line_h = (line_h - b.width as f32 * skew.to_radians().tan().abs() / zone.lines.len().max(1) as f32).max(line_h * 0.3);
        }
        let mut scale = (LINE_HEIGHT / line_h).clamp(0.5, 3.0);
        let longest = w.max(h) as f32 * scale;
        if longest > crate::ocr::MAX_SIDE as f32 {
            scale *= crate::ocr::MAX_SIDE as f32 / longest;
        }
        let lines = self.read(&resize(&crop, scale), Layout::Block)?;
        Ok(self.best(find_zones(&lines), scale, x, y))
    }
}

/// Skew below this (degrees) is left alone.
pub const MIN_SKEW: f32 = 0.5;
/// Skews searched: ±[`MAX_SKEW`] degrees in steps of 0.1.
pub const MAX_SKEW: f32 = 10.0;

/// The grey level between ink and paper (Otsu's threshold).
fn otsu(gray: &GrayImage) -> u8 {
    let mut hist = [0u64; 256];
    for p in gray.pixels() {
        hist[usize::from(p.0[0])] += 1;
    }
    let total: u64 = hist.iter().sum();
    let sum: f64 = hist.iter().enumerate().map(|(v, &n)| v as f64 * n as f64).sum();
    let (mut w0, mut sum0, mut best, mut best_t) = (0u64, 0f64, -1f64, 128u8);
    for (t, &n) in hist.iter().enumerate() {
        w0 += n;
        sum0 += t as f64 * n as f64;
        let w1 = total - w0;
        if w0 == 0 || w1 == 0 {
            continue;
        }
        let (m0, m1) = (sum0 / w0 as f64, (sum - sum0) / w1 as f64);
        let between = w0 as f64 * w1 as f64 * (m0 - m1) * (m0 - m1);
        if between > best {
            best = between;
            best_t = t as u8;
        }
    }
    best_t
}

/// Ink: pixels darker by [`INK_CONTRAST`] than the mean of the 31 × 31 square around
/// them (strokes of text; not a uniformly dark table around the page).
fn ink(gray: &GrayImage) -> Vec<(f32, f32)> {
    const R: usize = 15;
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    let raw = gray.as_raw();
    // Every row up to ~2 MP, every n-th row past it (the profile needs no more).
    let row_step = (w * h / 2_000_000).max(1);
    let sat = summed_area(raw, w, h);
    let mut out = Vec::new();
    for y in (0..h).step_by(row_step) {
        let (y0, y1) = (y.saturating_sub(R), (y + R + 1).min(h));
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(R), (x + R + 1).min(w));
            let sum = sat[y1 * (w + 1) + x1] + sat[y0 * (w + 1) + x0] - sat[y0 * (w + 1) + x1] - sat[y1 * (w + 1) + x0];
            let mean = sum / ((y1 - y0) * (x1 - x0)) as u64;
            if u64::from(raw[y * w + x]) + INK_CONTRAST < mean {
                out.push((x as f32, y as f32));
            }
        }
    }
    out
}

/// How much darker than its surroundings a pixel of ink is (grey levels).
const INK_CONTRAST: u64 = 25;

/// The angle (degrees, positive when lines descend to the right) of the text lines in an
/// image: the shear that makes the rows of ink sharpest (the largest sum of squared row
/// counts), searched over ±[`MAX_SKEW`]° in steps of 0.1°.
pub fn skew_degrees(gray: &GrayImage) -> f32 {
    let (w, h) = gray.dimensions();
    let ink = ink(gray);
    // At most ~100k ink pixels (every n-th): plenty for the profile.
    let step = (ink.len() / 100_000).max(1);
    let cx = w as f32 / 2.0;
    let pad = (w as f32 * (MAX_SKEW.to_radians().tan())) as usize + 2;
    let rows = h as usize + 2 * pad;
    let mut counts = vec![0u32; rows];
    let (mut best, mut best_score) = (0f32, 0u64);
    let steps = (MAX_SKEW * 10.0).round() as i32;
    for i in -steps..=steps {
        let a = i as f32 / 10.0;
        let tan = a.to_radians().tan();
        counts.iter_mut().for_each(|c| *c = 0);
        for &(x, y) in ink.iter().step_by(step) {
            let r = (y - (x - cx) * tan).round() as i64 + pad as i64;
            if let Some(c) = usize::try_from(r).ok().and_then(|r| counts.get_mut(r)) {
                *c += 1;
            }
        }
        let score: u64 = counts.iter().map(|&c| u64::from(c) * u64::from(c)).sum();
        // Ties (and a flat profile) go to the angle nearest zero.
        if score > best_score || (score == best_score && a.abs() < best.abs()) {
            best_score = score;
            best = a;
        }
    }
    best
}

/// `gray` rotated by `degrees` about its centre (bilinear; positive turns lines that were
/// level into lines descending to the right, as [`skew_degrees`] measures), the corners
/// filled with the paper's grey.
pub fn rotate_gray(gray: &GrayImage, degrees: f32) -> GrayImage {
    let (w, h) = gray.dimensions();
    let t = otsu(gray);
    let paper = {
        let light: Vec<u8> = gray.pixels().map(|p| p.0[0]).filter(|&v| v >= t).collect();
        if light.is_empty() { 255 } else { (light.iter().map(|&v| u64::from(v)).sum::<u64>() / light.len() as u64) as u8 }
    };
    let (s, c) = degrees.to_radians().sin_cos();
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    GrayImage::from_fn(w, h, |x, y| {
        let (dx, dy) = (x as f32 - cx, y as f32 - cy);
        let (sx, sy) = (c * dx + s * dy + cx, -s * dx + c * dy + cy);
        if sx < 0.0 || sy < 0.0 || sx >= (w - 1) as f32 || sy >= (h - 1) as f32 {
            return image::Luma([paper]);
        }
        let (x0, y0) = (sx.floor() as u32, sy.floor() as u32);
        let (fx, fy) = (sx - x0 as f32, sy - y0 as f32);
        let p = |xx: u32, yy: u32| f32::from(gray.get_pixel(xx, yy).0[0]);
        let v = p(x0, y0) * (1.0 - fx) * (1.0 - fy) + p(x0 + 1, y0) * fx * (1.0 - fy) + p(x0, y0 + 1) * (1.0 - fx) * fy + p(x0 + 1, y0 + 1) * fx * fy;
        image::Luma([v.round() as u8])
    })
}

/// Finds and reads the zone in `image` (module doc, "Reading"). `judge` is the parser:
/// check digits passed and their number for a zone's lines. `Ok(None)`: no zone found.
/// Errors: no usable language data ([`OcrError::LanguageMissing`]) or the engine failed.
pub fn read_zone(image: &RgbImage, ocr: &dyn TextRecognizer, judge: &dyn Fn(&[String]) -> Judgement) -> Result<Option<ZoneRead>, OcrError> {
    let lang = if ocr.has_language(MRZ_LANG) {
        MRZ_LANG
    } else if ocr.has_language(FALLBACK_LANG) {
        FALLBACK_LANG
    } else {
        return Err(OcrError::LanguageMissing { lang: format!("{MRZ_LANG} (or {FALLBACK_LANG})"), searched: "the tessdata directories".into() });
    };
    if image.width() == 0 || image.height() == 0 {
        return Ok(None);
    }
    let mut page = prepare(image);
    let (w, h) = page.dimensions();
    // A photo taken at an angle: straightened by the skew of its lower half's text.
    let skew = skew_degrees(&imageops::crop_imm(&page, 0, h / 2, w, h - h / 2).to_image());
    if skew.abs() >= MIN_SKEW {
        page = rotate_gray(&page, -skew);
    }
    let mut reader = Reader { ocr, lang, judge, calls: 0 };
    let lower = TextBox { x: 0, y: h / 2, width: w, height: h - h / 2 };
    let mut found = reader.best_in(&page, lower)?;
    if found.is_none() {
        found = reader.best_in(&page, TextBox { x: 0, y: 0, width: w, height: h })?;
    }
    let mut read = match found {
        Some((zone, judgement)) => {
            let mut read = ZoneRead { zone, judgement, lang, ocr_calls: 0 };
            if let Some((zone, judgement)) = reader.refine(&page, &read.zone, !read.all_passed() || names_lost(&read.zone))? {
                if rank(&judgement, &zone) > rank(&read.judgement, &read.zone) || (judgement.is_some() && judgement == read.judgement && zone.confidence > read.zone.confidence) {
                    read.zone = zone;
                    read.judgement = judgement;
                }
            }
            Some(read)
        }
        None => None,
    };
    // A zone not found, or read with check digits failing, on a page lit unevenly (a
    // flash's hotspot fading part of it, a card overexposed all over): read again from
    // the page divided by its local paper level (`evened`), and kept where its check
    // digits pass more, or as many with the names a first reading lost (`names_lost`).
    if !read.as_ref().is_some_and(|r| r.all_passed() && !names_lost(&r.zone)) {
        let evened = evened(&page);
        let mut again = reader.best_in(&evened, lower)?;
        if again.is_none() {
            again = reader.best_in(&evened, TextBox { x: 0, y: 0, width: w, height: h })?;
        }
        if let Some((mut zone, mut judgement)) = again {
            if let Some(refined) = reader.refine(&evened, &zone, true)?.filter(|(z, j)| rank(j, z) > rank(&judgement, &zone)) {
                (zone, judgement) = refined;
            }
            let to_beat = read.as_ref().map(|r| (passed(&r.judgement), !names_lost(&r.zone)));
            if judgement.is_some() && to_beat.is_none_or(|p| (passed(&judgement), !names_lost(&zone)) > p) {
                read = Some(ZoneRead { zone, judgement, lang, ocr_calls: 0 });
            }
        }
    }
    Ok(read.map(|mut read| {
        read.ocr_calls = reader.calls;
        read
    }))
}

/// The summed-area table of a `w` × `h` image's values, (w + 1) × (h + 1): entry
/// (x, y) is the sum of the values above and left of it.
fn summed_area(values: &[u8], w: usize, h: usize) -> Vec<u64> {
    let mut sat = vec![0u64; (w + 1) * (h + 1)];
    for y in 0..h {
        let mut row = 0u64;
        for x in 0..w {
            row += u64::from(values[y * w + x]);
            sat[(y + 1) * (w + 1) + x + 1] = sat[y * (w + 1) + x + 1] + row;
        }
    }
    sat
}

/// Check digits a judgement counts as passed (none for a zone that does not parse).
fn passed(j: &Judgement) -> usize {
    j.map_or(0, |(p, _)| p)
}

/// Half the window (pixels, on the prepared page) over which [`evened`] takes the
/// paper's local level: wider than a zone character's stroke, so the level is the paper
/// between strokes.
const EVEN_RADIUS: usize = 7;

/// Share of the local paper level under which a pixel is ink on the [`evened`] page: a
/// hotspot's faded print (grey on white) is still darker than this.
const EVEN_INK: f32 = 0.94;

/// `page` divided by its local paper level and thresholded (ink black, the rest white):
/// the level is the brightest pixel within [`EVEN_RADIUS`] each way, averaged over a
/// window twice that size. Glare lights the paper and the print on it alike, so print
/// a hotspot faded to grey keeps its share of the paper's light; a global threshold
/// loses it (seed 18's overexposed national identity card: its zone's middle read
/// nothing, evened it read whole).
fn evened(page: &GrayImage) -> GrayImage {
    let (w, h) = (page.width() as usize, page.height() as usize);
    if w == 0 || h == 0 {
        return page.clone();
    }
    let src = page.as_raw();
    let r = EVEN_RADIUS;
    // The brightest pixel within r along each row, then along each column.
    let mut rows = vec![0u8; w * h];
    for y in 0..h {
        let line = &src[y * w..(y + 1) * w];
        for x in 0..w {
            rows[y * w + x] = line[x.saturating_sub(r)..=(x + r).min(w - 1)].iter().copied().max().unwrap_or(0);
        }
    }
    let mut level = vec![0u8; w * h];
    for x in 0..w {
        for y in 0..h {
            level[y * w + x] = (y.saturating_sub(r)..=(y + r).min(h - 1)).map(|yy| rows[yy * w + x]).max().unwrap_or(0);
        }
    }
    // Averaged over a (2r + 1)² window, by an integral image.
    let sums = summed_area(&level, w, h);
    GrayImage::from_fn(w as u32, h as u32, |x, y| {
        let (x, y) = (x as usize, y as usize);
        let (x0, x1, y0, y1) = (x.saturating_sub(r), (x + r + 1).min(w), y.saturating_sub(r), (y + r + 1).min(h));
        let total = sums[y1 * (w + 1) + x1] + sums[y0 * (w + 1) + x0] - sums[y0 * (w + 1) + x1] - sums[y1 * (w + 1) + x0];
        let paper = total as f32 / ((x1 - x0) * (y1 - y0)) as f32;
        let ink = f32::from(src[y * w + x]) < EVEN_INK * paper;
        image::Luma([if ink { 0 } else { 255 }])
    })
}

/// Language named for a zone whose lines came from two readings ([`with_checked_lines_from`]).
pub const MIXED_LANG: &str = "mrz+eng";

/// The lines of a zone of `count` lines that carry check digits: a TD3 or TD2 zone's
/// second (document number, dates, composite), a TD1 zone's first (document number) and
/// second (dates, composite). The others (names, and the header before the number) no
/// check digit covers.
fn checked_lines(count: usize) -> &'static [usize] {
    if count == 3 {
        &[0, 1]
    } else {
        &[1]
    }
}

/// `read` with lines that carry check digits taken from another reading of the same
/// zone (`others`: zones found in the card's printed text, read with the general
/// model), where that passes more of its check digits: each such line is verified by
/// its own digits, whichever reading it came from. Lines no check digit covers stay as
/// the zone's reader read them (the general model reads fillers as letters, "KKK").
/// A passport at JPEG quality 35 (seed 19): the zone's model read its second line
/// "LOZ66405<SIND9809075F…" (three checks failing), the card's printed text read it
/// whole. `None` when no other reading does better.
pub fn with_checked_lines_from(read: &ZoneRead, others: &[ZoneCandidate], judge: &dyn Fn(&[String]) -> Judgement) -> Option<ZoneRead> {
    let count = read.zone.lines.len();
    let width = read.zone.lines.first().map(String::len)?;
    let checked = checked_lines(count);
    let mut best: Option<ZoneRead> = None;
    for other in others.iter().filter(|o| o.lines.len() == count && o.lines.iter().all(|l| l.len() == width)) {
        // Every non-empty choice of checked lines taken from `other`.
        for choice in 1..(1usize << checked.len()) {
            let taken: Vec<usize> = checked.iter().enumerate().filter(|(bit, _)| choice & (1 << bit) != 0).map(|(_, &i)| i).collect();
            let mut zone = read.zone.clone();
            for &i in &taken {
                zone.lines[i] = other.lines[i].clone();
                if let Some(raw) = other.read.get(i) {
                    if let Some(slot) = zone.read.get_mut(i) {
                        slot.clone_from(raw);
                    }
                }
            }
            // Each line as confident as the reading it came from.
            zone.confidence = (read.zone.confidence * (count - taken.len()) as f32 + other.confidence * taken.len() as f32) / count as f32;
            let judgement = judge(&zone.lines);
            let passed = |j: &Judgement| j.map_or(0, |(p, _)| p);
            let to_beat = best.as_ref().map_or(passed(&read.judgement), |b| passed(&b.judgement));
            if judgement.is_some() && passed(&judgement) > to_beat {
                best = Some(ZoneRead { zone, judgement, lang: MIXED_LANG, ocr_calls: read.ocr_calls });
            }
        }
    }
    best
}

/// `line` (already [`clean`]) with the `K`s the general model reads for fillers made
/// fillers again: `K`s with fillers right before and after them, in a run of `<` and `K`
/// three or more long ("2706074<<<<<K<<<<<<<<<02" for "2706074<<<<<<<<<<<<<<02"). A
/// letter between fillers is no field's value (values start at their field's first
/// position), but for a field after one that ends in fillers whose value is a lone K
/// ("D<<" and an optional field "K<<…", which no such card prints). `None` when there
/// is none.
fn fillers_for_ks(line: &str) -> Option<String> {
    let b = line.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' && b[i] != b'K' {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i] == b'<' || b[i] == b'K') {
            i += 1;
        }
        // Only Ks with fillers on both sides ("<K<", "<KK<"): a field's value starts at
        // its first position, so a letter right after fillers and before more is none.
        let run = &b[start..i];
        if run.len() >= 3 {
            let mut k = 0;
            while k < run.len() {
                if run[k] != b'K' {
                    k += 1;
                    continue;
                }
                let from = k;
                while k < run.len() && run[k] == b'K' {
                    k += 1;
                }
                if from > 0 && k < run.len() {
                    out[start + from..start + k].fill(b'<');
                }
            }
        }
    }
    (out != b).then(|| String::from_utf8_lossy(&out).into_owned())
}

/// `read` with one or more of its checked lines (those that carry check digits) taken
/// from single lines of the card's printed text (`printed`, read with the general model),
/// where the zone then passes every check digit: each printed line cleaned, fitted to
/// the zone's width (fillers as [`fit`] fits them) after the fillers the general model
/// read as `K` are put back ([`fillers_for_ks`]; no check digit tells a `K` from a filler). Unlike [`with_checked_lines_from`]
/// the printed text need not hold the whole zone: the general model reads a passport's
/// names line with its fillers as letters ("…SURESH<<<<<<< << <<< << SSE KK"), so no
/// zone is found in it, while it read the number line whole but for one filler ("…
/// 2706074<<<<<K<<<<<<<<<02", seed 24, a passport in perspective whose zone's reader
/// read "46280590<5END…"). Only a zone that passes every check is taken. `None` when
/// none does.
pub fn with_checked_lines_read_alone(read: &ZoneRead, printed: &[OcrLine], judge: &dyn Fn(&[String]) -> Judgement) -> Option<ZoneRead> {
    let count = read.zone.lines.len();
    let width = read.zone.lines.first().map(String::len)?;
    let mut readings: Vec<(String, String, f32)> = Vec::new();
    for line in printed {
        let Some(cleaned) = clean(&line.text) else { continue };
        // Only the line with its fillers put back: a K counts as 20, a filler as 0, and
        // check digits are sums mod 10, so no check tells them apart ("<<<<<K<<<<<<<<"
        // passes the personal number's check digit 0 as the fillers alone do).
        let variant = fillers_for_ks(&cleaned).unwrap_or_else(|| cleaned.clone());
        if let Some((fitted, _)) = fit(&variant, width) {
            if fitted.contains('<') && !readings.iter().any(|r| r.0 == fitted) {
                readings.push((fitted, cleaned, line.confidence));
            }
        }
    }
    let checked = checked_lines(count);
    // Each checked line replaced by each reading, then each pair of replacements.
    let mut tries: Vec<Vec<(usize, usize)>> = Vec::new();
    for &i in checked {
        tries.extend((0..readings.len()).map(|r| vec![(i, r)]));
    }
    if let [a, b] = checked {
        for ra in 0..readings.len() {
            tries.extend((0..readings.len()).filter(|&rb| rb != ra).map(|rb| vec![(*a, ra), (*b, rb)]));
        }
    }
    tries.into_iter().find_map(|taken| {
        let mut zone = read.zone.clone();
        for &(i, r) in &taken {
            let (fitted, raw, _) = &readings[r];
            zone.lines[i] = fitted.clone();
            zone.fillers_adjusted |= fitted != raw;
            if let Some(slot) = zone.read.get_mut(i) {
                slot.clone_from(raw);
            }
        }
        let judgement = judge(&zone.lines);
        let all = matches!(judgement, Some((p, n)) if p == n);
        all.then(|| {
            let taken_conf: f32 = taken.iter().map(|&(_, r)| readings[r].2).sum();
            zone.confidence = (read.zone.confidence * (count - taken.len()) as f32 + taken_conf) / count as f32;
            ZoneRead { zone, judgement, lang: MIXED_LANG, ocr_calls: read.ocr_calls }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    const L1: &str = "P<INDSHARMA<<PRIYA<KUMARI<<<<<<<<<<<<<<<<<<<";
    const L2: &str = "Z1234567<0IND9008154F3103145<<<<<<<<<<<<<<02";

    fn line(text: &str, x: u32, y: u32, w: u32, h: u32) -> OcrLine {
        OcrLine { text: text.into(), confidence: 90.0, bbox: TextBox { x, y, width: w, height: h }, symbols: Vec::new(), words: Vec::new() }
    }

    /// Fillers the general model read as `K` are fillers again, in runs of three or
    /// more that hold a filler; a `K` of a name or number is left. Must-fail: nothing
    /// to change is `None`.
    #[test]
    fn fillers_read_as_k_are_put_back() {
        assert_eq!(fillers_for_ks("2706074<<<<<K<<<<<<<<<02").as_deref(), Some("2706074<<<<<<<<<<<<<<<02"));
        assert_eq!(fillers_for_ks("3103142<<KK<<<00").as_deref(), Some("3103142<<<<<<<00"));
        assert_eq!(fillers_for_ks("SURESH<<KUMAR<<<"), None, "a K starting a name after fillers");
        assert_eq!(fillers_for_ks("SURESH<<KKK"), None, "Ks ending the line");
        assert_eq!(fillers_for_ks("3103142K<<<<<<00"), None, "a K right after a digit");
        assert_eq!(fillers_for_ks("1<K<2").as_deref(), Some("1<<<2"));
        assert_eq!(fillers_for_ks("1<K2"), None, "a K with a filler on one side only");
        assert_eq!(fillers_for_ks("KKKKK"), None, "no filler in the run");
        assert_eq!(fillers_for_ks("Z1234567<1IND"), None);
    }

    /// Seed 24's passport in perspective: the zone's reader read line 2 "46280590<5END…"
    /// (checks failing); the printed text read the names line with its fillers as
    /// letters (no zone found in it) and line 2 whole but for a filler read as an extra
    /// `K`. Line 2 is taken from the printed line alone, its filler put back. Must-fail:
    /// a printed line that leaves a check failing is not taken; the `K` is never kept
    /// (check digits cannot tell it from a filler).
    #[test]
    fn a_checked_line_is_taken_from_a_printed_line_read_alone() {
        let judge = |lines: &[String]| -> Judgement {
            let l2 = lines.get(1)?;
            if l2.len() != 44 {
                return None;
            }
            let value = |c: u8| if c.is_ascii_digit() { u32::from(c - b'0') } else if c.is_ascii_uppercase() { u32::from(c - b'A') + 10 } else { 0 };
            let digit = |s: &str| s.bytes().zip([7u32, 3, 1].iter().cycle()).map(|(c, w)| w * value(c)).sum::<u32>() % 10;
            let passes = |s: &str, d: u8| u32::from(d.wrapping_sub(b'0')) == digit(s);
            let b = l2.as_bytes();
            let n = [passes(&l2[0..9], b[9]), passes(&l2[13..19], b[19]), passes(&l2[21..27], b[27]), passes(&l2[28..42], b[42])].iter().filter(|&&p| p).count();
            Some((n, 4))
        };
        let good = "Z1234567<1IND9008157F3103142<<<<<<<<<<<<<<00";
        assert_eq!(judge(&[L1.to_string(), good.to_string()]), Some((4, 4)));
        let misread = good.replacen("Z1234567<1IND9008157", "Z1Z34567<1END9808157", 1);
        let read = ZoneRead {
            zone: ZoneCandidate { lines: vec![L1.into(), misread.clone()], read: vec![L1.into(), misread.clone()], bbox: TextBox::default(), confidence: 40.0, fillers_adjusted: false },
            judgement: judge(&[L1.to_string(), misread.clone()]),
            lang: MRZ_LANG,
            ocr_calls: 3,
        };
        assert_eq!(read.judgement, Some((2, 4)));
        let printed_l2 = "Z1234567<1IND9008157F3103142<<<<<K<<<<<<<<<00";
        let printed = vec![line("P<INDSHARMA<<PRIYA<<< << SSE KK", 58, 720, 1100, 38), line(printed_l2, 57, 781, 1100, 28), line("=e", 1156, 796, 44, 49)];
        assert!(find_zones(&printed).is_empty(), "no whole zone in the printed text");
        let taken = with_checked_lines_read_alone(&read, &printed, &judge).expect("line 2 taken");
        assert_eq!((taken.zone.lines.as_slice(), taken.judgement, taken.lang), ([L1.to_string(), good.to_string()].as_slice(), Some((4, 4)), MIXED_LANG));
        assert_eq!(taken.zone.read[1], printed_l2.replace(' ', ""), "as the printed text read it");
        assert!(taken.zone.fillers_adjusted);

        // A printed line 2 misread (a check failing) is not taken.
        let wrong = vec![line(&good.replacen("9008157", "9008158", 1), 57, 781, 1100, 28)];
        assert!(with_checked_lines_read_alone(&read, &wrong, &judge).is_none());
        // A K between fillers passes the checks the fillers pass: it is made a filler.
        let k_read = "Z1234567<1IND9008157F3103142<<K<<<<<<<<<<<00";
        assert_eq!(judge(&[L1.to_string(), k_read.to_string()]), Some((4, 4)), "a K passes the checks a filler passes");
        let taken = with_checked_lines_read_alone(&read, &[line(k_read, 57, 781, 1100, 28)], &judge).expect("line 2 taken");
        assert_eq!(taken.zone.lines[1], good, "the K read as a filler");
    }

    /// Seed 19's passport at JPEG quality 35: the zone's reader read line 2 with three
    /// check digits failing, the card's printed text read it whole (and line 1's
    /// fillers as "K"). The zone takes the printed line 2, keeps its own line 1.
    /// Must-fail: a printed line 2 that passes no more checks is not taken.
    #[test]
    fn a_line_with_check_digits_is_taken_from_the_reading_that_passes_them() {
        let judge = |lines: &[String]| -> Judgement {
            let l2 = lines.get(1)?;
            // ICAO 9303's check digit: weights 7, 3, 1; `<` 0, digits as such, letters 10-35.
            let digit = |s: &str| s.bytes().zip([7u32, 3, 1].iter().cycle()).map(|(c, w)| w * if c.is_ascii_digit() { u32::from(c - b'0') } else if c.is_ascii_uppercase() { u32::from(c - b'A') + 10 } else { 0 }).sum::<u32>() % 10;
            let passes = |s: &str, d: u8| u32::from(d.wrapping_sub(b'0')) == digit(s);
            let b = l2.as_bytes();
            let n = [passes(&l2[0..9], b[9]), passes(&l2[13..19], b[19]), passes(&l2[21..27], b[27])].iter().filter(|&&p| p).count();
            Some((n, 3))
        };
        // A second line whose three check digits pass (ICAO 9303's weights).
        let good = "Z1234567<1IND9008157F3103142<<<<<<<<<<<<<<<0";
        assert_eq!(judge(&[L1.to_string(), good.to_string()]), Some((3, 3)));
        let zone_read = |l2: &str| ZoneRead {
            zone: ZoneCandidate { lines: vec![L1.into(), l2.into()], read: vec![L1.into(), l2.into()], bbox: TextBox::default(), confidence: 8.0, fillers_adjusted: false },
            judgement: judge(&[L1.to_string(), l2.to_string()]),
            lang: MRZ_LANG,
            ocr_calls: 3,
        };
        let misread = good.replacen("Z1234567<1IND9008157", "Z1Z34567<1IND9808157", 1);
        let read = zone_read(&misread);
        assert_eq!(read.judgement, Some((1, 3)));
        let kkk = L1.replacen("<<<<<<<<<", "KKKKKKKKK", 1);
        let printed = ZoneCandidate { lines: vec![kkk.clone(), good.into()], read: vec![kkk, good.into()], bbox: TextBox::default(), confidence: 90.0, fillers_adjusted: false };
        let mixed = with_checked_lines_from(&read, std::slice::from_ref(&printed), &judge).expect("a better zone");
        assert_eq!((mixed.zone.lines.as_slice(), mixed.judgement, mixed.lang), ([L1.to_string(), good.to_string()].as_slice(), Some((3, 3)), MIXED_LANG));
        // The printed line no better: nothing taken.
        let worse = ZoneCandidate { lines: vec![L1.into(), misread.clone()], ..printed.clone() };
        assert!(with_checked_lines_from(&read, &[worse], &judge).is_none());
        // Another format's lines are no reading of this zone.
        let td1 = ZoneCandidate { lines: vec!["I".repeat(30), "I".repeat(30), "I".repeat(30)], ..printed };
        assert!(with_checked_lines_from(&read, &[td1], &judge).is_none());
    }

    /// Paper lit from 150 (left) to 255 (right, a hotspot), strokes at 70 % of the
    /// paper's light wherever they are: divided by its local paper level, every stroke
    /// is ink and every paper pixel is paper. Must-fail twin: one threshold over the
    /// page (Otsu's) takes the dim paper for ink or loses the bright side's strokes.
    #[test]
    fn print_a_hotspot_faded_stays_ink_when_evened() {
        let paper = |x: u32| 150.0 + 105.0 * x as f32 / 299.0;
        let stroke = |x: u32, y: u32| x % 10 < 3 && (20..40).contains(&y);
        let page = GrayImage::from_fn(300, 60, |x, y| image::Luma([(if stroke(x, y) { 0.7 * paper(x) } else { paper(x) }).round() as u8]));
        let even = evened(&page);
        let wrong = |ink: &dyn Fn(u32, u32) -> bool| (0..300).flat_map(|x| (0..60).map(move |y| (x, y))).filter(|&(x, y)| ink(x, y) != stroke(x, y)).count();
        assert_eq!(wrong(&|x, y| even.get_pixel(x, y).0[0] == 0), 0);
        let t = otsu(&page);
        assert!(wrong(&|x, y| page.get_pixel(x, y).0[0] <= t) > 1000, "one threshold for the page");
    }

    #[test]
    fn clean_and_fit() {
        assert_eq!(clean(" Z123 4567<0 ").as_deref(), Some("Z1234567<0"));
        assert_eq!(clean("REPUBLIC OF INDIA"), Some("REPUBLICOFINDIA".into()));
        assert_eq!(clean("Surname"), None);
        assert_eq!(clean("A-B"), None);
        assert_eq!(clean("  "), None);
        assert_eq!(fit(L1, 44), Some((L1.to_string(), false)));
        // Trailing fillers miscounted either way.
        assert_eq!(fit(&L1[..43], 44), Some((L1.to_string(), true)));
        assert_eq!(fit(&format!("{L1}<<"), 44), Some((L1.to_string(), true)));
        // The last run inside line 2 (before the final check digits).
        let short = L2.replacen("<<<<<<<<<<<<<<02", "<<<<<<<<<<<<<02", 1);
        assert_eq!(fit(&short, 44), Some((L2.to_string(), true)));
        // Too far off, or no run of fillers to change.
        assert_eq!(fit(&L1[..41], 44), None);
        // A line that ends in fillers may have lost its end (a cut corner): up to
        // MAX_END_LOSS characters, where the check digits read pass; a names line keeps
        // no names then.
        // (Seed 31's page, its check digits all passing; `L2`'s do not.)
        let line2 = format!("V9064075<2IND6912037F2902278{}", "<".repeat(16));
        let line2_cut = &line2[..41];
        assert_eq!(fit_line(line2_cut, 44, 2, 1), Some((format!("{line2_cut}<<<"), true)));
        assert_eq!(fit_line(&line2[..44 - MAX_END_LOSS - 1], 44, 2, 1), None);
        assert_eq!(fit_line(&line2[..40].replace("<<<<", "<<<5"), 44, 2, 1), None, "not ending in fillers");
        let inside_lost = line2.replacen("2902278", "29022", 1);
        assert_eq!(fit_line(&inside_lost[..41], 44, 2, 1), None, "the expiry's digit fails");
        assert_eq!(fit_line(&L2[..41], 44, 2, 1), None, "the specimen's digits fail");
        assert_eq!(fit_line(&L1[..41], 44, 2, 0), Some((format!("P<IND{}", "<".repeat(39)), true)));
        assert_eq!(icao_check_digit("L898902C3"), Some(6));
        assert_eq!(icao_check_digit("740812"), Some(2));
        assert_eq!(icao_check_digit("AB<"), Some(((10 * 7 + 11 * 3) % 10) as u8), "letters weigh 10-35");
        assert_eq!(icao_check_digit("7408a2"), None);
        assert_eq!(fit("ABCDEFGHIJKLMNOPQRSTUVWXYZ012", 30), None);
        assert_eq!(fit("ABCDEFGHIJKLMNOPQRSTUVWXYZ0<12", 30), Some(("ABCDEFGHIJKLMNOPQRSTUVWXYZ0<12".into(), false)));
        // A single `<` (a separator) is never the run changed.
        assert_eq!(fit("ABCDEFGHIJKLMNOPQRSTUVWXYZ<12", 30), None);
        // Shortening never removes a run completely.
        assert_eq!(fit("ABCDEFGHIJKLMNOPQRSTUVWXYZ0<<12", 30), Some(("ABCDEFGHIJKLMNOPQRSTUVWXYZ0<12".into(), true)));
        assert_eq!(fit("ABCDEFGHIJKLMNOPQRSTUVWXYZ0<<123", 30), None);
    }

    #[test]
    fn finds_the_lowest_zone_among_other_text() {
        let lines = vec![
            line("REPUBLIC OF INDIA", 500, 100, 400, 30),
            line("SHARMA", 500, 300, 120, 20),
            // Page text that happens to be in the alphabet but not of a zone's length.
            line("P IND Z1234567", 500, 250, 200, 20),
            line(L1, 190, 865, 1118, 26),
            line("Z1234567<0IND90081 54F3103145<<<<<<<<<<<<<<02", 190, 918, 1118, 28),
        ];
        let zones = find_zones(&lines);
        assert_eq!(zones.len(), 1, "{zones:?}");
        assert_eq!(zones[0].lines, [L1, L2]);
        assert_eq!(zones[0].bbox, TextBox { x: 190, y: 865, width: 1118, height: 81 });
        assert!(!zones[0].fillers_adjusted);
        // Given in any order.
        let mut reversed = lines.clone();
        reversed.reverse();
        assert_eq!(find_zones(&reversed)[0].lines, [L1, L2]);
    }

    #[test]
    fn a_stray_letter_before_a_line_gives_a_second_candidate() {
        // Seed 8's clean passport: a mark at the page's edge read as "W" before line 2.
        let lines = vec![line(L1, 190, 865, 1118, 26), line(&format!("W{L2}"), 180, 918, 1128, 28)];
        let zones = find_zones(&lines);
        assert_eq!(zones.len(), 3, "{zones:?}");
        // The fillers' fit first (it wins ties), the line without its first letter beside,
        // then the line without its last.
        assert_eq!(zones[0].lines[1], format!("W{}{}02", &L2[..28], "<".repeat(13)));
        assert_eq!(zones[1].lines, [L1, L2]);
        assert!(zones[1].fillers_adjusted);
        assert_eq!(zones[2].lines[1], format!("W{}", &L2[..43]));
        // Three extra letters: no such candidate (nor a fit).
        assert!(find_zones(&[line(L1, 190, 865, 1118, 26), line(&format!("WWW{L2}"), 180, 918, 1128, 28)]).is_empty());
    }

    #[test]
    fn a_speck_after_a_line_gives_a_candidate_without_it_beside_a_stray_letter_before_another() {
        // Seed 31's blurred CCCD: "I1DVNM…" (a 1 inside the header) above "…<<<<<62" (a
        // speck read as 2 after the composite 6). Only the first line without its extra
        // header letter and the second without its last character pass every check.
        let td1 = ["IDVNM0549402499048054940249<<9", "5411153M<<<<<<0VNM<<<<<<<<<<<6", "DUONG<<HUU<MINH<DAT<<<<<<<<<<<"];
        let read = ["I1DVNM0549402499048054940249<<9", "5411153M<<<<<<0VNM<<<<<<<<<<<62", td1[2]];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 600 + 40 * i as u32, 800, 30)).collect();
        let zones = find_zones(&lines);
        assert!(zones.iter().any(|z| z.lines == td1), "{zones:?}");
        // The fillers' fit of the second line moves the composite into the optional data.
        assert_eq!(zones[0].lines[1], "5411153M<<<<<<0VNM<<<<<<<<<<62");
        // Every line's readings combined: 3 × 3 × 1.
        assert_eq!(zones.len(), 9, "{zones:?}");
    }

    #[test]
    fn a_zone_whose_end_a_cut_took_is_fitted_and_a_stray_mark_before_it_dropped() {
        // Seed 31's passport page with its bottom-right corner cut: both lines lost their
        // ends, the second read with a mark before it.
        let read = ["P<INDGILL<<JYOTI<<<<<<<<<<<<<<<<<<<<<<<<<<<", "6 V9064075<2IND6912037F2902278<<<<<<<<<<<<<"];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 700 + 60 * i as u32, 1100, 30)).collect();
        let zones = find_zones(&lines);
        let want = ["P<INDGILL<<JYOTI<<<<<<<<<<<<<<<<<<<<<<<<<<<<", "V9064075<2IND6912037F2902278<<<<<<<<<<<<<<<<"];
        assert_eq!(icao_check_digit("V9064075<"), Some(2));
        assert!(zones.iter().any(|z| z.lines == want), "{zones:?}");
        // A names line that lost more than the fillers' fit allows keeps no names, and
        // ranks under the same zone with them.
        let short_names = ["P<INDQURESHI<<RAJESNDRA<<<<<<<<<<<<<<<<", "V9064075<2IND6912037F2902278<<<<<<<<<<<<<<<<"];
        let lines: Vec<OcrLine> = short_names.iter().enumerate().map(|(i, t)| line(t, 50, 700 + 60 * i as u32, 1100, 30)).collect();
        let zones = find_zones(&lines);
        assert!(!zones.is_empty() && zones.iter().all(names_lost), "{zones:?}");
        let whole = ZoneCandidate { lines: want.iter().map(|l| l.to_string()).collect(), ..zones[0].clone() };
        assert!(!names_lost(&whole));
        assert!(rank(&Some((4, 5)), &whole) > rank(&Some((4, 5)), &zones[0]));
        // Must-fail twin: a line that lost more than MAX_END_LOSS gives no zone.
        let lines = [line(read[0], 50, 700, 1100, 30), line(&read[1][..36], 50, 760, 1100, 30)];
        assert!(find_zones(&lines).is_empty());
    }

    #[test]
    fn a_stray_letter_in_the_header_is_dropped_where_it_leaves_the_state_the_nationality() {
        // Seed 10's national identity card: "IDINDNKL3341010…", an N read after the state.
        let td1 = ["IDINDKL33410103<<<<<<<<<<<<<<<", "8005159F3402085IND<<<<<<<<<<<8", "SHARMA<<MEENA<KUMARI<<<<<<<<<<"];
        let read = ["IDINDNKL33410103<<<<<<<<<<<<<<<", td1[1], td1[2]];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 600 + 40 * i as u32, 800, 30)).collect();
        let zones = find_zones(&lines);
        assert!(zones.iter().any(|z| z.lines == td1), "{zones:?}");
        assert!(!zones.iter().any(|z| z.lines[0].starts_with("DINDN")), "{zones:?}");
        // A letter before the line, the state already right: the first is dropped.
        let read = ["XIDINDKL33410103<<<<<<<<<<<<<<<", td1[1], td1[2]];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 600 + 40 * i as u32, 800, 30)).collect();
        assert!(find_zones(&lines).iter().any(|z| z.lines == td1));
    }

    #[test]
    fn a_mark_before_both_lines_of_a_passports_zone_is_dropped_from_each() {
        // Seed 33's tilted passport: "CP<INDSAXENA<<…" over "0T3338405<9IND…", each 45
        // long. The second line's fit gives "9IN" for the nationality: the state the
        // header must keep comes from the line as read without its extra character.
        let names = "P<INDSAXENA<<RAMESH<SINGH<<<<<<<<<<<<<<<<<<<";
        let numbers = "T3338405<9IND7512168M2505118<<<<<<<<<<<<<<<8";
        let read = [format!("C{names}"), format!("0{numbers}")];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 700 + 60 * i as u32, 1100, 30)).collect();
        let zones = find_zones(&lines);
        assert_eq!(zones[0].lines[0], names, "first: its first line ties with the fit's");
        assert!(zones.iter().any(|z| z.lines == [names, numbers]), "{zones:?}");
        // Must-fail twins: a second line whose shifted nationality is no letters gives
        // no state to keep, and the fit stays first; a first line whose fit already
        // gives the nationality (a filler too many at its end) keeps it first, though
        // dropping the surname's first letter would leave the state too.
        let read = [format!("C{names}"), format!("0{}", numbers.replacen("IND", "1N0", 1))];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 700 + 60 * i as u32, 1100, 30)).collect();
        assert!(find_zones(&lines)[0].lines[0].starts_with("CP<IN"));
        let read = [format!("{names}<"), numbers.to_string()];
        let lines: Vec<OcrLine> = read.iter().enumerate().map(|(i, t)| line(t, 50, 700 + 60 * i as u32, 1100, 30)).collect();
        assert_eq!(find_zones(&lines)[0].lines[0], names);
    }

    #[test]
    fn td1_needs_three_stacked_lines() {
        let td1 = ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"];
        let lines: Vec<OcrLine> = td1.iter().enumerate().map(|(i, t)| line(t, 50, 600 + 40 * i as u32, 800, 30)).collect();
        let zones = find_zones(&lines);
        assert_eq!(zones.len(), 1);
        assert_eq!(zones[0].lines, td1);
        // Two of them only: no zone.
        assert!(find_zones(&lines[..2]).is_empty());
        // Lines far apart, or side by side, are not one zone.
        let apart: Vec<OcrLine> = td1.iter().enumerate().map(|(i, t)| line(t, 50, 100 + 300 * i as u32, 800, 30)).collect();
        assert!(find_zones(&apart).is_empty());
        let side: Vec<OcrLine> = td1.iter().enumerate().map(|(i, t)| line(t, 50 + 900 * i as u32, 600 + 10 * i as u32, 800, 30)).collect();
        assert!(find_zones(&side).is_empty());
        // Lines of the right length without a single filler are not a zone.
        let words: Vec<OcrLine> = (0..2).map(|i| line(&"ABCDEFGHIJK".repeat(4), 50, 100 + 40 * i, 800, 30)).collect();
        assert!(find_zones(&words).is_empty());
    }

    #[test]
    fn two_zones_lowest_first() {
        let lines = vec![line(L1, 100, 100, 1000, 25), line(L2, 100, 140, 1000, 25), line(L1, 100, 800, 1000, 25), line(L2, 100, 840, 1000, 25)];
        let zones = find_zones(&lines);
        assert_eq!(zones.len(), 2);
        assert!(zones[0].bbox.y > zones[1].bbox.y);
    }

    type Call = (String, Layout, (u32, u32));

    /// Scripted recognizer: answers with `lines` for each call in turn, records the calls.
    struct Script {
        langs: Vec<&'static str>,
        answers: Mutex<Vec<Vec<OcrLine>>>,
        /// Each call's language, layout and image size.
        calls: Mutex<Vec<Call>>,
    }

    impl TextRecognizer for Script {
        fn read_lines(&self, image: &GrayImage, params: &OcrParams<'_>) -> Result<Vec<OcrLine>, OcrError> {
            crate::ocr::check_input(image, params)?;
            self.calls.lock().expect("lock").push((params.lang.into(), params.layout, image.dimensions()));
            let mut a = self.answers.lock().expect("lock");
            Ok(if a.is_empty() { Vec::new() } else { a.remove(0) })
        }
        fn has_language(&self, lang: &str) -> bool {
            self.langs.contains(&lang)
        }
        fn describe(&self) -> String {
            "script".into()
        }
    }

    fn script(langs: Vec<&'static str>, answers: Vec<Vec<OcrLine>>) -> Script {
        Script { langs, answers: Mutex::new(answers), calls: Mutex::new(Vec::new()) }
    }

    /// Judges by one rule: the zone passes when line 2 is exactly L2.
    fn judge(lines: &[String]) -> Judgement {
        (lines.len() == 2).then(|| (usize::from(lines[1] == L2) * 5, 5))
    }

    #[test]
    fn reading_stops_when_every_check_passes() -> Result<(), OcrError> {
        let photo = RgbImage::new(1500, 1100);
        let ocr = script(vec!["mrz", "eng"], vec![vec![line(L1, 190, 315, 1118, 26), line(L2, 190, 368, 1118, 28)]]);
        let read = read_zone(&photo, &ocr, &judge)?.expect("a zone");
        assert_eq!((read.lang, read.ocr_calls, read.judgement), ("mrz", 1, Some((5, 5))));
        // Boxes come back in the page's coordinates (the lower half starts at 550).
        assert_eq!(read.zone.bbox.y, 315 + 550);
        let calls = ocr.calls.lock().expect("lock").clone();
        assert_eq!(calls, [("mrz".to_string(), Layout::Auto, (1500, 550))]);
        Ok(())
    }

    #[test]
    fn a_failing_zone_is_read_again_as_a_block() -> Result<(), OcrError> {
        let photo = RgbImage::new(1500, 1100);
        let wrong = L2.replace("9008154", "90081S4");
        let ocr = script(vec!["eng"], vec![vec![line(L1, 190, 315, 1118, 26), line(&wrong, 190, 368, 1118, 28)], vec![line(L1, 60, 40, 1500, 36), line(L2, 60, 110, 1500, 36)]]);
        let read = read_zone(&photo, &ocr, &judge)?.expect("a zone");
        assert_eq!((read.lang, read.ocr_calls, read.judgement), ("eng", 2, Some((5, 5))));
        assert_eq!(read.zone.lines[1], L2);
        let calls = ocr.calls.lock().expect("lock").clone();
        assert_eq!(calls[1].1, Layout::Block);
        // The band (81 px for two lines) cut with a margin: wider than the zone.
        assert!(calls[1].2 .0 > 1118, "{calls:?}");
        Ok(())
    }

    fn rgb(g: &GrayImage) -> RgbImage {
        RgbImage::from_fn(g.width(), g.height(), |x, y| image::Rgb([g.get_pixel(x, y).0[0]; 3]))
    }

    #[test]
    fn a_photo_taken_at_an_angle_is_straightened() -> Result<(), OcrError> {
        let mut photo = RgbImage::from_pixel(1500, 1100, image::Rgb([230, 230, 230]));
        imageops::overlay(&mut photo, &rgb(&band()), 100, 700);
        let turned = rgb(&rotate_gray(&imageops::grayscale(&photo), 4.0));
        let ocr = script(vec!["mrz"], vec![vec![line(L1, 140, 210, 1190, 26), line(L2, 140, 280, 1190, 26)]]);
        let seen = Mutex::new(Vec::new());
        let read = read_zone(&turned, &Looking { inner: &ocr, skews: &seen }, &judge)?.expect("a zone");
        assert_eq!(read.ocr_calls, 1);
        // The engine saw the lower half level again.
        let skews = seen.lock().expect("lock").clone();
        assert!(skews.len() == 1 && skews[0].abs() < MIN_SKEW, "{skews:?}");
        Ok(())
    }

    #[test]
    fn a_skewed_band_is_straightened_and_read_again_even_when_it_passes() -> Result<(), OcrError> {
        // Level text fills most of the lower half (so the photo is level), the zone's band
        // alone is skewed by 3°.
        let mut photo = RgbImage::from_pixel(1500, 1100, image::Rgb([230, 230, 230]));
        for i in 0..3 {
            imageops::overlay(&mut photo, &rgb(&band()), 100, 560 + 150 * i);
        }
        imageops::overlay(&mut photo, &rgb(&rotate_gray(&band(), 3.0)), 100, 860);
        // The band's lines as the lower half (from y 550) sees them: boxes made tall by the skew.
        let first = vec![line(L1, 140, 310 + 30, 1190, 90), line(L2, 140, 310 + 100, 1190, 90)];
        let ocr = script(vec!["mrz"], vec![first, vec![line(L1, 60, 40, 1500, 36), line(L2, 60, 110, 1500, 36)]]);
        let seen = Mutex::new(Vec::new());
        let read = read_zone(&photo, &Looking { inner: &ocr, skews: &seen }, &judge)?.expect("a zone");
        assert_eq!(read.ocr_calls, 2);
        assert_eq!(ocr.calls.lock().expect("lock")[1].1, Layout::Block);
        let skews = seen.lock().expect("lock").clone();
        assert!(skews[0].abs() < MIN_SKEW && skews[1].abs() < MIN_SKEW, "{skews:?}");
        // A level band that passes is not read again.
        let mut level = RgbImage::from_pixel(1500, 1100, image::Rgb([230, 230, 230]));
        imageops::overlay(&mut level, &rgb(&band()), 100, 700);
        let ocr = script(vec!["mrz"], vec![vec![line(L1, 140, 150 + 60, 1190, 26), line(L2, 140, 150 + 130, 1190, 26)]]);
        assert_eq!(read_zone(&level, &ocr, &judge)?.map(|r| r.ocr_calls), Some(1));
        Ok(())
    }

    /// Passes calls on, recording the skew of each image the engine is given.
    struct Looking<'a> {
        inner: &'a Script,
        skews: &'a Mutex<Vec<f32>>,
    }

    impl TextRecognizer for Looking<'_> {
        fn read_lines(&self, image: &GrayImage, params: &OcrParams<'_>) -> Result<Vec<OcrLine>, OcrError> {
            self.skews.lock().expect("lock").push(skew_degrees(image));
            self.inner.read_lines(image, params)
        }
        fn has_language(&self, lang: &str) -> bool {
            self.inner.has_language(lang)
        }
        fn describe(&self) -> String {
            "looking".into()
        }
    }

    #[test]
    fn the_whole_photo_is_read_only_when_the_lower_half_has_no_zone() -> Result<(), OcrError> {
        let photo = RgbImage::new(1500, 1100);
        let ocr = script(vec!["mrz"], vec![vec![line("SOMETHING ELSE", 10, 10, 300, 30)], vec![line(L1, 190, 100, 1118, 26), line(L2, 190, 150, 1118, 28)]]);
        let read = read_zone(&photo, &ocr, &judge)?.expect("a zone");
        assert_eq!(read.ocr_calls, 2);
        assert_eq!(read.zone.bbox.y, 100);
        // No zone anywhere: the lower half and the whole page, then both again evened
        // (a zone a hotspot faded).
        let ocr = script(vec!["mrz"], vec![]);
        assert_eq!(read_zone(&photo, &ocr, &judge)?, None);
        assert_eq!(ocr.calls.lock().expect("lock").len(), 4);
        Ok(())
    }

    #[test]
    fn empty_and_tiny_photos_hold_no_zone() -> Result<(), OcrError> {
        for (w, h) in [(0, 0), (1, 1), (3000, 16), (16, 3000)] {
            let ocr = script(vec!["mrz"], vec![]);
            assert_eq!(read_zone(&RgbImage::new(w, h), &ocr, &judge)?, None, "{w}x{h}");
        }
        Ok(())
    }

    #[test]
    fn no_language_data_is_an_error() {
        let ocr = script(vec!["vie"], vec![]);
        assert!(matches!(read_zone(&RgbImage::new(100, 100), &ocr, &judge), Err(OcrError::LanguageMissing { .. })));
        assert!(ocr.calls.lock().expect("lock").is_empty());
    }

    /// Two lines of 44 dark "characters" on paper, like a TD3 band.
    fn band() -> GrayImage {
        GrayImage::from_fn(1300, 220, |x, y| {
            let in_char = (40..40 + 44 * 27).contains(&x) && (x - 40) % 27 < 17;
            let in_line = (60..86).contains(&y) || (130..156).contains(&y);
            image::Luma([if in_char && in_line { 20 } else { 230 }])
        })
    }

    #[test]
    fn skew_is_measured_and_undone() {
        assert_eq!(skew_degrees(&band()), 0.0);
        for angle in [-4.0f32, -2.0, -0.7, 1.5, 3.0] {
            let skewed = rotate_gray(&band(), angle);
            let found = skew_degrees(&skewed);
            assert!((found - angle).abs() <= 0.2, "{angle}: {found}");
            let straight = skew_degrees(&rotate_gray(&skewed, -found));
            assert!(straight.abs() <= 0.2, "{angle}: {straight}");
        }
        // Nothing to measure: level.
        assert_eq!(skew_degrees(&GrayImage::from_pixel(300, 100, image::Luma([200]))), 0.0);
        assert_eq!(skew_degrees(&GrayImage::new(1, 1)), 0.0);
    }

    #[test]
    fn photos_are_scaled_into_the_reading_range() {
        assert_eq!(prepare(&RgbImage::new(4000, 3000)).dimensions(), (2000, 1500));
        assert_eq!(prepare(&RgbImage::new(600, 400)).dimensions(), (1200, 800));
        assert_eq!(prepare(&RgbImage::new(1500, 1100)).dimensions(), (1500, 1100));
        // Tall and narrow: the height stays within what the engine takes.
        assert!(prepare(&RgbImage::new(300, 9000)).height() <= crate::ocr::MAX_SIDE);
    }
}
