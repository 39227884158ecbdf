//! What `dependency_health`, `toolgate status` and the metrics show of a server.

use serde_json::{Value, json};

use super::{Fronted, State};
use crate::sync::lock as guard;

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
    /// Prompts served now (from their pins).
    pub prompts: usize,
    /// Resource templates served now (from their pins).
    pub resource_templates: usize,
    /// Tools with definition drift (and whether they are hidden), described without
    /// the upstream's unpinned text.
    pub drift: Vec<Value>,
    /// What the last check refused for the server's limits (counts), when anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<Value>,
    /// The last check's error.
    pub last_error: Option<String>,
}

/// What a model reads of a server's last failed check in place of its reason: the
/// reason may quote the server (a JSON-RPC error's message, a refused handshake's
/// answer), and the report reaches every agent allowed the server's tools.
pub const LAST_ERROR_FOR_MODELS: &str = "toolgate could not list the server's definitions at its last check; the pinned tools stay served, and the reason is in toolgate's log and /admin/health";

impl ServerReport {
    /// The report as a model may read it: nothing the server wrote that no one
    /// reviewed. The last check's reason is told in toolgate's words only, and what the
    /// server calls itself only as its pins record it, never from a live handshake.
    #[must_use]
    pub fn for_model(mut self) -> ServerReport {
        self.last_error = self.last_error.map(|_| LAST_ERROR_FOR_MODELS.to_owned());
        if self.pinned_from.is_none() {
            self.server = None;
        }
        self
    }
}

impl Fronted {
    /// Whether the server is connected, how many definition changes await review and
    /// how many resources clients follow through toolgate: what [`Self::report`] says,
    /// without building its sentences (read per scrape).
    pub(super) fn gauges(&self) -> (bool, usize, usize) {
        let state = guard(&self.state);
        let subscribed = state.subscribers.len();
        (self.connected(&state), state.changes.len(), subscribed)
    }

    /// Connected: the handshake is done and the last request did not fail.
    fn connected(&self, state: &State) -> bool {
        self.connection.is_initialized() && state.last_error.is_none()
    }

    /// The server as `dependency_health` shows it.
    pub fn report(&self) -> ServerReport {
        let state = guard(&self.state);
        let init = self.connection.initialized();
        ServerReport {
            transport: match self.spec.transport {
                toolgate_config::McpTransport::Http { .. } => "url",
                toolgate_config::McpTransport::Stdio { .. } => "stdio",
            },
            connected: self.connected(&state),
            // What the pins say the server is: the live handshake's words are the
            // upstream's, not reviewed.
            server: state
                .pins
                .as_ref()
                .map(|p| format!("{} {}", p.server_name, p.server_version))
                .or_else(|| init.map(|i| format!("{} {}", i.server_name, i.server_version)))
                .map(|s| crate::explain::upstream_text(&s, &Default::default(), 80)),
            pinned_from: state.pins.as_ref().map(|_| {
                if state.from_lock {
                    "lockfile"
                } else {
                    "first_seen"
                }
            }),
            tools: state.published.len(),
            prompts: state.prompts.served.len(),
            resource_templates: state.templates.served.len(),
            drift: state
                .changes
                .iter()
                .map(|c| {
                    let exposed = self.served_as(c.definition_kind(), c.tool());
                    let mut entry = json!({
                        "kind": c.kind(),
                        "change": crate::explain::definition_change(&exposed, c),
                        "hidden": self.withholds(c),
                    });
                    // A new definition's name is the upstream's unpinned text.
                    entry[c.definition_kind().key()] = if c.is_added() {
                        Value::Null
                    } else {
                        json!(exposed)
                    };
                    entry
                })
                .collect(),
            refused: (!state.refused.is_empty()).then(|| {
                json!({
                    "over_max_tools": state.refused.over_count,
                    "over_max_definition_bytes": state.refused.too_large,
                    "over_max_total_bytes": state.refused.over_total,
                    "unreadable": state.refused.unreadable,
                    "listed_twice_differently": state.refused.conflicting,
                    "unnamed": state.refused.unnamed,
                    "by_list": state.refused_by_list,
                })
            }),
            last_error: state
                .last_error
                .as_deref()
                .or(state.resources_cut_off.as_deref())
                .map(|e| crate::explain::upstream_text(e, &Default::default(), 300)),
        }
    }
}
