//! A fronted MCP server called with the caller's authority (`mcp_servers.<s>.token_exchange`),
//! end to end: toolgate's own session (its own `headers`) lists the server's tools; each
//! caller's calls and resource reads go on a session of the caller's own, opened with
//! the token exchanged for the caller's. The server here binds each session to the
//! `Authorization` it was opened with, as the MCP spec asks servers to, and echoes the
//! token it sees, which toolgate must not hand on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

use super::harness::{metric, serve_config, temp_dir};
use super::identity::Client;
use super::token_exchange::{
    RESOURCE, authorization_server, gateway_section, with_exchange_secret,
};

/// What the server saw: each request's method, `Authorization` and session id.
#[derive(Clone, Default)]
struct Server {
    seen: Arc<Mutex<Vec<(String, String, String)>>>,
    /// Session id → the `Authorization` it was opened with.
    sessions: Arc<Mutex<HashMap<String, String>>>,
}

impl Server {
    fn seen(&self, method: &str) -> Vec<(String, String)> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, _, _)| m == method)
            .map(|(_, a, s)| (a.clone(), s.clone()))
            .collect()
    }
}

async fn answer(State(server): State<Server>, headers: HeaderMap, body: String) -> Response {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let authorization = header("authorization");
    let session = header("mcp-session-id");
    let message: Value = serde_json::from_str(&body).unwrap();
    let method = message["method"].as_str().unwrap_or_default().to_string();
    server
        .seen
        .lock()
        .unwrap()
        .push((method.clone(), authorization.clone(), session.clone()));
    if method == "initialize" {
        let id = {
            let mut sessions = server.sessions.lock().unwrap();
            let id = format!("s-{}", sessions.len() + 1);
            sessions.insert(id.clone(), authorization);
            id
        };
        let result = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "resources": {}},
            "serverInfo": {"name": "kb", "version": "1"}}});
        return (
            [
                ("mcp-session-id", id.as_str()),
                ("content-type", "application/json"),
            ],
            result.to_string(),
        )
            .into_response();
    }
    // A session is its opener's: another user's token on it is refused.
    if server.sessions.lock().unwrap().get(&session) != Some(&authorization) {
        return StatusCode::FORBIDDEN.into_response();
    }
    let Some(id) = message.get("id") else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match method.as_str() {
        "tools/list" => {
            json!({"tools": [{"name": "whoami", "description": "Who the server thinks is calling.",
                                           "inputSchema": {"type": "object"}}]})
        }
        "tools/call" => {
            json!({"content": [{"type": "text", "text": format!("called with {authorization}")}],
                               "isError": false})
        }
        "resources/read" => {
            json!({"contents": [{"uri": message["params"]["uri"], "mimeType": "text/plain",
                                                  "text": format!("read with {authorization}")}]})
        }
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
    ([("content-type", "application/json")], reply.to_string()).into_response()
}

async fn mcp_server() -> (String, Server) {
    let server = Server::default();
    let app = Router::new()
        .route("/mcp", post(answer).delete(|| async { StatusCode::OK }))
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/mcp"), server)
}

/// An HTTP API that refuses every call with the token it got in its error body.
async fn echoing_api() -> String {
    let app = Router::new().route(
        "/{*path}",
        axum::routing::any(|headers: HeaderMap| async move {
            let got = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            (
                StatusCode::FORBIDDEN,
                [("content-type", "application/json")],
                json!({"error": format!("token {got} lacks scope notes:write")}).to_string(),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

const API_KEY: &str = "tg_test_key_of_the_fronted_batch_job";

#[tokio::test]
async fn each_caller_gets_a_session_of_its_own_with_its_exchanged_token() {
    let (url, server) = mcp_server().await;
    let (te, is) = authorization_server().await;
    let dir = temp_dir("token-exchange-fronted");
    let yaml = format!(
        r#"
{gateway}mcp_servers:
  kb:
    url: "{url}"
    owner: kb-team@example.com
    lock: {lock}
    headers: {{ Authorization: Bearer toolgate-own }}
    token_exchange:
      issuer: {issuer}
      audience: kb
      client_id: toolgate
      client_secret_env: TG_EXCHANGE_SECRET
dependencies:
  notes_api:
    base_url: "{echo}"
    token_exchange:
      issuer: {issuer}
      audience: notes
      client_id: toolgate
      client_secret_env: TG_EXCHANGE_SECRET
tools:
  save_note:
    dependency: notes_api
    owner: notes-team@example.com
    request: {{ method: POST, path: /notes }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
agents:
  batch:
    api_key_sha256: {key}
"#,
        gateway = gateway_section(&dir, &is.url),
        lock = dir.join("toolgate.lock.json").display(),
        issuer = is.url,
        key = toolgate_auth::sha256_hex(API_KEY.as_bytes()),
        echo = echoing_api().await,
    );
    let config = with_exchange_secret(&yaml);
    let tg = serve_config(config).await;

    let alice = is.token("alice", RESOURCE);
    let mut alice_client = Client::start(&tg.url, &alice).await;
    // The server's tools are listed on toolgate's own session, with its own header.
    let mut listed = Value::Null;
    for _ in 0..100 {
        listed = alice_client.rpc("tools/list", json!({})).await;
        if listed.to_string().contains("kb__whoami") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(listed.to_string().contains("kb__whoami"), "{listed}");
    let lists = server.seen("tools/list");
    assert!(!lists.is_empty());
    assert!(
        lists.iter().all(|(a, _)| a == "Bearer toolgate-own"),
        "{lists:?}"
    );

    // Alice's two calls: one exchange, one session opened with her exchanged token.
    let call = json!({"name": "kb__whoami", "arguments": {}});
    for _ in 0..2 {
        let reply = alice_client.rpc("tools/call", call.clone()).await;
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        // The server echoed the token it got; the model never sees it.
        assert_eq!(text, "called with Bearer [redacted]", "{reply}");
    }
    let calls = server.seen("tools/call");
    assert_eq!(calls.len(), 2, "{calls:?}");
    let (alice_auth, alice_session) = calls[0].clone();
    assert!(alice_auth.starts_with("Bearer exchanged-"), "{alice_auth}");
    assert_eq!(calls[1], (alice_auth.clone(), alice_session.clone()));
    let opened_by_alice = server
        .seen("initialize")
        .iter()
        .filter(|(a, _)| *a == alice_auth)
        .count();
    assert_eq!(opened_by_alice, 1, "one session for her two calls");
    assert_eq!(te.requests.lock().unwrap().len(), 1, "one exchange");

    // Her resource read goes on her session too, and the echo is scrubbed there as well.
    let read = alice_client
        .rpc("resources/read", json!({"uri": "kb://notes/1"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "read with Bearer [redacted]",
        "{read}"
    );
    assert_eq!(
        server.seen("resources/read"),
        [(alice_auth.clone(), alice_session.clone())]
    );

    // Her subscription would live on her own session, whose updates toolgate does not
    // read: refused with a word, and the server never asked.
    let subscribe = alice_client
        .rpc("resources/subscribe", json!({"uri": "kb://notes/1"}))
        .await;
    assert_eq!(subscribe["error"]["code"], -32601, "{subscribe}");
    let message = subscribe["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("kb is called with each caller's authority")
            && message.contains("resources/read"),
        "{subscribe}"
    );
    assert!(server.seen("resources/subscribe").is_empty());

    // Bob gets a token of his own and a session of his own.
    let bob = is.token("bob", RESOURCE);
    let mut bob_client = Client::start(&tg.url, &bob).await;
    let reply = bob_client.rpc("tools/call", call.clone()).await;
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let calls = server.seen("tools/call");
    let (bob_auth, bob_session) = calls.last().unwrap().clone();
    assert!(bob_auth.starts_with("Bearer exchanged-"), "{bob_auth}");
    assert_ne!(bob_auth, alice_auth);
    assert_ne!(bob_session, alice_session);
    assert_eq!(
        tg.gateway
            .fronting()
            .server("kb")
            .unwrap()
            .caller_sessions(),
        2
    );

    // Neither client's own token, nor toolgate's, was ever used for a call.
    for (method, authorization, _) in server.seen.lock().unwrap().iter() {
        assert!(
            !authorization.contains(&alice) && !authorization.contains(&bob),
            "a client's token reached the server ({method})"
        );
        if method == "tools/call" || method == "resources/read" {
            assert_ne!(authorization, "Bearer toolgate-own", "{method}");
        }
    }

    // A caller with an API key has no user's token: refused, nothing sent.
    let before = server.seen.lock().unwrap().len();
    let mut batch = Client::start(&tg.url, API_KEY).await;
    let reply = batch.rpc("tools/call", call.clone()).await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "kb__whoami was not called: kb is called with the signed-in user's authority"
        ) && text.contains("Do not retry"),
        "{text}"
    );
    let read = batch
        .rpc("resources/read", json!({"uri": "kb://notes/1"}))
        .await;
    assert!(
        read["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("signed-in user's authority")),
        "{read}"
    );
    assert_eq!(
        server.seen.lock().unwrap().len(),
        before,
        "nothing reached the server"
    );

    // An HTTP API that echoes the exchanged token in its error body: the model reads
    // the error, not the token.
    let reply = alice_client
        .rpc("tools/call", json!({"name": "save_note", "arguments": {}}))
        .await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("token Bearer [redacted] lacks scope"),
        "{text}"
    );
    assert!(!text.contains("exchanged-"), "{text}");

    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_token_exchanges_total{dependency=\"kb\",result=\"issued\"}"
        ),
        2.0
    );
    assert!(!metrics.contains(&alice) && !metrics.contains("exchanged-"));
}
