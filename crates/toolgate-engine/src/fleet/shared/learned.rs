//! Learned contracts on the fleet's Redis: one hash per tool (`v` version, `e` epoch,
//! `s` the contract), read with `HMGET`, written by compare and set (`learned_write.lua`)
//! and started over by a relearn (`learned_reset.lua`).

use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;

use super::{Shared, ms};
use crate::fleet::{LearnedStored, LearnedWrite};

static WRITE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("../learned_write.lua")));
static RESET: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("../learned_reset.lua")));

/// A tool's learned contract is forgotten this long after it was last written: a tool
/// nobody calls any more leaves nothing behind for good, and a restart of every replica
/// within it resumes from it.
const KEEP: Duration = Duration::from_secs(30 * 24 * 3600);

impl Shared {
    /// The fleet's learned contract at `key`. `None`: the shared state is down (or just
    /// failed).
    pub async fn learned_read(&self, key: &str) -> Option<LearnedStored> {
        let mut conn = self.conn()?;
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(key).arg("v").arg("e").arg("s");
        let (v, e, s): (Option<String>, Option<String>, Option<String>) =
            self.run(cmd.query_async(&mut conn)).await?;
        Some(LearnedStored {
            version: v.unwrap_or_default(),
            epoch: e.unwrap_or_default(),
            state: s,
        })
    }

    /// Writes `state` at `key` if it is still at `version` and `epoch`. `None`: the
    /// shared state is down (or just failed).
    pub async fn learned_write(
        &self,
        key: &str,
        version: &str,
        epoch: &str,
        state: &str,
    ) -> Option<LearnedWrite> {
        let mut conn = self.conn()?;
        let mut inv = WRITE.prepare_invoke();
        inv.key(key)
            .arg(version)
            .arg(epoch)
            .arg(state)
            .arg(ms(KEEP))
            .arg(token());
        let (written, version, epoch): (u8, String, String) =
            self.run(inv.invoke_async(&mut conn)).await?;
        Some(LearnedWrite {
            written: written == 1,
            version,
            epoch,
        })
    }

    /// Starts the fleet's learned contract at `key` over; its new `(version, epoch)`.
    pub async fn learned_reset(&self, key: &str) -> Option<(String, String)> {
        let mut conn = self.conn()?;
        let mut inv = RESET.prepare_invoke();
        inv.key(key).arg(ms(KEEP)).arg(token()).arg(token());
        self.run(inv.invoke_async(&mut conn)).await
    }
}

/// A new version or epoch: random, so that no two writes (nor a Redis restarted empty)
/// ever make one a replica saw before.
fn token() -> String {
    format!("{:016x}", rand::random::<u64>())
}
