//! In-process sliding windows of call outcomes and retry recoveries, per tool, so the
//! built-in alert rules and `toolgate status` need no Prometheus.
//!
//! Counts live in one-minute buckets in a ring long enough for the longest window
//! a rule looks at (a day and an hour). Time is injected (`now`), so the windows are
//! tested without waiting.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;
use toolgate_resilience::ErrorClass;

/// Bucket width.
const BUCKET: Duration = Duration::from_secs(60);
/// Buckets kept: 25 hours.
const KEEP: u64 = 25 * 60;

/// Counts in time buckets.
#[derive(Debug, Clone)]
pub struct Window {
    origin: Instant,
    /// (bucket index, count); oldest first.
    buckets: VecDeque<(u64, u64)>,
}

impl Window {
    /// An empty window whose bucket 0 starts at `origin`.
    pub fn new(origin: Instant) -> Window {
        Window {
            origin,
            buckets: VecDeque::new(),
        }
    }

    fn index(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.origin).as_secs() / BUCKET.as_secs()
    }

    /// Adds `n` at `now`.
    pub fn add(&mut self, now: Instant, n: u64) {
        let i = self.index(now);
        match self.buckets.back_mut() {
            Some((last, count)) if *last == i => *count += n,
            _ => self.buckets.push_back((i, n)),
        }
        while self.buckets.front().is_some_and(|(b, _)| b + KEEP < i) {
            self.buckets.pop_front();
        }
    }

    /// Sum over `[now - from, now - to)`, at bucket resolution (`to` < `from`).
    pub fn sum_between(&self, now: Instant, from: Duration, to: Duration) -> u64 {
        let i = self.index(now);
        let span = |d: Duration| d.as_secs().div_ceil(BUCKET.as_secs());
        let lo = i.saturating_sub(span(from).saturating_sub(1));
        let hi = if to.is_zero() {
            i + 1
        } else {
            i.saturating_sub(span(to).saturating_sub(1))
        };
        self.buckets
            .iter()
            .filter(|(b, _)| *b >= lo && *b < hi)
            .map(|(_, c)| c)
            .sum()
    }

    /// Sum over the last `window`.
    pub fn sum(&self, now: Instant, window: Duration) -> u64 {
        self.sum_between(now, window, Duration::ZERO)
    }
}

/// A call's outcome for the windows: `None` is success.
pub type CallClass = Option<ErrorClass>;

/// Windows of one tool.
#[derive(Debug, Clone)]
pub struct ToolStats {
    origin: Instant,
    /// Calls by outcome.
    pub calls: BTreeMap<CallClass, Window>,
    /// Retries made, by class.
    pub retries: BTreeMap<ErrorClass, Window>,
    /// Retry sequences by first retried class: (all, recovered).
    pub sequences: BTreeMap<ErrorClass, (Window, Window)>,
}

/// One tool's numbers over a window, for rules and `toolgate status`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ToolSummary {
    /// Calls.
    pub calls: u64,
    /// Successful calls.
    pub ok: u64,
    /// Calls by error class.
    pub errors: BTreeMap<&'static str, u64>,
    /// Retries made.
    pub retries: u64,
    /// Per first-retried class: (sequences, recovered).
    pub recovery: BTreeMap<&'static str, (u64, u64)>,
}

impl ToolSummary {
    /// ok / calls, if there were calls.
    pub fn success_rate(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.ok as f64 / self.calls as f64)
    }
}

impl ToolStats {
    /// Empty windows.
    pub fn new(origin: Instant) -> ToolStats {
        ToolStats {
            origin,
            calls: BTreeMap::new(),
            retries: BTreeMap::new(),
            sequences: BTreeMap::new(),
        }
    }

    /// Records a finished call.
    pub fn call(
        &mut self,
        now: Instant,
        outcome: CallClass,
        retries: &[ErrorClass],
        sequence: Option<(ErrorClass, bool)>,
    ) {
        let origin = self.origin;
        self.calls
            .entry(outcome)
            .or_insert_with(|| Window::new(origin))
            .add(now, 1);
        for class in retries {
            self.retries
                .entry(*class)
                .or_insert_with(|| Window::new(origin))
                .add(now, 1);
        }
        if let Some((class, recovered)) = sequence {
            let (all, rec) = self
                .sequences
                .entry(class)
                .or_insert_with(|| (Window::new(origin), Window::new(origin)));
            all.add(now, 1);
            if recovered {
                rec.add(now, 1);
            }
        }
    }

    /// Numbers over `[now - from, now - to)`.
    pub fn summary_between(&self, now: Instant, from: Duration, to: Duration) -> ToolSummary {
        let mut s = ToolSummary::default();
        for (outcome, w) in &self.calls {
            let n = w.sum_between(now, from, to);
            s.calls += n;
            match outcome {
                None => s.ok += n,
                Some(c) if n > 0 => *s.errors.entry(c.as_str()).or_default() += n,
                Some(_) => {}
            }
        }
        s.retries = self
            .retries
            .values()
            .map(|w| w.sum_between(now, from, to))
            .sum();
        for (class, (all, rec)) in &self.sequences {
            let all = all.sum_between(now, from, to);
            if all > 0 {
                s.recovery
                    .insert(class.as_str(), (all, rec.sum_between(now, from, to)));
            }
        }
        s
    }

    /// Numbers over the last `window`.
    pub fn summary(&self, now: Instant, window: Duration) -> ToolSummary {
        self.summary_between(now, window, Duration::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);
    const HOUR: Duration = Duration::from_secs(3600);

    #[tokio::test(start_paused = true)]
    async fn windows_forget_what_is_older_than_they_look() {
        let t0 = Instant::now();
        let mut w = Window::new(t0);
        w.add(t0, 5);
        w.add(t0 + 35 * MIN, 2);
        assert_eq!(w.sum(t0 + 35 * MIN, HOUR), 7);
        assert_eq!(w.sum(t0 + 90 * MIN, HOUR), 2);
        assert_eq!(w.sum(t0 + 3 * HOUR, HOUR), 0);
        // The hour before the last one.
        assert_eq!(w.sum_between(t0 + 90 * MIN, 2 * HOUR, HOUR), 5);
    }

    #[tokio::test(start_paused = true)]
    async fn recovery_and_success_rates_per_class() {
        let t0 = Instant::now();
        let mut s = ToolStats::new(t0);
        for i in 0..10 {
            s.call(t0 + i * MIN, Some(ErrorClass::ContractDrift), &[], None);
            s.call(
                t0 + i * MIN,
                Some(ErrorClass::Timeout),
                &[ErrorClass::Timeout, ErrorClass::Timeout],
                Some((ErrorClass::Timeout, false)),
            );
        }
        s.call(
            t0 + 10 * MIN,
            None,
            &[ErrorClass::ServerError],
            Some((ErrorClass::ServerError, true)),
        );
        let sum = s.summary(t0 + 10 * MIN, HOUR);
        assert_eq!(sum.calls, 21);
        assert_eq!(sum.ok, 1);
        assert_eq!(sum.errors["contract_drift"], 10);
        assert_eq!(sum.retries, 21);
        assert_eq!(sum.recovery["timeout"], (10, 0));
        assert_eq!(sum.recovery["server_error"], (1, 1));
        assert!((sum.success_rate().unwrap() - 1.0 / 21.0).abs() < 1e-9);
        // Two hours later nothing is left in a one-hour window.
        assert_eq!(s.summary(t0 + 3 * HOUR, HOUR), ToolSummary::default());
    }

    #[tokio::test(start_paused = true)]
    async fn the_ring_is_bounded() {
        let t0 = Instant::now();
        let mut w = Window::new(t0);
        for i in 0..(3 * KEEP) {
            w.add(t0 + Duration::from_secs(60 * i), 1);
        }
        assert!(w.buckets.len() as u64 <= KEEP + 1);
    }
}
