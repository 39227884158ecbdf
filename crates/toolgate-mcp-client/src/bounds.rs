//! What one upstream server can cost the gateway, bounded: the server→client
//! requests being answered at once, the events and the log lines a flood of
//! messages can cause.
//!
//! A server may send requests (`ping`, sampling, elicitation, roots) and
//! notifications as fast as it can write. Each answered request holds a slot
//! until its answer is written (stdio) or POSTed (HTTP); with every slot taken
//! the next request is shed — refused or dropped, and counted — instead of
//! queued, so a hostile server costs a fixed amount of memory, tasks and
//! sockets however fast it writes.
//!
//! A slot is held until the caller the request was relayed to answers, which a
//! person may take minutes to do; so the callers of one connection (the agents of a
//! gateway) each hold at most a share of the slots, counted by the owner key their
//! relays carry ([`crate::Relay::owned_by`]). Without it, one agent with many slow
//! calls fills every slot and the questions of every other agent's calls are shed.
//! A slot cannot be taken back to make room, so the share holds whether or not
//! other owners are asking; a request beyond it is refused as the owner's doing,
//! not counted as the server's ([`ServerRequestStats::over_share`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::Instant;

use crate::{Event, RpcError, ServerRequestStats, lock};

/// How often [`Event::Misbehaving`] is sent again while a server keeps
/// being shed (the first shed request sends it at once).
const MISBEHAVING_EVERY: Duration = Duration::from_secs(60);

/// "Event channel full" is logged at most this often per server.
const FULL_WARNING_EVERY: Duration = Duration::from_secs(10);

/// At most `limit` lines per `window`; what is held back is counted, so the
/// next line that gets through can say how many were suppressed.
#[derive(Debug)]
pub struct LineBudget {
    limit: u32,
    window: Duration,
    started: Option<Instant>,
    used: u32,
    suppressed: u64,
}

/// What the stream of server-initiated messages outside any request (the standalone
/// GET stream, a `subscriptions/listen`) may carry in one [`STREAM_WINDOW`], in bytes
/// of any kind — events, comments, fields nobody reads. That stream has no deadline,
/// so without this a server writing to it as fast as it can (keep-alive comments,
/// notifications the event channel drops anyway) keeps the gateway reading and
/// parsing for as long as the connection lasts. Past it the stream is closed and not
/// opened again before the window ends. A server's own notifications are a few
/// hundred bytes each: this is thousands a second, sustained for a minute.
pub const STREAM_BYTES_PER_WINDOW: usize = 16 << 20;
/// The window [`STREAM_BYTES_PER_WINDOW`] is counted over.
pub(crate) const STREAM_WINDOW: Duration = Duration::from_secs(60);
/// The bytes a server wrote in the current window where no request of the gateway's
/// waits for them: its stream of messages outside any request (HTTP), or its standard
/// output besides the answers (stdio). Past
/// [`STREAM_BYTES_PER_WINDOW`] the gateway stops
/// reading it until the window ends.
#[derive(Debug, Default)]
pub(crate) struct ByteWindow {
    started: Option<Instant>,
    bytes: usize,
}

impl ByteWindow {
    /// Counts `n` bytes read at `now`; `false` once the window's budget is spent.
    pub(crate) fn take(&mut self, n: usize, now: Instant) -> bool {
        if self
            .started
            .is_none_or(|s| now.saturating_duration_since(s) >= STREAM_WINDOW)
        {
            self.started = Some(now);
            self.bytes = 0;
        }
        self.bytes = self.bytes.saturating_add(n);
        self.bytes <= STREAM_BYTES_PER_WINDOW
    }

    /// How long reading stays stopped from `now`: until the window ends, once its
    /// budget is spent.
    pub(crate) fn closed_for(&self, now: Instant) -> Duration {
        match self.started {
            Some(s) if self.bytes > STREAM_BYTES_PER_WINDOW => {
                (s + STREAM_WINDOW).saturating_duration_since(now)
            }
            _ => Duration::ZERO,
        }
    }
}

/// What [`LineBudget::take`] decided for one line.
#[derive(Debug, PartialEq, Eq)]
pub struct Take {
    /// Log this line.
    pub log: bool,
    /// Lines suppressed since the last one logged: say so before this one.
    pub suppressed: u64,
}

impl LineBudget {
    /// At most `limit` lines (at least one) per `window`.
    pub fn new(limit: u32, window: Duration) -> Self {
        LineBudget {
            limit: limit.max(1),
            window,
            started: None,
            used: 0,
            suppressed: 0,
        }
    }

    /// Whether a line at `now` is logged.
    pub fn take(&mut self, now: Instant) -> Take {
        let fresh = self
            .started
            .is_none_or(|s| now.saturating_duration_since(s) >= self.window);
        if fresh {
            self.started = Some(now);
            self.used = 0;
        }
        if self.used < self.limit {
            self.used += 1;
            Take {
                log: true,
                suppressed: std::mem::take(&mut self.suppressed),
            }
        } else {
            self.suppressed += 1;
            Take {
                log: false,
                suppressed: 0,
            }
        }
    }

    /// Lines suppressed and not yet reported (when the stream ends).
    pub fn finish(&mut self) -> u64 {
        std::mem::take(&mut self.suppressed)
    }
}

/// The connection's events: sent without waiting, so a gateway slow to
/// drain them never stalls the server's messages; one that is full drops
/// them, and says so at most every ten seconds.
pub(crate) struct Events {
    name: String,
    tx: mpsc::Sender<Event>,
    full: Mutex<LineBudget>,
}

impl Events {
    pub(crate) fn new(name: String, tx: mpsc::Sender<Event>) -> Self {
        Events {
            name,
            tx,
            full: Mutex::new(LineBudget::new(1, FULL_WARNING_EVERY)),
        }
    }

    /// Whether anyone still receives the events: a connection whose owner
    /// dropped the receiver (a caller's own session, which is only for calls)
    /// has nothing to listen for.
    pub(crate) fn heard(&self) -> bool {
        !self.tx.is_closed()
    }

    /// The server wrote more than [`STREAM_BYTES_PER_WINDOW`] to `what` within a
    /// [`STREAM_WINDOW`] besides its answers: logged and told to the gateway, with
    /// `then` saying what toolgate does until the window ends.
    pub(crate) fn flooded(&self, what: &str, then: &str, shed: u64) {
        let detail = format!(
            "it wrote more than {} MiB to {what} within {} s; {then}",
            STREAM_BYTES_PER_WINDOW >> 20,
            STREAM_WINDOW.as_secs()
        );
        tracing::warn!(server = %self.name, "an MCP server {detail}");
        self.emit(Event::Misbehaving { detail, shed });
    }

    pub(crate) fn emit(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(event) {
            let take = lock(&self.full).take(Instant::now());
            if take.log {
                tracing::warn!(server = %self.name, also_dropped_since_last_warning = take.suppressed, "event channel full; an upstream event was dropped");
            }
        }
    }
}

/// The slots for server→client requests and what happened to them.
pub(crate) struct ServerRequests {
    slots: Arc<Semaphore>,
    cap: usize,
    /// The slots each owner holds, and the share it may hold.
    owners: Arc<Mutex<Owners>>,
    received: AtomicU64,
    shed: AtomicU64,
    over_share: AtomicU64,
    unroutable: AtomicU64,
    peak: AtomicUsize,
    /// When [`Event::Misbehaving`] was last sent.
    reported: Mutex<Option<Instant>>,
}

/// What each owner holds of the slots, and how much it may.
struct Owners {
    /// The fraction of the slots one owner may hold; outside (0, 1): no share.
    fraction: f64,
    /// The setting the fraction comes from, named in a refusal.
    setting: &'static str,
    /// Slots held, by owner; an owner holding none has no entry.
    held: HashMap<Arc<str>, usize>,
}

impl Owners {
    /// The slots one owner may hold of `cap`: its fraction rounded up, at least one.
    fn share(&self, cap: usize) -> usize {
        if !(self.fraction > 0.0 && self.fraction < 1.0) {
            return cap;
        }
        ((cap as f64 * self.fraction).ceil() as usize).clamp(1, cap)
    }
}

/// A taken slot; dropping it frees the slot (and the owner's count of it).
pub(crate) struct Slot {
    _permit: OwnedSemaphorePermit,
    owner: Option<(Arc<Mutex<Owners>>, Arc<str>)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some((owners, owner)) = self.owner.take() {
            let mut owners = lock(&owners);
            if let Some(n) = owners.held.get_mut(&owner) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    owners.held.remove(&owner);
                }
            }
        }
    }
}

/// Why a server request got no slot.
#[derive(Debug, PartialEq)]
pub(crate) enum NoSlot {
    /// Every slot is taken: the server asks more than the client answers at once.
    Full,
    /// The owner of the request it belongs to holds its share already.
    OverShare {
        held: usize,
        share: usize,
        cap: usize,
        fraction: f64,
        setting: &'static str,
    },
}

impl NoSlot {
    /// The refusal the server is answered with when the owner holds its share: it
    /// says whose doing it is and which setting to change.
    pub(crate) fn refusal(&self, cap: usize) -> RpcError {
        match self {
            NoSlot::Full => crate::overloaded(cap),
            NoSlot::OverShare {
                held,
                cap,
                fraction,
                setting,
                ..
            } => RpcError {
                code: crate::codes::SERVER_BUSY,
                message: format!(
                    "too many requests: this agent's calls already have {held} of this server's requests waiting for \
                     the agent's answers, this agent's share of the {cap} the client answers at once ({setting}: \
                     {fraction}), so that one agent cannot take them all; answer those, then retry"
                ),
                data: None,
            },
        }
    }
}

impl ServerRequests {
    pub(crate) fn new(cap: usize) -> Self {
        let cap = cap.max(1);
        ServerRequests {
            slots: Arc::new(Semaphore::new(cap)),
            cap,
            owners: Arc::new(Mutex::new(Owners {
                fraction: 1.0,
                setting: "",
                held: HashMap::new(),
            })),
            received: AtomicU64::new(0),
            shed: AtomicU64::new(0),
            over_share: AtomicU64::new(0),
            unroutable: AtomicU64::new(0),
            peak: AtomicUsize::new(0),
            reported: Mutex::new(None),
        }
    }

    /// Each owner holds at most `fraction` of the slots (rounded up, at least one);
    /// `setting` names it in refusals. Slots held now stay held.
    pub(crate) fn set_share(&self, fraction: f64, setting: &'static str) {
        let mut owners = lock(&self.owners);
        owners.fraction = fraction;
        owners.setting = setting;
    }

    /// The fraction of the slots one owner may hold (outside (0, 1): no share).
    pub(crate) fn share(&self) -> f64 {
        lock(&self.owners).fraction
    }

    /// Counts one request from the server.
    pub(crate) fn received(&self) {
        self.received.fetch_add(1, Ordering::Relaxed);
    }

    /// A slot for a request whose relay is owned by `owner`, if one is free and the
    /// owner holds less than its share. A request without an owner counts only
    /// against the cap.
    pub(crate) fn slot(&self, owner: Option<&Arc<str>>) -> Result<Slot, NoSlot> {
        let mut owners = lock(&self.owners);
        let share = owners.share(self.cap);
        if let Some(owner) = owner {
            let held = owners.held.get(owner).copied().unwrap_or(0);
            if held >= share {
                return Err(NoSlot::OverShare {
                    held,
                    share,
                    cap: self.cap,
                    fraction: owners.fraction,
                    setting: owners.setting,
                });
            }
        }
        let permit = Arc::clone(&self.slots)
            .try_acquire_owned()
            .map_err(|_| NoSlot::Full)?;
        let busy = self.cap - self.slots.available_permits();
        self.peak.fetch_max(busy, Ordering::Relaxed);
        let owner = owner.map(|owner| {
            *owners.held.entry(Arc::clone(owner)).or_default() += 1;
            (Arc::clone(&self.owners), Arc::clone(owner))
        });
        Ok(Slot {
            _permit: permit,
            owner,
        })
    }

    /// Counts one request refused because its owner held its share of the slots.
    pub(crate) fn over_share(&self, name: &str, refused: &NoSlot) {
        self.over_share.fetch_add(1, Ordering::Relaxed);
        if let NoSlot::OverShare { held, share, .. } = refused {
            tracing::debug!(server = %name, held, share, "refused a server request: its agent holds its share of the slots");
        }
    }

    /// Counts one request refused or dropped because the server sent more than
    /// the client answers at once (or than its stdin takes), and tells the
    /// gateway — at once the first time, then at most once a minute.
    pub(crate) fn shed(&self, events: &Events, name: &str, why: &str) {
        let total = self.shed.fetch_add(1, Ordering::Relaxed) + 1;
        let now = Instant::now();
        let due = {
            let mut reported = lock(&self.reported);
            let due =
                reported.is_none_or(|at| now.saturating_duration_since(at) >= MISBEHAVING_EVERY);
            if due {
                *reported = Some(now);
            }
            due
        };
        if due {
            tracing::warn!(server = %name, shed = total, cap = self.cap, "{why}; the excess is shed");
            events.emit(Event::Misbehaving {
                detail: format!(
                    "{why}; {total} server requests shed so far (at most {} are answered at once)",
                    self.cap
                ),
                shed: total,
            });
        }
    }

    /// Counts one request refused because the request that caused it cannot be known.
    pub(crate) fn unroutable(&self) {
        self.unroutable.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> ServerRequestStats {
        ServerRequestStats {
            received: self.received.load(Ordering::Relaxed),
            in_flight: self.cap - self.slots.available_permits(),
            peak_in_flight: self.peak.load(Ordering::Relaxed),
            shed: self.shed.load(Ordering::Relaxed),
            over_share: self.over_share.load(Ordering::Relaxed),
            unroutable: self.unroutable.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_lines_is_cut_to_the_budget_and_the_rest_counted() {
        let start = Instant::now();
        let mut budget = LineBudget::new(3, Duration::from_secs(1));
        let logged: Vec<Take> = (0..10)
            .map(|i| budget.take(start + Duration::from_millis(i * 10)))
            .collect();
        assert_eq!(logged.iter().filter(|t| t.log).count(), 3);
        // The next window: the first line says how many were held back.
        let next = budget.take(start + Duration::from_millis(1000));
        assert_eq!(
            next,
            Take {
                log: true,
                suppressed: 7
            }
        );
        assert_eq!(budget.finish(), 0);
        for _ in 0..5 {
            budget.take(start + Duration::from_millis(1500));
        }
        assert_eq!(budget.finish(), 3);
    }

    #[test]
    fn slots_are_capped_and_freed_when_dropped() {
        let requests = ServerRequests::new(2);
        let a = requests.slot(None).ok().unwrap();
        let _b = requests.slot(None).ok().unwrap();
        assert!(matches!(requests.slot(None), Err(NoSlot::Full)));
        assert_eq!(requests.stats().in_flight, 2);
        drop(a);
        assert!(requests.slot(None).is_ok());
        assert_eq!(requests.stats().peak_in_flight, 2);
    }

    #[test]
    fn one_owner_holds_at_most_its_share_and_the_others_still_get_slots() {
        let requests = ServerRequests::new(5);
        requests.set_share(0.5, "the_share");
        let (a, b): (Arc<str>, Arc<str>) = ("alice".into(), "bob".into());
        // Half of 5, rounded up.
        let held_by_a: Vec<Slot> = (0..3)
            .map(|_| requests.slot(Some(&a)).ok().unwrap())
            .collect();
        let refused = requests.slot(Some(&a)).err().unwrap();
        assert!(
            matches!(
                refused,
                NoSlot::OverShare {
                    held: 3,
                    share: 3,
                    cap: 5,
                    ..
                }
            ),
            "{refused:?}"
        );
        let message = refused.refusal(5).message;
        assert!(
            message.contains("this agent") && message.contains("the_share"),
            "{message}"
        );
        // The other owner is served from what is left; then the cap holds for all.
        let _b1 = requests.slot(Some(&b)).ok().unwrap();
        let _b2 = requests.slot(Some(&b)).ok().unwrap();
        assert_eq!(requests.slot(Some(&b)).err(), Some(NoSlot::Full));
        assert_eq!(requests.slot(None).err(), Some(NoSlot::Full));
        // A freed slot is the owner's to take again.
        drop(held_by_a);
        assert!(requests.slot(Some(&a)).is_ok());
        assert!(!lock(&requests.owners).held.contains_key(&a));
    }

    #[test]
    fn a_new_share_applies_to_the_next_request_and_no_share_is_the_cap() {
        let requests = ServerRequests::new(4);
        let a: Arc<str> = "alice".into();
        // No share set: one owner may take every slot.
        let all: Vec<Slot> = (0..4)
            .map(|_| requests.slot(Some(&a)).ok().unwrap())
            .collect();
        drop(all);
        requests.set_share(0.25, "s");
        let _one = requests.slot(Some(&a)).ok().unwrap();
        assert!(matches!(
            requests.slot(Some(&a)),
            Err(NoSlot::OverShare { share: 1, .. })
        ));
        for off in [1.0, 0.0, -1.0, 2.0, f64::NAN] {
            requests.set_share(off, "s");
            assert!(requests.slot(Some(&a)).is_ok(), "{off}");
        }
    }

    #[tokio::test]
    async fn the_first_shed_request_tells_the_gateway_and_later_ones_only_each_minute() {
        let (tx, mut rx) = mpsc::channel(8);
        let events = Events::new("up".into(), tx);
        let requests = ServerRequests::new(1);
        for _ in 0..5 {
            requests.shed(&events, "up", "too many");
        }
        assert!(matches!(
            rx.try_recv(),
            Ok(Event::Misbehaving { shed: 1, .. })
        ));
        assert!(rx.try_recv().is_err());
        assert_eq!(requests.stats().shed, 5);
    }
}
