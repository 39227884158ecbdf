//! Tokens a thief or a careless client could present, end to end through the listener:
//! a token in the URL, and a token its issuer bound to its client's key (`cnf`) replayed
//! as a bearer token. Neither reaches the upstream; the same token sent the ordinary way
//! does.

use serde_json::{Value, json};

use super::harness::{Toolgate, start_toolgate, temp_dir};
use super::identity::{Issuer, Seen, issuer_with, upstream};

const RESOURCE: &str = "https://tools.example.com/mcp";

async fn gateway(name: &str) -> (Toolgate, Issuer, Seen) {
    let (upstream, seen) = upstream().await;
    let issuer = issuer_with(axum::Router::new()).await;
    let dir = temp_dir(name);
    let yaml = format!(
        r#"
gateway:
  state: {state}
  auth:
    resource: {RESOURCE}
    issuers:
      - issuer: {iss}
    scopes: [tools:call]
    unmatched: refuse
dependencies:
  search_api: {{ base_url: "{upstream}" }}
tools:
  web_search:
    dependency: search_api
    owner: team@example.com
    request: {{ path: /search }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
agents:
  reporting-bot:
    match: {{ sub: reporting-bot }}
"#,
        state = dir.join("state.db").display(),
        iss = issuer.url,
    );
    (start_toolgate(&yaml).await, issuer, seen)
}

/// `initialize` at `url` with `token` in the header: the status, the challenge and the
/// body.
async fn initialize(url: &str, token: &str) -> (u16, String, String) {
    let r = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(token)
        .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let challenge = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    (status, challenge, r.text().await.unwrap_or_default())
}

#[tokio::test]
async fn a_token_in_the_url_is_refused_even_beside_a_valid_header() {
    let (tg, issuer, seen) = gateway("stolen-url").await;
    let token = issuer.token("reporting-bot", RESOURCE);
    for query in [
        format!("access_token={token}"),
        format!("x=1&access_token={token}"),
    ] {
        let (status, challenge, body) = initialize(&format!("{}?{query}", tg.url), &token).await;
        assert_eq!(status, 400, "{body}");
        assert!(
            challenge.contains("error=\"invalid_request\""),
            "{challenge}"
        );
        assert!(body.contains("Authorization header"), "{body}");
        assert!(!challenge.contains(&token) && !body.contains(&token));
    }
    // The same token the ordinary way is admitted.
    let (status, _, body) = initialize(&tg.url, &token).await;
    assert_eq!(status, 200, "{body}");
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_token_bound_to_its_clients_key_is_not_taken_as_a_bearer_token() {
    let (tg, issuer, seen) = gateway("stolen-cnf").await;
    // What Keycloak, Okta and Auth0 put in a DPoP-bound or certificate-bound token.
    for cnf in [
        json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}),
        json!({"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}),
    ] {
        let bound =
            issuer.token_with_claims("reporting-bot", RESOURCE, "tools:call", json!({"cnf": cnf}));
        let (status, challenge, body) = initialize(&tg.url, &bound).await;
        assert_eq!(status, 401, "{cnf}: {body}");
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        assert!(body.contains("bearer tokens only"), "{body}");
    }
    let bearer = issuer.token_with_claims("reporting-bot", RESOURCE, "tools:call", Value::Null);
    let (status, _, body) = initialize(&tg.url, &bearer).await;
    assert_eq!(status, 200, "{body}");
    assert!(seen.lock().unwrap().is_empty());
}
