//! A reload that changes which scopes tools need changes what the protected-resource
//! metadata advertises from the next request on, as it changes what calls need: a
//! client that asks for `scopes_supported` never asks for a set the calls no longer
//! accept.

use serde_json::{Value, json};
use toolgate_engine::gateway::Gateway;
use toolgate_engine::reload::Current;
use toolgate_server::server::Shutdown;
use toolgate_store::Store;

use super::{RESOURCE, challenge};
use crate::harness::temp_dir;
use crate::identity::{issuer_with, upstream};

/// The config with `pay` needing `pay_scope`, and `refund` too when `refund_scope`
/// is given.
fn yaml(
    state: &str,
    issuer: &str,
    api: &str,
    pay_scope: &str,
    refund_scope: Option<&str>,
) -> String {
    let tool = |name: &str, scope: &str| {
        format!(
            "  {name}:\n    dependency: ledger\n    owner: a@example.com\n    scopes: [{scope}]\n    request: {{ method: POST, path: /{name} }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        )
    };
    let mut tools = tool("pay", pay_scope);
    if let Some(scope) = refund_scope {
        tools.push_str(&tool("refund", scope));
    }
    format!(
        "gateway:\n  state: {state}\n  auth:\n    resource: {RESOURCE}\n    issuers:\n      - issuer: {issuer}\n    scopes: [tools:call]\ndependencies:\n  ledger: {{ base_url: \"{api}\" }}\ntools:\n{tools}"
    )
}

async fn metadata(base: &str) -> Vec<Value> {
    let mut docs = Vec::new();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let r = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        // Caches may keep it for a minute, not an hour past a reload.
        assert_eq!(r.headers()["cache-control"], "public, max-age=60", "{path}");
        docs.push(r.json::<Value>().await.unwrap()["scopes_supported"].clone());
    }
    docs
}

async fn call(url: &str, token: &str, tool: &str) -> reqwest::Response {
    super::post_stateless_call(url, token, tool, json!({})).await
}

#[tokio::test]
async fn the_metadata_advertises_the_scopes_of_the_config_in_force_after_a_reload() {
    let (api, _) = upstream().await;
    let issuer = issuer_with(axum::Router::new()).await;
    let dir = temp_dir("tool-scopes-reload");
    let state = dir.join("state.db").display().to_string();
    let path = dir.join("toolgate.yaml");
    std::fs::write(
        &path,
        yaml(&state, &issuer.url, &api, "payments:write", None),
    )
    .unwrap();
    let config = toolgate_config::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&config.gateway.state).unwrap();
    let current = Current::new(Gateway::new(config, store).unwrap(), Some(path.clone()));
    current.start_background();
    let shutdown = Shutdown::new();
    let router = toolgate_server::server::router_serving(current.clone(), &shutdown, None);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{base}/mcp");
    tokio::spawn(toolgate_server::server::serve(
        listener,
        router,
        shutdown.stop.clone(),
    ));
    let before = json!(["tools:call", "payments:write"]);
    assert_eq!(metadata(&base).await, [before.clone(), before]);

    std::fs::write(
        &path,
        yaml(
            &state,
            &issuer.url,
            &api,
            "payments:approve",
            Some("refunds:write"),
        ),
    )
    .unwrap();
    let report = current.reload_by("test").await;
    assert!(report.accepted(), "{:?}", report.errors);

    let after = json!(["tools:call", "payments:approve", "refunds:write"]);
    assert_eq!(metadata(&base).await, [after.clone(), after]);
    // What the metadata says is what the calls need, and what the challenge names.
    let old = issuer.token_with_claims("alice", RESOURCE, "tools:call payments:write", json!({}));
    let r = call(&url, &old, "pay").await;
    assert_eq!(r.status(), 403);
    assert!(
        challenge(&r).contains("scope=\"tools:call payments:approve\""),
        "{}",
        challenge(&r)
    );
    let all = issuer.token_with_claims(
        "alice",
        RESOURCE,
        "tools:call payments:approve refunds:write",
        json!({}),
    );
    for tool in ["pay", "refund"] {
        assert_eq!(call(&url, &all, tool).await.status(), 200, "{tool}");
    }
    shutdown.stop.cancel();
}
