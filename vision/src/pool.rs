//! The vision worker pool: dedicated OS threads for CPU-bound work (decoding,
//! inference), so none of it runs on an async executor thread.
//!
//! Size it like the session pools: `threads` = cores (default), so each pool thread can
//! always find a free session of any one model and nothing waits inside ONNX Runtime.
//! Async callers `await` one of `threads` slots (a slot is held from the moment a job is
//! handed to a thread until it ends), so a burst of requests turns into latency
//! (backpressure), not unbounded memory, and no job sits in a thread's queue where its
//! turn could no longer change.
//!
//! Slots are granted fairly between clients: waiters queue per client (the client is
//! the task-local [`CLIENT`], set by the worker runtime around each job) and a freed slot
//! goes to the next client in turn, so one client's burst of heavy jobs delays another
//! client's job by at most one job per waiting client, not by the whole burst. (The slots
//! once counted queued jobs too, 64 of them: every job of a burst then had a slot at once
//! and ran in arrival order, so the turns never applied — issue 10's fairness run.)

use std::collections::{BTreeMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use tokio::sync::oneshot;

tokio::task_local! {
    /// Whose job the current task runs (the worker runtime scopes each job with its
    /// client id); jobs outside any scope share one anonymous turn.
    pub static CLIENT: String;
}

/// Free slots and the clients waiting for one, served in turn.
#[derive(Default)]
struct Admission {
    free: usize,
    waiting: BTreeMap<String, VecDeque<oneshot::Sender<()>>>,
    /// Clients with waiters, in the order they get the next slots.
    turn: VecDeque<String>,
}

/// Fair slots: see the module doc.
struct FairSlots {
    state: Mutex<Admission>,
}

/// A held slot; dropping it hands the slot to the next waiting client in turn.
struct Slot(Arc<FairSlots>);

impl FairSlots {
    fn new(n: usize) -> Arc<Self> {
        Arc::new(FairSlots { state: Mutex::new(Admission { free: n, ..Admission::default() }) })
    }

    async fn acquire(self: &Arc<Self>, client: &str) -> Result<Slot, PoolError> {
        let rx = {
            let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if st.free > 0 && st.turn.is_empty() {
                st.free -= 1;
                return Ok(Slot(self.clone()));
            }
            let (tx, rx) = oneshot::channel();
            let queue = st.waiting.entry(client.to_string()).or_default();
            queue.push_back(tx);
            if queue.len() == 1 {
                st.turn.push_back(client.to_string());
            }
            rx
        };
        rx.await.map(|()| Slot(self.clone())).map_err(|_| PoolError::Closed)
    }

    fn release(&self) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(client) = st.turn.pop_front() {
            let Some(queue) = st.waiting.get_mut(&client) else { continue };
            while let Some(tx) = queue.pop_front() {
                // A waiter whose request went away has dropped its receiver: skip it.
                if tx.send(()).is_ok() {
                    if queue.is_empty() {
                        st.waiting.remove(&client);
                    } else {
                        // Back of the line: the other waiting clients go first.
                        st.turn.push_back(client);
                    }
                    return;
                }
            }
            st.waiting.remove(&client);
        }
        st.free += 1;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.release();
    }
}

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("vision pool is shut down")]
    Closed,
    #[error("vision job panicked: {0}")]
    Panicked(String),
}

pub struct VisionPool {
    tx: Option<mpsc::Sender<Job>>,
    /// One per thread, granted fairly between clients.
    slots: Arc<FairSlots>,
    threads: Vec<JoinHandle<()>>,
}

impl VisionPool {
    /// `threads` workers (0: one per core).
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let threads = if threads == 0 { std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) } else { threads };
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let rx = rx.clone();
            handles.push(std::thread::Builder::new().name(format!("idv-vision-{i}")).spawn(move || loop {
                // The lock is held only to take the next job, not while running it.
                let job = match rx.lock().unwrap_or_else(|p| p.into_inner()).recv() {
                    Ok(job) => job,
                    Err(_) => return, // pool dropped
                };
                job();
            })?);
        }
        Ok(VisionPool { tx: Some(tx), slots: FairSlots::new(threads), threads: handles })
    }

    /// Runs `f` on a pool thread; waits (asynchronously) for a slot first. A panic
    /// in `f` is caught and returned, and the thread lives on.
    pub async fn run<T, F>(&self, f: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let client = CLIENT.try_with(String::clone).unwrap_or_default();
        let permit = self.slots.acquire(&client).await?;
        let (done_tx, done_rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let result = std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic".into());
                PoolError::Panicked(msg)
            });
            drop(permit);
            // The caller may have gone away (request cancelled): nothing to do then.
            let _ = done_tx.send(result);
        });
        self.tx.as_ref().ok_or(PoolError::Closed)?.send(job).map_err(|_| PoolError::Closed)?;
        done_rx.await.map_err(|_| PoolError::Closed)?
    }

    pub fn threads(&self) -> usize {
        self.threads.len()
    }
}

impl Drop for VisionPool {
    fn drop(&mut self) {
        // Closing the channel ends each thread after its current job.
        self.tx.take();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn runs_off_the_executor_and_survives_panics() {
        let pool = VisionPool::new(2).expect("pool");
        let caller = std::thread::current().id();
        let ran_on = pool.run(|| std::thread::current().id()).await.expect("run");
        assert_ne!(ran_on, caller, "job ran on the executor thread");
        let name = pool.run(|| std::thread::current().name().map(str::to_string)).await.expect("run");
        assert!(name.is_some_and(|n| n.starts_with("idv-vision-")));
        let err = pool.run(|| -> u32 { panic!("boom") }).await;
        assert_eq!(err, Err(PoolError::Panicked("boom".into())));
        assert_eq!(pool.run(|| 41 + 1).await, Ok(42));
    }

    /// One slot; client A queues five jobs, then client B one: B's runs second (right
    /// after the job that held the slot), not sixth.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_burst_from_one_client_does_not_starve_another() {
        let pool = Arc::new(VisionPool::new(1).expect("pool"));
        let order = Arc::new(Mutex::new(Vec::new()));
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        // The first A job holds the only slot until released.
        let first = {
            let (pool, order) = (pool.clone(), order.clone());
            tokio::spawn(CLIENT.scope("A".into(), async move {
                pool.run(move || {
                    let _ = hold_rx.recv();
                    order.lock().unwrap_or_else(|p| p.into_inner()).push("A0".to_string());
                })
                .await
            }))
        };
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let mut jobs = Vec::new();
        for i in 1..5 {
            let (pool, order) = (pool.clone(), order.clone());
            jobs.push(tokio::spawn(CLIENT.scope("A".into(), async move {
                pool.run(move || order.lock().unwrap_or_else(|p| p.into_inner()).push(format!("A{i}"))).await
            })));
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let (pool_b, order_b) = (pool.clone(), order.clone());
        jobs.push(tokio::spawn(CLIENT.scope("B".into(), async move {
            pool_b.run(move || order_b.lock().unwrap_or_else(|p| p.into_inner()).push("B0".to_string())).await
        })));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        hold_tx.send(()).expect("release");
        first.await.expect("join").expect("run");
        for j in jobs {
            j.await.expect("join").expect("run");
        }
        let order = order.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert_eq!(order, ["A0", "A1", "B0", "A2", "A3", "A4"], "B waited for one A job, not four");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn many_jobs_through_a_small_queue() {
        let pool = Arc::new(VisionPool::new(2).expect("pool"));
        let mut handles = Vec::new();
        for i in 0..50u64 {
            let pool = pool.clone();
            handles.push(tokio::spawn(async move { pool.run(move || i * 2).await }));
        }
        let mut sum = 0;
        for h in handles {
            sum += h.await.expect("join").expect("run");
        }
        assert_eq!(sum, (0..50u64).map(|i| i * 2).sum::<u64>());
    }
}
