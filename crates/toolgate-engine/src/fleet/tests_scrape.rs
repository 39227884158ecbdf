//! `/metrics` in a fleet against a real redis-server: a replica no call reached exports
//! the fleet's breaker, and its own view, said so, when Redis does not answer.

use std::sync::Arc;

use tokio::time::Instant;

use super::tests::{
    Replica, eventually, five_failures_open_the_fleets_breaker, replica_slow_to_probe,
};
use crate::dependency::DependencyState;
use crate::fleet_gauges::refresh_fleet_gauges;
use crate::metrics::Metrics;
use toolgate_test_support::RedisServer;

/// One exported sample's value, if the series exists.
fn sample(metrics: &Metrics, series: &str) -> Option<String> {
    metrics.render().lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')
            .map(str::to_string)
    })
}

async fn scrape(b: &Arc<DependencyState>, metrics: &Metrics) {
    let deps = [("api".to_string(), Arc::clone(b))];
    refresh_fleet_gauges(deps.iter().map(|(n, d)| (n, d)), metrics).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_of_a_replica_no_call_reached_show_the_fleets_breaker_or_say_they_do_not() {
    let redis = RedisServer::start();
    let a = replica_slow_to_probe(&redis);
    let Replica { state, shared, .. } = replica_slow_to_probe(&redis);
    let b = Arc::new(state);
    eventually("shared", || a.shared.is_up() && shared.is_up()).await;
    five_failures_open_the_fleets_breaker(&a, &redis).await;
    let metrics = Metrics::with_shared_state();
    let circuit = r#"toolgate_circuit_state{dependency="api"}"#;
    let fleet = r#"toolgate_fleet_view{dependency="api"}"#;
    // B sent nothing and reported nothing, yet its scrape shows the fleet's breaker.
    assert_eq!(
        b.snapshot(Instant::now()).breaker,
        toolgate_resilience::BreakerState::Closed
    );
    scrape(&b, &metrics).await;
    assert_eq!(sample(&metrics, circuit).as_deref(), Some("1"));
    assert_eq!(sample(&metrics, fleet).as_deref(), Some("1"));
    // Redis stops answering: the scrape does not wait for it, shows B's own breaker
    // and says whose view it is.
    redis.command("CLIENT PAUSE 2000 ALL");
    scrape(&b, &metrics).await;
    assert_eq!(sample(&metrics, fleet).as_deref(), Some("0"));
    assert_eq!(sample(&metrics, circuit).as_deref(), Some("0"));
    // Answering again, the fleet's view is back.
    let until = Instant::now() + std::time::Duration::from_secs(15);
    loop {
        scrape(&b, &metrics).await;
        if sample(&metrics, fleet).as_deref() == Some("1") {
            break;
        }
        assert!(Instant::now() < until, "the fleet's view never came back");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(sample(&metrics, circuit).as_deref(), Some("1"));
}
