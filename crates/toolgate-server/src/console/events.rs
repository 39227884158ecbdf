//! `GET /ui/events`: server-sent events telling an open console page that what it
//! shows changed. The server looks once a second (the open incidents in the store,
//! each dependency's state) and sends an event only when something changed:
//! `incidents` (`{"open": N, "newest": id}`) or `dependencies` (`{"name": "state"}`).
//! The page then fetches itself again and swaps its content (console.js). The first
//! event is `ready`, once the server has taken what it compares against: the page
//! fetches itself once then, for what changed between its rendering and the stream.
//!
//! Bounded: at most [`MAX_STREAMS`] streams at once (each costs a store read a
//! second); one more is refused with 503, and the browser's `EventSource` retries.
//! A stream ends when the server shuts down, so an open console tab never holds up
//! the drain.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Extension;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use toolgate_engine::gateway::Gateway;

/// Streams open at once, over every console tab.
pub const MAX_STREAMS: usize = 32;

/// How often the server looks for changes.
const EVERY: Duration = Duration::from_secs(1);

static STREAMS: AtomicUsize = AtomicUsize::new(0);

/// One open stream's slot; given back when the stream is dropped (the tab closed).
struct Slot;

impl Slot {
    fn take() -> Option<Slot> {
        let mut n = STREAMS.load(Ordering::Relaxed);
        loop {
            if n >= MAX_STREAMS {
                return None;
            }
            match STREAMS.compare_exchange_weak(n, n + 1, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return Some(Slot),
                Err(now) => n = now,
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        STREAMS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What one stream last sent.
struct Watch {
    gateway: Arc<Gateway>,
    incidents: Option<Value>,
    dependencies: Option<Value>,
    queue: VecDeque<Event>,
    tick: tokio::time::Interval,
    shutdown: CancellationToken,
    ready: bool,
    _slot: Slot,
}

impl Watch {
    async fn look(&mut self) {
        if let Ok(open) = self.gateway.store().incidents(false).await {
            // What a page shows of an open incident: that it is open, its sightings
            // and whether someone acknowledged it.
            let now = json!({
                "open": open.len(),
                "newest": open.iter().map(|i| i.id).max(),
                "state": open.iter().map(|i| json!([i.id, i.count, i.acked_by.is_some()])).collect::<Vec<_>>(),
            });
            if self.incidents.as_ref().is_some_and(|before| *before != now) {
                let data = json!({ "open": now["open"], "newest": now["newest"] });
                self.queue
                    .push_back(Event::default().event("incidents").data(data.to_string()));
            }
            self.incidents = Some(now);
        }
        let now_instant = tokio::time::Instant::now();
        let mut deps = Map::new();
        for (name, state) in self.gateway.dependencies() {
            let snap = state.report_snapshot(now_instant).await.to_json();
            deps.insert(
                name.clone(),
                json!([
                    snap["status"],
                    snap["breaker"]["state"],
                    snap["latency"]["brownout"],
                    snap["status_page"]["health"]
                ]),
            );
        }
        let now = Value::Object(deps);
        if self
            .dependencies
            .as_ref()
            .is_some_and(|before| *before != now)
        {
            let data: Map<String, Value> = now
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v[0].clone()))
                .collect();
            self.queue.push_back(
                Event::default()
                    .event("dependencies")
                    .data(Value::Object(data).to_string()),
            );
        }
        self.dependencies = Some(now);
    }
}

/// `GET /ui/events`.
pub async fn stream(
    super::Serving(gateway): super::Serving,
    Extension(shutdown): Extension<CancellationToken>,
) -> Response {
    let Some(slot) = Slot::take() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many console event streams are open",
        )
            .into_response();
    };
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let watch = Watch {
        gateway,
        incidents: None,
        dependencies: None,
        queue: VecDeque::new(),
        tick,
        shutdown,
        ready: false,
        _slot: slot,
    };
    let events = futures_util::stream::unfold(watch, |mut w| async move {
        loop {
            if let Some(event) = w.queue.pop_front() {
                return Some((Ok::<Event, Infallible>(event), w));
            }
            tokio::select! {
                () = w.shutdown.cancelled() => return None,
                _ = w.tick.tick() => {}
            }
            w.look().await;
            if !w.ready {
                w.ready = true;
                w.queue
                    .push_front(Event::default().event("ready").data("{}"));
            }
        }
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
