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

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::Instant;

use crate::{Event, ServerRequestStats, lock};

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
    received: AtomicU64,
    shed: AtomicU64,
    unroutable: AtomicU64,
    peak: AtomicUsize,
    /// When [`Event::Misbehaving`] was last sent.
    reported: Mutex<Option<Instant>>,
}

/// A taken slot; dropping it frees the slot.
pub(crate) struct Slot {
    _permit: OwnedSemaphorePermit,
}

impl ServerRequests {
    pub(crate) fn new(cap: usize) -> Self {
        let cap = cap.max(1);
        ServerRequests {
            slots: Arc::new(Semaphore::new(cap)),
            cap,
            received: AtomicU64::new(0),
            shed: AtomicU64::new(0),
            unroutable: AtomicU64::new(0),
            peak: AtomicUsize::new(0),
            reported: Mutex::new(None),
        }
    }

    /// Counts one request from the server.
    pub(crate) fn received(&self) {
        self.received.fetch_add(1, Ordering::Relaxed);
    }

    /// A slot, if one is free.
    pub(crate) fn slot(&self) -> Option<Slot> {
        let permit = Arc::clone(&self.slots).try_acquire_owned().ok()?;
        let busy = self.cap - self.slots.available_permits();
        self.peak.fetch_max(busy, Ordering::Relaxed);
        Some(Slot { _permit: permit })
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
        let a = requests.slot().unwrap();
        let _b = requests.slot().unwrap();
        assert!(requests.slot().is_none());
        assert_eq!(requests.stats().in_flight, 2);
        drop(a);
        assert!(requests.slot().is_some());
        assert_eq!(requests.stats().peak_in_flight, 2);
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
