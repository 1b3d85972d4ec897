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
