//! Card reading over a set of photos on disk, scored against the set's truth: for card
//! sets the service's own generator did not make (`benches/indep_cards/`, written without
//! reading that generator or the reader; or any set in the same layout).
//!
//!     scripts/card_eval_set.sh [DIR]        (generates benches/indep_cards' set when DIR is not given)
//!     cargo run --release -p idv-benches --features ocr --bin card_eval_set -- DIR
//!
//! `DIR/manifest.jsonl` holds one card a line: `{"id", "card_type", "capture", "front",
//! "back" (or null), "expected": {field: value}, "expected_sanity"}`, the photo paths
//! relative to `DIR`. An Aadhaar Secure QR is checked against `DIR/uidai_test_public.pem`
//! when the set has one (else against the service's test key). Per type and capture it
//! prints fields exact, wrong, wrong and `SURE`, sanity verdict right, latency p50/p90 and,
//! beside them, the Tesseract CLI peer's exact and wrong fields (`card_score::tesseract_peer`),
//! then per type and over all types (clean; degraded; degraded but the blur and glare
//! captures), then every wrong value. `IDV_CARD_EVAL_VERBOSE=1` also prints every missing
//! field and every sanity verdict; `IDV_CARD_EVAL_ONLY=<type>` and
//! `IDV_CARD_EVAL_CAPTURE=<capture>[,<capture>…]` narrow the run; `IDV_CARD_EVAL_NO_PEER=1` skips the
//! Tesseract CLI peer (its columns then read 0).

use idv_benches::card_score::{pct, quantile, score, Tally};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One line of the manifest.
struct Entry {
    id: String,
    card_type: String,
    capture: String,
    front: PathBuf,
    back: Option<PathBuf>,
    expected: Vec<(String, String)>,
    expected_sanity: String,
}

fn entries(dir: &Path) -> Result<Vec<Entry>, String> {
    let manifest = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("manifest line {}: {e}", n + 1))?;
        let text_of = |k: &str| v[k].as_str().map(str::to_string).ok_or_else(|| format!("manifest line {}: no {k:?}", n + 1));
        let expected = v["expected"]
            .as_object()
            .ok_or_else(|| format!("manifest line {}: no \"expected\" object", n + 1))?
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect();
        out.push(Entry {
            id: text_of("id")?,
            card_type: text_of("card_type")?,
            capture: text_of("capture")?,
            front: dir.join(text_of("front")?),
            back: v["back"].as_str().map(|b| dir.join(b)),
            expected,
            expected_sanity: text_of("expected_sanity")?,
        });
    }
    Ok(out)
}

/// Captures whose print is washed out by design in the list (blur, glare): the
/// `readable` row leaves them out, as `card_eval` does.
fn washed_out(capture: &str) -> bool {
    matches!(capture, "blur" | "glare")
}

fn main() -> Result<(), String> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: card_eval_set DIR (DIR/manifest.jsonl)")?);
    let verbose = std::env::var_os("IDV_CARD_EVAL_VERBOSE").is_some();
    let only = std::env::var("IDV_CARD_EVAL_ONLY").ok();
    let only_capture = std::env::var("IDV_CARD_EVAL_CAPTURE").ok();
    let peer = std::env::var_os("IDV_CARD_EVAL_NO_PEER").is_none();
    let pem = dir.join("uidai_test_public.pem");
    let pem_text = std::fs::read(&pem).unwrap_or_else(|_| idv_cards::in_aadhaar_secure::test_key::SPKI_PEM.as_bytes().to_vec());
    let keys = idv_cards::in_aadhaar_secure::UidaiKeys::from_bytes(&pem_text).map_err(|e| format!("{}: {e}", pem.display()))?;
    let ocr = idv_vision::ocr::recognizer();
    println!(
        "card eval over {}: OCR engine {}; Secure QR key {}",
        dir.display(),
        ocr.as_ref().map_or("none (build with --features ocr)".to_string(), |o| o.describe()),
        if pem.exists() { "the set's" } else { "the service's test key" }
    );
    let mut rows: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut wrongs: Vec<String> = Vec::new();
    let mut peer_missing = false;
    for e in entries(&dir)? {
        if only.as_deref().is_some_and(|o| o != e.card_type) || only_capture.as_deref().is_some_and(|o| !o.split(',').any(|c| c == e.capture)) {
            continue;
        }
        let front = std::fs::read(&e.front).map_err(|err| format!("{}: {err}", e.front.display()))?;
        let back = e.back.as_ref().map(|b| std::fs::read(b).map_err(|err| format!("{}: {err}", b.display()))).transpose()?;
        let started = Instant::now();
        let reading = idv_workers::card::read_photos(&e.card_type, &front, back.as_deref(), Some(&keys), ocr.as_deref(), 2026);
        let elapsed = started.elapsed();
        let t = rows.entry((e.card_type.clone(), e.capture.clone())).or_default();
        t.cards += 1;
        t.expected += e.expected.len();
        t.latencies.push(elapsed);
        // Peer: the Tesseract CLI on the same files, through the same parsers.
        match peer.then(|| idv_benches::card_score::tesseract_peer(&e.card_type, &e.front, e.back.as_deref())).flatten() {
            Some(peer) => {
                let (exact, wrong, _) = score(&e.expected, &peer);
                t.tesseract_exact += exact;
                t.tesseract_wrong += wrong;
            }
            None => peer_missing |= peer,
        }
        let reading = match reading {
            Ok(r) => r,
            Err(err) => {
                println!("{}: the photo was refused: {err}", e.id);
                continue;
            }
        };
        let got: Vec<(String, String, bool)> = reading
            .card_information
            .iter()
            .map(|f| (f.field.clone(), f.value.clone(), f.confidence_verdict == Some(idv_cards::ConfidenceVerdict::Sure)))
            .collect();
        let (exact, wrong, wrong_sure) = score(&e.expected, &got);
        t.exact += exact;
        t.wrong += wrong;
        t.wrong_sure += wrong_sure;
        let verdict = reading.sanity.as_ref().map(|s| serde_json::to_value(s.verdict).unwrap_or_default());
        let verdict = verdict.as_ref().and_then(|v| v.as_str()).unwrap_or("none").to_string();
        t.sanity_right += usize::from(verdict == e.expected_sanity);
        for (field, want) in &e.expected {
            match got.iter().find(|(f, _, _)| f == field) {
                Some((_, v, _)) if v == want => {}
                Some((_, v, sure)) => wrongs.push(format!("{}: {field} WRONG{} got {v:?} want {want:?}", e.id, if *sure { " (SURE)" } else { "" })),
                // What the sides' first readings parsed for it, where they did (a value
                // read but not given: unconfirmed, refused, or outvoted).
                None if verbose => {
                    let parsed: Vec<String> = [&reading.image1, &reading.image2]
                        .into_iter()
                        .flat_map(|image| image["ocr"]["parsed"].as_array().into_iter().flatten())
                        .filter(|p| p["field"].as_str() == Some(field.as_str()))
                        .filter_map(|p| p["value"].as_str().map(|v| format!("{v:?}")))
                        .collect();
                    if parsed.is_empty() {
                        println!("{}: {field} missing (want {want:?})", e.id);
                    } else {
                        println!("{}: {field} missing (want {want:?}; printed {})", e.id, parsed.join(", "));
                    }
                }
                None => {}
            }
        }
        if verbose {
            println!("{}: sanity {verdict} (want {}) failure {:?} located {}", e.id, e.expected_sanity, reading.failure, reading.image1["card_box"].is_object());
        }
    }

    println!(
        "\n{:<15} {:<13} {:>5} {:>8} {:>7} {:>6} {:>8} {:>8} {:>8} {:>10} {:>10}",
        "type", "capture", "cards", "exact", "wrong", "w.SURE", "sanity", "p50 ms", "p90 ms", "tess.exact", "tess.wrong"
    );
    let mut per_type: BTreeMap<String, Tally> = BTreeMap::new();
    let mut totals: BTreeMap<&str, Tally> = BTreeMap::new();
    for ((card_type, capture), t) in &rows {
        print_row(card_type, capture, t);
        per_type.entry(card_type.clone()).or_default().add(t);
        let group = if capture == "clean" { "clean" } else { "degraded" };
        totals.entry(group).or_default().add(t);
        if capture != "clean" && !washed_out(capture) {
            totals.entry("readable").or_default().add(t);
        }
    }
    println!();
    for (card_type, t) in &per_type {
        print_row(card_type, "all", t);
    }
    for group in ["clean", "degraded", "readable"] {
        if let Some(t) = totals.get(group) {
            print_row("all types", group, t);
        }
    }
    println!("(readable: the degraded captures but blur and glare; tess.: the Tesseract CLI on the photos as taken, through the same parsers)");
    if peer_missing {
        println!("Tesseract CLI peer not run on every photo (is `tesseract` installed?)");
    }
    if !wrongs.is_empty() {
        println!("\nwrong values:");
        for w in &wrongs {
            println!("  {w}");
        }
    }
    Ok(())
}

fn print_row(kind: &str, capture: &str, t: &Tally) {
    println!(
        "{:<15} {:<13} {:>5} {:>8} {:>7} {:>6} {:>8} {:>8} {:>8} {:>10} {:>10}",
        kind,
        capture,
        t.cards,
        pct(t.exact, t.expected),
        pct(t.wrong, t.expected),
        t.wrong_sure,
        pct(t.sanity_right, t.cards),
        quantile(&t.latencies, 0.5).as_millis(),
        quantile(&t.latencies, 0.9).as_millis(),
        pct(t.tesseract_exact, t.expected),
        pct(t.tesseract_wrong, t.expected),
    );
}
