//! A dependency called with each caller's own authority (`token_exchange`) counts each
//! user's quota on the user's own token: one user's used-up window must neither hold
//! another user's calls back nor be told to them, and each is told whose budget the
//! quota it reads is.

use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::any;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::harness::{serve_config, temp_dir};
use super::identity::Client;
use super::token_exchange::{
    RESOURCE, authorization_server, gateway_section, with_exchange_secret,
};

/// The exchanged token of each request the upstream got.
type Seen = Arc<Mutex<Vec<String>>>;

/// An API that counts each user's calls on the user's token: the first token exchanged
/// (`exchanged-1-…`) has used its window up (429, back in an hour); any other has 3 of
/// 100 requests left.
async fn per_user_quota_api() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/{*path}",
            any(|State(seen): State<Seen>, req: Request| async move {
                let token = req
                    .headers()
                    .get("authorization")
                    .map(|v| v.to_str().unwrap_or("?").to_string())
                    .unwrap_or_default();
                seen.lock().unwrap().push(token.clone());
                if token.starts_with("Bearer exchanged-1-") {
                    (
                        StatusCode::TOO_MANY_REQUESTS,
                        [
                            ("retry-after", "3600"),
                            ("ratelimit-limit", "100"),
                            ("ratelimit-remaining", "0"),
                            ("ratelimit-reset", "3600"),
                        ],
                        Json(json!({"error": "rate limit exceeded for this user"})),
                    )
                        .into_response()
                } else {
                    (
                        StatusCode::OK,
                        [
                            ("retry-after", "0"),
                            ("ratelimit-limit", "100"),
                            ("ratelimit-remaining", "3"),
                            ("ratelimit-reset", "3600"),
                        ],
                        Json(json!({"ok": true})),
                    )
                        .into_response()
                }
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

fn texts(reply: &Value) -> String {
    reply["result"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn one_users_used_up_quota_neither_holds_back_nor_is_told_to_another_user() {
    let (upstream_url, seen) = per_user_quota_api().await;
    let (_te, is) = authorization_server().await;
    let dir = temp_dir("token-exchange-quota");
    let yaml = format!(
        r#"
{gateway}dependencies:
  user_api:
    base_url: "{upstream_url}"
    token_exchange:
      issuer: {issuer}
      audience: user-api
      client_id: toolgate
      client_secret_env: TG_EXCHANGE_SECRET
tools:
  my_profile:
    dependency: user_api
    owner: a@example.com
    request: {{ path: /me }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
agents:
  people:
    match: {{ issuer: {issuer} }}
"#,
        gateway = gateway_section(&dir, &is.url),
        issuer = is.url,
    );
    let tg = serve_config(with_exchange_secret(&yaml)).await;
    let call = json!({"name": "my_profile", "arguments": {}});

    // Alice's own window is used up: her call is told so, with her wait.
    let mut alice = Client::start(&tg.url, &is.token("alice", RESOURCE)).await;
    let reply = alice.rpc("tools/call", call.clone()).await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(texts(&reply).contains("rate_limited"), "{reply}");

    // Bob's call goes at once, on his own token, and he is told his own quota only.
    let mut bob = Client::start(&tg.url, &is.token("bob", RESOURCE)).await;
    let reply = bob.rpc("tools/call", call.clone()).await;
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let said = texts(&reply);
    assert!(
        said.contains("Quota for user_api: 3 of 100 requests left")
            && said.contains("the signed-in user's own, not shared with other callers"),
        "{said}"
    );
    assert!(!said.contains("0 of 100"), "{said}");
    assert_eq!(
        reply["result"]["_meta"]["dev.toolgate/signals"]["quota"]["remaining"], 3,
        "{reply}"
    );
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(seen[1].starts_with("Bearer exchanged-2-"), "{seen:?}");
    }

    // Neither reads the other's window in the dependency's report.
    let health = alice
        .rpc(
            "tools/call",
            json!({"name": "dependency_health", "arguments": {"dependency": "user_api"}}),
        )
        .await;
    let report = &health["result"]["structuredContent"]["dependencies"]["user_api"];
    assert_eq!(report["quota"], json!([]), "{health}");
    assert_eq!(report["quota_owner"], "each_caller", "{health}");
    assert!(report["throttled"].is_null(), "{health}");
}
