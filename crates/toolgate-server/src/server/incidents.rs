//! `GET /admin/incidents`: the incidents in the state store, newest first, a page at a
//! time. The store filters and pages (SQL), so a store holding years of incidents
//! answers with one page, never all of them.
//!
//! Query: `status` (`open` or `resolved`; both when absent), `q` (a case-insensitive
//! search of title, tool, dependency, owner, kind and id), `page` (1-based, default 1)
//! and `per_page` (default 100, at most 1,000). The body is the page's JSON array;
//! `X-Total-Count` says how many incidents matched, and a `Link` header (RFC 8288) gives
//! the `next` and `prev` pages where there are. A page past the last is an empty array,
//! so a client that counts pages up until it gets none stops.

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use toolgate_auth::Identity;
use toolgate_engine::reload::Current;
use toolgate_store::{IncidentPage, IncidentQuery};

use crate::console::layout::url_component;

/// Incidents a page holds when `per_page` is not given.
const DEFAULT_PER_PAGE: usize = 100;
/// The most a page holds.
const MAX_PER_PAGE: usize = 1_000;

/// The query string.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Params {
    status: Option<String>,
    q: Option<String>,
    page: Option<usize>,
    per_page: Option<usize>,
}

pub(super) async fn incidents(
    State(current): State<Arc<Current>>,
    identity: Option<Extension<Identity>>,
    Query(params): Query<Params>,
) -> Response {
    let status = match params.status.as_deref() {
        None => None,
        Some(s @ ("open" | "resolved")) => Some(s.to_string()),
        Some(other) => {
            return (
                StatusCode::BAD_REQUEST,
                format!("status: `{other}` is not one of open, resolved"),
            )
                .into_response();
        }
    };
    let wanted = params.page.unwrap_or(1).max(1);
    let per_page = params
        .per_page
        .unwrap_or(DEFAULT_PER_PAGE)
        .clamp(1, MAX_PER_PAGE);
    let query = IncidentQuery {
        status,
        search: params.q.clone().unwrap_or_default(),
        page: wanted,
        per_page,
    };
    let found = match current.load().store().incident_page(query).await {
        Ok(found) => found,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    };
    let links = links(&params, &found, wanted, per_page);
    // The store clamps a page past the last to the last; here it is past the end.
    let mut list = if found.page < wanted {
        Vec::new()
    } else {
        found.incidents
    };
    for i in &mut list {
        crate::console::activity::visible_to(i, identity.as_deref());
    }
    let mut response = axum::Json(list).into_response();
    let headers = response.headers_mut();
    headers.insert("x-total-count", HeaderValue::from(found.matched));
    if let Some(link) = links.and_then(|l| HeaderValue::from_str(&l).ok()) {
        headers.insert(header::LINK, link);
    }
    response
}

/// The `Link` header's `next` and `prev` pages, keeping the filters; `None` when there
/// is neither.
fn links(params: &Params, found: &IncidentPage, wanted: usize, per_page: usize) -> Option<String> {
    let href = |page: usize| {
        let mut href = format!("/admin/incidents?page={page}&per_page={per_page}");
        if let Some(status) = &params.status {
            href.push_str(&format!("&status={}", url_component(status)));
        }
        if let Some(q) = params.q.as_deref().filter(|q| !q.is_empty()) {
            href.push_str(&format!("&q={}", url_component(q)));
        }
        href
    };
    let mut links = Vec::new();
    if wanted < found.pages {
        links.push(format!("<{}>; rel=\"next\"", href(wanted + 1)));
    }
    if wanted > 1 {
        links.push(format!(
            "<{}>; rel=\"prev\"",
            href((wanted - 1).min(found.pages))
        ));
    }
    (!links.is_empty()).then(|| links.join(", "))
}
