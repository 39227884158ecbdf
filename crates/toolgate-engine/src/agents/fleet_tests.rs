//! Agents' quotas across replicas, against a real redis-server: two `Agents`, each with
//! a `Shared` of its own on one Redis, are two replicas.

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use tokio::time::Instant;
use toolgate_resilience::{BreakerConfig, ErrorClass};
use toolgate_test_support::RedisServer;

use super::*;

/// `n` agents, each with an API key and `quota`.
fn config(n: usize, quota: &str) -> Config {
    use std::fmt::Write as _;
    let mut yaml = String::from(
        "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\nagents:\n",
    );
    for i in 0..n {
        let _ = write!(
            yaml,
            "  agent-{i}:\n    api_key_sha256: \"{i:064x}\"\n    quota: {quota}\n"
        );
    }
    crate::fixtures::config(&yaml)
}

struct Replica {
    agents: Agents,
    shared: Shared,
    local: Counter,
}

fn replica(redis: &RedisServer, config: &Config) -> Replica {
    let shared = Shared::start_with(
        &redis.url(),
        Some("test"),
        Gauge::default(),
        "t:",
        BreakerConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let local = Counter::default();
    Replica {
        agents: Agents::new(config).with_shared(Some(shared.clone()), local.clone()),
        shared,
        local,
    }
}

impl Replica {
    fn caller(&self, name: &str) -> CallAgent {
        let spec = self.agents.by_name.get(name).map(|s| s.spec.clone());
        self.agents
            .caller(spec.as_ref())
            .unwrap_or_else(|| panic!("{name}"))
    }
}

/// Waits (bounded) until `cond` holds; the assertion is on the condition, not the time.
async fn eventually(what: &str, mut cond: impl AsyncFnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(15);
    while !cond().await {
        assert!(Instant::now() < until, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn up(replicas: &[&Replica]) {
    eventually("Redis is up for every replica", async || {
        replicas.iter().all(|r| r.shared.is_up())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_agents_each_get_their_quota_once_across_two_replicas() {
    let redis = RedisServer::start();
    let config = config(1_000, "{ calls: 3, per: 1h }");
    let (a, b) = (replica(&redis, &config), replica(&redis, &config));
    up(&[&a, &b]).await;
    let now = Instant::now();
    let mut admitted = 0;
    let mut refused = Vec::new();
    for i in 0..1_000 {
        let name = format!("agent-{i}");
        let (on_a, on_b) = (a.caller(&name), b.caller(&name));
        // Five calls, alternating replicas: three fit the agent's hour, on whichever
        // replica they land; each replica alone would have let three through.
        for call in 0..5 {
            let agent = if call % 2 == 0 { &on_a } else { &on_b };
            match agent.admit_shared("t", now).await {
                Ok(_) => admitted += 1,
                Err(f) => refused.push(f),
            }
        }
    }
    assert_eq!(admitted, 3_000);
    assert_eq!(refused.len(), 2_000);
    for f in &refused {
        assert_eq!(f.class, ErrorClass::RateLimited);
        // Told the wait: the next call fits a third of the hour after the first.
        let wait = f.retry_after.unwrap_or_default();
        assert!(
            wait > Duration::from_secs(1_100) && wait <= Duration::from_secs(1_200),
            "{wait:?}"
        );
        assert!(
            f.message.contains("has used its quota of 3 calls per"),
            "{}",
            f.message
        );
    }
    assert_eq!(
        a.local.get() + b.local.get(),
        0,
        "every decision was the fleet's"
    );
    // One agent spending its quota left every other agent's untouched: each key is its own.
    assert_eq!(redis.command("EXISTS t:{agent:agent-999}:tat").trim(), ":1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_one_agents_concurrent_calls_and_fall_back_when_redis_dies() {
    let mut redis = RedisServer::start();
    let config = config(1, "{ concurrent: 2 }");
    let (a, b) = (replica(&redis, &config), replica(&redis, &config));
    up(&[&a, &b]).await;
    let (on_a, on_b) = (a.caller("agent-0"), b.caller("agent-0"));
    let now = Instant::now();
    let first = on_a.admit_shared("t", now).await.unwrap();
    let _second = on_b.admit_shared("t", now).await.unwrap();
    // The agent has two calls running in the fleet: a third is refused on either.
    for agent in [&on_a, &on_b] {
        let f = agent.admit_shared("t", now).await.unwrap_err();
        assert_eq!(f.class, ErrorClass::RateLimited);
        assert!(f.message.contains("2"), "{}", f.message);
    }
    // A call that ends frees its place for the fleet (released in the background).
    drop(first);
    eventually(
        "the released call frees a place on the other replica",
        async || {
            on_b.admit_shared("t", now).await.is_ok_and(|p| {
                std::mem::forget(p);
                true
            })
        },
    )
    .await;
    assert_eq!(a.local.get() + b.local.get(), 0);

    // Redis gone: each replica decides alone, on its own count, and says so.
    redis.kill();
    eventually("the replicas notice Redis is gone", async || {
        !a.shared.is_up() && !b.shared.is_up()
    })
    .await;
    let _p = on_a.admit_shared("t", now).await.unwrap();
    let _q = on_a.admit_shared("t", now).await.unwrap();
    assert!(
        on_a.admit_shared("t", now).await.is_err(),
        "replica a's own limit"
    );
    assert!(
        on_b.admit_shared("t", now).await.is_ok(),
        "replica b counts alone"
    );
    assert_eq!(a.local.get(), 3);
    assert_eq!(b.local.get(), 1);
}
