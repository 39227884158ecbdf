//! The whole retry policy against a full outage (DESIGN.md §10: "upstream
//! requests / agent calls ≤ 1.2 (budget + breaker), not 3 or 243").
//!
//! Drives classify → decide_retry → breaker → budget in the order `retry.rs`
//! documents, on simulated time (no sleeping: `now` is advanced by hand).

use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::time::Instant;

use crate::{
    Admission, Attempt, Backoff, BodyCheck, CircuitBreaker, RetryBudget, RetryDecision, RetryInput,
    classify,
};

const CALLS: u64 = 200;

fn always_503() -> Attempt {
    Attempt::Response {
        status: 503,
        rate_limited: false,
        retry_after: None,
        past_sunset: false,
        body_ok: BodyCheck::Valid,
    }
}

/// Runs `CALLS` agent calls spaced by `spacing`; returns upstream attempts.
fn simulate(spacing: Duration, seed: u64) -> u64 {
    let t0 = Instant::now();
    let backoff = Backoff::default();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut breaker = CircuitBreaker::default();
    let mut budget = RetryBudget::default();
    let mut attempts_total = 0;
    for call in 0..CALLS {
        let deadline = Duration::from_secs(10);
        let start = t0 + spacing * u32::try_from(call).expect("small");
        let mut now = start;
        if let Admission::Rejected { .. } = breaker.admit(now) {
            continue; // fail fast with circuit_open: no upstream request
        }
        budget.record_request(now);
        let mut attempts = 0;
        loop {
            attempts += 1;
            attempts_total += 1;
            now += Duration::from_millis(20); // the attempt itself
            let class = classify(&always_503());
            breaker.record(now, class);
            let Some(class) = class else { break };
            let input = RetryInput {
                class,
                hint: None,
                attempts,
                idempotent: true,
                deadline_left: deadline.saturating_sub(now - start),
            };
            let RetryDecision::RetryAfter(wait) = input.decide(&backoff, &mut rng) else {
                break;
            };
            now += wait;
            if let Admission::Rejected { .. } = breaker.admit(now) {
                break;
            }
            if !budget.try_withdraw(now) {
                break;
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
