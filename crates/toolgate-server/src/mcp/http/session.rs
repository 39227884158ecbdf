//! Sessions of the handshake revisions (`Mcp-Session-Id`): the negotiated version, when
//! the session was last used, and its link (the client's capabilities and the
//! server→client requests waiting for its answers). A session holds no task, channel or
//! buffer of its own (broadcasts are read from one shared ring), so 10,000 of them are a
//! few megabytes. Ending a session fails the requests still waiting on it.
//!
//! The table is bounded. A session unused for `idle` is ended (on the next sweep, or
//! when it is next looked up); when `max` sessions are open and none is idle, a new
//! `initialize` is refused (the caller answers 503) rather than growing without bound.
//! The table is shared by every caller, so one caller cannot keep the others out: once
//! it is full, a caller holding its share (`share` sessions) or more is refused, and a
//! caller below it takes the place of the least recently used session of the caller
//! holding the most beyond its share (`session_share.rs` does the counting).
//!
//! With a [`Sealer`] (a fleet's shared session key) ids are sealed: the table is then
//! this replica's cache of sessions, and an id opened by another replica is verified and
//! its session rebuilt here on first use (what cannot move with it — a GET stream,
//! server→client requests waiting for answers, a `logging/setLevel` — stays where it
//! was made). A sealed session also ends at its expiry, whatever its use.
//!
//! A session is served only to the caller that opened it ([`Owner`]); to anyone else
//! it does not exist (404), and they cannot end it either.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::ProtocolVersion;
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::owner::Owner;
use super::seal::{Refused, Sealer};
use crate::mcp::outbound::SessionLink;
use toolgate_engine::sync::lock;

#[derive(Debug)]
struct Entry {
    version: ProtocolVersion,
    last_used: Instant,
    /// Ends this session's GET stream (when one is open).
    stream: Option<CancellationToken>,
    link: Arc<SessionLink>,
    /// Unix seconds at which a sealed id expires.
    expires: Option<u64>,
    /// Who opened it: the only caller it is served to.
    owner: Owner,
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
    /// Sessions one owner may hold once the table is full (`max` when unlimited).
    share: usize,
    idle: Duration,
    /// When a full table was last swept: at the cap, a flood of `initialize` calls
    /// sweeps at most once a second instead of once per call.
    swept_full: Mutex<Option<Instant>>,
    sealer: Option<Sealer>,
    /// Sealed ids ended here (DELETE) before their expiry, with that expiry: refused
    /// when they come back. At most `max`.
    revoked: Mutex<HashMap<Arc<str>, u64>>,
}

/// Why a session cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub enum Missing {
    /// Unknown, ended, expired, or an id no replica of this fleet sealed (404: the
    /// client initialises again).
    Unknown,
    /// A sealed id from another replica, but the table is full (503).
    Full(Full),
}

/// Unix seconds now.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A session's negotiated version and link.
type Resumed = (ProtocolVersion, Arc<SessionLink>);

/// A session presented by a caller other than the one that opened it.
struct NotTheirs;

/// Logged (without the id) when a session is presented by another caller: a leaked id,
/// or a client sharing ids between credentials.
fn refused_to_another_caller() {
    tracing::info!(
        "refused a session id presented with other credentials than the ones that opened it (answered as an unknown session)"
    );
}

/// The table is full of sessions in use.
#[derive(Debug, PartialEq, Eq)]
pub struct Full {
    pub max: usize,
    /// The caller holds this many sessions, its share of a full table (`None`: it
    /// holds fewer, and no one else holds more than theirs).
    pub share: Option<usize>,
}

impl Sessions {
    pub fn new(max: usize, idle: Duration) -> Sessions {
        Sessions {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
            share: max.max(1),
            idle,
            swept_full: Mutex::new(None),
            sealer: None,
            revoked: Mutex::new(HashMap::new()),
        }
    }

    /// Seals ids with `sealer` (when there is one): sessions then work on every replica
    /// holding the same key.
    pub fn with_sealer(mut self, sealer: Option<Sealer>) -> Sessions {
        self.sealer = sealer;
        self
    }

    /// Lets one owner hold at most `fraction` of a full table (`1.0`: all of it).
    pub fn with_share(mut self, fraction: f64) -> Sessions {
        self.share = super::session_share::cap(self.max, fraction);
        self
    }

    /// Whether ids are sealed.
    pub fn sealed(&self) -> bool {
        self.sealer.is_some()
    }

    /// Idle time after which a session ends.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Entry>> {
        lock(&self.map)
    }

    /// Opens a session for `version`, for an anonymous caller; returns its id.
    pub fn open(&self, version: ProtocolVersion) -> Result<Arc<str>, Full> {
        self.open_with(version, None)
    }

    /// Opens a session for `version`, for an anonymous client that declared
    /// `capabilities`.
    pub fn open_with(
        &self,
        version: ProtocolVersion,
        capabilities: Option<Value>,
    ) -> Result<Arc<str>, Full> {
        self.open_for(&Owner::default(), version, capabilities)
    }

    /// Opens a session for `version`, owned by `owner`, for a client that declared
    /// `capabilities`.
    pub fn open_for(
        &self,
        owner: &Owner,
        version: ProtocolVersion,
        capabilities: Option<Value>,
    ) -> Result<Arc<str>, Full> {
        let now = Instant::now();
        let mut map = self.lock();
        self.make_room(&mut map, now, owner)?;
        let (id, expires) = match &self.sealer {
            Some(sealer) => {
                let at = unix_now();
                let id = sealer.seal(&version, capabilities.as_ref(), owner, at);
                (id, Some(at.saturating_add(sealer.lifetime().as_secs())))
            }
            None => (format!("{:032x}", rand::random::<u128>()), None),
        };
        let id: Arc<str> = Arc::from(id);
        map.insert(
            id.clone(),
            Entry {
                version,
                last_used: now,
                stream: None,
                link: Arc::new(SessionLink::new(capabilities)),
                expires,
                owner: owner.clone(),
            },
        );
        Ok(id)
    }

    /// Room for one more session of `owner`: sweeps a full table (at most once a
    /// second); still full, ends the least recently used session of the owner most
    /// beyond its share, unless `owner` holds its share already.
    fn make_room(
        &self,
        map: &mut HashMap<Arc<str>, Entry>,
        now: Instant,
        owner: &Owner,
    ) -> Result<(), Full> {
        if map.len() >= self.max {
            let mut swept = lock(&self.swept_full);
            if swept.is_none_or(|at| now.saturating_duration_since(at) >= Duration::from_secs(1)) {
                *swept = Some(now);
                Self::sweep_locked(map, now, self.idle);
            }
        }
        if map.len() < self.max {
            return Ok(());
        }
        if self.share >= self.max {
            return Err(Full {
                max: self.max,
                share: None,
            });
        }
        let held = super::session_share::Held::count(map.values().map(|e| &e.owner));
        // Every session is the caller's own: there is no one to share the table with,
        // and the limit it meets is the table's.
        if held.of(owner) == map.len() {
            return Err(Full {
                max: self.max,
                share: None,
            });
        }
        if held.of(owner) >= self.share {
            return Err(Full {
                max: self.max,
                share: Some(self.share),
            });
        }
        let Some(hog) = held.most_beyond(self.share) else {
            return Err(Full {
                max: self.max,
                share: None,
            });
        };
        let oldest = map
            .iter()
            .filter(|(_, e)| e.owner == hog)
            .min_by_key(|(_, e)| e.last_used)
            .map(|(id, _)| id.clone());
        if let Some(entry) = oldest.and_then(|id| map.remove(&id)) {
            tracing::info!(
                share = self.share,
                "session limit reached: ended the least recently used session of a caller holding more than its share, for a caller below it"
            );
            entry.end();
        }
        Ok(())
    }

    /// The session's version and link, marking it used, when `owner` opened it; a
    /// sealed id this replica has not seen is verified and its session rebuilt here.
    pub(crate) fn resume(
        &self,
        id: &str,
        owner: &Owner,
    ) -> Result<(ProtocolVersion, Arc<SessionLink>), Missing> {
        match self.touch_as(id, Some(owner)) {
            Ok(Some(found)) => return Ok(found),
            Err(NotTheirs) => return Err(Missing::Unknown),
            Ok(None) => {}
        }
        let Some(sealer) = &self.sealer else {
            return Err(Missing::Unknown);
        };
        let at = unix_now();
        let opened = match sealer.open(id, at) {
            Ok(o) => o,
            Err(why) => {
                if why != Refused::Malformed {
                    tracing::debug!(reason = ?why, "refused a sealed session id");
                }
                return Err(Missing::Unknown);
            }
        };
        if opened.owner != *owner {
            refused_to_another_caller();
            return Err(Missing::Unknown);
        }
        if lock(&self.revoked).contains_key(id) {
            return Err(Missing::Unknown);
        }
        let now = Instant::now();
        let mut map = self.lock();
        if let Some(entry) = map.get_mut(id) {
            // Rebuilt meanwhile by another request of the same session (the id names
            // its owner, so the owner is the same).
            entry.last_used = now;
            return Ok((entry.version.clone(), entry.link.clone()));
        }
        self.make_room(&mut map, now, &opened.owner)
            .map_err(Missing::Full)?;
        let link = Arc::new(SessionLink::new(opened.capabilities));
        map.insert(
            Arc::from(id),
            Entry {
                version: opened.version.clone(),
                last_used: now,
                stream: None,
                link: link.clone(),
                expires: Some(opened.expires),
                owner: opened.owner,
            },
        );
        tracing::debug!("session rebuilt from its sealed id");
        Ok((opened.version, link))
    }

    /// The session's version, marking it used; `None` for an unknown or expired one.
    pub fn touch(&self, id: &str) -> Option<ProtocolVersion> {
        self.touch_link(id).map(|(version, _)| version)
    }

    /// The session's version and link, marking it used; `None` for an unknown or
    /// expired one. For a session already served to its owner (its streams).
    pub(crate) fn touch_link(&self, id: &str) -> Option<(ProtocolVersion, Arc<SessionLink>)> {
        self.touch_as(id, None).ok().flatten()
    }

    /// The session's version and link, marking it used, when `owner` (if given) opened
    /// it; `Ok(None)` for an unknown or expired one.
    fn touch_as(&self, id: &str, owner: Option<&Owner>) -> Result<Option<Resumed>, NotTheirs> {
        let now = Instant::now();
        let mut map = self.lock();
        let Some(entry) = map.get_mut(id) else {
            return Ok(None);
        };
        if owner.is_some_and(|o| *o != entry.owner) {
            // Neither used nor ended by someone else's request.
            refused_to_another_caller();
            return Err(NotTheirs);
        }
        if now.saturating_duration_since(entry.last_used) >= self.idle
            || entry.expires.is_some_and(|e| unix_now() >= e)
        {
            if let Some(e) = map.remove(id) {
                e.end();
            }
            return Ok(None);
        }
        entry.last_used = now;
        Ok(Some((entry.version.clone(), entry.link.clone())))
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

    /// Ends a session `owner` opened; whether there was one. A sealed id is also
    /// refused here from now on until it expires (other replicas accept it until then:
    /// they are not told).
    pub fn close(&self, id: &str, owner: &Owner) -> bool {
        let local = {
            let mut map = self.lock();
            match map.get(id) {
                Some(entry) if entry.owner != *owner => {
                    refused_to_another_caller();
                    return false;
                }
                Some(_) => map.remove(id).map(Entry::end).is_some(),
                None => false,
            }
        };
        let Some(sealer) = &self.sealer else {
            return local;
        };
        let at = unix_now();
        let Ok(opened) = sealer.open(id, at) else {
            return local;
        };
        if opened.owner != *owner {
            refused_to_another_caller();
            return false;
        }
        let mut revoked = lock(&self.revoked);
        if revoked.len() >= self.max {
            revoked.retain(|_, expires| *expires > at);
        }
        if revoked.len() < self.max {
            revoked.insert(Arc::from(id), opened.expires);
        } else {
            tracing::warn!(
                max = self.max,
                "too many ended sessions to remember: this one's id stays valid until it expires"
            );
        }
        true
    }

    /// Ends every session idle for longer than `idle`.
    pub fn sweep(&self) {
        Self::sweep_locked(&mut self.lock(), Instant::now(), self.idle);
        let at = unix_now();
        lock(&self.revoked).retain(|_, expires| *expires > at);
    }

    fn sweep_locked(map: &mut HashMap<Arc<str>, Entry>, now: Instant, idle: Duration) {
        let at = unix_now();
        map.retain(|_, e| {
            let keep = now.saturating_duration_since(e.last_used) < idle
                && e.expires.is_none_or(|expires| at < expires);
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
mod tests;
