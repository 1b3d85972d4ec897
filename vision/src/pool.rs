//! The vision worker pool: dedicated OS threads for CPU-bound work (decoding,
//! inference), so none of it runs on an async executor thread.
//!
//! Size it like the session pools: `threads` = cores (default), so each pool thread can
//! always find a free session of any one model and nothing waits inside ONNX Runtime.
//! Async callers `await` a slot in a bounded queue (`queue` jobs), so a burst of
//! requests turns into latency (backpressure), not unbounded memory.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use tokio::sync::{oneshot, Semaphore};

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
    /// Jobs queued or running; bounds the queue.
    slots: Arc<Semaphore>,
    threads: Vec<JoinHandle<()>>,
}

impl VisionPool {
    /// `threads` workers (0: one per core), at most `queue` jobs queued or running.
    pub fn new(threads: usize, queue: usize) -> std::io::Result<Self> {
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
        Ok(VisionPool { tx: Some(tx), slots: Arc::new(Semaphore::new(queue.max(threads))), threads: handles })
    }

    /// Runs `f` on a pool thread; waits (asynchronously) for a queue slot first. A panic
    /// in `f` is caught and returned, and the thread lives on.
    pub async fn run<T, F>(&self, f: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = self.slots.clone().acquire_owned().await.map_err(|_| PoolError::Closed)?;
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
        let pool = VisionPool::new(2, 4).expect("pool");
        let caller = std::thread::current().id();
        let ran_on = pool.run(|| std::thread::current().id()).await.expect("run");
        assert_ne!(ran_on, caller, "job ran on the executor thread");
        let name = pool.run(|| std::thread::current().name().map(str::to_string)).await.expect("run");
        assert!(name.is_some_and(|n| n.starts_with("idv-vision-")));
        let err = pool.run(|| -> u32 { panic!("boom") }).await;
        assert_eq!(err, Err(PoolError::Panicked("boom".into())));
        assert_eq!(pool.run(|| 41 + 1).await, Ok(42));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn many_jobs_through_a_small_queue() {
        let pool = Arc::new(VisionPool::new(2, 2).expect("pool"));
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
