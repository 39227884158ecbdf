use super::*;

fn state() -> DependencyState {
    DependencyState::new(std::sync::Arc::new(crate::fixtures::dependency(
        "api",
        "http://127.0.0.1:9",
    )))
}

/// The fixture's `account_hold`, the default.
const HOLD: Duration = Duration::from_secs(300);

fn go(gate: Gate<'_>) -> Admitted<'_> {
    match gate {
        Gate::Go(p) => p,
        other => panic!("expected Go, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn concurrency_is_limited_only_during_a_brownout() {
    let dep = state();
    let t0 = Instant::now();
    let mut now = t0;
    // A healthy baseline of 10 ms.
    calls(&dep, &mut now, 40, 10);
    // Healthy: far more concurrent calls than the limit are let through.
    let held: Vec<_> = (0..100)
        .map(|_| go(dep.gate(now, Duration::from_secs(5), true)))
        .collect();
    for p in held {
        p.settle(now, None, Some(Duration::from_millis(10)), None);
    }
    // Latency ×5: a brownout.
    calls(&dep, &mut now, 20, 50);
    assert!(dep.in_brownout());
    // Now concurrent calls beyond the limit wait, or fail fast when they cannot.
    let mut held = Vec::new();
    let waited = loop {
        match dep.gate(now, Duration::from_secs(5), true) {
            Gate::Go(p) => held.push(p),
            Gate::Wait(d) => break d,
            other => panic!("unexpected {other:?}"),
        }
        assert!(held.len() < 200, "the limit must hold calls back");
    };
    assert_eq!(waited, LIMIT_POLL);
    assert!(matches!(
        dep.gate(now, Duration::from_millis(5), true),
        Gate::Saturated { .. }
    ));
    for p in held {
        p.settle(now, None, Some(Duration::from_millis(50)), None);
    }
}

/// Sequential calls 100 ms apart, each taking `latency_ms`.
fn calls(dep: &DependencyState, now: &mut Instant, n: usize, latency_ms: u64) {
    for _ in 0..n {
        let p = go(dep.gate(*now, Duration::from_secs(5), true));
        *now += Duration::from_millis(100);
        p.settle(*now, None, Some(Duration::from_millis(latency_ms)), None);
    }
}

#[tokio::test(start_paused = true)]
async fn cancelled_attempts_give_their_slots_back() {
    let dep = state();
    let mut now = Instant::now();
    calls(&dep, &mut now, 40, 10);
    calls(&dep, &mut now, 20, 50);
    assert!(dep.in_brownout());
    // Fill the limit, then drop every attempt unsettled (clients went away).
    let mut held = Vec::new();
    while let Gate::Go(p) = dep.gate(now, Duration::from_secs(5), true) {
        held.push(p);
        assert!(held.len() < 200, "the limit must hold calls back");
    }
    let limit = held.len();
    assert!(limit > 0);
    drop(held);
    // The whole limit is free again.
    let again: Vec<_> = (0..limit)
        .map(|_| go(dep.gate(now, Duration::from_secs(5), true)))
        .collect();
    assert_eq!(again.len(), limit);
    assert_eq!(lock(&dep.inner).pacer.in_flight(), limit as u64);
    drop(again);
    assert_eq!(lock(&dep.inner).pacer.in_flight(), 0);
    assert_eq!(lock(&dep.inner).limit.in_flight(), 0);
}

#[tokio::test(start_paused = true)]
async fn without_shared_state_the_fleet_gate_is_the_local_gate() {
    let dep = state();
    assert!(dep.fleet_budget_totals().is_none());
    let now = Instant::now();
    // The local pacer admits and counts the attempt: no fleet is involved.
    let p = go(dep.gate_fleet(now, Duration::from_secs(5), true).await);
    assert_eq!(p.fleet_probe, None);
    assert_eq!(lock(&dep.inner).pacer.in_flight(), 1);
    p.settle(now, None, Some(Duration::from_millis(1)), None);
    assert_eq!(lock(&dep.inner).pacer.in_flight(), 0);
    // And the local breaker decides.
    for _ in 0..5 {
        go(dep.gate_fleet(now, Duration::from_secs(5), true).await).settle(
            now,
            None,
            None,
            Some(ErrorClass::ServerError),
        );
    }
    assert!(matches!(
        dep.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::CircuitOpen { .. }
    ));
}

#[tokio::test(start_paused = true)]
async fn an_upstream_inventing_policy_names_cannot_grow_the_state() {
    let dep = state();
    let now = Instant::now();
    for i in 0..100 {
        let signals = Signals {
            quota: vec![Quota {
                policy: format!("p{i}"),
                limit: Some(10),
                remaining: Some(5),
                reset_after: Some(Duration::from_secs(60)),
                window: None,
            }],
            ..Signals::default()
        };
        go(dep.gate(now, Duration::from_secs(5), true)).settle(now, Some(&signals), None, None);
    }
    let snap = dep.snapshot(now);
    assert_eq!(snap.quotas.len(), MAX_POLICIES);
    assert!(
        snap.quotas.iter().any(|q| q.policy == "p99"),
        "the newest is kept"
    );
}

#[tokio::test(start_paused = true)]
async fn every_reply_lands_in_the_hour_of_minutes_with_the_baseline_it_left() {
    let dep = state();
    let t0 = Instant::now();
    let mut now = t0;
    // 40 calls of 10 ms, 100 ms apart: one minute, and a baseline learned.
    calls(&dep, &mut now, 40, 10);
    // Three minutes later, a slow minute with a failure.
    now = t0 + Duration::from_secs(180);
    calls(&dep, &mut now, 5, 60);
    go(dep.gate(now, Duration::from_secs(5), true)).settle(
        now,
        None,
        Some(Duration::from_millis(500)),
        Some(ErrorClass::ServerError),
    );
    let minutes = dep.latency_history(now);
    assert_eq!(minutes.len(), toolgate_resilience::HISTORY_MINUTES);
    let seen: Vec<_> = minutes.iter().flatten().collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!((seen[0].ago_min, seen[0].calls, seen[0].failed), (3, 40, 0));
    assert_eq!(seen[0].mean_ms, Some(10.0));
    assert_eq!(seen[0].baseline_ms, Some(10.0));
    assert_eq!((seen[1].ago_min, seen[1].calls, seen[1].failed), (0, 6, 1));
    assert_eq!(
        seen[1].mean_ms,
        Some(60.0),
        "the failure is not in the mean"
    );
    assert!(seen[1].baseline_ms.is_some_and(|b| b < 20.0), "{seen:?}");
    // An attempt that got no reply (a timeout) is not a latency sample.
    go(dep.gate(now, Duration::from_secs(5), true)).settle(
        now,
        None,
        None,
        Some(ErrorClass::Timeout),
    );
    assert_eq!(dep.latency_history(now)[59].unwrap().calls, 6);
}

#[tokio::test(start_paused = true)]
async fn a_success_asking_to_back_off_paces_the_next_call() {
    let dep = state();
    let now = Instant::now();
    // Stack Exchange's answer: the data, and `backoff: 10` before the same call again.
    let answer = Signals {
        retry_after: Some(Duration::from_secs(10)),
        next_call_after: Some(Duration::from_secs(10)),
        ..Signals::default()
    };
    go(dep.gate(now, Duration::from_secs(30), true)).settle(
        now,
        Some(&answer),
        Some(Duration::from_millis(20)),
        None,
    );
    // A call with time to spare is held until the wait is over.
    match dep.gate(now, Duration::from_secs(30), true) {
        Gate::Wait(d) | Gate::Queued { wait: d, .. } => {
            assert_eq!(d, Duration::from_secs(10));
        }
        other => panic!("expected the call to be held, got {other:?}"),
    }
    // A call whose deadline ends first is told, not sent.
    assert!(matches!(
        dep.gate(now, Duration::from_secs(3), true),
        Gate::QuotaExhausted { .. }
    ));
    // Once the wait is over, calls go again.
    let later = now + Duration::from_secs(11);
    go(dep.gate(later, Duration::from_secs(30), true)).settle(later, None, None, None);
}

#[tokio::test(start_paused = true)]
async fn a_successful_retry_after_header_does_not_pace() {
    // A 202's Retry-After is the operation's polling interval, not a limit on calls.
    let dep = state();
    let now = Instant::now();
    let accepted = Signals {
        retry_after: Some(Duration::from_secs(10)),
        ..Signals::default()
    };
    go(dep.gate(now, Duration::from_secs(30), true)).settle(now, Some(&accepted), None, None);
    go(dep.gate(now, Duration::from_secs(30), true)).settle(now, None, None, None);
}

#[tokio::test(start_paused = true)]
async fn a_refused_account_holds_calls_back_with_one_trial_at_a_time() {
    let dep = state();
    let t0 = Instant::now();
    let deadline = Duration::from_secs(5);
    // Outages and refused credentials hold nothing back on their own.
    go(dep.gate(t0, deadline, true)).settle(t0, None, None, Some(ErrorClass::Auth));
    go(dep.gate(t0, deadline, true)).settle(t0, None, None, Some(ErrorClass::ServerError));
    // One refusal of the account, stating no renewal: held for the default hold.
    go(dep.gate(t0, deadline, true)).settle(t0, None, None, Some(ErrorClass::Account));
    let held = |now| match dep.gate(now, deadline, true) {
        Gate::AccountHeld { retry_in } => Some(retry_in),
        Gate::Go(a) => {
            a.unsent();
            None
        }
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(
        held(t0 + Duration::from_secs(1)),
        Some(HOLD - Duration::from_secs(1))
    );
    assert!(dep.snapshot(t0).account_held.is_some());
    assert!(dep.snapshot(t0).to_json()["account_held"]["retry_in_s"].is_u64());
    // The hold over, a single trial goes; a second call meanwhile is held.
    let later = t0 + HOLD;
    let trial = go(dep.gate(later, deadline, true));
    assert!(held(later).is_some());
    // Refused again with a stated renewal: held until then, when it is sooner.
    let renewal = Signals {
        retry_after: Some(Duration::from_secs(40)),
        ..Signals::default()
    };
    trial.settle(later, Some(&renewal), None, Some(ErrorClass::Account));
    assert_eq!(held(later), Some(Duration::from_secs(40)));
    // The next trial passes: the hold ends at once.
    let after = later + Duration::from_secs(40);
    go(dep.gate(after, deadline, true)).settle(after, None, None, None);
    assert_eq!(held(after), None);
    assert!(dep.snapshot(after).account_held.is_none());
}

#[tokio::test(start_paused = true)]
async fn a_renewal_later_than_the_hold_is_told_but_trials_still_go() {
    let dep = state();
    let t0 = Instant::now();
    let deadline = Duration::from_secs(5);
    let month = Signals {
        retry_after: Some(Duration::from_secs(20 * 3600)),
        ..Signals::default()
    };
    go(dep.gate(t0, deadline, true)).settle(t0, Some(&month), None, Some(ErrorClass::Account));
    match dep.gate(t0, deadline, true) {
        Gate::AccountHeld { retry_in } => assert_eq!(retry_in, Duration::from_secs(20 * 3600)),
        other => panic!("unexpected {other:?}"),
    }
    // A trial goes after the hold, in case the owner acted sooner.
    go(dep.gate(t0 + HOLD, deadline, true)).settle(t0 + HOLD, None, None, None);
    assert!(matches!(dep.gate(t0 + HOLD, deadline, true), Gate::Go(_)));
}

fn state_holding(hold: Duration) -> DependencyState {
    let mut spec = crate::fixtures::dependency("api", "http://127.0.0.1:9");
    spec.account_hold = hold;
    DependencyState::new(std::sync::Arc::new(spec))
}

/// What a call at `now` is told while held (`None`: it may go, and is not sent).
fn held_for(dep: &DependencyState, now: Instant) -> Option<Duration> {
    match dep.gate(now, Duration::from_secs(5), true) {
        Gate::AccountHeld { retry_in } => Some(retry_in),
        Gate::Go(a) => {
            a.unsent();
            None
        }
        other => panic!("unexpected {other:?}"),
    }
}

fn refuse_account(dep: &DependencyState, now: Instant, retry_after: Option<Duration>) {
    let said = Signals {
        retry_after,
        ..Signals::default()
    };
    go(dep.gate(now, Duration::from_secs(5), true)).settle(
        now,
        Some(&said),
        None,
        Some(ErrorClass::Account),
    );
}

#[tokio::test(start_paused = true)]
async fn the_configured_hold_is_how_long_calls_are_held_between_trials() {
    let t0 = Instant::now();
    for hold in [
        Duration::from_secs(1),
        Duration::from_secs(90),
        Duration::from_secs(86_400),
    ] {
        let dep = state_holding(hold);
        refuse_account(&dep, t0, None);
        assert_eq!(held_for(&dep, t0), Some(hold), "{hold:?}");
        assert_eq!(
            dep.snapshot(t0).to_json()["account_held"]["retry_in_s"],
            hold.as_secs()
        );
        // Just before the end still held; at the end, one trial.
        assert!(held_for(&dep, t0 + hold - Duration::from_millis(1)).is_some());
        let trial = go(dep.gate(t0 + hold, Duration::from_secs(5), true));
        assert!(
            held_for(&dep, t0 + hold).is_some(),
            "a second trial meanwhile"
        );
        // Refused again: the next hold is the same length.
        trial.settle(t0 + hold, None, None, Some(ErrorClass::Account));
        assert_eq!(held_for(&dep, t0 + hold), Some(hold));
    }
}

#[tokio::test(start_paused = true)]
async fn a_stated_renewal_ends_the_hold_only_when_sooner_and_not_absurdly_soon() {
    let t0 = Instant::now();
    let hold = Duration::from_secs(600);
    let secs = Duration::from_secs;
    // (stated, held until the trial, told)
    let cases = [
        (Some(secs(30)), secs(30), secs(30)),
        (Some(secs(599)), secs(599), secs(599)),
        (Some(secs(600)), secs(600), secs(600)),
        (Some(secs(7200)), secs(600), secs(7200)),
        (Some(secs(40 * 86_400)), secs(600), secs(40 * 86_400)),
        (Some(Duration::ZERO), secs(600), secs(600)),
        (Some(Duration::from_millis(300)), secs(600), secs(600)),
        (None, secs(600), secs(600)),
    ];
    for (stated, until_trial, told) in cases {
        let dep = state_holding(hold);
        refuse_account(&dep, t0, stated);
        assert_eq!(held_for(&dep, t0), Some(told), "{stated:?}");
        assert!(
            held_for(&dep, t0 + until_trial - Duration::from_millis(1)).is_some(),
            "{stated:?}"
        );
        go(dep.gate(t0 + until_trial, Duration::from_secs(5), true)).settle(
            t0 + until_trial,
            None,
            None,
            None,
        );
        assert_eq!(held_for(&dep, t0 + until_trial), None, "{stated:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_reloaded_hold_applies_to_the_next_hold_and_keeps_the_one_in_progress() {
    let t0 = Instant::now();
    let dep = state_holding(Duration::from_secs(300));
    refuse_account(&dep, t0, None);
    dep.set_account_hold(Duration::from_secs(30));
    // The hold in progress keeps its end.
    assert_eq!(
        held_for(&dep, t0 + Duration::from_secs(100)),
        Some(Duration::from_secs(200))
    );
    let at = t0 + Duration::from_secs(300);
    go(dep.gate(at, Duration::from_secs(5), true)).settle(
        at,
        None,
        None,
        Some(ErrorClass::Account),
    );
    assert_eq!(held_for(&dep, at), Some(Duration::from_secs(30)));
    // Lengthened while nothing is held: the next hold is the longer one.
    let dep = state_holding(Duration::from_secs(30));
    dep.set_account_hold(Duration::from_secs(3600));
    refuse_account(&dep, t0, None);
    assert_eq!(held_for(&dep, t0), Some(Duration::from_secs(3600)));
}

/// A dependency called with each caller's own authority (`token_exchange`).
fn state_with_each_callers_credentials() -> DependencyState {
    let mut spec = crate::fixtures::dependency("api", "http://127.0.0.1:9");
    spec.token_exchange = Some(crate::fixtures::token_exchange());
    DependencyState::new(std::sync::Arc::new(spec))
}

/// A 429 saying the caller's window is used up: none of 100 left, back in 30 s.
fn used_up_window() -> Signals {
    Signals {
        rate_limited: true,
        retry_after: Some(Duration::from_secs(30)),
        quota: vec![Quota {
            policy: "default".into(),
            limit: Some(100),
            remaining: Some(0),
            reset_after: Some(Duration::from_secs(30)),
            window: None,
        }],
        ..Signals::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_throttle_met_with_one_callers_own_credentials_holds_back_no_other_caller() {
    let dep = state_with_each_callers_credentials();
    let now = Instant::now();
    let deadline = Duration::from_secs(60);
    // One user's window is used up: that call is told its own wait.
    let told = go(dep.gate(now, deadline, true)).settle(
        now,
        Some(&used_up_window()),
        Some(Duration::from_millis(20)),
        Some(ErrorClass::RateLimited),
    );
    assert_eq!(told, Some(Duration::from_secs(30)));
    // Another user's call goes at once: that window is not theirs.
    go(dep.gate(now, deadline, true)).settle(now, None, Some(Duration::from_millis(20)), None);
    // Nor does anyone read it in the dependency's state.
    let seen = dep.snapshot(now);
    assert!(seen.quotas.is_empty(), "{:?}", seen.quotas);
    assert_eq!(seen.throttled, None);
    assert!(
        seen.to_json()["quota"]
            .as_array()
            .is_some_and(|q| q.is_empty())
    );
}

#[tokio::test(start_paused = true)]
async fn a_throttle_met_with_the_one_shared_credential_holds_back_every_caller() {
    let dep = state();
    let now = Instant::now();
    let deadline = Duration::from_secs(60);
    go(dep.gate(now, deadline, true)).settle(
        now,
        Some(&used_up_window()),
        Some(Duration::from_millis(20)),
        Some(ErrorClass::RateLimited),
    );
    match dep.gate(now, deadline, true) {
        Gate::Wait(d) | Gate::Queued { wait: d, .. } => assert_eq!(d, Duration::from_secs(30)),
        other => panic!("expected the next call to be held, got {other:?}"),
    }
    assert_eq!(dep.snapshot(now).quotas.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_refused_account_of_one_callers_own_credentials_holds_back_no_other_caller() {
    let dep = state_with_each_callers_credentials();
    let now = Instant::now();
    refuse_account(&dep, now, Some(Duration::from_secs(3600)));
    assert_eq!(held_for(&dep, now), None);
    assert!(dep.snapshot(now).account_held.is_none());
}
