//! Diagnosis of card finding and card sanity on photos:
//!     cargo run --release -p idv-vision --example card_debug -- PHOTO... 
//! Prints one line per photo: what `find_card` found and the sanity verdict with its measures, and writes
//! `PHOTO.mask.png` (the card mask in the working frame, the fitted quad's corners marked).
//! With `IDV_CARD_DEBUG_FLAT` set, also `PHOTO.flat.png`: the card rectified to 1200 px.
use idv_vision::card_box::{find_card, rectify, CardFind};
use idv_vision::card_sanity::card_sanity;

fn main() {
    // IDV_CARD_DEBUG_VERBOSE=1: corners, background colours and every measure.
    let verbose = std::env::var_os("IDV_CARD_DEBUG_VERBOSE").is_some();
    for path in std::env::args().skip(1) {
        let Ok(img) = image::open(&path) else {
            println!("{path}: not an image");
            continue;
        };
        let img = img.to_rgb8();
        if verbose {
            println!("  working copy's noise σ {:.2} (the hard-smoothed try from {})", idv_vision::card_box::working_noise_sigma(&img).unwrap_or(0.0), idv_vision::card_box::NOISY_FROM_SIGMA);
        }
        match find_card(&img) {
            CardFind::One(loc) => {
                let card = rectify(&img, &loc.quad, 1200);
                if std::env::var_os("IDV_CARD_DEBUG_FLAT").is_some() {
                    let _ = card.save(format!("{path}.flat.png"));
                }
                let s = card_sanity(&card, Some(&loc));
                let ring = idv_vision::card_sanity::border_inside_card(&loc);
                // How much of the card's box its mask leaves out as background-like: a
                // card near the table's colour is patchy.
                let (mut inside, mut table_like) = (0usize, 0usize);
                let (x0, x1, y0, y1) = loc.mask.enumerate_pixels().filter(|p| p.2 .0[0] != 0).fold((u32::MAX, 0, u32::MAX, 0), |b, p| (b.0.min(p.0), b.1.max(p.0), b.2.min(p.1), b.3.max(p.1)));
                for (x, y, px) in loc.background_like.enumerate_pixels() {
                    if x > x0 && x < x1 && y > y0 && y < y1 {
                        inside += 1;
                        table_like += usize::from(px.0[0] != 0);
                    }
                }
                println!("{path}\tone\t{:?}\tcoverage {:.2}\thole {:.4}\tring inside the card {ring:.3}\ttable-like inside {:.3}", s.verdict, s.measures.corner_coverage, s.measures.hole_share, table_like as f32 / inside.max(1) as f32);
                if verbose {
                    let gray = image::DynamicImage::ImageRgb8(card.clone()).into_luma8();
                    println!("  corners {:?}\n  bg {:?} spread {:.1} texture {:.1}\n  light spread {:.3} (OCR thresholds locally past {})\n  {:?}", loc.quad.corners(), loc.background_colors, loc.background_spread, loc.background_texture, idv_vision::ocr::light_spread(&gray), idv_vision::ocr::UNEVEN_LIGHT, s.measures);
                }
                let mut m = image::RgbImage::from_fn(loc.mask.width(), loc.mask.height(), |x, y| {
                    let v = loc.mask.get_pixel(x, y).0[0];
                    let b = loc.background_like.get_pixel(x, y).0[0];
                    image::Rgb([v, v / 2, b / 2])
                });
                for c in loc.quad.scaled(1.0 / loc.scale, 1.0 / loc.scale).corners() {
                    for dy in -3i32..=3 {
                        for dx in -3i32..=3 {
                            let (x, y) = (c.x as i32 + dx, c.y as i32 + dy);
                            if x >= 0 && y >= 0 && (x as u32) < m.width() && (y as u32) < m.height() {
                                m.put_pixel(x as u32, y as u32, image::Rgb([0, 255, 0]));
                            }
                        }
                    }
                }
                let _ = m.save(format!("{path}.mask.png"));
            }
            other => {
                let s = card_sanity(&img, None);
                let found = match other {
                    CardFind::Several(n) => format!("several ({n})"),
                    CardFind::FillsFrame => "fills frame".into(),
                    _ => "none".into(),
                };
                println!("{path}\t{found}\t{:?} (whole photo)", s.verdict);
                if verbose {
                    println!("  {:?}", s.measures);
                }
            }
        }
    }
}
