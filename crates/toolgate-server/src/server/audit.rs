//! `GET /admin/audit`: the recorded tool calls as JSON lines (`application/jsonl`),
//! newest first, filtered by `agent`, `tool`, `class`, `since`, `until` and `limit`
//! (default 100, at most 10,000).
//!
//! `/admin` is behind the admission layer's admin credential; this endpoint alone also
//! admits a configured agent's credential (a token or key that `/mcp` would accept),
//! which reads that agent's own calls only: one agent never sees what another called.
//! An administrator's credential (even an agent's with `admin: true`) reads them all.

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use toolgate_auth::Identity;
use toolgate_engine::reload::Current;
use toolgate_store::{AUDIT_READ_MAX, AuditQuery, audit_time};

/// Records returned when `limit` is not given.
const DEFAULT_LIMIT: u32 = 100;

/// The query string.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Params {
    agent: Option<String>,
    tool: Option<String>,
    class: Option<String>,
    since: Option<String>,
    until: Option<String>,
    limit: Option<u32>,
}

pub(super) async fn audit(
    State(current): State<Arc<Current>>,
    identity: Option<Extension<Identity>>,
    Query(params): Query<Params>,
) -> Response {
    let time = |name: &str, text: Option<&str>| {
        text.map(|t| audit_time(t).map_err(|e| format!("{name}: {e}")))
            .transpose()
    };
    let (since, until) = match (
        time("since", params.since.as_deref()),
        time("until", params.until.as_deref()),
    ) {
        (Ok(s), Ok(u)) => (s, u),
        (Err(e), _) | (_, Err(e)) => return (StatusCode::BAD_REQUEST, e).into_response(),
    };
    let gateway = current.load();
    // An agent's credential reads its own calls, whatever `agent` it asked for; an
    // administrator's reads every agent's.
    let own = identity
        .filter(|Extension(i)| !i.admin)
        .and_then(|Extension(i)| i.agent.map(|a| a.name.clone()));
    let query = AuditQuery {
        agent: own.or(params.agent),
        tool: params.tool,
        outcome: params.class,
        since,
        until,
        limit: params
            .limit
            .unwrap_or(DEFAULT_LIMIT)
            .clamp(1, AUDIT_READ_MAX),
    };
    match gateway.store().audit(query).await {
        Ok(records) => {
            let mut body = String::new();
            for r in &records {
                if let Ok(line) = serde_json::to_string(r) {
                    body.push_str(&line);
                    body.push('\n');
                }
            }
            ([(header::CONTENT_TYPE, "application/jsonl")], body).into_response()
        }
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    }
}
