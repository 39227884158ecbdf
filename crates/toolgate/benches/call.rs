//! What a whole call costs on the pipeline, valid against drifting: the same ~12 KB
//! upstream body, once as the contract promises it and once with `snippet` renamed to
//! `excerpt` in every result. The upstream is a fake that answers at once, so the figures
//! are toolgate's own work per call (validation, diagnosis, incident, metrics, notes).
//! A drifting call is held to within 2× of a valid one: drift must not make a broken
//! upstream more expensive for the gateway exactly when every call drifts.
//!
//! `call/learning_12kb` is the same valid call of a tool without a declared contract
//! that is still learning one: the call only offers its body to the learner's bounded
//! queue (here the learner never runs, so the queue fills and later samples are counted
//! as dropped — the cost the call path pays either way). Goal: within 1.2× of
//! `call/valid_12kb`.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};
use toolgate_engine::dependency::DependencyState;
use toolgate_engine::metrics::Metrics;
use toolgate_engine::pipeline::{self, Origin, Route, Services};
use toolgate_engine::tool_state::ToolState;
use toolgate_engine::upstream::CallContext;
use toolgate_engine::upstream::{SendError, Upstream, UpstreamResponse};
use toolgate_engine::watch::incidents::Incidents;

#[derive(Debug)]
struct Instant(Bytes);

impl Upstream for Instant {
    type Request = ();
    fn prepare(&self, _: &Map<String, Value>, _: &CallContext) -> Result<(), String> {
        Ok(())
    }
    async fn attempt(&self, _: &(), _: Duration) -> Result<UpstreamResponse, SendError> {
        Ok(UpstreamResponse {
            status: 200,
            headers: HeaderMap::new(),
            body: self.0.clone(),
            latency: Duration::from_micros(300),
            rpc_error: None,
        })
    }
}

fn body(field: &str) -> Bytes {
    let results: Vec<Value> = (1..=20)
        .map(|i| {
            let mut r = json!({
                "title": format!("Result {i}: building reliable tool gateways for AI agents in Rust, part {i}"),
                "url": format!("https://docs.example.com/articles/{i}/building-reliable-tool-gateways"),
                "score": 0.5,
                "tags": ["rust", "mcp", "gateway", "contracts", "reliability"],
                "source": {"name": "Example Docs", "domain": "docs.example.com", "rank": i}
            });
            r[field] = json!(format!("Result {i}. A tool gateway validates every upstream response against a versioned contract, classifies failures and tells the model what to do."));
            r
        })
        .collect();
    Bytes::from(
        serde_json::to_vec(&json!({"query": "rust", "total": 20, "results": results}))
            .expect("json"),
    )
}

const CONFIG: &str = r#"
dependencies:
  search_api: { base_url: "http://127.0.0.1:9" }
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    request: { path: /search, query: { q: "{query}" } }
    annotations: { readOnlyHint: true }
    input_schema: { type: object, required: [query], properties: { query: { type: string } } }
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [query, results, total]
        properties:
          query: { type: string }
          total: { type: integer }
          results:
            type: array
            items:
              type: object
              required: [title, url, snippet, score]
              properties:
                title: { type: string }
                url: { type: string }
                snippet: { type: string }
                score: { type: number }
  web_search_learning:
    dependency: search_api
    owner: search-team@example.com
    request: { path: /search, query: { q: "{query}" } }
    annotations: { readOnlyHint: true }
    input_schema: { type: object, required: [query], properties: { query: { type: string } } }
    contract: { version: "1.0", learn: { enforce_after: 1000000000 } }
"#;

fn route_of(tool: &str, body: Bytes) -> Route<Instant> {
    let env = |_: &str| None;
    let config = toolgate_config::parse(
        std::path::Path::new("bench.yaml"),
        CONFIG,
        std::path::Path::new("."),
        &env,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let spec = config.tools[tool].clone();
    let dependency = Arc::new(DependencyState::new(spec.dependency.clone()));
    Route::new(spec, Arc::new(ToolState::new()), dependency, Instant(body))
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let services = Services {
        metrics: Arc::new(Metrics::new()),
        incidents: Arc::new(Incidents::new(None, Duration::from_secs(300))),
        telemetry: None,
        learning: Default::default(),
        audit: None,
        replies: toolgate_resilience::ReplyMemory::unlimited(),
    };
    let args = || {
        let mut m = Map::new();
        m.insert("query".into(), json!("rust"));
        m
    };
    for (name, tool, field) in [
        ("call/valid_12kb", "web_search", "snippet"),
        ("call/drifting_12kb", "web_search", "excerpt"),
        ("call/learning_12kb", "web_search_learning", "snippet"),
    ] {
        let route = route_of(tool, body(field));
        let ok = rt.block_on(pipeline::run(
            &route,
            &services,
            args(),
            Origin::Agent,
            &CallContext::default(),
        ));
        assert_eq!(ok.result.is_ok(), field == "snippet", "{name}");
        c.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(pipeline::run(
                    &route,
                    &services,
                    args(),
                    Origin::Agent,
                    &CallContext::default(),
                ))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
