//! Traces (`telemetry.otlp`) against a real OTLP/HTTP receiver: the Python script in
//! `tests/otel/`, which decodes `/v1/traces` with the official `opentelemetry-proto`
//! bindings and writes each span as a JSON line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::harness::{start_toolgate, temp_dir};

/// A dependency header value: it must reach the upstream and never a span.
const SECRET: &str = "sk-live-7f3a9c1e-otel-secret";
/// An argument value: likewise.
const ARGUMENT: &str = "confidential-query-4d2b";
/// The caller's trace.
const TRACE_ID: &str = "5b8efff798038103d269b633813fc60c";
const CALLER_SPAN: &str = "eee19b7ec3c1b174";

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The OTLP receiver on a free loopback port, writing spans to `spans.jsonl` in `dir`.
struct Receiver {
    _child: tokio::process::Child,
    port: u16,
    spans: PathBuf,
    raw: PathBuf,
}

async fn start_receiver(dir: &Path) -> Receiver {
    let python = repo().join(".venv/bin/python");
    let setup = "python3 -m venv .venv && .venv/bin/pip install -r tests/otel/requirements.txt \
                 (python3 -m venv needs the Debian package python3-venv)";
    assert!(
        python.exists(),
        "the OTLP receiver needs the repository's .venv with opentelemetry-proto; run: {setup}"
    );
    let check = std::process::Command::new(&python)
        .args([
            "-c",
            "import opentelemetry.proto.collector.trace.v1.trace_service_pb2",
        ])
        .status()
        .unwrap();
    assert!(
        check.success(),
        "the PyPI package opentelemetry-proto is missing from .venv; run: {setup}"
    );
    let (spans, raw) = (dir.join("spans.jsonl"), dir.join("bodies.bin"));
    let mut child = tokio::process::Command::new(&python)
        .arg(repo().join("tests/otel/receiver.py"))
        .arg("--out")
        .arg(&spans)
        .arg("--raw")
        .arg(&raw)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("the OTLP receiver did not start within 60 s")
        .unwrap()
        .expect("the OTLP receiver exited before listening");
    let port = first
        .strip_prefix("listening ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line from the receiver: {first}"));
    Receiver {
        _child: child,
        port,
        spans,
        raw,
    }
}

impl Receiver {
    fn spans(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.spans)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The spans of trace `trace`, once at least `count` of them arrived.
    async fn wait_for(&self, trace: &str, count: usize) -> Vec<Value> {
        for _ in 0..600 {
            let spans: Vec<Value> = self
                .spans()
                .into_iter()
                .filter(|s| s["trace_id"] == trace)
                .collect();
            if spans.len() >= count {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "fewer than {count} spans of trace {trace} arrived; got {:#?}",
            self.spans()
        );
    }
}

/// What the upstream saw: each request's `traceparent`, and the API key header.
#[derive(Default)]
struct Seen {
    flaky: AtomicU64,
    traceparents: Mutex<Vec<(String, Option<String>)>>,
    keys: Mutex<Vec<Option<String>>>,
}

async fn start_upstream() -> (std::net::SocketAddr, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let app = Router::new()
        .route(
            "/flaky",
            get(|State(seen): State<Arc<Seen>>| async move {
                if seen.flaky.fetch_add(1, Ordering::SeqCst) == 0 {
                    (StatusCode::SERVICE_UNAVAILABLE, "try again").into_response()
                } else {
                    axum::Json(json!({ "status": "ok" })).into_response()
                }
            }),
        )
        .route(
            "/search",
            get(|| async { axum::Json(json!({ "results": [] })) }),
        )
        .layer(axum::middleware::from_fn_with_state(seen.clone(), record))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, seen)
}

async fn record(
    State(seen): State<Arc<Seen>>,
    req: Request,
    next: axum::middleware::Next,
) -> Response {
    // Read before the await: a borrow of the request (its body is not `Sync`) must not
    // live across it.
    let (path, traceparent, key) = {
        let header = |name: &str| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        (
            req.uri().path().to_string(),
            header("traceparent"),
            header("x-api-key"),
        )
    };
    seen.traceparents.lock().unwrap().push((path, traceparent));
    seen.keys.lock().unwrap().push(key);
    next.run(req).await
}

fn config(upstream: std::net::SocketAddr, collector: u16, state: &Path) -> String {
    format!(
        r#"
gateway:
  state: {state}
telemetry:
  otlp: {{ endpoint: "http://127.0.0.1:{collector}", sample: 1.0 }}
dependencies:
  api:
    base_url: http://{upstream}
    headers: {{ X-Api-Key: {SECRET} }}
    timeout: 5s
    retry: {{ max_attempts: 3, base_delay: 10ms, max_delay: 50ms }}
tools:
  flaky_status:
    dependency: api
    owner: bob@example.com
    request: {{ path: /flaky }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [status] }} }}
  search:
    dependency: api
    owner: bob@example.com
    request: {{ path: /search, query: {{ q: "{{query}}" }} }}
    annotations: {{ readOnlyHint: true }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    contract:
      version: "2.0"
      response_schema: {{ type: object, required: [results, total] }}
"#,
        state = state.display()
    )
}

/// A stateless `tools/call` with `meta` as its `_meta`; the JSON-RPC answer.
async fn call(url: &str, id: Value, tool: &str, args: Value, meta: Value) -> Value {
    let mut meta = meta;
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": { "name": tool, "arguments": args, "_meta": meta },
    });
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    &span["attributes"][key]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traced_call_continues_the_callers_trace_with_one_span_per_attempt() {
    let dir = temp_dir("otel");
    let receiver = start_receiver(&dir).await;
    let (upstream, seen) = start_upstream().await;
    let toolgate = start_toolgate(&config(upstream, receiver.port, &dir.join("state.db"))).await;

    // 503 then 200: two attempts, one call, in the caller's trace.
    let caller = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let answer = call(
        &toolgate.url,
        json!("call-1"),
        "flaky_status",
        json!({}),
        json!({ "traceparent": caller, "tracestate": "vendor=abc" }),
    )
    .await;
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    // A contract drift, with an argument value and the secret in the request.
    let drifted = call(
        &toolgate.url,
        json!(7),
        "search",
        json!({ "query": ARGUMENT }),
        json!({ "traceparent": format!("00-{TRACE_ID}-{CALLER_SPAN}-01") }),
    )
    .await;
    assert_eq!(drifted["result"]["isError"], json!(true), "{drifted}");
    // A hostile traceparent: ignored, the call starts its own trace and still works.
    let hostile = call(
        &toolgate.url,
        json!(8),
        "search",
        json!({ "query": "x" }),
        json!({ "traceparent": "00-zz\r\nX-Injected: 1" }),
    )
    .await;
    assert!(hostile["result"].is_object(), "{hostile}");

    assert!(
        toolgate
            .gateway
            .telemetry()
            .unwrap()
            .flush(Duration::from_secs(30))
            .await,
        "the spans were not exported"
    );
    let spans = receiver.wait_for(TRACE_ID, 5).await;
    let named =
        |name: &str| -> Vec<&Value> { spans.iter().filter(|s| s["name"] == name).collect() };

    // The call's span: a child of the caller's span, GenAI attributes, toolgate's own.
    let calls = named("execute_tool flaky_status");
    assert_eq!(calls.len(), 1, "{spans:#?}");
    let call_span = calls[0];
    assert_eq!(call_span["parent_span_id"], CALLER_SPAN);
    assert_eq!(call_span["kind"], "SPAN_KIND_INTERNAL");
    assert_eq!(call_span["trace_state"], "vendor=abc");
    assert_eq!(attr(call_span, "gen_ai.operation.name"), "execute_tool");
    assert_eq!(attr(call_span, "gen_ai.tool.name"), "flaky_status");
    assert_eq!(attr(call_span, "gen_ai.tool.call.id"), "call-1");
    assert_eq!(attr(call_span, "toolgate.dependency"), "api");
    assert_eq!(attr(call_span, "toolgate.origin"), "agent");
    assert_eq!(attr(call_span, "toolgate.attempts"), 2);
    assert_eq!(attr(call_span, "toolgate.drift"), false);
    assert_eq!(attr(call_span, "toolgate.breaker.state"), "closed");
    assert!(attr(call_span, "toolgate.paced_ms").is_i64());
    assert!(attr(call_span, "error.type").is_null());
    assert_eq!(call_span["status"]["code"], "STATUS_CODE_UNSET");
    assert_eq!(call_span["resource"]["service.name"], "toolgate");

    // One CLIENT span per attempt, under the call's span: 503, then 200.
    let mut attempts: Vec<&Value> = spans
        .iter()
        .filter(|s| s["parent_span_id"] == call_span["span_id"])
        .collect();
    attempts.sort_by_key(|s| attr(s, "toolgate.attempt").as_i64());
    assert_eq!(attempts.len(), 2, "{spans:#?}");
    for (span, (n, status)) in attempts.iter().zip([(1, 503), (2, 200)]) {
        assert_eq!(span["name"], "GET");
        assert_eq!(span["kind"], "SPAN_KIND_CLIENT");
        assert_eq!(attr(span, "toolgate.attempt"), n);
        assert_eq!(attr(span, "http.response.status_code"), status);
        assert_eq!(attr(span, "http.request.method"), "GET");
        assert_eq!(attr(span, "server.address"), "127.0.0.1");
        assert_eq!(attr(span, "server.port"), upstream.port());
    }
    assert_eq!(attr(attempts[0], "error.type"), "server_error");
    assert_eq!(attempts[0]["status"]["code"], "STATUS_CODE_ERROR");
    assert!(attr(attempts[1], "error.type").is_null());

    // The upstream got a traceparent of the same trace, with the call's span as parent,
    // on both attempts; and the secret, which the spans must not have.
    let sent = seen.traceparents.lock().unwrap().clone();
    let flaky: Vec<_> = sent.iter().filter(|(p, _)| p == "/flaky").collect();
    assert_eq!(flaky.len(), 2, "{sent:?}");
    for (_, traceparent) in &flaky {
        let expected = format!(
            "00-{TRACE_ID}-{}-01",
            call_span["span_id"].as_str().unwrap()
        );
        assert_eq!(traceparent.as_deref(), Some(expected.as_str()));
    }
    assert!(
        seen.keys
            .lock()
            .unwrap()
            .iter()
            .all(|k| k.as_deref() == Some(SECRET))
    );

    // The drifted call: error class, drift summary, span status error, numeric id.
    let drift = named("execute_tool search");
    let drift: Vec<_> = drift
        .into_iter()
        .filter(|s| s["parent_span_id"] == CALLER_SPAN)
        .collect();
    assert_eq!(drift.len(), 1, "{spans:#?}");
    let drift = drift[0];
    assert_eq!(attr(drift, "gen_ai.tool.call.id"), "7");
    assert_eq!(attr(drift, "toolgate.error_class"), "contract_drift");
    assert_eq!(attr(drift, "error.type"), "contract_drift");
    assert_eq!(attr(drift, "toolgate.drift"), true);
    assert!(
        attr(drift, "toolgate.drift.summary")
            .as_str()
            .unwrap()
            .contains("total"),
        "{drift}"
    );
    assert_eq!(drift["status"]["code"], "STATUS_CODE_ERROR");

    // The hostile call was traced as a root of its own trace.
    let all = receiver.spans();
    let roots: Vec<_> = all
        .iter()
        .filter(|s| s["name"] == "execute_tool search" && s["parent_span_id"] == "")
        .collect();
    assert_eq!(roots.len(), 1, "{all:#?}");
    assert_ne!(roots[0]["trace_id"], TRACE_ID);
    assert!(
        sent.iter()
            .filter(|(p, _)| p == "/search")
            .all(|(_, t)| t.as_deref().is_some_and(|t| !t.contains('\n')))
    );

    // Neither the secret nor an argument value is in anything exported: the decoded
    // spans, nor the bytes on the wire.
    let decoded = std::fs::read_to_string(&receiver.spans).unwrap();
    let wire = std::fs::read(&receiver.raw).unwrap();
    assert!(!wire.is_empty());
    for needle in [SECRET, ARGUMENT, "q=", "X-Injected"] {
        assert!(!decoded.contains(needle), "{needle} in the exported spans");
        assert!(
            !wire.windows(needle.len()).any(|w| w == needle.as_bytes()),
            "{needle} in the OTLP request bodies"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_telemetry_no_tracer_runs_and_the_callers_context_is_passed_on() {
    let dir = temp_dir("otel-off");
    let (upstream, seen) = start_upstream().await;
    let yaml = config(upstream, 9, &dir.join("state.db"));
    let yaml = yaml.replace(
        "telemetry:\n  otlp: { endpoint: \"http://127.0.0.1:9\", sample: 1.0 }\n",
        "",
    );
    let toolgate = start_toolgate(&yaml).await;
    assert!(toolgate.gateway.telemetry().is_none());
    let caller = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let answer = call(
        &toolgate.url,
        json!(1),
        "flaky_status",
        json!({}),
        json!({ "traceparent": caller }),
    )
    .await;
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    let sent: HashMap<_, _> = seen.traceparents.lock().unwrap().iter().cloned().collect();
    assert_eq!(sent["/flaky"].as_deref(), Some(caller.as_str()));
}

/// toolgate in front of toolgate: the front's MCP attempt hands the call's context to the
/// upstream server in `params._meta.traceparent`, so the upstream's call span is a child
/// of the front's, in the caller's trace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_mcp_server_gets_the_context_in_params_meta() {
    let dir = temp_dir("otel-mcp");
    let receiver = start_receiver(&dir).await;
    let (upstream, seen) = start_upstream().await;
    let back = start_toolgate(&config(upstream, receiver.port, &dir.join("back.db"))).await;
    let front = start_toolgate(&format!(
        r#"
gateway:
  state: {state}
telemetry:
  otlp: {{ endpoint: "http://127.0.0.1:{collector}" }}
mcp_servers:
  back: {{ url: "{url}", owner: ops@example.com, retry: {{ max_attempts: 1 }} }}
"#,
        state = dir.join("front.db").display(),
        collector = receiver.port,
        url = back.url,
    ))
    .await;
    let caller = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    // The front knows the back's tools once it has listed them (right after start).
    let mut answer = Value::Null;
    for _ in 0..100 {
        answer = call(
            &front.url,
            json!("c-1"),
            "back__flaky_status",
            json!({}),
            json!({ "traceparent": caller }),
        )
        .await;
        if answer["result"].is_object() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    for gateway in [&front, &back] {
        assert!(
            gateway
                .gateway
                .telemetry()
                .unwrap()
                .flush(Duration::from_secs(30))
                .await
        );
    }
    // Front: call + 1 MCP attempt; back: call + 2 HTTP attempts (503, 200).
    let spans = receiver.wait_for(TRACE_ID, 5).await;
    let one = |name: &str| -> &Value {
        let found: Vec<&Value> = spans.iter().filter(|s| s["name"] == name).collect();
        assert_eq!(found.len(), 1, "{name}: {spans:#?}");
        found[0]
    };
    let front_call = one("execute_tool back__flaky_status");
    assert_eq!(front_call["parent_span_id"], CALLER_SPAN);
    assert_eq!(attr(front_call, "gen_ai.tool.type"), "extension");
    assert_eq!(attr(front_call, "toolgate.mcp_server"), "back");
    assert_eq!(attr(front_call, "gen_ai.tool.call.id"), "c-1");
    let attempt = one("tools/call flaky_status");
    assert_eq!(attempt["parent_span_id"], front_call["span_id"]);
    assert_eq!(attempt["kind"], "SPAN_KIND_CLIENT");
    assert_eq!(attr(attempt, "mcp.method.name"), "tools/call");
    assert_eq!(attr(attempt, "gen_ai.tool.name"), "flaky_status");
    assert_eq!(attr(attempt, "http.response.status_code"), 200);
    let back_call = one("execute_tool flaky_status");
    assert_eq!(back_call["parent_span_id"], front_call["span_id"]);
    assert_eq!(attr(back_call, "toolgate.attempts"), 2);
    // The back's HTTP upstream got the back's call span as parent, same trace.
    let sent = seen.traceparents.lock().unwrap().clone();
    let expected = format!(
        "00-{TRACE_ID}-{}-01",
        back_call["span_id"].as_str().unwrap()
    );
    assert!(
        sent.iter()
            .any(|(p, t)| p == "/flaky" && t.as_deref() == Some(expected.as_str())),
        "{sent:?}"
    );
}
