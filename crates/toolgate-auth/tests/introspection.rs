//! Opaque access tokens against a test authorization server's token introspection
//! endpoint (RFC 7662), found through its metadata: toolgate authenticates as its own
//! client, accepts only an active token for this resource, and asks once per token
//! while the answer is cached — a bad token included.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::{Value, json};
mod common;

use common::ONE_TOOL;
use toolgate_auth::{Authenticator, Refusal};

const RESOURCE: &str = "https://tools.example.com/mcp";

/// The answers the endpoint gives, by token, and every request it got (the token,
/// and whether toolgate's client credentials came with it).
#[derive(Default)]
struct Endpoint {
    answers: HashMap<String, Value>,
    asked: Mutex<Vec<(String, bool)>>,
}

async fn introspect(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
    body: String,
) -> axum::Json<Value> {
    let token = url::form_urlencoded::parse(body.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    // "toolgate:s3cret" in base64.
    let authenticated = headers
        .get("authorization")
        .is_some_and(|v| v == "Basic dG9vbGdhdGU6czNjcmV0");
    endpoint
        .asked
        .lock()
        .unwrap()
        .push((token.clone(), authenticated));
    let answer = match endpoint.answers.get(&token) {
        Some(a) if authenticated => a.clone(),
        _ => json!({"active": false}),
    };
    axum::Json(answer)
}

async fn issuer(answers: HashMap<String, Value>) -> (String, Arc<Endpoint>) {
    let endpoint = Arc::new(Endpoint {
        answers,
        asked: Mutex::default(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let metadata = json!({"issuer": url, "introspection_endpoint": format!("{url}/introspect"),
                          "jwks_uri": format!("{url}/jwks")});
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { axum::Json(metadata.clone()) }),
        )
        .route("/introspect", post(introspect))
        .with_state(endpoint.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, endpoint)
}

fn authenticator(iss: &str) -> Authenticator {
    let yaml = format!(
        "gateway:\n  auth:\n    resource: {RESOURCE}\n    issuers:\n      - issuer: {iss}\n        introspection: {{ client_id: toolgate, client_secret_env: SECRET }}\n    scopes: [tools:call]\n\
         {ONE_TOOL}\
         agents:\n  nightly:\n    match: {{ client_id: nightly-client }}\n"
    );
    let env = |name: &str| (name == "SECRET").then(|| "s3cret".to_string());
    let config = common::config(&yaml, &env);
    Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new())
}

fn in_an_hour() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600
}

#[tokio::test]
async fn an_opaque_token_is_introspected_once_and_names_its_agent() {
    let exp = in_an_hour();
    let answers = HashMap::from([
        (
            "good".to_string(),
            json!({"active": true, "aud": [RESOURCE], "client_id": "nightly-client",
                   "scope": "tools:call", "exp": exp}),
        ),
        (
            "elsewhere".to_string(),
            json!({"active": true, "aud": "https://other.example.com/mcp",
                   "client_id": "nightly-client", "scope": "tools:call", "exp": exp}),
        ),
        (
            "unscoped".to_string(),
            json!({"active": true, "aud": RESOURCE, "client_id": "nightly-client",
                   "scope": "profile", "exp": exp}),
        ),
    ]);
    let (url, endpoint) = issuer(answers).await;
    let auth = authenticator(&url);

    for _ in 0..3 {
        let id = auth.authenticate(Some("Bearer good")).await.unwrap();
        assert_eq!(id.name(), "nightly");
    }
    for _ in 0..3 {
        let refused = auth.authenticate(Some("Bearer made-up")).await.unwrap_err();
        assert_eq!(
            refused,
            Refusal::Invalid("the issuer says the token is not active")
        );
    }
    assert_eq!(
        auth.authenticate(Some("Bearer elsewhere"))
            .await
            .unwrap_err(),
        Refusal::Invalid("the token is for another resource (aud)")
    );
    assert_eq!(
        auth.authenticate(Some("Bearer unscoped"))
            .await
            .unwrap_err(),
        Refusal::InsufficientScope
    );
    // One request per token, answered or refused, each with toolgate's credentials.
    let asked = endpoint.asked.lock().unwrap().clone();
    let tokens: Vec<&str> = asked.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tokens, ["good", "made-up", "elsewhere", "unscoped"]);
    assert!(asked.iter().all(|(_, authenticated)| *authenticated));
}
