//! Circuit breaker per dependency: Closed → Open → HalfOpen (one probe) →
//! Closed or Open again.
//!
//! Modelled on linkerd2-proxy's consecutive-failures breaker
//! (`linkerd/app/outbound/src/http/breaker/consecutive_failures.rs`: trip on N
//! consecutive failures, back off, let one probe through) with the
//! failure-rate rule of Envoy outlier detection / resilience4j (rate over a
//! minimum number of calls in a time window). Defaults: 5 consecutive
//! failures (Envoy's `consecutive_5xx`), or ≥ 50 % (resilience4j's rate
//! threshold) over ≥ 20 calls in 30 s; open 15 s, doubling
//! per failed probe up to 5 min.
//!
//! What counts: only [`ErrorClass::counts_for_breaker`] outcomes are
//! failures. `rate_limited` (and the gateway's own `circuit_open` /
//! `budget_exhausted`) is **neutral**: ignored, neither failure nor success —
//! a throttling dependency is neither proven down nor proven healthy. Every
//! other outcome (success, drift, client_error, auth, gone) is a **success**:
//! the dependency answered, so it is up.
//!
//! Limits: `record` does not know which call it is for. Outcomes arriving
//! while Open are ignored as stale; in HalfOpen the first non-neutral outcome
//! decides, so a straggler from before the trip (older than the open time)
//! could be taken for the probe's answer. A probe that never reports frees its
//! slot after `probe_timeout`.
//!
//! This module must not read a clock, classify responses, or sleep.

use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use crate::class::ErrorClass;
use crate::later;
use crate::window::SlidingCounts;

const SUCCESSES: usize = 0;
const FAILURES: usize = 1;

/// Breaker thresholds and timings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakerConfig {
    /// Trip after this many failures in a row (5).
    pub consecutive_failures: u32,
    /// Trip when failures / calls in the window reach this (0.5)…
    pub failure_rate: f64,
    /// …provided at least this many calls were seen in the window (20).
    pub min_calls: u32,
    /// The failure-rate window (30 s).
    pub window: Duration,
    /// First open period (15 s).
    pub open_for: Duration,
    /// The open period doubles on each failed probe, up to this (5 min).
    pub max_open_for: Duration,
    /// An admitted probe that never reports frees its slot after this (15 s).
    pub probe_timeout: Duration,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            consecutive_failures: 5,
            failure_rate: 0.5,
            min_calls: 20,
            window: Duration::from_secs(30),
            open_for: Duration::from_secs(15),
            max_open_for: Duration::from_secs(300),
            probe_timeout: Duration::from_secs(15),
        }
    }
}

/// The breaker's answer to "may I send a request now?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Closed: go ahead.
    Allowed,
    /// Half-open: go ahead — this call is the single probe; report its outcome.
    Probe,
    /// Open (or a probe is already out): fail fast with `circuit_open`.
    Rejected {
        /// When asking again may succeed.
        retry_in: Duration,
        /// When this outage began (the first trip, kept across re-opens).
        open_since: Instant,
    },
}

/// The breaker state as reported to metrics, notes and `dependency_health`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum BreakerState {
    /// Requests flow.
    Closed,
    /// Requests are rejected.
    Open {
        /// How long the dependency has been considered down (first trip).
        #[serde(rename = "down_for_ms", serialize_with = "as_millis")]
        down_for: Duration,
        /// Until the next probe is allowed.
        #[serde(rename = "retry_in_ms", serialize_with = "as_millis")]
        retry_in: Duration,
    },
    /// One probe may go (or is out).
    HalfOpen,
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl BreakerState {
    /// Gauge value for `toolgate_circuit_state`: 0 closed, 1 open, 2 half-open.
    pub fn as_gauge(&self) -> i64 {
        match self {
            BreakerState::Closed => 0,
            BreakerState::Open { .. } => 1,
            BreakerState::HalfOpen => 2,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Inner {
    Closed,
    Open { until: Instant },
    HalfOpen { probe_started: Option<Instant> },
}

/// How one outcome weighs on the breaker.
enum Weight {
    Success,
    Failure,
    Neutral,
}

/// What a breaker watches for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watch {
    /// The dependency being down or drowning ([`ErrorClass::counts_for_breaker`]).
    Outage,
    /// The account behind the calls refused ([`ErrorClass::Account`]): one refusal
    /// holds back every call, and any answer that got past the account's check (a
    /// success, a refused argument, a body that broke the contract) proves it works
    /// again. What says nothing of the account (an outage, a throttle, refused
    /// credentials) is neutral.
    Account,
}

/// What an answer says of the account behind the call, for the account hold (here and
/// in the fleet's): `Some(false)` refused it, `Some(true)` got past its check (a
/// success, or a refusal of the arguments or of what was asked), `None` nothing (an
/// outage, a throttle, refused credentials, no answer).
pub fn account_verdict(outcome: Option<ErrorClass>) -> Option<bool> {
    match outcome {
        Some(ErrorClass::Account) => Some(false),
        None
        | Some(
            ErrorClass::ClientError
            | ErrorClass::ContractDrift
            | ErrorClass::Gone
            | ErrorClass::ToolError,
        ) => Some(true),
        Some(_) => None,
    }
}

fn weigh(watch: Watch, outcome: Option<ErrorClass>) -> Weight {
    if watch == Watch::Account {
        return match account_verdict(outcome) {
            Some(false) => Weight::Failure,
            Some(true) => Weight::Success,
            None => Weight::Neutral,
        };
    }
    match outcome {
        None => Weight::Success,
        Some(c) if c.counts_for_breaker() => Weight::Failure,
        Some(ErrorClass::RateLimited | ErrorClass::CircuitOpen | ErrorClass::BudgetExhausted) => {
            Weight::Neutral
        }
        Some(_) => Weight::Success,
    }
}

/// Circuit breaker for one dependency.
#[derive(Debug, Clone)]
pub struct CircuitBreaker {
    cfg: BreakerConfig,
    inner: Inner,
    consecutive: u32,
    counts: SlidingCounts,
    /// The current open period; doubles on failed probes, resets on close.
    open_for: Duration,
    /// Start of the current outage (first trip); meaningful while not Closed.
    outage_since: Option<Instant>,
    watch: Watch,
}

impl Default for CircuitBreaker {
    fn default() -> Self {
        CircuitBreaker::new(BreakerConfig::default())
    }
}

impl CircuitBreaker {
    /// A closed breaker.
    pub fn new(cfg: BreakerConfig) -> Self {
        CircuitBreaker {
            cfg,
            inner: Inner::Closed,
            consecutive: 0,
            counts: SlidingCounts::new(cfg.window),
            open_for: cfg.open_for,
            outage_since: None,
            watch: Watch::Outage,
        }
    }

    /// A breaker that holds calls back after one refusal of the account behind them
    /// ([`ErrorClass::Account`]), for `hold` at a time with a single trial call between
    /// holds (the hold does not grow: a topped-up balance should be found within one
    /// `hold`), and closes at the first answer that got past the account's check.
    pub fn for_account(hold: Duration) -> Self {
        let cfg = BreakerConfig {
            consecutive_failures: 1,
            open_for: hold,
            max_open_for: hold,
            ..BreakerConfig::default()
        };
        CircuitBreaker {
            watch: Watch::Account,
            ..CircuitBreaker::new(cfg)
        }
    }

    /// Changes the length of an account breaker's hold (a reloaded `account_hold`): the
    /// next hold lasts `hold`; one in progress keeps the end it was given, so a reload
    /// neither lets calls through to a refused account early nor holds them longer.
    pub fn set_hold(&mut self, hold: Duration) {
        self.cfg.open_for = hold;
        self.cfg.max_open_for = hold;
        self.open_for = hold;
    }

    /// Holds calls back until `within` from `now`, as the fleet said another replica's
    /// hold ends: should the fleet's shared state go away, this replica keeps holding
    /// until the same end, then sends its own trial call. A later end already held is
    /// kept.
    pub fn hold_for(&mut self, now: Instant, within: Duration) {
        let until = later(now, within);
        if let Inner::Open { until: held } = self.inner
            && held >= until
        {
            return;
        }
        if matches!(self.inner, Inner::Closed) {
            self.outage_since = Some(now);
        }
        self.inner = Inner::Open { until };
        self.consecutive = 0;
        self.counts.clear();
    }

    /// Closes at once: the fleet, which decides while it is up, holds nothing back (or
    /// gave this replica its one trial call, whose answer this breaker then learns as
    /// a closed one: refused again, it opens for the hold).
    pub fn release(&mut self) {
        if !matches!(self.inner, Inner::Closed) {
            self.close();
        }
    }

    /// May a request (first attempt or retry) be sent at `now`?
    pub fn admit(&mut self, now: Instant) -> Admission {
        if let Inner::Open { until } = self.inner {
            if now < until {
                return self.rejected(until.saturating_duration_since(now), now);
            }
            self.inner = Inner::HalfOpen {
                probe_started: None,
            };
        }
        match self.inner {
            Inner::Closed => Admission::Allowed,
            Inner::HalfOpen {
                probe_started: Some(started),
            } if now < later(started, self.cfg.probe_timeout) => {
                let free_at = later(started, self.cfg.probe_timeout);
                self.rejected(free_at.saturating_duration_since(now), now)
            }
            Inner::HalfOpen { .. } | Inner::Open { .. } => {
                self.inner = Inner::HalfOpen {
                    probe_started: Some(now),
                };
                Admission::Probe
            }
        }
    }

    fn rejected(&self, retry_in: Duration, now: Instant) -> Admission {
        Admission::Rejected {
            retry_in,
            open_since: self.outage_since.unwrap_or(now),
        }
    }

    /// Report the outcome of an admitted request (`None` = success).
    pub fn record(&mut self, now: Instant, outcome: Option<ErrorClass>) {
        let weight = weigh(self.watch, outcome);
        match (self.inner, weight) {
            (_, Weight::Neutral) => {
                // A throttled probe proves nothing: free the slot for another.
                if let Inner::HalfOpen { .. } = self.inner {
                    self.inner = Inner::HalfOpen {
                        probe_started: None,
                    };
                }
            }
            // Stragglers admitted before the trip say nothing new.
            (Inner::Open { .. }, _) => {}
            (Inner::HalfOpen { .. }, Weight::Success) => self.close(),
            (Inner::HalfOpen { .. }, Weight::Failure) => {
                self.open_for = self.open_for.saturating_mul(2).min(self.cfg.max_open_for);
                self.open(now);
            }
            (Inner::Closed, Weight::Success) => {
                self.consecutive = 0;
                self.counts.add(now, SUCCESSES, 1);
            }
            (Inner::Closed, Weight::Failure) => {
                self.consecutive = self.consecutive.saturating_add(1);
                self.counts.add(now, FAILURES, 1);
                if self.should_trip(now) {
                    self.outage_since = Some(now);
                    self.open_for = self.cfg.open_for.min(self.cfg.max_open_for);
                    self.open(now);
                }
            }
        }
    }

    fn should_trip(&mut self, now: Instant) -> bool {
        if self.consecutive >= self.cfg.consecutive_failures.max(1) {
            return true;
        }
        let [ok, failed] = self.counts.totals(now);
        let calls = ok.saturating_add(failed);
        calls >= u64::from(self.cfg.min_calls.max(1))
            && failed as f64 >= self.cfg.failure_rate * calls as f64
    }

    fn open(&mut self, now: Instant) {
        self.inner = Inner::Open {
            until: later(now, self.open_for),
        };
        self.consecutive = 0;
        self.counts.clear();
    }

    fn close(&mut self) {
        self.inner = Inner::Closed;
        self.consecutive = 0;
        self.counts.clear();
        self.open_for = self.cfg.open_for;
        self.outage_since = None;
    }

    /// Shortens the current open period to end at most `within` from `now` (a hold
    /// whose reason says it ends sooner than the breaker's own period); nothing when
    /// not open.
    pub fn reopen_within(&mut self, now: Instant, within: Duration) {
        if let Inner::Open { until } = self.inner {
            self.inner = Inner::Open {
                until: until.min(later(now, within)),
            };
        }
    }

    /// The state at `now` (an elapsed open period reads as half-open).
    pub fn state(&self, now: Instant) -> BreakerState {
        match self.inner {
            Inner::Closed => BreakerState::Closed,
            Inner::Open { until } if now < until => BreakerState::Open {
                down_for: self
                    .outage_since
                    .map_or(Duration::ZERO, |s| now.saturating_duration_since(s)),
                retry_in: until.saturating_duration_since(now),
            },
            Inner::Open { .. } | Inner::HalfOpen { .. } => BreakerState::HalfOpen,
        }
    }

    /// When the current outage began, if the breaker is not closed.
    pub fn down_since(&self) -> Option<Instant> {
        self.outage_since
    }
}

#[cfg(test)]
#[path = "breaker_tests.rs"]
mod tests;
