//! Compiling one upstream MCP server: its transport (`url` with headers, or `command`
//! with env and cwd), owner, prefix, lockfile, change policy, tool filters, the
//! dependency settings it shares with HTTP APIs (timeout, retries, rate-limit headers,
//! status page) and its per-tool overrides.
//!
//! This file holds the order of the steps and the server's own settings; the exposed
//! names (`naming.rs`), the dependency part (`dependency.rs`), the transport
//! (`transport.rs`) and the per-tool overrides (`overrides.rs`) have files of their own.

use std::path::PathBuf;
use std::time::Duration;

use super::{Compiler, limits};
use crate::model::*;
use crate::raw::*;

mod dependency;
mod naming;
mod overrides;
mod transport;

use naming::valid_prefix;
use overrides::ServerDefaults;

impl Compiler<'_> {
    /// Every step runs even when an earlier one failed, in the order the errors are
    /// reported in: the server's name and settings, its dependency part, its transport,
    /// its timing and limits, then its tools.
    pub(super) fn mcp_server(
        &mut self,
        name: &str,
        mut raw: RawMcpServer,
        gateway: &GatewayConfig,
    ) -> Option<McpServerSpec> {
        let path = format!("mcp_servers.{name}");
        self.server_name(&path, name);
        let owner = self.server_owner(&path, name, raw.owner.as_deref());
        let prefix = self.prefix(&path, raw.prefix.take().unwrap_or_else(|| name.to_string()));
        let lock = self.lock_path(&path, raw.lock.take());
        let on_change = self.on_change(&path, raw.on_change.as_deref());
        let include = self.patterns(
            &format!("{path}.include"),
            raw.include.take().unwrap_or_default(),
        );
        let exclude = self.patterns(
            &format!("{path}.exclude"),
            raw.exclude.take().unwrap_or_default(),
        );
        let mut dependency = self.server_dependency(name, &path, &mut raw, gateway);
        let exchanged = dependency
            .as_ref()
            .is_some_and(|d| d.token_exchange.is_some());
        let transport = self.mcp_transport(&path, &raw, dependency.as_ref());
        if let Some(d) = dependency.as_mut() {
            self.stdio_secrets(d, transport.as_ref());
        }
        let check_every = self.duration_min(
            format!("{path}.check_every"),
            raw.check_every.as_ref(),
            Duration::from_secs(300),
            Duration::from_secs(1),
        );
        let deadline = self.duration_min(
            format!("{path}.deadline"),
            raw.deadline.as_ref(),
            gateway.deadline,
            limits::MIN_DEADLINE,
        );
        let notes = self.notes_mode(format!("{path}.notes"), raw.notes.as_deref(), gateway.notes);
        let limits = self.tool_limits(
            &format!("{path}.limits"),
            raw.limits.as_ref(),
            gateway.mcp_server_limits,
        );
        let server = ServerDefaults {
            name,
            exchanged,
            deadline,
            notes,
            learn: gateway.learn,
        };
        let tools = self.tool_overrides(&path, std::mem::take(&mut raw.tools), &server);
        Some(McpServerSpec {
            name: name.to_string(),
            transport: transport?,
            owner: owner?,
            prefix,
            lock,
            learn: gateway.learn,
            on_change,
            include,
            exclude,
            dependency: std::sync::Arc::new(dependency?),
            check_every,
            deadline,
            notes,
            tools,
            limits,
        })
    }

    /// The server's name is also its dependency's name and its tools' default prefix.
    fn server_name(&mut self, path: &str, name: &str) {
        if !valid_prefix(name) {
            self.err(
                path,
                format!("`{name}` is not a valid server name"),
                "use 1–32 letters, digits, `_` or `-` (it names a dependency and prefixes tool names)",
            );
        }
    }

    fn server_owner(&mut self, path: &str, name: &str, raw: Option<&str>) -> Option<String> {
        match raw.map(str::trim) {
            Some(o) if !o.is_empty() => Some(o.to_string()),
            _ => {
                self.err(
                    format!("{path}.owner"),
                    format!("MCP server `{name}` has no owner"),
                    "add `owner: alice@example.com` — the person or rota alerted when its tools drift",
                );
                None
            }
        }
    }

    /// The lockfile, relative to the config file; an empty path is reported and the
    /// default used, so the rest of the server is still checked.
    fn lock_path(&mut self, path: &str, raw: Option<String>) -> PathBuf {
        match raw {
            Some(l) if !l.trim().is_empty() => self.dir.join(l),
            Some(_) => {
                self.err(
                    format!("{path}.lock"),
                    "the lock path is empty",
                    "name a file, or leave `lock` out for the default beside the config",
                );
                self.lock_default.clone()
            }
            None => self.lock_default.clone(),
        }
    }

    fn on_change(&mut self, path: &str, raw: Option<&str>) -> OnChange {
        match raw {
            None | Some("warn") => OnChange::Warn,
            Some("block") => OnChange::Block,
            Some(other) => {
                self.err(
                    format!("{path}.on_change"),
                    format!("unknown on_change `{other}`"),
                    "use `warn` (serve the pinned definition, raise an incident) or `block` (also hide the tool)",
                );
                OnChange::Warn
            }
        }
    }
}

#[cfg(test)]
mod tests;
