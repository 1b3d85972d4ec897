//! Photos of generated cards, as a reader gets them (JPEG-decoded PNGs), to look at or to
//! upload:
//!
//! - `card_samples DIR [SEED]`: every type, clean and in each degradation, with the
//!   expected fields (`card_gen::write_samples`; minutes in a debug build).
//! - `card_samples DIR SEED TYPE`: one clean photo of one `card_type` (`in_pan_clean.png`)
//!   and its `_expected.txt`: what the browser test (scripts/browser_test.sh) uploads.

use idv_tests::card_gen::{capture, generate, write_samples, CardFonts, CardKind, Degradation};
use rand::SeedableRng;
use std::path::Path;
use std::process::ExitCode;

fn one_clean_photo(dir: &Path, seed: u64, card_type: &str) -> Result<(), String> {
    let kind = CardKind::from_card_type(card_type).ok_or_else(|| format!("{card_type}: not one of the six card types"))?;
    let fonts = CardFonts::load()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let card = generate(&fonts, kind, &mut rng);
    let photo = capture(&card.front, Degradation::Clean, &mut rng);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = card_type.replace('.', "_");
    let decoded = image::load_from_memory(&photo.jpeg).map_err(|e| e.to_string())?.to_rgb8();
    decoded.save(dir.join(format!("{name}_clean.png"))).map_err(|e| e.to_string())?;
    let expected: String = card.expected.iter().map(|(f, v)| format!("{f}\t{v}\n")).collect();
    std::fs::write(dir.join(format!("{name}_expected.txt")), expected).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), seed) = (args.first(), args.get(1).map(|s| s.parse::<u64>())) else {
        eprintln!("usage: card_samples DIR [SEED [CARD_TYPE]]");
        return ExitCode::from(2);
    };
    let seed = match seed {
        None => 42,
        Some(Ok(seed)) => seed,
        Some(Err(e)) => {
            eprintln!("SEED: {e}");
            return ExitCode::from(2);
        }
    };
    let written = match args.get(2) {
        Some(card_type) => one_clean_photo(Path::new(dir), seed, card_type),
        None => write_samples(Path::new(dir), seed),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("card_samples: {e}");
            ExitCode::FAILURE
        }
    }
}
