//! How far a session reaches among the fronted servers, for the updates of the
//! resources it subscribed to: worked out from what it was given — its agent, by name,
//! and its newest token's scopes — against the config in force each time it is asked.
//! A list worked out once would outlive a reload that took the agent's tools or a
//! server away, or gave a server scopes the token lacks; this is narrowed at once,
//! for every live session, whether or not the session sends another request.

use std::sync::{Arc, Mutex};

use toolgate_auth::{Granted, grants_all};
use toolgate_config::AgentSpec;
use toolgate_engine::broadcast::Reach;
use toolgate_engine::gateway::Gateway;
use toolgate_engine::reload::Current;
use toolgate_engine::sync::lock;

/// The fronted servers a caller may use: those with a tool its agent may call, and
/// whose `mcp_servers.<name>.scopes` its token grants (`None`: every server, for a
/// caller without a tool policy when no server needs a scope). An agent kept from all
/// of a server's tools is kept from its prompts, resources and completions too: they
/// are the same upstream's, reached with the same credentials.
pub(super) fn usable_servers(
    gateway: &Gateway,
    agent: Option<&AgentSpec>,
    scopes: Option<&Granted>,
) -> Option<Arc<[String]>> {
    let needed = &gateway.config().scopes;
    let agent = agent.filter(|a| a.tools.is_some() || !a.deny.is_empty());
    if agent.is_none() && needed.servers.is_empty() {
        return None;
    }
    let mut names: Vec<String> = match agent {
        Some(agent) => gateway
            .routes()
            .values()
            .filter(|r| agent.may_call(&r.spec.name))
            .filter_map(|r| r.server().map(str::to_owned))
            .collect(),
        None => gateway.config().mcp_servers.keys().cloned().collect(),
    };
    names.retain(|s| grants_all(scopes, needed.of_server(s)));
    names.sort_unstable();
    names.dedup();
    Some(names.into())
}

/// Servers a caller may use (`None`: every one), as worked out for one config generation.
type Known = Option<(u64, Option<Arc<[String]>>)>;

/// A session's reach, read against the config in force.
#[derive(Debug)]
pub(super) struct SessionReach {
    current: Arc<Current>,
    /// The agent's name (`None`: a caller of no configured agent). By name, not the
    /// agent's settings: a reload replaces those.
    agent: Option<String>,
    scopes: Option<Granted>,
    /// The servers as last worked out, and the config generation they were worked out
    /// for: an update is delivered without working them out again until a reload.
    known: Mutex<Known>,
}

impl SessionReach {
    pub(super) fn new(
        current: Arc<Current>,
        agent: Option<&AgentSpec>,
        scopes: Option<Granted>,
    ) -> SessionReach {
        SessionReach {
            current,
            agent: agent.map(|a| a.name.clone()),
            scopes,
            known: Mutex::new(None),
        }
    }

    fn servers(&self) -> Option<Arc<[String]>> {
        // The generation is read before the gateway: a reload swaps the gateway in
        // first, so what is kept under a generation is never older than it.
        let generation = self.current.generation();
        if let Some((at, servers)) = lock(&self.known).as_ref()
            && *at == generation
        {
            return servers.clone();
        }
        let gateway = self.current.load();
        let servers = match &self.agent {
            // An agent the config no longer has reaches nothing until its next request
            // says who it is now.
            Some(name) => match gateway.config().agents.get(name) {
                Some(agent) => usable_servers(&gateway, Some(agent), self.scopes.as_ref()),
                None => Some(Arc::from(Vec::new())),
            },
            None => usable_servers(&gateway, None, self.scopes.as_ref()),
        };
        *lock(&self.known) = Some((generation, servers.clone()));
        servers
    }
}

impl Reach for SessionReach {
    fn may_use(&self, server: &str) -> bool {
        self.servers()
            .is_none_or(|names| names.iter().any(|n| n == server))
    }
}

#[cfg(test)]
mod tests;
