//! A list answer with one entry larger than a message may be: the other
//! entries are still read, the large one is left out and named, and what the
//! answer costs stays bounded however large it is (what is kept within one
//! message, `list_filter.rs`; what is read here) — over a JSON body, an event
//! stream and a stdio line.

// Test helpers outside #[test] functions unwrap too: a failure is the test failing.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use common::*;
use serde_json::{Value, json};
use toolgate_mcp_client::{Connection, Failure, Limits, Reply, ServerSpec, Transport};

const MAX: usize = 8 << 20;
const CHUNK: usize = 64 << 10;

/// How the fake server frames the list.
#[derive(Clone, Copy)]
enum Framing {
    Json,
    /// One event, its data on one line.
    Sse,
}

/// What the fake server lists: the JSON text of the answer, made in chunks as
/// it is sent so that the server itself holds little of it.
#[derive(Clone, Copy)]
enum Listing {
    /// Two small tools around one whose description has this many bytes.
    OneHuge(usize),
    /// This many small tools (about 170 bytes each).
    Many(usize),
}

struct Fake {
    framing: Framing,
    listing: Listing,
    /// Bytes of the list answer the server has produced.
    produced: AtomicUsize,
}

fn small(name: &str) -> String {
    json!({"name": name, "description": "a small tool ".repeat(8), "inputSchema": {"type": "object"}}).to_string()
}

/// The answer's text, in pieces generated one after another.
fn pieces(listing: Listing, id: &Value) -> Box<dyn Iterator<Item = Bytes> + Send> {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":["#);
    let tail = Bytes::from_static(b"]}}");
    match listing {
        Listing::OneHuge(bytes) => {
            let open = format!(
                r#"{},{{"name":"huge","inputSchema":{{"type":"object"}},"description":""#,
                small("first")
            );
            let close = format!(r#""}},{}"#, small("last"));
            let body = (0..bytes.div_ceil(CHUNK))
                .map(move |i| Bytes::from(vec![b'd'; CHUNK.min(bytes - i * CHUNK)]));
            Box::new(
                std::iter::once(Bytes::from(head + &open))
                    .chain(body)
                    .chain([Bytes::from(close), tail]),
            )
        }
        Listing::Many(n) => {
            let tools = (0..n).map(|i| {
                let sep = if i == 0 { "" } else { "," };
                Bytes::from(format!("{sep}{}", small(&format!("t{i}"))))
            });
            Box::new(
                std::iter::once(Bytes::from(head))
                    .chain(tools)
                    .chain([tail]),
            )
        }
    }
}

async fn post(State(up): State<Arc<Fake>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    let id = message.get("id").cloned();
    match (message.get("method").and_then(Value::as_str), id) {
        (Some("initialize"), Some(id)) => initialized(&id, "lister", json!({"tools": {}})),
        // Any other request is answered with the list.
        (Some(_), Some(id)) => {
            let (kind, pieces): (_, Box<dyn Iterator<Item = Bytes> + Send>) = match up.framing {
                Framing::Json => ("application/json", pieces(up.listing, &id)),
                Framing::Sse => (
                    "text/event-stream",
                    Box::new(
                        std::iter::once(Bytes::from_static(b"data: "))
                            .chain(pieces(up.listing, &id))
                            .chain([Bytes::from_static(b"\n\n")]),
                    ),
                ),
            };
            let counted = Arc::clone(&up);
            // Made as it is read: the server holds a chunk at a time.
            let stream = futures_util::stream::iter(pieces.map(move |b| {
                counted.produced.fetch_add(b.len(), Ordering::Relaxed);
                Ok::<_, std::io::Error>(b)
            }));
            ([(header::CONTENT_TYPE, kind)], Body::from_stream(stream)).into_response()
        }
        (Some(_), None) => StatusCode::ACCEPTED.into_response(),
        (_, Some(id)) => (
            [(header::CONTENT_TYPE, "application/json")],
            json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string(),
        )
            .into_response(),
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

async fn serve(framing: Framing, listing: Listing) -> (Connection, Arc<Fake>) {
    let up = Arc::new(Fake {
        framing,
        listing,
        produced: AtomicUsize::new(0),
    });
    let app = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(post).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
        )
        .with_state(Arc::clone(&up));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let spec = ServerSpec {
        name: "lister".into(),
        transport: Transport::Http {
            url: format!("http://{addr}/mcp").parse().unwrap(),
            headers: vec![],
        },
        max_message_bytes: MAX,
        limits: Limits::default(),
    };
    let (conn, _events) = Connection::start(spec, client());
    conn.initialize(LONG).await.unwrap();
    (conn, up)
}

fn tool_names(reply: &Reply) -> Vec<String> {
    let result: Value = serde_json::from_str(reply.outcome.as_ref().unwrap().get()).unwrap();
    result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn one_tool_past_the_limit_leaves_the_others_served_over_json_and_sse() {
    for framing in [Framing::Json, Framing::Sse] {
        let (conn, _) = serve(framing, Listing::OneHuge(9_000_000)).await;
        let reply = conn.request("tools/list", None, LONG, None).await.unwrap();
        assert_eq!(tool_names(&reply), ["first", "last"]);
        assert_eq!(reply.skipped.too_large, 1);
        assert_eq!(reply.skipped.examples, ["huge"]);
    }
}

#[tokio::test]
async fn one_tool_of_fifty_megabytes_is_read_past_without_being_held() {
    for framing in [Framing::Json, Framing::Sse] {
        let (conn, _) = serve(framing, Listing::OneHuge(50 << 20)).await;
        let reply = conn.request("tools/list", None, LONG, None).await.unwrap();
        assert_eq!(tool_names(&reply), ["first", "last"]);
        assert_eq!(reply.skipped.too_large, 1);
    }
}

#[tokio::test]
async fn a_list_of_a_gigabyte_is_cut_off() {
    for framing in [Framing::Json, Framing::Sse] {
        let (conn, up) = serve(framing, Listing::OneHuge(1 << 30)).await;
        let failed = conn.request("tools/list", None, LONG, None).await;
        assert!(
            matches!(failed, Err(Failure::TooLarge { limit: MAX })),
            "{failed:?}"
        );
        // Read no further than the bound and what was in flight: far from the gigabyte.
        // The server counts what it wrote, and on a loaded machine it runs ahead of a
        // reader that is waiting for a core (80,216,345 bytes against nine times the limit,
        // 75,497,472).
        let produced = up.produced.load(Ordering::Relaxed);
        assert!(produced < 16 * MAX, "{produced} bytes produced");
    }
}

#[tokio::test]
async fn a_hundred_thousand_small_tools_keep_what_fits_one_message() {
    for framing in [Framing::Json, Framing::Sse] {
        let (conn, _) = serve(framing, Listing::Many(100_000)).await;
        let reply = conn.request("tools/list", None, LONG, None).await.unwrap();
        let kept = tool_names(&reply).len();
        assert!((1001..100_000).contains(&kept), "{kept}");
        assert_eq!(reply.skipped.over_total, 100_000 - kept);
        assert_eq!(reply.skipped.too_large, 0);
        assert!(reply.outcome.unwrap().get().len() <= MAX);
    }
}

#[tokio::test]
async fn answers_other_than_lists_past_the_limit_still_fail() {
    let (conn, _) = serve(Framing::Json, Listing::OneHuge(9_000_000)).await;
    // The fake answers any request with the list; only a list request reads it as one.
    let failed = conn
        .request("resources/read", Some(json!({"uri": "x://y"})), LONG, None)
        .await;
    assert!(
        matches!(failed, Err(Failure::TooLarge { .. })),
        "{failed:?}"
    );
}

#[tokio::test]
async fn one_tool_past_the_limit_leaves_the_others_served_over_stdio() {
    let (conn, _events) = stdio("oversize-list", vec![fixture("oversize_list.mjs")], MAX);
    let reply = conn.request("tools/list", None, LONG, None).await.unwrap();
    assert_eq!(tool_names(&reply), ["first", "last"]);
    assert_eq!(reply.skipped.too_large, 1);
    assert_eq!(reply.skipped.examples, ["huge"]);
}
