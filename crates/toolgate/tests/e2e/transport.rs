//! The streamable-HTTP transport on real sockets: answers are correct JSON-RPC (the
//! upstream body as `structuredContent`, in a session and stateless alike), one set of
//! rules refuses bad input everywhere, and the admission layer guards every endpoint.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use crate::harness::*;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn stateless_call(id: &str, tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args},{META}}}}}"#
    )
}

fn session_call(id: &str, tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
    )
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

async fn send(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

fn mcp_post(url: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

async fn post_stateless(url: &str, tool: &str, body: String) -> Answer {
    send(
        mcp_post(url)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool)
            .body(body),
    )
    .await
}

async fn post_session(url: &str, session: &str, body: String) -> Answer {
    send(
        mcp_post(url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(body),
    )
    .await
}

/// Opens a 2025-11-25 session over plain HTTP; returns its id.
async fn open_session(url: &str) -> String {
    let init = send(mcp_post(url).body(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#,
    ))
    .await;
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.body["result"]["protocolVersion"], "2025-11-25");
    let id = init.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let ack = send(
        mcp_post(url)
            .header("mcp-session-id", &id)
            .header("mcp-protocol-version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
    )
    .await;
    assert_eq!(ack.status, 202);
    id
}

#[tokio::test]
async fn answers_are_correct_jsonrpc_in_a_session_and_stateless_alike() {
    let upstream = start_upstream().await;
    let dir = temp_dir("transport-answers");
    let tg = start_toolgate(&format!(
        "{}{ODD_BODY_TOOLS}",
        core_config(upstream.addr, &dir.join("state.db"))
    ))
    .await;
    let session = open_session(&tg.url).await;

    let stateless = post_stateless(
        &tg.url,
        "web_search",
        stateless_call("41", "web_search", r#"{"query":"rust"}"#),
    )
    .await;
    let in_session = post_session(
        &tg.url,
        &session,
        session_call("\"s-42\"", "web_search", r#"{"query":"rust"}"#),
    )
    .await;
    for (what, a) in [("stateless", &stateless), ("session", &in_session)] {
        assert_eq!(a.status, 200, "{what}: {}", a.body);
        assert!(
            a.headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json"),
            "{what}"
        );
        assert_eq!(a.body["jsonrpc"], "2.0", "{what}");
        assert_eq!(
            a.body["result"]["structuredContent"],
            search_body(false),
            "{what}"
        );
        assert_eq!(a.body["result"]["isError"], json!(false), "{what}");
        let text: Value =
            serde_json::from_str(a.body["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            text,
            search_body(false),
            "{what}: the text block is the body"
        );
        assert_eq!(
            a.body["result"]["_meta"]["dev.toolgate/signals"]["tool"],
            "web_search"
        );
    }
    assert_eq!(stateless.body["id"], json!(41));
    assert_eq!(in_session.body["id"], json!("s-42"));
    assert_eq!(stateless.body["result"]["resultType"], "complete");
    assert!(in_session.body["result"].get("resultType").is_none());

    // A non-object body is wrapped the same way in both.
    let wrapped = post_session(&tg.url, &session, session_call("1", "numbers", "{}")).await;
    assert_eq!(
        wrapped.body["result"]["structuredContent"],
        json!({"result": [1, 2, 3]})
    );

    // Drift: the same report either way, one upstream request per call.
    upstream.state.renamed.store(true, Ordering::SeqCst);
    let before = upstream.state.hits("/v3/search");
    let a = post_stateless(
        &tg.url,
        "web_search",
        stateless_call("2", "web_search", r#"{"query":"rust"}"#),
    )
    .await;
    let b = post_session(
        &tg.url,
        &session,
        session_call("3", "web_search", r#"{"query":"rust"}"#),
    )
    .await;
    assert_eq!(upstream.state.hits("/v3/search") - before, 2);
    assert_eq!(a.body["result"]["content"], b.body["result"]["content"]);
    assert_eq!(a.body["result"]["isError"], json!(true));
    assert!(
        a.body["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("probably a rename")
    );

    // tools/list: the 2026-07-28 shape carries resultType and cache hints.
    let list = send(
        mcp_post(&tg.url)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{{META}}}}}"#
            )),
    )
    .await;
    assert_eq!(list.body["result"]["resultType"], "complete");
    assert_eq!(list.body["result"]["cacheScope"], "private");
    assert!(
        list.body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "dependency_health")
    );
}

#[tokio::test]
async fn bad_ids_and_malformed_json_are_refused_the_same_way_everywhere() {
    let upstream = start_upstream().await;
    let dir = temp_dir("transport-ids");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let session = open_session(&tg.url).await;
    for bad in [
        "null",
        "1.5",
        "18446744073709551616",
        "123456789012345678901234567890",
        "true",
        "[1]",
    ] {
        let a = post_stateless(
            &tg.url,
            "web_search",
            stateless_call(bad, "web_search", r#"{"query":"rust"}"#),
        )
        .await;
        let b = post_session(
            &tg.url,
            &session,
            session_call(bad, "web_search", r#"{"query":"rust"}"#),
        )
        .await;
        for (what, x) in [("stateless", &a), ("session", &b)] {
            assert_eq!(x.status, 400, "{what} id {bad}: {}", x.body);
            assert_eq!(x.body["error"]["code"], json!(-32600), "{what} id {bad}");
            assert_eq!(x.body["id"], Value::Null, "{what} id {bad}");
        }
    }
    assert_eq!(
        upstream.state.hits("/v3/search"),
        0,
        "no bad id reached the upstream"
    );
    // The largest and smallest i64 are fine, and echoed as sent.
    let max = post_session(
        &tg.url,
        &session,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#.into(),
    )
    .await;
    assert_eq!(max.body["id"], json!(i64::MIN));
    assert_eq!(max.body["result"], json!({}));

    for body in ["{oops", "", "[{\"jsonrpc\":\"2.0\""] {
        let a = post_session(&tg.url, &session, body.into()).await;
        let b = send(mcp_post(&tg.url).body(body)).await;
        for x in [&a, &b] {
            assert_eq!(x.status, 400, "{body}");
            assert_eq!(x.body["error"]["code"], json!(-32700), "{body}: {}", x.body);
        }
    }
}

#[tokio::test]
async fn origins_hosts_and_body_size_are_checked_before_anything_answers() {
    let upstream = start_upstream().await;
    let dir = temp_dir("transport-admission");
    let config = core_config(upstream.addr, &dir.join("state.db")).replace(
        "gateway:\n",
        "gateway:\n  allowed_origins: [\"https://app.example.com\"]\n  allowed_hosts: [gw.example.com]\n  max_request_bytes: 2KiB\n",
    );
    let tg = start_toolgate(&config).await;
    let call = stateless_call("1", "web_search", r#"{"query":"rust"}"#);
    let with_origin = |origin: &str| {
        mcp_post(&tg.url)
            .header("origin", origin)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "web_search")
            .body(call.clone())
    };
    let evil = send(with_origin("http://evil.example")).await;
    assert_eq!(evil.status, 403);
    assert_eq!(upstream.state.hits("/v3/search"), 0, "the call did not run");
    assert_eq!(
        send(with_origin("https://app.example.com")).await.status,
        200
    );
    assert_eq!(send(with_origin("http://localhost:6274")).await.status, 200);
    assert_eq!(upstream.state.hits("/v3/search"), 2);

    let client = reqwest::Client::new();
    for path in [
        "/mcp",
        "/admin/incidents",
        "/admin/status",
        "/metrics",
        "/healthz",
        "/readyz",
    ] {
        let url = format!("{}{path}", tg.base);
        let refused = client
            .get(&url)
            .header("host", "evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 403, "{path}");
        let allowed = client
            .get(&url)
            .header("host", "gw.example.com")
            .send()
            .await
            .unwrap();
        assert_ne!(allowed.status(), 403, "{path}");
    }

    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    );
    let too_large = send(mcp_post(&tg.url).body(big.clone())).await;
    assert_eq!(too_large.status, 413);
    assert_eq!(too_large.body["error"]["code"], json!(-32600));
    // Without a Content-Length (chunked), the body is cut off at the limit all the same.
    let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from(big))]);
    let chunked = mcp_post(&tg.url)
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_eq!(chunked.status(), 413);
}

#[tokio::test]
async fn sessions_close_with_success_and_the_cap_answers_503_with_retry_after() {
    let upstream = start_upstream().await;
    let dir = temp_dir("transport-sessions");
    let config = core_config(upstream.addr, &dir.join("state.db"))
        .replace("gateway:\n", "gateway:\n  max_sessions: 3\n");
    let tg = start_toolgate(&config).await;
    let ids = [
        open_session(&tg.url).await,
        open_session(&tg.url).await,
        open_session(&tg.url).await,
    ];
    let init = r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#;
    let full = send(mcp_post(&tg.url).body(init)).await;
    assert_eq!(full.status, 503);
    assert!(full.headers.contains_key("retry-after"));
    assert!(
        full.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_sessions"),
        "{}",
        full.body
    );
    assert!(full.headers.get("mcp-session-id").is_none());
    // The stateless revision needs no session, so it still works at the cap.
    let call = post_stateless(
        &tg.url,
        "web_search",
        stateless_call("1", "web_search", r#"{"query":"rust"}"#),
    )
    .await;
    assert_eq!(call.status, 200);

    let delete = |id: &str| {
        reqwest::Client::new()
            .delete(&tg.url)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
    };
    assert_eq!(delete(&ids[0]).await.unwrap().status(), 200);
    assert_eq!(
        delete(&ids[0]).await.unwrap().status(),
        404,
        "already closed"
    );
    assert_eq!(delete("no-such-session").await.unwrap().status(), 404);
    let after = post_session(&tg.url, &ids[0], session_call("1", "web_search", "{}")).await;
    assert_eq!(after.status, 404, "a closed session is gone");
    // Closing made room.
    assert_eq!(send(mcp_post(&tg.url).body(init)).await.status, 200);
}

#[tokio::test]
async fn a_session_get_stream_primes_and_headers_must_match_the_body() {
    let upstream = start_upstream().await;
    let dir = temp_dir("transport-stream");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let session = open_session(&tg.url).await;
    let mut stream = reqwest::Client::new()
        .get(&tg.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let first = stream.chunk().await.unwrap().unwrap();
    let first = String::from_utf8_lossy(&first);
    assert!(
        first.contains("id: 0") && first.contains("retry: "),
        "{first}"
    );
    // Closing the session ends its stream.
    reqwest::Client::new()
        .delete(&tg.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(stream.chunk().await.unwrap().is_none());

    let mismatched = send(
        mcp_post(&tg.url)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "flaky_status")
            .body(stateless_call("1", "web_search", r#"{"query":"rust"}"#)),
    )
    .await;
    assert_eq!(mismatched.status, 400);
    assert_eq!(mismatched.body["error"]["code"], json!(-32020));
    assert_eq!(upstream.state.hits("/v3/search"), 0);
}

#[tokio::test]
async fn a_request_of_tiny_json_values_is_refused_before_a_tree_is_built_of_it() {
    let upstream = start_upstream().await;
    let dir = temp_dir("transport-tiny-values");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let session = open_session(&tg.url).await;
    // Within the 4 MiB body limit, but 300,000 empty objects: a tree of them would take
    // tens of times the body's size.
    let many = vec!["{}"; 300_000].join(",");
    let flood = post_session(
        &tg.url,
        &session,
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"web_search","arguments":{{"query":"rust"}},"_meta":{{"pad":[{many}]}}}}}}"#
        ),
    )
    .await;
    assert_eq!(flood.status, 400, "{}", flood.body);
    assert_eq!(flood.body["error"]["code"], -32600);
    let message = flood.body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("more than 262144 JSON values"),
        "{message}"
    );
    assert_eq!(upstream.state.hits("/v3/search"), 0, "nothing was sent");
    // The same call with its values in one long string is served.
    let long = "x".repeat(600_000);
    let served = post_session(
        &tg.url,
        &session,
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"web_search","arguments":{{"query":"rust"}},"_meta":{{"pad":"{long}"}}}}}}"#
        ),
    )
    .await;
    assert_eq!(served.status, 200, "{}", served.body);
    assert_eq!(served.body["result"]["isError"], false, "{}", served.body);
}
