//! The next gateway, built from this one and a new config: what did not change is
//! carried over with its live state, so a reload forgets nothing it need not.
//!
//! - a dependency configured exactly as before keeps its `DependencyState` (breaker,
//!   latency baseline, quota, pacer, retry budget, status page); a changed or added one
//!   starts fresh;
//! - a tool configured exactly as before keeps its `ToolState` (windows, deprecation,
//!   drift flag, learned contract);
//! - an upstream MCP server configured exactly as before keeps its connection, pins and
//!   published tools; an added one is started, a removed or changed one stopped;
//! - metrics, incidents, the store, the notifier, traces and the client broadcast are
//!   shared by every generation;
//! - what the listener or the process fixed at start-up (listen address, TLS, limits,
//!   sessions, credentials, the store, shared state, alert routing, traces, agents) keeps
//!   its value: the reload names each such key as needing a restart, and the next
//!   config carries the old value, so it shows what is in force.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde::Serialize;
use toolgate_config::Config;

use super::{Gateway, RouteTable, ServerEvents, http_routes};
use crate::dependency::DependencyState;
use crate::fingerprint;
use crate::fronting::Fronted;
use crate::metrics::OwnerLabels;

/// What a reload changed.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Changes {
    /// Settings that differ but take effect only after a restart (the old value stays).
    pub needs_restart: Vec<&'static str>,
    /// HTTP tools added.
    pub tools_added: Vec<String>,
    /// HTTP tools removed.
    pub tools_removed: Vec<String>,
    /// HTTP tools configured differently (their live state starts over).
    pub tools_changed: Vec<String>,
    /// Dependencies kept with their live state.
    pub dependencies_kept: Vec<String>,
    /// Dependencies added or configured differently (their live state starts over).
    pub dependencies_reset: Vec<String>,
    /// Dependencies removed.
    pub dependencies_removed: Vec<String>,
    /// Upstream MCP servers kept with their connection.
    pub mcp_servers_kept: Vec<String>,
    /// Upstream MCP servers started (added or configured differently).
    pub mcp_servers_started: Vec<String>,
    /// Upstream MCP servers stopped (removed or configured differently).
    pub mcp_servers_stopped: Vec<String>,
}

impl Changes {
    /// Whether the tools clients see may have changed.
    pub(crate) fn tools_may_differ(&self) -> bool {
        !(self.tools_added.is_empty()
            && self.tools_removed.is_empty()
            && self.tools_changed.is_empty()
            && self.mcp_servers_started.is_empty()
            && self.mcp_servers_stopped.is_empty())
    }
}

/// The next gateway and what the background work must do for it.
#[derive(Debug)]
pub struct Next {
    /// The next gateway (not serving yet).
    pub gateway: Arc<Gateway>,
    /// The MCP servers started for it, whose watch must start.
    pub started: Vec<ServerEvents>,
    /// The MCP servers it no longer has, to stop once calls on them are done.
    pub stopped: Vec<Arc<Fronted>>,
    /// What changed.
    pub changes: Changes,
}

impl Gateway {
    /// Builds the next gateway from `config` (already checked whole), carrying over what
    /// did not change. Fails, starting nothing, when an added MCP server's lockfile
    /// cannot be read. This gateway is left as it was: it serves until it is replaced.
    pub fn next(&self, mut config: Config) -> anyhow::Result<Next> {
        let mut changes = Changes {
            needs_restart: keep_restart_only(&self.config, &mut config),
            ..Changes::default()
        };
        let servers = self
            .fronting
            .next(&config, &self.client, &self.services.metrics)?;

        let dependencies = self.next_dependencies(&config, &mut changes);
        let routes = self.next_routes(&config, &dependencies, &servers.kept, &mut changes);
        changes.tools_removed.sort();
        changes.mcp_servers_kept = servers.kept;
        changes.mcp_servers_started = servers
            .started
            .iter()
            .map(|(s, _)| s.spec().name.clone())
            .collect();
        changes.mcp_servers_stopped = servers
            .stopped
            .iter()
            .map(|s| s.spec().name.clone())
            .collect();

        // The reply memory is one for the process; a reload changes its limit in place
        // (what replies hold now stays held, and is given back as they finish).
        self.services
            .replies
            .set_limit(config.gateway.max_buffered_response_bytes);
        self.services.replies.set_agent_share(
            config.gateway.reply_share,
            config.gateway.max_response_bytes,
        );
        let gateway = Arc::new(Gateway {
            config,
            routes: RwLock::new(Arc::new(routes)),
            dependencies,
            services: self.services.clone(),
            store: self.store.clone(),
            notifier: self.notifier.clone(),
            client: self.client.clone(),
            fronting: servers.fronting,
            server_events: std::sync::Mutex::new(Vec::new()),
            broadcast: self.broadcast.clone(),
            agents: self.agents.clone(),
            shared: self.shared.clone(),
        });
        // With a lockfile, an added server's tools are served from the first moment.
        for (server, _) in &servers.started {
            server.publish_pinned(gateway.as_ref());
        }
        Ok(Next {
            gateway,
            started: servers.started,
            stopped: servers.stopped,
            changes,
        })
    }

    /// The dependencies of `config`: the state of each unchanged one carried over
    /// (its breaker, quota and health), a changed or added one started afresh.
    fn next_dependencies(
        &self,
        config: &Config,
        changes: &mut Changes,
    ) -> HashMap<String, Arc<DependencyState>> {
        let mut dependencies = HashMap::new();
        for (name, spec) in &config.dependencies {
            let state = match self.dependencies.get(name) {
                Some(old)
                    if fingerprint::dependency(&old.spec) == fingerprint::dependency(spec) =>
                {
                    changes.dependencies_kept.push(name.clone());
                    old.set_account_hold(spec.account_hold);
                    old.clone()
                }
                _ => {
                    changes.dependencies_reset.push(name.clone());
                    Arc::new(DependencyState::with_shared(
                        spec.clone(),
                        self.shared.clone(),
                    ))
                }
            };
            dependencies.insert(name.clone(), state);
        }
        changes.dependencies_removed = self
            .dependencies
            .keys()
            .filter(|name| !config.dependencies.contains_key(*name))
            .cloned()
            .collect();
        dependencies
    }

    /// The routes of `config`: unchanged HTTP tools keep their state, the tools of
    /// kept servers their routes; each tool's owner series follows what is served.
    fn next_routes(
        &self,
        config: &Config,
        dependencies: &HashMap<String, Arc<DependencyState>>,
        kept_servers: &[String],
        changes: &mut Changes,
    ) -> RouteTable {
        let old = self.routes();
        let metrics = &self.services.metrics;
        let mut keep = HashMap::new();
        for (name, spec) in &config.tools {
            match old.get(name).filter(|r| r.server().is_none()) {
                Some(route) if fingerprint::tool(&route.spec) == fingerprint::tool(spec) => {
                    keep.insert(name.clone(), route.state.clone());
                }
                Some(_) => changes.tools_changed.push(name.clone()),
                None => changes.tools_added.push(name.clone()),
            }
        }
        let mut routes: RouteTable =
            http_routes(config, dependencies, &self.client, metrics, &keep);
        for (name, route) in old.iter() {
            let kept_server = route
                .server()
                .is_some_and(|s| kept_servers.iter().any(|k| k == s));
            if kept_server && !routes.contains_key(name) {
                routes.insert(name.clone(), route.clone());
                continue;
            }
            if route.server().is_none() && !config.tools.contains_key(name) {
                changes.tools_removed.push(name.clone());
            }
            // A tool no longer served, or served anew (its owner may have changed),
            // loses its owner series; the routes above publish the current ones.
            if !keep.contains_key(name) {
                metrics.tool_owner_info.remove(&OwnerLabels {
                    tool: route.label.clone(),
                    owner: route.spec.owner.clone(),
                    dependency: route.spec.dependency.name.clone(),
                });
            }
        }
        for route in routes.values() {
            metrics
                .tool_owner_info
                .get_or_create(&OwnerLabels {
                    tool: route.label.clone(),
                    owner: route.spec.owner.clone(),
                    dependency: route.spec.dependency.name.clone(),
                })
                .set(1);
        }
        routes
    }
}

/// Puts back into `next` every setting that only a restart can change, and names those
/// that differ. The listener, the sessions and the credentials are built once, at
/// start-up; so are the store, the shared state, alert routing and trace export.
fn keep_restart_only(old: &Config, next: &mut Config) -> Vec<&'static str> {
    let mut restart = Vec::new();
    macro_rules! keep {
        ($($field:ident),* $(,)?) => {$(
            if old.gateway.$field != next.gateway.$field {
                restart.push(concat!("gateway.", stringify!($field)));
                next.gateway.$field = old.gateway.$field.clone();
            }
        )*};
    }
    keep!(
        listen,
        state,
        postgres,
        shared,
        replica,
        auth_token,
        metrics_token,
        allowed_hosts,
        allowed_origins,
        max_connections,
        serving_threads,
        header_timeout,
        idle_timeout,
        body_timeout,
        send_timeout,
        max_request_bytes,
        max_sessions,
        session_share,
        session_idle,
        session_keys,
        session_lifetime,
        replica_url,
        drain,
        shutdown_delay,
        lockfile,
        // The audit writer and its pruning are started once per process.
        audit,
        reload_watch,
    );
    // These have no `PartialEq`; their `Debug` names every setting.
    macro_rules! keep_by_debug {
        ($name:literal, $($path:tt)+) => {
            if format!("{:?}", old.$($path)+) != format!("{:?}", next.$($path)+) {
                restart.push($name);
                next.$($path)+ = old.$($path)+.clone();
            }
        };
    }
    keep_by_debug!("gateway.auth", gateway.auth);
    keep_by_debug!("alerts", alerts);
    keep_by_debug!("telemetry", telemetry);
    // Agents' API keys print as digests: a changed key is a changed agent.
    keep_by_debug!("agents", agents);
    restart
}
