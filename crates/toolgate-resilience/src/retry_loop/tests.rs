use super::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn failed(class: ErrorClass) -> StepOutcome {
    StepOutcome::Failed {
        class,
        hint: None,
        brownout: false,
        advice: None,
    }
}

fn run(outcomes: &[StepOutcome], budget: bool) -> (Vec<Step>, RetryLoop) {
    let t0 = Instant::now();
    let mut l = RetryLoop::new(Backoff::default(), true, t0 + Duration::from_secs(10));
    let mut rng = SmallRng::seed_from_u64(7);
    let mut steps = Vec::new();
    for o in outcomes {
        let step = l.next(*o, t0, |_| budget, &mut rng);
        steps.push(step);
        if let Step::Wait(_) = step {
            steps.push(l.next(StepOutcome::Waited, t0, |_| budget, &mut rng));
        }
    }
    (steps, l)
}

#[tokio::test(start_paused = true)]
async fn a_retried_503_that_recovers_is_a_recovered_sequence() {
    let (steps, l) = run(
        &[failed(ErrorClass::ServerError), StepOutcome::Success],
        true,
    );
    assert!(matches!(steps[0], Step::Wait(_)));
    assert_eq!(steps[1], Step::Attempt);
    assert_eq!(steps[2], Step::Done(CallVerdict::Succeeded));
    assert_eq!(l.attempts(), 2);
    assert_eq!(
        l.sequence(),
        Some((ErrorClass::ServerError, Sequence::Recovered))
    );
}

#[tokio::test(start_paused = true)]
async fn drift_is_never_retried() {
    let (steps, l) = run(&[failed(ErrorClass::ContractDrift)], true);
    assert_eq!(
        steps[0],
        Step::Done(CallVerdict::Failed {
            class: ErrorClass::ContractDrift,
            last: ErrorClass::ContractDrift,
            reason: Some(GiveUpReason::NotRetryable),
        })
    );
    assert_eq!(l.attempts(), 1);
    assert_eq!(l.sequence(), None);
}

#[tokio::test(start_paused = true)]
async fn a_denied_budget_reports_budget_exhausted_with_the_real_class_kept() {
    let (steps, l) = run(&[failed(ErrorClass::Timeout)], false);
    assert_eq!(
        steps[0],
        Step::Done(CallVerdict::Failed {
            class: ErrorClass::BudgetExhausted,
            last: ErrorClass::Timeout,
            reason: Some(GiveUpReason::BudgetDenied),
        })
    );
    // No retry happened, so there is no retry sequence to count.
    assert_eq!(l.sequence(), None);
}

#[tokio::test(start_paused = true)]
async fn timeouts_in_a_brownout_are_not_retried() {
    let (steps, _) = run(
        &[StepOutcome::Failed {
            class: ErrorClass::Timeout,
            hint: None,
            brownout: true,
            advice: None,
        }],
        true,
    );
    assert!(matches!(
        steps[0],
        Step::Done(CallVerdict::Failed {
            reason: Some(GiveUpReason::NotRetryable),
            ..
        })
    ));
}

#[tokio::test(start_paused = true)]
async fn a_hint_longer_than_the_deadline_stops_now_and_carries_the_wait() {
    let t0 = Instant::now();
    let mut l = RetryLoop::new(Backoff::default(), true, t0 + Duration::from_secs(5));
    let step = l.next(
        StepOutcome::Failed {
            class: ErrorClass::RateLimited,
            hint: Some(Duration::from_secs(47)),
            brownout: false,
            advice: None,
        },
        t0,
        |_| panic!("the budget is not asked for a retry that cannot happen"),
        &mut SmallRng::seed_from_u64(1),
    );
    assert_eq!(
        step,
        Step::Done(CallVerdict::Failed {
            class: ErrorClass::RateLimited,
            last: ErrorClass::RateLimited,
            reason: Some(GiveUpReason::DeadlineTooShort {
                wait: Duration::from_secs(47)
            }),
        })
    );
}

#[tokio::test(start_paused = true)]
async fn attempts_run_out_after_max_attempts() {
    let f = failed(ErrorClass::ServerError);
    let (steps, l) = run(&[f, f, f], true);
    assert_eq!(l.attempts(), 3);
    assert!(matches!(
        steps.last(),
        Some(Step::Done(CallVerdict::Failed {
            reason: Some(GiveUpReason::AttemptsExhausted),
            ..
        }))
    ));
    assert_eq!(
        l.sequence(),
        Some((ErrorClass::ServerError, Sequence::Exhausted))
    );
}

#[tokio::test(start_paused = true)]
async fn a_refusal_ends_the_call_with_its_own_class_and_no_attempt() {
    let (steps, l) = run(
        &[StepOutcome::Refused {
            class: ErrorClass::CircuitOpen,
        }],
        true,
    );
    assert_eq!(
        steps[0],
        Step::Done(CallVerdict::Failed {
            class: ErrorClass::CircuitOpen,
            last: ErrorClass::CircuitOpen,
            reason: None,
        })
    );
    assert_eq!(l.attempts(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_breaker_that_opens_during_the_wait_stops_the_retry() {
    let (steps, l) = run(
        &[
            failed(ErrorClass::ServerError),
            StepOutcome::Refused {
                class: ErrorClass::CircuitOpen,
            },
        ],
        true,
    );
    assert_eq!(l.attempts(), 1);
    assert!(matches!(
        steps.last(),
        Some(Step::Done(CallVerdict::Failed {
            class: ErrorClass::CircuitOpen,
            ..
        }))
    ));
    assert_eq!(
        l.sequence(),
        Some((ErrorClass::ServerError, Sequence::Exhausted))
    );
}

#[tokio::test(start_paused = true)]
async fn a_reply_that_advises_against_a_retry_is_not_retried() {
    let advised = StepOutcome::Failed {
        class: ErrorClass::ServerError,
        hint: None,
        brownout: false,
        advice: Some(false),
    };
    let (steps, l) = run(&[advised], true);
    assert_eq!(
        steps[0],
        Step::Done(CallVerdict::Failed {
            class: ErrorClass::ServerError,
            last: ErrorClass::ServerError,
            reason: Some(GiveUpReason::AdvisedAgainst),
        })
    );
    assert_eq!(l.attempts(), 1);
    // The same 503 without the advice is retried.
    let (steps, _) = run(&[failed(ErrorClass::ServerError)], true);
    assert!(matches!(steps[0], Step::Wait(_)));
}

#[tokio::test(start_paused = true)]
async fn a_reply_that_vouches_for_a_retry_is_retried_where_the_class_alone_would_not_be() {
    let vouched = |class| StepOutcome::Failed {
        class,
        hint: None,
        brownout: false,
        advice: Some(true),
    };
    let first_step = |idempotent: bool, outcome: StepOutcome| {
        let t0 = Instant::now();
        let mut l = RetryLoop::new(Backoff::default(), idempotent, t0 + Duration::from_secs(10));
        l.next(outcome, t0, |_| true, &mut SmallRng::seed_from_u64(7))
    };
    // A 5xx on a tool that is not safe to repeat: retried only when the reply vouches.
    assert!(matches!(
        first_step(false, failed(ErrorClass::ServerError)),
        Step::Done(_)
    ));
    assert!(matches!(
        first_step(false, vouched(ErrorClass::ServerError)),
        Step::Wait(_)
    ));
    // A conflict (Stripe's 409 lock timeout) the server says a retry can clear.
    assert!(matches!(
        first_step(true, failed(ErrorClass::ClientError)),
        Step::Done(_)
    ));
    assert!(matches!(
        first_step(false, vouched(ErrorClass::ClientError)),
        Step::Wait(_)
    ));
    // Who may call, and what is gone, do not change because a header says so.
    for class in [
        ErrorClass::Auth,
        ErrorClass::Forbidden,
        ErrorClass::Gone,
        ErrorClass::ContractDrift,
    ] {
        assert!(
            matches!(first_step(true, vouched(class)), Step::Done(_)),
            "{class}"
        );
    }
}
