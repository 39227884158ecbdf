//! Server-initiated notifications to every connected client (`notifications/tools/list_changed`
//! when a fronted server's tools change, …) or to some of them (a resource's
//! `notifications/resources/updated`, to the sessions that subscribed to it): the gateway
//! sends them, each transport's readers (an HTTP session's GET stream, the stdio client)
//! take them from one ring.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::sync::lock;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::watch;

/// Broadcast notifications kept for GET streams that lag or resume (`Last-Event-ID`),
/// by count and by bytes; the oldest go first.
const BROADCAST_EVENTS: usize = 256;
const BROADCAST_BYTES: usize = 1 << 20;

/// A JSON-RPC notification's bytes.
fn notification(method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + method.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    // Serialising a str or a Value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, method);
    if let Some(params) = params {
        out.extend_from_slice(br#","params":"#);
        let _ = serde_json::to_writer(&mut out, params);
    }
    out.push(b'}');
    out
}

/// Server-initiated notifications to every connected client: each session's GET stream
/// (HTTP) and the stdio client. Cheap to clone; the `Server` owns one.
///
/// The notifications are the same bytes for every client, so they are kept once, in a
/// ring shared by all readers (each reader is a cursor into it) rather than copied into
/// every session: 10,000 sessions cost no more than one. A reader that falls behind the
/// ring loses the oldest notifications, with a warning; the broadcaster never waits.
#[derive(Clone, Debug)]
pub struct Broadcast {
    ring: Arc<Ring>,
}

#[derive(Debug)]
struct Ring {
    state: Mutex<RingState>,
    /// The sequence number of the newest notification (0: none yet).
    newest: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct RingState {
    events: VecDeque<Event>,
    bytes: usize,
    newest: u64,
}

/// One notification in the ring: its sequence number, its bytes, and who may read it.
#[derive(Debug, Clone)]
struct Event {
    seq: u64,
    bytes: Bytes,
    /// The readers it is for (see [`Broadcast::subscribe`]); `None`: every reader.
    audience: Option<Arc<[u64]>>,
}

/// Numbers the readers of notifications: one per client session or connection.
static READERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A new reader number, for a client session or connection: what
/// [`Broadcast::notify_readers`] addresses and [`Broadcast::subscribe`] reads as.
pub fn new_reader() -> u64 {
    READERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A client session or connection as a reader of notifications, held by the session
/// while it is open: its number, and the open end [`Reader`]s watch.
#[derive(Debug)]
pub struct ReaderHandle {
    id: u64,
    open: Arc<Open>,
}

/// What a session's [`Reader`]s see of it: whether it closed, whether it ever
/// subscribed to something (only then is its closing announced), and which fronted
/// servers its newest request may use.
#[derive(Debug, Default)]
struct Open {
    closed: AtomicBool,
    subscribed: AtomicBool,
    /// Which fronted servers the session's newest request may use; `None`: every
    /// server. A session continues with whatever token each request carries, so a
    /// subscription made with one token must not outlive that token's reach: a
    /// resource's updates go to the session only while this lets it use the server.
    reach: Mutex<Option<Arc<dyn Reach>>>,
}

/// Which fronted servers a session may use, asked each time a resource's update is to
/// be delivered. An implementation that keeps what the reach was worked out *from* (the
/// agent's name, the token's scopes) and asks the config in force, rather than a list
/// worked out once, is narrowed by a reload at once: an agent whose tools or servers a
/// reload took away hears no more of their resources, whether or not its session sends
/// another request.
pub trait Reach: Send + Sync + std::fmt::Debug {
    /// Whether the session may use the fronted server named `server`.
    fn may_use(&self, server: &str) -> bool;
}

/// A reach fixed as a list of server names.
#[derive(Debug)]
pub struct Listed(pub Arc<[String]>);

impl Reach for Listed {
    fn may_use(&self, server: &str) -> bool {
        self.0.iter().any(|n| n == server)
    }
}

/// Counts the closings of sessions that had subscribed to a resource, so that the
/// fronted servers let go of what they subscribed to (a session may close without
/// unsubscribing: a client that crashed, a session that expired). Sessions that never
/// subscribed, stateless requests among them, are not counted: their closing wakes
/// nothing.
static SUBSCRIBERS_CLOSED: std::sync::LazyLock<watch::Sender<u64>> =
    std::sync::LazyLock::new(|| watch::Sender::new(0));

/// Changes each time a session that had subscribed to a resource closes.
pub fn subscribers_closed() -> watch::Receiver<u64> {
    SUBSCRIBERS_CLOSED.subscribe()
}

impl Default for ReaderHandle {
    fn default() -> Self {
        ReaderHandle {
            id: new_reader(),
            open: Arc::default(),
        }
    }
}

impl ReaderHandle {
    /// The reader's number.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The reader, as others keep it (a resource's subscribers).
    pub fn reader(&self) -> Reader {
        Reader {
            id: self.id,
            open: Arc::downgrade(&self.open),
        }
    }
}

impl Drop for ReaderHandle {
    fn drop(&mut self) {
        // Closed before it is announced: whoever the announcement wakes sees it closed.
        self.open.closed.store(true, Ordering::SeqCst);
        if self.open.subscribed.load(Ordering::SeqCst) {
            SUBSCRIBERS_CLOSED.send_modify(|n| *n = n.wrapping_add(1));
        }
    }
}

/// A reader of notifications as kept by others: its number, and whether its session
/// is still open (a session closed without unsubscribing is then let go).
#[derive(Debug, Clone)]
pub struct Reader {
    /// The reader's number.
    pub id: u64,
    open: std::sync::Weak<Open>,
}

impl Reader {
    /// Whether the session or connection is still open.
    pub fn is_open(&self) -> bool {
        self.open
            .upgrade()
            .is_some_and(|o| !o.closed.load(Ordering::SeqCst))
    }

    /// Marks the session as one that subscribed to something: its closing is then
    /// announced (see [`subscribers_closed`]).
    pub fn mark_subscribed(&self) {
        if let Some(open) = self.open.upgrade() {
            open.subscribed.store(true, Ordering::SeqCst);
        }
    }

    /// Whether the session ever subscribed to something: only then does what its
    /// requests may use need noting (see [`Reader::note_usable`]).
    pub fn has_subscribed(&self) -> bool {
        self.open
            .upgrade()
            .is_some_and(|o| o.subscribed.load(Ordering::SeqCst))
    }

    /// Notes the fronted servers the session's newest request may use, as a fixed list
    /// (`None`: every one). See [`Reader::note_reach`] for a reach a reload narrows.
    pub fn note_usable(&self, servers: Option<Arc<[String]>>) {
        self.note_reach(servers.map(|s| Arc::new(Listed(s)) as Arc<dyn Reach>));
    }

    /// Notes how far the session's newest request reaches (`None`: every server): its
    /// agent and its token's scopes as they are now, which a token stepped down to
    /// fewer scopes narrows, and which the reach reads against the config in force.
    pub fn note_reach(&self, reach: Option<Arc<dyn Reach>>) {
        if let Some(open) = self.open.upgrade() {
            *lock(&open.reach) = reach;
        }
    }

    /// Whether the session's newest request may use the fronted server `server`, so
    /// that updates of its resources may still reach the session. A closed session may
    /// use none.
    pub fn may_use(&self, server: &str) -> bool {
        self.open.upgrade().is_some_and(|o| {
            // Cloned out, so the reach's own work (it may read the config in force)
            // runs without the session's lock held.
            let reach = lock(&o.reach).clone();
            reach.is_none_or(|r| r.may_use(server))
        })
    }
}

impl Default for Broadcast {
    fn default() -> Self {
        Broadcast::new()
    }
}

impl Broadcast {
    pub fn new() -> Broadcast {
        Broadcast {
            ring: Arc::new(Ring {
                state: Mutex::new(RingState::default()),
                newest: watch::Sender::new(0),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RingState> {
        lock(&self.ring.state)
    }

    /// Sends a notification (`notifications/tools/list_changed`, …) to every client.
    pub fn notify_all(&self, method: &str, params: Option<Value>) {
        self.send(method, params, None);
    }

    /// Sends a notification to the clients reading as `readers` only (a resource's
    /// update, to the sessions that subscribed to it): no other client sees it.
    pub fn notify_readers(&self, method: &str, params: Option<Value>, readers: Vec<u64>) {
        if readers.is_empty() {
            return;
        }
        self.send(method, params, Some(readers.into()));
    }

    fn send(&self, method: &str, params: Option<Value>, audience: Option<Arc<[u64]>>) {
        let bytes = Bytes::from(notification(method, params.as_ref()));
        let newest = {
            let mut state = self.lock();
            state.newest += 1;
            let seq = state.newest;
            state.bytes += bytes.len();
            state.events.push_back(Event {
                seq,
                bytes,
                audience,
            });
            while state.events.len() > BROADCAST_EVENTS
                || (state.bytes > BROADCAST_BYTES && state.events.len() > 1)
            {
                if let Some(old) = state.events.pop_front() {
                    state.bytes -= old.bytes.len();
                }
            }
            seq
        };
        self.ring.newest.send_replace(newest);
    }

    /// A reader of the notifications after `after` (by default, of those still to come),
    /// as `reader` (a number from [`new_reader`]: it also reads what is sent to it
    /// alone). An `after` newer than anything sent (a client's id from before a restart)
    /// reads as "from now".
    pub fn subscribe(&self, after: Option<u64>, reader: u64) -> Subscriber {
        let changes = self.ring.newest.subscribe();
        let newest = self.lock().newest;
        Subscriber {
            ring: self.ring.clone(),
            cursor: after.map_or(newest, |a| a.min(newest)),
            reader,
            changes,
        }
    }
}

/// One reader of a [`Broadcast`]: a cursor into its ring.
#[derive(Debug)]
pub struct Subscriber {
    ring: Arc<Ring>,
    cursor: u64,
    reader: u64,
    changes: watch::Receiver<u64>,
}

impl Subscriber {
    /// The sequence number of the last notification read (an event id).
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// The notifications after the cursor that are for this reader, with their sequence
    /// numbers; waits for at least one. Cancel-safe: nothing is taken until it is
    /// returned (those for other readers are passed over).
    pub async fn next(&mut self) -> Vec<(u64, Bytes)> {
        loop {
            self.changes.borrow_and_update();
            let batch = {
                let state = lock(&self.ring.state);
                if let Some(oldest) = state.events.front()
                    && oldest.seq > self.cursor + 1
                {
                    tracing::warn!(
                        missed = oldest.seq - self.cursor - 1,
                        kept = BROADCAST_EVENTS,
                        "a client's stream fell behind: its oldest server notifications were dropped"
                    );
                }
                let (from, reader) = (self.cursor, self.reader);
                if let Some(last) = state.events.back() {
                    self.cursor = self.cursor.max(last.seq);
                }
                state
                    .events
                    .iter()
                    .filter(|e| e.seq > from)
                    .filter(|e| e.audience.as_ref().is_none_or(|a| a.contains(&reader)))
                    .map(|e| (e.seq, e.bytes.clone()))
                    .collect::<Vec<_>>()
            };
            if !batch.is_empty() {
                return batch;
            }
            if self.changes.changed().await.is_err() {
                // The ring is gone (cannot happen while this holds it): nothing more.
                std::future::pending::<()>().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn broadcast_readers_see_what_follows_their_cursor_and_lose_only_the_oldest() {
        let b = Broadcast::new();
        let mut early = b.subscribe(None, new_reader());
        b.notify_all("notifications/tools/list_changed", None);
        b.notify_all("notifications/prompts/list_changed", None);
        let got = early.next().await;
        assert_eq!(got.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(
            got[0].1.as_ref(),
            br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
        );
        let mut resumed = b.subscribe(Some(1), new_reader());
        assert_eq!(resumed.next().await[0].0, 2);
        assert_eq!(
            b.subscribe(Some(99), new_reader()).cursor(),
            2,
            "a future id reads as now"
        );
        let mut lagging = b.subscribe(Some(0), new_reader());
        for _ in 0..BROADCAST_EVENTS + 10 {
            b.notify_all("notifications/tools/list_changed", None);
        }
        let got = lagging.next().await;
        assert_eq!(got.len(), BROADCAST_EVENTS);
        assert_eq!(got[0].0, 13);
        assert_eq!(lagging.cursor(), (BROADCAST_EVENTS + 12) as u64);
        let waiting = tokio::spawn(async move { lagging.next().await });
        tokio::task::yield_now().await;
        b.notify_all("notifications/resources/list_changed", None);
        assert_eq!(waiting.await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_notification_for_some_readers_reaches_them_alone() {
        let b = Broadcast::new();
        let (alice, bob) = (new_reader(), new_reader());
        let mut a = b.subscribe(None, alice);
        let mut other = b.subscribe(None, bob);
        let updated = serde_json::json!({"uri": "file:///home/alice/plan.md"});
        b.notify_readers(
            "notifications/resources/updated",
            Some(updated),
            vec![alice],
        );
        b.notify_readers("notifications/resources/updated", None, Vec::new());
        b.notify_all("notifications/tools/list_changed", None);
        let got = a.next().await;
        assert_eq!(got.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [1, 2]);
        assert!(String::from_utf8_lossy(&got[0].1).contains("alice/plan.md"));
        let got = other.next().await;
        assert_eq!(
            got.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
            [2],
            "another reader never sees it"
        );
        assert_eq!(other.cursor(), 2);
        // Passed over, not pending: the next read waits for what comes next.
        b.notify_readers("notifications/resources/updated", None, vec![alice]);
        let waiting = tokio::spawn(async move { other.next().await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "nothing for bob yet");
        b.notify_all("notifications/prompts/list_changed", None);
        assert_eq!(waiting.await.unwrap()[0].0, 4);
    }
}
