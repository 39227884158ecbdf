//! A tool's route, resolved once at start-up: everything a call of that tool touches,
//! so a call does no name lookups and has no "tool without a dependency" branch.

use std::sync::Arc;

use crate::dependency::DependencyState;
use crate::metrics::{Metrics, RouteSeries};
use crate::tool_state::ToolState;
use crate::watch::incidents::Incidents;
use toolgate_config::ToolSpec;

/// A tool's route through its upstream, whatever its kind.
pub type ToolRoute = Route<crate::upstream::AnyUpstream>;

/// One tool's route.
#[derive(Debug)]
pub struct Route<U> {
    /// The tool's validated configuration.
    pub spec: Arc<ToolSpec>,
    /// Its live state.
    pub state: Arc<ToolState>,
    /// Its dependency's live state (shared by every tool of that dependency).
    pub dependency: Arc<DependencyState>,
    /// How an attempt reaches the upstream.
    pub upstream: U,
    /// The tool name as a metric label, allocated once.
    pub label: Arc<str>,
    /// The metric series every call of the tool counts into, kept from their first
    /// count; a reloaded config's route looks them up again.
    pub series: RouteSeries,
}

impl<U> Route<U> {
    /// The MCP server this tool belongs to, for a tool of an upstream MCP server.
    pub fn server(&self) -> Option<&str> {
        match &self.spec.kind {
            toolgate_config::ToolKind::Mcp { server, .. } => Some(server),
            toolgate_config::ToolKind::Http(_) => None,
        }
    }

    /// A route of `spec` through `upstream`.
    pub fn new(
        spec: Arc<ToolSpec>,
        state: Arc<ToolState>,
        dependency: Arc<DependencyState>,
        upstream: U,
    ) -> Route<U> {
        let label = Arc::from(spec.name.as_str());
        Route {
            spec,
            state,
            dependency,
            upstream,
            label,
            series: RouteSeries::default(),
        }
    }
}

/// The services every call uses, whatever its route.
#[derive(Debug, Clone)]
pub struct Services {
    /// Every metric.
    pub metrics: Arc<Metrics>,
    /// Raising and clearing incidents (never waits for the store).
    pub incidents: Arc<Incidents>,
    /// The tracer, with `telemetry.otlp`; `None` costs a call nothing.
    pub telemetry: Option<Arc<crate::telemetry::Telemetry>>,
    /// Contracts learned where none is declared.
    pub learning: Arc<crate::learned::Learning>,
    /// The audit trail of agents' calls; `None` when `gateway.audit.enabled` is false.
    pub audit: Option<Arc<crate::audit::AuditLog>>,
    /// What every upstream reply may hold of memory at once
    /// (`gateway.max_buffered_response_bytes`): when it is full, no call is sent.
    pub replies: Arc<toolgate_resilience::ReplyMemory>,
}
