//! Agents' quotas on the fleet's Redis: one script per call (`agent.lua`), and the
//! release of a running call in the background.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use redis::Script;
use toolgate_config::AgentQuota;

use super::Shared;
use crate::fleet::agent::{AgentKeys, AgentVerdict};

static AGENT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../agent.lua")));

/// A running call older than this is forgotten (its replica died before releasing it).
const STALE_CALL: Duration = Duration::from_secs(600);

fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Shared {
    /// Asks the fleet whether the agent of `keys` may make a call under `quota`. `None`:
    /// the shared state is down (or just failed), decide locally.
    pub async fn admit_agent(&self, keys: &AgentKeys, quota: &AgentQuota) -> Option<AgentVerdict> {
        let mut conn = self.conn()?;
        let id = self
            .inner
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (interval, burst) = quota.calls.map_or((0, 0), |(calls, per)| {
            let interval = per / calls.max(1);
            (us(interval).max(1), us(per.saturating_sub(interval)))
        });
        let mut inv = AGENT.prepare_invoke();
        inv.key(&keys.tat)
            .key(&keys.running)
            .arg(interval)
            .arg(burst)
            .arg(quota.concurrent.unwrap_or(0))
            .arg(self.member(id))
            .arg(us(STALE_CALL));
        let reply: (i64, i64) = self.run(inv.invoke_async(&mut conn)).await?;
        Some(match reply.0 {
            0 => AgentVerdict::Go { id },
            1 => AgentVerdict::TooMany,
            _ => AgentVerdict::Wait(Duration::from_micros(u64::try_from(reply.1).unwrap_or(0))),
        })
    }

    /// Ends running call `id` of the agent of `keys`, in the background (a lost
    /// release is forgotten after a while).
    pub fn release_agent(&self, keys: &Arc<AgentKeys>, id: u64) {
        let Some(mut conn) = self.conn() else { return };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (this, keys) = (self.clone(), keys.clone());
        rt.spawn(async move {
            let mut zrem = redis::cmd("ZREM");
            zrem.arg(&keys.running).arg(this.member(id));
            let _: Option<i64> = this.run(zrem.query_async::<i64>(&mut conn)).await;
        });
    }
}
