//! Card sanity on photos the service's own generator did not make. An Aadhaar front out
//! of focus, from the independent card set (`benches/indep_cards`, seed 1,
//! `in.aadhaar-blur-001`, front, re-encoded at JPEG quality 80): a uniform defocus disk of
//! radius 4.76 px per 1000 px of card (the set's mildest is 4.5), then sensor noise.
//! The edge-blur measure σ̂ reads such a disk as about a quarter of its radius (1.06 here,
//! under `BLUR_SIGMA`: this card was judged `good` before the defocus σ), because the
//! disk's sharp rim keeps thin strokes' gradients steep. Must-fail: judged too blurred,
//! by the defocus σ.

use idv_vision::card_box::{find_card, rectify, CardFind};
use idv_vision::card_sanity::{card_sanity, overexposure, CardSanityVerdict, BLUR_SIGMA, DEFOCUS_SIGMA, GLARE_SHARE, SOLID_GLARE_SHARE};
use idv_vision::{decode, DecodeLimits};

/// The fixture's card found (one) and judged on its 1200 px flattened copy.
fn judged(fixture: &str) -> idv_vision::card_sanity::CardSanity {
    let path = format!("{}/tests/data/{fixture}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("the fixture is in the repository");
    let photo = decode(&bytes, &DecodeLimits::cards()).expect("a JPEG");
    let CardFind::One(loc) = find_card(&photo) else { panic!("one card in {fixture}") };
    card_sanity(&rectify(&photo, &loc.quad, 1200), Some(&loc))
}

/// The centre of the hole sanity found, in mm from the card's top-left corner, on a card
/// `width_mm` wide judged at 1200 px ([`judged`]).
fn hole_centre_mm(s: &idv_vision::card_sanity::CardSanity, width_mm: f32) -> (f32, f32) {
    let [x0, y0, x1, y1] = s.measures.hole_box.expect("a box where the hole is");
    let mm = width_mm / 1200.0;
    (0.5 * (x0 + x1) * mm, 0.5 * (y0 + y1) * mm)
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
    let (cx, cy) = hole_centre_mm(&s, 85.6);
    assert!((cx - 79.4).abs() < 3.0 && (cy - 29.7).abs() < 3.0, "hole centre at {cx:.1}, {cy:.1} mm");
    // The cut: the top left corner, about 13 mm of either edge gone (read off the
    // flattened card: its edge meets the top at 180 px of 1200, the left side at 185),
    // where print read would be refused.
    let [x, y, along_x, along_y] = s.measures.cut_corner.expect("where the cut is");
    let mm = 85.6 / 1200.0;
    assert_eq!((x, y), (0.0, 0.0), "{s:?}");
    assert!((10.0..15.0).contains(&(along_x * mm)) && (10.0..15.0).contains(&(along_y * mm)), "legs {:.1} x {:.1} mm", along_x * mm, along_y * mm);
}

/// A PAN card punched near its top edge, on a plain grey table (the independent set, seed
/// 1, `in.pan-hole-001`, front, re-encoded at JPEG quality 80). Through the punch the
/// table shows in the card's own shadow: 37 % of the hole within the table's colours,
/// the rest the table darkened (its colour at 0.8-0.9 of its light), and the card was
/// judged `good`. Must-fail: a hole, where it is (6.2-6.4 mm from the top edge).
#[test]
fn a_punch_showing_the_table_in_the_cards_shadow_is_a_hole() {
    let s = judged("pan_punched_on_grey_table.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageHasHole, "{s:?}");
    let (cx, cy) = hole_centre_mm(&s, 85.6);
    assert!(cy < 10.0 && (40.0..60.0).contains(&cx), "hole centre at {cx:.1}, {cy:.1} mm");
}

/// A reflection over a PAN card's number that runs into its QR code (the independent set,
/// seed 1, `in.pan-glare-002`, front, re-encoded at JPEG quality 90): a quarter of the
/// card saturated, but no compact spot (the code's modules inside its box), and the card
/// was judged `good`. Must-fail: too bright, by the share of solid saturated blocks, with
/// a box where print is washed out.
#[test]
fn a_reflection_running_into_a_qr_code_is_too_bright() {
    let s = judged("pan_glare_over_its_qr.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageTooBright, "{s:?}");
    assert!(s.measures.glare_share < GLARE_SHARE, "{s:?}");
    assert!(s.measures.solid_saturated_share > SOLID_GLARE_SHARE, "{s:?}");
    assert!(overexposure(&s.measures) < 0.5, "not the whole card: {s:?}");
    let [x0, _, x1, _] = s.measures.glare_box.expect("the washed-out region's box");
    // The reflection lies right of the card's middle (over the number's end and the code).
    assert!(x0 > 400.0 && x1 > 900.0, "{s:?}");
}

/// A white PAN card on white paper seen in steep perspective (the independent set, seed 1,
/// `in.pan-perspective-002`, front, re-encoded at JPEG quality 80): its pale top-right
/// corner is within the paper's colours, the coverage called it cut (0.17). Its outline
/// still runs into that corner. Must-pass: `good`.
#[test]
fn a_white_cards_pale_corner_on_white_paper_is_not_a_cut() {
    let s = judged("pan_white_on_white_perspective.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
}

/// The back of a voter card, pale and sparsely printed, well exposed on a dark desk (the
/// independent set, seed 1, `in.voter-perspective-002`, back, re-encoded at JPEG quality
/// 80): its 10th percentile of luminance is bright (240) because little of it is print,
/// but its paper is not blown (90th percentile 248, 1.5 % clipped). It was judged too
/// bright. Must-pass: `good`.
#[test]
fn a_pale_sparsely_printed_card_is_not_too_bright() {
    let s = judged("voter_back_pale_on_dark_desk.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.luma_p10 > idv_vision::card_sanity::BRIGHT_P10 - 5.0, "{s:?}");
    // The same measures with the paper blown (p90 at the clip) and the print faded with
    // it are overexposed; with the print as dark as it is, not (a pale card lit white).
    let blown = idv_vision::card_sanity::CardMeasures { luma_p10: 245.0, luma_p90: 254.0, luma_p1: 180.0, ..s.measures };
    assert!(overexposure(&blown) >= 0.5, "{blown:?}");
    assert!(s.measures.luma_p1 < idv_vision::card_sanity::BRIGHT_INK_P1, "{s:?}");
    let lit_white = idv_vision::card_sanity::CardMeasures { luma_p10: 245.0, luma_p90: 254.0, ..s.measures };
    assert!(overexposure(&lit_white) < 0.5, "{lit_white:?}");
}

/// A passport page punched into its title line, on a plain grey-green table (the
/// independent set, seed 3, `in.passport-hole-002`, front, re-encoded at JPEG quality
/// 70). The print the punch cuts into joins its mask hole (no disk), and only the punch's
/// lit middle is within the table's colours (too small to count): the rest is the table
/// in the page's shadow. It was judged `good`. Must-fail: a hole, where it is (in the
/// title, ~7 mm from the top edge, right of the page's middle).
#[test]
fn a_punch_into_a_line_of_print_is_a_hole() {
    let s = judged("passport_punched_into_its_print.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageHasHole, "{s:?}");
    let (cx, cy) = hole_centre_mm(&s, 125.0);
    assert!(cy < 12.0 && (60.0..75.0).contains(&cx), "hole centre at {cx:.1}, {cy:.1} mm");
    assert!(s.measures.hole_share <= idv_vision::card_sanity::HOLE_SHADOWED_MAX_SHARE, "{s:?}");
}

/// A clean CCCD on a pale table (the independent set, seed 5, `vn.national_id-clean-002`,
/// front, re-encoded at JPEG quality 75): its portrait's grey background is a hole of the
/// card's mask, 28 % within the table's colours and two thirds of the rest the table's
/// colour darkened. Counting the table's shadow for a whole mask hole called it a punch
/// (4.3 % of the card); only a punch's table-coloured middle grown into the shadow is
/// (at most a punch's size). Must-pass: `good`.
#[test]
fn a_portraits_grey_background_is_no_hole() {
    let s = judged("cccd_grey_portrait_on_pale_table.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
}

/// A passport page punched into its machine-readable zone, one corner cut, on a grey
/// table (the independent set, seed 12, `in.passport-hole_and_cut-001`, front, re-encoded
/// at JPEG quality 80): the punch, 5.2 mm across, touches the zone's letters above and
/// below it, and every region that held it held them too (51 x 30 working pixels for an
/// 18-pixel disk); it was judged cut only. Opening those regions by a few strokes' width
/// keeps the disk. Must-fail: hole and cut, the hole where it was punched (41.6 mm from
/// the left, 80.0 mm from the top), its share a 5 mm punch's of a 125 x 88 mm page.
#[test]
fn a_punch_into_a_machine_readable_zone_is_a_hole() {
    let s = judged("passport_punched_into_its_zone.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageHasHoleAndCut, "{s:?}");
    let (cx, cy) = hole_centre_mm(&s, 125.0);
    assert!((cx - 41.6).abs() < 2.0 && (cy - 80.0).abs() < 2.0, "hole centre at {cx:.1}, {cy:.1} mm");
    assert!((0.0012..0.003).contains(&s.measures.hole_share), "{s:?}");
}

/// A CCCD with a corner cut, on a pale table of nearly its paper's colour (the
/// independent set, seed 11, `in.national_id-cut-002`, front, re-encoded at JPEG quality
/// 80): opened by a few strokes' width, a patch of its pale guilloche next to the bottom
/// edge is a disk of the table's colour, but it does not stand apart from the paper
/// around it as a punch's edge does (3 levels, against a punch's 90). Must-pass: cut
/// only, no hole counted.
#[test]
fn a_pale_patch_of_guilloche_is_no_hole() {
    let s = judged("national_id_pale_guilloche_on_pale_table.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageHasCut, "{s:?}");
    assert!(s.measures.hole_share < idv_vision::card_sanity::HOLE_MIN_SHARE, "{s:?}");
}

/// A passport page punched at its zone, one corner cut, small in a photo of a dark desk
/// (the independent set, seed 12, `in.passport-hole_and_cut-002`, front, re-encoded at
/// JPEG quality 80): the punch, 5.0 mm across, measured 0.145 % of the page, under the
/// smallest hole's share of an ID-1 card (`card_sanity::HOLE_MIN_SHARE`, a 3 mm punch there), and
/// the page was judged cut only. A page of 125 x 88 mm is 2.4 times an ID-1 card's area,
/// and its smallest hole as much smaller a share. Must-fail: hole and cut, the hole where
/// it was punched (51.5 mm from the left, 80.7 mm from the top).
#[test]
fn a_small_punch_into_a_passport_page_is_a_hole() {
    let s = judged("passport_small_punch_on_dark_desk.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::ImageHasHoleAndCut, "{s:?}");
    assert!(s.measures.hole_share < idv_vision::card_sanity::HOLE_MIN_SHARE, "{s:?}");
    let (cx, cy) = hole_centre_mm(&s, 125.0);
    assert!((cx - 51.5).abs() < 2.0 && (cy - 80.7).abs() < 2.0, "hole centre at {cx:.1}, {cy:.1} mm");
}

/// A clean but noisy CCCD on a dark desk (the independent set, seed 13,
/// `in.national_id-noise-002`, front, re-encoded at JPEG quality 80): its portrait's
/// dark hair is of the desk's colour and, opened by a few strokes' width, holds a disk
/// that stands apart from the face beside it; but that disk is 12 % of the hair it was
/// cut from, and a punch freed of the letters it touches is most of its region. It was
/// judged punched. Must-pass: `good`.
#[test]
fn a_portraits_dark_hair_on_a_dark_desk_is_no_hole() {
    let s = judged("national_id_dark_hair_on_dark_desk.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.hole_share < idv_vision::card_sanity::HOLE_MIN_SHARE, "{s:?}");
}

/// A white Aadhaar front exposed brightly on a dark desk, JPEG quality 35 (the independent
/// set, seed 15, `in.aadhaar-jpeg35-001`, front, as generated). Its paper clips in wide
/// blank areas between the print (a fifth of the card in solid saturated blocks, and one
/// compact "spot" right of the name), but the print beside them stays as dark as anywhere:
/// no light was added, nothing is washed out. It was judged too bright. Must-pass: good,
/// the glare and solid saturated shares under their thresholds (a small spot beside the
/// portrait, 0.4 % of the card, is still measured, and the reader is careful beside it).
#[test]
fn white_paper_clipped_by_the_exposure_is_no_glare() {
    let s = judged("aadhaar_white_paper_clipped_jpeg35.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.glare_share < GLARE_SHARE && s.measures.solid_saturated_share < SOLID_GLARE_SHARE, "{s:?}");
}

/// A CCCD's back on a wood table, JPEG quality 35 (the independent set, seed 15,
/// `vn.national_id-jpeg35-001`, back, as generated): its gold chip, in the table's colour,
/// was found in part as a region filling 0.886 of its box in the card's frame, under the
/// 0.9 that parts a chip from a punch, and judged a punched hole. It runs along its box's
/// sides as no disk does. Must-pass: good, no hole.
#[test]
fn a_chip_in_the_tables_colour_is_no_punch() {
    let s = judged("cccd_back_chip_on_wood_jpeg35.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.hole_box.is_none(), "{s:?}");
}

/// A clean voter card on a wood table (the independent set, seed 16,
/// `in.voter-clean-001`, front, as generated): its portrait's face is the table's tan,
/// and opened by a few strokes' width it is a disk of the table's colour whose standard
/// deviation (the eyes, brows and mouth) passes the table's grain. It was judged
/// punched. Its skin is flat: the median deviation is a fifth of the table's, where a
/// punch shows the grain throughout (`FLAT_REGION_ROBUST`). Must-pass: good, no hole.
#[test]
fn a_portraits_face_in_the_tables_colour_is_no_hole() {
    let s = judged("voter_portrait_skin_on_wood.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.hole_box.is_none(), "{s:?}");
}

/// The back of a national identity card on a grey table under sensor noise of σ 22 (the
/// independent card set's seed 18, re-encoded at quality 80): its emblem, fine grey rings
/// and a bar, averages to the table's grey and was judged a punched hole. Print varies
/// far more than the table seen through a punch (4.9 times the table's texture, against
/// at most 2.8 for the 73 punches on textured or noisy tables of seeds 3-18:
/// `HOLE_MAX_TEXTURE`). Must-pass: good, no hole.
#[test]
fn an_emblem_on_a_noisy_grey_table_is_no_hole() {
    let s = judged("national_id_back_emblem_noisy_grey_table.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.hole_box.is_none(), "{s:?}");
}

/// A passport page tilted on a grey table (the independent set, seed 34,
/// `in.passport-tilt-002`, front, re-encoded at JPEG quality 80). Its ghost portrait's
/// shoulders are printed in the grey of the table, and opened by a stroke's width their
/// rounded left end is a disk of the table's colour (0.09 % of the page) that stands
/// apart from the paper beside it. It was judged punched. The shoulders run on from it in
/// that grey to the right only; a punch has the page's paper all round it. Must-pass:
/// `good`, no hole.
#[test]
fn the_end_of_a_ghost_portraits_shoulders_is_no_hole() {
    let s = judged("passport_ghost_shoulders_on_grey_table.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.hole_box.is_none(), "{s:?}");
}

/// The back of a clean national identity card on white paper (the independent set, seed
/// 35, `in.national_id-clean-002`, re-encoded at JPEG quality 80). The quad was fitted to
/// the card's shadow along its left side, a few pixels off its edge and more near the
/// top-left corner, which the shadow does not reach: there the corner's triangle is
/// paper-coloured, and within 3 px of the quad's sides no edge ran into the corner. It
/// was judged cut. The card's edge runs on within [`CORNER_SIDE_BAND`] of the side.
/// Must-pass: `good`, no cut corner.
///
/// [`CORNER_SIDE_BAND`]: idv_vision::card_sanity::CORNER_SIDE_BAND
#[test]
fn a_corner_beyond_the_quad_fitted_to_a_shadow_is_not_cut() {
    let s = judged("national_id_back_shadowed_corner_on_white_paper.jpg");
    assert_eq!(s.verdict, CardSanityVerdict::Good, "{s:?}");
    assert!(s.measures.cut_corner.is_none(), "{s:?}");
}
