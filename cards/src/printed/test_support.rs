//! Fixtures and the random-input harness shared by the printed-card parsers' tests.

use super::{classify, parse_printed, FieldCheck, PrintedField, Side, TextLine, CARD_TYPES};

/// Lines in reading order, 40 px apart, confidence 0.9 (a `~` prefix: 0.3, garbage).
pub fn lines(texts: &[&str]) -> Vec<TextLine> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (text, confidence) = match t.strip_prefix('~') {
                Some(rest) => (rest.to_string(), 0.3),
                None => (t.to_string(), 0.9),
            };
            TextLine { text, confidence, x: 40, y: 40 + 40 * i as u32, width: 600, height: 30 }
        })
        .collect()
}

/// Lines with their boxes as a page gave them: (text, x from, x to, y from, y to).
pub fn boxed(rows: &[(&str, u32, u32, u32, u32)]) -> Vec<TextLine> {
    rows.iter().map(|&(t, x0, x1, y0, y1)| TextLine { text: t.into(), confidence: 0.9, x: x0, y: y0, width: x1 - x0, height: y1 - y0 }).collect()
}

pub fn get<'a>(fields: &'a [PrintedField], name: &str) -> Option<&'a PrintedField> {
    fields.iter().find(|f| f.field == name)
}

pub fn value<'a>(fields: &'a [PrintedField], name: &str) -> Option<&'a str> {
    get(fields, name).map(|f| f.value.as_str())
}

pub fn check(fields: &[PrintedField], name: &str) -> Option<FieldCheck> {
    get(fields, name).map(|f| f.check)
}

/// Asserts every `(field, value, check)` and that no other field was returned.
pub fn assert_fields(fields: &[PrintedField], expected: &[(&str, &str, FieldCheck)]) {
    for (name, v, c) in expected {
        let f = get(fields, name).unwrap_or_else(|| panic!("no {name} in {fields:#?}"));
        assert_eq!((f.value.as_str(), f.check), (*v, *c), "{name} in {fields:#?}");
        assert!(!f.lines.is_empty() && (0.0..=1.0).contains(&f.confidence), "{f:?}");
    }
    let mut names: Vec<&str> = fields.iter().map(|f| f.field).collect();
    names.sort_unstable();
    let mut want: Vec<&str> = expected.iter().map(|e| e.0).collect();
    want.sort_unstable();
    assert_eq!(names, want, "{fields:#?}");
}

/// The classifier's best type.
pub fn best_type(l: &[TextLine]) -> Option<&'static str> {
    classify(l).first().map(|c| c.0)
}

/// Random lines and single-character mutations of `fixture`, through every parser
/// (both sides) and the classifier: answers, never a panic, every field's lines are
/// input indices and its confidence in 0-1.
pub fn never_panics(fixture: &[TextLine], alphabet: &str, seed: u64, rounds: usize) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let alphabet: Vec<char> = alphabet.chars().collect();
    let check = |l: &[TextLine]| {
        for t in CARD_TYPES {
            for side in [Side::Front, Side::Back] {
                for f in parse_printed(t, side, l) {
                    assert!(f.lines.iter().all(|&i| i < l.len()), "{f:?}");
                    assert!((0.0..=1.0).contains(&f.confidence), "{f:?}");
                    assert!(!f.value.is_empty(), "{f:?}");
                }
            }
        }
        for (_, s) in classify(l) {
            assert!(s > 0.0 && s <= 1.0);
        }
    };
    for _ in 0..rounds {
        let n = rng.gen_range(0..8);
        let random: Vec<TextLine> = (0..n)
            .map(|_| {
                let len = rng.gen_range(0..60);
                let text: String = (0..len).map(|_| alphabet[rng.gen_range(0..alphabet.len())]).collect();
                let confidence = [f32::NAN, -1.0, 0.5, 2.0, f32::INFINITY][rng.gen_range(0..5)];
                TextLine { text, confidence, x: rng.gen(), y: rng.gen(), width: rng.gen(), height: rng.gen() }
            })
            .collect();
        check(&random);
        let mut m = fixture.to_vec();
        if m.is_empty() {
            continue;
        }
        for _ in 0..rng.gen_range(1..4) {
            let li = rng.gen_range(0..m.len());
            let mut cs: Vec<char> = m[li].text.chars().collect();
            match rng.gen_range(0..4) {
                0 if !cs.is_empty() => {
                    let i = rng.gen_range(0..cs.len());
                    cs[i] = alphabet[rng.gen_range(0..alphabet.len())];
                }
                1 if !cs.is_empty() => {
                    cs.remove(rng.gen_range(0..cs.len()));
                }
                2 => cs.insert(rng.gen_range(0..=cs.len()), alphabet[rng.gen_range(0..alphabet.len())]),
                _ => {
                    m.remove(li);
                    if m.is_empty() {
                        break;
                    }
                    continue;
                }
            }
            m[li].text = cs.into_iter().collect();
        }
        check(&m);
    }
}

/// The characters random lines are drawn from: digits, confusable letters, label
/// letters, separators, Vietnamese and Devanagari, combining marks, controls.
pub const ALPHABET: &str = "0123456789 OIlSBZGT|/:-.,ABCPEFHJLNMRadehimnorstuv<ễăâđĐơưữọ\u{301}\u{302}\u{323}जन्मतिथिपुरुषआधार\u{0}\u{202e}\t";
