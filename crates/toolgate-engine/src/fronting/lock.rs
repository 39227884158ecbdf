//! `toolgate lock`: connects to the configured MCP servers, lists their tools and prompts
//! and writes them as the pins into each server's lockfile (servers sharing a lockfile share one
//! file; entries of servers not in this config, or not selected, are kept as they were).
//!
//! A serving toolgate takes the new pins within seconds, so the review comes first:
//! `--dry-run` shows each pending change in full (the changed text, the schema diff) and
//! writes nothing, `--check` does the same and fails when anything is pending (for CI),
//! and `--server`/`--tool`/`--prompt` accept only the changes that were reviewed —
//! accepting one server's change never accepts another's, and accepting a tool's change
//! never accepts a prompt's of the same name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use toolgate_contract::{
    DefinitionChange, Lockfile, PinnedServer, PromptDefinition, ToolDefinition,
};

use super::{Fronting, Host, Listed};
use crate::upstream::UpstreamClient;
use toolgate_config::{Config, McpServerSpec};

/// What `lock` accepts and whether it writes.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Only these servers (every server when empty).
    pub servers: Vec<String>,
    /// Only these tools, by the upstream's name or the exposed one; with `prompts`
    /// empty too, every change. The other changes stay pending.
    pub tools: Vec<String>,
    /// Only these prompts, named as `tools` are. A tool and a prompt may share a name,
    /// so each is selected by its own kind: a reviewer who accepts a tool's change has
    /// not seen a prompt's.
    pub prompts: Vec<String>,
    /// Show what would change; write nothing.
    pub dry_run: bool,
}

/// What `lock` did (or, with `dry_run`, would do) for one server.
#[derive(Debug)]
pub struct Locked {
    /// The server's name.
    pub server: String,
    /// The lockfile.
    pub path: PathBuf,
    /// How many tools are pinned after this run, or why the server could not be listed.
    pub result: Result<usize, String>,
    /// How many prompts are pinned after this run.
    pub prompts: usize,
    /// Why the server's prompts could not be listed, when they could not: its tools
    /// are locked all the same and its prompts keep their pins (as a serving gateway
    /// keeps serving them).
    pub prompts_error: Option<String>,
    /// The changes against the previous pins that this run accepts (or would accept).
    pub changes: Vec<DefinitionChange>,
    /// The live definitions of the new tools among `changes`, for review.
    pub new_tools: Vec<ToolDefinition>,
    /// The live definitions of the new prompts among `changes`, for review.
    pub new_prompts: Vec<PromptDefinition>,
    /// Changes left pending because `--tool` or `--prompt` did not select them.
    pub left_pending: usize,
    /// The server had no pins before: every tool is new.
    pub first: bool,
    /// What the server's limits refused, one line, when anything.
    pub refused: Option<String>,
    /// Whether the server's entry was (or would be) written.
    pub writes: bool,
}

impl Locked {
    /// Whether anything is pending: a change, or a server never locked.
    pub fn pending(&self) -> bool {
        self.result.is_ok() && (self.first || !self.changes.is_empty())
    }
}

/// One definition to accept: a tool or a prompt, by the upstream's name or the exposed
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pick<'a> {
    /// A tool.
    Tool(&'a str),
    /// A prompt.
    Prompt(&'a str),
}

impl<'a> Pick<'a> {
    /// The name, as given.
    fn name(self) -> &'a str {
        match self {
            Pick::Tool(name) | Pick::Prompt(name) => name,
        }
    }
}

impl Options {
    /// Whether only some definitions are selected.
    fn picks(&self) -> bool {
        !self.tools.is_empty() || !self.prompts.is_empty()
    }

    /// Every tool and prompt given, each by its kind.
    fn given(&self) -> impl Iterator<Item = Pick<'_>> {
        let tools = self.tools.iter().map(|t| Pick::Tool(t));
        tools.chain(self.prompts.iter().map(|p| Pick::Prompt(p)))
    }

    /// Whether the definition the upstream calls `live` (by its kind) is selected.
    fn selects(&self, spec: &McpServerSpec, live: Pick<'_>) -> bool {
        !self.picks()
            || self.given().any(|given| {
                std::mem::discriminant(&given) == std::mem::discriminant(&live)
                    && names_one(spec, given.name(), live.name())
            })
    }
}

/// Whether `given` (as a person typed it) names the upstream's `name` on `spec`.
fn names_one(spec: &McpServerSpec, given: &str, name: &str) -> bool {
    given == name || given == spec.exposed_name(name)
}

/// Lists the selected servers and computes their new pins; writes them unless
/// `options.dry_run`. A server that cannot be reached keeps its old pins and is
/// reported; the others are written. Unknown `--server` or `--tool` names are an error,
/// and then nothing is written.
pub async fn lock(config: &Config, options: &Options) -> anyhow::Result<Vec<Locked>> {
    for name in &options.servers {
        if !config.mcp_servers.contains_key(name) {
            let known: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
            anyhow::bail!(
                "no MCP server named `{name}` in the config; known: {}",
                known.join(", ")
            );
        }
    }
    let client = UpstreamClient::new()
        .map_err(|e| anyhow::anyhow!("cannot build the upstream HTTP client: {e}"))?;
    // Listing needs no caller's session, so these metrics are never read.
    let metrics = crate::metrics::Metrics::new();
    let (fronting, _events) = Fronting::start(config, &client, &metrics)?;
    let result = lock_servers(&fronting, options).await;
    fronting.shutdown().await;
    result
}

/// The pending changes of a running gateway's servers, as `toolgate lock --dry-run`
/// shows them (each server is listed now; nothing is written).
pub async fn pending(fronting: &Fronting) -> anyhow::Result<Vec<Locked>> {
    let options = Options {
        dry_run: true,
        ..Options::default()
    };
    lock_servers(fronting, &options).await
}

/// Accepts the pending change of one tool or prompt (every pending change of the server
/// when `None`) on `server` in a running gateway, exactly as `toolgate lock --server S
/// --tool T` (or `--prompt P`, or `--server S` alone) does,
/// then checks the server at once: the new pin is served, and a tool withheld under
/// `on_change: block` comes back without a restart. Clients are told when the tools
/// they see changed.
pub async fn approve(
    fronting: &Fronting,
    host: &dyn Host,
    server: &str,
    pick: Option<Pick<'_>>,
) -> anyhow::Result<Locked> {
    let Some(fronted) = fronting.server(server).cloned() else {
        anyhow::bail!("no MCP server named `{server}` in the config");
    };
    let mut options = Options {
        servers: vec![server.to_string()],
        ..Options::default()
    };
    match pick {
        Some(Pick::Tool(name)) => options.tools.push(name.to_string()),
        Some(Pick::Prompt(name)) => options.prompts.push(name.to_string()),
        None => {}
    }
    let locked = lock_servers(fronting, &options)
        .await?
        .pop()
        .ok_or_else(|| anyhow::anyhow!("MCP server `{server}` was not locked"))?;
    if let Err(e) = &locked.result {
        anyhow::bail!("MCP server `{server}` could not be listed: {e}");
    }
    let checked = fronted.check(host).await;
    if checked.changed {
        host.notify_all("notifications/tools/list_changed", None);
    }
    tracing::info!(%server, ?pick, changes = locked.changes.len(), "a definition change was approved: re-pinned");
    Ok(locked)
}

async fn lock_servers(fronting: &Fronting, options: &Options) -> anyhow::Result<Vec<Locked>> {
    let mut files: BTreeMap<PathBuf, Lockfile> = BTreeMap::new();
    let mut report = Vec::new();
    // The names given that named a definition of their kind, and those that named only
    // one of the other kind (for the error's hint).
    let mut matched: BTreeSet<Pick<'_>> = BTreeSet::new();
    let mut other_kind: BTreeSet<Pick<'_>> = BTreeSet::new();
    for server in fronting.servers().map(Arc::clone).collect::<Vec<_>>() {
        let spec = server.spec().clone();
        if !options.servers.is_empty() && !options.servers.contains(&spec.name) {
            continue;
        }
        let file = match files.get(&spec.lock) {
            Some(f) => f.clone(),
            None => Lockfile::read(&spec.lock)?.unwrap_or_default(),
        };
        let previous = file.server(&spec.name).cloned();
        let pinned: BTreeSet<String> = previous
            .iter()
            .flat_map(|p| p.tools.iter().map(|t| t.name.clone()))
            .collect();
        let pinned_prompts: BTreeSet<String> = previous
            .iter()
            .flat_map(|p| p.prompts.iter().map(|t| t.name.clone()))
            .collect();
        let old: Vec<ToolDefinition> = previous.iter().flat_map(|p| p.tools.clone()).collect();
        let old_prompts: Vec<PromptDefinition> =
            previous.iter().flat_map(|p| p.prompts.clone()).collect();
        let mut prompts_error = None;
        let listed = match server.connection.initialize(spec.dependency.timeout).await {
            Ok(init) => match server.list_tools(&pinned).await {
                Ok(tools) => {
                    let prompts = match server.list_prompts(&pinned_prompts).await {
                        Ok(prompts) => prompts,
                        // As listed, they are as pinned: nothing of theirs changes.
                        Err(e) => {
                            prompts_error = Some(e);
                            (old_prompts.clone(), Default::default())
                        }
                    };
                    Ok((init, tools, prompts))
                }
                Err(e) => Err(e),
            },
            Err(e) => Err(e.to_string()),
        };
        let (
            init,
            Listed {
                tools: live,
                mut refused,
            },
            (live_prompts, prompts_refused),
        ) = match listed {
            Ok(l) => l,
            Err(e) => {
                files.insert(spec.lock.clone(), file);
                report.push(Locked {
                    server: spec.name.clone(),
                    path: spec.lock.clone(),
                    result: Err(e),
                    prompts: 0,
                    prompts_error: None,
                    changes: Vec::new(),
                    new_tools: Vec::new(),
                    new_prompts: Vec::new(),
                    left_pending: 0,
                    first: previous.is_none(),
                    refused: None,
                    writes: false,
                });
                continue;
            }
        };
        let is = |t: &ToolDefinition| options.selects(&spec, Pick::Tool(&t.name));
        let tool_names: Vec<&String> = live
            .iter()
            .chain(previous.iter().flat_map(|p| &p.tools))
            .map(|d| &d.name)
            .collect();
        let prompt_names: Vec<&String> = live_prompts
            .iter()
            .chain(previous.iter().flat_map(|p| &p.prompts))
            .map(|d| &d.name)
            .collect();
        for given in options.given() {
            let (own, other) = match given {
                Pick::Tool(_) => (&tool_names, &prompt_names),
                Pick::Prompt(_) => (&prompt_names, &tool_names),
            };
            if own.iter().any(|n| names_one(&spec, given.name(), n)) {
                matched.insert(given);
            } else if other.iter().any(|n| names_one(&spec, given.name(), n)) {
                other_kind.insert(given);
            }
        }
        let mut all_changes = toolgate_contract::compare(&old, &live);
        all_changes.extend(toolgate_contract::compare_prompts(
            &old_prompts,
            &live_prompts,
        ));
        let changes: Vec<DefinitionChange> = all_changes
            .iter()
            .filter(|c| {
                let live = if c.is_prompt() {
                    Pick::Prompt(c.tool())
                } else {
                    Pick::Tool(c.tool())
                };
                options.selects(&spec, live)
            })
            .cloned()
            .collect();
        // The new pins: the selected tools as listed now, the others as pinned before.
        let mut tools: Vec<ToolDefinition> = old.iter().filter(|&t| !is(t)).cloned().collect();
        tools.extend(live.iter().filter(|&t| is(t)).cloned());
        // A refused pinned tool cannot be compared, so its pin stays.
        for name in &refused.pinned {
            if !tools.iter().any(|t| &t.name == name)
                && let Some(t) = old.iter().find(|t| &t.name == name)
            {
                tools.push(t.clone());
            }
        }
        let is_prompt = |p: &PromptDefinition| options.selects(&spec, Pick::Prompt(&p.name));
        let mut prompts: Vec<PromptDefinition> = old_prompts
            .iter()
            .filter(|&p| !is_prompt(p))
            .cloned()
            .collect();
        prompts.extend(live_prompts.iter().filter(|&p| is_prompt(p)).cloned());
        for name in &prompts_refused.pinned {
            if !prompts.iter().any(|p| &p.name == name)
                && let Some(p) = old_prompts.iter().find(|p| &p.name == name)
            {
                prompts.push(p.clone());
            }
        }
        refused.absorb(&prompts_refused);
        let whole = !options.picks() || previous.is_none();
        let (server_name, server_version, protocol_version) = match (&previous, whole) {
            (Some(p), false) => (
                p.server_name.clone(),
                p.server_version.clone(),
                p.protocol_version.clone(),
            ),
            _ => (
                init.server_name.clone(),
                init.server_version.clone(),
                init.protocol_version.clone(),
            ),
        };
        let same_server = previous.as_ref().is_some_and(|p| {
            (&p.server_name, &p.server_version, &p.protocol_version)
                == (&server_name, &server_version, &protocol_version)
        });
        let writes = previous.is_none() || !changes.is_empty() || !same_server;
        let new_tools: Vec<ToolDefinition> = changes
            .iter()
            .filter(|c| c.is_added() && !c.is_prompt())
            .filter_map(|c| live.iter().find(|t| t.name == c.tool()).cloned())
            .collect();
        let new_prompts: Vec<PromptDefinition> = changes
            .iter()
            .filter(|c| c.is_added() && c.is_prompt())
            .filter_map(|c| live_prompts.iter().find(|p| p.name == c.tool()).cloned())
            .collect();
        let n = tools.len();
        let n_prompts = prompts.len();
        let mut file = file;
        if writes {
            file.merge(
                spec.name.clone(),
                PinnedServer {
                    server_name,
                    server_version,
                    protocol_version,
                    locked_at: chrono::Utc::now()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    tools,
                    prompts,
                },
            );
        }
        files.insert(spec.lock.clone(), file);
        report.push(Locked {
            server: spec.name.clone(),
            path: spec.lock.clone(),
            result: Ok(n),
            prompts: n_prompts,
            prompts_error,
            left_pending: all_changes.len() - changes.len(),
            changes,
            new_tools,
            new_prompts,
            first: previous.is_none(),
            refused: (!refused.is_empty()).then(|| refused.describe(&spec.limits)),
            writes,
        });
    }
    let unknown: Vec<String> = options
        .given()
        .filter(|given| !matched.contains(given))
        .map(|given| {
            let (kind, other, flag) = match given {
                Pick::Tool(_) => ("tool", "prompt", "--prompt"),
                Pick::Prompt(_) => ("prompt", "tool", "--tool"),
            };
            let name = given.name();
            if other_kind.contains(&given) {
                format!("no {kind} named `{name}`: it is a {other} (select it with {flag})")
            } else {
                format!("no {kind} named `{name}`")
            }
        })
        .collect();
    if !unknown.is_empty() {
        anyhow::bail!(
            "{} on the selected MCP servers (use the upstream's name or the exposed one); nothing was written",
            unknown.join("; ")
        );
    }
    if !options.dry_run {
        for (path, file) in &files {
            if report.iter().any(|l| &l.path == path && l.writes) {
                file.write(path)?;
            }
        }
    }
    Ok(report)
}

/// A pending change in full, for the person reviewing it: the summary line, then the
/// whole pinned and live texts (one line each, cut at 8,192 characters around what
/// changed) or the schema diff. Upstream text is shown here, to people, on purpose.
pub fn review(
    change: &DefinitionChange,
    new_tools: &[ToolDefinition],
    new_prompts: &[PromptDefinition],
) -> Vec<String> {
    let mut lines = vec![change.summary()];
    let detail = change.to_json();
    // Hidden characters are shown as `\u{…}` escapes: a reviewer must see what the
    // model would read, tag-character instructions included.
    let one_line =
        |t: &str| -> String { toolgate_contract::one_line(t).chars().take(8_192).collect() };
    let change = match change {
        DefinitionChange::Prompt(inner) => {
            if inner.is_added()
                && let Some(def) = new_prompts.iter().find(|p| p.name == inner.tool())
            {
                if let Some(title) = &def.title {
                    lines.push(format!("  + title:       {}", one_line(title)));
                }
                lines.push(format!(
                    "  + description: {}",
                    def.description.as_deref().map_or("(none)".into(), one_line)
                ));
                for a in &def.arguments {
                    lines.push(format!(
                        "  + argument {}{}: {}",
                        one_line(&a.name),
                        if a.required { " (required)" } else { "" },
                        a.description.as_deref().map_or("(none)".into(), one_line)
                    ));
                }
                return lines;
            }
            inner.as_ref()
        }
        other => other,
    };
    match change {
        DefinitionChange::Added { tool } => {
            if let Some(def) = new_tools.iter().find(|t| &t.name == tool) {
                if let Some(title) = &def.title {
                    lines.push(format!("  + title:       {}", one_line(title)));
                }
                lines.push(format!(
                    "  + description: {}",
                    def.description.as_deref().map_or("(none)".into(), one_line)
                ));
                lines.push(format!(
                    "  + inputSchema: {}",
                    one_line(&def.input_schema.to_string())
                ));
            }
        }
        DefinitionChange::Description { .. }
        | DefinitionChange::Title { .. }
        | DefinitionChange::Annotations { .. } => {
            let show = |v: &serde_json::Value| match v {
                serde_json::Value::Null => "(none)".to_string(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            lines.push(format!("  - pinned: {}", show(&detail["before"])));
            lines.push(format!("  + live:   {}", show(&detail["after"])));
        }
        DefinitionChange::InputSchema { drift, .. }
        | DefinitionChange::OutputSchema {
            drift: Some(drift), ..
        } => {
            for line in drift.to_string().lines() {
                lines.push(format!("  {line}"));
            }
        }
        _ => {}
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reviewer_sees_hidden_characters_in_a_new_tool_as_escapes() {
        let def = ToolDefinition::from_mcp(&serde_json::json!({
            "name": "search",
            "description": "Search the web.\u{e0052}\u{e0065}\u{e0061}\u{e0064}\u{202e}",
            "inputSchema": {"type": "object"}
        }))
        .unwrap();
        let change = DefinitionChange::Added {
            tool: "search".into(),
        };
        let lines = review(&change, &[def], &[]).join("\n");
        assert!(
            lines.contains(r"Search the web.\u{e0052}\u{e0065}\u{e0061}\u{e0064}\u{202e}"),
            "{lines}"
        );
        assert!(
            !lines.chars().any(toolgate_contract::is_invisible),
            "{lines}"
        );
    }
}
