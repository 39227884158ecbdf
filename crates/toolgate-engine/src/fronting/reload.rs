//! The upstream MCP servers of the next config: a server configured exactly as before
//! keeps its connection, its pins and what it published; an added one is started, a
//! removed one is handed back to be stopped once the calls already on it are done.

use std::collections::BTreeMap;
use std::sync::Arc;

use toolgate_config::Config;

use super::{Fronted, Fronting, ServerEvents};
use crate::upstream::UpstreamClient;

/// The servers of the next config.
#[derive(Debug)]
pub struct NextServers {
    /// Every server of the next config.
    pub fronting: Fronting,
    /// The servers started for it, with their events (their watch is not running yet).
    pub started: Vec<ServerEvents>,
    /// The servers it no longer has, or has configured differently.
    pub stopped: Vec<Arc<Fronted>>,
    /// The names of the servers kept as they were.
    pub kept: Vec<String>,
}

impl Fronting {
    /// The servers of `config`, keeping those whose configuration did not change. A
    /// lockfile that cannot be read refuses the whole reload (nothing is started).
    pub fn next(
        &self,
        config: &Config,
        client: &UpstreamClient,
        metrics: &crate::metrics::Metrics,
    ) -> anyhow::Result<NextServers> {
        // Every new server's lockfile is read before any is started, so a refused
        // reload leaves no process behind.
        for (name, spec) in &config.mcp_servers {
            if !self.keeps(name, spec) {
                toolgate_contract::Lockfile::read(&spec.lock)
                    .map_err(|e| anyhow::anyhow!("MCP server `{name}`: {e}"))?;
            }
        }
        let mut servers = BTreeMap::new();
        let mut started = Vec::new();
        let mut kept = Vec::new();
        for (name, spec) in &config.mcp_servers {
            match self.servers.get(name) {
                Some(old) if self.keeps(name, spec) => {
                    // The gateway's settings for it apply in place.
                    old.share_server_requests(config);
                    servers.insert(name.clone(), old.clone());
                    kept.push(name.clone());
                }
                _ => {
                    let (fronted, rx) = Fronted::start(name, spec, config, client, metrics)?;
                    servers.insert(name.clone(), fronted.clone());
                    started.push((fronted, rx));
                }
            }
        }
        let stopped = self
            .servers
            .iter()
            .filter(|(name, old)| {
                servers
                    .get(*name)
                    .is_none_or(|next| !Arc::ptr_eq(next, old))
            })
            .map(|(_, old)| old.clone())
            .collect();
        Ok(NextServers {
            fronting: Fronting { servers },
            started,
            stopped,
            kept,
        })
    }

    /// Whether server `name` runs now exactly as `spec` configures it.
    fn keeps(&self, name: &str, spec: &toolgate_config::McpServerSpec) -> bool {
        self.servers.get(name).is_some_and(|old| {
            crate::fingerprint::mcp_server(&old.spec) == crate::fingerprint::mcp_server(spec)
        })
    }
}
