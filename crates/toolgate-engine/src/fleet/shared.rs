//! The connection to the fleet's Redis: the admission, record and retry scripts, and
//! the background check that marks the shared state down and up again.

mod agent;
mod learned;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::sync::{read, write};
use prometheus_client::metrics::gauge::Gauge;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};
use toolgate_resilience::BreakerConfig;

use super::{
    AccountEnd, AttemptEnd, BUDGET_WINDOW_S, BudgetView, FleetAdmission, FleetView, Keys,
    MAX_POLICIES, OP_TIMEOUT, Record,
};

/// How often a replica checks whether Redis is reachable.
const CHECK_EVERY: Duration = Duration::from_millis(500);
/// How long the check waits for PING: a Redis that takes longer is as good as down.
const PING_TIMEOUT: Duration = Duration::from_secs(1);
/// Operations that fail in a row before the replica switches to local state. One
/// slow answer on a busy machine falls back for that call only; a dead Redis refuses
/// connections at once, so the few calls it takes to notice cost no timeout.
const FAILURES_TO_DOWN: u32 = 3;
/// Added to every advertised reset, as the local pacer does: resets are often whole
/// seconds rounded down.
const RESET_SLACK: Duration = Duration::from_secs(1);
/// An attempt in flight longer than this is forgotten (its replica died, or its record
/// was lost while Redis was away): no call's deadline is this long.
const STALE_ATTEMPT: Duration = Duration::from_secs(120);
/// Two adverts whose resets differ by less than this are of the same window.
const SAME_WINDOW: Duration = Duration::from_millis(1500);
/// How long to wait for in-flight replies when a window rolled over and its new reset
/// is not known yet.
const POLL: Duration = Duration::from_millis(100);

impl AttemptEnd {
    fn code(self) -> u8 {
        match self {
            AttemptEnd::Success => 0,
            AttemptEnd::Failure => 1,
            AttemptEnd::Neutral => 2,
            AttemptEnd::Unsent => 3,
        }
    }
}

impl BudgetView {
    fn set(&self, requests: u64, retries: u64) {
        *crate::sync::lock(&self.totals) = (requests, retries);
    }
}

/// The connection to the fleet's Redis and whether it is up. Cheap to clone.
#[derive(Clone)]
pub struct Shared {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may hold a password.
        f.debug_struct("Shared")
            .field("up", &self.is_up())
            .field("prefix", &self.inner.prefix)
            .finish_non_exhaustive()
    }
}

struct Inner {
    conn: RwLock<Option<ConnectionManager>>,
    up: Reachability,
    /// Operations failed in a row.
    failures: AtomicU32,
    gauge: Gauge,
    prefix: String,
    /// The probe token's value: which replica holds the fleet's probe. Also the
    /// prefix of this replica's attempt ids.
    token: String,
    /// The next attempt id.
    next_id: std::sync::atomic::AtomicU64,
    breaker: BreakerConfig,
    admit: Script,
    record: Script,
    retry: Script,
    view: Script,
}

impl Shared {
    /// Connects to `url` in the background (a Redis that is down at start is the same
    /// as one that goes down later: calls run on local state meanwhile). `gauge` is
    /// `toolgate_shared_state_up`. Fails only on a URL that cannot be a Redis URL; the
    /// error never repeats the URL.
    pub fn start(url: &str, replica: Option<&str>, gauge: Gauge) -> anyhow::Result<Shared> {
        Shared::start_with(url, replica, gauge, "toolgate:", BreakerConfig::default())
    }

    /// [`Shared::start`] with a key prefix (replicas of one fleet share it) and breaker
    /// timings of its own.
    pub fn start_with(
        url: &str,
        replica: Option<&str>,
        gauge: Gauge,
        prefix: &str,
        breaker: BreakerConfig,
    ) -> anyhow::Result<Shared> {
        if url.starts_with("rediss://") {
            // This build has no TLS for Redis; say so rather than fail on connect.
            anyhow::bail!(
                "gateway.shared: rediss:// (TLS) is not supported by this build; use redis:// \
                 on a private network, or a local TLS-terminating proxy"
            );
        }
        let client = Client::open(url).map_err(|e| {
            anyhow::anyhow!("gateway.shared is not a usable Redis URL ({:?})", e.kind())
        })?;
        gauge.set(0);
        // Random, not the pid: replicas in containers are all pid 1, and two may share a
        // name; attempt ids and the probe token must still be unique in the fleet.
        let nonce: u64 = rand::random();
        let token = format!("{}:{nonce:016x}", replica.unwrap_or("replica"));
        let shared = Shared {
            inner: Arc::new(Inner {
                conn: RwLock::new(None),
                up: Reachability::default(),
                failures: AtomicU32::new(0),
                gauge,
                prefix: prefix.to_string(),
                token,
                next_id: std::sync::atomic::AtomicU64::new(0),
                breaker,
                admit: Script::new(include_str!("admit.lua")),
                record: Script::new(include_str!("record.lua")),
                retry: Script::new(include_str!("retry.lua")),
                view: Script::new(include_str!("view.lua")),
            }),
        };
        let weak = Arc::downgrade(&shared.inner);
        tokio::spawn(async move { watch(weak, client).await });
        Ok(shared)
    }

    /// The key prefix of this fleet.
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Whether the shared state is in use right now.
    pub fn is_up(&self) -> bool {
        self.inner.up.is_up()
    }

    fn conn(&self) -> Option<ConnectionManager> {
        if !self.is_up() {
            return None;
        }
        read(&self.inner.conn).clone()
    }

    /// Asks the fleet whether an attempt may go. `None`: the shared state is down (or
    /// just failed), decide locally.
    pub async fn admit(&self, keys: &Keys, deadline_left: Duration) -> Option<FleetAdmission> {
        let mut conn = self.conn()?;
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut inv = self.inner.admit.prepare_invoke();
        inv.key(&keys.breaker)
            .key(&keys.probe)
            .key(&keys.quota)
            .key(&keys.blocked)
            .key(&keys.in_flight)
            .key(&keys.account_held)
            .key(&keys.account_trial)
            .arg(&self.inner.token)
            .arg(ms(deadline_left))
            .arg(ms(self.inner.breaker.probe_timeout).max(1))
            .arg(ms(toolgate_resilience::MIN_ATTEMPT_TIME))
            .arg(ms(POLL))
            .arg(self.member(id))
            .arg(ms(STALE_ATTEMPT))
            // The account's trial is given back as the breaker's probe is.
            .arg(ms(self.inner.breaker.probe_timeout).max(1));
        let reply: (i64, i64, i64) = self.run(inv.invoke_async(&mut conn)).await?;
        let millis = |v: i64| Duration::from_millis(u64::try_from(v).unwrap_or(0));
        let d = millis(reply.1);
        Some(match reply.0 {
            0 => FleetAdmission::Go {
                probe: reply.1 == 1,
                id,
            },
            1 => FleetAdmission::Open(d),
            2 => FleetAdmission::Wait(d),
            4 => FleetAdmission::AccountHeld {
                retry_in: d,
                hold_left: millis(reply.2),
            },
            _ => FleetAdmission::Exhausted(d),
        })
    }

    /// What the fleet knows of the dependency now, for a report: read only, so asking
    /// takes no quota, probe or trial. `None`: the shared state is down (or just
    /// failed), report the local state.
    pub async fn view(&self, keys: &Keys) -> Option<FleetView> {
        let mut conn = self.conn()?;
        let mut inv = self.inner.view.prepare_invoke();
        inv.key(&keys.breaker)
            .key(&keys.account_held)
            .key(&keys.quota)
            .key(&keys.blocked);
        let (head, names, counts): (Vec<i64>, Vec<String>, Vec<i64>) =
            self.run(inv.invoke_async(&mut conn)).await?;
        Some(FleetView::read(&head, names, &counts))
    }

    /// Reports a settled attempt; the fleet's retry-budget totals come back into
    /// `budget`. Runs in the background: settling never waits for Redis.
    pub fn record(&self, keys: &Arc<Keys>, record: Record, budget: &Arc<BudgetView>) {
        let Some(mut conn) = self.conn() else { return };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (this, keys, budget) = (self.clone(), keys.clone(), budget.clone());
        rt.spawn(async move {
            let b = &this.inner.breaker;
            let mut inv = this.inner.record.prepare_invoke();
            inv.key(&keys.breaker)
                .key(&keys.probe)
                .key(&keys.quota)
                .key(&keys.blocked)
                .key(&keys.in_flight)
                .key(&keys.budget)
                .key(&keys.account_held)
                .key(&keys.account_trial)
                .key(&keys.account_changed)
                .key(&keys.blocked_since)
                .arg(record.outcome.code())
                .arg(u8::from(record.probe))
                .arg(u8::from(record.first_attempt))
                .arg(record.throttle.map_or(0, ms))
                .arg(b.consecutive_failures.max(1))
                .arg(ms(b.open_for).max(1))
                .arg(ms(b.max_open_for).max(1))
                .arg(ms(RESET_SLACK))
                .arg(ms(SAME_WINDOW))
                .arg(BUDGET_WINDOW_S)
                .arg(MAX_POLICIES)
                .arg(record.id.map_or_else(String::new, |id| this.member(id)));
            let (account, hold, told) = match record.account {
                AccountEnd::Nothing => (0u8, 0, 0),
                AccountEnd::Passed => (1, 0, 0),
                AccountEnd::Refused { hold, told } => (2, ms(hold).max(1), ms(told)),
            };
            inv.arg(account).arg(hold).arg(told);
            for a in &record.adverts {
                inv.arg(&a.policy)
                    .arg(a.remaining)
                    .arg(a.limit)
                    .arg(ms(a.reset_after));
            }
            let totals: Option<(u64, u64)> = this.run(inv.invoke_async(&mut conn)).await;
            if let Some((requests, retries)) = totals {
                budget.set(requests, retries);
            }
        });
    }

    /// An attempt's member in the fleet's in-flight set: unique across replicas.
    fn member(&self, id: u64) -> String {
        format!("{}:{id}", self.inner.token)
    }

    /// Counts one retry in the fleet's budget (in the background).
    pub fn count_retry(&self, keys: &Arc<Keys>) {
        let Some(mut conn) = self.conn() else { return };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (this, keys) = (self.clone(), keys.clone());
        rt.spawn(async move {
            let mut inv = this.inner.retry.prepare_invoke();
            inv.key(&keys.budget).arg(BUDGET_WINDOW_S);
            let _: Option<i64> = this.run(inv.invoke_async(&mut conn)).await;
        });
    }

    /// Runs one Redis operation with the timeout; [`FAILURES_TO_DOWN`] failures in a
    /// row mark the shared state down.
    async fn run<T>(
        &self,
        op: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Option<T> {
        let why = match tokio::time::timeout(OP_TIMEOUT, op).await {
            Ok(Ok(v)) => {
                self.inner.failures.store(0, Ordering::Relaxed);
                return Some(v);
            }
            Ok(Err(e)) => describe(&e),
            Err(_) => "no answer within 50 ms".to_string(),
        };
        if self.inner.failures.fetch_add(1, Ordering::Relaxed) + 1 >= FAILURES_TO_DOWN {
            mark_down(&self.inner, &why);
        }
        None
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What went wrong, without anything of the URL (which may hold a password).
fn describe(e: &redis::RedisError) -> String {
    match e.code() {
        Some(code) => format!("{:?} ({code})", e.kind()),
        None => format!("{:?}", e.kind()),
    }
}

/// Whether Redis answers, and whether a change is news to log: every change, and the
/// first state seen at all (a Redis unreachable from the start is logged as one that
/// goes away is).
#[derive(Default)]
struct Reachability {
    up: AtomicBool,
    told: AtomicBool,
}

impl Reachability {
    fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Marks it down; whether that is news.
    fn went_down(&self) -> bool {
        let was_up = self.up.swap(false, Ordering::Relaxed);
        let told = self.told.swap(true, Ordering::Relaxed);
        was_up || !told
    }

    /// Marks it up; whether that is news.
    fn went_up(&self) -> bool {
        self.told.store(true, Ordering::Relaxed);
        !self.up.swap(true, Ordering::Relaxed)
    }
}

fn mark_down(inner: &Inner, why: &str) {
    inner.failures.store(0, Ordering::Relaxed);
    if inner.up.went_down() {
        inner.gauge.set(0);
        tracing::warn!(
            reason = why,
            "shared state (Redis) unreachable: this replica paces quota, breaks, budgets retries and learns contracts on its local state until it returns"
        );
    }
}

fn mark_up(inner: &Inner) {
    if inner.up.went_up() {
        inner.gauge.set(1);
        tracing::info!(
            "shared state (Redis) reachable: quota, breaker, retry budget and learned contracts are shared with the other replicas"
        );
    }
}

/// Connects, then checks Redis every [`CHECK_EVERY`] until the gateway is gone: marks
/// the shared state up when it answers and down when it does not.
async fn watch(inner: std::sync::Weak<Inner>, client: Client) {
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_millis(500)))
        .set_response_timeout(Some(OP_TIMEOUT))
        .set_number_of_retries(2)
        .set_max_delay(Duration::from_millis(500));
    let mut conn: Option<ConnectionManager> = None;
    loop {
        let Some(strong) = inner.upgrade() else {
            return;
        };
        if conn.is_none() {
            match tokio::time::timeout(
                Duration::from_secs(1),
                ConnectionManager::new_with_config(client.clone(), config.clone()),
            )
            .await
            {
                Ok(Ok(c)) => {
                    *write(&strong.conn) = Some(c.clone());
                    conn = Some(c);
                }
                Ok(Err(e)) => mark_down(&strong, &describe(&e)),
                Err(_) => mark_down(&strong, "no connection within 1 s"),
            }
        }
        if let Some(c) = conn.as_mut() {
            let ping: Option<redis::RedisResult<String>> =
                tokio::time::timeout(PING_TIMEOUT, redis::cmd("PING").query_async(c))
                    .await
                    .ok();
            match ping {
                Some(Ok(_)) => mark_up(&strong),
                Some(Err(e)) => mark_down(&strong, &describe(&e)),
                None => mark_down(&strong, "no answer to PING"),
            }
        }
        drop(strong);
        tokio::time::sleep(CHECK_EVERY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::Reachability;

    #[test]
    fn a_redis_unreachable_from_the_start_is_news_once_and_every_change_after() {
        let r = Reachability::default();
        assert!(!r.is_up());
        assert!(r.went_down(), "unreachable from the start is told");
        assert!(!r.went_down(), "and not again while it stays down");
        assert!(r.went_up());
        assert!(r.is_up());
        assert!(!r.went_up());
        assert!(r.went_down(), "going away is told");
        let fresh = Reachability::default();
        assert!(fresh.went_up(), "reachable from the start is told");
        assert!(fresh.went_down());
    }
}
