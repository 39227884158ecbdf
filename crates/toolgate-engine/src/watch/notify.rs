//! Incident notification: webhooks for the incident's owner and the global ones.
//!
//! [`Notifier::notify`] is called from the call path, so it never waits and never fails:
//! it applies the per-incident throttle and puts the notification on a bounded queue.
//! A worker task takes notifications off the queue and spawns one delivery task per
//! target (at most [`Settings::concurrency`] at a time), so a slow or dead webhook only
//! ever delays itself. A delivery is retried a few times with a short backoff and then
//! recorded as a dead letter in the [`Store`], as is a notification that finds the queue
//! full.
//!
//! Webhook URLs may carry credentials (userinfo, query tokens): logs and dead letters only
//! ever show `scheme://host[:port]/path`.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

use crate::sync::lock;
use toolgate_config::{AlertsConfig, WebhookFormat};
use toolgate_store::{Incident, Store};

/// What happened to an incident.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// A new incident.
    Opened,
    /// An open incident was seen again.
    Updated,
    /// The incident is over.
    Resolved,
}

impl Event {
    /// The word used in payloads and texts.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Opened => "opened",
            Event::Updated => "updated",
            Event::Resolved => "resolved",
        }
    }
}

/// Delivery tuning; the defaults are the production values, tests shorten them.
#[derive(Debug, Clone)]
struct Settings {
    /// Queue capacity between `notify` and the worker.
    capacity: usize,
    /// Deliveries in flight at once (across all targets).
    concurrency: usize,
    /// TCP/TLS connect timeout.
    connect_timeout: Duration,
    /// Total timeout of one attempt.
    timeout: Duration,
    /// Pause before each retry; attempts in total = `backoff.len() + 1`.
    backoff: Vec<Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            capacity: 1024,
            concurrency: 64,
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(10),
            backoff: vec![Duration::from_millis(200), Duration::from_secs(1)],
        }
    }
}

/// Above this many remembered incidents, entries older than the throttle are dropped.
const THROTTLE_PRUNE_AT: usize = 4096;

/// Longest incident title put in a text (in characters).
const MAX_TITLE_CHARS: usize = 500;

/// Delivers incident notifications to the owner's webhooks and the global ones, in the
/// background.
pub struct Notifier {
    tx: mpsc::Sender<Job>,
    alerts: Arc<AlertsConfig>,
    store: Store,
    runtime: tokio::runtime::Handle,
    /// Last notification sent per incident id.
    last_sent: Mutex<HashMap<i64, Instant>>,
    tracker: Arc<Tracker>,
}

impl std::fmt::Debug for Notifier {
    // Not derived: the webhook URLs may contain credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("global_webhooks", &self.alerts.webhooks.len())
            .field("owners", &self.alerts.owners.len())
            .field("throttle", &self.alerts.throttle)
            .field("pending", &self.tracker.pending())
            .finish_non_exhaustive()
    }
}

impl Notifier {
    /// Starts the delivery worker (a tokio task fed by a bounded channel).
    ///
    /// # Panics
    ///
    /// When called outside a tokio runtime.
    pub fn start(alerts: AlertsConfig, store: Store) -> Arc<Notifier> {
        Self::start_with(alerts, store, Settings::default())
    }

    fn start_with(alerts: AlertsConfig, store: Store, settings: Settings) -> Arc<Notifier> {
        crate::tls::init();
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolgate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                tracing::error!(error = %e, "cannot build the webhook HTTP client: notifications will be dead-lettered");
                format!("no HTTP client: {e}")
            });
        let alerts = Arc::new(alerts);
        let (tx, rx) = mpsc::channel(settings.capacity.max(1));
        let runtime = tokio::runtime::Handle::current();
        runtime.spawn(work(
            rx,
            Worker {
                alerts: alerts.clone(),
                store: store.clone(),
                client,
                settings: Arc::new(settings),
            },
        ));
        Arc::new(Notifier {
            tx,
            alerts,
            store,
            runtime,
            last_sent: Mutex::new(HashMap::new()),
            tracker: Arc::new(Tracker::default()),
        })
    }

    /// Whether incidents of `owner` go anywhere (an owner's or a global webhook).
    pub fn has_route(&self, owner: &str) -> bool {
        !self.alerts.targets(owner).is_empty()
    }

    /// Queues a notification; never blocks and never fails the caller.
    ///
    /// Throttling: at most one notification per incident id per `alerts.throttle`, except
    /// that `Opened` and `Resolved` are always sent. If the queue is full the notification
    /// is recorded as a dead letter (by a spawned task) and a warning is logged.
    pub fn notify(&self, incident: &Incident, event: Event) {
        if !self.admit(incident.id, event) {
            tracing::debug!(
                incident = incident.id,
                event = event.as_str(),
                "notification throttled"
            );
            return;
        }
        if self.alerts.targets(&incident.owner).is_empty() {
            return;
        }
        let job = Job {
            incident: incident.clone(),
            event,
            ticket: Arc::new(self.tracker.ticket()),
        };
        match self.tx.try_send(job) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(job)) => {
                tracing::warn!(
                    incident = job.incident.id,
                    owner = %job.incident.owner,
                    event = event.as_str(),
                    "the notification queue is full: recording the notification as a dead letter"
                );
                self.dead_letter_all(job, "notification queue full");
            }
            Err(mpsc::error::TrySendError::Closed(job)) => {
                tracing::warn!(
                    incident = job.incident.id,
                    "the notification worker has stopped: recording the notification as a dead letter"
                );
                self.dead_letter_all(job, "notifier stopped");
            }
        }
    }

    /// Waits until everything queued so far has been delivered or dead-lettered; false when
    /// `timeout` passed first.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let upto = self.tracker.next_seq();
        tokio::time::timeout(timeout, self.tracker.wait_below(upto))
            .await
            .is_ok()
    }

    /// The throttle decision; remembers what was let through.
    fn admit(&self, id: i64, event: Event) -> bool {
        let now = Instant::now();
        let throttle = self.alerts.throttle;
        let mut last = lock(&self.last_sent);
        let admitted = match event {
            Event::Opened => {
                last.insert(id, now);
                true
            }
            Event::Resolved => {
                last.remove(&id);
                true
            }
            Event::Updated => match last.get(&id) {
                Some(at) if now.saturating_duration_since(*at) < throttle => false,
                _ => {
                    last.insert(id, now);
                    true
                }
            },
        };
        if last.len() > THROTTLE_PRUNE_AT {
            last.retain(|_, at| now.saturating_duration_since(*at) < throttle);
        }
        admitted
    }

    /// Records one dead letter per target of `job`, from a spawned task.
    fn dead_letter_all(&self, job: Job, error: &'static str) {
        let text = text(&job.incident, job.event);
        let letters: Vec<(String, Value)> = self
            .alerts
            .targets(&job.incident.owner)
            .into_iter()
            .map(|t| {
                (
                    redact(&t.url),
                    payload(t.format, &job.incident, job.event, &text),
                )
            })
            .collect();
        let store = self.store.clone();
        self.runtime.spawn(async move {
            for (target, payload) in letters {
                if let Err(e) = store
                    .record_dead_letter(job.incident.id, target, error.to_string(), payload)
                    .await
                {
                    tracing::error!(incident = job.incident.id, error = %e, "could not record a dead letter");
                }
            }
            drop(job.ticket);
        });
    }
}

/// One queued notification.
struct Job {
    incident: Incident,
    event: Event,
    /// Released when every delivery of this job has finished.
    ticket: Arc<Ticket>,
}

/// What the worker needs.
struct Worker {
    alerts: Arc<AlertsConfig>,
    store: Store,
    client: Result<reqwest::Client, String>,
    settings: Arc<Settings>,
}

/// Takes notifications off the queue and spawns one delivery per target.
async fn work(mut rx: mpsc::Receiver<Job>, w: Worker) {
    let permits = Arc::new(Semaphore::new(w.settings.concurrency.max(1)));
    while let Some(job) = rx.recv().await {
        let text = text(&job.incident, job.event);
        for target in w.alerts.targets(&job.incident.owner) {
            let Ok(permit) = permits.clone().acquire_owned().await else {
                return;
            };
            let delivery = Delivery {
                client: w.client.clone(),
                store: w.store.clone(),
                url: target.url.clone(),
                incident: job.incident.id,
                event: job.event,
                payload: payload(target.format, &job.incident, job.event, &text),
                settings: w.settings.clone(),
            };
            let ticket = job.ticket.clone();
            tokio::spawn(async move {
                delivery.run().await;
                drop(permit);
                drop(ticket);
            });
        }
    }
}

/// One payload to one target.
struct Delivery {
    client: Result<reqwest::Client, String>,
    store: Store,
    url: url::Url,
    incident: i64,
    event: Event,
    payload: Value,
    settings: Arc<Settings>,
}

impl Delivery {
    /// Posts with retries, then dead-letters.
    async fn run(self) {
        let shown = redact(&self.url);
        let attempts = self.settings.backoff.len() + 1;
        let mut last_error = String::new();
        for attempt in 1..=attempts {
            if let Some(pause) = attempt
                .checked_sub(2)
                .and_then(|i| self.settings.backoff.get(i))
            {
                tokio::time::sleep(*pause).await;
            }
            match self.post().await {
                Ok(()) => {
                    tracing::debug!(webhook = %shown, incident = self.incident, attempt, "notification delivered");
                    self.remember(shown, attempt, None).await;
                    return;
                }
                Err(e) => {
                    tracing::warn!(webhook = %shown, incident = self.incident, attempt, error = %e, "webhook delivery failed");
                    last_error = e;
                }
            }
        }
        tracing::warn!(
            webhook = %shown,
            incident = self.incident,
            attempts,
            error = %last_error,
            "giving up on the webhook: recording a dead letter"
        );
        self.remember(shown.clone(), attempts, Some(last_error.clone()))
            .await;
        if let Err(e) = self
            .store
            .record_dead_letter(self.incident, shown, last_error, self.payload)
            .await
        {
            tracing::error!(incident = self.incident, error = %e, "could not record a dead letter");
        }
    }

    /// Records how the delivery ended, for the incident's page.
    async fn remember(&self, target: String, attempts: usize, error: Option<String>) {
        let attempts = u32::try_from(attempts).unwrap_or(u32::MAX);
        if let Err(e) = self
            .store
            .record_delivery(self.incident, self.event.as_str(), target, attempts, error)
            .await
        {
            tracing::warn!(incident = self.incident, error = %e, "could not record a webhook delivery");
        }
    }

    /// One attempt; the error is a short text without the URL.
    async fn post(&self) -> Result<(), String> {
        let client = self.client.as_ref().map_err(Clone::clone)?;
        match client
            .post(self.url.clone())
            .json(&self.payload)
            .send()
            .await
        {
            Ok(resp) if resp.status().is_success() => Ok(()),
            Ok(resp) => Err(format!("HTTP {}", resp.status().as_u16())),
            Err(e) => Err(describe(&e)),
        }
    }
}

/// A transport failure in words that never contain the URL.
fn describe(e: &reqwest::Error) -> String {
    use std::error::Error as _;
    if e.is_timeout() {
        return "timeout".into();
    }
    // reqwest's own message includes the URL; its sources (hyper, io) describe the socket.
    let mut chain = Vec::new();
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
                std::io::ErrorKind::TimedOut => return "timeout".into(),
                std::io::ErrorKind::ConnectionReset => return "connection reset".into(),
                _ => {}
            }
        }
        chain.push(s.to_string());
        source = s.source();
    }
    let all = chain.join(": ");
    if all.to_ascii_lowercase().contains("connection refused") {
        return "connection refused".into();
    }
    let what = if e.is_connect() {
        "could not connect"
    } else if e.is_request() {
        "the request could not be sent"
    } else {
        "transport error"
    };
    if all.is_empty() {
        what.into()
    } else {
        format!("{what}: {all}")
    }
}

/// `scheme://host[:port]/path`: no userinfo, query or fragment.
fn redact(url: &url::Url) -> String {
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    // Webhook URLs often carry their secret in the path (Slack's /services/T/B/<secret>,
    // Discord's /api/webhooks/<id>/<token>): keep the first segment only.
    let mut segments = url.path().trim_start_matches('/').splitn(2, '/');
    let first = segments.next().unwrap_or("");
    let more = if segments.next().is_some_and(|rest| !rest.is_empty()) {
        "/…"
    } else {
        ""
    };
    format!(
        "{}://{}{port}/{first}{more}",
        url.scheme(),
        url.host_str().unwrap_or("")
    )
}

/// The one-line text: what changed, the tool, the owner, the dependency.
fn text(incident: &Incident, event: Event) -> String {
    let title: String = incident
        .title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let title = if title.chars().count() > MAX_TITLE_CHARS {
        let cut: String = title.chars().take(MAX_TITLE_CHARS).collect();
        format!("{cut}…")
    } else {
        title
    };
    let what = if title.contains(&incident.tool) {
        title
    } else {
        format!("{}: {title}", incident.tool)
    };
    let (state, seen) = match event {
        Event::Resolved => ("now resolved; ", " while open"),
        _ => ("", ""),
    };
    format!(
        "[toolgate] {}: {what} ({state}owner {}, dependency {}, incident #{}, seen {}×{seen})",
        event.as_str(),
        incident.owner,
        incident.dependency,
        incident.id,
        incident.count,
    )
}

/// The request body for a target.
fn payload(format: WebhookFormat, incident: &Incident, event: Event, text: &str) -> Value {
    match format {
        WebhookFormat::Json => json!({
            "event": event,
            "incident": incident,
            "owner": incident.owner,
            "text": text,
        }),
        WebhookFormat::Slack => json!({ "text": slack_escape(text) }),
    }
}

/// Slack treats `&`, `<` and `>` as markup; the text is plain.
fn slack_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Which queued jobs are not finished yet, for [`Notifier::flush`].
#[derive(Debug, Default)]
struct Tracker {
    state: Mutex<TrackerState>,
    changed: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct TrackerState {
    next: u64,
    pending: BTreeSet<u64>,
}

impl Tracker {
    fn ticket(self: &Arc<Self>) -> Ticket {
        let mut s = lock(&self.state);
        let seq = s.next;
        s.next += 1;
        s.pending.insert(seq);
        Ticket {
            seq,
            tracker: self.clone(),
        }
    }

    fn next_seq(&self) -> u64 {
        lock(&self.state).next
    }

    fn pending(&self) -> usize {
        lock(&self.state).pending.len()
    }

    /// Returns once no job numbered below `upto` is pending.
    async fn wait_below(&self, upto: u64) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if lock(&self.state)
                .pending
                .first()
                .is_none_or(|first| *first >= upto)
            {
                return;
            }
            changed.await;
        }
    }
}

/// A queued job; dropping it marks the job finished.
struct Ticket {
    seq: u64,
    tracker: Arc<Tracker>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        lock(&self.tracker.state).pending.remove(&self.seq);
        self.tracker.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests;
