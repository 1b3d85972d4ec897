//! (8) The multipart upload form (`idv_ingest::uploads::parse_form`, async, on a
//! current-thread runtime). (9) Video: ffprobe's JSON answer about an uploaded file
//! (`idv_vision::video::parse_probe`) and the sampling filter built from it
//! (`filter_chain`); the file itself is only ever parsed by ffmpeg in a child process.
//! SIM: the phone number, date and OTP parsers and the verdicts over the operators'
//! JSON answers (`idv_workers::sim`).

use super::{fields, is_client_input_error, sig_err, sig_str, Harness, Target};
use crate::mutate::Shape;
use crate::rng::fnv1a;
use bytes::Bytes;
use idv_workers::sim;
use serde_json::Value;

// ------------------------------------------------------------------ multipart

const BOUNDARY: &str = "----idv-test-boundary";

fn form(parts: &[(&str, Option<&str>, &[u8])], content_type: &str) -> Vec<u8> {
    let mut body = format!("{content_type}\n").into_bytes();
    for (name, filename, data) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match filename {
            Some(f) => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: image/jpeg\r\n\r\n").as_bytes()),
            None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
        }
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

fn multipart_seeds() -> Vec<Vec<u8>> {
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    let quoted = format!("multipart/form-data; charset=utf-8; boundary=\"{BOUNDARY}\"");
    vec![
        form(&[("file", Some("face.jpg"), b"\xff\xd8jpeg"), ("label", None, b"portrait"), ("metadata[source]", None, b"web"), ("imageLabel", None, b"x")], &ct),
        form(&[("metadata", None, br#"{"k":"v","n":1}"#), ("file", Some("a.mp4"), b"\x00\x00\x00\x18ftypmp42")], &quoted),
        form(&[("file", None, b"12345")], &ct),
        form(&[("label", None, b"no file")], &ct),
    ]
}

fn multipart_harness() -> Harness {
    #[allow(clippy::expect_used)]
    let rt = tokio::runtime::Builder::new_current_thread().build().expect("a current-thread runtime");
    Box::new(move |b: &[u8]| {
        let (ct, body) = match b.iter().position(|&c| c == b'\n') {
            Some(i) => (String::from_utf8_lossy(&b[..i]).into_owned(), &b[i + 1..]),
            None => (String::new(), b),
        };
        match rt.block_on(idv_ingest::uploads::parse_form(Some(ct.as_str()), Bytes::copy_from_slice(body), 64 * 1024)) {
            Ok(f) => {
                assert!(!f.file.is_empty() && f.file.len() <= 64 * 1024, "parse_form accepted a file of {} bytes", f.file.len());
                1 + (f.metadata.len().min(4) as u64) * 2 + u64::from(f.label.is_some()) * 16 + u64::from(f.filename.is_some()) * 32
            }
            Err(e) => {
                assert!(is_client_input_error(&e), "parse_form answered {e:?}");
                sig_err(1, &e)
            }
        }
    })
}

// ------------------------------------------------------------------ video probe

fn probe_seeds() -> Vec<Vec<u8>> {
    [
        r#"{"programs":[],"streams":[{"width":640,"height":360,"duration":"2.400000"}],"format":{"duration":"2.433"}}"#,
        r#"{"streams":[{"width":8,"height":6,"nb_read_packets":"95"}],"format":{}}"#,
        r#"{"streams":[{"width":8,"height":6}],"format":{"duration":"5.5"}}"#,
        r#"{"streams":[{"width":1920,"height":1080,"duration":"0.000001"}]}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

fn probe_harness() -> Harness {
    Box::new(|b: &[u8]| match idv_vision::video::parse_probe(b) {
        None => 1,
        Some(info) => {
            let mut sig = 2 + u64::from(info.duration_s.is_some()) * 4 + u64::from(info.packets.is_some()) * 8;
            for n in [12usize, 1, 0, 300] {
                let chain = idv_vision::video::filter_chain(n, &info, 1280);
                sig = sig.wrapping_mul(31) ^ sig_str(&chain.chars().filter(|c| !c.is_ascii_digit() && *c != '.').collect::<String>());
            }
            sig
        }
    })
}

// ------------------------------------------------------------------ SIM

fn sim_seeds() -> Vec<Vec<u8>> {
    let answers = serde_json::json!({
        "kyc_match": {"idDocumentMatch": "true", "nameMatch": false, "birthdateMatch": "not_available"},
        "device_swap": {"swapped": false},
        "call_forwardings": ["inactive"],
        "unconditional_call_forwardings": {"active": true},
        "subscription_status": {"voiceSmsIn": "active", "voiceSmsOut": "active"},
        "device_reachability": {"reachable": true, "lastStatusTime": "2026-01-01T00:00:00Z"},
        "number_recycling": {"phoneNumberRecycled": true}
    })
    .to_string();
    vec![
        super::lines(&["+84912345678", "+84", "01/01/1990", "123456", "is_id", &answers]),
        super::lines(&["0912 345-678", "+84", "29/02/2024", "12ab", "is_active_last_90", r#"{"call_forwardings":["unconditional",1]}"#]),
        super::lines(&["0084 (912) 345.678", "", "31/12/2100", "", "is_use_cf_service", "{}"]),
    ]
}

fn sim_harness() -> Harness {
    let now = time::macros::datetime!(2026-01-02 0:00 UTC);
    Box::new(move |b: &[u8]| {
        let f = fields(b, 6);
        // The default country code is operator configuration (the telcos file), not
        // request input: an E.164 country code or none.
        let cc = match f[1].as_str() {
            "" => None,
            c if c.len() > 1 && c.len() <= 4 && c.starts_with('+') && c[1..].bytes().all(|b| b.is_ascii_digit()) => Some(c),
            _ => Some("+84"),
        };
        let mut sig = 0u64;
        if let Some(n) = sim::normalize_number(&f[0], cc) {
            assert!(n.starts_with('+') && n[1..].bytes().all(|c| c.is_ascii_digit()), "normalize_number gave {n:?}");
            sig |= 1;
        }
        sig |= u64::from(sim::camara_date(&f[2]).is_some()) << 1;
        sig |= u64::from(sim::OtpFormat::default().accepts(f[3].trim())) << 2;
        sig |= u64::from(sim::api_of(&f[4]).is_some()) << 3;
        let v: Value = serde_json::from_str(&f[5]).unwrap_or(Value::Null);
        let get = |k: &str| v.get(k).cloned();
        let answers = sim::Answers {
            kyc_match: get("kyc_match"),
            device_swap: get("device_swap"),
            call_forwardings: get("call_forwardings"),
            unconditional_call_forwardings: get("unconditional_call_forwardings"),
            subscription_status: get("subscription_status"),
            device_reachability: get("device_reachability"),
            number_recycling: get("number_recycling"),
        };
        for statement in idv_schemas::api::SIM_INFO_FIELDS.iter().copied().chain([f[4].as_str()]) {
            sig = sig.wrapping_mul(31) ^ fnv1a(format!("{:?}", sim::statement_verdict(statement, &answers, now)).as_bytes());
        }
        sig
    })
}

pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "multipart_form",
            about: "idv_ingest::uploads::parse_form (first line: the Content-Type header; then the body)",
            shape: Shape::Lines,
            json_after_line: false,
            max_len: 256 * 1024,
            seeds: multipart_seeds,
            dict: || {
                ["--", "\r\n", "\r\n\r\n", BOUNDARY, "Content-Disposition: form-data; ", "name=", "filename=", "filename*=UTF-8''a", "Content-Type: ", "file", "label", "metadata", "metadata[", "]", "boundary=", "multipart/form-data", "\"", ";"]
                    .iter()
                    .map(|s| s.as_bytes().to_vec())
                    .collect()
            },
            harness: multipart_harness,
        },
        Target {
            name: "video_probe",
            about: "idv_vision::video::parse_probe (ffprobe's JSON about an uploaded video) and filter_chain",
            shape: Shape::Json,
            json_after_line: false,
            max_len: 64 * 1024,
            seeds: probe_seeds,
            dict: || ["streams", "format", "duration", "width", "height", "nb_read_packets", "1e-300", "inf", "nan", "-0", "4294967296"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: probe_harness,
        },
        Target {
            name: "sim_parsers",
            about: "idv_workers::sim: normalize_number, camara_date, OTP format, statement verdicts over operators' JSON answers",
            shape: Shape::Lines,
            json_after_line: false,
            max_len: 16 * 1024,
            seeds: sim_seeds,
            dict: || ["+", "00", "0", "/", "true", "false", "\"true\"", "active", "suspended", "inactive", "unconditional", "lastStatusTime", "reachable"].iter().map(|s| s.as_bytes().to_vec()).collect(),
            harness: sim_harness,
        },
    ]
}
