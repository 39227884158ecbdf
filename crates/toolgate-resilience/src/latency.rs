//! Latency windows and brownout detection per dependency.
//!
//! A brownout is a dependency that still answers, but slowly: latency triples
//! and an agent that is not told keeps calling at full speed. The
//! detector compares a short "now" statistic with a slowly moving baseline,
//! the shape of Envoy's outlier detection and Netflix's concurrency-limits
//! (short RTT vs long RTT), with hysteresis like any alarm that must not flap.
//!
//! - Window: the last `window` (30 s) of samples, at most `capacity` of them
//!   (a bounded ring, sorted on demand for percentiles — no histogram crate).
//!   Percentiles use successful samples only: a flood of fast 500s must not
//!   look like a speed-up; failures show in `error_rate`.
//! - "Now": the median of the last `recent` (10) successful samples. The
//!   window p50 would lag by half the window, too slow for "noted to the model
//!   within 20 calls", the promise the gateway makes about a brownout.
//! - Baseline: set to the window p50 once `min_samples` successes are seen,
//!   then an EWMA of "now", updated only while neither in brownout nor above
//!   the entry threshold — so a brownout cannot teach the baseline that slow
//!   is normal, and the slow tail left in the window after recovery cannot
//!   either (which is why it follows "now", not the window p50).
//! - Brownout: enter when now ≥ `enter_factor` × baseline for `sustain` (5)
//!   samples in a row; leave when now < `exit_factor` (1.5) × baseline for
//!   `sustain` samples in a row. `enter_factor` defaults to 2.5, not 3: the
//!   event to catch is "latency tripled", and with a threshold
//!   at exactly 3× noise puts about half the medians of a tripled dependency
//!   below it. 2.5× is still far outside normal jitter.
//! - Floor: a rise of less than `min_rise` (20 ms) over the baseline is never
//!   a brownout, whatever the ratio. The latency measured is the gateway's
//!   view (send to last byte), so it includes the gateway's own scheduling
//!   delay: a sub-millisecond upstream on loopback or a LAN "triples" as soon
//!   as the gateway's CPU is busy, and holding such a dependency back would
//!   throttle calls for the gateway's sake, not the upstream's (measured in
//!   docs/performance.md). Upstream APIs worth a brownout note slow down by
//!   tens of milliseconds or more.
//!
//! This module must not read a clock, act on a brownout, or allocate per
//! sample beyond its bounded ring.

use std::collections::VecDeque;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use crate::later;

/// Detector knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyConfig {
    /// Sliding window for percentiles and error rate (30 s).
    pub window: Duration,
    /// At most this many samples are kept (512).
    pub capacity: usize,
    /// Successful samples in the "now" median (10; at most 64).
    pub recent: usize,
    /// Successes needed before the baseline is trusted (20).
    pub min_samples: usize,
    /// Weight of each new "now" in the baseline EWMA (0.01: ~100 samples).
    pub baseline_alpha: f64,
    /// Enter brownout at this multiple of the baseline (2.5; see the module docs).
    pub enter_factor: f64,
    /// Leave brownout below this multiple (1.5).
    pub exit_factor: f64,
    /// Consecutive samples beyond a threshold needed to change state (5).
    pub sustain: u32,
    /// A rise over the baseline smaller than this is never a brownout (20 ms;
    /// see the module docs); below half of it, a brownout ends.
    pub min_rise: Duration,
}

impl Default for LatencyConfig {
    fn default() -> Self {
        LatencyConfig {
            window: Duration::from_secs(30),
            capacity: 512,
            recent: 10,
            min_samples: 20,
            baseline_alpha: 0.01,
            enter_factor: 2.5,
            exit_factor: 1.5,
            sustain: 5,
            min_rise: Duration::from_millis(20),
        }
    }
}

/// What `dependency_health`, notes and metrics read. Durations serialise as
/// fractional milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencySnapshot {
    /// Window median of successful calls.
    #[serde(rename = "p50_ms", serialize_with = "ms")]
    pub p50: Duration,
    /// Window 90th percentile.
    #[serde(rename = "p90_ms", serialize_with = "ms")]
    pub p90: Duration,
    /// Window 95th percentile.
    #[serde(rename = "p95_ms", serialize_with = "ms")]
    pub p95: Duration,
    /// Window 99th percentile.
    #[serde(rename = "p99_ms", serialize_with = "ms")]
    pub p99: Duration,
    /// The baseline, once trusted.
    #[serde(rename = "baseline_ms", serialize_with = "opt_ms")]
    pub baseline: Option<Duration>,
    /// "Now" (recent median) / baseline, once the baseline is trusted.
    pub ratio: Option<f64>,
    /// Failed / all samples in the window (0 when empty).
    pub error_rate: f64,
    /// Samples (successful or not) in the window.
    pub samples: usize,
    /// Whether the dependency is in a brownout.
    pub brownout: bool,
}

fn ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

fn opt_ms<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => ms(d, s),
        None => s.serialize_none(),
    }
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    latency: Duration,
    ok: bool,
}

/// Latency window and brownout detector for one dependency.
#[derive(Debug, Clone)]
pub struct LatencyWindow {
    cfg: LatencyConfig,
    samples: VecDeque<Sample>,
    /// Failed samples in `samples`, kept as they come and go: a call's snapshot reads
    /// the window's error rate without walking it.
    failed: usize,
    recent: VecDeque<Duration>,
    /// The median of `recent`, worked out when a success is recorded, not per snapshot.
    current: Duration,
    successes_seen: usize,
    /// Seconds, as f64, so the EWMA does not round away small steps.
    baseline: Option<f64>,
    brownout: bool,
    streak: u32,
}

impl Default for LatencyWindow {
    fn default() -> Self {
        LatencyWindow::new(LatencyConfig::default())
    }
}

impl LatencyWindow {
    /// An empty window.
    pub fn new(cfg: LatencyConfig) -> Self {
        let cfg = LatencyConfig {
            capacity: cfg.capacity.max(1),
            recent: cfg.recent.clamp(1, MAX_RECENT),
            ..cfg
        };
        LatencyWindow {
            cfg,
            samples: VecDeque::with_capacity(cfg.capacity),
            failed: 0,
            recent: VecDeque::with_capacity(cfg.recent),
            current: Duration::ZERO,
            successes_seen: 0,
            baseline: None,
            brownout: false,
            streak: 0,
        }
    }

    /// Record one upstream attempt's latency and whether it succeeded.
    pub fn record(&mut self, now: Instant, latency: Duration, success: bool) {
        self.evict(now);
        if self.samples.len() >= self.cfg.capacity {
            self.pop_oldest();
        }
        self.samples.push_back(Sample {
            at: now,
            latency,
            ok: success,
        });
        if !success {
            self.failed += 1;
            return;
        }
        if self.recent.len() >= self.cfg.recent {
            self.recent.pop_front();
        }
        self.recent.push_back(latency);
        self.current = median(&self.recent);
        self.successes_seen = self.successes_seen.saturating_add(1);
        self.evaluate(now);
    }

    fn evict(&mut self, now: Instant) {
        while self
            .samples
            .front()
            .is_some_and(|s| later(s.at, self.cfg.window) <= now)
        {
            self.pop_oldest();
        }
    }

    fn pop_oldest(&mut self) {
        if let Some(s) = self.samples.pop_front()
            && !s.ok
        {
            self.failed -= 1;
        }
    }

    fn evaluate(&mut self, now: Instant) {
        let Some(baseline) = self.baseline else {
            if self.successes_seen >= self.cfg.min_samples {
                self.baseline = Some(self.percentile(now, 0.5).as_secs_f64());
            }
            return;
        };
        let current = self.current.as_secs_f64();
        // Baseline 0 (all-zero latencies): any positive latency is "above".
        let ratio = if baseline > 0.0 {
            current / baseline
        } else {
            f64::INFINITY
        };
        let rise = current - baseline;
        let min_rise = self.cfg.min_rise.as_secs_f64();
        let beyond = if self.brownout {
            ratio < self.cfg.exit_factor || rise < min_rise / 2.0
        } else {
            ratio >= self.cfg.enter_factor && rise >= min_rise
        };
        self.streak = if beyond {
            self.streak.saturating_add(1)
        } else {
            0
        };
        if self.streak >= self.cfg.sustain.max(1) {
            self.brownout = !self.brownout;
            self.streak = 0;
        }
        if !self.brownout && ratio < self.cfg.enter_factor {
            let alpha = self.cfg.baseline_alpha.clamp(0.0, 1.0);
            self.baseline = Some(baseline + alpha * (current - baseline));
        }
    }

    /// Nearest-rank percentile of successful latencies in the window.
    fn percentile(&self, now: Instant, p: f64) -> Duration {
        let mut ok = self.successes_in_window(now);
        ok.sort_unstable();
        rank(&ok, p)
    }

    fn successes_in_window(&self, now: Instant) -> Vec<Duration> {
        self.samples
            .iter()
            .filter(|s| s.ok && later(s.at, self.cfg.window) > now)
            .map(|s| s.latency)
            .collect()
    }

    /// Whether the dependency is in a brownout.
    pub fn brownout(&self) -> bool {
        self.brownout
    }

    /// The trusted baseline, if any.
    pub fn baseline(&self) -> Option<Duration> {
        self.baseline.map(Duration::from_secs_f64)
    }

    /// Percentiles, baseline and brownout state at `now`.
    pub fn snapshot(&self, now: Instant) -> LatencySnapshot {
        self.snapshot_with(now, true)
    }

    /// Like [`snapshot`](Self::snapshot) but without sorting the window: the
    /// percentiles are left at zero. For the per-call path, which only needs the
    /// baseline, the ratio and the brownout flag.
    pub fn snapshot_without_percentiles(&self, now: Instant) -> LatencySnapshot {
        self.snapshot_with(now, false)
    }

    fn snapshot_with(&self, now: Instant, percentiles: bool) -> LatencySnapshot {
        let mut ok = if percentiles {
            self.successes_in_window(now)
        } else {
            Vec::new()
        };
        ok.sort_unstable();
        // The window evicts only when it records, so samples at its old end may have
        // left it since: those are subtracted from the running counts (usually none).
        let (mut samples, mut failed) = (self.samples.len(), self.failed);
        for s in self
            .samples
            .iter()
            .take_while(|s| later(s.at, self.cfg.window) <= now)
        {
            samples -= 1;
            failed -= usize::from(!s.ok);
        }
        let ratio = self
            .baseline
            .filter(|b| *b > 0.0)
            .map(|b| self.current.as_secs_f64() / b);
        LatencySnapshot {
            p50: rank(&ok, 0.50),
            p90: rank(&ok, 0.90),
            p95: rank(&ok, 0.95),
            p99: rank(&ok, 0.99),
            baseline: self.baseline(),
            ratio,
            error_rate: if samples == 0 {
                0.0
            } else {
                failed as f64 / samples as f64
            },
            samples,
            brownout: self.brownout,
        }
    }
}

/// Nearest-rank percentile of a sorted slice (zero when empty).
fn rank(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let n = sorted.len() as f64;
    let idx = ((p * n).ceil() as usize)
        .saturating_sub(1)
        .min(sorted.len() - 1);
    sorted[idx]
}

/// Upper bound on `recent`, so its median is taken on the stack.
const MAX_RECENT: usize = 64;

fn median(values: &VecDeque<Duration>) -> Duration {
    let mut buf = [Duration::ZERO; MAX_RECENT];
    let n = values.len().min(MAX_RECENT);
    for (slot, v) in buf.iter_mut().zip(values.iter()) {
        *slot = *v;
    }
    let v = &mut buf[..n];
    v.sort_unstable();
    rank(v, 0.5)
}

#[cfg(test)]
#[path = "latency_tests.rs"]
mod tests;
