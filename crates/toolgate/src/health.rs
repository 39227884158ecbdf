//! The `dependency_health` report: per dependency, its status, latency against
//! baseline, error rate, quota, breaker, status page, deprecations of its tools, open
//! incidents, and one line of advice. Served as an MCP tool and at `/admin/health`.

use serde_json::{Map, Value, json};
use tokio::time::Instant;
use toolgate_resilience::BreakerState;
use toolgate_signals::status_page::Health;

use crate::dependency::Snapshot;
use crate::explain::human;
use crate::gateway::Gateway;

/// Name of the built-in tool.
pub const TOOL_NAME: &str = "dependency_health";

/// The report for one dependency, or all when `only` is `None`. `Err` names the
/// unknown dependency and the known ones.
pub async fn report(gateway: &Gateway, only: Option<&str>) -> Result<Value, String> {
    if let Some(name) = only
        && gateway.dependency(name).is_none()
    {
        let known: Vec<&str> = gateway
            .config()
            .dependencies
            .keys()
            .map(String::as_str)
            .collect();
        return Err(format!(
            "unknown dependency `{name}`; known: {}",
            known.join(", ")
        ));
    }
    let incidents = gateway.store().incidents(false).await.unwrap_or_else(|e| {
        tracing::error!(error = %e, "open incidents left out of the report: the state store is unreadable");
        Vec::new()
    });
    let now = Instant::now();
    let mut out = Map::new();
    for (name, state) in gateway.dependencies() {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let snap = state.snapshot(now);
        gateway.metrics().record_dependency(name, &snap);
        let tools: Vec<&str> = gateway
            .config()
            .tools
            .values()
            .filter(|t| &t.dependency.name == name)
            .map(|t| t.name.as_str())
            .collect();
        let deprecations: Vec<Value> = tools
            .iter()
            .filter_map(|t| {
                let d = gateway.tool_state(t).and_then(|s| s.deprecation())?;
                let successor = gateway.tool(t).and_then(|s| s.successor.clone());
                Some(json!({ "tool": t, "deprecation": d, "successor_tool": successor }))
            })
            .collect();
        let open: Vec<Value> = incidents
            .iter()
            .filter(|i| &i.dependency == name)
            .map(|i| json!({ "id": i.id, "kind": i.kind, "tool": i.tool, "title": i.title, "owner": i.owner, "since": i.first_seen }))
            .collect();
        let mut entry = snap.to_json();
        entry["tools"] = json!(tools);
        entry["deprecations"] = json!(deprecations);
        entry["open_incidents"] = json!(open);
        let now_wall = chrono::Utc::now();
        let deprecated_now = tools.iter().any(|t| {
            gateway
                .tool_state(t)
                .and_then(|s| s.deprecation())
                .is_some_and(|d| d.is_deprecated_at(now_wall))
        });
        entry["advice"] = json!(advice(name, &snap, deprecated_now));
        out.insert(name.clone(), entry);
    }
    Ok(json!({ "dependencies": out }))
}

/// One sentence per dependency for the text block.
pub fn summary(report: &Value) -> String {
    let Some(deps) = report["dependencies"].as_object() else {
        return String::new();
    };
    deps.iter()
        .map(|(name, d)| {
            format!(
                "{name}: {} — {}",
                d["status"].as_str().unwrap_or("unknown"),
                d["advice"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn advice(name: &str, s: &Snapshot, deprecated: bool) -> String {
    if let BreakerState::Open { retry_in, .. } = s.breaker {
        return format!(
            "{name} is failing; toolgate is holding calls back. Avoid its tools for {}.",
            human(retry_in)
        );
    }
    let page = s.status.as_ref().and_then(|r| r.page.as_ref());
    if let Some(p) = page.filter(|p| p.health == Health::Down) {
        return format!(
            "{name}'s status page reports an outage ({}); expect failures and prefer other tools.",
            p.indicator
        );
    }
    if let Some(q) = s.quotas.first()
        && q.remaining == Some(0)
    {
        let reset = q
            .reset_after
            .map(|r| format!(" for {}", human(r)))
            .unwrap_or_default();
        return format!("{name}'s quota is used up; calls will wait or fail{reset}.");
    }
    if s.latency.brownout {
        let ratio = s.latency.ratio.unwrap_or(0.0);
        return format!(
            "{name} is slow ({ratio:.1}× its baseline); make fewer calls and expect delays."
        );
    }
    if let Some(p) = page.filter(|p| p.health == Health::Degraded) {
        return format!(
            "{name}'s status page reports degraded service ({}); expect some failures.",
            p.indicator
        );
    }
    if deprecated {
        return format!("{name} works, but some of its tools are deprecated; see deprecations.");
    }
    match s.health() {
        Health::Unknown => format!("No calls to {name} yet; no known problems."),
        _ => format!("{name} is healthy; call it normally."),
    }
}
