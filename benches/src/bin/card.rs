//! Card reading benchmark: what one `read_id_card_info_with_sanity` image costs the card
//! worker — decode, QR search (rqrr) and the CCCD codec — on synthetic card photos (the
//! same generator as the end-to-end test), beside the decode alone as the same-run
//! baseline (the search is printed as a multiple of it).
//!
//!     cargo run --release -p idv-benches --bin card -- [ITERATIONS]

use idv_benches::{percentile, Summary};
use std::time::{Duration, Instant};

fn summary(label: &str, mut samples: Vec<Duration>) -> Summary {
    samples.sort_unstable();
    Summary {
        label: label.to_string(),
        requests: samples.len(),
        errors: 0,
        elapsed: samples.iter().sum(),
        p50: percentile(&samples, 0.50),
        p99: percentile(&samples, 0.99),
    }
}

fn scaled_jpeg(jpeg: &[u8], width: u32) -> Vec<u8> {
    let img = idv_vision::decode(jpeg, &idv_vision::DecodeLimits::default()).unwrap_or_default();
    let h = img.height() * width / img.width().max(1);
    let big = image::imageops::resize(&img, width, h, image::imageops::FilterType::Triangle);
    let mut out = Vec::new();
    let _ = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90).encode_image(&big);
    out
}

fn main() {
    let iterations: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let with_qr = idv_tests::card::card_photo_with(None, Some(&idv_tests::card::qr(idv_tests::card::CCCD)));
    let without_qr = idv_tests::card::card_photo_with(None, None);
    let photos = [
        ("card photo 1400x1000 with QR", with_qr.clone()),
        ("card photo 4200x3000 with QR", scaled_jpeg(&with_qr, 4200)),
        ("card photo 1400x1000 without QR (two passes)", without_qr),
    ];
    println!("card bench: {iterations} iterations per photo, one thread");
    for (name, jpeg) in photos {
        let (mut decode, mut search, mut parse) = (Vec::new(), Vec::new(), Vec::new());
        let mut found = 0;
        for _ in 0..iterations {
            let t = Instant::now();
            let Ok(img) = idv_vision::decode(&jpeg, &idv_vision::DecodeLimits::default()) else { return eprintln!("decode failed") };
            decode.push(t.elapsed());
            let t = Instant::now();
            let texts = idv_vision::qr::decode_qr_codes(&img);
            search.push(t.elapsed());
            let t = Instant::now();
            found = texts.iter().filter(|t| idv_cards::vn_cccd::parse(t).is_ok()).count();
            parse.push(t.elapsed());
        }
        let d = summary(&format!("{name}: decode"), decode);
        let s = summary(&format!("{name}: QR search"), search);
        let p = summary(&format!("{name}: codec"), parse);
        d.print();
        s.print();
        p.print();
        println!(
            "  QR search = {:.1}x the decode (p50); CCCD records read: {found}",
            s.p50.as_secs_f64() / d.p50.as_secs_f64().max(1e-9)
        );
    }
}
