//! `/ui/incidents`: open and resolved incidents (50 a page, searchable), one incident
//! with its drift diff side by side, and the two things a person does about one:
//! acknowledge ("I am on it") and resolve, each recorded with who and when. The same
//! actions are `POST /admin/incidents/{id}/ack|resolve` for scripts (JSON).

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::json;

use super::diff;
use super::layout::{
    ConsoleUser, ListQuery, cross_site, error, esc, page, search_and_pages, url_component, who,
};
use toolgate_engine::audit::action as audit;
use toolgate_engine::gateway::Gateway;
use toolgate_store::{Incident, IncidentPage, IncidentQuery};

/// Incidents a list page shows.
pub const PER_PAGE: usize = 50;

/// `GET /ui/incidents?state=open|resolved|all&q=…&page=N`: the store filters,
/// searches and pages (SQL), so a page reads 50 rows whatever the store holds.
pub async fn list(
    super::Serving(gateway): super::Serving,
    Query(query): Query<ListQuery>,
) -> Response {
    let state = state_of(&query);
    let wanted = IncidentQuery {
        status: (state != "all").then(|| state.to_string()),
        search: query.needle(),
        page: query.page.unwrap_or(1),
        per_page: PER_PAGE,
    };
    let found = match gateway.store().incident_page(wanted).await {
        Ok(found) => found,
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, &e.to_string()),
    };
    page(
        "Incidents",
        "/ui/incidents",
        "incidents",
        &render_list(&found, &query),
    )
}

/// `open` (the default), `resolved` or `all`.
fn state_of(query: &ListQuery) -> &'static str {
    match query.state.as_deref() {
        Some("resolved") => "resolved",
        Some("all") => "all",
        _ => "open",
    }
}

/// The list page's body.
pub fn render_list(found: &IncidentPage, query: &ListQuery) -> String {
    let state = state_of(query);
    let needle = query.needle();
    let mut out = String::from("<h1>Incidents</h1><nav class=\"tabs\" aria-label=\"state\">");
    for s in ["open", "resolved", "all"] {
        let count = match s {
            "open" => found.open,
            "resolved" => found.resolved,
            _ => found.open + found.resolved,
        };
        let here = if s == state {
            " aria-current=\"true\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<a href=\"/ui/incidents?state={s}\"{here}>{s} ({count})</a>"
        );
    }
    out.push_str("</nav>");
    let (form, nav) = search_and_pages(
        "/ui/incidents",
        &needle,
        &format!("&state={state}"),
        found.page,
        found.pages,
        usize::try_from(found.matched).unwrap_or(usize::MAX),
        &[("state", state)],
    );
    out.push_str(&form);
    out.push_str(
        "<table id=\"incidents\"><thead><tr><th class=\"num\">#</th><th>Kind</th><th>Tool</th><th>Title</th>\
         <th>Owner</th><th>First seen</th><th>Last seen</th><th class=\"num\">Sightings</th><th>State</th></tr></thead><tbody>",
    );
    for i in &found.incidents {
        let _ = write!(
            out,
            "<tr data-id=\"incident-{id}\"><td class=\"num\"><a href=\"/ui/incidents/{id}\">{id}</a></td><td>{kind}</td>\
             <td><code>{tool}</code></td><td><a href=\"/ui/incidents/{id}\">{title}</a></td><td>{owner}</td>\
             <td>{first}</td><td>{last}</td><td class=\"num\">{count}</td><td>{state}</td></tr>",
            id = i.id,
            kind = esc(&i.kind),
            tool = esc(&i.tool),
            title = esc(&i.title),
            owner = esc(&i.owner),
            first = when(&i.first_seen),
            last = when(&i.last_seen),
            count = i.count,
            state = state_cell(i),
        );
    }
    if found.incidents.is_empty() {
        out.push_str("<tr><td colspan=\"9\" class=\"muted\">No incidents here.</td></tr>");
    }
    out.push_str("</tbody></table>");
    out.push_str(&nav);
    out
}

/// An RFC 3339 time as a `<time>` element, read as `2026-12-01 22:28:32Z`.
fn when(ts: &str) -> String {
    format!(
        "<time datetime=\"{0}\">{1}</time>",
        esc(ts),
        esc(&ts.replacen('T', " ", 1))
    )
}

fn state_cell(i: &Incident) -> String {
    let mut cell = format!("<span class=\"badge s-{0}\">{0}</span>", esc(&i.status));
    if let Some(by) = &i.acked_by {
        let _ = write!(cell, " <span class=\"muted\">acked by {}</span>", esc(by));
    }
    cell
}

/// `GET /ui/incidents/{id}`.
pub async fn detail(
    super::Serving(gateway): super::Serving,
    identity: Option<Extension<toolgate_auth::Identity>>,
    Path(id): Path<String>,
) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::NOT_FOUND, "an incident id is a number");
    };
    match gateway.store().incident(id).await {
        Ok(Some(mut i)) => {
            super::activity::visible_to(&mut i, identity.as_deref());
            let store = gateway.store();
            // What was delivered is worth showing, not worth failing the page for.
            let deliveries = store.deliveries(id).await.unwrap_or_default();
            let letters: Vec<(String, String, String)> = store
                .dead_letters()
                .await
                .unwrap_or_default()
                .into_iter()
                .filter(|(incident, ..)| *incident == id)
                .map(|(_, target, error, at)| (target, error, at))
                .collect();
            let mut body = render_detail(&i);
            body.push_str(&super::activity::deliveries(&deliveries, &letters));
            page(
                &format!("Incident {id}"),
                "/ui/incidents",
                "incidents",
                &body,
            )
        }
        Ok(None) => error(StatusCode::NOT_FOUND, &format!("no incident {id}")),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, &e.to_string()),
    }
}

/// The detail page's body.
pub fn render_detail(i: &Incident) -> String {
    let mut out = format!(
        "<p><a href=\"/ui/incidents\">← incidents</a></p><h1>#{} {}</h1><dl class=\"facts\">",
        i.id,
        esc(&i.title)
    );
    let facts: [(&str, Option<String>); 12] = [
        ("State", Some(i.status.clone())),
        ("Kind", Some(i.kind.clone())),
        ("Tool", Some(i.tool.clone())),
        ("Dependency", Some(i.dependency.clone())),
        ("Owner", Some(i.owner.clone())),
        ("Contract version", i.contract_version.clone()),
        ("First seen", Some(i.first_seen.clone())),
        ("Last seen", Some(i.last_seen.clone())),
        ("Sightings", Some(i.count.to_string())),
        ("Agents", super::activity::agents(i)),
        (
            "Acknowledged",
            i.acked_by
                .as_ref()
                .map(|by| format!("by {by} at {}", i.acked_at.as_deref().unwrap_or("?"))),
        ),
        (
            "Resolved",
            i.resolved_at.as_ref().map(|at| match &i.resolved_by {
                Some(by) => format!("by {by} at {at}"),
                None => format!("by toolgate at {at}"),
            }),
        ),
    ];
    for (label, value) in facts {
        if let Some(v) = value {
            let _ = write!(
                out,
                "<dt>{label}</dt><dd data-fact=\"{label}\">{}</dd>",
                esc(&v)
            );
        }
    }
    out.push_str("</dl>");
    if i.status == "open" {
        out.push_str("<div class=\"actions\">");
        if i.acked_by.is_none() {
            let _ = write!(
                out,
                "<form method=\"post\" action=\"/ui/incidents/{}/ack\"><button type=\"submit\" id=\"ack\">Acknowledge</button></form>",
                i.id
            );
        }
        let _ = write!(
            out,
            "<form method=\"post\" action=\"/ui/incidents/{}/resolve\"><button type=\"submit\" class=\"primary\" id=\"resolve\">Resolve</button></form></div>",
            i.id
        );
    }
    out.push_str(&diff::render(&i.detail));
    out
}

/// What an action did, for the JSON API.
fn json_result(
    result: Result<Option<Incident>, toolgate_store::StoreError>,
    id: i64,
    identity: Option<&toolgate_auth::Identity>,
) -> Response {
    match result {
        Ok(Some(mut i)) => {
            super::activity::visible_to(&mut i, identity);
            Json(json!(i)).into_response()
        }
        Ok(None) => (
            StatusCode::NOT_FOUND,
            Json(json!({ "error": format!("no incident {id}") })),
        )
            .into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "error": e.to_string() })),
        )
            .into_response(),
    }
}

/// Acknowledge or resolve.
#[derive(Debug, Clone, Copy)]
enum Action {
    Ack,
    Resolve,
}

async fn act(
    gateway: &Gateway,
    action: Action,
    id: i64,
    who: &str,
) -> Result<Option<Incident>, toolgate_store::StoreError> {
    let (done, kind) = match action {
        Action::Ack => {
            tracing::info!(id, %who, "incident acknowledged");
            (
                gateway.store().acknowledge(id, who.to_string()).await,
                audit::Action::Acknowledge,
            )
        }
        Action::Resolve => (
            gateway
                .incidents()
                .resolve_by(gateway.store(), id, who)
                .await,
            audit::Action::Resolve,
        ),
    };
    // What this request did, not what an earlier one did: a second acknowledgement
    // keeps the first one's name and is not recorded as an action.
    let by_this = |i: &Incident| match action {
        Action::Ack => i.acked_by.as_deref() == Some(who),
        Action::Resolve => i.resolved_by.as_deref() == Some(who),
    };
    if let Ok(Some(incident)) = &done
        && by_this(incident)
    {
        audit::log(gateway.audit(), who, kind, &incident.tool, Some(id));
    }
    done
}

async fn form_action(
    gateway: Arc<Gateway>,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    user: Option<Extension<ConsoleUser>>,
    id: String,
    action: Action,
) -> Response {
    if let Some(refused) = cross_site(&headers, true) {
        return refused;
    }
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::NOT_FOUND, "an incident id is a number");
    };
    let who = who(identity.as_deref(), user.as_deref());
    match act(&gateway, action, id, &who).await {
        Ok(Some(_)) => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, format!("/ui/incidents/{id}"))],
        )
            .into_response(),
        Ok(None) => error(StatusCode::NOT_FOUND, &format!("no incident {id}")),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, &e.to_string()),
    }
}

/// `POST /ui/incidents/{id}/ack` (a form): acknowledges, then shows the incident.
pub async fn ack_form(
    super::Serving(gateway): super::Serving,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    user: Option<Extension<ConsoleUser>>,
    Path(id): Path<String>,
) -> Response {
    form_action(gateway, headers, identity, user, id, Action::Ack).await
}

/// `POST /ui/incidents/{id}/resolve` (a form).
pub async fn resolve_form(
    super::Serving(gateway): super::Serving,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    user: Option<Extension<ConsoleUser>>,
    Path(id): Path<String>,
) -> Response {
    form_action(gateway, headers, identity, user, id, Action::Resolve).await
}

async fn api_action(
    gateway: Arc<Gateway>,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    id: String,
    action: Action,
) -> Response {
    if let Some(refused) = cross_site(&headers, false) {
        return refused;
    }
    let Ok(id) = id.parse::<i64>() else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({ "error": "an incident id is a number" })),
        )
            .into_response();
    };
    let who = who(identity.as_deref(), None);
    json_result(
        act(&gateway, action, id, &who).await,
        id,
        identity.as_deref(),
    )
}

/// `POST /admin/incidents/{id}/ack`: the incident as stored after it (JSON).
pub async fn ack_api(
    super::Serving(gateway): super::Serving,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    Path(id): Path<String>,
) -> Response {
    api_action(gateway, headers, identity, id, Action::Ack).await
}

/// `POST /admin/incidents/{id}/resolve`.
pub async fn resolve_api(
    super::Serving(gateway): super::Serving,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    Path(id): Path<String>,
) -> Response {
    api_action(gateway, headers, identity, id, Action::Resolve).await
}

/// A link to the incidents of one tool (the Tools page uses it).
pub fn search_link(tool: &str, state: &str) -> String {
    format!("/ui/incidents?state={state}&q={}", url_component(tool))
}

/// The newest incident of `tool` with a diff, for the Tools page's "last drift".
pub fn last_drift<'a>(all: &'a [Incident], tool: &str) -> Option<&'a Incident> {
    all.iter()
        .filter(|i| i.tool == tool && i.kind == "contract_drift")
        .max_by_key(|i| i.id)
}
