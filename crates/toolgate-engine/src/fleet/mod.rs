//! State shared by the replicas of one fleet through Redis (`gateway.shared`): each
//! dependency's advertised quota (taken from atomically at admission), its breaker
//! (open for every replica, one half-open probe across the fleet) and its retry budget
//! (one fleet-wide ratio).
//!
//! Redis never stops a call: every operation has a short timeout (50 ms), and a call
//! whose operation fails is decided locally. After a few failures in a row, or a
//! failed check, the replica marks the shared state down (logged once,
//! `toolgate_shared_state_up 0`) and runs on its local state — which kept learning all
//! along — until a background check sees Redis answer again (logged once, gauge 1).
//! While down, the call path does not touch Redis at all, so an outage costs at most
//! a few calls one short wait each.
//!
//! The admission and record steps are Lua scripts with `redis.call('TIME')` as their
//! only clock, so replicas with skewed clocks agree on when a window resets or a
//! breaker's open period ends.

use std::time::Duration;

use toolgate_resilience::{BreakerState, ErrorClass};
use toolgate_signals::Quota;

pub mod agent;

// The connection to Redis only with the `redis` feature; without it, a stub that
// refuses a `gateway.shared` URL with a sentence saying how to rebuild.
#[cfg(feature = "redis")]
mod shared;
#[cfg(not(feature = "redis"))]
mod shared_off;
#[cfg(not(feature = "redis"))]
use shared_off as shared;

pub use shared::Shared;

/// A tool's learned contract as the fleet holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedStored {
    /// New at every write (a random token; empty when none): what a compare and set
    /// compares.
    pub version: String,
    /// New at every relearn (a random token; empty when none): a replica that sees a new
    /// one starts over.
    pub epoch: String,
    /// The contract ([`crate::learned`]'s saved form), once some replica enforced one.
    pub state: Option<String>,
}

/// What a compare and set of a learned contract did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedWrite {
    /// Whether it was written (nobody wrote since it was read).
    pub written: bool,
    /// The version now.
    pub version: String,
    /// The epoch now.
    pub epoch: String,
}

/// Longest a call waits for Redis before running on local state.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub const OP_TIMEOUT: Duration = Duration::from_millis(50);
/// The retry budget's window and rule, as the local [`toolgate_resilience::RetryBudget`]
/// default: 10 retries per window plus 20 % of the requests.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub const BUDGET_WINDOW_S: u64 = 10;
const BUDGET_MIN: f64 = 10.0;
const BUDGET_RATIO: f64 = 0.2;
/// Quota policies remembered per dependency in Redis, as locally (an upstream that
/// invents a policy name per reply must not grow the shared state).
pub const MAX_POLICIES: usize = 16;

/// Redis keys of one dependency. Built once; the hash tag keeps a dependency's keys on
/// one cluster slot, as a script's keys must be.
// Only the Redis connection reads them: a build without `redis` only carries them.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
#[derive(Debug, Clone)]
pub struct Keys {
    breaker: String,
    probe: String,
    quota: String,
    blocked: String,
    in_flight: String,
    budget: String,
    /// `end:told` (ms, Redis clock) while the account behind the calls is held.
    account_held: String,
    /// The attempt id of the fleet's one trial call after the hold's end.
    account_trial: String,
    /// When the account's state last changed (ms, Redis clock): the hold began, or a
    /// trial passed. A refusal of an attempt sent before it is older news.
    account_changed: String,
    /// When the current throttle began (ms, Redis clock): a throttle of an attempt
    /// sent before it does not extend it.
    blocked_since: String,
}

impl Keys {
    /// Keys for `dependency` under `prefix`.
    pub fn new(prefix: &str, dependency: &str) -> Keys {
        let base = format!("{prefix}{{{dependency}}}:");
        Keys {
            breaker: format!("{base}breaker"),
            probe: format!("{base}probe"),
            quota: format!("{base}quota"),
            blocked: format!("{base}blocked"),
            in_flight: format!("{base}in_flight"),
            budget: format!("{base}budget:"),
            account_held: format!("{base}account_held"),
            account_trial: format!("{base}account_trial"),
            account_changed: format!("{base}account_changed"),
            blocked_since: format!("{base}blocked_since"),
        }
    }
}

/// The fleet's answer at admission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FleetAdmission {
    /// Send; `probe` when this attempt is the fleet's one half-open probe.
    Go {
        /// The half-open probe token is this attempt's.
        probe: bool,
        /// The attempt's id among the fleet's attempts in flight (for its record).
        id: u64,
    },
    /// The breaker is open for the fleet.
    Open(Duration),
    /// Quota returns within the deadline: wait, then ask again.
    Wait(Duration),
    /// Quota returns only past the deadline.
    Exhausted(Duration),
    /// The account behind the calls was refused (on any replica) and the fleet holds
    /// calls back.
    AccountHeld {
        /// When a call may pass: the renewal the refusal stated, else the hold's end
        /// (or, while the fleet's one trial call is out, its answer's latest).
        retry_in: Duration,
        /// Until the hold's end, which this replica then holds too (zero while the
        /// fleet's trial call is out: its answer may end the hold at any moment).
        hold_left: Duration,
    },
}

/// What the fleet knows of one dependency right now (`view.lua`), for the reports that
/// any replica serves — `dependency_health`, `/admin/health`, the console — so that a
/// replica that sent no call lately reports what its next call would meet.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetView {
    /// The fleet's breaker.
    pub breaker: BreakerState,
    /// While calls are held back for a refused account, until one may pass.
    pub account_held: Option<Duration>,
    /// While a throttle's stated wait holds calls back, how much of it is left.
    pub throttled: Option<Duration>,
    /// Each advertised policy as the fleet counts it now (takes by every replica
    /// included); at most [`MAX_POLICIES`].
    pub quotas: Vec<Quota>,
}

impl FleetView {
    /// Reads `view.lua`'s answer: `head` is open, down, held, blocked (ms; open −1 is
    /// half-open), `counts` three numbers per name (remaining, limit with 0 unknown,
    /// ms to the reset with −1 unknown). A short or odd answer reads as nothing known.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub fn read(head: &[i64], names: Vec<String>, counts: &[i64]) -> FleetView {
        let ms = |v: i64| Duration::from_millis(u64::try_from(v).unwrap_or(0));
        let at = |i: usize| head.get(i).copied().unwrap_or(0);
        let breaker = match at(0) {
            0 => BreakerState::Closed,
            open if open < 0 => BreakerState::HalfOpen,
            open => BreakerState::Open {
                down_for: ms(at(1)),
                retry_in: ms(open),
            },
        };
        let some = |v: i64| (v > 0).then(|| ms(v));
        let quotas = names
            .into_iter()
            .zip(counts.chunks_exact(3))
            .take(MAX_POLICIES)
            .map(|(policy, c)| Quota {
                policy,
                remaining: u64::try_from(c[0]).ok(),
                limit: u64::try_from(c[1]).ok().filter(|l| *l > 0),
                reset_after: u64::try_from(c[2]).ok().map(Duration::from_millis),
                window: None,
            })
            .collect();
        FleetView {
            breaker,
            account_held: some(at(2)),
            throttled: some(at(3)),
            quotas,
        }
    }
}

/// What an answer said of the account behind the call, for the fleet's hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountEnd {
    /// Nothing: an outage, a throttle, refused credentials, no answer; or a dependency
    /// called with each caller's authority, which is never held.
    Nothing,
    /// It got past the account's check: the fleet's trial call ends the hold.
    Passed,
    /// Refused: held for `hold`, `told` being when the refusal said it renews (at
    /// least `hold`).
    Refused {
        /// Until the next trial call.
        hold: Duration,
        /// Until the stated renewal, or `hold` when none was stated.
        told: Duration,
    },
}

/// How an attempt ended, for the fleet's breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptEnd {
    /// The dependency answered (any class that proves it up).
    Success,
    /// A failure that counts for the breaker.
    Failure,
    /// Neither (rate limited, no verdict).
    Neutral,
    /// Never sent.
    Unsent,
}

impl AttemptEnd {
    /// The breaker's reading of an attempt's class (`None` = success).
    pub fn of(class: Option<ErrorClass>) -> AttemptEnd {
        match class {
            None => AttemptEnd::Success,
            Some(c) if c.counts_for_breaker() => AttemptEnd::Failure,
            Some(
                ErrorClass::RateLimited | ErrorClass::CircuitOpen | ErrorClass::BudgetExhausted,
            ) => AttemptEnd::Neutral,
            Some(_) => AttemptEnd::Success,
        }
    }
}

/// One advertised policy, as the record script takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advert {
    /// Policy name.
    pub policy: String,
    /// Requests left.
    pub remaining: u64,
    /// Requests per window (0 = unknown).
    pub limit: u64,
    /// Until the window resets, as of the reply.
    pub reset_after: Duration,
}

/// What a settled attempt reports to the fleet.
#[derive(Debug, Clone)]
pub struct Record {
    /// The breaker outcome.
    pub outcome: AttemptEnd,
    /// Whether the attempt held the fleet's probe token.
    pub probe: bool,
    /// The id the fleet admitted it under; `None` when it was admitted locally.
    pub id: Option<u64>,
    /// A call's first attempt (it earns retry budget).
    pub first_attempt: bool,
    /// A throttling reply's wait, if any.
    pub throttle: Option<Duration>,
    /// What the reply advertised.
    pub adverts: Vec<Advert>,
    /// What it said of the account.
    pub account: AccountEnd,
}

/// The fleet's retry-budget totals over the window, as last read.
#[derive(Debug, Default)]
pub struct BudgetView {
    totals: std::sync::Mutex<(u64, u64)>,
}

impl BudgetView {
    /// Withdraws one retry if the fleet's budget, as last read, has room; the
    /// withdrawal is counted locally at once so a burst cannot overspend between reads.
    pub fn try_withdraw(&self) -> bool {
        let mut t = crate::sync::lock(&self.totals);
        let allowed = (BUDGET_MIN + BUDGET_RATIO * t.0 as f64).floor() as u64;
        if t.1 >= allowed {
            return false;
        }
        t.1 += 1;
        true
    }

    /// The fleet's (requests, retries) as last read, plus local withdrawals since.
    pub fn totals(&self) -> (u64, u64) {
        *crate::sync::lock(&self.totals)
    }
}

#[cfg(test)]
#[cfg(feature = "redis")]
mod tests;
#[cfg(test)]
#[cfg(feature = "redis")]
mod tests_late;
#[cfg(test)]
#[cfg(feature = "redis")]
mod tests_scrape;
