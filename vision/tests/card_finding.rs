//! Card finding on a photo the service's own generator did not make: a white voter card
//! on white paper from the independent card set (`benches/indep_cards`, seed 1,
//! `in.voter-clean-001`, front, re-encoded at JPEG quality 80). The light falling on the
//! card's right side makes that side the paper's colour: the first segmentation found the
//! card's left three quarters only (a quad of aspect 1.28, one corner then judged cut,
//! `image_has_cut` on a clean card). Must-fail: the card found whole (an ID-1 aspect, its
//! right edge where the card's is), and its sanity `good`.

use idv_vision::card_box::{find_card, CardFind, ID1_ASPECT};
use idv_vision::card_sanity::{card_sanity, CardSanityVerdict};
use idv_vision::{decode, DecodeLimits};

#[test]
fn a_white_card_on_white_paper_lit_from_one_side_is_found_whole() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/white_card_on_white_paper.jpg")).expect("the fixture is in the repository");
    let photo = decode(&bytes, &DecodeLimits::cards()).expect("a JPEG");
    let CardFind::One(loc) = find_card(&photo) else { panic!("one card") };
    let q = &loc.quad;
    let aspect = q.aspect().max(1.0 / q.aspect());
    assert!((aspect / ID1_ASPECT - 1.0).abs() < 0.06, "aspect {aspect}: {q:?}");
    // The card's right edge (measured on the photo by eye: x ≈ 1,224 at the top, 1,264 at
    // the bottom, of 1,600).
    assert!(q.top_right.x > 1190.0 && q.bottom_right.x > 1230.0, "{q:?}");
    let card = idv_vision::card_box::rectify(&photo, q, 1200);
    let s = card_sanity(&card, Some(&loc));
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
}
