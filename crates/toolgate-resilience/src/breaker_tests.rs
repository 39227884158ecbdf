//! Breaker tests on paused time: every instant is `t0 + offset`.

use super::*;
use ErrorClass::*;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn fail_n(b: &mut CircuitBreaker, now: Instant, n: usize) {
    for _ in 0..n {
        assert_eq!(b.admit(now), Admission::Allowed);
        b.record(now, Some(ServerError));
    }
}

fn is_open(b: &CircuitBreaker, now: Instant) -> bool {
    matches!(b.state(now), BreakerState::Open { .. })
}

#[tokio::test(start_paused = true)]
async fn trips_on_five_consecutive_failures() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    fail_n(&mut b, t0, 4);
    assert_eq!(b.state(t0), BreakerState::Closed);
    fail_n(&mut b, t0, 1);
    assert!(is_open(&b, t0));
    assert_eq!(
        b.admit(t0 + secs(1)),
        Admission::Rejected {
            retry_in: secs(14),
            open_since: t0
        }
    );
}

#[tokio::test(start_paused = true)]
async fn a_success_resets_the_run() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    for _ in 0..3 {
        fail_n(&mut b, t0, 4);
        b.record(t0, None);
    }
    assert_eq!(b.state(t0), BreakerState::Closed);
}

#[tokio::test(start_paused = true)]
async fn trips_on_failure_rate_over_min_calls() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    // Alternate failure/success: never 5 in a row, exactly 50 %.
    for i in 0..19u64 {
        let now = t0 + Duration::from_millis(i * 100);
        b.record(now, if i % 2 == 0 { Some(Timeout) } else { None });
    }
    assert_eq!(
        b.state(t0 + secs(2)),
        BreakerState::Closed,
        "19 calls < min_calls"
    );
    b.record(t0 + secs(2), Some(Connect));
    assert!(is_open(&b, t0 + secs(2)), "20 calls, 11 failures");
}

#[tokio::test(start_paused = true)]
async fn failure_rate_forgets_calls_older_than_the_window() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    for _ in 0..10 {
        b.record(t0, Some(Timeout));
        b.record(t0, None);
    }
    // 45 s later the 20 old calls have left the 30 s window.
    let later = t0 + secs(45);
    for _ in 0..4 {
        b.record(later, Some(Timeout));
        b.record(later, None);
    }
    assert_eq!(b.state(later), BreakerState::Closed);
}

#[tokio::test(start_paused = true)]
async fn rate_limited_is_neutral() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    for _ in 0..100 {
        b.record(t0, Some(RateLimited));
    }
    assert_eq!(
        b.state(t0),
        BreakerState::Closed,
        "429s never trip the breaker"
    );
    // Neutral also means it does not break a run of real failures…
    fail_n(&mut b, t0, 2);
    b.record(t0, Some(RateLimited));
    fail_n(&mut b, t0, 3);
    assert!(is_open(&b, t0));
}

#[tokio::test(start_paused = true)]
async fn answers_from_a_working_server_count_as_success() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    for class in [ContractDrift, ClientError, Auth, Gone] {
        fail_n(&mut b, t0, 4);
        b.record(t0, Some(class));
    }
    assert_eq!(b.state(t0), BreakerState::Closed);
}

#[tokio::test(start_paused = true)]
async fn half_open_admits_exactly_one_probe() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    fail_n(&mut b, t0, 5);
    assert!(matches!(b.admit(t0 + secs(14)), Admission::Rejected { .. }));
    let t1 = t0 + secs(15);
    assert_eq!(b.state(t1), BreakerState::HalfOpen);
    assert_eq!(b.admit(t1), Admission::Probe);
    for _ in 0..10 {
        assert!(
            matches!(b.admit(t1 + secs(1)), Admission::Rejected { open_since, .. } if open_since == t0)
        );
    }
    b.record(t1 + secs(1), None);
    assert_eq!(b.state(t1 + secs(1)), BreakerState::Closed);
    assert_eq!(b.admit(t1 + secs(1)), Admission::Allowed);
    assert_eq!(b.down_since(), None);
}

#[tokio::test(start_paused = true)]
async fn failed_probes_double_the_open_time_up_to_five_minutes() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    fail_n(&mut b, t0, 5);
    let mut now = t0;
    let mut seen = vec![];
    for _ in 0..8 {
        let BreakerState::Open { retry_in, down_for } = b.state(now) else {
            panic!("expected open");
        };
        assert_eq!(down_for, now - t0, "outage start is kept across re-opens");
        seen.push(retry_in.as_secs());
        now += retry_in;
        assert_eq!(b.admit(now), Admission::Probe);
        b.record(now, Some(Overloaded));
    }
    assert_eq!(seen, [15, 30, 60, 120, 240, 300, 300, 300]);
    // A successful probe resets the ladder.
    now += secs(300);
    assert_eq!(b.admit(now), Admission::Probe);
    b.record(now, None);
    fail_n(&mut b, now, 5);
    assert!(matches!(b.state(now), BreakerState::Open { retry_in, .. } if retry_in == secs(15)));
}

#[tokio::test(start_paused = true)]
async fn throttled_or_lost_probes_free_the_slot() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    fail_n(&mut b, t0, 5);
    let t1 = t0 + secs(15);
    assert_eq!(b.admit(t1), Admission::Probe);
    b.record(t1, Some(RateLimited));
    assert_eq!(
        b.admit(t1),
        Admission::Probe,
        "a 429 probe proves nothing; probe again"
    );
    // This probe never reports: after probe_timeout another may go.
    assert!(
        matches!(b.admit(t1 + secs(14)), Admission::Rejected { retry_in, .. } if retry_in == secs(1))
    );
    assert_eq!(b.admit(t1 + secs(15)), Admission::Probe);
}

#[tokio::test(start_paused = true)]
async fn stragglers_while_open_are_ignored() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    fail_n(&mut b, t0, 5);
    b.record(t0 + secs(1), None);
    assert!(
        is_open(&b, t0 + secs(1)),
        "a late success must not close an open breaker"
    );
}

#[test]
fn gauge_values() {
    assert_eq!(BreakerState::Closed.as_gauge(), 0);
    let open = BreakerState::Open {
        down_for: secs(3),
        retry_in: Duration::from_millis(1500),
    };
    assert_eq!(open.as_gauge(), 1);
    assert_eq!(BreakerState::HalfOpen.as_gauge(), 2);
}

#[tokio::test(start_paused = true)]
async fn huge_configured_durations_do_not_panic() {
    let t0 = Instant::now();
    let cfg = BreakerConfig {
        open_for: Duration::MAX,
        max_open_for: Duration::MAX,
        probe_timeout: Duration::MAX,
        ..BreakerConfig::default()
    };
    let mut b = CircuitBreaker::new(cfg);
    fail_n(&mut b, t0, 5);
    assert!(matches!(
        b.admit(t0 + secs(3600)),
        Admission::Rejected { .. }
    ));
}

#[tokio::test(start_paused = true)]
async fn an_account_refusal_holds_back_until_a_trial_call_passes() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::for_account(secs(300));
    // Outages, throttles and refused credentials say nothing of the account.
    for class in [ServerError, Timeout, RateLimited, Auth, Overloaded] {
        assert_eq!(b.admit(t0), Admission::Allowed);
        b.record(t0, Some(class));
    }
    assert_eq!(b.state(t0), BreakerState::Closed);
    // One refusal of the account holds back every call for the hold.
    assert_eq!(b.admit(t0), Admission::Allowed);
    b.record(t0, Some(Account));
    assert!(matches!(
        b.admit(t0 + secs(299)),
        Admission::Rejected { retry_in, .. } if retry_in == secs(1)
    ));
    // Then a single trial call; refused again, the hold starts over, no longer.
    assert_eq!(b.admit(t0 + secs(300)), Admission::Probe);
    assert!(matches!(
        b.admit(t0 + secs(300)),
        Admission::Rejected { .. }
    ));
    b.record(t0 + secs(301), Some(Account));
    assert!(matches!(
        b.state(t0 + secs(302)),
        BreakerState::Open { retry_in, .. } if retry_in == secs(299)
    ));
    // A trial the account let through (even a refused argument) ends the hold.
    assert_eq!(b.admit(t0 + secs(601)), Admission::Probe);
    b.record(t0 + secs(601), Some(ClientError));
    assert_eq!(b.state(t0 + secs(601)), BreakerState::Closed);
    assert_eq!(b.admit(t0 + secs(601)), Admission::Allowed);
}

#[tokio::test(start_paused = true)]
async fn an_outage_breaker_ignores_account_refusals() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::default();
    for _ in 0..10 {
        assert_eq!(b.admit(t0), Admission::Allowed);
        b.record(t0, Some(Account));
    }
    assert_eq!(b.state(t0), BreakerState::Closed);
}

#[tokio::test(start_paused = true)]
async fn a_stated_renewal_sooner_than_the_hold_ends_it_sooner() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::for_account(secs(300));
    assert_eq!(b.admit(t0), Admission::Allowed);
    b.record(t0, Some(Account));
    b.reopen_within(t0, secs(20));
    assert!(matches!(b.admit(t0 + secs(19)), Admission::Rejected { .. }));
    assert_eq!(b.admit(t0 + secs(20)), Admission::Probe);
    // Never lengthened, and nothing to shorten while closed.
    let mut c = CircuitBreaker::for_account(secs(300));
    c.reopen_within(t0, secs(1));
    assert_eq!(c.admit(t0), Admission::Allowed);
    c.record(t0, Some(Account));
    c.reopen_within(t0, secs(10_000));
    assert_eq!(c.admit(t0 + secs(300)), Admission::Probe);
}

#[tokio::test(start_paused = true)]
async fn a_changed_hold_applies_to_the_next_hold_not_the_one_in_progress() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::for_account(secs(300));
    assert_eq!(b.admit(t0), Admission::Allowed);
    b.record(t0, Some(Account));
    b.set_hold(secs(60));
    // The hold in progress keeps its end: neither shortened nor lengthened.
    assert!(matches!(
        b.admit(t0 + secs(299)),
        Admission::Rejected { retry_in, .. } if retry_in == secs(1)
    ));
    // Refused again at the trial: the next hold is the new length.
    assert_eq!(b.admit(t0 + secs(300)), Admission::Probe);
    b.record(t0 + secs(300), Some(Account));
    assert!(matches!(
        b.state(t0 + secs(300)),
        BreakerState::Open { retry_in, .. } if retry_in == secs(60)
    ));
    // Lengthened while closed: the first hold is the new length too.
    let mut c = CircuitBreaker::for_account(secs(300));
    c.set_hold(secs(3600));
    assert_eq!(c.admit(t0), Admission::Allowed);
    c.record(t0, Some(Account));
    assert!(matches!(
        c.state(t0),
        BreakerState::Open { retry_in, .. } if retry_in == secs(3600)
    ));
}

#[tokio::test(start_paused = true)]
async fn a_hold_told_by_the_fleet_is_held_to_its_end_and_released_when_told() {
    let t0 = Instant::now();
    let mut b = CircuitBreaker::for_account(secs(300));
    b.hold_for(t0, secs(40));
    assert!(matches!(
        b.admit(t0 + secs(39)),
        Admission::Rejected { retry_in, .. } if retry_in == secs(1)
    ));
    // A sooner end never shortens a later one already held.
    b.hold_for(t0 + secs(1), secs(5));
    assert!(matches!(b.admit(t0 + secs(10)), Admission::Rejected { .. }));
    // After the end, this replica's own single trial.
    assert_eq!(b.admit(t0 + secs(40)), Admission::Probe);
    assert!(matches!(b.admit(t0 + secs(40)), Admission::Rejected { .. }));
    b.release();
    assert_eq!(b.admit(t0 + secs(40)), Admission::Allowed);
    // Released, it learns the next answer as a closed breaker: refused, held again.
    b.record(t0 + secs(41), Some(Account));
    assert!(matches!(
        b.state(t0 + secs(41)),
        BreakerState::Open { retry_in, .. } if retry_in == secs(300)
    ));
}

#[test]
fn the_account_verdict_says_refused_passed_or_nothing() {
    assert_eq!(account_verdict(Some(Account)), Some(false));
    for passed in [
        None,
        Some(ClientError),
        Some(ContractDrift),
        Some(Gone),
        Some(ToolError),
    ] {
        assert_eq!(account_verdict(passed), Some(true), "{passed:?}");
    }
    for nothing in [
        ServerError,
        Timeout,
        RateLimited,
        Auth,
        Overloaded,
        CircuitOpen,
    ] {
        assert_eq!(account_verdict(Some(nothing)), None, "{nothing:?}");
    }
}
