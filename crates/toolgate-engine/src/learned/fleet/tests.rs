//! Learned contracts in a fleet, against a real redis-server: two (or three) `Learning`s,
//! each with a `Shared` of its own on one Redis, are replicas behind a balancer. The
//! tests drive each replica's background learner by hand (learn one sample, then share),
//! so what each replica holds is known at every step; responses are judged on a thread
//! without a runtime, where nothing is queued for the background learner.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use prometheus_client::metrics::gauge::Gauge;
use toolgate_config::ToolSpec;
use toolgate_resilience::BreakerConfig;
use toolgate_test_support::RedisServer;

use super::super::{Judged, LearnedState, Learning, judge};
use super::share;
use crate::fleet::Shared;

const WITH: &[u8] = br#"{"results": [{"title": "a", "snippet": "s"}]}"#;
const EMPTY: &[u8] = br#"{"results": []}"#;
const RENAMED: &[u8] = br#"{"results": [{"title": "a", "excerpt": "s"}]}"#;
const OWNED: &[u8] = br#"{"results": [], "owner": {"name": "n"}}"#;

/// An HTTP tool whose contract is learned from 20 responses.
fn spec() -> Arc<ToolSpec> {
    let yaml = r#"
dependencies:
  search_api: { base_url: "https://api.example.com" }
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    request: { method: GET, path: /search }
    contract: { version: "1.0", learn: { enforce_after: 20 } }
"#;
    let config = crate::fixtures::config(yaml);
    config.tools["web_search"].clone()
}

/// Waits until `cond` holds: bounded, and on the condition, not on the time.
async fn wait_until(cond: impl Fn() -> bool) {
    for _ in 0..1500 {
        if cond() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the shared state never changed as expected");
}

struct Replica {
    spec: Arc<ToolSpec>,
    learning: Learning,
    slot: OnceLock<Arc<LearnedState>>,
    shared: Shared,
}

/// A replica of the fleet on `redis`, once its shared state is up.
async fn replica(redis: &RedisServer, name: &str) -> Replica {
    let shared = Shared::start_with(
        &redis.url(),
        Some(name),
        Gauge::default(),
        "t:",
        BreakerConfig::default(),
    )
    .expect("a Redis URL");
    wait_until(|| shared.is_up()).await;
    Replica {
        spec: spec(),
        learning: Learning::default().with_fleet(Some(shared.clone())),
        slot: OnceLock::new(),
        shared,
    }
}

impl Replica {
    fn state(&self) -> Arc<LearnedState> {
        self.learning
            .state(&self.spec, &self.slot)
            .expect("learned")
            .clone()
    }

    /// What the background learner does with one response: learn, then share.
    async fn learn(&self, body: &[u8], times: u64) {
        let state = self.state();
        for _ in 0..times {
            let epoch = state.epoch.load(std::sync::atomic::Ordering::Acquire);
            let learned = state.learn(body, false, epoch);
            share(&self.shared, &state, learned).await;
        }
    }

    /// Asks the fleet now, as the background learner does at most every second.
    async fn sync(&self) {
        let state = self.state();
        if let Some(link) = &state.fleet {
            crate::sync::lock(&link.seen).synced_at = None;
        }
        share(&self.shared, &state, super::Learned::Nothing).await;
    }

    /// The fingerprint of each response's drift (`None`: not reported), judged as a call
    /// would be.
    fn judge(&self, body: &'static [u8]) -> Option<String> {
        std::thread::scope(|s| {
            s.spawn(|| {
                match judge(
                    &self.learning,
                    &self.spec,
                    &self.slot,
                    &Bytes::from_static(body),
                ) {
                    Judged::Drift { drift, .. } => Some(drift.fingerprint),
                    Judged::Fine => None,
                }
            })
            .join()
            .expect("judged")
        })
    }

    fn pin(&self) -> toolgate_contract::LearnedPin {
        self.state().snapshot().pin
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_that_learned_from_different_responses_enforce_one_contract_and_report_one_drift()
{
    let redis = RedisServer::start();
    let a = replica(&redis, "a").await;
    let b = replica(&redis, "b").await;
    // The balancer sends the filled pages to one replica, the empty ones to the other.
    a.learn(WITH, 20).await;
    // `b` takes the fleet's contract at its first response, and enforces it.
    b.learn(EMPTY, 20).await;
    assert!(b.state().enforced().is_some());
    assert_eq!(
        a.pin(),
        b.pin(),
        "one contract, pinned alike by either replica"
    );
    assert_eq!(
        b.pin().schema["properties"]["results"]["items"]["required"],
        serde_json::json!(["snippet", "title"])
    );
    // A lasting rename, spread over both: each reports it at its own third response,
    // with one fingerprint, so the fleet's store holds one incident.
    let reported: Vec<Option<String>> = (0..6)
        .map(|i| {
            if i % 2 == 0 {
                a.judge(RENAMED)
            } else {
                b.judge(RENAMED)
            }
        })
        .collect();
    assert_eq!(reported.iter().filter(|r| r.is_some()).count(), 2);
    assert!(
        reported[4].is_some() && reported[5].is_some(),
        "{reported:?}"
    );
    let fingerprints: BTreeSet<_> = reported.into_iter().flatten().collect();
    assert_eq!(fingerprints.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_place_one_replica_learned_late_is_enforced_by_the_other_and_pinned_alike() {
    let redis = RedisServer::start();
    let a = replica(&redis, "a").await;
    let b = replica(&redis, "b").await;
    a.learn(EMPTY, 20).await;
    b.sync().await;
    // Only `b` is sent filled pages after enforcement: one round of late learning.
    b.learn(WITH, toolgate_contract::LATE_ROUND).await;
    a.sync().await;
    let at_a: Vec<bool> = (0..3).map(|_| a.judge(RENAMED).is_some()).collect();
    assert_eq!(
        at_a,
        [false, false, true],
        "the rename is reported at a's third"
    );
    assert_eq!(a.pin(), b.pin());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounds_two_replicas_end_at_once_are_both_kept_in_the_fleets_contract() {
    let redis = RedisServer::start();
    let a = replica(&redis, "a").await;
    let b = replica(&redis, "b").await;
    a.learn(EMPTY, 20).await;
    b.sync().await;
    // Each replica's round is one response short of its end; both end together.
    let round = toolgate_contract::LATE_ROUND;
    a.learn(WITH, round - 1).await;
    b.learn(OWNED, round - 1).await;
    tokio::join!(a.learn(WITH, 1), b.learn(OWNED, 1));
    a.sync().await;
    b.sync().await;
    let pin = a.pin();
    assert_eq!(pin, b.pin());
    let props = &pin.schema["properties"];
    assert!(
        props["results"]["items"]["properties"]["snippet"].is_object(),
        "{pin:?}"
    );
    assert!(props["owner"]["properties"]["name"].is_object(), "{pin:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_replica_enforces_the_fleets_contract_from_its_first_response() {
    let redis = RedisServer::start();
    let a = replica(&redis, "a").await;
    a.learn(WITH, 20).await;
    a.learn(WITH, toolgate_contract::LATE_ROUND).await;
    // A replica that starts now, with no pin, is sent an empty page first.
    let c = replica(&redis, "c").await;
    c.learn(EMPTY, 1).await;
    assert!(c.state().enforced().is_some());
    assert_eq!(c.pin(), a.pin());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relearn_on_one_replica_starts_the_contract_over_on_every_replica() {
    let redis = RedisServer::start();
    let a = replica(&redis, "a").await;
    let b = replica(&redis, "b").await;
    a.learn(WITH, 20).await;
    b.sync().await;
    assert!(b.state().enforced().is_some());
    assert_eq!(a.learning.reset(&a.state()), 20);
    a.sync().await;
    b.sync().await;
    assert!(b.state().enforced().is_none(), "b learns again");
    // The new shape, learned by either, is the fleet's.
    b.learn(RENAMED, 20).await;
    a.sync().await;
    assert_eq!(a.pin(), b.pin());
    assert!(a.judge(RENAMED).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_down_each_replica_learns_alone_and_shares_once_it_returns() {
    let mut redis = RedisServer::start();
    let a = replica(&redis, "a").await;
    let b = replica(&redis, "b").await;
    a.learn(EMPTY, 20).await;
    b.sync().await;
    redis.kill();
    wait_until(|| !a.shared.is_up() && !b.shared.is_up()).await;
    // Learning goes on, on a's own contract: its round constrains the results.
    a.learn(WITH, toolgate_contract::LATE_ROUND).await;
    let at_a: Vec<bool> = (0..3).map(|_| a.judge(RENAMED).is_some()).collect();
    assert_eq!(at_a, [false, false, true]);
    redis.restart();
    wait_until(|| a.shared.is_up() && b.shared.is_up()).await;
    // Back: what a learned alone becomes the fleet's (Redis came back empty).
    a.sync().await;
    b.sync().await;
    assert_eq!(a.pin(), b.pin());
}
