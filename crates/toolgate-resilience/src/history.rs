//! The last hour of one dependency's latency, a minute at a time, for the console's
//! chart of latency against its baseline.
//!
//! The window in `latency.rs` forgets after 30 s; the person on call asks "since when
//! is it slow?". This ring keeps [`MINUTES`] one-minute buckets: calls, failures, the
//! mean and the slowest successful latency, and the baseline as it stood at the end of
//! the minute. It is a fixed array written in place — recording a sample allocates
//! nothing and costs a few additions under the dependency's lock — and a bucket from
//! more than an hour ago is simply overwritten by the minute that reuses its slot.
//!
//! Minutes count from the ring's creation (`origin`), not from the wall clock: like
//! everything in this crate it takes `now` and never reads a clock, so paused time
//! drives it in tests. A minute with no reply is a gap, not a zero.

use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

/// Minutes kept: one hour.
pub const MINUTES: usize = 60;

/// One slot of the ring.
#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    /// Which minute (since `origin`) this slot holds, plus one; 0 = never written.
    minute: u64,
    calls: u32,
    failed: u32,
    /// Successful replies (the latency statistics are of these only).
    ok: u32,
    sum_us: u64,
    max_us: u64,
    /// The baseline after the minute's last reply, in µs; 0 = none yet.
    baseline_us: u64,
}

/// One minute as read back.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Minute {
    /// How many whole minutes ago it began (0: the current minute).
    pub ago_min: u32,
    /// Replies seen (successful or not).
    pub calls: u32,
    /// Failed replies.
    pub failed: u32,
    /// Mean latency of the successful replies, in ms (`None`: none succeeded).
    pub mean_ms: Option<f64>,
    /// The slowest successful reply, in ms.
    pub max_ms: Option<f64>,
    /// The baseline at the end of the minute, in ms, once there was one.
    pub baseline_ms: Option<f64>,
}

/// A ring of [`MINUTES`] one-minute buckets.
#[derive(Debug, Clone)]
pub struct LatencyHistory {
    origin: Instant,
    buckets: [Bucket; MINUTES],
}

impl LatencyHistory {
    /// An empty ring whose minutes count from `origin`.
    pub fn new(origin: Instant) -> LatencyHistory {
        LatencyHistory {
            origin,
            buckets: [Bucket::default(); MINUTES],
        }
    }

    fn minute(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.origin).as_secs() / 60
    }

    /// Records one reply: its latency, whether it succeeded, and the baseline after it.
    pub fn record(
        &mut self,
        now: Instant,
        latency: Duration,
        success: bool,
        baseline: Option<Duration>,
    ) {
        let minute = self.minute(now);
        let slot = &mut self.buckets[(minute % MINUTES as u64) as usize];
        if slot.minute != minute + 1 {
            *slot = Bucket {
                minute: minute + 1,
                ..Bucket::default()
            };
        }
        slot.calls = slot.calls.saturating_add(1);
        if success {
            let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
            slot.ok = slot.ok.saturating_add(1);
            slot.sum_us = slot.sum_us.saturating_add(us);
            slot.max_us = slot.max_us.max(us);
        } else {
            slot.failed = slot.failed.saturating_add(1);
        }
        if let Some(b) = baseline {
            slot.baseline_us = u64::try_from(b.as_micros()).unwrap_or(u64::MAX).max(1);
        }
    }

    /// The last hour as of `now`, oldest minute first: [`MINUTES`] entries, `None` for a
    /// minute without replies.
    pub fn minutes(&self, now: Instant) -> Vec<Option<Minute>> {
        let current = self.minute(now);
        (0..MINUTES as u64)
            .rev()
            .map(|ago| {
                let minute = current.checked_sub(ago)?;
                let b = &self.buckets[(minute % MINUTES as u64) as usize];
                if b.minute != minute + 1 {
                    return None;
                }
                let ms = |us: u64| us as f64 / 1000.0;
                Some(Minute {
                    ago_min: ago as u32,
                    calls: b.calls,
                    failed: b.failed,
                    mean_ms: (b.ok > 0).then(|| ms(b.sum_us) / f64::from(b.ok)),
                    max_ms: (b.ok > 0).then(|| ms(b.max_us)),
                    baseline_ms: (b.baseline_us > 0).then(|| ms(b.baseline_us)),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[tokio::test(start_paused = true)]
    async fn a_minute_holds_calls_failures_mean_max_and_the_last_baseline() {
        let start = Instant::now();
        let mut h = LatencyHistory::new(start);
        h.record(start, 10 * MS, true, None);
        h.record(
            start + Duration::from_secs(20),
            30 * MS,
            true,
            Some(12 * MS),
        );
        h.record(
            start + Duration::from_secs(40),
            500 * MS,
            false,
            Some(15 * MS),
        );
        let now = start + Duration::from_secs(59);
        let minutes = h.minutes(now);
        assert_eq!(minutes.len(), MINUTES);
        assert!(minutes[..59].iter().all(Option::is_none));
        assert_eq!(
            minutes[59],
            Some(Minute {
                ago_min: 0,
                calls: 3,
                failed: 1,
                mean_ms: Some(20.0),
                max_ms: Some(30.0),
                baseline_ms: Some(15.0),
            })
        );
    }

    #[tokio::test(start_paused = true)]
    async fn minutes_roll_over_leave_gaps_and_age_out_after_an_hour() {
        let start = Instant::now();
        let mut h = LatencyHistory::new(start);
        let at = |min: u64, s: u64| start + Duration::from_secs(min * 60 + s);
        h.record(at(0, 5), 10 * MS, true, Some(10 * MS));
        h.record(at(1, 0), 20 * MS, true, Some(11 * MS));
        // Minutes 2 and 3: nothing. Minute 4: one failure only.
        h.record(at(4, 59), 900 * MS, false, None);
        let minutes = h.minutes(at(4, 59));
        let seen: Vec<(u32, u32)> = minutes
            .iter()
            .flatten()
            .map(|m| (m.ago_min, m.calls))
            .collect();
        assert_eq!(seen, vec![(4, 1), (3, 1), (0, 1)]);
        let last = minutes[59].unwrap();
        assert_eq!(
            (last.mean_ms, last.failed),
            (None, 1),
            "no success: no mean"
        );
        assert!(
            minutes[57].is_none() && minutes[58].is_none(),
            "gaps stay gaps"
        );

        // 60 minutes after minute 0 its slot is reused: minute 0 is gone, minute 1 is
        // the oldest left, 59 minutes ago.
        h.record(at(60, 1), 40 * MS, true, Some(12 * MS));
        let minutes = h.minutes(at(60, 1));
        assert_eq!(
            minutes[59].unwrap().calls,
            1,
            "a fresh bucket, not added to minute 0's"
        );
        assert_eq!(minutes[59].unwrap().mean_ms, Some(40.0));
        assert_eq!(minutes[0].unwrap().ago_min, 59);
        assert_eq!(minutes[0].unwrap().mean_ms, Some(20.0));
        assert_eq!(minutes.iter().flatten().count(), 3);

        // Two hours of silence: nothing is left, although no slot was overwritten.
        assert!(h.minutes(at(180, 0)).iter().all(Option::is_none));
    }

    #[tokio::test(start_paused = true)]
    async fn absurd_latencies_saturate_instead_of_wrapping() {
        let start = Instant::now();
        let mut h = LatencyHistory::new(start);
        h.record(start, Duration::MAX, true, Some(Duration::MAX));
        h.record(start, Duration::MAX, true, None);
        let m = h.minutes(start)[59].unwrap();
        assert_eq!(m.calls, 2);
        assert!(m.max_ms.unwrap() > 1e12 && m.mean_ms.unwrap() > 1e12);
    }
}
