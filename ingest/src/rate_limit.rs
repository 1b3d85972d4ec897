//! Token bucket per access key: `per_sec` sustained, `burst` at once. Over the limit the
//! caller gets 429 `rate_limit_exception` with `Retry-After` (whole seconds, at least 1).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

pub struct RateLimiter {
    per_sec: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    pub fn new(per_sec: f64, burst: u32) -> Self {
        RateLimiter { per_sec: per_sec.max(0.001), burst: f64::from(burst.max(1)), buckets: Mutex::new(HashMap::new()) }
    }

    /// `Ok(())` to proceed, `Err(retry_after_secs)` when over the limit.
    pub fn check(&self, key: &str) -> Result<(), u64> {
        self.check_at(key, Instant::now())
    }

    pub fn check_at(&self, key: &str, now: Instant) -> Result<(), u64> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        // A bucket idle long enough to be full again behaves like a missing one: drop
        // those now and then, so the map does not grow with every key or device ever seen.
        if buckets.len() >= 4096 && buckets.len().is_power_of_two() {
            let refill = std::time::Duration::from_secs_f64(self.burst / self.per_sec);
            buckets.retain(|_, (_, last)| now.saturating_duration_since(*last) < refill);
        }
        let (tokens, last) = buckets.entry(key.to_string()).or_insert((self.burst, now));
        let elapsed = now.saturating_duration_since(*last).as_secs_f64();
        *tokens = (*tokens + elapsed * self.per_sec).min(self.burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - *tokens) / self.per_sec;
            Err(wait.ceil().max(1.0) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn burst_then_refill() {
        let l = RateLimiter::new(2.0, 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(l.check_at("k", t0).is_ok());
        }
        assert_eq!(l.check_at("k", t0), Err(1));
        assert!(l.check_at("other", t0).is_ok(), "buckets are per key");
        assert!(l.check_at("k", t0 + Duration::from_millis(500)).is_ok(), "one token after 0.5 s at 2/s");
        assert!(l.check_at("k", t0 + Duration::from_millis(500)).is_err());
    }
}
