//! Agents' quotas across the fleet (`agents.<name>.quota` with `gateway.shared`): what
//! the Redis script `agent.lua` takes and answers. Calls per window and calls at once
//! are counted for the whole fleet, so an agent's quota is the same whichever replica
//! its calls reach; while Redis is down each replica enforces the quota alone
//! (`crate::agents`).

use std::time::Duration;

/// Redis keys of one agent; the hash tag keeps them on one cluster slot.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
#[derive(Debug, Clone)]
pub struct AgentKeys {
    pub(crate) tat: String,
    pub(crate) running: String,
}

impl AgentKeys {
    /// Keys for agent `name` under `prefix`.
    pub fn new(prefix: &str, name: &str) -> AgentKeys {
        let base = format!("{prefix}{{agent:{name}}}:");
        AgentKeys {
            tat: format!("{base}tat"),
            running: format!("{base}running"),
        }
    }
}

/// The fleet's answer for one call of an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentVerdict {
    /// Go; `id` names the call among the agent's running calls (release it with it).
    Go { id: u64 },
    /// The agent has its limit of calls running across the fleet.
    TooMany,
    /// The agent's window is spent: the next call fits after this wait.
    Wait(Duration),
}
