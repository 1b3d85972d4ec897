//! Passports and the CCCD back read from their machine-readable zone (OCR), end to end
//! over the in-process bus, and the exact-match table on clean and degraded photos.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passport_mrz_reading_over_http() {
    idv_tests::passport::run("memory://").await;
}

/// `IDV_MRZ_SAMPLES` passports (default 2) in every degradation. Clean photos must read
/// exactly; each degradation must read at least 90% of the entries exactly.
#[test]
fn passport_mrz_exact_match_table() {
    if !idv_tests::passport::OCR_COMPILED {
        println!("SKIPPED: passport MRZ exact-match table (built without the `ocr` feature)");
        return;
    }
    let samples = std::env::var("IDV_MRZ_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let started = std::time::Instant::now();
    let table = idv_tests::passport::exact_match_table(samples, 8).expect("OCR, fonts and the mrz model installed (scripts/test.sh)");
    for r in &table {
        println!("MRZ exact match, {:?}: {}/{} entries, {}/{} passports fully exact", r.degradation, r.exact, r.entries, r.passports_exact, r.passports);
    }
    println!("MRZ exact-match table: {} reads in {:.1} s", samples * table.len(), started.elapsed().as_secs_f64());
    for r in &table {
        if r.degradation == idv_tests::passport::Degradation::Clean {
            assert_eq!((r.exact, r.passports_exact), (r.entries, r.passports), "clean photos read exactly");
        }
        assert!(r.exact * 10 >= r.entries * 9, "{r:?}");
    }
}

/// A band read with a character whitelist (the card reader's number and date bands)
/// comes with each character's confidence, as a page's lines do: a blurred card's value
/// read there is vouched for by them (`idv_workers::card::read`). Must-fail: the symbols
/// are the line's own characters, not another line's.
#[test]
fn a_band_read_with_a_whitelist_has_each_characters_confidence() {
    if !idv_tests::passport::OCR_COMPILED {
        println!("SKIPPED: whitelisted band symbols (built without the `ocr` feature)");
        return;
    }
    let ocr = idv_vision::ocr::recognizer().expect("the OCR engine is in this build");
    let fonts = idv_tests::passport::Fonts::load().expect("fonts installed (scripts/test.sh)");
    let band = idv_tests::passport::text_band(&fonts, "26/02/1962", 40.0);
    let params = idv_vision::ocr::OcrParams { lang: "eng", char_whitelist: Some("0123456789/-. "), layout: idv_vision::ocr::Layout::Block, confidences: true };
    let lines = ocr.read_lines(&band, &params).expect("the band is read");
    let line = lines.iter().find(|l| l.text == "26/02/1962").unwrap_or_else(|| panic!("read {lines:?}"));
    assert_eq!(line.symbols.iter().map(|s| s.0).collect::<String>(), "26/02/1962");
    assert!(line.symbols.iter().all(|s| s.1 > 50.0), "{:?}", line.symbols);
}
