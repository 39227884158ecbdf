//! The whole retry policy against a full outage: upstream requests per agent call must
//! stay at or below 1.2 with the budget and the breaker, where retries alone would
//! make it 3.
//!
//! Drives the same [`RetryLoop`] the gateway's pipeline runs, with a real breaker and
//! budget as admission and budget, on simulated time (no sleeping: `now` is advanced
//! by hand).

use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::time::Instant;

use crate::{
    Admission, Attempt, Backoff, BodyCheck, CircuitBreaker, ErrorClass, RetryBudget, RetryDecision,
    RetryInput, RetryLoop, Said, Step, StepOutcome, classify,
};

const CALLS: u64 = 200;

fn always_503() -> Attempt {
    Attempt::Response {
        status: 503,
        rate_limited: false,
        retry_after: None,
        past_sunset: false,
        body_ok: BodyCheck::Valid,
        said: Said::Nothing,
    }
}

/// Runs `CALLS` agent calls spaced by `spacing`; returns upstream attempts.
fn simulate(spacing: Duration, seed: u64) -> u64 {
    let t0 = Instant::now();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut breaker = CircuitBreaker::default();
    let mut budget = RetryBudget::default();
    let mut attempts_total = 0;
    for call in 0..CALLS {
        let start = t0 + spacing * u32::try_from(call).expect("small");
        let mut now = start;
        let mut call_loop =
            RetryLoop::new(Backoff::default(), true, start + Duration::from_secs(10));
        let mut outcome: Option<StepOutcome> = None;
        loop {
            let step = match outcome.take() {
                None => Step::Attempt,
                Some(o) => call_loop.next(o, now, |t| budget.try_withdraw(t), &mut rng),
            };
            match step {
                Step::Attempt => {
                    // Admission, as the pipeline's: the breaker first; first attempts
                    // earn retry budget.
                    if let Admission::Rejected { .. } = breaker.admit(now) {
                        outcome = Some(StepOutcome::Refused {
                            class: ErrorClass::CircuitOpen,
                        });
                        continue;
                    }
                    if call_loop.attempts() == 0 {
                        budget.record_request(now);
                    }
                    attempts_total += 1;
                    now += Duration::from_millis(20); // the attempt itself
                    let class = classify(&always_503());
                    breaker.record(now, class);
                    outcome = Some(match class {
                        None => StepOutcome::Success,
                        Some(class) => StepOutcome::Failed {
                            class,
                            hint: None,
                            brownout: false,
                            advice: None,
                        },
                    });
                }
                Step::Wait(d) => {
                    now += d;
                    outcome = Some(StepOutcome::Waited);
                }
                Step::Done(_) => break,
            }
        }
    }
    attempts_total
}

#[tokio::test(start_paused = true)]
async fn full_outage_costs_at_most_1_2_requests_per_call() {
    for spacing_ms in [1, 10, 100, 250, 1000, 5000] {
        for seed in 0..5 {
            let attempts = simulate(Duration::from_millis(spacing_ms), seed);
            assert!(
                attempts * 10 <= CALLS * 12,
                "spacing {spacing_ms} ms, seed {seed}: {attempts} attempts for {CALLS} calls"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn without_the_policy_it_would_be_three_per_call() {
    // The contrast the bar is about: retries alone multiply load.
    let backoff = Backoff::default();
    let mut rng = SmallRng::seed_from_u64(1);
    let mut attempts_total = 0;
    for _ in 0..CALLS {
        let mut attempts = 0;
        loop {
            attempts += 1;
            attempts_total += 1;
            let input = RetryInput {
                class: crate::ErrorClass::ServerError,
                hint: None,
                attempts,
                idempotent: true,
                vouched: false,
                deadline_left: Duration::from_secs(10),
            };
            if !matches!(
                input.decide(&backoff, &mut rng),
                RetryDecision::RetryAfter(_)
            ) {
                break;
            }
        }
    }
    assert_eq!(attempts_total, 3 * CALLS);
}
