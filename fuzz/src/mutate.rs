//! Mutations: byte-level (bit flips, byte inserts and deletes, chunk duplication, long
//! repeats, splicing between inputs, dictionary tokens, invalid UTF-8, number
//! boundaries) and JSON-aware (a value's type swapped, deep nesting, huge and
//! non-finite numbers, long and odd strings, arrays grown past limits, keys removed,
//! renamed and duplicated, objects stringified, subtrees spliced between inputs).

use crate::rng::Rng;
use serde_json::{Map, Value};

/// How a target's inputs are shaped, so the mutators can keep some structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Binary (images, DER): byte mutations only.
    Bytes,
    /// One text value (a header, a QR payload): byte mutations, biased to text.
    Text,
    /// Fields separated by `\n` (header + method + uri ...): a mutation hits one line
    /// most of the time, so the others stay valid.
    Lines,
    /// A JSON document (after an optional first line, see [`crate::targets::Target::json_after_line`]):
    /// JSON-aware mutations half of the time.
    Json,
}

/// Values worth trying wherever a number is.
const INTERESTING_NUMBERS: &[&str] = &[
    "0", "-0", "1", "-1", "2", "7", "15", "16", "17", "31", "32", "33", "49", "50", "51", "63", "64", "65", "99", "100", "101", "127",
    "128", "129", "255", "256", "257", "300", "301", "1024", "4096", "4097", "65535", "65536", "2147483647", "2147483648",
    "-2147483649", "4294967295", "4294967296", "9007199254740993", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "340282366920938463463374607431768211456", "1e308", "1e309", "-1e309", "1e-400", "5e-324", "2.2250738585072014e-308",
    "0.1", "1.5", "-90.0000001", "90.0000001", "180.0000001", "-180.0000001", "1E+2", "1e", "1.", ".5", "01", "-", "+1", "0x10",
    "NaN", "Infinity", "-Infinity", "1_000",
];

/// Odd strings: controls, bidi, BOM, surrogates' neighbours, path and format tricks.
const ODD_STRINGS: &[&str] = &[
    "", " ", "\t", "\n", "\r\n", "\u{0}", "\u{1}", "\u{7f}", "\u{80}", "\u{a0}", "\u{202e}", "\u{200b}", "\u{feff}", "\u{fffd}",
    "\u{ffff}", "\u{10ffff}", "😀", "𝕏", "é", "e\u{301}", "Nguyễn Văn A", "Nữ", "ß", "İ", "..", "../../etc/passwd", "%s%n%x",
    "<script>", "&amp;", "&bogus;", "'", "\"", "\\", "null", "true", "false", "0", "-1", "1e999", "NaN", "{}", "[]", "{\"a\":1}",
    "[1,2]", "data:image/png;base64,", "data:;base64,aGVsbG8=", "aGVsbG8=", "aA==", "aA", "a===", "====", "a$$$",
    "6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10", "6F1C2A7E-8D8B-4C55-9A3C-2B7A3C1D9E10", "{6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10}",
    "urn:uuid:6f1c2a7e-8d8b-4c55-9a3c-2b7a3c1d9e10", "6f1c2a7e8d8b4c559a3c2b7a3c1d9e10", "00000000-0000-0000-0000-000000000000",
    "2026-01-01T00:00:00Z", "2026-01-01T07:00:00+07:00", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z",
    "-9999-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00.123456789123Z",
    "2026-01-01T00:00:00+23:59", "2026-01-01t00:00:00z",
];

/// Byte strings that break UTF-8 in every way a decoder must catch.
const INVALID_UTF8: &[&[u8]] = &[
    b"\xff", b"\xfe", b"\xc3", b"\xc0\x80", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xe2\x82",
    b"\xf0\x9f\x98", b"\x80", b"\xbf",
];

/// Tokens for text and JSON inputs, on top of each target's own.
const JSON_TOKENS: &[&str] = &[
    "{", "}", "[", "]", ":", ",", "\"", "\\", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\uD800\\u0041", "\\x41", "\\/",
    "null", "true", "false", "\"\"", "{}", "[]", "NaN", "1e999", "-0", "/*", "*/", "//", "\u{feff}", " ", "\t", "\r\n", "\n",
    "\"a\":", ",\"a\":1", "[[[[[[[[[[[[[[[[", "]]]]]]]]]]]]]]]]", "{\"a\":{\"a\":{\"a\":{\"a\":", "}}}}",
];

pub struct Mutator<'a> {
    pub shape: Shape,
    pub max_len: usize,
    /// Target tokens (keys, values, separators) plus the generic ones.
    pub dict: &'a [Vec<u8>],
    /// Other inputs, for splicing.
    pub corpus: &'a [Vec<u8>],
    /// Whether the JSON starts after the first line (a header line, then a JSON body).
    pub json_after_line: bool,
}

impl Mutator<'_> {
    /// A mutant of `base`: one to a few stacked mutations (sometimes many).
    pub fn mutate(&self, rng: &mut Rng, base: &[u8]) -> Vec<u8> {
        let mut out = base.to_vec();
        let rounds = if rng.chance(1, 8) { rng.range(4, 16) } else { rng.range(1, 3) };
        for _ in 0..rounds {
            let json = self.shape == Shape::Json && rng.chance(1, 2);
            if json {
                if let Some(m) = self.mutate_json_doc(rng, &out) {
                    out = m;
                    continue;
                }
            }
            if self.shape == Shape::Lines && rng.chance(3, 4) {
                out = self.mutate_one_line(rng, &out);
            } else {
                self.mutate_bytes(rng, &mut out);
            }
        }
        out.truncate(self.max_len);
        out
    }

    fn mutate_one_line(&self, rng: &mut Rng, input: &[u8]) -> Vec<u8> {
        let mut lines: Vec<Vec<u8>> = input.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        let i = rng.below(lines.len());
        if rng.chance(1, 6) {
            // Another input's line at this place (splicing at field level).
            if let Some(other) = rng.pick(self.corpus) {
                let theirs: Vec<&[u8]> = other.split(|&b| b == b'\n').collect();
                if let Some(l) = theirs.get(i).or_else(|| theirs.first()) {
                    lines[i] = l.to_vec();
                }
            }
        } else {
            self.mutate_bytes(rng, &mut lines[i]);
        }
        lines.join(&b'\n')
    }

    fn token(&self, rng: &mut Rng) -> Vec<u8> {
        match rng.below(4) {
            0 => JSON_TOKENS[rng.below(JSON_TOKENS.len())].as_bytes().to_vec(),
            1 => ODD_STRINGS[rng.below(ODD_STRINGS.len())].as_bytes().to_vec(),
            _ => rng.pick(self.dict).cloned().unwrap_or_else(|| vec![rng.byte()]),
        }
    }

    /// One byte-level mutation in place.
    pub fn mutate_bytes(&self, rng: &mut Rng, b: &mut Vec<u8>) {
        let len = b.len();
        let at = |rng: &mut Rng| rng.below(len + 1);
        match rng.below(17) {
            // Bit flip.
            0 if len > 0 => {
                let i = rng.below(len);
                b[i] ^= 1 << rng.below(8);
            }
            // Interesting byte.
            1 if len > 0 => {
                let i = rng.below(len);
                b[i] = *rng.pick(&[0u8, 0xff, 0x7f, 0x80, b' ', b'"', b'\\', b'\n', b'\r', b'0', b'9', b'{', b'}', b'<', b'|', b':', b'=', b'-']).unwrap_or(&0);
            }
            // Random byte; small arithmetic.
            2 if len > 0 => {
                let i = rng.below(len);
                b[i] = rng.byte();
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let d = rng.range(1, 35) as u8;
                b[i] = if rng.chance(1, 2) { b[i].wrapping_add(d) } else { b[i].wrapping_sub(d) };
            }
            // Insert random bytes.
            4 => {
                let i = at(rng);
                let n = rng.range(1, 8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.byte()).collect();
                b.splice(i..i, bytes);
            }
            // Delete a range.
            5 if len > 0 => {
                let i = rng.below(len);
                let n = if rng.chance(1, 2) { rng.range(1, 4) } else { rng.range(1, (len / 4).max(1)) };
                b.drain(i..(i + n).min(len));
            }
            // Duplicate a chunk somewhere else.
            6 if len > 0 => {
                let i = rng.below(len);
                let n = rng.range(1, 64usize.min(len - i));
                let chunk = b[i..i + n].to_vec();
                let j = at(rng);
                b.splice(j..j, chunk);
            }
            // Repeat a chunk many times (long strings, long lists).
            7 if len > 0 => {
                let i = rng.below(len);
                let n = rng.range(1, 8usize.min(len - i));
                let chunk = b[i..i + n].to_vec();
                let times = *rng.pick(&[16usize, 130, 257, 1025, 4097, 20_000]).unwrap_or(&16);
                let room = self.max_len.saturating_sub(len) / n.max(1);
                let rep = chunk.repeat(times.min(room));
                b.splice(i..i, rep);
            }
            // Splice: our prefix, another input's suffix.
            8 => {
                if let Some(other) = rng.pick(self.corpus) {
                    let i = at(rng);
                    let j = rng.below(other.len() + 1);
                    b.truncate(i);
                    b.extend_from_slice(&other[j..]);
                }
            }
            // Insert or overwrite a dictionary token.
            9 | 10 => {
                let t = self.token(rng);
                let i = at(rng);
                if rng.chance(1, 2) || i == len {
                    b.splice(i..i, t);
                } else {
                    let end = (i + t.len()).min(len);
                    b.splice(i..end, t);
                }
            }
            // Invalid UTF-8.
            11 => {
                let t = INVALID_UTF8[rng.below(INVALID_UTF8.len())];
                let i = at(rng);
                b.splice(i..i, t.iter().copied());
            }
            // Replace a run of digits by an interesting number.
            12 => {
                let starts: Vec<usize> = (0..len).filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit())).collect();
                if let Some(&s) = rng.pick(&starts) {
                    let e = (s..len).find(|&i| !b[i].is_ascii_digit()).unwrap_or(len);
                    let n = INTERESTING_NUMBERS[rng.below(INTERESTING_NUMBERS.len())];
                    b.splice(s..e, n.bytes());
                }
            }
            // Truncate.
            13 if len > 0 => b.truncate(rng.below(len)),
            // Swap two chunks.
            14 if len > 2 => {
                let i = rng.below(len / 2);
                let j = len / 2 + rng.below(len - len / 2);
                let n = rng.range(1, 16).min(j - i).min(len - j);
                for k in 0..n {
                    b.swap(i + k, j + k);
                }
            }
            // Copy a chunk over another place (no length change).
            15 if len > 1 => {
                let i = rng.below(len);
                let j = rng.below(len);
                let n = rng.range(1, 32).min(len - i).min(len - j);
                let chunk = b[i..i + n].to_vec();
                b[j..j + n].copy_from_slice(&chunk);
            }
            // Change case of a letter.
            16 if len > 0 => {
                let i = rng.below(len);
                if b[i].is_ascii_alphabetic() {
                    b[i] ^= 0x20;
                }
            }
            _ => {
                let i = at(rng);
                b.insert(i, rng.byte());
            }
        }
    }

    fn mutate_json_doc(&self, rng: &mut Rng, input: &[u8]) -> Option<Vec<u8>> {
        let (head, body) = if self.json_after_line {
            let nl = input.iter().position(|&c| c == b'\n')?;
            (&input[..=nl], &input[nl + 1..])
        } else {
            (&input[..0], input)
        };
        let mut value: Value = serde_json::from_slice(body).ok()?;
        let others: Vec<Value> = (0..2)
            .filter_map(|_| {
                let o = rng.pick(self.corpus)?;
                let o = if self.json_after_line { &o[o.iter().position(|&c| c == b'\n')? + 1..] } else { &o[..] };
                serde_json::from_slice(o).ok()
            })
            .collect();
        let mut raws = Vec::new();
        mutate_json(rng, &mut value, &others, self.dict, &mut raws);
        let mut text = if rng.chance(1, 5) { serde_json::to_string_pretty(&value).ok()? } else { serde_json::to_string(&value).ok()? };
        for (marker, raw) in raws {
            text = text.replacen(&format!("\"{marker}\""), &raw, 1);
        }
        let mut out = head.to_vec();
        out.extend_from_slice(text.as_bytes());
        Some(out)
    }
}

fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(m) => m.values().map(count).sum(),
        _ => 0,
    }
}

fn nth_mut<'a>(v: &'a mut Value, k: &mut usize) -> Option<&'a mut Value> {
    if *k == 0 {
        return Some(v);
    }
    *k -= 1;
    match v {
        Value::Array(a) => {
            for x in a.iter_mut() {
                if let Some(r) = nth_mut(x, k) {
                    return Some(r);
                }
            }
            None
        }
        Value::Object(m) => {
            for x in m.values_mut() {
                if let Some(r) = nth_mut(x, k) {
                    return Some(r);
                }
            }
            None
        }
        _ => None,
    }
}

fn random_node(rng: &mut Rng, v: &Value) -> Value {
    let mut v = v.clone();
    let mut k = rng.below(count(&v));
    nth_mut(&mut v, &mut k).map(|n| n.clone()).unwrap_or(Value::Null)
}

fn dict_string(rng: &mut Rng, dict: &[Vec<u8>]) -> String {
    rng.pick(dict).map(|d| String::from_utf8_lossy(d).into_owned()).unwrap_or_else(|| "a".into())
}

fn scalar(rng: &mut Rng, dict: &[Vec<u8>]) -> Value {
    match rng.below(12) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(1, 2)),
        2 => Value::from(*rng.pick(&[0i64, -1, 1, 50, 51, 100, 101, 128, 300, 301, i64::MAX, i64::MIN]).unwrap_or(&0)),
        3 => Value::from(u64::MAX),
        4 => serde_json::Number::from_f64(*rng.pick(&[0.5, -0.0, 1e300, -1e300, 90.000001, -180.5, 5e-324, f64::MAX]).unwrap_or(&0.5))
            .map(Value::Number)
            .unwrap_or(Value::Null),
        5 | 6 => Value::String(ODD_STRINGS[rng.below(ODD_STRINGS.len())].to_string()),
        7 | 8 => Value::String(dict_string(rng, dict)),
        9 => Value::Array(Vec::new()),
        10 => Value::Object(Map::new()),
        _ => Value::String(String::new()),
    }
}

/// One JSON-aware mutation of `root`. Raw tokens that a `Value` cannot hold (1e999, NaN,
/// 20-digit integers, duplicate keys) are placed as marker strings and listed in `raws`
/// as (marker, raw text) for the caller to substitute after serializing.
pub fn mutate_json(rng: &mut Rng, root: &mut Value, others: &[Value], dict: &[Vec<u8>], raws: &mut Vec<(String, String)>) {
    let n = count(root);
    let mut k = rng.below(n);
    let donor = rng.pick(others).map(|o| random_node(rng, o));
    let Some(node) = nth_mut(root, &mut k) else { return };
    let marker = |raws: &Vec<(String, String)>| format!("__IDVFUZZ_{}__", raws.len());
    match rng.below(14) {
        // Swap the value's type.
        0 | 1 => *node = scalar(rng, dict),
        // A raw number serde_json's Value cannot hold.
        2 => {
            let m = marker(raws);
            raws.push((m.clone(), INTERESTING_NUMBERS[rng.below(INTERESTING_NUMBERS.len())].to_string()));
            *node = Value::String(m);
        }
        // Deep nesting (around and past serde_json's recursion limit of 128).
        3 => {
            let depth = *rng.pick(&[3usize, 20, 64, 126, 127, 128, 129, 200, 2000]).unwrap_or(&3);
            let mut v = std::mem::take(node);
            let objects = rng.chance(1, 2);
            for _ in 0..depth {
                v = if objects {
                    let mut m = Map::new();
                    m.insert(dict_string(rng, dict), v);
                    Value::Object(m)
                } else {
                    Value::Array(vec![v])
                };
            }
            *node = v;
        }
        // Long strings (past every length limit; multi-byte characters count once).
        4 => {
            let unit = *rng.pick(&["a", "é", "😀", " ", "\u{0}", "\\", "\"", "<", "|", "0"]).unwrap_or(&"a");
            let len = *rng.pick(&[33usize, 65, 129, 257, 4097, 8193, 16_385, 100_000]).unwrap_or(&129);
            *node = Value::String(unit.repeat(len));
        }
        // Stringify an object or array (string_json metadata), or parse a string.
        5 => {
            *node = match &*node {
                Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(format!("{s}{s}"))),
                other => Value::String(other.to_string()),
            }
        }
        // Grow an array (past 10, 32, 50, 300 entries) or empty it.
        6 => {
            if let Value::Array(a) = node {
                if a.is_empty() || rng.chance(1, 4) {
                    if rng.chance(1, 2) {
                        a.clear();
                    } else {
                        a.push(donor.unwrap_or_else(|| scalar(rng, dict)));
                    }
                } else {
                    let target = *rng.pick(&[2usize, 4, 11, 33, 51, 101, 301]).unwrap_or(&2);
                    let first = a[rng.below(a.len())].clone();
                    while a.len() < target {
                        a.push(first.clone());
                    }
                }
            } else {
                *node = Value::Array(vec![std::mem::take(node)]);
            }
        }
        // Objects: remove, add, rename or duplicate a key.
        7 | 8 => {
            if let Value::Object(m) = node {
                let keys: Vec<String> = m.keys().cloned().collect();
                match rng.below(4) {
                    0 if !keys.is_empty() => {
                        m.remove(&keys[rng.below(keys.len())]);
                    }
                    1 if !keys.is_empty() => {
                        let k = keys[rng.below(keys.len())].clone();
                        if let Some(v) = m.remove(&k) {
                            let new = match rng.below(4) {
                                0 => k.to_uppercase(),
                                1 => format!(" {k}"),
                                2 => String::new(),
                                _ => dict_string(rng, dict),
                            };
                            m.insert(new, v);
                        }
                    }
                    2 if !keys.is_empty() => {
                        // Duplicate key: `"k": <other value>` next to the original.
                        let k = keys[rng.below(keys.len())].clone();
                        let mk = marker(raws);
                        let v = scalar(rng, dict);
                        raws.push((mk.clone(), serde_json::to_string(&k).unwrap_or_default()));
                        m.insert(mk, v);
                    }
                    _ => {
                        let v = donor.unwrap_or_else(|| scalar(rng, dict));
                        m.insert(dict_string(rng, dict), v);
                    }
                }
            } else {
                let mut m = Map::new();
                m.insert(dict_string(rng, dict), std::mem::take(node));
                *node = Value::Object(m);
            }
        }
        // Numbers at and past the limits.
        9 => {
            let m = marker(raws);
            raws.push((m.clone(), INTERESTING_NUMBERS[rng.below(INTERESTING_NUMBERS.len())].to_string()));
            if node.is_number() || rng.chance(1, 3) {
                *node = Value::String(m);
            } else {
                raws.pop();
                *node = scalar(rng, dict);
            }
        }
        // Strings: odd content, dictionary values, prefixes and suffixes.
        10 | 11 => {
            if let Value::String(s) = node {
                match rng.below(4) {
                    0 => s.push_str(ODD_STRINGS[rng.below(ODD_STRINGS.len())]),
                    1 => s.insert_str(0, ODD_STRINGS[rng.below(ODD_STRINGS.len())]),
                    2 => *s = dict_string(rng, dict),
                    _ => {
                        let cut = s.char_indices().map(|(i, _)| i).nth(rng.below(s.chars().count() + 1)).unwrap_or(s.len());
                        s.truncate(cut);
                    }
                }
            } else {
                *node = Value::String(dict_string(rng, dict));
            }
        }
        // A subtree from another input (splicing at JSON level).
        12 => {
            if let Some(d) = donor {
                *node = d;
            }
        }
        // Null out or remove whatever is there.
        _ => *node = Value::Null,
    }
}

/// Every object key and string value in `v` (JSON seeds' own vocabulary, for the
/// dictionary).
pub fn json_words(v: &Value, out: &mut Vec<Vec<u8>>) {
    match v {
        Value::String(s) if s.len() <= 64 => out.push(s.as_bytes().to_vec()),
        Value::Array(a) => a.iter().for_each(|x| json_words(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.as_bytes().to_vec());
                out.push(format!("\"{k}\":").into_bytes());
                json_words(x, out);
            }
        }
        _ => {}
    }
}
