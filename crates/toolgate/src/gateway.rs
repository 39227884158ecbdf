//! The running gateway: the validated config plus the shared runtime parts every call
//! uses (HTTP client, per-dependency resilience state, metrics, store).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use toolgate_resilience::RetryBudget;

use crate::config::{Config, Dependency, ToolSpec};
use crate::metrics::Metrics;
use crate::store::Store;
use crate::upstream::UpstreamClient;

/// Resilience state of one dependency, shared by all its tools.
#[derive(Debug)]
pub struct DependencyState {
    /// The dependency's config.
    pub spec: Arc<Dependency>,
    /// Retries may be at most a fraction of requests (DESIGN §4 defaults).
    pub budget: Mutex<RetryBudget>,
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
    /// Metrics.
    pub metrics: Metrics,
    /// Durable state.
    pub store: Store,
}

impl Gateway {
    /// Assembles a gateway from a config and an opened store.
    pub fn new(config: Config, store: Store) -> Arc<Gateway> {
        let dependencies = config
            .dependencies
            .iter()
            .map(|(name, spec)| {
                let state = DependencyState {
                    spec: spec.clone(),
                    budget: Mutex::new(RetryBudget::new(
                        0.2,
                        10,
                        std::time::Duration::from_secs(10),
                    )),
                };
                (name.clone(), state)
            })
            .collect();
        Arc::new(Gateway {
            config,
            client: UpstreamClient::new(),
            dependencies,
            metrics: Metrics::new(),
            store,
        })
    }

    /// A configured tool by name.
    pub fn tool(&self, name: &str) -> Option<&Arc<ToolSpec>> {
        self.config.tools.get(name)
    }
}

/// Locks a mutex, recovering from poisoning (a panicked holder leaves plain data behind).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
