//! What `/metrics` shows of each dependency in a fleet. Every call is admitted by the
//! fleet, so a replica that no call and no report reached lately would otherwise
//! export what it last saw (a breaker closed while the fleet's is open). Each scrape
//! asks the fleet once per dependency, all at once and within one [`OP_TIMEOUT`]: a
//! Redis that hangs never stalls `/metrics`, and a dependency whose answer is late
//! shows this replica's own view, which `toolgate_fleet_view` says.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::dependency::DependencyState;
use crate::fleet::{FleetView, OP_TIMEOUT};
use crate::metrics::{DependencyLabel, Metrics};

/// Sets the per-dependency gauges of every dependency in a fleet from the fleet's
/// view as of now, or from this replica's own where the fleet did not answer within
/// [`OP_TIMEOUT`]. Dependencies outside a fleet keep the gauges their calls set.
pub async fn refresh_fleet_gauges<'a>(
    dependencies: impl Iterator<Item = (&'a String, &'a Arc<DependencyState>)>,
    metrics: &Metrics,
) {
    let in_fleet: Vec<(&String, &Arc<DependencyState>)> =
        dependencies.filter(|(_, d)| d.in_fleet()).collect();
    if in_fleet.is_empty() {
        return;
    }
    let deadline = Instant::now() + OP_TIMEOUT;
    let mut asks = JoinSet::new();
    for (name, state) in &in_fleet {
        let (name, state) = ((*name).clone(), Arc::clone(state));
        asks.spawn(async move { (name, state.fleet_view().await) });
    }
    let mut views: HashMap<String, FleetView> = HashMap::with_capacity(in_fleet.len());
    // One deadline for all: the asks run at once, so a slow Redis costs one budget per
    // scrape, not one per dependency. Whatever has not answered by then is dropped.
    while let Ok(Some(joined)) = tokio::time::timeout_at(deadline, asks.join_next()).await {
        if let Ok((name, Some(view))) = joined {
            views.insert(name, view);
        }
    }
    asks.abort_all();
    let now = Instant::now();
    for (name, state) in in_fleet {
        let view = views.remove(name);
        metrics
            .fleet_view
            .get_or_create(&DependencyLabel {
                dependency: Arc::from(name.as_str()),
            })
            .set(i64::from(view.is_some()));
        let own = state.call_snapshot(now);
        let snapshot = match view {
            Some(view) => own.with_fleet(view),
            None => own,
        };
        metrics.record_dependency(name, &state.series, &snapshot.gauges());
    }
}
