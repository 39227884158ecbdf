//! The audit trail on the call path: every agent's call is recorded — agent, tool,
//! time, outcome, attempts, latency, a hash of the arguments — without the call ever
//! waiting for the store.
//!
//! A call hands its record to a bounded channel ([`QUEUE`] records) and goes on; one
//! writer task takes what has queued, and what joins it within [`LINGER`], up to
//! [`BATCH`] at a time, and writes it in one transaction. A record is acknowledged once
//! that transaction committed. When the channel is full (the store is slower than the
//! calls, or unavailable for long) the record is dropped, counted in
//! `toolgate_audit_records_dropped_total` and logged at most once a minute: an audit
//! trail that slowed or stopped the calls it records would turn a store hiccup into an
//! outage.
//!
//! A call that opened or counted into an incident hands over which one; the writer
//! puts the incident's id into the record once the incident writer has stored it
//! (waiting at most [`INCIDENT_WAIT`] per batch: an incident store that is down leaves
//! the id empty rather than holding the trail back).
//!
//! The arguments are never recorded, only the SHA-256 of their canonical JSON (object
//! keys sorted, no whitespace), so two calls with the same arguments can be matched up
//! without the store ever holding a secret a model put in an argument.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use toolgate_store::{AuditRecord, Store};

use crate::sync::lock;
use crate::watch::incidents::{IncidentRef, Incidents};

/// A record on its way to the writer, with the incident its call touched.
#[derive(Debug)]
struct Queued {
    record: AuditRecord,
    incident: Option<IncidentRef>,
}

/// Records waiting for the writer at most; beyond, new ones are dropped and counted.
pub const QUEUE: usize = 8_192;

/// Records written in one transaction at most.
pub const BATCH: usize = 512;

/// A full queue is logged at most this often (every drop is counted).
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The first pause after the store refused a batch; doubled up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(250);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// How long the writer waits after a batch's first record for more to join it. Without
/// it the writer, always idle when a record arrives, commits one transaction per call or
/// two: at a few thousand calls a second the store's commits cost more CPU than the
/// calls (a tenth of the gateway's CPU in `bench/run`). A record is acknowledged this
/// much later at most.
pub const LINGER: Duration = Duration::from_millis(20);

/// What arrives within [`LINGER`] of a batch's first record joins it, up to [`BATCH`].
/// The writer sleeps through the linger and takes what queued at its end: woken for
/// each record instead, it cost every call a wake-up of another thread (a futex call and
/// a context switch), more than the record itself. A queue already holding a batch is
/// taken at once.
async fn linger(rx: &mut mpsc::Receiver<Queued>, queued: &mut Vec<Queued>) {
    if queued.len() + rx.len() < BATCH {
        tokio::time::sleep(LINGER).await;
    }
    while queued.len() < BATCH {
        match rx.try_recv() {
            Ok(q) => queued.push(q),
            Err(_) => break,
        }
    }
}

/// How long a batch waits, at most, for the ids of incidents its calls opened.
pub const INCIDENT_WAIT: Duration = Duration::from_secs(2);

/// How often records past the retention are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(3_600);

/// Records deleted per statement: a long backlog is deleted in short transactions, so
/// the writer is never locked out for long.
pub const PRUNE_BATCH: u32 = 1_000;

/// A request id longer than this is cut (the client chooses it).
const MAX_REQUEST_ID: usize = 128;

/// The audit trail of one gateway; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct AuditLog {
    tx: mpsc::Sender<Queued>,
    rx: Mutex<Option<mpsc::Receiver<Queued>>>,
    /// Where the ids of the incidents calls touched come from.
    incidents: Option<Arc<Incidents>>,
    dropped: Counter,
    last_warned: Mutex<Option<Instant>>,
    /// Records accepted into the queue.
    accepted: AtomicU64,
    /// Records the writer is done with (committed, or given up on).
    settled: AtomicU64,
}

impl AuditLog {
    /// A trail whose queue holds `capacity` records; drops are counted in `dropped`.
    pub fn new(capacity: usize, dropped: Counter) -> AuditLog {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        AuditLog {
            tx,
            rx: Mutex::new(Some(rx)),
            incidents: None,
            dropped,
            last_warned: Mutex::new(None),
            accepted: AtomicU64::new(0),
            settled: AtomicU64::new(0),
        }
    }

    /// The same trail, filling in the ids of the incidents calls touched from
    /// `incidents`.
    #[must_use]
    pub fn with_incidents(mut self, incidents: Arc<Incidents>) -> AuditLog {
        self.incidents = Some(incidents);
        self
    }

    /// Hands one record to the writer. Never waits: a full queue drops the record.
    pub fn record(&self, record: AuditRecord) {
        self.record_with(record, None);
    }

    /// Hands one record to the writer, with the incident its call opened or counted
    /// into. Never waits: a full queue drops the record.
    pub fn record_with(&self, record: AuditRecord, incident: Option<IncidentRef>) {
        match self.tx.try_send(Queued { record, incident }) {
            Ok(()) => {
                self.accepted.fetch_add(1, Ordering::AcqRel);
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.dropped.inc();
                let mut last = lock(&self.last_warned);
                let now = Instant::now();
                if last.is_none_or(|t| now.duration_since(t) >= WARN_EVERY) {
                    *last = Some(now);
                    tracing::warn!(
                        dropped_total = self.dropped.get(),
                        "audit records dropped: the writer is behind (the store is slow or unavailable); see toolgate_audit_records_dropped_total"
                    );
                }
            }
            // The writer has stopped (shutdown): nothing can be written any more.
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }

    /// Waits until every record accepted so far is committed (or given up on); false
    /// when `timeout` passed first.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let target = self.accepted.load(Ordering::Acquire);
        let settled = async {
            while self.settled.load(Ordering::Acquire) < target {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(timeout, settled).await.is_ok()
    }

    /// The writer: writes queued records to `store` in batches until `shutdown` is
    /// cancelled, then writes what is left (one attempt) and returns. While the store
    /// refuses writes as unavailable it keeps the batch and retries with backoff.
    pub async fn run_writer(self: Arc<Self>, store: Store, shutdown: CancellationToken) {
        let Some(mut rx) = lock(&self.rx).take() else {
            return;
        };
        // Shared with the store's write, and kept as it is when the store refuses it, so
        // an attempt copies no record.
        let mut batch: Arc<[AuditRecord]> = Arc::new([]);
        let mut queued: Vec<Queued> = Vec::with_capacity(BATCH);
        let mut pause: Option<Duration> = None;
        loop {
            if batch.is_empty() {
                tokio::select! {
                    biased;
                    () = shutdown.cancelled() => break,
                    n = rx.recv_many(&mut queued, BATCH) => if n == 0 { return },
                }
                linger(&mut rx, &mut queued).await;
                batch = self
                    .with_incident_ids(&mut queued, INCIDENT_WAIT)
                    .await
                    .into();
            } else if let Some(p) = pause {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(p) => {}
                }
            }
            match store.record_audit(batch.clone()).await {
                Ok(()) => {
                    self.settle(batch.len());
                    batch = Arc::new([]);
                    pause = None;
                }
                Err(e) if e.is_transient() => {
                    tracing::warn!(error = %e, records = batch.len(), "audit records not written yet: the store is unavailable; retrying");
                    pause = Some(pause.map_or(RETRY_FIRST, |p| (p * 2).min(RETRY_MAX)));
                }
                Err(e) => {
                    tracing::error!(error = %e, records = batch.len(), "audit records could not be written");
                    self.settle(batch.len());
                    batch = Arc::new([]);
                }
            }
        }
        // Shutdown: no more records are accepted; what is queued is written once.
        rx.close();
        while let Some(q) = rx.recv().await {
            queued.push(q);
        }
        let mut left = batch.to_vec();
        left.extend(self.with_incident_ids(&mut queued, Duration::ZERO).await);
        for chunk in left.chunks(BATCH) {
            if let Err(e) = store.record_audit(chunk.to_vec()).await {
                tracing::error!(error = %e, records = chunk.len(), "audit records lost at shutdown");
            }
            self.settle(chunk.len());
        }
    }

    /// The records of `queued` (emptied), each with the id of the incident its call
    /// touched. Waits up to `wait` for incidents not written yet, then leaves them out.
    async fn with_incident_ids(
        &self,
        queued: &mut Vec<Queued>,
        wait: Duration,
    ) -> Vec<AuditRecord> {
        let Some(incidents) = &self.incidents else {
            return queued.drain(..).map(|q| q.record).collect();
        };
        let deadline = Instant::now() + wait;
        loop {
            let mut missing = false;
            for q in queued.iter_mut() {
                if let Some(r) = &q.incident {
                    q.record.incident_id = incidents.id_of(r);
                    missing |= q.record.incident_id.is_none();
                }
            }
            if !missing || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        queued.drain(..).map(|q| q.record).collect()
    }

    fn settle(&self, n: usize) {
        self.settled.fetch_add(n as u64, Ordering::AcqRel);
    }
}

/// The trail `config` asks for (`gateway.audit`), counting drops in `metrics` and
/// taking incident ids from `incidents`; `None` when turned off.
pub fn for_config(
    config: &toolgate_config::Config,
    metrics: &crate::metrics::Metrics,
    incidents: &Arc<Incidents>,
) -> Option<Arc<AuditLog>> {
    config.gateway.audit.enabled.then(|| {
        Arc::new(
            AuditLog::new(QUEUE, metrics.audit_records_dropped.clone())
                .with_incidents(incidents.clone()),
        )
    })
}

/// Deletes records older than `retention` now and every [`PRUNE_EVERY`], in batches of
/// [`PRUNE_BATCH`], until `shutdown`.
pub async fn run_prune(store: Store, retention: Duration, shutdown: CancellationToken) {
    loop {
        prune(&store, retention, &shutdown).await;
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(PRUNE_EVERY) => {}
        }
    }
}

/// One pruning pass; returns how many records it deleted.
pub async fn prune(store: &Store, retention: Duration, shutdown: &CancellationToken) -> u64 {
    let Ok(retention) = chrono::Duration::from_std(retention) else {
        return 0;
    };
    let cutoff = chrono::Utc::now() - retention;
    let mut deleted = 0;
    while !shutdown.is_cancelled() {
        match store.prune_audit(cutoff, PRUNE_BATCH).await {
            Ok(n) => {
                deleted += n;
                if n < u64::from(PRUNE_BATCH) {
                    break;
                }
                // Between batches the writer gets the store.
                tokio::task::yield_now().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not delete audit records past the retention; trying again later");
                break;
            }
        }
    }
    if deleted > 0 {
        tracing::info!(deleted, "audit records past the retention deleted");
    }
    deleted
}

/// SHA-256 (lowercase hex) of the arguments' canonical JSON: object keys sorted by
/// their UTF-8 bytes, no whitespace, strings and numbers as `serde_json` writes them.
pub fn args_sha256(args: &Map<String, Value>) -> String {
    let mut text = Vec::with_capacity(256);
    canonical_object(args, &mut text);
    let digest = ring::digest::digest(&ring::digest::SHA256, &text);
    lower_hex(digest.as_ref())
}

/// `bytes` in lowercase hex, two digits each, from a table: every call's record hashes
/// its arguments, and `format!` per byte cost more than the hash.
fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

fn canonical_object(m: &Map<String, Value>, out: &mut Vec<u8>) {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort_unstable();
    out.push(b'{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        canonical_string(k, out);
        out.push(b':');
        if let Some(v) = m.get(k) {
            canonical(v, out);
        }
    }
    out.push(b'}');
}

fn canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(m) => canonical_object(m, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        Value::String(s) => canonical_string(s, out),
        other => out.extend_from_slice(other.to_string().as_bytes()),
    }
}

fn canonical_string(s: &str, out: &mut Vec<u8>) {
    // serde_json escapes exactly what JSON requires; writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// What a call's record says besides its outcome.
#[derive(Debug)]
pub struct Started {
    /// When the call started (wall clock, for the record).
    pub at: chrono::DateTime<chrono::Utc>,
    /// When the call started (monotonic, for the latency).
    pub clock: Instant,
    /// [`args_sha256`] of the call's arguments.
    pub args_sha256: String,
}

impl Started {
    /// Notes the start of a call with `args`.
    pub fn now(args: &Map<String, Value>) -> Started {
        Started {
            at: chrono::Utc::now(),
            clock: Instant::now(),
            args_sha256: args_sha256(args),
        }
    }

    /// The record of the call that started here and ended with `error_class` (`None`:
    /// it succeeded) after `attempts` upstream requests.
    pub fn finish(
        self,
        agent: &str,
        tool: &str,
        error_class: Option<&str>,
        attempts: u32,
        ctx: &crate::upstream::CallContext,
    ) -> AuditRecord {
        let latency = self.clock.elapsed();
        AuditRecord {
            at: self.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            agent: agent.to_string(),
            tool: tool.to_string(),
            outcome: error_class.unwrap_or("ok").to_string(),
            attempts,
            latency_ms: u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
            args_sha256: self.args_sha256,
            incident_id: None,
            request_id: ctx.call_id.as_deref().map(|id| bounded(id, MAX_REQUEST_ID)),
            trace_id: ctx
                .meta
                .as_ref()
                .and_then(crate::trace_context::caller_context)
                .map(|c| c.trace_id().to_string()),
        }
    }
}

fn bounded(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

pub mod action;

#[cfg(test)]
mod tests;
