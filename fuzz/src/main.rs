//! `idv-fuzz`: a coverage-free mutation fuzzer, on the stable toolchain, over every parser
//! of idv that sees outside bytes (fuzz/README.md; `scripts/fuzz.sh` builds and runs it).
//!
//! ```text
//! idv-fuzz [--seconds N] [--target NAME[,NAME|PREFIX*]...] [--seed S] [--crashes DIR]
//!          [--slow-ms MS] [--hang-seconds S] [--list]
//! idv-fuzz --reproduce FILE --target NAME    run one saved input, print the panic
//! idv-fuzz --minimize FILE --target NAME     shrink a crashing input (writes FILE.min)
//! ```
//!
//! Each target runs in a child process of this binary (`--child`), so an abort that
//! `catch_unwind` cannot catch (a stack overflow, an out-of-memory kill) or a call that
//! never returns ends that target only. The run is a function of the seed: the
//! supervisor then replays the child from its last checkpoint, writing each input to a
//! file before running it, and keeps the input that killed or hung it.

mod engine;
mod mutate;
mod rng;
mod targets;

use engine::{RunOpts, Stats};
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

struct Args {
    seconds: f64,
    targets: Vec<String>,
    seed: Option<u64>,
    crash_dir: PathBuf,
    slow_ms: u64,
    hang_seconds: u64,
    list: bool,
    child: bool,
    replay_from: Option<u64>,
    inflight: Option<PathBuf>,
    reproduce: Option<PathBuf>,
    minimize: Option<PathBuf>,
}

fn usage() -> &'static str {
    "usage: idv-fuzz [--seconds N] [--target NAME[,NAME|PREFIX*]] [--seed S] [--crashes DIR] [--slow-ms MS] [--hang-seconds S] [--list]\n       idv-fuzz --reproduce FILE --target NAME\n       idv-fuzz --minimize FILE --target NAME"
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        seconds: 60.0,
        targets: Vec::new(),
        seed: None,
        crash_dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/crashes")),
        slow_ms: 1000,
        hang_seconds: 30,
        list: false,
        child: false,
        replay_from: None,
        inflight: None,
        reproduce: None,
        minimize: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--seconds" => a.seconds = value("--seconds")?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--target" => a.targets.extend(value("--target")?.split(',').filter(|s| !s.is_empty()).map(str::to_string)),
            "--seed" => a.seed = Some(value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?),
            "--crashes" => a.crash_dir = PathBuf::from(value("--crashes")?),
            "--slow-ms" => a.slow_ms = value("--slow-ms")?.parse().map_err(|e| format!("--slow-ms: {e}"))?,
            "--hang-seconds" => a.hang_seconds = value("--hang-seconds")?.parse().map_err(|e| format!("--hang-seconds: {e}"))?,
            "--list" => a.list = true,
            "--child" => a.child = true,
            "--replay-from" => a.replay_from = Some(value("--replay-from")?.parse().map_err(|e| format!("--replay-from: {e}"))?),
            "--inflight" => a.inflight = Some(PathBuf::from(value("--inflight")?)),
            "--reproduce" => a.reproduce = Some(PathBuf::from(value("--reproduce")?)),
            "--minimize" => a.minimize = Some(PathBuf::from(value("--minimize")?)),
            "-h" | "--help" => return Err(usage().to_string()),
            other => return Err(format!("unknown argument {other:?}\n{}", usage())),
        }
    }
    if !(a.seconds > 0.0) {
        return Err("--seconds must be positive".into());
    }
    Ok(a)
}

fn selected(all: &[targets::Target], wanted: &[String]) -> Result<Vec<usize>, String> {
    if wanted.is_empty() {
        return Ok((0..all.len()).collect());
    }
    let mut out = Vec::new();
    for w in wanted {
        let hits: Vec<usize> = match w.strip_suffix('*') {
            Some(prefix) => (0..all.len()).filter(|&i| all[i].name.starts_with(prefix)).collect(),
            None => (0..all.len()).filter(|&i| all[i].name == w).collect(),
        };
        if hits.is_empty() {
            return Err(format!("no target {w:?} (--list shows them)"));
        }
        out.extend(hits.into_iter().filter(|i| !out.contains(i)).collect::<Vec<_>>());
    }
    Ok(out)
}

/// What the supervisor learned about one target.
struct Report {
    name: &'static str,
    stats: Stats,
    /// Crash and slow lines to print under the summary.
    findings: Vec<String>,
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let all = targets::all();
    if args.list {
        for t in &all {
            println!("{:<28} {}", t.name, t.about);
        }
        return ExitCode::SUCCESS;
    }
    let chosen = match selected(&all, &args.targets) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    engine::install_panic_hook();
    let _cleanup = ChildExeCleanup;

    if let Some(file) = args.reproduce.as_ref().or(args.minimize.as_ref()) {
        return single_input(&all, &chosen, file, args.minimize.is_some());
    }

    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    });

    if args.child {
        let &[i] = chosen.as_slice() else {
            eprintln!("--child runs exactly one target");
            return ExitCode::from(2);
        };
        let opts = RunOpts {
            seconds: args.seconds,
            seed,
            crash_dir: args.crash_dir.clone(),
            slow: Duration::from_millis(args.slow_ms),
            replay_from: args.replay_from,
            inflight: args.inflight.clone(),
            checkpoints: true,
        };
        let s = engine::run(&all[i], &opts);
        println!("RESULT {} {} {} {} {:.3} {} {}", all[i].name, s.execs, s.crashes, s.slow, s.elapsed, s.corpus, s.outcomes);
        return ExitCode::SUCCESS;
    }

    eprintln!("idv-fuzz: {} target(s), {} s each, seed {seed}, crashes to {}", chosen.len(), args.seconds, args.crash_dir.display());
    let mut reports = Vec::new();
    for &i in &chosen {
        let t = &all[i];
        eprintln!("  running {} ...", t.name);
        let r = supervise(t.name, &args, seed);
        eprintln!("  {}: {} execs, {} crashes, {} slow, corpus {}, {} distinct answers", t.name, r.stats.execs, r.stats.crashes, r.stats.slow, r.stats.corpus, r.stats.outcomes);
        reports.push(r);
    }
    let mut total = Stats::default();
    let findings: Vec<&String> = reports.iter().flat_map(|r| r.findings.iter()).collect();
    if !findings.is_empty() {
        println!("findings (inputs and stacks in {}):", args.crash_dir.display());
        for f in findings {
            println!("  {f}");
        }
    }
    for r in &reports {
        let s = &r.stats;
        println!("target {}: {} execs, {} crashes, {} slow, {:.0} execs/s", r.name, s.execs, s.crashes, s.slow, rate(s.execs, s.elapsed));
        total.execs += s.execs;
        total.crashes += s.crashes;
        total.slow += s.slow;
        total.elapsed += s.elapsed;
    }
    println!("total: {} execs, {} crashes, {} slow, {:.0} execs/s ({} targets, seed {seed})", total.execs, total.crashes, total.slow, rate(total.execs, total.elapsed), reports.len());
    if total.crashes > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn rate(execs: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        execs as f64 / secs
    } else {
        0.0
    }
}

fn single_input(all: &[targets::Target], chosen: &[usize], file: &Path, minimize: bool) -> ExitCode {
    let &[i] = chosen else {
        eprintln!("give exactly one --target");
        return ExitCode::from(2);
    };
    let input = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    if minimize {
        match engine::minimize(&all[i], &input) {
            None => {
                println!("{}: does not crash {}", file.display(), all[i].name);
                ExitCode::SUCCESS
            }
            Some((min, p)) => {
                let out = file.with_extension("min");
                let _ = std::fs::write(&out, &min);
                println!("minimized {} -> {} bytes: {}", input.len(), min.len(), out.display());
                println!("hex: {}", engine::hex_prefix(&min, 4096));
                println!("text: {:?}", String::from_utf8_lossy(&min));
                println!("panic at {}: {}", p.site, p.message);
                ExitCode::from(1)
            }
        }
    } else {
        let t0 = std::time::Instant::now();
        let r = engine::run_once(&all[i], &input);
        let dt = t0.elapsed().as_secs_f64();
        match r {
            Ok(sig) => {
                println!("{}: no panic ({dt:.3} s, answer {sig:016x})", all[i].name);
                ExitCode::SUCCESS
            }
            Err(p) => {
                println!("{}: panic at {}: {}\n{}", all[i].name, p.site, p.message, p.backtrace.unwrap_or_default());
                ExitCode::from(1)
            }
        }
    }
}

/// Lines of one child run, with a stall limit between lines.
enum End {
    Result(Stats),
    Died(String),
    Hung,
}

/// The binary children run: a copy of this one, made on first use, so that rebuilding
/// idv-fuzz while a run is going (cargo replaces target/release/idv-fuzz) does not make
/// every later target's child fail to start (0 executions reported).
static CHILD_EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

fn child_exe() -> std::io::Result<std::path::PathBuf> {
    if let Some(p) = CHILD_EXE.get() {
        return Ok(p.clone());
    }
    let exe = std::env::current_exe()?;
    let copy = std::env::temp_dir().join(format!("idv-fuzz-child-{}", std::process::id()));
    // std::fs::copy keeps the permission bits (executable).
    std::fs::copy(&exe, &copy)?;
    Ok(CHILD_EXE.get_or_init(|| copy).clone())
}

/// Removes the children's copy of the binary when the supervisor ends.
struct ChildExeCleanup;

impl Drop for ChildExeCleanup {
    fn drop(&mut self) {
        if let Some(p) = CHILD_EXE.get() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn child_command(name: &str, args: &Args, seed: u64, replay: Option<(u64, &Path)>, stderr: &Path) -> std::io::Result<std::process::Child> {
    let mut cmd = Command::new(child_exe()?);
    cmd.args(["--child", "--target", name, "--seconds", &args.seconds.to_string(), "--seed", &seed.to_string()])
        .arg("--crashes")
        .arg(&args.crash_dir)
        .args(["--slow-ms", &args.slow_ms.to_string()]);
    if let Some((from, inflight)) = replay {
        cmd.args(["--replay-from", &from.to_string()]).arg("--inflight").arg(inflight);
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(std::fs::File::create(stderr)?).spawn()
}

/// Follows a child: CHECKPOINT / CRASH / SLOW / RESULT lines.
fn follow(child: &mut std::process::Child, hang: Duration, checkpoint: &mut Stats, findings: &mut Vec<String>, record: bool) -> End {
    let Some(stdout) = child.stdout.take() else { return End::Died("no stdout".into()) };
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut result = None;
    loop {
        match rx.recv_timeout(hang) {
            Ok(line) => {
                let parts: Vec<&str> = line.split(' ').collect();
                match parts.first().copied() {
                    Some("CHECKPOINT") if parts.len() >= 4 => {
                        checkpoint.execs = parts[1].parse().unwrap_or(checkpoint.execs);
                        checkpoint.crashes = parts[2].parse().unwrap_or(checkpoint.crashes);
                        checkpoint.slow = parts[3].parse().unwrap_or(checkpoint.slow);
                    }
                    Some("CRASH") if record => findings.push(format!("crash {}", &line[6..])),
                    Some("SLOW") if record => findings.push(format!("slow {}", &line[5..])),
                    Some("RESULT") if parts.len() >= 8 => {
                        result = Some(Stats {
                            execs: parts[2].parse().unwrap_or(0),
                            crashes: parts[3].parse().unwrap_or(0),
                            slow: parts[4].parse().unwrap_or(0),
                            elapsed: parts[5].parse().unwrap_or(0.0),
                            corpus: parts[6].parse().unwrap_or(0),
                            outcomes: parts[7].parse().unwrap_or(0),
                        });
                    }
                    _ => {}
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                return End::Hung;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let status = child.wait();
    match (result, status) {
        (Some(s), Ok(st)) if st.success() => End::Result(s),
        (_, Ok(st)) => End::Died(format!("{st}")),
        (_, Err(e)) => End::Died(e.to_string()),
    }
}

fn tail(path: &Path, max: usize) -> String {
    let mut s = String::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        let _ = f.read_to_string(&mut s);
    }
    let start = s.len().saturating_sub(max);
    let start = (start..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
    s[start..].to_string()
}

fn supervise(name: &'static str, args: &Args, seed: u64) -> Report {
    let _ = std::fs::create_dir_all(&args.crash_dir);
    let stderr = args.crash_dir.join(format!(".stderr-{name}"));
    let hang = Duration::from_secs(args.hang_seconds.max(2));
    let mut checkpoint = Stats::default();
    let mut findings = Vec::new();
    let started = std::time::Instant::now();
    let end = match child_command(name, args, seed, None, &stderr) {
        Ok(mut child) => follow(&mut child, hang, &mut checkpoint, &mut findings, true),
        Err(e) => End::Died(format!("cannot start the child: {e}")),
    };
    let elapsed = started.elapsed().as_secs_f64();
    let (what, detail) = match end {
        End::Result(stats) => {
            let _ = std::fs::remove_file(&stderr);
            return Report { name, stats, findings };
        }
        End::Died(status) => ("abort", format!("child died: {status}\n{}", tail(&stderr, 4000))),
        End::Hung => ("hang", format!("no progress for {} s", hang.as_secs())),
    };
    // Replay from the last checkpoint, writing each input before running it.
    let inflight = args.crash_dir.join(format!(".inflight-{name}"));
    let _ = std::fs::remove_file(&inflight);
    let replay_stderr = args.crash_dir.join(format!(".stderr-replay-{name}"));
    let mut ignored = Stats::default();
    let replay_end = match child_command(name, args, seed, Some((checkpoint.execs, &inflight)), &replay_stderr) {
        Ok(mut child) => follow(&mut child, hang, &mut ignored, &mut Vec::new(), false),
        Err(e) => End::Died(format!("cannot start the replay: {e}")),
    };
    let mut stats = checkpoint.clone();
    stats.elapsed = elapsed;
    match (replay_end, std::fs::read(&inflight)) {
        (End::Result(_), _) | (_, Err(_)) => {
            findings.push(format!("{what} {name}: the replay did not reproduce it (nondeterministic?); {}", engine::one_line(&detail)));
        }
        (replay, Ok(input)) => {
            let replay_detail = match replay {
                End::Died(s) => format!("replay died: {s}\n{}", tail(&replay_stderr, 4000)),
                _ => format!("replay: no progress for {} s", hang.as_secs()),
            };
            let note = format!("target: {name}\nkind: {what}\n{detail}\n{replay_detail}\ninput ({} bytes, hex): {}\n", input.len(), engine::hex_prefix(&input, 4096));
            let file = engine::save(&args.crash_dir, name, &input, &note);
            if what == "hang" {
                stats.slow += 1;
            } else {
                stats.crashes += 1;
            }
            findings.push(format!("{what} {name}: {} | {file}", engine::one_line(&detail)));
        }
    }
    let _ = std::fs::remove_file(&inflight);
    Report { name, stats, findings }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every target's seeds go through its harness without a panic (the seeds are valid
    /// inputs: a panic here is a broken harness, not a finding), and give answers.
    #[test]
    fn every_seed_runs_clean() {
        engine::install_panic_hook();
        for t in targets::all() {
            let seeds = (t.seeds)();
            assert!(!seeds.is_empty(), "{} has no seeds", t.name);
            for (i, s) in seeds.iter().enumerate() {
                assert!(s.len() <= t.max_len, "{} seed {i} is longer than its max_len", t.name);
                if let Err(p) = engine::run_once(&t, s) {
                    panic!("{} seed {i} panicked at {}: {}", t.name, p.site, p.message);
                }
            }
        }
    }

    /// Mutants respect the length cap, and the run is a function of the seed (the
    /// supervisor's replay depends on it).
    #[test]
    fn mutation_is_bounded_and_deterministic() {
        let corpus = vec![br#"{"a":[1,{"b":"c"}],"d":null}"#.to_vec(), b"line one\nline two".to_vec()];
        let dict = vec![b"key".to_vec()];
        let run = |seed: u64| {
            let mut rng = rng::Rng::new(seed);
            let mut out = Vec::new();
            for shape in [mutate::Shape::Json, mutate::Shape::Lines, mutate::Shape::Bytes, mutate::Shape::Text] {
                let m = mutate::Mutator { shape, max_len: 300, dict: &dict, corpus: &corpus, json_after_line: false };
                for i in 0..2000 {
                    let x = m.mutate(&mut rng, &corpus[i % 2]);
                    assert!(x.len() <= 300);
                    out.push(rng::fnv1a(&x));
                }
            }
            out
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn png_crc_fix_keeps_a_valid_png() {
        for seed in targets::media::image_seeds() {
            assert_eq!(targets::media::fix_png_crcs(&seed), seed);
        }
    }
}
