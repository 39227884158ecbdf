//! `_meta["dev.toolgate/signals"]` is a published contract: what toolgate actually sends
//! in each situation validates against docs/signals.schema.json, the committed schema is
//! the one the code generates, and a healthy call's signals stay small (several agent
//! frameworks hand the model the whole result, `_meta` included).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::*;
use crate::signals::{Api, start_api};

/// The most a healthy call's signals may take, in bytes.
const HEALTHY_MAX: usize = 300;

fn published() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/signals.schema.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The signals of a result, checked against the published schema.
fn checked(what: &str, r: &rmcp::model::CallToolResult) -> Value {
    let meta = serde_json::to_value(r.meta.as_ref().unwrap()).unwrap();
    let signals = meta["dev.toolgate/signals"].clone();
    let schema = published();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&signals)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{signals}");
    // Every member sent is one the schema describes: a new member is published first.
    let described = schema["properties"].as_object().unwrap();
    for key in signals.as_object().unwrap().keys() {
        assert!(
            described.contains_key(key),
            "{what}: `{key}` is not in the schema"
        );
    }
    signals
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn the_published_schema_is_the_one_the_code_generates() {
    assert_eq!(
        published(),
        toolgate_engine::pipeline::signals_schema(),
        "docs/signals.schema.json is stale: run toolgate signals-schema > docs/signals.schema.json"
    );
}

fn config(addr: std::net::SocketAddr, state: &std::path::Path) -> String {
    format!(
        r#"
gateway:
  state: {state}
dependencies:
  api:
    base_url: http://{addr}
    timeout: 2s
    retry: {{ max_attempts: 2, base_delay: 5ms, max_delay: 20ms }}
  quota_api:
    base_url: http://{addr}
    timeout: 2s
    retry: {{ max_attempts: 1 }}
tools:
  list_items:
    dependency: api
    owner: carol@example.com
    request: {{ path: /items }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "2.0", response_schema: {{ type: object, required: [items] }} }}
  drifting:
    dependency: api
    owner: carol@example.com
    request: {{ path: /items }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.4", response_schema: {{ type: object, required: [results], properties: {{ results: {{ type: array }} }} }} }}
  limited:
    dependency: quota_api
    owner: carol@example.com
    request: {{ path: /ietf/items }}
    annotations: {{ readOnlyHint: true }}
    deadline: 2s
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [items] }} }}
"#,
        state = state.display()
    )
}

#[tokio::test]
async fn what_is_sent_validates_against_the_published_schema() {
    let api = Api::new(6, Duration::from_secs(3600));
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("signals-schema");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"))).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;

    // Healthy: three members, well under the limit.
    let healthy = call(&client, "list_items", json!({})).await;
    assert_eq!(healthy.is_error, Some(false), "{}", text(&healthy));
    let signals = checked("healthy", &healthy);
    assert_eq!(
        keys(&signals),
        ["attempts", "contract_version", "tool"],
        "{signals}"
    );
    assert_eq!(signals["tool"], "list_items");
    assert_eq!(signals["contract_version"], "2.0");
    assert_eq!(signals["attempts"], 1);
    let size = serde_json::to_string(&signals).unwrap().len();
    assert!(size <= HEALTHY_MAX, "{size} bytes: {signals}");

    // Deprecation: the notice, with the upstream's successor.
    api.deprecated.store(true, Ordering::SeqCst);
    let deprecated = call(&client, "list_items", json!({})).await;
    let signals = checked("deprecation", &deprecated);
    assert_eq!(signals["deprecation"]["deprecated"], true, "{signals}");
    assert_eq!(signals["deprecation"]["sunset"], "2027-01-15T00:00:00Z");
    assert_eq!(signals["deprecation"]["successor"], "/v4/items");
    assert!(signals.get("error_class").is_none(), "{signals}");

    // Drift: the failure and the diff.
    let drift = call(&client, "drifting", json!({})).await;
    assert_eq!(drift.is_error, Some(true));
    let signals = checked("drift", &drift);
    assert_eq!(signals["error_class"], "contract_drift");
    assert_eq!(signals["retryable"], false);
    assert!(
        signals["drift"]["summary"]
            .as_str()
            .unwrap()
            .contains("results"),
        "{signals}"
    );
    assert!(
        !signals["drift"]["changes"].as_array().unwrap().is_empty(),
        "{signals}"
    );

    // Quota low: 6 per window, so the first call leaves 5 — the policy that is low.
    let low = call(&client, "limited", json!({})).await;
    assert_eq!(low.is_error, Some(false), "{}", text(&low));
    let signals = checked("quota low", &low);
    assert_eq!(signals["dependency"], "quota_api", "{signals}");
    assert_eq!(signals["quota"]["policy"], "default", "{signals}");
    assert_eq!(signals["quota"]["limit"], 6, "{signals}");
    assert_eq!(signals["quota"]["remaining"], 5, "{signals}");

    // Rate limited: the quota runs out within the hour; the refusal says when to return.
    let mut refused = None;
    for _ in 0..10 {
        let r = call(&client, "limited", json!({})).await;
        if r.is_error == Some(true) {
            refused = Some(r);
            break;
        }
        checked("quota low", &r);
    }
    let refused = refused.expect("the quota runs out");
    let signals = checked("rate limited", &refused);
    assert_eq!(signals["error_class"], "rate_limited", "{signals}");
    assert_eq!(signals["retryable"], true, "{signals}");
    let wait = signals["retry_after_s"].as_u64().unwrap();
    assert!((1..=3601).contains(&wait), "{signals}");
    assert!(signals["retry_at"].as_str().unwrap().ends_with('Z'));

    // A fronted MCP tool: the front's signals, next to the upstream's own `_meta`.
    api.deprecated.store(false, Ordering::SeqCst);
    let front = start_toolgate(&format!(
        "gateway:\n  state: {}\nmcp_servers:\n  back: {{ url: \"{}\", owner: ops@example.com }}\n",
        dir.join("front.db").display(),
        tg.url
    ))
    .await;
    let front_client = rmcp_client(&front.url, Era::Stateless).await;
    // The front knows the back's tools once it has listed them (right after start).
    for _ in 0..100 {
        let listed = front_client.list_all_tools().await.unwrap();
        if listed.iter().any(|t| t.name == "back__list_items") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fronted = call(&front_client, "back__list_items", json!({})).await;
    assert_eq!(fronted.is_error, Some(false), "{}", text(&fronted));
    let signals = checked("fronted", &fronted);
    assert_eq!(signals["tool"], "back__list_items", "{signals}");
    assert_eq!(signals["attempts"], 1, "{signals}");
    let size = serde_json::to_string(&signals).unwrap().len();
    assert!(size <= HEALTHY_MAX, "{size} bytes: {signals}");
}
