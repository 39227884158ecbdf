//! A GET stream is a request of its session: one opened again (a `Last-Event-ID`
//! resume, or a fresh standalone stream) with a token of fewer scopes narrows what the
//! session hears of, as a POST with that token does.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Mcp, Owner, SESSION_ID, Settings};
use crate::mcp::dispatch::Server;

/// A gateway fronting MCP server `kb` (at a closed port: nothing here reaches it),
/// whose resources need the scope `kb:read`.
fn server() -> Server {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-stream-reach-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ));
    let yaml = format!(
        "gateway:\n  state: {}\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{{ issuer: https://login.example.com }}]\nmcp_servers:\n  kb:\n    url: http://127.0.0.1:9/mcp\n    owner: kb@example.com\n    lock: does-not-exist.lock.json\n    scopes: [kb:read]\n",
        dir.join("s.db").display(),
    );
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    Server::new(toolgate_engine::gateway::Gateway::new(config, store).unwrap())
}

/// One user's identity, with a token granting `scope`.
fn user(scope: &str) -> toolgate_auth::Identity {
    let mut claims = serde_json::Map::new();
    claims.insert("scope".into(), Value::String(scope.into()));
    toolgate_auth::Identity {
        agent: None,
        subject: Some("user-1".into()),
        issuer: Some("https://login.example.com".into()),
        admin: false,
        access_token: None,
        scopes: Some(toolgate_auth::Granted::new(Arc::new(claims))),
    }
}

fn mcp() -> Arc<Mcp> {
    let settings = Settings {
        max_sessions: 16,
        session_share: 1.0,
        session_idle: Duration::from_secs(600),
        session_keys: Vec::new(),
        session_lifetime: Duration::from_secs(3600),
        max_request_bytes: 1 << 20,
        replica_url: None,
    };
    Mcp::new(Arc::new(server()), &settings, CancellationToken::new())
}

async fn initialize(mcp: &Arc<Mcp>, identity: toolgate_auth::Identity) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut request = Request::post("/mcp")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    request.extensions_mut().insert(identity);
    let response = super::handle(State(mcp.clone()), request).await;
    assert_eq!(response.status(), 200);
    response.headers()[SESSION_ID].to_str().unwrap().to_owned()
}

async fn open_stream(
    mcp: &Arc<Mcp>,
    sid: &str,
    last_event: Option<&str>,
    identity: toolgate_auth::Identity,
) {
    let mut request = Request::get("/mcp")
        .header("accept", "text/event-stream")
        .header(SESSION_ID, sid);
    if let Some(id) = last_event {
        request = request.header("last-event-id", id);
    }
    let mut request = request.body(Body::empty()).unwrap();
    request.extensions_mut().insert(identity);
    let response = super::handle(State(mcp.clone()), request).await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_stream_resumed_with_a_token_of_fewer_scopes_narrows_what_the_session_hears_of() {
    for last_event in [Some("0"), None] {
        let mcp = mcp();
        let sid = initialize(&mcp, user("kb:read")).await;
        let owner = Owner::of(Some(&user("kb:read")));
        let (_, link) = mcp.sessions.resume(&sid, &owner).expect("the session");
        let reader = link.notification_reader();
        // It subscribed to one of kb's resources with the token granting kb:read.
        reader.mark_subscribed();
        reader.note_usable(Some(vec!["kb".to_owned()].into()));

        open_stream(&mcp, &sid, last_event, user("profile")).await;
        assert!(
            !reader.may_use("kb"),
            "a stream opened again ({last_event:?}) with a token lacking kb:read hears no more of kb's resources"
        );
        open_stream(&mcp, &sid, last_event, user("profile kb:read")).await;
        assert!(
            reader.may_use("kb"),
            "and one with the scope again widens it"
        );
    }
}
