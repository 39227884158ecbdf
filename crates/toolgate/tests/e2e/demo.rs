//! The built-in demo works end to end: every demo tool, and every switch a newcomer
//! is told about in the README.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::harness::*;

#[tokio::test]
async fn the_demo_shows_drift_quota_deprecation_and_an_outage() {
    let shutdown = CancellationToken::new();
    let (mut config, _) = toolgate::demo::start(None, shutdown.clone()).await.unwrap();
    let dir = temp_dir("demo");
    config.gateway.state = dir.join("demo.db");
    let tg = serve_config(config).await;
    let url = tg.url.clone();
    let client = rmcp_client(&url, Era::Stateless).await;

    let ok = call(
        &client,
        "web_search",
        json!({ "query": "rust", "limit": 2 }),
    )
    .await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    assert_eq!(
        ok.structured_content.unwrap()["results"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let flaky = call(&client, "flaky_status", json!({})).await;
    assert_eq!(
        flaky.is_error,
        Some(false),
        "the 503 is retried away: {}",
        text(&flaky)
    );

    let switched = call(
        &client,
        "demo_control",
        json!({ "search_field": "excerpt" }),
    )
    .await;
    assert_eq!(switched.is_error, Some(false), "{}", text(&switched));
    let drift = call(&client, "web_search", json!({ "query": "rust" })).await;
    assert_eq!(drift.is_error, Some(true));
    assert!(
        text(&drift).contains("probably a rename"),
        "{}",
        text(&drift)
    );

    let items = call(&client, "list_items", json!({})).await;
    assert_eq!(items.is_error, Some(false), "{}", text(&items));
    // A quota with most of its window left is not worth a word in every answer: the
    // signals stay compact, and dependency_health reports the quota as advertised.
    let meta = serde_json::to_value(items.meta.unwrap()).unwrap();
    let signals = &meta["dev.toolgate/signals"];
    assert_eq!(signals["tool"], "list_items");
    assert!(signals.get("quota").is_none(), "{signals}");
    assert!(signals.get("health").is_none(), "{signals}");
    let health = call(
        &client,
        "dependency_health",
        json!({ "dependency": "quota_api" }),
    )
    .await;
    let report = serde_json::to_value(health.structured_content.unwrap()).unwrap();
    assert_eq!(
        report["dependencies"]["quota_api"]["quota"][0]["limit"], 30,
        "{report}"
    );

    let legacy = call(&client, "legacy_search", json!({ "query": "rust" })).await;
    assert!(
        text(&legacy).contains("toolgate: legacy_search is deprecated")
            && text(&legacy).contains("use web_search"),
        "{}",
        text(&legacy)
    );

    call(&client, "demo_control", json!({ "outage": true })).await;
    let down = call(&client, "list_orders", json!({})).await;
    assert_eq!(down.is_error, Some(true));
    assert!(text(&down).contains("server_error"), "{}", text(&down));

    client.cancel().await.unwrap();
    shutdown.cancel();
}
