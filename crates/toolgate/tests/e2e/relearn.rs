//! Relearning without a restart: a learned contract is pinned and enforced, the upstream
//! renames a field (the call warns, one incident), the owner accepts the new shape with
//! the real `toolgate relearn` against the running server: the pin leaves the lockfile,
//! the incident is resolved (and kept), the tool learns again, and the new shape is then
//! what it enforces.

use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use crate::harness::*;

const TOKEN: &str = "relearn-admin-token";

fn config(upstream: std::net::SocketAddr, dir: &std::path::Path) -> String {
    format!(
        r#"
gateway:
  state: {state}
  auth_token_env: TG_TOKEN
  learn: {{ enforce_after: 3 }}
dependencies:
  search_api: {{ base_url: "http://{upstream}", timeout: 2s }}
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}" }} }}
    input_schema: {{ type: object, properties: {{ query: {{ type: string }} }} }}
  strict_search:
    dependency: search_api
    owner: alice@example.com
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}" }} }}
    input_schema: {{ type: object, properties: {{ query: {{ type: string }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [results] }} }}
"#,
        state = dir.join("state.db").display()
    )
}

/// Learning runs off the call path: waits until `tool`'s contract is enforced.
async fn enforced(tg: &Toolgate, tool: &str) {
    for _ in 0..500 {
        let state = tg.gateway.route(tool).unwrap().state.clone();
        if state.learned.get().and_then(|s| s.enforced()).is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the learned contract of {tool} was never enforced");
}

/// An MCP client sending the shared token (it guards `/mcp` as well as `/admin`).
async fn rmcp_client_with_token(
    url: &str,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt as _;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    toolgate_engine::tls::init();
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header(token),
    );
    ().serve(transport).await.unwrap()
}

/// `toolgate relearn -c <config> <tool> --url <base>` with the admin token exported.
fn relearn(config: &std::path::Path, tool: &str, base: &str) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["relearn", "-c"])
        .arg(config)
        .args([tool, "--url", base])
        .env_remove("TOOLGATE_CONFIG")
        .env("TG_TOKEN", TOKEN)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_shape_is_relearned_without_a_restart_and_then_enforced() {
    let upstream = start_upstream().await;
    let dir = temp_dir("relearn");
    let path = dir.join("toolgate.yaml");
    let yaml = config(upstream.addr, &dir);
    std::fs::write(&path, &yaml).unwrap();
    let env = |k: &str| (k == "TG_TOKEN").then(|| TOKEN.to_string());
    let config = toolgate_config::parse(&path, &yaml, &dir, &env).unwrap_or_else(|e| panic!("{e}"));
    let lockfile = config.gateway.lockfile.clone();
    let tg = serve_config(config).await;
    let client = rmcp_client_with_token(&tg.url, TOKEN).await;

    // Learned from three responses, then pinned as `toolgate lock` pins it.
    for _ in 0..3 {
        let r = call(&client, "web_search", json!({"query": "rust"})).await;
        assert_ne!(r.is_error, Some(true));
    }
    enforced(&tg, "web_search").await;
    let mut file = toolgate_contract::Lockfile::default();
    file.learned.insert(
        "web_search".into(),
        tg.gateway.learned()["web_search"].pin.clone(),
    );
    file.write(&lockfile).unwrap();

    // The upstream renames `snippet`: the call warns, one incident.
    upstream.state.renamed.store(true, Ordering::SeqCst);
    super::learned::held_back(&client, "web_search", json!({"query": "rust"})).await;
    let r = call(&client, "web_search", json!({"query": "rust"})).await;
    assert_ne!(r.is_error, Some(true));
    assert!(
        text(&r).contains("`results[].snippet` is missing"),
        "{}",
        text(&r)
    );
    let open: Vec<_> = tg
        .incidents(false)
        .await
        .into_iter()
        .filter(|i| i.kind == "contract_drift")
        .collect();
    assert_eq!(open.len(), 1, "{open:?}");
    let incident = open[0].id;

    // The endpoint wants the admin credential; relearn refuses what is not learned.
    let http = reqwest::Client::new();
    let endpoint = format!("{}/admin/tools/web_search/relearn", tg.base);
    assert_eq!(http.post(&endpoint).send().await.unwrap().status(), 401);
    let (ok, _, stderr) = relearn(&path, "strict_search", &tg.base);
    assert!(
        !ok && stderr.contains("has a declared contract, not a learned one"),
        "{stderr}"
    );
    let (ok, _, stderr) = relearn(&path, "web_serch", &tg.base);
    assert!(
        !ok && stderr.contains("no tool named `web_serch`"),
        "{stderr}"
    );

    // The owner accepts the new shape.
    let (ok, stdout, stderr) = relearn(&path, "web_search", &tg.base);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("its enforced contract (learned from 3 responses) was dropped")
            && stdout.contains("its pin removed from")
            && stdout.contains("learns again from its next 3 responses"),
        "{stdout}"
    );
    let pinned = toolgate_contract::Lockfile::read(&lockfile)
        .unwrap()
        .unwrap();
    assert!(!pinned.learned.contains_key("web_search"), "{pinned:?}");
    let status = toolgate_engine::status::report(&tg.gateway).await;
    assert_eq!(status["contracts"]["learning"], 1, "{status}");
    assert_eq!(status["contracts"]["learned_enforced"], 0, "{status}");
    // The incident is history: resolved, and still there with its diff.
    assert!(
        tg.incidents(false)
            .await
            .iter()
            .all(|i| i.kind != "contract_drift"),
        "no drift incident stays open"
    );
    let all = tg.incidents(true).await;
    let kept = all.iter().find(|i| i.id == incident).expect("kept");
    assert!(kept.resolved_at.is_some(), "{kept:?}");

    // The new shape is learned: it no longer warns, and it is what is enforced now.
    for _ in 0..3 {
        let r = call(&client, "web_search", json!({"query": "rust"})).await;
        assert!(!text(&r).contains("toolgate:"), "{}", text(&r));
    }
    enforced(&tg, "web_search").await;
    let r = call(&client, "web_search", json!({"query": "rust"})).await;
    assert!(!text(&r).contains("toolgate:"), "{}", text(&r));
    upstream.state.renamed.store(false, Ordering::SeqCst);
    super::learned::held_back(&client, "web_search", json!({"query": "rust"})).await;
    let r = call(&client, "web_search", json!({"query": "rust"})).await;
    assert!(
        text(&r).contains("`results[].excerpt` is missing"),
        "the old shape is drift now: {}",
        text(&r)
    );
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_tool_contracts{origin=\"learned_enforced\"}"
        ),
        1.0
    );
    assert_eq!(
        metric(&metrics, "toolgate_tool_contracts{origin=\"imported\"}"),
        0.0,
        "every origin is a series from the start"
    );
    let _ = client.cancel().await;
}
