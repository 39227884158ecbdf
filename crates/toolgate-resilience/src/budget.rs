//! Retry budget per dependency: retries may be at most `ratio` of requests
//! over a sliding window, plus a floor of `min_per_window`.
//!
//! The idea and the defaults (20 %, 10 per 10 s) are tower's
//! `retry::budget::TpsBudget`, itself from Finagle's `RetryBudget`, and
//! linkerd's retry budgets. Why a budget and not just `max_attempts`: a cap per
//! call still multiplies load by 3 during an outage (and by 3^layers when
//! layers stack — five layers of 3 attempts turn one call into 243); a budget
//! bounds the *extra* load on the dependency to a fraction, whatever the
//! outage does. The floor keeps
//! low-traffic dependencies able to retry at all.
//!
//! Only first attempts are deposited ([`RetryBudget::record_request`]);
//! retries are withdrawals. This module must not decide *whether* a retry is
//! useful (that is `retry`), nor read a clock.

use std::time::Duration;

use tokio::time::Instant;

use crate::window::SlidingCounts;

const REQUESTS: usize = 0;
const RETRIES: usize = 1;

/// Retry budget for one dependency.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    ratio: f64,
    min_per_window: u32,
    counts: SlidingCounts,
}

impl Default for RetryBudget {
    /// 20 % of requests plus 10 retries per 10 s (tower, linkerd).
    fn default() -> Self {
        RetryBudget::new(0.2, 10, Duration::from_secs(10))
    }
}

impl RetryBudget {
    /// A budget allowing `min_per_window + ratio × requests` retries in any
    /// `window`. A negative or non-finite ratio is treated as 0 (floor only).
    pub fn new(ratio: f64, min_per_window: u32, window: Duration) -> Self {
        let ratio = if ratio.is_finite() && ratio > 0.0 {
            ratio
        } else {
            0.0
        };
        RetryBudget {
            ratio,
            min_per_window,
            counts: SlidingCounts::new(window),
        }
    }

    /// Count one original request (a first attempt, never a retry).
    pub fn record_request(&mut self, now: Instant) {
        self.counts.add(now, REQUESTS, 1);
    }

    /// Retries the budget would still allow at `now` (for metrics and notes).
    pub fn available(&mut self, now: Instant) -> u64 {
        let [requests, retries] = self.counts.totals(now);
        let allowed = f64::from(self.min_per_window) + self.ratio * requests as f64;
        // Float→int `as` saturates, never wraps.
        (allowed.floor() as u64).saturating_sub(retries)
    }

    /// Take one retry from the budget; `false` means the retry must not happen
    /// (report `budget_exhausted`).
    pub fn try_withdraw(&mut self, now: Instant) -> bool {
        if self.available(now) == 0 {
            return false;
        }
        self.counts.add(now, RETRIES, 1);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[tokio::test(start_paused = true)]
    async fn floor_allows_retries_without_traffic() {
        let t0 = Instant::now();
        let mut b = RetryBudget::default();
        assert_eq!((0..15).filter(|_| b.try_withdraw(t0)).count(), 10);
    }

    #[tokio::test(start_paused = true)]
    async fn ratio_of_requests_on_top_of_the_floor() {
        let t0 = Instant::now();
        let mut b = RetryBudget::default();
        for _ in 0..100 {
            b.record_request(t0);
        }
        // 10 + 20 % of 100.
        assert_eq!((0..100).filter(|_| b.try_withdraw(t0)).count(), 30);
    }

    #[tokio::test(start_paused = true)]
    async fn budget_refills_as_the_window_slides() {
        let t0 = Instant::now();
        let mut b = RetryBudget::new(0.0, 2, secs(10));
        assert!(b.try_withdraw(t0) && b.try_withdraw(t0));
        assert!(!b.try_withdraw(t0 + secs(9)));
        assert!(b.try_withdraw(t0 + secs(10)));
    }

    #[tokio::test(start_paused = true)]
    async fn high_rate_outage_retries_stay_a_fraction() {
        // 1000 requests in one window, each wanting 2 retries: the budget, not
        // max_attempts, bounds the extra load.
        let t0 = Instant::now();
        let mut b = RetryBudget::default();
        let mut retries = 0;
        for i in 0..1000u64 {
            let now = t0 + Duration::from_millis(i * 9);
            b.record_request(now);
            retries += (0..2).filter(|_| b.try_withdraw(now)).count();
        }
        assert!(retries <= 10 + 200, "retries = {retries}");
        assert!(
            retries >= 200,
            "the budget is not stingier than advertised: {retries}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn nonsense_ratio_means_floor_only() {
        let t0 = Instant::now();
        for ratio in [f64::NAN, -1.0, f64::NEG_INFINITY] {
            let mut b = RetryBudget::new(ratio, 1, secs(10));
            b.record_request(t0);
            assert!(b.try_withdraw(t0));
            assert!(!b.try_withdraw(t0));
        }
    }
}
