//! A reload narrows what every live session hears of a fronted server's resources, at
//! once, without the session sending another request.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::mcp::dispatch::Server;
use crate::mcp::jsonrpc;
use crate::mcp::outbound::{Outbound, SessionLink};

/// A config fronting MCP server `kb` (at a closed port: nothing here reaches it) under
/// `gateway.auth`, `kb` needing the scopes `kb_scopes`.
fn config(state: &Path, kb_scopes: &str) -> String {
    format!(
        "gateway:\n  state: {}\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{{ issuer: https://login.example.com }}]\nmcp_servers:\n  kb:\n    url: http://127.0.0.1:9/mcp\n    owner: kb@example.com\n    lock: does-not-exist.lock.json\n    scopes: [{kb_scopes}]\n",
        state.join("s.db").display(),
    )
}

/// A server reloadable from `file`, which holds `yaml`.
fn reloadable(dir: &Path, yaml: &str) -> (Server, Arc<toolgate_engine::reload::Current>) {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("toolgate.yaml");
    std::fs::write(&file, yaml).unwrap();
    let config = toolgate_config::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    let gateway = toolgate_engine::gateway::Gateway::new(config, store).unwrap();
    let current = toolgate_engine::reload::Current::new(gateway, Some(file));
    (Server::serving(current.clone()), current)
}

fn granted(scope: &str) -> toolgate_auth::Granted {
    let mut claims = serde_json::Map::new();
    claims.insert("scope".into(), Value::String(scope.into()));
    toolgate_auth::Granted::new(Arc::new(claims))
}

async fn ping(s: &Server, outbound: &Outbound) {
    let message =
        jsonrpc::parse(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).expect("a message");
    s.handle(message, Some("2025-11-25"), outbound)
        .await
        .expect("an answer");
}

fn temp_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "toolgate-reach-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ))
}

#[tokio::test]
async fn a_reload_that_gives_a_server_scopes_the_token_lacks_silences_its_updates_for_live_sessions()
 {
    let dir = temp_dir();
    let (s, current) = reloadable(&dir, &config(&dir, ""));
    let link = Arc::new(SessionLink::new(None));
    let session =
        Outbound::new(None, Some(link.clone()), None).with_scopes(Some(granted("profile")));
    let reader = session.reader().expect("a session's reader");
    reader.mark_subscribed();
    ping(&s, &session).await;
    assert!(reader.may_use("kb"), "kb needs no scope yet");

    std::fs::write(dir.join("toolgate.yaml"), config(&dir, "kb:read")).unwrap();
    let report = current.reload().await;
    assert!(report.accepted(), "{report:?}");
    assert!(
        !reader.may_use("kb"),
        "the session's token lacks kb:read, which kb needs since the reload: no update of its resources reaches it, though it sent nothing since"
    );

    std::fs::write(dir.join("toolgate.yaml"), config(&dir, "")).unwrap();
    assert!(current.reload().await.accepted());
    assert!(
        reader.may_use("kb"),
        "and a reload that widens it again widens it"
    );
}
