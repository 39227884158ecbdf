//! The direct answer for `tools/call` (src/mcp/direct.rs): which requests it takes,
//! that everything else reaches rmcp with its body intact, and that its answers are the
//! answers rmcp gives for the same calls, stateless and in a session.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::harness::*;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

const SESSION_CALL: &str = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"rust"}}}"#;

fn call_body(tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{{"name":"{tool}","arguments":{args},{META}}}}}"#
    )
}

/// The headers a 2026-07-28 client sends with a `tools/call`.
fn plain_headers(tool: &str) -> Headers {
    vec![
        ("host", "127.0.0.1:9".into()),
        ("content-type", "application/json".into()),
        ("accept", "application/json, text/event-stream".into()),
        ("mcp-protocol-version", "2026-07-28".into()),
        ("mcp-method", "tools/call".into()),
        ("mcp-name", tool.into()),
    ]
}

type Headers = Vec<(&'static str, String)>;

fn request(headers: &[(&'static str, String)], body: String) -> Request<Body> {
    let mut r = Request::post("/mcp");
    for (k, v) in headers {
        r = r.header(*k, v);
    }
    r.body(Body::from(body)).unwrap()
}

#[tokio::test]
async fn only_plain_calls_of_known_tools_are_taken_and_the_rest_pass_intact() {
    let upstream = start_upstream().await;
    let dir = temp_dir("direct-takes");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let direct = Arc::new(toolgate::mcp::direct::Direct::new(
        tg.gateway.clone(),
        vec!["127.0.0.1".into()],
    ));
    // Stands in for rmcp: echoes what it was given, so a passed request shows its body.
    let app = axum::Router::new()
        .fallback(|body: String| async move { (StatusCode::IM_A_TEAPOT, body) })
        .layer(axum::middleware::from_fn_with_state(
            direct,
            toolgate::mcp::direct::serve_or_pass,
        ));

    let body = call_body("web_search", r#"{"query":"rust"}"#);
    let taken = app
        .clone()
        .oneshot(request(&plain_headers("web_search"), body.clone()))
        .await
        .unwrap();
    assert_eq!(taken.status(), StatusCode::OK);
    let answer: Value = serde_json::from_slice(
        &axum::body::to_bytes(taken.into_body(), 1 << 20)
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["id"], json!(41));
    assert_eq!(answer["result"]["isError"], json!(false));
    assert_eq!(answer["result"]["structuredContent"], search_body(false));
    assert_eq!(upstream.state.hits("/v3/search"), 1);

    let with = |name: &'static str, value: &str| {
        let mut h = plain_headers("web_search");
        h.retain(|(k, _)| *k != name);
        h.push((name, value.to_string()));
        h
    };
    let without = |name: &'static str| {
        let mut h = plain_headers("web_search");
        h.retain(|(k, _)| *k != name);
        h
    };
    let passed: Vec<(&str, Headers, String)> = vec![
        ("no Mcp-Method", without("mcp-method"), body.clone()),
        (
            "another era",
            with("mcp-protocol-version", "2025-11-25"),
            body.clone(),
        ),
        (
            "a session id with the stateless version",
            with("mcp-session-id", "abc"),
            body.clone(),
        ),
        (
            "a session rmcp does not know",
            {
                let mut h = with("mcp-protocol-version", "2025-11-25");
                h.retain(|(k, _)| *k != "mcp-method" && *k != "mcp-name");
                h.push(("mcp-session-id", "no-such-session".into()));
                h
            },
            SESSION_CALL.to_owned(),
        ),
        (
            "a browser",
            with("origin", "https://evil.example"),
            body.clone(),
        ),
        (
            "a host not allowed",
            with("host", "evil.example"),
            body.clone(),
        ),
        (
            "weighted accept",
            with("accept", "application/json;q=0.5, text/event-stream"),
            body.clone(),
        ),
        (
            "JSON only",
            with("accept", "application/json"),
            body.clone(),
        ),
        (
            "another content type",
            with("content-type", "text/plain"),
            body.clone(),
        ),
        (
            "a param header",
            with("mcp-param-query", "rust"),
            body.clone(),
        ),
        (
            "the built-in tool",
            plain_headers("dependency_health"),
            call_body("dependency_health", "{}"),
        ),
        (
            "an unknown tool",
            plain_headers("nope"),
            call_body("nope", "{}"),
        ),
        (
            "header and body disagree",
            plain_headers("bad_request"),
            body.clone(),
        ),
        (
            "arguments not an object",
            plain_headers("web_search"),
            call_body("web_search", "[1]"),
        ),
        ("a batch", plain_headers("web_search"), format!("[{body}]")),
        ("not JSON", plain_headers("web_search"), "{oops".to_owned()),
    ];
    for (why, headers, body) in passed {
        let response = app
            .clone()
            .oneshot(request(&headers, body.clone()))
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::IM_A_TEAPOT,
            "{why}: should reach rmcp"
        );
        let echoed = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        assert_eq!(
            echoed,
            body.as_bytes(),
            "{why}: the body must reach rmcp intact"
        );
    }
    assert_eq!(
        upstream.state.hits("/v3/search"),
        1,
        "passed requests never reach the upstream"
    );
}

/// Posts to the real server; `via_rmcp` adds a quality parameter to Accept, which rmcp
/// accepts and the direct path leaves to rmcp.
async fn post(url: &str, tool: &str, args: &str, via_rmcp: bool) -> Value {
    let accept = if via_rmcp {
        "application/json;q=1, text/event-stream"
    } else {
        "application/json, text/event-stream"
    };
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", accept)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(call_body(tool, args))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let ct = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(ct.starts_with("application/json"), "{ct}");
    response.json().await.unwrap()
}

/// The parts of an answer that do not change from one call to the next.
fn stable(mut answer: Value) -> Value {
    let signals = answer["result"]["_meta"]["dev.toolgate/signals"].take();
    for key in [
        "tool",
        "dependency",
        "contract_version",
        "attempts",
        "error_class",
        "retryable",
        "deprecation",
    ] {
        answer["result"]["_meta"][key] = signals[key].clone();
    }
    answer["result"]["_meta"]["health_status"] = signals["health"]["status"].clone();
    answer
}

#[tokio::test]
async fn direct_answers_are_the_answers_rmcp_gives() {
    let upstream = start_upstream().await;
    let dir = temp_dir("direct-same");
    let tg = start_toolgate(&format!(
        "{}{ODD_BODY_TOOLS}",
        core_config(upstream.addr, &dir.join("state.db"))
    ))
    .await;

    let cases = [
        ("web_search", r#"{"query":"rust"}"#),
        ("web_search", r#"{"query":42}"#),
        ("numbers", "{}"),
        ("bad_request", "{}"),
        ("html_page", "{}"),
    ];
    for (tool, args) in cases {
        let direct = post(&tg.url, tool, args, false).await;
        let rmcp = post(&tg.url, tool, args, true).await;
        assert_eq!(stable(direct.clone()), stable(rmcp), "{tool} {args}");
        // And the direct answer says what a client needs (checked on the raw JSON).
        assert_eq!(direct["jsonrpc"], "2.0");
        assert_eq!(direct["result"]["resultType"], "complete");
    }
    let wrapped = post(&tg.url, "numbers", "{}", false).await;
    assert_eq!(
        wrapped["result"]["structuredContent"],
        json!({"result": [1, 2, 3]})
    );
    assert_eq!(
        wrapped["result"]["content"][0]["text"],
        r#"{"result":[1,2,3]}"#
    );

    // Drift: the same report either way, and never retried.
    upstream.state.renamed.store(true, Ordering::SeqCst);
    let before = upstream.state.hits("/v3/search");
    let direct = post(&tg.url, "web_search", r#"{"query":"rust"}"#, false).await;
    let rmcp = post(&tg.url, "web_search", r#"{"query":"rust"}"#, true).await;
    assert_eq!(
        upstream.state.hits("/v3/search") - before,
        2,
        "one request per call"
    );
    assert_eq!(stable(direct.clone()), stable(rmcp));
    let text = direct["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("results[].excerpt") && text.contains("probably a rename"),
        "{text}"
    );
    assert_eq!(direct["result"]["isError"], json!(true));

    // Both paths count in the same metrics.
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            r#"toolgate_contract_drift_total{tool="web_search"}"#
        ),
        2.0
    );
}

/// Opens a 2025-11-25 session over plain HTTP; returns its id.
async fn open_session(url: &str) -> String {
    let http = reqwest::Client::new();
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#)
        .send()
        .await
        .unwrap();
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    response.bytes().await.unwrap();
    let ack = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(ack.status(), 202);
    id
}

/// A session call; `via_rmcp` as in `post`. Returns the content type and the message.
async fn post_in_session(url: &str, session: &str, args: &str, via_rmcp: bool) -> (String, Value) {
    let accept = if via_rmcp {
        "application/json;q=1, text/event-stream"
    } else {
        "application/json, text/event-stream"
    };
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", accept)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"name":"web_search","arguments":{args}}}}}"#
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let ct = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    let text = response.text().await.unwrap();
    // rmcp answers a session's request as a server-sent event; the message is the data.
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|d| d.starts_with('{'))
        .unwrap_or(&text);
    (ct, serde_json::from_str(json).unwrap())
}

#[tokio::test]
async fn session_calls_are_answered_directly_with_rmcps_answer() {
    let upstream = start_upstream().await;
    let dir = temp_dir("direct-session");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let session = open_session(&tg.url).await;

    for args in [r#"{"query":"rust"}"#, r#"{"query":42}"#] {
        let (direct_ct, direct) = post_in_session(&tg.url, &session, args, false).await;
        let (rmcp_ct, rmcp) = post_in_session(&tg.url, &session, args, true).await;
        assert!(direct_ct.starts_with("application/json"), "{direct_ct}");
        assert!(rmcp_ct.starts_with("text/event-stream"), "{rmcp_ct}");
        assert_eq!(stable(direct.clone()), stable(rmcp), "{args}");
        assert!(
            direct["result"].get("resultType").is_none(),
            "no resultType before 2026-07-28"
        );
    }
    let (_, ok) = post_in_session(&tg.url, &session, r#"{"query":"rust"}"#, false).await;
    assert_eq!(ok["result"]["structuredContent"], search_body(false));

    // A session that was closed is rmcp's to answer: 404, never a direct answer.
    let closed = reqwest::Client::new()
        .delete(&tg.url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    let after = reqwest::Client::new()
        .post(&tg.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(SESSION_CALL)
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 404);
}
