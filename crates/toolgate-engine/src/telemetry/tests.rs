#![allow(clippy::unwrap_used)]

use super::*;
use crate::trace_context::*;
use opentelemetry::trace::TraceFlags;
use serde_json::Map;
use serde_json::json;

const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn http_spec() -> std::sync::Arc<ToolSpec> {
    let yaml = r#"
dependencies:
  search_api:
    base_url: https://api.example.com:8443/v3?api_key=SECRET-IN-QUERY
    headers: { X-Api-Key: SECRET-IN-HEADER }
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    request: { method: POST, path: /search, query: { q: "{query}" } }
    input_schema: { type: object, properties: { query: { type: string } } }
    contract: { version: "3.1", response_schema: { type: object } }
"#;
    let config = crate::fixtures::config(yaml);
    config.tools["web_search"].clone()
}

fn value<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a opentelemetry::Value> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    value(attributes, key).map(|v| v.as_str().into_owned())
}

#[test]
fn a_valid_traceparent_is_read_with_only_the_sampled_flag() {
    let (trace, span, flags) = parse_traceparent(VALID).unwrap();
    assert_eq!(trace.to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(span.to_string(), "00f067aa0ba902b7");
    assert!(flags.is_sampled());
    // Unknown flag bits are not passed on; an unsampled parent stays unsampled.
    let (_, _, flags) =
        parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-fe").unwrap();
    assert_eq!(flags, TraceFlags::default());
    // A later version may append fields after a dash.
    assert!(
        parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")
            .is_some()
    );
}

#[test]
fn malformed_traceparents_are_refused() {
    let bad = [
        "",
        "00",
        "garbage",
        // uppercase hex
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
        // all-zero ids
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        // version ff is invalid, version 00 has exactly four fields
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
        // wrong separators and lengths
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        // a header-splitting attempt and non-hex
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0\n",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bg-01",
        "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ];
    for text in bad {
        assert!(parse_traceparent(text).is_none(), "{text:?} was accepted");
    }
}

#[test]
fn hostile_traceparents_never_panic() {
    // Multi-byte characters at every offset (a slice off a char boundary would panic),
    // every prefix, and every byte of a valid value replaced by odd characters.
    let odd = ['é', '€', '\u{0}', '-', 'g', 'A', ' ', '\u{10FFFF}'];
    for n in 0..=VALID.len() + 4 {
        for c in odd {
            let mut s: String = VALID.chars().take(n).collect();
            s.push(c);
            s.extend(VALID.chars().skip(n + 1));
            let _ = parse_traceparent(&s);
            let _ = parse_traceparent(&c.to_string().repeat(n));
        }
        let _ = parse_traceparent(VALID.get(..n.min(VALID.len())).unwrap());
    }
    let _ = parse_traceparent(&"0".repeat(1 << 16));
    let meta = |v: Value| Map::from_iter([("traceparent".to_string(), v)]);
    for v in [json!(null), json!(7), json!([VALID]), json!({"x": VALID})] {
        assert!(caller_context(&meta(v)).is_none());
    }
}

#[test]
fn the_callers_context_keeps_a_valid_tracestate_and_drops_a_bad_one() {
    let meta = |state: Value| {
        Map::from_iter([
            ("traceparent".to_string(), json!(VALID)),
            ("tracestate".to_string(), state),
        ])
    };
    let cx = caller_context(&meta(json!("vendor=abc,other=1"))).unwrap();
    assert!(cx.is_remote());
    assert_eq!(cx.trace_state().header(), "vendor=abc,other=1");
    for bad in [json!("no equals sign"), json!(12), json!("a=b\r\nX: y")] {
        let cx = caller_context(&meta(bad.clone())).unwrap();
        assert_eq!(cx.trace_state().header(), "", "{bad} was kept");
        assert_eq!(traceparent(&cx), VALID);
    }
    let long = format!("k={}", "v".repeat(MAX_TRACESTATE));
    assert_eq!(
        caller_context(&meta(json!(long)))
            .unwrap()
            .trace_state()
            .header(),
        ""
    );
}

#[test]
fn only_a_valid_context_is_propagated_in_canonical_form() {
    let meta = Map::from_iter([
        ("traceparent".to_string(), json!(format!(" {VALID}\t"))),
        ("tracestate".to_string(), json!("vendor=abc")),
        ("progressToken".to_string(), json!("p")),
    ]);
    assert_eq!(
        propagated(Some(&meta)),
        vec![
            ("traceparent", VALID.to_string()),
            ("tracestate", "vendor=abc".to_string())
        ]
    );
    let hostile = Map::from_iter([("traceparent".to_string(), json!(format!("{VALID}\r\nX: 1")))]);
    assert!(propagated(Some(&hostile)).is_empty());
    assert!(propagated(None).is_empty());
}

#[test]
fn call_spans_name_the_tool_and_the_call_id_but_no_secret() {
    let spec = http_spec();
    let attributes = call_attributes(&spec, Some("\"call-7\""));
    assert_eq!(
        text(&attributes, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        text(&attributes, "gen_ai.tool.name").as_deref(),
        Some("web_search")
    );
    assert_eq!(
        text(&attributes, "gen_ai.tool.call.id").as_deref(),
        Some("call-7")
    );
    assert_eq!(
        text(&attributes, "toolgate.dependency").as_deref(),
        Some("search_api")
    );
    assert_eq!(
        text(&call_attributes(&spec, Some("42")), "gen_ai.tool.call.id").as_deref(),
        Some("42")
    );
    assert!(value(&call_attributes(&spec, None), "gen_ai.tool.call.id").is_none());
    // A hostile id is cut and loses its control characters.
    let long = serde_json::to_string(&format!("a\nb{}", "x".repeat(1000))).unwrap();
    let id = text(&call_attributes(&spec, Some(&long)), "gen_ai.tool.call.id").unwrap();
    assert!(id.starts_with("abx") && id.chars().count() == MAX_CALL_ID);

    let (name, attempt) = attempt_attributes(&spec);
    assert_eq!(name, "POST");
    assert_eq!(
        text(&attempt, "server.address").as_deref(),
        Some("api.example.com")
    );
    assert_eq!(
        value(&attempt, "server.port"),
        Some(&opentelemetry::Value::I64(8443))
    );
    let everything = format!("{name} {attributes:?} {attempt:?}");
    for secret in ["SECRET-IN-QUERY", "SECRET-IN-HEADER", "api_key", "/v3"] {
        assert!(!everything.contains(secret), "{secret} in {everything}");
    }
}

#[test]
fn mcp_attempt_spans_follow_the_mcp_conventions() {
    let spec = crate::upstream::mcp::tests::tool_spec("kb__search", None);
    let (name, attempt) = attempt_attributes(&spec);
    assert_eq!(name, "tools/call search");
    assert_eq!(
        text(&attempt, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        text(&attempt, "gen_ai.tool.name").as_deref(),
        Some("search")
    );
    assert_eq!(
        text(&call_attributes(&spec, None), "toolgate.mcp_server").as_deref(),
        Some("kb")
    );
}

#[test]
fn outcome_attributes_carry_class_attempts_pacing_drift_and_breaker() {
    let failed = outcome_attributes(&CallEnd {
        class: Some(ErrorClass::ContractDrift),
        attempts: 1,
        paced: Duration::from_millis(1500),
        drift: Some("missing results[].snippet".into()),
        breaker: &BreakerState::HalfOpen,
    });
    assert_eq!(
        text(&failed, "error.type").as_deref(),
        Some("contract_drift")
    );
    assert_eq!(
        text(&failed, "toolgate.error_class").as_deref(),
        Some("contract_drift")
    );
    assert_eq!(
        value(&failed, "toolgate.attempts"),
        Some(&opentelemetry::Value::I64(1))
    );
    assert_eq!(
        value(&failed, "toolgate.paced_ms"),
        Some(&opentelemetry::Value::I64(1500))
    );
    assert_eq!(
        value(&failed, "toolgate.drift"),
        Some(&opentelemetry::Value::Bool(true))
    );
    assert_eq!(
        text(&failed, "toolgate.drift.summary").as_deref(),
        Some("missing results[].snippet")
    );
    assert_eq!(
        text(&failed, "toolgate.breaker.state").as_deref(),
        Some("half_open")
    );
    let ok = outcome_attributes(&CallEnd {
        class: None,
        attempts: 2,
        paced: Duration::ZERO,
        drift: None,
        breaker: &BreakerState::Closed,
    });
    assert!(value(&ok, "error.type").is_none());
    assert!(value(&ok, "toolgate.drift.summary").is_none());
    assert_eq!(
        value(&ok, "toolgate.drift"),
        Some(&opentelemetry::Value::Bool(false))
    );
}

#[test]
fn reply_attributes_keep_codes_and_never_bodies() {
    let reply = |status: u16, body: &'static str| {
        Ok(UpstreamResponse {
            status,
            headers: reqwest::header::HeaderMap::new(),
            body: bytes::Bytes::from_static(body.as_bytes()),
            latency: Duration::ZERO,
            rpc_error: None,
        })
    };
    let unavailable = reply_attributes(&reply(503, "try again with token SECRET"));
    assert_eq!(
        value(&unavailable, "http.response.status_code"),
        Some(&opentelemetry::Value::I64(503))
    );
    let rpc = reply_attributes(&reply(
        200,
        r#"{"error":{"code":-32602,"message":"bad value SECRET","data":null}}"#,
    ));
    assert_eq!(
        text(&rpc, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    let broken = reply_attributes(&reply(200, r#"{"error": not json"#));
    assert!(value(&broken, "rpc.response.status_code").is_none());
    let timeout = reply_attributes(&Err(SendError::Timeout(Duration::from_secs(1))));
    assert_eq!(
        text(&timeout, "toolgate.transport_error").as_deref(),
        Some("timeout")
    );
    let everything = format!("{unavailable:?} {rpc:?} {broken:?}");
    assert!(!everything.contains("SECRET"), "{everything}");
}

#[test]
fn the_traces_path_is_appended_to_the_endpoint() {
    let url = |s: &str| traces_endpoint(&url::Url::parse(s).unwrap()).to_string();
    assert_eq!(
        url("http://127.0.0.1:4318"),
        "http://127.0.0.1:4318/v1/traces"
    );
    assert_eq!(
        url("http://collector/otlp/"),
        "http://collector/otlp/v1/traces"
    );
    assert_eq!(
        origin_of(&url::Url::parse("https://user:pw@collector:4318/x?k=v").unwrap()),
        "https://collector:4318"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_is_down_costs_the_call_nothing() {
    // A port bound but not listening (held, so no other test's server gets it): the
    // exporter fails, span recording still returns at once.
    let closed = tokio::net::TcpSocket::new_v4().unwrap();
    closed.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = closed.local_addr().unwrap().port();
    let telemetry = Telemetry::start(&Otlp {
        endpoint: url::Url::parse(&format!("http://127.0.0.1:{port}")).unwrap(),
        sample: 1.0,
    })
    .unwrap();
    let spec = http_spec();
    let ctx = CallContext::default();
    for _ in 0..100 {
        let call = telemetry.call(&spec, &ctx, false);
        let attempt = call.attempt(&spec, 1);
        attempt.end(Some(ErrorClass::ServerError));
        call.end(&CallEnd {
            class: Some(ErrorClass::ServerError),
            attempts: 1,
            paced: Duration::ZERO,
            drift: None,
            breaker: &BreakerState::Closed,
        });
    }
    // The export fails (nothing listens), and says so; it does not hang past its bound.
    assert!(!telemetry.flush(Duration::from_secs(30)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_gets_the_calls_span_as_parent_in_the_callers_trace() {
    let telemetry = Telemetry::start(&Otlp {
        endpoint: url::Url::parse("http://127.0.0.1:9").unwrap(),
        sample: 0.0,
    })
    .unwrap();
    let spec = http_spec();
    let ctx = CallContext {
        meta: Some(Map::from_iter([
            ("traceparent".to_string(), json!(VALID)),
            ("progressToken".to_string(), json!("p")),
        ])),
        ..CallContext::default()
    };
    let call = telemetry.call(&spec, &ctx, false);
    let upstream = call.upstream_context(&ctx);
    let meta = upstream.meta.as_ref().unwrap();
    let sent = meta["traceparent"].as_str().unwrap();
    // Same trace, a new parent (the call's span), still sampled: the caller decided
    // (sample 0.0 applies only to calls that start a trace).
    assert_eq!(&sent[..35], &VALID[..35]);
    assert_ne!(&sent[36..52], &VALID[36..52]);
    assert!(sent.ends_with("-01"), "{sent}");
    assert_eq!(meta["progressToken"], json!("p"));
    // A root call at sample 0.0 is not sampled, and says so upstream.
    let root = telemetry.call(&spec, &CallContext::default(), false);
    let sent = root.upstream_context(&CallContext::default()).meta.unwrap()["traceparent"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        parse_traceparent(&sent).is_some() && sent.ends_with("-00"),
        "{sent}"
    );
}

#[test]
fn tracestate_members_follow_the_w3c_grammar() {
    for ok in [
        "vendor=abc",
        "a=1, b=2",
        "tenant@system=v",
        "k=v w",
        ",k=v,",
    ] {
        assert!(parse_tracestate(ok).is_some(), "{ok:?} was refused");
    }
    for bad in [
        "Key=v",
        "k=",
        "k=a\u{1}b",
        "=v",
        "k=v=w",
        "k=\u{7f}",
        "k=é",
        "@s=v",
        "t@=v",
        "t@S=v",
    ] {
        assert!(parse_tracestate(bad).is_none(), "{bad:?} was accepted");
    }
    let many: Vec<String> = (0..33).map(|i| format!("k{i}=v")).collect();
    assert!(parse_tracestate(&many.join(",")).is_none());
}

/// An MCP link that is never asked anything: `prepare` sends nothing.
#[derive(Debug)]
struct Unused;

impl crate::upstream::mcp::McpLink for Unused {
    fn request<'a>(
        &'a self,
        _: &'a str,
        _: Option<Value>,
        _: Duration,
        _: Option<crate::upstream::mcp::Relay>,
    ) -> crate::upstream::mcp::BoxFuture<
        'a,
        Result<crate::upstream::mcp::LinkReply, crate::upstream::mcp::LinkError>,
    > {
        Box::pin(async {
            Err(crate::upstream::mcp::LinkError::Connect {
                detail: "unused".into(),
            })
        })
    }
}

#[test]
fn upstreams_get_the_trace_context_the_mcp_way_and_the_http_way() {
    use crate::upstream::Upstream as _;
    let meta = |traceparent: &str| CallContext {
        meta: Some(Map::from_iter([
            ("traceparent".to_string(), json!(traceparent)),
            ("tracestate".to_string(), json!("vendor=abc")),
            ("progressToken".to_string(), json!("p")),
        ])),
        ..CallContext::default()
    };
    let mcp = crate::upstream::McpUpstream::new(Arc::new(Unused), "search".into());
    let request = mcp.prepare(&Map::new(), &meta(VALID)).unwrap();
    let params = format!("{request:?}");
    assert!(
        params.contains(VALID) && params.contains("vendor=abc") && params.contains("progressToken"),
        "{params}"
    );
    let request = mcp.prepare(&Map::new(), &meta("00-bad\r\n")).unwrap();
    let params = format!("{request:?}");
    assert!(
        !params.contains("traceparent") && !params.contains("bad"),
        "{params}"
    );

    let client = crate::upstream::UpstreamClient::new().unwrap();
    let http = crate::upstream::HttpUpstream::new(client, http_spec(), 1 << 20);
    let args = Map::from_iter([("query".to_string(), json!("rust"))]);
    let request = http.prepare(&args, &meta(VALID)).unwrap();
    assert_eq!(request.rendered().headers["traceparent"], VALID);
    assert_eq!(request.rendered().headers["tracestate"], "vendor=abc");
    let request = http.prepare(&args, &meta("00-bad\r\n")).unwrap();
    assert!(request.rendered().headers.get("traceparent").is_none());
    assert!(request.rendered().headers.get("tracestate").is_none());
}

#[test]
fn a_failing_collector_is_logged_once_and_its_recovery_once() {
    let logged = LoggedOnce {
        inner: (),
        failing: AtomicBool::new(false),
        redact: String::new(),
        origin: String::new(),
    };
    let failed = [false, true, true, true, false, false, true];
    let logs: Vec<bool> = failed.iter().map(|f| logged.changed(*f)).collect();
    assert_eq!(logs, [false, true, false, false, true, false, true]);
}
