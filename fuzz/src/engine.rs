//! The loop that runs one target in this process: seeds first, then mutants of the
//! corpus until the time is up. Every call runs inside `catch_unwind`; a panic is a crash
//! and its input is saved, a call slower than the slow limit is saved as "slow", and the
//! loop goes on. An input whose outcome (the harness's coarse signature of what the
//! parser answered) was not seen before joins the corpus: no coverage instrumentation,
//! but mutants of inputs that reached new answers go deeper than mutants of the seeds.

use crate::mutate::{json_words, Mutator, Shape};
use crate::rng::{fnv1a, Rng};
use crate::targets::Target;
use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Inputs kept per target (seeds included); beyond it a random non-seed entry is replaced.
const MAX_CORPUS: usize = 4096;
/// Inputs saved per crash site and per target's slow inputs.
const MAX_SAVED: usize = 10;

/// What the panic hook saw for the call in flight.
#[derive(Debug, Clone)]
pub struct PanicRecord {
    pub site: String,
    pub message: String,
    pub backtrace: Option<String>,
    /// Time the hook spent capturing the backtrace (not the parser's).
    pub hook_time: Duration,
}

static LAST_PANIC: Mutex<Option<PanicRecord>> = Mutex::new(None);
static SITES_WITH_BACKTRACE: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Quiet panic hook: records the site and message (and a backtrace the first time a site
/// is seen) instead of printing, so a crash costs little and the output stays readable.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let site = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())).unwrap_or_else(|| "unknown".into());
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        let new_site = SITES_WITH_BACKTRACE
            .lock()
            .map(|mut g| g.get_or_insert_with(HashSet::new).insert(site.clone()))
            .unwrap_or(false);
        let t0 = Instant::now();
        let backtrace = new_site.then(|| trim_backtrace(&std::backtrace::Backtrace::force_capture().to_string()));
        let hook_time = t0.elapsed();
        if let Ok(mut g) = LAST_PANIC.lock() {
            *g = Some(PanicRecord { site, message, backtrace, hook_time });
        }
    }));
}

/// The frames between the panic machinery and this fuzzer's loop: the parser's.
fn trim_backtrace(bt: &str) -> String {
    let lines: Vec<&str> = bt.lines().collect();
    let is_frame = |l: &str| l.trim_start().split(':').next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let start = lines.iter().rposition(|l| l.contains("core::panicking::") || l.contains("rust_begin_unwind")).map_or(0, |i| i + 1);
    let start = (start..lines.len()).find(|&i| is_frame(lines[i])).unwrap_or(start);
    let end = (start..lines.len()).find(|&i| lines[i].contains("idv_fuzz::engine::")).unwrap_or(lines.len());
    lines[start..end].join("\n")
}

pub fn take_panic() -> Option<PanicRecord> {
    LAST_PANIC.lock().ok().and_then(|mut g| g.take())
}

pub struct RunOpts {
    pub seconds: f64,
    pub seed: u64,
    pub crash_dir: PathBuf,
    pub slow: Duration,
    /// Replay mode: from this exec index on, write each input to `inflight` before
    /// running it (the supervisor finds the input that killed or hung the process).
    pub replay_from: Option<u64>,
    pub inflight: Option<PathBuf>,
    /// Print `CHECKPOINT` lines (child mode).
    pub checkpoints: bool,
}

#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub execs: u64,
    pub crashes: u64,
    pub slow: u64,
    pub elapsed: f64,
    pub corpus: usize,
    pub outcomes: usize,
}

pub fn hex_name(target: &str, input: &[u8]) -> String {
    format!("{target}-{:016x}", fnv1a(input))
}

/// Writes `input` as `<dir>/<target>-<hash>.bin` and `note` beside it as `.txt`.
pub fn save(dir: &Path, target: &str, input: &[u8], note: &str) -> String {
    let _ = std::fs::create_dir_all(dir);
    let base = dir.join(hex_name(target, input));
    let bin = base.with_extension("bin");
    let _ = std::fs::write(&bin, input);
    let _ = std::fs::write(base.with_extension("txt"), note);
    bin.display().to_string()
}

/// The dictionary: the target's tokens, and for JSON the keys and string values of its seeds.
pub fn dictionary(target: &Target, seeds: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut dict = (target.dict)();
    for s in seeds {
        match target.shape {
            Shape::Json => {
                let body = if target.json_after_line { s.splitn(2, |&b| b == b'\n').nth(1).unwrap_or(&[]) } else { &s[..] };
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
                    json_words(&v, &mut dict);
                }
            }
            Shape::Lines | Shape::Text => {
                for part in s.split(|&b| matches!(b, b'\n' | b'|' | b' ' | b':' | b'"' | b'=' | b'<' | b'>')) {
                    if !part.is_empty() && part.len() <= 64 {
                        dict.push(part.to_vec());
                    }
                }
            }
            Shape::Bytes => {}
        }
    }
    dict.sort();
    dict.dedup();
    dict
}

fn line(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{s}");
    let _ = out.flush();
}

/// Runs `target` for `opts.seconds` (or, replaying, until the process dies).
pub fn run(target: &Target, opts: &RunOpts) -> Stats {
    let seeds = (target.seeds)();
    let dict = dictionary(target, &seeds);
    let mut harness = (target.harness)();
    let mut rng = Rng::new(opts.seed ^ fnv1a(target.name.as_bytes()));
    let mut corpus: Vec<Vec<u8>> = seeds.clone();
    let mut seen: HashSet<u64> = HashSet::new();
    // Per crash site: how many, and the first file saved.
    let mut sites: HashMap<String, (u64, String)> = HashMap::new();
    let mut saved_slow = 0usize;
    let mut stats = Stats::default();
    let start = Instant::now();
    let deadline = if opts.replay_from.is_some() { Duration::from_secs_f64(opts.seconds * 4.0 + 60.0) } else { Duration::from_secs_f64(opts.seconds) };
    let mut last_checkpoint = Instant::now();
    let mut i: u64 = 0;
    loop {
        let input: Vec<u8> = if (i as usize) < seeds.len() {
            seeds[i as usize].clone()
        } else {
            let base = corpus[rng.below(corpus.len())].clone();
            let m = Mutator { shape: target.shape, max_len: target.max_len, dict: &dict, corpus: &corpus, json_after_line: target.json_after_line };
            m.mutate(&mut rng, &base)
        };
        if let (Some(from), Some(path)) = (opts.replay_from, &opts.inflight) {
            if i >= from {
                let _ = std::fs::write(path, &input);
            }
        }
        let t0 = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| harness(&input)));
        let mut dt = t0.elapsed();
        stats.execs += 1;
        i += 1;
        match result {
            Ok(sig) => {
                if seen.insert(sig) && (i as usize) > seeds.len() {
                    if corpus.len() < MAX_CORPUS {
                        corpus.push(input.clone());
                    } else {
                        let j = seeds.len() + rng.below(corpus.len() - seeds.len());
                        corpus[j] = input.clone();
                    }
                }
            }
            Err(_) => {
                stats.crashes += 1;
                let p = take_panic().unwrap_or(PanicRecord { site: "unknown".into(), message: "panic".into(), backtrace: None, hook_time: Duration::ZERO });
                dt = dt.saturating_sub(p.hook_time);
                let entry = sites.entry(p.site.clone()).or_insert_with(|| (0, String::new()));
                entry.0 += 1;
                if entry.0 as usize <= MAX_SAVED {
                    let note = format!(
                        "target: {}\nkind: panic\nsite: {}\nmessage: {}\ninput ({} bytes, hex): {}\n\n{}",
                        target.name,
                        p.site,
                        p.message,
                        input.len(),
                        hex_prefix(&input, 4096),
                        p.backtrace.as_deref().unwrap_or("(backtrace: see the first input saved for this site)")
                    );
                    let file = save(&opts.crash_dir, target.name, &input, &note);
                    if entry.1.is_empty() {
                        entry.1 = file.clone();
                        if opts.checkpoints {
                            line(&format!("CRASH {} {} | {} | {}", target.name, p.site, one_line(&p.message), file));
                        }
                    }
                }
            }
        }
        if dt > opts.slow {
            stats.slow += 1;
            if saved_slow < MAX_SAVED {
                saved_slow += 1;
                let note = format!("target: {}\nkind: slow\nseconds: {:.3}\ninput ({} bytes, hex): {}\n", target.name, dt.as_secs_f64(), input.len(), hex_prefix(&input, 4096));
                let file = save(&opts.crash_dir, target.name, &input, &note);
                if opts.checkpoints {
                    line(&format!("SLOW {} {:.3}s {}", target.name, dt.as_secs_f64(), file));
                }
            }
        }
        if opts.checkpoints && last_checkpoint.elapsed() >= Duration::from_millis(250) {
            last_checkpoint = Instant::now();
            line(&format!("CHECKPOINT {} {} {}", stats.execs, stats.crashes, stats.slow));
        }
        if start.elapsed() >= deadline && (i as usize) >= seeds.len() {
            break;
        }
    }
    stats.elapsed = start.elapsed().as_secs_f64();
    stats.corpus = corpus.len();
    stats.outcomes = seen.len();
    stats
}

pub fn one_line(s: &str) -> String {
    s.replace(['\n', '\r', '|'], " ").chars().take(300).collect()
}

pub fn hex_prefix(b: &[u8], max: usize) -> String {
    let mut s: String = b.iter().take(max).map(|x| format!("{x:02x}")).collect();
    if b.len() > max {
        s.push_str("...");
    }
    s
}

/// Runs the harness once on `input`; `Err(panic)` if it panicked.
pub fn run_once(target: &Target, input: &[u8]) -> Result<u64, PanicRecord> {
    let mut harness = (target.harness)();
    let r = catch_unwind(AssertUnwindSafe(|| harness(input)));
    r.map_err(|_| take_panic().unwrap_or(PanicRecord { site: "unknown".into(), message: "panic".into(), backtrace: None, hook_time: Duration::ZERO }))
}

/// Greedy minimisation: drop chunks (halving sizes) and simplify bytes while the input
/// still panics at the same site.
pub fn minimize(target: &Target, input: &[u8]) -> Option<(Vec<u8>, PanicRecord)> {
    let mut harness = (target.harness)();
    let mut site_of = |b: &[u8]| -> Option<PanicRecord> {
        catch_unwind(AssertUnwindSafe(|| harness(b))).err().map(|_| take_panic().unwrap_or(PanicRecord { site: "unknown".into(), message: String::new(), backtrace: None, hook_time: Duration::ZERO }))
    };
    let first = site_of(input)?;
    let mut best = input.to_vec();
    let mut chunk = best.len().max(1) / 2;
    while chunk >= 1 {
        let mut at = 0;
        while at < best.len() {
            let mut cand = best.clone();
            cand.drain(at..(at + chunk).min(cand.len()));
            if site_of(&cand).is_some_and(|p| p.site == first.site) {
                best = cand;
            } else {
                at += chunk;
            }
        }
        chunk /= 2;
    }
    // Simplify remaining bytes towards 'a' / '0' where that keeps the crash.
    for i in 0..best.len() {
        for repl in [b'0', b'a'] {
            if best[i] == repl {
                continue;
            }
            let mut cand = best.clone();
            cand[i] = repl;
            if site_of(&cand).is_some_and(|p| p.site == first.site) {
                best = cand;
                break;
            }
        }
    }
    let last = site_of(&best).unwrap_or(first);
    Some((best, last))
}
