//! The in-process bus: per-partition logs in memory with consumer groups, committed
//! offsets and bounded capacity. It models Kafka's semantics closely enough that the same
//! conformance suite passes on both: a member that leaves without committing hands its
//! partitions (from the last committed offset) to the remaining members.

use crate::{partition_for, Bus, BusError, Consumer, Delivery, StartFrom};
use async_trait::async_trait;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

#[derive(Debug, Clone)]
pub struct Config {
    /// Partitions for topics created implicitly by publish/subscribe.
    pub default_partitions: u32,
    /// Uncommitted messages a partition holds before publish waits (backpressure).
    pub capacity_per_partition: usize,
    /// Uncommitted bytes (keys + payloads) a partition holds before publish waits: bounds
    /// memory when messages are large (behavioral batches go up to 2 MiB). A message
    /// larger than this still goes into an empty partition, alone.
    pub capacity_bytes_per_partition: usize,
}

impl Default for Config {
    fn default() -> Self {
        // 8 partitions × 32 MiB: at most 256 MiB of backlog per topic.
        Config { default_partitions: 8, capacity_per_partition: 4096, capacity_bytes_per_partition: 32 * 1024 * 1024 }
    }
}

#[derive(Default)]
struct PartitionLog {
    /// Offset of `messages[0]`.
    base: i64,
    messages: VecDeque<(Vec<u8>, Vec<u8>)>,
    /// Sum of key and payload lengths of `messages`.
    bytes: usize,
}

impl PartitionLog {
    fn end(&self) -> i64 {
        self.base + self.messages.len() as i64
    }
}

struct GroupState {
    committed: Vec<i64>,
    members: BTreeSet<u64>,
    generation: u64,
}

struct TopicState {
    partitions: Vec<PartitionLog>,
    groups: HashMap<String, GroupState>,
}

impl TopicState {
    /// Drop messages every live group has committed; with no live group, keep everything.
    /// A group whose members are all gone does not pin memory: in one process nobody can
    /// come back for its backlog after the process ends anyway (a member that rejoins
    /// resumes at the oldest retained message).
    fn trim(&mut self) {
        let live: Vec<&GroupState> = self.groups.values().filter(|g| !g.members.is_empty()).collect();
        if live.is_empty() {
            return;
        }
        for (p, log) in self.partitions.iter_mut().enumerate() {
            let min = live.iter().map(|g| g.committed[p]).min().unwrap_or(log.base);
            while log.base < min {
                let Some((k, v)) = log.messages.pop_front() else { break };
                log.bytes -= k.len() + v.len();
                log.base += 1;
            }
        }
    }
}

struct Inner {
    config: Config,
    topics: Mutex<HashMap<String, TopicState>>,
    /// Woken on publish and on membership changes.
    data: Notify,
    /// Woken when space frees up.
    space: Notify,
    next_member: std::sync::atomic::AtomicU64,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, TopicState>> {
        // A poisoned lock means a panic elsewhere; the logs themselves are still valid.
        self.topics.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn topic_entry<'a>(map: &'a mut HashMap<String, TopicState>, topic: &str, partitions: u32) -> &'a mut TopicState {
    map.entry(topic.to_string()).or_insert_with(|| TopicState {
        partitions: (0..partitions.max(1)).map(|_| PartitionLog::default()).collect(),
        groups: HashMap::new(),
    })
}

#[derive(Clone)]
pub struct InProcessBus {
    inner: Arc<Inner>,
}

impl InProcessBus {
    pub fn new(config: Config) -> Self {
        InProcessBus {
            inner: Arc::new(Inner {
                config,
                topics: Mutex::new(HashMap::new()),
                data: Notify::new(),
                space: Notify::new(),
                next_member: std::sync::atomic::AtomicU64::new(1),
            }),
        }
    }
}

#[async_trait]
impl Bus for InProcessBus {
    async fn ensure_topics(&self, topics: &[&str], partitions: u32) -> Result<(), BusError> {
        let mut map = self.inner.lock();
        for t in topics {
            topic_entry(&mut map, t, partitions);
        }
        Ok(())
    }

    async fn publish(&self, topic: &str, key: &[u8], payload: &[u8]) -> Result<(), BusError> {
        loop {
            let space = self.inner.space.notified();
            tokio::pin!(space);
            space.as_mut().enable();
            {
                let mut map = self.inner.lock();
                let t = topic_entry(&mut map, topic, self.inner.config.default_partitions);
                let p = partition_for(key, t.partitions.len() as u32) as usize;
                let log = &mut t.partitions[p];
                let size = key.len() + payload.len();
                let fits = log.messages.is_empty()
                    || (log.messages.len() < self.inner.config.capacity_per_partition
                        && log.bytes + size <= self.inner.config.capacity_bytes_per_partition);
                if fits {
                    log.bytes += size;
                    log.messages.push_back((key.to_vec(), payload.to_vec()));
                    drop(map);
                    self.inner.data.notify_waiters();
                    return Ok(());
                }
            }
            space.await;
        }
    }

    async fn subscribe(&self, topic: &str, group: &str, start: StartFrom) -> Result<Box<dyn Consumer>, BusError> {
        let member = self.inner.next_member.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        {
            let mut map = self.inner.lock();
            let t = topic_entry(&mut map, topic, self.inner.config.default_partitions);
            let starts: Vec<i64> = t
                .partitions
                .iter()
                .map(|l| if start == StartFrom::Latest { l.end() } else { l.base })
                .collect();
            let g = t.groups.entry(group.to_string()).or_insert_with(|| GroupState {
                committed: starts,
                members: BTreeSet::new(),
                generation: 0,
            });
            g.members.insert(member);
            g.generation += 1;
        }
        self.inner.data.notify_waiters();
        Ok(Box::new(InProcessConsumer {
            inner: self.inner.clone(),
            topic: topic.to_string(),
            group: group.to_string(),
            member,
            generation: 0,
            positions: HashMap::new(),
            next_rr: 0,
        }))
    }

    async fn lag(&self, topic: &str, group: &str) -> Option<u64> {
        let map = self.inner.lock();
        let t = map.get(topic)?;
        let g = t.groups.get(group)?;
        Some(t.partitions.iter().zip(&g.committed).map(|(l, c)| (l.end() - c).max(0) as u64).sum())
    }

    fn backend(&self) -> &'static str {
        "memory"
    }
}

struct InProcessConsumer {
    inner: Arc<Inner>,
    topic: String,
    group: String,
    member: u64,
    generation: u64,
    /// Next offset to hand out, per assigned partition.
    positions: HashMap<i32, i64>,
    next_rr: usize,
}

impl InProcessConsumer {
    /// Take the next message if one is ready, refreshing the assignment first.
    fn poll(&mut self) -> Result<Option<Delivery>, BusError> {
        let inner = self.inner.clone();
        let map = inner.lock();
        let t = map.get(&self.topic).ok_or_else(|| BusError::UnknownTopic(self.topic.clone()))?;
        let g = t.groups.get(&self.group).ok_or(BusError::Closed)?;
        if g.generation != self.generation {
            // Partitions are dealt round-robin over members in id order.
            let rank = g.members.iter().position(|m| *m == self.member).ok_or(BusError::Closed)?;
            let n = g.members.len();
            let assigned: Vec<i32> = (0..t.partitions.len() as i32).filter(|p| *p as usize % n == rank).collect();
            let mut positions = HashMap::new();
            for p in assigned {
                // Keep our position on partitions we still own; start new ones at the
                // group's committed offset (so uncommitted work is redelivered).
                let pos = self.positions.get(&p).copied().unwrap_or(g.committed[p as usize]);
                positions.insert(p, pos.max(g.committed[p as usize]));
            }
            self.positions = positions;
            self.generation = g.generation;
        }
        let mut parts: Vec<i32> = self.positions.keys().copied().collect();
        parts.sort_unstable();
        if parts.is_empty() {
            return Ok(None);
        }
        for i in 0..parts.len() {
            let p = parts[(self.next_rr + i) % parts.len()];
            let log = &t.partitions[p as usize];
            let pos = self.positions[&p].max(log.base);
            if pos < log.end() {
                let (key, payload) = &log.messages[(pos - log.base) as usize];
                let d = Delivery {
                    topic: self.topic.clone(),
                    partition: p,
                    offset: pos,
                    key: key.clone(),
                    payload: payload.clone(),
                };
                self.positions.insert(p, pos + 1);
                self.next_rr = (self.next_rr + i + 1) % parts.len();
                return Ok(Some(d));
            }
        }
        Ok(None)
    }
}

#[async_trait]
impl Consumer for InProcessConsumer {
    async fn recv(&mut self) -> Result<Delivery, BusError> {
        let inner = self.inner.clone();
        loop {
            let data = inner.data.notified();
            tokio::pin!(data);
            data.as_mut().enable();
            if let Some(d) = self.poll()? {
                return Ok(d);
            }
            data.await;
        }
    }

    async fn commit(&mut self, delivery: &Delivery) -> Result<(), BusError> {
        {
            let mut map = self.inner.lock();
            let t = map.get_mut(&self.topic).ok_or_else(|| BusError::UnknownTopic(self.topic.clone()))?;
            let g = t.groups.get_mut(&self.group).ok_or(BusError::Closed)?;
            let c = &mut g.committed[delivery.partition as usize];
            *c = (*c).max(delivery.offset + 1);
            t.trim();
        }
        self.inner.space.notify_waiters();
        Ok(())
    }
}

impl Drop for InProcessConsumer {
    fn drop(&mut self) {
        let mut map = self.inner.lock();
        if let Some(g) = map.get_mut(&self.topic).and_then(|t| t.groups.get_mut(&self.group)) {
            g.members.remove(&self.member);
            g.generation += 1;
        }
        drop(map);
        self.inner.data.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn conformance() {
        crate::conformance::run_all(|| async { Arc::new(InProcessBus::new(Config::default())) as Arc<dyn Bus> }).await;
    }

    #[tokio::test]
    async fn publish_waits_when_full_and_resumes_after_commit() {
        let bus = InProcessBus::new(Config { default_partitions: 1, capacity_per_partition: 2, ..Config::default() });
        let mut c = bus.subscribe("t", "g", StartFrom::Earliest).await.unwrap();
        bus.publish("t", b"k", b"1").await.unwrap();
        bus.publish("t", b"k", b"2").await.unwrap();
        let third = tokio::time::timeout(Duration::from_millis(100), bus.publish("t", b"k", b"3")).await;
        assert!(third.is_err(), "publish must wait while the partition is full");
        let d = c.recv().await.unwrap();
        c.commit(&d).await.unwrap();
        tokio::time::timeout(Duration::from_secs(1), bus.publish("t", b"k", b"3")).await.unwrap().unwrap();
        assert_eq!(bus.lag("t", "g").await, Some(2));
    }

    #[tokio::test]
    async fn publish_waits_when_the_byte_budget_is_spent() {
        let bus = InProcessBus::new(Config { default_partitions: 1, capacity_per_partition: 1000, capacity_bytes_per_partition: 2500 });
        let mut c = bus.subscribe("t", "g", StartFrom::Earliest).await.unwrap();
        let kb = vec![7u8; 1000];
        bus.publish("t", b"k", &kb).await.unwrap();
        bus.publish("t", b"k", &kb).await.unwrap();
        let third = tokio::time::timeout(Duration::from_millis(100), bus.publish("t", b"k", &kb)).await;
        assert!(third.is_err(), "2 × 1,001 bytes held: a third would exceed 2,500");
        let d = c.recv().await.unwrap();
        c.commit(&d).await.unwrap();
        tokio::time::timeout(Duration::from_secs(1), bus.publish("t", b"k", &kb)).await.unwrap().unwrap();
        // Drain; then a message bigger than the whole budget still passes, alone.
        for _ in 0..2 {
            let d = c.recv().await.unwrap();
            c.commit(&d).await.unwrap();
        }
        tokio::time::timeout(Duration::from_secs(1), bus.publish("t", b"k", &vec![0u8; 10_000])).await.unwrap().unwrap();
        let blocked = tokio::time::timeout(Duration::from_millis(100), bus.publish("t", b"k", b"small")).await;
        assert!(blocked.is_err(), "the oversize message fills the partition until committed");
    }
}
