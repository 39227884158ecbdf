//! Clients that present what is not theirs to `/mcp`: another agent's session id, or a
//! header sent twice so that the value checked and the value acted on can differ.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use serde_json::{Value, json};

use crate::harness::*;

const ALICE_KEY: &str = "alice-key-0123456789abcdef";
const BOB_KEY: &str = "bob-key-0123456789abcdef";

/// A gateway with two agents, each with an API key.
async fn two_agents(name: &str) -> (Toolgate, Upstream) {
    let upstream = start_upstream().await;
    let dir = temp_dir(name);
    let yaml = format!(
        "{}agents:\n  alice:\n    api_key_sha256: {}\n  bob:\n    api_key_sha256: {}\n",
        core_config(upstream.addr, &dir.join("state.db")),
        toolgate_auth::sha256_hex(ALICE_KEY.as_bytes()),
        toolgate_auth::sha256_hex(BOB_KEY.as_bytes()),
    );
    (start_toolgate(&yaml).await, upstream)
}

/// One request to `/mcp` as the agent with `key`: its status and headers.
async fn as_agent(
    method: reqwest::Method,
    url: &str,
    key: &str,
    session: Option<&str>,
    body: Option<Value>,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .bearer_auth(key)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18");
    if let Some(sid) = session {
        request = request.header("mcp-session-id", sid);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
}

#[tokio::test]
async fn a_session_is_served_to_the_agent_that_opened_it_only() {
    let (tg, _upstream) = two_agents("session-owner").await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let opened = as_agent(reqwest::Method::POST, &tg.url, ALICE_KEY, None, Some(init)).await;
    assert_eq!(opened.status(), 200);
    let sid = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();

    // Bob presenting Alice's id with his own credential: as if it did not exist, for
    // every method, and it cannot be ended by him.
    let post = as_agent(
        reqwest::Method::POST,
        &tg.url,
        BOB_KEY,
        Some(&sid),
        Some(tools_list()),
    )
    .await;
    assert_eq!(post.status(), 404);
    let stream = as_agent(reqwest::Method::GET, &tg.url, BOB_KEY, Some(&sid), None).await;
    assert_eq!(stream.status(), 404);
    let end = as_agent(reqwest::Method::DELETE, &tg.url, BOB_KEY, Some(&sid), None).await;
    assert_eq!(end.status(), 404);

    // Alice's session is untouched.
    let mine = as_agent(
        reqwest::Method::POST,
        &tg.url,
        ALICE_KEY,
        Some(&sid),
        Some(tools_list()),
    )
    .await;
    assert_eq!(mine.status(), 200);
    let listed: Value = mine.json().await.unwrap();
    assert!(listed.pointer("/result/tools").is_some(), "{listed}");
    let end = as_agent(
        reqwest::Method::DELETE,
        &tg.url,
        ALICE_KEY,
        Some(&sid),
        None,
    )
    .await;
    assert_eq!(end.status(), 200);
}

/// The status line of a raw request with `headers` to `/mcp`.
fn raw_status(base: &str, headers: &str) -> String {
    let addr = base.trim_start_matches("http://");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\n{headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_host_or_origin_sent_twice_is_refused_whichever_comes_first() {
    let upstream = start_upstream().await;
    let dir = temp_dir("repeated-headers");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let base = tg.base.clone();
    tokio::task::spawn_blocking(move || {
        let host = base.trim_start_matches("http://");
        assert!(raw_status(&base, &format!("Host: {host}\r\n")).contains(" 200 "));
        for headers in [
            format!("Host: {host}\r\nHost: evil.example\r\n"),
            format!("Host: evil.example\r\nHost: {host}\r\n"),
            format!("Host: {host}\r\nOrigin: http://localhost\r\nOrigin: http://evil.example\r\n"),
            format!("Host: {host}\r\nOrigin: http://evil.example\r\nOrigin: http://localhost\r\n"),
            format!("Host: {host}\r\nMCP-Protocol-Version: 2025-06-18\r\nMCP-Protocol-Version: 2025-03-26\r\n"),
        ] {
            let status = raw_status(&base, &headers);
            assert!(status.contains(" 400 "), "{headers:?} -> {status}");
        }
    })
    .await
    .unwrap();
}
