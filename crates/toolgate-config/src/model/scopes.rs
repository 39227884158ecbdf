//! Which OAuth scopes a tool call needs (`tools.<name>.scopes`,
//! `mcp_servers.<name>.scopes` and `mcp_servers.<name>.tools.<tool>.scopes`), beside
//! the `gateway.auth.scopes` every request on /mcp needs.
//!
//! A fronted server's tool is looked up by its server and its upstream name, never by
//! the name clients see: a prefix or a rename cannot take a tool out of its server's
//! scopes.

use std::collections::{BTreeMap, BTreeSet};

use super::{ToolKind, ToolSpec};

/// The scopes each tool's calls need, compiled from the config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolScopes {
    /// `tools.<name>.scopes`, by tool name.
    pub http: BTreeMap<String, Vec<String>>,
    /// A fronted server's scopes, by server name.
    pub servers: BTreeMap<String, ServerScopes>,
}

/// One fronted server's scopes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerScopes {
    /// `mcp_servers.<name>.scopes`: what every tool of the server needs, and its
    /// prompts, resources and completions too.
    pub all: Vec<String>,
    /// `mcp_servers.<name>.tools.<tool>.scopes`, by upstream tool name: instead of
    /// `all` (an empty list opens that tool to every token /mcp admits).
    pub tools: BTreeMap<String, Vec<String>>,
}

impl ToolScopes {
    /// Whether no tool needs a scope: the call path then checks nothing.
    pub fn is_empty(&self) -> bool {
        self.http.values().all(Vec::is_empty)
            && self
                .servers
                .values()
                .all(|s| s.all.is_empty() && s.tools.values().all(Vec::is_empty))
    }

    /// The scopes a call of `spec` needs; empty when none.
    pub fn required(&self, spec: &ToolSpec) -> &[String] {
        match &spec.kind {
            ToolKind::Http(_) => self.http.get(&spec.name).map_or(&[], Vec::as_slice),
            ToolKind::Mcp { server, tool } => self.of_server_tool(server, tool),
        }
    }

    /// The scopes a call of `tool` of fronted server `server` needs: the tool's own
    /// when it has them, else its server's.
    pub fn of_server_tool(&self, server: &str, tool: &str) -> &[String] {
        let Some(s) = self.servers.get(server) else {
            return &[];
        };
        s.tools.get(tool).unwrap_or(&s.all)
    }

    /// What fronted server `server`'s prompts, resources and completions need.
    pub fn of_server(&self, server: &str) -> &[String] {
        self.servers.get(server).map_or(&[], |s| s.all.as_slice())
    }

    /// Every scope some tool needs, once each (for `scopes_supported`).
    pub fn all(&self) -> BTreeSet<&str> {
        let servers = self
            .servers
            .values()
            .flat_map(|s| s.all.iter().chain(s.tools.values().flatten()));
        self.http
            .values()
            .flatten()
            .chain(servers)
            .map(String::as_str)
            .collect()
    }
}
