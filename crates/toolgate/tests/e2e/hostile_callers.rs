//! Callers that play with the JSON-RPC framing itself: a member sent twice, so that
//! what toolgate checks and what it sends could differ; a body in another encoding;
//! a cancellation naming a request of another session. Alice may call `lookup` and
//! `slow`, Bob `lookup`, `slow` and `refund`; each signs in with an API key.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::response::IntoResponse;
use axum::routing::any;
use serde_json::{Value, json};

use crate::harness::*;

const ALICE_KEY: &str = "alice-key-hostile-0123456789";
const BOB_KEY: &str = "bob-key-hostile-0123456789";

/// Every request the upstream got, as its path and query.
type Seen = Arc<Mutex<Vec<String>>>;

/// An API answering `{"ok": true}` to everything: after 1.5 s on `/slow`.
async fn upstream() -> (std::net::SocketAddr, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/{*path}",
            any(|State(seen): State<Seen>, req: Request| async move {
                let uri = req.uri().to_string();
                seen.lock().unwrap().push(uri.clone());
                if uri == "/slow" {
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                }
                axum::Json(json!({"ok": true})).into_response()
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

async fn gateway(name: &str) -> (Toolgate, Seen) {
    let (addr, seen) = upstream().await;
    let dir = temp_dir(name);
    let tool = |path: &str| {
        format!(
            "    dependency: api\n    owner: sec@example.com\n    request: {{ path: {path} }}\n    annotations: {{ readOnlyHint: true }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        )
    };
    let yaml = format!(
        r#"
gateway:
  state: {state}
dependencies:
  api:
    base_url: "http://{addr}"
    retry: {{ max_attempts: 1 }}
tools:
  lookup:
    dependency: api
    owner: sec@example.com
    request: {{ path: /lookup, query: {{ q: "{{q}}" }} }}
    annotations: {{ readOnlyHint: true }}
    input_schema: {{ type: object, required: [q], properties: {{ q: {{ type: string, maxLength: 8 }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  slow:
{slow}  refund:
{refund}agents:
  alice:
    api_key_sha256: {alice}
    tools: [lookup, slow]
  bob:
    api_key_sha256: {bob}
    tools: [lookup, slow, refund]
"#,
        state = dir.join("state.db").display(),
        slow = tool("/slow"),
        refund = tool("/refund"),
        alice = toolgate_auth::sha256_hex(ALICE_KEY.as_bytes()),
        bob = toolgate_auth::sha256_hex(BOB_KEY.as_bytes()),
    );
    (start_toolgate(&yaml).await, seen)
}

/// One session of the agent with `key`.
struct Session {
    http: reqwest::Client,
    url: String,
    key: &'static str,
    id: String,
}

impl Session {
    async fn open(tg: &Toolgate, key: &'static str) -> Session {
        let http = reqwest::Client::new();
        let r = http
            .post(&tg.url)
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(key)
            .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let session = Session {
            http,
            url: tg.url.clone(),
            key,
            id,
        };
        session
            .send(
                "application/json",
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
            )
            .await;
        session
    }

    async fn send(&self, content_type: &str, body: Vec<u8>) -> reqwest::Response {
        self.http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", content_type)
            .header("mcp-session-id", &self.id)
            .bearer_auth(self.key)
            .body(body)
            .send()
            .await
            .unwrap()
    }

    /// A message written as JSON text (members as written, repeats and escapes kept),
    /// and the answer's status and body.
    async fn raw(&self, body: &str) -> (u16, Value) {
        let r = self
            .send("application/json", body.as_bytes().to_vec())
            .await;
        let status = r.status().as_u16();
        (status, r.json().await.unwrap())
    }
}

/// What the upstream got so far.
fn seen_now(seen: &Seen) -> Vec<String> {
    seen.lock().unwrap().clone()
}

/// Waits until the upstream has got `count` requests for `uri` (the call is then
/// running in toolgate, registered for cancellation before it was sent).
async fn until_sent(seen: &Seen, uri: &str, count: usize) {
    for _ in 0..500 {
        if seen_now(seen).iter().filter(|u| *u == uri).count() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{uri} was not sent {count} times: {:?}", seen_now(seen));
}

fn call_body(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{params}}}"#)
}

/// Guards the envelope's reading (`envelope.rs`, `ParamsVisitor::visit_map`: one
/// `name`, the last one sent, for the allow-list, the route and the call alike; and
/// `jsonrpc.rs`'s `Envelope`, whose derived reader refuses a member of the message
/// itself sent twice): a tool Alice may not call is not reached by naming it first or
/// last, spelt plainly or with escapes.
#[tokio::test]
async fn a_tool_named_twice_is_checked_and_called_as_one_and_the_same() {
    let (tg, seen) = gateway("hostile-name-twice").await;
    let alice = Session::open(&tg, ALICE_KEY).await;
    // The allowed tool last: it is the one checked and the one called.
    for params in [
        r#"{"name":"refund","name":"lookup","arguments":{"q":"ok"}}"#,
        r#"{"n\u0061me":"refund","name":"lookup","arguments":{"q":"ok"}}"#,
    ] {
        let (status, v) = alice.raw(&call_body(params)).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["result"]["isError"], false, "{params}: {v}");
    }
    // The forbidden tool last: refused as unknown to her, whatever came first.
    for params in [
        r#"{"name":"lookup","name":"refund","arguments":{"q":"ok"}}"#,
        r#"{"name":"lookup","n\u0061me":"refund","arguments":{"q":"ok"}}"#,
        r#"{"name":"lookup","name":"r\u0065fund","arguments":{"q":"ok"}}"#,
    ] {
        let (_, v) = alice.raw(&call_body(params)).await;
        let said = v.to_string();
        assert!(said.contains("unknown tool `refund`"), "{params}: {said}");
    }
    // A member of the message itself sent twice is no message at all.
    for body in [
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup","arguments":{"q":"ok"}},"params":{"name":"refund"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"refund"},"params":{"name":"lookup","arguments":{"q":"ok"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","method":"tools/call","params":{"name":"refund"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","m\u0065thod":"tools/list","params":{"name":"refund"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"id":6,"method":"tools/call","params":{"name":"refund"}}"#,
    ] {
        let (status, v) = alice.raw(body).await;
        assert_eq!(status, 400, "{body}: {v}");
        assert_eq!(v["error"]["code"], -32600, "{body}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("duplicate field"),
            "{v}"
        );
    }
    assert_eq!(
        seen_now(&seen),
        ["/lookup?q=ok", "/lookup?q=ok"],
        "the allowed tool was called twice, the other never"
    );
}

/// Guards the envelope's reading of `arguments` (`envelope.rs`, `visit_map`: the last
/// `arguments` replaces the first, and a member inside them given twice is one member,
/// the last, in the one `Value` the schema check, the request template and the upstream
/// all read): the arguments sent upstream are the ones checked against the schema.
#[tokio::test]
async fn arguments_sent_twice_are_checked_and_sent_as_one_and_the_same() {
    let (tg, seen) = gateway("hostile-arguments-twice").await;
    let alice = Session::open(&tg, ALICE_KEY).await;
    let too_long = "far-too-long-for-the-schema";
    let refused = [
        format!(r#"{{"name":"lookup","arguments":{{"q":"ok"}},"arguments":{{"q":"{too_long}"}}}}"#),
        format!(r#"{{"name":"lookup","arguments":{{"q":"ok","q":"{too_long}"}}}}"#),
        format!(r#"{{"name":"lookup","arguments":{{"q":"ok","\u0071":"{too_long}"}}}}"#),
        r#"{"name":"lookup","arguments":{"q":"ok"},"arguments":{"q":7}}"#.to_owned(),
    ];
    for params in &refused {
        let (_, v) = alice.raw(&call_body(params)).await;
        assert_eq!(v["result"]["isError"], true, "{params}: {v}");
        let said = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            said.starts_with("lookup was not called: the arguments are invalid"),
            "{params}: {v}"
        );
    }
    assert!(
        seen_now(&seen).is_empty(),
        "nothing refused was sent: {:?}",
        seen_now(&seen)
    );
    let served = [
        format!(r#"{{"name":"lookup","arguments":{{"q":"{too_long}"}},"arguments":{{"q":"ok"}}}}"#),
        format!(r#"{{"name":"lookup","arguments":{{"q":"{too_long}","q":"ok"}}}}"#),
    ];
    for params in &served {
        let (_, v) = alice.raw(&call_body(params)).await;
        assert_eq!(v["result"]["isError"], false, "{params}: {v}");
    }
    assert_eq!(seen_now(&seen), ["/lookup?q=ok", "/lookup?q=ok"]);
}

/// Guards `jsonrpc::parse`'s one reading of the body as UTF-8 JSON, whatever charset
/// the `Content-Type` names (RFC 8259 §8.1: JSON between systems is UTF-8, and the
/// media type has no charset parameter): a body in UTF-16 or after a byte order mark is
/// a JSON-RPC parse error, and nothing of it is sent anywhere.
#[tokio::test]
async fn a_body_in_utf16_or_after_a_byte_order_mark_is_a_parse_error_and_sends_nothing() {
    let (tg, seen) = gateway("hostile-charset").await;
    let alice = Session::open(&tg, ALICE_KEY).await;
    let text = call_body(r#"{"name":"lookup","arguments":{"q":"ok"}}"#);
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let bodies = [
        ("application/json; charset=utf-16", utf16.clone()),
        ("application/json; charset=UTF-16LE", utf16[2..].to_vec()),
        (
            "application/json",
            [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat(),
        ),
        (
            "application/json; charset=utf-8",
            [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat(),
        ),
    ];
    for (content_type, body) in bodies {
        let r = alice.send(content_type, body).await;
        assert_eq!(r.status(), 400, "{content_type}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["id"], Value::Null, "{v}");
        assert_eq!(v["error"]["code"], -32700, "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Parse error: the body is not valid JSON"),
            "{v}"
        );
    }
    assert!(seen_now(&seen).is_empty(), "{:?}", seen_now(&seen));
    // The same call in UTF-8, with the charset named, is served.
    let r = alice
        .send("application/json; charset=utf-8", text.into_bytes())
        .await;
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["result"]["isError"], false, "{v}");
}

/// Guards `Server::cancellable` and `Server::cancel` in `dispatch.rs` (running calls
/// keyed by the session they came on, `Outbound::channel`, and by the id's value,
/// `running_key`): a `notifications/cancelled` naming a request id stops only the
/// request of that id on the session it is sent on — not another session's of the same
/// agent, not another agent's — and stops the caller's own however it spells the id.
#[tokio::test]
async fn a_cancellation_stops_a_request_of_its_own_session_only() {
    let (tg, seen) = gateway("hostile-cancel").await;
    let first = Arc::new(Session::open(&tg, ALICE_KEY).await);
    let second = Session::open(&tg, ALICE_KEY).await;
    let bob = Session::open(&tg, BOB_KEY).await;
    let slow = |session: Arc<Session>, id: &'static str| {
        tokio::spawn(async move {
            session
                .raw(&format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{}}}}}}"#
                ))
                .await
                .1
        })
    };
    let cancel = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        )
            .into_bytes()
    };

    // Alice's second session and Bob name the request of her first one.
    let running = slow(first.clone(), "7");
    until_sent(&seen, "/slow", 1).await;
    for other in [&second, &bob] {
        let r = other.send("application/json", cancel("7")).await;
        assert_eq!(r.status(), 202);
    }
    let v = running.await.unwrap();
    assert_eq!(v["id"], 7);
    assert_eq!(
        v["result"]["isError"], false,
        "the call ran to its end: {v}"
    );

    // Her own cancellation stops it, with the id spelt as she sent it or otherwise.
    for (request_id, cancelled_id, n) in [
        ("7", "7", 2),
        (r#""c\u0061ll-8""#, r#""call-8""#, 3),
        (r#""call-9""#, r#""c\u0061ll-9""#, 4),
        // As Python's `json.dumps` writes a non-ASCII id, in both messages alike.
        (r#""caf\u00e9-10""#, r#""caf\u00e9-10""#, 5),
    ] {
        let running = slow(first.clone(), request_id);
        until_sent(&seen, "/slow", n).await;
        let r = first.send("application/json", cancel(cancelled_id)).await;
        assert_eq!(r.status(), 202);
        let v = running.await.unwrap();
        assert_eq!(
            v["error"]["message"], "Request cancelled",
            "{request_id}: {v}"
        );
        assert_eq!(
            v["id"],
            serde_json::from_str::<Value>(request_id).unwrap(),
            "answered under its id"
        );
    }
}
