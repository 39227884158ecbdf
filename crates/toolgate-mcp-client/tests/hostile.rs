//! Hostile upstream servers: floods of server→client requests over stdio and
//! HTTP, the environment a stdio child is given, and what a child leaves
//! running behind it.

// Test helpers outside #[test] functions unwrap too: a failure is the test failing.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use common::*;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolgate_mcp_client::{
    Connection, Event, Limits, Offered, Relay, Relayed, ServerRequestStats, ServerSpec, Transport,
};

fn stdio_with(
    args: Vec<String>,
    env: Vec<(String, String)>,
    inherit_env: Vec<String>,
    limits: Limits,
) -> (Connection, mpsc::Receiver<Event>) {
    let spec = ServerSpec {
        name: "hostile".into(),
        transport: Transport::Stdio {
            program: node(),
            args,
            env,
            inherit_env,
            cwd: None,
        },
        max_message_bytes: 1 << 16,
        limits,
    };
    Connection::start(spec, client())
}

/// Waits (bounded) until the client's counters satisfy `done`.
async fn until(
    conn: &Connection,
    done: impl Fn(&ServerRequestStats) -> bool,
) -> ServerRequestStats {
    let deadline = tokio::time::Instant::now() + LONG;
    loop {
        let stats = conn.server_requests();
        if done(&stats) {
            return stats;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the counters never got there: {stats:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Serves `app` on loopback and the spec of a server named `name` at its `/mcp`.
async fn served_over_http(name: &str, app: axum::Router, limits: Limits) -> ServerSpec {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    ServerSpec {
        name: name.into(),
        transport: Transport::Http {
            url: format!("http://{addr}/mcp").parse().unwrap(),
            headers: vec![],
        },
        max_message_bytes: 1 << 16,
        limits,
    }
}

#[tokio::test]
async fn a_stdio_ping_flood_from_a_child_that_never_reads_stdin_stays_bounded() {
    const PINGS: u64 = 100_000;
    let (conn, mut events) = stdio_with(
        vec![fixture("ping_flood.mjs"), PINGS.to_string()],
        vec![],
        vec![],
        Limits::default(),
    );
    // The child writes its pings, then one logging notification; stdout is
    // read in order, so when it arrives every ping has been dealt with.
    let mut misbehaving = false;
    loop {
        match next_event(&mut events).await {
            Event::Misbehaving { shed, .. } => misbehaving = shed > 0,
            Event::Notification {
                params: Some(p), ..
            } if p["data"] == "flood-done" => break,
            _ => {}
        }
    }
    let stats = conn.server_requests();
    assert_eq!(stats.received, PINGS);
    // Pings are answered inline: no slot, no task per ping.
    assert_eq!((stats.in_flight, stats.peak_in_flight), (0, 0));
    // What the child's stdin pipe and the queue before it hold was answered;
    // the rest was dropped and counted instead of waiting in memory.
    assert!(stats.shed >= PINGS * 9 / 10, "{stats:?}");
    assert!(misbehaving, "the gateway was not told");
    let tasks = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    assert!(tasks < 20, "{tasks} tasks alive after the flood");
}

#[tokio::test]
async fn server_requests_beyond_the_cap_are_shed_and_counted() {
    let limits = Limits {
        max_server_requests: 4,
        ..Limits::default()
    };
    let (conn, mut events) = stdio_with(vec![fixture("stdio_fake.mjs")], vec![], vec![], limits);
    conn.initialize(LONG).await.unwrap();
    let (tx, mut rx) = mpsc::channel(64);
    let asking = {
        let conn = conn.clone();
        tokio::spawn(async move {
            conn.request(
                "ask_many",
                Some(json!({"n": 50})),
                LONG,
                Some(Relay::new(tx)),
            )
            .await
        })
    };
    // The caller holds every question it is asked: four take the four slots,
    // the other 46 are refused at once.
    let stats = until(&conn, |s| s.shed + s.in_flight as u64 == 50).await;
    assert_eq!(
        (
            stats.received,
            stats.in_flight,
            stats.peak_in_flight,
            stats.shed
        ),
        (50, 4, 4, 46)
    );
    let mut held = Vec::new();
    while held.len() < 4 {
        if let Relayed::Request { answer, .. } = tokio::time::timeout(LONG, rx.recv())
            .await
            .unwrap()
            .unwrap()
        {
            held.push(answer);
        }
    }
    for answer in held {
        answer.send(Ok(json!({"roots": []}))).unwrap();
    }
    let tally = asking.await.unwrap().unwrap().into_value().unwrap();
    assert_eq!(tally, json!({"results": 4, "errors": {"-32000": 46}}));
    assert!(rx.try_recv().is_err(), "more than the cap was relayed");
    assert_eq!(conn.server_requests().in_flight, 0);
    let told = wait_event(&mut events, |e| matches!(e, Event::Misbehaving { .. })).await;
    assert!(
        matches!(&told, Event::Misbehaving { detail, shed: 1 } if detail.contains("at most 4")),
        "{told:?}"
    );
}

/// `ask_many` of `n` questions on `conn`, relayed to a caller that `owner` owns; the
/// call, and where its questions arrive.
fn ask_many_as(
    conn: &Connection,
    owner: &str,
    n: usize,
) -> (
    tokio::task::JoinHandle<Result<toolgate_mcp_client::Reply, toolgate_mcp_client::Failure>>,
    mpsc::Receiver<Relayed>,
) {
    let (tx, rx) = mpsc::channel(64);
    let conn = conn.clone();
    let relay = Relay::new(tx).owned_by(owner.into());
    let call = tokio::spawn(async move {
        conn.request(
            "ask_many",
            Some(json!({"n": n, "quote": true})),
            LONG,
            Some(relay),
        )
        .await
    });
    (call, rx)
}

/// The next `n` questions relayed to `rx`: the senders of their answers.
async fn questions(
    rx: &mut mpsc::Receiver<Relayed>,
    n: usize,
) -> Vec<tokio::sync::oneshot::Sender<Result<Value, toolgate_mcp_client::RpcError>>> {
    let mut held = Vec::new();
    while held.len() < n {
        if let Relayed::Request { answer, .. } = tokio::time::timeout(LONG, rx.recv())
            .await
            .unwrap()
            .unwrap()
        {
            held.push(answer);
        }
    }
    held
}

#[tokio::test]
async fn one_agent_leaving_a_servers_questions_unanswered_leaves_room_for_another() {
    let limits = Limits {
        max_server_requests: 4,
        ..Limits::default()
    };
    let (conn, mut events) = stdio_with(vec![fixture("stdio_fake.mjs")], vec![], vec![], limits);
    conn.share_server_requests(0.5, "gateway.server_request_share");
    conn.initialize(LONG).await.unwrap();
    // Alice's call makes the server ask her ten questions, which she leaves open: she
    // holds her share of the four slots (alone as she is), the rest is refused.
    let (alice, mut alice_rx) = ask_many_as(&conn, "alice", 10);
    let stats = until(&conn, |s| s.in_flight + s.over_share as usize == 10).await;
    assert_eq!((stats.in_flight, stats.over_share, stats.shed), (2, 8, 0));
    let alice_held = questions(&mut alice_rx, 2).await;
    // Bob's call is asked, and answered, meanwhile.
    let (bob, mut bob_rx) = ask_many_as(&conn, "bob", 2);
    for answer in questions(&mut bob_rx, 2).await {
        answer.send(Ok(json!({"roots": []}))).unwrap();
    }
    let tally = bob.await.unwrap().unwrap().into_value().unwrap();
    assert_eq!(tally, json!({"results": 2, "errors": {}}));
    for answer in alice_held {
        answer.send(Ok(json!({"roots": []}))).unwrap();
    }
    let tally = alice.await.unwrap().unwrap().into_value().unwrap();
    assert_eq!(
        (&tally["results"], &tally["errors"]),
        (&json!(2), &json!({"-32000": 8}))
    );
    // The refusal the server relays says whose share it is and what sets it.
    let message = tally["message"].as_str().unwrap();
    assert!(
        message.contains("this agent") && message.contains("gateway.server_request_share"),
        "{message}"
    );
    // Alice's doing, not the server's: nothing shed, the server not reported.
    assert_eq!(conn.server_requests().shed, 0);
    while let Ok(event) = events.try_recv() {
        assert!(!matches!(event, Event::Misbehaving { .. }), "{event:?}");
    }
    assert_eq!(conn.server_requests().in_flight, 0);
}

#[tokio::test]
async fn a_stdio_server_that_never_answers_is_sent_at_most_max_pending_requests() {
    const CALLS: usize = 50;
    let limits = Limits {
        max_pending_requests: 8,
        ..Limits::default()
    };
    let (conn, _events) = stdio_with(vec![fixture("stdio_fake.mjs")], vec![], vec![], limits);
    conn.initialize(LONG).await.unwrap();
    // The server holds every `hold` unanswered.
    let holds: Vec<_> = (0..CALLS)
        .map(|_| {
            let conn = conn.clone();
            tokio::spawn(async move { conn.request("hold", None, LONG, None).await })
        })
        .collect();
    let deadline = tokio::time::Instant::now() + LONG;
    while conn.pending().waiting + (conn.pending().refused as usize) < CALLS {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            conn.pending()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        conn.pending(),
        toolgate_mcp_client::PendingStats {
            waiting: 8,
            refused: CALLS as u64 - 8
        }
    );
    // Those past the cap failed at once, unsent, saying why.
    let mut waiting = Vec::new();
    for mut hold in holds {
        match tokio::time::timeout(Duration::from_millis(500), &mut hold).await {
            Ok(done) => {
                let failure = done.unwrap().unwrap_err();
                assert!(
                    matches!(&failure, toolgate_mcp_client::Failure::Connect { detail }
                        if detail.contains("8 requests are already waiting")),
                    "{failure:?}"
                );
            }
            Err(_) => waiting.push(hold),
        }
    }
    assert_eq!(waiting.len(), 8);
    // A caller that stops waiting frees its place; the server is reached again.
    waiting.pop().unwrap().abort();
    let deadline = tokio::time::Instant::now() + LONG;
    while conn.pending().waiting > 7 {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    conn.request("release", None, LONG, None).await.unwrap();
    for hold in waiting {
        assert_eq!(
            hold.await.unwrap().unwrap().into_value().unwrap(),
            json!({"released": true})
        );
    }
    assert_eq!(conn.pending().waiting, 0);
}

#[tokio::test]
async fn a_request_kind_not_offered_is_neither_declared_nor_relayed() {
    let limits = Limits {
        offered: Offered {
            sampling: false,
            elicitation: true,
            roots: false,
        },
        ..Limits::default()
    };
    let (conn, _events) = stdio_with(vec![fixture("stdio_fake.mjs")], vec![], vec![], limits);
    conn.initialize(LONG).await.unwrap();
    let declared = conn
        .request("declared", None, LONG, None)
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(declared, json!({"capabilities": {"elicitation": {}}}));
    // The server asks anyway: refused by the client, nothing reaches the relay.
    let (tx, mut rx) = mpsc::channel(64);
    let tally = conn
        .request(
            "ask_many",
            Some(json!({"n": 3})),
            LONG,
            Some(Relay::new(tx)),
        )
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(tally, json!({"results": 0, "errors": {"-32601": 3}}));
    assert!(rx.try_recv().is_err(), "a request not offered was relayed");
}

/// A server that asks before the handshake ends (before `notifications/initialized`,
/// which the MCP lifecycle says it should wait for, pings and logging aside) asks on
/// behalf of no call: each question is refused at once (-32601), nothing is relayed to
/// the call made afterwards, and the handshake is not held up by them.
#[tokio::test]
async fn questions_before_the_handshake_ends_are_refused_and_reach_no_call() {
    let (conn, _events) = stdio_with(
        vec![fixture("stdio_fake.mjs")],
        vec![("FAKE_EARLY".into(), "1".into())],
        vec![],
        Limits::default(),
    );
    conn.initialize(LONG).await.unwrap();
    let (tx, mut rx) = mpsc::channel(64);
    let answers = conn
        .request("early", None, LONG, Some(Relay::new(tx)))
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(
        answers,
        json!({"answers": [
            {"id": "early-0", "error": -32601, "result": null},
            {"id": "early-1", "error": -32601, "result": null},
            {"id": "early-2", "error": -32601, "result": null},
        ]})
    );
    assert!(
        rx.try_recv().is_err(),
        "an early question reached a later call"
    );
}

/// An HTTP upstream that floods its standalone stream with requests and holds
/// the POSTs that answer `roots/list` open, counting them.
#[derive(Default)]
struct Flooder {
    held_now: AtomicUsize,
    held_peak: AtomicUsize,
    posts_now: AtomicUsize,
    posts_peak: AtomicUsize,
    pings_answered: AtomicUsize,
    gets: AtomicUsize,
}

const FLOOD: usize = 200;

async fn flooder_post(State(up): State<Arc<Flooder>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some("initialize"), Some(id)) => initialized(id, "flooder", json!({})),
        (Some(_), None) => StatusCode::ACCEPTED.into_response(),
        (None, Some(id)) => {
            let now = up.posts_now.fetch_add(1, Ordering::SeqCst) + 1;
            up.posts_peak.fetch_max(now, Ordering::SeqCst);
            let id = id.as_str().unwrap_or_default().to_owned();
            if id.starts_with("roots") {
                let now = up.held_now.fetch_add(1, Ordering::SeqCst) + 1;
                up.held_peak.fetch_max(now, Ordering::SeqCst);
                // Never answered while the test runs.
                std::future::pending::<()>().await;
            }
            up.posts_now.fetch_sub(1, Ordering::SeqCst);
            up.pings_answered.fetch_add(1, Ordering::SeqCst);
            StatusCode::ACCEPTED.into_response()
        }
        (_, Some(id)) => (
            [(header::CONTENT_TYPE, "application/json")],
            json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string(),
        )
            .into_response(),
        (None, None) => StatusCode::BAD_REQUEST.into_response(),
    }
}

async fn flooder_get(State(up): State<Arc<Flooder>>) -> Response {
    if up.gets.fetch_add(1, Ordering::SeqCst) > 0 {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let mut body = String::new();
    for i in 0..FLOOD {
        for (id, method) in [
            (format!("roots-{i}"), "roots/list"),
            (format!("ping-{i}"), "ping"),
        ] {
            let m = json!({"jsonrpc": "2.0", "id": id, "method": method});
            body.push_str(&format!("data: {m}\n\n"));
        }
    }
    ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

#[tokio::test]
async fn an_http_flood_on_the_standalone_stream_never_exceeds_the_answer_cap() {
    let up = Arc::new(Flooder::default());
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(flooder_post).get(flooder_get))
        .with_state(Arc::clone(&up));
    let spec = served_over_http(
        "flooder",
        app,
        Limits {
            max_server_requests: 4,
            answer_timeout: LONG * 4,
            ..Limits::default()
        },
    )
    .await;
    let (conn, _events) = Connection::start(spec, client());
    conn.initialize(LONG).await.unwrap();
    let stats = until(&conn, |s| {
        s.received == 2 * FLOOD as u64 && s.shed + s.in_flight as u64 == FLOOD as u64
    })
    .await;
    // Four answers are held open by the server; every other roots/list was shed.
    assert_eq!((stats.in_flight, stats.shed), (4, FLOOD as u64 - 4));
    // Every ping was answered, one at a time, while the four stayed open.
    let deadline = tokio::time::Instant::now() + LONG;
    while up.pings_answered.load(Ordering::SeqCst) < FLOOD {
        assert!(tokio::time::Instant::now() < deadline, "pings unanswered");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(up.held_peak.load(Ordering::SeqCst) <= 4);
    // The held four and at most one inline ping answer.
    let peak = up.posts_peak.load(Ordering::SeqCst);
    assert!(peak <= 5, "{peak} answer POSTs open at once");
}

#[tokio::test]
async fn stdio_children_get_a_clean_environment() {
    // Variables set for this test process that the child must not see (cargo
    // sets several, e.g. CARGO_PKG_NAME), and one it is configured to inherit.
    let parent: std::collections::BTreeMap<String, String> = std::env::vars().collect();
    let inherited = "CARGO_MANIFEST_DIR";
    assert!(
        parent.contains_key(inherited),
        "run the tests through cargo"
    );
    let allowed = |k: &str| {
        ["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR"].contains(&k) || k.starts_with("LC_")
    };
    let withheld: Vec<&String> = parent
        .keys()
        .filter(|k| !allowed(k) && k.as_str() != inherited)
        .collect();
    assert!(
        !withheld.is_empty(),
        "the test process has nothing to withhold"
    );

    let (conn, _events) = stdio_with(
        vec![fixture("stdio_fake.mjs")],
        vec![("FAKE_TOKEN".into(), "configured-value".into())],
        vec![inherited.into(), "TOOLGATE_TEST_NOT_SET".into()],
        Limits::default(),
    );
    let env = conn.request("env", None, LONG, None).await.unwrap();
    let env = env.into_value().unwrap()["env"].clone();
    let env = env.as_object().unwrap();
    for name in env.keys() {
        assert!(
            allowed(name) || name == "FAKE_TOKEN" || name == inherited,
            "the child was given {name}"
        );
    }
    for name in withheld {
        assert!(!env.contains_key(name), "{name} leaked into the child");
    }
    assert_eq!(env["FAKE_TOKEN"], "configured-value");
    assert_eq!(env[inherited].as_str(), Some(parent[inherited].as_str()));
    assert_eq!(
        env.get("PATH").and_then(Value::as_str),
        parent.get("PATH").map(String::as_str)
    );
    assert!(!env.contains_key("TOOLGATE_TEST_NOT_SET"));
}

/// Whether a process runs (a zombie waiting for its reaper does not).
#[cfg(target_os = "linux")]
fn running(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

#[cfg(target_os = "linux")]
async fn gone(pid: u64) {
    let deadline = tokio::time::Instant::now() + LONG;
    while running(pid) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "process {pid} outlived the connection"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn stdio_grandchildren_do_not_outlive_the_connection() {
    for how in ["shutdown", "drop"] {
        let (conn, _events) = stdio_with(
            vec![fixture("stdio_fake.mjs")],
            vec![],
            vec![],
            Limits::default(),
        );
        let spawned = conn
            .request("spawn_grandchild", None, LONG, None)
            .await
            .unwrap();
        let grandchild = spawned.into_value().unwrap()["pid"].as_u64().unwrap();
        let child = u64::from(conn.pid().unwrap());
        assert!(running(grandchild) && running(child));
        match how {
            "shutdown" => conn.shutdown().await,
            _ => drop(conn),
        }
        gone(child).await;
        gone(grandchild).await;
    }
}

/// A server that ends every stream after one event with an id and `retry: 0`,
/// and never answers: it asks to be reconnected to at once, without end.
#[derive(Default)]
struct Reconnector {
    resumes: AtomicUsize,
    /// The standalone stream (a GET without `Last-Event-ID`) does the same.
    standalone: bool,
    opened: AtomicUsize,
    /// Its event ids are this many bytes long (0: the id `1`).
    id_bytes: usize,
    /// The longest `Last-Event-ID` it was sent.
    longest_resume_id: AtomicUsize,
}

impl Reconnector {
    fn event(&self) -> String {
        if self.id_bytes == 0 {
            return ONE_EVENT.to_owned();
        }
        ONE_EVENT.replacen("id: 1", &format!("id: {}", "7".repeat(self.id_bytes)), 1)
    }
}

const ONE_EVENT: &str = "id: 1\nretry: 0\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"again\"}}\n\n";

async fn reconnector_post(State(up): State<Arc<Reconnector>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some("initialize"), Some(id)) => initialized(id, "reconnector", json!({})),
        (Some(_), Some(_)) => {
            ([(header::CONTENT_TYPE, "text/event-stream")], up.event()).into_response()
        }
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

async fn reconnector_get(
    State(up): State<Arc<Reconnector>>,
    headers: axum::http::HeaderMap,
) -> Response {
    if !headers.contains_key("last-event-id") {
        if !up.standalone {
            return StatusCode::METHOD_NOT_ALLOWED.into_response();
        }
        up.opened.fetch_add(1, Ordering::SeqCst);
    } else {
        up.resumes.fetch_add(1, Ordering::SeqCst);
        let id = headers.get("last-event-id").map_or(0, |v| v.len());
        up.longest_resume_id.fetch_max(id, Ordering::SeqCst);
    }
    ([(header::CONTENT_TYPE, "text/event-stream")], up.event()).into_response()
}

fn reconnector(up: &Arc<Reconnector>) -> impl std::future::Future<Output = Connection> + use<> {
    let up = Arc::clone(up);
    async move {
        let app = axum::Router::new()
            .route(
                "/mcp",
                axum::routing::post(reconnector_post).get(reconnector_get),
            )
            .with_state(Arc::clone(&up));
        let spec = served_over_http("reconnector", app, Limits::default()).await;
        let (conn, _events) = Connection::start(spec, client());
        conn.initialize(LONG).await.unwrap();
        conn
    }
}

#[tokio::test]
async fn a_stream_asking_to_be_resumed_at_once_is_resumed_at_a_bounded_rate() {
    let up = Arc::new(Reconnector::default());
    let conn = reconnector(&up).await;
    let window = Duration::from_secs(2);
    let started = tokio::time::Instant::now();
    let got = conn.request("tools/call", None, window, None).await;
    // Each resumption sends the one event already delivered: nothing new, so the
    // call ends once the stream has brought nothing five times in a row.
    let Err(toolgate_mcp_client::Failure::Protocol { detail }) = &got else {
        panic!("{got:?}");
    };
    assert!(detail.contains("without an answer 5 times"), "{detail}");
    // `retry: 0` is honoured no faster than one resumption a quarter second.
    let resumes = up.resumes.load(Ordering::SeqCst);
    let took = started.elapsed();
    assert!(resumes <= 6, "{resumes} resumptions");
    assert!(
        took >= Duration::from_millis(250 * 5),
        "{resumes} resumptions in {took:?}"
    );
}

#[tokio::test]
async fn an_event_id_of_sixty_kilobytes_is_never_sent_back() {
    // Within the line limit (64 KiB here; 8 MiB by default), past the id limit.
    let up = Arc::new(Reconnector {
        id_bytes: 60 << 10,
        ..Reconnector::default()
    });
    let conn = reconnector(&up).await;
    let started = tokio::time::Instant::now();
    let got = conn.request("tools/call", None, LONG, None).await;
    // No id to resume from: the call ends with the stream, saying why.
    let Err(toolgate_mcp_client::Failure::Protocol { detail }) = &got else {
        panic!("{got:?}");
    };
    assert!(detail.contains("event id was refused"), "{detail}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(up.resumes.load(Ordering::SeqCst), 0);
    assert_eq!(up.longest_resume_id.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_standalone_stream_asking_to_be_reopened_at_once_is_reopened_at_a_bounded_rate() {
    let up = Arc::new(Reconnector {
        standalone: true,
        ..Reconnector::default()
    });
    let _conn = reconnector(&up).await;
    let window = Duration::from_secs(2);
    tokio::time::sleep(window).await;
    // Until the connection is dropped, no faster than one a quarter second.
    let opened = up.opened.load(Ordering::SeqCst) + up.resumes.load(Ordering::SeqCst);
    assert!(opened <= 10, "{opened} streams opened in {window:?}");
}

#[tokio::test]
async fn a_child_that_closes_its_stdout_and_lives_on_is_stopped_and_restarted() {
    let (conn, mut events) = stdio_with(
        vec![fixture("mute_child.mjs")],
        vec![],
        vec![],
        Limits::default(),
    );
    conn.initialize(LONG).await.unwrap();
    let first = conn.pid().unwrap();
    let started = tokio::time::Instant::now();
    let failed = conn
        .request("tools/call", Some(json!({"name": "x"})), LONG, None)
        .await;
    // Failed when the child went mute, not when the call's time ran out.
    assert!(failed.is_err(), "{failed:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "failed after {:?}",
        started.elapsed()
    );
    wait_event(&mut events, |e| matches!(e, Event::Restarted)).await;
    gone(u64::from(first)).await;
    // The restarted child answers.
    conn.request("ping", None, LONG, None).await.unwrap();
}

/// A server whose session id is `bytes` long: the client would send it back on
/// every request.
async fn with_session_id(bytes: usize) -> Result<(), toolgate_mcp_client::Failure> {
    let id = "s".repeat(bytes);
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: Bytes| {
            let id = id.clone();
            async move {
                let message: Value = serde_json::from_slice(&body).unwrap();
                let Some(rid) = message.get("id").cloned() else {
                    return StatusCode::ACCEPTED.into_response();
                };
                (
                    [
                        (header::CONTENT_TYPE, "application/json".to_owned()),
                        (header::HeaderName::from_static("mcp-session-id"), id),
                    ],
                    json!({"jsonrpc": "2.0", "id": rid, "result": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "serverInfo": {"name": "long-session", "version": "1"}
                    }})
                    .to_string(),
                )
                    .into_response()
            }
        })
        .get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
    );
    let spec = served_over_http("long-session", app, Limits::default()).await;
    let (conn, _events) = Connection::start(spec, client());
    conn.initialize(LONG).await.map(|_| ())
}

#[tokio::test]
async fn a_session_id_of_sixty_kilobytes_is_refused_not_sent_back() {
    with_session_id(36).await.unwrap();
    let refused = with_session_id(60 << 10).await;
    let Err(toolgate_mcp_client::Failure::Protocol { detail }) = &refused else {
        panic!("{refused:?}");
    };
    assert!(detail.contains("session id"), "{detail}");
}

/// A server that breaks the rules keeping one session's and one stream's messages
/// apart (MCP transport 2025-11-25: the session id is the one assigned at
/// initialisation; event ids are unique within the session, and a resumption
/// replays the resumed stream only).
#[derive(Default)]
struct Confuser {
    /// `initialize` handshakes served; each session is `s-<n>`.
    sessions: AtomicUsize,
    /// `tools/call` requests served.
    calls: AtomicUsize,
    how: Confusion,
}

#[derive(Default, Clone, Copy)]
enum Confusion {
    /// The first call's answer comes under another session's id.
    #[default]
    AnotherSessionId,
    /// The first call's stream ends after one event; its resumption sends that
    /// event again (same id), then a new one and the answer.
    RepeatedEvents,
    /// The first call's stream ends after one event; its resumption replays
    /// another stream: another request's answer, that stream's notification, and
    /// then the answer.
    AnotherStreamReplayed,
}

const TEXT_RESULT: &str = r#"{"content":[{"type":"text","text":"for this session"}]}"#;

fn sse_note(id: &str, text: &str) -> String {
    format!(
        "id: {id}\nretry: 0\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{text}\"}}}}\n\n"
    )
}

fn sse_answer(id: &str, rid: &Value) -> String {
    format!("id: {id}\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{rid},\"result\":{TEXT_RESULT}}}\n\n")
}

async fn confuser_post(
    State(up): State<Arc<Confuser>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    let Some(rid) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let session = |id: String| (header::HeaderName::from_static("mcp-session-id"), id);
    if message["method"] == "initialize" {
        let n = up.sessions.fetch_add(1, Ordering::SeqCst) + 1;
        return (
            [
                (header::CONTENT_TYPE, "application/json".to_owned()),
                session(format!("s-{n}")),
            ],
            json!({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "confuser", "version": "1"}
            }})
            .to_string(),
        )
            .into_response();
    }
    let first = up.calls.fetch_add(1, Ordering::SeqCst) == 0;
    let theirs = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    match up.how {
        Confusion::AnotherSessionId => {
            let id = if first { "s-other".to_owned() } else { theirs };
            (
                [
                    (header::CONTENT_TYPE, "application/json".to_owned()),
                    session(id),
                ],
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{rid},\"result\":{TEXT_RESULT}}}"),
            )
                .into_response()
        }
        // The stream ends after its first event; the answer comes on resumption.
        Confusion::RepeatedEvents | Confusion::AnotherStreamReplayed => (
            [(header::CONTENT_TYPE, "text/event-stream")],
            sse_note("e-1", "one"),
        )
            .into_response(),
    }
}

async fn confuser_get(State(up): State<Arc<Confuser>>, headers: axum::http::HeaderMap) -> Response {
    if headers.get("last-event-id").is_none() {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    // The call's id: the client numbers its requests, the handshake first.
    let rid = json!(2);
    let body = match up.how {
        Confusion::AnotherSessionId => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
        Confusion::RepeatedEvents => format!(
            "{}{}{}",
            sse_note("e-1", "one"),
            sse_note("e-2", "two"),
            sse_answer("e-3", &rid)
        ),
        Confusion::AnotherStreamReplayed => format!(
            "id: x-1\ndata: {{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{{}}}}\n\n{}{}",
            sse_note("x-2", "another stream's"),
            sse_answer("x-3", &rid)
        ),
    };
    ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

async fn confuser(how: Confusion) -> (Arc<Confuser>, Connection) {
    let up = Arc::new(Confuser {
        how,
        ..Confuser::default()
    });
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(confuser_post).get(confuser_get))
        .with_state(Arc::clone(&up));
    let spec = served_over_http("confuser", app, Limits::default()).await;
    let (conn, _events) = Connection::start(spec, client());
    conn.initialize(LONG).await.unwrap();
    (up, conn)
}

/// The call, and the texts of the notifications relayed to its caller.
async fn call_relaying(
    conn: &Connection,
) -> (
    Result<toolgate_mcp_client::Reply, toolgate_mcp_client::Failure>,
    Vec<String>,
) {
    let (tx, mut rx) = mpsc::channel(64);
    let got = conn
        .request(
            "tools/call",
            Some(json!({"name": "x"})),
            LONG,
            Some(Relay::new(tx)),
        )
        .await;
    let mut relayed = Vec::new();
    while let Ok(r) = rx.try_recv() {
        if let Relayed::Notification {
            params: Some(p), ..
        } = r
        {
            relayed.push(p["data"].as_str().unwrap_or_default().to_owned());
        }
    }
    (got, relayed)
}

#[tokio::test]
async fn an_answer_under_another_session_id_is_refused_and_the_session_started_anew() {
    let (up, conn) = confuser(Confusion::AnotherSessionId).await;
    let (got, _) = call_relaying(&conn).await;
    let Err(toolgate_mcp_client::Failure::Protocol { detail }) = &got else {
        panic!("another session's answer was read as this one's: {got:?}");
    };
    assert!(detail.contains("another session id"), "{detail}");
    // Not sent again on its own (the server may have acted on it); the next
    // request goes on a new session, and is answered.
    assert_eq!(up.calls.load(Ordering::SeqCst), 1);
    let (again, _) = call_relaying(&conn).await;
    again.unwrap();
    assert_eq!(up.sessions.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_resumption_sending_delivered_events_again_relays_each_once() {
    let (_up, conn) = confuser(Confusion::RepeatedEvents).await;
    let (got, relayed) = call_relaying(&conn).await;
    got.unwrap();
    assert_eq!(relayed, ["one", "two"]);
}

#[tokio::test]
async fn a_resumption_replaying_another_stream_fails_the_call_and_relays_none_of_it() {
    let (_up, conn) = confuser(Confusion::AnotherStreamReplayed).await;
    let (got, relayed) = call_relaying(&conn).await;
    let Err(toolgate_mcp_client::Failure::Protocol { detail }) = &got else {
        panic!("another stream's replay was read as this one's: {got:?}");
    };
    assert!(detail.contains("another stream"), "{detail}");
    assert_eq!(relayed, ["one"]);
}

#[tokio::test]
async fn a_stdio_child_writing_without_end_is_read_to_a_byte_budget_and_reported() {
    let (_conn, mut events) = stdio_with(
        vec![fixture("stdout_flood.mjs")],
        vec![],
        vec![],
        Limits::default(),
    );
    // The child writes lines that are not JSON-RPC as fast as they are read; past
    // the budget its stdout is left unread and its owner is told.
    let detail = loop {
        if let Event::Misbehaving { detail, .. } = next_event(&mut events).await {
            break detail;
        }
    };
    assert!(
        detail.contains("standard output") && detail.contains("MiB"),
        "{detail}"
    );
}
