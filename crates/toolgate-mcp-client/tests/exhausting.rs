//! Upstream MCP servers that try to exhaust the gateway over time rather than at
//! once: a stream that never ends and never says anything is still read at a bounded
//! cost.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use common::*;
use serde_json::{Value, json};
use toolgate_mcp_client::{
    Connection, Event, Limits, STREAM_BYTES_PER_WINDOW, ServerSpec, Transport,
};

/// A server whose standalone stream is an endless run of keep-alive comments, written
/// as fast as the gateway reads them; it counts what it wrote and sees the stream
/// dropped.
#[derive(Default)]
struct Firehose {
    written: AtomicUsize,
    dropped: AtomicBool,
}

/// Sets `dropped` when the stream's body is dropped: the gateway closed it.
struct OnDrop(Arc<Firehose>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

async fn firehose_post(body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some("initialize"), Some(id)) => initialized(id, "firehose", json!({})),
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

async fn firehose_get(State(up): State<Arc<Firehose>>) -> Response {
    let chunk = Bytes::from(":".repeat(64 << 10) + "\n\n");
    let guard = OnDrop(up.clone());
    let stream = futures_util::stream::unfold((guard, chunk), |(guard, chunk)| async move {
        guard.0.written.fetch_add(chunk.len(), Ordering::SeqCst);
        Some((
            Ok::<_, std::convert::Infallible>(chunk.clone()),
            (guard, chunk),
        ))
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

#[tokio::test]
async fn a_standalone_stream_that_never_stops_writing_is_closed_at_its_byte_budget_and_reported() {
    let up = Arc::new(Firehose::default());
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(firehose_post).get(firehose_get))
        .with_state(up.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let spec = ServerSpec {
        name: "firehose".into(),
        transport: Transport::Http {
            url: format!("http://{addr}/mcp").parse().unwrap(),
            headers: vec![],
        },
        max_message_bytes: 1 << 16,
        limits: Limits::default(),
    };
    let (conn, mut events) = Connection::start(spec, client());
    conn.initialize(LONG).await.unwrap();

    // The gateway reads the budget, then closes the stream and tells its owner.
    let reported = tokio::time::timeout(LONG, async {
        loop {
            match events.recv().await {
                Some(Event::Misbehaving { detail, .. }) => return detail,
                Some(_) => {}
                None => panic!("the connection's events ended"),
            }
        }
    })
    .await
    .expect("the stream that never stops is reported");
    assert!(reported.contains("MiB"), "{reported}");
    tokio::time::timeout(LONG, async {
        while !up.dropped.load(Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the stream is closed");
    // What sits in the sockets' buffers and the server's last chunks besides.
    let slack = 8 << 20;
    let written = up.written.load(Ordering::SeqCst);
    assert!(
        written <= STREAM_BYTES_PER_WINDOW + slack,
        "{written} bytes were written before the stream was closed"
    );
    drop(conn);
}

/// A server that answers every request with an event stream of keep-alive comments
/// that never brings the answer, written as fast as the gateway reads them.
async fn stalling_post(State(up): State<Arc<Firehose>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some("initialize"), Some(id)) => initialized(id, "stalling", json!({})),
        (Some(_), Some(_)) => {
            let chunk = Bytes::from(": still working\n".repeat(4 << 10));
            let guard = OnDrop(up.clone());
            let stream =
                futures_util::stream::unfold((guard, chunk), |(guard, chunk)| async move {
                    guard.0.written.fetch_add(chunk.len(), Ordering::SeqCst);
                    Some((
                        Ok::<_, std::convert::Infallible>(chunk.clone()),
                        (guard, chunk),
                    ))
                });
            (
                [(header::CONTENT_TYPE, "text/event-stream")],
                Body::from_stream(stream),
            )
                .into_response()
        }
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

#[tokio::test]
async fn a_calls_stream_of_keep_alives_without_an_answer_fails_at_its_byte_budget_not_its_deadline()
{
    let up = Arc::new(Firehose::default());
    let app = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(stalling_post)
                .get(|| async { StatusCode::METHOD_NOT_ALLOWED.into_response() }),
        )
        .with_state(up.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let max_message_bytes = 1 << 16;
    let spec = ServerSpec {
        name: "stalling".into(),
        transport: Transport::Http {
            url: format!("http://{addr}/mcp").parse().unwrap(),
            headers: vec![],
        },
        max_message_bytes,
        limits: Limits::default(),
    };
    let (conn, _events) = Connection::start(spec, client());
    conn.initialize(LONG).await.unwrap();
    // A deadline far beyond what the test waits for: only the stream's bytes can end
    // the call first.
    let got = conn
        .request("tools/call", Some(json!({"name": "x"})), LONG * 4, None)
        .await;
    match got {
        Err(toolgate_mcp_client::Failure::Protocol { detail }) => {
            assert!(detail.contains("without the answer"), "{detail}");
        }
        other => panic!("the call should fail as a protocol break: {other:?}"),
    }
    // Sixteen messages' worth besides the answer, and what sits in the buffers.
    let slack = 8 << 20;
    let written = up.written.load(Ordering::SeqCst);
    assert!(
        written <= 17 * max_message_bytes + slack,
        "{written} bytes were written before the call failed"
    );
}
