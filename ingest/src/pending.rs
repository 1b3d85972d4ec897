//! The wait-by-request-id table. A waiter is registered *before* its job is published
//! (so a fast result cannot arrive first and be lost), removed when it is dropped
//! (timeout or client gone), and every waiter is failed on shutdown.

use idv_schemas::Envelope;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

#[derive(Default)]
pub struct PendingTable {
    waiters: Mutex<HashMap<String, oneshot::Sender<Option<Envelope>>>>,
    closed: std::sync::atomic::AtomicBool,
}

/// Receives the result of one request; unregisters itself when dropped.
pub struct Waiter {
    table: Arc<PendingTable>,
    request_id: String,
    pub rx: oneshot::Receiver<Option<Envelope>>,
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.table.lock().remove(&self.request_id);
    }
}

impl PendingTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Option<Envelope>>>> {
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `None` once shut down: new requests are refused while draining.
    pub fn register(self: &Arc<Self>, request_id: &str) -> Option<Waiter> {
        if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        self.lock().insert(request_id.to_string(), tx);
        Some(Waiter { table: self.clone(), request_id: request_id.to_string(), rx })
    }

    /// Hand a result to its waiter; `false` if nobody waits here (another instance's,
    /// or a waiter that already timed out: the result is in the store for polling).
    pub fn deliver(&self, request_id: &str, envelope: Envelope) -> bool {
        match self.lock().remove(request_id) {
            Some(tx) => tx.send(Some(envelope)).is_ok(),
            None => false,
        }
    }

    /// Fail every waiter (shutdown): they answer with an error instead of hanging.
    pub fn fail_all(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        for (_, tx) in self.lock().drain() {
            let _ = tx.send(None);
        }
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idv_schemas::{ErrorKind, Group};

    #[tokio::test]
    async fn deliver_wakes_the_waiter_and_drop_unregisters() -> Result<(), Box<dyn std::error::Error>> {
        let t = Arc::new(PendingTable::default());
        let w = t.register("r1").ok_or("open")?;
        assert_eq!(t.len(), 1);
        assert!(t.deliver("r1", Envelope::ok(Group::Face, serde_json::json!({}))));
        let mut w = w;
        assert!((&mut w.rx).await?.is_some());
        let w2 = t.register("r2").ok_or("open")?;
        drop(w2);
        assert!(t.is_empty(), "a dropped waiter (timeout) is removed");
        assert!(!t.deliver("r2", Envelope::error(Group::Face, &ErrorKind::Timeout { request_id: None })));
        Ok(())
    }

    #[tokio::test]
    async fn shutdown_fails_waiters_and_refuses_new_ones() -> Result<(), Box<dyn std::error::Error>> {
        let t = Arc::new(PendingTable::default());
        let w = t.register("r1").ok_or("open")?;
        t.fail_all();
        let mut w = w;
        assert_eq!((&mut w.rx).await?, None);
        assert!(t.register("r2").is_none());
        Ok(())
    }
}
