//! Reads one card photo (and its back) the way the card worker does and prints what it
//! found: each field with its verdict, the sanity verdict and its measures, the failure
//! code, whether the card was located, the zone's reading. For looking at photos that are not the
//! generator's (the evaluation, `card_eval`, only reads generated ones). With
//! `IDV_CARD_READ_LINES` set, also each side's OCR lines with their labels and boxes
//! (with `IDV_CARD_READ_WORDS` too, their words' boxes and confidences, and with
//! `IDV_CARD_READ_SYMBOLS` as well, each character's confidence), and
//! a blurred or soft side's second reading (`reread`: on such a photo only what both
//! readings agree on is given).
//!
//!     cargo run --release -p idv-benches --features ocr --bin card_read -- TYPE FRONT [BACK]

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [card_type, front, rest @ ..] = args.as_slice() else {
        return Err("usage: card_read TYPE FRONT [BACK]".into());
    };
    let read = |p: &String| std::fs::read(p).map_err(|e| format!("{p}: {e}"));
    let front = read(front)?;
    let back = rest.first().map(read).transpose()?;
    let ocr = idv_vision::ocr::recognizer();
    let keys = idv_cards::in_aadhaar_secure::UidaiKeys::from_bytes(idv_cards::in_aadhaar_secure::test_key::SPKI_PEM.as_bytes()).map_err(|e| e.to_string())?;
    let reading = idv_workers::card::read_photos(card_type, &front, back.as_deref(), Some(&keys), ocr.as_deref(), 2026).map_err(|e| e.to_string())?;
    for f in &reading.card_information {
        println!("{}\t{:?}\t{:?}\t{}", f.field, f.value, f.confidence_verdict, f.confidence_score.map_or("-".to_string(), |s| format!("{s:.3}")));
    }
    let sanity = reading.sanity.as_ref().map(|s| format!("{:?} {:.2} {:?}", s.verdict, s.score, s.measures));
    println!("sanity {sanity:?}");
    println!("failure {:?}", reading.failure);
    for (side, image) in [("front", &reading.image1), ("back", &reading.image2)] {
        println!("{side} located {} {}", image["card_box"].is_object(), image["card_box"]);
        if !image["mrz"].is_null() {
            println!("{side} mrz {}", image["mrz"]);
        }
        if std::env::var_os("IDV_CARD_READ_LINES").is_some() {
            println!("{side} ocr.parsed {}", image["ocr"]["parsed"]);
            for b in image["ocr"]["raw"].as_array().into_iter().flatten() {
                let at = |k: usize, axis: &str| b["bounding_box"][k][axis].as_f64().unwrap_or_default();
                println!("{side}   {:?} [{}] x {:.0}-{:.0} y {:.0}-{:.0}", b["text"].as_str().unwrap_or_default(), b["label"].as_str().unwrap_or_default(), at(0, "x"), at(2, "x"), at(0, "y"), at(2, "y"));
            }
        }
    }
    // A blurred or soft side's second reading (the values it agrees on are the only
    // ones given): its lines too, to see why a value went unconfirmed.
    if std::env::var_os("IDV_CARD_READ_LINES").is_some() {
        for (i, bytes) in std::iter::once(&front).chain(back.as_ref()).enumerate() {
            let (photo, scale) = idv_vision::decode_scaled(bytes, &idv_vision::DecodeLimits::cards()).map_err(|e| e.to_string())?;
            let plan = idv_workers::card::scan::ScanPlan::for_card_type(card_type, i == 1, 2026);
            let scan = idv_workers::card::scan::scan_side(&photo, scale, &plan, ocr.as_deref());
            // Each side's own sanity verdict (the card's is the sides' together, above).
            println!("{} side sanity {:?}", if i == 0 { "front" } else { "back" }, scan.sanity.as_ref().map(|s| (s.verdict, s.measures.blur_sigma, s.measures.defocus_sigma)));
            // `IDV_CARD_READ_WORDS`: each line's words with their boxes and confidences.
            if let (Some(_), idv_workers::card::scan::OcrOutcome::Lines(lines)) = (std::env::var_os("IDV_CARD_READ_WORDS"), &scan.ocr) {
                for l in lines {
                    let words: Vec<String> = l.text.split(' ').zip(&l.words).map(|(t, w)| format!("{t}@{},{} {}x{} c{:.0}", w.bbox.x, w.bbox.y, w.bbox.width, w.bbox.height, w.confidence.unwrap_or(-1.0))).collect();
                    println!("{} words   {}", if i == 0 { "front" } else { "back" }, words.join(" | "));
                    if let Some(symbols) = symbols_shown(l) {
                        println!("{} symbols {symbols}", if i == 0 { "front" } else { "back" });
                    }
                }
            }
            for (k, again) in scan.reread.iter().enumerate() {
                if let idv_workers::card::scan::OcrOutcome::Lines(lines) = &again.ocr {
                    for l in lines {
                        println!("{} reread {}   {:?} x {}-{} y {}-{}", if i == 0 { "front" } else { "back" }, k + 2, l.text, l.bbox.x, l.bbox.right(), l.bbox.y, l.bbox.bottom());
                        if let Some(symbols) = symbols_shown(l) {
                            println!("{} reread {} symbols {symbols}", if i == 0 { "front" } else { "back" }, k + 2);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// With `IDV_CARD_READ_SYMBOLS` set, a line's characters each with its confidence
/// ("V99 I99 S92"); `None` otherwise, or where the engine gave none.
fn symbols_shown(l: &idv_vision::ocr::OcrLine) -> Option<String> {
    (std::env::var_os("IDV_CARD_READ_SYMBOLS").is_some() && !l.symbols.is_empty()).then(|| l.symbols.iter().map(|(c, conf)| format!("{c}{conf:.0}")).collect::<Vec<_>>().join(" "))
}
