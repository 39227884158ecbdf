//! Finding Node.js and the reference server for the tests that run real
//! MCP servers. A test that cannot find them fails and says how to fix it.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolgate_mcp_client::{
    Connection, Event, Failure, Relay, Relayed, Reply, RpcError, ServerSpec, Transport,
};

pub const LONG: Duration = Duration::from_secs(30);

/// A hand-written HTTP server's answer to `initialize` (id `id`): session `s-1`,
/// protocol 2025-11-25, the `capabilities` given, named `name`.
pub fn initialized(id: &Value, name: &str, capabilities: Value) -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [
            (axum::http::header::CONTENT_TYPE, "application/json"),
            (
                axum::http::header::HeaderName::from_static("mcp-session-id"),
                "s-1",
            ),
        ],
        json!({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "serverInfo": {"name": name, "version": "1"}
        }})
        .to_string(),
    )
        .into_response()
}

/// `TOOLGATE_TEST_NODE`, else `node` on PATH.
pub fn node() -> String {
    let node = std::env::var("TOOLGATE_TEST_NODE").unwrap_or_else(|_| "node".to_owned());
    let runs = std::process::Command::new(&node)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        runs,
        "these tests need Node.js: put `node` on PATH or set TOOLGATE_TEST_NODE to a node binary (tried {node:?})"
    );
    node
}

pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The reference server's entry point, installed from the pinned
/// `tests/upstreams/package-lock.json`.
pub fn everything() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/upstreams/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        path.exists(),
        "@modelcontextprotocol/server-everything is not installed: run `npm ci --prefix tests/upstreams` at the repository root (expected {})",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

pub fn client() -> reqwest::Client {
    // reqwest is built without a TLS provider of its own; toolgate installs ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub fn stdio(name: &str, args: Vec<String>, max: usize) -> (Connection, mpsc::Receiver<Event>) {
    let spec = ServerSpec {
        name: name.into(),
        transport: Transport::Stdio {
            program: node(),
            args,
            env: vec![],
            inherit_env: vec![],
            cwd: None,
        },
        max_message_bytes: max,
        limits: Default::default(),
    };
    Connection::start(spec, client())
}

pub async fn next_event(events: &mut mpsc::Receiver<Event>) -> Event {
    tokio::time::timeout(LONG, events.recv())
        .await
        .expect("no event in time")
        .expect("event channel closed")
}

/// Waits (bounded) for an event matching `want`, skipping others (the
/// reference server also sends logging and list-changed notifications).
pub async fn wait_event(
    events: &mut mpsc::Receiver<Event>,
    want: impl Fn(&Event) -> bool,
) -> Event {
    loop {
        let e = next_event(events).await;
        if want(&e) {
            return e;
        }
    }
}

/// What a request's relay received.
#[derive(Debug, Default)]
pub struct Heard {
    pub notifications: Vec<(String, Option<Value>)>,
    pub requests: Vec<String>,
}

/// Answers relayed server requests: sampling with a fixed message, roots
/// with none; anything else is refused.
pub fn answer(method: &str) -> Result<Value, RpcError> {
    match method {
        "sampling/createMessage" => Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "SAMPLED-42"},
            "model": "test-model",
            "stopReason": "endTurn"
        })),
        "roots/list" => Ok(json!({"roots": []})),
        other => Err(RpcError {
            code: -32601,
            message: format!("the test does not answer {other}"),
            data: None,
        }),
    }
}

/// One request with a relay, answering what it relays; everything the relay
/// got had been sent to it by the time the reply came back.
pub async fn drive(
    conn: &Connection,
    method: &str,
    params: Value,
) -> (Result<Reply, Failure>, Heard) {
    let (tx, mut rx) = mpsc::channel(64);
    let request = conn.request(method, Some(params), LONG, Some(Relay::new(tx)));
    tokio::pin!(request);
    let mut heard = Heard::default();
    let hear = |r: Relayed, heard: &mut Heard| match r {
        Relayed::Notification { method, params } => heard.notifications.push((method, params)),
        Relayed::Request {
            method, answer: a, ..
        } => {
            let _ = a.send(answer(&method));
            heard.requests.push(method);
        }
    };
    let reply = loop {
        tokio::select! {
            biased;
            Some(r) = rx.recv() => hear(r, &mut heard),
            reply = &mut request => break reply,
        }
    };
    while let Ok(r) = rx.try_recv() {
        hear(r, &mut heard);
    }
    (reply, heard)
}

pub fn text(reply: &Reply) -> String {
    let result = reply.clone().into_value().expect("a result, not an error");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
