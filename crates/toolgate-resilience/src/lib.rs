//! Failure classification, backoff, retry budgets, circuit breaking, quota
//! pacing and brownout detection for toolgate.
//!
//! Everything here is a pure function or a small state machine: time arrives
//! as a `now: tokio::time::Instant` parameter and randomness as `&mut impl
//! Rng`, so every policy is tested deterministically on paused time.
//! Nothing here performs I/O, sleeps, spawns, or parses HTTP headers; the
//! inputs are plain numbers produced elsewhere (`toolgate-signals`, the
//! contract validator).
//!
//! The retry loop of a call is [`RetryLoop`], a pure state machine over these parts:
//! admission (breaker first) → [`classify`] → retryability and backoff against the
//! deadline ([`RetryInput::decide`]) → [`RetryBudget::try_withdraw`] (see `retry_loop.rs`).
#![warn(missing_docs)]

mod backoff;
mod breaker;
mod budget;
mod class;
mod classify;
mod history;
mod latency;
mod limit;
mod pacer;
mod reply_memory;
mod retry;
mod retry_loop;
mod window;

#[cfg(test)]
mod outage_tests;

/// `now + d` without the panic `Instant + Duration` has on overflow: a
/// Retry-After or reset from a confused upstream can be absurdly large, and
/// "about a century from now" means the same thing to every policy here.
pub(crate) fn later(now: tokio::time::Instant, d: std::time::Duration) -> tokio::time::Instant {
    const CENTURY: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 24 * 3600);
    now.checked_add(d)
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

pub use backoff::Backoff;
pub use breaker::{Admission, BreakerConfig, BreakerState, CircuitBreaker, account_verdict};
pub use budget::RetryBudget;
pub use class::ErrorClass;
pub use classify::{Attempt, BodyCheck, Said, classify};
pub use history::{LatencyHistory, MINUTES as HISTORY_MINUTES, Minute};
pub use latency::{LatencyConfig, LatencySnapshot, LatencyWindow};
pub use limit::{AdaptiveLimit, LimitConfig, Permit};
pub use pacer::{Pace, PacerConfig, Quota, QuotaPacer};
pub use reply_memory::{Held, NoRoom, Part as ReplyPart, ReplyMemory, Share as ReplyShare};
pub use retry::{GiveUpReason, MIN_ATTEMPT_TIME, RetryDecision, RetryInput, decide_retry};
pub use retry_loop::{CallVerdict, RetryLoop, Sequence, Step, StepOutcome};
