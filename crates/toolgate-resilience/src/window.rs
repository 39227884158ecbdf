//! A sliding window of counters made of time buckets, shared by the retry
//! budget and the breaker's failure-rate rule.
//!
//! Same shape as tower's `TpsBudget` slots and Hystrix/resilience4j's
//! time-based sliding window: `BUCKETS` buckets each covering `window /
//! BUCKETS`; a bucket is reused (zeroed) when its epoch comes round again. Memory
//! is constant whatever the request rate; the price is that the window slides
//! in steps of one bucket (3 s for a 30 s window), which no policy here needs
//! finer.
//!
//! This module must not read a clock (`now` is passed in) nor know what its
//! two counters mean.

use std::time::Duration;

use tokio::time::Instant;

const BUCKETS: usize = 10;

#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    epoch: u64,
    counts: [u64; 2],
}

/// Two counters (e.g. successes/failures) over a sliding time window.
#[derive(Debug, Clone)]
pub(crate) struct SlidingCounts {
    /// Set on first use: the constructors take no `now`.
    origin: Option<Instant>,
    width: Duration,
    buckets: [Bucket; BUCKETS],
}

impl SlidingCounts {
    pub(crate) fn new(window: Duration) -> Self {
        let buckets_u32 = u32::try_from(BUCKETS).unwrap_or(u32::MAX);
        // A zero window would divide by zero below; one nanosecond buckets
        // behave as "remember almost nothing", which is what zero asks for.
        let width = (window / buckets_u32).max(Duration::from_nanos(1));
        SlidingCounts {
            origin: None,
            width,
            buckets: [Bucket::default(); BUCKETS],
        }
    }

    fn epoch(&mut self, now: Instant) -> u64 {
        let origin = *self.origin.get_or_insert(now);
        let elapsed = now.saturating_duration_since(origin).as_nanos();
        u64::try_from(elapsed / self.width.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Add `n` to counter `which` (0 or 1) at `now`.
    pub(crate) fn add(&mut self, now: Instant, which: usize, n: u64) {
        let epoch = self.epoch(now);
        let bucket = &mut self.buckets[slot(epoch)];
        if bucket.epoch != epoch {
            *bucket = Bucket {
                epoch,
                counts: [0; 2],
            };
        }
        if let Some(c) = bucket.counts.get_mut(which) {
            *c = c.saturating_add(n);
        }
    }

    /// Both counters summed over the buckets still inside the window at `now`.
    pub(crate) fn totals(&mut self, now: Instant) -> [u64; 2] {
        let epoch = self.epoch(now);
        let oldest = epoch.saturating_sub(BUCKETS as u64 - 1);
        self.buckets
            .iter()
            .filter(|b| b.epoch >= oldest && b.epoch <= epoch)
            .fold([0u64; 2], |acc, b| {
                [
                    acc[0].saturating_add(b.counts[0]),
                    acc[1].saturating_add(b.counts[1]),
                ]
            })
    }

    /// Forget everything (e.g. when a breaker closes again).
    pub(crate) fn clear(&mut self) {
        self.buckets = [Bucket::default(); BUCKETS];
        self.origin = None;
    }
}

fn slot(epoch: u64) -> usize {
    // BUCKETS is tiny, so the remainder always fits usize.
    usize::try_from(epoch % BUCKETS as u64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn counts_expire_after_the_window() {
        let t0 = Instant::now();
        let mut w = SlidingCounts::new(Duration::from_secs(10));
        w.add(t0, 0, 3);
        w.add(t0 + Duration::from_secs(5), 1, 2);
        assert_eq!(w.totals(t0 + Duration::from_secs(9)), [3, 2]);
        assert_eq!(w.totals(t0 + Duration::from_secs(10)), [0, 2]);
        assert_eq!(w.totals(t0 + Duration::from_secs(15)), [0, 0]);
        // A long gap reuses buckets without resurrecting old counts.
        w.add(t0 + Duration::from_secs(100), 0, 1);
        assert_eq!(w.totals(t0 + Duration::from_secs(100)), [1, 0]);
    }

    #[tokio::test(start_paused = true)]
    async fn zero_window_does_not_panic() {
        let t0 = Instant::now();
        let mut w = SlidingCounts::new(Duration::ZERO);
        w.add(t0, 0, 1);
        assert_eq!(w.totals(t0 + Duration::from_millis(1)), [0, 0]);
    }
}
