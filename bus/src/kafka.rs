//! The Kafka bus (rdkafka / librdkafka).
//!
//! URL: `kafka://host:port[,host:port][?option=value&...]`. Options:
//!
//! | option | meaning | default |
//! |---|---|---|
//! | `replication` | replication factor for topics made by `ensure_topics` | 1 |
//! | `assign_timeout_ms` | how long `subscribe` waits for the first partition assignment | 30000 |
//! | `producer.<key>` | librdkafka property `<key>` for the producer only | |
//! | `consumer.<key>` | librdkafka property `<key>` for consumers only | |
//! | any other dotted key | librdkafka property for every client (e.g. `session.timeout.ms`) | |
//!
//! How the trait's semantics map onto Kafka:
//! - durable accept: an idempotent producer with `acks=all`; `publish` awaits the delivery
//!   report. Backpressure: when librdkafka's local queue is full, `publish` waits for room
//!   (it never fails with QueueFull).
//! - per-key ordering: the Java-compatible `murmur2_random` partitioner, so other clients
//!   agree on where a key lives.
//! - at-least-once: auto commit is off; `commit` synchronously commits `offset + 1` for the
//!   delivery's partition only, on the member's commit thread, and returns the broker's
//!   answer, or an error when none came within `COMMIT_TIMEOUT` (the broker gone: the
//!   delivery then comes back to the group later). A member that goes away without
//!   committing hands its partitions to the rest of the group, which resume at the
//!   committed offset.
//!
//! Why each consumer runs a `BaseConsumer` on its own thread instead of using
//! `StreamConsumer`: librdkafka serves group-protocol callbacks (revoke/assign) only while
//! the application polls. With a `StreamConsumer`, a member whose owner is busy (not
//! awaiting `recv`) stalls every rebalance of its group until `max.poll.interval.ms`, so a
//! second member joining could wait minutes, and a member that fetched messages before a
//! revoke could hand them out after the partition already moved (a duplicate without any
//! failure). The thread polls continuously, answers rebalances at once, drops fetched
//! messages of revoked partitions, and pauses fetching when the application falls behind
//! (bounded memory). It also owns the blocking close (LeaveGroup) when the consumer is
//! dropped, so dropping never blocks an async executor. Trade-off: `max.poll.interval.ms`
//! no longer detects a stuck handler; the process heartbeat does.

use crate::{Bus, BusError, Consumer, Delivery, StartFrom};
use async_trait::async_trait;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, FromClientConfigAndContext, RDKafkaLogLevel};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer as _, ConsumerContext, Rebalance};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message as _;
use rdkafka::producer::{FutureProducer, FutureRecord, Producer as _};
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use rdkafka::util::Timeout;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// How long admin requests and the wait for new topics to show in metadata may take.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);
/// Messages the consumer thread may hand ahead to `recv` (the rest wait in its backlog).
const HANDOFF_CAPACITY: usize = 64;
/// Backlog size at which the consumer thread pauses fetching; it resumes once drained.
const BACKLOG_PAUSE: usize = 256;
/// How long `commit` waits for the broker's answer. A synchronous librdkafka commit waits
/// for the group coordinator without limit: run on the async runtime's blocking pool, it
/// held a worker for as long as a broker outage lasted, and a shutdown (which waits for
/// blocking tasks) never ended. The commit now runs on the member's own commit thread and
/// the caller stops waiting after this long; an unanswered commit is an error, and the
/// job may be delivered again, which every handler takes idempotently.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(10);

/// Parsed `kafka://` URL.
#[derive(Debug, Clone)]
struct Settings {
    bootstrap: String,
    replication: i32,
    assign_timeout: Duration,
    /// librdkafka properties from the URL: (key, value, applies to producer, applies to consumer).
    overrides: Vec<(String, String, bool, bool)>,
}

impl Settings {
    fn parse(url: &str) -> Result<Settings, BusError> {
        let bad = |why: &str| BusError::BadUrl(url.to_string(), why.to_string());
        let rest = url.strip_prefix("kafka://").ok_or_else(|| bad("expected kafka://host:port"))?;
        let (hosts, query) = match rest.split_once('?') {
            Some((h, q)) => (h, q),
            None => (rest, ""),
        };
        let hosts = hosts.trim_end_matches('/');
        let mut servers = Vec::new();
        for h in hosts.split(',') {
            let (host, port) = h.rsplit_once(':').ok_or_else(|| bad("each broker needs host:port"))?;
            if host.is_empty() || port.parse::<u16>().is_err() {
                return Err(bad(&format!("{h:?} is not host:port")));
            }
            servers.push(h);
        }
        let mut settings = Settings {
            bootstrap: servers.join(","),
            replication: 1,
            assign_timeout: Duration::from_secs(30),
            overrides: Vec::new(),
        };
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "replication" => {
                    settings.replication =
                        v.parse().ok().filter(|r| *r >= 1).ok_or_else(|| bad("replication must be >= 1"))?;
                }
                "assign_timeout_ms" => {
                    let ms: u64 = v.parse().map_err(|_| bad("assign_timeout_ms must be a number"))?;
                    settings.assign_timeout = Duration::from_millis(ms);
                }
                _ => {
                    let (key, producer, consumer) = if let Some(key) = k.strip_prefix("producer.") {
                        (key, true, false)
                    } else if let Some(key) = k.strip_prefix("consumer.") {
                        (key, false, true)
                    } else if k.contains('.') {
                        (&*k, true, true)
                    } else {
                        return Err(bad(&format!("unknown option {k:?}")));
                    };
                    settings.overrides.push((key.to_string(), v.into_owned(), producer, consumer));
                }
            }
        }
        Ok(settings)
    }

    fn producer_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.bootstrap)
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("partitioner", "murmur2_random")
            // Let librdkafka's own log level follow what tracing will show at most.
            .set_log_level(RDKafkaLogLevel::Info);
        for (k, v, producer, _) in &self.overrides {
            if *producer {
                c.set(k, v);
            }
        }
        c
    }

    /// Only the options meant for every client (security, timeouts), none of the
    /// producer's or consumers' own.
    fn admin_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.bootstrap).set_log_level(RDKafkaLogLevel::Info);
        for (k, v, producer, consumer) in &self.overrides {
            if *producer && *consumer {
                c.set(k, v);
            }
        }
        c
    }

    fn consumer_config(&self, group: &str, start: StartFrom) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.bootstrap)
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .set("auto.offset.reset", if start == StartFrom::Latest { "latest" } else { "earliest" })
            .set("enable.partition.eof", "false")
            // Faster than librdkafka's defaults (45 s / 3 s): a dead member's partitions move
            // within ~10 s, and members notice a rebalance within a second. Members that
            // leave cleanly (drop) send LeaveGroup and hand over at once regardless.
            .set("session.timeout.ms", "10000")
            .set("heartbeat.interval.ms", "1000")
            .set_log_level(RDKafkaLogLevel::Info);
        for (k, v, _, consumer) in &self.overrides {
            if *consumer {
                c.set(k, v);
            }
        }
        c
    }
}

fn backend(what: impl std::fmt::Display, e: impl std::fmt::Display) -> BusError {
    BusError::Backend(format!("{what}: {e}"))
}

/// Forwards librdkafka's log lines and client errors to `tracing`.
#[derive(Clone, Default)]
pub struct TracingContext;

fn forward_log(level: RDKafkaLogLevel, fac: &str, msg: &str) {
    match level {
        RDKafkaLogLevel::Emerg | RDKafkaLogLevel::Alert | RDKafkaLogLevel::Critical | RDKafkaLogLevel::Error => {
            tracing::error!(target: "librdkafka", "{fac} {msg}")
        }
        RDKafkaLogLevel::Warning => tracing::warn!(target: "librdkafka", "{fac} {msg}"),
        RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => tracing::info!(target: "librdkafka", "{fac} {msg}"),
        RDKafkaLogLevel::Debug => tracing::debug!(target: "librdkafka", "{fac} {msg}"),
    }
}

/// Group-less consumers (broadcast) need no rebalance callbacks.
impl ConsumerContext for TracingContext {}

impl ClientContext for TracingContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        forward_log(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        // Mostly transient (a broker connection dropped); librdkafka retries by itself.
        tracing::warn!(target: "librdkafka", "{error}: {reason}");
    }
}

pub struct KafkaBus {
    settings: Settings,
    producer: FutureProducer<TracingContext>,
    admin: AdminClient<TracingContext>,
}

impl KafkaBus {
    /// Build the clients. librdkafka connects lazily, so this fails only on a bad URL or
    /// configuration, not on an unreachable broker.
    pub fn connect(url: &str) -> Result<KafkaBus, BusError> {
        let settings = Settings::parse(url)?;
        let config = settings.producer_config();
        let producer = FutureProducer::from_config_and_context(&config, TracingContext)
            .map_err(|e| backend("kafka producer config", e))?;
        let admin_config = settings.admin_config();
        let admin = AdminClient::from_config_and_context(&admin_config, TracingContext)
            .map_err(|e| backend("kafka admin config", e))?;
        Ok(KafkaBus { settings, producer, admin })
    }

    /// Every message of `topic` retained now (all partitions, up to each one's end as of
    /// this call), or from the first written at or after `since_ms` (Unix milliseconds, by
    /// the broker's timestamps), without joining any consumer group and committing
    /// nothing: production groups are not disturbed (`idv replay`). Partition order is
    /// kept; `progress(read, total)` is called as messages arrive.
    pub async fn read_retained(
        &self,
        topic: &str,
        since_ms: Option<i64>,
        progress: impl Fn(usize, usize) + Send + 'static,
    ) -> Result<Vec<Delivery>, BusError> {
        let config = self.settings.consumer_config(&format!("idv-replay-{}", uuid::Uuid::new_v4()), StartFrom::Earliest);
        let topic = topic.to_string();
        let read = move || -> Result<Vec<Delivery>, BusError> {
            let consumer: BaseConsumer<TracingContext> =
                config.create_with_context(TracingContext).map_err(|e| backend("kafka consumer config", e))?;
            let timeout = Duration::from_secs(10);
            let metadata =
                consumer.fetch_metadata(Some(&topic), timeout).map_err(|e| backend(format_args!("metadata of {topic}"), e))?;
            let partitions: Vec<i32> =
                metadata.topics().iter().filter(|t| t.name() == topic).flat_map(|t| t.partitions().iter().map(|p| p.id())).collect();
            if partitions.is_empty() {
                return Err(BusError::UnknownTopic(topic));
            }
            let mut starts: HashMap<i32, i64> = HashMap::new();
            let mut ends: HashMap<i32, i64> = HashMap::new();
            for &p in &partitions {
                let (low, high) =
                    consumer.fetch_watermarks(&topic, p, timeout).map_err(|e| backend(format_args!("watermarks of {topic}/{p}"), e))?;
                starts.insert(p, low);
                ends.insert(p, high);
            }
            if let Some(ms) = since_ms {
                let mut by_time = TopicPartitionList::new();
                for &p in &partitions {
                    by_time.add_partition_offset(&topic, p, Offset::Offset(ms)).map_err(|e| backend("offsets for times", e))?;
                }
                let found = consumer.offsets_for_times(by_time, timeout).map_err(|e| backend("offsets for times", e))?;
                for e in found.elements() {
                    let start = match e.offset() {
                        Offset::Offset(o) => o,
                        // Nothing written since then on this partition.
                        _ => ends.get(&e.partition()).copied().unwrap_or(0),
                    };
                    starts.insert(e.partition(), start);
                }
            }
            let total: i64 = partitions.iter().map(|p| (ends[p] - starts[p]).max(0)).sum();
            let total = usize::try_from(total).unwrap_or(0);
            let mut tpl = TopicPartitionList::new();
            let mut open: HashMap<i32, i64> = HashMap::new();
            for &p in &partitions {
                if starts[&p] < ends[&p] {
                    tpl.add_partition_offset(&topic, p, Offset::Offset(starts[&p])).map_err(|e| backend("assign", e))?;
                    open.insert(p, ends[&p]);
                }
            }
            let mut out = Vec::with_capacity(total);
            if open.is_empty() {
                return Ok(out);
            }
            consumer.assign(&tpl).map_err(|e| backend(format_args!("assign {topic}"), e))?;
            let mut idle_since = Instant::now();
            while !open.is_empty() {
                match consumer.poll(Duration::from_millis(200)) {
                    Some(Ok(m)) => {
                        idle_since = Instant::now();
                        let Some(&end) = open.get(&m.partition()) else { continue };
                        if m.offset() < end {
                            out.push(Delivery {
                                topic: m.topic().to_string(),
                                partition: m.partition(),
                                offset: m.offset(),
                                key: m.key().map(<[u8]>::to_vec).unwrap_or_default(),
                                payload: m.payload().map(<[u8]>::to_vec).unwrap_or_default(),
                            });
                            progress(out.len(), total);
                        }
                        if m.offset() + 1 >= end {
                            open.remove(&m.partition());
                        }
                    }
                    Some(Err(e)) => return Err(backend(format_args!("reading {topic}"), e)),
                    None if idle_since.elapsed() > Duration::from_secs(30) => {
                        return Err(BusError::Backend(format!(
                            "reading {topic}: nothing arrived for 30 s with {} partition(s) unfinished (messages deleted by retention meanwhile?)",
                            open.len()
                        )))
                    }
                    None => {}
                }
            }
            Ok(out)
        };
        tokio::task::spawn_blocking(read).await.map_err(|e| backend("read task", e))?
    }

    /// Poll metadata until every topic is known with all partitions led, so a subscribe or
    /// publish right after `ensure_topics` does not race the broker's topic creation.
    async fn wait_for_topics(&self, topics: &[&str]) -> Result<(), BusError> {
        let producer = self.producer.clone();
        let topics: Vec<String> = topics.iter().map(|t| t.to_string()).collect();
        let wait = move || {
            let deadline = Instant::now() + ADMIN_TIMEOUT;
            for topic in &topics {
                loop {
                    let ready = match producer.client().fetch_metadata(Some(topic), Duration::from_secs(5)) {
                        Ok(md) => md.topics().iter().any(|t| {
                            t.name() == topic
                                && t.error().is_none()
                                && !t.partitions().is_empty()
                                && t.partitions().iter().all(|p| p.error().is_none() && p.leader() >= 0)
                        }),
                        Err(e) => {
                            tracing::debug!("metadata for {topic}: {e}");
                            false
                        }
                    };
                    if ready {
                        break;
                    }
                    if Instant::now() >= deadline {
                        return Err(BusError::Backend(format!(
                            "topic {topic} not visible in metadata after {ADMIN_TIMEOUT:?}"
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
            Ok(())
        };
        tokio::task::spawn_blocking(wait).await.map_err(|e| backend("metadata wait", e))?
    }
}

#[async_trait]
impl Bus for KafkaBus {
    async fn ensure_topics(&self, topics: &[&str], partitions: u32) -> Result<(), BusError> {
        if topics.is_empty() {
            return Ok(());
        }
        let partitions = i32::try_from(partitions.max(1))
            .map_err(|_| BusError::Backend(format!("{partitions} partitions is too many")))?;
        let new: Vec<NewTopic<'_>> = topics
            .iter()
            .map(|t| NewTopic::new(t, partitions, TopicReplication::Fixed(self.settings.replication)))
            .collect();
        let opts = AdminOptions::new().operation_timeout(Some(ADMIN_TIMEOUT)).request_timeout(Some(ADMIN_TIMEOUT));
        let results = self.admin.create_topics(&new, &opts).await.map_err(|e| backend("create topics", e))?;
        for result in results {
            match result {
                Ok(_) => {}
                // Idempotent: an existing topic keeps its partition count.
                Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((name, code)) => return Err(BusError::Backend(format!("create topic {name}: {code}"))),
            }
        }
        self.wait_for_topics(topics).await
    }

    async fn publish(&self, topic: &str, key: &[u8], payload: &[u8]) -> Result<(), BusError> {
        let record = FutureRecord::to(topic).key(key).payload(payload);
        // Timeout::Never: while the local queue is full, rdkafka retries (sleeping between
        // tries) instead of failing with QueueFull. That is the backpressure. Delivery
        // itself is still bounded by `message.timeout.ms`.
        match self.producer.send(record, Timeout::Never).await {
            Ok(_) => Ok(()),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::UnknownTopicOrPartition), _))
            | Err((KafkaError::MessageProduction(RDKafkaErrorCode::UnknownTopic), _)) => {
                Err(BusError::UnknownTopic(topic.to_string()))
            }
            Err((e, _)) => Err(backend(format_args!("publish to {topic}"), e)),
        }
    }

    async fn subscribe(&self, topic: &str, group: &str, start: StartFrom) -> Result<Box<dyn Consumer>, BusError> {
        let (assigned_tx, mut assigned_rx) = watch::channel(0u64);
        let assignment = Arc::new(Assignment::default());
        let context = GroupContext { topic: topic.to_string(), assignment: assignment.clone(), assigned: assigned_tx };
        let config = self.settings.consumer_config(group, start);
        let consumer: BaseConsumer<GroupContext> =
            BaseConsumer::from_config_and_context(&config, context).map_err(|e| backend("kafka consumer config", e))?;
        consumer.subscribe(&[topic]).map_err(|e| backend(format_args!("subscribe to {topic}"), e))?;
        let consumer = Arc::new(consumer);
        let weak = Arc::downgrade(&consumer);
        let (tx, rx) = mpsc::channel(HANDOFF_CAPACITY);
        let (commits, commit_requests) = std::sync::mpsc::channel();
        let committer = weak.clone();
        std::thread::Builder::new()
            .name("idv-kafka-commit".into())
            .spawn(move || commit_loop(committer, commit_requests))
            .map_err(|e| backend("spawn commit thread", e))?;
        std::thread::Builder::new()
            // Fixed name: a group name could hold a NUL, which thread names must not.
            .name("idv-kafka-consumer".into())
            .spawn(move || poll_loop(consumer, tx))
            .map_err(|e| backend("spawn consumer thread", e))?;
        // Wait until this member holds its partitions (possibly none, in a group with more
        // members than partitions), so what is published after subscribe returns is split
        // among members without a rebalance in the middle.
        let timeout = self.settings.assign_timeout;
        if tokio::time::timeout(timeout, assigned_rx.wait_for(|n| *n > 0)).await.is_err() {
            tracing::warn!(topic, group, "no partition assignment within {timeout:?}; continuing, it may come later");
        }
        Ok(Box::new(KafkaConsumer { rx, assignment, commits, committed: HashMap::new() }))
    }

    async fn lag(&self, topic: &str, group: &str) -> Option<u64> {
        // A client with the group's id that never joins it (no subscribe): it only reads
        // the group's committed offsets, so the group's members are not disturbed.
        let config = self.settings.consumer_config(group, StartFrom::Earliest);
        let topic = topic.to_string();
        let read = move || -> Option<u64> {
            let consumer: BaseConsumer<TracingContext> = BaseConsumer::from_config_and_context(&config, TracingContext).ok()?;
            let timeout = Duration::from_secs(5);
            let metadata = consumer.fetch_metadata(Some(&topic), timeout).ok()?;
            let partitions: Vec<i32> =
                metadata.topics().iter().find(|t| t.name() == topic)?.partitions().iter().map(|p| p.id()).collect();
            let mut tpl = TopicPartitionList::new();
            for p in &partitions {
                tpl.add_partition(&topic, *p);
            }
            let committed = consumer.committed_offsets(tpl, timeout).ok()?;
            let mut lag = 0u64;
            for p in partitions {
                let (low, high) = consumer.fetch_watermarks(&topic, p, timeout).ok()?;
                // Nothing committed yet: everything retained is still to do.
                let done = match committed.find_partition(&topic, p).map(|e| e.offset()) {
                    Some(Offset::Offset(o)) => o.max(low),
                    _ => low,
                };
                lag += u64::try_from(high - done).unwrap_or(0);
            }
            Some(lag)
        };
        tokio::task::spawn_blocking(read).await.ok().flatten()
    }

    async fn check(&self) -> Result<(), BusError> {
        let producer = self.producer.clone();
        tokio::task::spawn_blocking(move || producer.client().fetch_metadata(None, Duration::from_secs(2)).map(|_| ()))
            .await
            .map_err(|e| backend("broker check", e))?
            .map_err(|e| backend("broker unreachable", e))
    }

    async fn subscribe_broadcast(&self, topic: &str) -> Result<Box<dyn Consumer>, BusError> {
        // librdkafka wants a group.id even for assign(); this one is never joined (no
        // subscribe, explicit start offsets, no commits), so the broker keeps nothing.
        let config = self.settings.consumer_config(&format!("idv-broadcast-{}", uuid::Uuid::new_v4()), StartFrom::Latest);
        let consumer: BaseConsumer<TracingContext> =
            config.create_with_context(TracingContext).map_err(|e| backend("kafka consumer config", e))?;
        let topic_owned = topic.to_string();
        // Start every partition at its current end, resolved now, so everything published
        // after this returns is seen (Offset::End would resolve lazily, later).
        let consumer = tokio::task::spawn_blocking(move || -> Result<BaseConsumer<TracingContext>, BusError> {
            let timeout = Duration::from_secs(10);
            let metadata = consumer
                .fetch_metadata(Some(&topic_owned), timeout)
                .map_err(|e| backend(format_args!("metadata of {topic_owned}"), e))?;
            let partitions: Vec<i32> = metadata
                .topics()
                .iter()
                .filter(|t| t.name() == topic_owned)
                .flat_map(|t| t.partitions().iter().map(|p| p.id()))
                .collect();
            if partitions.is_empty() {
                return Err(BusError::UnknownTopic(topic_owned));
            }
            let mut tpl = TopicPartitionList::new();
            for p in partitions {
                let (_, high) = consumer
                    .fetch_watermarks(&topic_owned, p, timeout)
                    .map_err(|e| backend(format_args!("watermarks of {topic_owned}/{p}"), e))?;
                tpl.add_partition_offset(&topic_owned, p, Offset::Offset(high)).map_err(|e| backend("assign", e))?;
            }
            consumer.assign(&tpl).map_err(|e| backend(format_args!("assign {topic_owned}"), e))?;
            Ok(consumer)
        })
        .await
        .map_err(|e| backend("broadcast subscribe task", e))??;
        let (tx, rx) = mpsc::channel(HANDOFF_CAPACITY);
        std::thread::Builder::new()
            .name("idv-kafka-broadcast".into())
            .spawn(move || broadcast_poll_loop(consumer, tx))
            .map_err(|e| backend("spawn consumer thread", e))?;
        Ok(Box::new(BroadcastConsumer { rx }))
    }

    fn backend(&self) -> &'static str {
        "kafka"
    }
}

/// The broadcast consumer's thread: fetches and hands over, waiting (not dropping) when
/// the reader falls behind; ends when the reader is dropped.
fn broadcast_poll_loop(consumer: BaseConsumer<TracingContext>, tx: mpsc::Sender<Delivery>) {
    while !tx.is_closed() {
        match consumer.poll(Duration::from_millis(100)) {
            None => {}
            Some(Ok(m)) => {
                let delivery = Delivery {
                    topic: m.topic().to_string(),
                    partition: m.partition(),
                    offset: m.offset(),
                    key: m.key().map(<[u8]>::to_vec).unwrap_or_default(),
                    payload: m.payload().map(<[u8]>::to_vec).unwrap_or_default(),
                };
                if tx.blocking_send(delivery).is_err() {
                    return;
                }
            }
            Some(Err(e)) => tracing::warn!(target: "librdkafka", "broadcast consumer: {e}"),
        }
    }
}

/// A group-less reader of every partition (see [`Bus::subscribe_broadcast`]).
struct BroadcastConsumer {
    rx: mpsc::Receiver<Delivery>,
}

#[async_trait]
impl Consumer for BroadcastConsumer {
    async fn recv(&mut self) -> Result<Delivery, BusError> {
        self.rx.recv().await.ok_or(BusError::Closed)
    }

    /// No group, nothing to commit.
    async fn commit(&mut self, _delivery: &Delivery) -> Result<(), BusError> {
        Ok(())
    }
}

/// Which partitions this member holds, each with the generation at which it was assigned.
/// A fetched message is valid only while its partition is still held at that generation.
#[derive(Default)]
struct Assignment {
    held: Mutex<HashMap<i32, u64>>,
    /// Bumped on every assignment change (the poll thread filters its backlog then).
    changes: AtomicU64,
}

impl Assignment {
    fn lock(&self) -> MutexGuard<'_, HashMap<i32, u64>> {
        // A poisoned lock means a panic elsewhere; the map itself is still consistent.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn generation(&self, partition: i32) -> Option<u64> {
        self.lock().get(&partition).copied()
    }
}

struct GroupContext {
    topic: String,
    assignment: Arc<Assignment>,
    /// Count of assignments received, so `subscribe` can wait for the first.
    assigned: watch::Sender<u64>,
}

impl ClientContext for GroupContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        forward_log(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::warn!(target: "librdkafka", topic = %self.topic, "{error}: {reason}");
    }
}

impl ConsumerContext for GroupContext {
    fn pre_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        match rebalance {
            Rebalance::Assign(tpl) => {
                let generation = self.assignment.changes.fetch_add(1, Ordering::SeqCst) + 1;
                let mut held = self.assignment.lock();
                for e in tpl.elements_for_topic(&self.topic) {
                    held.insert(e.partition(), generation);
                }
                tracing::debug!(topic = %self.topic, partitions = ?held.keys().collect::<Vec<_>>(), "assigned");
            }
            Rebalance::Revoke(tpl) => {
                self.assignment.changes.fetch_add(1, Ordering::SeqCst);
                let mut held = self.assignment.lock();
                for e in tpl.elements_for_topic(&self.topic) {
                    held.remove(&e.partition());
                }
                tracing::debug!(topic = %self.topic, "partitions revoked");
            }
            Rebalance::Error(e) => tracing::warn!(topic = %self.topic, "rebalance failed: {e}"),
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(_) = rebalance {
            self.assigned.send_modify(|n| *n += 1);
        }
    }
}

/// A fetched message with the generation of its partition's assignment at fetch time.
struct Fetched {
    generation: u64,
    delivery: Delivery,
}

/// The consumer thread: polls until the `KafkaConsumer` is dropped, then closes the
/// consumer (leaving the group) as the last owner of it.
fn poll_loop(consumer: Arc<BaseConsumer<GroupContext>>, tx: mpsc::Sender<Fetched>) {
    let assignment = consumer.context().assignment.clone();
    let mut backlog: VecDeque<Fetched> = VecDeque::new();
    let mut paused = false;
    let mut seen_changes = assignment.changes.load(Ordering::SeqCst);
    while !tx.is_closed() {
        let changes = assignment.changes.load(Ordering::SeqCst);
        if changes != seen_changes {
            seen_changes = changes;
            // Messages of partitions we no longer hold go to their new owner from the
            // committed offset; handing them out here would duplicate work.
            backlog.retain(|f| assignment.generation(f.delivery.partition) == Some(f.generation));
            // Whether librdkafka keeps a pause across a rebalance is not something to rely on:
            // start over unpaused (the check below pauses again if still needed).
            if paused {
                set_paused(&consumer, false);
                paused = false;
            }
        }
        while let Some(f) = backlog.pop_front() {
            match tx.try_send(f) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(f)) => {
                    backlog.push_front(f);
                    break;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => return,
            }
        }
        if !paused && backlog.len() >= BACKLOG_PAUSE {
            set_paused(&consumer, true);
            paused = true;
        } else if paused && backlog.is_empty() {
            set_paused(&consumer, false);
            paused = false;
        }
        // Poll even while paused: that is what serves rebalances and commit callbacks.
        // With a backlog waiting on `recv`, poll briefly so handing off stays prompt.
        let wait = if backlog.is_empty() { Duration::from_millis(100) } else { Duration::from_millis(5) };
        match consumer.poll(wait) {
            None => {}
            Some(Ok(m)) => {
                let partition = m.partition();
                match assignment.generation(partition) {
                    Some(generation) => backlog.push_back(Fetched {
                        generation,
                        delivery: Delivery {
                            topic: m.topic().to_string(),
                            partition,
                            offset: m.offset(),
                            key: m.key().map(<[u8]>::to_vec).unwrap_or_default(),
                            payload: m.payload().map(<[u8]>::to_vec).unwrap_or_default(),
                        },
                    }),
                    None => tracing::debug!(partition, "dropped a message of an unassigned partition"),
                }
            }
            // Consumer errors are mostly transient (broker connection lost, topic not yet
            // known); librdkafka keeps retrying, so log and go on.
            Some(Err(e)) => tracing::warn!(target: "librdkafka", "consumer: {e}"),
        }
    }
    // Dropping the last Arc closes the consumer: revoke, LeaveGroup, so the group hands
    // our partitions to the remaining members at once instead of after a session timeout.
    drop(consumer);
}

/// One commit for the member's commit thread, and where its answer goes.
struct CommitRequest {
    offsets: TopicPartitionList,
    answer: oneshot::Sender<Result<(), BusError>>,
}

/// The member's commit thread: synchronous commits, one at a time in the order asked, so
/// a partition's committed offset only moves forward. A commit whose caller stopped
/// waiting is skipped (a later one covers it). Ends when the consumer is dropped; a commit
/// stuck on a broker outage keeps only this thread, never an async executor's.
fn commit_loop(consumer: Weak<BaseConsumer<GroupContext>>, requests: std::sync::mpsc::Receiver<CommitRequest>) {
    while let Ok(CommitRequest { offsets, answer }) = requests.recv() {
        if answer.is_closed() {
            continue;
        }
        let result = match consumer.upgrade() {
            // If the poll thread has ended meanwhile, this is the last owner and the close
            // (LeaveGroup) happens here, on this thread.
            Some(consumer) => consumer.commit(&offsets, CommitMode::Sync).map_err(|e| backend("commit", e)),
            None => Err(BusError::Closed),
        };
        let _ = answer.send(result);
    }
}

fn set_paused(consumer: &BaseConsumer<GroupContext>, pause: bool) {
    let result = consumer.assignment().and_then(|tpl| if pause { consumer.pause(&tpl) } else { consumer.resume(&tpl) });
    if let Err(e) = result {
        tracing::warn!("could not {} fetching: {e}", if pause { "pause" } else { "resume" });
    }
}

struct KafkaConsumer {
    rx: mpsc::Receiver<Fetched>,
    assignment: Arc<Assignment>,
    /// To the commit thread, which holds the consumer weakly: the poll thread is the owner,
    /// so the blocking close never runs on an async executor thread.
    commits: std::sync::mpsc::Sender<CommitRequest>,
    /// Highest offset this member committed per partition during its current hold of the
    /// partition (assignment generation), so a late commit of an older delivery does not
    /// move the group's offset backwards.
    committed: HashMap<i32, (u64, i64)>,
}

#[async_trait]
impl Consumer for KafkaConsumer {
    async fn recv(&mut self) -> Result<Delivery, BusError> {
        loop {
            // Cancel-safe: a timed-out `recv` loses nothing.
            let fetched = self.rx.recv().await.ok_or(BusError::Closed)?;
            if self.assignment.generation(fetched.delivery.partition) == Some(fetched.generation) {
                return Ok(fetched.delivery);
            }
            // Its partition was revoked after the fetch; the new owner will read it.
        }
    }

    async fn commit(&mut self, delivery: &Delivery) -> Result<(), BusError> {
        let next = delivery.offset + 1;
        let generation = self.assignment.generation(delivery.partition);
        if let (Some(g), Some((cg, c))) = (generation, self.committed.get(&delivery.partition)) {
            if g == *cg && *c >= next {
                return Ok(());
            }
        }
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(&delivery.topic, delivery.partition, Offset::Offset(next))
            .map_err(|e| backend("commit", e))?;
        // Errors (e.g. the group is rebalancing) are returned, not retried: after a
        // rebalance the partition may belong to another member that is already further.
        let (answer, answered) = oneshot::channel();
        self.commits.send(CommitRequest { offsets: tpl, answer }).map_err(|_| BusError::Closed)?;
        match tokio::time::timeout(COMMIT_TIMEOUT, answered).await {
            Ok(Ok(result)) => result?,
            Ok(Err(_)) => return Err(BusError::Closed),
            Err(_) => {
                return Err(BusError::Backend(format!("commit: no answer from the broker within {COMMIT_TIMEOUT:?}")))
            }
        }
        if let Some(g) = generation {
            self.committed.insert(delivery.partition, (g, next));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls() {
        let s = Settings::parse(
            "kafka://a:9092,b:9093/?replication=3&session.timeout.ms=6000&consumer.fetch.wait.max.ms=50",
        )
        .expect("valid url");
        assert_eq!(s.bootstrap, "a:9092,b:9093");
        assert_eq!(s.replication, 3);
        assert_eq!(s.overrides.len(), 2);
        assert!(s.overrides.contains(&("session.timeout.ms".into(), "6000".into(), true, true)));
        assert!(s.overrides.contains(&("fetch.wait.max.ms".into(), "50".into(), false, true)));
        for bad in
            ["kafka://", "kafka://host", "kafka://h:x", "kafka://h:1?replication=0", "kafka://h:1?nope=1", "memory://"]
        {
            assert!(matches!(Settings::parse(bad), Err(BusError::BadUrl(..))), "{bad}");
        }
    }

    #[test]
    fn connect_does_not_need_a_broker() {
        let bus = KafkaBus::connect("kafka://127.0.0.1:1").expect("connect");
        assert_eq!(bus.backend(), "kafka");
        assert!(KafkaBus::connect("kafka://127.0.0.1:1?no.such.property=1").is_err());
    }
}
