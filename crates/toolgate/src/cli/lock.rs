//! `toolgate lock`: pins (or, with `--dry-run`/`--check`, only shows) the tool
//! definitions the configured MCP servers serve now, and the contracts the running
//! gateway learned.

use std::path::Path;
use std::process::ExitCode;

use toolgate_config as config;
use toolgate_engine::fronting::lock::Locked;

pub(super) async fn lock(
    path: &Path,
    options: &toolgate_engine::fronting::lock::Options,
    check: bool,
) -> anyhow::Result<ExitCode> {
    let config = match config::load(path) {
        Ok(c) => c,
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    lock_learned(&config, options.dry_run).await?;
    if config.mcp_servers.is_empty() {
        say!("{}: no MCP servers to lock", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let report = match toolgate_engine::fronting::lock::lock(&config, options).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut failed = false;
    let mut pending = false;
    for locked in &report {
        let told = tell(locked, options.dry_run, check);
        failed |= told.failed;
        pending |= told.pending;
    }
    if options.dry_run && pending && !check {
        let all: Vec<&str> = report
            .iter()
            .filter(|l| l.pending())
            .map(|l| l.server.as_str())
            .collect();
        say!(
            "accept after review with: toolgate lock -c {} --server {}",
            path.display(),
            all.join(" --server ")
        );
    }
    Ok(exit_code(failed, pending, check))
}

/// What one server's report said, for the exit code.
#[derive(Default)]
struct Told {
    /// The server (or one of its lists) could not be locked.
    failed: bool,
    /// Changes wait for review (`--dry-run`/`--check` only).
    pending: bool,
}

/// Prints one server's part of the report: what was pinned or would be, what failed,
/// and what was left out.
fn tell(locked: &Locked, dry_run: bool, check: bool) -> Told {
    let server = &locked.server;
    let mut told = Told::default();
    match &locked.result {
        Ok(n) if dry_run => told.pending = tell_review(locked, *n, check),
        Ok(n) => tell_written(locked, *n),
        Err(e) => {
            told.failed = true;
            eprintln!("{server}: not locked (its previous pins are kept): {e}");
        }
    }
    for (kind, e) in &locked.unlisted {
        told.failed = true;
        eprintln!(
            "{server}: its {}s could not be listed (their pins are kept; its tools are {}): {e}",
            kind.noun(),
            if dry_run { "shown" } else { "locked" }
        );
    }
    if locked.left_pending > 0 {
        say!(
            "  {} other change{} of {server} left pending (not selected by --tool, --prompt or --resource-template)",
            locked.left_pending,
            if locked.left_pending == 1 { "" } else { "s" }
        );
    }
    if let Some(refused) = &locked.refused {
        say!("  refused for the server's limits (not pinned): {refused}");
    }
    told
}

/// `--dry-run`/`--check`: what would be pinned, each change in review form; true when
/// something waits for review.
fn tell_review(locked: &Locked, pinned: usize, check: bool) -> bool {
    let server = &locked.server;
    let counts = counted(pinned, locked.prompts, locked.resource_templates);
    let pending = locked.pending();
    if pending {
        let count = locked.changes.len();
        say!(
            "{server}: {} pending review in {} (nothing written{}):",
            if locked.first {
                format!("not locked yet, {counts} to pin")
            } else {
                format!("{count} change{}", if count == 1 { "" } else { "s" })
            },
            locked.path.display(),
            if check { "" } else { ", --dry-run" }
        );
    } else {
        say!(
            "{server}: up to date with {} ({counts} pinned)",
            locked.path.display()
        );
    }
    for change in &locked.changes {
        for line in toolgate_engine::fronting::lock::review(change, locked) {
            say!("  {line}");
        }
    }
    pending
}

/// A lock that wrote (or had nothing to write): what is pinned, and each change accepted.
fn tell_written(locked: &Locked, pinned: usize) {
    let server = &locked.server;
    let counts = counted(pinned, locked.prompts, locked.resource_templates);
    if locked.writes {
        say!("{server}: {counts} pinned in {}", locked.path.display());
    } else {
        say!(
            "{server}: up to date with {} ({counts} pinned)",
            locked.path.display()
        );
    }
    if !locked.first {
        for change in &locked.changes {
            say!("  accepted: {}", change.summary());
        }
    }
}

/// 2 when something failed under `--check`, 1 when changes wait for review under
/// `--check`, 1 (failure) when something failed otherwise, else 0.
fn exit_code(failed: bool, pending: bool, check: bool) -> ExitCode {
    if failed && check {
        ExitCode::from(2)
    } else if check && pending {
        ExitCode::from(1)
    } else if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Pins the contracts the running gateway learned into the config's lockfile, with
/// their sample counts and when they were learned; a restart resumes from them.
async fn lock_learned(config: &config::Config, dry_run: bool) -> anyhow::Result<()> {
    let pins = match toolgate_engine::status::fetch_learned(config, None).await {
        Ok(p) => p,
        Err(e) => {
            say!("learned contracts: not pinned ({e:#})");
            return Ok(());
        }
    };
    if pins.is_empty() {
        return Ok(());
    }
    let path = &config.gateway.lockfile;
    let mut file = toolgate_contract::Lockfile::read(path)?.unwrap_or_default();
    for (tool, pin) in pins {
        say!(
            "{tool}: learned contract of {} responses{} {} {}",
            pin.samples,
            if pin.capped { " (capped)" } else { "" },
            if dry_run {
                "would be pinned in"
            } else {
                "pinned in"
            },
            path.display()
        );
        file.learned.insert(tool, pin);
    }
    if !dry_run {
        file.write(path)?;
    }
    Ok(())
}

/// "3 tools", "1 tool and 2 prompts", "4 tools, 1 prompt and 2 resource templates":
/// what a server's pins hold.
pub(super) fn counted(tools: usize, prompts: usize, templates: usize) -> String {
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let mut parts = vec![plural(tools, "tool")];
    if prompts > 0 {
        parts.push(plural(prompts, "prompt"));
    }
    if templates > 0 {
        parts.push(plural(templates, "resource template"));
    }
    match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    }
}
