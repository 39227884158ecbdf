use super::*;
use toolgate_config::RetryPolicy;

fn state() -> DependencyState {
    DependencyState::new(std::sync::Arc::new(Dependency {
        name: "api".into(),
        base_url: url::Url::parse("http://127.0.0.1:9").unwrap(),
        headers: vec![],
        timeout: Duration::from_secs(1),
        retry: RetryPolicy::default(),
        flavour: toolgate_signals::Flavour::Auto,
        status_page: None,
        version: None,
        secrets: Vec::new(),
    }))
}

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
