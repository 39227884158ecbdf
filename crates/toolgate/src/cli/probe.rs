//! `toolgate probe`: one contract probe per tool, now, with the exit code saying
//! whether any drifted or failed.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;

use toolgate_config as config;
use toolgate_engine::gateway::Gateway;
use toolgate_store::Store;

/// A tool as the gateway holds it.
type Tool = std::sync::Arc<toolgate_config::ToolSpec>;

pub(super) async fn probe(
    path: &Path,
    only: Option<&str>,
    format: &str,
) -> anyhow::Result<ExitCode> {
    let config = match config::load(path) {
        Ok(c) => c,
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let store = Store::connect(&config.gateway)
        .await
        .context("opening the state store")?;
    let gateway = Gateway::new(config, store)?;
    gateway.restore().await;
    let background = toolgate_engine::background::Background::incidents_only(&gateway);
    // Upstream MCP servers' tools are known once each has been checked (or from pins).
    for server in gateway.fronting().servers() {
        let _ = tokio::time::timeout(
            toolgate_engine::fronting::STARTUP_WAIT,
            server.check(gateway.as_ref()),
        )
        .await;
    }
    let tools = match chosen(&gateway, path, only)? {
        Some(tools) => tools,
        None => return Ok(ExitCode::from(2)),
    };
    let mut reports = Vec::new();
    for tool in &tools {
        reports.push(toolgate_engine::watch::probe::probe(&gateway, tool).await);
    }
    background.stop(std::time::Duration::from_secs(15)).await;
    print_reports(&reports, format)?;
    let drift = reports
        .iter()
        .any(|r| r.error_class.as_deref() == Some("contract_drift"));
    let failed = reports.iter().any(|r| !r.ok);
    Ok(if drift {
        ExitCode::from(1)
    } else if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// The tools to probe, by name: the one named, else those with a `probe:` section, else
/// (an imported config has none) the read-only ones that need no argument. `None` when
/// there is nothing to probe at all (said on stderr).
fn chosen(gateway: &Gateway, path: &Path, only: Option<&str>) -> anyhow::Result<Option<Vec<Tool>>> {
    if let Some(name) = only {
        return match gateway.tool(name) {
            Some(t) => Ok(Some(vec![t])),
            None => anyhow::bail!("no tool named `{name}` in {}", path.display()),
        };
    }
    let mut tools: Vec<_> = gateway
        .routes()
        .values()
        .filter(|r| r.spec.probe.is_some())
        .map(|r| r.spec.clone())
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    if !tools.is_empty() {
        return Ok(Some(tools));
    }
    // An imported config has no `probe:` sections; its read-only operations that need no
    // argument can be called as they are, once, because it was asked for.
    let callable = callable_as_is(gateway);
    if callable.is_empty() {
        eprintln!(
            "no tool in {} has a `probe:` section, and none is read-only (readOnlyHint) \
             with no required argument to call as it is: add `probe: {{ arguments: {{…}} }}` \
             to a tool, or name one with --tool",
            path.display()
        );
        return Ok(None);
    }
    eprintln!(
        "no tool in {} has a `probe:` section: probing once the {} read-only tools that \
         need no argument (add `probe: {{}}` to a tool to probe it on a schedule)",
        path.display(),
        callable.len()
    );
    Ok(Some(callable))
}

/// The reports as JSON, as JUnit XML, or one line per tool.
fn print_reports(
    reports: &[toolgate_engine::watch::probe::ProbeReport],
    format: &str,
) -> anyhow::Result<()> {
    match format {
        "json" => say!("{}", serde_json::to_string_pretty(reports)?),
        "junit" => say_raw!("{}", toolgate_engine::watch::probe::junit(reports)),
        _ => {
            for r in reports {
                if r.ok {
                    say!(
                        "ok    {} (contract v{}, {} ms)",
                        r.tool,
                        r.contract_version,
                        r.elapsed_ms
                    );
                } else {
                    say!(
                        "FAIL  {} (contract v{}, owner {}): {}",
                        r.tool,
                        r.contract_version,
                        r.owner,
                        r.message.as_deref().unwrap_or("")
                    );
                }
            }
        }
    }
    Ok(())
}

/// The tools a probe can call with no arguments and no harm: marked read-only, and
/// requiring no argument. By name.
fn callable_as_is(gateway: &Gateway) -> Vec<Tool> {
    let mut tools: Vec<_> = gateway
        .routes()
        .values()
        .map(|r| r.spec.clone())
        .filter(|t| t.annotations.read_only == Some(true))
        .filter(|t| {
            t.input_schema
                .get("required")
                .and_then(|r| r.as_array())
                .is_none_or(|r| r.is_empty())
        })
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
}
