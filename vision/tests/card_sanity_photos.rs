//! Card sanity on a photo the service's own generator did not make: an Aadhaar front out
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

#[test]
fn a_card_out_of_focus_is_too_blurred() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/defocused_aadhaar_front.jpg")).expect("the fixture is in the repository");
    let photo = decode(&bytes, &DecodeLimits::cards()).expect("a JPEG");
    let CardFind::One(loc) = find_card(&photo) else { panic!("one card") };
    let s = card_sanity(&rectify(&photo, &loc.quad, 1200), Some(&loc));
    assert_eq!(s.verdict, CardSanityVerdict::ImageTooBlur, "{s:?}");
    // The edge measure alone would let it pass; the defocus σ is what fails it.
    assert!(s.measures.blur_sigma < BLUR_SIGMA, "{s:?}");
    assert!(s.measures.defocus_sigma > DEFOCUS_SIGMA, "{s:?}");
}
