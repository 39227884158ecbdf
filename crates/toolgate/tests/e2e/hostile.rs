//! Hostile arguments and hostile upstreams: a request toolgate cannot form never
//! reaches the upstream or opens the breaker, and an upstream that echoes what it was
//! sent never gets toolgate's secrets repeated to the model, `_meta` or the store.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::harness::*;

const TOKEN: &str = "tg-e2e-s3cr3t-0123456789abcdef";
const QUERY_KEY: &str = "qk-e2e-4f5e6d7c8b9a";

/// Echoes the request line and every request header: in a 500 (`/echo500`), in a
/// 200 that is not JSON (`/echo200`), and answers `/search` normally with a 20 KB
/// `Link` successor.
async fn echo_upstream() -> (std::net::SocketAddr, Arc<AtomicU64>) {
    let hits = Arc::new(AtomicU64::new(0));
    async fn echo(State(hits): State<Arc<AtomicU64>>, req: Request) -> Response {
        hits.fetch_add(1, Ordering::SeqCst);
        let mut text = format!("{} {}\n", req.method(), req.uri());
        for (k, v) in req.headers() {
            text.push_str(&format!("{k}: {}\n", String::from_utf8_lossy(v.as_bytes())));
        }
        if req.uri().path() == "/echojson" {
            // A debugging endpoint's JSON: the headers as data, in a successful answer.
            let headers: serde_json::Map<String, serde_json::Value> = req
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), json!(String::from_utf8_lossy(v.as_bytes()))))
                .collect();
            return axum::Json(json!({ "uri": req.uri().to_string(), "headers": headers }))
                .into_response();
        }
        let status = if req.uri().path() == "/echo500" {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::OK
        };
        (status, text).into_response()
    }
    async fn search(State(hits): State<Arc<AtomicU64>>) -> Response {
        hits.fetch_add(1, Ordering::SeqCst);
        let link = format!(
            "<https://example.com/{}>; rel=\"successor-version\"",
            "a".repeat(20_000)
        );
        (
            [("deprecation", "@1767225600".to_string()), ("link", link)],
            axum::Json(json!({ "results": [] })),
        )
            .into_response()
    }
    let app = Router::new()
        .route("/echo500", get(echo))
        .route("/echo200", get(echo))
        .route("/echojson", get(echo))
        .route("/search", get(search))
        .with_state(hits.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, hits)
}

async fn start(addr: std::net::SocketAddr, state: &Path) -> Toolgate {
    let yaml = format!(
        r#"
gateway:
  state: {state}
dependencies:
  api:
    base_url: "http://{addr}/?api_key={QUERY_KEY}"
    headers: {{ Authorization: "Bearer ${{E2E_TOKEN}}" }}
    retry: {{ max_attempts: 2, base_delay: 5ms, max_delay: 10ms }}
tools:
  echo_error:
    dependency: api
    owner: sec@example.com
    request: {{ path: /echo500 }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  echo_text:
    dependency: api
    owner: sec@example.com
    request: {{ path: /echo200 }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  echo_json:
    dependency: api
    owner: sec@example.com
    request: {{ path: /echojson }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  search:
    dependency: api
    owner: sec@example.com
    request: {{ path: /search, query: {{ q: "{{q}}" }} }}
    annotations: {{ readOnlyHint: true }}
    input_schema: {{ type: object, properties: {{ q: {{ type: string }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"#,
        state = state.display()
    );
    let env = |name: &str| (name == "E2E_TOKEN").then(|| TOKEN.to_string());
    let config = toolgate_config::parse(Path::new("test.yaml"), &yaml, Path::new("."), &env)
        .unwrap_or_else(|e| panic!("{e}"));
    serve_config(config).await
}

#[tokio::test]
async fn an_upstream_echoing_request_headers_never_gets_the_token_to_the_model_or_the_store() {
    let (addr, hits) = echo_upstream().await;
    let dir = temp_dir("hostile-echo");
    let tg = start(addr, &dir.join("s.db")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    let mut answers = Vec::new();
    for tool in ["echo_error", "echo_error", "echo_text"] {
        let r = call(&client, tool, json!({})).await;
        assert_eq!(r.is_error, Some(true));
        answers.push(serde_json::to_string(&r).unwrap());
    }
    // A successful JSON answer quoting the credentials is passed on, without them.
    let r = call(&client, "echo_json", json!({})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let echoed = serde_json::to_string(&r).unwrap();
    assert!(echoed.contains("[redacted]"), "{echoed}");
    answers.push(echoed);
    assert!(hits.load(Ordering::SeqCst) >= 3, "the upstream was called");
    // The echo reached toolgate (the excerpt shows the request line), scrubbed.
    assert!(answers[0].contains("[redacted]"), "{}", answers[0]);
    let incidents = tg.incidents(true).await;
    assert!(
        incidents.iter().any(|i| i.tool == "echo_text"),
        "the non-JSON reply opened a drift incident: {incidents:?}"
    );
    let stored = serde_json::to_string(
        &incidents
            .iter()
            .map(|i| {
                json!({
                    "title": i.title, "detail": i.detail
                })
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    for text in answers.iter().chain([&stored]) {
        assert!(!text.contains(TOKEN), "the token leaked: {text}");
        assert!(!text.contains(QUERY_KEY), "the query key leaked: {text}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_20_kb_link_successor_is_not_a_note() {
    let (addr, _) = echo_upstream().await;
    let dir = temp_dir("hostile-link");
    let tg = start(addr, &dir.join("s.db")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    let r = call(&client, "search", json!({ "q": "x" })).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let whole = serde_json::to_string(&r).unwrap();
    assert!(whole.len() < 10_000, "{} bytes", whole.len());
    assert!(text(&r).contains("is deprecated"), "{}", text(&r));
    assert!(!text(&r).contains("names a successor"), "{}", text(&r));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_argument_that_makes_the_url_too_long_is_a_client_error_and_opens_no_breaker() {
    let (addr, hits) = echo_upstream().await;
    let dir = temp_dir("hostile-url");
    let tg = start(addr, &dir.join("s.db")).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    let long = "x".repeat(64 << 10);
    for _ in 0..6 {
        let r = call(&client, "search", json!({ "q": long })).await;
        let t = text(&r);
        assert_eq!(r.is_error, Some(true));
        assert!(t.contains("client_error") && t.contains("8 KiB"), "{t}");
        let meta = serde_json::to_value(&r).unwrap();
        assert_eq!(
            meta["_meta"]["dev.toolgate/signals"]["attempts"], 0,
            "{meta}"
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing was sent");
    // Everyone else is still served: the breaker learned nothing.
    let r = call(&client, "search", json!({ "q": "short" })).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(&metrics, "toolgate_circuit_state{dependency=\"api\"}"),
        0.0
    );
    client.cancel().await.unwrap();
}
