//! `toolgate status` and `/admin/status`: per tool, over the last hour, calls, success
//! rate, retries, recovery rate per error class, open incidents, and who owns it.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::gateway::Gateway;
use crate::sync::lock;

/// The window `status` reports on.
const WINDOW: Duration = Duration::from_secs(3600);

/// The status document served at `/admin/status`.
pub async fn report(gateway: &Gateway) -> Value {
    let incidents = gateway.store().incidents(false).await.unwrap_or_else(|e| {
        tracing::error!(error = %e, "open incidents left out of the report: the state store is unreadable");
        Vec::new()
    });
    let now = Instant::now();
    let routes = gateway.routes();
    let mut specs: Vec<&std::sync::Arc<toolgate_config::ToolSpec>> =
        routes.values().map(|r| &r.spec).collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    let coverage = gateway.refresh_coverage();
    let tools: Vec<Value> = specs
        .into_iter()
        .map(|t| {
            let route = routes.get(&t.name);
            let contract = route.map_or("none", |r| crate::learned::origin(&r.spec, &r.state.learned));
            let learned_from = route
                .and_then(|r| r.state.learned.get())
                .map(|s| s.snapshot().samples);
            let summary = gateway.tool_state(&t.name).map(|s| lock(&s.stats).summary(now, WINDOW)).unwrap_or_default();
            let recovery: serde_json::Map<String, Value> = summary
                .recovery
                .iter()
                .map(|(class, (all, rec))| {
                    (class.to_string(), json!({ "sequences": all, "recovered": rec, "rate": *rec as f64 / *all as f64 }))
                })
                .collect();
            let open: Vec<Value> = incidents
                .iter()
                .filter(|i| i.tool == t.name)
                .map(|i| json!({ "id": i.id, "kind": i.kind, "title": i.title }))
                .collect();
            json!({
                "tool": t.name,
                "owner": t.owner,
                "dependency": t.dependency.name,
                "contract_version": t.contract.version,
                "contract": contract,
                "learned_from": learned_from,
                "renames_detectable": match contract {
                    "declared" | "imported" | "pinned" => Value::Bool(t.contract.response.names_required()),
                    "learned_enforced" => Value::Bool(true),
                    _ => Value::Null,
                },
                "calls": summary.calls,
                "ok": summary.ok,
                "success_rate": summary.success_rate(),
                "errors": summary.errors,
                "retries": summary.retries,
                "recovery": recovery,
                "open_incidents": open,
            })
        })
        .collect();
    json!({ "window_s": WINDOW.as_secs(), "tools": tools, "contracts": coverage })
}

/// Renders the status document as a terminal table.
pub fn table(report: &Value) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<22} {:<26} {:>6} {:>8} {:>7}  {:<34} {:>4}",
        "TOOL", "OWNER", "CALLS", "SUCCESS", "RETRIES", "RECOVERY (recovered/retried)", "OPEN"
    );
    for t in report["tools"].as_array().into_iter().flatten() {
        let success = t["success_rate"]
            .as_f64()
            .map_or("-".to_string(), |r| format!("{:.1}%", r * 100.0));
        let recovery = t["recovery"]
            .as_object()
            .filter(|m| !m.is_empty())
            .map(|m| {
                m.iter()
                    .map(|(class, r)| format!("{class} {}/{}", r["recovered"], r["sequences"]))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_else(|| "-".into());
        let open = t["open_incidents"].as_array().map_or(0, Vec::len);
        let _ = writeln!(
            out,
            "{:<22} {:<26} {:>6} {:>8} {:>7}  {:<34} {:>4}",
            t["tool"].as_str().unwrap_or(""),
            t["owner"].as_str().unwrap_or(""),
            t["calls"],
            success,
            t["retries"],
            recovery,
            open
        );
        if t["contract"] == "learning" {
            let _ = writeln!(
                out,
                "    ~ learning its contract from its responses ({} so far)",
                t["learned_from"].as_u64().unwrap_or(0)
            );
        }
        if t["renames_detectable"] == Value::Bool(false) {
            let _ = writeln!(
                out,
                "    ~ its contract names no required field: a renamed field cannot show as drift"
            );
        }
        for i in t["open_incidents"].as_array().into_iter().flatten() {
            let _ = writeln!(
                out,
                "    ! #{} {}: {}",
                i["id"],
                i["kind"].as_str().unwrap_or(""),
                i["title"].as_str().unwrap_or("")
            );
        }
    }
    if let Some(c) = report["contracts"].as_object() {
        let parts: Vec<String> = crate::learned::ORIGINS
            .iter()
            .map(|o| format!("{} {o}", c.get(*o).and_then(Value::as_u64).unwrap_or(0)))
            .collect();
        let _ = writeln!(out, "contracts: {}", parts.join(", "));
    }
    let _ = write!(
        out,
        "(last {} min; a recovery of 0/N means retries are not helping)",
        report["window_s"].as_u64().unwrap_or(0) / 60
    );
    out
}

/// The contracts a running server learned (`/admin/learned`), for `toolgate lock`.
pub async fn fetch_learned(
    config: &toolgate_config::Config,
    url: Option<String>,
) -> anyhow::Result<std::collections::BTreeMap<String, toolgate_contract::LearnedPin>> {
    admin_get(config, url, "learned")
        .await?
        .json()
        .await
        .context("reading the learned contracts")
}

/// GETs `/admin/<what>` of the running server (at `url`, or the config's listen
/// address), with the admin token when there is one.
async fn admin_get(
    config: &toolgate_config::Config,
    url: Option<String>,
    what: &str,
) -> anyhow::Result<reqwest::Response> {
    let base = url.unwrap_or_else(|| {
        let mut addr = config.gateway.listen;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    });
    crate::tls::init();
    let mut request =
        reqwest::Client::new().get(format!("{}/admin/{what}", base.trim_end_matches('/')));
    if let Some(token) = &config.gateway.auth_token {
        request = request.bearer_auth(&token.0);
    }
    let response = request
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .with_context(|| {
            format!("cannot reach toolgate at {base} (is `toolgate serve` running? pass --url)")
        })?;
    if !response.status().is_success() {
        anyhow::bail!("{base}/admin/{what} answered HTTP {}", response.status());
    }
    Ok(response)
}

/// `toolgate status`: asks the running server.
pub async fn run(
    config_path: &Path,
    url: Option<String>,
    json_out: bool,
) -> anyhow::Result<ExitCode> {
    // The status comes from the running gateway: only its address and the admin token
    // matter, so the upstreams' credentials need not be exported.
    let config = match toolgate_config::load_for_reading(config_path) {
        Ok((c, unset)) => {
            if let Some(u) = unset.iter().find(|u| u.path == "gateway.auth_token_env") {
                anyhow::bail!(
                    "{} is not set: export the gateway's admin token (gateway.auth_token_env) to read its status",
                    u.var
                );
            }
            c
        }
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    run_with(&config, url, json_out).await
}

/// `toolgate status` for an already compiled config (`status --demo` has no file).
pub async fn run_with(
    config: &toolgate_config::Config,
    url: Option<String>,
    json_out: bool,
) -> anyhow::Result<ExitCode> {
    let response = admin_get(config, url, "status").await?;
    let report: Value = response.json().await.context("reading the status")?;
    if json_out {
        let _ = writeln!(
            std::io::stdout(),
            "{}",
            serde_json::to_string_pretty(&report)?
        );
    } else {
        let _ = writeln!(std::io::stdout(), "{}", table(&report));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_owners_success_and_recovery() {
        let report = json!({
            "window_s": 3600,
            "tools": [{
                "tool": "web_search", "owner": "alice@example.com", "calls": 40, "success_rate": 0.5, "retries": 12,
                "recovery": { "timeout": { "sequences": 6, "recovered": 0, "rate": 0.0 } },
                "open_incidents": [{ "id": 3, "kind": "recovery_rate_zero", "title": "retries are not helping" }]
            }]
        });
        let t = table(&report);
        assert!(
            t.contains("web_search") && t.contains("alice@example.com") && t.contains("50.0%"),
            "{t}"
        );
        assert!(
            t.contains("timeout 0/6") && t.contains("#3 recovery_rate_zero"),
            "{t}"
        );
        assert!(!t.contains("cannot show as drift"));
    }

    #[test]
    fn a_contract_without_required_fields_is_flagged() {
        let names_required = |schema: Value| {
            toolgate_contract::ResponseContract::compile(&schema, None)
                .unwrap()
                .names_required()
        };
        assert!(names_required(
            json!({"$defs": {"A": {"required": ["id"]}}})
        ));
        assert!(!names_required(
            json!({"type": "object", "properties": {"required": {"type": "string"}}})
        ));
        let report = json!({"window_s": 3600, "tools": [{"tool": "list_things", "owner": "o", "calls": 0,
            "retries": 0, "recovery": {}, "open_incidents": [], "renames_detectable": false}]});
        assert!(
            table(&report).contains("names no required field"),
            "{}",
            table(&report)
        );
    }
}
