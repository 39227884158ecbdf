//! The running gateway: the validated config, a [`Route`] per tool, and the services
//! every call shares (metrics, incidents, the store, the notifier, the pooled upstream
//! client).
//!
//! HTTP tools' routes are resolved at start-up. An upstream MCP server's tools are known
//! from its pins or once it answers `tools/list`, and change when it says so; so the
//! route table is a snapshot (`Arc<RouteTable>`) replaced as a whole, which a call
//! reads without holding a lock.
//!
//! A reload builds the next gateway from this one (`next.rs`): what did not change is
//! carried over, live state included.
//!
//! It assembles; it does not decide. The call path is `pipeline`, the background work
//! `background`, the reports `health` and `status`.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};

use crate::dependency::DependencyState;
use crate::metrics::{Metrics, OwnerLabels};
use crate::pipeline::{self, CallContext, CallOutcome, Origin, Route, Services};
use crate::sync::lock;
use crate::sync::{read, write};
use crate::tool_state::ToolState;
use crate::upstream::{AnyUpstream, HttpUpstream, UpstreamClient};
use crate::watch::deprecation::StoredDeprecation;
use crate::watch::incidents::Incidents;
use crate::watch::notify::Notifier;
use toolgate_config::{Config, ToolSpec};
use toolgate_store::{IncidentKind, Store};

pub use crate::pipeline::ToolRoute;

mod next;
mod relearn;
pub use next::{Changes, Next};
pub use relearn::{RelearnError, Relearned};

/// Every tool's route by exposed name.
pub type RouteTable = HashMap<String, Arc<ToolRoute>>;

/// Everything a call needs.
#[derive(Debug)]
pub struct Gateway {
    config: Config,
    routes: RwLock<Arc<RouteTable>>,
    dependencies: HashMap<String, Arc<DependencyState>>,
    services: Services,
    store: Store,
    notifier: Arc<Notifier>,
    client: UpstreamClient,
    fronting: crate::fronting::Fronting,
    /// Each MCP server's events, until the background work takes them.
    server_events: std::sync::Mutex<Vec<ServerEvents>>,
    broadcast: crate::broadcast::Broadcast,
    /// The configured agents' policies and quotas.
    agents: Arc<crate::agents::Agents>,
    /// The fleet's shared state, for the dependencies a reload adds.
    shared: Option<crate::fleet::Shared>,
}

pub use crate::fronting::ServerEvents;

impl Gateway {
    /// Assembles a gateway from a config and an opened store. Must run inside a
    /// tokio runtime (the notifier starts its delivery worker).
    pub fn new(config: Config, store: Store) -> anyhow::Result<Arc<Gateway>> {
        let replies =
            toolgate_resilience::ReplyMemory::new(config.gateway.max_buffered_response_bytes);
        replies.set_agent_share(
            config.gateway.reply_share,
            config.gateway.max_response_bytes,
        );
        let client = UpstreamClient::new()
            .map_err(|e| anyhow::anyhow!("cannot build the upstream HTTP client: {e}"))?
            .with_reply_memory(replies.clone());
        let metrics = Arc::new(if config.gateway.shared.is_some() {
            Metrics::with_shared_state()
        } else {
            Metrics::new()
        });
        // Replicas share quota, breaker and retry budget through Redis when configured.
        let shared = match &config.gateway.shared {
            Some(url) => Some(crate::fleet::Shared::start(
                &url.0,
                config.gateway.replica.as_deref(),
                metrics.shared_state_up.clone(),
            )?),
            None => None,
        };
        let dependencies: HashMap<String, Arc<DependencyState>> = config
            .dependencies
            .iter()
            .map(|(name, spec)| {
                let state = DependencyState::with_shared(spec.clone(), shared.clone());
                (name.clone(), Arc::new(state))
            })
            .collect();
        let telemetry = config
            .telemetry
            .as_ref()
            .map(crate::telemetry::Telemetry::start)
            .transpose()?;
        let notifier = Notifier::start(config.alerts.clone(), store.clone());
        let incidents = Arc::new(Incidents::new(
            Some(notifier.clone()),
            config.alerts.throttle,
        ));
        // Learned contracts resume from their pins; an unreadable lockfile is reported
        // (the MCP servers' pins report it too) and learning starts over.
        let pins = match toolgate_contract::Lockfile::read(&config.gateway.lockfile) {
            Ok(file) => file.map(|f| f.learned).unwrap_or_default(),
            Err(e) => {
                tracing::error!(error = %e, "learned contracts are learned again from zero");
                Default::default()
            }
        };
        let learning = Arc::new(
            crate::learned::Learning::new(metrics.learned_samples_dropped.clone(), pins)
                .with_reply_memory(replies.clone())
                .with_fleet(shared.clone()),
        );
        let routes = http_routes(&config, &dependencies, &client, &metrics, &HashMap::new());
        let (fronting, server_events) =
            crate::fronting::Fronting::start(&config, &client, &metrics)?;
        let audit = crate::audit::for_config(&config, &metrics, &incidents);
        let gateway = Arc::new(Gateway {
            agents: Arc::new(
                crate::agents::Agents::new(&config)
                    .with_shared(shared.clone(), metrics.agent_quota_local.clone()),
            ),
            shared,
            fronting,
            server_events: std::sync::Mutex::new(server_events),
            broadcast: crate::broadcast::Broadcast::new(),
            config,
            routes: RwLock::new(Arc::new(routes)),
            dependencies,
            services: Services {
                metrics,
                incidents,
                telemetry,
                learning,
                audit,
                replies,
            },
            store,
            notifier,
            client,
        });
        // With a lockfile, a server's tools are served from the start, up or not.
        for server in gateway.fronting.servers() {
            server.publish_pinned(gateway.as_ref());
        }
        Ok(gateway)
    }

    /// The upstream MCP servers.
    pub fn fronting(&self) -> &crate::fronting::Fronting {
        &self.fronting
    }

    /// Takes the servers' event receivers (once: the background work owns them).
    pub(crate) fn take_server_events(&self) -> Vec<ServerEvents> {
        std::mem::take(&mut *crate::sync::lock(&self.server_events))
    }

    /// Notifications to every connected client.
    pub fn broadcast(&self) -> &crate::broadcast::Broadcast {
        &self.broadcast
    }

    /// Runs one agent's tool call to completion.
    pub async fn call(&self, tool: &Arc<ToolSpec>, args: Map<String, Value>) -> CallOutcome {
        self.call_as(tool, args, Origin::Agent).await
    }

    /// Replaces the routes of MCP server `server` with `routes` (by exposed name),
    /// keeping every other route. A tool that stays keeps its live state (windows,
    /// open drift), so a refreshed definition does not reset what the tool has seen.
    /// Also publishes the owner of each new tool as a metric.
    pub(crate) fn set_server_routes(&self, server: &str, routes: Vec<ToolRoute>) {
        let mut table = write(&self.routes);
        let mut next: RouteTable = table
            .iter()
            .filter(|(_, r)| r.server() != Some(server))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // The server's tools no longer served lose their owner series, so the series of a
        // server whose pins change stay bounded by what it serves (its limits).
        for old in table.values().filter(|r| r.server() == Some(server)) {
            if !routes.iter().any(|r| r.spec.name == old.spec.name) {
                self.services.metrics.tool_owner_info.remove(&OwnerLabels {
                    tool: old.label.clone(),
                    owner: old.spec.owner.clone(),
                    dependency: old.spec.dependency.name.clone(),
                });
            }
        }
        for mut route in routes {
            if let Some(old) = table.get(&route.spec.name) {
                route.state = old.state.clone();
            }
            self.services
                .metrics
                .tool_owner_info
                .get_or_create(&OwnerLabels {
                    tool: route.label.clone(),
                    owner: route.spec.owner.clone(),
                    dependency: route.spec.dependency.name.clone(),
                })
                .set(1);
            next.insert(route.spec.name.clone(), Arc::new(route));
        }
        *table = Arc::new(next);
    }

    /// The dependency state of MCP server `server` (every server is a dependency).
    pub(crate) fn server_dependency(&self, server: &str) -> Option<Arc<DependencyState>> {
        self.dependencies.get(server).cloned()
    }

    /// Runs a call for `origin`: probe calls share the whole path (pacing, breaker,
    /// contract, incidents) but stay out of the user-facing call metrics and windows.
    pub async fn call_as(
        &self,
        tool: &Arc<ToolSpec>,
        args: Map<String, Value>,
        origin: Origin,
    ) -> CallOutcome {
        match self.route(&tool.name) {
            Some(route) => {
                self.run(&route, args, origin, &CallContext::default())
                    .await
            }
            // Only a spec from another config can miss: say so rather than guess.
            None => {
                let class = toolgate_resilience::ErrorClass::ClientError;
                let mut signals = pipeline::CallSignals::new(&tool.name, &tool.contract.version, 0);
                signals.failed(class, false, None);
                CallOutcome {
                    result: Err(pipeline::Failure::new(
                        class,
                        format!("{} is not a tool of this gateway", tool.name),
                    )),
                    notes: Vec::new(),
                    signals,
                }
            }
        }
    }

    /// Restores what must survive a restart: remembered deprecation notices and the
    /// open incidents (so they are updated, not opened and paged again).
    pub async fn restore(&self) {
        let saved = self.store.deprecations().await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not restore remembered deprecation notices");
            Vec::new()
        });
        for (tool, notice) in saved {
            let Some(route) = self.route(&tool) else {
                continue;
            };
            if let Ok(d) = serde_json::from_value::<StoredDeprecation>(notice) {
                let d = d.into_deprecation();
                if let Some(sunset) = d.sunset {
                    self.services
                        .metrics
                        .record_sunset(&tool, sunset.timestamp());
                }
                *lock(&route.state.deprecation) = Some(d);
            }
        }
        for i in self.services.incidents.restore(&self.store).await {
            if i.kind == IncidentKind::ContractDrift.as_str()
                && let Some(route) = self.route(&i.tool)
            {
                route.state.drift_open.store(true, Ordering::Relaxed);
            }
        }
    }

    /// For `/metrics`: each fleet dependency's breaker, hold and quota gauges as the
    /// fleet knows them now, so a replica no call reached lately exports what its next
    /// call would meet. Bounded by the shared state's 50 ms budget, whatever Redis does;
    /// nothing without `gateway.shared`.
    pub async fn refresh_fleet_gauges(&self) {
        crate::fleet_gauges::refresh_fleet_gauges(self.dependencies(), &self.services.metrics)
            .await;
    }

    /// How many tools have which kind of contract (every origin of
    /// [`crate::learned::ORIGINS`], zeros included); also sets
    /// `toolgate_tool_contracts{origin}`, and the upstream MCP servers' gauges.
    pub fn refresh_coverage(&self) -> std::collections::BTreeMap<&'static str, usize> {
        self.fronting.refresh_gauges(&self.services.metrics);
        let metrics = &self.services.metrics;
        let gauge = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        metrics
            .reply_bytes_held
            .set(gauge(self.services.replies.held()));
        metrics
            .reply_bytes_limit
            .set(gauge(self.services.replies.limit()));
        let mut counts: std::collections::BTreeMap<&'static str, usize> =
            crate::learned::ORIGINS.iter().map(|o| (*o, 0)).collect();
        for route in self.routes().values() {
            *counts
                .entry(crate::learned::origin(&route.spec, &route.state.learned))
                .or_default() += 1;
        }
        for (origin, n) in &counts {
            self.services
                .metrics
                .tool_contracts
                .get_or_create(&crate::metrics::OriginLabel { origin })
                .set(i64::try_from(*n).unwrap_or(i64::MAX));
        }
        counts
    }

    /// The learned contracts of every tool that learns one, by name: what
    /// `toolgate lock` pins.
    pub fn learned(&self) -> std::collections::BTreeMap<String, crate::learned::Snapshot> {
        self.routes()
            .values()
            .filter_map(|r| {
                self.services
                    .learning
                    .state(&r.spec, &r.state.learned)
                    .map(|s| (r.spec.name.clone(), s.snapshot()))
            })
            .collect()
    }

    /// The validated configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A tool by exposed name.
    pub fn tool(&self, name: &str) -> Option<Arc<ToolSpec>> {
        self.route(name).map(|r| r.spec.clone())
    }

    /// A tool's route by exposed name.
    pub fn route(&self, name: &str) -> Option<Arc<ToolRoute>> {
        self.routes().get(name).cloned()
    }

    /// Every route, as of now.
    pub fn routes(&self) -> Arc<RouteTable> {
        read(&self.routes).clone()
    }

    /// The live state of a dependency.
    pub(crate) fn dependency(&self, name: &str) -> Option<&Arc<DependencyState>> {
        self.dependencies.get(name)
    }

    /// Every dependency with its name.
    pub fn dependencies(&self) -> impl Iterator<Item = (&String, &Arc<DependencyState>)> {
        self.dependencies.iter()
    }

    /// The live state of a tool.
    pub(crate) fn tool_state(&self, name: &str) -> Option<Arc<ToolState>> {
        self.route(name).map(|r| r.state.clone())
    }

    /// Every metric.
    pub fn metrics(&self) -> &Metrics {
        &self.services.metrics
    }

    /// The configured agents, for the agent a call runs as.
    pub fn agents(&self) -> &crate::agents::Agents {
        &self.agents
    }

    /// The audit trail of agents' calls and operators' actions; `None` when
    /// `gateway.audit.enabled` is false.
    pub fn audit(&self) -> Option<&Arc<crate::audit::AuditLog>> {
        self.services.audit.as_ref()
    }

    /// The tracer; `None` without `telemetry.otlp`.
    pub fn telemetry(&self) -> Option<&Arc<crate::telemetry::Telemetry>> {
        self.services.telemetry.as_ref()
    }

    /// Runs an agent's or a probe's call on a route this gateway resolved, with the
    /// gateway's metrics, incidents, tracer, learning and audit trail.
    pub async fn run(
        &self,
        route: &ToolRoute,
        args: Map<String, Value>,
        origin: Origin,
        ctx: &CallContext,
    ) -> CallOutcome {
        pipeline::run(route, &self.services, args, origin, ctx).await
    }

    /// Raising and clearing incidents.
    pub fn incidents(&self) -> &Arc<Incidents> {
        &self.services.incidents
    }

    /// The durable store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Sends incidents to their owners.
    pub(crate) fn notifier(&self) -> &Arc<Notifier> {
        &self.notifier
    }

    /// The pooled upstream HTTP client.
    pub fn client(&self) -> &UpstreamClient {
        &self.client
    }
}

/// The routes of `config`'s HTTP tools; a tool named in `keep` keeps that live state
/// (a reload keeps the state of the tools that did not change). Publishes each tool's
/// owner as a metric.
fn http_routes(
    config: &Config,
    dependencies: &HashMap<String, Arc<DependencyState>>,
    client: &UpstreamClient,
    metrics: &Metrics,
    keep: &HashMap<String, Arc<ToolState>>,
) -> RouteTable {
    let mut routes = HashMap::new();
    // One exchange (and cache of exchanged tokens) per dependency, shared by its tools.
    let exchanges: HashMap<&str, Arc<crate::exchange::Exchanger>> = config
        .dependencies
        .iter()
        .filter_map(|(name, d)| {
            let x = d.token_exchange.clone()?;
            let http = client.http_for(d.allow_link_local).clone();
            let exchanger = crate::exchange::Exchanger::new(name, x, http, metrics);
            Some((name.as_str(), Arc::new(exchanger)))
        })
        .collect();
    for (name, spec) in &config.tools {
        let dependency = dependencies
            .get(&spec.dependency.name)
            .cloned()
            // The compiler checks every reference; a config built by hand that
            // names no known dependency still gets a working state of its own.
            .unwrap_or_else(|| Arc::new(DependencyState::new(spec.dependency.clone())));
        let upstream = AnyUpstream::Http(
            HttpUpstream::new(
                client.clone(),
                spec.clone(),
                config.gateway.max_response_bytes,
            )
            .with_exchange(exchanges.get(spec.dependency.name.as_str()).cloned())
            .sharing(dependency.replies.clone()),
        );
        let state = keep
            .get(name)
            .cloned()
            .unwrap_or_else(|| Arc::new(ToolState::new()));
        let route = Route::new(spec.clone(), state, dependency, upstream);
        metrics
            .tool_owner_info
            .get_or_create(&OwnerLabels {
                tool: route.label.clone(),
                owner: spec.owner.clone(),
                dependency: spec.dependency.name.clone(),
            })
            .set(1);
        routes.insert(name.clone(), Arc::new(route));
    }
    routes
}

impl crate::fronting::Host for Gateway {
    fn route(&self, name: &str) -> Option<Arc<ToolRoute>> {
        Gateway::route(self, name)
    }

    fn names_besides(
        &self,
        server: &str,
        kind: toolgate_contract::DefinitionKind,
    ) -> std::collections::BTreeMap<String, String> {
        use toolgate_contract::DefinitionKind as K;
        match kind {
            K::Tool => crate::fronting::names_by_skeleton(
                self.routes()
                    .iter()
                    .filter(|(_, r)| r.server() != Some(server))
                    .map(|(name, _)| name.as_str()),
            ),
            K::Prompt | K::ResourceTemplate => self.fronting.served_names_besides(server, kind),
        }
    }

    fn set_server_routes(&self, server: &str, routes: Vec<ToolRoute>) {
        Gateway::set_server_routes(self, server, routes);
    }

    fn server_dependency(&self, server: &str) -> Option<Arc<DependencyState>> {
        Gateway::server_dependency(self, server)
    }

    fn incidents(&self) -> &Arc<Incidents> {
        Gateway::incidents(self)
    }

    fn notify_all(&self, method: &str, params: Option<Value>) {
        self.broadcast.notify_all(method, params);
    }

    fn notify_readers(&self, method: &str, params: Option<Value>, readers: Vec<u64>) {
        self.broadcast.notify_readers(method, params, readers);
    }
}
