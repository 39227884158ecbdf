//! The on-call console at `/ui`: server-rendered HTML, one file per page, a small
//! hand-written script for live updates (server-sent events) and keyboard shortcuts,
//! and a hand-written stylesheet, both embedded in the binary. No build step and no
//! third-party code in the browser: nothing to update for a CVE, and a page of 1,000
//! tools is one HTML response.
//!
//! It sits behind the same admission as `/admin` (`server::admission` counts `/ui` as
//! admin: the admin credential when one is configured, which a browser sends as the
//! password of HTTP Basic). Every state-changing request is a POST that must come from
//! the console's own pages ([`layout::cross_site`]).

pub mod activity;
pub mod agents;
pub mod assets;
pub mod chart;
pub mod definitions;
pub mod diff;
pub mod events;
pub mod incidents;
pub mod layout;
pub mod now;
pub mod tools;

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::routing::{get, post};
use axum::{Extension, Router};

use tokio_util::sync::CancellationToken;
use toolgate_engine::gateway::Gateway;
use toolgate_engine::reload::Current;

/// The gateway in force when the request came (a reload replaces it as a whole): a page
/// reads it once and renders one generation.
#[derive(Debug)]
pub struct Serving(pub Arc<Gateway>);

impl FromRequestParts<Arc<Current>> for Serving {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        _parts: &mut Parts,
        current: &Arc<Current>,
    ) -> Result<Self, Self::Rejection> {
        Ok(Serving(current.load()))
    }
}

/// The console's routes, and the admin API's incident actions. `shutdown` ends the
/// event streams.
pub fn routes(current: Arc<Current>, shutdown: CancellationToken) -> Router {
    Router::new()
        .route("/ui", get(now::show))
        .route("/ui/", get(now::show))
        .route("/ui/events", get(events::stream).layer(Extension(shutdown)))
        .route("/ui/incidents", get(incidents::list))
        .route("/ui/incidents/{id}", get(incidents::detail))
        .route("/ui/incidents/{id}/ack", post(incidents::ack_form))
        .route("/ui/incidents/{id}/resolve", post(incidents::resolve_form))
        .route("/ui/tools", get(tools::show))
        .route("/ui/definitions", get(definitions::show))
        .route("/ui/definitions/approve", post(definitions::approve))
        .route("/ui/agents", get(agents::show))
        .route("/ui/assets/{name}", get(assets::serve))
        .route("/admin/incidents/{id}/ack", post(incidents::ack_api))
        .route(
            "/admin/incidents/{id}/resolve",
            post(incidents::resolve_api),
        )
        .with_state(current)
}
