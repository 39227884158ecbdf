//! The demo upstream: small fake APIs on loopback, so every behaviour of toolgate can
//! be watched with no network and no config. Their behaviour is switched at run time
//! through `POST /control` (also exposed to agents as the `demo_control` tool).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use toolgate_engine::sync::lock;

/// Switchable behaviour of the demo APIs.
#[derive(Debug, Default)]
pub struct DemoState {
    /// Name of the search result text field: `snippet` (contract v3.1) or `excerpt` (the rename).
    pub search_field: std::sync::Mutex<String>,
    /// Calls of the flaky API so far (every other one fails with 503).
    pub flaky_calls: AtomicU64,
    /// Added latency of the slow API, in milliseconds.
    pub slow_ms: AtomicU64,
    /// Whether the orders API is down (503 on every call).
    pub outage: std::sync::atomic::AtomicBool,
    /// Statuspage indicator: none, minor, major or critical.
    pub status_indicator: std::sync::Mutex<String>,
    /// The quota'd API's window: (start, used).
    pub quota: std::sync::Mutex<Option<(tokio::time::Instant, u64)>>,
}

/// The quota'd API allows this many calls per window.
const QUOTA_LIMIT: u64 = 30;
const QUOTA_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// The demo APIs as a router over shared state.
pub fn router(state: Arc<DemoState>) -> Router {
    {
        let mut field = lock(&state.search_field);
        if field.is_empty() {
            *field = "snippet".into();
        }
        let mut indicator = lock(&state.status_indicator);
        if indicator.is_empty() {
            *indicator = "none".into();
        }
        state
            .slow_ms
            .compare_exchange(0, 50, Ordering::Relaxed, Ordering::Relaxed)
            .ok();
    }
    Router::new()
        .route("/v3/search", get(search))
        .route("/flaky", get(flaky))
        .route("/quota/items", get(quota_items))
        .route("/slow/report", get(slow_report))
        .route("/orders", get(orders))
        .route("/legacy/search", get(legacy_search))
        .route("/status.json", get(status_page))
        .route("/control", post(control).get(show_control))
        .with_state(state)
}

#[derive(Debug, Deserialize)]
struct SearchQuery {
    q: Option<String>,
    limit: Option<usize>,
}

async fn search(
    State(state): State<Arc<DemoState>>,
    Query(query): Query<SearchQuery>,
) -> Json<Value> {
    let field = lock(&state.search_field).clone();
    let q = query.q.unwrap_or_default();
    let n = query.limit.unwrap_or(3).clamp(1, 10);
    let results: Vec<Value> = (1..=n)
        .map(|i| {
            let mut r = serde_json::Map::new();
            r.insert("title".into(), json!(format!("Result {i} for {q}")));
            r.insert("url".into(), json!(format!("https://example.com/{i}")));
            r.insert(
                field.clone(),
                json!(format!("…a passage that mentions {q} (#{i})…")),
            );
            r.insert("score".into(), json!(1.0 / i as f64));
            Value::Object(r)
        })
        .collect();
    Json(json!({ "query": q, "results": results, "total": n }))
}

async fn flaky(State(state): State<Arc<DemoState>>) -> Response {
    let n = state.flaky_calls.fetch_add(1, Ordering::Relaxed);
    if n % 2 == 0 {
        (StatusCode::SERVICE_UNAVAILABLE, "temporarily unavailable").into_response()
    } else {
        Json(json!({ "status": "ok", "call": n + 1 })).into_response()
    }
}

// GitHub-style quota headers (x-ratelimit-*, reset as epoch seconds); 403 when used up.
async fn quota_items(State(state): State<Arc<DemoState>>) -> Response {
    let now = tokio::time::Instant::now();
    let (used, reset_in) = {
        let mut q = lock(&state.quota);
        let (start, used) = q.get_or_insert((now, 0));
        if now.duration_since(*start) >= QUOTA_WINDOW {
            *start = now;
            *used = 0;
        }
        *used += 1;
        (
            *used,
            QUOTA_WINDOW.saturating_sub(now.duration_since(*start)),
        )
    };
    let remaining = QUOTA_LIMIT.saturating_sub(used);
    let reset = std::time::SystemTime::now()
        .checked_add(reset_in)
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() + 1);
    let headers = [
        ("x-ratelimit-limit", QUOTA_LIMIT.to_string()),
        ("x-ratelimit-remaining", remaining.to_string()),
        ("x-ratelimit-used", used.min(QUOTA_LIMIT).to_string()),
        ("x-ratelimit-reset", reset.to_string()),
        ("x-ratelimit-resource", "core".to_string()),
    ];
    if used > QUOTA_LIMIT {
        return (
            StatusCode::FORBIDDEN,
            headers,
            Json(json!({ "message": "API rate limit exceeded" })),
        )
            .into_response();
    }
    (
        headers,
        Json(json!({ "items": [{ "id": used, "name": format!("item {used}") }] })),
    )
        .into_response()
}

async fn slow_report(State(state): State<Arc<DemoState>>) -> Json<Value> {
    let ms = state.slow_ms.load(Ordering::Relaxed);
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    Json(json!({ "report": "weekly", "rows": 42 }))
}

async fn orders(State(state): State<Arc<DemoState>>) -> Response {
    if state.outage.load(Ordering::Relaxed) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "orders database unavailable",
        )
            .into_response();
    }
    Json(json!({ "orders": [{ "id": "A-1001", "status": "shipped" }] })).into_response()
}

// RFC 9745 Deprecation, RFC 8594 Sunset and a successor link, on every response.
async fn legacy_search(Query(query): Query<SearchQuery>) -> Response {
    let headers = [
        ("deprecation", "@1767225600".to_string()),
        ("sunset", "Fri, 15 Jan 2027 00:00:00 GMT".to_string()),
        ("link", "</v3/search>; rel=\"successor-version\", <https://example.com/deprecations/v2-search>; rel=\"deprecation\"".to_string()),
    ];
    let q = query.q.unwrap_or_default();
    (
        headers,
        Json(json!({ "hits": [{ "title": format!("Legacy result for {q}") }] })),
    )
        .into_response()
}

// Atlassian Statuspage v2 (/api/v2/status.json) shape.
async fn status_page(State(state): State<Arc<DemoState>>) -> Json<Value> {
    let indicator = lock(&state.status_indicator).clone();
    let description = match indicator.as_str() {
        "none" => "All Systems Operational",
        "minor" => "Minor Service Outage",
        "major" => "Partial System Outage",
        _ => "Major Service Outage",
    };
    Json(json!({
        "page": { "id": "demo", "name": "Demo Search", "url": "https://status.example.com", "updated_at": "2026-11-30T00:00:00Z" },
        "status": { "indicator": indicator, "description": description }
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Control {
    search_field: Option<String>,
    slow_ms: Option<u64>,
    outage: Option<bool>,
    status_indicator: Option<String>,
}

async fn control(State(state): State<Arc<DemoState>>, Json(c): Json<Control>) -> Response {
    if let Some(f) = c.search_field {
        if !matches!(f.as_str(), "snippet" | "excerpt") {
            return (
                StatusCode::UNPROCESSABLE_ENTITY,
                "search_field must be snippet or excerpt",
            )
                .into_response();
        }
        *lock(&state.search_field) = f;
    }
    if let Some(ms) = c.slow_ms {
        state.slow_ms.store(ms.min(30_000), Ordering::Relaxed);
    }
    if let Some(o) = c.outage {
        state.outage.store(o, Ordering::Relaxed);
    }
    if let Some(i) = c.status_indicator {
        if !matches!(i.as_str(), "none" | "minor" | "major" | "critical") {
            return (
                StatusCode::UNPROCESSABLE_ENTITY,
                "status_indicator must be none, minor, major or critical",
            )
                .into_response();
        }
        *lock(&state.status_indicator) = i;
    }
    show_control(State(state)).await.into_response()
}

async fn show_control(State(state): State<Arc<DemoState>>) -> Json<Value> {
    Json(json!({
        "search_field": *lock(&state.search_field),
        "slow_ms": state.slow_ms.load(Ordering::Relaxed),
        "outage": state.outage.load(Ordering::Relaxed),
        "status_indicator": *lock(&state.status_indicator),
    }))
}
