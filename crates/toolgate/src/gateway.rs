//! The running gateway: the validated config plus the shared runtime parts every call
//! uses (HTTP client, per-dependency state, per-tool state, metrics, store).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use toolgate_signals::Deprecation;

use crate::config::{Config, ToolSpec};
use crate::dependency::DependencyState;
use crate::metrics::{Metrics, OwnerLabels};
use crate::store::Store;
use crate::upstream::UpstreamClient;
use crate::watch::notify::Notifier;
use crate::watch::stats::ToolStats;

/// What toolgate remembers about a tool between calls.
#[derive(Debug)]
pub struct ToolState {
    /// The upstream's last deprecation notice for this tool.
    pub deprecation: Mutex<Option<Deprecation>>,
    /// Sliding windows of agent calls, retries and recoveries.
    pub stats: Mutex<ToolStats>,
    /// Whether a drift incident is open (so a matching response can resolve it
    /// without a store query on every call).
    pub drift_open: AtomicBool,
    /// The upstream's contract version, when the dependency says where to read it.
    pub upstream_version: Mutex<Option<String>>,
}

impl ToolState {
    fn new() -> ToolState {
        ToolState {
            deprecation: Mutex::new(None),
            stats: Mutex::new(ToolStats::new(tokio::time::Instant::now())),
            drift_open: AtomicBool::new(false),
            upstream_version: Mutex::new(None),
        }
    }
}

/// Everything a call needs.
#[derive(Debug)]
pub struct Gateway {
    /// Validated configuration.
    pub config: Config,
    /// Pooled upstream client.
    pub client: UpstreamClient,
    /// Per-dependency state.
    pub dependencies: HashMap<String, DependencyState>,
    /// Per-tool state.
    pub tools: HashMap<String, ToolState>,
    /// Metrics.
    pub metrics: Metrics,
    /// Durable state.
    pub store: Store,
    /// Sends incidents to their owners.
    pub notifier: Arc<Notifier>,
}

impl Gateway {
    /// Assembles a gateway from a config and an opened store. Must run inside a
    /// tokio runtime (the notifier starts its delivery worker).
    pub fn new(config: Config, store: Store) -> Arc<Gateway> {
        let dependencies = config
            .dependencies
            .iter()
            .map(|(name, spec)| (name.clone(), DependencyState::new(spec.clone())))
            .collect();
        let tools = config
            .tools
            .keys()
            .map(|name| (name.clone(), ToolState::new()))
            .collect();
        let metrics = Metrics::new();
        for t in config.tools.values() {
            let labels = OwnerLabels {
                tool: Arc::from(t.name.as_str()),
                owner: t.owner.clone(),
                dependency: t.dependency.name.clone(),
            };
            metrics.tool_owner_info.get_or_create(&labels).set(1);
        }
        let notifier = Notifier::start(config.alerts.clone(), store.clone());
        Arc::new(Gateway {
            config,
            client: UpstreamClient::new(),
            dependencies,
            tools,
            metrics,
            store,
            notifier,
        })
    }

    /// Starts the background work of a serving gateway: status-page polling,
    /// contract probes and the alert rules. All stop when `shutdown` is cancelled.
    pub fn spawn_background(self: &Arc<Self>, shutdown: &tokio_util::sync::CancellationToken) {
        crate::health::spawn_status_pollers(self.clone(), shutdown.clone());
        crate::watch::probe::spawn(self.clone(), shutdown.clone());
        crate::watch::rules::spawn(self.clone(), shutdown.clone());
    }

    /// A configured tool by name.
    pub fn tool(&self, name: &str) -> Option<&Arc<ToolSpec>> {
        self.config.tools.get(name)
    }

    /// The live state of a tool's dependency (every configured dependency has one).
    pub fn dependency(&self, name: &str) -> Option<&DependencyState> {
        self.dependencies.get(name)
    }
}

/// Locks a mutex, recovering from poisoning (a panicked holder leaves plain data behind).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
