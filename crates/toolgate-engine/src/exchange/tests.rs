//! The exchanger against token endpoints on loopback: what a call gets when the
//! authorization server fails, refuses, or is not there, and that a caller without a
//! token costs it nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use toolgate_config::{ACCESS_TOKEN_TYPE, ClientAuth, Secret, TokenExchange};
use toolgate_resilience::ErrorClass;

use super::{ExchangeError, Exchanger};
use crate::metrics::Metrics;

/// A token endpoint answering `status` and `body` to every request; how many it got.
async fn endpoint(status: u16, body: &'static str) -> (url::Url, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let app = Router::new().route(
        "/token",
        post(move || {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                (
                    StatusCode::from_u16(status).unwrap(),
                    [("content-type", "application/json")],
                    body,
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url::Url::parse(&url).unwrap(), hits)
}

/// An exchange for `audience` at `token_endpoint`, as client `toolgate`.
pub(crate) fn config(token_endpoint: url::Url, audience: &str) -> TokenExchange {
    TokenExchange {
        issuer: "https://login.example.com".into(),
        token_endpoint: Some(token_endpoint),
        audience: Some(audience.into()),
        resource: None,
        scope: None,
        requested_token_type: ACCESS_TOKEN_TYPE.into(),
        client_id: "toolgate".into(),
        client_secret: Secret("s3cret".into()),
        client_auth: ClientAuth::Basic,
    }
}

fn exchanger(token_endpoint: url::Url) -> Exchanger {
    let config = config(token_endpoint, "api");
    // The pooled client, as the gateway gives it (it installs the TLS provider too).
    let http = crate::upstream::UpstreamClient::new()
        .unwrap()
        .http()
        .clone();
    Exchanger::new("api", Arc::new(config), http, &Metrics::new())
}

#[tokio::test]
async fn a_caller_without_a_token_is_refused_without_asking_the_server() {
    let (url, hits) = endpoint(200, r#"{"access_token":"t","token_type":"Bearer"}"#).await;
    let e = exchanger(url).token(None).await.unwrap_err();
    assert_eq!(e, ExchangeError::NoToken);
    assert_eq!(e.class(), ErrorClass::Auth);
    assert!(!e.class().retryable(true));
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_refusal_is_auth_and_a_failing_or_absent_server_is_transient() {
    let subject = Secret("caller-token-abc".into());
    let (url, _) = endpoint(400, r#"{"error":"invalid_grant"}"#).await;
    let refused = exchanger(url).token(Some(&subject)).await.unwrap_err();
    assert_eq!(refused.class(), ErrorClass::Auth);
    let text = refused.message("my_profile", "api");
    assert!(
        text.contains("invalid_grant, HTTP 400") && text.contains("Do not retry"),
        "{text}"
    );

    let (url, _) = endpoint(503, "{}").await;
    let failing = exchanger(url).token(Some(&subject)).await.unwrap_err();
    assert_eq!(failing.class(), ErrorClass::ServerError);

    let (url, _) = endpoint(200, r#"{"access_token":"t","token_type":"N_A"}"#).await;
    let no_bearer = exchanger(url).token(Some(&subject)).await.unwrap_err();
    assert_eq!(no_bearer.class(), ErrorClass::ServerError);

    // Nothing listens on a port just released.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let url = url::Url::parse(&format!("http://{closed}/token")).unwrap();
    let absent = exchanger(url).token(Some(&subject)).await.unwrap_err();
    assert_eq!(absent.class(), ErrorClass::Connect);
    assert!(absent.class().retryable(false));
    for e in [&refused, &failing, &no_bearer, &absent] {
        assert!(!e.message("t", "api").contains("caller-token-abc"), "{e:?}");
    }
}
