//! Shared parts of the end-to-end tests: a real loopback upstream whose behaviour the
//! test switches, toolgate itself on a loopback port, and real MCP clients.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use toolgate_engine::gateway::Gateway;
use toolgate_store::Store;

/// A fake API on loopback; counts requests per path.
#[derive(Default)]
pub struct UpstreamState {
    /// Serve `excerpt` instead of `snippet`.
    pub renamed: AtomicBool,
    /// Requests per path.
    pub hits: Mutex<HashMap<String, u64>>,
    /// Calls of /flaky so far.
    pub flaky: AtomicU64,
}

impl UpstreamState {
    pub fn hits(&self, path: &str) -> u64 {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

pub struct Upstream {
    pub addr: SocketAddr,
    pub state: Arc<UpstreamState>,
}

pub async fn start_upstream() -> Upstream {
    let state = Arc::new(UpstreamState::default());
    let app = Router::new()
        .route("/v3/search", get(search))
        .route("/flaky", get(flaky))
        .route(
            "/html",
            get(|| async { (StatusCode::OK, "<html><body>Maintenance</body></html>") }),
        )
        .route("/huge", get(|| async { "x".repeat(9 << 20) }))
        .route(
            "/empty",
            axum::routing::delete(|| async { StatusCode::NO_CONTENT }),
        )
        .route("/array", get(|| async { Json(json!([1, 2, 3])) }))
        .route(
            "/bad",
            get(|| async {
                (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "limit must be at most 10"})),
                )
            }),
        )
        .layer(axum::middleware::from_fn_with_state(state.clone(), count))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Upstream { addr, state }
}

async fn count(
    State(state): State<Arc<UpstreamState>>,
    req: Request,
    next: axum::middleware::Next,
) -> Response {
    *state
        .hits
        .lock()
        .unwrap()
        .entry(req.uri().path().to_string())
        .or_default() += 1;
    next.run(req).await
}

pub fn search_body(renamed: bool) -> Value {
    let field = if renamed { "excerpt" } else { "snippet" };
    json!({
        "query": "rust",
        "results": [
            { "title": "The Rust Book", "url": "https://doc.rust-lang.org/book/", field: "Rust is fast", "score": 0.9 },
            { "title": "Rustonomicon", "url": "https://doc.rust-lang.org/nomicon/", field: "Unsafe Rust", "score": 0.5 }
        ]
    })
}

async fn search(State(state): State<Arc<UpstreamState>>) -> Json<Value> {
    Json(search_body(state.renamed.load(Ordering::SeqCst)))
}

async fn flaky(State(state): State<Arc<UpstreamState>>) -> Response {
    if state.flaky.fetch_add(1, Ordering::SeqCst) == 0 {
        (StatusCode::SERVICE_UNAVAILABLE, "try again").into_response()
    } else {
        Json(json!({ "status": "ok" })).into_response()
    }
}

/// The config used by the core tests, pointing at `upstream`.
pub fn core_config(upstream: SocketAddr, state: &Path) -> String {
    format!(
        r#"
gateway:
  state: {state}
dependencies:
  search_api:
    base_url: http://{upstream}
    timeout: 2s
    retry: {{ max_attempts: 3, base_delay: 10ms, max_delay: 50ms }}
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    description: Search the web.
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}" }} }}
    annotations: {{ readOnlyHint: true, idempotentHint: true }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          query: {{ type: string }}
          results:
            type: array
            items:
              type: object
              required: [title, url, snippet]
              properties:
                title: {{ type: string }}
                url: {{ type: string }}
                snippet: {{ type: string }}
                score: {{ type: number }}
  flaky_status:
    dependency: search_api
    owner: bob@example.com
    request: {{ path: /flaky }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [status] }} }}
  bad_request:
    dependency: search_api
    owner: bob@example.com
    request: {{ path: /bad }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"#,
        state = state.display()
    )
}

/// Tools over the upstream's odd endpoints (HTML, 9 MiB, an empty 204, a bare array),
/// to append to `core_config`.
pub const ODD_BODY_TOOLS: &str = r#"
  html_page:
    dependency: search_api
    owner: bob@example.com
    request: { path: /html }
    annotations: { readOnlyHint: true }
    contract: { version: "1.0", response_schema: { type: object } }
  huge:
    dependency: search_api
    owner: bob@example.com
    request: { path: /huge }
    annotations: { readOnlyHint: true }
    contract: { version: "1.0", response_schema: { type: object } }
  delete_thing:
    dependency: search_api
    owner: bob@example.com
    request: { method: DELETE, path: /empty }
    contract: { version: "1.0", response_schema: { type: "null" } }
  numbers:
    dependency: search_api
    owner: bob@example.com
    request: { path: /array }
    annotations: { readOnlyHint: true }
    contract: { version: "1.0", response_schema: { type: array, items: { type: integer } } }
"#;

/// A fresh directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolgate-e2e-{}-{}-{}",
        name,
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// toolgate serving on a loopback port.
pub struct Toolgate {
    pub url: String,
    pub base: String,
    pub gateway: Arc<Gateway>,
    shutdown: CancellationToken,
    _background: toolgate_engine::background::Background,
}

impl Drop for Toolgate {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

pub async fn start_toolgate(yaml: &str) -> Toolgate {
    let env = |_: &str| None;
    let config = toolgate_config::parse(Path::new("test.yaml"), yaml, Path::new("."), &env)
        .unwrap_or_else(|e| panic!("{e}"));
    serve_config(config).await
}

/// Serves an already compiled config on a loopback port, background work included.
pub async fn serve_config(config: toolgate_config::Config) -> Toolgate {
    let store = Store::open(&config.gateway.state).unwrap();
    let gateway = Gateway::new(config, store).unwrap();
    let shutdown = CancellationToken::new();
    let background = toolgate_engine::background::Background::start(&gateway);
    let router = toolgate_server::server::router(gateway.clone(), shutdown.clone(), None);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(toolgate_server::server::serve(
        listener,
        router,
        shutdown.clone(),
    ));
    Toolgate {
        url: format!("http://{addr}/mcp"),
        base: format!("http://{addr}"),
        gateway,
        shutdown,
        _background: background,
    }
}

impl Toolgate {
    /// Incidents as stored, once the incident writer has written what is queued.
    pub async fn incidents(&self, all: bool) -> Vec<toolgate_store::Incident> {
        assert!(
            self.gateway
                .incidents()
                .flush(Duration::from_secs(10))
                .await,
            "the incident writer did not catch up"
        );
        self.gateway.store().incidents(all).await.unwrap()
    }

    pub async fn metrics(&self) -> String {
        reqwest::get(format!("{}/metrics", self.base))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }
}

/// The protocol eras a client can speak.
#[derive(Debug, Clone, Copy)]
pub enum Era {
    /// `initialize` handshake, 2025-11-25, with sessions.
    Handshake,
    /// Stateless 2026-07-28 with `server/discover`.
    Stateless,
}

pub async fn rmcp_client(url: &str, era: Era) -> RunningService<RoleClient, ()> {
    // rmcp's reqwest client needs the TLS provider toolgate installs (a test that
    // spawns the binary has no gateway in this process to install it).
    toolgate_engine::tls::init();
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    let mode = match era {
        Era::Handshake => ClientLifecycleMode::Initialize,
        Era::Stateless => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    ().serve_with_lifecycle(transport, mode).await.unwrap()
}

pub async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = args.as_object().cloned();
    client.call_tool(params).await.unwrap()
}

/// All text content of a result, joined.
pub fn text(r: &CallToolResult) -> String {
    let v = serde_json::to_value(r).unwrap();
    v["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The value of the sample `series` (the name and the exact label set, as rendered, e.g.
/// `toolgate_brownout{dependency="api"}`).
///
/// Panics when there is no such sample, naming the samples that do exist: a renamed
/// metric or label must fail the test, not read as 0.
pub fn metric(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or_else(|| {
        panic!(
            "no metric sample {series}; {}\n{text}",
            what_exists(text, sample_name(series))
        )
    })
}

/// Asserts that the sample `series` does not exist (a labelled counter that was never
/// incremented is not rendered), while its metric family is exported: a renamed family
/// must fail this too, not pass as "no sample". A family with no series at all is not
/// rendered either, so ask once some other series of the family exists.
pub fn assert_no_series(text: &str, series: &str) {
    if let Some(v) = sample(text, series) {
        panic!("metric sample {series} exists with value {v}, expected none\n{text}");
    }
    let name = sample_name(series);
    let exported = text.lines().any(|l| {
        l.strip_prefix("# TYPE ")
            .and_then(|rest| rest.split(' ').next())
            .is_some_and(|family| family_of(name, family))
    });
    assert!(
        exported,
        "no metric family for {name}; {}\n{text}",
        what_exists(text, name)
    );
}

/// The value of the sample line `series value [timestamp]`, if there is one.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let rest = l.strip_prefix(series)?;
        // `foo{a="b"}` must not match `foo{a="b",c="d"}`, nor `foo` match `foo_total`.
        if !rest.starts_with(' ') {
            return None;
        }
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// The metric name of a series or a sample line: up to the labels or the value.
fn sample_name(series: &str) -> &str {
    series.split(['{', ' ']).next().unwrap_or(series)
}

/// Whether `sample` is a sample name of the metric family `family` (OpenMetrics adds
/// `_total` to counters, `_bucket`/`_sum`/`_count` to histograms, and so on).
fn family_of(sample: &str, family: &str) -> bool {
    sample.strip_prefix(family).is_some_and(|suffix| {
        [
            "", "_total", "_created", "_bucket", "_sum", "_count", "_info",
        ]
        .contains(&suffix)
    })
}

/// For a failure message: the series of the metric `name` if it has any, else every
/// sample name that exists.
fn what_exists(text: &str, name: &str) -> String {
    let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let same_name: Vec<&str> = samples
        .iter()
        .filter(|l| sample_name(l) == name)
        .map(|l| l.rsplit_once(' ').map_or(*l, |(series, _)| series))
        .collect();
    if !same_name.is_empty() {
        return format!("series of {name}: {same_name:?}");
    }
    let mut names: Vec<&str> = samples.iter().map(|l| sample_name(l)).collect();
    names.sort_unstable();
    names.dedup();
    format!("metrics that exist: {names:?}")
}

#[cfg(test)]
mod metric_tests {
    use super::*;

    const TEXT: &str = "# HELP toolgate_retries Retries.\n\
        # TYPE toolgate_retries counter\n\
        toolgate_retries_total{tool=\"a\",error_class=\"timeout\"} 3\n\
        # TYPE toolgate_brownout gauge\n\
        toolgate_brownout{dependency=\"api\"} 0\n\
        # EOF\n";

    #[test]
    fn metric_reads_the_exact_series() {
        assert_eq!(metric(TEXT, "toolgate_brownout{dependency=\"api\"}"), 0.0);
        assert_eq!(
            metric(
                TEXT,
                "toolgate_retries_total{tool=\"a\",error_class=\"timeout\"}"
            ),
            3.0
        );
    }

    #[test]
    #[should_panic(expected = "series of toolgate_retries_total")]
    fn metric_panics_on_a_missing_series_and_names_the_ones_that_exist() {
        metric(TEXT, "toolgate_retries_total{tool=\"a\"}");
    }

    #[test]
    #[should_panic(expected = "metrics that exist")]
    fn metric_panics_on_a_renamed_metric() {
        metric(TEXT, "toolgate_brownouts{dependency=\"api\"}");
    }

    #[test]
    fn no_series_passes_for_an_absent_label_set_of_an_exported_family() {
        assert_no_series(
            TEXT,
            "toolgate_retries_total{tool=\"b\",error_class=\"timeout\"}",
        );
    }

    #[test]
    #[should_panic(expected = "exists with value 3")]
    fn no_series_fails_when_the_series_exists() {
        assert_no_series(
            TEXT,
            "toolgate_retries_total{tool=\"a\",error_class=\"timeout\"}",
        );
    }

    #[test]
    #[should_panic(expected = "no metric family")]
    fn no_series_fails_when_the_family_is_not_exported() {
        assert_no_series(TEXT, "toolgate_retry_total{tool=\"a\"}");
    }
}
