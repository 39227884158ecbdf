//! Every fronted server, by name: started together, looked up, reported on the
//! metrics, stopped together.

use std::collections::BTreeMap;
use std::sync::Arc;

use toolgate_config::Config;
use toolgate_contract::DefinitionKind;

use super::{Fronted, Fronting, ServerEvents, names};
use crate::sync::lock as guard;
use crate::upstream::UpstreamClient;

impl Fronting {
    /// Starts a connection per server (stdio children are spawned now) and reads the
    /// pins from each server's lockfile. A lockfile that cannot be read is an error:
    /// serving without the pins it holds would lose what it protects against.
    pub fn start(
        config: &Config,
        client: &UpstreamClient,
        metrics: &crate::metrics::Metrics,
    ) -> anyhow::Result<(Fronting, Vec<ServerEvents>)> {
        let mut servers = BTreeMap::new();
        let mut events = Vec::new();
        for (name, spec) in &config.mcp_servers {
            let (fronted, rx) = Fronted::start(name, spec, config, client, metrics)?;
            servers.insert(name.clone(), fronted.clone());
            events.push((fronted, rx));
        }
        Ok((Fronting { servers }, events))
    }

    /// Every server.
    pub fn servers(&self) -> impl Iterator<Item = &Arc<Fronted>> {
        self.servers.values()
    }

    /// The names served of every prompt (`kind` Prompt) or resource template of the
    /// servers other than `server`, by their look-alike skeleton.
    pub(crate) fn served_names_besides(&self, server: &str, kind: DefinitionKind) -> names::Served {
        let mut out = names::Served::new();
        for other in self.servers().filter(|s| s.spec.name != server) {
            let served: Vec<String> = match kind {
                DefinitionKind::Prompt => other.prompts().into_keys().collect(),
                DefinitionKind::ResourceTemplate => other
                    .resource_templates()
                    .into_iter()
                    .map(|t| t.uri_template)
                    .collect(),
                DefinitionKind::Tool => Vec::new(),
            };
            for (key, name) in names::by_skeleton(served.iter().map(String::as_str)) {
                out.entry(key).or_insert(name);
            }
        }
        out
    }

    /// A server by name.
    pub fn server(&self, name: &str) -> Option<&Arc<Fronted>> {
        self.servers.get(name)
    }

    /// Whether any server is configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// The owner reviewing the pending change of `exposed`, when it is a tool withheld
    /// because its live definition differs from its pin (`on_change: block`).
    pub fn withheld(&self, exposed: &str) -> Option<String> {
        self.servers
            .values()
            .find_map(|s| guard(&s.state).withheld.get(exposed).cloned())
    }

    /// Sets `toolgate_mcp_server_up`, `toolgate_mcp_definition_changes_pending` and
    /// `toolgate_mcp_resource_subscriptions` for every server from what its last check
    /// found and what clients follow now (read when `/metrics` is scraped).
    pub fn refresh_gauges(&self, metrics: &crate::metrics::Metrics) {
        for (name, server) in &self.servers {
            let label = crate::metrics::ServerLabel {
                server: name.clone(),
            };
            let (connected, pending, subscribed) = server.gauges();
            metrics
                .mcp_server_up
                .get_or_create(&label)
                .set(i64::from(connected));
            metrics
                .mcp_definition_changes_pending
                .get_or_create(&label)
                .set(i64::try_from(pending).unwrap_or(i64::MAX));
            metrics
                .mcp_resource_subscriptions
                .get_or_create(&label)
                .set(i64::try_from(subscribed).unwrap_or(i64::MAX));
        }
    }

    /// Ends every session (callers' too) and stops every child process.
    pub async fn shutdown(&self) {
        for s in self.servers.values() {
            s.stop().await;
        }
    }
}
