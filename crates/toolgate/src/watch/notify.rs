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

use crate::config::{AlertsConfig, WebhookFormat};
use crate::store::{Incident, Store};
use crate::sync::lock;

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
        if let Err(e) = self
            .store
            .record_dead_letter(self.incident, shown, last_error, self.payload)
            .await
        {
            tracing::error!(incident = self.incident, error = %e, "could not record a dead letter");
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
mod tests {
    use std::collections::BTreeMap;
    use std::net::SocketAddr;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::Router;
    use axum::body::Bytes;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode, Uri};

    use super::*;
    use crate::config::Webhook;

    /// What a test receiver does with each request.
    #[derive(Debug, Clone, Copy)]
    enum Behaviour {
        /// 200.
        Ok,
        /// 500 for the first `n` requests, then 200.
        FailFirst(usize),
        /// Always 500.
        Fail,
        /// Sleeps this long, then 200.
        Hang(Duration),
    }

    /// A request the receiver got.
    #[derive(Debug, Clone)]
    struct Hit {
        path: String,
        content_type: Option<String>,
        body: Value,
    }

    #[derive(Clone)]
    struct Receiver {
        behaviour: Behaviour,
        requests: Arc<AtomicUsize>,
        hits: Arc<Mutex<Vec<Hit>>>,
        /// Requests answered with 2xx.
        delivered: Arc<Mutex<Vec<Hit>>>,
    }

    impl Receiver {
        async fn start(behaviour: Behaviour) -> (SocketAddr, Receiver) {
            let r = Receiver {
                behaviour,
                requests: Arc::default(),
                hits: Arc::default(),
                delivered: Arc::default(),
            };
            let app = Router::new().fallback(receive).with_state(r.clone());
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(async move { axum::serve(listener, app).await });
            (addr, r)
        }

        fn hits(&self) -> Vec<Hit> {
            lock(&self.hits).clone()
        }

        fn delivered(&self) -> Vec<Hit> {
            lock(&self.delivered).clone()
        }

        fn delivered_to(&self, path: &str) -> Vec<Hit> {
            self.delivered()
                .into_iter()
                .filter(|h| h.path == path)
                .collect()
        }
    }

    async fn receive(
        State(r): State<Receiver>,
        uri: Uri,
        headers: HeaderMap,
        body: Bytes,
    ) -> StatusCode {
        let n = r.requests.fetch_add(1, Ordering::SeqCst);
        let hit = Hit {
            path: uri.path().to_string(),
            content_type: headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        lock(&r.hits).push(hit.clone());
        let status = match r.behaviour {
            Behaviour::Ok => StatusCode::OK,
            Behaviour::FailFirst(k) if n < k => StatusCode::INTERNAL_SERVER_ERROR,
            Behaviour::FailFirst(_) => StatusCode::OK,
            Behaviour::Fail => StatusCode::INTERNAL_SERVER_ERROR,
            Behaviour::Hang(d) => {
                tokio::time::sleep(d).await;
                StatusCode::OK
            }
        };
        if status.is_success() {
            lock(&r.delivered).push(hit);
        }
        status
    }

    fn hook(addr: SocketAddr, path: &str, format: WebhookFormat) -> Webhook {
        Webhook {
            url: format!("http://{addr}{path}").parse().unwrap(),
            format,
        }
    }

    fn alerts(
        webhooks: Vec<Webhook>,
        owners: Vec<(&str, Vec<Webhook>)>,
        throttle: Duration,
    ) -> AlertsConfig {
        AlertsConfig {
            webhooks,
            owners: owners
                .into_iter()
                .map(|(o, w)| (o.to_string(), w))
                .collect::<BTreeMap<_, _>>(),
            throttle,
            evaluate_every: Duration::from_secs(30),
            recovery_window: Duration::from_secs(600),
            sunset_within: Duration::from_secs(30 * 86_400),
            circuit_open_for: Duration::from_secs(300),
        }
    }

    /// The tests run on paused time, where a timeout costs nothing to wait for: timeouts
    /// far above what a loopback exchange costs on the [`metronome`], short backoff.
    fn fast() -> Settings {
        Settings {
            capacity: 1024,
            concurrency: 64,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(10),
            backoff: vec![Duration::from_millis(20), Duration::from_millis(50)],
        }
    }

    /// Under `start_paused` the clock jumps to the next timer whenever the runtime finds
    /// nothing to do: no task ready and no I/O event. A loopback exchange inside this
    /// single-threaded runtime always finds its bytes there (this thread wrote them), so
    /// it costs no virtual time; but a wait that ever found nothing (bytes still in the
    /// kernel on a loaded machine) would jump straight to the request's 10 s timeout.
    /// This timer, always 1 ms away, caps such a jump at 1 ms, so only a receiver that
    /// really hangs (on the same virtual clock) reaches a timeout.
    fn metronome() {
        tokio::spawn(async {
            loop {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
    }

    /// [`Notifier::start_with`], with the [`metronome`] running.
    fn start(alerts: AlertsConfig, store: Store, settings: Settings) -> Arc<Notifier> {
        metronome();
        Notifier::start_with(alerts, store, settings)
    }

    /// Waits (on virtual time) until `done`, for at most a virtual minute.
    async fn until(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !done() {
            assert!(Instant::now() < deadline, "never happened: {what}");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// A fresh store in its own directory; the directory is removed on drop.
    struct TempStore {
        dir: std::path::PathBuf,
        store: Store,
    }

    impl TempStore {
        fn new(name: &str) -> TempStore {
            let dir = std::env::temp_dir().join(format!(
                "toolgate-notify-{name}-{}-{:x}",
                std::process::id(),
                rand::random::<u64>()
            ));
            let store = Store::open(&dir.join("state.db")).unwrap();
            TempStore { dir, store }
        }
    }

    impl Drop for TempStore {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn incident(id: i64, owner: &str) -> Incident {
        Incident {
            id,
            kind: "contract_drift".into(),
            tool: "web_search".into(),
            dependency: "search_api".into(),
            owner: owner.into(),
            status: "open".into(),
            title: "web_search no longer matches contract v3.1: missing results[].snippet; new results[].excerpt".into(),
            detail: json!({"summary": "missing results[].snippet; new results[].excerpt"}),
            contract_version: Some("3.1".into()),
            first_seen: "2025-01-01T00:00:00Z".into(),
            last_seen: "2025-01-01T00:05:00Z".into(),
            count: 3,
            fingerprint: "fp".into(),
        }
    }

    const ALICE: &str = "alice@example.com";
    const BOB: &str = "bob@example.com";
    /// Virtual time: enough for three timed-out attempts and their backoff.
    const FLUSH: Duration = Duration::from_secs(120);
    /// A receiver that hangs longer than any test waits.
    const FOREVER: Duration = Duration::from_secs(3600);

    #[tokio::test(start_paused = true)]
    async fn an_opened_incident_reaches_a_json_and_a_slack_receiver() {
        let (addr, rx) = Receiver::start(Behaviour::Ok).await;
        let db = TempStore::new("formats");
        let n = start(
            alerts(
                vec![
                    hook(addr, "/json", WebhookFormat::Json),
                    hook(addr, "/slack", WebhookFormat::Slack),
                ],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(7, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);

        let json = rx.delivered_to("/json");
        assert_eq!(json.len(), 1);
        assert_eq!(json[0].content_type.as_deref(), Some("application/json"));
        let body = &json[0].body;
        assert_eq!(body["event"], "opened");
        assert_eq!(body["owner"], ALICE);
        assert_eq!(body["incident"]["id"], 7);
        assert_eq!(body["incident"]["tool"], "web_search");
        assert_eq!(body["incident"]["dependency"], "search_api");
        assert_eq!(body["incident"]["count"], 3);
        let text = body["text"].as_str().unwrap();
        assert_eq!(
            text,
            "[toolgate] opened: web_search no longer matches contract v3.1: missing \
             results[].snippet; new results[].excerpt (owner alice@example.com, dependency \
             search_api, incident #7, seen 3×)"
        );

        let slack = rx.delivered_to("/slack");
        assert_eq!(slack.len(), 1);
        assert_eq!(slack[0].content_type.as_deref(), Some("application/json"));
        let body = slack[0].body.as_object().unwrap();
        assert_eq!(body.keys().collect::<Vec<_>>(), ["text"]);
        let text = body["text"].as_str().unwrap();
        assert!(
            text.contains(ALICE) && text.contains("web_search"),
            "{text}"
        );
        assert!(db.store.dead_letters().await.unwrap().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn an_incident_goes_to_its_owners_webhooks_and_the_global_ones_only() {
        let (addr, rx) = Receiver::start(Behaviour::Ok).await;
        let db = TempStore::new("routing");
        let n = start(
            alerts(
                vec![hook(addr, "/global", WebhookFormat::Json)],
                vec![
                    (ALICE, vec![hook(addr, "/alice", WebhookFormat::Json)]),
                    (BOB, vec![hook(addr, "/bob", WebhookFormat::Slack)]),
                ],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(1, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);
        assert_eq!(rx.delivered_to("/alice").len(), 1);
        assert_eq!(rx.delivered_to("/global").len(), 1);
        assert!(rx.delivered_to("/bob").is_empty());
        assert_eq!(rx.hits().len(), 2);

        // An owner without webhooks of their own still reaches the global ones.
        n.notify(&incident(2, "carol@example.com"), Event::Opened);
        assert!(n.flush(FLUSH).await);
        assert_eq!(rx.delivered_to("/global").len(), 2);
        assert_eq!(rx.hits().len(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_receiver_that_fails_twice_then_succeeds_gets_it_once() {
        let (addr, rx) = Receiver::start(Behaviour::FailFirst(2)).await;
        let db = TempStore::new("retry");
        let n = start(
            alerts(
                vec![hook(addr, "/flaky", WebhookFormat::Json)],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(3, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);
        assert_eq!(rx.hits().len(), 3);
        assert_eq!(rx.delivered().len(), 1);
        assert!(db.store.dead_letters().await.unwrap().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_receiver_that_always_fails_ends_in_one_dead_letter() {
        let (addr, rx) = Receiver::start(Behaviour::Fail).await;
        let db = TempStore::new("deadletter");
        // Credentials in the URL must not reach the dead letter (nor the logs).
        let url = format!("http://hook:s3cr3t-pass@{addr}/down?token=s3cr3t-token");
        let n = start(
            alerts(
                vec![Webhook {
                    url: url.parse().unwrap(),
                    format: WebhookFormat::Json,
                }],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(4, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);
        assert_eq!(rx.hits().len(), 3, "three attempts in total");
        let letters = db.store.dead_letters().await.unwrap();
        assert_eq!(letters.len(), 1, "{letters:?}");
        let (id, target, error, _at) = &letters[0];
        assert_eq!(*id, 4);
        assert_eq!(target, &format!("http://{addr}/down"));
        assert_eq!(error, "HTTP 500");
    }

    #[tokio::test(start_paused = true)]
    async fn a_hanging_receiver_neither_blocks_the_caller_nor_delays_other_targets() {
        let (hang_addr, hanging) = Receiver::start(Behaviour::Hang(FOREVER)).await;
        let (ok_addr, ok) = Receiver::start(Behaviour::Ok).await;
        let db = TempStore::new("hang");
        let n = start(
            alerts(
                vec![
                    hook(hang_addr, "/hang", WebhookFormat::Json),
                    hook(ok_addr, "/ok", WebhookFormat::Slack),
                ],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        let started = Instant::now();
        n.notify(&incident(5, ALICE), Event::Opened);
        // notify only queued the job: no delivery has started (nothing else ran on this
        // single-threaded runtime while it did).
        assert_eq!(n.tracker.pending(), 1);
        assert!(hanging.hits().is_empty() && ok.hits().is_empty());

        // The healthy target is served while the hanging one is still on its first attempt.
        until("the healthy target is served", || {
            !ok.delivered().is_empty()
        })
        .await;
        assert_eq!(hanging.hits().len(), 1);
        assert!(db.store.dead_letters().await.unwrap().is_empty());
        assert!(
            started.elapsed() < fast().timeout,
            "the healthy target waited {:?}",
            started.elapsed()
        );

        assert!(n.flush(FLUSH).await);
        assert_eq!(hanging.hits().len(), 3);
        let letters = db.store.dead_letters().await.unwrap();
        assert_eq!(letters.len(), 1, "{letters:?}");
        assert_eq!(letters[0].1, format!("http://{hang_addr}/hang"));
        assert_eq!(letters[0].2, "timeout");
    }

    #[tokio::test(start_paused = true)]
    async fn updates_are_throttled_per_incident_but_resolution_always_goes_out() {
        let (addr, rx) = Receiver::start(Behaviour::Ok).await;
        let db = TempStore::new("throttle");
        let n = start(
            alerts(
                vec![hook(addr, "/hook", WebhookFormat::Json)],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(6, ALICE), Event::Updated);
        n.notify(&incident(6, ALICE), Event::Updated);
        // Another incident has its own throttle.
        n.notify(&incident(60, ALICE), Event::Updated);
        n.notify(&incident(6, ALICE), Event::Resolved);
        assert!(n.flush(FLUSH).await);
        let mut seen: Vec<(i64, String)> = rx
            .delivered()
            .iter()
            .map(|h| {
                (
                    h.body["incident"]["id"].as_i64().unwrap(),
                    h.body["event"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            [
                (6, "resolved".to_string()),
                (6, "updated".to_string()),
                (60, "updated".to_string()),
            ]
        );
        let resolved = rx
            .delivered()
            .into_iter()
            .find(|h| h.body["event"] == "resolved")
            .unwrap();
        assert!(
            resolved.body["text"]
                .as_str()
                .unwrap()
                .contains("(now resolved; owner alice@example.com"),
            "{:?}",
            resolved.body
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_opened_incident_throttles_the_updates_that_follow_it() {
        let (addr, rx) = Receiver::start(Behaviour::Ok).await;
        let db = TempStore::new("opened");
        let n = start(
            alerts(
                vec![hook(addr, "/hook", WebhookFormat::Json)],
                vec![],
                Duration::from_millis(200),
            ),
            db.store.clone(),
            fast(),
        );
        let opened = Instant::now();
        n.notify(&incident(8, ALICE), Event::Opened);
        n.notify(&incident(8, ALICE), Event::Updated);
        n.notify(&incident(8, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);
        assert_eq!(rx.delivered().len(), 2);
        // Just inside the interval (the deliveries took next to no virtual time).
        tokio::time::sleep_until(opened + Duration::from_millis(199)).await;
        assert!(opened.elapsed() < Duration::from_millis(200));
        n.notify(&incident(8, ALICE), Event::Updated);
        assert!(n.flush(FLUSH).await);
        assert_eq!(
            rx.delivered().len(),
            2,
            "an update within the interval waits"
        );
        tokio::time::sleep_until(opened + Duration::from_millis(200)).await;
        n.notify(&incident(8, ALICE), Event::Updated);
        assert!(n.flush(FLUSH).await);
        assert_eq!(
            rx.delivered().len(),
            3,
            "once the interval is over an update goes out"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_connection_is_dead_lettered_as_such() {
        // Bind then drop a listener: nothing listens on that port any more.
        let addr = {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            l.local_addr().unwrap()
        };
        let db = TempStore::new("refused");
        let n = start(
            alerts(
                vec![hook(addr, "/nobody", WebhookFormat::Slack)],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(9, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);
        let letters = db.store.dead_letters().await.unwrap();
        assert_eq!(letters.len(), 1, "{letters:?}");
        assert_eq!(letters[0].2, "connection refused");
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_queue_dead_letters_instead_of_blocking() {
        let (addr, hanging) = Receiver::start(Behaviour::Hang(FOREVER)).await;
        let db = TempStore::new("full");
        // One delivery at a time and a queue of one: the hanging delivery holds the only
        // permit, the worker waits with the next job, one more fits in the queue, and the
        // fourth notification finds the queue full. Each step waits for the one before,
        // so the counts are exact.
        let settings = Settings {
            capacity: 1,
            concurrency: 1,
            backoff: vec![],
            ..fast()
        };
        let n = start(
            alerts(
                vec![hook(addr, "/hang", WebhookFormat::Json)],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            settings,
        );
        n.notify(&incident(1, ALICE), Event::Opened);
        until("the first delivery hangs", || hanging.hits().len() == 1).await;
        n.notify(&incident(2, ALICE), Event::Opened);
        until("the worker takes the second job", || n.tx.capacity() == 1).await;
        n.notify(&incident(3, ALICE), Event::Opened);
        assert_eq!(n.tx.capacity(), 0, "the third job waits in the queue");
        n.notify(&incident(4, ALICE), Event::Opened);
        assert!(n.flush(FLUSH).await);
        let mut letters = db.store.dead_letters().await.unwrap();
        letters.sort_by_key(|l| l.0);
        let outcomes: Vec<(i64, &str)> = letters.iter().map(|l| (l.0, l.2.as_str())).collect();
        assert_eq!(
            outcomes,
            [
                (1, "timeout"),
                (2, "timeout"),
                (3, "timeout"),
                (4, "notification queue full"),
            ]
        );
        assert_eq!(hanging.hits().len(), 3, "the fourth was never sent");
        assert!(letters.iter().all(|l| l.1 == format!("http://{addr}/hang")));
    }

    #[tokio::test(start_paused = true)]
    async fn flush_gives_up_after_its_timeout() {
        let (addr, _hanging) = Receiver::start(Behaviour::Hang(FOREVER)).await;
        let db = TempStore::new("flush");
        let n = start(
            alerts(
                vec![hook(addr, "/hang", WebhookFormat::Json)],
                vec![],
                Duration::from_secs(60),
            ),
            db.store.clone(),
            fast(),
        );
        n.notify(&incident(10, ALICE), Event::Opened);
        let started = Instant::now();
        assert!(!n.flush(Duration::from_millis(50)).await);
        // At its own timeout (virtual time: to the millisecond), not the request's.
        let waited = started.elapsed();
        assert!(
            (Duration::from_millis(50)..Duration::from_millis(51)).contains(&waited),
            "{waited:?}"
        );
        assert!(format!("{n:?}").contains("pending: 1"));
        assert!(!format!("{n:?}").contains("127.0.0.1"));
    }

    #[test]
    fn redaction_keeps_scheme_host_port_and_path_only() {
        let url: url::Url = "https://user:pw@hooks.example.com:8443/services/a/b?token=x#frag"
            .parse()
            .unwrap();
        assert_eq!(redact(&url), "https://hooks.example.com:8443/services/…");
        let plain: url::Url = "http://127.0.0.1:9000/down".parse().unwrap();
        assert_eq!(redact(&plain), "http://127.0.0.1:9000/down");
    }

    #[test]
    fn slack_text_escapes_markup_and_stays_on_one_line() {
        let mut i = incident(11, ALICE);
        i.title = "deprecated <soon> & then\ngone".into();
        let t = text(&i, Event::Updated);
        assert!(!t.contains('\n'));
        assert!(t.starts_with("[toolgate] updated: web_search: deprecated <soon> & then gone "));
        let slack = payload(WebhookFormat::Slack, &i, Event::Updated, &t);
        assert!(
            slack["text"]
                .as_str()
                .unwrap()
                .contains("deprecated &lt;soon&gt; &amp; then gone")
        );
    }
}
