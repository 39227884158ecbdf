//! Incidents: the one service that raises and clears them, for the pipeline, the probes
//! and the alert rules alike.
//!
//! Raising never waits for the store. An incident breaks exactly when an upstream
//! breaks — the moment every call to it drifts — so the open incidents live in an
//! in-memory index keyed by (kind, tool, fingerprint): a repeat sighting bumps a
//! counter there, and one writer task writes new incidents, merged sightings and
//! resolutions out to the store, then tells the owners. A drifting call costs about
//! what a valid call costs.
//!
//! Notifications: one per opened incident; updates go through the notifier's
//! per-incident throttle; an incident that re-opens within the throttle after being
//! resolved (a flapping upstream) is announced as an update, not as a new page. With a
//! store shared by replicas, the writer first claims the notification in the store, so
//! of the replicas that saw the same incident one tells the owner.
//!
//! A write the store refuses because it is unavailable (PostgreSQL down or restarting)
//! stays queued, in order, and is retried with backoff; upserts make the retry safe.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agents::CallAgent;
use crate::sync::lock;
use crate::watch::notify::{Event, Notifier};
use toolgate_store::{Incident, IncidentKind, NewIncident, Store};

/// Writes waiting for the writer; beyond this (a store stuck for minutes) new writes are
/// dropped with a log line rather than growing memory. Sightings of open incidents are
/// merged in the index and never take a slot.
const QUEUE_CAP: usize = 4096;

/// How often the writer looks for merged sightings even when nothing woke it.
const WRITE_EVERY: Duration = Duration::from_millis(250);

/// The first pause after the store refused a write; doubled per failed batch up to
/// [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(250);

/// The longest pause between attempts at an unavailable store.
const RETRY_MAX: Duration = Duration::from_secs(5);

/// Distinct incidents of one kind open at once for one tool. What tells incidents apart
/// can come from the upstream's reply (a drift under a map key that is new on every
/// reply, a sunset date or a definition that changes on every listing), so without a
/// bound one upstream would open an incident, write a row and page its owner per call,
/// and fill the writer's queue that every tool shares until other tools' incidents are
/// dropped. Beyond it, a new one is counted into the tool's [`CROWDED`] incident.
pub const MAX_OPEN_PER_TOOL: usize = 16;

/// The fingerprint of the incident that counts a tool's incidents of one kind beyond
/// [`MAX_OPEN_PER_TOOL`]; its title and detail are the latest one's.
pub const CROWDED: &str = "more-than-max-open";

/// The identity of an open incident.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    kind: IncidentKind,
    tool: String,
    fingerprint: String,
}

impl Key {
    fn of(n: &NewIncident) -> Key {
        Key {
            kind: n.kind,
            tool: n.tool.clone(),
            fingerprint: n.fingerprint.clone(),
        }
    }
}

/// An open incident, as the index knows it.
#[derive(Debug)]
struct Open {
    /// The latest sighting, written out with the merged count.
    latest: NewIncident,
    /// Sightings not yet written.
    unwritten: u32,
    /// Which agents made the unwritten sightings.
    hits: Hits,
    /// Its id in the store, once written (or restored).
    id: Option<i64>,
}

/// Which incident a call opened or counted into: its (kind, tool, fingerprint). The
/// store's id follows once the writer has written it ([`Incidents::id_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncidentRef {
    pub kind: IncidentKind,
    pub tool: String,
    pub fingerprint: String,
}

/// Sightings by configured agents not yet written, per agent: at most
/// [`toolgate_store::AGENTS_LISTED`] names (an agent's handle is a pointer to its
/// config, so counting a sighting allocates nothing), the rest counted.
#[derive(Debug, Default)]
struct Hits {
    agents: Vec<(CallAgent, u32)>,
    unlisted: u32,
}

impl Hits {
    fn of(agent: Option<&CallAgent>) -> Hits {
        let mut hits = Hits::default();
        hits.add(agent);
        hits
    }

    fn add(&mut self, agent: Option<&CallAgent>) {
        let Some(agent) = agent else {
            return;
        };
        if let Some((_, n)) = self
            .agents
            .iter_mut()
            .find(|(a, _)| a.name() == agent.name())
        {
            *n = n.saturating_add(1);
        } else if self.agents.len() < toolgate_store::AGENTS_LISTED {
            self.agents.push((agent.clone(), 1));
        } else {
            self.unlisted = self.unlisted.saturating_add(1);
        }
    }

    fn names(&self) -> Vec<(String, u32)> {
        self.agents
            .iter()
            .map(|(a, n)| (a.name().to_string(), *n))
            .collect()
    }
}

/// A write for the writer task.
#[derive(Debug)]
enum Write {
    /// A new incident, or sightings of an open one, with the agents that made them.
    Open(NewIncident, Hits),
    /// Resolve the open incidents of (kind, tool[, fingerprint]).
    Resolve {
        kind: IncidentKind,
        tool: String,
        fingerprint: Option<String>,
        why: String,
    },
    /// Remember a tool's deprecation notice across restarts.
    Deprecation { tool: String, notice: Value },
}

#[derive(Debug, Default)]
struct Index {
    open: HashMap<Key, Open>,
    /// How many incidents each (kind, tool) has open: kept beside `open` so the bound
    /// is checked without walking every open incident.
    open_per_tool: HashMap<(IncidentKind, String), usize>,
    queue: VecDeque<Write>,
    /// Writes the store refused while unavailable, with their sightings, oldest first:
    /// retried before anything newer.
    retry: VecDeque<(Write, u32)>,
    /// Keys of open incidents with unwritten sightings.
    dirty: Vec<Key>,
    /// When each key last opened, for the flapping rule.
    opened_at: HashMap<Key, Instant>,
    /// Whether the writer is in the middle of a batch.
    writing: bool,
    dropped: u64,
}

/// The incident service; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Incidents {
    index: Mutex<Index>,
    wake: Notify,
    notifier: Option<Arc<Notifier>>,
    /// How long a re-opened incident counts as the same page.
    throttle: Duration,
}

/// What [`Incidents::raise`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raised {
    /// A new incident opened.
    Opened,
    /// The open incident with the same fingerprint was seen again.
    Seen,
}

impl Incidents {
    /// A service whose writes go to `store` and whose notifications go through
    /// `notifier`, once [`Incidents::run_writer`] runs.
    pub fn new(notifier: Option<Arc<Notifier>>, throttle: Duration) -> Incidents {
        Incidents {
            index: Mutex::new(Index::default()),
            wake: Notify::new(),
            notifier,
            throttle,
        }
    }

    /// Whether `owner` has a notification route (a webhook that takes their incidents):
    /// only then may the model be told "the owner has been alerted".
    pub fn reaches(&self, owner: &str) -> bool {
        self.notifier.as_ref().is_some_and(|n| n.has_route(owner))
    }

    /// Opens an incident, or counts a sighting of the open one with the same (kind,
    /// tool, fingerprint). Never waits: the store write happens in the writer.
    pub fn raise(&self, incident: NewIncident) -> Raised {
        self.raise_by(incident, None)
    }

    /// [`Incidents::raise`] for a sighting an agent's call made: the incident records
    /// which agents hit it.
    pub fn raise_by(&self, mut incident: NewIncident, agent: Option<&CallAgent>) -> Raised {
        let mut key = Key::of(&incident);
        let mut g = lock(&self.index);
        if !g.open.contains_key(&key) && g.crowded(&key) {
            incident = crowded(incident);
            key = Key::of(&incident);
        }
        if let Some(open) = g.open.get_mut(&key) {
            open.unwritten += 1;
            open.hits.add(agent);
            open.latest = incident;
            if open.unwritten == 1 {
                g.dirty.push(key);
            }
            return Raised::Seen;
        }
        log_opened(&incident);
        g.insert_open(
            key,
            Open {
                latest: incident.clone(),
                unwritten: 0,
                hits: Hits::default(),
                id: None,
            },
        );
        push(&mut g, Write::Open(incident, Hits::of(agent)));
        drop(g);
        self.wake.notify_one();
        Raised::Opened
    }

    /// Counts a sighting of the open incident (kind, tool, fingerprint) and returns true,
    /// or returns false when none is open — then the caller builds and raises it. Lets a
    /// hot path skip building an incident's title and detail for every repeat.
    pub fn sighting(&self, kind: IncidentKind, tool: &str, fingerprint: &str) -> bool {
        self.sighting_by(kind, tool, fingerprint, None)
    }

    /// [`Incidents::sighting`] made by an agent's call.
    pub fn sighting_by(
        &self,
        kind: IncidentKind,
        tool: &str,
        fingerprint: &str,
        agent: Option<&CallAgent>,
    ) -> bool {
        let mut key = Key {
            kind,
            tool: tool.to_string(),
            fingerprint: fingerprint.to_string(),
        };
        let mut g = lock(&self.index);
        if !g.open.contains_key(&key) && g.crowded(&key) {
            // Counted into the tool's crowded incident once that is open, without the
            // caller building a title and detail that would be dropped.
            key.fingerprint = CROWDED.to_owned();
        }
        let Some(open) = g.open.get_mut(&key) else {
            return false;
        };
        open.unwritten += 1;
        open.hits.add(agent);
        if open.unwritten == 1 {
            g.dirty.push(key);
        }
        true
    }

    /// Resolves the open incidents of (kind, tool), or only the one with `fingerprint`.
    /// Free when none is open (the rules call it every round).
    pub fn clear(&self, kind: IncidentKind, tool: &str, fingerprint: Option<&str>, why: &str) {
        let mut g = lock(&self.index);
        let before = g.open.len();
        g.open.retain(|k, _| {
            !(k.kind == kind && k.tool == tool && fingerprint.is_none_or(|f| f == k.fingerprint))
        });
        let closed = before - g.open.len();
        if closed == 0 {
            return;
        }
        g.forget_open(kind, tool, closed);
        g.dirty.retain(|k| {
            !(k.kind == kind && k.tool == tool && fingerprint.is_none_or(|f| f == k.fingerprint))
        });
        tracing::info!(kind = kind.as_str(), %tool, "incident resolved: {why}");
        push(
            &mut g,
            Write::Resolve {
                kind,
                tool: tool.to_string(),
                fingerprint: fingerprint.map(str::to_string),
                why: why.to_string(),
            },
        );
        drop(g);
        self.wake.notify_one();
    }

    /// Resolves stored incident `id` by hand (the console, `POST
    /// /admin/incidents/{id}/resolve`), recording `who`. It leaves the index first, so a
    /// later sighting of the same breakage opens a new incident instead of counting
    /// into the resolved one. `None`: no such incident.
    pub async fn resolve_by(
        &self,
        store: &Store,
        id: i64,
        who: &str,
    ) -> Result<Option<Incident>, toolgate_store::StoreError> {
        let Some(stored) = store.incident(id).await? else {
            return Ok(None);
        };
        if stored.status == "open"
            && let Some(kind) = IncidentKind::parse(&stored.kind)
        {
            let key = Key {
                kind,
                tool: stored.tool.clone(),
                fingerprint: stored.fingerprint.clone(),
            };
            let mut g = lock(&self.index);
            if g.open.remove(&key).is_some() {
                g.forget_open(kind, &key.tool, 1);
            }
            g.dirty.retain(|k| *k != key);
            drop(g);
            tracing::info!(kind = kind.as_str(), tool = %stored.tool, id, %who, "incident resolved by hand");
        }
        store.resolve_by(id, who.to_string()).await
    }

    /// The store's id of the open incident `r`; `None` while it is not written yet (or
    /// no longer open).
    /// One counted into the tool's [`CROWDED`] incident has that one's id.
    pub fn id_of(&self, r: &IncidentRef) -> Option<i64> {
        let mut key = Key {
            kind: r.kind,
            tool: r.tool.clone(),
            fingerprint: r.fingerprint.clone(),
        };
        let g = lock(&self.index);
        if !g.open.contains_key(&key) && g.crowded(&key) {
            key.fingerprint = CROWDED.to_owned();
        }
        g.open.get(&key).and_then(|o| o.id)
    }

    /// Whether an incident of (kind, tool) is open.
    pub fn is_open(&self, kind: IncidentKind, tool: &str) -> bool {
        lock(&self.index)
            .open
            .keys()
            .any(|k| k.kind == kind && k.tool == tool)
    }

    /// Open incidents of (kind, tool) and how often each was seen since this process
    /// started or restored it (merged sightings included).
    pub fn open_of(&self, kind: IncidentKind, tool: &str) -> Vec<(String, u32)> {
        lock(&self.index)
            .open
            .iter()
            .filter(|(k, _)| k.kind == kind && k.tool == tool)
            .map(|(k, o)| (k.fingerprint.clone(), o.unwritten))
            .collect()
    }

    /// The agents of the sightings of (kind, tool) not yet written, by name (tests).
    #[cfg(test)]
    pub(crate) fn unwritten_agents(&self, kind: IncidentKind, tool: &str) -> Vec<(String, u32)> {
        let g = lock(&self.index);
        let mut all: std::collections::BTreeMap<String, u32> = Default::default();
        let queued = g.queue.iter().filter_map(|w| match w {
            Write::Open(i, hits) if i.kind == kind && i.tool == tool => Some(hits),
            _ => None,
        });
        let open = g
            .open
            .iter()
            .filter(|(k, _)| k.kind == kind && k.tool == tool)
            .map(|(_, o)| &o.hits);
        for hits in queued.chain(open) {
            for (name, n) in hits.names() {
                *all.entry(name).or_default() += n;
            }
        }
        all.into_iter().collect()
    }

    /// Remembers a tool's deprecation notice in the store, off the call path. Only the
    /// latest notice of a tool matters, so one still waiting for the writer is replaced:
    /// an upstream whose notice changes on every reply costs one pending write, not one
    /// per reply crowding every other tool's incidents out of the queue.
    pub fn save_deprecation(&self, tool: &str, notice: Value) {
        let mut guard = lock(&self.index);
        let g = &mut *guard;
        // The queue is drained every WRITE_EVERY, so this walks few writes.
        let waiting = g
            .queue
            .iter_mut()
            .chain(g.retry.iter_mut().map(|(w, _)| w))
            .find_map(|w| match w {
                Write::Deprecation { tool: t, notice } if t == tool => Some(notice),
                _ => None,
            });
        if let Some(waiting) = waiting {
            *waiting = notice;
            return;
        }
        push(
            g,
            Write::Deprecation {
                tool: tool.to_string(),
                notice,
            },
        );
        drop(guard);
        self.wake.notify_one();
    }

    /// Loads the store's open incidents into the index, so a restart neither re-opens
    /// nor re-pages what is already open. Returns them for the caller's own state.
    pub async fn restore(&self, store: &Store) -> Vec<Incident> {
        let open = match store.incidents(false).await {
            Ok(open) => open,
            Err(e) => {
                tracing::error!(error = %e, "could not read open incidents at start-up");
                return Vec::new();
            }
        };
        let mut g = lock(&self.index);
        for i in &open {
            let Some(kind) = IncidentKind::parse(&i.kind) else {
                continue;
            };
            let latest = NewIncident {
                kind,
                tool: i.tool.clone(),
                dependency: i.dependency.clone(),
                owner: i.owner.clone(),
                fingerprint: i.fingerprint.clone(),
                title: i.title.clone(),
                detail: i.detail.clone(),
                contract_version: i.contract_version.clone(),
            };
            g.insert_open(
                Key::of(&latest),
                Open {
                    latest,
                    unwritten: 0,
                    hits: Hits::default(),
                    id: Some(i.id),
                },
            );
        }
        open
    }

    /// The writer: writes queued incidents and merged sightings to `store` and tells
    /// the owners, until `shutdown` is cancelled — then writes what is left and returns.
    ///
    /// While the store is unavailable the writer pauses between attempts (backoff up to
    /// [`RETRY_MAX`]) and keeps what it could not write.
    pub async fn run_writer(self: Arc<Self>, store: Store, shutdown: CancellationToken) {
        let mut pause: Option<Duration> = None;
        loop {
            let stopping = match pause {
                // Backing off: only shutdown interrupts the pause.
                Some(p) => tokio::select! {
                    _ = shutdown.cancelled() => true,
                    _ = tokio::time::sleep(p) => false,
                },
                None => tokio::select! {
                    _ = shutdown.cancelled() => true,
                    _ = self.wake.notified() => false,
                    _ = tokio::time::sleep(WRITE_EVERY) => false,
                },
            };
            let written = self.write_batch(&store).await;
            pause = if written {
                None
            } else {
                Some(pause.map_or(RETRY_FIRST, |p| (p * 2).min(RETRY_MAX)))
            };
            if stopping {
                // A last pass for what the final batch itself queued (none today).
                if written {
                    self.write_batch(&store).await;
                }
                return;
            }
        }
    }

    /// Waits until every write queued so far is in the store and handed to the notifier,
    /// and the notifier delivered it; false when `timeout` passed first.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let drained = async {
            loop {
                {
                    let g = lock(&self.index);
                    if g.queue.is_empty() && g.retry.is_empty() && g.dirty.is_empty() && !g.writing
                    {
                        return;
                    }
                }
                self.wake.notify_one();
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        let started = Instant::now();
        if tokio::time::timeout(timeout, drained).await.is_err() {
            return false;
        }
        match &self.notifier {
            Some(n) => n.flush(timeout.saturating_sub(started.elapsed())).await,
            None => true,
        }
    }

    /// Writes what is pending; false when the store was unavailable (what was not
    /// written is kept for the next batch).
    async fn write_batch(&self, store: &Store) -> bool {
        let batch = {
            let mut g = lock(&self.index);
            let mut batch: Vec<(Write, u32)> = g.retry.drain(..).collect();
            let queued: Vec<Write> = g.queue.drain(..).collect();
            batch.extend(queued.into_iter().map(|w| (w, 1)));
            let dirty = std::mem::take(&mut g.dirty);
            for key in dirty {
                if let Some(open) = g.open.get_mut(&key) {
                    let seen = std::mem::take(&mut open.unwritten);
                    let hits = std::mem::take(&mut open.hits);
                    if seen > 0 {
                        batch.push((Write::Open(open.latest.clone(), hits), seen));
                    }
                }
            }
            g.writing = !batch.is_empty();
            batch
        };
        let mut batch = VecDeque::from(batch);
        let mut written = true;
        while let Some((write, seen)) = batch.pop_front() {
            if let Err(again) = self.write(store, write, seen).await {
                // The store is unavailable: keep this write and everything after it, in
                // order, ahead of what was queued meanwhile.
                batch.push_front((again, seen));
                let mut g = lock(&self.index);
                while let Some(w) = batch.pop_back() {
                    g.retry.push_front(w);
                }
                written = false;
                break;
            }
        }
        lock(&self.index).writing = false;
        written
    }

    /// One write; gives the write back when the store was unavailable (then it is worth
    /// retrying). Any other failure is logged and the write dropped.
    async fn write(&self, store: &Store, write: Write, seen: u32) -> Result<(), Write> {
        match write {
            Write::Open(incident, hits) => {
                let key = Key::of(&incident);
                match store
                    .record_sightings_by(incident.clone(), seen, hits.names(), hits.unlisted)
                    .await
                {
                    Ok(r) => {
                        let Some(stored) = r.incident else {
                            return Ok(());
                        };
                        if let Some(open) = lock(&self.index).open.get_mut(&key) {
                            open.id = Some(stored.id);
                        }
                        let event = if r.opened && !self.flapping(&key) {
                            Event::Opened
                        } else {
                            Event::Updated
                        };
                        if let Some(n) = &self.notifier
                            && n.has_route(&stored.owner)
                            && self.claim(store, &stored, event, r.opened).await
                        {
                            n.notify(&stored, event);
                        }
                        Ok(())
                    }
                    Err(e) if e.is_transient() => {
                        unavailable(&e, "an incident");
                        Err(Write::Open(incident, hits))
                    }
                    Err(e) => {
                        tracing::error!(kind = incident.kind.as_str(), tool = %incident.tool, error = %e, "could not record an incident");
                        Ok(())
                    }
                }
            }
            Write::Resolve {
                kind,
                tool,
                fingerprint,
                why,
            } => match store
                .resolve(kind, tool.clone(), fingerprint.clone(), why.clone())
                .await
            {
                Ok(resolved) => {
                    for i in resolved {
                        if let Some(n) = &self.notifier {
                            n.notify(&i, Event::Resolved);
                        }
                    }
                    Ok(())
                }
                Err(e) if e.is_transient() => {
                    unavailable(&e, "a resolution");
                    Err(Write::Resolve {
                        kind,
                        tool,
                        fingerprint,
                        why,
                    })
                }
                Err(e) => {
                    tracing::error!(kind = kind.as_str(), %tool, error = %e, "could not resolve incidents");
                    Ok(())
                }
            },
            Write::Deprecation { tool, notice } => {
                match store.save_deprecation(tool.clone(), notice.clone()).await {
                    Ok(()) => Ok(()),
                    Err(e) if e.is_transient() => {
                        unavailable(&e, "a deprecation notice");
                        Err(Write::Deprecation { tool, notice })
                    }
                    Err(e) => {
                        tracing::error!(%tool, error = %e, "could not remember the deprecation notice");
                        Ok(())
                    }
                }
            }
        }
    }

    /// Whether this replica is the one to notify about `stored` now. A store of one
    /// replica always says yes (the notifier throttles); a shared one lets one replica
    /// per incident and throttle through. If the claim itself fails, a new incident is
    /// still announced (a page twice beats none), an update is not.
    async fn claim(&self, store: &Store, stored: &Incident, event: Event, opened: bool) -> bool {
        if !store.is_shared() {
            return true;
        }
        match store
            .claim_notification(stored.id, self.throttle, opened)
            .await
        {
            Ok(won) => {
                if !won {
                    tracing::debug!(
                        incident = stored.id,
                        event = event.as_str(),
                        "another replica notifies about this incident"
                    );
                }
                won
            }
            Err(e) => {
                tracing::warn!(incident = stored.id, error = %e, "could not claim the notification");
                event == Event::Opened
            }
        }
    }

    /// Whether `key` opened less than the throttle ago (and remembers this opening).
    fn flapping(&self, key: &Key) -> bool {
        let now = Instant::now();
        let mut g = lock(&self.index);
        let recent = g
            .opened_at
            .insert(key.clone(), now)
            .is_some_and(|at| now.saturating_duration_since(at) < self.throttle);
        if g.opened_at.len() > QUEUE_CAP {
            let throttle = self.throttle;
            g.opened_at
                .retain(|_, at| now.saturating_duration_since(*at) < throttle);
        }
        recent
    }
}

impl Index {
    /// Whether (kind, tool) of `key` has as many incidents open as it may.
    fn crowded(&self, key: &Key) -> bool {
        key.fingerprint != CROWDED
            && self
                .open_per_tool
                .get(&(key.kind, key.tool.clone()))
                .is_some_and(|n| *n >= MAX_OPEN_PER_TOOL)
    }

    fn insert_open(&mut self, key: Key, open: Open) {
        *self
            .open_per_tool
            .entry((key.kind, key.tool.clone()))
            .or_default() += 1;
        self.open.insert(key, open);
    }

    /// `closed` incidents of (kind, tool) left `open`.
    fn forget_open(&mut self, kind: IncidentKind, tool: &str, closed: usize) {
        let per_tool = (kind, tool.to_owned());
        if let Some(n) = self.open_per_tool.get_mut(&per_tool) {
            *n = n.saturating_sub(closed);
            if *n == 0 {
                self.open_per_tool.remove(&per_tool);
            }
        }
    }
}

/// `incident` as the sighting of its tool's [`CROWDED`] incident.
fn crowded(incident: NewIncident) -> NewIncident {
    let title = format!(
        "{}: more than {MAX_OPEN_PER_TOOL} {} incidents open at once; the others are counted here (latest: {})",
        incident.tool,
        incident.kind.as_str(),
        incident.title
    );
    NewIncident {
        fingerprint: CROWDED.to_owned(),
        title,
        ..incident
    }
}

/// Logs a write kept for retry because the store is unavailable.
fn unavailable(e: &toolgate_store::StoreError, what: &str) {
    tracing::warn!(error = %e, "the state store is unavailable: keeping {what} queued and retrying");
}

fn push(g: &mut Index, write: Write) {
    if g.queue.len() + g.retry.len() >= QUEUE_CAP {
        g.dropped += 1;
        if g.dropped.is_power_of_two() {
            tracing::error!(
                dropped = g.dropped,
                "the incident writer is behind (is the state store stuck?): dropping incident writes"
            );
        }
        return;
    }
    g.queue.push_back(write);
}

/// The log line of a new incident: error for what breaks calls, warn for the rest.
fn log_opened(i: &NewIncident) {
    let (kind, tool, owner, title) = (i.kind.as_str(), &i.tool, &i.owner, &i.title);
    match i.kind {
        IncidentKind::ContractDrift
        | IncidentKind::AuthFailing
        | IncidentKind::RecoveryRateZero => {
            tracing::error!(kind, %tool, %owner, "{title}")
        }
        _ => tracing::warn!(kind, %tool, %owner, "{title}"),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod crowding_tests;
