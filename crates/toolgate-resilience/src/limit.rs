//! Adaptive concurrency limit per dependency: a gradient controller in the
//! spirit of Netflix `concurrency-limits` (`Gradient2Limit`).
//!
//! The limit follows `new = limit × gradient + √limit`, where `gradient =
//! clamp(tolerance × long_rtt / rtt, 0.5, 1)`: while latency stays near its
//! long-term average the gradient is 1 and the √limit "queue" term lets the
//! limit grow; when latency rises above it the limit shrinks, up to halving
//! per step. Steps are smoothed. The limit only grows while the caller
//! actually uses at least half of it (otherwise growth would be unearned,
//! Netflix's "app-limited" rule). Bounds: `[min, max]`, min ≥ 1 so a slow
//! dependency still gets traffic.
//!
//! This module must not queue or wait: [`AdaptiveLimit::try_acquire`] answers
//! at once and the caller decides whether to wait, shed or fail.

use std::time::Duration;

use tokio::time::Instant;

/// Controller knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimitConfig {
    /// Starting limit (20).
    pub initial: u32,
    /// Never below this (1; values below 1 are raised to 1).
    pub min: u32,
    /// Never above this (200).
    pub max: u32,
    /// Weight of each new estimate (0.2).
    pub smoothing: f64,
    /// Latency may exceed its long-term average by this factor before the
    /// limit shrinks (1.5).
    pub tolerance: f64,
    /// Weight of each sample in the long-term RTT average (0.01: ~100
    /// samples; a sustained new latency is eventually accepted as normal).
    pub long_alpha: f64,
}

impl Default for LimitConfig {
    fn default() -> Self {
        LimitConfig {
            initial: 20,
            min: 1,
            max: 200,
            smoothing: 0.2,
            tolerance: 1.5,
            long_alpha: 0.01,
        }
    }
}

/// Proof that one slot under the limit is held; give it back with
/// [`AdaptiveLimit::release`] or [`AdaptiveLimit::forget`].
#[derive(Debug)]
#[must_use = "a permit must be released, or the slot is lost"]
pub struct Permit {
    _private: (),
}

/// Adaptive concurrency limit for one dependency.
#[derive(Debug, Clone)]
pub struct AdaptiveLimit {
    cfg: LimitConfig,
    limit: f64,
    in_flight: u32,
    /// Long-term RTT average in seconds.
    long_rtt: Option<f64>,
}

impl Default for AdaptiveLimit {
    fn default() -> Self {
        AdaptiveLimit::new(LimitConfig::default())
    }
}

impl AdaptiveLimit {
    /// A limit starting at `cfg.initial`, clamped into `[min, max]`.
    pub fn new(cfg: LimitConfig) -> Self {
        let min = cfg.min.max(1);
        let cfg = LimitConfig {
            min,
            max: cfg.max.max(min),
            ..cfg
        };
        AdaptiveLimit {
            cfg,
            limit: f64::from(cfg.initial.clamp(cfg.min, cfg.max)),
            in_flight: 0,
            long_rtt: None,
        }
    }

    /// The current limit (whole calls).
    pub fn limit(&self) -> u32 {
        // In [min, max] by construction; `as` saturates anyway.
        self.limit.floor() as u32
    }

    /// Calls holding a permit.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Take a slot if one is free under the limit.
    pub fn try_acquire(&mut self) -> Option<Permit> {
        if self.in_flight >= self.limit() {
            return None;
        }
        self.in_flight += 1;
        Some(Permit { _private: () })
    }

    /// Give a slot back with the call's latency, which adjusts the limit.
    /// `now` is accepted for symmetry with the other stateful types and future
    /// time-windowed sampling; each sample is applied at once today.
    pub fn release(&mut self, permit: Permit, _now: Instant, latency: Duration) {
        let used = self.in_flight;
        self.forget(permit);
        let rtt = latency.as_secs_f64().max(1e-6);
        let long = *self.long_rtt.get_or_insert(rtt);
        let alpha = self.cfg.long_alpha.clamp(0.0, 1.0);
        // Netflix: if latency drifted far above the average, pull the average
        // down faster so the controller recovers instead of ratcheting.
        let long = if long / rtt > 2.0 {
            long * 0.95
        } else {
            long + alpha * (rtt - long)
        };
        self.long_rtt = Some(long);

        let gradient = (self.cfg.tolerance * long / rtt).clamp(0.5, 1.0);
        let app_limited = f64::from(used) * 2.0 < self.limit;
        if app_limited && gradient >= 1.0 {
            return;
        }
        let queue = self.limit.sqrt();
        let estimate = self.limit * gradient + queue;
        let s = self.cfg.smoothing.clamp(0.0, 1.0);
        let next = self.limit * (1.0 - s) + estimate * s;
        self.limit = next.clamp(f64::from(self.cfg.min), f64::from(self.cfg.max));
    }

    /// Give a slot back without a latency sample (the call failed before a
    /// meaningful round trip, or was cancelled).
    pub fn forget(&mut self, permit: Permit) {
        let Permit { _private: () } = permit;
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Fill the limit, then release every permit with `latency`; `rounds` times.
    fn saturate(l: &mut AdaptiveLimit, now: Instant, latency: Duration, rounds: usize) {
        for _ in 0..rounds {
            let permits: Vec<_> = std::iter::from_fn(|| l.try_acquire()).collect();
            for p in permits {
                l.release(p, now, latency);
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn permits_are_bounded_by_the_limit() {
        let now = Instant::now();
        let mut l = AdaptiveLimit::default();
        let permits: Vec<_> = std::iter::from_fn(|| l.try_acquire()).take(100).collect();
        assert_eq!(permits.len(), 20);
        assert!(l.try_acquire().is_none());
        for p in permits {
            l.release(p, now, ms(100));
        }
        assert_eq!(l.in_flight(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn grows_slowly_when_healthy_and_busy_up_to_max() {
        let now = Instant::now();
        let mut l = AdaptiveLimit::default();
        saturate(&mut l, now, ms(100), 1);
        let after_one = l.limit();
        assert!(after_one > 20 && after_one < 40, "slow growth: {after_one}");
        saturate(&mut l, now, ms(100), 50);
        assert_eq!(l.limit(), 200);
    }

    #[tokio::test(start_paused = true)]
    async fn does_not_grow_when_the_limit_is_not_used() {
        let now = Instant::now();
        let mut l = AdaptiveLimit::default();
        for _ in 0..1000 {
            let p = l.try_acquire().expect("free slot");
            l.release(p, now, ms(100));
        }
        assert_eq!(l.limit(), 20);
    }

    #[tokio::test(start_paused = true)]
    async fn shrinks_when_latency_rises_but_never_below_min() {
        let now = Instant::now();
        let mut l = AdaptiveLimit::default();
        saturate(&mut l, now, ms(100), 5);
        let healthy = l.limit();
        saturate(&mut l, now, ms(400), 1);
        assert!(l.limit() < healthy / 2, "{} vs {healthy}", l.limit());
        for _ in 0..50 {
            saturate(&mut l, now, ms(5_000), 1);
            assert!(l.limit() >= 1);
        }
        assert!(l.limit() >= 1);
        assert!(
            l.try_acquire().is_some(),
            "a slow dependency still gets a call"
        );
    }
}
