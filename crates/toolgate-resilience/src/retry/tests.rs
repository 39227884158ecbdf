use super::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn input(class: ErrorClass) -> RetryInput {
    RetryInput {
        class,
        hint: None,
        attempts: 1,
        idempotent: true,
        vouched: false,
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
                vouched: false,
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
                vouched: false,
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
