//! Sessions of the handshake revisions (`Mcp-Session-Id`): the negotiated version, when
//! the session was last used, and its link (the client's capabilities and the
//! server→client requests waiting for its answers). A session holds no task, channel or
//! buffer of its own (broadcasts are read from one shared ring), so 10,000 of them are a
//! few megabytes. Ending a session fails the requests still waiting on it.
//!
//! The table is bounded. A session unused for `idle` is ended (on the next sweep, or
//! when it is next looked up); when `max` sessions are open and none is idle, a new
//! `initialize` is refused (the caller answers 503) rather than growing without bound.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::mcp::outbound::Link;
use toolgate_engine::sync::lock;

#[derive(Debug)]
struct Entry {
    version: ProtocolVersion,
    last_used: Instant,
    /// Ends this session's GET stream (when one is open).
    stream: Option<CancellationToken>,
    link: Arc<Link>,
}

impl Entry {
    /// Ends what the session holds: its stream and its waiting requests.
    fn end(self) {
        if let Some(s) = self.stream {
            s.cancel();
        }
        self.link.close();
    }
}

/// The session table.
#[derive(Debug)]
pub struct Sessions {
    map: Mutex<HashMap<Arc<str>, Entry>>,
    max: usize,
    idle: Duration,
    /// When a full table was last swept: at the cap, a flood of `initialize` calls
    /// sweeps at most once a second instead of once per call.
    swept_full: Mutex<Option<Instant>>,
}

/// The table is full of sessions in use.
#[derive(Debug, PartialEq, Eq)]
pub struct Full {
    pub max: usize,
}

impl Sessions {
    pub fn new(max: usize, idle: Duration) -> Sessions {
        Sessions {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
            idle,
            swept_full: Mutex::new(None),
        }
    }

    /// Idle time after which a session ends.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Entry>> {
        lock(&self.map)
    }

    /// Opens a session for `version`; returns its id.
    pub fn open(&self, version: ProtocolVersion) -> Result<Arc<str>, Full> {
        self.open_with(version, None)
    }

    /// Opens a session for `version`, for a client that declared `capabilities`.
    pub fn open_with(
        &self,
        version: ProtocolVersion,
        capabilities: Option<Value>,
    ) -> Result<Arc<str>, Full> {
        let now = Instant::now();
        let mut map = self.lock();
        if map.len() >= self.max {
            let mut swept = lock(&self.swept_full);
            if swept.is_none_or(|at| now.saturating_duration_since(at) >= Duration::from_secs(1)) {
                *swept = Some(now);
                Self::sweep_locked(&mut map, now, self.idle);
            }
            if map.len() >= self.max {
                return Err(Full { max: self.max });
            }
        }
        let id: Arc<str> = Arc::from(format!("{:032x}", rand::random::<u128>()));
        map.insert(
            id.clone(),
            Entry {
                version,
                last_used: now,
                stream: None,
                link: Arc::new(Link::new(capabilities)),
            },
        );
        Ok(id)
    }

    /// The session's version, marking it used; `None` for an unknown or expired one.
    pub fn touch(&self, id: &str) -> Option<ProtocolVersion> {
        self.touch_link(id).map(|(version, _)| version)
    }

    /// The session's version and link, marking it used; `None` for an unknown or
    /// expired one.
    pub(crate) fn touch_link(&self, id: &str) -> Option<(ProtocolVersion, Arc<Link>)> {
        let now = Instant::now();
        let mut map = self.lock();
        let entry = map.get_mut(id)?;
        if now.saturating_duration_since(entry.last_used) >= self.idle {
            if let Some(e) = map.remove(id) {
                e.end();
            }
            return None;
        }
        entry.last_used = now;
        Some((entry.version.clone(), entry.link.clone()))
    }

    /// Attaches a new GET stream to the session, ending the previous one (a client has
    /// one standalone stream; a reconnect replaces it). `None` for an unknown session.
    pub fn attach_stream(&self, id: &str, token: CancellationToken) -> Option<()> {
        let mut map = self.lock();
        let entry = map.get_mut(id)?;
        if let Some(old) = entry.stream.replace(token) {
            old.cancel();
        }
        Some(())
    }

    /// Ends a session; whether it existed.
    pub fn close(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(entry) => {
                entry.end();
                true
            }
            None => false,
        }
    }

    /// Ends every session idle for longer than `idle`.
    pub fn sweep(&self) {
        Self::sweep_locked(&mut self.lock(), Instant::now(), self.idle);
    }

    fn sweep_locked(map: &mut HashMap<Arc<str>, Entry>, now: Instant, idle: Duration) {
        map.retain(|_, e| {
            let keep = now.saturating_duration_since(e.last_used) < idle;
            if !keep {
                if let Some(s) = &e.stream {
                    s.cancel();
                }
                e.link.close();
            }
            keep
        });
    }

    /// Open sessions.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// No session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sweeps every `idle / 4` (at most every 30 s) until `shutdown`.
    pub fn spawn_sweeper(self: &Arc<Self>, shutdown: CancellationToken) {
        let weak = Arc::downgrade(self);
        let every = (self.idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(every) => {}
                }
                match weak.upgrade() {
                    Some(sessions) => sessions.sweep(),
                    None => return,
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: ProtocolVersion = ProtocolVersion::V_2025_11_25;

    #[tokio::test(start_paused = true)]
    async fn sessions_expire_after_idle_and_use_keeps_them() {
        let s = Sessions::new(10, Duration::from_secs(600));
        let id = s.open(V).unwrap();
        assert_eq!(id.len(), 32);
        tokio::time::advance(Duration::from_secs(599)).await;
        assert_eq!(s.touch(&id), Some(V));
        tokio::time::advance(Duration::from_secs(599)).await;
        assert_eq!(s.touch(&id), Some(V), "use restarts the idle clock");
        tokio::time::advance(Duration::from_secs(600)).await;
        assert_eq!(s.touch(&id), None);
        assert!(s.is_empty());
        assert_eq!(s.touch("never-opened"), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_table_refuses_until_sessions_go_idle() {
        let s = Sessions::new(3, Duration::from_secs(60));
        let ids: Vec<_> = (0..3).map(|_| s.open(V).unwrap()).collect();
        assert_eq!(s.open(V), Err(Full { max: 3 }));
        assert!(s.close(&ids[0]));
        assert!(!s.close(&ids[0]));
        let again = s.open(V).unwrap();
        assert_eq!(s.open(V), Err(Full { max: 3 }));
        tokio::time::advance(Duration::from_secs(30)).await;
        assert!(s.touch(&again).is_some());
        tokio::time::advance(Duration::from_secs(31)).await;
        // ids[1] and ids[2] are idle now; `again` was used 31 s ago. The table was last
        // swept when full 61 s ago, so it is swept again.
        let fresh = s.open(V).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s.touch(&fresh).is_some() && s.touch(&again).is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_stream_ends_the_old_one_and_closing_ends_both() {
        let s = Sessions::new(3, Duration::from_secs(60));
        let id = s.open(V).unwrap();
        let first = CancellationToken::new();
        let second = CancellationToken::new();
        s.attach_stream(&id, first.clone()).unwrap();
        s.attach_stream(&id, second.clone()).unwrap();
        assert!(first.is_cancelled() && !second.is_cancelled());
        s.close(&id);
        assert!(second.is_cancelled());
        assert!(s.attach_stream(&id, CancellationToken::new()).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn the_sweeper_ends_idle_sessions() {
        let s = Arc::new(Sessions::new(10, Duration::from_secs(8)));
        let shutdown = CancellationToken::new();
        s.spawn_sweeper(shutdown.clone());
        s.open(V).unwrap();
        tokio::time::sleep(Duration::from_secs(11)).await;
        assert!(s.is_empty());
        shutdown.cancel();
    }
}
