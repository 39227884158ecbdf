//! The retry decision: one pure function saying whether and when the gateway
//! retries an attempt that failed.
//!
//! Rules: retry in one place only (stacked retry layers multiply load); one deadline
//! covers every attempt and wait; a server hint (Retry-After, gRPC pushback) is a floor on
//! the wait, as in gRPC's retry design (A6) and the AWS SDKs; a hint longer
//! than the remaining deadline fails fast and carries the wait so the model can
//! be told "resets in N s".
//!
//! [`crate::RetryLoop`] asks this once per failed attempt, after admission and before
//! the retry budget (see that module for the whole order).
//!
//! This module must not sleep, hold state, or consult budget or breaker.

use std::time::Duration;

use rand::Rng;

use crate::backoff::Backoff;
use crate::class::ErrorClass;

/// The least time worth giving a retried attempt. A retry that would start
/// with less than this left on the deadline cannot realistically finish, so it
/// only adds load; fail fast instead.
pub const MIN_ATTEMPT_TIME: Duration = Duration::from_millis(50);

/// What [`decide_retry`] needs to know about the failed attempt and the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryInput {
    /// The class of the attempt that just failed.
    pub class: ErrorClass,
    /// The server's hint of when to come back, if it gave one.
    pub hint: Option<Duration>,
    /// Attempts made so far in this call, the one that just failed included (≥ 1).
    pub attempts: u32,
    /// Whether the tool is idempotent/read-only (its annotations).
    pub idempotent: bool,
    /// The reply vouched for a repeat (`x-should-retry: true`, `Stripe-Should-Retry:
    /// true`): the server says the request may be sent again and may then succeed, so a
    /// server error or a conflict is retried even for a tool that is not idempotent
    /// ([`ErrorClass::retryable_when_vouched`]).
    pub vouched: bool,
    /// Time left on the whole call's deadline.
    pub deadline_left: Duration,
}

/// Whether and when to retry.
#[derive(Debug, Clone, PartialEq)]
pub enum RetryDecision {
    /// Wait this long, then (after breaker and budget agree) attempt again.
    RetryAfter(Duration),
    /// Stop and report the failure.
    GiveUp(GiveUpReason),
}

/// Why the gateway stopped retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUpReason {
    /// The class cannot be helped by a retry (drift, auth, non-idempotent 5xx …).
    NotRetryable,
    /// `max_attempts` attempts were made.
    AttemptsExhausted,
    /// The wait (hint or backoff) plus a minimal attempt does not fit the
    /// deadline; `wait` is what the model should be told.
    DeadlineTooShort {
        /// How long the dependency asked (or backoff wanted) to wait.
        wait: Duration,
    },
    /// The retry budget denied the retry (set by the caller, step 3).
    BudgetDenied,
    /// The circuit breaker refused the retry (set by the caller, step 2).
    CircuitOpen,
    /// The reply itself said a retry will not help (`x-should-retry: false`,
    /// `Stripe-Should-Retry: false`).
    AdvisedAgainst,
}

/// Decide whether and when to retry a failed attempt: the positional form
/// of [`RetryInput::decide`] (same rules). `attempts` counts the attempts made
/// so far, the failed one included; `idempotent` is whether the tool may be
/// repeated; `deadline_left` is what remains of the whole call's deadline.
pub fn decide_retry<R: Rng + ?Sized>(
    class: ErrorClass,
    hint: Option<Duration>,
    attempts: u32,
    idempotent: bool,
    deadline_left: Duration,
    backoff: &Backoff,
    rng: &mut R,
) -> RetryDecision {
    RetryInput {
        class,
        hint,
        attempts,
        idempotent,
        vouched: false,
        deadline_left,
    }
    .decide(backoff, rng)
}

impl RetryInput {
    /// Decide whether and when to retry a failed attempt.
    ///
    /// The wait is `max(hint, jittered backoff)` when a hint exists (the hint
    /// is a floor; jitter on top keeps a crowd that got the same hint from
    /// returning in the same millisecond), else the jittered backoff. The
    /// gateway's own refusals map to their reasons: `circuit_open` →
    /// [`GiveUpReason::CircuitOpen`], `budget_exhausted` →
    /// [`GiveUpReason::BudgetDenied`].
    pub fn decide<R: Rng + ?Sized>(&self, backoff: &Backoff, rng: &mut R) -> RetryDecision {
        let input = self;
        match input.class {
            ErrorClass::CircuitOpen => return RetryDecision::GiveUp(GiveUpReason::CircuitOpen),
            ErrorClass::BudgetExhausted => {
                return RetryDecision::GiveUp(GiveUpReason::BudgetDenied);
            }
            class
                if !(class.retryable(input.idempotent)
                    || input.vouched && class.retryable_when_vouched()) =>
            {
                return RetryDecision::GiveUp(GiveUpReason::NotRetryable);
            }
            _ => {}
        }
        if input.attempts >= backoff.max_attempts {
            return RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted);
        }
        let jittered = backoff.delay(input.attempts.saturating_sub(1), rng);
        let wait = input.hint.map_or(jittered, |hint| hint.max(jittered));
        if wait.saturating_add(MIN_ATTEMPT_TIME) > input.deadline_left {
            return RetryDecision::GiveUp(GiveUpReason::DeadlineTooShort { wait });
        }
        RetryDecision::RetryAfter(wait)
    }
}

#[cfg(test)]
mod tests;
