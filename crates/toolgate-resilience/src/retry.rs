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
            class if !class.retryable(input.idempotent) => {
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
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    fn input(class: ErrorClass) -> RetryInput {
        RetryInput {
            class,
            hint: None,
            attempts: 1,
            idempotent: true,
            deadline_left: Duration::from_secs(30),
        }
    }

    fn decide(i: RetryInput) -> RetryDecision {
        i.decide(&Backoff::default(), &mut SmallRng::seed_from_u64(3))
    }

    #[test]
    fn every_class_idempotent_and_not() {
        use ErrorClass::*;
        let give_up = |r| RetryDecision::GiveUp(r);
        for class in ErrorClass::ALL {
            for idempotent in [true, false] {
                let got = decide(RetryInput {
                    idempotent,
                    ..input(class)
                });
                let want_retry = class.retryable(idempotent);
                match (&got, class) {
                    (RetryDecision::RetryAfter(d), _) => {
                        assert!(want_retry, "{class} {idempotent}");
                        assert!(*d <= Backoff::default().base, "first retry within base");
                    }
                    (r, CircuitOpen) => assert_eq!(*r, give_up(GiveUpReason::CircuitOpen)),
                    (r, BudgetExhausted) => assert_eq!(*r, give_up(GiveUpReason::BudgetDenied)),
                    (r, _) => {
                        assert!(!want_retry, "{class} {idempotent}");
                        assert_eq!(*r, give_up(GiveUpReason::NotRetryable));
                    }
                }
            }
        }
    }

    #[test]
    fn non_idempotent_only_retries_when_nothing_happened_upstream() {
        let retries = |c| {
            matches!(
                decide(RetryInput {
                    idempotent: false,
                    ..input(c)
                }),
                RetryDecision::RetryAfter(_)
            )
        };
        assert!(retries(ErrorClass::Connect));
        assert!(retries(ErrorClass::RateLimited));
        assert!(retries(ErrorClass::Overloaded));
        assert!(!retries(ErrorClass::Timeout));
        assert!(!retries(ErrorClass::ServerError));
    }

    #[test]
    fn attempts_are_bounded() {
        let i = |attempts| RetryInput {
            attempts,
            ..input(ErrorClass::Connect)
        };
        assert!(matches!(decide(i(1)), RetryDecision::RetryAfter(_)));
        assert!(matches!(decide(i(2)), RetryDecision::RetryAfter(_)));
        assert_eq!(
            decide(i(3)),
            RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted)
        );
        assert_eq!(
            decide(i(u32::MAX)),
            RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted)
        );
    }

    #[test]
    fn hint_is_a_floor_on_the_wait() {
        let hint = Duration::from_secs(2);
        let got = decide(RetryInput {
            hint: Some(hint),
            ..input(ErrorClass::RateLimited)
        });
        assert_eq!(
            got,
            RetryDecision::RetryAfter(hint),
            "backoff (≤100 ms) is below the hint"
        );
        // A tiny hint does not shorten the backoff.
        let mut rng = SmallRng::seed_from_u64(9);
        let i = RetryInput {
            hint: Some(Duration::ZERO),
            attempts: 2,
            ..input(ErrorClass::Overloaded)
        };
        let jittered = Backoff::default().delay(1, &mut SmallRng::seed_from_u64(9));
        assert_eq!(
            i.decide(&Backoff::default(), &mut rng),
            RetryDecision::RetryAfter(jittered)
        );
    }

    #[test]
    fn hint_beyond_deadline_fails_fast_with_the_wait() {
        let wait = Duration::from_secs(47);
        let got = decide(RetryInput {
            hint: Some(wait),
            deadline_left: Duration::from_secs(10),
            ..input(ErrorClass::RateLimited)
        });
        assert_eq!(
            got,
            RetryDecision::GiveUp(GiveUpReason::DeadlineTooShort { wait })
        );
    }

    #[test]
    fn wait_must_leave_room_for_an_attempt() {
        let hint = Duration::from_secs(1);
        let at = |left| {
            decide(RetryInput {
                hint: Some(hint),
                deadline_left: left,
                ..input(ErrorClass::Overloaded)
            })
        };
        assert_eq!(at(hint + MIN_ATTEMPT_TIME), RetryDecision::RetryAfter(hint));
        assert_eq!(
            at(hint + MIN_ATTEMPT_TIME - Duration::from_millis(1)),
            RetryDecision::GiveUp(GiveUpReason::DeadlineTooShort { wait: hint })
        );
        // No deadline left at all: even an unhinted connect error gives up.
        let got = decide(RetryInput {
            deadline_left: Duration::ZERO,
            ..input(ErrorClass::Connect)
        });
        assert!(matches!(
            got,
            RetryDecision::GiveUp(GiveUpReason::DeadlineTooShort { .. })
        ));
    }

    #[test]
    fn positional_form_is_the_same_decision() {
        let hint = Some(Duration::from_millis(700));
        let i = RetryInput {
            hint,
            attempts: 2,
            ..input(ErrorClass::Overloaded)
        };
        let positional = decide_retry(
            i.class,
            i.hint,
            i.attempts,
            i.idempotent,
            i.deadline_left,
            &Backoff::default(),
            &mut SmallRng::seed_from_u64(3),
        );
        assert_eq!(positional, decide(i));
    }

    #[test]
    fn drift_with_a_hint_is_still_not_retried() {
        let got = decide(RetryInput {
            hint: Some(Duration::from_millis(1)),
            ..input(ErrorClass::ContractDrift)
        });
        assert_eq!(got, RetryDecision::GiveUp(GiveUpReason::NotRetryable));
    }
}
