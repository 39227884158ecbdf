//! `/ui/tools`: per tool (100 a page, searchable) its contract version and where the
//! contract comes from, calls and success over the last hour, recovery per error
//! class, its last drift, and its contract probe's recent results — the numbers of
//! `toolgate status`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::extract::Query;
use axum::response::Response;
use serde_json::Value;

use super::incidents::{last_drift, search_link};
use super::layout::{ListQuery, esc, page, paginate, search_and_pages};
use toolgate_store::Incident;

/// Tools a page shows.
pub const PER_PAGE: usize = 100;

/// `GET /ui/tools?q=…&page=N`.
pub async fn show(
    super::Serving(gateway): super::Serving,
    Query(query): Query<ListQuery>,
) -> Response {
    let report = toolgate_engine::status::report(&gateway).await;
    // Each tool's newest drift, not every incident the store holds.
    let incidents = gateway
        .store()
        .newest_by_tool("contract_drift")
        .await
        .unwrap_or_default();
    let mut probes = Probes::new();
    for route in gateway.routes().values() {
        if route.spec.probe.is_some() {
            let results = gateway
                .store()
                .probe_results(route.spec.name.clone())
                .await
                .unwrap_or_default();
            probes.insert(route.spec.name.clone(), results);
        }
    }
    page(
        "Tools",
        "/ui/tools",
        "incidents",
        &render(&report, &incidents, &probes, &query),
    )
}

/// The recent probe results (ok, error class) of each tool with a probe, newest first.
pub type Probes = BTreeMap<String, Vec<(bool, Option<String>)>>;

fn probe_cell(results: Option<&Vec<(bool, Option<String>)>>) -> String {
    let Some(results) = results else {
        return "–".into();
    };
    let Some((last_ok, class)) = results.first() else {
        return "<span class=\"muted\">not run yet</span>".into();
    };
    let passed = results.iter().filter(|(ok, _)| *ok).count();
    let last = if *last_ok {
        "<span class=\"s-ok\">passing</span>".to_string()
    } else {
        format!(
            "<span class=\"s-bad\">failing: {}</span>",
            esc(class.as_deref().unwrap_or("error"))
        )
    };
    format!(
        "{last} <span class=\"muted\">({passed} of the last {})</span>",
        results.len()
    )
}

/// The page's body.
pub fn render(
    report: &Value,
    incidents: &[Incident],
    probes: &Probes,
    query: &ListQuery,
) -> String {
    let needle = query.needle();
    let tools = matching_tools(report, query, &needle);
    let (slice, page_no, pages) = paginate(&tools, query.page, PER_PAGE);
    let (form, nav) = search_and_pages("/ui/tools", &needle, "", page_no, pages, tools.len(), &[]);
    let mut out = format!("<h1>Tools</h1>{form}");
    contracts_line(report, &mut out);
    out.push_str(
        "<table id=\"tools\"><thead><tr><th>Tool</th><th>Owner</th><th>Contract</th><th>Origin</th>\
         <th class=\"num\">Calls (1 h)</th><th class=\"num\">Success</th><th>Recovery by error class</th>\
         <th>Last drift</th><th>Probe</th></tr></thead><tbody>",
    );
    for t in slice {
        tool_row(t, incidents, probes, &mut out);
    }
    if slice.is_empty() {
        out.push_str("<tr><td colspan=\"9\" class=\"muted\">No tools match.</td></tr>");
    }
    out.push_str("</tbody></table>");
    out.push_str(&nav);
    out
}

/// The report's tools whose name, owner, dependency or contract the search matches.
fn matching_tools<'r>(report: &'r Value, query: &ListQuery, needle: &str) -> Vec<&'r Value> {
    report["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| {
            let f = |k: &str| t[k].as_str().unwrap_or("").to_string();
            query.matches(
                needle,
                &[&f("tool"), &f("owner"), &f("dependency"), &f("contract")],
            )
        })
        .collect()
}

/// How many contracts come from where, as a line above the table (when reported).
fn contracts_line(report: &Value, out: &mut String) {
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
}

/// One tool's row: its contract, calls, success, recovery, last drift and probe.
fn tool_row(t: &Value, incidents: &[Incident], probes: &Probes, out: &mut String) {
    let name = t["tool"].as_str().unwrap_or("");
    let success = t["success_rate"]
        .as_f64()
        .map_or("–".into(), |r| format!("{:.1}%", r * 100.0));
    let recovery = recovery_cell(t);
    let drift = drift_cell(incidents, name);
    let open = open_badge(t, name);
    let _ = write!(
        out,
        "<tr data-id=\"tool-{id}\"><td><code>{id}</code>{open}</td><td>{owner}</td><td>{version}</td>\
         <td><span class=\"badge s-{origin_class}\">{origin}</span></td><td class=\"num\">{calls}</td>\
         <td class=\"num\">{success}</td><td>{recovery}</td><td>{drift}</td><td>{probe}</td></tr>",
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
        probe = probe_cell(probes.get(name)),
    );
}

/// Recovered out of retried sequences per error class, a line each, or a dash.
fn recovery_cell(t: &Value) -> String {
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
    if recovery.is_empty() {
        "–".into()
    } else {
        recovery.join("<br>")
    }
}

/// The tool's last drift, linked to its incident, or a dash.
fn drift_cell(incidents: &[Incident], name: &str) -> String {
    match last_drift(incidents, name) {
        Some(i) => format!(
            "<a href=\"/ui/incidents/{}\">{}</a> <span class=\"muted\">{}</span>",
            i.id,
            esc(&i.last_seen),
            esc(&i.status)
        ),
        None => "–".into(),
    }
}

/// A badge counting the tool's open incidents, linked to them; empty when none is open.
fn open_badge(t: &Value, name: &str) -> String {
    let open = t["open_incidents"].as_array().map_or(0, Vec::len);
    if open > 0 {
        format!(
            " <a class=\"badge s-bad\" href=\"{}\">{open} open</a>",
            esc(&search_link(name, "open"))
        )
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_row_shows_origin_recovery_and_probe() {
        let report = json!({"tools": [
            {"tool": "web_<search>", "owner": "o", "contract_version": "3.1", "contract": "learning",
             "calls": 12, "success_rate": 0.75, "recovery": {"timeout": {"recovered": 2, "sequences": 3}},
             "open_incidents": [{"id": 1}]},
            {"tool": "other", "owner": "o", "contract": "declared", "calls": 0, "recovery": {}, "open_incidents": []}
        ], "contracts": {"declared": 1, "learning": 1}});
        let mut probes = Probes::new();
        probes.insert(
            "web_<search>".into(),
            vec![(false, Some("contract_drift".into())), (true, None)],
        );
        let html = render(&report, &[], &probes, &ListQuery::default());
        assert!(html.contains("<code>web_&lt;search&gt;</code>"), "{html}");
        assert!(
            html.contains("75.0%") && html.contains("timeout: 2/3"),
            "{html}"
        );
        assert!(html.contains("s-learning\">learning"), "{html}");
        assert!(
            html.contains("failing: contract_drift</span> <span class=\"muted\">(1 of the last 2)"),
            "{html}"
        );
        assert!(
            html.contains("q=web_%3Csearch%3E"),
            "the open incidents link searches the tool: {html}"
        );
        let only = ListQuery {
            q: Some("OTH".into()),
            ..ListQuery::default()
        };
        let html = render(&report, &[], &probes, &only);
        assert!(
            html.contains("1 found") && !html.contains("web_&lt;"),
            "{html}"
        );
    }

    #[test]
    fn a_thousand_tools_are_paged_by_a_hundred_and_searched_by_owner() {
        let tools: Vec<Value> = (0..1000)
            .map(|n| {
                json!({"tool": format!("tool_{n:04}"), "owner": format!("team-{}@example.com", n % 10),
                       "dependency": "api", "contract": "declared", "calls": 0, "recovery": {}, "open_incidents": []})
            })
            .collect();
        let report = json!({ "tools": tools });
        let rows = |html: &str| -> Vec<String> {
            html.split("<tr data-id=\"tool-")
                .skip(1)
                .map(|r| r[..r.find('"').unwrap()].to_string())
                .collect()
        };
        let page = |n: usize, q: Option<&str>| {
            render(
                &report,
                &[],
                &Probes::new(),
                &ListQuery {
                    q: q.map(str::to_string),
                    page: Some(n),
                    state: None,
                },
            )
        };
        let first = page(1, None);
        assert_eq!(rows(&first).len(), 100);
        assert_eq!(rows(&first)[0], "tool_0000");
        assert!(first.contains("page 1 of 10"), "{first}");
        let seventh = page(7, None);
        assert_eq!(rows(&seventh).first().unwrap(), "tool_0600");
        assert_eq!(rows(&seventh).last().unwrap(), "tool_0699");
        let last = page(10, None);
        assert_eq!(rows(&last).last().unwrap(), "tool_0999");
        assert_eq!(
            rows(&page(99, None)),
            rows(&last),
            "a page past the end is the last"
        );
        // Every tool is on exactly one page.
        let all: std::collections::BTreeSet<String> =
            (1..=10).flat_map(|n| rows(&page(n, None))).collect();
        assert_eq!(all.len(), 1000);
        // One owner's 100 tools: one page; the second page of a search is clamped to it.
        let team = page(1, Some("TEAM-3@"));
        assert_eq!(rows(&team).len(), 100);
        assert!(rows(&team).iter().all(|t| t.ends_with('3')), "{team}");
        assert!(
            team.contains("100 found") && team.contains("page 1 of 1"),
            "{team}"
        );
        assert_eq!(rows(&page(2, Some("team-3@"))), rows(&team));
    }
}
