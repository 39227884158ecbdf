//! `toolgate reload`: asks the running gateway to read its config file again
//! (`POST /admin/reload`, with the admin token), and prints what changed — or every
//! error, when the gateway rejected the file and keeps serving the config in force.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value;

pub(super) async fn reload(
    path: &Path,
    url: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    // The address and the admin token come from the file; one that does not compile
    // would be rejected by the gateway for the same errors, so it is not sent.
    let config = match toolgate_config::load(path) {
        Ok(c) => c,
        Err(errors) => {
            eprintln!("{errors}");
            eprintln!("not reloaded: the running gateway keeps its config");
            return Ok(ExitCode::FAILURE);
        }
    };
    let base = super::admin::base_url(&config, url);
    let endpoint = format!("{}/admin/reload", base.trim_end_matches('/'));
    let (status, body) =
        super::admin::post(&config, &base, "/admin/reload", Duration::from_secs(60)).await?;
    let report: Value = match serde_json::from_str(&body) {
        Ok(v) if status.is_success() || status.as_u16() == 422 => v,
        _ => anyhow::bail!("{endpoint} answered HTTP {status}: {}", body.trim()),
    };
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print_report(&report);
    }
    Ok(if report["result"] == "ok" {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_report(report: &Value) {
    let file = report["file"].as_str().unwrap_or("the config file");
    let generation = report["generation"].as_u64().unwrap_or_default();
    if report["result"] != "ok" {
        let errors = report["errors"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for e in errors {
            let at = match (e["line"].as_u64(), e["column"].as_u64()) {
                (Some(l), Some(c)) => format!("{file}:{l}:{c}: "),
                _ => format!("{file}: "),
            };
            let field = e["field"].as_str().filter(|f| !f.is_empty());
            eprintln!(
                "error: {at}{}{}",
                e["message"].as_str().unwrap_or_default(),
                field.map(|f| format!(" (field {f})")).unwrap_or_default()
            );
            if let Some(help) = e["help"].as_str() {
                eprintln!("  help: {help}");
            }
        }
        eprintln!(
            "rejected: {} error{}; generation {generation} keeps serving",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        );
        return;
    }
    say!("reloaded {file}: generation {generation}");
    let list = |key: &str| -> Vec<String> {
        report[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (key, what) in [
        ("tools_added", "tools added"),
        ("tools_removed", "tools removed"),
        ("tools_changed", "tools changed"),
        ("dependencies_reset", "dependencies reset"),
        ("dependencies_removed", "dependencies removed"),
        ("mcp_servers_started", "MCP servers started"),
        ("mcp_servers_stopped", "MCP servers stopped"),
    ] {
        let names = list(key);
        if !names.is_empty() {
            say!("  {what}: {}", names.join(", "));
        }
    }
    let kept = list("dependencies_kept");
    if !kept.is_empty() {
        say!("  dependencies kept with their state: {}", kept.join(", "));
    }
    for key in list("needs_restart") {
        say!("  needs a restart: {key} (the old value stays in force)");
    }
}
