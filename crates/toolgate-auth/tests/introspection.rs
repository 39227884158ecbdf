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

/// Opaque token formats of real authorization servers, each sent only to its issuer:
/// GitHub's OAuth and App user tokens (`gho_`, `ghu_`: github.blog changelog
/// 2021-03-31, "Authentication token format updates"), Ory Hydra 2.x access tokens
/// (`ory_at_`), Slack user and bot tokens (`xoxp-`, `xoxb-`, api.slack.com
/// "Token types") and GitLab personal access tokens (`glpat-`).
const FORMATS: [(&str, &str); 6] = [
    ("gho_16C7e42F292c6912E7710c838347Ae178B4a", "github"),
    ("ghu_1B4a2e77838347a7E420ce178F2E7c6912E169", "github"),
    (
        "ory_at_x3Vx8i1Ol8Kq0mQ9bCk7xv2Tq0Z0p1W5nA8vY3rQe4s.Ab1",
        "ory",
    ),
    (
        "xoxp-1234567890-1234567890123-12345678901234567890",
        "slack",
    ),
    (
        "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
        "slack",
    ),
    ("glpat-xxxxxxxxxxxxxxxxxxxx", "gitlab"),
];

fn several(issuers: &[(&str, &str)], max_lookups: u32) -> Authenticator {
    let mut yaml = format!("gateway:\n  auth:\n    resource: {RESOURCE}\n    issuers:\n");
    for (iss, prefixes) in issuers {
        yaml += &format!(
            "      - issuer: {iss}\n        introspection: {{ client_id: toolgate, client_secret_env: SECRET, token_prefixes: {prefixes}, max_lookups_per_second: {max_lookups} }}\n"
        );
    }
    yaml += &format!("    scopes: [tools:call]\n{ONE_TOOL}");
    let env = |name: &str| (name == "SECRET").then(|| "s3cret".to_string());
    let config = common::config(&yaml, &env);
    Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new())
}

fn asked(endpoint: &Endpoint) -> Vec<String> {
    endpoint
        .asked
        .lock()
        .unwrap()
        .iter()
        .map(|(t, _)| t.clone())
        .collect()
}

#[tokio::test]
async fn an_opaque_token_goes_only_to_the_issuer_whose_prefix_it_has() {
    let exp = in_an_hour();
    let active = |t: &str| {
        (
            t.to_string(),
            json!({"active": true, "aud": RESOURCE, "client_id": "nightly-client",
                   "scope": "tools:call", "exp": exp}),
        )
    };
    let mut servers = HashMap::new();
    for name in ["github", "ory", "slack"] {
        let answers = FORMATS
            .iter()
            .filter(|(_, n)| *n == name)
            .map(|(t, _)| active(t))
            .collect();
        servers.insert(name, issuer(answers).await);
    }
    let auth = several(
        &[
            (&servers["github"].0, "[gho_, ghu_]"),
            (&servers["ory"].0, "[ory_at_]"),
            (&servers["slack"].0, "[xoxp-, xoxb-]"),
        ],
        20,
    );
    for (token, issuer_name) in FORMATS {
        let got = auth
            .authenticate(Some(format!("Bearer {token}").as_str()))
            .await;
        if token.starts_with("glpat-") {
            // No issuer claims it: refused, and no issuer is asked.
            assert_eq!(
                got.unwrap_err(),
                Refusal::Invalid("the token belongs to no issuer toolgate introspects")
            );
        } else {
            let owner = &servers[issuer_name].0;
            assert_eq!(
                got.unwrap().issuer.as_deref(),
                Some(owner.as_str()),
                "{token}"
            );
        }
    }
    for (name, (_, endpoint)) in &servers {
        let own: Vec<String> = FORMATS
            .iter()
            .filter(|(_, n)| n == name)
            .map(|(t, _)| t.to_string())
            .collect();
        assert_eq!(asked(endpoint), own, "{name} saw another issuer's tokens");
    }
}

#[tokio::test]
async fn the_issuer_without_prefixes_gets_only_the_tokens_no_other_claims() {
    let exp = in_an_hour();
    let answer = json!({"active": true, "aud": RESOURCE, "client_id": "nightly-client",
                        "scope": "tools:call", "exp": exp});
    let (github, github_asked) =
        issuer(HashMap::from([("gho_abc".to_string(), answer.clone())])).await;
    let (keycloak, keycloak_asked) = issuer(HashMap::from([("a1b2c3".to_string(), answer)])).await;
    let auth = several(&[(&github, "[gho_]"), (&keycloak, "[]")], 20);
    let from = |id: toolgate_auth::Identity| id.issuer.unwrap_or_default();
    assert_eq!(
        from(auth.authenticate(Some("Bearer gho_abc")).await.unwrap()),
        github
    );
    assert_eq!(
        from(auth.authenticate(Some("Bearer a1b2c3")).await.unwrap()),
        keycloak
    );
    assert_eq!(asked(&github_asked), ["gho_abc"]);
    assert_eq!(asked(&keycloak_asked), ["a1b2c3"]);
}

#[tokio::test]
async fn made_up_tokens_past_the_lookup_bound_are_refused_without_asking() {
    let exp = in_an_hour();
    let answers = HashMap::from([(
        "good".to_string(),
        json!({"active": true, "aud": RESOURCE, "client_id": "nightly-client",
               "scope": "tools:call", "exp": exp}),
    )]);
    let (url, endpoint) = issuer(answers).await;
    let auth = several(&[(&url, "[]")], 1);
    assert!(auth.authenticate(Some("Bearer good")).await.is_ok());
    let mut throttled = 0;
    for i in 0..50 {
        let token = format!("Bearer made-up-{i}");
        let refused = auth.authenticate(Some(token.as_str())).await.unwrap_err();
        throttled += usize::from(
            refused == Refusal::Invalid("too many unknown tokens are being checked; retry shortly"),
        );
        // The cached answer for a real token never waits on the bound.
        assert!(auth.authenticate(Some("Bearer good")).await.is_ok());
    }
    // One request a second: the issuer hears of a handful of the 50, not all of them
    // (each further one needs a full second to pass while this loop runs).
    let sent = asked(&endpoint);
    assert_eq!(sent[0], "good");
    assert_eq!(sent.len() - 1 + throttled, 50);
    assert!(
        throttled >= 40,
        "{} made-up tokens reached the issuer",
        sent.len() - 1
    );
}
