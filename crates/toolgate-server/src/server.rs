//! The HTTP listener: `/mcp` (streamable HTTP), `/metrics`, `/healthz`, `/readyz`,
//! `/admin/*`, the on-call console at `/ui` ([`crate::console`]), and in demo mode
//! `/demo/*`.
//!
//! Every request passes one admission layer before anything answers it
//! ([`admission`]): the Host allow-list (every endpoint), the Origin check (`/mcp`),
//! the bearer token (`/mcp` and `/admin`, when configured) and the body limit. The
//! connections themselves are served by [`listener`], which bounds them.
//!
//! Every handler reads the gateway in force once ([`Current::load`]), so a reload
//! (`POST /admin/reload`) takes effect from the next request on. A stop begins with
//! `/readyz` failing while requests are still served ([`drain`]).

pub mod admission;
mod audit;
pub mod drain;
pub(crate) mod guarded;
mod incidents;
pub mod listener;
mod routes;
mod threads;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use tokio_util::sync::CancellationToken;

use crate::mcp::dispatch::Server;
use crate::mcp::http::{Mcp, Settings};
use toolgate_engine::gateway::Gateway;
use toolgate_engine::reload::Current;

pub use drain::Shutdown;
pub use listener::{Limits, serve, serve_on, serve_with};
pub use routes::Routes;
pub use threads::ServingThreads;

/// The routes for one gateway that is never reloaded, and stops when `shutdown` is
/// cancelled (no shutdown delay).
pub fn router(gateway: Arc<Gateway>, shutdown: CancellationToken, extra: Option<Router>) -> Routes {
    let stop = Shutdown {
        draining: shutdown.clone(),
        stop: shutdown,
    };
    router_serving(Current::new(gateway, None), &stop, extra)
}

/// Builds the routes over the gateway in force, admission included. `extra` (the demo
/// upstream) is merged in behind the same admission layer. The listener-level settings
/// (admission, sessions, body limit) are taken from the config at start-up. `/mcp` is
/// answered without the router ([`Routes`]), behind the same admission rules.
pub fn router_serving(current: Arc<Current>, shutdown: &Shutdown, extra: Option<Router>) -> Routes {
    let gateway = current.load();
    let g = &gateway.config().gateway;
    let settings = Settings {
        max_sessions: g.max_sessions,
        session_share: g.session_share,
        session_idle: g.session_idle,
        max_request_bytes: g.max_request_bytes,
        session_keys: g.session_keys.clone(),
        session_lifetime: g.session_lifetime,
        replica_url: g.replica_url.clone(),
    };
    let auth = Arc::new(toolgate_auth::Authenticator::new(
        g,
        &gateway.config().agents,
        gateway.client().http().clone(),
    ));
    // `gateway.auth` is restart-only: whether the metadata is published is decided once.
    let publishes_metadata = gateway.config().gateway.auth.is_some();
    let admission = Arc::new(admission::Admission::new(g, auth));
    let console = crate::console::routes(current.clone(), shutdown.stop.clone());
    let mcp = Mcp::new(
        Arc::new(Server::serving(current.clone())),
        &settings,
        shutdown.stop.clone(),
    );
    let mcp_routes = Router::new()
        .route("/mcp", any(crate::mcp::http::handle))
        .with_state(mcp.clone());
    let well_known = publishes_metadata.then(|| {
        // RFC 9728: at the well-known path and, for a resource with a path (`/mcp`),
        // with that path appended; clients try both.
        Router::new()
            .route(toolgate_auth::WELL_KNOWN, get(protected_resource))
            .route(
                &format!("{}/{{*path}}", toolgate_auth::WELL_KNOWN),
                get(protected_resource_at),
            )
            .with_state(current.clone())
    });
    let other = Router::new()
        .route("/admin/incidents", get(incidents::incidents))
        .route("/admin/health", get(health))
        .route("/admin/status", get(status))
        .route("/admin/learned", get(learned))
        .route("/admin/reload", post(reload))
        .route("/admin/tools/{tool}/relearn", post(relearn))
        .route("/admin/audit", get(audit::audit))
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok" }))
        .with_state(current);
    let readiness = Router::new()
        .route("/readyz", get(ready))
        .with_state((gateway.clone(), shutdown.clone()));
    let mut app = mcp_routes.merge(other).merge(readiness).merge(console);
    if let Some(well_known) = well_known {
        app = app.merge(well_known);
    }
    if let Some(extra) = extra {
        app = app.merge(extra);
    }
    let router = app.layer(middleware::from_fn_with_state(
        admission.clone(),
        admission::admit,
    ));
    Routes::with_mcp(router, admission, mcp)
}

/// The metadata at the well-known path with a path appended: only the resource's own
/// (RFC 9728 §3.1); another path names a resource toolgate does not protect, 404.
async fn protected_resource_at(
    State(current): State<Arc<Current>>,
    axum::extract::Path(path): axum::extract::Path<String>,
) -> Response {
    let gateway = current.load();
    let Some(auth) = gateway.config().gateway.auth.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if !toolgate_auth::names_resource(&auth.resource, &path) {
        return StatusCode::NOT_FOUND.into_response();
    }
    metadata_of(&gateway)
}

async fn protected_resource(State(current): State<Arc<Current>>) -> Response {
    metadata_of(&current.load())
}

/// The metadata of the config in force: a reload that changes which scopes tools need
/// changes `scopes_supported` from the next request on, as it changes what calls need.
/// Kept in caches for a minute only, so a client that read it before a reload does not
/// ask for the old set for long.
fn metadata_of(gateway: &Gateway) -> Response {
    let config = gateway.config();
    let Some(auth) = config.gateway.auth.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let doc = toolgate_auth::metadata_document(auth, config.scopes.all());
    ([(header::CACHE_CONTROL, METADATA_MAX_AGE)], axum::Json(doc)).into_response()
}

/// How long caches may keep the metadata: long enough that clients discovering the
/// authorization server do not ask on every connection, short enough that a reload's
/// scopes reach them within a minute.
const METADATA_MAX_AGE: &str = "public, max-age=60";

async fn metrics(State(current): State<Arc<Current>>) -> Response {
    let gateway = current.load();
    gateway.refresh_coverage();
    gateway.refresh_fleet_gauges().await;
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        gateway.metrics().render(),
    )
        .into_response()
}

/// Ready while the store answers, until a stop begins: then 503 at once, while
/// requests are still served for `gateway.shutdown_delay` (the store is the same for
/// every generation).
async fn ready(State((gateway, shutdown)): State<(Arc<Gateway>, Shutdown)>) -> Response {
    if shutdown.is_draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    // A database that keeps the connection open but stops answering must fail the
    // probe, not hang it past the balancer's own timeout.
    match tokio::time::timeout(READY_WAIT, gateway.store().ping()).await {
        Ok(Ok(())) => (StatusCode::OK, "ready").into_response(),
        Ok(Err(e)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("state store unavailable: {e}"),
        )
            .into_response(),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("state store unavailable: no answer within {READY_WAIT:?}"),
        )
            .into_response(),
    }
}

/// How long `/readyz` waits for the store to answer (Kubernetes probes give up after
/// their `timeoutSeconds`, 1 s by default; the fleet manifest gives 2 s).
const READY_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// Reads the config file again and serves it when it is valid: 200 with what changed,
/// or 422 with every error (the config in force keeps serving).
async fn reload(
    State(current): State<Arc<Current>>,
    identity: Option<axum::Extension<toolgate_auth::Identity>>,
) -> Response {
    let who = crate::console::layout::who(identity.as_deref(), None);
    // The new gateway's background jobs start where the reload runs: on the main
    // runtime, not on the thread serving this request.
    let reloading =
        toolgate_engine::serving::spawn_background(async move { current.reload_by(&who).await });
    let report = match reloading.await {
        Ok(report) => report,
        Err(e) => {
            tracing::error!(error = %e, "the reload stopped before it finished");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the reload stopped before it finished; the config in force keeps serving",
            )
                .into_response();
        }
    };
    let status = if report.accepted() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    (status, axum::Json(report)).into_response()
}

/// Makes a tool's learned contract start over: 200 with what was dropped, 404 for an
/// unknown tool, 409 for a tool whose contract is not learned, 500 when the lockfile
/// could not be updated (then nothing was reset).
async fn relearn(
    State(current): State<Arc<Current>>,
    identity: Option<axum::Extension<toolgate_auth::Identity>>,
    axum::extract::Path(tool): axum::extract::Path<String>,
) -> Response {
    use toolgate_engine::gateway::RelearnError;
    let gateway = current.load();
    match gateway.relearn(&tool) {
        Ok(done) => {
            toolgate_engine::audit::action::log(
                gateway.audit(),
                &crate::console::layout::who(identity.as_deref(), None),
                toolgate_engine::audit::action::Action::Relearn,
                &tool,
                None,
            );
            axum::Json(done).into_response()
        }
        Err(e) => {
            let status = match e {
                RelearnError::UnknownTool(_) => StatusCode::NOT_FOUND,
                RelearnError::NotLearned { .. } => StatusCode::CONFLICT,
                RelearnError::Lockfile(_) => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (
                status,
                axum::Json(serde_json::json!({ "error": e.to_string() })),
            )
                .into_response()
        }
    }
}

async fn status(State(current): State<Arc<Current>>) -> Response {
    axum::Json(toolgate_engine::status::report(&current.load()).await).into_response()
}

/// The learned contracts, as `toolgate lock` pins them.
async fn learned(State(current): State<Arc<Current>>) -> Response {
    let gateway = current.load();
    let pins: serde_json::Map<String, serde_json::Value> = gateway
        .learned()
        .into_iter()
        .filter(|(_, s)| s.samples > 0)
        .map(|(name, s)| (name, serde_json::to_value(&s.pin).unwrap_or_default()))
        .collect();
    axum::Json(serde_json::Value::Object(pins)).into_response()
}

async fn health(State(current): State<Arc<Current>>) -> Response {
    match toolgate_engine::health::report_with_history(&current.load(), None).await {
        Ok(report) => axum::Json(report).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, e).into_response(),
    }
}
