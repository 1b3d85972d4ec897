//! One side of a card, looked at once (issue 8): the photo decoded, the card found
//! (`idv_vision::card_box`: its four corners, or "fills the frame", or no card, or
//! several), warped flat, judged (`idv_vision::card_sanity`), deblurred for reading when
//! judged blurred (`idv_vision::deblur`; read twice, from two deconvolutions, when judged
//! too blurred to trust one reading: [`SideScan::reread`]), its QR codes decoded (in the
//! photo, then in the flattened card, which undoes perspective for the decoder, then in
//! its deblurred copy),
//! its printed text read by OCR, and its machine-readable zone read where the card type
//! carries one. Blocking CPU work, run by the card handler on a blocking thread within
//! [`SCAN_TIME_BUDGET`]; every stage that cannot run says why instead of guessing
//! ([`OcrOutcome::NotPerformed`], [`MrzOutcome::NotPerformed`]).
//!
//! What each card type's scan does is one table, [`ScanPlan::for_card_type`].

use idv_vision::card_box::{CardFind, CardFormat, CardQuad};
use idv_vision::card_sanity::CardSanity;
use idv_vision::mrz::ZoneRead;
use idv_vision::ocr::{Layout, OcrError, OcrLine, OcrParams, TextRecognizer};
use image::RgbImage;

/// Longest one side's decode, card finding, QR search, OCR and MRZ reading may take before
/// the job stops waiting for it ("not performed"). Neither rqrr nor Tesseract can be
/// interrupted: the blocking thread finishes on its own, its cost bounded by the image
/// sizes handed to them.
pub const SCAN_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(20);

/// The σ of a blurred card's second reading ([`SideScan::reread`]), as a share of the
/// first's: a milder deconvolution, whose misreads are not the first's (the first
/// restores more of the print and rings more; this one leaves a little more blur). On
/// the blur captures of nine evaluation seeds (108 cards, 2026-11-29 (4)), the values
/// both readings agreed on were never wrong at 0.9, and the fields given exact rose from
/// 61.5 % (0.8) to 68.0 % (every seed gained, 1.2 to 12.2 points): the closer the second
/// deconvolution, the more of the first's right values it reads alike. At 0.95 the two
/// misread alike (one wrong value in four seeds); 1.25 (a stronger one) agreed on fewer
/// right values; a third reading (0.8 and 0.9) gave 0.6 points more for one more OCR
/// pass of each kind.
pub const REREAD_SIGMA_FACTOR: f32 = 0.9;

/// Width of the flattened card: OCR reads it (value text ~25-35 px high on an ID-1 card)
/// and it is the stored `transformed_image_id`.
pub const FLAT_WIDTH: u32 = 1200;

/// What a scan of one side of a card type does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPlan {
    /// Tesseract language of the printed text (`None`: no printed field is read).
    pub ocr_lang: Option<&'static str>,
    /// Whether the side may carry a machine-readable zone.
    pub mrz: bool,
    /// The two-digit-year pivot for MRZ dates.
    pub year: u32,
    /// Whether QR codes are searched for: on the types whose code is read (Aadhaar's,
    /// the CCCD's; `crate::card::Codec::of`), and when the type is to be recognised
    /// (`detect_id_card_tampering_sync`). Another type's code would be found and then
    /// never read: the search cost 70 ms a side at 1,400 px, 110-150 at 12 megapixels.
    pub qr: bool,
    /// The card's physical format where its type has one: the flattened card's aspect
    /// (`idv_vision::card_box::rectify_as`), not the quad's proportions, which
    /// perspective bends. `None`: measured (a type to be recognised; an Aadhaar, a PVC
    /// card or a letter's cut-out or a whole page).
    pub format: Option<CardFormat>,
}

impl ScanPlan {
    /// The one table of what is read on each side (`back`: image2) of each card type.
    pub fn for_card_type(card_type: &str, back: bool, year: u32) -> ScanPlan {
        let (ocr_lang, mrz) = match (card_type, back) {
            ("vn.national_id", false) => (Some("vie"), false),
            // The chip CCCD's back: the TD1 zone and the issue date.
            ("vn.national_id", true) => (Some("vie"), true),
            ("in.passport", _) => (Some("eng"), true),
            // The national identity card carries a TD1 zone on its back.
            ("in.national_id", true) => (Some("eng"), true),
            _ => (Some("eng"), false),
        };
        let qr = matches!(card_type, "in.aadhaar" | "vn.national_id");
        let format = match card_type {
            "in.passport" => Some(CardFormat::PassportPage),
            "in.pan" | "in.voter" | "in.national_id" | "vn.national_id" => Some(CardFormat::Id1),
            _ => None,
        };
        ScanPlan { ocr_lang, mrz, year, qr, format }
    }

    /// The plan of a photo whose card type is to be recognised: a Latin-script card with
    /// a zone (`in.passport`'s plan), its QR codes searched too.
    pub fn for_recognition(year: u32) -> ScanPlan {
        ScanPlan { qr: true, format: None, ..ScanPlan::for_card_type("in.passport", false, year) }
    }

    /// Whether a scan made with this plan read everything `other` reads: the same OCR
    /// language and year, and the zone and QR codes searched where `other` searches them
    /// (a card flattened at its measured aspect reads as one flattened at its type's).
    pub fn covers(&self, other: &ScanPlan) -> bool {
        self.ocr_lang == other.ocr_lang && self.year == other.year && (self.mrz || !other.mrz) && (self.qr || !other.qr)
    }
}

impl SideScan {
    /// Whether this side's card, or with none found its whole photo, is overexposed all
    /// over with no glare spot in it (see `overexposed_all_over`).
    pub fn overexposed_all_over(&self) -> bool {
        overexposed_all_over(self.flat.as_ref(), self.photo_page.as_ref(), self.sanity.as_ref(), self.photo_glare_box)
    }

    /// This scan as `plan` would have made it: a zone found where `plan` does not search
    /// one is dropped, so a card type without a zone is never read from one, and so are
    /// QR codes where `plan` searches none.
    pub fn narrowed_to(mut self, plan: &ScanPlan) -> SideScan {
        if !plan.mrz {
            self.mrz = MrzOutcome::NotSearched;
        }
        if !plan.qr {
            self.qr_texts.clear();
        }
        self
    }
}

/// Where the card is in the photo.
#[derive(Debug, Clone, PartialEq)]
pub enum Located {
    /// One card, these corners in the photo's pixels.
    Card(CardQuad),
    /// The card fills the photo (a scan or a tight crop): the photo is the card.
    FillsFrame,
    /// Nothing card-like.
    NoCard,
    /// This many cards.
    Several(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum OcrOutcome {
    /// The lines read on the flattened card (boxes in its pixels).
    Lines(Vec<OcrLine>),
    NotPerformed(String),
}

#[derive(Debug)]
pub enum MrzOutcome {
    /// The card type has no zone on this side.
    NotSearched,
    Found(ZoneRead),
    NotFound,
    NotPerformed(String),
}

/// Everything one side's scan found.
#[derive(Debug)]
pub struct SideScan {
    /// The decoded photo's size (the pixels `card_box` is found in).
    pub photo_width: u32,
    pub photo_height: u32,
    /// Upload pixels per decoded pixel: more than 1 when a photo larger than the cards'
    /// working side was scaled down at decode (`idv_vision::decode_scaled`). Positions
    /// given to the client in the photo (`card_box`, and `ocr.raw` with no card found)
    /// are multiplied by it, so they are the upload's pixels (docs/API.md).
    pub upload_scale: f32,
    pub located: Located,
    /// The card warped flat ([`FLAT_WIDTH`] wide), or the photo itself scaled to that
    /// width when the card fills the frame; `None` when no card was found.
    pub flat: Option<RgbImage>,
    /// `None` when no card was found (nothing to judge).
    pub sanity: Option<CardSanity>,
    pub qr_texts: Vec<String>,
    pub ocr: OcrOutcome,
    pub mrz: MrzOutcome,
    /// With no card found (the whole photo read instead): the photo's edge blur σ̂ at
    /// card sanity's working width, which says how far its print can be trusted
    /// (`crate::card::read`); `None` otherwise.
    pub photo_blur_sigma: Option<f32>,
    /// With no card found: the largest glare spot in the photo
    /// (`idv_vision::card_sanity::glare_spots`), in the pixels of the page its print is
    /// read from; `None` otherwise. Print beside it may be washed out.
    pub photo_glare_box: Option<[f32; 4]>,
    /// With no card found: the whole photo's exposure checks
    /// (`idv_vision::card_sanity::exposure_sanity`: too dark, too bright, else
    /// `incomplete`), the card sanity of a side whose print was read though no card shape
    /// was found (`crate::card::read`); `None` otherwise. `sanity` holds it only when it
    /// is an issue.
    pub photo_exposure: Option<CardSanity>,
    /// A card judged too blurred read again, from a copy deblurred with another σ
    /// ([`REREAD_SIGMA_FACTOR`]); a soft card, from a copy sharpened a little; empty
    /// otherwise. On such a photo a value the first reading and a later one agree on may
    /// be given (`crate::card::read`). A list: each later reading confirms on its own.
    pub reread: Vec<SecondReading>,
    /// A card found in a photo with heavy sensor noise (the finder's working copy at
    /// [`idv_vision::card_box::NOISY_FROM_SIGMA`] or more): read again from a copy
    /// smoothed by [`NOISY_REREAD_SIGMA`] (`reread`, when no blurred or soft reading took
    /// its place), and a printed value the two readings read differently is not given
    /// (`crate::card::read`): one of them misread it.
    pub noisy: bool,
    /// With no card found: the whole photo as its print was read
    /// ([`no_card_page_width`] wide), the pixels `ocr` boxes and `photo_glare_box` are
    /// in. A card on white paper overexposed all over shows no edge to find, and its
    /// values are judged by their own print here as on a flattened card
    /// (`crate::card::read`); `None` when a card was found.
    pub photo_page: Option<RgbImage>,
    /// A side overexposed all over ([`SideScan::overexposed_all_over`]) is read from a
    /// darkened copy (`ocr`) and from the page as photographed, this: a value the
    /// darkened reading did not give may be given from it (`crate::card::read`). The
    /// darkening brings faded print out, and lifts a paper's texture to grey speckle
    /// with it, in which the engine can lose a line it read before (seed 29's national
    /// identity number, bold black beside speckled paper). `None` on any other side.
    pub as_photographed: Option<OcrOutcome>,
}

impl SideScan {
    /// Factor from the pixels of the page the print was read from to those `ocr.raw`
    /// reports: 1 for a flattened card (its boxes are `transformed_image_id`'s); with no
    /// card, the whole photo was read resized to [`no_card_page_width`], and its boxes are
    /// given in the upload's pixels.
    pub fn text_box_scale(&self) -> f32 {
        match self.flat {
            Some(_) => 1.0,
            None => self.photo_width as f32 * self.upload_scale / no_card_page_width(self.photo_width) as f32,
        }
    }
}

/// Another reading of a blurred card ([`SideScan::reread`]).
#[derive(Debug)]
pub struct SecondReading {
    pub ocr: OcrOutcome,
    /// The zone, searched in this reading's copy only (never in the photo, which the
    /// first reading may have read: the same pixels read twice confirm nothing).
    pub mrz: MrzOutcome,
}

/// Scans a decoded photo (module doc). `judge` parses a zone's lines (see
/// `crate::card::mrz::judge`).
/// `upload_scale`: the upload's pixels per `photo` pixel ([`SideScan::upload_scale`]).
pub fn scan_side(photo: &RgbImage, upload_scale: f32, plan: &ScanPlan, ocr: Option<&dyn TextRecognizer>) -> SideScan {
    let judged = locate_and_judge_as(photo, plan.format);
    let location = judged.location.clone();
    let first = read_judged(photo, upload_scale, judged, None, plan, ocr);
    // A card photographed upside down (or turned a quarter and flattened the wrong way
    // up, see `locate_and_judge`) reads as noise: when its print recognises no card
    // type well, it is flattened the other way up and read again, and the reading that
    // recognises a card better is kept.
    let evidence = type_evidence(&first);
    if matches!(first.ocr, OcrOutcome::Lines(_)) && evidence < TURN_BELOW_EVIDENCE {
        if let Some(turned) = judged_other_way_up(photo, &first, location, plan.format) {
            let second = read_judged(photo, upload_scale, turned, Some(first.qr_texts.clone()), plan, ocr);
            if type_evidence(&second) > evidence {
                return second;
            }
        }
    }
    first
}

/// Card-type evidence ([`type_evidence`]) below which a side is read the other way up
/// too. Upright sides of the evaluation's clean cards: 0.76-1 (one national identity
/// card front whose header went unread: 0.36); upside-down print read as text matches
/// a cue or two by chance (a voter card's front: 0.2 for a passport).
pub const TURN_BELOW_EVIDENCE: f32 = 0.5;

/// How strongly a side's reading recognises a card: the best card-type score of its
/// print (`idv_cards::printed::classify`), or 1 when a machine-readable zone was read.
fn type_evidence(scan: &SideScan) -> f32 {
    let printed = match &scan.ocr {
        OcrOutcome::Lines(lines) => idv_cards::printed::classify(&crate::card::read::text_lines(lines)).first().map_or(0.0, |t| t.1),
        OcrOutcome::NotPerformed(_) => 0.0,
    };
    if matches!(scan.mrz, MrzOutcome::Found(_)) {
        1.0
    } else {
        printed
    }
}

/// The side's card judged again the other way up (its corners named from the opposite
/// one); `None` when no card was found in the photo.
fn judged_other_way_up(photo: &RgbImage, first: &SideScan, location: Option<idv_vision::card_box::CardLocation>, format: Option<CardFormat>) -> Option<Judged> {
    match (&first.located, location) {
        (Located::Card(_), Some(mut loc)) => {
            loc.quad = loc.quad.turned(2);
            Some(judged_card(photo, loc, format))
        }
        (Located::FillsFrame, _) => first.flat.as_ref().map(|flat| judged_fill(image::imageops::rotate180(flat))),
        _ => None,
    }
}

/// Reads a judged side (module doc): QR codes (`qr_texts`, when already decoded from
/// this photo, are not decoded again), print, zone, a blurred card's second reading.
fn read_judged(photo: &RgbImage, upload_scale: f32, judged: Judged, qr_texts: Option<Vec<String>>, plan: &ScanPlan, ocr: Option<&dyn TextRecognizer>) -> SideScan {
    let (photo_width, photo_height) = photo.dimensions();
    let Judged { located, flat, sanity, photo_blur_sigma, photo_glare_box, photo_exposure, location: _ } = judged;
    // A blurred card is read from a deblurred copy (`idv_vision::deblur`); `flat` itself
    // stays as photographed (it is the `transformed_image_id` the caller gets back).
    let blur = match (&flat, &sanity) {
        (Some(card), Some(judged)) => blur_to_undo(card, judged),
        _ => None,
    };
    let deblurred = flat.as_ref().zip(blur).map(|(card, blur)| deblurred_for_reading(card, blur, 1.0));
    // With no card found, the whole photo is read (so a card the finder missed can still
    // be recognised by its text, and "no card" rests on both).
    let photo_page = flat.is_none().then(|| scaled_to_width(photo, no_card_page_width(photo_width)));
    let reading_page = deblurred.as_ref().or(flat.as_ref());
    let noisy = flat.is_some() && idv_vision::card_box::working_noise_sigma(photo).is_some_and(|s| s >= idv_vision::card_box::NOISY_FROM_SIGMA);
    // A card overexposed all over is read from a copy darkened toward black
    // ([`darkened_for_reading`]): print faded to light grey reads as print there.
    let darkened = overexposed_all_over(flat.as_ref(), photo_page.as_ref(), sanity.as_ref(), photo_glare_box)
        .then(|| reading_page.or(photo_page.as_ref()))
        .flatten()
        .map(darkened_for_reading);
    let printed_page = darkened.as_ref().or(reading_page).or(photo_page.as_ref()).unwrap_or(photo);

    // QR: the photo as sent, then the flattened card (perspective undone), then its
    // deblurred copy; none where the plan reads no code.
    let qr_texts = qr_texts.unwrap_or_else(|| {
        if !plan.qr {
            return Vec::new();
        }
        let mut texts = idv_vision::qr::decode_qr_codes(photo);
        for card in [flat.as_ref(), deblurred.as_ref()].into_iter().flatten() {
            if !texts.is_empty() {
                break;
            }
            texts = idv_vision::qr::decode_qr_codes(card);
        }
        texts
    });

    // The printed text and the machine-readable zone are two OCR passes over the same
    // card, independent of each other: they run side by side (a passport's read takes
    // the longer of the two instead of their sum on a machine with a second core).
    let (ocr_outcome, mrz, reread, as_photographed) = std::thread::scope(|scope| {
        let zone = scope.spawn(|| read_zone_of(photo, reading_page, plan, ocr));
        // Only a card judged too blurred to trust one reading, or read soft, is read again.
        let reread = scope.spawn(|| match (&flat, &sanity, blur) {
            (Some(card), Some(judged), Some(blur)) if judged.verdict == idv_vision::card_sanity::CardSanityVerdict::ImageTooBlur => {
                let copy = deblurred_for_reading(card, blur, REREAD_SIGMA_FACTOR);
                vec![SecondReading { ocr: read_printed_of(&copy, plan, ocr), mrz: read_zone_on(&copy, plan, ocr) }]
            }
            // A soft card (a small photo enlarged) is read twice too, from a copy
            // sharpened a little.
            (Some(card), Some(judged), _) if reads_soft(judged) => {
                let copy = sharpened_for_reading(card, judged.measures.blur_sigma);
                vec![SecondReading { ocr: read_printed_of(&copy, plan, ocr), mrz: read_zone_on(&copy, plan, ocr) }]
            }
            // A noisy card's print, from a smoothed copy (its zone is not read again:
            // check digits judge a zone).
            (Some(card), Some(_), _) if noisy => {
                vec![SecondReading { ocr: read_printed_of(&image::imageops::blur(card, NOISY_REREAD_SIGMA), plan, ocr), mrz: MrzOutcome::NotSearched }]
            }
            _ => Vec::new(),
        });
        let as_photographed = darkened.as_ref().map(|_| scope.spawn(|| read_printed_of(reading_page.or(photo_page.as_ref()).unwrap_or(photo), plan, ocr)));
        let printed = read_printed_of(printed_page, plan, ocr);
        let as_photographed = as_photographed.map(|reading| {
            reading.join().unwrap_or_else(|_| {
                tracing::error!("the reading of an overexposed card as photographed panicked");
                OcrOutcome::NotPerformed("the reading of the card as photographed failed".into())
            })
        });
        let mrz = zone.join().unwrap_or_else(|panic| {
            let why = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            tracing::error!(%why, "the machine-readable zone's reader panicked");
            MrzOutcome::NotPerformed("the machine-readable zone's reader failed".into())
        });
        let reread = reread.join().unwrap_or_else(|_| {
            tracing::error!("the second reading of a blurred card panicked");
            Vec::new()
        });
        // A zone read with check digits failing: its checked lines may be taken from the
        // card's printed text, which read the zone too (`idv_vision::mrz::with_checked_lines_from`).
        let mrz = match (mrz, &printed) {
            (MrzOutcome::Found(zone), OcrOutcome::Lines(lines)) if !zone.all_passed() => {
                let judge = |zone_lines: &[String]| crate::card::mrz::judge(zone_lines, plan.year);
                let printed_zones = idv_vision::mrz::find_zones(lines);
                let better = idv_vision::mrz::with_checked_lines_from(&zone, &printed_zones, &judge);
                // Where the printed text held no whole zone: its lines one by one.
                let better = match better {
                    Some(whole) if whole.all_passed() => Some(whole),
                    partly => idv_vision::mrz::with_checked_lines_read_alone(&zone, lines, &judge).or(partly),
                };
                MrzOutcome::Found(better.unwrap_or(zone))
            }
            (outcome, _) => outcome,
        };
        (printed, mrz, reread, as_photographed)
    });
    SideScan { photo_width, photo_height, upload_scale, located, flat, sanity, qr_texts, ocr: ocr_outcome, mrz, photo_blur_sigma, photo_glare_box, photo_exposure, reread, noisy, photo_page, as_photographed }
}

/// Edge blur σ̂ (card sanity's, at its working width) from which a card judged sharp
/// enough (below `BLUR_SIGMA`, 1.4) is still read *soft*: print so small in the photo
/// that, enlarged to the flattened card's width, its strokes are smooth, and OCR
/// misreads letters as other letters ("Roed" for "Road", "Plat" for "Flat") more often
/// than it drops them. Such a card is read twice ([`SideScan::reread`], a copy
/// sharpened by [`SOFT_REREAD_SHARPEN`]) and only what a check or both readings vouch
/// for is given (`crate::card::read`), as on a blurred card. The evaluation's photos at a
/// third of their resolution measure 0.54–1.02 (every wrong value they gave came from a
/// side at 0.66–0.89); every other capture, clean, tilted, noisy, compressed, shadowed
/// or in perspective, ≤ 0.47 (2026-11-29 (4), two seed sets). Not higher: a card is
/// judged as a whole, and a side under the line is not read twice, so its right values
/// go unconfirmed when the other side is soft (at 0.6, 12 more right values lost on four
/// seeds than at 0.5).
pub const SOFT_FROM_SIGMA: f32 = 0.5;

/// The sharpening of a soft card's second reading, as a share of the deconvolution σ
/// card sanity's σ̂ gives (`idv_vision::deblur`'s line, without its 1.0 floor). On the
/// third-resolution captures of four seeds (48 cards), 0.3 turned the first reading's 7
/// wrong values into 0, for 12 right values no longer given; a closer copy (0.15, 0.2)
/// misread alike (2 and 1 wrong values left), a farther one (0.5, 0.8) agreed on fewer
/// right values. On eight seeds (96 cards): 24 wrong values → 1, 32 right ones lost.
pub const SOFT_REREAD_SHARPEN: f32 = 0.3;

/// The Gaussian σ (pixels of the flattened card, [`FLAT_WIDTH`] wide) of a noisy card's
/// second reading ([`SideScan::noisy`]). On the noise captures of the independent card
/// set's seeds 15-21 (84 cards, sensor noise σ 20-28), the photo's reading gave 4 wrong
/// values (`UNSURE`: "VISAY JOSHI", "Racha Patel", "Ermakulam", "Quy Nhon"), a copy at
/// 1.5 read each of them otherwise and gave 5 wrong values of its own, none of them
/// alike: two readings that differ say a misread. At 1.0 the copy misread "VISAY" alike.
pub const NOISY_REREAD_SIGMA: f32 = 1.5;

/// Whether a side judged not too blurred is read soft ([`SOFT_FROM_SIGMA`]).
pub fn reads_soft(judged: &CardSanity) -> bool {
    judged.verdict != idv_vision::card_sanity::CardSanityVerdict::ImageTooBlur && judged.measures.blur_sigma >= SOFT_FROM_SIGMA
}

/// A soft card's copy for its second reading: deconvolved with [`SOFT_REREAD_SHARPEN`]
/// of the σ its σ̂ gives, as grey in an RGB image.
fn sharpened_for_reading(card: &RgbImage, measured_blur_sigma: f32) -> RgbImage {
    use idv_vision::deblur::{SIGMA_AT_ZERO, SIGMA_PER_MEASURED};
    let sigma = SOFT_REREAD_SHARPEN * (SIGMA_AT_ZERO + SIGMA_PER_MEASURED * measured_blur_sigma) * card.width() as f32 / idv_vision::card_sanity::WORK_WIDTH as f32;
    deconvolved(card, |g, k| idv_vision::deblur::wiener_deblur(g, sigma, k))
}

/// `card`'s luminance Wiener-deconvolved by `deblur` (`idv_vision::deblur`, given the
/// grey card and its noise-to-signal ratio), as grey in an RGB image: OCR reads grey.
fn deconvolved(card: &RgbImage, deblur: impl Fn(&image::GrayImage, f32) -> image::GrayImage) -> RgbImage {
    let gray = image::DynamicImage::ImageRgb8(card.clone()).into_luma8();
    let sharp = deblur(&gray, idv_vision::deblur::noise_to_signal(&gray));
    image::DynamicImage::ImageLuma8(sharp).into_rgb8()
}

/// The blur to undo before a flattened card is read, when card sanity measured it
/// blurred (`idv_vision::deblur::DEBLUR_FROM_SIGMA`); `None` when it is sharp enough to
/// read as it is. A card judged too blurred whose spectrum shows a lens's defocus disk
/// (`idv_vision::deblur::defocus_disk_radius`) is undone as a disk of the radius its
/// defocus σ gives (`radius_for_deblur`); any other blurred card as a Gaussian (its σ
/// from the edge blur). On the blur captures of the independent card set (seeds 1, 2,
/// 3, 7: 48 cards) the disk left 259 of their fields missing where the Gaussian left
/// 360, none wrong; the own evaluation's Gaussian blurs, read for a disk, lost most of
/// theirs (74 → 9 %), hence the spectrum's say. The disk is undone at the radius the
/// spectrum measures (within 6 % of the one drawn; the defocus σ's guess is 12 % off,
/// 30 % at most), in linear light (`idv_vision::deblur::wiener_deblur_disk`). With the
/// deconvolution on encoded values, the measured radius made the two readings of a card
/// (`REREAD_SIGMA_FACTOR`) misread alike (2 wrong values on seed 7) and σ's guess was
/// kept; in linear light, on the defocused captures of seeds 3, 5, 7, 9, 11 and 12 (72
/// cards, 576 values), σ's guess gave 222 values right and 1 wrong, the measured radius
/// 279 right and 3 wrong (all `UNSURE`: a year of birth, a passport number, a CCCD name's
/// tone mark). Decided once per side, for both readings.
fn blur_to_undo(card: &RgbImage, judged: &idv_vision::card_sanity::CardSanity) -> Option<Blur> {
    use idv_vision::card_sanity::{CardSanityVerdict, WORK_WIDTH};
    use idv_vision::deblur::{defocus_disk_radius, radius_for_deblur, sigma_for_deblur};
    let disk = (judged.verdict == CardSanityVerdict::ImageTooBlur)
        .then(|| radius_for_deblur(judged.measures.defocus_sigma, WORK_WIDTH, card.width()))
        .flatten()
        .and_then(|guess| defocus_disk_radius(&image::DynamicImage::ImageRgb8(card.clone()).into_luma8(), guess));
    // A disk the spectrum shows is undone whatever the edge blur measures: a side with
    // little print (a voter card's back, its address and a few small lines) measures
    // σ̂ 0.89-0.90 under the disk that blurs its front to 1.28-1.65 (the independent
    // set's seed 34), under the Gaussian's threshold, and was read once only, so that
    // no second reading could confirm its address.
    match disk {
        Some(radius) => Some(Blur::Disk(radius)),
        None => sigma_for_deblur(judged.measures.blur_sigma, WORK_WIDTH, card.width()).map(Blur::Gaussian),
    }
}

/// A blur to undo ([`blur_to_undo`]): a Gaussian's σ or a disk's radius, in pixels.
#[derive(Debug, Clone, Copy)]
enum Blur {
    Gaussian(f32),
    Disk(f32),
}

/// `card` (flattened) deconvolved for `blur`, σ or radius scaled by `factor` (the second
/// reading's milder copy), as grey in an RGB image.
fn deblurred_for_reading(card: &RgbImage, blur: Blur, factor: f32) -> RgbImage {
    use idv_vision::deblur::{wiener_deblur, wiener_deblur_disk};
    match blur {
        Blur::Disk(radius) => deconvolved(card, |g, k| wiener_deblur_disk(g, factor * radius, k)),
        Blur::Gaussian(sigma) => deconvolved(card, |g, k| wiener_deblur(g, factor * sigma, k)),
    }
}

/// Exponent of the curve a card overexposed all over is darkened by before its print is
/// read ([`darkened_for_reading`]).
pub const OVEREXPOSED_READING_GAMMA: i32 = 8;

/// `card` with every channel raised to [`OVEREXPOSED_READING_GAMMA`] (`255 (v/255)^γ`):
/// clipped paper stays white, print faded to light grey by the exposure turns dark
/// (245 → 187, 230 → 112). Tesseract thresholds a page between its dark and light
/// modes, and on an overexposed card the dark mode is what kept its colour (a header,
/// a QR code): faded print falls on the paper's side and goes unread.
fn darkened_for_reading(card: &RgbImage) -> RgbImage {
    let curve: Vec<u8> = (0..=255u8).map(|v| (255.0 * (f32::from(v) / 255.0).powi(OVEREXPOSED_READING_GAMMA)).round() as u8).collect();
    let mut out = card.clone();
    for p in out.pixels_mut() {
        for c in p.0.iter_mut() {
            *c = curve[usize::from(*c)];
        }
    }
    out
}

/// Whether a side is overexposed all over with no glare spot in it
/// (`idv_vision::card_sanity::overexposure` ≥ 0.5): its found card (`flat`, judged by
/// `sanity`), or with none found the whole photo read (`photo_page`, `sanity` then the
/// photo's exposure, `photo_glare_box` its largest saturated region). A saturated region
/// covering most of the page ([`OVEREXPOSED_CARD_SPOT_SHARE`],
/// [`OVEREXPOSED_PHOTO_SPOT_SHARE`]) is that overexposure, not a spot. Such a side is
/// read from a darkened copy ([`darkened_for_reading`]) and its values are judged by
/// their own print (`crate::card::read`).
fn overexposed_all_over(flat: Option<&RgbImage>, photo_page: Option<&RgbImage>, sanity: Option<&CardSanity>, photo_glare_box: Option<[f32; 4]>) -> bool {
    let Some(judged) = sanity.filter(|judged| idv_vision::card_sanity::overexposure(&judged.measures) >= 0.5) else { return false };
    let (page, spot, whole_share) = match (flat, photo_page) {
        (Some(card), _) => (card, judged.measures.glare_box, OVEREXPOSED_CARD_SPOT_SHARE),
        (None, Some(page)) => (page, photo_glare_box, OVEREXPOSED_PHOTO_SPOT_SHARE),
        (None, None) => return false,
    };
    let area = page.width() as f32 * page.height() as f32;
    spot.is_none_or(|[x0, y0, x1, y1]| (x1 - x0).max(0.0) * (y1 - y0).max(0.0) >= whole_share * area)
}

/// Share of a found card's area from which its saturated region's box is the card's
/// overexposure rather than a glare spot ([`overexposed_all_over`]): an exposure blown
/// all over saturates the card edge to edge (seed 28's voter back: 98 % of it); a broad
/// reflection fading across it covers less (seed 25's Aadhaar: 70 %, the holder's first
/// name washed grey at its edge), and is judged as a spot.
const OVEREXPOSED_CARD_SPOT_SHARE: f32 = 0.9;

/// Share of a whole photo's area (no card found) from which its largest saturated region
/// is the photo's overexposure rather than a glare spot ([`overexposed_all_over`]): a
/// reflection saturates at most a third of a card, which fills at most four fifths of a
/// photo's width.
const OVEREXPOSED_PHOTO_SPOT_SHARE: f32 = 0.5;

/// The printed text of one side: OCR of `page`, the flattened card (or a deblurred
/// copy), or with no card found the whole photo ([`SideScan::photo_page`]).
fn read_printed_of(page: &RgbImage, plan: &ScanPlan, ocr: Option<&dyn TextRecognizer>) -> OcrOutcome {
    match (plan.ocr_lang, ocr) {
        (None, _) => OcrOutcome::NotPerformed("this card type has no printed fields read in this build".into()),
        (Some(_), None) => OcrOutcome::NotPerformed("OCR (Tesseract) is not in this build".into()),
        (Some(lang), Some(engine)) => read_printed(page, lang, engine),
    }
}

/// The machine-readable zone of one side, where the plan searches one: in the flattened
/// card when there is one (straight, the zone at a known scale), then in the photo.
fn read_zone_of(photo: &RgbImage, flat: Option<&RgbImage>, plan: &ScanPlan, ocr: Option<&dyn TextRecognizer>) -> MrzOutcome {
    match (read_zone_on(flat.unwrap_or(photo), plan, ocr), flat) {
        (MrzOutcome::NotFound, Some(_)) => read_zone_on(photo, plan, ocr),
        (outcome, _) => outcome,
    }
}

/// The machine-readable zone searched in `page` alone, where the plan searches one.
fn read_zone_on(page: &RgbImage, plan: &ScanPlan, ocr: Option<&dyn TextRecognizer>) -> MrzOutcome {
    match (plan.mrz, ocr) {
        (false, _) => MrzOutcome::NotSearched,
        (true, None) => MrzOutcome::NotPerformed("reading the machine-readable zone needs OCR (Tesseract), which is not in this build".into()),
        (true, Some(engine)) => {
            let year = plan.year;
            let judge = move |lines: &[String]| crate::card::mrz::judge(lines, year);
            match idv_vision::mrz::read_zone(page, engine, &judge) {
                Ok(Some(z)) => MrzOutcome::Found(z),
                Ok(None) => MrzOutcome::NotFound,
                Err(e) => MrzOutcome::NotPerformed(e.to_string()),
            }
        }
    }
}

/// Where the card is, flattened, and judged.
pub struct Judged {
    pub located: Located,
    pub flat: Option<RgbImage>,
    pub sanity: Option<CardSanity>,
    /// With no card found: the whole photo's edge blur σ̂ (see [`SideScan`]).
    pub photo_blur_sigma: Option<f32>,
    /// With no card found: its largest glare spot (see [`SideScan`]).
    pub photo_glare_box: Option<[f32; 4]>,
    /// With no card found: the whole photo's exposure judged (see [`SideScan`]).
    pub photo_exposure: Option<CardSanity>,
    /// Where the card was found (`None` when it fills the frame or was not found).
    pub location: Option<idv_vision::card_box::CardLocation>,
}

/// Width the whole photo is read at when no card was found in it.
fn no_card_page_width(photo_width: u32) -> u32 {
    FLAT_WIDTH.max(photo_width.min(1600))
}

/// Finds the card in `photo`, flattens it ([`FLAT_WIDTH`] wide, at its measured aspect)
/// and judges its sanity: all that `mix_compare_faces_sync`'s `card_sanity` needs.
pub fn locate_and_judge(photo: &RgbImage) -> Judged {
    locate_and_judge_as(photo, None)
}

/// [`locate_and_judge`] with the card's format known ([`ScanPlan::format`]): the first
/// stage of every card read.
fn locate_and_judge_as(photo: &RgbImage, format: Option<CardFormat>) -> Judged {
    match idv_vision::card_box::find_card(photo) {
        CardFind::One(mut loc) => {
            // A card photographed turned a quarter stands on a short side: it is
            // flattened with a long side on top (the right way up, or upside down,
            // which only its print can tell: `scan_side`).
            if loc.quad.aspect() < 1.0 {
                loc.quad = loc.quad.turned(1);
            }
            return judged_card(photo, loc, format);
        }
        CardFind::FillsFrame => return judged_fill(scaled_to_width(photo, FLAT_WIDTH)),
        CardFind::Several(n) => {
            return Judged { located: Located::Several(n), flat: None, sanity: None, photo_blur_sigma: None, photo_glare_box: None, photo_exposure: None, location: None }
        }
        CardFind::None => {}
    }
    // No card shape found: the whole photo is judged, and the answer kept only when it is
    // too dark or too bright (a photo too dark to find the card in, or one whose glare
    // hides it, deserves that answer rather than "no card"); its blur measure is kept for
    // the reading.
    let whole = idv_vision::card_sanity::card_sanity(&scaled_to_width(photo, FLAT_WIDTH), None);
    let blur = whole.measures.blur_sigma;
    // From the judged copy's pixels to the read page's.
    let k = no_card_page_width(photo.width()) as f32 / FLAT_WIDTH as f32;
    let glare = whole.measures.glare_box.map(|b| b.map(|v| v * k));
    let exposure = idv_vision::card_sanity::exposure_sanity(whole);
    Judged {
        located: Located::NoCard,
        flat: None,
        sanity: Some(exposure.clone()).filter(|s| s.verdict.is_issue()),
        photo_blur_sigma: Some(blur),
        photo_glare_box: glare,
        photo_exposure: Some(exposure),
        location: None,
    }
}

/// A photo the card fills, taken whole as the flattened card (`flat`), judged.
fn judged_fill(flat: RgbImage) -> Judged {
    let sanity = idv_vision::card_sanity::card_sanity(&flat, None);
    Judged { located: Located::FillsFrame, flat: Some(flat), sanity: Some(sanity), photo_blur_sigma: None, photo_glare_box: None, photo_exposure: None, location: None }
}

/// A found card flattened along its corners as named (`loc.quad`), at its format's
/// aspect where known, and judged.
fn judged_card(photo: &RgbImage, loc: idv_vision::card_box::CardLocation, format: Option<CardFormat>) -> Judged {
    let aspect = format.map_or_else(|| idv_vision::card_box::rectified_aspect(&loc.quad), CardFormat::aspect);
    let flat = idv_vision::card_box::rectify_as(photo, &loc.quad, FLAT_WIDTH, aspect);
    let sanity = idv_vision::card_sanity::card_sanity(&flat, Some(&loc));
    Judged { located: Located::Card(loc.quad), flat: Some(flat), sanity: Some(sanity), photo_blur_sigma: None, photo_glare_box: None, photo_exposure: None, location: Some(loc) }
}

/// The printed text of a flattened card, as lines with boxes in its pixels.
fn read_printed(page: &RgbImage, lang: &str, engine: &dyn TextRecognizer) -> OcrOutcome {
    if !engine.has_language(lang) {
        return OcrOutcome::NotPerformed(format!("OCR language data {lang:?} is not installed"));
    }
    let gray = image::DynamicImage::ImageRgb8(page.clone()).into_luma8();
    match engine.read_lines(&gray, &OcrParams { lang, char_whitelist: None, layout: Layout::Auto, confidences: true }) {
        Ok(mut lines) => {
            for line in &mut lines {
                drop_leading_debris(line);
                drop_trailing_debris(line);
            }
            if lang == "eng" {
                read_pan_number_band(&gray, &mut lines, engine);
                read_birth_date_band(&gray, &mut lines, engine);
                read_id_number_band(&gray, &mut lines, engine);
                read_epic_word(&gray, &mut lines, engine);
                read_sex_band(&gray, &mut lines, engine);
                read_name_bands(&gray, &mut lines, engine);
                read_missing_name_bands(&gray, &mut lines, engine);
                read_descending_capitals(&gray, &mut lines, engine);
            }
            OcrOutcome::Lines(lines)
        }
        Err(e @ (OcrError::Unavailable(_) | OcrError::LanguageMissing { .. } | OcrError::BadInput(_) | OcrError::Failed(_))) => {
            OcrOutcome::NotPerformed(e.to_string())
        }
    }
}

/// A line without the marks read in front of its words: while its first word is read
/// with little confidence ([`NAME_WORD_DOUBT`]), half as tall again as the middle of
/// the others or more, and further from the next word than that middle height, it is
/// dropped. Print spaces a line's words by a fraction of their height, and a word of
/// print is read with confidence; the edge of a portrait or a chip left of the line is
/// neither ("Vie Mahesh Rao", the independent set's seed 18, an Aadhaar with a hole:
/// "Vie" 66 px tall at confidence 14, 113 px left of "Mahesh", 29 px tall). The line's
/// text, box, confidence and symbols are those of the words kept. A line whose words do
/// not match its text word for word is left as it is.
fn drop_leading_debris(line: &mut idv_vision::ocr::OcrLine) {
    loop {
        let texts: Vec<&str> = line.text.split(' ').collect();
        if line.words.len() < 3 || texts.len() != line.words.len() {
            return;
        }
        let Some(middle) = middle_height(line.words[1..].iter().map(|w| w.bbox.height)) else { return };
        let middle = middle as f32;
        let (first, next) = (&line.words[0], &line.words[1]);
        // A word with a mark no card prints in a word ("LB»" in front of "Amit Yadav",
        // 76 px tall beside 33, read at confidence 70: the independent set's seed 35, a
        // punched national identity card) is no print however sure the engine is.
        let unsure = first.confidence.is_none_or(|c| c < NAME_WORD_DOUBT) || texts[0].chars().any(|c| MARKS_NOT_IN_WORDS.contains(&c));
        let apart = next.bbox.x as f32 > first.bbox.right() as f32 + middle;
        if !(unsure && first.bbox.height as f32 >= 1.5 * middle && apart && middle > 0.0) {
            return;
        }
        let all = line.words.len();
        keep_words(line, 1..all);
    }
}

/// Marks that no card's print has in a word ([`drop_leading_debris`]): the engine's
/// readings of a portrait's edge, a chip's contacts or a hole's rim.
const MARKS_NOT_IN_WORDS: [char; 14] = ['»', '«', '|', '¦', '©', '®', '¢', '§', '¶', '{', '}', '~', '^', '\\'];

/// `line` with only its words `kept` (a line whose words match its text word for word):
/// its text, its box (the kept words' union), its confidence (their mean, where they
/// have one) and, where its symbols are its words' characters, its symbols follow.
fn keep_words(line: &mut idv_vision::ocr::OcrLine, kept: std::ops::Range<usize>) {
    let symbols_are_words = line.symbols.len() == line.words.iter().map(|w| w.chars).sum::<usize>();
    let before: usize = line.words[..kept.start].iter().map(|w| w.chars).sum();
    let within: usize = line.words[kept.clone()].iter().map(|w| w.chars).sum();
    line.text = line.text.split(' ').skip(kept.start).take(kept.len()).collect::<Vec<_>>().join(" ");
    line.words = line.words[kept].to_vec();
    if symbols_are_words {
        line.symbols = line.symbols[before..before + within].to_vec();
    }
    if let Some(b) = line.words.iter().map(|w| w.bbox).reduce(|a, b| a.union(&b)) {
        line.bbox = b;
    }
    let confs: Vec<f32> = line.words.iter().filter_map(|w| w.confidence).collect();
    if !confs.is_empty() {
        line.confidence = confs.iter().sum::<f32>() / confs.len() as f32;
    }
}

/// A line without the specks read far after its words: its last words, when each is
/// under half as tall as the middle of the words before them ([`DEBRIS_HEIGHT_SHARE`])
/// and read as three characters at most ([`SPECK_MAX_CHARS`]), and the first stands
/// more than three of those heights past the word before it, are dropped. A card's
/// chip or a ghost portrait beside a name is read as a few specks
/// level with it ("DEEPAK PANDEY ee J", "ee" 12 px and "J" 9 px tall 330 px past
/// "PANDEY", 25 px; "Prakash Chauhan wal", "wal" 8 px beside 31: the independent set's
/// seed 34, national identity cards), and the name's parser refuses the line for
/// them. Print in another column is set as tall as a label at least, and a word's
/// remnant left by a hole or glare is a letter's height; what glare washed out between
/// the name and the specks is still judged from the paper after the name
/// (`crate::card::read`'s glare check). The line's text, box, confidence and symbols
/// are those of the words kept. A line whose words do not match its text word for word
/// is left as it is.
fn drop_trailing_debris(line: &mut idv_vision::ocr::OcrLine) {
    let texts: Vec<&str> = line.text.split(' ').collect();
    if line.words.len() < 2 || texts.len() != line.words.len() {
        return;
    }
    // How many words are kept: those before the first word of the longest tail of specks.
    let kept = (1..line.words.len()).find(|&first_speck| {
        let Some(middle) = middle_height(line.words[..first_speck].iter().map(|w| w.bbox.height)) else { return false };
        let middle = middle as f32;
        let specks = &line.words[first_speck..];
        let apart = specks[0].bbox.x as f32 > line.words[first_speck - 1].bbox.right() as f32 + 3.0 * middle;
        middle > 0.0 && apart && specks.iter().all(|w| (w.bbox.height as f32) < DEBRIS_HEIGHT_SHARE * middle && w.chars <= SPECK_MAX_CHARS)
    });
    if let Some(kept) = kept {
        keep_words(line, 0..kept);
    }
}

/// How tall, as a share of the middle height of a line's words, specks read after them
/// may be to be dropped ([`drop_trailing_debris`]).
const DEBRIS_HEIGHT_SHARE: f32 = 0.5;

/// The most characters a speck read after a line's words is read as
/// ([`drop_trailing_debris`]): a chip's contacts read "ee", "J", "wal". A line that
/// starts with a tall mark (a punch's rim read "©", 67 px tall) has its print after it
/// under half that tall and far off: "21/10/2017 20/10/2027" is print, not specks.
const SPECK_MAX_CHARS: usize = 3;

/// A PAN's number read again on its own, when the page read none: the band under the
/// "Permanent Account Number" label (where both designs print it), from a label height
/// left of its first word to half a height right of its last ("Number" or "Card"; where
/// the page's words are not the line's, the line's width and a quarter of it either
/// side), three label heights tall, read as one block of capitals and digits. The page's layout analysis joins the big bold number to the
/// portrait's edge beside it and then misreads it ("J wyopsss6sH" for "WYOPS8865H") or
/// drops it (the independent card set, `benches/indep_cards`, 2 of 4 clean and tilted
/// PANs); alone, it reads as printed. The band's reading is kept only when it holds a
/// token of a PAN's shape, and goes in under the label, where the PAN parser
/// (`idv_cards::printed::in_pan`, its repairs and checks) takes the number nearest its
/// label first. No other line is touched.
///
/// Where the page dropped the label too (its line and the number's read as one, or not
/// at all: seeds 12 and 14, a clean PAN and one in perspective, 2 of 44), the band is
/// the card's middle half under the "INCOME TAX DEPARTMENT" header, three tenths of the
/// page tall, where the number is printed centred; read so, only a PAN as printed
/// (`idv_cards::printed::printed_pan`, no repair) read with confidence
/// ([`BIRTH_BAND_MIN_CONFIDENCE`]) is kept, and it goes in after the header.
fn read_pan_number_band(page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer) {
    if lines.iter().any(|l| l.text.split(|c: char| !c.is_alphanumeric()).any(idv_cards::printed::printed_pan)) {
        return;
    }
    let (pw, ph) = page.dimensions();
    let labelled = lines.iter().position(|l| {
        let t = l.text.to_lowercase();
        t.contains("permanent") && t.contains("account") && t.contains("number")
    });
    let (at, area) = match labelled {
        Some(at) => {
            // The label's own words where the page read them so: what it joined to the
            // label's line on its right ("Permanent Account Number Card & racism", the
            // QR code's top, seed 24, a tilted PAN) stays out of the band, as the QR code
            // beside the number must (read into the band, "COUPSO082AB" for
            // `COUPS0082A`), and the portrait's edge on its left ("5COUPS0082A"). The
            // number is printed under the label, from its start on.
            let line = &lines[at];
            let texts: Vec<&str> = line.text.split(' ').collect();
            let own = (texts.len() == line.words.len())
                .then(|| {
                    let folded: Vec<String> = texts.iter().map(|t| t.to_lowercase()).collect();
                    let first = folded.iter().position(|t| t.contains("permanent"))?;
                    let last = folded.iter().rposition(|t| t.contains("number") || t.starts_with("card"))?;
                    line.words[first..=last.max(first)].iter().map(|w| w.bbox).reduce(|a, b| a.union(&b))
                })
                .flatten();
            let band = match own {
                Some(label) => [
                    label.x.saturating_sub(label.height),
                    label.bottom().min(ph),
                    label.right().saturating_add(label.height / 2).min(pw),
                    label.bottom().saturating_add(3 * label.height.max(8)).min(ph),
                ],
                None => {
                    let label = line.bbox;
                    [
                        label.x.saturating_sub(label.width / 4),
                        label.bottom().min(ph),
                        label.right().saturating_add(label.width / 4).min(pw),
                        label.bottom().saturating_add(3 * label.height.max(8)).min(ph),
                    ]
                }
            };
            (at, band)
        }
        None => {
            let Some(at) = lines.iter().position(|l| {
                let t = l.text.to_lowercase();
                t.contains("income tax") || t.contains("tax department")
            }) else {
                return;
            };
            let header = lines[at].bbox;
            (at, [pw / 4, header.bottom().min(ph), 3 * pw / 4, header.bottom().saturating_add(3 * ph / 10).min(ph)])
        }
    };
    // A PAN as printed, or with one glyph read twice ("WYOPSS8865H"): the parser undoes
    // that (`in_pan::undoubled`) and checks the number as it checks any other line's.
    // Without the label, only one as printed, read with confidence; under it, one read
    // with some confidence (a glared number read "REMPA2043I" for `RFMPA2043L` at
    // confidence 0, seed 24), or one glyph read as its look-alike of the other class
    // ("EROPM24070" for `EROPM2407O`, seed 36, a PAN with a cut corner: its last letter
    // read as a zero), which the parser repairs and counts as a repair.
    let one_repair = |t: &str| idv_cards::printed::repair_positional(t, "AAAAA9999A").is_some_and(|(_, repairs)| repairs <= 1);
    let pan_like = |t: &str| {
        idv_cards::printed::printed_pan(t)
            || (labelled.is_some() && t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) && (t.chars().count() == 11 || one_repair(t)))
    };
    let sure_enough = |l: &idv_vision::ocr::OcrLine| l.confidence >= if labelled.is_some() { NAME_WORD_DOUBT } else { BIRTH_BAND_MIN_CONFIDENCE };
    let band = Reread { after: at, area, whitelist: Some(CAPITALS_AND_DIGITS), upscale: 1 };
    band.read_into(page, lines, engine, |l| l.text.split_whitespace().any(pan_like) && sure_enough(l));
}

/// A date of birth read again on its own, when the page read none under its label: the
/// band under the "Date of Birth" label's line, from a half label height left of the
/// line to a quarter of its length right of "Birth", three heights of that word tall, read as one block of digits and separators. A PAN prints the date at the card's
/// bottom left, beside the signature and above the rounded corner: the page's layout
/// analysis joins it to both and reads the line as nothing ("ie ee" for "18/01/1972",
/// the independent card set's seed 11, a clean PAN; 6 of 22 PANs lost their date so).
/// Read only when no line from the label's to two lines after it holds a date or a
/// token of a date's shape, and kept
/// only when the band holds one (`idv_cards::printed::extract_date`: a day, month and
/// year that exist) read with confidence ([`BIRTH_BAND_MIN_CONFIDENCE`]); it goes in after the label's line, where the parsers take the date
/// under a label, its box in the page's pixels so a hole or cut there still voids it.
fn read_birth_date_band(page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer) {
    let birth_word = |l: &idv_vision::ocr::OcrLine| {
        let words: Vec<&str> = l.text.split(' ').collect();
        (words.len() == l.words.len() && l.text.to_lowercase().contains("of birth"))
            .then(|| words.iter().position(|w| w.to_lowercase().starts_with("birth")).and_then(|i| l.words.get(i)).map(|w| w.bbox))
            .flatten()
    };
    let Some((at, birth)) = lines.iter().enumerate().find_map(|(i, l)| birth_word(l).map(|b| (i, b))) else { return };
    // A date read, or one misread ("49/08/1992": a date's shape, digits and two
    // separators): the band is not read then. Read alone, a date the page misread comes
    // out misread another way ("10/02/1902" for "19/08/1992", seed 8), and nothing tells
    // which reading is right.
    let date_shaped = |t: &str| {
        t.split_whitespace().any(|w| w.chars().filter(char::is_ascii_digit).count() >= 6 && w.chars().filter(|c| matches!(c, '/' | '-' | '.')).count() >= 2)
    };
    if lines.iter().skip(at).take(3).any(|l| idv_cards::printed::extract_date(&l.text).is_some() || date_shaped(&l.text)) {
        return;
    }
    let line = lines[at].bbox;
    let (pw, ph) = page.dimensions();
    let x0 = line.x.saturating_sub(birth.height / 2);
    let x1 = birth.right().saturating_add(birth.right().saturating_sub(line.x) / 4).min(pw);
    let y0 = birth.bottom().min(ph);
    // Three heights of "Birth": the date is printed larger than its label, and a band of
    // two and a half cut a PAN's date's last pixels off, its 2 then read as a 9
    // ("90/05/1957" for 20/05/1957, seed 27, a card with a punch elsewhere).
    let y1 = y0.saturating_add(3 * birth.height.max(8)).min(ph);
    let band = Reread { after: at, area: [x0, y0, x1, y1], whitelist: Some("0123456789/-. "), upscale: 1 };
    band.read_into(page, lines, engine, |l| idv_cards::printed::extract_date(&l.text).is_some() && l.confidence >= BIRTH_BAND_MIN_CONFIDENCE);
}

/// The least confidence (0-100) a birth date band's reading is kept with
/// ([`read_birth_date_band`]): the band is read where the page read nothing, so only a
/// reading the engine is sure of stands in for it.
const BIRTH_BAND_MIN_CONFIDENCE: f32 = 80.0;

/// A twelve-digit identity number read again on its own, when the page read none under
/// its "ID No." label: the band under the label's line, from three of its heights left
/// of it (a fortieth of the card's width from its edge at the nearest) to two and a half
/// times its width right of its start (two fifths of the card's width at the least),
/// four of its heights tall,
/// read as one block of digits. The national identity card prints its number in one
/// bold group at the card's bottom left, under that label; the page's layout analysis
/// can drop the line whole (the independent card set's seed 14, a card in perspective:
/// the label read, no digit under it), or misread it (seed 34, a clean card: "805.2182
/// 86302)" for "7805 2182 8302", the line's box joined to the card's rounded corner and
/// a ghost portrait, its word boxes the whole line). Read only when no line from the
/// label's to two after it holds twelve digits that pass Verhoeff (a number read right,
/// or misread past what the check finds: the parser judges that one), and kept only
/// when the band holds twelve digits that pass Verhoeff
/// (`idv_cards::printed::aadhaar_check`), read with confidence
/// ([`BIRTH_BAND_MIN_CONFIDENCE`]); it goes in after the label's line, where the
/// parser takes a number under its label, its box in the page's pixels so a hole or cut
/// there still voids it.
fn read_id_number_band(page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer) {
    // Its I read as a 1 or an l too ("upera ten / 1D No.", seed 36's card in perspective).
    let id_label = |l: &idv_vision::ocr::OcrLine| {
        let folded: String = l.text.to_lowercase().chars().filter(char::is_ascii_alphanumeric).collect();
        ["idno", "1dno", "ldno", "idnumber"].iter().any(|label| folded.contains(label))
    };
    let Some(at) = lines.iter().position(id_label) else { return };
    // Twelve digits in one token or in groups read apart ("5984 0581 7636", as printed).
    let number = |l: &idv_vision::ocr::OcrLine| {
        let tokens: Vec<&str> = l.text.split_whitespace().collect();
        (0..tokens.len()).any(|i| (i + 1..=tokens.len()).any(|j| idv_cards::printed::aadhaar_check(&tokens[i..j].concat()) == idv_cards::printed::FieldCheck::Passed))
    };
    if lines.iter().skip(at).take(3).any(number) {
        return;
    }
    let label = lines[at].bbox;
    let (pw, ph) = page.dimensions();
    // From three label heights left of the label: its Hindi words, before "ID No." and
    // above the number's first digits, may be read in part or not at all (seed 27, a
    // tilted card: the label read from 60 px right of where it is printed, the band cut
    // the number's first digit off). Not nearer the card's edge than a fortieth of its
    // width, the print's margin: the edge itself, read with the digits, made a JPEG 35
    // card's band unreadable (seed 24).
    let x0 = label.x.saturating_sub(3 * label.height).max((pw / 40).min(label.x));
    // To two and a half label widths from its start, and two fifths of the card's width
    // from the band's start at the least: twelve bold digits take a third of it, and a
    // label read in part is short (seed 34's clean card: "deat / ID No." read 127 px
    // wide from 70 px into the label, the band then ending in the last digit).
    let x1 = label.x.saturating_add(5 * label.width / 2).max(x0 + 2 * pw / 5).min(pw);
    // Four label heights tall: the number is printed near twice the label's height, and
    // a label read from its Latin words alone is short (seed 36's card in perspective:
    // "ID No." 20 px tall, the digits' foot 67 px under it; three heights cut it off,
    // and the band read "77904 7915 49423").
    let y0 = label.bottom().min(ph);
    let y1 = y0.saturating_add(4 * label.height.max(8)).min(ph);
    let band = Reread { after: at, area: [x0, y0, x1, y1], whitelist: Some("0123456789 "), upscale: 1 };
    band.read_into(page, lines, engine, |l| number(l) && l.confidence >= BIRTH_BAND_MIN_CONFIDENCE);
}

/// A voter card's EPIC number read again on its own, when the page read none as
/// printed (three capitals, seven digits) but a word of its shape give or take a glyph:
/// ten to twelve letters and digits, a capital first, two letters or more (of either
/// case) and six digits or more. Its word's box, half a height wider above and below and a height either
/// side, is read as one block of capitals and digits. The page reads the big bold
/// number beside the portrait and the barcode, and now and then with a glyph too many
/// ("VVIJ2552814" for `VVJ2552814`, the independent set's seed 24, a clean card:
/// the parser cannot tell which glyph is the extra one, `in_voter::find_epic`); alone,
/// it reads as printed. The reading is kept only when it holds an EPIC number as
/// printed, read with confidence ([`BIRTH_BAND_MIN_CONFIDENCE`]), at most two edits
/// from the page's word in capitals (the same number, not another one), and goes in before the
/// word's line, so the parser takes it first. No line is touched.
fn read_epic_word(page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer) {
    let as_printed = |t: &str| idv_cards::printed::epic_check(t) == idv_cards::printed::FieldCheck::Passed;
    if lines.iter().any(|l| l.text.split(|c: char| !c.is_alphanumeric()).any(as_printed)) {
        return;
    }
    let epic_shaped = |t: &str| {
        let n = t.chars().count();
        (10..=12).contains(&n)
            && t.chars().all(|c| c.is_ascii_alphanumeric())
            && t.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            // Letters of either case: the page reads the number's bold capitals as their
            // lowercase now and then ("Qsyv6494481" for QSY6494481, confidence 11, the
            // independent set's seed 27, a card with a cut corner).
            && t.chars().filter(char::is_ascii_alphabetic).count() >= 2
            && t.chars().filter(char::is_ascii_digit).count() >= 6
    };
    let found = lines.iter().enumerate().find_map(|(i, l)| {
        let texts: Vec<&str> = l.text.split(' ').collect();
        if texts.len() != l.words.len() {
            return None;
        }
        texts.iter().zip(&l.words).find_map(|(t, w)| {
            let core = t.trim_matches(|c: char| !c.is_alphanumeric());
            epic_shaped(core).then(|| (i, core.to_ascii_uppercase().chars().collect::<Vec<char>>(), w.bbox))
        })
    });
    let Some((at, word, bbox)) = found else { return };
    let (pw, ph) = page.dimensions();
    let area = [
        bbox.x.saturating_sub(bbox.height),
        bbox.y.saturating_sub(bbox.height / 2),
        bbox.right().saturating_add(bbox.height).min(pw),
        bbox.bottom().saturating_add(bbox.height / 2).min(ph),
    ];
    let same_number = |t: &str| as_printed(t) && idv_cards::printed::edit_distance(&t.chars().collect::<Vec<char>>(), &word) <= 2;
    let before = lines.len();
    let band = Reread { after: at, area, whitelist: Some(CAPITALS_AND_DIGITS), upscale: 1 };
    band.read_into(page, lines, engine, |l| l.text.split_whitespace().any(same_number) && l.confidence >= BIRTH_BAND_MIN_CONFIDENCE);
    if lines.len() > before {
        // In before the page's word, which the parser would otherwise take first.
        lines.swap(at, at + 1);
    }
}

/// A sex read again on its own, when the page read its label ("Sex", "Gender") but no
/// sex after it on its line or the next: the label's line from half a height left of
/// it to six heights right of the label, half a height above and below, read as one
/// block. A voter card prints "Sex : F", the value one bold letter; the page reads the
/// colon and the letter as something else ("Sex 7h", the independent set's seed 24, a
/// clean card; 7 of the voter cards of seeds 18-24 lost their sex so); alone, the line
/// reads as printed. Kept only when the reading holds the label and a sex after it
/// (`idv_cards::printed::gender_value`, single letters too), read with confidence
/// ([`BIRTH_BAND_MIN_CONFIDENCE`]); it goes in after the label's line, where the
/// parsers look for a labelled value.
fn read_sex_band(page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer) {
    let is_label = |w: &str| {
        // The colon and the value glued to the label are read into its word at times
        // ("Sexi" for "Sex: F", seed 19, a voter card in perspective).
        let folded: String = w.chars().filter(char::is_ascii_alphabetic).collect::<String>().to_lowercase();
        (folded.starts_with("sex") && folded.len() <= 7) || (folded.starts_with("gender") && folded.len() <= 9)
    };
    // The words after the label in `text`, when its first three words hold one.
    let after_label = |text: &str| -> Option<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let i = words.iter().take(3).position(|w| is_label(w))?;
        Some(words[i + 1..].join(" "))
    };
    let read_sex = |text: &str| after_label(text).is_some_and(|rest| idv_cards::printed::gender_value(&rest, true).is_some());
    let found = lines.iter().enumerate().find_map(|(i, l)| {
        let texts: Vec<&str> = l.text.split(' ').collect();
        if texts.len() != l.words.len() {
            return None;
        }
        let label = texts.iter().take(3).position(|w| is_label(w))?;
        Some((i, l.bbox, l.words[label].bbox))
    });
    let Some((at, line, label)) = found else { return };
    let next_holds = lines.get(at + 1).is_some_and(|l| idv_cards::printed::gender_value(&l.text, true).is_some());
    if read_sex(&lines[at].text) || next_holds {
        return;
    }
    let (pw, ph) = page.dimensions();
    let h = label.height.max(8);
    let area = [
        line.x.saturating_sub(h / 2),
        line.y.saturating_sub(h / 2),
        label.right().saturating_add(6 * h).min(pw),
        line.bottom().saturating_add(h / 2).min(ph),
    ];
    let keep = |l: &idv_vision::ocr::OcrLine| read_sex(&l.text) && l.confidence >= BIRTH_BAND_MIN_CONFIDENCE;
    let before = lines.len();
    Reread { after: at, area, whitelist: None, upscale: 1 }.read_into(page, lines, engine, keep);
    // Print under 30 pixels tall that read as nothing is read again twice as large
    // ("Sexi" for "Sex: F" at 24 pixels, seed 19, a voter card in perspective).
    if lines.len() == before && h < 30 {
        Reread { after: at, area, whitelist: None, upscale: 2 }.read_into(page, lines, engine, keep);
    }
}

/// How far apart (in its words' heights) what the page read into one line is set for
/// it to be another column's: a line's words are half a height apart, a label's or a
/// name's words and a chip or a value beside them several.
const COLUMN_GAP: f32 = 3.0;

/// Least confidence (0-100) of a word of a name the page read, below which the name's
/// line is read again on its own ([`read_name_bands`]).
const NAME_WORD_DOUBT: f32 = 60.0;

/// Whether `line` is a name's label alone on its line ("ama / Name", "fat ar ara /
/// Father's Name", "Given Name(s)"): its last word "Name", "Names" or "Surname", nothing
/// but punctuation after it. What the page read into the line more than three of its
/// words' heights after a word ([`COLUMN_GAP`]: "ama / Name ES x", a chip's top read
/// 469 pixels right of a 17-pixel "Name", the independent set's seed 22, noisy) is
/// another column's, not the label's.
fn name_label_line(line: &idv_vision::ocr::OcrLine) -> bool {
    let texts: Vec<&str> = line.text.split(' ').collect();
    let column = if texts.len() == line.words.len() {
        let h = middle_height(line.words.iter().map(|w| w.bbox.height)).unwrap_or(0) as f32;
        let apart = line.words.windows(2).position(|p| p[1].bbox.x as f32 > p[0].bbox.right() as f32 + COLUMN_GAP * h);
        apart.map_or(texts.len(), |i| i + 1)
    } else {
        texts.len()
    };
    let last = texts[..column].iter().rev().find(|w| w.chars().any(char::is_alphanumeric));
    last.is_some_and(|w| {
        let letters: String = w.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        letters.ends_with("name") || letters.ends_with("names") || letters == "surname"
    })
}

/// A name under its label read again on its own, when the page read a word of it with
/// little confidence ([`NAME_WORD_DOUBT`]), with a character no name holds, with an
/// unsure word left of the label's start, or with a signature after it
/// ([`signature_after`], left out of the band): the
/// words of the line under a name's label alone on its line ([`name_label_line`]) that
/// start right of the label's start (the portrait left of it joins the line: "Gy
/// _C«DEEEPIKA BANERJEE", the independent card set's seed 16, a clean national identity
/// card), their box grown by a third of its height, read as one block (no character
/// whitelist: with one, Tesseract drops the spaces between words, "MAHESHLALMISHRA" at
/// confidence 0). The page's layout analysis reads a name beside the portrait or the
/// signature with what is around it ("MAHESH LAL MISHRA)", seed 16, a clean PAN): alone,
/// both read as printed, at confidence 96. The reading replaces the line only when the
/// engine is sure of it ([`BIRTH_BAND_MIN_CONFIDENCE`]), it holds a name's words
/// (`idv_cards::printed::plausible_latin_name`) and, where the page read a name with an
/// unsure word (no character a name does not hold), it has that name's letters; the
/// parsers then judge it as any line.
fn read_name_bands(page: &image::GrayImage, lines: &mut [idv_vision::ocr::OcrLine], engine: &dyn TextRecognizer) {
    const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.'-";
    let (pw, ph) = page.dimensions();
    for i in 1..lines.len() {
        if !name_label_line(&lines[i - 1]) {
            continue;
        }
        let label = lines[i - 1].bbox;
        let value = &lines[i];
        let texts: Vec<&str> = value.text.split(' ').collect();
        if texts.len() != value.words.len() {
            continue;
        }
        let start = label.x.saturating_sub(label.height);
        let mut words: Vec<(&str, &idv_vision::ocr::TsvWord)> = texts.into_iter().zip(&value.words).filter(|(_, w)| w.bbox.x >= start).collect();
        // Unsure words left of the label's start are the portrait's ("PIN KULKARNI",
        // its hair read as a word 105 pixels left of a passport's surname, the independent
        // set's seed 22, a cut corner): the name is read without them.
        let strayed = value.words.iter().any(|w| w.bbox.x < start && w.confidence.is_none_or(|c| c < NAME_WORD_DOUBT));
        let signature = signature_after(&words);
        let signed = signature < words.len();
        words.truncate(signature);
        // A line of words none of which has a capital holds no name as the page read it
        // ("ee" for JYOTI NAIR, a PAN's mother's name read with the signature beside it
        // into one 99-pixel line, the independent set's seed 22, clean): no letters of it
        // to keep, as of a garbled one.
        let garbled = words.iter().any(|(t, _)| t.chars().any(|c| !(c.is_alphabetic() || LETTERS.contains(c))))
            || words.iter().all(|(t, _)| !t.chars().any(char::is_uppercase));
        // Print the page read no word of right after the name's last word, as close as a
        // letter is to the next: a letter the engine dropped ("MENO" of MENON, seed 22's
        // dark PAN, at confidence 91).
        let letter_after = if signed { None } else { words.last().and_then(|(_, w)| letter_after(page, w.bbox)) };
        let doubtful = words.iter().any(|(_, w)| w.confidence.is_some_and(|c| c < NAME_WORD_DOUBT));
        let overdrawn = overdrawn_words(&words);
        let Some(first) = words.first().map(|(_, w)| w.bbox) else { continue };
        if !garbled && !doubtful && !signed && !strayed && letter_after.is_none() {
            continue;
        }
        let letters_of = |text: &str| -> String { text.chars().filter(|c| c.is_alphabetic()).flat_map(char::to_uppercase).collect() };
        let read_letters = letters_of(&words.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(" "));
        let mut b = words.iter().fold(first, |b, (_, w)| b.union(&w.bbox));
        // An overdrawn word's box holds the signature's strokes above and below the
        // line: the band is as tall as the name's other words.
        if overdrawn.iter().any(|&o| o) {
            let clear = words.iter().zip(&overdrawn).filter(|(_, &o)| !o).map(|((_, w), _)| w.bbox);
            if let Some(rows) = clear.reduce(|a, w| a.union(&w)) {
                b = idv_vision::ocr::TextBox { y: rows.y, height: rows.height, ..b };
            }
        }
        let pad = b.height / 3;
        let right = letter_after.unwrap_or(0).max(b.right());
        let area = [b.x.saturating_sub(pad), b.y.saturating_sub(pad), right.saturating_add(pad).min(pw), b.bottom().saturating_add(pad).min(ph)];
        let [x0, y0, x1, y1] = area;
        if x1 <= x0 + 8 || y1 <= y0 + 8 {
            continue;
        }
        let band = image::imageops::crop_imm(page, x0, y0, x1 - x0, y1 - y0).to_image();
        let params = OcrParams { lang: "eng", char_whitelist: None, layout: Layout::Block, confidences: true };
        let Ok(mut read) = engine.read_lines(&band, &params) else { continue };
        // A name's last word overdrawn by a signature is read alone with the strokes
        // beyond it as marks ("CHAUHAN?’", seed 22's clean PAN, the signature drawn over
        // its end): no name ends in them.
        if overdrawn.last() == Some(&true) {
            read.iter_mut().for_each(trim_trailing_marks);
        }
        // A name read with a character no name holds is no name as read: a sure reading
        // stands for it. One read as a name, a word of it unsure, only loses its marks
        // ("IMRAN." of IMRAN, seed 16's noisy passport): its letters must stay, since a
        // blurred name read alone is no surer than on the page ("CHAUBAN" of CHAUHAN,
        // seed 15's blurred voter card, at confidence 80 or more).
        //
        // A word overdrawn by a signature ("SHATIPSIER" for CHATTERJEE under a PAN's
        // signature, seed 18, clean) is read again whole, but the name's other words,
        // read with confidence, keep their letters; the overdrawn word must be read as
        // letters (a "?’" there is a word lost, not a name of two words).
        let sure_words_kept = |l: &idv_vision::ocr::OcrLine| {
            let again: Vec<&str> = l.text.split_whitespace().collect();
            again.len() == words.len()
                && words.iter().zip(&overdrawn).zip(&again).all(|(((t, w), &o), a)| if o { letters_of(a).chars().count() >= 2 } else { w.confidence.is_some_and(|c| c < NAME_WORD_DOUBT) || letters_of(t) == letters_of(a) })
        };
        // With a letter after the name, the reading alone keeps the page's letters and
        // adds one or two at the end, no more.
        let letters_added = |l: &idv_vision::ocr::OcrLine| {
            let again = letters_of(&l.text);
            letter_after.is_some() && again.starts_with(&read_letters) && (1..=2).contains(&(again.chars().count() - read_letters.chars().count())) && l.text.split_whitespace().count() == words.len()
        };
        let kept = |l: &idv_vision::ocr::OcrLine| garbled || letters_of(&l.text) == read_letters || letters_added(l) || (overdrawn.iter().any(|&o| o) && sure_words_kept(l));
        if let Some(found) = read.into_iter().find(|l| l.confidence >= BIRTH_BAND_MIN_CONFIDENCE && idv_cards::printed::plausible_latin_name(&l.text, l.confidence / 100.0) && kept(l)) {
            lines[i] = found.moved(x0, y0);
        }
    }
}

/// Where print right after a word's box ends (page pixels), when it looks like a letter
/// the engine dropped from the word's end: ink starting within a third of the word's
/// height after its box (letters are closer, words further), running on with gaps no
/// wider than a quarter of that height, between a third and one and a half heights wide,
/// within the word's rows (nothing inked in the half height above or below it: a
/// signature's strokes run off the line). `None` otherwise. Ink is what is darker than
/// halfway between the word box's 5th and 95th percentiles.
fn letter_after(page: &image::GrayImage, word: idv_vision::ocr::TextBox) -> Option<u32> {
    let (pw, ph) = page.dimensions();
    let h = word.height;
    if h < 8 || word.width == 0 || word.bottom() > ph || word.right() >= pw {
        return None;
    }
    let mut levels: Vec<u8> = (word.y..word.bottom()).flat_map(|y| (word.x..word.right()).map(move |x| (x, y))).map(|(x, y)| page.get_pixel(x, y).0[0]).collect();
    levels.sort_unstable();
    let at = |q: f32| levels.get(((levels.len() - 1) as f32 * q) as usize).copied().unwrap_or(0);
    let (ink, paper) = (at(0.05), at(0.95));
    if paper <= ink.saturating_add(40) {
        return None;
    }
    let threshold = (u16::from(ink) + u16::from(paper)) / 2;
    let inked_rows = |x: u32, y0: u32, y1: u32| (y0..y1.min(ph)).filter(|&y| u16::from(page.get_pixel(x, y).0[0]) < threshold).count() as u32;
    let inked = |x: u32| x < pw && inked_rows(x, word.y, word.bottom()) >= (h / 7).max(2);
    let start = (word.right()..word.right() + h / 3).find(|&x| inked(x))?;
    let (mut end, mut gap) = (start, 0);
    let mut x = start;
    while x < pw && x < start + 2 * h {
        if inked(x) {
            end = x + 1;
            gap = 0;
        } else {
            gap += 1;
            if gap > h / 4 {
                break;
            }
        }
        x += 1;
    }
    let width = end - start;
    let off_line = (start..end).any(|x| inked_rows(x, word.y.saturating_sub(h / 2), word.y) > 0 || inked_rows(x, word.bottom(), word.bottom() + h / 2) > 0);
    (3 * width >= h && 2 * width <= 3 * h && !off_line).then_some(end)
}

/// A line without the marks read after its last word's letters and digits ("CHAUHAN?’"
/// → "CHAUHAN"): its text, its last word's character count and its symbols (where they
/// are the words' characters) lose them. A last word of marks only is left as it is.
fn trim_trailing_marks(line: &mut idv_vision::ocr::OcrLine) {
    let Some(end) = line.text.char_indices().rev().find(|(_, c)| c.is_alphanumeric()).map(|(i, c)| i + c.len_utf8()) else { return };
    let last_word_start = line.text.rfind(' ').map_or(0, |i| i + 1);
    if end <= last_word_start {
        return;
    }
    let cut = line.text[end..].chars().count();
    if cut == 0 {
        return;
    }
    let symbols_are_words = line.symbols.len() == line.words.iter().map(|w| w.chars).sum::<usize>();
    line.text.truncate(end);
    if let Some(w) = line.words.last_mut() {
        w.chars = w.chars.saturating_sub(cut);
    }
    if symbols_are_words {
        line.symbols.truncate(line.symbols.len().saturating_sub(cut));
    }
}

/// A name the page read no line of under its label: the label alone on its line
/// ([`name_label_line`]) and the page's next line more than one and a half label heights
/// below it, where a value's line would be (a dark PAN whose holder's name the page
/// dropped, "ama / Name" and then "Father's Name" 79 pixels lower at 31 a line, the
/// independent set's seed 23). The band under the label, from half its height left of
/// it, across half the page, down to the next line (at most three label heights), is read
/// as one block with no whitelist (a whitelist drops the spaces between words), and its
/// first line read surely ([`BIRTH_BAND_MIN_CONFIDENCE`]) as a Latin name
/// (`idv_cards::printed::plausible_latin_name`) goes in after the label, its box in the
/// page's pixels; nothing otherwise.
fn read_missing_name_bands(page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer) {
    let (pw, ph) = page.dimensions();
    let mut i = 0;
    while i < lines.len() {
        let label = lines[i].bbox;
        let next_top = lines.get(i + 1).map_or(ph, |l| l.bbox.y);
        let h = label.height.max(8);
        if !name_label_line(&lines[i]) || (next_top as f32) < label.bottom() as f32 + 1.5 * h as f32 {
            i += 1;
            continue;
        }
        let (x0, y0) = (label.x.saturating_sub(h / 2), label.bottom().min(ph));
        let (x1, y1) = (label.x.saturating_add(pw / 2).min(pw), next_top.min(y0.saturating_add(3 * h)).min(ph));
        let before = lines.len();
        let band = Reread { after: i, area: [x0, y0, x1, y1], whitelist: None, upscale: 1 };
        band.read_into(page, lines, engine, |l| l.confidence >= BIRTH_BAND_MIN_CONFIDENCE && idv_cards::printed::plausible_latin_name(&l.text, l.confidence / 100.0));
        // Past the label, and past the name where one went in.
        i += 1 + (lines.len() - before);
    }
}

/// Capitals that reach below the line in a serif face (J, and Q's tail).
const DESCENDING_CAPITALS: [char; 2] = ['J', 'Q'];

/// How far below a word of capitals beside it (in that word's height) a word of
/// capitals must reach for a letter of it to be one that descends ([`DESCENDING_CAPITALS`]).
const DESCENT_SHARE: f32 = 0.2;

/// A word of capitals the page read with no letter that descends, whose box reaches
/// below the line's capitals as only a J or Q does ("VISAY" for VIJAY, 31 pixels tall
/// beside "DAS"'s 24, tops level, the independent set's seed 33, a clean voter card:
/// the serif J's tail read as an S's bottom), is read again: the line's band at twice
/// its size, as one block. The reading replaces the line only where it has the same
/// words, each word but that one the same characters, and that one the same count of
/// characters, differing only where it now reads a J or a Q: the reading alone changes
/// nothing but the letter the depth of the box said was misread. Words ending in a mark
/// that descends (a comma) are neither looked at nor compared with.
fn read_descending_capitals(page: &image::GrayImage, lines: &mut [idv_vision::ocr::OcrLine], engine: &dyn TextRecognizer) {
    let (pw, ph) = page.dimensions();
    let capitals = |t: &str| t.chars().count() >= 2 && t.chars().all(|c| c.is_ascii_uppercase());
    for line in lines.iter_mut() {
        let texts: Vec<&str> = line.text.split(' ').collect();
        if texts.len() != line.words.len() {
            continue;
        }
        let level: Vec<(usize, idv_vision::ocr::TextBox)> =
            texts.iter().zip(&line.words).enumerate().filter(|(_, (t, _))| capitals(t) && !t.contains(DESCENDING_CAPITALS)).map(|(i, (_, w))| (i, w.bbox)).collect();
        let descends = |(i, b): &(usize, idv_vision::ocr::TextBox)| {
            let nearest = level.iter().filter(|(j, _)| j != i).min_by_key(|(j, _)| j.abs_diff(*i)).map(|(_, n)| *n);
            nearest.is_some_and(|n| {
                let h = n.height as f32;
                (b.y as f32 - n.y as f32).abs() <= DESCENT_SHARE * h / 2.0 && b.bottom() as f32 >= n.bottom() as f32 + (DESCENT_SHARE * h).max(2.0)
            })
        };
        let Some(&(suspect, _)) = level.iter().find(|w| descends(w)) else { continue };
        let b = line.bbox;
        let pad = b.height / 3;
        let area = [b.x.saturating_sub(pad), b.y.saturating_sub(pad), b.right().saturating_add(pad).min(pw), b.bottom().saturating_add(pad).min(ph)];
        let before = texts.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let only_the_descending_letter = |l: &idv_vision::ocr::OcrLine| {
            let again: Vec<&str> = l.text.split(' ').collect();
            again.len() == before.len()
                && before.iter().zip(&again).enumerate().all(|(i, (old, new))| {
                    if i != suspect {
                        return old == new;
                    }
                    old.chars().count() == new.chars().count()
                        && old.chars().zip(new.chars()).any(|(o, n)| o != n)
                        && old.chars().zip(new.chars()).all(|(o, n)| o == n || DESCENDING_CAPITALS.contains(&n))
                })
        };
        if let Some(found) = (Reread { after: 0, area, whitelist: None, upscale: 2 }).read(page, engine, only_the_descending_letter) {
            *line = found;
        }
    }
}

/// Which of a name's words (as the page read them) a signature or stamp is drawn over:
/// read with little confidence ([`NAME_WORD_DOUBT`]) and half as tall again as the
/// middle of the others or more, as only strokes above and below the line make a word
/// (a PAN's father's name running under the signature: "SHATIPSIER" of CHATTERJEE, 93
/// pixels tall beside its words' 34, the independent set's seed 18). A name of one word
/// of letters has none to compare with: none.
fn overdrawn_words(words: &[(&str, &idv_vision::ocr::TsvWord)]) -> Vec<bool> {
    words
        .iter()
        .enumerate()
        .map(|(i, (_, w))| {
            // Only words of letters set the height: a dash or a dot read after a name is
            // short ("IMRAN. -", seed 16), and a name's word beside it is not overdrawn.
            let others = words.iter().enumerate().filter(|&(j, (t, _))| j != i && t.chars().filter(|c| c.is_alphabetic()).count() >= 2);
            let Some(middle) = middle_height(others.map(|(_, (_, o))| o.bbox.height)) else { return false };
            w.confidence.is_some_and(|c| c < NAME_WORD_DOUBT) && w.bbox.height as f32 >= 1.5 * middle as f32
        })
        .collect()
}

/// The middle (upper median) of words' heights; `None` for no words. A name's or a
/// line's usual height, against which a signature's or a portrait edge's tall box is
/// told ([`signature_after`], [`overdrawn_words`], [`drop_leading_debris`]).
fn middle_height(heights: impl Iterator<Item = u32>) -> Option<u32> {
    let mut heights: Vec<u32> = heights.collect();
    heights.sort_unstable();
    heights.get(heights.len() / 2).copied()
}

/// Where a signature beside a name starts among the name's words as the page read them
/// (a PAN's, right of the father's name: "HARPREET DESHMUKH yssv", "GOPAL BHATT eS
/// Wels", the independent set's seed 16, noisy and in perspective); `words.len()` when
/// none does. A signature is the words at the line's end that are each read with little
/// confidence ([`NAME_WORD_DOUBT`]) and half as tall again as the name's words or more,
/// the first of them set apart from the name by more than the name's height (a name's
/// words are half a height apart). Such words are no words of the name, and, that far
/// from it, no word of the name is hidden in them: a word printed after the name at its
/// usual spacing would have been read into the signature's box, and the box would start
/// at it. A mark of no letter or digit after it (a "|" read at the card's edge, seed 20's
/// PAN at JPEG quality 35: "ROHIT CHATTERJEE apy awe |") goes with it. Unsure words of
/// no capital, none of them tall, go too where they are set apart as another column
/// ([`COLUMN_GAP`]), and so does an unsure word not in capitals a column away from a
/// name in capitals (not one in capitals: glare may have washed out what was between).
fn signature_after(words: &[(&str, &idv_vision::ocr::TsvWord)]) -> usize {
    let trailing_mark = words.len() > 1 && words.last().is_some_and(|(text, _)| !text.chars().any(char::is_alphanumeric));
    let end = words.len() - usize::from(trailing_mark);
    let mut start = end;
    let mut h = 0.0;
    let mut tall_seen = false;
    while start > 1 {
        h = middle_height(words[..start - 1].iter().map(|(_, w)| w.bbox.height)).unwrap_or(0) as f32;
        let (text, w) = words[start - 1];
        let tall = w.bbox.height as f32 >= 1.5 * h;
        // A mark's smaller part read as lower-case letters ("e moh" after a national
        // identity card's name, the "e" the chip's edge 98 px tall, "moh" 20 px: the
        // independent set's seed 21, noisy) goes with the tall words: a name's word
        // starts with a capital.
        let tail = !text.chars().any(char::is_uppercase);
        // An unsure word not in capitals a column away from a name in capitals is
        // another column's ("SNEHA SHAH Sassi", a national identity card's chip read 324
        // pixels after a 31-pixel name at confidence 5, the independent set's seed 26,
        // dark). A word in capitals may be the name's own past a gap that glare washed
        // out ("VENKATESH K ... YADAV"): taken off, the line would no longer reach the
        // glare spot, and the name cut short would be given.
        let capitals = |t: &str| t.chars().any(char::is_alphabetic) && t.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
        let apart = start >= 2
            && !capitals(text)
            && words[..start - 1].iter().all(|(t, _)| capitals(t))
            && w.bbox.x as f32 > words[start - 2].1.bbox.right() as f32 + COLUMN_GAP * h;
        // A word twice the name's height not in capitals is a pen's stroke however sure
        // the engine is of it ("SANDEEP AGARWAL irnZ7 yy", "yy" 83 pixels tall beside 31
        // at confidence 69: the independent set's seed 36, a PAN in perspective): no
        // card prints a word so tall on a name's line, and a label or a value beside a
        // name is printed in capitals or Title Case at a label's height.
        // So is a word of that height in Title Case beside such a stroke ("RAMESH MISHRA
        // yore Ds", "yore" and "Ds" 93 pixels tall beside 34, "Ds" at confidence 88: the
        // independent set's seed 37, a PAN at JPEG quality 35): a pen's strokes, one read
        // starting with a capital.
        let pen_height = |(t, w): &(&str, &idv_vision::ocr::TsvWord)| w.bbox.height as f32 >= SIGNATURE_HEIGHT * h && !capitals(t);
        let lower_case_stroke = |word: &(&str, &idv_vision::ocr::TsvWord)| pen_height(word) && !word.0.chars().next().is_some_and(char::is_uppercase);
        let stroke = lower_case_stroke(&words[start - 1]) || (pen_height(&words[start - 1]) && words[..end].iter().any(lower_case_stroke));
        if (w.confidence.is_some_and(|c| c < NAME_WORD_DOUBT) && (tall || tail || apart)) || stroke {
            tall_seen |= tall;
            start -= 1;
        } else {
            break;
        }
    }
    // Unsure words of no capital alone, of the name's height, are no mark of a pen but
    // may be a name's word misread: they go only when set apart as another column would
    // be ([`COLUMN_GAP`]: "Ajay Prasad Rao hear tage", the chip right of a national
    // identity card's name read as words 286 pixels after it at 27 pixels a letter, the
    // independent set's seed 22, noisy).
    match (start.checked_sub(1).and_then(|i| words.get(i)), words.get(start)) {
        (Some((_, name_end)), Some((_, first))) if start < end => {
            let gap = first.bbox.x as f32 - name_end.bbox.right() as f32;
            if (tall_seen && gap > h) || gap > COLUMN_GAP * h {
                start
            } else {
                words.len()
            }
        }
        _ => words.len(),
    }
}

/// How many times a name's words' height a word after them not in capitals is tall to be
/// taken for a signature's stroke whatever its confidence ([`signature_after`]).
const SIGNATURE_HEIGHT: f32 = 2.0;

/// The characters a band holding an identifier is read with: capitals, digits and the
/// space. Without the space Tesseract reads a number printed in groups as one word and
/// gives it confidence 0 ("598405817636" for "5984 0581 7636", the independent set's
/// seed 24, a national identity card at JPEG quality 35; read with it, 96 per word).
const CAPITALS_AND_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ";

/// A band of the page read again on its own (the band readers above): its area in the
/// page's pixels `[x0, y0, x1, y1]`, the characters it may hold (`None`: any, as for a
/// name, whose spaces a whitelist drops), the line after which its reading goes in, and
/// how many times larger it is read (1: as on the page).
struct Reread {
    after: usize,
    area: [u32; 4],
    whitelist: Option<&'static str>,
    upscale: u32,
}

impl Reread {
    /// Reads the band as one block and puts its first line that `keep` accepts after
    /// line `self.after`, its box moved into the page's pixels (so a hole or cut there
    /// still voids what it holds). A band under 9 pixels either way is not read.
    fn read_into(&self, page: &image::GrayImage, lines: &mut Vec<idv_vision::ocr::OcrLine>, engine: &dyn TextRecognizer, keep: impl Fn(&idv_vision::ocr::OcrLine) -> bool) {
        if let Some(found) = self.read(page, engine, keep) {
            lines.insert(self.after + 1, found);
        }
    }

    /// The band's first line that `keep` accepts, its box in the page's pixels.
    fn read(&self, page: &image::GrayImage, engine: &dyn TextRecognizer, keep: impl Fn(&idv_vision::ocr::OcrLine) -> bool) -> Option<idv_vision::ocr::OcrLine> {
        let [x0, y0, x1, y1] = self.area;
        if x1 <= x0 + 8 || y1 <= y0 + 8 {
            return None;
        }
        let mut band = image::imageops::crop_imm(page, x0, y0, x1 - x0, y1 - y0).to_image();
        let upscale = self.upscale.clamp(1, 4);
        if upscale > 1 {
            band = image::imageops::resize(&band, band.width() * upscale, band.height() * upscale, image::imageops::FilterType::CatmullRom);
        }
        let params = OcrParams { lang: "eng", char_whitelist: self.whitelist, layout: Layout::Block, confidences: true };
        let read = engine.read_lines(&band, &params).ok()?;
        read.into_iter().find(|l| keep(l)).map(|found| found.unscaled(upscale as f32, x0, y0))
    }
}

/// `img` resized to `width` (aspect kept), or as is when it already is that wide.
fn scaled_to_width(img: &RgbImage, width: u32) -> RgbImage {
    let (w, h) = img.dimensions();
    if w == width || w == 0 || h == 0 {
        return img.clone();
    }
    let height = ((u64::from(h) * u64::from(width)) / u64::from(w)).clamp(1, u64::from(idv_vision::ocr::MAX_SIDE)) as u32;
    // A phone photo brought to a page (half its width or less): area averaging in one
    // pass, 57-64 ms against the triangle filter's 184-192 ms from 4,032 px to 1,200.
    // Nearer sizes keep the filter the card sanity thresholds were set with.
    if w >= 2 * width && height <= h {
        if let Some(shrunk) = idv_vision::resize::shrink_rgb_image(img, width, height) {
            return shrunk;
        }
    }
    image::imageops::resize(img, width, height, image::imageops::FilterType::Triangle)
}

#[cfg(test)]
mod tests {
    use idv_vision::ocr::{OcrError, OcrLine, OcrParams, TextBox, TextRecognizer};
    use std::sync::Mutex;

    /// An engine that reads one line, `answer` at `bbox`, from any band it is given (a
    /// band `larger.0` pixels wide or more as `larger.1`: small print read as nothing,
    /// larger as printed), and keeps what it was asked (the band's size, the characters
    /// allowed).
    struct Band {
        answer: &'static str,
        confidence: f32,
        bbox: TextBox,
        larger: Option<(u32, &'static str)>,
        asked: Mutex<Vec<(u32, u32, Option<String>)>>,
    }

    impl Band {
        fn new(answer: &'static str, confidence: f32, bbox: TextBox) -> Band {
            Band { answer, confidence, bbox, larger: None, asked: Mutex::new(Vec::new()) }
        }
    }

    impl TextRecognizer for Band {
        fn read_lines(&self, image: &image::GrayImage, params: &OcrParams<'_>) -> Result<Vec<OcrLine>, OcrError> {
            self.asked.lock().map_err(|_| OcrError::Failed("lock".into()))?.push((image.width(), image.height(), params.char_whitelist.map(str::to_string)));
            let text = match self.larger {
                Some((wide, large)) if image.width() >= wide => large,
                _ => self.answer,
            };
            Ok(vec![OcrLine { text: text.into(), confidence: self.confidence, bbox: self.bbox, symbols: Vec::new(), words: Vec::new() }])
        }
        fn has_language(&self, _: &str) -> bool {
            true
        }
        fn describe(&self) -> String {
            "band".into()
        }
    }

    /// A name the page dropped under its label (seed 23's dark PAN: "ama / Name", then
    /// "Father's Name" 79 pixels lower) is read from the band under the label, and goes
    /// in after it. Must-fail twins: a label whose value line the page read is not read
    /// again; a band read unsurely, or as no name, adds nothing.
    #[test]
    fn a_name_the_page_dropped_under_its_label_is_read_from_its_band() {
        let line = |text: &str, x: u32, y: u32, width: u32, height: u32| OcrLine { text: text.into(), confidence: 80.0, bbox: TextBox { x, y, width, height }, symbols: Vec::new(), words: Vec::new() };
        let page = image::GrayImage::new(1200, 757);
        let dropped = || vec![line("ama / Name", 45, 436, 131, 31), line("fact er ara / Father's Name", 45, 546, 318, 36), line("MAHESH KUMAR PATEL", 49, 596, 491, 32)];
        let engine = Band::new("GEETA PATEL", 92.0, TextBox { x: 20, y: 20, width: 240, height: 31 });
        let mut lines = dropped();
        super::read_missing_name_bands(&page, &mut lines, &engine);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["ama / Name", "GEETA PATEL", "fact er ara / Father's Name", "MAHESH KUMAR PATEL"]);
        assert_eq!(lines[1].bbox, TextBox { x: 45 - 15 + 20, y: 467 + 20, width: 240, height: 31 }, "in the page's pixels");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!(asked, [(600 + 15, 546 - 467, None)], "from half a label height left of it, half the page wide, down to the next line, no whitelist");
        let f = idv_cards::printed::parse_printed("in.pan", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "name").map(|x| x.value.as_str()), Some("GEETA PATEL"));
        // The value line read: nothing asked.
        let engine = Band::new("GEETA PATEL", 92.0, TextBox { x: 20, y: 20, width: 240, height: 31 });
        let mut read = vec![line("ama / Name", 45, 436, 131, 31), line("GEETA PATEL", 48, 480, 260, 31), line("fact er ara / Father's Name", 45, 546, 318, 36), line("MAHESH KUMAR PATEL", 49, 596, 491, 32)];
        super::read_missing_name_bands(&page, &mut read, &engine);
        assert_eq!((read.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (4, 0));
        for engine in [Band::new("GEETA PATEL", 60.0, TextBox { x: 20, y: 20, width: 240, height: 31 }), Band::new("geeta patel", 92.0, TextBox { x: 20, y: 20, width: 240, height: 31 })] {
            let mut lines = dropped();
            super::read_missing_name_bands(&page, &mut lines, &engine);
            assert_eq!(lines.len(), 3);
        }
    }

    /// A letter's ink right after a word's box, as close as letters are, is a letter the
    /// engine dropped (seed 22's dark PAN: "MENO" of MENON). Must-fail twins: ink a
    /// word's spacing away, a stroke running off the line, or no ink, is none.
    #[test]
    fn a_letter_right_after_a_words_box_is_told() {
        let page = |blocks: &[(u32, u32, u32, u32)]| {
            image::GrayImage::from_fn(600, 240, |x, y| image::Luma([if blocks.iter().any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y)) { 20 } else { 230 }]))
        };
        let letters = [(100, 100, 126, 132), (134, 100, 160, 132), (168, 100, 194, 132), (202, 100, 228, 132)];
        let word = TextBox { x: 100, y: 100, width: 128, height: 32 };
        let with = |extra: (u32, u32, u32, u32)| page(&[&letters[..], &[extra]].concat());
        assert_eq!(super::letter_after(&with((233, 100, 261, 132)), word), Some(261));
        assert_eq!(super::letter_after(&with((246, 100, 274, 132)), word), None, "a word's spacing away");
        assert_eq!(super::letter_after(&with((233, 70, 261, 150)), word), None, "a stroke off the line");
        assert_eq!(super::letter_after(&page(&letters), word), None, "no ink");
        assert_eq!(super::letter_after(&with((233, 100, 360, 132)), word), None, "a bar longer than letters");
        assert_eq!(super::letter_after(&page(&letters), TextBox { width: 0, ..word }), None, "a box of no width");
        assert_eq!(super::letter_after(&page(&letters), TextBox { x: 590, width: 20, ..word }), None, "off the page");
    }

    /// A word of capitals reaching below its neighbour as only a J does ("VISAY" for
    /// VIJAY, seed 33's clean voter card) is read again, and the reading taken where it
    /// changes that word's misread letter to a J alone. Must-fail twins: a word level with
    /// its neighbour is not read again; a reading that changes another word, or the word
    /// otherwise, is not taken.
    #[test]
    fn a_word_of_capitals_reaching_below_the_line_is_read_again_for_its_j() {
        use idv_vision::ocr::TsvWord;
        let word = |x: u32, width: u32, height: u32| TsvWord { bbox: TextBox { x, y: 382, width, height }, confidence: Some(90.0), chars: 0 };
        let line = |tail: u32| OcrLine {
            text: "Relative's Name: VISAY DAS".into(),
            confidence: 88.0,
            bbox: TextBox { x: 381, y: 381, width: 424, height: 32 },
            symbols: Vec::new(),
            words: vec![word(381, 141, 25), word(534, 95, 24), word(639, 92, tail), word(740, 65, 24)],
        };
        let page = image::GrayImage::new(1200, 757);
        let at = TextBox { x: 10, y: 10, width: 800, height: 50 };
        let read = |tail: u32, answer: &'static str| {
            let engine = Band::new(answer, 95.0, at);
            let mut lines = vec![line(tail)];
            super::read_descending_capitals(&page, &mut lines, &engine);
            let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
            (lines[0].text.clone(), asked)
        };
        let (text, asked) = read(31, "Relative's Name: VIJAY DAS");
        assert_eq!(text, "Relative's Name: VIJAY DAS");
        assert_eq!(asked, [(2 * (424 + 2 * 10), 2 * (32 + 2 * 10), None)], "the line's band, a third of its height around it, at twice its size");
        let (text, asked) = read(24, "Relative's Name: VIJAY DAS");
        assert_eq!((text.as_str(), asked.len()), ("Relative's Name: VISAY DAS", 0), "level with its neighbour");
        for other in ["Relative's Name: VIJAY DAB", "Relative's Name: VIJAT DAS", "Relative's Name: VISAY DAS", "Relatives Name: VIJAY DAS"] {
            assert_eq!(read(31, other).0, "Relative's Name: VISAY DAS", "{other}");
        }
    }

    /// Marks after a line's last letter go, with their symbols and the word's count;
    /// a last word of marks only, or a line ending in a letter, is left as it is.
    #[test]
    fn marks_after_a_lines_last_letter_are_trimmed() {
        use idv_vision::ocr::TsvWord;
        let word = |chars: usize| TsvWord { bbox: TextBox { x: 0, y: 0, width: 9, height: 9 }, confidence: Some(90.0), chars };
        let line = |text: &str, chars: &[usize]| {
            let symbols = text.chars().filter(|c| *c != ' ').map(|c| (c, 90.0)).collect();
            OcrLine { text: text.into(), confidence: 90.0, bbox: TextBox { x: 0, y: 0, width: 9, height: 9 }, symbols, words: chars.iter().map(|&c| word(c)).collect() }
        };
        let mut l = line("PRASAD CHAUHAN?’", &[6, 9]);
        super::trim_trailing_marks(&mut l);
        assert_eq!((l.text.as_str(), l.words[1].chars, l.symbols.len()), ("PRASAD CHAUHAN", 7, 13));
        for (text, chars) in [("PRASAD ?’", vec![6, 2]), ("PRASAD CHAUHAN", vec![6, 7])] {
            let mut l = line(text, &chars);
            super::trim_trailing_marks(&mut l);
            assert_eq!(l.text, text);
        }
    }

    /// A name's word read unsure and half as tall again as its other words is overdrawn
    /// (a signature across "CHATTERJEE", seed 18). Must-fail twins: a word of the name's
    /// height, one read with confidence, or a name beside a short dash ("IMRAN. -", seed
    /// 16) is not.
    #[test]
    fn a_word_a_signature_is_drawn_over_is_told_by_its_height() {
        use idv_vision::ocr::TsvWord;
        let word = |x: u32, y: u32, w: u32, h: u32, c: f32| TsvWord { bbox: TextBox { x, y, width: w, height: h }, confidence: Some(c), chars: 1 };
        let (a, b) = (word(49, 596, 257, 34, 96.0), word(324, 596, 154, 35, 96.0));
        let signed = word(499, 588, 306, 93, 0.0);
        let name = [("ABHISHEK", &a), ("SINGH", &b), ("SHATIPSIER", &signed)];
        assert_eq!(super::overdrawn_words(&name), [false, false, true]);
        let plain = word(499, 596, 306, 35, 0.0);
        assert_eq!(super::overdrawn_words(&[("ABHISHEK", &a), ("SINGH", &b), ("CHATTERJEE", &plain)]), [false, false, false]);
        let sure = word(499, 588, 306, 93, 90.0);
        assert_eq!(super::overdrawn_words(&[("ABHISHEK", &a), ("SINGH", &b), ("CHATTERJEE", &sure)]), [false, false, false]);
        let (imran, dash) = (word(387, 308, 110, 26, 40.0), word(515, 318, 15, 4, 30.0));
        assert_eq!(super::overdrawn_words(&[("IMRAN.", &imran), ("-", &dash)]), [false, false]);
    }

    /// A PAN's signature read after the father's name ("ROHIT CHATTERJEE apy awe |",
    /// seed 20 at JPEG quality 35): tall, unsure words set apart, and a mark at the card's
    /// edge after them. Must-fail: the mark alone after a name is no signature; nor are
    /// tall unsure words at a word's spacing.
    #[test]
    fn a_signature_with_a_mark_after_it_is_told() {
        use idv_vision::ocr::TsvWord;
        let word = |x: u32, w: u32, h: u32, c: f32| TsvWord { bbox: TextBox { x, y: 586, width: w, height: h }, confidence: Some(c), chars: 3 };
        let (rohit, chatterjee) = (word(43, 142, 31, 90.0), word(199, 276, 41, 95.0));
        let (apy, awe, bar) = (word(610, 145, 87, 25.0), word(791, 117, 87, 43.0), word(1199, 1, 47, 61.0));
        let words = [("ROHIT", &rohit), ("CHATTERJEE", &chatterjee), ("apy", &apy), ("awe", &awe), ("|", &bar)];
        assert_eq!(super::signature_after(&words), 2);
        assert_eq!(super::signature_after(&words[..4]), 2, "without the mark, as before");
        assert_eq!(super::signature_after(&[("ROHIT", &rohit), ("CHATTERJEE", &chatterjee), ("|", &bar)]), 3, "a mark alone");
        let close = word(490, 145, 87, 25.0);
        assert_eq!(super::signature_after(&[("ROHIT", &rohit), ("CHATTERJEE", &chatterjee), ("apy", &close), ("|", &bar)]), 4, "at a word's spacing");
        // A tall mark's small part read after it in lower case goes with it (seed 21's
        // noisy national identity card, "BALAJI CHANDRA THAKUR e moh"); so does a small
        // one alone as far as another column. Must-fail twins: a small unsure word alone
        // at a word's spacing is no mark; a capitalised one is a name's.
        let (balaji, chandra, thakur) = (word(357, 137, 27, 93.0), word(507, 192, 27, 95.0), word(706, 168, 27, 95.0));
        let (e, moh) = (word(981, 48, 98, 0.0), word(1042, 45, 20, 14.0));
        let name = [("BALAJI", &balaji), ("CHANDRA", &chandra), ("THAKUR", &thakur)];
        assert_eq!(super::signature_after(&[name[0], name[1], name[2], ("e", &e), ("moh", &moh)]), 3);
        assert_eq!(super::signature_after(&[name[0], name[1], name[2], ("moh", &moh)]), 3, "another column's");
        let near = word(874 + 20, 45, 20, 14.0);
        assert_eq!(super::signature_after(&[name[0], name[1], name[2], ("moh", &near)]), 4, "no tall mark, at a word's spacing");
        // Seed 36's PAN in perspective: "SANDEEP AGARWAL irnZ7 yy", the last stroke read
        // at confidence 69, 83 pixels tall beside 31. Must-fail twins: a word so tall in
        // capitals or Title Case, or one under twice the name's height, read with
        // confidence, stays.
        let (sandeep, agarwal) = (word(52, 183, 31, 92.0), word(247, 199, 31, 96.0));
        let (irnz7, yy) = (word(642, 132, 83, 24.0), word(814, 91, 83, 69.0));
        assert_eq!(super::signature_after(&[("SANDEEP", &sandeep), ("AGARWAL", &agarwal), ("irnZ7", &irnz7), ("yy", &yy)]), 2);
        assert_eq!(super::signature_after(&[("SANDEEP", &sandeep), ("AGARWAL", &agarwal), ("irnZ7", &irnz7), ("YY", &yy)]), 4);
        // Title Case so tall beside a stroke in lower case is the pen's too ("RAMESH
        // MISHRA yore Ds", seed 37); alone, it stays.
        assert_eq!(super::signature_after(&[("SANDEEP", &sandeep), ("AGARWAL", &agarwal), ("irnZ7", &irnz7), ("Yy", &yy)]), 2);
        assert_eq!(super::signature_after(&[("SANDEEP", &sandeep), ("AGARWAL", &agarwal), ("Yy", &yy)]), 3);
        let shorter = word(814, 91, 60, 69.0);
        assert_eq!(super::signature_after(&[("SANDEEP", &sandeep), ("AGARWAL", &agarwal), ("irnZ7", &irnz7), ("yy", &shorter)]), 4);
        assert_eq!(super::signature_after(&[name[0], name[1], name[2], ("e", &e), ("Moh", &moh)]), 5, "a capital starts a word");
        // An unsure word not in capitals a column away (seed 26's dark national identity
        // card, "SNEHA SHAH Sassi", the chip at confidence 5) is another column's.
        // Must-fail twins: at a word's spacing it may be the name's; read sure it stays.
        let (sneha, shah) = (word(384, 148, 30, 92.0), word(547, 117, 31, 97.0));
        let (far, near, sure) = (word(988, 127, 33, 5.0), word(680, 127, 33, 5.0), word(988, 127, 33, 90.0));
        assert_eq!(super::signature_after(&[("SNEHA", &sneha), ("SHAH", &shah), ("Sassi", &far)]), 2);
        assert_eq!(super::signature_after(&[("SNEHA", &sneha), ("SHAH", &shah), ("Sassi", &near)]), 3, "at a word's spacing");
        assert_eq!(super::signature_after(&[("SNEHA", &sneha), ("SHAH", &shah), ("Sassi", &sure)]), 3, "read sure");
        // Nor a word in capitals past a gap glare may have washed out (the test
        // command's glared PAN, "VENKATESH K ... YADAV").
        assert_eq!(super::signature_after(&[("SNEHA", &sneha), ("SHAH", &shah), ("YADAV", &far)]), 3, "in capitals");
    }

    /// A tall, unsure word set apart in front of a line's words is the portrait's edge,
    /// not a word of the line (seed 18's Aadhaar, "Vie Mahesh Rao"). Must-fail twins: the
    /// same word read with confidence, of the line's height, or at a word's spacing stays;
    /// a line of two words is left whole.
    #[test]
    fn a_tall_unsure_mark_in_front_of_a_line_is_dropped() {
        use idv_vision::ocr::TsvWord;
        let word = |x: u32, y: u32, w: u32, h: u32, c: f32, chars: usize| TsvWord { bbox: TextBox { x, y, width: w, height: h }, confidence: Some(c), chars };
        let line = |first: TsvWord| {
            let words = vec![first, word(363, 300, 140, 29, 96.0, 6), word(520, 300, 69, 29, 96.0, 3)];
            let symbols = "VieMaheshRao".chars().map(|c| (c, 90.0)).collect();
            OcrLine { text: "Vie Mahesh Rao".into(), confidence: 68.0, bbox: TextBox { x: 119, y: 269, width: 470, height: 66 }, symbols, words }
        };
        let mut debris = line(word(119, 269, 131, 66, 14.0, 3));
        super::drop_leading_debris(&mut debris);
        assert_eq!((debris.text.as_str(), debris.bbox, debris.confidence), ("Mahesh Rao", TextBox { x: 363, y: 300, width: 226, height: 29 }, 96.0));
        assert_eq!(debris.symbols.iter().map(|s| s.0).collect::<String>(), "MaheshRao");
        for kept in [word(119, 269, 131, 66, 85.0, 3), word(119, 300, 131, 30, 14.0, 3), word(300, 269, 50, 66, 14.0, 3)] {
            let mut l = line(kept);
            super::drop_leading_debris(&mut l);
            assert_eq!(l.text, "Vie Mahesh Rao");
        }
        // Read with confidence, but with a mark no print has in a word (seed 35: "LB»",
        // confidence 70, 76 px tall beside 33): dropped; the same word without it stays.
        let mut marked = line(word(119, 269, 131, 66, 70.0, 3));
        marked.text = "LB» Mahesh Rao".into();
        super::drop_leading_debris(&mut marked);
        assert_eq!(marked.text, "Mahesh Rao");
        let mut unmarked = line(word(119, 269, 131, 66, 70.0, 3));
        unmarked.text = "LBx Mahesh Rao".into();
        super::drop_leading_debris(&mut unmarked);
        assert_eq!(unmarked.text, "LBx Mahesh Rao");
        let mut two = line(word(119, 269, 131, 66, 14.0, 3));
        two.words.pop();
        two.text = "Vie Mahesh".into();
        super::drop_leading_debris(&mut two);
        assert_eq!(two.text, "Vie Mahesh");
    }

    /// Specks read level with a line and far after it (a chip beside a name: "DEEPAK
    /// PANDEY ee J", seed 34) are dropped, with their symbols, from its text and box.
    /// Must-fail twins: a tail as tall as half the words, one set near them, print of
    /// more than three characters (a date after a tall mark), or a line whose words do
    /// not match its text keeps them.
    #[test]
    fn specks_far_after_a_line_are_dropped() {
        use idv_vision::ocr::TsvWord;
        let word = |x: u32, y: u32, w: u32, h: u32, chars: usize| TsvWord { bbox: TextBox { x, y, width: w, height: h }, confidence: Some(60.0), chars };
        let line = |specks: [TsvWord; 2]| {
            let words = vec![word(357, 271, 143, 25, 6), word(511, 271, 142, 25, 6), specks[0], specks[1]];
            let symbols = "DEEPAKPANDEYeeJ".chars().map(|c| (c, 90.0)).collect();
            OcrLine { text: "DEEPAK PANDEY ee J".into(), confidence: 70.0, bbox: TextBox { x: 357, y: 271, width: 769, height: 33 }, symbols, words }
        };
        let mut chip = line([word(984, 292, 36, 12, 2), word(1114, 294, 12, 9, 1)]);
        super::drop_trailing_debris(&mut chip);
        assert_eq!((chip.text.as_str(), chip.bbox, chip.confidence), ("DEEPAK PANDEY", TextBox { x: 357, y: 271, width: 296, height: 25 }, 60.0));
        assert_eq!(chip.symbols.iter().map(|s| s.0).collect::<String>(), "DEEPAKPANDEY");
        for kept in [
            [word(984, 292, 36, 13, 2), word(1030, 294, 12, 9, 1)],
            [word(700, 292, 36, 12, 2), word(800, 294, 12, 9, 1)],
        ] {
            let mut l = line(kept);
            super::drop_trailing_debris(&mut l);
            assert_eq!(l.text, "DEEPAK PANDEY ee J");
        }
        // Print after a tall mark (a punch's rim read "©" before a passport's dates).
        let mut dates = line([word(984, 292, 36, 12, 10), word(1114, 294, 12, 9, 1)]);
        dates.text = "DEEPAK PANDEY 21/10/2017 J".into();
        super::drop_trailing_debris(&mut dates);
        assert_eq!(dates.text, "DEEPAK PANDEY 21/10/2017");
        let mut unmatched = line([word(984, 292, 36, 12, 2), word(1114, 294, 12, 9, 1)]);
        unmatched.text = "DEEPAK PANDEY eeJ".into();
        super::drop_trailing_debris(&mut unmatched);
        assert_eq!(unmatched.words.len(), 4);
    }

    /// A PAN whose page reading lost or misread its number ("J wyopsss6sH") gets the band
    /// under "Permanent Account Number" read alone: what that reading holds goes in under
    /// the label when it has a PAN's shape, and the page's own lines stay. Must-fail: a
    /// page that read a PAN as printed, or has no such label, is not read again; a band
    /// reading of no PAN's shape adds nothing.
    #[test]
    fn a_pan_number_the_page_missed_is_read_alone_from_its_band() {
        use idv_vision::ocr::{OcrLine, TextBox};
        let pan_band = |answer: &'static str| Band::new(answer, 90.0, TextBox { x: 120, y: 20, width: 480, height: 48 });
        let line = |text: &str, y: u32, h: u32| OcrLine { text: text.into(), confidence: 90.0, bbox: TextBox { x: 351, y, width: 487, height: h }, symbols: Vec::new(), words: Vec::new() };
        let page_lines = || vec![line("INCOME TAX DEPARTMENT", 90, 25), line("Permanent Account Number Card", 218, 25), line("J wyopsss6sH", 227, 119), line("ama / Name", 431, 32)];
        let page = image::GrayImage::new(1200, 757);
        let engine = pan_band("WYOPSS8865H");
        let mut lines = page_lines();
        super::read_pan_number_band(&page, &mut lines, &engine);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["INCOME TAX DEPARTMENT", "Permanent Account Number Card", "WYOPSS8865H", "J wyopsss6sH", "ama / Name"]);
        assert_eq!(lines[2].bbox, TextBox { x: 351 - 121 + 120, y: 243 + 20, width: 480, height: 48 }, "the band's box in the page's pixels");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!(asked.len(), 1);
        assert_eq!((asked[0].0, asked[0].1), (487 + 2 * 121, 75), "the label's width and a quarter either side, three label heights");
        assert!(asked[0].2.as_deref().is_some_and(|w| w.contains('A') && w.contains('9') && !w.contains('a')), "capitals and digits");
        let f = idv_cards::printed::parse_printed("in.pan", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "id").map(|x| x.value.as_str()), Some("WYOPS8865H"));

        // Not read again: a page that read a PAN as printed, or one with no such label.
        for mut lines in [
            vec![line("Permanent Account Number Card", 218, 25), line("WYOPS8865H", 263, 48)],
            vec![line("ELECTION COMMISSION OF INDIA", 90, 25), line("J wyopsss6sH", 227, 119)],
        ] {
            let engine = pan_band("WYOPS8865H");
            let before = lines.len();
            super::read_pan_number_band(&page, &mut lines, &engine);
            assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (before, 0));
        }
        // The label's words read (seed 24's tilted PAN, the QR code's top joined to the
        // label's line): the band runs from a label height left of "Permanent" to half
        // one right of "Card", not under what was joined on the right.
        let label = worded_line(&[("Permanent", 328, 170), ("Account", 508, 140), ("Number", 658, 130), ("Card", 798, 80), ("&", 900, 20), ("racism", 940, 202)], 220, 27);
        let engine = pan_band("COUPS0082A");
        let mut lines = vec![line("INCOME TAX DEPARTMENT", 90, 25), label, line("S COUPSO082AB", 265, 56), line("ama / Name", 431, 32)];
        super::read_pan_number_band(&page, &mut lines, &engine);
        assert_eq!(lines[2].text, "COUPS0082A");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!((asked.len(), asked[0].0, asked[0].1), (1, (878 + 13) - (328 - 27), 81), "from a label height left of the label to half one right of its last word");

        // A band reading of no PAN's shape adds nothing, nor one read with little
        // confidence under the label (a glared "REMPA2043I" at confidence 0).
        let engine = pan_band("WYOPS 8865");
        let mut lines = page_lines();
        super::read_pan_number_band(&page, &mut lines, &engine);
        assert_eq!(lines.len(), 4);
        let engine = Band::new("REMPA2043I", 0.0, TextBox { x: 120, y: 20, width: 480, height: 48 });
        let mut lines = page_lines();
        super::read_pan_number_band(&page, &mut lines, &engine);
        assert_eq!(lines.len(), 4);
        // Under the label, a number with one glyph read as its look-alike of the other
        // class (seed 36's cut PAN: "EROPM24070" for EROPM2407O) goes in, and the parser
        // repairs it; two such glyphs do not.
        let engine = pan_band("EROPM24070");
        let mut lines = page_lines();
        super::read_pan_number_band(&page, &mut lines, &engine);
        assert_eq!(lines[2].text, "EROPM24070");
        let f = idv_cards::printed::parse_printed("in.pan", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "id").map(|x| x.value.as_str()), Some("EROPM2407O"));
        for misread in ["ER0PM24070", "EROPMZ4070"] {
            let engine = pan_band(misread);
            let mut lines = page_lines();
            super::read_pan_number_band(&page, &mut lines, &engine);
            assert_eq!(lines.len(), 4, "{misread}");
        }

        // The label dropped too (seed 12's clean PAN): the middle half under the header,
        // three tenths of the page tall; a PAN as printed, read with confidence, goes in
        // after the header.
        let header = OcrLine { text: "INCOME TAX DEPARTMENT = GOVT. OF INDIA".into(), confidence: 90.0, bbox: TextBox { x: 51, y: 80, width: 1097, height: 33 }, symbols: Vec::new(), words: Vec::new() };
        let unlabelled = || vec![header.clone(), line("eet cat Seat ars", 170, 44), line("ama / Name", 436, 35)];
        let sure = |answer: &'static str, confidence: f32| Band::new(answer, confidence, TextBox { x: 150, y: 160, width: 310, height: 40 });
        let engine = sure("WVBPJ8759Y", 90.0);
        let mut lines = unlabelled();
        super::read_pan_number_band(&page, &mut lines, &engine);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["INCOME TAX DEPARTMENT = GOVT. OF INDIA", "WVBPJ8759Y", "eet cat Seat ars", "ama / Name"]);
        assert_eq!(lines[1].bbox, TextBox { x: 300 + 150, y: 113 + 160, width: 310, height: 40 });
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!((asked[0].0, asked[0].1), (600, 227), "the middle half, three tenths of the page");
        // Without the label: not one read with little confidence, nor one glyph doubled.
        for engine in [sure("WVBPJ8759Y", 55.0), sure("WVBPJJ8759Y", 90.0)] {
            let mut lines = unlabelled();
            super::read_pan_number_band(&page, &mut lines, &engine);
            assert_eq!(lines.len(), 3);
        }
    }

    /// A date of birth the page read as nothing under its label (a PAN's, beside the
    /// signature) is read alone from the band under the label; kept only as a date.
    /// Must-fail: a page that read a date there is not read again; a band of no date adds
    /// nothing.
    #[test]
    fn a_birth_date_the_page_missed_is_read_alone_from_its_band() {
        use idv_vision::ocr::{OcrLine, TextBox, TsvWord};
        let date_band = |answer: &'static str, confidence: f32| Band::new(answer, confidence, TextBox { x: 20, y: 14, width: 180, height: 32 });
        let word = |x: u32, width: u32| TsvWord { bbox: TextBox { x, y: 645, width, height: 36 }, confidence: Some(90.0), chars: 4 };
        let label = OcrLine {
            text: "ora at arka / Date of Birth".into(),
            confidence: 80.0,
            bbox: TextBox { x: 52, y: 645, width: 294, height: 37 },
            symbols: Vec::new(),
            words: vec![word(52, 40), word(100, 30), word(140, 50), word(196, 8), word(210, 50), word(266, 20), word(292, 54)],
        };
        let plain = |text: &str, y: u32| OcrLine { text: text.into(), confidence: 60.0, bbox: TextBox { x: 0, y, width: 1200, height: 60 }, symbols: Vec::new(), words: Vec::new() };
        let page_lines = || vec![plain("BALAJI VERMA", 585), label.clone(), plain("ie ee", 694)];
        let page = image::GrayImage::new(1200, 757);
        let engine = date_band("18/01/1972", 90.0);
        let mut lines = page_lines();
        super::read_birth_date_band(&page, &mut lines, &engine);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["BALAJI VERMA", "ora at arka / Date of Birth", "18/01/1972", "ie ee"]);
        assert_eq!(lines[2].bbox, TextBox { x: 52 - 18 + 20, y: 681 + 14, width: 180, height: 32 }, "the band's box in the page's pixels");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!((asked.len(), asked[0].0, asked[0].1), (1, 346 + (346 - 52) / 4 - 34, 76), "from left of the line to a quarter past Birth, three heights (to the page's foot)");
        assert!(asked[0].2.as_deref().is_some_and(|w| w.contains('/') && w.contains('9') && !w.contains('A')), "digits and separators");
        let f = idv_cards::printed::parse_printed("in.pan", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "dob").map(|x| x.value.as_str()), Some("18/01/1972"));

        // Not read again where the page read a date after the label, or misread one
        // ("49/08/1992", a day no month has: the band's reading may be misread too).
        for read in ["18/01/1972", "49/08/1992 eeata / Signature"] {
            let engine = date_band("10/02/1902", 90.0);
            let mut lines = vec![label.clone(), plain(read, 694)];
            super::read_birth_date_band(&page, &mut lines, &engine);
            assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (2, 0), "{read}");
        }
        // A date read with little confidence adds nothing.
        let mut lines = page_lines();
        super::read_birth_date_band(&page, &mut lines, &date_band("18/01/1972", 55.0));
        assert_eq!(lines.len(), 3);
        // A band of no date (a day that does not exist) adds nothing.
        let engine = date_band("38/01/1972", 90.0);
        let mut lines = page_lines();
        super::read_birth_date_band(&page, &mut lines, &engine);
        assert_eq!(lines.len(), 3);
    }

    /// A national identity card whose page reading dropped the number under "ID No." gets
    /// the band under the label read alone; kept only as twelve digits passing Verhoeff.
    /// Must-fail: a page that read ten digits or more there is not read again; a band of
    /// digits failing the check, or read with little confidence, adds nothing.
    /// A line whose words are those given, each as (text, x, width), at `y`, `h` tall.
    fn worded_line(words: &[(&str, u32, u32)], y: u32, h: u32) -> OcrLine {
        use idv_vision::ocr::TsvWord;
        let boxes: Vec<TsvWord> = words.iter().map(|&(t, x, width)| TsvWord { bbox: TextBox { x, y, width, height: h }, confidence: Some(80.0), chars: t.chars().count() }).collect();
        let bbox = boxes.iter().map(|w| w.bbox).reduce(|a, b| a.union(&b)).unwrap_or_default();
        let text = words.iter().map(|w| w.0).collect::<Vec<_>>().join(" ");
        OcrLine { text, confidence: 80.0, bbox, symbols: Vec::new(), words: boxes }
    }

    /// An EPIC number the page read with a glyph too many (seed 24: "VVIJ2552814" for
    /// `VVJ2552814`) is read again from its word's box and goes in before the page's
    /// line, where the voter parser takes it. Must-fail twins: no reread where the page
    /// read a number as printed; a reading unsure, or of another number (more than two
    /// edits away), adds nothing.
    #[test]
    fn an_epic_number_read_with_a_glyph_too_many_is_read_alone_from_its_word() {
        let page = image::GrayImage::new(1200, 757);
        let page_lines = |id: &'static str| vec![worded_line(&[("Sex", 364, 50), ("7h", 420, 40)], 351, 24), worded_line(&[(id, 58, 247)], 550, 31)];
        let engine = Band::new("VVJ2552814", 92.0, TextBox { x: 31, y: 15, width: 247, height: 31 });
        let mut lines = page_lines("VVIJ2552814");
        super::read_epic_word(&page, &mut lines, &engine);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Sex 7h", "VVJ2552814", "VVIJ2552814"]);
        assert_eq!(lines[1].bbox, TextBox { x: 58 - 31 + 31, y: 550 - 15 + 15, width: 247, height: 31 }, "the box in the page's pixels");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!((asked.len(), asked[0].0, asked[0].1), (1, 247 + 2 * 31, 31 + 2 * 15), "the word, a height either side, half above and below");
        let f = idv_cards::printed::parse_printed("in.voter", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "id").map(|x| x.value.as_str()), Some("VVJ2552814"));
        let f = idv_cards::printed::parse_printed("in.voter", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&page_lines("VVIJ2552814")));
        assert_eq!(f.iter().find(|x| x.field == "id"), None, "the page's reading alone gives no number: which glyph is extra is not known");

        let engine = Band::new("VVJ2552814", 92.0, TextBox { x: 31, y: 15, width: 247, height: 31 });
        let mut lines = page_lines("VVJ2552814");
        super::read_epic_word(&page, &mut lines, &engine);
        assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (2, 0), "a number as printed is not read again");
        for (answer, confidence) in [("VVJ2552814", 60.0), ("ABC1234567", 95.0), ("VVJ255281", 95.0)] {
            let engine = Band::new(answer, confidence, TextBox { x: 31, y: 15, width: 247, height: 31 });
            let mut lines = page_lines("VVIJ2552814");
            super::read_epic_word(&page, &mut lines, &engine);
            assert_eq!(lines.len(), 2, "{answer} at {confidence}");
        }
        // Its capitals read lowercase, and a glyph too many (seed 27: "Qsyv6494481" for
        // QSY6494481): read again, and the reading, one edit from the word in capitals,
        // goes in. Must-fail: a word of one letter among its digits is no EPIC's.
        let engine = Band::new("QSY6494481", 92.0, TextBox { x: 31, y: 15, width: 247, height: 31 });
        let mut lines = page_lines("Qsyv6494481");
        super::read_epic_word(&page, &mut lines, &engine);
        assert_eq!(lines.get(1).map(|l| l.text.as_str()), Some("QSY6494481"));
        let engine = Band::new("QSY6494481", 92.0, TextBox { x: 31, y: 15, width: 247, height: 31 });
        let mut lines = page_lines("Q164944812");
        super::read_epic_word(&page, &mut lines, &engine);
        assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (2, 0));
    }

    /// A sex the page misread after its label ("Sex 7h", "Sexi" for "Sex: F") is read
    /// again from the label's line, and where that reads no sex and the print is small,
    /// twice as large; it goes in after the label's line. Must-fail twins: a sex read on
    /// the label's line or the next is not read again; a reading unsure, or holding no
    /// sex after the label, adds nothing; print 30 pixels tall is not read larger.
    #[test]
    fn a_sex_the_page_misread_after_its_label_is_read_again() {
        let page = image::GrayImage::new(1200, 757);
        let answer = TextBox { x: 30, y: 24, width: 190, height: 48 };
        for label in [vec![("Sex", 364, 50), ("7h", 420, 40)], vec![("Sexi", 364, 60)], vec![("SexiuF", 364, 90)]] {
            let band_width = 364 + label[0].2 + 6 * 24 - 352;
            let page_lines = || vec![worded_line(&label, 351, 24), worded_line(&[("Date", 366, 60), ("of", 430, 20), ("Birth:", 455, 70), ("22/06/1951", 530, 150)], 405, 26)];
            let engine = Band::new("Sex: F", 91.0, answer);
            let mut lines = page_lines();
            super::read_sex_band(&page, &mut lines, &engine);
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            assert_eq!(texts[1], "Sex: F", "{label:?}");
            assert_eq!(lines[1].bbox, TextBox { x: 352 + 30, y: 339 + 24, width: 190, height: 48 }, "the box in the page's pixels");
            let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
            assert_eq!(asked.iter().map(|a| (a.0, a.1)).collect::<Vec<_>>(), [(band_width, 48)], "the label's line, six heights past the label, half a height above and below");
            let f = idv_cards::printed::parse_printed("in.voter", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
            assert_eq!(f.iter().find(|x| x.field == "gender").map(|x| x.value.as_str()), Some("F"));

            // Read as nothing at the page's size: read again twice as large.
            let engine = Band { larger: Some((2 * band_width, "Sex: F")), ..Band::new("Sexi", 91.0, answer) };
            let mut lines = page_lines();
            super::read_sex_band(&page, &mut lines, &engine);
            assert_eq!(lines[1].text, "Sex: F");
            assert_eq!(lines[1].bbox, TextBox { x: 352 + 15, y: 339 + 12, width: 95, height: 24 }, "halved back into the page's pixels");
            let asked: Vec<(u32, u32)> = engine.asked.lock().map(|a| a.iter().map(|q| (q.0, q.1)).collect()).unwrap_or_default();
            assert_eq!(asked, [(band_width, 48), (2 * band_width, 96)]);
        }
        let engine = Band { larger: Some((10_000, "Sex: F")), ..Band::new("Sexi", 91.0, answer) };
        let mut lines = vec![worded_line(&[("Sexi", 364, 60)], 351, 30)];
        super::read_sex_band(&page, &mut lines, &engine);
        assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (1, 1), "print 30 pixels tall is read once");
        for page_lines in [
            vec![worded_line(&[("Sex", 364, 50), (":", 420, 8), ("F", 430, 20)], 351, 24)],
            vec![worded_line(&[("Sex", 364, 50)], 351, 24), worded_line(&[("Female", 364, 90)], 380, 24)],
        ] {
            let engine = Band::new("Sex: F", 91.0, answer);
            let mut lines = page_lines.clone();
            super::read_sex_band(&page, &mut lines, &engine);
            assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (page_lines.len(), 0), "{:?}", page_lines[0].text);
        }
        for (read, confidence) in [("Sex: F", 50.0), ("Sex: 7h", 95.0), ("F", 95.0)] {
            let engine = Band::new(read, confidence, answer);
            let mut lines = vec![worded_line(&[("Sex", 364, 50), ("7h", 420, 40)], 351, 24)];
            super::read_sex_band(&page, &mut lines, &engine);
            assert_eq!(lines.len(), 1, "{read} at {confidence}");
        }
    }

    #[test]
    fn an_identity_number_the_page_missed_is_read_alone_from_its_band() {
        use idv_vision::ocr::{OcrLine, TextBox};
        let id_band = |answer: &'static str, confidence: f32| Band::new(answer, confidence, TextBox { x: 10, y: 12, width: 358, height: 41 });
        let line = |text: &str, x: u32, y: u32, width: u32, h: u32| OcrLine { text: text.into(), confidence: 80.0, bbox: TextBox { x, y, width, height: h }, symbols: Vec::new(), words: Vec::new() };
        let page_lines = || vec![line("IND 27/03/2033", 357, 443, 574, 30), line("ued tan / ID No.", 51, 643, 215, 32)];
        let page = image::GrayImage::new(1200, 845);
        let engine = id_band("671940561717", 90.0);
        let mut lines = page_lines();
        super::read_id_number_band(&page, &mut lines, &engine);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["IND 27/03/2033", "ued tan / ID No.", "671940561717"]);
        assert_eq!(lines[2].bbox, TextBox { x: 30 + 10, y: 675 + 12, width: 358, height: 41 }, "the band's box in the page's pixels");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!((asked.len(), asked[0].0, asked[0].1), (1, 51 + 5 * 215 / 2 - 30, 128), "from the print's margin (a fortieth of the card's width; three label heights left of the label is past it) to two and a half of its widths, four heights");
        assert!(asked[0].2.as_deref().is_some_and(|w| w.contains('9') && !w.contains('A')), "digits");
        let f = idv_cards::printed::parse_printed("in.national_id", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "id").map(|x| x.value.as_str()), Some("671940561717"));

        // Not read again where the page read a number that passes Verhoeff under the
        // label, in one token or in its groups.
        for read in ["671940561717", "_ 6719 4056 1717 |"] {
            let engine = id_band("671940561717", 90.0);
            let mut lines = vec![line("ued tan / ID No.", 51, 643, 215, 32), line(read, 53, 690, 358, 41)];
            super::read_id_number_band(&page, &mut lines, &engine);
            assert_eq!((lines.len(), engine.asked.lock().map(|a| a.len()).unwrap_or(9)), (2, 0), "{read}");
        }
        // Read again where the page's digits fail it ("805.2182 86302)" for 7805 2182
        // 8302, seed 34): the band's number goes in under the label, before the misread
        // line, and is the one the parser takes.
        for read in ["805.2182 86302)", "_ 6026237771 98"] {
            let engine = id_band("671940561717", 90.0);
            let mut lines = vec![line("ued tan / ID No.", 51, 643, 215, 32), line(read, 0, 688, 1122, 69)];
            super::read_id_number_band(&page, &mut lines, &engine);
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            assert_eq!(texts, ["ued tan / ID No.", "671940561717", read]);
            let f = idv_cards::printed::parse_printed("in.national_id", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
            assert_eq!(f.iter().find(|x| x.field == "id").map(|x| x.value.as_str()), Some("671940561717"), "{read}");
        }
        // The label's I read as a 1 (seed 36's card in perspective: "upera ten / 1D No.")
        // or an l: the band is read all the same.
        for label in ["upera ten / 1D No.", "upera ten / lD No."] {
            let engine = id_band("779479154943", 90.0);
            let mut lines = vec![line(label, 55, 648, 191, 20)];
            super::read_id_number_band(&page, &mut lines, &engine);
            assert_eq!(lines.get(1).map(|l| l.text.as_str()), Some("779479154943"), "{label}");
        }
        // A label read short (its Hindi words lost) still gets a band two fifths of the
        // card wide: twelve bold digits take a third of it.
        let engine = id_band("671940561717", 90.0);
        let mut lines = vec![line("deat / ID No.", 124, 643, 127, 32)];
        super::read_id_number_band(&page, &mut lines, &engine);
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!(asked.first().map(|a| a.0), Some(2 * 1200 / 5), "from {} to {}", 124 - 3 * 32, 124 - 3 * 32 + 2 * 1200 / 5);
        // The number read in its printed groups (the band's whitelist holds the space).
        let engine = id_band("6719 4056 1717", 90.0);
        let mut lines = page_lines();
        super::read_id_number_band(&page, &mut lines, &engine);
        assert_eq!(lines.get(2).map(|l| l.text.as_str()), Some("6719 4056 1717"));
        assert!(engine.asked.lock().map(|a| a[0].2.clone()).unwrap_or_default().is_some_and(|w| w.contains(' ')));
        let f = idv_cards::printed::parse_printed("in.national_id", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "id").map(|x| x.value.as_str()), Some("671940561717"));
        // Digits failing Verhoeff, or read with little confidence, add nothing.
        for engine in [id_band("671940561718", 90.0), id_band("6719 4056 1718", 90.0), id_band("671940561717", 55.0)] {
            let mut lines = page_lines();
            super::read_id_number_band(&page, &mut lines, &engine);
            assert_eq!(lines.len(), 2);
        }
    }

    /// A name the page read with a doubtful word under its label alone on its line is
    /// read again from the words' own box, right of the label's start, and replaces the
    /// line when read surely as a name. Must-fail: a name read surely, or one under no
    /// label, is not read again; a doubtful or unnamelike reading changes nothing.
    #[test]
    fn a_doubtful_name_under_its_label_is_read_alone_from_its_words() {
        use idv_vision::ocr::{OcrLine, TextBox, TsvWord};
        let word = |x: u32, y: u32, width: u32, height: u32, confidence: f32| TsvWord { bbox: TextBox { x, y, width, height }, confidence: Some(confidence), chars: 4 };
        let line = |text: &str, words: Vec<TsvWord>| {
            let bbox = words.iter().skip(1).fold(words[0].bbox, |b, w| b.union(&w.bbox));
            OcrLine { text: text.into(), confidence: 60.0, bbox, symbols: Vec::new(), words }
        };
        let label = line("ama / Name", vec![word(353, 241, 42, 14, 57.0), word(394, 235, 12, 27, 86.0), word(408, 239, 59, 17, 97.0)]);
        // The portrait's edge ("Gy", left of the label) joined to the name's line.
        let name = line("Gy _C«DEEEPIKA BANERJEE", vec![word(121, 253, 136, 58, 34.0), word(354, 278, 191, 29, 8.0), word(554, 278, 221, 29, 8.0)]);
        let page = image::GrayImage::new(1200, 757);
        let band = |answer: &'static str, confidence: f32| Band::new(answer, confidence, TextBox { x: 9, y: 9, width: 420, height: 30 });
        let engine = band("DEEPIKA BANERJEE", 96.0);
        let mut lines = vec![label.clone(), name.clone()];
        super::read_name_bands(&page, &mut lines, &engine);
        assert_eq!(lines[1].text, "DEEPIKA BANERJEE");
        assert_eq!(lines[1].bbox, TextBox { x: 354 - 9 + 9, y: 278 - 9 + 9, width: 420, height: 30 }, "the band's box in the page's pixels");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!(asked, [(775 + 9 - (354 - 9), 307 + 9 - (278 - 9), None)], "the name's words right of the label, a third of their height around");
        let f = idv_cards::printed::parse_printed("in.national_id", idv_cards::printed::Side::Front, &crate::card::read::text_lines(&lines));
        assert_eq!(f.iter().find(|x| x.field == "name").map(|x| x.value.as_str()), Some("DEEPIKA BANERJEE"));

        // A stray mark read into a name: "MISHRA)" at confidence 27.
        let father = line("fat ar ara / Father's Name", vec![word(61, 553, 43, 24, 19.0), word(205, 556, 95, 21, 96.0), word(310, 556, 70, 21, 96.0)]);
        let stray = |confidence: f32| line("MAHESH LAL MISHRA)", vec![word(64, 598, 185, 33, 95.0), word(268, 598, 79, 32, 83.0), word(364, 598, 172, 33, confidence)]);
        let mut lines = vec![father.clone(), stray(27.0)];
        super::read_name_bands(&page, &mut lines, &band("MAHESH LAL MISHRA", 96.0));
        assert_eq!(lines[1].text, "MAHESH LAL MISHRA");

        // A name read as one, a word of it unsure: the reading alone may drop marks,
        // never change letters (a blurred "CHAUBAN" for CHAUHAN).
        let given = line("Given Name(s)", vec![word(385, 269, 60, 30, 96.0), word(450, 269, 90, 30, 96.0)]);
        let unsure = |text: &str| line(text, vec![word(407, 309, 193, 26, 96.0), word(646, 309, 141, 26, 40.0)]);
        for (page_read, alone, want) in [("MOHAMMED CHAUHAN", "MOHAMMED CHAUBAN", "MOHAMMED CHAUHAN"), ("IMRAN KHAN.", "IMRAN KHAN", "IMRAN KHAN")] {
            let mut lines = vec![given.clone(), unsure(page_read)];
            super::read_name_bands(&page, &mut lines, &band(alone, 96.0));
            assert_eq!(lines[1].text, want);
        }

        // A signature read after the father's name (seed 16's noisy PAN): left out of
        // the band, and the name read alone. Near the name, it may hide a word: kept.
        let father_label = line("tar ar ata / Father's Name", vec![word(52, 562, 46, 24, 40.0), word(203, 564, 100, 21, 93.0), word(314, 564, 74, 20, 97.0)]);
        let signed = |x: u32| line("HARPREET DESHMUKH yssv", vec![word(55, 609, 245, 33, 93.0), word(316, 607, 254, 33, 95.0), word(x, 594, 272, 88, 0.0)]);
        let engine = band("HARPREET DESHMUKH", 96.0);
        let mut lines = vec![father_label.clone(), signed(629)];
        super::read_name_bands(&page, &mut lines, &engine);
        assert_eq!(lines[1].text, "HARPREET DESHMUKH");
        let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].0, 570 + 11 - (55 - 11), "the band ends at the name's last word");
        // Read as two words.
        let two = line("GOPAL BHATT eS Wels", vec![word(61, 571, 139, 29, 93.0), word(217, 571, 138, 29, 96.0), word(625, 566, 153, 87, 12.0), word(806, 566, 102, 87, 19.0)]);
        let mut lines = vec![father_label.clone(), two];
        super::read_name_bands(&page, &mut lines, &band("GOPAL BHATT", 96.0));
        assert_eq!(lines[1].text, "GOPAL BHATT");
        let mut lines = vec![father_label.clone(), signed(590)];
        super::read_name_bands(&page, &mut lines, &band("HARPREET DESHMUKH", 96.0));
        assert_eq!(lines[1].text, "HARPREET DESHMUKH yssv");

        // A name read with the signature beside it into one line of no capital (seed
        // 22's clean PAN: "ee aes axl" for JYOTI NAIR): read alone. Must-fail: a line
        // read with a capital keeps its letters.
        let mother_label = line("Aral er aT / Mother's Name", vec![word(42, 557, 131, 20, 47.0), word(184, 555, 109, 20, 96.0), word(305, 556, 73, 19, 97.0)]);
        let joined = |first: &str| line(&format!("{first} aes axl"), vec![word(39, 596, 216, 38, 29.0), word(628, 596, 132, 99, 0.0), word(793, 596, 108, 99, 0.0)]);
        for (first, want) in [("ee", "JYOTI NAIR"), ("Ee", "Ee aes axl")] {
            let mut lines = vec![mother_label.clone(), joined(first)];
            super::read_name_bands(&page, &mut lines, &band("JYOTI NAIR", 89.0));
            assert_eq!(lines[1].text, want);
        }
        // A signature drawn over the name's last word (seed 22's clean PAN): the marks
        // its strokes are read as after the word are no name's. Must-fail: a reading
        // with no letters where the word was is no name.
        let overdrawn = line("MOHAMMED PRASAD anauasenaens", vec![word(45, 598, 284, 32, 96.0), word(344, 598, 178, 32, 96.0), word(538, 587, 323, 89, 0.0)]);
        for (alone, want) in [("MOHAMMED PRASAD CHAUHAN?’", "MOHAMMED PRASAD CHAUHAN"), ("MOHAMMED PRASAD ?’", "MOHAMMED PRASAD anauasenaens")] {
            let mut lines = vec![father_label.clone(), overdrawn.clone()];
            super::read_name_bands(&page, &mut lines, &band(alone, 85.0));
            assert_eq!(lines[1].text, want);
        }

        // A chip beside the label and the name, read into both lines as words of no
        // capital far to their right (seed 22's noisy national identity card): the
        // label is still the name's and the name is read alone. Must-fail: such words
        // at a name's usual spacing stay, and the name is not read again.
        let chipped_label = line("ama / Name ES x", vec![word(519, 533, 32, 29, 40.0), word(560, 537, 6, 18, 71.0), word(584, 537, 54, 17, 97.0), word(1107, 514, 47, 94, 6.0), word(1228, 545, 18, 13, 51.0)]);
        let chipped = |x: u32| line("Ajay Prasad Rao hear tage", vec![word(522, 569, 84, 35, 97.0), word(619, 571, 134, 27, 96.0), word(768, 572, 74, 27, 96.0), word(x, 590, 68, 23, 28.0), word(x + 83, 570, 31, 37, 0.0)]);
        for (x, want) in [(1128, "Ajay Prasad Rao"), (860, "Ajay Prasad Rao hear tage")] {
            let mut lines = vec![chipped_label.clone(), chipped(x)];
            super::read_name_bands(&page, &mut lines, &band("Ajay Prasad Rao", 93.0));
            assert_eq!(lines[1].text, want, "{x}");
        }

        // The portrait's hair read in front of a passport's surname (seed 22, "PIN
        // KULKARNI"): read without it. Must-fail: a word there read surely stays.
        let surname_label = line("arart / Surname", vec![word(391, 209, 48, 12, 0.0), word(445, 202, 8, 29, 83.0), word(456, 206, 81, 16, 97.0)]);
        let haired = |c: f32| line("PIN KULKARNI", vec![word(123, 214, 165, 73, c), word(393, 216, 201, 59, 97.0)]);
        for (c, want) in [(22.0, "KULKARNI"), (90.0, "PIN KULKARNI")] {
            let mut lines = vec![surname_label.clone(), haired(c)];
            super::read_name_bands(&page, &mut lines, &band("KULKARNI", 96.0));
            assert_eq!(lines[1].text, want);
        }

        // A letter the page dropped after a name read surely (seed 22's dark PAN, "MENO"
        // of MENON, its N 5 pixels after the word's box): the name read alone up to the
        // letter's end. Must-fail: a reading alone that changes the page's letters, or
        // adds more than two, is not kept.
        let dropped_page = image::GrayImage::from_fn(900, 700, |x, y| image::Luma([if (583..615).contains(&y) && ((470..504).contains(&x) || (512..533).contains(&x) || (540..567).contains(&x) || (573..604).contains(&x) || (609..637).contains(&x)) { 20 } else { 230 }]));
        let dropped = line("HARPREET SINGH MENO", vec![word(48, 584, 242, 30, 93.0), word(307, 583, 142, 32, 93.0), word(470, 583, 134, 32, 91.0)]);
        for (alone, want) in [("HARPREET SINGH MENON", "HARPREET SINGH MENON"), ("HARPREET SINGH MENDN", "HARPREET SINGH MENO"), ("HARPREET SINGH MENONKAR", "HARPREET SINGH MENO")] {
            let engine = band(alone, 95.0);
            let mut lines = vec![father_label.clone(), dropped.clone()];
            super::read_name_bands(&dropped_page, &mut lines, &engine);
            assert_eq!(lines[1].text, want);
            let asked = engine.asked.lock().map(|a| a.clone()).unwrap_or_default();
            assert_eq!(asked[0].0, 637 + 10 - (48 - 10), "up to the letter's end");
        }

        // Not read again: a name read surely (every word confident, only a name's
        // characters), or a doubtful line under no name's label.
        let sure = line("DEEPIKA BANERJEE", vec![word(354, 278, 191, 29, 95.0), word(554, 278, 221, 29, 96.0)]);
        let date_label = line("Date of Birth", vec![word(353, 241, 42, 14, 97.0), word(400, 241, 20, 14, 97.0), word(430, 241, 50, 14, 97.0)]);
        for mut lines in [vec![label.clone(), sure], vec![date_label, name.clone()]] {
            let engine = band("DEEPIKA BANERJEE", 96.0);
            let before: Vec<String> = lines.iter().map(|l| l.text.clone()).collect();
            super::read_name_bands(&page, &mut lines, &engine);
            assert_eq!(lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>(), before);
            assert!(engine.asked.lock().map(|a| a.is_empty()).unwrap_or(false));
        }
        // A reading the engine is unsure of, or one no name is, changes nothing.
        for engine in [band("DEEPIKA BANERJEE", 55.0), band("DEEPIKA 8ANERJEE", 96.0), band("deepika banerjee", 96.0)] {
            let mut lines = vec![label.clone(), name.clone()];
            super::read_name_bands(&page, &mut lines, &engine);
            assert_eq!(lines[1].text, name.text);
        }
    }

    /// The flattened card's format comes from its type where the type has one; an
    /// Aadhaar (a PVC card, a letter's cut-out or a whole page) and a type to be
    /// recognised are flattened at their measured aspect.
    #[test]
    fn a_card_type_with_one_format_is_flattened_at_it() {
        use idv_vision::card_box::CardFormat;
        for t in ["in.pan", "in.voter", "in.national_id", "vn.national_id"] {
            for back in [false, true] {
                assert_eq!(ScanPlan::for_card_type(t, back, 2026).format, Some(CardFormat::Id1), "{t}");
            }
        }
        assert_eq!(ScanPlan::for_card_type("in.passport", false, 2026).format, Some(CardFormat::PassportPage));
        assert_eq!(ScanPlan::for_card_type("in.aadhaar", false, 2026).format, None);
        assert_eq!(ScanPlan::for_recognition(2026).format, None);
        // A recognition scan still stands in for a typed one (it read the same).
        assert!(ScanPlan::for_recognition(2026).covers(&ScanPlan::for_card_type("in.pan", false, 2026)));
    }

    /// detect_id_card_tampering_sync's first scan (a passport's plan, QR codes searched)
    /// stands in for the read of every Latin-script type of that year, not for the CCCD's
    /// Vietnamese one.
    #[test]
    fn a_passport_scan_covers_the_latin_types_only() {
        let first = ScanPlan::for_recognition(2026);
        for t in ["in.passport", "in.pan", "in.voter", "in.aadhaar", "in.national_id"] {
            assert!(first.covers(&ScanPlan::for_card_type(t, false, 2026)), "{t}");
        }
        assert!(!first.covers(&ScanPlan::for_card_type("vn.national_id", false, 2026)));
        assert!(!first.covers(&ScanPlan::for_card_type("in.pan", false, 2025)), "another year pivot");
        assert!(!ScanPlan::for_card_type("in.pan", false, 2026).covers(&first), "no zone searched");
        let passport = ScanPlan::for_card_type("in.passport", false, 2026);
        assert!(!passport.covers(&ScanPlan::for_card_type("in.aadhaar", false, 2026)), "no QR searched");
    }

    /// QR codes are searched where a type's code is read, on both sides, and nowhere else.
    #[test]
    fn the_plan_searches_qr_codes_only_where_they_are_read() {
        for back in [false, true] {
            for t in ["in.aadhaar", "vn.national_id"] {
                assert!(ScanPlan::for_card_type(t, back, 2026).qr, "{t}");
            }
            for t in ["in.pan", "in.voter", "in.passport", "in.national_id"] {
                assert!(!ScanPlan::for_card_type(t, back, 2026).qr, "{t}");
                assert_eq!(crate::card::Codec::of(t, None).is_some(), ScanPlan::for_card_type(t, back, 2026).qr, "the plan and the codecs agree: {t}");
            }
        }
        assert!(ScanPlan::for_recognition(2026).qr);
    }

    use super::*;

    #[test]
    fn the_plan_reads_zones_only_where_cards_carry_them() {
        let plan = |t: &str, back: bool| ScanPlan::for_card_type(t, back, 2026);
        assert!(plan("in.passport", false).mrz);
        assert!(plan("vn.national_id", true).mrz && !plan("vn.national_id", false).mrz);
        assert!(!plan("in.pan", false).mrz && !plan("in.aadhaar", true).mrz);
        assert_eq!(plan("vn.national_id", false).ocr_lang, Some("vie"));
        assert_eq!(plan("in.voter", true).ocr_lang, Some("eng"));
    }

    /// A card judged too blurred whose spectrum shows a lens's disk is deconvolved for
    /// that disk even where its edge blur measures under the Gaussian's threshold (a
    /// voter card's back, little print on it: σ̂ 0.89 under the disk that blurs its
    /// front to 1.28, the independent set's seed 34). Must-fail twins: a card not judged
    /// too blurred at that edge blur has nothing to undo; at an edge blur past the
    /// threshold, a Gaussian.
    /// A card overexposed all over (its paper clipped, its print lifted) is read from a
    /// darkened copy: clipped paper stays white, print faded to light grey turns dark
    /// (Tesseract thresholds between the card's dark header and its paper, and grey at
    /// 230 falls on the paper's side). Must-fail twins: a well exposed card, one not
    /// judged, one with a glare spot (its print away from the spot as readable as ever)
    /// are read as they are; with no card found, the whole photo is judged alike.
    #[test]
    fn a_card_overexposed_all_over_is_read_darkened() {
        use idv_vision::card_sanity::{CardMeasures, CardSanity, CardSanityVerdict};
        let card = RgbImage::from_fn(100, 60, |x, _| image::Rgb([if x < 50 { 230 } else { 255 }; 3]));
        let dark = darkened_for_reading(&card);
        assert_eq!(dark.get_pixel(80, 10).0, [255; 3], "clipped paper");
        assert!(dark.get_pixel(10, 10).0.iter().all(|&c| c < 128), "faded print: {:?}", dark.get_pixel(10, 10));
        assert_eq!(darkened_for_reading(&RgbImage::from_pixel(2, 2, image::Rgb([0; 3]))).get_pixel(0, 0).0, [0; 3]);
        let judged = |luma_p10: f32, clipped_share: f32, glare_box: Option<[f32; 4]>| CardSanity {
            verdict: CardSanityVerdict::ImageTooBright,
            score: 0.0,
            details: Vec::new(),
            measures: CardMeasures { blur_sigma: 0.2, defocus_sigma: 0.0, defocus_photo_sigma: 0.0, luma_p1: 120.0, luma_p10, luma_p90: 255.0, clipped_share, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box, solid_saturated_share: 0.0, cut_corner: None },
        };
        let blown = judged(251.0, 0.9, None);
        assert!(overexposed_all_over(Some(&card), None, Some(&blown), None));
        assert!(!overexposed_all_over(Some(&card), None, Some(&judged(150.0, 0.0, None)), None), "well exposed");
        assert!(!overexposed_all_over(Some(&card), None, None, None), "not judged");
        // A saturated region covering the card whole is its overexposure; a third of it, a spot.
        assert!(overexposed_all_over(Some(&card), None, Some(&judged(251.0, 0.9, Some([0.0, 0.0, 100.0, 58.0]))), None));
        assert!(!overexposed_all_over(Some(&card), None, Some(&judged(251.0, 0.9, Some([0.0, 0.0, 40.0, 50.0]))), None), "a glare spot");
        // No card found: the photo's largest saturated region, from half the photo up,
        // is its overexposure.
        assert!(overexposed_all_over(None, Some(&card), Some(&blown), Some([0.0, 0.0, 100.0, 40.0])));
        assert!(!overexposed_all_over(None, Some(&card), Some(&blown), Some([0.0, 0.0, 30.0, 30.0])), "a glare spot in the photo");
        assert!(!overexposed_all_over(None, None, Some(&blown), None), "no page");
    }

    #[test]
    fn a_disk_the_spectrum_shows_is_undone_whatever_the_edge_blur_measures() {
        use idv_vision::card_sanity::{CardMeasures, CardSanity, CardSanityVerdict};
        // Letters' strokes at pseudo-random places.
        let mut next = idv_vision::testdata::xorshift(0x9e37_79b9);
        let text = idv_vision::testdata::print_strokes(600, 400, &mut next);
        // A disk of radius 6 px, averaged in the encoded values, and a camera's noise.
        let r = 6i64;
        let card = RgbImage::from_fn(600, 400, |x, y| {
            let (mut sum, mut n) = (0u32, 0u32);
            for dy in -r..=r {
                for dx in -r..=r {
                    let (sx, sy) = (x as i64 + dx, y as i64 + dy);
                    if dx * dx + dy * dy <= r * r && (0..600).contains(&sx) && (0..400).contains(&sy) {
                        sum += u32::from(text.get_pixel(sx as u32, sy as u32).0[0]);
                        n += 1;
                    }
                }
            }
            let v = (sum / n.max(1)) as i32 + next(9) as i32 - 4;
            image::Rgb([v.clamp(0, 255) as u8; 3])
        });
        let judged = |verdict, blur_sigma| CardSanity {
            verdict,
            score: 0.1,
            details: Vec::new(),
            // A defocus σ whose disk guess is 7.2 px on a card 600 px wide.
            measures: CardMeasures { blur_sigma, defocus_sigma: 7.26, defocus_photo_sigma: 0.0, luma_p1: 30.0, luma_p10: 60.0, luma_p90: 225.0, clipped_share: 0.0, hole_share: 0.0, corner_coverage: 1.0, hole_box: None, glare_share: 0.0, glare_box: None, solid_saturated_share: 0.0, cut_corner: None },
        };
        let undone = blur_to_undo(&card, &judged(CardSanityVerdict::ImageTooBlur, 0.9));
        assert!(matches!(undone, Some(Blur::Disk(radius)) if (4.5..=7.5).contains(&radius)), "{undone:?}");
        assert!(blur_to_undo(&card, &judged(CardSanityVerdict::Good, 0.9)).is_none());
        assert!(matches!(blur_to_undo(&card, &judged(CardSanityVerdict::Good, 1.5)), Some(Blur::Gaussian(_))));
    }
}
