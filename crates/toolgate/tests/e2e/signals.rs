//! Operational signals reach the agent: quota pacing, outages, brownouts, deprecation
//! and status pages — each against a real loopback upstream that behaves accordingly.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::harness::*;

/// A quota'd, switchable API.
pub(super) struct Api {
    /// Requests per window.
    limit: u64,
    window: Duration,
    /// (window start, used in window)
    quota: Mutex<(Instant, u64)>,
    /// Responses by status.
    statuses: Mutex<Vec<u16>>,
    outage: AtomicBool,
    delay_ms: AtomicU64,
    pub(super) deprecated: AtomicBool,
    pub(super) page_indicator: Mutex<String>,
}

impl Api {
    pub(super) fn new(limit: u64, window: Duration) -> Arc<Api> {
        Arc::new(Api {
            limit,
            window,
            quota: Mutex::new((Instant::now(), 0)),
            statuses: Mutex::new(Vec::new()),
            outage: AtomicBool::new(false),
            delay_ms: AtomicU64::new(0),
            deprecated: AtomicBool::new(false),
            page_indicator: Mutex::new("none".into()),
        })
    }

    fn count(&self, status: u16) -> usize {
        self.statuses
            .lock()
            .unwrap()
            .iter()
            .filter(|s| **s == status)
            .count()
    }

    fn total(&self) -> usize {
        self.statuses.lock().unwrap().len()
    }

    /// Takes one request from the window: (allowed, remaining, seconds to reset).
    fn take(&self) -> (bool, u64, Duration) {
        let mut q = self.quota.lock().unwrap();
        let now = Instant::now();
        if now.duration_since(q.0) >= self.window {
            *q = (now, 0);
        }
        let reset_in = self.window.saturating_sub(now.duration_since(q.0));
        if q.1 >= self.limit {
            return (false, 0, reset_in);
        }
        q.1 += 1;
        (true, self.limit - q.1, reset_in)
    }

    fn record(&self, status: StatusCode) {
        self.statuses.lock().unwrap().push(status.as_u16());
    }
}

fn epoch_after(d: Duration) -> u64 {
    let at = SystemTime::now() + d;
    // Rounded up, as a reset time must not be earlier than the real one.
    at.duration_since(UNIX_EPOCH).unwrap().as_secs() + 1
}

async fn github_items(State(api): State<Arc<Api>>) -> Response {
    let (ok, remaining, reset_in) = api.take();
    let mut h = HeaderMap::new();
    h.insert("x-ratelimit-limit", HeaderValue::from(api.limit));
    h.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
    h.insert("x-ratelimit-used", HeaderValue::from(api.limit - remaining));
    h.insert(
        "x-ratelimit-reset",
        HeaderValue::from(epoch_after(reset_in)),
    );
    h.insert("x-ratelimit-resource", HeaderValue::from_static("core"));
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::FORBIDDEN
    };
    api.record(status);
    if ok {
        (status, h, axum::Json(json!({ "items": [1, 2, 3] }))).into_response()
    } else {
        (
            status,
            h,
            axum::Json(json!({ "message": "API rate limit exceeded" })),
        )
            .into_response()
    }
}

async fn ietf_items(State(api): State<Arc<Api>>) -> Response {
    let (ok, remaining, reset_in) = api.take();
    let mut h = HeaderMap::new();
    let w = api.window.as_secs();
    h.insert(
        "ratelimit-policy",
        HeaderValue::from_str(&format!("\"default\";q={};w={w}", api.limit)).unwrap(),
    );
    let t = reset_in.as_secs() + u64::from(reset_in.subsec_nanos() > 0);
    h.insert(
        "ratelimit",
        HeaderValue::from_str(&format!("\"default\";r={remaining};t={t}")).unwrap(),
    );
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::TOO_MANY_REQUESTS
    };
    api.record(status);
    (status, h, axum::Json(json!({ "items": [1, 2, 3] }))).into_response()
}

async fn behaving(State(api): State<Arc<Api>>) -> Response {
    let delay = api.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if api.outage.load(Ordering::SeqCst) {
        api.record(StatusCode::SERVICE_UNAVAILABLE);
        return (StatusCode::SERVICE_UNAVAILABLE, "upstream down").into_response();
    }
    api.record(StatusCode::OK);
    let mut h = HeaderMap::new();
    if api.deprecated.load(Ordering::SeqCst) {
        h.insert("deprecation", HeaderValue::from_static("@1767225600"));
        h.insert(
            "sunset",
            HeaderValue::from_static("Fri, 15 Jan 2027 00:00:00 GMT"),
        );
        h.insert(
            "link",
            HeaderValue::from_static(
                "</v4/items>; rel=\"successor-version\", <https://developer.example.com/deprecation>; rel=\"deprecation\"",
            ),
        );
    }
    (h, axum::Json(json!({ "items": [1, 2, 3] }))).into_response()
}

async fn status_page(State(api): State<Arc<Api>>) -> axum::Json<Value> {
    let indicator = api.page_indicator.lock().unwrap().clone();
    let description = if indicator == "none" {
        "All Systems Operational"
    } else {
        "Partial System Outage"
    };
    axum::Json(json!({
        "page": { "id": "kctbh9vrtdwd", "name": "Example", "url": "https://status.example.com", "updated_at": "2026-11-30T10:00:00Z" },
        "status": { "indicator": indicator, "description": description }
    }))
}

pub(super) async fn start_api(api: Arc<Api>) -> std::net::SocketAddr {
    let app = Router::new()
        .route("/github/items", get(github_items))
        .route("/ietf/items", get(ietf_items))
        .route("/items", get(behaving))
        .route("/api/v2/status.json", get(status_page))
        .with_state(api);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn config(
    addr: std::net::SocketAddr,
    state: &std::path::Path,
    path: &str,
    deadline: &str,
    extra_dep: &str,
) -> String {
    format!(
        r#"
gateway:
  state: {state}
dependencies:
  api:
    base_url: http://{addr}
    timeout: 2s
    retry: {{ max_attempts: 3, base_delay: 5ms, max_delay: 20ms }}
{extra_dep}
tools:
  list_items:
    dependency: api
    owner: carol@example.com
    request: {{ path: {path} }}
    annotations: {{ readOnlyHint: true }}
    deadline: {deadline}
    successor: list_items_v2
    contract: {{ version: "2.0", response_schema: {{ type: object, required: [items] }} }}
  list_items_v2:
    dependency: api
    owner: carol@example.com
    request: {{ path: /items }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "2.1", response_schema: {{ type: object, required: [items] }} }}
"#,
        state = state.display()
    )
}

/// Calls the paced tool 40 times against a 20-per-window quota; none may be refused upstream.
async fn quota_scenario(path: &str, refused: u16) {
    let api = Api::new(20, Duration::from_secs(2));
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("quota");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"), path, "8s", "")).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let mut ok = 0;
    let mut failed_fast = 0;
    let mut quota_notes = 0;
    for _ in 0..40 {
        let r = call(&client, "list_items", json!({})).await;
        let t = text(&r);
        if t.contains("toolgate: Quota for api") {
            quota_notes += 1;
        }
        if r.is_error == Some(true) {
            assert!(t.contains("rate_limited") && t.contains("resets in"), "{t}");
            failed_fast += 1;
        } else {
            ok += 1;
        }
    }
    assert_eq!(
        api.count(refused),
        0,
        "the upstream never had to refuse a call (statuses: {:?})",
        api.statuses.lock().unwrap()
    );
    assert_eq!(ok + failed_fast, 40);
    assert!(
        ok >= 20,
        "calls past the quota waited for the reset when it fitted the deadline (ok = {ok})"
    );
    assert!(quota_notes > 0, "notes report the remaining quota");
    let metrics = tg.metrics().await;
    assert!(
        metrics.contains("toolgate_quota_limit{dependency=\"api\""),
        "{metrics}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn github_style_quota_is_paced_without_a_single_refusal() {
    quota_scenario("/github/items", 403).await;
}

#[tokio::test]
async fn ietf_structured_quota_is_paced_without_a_single_refusal() {
    quota_scenario("/ietf/items", 429).await;
}

#[tokio::test]
async fn exhausted_quota_fails_fast_with_the_reset_time_when_the_deadline_is_short() {
    let api = Api::new(3, Duration::from_secs(30));
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("quota-fast");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"), "/github/items", "1s", "")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    let mut texts = Vec::new();
    for _ in 0..6 {
        texts.push(text(&call(&client, "list_items", json!({})).await));
    }
    assert_eq!(api.count(403), 0, "{texts:?}");
    let refused: Vec<&String> = texts
        .iter()
        .filter(|t| t.contains("rate_limited"))
        .collect();
    assert!(!refused.is_empty(), "{texts:?}");
    assert!(
        refused[0].contains("resets in") && refused[0].contains("sent nothing"),
        "{}",
        refused[0]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_full_outage_costs_at_most_1_2_upstream_requests_per_call() {
    let api = Api::new(1_000_000, Duration::from_secs(3600));
    api.outage.store(true, Ordering::SeqCst);
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("outage");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"), "/items", "5s", "")).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let mut last = String::new();
    for _ in 0..200 {
        let r = call(&client, "list_items", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        last = text(&r);
    }
    let upstream = api.total();
    assert!(
        upstream as f64 <= 1.2 * 200.0,
        "upstream requests {upstream} for 200 calls"
    );
    assert!(
        last.contains("circuit_open") && last.contains("Next check in"),
        "{last}"
    );
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(&metrics, "toolgate_circuit_state{dependency=\"api\"}"),
        1.0,
        "{metrics}"
    );
    client.cancel().await.unwrap();
}

/// Real time on loopback, so the steps are far apart from what a loaded 2-core machine
/// adds to a call: the detector enters at 2.5× the baseline (and a 20 ms rise) and leaves
/// below 1.5× it. With a 50 ms baseline, a 500 ms step passes the entry threshold unless
/// scheduling adds ~150 ms to the median call, and the return to 50 ms passes the exit
/// threshold unless it adds 25 ms more than during the baseline. The call counts are
/// the detector's own (a median of 10, 5 in a row), not timings.
#[tokio::test]
async fn a_brownout_is_noted_within_20_calls_and_the_note_goes_away_after() {
    const BASELINE_MS: u64 = 50;
    const SLOW_MS: u64 = 500;
    let api = Api::new(1_000_000, Duration::from_secs(3600));
    api.delay_ms.store(BASELINE_MS, Ordering::SeqCst);
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("brownout");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"), "/items", "5s", "")).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    for _ in 0..30 {
        let r = call(&client, "list_items", json!({})).await;
        assert!(
            !text(&r).contains("is slow"),
            "no brownout at the baseline: {}",
            text(&r)
        );
    }
    api.delay_ms.store(SLOW_MS, Ordering::SeqCst);
    let mut noted_after = None;
    for i in 1..=20 {
        let r = call(&client, "list_items", json!({})).await;
        if text(&r).contains("toolgate: api is slow: latency is") {
            noted_after = Some(i);
            break;
        }
    }
    assert!(
        noted_after.is_some(),
        "latency ×10 must be noted within 20 calls"
    );
    assert_eq!(
        metric(&tg.metrics().await, "toolgate_brownout{dependency=\"api\"}"),
        1.0
    );
    api.delay_ms.store(BASELINE_MS, Ordering::SeqCst);
    let mut cleared = false;
    for _ in 0..40 {
        let r = call(&client, "list_items", json!({})).await;
        if !text(&r).contains("is slow") {
            cleared = true;
            break;
        }
    }
    assert!(
        cleared,
        "the note disappears once latency is back to normal"
    );
    assert_eq!(
        metric(&tg.metrics().await, "toolgate_brownout{dependency=\"api\"}"),
        0.0
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn deprecation_headers_reach_the_very_next_result_and_open_an_incident() {
    let api = Api::new(1_000_000, Duration::from_secs(3600));
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("deprecation");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"), "/items", "5s", "")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    let before = call(&client, "list_items", json!({})).await;
    assert!(!text(&before).contains("deprecated"));
    api.deprecated.store(true, Ordering::SeqCst);
    let after = call(&client, "list_items", json!({})).await;
    let t = text(&after);
    assert_eq!(after.is_error, Some(false));
    assert!(
        t.contains("toolgate: list_items is deprecated")
            && t.contains("2027-01-15")
            && t.contains("use list_items_v2"),
        "{t}"
    );
    let meta = serde_json::to_value(after.meta.as_ref().unwrap()).unwrap();
    assert_eq!(
        meta["dev.toolgate/signals"]["deprecation"]["successor"],
        "/v4/items"
    );
    let incidents = tg.incidents(false).await;
    assert!(
        incidents.iter().any(|i| i.kind == "deprecation"
            && i.tool == "list_items"
            && i.title.contains("2027-01-15")),
        "{incidents:?}"
    );
    assert_eq!(
        metric(
            &tg.metrics().await,
            "toolgate_sunset_timestamp_seconds{tool=\"list_items\"}"
        ),
        1_799_971_200.0
    );

    // The upstream withdraws the notice. A few replies without it (one server of a
    // pool that lacks the header) do not drop it...
    api.deprecated.store(false, Ordering::SeqCst);
    for _ in 0..10 {
        call(&client, "list_items", json!({})).await;
    }
    let t = text(&call(&client, "list_items", json!({})).await);
    assert!(t.contains("toolgate: list_items is deprecated"), "{t}");
    // ...but 20 successful replies in a row without it do: no note, the incident is
    // resolved, the sunset series is gone.
    for _ in 0..10 {
        call(&client, "list_items", json!({})).await;
    }
    let t = text(&call(&client, "list_items", json!({})).await);
    assert!(!t.contains("deprecated"), "{t}");
    let mut open = tg.incidents(false).await;
    for _ in 0..50 {
        if !open.iter().any(|i| i.kind == "deprecation") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        open = tg.incidents(false).await;
    }
    assert!(!open.iter().any(|i| i.kind == "deprecation"), "{open:?}");
    assert!(
        !tg.metrics()
            .await
            .contains("toolgate_sunset_timestamp_seconds{tool=\"list_items\"}")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_red_status_page_shows_in_dependency_health_and_in_notes() {
    let api = Api::new(1_000_000, Duration::from_secs(3600));
    let addr = start_api(api.clone()).await;
    let dir = temp_dir("statuspage");
    let page =
        format!("    status_page: {{ url: \"http://{addr}/api/v2/status.json\", every: 1s }}");
    let tg = start_toolgate(&config(addr, &dir.join("s.db"), "/items", "5s", &page)).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    *api.page_indicator.lock().unwrap() = "major".into();
    let mut report = Value::Null;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let r = call(&client, "dependency_health", json!({ "dependency": "api" })).await;
        report = r.structured_content.clone().unwrap();
        if report["dependencies"]["api"]["status_page"]["indicator"] == "major" {
            break;
        }
    }
    let dep = &report["dependencies"]["api"];
    assert_eq!(dep["status_page"]["indicator"], "major", "{report}");
    assert_ne!(dep["status"], "healthy", "{report}");
    assert!(
        dep["advice"].as_str().unwrap().contains("status page"),
        "{report}"
    );
    let r = call(&client, "list_items", json!({})).await;
    assert!(
        text(&r).contains("toolgate: api's status page reports it degraded (indicator \"major\")"),
        "{}",
        text(&r)
    );
    let meta = serde_json::to_value(r.meta.as_ref().unwrap()).unwrap();
    let signals = &meta["dev.toolgate/signals"];
    assert_eq!(signals["status_page"]["indicator"], "major", "{signals}");
    assert_eq!(signals["dependency"], "api", "{signals}");
    client.cancel().await.unwrap();
}
