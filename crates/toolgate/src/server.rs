//! The HTTP listener: `/mcp` (streamable HTTP), `/metrics`, `/healthz`, `/readyz`,
//! `/admin/*`, and in demo mode `/demo/*`. Bearer auth, when configured, guards `/mcp`
//! and `/admin`; health and metrics stay open for probes and scrapers.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt as _;
use tokio_util::sync::CancellationToken;

use crate::config::Secret;
use crate::gateway::Gateway;

/// Builds the router. `extra` is merged in unauthenticated (the demo upstream).
pub fn router(gateway: Arc<Gateway>, shutdown: CancellationToken, extra: Option<Router>) -> Router {
    let mcp = crate::mcp::http_router(
        gateway.clone(),
        gateway.config().gateway.allowed_hosts.clone(),
        shutdown,
    );
    let guarded = Router::new()
        .nest_service("/mcp", mcp)
        .route("/admin/incidents", get(incidents))
        .route("/admin/health", get(health))
        .route("/admin/status", get(status))
        .with_state(gateway.clone())
        .layer(middleware::from_fn_with_state(
            gateway.config().gateway.auth_token.clone(),
            require_bearer,
        ));
    let open = Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .with_state(gateway);
    let mut app = guarded.merge(open);
    if let Some(extra) = extra {
        app = app.merge(extra);
    }
    app
}

/// Serves `router` on `listener` until `shutdown` is cancelled.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    // A streamable-HTTP answer goes out in several small writes (the SSE event, then
    // the chunk terminator); with Nagle on, the last one waits for the client's delayed
    // ACK, ~40 ms per call on Linux (measured in docs/performance.md).
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await
}

async fn require_bearer(
    State(token): State<Option<Secret>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(Secret(expected)) = token else {
        return next.run(request).await;
    };
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if presented.is_some_and(|p| constant_time_eq(p.as_bytes(), expected.as_bytes())) {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "toolgate: a bearer token is required (Authorization: Bearer <token>)\n",
        )
            .into_response()
    }
}

/// Compares without an early exit, so response timing does not reveal the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn metrics(State(gateway): State<Arc<Gateway>>) -> Response {
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
    match gateway.store().incidents(false).await {
        Ok(_) => (StatusCode::OK, "ready").into_response(),
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
    axum::Json(crate::status::report(&gateway).await).into_response()
}

async fn health(State(gateway): State<Arc<Gateway>>) -> Response {
    match crate::health::report(&gateway, None).await {
        Ok(report) => axum::Json(report).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, e).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::constant_time_eq;

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
