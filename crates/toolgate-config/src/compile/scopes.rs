//! `tools.<name>.scopes`, `mcp_servers.<name>.scopes` and
//! `mcp_servers.<name>.tools.<tool>.scopes`: the OAuth scopes a tool call needs.

use std::collections::BTreeMap;

use super::Compiler;
use super::agents::is_scope;
use crate::model::{AuthConfig, ServerScopes, ToolScopes};
use crate::raw::{RawMcpServer, RawTool};

impl Compiler<'_> {
    /// The scopes each tool needs. Read before the tools and servers are compiled, so a
    /// tool whose other settings are wrong still has its scopes checked.
    pub(super) fn tool_scopes(
        &mut self,
        tools: &BTreeMap<String, RawTool>,
        servers: &BTreeMap<String, RawMcpServer>,
        auth: Option<&AuthConfig>,
    ) -> ToolScopes {
        let mut out = ToolScopes::default();
        for (name, tool) in tools {
            if let Some(scopes) = &tool.scopes {
                let list = self.scope_list(&format!("tools.{name}.scopes"), scopes, auth);
                out.http.insert(name.clone(), list);
            }
        }
        for (name, server) in servers {
            let path = format!("mcp_servers.{name}");
            let all = server
                .scopes
                .as_ref()
                .map(|s| self.scope_list(&format!("{path}.scopes"), s, auth))
                .unwrap_or_default();
            let mut own = BTreeMap::new();
            for (tool, o) in &server.tools {
                if let Some(scopes) = &o.scopes {
                    let at = format!("{path}.tools.{tool}.scopes");
                    own.insert(tool.clone(), self.scope_list(&at, scopes, auth));
                }
            }
            if !all.is_empty() || !own.is_empty() {
                out.servers
                    .insert(name.clone(), ServerScopes { all, tools: own });
            }
        }
        out
    }

    /// One `scopes` list, checked: each a scope token, none twice, and `gateway.auth`
    /// configured (without it no caller carries a scope, and the tool could never be
    /// called).
    fn scope_list(
        &mut self,
        path: &str,
        scopes: &[String],
        auth: Option<&AuthConfig>,
    ) -> Vec<String> {
        if auth.is_none() && !scopes.is_empty() {
            self.err(
                path,
                "scopes need `gateway.auth`: only an OAuth access token carries scopes",
                "configure `gateway.auth`, or use `agents.<name>.tools` to decide who may call the tool",
            );
        }
        let mut out: Vec<String> = Vec::with_capacity(scopes.len());
        for (i, scope) in scopes.iter().enumerate() {
            // RFC 6749 §3.3: a scope token is printable ASCII without space, `"` or
            // `\`; `"a b"` would be two scopes, and a token that carries both would not
            // be told apart from one that was meant to carry the pair as one.
            if !is_scope(scope) {
                self.err(
                    format!("{path}.{i}"),
                    format!("`{scope}` is not a scope (printable ASCII, no spaces, quotes or backslashes)"),
                    "write one scope per entry, like `payments:write`",
                );
                continue;
            }
            if !out.contains(scope) {
                out.push(scope.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
