//! The retry loop of one call, as a pure state machine: [`RetryLoop::next`] takes what
//! the last step produced and the time, and says what to do next — attempt, wait, or
//! stop with a reason. It sleeps, sends and counts nothing itself, so the gateway's
//! pipeline and the outage tests run exactly the same loop (the tests on simulated
//! time, the pipeline on tokio's).
//!
//! The order of questions, and why:
//! 1. **Admission** of every attempt (the caller's breaker, concurrency limit and quota
//!    pacer) comes first: a dependency known to be down gets no request at all, first
//!    attempt or retry. A refusal is reported here as [`StepOutcome::Refused`] and ends the
//!    call with its own class (`circuit_open`, `rate_limited`, `overloaded`).
//! 2. **Classification** happened before the outcome reaches the loop: it sees a class.
//! 3. **Retryability** of the class for this tool (idempotent or not), and in a brownout
//!    a timeout is never retried (more load makes a slow dependency slower).
//! 4. **Attempts**: at most `max_attempts`.
//! 5. **Backoff against the deadline**: the wait is the jittered backoff, floored by the
//!    server's hint; a wait that leaves less than [`crate::MIN_ATTEMPT_TIME`] before the
//!    deadline stops the call now and carries the wait, so the model can be told it.
//! 6. **Budget** last: only a retry that would really happen spends retry budget.
//!
//! After the wait, the next attempt goes through admission again (step 1), so a breaker
//! that opened during the wait stops the retry.

use std::time::Duration;

use rand::Rng;
use tokio::time::Instant;

use crate::backoff::Backoff;
use crate::class::ErrorClass;
use crate::retry::{GiveUpReason, RetryDecision, RetryInput};

/// What the last step produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepOutcome {
    /// The attempt succeeded.
    Success,
    /// The attempt failed with `class`; `hint` is the server's wait (Retry-After, reset).
    Failed {
        /// The attempt's class.
        class: ErrorClass,
        /// The server's hint, if any.
        hint: Option<Duration>,
        /// Whether the dependency is in a brownout now.
        brownout: bool,
        /// The reply's own word on a retry (`x-should-retry`, `Stripe-Should-Retry`):
        /// `Some(false)`, it will not help; `Some(true)`, repeating the request is safe
        /// and may succeed.
        advice: Option<bool>,
    },
    /// Admission refused the attempt before anything was sent.
    Refused {
        /// `circuit_open`, `rate_limited` or `overloaded`.
        class: ErrorClass,
    },
    /// The wait asked for by [`Step::Wait`] is over.
    Waited,
}

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Ask admission, then make an attempt, and report its [`StepOutcome`].
    Attempt,
    /// Sleep this long, then report [`StepOutcome::Waited`].
    Wait(Duration),
    /// The call is over.
    Done(CallVerdict),
}

/// How the call ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallVerdict {
    /// The last attempt succeeded.
    Succeeded,
    /// The call failed. `class` is what the caller reports (`budget_exhausted` when the
    /// budget refused the retry, else the class of the last failure); `last` is the
    /// class of the last attempt (or refusal) itself.
    Failed {
        /// The class to report.
        class: ErrorClass,
        /// The class of the last attempt or refusal.
        last: ErrorClass,
        /// Why the loop stopped; `None` when admission refused.
        reason: Option<GiveUpReason>,
    },
}

/// How a call that retried at least once ended, for recovery-rate accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sequence {
    /// A retry succeeded.
    Recovered,
    /// Attempts ran out, or a later failure was not retryable.
    Exhausted,
    /// The retry budget refused a retry.
    BudgetDenied,
    /// The next wait did not fit in the deadline.
    Deadline,
}

/// The retry loop of one call.
#[derive(Debug, Clone)]
pub struct RetryLoop {
    backoff: Backoff,
    idempotent: bool,
    deadline: Instant,
    attempts: u32,
    /// The class of each failure that was retried, in order.
    retried: Vec<ErrorClass>,
    /// The failure a pending wait is for.
    pending: Option<ErrorClass>,
    verdict: Option<CallVerdict>,
}

impl RetryLoop {
    /// A loop for a call that must end by `deadline`. The first step is always
    /// [`Step::Attempt`].
    pub fn new(backoff: Backoff, idempotent: bool, deadline: Instant) -> RetryLoop {
        RetryLoop {
            backoff,
            idempotent,
            deadline,
            attempts: 0,
            retried: Vec::new(),
            pending: None,
            verdict: None,
        }
    }

    /// The next step after `outcome` at `now`. `withdraw` asks the retry budget for one
    /// retry (called only for a retry that would otherwise happen).
    pub fn next<R: Rng + ?Sized>(
        &mut self,
        outcome: StepOutcome,
        now: Instant,
        withdraw: impl FnOnce(Instant) -> bool,
        rng: &mut R,
    ) -> Step {
        if let Some(v) = self.verdict {
            return Step::Done(v);
        }
        let step = match outcome {
            StepOutcome::Success => {
                self.attempts += 1;
                Step::Done(CallVerdict::Succeeded)
            }
            StepOutcome::Refused { class } => Step::Done(CallVerdict::Failed {
                class,
                last: class,
                reason: None,
            }),
            StepOutcome::Waited => match self.pending.take() {
                Some(class) => {
                    self.retried.push(class);
                    Step::Attempt
                }
                None => Step::Attempt,
            },
            StepOutcome::Failed {
                class,
                hint,
                brownout,
                advice,
            } => {
                self.attempts += 1;
                if advice == Some(false) {
                    // The upstream knows what a retry would do; it said it would not help.
                    Step::Done(CallVerdict::Failed {
                        class,
                        last: class,
                        reason: Some(GiveUpReason::AdvisedAgainst),
                    })
                } else {
                    let input = RetryInput {
                        class,
                        hint,
                        attempts: self.attempts,
                        idempotent: self.idempotent,
                        vouched: advice == Some(true),
                        deadline_left: self.deadline.saturating_duration_since(now),
                    };
                    self.after_failure(&input, brownout, now, withdraw, rng)
                }
            }
        };
        if let Step::Done(v) = step {
            self.verdict = Some(v);
        }
        step
    }

    fn after_failure<R: Rng + ?Sized>(
        &mut self,
        input: &RetryInput,
        brownout: bool,
        now: Instant,
        withdraw: impl FnOnce(Instant) -> bool,
        rng: &mut R,
    ) -> Step {
        let class = input.class;
        let give_up = |reason: GiveUpReason| {
            let reported = if reason == GiveUpReason::BudgetDenied {
                ErrorClass::BudgetExhausted
            } else {
                class
            };
            Step::Done(CallVerdict::Failed {
                class: reported,
                last: class,
                reason: Some(reason),
            })
        };
        if brownout && class == ErrorClass::Timeout {
            return give_up(GiveUpReason::NotRetryable);
        }
        match input.decide(&self.backoff, rng) {
            RetryDecision::RetryAfter(wait) => {
                if withdraw(now) {
                    self.pending = Some(class);
                    Step::Wait(wait)
                } else {
                    give_up(GiveUpReason::BudgetDenied)
                }
            }
            RetryDecision::GiveUp(reason) => give_up(reason),
        }
    }

    /// Attempts that reached the upstream (or tried to).
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The class of each failure that was retried, in order.
    pub fn retried(&self) -> &[ErrorClass] {
        &self.retried
    }

    /// Time left before the call's deadline.
    pub fn left(&self, now: Instant) -> Duration {
        self.deadline.saturating_duration_since(now)
    }

    /// For a call that retried: the class that triggered the first retry, and how the
    /// sequence ended. `None` when no retry happened or the call is not over.
    pub fn sequence(&self) -> Option<(ErrorClass, Sequence)> {
        let first = *self.retried.first()?;
        let ended = match self.verdict? {
            CallVerdict::Succeeded => Sequence::Recovered,
            CallVerdict::Failed {
                reason: Some(GiveUpReason::BudgetDenied),
                ..
            } => Sequence::BudgetDenied,
            CallVerdict::Failed {
                reason: Some(GiveUpReason::DeadlineTooShort { .. }),
                ..
            } => Sequence::Deadline,
            CallVerdict::Failed { .. } => Sequence::Exhausted,
        };
        Some((first, ended))
    }
}

#[cfg(test)]
mod tests;
