//! `toolgate lock`: connects to the configured MCP servers, lists their tools, prompts
//! and resource templates and writes them as the pins into each server's lockfile
//! (servers sharing a lockfile share one file; entries of servers not in this config, or
//! not selected, are kept as they were).
//!
//! A serving toolgate takes the new pins within seconds, so the review comes first:
//! `--dry-run` shows each pending change in full (the changed text, the schema diff) and
//! writes nothing, `--check` does the same and fails when anything is pending (for CI),
//! and `--server`/`--tool`/`--prompt`/`--resource-template` accept only the changes
//! that were reviewed — accepting one server's change never accepts another's, and
//! accepting a tool's change never accepts a prompt's of the same name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use toolgate_contract::{
    DefinitionChange, DefinitionKind, Lockfile, PinnedDefinition, PinnedServer, PromptDefinition,
    ResourceTemplateDefinition, ToolDefinition,
};

use super::{Fronted, Fronting, Host, Listed, Refusals};
use crate::upstream::UpstreamClient;
use toolgate_config::{Config, McpServerSpec};

/// What `lock` accepts and whether it writes.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Only these servers (every server when empty).
    pub servers: Vec<String>,
    /// Only these tools, by the upstream's name or the exposed one; with `prompts` and
    /// `resource_templates` empty too, every change. The other changes stay pending.
    pub tools: Vec<String>,
    /// Only these prompts, named as `tools` are. A tool and a prompt may share a name,
    /// so each is selected by its own kind: a reviewer who accepts a tool's change has
    /// not seen a prompt's.
    pub prompts: Vec<String>,
    /// Only these resource templates, by their URI template.
    pub resource_templates: Vec<String>,
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
    /// How many resource templates are pinned after this run.
    pub resource_templates: usize,
    /// The lists other than the tools' that could not be read (prompts, resource
    /// templates), with why: the server's tools are locked all the same and those
    /// definitions keep their pins (as a serving gateway keeps serving them).
    pub unlisted: Vec<(DefinitionKind, String)>,
    /// The changes against the previous pins that this run accepts (or would accept).
    pub changes: Vec<DefinitionChange>,
    /// The live definitions of the new tools among `changes`, for review.
    pub new_tools: Vec<ToolDefinition>,
    /// The live definitions of the new prompts among `changes`, for review.
    pub new_prompts: Vec<PromptDefinition>,
    /// The live definitions of the new resource templates among `changes`, for review.
    pub new_templates: Vec<ResourceTemplateDefinition>,
    /// Changes left pending because `--tool`, `--prompt` or `--resource-template` did
    /// not select them.
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

    /// A server that could not be listed: nothing changes.
    fn unreachable(server: &str, path: &std::path::Path, first: bool, error: String) -> Locked {
        Locked {
            server: server.to_string(),
            path: path.to_path_buf(),
            result: Err(error),
            prompts: 0,
            resource_templates: 0,
            unlisted: Vec::new(),
            changes: Vec::new(),
            new_tools: Vec::new(),
            new_prompts: Vec::new(),
            new_templates: Vec::new(),
            left_pending: 0,
            first,
            refused: None,
            writes: false,
        }
    }
}

/// One definition to accept: its kind, and its name as a person typed it (a tool's or
/// prompt's upstream or exposed name, a resource template's URI template).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pick<'a> {
    /// What it is.
    pub kind: DefinitionKind,
    /// What names it.
    pub name: &'a str,
}

impl<'a> Pick<'a> {
    /// A tool, by name.
    pub fn tool(name: &'a str) -> Pick<'a> {
        Pick {
            kind: DefinitionKind::Tool,
            name,
        }
    }

    /// A prompt, by name.
    pub fn prompt(name: &'a str) -> Pick<'a> {
        Pick {
            kind: DefinitionKind::Prompt,
            name,
        }
    }

    /// A resource template, by its URI template.
    pub fn resource_template(uri_template: &'a str) -> Pick<'a> {
        Pick {
            kind: DefinitionKind::ResourceTemplate,
            name: uri_template,
        }
    }
}

/// The command-line flag selecting a definition of `kind`.
pub fn flag(kind: DefinitionKind) -> &'static str {
    match kind {
        DefinitionKind::Tool => "--tool",
        DefinitionKind::Prompt => "--prompt",
        DefinitionKind::ResourceTemplate => "--resource-template",
    }
}

impl Options {
    /// Whether only some definitions are selected.
    fn picks(&self) -> bool {
        self.given().next().is_some()
    }

    /// Every definition given, each by its kind.
    fn given(&self) -> impl Iterator<Item = Pick<'_>> {
        let tools = self.tools.iter().map(|t| Pick::tool(t));
        let prompts = self.prompts.iter().map(|p| Pick::prompt(p));
        let templates = self
            .resource_templates
            .iter()
            .map(|t| Pick::resource_template(t));
        tools.chain(prompts).chain(templates)
    }

    /// Whether the definition the upstream names `live` (by its kind) is selected.
    fn selects(&self, spec: &McpServerSpec, live: Pick<'_>) -> bool {
        !self.picks()
            || self
                .given()
                .any(|given| given.kind == live.kind && names_one(spec, given, live.name))
    }
}

/// Whether `given` (as a person typed it) names the upstream's `name` on `spec`: a
/// tool or prompt by either name, a resource template (never renamed) by its own.
fn names_one(spec: &McpServerSpec, given: Pick<'_>, name: &str) -> bool {
    given.name == name
        || (given.kind != DefinitionKind::ResourceTemplate && given.name == spec.exposed_name(name))
}

/// The new pins of one kind: the selected definitions as listed now, the others as
/// pinned before; a pinned one refused for the limits cannot be compared, so its pin
/// stays.
fn repin<T: PinnedDefinition>(
    options: &Options,
    spec: &McpServerSpec,
    old: &[T],
    live: &[T],
    refused: &Refusals,
) -> Vec<T> {
    let selected = |d: &T| {
        options.selects(
            spec,
            Pick {
                kind: T::KIND,
                name: d.key(),
            },
        )
    };
    let mut pins: Vec<T> = old.iter().filter(|d| !selected(d)).cloned().collect();
    pins.extend(live.iter().filter(|d| selected(d)).cloned());
    for name in &refused.pinned {
        if !pins.iter().any(|d| d.key() == name)
            && let Some(d) = old.iter().find(|d| d.key() == name)
        {
            pins.push(d.clone());
        }
    }
    pins
}

/// The live definitions of the new ones among `changes` of `T`'s kind.
fn new_ones<T: PinnedDefinition>(changes: &[DefinitionChange], live: &[T]) -> Vec<T> {
    changes
        .iter()
        .filter(|c| c.is_added() && c.definition_kind() == T::KIND)
        .filter_map(|c| live.iter().find(|d| d.key() == c.tool()).cloned())
        .collect()
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

/// Accepts the pending change of one definition (every pending change of the server
/// when `None`) on `server` in a running gateway, exactly as `toolgate lock --server S
/// --tool T` (or `--prompt P`, `--resource-template U`, or `--server S` alone) does,
/// then checks the server at once: the new pin is served, and a definition withheld
/// under `on_change: block` comes back without a restart. Clients are told when the
/// tools they see changed.
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
    if let Some(pick) = pick {
        let name = pick.name.to_string();
        match pick.kind {
            DefinitionKind::Tool => options.tools.push(name),
            DefinitionKind::Prompt => options.prompts.push(name),
            DefinitionKind::ResourceTemplate => options.resource_templates.push(name),
        }
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

/// What one server lists now, each kind with what the limits refused.
struct Live {
    init: toolgate_mcp_client::Initialized,
    tools: Listed,
    prompts: (Vec<PromptDefinition>, Refusals),
    templates: (Vec<ResourceTemplateDefinition>, Refusals),
    /// The lists other than the tools' that could not be read; each is taken as its
    /// pins (so nothing of it changes).
    unlisted: Vec<(DefinitionKind, String)>,
}

/// Lists `server`'s definitions; an error when it cannot be reached or its tools
/// cannot be listed.
async fn list_live(server: &Fronted, previous: Option<&PinnedServer>) -> Result<Live, String> {
    let spec = server.spec();
    let names = super::check::PinnedNames::of(previous);
    let init = server
        .connection
        .initialize(spec.dependency.timeout)
        .await
        .map_err(|e| e.to_string())?;
    let tools = server.list_tools(&names.tools).await?;
    let mut unlisted = Vec::new();
    let prompts = match server.list_prompts(&names.prompts).await {
        Ok(prompts) => prompts,
        Err(e) => {
            unlisted.push((DefinitionKind::Prompt, e));
            let pinned = previous.map(|p| p.prompts.clone()).unwrap_or_default();
            (pinned, Refusals::default())
        }
    };
    let templates = match server.list_templates(&names.templates).await {
        Ok(templates) => templates,
        Err(e) => {
            unlisted.push((DefinitionKind::ResourceTemplate, e));
            let pinned = previous
                .map(|p| p.resource_templates.clone())
                .unwrap_or_default();
            (pinned, Refusals::default())
        }
    };
    Ok(Live {
        init,
        tools,
        prompts,
        templates,
        unlisted,
    })
}

/// Locks every selected server: lists it, takes the selected changes into its pins, and
/// writes each lockfile that changes (unless `dry_run`); an unreachable server is
/// reported and its pins kept.
async fn lock_servers(fronting: &Fronting, options: &Options) -> anyhow::Result<Vec<Locked>> {
    let mut files: BTreeMap<PathBuf, Lockfile> = BTreeMap::new();
    let mut report = Vec::new();
    let mut picks = PickMatches::default();
    for server in fronting.servers().map(Arc::clone).collect::<Vec<_>>() {
        let spec = server.spec().clone();
        if !options.servers.is_empty() && !options.servers.contains(&spec.name) {
            continue;
        }
        let mut file = match files.get(&spec.lock) {
            Some(f) => f.clone(),
            None => Lockfile::read(&spec.lock)?.unwrap_or_default(),
        };
        let previous = file.server(&spec.name).cloned();
        let live = match list_live(&server, previous.as_ref()).await {
            Ok(live) => live,
            Err(e) => {
                files.insert(spec.lock.clone(), file);
                report.push(Locked::unreachable(
                    &spec.name,
                    &spec.lock,
                    previous.is_none(),
                    e,
                ));
                continue;
            }
        };
        let old = previous.clone().unwrap_or_default();
        picks.note(options, &spec, &known_names(&live, &old));
        let (locked, pins) = relock(options, &spec, previous.as_ref(), live);
        if let Some(pins) = pins {
            file.merge(spec.name.clone(), pins);
        }
        files.insert(spec.lock.clone(), file);
        report.push(locked);
    }
    picks.refuse_unknown(options)?;
    if !options.dry_run {
        for (path, file) in &files {
            if report.iter().any(|l| &l.path == path && l.writes) {
                file.write(path)?;
            }
        }
    }
    Ok(report)
}

/// Every name `server` lists now or pinned before, by kind.
fn known_names<'a>(live: &'a Live, old: &'a PinnedServer) -> Vec<(DefinitionKind, &'a str)> {
    let mut known: Vec<(DefinitionKind, &str)> = Vec::new();
    known.extend(
        live.tools
            .tools
            .iter()
            .chain(&old.tools)
            .map(|d| (DefinitionKind::Tool, d.key())),
    );
    known.extend(
        live.prompts
            .0
            .iter()
            .chain(&old.prompts)
            .map(|d| (DefinitionKind::Prompt, d.key())),
    );
    known.extend(
        live.templates
            .0
            .iter()
            .chain(&old.resource_templates)
            .map(|d| (DefinitionKind::ResourceTemplate, d.key())),
    );
    known
}

/// The names given to pick that named a definition of their kind on some server, and
/// for the others the kind they do name (for the error's hint).
#[derive(Default)]
struct PickMatches<'a> {
    matched: BTreeSet<Pick<'a>>,
    other_kind: BTreeMap<Pick<'a>, DefinitionKind>,
}

impl<'a> PickMatches<'a> {
    /// Notes which of the names given name one of `known`, a server's names.
    fn note(
        &mut self,
        options: &'a Options,
        spec: &McpServerSpec,
        known: &[(DefinitionKind, &str)],
    ) {
        for given in options.given() {
            let named: Vec<DefinitionKind> = known
                .iter()
                .filter(|(kind, name)| {
                    let as_kind = Pick {
                        kind: *kind,
                        ..given
                    };
                    names_one(spec, as_kind, name)
                })
                .map(|(kind, _)| *kind)
                .collect();
            if named.contains(&given.kind) {
                self.matched.insert(given);
            } else if let Some(kind) = named.first() {
                self.other_kind.insert(given, *kind);
            }
        }
    }

    /// An error naming every name given that named nothing of its kind on the selected
    /// servers: then nothing is written.
    fn refuse_unknown(&self, options: &'a Options) -> anyhow::Result<()> {
        let unknown: Vec<String> = options
            .given()
            .filter(|given| !self.matched.contains(given))
            .map(|given| {
                let (kind, name) = (given.kind.noun(), given.name);
                match self.other_kind.get(&given) {
                    Some(other) => format!(
                        "no {kind} named `{name}`: it is a {} (select it with {})",
                        other.noun(),
                        flag(*other)
                    ),
                    None => format!("no {kind} named `{name}`"),
                }
            })
            .collect();
        if !unknown.is_empty() {
            anyhow::bail!(
                "{} on the selected MCP servers (use the upstream's name or the exposed one; a resource template's URI template); nothing was written",
                unknown.join("; ")
            );
        }
        Ok(())
    }
}

/// What locking one server found, and its new pins when the lockfile is to change: the
/// selected changes taken, the others left pending.
fn relock(
    options: &Options,
    spec: &McpServerSpec,
    previous: Option<&PinnedServer>,
    live: Live,
) -> (Locked, Option<PinnedServer>) {
    let Live {
        init,
        tools: Listed {
            tools: live_tools,
            mut refused,
        },
        prompts: (live_prompts, prompts_refused),
        templates: (live_templates, templates_refused),
        unlisted,
    } = live;
    let old = previous.cloned().unwrap_or_default();
    let mut all_changes = toolgate_contract::compare(&old.tools, &live_tools);
    all_changes.extend(toolgate_contract::compare_prompts(
        &old.prompts,
        &live_prompts,
    ));
    all_changes.extend(toolgate_contract::compare_resource_templates(
        &old.resource_templates,
        &live_templates,
    ));
    let changes: Vec<DefinitionChange> = all_changes
        .iter()
        .filter(|c| {
            let live = Pick {
                kind: c.definition_kind(),
                name: c.tool(),
            };
            options.selects(spec, live)
        })
        .cloned()
        .collect();
    let tools = repin(options, spec, &old.tools, &live_tools, &refused);
    let prompts = repin(options, spec, &old.prompts, &live_prompts, &prompts_refused);
    let resource_templates = repin(
        options,
        spec,
        &old.resource_templates,
        &live_templates,
        &templates_refused,
    );
    refused.absorb(&prompts_refused);
    refused.absorb(&templates_refused);
    let (server_name, server_version, protocol_version) = identity(options, previous, &init);
    let same_server = previous.is_some_and(|p| {
        (&p.server_name, &p.server_version, &p.protocol_version)
            == (&server_name, &server_version, &protocol_version)
    });
    let writes = previous.is_none() || !changes.is_empty() || !same_server;
    let locked = Locked {
        server: spec.name.clone(),
        path: spec.lock.clone(),
        result: Ok(tools.len()),
        prompts: prompts.len(),
        resource_templates: resource_templates.len(),
        unlisted,
        left_pending: all_changes.len() - changes.len(),
        new_tools: new_ones(&changes, &live_tools),
        new_prompts: new_ones(&changes, &live_prompts),
        new_templates: new_ones(&changes, &live_templates),
        changes,
        first: previous.is_none(),
        refused: (!refused.is_empty()).then(|| refused.describe(&spec.limits)),
        writes,
    };
    let pins = writes.then(|| PinnedServer {
        server_name,
        server_version,
        protocol_version,
        locked_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        tools,
        prompts,
        resource_templates,
    });
    (locked, pins)
}

/// What the pins say the server is (name, version, protocol): what it says now when
/// the server is locked whole (every change, or its first lock), else what was pinned
/// (picking changes accepts no new identity).
fn identity(
    options: &Options,
    previous: Option<&PinnedServer>,
    init: &toolgate_mcp_client::Initialized,
) -> (String, String, String) {
    let whole = !options.picks() || previous.is_none();
    match (previous, whole) {
        (Some(p), false) => (
            p.server_name.clone(),
            p.server_version.clone(),
            p.protocol_version.clone(),
        ),
        _ => (
            super::server_identity::cleaned(&init.server_name),
            super::server_identity::cleaned(&init.server_version),
            init.protocol_version.clone(),
        ),
    }
}

/// A pending change in full, for the person reviewing it: the summary line, then the
/// whole pinned and live texts (one line each, cut at 8,192 characters around what
/// changed) or the schema diff; a new definition's every word. Upstream text is shown
/// here, to people, on purpose.
pub fn review(change: &DefinitionChange, locked: &Locked) -> Vec<String> {
    let mut lines = vec![change.summary()];
    let detail = change.to_json();
    // Hidden characters are shown as `\u{…}` escapes: a reviewer must see what the
    // model would read, tag-character instructions included.
    let one_line =
        |t: &str| -> String { toolgate_contract::one_line(t).chars().take(8_192).collect() };
    let text = |t: Option<&String>| t.map_or("(none)".into(), |t| one_line(t));
    let change = match change {
        DefinitionChange::Prompt(inner) => {
            if inner.is_added()
                && let Some(def) = locked.new_prompts.iter().find(|p| p.name == inner.tool())
            {
                if let Some(title) = &def.title {
                    lines.push(format!("  + title:       {}", one_line(title)));
                }
                lines.push(format!(
                    "  + description: {}",
                    text(def.description.as_ref())
                ));
                for a in &def.arguments {
                    lines.push(format!(
                        "  + argument {}{}: {}",
                        one_line(&a.name),
                        if a.required { " (required)" } else { "" },
                        text(a.description.as_ref())
                    ));
                }
                return lines;
            }
            inner.as_ref()
        }
        DefinitionChange::ResourceTemplate(inner) => {
            if inner.is_added()
                && let Some(def) = locked
                    .new_templates
                    .iter()
                    .find(|t| t.uri_template == inner.tool())
            {
                lines.push(format!("  + name:        {}", one_line(&def.name)));
                if let Some(title) = &def.title {
                    lines.push(format!("  + title:       {}", one_line(title)));
                }
                lines.push(format!(
                    "  + description: {}",
                    text(def.description.as_ref())
                ));
                if let Some(m) = &def.mime_type {
                    lines.push(format!("  + mimeType:    {}", one_line(m)));
                }
                if let Some(a) = &def.annotations {
                    lines.push(format!("  + annotations: {}", one_line(&a.to_string())));
                }
                return lines;
            }
            inner.as_ref()
        }
        other => other,
    };
    match change {
        DefinitionChange::Added { tool } => {
            if let Some(def) = locked.new_tools.iter().find(|t| &t.name == tool) {
                if let Some(title) = &def.title {
                    lines.push(format!("  + title:       {}", one_line(title)));
                }
                lines.push(format!(
                    "  + description: {}",
                    text(def.description.as_ref())
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
                serde_json::Value::String(s) => one_line(s),
                other => one_line(&other.to_string()),
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
        let locked = Locked {
            new_tools: vec![def],
            ..Locked::unreachable("docs", std::path::Path::new("t.json"), false, String::new())
        };
        let lines = review(&change, &locked).join("\n");
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
