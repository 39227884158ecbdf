//! The shared state against a real redis-server: two `DependencyState`s, each with a
//! `Shared` of its own on one Redis, are two replicas.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::gauge::Gauge;
use tokio::time::Instant;
use toolgate_resilience::{BreakerConfig, ErrorClass};
use toolgate_signals::{Quota, Signals};

use super::*;
use crate::dependency::{DependencyState, Gate};
use toolgate_config::Dependency;
use toolgate_test_support::RedisServer;

fn spec() -> Arc<Dependency> {
    Arc::new(crate::fixtures::dependency("api", "http://127.0.0.1:9"))
}

pub(super) fn breaker() -> BreakerConfig {
    BreakerConfig {
        open_for: Duration::from_millis(300),
        max_open_for: Duration::from_millis(600),
        ..BreakerConfig::default()
    }
}

pub(super) struct Replica {
    pub(super) state: DependencyState,
    pub(super) shared: Shared,
    pub(super) gauge: Gauge,
}

pub(super) fn replica(redis: &RedisServer) -> Replica {
    replica_with(redis, breaker(), spec())
}

/// A replica of dependency `spec` on `redis`, with the fleet's breaker timings `breaker`.
fn replica_with(redis: &RedisServer, breaker: BreakerConfig, spec: Arc<Dependency>) -> Replica {
    let gauge = Gauge::default();
    let shared =
        Shared::start_with(&redis.url(), Some("test"), gauge.clone(), "t:", breaker).unwrap();
    Replica {
        state: DependencyState::with_shared(spec, Some(shared.clone())),
        shared,
        gauge,
    }
}

/// Five failures seen by `a` alone, and the fleet's breaker opened by them.
pub(super) async fn five_failures_open_the_fleets_breaker(a: &Replica, redis: &RedisServer) {
    let now = Instant::now();
    for _ in 0..5 {
        let Gate::Go(p) = a.state.gate_fleet(now, Duration::from_secs(5), true).await else {
            panic!("closed");
        };
        p.settle(now, None, None, Some(ErrorClass::ServerError));
    }
    eventually("the fleet's breaker opens", || {
        redis
            .command("HEXISTS t:{api}:breaker until")
            .starts_with(":1")
    })
    .await;
}

/// Waits (bounded) until `cond` holds; the bound is generous so a slow machine
/// cannot fail it, and the assertion is on the condition, not on the time.
pub(super) async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(15);
    while !cond() {
        assert!(Instant::now() < until, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn advert(remaining: u64, limit: u64, reset: Duration) -> Signals {
    Signals {
        quota: vec![Quota {
            policy: "core".into(),
            limit: Some(limit),
            remaining: Some(remaining),
            reset_after: Some(reset),
            window: None,
        }],
        ..Signals::default()
    }
}

fn quota_of(redis: &RedisServer) -> String {
    redis.command("HGET t:{api}:quota core")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_is_taken_once_across_replicas_on_the_redis_clock() {
    let redis = RedisServer::start();
    let (a, b) = (replica(&redis), replica(&redis));
    eventually("both replicas share", || {
        a.shared.is_up() && b.shared.is_up()
    })
    .await;
    assert_eq!(a.gauge.get(), 1);
    let now = Instant::now();
    // Replica A's one call learns: 10 left of 10, resetting in 2 s.
    let Gate::Go(first) = a.state.gate_fleet(now, Duration::from_secs(30), true).await else {
        panic!("the first call goes");
    };
    first.settle(
        now,
        Some(&advert(10, 10, Duration::from_secs(2))),
        None,
        None,
    );
    eventually("the advert reaches Redis", || {
        quota_of(&redis).contains("10:")
    })
    .await;
    // B's clock is an hour ahead: by it, the window would long be over. Redis's clock
    // is the one that counts, so B obeys the same budget.
    let skewed = now + Duration::from_secs(3600);
    let mut held = Vec::new();
    let mut refused = 0;
    for i in 0..30 {
        let (state, at) = if i % 2 == 0 {
            (&a.state, now)
        } else {
            (&b.state, skewed)
        };
        match state.gate_fleet(at, Duration::from_secs(30), true).await {
            Gate::Go(p) => held.push(p),
            Gate::Wait(d) => {
                assert!(d <= Duration::from_secs(3) && d > Duration::ZERO, "{d:?}");
                refused += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    // 10 left, 1 kept in reserve: 9 across both replicas, not 9 each.
    assert_eq!(held.len(), 9);
    assert_eq!(refused, 21);
    // A deadline shorter than the reset fails fast instead of waiting.
    assert!(matches!(
        b.state
            .gate_fleet(skewed, Duration::from_millis(100), true)
            .await,
        Gate::QuotaExhausted { .. }
    ));
    // The fleet counts what it admitted as in flight (A's first call has settled).
    let zcard = redis.command("ZCARD t:{api}:in_flight");
    assert!(zcard.starts_with(":9"), "{zcard:?}");
    drop(held);
    eventually("unsent attempts leave the fleet's in-flight count", || {
        redis.command("ZCARD t:{api}:in_flight").starts_with(":0")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_policy_is_checked_before_any_is_taken_from() {
    let redis = RedisServer::start();
    let a = replica(&redis);
    eventually("shared", || a.shared.is_up()).await;
    let now = Instant::now();
    let two = Signals {
        quota: vec![
            Quota {
                policy: "minute".into(),
                limit: Some(100),
                remaining: Some(50),
                reset_after: Some(Duration::from_secs(60)),
                window: None,
            },
            Quota {
                policy: "second".into(),
                limit: Some(3),
                remaining: Some(1),
                reset_after: Some(Duration::from_secs(60)),
                window: None,
            },
        ],
        ..Signals::default()
    };
    let Gate::Go(p) = a.state.gate_fleet(now, Duration::from_secs(5), true).await else {
        panic!("first goes");
    };
    p.settle(now, Some(&two), None, None);
    eventually("both policies stored", || {
        redis.command("HLEN t:{api}:quota").starts_with(":2")
    })
    .await;
    let before = redis.command("HGET t:{api}:quota minute");
    // "second" is at its reserve: the call is refused and "minute" keeps its count.
    assert!(matches!(
        a.state.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::QuotaExhausted { .. }
    ));
    assert_eq!(redis.command("HGET t:{api}:quota minute"), before);
    assert!(before.contains("\r\n50:"), "{before}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_breaker_opens_for_the_fleet_and_half_open_admits_one_probe() {
    let redis = RedisServer::start();
    let (a, b) = (replica(&redis), replica(&redis));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    five_failures_open_the_fleets_breaker(&a, &redis).await;
    let now = Instant::now();
    // Five failures seen by A alone open B's breaker too, though B saw none.
    assert!(matches!(
        b.state.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::CircuitOpen { .. }
    ));
    assert!(b.state.open_for(now).is_some());
    assert!(matches!(
        b.state.snapshot(now).breaker,
        toolgate_resilience::BreakerState::Open { .. }
    ));
    // After the open period, one probe across both replicas.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (ga, gb) = (
        a.state.gate_fleet(now, Duration::from_secs(5), true).await,
        b.state.gate_fleet(now, Duration::from_secs(5), true).await,
    );
    let probe = match (ga, gb) {
        (Gate::Go(p), Gate::CircuitOpen { .. }) | (Gate::CircuitOpen { .. }, Gate::Go(p)) => p,
        other => panic!("exactly one probe expected, got {other:?}"),
    };
    // Further asks while the probe is out are refused too.
    assert!(matches!(
        a.state.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::CircuitOpen { .. }
    ));
    probe.settle(now, None, Some(Duration::from_millis(5)), None);
    eventually("the probe's success closes the fleet's breaker", || {
        redis
            .command("HEXISTS t:{api}:breaker until")
            .starts_with(":0")
    })
    .await;
    assert!(matches!(
        b.state.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::Go(_)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_probe_reopens_for_longer() {
    let redis = RedisServer::start();
    let a = replica(&redis);
    eventually("shared", || a.shared.is_up()).await;
    let now = Instant::now();
    for _ in 0..5 {
        if let Gate::Go(p) = a.state.gate_fleet(now, Duration::from_secs(5), true).await {
            p.settle(now, None, None, Some(ErrorClass::Timeout));
        }
    }
    eventually("open", || {
        redis.command("HGET t:{api}:breaker open").contains("300")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let Gate::Go(probe) = a.state.gate_fleet(now, Duration::from_secs(5), true).await else {
        panic!("the probe goes");
    };
    probe.settle(now, None, None, Some(ErrorClass::Connect));
    eventually("the open period doubles", || {
        redis.command("HGET t:{api}:breaker open").contains("600")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retry_budget_is_one_ratio_for_the_fleet() {
    let redis = RedisServer::start();
    let (a, b) = (replica(&redis), replica(&redis));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    let now = Instant::now();
    // No traffic: the fleet's floor is 10 retries per window, not 10 per replica.
    let mut granted = 0;
    for i in 0..30 {
        let r = if i % 2 == 0 { &a } else { &b };
        if r.state.withdraw_retry(now) {
            granted += 1;
        }
        // Both replicas read the fleet's totals back (a retry attempt earns nothing).
        for r in [&a, &b] {
            let until = Instant::now() + Duration::from_secs(15);
            loop {
                if let Gate::Go(p) = r.state.gate_fleet(now, Duration::from_secs(5), false).await {
                    p.settle(now, None, Some(Duration::from_millis(1)), None);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                if r.state.fleet_budget_totals() == Some((0, granted)) {
                    break;
                }
                assert!(Instant::now() < until, "totals never arrived");
            }
        }
    }
    // Each replica alone would grant 10, the two 20: the fleet grants 10.
    assert_eq!(granted, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_means_local_state_and_calls_flow_then_sharing_resumes() {
    let mut redis = RedisServer::start();
    let (a, b) = (replica(&redis), replica(&redis));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    redis.kill();
    // Every call still goes while the replicas notice and fall back.
    for _ in 0..50 {
        for r in [&a, &b] {
            let now = Instant::now();
            match r.state.gate_fleet(now, Duration::from_secs(5), true).await {
                Gate::Go(p) => {
                    p.settle(now, None, Some(Duration::from_millis(1)), None);
                }
                other => panic!("Redis being down must not stop a call: {other:?}"),
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eventually("both fell back", || !a.shared.is_up() && !b.shared.is_up()).await;
    assert_eq!(a.gauge.get(), 0);
    assert_eq!(b.gauge.get(), 0);
    // Local state still protects: five local failures open A's own breaker.
    let now = Instant::now();
    for _ in 0..5 {
        if let Gate::Go(p) = a.state.gate_fleet(now, Duration::from_secs(5), true).await {
            p.settle(now, None, None, Some(ErrorClass::ServerError));
        }
    }
    assert!(matches!(
        a.state.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::CircuitOpen { .. }
    ));
    redis.restart();
    eventually("both share again", || a.shared.is_up() && b.shared.is_up()).await;
    assert_eq!(a.gauge.get(), 1);
    // Shared again: what B learns constrains A.
    let now = Instant::now();
    let Gate::Go(p) = b.state.gate_fleet(now, Duration::from_secs(5), true).await else {
        panic!("B goes");
    };
    p.settle(
        now,
        Some(&advert(1, 10, Duration::from_secs(60))),
        None,
        None,
    );
    eventually("B's advert is shared", || quota_of(&redis).contains("1:")).await;
    let c = replica(&redis);
    eventually("C shares", || c.shared.is_up()).await;
    assert!(matches!(
        c.state.gate_fleet(now, Duration::from_secs(5), true).await,
        Gate::QuotaExhausted { .. }
    ));
}

pub(super) fn replica_holding(redis: &RedisServer, hold: Duration) -> Replica {
    let mut spec = crate::fixtures::dependency("api", "http://127.0.0.1:9");
    spec.account_hold = hold;
    replica_with(redis, breaker(), Arc::new(spec))
}

pub(super) fn held(gate: Gate<'_>) -> Option<Duration> {
    match gate {
        Gate::AccountHeld { retry_in } => Some(retry_in),
        _ => None,
    }
}

/// Two replicas holding accounts for `hold`, sharing `redis`; the first has seen its
/// account refused, and the fleet holds it. Returns them and when the refusal came.
async fn account_refused_on_the_first(
    redis: &RedisServer,
    hold: Duration,
) -> (Replica, Replica, Instant) {
    let (a, b) = (replica_holding(redis, hold), replica_holding(redis, hold));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    let deadline = Duration::from_secs(5);
    let Gate::Go(p) = a.state.gate_fleet(Instant::now(), deadline, true).await else {
        panic!("nothing is held yet");
    };
    let refused_at = Instant::now();
    p.settle(
        refused_at,
        None,
        Some(Duration::from_millis(5)),
        Some(ErrorClass::Account),
    );
    eventually("the fleet holds the account", || account_key(redis)).await;
    (a, b, refused_at)
}

pub(super) fn account_key(redis: &RedisServer) -> bool {
    redis
        .command("EXISTS t:{api}:account_held")
        .starts_with(":1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_refused_on_one_replica_holds_the_fleet_then_one_trial_ends_it() {
    let redis = RedisServer::start();
    let hold = Duration::from_secs(1);
    let (a, b, _) = account_refused_on_the_first(&redis, hold).await;
    let deadline = Duration::from_secs(5);
    // B saw nothing, yet sends nothing: held, and told when it ends, as A is.
    let now = Instant::now();
    let told = held(b.state.gate_fleet(now, deadline, true).await).expect("B is held");
    assert!(told <= hold && !told.is_zero(), "{told:?}");
    assert!(held(a.state.gate_fleet(now, deadline, true).await).is_some());
    let report = b.state.snapshot(Instant::now()).to_json();
    assert!(report["account_held"]["retry_in_s"].is_u64(), "{report}");
    // After the end, one trial call for the whole fleet.
    tokio::time::sleep(hold + Duration::from_millis(100)).await;
    let now = Instant::now();
    let (ga, gb) = (
        a.state.gate_fleet(now, deadline, true).await,
        b.state.gate_fleet(now, deadline, true).await,
    );
    let trial = match (ga, gb) {
        (Gate::Go(p), Gate::AccountHeld { .. }) | (Gate::AccountHeld { .. }, Gate::Go(p)) => p,
        other => panic!("exactly one trial expected, got {other:?}"),
    };
    for r in [&a, &b] {
        assert!(held(r.state.gate_fleet(now, deadline, true).await).is_some());
    }
    // The trial got past the account's check: the hold ends for every replica.
    trial.settle(now, None, Some(Duration::from_millis(5)), None);
    eventually("the trial's answer ends the fleet's hold", || {
        !account_key(&redis)
    })
    .await;
    for r in [&a, &b] {
        match r.state.gate_fleet(Instant::now(), deadline, true).await {
            Gate::Go(p) => p.unsent(),
            other => panic!("the hold is over: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_refused_again_holds_the_fleet_again_and_a_lost_trial_is_given_back() {
    let redis = RedisServer::start();
    let hold = Duration::from_secs(1);
    let (a, b, _) = account_refused_on_the_first(&redis, hold).await;
    let deadline = Duration::from_secs(5);
    tokio::time::sleep(hold + Duration::from_millis(100)).await;
    // B's trial is never sent (its call was cancelled): the trial is the fleet's again.
    let Gate::Go(trial) = b.state.gate_fleet(Instant::now(), deadline, true).await else {
        panic!("the trial");
    };
    drop(trial);
    eventually("the unsent trial is given back", || {
        redis
            .command("EXISTS t:{api}:account_trial")
            .starts_with(":0")
    })
    .await;
    // A timeout says nothing of the account: the hold stays, the trial is free again.
    let Gate::Go(trial) = b.state.gate_fleet(Instant::now(), deadline, true).await else {
        panic!("the trial, again");
    };
    trial.settle(Instant::now(), None, None, Some(ErrorClass::Timeout));
    eventually("the timed-out trial is given back", || {
        redis
            .command("EXISTS t:{api}:account_trial")
            .starts_with(":0")
    })
    .await;
    assert!(account_key(&redis));
    // Refused again: a fresh hold for the whole fleet, A held without asking upstream.
    let Gate::Go(trial) = b.state.gate_fleet(Instant::now(), deadline, true).await else {
        panic!("the trial, once more");
    };
    trial.settle(Instant::now(), None, None, Some(ErrorClass::Account));
    eventually("held again", || {
        redis
            .command("PTTL t:{api}:account_held")
            .trim_start_matches(':')
            .trim()
            .parse::<i64>()
            .is_ok_and(|ms| ms > 86_400_000)
    })
    .await;
    let told = held(a.state.gate_fleet(Instant::now(), deadline, true).await);
    assert!(
        told.is_some_and(|t| t > Duration::from_millis(500)),
        "{told:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_gone_mid_hold_keeps_each_replica_holding_to_the_end_then_one_trial_each() {
    let mut redis = RedisServer::start();
    let hold = Duration::from_secs(3);
    let (a, b, refused_at) = account_refused_on_the_first(&redis, hold).await;
    let deadline = Duration::from_secs(5);
    assert!(held(b.state.gate_fleet(Instant::now(), deadline, true).await).is_some());
    redis.kill();
    // Neither replica fails open while it notices, nor once it runs on local state.
    for r in [&a, &b] {
        assert!(held(r.state.gate_fleet(Instant::now(), deadline, true).await).is_some());
    }
    eventually("both fell back", || !a.shared.is_up() && !b.shared.is_up()).await;
    for r in [&a, &b] {
        assert!(held(r.state.gate_fleet(Instant::now(), deadline, true).await).is_some());
    }
    // Nor is it held for good: after the end, one local trial per replica, no more.
    tokio::time::sleep_until(refused_at + hold + Duration::from_millis(200)).await;
    for r in [&a, &b] {
        let Gate::Go(trial) = r.state.gate_fleet(Instant::now(), deadline, true).await else {
            panic!("the local trial goes");
        };
        assert!(held(r.state.gate_fleet(Instant::now(), deadline, true).await).is_some());
        trial.settle(Instant::now(), None, None, None);
    }
}

/// A replica whose breaker stays open a minute, long enough to report on.
pub(super) fn replica_slow_to_probe(redis: &RedisServer) -> Replica {
    let breaker = BreakerConfig {
        open_for: Duration::from_secs(60),
        max_open_for: Duration::from_secs(120),
        ..BreakerConfig::default()
    };
    replica_with(redis, breaker, spec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_no_call_reached_reports_the_fleets_open_breaker_until_redis_is_gone() {
    let mut redis = RedisServer::start();
    let (a, b) = (replica_slow_to_probe(&redis), replica_slow_to_probe(&redis));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    five_failures_open_the_fleets_breaker(&a, &redis).await;
    // B saw nothing itself…
    let own = b.state.snapshot(Instant::now());
    assert_eq!(own.breaker, toolgate_resilience::BreakerState::Closed);
    // …yet its report says what its next call would meet.
    let report = b.state.report_snapshot(Instant::now()).await;
    let toolgate_resilience::BreakerState::Open { retry_in, .. } = report.breaker else {
        panic!("the fleet's breaker is open: {:?}", report.breaker);
    };
    assert!(retry_in > Duration::from_secs(30) && retry_in <= Duration::from_secs(60));
    assert!(report.down_since.is_some());
    let json = report.to_json();
    assert_eq!(json["status"], "down", "{json}");
    // Its own view again once the fleet's state is gone.
    redis.kill();
    eventually("B fell back", || !b.shared.is_up()).await;
    let alone = b.state.report_snapshot(Instant::now()).await;
    assert_eq!(alone.breaker, toolgate_resilience::BreakerState::Closed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_no_call_reached_reports_the_fleets_quota_count_and_throttle() {
    let redis = RedisServer::start();
    let (a, b) = (replica(&redis), replica(&redis));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    let now = Instant::now();
    let deadline = Duration::from_secs(5);
    let Gate::Go(first) = a.state.gate_fleet(now, deadline, true).await else {
        panic!("nothing is known yet");
    };
    first.settle(
        now,
        Some(&advert(40, 100, Duration::from_secs(600))),
        None,
        None,
    );
    eventually("the advert reaches Redis", || {
        quota_of(&redis).contains("40:")
    })
    .await;
    let Gate::Go(second) = a.state.gate_fleet(now, deadline, true).await else {
        panic!("39 are left");
    };
    let throttled = Signals {
        retry_after: Some(Duration::from_secs(45)),
        ..Signals::default()
    };
    second.settle(now, Some(&throttled), None, Some(ErrorClass::RateLimited));
    eventually("the throttle reaches Redis", || {
        redis.command("EXISTS t:{api}:blocked").starts_with(":1")
    })
    .await;
    let own = b.state.snapshot(Instant::now());
    assert!(own.quotas.is_empty() && own.throttled.is_none());
    let report = b.state.report_snapshot(Instant::now()).await;
    let core = &report.quotas[0];
    assert_eq!((core.policy.as_str(), core.limit), ("core", Some(100)));
    // 40 advertised, one taken by A's second call.
    assert_eq!(core.remaining, Some(39));
    let wait = report.throttled.expect("the fleet is throttled");
    assert!(
        wait > Duration::from_secs(30) && wait <= Duration::from_secs(45),
        "{wait:?}"
    );
    let json = report.to_json();
    assert_eq!(json["status"], "degraded", "{json}");
    assert!(
        json["throttled"]["retry_in_s"]
            .as_u64()
            .is_some_and(|s| s > 30 && s <= 45)
    );
    // The count is the fleet's, with no age of its own: B never saw the advert.
    assert!(json["quota"][0]["seen_s_ago"].is_null(), "{json}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_no_call_reached_reports_the_fleets_account_hold() {
    let redis = RedisServer::start();
    let hold = Duration::from_secs(5);
    let (_a, b, _) = account_refused_on_the_first(&redis, hold).await;
    assert!(b.state.snapshot(Instant::now()).account_held.is_none());
    let report = b.state.report_snapshot(Instant::now()).await;
    let left = report.account_held.expect("the fleet holds the account");
    assert!(!left.is_zero() && left <= hold, "{left:?}");
    assert_eq!(report.to_json()["status"], "down");
}

#[test]
fn the_url_never_shows_in_what_is_printed() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let s = Shared::start("redis://:hunter2@127.0.0.1:1/", None, Gauge::default()).unwrap();
        assert!(!format!("{s:?}").contains("hunter2"));
        let err = Shared::start("redis://:hunter2@[not a host", None, Gauge::default())
            .map(|_| ())
            .unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
        let tls = Shared::start("rediss://:hunter2@cache:6380/", None, Gauge::default())
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            tls.contains("rediss://") && tls.contains("not supported"),
            "{tls}"
        );
        assert!(!tls.contains("hunter2"), "{tls}");
    });
}
