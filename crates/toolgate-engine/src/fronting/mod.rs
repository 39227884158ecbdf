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
//!
//! What a server lists is capped (`limits`: tools per server, bytes per definition,
//! bytes per server); what is over a cap is refused — never pinned, never served — with
//! an incident for the server's owner. Nothing a server wrote in a definition that is
//! not pinned reaches a model: `dependency_health` and the answer to a withheld tool
//! say *what kind* of change is pending review, never the changed text (incidents and
//! logs, which people read, keep it).

pub mod callers;
mod check;
mod first_sight;
mod incidents;
mod limits;
pub mod link;
mod listing;
pub mod lock;
mod names;
pub(crate) use names::by_skeleton as names_by_skeleton;
mod pages;
pub mod passthrough;
mod publish;
mod registry;
mod relayed_answer;
mod reload;
mod report;
mod resource_index;
mod served;
mod server;
mod server_identity;
pub use reload::NextServers;
pub mod spec;
mod subscriptions;
mod updates;
mod watcher;

pub use limits::{Listed, Refusals};
pub use report::ServerReport;
pub use subscriptions::MAX_SUBSCRIBED;
pub use watcher::{SERVER_LOG_LINES_PER_SECOND, STARTUP_WAIT, watch};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::mpsc;
use toolgate_contract::{
    DefinitionChange, DefinitionKind, PinnedServer, PromptDefinition, ResourceTemplateDefinition,
    ToolDefinition,
};
use toolgate_mcp_client::{Connection, Event};

use crate::dependency::DependencyState;
use crate::pipeline::ToolRoute;
use crate::upstream::mcp::McpLink;
use crate::watch::incidents::Incidents;
use served::Served;
use toolgate_config::McpServerSpec;

/// What fronting needs from the gateway it serves (so it does not depend on it).
pub trait Host: Send + Sync {
    /// A tool's route by exposed name.
    fn route(&self, name: &str) -> Option<Arc<ToolRoute>>;
    /// The names served of every definition of `kind` not of server `server` (for tools,
    /// HTTP tools and other servers' tools; for prompts and resource templates, other
    /// servers'), by their look-alike skeleton (`names::by_skeleton`).
    fn names_besides(&self, server: &str, kind: DefinitionKind) -> BTreeMap<String, String>;
    /// Replaces the routes of one server.
    fn set_server_routes(&self, server: &str, routes: Vec<ToolRoute>);
    /// The dependency state of a server.
    fn server_dependency(&self, server: &str) -> Option<Arc<DependencyState>>;
    /// Raising and clearing incidents.
    fn incidents(&self) -> &Arc<Incidents>;
    /// A notification to every connected client.
    fn notify_all(&self, method: &str, params: Option<Value>);
    /// A notification to the clients reading as `readers` only.
    fn notify_readers(&self, method: &str, params: Option<Value>, readers: Vec<u64>);
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
    /// Callers' own sessions, when the server is called with the caller's authority
    /// (`token_exchange`); `link` then only lists and checks definitions.
    callers: Option<Arc<callers::CallerSessions>>,
    /// The gateway's reply memory, which the server's results are held in.
    replies: Arc<toolgate_resilience::ReplyMemory>,
    /// Rung when the server refuses a call for not knowing the tool (a tool removed or
    /// renamed without `list_changed`): the watcher checks the tools at once.
    recheck: Arc<tokio::sync::Notify>,
    /// The order checks listed the server in: what a check found is applied only when
    /// no check that listed later was applied before it.
    listings: Mutex<check::ListingOrder>,
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
    /// What the last check refused for the server's limits (tools, prompts, resource
    /// templates, and resources as last listed).
    refused: Refusals,
    /// How many definitions or entries of each list the last check refused, by list
    /// (`tools`, `prompts`, `resource_templates`, `resources`), those with any.
    refused_by_list: BTreeMap<&'static str, usize>,
    /// What the last listing of the server's resources refused for its limits; told
    /// with the definitions' refusals at the next check.
    resources_refused: Refusals,
    /// Why the last listing of its resources was cut off, if it was.
    resources_cut_off: Option<String>,
    /// The server's resource updates passed on lately, and those held.
    updates: updates::Updates,
    /// The prompts served from their pins, by exposed name: what `prompts/list` answers.
    prompts: Served<PromptDefinition>,
    /// The resource templates served from their pins, by URI template: what
    /// `resources/templates/list` answers for this server.
    templates: Served<ResourceTemplateDefinition>,
    /// The resources clients subscribed to through toolgate on this server, each with
    /// the readers (client sessions) that did: its updates go to them alone, and the
    /// server is told to unsubscribe only when the last one does.
    subscribers: BTreeMap<String, BTreeMap<u64, crate::broadcast::Reader>>,
    /// The server said its resources changed, and clients are yet to be told (once,
    /// after the check it causes: a server repeating it is not repeated to clients).
    resources_changed: bool,
    /// How many of the server's own log messages reach toolgate's log (a server
    /// sending them without end must not fill it); made at the first one.
    log_budget: Option<toolgate_mcp_client::LineBudget>,
    /// Pinned tools not exposed because their live definition is pending review, by
    /// exposed name, with the owner who reviews it.
    withheld: BTreeMap<String, String>,
    /// Definitions not served because another's name reads the same, as last published
    /// (each has an incident, resolved when the names no longer meet).
    collisions: BTreeSet<(DefinitionKind, String)>,
}

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// The tools agents see changed.
    pub changed: bool,
    /// The server answered `tools/list`.
    pub listed: bool,
}

#[cfg(test)]
mod tests;
