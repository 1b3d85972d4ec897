//! Card sanity on photos the service's own generator did not make. An Aadhaar front out
//! of focus, from the independent card set (`benches/indep_cards`, seed 1,
//! `in.aadhaar-blur-001`, front, re-encoded at JPEG quality 80): a uniform defocus disk of
//! radius 4.76 px per 1000 px of card (the set's mildest is 4.5), then sensor noise.
//! The edge-blur measure σ̂ reads such a disk as about a quarter of its radius (1.06 here,
//! under `BLUR_SIGMA`: this card was judged `good` before the defocus σ), because the
//! disk's sharp rim keeps thin strokes' gradients steep. Must-fail: judged too blurred,
//! by the defocus σ.

use idv_vision::card_box::{find_card, rectify, CardFind};
use idv_vision::card_sanity::{card_sanity, CardSanityVerdict, BLUR_SIGMA, DEFOCUS_SIGMA};
use idv_vision::{decode, DecodeLimits};

/// The fixture's card found (one) and judged on its 1200 px flattened copy.
fn judged(fixture: &str) -> idv_vision::card_sanity::CardSanity {
    let path = format!("{}/tests/data/{fixture}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("the fixture is in the repository");
    let photo = decode(&bytes, &DecodeLimits::cards()).expect("a JPEG");
    let CardFind::One(loc) = find_card(&photo) else { panic!("one card in {fixture}") };
    card_sanity(&rectify(&photo, &loc.quad, 1200), Some(&loc))
}

#[test]
fn a_card_out_of_focus_is_too_blurred() {
    let s = judged("defocused_aadhaar_front.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageTooBlur, "{s:?}");
    // The edge measure alone would let it pass; the defocus σ is what fails it.
    assert!(s.measures.blur_sigma < BLUR_SIGMA, "{s:?}");
    assert!(s.measures.defocus_sigma > DEFOCUS_SIGMA, "{s:?}");
}

/// A PAN card punched beside its QR code, one corner cut, on grey fabric (the independent
/// set, seed 2, `in.pan-hole_and_cut-001`, front, re-encoded at JPEG quality 80). In the
/// working frame the code's modules average to the table's grey, and closing the
/// background-like pixels joined the punch to them: one region of 4 % of the card, no
/// disk, and the card was judged cut only. Must-fail: hole and cut.
#[test]
fn a_punch_beside_a_qr_code_is_a_hole() {
    let s = judged("pan_punched_beside_its_qr.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageHasHoleAndCut, "{s:?}");
    // The punch: 6.2 mm across on an 85.6 x 54 mm card is 0.65 % of it; its box where the
    // hole is (centre 79.4 mm from the left, 29.7 mm from the top: right of the code).
    assert!((0.002..0.01).contains(&s.measures.hole_share), "{s:?}");
    let [x0, y0, x1, y1] = s.measures.hole_box.expect("a box");
    let (cx, cy) = (0.5 * (x0 + x1) / 1200.0 * 85.6, 0.5 * (y0 + y1) / 1200.0 * 85.6);
    assert!((cx - 79.4).abs() < 3.0 && (cy - 29.7).abs() < 3.0, "hole centre at {cx:.1}, {cy:.1} mm");
}
