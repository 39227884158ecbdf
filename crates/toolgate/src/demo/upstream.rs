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

use crate::gateway::lock;

/// Switchable behaviour of the demo APIs.
#[derive(Debug, Default)]
pub struct DemoState {
    /// Name of the search result text field: `snippet` (contract v3.1) or `excerpt` (the rename).
    pub search_field: std::sync::Mutex<String>,
    /// Calls of the flaky API so far (every other one fails with 503).
    pub flaky_calls: AtomicU64,
}

/// The demo APIs as a router over shared state.
pub fn router(state: Arc<DemoState>) -> Router {
    {
        let mut field = lock(&state.search_field);
        if field.is_empty() {
            *field = "snippet".into();
        }
    }
    Router::new()
        .route("/v3/search", get(search))
        .route("/flaky", get(flaky))
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Control {
    search_field: Option<String>,
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
    show_control(State(state)).await.into_response()
}

async fn show_control(State(state): State<Arc<DemoState>>) -> Json<Value> {
    Json(json!({ "search_field": *lock(&state.search_field) }))
}
