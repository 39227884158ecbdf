//! The agents toolgate tells apart (`agents:`), at run time: which tools each may call,
//! and its quota — calls per window and calls at once — kept per replica, or, with
//! `gateway.shared`, for the whole fleet in Redis (`fleet/agent.lua`, one atomic step
//! per call on Redis's clock). While Redis is unreachable each replica decides on its
//! own state instead — the quota then holds per replica, not per fleet — and counts
//! every such decision in `toolgate_agent_quota_local_total`.
//!
//! A call's agent comes from its credentials (the server's admission); the pipeline
//! asks [`CallAgent::admit`] before anything else, so a refused call sends nothing
//! upstream and spends none of the dependency's quota: one runaway agent cannot use up
//! what the others share.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use tokio::time::Instant;
use toolgate_config::{ANONYMOUS, AgentSpec, Config};
use toolgate_resilience::ErrorClass;

use crate::fleet::Shared;
use crate::fleet::agent::{AgentKeys, AgentVerdict};
use crate::pipeline::outcome::Failure;

/// Every configured agent's live state.
#[derive(Debug, Default)]
pub struct Agents {
    by_name: HashMap<String, Arc<AgentState>>,
    fleet: Option<Arc<Fleet>>,
}

/// The fleet's Redis, and the count of decisions made without it.
#[derive(Debug)]
struct Fleet {
    shared: Shared,
    local: Counter,
}

impl Agents {
    pub fn new(config: &Config) -> Agents {
        Agents {
            by_name: config
                .agents
                .iter()
                .map(|(name, spec)| (name.clone(), Arc::new(AgentState::new(spec.clone()))))
                .collect(),
            fleet: None,
        }
    }

    /// The same agents, their quotas counted for the fleet in `shared`'s Redis; `local`
    /// counts the decisions made on this replica's state while Redis is unreachable.
    #[must_use]
    pub fn with_shared(mut self, shared: Option<Shared>, local: Counter) -> Agents {
        if let Some(shared) = shared {
            for state in self.by_name.values_mut() {
                if let Some(s) = Arc::get_mut(state) {
                    s.keys = Arc::new(AgentKeys::new(shared.prefix(), &s.spec.name));
                }
            }
            self.fleet = Some(Arc::new(Fleet { shared, local }));
        }
        self
    }

    /// The agent of one call, from the spec its credentials named; `None`: anonymous.
    pub fn caller(&self, spec: Option<&Arc<AgentSpec>>) -> Option<CallAgent> {
        let spec = spec?;
        let state = self.by_name.get(&spec.name)?.clone();
        Some(CallAgent {
            state,
            fleet: self.fleet.clone(),
        })
    }
}

/// One agent's quota state.
#[derive(Debug)]
pub struct AgentState {
    spec: Arc<AgentSpec>,
    /// The generic cell rate algorithm's theoretical arrival time: calls are spaced
    /// `per / calls` apart, with a burst of `calls` allowed.
    tat: std::sync::Mutex<Option<Instant>>,
    running: AtomicU32,
    /// Its keys in the fleet's Redis.
    keys: Arc<AgentKeys>,
    /// What its calls' replies hold of the reply memory (`gateway.reply_share`).
    replies: Arc<toolgate_resilience::ReplyShare>,
    /// Its `toolgate_agent_calls_total` series, kept from their first count.
    calls: crate::metrics::OutcomeCounters,
}

impl AgentState {
    fn new(spec: Arc<AgentSpec>) -> AgentState {
        AgentState {
            keys: Arc::new(AgentKeys::new("toolgate:", &spec.name)),
            spec,
            tat: std::sync::Mutex::new(None),
            running: AtomicU32::new(0),
            replies: Arc::default(),
            calls: crate::metrics::OutcomeCounters::default(),
        }
    }
}

/// The agent a call runs as.
#[derive(Debug, Clone)]
pub struct CallAgent {
    state: Arc<AgentState>,
    fleet: Option<Arc<Fleet>>,
}

impl CallAgent {
    /// The agent's configured name.
    pub fn name(&self) -> &str {
        &self.state.spec.name
    }

    /// The agent's spec.
    pub fn spec(&self) -> &Arc<AgentSpec> {
        &self.state.spec
    }

    /// Its `toolgate_agent_calls_total` series, kept from their first count.
    pub fn calls(&self) -> &crate::metrics::OutcomeCounters {
        &self.state.calls
    }

    /// What its calls' replies hold of the reply memory, within its share.
    pub fn replies(&self) -> &Arc<toolgate_resilience::ReplyShare> {
        &self.state.replies
    }

    /// [`CallAgent::admit`], with the quota counted for the whole fleet when the
    /// replicas share state (and Redis answers).
    pub async fn admit_shared(&self, tool: &str, now: Instant) -> Result<AgentPermit, Failure> {
        let spec = &self.state.spec;
        let (Some(fleet), Some(quota)) = (&self.fleet, spec.quota) else {
            return self.admit(tool, now);
        };
        if !spec.may_call(tool) {
            return self.admit(tool, now);
        }
        match fleet.shared.admit_agent(&self.state.keys, &quota).await {
            Some(AgentVerdict::Go { id }) => Ok(AgentPermit {
                local: None,
                fleet: quota
                    .concurrent
                    .map(|_| (fleet.shared.clone(), self.state.keys.clone(), id)),
            }),
            Some(AgentVerdict::TooMany) => Err(self.too_many(tool, quota.concurrent.unwrap_or(0))),
            Some(AgentVerdict::Wait(wait)) => {
                let (calls, per) = quota.calls.unwrap_or((0, Duration::ZERO));
                Err(self.spent(tool, calls, per, wait))
            }
            None => {
                fleet.local.inc();
                self.admit(tool, now)
            }
        }
    }

    fn too_many(&self, tool: &str, limit: u32) -> Failure {
        Failure::new(
            ErrorClass::RateLimited,
            crate::explain::agent_concurrency(tool, &self.state.spec.name, limit),
        )
    }

    fn spent(&self, tool: &str, calls: u32, per: Duration, wait: Duration) -> Failure {
        let mut failure = Failure::new(
            ErrorClass::RateLimited,
            crate::explain::agent_quota(tool, &self.state.spec.name, calls, per, wait),
        );
        failure.retry_after = Some(wait);
        failure
    }

    /// May this agent call `tool` now, on this replica's state? A permit holds one of
    /// its concurrent calls until dropped; a refusal is the failure the model reads.
    pub fn admit(&self, tool: &str, now: Instant) -> Result<AgentPermit, Failure> {
        let spec = &self.state.spec;
        if !spec.may_call(tool) {
            return Err(Failure::new(
                ErrorClass::Forbidden,
                crate::explain::forbidden(tool, &spec.name),
            ));
        }
        let Some(quota) = spec.quota else {
            return Ok(AgentPermit::default());
        };
        if let Some(limit) = quota.concurrent {
            let taken = self
                .state
                .running
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < limit).then_some(n + 1)
                });
            if taken.is_err() {
                return Err(self.too_many(tool, limit));
            }
        }
        let permit = AgentPermit {
            local: quota.concurrent.map(|_| self.state.clone()),
            fleet: None,
        };
        if let Some((calls, per)) = quota.calls
            && let Err(wait) = self.take_call(calls, per, now)
        {
            drop(permit);
            return Err(self.spent(tool, calls, per, wait));
        }
        Ok(permit)
    }

    /// One call from the window, or how long until one is free.
    fn take_call(&self, calls: u32, per: Duration, now: Instant) -> Result<(), Duration> {
        let interval = per / calls.max(1);
        let burst = per.saturating_sub(interval);
        let mut tat = crate::sync::lock(&self.state.tat);
        let start = tat.map_or(now, |t| t.max(now));
        let ahead = start.duration_since(now);
        if ahead > burst {
            return Err(ahead - burst);
        }
        *tat = Some(start + interval);
        Ok(())
    }
}

/// One of an agent's concurrent calls; released when dropped (the call ended, or was
/// cancelled): on this replica, or in the fleet's Redis.
#[derive(Debug, Default)]
pub struct AgentPermit {
    local: Option<Arc<AgentState>>,
    fleet: Option<(Shared, Arc<AgentKeys>, u64)>,
}

impl Drop for AgentPermit {
    fn drop(&mut self) {
        if let Some(state) = &self.local {
            state.running.fetch_sub(1, Ordering::AcqRel);
        }
        if let Some((shared, keys, id)) = &self.fleet {
            shared.release_agent(keys, *id);
        }
    }
}

/// The `agent` metric label and log field: a configured name, or `anonymous`.
pub fn label(agent: Option<&CallAgent>) -> &str {
    agent.map_or(ANONYMOUS, CallAgent::name)
}

#[cfg(all(test, feature = "redis"))]
mod fleet_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn agents(yaml_agents: &str) -> Agents {
        let yaml = format!(
            "dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\nagents:\n{yaml_agents}"
        );
        let config = crate::fixtures::config(&yaml);
        Agents::new(&config)
    }

    const KEY: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn caller(agents: &Agents, name: &str) -> CallAgent {
        let spec = agents.by_name.get(name).map(|s| s.spec.clone());
        agents
            .caller(spec.as_ref())
            .unwrap_or_else(|| panic!("{name}"))
    }

    #[test]
    fn a_denied_tool_is_refused_with_a_sentence_the_model_reads() {
        let a = agents(&format!(
            "  reporting-bot:\n    api_key_sha256: {KEY}\n    tools: [web_search, \"kb__*\"]\n    deny: [kb__delete]\n"
        ));
        let bot = caller(&a, "reporting-bot");
        let now = Instant::now();
        assert!(bot.admit("web_search", now).is_ok());
        assert!(bot.admit("kb__search", now).is_ok());
        let refused = bot.admit("delete_repo", now).unwrap_err();
        assert_eq!(refused.class, ErrorClass::Forbidden);
        assert!(
            refused.message.starts_with(
                "delete_repo was not called: agent reporting-bot is not allowed to call it. Error class: forbidden. Do not retry"
            ),
            "{}",
            refused.message
        );
        assert_eq!(
            bot.admit("kb__delete", now).unwrap_err().class,
            ErrorClass::Forbidden
        );
    }

    #[tokio::test(start_paused = true)]
    async fn calls_per_window_are_counted_and_the_wait_is_told() {
        let a = agents(&format!(
            "  bot:\n    api_key_sha256: {KEY}\n    quota: {{ calls: 3, per: 1m }}\n"
        ));
        let bot = caller(&a, "bot");
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(bot.admit("t", t0).is_ok());
        }
        let refused = bot.admit("t", t0).unwrap_err();
        assert_eq!(refused.class, ErrorClass::RateLimited);
        assert_eq!(refused.retry_after, Some(Duration::from_secs(20)));
        assert!(
            refused
                .message
                .contains("agent bot has used its quota of 3 calls per 60 s"),
            "{}",
            refused.message
        );
        // One call's worth of the window later, one more call is free.
        assert!(bot.admit("t", t0 + Duration::from_secs(20)).is_ok());
        assert!(bot.admit("t", t0 + Duration::from_secs(20)).is_err());
    }

    #[test]
    fn concurrent_calls_are_bounded_and_released_on_drop() {
        let a = agents(&format!(
            "  bot:\n    api_key_sha256: {KEY}\n    quota: {{ concurrent: 2 }}\n  other:\n    api_key_sha256: {}\n    quota: {{ concurrent: 1 }}\n",
            KEY.replace('b', "c")
        ));
        let bot = caller(&a, "bot");
        let other = caller(&a, "other");
        let now = Instant::now();
        let first = bot.admit("t", now).unwrap();
        let _second = bot.admit("t", now).unwrap();
        assert_eq!(
            bot.admit("t", now).unwrap_err().class,
            ErrorClass::RateLimited
        );
        // One agent at its limit does not touch another's.
        let _o = other.admit("t", now).unwrap();
        drop(first);
        assert!(bot.admit("t", now).is_ok());
    }
}
