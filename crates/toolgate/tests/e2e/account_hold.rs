//! A refused account holds back further calls: once the upstream says the account
//! behind toolgate's calls is spent, calls are answered at once without going upstream,
//! until the renewal it stated, then a single trial call; the first success ends it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::harness::*;

/// An API whose account can be spent and topped up, counting every request.
#[derive(Default)]
struct Billing {
    spent: AtomicBool,
    /// The refusal says nothing of when the account renews.
    unstated: AtomicBool,
    requests: AtomicU64,
}

/// The refusal as OpenAI documents it (a 429 `insufficient_quota`,
/// <https://platform.openai.com/docs/guides/error-codes>), with the renewal stated.
async fn items(State(api): State<Arc<Billing>>) -> Response {
    api.requests.fetch_add(1, Ordering::SeqCst);
    if api.spent.load(Ordering::SeqCst) {
        let mut h = HeaderMap::new();
        if !api.unstated.load(Ordering::SeqCst) {
            h.insert("retry-after", HeaderValue::from_static("1"));
        }
        let body = json!({"error": {
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota", "code": "insufficient_quota"}});
        return (StatusCode::TOO_MANY_REQUESTS, h, axum::Json(body)).into_response();
    }
    axum::Json(json!({ "items": [1, 2] })).into_response()
}

async fn start(api: Arc<Billing>) -> std::net::SocketAddr {
    serve(Router::new().route("/items", get(items)).with_state(api)).await
}

/// Serves `app` on a loopback port of its own.
async fn serve(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn config(addr: std::net::SocketAddr, state: &std::path::Path) -> String {
    config_holding(addr, state, "")
}

/// The config, with `hold` (an `account_hold: …` line, or nothing) on the dependency.
fn config_holding(addr: std::net::SocketAddr, state: &std::path::Path, hold: &str) -> String {
    format!(
        r#"
gateway:
  state: {state}
  account_hold: 1h
dependencies:
  billed:
    base_url: http://{addr}
    {hold}
    timeout: 2s
    retry: {{ max_attempts: 3, base_delay: 5ms, max_delay: 20ms }}
tools:
  list_items:
    dependency: billed
    owner: dana@example.com
    request: {{ path: /items }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [items] }} }}
"#,
        state = state.display()
    )
}

fn signals(r: &rmcp::model::CallToolResult) -> Value {
    let meta = serde_json::to_value(r.meta.clone().unwrap()).unwrap();
    meta["dev.toolgate/signals"].clone()
}

#[tokio::test]
async fn a_refused_account_holds_back_calls_until_a_trial_call_passes() {
    let api = Arc::new(Billing::default());
    api.spent.store(true, Ordering::SeqCst);
    let addr = start(api.clone()).await;
    let dir = temp_dir("account-hold");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"))).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;

    // The refusal itself: one request, not retried.
    let first = call(&client, "list_items", json!({})).await;
    assert_eq!(first.is_error, Some(true));
    assert_eq!(
        signals(&first)["error_class"],
        "account",
        "{}",
        text(&first)
    );
    assert_eq!(api.requests.load(Ordering::SeqCst), 1);

    // Every further call is answered at once, with the account's words and when.
    for _ in 0..20 {
        let r = call(&client, "list_items", json!({})).await;
        let t = text(&r);
        assert_eq!(r.is_error, Some(true));
        assert!(
            t.contains("Error class: account")
                && t.contains("holds back")
                && t.contains("sent nothing"),
            "{t}"
        );
        let s = signals(&r);
        assert_eq!(s["error_class"], "account", "{s}");
        assert_eq!(s["attempts"], 0, "{s}");
        assert!(s["retry_after_s"].as_u64().is_some_and(|w| w <= 1), "{s}");
    }
    assert_eq!(
        api.requests.load(Ordering::SeqCst),
        1,
        "held calls never reach the upstream"
    );
    let health = call(
        &client,
        "dependency_health",
        json!({ "dependency": "billed" }),
    )
    .await;
    let report = serde_json::to_value(health.structured_content.unwrap()).unwrap();
    assert!(
        report["dependencies"]["billed"]["account_held"]["retry_in_s"].is_u64(),
        "{report}"
    );
    // Down while held: no call would go, whatever the last replies' latency said.
    assert_eq!(
        report["dependencies"]["billed"]["status"], "down",
        "{report}"
    );
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(&metrics, "toolgate_account_held{dependency=\"billed\"}"),
        1.0
    );

    // When the stated renewal passes, one trial call goes; refused, the hold is on again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let trial = call(&client, "list_items", json!({})).await;
    assert_eq!(signals(&trial)["attempts"], 1, "{}", text(&trial));
    let held = call(&client, "list_items", json!({})).await;
    assert_eq!(signals(&held)["attempts"], 0, "{}", text(&held));
    assert_eq!(api.requests.load(Ordering::SeqCst), 2);

    // Topped up: the next trial passes, and with it every call after.
    api.spent.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for _ in 0..5 {
        let r = call(&client, "list_items", json!({})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
    }
    assert_eq!(api.requests.load(Ordering::SeqCst), 7);
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(&metrics, "toolgate_account_held{dependency=\"billed\"}"),
        0.0
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_configured_hold_is_how_long_calls_are_held_when_the_refusal_states_no_renewal() {
    let api = Arc::new(Billing::default());
    api.spent.store(true, Ordering::SeqCst);
    api.unstated.store(true, Ordering::SeqCst);
    let addr = start(api.clone()).await;
    let dir = temp_dir("account-hold-configured");
    // The gateway's hour is overridden by the dependency's two seconds.
    let tg = start_toolgate(&config_holding(addr, &dir.join("s.db"), "account_hold: 2s")).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let first = call(&client, "list_items", json!({})).await;
    assert_eq!(
        signals(&first)["error_class"],
        "account",
        "{}",
        text(&first)
    );
    let held = call(&client, "list_items", json!({})).await;
    let s = signals(&held);
    assert_eq!(s["attempts"], 0, "{s}");
    assert!(
        s["retry_after_s"]
            .as_u64()
            .is_some_and(|w| (1..=2).contains(&w)),
        "told the configured hold, not the default nor the gateway's: {s}"
    );
    // Held for the two seconds, then one trial; topped up, it passes.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let still = call(&client, "list_items", json!({})).await;
    assert_eq!(signals(&still)["attempts"], 0, "{}", text(&still));
    assert_eq!(api.requests.load(Ordering::SeqCst), 1);
    api.spent.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let trial = call(&client, "list_items", json!({})).await;
    assert_eq!(trial.is_error, Some(false), "{}", text(&trial));
    assert_eq!(api.requests.load(Ordering::SeqCst), 2);
    client.cancel().await.unwrap();
}

/// An API whose account holds as many projects as its plan allows: creating one more is
/// refused, while listing (and deleting, which would free room) still works.
async fn full_projects(State(requests): State<Arc<AtomicU64>>) -> Response {
    requests.fetch_add(1, Ordering::SeqCst);
    let body = json!({"error": {"code": "LimitExceeded",
        "message": "You have reached the maximum number of projects (5) for this organization."}});
    (StatusCode::FORBIDDEN, axum::Json(body)).into_response()
}

async fn listed(State(requests): State<Arc<AtomicU64>>) -> Response {
    requests.fetch_add(1, Ordering::SeqCst);
    axum::Json(json!({ "items": [1, 2] })).into_response()
}

#[tokio::test]
async fn a_full_count_refuses_the_call_that_adds_to_it_but_holds_no_other_call_back() {
    let requests = Arc::new(AtomicU64::new(0));
    let addr = serve(
        Router::new()
            .route("/items", get(listed).post(full_projects))
            .with_state(requests.clone()),
    )
    .await;
    let dir = temp_dir("account-full-count");
    let mut yaml = config(addr, &dir.join("s.db"));
    yaml.push_str(
        r#"  create_project:
    dependency: billed
    owner: dana@example.com
    request: { method: POST, path: /items }
    annotations: { idempotentHint: true }
    contract: { version: "1.0", response_schema: { type: object } }
"#,
    );
    let tg = start_toolgate(&yaml).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;

    // The account's to mend (the owner raises the limit or removes a project), so it is
    // not retried and is told as the account's.
    let refused = call(&client, "create_project", json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        signals(&refused)["error_class"],
        "account",
        "{}",
        text(&refused)
    );
    assert_eq!(requests.load(Ordering::SeqCst), 1, "not retried");
    // The model is told what mends it and that the account's other calls still work.
    assert!(
        text(&refused).contains("holds as many of these as its limit allows")
            && text(&refused).contains("calls that read or remove still work"),
        "{}",
        text(&refused)
    );

    // But the account still works: the dependency's other calls go upstream and pass,
    // however many follow.
    for n in 0..3 {
        let r = call(&client, "list_items", json!({})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        assert_eq!(
            requests.load(Ordering::SeqCst),
            2 + n,
            "the list went upstream"
        );
    }
    let health = call(
        &client,
        "dependency_health",
        json!({ "dependency": "billed" }),
    )
    .await;
    let report = serde_json::to_value(health.structured_content.unwrap()).unwrap();
    assert!(
        report["dependencies"]["billed"]["account_held"].is_null(),
        "{report}"
    );
}
