//! Reload and drain on real sockets: `POST /admin/reload` rejects a broken file with
//! every error (the old config keeps serving) and serves a valid one from the next
//! request on; a stop fails `/readyz` at once while `/mcp` still answers a session's
//! follow-up requests until the shutdown delay ends.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolgate_engine::gateway::Gateway;
use toolgate_engine::reload::Current;
use toolgate_server::server::Shutdown;
use toolgate_store::Store;

use crate::harness::*;

struct Served {
    base: String,
    current: Arc<Current>,
    shutdown: Shutdown,
    listener: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn serve_file(path: &std::path::Path) -> Served {
    let config = toolgate_config::load(path).unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&config.gateway.state).unwrap();
    let gateway = Gateway::new(config, store).unwrap();
    let current = Current::new(gateway, Some(path.to_path_buf()));
    current.start_background();
    let shutdown = Shutdown::new();
    let router = toolgate_server::server::router_serving(current.clone(), &shutdown, None);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let listener = tokio::spawn(toolgate_server::server::serve(
        listener,
        router,
        shutdown.stop.clone(),
    ));
    Served {
        base: format!("http://{addr}"),
        current,
        shutdown,
        listener,
    }
}

fn mcp(base: &str, session: Option<&str>, body: &str) -> reqwest::RequestBuilder {
    let mut r = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    if let Some(s) = session {
        r = r
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    r
}

async fn open_session(base: &str) -> String {
    let init = mcp(
        base,
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(init.status(), 200);
    let id = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let ack = mcp(
        base,
        Some(&id),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(ack.status(), 202);
    id
}

async fn tool_names(base: &str, session: &str) -> Vec<String> {
    let r = mcp(
        base,
        Some(session),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

const EXTRA_TOOL: &str = r#"
  web_search_v2:
    dependency: search_api
    owner: alice@example.com
    request: { path: /v3/search }
    annotations: { readOnlyHint: true }
    contract: { version: "1.0", response_schema: { type: object } }
"#;

#[tokio::test]
async fn admin_reload_rejects_a_broken_file_with_every_error_and_serves_a_valid_one() {
    let upstream = start_upstream().await;
    let dir = temp_dir("reload-admin");
    let path = dir.join("toolgate.yaml");
    let yaml = core_config(upstream.addr, &dir.join("state.db"));
    std::fs::write(&path, &yaml).unwrap();
    let s = serve_file(&path).await;
    let session = open_session(&s.base).await;
    assert!(
        !tool_names(&s.base, &session)
            .await
            .contains(&"web_search_v2".to_owned())
    );

    // Two mistakes: a tool without an owner, and a timeout that is no duration.
    let broken = format!("{yaml}{EXTRA_TOOL}")
        .replace(
            "    owner: alice@example.com\n    request: { path: /v3/search }",
            "    request: { path: /v3/search }",
        )
        .replace("timeout: 2s", "timeout: soon");
    std::fs::write(&path, broken).unwrap();
    let r = reqwest::Client::new()
        .post(format!("{}/admin/reload", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    let report: Value = r.json().await.unwrap();
    assert_eq!(report["result"], "rejected");
    let fields: Vec<&str> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert!(
        fields.contains(&"dependencies.search_api.timeout"),
        "{report}"
    );
    assert!(
        fields.iter().any(|f| f.starts_with("tools.web_search_v2")),
        "{report}"
    );
    // The old config still serves, calls included.
    assert!(
        !tool_names(&s.base, &session)
            .await
            .contains(&"web_search_v2".to_owned())
    );
    assert_eq!(s.current.generation(), 1);

    std::fs::write(&path, format!("{yaml}{EXTRA_TOOL}")).unwrap();
    let r = reqwest::Client::new()
        .post(format!("{}/admin/reload", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let report: Value = r.json().await.unwrap();
    assert_eq!(report["generation"], 2);
    assert_eq!(report["tools_added"], serde_json::json!(["web_search_v2"]));
    assert_eq!(
        report["dependencies_kept"],
        serde_json::json!(["search_api"])
    );
    // The same session sees the new tool on its next request.
    assert!(
        tool_names(&s.base, &session)
            .await
            .contains(&"web_search_v2".to_owned())
    );
    let metrics = reqwest::get(format!("{}/metrics", s.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(metric(&metrics, "toolgate_config_generation"), 2.0);
    assert_eq!(
        metric(
            &metrics,
            "toolgate_config_reloads_total{result=\"rejected\"}"
        ),
        1.0
    );
    assert_eq!(
        metric(&metrics, "toolgate_config_reloads_total{result=\"ok\"}"),
        1.0
    );
    s.shutdown.stop.cancel();
}

#[tokio::test]
async fn a_stop_fails_readiness_at_once_and_serves_follow_ups_until_the_delay_ends() {
    let upstream = start_upstream().await;
    let dir = temp_dir("reload-drain");
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, core_config(upstream.addr, &dir.join("state.db"))).unwrap();
    let s = serve_file(&path).await;
    let readyz = || async {
        reqwest::get(format!("{}/readyz", s.base))
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(readyz().await, 200);
    let session = open_session(&s.base).await;

    // The stop begins; the delay is long enough that only the test ends it.
    s.shutdown.begin(Duration::from_secs(3600));
    assert_eq!(readyz().await, 503, "readiness fails at once");
    // A client's follow-ups during the delay are served: a lazy tools/list, a call on
    // a new connection, and the session's DELETE.
    assert!(
        tool_names(&s.base, &session)
            .await
            .contains(&"web_search".to_owned())
    );
    let call = mcp(
        &s.base,
        Some(&session),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"q"}}}"#,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(call.status(), 200);
    let answer: Value = call.json().await.unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let end = reqwest::Client::new()
        .delete(format!("{}/mcp", s.base))
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(end.status(), 200);

    // The delay ends: the listener stops and drains.
    s.shutdown.stop.cancel();
    s.listener.await.unwrap().unwrap();
    assert!(
        reqwest::get(format!("{}/readyz", s.base)).await.is_err(),
        "no new connections once the listener stopped"
    );
    assert!(s.current.stop(Duration::from_secs(10)).await);
}
