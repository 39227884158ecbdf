//! Agents with identities, end to end: toolgate as an OAuth resource server in front of
//! a real upstream, with a test authorization server's JWKS on loopback and tokens this
//! test signs. The interop with a real authorization server and the official Python
//! SDK's client is `tests/identity/` (run by scripts/test).

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::routing::{any, get};
use axum::{Json, Router};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

use super::harness::{metric, serve_config, temp_dir};

/// Every request the upstream got: (path, headers as `name: value` lines).
pub(super) type Seen = Arc<Mutex<Vec<(String, String)>>>;

pub(super) async fn upstream() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/{*path}",
            any(|State(seen): State<Seen>, req: Request| async move {
                let headers = req
                    .headers()
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", v.to_str().unwrap_or("?")))
                    .collect::<Vec<_>>()
                    .join("\n");
                seen.lock()
                    .unwrap()
                    .push((req.uri().path().to_string(), headers));
                Json(json!({"ok": true}))
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

pub(super) struct Issuer {
    pub(super) url: String,
    key: EncodingKey,
}

/// An authorization server's RFC 8414 metadata and JWKS, with one ES256 key.
async fn issuer() -> Issuer {
    issuer_with(Router::new()).await
}

/// The same, serving `more` routes too (its token endpoint is `/token`).
pub(super) async fn issuer_with(more: Router) -> Issuer {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref().to_vec();
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let jwks = json!({"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
                               "x": b64(&point[1..33]), "y": b64(&point[33..65])}]});
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks"), "token_endpoint": format!("{url}/token")});
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { Json(metadata.clone()) }),
        )
        .route("/jwks", get(move || async move { Json(jwks.clone()) }))
        .merge(more);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Issuer {
        url,
        key: EncodingKey::from_ec_der(pkcs8.as_ref()),
    }
}

impl Issuer {
    pub(super) fn token(&self, sub: &str, aud: &str) -> String {
        self.token_with_scope(sub, aud, "tools:call")
    }

    fn token_with_scope(&self, sub: &str, aud: &str, scope: &str) -> String {
        self.token_with_claims(sub, aud, scope, json!({}))
    }

    /// A token with `extra` claims beside the usual ones.
    pub(super) fn token_with_claims(
        &self,
        sub: &str,
        aud: &str,
        scope: &str,
        extra: Value,
    ) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let mut claims = json!({"iss": self.url, "aud": aud, "sub": sub, "exp": now + 600,
                                "scope": scope});
        if let (Some(all), Value::Object(more)) = (claims.as_object_mut(), extra) {
            all.extend(more);
        }
        jsonwebtoken::encode(&header, &claims, &self.key).unwrap()
    }
}

/// A raw MCP client over one session, with a bearer token.
pub(super) struct Client {
    http: reqwest::Client,
    url: String,
    token: String,
    session: Option<String>,
}

impl Client {
    async fn post(&mut self, body: Value) -> reqwest::Response {
        let mut r = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(&self.token)
            .json(&body);
        if let Some(s) = &self.session {
            r = r.header("mcp-session-id", s);
        }
        r.send().await.unwrap()
    }

    pub(super) async fn start(url: &str, token: &str) -> Client {
        let mut c = Client {
            http: reqwest::Client::new(),
            url: url.into(),
            token: token.into(),
            session: None,
        };
        let r = c
            .post(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}))
            .await;
        assert_eq!(r.status(), 200);
        c.session = r
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        c.post(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        c
    }

    pub(super) async fn rpc(&mut self, method: &str, params: Value) -> Value {
        let r = self
            .post(json!({"jsonrpc":"2.0","id":2,"method":method,"params":params}))
            .await;
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }

    async fn tools(&mut self) -> Vec<String> {
        let v = self.rpc("tools/list", json!({})).await;
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }
}

const API_KEY: &str = "tg_test_key_for_the_nightly_job";
const ADMIN_KEY: &str = "tg_test_key_of_the_on_call_admin";

async fn gateway() -> (super::harness::Toolgate, Issuer, Seen, String) {
    let (upstream, seen) = upstream().await;
    let is = issuer().await;
    let dir = temp_dir("identity");
    // The resource is the URL clients use; the port is toolgate's, known once it
    // listens, so the test uses a fixed resource name and tokens minted for it.
    let resource = "https://tools.example.com/mcp";
    let yaml = format!(
        r#"
gateway:
  state: {state}
  auth:
    resource: {resource}
    issuers:
      - issuer: {issuer}
    scopes: [tools:call]
dependencies:
  repo_api: {{ base_url: "{upstream}" }}
tools:
  web_search:
    dependency: repo_api
    owner: a@example.com
    request: {{ path: /search }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  delete_repo:
    dependency: repo_api
    owner: a@example.com
    request: {{ method: DELETE, path: /repo }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
agents:
  reporting-bot:
    match: {{ sub: reporting-bot }}
    tools: [web_search]
  nightly:
    api_key_sha256: {key}
    deny: [web_search]
  on-call:
    api_key_sha256: {admin_key}
    admin: true
"#,
        state = dir.join("state.db").display(),
        issuer = is.url,
        key = toolgate_auth::sha256_hex(API_KEY.as_bytes()),
        admin_key = toolgate_auth::sha256_hex(ADMIN_KEY.as_bytes()),
    );
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tg = serve_config(config).await;
    (tg, is, seen, resource.to_string())
}

#[tokio::test]
async fn a_bare_request_is_told_where_to_get_a_token() {
    let (tg, is, _, resource) = gateway().await;
    let http = reqwest::Client::new();
    let r = http
        .post(&tg.url)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        challenge,
        "Bearer resource_metadata=\"https://tools.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"tools:call\""
    );
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let doc: Value = http
            .get(format!("{}{path}", tg.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(doc["resource"], resource.as_str(), "{path}");
        assert_eq!(doc["authorization_servers"], json!([is.url]), "{path}");
        assert_eq!(doc["scopes_supported"], json!(["tools:call"]), "{path}");
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]), "{path}");
    }
    // Another path names a resource toolgate does not protect (RFC 9728 §3.1).
    for path in [
        "/.well-known/oauth-protected-resource/admin",
        "/.well-known/oauth-protected-resource/mcp/x",
    ] {
        let r = http.get(format!("{}{path}", tg.base)).send().await.unwrap();
        assert_eq!(r.status(), 404, "{path}");
    }
    // A token minted for another resource: refused, and the client is told why.
    let r = http
        .post(&tg.url)
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(is.token("reporting-bot", "https://other.example.com/mcp"))
        .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    // Admin endpoints are guarded by the same credentials.
    let r = http
        .get(format!("{}/admin/status", tg.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn an_agent_never_sees_nor_reaches_a_tool_it_may_not_call() {
    let (tg, is, seen, resource) = gateway().await;
    let token = is.token("reporting-bot", &resource);
    let mut bot = Client::start(&tg.url, &token).await;
    let tools = bot.tools().await;
    assert!(tools.contains(&"web_search".to_string()), "{tools:?}");
    assert!(!tools.contains(&"delete_repo".to_string()), "{tools:?}");

    let v = bot
        .rpc(
            "tools/call",
            json!({"name": "delete_repo", "arguments": {}}),
        )
        .await;
    // As unknown to it as a tool that does not exist: the answer names no tool kept
    // from it.
    assert_eq!(
        v["error"]["message"],
        "unknown tool `delete_repo`; available tools: web_search, dependency_health",
        "{v}"
    );
    assert!(
        seen.lock().unwrap().iter().all(|(path, _)| path != "/repo"),
        "the upstream got no request for the denied tool"
    );

    let v = bot
        .rpc("tools/call", json!({"name": "web_search", "arguments": {}}))
        .await;
    assert_eq!(v["result"]["isError"], false, "{v}");
    // The client's token never reaches the upstream.
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let (_, headers) = &requests[0];
    assert!(
        !headers.to_ascii_lowercase().contains("authorization"),
        "{headers}"
    );
    assert!(!headers.contains(&token), "{headers}");

    // The agent with an API key: denied web_search, so it sees delete_repo only.
    let mut nightly = Client::start(&tg.url, API_KEY).await;
    let tools = nightly.tools().await;
    assert!(tools.contains(&"delete_repo".to_string()), "{tools:?}");
    assert!(!tools.contains(&"web_search".to_string()), "{tools:?}");

    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_agent_calls_total{agent=\"reporting-bot\",outcome=\"forbidden\"}"
        ),
        1.0
    );
    assert_eq!(
        metric(
            &metrics,
            "toolgate_agent_calls_total{agent=\"reporting-bot\",outcome=\"ok\"}"
        ),
        1.0
    );
}

/// Every class of admin endpoint: reads (`/admin/status`, `/admin/incidents`,
/// `/admin/health`, `/admin/learned`), the one that changes the gateway (`POST
/// /admin/reload`), the audit trail, and the console.
const ADMIN_READS: [&str; 4] = [
    "/admin/status",
    "/admin/incidents",
    "/admin/health",
    "/admin/learned",
];

async fn admin_status(base: &str, method: &str, path: &str, bearer: Option<&str>) -> (u16, String) {
    let http = reqwest::Client::new();
    let mut r = match method {
        "POST" => http
            .post(format!("{base}{path}"))
            .header("sec-fetch-site", "same-origin"),
        _ => http.get(format!("{base}{path}")),
    };
    if let Some(b) = bearer {
        r = r.bearer_auth(b);
    }
    let resp = r.send().await.unwrap();
    let challenge = resp
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (resp.status().as_u16(), challenge)
}

#[tokio::test]
async fn admin_endpoints_admit_administrators_only_and_agents_read_their_own_audit() {
    let (tg, is, _, resource) = gateway().await;
    let bot = is.token("reporting-bot", &resource);
    let stranger = is.token("someone-else", &resource);
    // An administrator's token need not carry the /mcp scopes.
    let admin_token = is.token_with_scope("ops-lead", &resource, "toolgate:admin");
    let mut endpoints: Vec<(&str, &str)> = ADMIN_READS.iter().map(|p| ("GET", *p)).collect();
    endpoints.extend([
        ("POST", "/admin/reload"),
        ("GET", "/ui"),
        ("GET", "/ui/incidents"),
    ]);

    for (method, path) in &endpoints {
        let (status, _) = admin_status(&tg.base, method, path, None).await;
        assert_eq!(status, 401, "{method} {path} without credentials");
        for (who, credential) in [
            ("reporting-bot", bot.as_str()),
            ("anonymous", &stranger),
            ("nightly", API_KEY),
        ] {
            let (status, challenge) = admin_status(&tg.base, method, path, Some(credential)).await;
            assert_eq!(status, 403, "{method} {path} as {who}");
            if !path.starts_with("/ui") {
                assert!(
                    challenge.contains("error=\"insufficient_scope\"")
                        && challenge.contains("scope=\"toolgate:admin\""),
                    "{method} {path} as {who}: {challenge}"
                );
            }
        }
        for (who, credential) in [
            ("admin scope", admin_token.as_str()),
            ("admin agent", ADMIN_KEY),
        ] {
            let (status, _) = admin_status(&tg.base, method, path, Some(credential)).await;
            // A reload reads a config file this test never wrote: admitted, then 422.
            let admitted = if *path == "/admin/reload" { 422 } else { 200 };
            assert_eq!(status, admitted, "{method} {path} as {who}");
        }
    }

    // Calls by two agents, then the audit trail as each of them and as an admin.
    let mut c = Client::start(&tg.url, &bot).await;
    c.rpc("tools/call", json!({"name": "web_search", "arguments": {}}))
        .await;
    let mut n = Client::start(&tg.url, API_KEY).await;
    n.rpc(
        "tools/call",
        json!({"name": "delete_repo", "arguments": {}}),
    )
    .await;
    // Written off the call path: wait until the admin sees both calls' records (the
    // trail also holds the admin requests above, so counting lines is not enough).
    for _ in 0..500 {
        let r = reqwest::Client::new()
            .get(format!("{}/admin/audit", tg.base))
            .bearer_auth(ADMIN_KEY)
            .send()
            .await
            .unwrap();
        let body = r.text().await.unwrap();
        let seen = |agent: &str, tool: &str| {
            body.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|v| v["agent"] == agent && v["tool"] == tool)
        };
        if seen("reporting-bot", "web_search") && seen("nightly", "delete_repo") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let agents = |credential: &str| {
        let url = format!("{}/admin/audit?agent=nightly&limit=100", tg.base);
        let credential = credential.to_string();
        async move {
            let r = reqwest::Client::new()
                .get(url)
                .bearer_auth(credential)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            let body = r.text().await.unwrap();
            let mut names: Vec<String> = body
                .lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l).unwrap()["agent"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect();
            names.sort();
            names.dedup();
            names
        }
    };
    // The bot asked for nightly's records and got its own; nightly gets its own.
    assert_eq!(agents(&bot).await, ["reporting-bot"]);
    assert_eq!(agents(API_KEY).await, ["nightly"]);
    assert_eq!(
        agents(&admin_token).await,
        ["nightly"],
        "an admin's filter is applied as asked"
    );
    let (status, challenge) = admin_status(&tg.base, "GET", "/admin/audit", Some(&stranger)).await;
    assert_eq!(
        status, 403,
        "a caller that is no agent reads no audit records: {challenge}"
    );
    let (status, _) = admin_status(&tg.base, "GET", "/admin/audit", None).await;
    assert_eq!(status, 401);
}
