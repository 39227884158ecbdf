//! What people do to a running gateway — acknowledge or resolve an incident, approve a
//! changed MCP definition, reload the config, make a learned contract start over — in the same trail as the agents' calls,
//! so `toolgate audit` and `/admin/audit` answer "who did what, when" for both.
//!
//! An action is one [`AuditRecord`]: `agent` is who did it (the credential's agent
//! name, the console's Basic user name, or `admin`), `tool` what it was done to (the
//! incident's tool, the approved tool or server, `config` for a reload), `outcome` the
//! action ([`Action::outcome`]), `incident_id` the incident acted on, no attempts and
//! no latency. `args_sha256` hashes the action's parameters like a call's arguments.

use std::sync::Arc;

use serde_json::{Map, json};
use toolgate_store::AuditRecord;

use super::AuditLog;

/// A person's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// An incident acknowledged.
    Acknowledge,
    /// An incident resolved by hand.
    Resolve,
    /// A changed MCP tool definition re-pinned (or a server's tools pinned).
    Approve,
    /// The config reloaded and served.
    Reload,
    /// A reload refused: the config in force kept serving.
    ReloadRejected,
    /// A tool's learned contract made to start over (`toolgate relearn`).
    Relearn,
}

impl Action {
    /// The record's `outcome`: what was done (never `ok` or an error class, so a filter
    /// on outcomes tells actions from calls).
    pub fn outcome(self) -> &'static str {
        match self {
            Action::Acknowledge => "acknowledged",
            Action::Resolve => "resolved",
            Action::Approve => "approved",
            Action::Reload => "reloaded",
            Action::ReloadRejected => "reload_rejected",
            Action::Relearn => "relearned",
        }
    }

    /// Every action's outcome, for documentation and filters.
    pub const OUTCOMES: [&'static str; 6] = [
        "acknowledged",
        "resolved",
        "approved",
        "reloaded",
        "reload_rejected",
        "relearned",
    ];
}

/// The record of `who` doing `action` to `target` (and incident `incident`), now.
pub fn record(who: &str, action: Action, target: &str, incident: Option<i64>) -> AuditRecord {
    let mut params = Map::new();
    params.insert("action".into(), json!(action.outcome()));
    params.insert("target".into(), json!(target));
    if let Some(id) = incident {
        params.insert("incident".into(), json!(id));
    }
    AuditRecord {
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        agent: who.to_string(),
        tool: target.to_string(),
        outcome: action.outcome().to_string(),
        attempts: 0,
        latency_ms: 0,
        args_sha256: super::args_sha256(&params),
        incident_id: incident,
        request_id: None,
        trace_id: None,
    }
}

/// Hands the record of an action to `log` (when the trail is on); never waits.
pub fn log(
    log: Option<&Arc<AuditLog>>,
    who: &str,
    action: Action,
    target: &str,
    incident: Option<i64>,
) {
    tracing::info!(%who, action = action.outcome(), %target, ?incident, "console or admin action");
    if let Some(log) = log {
        log.record(record(who, action, target, incident));
    }
}
