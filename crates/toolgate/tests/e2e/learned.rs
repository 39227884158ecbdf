//! Learned contracts end to end: an HTTP tool with no contract learns one from its
//! responses; once enforced, a renamed field returns the data with a note and opens one
//! incident; with `on_drift: fail` the call fails as declared drift does.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use crate::harness::*;

fn config(upstream: std::net::SocketAddr, state: &std::path::Path, on_drift: &str) -> String {
    format!(
        r#"
gateway:
  state: {state}
  learn: {{ enforce_after: 3 }}
dependencies:
  search_api: {{ base_url: "http://{upstream}", timeout: 2s }}
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}" }} }}
    input_schema: {{ type: object, properties: {{ query: {{ type: string }} }} }}
    contract: {{ version: "1.0", on_drift: {on_drift} }}
"#,
        state = state.join("state.db").display()
    )
}

/// Learning runs off the call path: waits until `tool`'s contract is enforced.
async fn enforced(tg: &Toolgate, tool: &str) {
    for _ in 0..500 {
        let route = tg.gateway.route(tool).unwrap();
        if route
            .state
            .learned
            .get()
            .and_then(|s| s.enforced())
            .is_some()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the learned contract was never enforced");
}

/// The responses before a learned member's absence counts as drift: each passes with
/// its data and no note, since twenty responses cannot tell a member always sent from
/// one sent nearly always.
pub(crate) async fn held_back(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    args: serde_json::Value,
) {
    for _ in 1..toolgate_contract::ABSENT_RESPONSES {
        let r = call(client, tool, args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{r:?}");
        assert!(!text(&r).contains("toolgate:"), "{}", text(&r));
    }
}

#[tokio::test]
async fn an_http_tool_without_a_contract_learns_one_and_a_rename_warns_with_one_incident() {
    let upstream = start_upstream().await;
    let dir = temp_dir("learned-warn");
    let tg = start_toolgate(&config(upstream.addr, &dir, "warn")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    for _ in 0..3 {
        let r = call(&client, "web_search", json!({"query": "rust"})).await;
        assert_ne!(r.is_error, Some(true));
        assert!(!text(&r).contains("toolgate:"), "{}", text(&r));
    }
    enforced(&tg, "web_search").await;
    let status = toolgate_engine::status::report(&tg.gateway).await;
    assert_eq!(status["contracts"]["learned_enforced"], 1, "{status}");
    upstream.state.renamed.store(true, Ordering::SeqCst);
    held_back(&client, "web_search", json!({"query": "rust"})).await;
    for _ in 0..2 {
        let r = call(&client, "web_search", json!({"query": "rust"})).await;
        assert_ne!(r.is_error, Some(true), "the call still succeeds");
        let t = text(&r);
        assert!(t.contains("excerpt"), "the data is returned: {t}");
        assert!(
            t.contains("toolgate: web_search's response changed shape compared with its last 3 responses: `results[].snippet` is missing and `results[].excerpt` is new (same type — probably a rename); if you rely on `snippet`, use `excerpt`."),
            "{t}"
        );
    }
    let drifts: Vec<_> = tg
        .incidents(false)
        .await
        .into_iter()
        .filter(|i| i.kind == "contract_drift")
        .collect();
    assert_eq!(drifts.len(), 1, "{drifts:?}");
    assert!(
        drifts[0].title.contains("learned contract"),
        "{}",
        drifts[0].title
    );
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_contract_drift_total{tool=\"web_search\"}"
        ),
        2.0
    );
    assert_eq!(
        metric(
            &metrics,
            "toolgate_tool_contracts{origin=\"learned_enforced\"}"
        ),
        1.0
    );
}

#[tokio::test]
async fn with_on_drift_fail_a_rename_fails_the_call_as_declared_drift_does() {
    let upstream = start_upstream().await;
    let dir = temp_dir("learned-fail");
    let tg = start_toolgate(&config(upstream.addr, &dir, "fail")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    for _ in 0..3 {
        let r = call(&client, "web_search", json!({"query": "rust"})).await;
        assert_ne!(r.is_error, Some(true));
    }
    enforced(&tg, "web_search").await;
    upstream.state.renamed.store(true, Ordering::SeqCst);
    held_back(&client, "web_search", json!({"query": "rust"})).await;
    let r = call(&client, "web_search", json!({"query": "rust"})).await;
    assert_eq!(r.is_error, Some(true));
    let t = text(&r);
    assert!(
        t.contains("results[].snippet") && t.contains("excerpt"),
        "{t}"
    );
    let drifts = tg
        .incidents(false)
        .await
        .into_iter()
        .filter(|i| i.kind == "contract_drift")
        .count();
    assert_eq!(drifts, 1);
}

/// An upstream MCP server with one tool that declares no `outputSchema` and answers
/// with its JSON in a text block, as most servers do; `renamed` renames a field.
async fn start_json_text_server(renamed: std::sync::Arc<std::sync::atomic::AtomicBool>) -> String {
    use axum::extract::State;
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    async fn answer(
        State(renamed): State<std::sync::Arc<std::sync::atomic::AtomicBool>>,
        body: axum::Json<serde_json::Value>,
    ) -> axum::response::Response {
        let message = body.0;
        let Some(id) = message.get("id").cloned() else {
            return StatusCode::ACCEPTED.into_response();
        };
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": "2025-06-18",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "fixture-search", "version": "1.0.0" }
            }),
            "tools/list" => json!({ "tools": [{
                "name": "search",
                "description": "Search the documents.",
                "inputSchema": { "type": "object", "properties": { "q": { "type": "string" } } }
            }]}),
            "tools/call" => {
                let field = if renamed.load(Ordering::SeqCst) {
                    "excerpt"
                } else {
                    "snippet"
                };
                let body = json!({ "results": [
                    { "title": "One", field: "first passage" },
                    { "title": "Two", field: "second passage" }
                ], "total": 2 });
                json!({ "content": [{ "type": "text", "text": body.to_string() }] })
            }
            _ => json!({}),
        };
        axum::Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response()
    }
    let app = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(answer)
                .get(|| async { StatusCode::METHOD_NOT_ALLOWED })
                .delete(|| async { StatusCode::OK }),
        )
        .with_state(renamed);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_tool_without_output_schema_learns_from_its_json_text_and_a_rename_warns() {
    let renamed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let url = start_json_text_server(renamed.clone()).await;
    let dir = temp_dir("learned-mcp");
    let yaml = format!(
        "gateway:\n  state: {}\n  learn: {{ enforce_after: 3 }}\nmcp_servers:\n  docs:\n    url: {url}\n    \
         owner: docs-team@example.com\n    lock: {}\n",
        dir.join("state.db").display(),
        dir.join("toolgate.lock.json").display()
    );
    let tg = start_toolgate(&yaml).await;
    // The server's tools are served once its first check has listed them.
    for _ in 0..500 {
        if tg.gateway.route("docs__search").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    for _ in 0..3 {
        let r = call(&client, "docs__search", json!({ "q": "rust" })).await;
        assert_ne!(r.is_error, Some(true), "{r:?}");
        assert!(!text(&r).contains("toolgate:"), "{}", text(&r));
    }
    enforced(&tg, "docs__search").await;
    renamed.store(true, Ordering::SeqCst);
    held_back(&client, "docs__search", json!({ "q": "rust" })).await;
    let r = call(&client, "docs__search", json!({ "q": "rust" })).await;
    assert_ne!(r.is_error, Some(true), "the call still succeeds: {r:?}");
    let t = text(&r);
    assert!(t.contains("excerpt"), "the data is returned: {t}");
    assert!(
        t.contains("`results[].snippet` is missing and `results[].excerpt` is new (same type — probably a rename)"),
        "{t}"
    );
    let drifts: Vec<_> = tg
        .incidents(false)
        .await
        .into_iter()
        .filter(|i| i.kind == "contract_drift" && i.tool == "docs__search")
        .collect();
    assert_eq!(drifts.len(), 1, "{drifts:?}");
    assert_eq!(drifts[0].owner, "docs-team@example.com");
}
