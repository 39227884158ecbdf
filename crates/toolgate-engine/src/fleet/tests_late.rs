//! Late replies against a real redis-server: a reply to an attempt sent before a shared
//! state began (an account hold, a throttle, a breaker closing) arrives after it and
//! must not move it. Each test sends attempts, lets a state begin, then settles the
//! older attempts.

use std::time::Duration;

use tokio::time::Instant;
use toolgate_resilience::ErrorClass;
use toolgate_signals::Signals;

use super::tests::{Replica, eventually, replica, replica_holding};
use crate::dependency::{Admitted, Gate};
use toolgate_test_support::RedisServer;

const DEADLINE: Duration = Duration::from_secs(5);

/// `n` attempts admitted by the fleet, all sent now. An attempt decided locally (Redis
/// slower than 50 ms on a busy machine) has no sending time the fleet knows of, which
/// is not the case these tests are about: it goes back unsent and another is asked for.
async fn sent<'a>(r: &'a Replica, n: usize) -> Vec<Admitted<'a>> {
    let until = Instant::now() + Duration::from_secs(15);
    let mut out = Vec::new();
    while out.len() < n {
        assert!(
            Instant::now() < until,
            "the fleet never admitted {n} attempts"
        );
        match r.state.gate_fleet(Instant::now(), DEADLINE, true).await {
            Gate::Go(p) if p.fleet_admitted() => out.push(p),
            Gate::Go(p) => p.unsent(),
            other => panic!("nothing holds calls back yet: {other:?}"),
        }
    }
    out
}

fn refuse_account(p: Admitted<'_>) {
    p.settle(
        Instant::now(),
        None,
        Some(Duration::from_millis(5)),
        Some(ErrorClass::Account),
    );
}

/// Until every record has reached Redis: the fleet's in-flight set holds `n`.
async fn in_flight_is(redis: &RedisServer, n: usize) {
    eventually("the records reach Redis", || {
        redis.command("ZCARD t:{api}:in_flight") == format!(":{n}\r\n")
    })
    .await;
}

/// A bulk string reply's value (`$5\r\nhello\r\n` → `hello`); `None` for nil.
fn value(reply: &str) -> Option<String> {
    reply.lines().nth(1).map(str::to_string)
}

fn hold_of(redis: &RedisServer) -> Option<String> {
    value(&redis.command("GET t:{api}:account_held"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_refusal_moves_neither_the_holds_end_nor_its_trial_nor_a_proven_account() {
    let redis = RedisServer::start();
    let hold = Duration::from_millis(800);
    let (a, b) = (replica_holding(&redis, hold), replica_holding(&redis, hold));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    let mut before = sent(&a, 4).await;
    refuse_account(before.remove(0));
    eventually("the fleet holds the account", || hold_of(&redis).is_some()).await;
    let held = hold_of(&redis);
    // A refusal of a call sent before the hold began, arriving later, is older news.
    tokio::time::sleep(Duration::from_millis(150)).await;
    refuse_account(before.remove(0));
    in_flight_is(&redis, 2).await;
    assert_eq!(hold_of(&redis), held, "the hold's end moved");
    // Past the end, one trial for the fleet; a late refusal neither frees it nor
    // starts a new hold.
    tokio::time::sleep(hold + Duration::from_millis(100)).await;
    let Gate::Go(trial) = b.state.gate_fleet(Instant::now(), DEADLINE, true).await else {
        panic!("the trial goes");
    };
    refuse_account(before.remove(0));
    in_flight_is(&redis, 2).await;
    assert_eq!(hold_of(&redis), held, "the hold began again");
    assert!(
        redis
            .command("EXISTS t:{api}:account_trial")
            .starts_with(":1"),
        "the trial was freed for a second one"
    );
    // The trial got past the account's check; a refusal of a call sent before it does
    // not hold the account it proved good.
    trial.settle(Instant::now(), None, Some(Duration::from_millis(5)), None);
    eventually("the trial ends the hold", || hold_of(&redis).is_none()).await;
    refuse_account(before.remove(0));
    in_flight_is(&redis, 0).await;
    assert_eq!(hold_of(&redis), None, "a proven account is held again");
    // A refusal of a call sent after the trial holds the fleet again.
    refuse_account(sent(&b, 1).await.remove(0));
    eventually("a fresh refusal holds", || hold_of(&redis).is_some()).await;
}

fn throttled() -> Signals {
    Signals {
        rate_limited: true,
        retry_after: Some(Duration::from_secs(2)),
        ..Signals::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_throttle_does_not_move_the_throttles_end() {
    let redis = RedisServer::start();
    let a = replica(&redis);
    eventually("shared", || a.shared.is_up()).await;
    let mut before = sent(&a, 2).await;
    let limited = Some(ErrorClass::RateLimited);
    before
        .remove(0)
        .settle(Instant::now(), Some(&throttled()), None, limited);
    let blocked = || value(&redis.command("GET t:{api}:blocked"));
    eventually("the fleet is throttled", || blocked().is_some()).await;
    let until = blocked();
    tokio::time::sleep(Duration::from_millis(150)).await;
    before
        .remove(0)
        .settle(Instant::now(), Some(&throttled()), None, limited);
    in_flight_is(&redis, 0).await;
    assert_eq!(blocked(), until, "the throttle's end moved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_of_calls_sent_before_the_breaker_closed_do_not_reopen_it() {
    let redis = RedisServer::start();
    let (a, b) = (replica(&redis), replica(&redis));
    eventually("shared", || a.shared.is_up() && b.shared.is_up()).await;
    let mut before = sent(&a, 10).await;
    for p in before.drain(..5) {
        p.settle(Instant::now(), None, None, Some(ErrorClass::ServerError));
    }
    let open = || {
        redis
            .command("HEXISTS t:{api}:breaker until")
            .starts_with(":1")
    };
    eventually("five failures open the fleet's breaker", open).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let Gate::Go(probe) = b.state.gate_fleet(Instant::now(), DEADLINE, true).await else {
        panic!("the half-open probe goes");
    };
    probe.settle(Instant::now(), None, Some(Duration::from_millis(5)), None);
    eventually("the probe closes the breaker", || !open()).await;
    // Five more failures, all of calls sent before it opened: old news.
    for p in before.drain(..) {
        p.settle(Instant::now(), None, None, Some(ErrorClass::ServerError));
    }
    in_flight_is(&redis, 0).await;
    assert!(!open(), "late failures reopened the breaker");
    assert!(
        matches!(
            b.state.gate_fleet(Instant::now(), DEADLINE, true).await,
            Gate::Go(_)
        ),
        "the fleet's breaker is closed"
    );
}
