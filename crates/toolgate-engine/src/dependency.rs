//! Live state of one dependency, shared by all its tools: circuit breaker, retry
//! budget, quota pacer, latency window, the last advertised quota and the status page.
//!
//! One mutex per dependency, held for microseconds and never across an await: calls
//! to different dependencies never contend, and no lock is global.
//!
//! With `gateway.shared`, [`DependencyState::gate_fleet`] asks the fleet (Redis) for
//! the breaker and quota decision first, and every settled attempt is reported to it
//! in the background; the local state keeps learning from every reply, so it is ready
//! the moment Redis is not. Without it, no Redis code runs on the call path.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tokio::time::Instant;
use toolgate_resilience::{
    AdaptiveLimit, Admission, BreakerState, CircuitBreaker, ErrorClass, LatencyHistory,
    LatencySnapshot, LatencyWindow, Pace, Permit, QuotaPacer, RetryBudget,
};
use toolgate_signals::status_page::{Health, PageStatus};
use toolgate_signals::{Quota, Signals};

use crate::fleet::{
    self, AccountEnd, AttemptEnd, BudgetView, FleetAdmission, Keys, Record, Shared,
};
use crate::sync::lock;
use toolgate_config::Dependency;

/// Quota policies remembered per dependency. Policy names come from the upstream's
/// headers and become metric labels, so an upstream that invents a new name per
/// response must not grow the state or the label set without bound: beyond this, the
/// policy seen longest ago is forgotten.
pub const MAX_POLICIES: usize = fleet::MAX_POLICIES;

/// How long a call waits for a concurrency slot before asking again.
const LIMIT_POLL: Duration = Duration::from_millis(10);

/// A renewal an account refusal states sooner than this is not believed as the hold's
/// end (a `Retry-After: 0` on a spent account would make every call a trial): the
/// configured hold applies, as the shortest `account_hold` accepted is this too.
const MIN_STATED_RENEWAL: Duration = Duration::from_secs(1);

/// The last quota advertisement of one policy, with when it was seen.
#[derive(Debug, Clone)]
struct SeenQuota {
    quota: Quota,
    at: Instant,
}

/// Whose credentials a dependency's calls go with, and so whose budget the quota its
/// replies advertise is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credentials {
    /// The dependency's own configured credentials, the same for every caller: the
    /// quota, a throttle's wait and an account's refusal are every caller's.
    OneForEveryCaller,
    /// Each caller's own authority (`token_exchange`): what a reply says of a quota or
    /// a wait is the caller's own budget, which says nothing of another caller's.
    EachCallersOwn,
}

impl Credentials {
    /// The word `dependency_health` uses for whose budget the quota is.
    pub fn quota_owner(self) -> &'static str {
        match self {
            Credentials::OneForEveryCaller => "every_caller",
            Credentials::EachCallersOwn => "each_caller",
        }
    }
}

/// The status page's last answer.
#[derive(Debug, Clone)]
pub struct StatusReport {
    /// Parsed page, or `None` when it could not be read.
    pub page: Option<PageStatus>,
    /// Why it could not be read.
    pub error: Option<String>,
    /// When it was checked.
    pub checked_at: DateTime<Utc>,
}

#[derive(Debug)]
struct Inner {
    breaker: CircuitBreaker,
    budget: RetryBudget,
    pacer: QuotaPacer,
    latency: LatencyWindow,
    /// The last hour, a minute at a time (the console's chart).
    history: LatencyHistory,
    limit: AdaptiveLimit,
    quotas: Vec<SeenQuota>,
    /// The unit each policy's reset has been seen to count down in.
    countdowns: countdown::Countdowns,
    /// Shared so a per-call snapshot clones a pointer, not the page.
    status: Option<std::sync::Arc<StatusReport>>,
    /// When the breaker last opened, in wall-clock time, for messages ("since 10:02 UTC").
    down_since_wall: Option<DateTime<Utc>>,
    /// When the last reply arrived: once the latency window has emptied, the report
    /// shows the window as of then, with its age, rather than "no calls yet".
    last_reply: Option<Instant>,
    /// Until when the fleet's breaker is open, as of its last answer (reports only).
    fleet_open_until: Option<Instant>,
    /// Holds calls back after the account behind them was refused
    /// ([`CircuitBreaker::for_account`]).
    account: CircuitBreaker,
    /// How long a hold lasts between trial calls (`account_hold`; a reload changes it
    /// for the next hold).
    account_hold: Duration,
    /// When the refused allowance renews, as the refusal stated it.
    account_renews: Option<Instant>,
}

/// This dependency's part of the fleet's shared state.
#[derive(Debug)]
struct Fleet {
    shared: Shared,
    keys: std::sync::Arc<Keys>,
    budget: std::sync::Arc<BudgetView>,
}

/// Live state of a dependency.
#[derive(Debug)]
pub struct DependencyState {
    /// Its configuration.
    pub spec: std::sync::Arc<Dependency>,
    /// What its replies hold of the gateway's reply memory (at most half of it).
    pub replies: std::sync::Arc<toolgate_resilience::ReplyShare>,
    inner: Mutex<Inner>,
    fleet: Option<Fleet>,
    /// Its gauges, kept from their first use.
    pub(crate) series: crate::metrics::DependencySeries,
}

/// What the breaker, the concurrency limit and the pacer decided before an attempt.
#[derive(Debug)]
pub enum Gate<'a> {
    /// Send now; report what came back through [`Admitted::settle`].
    Go(Admitted<'a>),
    /// In a brownout, the adaptive concurrency limit is reached and the call's
    /// deadline leaves no room to wait: fail fast with `overloaded`.
    Saturated {
        /// The current limit.
        limit: u32,
    },
    /// Sleep, then ask again (nothing is held meanwhile).
    Wait(Duration),
    /// The quota pacer gave this attempt a place in line: sleep `wait`, then send
    /// without asking again. The admission is held (and given back if dropped).
    Queued {
        /// Until the attempt's place comes.
        wait: Duration,
        /// The admission to send with.
        admitted: Admitted<'a>,
    },
    /// Quota is gone for longer than the deadline: fail fast with `rate_limited`.
    QuotaExhausted {
        /// When quota returns.
        resets_in: Duration,
    },
    /// The breaker is open: fail fast with `circuit_open`.
    CircuitOpen {
        /// When the next probe may go.
        retry_in: Duration,
    },
    /// The account behind the calls was refused and the hold is on: fail fast with
    /// `account`.
    AccountHeld {
        /// When the allowance renews as the refusal stated, else the next trial call.
        retry_in: Duration,
    },
}

/// An attempt admitted by [`DependencyState::gate`]: it holds a pacer slot and, maybe,
/// a concurrency permit. [`Admitted::settle`] reports the attempt and gives both back.
/// Dropped unsettled — the agent's request was cancelled or its connection closed while
/// the attempt was in flight — it gives them back as "no response", so cancelled calls
/// can never hold a dependency at its concurrency limit (found under load: every
/// benchmark run that ended with calls in flight leaked their slots).
#[derive(Debug)]
#[must_use = "settle the attempt with what came back"]
pub struct Admitted<'a> {
    dependency: &'a DependencyState,
    permit: Option<Permit>,
    settled: bool,
    /// A call's first attempt earns retry budget once it is actually sent.
    first_attempt: bool,
    /// Admitted by the fleet (not the local pacer and breaker): whether this attempt
    /// holds the fleet's half-open probe token, and its id among the fleet's attempts.
    fleet_probe: Option<FleetTicket>,
}

/// How the fleet admitted an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FleetTicket {
    probe: bool,
    id: u64,
}

impl Admitted<'_> {
    /// Records what the attempt saw (see [`DependencyState::gate`]'s counterpart,
    /// `observe`): `class` is `None` for success, `latency` `None` when no response
    /// arrived. Returns the wait a throttling response asked for.
    pub fn settle(
        mut self,
        now: Instant,
        signals: Option<&Signals>,
        latency: Option<Duration>,
        class: Option<ErrorClass>,
    ) -> Option<Duration> {
        self.settled = true;
        let permit = self.permit.take();
        let ticket = Ticket {
            first_attempt: self.first_attempt,
            fleet_probe: self.fleet_probe,
        };
        self.dependency
            .observe(now, signals, latency, class, permit, ticket)
    }
}

impl Admitted<'_> {
    /// Reads the reply's quota resets in the unit this dependency counts them down in
    /// (see [`countdown`]): before anything is told or learned from them.
    pub fn read_countdowns(&self, now: Instant, signals: &mut Signals) {
        if signals.quota.iter().any(|q| q.reset_after.is_some()) {
            lock(&self.dependency.inner).countdowns.calibrate(
                now,
                &mut signals.quota,
                MAX_POLICIES,
            );
        }
    }

    /// Whether the fleet admitted the attempt (rather than this replica alone, as when
    /// Redis answered too late).
    #[cfg(all(test, feature = "redis"))]
    pub(crate) fn fleet_admitted(&self) -> bool {
        self.fleet_probe.is_some()
    }

    /// The attempt was never sent (the request could not be formed): the pacer place
    /// and the concurrency permit go back, and nothing is learned — no breaker failure,
    /// no latency sample, no quota spent — so one caller's bad arguments cannot open the
    /// circuit for everyone.
    pub fn unsent(mut self) {
        self.settled = true;
        self.give_back();
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        self.give_back();
    }
}

impl Admitted<'_> {
    /// The attempt was not sent: its permit and its pacer place go back; the fleet
    /// gets its in-flight count (and a probe token) back.
    fn give_back(&mut self) {
        let dependency = self.dependency;
        {
            let mut g = lock(&dependency.inner);
            if let Some(p) = self.permit.take() {
                g.limit.forget(p);
            }
            if self.fleet_probe.is_none() {
                g.pacer.complete(Instant::now(), None);
            }
        }
        if let (Some(ticket), Some(fleet)) = (self.fleet_probe, &dependency.fleet) {
            fleet.shared.record(
                &fleet.keys,
                Record {
                    outcome: AttemptEnd::Unsent,
                    probe: ticket.probe,
                    id: Some(ticket.id),
                    first_attempt: false,
                    throttle: None,
                    adverts: Vec::new(),
                    account: AccountEnd::Nothing,
                },
                &fleet.budget,
            );
        }
    }
}

/// How an attempt was admitted, for [`DependencyState::observe`].
#[derive(Debug, Clone, Copy)]
struct Ticket {
    first_attempt: bool,
    /// See [`Admitted`]'s field of the same name.
    fleet_probe: Option<FleetTicket>,
}

/// A point-in-time view for notes, `_meta` and `dependency_health`.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Most constraining first; remaining and reset adjusted to now.
    pub quotas: Vec<Quota>,
    /// How long ago each of `quotas` was advertised (same order); `None` for a policy
    /// only the fleet has seen, whose count is the fleet's as of now.
    pub quota_ages: Vec<Option<Duration>>,
    /// Latency window.
    pub latency: LatencySnapshot,
    /// `Some(age)` when the live window is empty and `latency` is the window as of the
    /// last reply, `age` ago (detailed snapshots only).
    pub latency_age: Option<Duration>,
    /// How long ago the last reply arrived.
    pub last_reply_age: Option<Duration>,
    /// Breaker.
    pub breaker: BreakerState,
    /// Down since (wall clock), while the breaker is not closed.
    pub down_since: Option<DateTime<Utc>>,
    /// While calls are held back for a refused account, until when they may pass.
    pub account_held: Option<Duration>,
    /// While a throttle's stated wait (`Retry-After`, a used-up window's reset) holds
    /// calls back, how much of it is left.
    pub throttled: Option<Duration>,
    /// Status page.
    pub status: Option<std::sync::Arc<StatusReport>>,
    /// Whether latency percentiles were computed (not on the per-call path).
    pub detailed: bool,
    /// Whose budget `quotas` is: with each caller's own credentials the dependency
    /// keeps none, and a call's snapshot holds what its own reply said
    /// ([`Snapshot::with_callers_own_quotas`]).
    pub credentials: Credentials,
}

impl DependencyState {
    /// Fresh state with the default breaker (5 consecutive failures), budget (20 %),
    /// pacer, latency window and concurrency limit.
    pub fn new(spec: std::sync::Arc<Dependency>) -> DependencyState {
        DependencyState::with_shared(spec, None)
    }

    /// Fresh state that, with `shared`, decides with the fleet while Redis is up.
    pub fn with_shared(
        spec: std::sync::Arc<Dependency>,
        shared: Option<Shared>,
    ) -> DependencyState {
        let fleet = shared.map(|shared| Fleet {
            keys: std::sync::Arc::new(Keys::new(shared.prefix(), &spec.name)),
            shared,
            budget: std::sync::Arc::default(),
        });
        let account_hold = spec.account_hold;
        DependencyState {
            fleet,
            spec,
            series: crate::metrics::DependencySeries::default(),
            replies: std::sync::Arc::default(),
            inner: Mutex::new(Inner {
                breaker: CircuitBreaker::default(),
                budget: RetryBudget::default(),
                pacer: QuotaPacer::default(),
                latency: LatencyWindow::default(),
                history: LatencyHistory::new(Instant::now()),
                limit: AdaptiveLimit::default(),
                quotas: Vec::new(),
                countdowns: countdown::Countdowns::default(),
                status: None,
                down_since_wall: None,
                last_reply: None,
                fleet_open_until: None,
                account: CircuitBreaker::for_account(account_hold),
                account_hold,
                account_renews: None,
            }),
        }
    }

    /// [`DependencyState::gate`], with the fleet deciding account hold, breaker and
    /// quota while the shared state is up: one atomic step in Redis checks the fleet's
    /// account hold, then its breaker, then every advertised policy, and takes from all
    /// of them only if all can serve. This replica's own account hold is asked first
    /// (it holds to the end the fleet last told it, so Redis going away mid-hold fails
    /// safe). The local concurrency limit still applies. With no shared state, or while
    /// it is down, this is [`DependencyState::gate`].
    pub async fn gate_fleet(
        &self,
        now: Instant,
        deadline_left: Duration,
        first_attempt: bool,
    ) -> Gate<'_> {
        let Some(fleet) = &self.fleet else {
            return self.gate(now, deadline_left, first_attempt);
        };
        if let Some(retry_in) = self.account_hold(now) {
            return Gate::AccountHeld { retry_in };
        }
        let Some(verdict) = fleet.shared.admit(&fleet.keys, deadline_left).await else {
            return self.gate(now, deadline_left, first_attempt);
        };
        let mut g = lock(&self.inner);
        let probe = match verdict {
            FleetAdmission::AccountHeld {
                retry_in,
                hold_left,
            } => {
                // Held here too, to the fleet's end, should the fleet go away meanwhile.
                if self.holds_account() && !hold_left.is_zero() {
                    g.account.hold_for(now, hold_left);
                    g.account_renews = now.checked_add(retry_in);
                }
                return Gate::AccountHeld { retry_in };
            }
            FleetAdmission::Open(retry_in) => {
                g.fleet_open_until = Some(now + retry_in);
                if g.down_since_wall.is_none() {
                    g.down_since_wall = Some(Utc::now());
                }
                return Gate::CircuitOpen { retry_in };
            }
            FleetAdmission::Wait(d) => return Gate::Wait(d),
            FleetAdmission::Exhausted(resets_in) => return Gate::QuotaExhausted { resets_in },
            FleetAdmission::Go { probe, id } => FleetTicket { probe, id },
        };
        if g.fleet_open_until.take().is_some() && !probe.probe {
            g.down_since_wall = None;
        }
        // The fleet decided the account hold: it holds nothing back, or this attempt is
        // its one trial call. This replica's own hold is over (it was asked first).
        g.account.release();
        g.account_renews = None;
        let permit = g.limit.try_acquire();
        let admitted = Admitted {
            dependency: self,
            permit,
            settled: false,
            first_attempt,
            fleet_probe: Some(probe),
        };
        if admitted.permit.is_none() && g.latency.brownout() {
            let limit = g.limit.limit();
            drop(g);
            // Dropping the admission gives the fleet its place back.
            drop(admitted);
            return if deadline_left > LIMIT_POLL {
                Gate::Wait(LIMIT_POLL)
            } else {
                Gate::Saturated { limit }
            };
        }
        Gate::Go(admitted)
    }

    /// Asks the breaker, then the pacer, whether an attempt may go now. The breaker
    /// comes first: a dependency known to be down should not even hold quota.
    pub fn gate(&self, now: Instant, deadline_left: Duration, first_attempt: bool) -> Gate<'_> {
        if let Some(retry_in) = self.account_hold(now) {
            return Gate::AccountHeld { retry_in };
        }
        let mut g = lock(&self.inner);
        if let Admission::Rejected { retry_in, .. } = g.breaker.admit(now) {
            return Gate::CircuitOpen { retry_in };
        }
        // The adaptive limit always learns, but only holds calls back in a brownout:
        // a slow dependency gets less concurrency, a healthy one is never queued.
        let permit = g.limit.try_acquire();
        if permit.is_none() && g.latency.brownout() {
            return if deadline_left > LIMIT_POLL {
                Gate::Wait(LIMIT_POLL)
            } else {
                Gate::Saturated {
                    limit: g.limit.limit(),
                }
            };
        }
        let gate = match g.pacer.admit(now, deadline_left) {
            pace @ (Pace::Go | Pace::Queued(_)) => {
                // Asked last, so a trial call is only claimed by an attempt that goes.
                if let Some(retry_in) = g.account_admit(now, self.holds_account()) {
                    g.pacer.complete(now, None);
                    if let Some(p) = permit {
                        g.limit.forget(p);
                    }
                    return Gate::AccountHeld { retry_in };
                }
                let admitted = Admitted {
                    dependency: self,
                    permit,
                    settled: false,
                    first_attempt,
                    fleet_probe: None,
                };
                return match pace {
                    Pace::Queued(wait) => Gate::Queued { wait, admitted },
                    _ => Gate::Go(admitted),
                };
            }
            Pace::Wait(d) => Gate::Wait(d),
            Pace::Exhausted { resets_in } => Gate::QuotaExhausted { resets_in },
        };
        if let Some(p) = permit {
            g.limit.forget(p);
        }
        gate
    }

    /// Records what one attempt saw. `class` is `None` for success; `latency` is
    /// `None` when no response arrived. Returns the wait a throttling response stated
    /// (`None` when it stated none: the pacer then holds off a second, but that second
    /// is a guess and is not handed on as the upstream's word).
    fn observe(
        &self,
        now: Instant,
        signals: Option<&Signals>,
        latency: Option<Duration>,
        class: Option<ErrorClass>,
        permit: Option<Permit>,
        ticket: Ticket,
    ) -> Option<Duration> {
        let Ticket {
            first_attempt,
            fleet_probe,
        } = ticket;
        let mut g = lock(&self.inner);
        // Only first attempts earn retry budget (as in tower): retries must not fund
        // retries. Earned when sent, so a request that could not be formed earns none.
        if first_attempt {
            g.budget.record_request(now);
        }
        match (permit, latency) {
            (Some(p), Some(l)) => g.limit.release(p, now, l),
            (Some(p), None) => g.limit.forget(p),
            (None, _) => {}
        }
        // A reply to one caller's own credentials advertises that caller's budget:
        // it paces, holds back and is remembered for no other caller.
        let shared = self.credentials() == Credentials::OneForEveryCaller;
        let signals_for_all = signals.filter(|_| shared);
        let quota = signals_for_all.and_then(|s| pacer_quota(&s.quota));
        if fleet_probe.is_some() {
            // Admitted by the fleet, not the pacer: the pacer only learns the advert,
            // so it is current when the fleet is not there.
            if let Some(q) = quota {
                g.pacer.observe(now, q);
            }
        } else {
            g.pacer.complete(now, quota);
        }
        g.learn_health(now, latency, class);
        // A full count (instances, projects, storage) refuses only the calls that would
        // add to it: the account still reads and deletes, so it neither starts the hold
        // nor, being a refusal, ends one.
        let holdings = signals.and_then(|s| s.recovery)
            == Some(toolgate_signals::recovery::Recovery::Holdings);
        let account = if self.holds_account() && !holdings {
            g.learn_account(now, class, signals.and_then(|s| s.retry_after))
        } else {
            AccountEnd::Nothing
        };
        // The wait the upstream stated, for the caller; and how long the pacer holds
        // the dependency, which is a second when none was stated.
        let (stated, throttle) = match signals {
            Some(s) if shared => {
                g.remember_quotas(&s.quota, now);
                g.throttle(s, class, now)
            }
            // The caller's own wait, told to its call only.
            Some(s) => (stated_wait(s, class), None),
            None => (None, None),
        };
        drop(g);
        if let Some(fleet) = &self.fleet {
            fleet.share(
                signals_for_all,
                class,
                fleet_probe,
                first_attempt,
                (throttle, account),
            );
        }
        stated
    }

    /// While the breaker is open, how long until its next probe. A call that waited
    /// for its place in line asks before sending: the dependency may have gone down
    /// meanwhile, and a queued call must not add to the failures.
    pub fn open_for(&self, now: Instant) -> Option<Duration> {
        let g = lock(&self.inner);
        if let Some(until) = g.fleet_open_until.filter(|u| *u > now) {
            return Some(until - now);
        }
        match g.breaker.state(now) {
            BreakerState::Open { retry_in, .. } => Some(retry_in),
            _ => None,
        }
    }

    /// Whose credentials this dependency's calls go with: each caller's own when the
    /// caller's authority is exchanged for the call (`token_exchange`).
    pub fn credentials(&self) -> Credentials {
        if self.spec.token_exchange.is_some() {
            Credentials::EachCallersOwn
        } else {
            Credentials::OneForEveryCaller
        }
    }

    /// Whether an account refusal holds this dependency's calls back: not when each
    /// caller's own authority is exchanged for the call, as one user's spent account
    /// says nothing of another's.
    fn holds_account(&self) -> bool {
        self.credentials() == Credentials::OneForEveryCaller
    }

    /// While calls are held back for a refused account, until when (checked before
    /// anything else is asked, so a held call costs no pacer place nor fleet request).
    fn account_hold(&self, now: Instant) -> Option<Duration> {
        if !self.holds_account() {
            return None;
        }
        lock(&self.inner).account_held(now)
    }

    /// Asks the budget for one retry.
    ///
    /// With the fleet up, the fleet's ratio decides (from its totals as of the last
    /// settled attempt, counted at once here and in Redis); the local budget counts
    /// a granted retry too, so it is current when the fleet is not there.
    pub fn withdraw_retry(&self, now: Instant) -> bool {
        match &self.fleet {
            Some(fleet) if fleet.shared.is_up() => {
                if !fleet.budget.try_withdraw() {
                    return false;
                }
                fleet.shared.count_retry(&fleet.keys);
                // Counted, whatever the local budget would have said: the fleet decided.
                let _ = lock(&self.inner).budget.try_withdraw(now);
                true
            }
            _ => lock(&self.inner).budget.try_withdraw(now),
        }
    }

    /// The fleet's retry-budget totals as this replica last read them.
    pub fn fleet_budget_totals(&self) -> Option<(u64, u64)> {
        self.fleet.as_ref().map(|f| f.budget.totals())
    }

    /// Whether the dependency is in a brownout (timeouts are not retried then).
    pub fn in_brownout(&self) -> bool {
        lock(&self.inner).latency.brownout()
    }

    /// The length of the next account hold (a reload's `account_hold`): a hold in
    /// progress keeps its end, so a reload neither lets calls through to a refused
    /// account early nor holds them longer than it was told.
    pub fn set_account_hold(&self, hold: Duration) {
        let mut g = lock(&self.inner);
        g.account.set_hold(hold);
        g.account_hold = hold;
    }

    /// Stores a status page result.
    pub fn set_status(&self, report: StatusReport) {
        lock(&self.inner).status = Some(std::sync::Arc::new(report));
    }

    /// The last hour's latency a minute at a time, oldest first (`None`: no reply
    /// that minute), for the console's chart and `/admin/health`.
    pub fn latency_history(&self, now: Instant) -> Vec<Option<toolgate_resilience::Minute>> {
        lock(&self.inner).history.minutes(now)
    }

    /// A consistent view of everything, latency percentiles included.
    pub fn snapshot(&self, now: Instant) -> Snapshot {
        self.snapshot_with(now, true)
    }

    /// [`DependencyState::snapshot`] for a report (`dependency_health`,
    /// `/admin/health`, the console): in a fleet whose shared state is up, what the
    /// fleet knows — its breaker, account hold, throttle and quota counts — so that a
    /// replica no call reached lately reports what its next call would meet, not what
    /// it last saw. Redis down, or no fleet: this replica's own view.
    pub async fn report_snapshot(&self, now: Instant) -> Snapshot {
        let local = self.snapshot(now);
        let Some(fleet) = &self.fleet else {
            return local;
        };
        match fleet.shared.view(&fleet.keys).await {
            Some(view) => local.with_fleet(view),
            None => local,
        }
    }

    /// The view one call needs for its notes and `_meta`: everything but the
    /// latency percentiles, whose sort would otherwise run on every call.
    pub fn call_snapshot(&self, now: Instant) -> Snapshot {
        self.snapshot_with(now, false)
    }

    fn snapshot_with(&self, now: Instant, detailed: bool) -> Snapshot {
        let g = lock(&self.inner);
        let mut quotas: Vec<(Quota, Option<Duration>)> = g
            .quotas
            .iter()
            .map(|s| {
                let mut q = s.quota.clone();
                let elapsed = now.saturating_duration_since(s.at);
                q.reset_after = q.reset_after.map(|r| r.saturating_sub(elapsed));
                (q, Some(elapsed))
            })
            .collect();
        quotas.sort_by(|a, b| fraction_left(&a.0).total_cmp(&fraction_left(&b.0)));
        let (quotas, quota_ages) = quotas.into_iter().unzip();
        let breaker = match g.fleet_open_until.filter(|u| *u > now) {
            Some(until) => BreakerState::Open {
                down_for: g
                    .down_since_wall
                    .and_then(|d| (Utc::now() - d).to_std().ok())
                    .unwrap_or_default(),
                retry_in: until - now,
            },
            None => g.breaker.state(now),
        };
        let mut latency = if detailed {
            g.latency.snapshot(now)
        } else {
            g.latency.snapshot_without_percentiles(now)
        };
        let last_reply_age = g.last_reply.map(|t| now.saturating_duration_since(t));
        let mut latency_age = None;
        // The window forgets samples after a while; what it knew is still the best
        // account of the dependency, so the report shows it as of the last reply. The
        // window only evicts when it records, so it still holds those samples.
        if detailed
            && latency.samples == 0
            && let (Some(at), Some(age)) = (g.last_reply, last_reply_age)
        {
            latency = g.latency.snapshot(at);
            latency_age = Some(age);
        }
        Snapshot {
            quotas,
            quota_ages,
            latency,
            latency_age,
            last_reply_age,
            detailed,
            breaker,
            down_since: g.down_since_wall,
            account_held: g.account_held(now),
            throttled: g.pacer.blocked_for(now),
            status: g.status.clone(),
            credentials: self.credentials(),
        }
    }
}

impl Snapshot {
    /// For a dependency called with each caller's own credentials, the quotas are
    /// those the call's own last reply advertised (the dependency keeps none): the
    /// caller is told its own budget and no one else's.
    pub fn with_callers_own_quotas(mut self, own: &[Quota]) -> Snapshot {
        if self.credentials == Credentials::EachCallersOwn {
            let mut quotas = own.to_vec();
            quotas.sort_by(|a, b| fraction_left(a).total_cmp(&fraction_left(b)));
            self.quota_ages = vec![Some(Duration::ZERO); quotas.len()];
            self.quotas = quotas;
        }
        self
    }

    /// What this snapshot's gauges show.
    pub fn gauges(&self) -> crate::metrics::DependencyReading<'_> {
        crate::metrics::DependencyReading {
            quotas: &self.quotas,
            circuit: self.breaker.as_gauge(),
            brownout: self.latency.brownout,
            account_held: self.account_held.is_some(),
        }
    }

    /// Overall health: down when calls are held back (the breaker is open, or the
    /// account behind them was refused) or the status page says so; degraded while a
    /// throttle's wait holds them.
    pub fn health(&self) -> Health {
        let page = self
            .status
            .as_ref()
            .and_then(|s| s.page.as_ref())
            .map(|p| p.health);
        if matches!(self.breaker, BreakerState::Open { .. })
            || self.account_held.is_some()
            || page == Some(Health::Down)
        {
            Health::Down
        } else if self.latency.brownout
            || self.throttled.is_some()
            || matches!(self.breaker, BreakerState::HalfOpen)
            || page == Some(Health::Degraded)
            || self
                .quotas
                .first()
                .is_some_and(|q| q.remaining == Some(0) && q.reset_after != Some(Duration::ZERO))
        {
            Health::Degraded
        } else if self.latency.samples == 0 && page.is_none() {
            Health::Unknown
        } else {
            Health::Healthy
        }
    }

    /// JSON for `_meta` and `dependency_health`.
    pub fn to_json(&self) -> Value {
        let mut latency = json!(self.latency);
        if !self.detailed
            && let Some(m) = latency.as_object_mut()
        {
            for key in ["p50_ms", "p90_ms", "p95_ms", "p99_ms"] {
                m.remove(key);
            }
        }
        if let (Some(age), Some(m)) = (self.latency_age, latency.as_object_mut()) {
            m.insert("as_of_s_ago".into(), json!(age.as_secs()));
        }
        let quota: Vec<Value> = self
            .quotas
            .iter()
            .zip(
                self.quota_ages
                    .iter()
                    .copied()
                    .chain(std::iter::repeat(None)),
            )
            .map(|(q, age)| {
                let mut v = quota_json(q);
                v["seen_s_ago"] = json!(age.map(|a| a.as_secs()));
                v
            })
            .collect();
        json!({
            "status": self.health(),
            "quota": quota,
            "quota_owner": self.credentials.quota_owner(),
            "latency": latency,
            "last_reply_s_ago": self.last_reply_age.map(|a| a.as_secs()),
            "breaker": self.breaker,
            "account_held": self.account_held.map(|d| json!({
                "retry_in_s": d.as_secs(),
            })),
            "throttled": self.throttled.map(|d| json!({
                // Rounded up: a wait of 0.4 s is not over.
                "retry_in_s": d.as_secs() + u64::from(d.subsec_nanos() > 0),
            })),
            "down_since": self.down_since.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            "status_page": self.status.as_ref().map(|s| json!({
                "health": s.page.as_ref().map(|p| p.health),
                "indicator": s.page.as_ref().map(|p| p.indicator.clone()),
                "description": s.page.as_ref().and_then(|p| p.description.clone()),
                "error": s.error,
                "checked_at": s.checked_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            })),
        })
    }
}

fn quota_json(q: &Quota) -> Value {
    json!({
        "policy": q.policy,
        "limit": q.limit,
        "remaining": q.remaining,
        "resets_in_s": q.reset_after.map(|d| d.as_secs_f64()),
        "window_s": q.window.map(|d| d.as_secs_f64()),
    })
}

/// The wait a throttled reply's quotas state when it sent no `Retry-After`: the latest
/// reset of the policies it says are used up, or, when none says how much is left
/// (Mapbox and Contentful send a limit and a reset on their 429s, no remaining), the
/// soonest reset it gives.
///
/// `Retry-After`, when sent, is preferred by the caller: a quota's reset says when the
/// whole budget is back (OpenAI-style token windows restore over minutes), while the
/// server's `Retry-After` says when the next request is allowed.
fn exhausted_reset(quotas: &[Quota]) -> Option<Duration> {
    let used_up = quotas
        .iter()
        .filter(|q| q.remaining == Some(0))
        .filter_map(|q| q.reset_after)
        .max();
    used_up.or_else(|| {
        quotas
            .iter()
            .filter(|q| q.remaining.is_none())
            .filter_map(|q| q.reset_after)
            .min()
    })
}

impl Inner {
    /// The latency windows, the brownout history and the breaker learn one reply.
    fn learn_health(&mut self, now: Instant, latency: Option<Duration>, class: Option<ErrorClass>) {
        if let Some(l) = latency {
            let ok = class.is_none_or(|c| !c.counts_for_breaker());
            self.latency.record(now, l, ok);
            let baseline = self.latency.baseline();
            self.history.record(now, l, ok, baseline);
            self.last_reply = Some(now);
        }
        let was_closed = matches!(self.breaker.state(now), BreakerState::Closed);
        self.breaker.record(now, class);
        if was_closed && !matches!(self.breaker.state(now), BreakerState::Closed) {
            self.down_since_wall = Some(Utc::now());
        } else if matches!(self.breaker.state(now), BreakerState::Closed) {
            self.down_since_wall = None;
        }
    }

    /// While the account hold is on (between trial calls), until when calls may pass:
    /// the renewal the refusal stated, else the next trial call.
    fn account_held(&self, now: Instant) -> Option<Duration> {
        let BreakerState::Open { retry_in, .. } = self.account.state(now) else {
            return None;
        };
        let renews = self
            .account_renews
            .map(|at| at.saturating_duration_since(now))
            .unwrap_or_default();
        Some(retry_in.max(renews))
    }

    /// Claims the account hold's admission for an attempt about to go: `Some` when it
    /// is held back (the hold is on, or its single trial call is already out).
    fn account_admit(&mut self, now: Instant, holds: bool) -> Option<Duration> {
        if !holds {
            return None;
        }
        match self.account.admit(now) {
            Admission::Rejected { retry_in, .. } => {
                let renews = self
                    .account_renews
                    .map(|at| at.saturating_duration_since(now))
                    .unwrap_or_default();
                Some(retry_in.max(renews))
            }
            Admission::Allowed | Admission::Probe => None,
        }
    }

    /// The account hold learns one reply: an account refusal starts it (until the
    /// renewal the reply stated, if it stated one), the first answer that got past
    /// the account's check ends it. Returns what the fleet is told.
    fn learn_account(
        &mut self,
        now: Instant,
        class: Option<ErrorClass>,
        stated: Option<Duration>,
    ) -> AccountEnd {
        self.account.record(now, class);
        let end = match toolgate_resilience::account_verdict(class) {
            Some(false) => {
                let (hold, told) = account_hold_for(self.account_hold, stated);
                self.account_renews = now.checked_add(told);
                self.account.reopen_within(now, hold);
                AccountEnd::Refused { hold, told }
            }
            Some(true) => AccountEnd::Passed,
            None => AccountEnd::Nothing,
        };
        if matches!(self.account.state(now), BreakerState::Closed) {
            self.account_renews = None;
        }
        end
    }

    /// The reply's quotas, newest per policy, at most [`MAX_POLICIES`] of them.
    fn remember_quotas(&mut self, quotas: &[Quota], now: Instant) {
        for q in quotas {
            if self.quotas.iter().any(|seen| overtaken(seen, q, now)) {
                continue;
            }
            self.quotas.retain(|seen| seen.quota.policy != q.policy);
            if self.quotas.len() >= MAX_POLICIES
                && let Some(oldest) = (0..self.quotas.len()).min_by_key(|&i| self.quotas[i].at)
            {
                self.quotas.remove(oldest);
            }
            self.quotas.push(SeenQuota {
                quota: q.clone(),
                at: now,
            });
        }
    }

    /// The wait a throttling reply stated (for the caller), and how long the pacer now
    /// holds the dependency (a second when none was stated).
    fn throttle(
        &mut self,
        s: &Signals,
        class: Option<ErrorClass>,
        now: Instant,
    ) -> (Option<Duration>, Option<Duration>) {
        let mut stated = None;
        let mut throttle = None;
        if s.rate_limited || class == Some(ErrorClass::RateLimited) {
            stated = stated_wait(s, class);
            let wait = stated.unwrap_or(Duration::from_secs(1));
            self.pacer.throttled(now, wait);
            throttle = Some(wait);
        } else if class.is_none()
            && let Some(wait) = s.next_call_after.filter(|w| !w.is_zero())
        {
            // A success that asks the next call to wait (Stack Exchange's `backoff`):
            // nothing was refused, but the next call is, if it goes sooner. It is
            // held, or told it cannot go in time, like one after a throttle.
            self.pacer.throttled(now, wait);
            throttle = Some(wait);
        }
        (stated, throttle)
    }
}

/// The wait a throttling reply stated: its `Retry-After`, else the reset of the quota
/// it says is used up. `None` for a reply that throttled nothing.
fn stated_wait(s: &Signals, class: Option<ErrorClass>) -> Option<Duration> {
    if s.rate_limited || class == Some(ErrorClass::RateLimited) {
        s.retry_after.or_else(|| exhausted_reset(&s.quota))
    } else {
        None
    }
}

/// How long an account refusal holds calls back, and when it is told the account
/// renews: a renewal the refusal stated is the hold's end when it is sooner than the
/// configured hold (and at least [`MIN_STATED_RENEWAL`]); a later one is told, but the
/// trial call still goes after `hold`, in case the owner acts first.
fn account_hold_for(hold: Duration, stated: Option<Duration>) -> (Duration, Duration) {
    match stated.filter(|w| *w >= MIN_STATED_RENEWAL) {
        Some(w) if w < hold => (w, w),
        Some(w) => (hold, w),
        None => (hold, hold),
    }
}

impl Fleet {
    /// What a reply said, told to the fleet: `said` is the pacer's throttle and what
    /// the reply said of the account.
    fn share(
        &self,
        signals: Option<&Signals>,
        class: Option<ErrorClass>,
        fleet_probe: Option<FleetTicket>,
        first_attempt: bool,
        said: (Option<Duration>, AccountEnd),
    ) {
        let (throttle, account) = said;
        let probe = fleet_probe.is_some_and(|t| t.probe);
        // Replies reach the fleet even when the local pacer admitted the attempt
        // (Redis was down then): what the upstream said is worth sharing.
        let adverts = signals.map_or_else(Vec::new, |s| {
            s.quota
                .iter()
                .filter_map(|q| {
                    Some(fleet::Advert {
                        policy: q.policy.clone(),
                        remaining: q.remaining?,
                        limit: q.limit.unwrap_or(0),
                        reset_after: q.reset_after?,
                    })
                })
                .collect()
        });
        self.shared.record(
            &self.keys,
            Record {
                outcome: AttemptEnd::of(class),
                probe,
                id: fleet_probe.map(|t| t.id),
                first_attempt,
                throttle,
                adverts,
                account,
            },
            &self.budget,
        );
    }
}

/// Within one window the server's count only goes down: a reply advertising more left
/// than one already seen for the same policy and reset is an older reply that arrived
/// later (concurrent calls), and must not make the quota look refilled — that is how a
/// "used up" failure came to sit beside "8 of 30 requests left".
fn overtaken(seen: &SeenQuota, q: &Quota, now: Instant) -> bool {
    /// Resets are often whole seconds; two replies of one window may differ by one.
    const SAME_WINDOW: Duration = Duration::from_millis(1500);
    if seen.quota.policy != q.policy {
        return false;
    }
    let (Some(old), Some(new)) = (seen.quota.remaining, q.remaining) else {
        return false;
    };
    let (Some(old_reset), Some(new_reset)) = (seen.quota.reset_after, q.reset_after) else {
        return false;
    };
    // Absurd resets (far past any Instant) are never "the same window".
    let (Some(old_at), Some(new_at)) = (seen.at.checked_add(old_reset), now.checked_add(new_reset))
    else {
        return false;
    };
    let apart = old_at.max(new_at) - old_at.min(new_at);
    apart <= SAME_WINDOW && new > old
}

/// Remaining / limit (1.0 when unknown), to sort the most constraining policy first.
fn fraction_left(q: &Quota) -> f64 {
    match (q.remaining, q.limit) {
        (Some(r), Some(l)) if l > 0 => r as f64 / l as f64,
        (Some(0), _) => 0.0,
        _ => 1.0,
    }
}

/// The pacer paces on the most constraining advertised policy that has numbers.
fn pacer_quota(quotas: &[Quota]) -> Option<toolgate_resilience::Quota> {
    quotas
        .iter()
        .filter(|q| q.remaining.is_some() && q.reset_after.is_some())
        .min_by(|a, b| fraction_left(a).total_cmp(&fraction_left(b)))
        .map(|q| toolgate_resilience::Quota {
            remaining: q.remaining.unwrap_or(0),
            limit: q.limit,
            reset_after: q.reset_after.unwrap_or_default(),
        })
}

mod countdown;
mod fleet_view;

#[cfg(test)]
mod tests;
