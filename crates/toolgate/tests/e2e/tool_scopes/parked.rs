//! A 2026-07-28 call parked on a question (an input-required result) is resumed only
//! with a token that has the tool's scopes: a retry with a lesser token of the same
//! caller is challenged as a first call is, nothing reaches the server, and the parked
//! call waits on for the token that may resume it.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::{RESOURCE, challenge};
use crate::harness::{serve_config, temp_dir};
use crate::identity::issuer_with;

/// An MCP server whose one tool, `approve`, asks its client to sample before it
/// answers, with what the client answered.
#[derive(Default)]
struct Asking {
    /// The question waiting for toolgate's answer.
    waiting: Mutex<Option<oneshot::Sender<Value>>>,
    /// Answers toolgate sent back.
    answers: Mutex<Vec<Value>>,
}

fn result(id: &Value, result: Value) -> Response {
    axum::Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response()
}

async fn on_post(State(server): State<Arc<Asking>>, body: Bytes) -> Response {
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let id = message.get("id").cloned();
    match (message.get("method").and_then(Value::as_str), id) {
        (Some("initialize"), Some(id)) => result(
            &id,
            json!({ "protocolVersion": "2025-06-18", "capabilities": { "tools": {} },
                    "serverInfo": { "name": "asking", "version": "1.0.0" } }),
        ),
        (Some("tools/list"), Some(id)) => result(
            &id,
            json!({ "tools": [{ "name": "approve", "description": "Asks, then approves.",
                                "inputSchema": { "type": "object" } }] }),
        ),
        (Some("tools/call"), Some(id)) => ask(server, id),
        (Some(_), Some(id)) => result(&id, json!({})),
        (None, Some(_)) => {
            server.answers.lock().unwrap().push(message.clone());
            if let Some(tx) = server.waiting.lock().unwrap().take() {
                let _ = tx.send(message);
            }
            StatusCode::ACCEPTED.into_response()
        }
        (_, None) => StatusCode::ACCEPTED.into_response(),
    }
}

/// The call's stream: the question, then, once answered, the result.
fn ask(server: Arc<Asking>, id: Value) -> Response {
    let (events, rx) = mpsc::channel::<Value>(4);
    let (tx, answered) = oneshot::channel();
    *server.waiting.lock().unwrap() = Some(tx);
    tokio::spawn(async move {
        let question = json!({ "jsonrpc": "2.0", "id": "q-1", "method": "sampling/createMessage",
            "params": { "messages": [{ "role": "user", "content": { "type": "text", "text": "approve?" } }],
                        "maxTokens": 8 } });
        let _ = events.send(question).await;
        let Ok(answer) = answered.await else { return };
        let said = answer
            .pointer("/result/content/text")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let _ = events
            .send(json!({ "jsonrpc": "2.0", "id": id, "result": {
                "content": [{ "type": "text", "text": format!("client answered: {said}") }],
                "isError": false } }))
            .await;
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let event = rx.recv().await?;
        Some((
            Ok::<_, std::convert::Infallible>(format!("data: {event}\n\n")),
            rx,
        ))
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn start_asking() -> (String, Arc<Asking>) {
    let server = Arc::new(Asking::default());
    let app = Router::new()
        .route(
            "/mcp",
            post(on_post)
                .get(|| async { StatusCode::METHOD_NOT_ALLOWED })
                .delete(|| async { StatusCode::OK }),
        )
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/mcp"), server)
}

/// What one POST got: its status, its `WWW-Authenticate` and its JSON-RPC answer.
struct Answered {
    status: u16,
    challenge: String,
    answer: Option<Value>,
}

/// A 2026-07-28 `tools/call` of `approve` with `token`, and `extra` params (a retry's
/// `requestState` and `inputResponses`).
async fn call(url: &str, token: &str, extra: Value) -> Answered {
    let mut params = json!({ "name": "approve", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "sampling": {} } } });
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        p.extend(extra);
    }
    let r = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "approve")
        .bearer_auth(token)
        .json(&json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params }))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let challenge = challenge(&r);
    let streamed = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let text = r.text().await.unwrap();
    let answer = if streamed {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| m.get("id").is_some())
    } else {
        serde_json::from_str(&text).ok()
    };
    Answered {
        status,
        challenge,
        answer,
    }
}

#[tokio::test]
async fn a_parked_call_retried_with_a_token_lacking_the_tools_scope_is_challenged_and_waits_for_one_that_has_it()
 {
    let (url, asking) = start_asking().await;
    let issuer = issuer_with(Router::new()).await;
    let dir = temp_dir("tool-scopes-parked");
    let yaml = format!(
        r#"
gateway:
  state: {state}
  auth:
    resource: {RESOURCE}
    issuers:
      - issuer: {issuer}
    scopes: [tools:call]
mcp_servers:
  approvals:
    url: "{url}"
    owner: approvals@example.com
    lock: {lock}
    prefix: ""
    scopes: [approvals:write]
"#,
        state = dir.join("state.db").display(),
        issuer = issuer.url,
        lock = dir.join("toolgate.lock.json").display(),
    );
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tg = serve_config(config).await;
    let full = issuer.token_with_claims("alice", RESOURCE, "tools:call approvals:write", json!({}));
    let lesser = issuer.token_with_claims("alice", RESOURCE, "tools:call", json!({}));
    // The server's tools are routed once its first check has run.
    let mut asked = None;
    for _ in 0..200 {
        let answered = call(&tg.url, &full, json!({})).await;
        if let Some(a) = answered
            .answer
            .filter(|a| a["result"]["resultType"] == "input_required")
        {
            asked = Some(a);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let asked = asked.expect("the call was parked on its question");
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let (key, _) = asked["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    let sampled =
        json!({"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "m"});
    let retry = json!({ "requestState": state, "inputResponses": { key.clone(): sampled } });

    // The same caller, with a token that lacks the server's scope.
    let refused = call(&tg.url, &lesser, retry.clone()).await;
    assert_eq!(refused.status, 403);
    assert!(
        refused
            .challenge
            .contains("scope=\"tools:call approvals:write\""),
        "{}",
        refused.challenge
    );
    assert!(
        asking.answers.lock().unwrap().is_empty(),
        "the lesser token's answer never reached the server"
    );

    // The parked call is still there for a token that may resume it.
    let done = call(&tg.url, &full, retry).await;
    assert_eq!(done.status, 200);
    let done = done.answer.expect("an answer");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "client answered: yes");
    assert_eq!(asking.answers.lock().unwrap().len(), 1);
}
