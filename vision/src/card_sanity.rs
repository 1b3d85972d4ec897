//! Card sanity: is the photographed ID card usable? A pure function of the rectified card
//! ([`crate::card_box::rectify`], or the whole photo when the card fills the frame) and,
//! when the card was found on a background, its [`CardLocation`] (for holes and cuts).
//!
//! **Checks, in order; the first that fails is the verdict** (hole and cut together give
//! `image_has_hole_and_cut`):
//!
//! | # | verdict | measured | fails when |
//! |---|---|---|---|
//! | 1 | `image_too_blur` | the card's luminance resampled to [`WORK_WIDTH`] px wide (area average when shrinking, bilinear when enlarging), 3 % margins left out: the gradient energy E = Σ\|∇L\|² (central differences) before (E₁) and after (E₂) an extra Gaussian blur of [`REBLUR_SIGMA`]; r = E₂/E₁; edge blur σ̂ = σ_b·r/√(1−r²) in working pixels (a step edge blurred by σ has E ∝ 1/σ, so this gives its σ; independent of contrast and of how much print there is; unlike a Laplacian measure it does not drown in quantization noise on very blurred cards); and the defocus σ ([`defocus_sigma`]: the same energy after Gaussian blurs of [`DEFOCUS_SCALES`], fitted to E(s) ∝ (σ² + s²)^(−k/2) with the exponent k free) | σ̂ > [`BLUR_SIGMA`], or defocus σ > [`DEFOCUS_SIGMA`] with σ̂ > [`DEFOCUS_EDGE_SIGMA`] and > [`DEFOCUS_PHOTO_SIGMA`] pixels of the photo; or no structure at all (mean \|∇L\|² < 0.5) |
//! | 2 | `image_too_dark` | 90th percentile of luminance (Rec. 601) | < [`DARK_P90`] |
//! | 3 | `image_too_bright` | share of pixels with luminance ≥ 250; 10th percentile ([`overexposure`]); glare spots ([`glare_spots`]: solid, compact regions saturated in all three channels, their share of the card and the largest one's box) | share > [`BRIGHT_CLIPPED_SHARE`] (> [`BLACK_PRINT_CLIPPED_SHARE`] while its p1 stays under [`BLACK_PRINT_P1`]: a white card lit white, its print black), or p10 > [`BRIGHT_P10`] with p90 ≥ [`BRIGHT_PAPER_P90`] and p1 ≥ [`BRIGHT_INK_P1`] (exposure blown everywhere, print faded with it: a pale card with little print has a bright p10 below paper that is not blown, or paper lit white around print that stays dark); or glare spots cover > [`GLARE_SHARE`] of the card (a reflection washed a word or more out; the reader does not give values read beside the spot, and reads the rest), or solid saturated blocks of any shape > [`SOLID_GLARE_SHARE`] of it (a reflection running into a QR code or the card's edge; the largest region's box is then the glare box); a spot smaller than [`GLARE_EDGE_SHARE`] that reaches the card's edge is pale paper lit past white there and does not count |
//! | 4 | `image_has_hole` | 4-connected regions enclosed by the card (not touching the outside of its filled mask): the background-like pixels ([`CardLocation::background_like`], closed 5x5, and as they are: the closing may join a punch to a QR code's modules averaged to table grey) inside it, and the holes of the mask itself that are ≥ 50 % background-like or ≥ [`MASK_HOLE_NEAR`] of the table's colour by the looser measure below (a punch cutting into a print line: text joins its background-like pixels, and the table seen through it strays from the border's colour) ; and those mask holes and shadowed pixels opened by a fifth of the smallest punch's diameter (a punch into a machine-readable zone touches the letters above and below it), an opened region counting only where it holds ≥ [`OPENED_HOLE_MIN_OF_SOURCE`] of the region it was cut from and its mean colour stands more than the table tolerance apart from the median of the card in a ring around it | a hole with area ≥ [`hole_min_share`] of the card ([`HOLE_MIN_SHARE`], a 3 mm punch on an ID-1 card; on a passport page, 2.4 times an ID-1 card's area, that share scaled down), ≤ [`HOLE_MAX_SHARE`] (the portrait is bigger), round (bbox aspect ≤ 1.3, fills ≥ 60 % of its bbox and ≥ 95 % of the ellipse of its own second moments — a disk, not the crescent or L of a portrait's background —, no island inside it: its own filled area ≤ 1.1 x its area), 90 % of whose pixels (60 % for a mask hole, which holds the rim) (3x3 means in the rectified card) are within max(24, 2 x spread + 10) of a background colour and nearer to it than to the card's median colour (dark print on a dark table is not; a grey portrait's face on a grey table is, for ~85 %), and the background-like pixels grown into the card's shadow on the table (a background colour darkened, `shadow_like`, and farther than that from the card's colour: through a punch the table under the card shows darkened toward the rim, and its lit middle is all the table's colours show of it), no bigger than a punch ([`HOLE_SHADOWED_MAX_SHARE`]), whose shadow-like pixels then count as the table's and whose mean colour must be the table's hue, within [`HOLE_HUE_TOL`] of its brightness (a neutral grey face on a reddish table is not), and, on a textured table ([`CardLocation::background_texture`] ≥ [`TEXTURED_TABLE`]), whose texture inside its rim is ≥ [`FLAT_REGION`] of the table's and its median deviation ≥ [`FLAT_REGION_ROBUST`] of it (a hole shows the grain; a neck or a face of the table's colour in the portrait is flat, a face's eyes and mouth aside), and both at most [`HOLE_MAX_TEXTURE`] times the table's (an emblem's grey rings on a noisy grey table are print: ink and paper vary far more than the table); with none found, a plain disk of a punch's size darker than the plain page around it whose rim is round ([`punch_by_its_rim`]: a pale page on white paper, the paper through the punch only shaded) |
//! | 5 | `image_has_cut` | per corner of the fitted quad, the share of the triangle with legs [`CUT_LEG`] x the short side along the two sides that does not show the background (in the filled mask, or not background-like: the mask alone loses the low-contrast rim of a white card on a near-white table); pixels outside the photo count neither way, and a corner whose triangle is less than half in the photo is not judged | coverage < [`CUT_COVERAGE`] at some judged corner (an intact ID-1 corner, radius 3 mm, covers ~0.87), unless the card's outline still runs into it ([`corner_sides_seen`]: the edge along both of its sides from [`CORNER_SIDE_FROM`] to [`CORNER_SIDE_TO`] of the short side, as strong as further along: a white card's pale corner on white paper is within the paper's colours, but still has its sides) |
//! | — | `incomplete` | | none failed, but a check did not run ([`CardSanity::not_performed`]) |
//! | — | `good` | | every check ran, none failed |
//!
//! Holes and cuts need the card's outline against the background: with `location`
//! `None` (the card fills the frame), or a card whose quad holds a tenth or more of the
//! border ring the finder takes the table's colours from ([`OUTLINE_UNSEEN_BORDER`]: a
//! photo cut to the card, whose paper then counts as table), or one with a card corner
//! near each side of the frame ([`cut_to_the_card`]), they are not judged and not listed in `details`. The cut is not listed either
//! when a corner lies outside the photo and no judged corner is cut: the frame may hide
//! the cut.
//!
//! **Scores.** Each check's entry in [`CardSanity::details`] is how certain *that problem*
//! is, 0 to 1: 0.5 at the threshold, 0 comfortably on the good side, 1 far on the bad
//! side (piecewise linear between the anchors in the code). A check fails when its score
//! is ≥ 0.5. [`CardSanity::score`] = 1 − the highest problem score: the confidence the
//! card image is good (> 0.5 for `good`, ≤ 0.5 otherwise).
//!
//! Calibration: the synthetic card photos of [`crate::card_box`]'s tests (`synth`), see
//! `tests::card_sanity_table`.

use crate::card_box::{as_scaled, components, fill_holes, morph, shadow_like, CardLocation, Homography};
use image::RgbImage;

/// Share of clipped pixels above which a photo in which no card was found is too bright:
/// glare that blows out most of a card hides its edges too, and the photo then also
/// holds the table, so the card's own threshold ([`BRIGHT_CLIPPED_SHARE`]) is never
/// reached. Synthetic glare photos without a found card: 0.26-0.54; every other photo
/// without a found card in the evaluation: ≤ 0.05.
pub const NO_CARD_CLIPPED_SHARE: f32 = 0.2;
/// Least share of a card-less photo's saturated pixels that must lie in solid regions
/// ([`solid_saturated_share`]) for [`NO_CARD_CLIPPED_SHARE`] to call it too bright.
/// Every glare photo of the evaluation in which no card was found (two seed sets, 30
/// photos): 0.87-0.98; a white Aadhaar front on a pale desk, cut by the frame so that no
/// card is found: 0.07 of its 20 % saturated pixels (its paper saturates between print
/// and guilloche lines); other card-less photos: ≤ 0.32.
pub const NO_CARD_SOLID_SHARE: f32 = 0.5;
/// Width the blur and exposure checks resample the card to.
pub const WORK_WIDTH: u32 = 1000;
/// Tallest working copy (a strange aspect is squeezed to fit).
pub const MAX_WORK_HEIGHT: u32 = 2000;
/// Largest acceptable edge blur σ̂, working pixels.
pub const BLUR_SIGMA: f32 = 1.4;
/// The extra blur of the blur measure (working pixels).
pub const REBLUR_SIGMA: f32 = 2.5;
/// Largest acceptable defocus σ ([`defocus_sigma`]), working pixels. A lens out of focus
/// spreads a point over a uniform disk, not a Gaussian: the disk's sharp rim keeps thin
/// strokes' gradients steep, and σ̂ reads a disk of radius R as about R/4 (the independent
/// card set's defocused photos, R 4.5–8 px per 1000 px of card: σ̂ 1.08–2.10, half under
/// [`BLUR_SIGMA`]), where legibility goes with its spread, σ ≈ R/2. Measured
/// (2026-12-01, the fronts of three seeds of that set, 36 defocused and 360 others; this
/// module's table): defocused 1.92–3.51; every other capture ≤ 1.53; the table's Gaussian
/// σ1 (readable, which must pass) 1.57, σ3.5 4.93.
pub const DEFOCUS_SIGMA: f32 = 1.75;
/// Least σ̂ for the defocus σ to count: a defocused card's edges are soft too (the set's
/// 60 defocused sides: σ̂ 0.64–2.10, all but two ≥ 0.93; every sharp capture's ≤ 0.37),
/// while sharp print in a regular pattern, such as blocks 10 px apart, loses energy
/// faster than the fit's model once its blurs merge neighbours, and reads as defocused
/// (this module's glare test card: defocus σ 2.29 at σ̂ 0.55).
pub const DEFOCUS_EDGE_SIGMA: f32 = 0.6;
/// Least defocus σ in the photo's own pixels for it to count: a card photographed small
/// and enlarged to the working width is soft from its few pixels, not from a lens, and
/// is read soft instead (`workers`' second reading); a lens out of focus spreads a point
/// over pixels of the photo. The set's defocused sides: 1.50–5.86 photo pixels; the own
/// evaluation's photos at a third of their resolution (`third_res`, readable): defocus σ
/// 1.24–2.59 working pixels, 0.39–0.79 photo pixels.
pub const DEFOCUS_PHOTO_SIGMA: f32 = 1.2;
/// The three Gaussian blurs (working pixels) whose gradient energies [`defocus_sigma`]
/// fits. The first (1.5) already smooths a disk's rim and the photo's noise away, so
/// what is left falls as a Gaussian's would; the last stays under a word's spacing.
pub const DEFOCUS_SCALES: [f32; 3] = [1.5, 3.0, 6.0];
/// 90th percentile of luminance below which the card is too dark.
pub const DARK_P90: f32 = 60.0;
/// Share of clipped (≥ 250) pixels above which the card is too bright.
pub const BRIGHT_CLIPPED_SHARE: f32 = 0.38;
/// The 1st percentile of luminance under which a card's print is black as printed: an
/// Aadhaar's back (white paper, a black QR code) lit to white clips 35-51 % of its
/// paper with its print at p1 0-22 and no solid saturated block (≤ 0.04 of it, the
/// independent card set's seeds 15-21: six such sides, four of them, two cut, one
/// punched and one in perspective, judged too bright by [`BRIGHT_CLIPPED_SHARE`]
/// alone). A glare
/// capture of such a card with its print black still has the reflection's solid
/// blocks ([`SOLID_GLARE_SHARE`]: 0.12-0.15 on the two there, 0.10 and more on every
/// glare capture with 30-60 % clipped); an overexposed photo lifts its print.
pub const BLACK_PRINT_P1: f32 = 30.0;
/// ... and for such a card, the clipped share above which it is too bright.
pub const BLACK_PRINT_CLIPPED_SHARE: f32 = 0.6;
/// 10th percentile of luminance above which the card is too bright.
pub const BRIGHT_P10: f32 = 240.0;
/// ... with the paper blown: the 90th percentile of luminance at least this.
pub const BRIGHT_PAPER_P90: f32 = 249.0;
/// ... and the print faded: the 1st percentile of luminance at least this. A pale card
/// with little print whose paper is lit to white keeps its print dark (the independent
/// set's voter backs at JPEG quality 35 and exposure 1.05: p1 52 and 90, p10 240-241,
/// p90 249-252, judged too bright without it); on the glare captures of all seven seeds
/// the print's p1 ranged 12-134 and their verdicts came from the clipped share and the
/// glare spots, never from this.
pub const BRIGHT_INK_P1: f32 = 150.0;
/// Smallest hole, share of the card's area.
pub const HOLE_MIN_SHARE: f32 = 0.0015;
/// The smallest hole's share of this card. [`HOLE_MIN_SHARE`] is a 3 mm punch's share of
/// an ID-1 card (85.6 x 54 mm); a passport's data page (ID-3, 125 x 88 mm: the rectified
/// card's aspect tells which, `card_box::rectified_aspect`) is 2.4 times its area, and
/// the same punch a smaller share of it (a 5 mm punch into a passport's zone measured
/// 0.15 %, under the ID-1 minimum).
pub fn hole_min_share(card: &RgbImage) -> f32 {
    if crate::card_box::nearer_passport(card.width() as f32 / card.height().max(1) as f32) {
        HOLE_MIN_SHARE * (85.6 * 54.0) / (125.0 * 88.0)
    } else {
        HOLE_MIN_SHARE
    }
}
/// Largest hole, share of an ID-1 card's area: a disk 10.5 mm across, past the biggest
/// round punch (8 mm, 1.1 %; found with its rim, up to 1.34 %). A bigger disk of the table's colour is print: a ghost
/// portrait's grey face on a grey table (3.7 % of a national identity card, the
/// independent set's seed 22, at JPEG quality 35), a CCCD's dark emblem on a dark table
/// (1.8-2.5 %, seeds 15, 17 and 19). Over the independent set's 14 card sets (560 sides
/// of punched cards), no punch found measured more than 1.34 % (a passport's 0.5 %), and 5 false holes of
/// 1.75-3.7 % went with the old bound of 5 %.
pub const HOLE_MAX_SHARE: f32 = 0.015;
/// The largest hole's share of this card: [`HOLE_MAX_SHARE`] scaled down on a passport's
/// data page as [`hole_min_share`] is.
pub fn hole_max_share(card: &RgbImage) -> f32 {
    HOLE_MAX_SHARE * hole_min_share(card) / HOLE_MIN_SHARE
}
/// Largest share of the card a hole grown into the table's shadow may have: a punch's
/// (round punches for a lanyard or a cancellation, 3-8 mm across: up to 1.1 % of an ID-1
/// card). A bigger grey disk is the portrait's (a ghost image's grey face on a white
/// table: 2.8 %, the set's grown punches 0.16-0.8 %).
pub const HOLE_SHADOWED_MAX_SHARE: f32 = 0.015;
/// How far (share of the table's brightness) a hole's mean colour may stray from the
/// table's colour scaled to it, where the table's own shadow counted toward it.
pub const HOLE_HUE_TOL: f32 = 0.045;
/// Least share of the card a punch found by the table's colour on the flattened card
/// alone (`hole_share`'s last path) must cover: a punch of 5 mm or more (the
/// independent set's PAN punches into their QR codes: 0.6-0.9 %). Smaller regions of
/// the table's colour there are a portrait's or a code's modules (the own evaluation: a
/// voter card's portrait, 0.24 %; a PAN's code, 0.19 %); smaller punches are found by
/// the other paths.
pub const HOLE_CARD_COLOURED_MIN_SHARE: f32 = 0.004;
/// Least share of the region it was cut from that a region of an opened mask
/// (`hole_share`'s opened paths: a punch freed of the letters it touches) must hold.
pub const OPENED_HOLE_MIN_OF_SOURCE: f32 = 0.5;
/// Most of its box, in the card's own frame, a punched hole fills
/// (`card_frame_extent`): a disk fills π/4 of it, a rectangle with the card's edges all.
pub const HOLE_MAX_CARD_EXTENT: f32 = 0.9;
/// A candidate filling more than this of its box in the card's frame and running along
/// more than [`CHIP_MIN_SIDE_SPAN`] of its sides (`card_frame_side_span`) is a rounded
/// rectangle set square with the card (a chip found in part), no punch: a disk fills π/4
/// of its box and spans 0.6 of each side within a tenth of it.
pub const CHIP_MIN_CARD_EXTENT: f32 = 0.86;
/// See [`CHIP_MIN_CARD_EXTENT`].
pub const CHIP_MIN_SIDE_SPAN: f32 = 0.88;
/// A hole of the card's mask whose pixels are mostly not background-like by the finder's
/// tight measure is still a hole when at least this share of them, as 3x3 means in the
/// rectified card, are within the looser tolerance of a background colour (and nearer to
/// it than to the card): the table seen through a punch is often a little lighter or
/// darker than at the photo's border (a lighting gradient, the hole's own shadow).
pub const MASK_HOLE_NEAR: f32 = 0.85;
/// Least [`CardLocation::background_texture`] (luminance levels) of a table whose texture a
/// hole must show: wood, fabric and concrete in the evaluation measure 5.4-5.7, a plain mat
/// or desk 0.4-1.3.
pub const TEXTURED_TABLE: f32 = 3.0;
/// On a textured table, a hole's texture (the luminance's standard deviation of 3x3
/// means inside its rim, in the rectified card, sharper than the working copy the table is
/// measured in) is at least this share of the table's: half the least of the evaluation's
/// 99 holes on textured tables (nine seeds; 1.2-2 times the table's). Portrait skin of the
/// table's colour, judged a hole before: 0.11 (twice), 0.51, 0.59, 0.85.
pub const FLAT_REGION: f32 = 0.6;
/// And its robust texture (the median absolute deviation of those means, times 1.4826:
/// a normal spread's σ) is at least this share of the table's: a portrait's face of the
/// table's colour is flat skin with a few dark strokes (eyes, brows, mouth) that lift its
/// standard deviation past the table's (1.65 times, a clean voter card on wood, the
/// independent set's seed 16) while its median deviation stays at the skin's (0.19
/// times); a punch shows the grain throughout (0.58 at the least of the 363 punch
/// candidates on textured tables of seeds 3-16, 0.66-0.85 for most).
pub const FLAT_REGION_ROBUST: f32 = 0.35;
/// And both its textures are at most this many times the table's: a punch on a
/// textured or noisy table measured up to 2.78 times (standard deviation) and 2.61 times
/// (median deviation) the table's, over the 73 holes on such tables among 400 hole and
/// hole-and-cut photos (the independent set's seeds 3-18); a card's emblem of grey rings,
/// its ink and paper averaged to the grey table's colour under noise of σ 22 (seed 18, a
/// national identity card's back), 4.9 and 5.6 times.
pub const HOLE_MAX_TEXTURE: f32 = 3.6;
/// Legs of the corner triangle, share of the quad's short side.
pub const CUT_LEG: f32 = 0.10;
/// Corner coverage below which the corner is cut.
pub const CUT_COVERAGE: f32 = 0.40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CardSanityVerdict {
    Good,
    /// None of the checks that ran failed, but some could not run (named by
    /// [`CardSanity::not_performed`]): never `good` over a check that was not made.
    Incomplete,
    ImageTooBlur,
    ImageTooDark,
    ImageTooBright,
    ImageHasHole,
    ImageHasCut,
    ImageHasHoleAndCut,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CardSanity {
    pub verdict: CardSanityVerdict,
    /// 0-1: confidence the card image is good (1 = clearly good): 1 − the highest problem
    /// score in `details`.
    pub score: f32,
    /// Every check that ran, in order, with how certain its problem is (0-1, higher =
    /// that problem more certain, 0.5 at the threshold; fails at ≥ 0.5). Holes and cuts
    /// only with a location.
    pub details: Vec<(CardSanityVerdict, f32)>,
    /// The measurements behind the scores.
    pub measures: CardMeasures,
}

/// What the checks measured (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CardMeasures {
    /// Edge blur σ̂ in working pixels (infinite for a card with no structure).
    pub blur_sigma: f32,
    /// Defocus σ in working pixels ([`defocus_sigma`]; 0 when it cannot be fitted, and
    /// not measured (0) on a card whose σ̂ is at most half [`DEFOCUS_EDGE_SIGMA`]).
    pub defocus_sigma: f32,
    /// The defocus σ in the photo's own pixels (the card's width there, from its found
    /// quad; the judged image's width when no card was located).
    pub defocus_photo_sigma: f32,
    /// 1st percentile of luminance: the print's darkest, which an exposure blown all over
    /// lightens with the paper ([`overexposure`]).
    pub luma_p1: f32,
    pub luma_p10: f32,
    pub luma_p90: f32,
    pub clipped_share: f32,
    /// Largest hole-like region, share of the card (0 when none or not checked).
    pub hole_share: f32,
    /// Lowest corner coverage (1 when not checked).
    pub corner_coverage: f32,
    /// Where the largest hole-like region is, in the judged card's pixels: `[x0, y0, x1,
    /// y1]` (`None` when none). Print under it is gone: a value read across it is cut.
    pub hole_box: Option<[f32; 4]>,
    /// Share of the card under glare spots ([`glare_spots`]; 0 when none).
    pub glare_share: f32,
    /// Share of the image in solid saturated blocks, whatever their shape
    /// ([`solid_saturated_share`]).
    pub solid_saturated_share: f32,
    /// The largest glare spot's box in the judged card's pixels (`[x0, y0, x1, y1]`,
    /// `None` when none): print under it is washed out, print beside it fades.
    pub glare_box: Option<[f32; 4]>,
    /// The least covered corner, when its coverage is under [`CUT_COVERAGE_GOOD`]: the
    /// corner in the judged card's pixels and how far the card is missing along its two
    /// sides there (`[x, y, leg along x, leg along y]`). Print inside is gone, as under a
    /// hole.
    pub cut_corner: Option<[f32; 4]>,
}

/// Piecewise linear problem score: 0 at `good`, 0.5 at `thr`, 1 at `bad` (either
/// direction), clamped.
fn ramp(x: f32, good: f32, thr: f32, bad: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { 1.0 } else if (bad > good) == (x > 0.0) { 1.0 } else { 0.0 };
    }
    let up = bad > good;
    let t = |a: f32, b: f32, v: f32| ((v - a) / (b - a)).clamp(0.0, 1.0);
    let on_good_side = if up { x <= thr } else { x >= thr };
    if on_good_side {
        0.5 * t(good, thr, x)
    } else {
        0.5 + 0.5 * t(thr, bad, x)
    }
}

/// A pixel's luminance (ITU-R BT.601 weights), 0-255.
pub fn luma(p: &[u8]) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// 1D resampling taps: per destination index, (source index, weight) pairs. Area average
/// when shrinking, linear interpolation otherwise.
fn taps(n_src: usize, n_dst: usize) -> Vec<Vec<(usize, f32)>> {
    let f = n_src as f64 / n_dst as f64;
    (0..n_dst)
        .map(|d| {
            if f > 1.0 {
                let (a, b) = (d as f64 * f, (d + 1) as f64 * f);
                let mut v = Vec::new();
                let mut i = a.floor() as usize;
                while (i as f64) < b && i < n_src {
                    let w = (b.min(i as f64 + 1.0) - a.max(i as f64)) / f;
                    if w > 0.0 {
                        v.push((i, w as f32));
                    }
                    i += 1;
                }
                v
            } else {
                let x = ((d as f64 + 0.5) * f - 0.5).clamp(0.0, (n_src - 1) as f64);
                let i = x.floor() as usize;
                let j = (i + 1).min(n_src - 1);
                let a = (x - i as f64) as f32;
                vec![(i, 1.0 - a), (j, a)]
            }
        })
        .collect()
}

/// Luminance of `img` resampled to `dw` x `dh`.
fn luma_resized(img: &RgbImage, dw: usize, dh: usize) -> Vec<f32> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let raw = img.as_raw();
    let src: Vec<f32> = raw.chunks_exact(3).map(luma).collect();
    let tx = taps(w, dw);
    let ty = taps(h, dh);
    let mut tmp = vec![0f32; dw * h];
    for y in 0..h {
        let row = &src[y * w..(y + 1) * w];
        for (x, t) in tx.iter().enumerate() {
            tmp[y * dw + x] = t.iter().map(|&(i, wgt)| row[i] * wgt).sum();
        }
    }
    let mut out = vec![0f32; dw * dh];
    for (y, t) in ty.iter().enumerate() {
        for &(i, wgt) in t {
            let src_row = &tmp[i * dw..(i + 1) * dw];
            for (o, s) in out[y * dw..(y + 1) * dw].iter_mut().zip(src_row) {
                *o += s * wgt;
            }
        }
    }
    out
}

/// Gradient energy Σ|∇L|² (central differences) over the interior (3 % margins).
fn grad_energy(l: &[f32], w: usize, h: usize) -> (f64, f64) {
    let (mx, my) = ((w * 3 / 100).max(1), (h * 3 / 100).max(1));
    let (mut sg, mut n) = (0f64, 0f64);
    for y in my..h.saturating_sub(my) {
        for x in mx..w.saturating_sub(mx) {
            let gx = 0.5 * (l[y * w + x + 1] - l[y * w + x - 1]);
            let gy = 0.5 * (l[(y + 1) * w + x] - l[(y - 1) * w + x]);
            sg += f64::from(gx * gx + gy * gy);
            n += 1.0;
        }
    }
    (sg, n)
}

/// Separable Gaussian blur (edges clamped).
fn gauss(l: &[f32], w: usize, h: usize, sigma: f32) -> Vec<f32> {
    let r = (3.0 * sigma).ceil() as usize;
    let k: Vec<f32> = (0..=2 * r).map(|i| (-((i as f32 - r as f32).powi(2)) / (2.0 * sigma * sigma)).exp()).collect();
    let ks: f32 = k.iter().sum();
    let k: Vec<f32> = k.iter().map(|v| v / ks).collect();
    let mut tmp = vec![0f32; w * h];
    let mut padded = vec![0f32; w + 2 * r];
    for y in 0..h {
        let row = &l[y * w..(y + 1) * w];
        for (i, p) in padded.iter_mut().enumerate() {
            *p = row[i.saturating_sub(r).min(w - 1)];
        }
        for (x, o) in tmp[y * w..(y + 1) * w].iter_mut().enumerate() {
            *o = padded[x..x + 2 * r + 1].iter().zip(&k).map(|(a, b)| a * b).sum();
        }
    }
    let mut out = vec![0f32; w * h];
    for y in 0..h {
        let dst = &mut out[y * w..(y + 1) * w];
        for (j, kv) in k.iter().enumerate() {
            let yy = (y + j).saturating_sub(r).min(h - 1);
            for (o, s) in dst.iter_mut().zip(&tmp[yy * w..(yy + 1) * w]) {
                *o += kv * s;
            }
        }
    }
    out
}

/// Edge blur σ̂ (see the module table); infinite when there is no structure.
fn blur_sigma(l: &[f32], w: usize, h: usize) -> f32 {
    let (e1, n) = grad_energy(l, w, h);
    if n < 1.0 || e1 / n < 0.5 {
        return f32::INFINITY;
    }
    let (e2, _) = grad_energy(&gauss(l, w, h, REBLUR_SIGMA), w, h);
    let r = e2 / e1;
    if !(r.is_finite() && r < 0.9999) {
        return f32::INFINITY;
    }
    (f64::from(REBLUR_SIGMA) * r / (1.0 - r * r).sqrt()) as f32
}

/// Defocus σ: the blur whose spread the print's gradient energy falls by over
/// [`DEFOCUS_SCALES`] (s₀ < s₁ < s₂). Blurred again by s, print blurred by σ keeps
/// E(s) ∝ (σ² + s²)^(−k/2), k = 1 for edges and 3 for thin strokes (a card is a mix, which
/// σ̂'s single ratio cannot tell from a sharper card); the ratio of the two log falls,
/// ln(E₀/E₁) / ln(E₁/E₂), does not depend on k, and decreases with σ from 1 (σ = 0), so
/// σ is found by bisection. 0 when the energies do not allow the fit (no structure: σ̂
/// already judges that), capped at 30.
fn defocus_sigma(l: &[f32], w: usize, h: usize) -> f32 {
    let e = DEFOCUS_SCALES.map(|s| grad_energy(&gauss(l, w, h, s), w, h).0);
    let falls = ((e[0] / e[1]).ln(), (e[1] / e[2]).ln());
    if !(falls.0.is_finite() && falls.1.is_finite() && falls.0 > 0.0 && falls.1 > 0.0) {
        return 0.0;
    }
    let q = falls.0 / falls.1;
    let [a, b, c] = DEFOCUS_SCALES.map(|s| f64::from(s) * f64::from(s));
    let model = |sigma: f64| {
        let v = sigma * sigma;
        ((v + b) / (v + a)).ln() / ((v + c) / (v + b)).ln()
    };
    const CAP: f64 = 30.0;
    if q >= model(0.0) {
        return 0.0;
    }
    if q <= model(CAP) {
        return CAP as f32;
    }
    let (mut lo, mut hi) = (0.0, CAP);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if model(mid) > q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)) as f32
}

/// The `q` quantile (0–1) of `n` values counted in a 256-level histogram (portrait
/// exposure in `crate::quality` uses it too).
pub(crate) fn histogram_percentile(hist: &[u64; 256], n: u64, q: f64) -> f32 {
    let target = (q * n as f64).ceil().max(1.0) as u64;
    let mut acc = 0;
    for (level, &c) in hist.iter().enumerate() {
        acc += c;
        if acc >= target {
            return level as f32;
        }
    }
    255.0
}

/// Largest qualifying hole's share of the card (0 when none).
fn hole_share(card: &RgbImage, loc: &CardLocation, m: &[u8], filled: &[u8]) -> (f32, Option<[f32; 4]>) {
    let (w, h) = (loc.mask.width() as usize, loc.mask.height() as usize);
    if w < 3 || h < 3 || loc.scale <= 0.0 || !loc.scale.is_finite() || loc.background_like.dimensions() != loc.mask.dimensions() {
        return (0.0, None);
    }
    let card_area = filled.iter().filter(|&&v| v != 0).count();
    if card_area == 0 {
        return (0.0, None);
    }
    let raw: Vec<u8> = filled.iter().zip(loc.background_like.as_raw()).map(|(&f, &b)| u8::from(f != 0 && b != 0)).collect();
    // Close thin gaps (a stripe's edge seen through the hole), inside the card only.
    let cand: Vec<u8> = morph(&morph(&raw, w, h, 2, true), w, h, 2, false).iter().zip(filled).map(|(&c, &f)| c & f).collect();
    // Also the mask's own holes (non-card regions enclosed by the card) that are mostly
    // background-like: a hole that shows a textured background is one such region even
    // where the texture's edges are not background-like.
    let mask_holes: Vec<u8> = filled.iter().zip(m).map(|(&f, &k)| u8::from(f != 0 && k == 0)).collect();
    let bgl = loc.background_like.as_raw();
    // working frame -> rectified card
    let q = loc.quad.scaled(1.0 / loc.scale, 1.0 / loc.scale).corners().map(|p| (p.x, p.y));
    let (cw, ch) = (card.width() as f32, card.height() as f32);
    let to_card = if card.width() > 0 && card.height() > 0 { Homography::from_points(q, [(0.0, 0.0), (cw, 0.0), (cw, ch), (0.0, ch)]) } else { None };
    // the card's median colour (for the "looks like background" test)
    let median_rgb = {
        let mut ch3: [Vec<u8>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for p in card.as_raw().chunks_exact(3).step_by(7) {
            for c in 0..3 {
                ch3[c].push(p[c]);
            }
        }
        ch3.map(|mut v| {
            v.sort_unstable();
            v.get(v.len() / 2).copied().map_or(0.0, f32::from)
        })
    };
    let bg: Vec<[f32; 3]> = if loc.background_colors.is_empty() { vec![loc.background.map(f32::from)] } else { loc.background_colors.iter().map(|c| c.map(f32::from)).collect() };
    let dist = |a: [f32; 3], b: [f32; 3]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
    let bg_tol = (2.0 * loc.background_spread + 10.0).max(24.0);
    let (min_share, max_share) = (hole_min_share(card), hole_max_share(card));
    let mut best = 0f32;
    let mut best_box: Option<[f32; 4]> = None;
    // And the background-like pixels as they are: the closing also joins a hole to
    // table-grey pixels a rim's width away, such as a QR code's modules averaged to grey
    // in the working frame (a PAN's punch beside its code: one region of 4 % of the card
    // and no disk).
    // And the background-like pixels grown into the table's shadow: through a punch the
    // table under the card shows darkened toward the rim, and only the punch's lit middle
    // is background-like (a passport's punch into a line of print: the print joins the
    // mask hole, the middle alone is too small to count). Dark print is no shadow.
    let shadowed: Vec<u8> = match to_card {
        Some(hm) => (0..w * h)
            .map(|i| {
                if filled[i] == 0 {
                    return 0;
                }
                if raw[i] != 0 {
                    return 1;
                }
                let (u, v) = hm.apply((i % w) as f64 + 0.5, (i / w) as f64 + 0.5);
                if !(u.is_finite() && v.is_finite()) {
                    return 0;
                }
                let p = card.get_pixel(u.floor().clamp(0.0, f64::from(cw - 1.0)) as u32, v.floor().clamp(0.0, f64::from(ch - 1.0)) as u32).0.map(f32::from);
                u8::from(dist(p, median_rgb) > bg_tol && bg.iter().any(|b| shadow_like(p, *b)))
            })
            .collect(),
        None => vec![0; w * h],
    };
    let shadowed: Vec<u8> = morph(&morph(&shadowed, w, h, 1, true), w, h, 1, false).iter().zip(filled).map(|(&c, &f)| c & f).collect();
    // And the table's colour as the flattened card shows it, sampled at each working
    // pixel: in the working frame a QR code's modules average to a grey that can be the
    // table's, and a punch into the code (a PAN's, at its corner) joins them into one
    // region of no shape; on the card itself the modules are black and white and the
    // punch alone shows the table. Opened by a pixel, so a module's blurred edge does
    // not join it.
    let card_coloured: Vec<u8> = match to_card {
        Some(hm) => {
            let coloured: Vec<u8> = (0..w * h)
                .map(|i| {
                    if filled[i] == 0 {
                        return 0;
                    }
                    let (u, v) = hm.apply((i % w) as f64 + 0.5, (i / w) as f64 + 0.5);
                    if !(u.is_finite() && v.is_finite()) {
                        return 0;
                    }
                    let p = mean_around(card, u, v);
                    let d_bg = bg.iter().map(|b| dist(p, *b)).fold(f32::MAX, f32::min);
                    u8::from(d_bg <= bg_tol && d_bg <= dist(p, median_rgb))
                })
                .collect();
            morph(&morph(&coloured, w, h, 1, false), w, h, 1, true).iter().zip(filled).map(|(&c, &f)| c & f).collect()
        }
        None => vec![0; w * h],
    };
    // And the mask's holes and the shadowed pixels opened by a few print strokes' width: a
    // punch into a machine-readable zone touches the letters above and below it, and both
    // join them into one region of no shape (a passport's: 51x30 working pixels for an
    // 18-pixel disk). A window a fifth of the smallest counted punch's diameter wipes the
    // letters (a few pixels wide here) and the bridges to them, and keeps the disk; the
    // opened regions are judged by their own path's rules.
    let open_r = (2.0 * (HOLE_MIN_SHARE * card_area as f32 / std::f32::consts::PI).sqrt() / 5.0).floor().max(1.0) as usize;
    let opened = |m: &[u8]| morph(&morph(m, w, h, open_r, false), w, h, open_r, true);
    let (mask_holes_opened, shadowed_opened) = (opened(&mask_holes), opened(&shadowed));
    // Every path's regions (a mask of no pixels where the card's frame could not be mapped).
    let regions: Vec<(Vec<u32>, Vec<crate::card_box::Comp>)> = [&cand, &mask_holes, &raw, &shadowed, &card_coloured, &mask_holes_opened, &shadowed_opened].into_iter().map(|m| components(m, w, h, false)).collect();
    for (path, (labels, comps)) in regions.iter().enumerate() {
    // the rules a path's regions are judged by, and the regions an opened path's were cut
    // from: an opened mask's are its own mask's
    let (rules, source) = match path {
        5 => (1, regions.get(1)),
        6 => (3, regions.get(3)),
        p => (p, None),
    };
    for c in comps {
        let share = c.area as f32 / card_area as f32;
        if share > max_share || share < 0.3 * min_share || c.frame > 0 || (rules == 3 && share > HOLE_SHADOWED_MAX_SHARE) || (rules == 4 && share < HOLE_CARD_COLOURED_MIN_SHARE) {
            continue;
        }
        let (bw, bh) = (c.x1 - c.x0 + 1, c.y1 - c.y0 + 1);
        let aspect = bw.max(bh) as f32 / bw.min(bh) as f32;
        let extent = c.area as f32 / (bw * bh) as f32;
        if aspect > 1.3 || extent < 0.6 {
            continue;
        }
        // Enclosed by card pixels: no pixel next to one outside the card.
        let mut sub = vec![0u8; bw * bh];
        let mut enclosed = true;
        for y in c.y0..=c.y1 {
            for x in c.x0..=c.x1 {
                if labels[y * w + x] != c.label {
                    continue;
                }
                sub[(y - c.y0) * bw + x - c.x0] = 1;
                if filled[y * w + x - 1] == 0 || filled[y * w + x + 1] == 0 || filled[(y - 1) * w + x] == 0 || filled[(y + 1) * w + x] == 0 {
                    enclosed = false;
                }
            }
        }
        if !enclosed {
            continue;
        }
        // Solid: no big island inside it (the portrait's face in a dark frame).
        let solid = fill_holes(&sub, bw, bh).iter().filter(|&&v| v != 0).count();
        if solid as f32 > 1.1 * c.area as f32 {
            continue;
        }
        // Its colour in the rectified card must look like the background: most of its
        // pixels (3x3 means) within `bg_tol` of a background colour and nearer to it than
        // to the card's median colour.
        let mut near_share = 0f32;
        if let Some(hm) = to_card {
            let (mut near, mut k, mut strict) = (0u32, 0u32, 0u32);
            let mut mean = [0f32; 3];
            let (mut lsum, mut lsq, mut ln) = (0f64, 0f64, 0f64);
            let mut inner_luma: Vec<f32> = Vec::new();
            let step = (c.area / 300).max(1);
            let pixels = (c.y0..=c.y1).flat_map(|y| (c.x0..=c.x1).map(move |x| (x, y))).filter(|&(x, y)| labels[y * w + x] == c.label);
            for (x, y) in pixels.step_by(step) {
                let (u, v) = hm.apply(x as f64 + 0.5, y as f64 + 0.5);
                if !(u.is_finite() && v.is_finite()) {
                    continue;
                }
                let acc = mean_around(card, u, v);
                // Texture inside its rim only: the rim mixes in the card around it.
                let inner = [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)].iter().all(|&(dx, dy)| {
                    let (xx, yy) = (x as i64 + dx, y as i64 + dy);
                    xx >= 0 && yy >= 0 && (xx as usize) < w && (yy as usize) < h && labels[yy as usize * w + xx as usize] == c.label
                });
                if inner {
                    let l = 0.299 * acc[0] + 0.587 * acc[1] + 0.114 * acc[2];
                    inner_luma.push(l);
                    let l = f64::from(l);
                    lsum += l;
                    lsq += l * l;
                    ln += 1.0;
                }
                let d_bg = bg.iter().map(|b| dist(acc, *b)).fold(f32::MAX, f32::min);
                // Or, for the table-coloured pixels grown into the card's shadow
                // (`shadowed` above), the table in that shadow: seen through a punch, the
                // table under the card is darker than the open table, darkest at the
                // hole's rim (a grey table's hole read 37 % table-coloured, the rest its
                // shadow). Not for a mask hole as a whole: a portrait's grey background
                // on a pale table is 28 % table-coloured and two thirds shadow-like.
                let d_card = dist(acc, median_rgb);
                let shadowed = rules == 3 && d_card > bg_tol && bg.iter().any(|b| shadow_like(acc, *b));
                near += u32::from((d_bg <= bg_tol && d_bg <= d_card) || shadowed);
                strict += u32::from(d_bg <= bg_tol && d_bg <= d_card);
                for c in 0..3 {
                    mean[c] += acc[c];
                }
                k += 1;
            }
            // A hole shows the table: nearly all of what the background-like pixels
            // found looks like it (a grey portrait's face on a grey table: 85 %). A
            // mask hole also holds the hole's rim, so less is asked of it.
            near_share = if k > 0 { near as f32 / k as f32 } else { 0.0 };
            // A hole shows the table's texture too: a region of a textured table's colour
            // that is flat (a neck in the portrait on a wood table) is the card's print.
            let texture = if ln >= 8.0 { (((lsq / ln) - (lsum / ln).powi(2)).max(0.0)).sqrt() as f32 } else { f32::NAN };
            // Nor does it vary far more than the table: print on the card, dark strokes on
            // light paper (an emblem of fine grey rings on a noisy photo of a grey table,
            // the independent set's seed 18), is not the table seen through a punch.
            if loc.background_texture >= TEXTURED_TABLE {
                let robust = robust_spread(&mut inner_luma);
                let table = loc.background_texture;
                if texture < FLAT_REGION * table || robust < FLAT_REGION_ROBUST * table || texture > HOLE_MAX_TEXTURE * table || robust > HOLE_MAX_TEXTURE * table {
                    continue;
                }
            }
            let needed = if rules == 1 { 0.6 } else { 0.9 };
            if k > 0 && (near as f32) < needed * k as f32 {
                continue;
            }
            // Where only the shadow made it the table's, its mean colour must be the
            // table's hue too (within HOLE_HUE_TOL of its brightness): a hole shows the
            // table darkened, a neutral grey face on a reddish-grey table is a colour of
            // its own (6 % off; the set's holes 0.05-3.7 %).
            let mean = mean.map(|v| v / k.max(1) as f32);
            let table_hue = bg.iter().any(|b| as_scaled(mean, *b).is_some_and(|(gain, off)| off <= HOLE_HUE_TOL * gain * dist(*b, [0.0; 3])));
            if k > 0 && (strict as f32) < needed * k as f32 && !table_hue {
                continue;
            }
        }
        if rules == 1 {
            let bg_px = (c.y0..=c.y1).flat_map(|y| (c.x0..=c.x1).map(move |x| y * w + x)).filter(|&i| labels[i] == c.label && bgl[i] != 0).count();
            if (bg_px as f32) < 0.5 * c.area as f32 && near_share < MASK_HOLE_NEAR {
                continue;
            }
        }
        // How well the region fills the ellipse of its own second moments (1 for a
        // filled disk or ellipse, less for a crescent, an L or a ring).
        let ellipse_fill = {
            let (mut sx, mut sy, mut n) = (0f64, 0f64, 0f64);
            for y in c.y0..=c.y1 {
                for x in c.x0..=c.x1 {
                    if labels[y * w + x] == c.label {
                        sx += x as f64;
                        sy += y as f64;
                        n += 1.0;
                    }
                }
            }
            let (mx, my) = (sx / n.max(1.0), sy / n.max(1.0));
            let (mut cxx, mut cyy, mut cxy) = (0f64, 0f64, 0f64);
            for y in c.y0..=c.y1 {
                for x in c.x0..=c.x1 {
                    if labels[y * w + x] == c.label {
                        let (dx, dy) = (x as f64 - mx, y as f64 - my);
                        cxx += dx * dx;
                        cyy += dy * dy;
                        cxy += dx * dy;
                    }
                }
            }
            let det = (cxx * cyy - cxy * cxy) / (n.max(1.0) * n.max(1.0));
            if det > 0.0 { n / (4.0 * std::f64::consts::PI * det.sqrt()) } else { 0.0 }
        };
        // A punch is a disk: it fills its moment ellipse (≥ 0.96 on every generated
        // hole); the white of a portrait between its frame and the hair does not (0.91).
        if ellipse_fill < 0.95 {
            continue;
        }
        // Nor a rectangle set square with the card's edges (a chip's contacts in a
        // table's colour: 1.01 on the card against the punches' 0.59-0.83), which fills
        // its moment ellipse nearly as well as a disk (0.955).
        let card_extent = card_frame_extent(&labels, w, c, to_card.as_ref(), (cw * ch) / card_area as f32);
        if card_extent > HOLE_MAX_CARD_EXTENT {
            continue;
        }
        // Nor a rectangle with rounded corners set square with the card, found in part
        // (a CCCD's gold chip on a wood table, the independent set's seed 15: 0.886 of its
        // box, where that seed's Aadhaar punches measure up to 0.885): it runs along its
        // box's sides (0.939), a punch only where its curve meets them (0.57 at the
        // median of the set's punch candidates, 0.78 at most among those that count).
        if card_extent > CHIP_MIN_CARD_EXTENT && card_frame_side_span(&labels, w, c, to_card.as_ref()) > CHIP_MIN_SIDE_SPAN {
            continue;
        }
        // An opened region is a piece cut out of a bigger one: it counts only where it
        // stands apart from the card around it, as a punch's edge does (a passport's
        // punch: the table in shadow 90 levels below the paper a few pixels out; a pale
        // patch of guilloche on a pale card on a pale table, opened into a disk: 3).
        // Nor where it is a small part of the region it was cut from: letters and the
        // bridges to them are little of a punch's region (its disk held 61-92 % of it on
        // the independent set), a disk's width of a portrait's hair on a dark desk is
        // little of the hair (12 %).
        if let Some((source_labels, source_comps)) = source {
            let first = (c.y0..=c.y1).flat_map(|y| (c.x0..=c.x1).map(move |x| y * w + x)).find(|&i| labels[i] == c.label);
            let source_area = first.and_then(|i| source_comps.iter().find(|k| k.label == source_labels[i])).map_or(usize::MAX, |k| k.area);
            if (c.area as f32) < OPENED_HOLE_MIN_OF_SOURCE * source_area as f32 {
                continue;
            }
        }
        // Nor, smaller than an ID-1 card's smallest punch (on a passport page such a
        // region can count), where it does not stand apart from the card around it: a
        // punch that small shows the table in the card's shadow at its rim, darker than
        // the paper (every passport punch found on the independent set stands apart),
        // and an island of pale paper between a guilloche's lines on a pale table does
        // not (seed 22's clean passport: 0.08 % of its page, 10 working pixels across).
        if (path >= 5 || share < HOLE_MIN_SHARE) && !stands_apart(card, to_card.as_ref(), &labels, w, h, c, open_r + 2, bg_tol) {
            continue;
        }
        if share > best {
            // The region's box, its corners taken into the card's pixels.
            let card_box = to_card.and_then(|hm| {
                let corners = [(c.x0, c.y0), (c.x1 + 1, c.y0), (c.x1 + 1, c.y1 + 1), (c.x0, c.y1 + 1)].map(|(x, y)| hm.apply(x as f64, y as f64));
                corners.iter().all(|(u, v)| u.is_finite() && v.is_finite()).then(|| {
                    let xs = corners.map(|p| p.0 as f32);
                    let ys = corners.map(|p| p.1 as f32);
                    [xs.iter().copied().fold(f32::MAX, f32::min), ys.iter().copied().fold(f32::MAX, f32::min), xs.iter().copied().fold(f32::MIN, f32::max), ys.iter().copied().fold(f32::MIN, f32::max)]
                })
            });
            // Nor a ghost portrait's grey head, which sits on its shoulders
            // ([`on_shoulders`]), nor the end of its shoulders ([`runs_on_one_way`]).
            if card_box.is_some_and(|b| on_shoulders(card, b) || runs_on_one_way(card, b, median_rgb)) {
                continue;
            }
            best = share;
            best_box = card_box;
        }
    }
    }
    (best, best_box)
}

/// How far (RGB distance) a pixel under a hole candidate may stray from the
/// candidate's own colour and count as the same grey ([`on_shoulders`]).
const SHOULDERS_COLOUR_TOL: f32 = 30.0;

/// Least share of the band under a hole candidate in the candidate's colour for it to
/// be a head on its neck ([`on_shoulders`]).
const SHOULDERS_MIN_SHARE: f32 = 0.8;

/// Whether a hole candidate (`b`, in the card's pixels) is a head on its neck: the band
/// right under it (half its height tall, its middle half wide), inside the card, is
/// mostly of the candidate's own colour, and the card beside it (at its middle rows,
/// from an eighth to a half of its width out) mostly not. A ghost portrait prints the holder's head,
/// neck and shoulders in one grey, and its head is as round as a punch (the independent
/// set's seed 30: a passport's and a national identity card's ghost heads, 0.13 % and
/// 0.3 % of the card, judged holes on grey tables: 0.96 and 0.91 of that band alike); a
/// punch shows the table inside its rim only, the card's paper and print under it.
fn on_shoulders(card: &RgbImage, [x0, y0, x1, y1]: [f32; 4]) -> bool {
    let (bw, bh) = (x1 - x0, y1 - y0);
    if !(bw > 4.0 && bh > 4.0) || y1 + bh / 2.0 > card.height() as f32 {
        return false;
    }
    // The candidate's colour: its middle half, clear of its rim.
    let Some(colour) = mean_colour(pixels_in(card, [x0 + bw / 4.0, y0 + bh / 4.0, x1 - bw / 4.0, y1 - bh / 4.0])) else { return false };
    let under = share_alike(pixels_in(card, [x0 + bw / 4.0, y1, x1 - bw / 4.0, y1 + bh / 2.0]), colour);
    // Beside it, at its middle rows: a head stands out from the portrait's ground; a
    // punch showing a table of the paper's colour does not (seed 31's pale card on a white
    // table: paper under the punch and beside it alike).
    let beside = share_alike(
        pixels_in(card, [x0 - bw / 2.0, y0 + bh / 4.0, x0 - bw / 8.0, y1 - bh / 4.0]).chain(pixels_in(card, [x1 + bw / 8.0, y0 + bh / 4.0, x1 + bw / 2.0, y1 - bh / 4.0])),
        colour,
    );
    under.is_some_and(|u| u >= SHOULDERS_MIN_SHARE) && beside.is_some_and(|b| b < 1.0 - SHOULDERS_MIN_SHARE)
}

/// The pixels of `card` in the area `[xa, ya, xb, yb]` (its pixels, clipped to it).
fn pixels_in(card: &RgbImage, [xa, ya, xb, yb]: [f32; 4]) -> impl Iterator<Item = [u8; 3]> + '_ {
    let (w, h) = (card.width() as f32, card.height() as f32);
    (ya.max(0.0) as u32..yb.min(h) as u32).flat_map(move |y| (xa.max(0.0) as u32..xb.min(w) as u32).map(move |x| card.get_pixel(x, y).0))
}

/// The mean colour of `pixels`; `None` for none.
fn mean_colour(pixels: impl Iterator<Item = [u8; 3]>) -> Option<[f32; 3]> {
    let (mut sum, mut n) = ([0f32; 3], 0f32);
    for p in pixels {
        for k in 0..3 {
            sum[k] += f32::from(p[k]);
        }
        n += 1.0;
    }
    (n > 0.0).then(|| sum.map(|v| v / n))
}

/// The share of `pixels` within [`SHOULDERS_COLOUR_TOL`] of `colour`; `None` for none.
fn share_alike(pixels: impl Iterator<Item = [u8; 3]>, colour: [f32; 3]) -> Option<f32> {
    let (mut alike, mut all) = (0f32, 0f32);
    for p in pixels {
        let d = (0..3).map(|k| (f32::from(p[k]) - colour[k]).powi(2)).sum::<f32>().sqrt();
        alike += f32::from(u8::from(d <= SHOULDERS_COLOUR_TOL));
        all += 1.0;
    }
    (all > 0.0).then(|| alike / all)
}

/// Whether a hole candidate (`b`, in the card's pixels) is the end of a bigger shape in
/// its own colour: on one side of it (left or right, above or below, along its middle
/// half) the card is of the candidate's colour ([`SHOULDERS_MIN_SHARE`] of it at least)
/// both right at its edge (out to an eighth of its size) and beyond (to half its size),
/// and on the opposite side, beyond, it is not (as little as that is alike beside
/// [`on_shoulders`]' head), that colour not the
/// card's paper (`paper`, the card's median colour; further from it than
/// [`SHOULDERS_COLOUR_TOL`]). A punch shows the table inside its rim and the card's
/// paper all round it: on a pale card on a pale table, paper and table alike, that is
/// the candidate's colour wherever paper is beside it (a portrait on the other side or
/// not). A ghost portrait's shoulders, opened into a disk at their rounded end (the
/// independent set's seed 34: a passport's, 0.09 % of the card, in the grey of the
/// table, 80 levels below its paper), run on in that grey to one side only (1.0 of that
/// band alike, 0.0 of the other three). A punch beside a shape in the table's colour
/// (seed 32: a voter card's punch showing a wood table, beside the portrait's brown
/// face, 0.99 of the band beyond alike) has its rim between: the card's cut edge, lit
/// or shaded (0.54 of the band at its edge alike).
fn runs_on_one_way(card: &RgbImage, [x0, y0, x1, y1]: [f32; 4], paper: [f32; 3]) -> bool {
    let (bw, bh) = (x1 - x0, y1 - y0);
    if !(bw > 4.0 && bh > 4.0) {
        return false;
    }
    // The candidate's colour: its middle half, clear of its rim.
    let Some(colour) = mean_colour(pixels_in(card, [x0 + bw / 4.0, y0 + bh / 4.0, x1 - bw / 4.0, y1 - bh / 4.0])) else { return false };
    if (0..3).map(|k| (colour[k] - paper[k]).powi(2)).sum::<f32>().sqrt() <= SHOULDERS_COLOUR_TOL {
        return false;
    }
    let alike = |xa: f32, ya: f32, xb: f32, yb: f32| share_alike(pixels_in(card, [xa, ya, xb, yb]), colour);
    let (ym0, ym1, xm0, xm1) = (y0 + bh / 4.0, y1 - bh / 4.0, x0 + bw / 4.0, x1 - bw / 4.0);
    // Each side's band out to half the candidate's size: from its box's edge to an eighth
    // of that out (where a punch's rim is), and from there on.
    let left = [alike(x0 - bw / 8.0, ym0, x0, ym1), alike(x0 - bw / 2.0, ym0, x0 - bw / 8.0, ym1)];
    let right = [alike(x1, ym0, x1 + bw / 8.0, ym1), alike(x1 + bw / 8.0, ym0, x1 + bw / 2.0, ym1)];
    let above = [alike(xm0, y0 - bh / 8.0, xm1, y0), alike(xm0, y0 - bh / 2.0, xm1, y0 - bh / 8.0)];
    let below = [alike(xm0, y1, xm1, y1 + bh / 8.0), alike(xm0, y1 + bh / 8.0, xm1, y1 + bh / 2.0)];
    let runs_on = |side: [Option<f32>; 2]| side.iter().all(|s| s.is_some_and(|s| s >= SHOULDERS_MIN_SHARE));
    let stops = |side: [Option<f32>; 2]| side[1].is_some_and(|s| s < 1.0 - SHOULDERS_MIN_SHARE);
    (runs_on(left) && stops(right)) || (runs_on(right) && stops(left)) || (runs_on(above) && stops(below)) || (runs_on(below) && stops(above))
}

/// The spread of `values` robust to a few outliers: their median absolute deviation
/// times 1.4826 (a normal distribution's σ); NaN under 8 values (as the texture's
/// standard deviation, so a region too small to measure is not judged flat).
fn robust_spread(values: &mut [f32]) -> f32 {
    if values.len() < 8 {
        return f32::NAN;
    }
    values.sort_unstable_by(f32::total_cmp);
    let median = values[values.len() / 2];
    let mut deviations: Vec<f32> = values.iter().map(|v| (v - median).abs()).collect();
    deviations.sort_unstable_by(f32::total_cmp);
    1.4826 * deviations[deviations.len() / 2]
}

/// Whether region `c` of `labels` (working frame) differs by more than `tol` (RGB
/// distance) from the card in a ring `ring` working pixels wide around it: its mean
/// colour in the rectified card against the ring's per-channel median (the median: a
/// punch into a line of print has letters in its ring, and the paper between them is
/// what it is cut out of).
fn stands_apart(card: &RgbImage, to_card: Option<&Homography>, labels: &[u32], w: usize, h: usize, c: &crate::card_box::Comp, ring: usize, tol: f32) -> bool {
    let Some(hm) = to_card else {
        return false;
    };
    let (x0, y0) = (c.x0.saturating_sub(ring + 1), c.y0.saturating_sub(ring + 1));
    let (x1, y1) = ((c.x1 + ring + 1).min(w - 1), (c.y1 + ring + 1).min(h - 1));
    let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
    let one: Vec<u8> = (0..bw * bh).map(|i| u8::from(labels[(y0 + i / bw) * w + x0 + i % bw] == c.label)).collect();
    let (outer, inner) = (morph(&one, bw, bh, ring, true), morph(&one, bw, bh, 1, true));
    let mut inside = [0f32; 3];
    let mut n_inside = 0f32;
    let mut around: [Vec<f32>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..bw * bh {
        let is_in = one[i] != 0;
        if !is_in && (outer[i] == 0 || inner[i] != 0) {
            continue;
        }
        let (u, v) = hm.apply((x0 + i % bw) as f64 + 0.5, (y0 + i / bw) as f64 + 0.5);
        if !(u.is_finite() && v.is_finite()) {
            continue;
        }
        let p = mean_around(card, u, v);
        if is_in {
            (0..3).for_each(|k| inside[k] += p[k]);
            n_inside += 1.0;
        } else {
            (0..3).for_each(|k| around[k].push(p[k]));
        }
    }
    if n_inside == 0.0 || around[0].is_empty() {
        return false;
    }
    let median = around.map(|mut v| {
        v.sort_unstable_by(f32::total_cmp);
        v[v.len() / 2]
    });
    let mean = inside.map(|v| v / n_inside);
    crate::card_box::dist2(mean, median).sqrt() > tol
}

/// The mean colour of the 3x3 pixels of `card` around `(u, v)` (its pixels; clamped to
/// the card): what a working pixel of card sanity shows on the flattened card.
fn mean_around(card: &RgbImage, u: f64, v: f64) -> [f32; 3] {
    let (cw, ch) = (i64::from(card.width()), i64::from(card.height()));
    if cw == 0 || ch == 0 {
        return [0.0; 3];
    }
    let (ui, vi) = ((u.floor() as i64).clamp(0, cw - 1), (v.floor() as i64).clamp(0, ch - 1));
    let mut acc = [0f32; 3];
    for dy in -1..=1 {
        for dx in -1..=1 {
            let p = card.get_pixel((ui + dx).clamp(0, cw - 1) as u32, (vi + dy).clamp(0, ch - 1) as u32).0;
            for c in 0..3 {
                acc[c] += f32::from(p[c]) / 9.0;
            }
        }
    }
    acc
}

/// How much of its box a region fills on the card itself (its pixels taken into the
/// flattened card's frame by `to_card`, whose axes are the card's edges): 0.785 for a
/// disk, 1 for a rectangle with the card's edges (a chip, a block of print), whatever
/// the card's turn in the photo. `card_px_per_px`: flattened-card pixels per working
/// pixel (its area over the card's). NaN where it cannot be measured.
fn card_frame_extent(labels: &[u32], w: usize, c: &crate::card_box::Comp, to_card: Option<&Homography>, card_px_per_px: f32) -> f32 {
    let Some(hm) = to_card else { return f32::NAN };
    let (mut u0, mut v0, mut u1, mut v1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for y in c.y0..=c.y1 {
        for x in c.x0..=c.x1 {
            if labels[y * w + x] != c.label {
                continue;
            }
            // The pixel's four corners, so the box holds every pixel whole.
            for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
                let (u, v) = hm.apply(x as f64 + dx, y as f64 + dy);
                if !(u.is_finite() && v.is_finite()) {
                    return f32::NAN;
                }
                (u0, v0, u1, v1) = (u0.min(u), v0.min(v), u1.max(u), v1.max(v));
            }
        }
    }
    let box_area = (u1 - u0) * (v1 - v0);
    if !(box_area > 0.0) {
        return f32::NAN;
    }
    (c.area as f64 * f64::from(card_px_per_px) / box_area) as f32
}

/// How much of its box's sides, in the card's own frame, region `c` runs along: for each
/// side, the span (share of the side's length) of the region's pixels within a tenth of
/// the box from that side, the four averaged. A disk or an ellipse (a punch, flattened
/// with any aspect) spans 0.6 of each side there; a rectangle with rounded corners set
/// square with the card (a chip) nearly all. NaN where the frame cannot be mapped.
fn card_frame_side_span(labels: &[u32], w: usize, c: &crate::card_box::Comp, to_card: Option<&Homography>) -> f32 {
    let Some(hm) = to_card else { return f32::NAN };
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(c.area);
    for y in c.y0..=c.y1 {
        for x in c.x0..=c.x1 {
            if labels[y * w + x] == c.label {
                let (u, v) = hm.apply(x as f64 + 0.5, y as f64 + 0.5);
                if !(u.is_finite() && v.is_finite()) {
                    return f32::NAN;
                }
                points.push((u, v));
            }
        }
    }
    let (u0, v0, u1, v1) = points.iter().fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |(a, b, c, d), &(u, v)| (a.min(u), b.min(v), c.max(u), d.max(v)));
    let (bw, bh) = (u1 - u0, v1 - v0);
    if !(bw > 0.0 && bh > 0.0) {
        return f32::NAN;
    }
    let span = |near: &dyn Fn(f64, f64) -> bool, along: &dyn Fn(f64, f64) -> f64, length: f64| {
        let (lo, hi) = points.iter().filter(|&&(u, v)| near(u, v)).fold((f64::MAX, f64::MIN), |(lo, hi), &(u, v)| (lo.min(along(u, v)), hi.max(along(u, v))));
        if hi >= lo { (hi - lo) / length } else { 0.0 }
    };
    let sides = [
        span(&|_, v| v <= v0 + 0.1 * bh, &|u, _| u, bw),
        span(&|_, v| v >= v1 - 0.1 * bh, &|u, _| u, bw),
        span(&|u, _| u <= u0 + 0.1 * bw, &|_, v| v, bh),
        span(&|u, _| u >= u1 - 0.1 * bw, &|_, v| v, bh),
    ];
    (sides.iter().sum::<f64>() / 4.0) as f32
}

/// Lowest corner-triangle coverage of the filled mask (1 when it cannot be measured).
/// How certain it is that the whole card is overexposed (0-1, fails at ≥ 0.5): too many
/// clipped pixels, or even its darker pixels bright. Unlike a glare spot, which washes out
/// one place (the print elsewhere is as readable as ever), this fades all of the print.
pub fn overexposure(m: &CardMeasures) -> f32 {
    // Its darker pixels bright say so only where its paper is blown too (the 90th
    // percentile at the clip): a pale card with little print, well exposed, has a bright
    // 10th percentile below paper that is not (the independent set's voter card's back:
    // p10 241, p90 247, 0.7 % clipped).
    // And only where its print is lightened too: a card lit to white whose darkest print
    // stays dark is a pale card well read (seed 7's voter backs: p1 52 and 90).
    let blown_paper = ramp(m.luma_p90, 244.0, BRIGHT_PAPER_P90, 253.0);
    let faded_print = ramp(m.luma_p1, 100.0, BRIGHT_INK_P1, 200.0);
    // A white card lit to white whose print stays black clips much of its paper and is
    // still well read: its clipped share counts only from [`BLACK_PRINT_CLIPPED_SHARE`].
    let clipped = if m.luma_p1 < BLACK_PRINT_P1 {
        ramp(m.clipped_share, 0.4, BLACK_PRINT_CLIPPED_SHARE, 0.8)
    } else {
        ramp(m.clipped_share, 0.2, BRIGHT_CLIPPED_SHARE, 0.6)
    };
    clipped.max(ramp(m.luma_p10, 215.0, BRIGHT_P10, 252.0).min(blown_paper).min(faded_print))
}

/// A pixel saturated in all three channels (what a specular reflection leaves).
const SATURATED: u8 = 250;
/// Share of a block's pixels that must be saturated for the block to be solid glare.
const GLARE_SOLID: f32 = 0.95;
/// Smallest glare spot, share of the card's area.
pub const GLARE_MIN_SHARE: f32 = 0.002;
/// Smallest share of its bounding box a glare spot fills (a disk fills 0.79).
const GLARE_MIN_FILL: f32 = 0.5;
/// Longest side of a glare spot's box over its shortest (a disk cut in half by the
/// card's edge: 2).
const GLARE_MAX_ASPECT: usize = 3;
/// Least 10th percentile of luminance inside the ellipse inscribed in a glare spot's box:
/// a reflection washes every stroke of print in its core out (the half-washed print at
/// the box's corners stays outside the ellipse), while a white region of the card's own
/// design (an MRZ band past its last characters, a white shirt in the portrait) has print
/// or the portrait's edges inside its box. Synthetic highlights on all six card types:
/// ≥ 231; the design's white regions of the evaluation: 137-174.
const GLARE_CORE_P10: f32 = 220.0;
/// A glare spot that reaches the card's edge (within two blocks) counts toward
/// [`GLARE_SHARE`] only from this share of the card up: smaller ones are pale paper lit
/// past white at that edge (the evaluation's tilted and perspective cards on other seeds:
/// 1.0-1.9 % of the card, in a corner or along a side, no print in them), while a
/// reflection that washes a whole card out measures 0.81-0.94.
pub const GLARE_EDGE_SHARE: f32 = 0.05;
/// Glare spots' share of the card at which it is too bright: a reflection of ~6 % of the
/// card's width in radius, which washes out a word or two of a line.
pub const GLARE_SHARE: f32 = 0.01;
/// Share of the card in solid saturated blocks ([`solid_saturated_share`], whatever
/// their shape) at which it is too bright: a reflection that runs over a QR code or into
/// the card's edge is no compact spot (its box holds the code's modules, its fill is
/// low), but washes as much print out. On the independent card set's captures: 0.156 and
/// more on every glare capture, 0.050 at most on every other one (a white card's paper
/// saturates between its print and pattern lines, in few solid blocks).
pub const SOLID_GLARE_SHARE: f32 = 0.1;

/// Glare spots on a card: regions where every pixel is saturated in all three channels,
/// solid (blocks of ~1/150 of the card's width ≥ [`GLARE_SOLID`] saturated), at least
/// [`GLARE_MIN_SHARE`] of the card and compact (≥ [`GLARE_MIN_FILL`] of their box, no
/// longer than [`GLARE_MAX_ASPECT`] times their width), with no print inside
/// ([`GLARE_CORE_P10`]). Why: white paper lit brightly saturates *between* the lines of
/// its guilloche pattern (stripes, no solid block), a QR code's white quiet zone is a
/// thin ring (a small share of its box), a white table seen past a card's edge is a strip
/// along it, and a white region of the design has print in it; a reflection washes
/// pattern and print alike out, over a disk. Returns the spots' total share of the card
/// (but those small ones that reach its edge, [`GLARE_EDGE_SHARE`]) and the largest one's
/// box in the card's pixels.
pub fn glare_spots(card: &RgbImage) -> (f32, Option<[f32; 4]>) {
    let Some((solid, gw, gh, b)) = saturated_blocks(card).filter(|&(_, gw, gh, _)| gw >= 4 && gh >= 4) else {
        return (0.0, None);
    };
    let (labels, comps) = components(&solid, gw, gh, false);
    let min_blocks = GLARE_MIN_SHARE * (gw * gh) as f32;
    // A blank white area of a card exposed brightly (right of a name, under a date)
    // clips as solidly and is as compact as a reflection: the print around it, dark as
    // anywhere, tells it apart (`ink_dark_around`).
    let spots: Vec<_> = comps
        .iter()
        .filter(|c| {
            let (bw, bh) = (c.x1 - c.x0 + 1, c.y1 - c.y0 + 1);
            c.area as f32 >= min_blocks
                && c.area as f32 >= GLARE_MIN_FILL * (bw * bh) as f32
                && bw.max(bh) <= GLARE_MAX_ASPECT * bw.min(bh)
                && core_p10(card, [c.x0 * b, c.y0 * b, (c.x1 + 1) * b, (c.y1 + 1) * b]) >= GLARE_CORE_P10
                && !ink_dark_around(card, &labels, gw, gh, c, b)
        })
        .collect();
    // A small saturated region that runs into the card's edge is its paper lit past white
    // at that edge (a lighting gradient over a pale card, a blank white margin), not a
    // reflection over its print: shown as a spot (the reader is as careful beside it),
    // not counted toward the verdict. A reflection that big is a disk in the card.
    let at_edge = |c: &crate::card_box::Comp| c.x0 <= 2 || c.y0 <= 2 || c.x1 + 3 >= gw || c.y1 + 3 >= gh;
    let counted = spots.iter().filter(|c| !(at_edge(c) && (c.area as f32) < GLARE_EDGE_SHARE * (gw * gh) as f32));
    let share = counted.map(|c| c.area).sum::<usize>() as f32 / (gw * gh) as f32;
    let largest = spots.iter().max_by_key(|c| c.area).map(|c| blocks_box(c, b));
    (share, largest)
}

/// How bright a card's paper is away from glare: the median luminance of the card's
/// pixels outside `glare` (`[x0, y0, x1, y1]`; all of them when that leaves less than a
/// tenth of the card), every second pixel each way. Print is a small share of a card,
/// so the median is its paper (and its pattern).
pub fn paper_luma(card: &RgbImage, glare: Option<[f32; 4]>) -> f32 {
    let (w, h) = card.dimensions();
    let outside = |x: u32, y: u32| glare.is_none_or(|[x0, y0, x1, y1]| (x as f32) < x0 || (x as f32) >= x1 || (y as f32) < y0 || (y as f32) >= y1);
    let mut counts = [0u32; 256];
    let mut all = [0u32; 256];
    for y in (0..h).step_by(2) {
        for x in (0..w).step_by(2) {
            let l = luma(&card.get_pixel(x, y).0).round().clamp(0.0, 255.0) as usize;
            all[l] += 1;
            if outside(x, y) {
                counts[l] += 1;
            }
        }
    }
    let total = |c: &[u32; 256]| c.iter().map(|&n| u64::from(n)).sum::<u64>();
    let hist = if total(&counts) * 10 >= total(&all) { &counts } else { &all };
    let half = total(hist).div_ceil(2);
    let mut seen = 0u64;
    for (l, &n) in hist.iter().enumerate() {
        seen += u64::from(n);
        if seen >= half && n > 0 {
            return l as f32;
        }
    }
    255.0
}

/// Share of the way from a card's paper to white past which a pixel counts as faded by
/// glare ([`washed`]): a reflection adds light over the print as over the paper, and
/// where the paper is lit 70 % of the way to white the print keeps under a third of its
/// contrast. On the independent card set's glare captures OCR lost regular print ("Male"
/// after "Gender:") where its paper was lit 65-90 % of the way; bold print read at 50 %
/// throughout. (Values given at 0.5, 0.7, 0.85 over seeds 1-6: 46, 52, 54 more, none wrong.)
pub const FADED_HEADROOM: f32 = 0.7;

/// How much of a zone of a card glare lit: the shares of its pixels faded (brighter
/// than the card's paper by more than [`FADED_HEADROOM`] of its way to white) and
/// saturated in all three channels ([`SATURATED`], whatever the paper).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Washed {
    pub faded: f32,
    pub saturated: f32,
}

/// [`Washed`] over `zone` (`[x0, y0, x1, y1]` in the card's pixels, cut to the card);
/// `None` when less than a pixel of the zone is on the card. `paper`: the card's paper
/// away from glare ([`paper_luma`]).
pub fn washed(card: &RgbImage, zone: [f32; 4], paper: f32) -> Option<Washed> {
    let [x0, y0, x1, y1] = zone_on_card(card, zone)?;
    let level = (paper + FADED_HEADROOM * (255.0 - paper)).min(f32::from(SATURATED));
    let (mut faded, mut saturated) = (0u32, 0u32);
    for y in y0..y1 {
        for x in x0..x1 {
            let p = card.get_pixel(x, y).0;
            faded += u32::from(luma(&p) >= level);
            saturated += u32::from(p.iter().all(|&c| c >= SATURATED));
        }
    }
    let n = ((x1 - x0) * (y1 - y0)) as f32;
    Some(Washed { faded: faded as f32 / n, saturated: saturated as f32 / n })
}

/// `zone` (`[x0, y0, x1, y1]` in the card's pixels) cut to the card, in whole pixels;
/// `None` when less than a pixel of it is on the card.
pub fn zone_on_card(card: &RgbImage, zone: [f32; 4]) -> Option<[u32; 4]> {
    let (w, h) = card.dimensions();
    let cut = |v: f32, max: u32| v.clamp(0.0, max as f32).round() as u32;
    let (x0, x1, y0, y1) = (cut(zone[0], w), cut(zone[2], w), cut(zone[1], h), cut(zone[3], h));
    (x1 > x0 && y1 > y0).then_some([x0, y0, x1, y1])
}

/// A region of [`saturated_blocks`]' grid (blocks of side `b`) as a box in the image's
/// pixels: `[x0, y0, x1, y1]`.
fn blocks_box(c: &crate::card_box::Comp, b: usize) -> [f32; 4] {
    [(c.x0 * b) as f32, (c.y0 * b) as f32, ((c.x1 + 1) * b) as f32, ((c.y1 + 1) * b) as f32]
}

/// Share of `image` in blocks (~1/150 of its width, as [`glare_spots`]' blocks) of which
/// ≥ [`GLARE_SOLID`] of the pixels are saturated in all three channels, whatever the
/// blocks' shape together: where exposure or a reflection washed everything out, print
/// and the paper's pattern included. A white card's paper saturates between them.
pub fn solid_saturated_share(image: &RgbImage) -> f32 {
    solid_saturated(image, false).0
}

/// [`solid_saturated_share`] and, when `with_box` and it reaches [`SOLID_GLARE_SHARE`],
/// the box (in `image`'s pixels) of the largest region of those blocks: where a
/// reflection that is no compact spot washed print out. One pass over the blocks.
fn solid_saturated(image: &RgbImage, with_box: bool) -> (f32, Option<[f32; 4]>) {
    let Some((solid, gw, gh, b)) = saturated_blocks(image) else {
        return (0.0, None);
    };
    let share = solid.iter().filter(|&&v| v != 0).count() as f32 / (gw * gh) as f32;
    if share < 0.5 * SOLID_GLARE_SHARE {
        return (share, None);
    }
    // Regions whose print inside stays black, or whose print around them stays dark,
    // are the card's white paper clipped, no light washing it (`ink_black_inside`,
    // `ink_dark_around`): they do not count.
    let (labels, comps) = components(&solid, gw, gh, false);
    let washing: Vec<&crate::card_box::Comp> = comps.iter().filter(|c| !ink_black_inside(image, &labels, gw, c, b) && !ink_dark_around(image, &labels, gw, gh, c, b)).collect();
    let share = washing.iter().map(|c| c.area).sum::<usize>() as f32 / (gw * gh) as f32;
    let largest = (with_box && share >= SOLID_GLARE_SHARE).then(|| washing.iter().max_by_key(|c| c.area).map(|c| blocks_box(c, b))).flatten();
    (share, largest)
}

/// Luminance at or under which the darkest print enclosed by a saturated region shows
/// that no light was added over it ([`ink_black_inside`]). Light that saturates paper
/// lifts black ink too: the independent card set's overexposed and reflected captures
/// keep 31-249 there (2nd percentile), a white MRZ band clipped by an exposure of 1.03
/// keeps 3.
pub const SOLID_INK_BLACK: f32 = 16.0;

/// Whether the print a region of saturated blocks encloses (the blocks inside its
/// outline that are not saturated: the characters of an MRZ band, a QR code's modules)
/// is black, its 2nd luminance percentile at most [`SOLID_INK_BLACK`]: the card's own
/// white paper clipped by the exposure, whose print reads as well as ever, not a
/// reflection or an overexposure that washes print out. False when it encloses none.
fn ink_black_inside(image: &RgbImage, labels: &[u32], gw: usize, c: &crate::card_box::Comp, b: usize) -> bool {
    let (bw, bh) = (c.x1 - c.x0 + 1, c.y1 - c.y0 + 1);
    let sub: Vec<u8> = (0..bw * bh).map(|i| u8::from(labels[(c.y0 + i / bw) * gw + c.x0 + i % bw] == c.label)).collect();
    let filled = fill_holes(&sub, bw, bh);
    let mut lumas = BlockLuma::new();
    for (i, (&f, &r)) in filled.iter().zip(&sub).enumerate() {
        if f == 0 || r != 0 {
            continue;
        }
        let (gx, gy) = (c.x0 + i % bw, c.y0 + i / bw);
        lumas.add_block(image, gx, gy, b);
    }
    lumas.p2().is_some_and(|p2| p2 <= SOLID_INK_BLACK)
}

/// A luminance histogram of whole blocks of an image ([`ink_black_inside`],
/// [`ink_dark_around`]).
struct BlockLuma {
    hist: [u64; 256],
    n: u64,
}

impl BlockLuma {
    fn new() -> BlockLuma {
        BlockLuma { hist: [0; 256], n: 0 }
    }

    /// Adds the pixels of block (`gx`, `gy`) of side `b` that lie in `image`.
    fn add_block(&mut self, image: &RgbImage, gx: usize, gy: usize, b: usize) {
        for y in gy * b..(gy + 1) * b {
            for x in gx * b..(gx + 1) * b {
                if let Some(p) = image.get_pixel_checked(x as u32, y as u32) {
                    self.hist[(luma(&p.0).round() as usize).min(255)] += 1;
                    self.n += 1;
                }
            }
        }
    }

    /// The 2nd percentile, or `None` when no pixel was added.
    fn p2(&self) -> Option<f32> {
        (self.n > 0).then(|| histogram_percentile(&self.hist, self.n, 0.02))
    }
}

/// Luminance at or under which the darkest print just around a region of saturated
/// blocks shows that no light was added there ([`ink_dark_around`]). A reflection's
/// light fades out over a halo around its saturated core and lifts the ink there with
/// the paper: on the independent card set's glare captures (seed 15's 16 regions over
/// half a percent of a card) the ring's 2nd percentile is 72-202. A white card lit
/// brightly, whose paper clips between the print in wide regions (a jpeg35 capture of
/// an Aadhaar front exposed at 1.04: a fifth of the card in solid blocks, judged too
/// bright), keeps its print as dark beside them as anywhere: 8-32 in its five largest
/// regions (81 in one of 1 % at the chip's edge).
pub const SOLID_INK_AROUND: f32 = 48.0;

/// Blocks around a region (4-connected steps) in which its print is looked for
/// ([`ink_dark_around`]): ~1.3 % of the card's width, inside a reflection's halo.
const AROUND_BLOCKS: usize = 2;

/// Whether the print just around a region of saturated blocks (the blocks within
/// [`AROUND_BLOCKS`] steps of it that are not saturated, the card's outer 3 % left out,
/// where the table may show) is dark, its 2nd luminance percentile at most
/// [`SOLID_INK_AROUND`]: the card's white paper clipped by the exposure, its print as
/// dark beside it as anywhere, not a reflection, whose halo lifts the print around its
/// core. False when no such block is found. (A region enclosing print is judged by
/// [`ink_black_inside`]; a white region with no print in it, between the lines of a
/// card's text, by what surrounds it.)
fn ink_dark_around(image: &RgbImage, labels: &[u32], gw: usize, gh: usize, c: &crate::card_box::Comp, b: usize) -> bool {
    let (mx, my) = (gw * 3 / 100 + 1, gh * 3 / 100 + 1);
    if gw <= 2 * mx || gh <= 2 * my {
        return false;
    }
    let near = |gx: usize, gy: usize| {
        let (x0, x1) = (gx.saturating_sub(AROUND_BLOCKS), (gx + AROUND_BLOCKS).min(gw - 1));
        let (y0, y1) = (gy.saturating_sub(AROUND_BLOCKS), (gy + AROUND_BLOCKS).min(gh - 1));
        (y0..=y1).any(|y| (x0..=x1).any(|x| gx.abs_diff(x) + gy.abs_diff(y) <= AROUND_BLOCKS && labels[y * gw + x] == c.label))
    };
    let mut lumas = BlockLuma::new();
    for gy in c.y0.saturating_sub(AROUND_BLOCKS).max(my)..=(c.y1 + AROUND_BLOCKS).min(gh - 1 - my) {
        for gx in c.x0.saturating_sub(AROUND_BLOCKS).max(mx)..=(c.x1 + AROUND_BLOCKS).min(gw - 1 - mx) {
            if labels[gy * gw + gx] != 0 || !near(gx, gy) {
                continue;
            }
            lumas.add_block(image, gx, gy, b);
        }
    }
    lumas.p2().is_some_and(|p2| p2 <= SOLID_INK_AROUND)
}

/// `image` in blocks of ~1/150 of its width (at least 2 px): 1 where ≥ [`GLARE_SOLID`] of
/// a block's pixels are saturated in all three channels. The grid, its width and height in
/// blocks, and the block's side; `None` when not one block fits.
fn saturated_blocks(image: &RgbImage) -> Option<(Vec<u8>, usize, usize, usize)> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let b = (w / 150).max(2);
    let (gw, gh) = (w / b, h / b);
    if gw == 0 || gh == 0 || image.as_raw().len() < w * h * 3 {
        return None;
    }
    let raw = image.as_raw();
    let need = (GLARE_SOLID * (b * b) as f32).ceil() as usize;
    let mut solid = vec![0u8; gw * gh];
    for gy in 0..gh {
        for gx in 0..gw {
            let mut saturated = 0;
            for y in gy * b..(gy + 1) * b {
                let row = &raw[(y * w + gx * b) * 3..(y * w + (gx + 1) * b) * 3];
                saturated += row.chunks_exact(3).filter(|p| p[0] >= SATURATED && p[1] >= SATURATED && p[2] >= SATURATED).count();
            }
            solid[gy * gw + gx] = u8::from(saturated >= need);
        }
    }
    Some((solid, gw, gh, b))
}

/// 10th percentile of luminance inside the ellipse inscribed in `[x0, y0, x1, y1]` (every
/// other pixel of every other row).
fn core_p10(card: &RgbImage, [x0, y0, x1, y1]: [usize; 4]) -> f32 {
    let (w, h) = (card.width() as usize, card.height() as usize);
    let (cx, cy) = ((x0 + x1) as f32 / 2.0, (y0 + y1) as f32 / 2.0);
    let (rx, ry) = (((x1 - x0) as f32 / 2.0).max(1.0), ((y1 - y0) as f32 / 2.0).max(1.0));
    let raw = card.as_raw();
    let mut hist = [0u64; 256];
    let mut n = 0u64;
    for y in (y0..y1.min(h)).step_by(2) {
        for x in (x0..x1.min(w)).step_by(2) {
            if ((x as f32 - cx) / rx).powi(2) + ((y as f32 - cy) / ry).powi(2) < 1.0 {
                let v = luma(&raw[(y * w + x) * 3..(y * w + x) * 3 + 3]);
                hist[(v.round() as usize).min(255)] += 1;
                n += 1;
            }
        }
    }
    if n == 0 {
        return 0.0;
    }
    histogram_percentile(&hist, n, 0.1)
}

/// The lowest coverage over the corners that could be judged, and whether all four
/// could: a corner whose triangle lies less than half inside the photo is not judged (the
/// frame hides whether it is cut), and a triangle's samples outside the photo count
/// neither way. `(1, false)` when nothing could be measured.
fn corner_coverage(loc: &CardLocation, filled: &[u8]) -> (f32, bool, Option<(usize, [f32; 2])>) {
    let (w, h) = (loc.mask.width() as usize, loc.mask.height() as usize);
    if w < 3 || h < 3 || loc.scale <= 0.0 || !loc.scale.is_finite() || filled.len() != w * h {
        return (1.0, false, None);
    }
    let q = loc.quad.scaled(1.0 / loc.scale, 1.0 / loc.scale);
    let c = q.corners();
    let mut sides = q.side_lengths();
    sides.sort_by(|a, b| a.total_cmp(b));
    let short = 0.5 * (sides[0] + sides[1]);
    if !(short.is_finite() && short > 1.0) {
        return (1.0, false, None);
    }
    let leg = CUT_LEG * short;
    const N: usize = 24;
    let mut worst = 1f32;
    let mut worst_corner = None;
    let mut judged = 0;
    for k in 0..4 {
        let (p, a, b) = (c[k], c[(k + 1) % 4], c[(k + 3) % 4]);
        let (ua, ub) = (unit_towards(p, a), unit_towards(p, b));
        let (mut all, mut tot, mut hit) = (0u32, 0u32, 0u32);
        for i in 0..N {
            for j in 0..N {
                let (s, t) = ((i as f32 + 0.5) / N as f32, (j as f32 + 0.5) / N as f32);
                if s + t >= 1.0 {
                    continue;
                }
                let x = p.x + leg * (s * ua.0 + t * ub.0);
                let y = p.y + leg * (s * ua.1 + t * ub.1);
                all += 1;
                if !(x >= 0.0 && y >= 0.0 && (x as usize) < w && (y as usize) < h) {
                    continue;
                }
                tot += 1;
                if filled[y as usize * w + x as usize] != 0 {
                    hit += 1;
                }
            }
        }
        if tot > 0 && 2 * tot >= all {
            judged += 1;
            let coverage = hit as f32 / tot as f32;
            // The colours call it missing; the card's outline may still run into it.
            let coverage = if coverage < CUT_COVERAGE_GOOD && corner_sides_seen(loc, &c, k, short) { 1.0 } else { coverage };
            if coverage < worst {
                worst = coverage;
                worst_corner = Some(k);
            }
        }
    }
    // The cut's extent, only for a corner the coverage calls cut or nearly.
    let legs = worst_corner.filter(|_| worst < CUT_COVERAGE_GOOD).map(|k| (k, [cut_leg(filled, w, h, c[k], c[(k + 1) % 4], c[(k + 3) % 4], short), cut_leg(filled, w, h, c[k], c[(k + 3) % 4], c[(k + 1) % 4], short)]));
    (worst, judged == 4, legs)
}

/// How far from corner `p` along its side towards `a` the card is missing, as a share of
/// that side: walking the side, [`CUT_INSET`] of the short side inside the card (towards
/// `b`), in steps of a hundredth of the short side, to where the card is present on three
/// steps running (at most half the side). A cut's legs are 15-28 % of the short side
/// (the independent set's), more than the coverage's triangle ([`CUT_LEG`]) sees.
fn cut_leg(present: &[u8], w: usize, h: usize, p: crate::card_box::Point, a: crate::card_box::Point, b: crate::card_box::Point, short: f32) -> f32 {
    let side = p.dist(a).max(1e-6);
    let (ua, ub) = (unit_towards(p, a), unit_towards(p, b));
    let (step, inset) = (0.01 * short, CUT_INSET * short);
    let mut run = 0;
    let mut d = 0.0;
    while d < 0.5 * side {
        let (x, y) = (p.x + d * ua.0 + inset * ub.0, p.y + d * ua.1 + inset * ub.1);
        let here = x >= 0.0 && y >= 0.0 && (x as usize) < w && (y as usize) < h && present[y as usize * w + x as usize] != 0;
        run = if here { run + 1 } else { 0 };
        if run == 3 {
            return ((d - 2.0 * step) / side).max(0.0);
        }
        d += step;
    }
    0.5
}

/// The unit vector from `p` towards `q` (zero-length sides kept finite).
fn unit_towards(p: crate::card_box::Point, q: crate::card_box::Point) -> (f32, f32) {
    let d = p.dist(q).max(1e-6);
    ((q.x - p.x) / d, (q.y - p.y) / d)
}

/// How far inside the card [`cut_leg`] walks a side: past its rounded corner's edge
/// pixels, well inside any cut worth the name.
const CUT_INSET: f32 = 0.03;

/// Where along a side, as a share of the quad's short side from its corner, an intact
/// corner's side runs straight: past an ID-1 corner's rounding (3.18 mm of 54 mm, 0.059)
/// ...
pub const CORNER_SIDE_FROM: f32 = 0.07;
/// ... up to here, short of where a cut worth the name ends (legs of 15 % of the short
/// side and more cut a triangle [`CUT_LEG`] does not cover).
pub const CORNER_SIDE_TO: f32 = 0.14;
/// Share of a side's edge strength (its median further along, 20-50 % of the side) that
/// a sample near the corner must reach to count as the side running on ...
pub const CORNER_SIDE_STRENGTH: f32 = 0.4;
/// ... and share of the samples near the corner that must.
pub const CORNER_SIDE_SUPPORT: f32 = 0.75;
/// Weakest edge (RGB distance, [`CardLocation::edge_strength`]) a side's median must have
/// to be judged at all: a side that barely shows (a white card on white paper, unlit)
/// says nothing of its corner.
pub const CORNER_SIDE_MIN_EDGE: f32 = 6.0;
/// How far either side of a side's line [`corner_sides_seen`] looks for the card's edge,
/// as a share of the quad's short side (3 px at the least). A quad fitted to a card's
/// shadow runs a few pixels off the card's own edge, further near a corner the shadow
/// does not reach: within 3 px, a light card's top-left corner on white paper showed no
/// side and was called cut (the independent set's seed 35, a clean national identity
/// card's back and a passport in perspective; seed 33, an Aadhaar at JPEG quality 35).
/// A cut's own edge, the diagonal, lies further in than this over most of the stretch
/// judged (its legs are 15 % of the short side and more): no cut of seeds 24-35 (2,640
/// photos) was taken for a side.
pub const CORNER_SIDE_BAND: f32 = 0.02;
/// Coverage at and above which a corner is taken as intact without asking its sides (the
/// cut score's good anchor).
const CUT_COVERAGE_GOOD: f32 = 0.65;

/// Whether corner `k` of the quad `c` (working frame) still has both its sides: along
/// each side, from [`CORNER_SIDE_FROM`] to [`CORNER_SIDE_TO`] x `short` from the corner,
/// the card's edge (the strongest [`CardLocation::edge_strength`] within
/// [`CORNER_SIDE_BAND`] of the side's line) at [`CORNER_SIDE_STRENGTH`] of the same side's edge further along, on
/// [`CORNER_SIDE_SUPPORT`] of the samples. Why: a white card on white paper has its pale
/// corner within the table's colours (the coverage then calls it cut), but its outline
/// still runs on into the corner; a cut corner's sides stop where the cut begins, the
/// table beyond has no edge on their lines.
fn corner_sides_seen(loc: &CardLocation, c: &[crate::card_box::Point; 4], k: usize, short: f32) -> bool {
    let g = &loc.edge_strength;
    let (w, h) = (g.width() as i64, g.height() as i64);
    if g.dimensions() != loc.mask.dimensions() || w < 3 || h < 3 {
        return false;
    }
    let at = |x: f32, y: f32| -> f32 {
        let (xi, yi) = (x.floor() as i64, y.floor() as i64);
        if xi < 0 || yi < 0 || xi >= w || yi >= h {
            return f32::NAN;
        }
        f32::from(g.get_pixel(xi as u32, yi as u32).0[0])
    };
    let p = c[k];
    [c[(k + 1) % 4], c[(k + 3) % 4]].iter().all(|&q| {
        let len = p.dist(q);
        if !(len > 1.0) {
            return false;
        }
        let u = ((q.x - p.x) / len, (q.y - p.y) / len);
        // The edge across the line at `t` from the corner: its strongest pixel within 3 px.
        let peak = |t: f32| -> f32 {
            let (x, y) = (p.x + u.0 * t, p.y + u.1 * t);
            // NaN (outside the frame) is ignored by `max`; all outside stays NaN.
            let n = (2.0 * (CORNER_SIDE_BAND * short).max(3.0)).round() as i32;
            (-n..=n).map(|i| 0.5 * i as f32).fold(f32::NAN, |best, s| best.max(at(x - u.1 * s, y + u.0 * s)))
        };
        let mut along: Vec<f32> = (0..12).map(|i| peak(len * (0.2 + 0.3 * i as f32 / 11.0))).filter(|v| v.is_finite()).collect();
        if along.len() < 6 {
            return false;
        }
        along.sort_by(|a, b| a.total_cmp(b));
        let reference = along[along.len() / 2];
        if reference < CORNER_SIDE_MIN_EDGE {
            return false;
        }
        const N: usize = 8;
        let near: Vec<f32> = (0..N).map(|i| peak(short * (CORNER_SIDE_FROM + (CORNER_SIDE_TO - CORNER_SIDE_FROM) * i as f32 / (N - 1) as f32))).collect();
        let strong = near.iter().filter(|v| v.is_finite() && **v >= CORNER_SIDE_STRENGTH * reference).count();
        strong as f32 >= CORNER_SIDE_SUPPORT * N as f32
    })
}

/// Share of the finder's border ring (the working frame's pixels within 2 % of its
/// short side of an edge, where [`crate::card_box::find_card`] takes the background's
/// colours) that lies inside the card's quad. On a photo cut to a turned card (a scan, a
/// client's crop) the ring runs through the card's paper wherever the slivers of table
/// at the frame's edges are thinner than the ring; the paper then joins the table's
/// colours (a cluster needs 12 % of the ring), and holes and cuts (the table seen through
/// or past the card) cannot be told from the card's own light print.
pub fn border_inside_card(loc: &CardLocation) -> f32 {
    let (w, h) = (loc.mask.width() as usize, loc.mask.height() as usize);
    if w < 2 || h < 2 || loc.scale <= 0.0 || !loc.scale.is_finite() {
        return 0.0;
    }
    let c = loc.quad.scaled(1.0 / loc.scale, 1.0 / loc.scale).corners();
    // Inside a convex quad: on the same side of all four edges.
    let inside = |x: f32, y: f32| {
        let mut sign = 0f32;
        for k in 0..4 {
            let (a, b) = (c[k], c[(k + 1) % 4]);
            let cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
            if cross != 0.0 {
                if sign != 0.0 && cross.signum() != sign {
                    return false;
                }
                sign = cross.signum();
            }
        }
        true
    };
    let ring = ((0.02 * w.min(h) as f32).round() as usize).max(1);
    let (mut total, mut hits) = (0usize, 0usize);
    for y in 0..h {
        for x in 0..w {
            if x < ring || y < ring || x + ring >= w || y + ring >= h {
                total += 1;
                hits += usize::from(inside(x as f32 + 0.5, y as f32 + 0.5));
            }
        }
    }
    hits as f32 / total.max(1) as f32
}

/// Whether the photo was cut to the card: each of the frame's four sides has a corner of
/// the card within 2 % of the photo's short side of it (a crop to the card's bounding box
/// puts one corner on each). The table then shows in slivers at most, and the card's
/// paper may join its colours even where little of the ring lies inside the card (a
/// voter card's back, 8.8 % of it, was called cut). A card on a table reaches two sides
/// of the frame at most.
pub fn cut_to_the_card(loc: &CardLocation) -> bool {
    let (w, h) = (loc.mask.width() as f32, loc.mask.height() as f32);
    if w < 2.0 || h < 2.0 || loc.scale <= 0.0 || !loc.scale.is_finite() {
        return false;
    }
    let c = loc.quad.scaled(1.0 / loc.scale, 1.0 / loc.scale).corners();
    let m = 0.02 * w.min(h);
    let near = |f: &dyn Fn(&crate::card_box::Point) -> bool| c.iter().any(f);
    near(&|p| p.x <= m) && near(&|p| p.x >= w - m) && near(&|p| p.y <= m) && near(&|p| p.y >= h - m)
}

/// Share of the finder's ring inside the card ([`border_inside_card`]) from which the
/// card's outline is taken as unseen, and holes and cuts are not judged: a card on a
/// table holds none of it; a photo cut to a card turned 2-3° holds 0.15-0.3
/// (`a_photo_cut_to_a_turned_card_is_not_judged_for_holes_and_cuts`).
pub const OUTLINE_UNSEEN_BORDER: f32 = 0.1;

/// The exposure verdict of a photo in which no card shape was found: `Some` only when it
/// is too dark or too bright (then that, not "no card", is the useful answer). Blur is not
/// judged without a card (a plain wall has no edges and would measure "blurred"), nor
/// holes and cuts (they need the card's outline).
pub fn sanity_without_card(photo: &RgbImage) -> Option<CardSanity> {
    exposure_verdict(card_sanity(photo, None))
}

/// [`sanity_without_card`]'s verdict from the whole photo's [`card_sanity`] (for a
/// caller that also keeps its measures, such as the blur of the photo's print).
pub fn exposure_verdict(s: CardSanity) -> Option<CardSanity> {
    Some(exposure_sanity(s)).filter(|s| s.verdict.is_issue())
}

/// The exposure checks of a whole photo in which no card shape was found, from its
/// [`card_sanity`]: `image_too_dark`, `image_too_bright`, else `incomplete` (only the
/// exposure was judged: blur, holes and cuts need the card, see [`sanity_without_card`]).
/// The card sanity of a card the finder missed but whose print was read.
pub fn exposure_sanity(mut s: CardSanity) -> CardSanity {
    use CardSanityVerdict as V;
    // Only the exposure checks count (a dark photo is often structureless too, which
    // the blur check, first in `card_sanity`'s order, would answer).
    s.details.retain(|d| matches!(d.0, V::ImageTooDark | V::ImageTooBright));
    // Saturated pixels say the photo is washed out only where they lie in solid regions
    // (`glare_spots`: a reflection over the card, an exposure blown out): a white card's
    // paper saturates between its print and its guilloche lines, in no solid block.
    let solid = s.measures.solid_saturated_share >= NO_CARD_SOLID_SHARE * s.measures.clipped_share;
    let glare = if solid { ramp(s.measures.clipped_share, 0.5 * NO_CARD_CLIPPED_SHARE, NO_CARD_CLIPPED_SHARE, 2.0 * NO_CARD_CLIPPED_SHARE) } else { 0.0 };
    // Glare spots count on a card only: in a whole photo a white table or wall saturates
    // in solid patches too, and their place says nothing of where print is.
    (s.measures.glare_share, s.measures.glare_box) = (0.0, None);
    for d in s.details.iter_mut().filter(|d| d.0 == V::ImageTooBright) {
        d.1 = overexposure(&s.measures).max(glare);
    }
    let fails = |v: V| s.details.iter().any(|d| d.0 == v && d.1 >= 0.5);
    s.verdict = if fails(V::ImageTooDark) {
        V::ImageTooDark
    } else if fails(V::ImageTooBright) {
        V::ImageTooBright
    } else {
        V::Incomplete
    };
    s.score = 1.0 - s.details.iter().map(|d| d.1).fold(0f32, f32::max);
    s
}

/// Punch sizes [`punch_by_its_rim`] looks for, as diameters in mm: round punches for a
/// lanyard or a cancellation are 3-8 mm across; a hole past 10.5 mm is no punch
/// ([`HOLE_MAX_SHARE`]).
const RIM_PUNCH_DIAMETERS_MM: [f32; 8] = [3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5];
/// Least brightness (grey levels) by which a punch's middle stands under the page around
/// it ([`punch_by_its_rim`]) ...
const RIM_PUNCH_CONTRAST: f32 = 12.0;
/// ... and most spread (σ, grey levels) of its middle and of the page around it: a punch
/// shows the table, plain; print and a portrait are not plain.
const RIM_PUNCH_PLAIN: f32 = 8.0;
/// Share of the rays from its centre on which a punch's rim is found (a rise to the
/// page's brightness) ...
const RIM_PUNCH_RAYS: f32 = 0.95;
/// How many candidate disks, the most contrasted first, [`punch_by_its_rim`] tests for a
/// rim: a punch beside print or the portrait stands less contrasted than dark patches of
/// the portrait and the print (seed 27's passport page: its punch past the twelfth), and
/// each test is only 48 rays.
const RIM_PUNCH_TRIES: usize = 64;
/// ... and most median distance of the rim's points from the circle fitted to them, as a
/// share of its radius: a punch is round. On the independent set's passports and PANs on
/// white paper: punches 0-1 %; a ghost portrait's head and shoulders, round on most
/// rays, 4-20 %.
const RIM_PUNCH_ROUNDNESS: f32 = 0.02;

/// A round punch found by its rim on the flattened `card`, `(x, y, radius)` in its pixels:
/// where the table seen through a punch is the page's own colour (a passport's pale page
/// on white paper: the table-colour masks of [`hole_share`] cover the page as much as
/// the punch), the punch still shows as a plain disk darker than the page around it (the
/// card's thickness shades the table under it), with a round rim. Candidates: middles
/// plain once their slope is taken away ([`RIM_PUNCH_PLAIN`]: the shade falls from one
/// side) at least [`RIM_PUNCH_CONTRAST`] darker than the page around them, judged by
/// the second brightest of the four sides of a ring around them, the two brightest
/// plain (print or the portrait beside a punch darkens the others), for each punch size
/// ([`RIM_PUNCH_DIAMETERS_MM`], the card's width taken as ID-1's or a passport page's by
/// its aspect), in boxes from summed-area tables; the [`RIM_PUNCH_TRIES`] most
/// contrasted, one per place and size, each confirmed by its rim: on 48 rays from the
/// centre, the steepest rise between half and one and a half radii, where the ray
/// rises across it by 8 levels or more, on [`RIM_PUNCH_RAYS`] of the rays, the points
/// within [`RIM_PUNCH_ROUNDNESS`] of a circle of a punch's size. The most contrasted
/// such disk, or `None`.
fn punch_by_its_rim(card: &RgbImage) -> Option<(f32, f32, f32)> {
    let (w, h) = (card.width() as usize, card.height() as usize);
    if w < 64 || h < 64 || card.as_raw().len() < w * h * 3 {
        return None;
    }
    let raw: Vec<f32> = card.as_raw().chunks_exact(3).map(luma).collect();
    // One 3x3 box pass: JPEG blocks and sensor noise off the rim's rays.
    let gray: Vec<f32> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let (x0, x1, y0, y1) = (x.saturating_sub(1), (x + 1).min(w - 1), y.saturating_sub(1), (y + 1).min(h - 1));
            let mut sum = 0.0;
            for yy in y0..=y1 {
                for xx in x0..=x1 {
                    sum += raw[yy * w + xx];
                }
            }
            sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f32
        })
        .collect();
    // Summed-area tables of the grey, its square, and its moments along x and y,
    // (w + 1) x (h + 1).
    let mut sat = vec![0f64; (w + 1) * (h + 1)];
    let mut sat2 = vec![0f64; (w + 1) * (h + 1)];
    let mut sat_x = vec![0f64; (w + 1) * (h + 1)];
    let mut sat_y = vec![0f64; (w + 1) * (h + 1)];
    for y in 0..h {
        let (mut row, mut row2, mut row_x, mut row_y) = (0f64, 0f64, 0f64, 0f64);
        for x in 0..w {
            let v = f64::from(gray[y * w + x]);
            row += v;
            row2 += v * v;
            row_x += x as f64 * v;
            row_y += y as f64 * v;
            let (here, above) = ((y + 1) * (w + 1) + x + 1, y * (w + 1) + x + 1);
            sat[here] = sat[above] + row;
            sat2[here] = sat2[above] + row2;
            sat_x[here] = sat_x[above] + row_x;
            sat_y[here] = sat_y[above] + row_y;
        }
    }
    // Sum over the pixels [x0, x1) x [y0, y1).
    let rect_sum = |t: &[f64], x0: usize, y0: usize, x1: usize, y1: usize| {
        let at = |xx: usize, yy: usize| t[yy * (w + 1) + xx];
        at(x1, y1) - at(x0, y1) - at(x1, y0) + at(x0, y0)
    };
    let box_sum = |t: &[f64], x: usize, y: usize, a: usize| rect_sum(t, x - a, y - a, x + a + 1, y + a + 1);
    // Mean and variance of each of the four sides of the ring between half-sides `a`
    // (exclusive) and `b` (inclusive) about (x, y): top, bottom, left, right.
    let sides = |x: usize, y: usize, a: usize, b: usize| -> [(f64, f64); 4] {
        let stats = |x0: usize, y0: usize, x1: usize, y1: usize| {
            let n = ((x1 - x0) * (y1 - y0)).max(1) as f64;
            let m = rect_sum(&sat, x0, y0, x1, y1) / n;
            (m, rect_sum(&sat2, x0, y0, x1, y1) / n - m * m)
        };
        [
            stats(x - b, y - b, x + b + 1, y - a),
            stats(x - b, y + a + 1, x + b + 1, y + b + 1),
            stats(x - b, y - a, x - a, y + a + 1),
            stats(x + a + 1, y - a, x + b + 1, y + a + 1),
        ]
    };
    // Sum, sum of squares and count over the box of half-side `a` about (x, y).
    let boxed = |x: usize, y: usize, a: usize| -> (f64, f64, f64) { (box_sum(&sat, x, y, a), box_sum(&sat2, x, y, a), ((2 * a + 1) * (2 * a + 1)) as f64) };
    // The variance left over the same box once the plane fitted to it is taken away: the
    // table seen through a punch is shaded from one side toward the rim (the card's
    // thickness), a smooth slope, not print.
    let unsloped_variance = |x: usize, y: usize, a: usize| -> f64 {
        let (s, s2, n) = boxed(x, y, a);
        let mean = s / n;
        let side = (2 * a + 1) as f64;
        // Σu² over the box, u the offset from its middle along one axis.
        let suu = side * (a as f64) * (a as f64 + 1.0) * side / 3.0;
        let (sx, sy) = (box_sum(&sat_x, x, y, a) - x as f64 * s, box_sum(&sat_y, x, y, a) - y as f64 * s);
        let (bx, by) = (sx / suu, sy / suu);
        (s2 / n - mean * mean - (bx * bx + by * by) * suu / n).max(0.0)
    };
    let passport = crate::card_box::nearer_passport(w as f32 / h as f32);
    let px_per_mm = w as f32 / if passport { 125.0 } else { 85.6 };
    let (r_min, r_max) = (0.5 * 3.0 * px_per_mm, 0.5 * 10.5 * px_per_mm * 1.15);
    let mut candidates: Vec<(f32, f32, f32, f32)> = Vec::new();
    for d in RIM_PUNCH_DIAMETERS_MM {
        let r = 0.5 * d * px_per_mm;
        let (inner, ring_in, ring_out) = ((0.6 * r).round().max(1.0) as usize, (1.2 * r).round() as usize, (1.6 * r).round() as usize);
        let step = ((r / 4.0).round() as usize).max(2);
        let mut y = ring_out;
        while y + ring_out < h {
            let mut x = ring_out;
            while x + ring_out < w {
                let (s_in, _, n_in) = boxed(x, y, inner);
                let m_in = s_in / n_in;
                // The page around it by the ring's two brightest sides, each plain: print
                // beside a punch (a line of text above it, a signature or the portrait's
                // edge beside it: seed 26's voter card) darkens the others.
                let mut around = sides(x, y, ring_in, ring_out);
                around.sort_by(|p, q| q.0.total_cmp(&p.0));
                let plain = RIM_PUNCH_PLAIN * RIM_PUNCH_PLAIN;
                let contrast = (around[1].0 - m_in) as f32;
                if contrast >= RIM_PUNCH_CONTRAST && around[..2].iter().all(|&(_, v)| (v as f32) <= plain) && (unsloped_variance(x, y, inner) as f32) <= plain {
                    candidates.push((contrast, x as f32 + 0.5, y as f32 + 0.5, r));
                }
                x += step;
            }
            y += step;
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut tried: Vec<(f32, f32, f32)> = Vec::new();
    for (_, cx, cy, r) in candidates {
        if tried.len() >= RIM_PUNCH_TRIES {
            break;
        }
        // One test per place and size: a smaller disk inside a punch's shaded half stands
        // more contrasted than the punch's own, and its rim test fails (seeds 26 and 27).
        if tried.iter().any(|&(tx, ty, tr)| (tx - cx).hypot(ty - cy) < tr.max(r) && (tr - r).abs() < 0.25 * tr.max(r)) {
            continue;
        }
        tried.push((cx, cy, r));
        if let Some((fx, fy, fr)) = round_rim(&gray, w, h, cx, cy, r) {
            if (r_min..=r_max).contains(&fr) {
                return Some((fx, fy, fr));
            }
        }
    }
    None
}

/// The round rim about (`cx`, `cy`) of a dark disk of about radius `r` in `gray` (`w` x
/// `h`), as the circle fitted to it (`x`, `y`, radius), when it is one
/// ([`punch_by_its_rim`]).
fn round_rim(gray: &[f32], w: usize, h: usize, cx: f32, cy: f32, r: f32) -> Option<(f32, f32, f32)> {
    const RAYS: usize = 48;
    const SAMPLES: usize = 81;
    let at = |x: f32, y: f32| -> Option<f32> {
        if !(x >= 0.0 && y >= 0.0 && x < (w - 1) as f32 && y < (h - 1) as f32) {
            return None;
        }
        let (x0, y0) = (x as usize, y as usize);
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let v = |xx: usize, yy: usize| gray[yy * w + xx];
        Some((v(x0, y0) * (1.0 - fx) + v(x0 + 1, y0) * fx) * (1.0 - fy) + (v(x0, y0 + 1) * (1.0 - fx) + v(x0 + 1, y0 + 1) * fx) * fy)
    };
    let mut points = Vec::with_capacity(RAYS);
    let mut rays = 0usize;
    for k in 0..RAYS {
        let a = 2.0 * std::f32::consts::PI * k as f32 / RAYS as f32;
        let (dx, dy) = (a.cos(), a.sin());
        let t = |i: usize| r * (0.5 + i as f32 / (SAMPLES - 1) as f32);
        let Some(profile) = (0..SAMPLES).map(|i| at(cx + t(i) * dx, cy + t(i) * dy)).collect::<Option<Vec<f32>>>() else { continue };
        rays += 1;
        let Some((i, step)) = profile.windows(2).map(|p| p[1] - p[0]).enumerate().max_by(|a, b| a.1.total_cmp(&b.1)) else { continue };
        // The rise across the rim itself, a tenth of a radius each side of its steepest
        // step: print beyond the rim (a line of text over the punch, a signature beside
        // it) may darken the ray's far end, and the table seen through it lightens
        // toward its middle, away from the rim's shadow.
        let mean = |p: &[f32]| p.iter().sum::<f32>() / p.len().max(1) as f32;
        let rise = mean(&profile[i + 1..(i + 9).min(SAMPLES)]) - mean(&profile[i.saturating_sub(7)..=i]);
        if step >= 1.0 && rise >= 8.0 {
            let d = 0.5 * (t(i) + t(i + 1));
            points.push((cx + d * dx, cy + d * dy));
        }
    }
    if rays == 0 || points.len() < 12 || (points.len() as f32) < RIM_PUNCH_RAYS * rays as f32 {
        return None;
    }
    let (a, b, radius, median) = kasa_circle(&points)?;
    (median <= RIM_PUNCH_ROUNDNESS * radius as f32).then_some((a as f32, b as f32, radius as f32))
}

/// The circle x² + y² = 2ax + 2by + c through `points`, least squares (Kåsa): its
/// centre, radius and the median distance of the points from it.
fn kasa_circle(points: &[(f32, f32)]) -> Option<(f64, f64, f64, f32)> {
    let (mut m, mut v) = ([[0f64; 3]; 3], [0f64; 3]);
    for &(x, y) in points {
        let row = [2.0 * f64::from(x), 2.0 * f64::from(y), 1.0];
        let rhs = f64::from(x * x + y * y);
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += row[i] * row[j];
            }
            v[i] += row[i] * rhs;
        }
    }
    let [a, b, c] = solve3(m, v)?;
    let radius = (c + a * a + b * b).sqrt();
    if !radius.is_finite() || radius <= 0.0 || points.is_empty() {
        return None;
    }
    let mut off: Vec<f32> = points.iter().map(|&(x, y)| ((f64::from(x) - a).hypot(f64::from(y) - b) - radius).abs() as f32).collect();
    off.sort_by(|p, q| p.total_cmp(q));
    Some((a, b, radius, off[off.len() / 2]))
}

/// Solves the 3x3 system `m x = v` (Cramer's rule); `None` when it is singular.
fn solve3(m: [[f64; 3]; 3], v: [f64; 3]) -> Option<[f64; 3]> {
    let det = |m: &[[f64; 3]; 3]| m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    let d = det(&m);
    if d.abs() < 1e-9 || !d.is_finite() {
        return None;
    }
    let with = |k: usize| {
        let mut c = m;
        for i in 0..3 {
            c[i][k] = v[i];
        }
        det(&c) / d
    };
    Some([with(0), with(1), with(2)])
}

/// Judges the card: see the module documentation. `card` is the rectified card (or the
/// whole photo when it fills the frame); `location` (from [`crate::card_box::find_card`],
/// `None` when the card fills the frame) gives the mask for holes and cuts.
pub fn card_sanity(card: &RgbImage, location: Option<&CardLocation>) -> CardSanity {
    let (w, h) = (card.width() as usize, card.height() as usize);
    // Holes and cuts are judged only where the background is seen around the card.
    let outline_seen = location.is_some_and(|loc| border_inside_card(loc) < OUTLINE_UNSEEN_BORDER && !cut_to_the_card(loc));
    let mut all_corners_judged = false;
    let mut m = CardMeasures {
        blur_sigma: f32::INFINITY,
        defocus_sigma: 0.0,
        defocus_photo_sigma: 0.0,
        luma_p1: 0.0,
        luma_p10: 0.0,
        luma_p90: 0.0,
        clipped_share: 0.0,
        hole_share: 0.0,
        corner_coverage: 1.0,
        hole_box: None,
        glare_share: 0.0,
        glare_box: None,
        solid_saturated_share: 0.0,
        cut_corner: None,
    };
    if w > 0 && h > 0 && card.as_raw().len() >= w * h * 3 {
        let scale = (WORK_WIDTH as f32 / w as f32).min(MAX_WORK_HEIGHT as f32 / h as f32);
        let dw = ((w as f32 * scale).round() as usize).max(1);
        let dh = ((h as f32 * scale).round() as usize).max(1);
        let l = luma_resized(card, dw, dh);
        if dw >= 8 && dh >= 8 {
            m.blur_sigma = blur_sigma(&l, dw, dh);
            // Three more blurs of the card, only where they can count: with σ̂ at or under
            // half DEFOCUS_EDGE_SIGMA the defocus term of the blur score is 0 whatever it
            // measures (sharp cards, most of them).
            if m.blur_sigma > 0.5 * DEFOCUS_EDGE_SIGMA {
                m.defocus_sigma = defocus_sigma(&l, dw, dh);
            }
            let q = location.map(|loc| loc.quad);
            let photo_width = q.map(|q| 0.5 * (q.top_left.dist(q.top_right) + q.bottom_left.dist(q.bottom_right))).filter(|v| v.is_finite() && *v > 0.0);
            m.defocus_photo_sigma = m.defocus_sigma * photo_width.unwrap_or(w as f32) / dw as f32;
        }
        let mut hist = [0u64; 256];
        let mut clipped = 0u64;
        for p in card.as_raw().chunks_exact(3) {
            let v = luma(p);
            hist[(v.round() as usize).min(255)] += 1;
            clipped += u64::from(v >= 250.0);
        }
        let n = (w * h) as u64;
        m.luma_p1 = histogram_percentile(&hist, n, 0.01);
        m.luma_p10 = histogram_percentile(&hist, n, 0.1);
        m.luma_p90 = histogram_percentile(&hist, n, 0.9);
        m.clipped_share = clipped as f32 / n as f32;
        (m.glare_share, m.glare_box) = glare_spots(card);
        let solid_box;
        (m.solid_saturated_share, solid_box) = solid_saturated(card, true);
        // The washed region values are judged beside: the largest compact spot, unless
        // the solid blocks (a reflection of any shape) wash out more of the card than the
        // spots do; then theirs. A small compact "spot" elsewhere (a portrait's white
        // shirt, 0.4 % of the card) is not where a reflection over 19 % of it washed a
        // name out (the independent set's seed 39, a voter card: "Rajesh" given for
        // Rajesh Prasad Mishra, the spot's box at the portrait).
        m.glare_box = match (m.glare_box, solid_box) {
            (Some(_), Some(solid)) if m.solid_saturated_share > 2.0 * m.glare_share => Some(solid),
            (spot, solid) => spot.or(solid),
        };
        if let Some(loc) = location.filter(|_| outline_seen) {
            let (mw, mh) = (loc.mask.width() as usize, loc.mask.height() as usize);
            let mask: Vec<u8> = loc.mask.as_raw().iter().map(|&v| u8::from(v != 0)).collect();
            if mw > 0 && mh > 0 && mask.len() == mw * mh {
                let filled = fill_holes(&mask, mw, mh);
                (m.hole_share, m.hole_box) = hole_share(card, loc, &mask, &filled);
                // A punch the table's colours cannot show (a pale page on white paper, the
                // paper seen through it only shaded): by its round rim.
                if m.hole_box.is_none() {
                    if let Some((cx, cy, r)) = punch_by_its_rim(card) {
                        m.hole_share = std::f32::consts::PI * r * r / (w * h) as f32;
                        m.hole_box = Some([cx - r, cy - r, cx + r, cy + r]);
                    }
                }
                // A corner counts as missing only where it shows the background: on a
                // white card on a near-white table the mask (cut at mid-contrast) loses
                // the card's low-contrast rim, and more of it the more the card is turned.
                let present: Vec<u8> = match loc.background_like.as_raw() {
                    bg if bg.len() == filled.len() => filled.iter().zip(bg).map(|(&f, &b)| u8::from(f != 0 || b == 0)).collect(),
                    _ => filled.clone(),
                };
                let worst;
                (m.corner_coverage, all_corners_judged, worst) = corner_coverage(loc, &present);
                m.cut_corner = worst.map(|(k, [along_next, along_prev])| {
                    // Corner k of the quad is corner k of the judged card (top left,
                    // top right, bottom right, bottom left); the side to corner k + 1
                    // runs along x from an even corner, along y from an odd one.
                    let (wf, hf) = (w as f32, h as f32);
                    let (x, y) = [(0.0, 0.0), (wf, 0.0), (wf, hf), (0.0, hf)][k];
                    let (sides_x, sides_y) = if k % 2 == 0 { (along_next, along_prev) } else { (along_prev, along_next) };
                    [x, y, sides_x * wf, sides_y * hf]
                });
            }
        }
    }
    use CardSanityVerdict as V;
    let mut details = vec![
        (
            V::ImageTooBlur,
            // Either measure may fail a card; the defocus σ only with soft edges, over
            // pixels of the photo (its constants).
            ramp(m.blur_sigma, 0.6 * BLUR_SIGMA, BLUR_SIGMA, 1.6 * BLUR_SIGMA).max(
                ramp(m.defocus_sigma, 0.7 * DEFOCUS_SIGMA, DEFOCUS_SIGMA, 1.6 * DEFOCUS_SIGMA)
                    .min(ramp(m.blur_sigma, 0.5 * DEFOCUS_EDGE_SIGMA, DEFOCUS_EDGE_SIGMA, BLUR_SIGMA))
                    .min(ramp(m.defocus_photo_sigma, 0.6 * DEFOCUS_PHOTO_SIGMA, DEFOCUS_PHOTO_SIGMA, 2.0 * DEFOCUS_PHOTO_SIGMA)),
            ),
        ),
        (V::ImageTooDark, ramp(m.luma_p90, 90.0, DARK_P90, 30.0)),
        (
            V::ImageTooBright,
            overexposure(&m).max(ramp(m.glare_share, 0.25 * GLARE_SHARE, GLARE_SHARE, 4.0 * GLARE_SHARE)).max(ramp(m.solid_saturated_share, 0.5 * SOLID_GLARE_SHARE, SOLID_GLARE_SHARE, 2.0 * SOLID_GLARE_SHARE)),
        ),
    ];
    if outline_seen {
        details.push((V::ImageHasHole, if m.hole_share > 0.0 { { let least = hole_min_share(card); ramp(m.hole_share, 0.3 * least, least, 3.0 * least) } } else { 0.0 }));
        // A cut seen at one corner is a cut whatever the frame hides of another; no cut
        // seen is only a verdict when every corner was in the photo.
        let cut = ramp(m.corner_coverage, CUT_COVERAGE_GOOD, CUT_COVERAGE, 0.2);
        if all_corners_judged || cut >= 0.5 {
            details.push((V::ImageHasCut, cut));
        }
    }
    let fails = |v: V| details.iter().any(|(k, s)| *k == v && *s >= 0.5);
    let verdict = if fails(V::ImageTooBlur) {
        V::ImageTooBlur
    } else if fails(V::ImageTooDark) {
        V::ImageTooDark
    } else if fails(V::ImageTooBright) {
        V::ImageTooBright
    } else if fails(V::ImageHasHole) && fails(V::ImageHasCut) {
        V::ImageHasHoleAndCut
    } else if fails(V::ImageHasHole) {
        V::ImageHasHole
    } else if fails(V::ImageHasCut) {
        V::ImageHasCut
    } else if CHECKS.iter().any(|c| !details.iter().any(|d| d.0 == *c)) {
        V::Incomplete
    } else {
        V::Good
    };
    let worst = details.iter().map(|d| d.1).fold(0f32, f32::max);
    CardSanity { verdict, score: 1.0 - worst, details, measures: m }
}

/// Every check of [`card_sanity`], named by the verdict it gives when it fails.
pub const CHECKS: [CardSanityVerdict; 5] =
    [CardSanityVerdict::ImageTooBlur, CardSanityVerdict::ImageTooDark, CardSanityVerdict::ImageTooBright, CardSanityVerdict::ImageHasHole, CardSanityVerdict::ImageHasCut];

impl CardSanityVerdict {
    /// Whether the card fails on this verdict (neither `good` nor `incomplete`).
    pub fn is_issue(self) -> bool {
        !matches!(self, CardSanityVerdict::Good | CardSanityVerdict::Incomplete)
    }

    /// The check's name in `not_performed` (`blur`, `dark`, `bright`, `hole`, `cut`).
    pub fn check_name(self) -> &'static str {
        match self {
            CardSanityVerdict::ImageTooBlur => "blur",
            CardSanityVerdict::ImageTooDark => "dark",
            CardSanityVerdict::ImageTooBright => "bright",
            CardSanityVerdict::ImageHasHole => "hole",
            CardSanityVerdict::ImageHasCut => "cut",
            CardSanityVerdict::ImageHasHoleAndCut => "hole_and_cut",
            CardSanityVerdict::Good => "good",
            CardSanityVerdict::Incomplete => "incomplete",
        }
    }
}

impl CardSanity {
    /// The checks that did not run (those missing from `details`): holes and cuts where
    /// the card's outline is not seen (no card found, a card that fills the photo), the
    /// cut where a corner lies outside the photo.
    pub fn not_performed(&self) -> Vec<CardSanityVerdict> {
        CHECKS.iter().copied().filter(|c| !self.details.iter().any(|d| d.0 == *c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card_box::synth::{place, render, Bg, CardSpec, Degradation};
    use crate::card_box::{find_card, rectify, CardFind, ID1_ASPECT};

    /// A ghost portrait's grey head on its neck (seed 30's passport and national identity
    /// card, judged holes) sits on shoulders; a grey disk with paper under it, or one
    /// too near the card's foot to judge, does not.
    #[test]
    fn a_ghost_portraits_head_sits_on_its_shoulders() {
        let card = |neck: bool, cy: f32| {
            RgbImage::from_fn(600, 380, |x, y| {
                let (xf, yf) = (x as f32 + 0.5, y as f32 + 0.5);
                let head = ((xf - 500.0) / 25.0).powi(2) + ((yf - cy) / 28.0).powi(2) <= 1.0;
                let below = neck && (485.0..515.0).contains(&xf) && yf > cy && yf < cy + 70.0;
                image::Rgb(if head || below { [183, 183, 183] } else { [236, 238, 232] })
            })
        };
        let head = |cy: f32| [475.0, cy - 28.0, 525.0, cy + 28.0];
        assert!(super::on_shoulders(&card(true, 150.0), head(150.0)));
        assert!(!super::on_shoulders(&card(false, 150.0), head(150.0)), "paper under it");
        assert!(!super::on_shoulders(&card(true, 360.0), head(360.0)), "no band under it inside the card");
        // A punch showing a white table on a pale card (seed 31): the paper under it and
        // beside it is its colour alike.
        let pale = RgbImage::from_fn(600, 380, |x, y| {
            let inside = ((x as f32 + 0.5 - 500.0) / 25.0).powi(2) + ((y as f32 + 0.5 - 150.0) / 25.0).powi(2) <= 1.0;
            image::Rgb(if inside { [244, 244, 242] } else { [234, 236, 230] })
        });
        assert!(!super::on_shoulders(&pale, [475.0, 125.0, 525.0, 175.0]), "a punch on a pale card");
    }

    /// The rounded end of a ghost portrait's grey shoulders (seed 34's passport, judged a
    /// hole) runs on in its grey to one side; must-fail twins: a grey punch with paper
    /// all round it, and a punch on a pale card showing a table of the paper's colour
    /// beside a portrait (paper on one side only, but paper is what it is alike).
    #[test]
    fn the_end_of_a_grey_shape_runs_on_one_way() {
        let paper = [236.0, 238.0, 232.0];
        let grey = |shoulders: bool, disk: [u8; 3], left: [u8; 3]| {
            RgbImage::from_fn(600, 380, |x, y| {
                let (xf, yf) = (x as f32 + 0.5, y as f32 + 0.5);
                let end = ((xf - 400.0) / 20.0).powi(2) + ((yf - 200.0) / 20.0).powi(2) <= 1.0;
                let body = shoulders && xf >= 400.0 && xf < 560.0 && (180.0..220.0).contains(&yf);
                let beside = (300.0..375.0).contains(&xf) && (150.0..250.0).contains(&yf);
                image::Rgb(if end || body { disk } else if beside { left } else { [236, 238, 232] })
            })
        };
        let b = [380.0, 180.0, 420.0, 220.0];
        assert!(super::runs_on_one_way(&grey(true, [188, 188, 188], [236, 238, 232]), b, paper));
        assert!(!super::runs_on_one_way(&grey(false, [188, 188, 188], [236, 238, 232]), b, paper), "paper all round");
        assert!(!super::runs_on_one_way(&grey(false, [240, 240, 238], [120, 90, 80]), b, paper), "a pale punch beside a portrait");
        // A punch showing the table beside a shape in the table's colour (seed 32: a wood
        // table beside a brown face) has its rim between them.
        let rimmed = RgbImage::from_fn(600, 380, |x, y| {
            let (xf, yf) = (x as f32 + 0.5, y as f32 + 0.5);
            let r = ((xf - 400.0).powi(2) + (yf - 200.0).powi(2)).sqrt();
            let face = (424.0..560.0).contains(&xf) && (150.0..250.0).contains(&yf);
            image::Rgb(if r <= 20.0 || (r > 24.0 && face) { [117, 78, 51] } else if r <= 24.0 { [250, 250, 250] } else { [236, 238, 232] })
        });
        assert!(!super::runs_on_one_way(&rimmed, b, paper), "a punch's rim between it and the face");
    }

    /// A passport page (1200 x 845, pale, a line of print and a ghost portrait's head and
    /// shoulders in grey) with, where given, a punch of diameter `d` mm at (`x`, `y`)
    /// showing the table shaded, `shade` levels under the page, plain or with print.
    fn page_with(punch: Option<(f32, f32, f32, f32, bool)>) -> RgbImage {
        let ppm = 1200.0 / 125.0;
        RgbImage::from_fn(1200, 845, |x, y| {
            let (xf, yf) = (x as f32 + 0.5, y as f32 + 0.5);
            let mut v = 236.0 + 2.0 * ((x * 7 + y * 13) % 5) as f32 / 4.0;
            if (300..900).contains(&x) && (600..630).contains(&y) && x % 14 < 8 {
                v = 40.0;
            }
            // Ghost portrait at (1100, 270): a head (an ellipse) on shoulders (a box).
            let head = ((xf - 1100.0) / 26.0).powi(2) + ((yf - 250.0) / 32.0).powi(2) <= 1.0;
            let shoulders = (1060.0..1140.0).contains(&xf) && (285.0..320.0).contains(&yf);
            if head || shoulders {
                v = 212.0;
            }
            if let Some((px, py, d, shade, printed)) = punch {
                let r = 0.5 * d * ppm;
                let dist = (xf - px).hypot(yf - py);
                if dist <= r {
                    v = 236.0 - shade + 6.0 * dist / r;
                    if printed && (x % 9 < 3) {
                        v = 60.0;
                    }
                }
            }
            image::Rgb([v as u8; 3])
        })
    }

    /// A punch the table's colours cannot show (seed 21's passport on white paper: the
    /// paper through it shaded ~20 levels under the page) is found by its round rim, where
    /// it is and as large as it is. Must-fail: a ghost portrait's head and shoulders of
    /// the same grey, a page without a punch, a disk past 10.5 mm, a disk with print in it.
    #[test]
    fn a_punch_is_found_by_its_round_rim() {
        let ppm = 1200.0 / 125.0;
        let Some((x, y, r)) = punch_by_its_rim(&page_with(Some((826.0, 78.0, 6.0, 22.0, false)))) else { panic!("no punch found") };
        assert!((x - 826.0).abs() < 3.0 && (y - 78.0).abs() < 3.0, "at ({x}, {y})");
        assert!((r / (3.0 * ppm) - 1.0).abs() < 0.15, "radius {r} for {}", 3.0 * ppm);
        assert_eq!(punch_by_its_rim(&page_with(None)), None, "the ghost portrait is no punch");
        assert_eq!(punch_by_its_rim(&page_with(Some((600.0, 300.0, 16.0, 22.0, false)))), None, "16 mm is no punch");
        assert_eq!(punch_by_its_rim(&page_with(Some((600.0, 300.0, 6.0, 22.0, true)))), None, "print inside");
    }

    /// A punch shaded from one side (the card's thickness: the table under it from 75
    /// to 15 levels under the page, left to right) with print above and left of it
    /// (seed 26's voter card on white paper) is found: its middle is plain once its slope
    /// is taken away, and the page around it is judged by the ring's brightest sides.
    /// Must-fail: the same shaded disk drawn as an ellipse (a third wider than high) is
    /// no punch; nor is the shaded slope with print in it.
    #[test]
    fn a_shaded_punch_beside_print_is_found_by_its_rim() {
        let ppm = 1200.0 / 85.6;
        let (px, py, r) = (600.0f32, 300.0f32, 0.5 * 6.5 * ppm);
        let card = |stretch: f32, printed: bool| {
            RgbImage::from_fn(1200, 757, |x, y| {
                let (xf, yf) = (x as f32 + 0.5, y as f32 + 0.5);
                let mut v = 230.0 + 2.0 * ((x * 7 + y * 13) % 5) as f32 / 4.0;
                // Print 1.5-1.6 radii above the punch's middle and left of it: in the
                // ring around it, past the rim's rays.
                let above = (py - 1.6 * r..py - 1.5 * r).contains(&yf) && x % 12 < 6;
                let left = (px - 1.6 * r..px - 1.5 * r).contains(&xf) && y % 12 < 6;
                if above || left {
                    v = 40.0;
                }
                if ((xf - px) / (r * stretch)).hypot((yf - py) / r) <= 1.0 {
                    v = 185.0 + 30.0 * (xf - px) / (r * stretch);
                    if printed && x % 9 < 3 {
                        v = 60.0;
                    }
                }
                image::Rgb([v as u8; 3])
            })
        };
        let Some((x, y, found)) = punch_by_its_rim(&card(1.0, false)) else { panic!("no punch found") };
        assert!((x - px).abs() < 3.0 && (y - py).abs() < 3.0 && (found / r - 1.0).abs() < 0.15, "({x}, {y}) r {found} for {r}");
        assert_eq!(punch_by_its_rim(&card(1.33, false)), None, "an ellipse");
        assert_eq!(punch_by_its_rim(&card(1.0, true)), None, "print inside");
    }

    const W: u32 = 1200;
    const H: u32 = 900;

    struct Case {
        name: &'static str,
        deg: Degradation,
        edit: fn(&mut CardSpec),
        /// Place the card so its bottom-right corner is outside the photo.
        outside: bool,
        want: CardSanityVerdict,
    }

    fn run(bg: Bg, c: &Case, seed: u64) -> Result<CardSanity, String> {
        let corners = if c.outside { place(W, H, 0.6, ID1_ASPECT, 0.7, 0.68, -6.0, 0.0) } else { place(W, H, 0.6, ID1_ASPECT, 0.48, 0.52, 7.0, 0.05) };
        let mut card = CardSpec::new(corners, bg.card_base());
        (c.edit)(&mut card);
        let photo = c.deg.apply(&render(W, H, bg, &[card]), seed);
        match find_card(&photo) {
            CardFind::One(loc) => {
                let r = rectify(&photo, &loc.quad, 1000);
                Ok(card_sanity(&r, Some(&loc)))
            }
            other => Err(format!("find_card: {other:?}")),
        }
    }

    fn cases() -> Vec<Case> {
        use CardSanityVerdict as V;
        let none: fn(&mut CardSpec) = |_| {};
        vec![
            Case { name: "clean", deg: Degradation::Clean, edit: none, outside: false, want: V::Good },
            Case { name: "noise σ12", deg: Degradation::Noise(12.0), edit: none, outside: false, want: V::Good },
            Case { name: "JPEG q35", deg: Degradation::Jpeg(35), edit: none, outside: false, want: V::Good },
            Case { name: "brightness 50%", deg: Degradation::Brightness(0.5), edit: none, outside: false, want: V::Good },
            Case { name: "blur σ1", deg: Degradation::Blur(1.0), edit: none, outside: false, want: V::Good },
            // A highlight saturating ~0.5 % of the card (below GLARE_SHARE): good.
            Case { name: "small glare", deg: Degradation::Clean, edit: |c| c.glare = Some((0.65, 0.4, 0.04, 0.06)), outside: false, want: V::Good },
            Case { name: "blur σ3.5", deg: Degradation::Blur(3.5), edit: none, outside: false, want: V::ImageTooBlur },
            Case { name: "blur σ5", deg: Degradation::Blur(5.0), edit: none, outside: false, want: V::ImageTooBlur },
            // Out of focus (a uniform disk): slightly, readable; past the defocus σ, blurred.
            Case { name: "defocus r2", deg: Degradation::Defocus(2.0), edit: none, outside: false, want: V::Good },
            Case { name: "defocus r4.5", deg: Degradation::Defocus(4.5), edit: none, outside: false, want: V::ImageTooBlur },
            Case { name: "brightness 12%", deg: Degradation::Brightness(0.12), edit: none, outside: false, want: V::ImageTooDark },
            Case { name: "brightness 18%", deg: Degradation::Brightness(0.18), edit: none, outside: false, want: V::ImageTooDark },
            Case { name: "big glare", deg: Degradation::Clean, edit: |c| c.glare = Some((0.55, 0.5, 0.5, 0.75)), outside: false, want: V::ImageTooBright },
            // A highlight saturating ~12 % of the card, print and all, the rest of the
            // card well exposed (clipped share and p10 both fine): too bright by its
            // glare spot. (Called good before glare spots were measured.)
            Case { name: "glare spot", deg: Degradation::Clean, edit: |c| c.glare = Some((0.65, 0.4, 0.2, 0.3)), outside: false, want: V::ImageTooBright },
            Case { name: "hole r3mm", deg: Degradation::Clean, edit: |c| c.hole = Some((0.72, 0.8, 3.0)), outside: false, want: V::ImageHasHole },
            Case { name: "hole r2mm+JPEG", deg: Degradation::Jpeg(35), edit: |c| c.hole = Some((0.85, 0.35, 2.0)), outside: false, want: V::ImageHasHole },
            Case { name: "cut 8mm", deg: Degradation::Clean, edit: |c| c.cut = Some((1, 8.0)), outside: false, want: V::ImageHasCut },
            Case { name: "cut 8mm+noise", deg: Degradation::Noise(12.0), edit: |c| c.cut = Some((3, 8.0)), outside: false, want: V::ImageHasCut },
            // The frame hides whether that corner is cut: the cut is not judged (it was
            // called cut before), the three corners seen are intact.
            Case { name: "corner off photo", deg: Degradation::Clean, edit: none, outside: true, want: V::Incomplete },
            // A cut seen at a corner in the photo is a cut whatever the frame hides.
            Case { name: "cut, corner off", deg: Degradation::Clean, edit: |c| c.cut = Some((0, 8.0)), outside: true, want: V::ImageHasCut },
            Case {
                name: "hole + cut",
                deg: Degradation::Clean,
                edit: |c| {
                    c.hole = Some((0.72, 0.8, 3.0));
                    c.cut = Some((0, 8.0));
                },
                outside: false,
                want: V::ImageHasHoleAndCut,
            },
        ]
    }

    #[test]
    fn a_turned_white_card_on_a_near_white_table_keeps_its_corners() {
        // Its rim is a few levels from the table, so the mask (cut at mid-contrast)
        // loses it, most at the corners of a turned card; those corners are not cut.
        for (k, angle) in [12.0f32, -15.0, 18.0].into_iter().enumerate() {
            let corners = place(W, H, 0.6, ID1_ASPECT, 0.5, 0.5, angle, 0.0);
            let photo = render(W, H, Bg::Light, &[CardSpec::new(corners, [250.0, 249.0, 245.0])]);
            let photo = Degradation::Jpeg(80).apply(&photo, k as u64);
            let CardFind::One(loc) = find_card(&photo) else { panic!("no card at {angle}°") };
            let s = card_sanity(&rectify(&photo, &loc.quad, 1000), Some(&loc));
            assert_eq!(s.verdict, CardSanityVerdict::Good, "{angle}°: {:?}", s.measures);
            // and the same card with a corner cut off is still cut
            let mut cut = CardSpec::new(corners, [250.0, 249.0, 245.0]);
            cut.cut = Some((k % 4, 8.0));
            let photo = Degradation::Jpeg(80).apply(&render(W, H, Bg::Light, &[cut]), k as u64);
            let CardFind::One(loc) = find_card(&photo) else { panic!("no cut card at {angle}°") };
            let s = card_sanity(&rectify(&photo, &loc.quad, 1000), Some(&loc));
            assert_eq!(s.verdict, CardSanityVerdict::ImageHasCut, "cut, {angle}°: {:?}", s.measures);
        }
    }

    /// What is a glare spot and what is not, on a 1200 x 756 card of light paper.
    /// The paper beside a glare spot, and how much of a zone the spot lit: a card of
    /// paper at luminance 200 with a reflection that saturates a disk and fades out around
    /// it (paper lit to 240 in a ring: 0.73 of its way to white).
    #[test]
    fn paper_and_what_a_glare_spot_washed_out() {
        let at = |d2: f32| if d2 <= 100.0 * 100.0 { 255u8 } else if d2 <= 160.0 * 160.0 { 240 } else { 200 };
        let card = RgbImage::from_fn(1200, 756, |x, y| {
            let d2 = (x as f32 - 400.0).powi(2) + (y as f32 - 300.0).powi(2);
            image::Rgb([at(d2); 3])
        });
        // The paper away from the spot: its median outside the spot's box, grown; the
        // whole card's median where the box leaves under a tenth of it.
        assert_eq!(paper_luma(&card, Some([240.0, 140.0, 560.0, 460.0])), 200.0);
        assert_eq!(paper_luma(&card, Some([-10.0, -10.0, 1210.0, 700.0])), 200.0);
        // In the core: all saturated; in the faded ring: faded, not saturated; away:
        // neither.
        let core = washed(&card, [380.0, 280.0, 420.0, 320.0], 200.0).expect("on the card");
        assert_eq!(core, Washed { faded: 1.0, saturated: 1.0 });
        let ring = washed(&card, [520.0, 290.0, 540.0, 310.0], 200.0).expect("on the card");
        assert_eq!(ring, Washed { faded: 1.0, saturated: 0.0 });
        let away = washed(&card, [900.0, 600.0, 1000.0, 650.0], 200.0).expect("on the card");
        assert_eq!(away, Washed { faded: 0.0, saturated: 0.0 });
        // Lit to 240 over paper at 230 is not faded (a quarter of its way to white).
        assert_eq!(washed(&card, [520.0, 290.0, 540.0, 310.0], 230.0).map(|w| w.faded), Some(0.0));
        // A zone half on the card counts its half; one off it is no zone.
        let half = washed(&card, [1180.0, 0.0, 1220.0, 10.0], 200.0).expect("half on the card");
        assert_eq!(half, Washed { faded: 0.0, saturated: 0.0 });
        assert_eq!(washed(&card, [1200.0, 0.0, 1300.0, 10.0], 200.0), None);
        assert_eq!(washed(&card, [-50.0, -50.0, -1.0, 10.0], 200.0), None);
    }

    /// A card whose white band (an MRZ's) the exposure clipped to 255 with its black
    /// characters still black is no solid glare; the same band washed by added light
    /// (its characters lifted to grey) is.
    #[test]
    fn a_white_band_clipped_with_black_print_in_it_is_no_solid_glare() {
        let band = |ink: u8| {
            RgbImage::from_fn(1200, 756, |x, y| {
                let in_band = y >= 500;
                let character = in_band && (540..720).contains(&y) && y % 60 < 36 && x % 36 < 20 && (60..1140).contains(&x);
                let v = if character { ink } else if in_band { 255 } else { 228 };
                image::Rgb([v, v, v])
            })
        };
        let (share, solid_box) = solid_saturated(&band(8), true);
        assert!(share < 0.5 * SOLID_GLARE_SHARE && solid_box.is_none(), "{share} {solid_box:?}");
        let (share, solid_box) = solid_saturated(&band(70), true);
        assert!(share >= SOLID_GLARE_SHARE && solid_box.is_some(), "{share} {solid_box:?}");
    }

    #[test]
    fn glare_spots_are_solid_compact_saturated_regions() {
        let paper = image::Rgb([236u8, 240, 228]);
        let white = image::Rgb([255u8, 255, 255]);
        // Print: rows of dark "words" (the blur check needs edges).
        let ink = image::Rgb([40u8, 40, 40]);
        let card = |f: &dyn Fn(u32, u32) -> bool| {
            RgbImage::from_fn(1200, 756, |x, y| if f(x, y) { white } else if y % 60 >= 20 && y % 60 < 40 && x % 30 < 20 { ink } else { paper })
        };
        // A reflection: light added over a region, saturating it, and fading out around
        // it (a halo, σ 20 px, that lifts print and paper alike).
        let lit = |f: &dyn Fn(u32, u32) -> bool| {
            let mask = image::GrayImage::from_fn(1200, 756, |x, y| image::Luma([if f(x, y) { 255 } else { 0 }]));
            let halo = image::imageops::blur(&mask, 20.0);
            let base = card(&|_, _| false);
            RgbImage::from_fn(1200, 756, |x, y| {
                let lift = (2.0 * f32::from(halo.get_pixel(x, y)[0]) / 255.0).min(1.0);
                if f(x, y) {
                    white
                } else {
                    image::Rgb(base.get_pixel(x, y).0.map(|v| (f32::from(v) + (255.0 - f32::from(v)) * lift).round() as u8))
                }
            })
        };
        let disk = |cx: f32, cy: f32, r: f32| move |x: u32, y: u32| (x as f32 - cx).powi(2) + (y as f32 - cy).powi(2) <= r * r;

        // A saturated disk of radius 80 (2.2 % of the card): found, its box around it.
        let (share, b) = glare_spots(&lit(&disk(500.0, 300.0, 80.0)));
        let [x0, y0, x1, y1] = b.expect("a spot");
        assert!((0.015..0.03).contains(&share), "{share}");
        assert!((410.0..=430.0).contains(&x0) && (570.0..=590.0).contains(&x1) && (210.0..=230.0).contains(&y0) && (370.0..=390.0).contains(&y1), "{b:?}");
        // Cut by the card's edge (half of it outside, 1.1 % of the card): still a spot
        // (its box), but not counted toward the verdict: so small and at the edge, it is
        // what pale paper lit past white there looks like. A half-disk of 10 % counts.
        let (share, b) = glare_spots(&lit(&disk(1200.0, 300.0, 80.0)));
        assert!(b.is_some() && share == 0.0, "{share} {b:?}");
        let (share, b) = glare_spots(&lit(&disk(1200.0, 380.0, 250.0)));
        assert!(b.is_some() && share > 0.08, "{share} {b:?}");
        // A blank corner of the card saturated by the lighting (2 % of it): shown, not
        // counted, and the card is not too bright for it.
        let corner = |x: u32, y: u32| x >= 1080 && y >= 600;
        let (share, b) = glare_spots(&lit(&corner));
        assert!(b.is_some() && share == 0.0, "{share} {b:?}");
        let s = card_sanity(&lit(&corner), None);
        assert_ne!(s.verdict, CardSanityVerdict::ImageTooBright, "{s:?}");
        // The same region away from the edges is a spot that counts.
        let (share, _) = glare_spots(&lit(&|x: u32, y: u32| (500..620).contains(&x) && (300..456).contains(&y)));
        assert!(share > GLARE_SHARE, "{share}");
        // Paper saturated between the lines of its pattern (1 px lines every 5 px): none.
        assert_eq!(glare_spots(&card(&|x, y| x > 600 && (x + y) % 5 != 0)), (0.0, None));
        // A QR code's white quiet zone (a ring 16 px wide around a 200 px code): none.
        let ring = |x: u32, y: u32| {
            let (inside, outer) = ((800..1000).contains(&x) && (100..300).contains(&y), (784..1016).contains(&x) && (84..316).contains(&y));
            outer && !inside
        };
        assert_eq!(glare_spots(&card(&ring)), (0.0, None));
        // A white block of the design with print in it (240 x 240, three rows of
        // characters in its middle): solid and compact, but not washed out: none.
        let printed_white = |x: u32, y: u32| (850..1090).contains(&x) && (480..720).contains(&y);
        let printed = |x: u32, y: u32| (890..1050).contains(&x) && (560..660).contains(&y) && y % 40 < 20 && x % 28 < 18;
        let block = RgbImage::from_fn(1200, 756, |x, y| if printed(x, y) { ink } else if printed_white(x, y) { white } else { paper });
        assert_eq!(glare_spots(&block), (0.0, None));
        // The same block without its print, washed by a reflection, is a spot (what the
        // check above turns on).
        assert!(glare_spots(&lit(&printed_white)).1.is_some());
        // But a blank white area of the card clipped by the exposure, the print around
        // it as dark as anywhere, is none (a white card exposed brightly: a fifth of it
        // in such areas).
        assert_eq!(glare_spots(&card(&printed_white)), (0.0, None));
        let blank_areas = |x: u32, y: u32| ((100..400).contains(&x) || (700..1000).contains(&x)) && (100..300).contains(&y) || (400..1100).contains(&x) && (400..600).contains(&y);
        assert_eq!(glare_spots(&card(&blank_areas)), (0.0, None));
        // A small compact spot (a portrait's white shirt, 0.6 % of the card) beside a
        // reflection of no compact shape washing a fifth of it (an L along two edges): the
        // values are judged beside the reflection's box, not the spot's (seed 39's voter
        // card). The spot alone keeps its own box.
        let l_shape = |x: u32, y: u32| (x >= 600 && y < 150) || (x >= 1050 && y >= 150);
        let small = disk(200.0, 500.0, 40.0);
        let m = card_sanity(&lit(&|x, y| l_shape(x, y) || small(x, y)), None).measures;
        assert!(m.solid_saturated_share > 2.0 * m.glare_share, "{m:?}");
        let [x0, y0, _, _] = m.glare_box.expect("a washed box");
        assert!(x0 >= 550.0 && y0 <= 50.0, "{m:?}");
        let m = card_sanity(&lit(&small), None).measures;
        let [x0, y0, _, _] = m.glare_box.expect("the spot's box");
        assert!((150.0..=170.0).contains(&x0) && (450.0..=470.0).contains(&y0), "{m:?}");
        let s = card_sanity(&card(&blank_areas), None);
        assert!(s.measures.solid_saturated_share < SOLID_GLARE_SHARE && s.measures.glare_box.is_none() && s.verdict != CardSanityVerdict::ImageTooBright, "{s:?}");
        // The same areas washed by light are too bright.
        let s = card_sanity(&lit(&blank_areas), None);
        assert_eq!(s.verdict, CardSanityVerdict::ImageTooBright, "{s:?}");
        // A white table seen along the card's bottom edge (a strip 40 px high): none.
        assert_eq!(glare_spots(&card(&|_, y| y >= 716)), (0.0, None));
        // Bright, not saturated (a channel at 245): none.
        let bright = RgbImage::from_fn(1200, 756, |x, y| if disk(500.0, 300.0, 80.0)(x, y) { image::Rgb([255, 255, 245]) } else { paper });
        assert_eq!(glare_spots(&card(&|_, _| false)), (0.0, None));
        assert_eq!(glare_spots(&bright), (0.0, None));

        // Judged: the spot makes the card too bright, as glare, not as overexposure.
        let s = card_sanity(&lit(&disk(500.0, 300.0, 80.0)), None);
        assert_eq!(s.verdict, CardSanityVerdict::ImageTooBright, "{s:?}");
        assert!(overexposure(&s.measures) < 0.5, "{s:?}");
        // A spot of 0.4 % of the card (radius 36): measured, not a failure.
        let s = card_sanity(&lit(&disk(500.0, 300.0, 36.0)), None);
        assert!(s.measures.glare_box.is_some() && s.verdict != CardSanityVerdict::ImageTooBright, "{s:?}");
        // And a card without a found card's frame: the whole photo's spots are not a verdict.
        assert_eq!(sanity_without_card(&lit(&disk(500.0, 300.0, 80.0))), None);
    }

    #[test]
    fn a_photo_without_a_card_is_judged_on_its_exposure_only() {
        let photo = |clipped: f32, level: u8| {
            RgbImage::from_fn(400, 300, |x, y| {
                let v = if ((x + 400 * y) as f32) < clipped * 120_000.0 { 255 } else { level.saturating_add(((x * 7 + y * 3) % 20) as u8) };
                image::Rgb([v, v, v])
            })
        };
        // glare over a third of the photo hid the card: too bright
        let s = sanity_without_card(&photo(0.33, 120)).expect("a verdict");
        assert_eq!(s.verdict, CardSanityVerdict::ImageTooBright);
        assert!(s.score < 0.5, "{s:?}");
        // a well exposed photo with a few highlights: no verdict (then "no card")
        assert_eq!(sanity_without_card(&photo(0.05, 120)), None);
        // ... whose exposure checks, for a card the finder missed but whose print was
        // read, are `incomplete`: dark and bright judged, blur, hole and cut not
        let s = exposure_sanity(card_sanity(&photo(0.05, 120), None));
        assert_eq!(s.verdict, CardSanityVerdict::Incomplete);
        assert_eq!(s.not_performed(), [CardSanityVerdict::ImageTooBlur, CardSanityVerdict::ImageHasHole, CardSanityVerdict::ImageHasCut]);
        assert!(s.details.iter().all(|d| d.1 < 0.5), "{s:?}");
        // too dark
        assert_eq!(sanity_without_card(&photo(0.0, 5)).map(|s| s.verdict), Some(CardSanityVerdict::ImageTooDark));
        // a flat dark photo has no structure at all (the blur check would call it
        // blurred): still too dark
        let flat = RgbImage::from_pixel(400, 300, image::Rgb([8, 8, 8]));
        assert_eq!(sanity_without_card(&flat).map(|s| s.verdict), Some(CardSanityVerdict::ImageTooDark));
    }

    #[test]
    fn card_sanity_table() {
        let bgs = [Bg::Dark, Bg::Light, Bg::Cloth];
        let mut failures = Vec::new();
        println!("\ncard_sanity: verdicts on synthetic photos ({W}x{H}, card 60 % of the width, rotated 7°, slight perspective; rectified to 1000 px)");
        println!("{:<18} {:<24} | {:^13} | {:^13} | {:^13} | blur σ̂ defocus σ / p90 / clipped / hole / corner (dark wood)", "case", "expected", bgs[0].name(), bgs[1].name(), bgs[2].name());
        for (ci, c) in cases().iter().enumerate() {
            let mut cells = Vec::new();
            let mut meas = String::new();
            for bg in bgs {
                match run(bg, c, ci as u64) {
                    Ok(s) => {
                        if bg == Bg::Dark {
                            let m = s.measures;
                            meas = format!("{:.2} {:.2} / {:.0} / {:.2} / {:.4} / {:.2}", m.blur_sigma, m.defocus_sigma, m.luma_p90, m.clipped_share, m.hole_share, m.corner_coverage);
                        }
                        if s.verdict == c.want {
                            cells.push("ok".to_string());
                        } else {
                            cells.push(format!("{:?}", s.verdict));
                            failures.push(format!("{} / {}: {:?} (score {:.2}, {:?}, {:?})", c.name, bg.name(), s.verdict, s.score, s.details, s.measures));
                        }
                    }
                    Err(e) => {
                        cells.push("not found".into());
                        failures.push(format!("{} / {}: {e}", c.name, bg.name()));
                    }
                }
            }
            println!("{:<18} {:<24} | {:^13} | {:^13} | {:^13} | {meas}", c.name, format!("{:?}", c.want), cells[0], cells[1], cells[2]);
        }
        assert!(failures.is_empty(), "failures: {failures:#?}");
    }

    /// A punch fills π/4 of its box on the card, a chip (a rectangle with the card's
    /// edges) all of it, however the card is turned in the photo.
    #[test]
    fn a_disk_fills_less_of_its_box_on_the_card_than_a_chip() {
        let (w, h) = (200usize, 200usize);
        let extent_of = |inside: &dyn Fn(f32, f32) -> bool, turn_deg: f32| {
            // The card's frame turned by `turn_deg` in the photo (the working frame).
            let (c, s) = (turn_deg.to_radians().cos(), turn_deg.to_radians().sin());
            let to_card_pt = |x: f32, y: f32| (c * (x - 100.0) + s * (y - 100.0) + 100.0, -s * (x - 100.0) + c * (y - 100.0) + 100.0);
            let mask: Vec<u8> = (0..w * h).map(|i| u8::from(inside(to_card_pt((i % w) as f32 + 0.5, (i / w) as f32 + 0.5).0, to_card_pt((i % w) as f32 + 0.5, (i / w) as f32 + 0.5).1))).collect();
            let (labels, comps) = components(&mask, w, h, false);
            let src = [(0.0, 0.0), (200.0, 0.0), (200.0, 200.0), (0.0, 200.0)];
            let hm = Homography::from_points(src, src.map(|(x, y)| to_card_pt(x, y))).expect("a homography");
            (card_frame_extent(&labels, w, &comps[0], Some(&hm), 1.0), card_frame_side_span(&labels, w, &comps[0], Some(&hm)))
        };
        let disk = |x: f32, y: f32| (x - 100.0).powi(2) + (y - 100.0).powi(2) <= 30.0f32.powi(2);
        let chip = |x: f32, y: f32| (70.0..130.0).contains(&x) && (80.0..125.0).contains(&y);
        // A chip with rounded corners (radius 8 of its 60 x 45), as one found in part.
        let rounded = |x: f32, y: f32| {
            let (cx, cy) = (x.clamp(78.0, 122.0), y.clamp(88.0, 117.0));
            chip(x, y) && (x - cx).powi(2) + (y - cy).powi(2) <= 64.0
        };
        // An ellipse (a punch flattened with another aspect), turned in the card.
        let ellipse = |x: f32, y: f32| {
            let (u, v) = (0.8 * (x - 100.0) + 0.6 * (y - 100.0), -0.6 * (x - 100.0) + 0.8 * (y - 100.0));
            (u / 34.0).powi(2) + (v / 26.0).powi(2) <= 1.0
        };
        for turn in [0.0, 12.0, 40.0] {
            let (d, r) = (extent_of(&disk, turn).0, extent_of(&chip, turn).0);
            assert!((0.72..0.85).contains(&d) && d <= HOLE_MAX_CARD_EXTENT, "disk at {turn}°: {d}");
            assert!(r > HOLE_MAX_CARD_EXTENT, "chip at {turn}°: {r}");
            // A rounded chip fills less of its box, but runs along its sides; a disk or an
            // ellipse does not.
            let (extent, sides) = extent_of(&rounded, turn);
            assert!(extent > CHIP_MIN_CARD_EXTENT && sides > CHIP_MIN_SIDE_SPAN, "rounded chip at {turn}°: {extent} {sides}");
            for (name, punch) in [("disk", &disk as &dyn Fn(f32, f32) -> bool), ("ellipse", &ellipse)] {
                let (extent, sides) = extent_of(punch, turn);
                assert!(extent <= CHIP_MIN_CARD_EXTENT && sides <= 0.7, "{name} at {turn}°: {extent} {sides}");
            }
        }
    }

    /// On a textured table (dark wood), a hole shows its grain; a flat region of the
    /// table's colour inside the card (a neck in the portrait) is no hole.
    #[test]
    fn a_flat_region_of_a_textured_tables_colour_is_no_hole() {
        let corners = place(W, H, 0.6, ID1_ASPECT, 0.48, 0.52, 7.0, 0.05);
        let mut holed = CardSpec::new(corners, Bg::Dark.card_base());
        holed.hole = Some((0.72, 0.8, 3.0));
        let judge = |photo: &RgbImage| match find_card(photo) {
            CardFind::One(loc) => Ok((card_sanity(&rectify(photo, &loc.quad, 1000), Some(&loc)), loc.background_texture)),
            other => Err(format!("find_card: {other:?}")),
        };
        let (s, texture) = judge(&render(W, H, Bg::Dark, &[holed.clone()])).expect("the holed card");
        assert!(texture >= TEXTURED_TABLE, "the wood measures {texture}");
        assert_eq!(s.verdict, CardSanityVerdict::ImageHasHole, "{:?}", s.measures);
        // The same place painted the wood's mean colour, flat, on the intact card.
        let intact = CardSpec { hole: None, ..holed.clone() };
        let mut photo = render(W, H, Bg::Dark, &[intact.clone()]);
        let to_mm = Homography::from_points(corners, [(0.0, 0.0), (intact.size.0, 0.0), (intact.size.0, intact.size.1), (0.0, intact.size.1)]).expect("a proper quad");
        let (hx, hy, hr) = (0.72 * intact.size.0, 0.8 * intact.size.1, 3.0);
        let mut painted = 0;
        for (x, y, p) in photo.enumerate_pixels_mut() {
            let (u, v) = to_mm.apply(f64::from(x) + 0.5, f64::from(y) + 0.5);
            if (u as f32 - hx).powi(2) + (v as f32 - hy).powi(2) < hr * hr {
                *p = image::Rgb([70, 50, 38]);
                painted += 1;
            }
        }
        assert!(painted > 500, "{painted}");
        let (s, _) = judge(&photo).expect("the painted card");
        assert_ne!(s.verdict, CardSanityVerdict::ImageHasHole, "{:?}", s.measures);
    }

    /// A photo cut to a turned card (a client's crop, a scan): the card reaches all four
    /// sides of the frame, so the border the finder takes the table's colours from is the
    /// card's own paper, and holes and cuts are not judged. Before: `image_has_cut` or
    /// `image_has_hole` on intact cards (the paper taken for the table).
    #[test]
    fn a_photo_cut_to_a_turned_card_is_not_judged_for_holes_and_cuts() {
        use CardSanityVerdict as V;
        let (mut found, mut unjudged) = (0, 0);
        for (i, bg) in [Bg::Dark, Bg::Light, Bg::Cloth].into_iter().enumerate() {
            for angle in [-3.0f32, -1.0, 2.0] {
                let corners = place(W, H, 0.6, ID1_ASPECT, 0.5, 0.5, angle, 0.0);
                let mut spec = CardSpec::new(corners, bg.card_base());
                spec.portrait = true;
                spec.header = i != 1;
                let photo = render(W, H, bg, &[spec]);
                let (xs, ys) = (corners.map(|c| c.0), corners.map(|c| c.1));
                let lo = |v: [f32; 4]| v.iter().copied().fold(f32::MAX, f32::min).floor().max(0.0) as u32;
                let hi = |v: [f32; 4]| v.iter().copied().fold(f32::MIN, f32::max).ceil() as u32;
                let crop = image::imageops::crop_imm(&photo, lo(xs), lo(ys), hi(xs).min(W) - lo(xs), hi(ys).min(H) - lo(ys)).to_image();
                match find_card(&crop) {
                    CardFind::One(loc) => {
                        found += 1;
                        let s = card_sanity(&rectify(&crop, &loc.quad, 1000), Some(&loc));
                        println!("{} {angle}°: ring share {:.3}, {:?} {:?}", bg.name(), border_inside_card(&loc), s.verdict, s.measures);
                        assert!(matches!(s.verdict, V::Incomplete | V::Good), "{} {angle}°: {s:?}", bg.name());
                        if s.verdict == V::Incomplete {
                            unjudged += 1;
                            assert_eq!(s.not_performed(), vec![V::ImageHasHole, V::ImageHasCut]);
                        }
                    }
                    // Judged whole, without a location (`card_sanity_fills_frame_and_scores`),
                    // or no card found (the whole photo read, exposure judged alone).
                    CardFind::FillsFrame | CardFind::None => {}
                    other => panic!("{} {angle}°: {other:?}", bg.name()),
                }
            }
        }
        assert!(unjudged > 0, "{found} crops found as cards, none left unjudged");
    }

    /// The same card on its table: its border shows no card.
    #[test]
    fn a_card_on_a_table_holds_none_of_the_photos_border() {
        let corners = place(W, H, 0.6, ID1_ASPECT, 0.48, 0.52, 7.0, 0.05);
        let photo = render(W, H, Bg::Dark, &[CardSpec::new(corners, Bg::Dark.card_base())]);
        let CardFind::One(loc) = find_card(&photo) else { panic!("no card found") };
        assert_eq!(border_inside_card(&loc), 0.0);
    }

    #[test]
    fn card_sanity_fills_frame_and_scores() {
        // A tight crop judged without a location: holes and cuts not checked, so
        // `incomplete` (it was `good` before), naming them.
        let (w, h) = (1000, 631);
        let corners = [(-8.0, -8.0), (w as f32 + 8.0, -8.0), (w as f32 + 8.0, h as f32 + 8.0), (-8.0, h as f32 + 8.0)];
        let img = render(w, h, Bg::Dark, &[CardSpec::new(corners, Bg::Dark.card_base())]);
        let s = card_sanity(&img, None);
        assert_eq!(s.verdict, CardSanityVerdict::Incomplete, "{s:?}");
        assert_eq!(s.details.len(), 3);
        assert_eq!(s.not_performed(), vec![CardSanityVerdict::ImageHasHole, CardSanityVerdict::ImageHasCut]);
        assert!(s.score > 0.5 && s.score <= 1.0);
        let dark = crate::card_box::synth::map(&img, |v| v * 0.12);
        let s = card_sanity(&dark, None);
        assert_eq!(s.verdict, CardSanityVerdict::ImageTooDark, "{s:?}");
        assert!(s.score < 0.5);
        // Blank: no structure at all is "too blur" (the blur check comes first and there
        // is nothing in focus).
        let blank = RgbImage::from_pixel(800, 500, image::Rgb([200, 200, 200]));
        assert_eq!(card_sanity(&blank, None).verdict, CardSanityVerdict::ImageTooBlur);
        let json = serde_json::to_value(card_sanity(&img, None)).unwrap_or_default();
        assert_eq!(json["verdict"], "incomplete");
        assert_eq!(json["details"][1][0], "image_too_dark");
    }

    /// The independent card set's seed 21, an Aadhaar's back in perspective: white paper
    /// lit to white (41 % clipped) around a black QR code (p1 1), no solid saturated
    /// block: well exposed, not too bright. Must-fail twins: the same share with the
    /// print lifted (p1 60), or most of the card clipped (70 %), is too bright.
    #[test]
    fn a_white_card_lit_white_with_black_print_is_not_overexposed() {
        let measures = |luma_p1: f32, clipped_share: f32| CardMeasures {
            blur_sigma: 0.17,
            defocus_sigma: 0.0,
            defocus_photo_sigma: 0.0,
            luma_p1,
            luma_p10: 70.0,
            luma_p90: 253.0,
            clipped_share,
            hole_share: 0.0,
            corner_coverage: 1.0,
            hole_box: None,
            glare_share: 0.0,
            solid_saturated_share: 0.002,
            glare_box: None,
            cut_corner: None,
        };
        assert!(overexposure(&measures(1.0, 0.414)) < 0.5);
        assert!(overexposure(&measures(22.0, 0.505)) < 0.5);
        assert!(overexposure(&measures(60.0, 0.414)) >= 0.5);
        assert!(overexposure(&measures(1.0, 0.7)) >= 0.5);
    }

    #[test]
    fn card_sanity_ramp() {
        assert_eq!(ramp(60.0, 90.0, 60.0, 30.0), 0.5);
        assert_eq!(ramp(100.0, 90.0, 60.0, 30.0), 0.0);
        assert_eq!(ramp(0.0, 90.0, 60.0, 30.0), 1.0);
        assert_eq!(ramp(f32::INFINITY, 1.0, 2.0, 3.0), 1.0);
        assert!((ramp(2.5, 1.0, 2.0, 3.0) - 0.75).abs() < 1e-6);
    }
}
