//! Per-tool scopes on the call path (`tools.<name>.scopes`, `mcp_servers.<name>.scopes`):
//! a call whose access token lacks what its tool needs is refused before anything is
//! sent upstream, counted and audited as `forbidden` like a call the agent's policy
//! refuses. Over HTTP the refusal is a 403 whose `WWW-Authenticate` names the scopes,
//! so the client can ask its authorization server for them and call again (the MCP
//! authorization specification's scope challenge, RFC 6750 §3.1).
//!
//! Each request is checked with the token it carries: a session opened with one token
//! and continued with another gets what the later token grants, no more.

use std::sync::Arc;

use serde_json::{Map, Value};
use toolgate_auth::{Granted, grants_all};
use toolgate_config::AgentSpec;
use toolgate_engine::gateway::Gateway;

use super::Server;
use crate::mcp::jsonrpc::Id;

/// A tool call refused for its token's scopes.
#[derive(Debug)]
pub struct StepUp {
    /// The `WWW-Authenticate` value naming every scope the call needs.
    pub challenge: String,
    /// What the caller reads: which scopes the tool needs.
    pub message: String,
}

impl Server {
    /// The refusal of a call of `name` by a caller whose token grants `granted`, when
    /// the tool needs a scope the token lacks; `None` lets the call go on. A tool the
    /// agent may not call is left to the usual refusal, which does not tell it the tool
    /// exists. A refusal is counted and audited here.
    pub(crate) fn step_up(
        &self,
        id: &Id,
        name: &str,
        arguments: Option<&Map<String, Value>>,
        agent: Option<&Arc<AgentSpec>>,
        granted: Option<&Granted>,
    ) -> Option<StepUp> {
        let gateway = self.gateway();
        let config = gateway.config();
        // Most gateways name no tool scopes: one check, no lookup.
        if config.scopes.is_empty() || agent.is_some_and(|a| !a.may_call(name)) {
            return None;
        }
        let route = gateway.route(name)?;
        let needed = config.scopes.required(&route.spec);
        if grants_all(granted, needed) {
            return None;
        }
        let auth = config.gateway.auth.as_ref();
        let base = auth.map_or(&[][..], |a| a.scopes.as_slice());
        let all = base.iter().chain(needed).map(String::as_str);
        let challenge =
            toolgate_auth::insufficient_scope_challenge(auth.map(|a| a.resource.as_str()), all);
        let message = format!(
            "toolgate: {name} was not called: it needs an access token with the scopes {}; \
             ask the authorization server for them and call again. Error class: forbidden.",
            needed.join(" ")
        );
        record_refusal(&gateway, id, &route.label, arguments, agent);
        Some(StepUp { challenge, message })
    }
}

/// Counts and audits a call refused for its scopes as `forbidden`, as the pipeline
/// records a call the agent's policy refuses: in the agent's calls and the tool's
/// (`toolgate_tool_calls_total`, under the tool's metric label), and in the audit trail.
fn record_refusal(
    gateway: &Gateway,
    id: &Id,
    tool: &Arc<str>,
    arguments: Option<&Map<String, Value>>,
    agent: Option<&Arc<AgentSpec>>,
) {
    let caller = gateway.agents().caller(agent);
    let label = toolgate_engine::agents::label(caller.as_ref()).to_string();
    tracing::info!(agent = %label, tool = %tool, class = "forbidden", "call refused: the access token lacks a scope the tool needs");
    let labels = toolgate_engine::metrics::AgentLabels {
        agent: label.clone(),
        outcome: toolgate_engine::metrics::ResultLabel(Some(
            toolgate_resilience::ErrorClass::Forbidden,
        )),
    };
    gateway.metrics().agent_calls.get_or_create(&labels).inc();
    let tool_labels = toolgate_engine::metrics::CallLabels {
        tool: tool.clone(),
        outcome: labels.outcome,
    };
    gateway
        .metrics()
        .tool_calls
        .get_or_create(&tool_labels)
        .inc();
    if let Some(log) = gateway.audit() {
        let empty = Map::new();
        let args = arguments.unwrap_or(&empty);
        let ctx = toolgate_engine::pipeline::CallContext {
            client: None,
            meta: None,
            call_id: Some(id.json().to_string()),
            agent: None,
            access_token: None,
        };
        let record = toolgate_engine::audit::Started::now(args).finish(
            &label,
            tool,
            Some(toolgate_resilience::ErrorClass::Forbidden.as_str()),
            0,
            &ctx,
        );
        log.record(record);
    }
}

#[cfg(test)]
mod tests;
