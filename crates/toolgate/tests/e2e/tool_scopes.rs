//! Per-tool scopes, end to end: `tools.<name>.scopes` and `mcp_servers.<name>.scopes`
//! ask more of a caller's access token than `gateway.auth.scopes`; a token without them
//! is answered 403 `insufficient_scope` naming what the call needs (the MCP
//! authorization specification's scope challenge), and nothing reaches the upstream.
//! Tokens are signed here, against the test issuer of `identity.rs`.

mod fronted;
mod parked;
mod refusals;
mod reload;

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::fronting::start_fixture;
use super::harness::{metric, serve_config, temp_dir};
use super::identity::{Client, Issuer, Seen, issuer_with, upstream};

const RESOURCE: &str = "https://tools.example.com/mcp";
const METADATA: &str = "https://tools.example.com/.well-known/oauth-protected-resource/mcp";
const API_KEY: &str = "tg_test_key_of_the_ledger_export_job";
/// The fronted server's one resource.
const GRAPH: &str = "memory://graph/main";

struct Setup {
    tg: super::harness::Toolgate,
    issuer: Issuer,
    seen: Seen,
    fixture: std::sync::Arc<super::fronting::Fixture>,
}

/// A gateway with an open tool (`balance`), a tool that moves money (`pay`, needs
/// `payments:write`), a fronted server whose tools need `kb:read` except `read_graph`
/// (with a prompt and a resource), an agent kept to `balance`, and an API-key agent.
/// POSTs a stateless 2026-07-28 `tools/call` of `tool` with `arguments` to `url`,
/// carrying `token` as its bearer credential.
async fn post_stateless_call(
    url: &str,
    token: &str,
    tool: &str,
    arguments: Value,
) -> reqwest::Response {
    let body = json!({"jsonrpc":"2.0","id":"call-41","method":"tools/call","params":{"name":tool,"arguments":arguments,
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}});
    reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn gateway() -> Setup {
    let (api, seen) = upstream().await;
    let (kb, fixture) = start_fixture().await;
    fixture
        .prompts
        .lock()
        .unwrap()
        .push(json!({"name": "summarise", "description": "Summarise the graph."}));
    fixture
        .resources
        .lock()
        .unwrap()
        .push(json!({"uri": GRAPH, "name": "graph", "mimeType": "text/plain"}));
    let issuer = issuer_with(axum::Router::new()).await;
    let dir = temp_dir("tool-scopes");
    let yaml = format!(
        r#"
gateway:
  state: {state}
  auth:
    resource: {RESOURCE}
    issuers:
      - issuer: {issuer}
    scopes: [tools:call]
dependencies:
  ledger: {{ base_url: "{api}" }}
tools:
  balance:
    dependency: ledger
    owner: a@example.com
    request: {{ path: /balance }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  pay:
    dependency: ledger
    owner: a@example.com
    scopes: [payments:write]
    request: {{ method: POST, path: /pay }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
mcp_servers:
  memory:
    url: "{kb}"
    owner: kb@example.com
    lock: {lock}
    prefix: kg
    scopes: [kb:read]
    tools:
      read_graph: {{ scopes: [] }}
agents:
  reporting-bot:
    match: {{ sub: reporting-bot }}
    tools: [balance]
  ledger-export:
    api_key_sha256: {key}
"#,
        state = dir.join("state.db").display(),
        issuer = issuer.url,
        lock = dir.join("toolgate.lock.json").display(),
        key = toolgate_auth::sha256_hex(API_KEY.as_bytes()),
    );
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tg = serve_config(config).await;
    Setup {
        tg,
        issuer,
        seen,
        fixture,
    }
}

impl Setup {
    fn token(&self, sub: &str, scope: &str) -> String {
        self.issuer
            .token_with_claims(sub, RESOURCE, scope, json!({}))
    }

    /// POSTs a handshake-era `tools/call` in `session` (or none) with `token`.
    async fn call(&self, token: &str, session: Option<&str>, tool: &str) -> reqwest::Response {
        let mut r = reqwest::Client::new()
            .post(&self.tg.url)
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(token)
            .json(&json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":tool,"arguments":{}}}));
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r.send().await.unwrap()
    }

    async fn session(&self, token: &str) -> String {
        let r = reqwest::Client::new()
            .post(&self.tg.url)
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(token)
            .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.headers()["mcp-session-id"].to_str().unwrap().to_string()
    }

    /// POSTs a stateless 2026-07-28 `tools/call` with `token`.
    async fn call_stateless(&self, token: &str, tool: &str) -> reqwest::Response {
        post_stateless_call(&self.tg.url, token, tool, json!({})).await
    }

    fn upstream_calls(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    /// Waits until the fronted server's tools are routed (its first check runs at start).
    async fn fronted_ready(&self, token: &str) {
        let mut client = Client::start(&self.tg.url, token).await;
        for _ in 0..200 {
            let listed = client.rpc("tools/list", json!({})).await;
            if listed.to_string().contains("kg__create_entities") {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("the fronted server's tools never appeared");
    }
}

fn challenge(r: &reqwest::Response) -> String {
    r.headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_token_without_the_tools_scope_is_challenged_with_what_the_call_needs_and_nothing_is_sent()
 {
    let s = gateway().await;
    let small = s.token("alice", "tools:call tools:read");
    let sid = s.session(&small).await;
    let r = s.call(&small, Some(&sid), "pay").await;
    assert_eq!(r.status(), 403);
    assert_eq!(
        challenge(&r),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"tools:call payments:write\", \
             resource_metadata=\"{METADATA}\", error_description=\"the access token lacks a scope this tool needs\""
        )
    );
    assert!(r.text().await.unwrap().contains("payments:write"));
    assert_eq!(s.upstream_calls(), 0, "nothing was sent upstream");
    let metrics = s.tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            r#"toolgate_agent_calls_total{agent="anonymous",outcome="forbidden"}"#
        ),
        1.0
    );
    // The open tool is called with the same small token.
    assert_eq!(s.call(&small, Some(&sid), "balance").await.status(), 200);
    assert_eq!(s.upstream_calls(), 1);
    // Stepped up: the same caller, in the same session, with a token that has the scope.
    let big = s.token("alice", "tools:call payments:write");
    let r = s.call(&big, Some(&sid), "pay").await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["isError"], false, "{body}");
    assert_eq!(s.upstream_calls(), 2);
    // And back: the session does not remember the larger token.
    assert_eq!(s.call(&small, Some(&sid), "pay").await.status(), 403);
    assert_eq!(s.upstream_calls(), 2);
}

#[tokio::test]
async fn a_prefix_another_case_a_longer_name_or_a_wildcard_is_not_the_scope() {
    let s = gateway().await;
    let grants = [
        json!({"scope": "tools:call payments"}),
        json!({"scope": "tools:call Payments:write"}),
        json!({"scope": "tools:call PAYMENTS:WRITE"}),
        json!({"scope": "tools:call payments:write:all"}),
        json!({"scope": "tools:call payments:*"}),
        json!({"scope": "tools:call *"}),
        json!({"scope": "tools:call payments:writ"}),
        json!({"scope": "tools:call", "scp": ["payments:write "]}),
        json!({"scope": "tools:call", "scp": ["payments write"]}),
        json!({"scope": "tools:call", "scp": "payments:write\tx"}),
        json!({"scope": "tools:call", "scp": [["payments:write"]]}),
        json!({"scope": "tools:call", "scp": {"payments:write": true}}),
        json!({"scope": "tools:call", "roles": ["payments:write"]}),
        json!({"scope": "tools:call", "scopes": ["payments:write"]}),
    ];
    for extra in grants {
        let scope = extra["scope"].as_str().unwrap().to_string();
        let mut claims = extra.clone();
        claims.as_object_mut().unwrap().remove("scope");
        let token = s
            .issuer
            .token_with_claims("mallory", RESOURCE, &scope, claims);
        let r = s.call_stateless(&token, "pay").await;
        assert_eq!(r.status(), 403, "{extra}");
    }
    assert_eq!(s.upstream_calls(), 0);
}

#[tokio::test]
async fn exactly_the_scopes_in_scope_or_in_scp_as_a_list_or_a_string_are_enough() {
    let s = gateway().await;
    for (scope, extra) in [
        ("tools:call payments:write", json!({})),
        // Azure AD v2 writes `scp` as one space-separated string; Okta as a list.
        ("tools:call", json!({"scp": "payments:write"})),
        (
            "tools:call",
            json!({"scp": ["tools:read", "payments:write"]}),
        ),
    ] {
        let token = s
            .issuer
            .token_with_claims("alice", RESOURCE, scope, extra.clone());
        let r = s.call_stateless(&token, "pay").await;
        assert_eq!(r.status(), 200, "{scope} {extra}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["result"]["isError"], false, "{body}");
    }
    assert_eq!(s.upstream_calls(), 3);
}

#[tokio::test]
async fn a_tool_the_token_lacks_scopes_for_is_listed_so_its_client_can_step_up() {
    let s = gateway().await;
    let mut client = Client::start(&s.tg.url, &s.token("alice", "tools:call")).await;
    let listed = client.rpc("tools/list", json!({})).await.to_string();
    assert!(
        listed.contains("\"pay\"") && listed.contains("\"balance\""),
        "{listed}"
    );
}

#[tokio::test]
async fn an_agents_policy_and_the_tools_scopes_must_both_allow_and_a_hidden_tool_stays_hidden() {
    let s = gateway().await;
    // Kept from `pay` by its policy: the scope does not open it, and without the scope
    // the refusal is the unknown tool's, not a challenge telling the tool exists.
    for scope in ["tools:call payments:write", "tools:call"] {
        let token = s.token("reporting-bot", scope);
        let r = s.call_stateless(&token, "pay").await;
        assert_ne!(r.status(), 403, "{scope}");
        assert!(challenge(&r).is_empty());
        let body: Value = r.json().await.unwrap();
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("unknown tool"),
            "{body}"
        );
    }
    assert_eq!(s.upstream_calls(), 0);
}

#[tokio::test]
async fn an_api_key_carries_no_scope_so_it_calls_only_tools_that_need_none() {
    let s = gateway().await;
    let r = s.call_stateless(API_KEY, "pay").await;
    assert_eq!(r.status(), 403);
    assert!(challenge(&r).contains("scope=\"tools:call payments:write\""));
    let metrics = s.tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            r#"toolgate_agent_calls_total{agent="ledger-export",outcome="forbidden"}"#
        ),
        1.0
    );
    assert_eq!(s.call_stateless(API_KEY, "balance").await.status(), 200);
    assert_eq!(s.upstream_calls(), 1);
}

#[tokio::test]
async fn a_fronted_servers_tools_keep_its_scopes_under_their_new_names_and_a_tools_own_win() {
    let s = gateway().await;
    let small = s.token("alice", "tools:call");
    s.fronted_ready(&small).await;
    let r = s.call_stateless(&small, "kg__create_entities").await;
    assert_eq!(r.status(), 403);
    assert!(
        challenge(&r).contains("scope=\"tools:call kb:read\""),
        "{}",
        challenge(&r)
    );
    assert_eq!(
        s.fixture.calls.load(Ordering::SeqCst),
        0,
        "nothing reached the server"
    );
    // `read_graph: { scopes: [] }` opens that one tool.
    assert_eq!(
        s.call_stateless(&small, "kg__read_graph").await.status(),
        200
    );
    let reader = s.token("alice", "tools:call kb:read");
    assert_eq!(
        s.call_stateless(&reader, "kg__create_entities")
            .await
            .status(),
        200
    );
    assert_eq!(s.fixture.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_protected_resource_metadata_lists_every_scope_a_tool_needs() {
    let s = gateway().await;
    let base = &s.tg.base;
    let doc: Value = reqwest::get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        doc["scopes_supported"],
        json!(["tools:call", "kb:read", "payments:write"])
    );
}

#[tokio::test]
async fn a_scoped_servers_prompts_are_out_of_reach_of_a_token_without_its_scopes() {
    let s = gateway().await;
    let small = s.token("alice", "tools:call");
    s.fronted_ready(&small).await;
    let mut client = Client::start(&s.tg.url, &small).await;
    let listed = client.rpc("prompts/list", json!({})).await.to_string();
    assert!(!listed.contains("summarise"), "{listed}");
    let got = client
        .rpc("prompts/get", json!({"name": "kg__summarise"}))
        .await;
    assert!(got.get("error").is_some(), "{got}");
    let mut reader = Client::start(&s.tg.url, &s.token("alice", "tools:call kb:read")).await;
    let listed = reader.rpc("prompts/list", json!({})).await.to_string();
    assert!(listed.contains("kg__summarise"), "{listed}");
}
