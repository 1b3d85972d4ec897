//! Card reading end to end over HTTP: a synthetic card photo whose QR code holds a
//! Vietnam CCCD record (rendered with the `qrcode` crate, JPEG-encoded), read back through
//! ingest, the card worker, rqrr and the codec; wrong, damaged and missing QR codes, other
//! card types and corrupt images get their answers. India's Aadhaar: the XML QR, and the
//! signed Secure QR (made with the cards crate's TEST-ONLY key) without a certificate
//! configured ([`run`]) and with one ([`secure_qr_with_certificate`]).

use crate::{Harness, B64};
use base64::Engine as _;
use idv_cards::in_aadhaar_secure::{self as secure, SecureQrInput};
use image::{imageops, Luma, Rgb, RgbImage};
use serde_json::{json, Value};

pub const CCCD: &str = "079203001234|123456789|Nguyễn Văn A|01011990|Nam|12 Lê Lợi, Phường Bến Nghé, Quận 1, TP Hồ Chí Minh|15062021";

pub fn qr(text: &str) -> RgbImage {
    let code = qrcode::QrCode::new(text.as_bytes()).expect("encode QR");
    let luma = code.render::<Luma<u8>>().module_dimensions(4, 4).build();
    RgbImage::from_fn(luma.width(), luma.height(), |x, y| {
        let v = luma.get_pixel(x, y).0[0];
        Rgb([v, v, v])
    })
}

/// A card-sized light rectangle on a darker table, with `code` on its right, as JPEG.
fn card_photo(code: Option<&RgbImage>) -> Vec<u8> {
    card_photo_with(None, code)
}

/// As [`card_photo`], with `portrait` (scaled to 320 px high) on the card's left.
pub fn card_photo_with(portrait: Option<&RgbImage>, code: Option<&RgbImage>) -> Vec<u8> {
    // A table with a little texture, as every photo has (the card finder does not find a
    // card on a mathematically uniform background: a noted limit).
    let mut photo = RgbImage::from_fn(1400, 1000, |x, y| {
        let v = ((x * 7919 + y * 104_729) % 13) as u8;
        Rgb([84 + v, 74 + v, 64 + v])
    });
    let card = RgbImage::from_pixel(1000, 630, Rgb([235, 240, 230]));
    imageops::overlay(&mut photo, &card, 200, 185);
    if let Some(p) = portrait {
        let w = (p.width() * 320 / p.height().max(1)).max(1);
        let small = imageops::resize(p, w, 320, imageops::FilterType::Triangle);
        imageops::overlay(&mut photo, &small, 250, 300);
    }
    if let Some(code) = code {
        imageops::overlay(&mut photo, code, 850, 250);
    }
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90).encode_image(&photo).expect("encode JPEG");
    jpeg
}

fn png(img: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).expect("encode PNG");
    out
}

fn field<'a>(data: &'a Value, name: &str) -> Option<&'a str> {
    data["card_information"].as_array()?.iter().find(|e| e["field"] == name)?["value"].as_str()
}

pub async fn run(bus_url: &str) {
    let h = Harness::start(bus_url, |_| {}).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let read = |card_type: &str, image1: Vec<u8>, qr1: Option<Vec<u8>>| {
        let mut body = json!({"card_type": card_type, "image1": {"base64": B64.encode(image1), "label": "front", "metadata": {}}});
        if let Some(q) = qr1 {
            body["qr1_images"] = json!([{"base64": B64.encode(q), "label": "qr", "metadata": {}}]);
        }
        body
    };

    // The QR on the card's face.
    let ok = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("vn.national_id", card_photo(Some(&qr(CCCD))), None)).await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
    let d = &ok.body["data"];
    assert_eq!(d["status"], "success", "{d}");
    assert_eq!(field(d, "id"), Some("079203001234"));
    assert_eq!(field(d, "name"), Some("Nguyễn Văn A"));
    assert_eq!(field(d, "dob"), Some("01/01/1990"));
    assert_eq!(field(d, "issue_date"), Some("15/06/2021"));
    assert_eq!(d["image1"]["qr"]["raw"], CCCD);
    assert!(d["image2"].is_null());
    // The print was read where OCR is in the build (none on this card). Card sanity and
    // the card box are covered on realistic photos by card_types.rs.
    assert_eq!(d["image1"]["ocr"].is_null(), !crate::passport::OCR_COMPILED, "{d}");
    assert!(d["card_information"].as_array().is_some_and(|a| a.iter().filter(|e| e["field"] != "document_number").all(|e| e["confidence_verdict"] == "SURE")), "QR data: {d}");
    // The zone's document number, the number's last nine digits, is given from the QR's
    // number where no zone was read: by the card's convention, not read, so UNSURE.
    let document_number = d["card_information"].as_array().and_then(|a| a.iter().find(|e| e["field"] == "document_number").cloned());
    assert_eq!(document_number.map(|e| (e["value"].clone(), e["confidence_verdict"].clone())), Some((json!("203001234"), json!("UNSURE"))), "{d}");

    // The QR as a separate close-up (qr1_images), the card photo without one.
    let ok = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("vn.national_id", card_photo(None), Some(png(&qr(CCCD))))).await;
    assert_eq!((ok.status, field(&ok.body["data"], "gender")), (200, Some("M")), "{:?}", ok.body);

    // Another QR code, a damaged record, no QR at all, a card type without a codec.
    let other = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("vn.national_id", card_photo(Some(&qr("https://example.com/promo"))), None)).await;
    assert_eq!((other.status, other.code()), (200, Some("incorrect_card_type")), "{:?}", other.body);
    let damaged = CCCD.replace("01011990", "31021990");
    let bad = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("vn.national_id", card_photo(Some(&qr(&damaged))), None)).await;
    assert_eq!((bad.status, bad.code()), (200, Some("bad_quality_card_image")), "{:?}", bad.body);
    // No QR and no print: without OCR nothing could read it (501); with OCR the card
    // was read and holds nothing: a failure, never a field.
    let none = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("vn.national_id", card_photo(None), None)).await;
    let pan = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("in.pan", card_photo(Some(&qr(CCCD))), None)).await;
    for r in [&none, &pan] {
        if crate::passport::OCR_COMPILED {
            assert_eq!(r.status, 200, "{:?}", r.body);
            assert_eq!(r.body["data"]["status"], "failure", "{:?}", r.body);
            assert_eq!(r.body["data"]["card_information"], json!([]), "{:?}", r.body);
        } else {
            assert_eq!((r.status, r.body["errors"][0]["detail"]["reason"].as_str()), (501, Some("not_performed")), "{:?}", r.body);
        }
    }

    // India's original Aadhaar QR (XML); the newer signed Secure QR is not read here.
    let aadhaar = r#"<?xml version="1.0" encoding="UTF-8"?><PrintLetterBarcodeData uid="234123412346" name="Rahul Kumar" gender="M" yob="1990" house="12" street="MG Road" vtc="Gurgaon" state="Haryana" pc="122001" dob="15/08/1990"/>"#;
    let ok = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("in.aadhaar", card_photo(Some(&qr(aadhaar))), None)).await;
    assert_eq!((ok.status, field(&ok.body["data"], "id")), (200, Some("234123412346")), "{:?}", ok.body);
    assert_eq!(field(&ok.body["data"], "address"), Some("12, MG Road, Gurgaon, Haryana"));
    // A long number that is no Secure QR (not gzip): another code.
    let not_secure = "4".repeat(600);
    let r = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("in.aadhaar", card_photo(Some(&qr(&not_secure))), None)).await;
    assert_eq!((r.status, r.code()), (200, Some("incorrect_card_type")), "{:?}", r.body);
    // The Secure QR, no certificate configured: read, its signature `not_verified`, the
    // fields as read (QR data: SURE, like the unsigned XML QR's).
    let code = secure::encode_secure_qr_for_tests(&SecureQrInput::sample(), secure::test_key::PKCS8_DER);
    let r = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("in.aadhaar", card_photo(Some(&qr(&code))), None)).await;
    let d = &r.body["data"];
    assert_eq!((r.status, d["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    assert_eq!(field(d, "id_last4"), Some("2346"));
    assert_eq!(field(d, "name"), Some("Rahul Kumar"));
    assert_eq!(field(d, "dob"), Some("15/08/1990"));
    assert_eq!(field(d, "mobile_last4"), Some("5678"));
    assert_eq!(field(d, "address"), Some("S/O Ram Kumar, 12, MG Road, Near Temple, Sector 5, Gurgaon, Gurgaon, Gurgaon, Gurgaon, Haryana"));
    assert_eq!((d["image1"]["qr"]["signature"].as_str(), d["image1"]["qr"]["version"].as_str()), (Some("not_verified"), Some("V2")), "{d}");
    assert_eq!(d["image1"]["qr"]["raw"], code.as_str());
    assert!(d["card_information"].as_array().is_some_and(|a| a.iter().all(|e| e["confidence_verdict"] == "SURE")), "{d}");
    let wrong_check_digit = aadhaar.replace("234123412346", "234123412345");
    let r = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("in.aadhaar", card_photo(Some(&qr(&wrong_check_digit))), None)).await;
    assert_eq!((r.status, r.code()), (200, Some("bad_quality_card_image")), "{:?}", r.body);

    // Front and a QR close-up of two different cards.
    let other_card = CCCD.replace("079203001234", "001099012345");
    let mut two = read("vn.national_id", card_photo(Some(&qr(CCCD))), None);
    two["image2"] = json!({"base64": B64.encode(card_photo(Some(&qr(&other_card)))), "label": "back", "metadata": {}});
    let r = c.call(&acme, "/v1/read_id_card_info_with_sanity", &two).await;
    assert_eq!((r.status, r.code()), (200, Some("nocard_or_multicard_image")), "{:?}", r.body);

    // Bytes that are not an image: 400 naming the field.
    let junk = c.call(&acme, "/v1/read_id_card_info_with_sanity", &read("vn.national_id", b"not an image at all".to_vec(), None)).await;
    assert_eq!((junk.status, junk.code()), (400, Some("invalid_parameter_exception")), "{:?}", junk.body);
    assert_eq!(junk.body["errors"][0]["detail"]["field"], "image1", "{:?}", junk.body);
    h.stop().await;
}

/// The request body of a card read with one front image.
fn read_body(card_type: &str, image1: Vec<u8>) -> Value {
    json!({"card_type": card_type, "image1": {"base64": B64.encode(image1), "label": "front", "metadata": {}}})
}

/// The Aadhaar Secure QR with `IDV_AADHAAR_CERT` set (the test key's certificate, PEM):
/// a genuine code is `verified`; an altered one `failed`, answered `failure` with its
/// fields marked UNSURE; a card number that does not end with the Secure QR's last
/// digits is another card; a certificate file that does not load stops the start.
pub async fn secure_qr_with_certificate(bus_url: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cert = dir.path().join("uidai.pem");
    std::fs::write(&cert, secure::test_key::CERT_PEM).expect("write the certificate");
    let bad = dir.path().join("bad.pem");
    std::fs::write(&bad, "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n").expect("write a bad file");
    let settings = |path: &std::path::Path| idv::Settings { aadhaar_cert: Some(path.to_path_buf()), ..Default::default() };
    assert!(settings(&bad).aadhaar_keys().is_err());
    assert!(settings(&dir.path().join("missing.pem")).aadhaar_keys().is_err());
    assert!(matches!(settings(&cert).aadhaar_keys(), Ok(Some(_))));

    let h = Harness::start(bus_url, |s| s.aadhaar_cert = Some(cert.clone())).await;
    let c = &h.client;
    let acme = h.create_key("acme").await;
    let path = "/v1/read_id_card_info_with_sanity";

    let input = SecureQrInput::sample();
    let code = secure::encode_secure_qr_for_tests(&input, secure::test_key::PKCS8_DER);
    let r = c.call(&acme, path, &read_body("in.aadhaar", card_photo(Some(&qr(&code))))).await;
    let d = &r.body["data"];
    assert_eq!((r.status, d["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    assert_eq!(d["image1"]["qr"]["signature"], "verified", "{d}");
    assert_eq!((field(d, "name"), field(d, "pin_code")), (Some("Rahul Kumar"), Some("122001")));
    assert!(d["card_information"].as_array().is_some_and(|a| a.iter().all(|e| e["confidence_verdict"] == "SURE")), "{d}");

    // One letter of the name changed after signing: well-formed, signature failed.
    let mut signed = secure::sign_for_tests(&input.signed_bytes(), secure::test_key::PKCS8_DER);
    let at = signed.windows(5).position(|w| w == b"Rahul").expect("the name is in the signed bytes");
    signed[at] = b'M';
    let altered = secure::compress_to_decimal_for_tests(&signed);
    let r = c.call(&acme, path, &read_body("in.aadhaar", card_photo(Some(&qr(&altered))))).await;
    let d = &r.body["data"];
    assert_eq!((r.status, r.code(), d["status"].as_str()), (200, Some("bad_quality_card_image"), Some("failure")), "{:?}", r.body);
    assert_eq!(d["image1"]["qr"]["signature"], "failed", "{d}");
    assert_eq!(field(d, "name"), Some("Mahul Kumar"));
    let entries = d["card_information"].as_array().cloned().unwrap_or_default();
    assert!(!entries.is_empty() && entries.iter().all(|e| e["confidence_verdict"] == "UNSURE"), "{d}");

    // The Secure QR on the front, the XML QR of another number on the back.
    let other = r#"<PrintLetterBarcodeData uid="234123412346" name="Rahul Kumar" gender="M" dob="15/08/1990"/>"#;
    let mine = SecureQrInput { reference_id: "999920190612163521011".into(), ..SecureQrInput::sample() };
    let mut body = read_body("in.aadhaar", card_photo(Some(&qr(&secure::encode_secure_qr_for_tests(&mine, secure::test_key::PKCS8_DER)))));
    body["image2"] = json!({"base64": B64.encode(card_photo(Some(&qr(other)))), "label": "back", "metadata": {}});
    let r = c.call(&acme, path, &body).await;
    assert_eq!((r.status, r.code()), (200, Some("nocard_or_multicard_image")), "{:?}", r.body);
    // The same number on both: one card (the XML QR's number ends with 2346).
    body["image1"] = read_body("in.aadhaar", card_photo(Some(&qr(&code))))["image1"].clone();
    let r = c.call(&acme, path, &body).await;
    assert_eq!((r.status, r.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    assert_eq!(field(&r.body["data"], "id"), Some("234123412346"));
    h.stop().await;
}
