//! Passports (`in.passport`) and the chip CCCD's back (`vn.national_id` `image2`) read
//! from their machine-readable zone, end to end (issue 8).
//!
//! **Synthetic photos** ([`passport_photo`], [`cccd_back_photo`]): a light data page
//! (a faint wavy tint, a grey portrait box, labelled fields in DejaVu Sans) on a darker
//! table, the zone at the bottom in OCR-B (Debian's `fonts-ocr-b`) at the ICAO pitch of
//! 2.54 mm per character (25.4 px at the page's 10 px/mm). Every check digit is computed
//! with `idv_cards::mrz::check_digit`. [`Degradation`] makes the harder versions: Gaussian
//! blur, JPEG quality 50, a small rotation, and all three together. Data come from
//! [`Passport::sample`] and, for the exact-match table, [`Passport::random`] (fixed seed).
//!
//! Without the `ocr` feature (Tesseract not compiled in) the passport read must answer
//! 501 `not_performed`; that is checked and the rest is reported SKIPPED. With it, the
//! fonts and the `mrz` language data must be installed (scripts/test.sh does): missing
//! ones fail the test rather than skip it.

use crate::{Harness, B64};
use base64::Engine as _;
use ab_glyph::{point, Font, FontVec, PxScale, ScaleFont};
use idv_cards::mrz::check_digit;
use image::{imageops, Rgb, RgbImage};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

pub const OCR_B: &str = "/usr/share/fonts/opentype/ocr-b/OCRB.otf";
pub const SANS: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
/// Whether this build has the OCR engine (`ocr` feature).
pub const OCR_COMPILED: bool = cfg!(feature = "ocr");

/// The two fonts the photos are drawn with.
pub struct Fonts {
    pub ocr_b: FontVec,
    pub sans: FontVec,
}

impl Fonts {
    pub fn load() -> Result<Fonts, String> {
        let load = |path: &str, pkg: &str| {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e} (install Debian's {pkg}: scripts/lib.sh ensure_tesseract)"))?;
            FontVec::try_from_vec(bytes).map_err(|e| format!("{path}: {e}"))
        };
        Ok(Fonts { ocr_b: load(OCR_B, "fonts-ocr-b")?, sans: load(&font_path(SANS, "IDV_CARD_FONT_SANS"), "fonts-dejavu-core")? })
    }
}

/// `default`, or the font file the variable `env` names: the card evaluation's probe of
/// another typeface for the print (a reader must not depend on the generator's font).
pub fn font_path(default: &str, env: &str) -> String {
    std::env::var(env).ok().filter(|p| !p.is_empty()).unwrap_or_else(|| default.to_string())
}

/// One passport's data, as its zone writes it.
#[derive(Debug, Clone)]
pub struct Passport {
    pub surname: String,
    pub given: String,
    /// Up to 9 characters.
    pub number: String,
    /// `YYMMDD`.
    pub dob: String,
    pub sex: char,
    pub expiry: String,
    pub state: String,
}

fn cd(s: &str) -> char {
    char::from(b'0' + check_digit(s).unwrap_or(0))
}

fn pad(s: &str, n: usize) -> String {
    format!("{s:<<n$}")
}

/// `YYMMDD` as `DD/MM/YYYY`, the century given.
fn ddmmyyyy(d: &str, century: u32) -> String {
    format!("{}/{}/{}", &d[4..6], &d[2..4], century + d[0..2].parse::<u32>().unwrap_or(0))
}

impl Passport {
    pub fn sample() -> Passport {
        Passport {
            surname: "SHARMA".into(),
            given: "PRIYA KUMARI".into(),
            number: "Z1234567".into(),
            dob: "900815".into(),
            sex: 'F',
            expiry: "310314".into(),
            state: "IND".into(),
        }
    }

    /// A passport with random (seeded) names, number and dates.
    pub fn random(rng: &mut impl Rng) -> Passport {
        const SURNAMES: [&str; 10] = ["SHARMA", "PATEL", "SINGH", "IYER", "REDDY", "MUKHERJEE", "NAIR", "CHOUDHARY", "BANERJEE", "KHAN"];
        const GIVEN: [&str; 10] = ["PRIYA", "RAHUL KUMAR", "ANANYA", "VIKRAM", "SUNITA DEVI", "ARJUN", "MEERA", "ROHAN", "KAVYA SRI", "IMRAN"];
        let letter = char::from(b'A' + rng.gen_range(0..26u8));
        Passport {
            surname: SURNAMES[rng.gen_range(0..SURNAMES.len())].into(),
            given: GIVEN[rng.gen_range(0..GIVEN.len())].into(),
            number: format!("{letter}{:07}", rng.gen_range(0..10_000_000)),
            dob: format!("{:02}{:02}{:02}", rng.gen_range(50..100), rng.gen_range(1..=12), rng.gen_range(1..=28)),
            sex: if rng.gen_bool(0.5) { 'M' } else { 'F' },
            expiry: format!("{:02}{:02}{:02}", rng.gen_range(27..36), rng.gen_range(1..=12), rng.gen_range(1..=28)),
            state: "IND".into(),
        }
    }

    /// The TD3 zone, every check digit computed.
    pub fn mrz(&self) -> [String; 2] {
        let names = format!("{}<<{}", self.surname.replace(' ', "<"), self.given.replace(' ', "<"));
        let l1 = pad(&format!("P<{}{names}", self.state), 44);
        let num = pad(&self.number, 9);
        let mut l2 = format!("{num}{}{}{}{}{}{}{}{}<", cd(&num), self.state, self.dob, cd(&self.dob), self.sex, self.expiry, cd(&self.expiry), "<".repeat(14));
        let composite = cd(&format!("{}{}{}", &l2[0..10], &l2[13..20], &l2[21..43]));
        l2.push(composite);
        [l1, l2]
    }

    /// What `card_information` must hold, entry by entry: (field, value, SURE).
    pub fn expected(&self) -> Vec<(&'static str, String, bool)> {
        vec![
            ("document_type", "P".into(), false),
            ("issuing_state", self.state.clone(), false),
            ("id", self.number.clone(), true),
            ("last_name", self.surname.clone(), false),
            ("first_name", self.given.clone(), false),
            ("name", format!("{} {}", self.surname, self.given), false),
            ("nationality", self.state.clone(), false),
            ("dob", ddmmyyyy(&self.dob, 1900), true),
            ("gender", self.sex.to_string(), false),
            ("expiry_date", ddmmyyyy(&self.expiry, 2000), true),
        ]
    }
}

/// How a run of text is drawn: font, size in px, colour, and a fixed advance (`pitch`,
/// the MRZ's) or the font's own.
pub(crate) struct Pen<'a> {
    pub(crate) font: &'a FontVec,
    pub(crate) size: f32,
    pub(crate) color: [u8; 3],
    pub(crate) pitch: Option<f32>,
}

fn pen(font: &FontVec, size: f32, color: [u8; 3]) -> Pen<'_> {
    Pen { font, size, color, pitch: None }
}

/// Draws `text` from `x0` with its baseline at `baseline`.
pub(crate) fn draw_text(img: &mut RgbImage, pen: &Pen<'_>, x0: f32, baseline: f32, text: &str) {
    let (font, color, pitch) = (pen.font, pen.color, pen.pitch);
    let scale = PxScale::from(pen.size);
    let scaled = font.as_scaled(scale);
    let mut x = x0;
    for ch in text.chars() {
        let id = font.glyph_id(ch);
        if let Some(outline) = font.outline_glyph(id.with_scale_and_position(scale, point(x, baseline))) {
            let b = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                let (px, py) = (b.min.x as i64 + i64::from(gx), b.min.y as i64 + i64::from(gy));
                if px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height() {
                    let p = img.get_pixel_mut(px as u32, py as u32);
                    for (v, c) in p.0.iter_mut().zip(color) {
                        *v = (f32::from(*v) * (1.0 - coverage) + f32::from(c) * coverage).round() as u8;
                    }
                }
            });
        }
        x += pitch.unwrap_or_else(|| scaled.h_advance(id));
    }
}

/// `text` in the sans font at `size` px, black on white, with a margin of one size all
/// round: a band of print as the card reader reads one alone.
pub fn text_band(fonts: &Fonts, text: &str, size: f32) -> image::GrayImage {
    let width = (size * (2.0 + 0.7 * text.chars().count() as f32)).ceil() as u32;
    let mut img = RgbImage::from_pixel(width, (3.0 * size).ceil() as u32, Rgb([255, 255, 255]));
    draw_text(&mut img, &pen(&fonts.sans, size, [0, 0, 0]), size, 2.0 * size, text);
    image::DynamicImage::ImageRgb8(img).into_luma8()
}

/// OCR-B at the ICAO pitch of `pitch` px per character.
pub(crate) fn draw_mrz(img: &mut RgbImage, fonts: &Fonts, x: f32, baselines: &[f32], lines: &[String], pitch: f32) {
    let advance = fonts.ocr_b.as_scaled(PxScale::from(100.0)).h_advance(fonts.ocr_b.glyph_id('A'));
    let size = 100.0 * pitch / advance.max(1.0);
    let pen = Pen { font: &fonts.ocr_b, size, color: [15, 15, 20], pitch: Some(pitch) };
    for (line, y) in lines.iter().zip(baselines) {
        draw_text(img, &pen, x, *y, line);
    }
}

const TABLE: [u8; 3] = [95, 85, 75];

/// A page of `w`×`h` with a faint wavy tint.
fn page(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let t = ((x as f32 / 40.0).sin() * 6.0 + (y as f32 / 55.0).cos() * 6.0) as i32;
        Rgb([(232 + t) as u8, (236 + t) as u8, (226 - t / 2) as u8])
    })
}

/// A passport data page (125 × 88 mm at 10 px/mm) on a table, the zone `mrz` at its
/// bottom (`None`: a page without one).
pub fn passport_photo(fonts: &Fonts, p: &Passport, mrz: Option<&[String; 2]>) -> RgbImage {
    let mut photo = RgbImage::from_pixel(1500, 1100, Rgb(TABLE));
    imageops::overlay(&mut photo, &page(1250, 880), 125, 110);
    let (ox, oy) = (125.0, 110.0);
    draw_text(&mut photo, &pen(&fonts.sans, 34.0, [40, 40, 90]), ox + 380.0, oy + 60.0, "REPUBLIC OF INDIA  ·  PASSPORT");
    imageops::overlay(&mut photo, &RgbImage::from_pixel(300, 380, Rgb([180, 175, 170])), 175, 220);
    let rows = [
        ("Type / Code / Passport No.", format!("P   {}   {}", p.state, p.number)),
        ("Surname", p.surname.clone()),
        ("Given Name(s)", p.given.clone()),
        ("Nationality", "INDIAN".to_string()),
        ("Sex / Date of Birth", format!("{}   {}", p.sex, ddmmyyyy(&p.dob, 1900))),
        ("Date of Expiry", ddmmyyyy(&p.expiry, 2000)),
    ];
    for (i, (label, value)) in rows.iter().enumerate() {
        let y = oy + 140.0 + i as f32 * 62.0;
        draw_text(&mut photo, &pen(&fonts.sans, 18.0, [90, 90, 110]), ox + 400.0, y, label);
        draw_text(&mut photo, &pen(&fonts.sans, 28.0, [20, 20, 20]), ox + 400.0, y + 30.0, value);
    }
    if let Some(lines) = mrz {
        draw_mrz(&mut photo, fonts, ox + 60.0, &[oy + 780.0, oy + 835.0], lines, 25.4);
    }
    photo
}

/// The chip CCCD's back (ID-1, 85.6 × 54 mm at 12 px/mm) on a table: a few printed
/// lines above and the TD1 zone `mrz` at the bottom.
pub fn cccd_back_photo(fonts: &Fonts, mrz: &[String; 3]) -> RgbImage {
    let mut photo = RgbImage::from_pixel(1300, 900, Rgb(TABLE));
    imageops::overlay(&mut photo, &page(1027, 648), 136, 126);
    let (ox, oy) = (136.0, 126.0);
    for (i, t) in ["Dac diem nhan dang: Not ruoi C:1cm tren mep trai", "Ngay, thang, nam: 15/06/2021", "CUC TRUONG CUC CANH SAT QUAN LY HANH CHINH"].iter().enumerate() {
        draw_text(&mut photo, &pen(&fonts.sans, 22.0, [30, 30, 60]), ox + 40.0, oy + 60.0 + 40.0 * i as f32, t);
    }
    // 30 characters at 2.54 mm: 914 px at 12 px/mm.
    draw_mrz(&mut photo, fonts, ox + 55.0, &[oy + 500.0, oy + 552.0, oy + 604.0], mrz, 30.48);
    photo
}

/// A CCCD's TD1 zone as the card prints it: the document number is the ID number's last
/// 9 digits; the optional data the whole 12-digit number, two fillers and its check digit.
pub fn cccd_mrz(id: &str, dob: &str, sex: char, expiry: &str, names: &str) -> [String; 3] {
    let number = &id[id.len().saturating_sub(9)..];
    let l1 = format!("IDVNM{number}{}{id}<<{}", cd(number), cd(id));
    let mut l2 = format!("{dob}{}{sex}{expiry}{}VNM{}", cd(dob), cd(expiry), "<".repeat(11));
    let composite = cd(&format!("{}{}{}{}", &l1[5..30], &l2[0..7], &l2[8..15], &l2[18..29]));
    l2.push(composite);
    [l1, l2, pad(names, 30)]
}

/// How a photo is made harder to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Degradation {
    Clean,
    /// Gaussian blur, σ = 1.2 px.
    Blur,
    /// JPEG quality 50.
    Jpeg50,
    /// Rotated by 2° (bilinear).
    Rotate2,
    /// Blur σ = 1.0, rotated by −1.5°, then JPEG quality 50.
    All,
}

pub const DEGRADATIONS: [Degradation; 5] = [Degradation::Clean, Degradation::Blur, Degradation::Jpeg50, Degradation::Rotate2, Degradation::All];

fn rotate(img: &RgbImage, degrees: f32) -> RgbImage {
    let (w, h) = img.dimensions();
    let (s, c) = degrees.to_radians().sin_cos();
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    RgbImage::from_fn(w, h, |x, y| {
        let (dx, dy) = (x as f32 - cx, y as f32 - cy);
        let (sx, sy) = (c * dx + s * dy + cx, -s * dx + c * dy + cy);
        if sx < 0.0 || sy < 0.0 || sx >= (w - 1) as f32 || sy >= (h - 1) as f32 {
            return Rgb(TABLE);
        }
        let (x0, y0) = (sx.floor() as u32, sy.floor() as u32);
        let (fx, fy) = (sx - x0 as f32, sy - y0 as f32);
        let mut out = [0u8; 3];
        for (k, o) in out.iter_mut().enumerate() {
            let p = |xx: u32, yy: u32| f32::from(img.get_pixel(xx, yy).0[k]);
            let v = p(x0, y0) * (1.0 - fx) * (1.0 - fy) + p(x0 + 1, y0) * fx * (1.0 - fy) + p(x0, y0 + 1) * (1.0 - fx) * fy + p(x0 + 1, y0 + 1) * fx * fy;
            *o = v.round() as u8;
        }
        Rgb(out)
    })
}

pub fn jpeg(img: &RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality).encode_image(img).expect("encode JPEG");
    out
}

/// The photo degraded and encoded (JPEG quality 90 unless the degradation says 50).
pub fn degrade(img: &RgbImage, d: Degradation) -> Vec<u8> {
    match d {
        Degradation::Clean => jpeg(img, 90),
        Degradation::Blur => jpeg(&imageops::blur(img, 1.2), 90),
        Degradation::Jpeg50 => jpeg(img, 50),
        Degradation::Rotate2 => jpeg(&rotate(img, 2.0), 90),
        Degradation::All => jpeg(&rotate(&imageops::blur(img, 1.0), -1.5), 50),
    }
}

fn field<'a>(data: &'a Value, name: &str) -> Option<(&'a str, Option<&'a str>)> {
    let e = data["card_information"].as_array()?.iter().find(|e| e["field"] == name)?;
    Some((e["value"].as_str()?, e["confidence_verdict"].as_str()))
}

/// How many of `p`'s expected entries `data` holds exactly (value, and SURE where a check
/// digit covers it; entries no check digit covers may be either), and their number.
pub fn exact_matches(data: &Value, p: &Passport) -> (usize, usize) {
    let expected = p.expected();
    let ok = expected
        .iter()
        .filter(|(name, value, sure)| field(data, name).is_some_and(|(v, verdict)| v == value.as_str() && (!*sure || verdict == Some("SURE"))))
        .count();
    (ok, expected.len())
}

fn body(card_type: &str, image1: &[u8], image2: Option<&[u8]>) -> Value {
    let mut b = json!({"card_type": card_type, "image1": {"base64": B64.encode(image1), "label": "front", "metadata": {}}});
    if let Some(i2) = image2 {
        b["image2"] = json!({"base64": B64.encode(i2), "label": "back", "metadata": {}});
    }
    b
}

const PATH: &str = "/v1/read_id_card_info_with_sanity";

/// The HTTP end-to-end test (module doc).
pub async fn run(bus_url: &str) {
    let h = Harness::start(bus_url, |_| {}).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let fonts = Fonts::load();
    let sample = Passport::sample();

    if !OCR_COMPILED {
        // Any image will do: without an engine nothing is read.
        let r = c.call(&acme, PATH, &body("in.passport", &jpeg(&RgbImage::from_pixel(300, 200, Rgb([200, 200, 200])), 90), None)).await;
        assert_eq!((r.status, r.body["errors"][0]["detail"]["reason"].as_str()), (501, Some("not_performed")), "{:?}", r.body);
        println!("SKIPPED: passport MRZ reading end to end (built without the `ocr` feature; scripts/test.sh turns it on)");
        h.stop().await;
        return;
    }
    let fonts = fonts.expect("fonts for the synthetic passports");

    // A clean photo and the degraded ones: every field exact, checked ones SURE.
    let mrz = sample.mrz();
    let photo = passport_photo(&fonts, &sample, Some(&mrz));
    for d in [Degradation::Clean, Degradation::All] {
        let r = c.call(&acme, PATH, &body("in.passport", &degrade(&photo, d), None)).await;
        let data = &r.body["data"];
        assert_eq!((r.status, data["status"].as_str()), (200, Some("success")), "{d:?}: {:?}", r.body);
        assert_eq!(exact_matches(data, &sample), (10, 10), "{d:?}: {data}");
        let zone = &data["image1"]["mrz"];
        assert_eq!(zone["format"], "TD3", "{zone}");
        assert_eq!(zone["raw"].as_str().map(|s| s.lines().count()), Some(2), "{zone}");
        assert!(zone["check_digits"].as_object().is_some_and(|o| o.len() == 5 && o.values().all(|v| v == true)), "{zone}");
        assert_eq!(zone["parsed"].as_array().map(Vec::len), Some(10), "{zone}");
        assert_eq!(data["not_performed"], json!(["nfc"]), "{data}");
        assert!(data["image1"]["qr"].is_null() && data["image2"].is_null());
    }

    // The date of birth's check digit altered as printed: that entry UNSURE (never SURE),
    // the others still SURE; the composite fails too.
    let mut altered = mrz.clone();
    let bad = if altered[1].as_bytes()[19] == b'0' { '1' } else { '0' };
    altered[1].replace_range(19..20, &bad.to_string());
    let r = c.call(&acme, PATH, &body("in.passport", &degrade(&passport_photo(&fonts, &sample, Some(&altered)), Degradation::Clean), None)).await;
    let data = &r.body["data"];
    assert_eq!((r.status, data["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    assert_eq!(field(data, "dob"), Some(("15/08/1990", Some("UNSURE"))), "{data}");
    assert_eq!(field(data, "id"), Some(("Z1234567", Some("SURE"))), "{data}");
    assert_eq!(field(data, "expiry_date"), Some(("14/03/2031", Some("SURE"))), "{data}");
    assert_eq!((data["image1"]["mrz"]["check_digits"]["dob"].as_bool(), data["image1"]["mrz"]["check_digits"]["composite"].as_bool()), (Some(false), Some(false)), "{data}");

    // A data page without a zone: the zone was searched and not found.
    // What the print says may be read, but nothing is vouched for: no entry SURE.
    let r = c.call(&acme, PATH, &body("in.passport", &degrade(&passport_photo(&fonts, &sample, None), Degradation::Clean), None)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body["data"]["image1"]["mrz"].is_null(), "{:?}", r.body);
    assert!(r.body["data"]["card_information"].as_array().is_some_and(|a| a.iter().all(|e| e["confidence_verdict"] != "SURE")), "{:?}", r.body);
    assert_eq!(r.body["data"]["not_performed"], json!(["nfc"]));

    // Another state's passport, and an ID card's zone, sent as in.passport.
    let uto = Passport { state: "UTO".into(), ..Passport::sample() };
    let r = c.call(&acme, PATH, &body("in.passport", &degrade(&passport_photo(&fonts, &uto, Some(&uto.mrz())), Degradation::Clean), None)).await;
    assert_eq!((r.status, r.code()), (200, Some("incorrect_card_type")), "{:?}", r.body);
    assert_eq!(r.body["data"]["image1"]["mrz"]["parsed"].as_array().map(Vec::len), Some(10), "{:?}", r.body);

    // The chip CCCD: the QR on the front, the TD1 zone on the back. The zone's entries add
    // to the QR's (the QR's exact ones stay: name with its diacritics); its number
    // must be the QR's.
    let front = crate::card::card_photo_with(None, Some(&crate::card::qr(crate::card::CCCD)));
    let back = cccd_mrz("079203001234", "900101", 'M', "300101", "NGUYEN<<VAN<A");
    let r = c.call(&acme, PATH, &body("vn.national_id", &front, Some(&jpeg(&cccd_back_photo(&fonts, &back), 90)))).await;
    let data = &r.body["data"];
    assert_eq!((r.status, data["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    assert_eq!(field(data, "id"), Some(("079203001234", Some("SURE"))), "{data}");
    assert_eq!(field(data, "name"), Some(("Nguyễn Văn A", Some("SURE"))), "{data}");
    assert_eq!(field(data, "expiry_date"), Some(("01/01/2030", Some("SURE"))), "{data}");
    assert_eq!(field(data, "nationality").map(|f| f.0), Some("Việt Nam"), "{data}");
    assert_eq!(data["image2"]["mrz"]["format"], "TD1", "{data}");
    assert_eq!(data["not_performed"], json!(["nfc"]));
    let other = cccd_mrz("001099012345", "900101", 'M', "300101", "NGUYEN<<VAN<A");
    let r = c.call(&acme, PATH, &body("vn.national_id", &front, Some(&jpeg(&cccd_back_photo(&fonts, &other), 90)))).await;
    assert_eq!((r.status, r.code()), (200, Some("nocard_or_multicard_image")), "{:?}", r.body);
    h.stop().await;
}

/// One row of [`exact_match_table`].
#[derive(Debug, Clone, Copy)]
pub struct TableRow {
    pub degradation: Degradation,
    /// Entries read exactly (value, and SURE where a check digit covers it).
    pub exact: usize,
    pub entries: usize,
    /// Passports whose every entry was exact.
    pub passports_exact: usize,
    pub passports: usize,
}

/// The exact-match table: `samples` passports ([`Passport::sample`], then random ones
/// from `seed`) in every [`Degradation`], read by `read_zone` and mapped as the card
/// worker does.
pub fn exact_match_table(samples: usize, seed: u64) -> Result<Vec<TableRow>, String> {
    let ocr = idv_vision::ocr::recognizer().ok_or("the OCR engine is not in this build")?;
    if !ocr.has_language(idv_vision::mrz::MRZ_LANG) {
        return Err("the mrz language data is not installed (run scripts/models.sh)".into());
    }
    let fonts = Fonts::load()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let passports: Vec<Passport> = (0..samples).map(|i| if i == 0 { Passport::sample() } else { Passport::random(&mut rng) }).collect();
    let year = 2026;
    let judge = |lines: &[String]| idv_workers::card::mrz::judge(lines, year);
    let mut counts = [(0usize, 0usize, 0usize); DEGRADATIONS.len()];
    for p in &passports {
        // Drawn once, degraded five ways.
        let photo = passport_photo(&fonts, p, Some(&p.mrz()));
        for (i, d) in DEGRADATIONS.into_iter().enumerate() {
            let img = idv_vision::decode(&degrade(&photo, d), &idv_vision::DecodeLimits::cards()).map_err(|e| e.to_string())?;
            let read = idv_vision::mrz::read_zone(&img, ocr.as_ref(), &judge).map_err(|e| e.to_string())?;
            let entries = read
                .and_then(|r| idv_cards::mrz::parse_with_repair(&r.zone.lines.join("\n"), year).ok())
                .map(|m| idv_workers::card::mrz::passport_fields(&m))
                .unwrap_or_default();
            let (o, t) = exact_matches(&json!({"card_information": entries}), p);
            counts[i].0 += o;
            counts[i].1 += t;
            counts[i].2 += usize::from(o == t);
        }
    }
    let table = DEGRADATIONS
        .into_iter()
        .zip(counts)
        .map(|(degradation, (exact, entries, passports_exact))| TableRow { degradation, exact, entries, passports_exact, passports: passports.len() })
        .collect();
    Ok(table)
}
