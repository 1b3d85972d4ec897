//! The one conformance suite every [`Bus`] implementation runs (in the style of
//! quickwit-metastore's generic tests). Each check uses fresh topic and group names, so
//! the suite can run against a shared broker.

use crate::{Bus, Consumer, Delivery, StartFrom};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Generous: a Kafka group rebalance after a member leaves can take several seconds.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(45);

fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{prefix}-{nanos:x}-{}", N.fetch_add(1, Ordering::Relaxed))
}

async fn recv(c: &mut Box<dyn Consumer>) -> Delivery {
    match tokio::time::timeout(RECV_TIMEOUT, c.recv()).await {
        Ok(Ok(d)) => d,
        Ok(Err(e)) => panic!("recv failed: {e}"),
        Err(_) => panic!("no message within {RECV_TIMEOUT:?}"),
    }
}

async fn nothing_within(c: &mut Box<dyn Consumer>, wait: Duration) -> bool {
    tokio::time::timeout(wait, c.recv()).await.is_err()
}

/// Run every check against buses made by `make`.
pub async fn run_all<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn Bus>>,
{
    per_key_order_is_kept(make().await).await;
    committed_messages_are_not_redelivered(make().await).await;
    uncommitted_message_is_redelivered_and_applied_once(make().await).await;
    groups_read_independently(make().await).await;
    latest_group_skips_history(make().await).await;
    members_of_a_group_share_the_work(make().await).await;
    broadcast_readers_each_see_everything_new(make().await).await;
    lag_counts_what_the_group_has_not_committed(make().await).await;
}

/// A backend that reports lag (operators alert on it) reports the group's uncommitted
/// messages: all of them before the group commits anything, fewer after.
pub async fn lag_counts_what_the_group_has_not_committed(bus: Arc<dyn Bus>) {
    assert!(bus.check().await.is_ok(), "a reachable bus passes its check");
    let topic = unique("lag");
    let group = unique("lag-group");
    bus.ensure_topics(&[&topic], 1).await.expect("ensure_topics");
    for i in 0..3u8 {
        bus.publish(&topic, b"k", &[i]).await.expect("publish");
    }
    let mut c = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
    let first = recv(&mut c).await;
    let Some(before) = bus.lag(&topic, &group).await else { return };
    assert_eq!(before, 3, "nothing committed: every message is lag");
    c.commit(&first).await.expect("commit");
    // Kafka commits are visible to other clients once the coordinator has them.
    let deadline = std::time::Instant::now() + RECV_TIMEOUT;
    loop {
        let now = bus.lag(&topic, &group).await;
        if now == Some(2) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "lag after one commit: {now:?}, expected Some(2)");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

pub async fn broadcast_readers_each_see_everything_new(bus: Arc<dyn Bus>) {
    let topic = unique("broadcast");
    bus.ensure_topics(&[&topic], 3).await.expect("ensure_topics");
    bus.publish(&topic, b"k", b"before").await.expect("publish");
    let mut a = bus.subscribe_broadcast(&topic).await.expect("broadcast a");
    let mut b = bus.subscribe_broadcast(&topic).await.expect("broadcast b");
    let total = 24u32;
    for i in 0..total {
        bus.publish(&topic, format!("key-{i}").as_bytes(), &i.to_be_bytes()).await.expect("publish");
    }
    for reader in [&mut a, &mut b] {
        let mut seen = std::collections::BTreeSet::new();
        while seen.len() < total as usize {
            let d = tokio::time::timeout(RECV_TIMEOUT, reader.recv()).await.expect("in time").expect("recv");
            assert_ne!(d.payload, b"before", "a broadcast reader starts after what was there");
            reader.commit(&d).await.expect("commit is accepted");
            seen.insert(d.payload);
        }
        assert_eq!(seen.len(), total as usize, "every partition, every message, for each reader");
    }
}

pub async fn per_key_order_is_kept(bus: Arc<dyn Bus>) {
    let topic = unique("order");
    bus.ensure_topics(&[&topic], 3).await.expect("ensure_topics");
    for i in 0..30u32 {
        let key = format!("user-{}", i % 3);
        bus.publish(&topic, key.as_bytes(), format!("{key}:{i}").as_bytes()).await.expect("publish");
    }
    let mut c = bus.subscribe(&topic, &unique("g"), StartFrom::Earliest).await.expect("subscribe");
    let mut last: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut partition_of: HashMap<Vec<u8>, i32> = HashMap::new();
    for _ in 0..30 {
        let d = recv(&mut c).await;
        let text = String::from_utf8(d.payload.clone()).expect("utf8");
        let i: u32 = text.rsplit(':').next().and_then(|s| s.parse().ok()).expect("seq");
        if let Some(prev) = last.insert(d.key.clone(), i) {
            assert!(i > prev, "key {:?}: {i} after {prev}", d.key);
        }
        let p = *partition_of.entry(d.key.clone()).or_insert(d.partition);
        assert_eq!(p, d.partition, "one key, one partition");
        c.commit(&d).await.expect("commit");
    }
    assert_eq!(last.len(), 3);
}

pub async fn committed_messages_are_not_redelivered(bus: Arc<dyn Bus>) {
    let topic = unique("commit");
    let group = unique("g");
    bus.ensure_topics(&[&topic], 1).await.expect("ensure_topics");
    bus.publish(&topic, b"k", b"first").await.expect("publish");
    bus.publish(&topic, b"k", b"second").await.expect("publish");
    {
        let mut c = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
        let d = recv(&mut c).await;
        assert_eq!(d.payload, b"first");
        c.commit(&d).await.expect("commit");
    }
    let mut c = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
    assert_eq!(recv(&mut c).await.payload, b"second");
}

/// A consumer takes a job and dies before committing: the job comes back to the group,
/// and an idempotent handler (keyed by request id) applies its effect once.
pub async fn uncommitted_message_is_redelivered_and_applied_once(bus: Arc<dyn Bus>) {
    let topic = unique("redeliver");
    let group = unique("g");
    bus.ensure_topics(&[&topic], 1).await.expect("ensure_topics");
    bus.publish(&topic, b"k", b"request-1").await.expect("publish");
    let mut applied: HashSet<Vec<u8>> = HashSet::new();
    let mut effects = 0;
    {
        let mut dying = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
        let d = recv(&mut dying).await;
        if applied.insert(d.payload.clone()) {
            effects += 1;
        }
        // Dropped here: no commit.
    }
    let mut next = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
    let d = recv(&mut next).await;
    assert_eq!(d.payload, b"request-1", "the uncommitted job is redelivered");
    if applied.insert(d.payload.clone()) {
        effects += 1;
    }
    next.commit(&d).await.expect("commit");
    assert_eq!(effects, 1, "the effect happens once");
    assert!(nothing_within(&mut next, Duration::from_millis(500)).await, "nothing else arrives");
}

pub async fn groups_read_independently(bus: Arc<dyn Bus>) {
    let topic = unique("groups");
    bus.ensure_topics(&[&topic], 2).await.expect("ensure_topics");
    let mut a = bus.subscribe(&topic, &unique("a"), StartFrom::Earliest).await.expect("subscribe");
    let mut b = bus.subscribe(&topic, &unique("b"), StartFrom::Earliest).await.expect("subscribe");
    for i in 0..4u8 {
        bus.publish(&topic, &[i], &[i]).await.expect("publish");
    }
    for c in [&mut a, &mut b] {
        let mut got = Vec::new();
        for _ in 0..4 {
            let d = recv(c).await;
            got.push(d.payload[0]);
            c.commit(&d).await.expect("commit");
        }
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2, 3]);
    }
}

pub async fn latest_group_skips_history(bus: Arc<dyn Bus>) {
    let topic = unique("latest");
    bus.ensure_topics(&[&topic], 1).await.expect("ensure_topics");
    bus.publish(&topic, b"k", b"old").await.expect("publish");
    let mut c = bus.subscribe(&topic, &unique("g"), StartFrom::Latest).await.expect("subscribe");
    // Kafka assigns partitions asynchronously: publish until the new message arrives.
    let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
    loop {
        bus.publish(&topic, b"k", b"new").await.expect("publish");
        if let Ok(Ok(d)) = tokio::time::timeout(Duration::from_millis(500), c.recv()).await {
            assert_eq!(d.payload, b"new", "a Latest group never sees older messages");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no message within {RECV_TIMEOUT:?}");
    }
}

pub async fn members_of_a_group_share_the_work(bus: Arc<dyn Bus>) {
    let topic = unique("share");
    let group = unique("g");
    bus.ensure_topics(&[&topic], 4).await.expect("ensure_topics");
    let mut a = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
    let mut b = bus.subscribe(&topic, &group, StartFrom::Earliest).await.expect("subscribe");
    let total = 40u32;
    for i in 0..total {
        bus.publish(&topic, format!("key-{i}").as_bytes(), &i.to_be_bytes()).await.expect("publish");
    }
    let mut seen = HashSet::new();
    let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
    while seen.len() < total as usize {
        assert!(tokio::time::Instant::now() < deadline, "only {} of {total} delivered", seen.len());
        for c in [&mut a, &mut b] {
            if let Ok(Ok(d)) = tokio::time::timeout(Duration::from_millis(200), c.recv()).await {
                c.commit(&d).await.expect("commit");
                let i = u32::from_be_bytes(d.payload[..4].try_into().expect("4 bytes"));
                assert!(seen.insert(i), "message {i} delivered twice without a failure");
            }
        }
    }
}
