//! One budget for the request bodies this instance holds in memory at once. Each body is
//! read whole (under its operation's cap) before it is parsed; without a global bound,
//! many concurrent large bodies add up (sixteen 60 MiB uploads took RSS from 320 MB to
//! 1.3 GB). A request reserves its declared `Content-Length` (its operation's cap when it
//! declares none) before its body is read, and gives it back when it is answered; when
//! the budget is spent it is answered 503 `service_unavailable` with `Retry-After`
//! instead of being read (docs/ARCHITECTURE.md "Limits").

use tokio::sync::{Semaphore, SemaphorePermit};

/// Reservations are counted in KiB (a semaphore's permits are `u32`-sized per call).
const UNIT: usize = 1024;

pub struct BodyBudget {
    permits: Semaphore,
    total_units: usize,
}

impl BodyBudget {
    pub fn new(bytes: usize) -> Self {
        let total_units = bytes.div_ceil(UNIT).max(1);
        BodyBudget { permits: Semaphore::new(total_units), total_units }
    }

    /// Room for a body of at most `len` bytes, held until the guard is dropped; `None`
    /// when that much is not free now. A body larger than the whole budget never fits.
    pub fn try_reserve(&self, len: usize) -> Option<SemaphorePermit<'_>> {
        let units = len.div_ceil(UNIT).max(1);
        if units > self.total_units {
            return None;
        }
        self.permits.try_acquire_many(u32::try_from(units).ok()?).ok()
    }

    /// Bytes free now (metrics, tests).
    pub fn available_bytes(&self) -> usize {
        self.permits.available_permits() * UNIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_add_up_and_come_back() {
        let b = BodyBudget::new(100 * UNIT);
        let first = b.try_reserve(60 * UNIT);
        assert!(first.is_some());
        assert!(b.try_reserve(60 * UNIT).is_none(), "60 + 60 KiB exceed 100 KiB");
        assert!(b.try_reserve(40 * UNIT).is_some(), "what is left still fits (and is returned at once)");
        drop(first);
        assert_eq!(b.available_bytes(), 100 * UNIT);
        assert!(b.try_reserve(101 * UNIT).is_none(), "larger than the whole budget");
        assert!(b.try_reserve(0).is_some(), "an empty body takes one unit");
    }
}
