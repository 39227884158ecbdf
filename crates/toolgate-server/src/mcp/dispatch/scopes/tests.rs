use serde_json::Value;

use super::super::Server;
use crate::mcp::jsonrpc;
use crate::mcp::outbound::Outbound;

/// A fresh folder for a test gateway's state.
fn state_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "toolgate-scopes-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ))
}

/// The server of the config `yaml`, its state opened.
fn server_of(yaml: &str) -> Server {
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    Server::new(toolgate_engine::gateway::Gateway::new(config, store).unwrap())
}

/// A gateway with `gateway.auth`, an open tool `open` and a tool `pay` that needs
/// `payments:write`; its upstream is a closed port, so a call that got through would
/// fail as unreachable rather than as refused.
fn server() -> Server {
    let dir = state_dir();
    let tool = |name: &str, scopes: &str| {
        format!(
            "  {name}:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n{scopes}"
        )
    };
    let yaml = format!(
        "gateway:\n  state: {}\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{{ issuer: https://login.example.com }}]\n    scopes: [tools:call]\ndependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n{}{}",
        dir.join("s.db").display(),
        tool("open", ""),
        tool("pay", "    scopes: [payments:write]\n"),
    );
    server_of(&yaml)
}

fn granted(scope: &str) -> toolgate_auth::Granted {
    let mut claims = serde_json::Map::new();
    claims.insert("scope".into(), Value::String(scope.into()));
    toolgate_auth::Granted::new(std::sync::Arc::new(claims))
}

async fn call(s: &Server, tool: &str, outbound: &Outbound) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    );
    let message = jsonrpc::parse(body.as_bytes()).expect("a message");
    let reply = s.handle(message, Some("2025-11-25"), outbound).await;
    serde_json::from_slice(&reply.expect("an answer").body).expect("JSON")
}

#[tokio::test]
async fn a_caller_without_a_token_is_refused_a_scoped_tool_as_forbidden_where_no_status_can_say_so()
{
    let s = server();
    let v = call(&s, "pay", &Outbound::none()).await;
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert!(
        text.contains("payments:write") && text.contains("Error class: forbidden"),
        "{text}"
    );
    // The open tool is called (and fails at the closed port, not at the scopes).
    let v = call(&s, "open", &Outbound::none()).await;
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(!text.contains("forbidden"), "{text}");
}

#[tokio::test]
async fn the_refusal_names_the_scopes_of_mcp_and_of_the_tool_and_only_when_one_is_missing() {
    let s = server();
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
    let Ok(jsonrpc::Message::Request { id, .. }) = jsonrpc::parse(body) else {
        panic!("a request")
    };
    let refused = s
        .step_up(
            &id,
            "pay",
            None,
            None,
            Some(&granted("tools:call payments")),
        )
        .expect("refused");
    assert!(
        refused
            .challenge
            .starts_with("Bearer error=\"insufficient_scope\", scope=\"tools:call payments:write\", resource_metadata=\"https://tools.example.com/.well-known/oauth-protected-resource/mcp\""),
        "{}",
        refused.challenge
    );
    assert!(
        s.step_up(
            &id,
            "pay",
            None,
            None,
            Some(&granted("tools:call payments:write"))
        )
        .is_none()
    );
    assert!(s.step_up(&id, "open", None, None, None).is_none());
    assert!(s.step_up(&id, "no_such_tool", None, None, None).is_none());
}

/// A gateway fronting MCP server `kb`, whose resources need `kb:read`; the server is
/// at a closed port, and nothing here reaches it.
fn fronting_server() -> Server {
    let dir = state_dir();
    let yaml = format!(
        "gateway:\n  state: {}\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{{ issuer: https://login.example.com }}]\nmcp_servers:\n  kb:\n    url: http://127.0.0.1:9/mcp\n    owner: kb@example.com\n    lock: does-not-exist.lock.json\n    scopes: [kb:read]\n",
        dir.join("s.db").display(),
    );
    server_of(&yaml)
}

async fn ping(s: &Server, outbound: &Outbound) {
    let message =
        jsonrpc::parse(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).expect("a message");
    s.handle(message, Some("2025-11-25"), outbound)
        .await
        .expect("an answer");
}

#[tokio::test]
async fn a_session_that_subscribed_follows_the_reach_of_its_newest_requests_token() {
    let s = fronting_server();
    let link = std::sync::Arc::new(crate::mcp::outbound::SessionLink::new(None));
    let on_session = |scope: &str| {
        Outbound::new(None, Some(link.clone()), None).with_scopes(Some(granted(scope)))
    };
    let reader = on_session("kb:read").reader().expect("a session's reader");
    // It subscribed to one of kb's resources with a token granting kb:read.
    reader.mark_subscribed();
    reader.note_usable(Some(vec!["kb".to_owned()].into()));

    ping(&s, &on_session("profile")).await;
    assert!(
        !reader.may_use("kb"),
        "a request with a token stepped down to fewer scopes narrows what the session hears of"
    );
    ping(&s, &on_session("profile kb:read")).await;
    assert!(
        reader.may_use("kb"),
        "and one with the scope again widens it"
    );
}
