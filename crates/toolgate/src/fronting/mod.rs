//! toolgate in front of upstream MCP servers (`mcp_servers:`).
//!
//! Per server: one connection (streamable HTTP or a supervised stdio child, see
//! `toolgate-mcp-client`), the **pinned** tool definitions — from the lockfile `toolgate
//! lock` writes, or, without one, those first seen at start-up — and the routes built
//! from them. The pins, not the live definitions, are what agents are shown: a server
//! redeployed with a changed description (which is how tool poisoning looks) or schema
//! does not change what toolgate serves. Every difference between the live definitions
//! and the pins is **definition drift**: an incident for the tool's owner with the diff;
//! with `on_change: block` the changed tool is also hidden until the lock is updated.
//!
//! The live definitions are compared with the pins at start-up, whenever the server says
//! its tool list changed (or its process restarted, or its session was lost), and every
//! `check_every`.

pub mod link;
pub mod lock;
pub mod passthrough;
pub mod spec;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolgate_contract::{DefinitionChange, PinnedServer, ToolDefinition};
use toolgate_mcp_client::{Connection, Event};

use crate::config::{Config, McpServerSpec, OnChange};
use crate::dependency::DependencyState;
use crate::pipeline::Route;
use crate::pipeline::ToolRoute;
use crate::store::{IncidentKind, NewIncident};
use crate::sync::lock as guard;
use crate::upstream::mcp::McpLink;
use crate::upstream::{AnyUpstream, McpUpstream, UpstreamClient};
use crate::watch::incidents::Incidents;

/// Upper bound of `tools/list` pages followed (a server that paginates forever is cut off).
const MAX_PAGES: usize = 100;

/// What fronting needs from the gateway it serves (so it does not depend on it).
pub trait Host: Send + Sync {
    /// A tool's route by exposed name.
    fn route(&self, name: &str) -> Option<Arc<ToolRoute>>;
    /// Replaces the routes of one server.
    fn set_server_routes(&self, server: &str, routes: Vec<ToolRoute>);
    /// The dependency state of a server.
    fn server_dependency(&self, server: &str) -> Option<Arc<DependencyState>>;
    /// Raising and clearing incidents.
    fn incidents(&self) -> &Arc<Incidents>;
    /// A notification to every connected client.
    fn notify_all(&self, method: &str, params: Option<Value>);
}

/// A fronted server with the receiver of its connection's events.
pub type ServerEvents = (Arc<Fronted>, mpsc::Receiver<Event>);

/// Every fronted server.
#[derive(Debug, Default)]
pub struct Fronting {
    servers: BTreeMap<String, Arc<Fronted>>,
}

/// One upstream MCP server.
#[derive(Debug)]
pub struct Fronted {
    spec: Arc<McpServerSpec>,
    connection: Connection,
    link: Arc<dyn McpLink>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The definitions in force.
    pins: Option<PinnedServer>,
    /// Whether they came from the lockfile.
    from_lock: bool,
    /// Differences between the live definitions and the pins, from the last check.
    changes: Vec<DefinitionChange>,
    /// Why the last check could not list the server's tools.
    last_error: Option<String>,
    /// When the last check listed them.
    checked_at: Option<chrono::DateTime<chrono::Utc>>,
    /// Exposed names with the definition they are built from, as last published.
    published: BTreeMap<String, ToolDefinition>,
    /// The lockfile's modification time when its pins were read.
    lock_mtime: Option<std::time::SystemTime>,
}

fn mtime(path: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// The tools agents see changed.
    pub changed: bool,
    /// The server answered `tools/list`.
    pub listed: bool,
}

/// What `dependency_health` and `toolgate status` show of a server.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerReport {
    /// `url` or `stdio`.
    pub transport: &'static str,
    /// Whether a session is established now.
    pub connected: bool,
    /// What the server said it is, at its last handshake.
    pub server: Option<String>,
    /// Where the pins come from: `lockfile` or `first_seen`.
    pub pinned_from: Option<&'static str>,
    /// Tools exposed now.
    pub tools: usize,
    /// Tools with definition drift (and whether they are hidden).
    pub drift: Vec<Value>,
    /// The last check's error.
    pub last_error: Option<String>,
}

impl Fronting {
    /// Starts a connection per server (stdio children are spawned now) and reads the
    /// pins from each server's lockfile. A lockfile that cannot be read is an error:
    /// serving without the pins it holds would lose what it protects against.
    pub fn start(
        config: &Config,
        client: &UpstreamClient,
    ) -> anyhow::Result<(Fronting, Vec<ServerEvents>)> {
        let mut servers = BTreeMap::new();
        let mut events = Vec::new();
        for (name, spec) in &config.mcp_servers {
            let lock_mtime = mtime(&spec.lock);
            let pins = toolgate_contract::Lockfile::read(&spec.lock)
                .map_err(|e| anyhow::anyhow!("MCP server `{name}`: {e}"))?
                .and_then(|l| l.server(name).cloned());
            let (connection, rx) = Connection::start(
                link::server_spec(spec, config.gateway.max_response_bytes),
                client.http().clone(),
            );
            let link: Arc<dyn McpLink> = Arc::new(link::ClientLink(connection.clone()));
            let fronted = Arc::new(Fronted {
                spec: spec.clone(),
                connection,
                link,
                state: Mutex::new(State {
                    from_lock: pins.is_some(),
                    pins,
                    lock_mtime,
                    ..State::default()
                }),
            });
            servers.insert(name.clone(), fronted.clone());
            events.push((fronted, rx));
        }
        Ok((Fronting { servers }, events))
    }

    /// Every server.
    pub fn servers(&self) -> impl Iterator<Item = &Arc<Fronted>> {
        self.servers.values()
    }

    /// A server by name.
    pub fn server(&self, name: &str) -> Option<&Arc<Fronted>> {
        self.servers.get(name)
    }

    /// Whether any server is configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Ends every session and stops every child process.
    pub async fn shutdown(&self) {
        for s in self.servers.values() {
            s.connection.shutdown().await;
        }
    }
}

impl Fronted {
    /// The server's configuration.
    pub fn spec(&self) -> &Arc<McpServerSpec> {
        &self.spec
    }

    /// The server's session, for requests that are not tool calls.
    pub fn link(&self) -> &Arc<dyn McpLink> {
        &self.link
    }

    /// What the server said at its last handshake.
    pub fn initialized(&self) -> Option<toolgate_mcp_client::Initialized> {
        self.connection.initialized()
    }

    /// Publishes routes from the pins alone (no I/O): with a lockfile, the server's
    /// tools are served from the first moment, whether or not it is up.
    pub fn publish_pinned(&self, gateway: &dyn Host) -> bool {
        self.publish(gateway)
    }

    /// Lists the live tools, compares them with the pins (pinning them if there are
    /// none yet), raises or clears definition-drift incidents, and publishes the routes.
    /// Returns whether the tools agents see changed (so clients are told) and whether
    /// the server could be listed.
    pub async fn check(&self, gateway: &dyn Host) -> Checked {
        self.reread_lock();
        let live = match self.list_tools().await {
            Ok(live) => live,
            Err(e) => {
                let mut state = guard(&self.state);
                if state.last_error.as_deref() != Some(e.as_str()) {
                    tracing::warn!(server = %self.spec.name, error = %e, "could not list the MCP server's tools; serving its pinned tools");
                }
                state.last_error = Some(e);
                drop(state);
                return Checked {
                    changed: self.publish(gateway),
                    listed: false,
                };
            }
        };
        let (changes, first_seen) = {
            let mut state = guard(&self.state);
            state.last_error = None;
            state.checked_at = Some(chrono::Utc::now());
            let first_seen = state.pins.is_none();
            if first_seen {
                let init = self.connection.initialized();
                state.pins = Some(PinnedServer {
                    server_name: init
                        .as_ref()
                        .map(|i| i.server_name.clone())
                        .unwrap_or_default(),
                    server_version: init
                        .as_ref()
                        .map(|i| i.server_version.clone())
                        .unwrap_or_default(),
                    protocol_version: init
                        .as_ref()
                        .map(|i| i.protocol_version.clone())
                        .unwrap_or_default(),
                    locked_at: chrono::Utc::now()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    tools: live.clone(),
                });
            }
            let pinned = state
                .pins
                .as_ref()
                .map(|p| p.tools.as_slice())
                .unwrap_or_default();
            let changes = toolgate_contract::compare(pinned, &live);
            state.changes = changes.clone();
            (changes, first_seen)
        };
        if first_seen {
            tracing::warn!(
                server = %self.spec.name,
                lock = %self.spec.lock.display(),
                "no pinned definitions for this MCP server: pinning the {} tool definitions it serves now; run `toolgate lock` to keep them across restarts",
                live.len()
            );
        }
        self.report_changes(gateway, &changes);
        Checked {
            changed: self.publish(gateway),
            listed: true,
        }
    }

    /// Whether the lockfile changed since its pins were read.
    fn lock_changed(&self) -> bool {
        let now = mtime(&self.spec.lock);
        now.is_some() && now != guard(&self.state).lock_mtime
    }

    /// Takes the pins from the lockfile again when it changed since they were read:
    /// `toolgate lock` run beside a serving toolgate is how a change is accepted, without
    /// a restart. A lockfile that no longer reads keeps the pins in force (logged).
    fn reread_lock(&self) {
        let now = mtime(&self.spec.lock);
        let mut state = guard(&self.state);
        if now.is_none() || now == state.lock_mtime {
            return;
        }
        match toolgate_contract::Lockfile::read(&self.spec.lock) {
            Ok(Some(l)) => {
                if let Some(pins) = l.server(&self.spec.name) {
                    tracing::info!(server = %self.spec.name, lock = %self.spec.lock.display(), "the lockfile changed: serving its pins");
                    state.pins = Some(pins.clone());
                    state.from_lock = true;
                }
                state.lock_mtime = now;
            }
            Ok(None) => state.lock_mtime = now,
            Err(e) => {
                tracing::error!(server = %self.spec.name, error = %e, "the lockfile changed but cannot be read; the pins in force stay");
                state.lock_mtime = now;
            }
        }
    }

    /// Every page of `tools/list`, as definitions.
    async fn list_tools(&self) -> Result<Vec<ToolDefinition>, String> {
        let timeout = self.spec.dependency.timeout;
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.take().map(|c| json!({ "cursor": c }));
            let reply = self
                .link
                .request("tools/list", params, timeout, None)
                .await
                .map_err(|e| e.to_string())?;
            let result = reply
                .outcome
                .map_err(|e| format!("tools/list failed: {} ({})", e.message, e.code))?;
            for t in result
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match ToolDefinition::from_mcp(t) {
                    Ok(d) => tools.push(d),
                    Err(e) => {
                        tracing::warn!(server = %self.spec.name, error = %e, "skipping a tool definition toolgate cannot read")
                    }
                }
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return Ok(tools),
            }
        }
        Ok(tools)
    }

    /// One incident per changed tool (its owner's), updated while the same changes
    /// persist, cleared when the tool matches its pin again.
    fn report_changes(&self, gateway: &dyn Host, changes: &[DefinitionChange]) {
        let mut by_tool: BTreeMap<&str, Vec<&DefinitionChange>> = BTreeMap::new();
        for c in changes {
            by_tool.entry(c.tool()).or_default().push(c);
        }
        let pinned: BTreeSet<String> = {
            let state = guard(&self.state);
            state
                .pins
                .iter()
                .flat_map(|p| p.tools.iter().map(|t| t.name.clone()))
                .collect()
        };
        let incidents = gateway.incidents();
        for (tool, list) in &by_tool {
            let exposed = self.spec.exposed_name(tool);
            let owned: Vec<DefinitionChange> = list.iter().map(|c| (*c).clone()).collect();
            let fingerprint = toolgate_contract::definition_fingerprint(&owned);
            if incidents.sighting(IncidentKind::DefinitionDrift, &exposed, &fingerprint) {
                continue;
            }
            let hidden =
                self.spec.on_change == OnChange::Block && list.iter().any(|c| c.hides_tool());
            let summary: Vec<String> = list.iter().map(|c| c.summary()).collect();
            let action = if hidden {
                "toolgate hides the tool until its lock is updated (`toolgate lock`)"
            } else if list
                .iter()
                .all(|c| matches!(c, DefinitionChange::Added { .. }))
            {
                "the new tool is not exposed until it is pinned (`toolgate lock`)"
            } else {
                "toolgate keeps serving the pinned definition"
            };
            let owner = self
                .spec
                .tools
                .get(*tool)
                .and_then(|o| o.owner.clone())
                .unwrap_or_else(|| self.spec.owner.clone());
            tracing::warn!(server = %self.spec.name, tool = %exposed, changes = %summary.join("; "), "definition drift: the MCP server's live tool definition differs from its pin");
            incidents.raise(NewIncident {
                kind: IncidentKind::DefinitionDrift,
                tool: exposed.clone(),
                dependency: self.spec.name.clone(),
                owner,
                fingerprint,
                title: format!(
                    "{exposed}: definition changed on MCP server {}: {}",
                    self.spec.name,
                    summary.join("; ")
                ),
                detail: json!({
                    "server": self.spec.name,
                    "changes": owned.iter().map(DefinitionChange::to_json).collect::<Vec<_>>(),
                    "action": action,
                    "hidden": hidden,
                }),
                contract_version: None,
            });
        }
        for tool in pinned {
            if !by_tool.contains_key(tool.as_str()) {
                let exposed = self.spec.exposed_name(&tool);
                if incidents.is_open(IncidentKind::DefinitionDrift, &exposed) {
                    incidents.clear(
                        IncidentKind::DefinitionDrift,
                        &exposed,
                        None,
                        "the live definition matches the pin again",
                    );
                }
            }
        }
    }

    /// Builds the routes from the pins (filtered, without hidden tools) and hands them
    /// to the gateway. Returns whether the published tools changed.
    fn publish(&self, gateway: &dyn Host) -> bool {
        let mut state = guard(&self.state);
        let Some(pins) = state.pins.clone() else {
            return false;
        };
        let hidden: BTreeSet<&str> = if self.spec.on_change == OnChange::Block {
            state
                .changes
                .iter()
                .filter(|c| c.hides_tool())
                .map(DefinitionChange::tool)
                .collect()
        } else {
            BTreeSet::new()
        };
        let version = if pins.server_version.is_empty() {
            "pinned".to_string()
        } else {
            pins.server_version.clone()
        };
        let mut routes = Vec::new();
        let mut published = BTreeMap::new();
        let dependency = gateway.server_dependency(&self.spec.name);
        for def in &pins.tools {
            if !self.spec.exposes(&def.name) || hidden.contains(def.name.as_str()) {
                continue;
            }
            let d = spec::Definition {
                name: &def.name,
                title: def.title.as_deref(),
                description: def.description.as_deref(),
                input_schema: &def.input_schema,
                output_schema: def.output_schema.as_ref(),
                annotations: def.annotations.as_ref(),
            };
            let tool = match spec::tool_spec(&self.spec, &d, &version) {
                Ok(t) => Arc::new(t),
                Err(e) => {
                    tracing::warn!(server = %self.spec.name, error = %e, "not exposing an MCP tool");
                    continue;
                }
            };
            if let Some(other) = gateway.route(&tool.name)
                && other.server() != Some(self.spec.name.as_str())
            {
                tracing::error!(server = %self.spec.name, tool = %tool.name, "not exposing the MCP tool: another tool already has this name (give the server a prefix)");
                continue;
            }
            let Some(dependency) = dependency.clone() else {
                continue;
            };
            published.insert(tool.name.clone(), def.clone());
            let upstream = AnyUpstream::Mcp(McpUpstream::new(self.link.clone(), def.name.clone()));
            routes.push(Route::new(
                tool,
                Arc::new(crate::tool_state::ToolState::new()),
                dependency,
                upstream,
            ));
        }
        let changed = published != state.published;
        state.published = published;
        drop(state);
        gateway.set_server_routes(&self.spec.name, routes);
        changed
    }

    /// The server as `dependency_health` shows it.
    pub fn report(&self) -> ServerReport {
        let state = guard(&self.state);
        let init = self.connection.initialized();
        ServerReport {
            transport: match self.spec.transport {
                crate::config::McpTransport::Http { .. } => "url",
                crate::config::McpTransport::Stdio { .. } => "stdio",
            },
            connected: init.is_some() && state.last_error.is_none(),
            server: init.map(|i| format!("{} {}", i.server_name, i.server_version)),
            pinned_from: state.pins.as_ref().map(|_| {
                if state.from_lock {
                    "lockfile"
                } else {
                    "first_seen"
                }
            }),
            tools: state.published.len(),
            drift: state
                .changes
                .iter()
                .map(|c| {
                    json!({
                        "tool": self.spec.exposed_name(c.tool()),
                        "change": c.summary(),
                        "hidden": self.spec.on_change == OnChange::Block && c.hides_tool(),
                    })
                })
                .collect(),
            last_error: state.last_error.clone(),
        }
    }
}

/// Keeps one server's tools current: checks on every list-changed, restart or lost
/// session, and every `check_every` (sooner, with backoff from 1 s, while the server
/// cannot be listed, so a server that was down at start-up is picked up soon after it
/// comes up); tells connected clients when the tools they see changed, and passes the
/// server's other notifications on. The first check is the caller's (`serve` waits for
/// it, bounded).
pub async fn watch(
    server: Arc<Fronted>,
    gateway: Arc<dyn Host>,
    mut events: mpsc::Receiver<Event>,
    first: Checked,
    stop: tokio_util::sync::CancellationToken,
) {
    let notify = |method: &str, params: Option<Value>| gateway.notify_all(method, params);
    let every = server.spec.check_every;
    let mut backoff = Duration::from_secs(1);
    let now = tokio::time::Instant::now;
    // A deadline, not a sleep per loop: events and lock polls must not push it back.
    let mut due = now() + if first.listed { every } else { backoff };
    let mut events_open = true;
    let mut lock_poll = tokio::time::interval(LOCK_POLL);
    lock_poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let recheck = tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep_until(due) => true,
            _ = lock_poll.tick() => server.lock_changed(),
            event = events.recv(), if events_open => match event {
                None => {
                    events_open = false;
                    false
                }
                Some(Event::ToolsChanged | Event::Restarted | Event::SessionLost) => true,
                Some(Event::Exited { detail }) => {
                    tracing::warn!(server = %server.spec.name, %detail, "the MCP server's process exited; restarting it");
                    false
                }
                // Sent at most once a minute per server; the client has shed the excess.
                Some(Event::Misbehaving { detail, shed }) => {
                    tracing::warn!(server = %server.spec.name, owner = %server.spec.owner, shed, %detail, "the MCP server floods toolgate with requests");
                    false
                }
                Some(Event::PromptsChanged) => {
                    notify("notifications/prompts/list_changed", None);
                    false
                }
                Some(Event::ResourcesChanged) => {
                    notify("notifications/resources/list_changed", None);
                    false
                }
                Some(Event::ResourceUpdated { uri }) => {
                    notify("notifications/resources/updated", Some(json!({ "uri": uri })));
                    false
                }
                Some(Event::Notification { method, params }) => {
                    if method == "notifications/message" {
                        notify(&method, params);
                    }
                    false
                }
            },
        };
        if recheck {
            let checked = server.check(gateway.as_ref()).await;
            if checked.changed {
                notify("notifications/tools/list_changed", None);
            }
            if checked.listed {
                backoff = Duration::from_secs(1);
                due = now() + every;
            } else {
                due = now() + backoff.min(every);
                backoff = (backoff * 2).min(every);
            }
        }
    }
}

/// How often the lockfile's modification time is looked at (a `stat`), so a `toolgate
/// lock` run beside a serving toolgate takes effect within seconds.
const LOCK_POLL: Duration = Duration::from_secs(2);

/// How long `serve` waits at start-up for every server's first check, so the first
/// `tools/list` already has the tools of servers that are up; a server that is down
/// does not hold the others (they are checked concurrently) and keeps being checked.
pub const STARTUP_WAIT: Duration = Duration::from_secs(10);
