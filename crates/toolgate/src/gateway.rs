//! The running gateway: the validated config, a [`Route`] per tool resolved at
//! start-up, and the services every call shares (metrics, incidents, the store, the
//! notifier, the pooled upstream client).
//!
//! It assembles; it does not decide. The call path is `pipeline`, the background work
//! `background`, the reports `health` and `status`.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use crate::config::{Config, ToolSpec};
use crate::dependency::DependencyState;
use crate::metrics::{Metrics, OwnerLabels};
use crate::pipeline::{self, CallOutcome, Origin, Route, Services};
use crate::store::{IncidentKind, Store};
use crate::sync::lock;
use crate::tool_state::ToolState;
use crate::upstream::{HttpUpstream, UpstreamClient};
use crate::watch::deprecation::StoredDeprecation;
use crate::watch::incidents::Incidents;
use crate::watch::notify::Notifier;

/// A tool's route through its HTTP upstream.
pub type HttpRoute = Route<HttpUpstream>;

/// Everything a call needs.
#[derive(Debug)]
pub struct Gateway {
    config: Config,
    routes: HashMap<String, Arc<HttpRoute>>,
    dependencies: HashMap<String, Arc<DependencyState>>,
    services: Services,
    store: Store,
    notifier: Arc<Notifier>,
    client: UpstreamClient,
}

impl Gateway {
    /// Assembles a gateway from a config and an opened store. Must run inside a
    /// tokio runtime (the notifier starts its delivery worker).
    pub fn new(config: Config, store: Store) -> anyhow::Result<Arc<Gateway>> {
        let client = UpstreamClient::new()
            .map_err(|e| anyhow::anyhow!("cannot build the upstream HTTP client: {e}"))?;
        let dependencies: HashMap<String, Arc<DependencyState>> = config
            .dependencies
            .iter()
            .map(|(name, spec)| (name.clone(), Arc::new(DependencyState::new(spec.clone()))))
            .collect();
        let metrics = Arc::new(Metrics::new());
        let notifier = Notifier::start(config.alerts.clone(), store.clone());
        let incidents = Arc::new(Incidents::new(
            Some(notifier.clone()),
            config.alerts.throttle,
        ));
        let mut routes = HashMap::new();
        for (name, spec) in &config.tools {
            let dependency = dependencies
                .get(&spec.dependency.name)
                .cloned()
                // The compiler checks every reference; a config built by hand that
                // names no known dependency still gets a working state of its own.
                .unwrap_or_else(|| Arc::new(DependencyState::new(spec.dependency.clone())));
            let upstream = HttpUpstream::new(
                client.clone(),
                spec.clone(),
                config.gateway.max_response_bytes,
            );
            let route = Route::new(
                spec.clone(),
                Arc::new(ToolState::new()),
                dependency,
                upstream,
            );
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
        Ok(Arc::new(Gateway {
            config,
            routes,
            dependencies,
            services: Services { metrics, incidents },
            store,
            notifier,
            client,
        }))
    }

    /// Runs one agent's tool call to completion.
    pub async fn call(&self, tool: &Arc<ToolSpec>, args: Map<String, Value>) -> CallOutcome {
        self.call_as(tool, args, Origin::Agent).await
    }

    /// Runs a call for `origin`: probe calls share the whole path (pacing, breaker,
    /// contract, incidents) but stay out of the user-facing call metrics and windows.
    pub async fn call_as(
        &self,
        tool: &Arc<ToolSpec>,
        args: Map<String, Value>,
        origin: Origin,
    ) -> CallOutcome {
        match self.routes.get(&tool.name) {
            Some(route) => pipeline::run(route, &self.services, args, origin).await,
            // Only a spec from another config can miss: say so rather than guess.
            None => CallOutcome {
                result: Err(pipeline::Failure::new(
                    toolgate_resilience::ErrorClass::ClientError,
                    format!("{} is not a tool of this gateway", tool.name),
                )),
                notes: Vec::new(),
                signals: Value::Null,
            },
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
            let Some(route) = self.routes.get(&tool) else {
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
                && let Some(route) = self.routes.get(&i.tool)
            {
                route.state.drift_open.store(true, Ordering::Relaxed);
            }
        }
    }

    /// The validated configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A configured tool by name.
    pub fn tool(&self, name: &str) -> Option<&Arc<ToolSpec>> {
        self.routes.get(name).map(|r| &r.spec)
    }

    /// A tool's route by name.
    pub fn route(&self, name: &str) -> Option<&Arc<HttpRoute>> {
        self.routes.get(name)
    }

    /// Every route.
    pub fn routes(&self) -> impl Iterator<Item = &Arc<HttpRoute>> {
        self.routes.values()
    }

    /// The live state of a dependency.
    pub fn dependency(&self, name: &str) -> Option<&Arc<DependencyState>> {
        self.dependencies.get(name)
    }

    /// Every dependency with its name.
    pub fn dependencies(&self) -> impl Iterator<Item = (&String, &Arc<DependencyState>)> {
        self.dependencies.iter()
    }

    /// The live state of a tool.
    pub fn tool_state(&self, name: &str) -> Option<&Arc<ToolState>> {
        self.routes.get(name).map(|r| &r.state)
    }

    /// Every metric.
    pub fn metrics(&self) -> &Metrics {
        &self.services.metrics
    }

    /// The services a call uses.
    pub fn services(&self) -> &Services {
        &self.services
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
    pub fn notifier(&self) -> &Arc<Notifier> {
        &self.notifier
    }

    /// The pooled upstream HTTP client.
    pub fn client(&self) -> &UpstreamClient {
        &self.client
    }
}
