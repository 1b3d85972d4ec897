//! `idv replay`: re-run the behavioral engine over recorded traffic for data teams. Reads
//! the results topic and the behavior topic from Kafka (every message retained, or from a
//! time on) without joining any consumer group, feeds them to [`idv_scorer::replay`] in
//! topic order, and writes one JSON line per score request: the recorded answer beside
//! this run's, with this run's settings (`--policy-file`, `--policy-clients`,
//! `--baseline-auto-update`). Writes nothing to the store or the bus. Sealed transaction
//! fields are opened only when the master key is given explicitly (`--master-key` /
//! `IDV_MASTER_KEY`); a data directory's key file is never read for this.

use crate::settings::Settings;
use idv_scorer::replay::{Replay, ReplayLine};
use std::io::Write as _;
use std::path::Path;

/// What a run read and found.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ReplaySummary {
    pub results_read: usize,
    pub jobs_read: usize,
    pub jobs_in_range: usize,
    pub scored: usize,
    pub changed: usize,
    pub without_recorded_answer: usize,
    pub transaction_sealed: usize,
}

/// Parse an RFC 3339 time into Unix milliseconds.
pub fn unix_ms(rfc3339: &str) -> Result<i64, String> {
    let t = time::OffsetDateTime::parse(rfc3339, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("{rfc3339:?} is not an RFC 3339 time: {e}"))?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).map_err(|e| e.to_string())
}

/// The lines of a replay over already-read messages (pure: the CLI reads, tests can call
/// this on recorded payloads). Jobs outside `[since_ms, until_ms)` by their `created_at`
/// are skipped (a message's broker time and its job's time differ by milliseconds).
pub fn replay_messages(
    replay: &mut Replay,
    results: &[Vec<u8>],
    jobs: &[Vec<u8>],
    since_ms: Option<i64>,
    until_ms: Option<i64>,
    mut line_out: impl FnMut(&ReplayLine) -> Result<(), String>,
) -> Result<ReplaySummary, String> {
    let mut summary = ReplaySummary { results_read: results.len(), jobs_read: jobs.len(), ..Default::default() };
    for payload in results {
        // A message of another version is skipped, not fatal: replays read old topics.
        if let Ok(r) = serde_json::from_slice::<idv_schemas::jobs::JobResult>(payload) {
            replay.record_result(r.request_id, r.envelope);
        }
    }
    for payload in jobs {
        let Ok(job) = idv_schemas::jobs::Job::decode(payload) else { continue };
        let at = unix_ms(&job.created_at).ok();
        if since_ms.is_some_and(|s| at.is_some_and(|a| a < s)) || until_ms.is_some_and(|u| at.is_none_or(|a| a >= u)) {
            continue;
        }
        summary.jobs_in_range += 1;
        if let Some(line) = replay.apply(&job) {
            summary.scored += 1;
            summary.changed += usize::from(line.changed);
            summary.without_recorded_answer += usize::from(line.before.is_none());
            summary.transaction_sealed += usize::from(line.transaction_sealed);
            line_out(&line)?;
        }
    }
    Ok(summary)
}

/// Read the topics and write the report to `out` (JSON lines).
pub async fn run(settings: &Settings, since: Option<&str>, until: Option<&str>, out: &Path) -> Result<ReplaySummary, String> {
    let since_ms = since.map(unix_ms).transpose()?;
    let until_ms = until.map(unix_ms).transpose()?;
    let config = settings.behavior_config()?;
    let sealer = if settings.master_key.is_some() { Some(settings.sealer()?) } else { None };
    let url = settings.bus_url();
    let (results, jobs) = read_topics(&url, since_ms).await?;
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?);
    let mut replay = Replay::new(config, sealer);
    let summary = replay_messages(&mut replay, &results, &jobs, since_ms, until_ms, |line| {
        let text = serde_json::to_string(line).map_err(|e| e.to_string())?;
        writeln!(file, "{text}").map_err(|e| format!("{}: {e}", out.display()))
    })?;
    file.flush().map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(summary)
}

#[cfg(feature = "kafka")]
async fn read_topics(url: &str, since_ms: Option<i64>) -> Result<(Vec<Vec<u8>>, Vec<Vec<u8>>), String> {
    use idv_schemas::ops::Topic;
    if !url.starts_with("kafka://") {
        return Err(format!("idv replay reads recorded topics from Kafka; the bus is {url:?} (set IDV_BUS=kafka://...)"));
    }
    let bus = idv_bus::kafka::KafkaBus::connect(url).map_err(|e| e.to_string())?;
    let mut read = Vec::new();
    for topic in [Topic::Results, Topic::Behavior] {
        let name = topic.name();
        let messages = bus
            .read_retained(name, since_ms, move |n, total| {
                // A progress line on stderr, rewritten in place.
                if n % 100 == 0 || n == total {
                    eprint!("\rreplay: {name}: {n}/{total} messages");
                    if n == total {
                        eprintln!();
                    }
                }
            })
            .await
            .map_err(|e| e.to_string())?;
        read.push(messages.into_iter().map(|d| d.payload).collect::<Vec<_>>());
    }
    let jobs = read.pop().unwrap_or_default();
    let results = read.pop().unwrap_or_default();
    Ok((results, jobs))
}

#[cfg(not(feature = "kafka"))]
async fn read_topics(_url: &str, _since_ms: Option<i64>) -> Result<(Vec<Vec<u8>>, Vec<Vec<u8>>), String> {
    Err("idv replay reads Kafka topics: rebuild with `--features kafka` (or `distributed`)".into())
}
