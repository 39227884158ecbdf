//! The HTTP listener: `/mcp` (streamable HTTP), `/metrics`, `/healthz`, `/readyz`,
//! `/admin/*`, and in demo mode `/demo/*`.
//!
//! Every request passes one admission layer before anything answers it
//! ([`admission`]): the Host allow-list (every endpoint), the Origin check (`/mcp`),
//! the bearer token (`/mcp` and `/admin`, when configured) and the body limit. The
//! connections themselves are served by [`listener`], which bounds them.

pub mod admission;
mod audit;
pub mod listener;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use tokio_util::sync::CancellationToken;

use crate::mcp::dispatch::Server;
use crate::mcp::http::{Mcp, Settings};
use toolgate_engine::gateway::Gateway;

pub use listener::{Limits, serve, serve_with};

/// Builds the router, admission included. `extra` (the demo upstream) is merged in
/// behind the same admission layer.
pub fn router(gateway: Arc<Gateway>, shutdown: CancellationToken, extra: Option<Router>) -> Router {
    let g = &gateway.config().gateway;
    let settings = Settings {
        max_sessions: g.max_sessions,
        session_idle: g.session_idle,
        max_request_bytes: g.max_request_bytes,
        session_keys: g.session_keys.clone(),
        session_lifetime: g.session_lifetime,
    };
    let auth = Arc::new(toolgate_auth::Authenticator::new(
        g,
        &gateway.config().agents,
        gateway.client().http().clone(),
    ));
    let metadata = gateway
        .config()
        .gateway
        .auth
        .as_ref()
        .map(|a| Arc::new(toolgate_auth::metadata_document(a)));
    let admission = Arc::new(admission::Admission::new(g, auth));
    let mcp = Mcp::new(Arc::new(Server::new(gateway.clone())), &settings, shutdown);
    let mcp_routes = Router::new()
        .route("/mcp", any(crate::mcp::http::handle))
        .with_state(mcp);
    let other = Router::new()
        .route("/admin/incidents", get(incidents))
        .route("/admin/health", get(health))
        .route("/admin/status", get(status))
        .route("/admin/learned", get(learned))
        .route("/admin/audit", get(audit::audit))
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .with_state(gateway);
    let mut app = mcp_routes.merge(other);
    if let Some(doc) = metadata {
        // RFC 9728: at the well-known path and, for a resource with a path (`/mcp`),
        // with that path appended; clients try both.
        let well_known = Router::new()
            .route(toolgate_auth::WELL_KNOWN, get(protected_resource))
            .route(
                &format!("{}/{{*path}}", toolgate_auth::WELL_KNOWN),
                get(protected_resource),
            )
            .with_state(doc);
        app = app.merge(well_known);
    }
    if let Some(extra) = extra {
        app = app.merge(extra);
    }
    app.layer(middleware::from_fn_with_state(admission, admission::admit))
}

async fn protected_resource(State(doc): State<Arc<serde_json::Value>>) -> Response {
    (
        [(header::CACHE_CONTROL, "public, max-age=3600")],
        axum::Json(doc.as_ref().clone()),
    )
        .into_response()
}

async fn metrics(State(gateway): State<Arc<Gateway>>) -> Response {
    gateway.refresh_coverage();
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        gateway.metrics().render(),
    )
        .into_response()
}

async fn ready(State(gateway): State<Arc<Gateway>>) -> Response {
    match gateway.store().ping().await {
        Ok(()) => (StatusCode::OK, "ready").into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("state store unavailable: {e}"),
        )
            .into_response(),
    }
}

async fn incidents(State(gateway): State<Arc<Gateway>>) -> Response {
    match gateway.store().incidents(true).await {
        Ok(list) => axum::Json(list).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn status(State(gateway): State<Arc<Gateway>>) -> Response {
    axum::Json(toolgate_engine::status::report(&gateway).await).into_response()
}

/// The learned contracts, as `toolgate lock` pins them.
async fn learned(State(gateway): State<Arc<Gateway>>) -> Response {
    let pins: serde_json::Map<String, serde_json::Value> = gateway
        .learned()
        .into_iter()
        .filter(|(_, s)| s.samples > 0)
        .map(|(name, s)| (name, serde_json::to_value(&s.pin).unwrap_or_default()))
        .collect();
    axum::Json(serde_json::Value::Object(pins)).into_response()
}

async fn health(State(gateway): State<Arc<Gateway>>) -> Response {
    match toolgate_engine::health::report(&gateway, None).await {
        Ok(report) => axum::Json(report).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, e).into_response(),
    }
}
