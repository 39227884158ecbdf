//! Metric series kept by what counts into them, so a call does no label lookups.
//!
//! A `Family` finds a series by hashing its whole label set (SipHash over the tool's
//! and dependency's names) under a read lock, and a label set with an owned name
//! allocates before it is even looked up. A route, an agent or the anonymous caller is
//! built once per config, and the series it counts into are few and known by an enum
//! or a status code: each is looked up in its family the first time it is counted and
//! the handle kept (a counter handle shares its value with the family's series, so the
//! exposition reads what the handle counts). A series is therefore still created only
//! when it is first counted, as before: no zero series appear in `/metrics`.
//!
//! The families these handles come from never drop a series, so a kept handle never
//! counts into a series the exposition no longer shows; a reloaded config's routes
//! look their series up again and find the same ones.

use std::sync::OnceLock;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use toolgate_config::ANONYMOUS;
use toolgate_resilience::ErrorClass;

use super::{
    AgentLabels, CallLabels, DependencyLabel, Metrics, ResultLabel, StatusLabel, UpstreamLabels,
};

/// The outcomes a call ends with: `ok` and each error class.
const OUTCOMES: usize = 1 + ErrorClass::ALL.len();

/// How many distinct upstream statuses one route keeps handles for; statuses past
/// these are looked up in the family each time (a route meets a handful: 200, a 4xx
/// or two, a 5xx, a timeout).
const KEPT_STATUSES: usize = 8;

/// One counter per call outcome of one label set, each kept from its first count.
#[derive(Debug, Default)]
pub struct OutcomeCounters {
    slots: [OnceLock<Counter>; OUTCOMES],
}

impl OutcomeCounters {
    /// Counts one call that ended with `outcome`; `resolve` finds the outcome's series
    /// in its family, the first time only.
    pub fn inc(&self, outcome: Option<ErrorClass>, resolve: impl FnOnce() -> Counter) {
        let slot = outcome.map_or(0, |class| 1 + class as usize);
        match self.slots.get(slot) {
            Some(kept) => kept.get_or_init(resolve).inc(),
            // Every class has a slot (`OUTCOMES` is sized from the list of classes);
            // should one ever be added without, it is counted, only not kept.
            None => resolve().inc(),
        };
    }
}

/// One counter per upstream status, kept for the first [`KEPT_STATUSES`] statuses met.
#[derive(Debug, Default)]
pub struct StatusCounters {
    slots: [OnceLock<(StatusLabel, Counter)>; KEPT_STATUSES],
}

impl StatusCounters {
    /// Counts one attempt that ended with `status`; `resolve` finds its series.
    pub fn inc(&self, status: StatusLabel, resolve: impl Fn() -> Counter) {
        for slot in &self.slots {
            // Filled slots are never emptied: the first empty slot is claimed for
            // `status` (or found claimed, by a racing call, for whichever status that
            // call had, and the search goes on).
            let (kept, counter) = slot.get_or_init(|| (status, resolve()));
            if *kept == status {
                counter.inc();
                return;
            }
        }
        resolve().inc();
    }
}

/// The series one tool's route counts every call into.
#[derive(Debug, Default)]
pub struct RouteSeries {
    /// `toolgate_tool_calls_total{tool, outcome}`.
    calls: OutcomeCounters,
    /// `toolgate_upstream_requests_total{dependency, tool, status}`.
    attempts: StatusCounters,
    /// `toolgate_upstream_latency_seconds{dependency}`.
    latency: OnceLock<Histogram>,
}

/// The gauges of one dependency's state that every call sets from its snapshot.
#[derive(Debug, Default)]
pub struct DependencySeries {
    /// `toolgate_circuit_state{dependency}`.
    pub(super) circuit: OnceLock<Gauge>,
    /// `toolgate_brownout{dependency}`.
    pub(super) brownout: OnceLock<Gauge>,
    /// `toolgate_account_held{dependency}`.
    pub(super) account_held: OnceLock<Gauge>,
}

impl Metrics {
    /// Counts one agent's (not a probe's) call of the route labelled `tool`.
    pub fn count_tool_call(
        &self,
        series: &RouteSeries,
        tool: &std::sync::Arc<str>,
        outcome: Option<ErrorClass>,
    ) {
        series.calls.inc(outcome, || {
            self.tool_calls
                .get_or_create(&CallLabels {
                    tool: tool.clone(),
                    outcome: ResultLabel(outcome),
                })
                .clone()
        });
    }

    /// Counts one call that ended with `outcome`, of the agent labelled `agent` whose
    /// series are kept in `kept` (`None`: the anonymous caller, labelled `anonymous`).
    pub fn count_agent_call(
        &self,
        agent: Option<(&str, &OutcomeCounters)>,
        outcome: Option<ErrorClass>,
    ) {
        let (label, kept) = agent.unwrap_or((ANONYMOUS, &self.anonymous_calls));
        kept.inc(outcome, || {
            self.agent_calls
                .get_or_create(&AgentLabels {
                    agent: label.to_string(),
                    outcome: ResultLabel(outcome),
                })
                .clone()
        });
    }

    /// Counts one upstream attempt of the route labelled `tool` (of `dependency`) that
    /// ended with `status` and, when it got an answer, that answer's `latency`.
    pub fn count_attempt(
        &self,
        series: &RouteSeries,
        dependency: &str,
        tool: &std::sync::Arc<str>,
        status: StatusLabel,
        latency: Option<Duration>,
    ) {
        series.attempts.inc(status, || {
            self.upstream_requests
                .get_or_create(&UpstreamLabels {
                    dependency: std::sync::Arc::from(dependency),
                    tool: tool.clone(),
                    status,
                })
                .clone()
        });
        if let Some(latency) = latency {
            series
                .latency
                .get_or_init(|| {
                    self.upstream_latency
                        .get_or_create(&DependencyLabel {
                            dependency: std::sync::Arc::from(dependency),
                        })
                        .clone()
                })
                .observe(latency.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests;
