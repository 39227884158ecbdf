use std::sync::Arc;

use axum::Router;
use axum::routing::post;
use toolgate_config::Secret;
use toolgate_mcp_client::{ServerSpec, Transport};

use super::CallerSessions;
use crate::exchange::Exchanger;
use crate::metrics::Metrics;

/// A token endpoint that issues `for-<subject>` for any subject token.
async fn endpoint() -> url::Url {
    let app = Router::new().route(
        "/token",
        post(|body: String| async move {
            let subject = url::form_urlencoded::parse(body.as_bytes())
                .find(|(k, _)| k == "subject_token")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            axum::Json(serde_json::json!({
                "access_token": format!("for-{subject}"),
                "token_type": "Bearer",
                "expires_in": 300,
            }))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url::Url::parse(&url).unwrap()
}

async fn sessions(capacity: usize) -> CallerSessions {
    let http = crate::upstream::UpstreamClient::new()
        .unwrap()
        .http()
        .clone();
    let config = crate::exchange::tests::config(endpoint().await, "kb");
    let exchanger = Exchanger::new("kb", Arc::new(config), http.clone(), &Metrics::new());
    let spec = ServerSpec {
        name: "kb".into(),
        // Never reached: a session does no I/O before its first request.
        transport: Transport::Http {
            url: url::Url::parse("http://127.0.0.1:9/mcp").unwrap(),
            headers: vec![(
                http::header::AUTHORIZATION,
                http::HeaderValue::from_static("Bearer toolgate-own"),
            )],
        },
        max_message_bytes: 1 << 20,
        limits: toolgate_mcp_client::Limits::default(),
    };
    CallerSessions::with_capacity(spec, http, Arc::new(exchanger), capacity, Arc::default())
}

fn secret(s: &str) -> Secret {
    Secret(s.into())
}

#[tokio::test]
async fn a_caller_keeps_one_session_and_another_caller_gets_another() {
    let sessions = sessions(10).await;
    let a1 = sessions.caller(Some(&secret("alice"))).await.unwrap();
    let a2 = sessions.caller(Some(&secret("alice"))).await.unwrap();
    let b = sessions.caller(Some(&secret("bob"))).await.unwrap();
    assert!(Arc::ptr_eq(&a1.link, &a2.link));
    assert!(!Arc::ptr_eq(&a1.link, &b.link));
    assert_eq!(a1.token.0, "for-alice");
    assert_eq!(b.token.0, "for-bob");
    assert_eq!(sessions.open_sessions(), 2);
}

#[tokio::test]
async fn the_table_is_bounded_and_the_least_recently_used_session_goes() {
    let sessions = sessions(2).await;
    let a = sessions.caller(Some(&secret("alice"))).await.unwrap();
    sessions.caller(Some(&secret("bob"))).await.unwrap();
    // Alice used again: Bob's is now the least recently used.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    sessions.caller(Some(&secret("alice"))).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    sessions.caller(Some(&secret("carol"))).await.unwrap();
    assert_eq!(sessions.open_sessions(), 2);
    let again = sessions.caller(Some(&secret("alice"))).await.unwrap();
    assert!(
        Arc::ptr_eq(&a.link, &again.link),
        "alice's session was kept"
    );
    for n in 0..50 {
        sessions
            .caller(Some(&secret(&format!("caller-{n}"))))
            .await
            .unwrap();
    }
    assert_eq!(sessions.open_sessions(), 2);
}

#[tokio::test]
async fn a_caller_without_a_token_gets_no_session() {
    let sessions = sessions(10).await;
    let refused = sessions.caller(None).await.unwrap_err();
    assert_eq!(refused, crate::exchange::ExchangeError::NoToken);
    assert_eq!(sessions.open_sessions(), 0);
}
