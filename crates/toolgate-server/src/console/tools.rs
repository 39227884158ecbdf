//! `/ui/tools`: per tool (100 a page, searchable) its contract version and where the
//! contract comes from, calls and success over the last hour, recovery per error
//! class, and its last drift — the same numbers as `toolgate status`.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::Response;
use serde_json::Value;

use super::incidents::{last_drift, search_link};
use super::layout::{ListQuery, esc, page, paginate, search_and_pages};
use toolgate_engine::gateway::Gateway;
use toolgate_store::Incident;

/// Tools a page shows.
pub const PER_PAGE: usize = 100;

/// `GET /ui/tools?q=…&page=N`.
pub async fn show(State(gateway): State<Arc<Gateway>>, Query(query): Query<ListQuery>) -> Response {
    let report = toolgate_engine::status::report(&gateway).await;
    let incidents = gateway.store().incidents(true).await.unwrap_or_default();
    page(
        "Tools",
        "/ui/tools",
        "incidents",
        &render(&report, &incidents, &query),
    )
}

/// The page's body.
pub fn render(report: &Value, incidents: &[Incident], query: &ListQuery) -> String {
    let needle = query.needle();
    let tools: Vec<&Value> = report["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| {
            let f = |k: &str| t[k].as_str().unwrap_or("").to_string();
            query.matches(
                &needle,
                &[&f("tool"), &f("owner"), &f("dependency"), &f("contract")],
            )
        })
        .collect();
    let (slice, page_no, pages) = paginate(&tools, query.page, PER_PAGE);
    let (form, nav) = search_and_pages("/ui/tools", &needle, "", page_no, pages, tools.len(), &[]);
    let mut out = format!("<h1>Tools</h1>{form}");
    if let Some(c) = report["contracts"].as_object() {
        let parts: Vec<String> = c
            .iter()
            .map(|(origin, n)| format!("{} {}", n, esc(origin)))
            .collect();
        let _ = write!(
            out,
            "<p class=\"muted\">Contracts: {}</p>",
            parts.join(", ")
        );
    }
    out.push_str(
        "<table id=\"tools\"><thead><tr><th>Tool</th><th>Owner</th><th>Contract</th><th>Origin</th>\
         <th class=\"num\">Calls (1 h)</th><th class=\"num\">Success</th><th>Recovery by error class</th>\
         <th>Last drift</th></tr></thead><tbody>",
    );
    for t in slice {
        let name = t["tool"].as_str().unwrap_or("");
        let success = t["success_rate"]
            .as_f64()
            .map_or("–".into(), |r| format!("{:.1}%", r * 100.0));
        let recovery: Vec<String> = t["recovery"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(class, r)| {
                format!(
                    "{}: {}/{}",
                    esc(class),
                    r["recovered"].as_u64().unwrap_or(0),
                    r["sequences"].as_u64().unwrap_or(0)
                )
            })
            .collect();
        let drift = match last_drift(incidents, name) {
            Some(i) => format!(
                "<a href=\"/ui/incidents/{}\">{}</a> <span class=\"muted\">{}</span>",
                i.id,
                esc(&i.last_seen),
                esc(&i.status)
            ),
            None => "–".into(),
        };
        let open = t["open_incidents"].as_array().map_or(0, Vec::len);
        let open = if open > 0 {
            format!(
                " <a class=\"badge s-bad\" href=\"{}\">{open} open</a>",
                esc(&search_link(name, "open"))
            )
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<tr data-id=\"tool-{id}\"><td><code>{id}</code>{open}</td><td>{owner}</td><td>{version}</td>\
             <td><span class=\"badge s-{origin_class}\">{origin}</span></td><td class=\"num\">{calls}</td>\
             <td class=\"num\">{success}</td><td>{recovery}</td><td>{drift}</td></tr>",
            id = esc(name),
            owner = esc(t["owner"].as_str().unwrap_or("")),
            version = esc(t["contract_version"].as_str().unwrap_or("–")),
            origin = esc(t["contract"].as_str().unwrap_or("none")),
            origin_class = if t["contract"] == "learning" {
                "learning"
            } else {
                "ok"
            },
            calls = t["calls"].as_u64().unwrap_or(0),
            recovery = if recovery.is_empty() {
                "–".into()
            } else {
                recovery.join("<br>")
            },
        );
    }
    if slice.is_empty() {
        out.push_str("<tr><td colspan=\"8\" class=\"muted\">No tools match.</td></tr>");
    }
    out.push_str("</tbody></table>");
    out.push_str(&nav);
    out
}
