//! (3) The card codecs in `idv_cards` (pure functions over a QR's or an MRZ's text):
//! Vietnam's CCCD QR, India's Aadhaar XML QR, the Aadhaar Secure QR (decimal → gzip →
//! fields → RSA signature; mutated three ways so every layer is reached), and the MRZ
//! (with and without the OCR repair).

use super::{sig_str, Harness, Target};
use crate::mutate::Shape;
use crate::rng::fnv1a;
use idv_cards::in_aadhaar_secure::{self as secure, Layout, SecureQrInput, UidaiKeys};
use idv_cards::{in_aadhaar, mrz, vn_cccd, CardField, CodecError};
use std::sync::OnceLock;

/// The current year the MRZ codec places two-digit years against.
const YEAR: u32 = 2026;

pub const CCCD_SAMPLE: &str = "079203001234|123456789|Nguyễn Văn A|29021992|Nam|12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh|15062021";
pub const AADHAAR_XML_SAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<PrintLetterBarcodeData uid="234123412346" name="Rahul Kumar" gender="M" yob="1990" co="S/O Ram &amp; Sons" house="12" street="MG Road" lm="Near Temple" loc="Sector 5" vtc="Gurgaon" po="Gurgaon" dist="Gurgaon" subdist="Gurgaon" state="Haryana" pc="122001" dob="15/08/1990"/>"#;
pub const MRZ_TD3: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10";
const MRZ_TD1: &str = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<";
const MRZ_TD2: &str = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6";
const MRZ_TD1_LONG: &str = "I<UTOD23145890<7349<<<<<<<<<<<\n3407127M9507122UTO<<<<<<<<<<<2\nSTEVENSON<<PETER<JOHN<<<<<<<<<";

fn keys() -> Option<&'static UidaiKeys> {
    static KEYS: OnceLock<Option<UidaiKeys>> = OnceLock::new();
    KEYS.get_or_init(|| UidaiKeys::from_bytes(secure::test_key::CERT_PEM.as_bytes()).ok()).as_ref()
}

fn err_sig(e: &CodecError) -> u64 {
    match e {
        CodecError::NotThisCard(c) => fnv1a(c.as_bytes()),
        CodecError::InvalidField { field, reason } => sig_str(&format!("{field}|{}", reason.split(':').next().unwrap_or(""))),
        CodecError::Unsupported(c) => 7 ^ fnv1a(c.as_bytes()),
    }
}

fn fields_sig(f: &[CardField]) -> u64 {
    f.iter().fold(f.len() as u64, |h, x| h.wrapping_mul(31) ^ fnv1a(x.field.as_bytes()) ^ u64::from(x.confidence_verdict.is_some()))
}

fn sig_of(r: &Result<Vec<CardField>, CodecError>) -> u64 {
    match r {
        Ok(f) => fields_sig(f),
        Err(e) => err_sig(e),
    }
}

fn secure_sig(r: &Result<secure::SecureQr, CodecError>) -> u64 {
    match r {
        Ok(q) => fields_sig(&q.fields) ^ fnv1a(q.signature.as_str().as_bytes()) ^ fnv1a(q.layout.name().as_bytes()),
        Err(e) => err_sig(e),
    }
}

fn mrz_sig(text: &str) -> u64 {
    let plain = mrz::parse(text, YEAR);
    let repaired = mrz::parse_with_repair(text, YEAR);
    let mut sig = 0u64;
    if let Ok(m) = &plain {
        sig = fields_sig(&m.card_fields()) ^ u64::from(m.all_checks_passed()) ^ (m.check_digits.len() as u64).wrapping_mul(3);
        let _ = (m.check_digit("document_number"), m.field("dob"));
        if m.all_checks_passed() {
            // Nothing to repair in a zone whose every check digit passes.
            if let Ok(r) = &repaired {
                assert!(r.repairs.is_empty(), "repairs made to a zone whose checks all pass: {:?}", r.repairs);
            }
        }
    } else if let Err(e) = &plain {
        sig = err_sig(e);
    }
    if let Ok(r) = &repaired {
        sig = sig.wrapping_mul(31) ^ (r.repairs.len() as u64) ^ u64::from(r.all_checks_passed());
        let _ = r.card_fields();
    }
    let _ = mrz::check_digit(text);
    sig
}

/// Every codec over one QR text, as the card handler may try them.
pub fn read_as_card_handler(text: &str) -> u64 {
    sig_of(&vn_cccd::parse(text))
        ^ sig_of(&in_aadhaar::parse(text)).wrapping_mul(3)
        ^ secure_sig(&secure::parse(text, keys())).wrapping_mul(5)
        ^ mrz_sig(text).wrapping_mul(7)
}

fn text_harness(parse: fn(&str) -> Result<Vec<CardField>, CodecError>) -> Harness {
    Box::new(move |b: &[u8]| sig_of(&parse(&String::from_utf8_lossy(b))))
}

fn secure_inputs() -> Vec<SecureQrInput> {
    let base = SecureQrInput::sample();
    let mut v3 = base.clone();
    v3.layout = Layout::V3;
    v3.mobile_last4 = String::new();
    let mut out = vec![base.clone(), v3];
    for indicator in 0..4u8 {
        let mut o = base.clone();
        o.layout = Layout::Original;
        o.email_mobile_indicator = indicator;
        o.name = "José Müller".into();
        o.dob = if indicator == 2 { "1990".into() } else { "01-01-1990".into() };
        out.push(o);
    }
    let mut empty_photo = base;
    empty_photo.photo.clear();
    out.push(empty_photo);
    out
}

fn secure_seeds() -> Vec<Vec<u8>> {
    let pk8 = secure::test_key::PKCS8_DER;
    let mut out = Vec::new();
    for input in secure_inputs() {
        // Mode 0: the decimal text a camera reads.
        out.push([&[0u8][..], secure::encode_secure_qr_for_tests(&input, pk8).as_bytes()].concat());
        // Mode 1: signed bytes and signature, gzipped and written as decimal by the harness.
        out.push([vec![1u8], secure::sign_for_tests(&input.signed_bytes(), pk8)].concat());
        // Mode 2: signed bytes only; the harness signs them with the test key.
        out.push([vec![2u8], input.signed_bytes()].concat());
    }
    out
}

fn secure_harness() -> Harness {
    Box::new(|b: &[u8]| {
        let Some((&mode, data)) = b.split_first() else { return 0 };
        match mode % 3 {
            0 => {
                let text = String::from_utf8_lossy(data);
                secure_sig(&secure::parse(&text, None)) ^ secure_sig(&secure::parse(&text, keys())).wrapping_mul(3)
            }
            1 => {
                let text = secure::compress_to_decimal_for_tests(data);
                11 ^ secure_sig(&secure::parse(&text, None)) ^ secure_sig(&secure::parse(&text, keys())).wrapping_mul(3)
            }
            _ => {
                let text = secure::compress_to_decimal_for_tests(&secure::sign_for_tests(data, secure::test_key::PKCS8_DER));
                let r = secure::parse(&text, keys());
                if let Ok(q) = &r {
                    assert_eq!(q.signature, secure::Signature::Verified, "a code signed with the configured key did not verify");
                }
                13 ^ secure_sig(&r)
            }
        }
    })
}

fn mrz_seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<String> = [MRZ_TD3, MRZ_TD1, MRZ_TD2, MRZ_TD1_LONG].iter().map(|s| s.to_string()).collect();
    v.push(MRZ_TD3.replace('\n', ""));
    v.push(MRZ_TD1.replace('\n', ""));
    v.push(format!("\n  {}  \n\n", MRZ_TD2.replace('\n', "\n\n")));
    // OCR confusions the repair step handles (from mrz.rs's tests).
    v.push(MRZ_TD3.replace("1204159ZE", "I2O4IS9ZE").replace("<<<<<10", "<<<<<1O"));
    v.push(MRZ_TD3.replacen("P<", "V<", 1));
    v.into_iter().map(String::into_bytes).collect()
}

fn chars_dict(s: &str) -> Vec<Vec<u8>> {
    s.split(' ').map(|t| t.as_bytes().to_vec()).collect()
}

/// Printed-card seeds: the first line names the card type and side (`in.pan front`),
/// the rest are OCR lines in reading order; a `~` prefix marks a low-confidence line.
const PRINTED_SEEDS: [&str; 4] = [
    "in.pan front\n~sme faa INCOME TAX DEPARTMENT\n~on Wat GOVT. OF INDIA\nPermanent Account Nurnber Card\nA8CPK1Z34F\n~aa / Name\nRAHUL KUMAR\n~fa Ht ara / Fathers Name\nRAMESH KUMAR\n~oa Ht art / Date of Brith\n14/O8/1991",
    "vn.national_id front\nCONG HOA XA HOI CHU NGHIA VIET NAM\nCAN CUOC CONG DAN\nSo / No: 0013O1012345\nHo va ten / Full narne\nNGUYEN THI BICH\nNgay sinh / Date of birth 05-11-2001\nGioi tinh / Sex: Nu   Quoc tich / Nationality: VIET NAM\nQue quan / Place of origin: Dong Anh, Ha Noi",
    "in.aadhaar front\nGovernment of India\nRahul Kumar\nDOB: 15/08/1990\nMale\n2341 2341 2346\nVID : 9123 4567 8901 2345",
    "in.voter back\nELECTION COMMISSION OF INDIA\nABC1234567\nAddress: 12 MG Road, Gurgaon\nDate: 01/01/2020",
];

/// Splits a printed-card input into (card type, side, lines) as the OCR would give them.
fn printed_input(b: &[u8]) -> (&'static str, idv_cards::printed::Side, Vec<idv_cards::printed::TextLine>) {
    use idv_cards::printed::{Side, TextLine, CARD_TYPES};
    let text = String::from_utf8_lossy(b);
    let mut it = text.split('\n');
    let head = it.next().unwrap_or("");
    let card = CARD_TYPES.iter().find(|t| head.starts_with(**t)).copied().unwrap_or(CARD_TYPES[(fnv1a(head.as_bytes()) % 6) as usize]);
    let side = if head.contains("back") { Side::Back } else { Side::Front };
    let lines = it
        .enumerate()
        .map(|(i, t)| {
            let (text, confidence) = match t.strip_prefix('~') {
                Some(rest) => (rest.to_string(), 0.3),
                None => (t.to_string(), 0.9),
            };
            let y = 40u32.saturating_add(40u32.saturating_mul(i as u32));
            TextLine { text, confidence, x: 40, y, width: 600, height: 30 }
        })
        .collect();
    (card, side, lines)
}

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "card_printed",
            about: "idv_cards::printed::parse_printed and classify (OCR lines of every card type)",
            shape: Shape::Text,
            json_after_line: false,
            max_len: 8192,
            seeds: || PRINTED_SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect(),
            dict: || chars_dict("/ : - Name DOB Male Female Nam Nu 0 O 1 l I 8 B 5 S INCOME TAX DEPARTMENT Permanent Account Number CAN CUOC CONG DAN ELECTION COMMISSION REPUBLIC OF INDIA P<IND \u{0} \u{202e} ~"),
            harness: || {
                Box::new(|b: &[u8]| {
                    let (card, side, lines) = printed_input(b);
                    let fields = idv_cards::printed::parse_printed(card, side, &lines);
                    for f in &fields {
                        assert!((0.0..=1.0).contains(&f.confidence), "confidence out of range: {f:?}");
                        assert!(f.lines.iter().all(|&i| i < lines.len()), "line index out of range: {f:?}");
                    }
                    let classes = idv_cards::printed::classify(&lines);
                    fields.iter().fold(classes.len() as u64, |h, f| h.wrapping_mul(31) ^ fnv1a(f.field.as_bytes()))
                })
            },
        },
        Target {
            name: "card_vn_cccd",
            about: "idv_cards::vn_cccd::parse (CCCD QR text)",
            shape: Shape::Text,
            json_after_line: false,
            max_len: 4096,
            seeds: || {
                [CCCD_SAMPLE.to_string(), CCCD_SAMPLE.replace("|123456789|", "||"), format!("{CCCD_SAMPLE}|15062046|extra"), CCCD_SAMPLE.replace("|Nam|", "|Nữ|")]
                    .into_iter()
                    .map(String::into_bytes)
                    .collect()
            },
            dict: || chars_dict("| Nam Nữ Nu Nư 29021992 31122099 00000000 079203001234 123456789 \u{0} \u{202e}"),
            harness: || text_harness(vn_cccd::parse),
        },
        Target {
            name: "card_in_aadhaar_xml",
            about: "idv_cards::in_aadhaar::parse (XML QR)",
            shape: Shape::Text,
            json_after_line: false,
            max_len: 8192,
            seeds: || {
                [
                    AADHAAR_XML_SAMPLE.to_string(),
                    AADHAAR_XML_SAMPLE.replace("15/08/1990", "1990-08-15"),
                    AADHAAR_XML_SAMPLE.replace("\"", "'"),
                    AADHAAR_XML_SAMPLE.replace("/>", ">"),
                ]
                .into_iter()
                .map(String::into_bytes)
                .collect()
            },
            dict: || chars_dict("<PrintLetterBarcodeData /> > = \" ' &amp; &lt; &gt; &quot; &apos; &#65; &#x41; &#; &#xFFFFFFFF; &bogus; uid name gender yob dob pc co"),
            harness: || text_harness(in_aadhaar::parse),
        },
        Target {
            name: "card_in_aadhaar_secure",
            about: "idv_cards::in_aadhaar_secure::parse: decimal text (mode 0), signed payload gzipped (1), payload re-signed with the test key (2)",
            shape: Shape::Bytes,
            json_after_line: false,
            max_len: 16 * 1024,
            seeds: secure_seeds,
            dict: || vec![vec![0xff], b"V2".to_vec(), b"V3".to_vec(), b"V4".to_vec(), b"\xff\x4f\xff\x51".to_vec(), b"01-01-1990".to_vec(), b"M".to_vec(), b"T".to_vec(), b"122001".to_vec()],
            harness: secure_harness,
        },
        Target {
            name: "card_mrz",
            about: "idv_cards::mrz::parse and parse_with_repair (TD1, TD2, TD3)",
            shape: Shape::Text,
            json_after_line: false,
            max_len: 4096,
            seeds: mrz_seeds,
            dict: || chars_dict("< << <<<<<<<<< \n P< I< V< ID UTO D<< O I B S 0 1 8 5 740812 120415"),
            harness: || Box::new(|b: &[u8]| mrz_sig(&String::from_utf8_lossy(b))),
        },
    ]
}
