//! A report's snapshot in a fleet: this replica's own view, corrected by what the
//! fleet's shared state knows now. Every call is admitted by the fleet (breaker,
//! account hold, quota), so a replica that sent no call lately would otherwise report
//! a dependency healthy while the fleet holds every call back.

use chrono::Utc;
use toolgate_resilience::BreakerState;

use super::{DependencyState, Snapshot, fraction_left};
use crate::fleet::FleetView;

impl DependencyState {
    /// Whether this dependency's calls are admitted by a fleet (`gateway.shared`).
    pub fn in_fleet(&self) -> bool {
        self.fleet.is_some()
    }

    /// What the fleet knows of this dependency now; `None` without a fleet, while its
    /// shared state is down, or when Redis did not answer in time.
    pub async fn fleet_view(&self) -> Option<FleetView> {
        let fleet = self.fleet.as_ref()?;
        fleet.shared.view(&fleet.keys).await
    }
}

impl Snapshot {
    /// This snapshot with the fleet's `view` laid over it.
    ///
    /// - The breaker is the fleet's, which admits every call while the shared state is
    ///   up; its first opening dates `down_since` when this replica saw none.
    /// - The account hold and the throttle are the later of the two: the replica's own
    ///   hold is asked before the fleet, and a wait told to either holds calls back.
    /// - Each policy's count is the fleet's, which every replica takes from; a policy
    ///   only the fleet has seen is added with no age of its own.
    pub(crate) fn with_fleet(mut self, view: FleetView) -> Snapshot {
        match view.breaker {
            BreakerState::Closed => self.down_since = None,
            BreakerState::Open { down_for, .. } if self.down_since.is_none() => {
                self.down_since = chrono::Duration::from_std(down_for)
                    .ok()
                    .and_then(|d| Utc::now().checked_sub_signed(d));
            }
            _ => {}
        }
        self.breaker = view.breaker;
        self.account_held = self.account_held.max(view.account_held);
        self.throttled = self.throttled.max(view.throttled);
        let mut quotas: Vec<_> = std::mem::take(&mut self.quotas)
            .into_iter()
            .zip(std::mem::take(&mut self.quota_ages))
            .collect();
        for fleet in view.quotas {
            match quotas.iter_mut().find(|(q, _)| q.policy == fleet.policy) {
                Some((q, _)) => {
                    q.remaining = fleet.remaining.or(q.remaining);
                    q.limit = fleet.limit.or(q.limit);
                    q.reset_after = fleet.reset_after.or(q.reset_after);
                }
                None => quotas.push((fleet, None)),
            }
        }
        quotas.sort_by(|a, b| fraction_left(&a.0).total_cmp(&fraction_left(&b.0)));
        (self.quotas, self.quota_ages) = quotas.into_iter().unzip();
        self
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::time::Instant;
    use toolgate_signals::{Quota, Signals};

    use super::*;
    use crate::dependency::{DependencyState, Gate};
    use crate::fleet::MAX_POLICIES;

    fn quota(policy: &str, remaining: u64, limit: u64) -> Quota {
        Quota {
            policy: policy.into(),
            limit: Some(limit),
            remaining: Some(remaining),
            reset_after: Some(Duration::from_secs(600)),
            window: None,
        }
    }

    #[test]
    fn the_scripts_answer_reads_as_the_breaker_hold_throttle_and_policies_it_names() {
        let open = FleetView::read(&[1500, 60_000, 0, 0], vec![], &[]);
        assert_eq!(
            open.breaker,
            BreakerState::Open {
                down_for: Duration::from_secs(60),
                retry_in: Duration::from_millis(1500),
            }
        );
        assert_eq!(
            FleetView::read(&[-1, 5, 0, 0], vec![], &[]).breaker,
            BreakerState::HalfOpen
        );
        let held = FleetView::read(&[0, 0, 9000, 2500], vec![], &[]);
        assert_eq!(held.breaker, BreakerState::Closed);
        assert_eq!(held.account_held, Some(Duration::from_secs(9)));
        assert_eq!(held.throttled, Some(Duration::from_millis(2500)));
        // A limit of 0 and a reset of −1 are unknown; a name without its three numbers
        // is dropped, and an answer too short reads as nothing known.
        let q = FleetView::read(
            &[0, 0, 0, 0],
            vec!["core".into(), "search".into()],
            &[7, 0, -1],
        );
        assert_eq!(q.quotas.len(), 1);
        assert_eq!(
            (
                q.quotas[0].remaining,
                q.quotas[0].limit,
                q.quotas[0].reset_after
            ),
            (Some(7), None, None)
        );
        let empty = FleetView::read(&[], vec![], &[]);
        assert_eq!(
            (empty.breaker, empty.account_held, empty.throttled),
            (BreakerState::Closed, None, None)
        );
        // Never more policies than the fleet keeps, whatever the answer holds.
        let names: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
        let counts: Vec<i64> = (0..40).flat_map(|_| [1, 10, 1000]).collect();
        assert_eq!(
            FleetView::read(&[0; 4], names, &counts).quotas.len(),
            MAX_POLICIES
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_fleets_counts_replace_the_replicas_and_keep_the_most_constraining_first() {
        let dep = DependencyState::new(Arc::new(crate::fixtures::dependency(
            "api",
            "http://127.0.0.1:9",
        )));
        let Gate::Go(p) = dep.gate(Instant::now(), Duration::from_secs(5), true) else {
            panic!("nothing is known yet");
        };
        let seen = Signals {
            quota: vec![quota("core", 90, 100), quota("search", 8, 10)],
            ..Signals::default()
        };
        p.settle(
            Instant::now(),
            Some(&seen),
            Some(Duration::from_millis(5)),
            None,
        );
        tokio::time::sleep(Duration::from_secs(10)).await;
        let local = dep.snapshot(Instant::now());
        assert_eq!(local.quotas[0].policy, "search");
        let view = FleetView {
            breaker: BreakerState::Closed,
            account_held: None,
            throttled: Some(Duration::from_secs(3)),
            quotas: vec![quota("core", 5, 100), quota("tokens", 500, 1000)],
        };
        let merged = local.with_fleet(view);
        let order: Vec<(&str, Option<u64>)> = merged
            .quotas
            .iter()
            .map(|q| (q.policy.as_str(), q.remaining))
            .collect();
        // core is the fleet's 5 of 100 now, the most constraining; tokens only the fleet knows.
        assert_eq!(
            order,
            [
                ("core", Some(5)),
                ("tokens", Some(500)),
                ("search", Some(8))
            ]
        );
        assert_eq!(
            merged.quota_ages,
            [
                Some(Duration::from_secs(10)),
                None,
                Some(Duration::from_secs(10))
            ]
        );
        assert_eq!(merged.throttled, Some(Duration::from_secs(3)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_fleet_whose_breaker_is_closed_clears_a_replicas_stale_outage() {
        let dep = DependencyState::new(Arc::new(crate::fixtures::dependency(
            "api",
            "http://127.0.0.1:9",
        )));
        for _ in 0..5 {
            if let Gate::Go(p) = dep.gate(Instant::now(), Duration::from_secs(5), true) {
                p.settle(
                    Instant::now(),
                    None,
                    None,
                    Some(toolgate_resilience::ErrorClass::ServerError),
                );
            }
        }
        let local = dep.snapshot(Instant::now());
        assert!(matches!(local.breaker, BreakerState::Open { .. }));
        assert!(local.down_since.is_some());
        let view = FleetView {
            breaker: BreakerState::Closed,
            account_held: None,
            throttled: None,
            quotas: Vec::new(),
        };
        let merged = local.with_fleet(view);
        assert_eq!(merged.breaker, BreakerState::Closed);
        assert!(merged.down_since.is_none());
    }
}
