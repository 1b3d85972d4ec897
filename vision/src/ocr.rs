//! OCR (issue 8): the text lines of a grey image, each with its confidence and box, read
//! by a [`TextRecognizer`]. Callers (the MRZ reader, [`crate::mrz`]) see only this trait,
//! so they are tested with scripted recognizers and run with any engine.
//!
//! The one engine is **Tesseract** (Debian's `libtesseract` 5, LSTM models) through the
//! `tesseract-plumbing` binding, compiled in with this crate's `tesseract` feature (it
//! links `libtesseract`/`libleptonica` and needs `libclang` to build: scripts/lib.sh
//! `ensure_tesseract`). Without the feature [`recognizer`] is `None`, and an engine whose
//! language data is not installed answers [`OcrError::LanguageMissing`]: callers turn
//! both into "not performed", never into a made-up field.
//!
//! Language data (`<lang>.traineddata`) is looked for in [`tessdata_dirs`], in order:
//! `IDV_TESSDATA_DIR`, the models dir's `tessdata/` (where scripts/models.sh puts the
//! OCR-B `mrz` model), `TESSDATA_PREFIX`, then Debian's `/usr/share/tesseract-ocr/{5,4.00}/tessdata`
//! (`eng`, `vie`, `hin` from the `tesseract-ocr-*` packages).
//!
//! Tesseract sees only pixels this crate hands it (8-bit grey, at most [`MAX_SIDE`] a
//! side), never an uploaded file: no image format is parsed by it. A call cannot be
//! interrupted once started; its cost is bounded by the image size the caller passes.
//! Tesseract's OpenMP threads contend with the service's own on small machines: set
//! `OMP_THREAD_LIMIT=1` in the service's environment (it halves the time of a page on 2
//! cores; read once when the process starts).

use image::GrayImage;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

/// A box in the image's pixel coordinates (left, top, size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TextBox {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl TextBox {
    pub fn bottom(&self) -> u32 {
        self.y.saturating_add(self.height)
    }
    pub fn right(&self) -> u32 {
        self.x.saturating_add(self.width)
    }
    /// The smallest box holding both.
    pub fn union(&self, other: &TextBox) -> TextBox {
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        TextBox { x, y, width: self.right().max(other.right()) - x, height: self.bottom().max(other.bottom()) - y }
    }
    /// Moved by (dx, dy) and scaled by `1 / scale` (from a scaled crop back to the image
    /// it was cut from).
    pub fn unscale(&self, scale: f32, dx: u32, dy: u32) -> TextBox {
        let f = |v: u32| (v as f32 / scale).round() as u32;
        TextBox { x: f(self.x) + dx, y: f(self.y) + dy, width: f(self.width), height: f(self.height) }
    }
}

/// One line of text as the engine read it: words joined by single spaces.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OcrLine {
    pub text: String,
    /// The engine's confidence, 0–100 (the mean over the line's words).
    pub confidence: f32,
    pub bbox: TextBox,
    /// Each character of the line's words in order (spaces between words not included)
    /// with the engine's confidence in it, 0–100; empty where the engine gave none.
    #[serde(skip)]
    pub symbols: Vec<(char, f32)>,
    /// The line's words in order, each with its box and confidence, one per word of
    /// `text`; empty where the engine gave none (a line read another way, or moved).
    #[serde(skip)]
    pub words: Vec<TsvWord>,
}

impl OcrLine {
    /// The line as read from a crop whose top-left corner is at (`dx`, `dy`) of the page:
    /// its box and its words' boxes in the page's pixels.
    pub fn moved(self, dx: u32, dy: u32) -> OcrLine {
        self.unscaled(1.0, dx, dy)
    }

    /// The line as read from a crop scaled by `scale` whose top-left corner is at (`dx`,
    /// `dy`) of the page: its box and its words' boxes in the page's pixels.
    pub fn unscaled(mut self, scale: f32, dx: u32, dy: u32) -> OcrLine {
        self.bbox = self.bbox.unscale(scale, dx, dy);
        for w in &mut self.words {
            w.bbox = w.bbox.unscale(scale, dx, dy);
        }
        self
    }
}

/// How the engine splits the image into lines (Tesseract's page segmentation modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Full page layout analysis (PSM 3): a photo with text here and there.
    Auto,
    /// One uniform block of text (PSM 6): a crop around lines already found.
    Block,
    /// As much text as possible in no particular order (PSM 11).
    Sparse,
}

#[derive(Debug, Clone, Copy)]
pub struct OcrParams<'a> {
    /// Language data name (`eng`, `mrz`, ...): ASCII letters, digits and `_` only.
    pub lang: &'a str,
    /// Only these characters may be recognised (`None`: the model's whole alphabet).
    pub char_whitelist: Option<&'a str>,
    pub layout: Layout,
    /// Whether each line's characters' confidences are wanted (`OcrLine::symbols`): a
    /// second rendering of the recognition (hOCR). The card's print and its bands read
    /// alone want them (identifiers' `digit_confidence_scores`, a blurred card's values
    /// vouched for by them); a zone's lines, judged by their check digits, do not.
    pub confidences: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OcrError {
    /// No engine (not compiled in, or it cannot start): "not performed".
    #[error("OCR is not available: {0}")]
    Unavailable(String),
    /// The engine runs but this language's data is not installed: "not performed".
    #[error("OCR language data {lang:?} is not installed (looked in {searched})")]
    LanguageMissing { lang: String, searched: String },
    /// Parameters or an image the engine is not given (a caller's mistake).
    #[error("OCR input refused: {0}")]
    BadInput(String),
    #[error("OCR failed: {0}")]
    Failed(String),
}

/// Longest side of an image given to the engine.
pub const MAX_SIDE: u32 = 4096;
/// Shortest side: anything smaller holds no readable line.
pub const MIN_SIDE: u32 = 8;

pub trait TextRecognizer: Send + Sync {
    /// The text lines of `image`, in the engine's reading order.
    fn read_lines(&self, image: &GrayImage, params: &OcrParams<'_>) -> Result<Vec<OcrLine>, OcrError>;
    /// Whether `lang`'s data is installed.
    fn has_language(&self, lang: &str) -> bool;
    /// Engine and version, for logs and answers (`tesseract 5.3.0`).
    fn describe(&self) -> String;
}

/// The checks every engine applies before work: the image size and the parameters.
pub fn check_input(image: &GrayImage, params: &OcrParams<'_>) -> Result<(), OcrError> {
    let (w, h) = image.dimensions();
    if w.max(h) > MAX_SIDE || w.min(h) < MIN_SIDE {
        return Err(OcrError::BadInput(format!("image of {w}x{h} pixels; sides must be {MIN_SIDE} to {MAX_SIDE}")));
    }
    if params.lang.is_empty() || params.lang.len() > 32 || !params.lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(OcrError::BadInput(format!("language name {:?}", params.lang)));
    }
    if let Some(w) = params.char_whitelist {
        // The space is allowed: it lets Tesseract split a grouped number into words.
        if w.trim().is_empty() || !w.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
            return Err(OcrError::BadInput("the character whitelist must be printable ASCII".into()));
        }
    }
    Ok(())
}

/// Where language data is looked for, in order (module doc).
pub fn tessdata_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    dirs.extend(env("IDV_TESSDATA_DIR"));
    dirs.push(crate::registry::models_dir().join("tessdata"));
    if let Some(p) = env("TESSDATA_PREFIX") {
        // Tesseract accepts both the tessdata dir and its parent here.
        dirs.push(p.join("tessdata"));
        dirs.push(p);
    }
    dirs.push(PathBuf::from("/usr/share/tesseract-ocr/5/tessdata"));
    dirs.push(PathBuf::from("/usr/share/tesseract-ocr/4.00/tessdata"));
    dirs
}

/// The first of `dirs` holding `<lang>.traineddata`.
pub fn find_language(dirs: &[PathBuf], lang: &str) -> Option<PathBuf> {
    dirs.iter().find(|d| d.join(format!("{lang}.traineddata")).is_file()).cloned()
}

/// One word of a TSV line: its box, the engine's confidence (`None`: it gave none) and
/// how many characters it has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TsvWord {
    pub bbox: TextBox,
    pub confidence: Option<f32>,
    pub chars: usize,
}

/// Lines from Tesseract's TSV output (`level page block par line word left top width
/// height conf text`): the words (level 5) of each (block, paragraph, line), joined by
/// spaces, their boxes united and their confidences averaged; each line keeps its words
/// ([`OcrLine::words`]). Empty lines are dropped.
pub fn lines_from_tsv(tsv: &str) -> Vec<OcrLine> {
    /// (page, block, paragraph, line): a line's key in the TSV.
    type Key = (u32, u32, u32, u32);
    let mut out: Vec<(Key, OcrLine)> = Vec::new();
    for row in tsv.lines() {
        let cols: Vec<&str> = row.split('\t').collect();
        if cols.len() < 12 || cols[0] != "5" {
            continue;
        }
        let num = |i: usize| cols[i].trim().parse::<u32>().ok();
        let (Some(page), Some(block), Some(par), Some(line)) = (num(1), num(2), num(3), num(4)) else { continue };
        let (Some(x), Some(y), Some(width), Some(height)) = (num(6), num(7), num(8), num(9)) else { continue };
        let conf = cols[10].trim().parse::<f32>().ok().filter(|c| *c >= 0.0);
        // The text is the last column; a tab inside it is not possible in Tesseract's TSV.
        let text = cols[11..].join("\t");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let key = (page, block, par, line);
        let word = TsvWord { bbox: TextBox { x, y, width, height }, confidence: conf, chars: text.chars().filter(|c| !c.is_whitespace()).count() };
        match out.last_mut() {
            Some((k, l)) if *k == key => {
                l.text.push(' ');
                l.text.push_str(text);
                l.bbox = l.bbox.union(&word.bbox);
                l.words.push(word);
            }
            _ => out.push((key, OcrLine { text: text.to_string(), confidence: 0.0, bbox: word.bbox, symbols: Vec::new(), words: vec![word] })),
        }
    }
    out.into_iter()
        .map(|(_, mut l)| {
            l.confidence = mean_confidence(&l.words);
            l
        })
        .collect()
}

/// The mean confidence of the words that have one (0 when none has).
fn mean_confidence(words: &[TsvWord]) -> f32 {
    let confs: Vec<f32> = words.iter().filter_map(|w| w.confidence).collect();
    if confs.is_empty() { 0.0 } else { confs.iter().sum::<f32>() / confs.len() as f32 }
}

/// A line's last words that are no print of it: a pen's stroke read as letters. A PAN's
/// signature sits on the father's name's row, and page layout joins it to the name
/// ("VIKRAM AGARWAL SOG", "VENKATESH KULKARNI NY": the independent card set's wrong
/// values). Such a word is short (at most [`MARK_MAX_CHARS`] letters or digits), read with
/// little confidence (under [`MARK_MAX_CONFIDENCE`]) and much taller than the line's
/// other words (at least [`MARK_MIN_HEIGHT_RATIO`] times their median height: the
/// signatures measured 2.3-2.8, print of one line 1.0-1.3). All three, and only at the
/// end of a line of other words: print is never taken out of the middle of a line. A
/// longer word is one when taller still and set apart ([`MARK_LONG_MAX_CHARS`]).
/// The symbols go with their words.
pub fn without_trailing_marks(mut line: OcrLine) -> OcrLine {
    let kept = {
        let words = &line.words;
        let texts: Vec<&str> = line.text.split(' ').collect();
        if texts.len() != words.len() {
            return line;
        }
        let mut kept = words.len();
        while kept > 1 {
            let word = &words[kept - 1];
            // Letters and digits only: "CES:" is three.
            let letters = texts[kept - 1].chars().filter(|c| c.is_alphanumeric()).count();
            let mut others: Vec<u32> = words[..kept - 1].iter().map(|w| w.bbox.height).collect();
            others.sort_unstable();
            let median = others[others.len() / 2] as f32;
            let ratio = word.bbox.height as f32 / median.max(1.0);
            // A longer stroke ("PAUCLS", "Sees") is a mark where it is taller still and
            // stands apart from the word before by more than two of the print's heights.
            let apart = word.bbox.x as f32 > words[kept - 2].bbox.right() as f32 + 2.0 * median;
            // A flat one (a stripe's or a hologram's edge, "aay" 8 px high beside print
            // of 30) is one where it stands as far apart.
            let shaped = (letters <= MARK_MAX_CHARS && ratio >= MARK_MIN_HEIGHT_RATIO)
                || (letters <= MARK_LONG_MAX_CHARS && apart && (ratio >= MARK_LONG_MIN_HEIGHT_RATIO || ratio <= MARK_FLAT_MAX_HEIGHT_RATIO));
            let mark = shaped && word.confidence.is_some_and(|c| c < MARK_MAX_CONFIDENCE);
            if !mark {
                break;
            }
            kept -= 1;
        }
        kept
    };
    if kept == line.words.len() {
        return line;
    }
    let total: usize = line.words.iter().map(|w| w.chars).sum();
    line.words.truncate(kept);
    let kept_words = &line.words;
    line.text = line.text.split(' ').take(kept).collect::<Vec<_>>().join(" ");
    line.bbox = kept_words.iter().skip(1).fold(kept_words[0].bbox, |b, w| b.union(&w.bbox));
    line.confidence = mean_confidence(kept_words);
    if line.symbols.len() == total {
        line.symbols.truncate(kept_words.iter().map(|w| w.chars).sum());
    } else {
        line.symbols.clear();
    }
    line
}

/// See [`without_trailing_marks`].
pub const MARK_MAX_CHARS: usize = 3;
pub const MARK_MAX_CONFIDENCE: f32 = 60.0;
pub const MARK_MIN_HEIGHT_RATIO: f32 = 1.8;
/// A longer mark ([`without_trailing_marks`]): up to this many letters or digits, at
/// least [`MARK_LONG_MIN_HEIGHT_RATIO`] times the print's median height and more than two
/// heights from the word before (seed 11's PAN signatures: "PAUCLS", "Sees", "SINE!",
/// 2.9-3.2 times the print, 300 px right of the name, confidence 1-41).
pub const MARK_LONG_MAX_CHARS: usize = 8;
pub const MARK_LONG_MIN_HEIGHT_RATIO: f32 = 2.3;
/// A flat mark ([`without_trailing_marks`]): at most this share of the print's median
/// height, more than two heights from the word before (the independent set's seed 12:
/// "aay", 8 px beside a national identity card's name of 30, 327 px after it, confidence
/// 45, which made the name one ending in a lowercase word, not given). Print's own
/// shortest glyphs (a hyphen, a comma) are a half or more of the print's height as OCR
/// boxes them, or belong to a word.
pub const MARK_FLAT_MAX_HEIGHT_RATIO: f32 = 0.34;

/// The lines of Tesseract's hOCR output rendered with `hocr_char_boxes` (one
/// `ocrx_cinfo` span per character, `x_conf` its confidence): each line's text (its
/// words joined by single spaces, as [`lines_from_tsv`] joins them) and its characters
/// with their confidences. Tolerant: a span it cannot read is skipped, never a panic.
pub fn symbols_from_hocr(hocr: &str) -> Vec<(String, Vec<(char, f32)>)> {
    const LINE_CLASSES: [&str; 4] = ["'ocr_line'", "'ocr_header'", "'ocr_caption'", "'ocr_textfloat'"];
    let mut out: Vec<(String, Vec<(char, f32)>)> = Vec::new();
    let mut rest = hocr;
    // Whether the next character starts a new word of the current line.
    let mut new_word = false;
    while let Some(at) = rest.find("<span class=") {
        rest = &rest[at + "<span class=".len()..];
        if LINE_CLASSES.iter().any(|c| rest.starts_with(c)) {
            out.push((String::new(), Vec::new()));
            new_word = false;
        } else if rest.starts_with("'ocrx_word'") {
            new_word = true;
        } else if rest.starts_with("'ocrx_cinfo'") {
            let Some(end_tag) = rest.find('>') else { break };
            let conf = rest[..end_tag].split("x_conf ").nth(1).and_then(|c| c.split(|ch: char| ch == ';' || ch == '\'' || ch == '"').next()).and_then(|c| c.trim().parse::<f32>().ok());
            let body = &rest[end_tag + 1..];
            let Some(close) = body.find("</span>") else { break };
            let text = unescape_html(&body[..close]);
            if let (Some(conf), Some(line)) = (conf, out.last_mut()) {
                for ch in text.chars() {
                    if new_word && !line.0.is_empty() {
                        line.0.push(' ');
                    }
                    new_word = false;
                    line.0.push(ch);
                    line.1.push((ch, conf.clamp(0.0, 100.0)));
                }
            }
            rest = &body[close..];
        }
    }
    out.retain(|(text, _)| !text.is_empty());
    out
}

fn unescape_html(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&apos;", "'").replace("&amp;", "&")
}

/// Gives each line the symbols of the hOCR line with the same text (in order; a line
/// whose text no hOCR line has keeps none).
pub fn attach_symbols(lines: &mut [OcrLine], hocr_lines: Vec<(String, Vec<(char, f32)>)>) {
    let mut pool: Vec<Option<(String, Vec<(char, f32)>)>> = hocr_lines.into_iter().map(Some).collect();
    for line in lines.iter_mut() {
        if let Some(slot) = pool.iter_mut().find(|s| s.as_ref().is_some_and(|(t, _)| *t == line.text)) {
            if let Some((_, symbols)) = slot.take() {
                line.symbols = symbols;
            }
        }
    }
}

/// The engine compiled into this build, if any (`tesseract` feature).
pub fn recognizer() -> Option<Arc<dyn TextRecognizer>> {
    #[cfg(feature = "tesseract")]
    {
        Some(Arc::new(tesseract::Tesseract::new(tessdata_dirs())))
    }
    #[cfg(not(feature = "tesseract"))]
    {
        None
    }
}

/// [`light_spread`] past which a page is thresholded locally for OCR (Tesseract's
/// Sauvola) rather than once for the whole page: evenly lit cards of the evaluation
/// measure ≤ 0.25, a shadow at 55 % over part of a card 0.45-0.55.
pub const UNEVEN_LIGHT: f32 = 0.3;

/// Side of the blocks over which [`light_spread`] takes the paper's brightness, in
/// pixels, and how many blocks each way the brightest is looked for (a 56-px window:
/// wider than a letter's stroke or a line of print on a page read at a card's reading
/// width, so the brightest pixel in it is paper).
const PAPER_BLOCK: usize = 8;
const PAPER_REACH: usize = 3;

/// How unevenly a page's paper is lit: the paper's brightness estimated around every
/// block (the brightest pixel within [`PAPER_REACH`] blocks of it, a 3 x 3 mean of that),
/// and `(p95 - p10) / p95` over the page. The 10th percentile, not the darkest: a
/// punched hole, a cut corner or a dark portrait shows no paper, but they are small or
/// (the portrait's edge) narrower than the window. Even light across a card measures
/// below 0.1 (the evaluation's captures: a 3-8 % gradient), a shadow over part of it its
/// depth (0.45 for a shadow at 55 %). 0 for a page too small to measure.
pub fn light_spread(gray: &GrayImage) -> f32 {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    let (gw, gh) = (w / PAPER_BLOCK, h / PAPER_BLOCK);
    if gw < 2 * PAPER_REACH + 1 || gh < 2 * PAPER_REACH + 1 {
        return 0.0;
    }
    let l = gray.as_raw();
    let mut block = vec![0f32; gw * gh];
    for y in 0..gh * PAPER_BLOCK {
        for x in 0..gw * PAPER_BLOCK {
            let b = &mut block[(y / PAPER_BLOCK) * gw + x / PAPER_BLOCK];
            *b = b.max(f32::from(l[y * w + x]));
        }
    }
    let at = |v: &[f32], x: usize, y: usize, dx: isize, dy: isize| {
        let xx = x.saturating_add_signed(dx).min(gw - 1);
        let yy = y.saturating_add_signed(dy).min(gh - 1);
        v[yy * gw + xx]
    };
    let r = PAPER_REACH as isize;
    let mut paper = vec![0f32; block.len()];
    for y in 0..gh {
        for x in 0..gw {
            let mut m = 0f32;
            for dy in -r..=r {
                for dx in -r..=r {
                    m = m.max(at(&block, x, y, dx, dy));
                }
            }
            paper[y * gw + x] = m;
        }
    }
    let mut smooth = Vec::with_capacity(paper.len());
    for y in 0..gh {
        for x in 0..gw {
            let mut s = 0f32;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    s += at(&paper, x, y, dx, dy);
                }
            }
            smooth.push(s / 9.0);
        }
    }
    smooth.sort_by(f32::total_cmp);
    let q = |f: f32| smooth[((smooth.len() - 1) as f32 * f) as usize];
    let (lo, hi) = (q(0.10), q(0.95));
    if hi < 1.0 {
        return 0.0;
    }
    ((hi - lo) / hi).clamp(0.0, 1.0)
}

#[cfg(feature = "tesseract")]
pub mod tesseract {
    //! Tesseract through `tesseract-plumbing` (safe wrappers over the C API). An engine
    //! instance (`TessBaseAPI`, one loaded language) serves one call at a time: instances
    //! are kept in a small pool per language and reused, since loading a model costs
    //! ~50–200 ms.

    use super::{attach_symbols, check_input, find_language, symbols_from_hocr, lines_from_tsv, without_trailing_marks, Layout, OcrError, OcrLine, OcrParams, TextRecognizer};
    use image::GrayImage;
    use std::collections::HashMap;
    use std::ffi::CString;
    use std::path::PathBuf;
    use std::sync::Mutex;
    use tesseract_plumbing::tesseract_sys as sys;
    use tesseract_plumbing::TessBaseApi;

    /// Idle instances kept per language.
    const MAX_IDLE: usize = 4;

    pub struct Tesseract {
        dirs: Vec<PathBuf>,
        idle: Mutex<HashMap<String, Vec<TessBaseApi>>>,
    }

    fn cstring(s: &str) -> Result<CString, OcrError> {
        CString::new(s).map_err(|_| OcrError::BadInput("NUL in a parameter".into()))
    }

    impl Tesseract {
        pub fn new(dirs: Vec<PathBuf>) -> Self {
            Tesseract { dirs, idle: Mutex::new(HashMap::new()) }
        }

        fn searched(&self) -> String {
            self.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        }

        fn take(&self, lang: &str) -> Result<TessBaseApi, OcrError> {
            if let Some(api) = self.idle.lock().ok().and_then(|mut m| m.get_mut(lang).and_then(Vec::pop)) {
                return Ok(api);
            }
            let dir = find_language(&self.dirs, lang).ok_or_else(|| OcrError::LanguageMissing { lang: lang.into(), searched: self.searched() })?;
            let mut api = TessBaseApi::create();
            api.init_2(Some(&cstring(&dir.to_string_lossy())?), Some(&cstring(lang)?))
                .map_err(|_| OcrError::Failed(format!("Tesseract could not load {lang} from {}", dir.display())))?;
            // Tesseract's diagnostics ("Estimating resolution ...") stay off stderr.
            let _ = api.set_variable(c"debug_file", c"/dev/null");
            Ok(api)
        }

        fn give_back(&self, lang: &str, api: TessBaseApi) {
            if let Ok(mut m) = self.idle.lock() {
                let v = m.entry(lang.to_string()).or_default();
                if v.len() < MAX_IDLE {
                    v.push(api);
                }
            }
        }

        fn run(api: &mut TessBaseApi, image: &GrayImage, params: &OcrParams<'_>) -> Result<Vec<OcrLine>, OcrError> {
            let whitelist = cstring(params.char_whitelist.unwrap_or(""))?;
            api.set_variable(c"tessedit_char_whitelist", &whitelist).map_err(|_| OcrError::Failed("setting the whitelist".into()))?;
            // Per-character confidences only: without them the lines are still read.
            let _ = api.set_variable(c"hocr_char_boxes", c"1");
            // Tesseract thresholds a page once, globally (Otsu): print in a shadow over
            // part of a card falls below that threshold as whole words ("ATESH KUMAR
            // YADAV" for "VENKATESH KUMAR YADAV"). A page whose paper is unevenly lit is
            // thresholded locally (Sauvola) instead; evenly lit pages keep Otsu, which
            // reads a deblurred card's soft strokes better.
            let method = if super::light_spread(image) > super::UNEVEN_LIGHT { c"2" } else { c"0" };
            api.set_variable(c"thresholding_method", method).map_err(|_| OcrError::Failed("setting the thresholding method".into()))?;
            api.set_page_seg_mode(match params.layout {
                Layout::Auto => sys::TessPageSegMode_PSM_AUTO,
                Layout::Block => sys::TessPageSegMode_PSM_SINGLE_BLOCK,
                Layout::Sparse => sys::TessPageSegMode_PSM_SPARSE_TEXT,
            });
            let (w, h) = image.dimensions();
            // Sides are at most MAX_SIDE (checked), so these fit an i32.
            let (wi, hi) = (w as i32, h as i32);
            api.set_image(image.as_raw(), wi, hi, 1, wi).map_err(|e| OcrError::BadInput(e.to_string()))?;
            // The images here are photos scaled for reading: the nominal resolution only
            // silences Tesseract's guess.
            api.set_source_resolution(300);
            api.recognize().map_err(|_| OcrError::Failed("Tesseract could not recognise the image".into()))?;
            let tsv = api.get_tsv_text(0).map_err(|_| OcrError::Failed("Tesseract gave no result".into()))?;
            let mut lines = lines_from_tsv(&tsv.as_ref().to_string_lossy());
            // Per-character confidences, where asked for (`OcrParams::confidences`): the
            // same recognition rendered as hOCR with character boxes. Without it the
            // lines are still read, only without them. A read with a character whitelist
            // keeps every mark of its lines.
            if params.confidences {
                if let Ok(hocr) = api.get_hocr_text(0) {
                    attach_symbols(&mut lines, symbols_from_hocr(&hocr.as_ref().to_string_lossy()));
                }
            }
            if params.char_whitelist.is_some() {
                return Ok(lines);
            }
            Ok(lines.into_iter().map(without_trailing_marks).collect())
        }
    }

    impl TextRecognizer for Tesseract {
        fn read_lines(&self, image: &GrayImage, params: &OcrParams<'_>) -> Result<Vec<OcrLine>, OcrError> {
            check_input(image, params)?;
            let mut api = self.take(params.lang)?;
            let out = Self::run(&mut api, image, params);
            // An instance that failed is dropped, not reused.
            if out.is_ok() {
                self.give_back(params.lang, api);
            }
            out
        }

        fn has_language(&self, lang: &str) -> bool {
            find_language(&self.dirs, lang).is_some()
        }

        fn describe(&self) -> String {
            format!("tesseract {}", tesseract_plumbing::version().to_string_lossy())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t1500\t550\t-1\t
2\t1\t1\t0\t0\t0\t190\t315\t1120\t80\t-1\t
4\t1\t1\t1\t1\t0\t190\t315\t1118\t26\t-1\t
5\t1\t1\t1\t1\t1\t190\t315\t1118\t26\t92.5\tP<INDSHARMA<<PRIYA<<<<
5\t1\t1\t1\t2\t1\t190\t368\t500\t28\t90\tZ1234567<0IND90081
5\t1\t1\t1\t2\t2\t700\t366\t608\t30\t80\t54F3103145<<02
5\t1\t1\t1\t3\t1\t190\t400\t50\t28\t95\t 
5\t1\t2\t1\t1\t1\t10\t20\t30\t40\t-1\tX
5\tbad\trow
";

    /// A card-sized page (1200 x 760) of dark "words" on light paper, with a dark
    /// "portrait" (200 x 260) at its left and a dark punched hole; its left part up to
    /// `shadow_until` (a fraction of its width) lit at 55 % when given.
    fn page(shadow_until: Option<f32>) -> GrayImage {
        GrayImage::from_fn(1200, 760, |x, y| {
            let ink = y % 50 >= 15 && y % 50 < 35 && x % 24 < 16 && x > 300;
            let portrait = (60..260).contains(&x) && (200..460).contains(&y);
            let hole = (x as i32 - 1000).pow(2) + (y as i32 - 120).pow(2) < 20 * 20;
            let v: f32 = if ink || hole { 40.0 } else if portrait { 70.0 } else { 230.0 };
            let light = match shadow_until {
                Some(f) if (x as f32) < f * 1200.0 => 0.55,
                _ => 1.0,
            };
            Luma([(v * light).round() as u8])
        })
    }

    #[test]
    fn a_shadow_over_part_of_a_page_measures_as_uneven_light() {
        // Even light: print, a dark portrait and a hole are no unevenness.
        let even = light_spread(&page(None));
        assert!(even < 0.1, "{even}");
        // A shadow over a third or more of the page: its depth.
        for f in [0.35, 0.5, 0.8] {
            let spread = light_spread(&page(Some(f)));
            assert!(spread > UNEVEN_LIGHT && (0.4..=0.5).contains(&spread), "shadow over {f}: {spread}");
        }
        // A sliver of shadow (5 %) is below the 10th percentile: even.
        assert!(light_spread(&page(Some(0.05))) < UNEVEN_LIGHT);
        // A page too small to measure, a black page.
        assert_eq!(light_spread(&GrayImage::new(40, 40)), 0.0);
        assert_eq!(light_spread(&GrayImage::new(800, 500)), 0.0);
    }

    #[test]
    fn tsv_words_become_lines() {
        let lines = lines_from_tsv(TSV);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0].text, "P<INDSHARMA<<PRIYA<<<<");
        assert_eq!(lines[0].bbox, TextBox { x: 190, y: 315, width: 1118, height: 26 });
        assert_eq!(lines[1].text, "Z1234567<0IND90081 54F3103145<<02");
        assert_eq!(lines[1].bbox, TextBox { x: 190, y: 366, width: 1118, height: 30 });
        assert!((lines[1].confidence - 85.0).abs() < 1e-4);
        // A word without a confidence counts for none.
        assert_eq!((lines[2].text.as_str(), lines[2].confidence), ("X", 0.0));
        assert!(lines_from_tsv("").is_empty() && lines_from_tsv("garbage\nmore").is_empty());
    }

    /// A PAN's father's name with the signature beside it on its row, as Tesseract 5.3
    /// read the independent card set's `in.pan-hole-002` (seed 5): the stroke read as
    /// "NY", 86 px tall beside print 36-37 px tall, confidence 23.
    const SIGNED_ROW: &str = "5\t1\t2\t1\t1\t1\t49\t614\t287\t36\t96.6\tVENKATESH
5\t1\t2\t1\t1\t2\t356\t612\t239\t37\t95.9\tKULKARNI
5\t1\t2\t1\t1\t3\t642\t599\t161\t86\t22.8\tNY
";

    #[test]
    fn a_signature_read_at_the_end_of_a_line_is_left_out_with_its_symbols() {
        let mut line = lines_from_tsv(SIGNED_ROW).remove(0);
        assert_eq!(line.text, "VENKATESH KULKARNI NY");
        assert_eq!(line.words.len(), 3);
        line.symbols = "VENKATESHKULKARNINY".chars().map(|c| (c, 90.0)).collect();
        let kept = without_trailing_marks(line.clone());
        assert_eq!(kept.text, "VENKATESH KULKARNI");
        assert_eq!(kept.bbox, TextBox { x: 49, y: 612, width: 546, height: 38 });
        assert!((kept.confidence - 96.25).abs() < 1e-3, "{}", kept.confidence);
        assert_eq!(kept.symbols.iter().map(|s| s.0).collect::<String>(), "VENKATESHKULKARNI");
        assert_eq!(kept.words, line.words[..2], "the words go with their text");
        // Each of the three signs alone is not enough: a confident short word, a long one,
        // one as tall as the print.
        for (conf, text, height) in [(80.0, "NY", 86), (22.8, "NYXZ", 86), (22.8, "NY", 50)] {
            let mut l = OcrLine { text: format!("VENKATESH KULKARNI {text}"), ..line.clone() };
            l.words[2] = TsvWord { confidence: Some(conf), chars: text.len(), bbox: TextBox { height, ..l.words[2].bbox } };
            assert_eq!(without_trailing_marks(l.clone()).text, l.text, "{conf} {text} {height}");
        }
        // A longer stroke: taller still and set apart (seed 11: "PAUCLS", 93 px beside
        // print 31 px, 186 px after the name); not when near, nor when as tall as 2x.
        let long = lines_from_tsv("5\t1\t2\t1\t1\t1\t50\t599\t150\t31\t93\tDINESH\n5\t1\t2\t1\t1\t2\t218\t599\t67\t31\t96\tLAL\n5\t1\t2\t1\t1\t3\t301\t599\t138\t31\t96\tMEHTA\n5\t1\t2\t1\t1\t4\t625\t588\t279\t93\t1\tPAUCLS\n").remove(0);
        assert_eq!(without_trailing_marks(long.clone()).text, "DINESH LAL MEHTA");
        // The line with its last word moved, resized or read more confidently is kept whole.
        let kept_whole = |line: &OcrLine, cases: [(u32, u32, f32); 3]| {
            for (x, height, conf) in cases {
                let mut l = line.clone();
                let last = l.words.len() - 1;
                l.words[last] = TsvWord { confidence: Some(conf), bbox: TextBox { x, height, ..l.words[last].bbox }, ..l.words[last] };
                assert_eq!(without_trailing_marks(l.clone()).text, l.text, "{x} {height} {conf}");
            }
        };
        kept_whole(&long, [(460, 93, 1.0), (625, 62, 1.0), (625, 93, 75.0)]);
        // A flat mark set apart (seed 12: "aay", 8 px beside print of 30, 327 px after
        // the name); not near, nor half the print's height, nor confident.
        let flat = lines_from_tsv("5\t1\t2\t1\t1\t1\t354\t265\t88\t30\t96\tNitin\n5\t1\t2\t1\t1\t2\t454\t266\t127\t29\t96\tKumar\n5\t1\t2\t1\t1\t3\t592\t265\t113\t38\t96\tReddy\n5\t1\t2\t1\t1\t4\t1032\t265\t47\t8\t45\taay\n").remove(0);
        assert_eq!(without_trailing_marks(flat.clone()).text, "Nitin Kumar Reddy");
        kept_whole(&flat, [(720, 8, 45.0), (1032, 15, 45.0), (1032, 8, 75.0)]);
        let nine = OcrLine { text: "DINESH LAL MEHTA PAUCLSXYZ".into(), ..long.clone() };
        assert_eq!(without_trailing_marks(nine.clone()).text, nine.text, "nine letters");
        // Letters and digits are counted: a mark read with a colon after it is one.
        let colon = OcrLine { text: "VENKATESH KULKARNI NY:".into(), ..line.clone() };
        assert_eq!(without_trailing_marks(colon).text, "VENKATESH KULKARNI");
        // Nor is a line of one word, nor a word in the middle.
        let alone = lines_from_tsv("5\t1\t2\t1\t1\t3\t642\t599\t161\t86\t22.8\tNY\n").remove(0);
        assert_eq!(without_trailing_marks(alone).text, "NY");
        let middle = vec![line.words[0], line.words[2], line.words[1]];
        let l = OcrLine { text: "VENKATESH NY KULKARNI".into(), words: middle, ..line };
        assert_eq!(without_trailing_marks(l).text, "VENKATESH NY KULKARNI");
    }

    /// Tesseract 5.3's hOCR with `hocr_char_boxes` (abridged from a real page), with an
    /// escaped character and a span without a confidence.
    const HOCR: &str = "<div class='ocr_page' id='page_1'>
   <div class='ocr_carea' id='block_1_1' title=\"bbox 378 75 1279 149\">
    <p class='ocr_par' id='par_1_1' lang='eng' title=\"bbox 378 75 1279 149\">
     <span class='ocr_line' id='line_1_1' title=\"bbox 378 75 1279 115; baseline 0.027 -24\">
      <span class='ocrx_word' id='word_1_1' title='bbox 378 78 431 92; x_wconf 32'>
       <span class='ocrx_cinfo' title='x_bboxes 378 78 390 92; x_conf 94.902054'>P</span>
       <span class='ocrx_cinfo' title='x_bboxes 378 78 431 92; x_conf 53.5'>&lt;</span>
      </span>
      <span class='ocrx_word' id='word_1_2' title='bbox 438 75 447 94; x_wconf 99'>
       <span class='ocrx_cinfo' title='x_bboxes 438 75 447 94; x_conf 99.194229'>1</span>
       <span class='ocrx_cinfo' title='x_bboxes 448 75 457 94'>2</span>
       <span class='ocrx_cinfo' title='x_bboxes 458 75 467 94; x_conf 120'>3</span>
      </span>
     </span>
     <span class='ocr_line' id='line_1_2' title=\"bbox 378 111 1278 149\">
      <span class='ocrx_word' id='word_1_5' title='bbox 378 111 460 127; x_wconf 95'>
       <span class='ocrx_cinfo' title='x_bboxes 378 111 383 125; x_conf 99.410759'>&amp;</span>
      </span>
     </span>";

    #[test]
    fn hocr_characters_and_their_confidences() {
        let lines = symbols_from_hocr(HOCR);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].0, "P< 13", "the character without a confidence is left out");
        assert_eq!(lines[0].1.iter().map(|s| s.0).collect::<String>(), "P<13");
        assert!((lines[0].1[1].1 - 53.5).abs() < 1e-4);
        assert_eq!(lines[0].1[3].1, 100.0, "clamped to 0-100");
        assert_eq!(lines[1].0, "&");
        // Attached to the TSV line with the same text only.
        let mut tsv = lines_from_tsv("5\t1\t1\t1\t1\t1\t0\t0\t5\t5\t90\t&\n5\t1\t1\t1\t2\t1\t0\t9\t5\t5\t90\tother\n");
        attach_symbols(&mut tsv, lines);
        assert_eq!(tsv[0].symbols.len(), 1);
        assert!(tsv[1].symbols.is_empty());
        // Never a panic on broken input.
        for cut in 0..HOCR.len() {
            if HOCR.is_char_boundary(cut) {
                let _ = symbols_from_hocr(&HOCR[..cut]);
            }
        }
        assert!(symbols_from_hocr("<span class='ocrx_cinfo' title='x_conf 9'").is_empty());
    }

    #[test]
    fn inputs_are_checked() {
        let img = GrayImage::new(100, 40);
        let ok = OcrParams { lang: "mrz", char_whitelist: Some("AB<"), layout: Layout::Auto, confidences: false };
        assert!(check_input(&img, &ok).is_ok());
        for lang in ["", "../eng", "eng+vie", "e n g"] {
            assert!(matches!(check_input(&img, &OcrParams { lang, ..ok }), Err(OcrError::BadInput(_))), "{lang}");
        }
        assert!(check_input(&img, &OcrParams { char_whitelist: Some(""), ..ok }).is_err());
        assert!(check_input(&img, &OcrParams { char_whitelist: Some("A\u{e9}"), ..ok }).is_err());
        assert!(check_input(&img, &OcrParams { char_whitelist: Some("  "), ..ok }).is_err(), "spaces alone");
        assert!(check_input(&img, &OcrParams { char_whitelist: Some("A\t"), ..ok }).is_err(), "a tab");
        assert!(check_input(&img, &OcrParams { char_whitelist: Some("0123456789 "), ..ok }).is_ok(), "digits and the space");
        assert!(check_input(&GrayImage::new(MAX_SIDE + 1, 40), &ok).is_err());
        assert!(check_input(&GrayImage::new(100, MIN_SIDE - 1), &ok).is_err());
    }

    #[test]
    fn language_lookup_follows_the_directory_order() {
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        std::fs::write(b.path().join("mrz.traineddata"), b"x").expect("write");
        std::fs::write(a.path().join("eng.traineddata"), b"x").expect("write");
        std::fs::write(b.path().join("eng.traineddata"), b"x").expect("write");
        let dirs = vec![a.path().to_path_buf(), b.path().to_path_buf()];
        assert_eq!(find_language(&dirs, "mrz").as_deref(), Some(b.path()));
        assert_eq!(find_language(&dirs, "eng").as_deref(), Some(a.path()));
        assert_eq!(find_language(&dirs, "vie"), None);
    }
}
