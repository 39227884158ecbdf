//! `toolgate serve --demo`: a demo upstream on loopback and a config pointing at it.
//!
//! Each demo API is its own dependency, so an outage of one (and its open breaker)
//! does not hide the behaviour of the others.

mod upstream;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

pub use upstream::{DemoState, router};

/// Where the demo keeps its state, relative to the directory `serve --demo` runs in;
/// `incidents --demo` reads the same file.
pub const STATE_PATH: &str = ".toolgate/demo.db";

/// The demo's listen address unless `--listen` says otherwise.
pub const LISTEN: &str = "127.0.0.1:8765";

/// Starts the demo upstream on an ephemeral loopback port and compiles the demo
/// config for it. The returned router is the same upstream, to mount under `/demo`.
pub async fn start(
    listen: Option<SocketAddr>,
    shutdown: CancellationToken,
) -> anyhow::Result<(toolgate_config::Config, axum::Router)> {
    let state = Arc::new(DemoState::default());
    let router = router(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("starting the demo upstream")?;
    let upstream = listener.local_addr()?;
    tokio::spawn(toolgate_server::server::serve(
        listener,
        router.clone(),
        shutdown,
    ));
    let listen = listen.map_or_else(|| LISTEN.to_string(), |l| l.to_string());
    let config = compile(&format!("http://{upstream}"), &listen)?;
    Ok((config, router))
}

/// The demo config as `serve --demo` runs it by default, without starting anything:
/// what `incidents --demo` and `status --demo` need (the state path, the address).
pub fn offline_config() -> anyhow::Result<toolgate_config::Config> {
    // The upstream address is never contacted here; any loopback URL compiles.
    compile("http://127.0.0.1:9", LISTEN)
}

fn compile(base_url: &str, listen: &str) -> anyhow::Result<toolgate_config::Config> {
    let yaml = config_yaml(base_url, listen);
    let env = |_: &str| None;
    toolgate_config::parse(Path::new("demo.yaml"), &yaml, Path::new("."), &env)
        .map_err(|e| anyhow::anyhow!("the built-in demo config is invalid:\n{e}"))
}

/// The demo config, with the demo upstream at `base_url`.
pub fn config_yaml(base_url: &str, listen: &str) -> String {
    format!(
        r#"# The built-in demo (toolgate serve --demo).
gateway:
  listen: {listen}
  state: {STATE_PATH}
dependencies:
  search_api:
    base_url: {base_url}
    timeout: 5s
    retry: {{ max_attempts: 3, base_delay: 50ms, max_delay: 1s }}
    status_page: {{ url: "{base_url}/status.json", every: 5s }}
  quota_api:
    base_url: {base_url}/quota
    rate_limit_headers: github
  slow_api:
    base_url: {base_url}/slow
    timeout: 10s
  orders_api:
    base_url: {base_url}
  legacy_api:
    base_url: {base_url}/legacy
  demo_admin:
    base_url: {base_url}
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    description: Search the web. Returns results with a title, url and snippet.
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}", limit: "{{limit}}" }} }}
    annotations: {{ readOnlyHint: true, idempotentHint: true }}
    input_schema:
      type: object
      required: [query]
      properties:
        query: {{ type: string, description: What to search for. }}
        limit: {{ type: integer, minimum: 1, maximum: 10 }}
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          query: {{ type: string }}
          total: {{ type: integer }}
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
    probe: {{ every: 1m, arguments: {{ query: contract probe, limit: 1 }} }}
  flaky_status:
    dependency: search_api
    owner: platform@example.com
    description: Reports service status. The demo upstream fails every other call with 503, which toolgate retries.
    request: {{ method: GET, path: /flaky }}
    annotations: {{ readOnlyHint: true }}
    contract:
      version: "1.0"
      response_schema:
        type: object
        required: [status]
        properties: {{ status: {{ type: string }}, call: {{ type: integer }} }}
  list_items:
    dependency: quota_api
    owner: inventory@example.com
    description: Lists inventory items. The demo API allows 30 calls a minute and says so in GitHub-style headers.
    request: {{ path: /items }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [items] }} }}
  weekly_report:
    dependency: slow_api
    owner: analytics@example.com
    description: Builds the weekly report. Its latency can be raised with demo_control slow_ms.
    request: {{ path: /report }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [report] }} }}
  list_orders:
    dependency: orders_api
    owner: orders@example.com
    description: Lists recent orders. Switch an outage on with demo_control outage=true.
    request: {{ path: /orders }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [orders] }} }}
  legacy_search:
    dependency: legacy_api
    owner: search-team@example.com
    description: The old search endpoint. Its upstream sends Deprecation, Sunset and successor headers.
    request: {{ path: /search, query: {{ q: "{{query}}" }} }}
    annotations: {{ readOnlyHint: true }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    successor: web_search
    contract: {{ version: "2.0", response_schema: {{ type: object, required: [hits] }} }}
  demo_control:
    dependency: demo_admin
    owner: demo@example.com
    description: "Demo only: switch the demo upstream's behaviour. search_field=excerpt renames web_search's snippet (contract drift); slow_ms sets weekly_report's latency (default 50); outage=true takes list_orders down; status_indicator=major turns search_api's status page red."
    request: {{ method: POST, path: /control, body: {{ search_field: "{{search_field}}", slow_ms: "{{slow_ms}}", outage: "{{outage}}", status_indicator: "{{status_indicator}}" }} }}
    input_schema:
      type: object
      properties:
        search_field: {{ type: string, enum: [snippet, excerpt] }}
        slow_ms: {{ type: integer, minimum: 0, maximum: 30000 }}
        outage: {{ type: boolean }}
        status_indicator: {{ type: string, enum: [none, minor, major, critical] }}
    contract:
      version: "1.0"
      response_schema: {{ type: object, required: [search_field] }}
"#
    )
}
