//! One target per parser that sees outside bytes. Each has seeds (valid inputs built in
//! code, from the owning crates' tests), a dictionary, an input shape for the mutators,
//! and a harness: the parser called the way the service calls it, returning a coarse
//! signature of the answer (which error, which field; never the data), so inputs that
//! reach new answers join the corpus. A harness asserts what the contract promises
//! beside "no panic" where that is cheap (request errors are the spec's
//! invalid-parameter family; an accepted Access Key signature is the real MAC).

pub mod auth;
pub mod behavior;
pub mod cards;
pub mod media;
pub mod misc;
pub mod requests;

use crate::mutate::Shape;
use crate::rng::fnv1a;
use idv_schemas::ErrorKind;

pub type Harness = Box<dyn FnMut(&[u8]) -> u64>;

pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    pub shape: Shape,
    /// JSON after a first line (multipart's content type, for example).
    pub json_after_line: bool,
    pub max_len: usize,
    pub seeds: fn() -> Vec<Vec<u8>>,
    pub dict: fn() -> Vec<Vec<u8>>,
    pub harness: fn() -> Harness,
}

pub fn no_dict() -> Vec<Vec<u8>> {
    Vec::new()
}

/// A signature of a message: its first words, without what came from the input (quoted
/// parts, numbers, words with digits), so `invalid type: string "abc"` and `... "abd"`,
/// or two offsets in the same error, are one answer.
pub fn sig_str(s: &str) -> u64 {
    let mut unquoted = String::with_capacity(s.len().min(256));
    let mut quoted = false;
    for c in s.chars().take(256) {
        match c {
            '"' | '`' => quoted = !quoted,
            _ if !quoted => unquoted.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = unquoted
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && w.len() <= 24 && !w.chars().any(|c| c.is_ascii_digit()))
        .take(6)
        .collect();
    fnv1a(words.join(" ").as_bytes())
}

pub fn sig_debug<T: std::fmt::Debug>(x: &T) -> u64 {
    sig_str(&format!("{x:?}"))
}

/// An error's signature: its kind, and for an invalid parameter the field (indices
/// dropped) and the message up to its first colon.
pub fn sig_err(stage: u64, e: &ErrorKind) -> u64 {
    match e {
        ErrorKind::InvalidParameter { field, message } => {
            // The field's path without indices, at most three names deep and never past
            // `metadata` (its keys are the caller's).
            let f: String = field.as_deref().unwrap_or("").chars().filter(|c| !c.is_ascii_digit() && *c != '[' && *c != ']').collect();
            let mut kept = Vec::new();
            for seg in f.split('.').take(3) {
                // A key no request type has (the caller's own) is just "a key".
                kept.push(if known_fields().contains(seg) { seg } else { "?" });
                if seg == "metadata" {
                    break;
                }
            }
            let f = kept.join(".");
            let m = message.split(':').next().unwrap_or("");
            stage.wrapping_mul(31) ^ sig_str(&format!("{f}|{m}"))
        }
        other => stage.wrapping_mul(31) ^ sig_debug(other),
    }
}

/// Every object key in the request seeds: the request types' field names.
fn known_fields() -> &'static std::collections::HashSet<String> {
    static KNOWN: std::sync::OnceLock<std::collections::HashSet<String>> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        fn keys(v: &serde_json::Value, out: &mut std::collections::HashSet<String>) {
            match v {
                serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
                serde_json::Value::Object(m) => {
                    for (k, x) in m {
                        out.insert(k.clone());
                        keys(x, out);
                    }
                }
                _ => {}
            }
        }
        let mut out = std::collections::HashSet::new();
        for t in requests::targets() {
            for seed in (t.seeds)() {
                if let Ok(v) = serde_json::from_slice(&seed) {
                    keys(&v, &mut out);
                }
            }
        }
        out.insert(String::new());
        out
    })
}

/// The spec's client-input errors: what a request body may ever be refused with.
pub fn is_client_input_error(e: &ErrorKind) -> bool {
    matches!(
        e,
        ErrorKind::InvalidParameter { .. } | ErrorKind::InvalidChallengeId | ErrorKind::MissingChallengeId | ErrorKind::InvalidNonce | ErrorKind::MissingNonce
    )
}

/// `n` fields of a `\n`-separated input (missing ones empty), as text.
pub fn fields(b: &[u8], n: usize) -> Vec<String> {
    let mut out: Vec<String> = b.splitn(n, |&c| c == b'\n').map(|p| String::from_utf8_lossy(p).into_owned()).collect();
    out.resize(n, String::new());
    out
}

pub fn lines(parts: &[&str]) -> Vec<u8> {
    parts.join("\n").into_bytes()
}

pub fn all() -> Vec<Target> {
    let mut t = requests::targets();
    t.extend(media::targets());
    t.extend(cards::targets());
    t.extend(auth::targets());
    t.extend(behavior::targets());
    t.extend(misc::targets());
    if std::env::var_os("IDV_FUZZ_SELFTEST").is_some() {
        t.push(selftest());
    }
    t
}

/// Checks the supervisor (IDV_FUZZ_SELFTEST=1): an input holding `P!` panics, `A!` aborts
/// the process, `H!` never returns, `S!` takes 1.5 s.
fn selftest() -> Target {
    Target {
        name: "selftest",
        about: "the fuzzer's own crash, abort, hang and slow handling",
        shape: Shape::Text,
        json_after_line: false,
        max_len: 64,
        seeds: || vec![b"abcdefgh".to_vec()],
        dict: || vec![b"P!".to_vec(), b"A!".to_vec(), b"H!".to_vec(), b"S!".to_vec()],
        harness: || {
            Box::new(|b: &[u8]| {
                let has = |t: &[u8]| b.windows(2).any(|w| w == t);
                if has(b"P!") {
                    panic!("selftest panic");
                }
                if has(b"S!") {
                    std::thread::sleep(std::time::Duration::from_millis(1500));
                }
                if has(b"A!") && b.len() > 20 {
                    std::process::abort();
                }
                if has(b"H!") && b.len() > 30 {
                    loop {
                        std::thread::sleep(std::time::Duration::from_secs(1));
                    }
                }
                b.len() as u64
            })
        },
    }
}
