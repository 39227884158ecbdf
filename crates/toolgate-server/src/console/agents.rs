//! `/ui/agents`: the configured agents, what they may call, their quota, and their
//! calls by outcome from `toolgate_agent_calls_total` (an outcome other than `ok` is
//! an error class; `forbidden` and `agent_quota` are toolgate's refusals).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::response::Response;

use super::layout::{esc, page};

/// `GET /ui/agents`.
pub async fn show(super::Serving(gateway): super::Serving) -> Response {
    let counts = agent_calls(&gateway.metrics().render());
    let mut out = String::from("<h1>Agents</h1>");
    let agents = &gateway.config().agents;
    if agents.is_empty() {
        out.push_str("<p class=\"muted\">No agents are configured (<code>agents:</code>): every caller is <code>anonymous</code>.</p>");
    }
    out.push_str(
        "<table id=\"agents\"><thead><tr><th>Agent</th><th>May call</th><th>Quota</th>\
         <th class=\"num\">Calls</th><th class=\"num\">OK</th><th>Refused or failed, by outcome</th></tr></thead><tbody>",
    );
    let mut names: Vec<&str> = agents.keys().map(String::as_str).collect();
    if counts.contains_key("anonymous") && !names.contains(&"anonymous") {
        names.push("anonymous");
    }
    for name in names {
        let spec = agents.get(name);
        let may = spec.map_or("every tool".to_string(), |s| {
            let allow = s
                .tools
                .as_ref()
                .map_or("every tool".to_string(), |t| t.join(", "));
            if s.deny.is_empty() {
                allow
            } else {
                format!("{allow}; never {}", s.deny.join(", "))
            }
        });
        let quota = spec
            .and_then(|s| s.quota.as_ref())
            .map_or("–".to_string(), |q| {
                let mut parts = Vec::new();
                if let Some((n, per)) = q.calls {
                    parts.push(format!("{n} calls per {} s", per.as_secs()));
                }
                if let Some(n) = q.concurrent {
                    parts.push(format!("{n} at once"));
                }
                parts.join(", ")
            });
        let by_outcome = counts.get(name).cloned().unwrap_or_default();
        let total: f64 = by_outcome.values().sum();
        let ok = by_outcome.get("ok").copied().unwrap_or(0.0);
        let other: Vec<String> = by_outcome
            .iter()
            .filter(|(o, _)| o.as_str() != "ok")
            .map(|(o, n)| format!("{}: {n}", esc(o)))
            .collect();
        let _ = write!(
            out,
            "<tr data-id=\"agent-{n}\"><td><code>{n}</code></td><td>{may}</td><td class=\"mono\">{quota}</td>\
             <td class=\"num\">{total}</td><td class=\"num\">{ok}</td><td>{other}</td></tr>",
            n = esc(name),
            may = esc(&may),
            quota = esc(&quota),
            other = if other.is_empty() {
                "–".into()
            } else {
                other.join(", ")
            },
        );
    }
    out.push_str("</tbody></table>");
    page("Agents", "/ui/agents", "", &out)
}

/// `toolgate_agent_calls_total{agent,outcome}` from the metrics text: agent → outcome
/// → count.
pub fn agent_calls(metrics: &str) -> BTreeMap<String, BTreeMap<String, f64>> {
    let mut out: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for line in metrics.lines() {
        let Some(rest) = line.strip_prefix("toolgate_agent_calls_total{") else {
            continue;
        };
        let Some((labels, value)) = rest.split_once("} ") else {
            continue;
        };
        let label = |name: &str| {
            labels
                .split(',')
                .find_map(|kv| kv.strip_prefix(&format!("{name}=\"")))
                .map(|v| v.trim_end_matches('"').to_string())
        };
        if let (Some(agent), Some(outcome), Ok(n)) = (
            label("agent"),
            label("outcome"),
            value.trim().parse::<f64>(),
        ) {
            *out.entry(agent).or_default().entry(outcome).or_default() += n;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_calls_are_read_from_the_metrics() {
        let text = "# TYPE toolgate_agent_calls counter\n\
            toolgate_agent_calls_total{agent=\"ci\",outcome=\"ok\"} 7\n\
            toolgate_agent_calls_total{agent=\"ci\",outcome=\"forbidden\"} 2\n\
            toolgate_agent_calls_total{agent=\"anonymous\",outcome=\"ok\"} 1\n";
        let calls = agent_calls(text);
        assert_eq!(calls["ci"]["ok"], 7.0);
        assert_eq!(calls["ci"]["forbidden"], 2.0);
        assert_eq!(calls["anonymous"].len(), 1);
    }
}
