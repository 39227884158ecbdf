//! `GET /ui`: every dependency at a glance, from the same report `dependency_health`
//! and `/admin/health` serve (state, latency against its baseline, quota, breaker,
//! status page, deprecations with the time left to their sunset, open incidents), and
//! the last hour of latency against the baseline as a sparkline (`chart.rs`).

use std::fmt::Write as _;

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use super::layout::{error, esc, page};

/// `GET /ui`.
pub async fn show(super::Serving(gateway): super::Serving) -> Response {
    let report = match toolgate_engine::health::report_with_history(&gateway, None).await {
        Ok(r) => r,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, &e),
    };
    let open = gateway.store().incidents(false).await.map(|l| l.len());
    page(
        "Now",
        "/ui",
        "dependencies incidents",
        &render(&report, open.ok(), chrono::Utc::now()),
    )
}

/// The page's body.
pub fn render(report: &Value, open: Option<usize>, now: chrono::DateTime<chrono::Utc>) -> String {
    let mut out = String::from("<h1>Now</h1>");
    match open {
        Some(0) => out.push_str("<p class=\"s-ok\">No open incidents.</p>"),
        Some(n) => {
            let _ = write!(
                out,
                "<p><a href=\"/ui/incidents\" class=\"s-bad\">{n} open incident{}</a></p>",
                if n == 1 { "" } else { "s" }
            );
        }
        None => out.push_str(
            "<p class=\"s-bad\">The state store is unreadable: open incidents unknown.</p>",
        ),
    }
    out.push_str(
        "<table><thead><tr><th>Dependency</th><th>State</th><th class=\"num\">Latency now / baseline</th>\
         <th>Last hour</th><th class=\"num\">Errors</th><th>Quota left</th><th>Breaker</th><th>Status page</th>\
         <th>Deprecations</th><th class=\"num\">Open</th></tr></thead><tbody>",
    );
    let deps = report["dependencies"].as_object();
    for (name, d) in deps.into_iter().flatten() {
        let state = d["status"].as_str().unwrap_or("unknown");
        let _ = write!(
            out,
            "<tr data-id=\"dep-{name}\"><th scope=\"row\">{name}</th><td><span class=\"badge s-{state}\">{state}</span>{advice}</td>\
             <td class=\"num\">{latency}</td><td class=\"chart\">{chart}</td><td class=\"num\">{errors}</td><td>{quota}</td><td>{breaker}</td>\
             <td>{page}</td><td>{deprecations}</td><td class=\"num\">{open}</td></tr>",
            name = esc(name),
            state = esc(state),
            advice = d["advice"]
                .as_str()
                .map(|a| format!("<div class=\"muted\">{}</div>", esc(a)))
                .unwrap_or_default(),
            latency = latency(&d["latency"]),
            chart = super::chart::sparkline(name, &d["latency_history"]),
            errors = d["latency"]["error_rate"]
                .as_f64()
                .filter(|_| d["latency"]["samples"].as_u64().unwrap_or(0) > 0)
                .map_or("–".into(), |r| format!("{:.1}%", r * 100.0)),
            quota = quota(&d["quota"]),
            breaker = esc(d["breaker"]["state"].as_str().unwrap_or("–")),
            page = status_page(&d["status_page"]),
            deprecations = deprecations(&d["deprecations"], now),
            open = d["open_incidents"].as_array().map_or(0, Vec::len),
        );
    }
    out.push_str("</tbody></table>");
    out
}

fn latency(l: &Value) -> String {
    if l["samples"].as_u64().unwrap_or(0) == 0 && l["baseline_ms"].is_null() {
        return "–".into();
    }
    let p50 = l["p50_ms"].as_f64();
    let base = l["baseline_ms"].as_f64();
    let ratio = l["ratio"].as_f64();
    let now = match (p50, ratio, base) {
        (_, Some(r), Some(b)) => format!("{:.0} ms", r * b),
        (Some(p), _, _) => format!("{p:.0} ms"),
        _ => "–".into(),
    };
    let base = base.map_or("no baseline yet".into(), |b| format!("{b:.0} ms"));
    let brownout = if l["brownout"] == Value::Bool(true) {
        " <span class=\"badge s-degraded\">brownout</span>"
    } else {
        ""
    };
    format!("{now} / {base}{brownout}")
}

fn quota(q: &Value) -> String {
    let parts: Vec<String> = q
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let left = match (p["remaining"].as_u64(), p["limit"].as_u64()) {
                (Some(r), Some(l)) => format!("{r} of {l}"),
                (Some(r), None) => format!("{r}"),
                _ => "?".into(),
            };
            let reset = p["resets_in_s"]
                .as_f64()
                .map(|s| format!(", resets in {}", duration(s as i64)))
                .unwrap_or_default();
            format!(
                "{}: {left}{reset}",
                esc(p["policy"].as_str().unwrap_or("default"))
            )
        })
        .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join("<br>")
    }
}

fn status_page(s: &Value) -> String {
    if s.is_null() {
        return "–".into();
    }
    if let Some(e) = s["error"].as_str() {
        return format!("<span class=\"s-down\">unreadable: {}</span>", esc(e));
    }
    let health = s["health"].as_str().unwrap_or("unknown");
    let text = s["description"]
        .as_str()
        .or_else(|| s["indicator"].as_str())
        .unwrap_or(health);
    let class = match health {
        "healthy" => "ok",
        "degraded" => "degraded",
        "down" => "down",
        _ => "unknown",
    };
    format!("<span class=\"s-{class}\">{}</span>", esc(text))
}

fn deprecations(d: &Value, now: chrono::DateTime<chrono::Utc>) -> String {
    let parts: Vec<String> = d
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| {
            let tool = esc(entry["tool"].as_str().unwrap_or(""));
            let sunset = entry["deprecation"]["sunset"]
                .as_str()
                .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok());
            let when = match sunset {
                Some(t) => {
                    let left = (t.with_timezone(&chrono::Utc) - now).num_seconds();
                    if left > 0 {
                        format!("sunset in {}", duration(left))
                    } else {
                        format!("sunset {} ago", duration(-left))
                    }
                }
                None => "deprecated, no sunset".into(),
            };
            let successor = entry["successor_tool"]
                .as_str()
                .map(|s| format!(" → use {}", esc(s)))
                .unwrap_or_default();
            format!("<span class=\"s-degraded\">{tool}</span>: {when}{successor}")
        })
        .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join("<br>")
    }
}

/// A duration in the largest two units: `3 d 4 h`, `5 min 2 s`.
pub fn duration(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    if d > 0 {
        format!("{d} d {h} h")
    } else if h > 0 {
        format!("{h} h {m} min")
    } else if m > 0 {
        format!("{m} min {sec} s")
    } else {
        format!("{sec} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_dependency_row_shows_quota_breaker_and_sunset() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let report = json!({"dependencies": {"search<api>": {
            "status": "degraded", "advice": "slow <b>",
            "latency": {"p50_ms": 90.0, "baseline_ms": 40.0, "ratio": 2.5, "error_rate": 0.1, "samples": 10, "brownout": true},
            "quota": [{"policy": "core", "limit": 30, "remaining": 4, "resets_in_s": 75.0}],
            "breaker": {"state": "half_open"},
            "status_page": {"health": "degraded", "description": "Elevated <errors>"},
            "deprecations": [{"tool": "legacy", "deprecation": {"sunset": "2026-01-03T05:00:00Z"}, "successor_tool": "web_search"}],
            "open_incidents": [{"id": 1}]
        }}});
        let html = render(&report, Some(1), now);
        assert!(html.contains("search&lt;api&gt;"), "{html}");
        assert!(html.contains("slow &lt;b&gt;") && html.contains("Elevated &lt;errors&gt;"));
        assert!(
            html.contains("100 ms / 40 ms") && html.contains("brownout"),
            "{html}"
        );
        assert!(
            html.contains("core: 4 of 30, resets in 1 min 15 s"),
            "{html}"
        );
        assert!(html.contains("half_open"));
        assert!(
            html.contains("sunset in 2 d 5 h → use web_search"),
            "{html}"
        );
        assert!(html.contains("1 open incident<"));
        assert!(
            html.contains("<span class=\"s-degraded\">Elevated"),
            "{html}"
        );
        let fine = json!({"dependencies": {"a": {"status": "unknown", "latency": {"samples": 0},
            "status_page": {"health": "healthy", "description": "All Systems Operational"}}}});
        let html = render(&fine, Some(0), now);
        assert!(
            html.contains("<span class=\"s-ok\">All Systems Operational"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"num\">–</td>"),
            "no latency before any call: {html}"
        );
    }
}
