//! Two agents, two access tokens, one gateway: what one agent can learn about, or do
//! to, the other's work through the protocol and the gateway's shared state. Alice may
//! call the billing tools and `audit_search`; Bob may call `web_search` and
//! `slow_search`. Both sign in with tokens of the same issuer.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::response::IntoResponse;
use axum::routing::any;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::harness::{Toolgate, metric, serve_config, temp_dir};
use super::identity::{Issuer, issuer_with};

const RESOURCE: &str = "https://tools.example.com/mcp";
const ADMIN_KEY: &str = "tg_isolation_test_admin_key";

/// Every request the upstream got: its path and its `Cookie` header (empty: none).
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// An API that hands every caller a cookie, as session-keeping APIs do, and answers
/// `{"ok": true}`: after 1.5 s on `/slow`.
async fn upstream() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/{*path}",
            any(|State(seen): State<Seen>, req: Request| async move {
                let path = req.uri().path().to_string();
                let cookie = req
                    .headers()
                    .get("cookie")
                    .map(|v| v.to_str().unwrap_or("?").to_string())
                    .unwrap_or_default();
                seen.lock().unwrap().push((path.clone(), cookie));
                if path == "/slow" {
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                }
                (
                    [(
                        "set-cookie",
                        format!("sid=issued-on{}; Path=/", path.replace('/', "-")),
                    )],
                    Json(json!({"ok": true})),
                )
                    .into_response()
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

async fn gateway(name: &str) -> (Toolgate, Issuer, Seen) {
    let (upstream, seen) = upstream().await;
    let issuer = issuer_with(Router::new()).await;
    let dir = temp_dir(name);
    let tool = |dependency: &str, path: &str, schema: &str| {
        format!(
            "    dependency: {dependency}\n    owner: team@example.com\n    request: {{ path: {path} }}\n    annotations: {{ readOnlyHint: true }}\n    contract: {{ version: \"1.0\", response_schema: {schema} }}\n"
        )
    };
    let object = "{ type: object }";
    let yaml = format!(
        r#"
gateway:
  state: {state}
  auth:
    resource: {RESOURCE}
    issuers:
      - issuer: {issuer}
    scopes: [tools:call]
dependencies:
  billing_api: {{ base_url: "{upstream}" }}
  search_api: {{ base_url: "{upstream}" }}
tools:
  billing_refund:
{refund}  web_search:
{search}  slow_search:
{slow}  audit_search:
{audit}agents:
  alice:
    match: {{ sub: alice }}
    tools: ["billing_*", audit_search]
  bob:
    match: {{ sub: bob }}
    tools: [web_search, slow_search]
  on-call:
    api_key_sha256: {admin}
    admin: true
"#,
        state = dir.join("state.db").display(),
        issuer = issuer.url,
        refund = tool("billing_api", "/refund", object),
        search = tool("search_api", "/search", object),
        slow = tool("search_api", "/slow", object),
        // The upstream answers without `hits`: every call of it drifts.
        audit = tool("search_api", "/audit", "{ type: object, required: [hits] }"),
        admin = toolgate_auth::sha256_hex(ADMIN_KEY.as_bytes()),
    );
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (serve_config(config).await, issuer, seen)
}

/// One agent's MCP session.
struct Agent {
    http: reqwest::Client,
    url: String,
    token: String,
    session: String,
}

impl Agent {
    async fn start(tg: &Toolgate, token: String) -> Agent {
        let http = reqwest::Client::new();
        let r = http
            .post(&tg.url)
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(&token)
            .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let session = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let agent = Agent {
            http,
            url: tg.url.clone(),
            token,
            session,
        };
        agent
            .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())
            .await;
        agent
    }

    async fn send(&self, body: String) -> reqwest::Response {
        self.http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-session-id", &self.session)
            .bearer_auth(&self.token)
            .body(body)
            .send()
            .await
            .unwrap()
    }

    /// A request written as JSON text (numbers as written), and its answer.
    async fn raw(&self, body: String) -> Value {
        let r = self.send(body).await;
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }

    async fn call(&self, id: u64, tool: &str, arguments: Value) -> Value {
        let body = json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":arguments}});
        self.raw(body.to_string()).await
    }
}

/// `/admin/health` as the on-call administrator reads it.
async fn admin_health(tg: &Toolgate) -> Value {
    reqwest::Client::new()
        .get(format!("{}/admin/health", tg.base))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn dependency_health_tells_an_agent_of_the_tools_it_may_call_only() {
    let (tg, issuer, _) = gateway("isolation-health").await;
    let alice = Agent::start(&tg, issuer.token("alice", RESOURCE)).await;
    let bob = Agent::start(&tg, issuer.token("bob", RESOURCE)).await;

    // Alice's call drifts and opens an incident on her tool of the shared dependency.
    let v = alice.call(2, "audit_search", json!({})).await;
    assert_eq!(v["result"]["isError"], true, "{v}");
    let mut incident_seen = false;
    for _ in 0..250 {
        let health = admin_health(&tg).await;
        let open = &health["dependencies"]["search_api"]["open_incidents"];
        if open.as_array().is_some_and(|o| !o.is_empty()) {
            assert_eq!(open[0]["tool"], "audit_search", "{health}");
            incident_seen = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(incident_seen, "the administrator sees the incident");

    // Bob: the dependency of his tools, his tools, and nothing of Alice's.
    let v = bob.call(3, "dependency_health", json!({})).await;
    let report = &v["result"]["structuredContent"]["dependencies"];
    let names: Vec<&String> = report.as_object().unwrap().keys().collect();
    assert_eq!(names, ["search_api"], "{v}");
    assert_eq!(
        report["search_api"]["tools"],
        json!(["slow_search", "web_search"])
    );
    assert_eq!(report["search_api"]["open_incidents"], json!([]), "{v}");
    let text = v.to_string();
    for hidden in ["audit_search", "billing"] {
        assert!(!text.contains(hidden), "{hidden} shown to bob: {text}");
    }
    // Named, a dependency of none of his tools is unknown to him.
    let v = bob
        .call(4, "dependency_health", json!({"dependency": "billing_api"}))
        .await;
    assert_eq!(v["result"]["isError"], true, "{v}");
    let said = v["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        said,
        "dependency_health: unknown dependency `billing_api`; known: search_api. Error class: client_error."
    );

    // Alice: both dependencies, her tools, and her incident.
    let v = alice.call(5, "dependency_health", json!({})).await;
    let report = &v["result"]["structuredContent"]["dependencies"];
    assert_eq!(report["billing_api"]["tools"], json!(["billing_refund"]));
    assert_eq!(report["search_api"]["tools"], json!(["audit_search"]));
    assert_eq!(
        report["search_api"]["open_incidents"][0]["tool"], "audit_search",
        "{v}"
    );
    assert!(!v.to_string().contains("web_search"), "{v}");

    // The administrator's report is whole.
    let health = admin_health(&tg).await;
    assert_eq!(
        health["dependencies"]["search_api"]["tools"],
        json!(["audit_search", "slow_search", "web_search"])
    );
}

#[tokio::test]
async fn a_tool_kept_from_an_agent_is_as_unknown_to_it_as_one_that_does_not_exist() {
    let (tg, issuer, seen) = gateway("isolation-unknown").await;
    let bob = Agent::start(&tg, issuer.token("bob", RESOURCE)).await;
    let absent = bob.call(2, "no_such_tool", json!({})).await;
    // The whole answer, but for the name: same code, same words, same members.
    let expected = |name: &str| {
        let mut answer = absent.clone();
        answer["id"] = json!(3);
        answer["error"]["message"] = json!(
            absent["error"]["message"]
                .as_str()
                .unwrap()
                .replace("no_such_tool", name)
        );
        answer
    };
    assert_eq!(
        absent["error"]["message"],
        "unknown tool `no_such_tool`; available tools: slow_search, web_search, dependency_health"
    );
    for hidden in ["billing_refund", "audit_search"] {
        let v = bob.call(3, hidden, json!({})).await;
        assert_eq!(v, expected(hidden), "{hidden}");
        // Arguments toolgate would refuse before sending make no difference either.
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"{hidden}","arguments":{{"n":123456789012345678901234567890}}}}}}"#
        );
        assert_eq!(bob.raw(body).await, expected(hidden), "{hidden}");
    }
    let requests = seen.lock().unwrap().clone();
    assert!(requests.is_empty(), "nothing was sent: {requests:?}");
    // The operators still see what was refused, and for whom.
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_agent_calls_total{agent=\"bob\",outcome=\"forbidden\"}"
        ),
        4.0
    );
}

#[tokio::test]
async fn one_agents_cancellation_never_stops_anothers_call() {
    let (tg, issuer, _) = gateway("isolation-cancel").await;
    let alice = Agent::start(&tg, issuer.token("alice", RESOURCE)).await;
    let bob = Arc::new(Agent::start(&tg, issuer.token("bob", RESOURCE)).await);
    let running = {
        let bob = bob.clone();
        tokio::spawn(async move { bob.call(7, "slow_search", json!({})).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Alice names Bob's request id on her own session.
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
    assert_eq!(alice.send(cancel.into()).await.status(), 202);
    let v = running.await.unwrap();
    assert_eq!(
        v["result"]["isError"], false,
        "bob's call ran to its end: {v}"
    );

    // The same notification on Bob's own session does stop his call.
    let running = {
        let bob = bob.clone();
        tokio::spawn(async move { bob.call(7, "slow_search", json!({})).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(bob.send(cancel.into()).await.status(), 202);
    let v = running.await.unwrap();
    assert_eq!(v["error"]["message"], "Request cancelled", "{v}");
}

/// One request to `/mcp` with `token` and the session id `sid`: its status, the
/// session id it answers with (if any) and its body.
async fn as_holder_of(
    tg: &Toolgate,
    method: reqwest::Method,
    token: &str,
    sid: &str,
    body: Option<&str>,
) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .request(method, &tg.url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", sid)
        .bearer_auth(token);
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_owned());
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let session = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, session, r.text().await.unwrap())
}

/// Guards `Sessions::resume` and `Sessions::close` (`mcp/http/session.rs`), which find a
/// session by its id and its owner (`mcp/http/owner.rs`) together: Bob presenting
/// Alice's session id with his own token gets, for every method, word for word what a
/// session id never issued gets — so he learns neither that it exists nor anything
/// held in it — and nothing he sends with it reaches her session or the upstream.
#[tokio::test]
async fn another_agents_session_id_is_answered_as_one_never_issued() {
    let (tg, issuer, seen) = gateway("isolation-session-id").await;
    let alice = Agent::start(&tg, issuer.token("alice", RESOURCE)).await;
    let bob = issuer.token("bob", RESOURCE);
    let never_issued = format!("{}x", &alice.session[..alice.session.len() - 1]);
    let post = reqwest::Method::POST;
    let attempts: [(reqwest::Method, Option<&str>); 6] = [
        (
            post.clone(),
            Some(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#),
        ),
        (
            post.clone(),
            Some(
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"audit_search","arguments":{}}}"#,
            ),
        ),
        (
            post.clone(),
            Some(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
            ),
        ),
        (post, Some(r#"{"jsonrpc":"2.0","id":"tg-1","result":{}}"#)),
        (reqwest::Method::GET, None),
        (reqwest::Method::DELETE, None),
    ];
    for (method, body) in attempts {
        let hers = as_holder_of(&tg, method.clone(), &bob, &alice.session, body).await;
        let nobodys = as_holder_of(&tg, method.clone(), &bob, &never_issued, body).await;
        assert_eq!(hers, nobodys, "{method} {body:?}");
        assert_eq!(hers.0, 404, "{method} {body:?}: {hers:?}");
        assert_eq!(hers.1, None, "no session id is handed out");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing was sent upstream: {:?}",
        seen.lock().unwrap()
    );
    // Her session was neither ended nor used: her own call in it is served.
    let v = alice.call(4, "billing_refund", json!({})).await;
    assert_eq!(v["result"]["isError"], false, "{v}");
    assert_eq!(
        *seen.lock().unwrap(),
        [("/refund".to_owned(), String::new())]
    );
}

#[tokio::test]
async fn a_cookie_an_upstream_sets_for_one_agent_is_never_sent_for_another() {
    let (tg, issuer, seen) = gateway("isolation-cookies").await;
    let alice = Agent::start(&tg, issuer.token("alice", RESOURCE)).await;
    let bob = Agent::start(&tg, issuer.token("bob", RESOURCE)).await;
    // The same upstream host behind both dependencies, which both agents call in turn.
    for id in 2..5 {
        alice.call(id, "billing_refund", json!({})).await;
        bob.call(id, "web_search", json!({})).await;
    }
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 6, "{requests:?}");
    assert!(
        requests.iter().all(|(_, cookie)| cookie.is_empty()),
        "{requests:?}"
    );
}

/// Two fronted MCP servers, each with a prompt and a resource template; Alice may call
/// the tools of `memory`, Bob those of `notes`.
async fn fronting_gateway() -> (Toolgate, Issuer) {
    use super::fronting::start_fixture;
    let issuer = issuer_with(Router::new()).await;
    let dir = temp_dir("isolation-fronted");
    let mut servers = String::new();
    for name in ["memory", "notes"] {
        let (url, fixture) = start_fixture().await;
        fixture.prompts.lock().unwrap().push(json!({
            "name": "summarise", "description": format!("Summarise the {name}.")
        }));
        fixture.templates.lock().unwrap().push(json!({
            "uriTemplate": format!("{name}://{{id}}"), "name": format!("{name} entry")
        }));
        servers.push_str(&format!(
            "  {name}:\n    url: {url}\n    owner: {name}-owners@example.com\n    lock: {}\n",
            dir.join("toolgate.lock.json").display()
        ));
    }
    let yaml = format!(
        r#"
gateway:
  state: {state}
  auth:
    resource: {RESOURCE}
    issuers:
      - issuer: {issuer}
    scopes: [tools:call]
mcp_servers:
{servers}agents:
  alice:
    match: {{ sub: alice }}
    tools: ["memory__*"]
  bob:
    match: {{ sub: bob }}
    tools: ["notes__*"]
"#,
        state = dir.join("state.db").display(),
        issuer = issuer.url,
    );
    let config = super::fronting::config(&yaml);
    let pinned = toolgate_engine::fronting::lock::Options::default();
    toolgate_engine::fronting::lock::lock(&config, &pinned)
        .await
        .unwrap();
    (serve_config(config).await, issuer)
}

/// The `key` of every entry of `list`, sorted.
fn listed(answer: &Value, list: &str, key: &str) -> Vec<String> {
    let mut names: Vec<String> = answer["result"][list]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|e| e[key].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_fronted_servers_prompts_and_resources_reach_only_agents_that_may_use_it() {
    let (tg, issuer) = fronting_gateway().await;
    let alice = Agent::start(&tg, issuer.token("alice", RESOURCE)).await;
    let bob = Agent::start(&tg, issuer.token("bob", RESOURCE)).await;
    let request = |method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}).to_string()
    };
    for (agent, own, other) in [(&alice, "memory", "notes"), (&bob, "notes", "memory")] {
        let prompts = agent.raw(request("prompts/list", json!({}))).await;
        assert_eq!(
            listed(&prompts, "prompts", "name"),
            [format!("{own}__summarise")]
        );
        let templates = agent
            .raw(request("resources/templates/list", json!({})))
            .await;
        assert_eq!(
            listed(&templates, "resourceTemplates", "uriTemplate"),
            [format!("{own}://{{id}}")]
        );
        // The other server's prompt is as unknown as one that does not exist, to get
        // and to complete.
        let absent = agent
            .raw(request("prompts/get", json!({"name": "nobody__summarise"})))
            .await;
        let hidden = agent
            .raw(request(
                "prompts/get",
                json!({"name": format!("{other}__summarise")}),
            ))
            .await;
        assert_eq!(absent["error"]["code"], hidden["error"]["code"], "{hidden}");
        assert_eq!(
            hidden["error"]["message"],
            format!("unknown prompt `{other}__summarise`")
        );
        let completion = agent
            .raw(request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": format!("{other}__summarise")},
                       "argument": {"name": "topic", "value": "a"}}),
            ))
            .await;
        assert_eq!(
            completion["error"]["message"],
            format!("unknown prompt `{other}__summarise`"),
            "{completion}"
        );
        // A resource under the other server's template is nobody's to this agent.
        let read = agent
            .raw(request(
                "resources/read",
                json!({"uri": format!("{other}://1")}),
            ))
            .await;
        assert_eq!(read["error"]["code"], -32002, "{read}");
        assert!(
            !read.to_string().contains(&format!("{other} entry")),
            "{read}"
        );
    }
}
