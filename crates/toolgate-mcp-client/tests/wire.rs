//! Against a loopback server of our own: what the reference server cannot be
//! made to do (rate limits, lost sessions, streams cut before the answer,
//! broken or huge answers), and what the client must send when a caller
//! gives up.

// Test helpers outside #[test] functions unwrap too: a failure is the test failing.
#![allow(clippy::unwrap_used)]

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use toolgate_mcp_client::{Connection, Event, Failure, Relay, Relayed, ServerSpec, Transport};

type Answer = Pin<Box<dyn Future<Output = Response> + Send>>;
type OnPost = Box<dyn Fn(Value, HeaderMap, &Fake) -> Answer + Send + Sync>;

#[derive(Default)]
struct Seen {
    posts: Vec<(HeaderMap, Value)>,
    gets: Vec<HeaderMap>,
}

struct Fake {
    seen: Mutex<Seen>,
    inits: AtomicUsize,
    /// Answers `server/discover` listing 2026-07-28 (else as a server
    /// without that revision: method not found).
    modern: std::sync::atomic::AtomicBool,
    /// With `modern`: lists a handshake revision next to 2026-07-28.
    both: std::sync::atomic::AtomicBool,
    /// Hands `server/discover` to `post` instead.
    discover_to_post: std::sync::atomic::AtomicBool,
    /// Answers every request except `initialize`.
    post: OnPost,
    /// Answers GET (standalone or resumed streams).
    get: Box<dyn Fn(HeaderMap) -> Answer + Send + Sync>,
    saw: Notify,
}

impl Fake {
    fn new(
        post: impl Fn(Value, HeaderMap, &Fake) -> Answer + Send + Sync + 'static,
        get: impl Fn(HeaderMap) -> Answer + Send + Sync + 'static,
    ) -> Arc<Fake> {
        Arc::new(Fake {
            seen: Mutex::new(Seen::default()),
            inits: AtomicUsize::new(0),
            modern: std::sync::atomic::AtomicBool::new(false),
            both: std::sync::atomic::AtomicBool::new(false),
            discover_to_post: std::sync::atomic::AtomicBool::new(false),
            post: Box::new(post),
            get: Box::new(get),
            saw: Notify::new(),
        })
    }

    fn posts(&self) -> Vec<(HeaderMap, Value)> {
        self.seen.lock().unwrap().posts.clone()
    }

    fn methods(&self) -> Vec<String> {
        self.posts()
            .iter()
            .filter_map(|(_, b)| b.get("method").and_then(Value::as_str).map(str::to_owned))
            .collect()
    }
}

fn ready(response: Response) -> Answer {
    Box::pin(async move { response })
}

fn no_standalone_stream(_: HeaderMap) -> Answer {
    ready(StatusCode::METHOD_NOT_ALLOWED.into_response())
}

fn json_response(value: Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

async fn on_post(State(fake): State<Arc<Fake>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    fake.seen
        .lock()
        .unwrap()
        .posts
        .push((headers.clone(), message.clone()));
    fake.saw.notify_waiters();
    let id = message.get("id").cloned();
    match (message.get("method").and_then(Value::as_str), id) {
        // A server of the stateless revision only: no handshake.
        (Some("initialize"), Some(_))
            if fake.modern.load(Ordering::SeqCst) && !fake.both.load(Ordering::SeqCst) =>
        {
            StatusCode::BAD_REQUEST.into_response()
        }
        (Some("initialize"), Some(id)) => {
            let n = fake.inits.fetch_add(1, Ordering::SeqCst) + 1;
            let mut response = json_response(result(
                &id,
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {"listChanged": true}},
                    "serverInfo": {"name": "fake", "version": "0.0.1"}
                }),
            ));
            response
                .headers_mut()
                .insert("mcp-session-id", format!("s-{n}").parse().unwrap());
            response
        }
        (Some("server/discover"), Some(_)) if fake.discover_to_post.load(Ordering::SeqCst) => {
            (fake.post)(message, headers, &fake).await
        }
        (Some("server/discover"), Some(id)) if fake.modern.load(Ordering::SeqCst) => {
            json_response(result(
                &id,
                json!({
                    "resultType": "complete",
                    "supportedVersions": if fake.both.load(Ordering::SeqCst) {
                        json!(["2025-11-25", "2026-07-28"])
                    } else {
                        json!(["2026-07-28"])
                    },
                    "capabilities": {"tools": {}},
                    "instructions": "stateless",
                    "ttlMs": 0,
                    "cacheScope": "private",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2.0"}}
                }),
            ))
        }
        (Some("server/discover"), Some(id)) => json_response(json!({
            "jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}
        })),
        // Notifications and our answers to server requests.
        (_, None) | (None, _) => StatusCode::ACCEPTED.into_response(),
        _ => (fake.post)(message, headers, &fake).await,
    }
}

async fn on_get(State(fake): State<Arc<Fake>>, headers: HeaderMap) -> Response {
    fake.seen.lock().unwrap().gets.push(headers.clone());
    fake.saw.notify_waiters();
    (fake.get)(headers).await
}

async fn serve(fake: Arc<Fake>) -> SocketAddr {
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(on_post).get(on_get))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

fn connect(addr: SocketAddr, max: usize) -> (Connection, mpsc::Receiver<Event>) {
    let spec = ServerSpec {
        name: "fake".into(),
        transport: Transport::Http {
            url: format!("http://{addr}/mcp?key=SECRET").parse().unwrap(),
            headers: vec![(
                http::header::AUTHORIZATION,
                http::HeaderValue::from_static("Bearer SECRET"),
            )],
        },
        max_message_bytes: max,
        limits: Default::default(),
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    Connection::start(spec, client)
}

const LONG: Duration = Duration::from_secs(20);

async fn call(
    conn: &Connection,
    relay: Option<Relay>,
) -> Result<toolgate_mcp_client::Reply, Failure> {
    conn.request(
        "tools/call",
        Some(json!({"name": "search", "arguments": {"q": "rust"}})),
        LONG,
        relay,
    )
    .await
}

#[tokio::test]
async fn handshake_sends_session_version_and_credentials_on_later_requests() {
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({"tools": []})))),
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let init = conn.initialize(LONG).await.unwrap();
    assert_eq!(init.protocol_version, "2025-06-18");
    assert_eq!(init.server_name, "fake");
    let reply = conn.request("tools/list", None, LONG, None).await.unwrap();
    assert_eq!(reply.clone().into_value().unwrap(), json!({"tools": []}));
    assert_eq!(reply.status, 200);

    // The handshake comes first: no discovery for a server that does it.
    let posts = fake.posts();
    assert_eq!(
        fake.methods(),
        ["initialize", "notifications/initialized", "tools/list"]
    );
    let (first, init_body) = &posts[0];
    assert_eq!(init_body["params"]["protocolVersion"], "2025-11-25");
    assert!(init_body["params"]["capabilities"]["sampling"].is_object());
    assert_eq!(init_body["params"]["clientInfo"]["name"], "toolgate");
    assert!(first.get("mcp-session-id").is_none());
    assert!(first.get("mcp-protocol-version").is_none());
    for (headers, _) in &posts[1..] {
        assert_eq!(headers["mcp-session-id"], "s-1");
        assert_eq!(headers["mcp-protocol-version"], "2025-06-18");
    }
    for (headers, _) in &posts {
        assert_eq!(headers["authorization"], "Bearer SECRET");
        assert_eq!(headers["accept"], "application/json, text/event-stream");
    }
    // A second initialize is the same session, not a second handshake.
    conn.initialize(LONG).await.unwrap();
    assert_eq!(fake.inits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_server_offering_a_handshake_revision_too_gets_the_handshake() {
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({"content": []})))),
        no_standalone_stream,
    );
    fake.modern.store(true, Ordering::SeqCst);
    fake.both.store(true, Ordering::SeqCst);
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let init = conn.initialize(LONG).await.unwrap();
    assert_ne!(init.protocol_version, "2026-07-28");
    assert_eq!(
        fake.inits.load(Ordering::SeqCst),
        1,
        "one initialize handshake"
    );
}

#[tokio::test]
async fn a_server_listing_2026_07_28_is_used_statelessly() {
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({"content": []})))),
        no_standalone_stream,
    );
    fake.modern.store(true, Ordering::SeqCst);
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let init = conn.initialize(LONG).await.unwrap();
    assert_eq!(init.protocol_version, "2026-07-28");
    assert_eq!(
        (init.server_name.as_str(), init.server_version.as_str()),
        ("modern", "2.0")
    );
    assert_eq!(init.instructions.as_deref(), Some("stateless"));
    conn.request(
        "tools/call",
        Some(
            json!({"name": "search", "arguments": {}, "_meta": {"progressToken": 4, "trace": "t-1"}}),
        ),
        LONG,
        None,
    )
    .await
    .unwrap();
    // The handshake was refused (a 400), then the server was asked statelessly.
    assert_eq!(
        fake.methods(),
        ["initialize", "server/discover", "tools/call"]
    );
    assert_eq!(fake.inits.load(Ordering::SeqCst), 0);
    for (headers, body) in fake.posts().into_iter().skip(1) {
        let meta = &body["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert!(meta["io.modelcontextprotocol/clientCapabilities"]["sampling"].is_object());
        assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
        assert_eq!(headers["mcp-method"], body["method"].as_str().unwrap());
        assert!(headers.get("mcp-session-id").is_none());
    }
    let (headers, call) = &fake.posts()[2];
    assert_eq!(headers["mcp-name"], "search");
    // The caller's own _meta survives beside ours, its progress token replaced by one
    // of the client's (unique on the connection).
    assert_eq!(call["params"]["_meta"]["trace"], "t-1");
    let token = call["params"]["_meta"]["progressToken"].as_str();
    assert!(
        token.is_some_and(|t| t.starts_with("tg-progress-")),
        "{call}"
    );
    assert_eq!(call["params"]["arguments"], json!({}));
    // No session, so no standalone stream to open.
    assert!(fake.seen.lock().unwrap().gets.is_empty());
}

#[tokio::test]
async fn an_overloaded_server_fails_discovery_instead_of_falling_back() {
    // A stateless-only server (it refuses the handshake) that is overloaded when asked
    // statelessly: the 503 is the answer, not a reason to try yet another revision.
    let fake = Fake::new(
        |_, _, _| ready((StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "3")]).into_response()),
        no_standalone_stream,
    );
    fake.modern.store(true, Ordering::SeqCst);
    fake.discover_to_post.store(true, Ordering::SeqCst);
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    assert!(matches!(
        conn.initialize(LONG).await,
        Err(Failure::Status { status: 503, .. })
    ));
    assert_eq!(fake.inits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn concurrent_first_requests_share_one_handshake() {
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({})))),
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let c = conn.clone();
            tokio::spawn(async move { c.request("tools/list", None, LONG, None).await })
        })
        .collect();
    for c in calls {
        c.await.unwrap().unwrap().into_value().unwrap();
    }
    assert_eq!(fake.inits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_429_is_a_status_failure_with_its_headers_and_body() {
    let fake = Fake::new(
        |_, _, _| {
            ready(
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [("retry-after", "7"), ("ratelimit-remaining", "0")],
                    "slow down",
                )
                    .into_response(),
            )
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    match call(&conn, None).await {
        Err(Failure::Status {
            status,
            headers,
            body,
        }) => {
            assert_eq!(status, 429);
            assert_eq!(headers["retry-after"], "7");
            assert_eq!(headers["ratelimit-remaining"], "0");
            assert_eq!(&body[..], b"slow down");
        }
        other => panic!("expected a 429 Status failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_status_body_is_capped_at_4_kib() {
    let fake = Fake::new(
        |_, _, _| ready((StatusCode::SERVICE_UNAVAILABLE, vec![b'x'; 100_000]).into_response()),
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 20);
    match call(&conn, None).await {
        Err(Failure::Status {
            status: 503, body, ..
        }) => assert_eq!(body.len(), 4096),
        other => panic!("expected a 503 Status failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_404_on_a_fresh_session_too_is_the_methods_answer_not_a_lost_session() {
    // A server that answers 404 to a method it does not serve: the session is not lost,
    // and saying it is would make its owner list everything again, and meet the 404
    // again, without end.
    let fake = Fake::new(
        |m, _, _| {
            if m["method"] == "tools/call" {
                ready(StatusCode::NOT_FOUND.into_response())
            } else {
                ready(json_response(result(&m["id"], json!({}))))
            }
        },
        no_standalone_stream,
    );
    let (conn, mut events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    match call(&conn, None).await {
        Err(Failure::Status { status: 404, .. }) => {}
        other => panic!("expected the 404, got {other:?}"),
    }
    assert_eq!(
        fake.inits.load(Ordering::SeqCst),
        2,
        "resent once on a fresh session"
    );
    assert!(
        events.try_recv().is_err(),
        "no SessionLost for a method's own 404"
    );
}

#[tokio::test]
async fn a_lost_session_is_reinitialised_once_and_the_request_resent() {
    let fake = Fake::new(
        |m, headers, _| {
            if headers["mcp-session-id"] == "s-1" {
                ready(StatusCode::NOT_FOUND.into_response())
            } else {
                ready(json_response(result(
                    &m["id"],
                    json!({"content": [], "isError": false}),
                )))
            }
        },
        no_standalone_stream,
    );
    let (conn, mut events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let reply = call(&conn, None).await.unwrap();
    assert_eq!(reply.into_value().unwrap()["isError"], false);
    assert_eq!(fake.inits.load(Ordering::SeqCst), 2);
    let calls: Vec<_> = fake
        .posts()
        .into_iter()
        .filter(|(_, b)| b["method"] == "tools/call")
        .map(|(h, _)| h["mcp-session-id"].to_str().unwrap().to_owned())
        .collect();
    assert_eq!(calls, ["s-1", "s-2"]);
    assert_eq!(next_event(&mut events).await, Event::SessionLost);
}

#[tokio::test]
async fn a_404_that_persists_after_the_new_session_is_reported_not_looped() {
    let fake = Fake::new(
        |_, _, _| ready(StatusCode::NOT_FOUND.into_response()),
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    assert!(matches!(
        call(&conn, None).await,
        Err(Failure::Status { status: 404, .. })
    ));
    assert_eq!(fake.inits.load(Ordering::SeqCst), 2);
}

async fn next_event(events: &mut mpsc::Receiver<Event>) -> Event {
    tokio::time::timeout(LONG, events.recv())
        .await
        .expect("no event in time")
        .expect("event channel closed")
}

#[tokio::test]
async fn an_sse_answer_cut_before_the_answer_is_resumed_with_last_event_id() {
    let fake = Fake::new(
        |_, _, _| {
            let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": 1}});
            // A priming event (id, no data), a notification, then the
            // stream closes without the answer: the polling pattern.
            let body = format!("id: e1\nretry: 10\ndata:\n\nid: e2\ndata: {log}\n\n");
            ready(([(header::CONTENT_TYPE, "text/event-stream")], body).into_response())
        },
        |headers| {
            let Some(last) = headers.get("last-event-id") else {
                return no_standalone_stream(headers);
            };
            assert_eq!(last, "e2");
            // `ID` is replaced by the id of the tools/call (see below).
            ready(
                (
                    [(header::CONTENT_TYPE, "text/event-stream")],
                    "id: e3\ndata: {\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"done\":true}}\n\n",
                )
                    .into_response(),
            )
        },
    );
    // The GET handler cannot know the id; patch it in through a wrapper.
    let fake = patch_resume_id(fake);
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let (tx, mut rx) = mpsc::channel(8);
    let reply = call(&conn, Some(Relay::new(tx))).await.unwrap();
    assert_eq!(reply.into_value().unwrap(), json!({"done": true}));
    match rx.try_recv() {
        Ok(Relayed::Notification { method, params }) => {
            assert_eq!(method, "notifications/message");
            assert_eq!(params.unwrap()["data"], 1);
        }
        other => panic!("expected the log notification, got {other:?}"),
    }
    let resumed = fake
        .seen
        .lock()
        .unwrap()
        .gets
        .iter()
        .filter(|h| h.contains_key("last-event-id"))
        .count();
    assert_eq!(resumed, 1);
}

/// Wraps a fake whose GET answer contains `ID` with one that substitutes the
/// id of the last `tools/call` it saw.
fn patch_resume_id(inner: Arc<Fake>) -> Arc<Fake> {
    let for_post = Arc::clone(&inner);
    let calls = Arc::new(Mutex::new(None::<Value>));
    let calls_post = Arc::clone(&calls);
    Fake::new(
        move |m, h, f| {
            *calls_post.lock().unwrap() = Some(m["id"].clone());
            (for_post.post)(m, h, f)
        },
        move |h| {
            let id = calls.lock().unwrap().clone().unwrap_or(Value::Null);
            let answer = (inner.get)(h);
            Box::pin(async move {
                let response = answer.await;
                let (parts, body) = response.into_parts();
                let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                let text = String::from_utf8_lossy(&bytes).replace("ID", &id.to_string());
                Response::from_parts(parts, Body::from(text))
            })
        },
    )
}

#[tokio::test]
async fn a_stream_that_ends_without_ids_or_answer_is_a_protocol_failure() {
    let fake = Fake::new(
        |_, _, _| {
            let body = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n";
            ready(([(header::CONTENT_TYPE, "text/event-stream")], body).into_response())
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    assert!(matches!(
        call(&conn, None).await,
        Err(Failure::Protocol { .. })
    ));
}

#[tokio::test]
async fn a_non_json_answer_is_a_protocol_failure() {
    let fake = Fake::new(
        |_, _, _| {
            ready(
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    "<html>oops</html>",
                )
                    .into_response(),
            )
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    match call(&conn, None).await {
        Err(Failure::Protocol { detail }) => assert!(detail.contains("not JSON"), "{detail}"),
        other => panic!("expected Protocol, got {other:?}"),
    }
}

#[tokio::test]
async fn a_wrong_content_type_is_a_protocol_failure() {
    let fake = Fake::new(
        |_, _, _| ready(([(header::CONTENT_TYPE, "text/html")], "<html/>").into_response()),
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    assert!(matches!(
        call(&conn, None).await,
        Err(Failure::Protocol { .. })
    ));
}

#[tokio::test]
async fn a_json_rpc_error_is_an_outcome_not_a_failure() {
    let fake = Fake::new(
        |m, _, _| {
            ready(json_response(json!({"jsonrpc": "2.0", "id": m["id"],
                "error": {"code": -32602, "message": "unknown tool", "data": {"name": "search"}}})))
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    let err = call(&conn, None).await.unwrap().outcome.unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32602, "unknown tool"));
    assert_eq!(err.data, Some(json!({"name": "search"})));
}

#[tokio::test]
async fn a_huge_answer_is_too_large_as_json_and_as_an_event() {
    let huge = "x".repeat(200_000);
    let fake = Fake::new(
        move |m, _, _| {
            let text = result(&m["id"], json!({"blob": huge})).to_string();
            if m["params"]["name"] == "sse" {
                ready(
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        format!("data: {text}\n\n"),
                    )
                        .into_response(),
                )
            } else {
                ready(([(header::CONTENT_TYPE, "application/json")], text).into_response())
            }
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 64 * 1024);
    for name in ["json", "sse"] {
        let got = conn
            .request("tools/call", Some(json!({"name": name})), LONG, None)
            .await;
        assert!(
            matches!(got, Err(Failure::TooLarge { limit: 65536 })),
            "{name}: {got:?}"
        );
    }
}

#[tokio::test]
async fn an_answer_of_more_values_than_its_size_allows_is_refused_as_json_and_as_an_event() {
    // 64 KiB allow 4,096 values; 10,000 zeros are about 20 KB of text.
    let fake = Fake::new(
        move |m, _, _| {
            let count = m["params"]["arguments"]["count"].as_u64().unwrap_or(0) as usize;
            let text = result(&m["id"], json!({"values": vec![0; count]})).to_string();
            if m["params"]["name"] == "sse" {
                ready(
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        format!("data: {text}\n\n"),
                    )
                        .into_response(),
                )
            } else {
                ready(([(header::CONTENT_TYPE, "application/json")], text).into_response())
            }
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 64 * 1024);
    for name in ["json", "sse"] {
        let params = |count: usize| Some(json!({"name": name, "arguments": {"count": count}}));
        let got = conn.request("tools/call", params(10_000), LONG, None).await;
        assert!(
            matches!(got, Err(Failure::TooManyValues { limit: 4096 })),
            "{name}: {got:?}"
        );
        let fine = conn.request("tools/call", params(100), LONG, None).await;
        assert_eq!(
            fine.unwrap().into_value().unwrap()["values"],
            json!(vec![0; 100]),
            "{name}"
        );
    }
}

#[tokio::test]
async fn dropping_a_pending_request_sends_notifications_cancelled_with_its_id() {
    let fake = Fake::new(
        |_, _, _| {
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                StatusCode::GATEWAY_TIMEOUT.into_response()
            })
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let pending = {
        let conn = conn.clone();
        tokio::spawn(async move { call(&conn, None).await })
    };
    let call_id = wait_for(&fake, |posts| {
        posts
            .iter()
            .find(|(_, b)| b["method"] == "tools/call")
            .map(|(_, b)| b["id"].clone())
    })
    .await;
    pending.abort();
    let cancelled = wait_for(&fake, |posts| {
        posts
            .iter()
            .find(|(_, b)| b["method"] == "notifications/cancelled")
            .map(|(h, b)| {
                (
                    h["mcp-session-id"].clone(),
                    b["params"]["requestId"].clone(),
                )
            })
    })
    .await;
    assert_eq!(cancelled.0, "s-1");
    assert_eq!(cancelled.1, call_id);
}

#[tokio::test]
async fn a_request_that_times_out_is_cancelled_too() {
    let fake = Fake::new(
        |_, _, _| {
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                StatusCode::GATEWAY_TIMEOUT.into_response()
            })
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let got = conn
        .request("tools/call", None, Duration::from_millis(300), None)
        .await;
    assert!(matches!(got, Err(Failure::Timeout(d)) if d == Duration::from_millis(300)));
    let ids = wait_for(&fake, |posts| {
        let call = posts.iter().find(|(_, b)| b["method"] == "tools/call")?;
        let cancel = posts
            .iter()
            .find(|(_, b)| b["method"] == "notifications/cancelled")?;
        Some((
            call.1["id"].clone(),
            cancel.1["params"]["requestId"].clone(),
        ))
    })
    .await;
    assert_eq!(ids.0, ids.1);
}

/// Waits (bounded) until the server's log satisfies `probe`.
async fn wait_for<T>(fake: &Fake, probe: impl Fn(&[(HeaderMap, Value)]) -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + LONG;
    loop {
        let notified = fake.saw.notified();
        if let Some(found) = probe(&fake.posts()) {
            return found;
        }
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            panic!(
                "the server never saw what the test waits for: {:?}",
                fake.methods()
            );
        }
    }
}

#[tokio::test]
async fn the_standalone_stream_turns_notifications_into_events_and_pings_are_answered() {
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({})))),
        |headers| {
            if headers.contains_key("last-event-id") {
                return ready(StatusCode::METHOD_NOT_ALLOWED.into_response());
            }
            let body = concat!(
                "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
                "id: g2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"kb://a\"}}\n\n",
                "id: g3\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}\n\n",
                "id: g4\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n",
                "id: g5\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-2\",\"method\":\"sampling/createMessage\",\"params\":{}}\n\n",
            );
            ready(([(header::CONTENT_TYPE, "text/event-stream")], body).into_response())
        },
    );
    let (conn, mut events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    assert_eq!(next_event(&mut events).await, Event::ToolsChanged);
    assert_eq!(
        next_event(&mut events).await,
        Event::ResourceUpdated {
            uri: "kb://a".into()
        }
    );
    match next_event(&mut events).await {
        Event::Notification { method, .. } => assert_eq!(method, "notifications/message"),
        other => panic!("expected the logging notification, got {other:?}"),
    }
    let answers = wait_for(&fake, |posts| {
        let ping = posts.iter().find(|(_, b)| b["id"] == "srv-1")?;
        let sampling = posts.iter().find(|(_, b)| b["id"] == "srv-2")?;
        Some((ping.1.clone(), sampling.1.clone()))
    })
    .await;
    assert_eq!(answers.0["result"], json!({}));
    // A server request outside any request has no one to answer it.
    assert_eq!(answers.1["error"]["code"], -32601);
    // The stream was reopened where it ended.
    let resumed = wait_for(&fake, |_| {
        let seen = fake.seen.lock().unwrap();
        seen.gets
            .iter()
            .find_map(|h| h.get("last-event-id").cloned())
    })
    .await;
    assert_eq!(resumed, "g5");
}

#[tokio::test]
async fn server_requests_on_a_request_stream_are_relayed_and_answered() {
    let fake = Fake::new(
        |m, _, _| {
            let body = format!(
                "data: {}\n\ndata: {}\n\n",
                json!({"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"ok?"}}),
                json!({"jsonrpc":"2.0","id":"q2","method":"roots/list"}),
            );
            // The answer may come before the relayed answers are back: they
            // are POSTed on their own, whenever the relay answers.
            let answer = result(&m["id"], json!({"after": "relay"}));
            ready(
                (
                    [(header::CONTENT_TYPE, "text/event-stream")],
                    format!("{body}data: {answer}\n\n"),
                )
                    .into_response(),
            )
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let (tx, mut rx) = mpsc::channel(8);
    let reply = call(&conn, Some(Relay::new(tx))).await.unwrap();
    assert_eq!(reply.into_value().unwrap(), json!({"after": "relay"}));
    // The order the two arrive in is not the point; each is answered by kind.
    let mut methods = Vec::new();
    for _ in 0..2 {
        match rx.recv().await {
            Some(Relayed::Request { method, answer, .. }) => {
                if method == "elicitation/create" {
                    answer.send(Ok(json!({"action": "accept"}))).unwrap();
                } else {
                    // Dropped unanswered: the server must hear -32603.
                    drop(answer);
                }
                methods.push(method);
            }
            other => panic!("expected a relayed request, got {other:?}"),
        }
    }
    methods.sort();
    assert_eq!(methods, ["elicitation/create", "roots/list"]);
    let answers = wait_for(&fake, |posts| {
        let q1 = posts.iter().find(|(_, b)| b["id"] == "q1")?;
        let q2 = posts.iter().find(|(_, b)| b["id"] == "q2")?;
        Some((q1.clone(), q2.1.clone()))
    })
    .await;
    assert_eq!(answers.0.1["result"], json!({"action": "accept"}));
    assert_eq!(answers.0.0["mcp-session-id"], "s-1");
    assert_eq!(answers.1["error"]["code"], -32603);
    assert_eq!(
        answers.1["error"]["message"],
        "the calling client went away"
    );
}

/// A server whose `tools/call` asks `arguments.n` questions on the call's stream, with
/// ids `<arguments.tag>-<i>`, then answers.
fn questioning_server() -> Arc<Fake> {
    Fake::new(
        |m, _, _| {
            let args = &m["params"]["arguments"];
            let tag = args["tag"].as_str().unwrap_or_default().to_owned();
            let mut body = String::new();
            for i in 0..args["n"].as_u64().unwrap_or(0) {
                let q =
                    json!({"jsonrpc": "2.0", "id": format!("{tag}-{i}"), "method": "roots/list"});
                body.push_str(&format!("data: {q}\n\n"));
            }
            let answer = result(&m["id"], json!({"asked": tag}));
            ready(
                (
                    [(header::CONTENT_TYPE, "text/event-stream")],
                    format!("{body}data: {answer}\n\n"),
                )
                    .into_response(),
            )
        },
        no_standalone_stream,
    )
}

#[tokio::test]
async fn over_http_one_agents_unanswered_questions_leave_room_for_anothers() {
    let fake = questioning_server();
    let addr = serve(Arc::clone(&fake)).await;
    let spec = ServerSpec {
        name: "fake".into(),
        transport: Transport::Http {
            url: format!("http://{addr}/mcp").parse().unwrap(),
            headers: vec![],
        },
        max_message_bytes: 1 << 16,
        limits: toolgate_mcp_client::Limits {
            max_server_requests: 4,
            ..Default::default()
        },
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (conn, _events) = Connection::start(spec, reqwest::Client::new());
    conn.share_server_requests(0.5, "gateway.server_request_share");
    let ask = |owner: &str, n: u64| {
        let (tx, rx) = mpsc::channel(16);
        let relay = Relay::new(tx).owned_by(owner.into());
        let conn = conn.clone();
        let tag = owner.to_owned();
        let call = async move {
            conn.request(
                "tools/call",
                Some(json!({"name": "ask", "arguments": {"n": n, "tag": tag}})),
                LONG,
                Some(relay),
            )
            .await
        };
        (call, rx)
    };
    // Alice leaves her four questions open: two hold her share of the slots, the
    // other two are refused, and the server is told why.
    let (call, mut alice) = ask("alice", 4);
    call.await.unwrap();
    let mut held = Vec::new();
    for _ in 0..2 {
        match tokio::time::timeout(LONG, alice.recv()).await.unwrap() {
            Some(Relayed::Request { answer, .. }) => held.push(answer),
            other => panic!("expected a relayed request, got {other:?}"),
        }
    }
    let refused = wait_for(&fake, |posts| {
        let refused: Vec<Value> = posts
            .iter()
            .filter(|(_, b)| b["id"].as_str().is_some_and(|id| id.starts_with("alice-")))
            .map(|(_, b)| b["error"].clone())
            .collect();
        (refused.len() == 2).then_some(refused)
    })
    .await;
    for error in &refused {
        assert_eq!(error["code"], -32000, "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("this agent") && message.contains("gateway.server_request_share"),
            "{message}"
        );
    }
    // Bob's questions are relayed and answered while Alice's stay open.
    let (call, mut bob) = ask("bob", 2);
    call.await.unwrap();
    for _ in 0..2 {
        match tokio::time::timeout(LONG, bob.recv()).await.unwrap() {
            Some(Relayed::Request { answer, .. }) => answer.send(Ok(json!({"roots": []}))).unwrap(),
            other => panic!("expected a relayed request, got {other:?}"),
        }
    }
    wait_for(&fake, |posts| {
        let answered = posts
            .iter()
            .filter(|(_, b)| {
                b["id"].as_str().is_some_and(|id| id.starts_with("bob-"))
                    && b["result"] == json!({"roots": []})
            })
            .count();
        (answered == 2).then_some(())
    })
    .await;
    let stats = conn.server_requests();
    assert_eq!((stats.over_share, stats.shed), (2, 0));
    drop(held);
}

#[tokio::test]
async fn a_server_that_is_down_is_a_connect_failure_without_secrets() {
    // Bind and drop: the port is (for this test's lifetime) closed.
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let (conn, _events) = connect(addr, 1 << 16);
    match conn.request("tools/list", None, LONG, None).await {
        Err(Failure::Connect { detail }) => {
            assert!(
                detail.contains(&format!("127.0.0.1:{}/mcp", addr.port())),
                "{detail}"
            );
            assert!(!detail.contains("SECRET"), "{detail}");
        }
        other => panic!("expected Connect, got {other:?}"),
    }
}

#[tokio::test]
async fn shutdown_deletes_the_session() {
    let deleted = Arc::new(AtomicUsize::new(0));
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({})))),
        no_standalone_stream,
    );
    let app = {
        let deleted = Arc::clone(&deleted);
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::post(on_post)
                    .get(on_get)
                    .delete(move |headers: HeaderMap| {
                        let deleted = Arc::clone(&deleted);
                        async move {
                            if headers["mcp-session-id"] == "s-1" {
                                deleted.fetch_add(1, Ordering::SeqCst);
                            }
                            StatusCode::NO_CONTENT
                        }
                    }),
            )
            .with_state(fake)
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let (conn, _events) = connect(addr, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    conn.shutdown().await;
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    assert!(matches!(
        conn.request("tools/list", None, LONG, None).await,
        Err(Failure::Connect { .. })
    ));
}

#[tokio::test]
async fn a_standalone_stream_answered_404_re_establishes_the_session() {
    let fake = Fake::new(
        |m, _, _| ready(json_response(result(&m["id"], json!({})))),
        |headers| {
            if headers["mcp-session-id"] == "s-1" {
                ready(StatusCode::NOT_FOUND.into_response())
            } else {
                no_standalone_stream(headers)
            }
        },
    );
    let (conn, mut events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    assert_eq!(next_event(&mut events).await, Event::SessionLost);
    assert_eq!(fake.inits.load(Ordering::SeqCst), 2);
    // Later requests use the new session; a server that does the handshake is never
    // asked to discover.
    conn.request("tools/list", None, LONG, None).await.unwrap();
    let (headers, _) = fake.posts().pop().unwrap();
    assert_eq!(headers["mcp-session-id"], "s-2");
    let discovers = fake
        .methods()
        .iter()
        .filter(|m| *m == "server/discover")
        .count();
    assert_eq!(discovers, 0);
}

#[tokio::test]
async fn a_successful_answer_keeps_its_status_and_headers() {
    let fake = Fake::new(
        |m, _, _| {
            let mut response = json_response(result(&m["id"], json!({"content": []})));
            let h = response.headers_mut();
            h.insert("deprecation", "@1767225600".parse().unwrap());
            h.insert("ratelimit-remaining", "41".parse().unwrap());
            ready(response)
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    let reply = call(&conn, None).await.unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["deprecation"], "@1767225600");
    assert_eq!(reply.headers["ratelimit-remaining"], "41");
}

#[tokio::test]
async fn a_request_accepted_without_an_answer_is_a_protocol_failure() {
    let fake = Fake::new(
        |_, _, _| ready(StatusCode::ACCEPTED.into_response()),
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(fake).await, 1 << 16);
    match call(&conn, None).await {
        Err(Failure::Protocol { detail }) => assert!(detail.contains("202"), "{detail}"),
        other => panic!("expected Protocol, got {other:?}"),
    }
}

/// A stateless-only server whose `tools/call` asks `rounds` before it answers: round
/// `n` (from 0) answers `asks(n)` as the input-required result, the last round the
/// result `{"done": <the retry's params>}`.
fn asking_server(rounds: usize, asks: fn(usize) -> Value) -> Arc<Fake> {
    let calls = Arc::new(AtomicUsize::new(0));
    let fake = Fake::new(
        move |m, _, _| {
            let n = calls.fetch_add(1, Ordering::SeqCst);
            let body = if n < rounds {
                let mut asked = asks(n);
                asked["resultType"] = json!("input_required");
                result(&m["id"], asked)
            } else {
                result(&m["id"], json!({"done": m["params"]}))
            };
            ready(json_response(body))
        },
        no_standalone_stream,
    );
    fake.modern.store(true, Ordering::SeqCst);
    fake
}

/// Answers every relayed question with `{"answered": <method>}`, counting them.
fn answering_relay() -> (Relay, Arc<AtomicUsize>) {
    let (tx, mut rx) = mpsc::channel(8);
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    tokio::spawn(async move {
        while let Some(relayed) = rx.recv().await {
            if let Relayed::Request { method, answer, .. } = relayed {
                count.fetch_add(1, Ordering::SeqCst);
                let _ = answer.send(Ok(json!({"answered": method})));
            }
        }
    });
    (Relay::new(tx), asked)
}

#[tokio::test]
async fn a_stateless_servers_questions_go_to_the_relay_and_the_call_is_sent_again_with_the_answers()
{
    let fake = asking_server(2, |n| {
        if n == 0 {
            json!({"inputRequests": {
                "model": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}},
                "where": {"method": "roots/list"}
            }, "requestState": "opaque-1"})
        } else {
            json!({"inputRequests": {"sure": {"method": "elicitation/create", "params": {"message": "ok?"}}},
                   "requestState": {"round": 2}})
        }
    });
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let (relay, asked) = answering_relay();
    let reply = call(&conn, Some(relay)).await.unwrap();
    let done = reply.into_value().unwrap()["done"].clone();
    // The last retry: the call's own params, the last round's answers under the
    // server's keys, its state echoed as it was (any JSON), and our _meta again.
    assert_eq!(done["name"], "search");
    assert_eq!(done["arguments"], json!({"q": "rust"}));
    assert_eq!(
        done["inputResponses"],
        json!({"sure": {"answered": "elicitation/create"}})
    );
    assert_eq!(done["requestState"], json!({"round": 2}));
    assert_eq!(
        done["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 3);
    let calls: Vec<Value> = fake
        .posts()
        .into_iter()
        .filter(|(_, b)| b["method"] == "tools/call")
        .map(|(_, b)| b)
        .collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(
        calls[1]["params"]["inputResponses"],
        json!({"model": {"answered": "sampling/createMessage"}, "where": {"answered": "roots/list"}})
    );
    assert_eq!(calls[1]["params"]["requestState"], "opaque-1");
    assert!(calls[0]["params"].get("inputResponses").is_none());
    // Every retry is a request of its own.
    assert_ne!(calls[0]["id"], calls[1]["id"]);
    assert_ne!(calls[1]["id"], calls[2]["id"]);
}

#[tokio::test]
async fn a_question_the_client_cannot_answer_ends_the_call_with_its_error() {
    let fake = asking_server(
        1,
        |_| json!({"inputRequests": {"model": {"method": "sampling/createMessage", "params": {}}}}),
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    // No relay: nobody above can answer.
    let reply = call(&conn, None).await.unwrap();
    let error = reply.outcome.unwrap_err();
    assert!(
        error
            .message
            .contains("needs the client to answer sampling/createMessage"),
        "{error:?}"
    );
    // Not sent again without its answers.
    assert_eq!(
        fake.methods().iter().filter(|m| *m == "tools/call").count(),
        1
    );
}

#[tokio::test]
async fn a_server_that_keeps_asking_or_asks_wrongly_is_a_protocol_failure() {
    let fake = asking_server(
        usize::MAX,
        |_| json!({"inputRequests": {"where": {"method": "roots/list"}}}),
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let (relay, asked) = answering_relay();
    let failure = call(&conn, Some(relay)).await.unwrap_err();
    assert!(
        matches!(&failure, Failure::Protocol { detail } if detail.contains("more than 8 times")),
        "{failure:?}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 8);

    for (asks, says) in [
        (
            json!({"inputRequests": {"q": {"params": {}}}}),
            "names no method",
        ),
        (
            json!({"inputRequests": [1, 2]}),
            "not an object of requests",
        ),
        (json!({}), "neither a question nor a requestState"),
    ] {
        let fake = Fake::new(
            move |m, _, _| {
                let mut asked = asks.clone();
                asked["resultType"] = json!("input_required");
                ready(json_response(result(&m["id"], asked)))
            },
            no_standalone_stream,
        );
        fake.modern.store(true, Ordering::SeqCst);
        let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
        let failure = call(&conn, None).await.unwrap_err();
        assert!(
            matches!(&failure, Failure::Protocol { detail } if detail.contains(says)),
            "{failure:?}"
        );
    }
}

/// What a stateless server hands back to be echoed in the retry — its `requestState`
/// and its questions' keys — is bounded: past the bound the request ends as a
/// protocol break naming it, nothing is asked of the client and nothing is sent again.
#[tokio::test]
async fn a_state_or_question_key_too_large_to_send_back_is_a_protocol_failure() {
    fn huge_state(_: usize) -> Value {
        json!({"inputRequests": {"where": {"method": "roots/list"}},
               "requestState": "s".repeat(100_000)})
    }
    fn huge_key(_: usize) -> Value {
        json!({"inputRequests": {"k".repeat(2_000): {"method": "roots/list"}}})
    }
    fn deep_state(_: usize) -> Value {
        // Small nesting, large total: counted as the JSON sent back, not as a string.
        json!({"requestState": {"rows": vec![json!({"id": "0123456789abcdef"}); 5_000]}})
    }
    for (asks, says) in [
        (
            huge_state as fn(usize) -> Value,
            "requestState is 100002 bytes",
        ),
        (huge_key, "keyed a question with 2000 bytes"),
        (deep_state, "requestState is"),
    ] {
        // The server would ask for ever; the first answer already ends it.
        let fake = asking_server(usize::MAX, asks);
        let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 20);
        let (relay, asked) = answering_relay();
        let failure = call(&conn, Some(relay)).await.unwrap_err();
        assert!(
            matches!(&failure, Failure::Protocol { detail } if detail.contains(says)),
            "{failure:?}"
        );
        assert_eq!(asked.load(Ordering::SeqCst), 0, "nothing asked");
        assert_eq!(
            fake.methods().iter().filter(|m| *m == "tools/call").count(),
            1,
            "nothing sent again"
        );
    }
    // A state within the bound is sent back as it came.
    let fake = asking_server(1, |_| json!({"requestState": "s".repeat(60_000)}));
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 20);
    let done = call(&conn, None).await.unwrap().into_value().unwrap()["done"].clone();
    assert_eq!(done["requestState"].as_str().map(str::len), Some(60_000));
}

#[tokio::test]
async fn a_state_without_questions_is_waited_for_and_sent_back_alone() {
    let fake = asking_server(1, |_| json!({"requestState": "pending-7"}));
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let done = call(&conn, None).await.unwrap().into_value().unwrap()["done"].clone();
    assert_eq!(done["requestState"], "pending-7");
    assert!(done.get("inputResponses").is_none(), "{done}");
}

#[tokio::test]
async fn a_handshake_servers_result_naming_input_required_is_passed_on_as_it_came() {
    // Only the stateless revision has these rounds; a handshake-era server's result
    // that happens to say so is its own business.
    let fake = Fake::new(
        |m, _, _| {
            ready(json_response(result(
                &m["id"],
                json!({"resultType": "input_required", "inputRequests": {"q": {"method": "roots/list"}}}),
            )))
        },
        no_standalone_stream,
    );
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    let (relay, asked) = answering_relay();
    let value = call(&conn, Some(relay))
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(value["resultType"], "input_required");
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

/// A stateless-only server announcing tool list changes, whose
/// `subscriptions/listen` is answered by `listen`.
fn announcing_server(listen: fn(&Value) -> Response) -> Arc<Fake> {
    let fake = Fake::new(
        move |m, _, _| match m["method"].as_str() {
            Some("server/discover") => ready(json_response(result(
                &m["id"],
                json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {"listChanged": true}, "prompts": {}},
                }),
            ))),
            Some("subscriptions/listen") => ready(listen(&m)),
            _ => ready(json_response(result(&m["id"], json!({"content": []})))),
        },
        no_standalone_stream,
    );
    fake.modern.store(true, Ordering::SeqCst);
    fake.discover_to_post.store(true, Ordering::SeqCst);
    fake
}

#[tokio::test]
async fn a_stateless_servers_list_changes_are_listened_for_with_a_subscription() {
    let fake = announcing_server(|m| {
        let tagged = json!({"io.modelcontextprotocol/subscriptionId": m["id"]});
        let events = [
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                   "params": {"notifications": {"toolsListChanged": true}, "_meta": tagged}}),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                   "params": {"_meta": tagged}}),
        ];
        let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
    });
    let (conn, mut events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    // The acknowledgement is no event; the list change is.
    assert!(matches!(next_event(&mut events).await, Event::ToolsChanged));
    let (headers, listen) = fake
        .posts()
        .into_iter()
        .find(|(_, b)| b["method"] == "subscriptions/listen")
        .unwrap();
    assert_eq!(headers["mcp-method"], "subscriptions/listen");
    assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
    // Only what the server said it announces is asked for.
    assert_eq!(
        listen["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": false, "resourcesListChanged": false})
    );
    assert_eq!(
        listen["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(listen["id"].is_i64());
}

#[tokio::test]
async fn a_connection_whose_events_nobody_receives_opens_no_subscription() {
    // A caller's own session is only for calls: its owner drops the events.
    let fake = announcing_server(|m| {
        let tagged = json!({"io.modelcontextprotocol/subscriptionId": m["id"]});
        let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                         "params": {"notifications": {"toolsListChanged": true}, "_meta": tagged}});
        (
            [(header::CONTENT_TYPE, "text/event-stream")],
            format!("data: {ack}\n\n"),
        )
            .into_response()
    });
    let (conn, events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    drop(events);
    conn.initialize(LONG).await.unwrap();
    conn.request("tools/list", None, LONG, None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let methods = fake.methods();
    assert!(methods.iter().any(|m| m == "tools/list"), "{methods:?}");
    assert!(
        !methods.iter().any(|m| m == "subscriptions/listen"),
        "{methods:?}"
    );
}

#[tokio::test]
async fn a_subscription_answered_without_a_stream_is_not_asked_for_again() {
    let fake = announcing_server(|m| {
        json_response(json!({"jsonrpc": "2.0", "id": m["id"],
                             "error": {"code": -32601, "message": "Method not found"}}))
    });
    let (conn, _events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    wait_for(&fake, |posts| {
        posts
            .iter()
            .any(|(_, b)| b["method"] == "subscriptions/listen")
            .then_some(())
    })
    .await;
    // Past the first reconnection delay (1 s): still the one request.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let listens = fake
        .methods()
        .iter()
        .filter(|m| *m == "subscriptions/listen")
        .count();
    assert_eq!(listens, 1);
}

#[tokio::test]
async fn a_stateless_servers_resources_are_followed_by_naming_them_in_the_subscription() {
    let fake = Fake::new(
        |m, _, _| match m["method"].as_str() {
            Some("server/discover") => ready(json_response(result(
                &m["id"],
                json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"resources": {"subscribe": true}},
                }),
            ))),
            Some("subscriptions/listen") => {
                // Tells of an update to each resource the subscription names.
                let tagged = json!({"io.modelcontextprotocol/subscriptionId": m["id"]});
                let named = m["params"]["notifications"]["resourceSubscriptions"].clone();
                let mut body = format!(
                    "data: {}\n\n",
                    json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                           "params": {"notifications": {"resourceSubscriptions": named}, "_meta": tagged}})
                );
                for uri in named.as_array().into_iter().flatten() {
                    let update = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                        "params": {"uri": uri, "_meta": tagged}});
                    body.push_str(&format!("data: {update}\n\n"));
                }
                ready(([(header::CONTENT_TYPE, "text/event-stream")], body).into_response())
            }
            _ => ready(json_response(result(&m["id"], json!({"content": []})))),
        },
        no_standalone_stream,
    );
    fake.modern.store(true, Ordering::SeqCst);
    fake.discover_to_post.store(true, Ordering::SeqCst);
    let (conn, mut events) = connect(serve(Arc::clone(&fake)).await, 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let subscribe =
        |uri: &str| conn.request("resources/subscribe", Some(json!({"uri": uri})), LONG, None);
    // Answered here: the revision has no resources/subscribe to send.
    let reply = subscribe("kb://notes/a").await.unwrap();
    assert_eq!(reply.into_value().unwrap(), json!({}));
    match next_event(&mut events).await {
        Event::ResourceUpdated { uri } => assert_eq!(uri, "kb://notes/a"),
        other => panic!("expected the followed resource's update, got {other:?}"),
    }
    let listens = |fake: &Fake| -> Vec<Value> {
        fake.posts()
            .into_iter()
            .filter(|(_, b)| b["method"] == "subscriptions/listen")
            .map(|(_, b)| b["params"]["notifications"].clone())
            .collect()
    };
    let first = listens(&fake);
    assert_eq!(
        first.last().unwrap()["resourceSubscriptions"],
        json!(["kb://notes/a"])
    );
    assert!(!fake.methods().iter().any(|m| m == "resources/subscribe"));
    // Letting it go opens the subscription again without it; with nothing else to
    // ask for, no new subscription is opened at all.
    conn.request(
        "resources/unsubscribe",
        Some(json!({"uri": "kb://notes/a"})),
        LONG,
        None,
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = listens(&fake);
    assert!(
        after
            .iter()
            .skip(first.len())
            .all(|n| n.get("resourceSubscriptions").is_none()),
        "{after:?}"
    );
}
