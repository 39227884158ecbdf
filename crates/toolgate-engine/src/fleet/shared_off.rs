//! The fleet's shared state in a build without the `redis` feature: starting fails with
//! a sentence that says how to get it, and no value of this type can exist, so every
//! other method is unreachable.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::gauge::Gauge;
use toolgate_resilience::BreakerConfig;

use super::{BudgetView, FleetAdmission, FleetView, Keys, Record};

/// What a `gateway.shared` URL needs and this build lacks.
pub const NOT_BUILT: &str =
    "this build has no Redis support (gateway.shared): rebuild with `--features redis`";

/// The connection to the fleet's Redis; this build cannot make one.
#[derive(Debug, Clone)]
pub struct Shared {
    never: Infallible,
}

impl Shared {
    /// Refuses: this build has no Redis support.
    pub fn start(url: &str, replica: Option<&str>, gauge: Gauge) -> anyhow::Result<Shared> {
        Shared::start_with(url, replica, gauge, "toolgate:", BreakerConfig::default())
    }

    /// Refuses: this build has no Redis support.
    pub fn start_with(
        _url: &str,
        _replica: Option<&str>,
        _gauge: Gauge,
        _prefix: &str,
        _breaker: BreakerConfig,
    ) -> anyhow::Result<Shared> {
        anyhow::bail!(NOT_BUILT)
    }

    /// Unreachable: no connection exists.
    pub fn prefix(&self) -> &str {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub fn is_up(&self) -> bool {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub async fn admit(&self, _keys: &Keys, _deadline_left: Duration) -> Option<FleetAdmission> {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub async fn learned_read(&self, _key: &str) -> Option<super::LearnedStored> {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub async fn learned_write(
        &self,
        _key: &str,
        _version: &str,
        _epoch: &str,
        _state: &str,
    ) -> Option<super::LearnedWrite> {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub async fn learned_reset(&self, _key: &str) -> Option<(String, String)> {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub async fn view(&self, _keys: &Keys) -> Option<FleetView> {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub fn record(&self, _keys: &Arc<Keys>, _record: Record, _budget: &Arc<BudgetView>) {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub fn count_retry(&self, _keys: &Arc<Keys>) {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub async fn admit_agent(
        &self,
        _keys: &super::agent::AgentKeys,
        _quota: &toolgate_config::AgentQuota,
    ) -> Option<super::agent::AgentVerdict> {
        match self.never {}
    }

    /// Unreachable: no connection exists.
    pub fn release_agent(&self, _keys: &Arc<super::agent::AgentKeys>, _id: u64) {
        match self.never {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_shared_url_is_refused_saying_how_to_rebuild() {
        let err = super::Shared::start(
            "redis://:s3cret@127.0.0.1:6379",
            None,
            prometheus_client::metrics::gauge::Gauge::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("rebuild with `--features redis`"), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
}
