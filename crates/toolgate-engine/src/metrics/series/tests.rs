use std::sync::Arc;
use std::time::Duration;

use toolgate_resilience::ErrorClass;

use super::RouteSeries;
use crate::metrics::{Metrics, StatusLabel};

/// The exposition's line for `series`, if it is exported.
/// The value the exposition gives `series` (its name and labels as written), if it has one.
fn count(text: &str, series: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.parse().expect("a whole count"))
}

#[test]
fn calls_counted_through_a_routes_kept_series_show_in_the_exposition() {
    let metrics = Metrics::new();
    let route = RouteSeries::default();
    let tool: Arc<str> = Arc::from("search");
    metrics.count_tool_call(&route, &tool, None);
    metrics.count_tool_call(&route, &tool, None);
    metrics.count_tool_call(&route, &tool, Some(ErrorClass::RateLimited));
    let text = metrics.render();
    assert_eq!(
        count(
            &text,
            r#"toolgate_tool_calls_total{tool="search",outcome="ok"}"#
        ),
        Some(2)
    );
    assert_eq!(
        count(
            &text,
            r#"toolgate_tool_calls_total{tool="search",outcome="rate_limited"}"#
        ),
        Some(1)
    );
}

#[test]
fn an_outcome_never_counted_is_not_exported_as_a_zero_series() {
    let metrics = Metrics::new();
    let route = RouteSeries::default();
    metrics.count_tool_call(&route, &Arc::from("search"), None);
    let text = metrics.render();
    assert!(
        count(
            &text,
            r#"toolgate_tool_calls_total{tool="search",outcome="timeout"}"#
        )
        .is_none()
    );
}

#[test]
fn a_reloaded_route_counts_on_from_the_series_its_predecessor_counted_into() {
    let metrics = Metrics::new();
    let tool: Arc<str> = Arc::from("search");
    let before = RouteSeries::default();
    metrics.count_tool_call(&before, &tool, None);
    metrics.count_attempt(
        &before,
        "api",
        &tool,
        StatusLabel::Code(200),
        Some(Duration::from_millis(3)),
    );
    let after = RouteSeries::default();
    metrics.count_tool_call(&after, &tool, None);
    metrics.count_attempt(
        &after,
        "api",
        &tool,
        StatusLabel::Code(200),
        Some(Duration::from_millis(3)),
    );
    let text = metrics.render();
    assert_eq!(
        count(
            &text,
            r#"toolgate_tool_calls_total{tool="search",outcome="ok"}"#
        ),
        Some(2)
    );
    assert_eq!(
        count(
            &text,
            r#"toolgate_upstream_requests_total{dependency="api",tool="search",status="200"}"#
        ),
        Some(2)
    );
    assert_eq!(
        count(
            &text,
            r#"toolgate_upstream_latency_seconds_count{dependency="api"}"#
        ),
        Some(2)
    );
}

#[test]
fn statuses_past_those_a_route_keeps_are_each_counted_in_their_own_series() {
    let metrics = Metrics::new();
    let route = RouteSeries::default();
    let tool: Arc<str> = Arc::from("search");
    // More distinct statuses than a route keeps handles for, each met twice.
    let statuses: Vec<StatusLabel> = (200..212)
        .map(StatusLabel::Code)
        .chain([
            StatusLabel::Timeout,
            StatusLabel::Connect,
            StatusLabel::Protocol,
        ])
        .collect();
    for _ in 0..2 {
        for status in &statuses {
            metrics.count_attempt(&route, "api", &tool, *status, None);
        }
    }
    let text = metrics.render();
    for status in ["200", "205", "211", "timeout", "connect", "protocol"] {
        let series = format!(
            r#"toolgate_upstream_requests_total{{dependency="api",tool="search",status="{status}"}}"#
        );
        assert_eq!(count(&text, &series), Some(2), "{status}");
    }
    // No latency was observed, so no latency series exists.
    assert!(
        count(
            &text,
            r#"toolgate_upstream_latency_seconds_count{dependency="api"}"#
        )
        .is_none()
    );
}

#[test]
fn the_anonymous_callers_calls_are_counted_under_its_label() {
    let metrics = Metrics::new();
    metrics.count_agent_call(None, None);
    metrics.count_agent_call(None, Some(ErrorClass::Forbidden));
    metrics.count_agent_call(None, None);
    let text = metrics.render();
    assert_eq!(
        count(
            &text,
            r#"toolgate_agent_calls_total{agent="anonymous",outcome="ok"}"#
        ),
        Some(2)
    );
    assert_eq!(
        count(
            &text,
            r#"toolgate_agent_calls_total{agent="anonymous",outcome="forbidden"}"#
        ),
        Some(1)
    );
}

#[test]
fn a_dependencys_gauges_read_its_latest_snapshot_through_the_kept_series() {
    let metrics = Metrics::new();
    let state = crate::dependency::DependencyState::new(Arc::new(crate::fixtures::dependency(
        "api",
        "http://127.0.0.1:9",
    )));
    let now = tokio::time::Instant::now();
    let mut snapshot = state.call_snapshot(now);
    metrics.record_dependency("api", &state.series, &snapshot.gauges());
    snapshot.latency.brownout = true;
    metrics.record_dependency("api", &state.series, &snapshot.gauges());
    let text = metrics.render();
    assert_eq!(
        count(&text, r#"toolgate_brownout{dependency="api"}"#),
        Some(1)
    );
    // A state built anew (a reloaded config's) sets the same series.
    let reloaded = crate::dependency::DependencyState::new(Arc::new(crate::fixtures::dependency(
        "api",
        "http://127.0.0.1:9",
    )));
    snapshot.latency.brownout = false;
    metrics.record_dependency("api", &reloaded.series, &snapshot.gauges());
    let text = metrics.render();
    assert_eq!(
        count(&text, r#"toolgate_brownout{dependency="api"}"#),
        Some(0)
    );
    assert!(count(&text, r#"toolgate_circuit_state{dependency="api"}"#).is_some());
}
