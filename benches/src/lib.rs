//! Load-tool helpers: run a closed-loop load (C concurrent callers, N requests in all)
//! and summarise throughput and latency percentiles.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Summary {
    pub label: String,
    pub requests: usize,
    pub errors: usize,
    pub elapsed: Duration,
    pub p50: Duration,
    pub p99: Duration,
}

impl Summary {
    pub fn rps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn print(&self) {
        println!(
            "{:<44} {:>9.0} req/s   p50 {:>8.3} ms   p99 {:>8.3} ms   ({} requests, {} errors)",
            self.label,
            self.rps(),
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3,
            self.requests,
            self.errors
        );
    }
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// `call` returns whether the request succeeded.
pub async fn closed_loop<F, Fut>(label: &str, total: usize, concurrency: usize, call: F) -> Summary
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = bool> + Send,
{
    let call = Arc::new(call);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let call = call.clone();
        let next = next.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut errors = 0;
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let t = Instant::now();
                if !call(i).await {
                    errors += 1;
                }
                lat.push(t.elapsed());
            }
            (lat, errors)
        }));
    }
    let mut all = Vec::with_capacity(total);
    let mut errors = 0;
    for t in tasks {
        if let Ok((lat, e)) = t.await {
            all.extend(lat);
            errors += e;
        }
    }
    let elapsed = started.elapsed();
    all.sort_unstable();
    Summary {
        label: label.to_string(),
        requests: all.len(),
        errors,
        elapsed,
        p50: percentile(&all, 0.50),
        p99: percentile(&all, 0.99),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&v, 0.5), Duration::from_millis(51));
        assert_eq!(percentile(&v, 0.99), Duration::from_millis(99));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }
}

/// The URL of a test broker with the run's extra client options appended, e.g.
/// `IDV_BENCH_KAFKA_OPTS=producer.linger.ms=1` (printed, so the figures say what ran).
pub fn kafka_url(broker_url: &str) -> String {
    let url = match std::env::var("IDV_BENCH_KAFKA_OPTS") {
        Ok(opts) if !opts.is_empty() => format!("{broker_url}&{opts}"),
        _ => broker_url.to_string(),
    };
    println!("  kafka url: {url}");
    url
}

/// Scoring of a card reading against the truth, shared by the card evaluations
/// (`card_eval`: the service's own generator; `card_eval_set`: a set of photos on disk).
pub mod card_score {
    use std::time::Duration;

    /// What both card evaluations count per row (type and capture): cards, expected
    /// fields, fields exact, wrong, wrong and `SURE`, sanity verdicts right, the
    /// Tesseract CLI peer's exact and wrong fields, and each card's latency.
    #[derive(Default, Clone)]
    pub struct Tally {
        pub cards: usize,
        pub expected: usize,
        pub exact: usize,
        pub wrong: usize,
        pub wrong_sure: usize,
        pub sanity_right: usize,
        pub tesseract_exact: usize,
        pub tesseract_wrong: usize,
        pub latencies: Vec<Duration>,
    }

    impl Tally {
        pub fn add(&mut self, o: &Tally) {
            self.cards += o.cards;
            self.expected += o.expected;
            self.exact += o.exact;
            self.wrong += o.wrong;
            self.wrong_sure += o.wrong_sure;
            self.sanity_right += o.sanity_right;
            self.tesseract_exact += o.tesseract_exact;
            self.tesseract_wrong += o.tesseract_wrong;
            self.latencies.extend(o.latencies.iter().copied());
        }
    }

    /// Expected fields found exactly, returned wrong, and returned wrong marked `SURE`,
    /// over (field, value) pairs; `got` is (field, value, marked SURE).
    pub fn score(expected: &[(String, String)], got: &[(String, String, bool)]) -> (usize, usize, usize) {
        let (mut exact, mut wrong, mut wrong_sure) = (0, 0, 0);
        for (field, value) in expected {
            match got.iter().find(|(f, _, _)| f == field) {
                Some((_, v, _)) if v == value => exact += 1,
                Some((_, _, sure)) => {
                    wrong += 1;
                    wrong_sure += usize::from(*sure);
                }
                None => {}
            }
        }
        (exact, wrong, wrong_sure)
    }

    /// `n` of `d` as a percentage with one decimal, `-` when `d` is 0.
    pub fn pct(n: usize, d: usize) -> String {
        if d == 0 {
            "-".into()
        } else {
            format!("{:.1}%", 100.0 * n as f64 / d as f64)
        }
    }

    /// The peer of the card evaluations: the Tesseract CLI (`tesseract FILE stdout -l LANG
    /// tsv`, `vie` for the CCCD as the service reads it, `eng` for the others) on the
    /// photos as taken, its lines through the service's own field parsers, so the
    /// difference is what finding, flattening and the rest of the pipeline buy. `None`
    /// when the CLI is not installed; (field, value, false) per field, the front's first.
    pub fn tesseract_peer(card_type: &str, front: &std::path::Path, back: Option<&std::path::Path>) -> Option<Vec<(String, String, bool)>> {
        use idv_cards::printed::{parse_printed, Side, TextLine};
        let lang = if card_type == "vn.national_id" { "vie" } else { "eng" };
        let mut peer: Vec<(String, String, bool)> = Vec::new();
        for (side, path) in std::iter::once((Side::Front, front)).chain(back.map(|b| (Side::Back, b))) {
            let out = std::process::Command::new("tesseract").arg(path).arg("stdout").args(["-l", lang, "tsv"]).env("OMP_THREAD_LIMIT", "1").output().ok()?;
            if !out.status.success() {
                return None;
            }
            let text: Vec<TextLine> = idv_vision::ocr::lines_from_tsv(&String::from_utf8_lossy(&out.stdout))
                .iter()
                .map(|l| TextLine { text: l.text.clone(), confidence: l.confidence / 100.0, x: l.bbox.x, y: l.bbox.y, width: l.bbox.width, height: l.bbox.height })
                .collect();
            for f in parse_printed(card_type, side, &text) {
                if !peer.iter().any(|(n, _, _)| n == f.field) {
                    peer.push((f.field.to_string(), f.value, false));
                }
            }
        }
        Some(peer)
    }

    /// The `q` quantile (0–1) of unsorted durations; zero when there are none.
    pub fn quantile(v: &[Duration], q: f64) -> Duration {
        let mut s = v.to_vec();
        s.sort_unstable();
        super::percentile(&s, q)
    }
}
