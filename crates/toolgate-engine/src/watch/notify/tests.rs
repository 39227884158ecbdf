use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};

use super::*;
use toolgate_config::Webhook;

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
        acked_by: None,
        acked_at: None,
        resolved_by: None,
        resolved_at: None,
        agents: Vec::new(),
        agents_unlisted: 0,
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
