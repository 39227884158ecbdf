//! Cost of the per-call resilience decisions, each paid at least once per upstream
//! attempt (most under the dependency's mutex): `classify`, `decide_retry`, the circuit
//! breaker's `admit`/`record`, the quota pacer's `admit` (+ `complete`), and the latency
//! window's `record` (and `snapshot`, which every call's `_meta` and notes read).
//!
//! Time is simulated: a fixed base `Instant` plus a step per iteration, so the windows
//! evict and fill as under steady load (here 1 call per 100 µs = 10 k calls/s).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::time::Instant;
use toolgate_resilience::{
    Attempt, Backoff, BodyCheck, CircuitBreaker, ErrorClass, LatencyWindow, Pace, QuotaPacer, Said,
    classify, decide_retry,
};

const STEP: Duration = Duration::from_micros(100);

fn bench_classify(c: &mut Criterion) {
    let mut g = c.benchmark_group("classify");
    let cases = [
        (
            "ok_200",
            Attempt::Response {
                status: 200,
                rate_limited: false,
                retry_after: None,
                past_sunset: false,
                body_ok: BodyCheck::Valid,
                said: Said::Nothing,
            },
        ),
        (
            "drift_200",
            Attempt::Response {
                status: 200,
                rate_limited: false,
                retry_after: None,
                past_sunset: false,
                body_ok: BodyCheck::SchemaMismatch,
                said: Said::Nothing,
            },
        ),
        (
            "overloaded_503_retry_after",
            Attempt::Response {
                status: 503,
                rate_limited: false,
                retry_after: Some(Duration::from_secs(2)),
                past_sunset: false,
                body_ok: BodyCheck::Valid,
                said: Said::Nothing,
            },
        ),
        (
            "rate_limited_429",
            Attempt::Response {
                status: 429,
                rate_limited: true,
                retry_after: Some(Duration::from_secs(1)),
                past_sunset: false,
                body_ok: BodyCheck::Valid,
                said: Said::Nothing,
            },
        ),
        ("timeout", Attempt::Timeout),
    ];
    for (name, attempt) in &cases {
        g.bench_function(*name, |b| b.iter(|| classify(black_box(attempt))));
    }
    g.finish();
}

fn bench_decide_retry(c: &mut Criterion) {
    let mut g = c.benchmark_group("decide_retry");
    let backoff = Backoff::default();
    let mut rng = SmallRng::seed_from_u64(7);
    let cases = [
        ("server_error_backoff", ErrorClass::ServerError, None, 1),
        (
            "overloaded_hint",
            ErrorClass::Overloaded,
            Some(Duration::from_secs(2)),
            1,
        ),
        ("contract_drift_give_up", ErrorClass::ContractDrift, None, 1),
        ("attempts_exhausted", ErrorClass::Timeout, None, 3),
    ];
    for (name, class, hint, attempts) in cases {
        g.bench_function(name, |b| {
            b.iter(|| {
                decide_retry(
                    black_box(class),
                    black_box(hint),
                    black_box(attempts),
                    true,
                    Duration::from_secs(25),
                    &backoff,
                    &mut rng,
                )
            })
        });
    }
    g.finish();
}

fn bench_breaker(c: &mut Criterion) {
    let mut g = c.benchmark_group("breaker");
    // The steady state of a healthy dependency: closed, every call a success.
    g.bench_function("admit_record_success", |b| {
        let mut breaker = CircuitBreaker::default();
        let mut now = Instant::now();
        b.iter(|| {
            now += STEP;
            let a = breaker.admit(black_box(now));
            breaker.record(now, None);
            a
        })
    });
    // A flaky dependency: 1 call in 10 fails (below the trip rate; counts window kept busy).
    g.bench_function("admit_record_10pct_failures", |b| {
        let mut breaker = CircuitBreaker::default();
        let mut now = Instant::now();
        let mut i = 0u32;
        b.iter(|| {
            now += STEP;
            i = i.wrapping_add(1);
            let a = breaker.admit(black_box(now));
            let outcome = (i.is_multiple_of(10)).then_some(ErrorClass::ServerError);
            breaker.record(now, outcome);
            a
        })
    });
    // Open: admission is refused without touching the window.
    g.bench_function("admit_open", |b| {
        let mut breaker = CircuitBreaker::default();
        let now = Instant::now();
        for _ in 0..5 {
            let _ = breaker.admit(now);
            breaker.record(now, Some(ErrorClass::ServerError));
        }
        b.iter(|| breaker.admit(black_box(now + Duration::from_secs(1))))
    });
    g.finish();
}

fn bench_pacer(c: &mut Criterion) {
    let mut g = c.benchmark_group("pacer");
    // No advertisement (the upstream sends no rate-limit headers): everything goes.
    g.bench_function("admit_complete_no_quota", |b| {
        let mut pacer = QuotaPacer::default();
        let mut now = Instant::now();
        b.iter(|| {
            now += STEP;
            let p = pacer.admit(black_box(now), Duration::from_secs(30));
            pacer.complete(now, None);
            p
        })
    });
    // A generous advertised quota (GCRA spacing active, never waiting).
    g.bench_function("admit_complete_with_quota", |b| {
        let mut pacer = QuotaPacer::default();
        let mut now = Instant::now();
        let quota = toolgate_resilience::Quota {
            remaining: 1_000_000_000,
            limit: Some(1_000_000_000),
            reset_after: Duration::from_secs(3600),
        };
        pacer.observe(now, quota);
        b.iter(|| {
            now += STEP;
            let p = pacer.admit(black_box(now), Duration::from_secs(30));
            if p == Pace::Go {
                pacer.complete(now, None);
            }
            p
        })
    });
    g.finish();
}

fn bench_latency(c: &mut Criterion) {
    let mut g = c.benchmark_group("latency_window");
    // Full window (512 samples within 30 s at 10 k calls/s): each record evicts one.
    let filled = || {
        let mut w = LatencyWindow::default();
        let mut now = Instant::now();
        for i in 0..1024u64 {
            now += STEP;
            w.record(now, Duration::from_micros(400 + (i * 37) % 300), true);
        }
        (w, now)
    };
    g.bench_function("record_full_window", |b| {
        let (mut w, mut now) = filled();
        let mut i = 0u64;
        b.iter(|| {
            now += STEP;
            i = i.wrapping_add(1);
            w.record(
                black_box(now),
                Duration::from_micros(400 + (i * 37) % 300),
                true,
            );
        })
    });
    // What every call's `_meta` / notes read (DependencyState::snapshot → this).
    g.bench_function("snapshot_full_window", |b| {
        let (w, now) = filled();
        b.iter(|| w.snapshot(black_box(now)))
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_classify,
    bench_decide_retry,
    bench_breaker,
    bench_pacer,
    bench_latency
);
criterion_main!(benches);
