//! OpenTelemetry traces of tool calls (`telemetry.otlp`): one INTERNAL span per call,
//! named `execute_tool {tool}` after the GenAI semantic conventions, and one CLIENT span
//! per upstream attempt under it, exported as OTLP over HTTP/protobuf.
//!
//! The spans are built with the SDK's tracer directly rather than through
//! `tracing-opentelemetry`: a call's span gets most of its attributes only when the call
//! is over (attempts, paced time, error class, drift), the parent comes from the MCP
//! request's `_meta` rather than from an ambient span, and without `telemetry` there is
//! no tracer at all — the call path then carries an `Option` that is `None` and does
//! nothing else, instead of a subscriber layer that sees every `tracing` event.
//!
//! Recording never blocks a call: an ended span goes to the batch processor's queue with
//! a `try_send` (a full queue drops the span), and the batch is exported by a task on the
//! tokio runtime. A collector that is down costs the call nothing; its failure is logged
//! once, and once more when export works again.
//!
//! What spans never carry: tool arguments, header values (a dependency's secrets are
//! headers), URLs (a query string may hold a key) — only the upstream's host and port —
//! and response bodies. The drift summary names fields, never values.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::trace::{
    Span as _, SpanContext, SpanKind, Status, TraceContextExt as _, Tracer as _,
    TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    Sampler, SdkTracer, SdkTracerProvider, SpanData, SpanExporter,
    span_processor_with_async_runtime,
};
use serde_json::Value;
use toolgate_resilience::{BreakerState, ErrorClass};

use crate::upstream::{CallContext, SendError, UpstreamResponse};
use toolgate_config::{Otlp, ToolKind, ToolSpec};

/// How long one export may take before it counts as failed.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// A caller's call id longer than this is cut (it is the caller's choice, not ours).
const MAX_CALL_ID: usize = 128;

/// The installed tracer and its provider (for flush and shutdown).
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl Telemetry {
    /// Installs a tracer exporting to `{endpoint}/v1/traces`. Must run inside a tokio
    /// runtime: the batch exporter is a task on it.
    pub fn start(otlp: &Otlp) -> anyhow::Result<Arc<Telemetry>> {
        use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
        let endpoint = traces_endpoint(&otlp.endpoint);
        crate::tls::init();
        // The exporter's own client, with the same rules as the upstream one: no
        // redirects (a redirect could carry the spans to another host).
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolgate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| anyhow::anyhow!("cannot build the OTLP HTTP client: {e}"))?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_endpoint(endpoint.as_str())
            .with_timeout(EXPORT_TIMEOUT)
            .with_http_client(http)
            .build()
            .map_err(|e| anyhow::anyhow!("cannot set up the OTLP trace exporter: {e}"))?;
        let exporter = LoggedOnce {
            inner: exporter,
            failing: AtomicBool::new(false),
            redact: endpoint.to_string(),
            origin: origin_of(&endpoint),
        };
        let processor = span_processor_with_async_runtime::BatchSpanProcessor::builder(
            exporter,
            opentelemetry_sdk::runtime::Tokio,
        )
        .build();
        let resource = opentelemetry_sdk::Resource::builder_empty()
            .with_service_name("toolgate")
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            // A caller's decision stands (its trace is sampled or not as a whole); a
            // call with no caller trace is a root, sampled at the configured ratio.
            .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
                otlp.sample,
            ))))
            .with_resource(resource)
            .build();
        let tracer = provider.tracer("toolgate");
        tracing::info!(collector = %origin_of(&endpoint), sample = otlp.sample, "exporting traces (OTLP/HTTP)");
        Ok(Arc::new(Telemetry { provider, tracer }))
    }

    /// Exports what is queued, waiting at most `within`. False when it did not finish
    /// in time or the export failed.
    pub async fn flush(&self, within: Duration) -> bool {
        let provider = self.provider.clone();
        // The SDK waits for the export task synchronously: off the runtime's threads.
        let flushing = tokio::task::spawn_blocking(move || provider.force_flush());
        matches!(tokio::time::timeout(within, flushing).await, Ok(Ok(Ok(()))))
    }

    /// Exports what is queued and stops the exporter, waiting at most `within`; spans
    /// ended later are dropped.
    pub async fn shutdown(&self, within: Duration) -> bool {
        let provider = self.provider.clone();
        let stopping = tokio::task::spawn_blocking(move || provider.shutdown_with_timeout(within));
        matches!(tokio::time::timeout(within, stopping).await, Ok(Ok(Ok(()))))
    }

    /// The span of one call of `spec`, a child of the caller's trace when `ctx` carries
    /// a valid `_meta.traceparent`; `probe` for a contract probe's call.
    pub fn call(&self, spec: &ToolSpec, ctx: &CallContext, probe: bool) -> CallTrace {
        let mut attributes = call_attributes(spec, ctx.call_id.as_deref());
        // Probes are traced too, told apart from agent traffic.
        attributes.push(KeyValue::new(
            "toolgate.origin",
            if probe { "probe" } else { "agent" },
        ));
        // The configured agent's name, never the token or its subject.
        if let Some(agent) = &ctx.agent {
            attributes.push(KeyValue::new("enduser.id", agent.name().to_string()));
            attributes.push(KeyValue::new("gen_ai.agent.name", agent.name().to_string()));
        }
        let parent = ctx
            .meta
            .as_ref()
            .and_then(caller_context)
            .map_or_else(Context::new, |sc| {
                Context::new().with_remote_span_context(sc)
            });
        let span = self
            .tracer
            .span_builder(format!("execute_tool {}", spec.name))
            .with_kind(SpanKind::Internal)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &parent);
        let context = span.span_context().clone();
        CallTrace {
            span,
            context,
            tracer: self.tracer.clone(),
        }
    }
}

impl Drop for Telemetry {
    /// The SDK shuts a provider down when its last reference goes, waiting for the
    /// export task synchronously: on a runtime thread that task may never run (a
    /// current-thread runtime), so the shutdown is started off the runtime instead. After
    /// [`Telemetry::shutdown`] this returns at once.
    fn drop(&mut self) {
        let provider = self.provider.clone();
        let _ = std::thread::Builder::new()
            .name("otel-shutdown".into())
            .spawn(move || {
                let _ = provider.shutdown_with_timeout(Duration::from_secs(5));
            });
    }
}

/// One call's span, until the call is over.
#[derive(Debug)]
pub struct CallTrace {
    span: opentelemetry_sdk::trace::Span,
    context: SpanContext,
    tracer: SdkTracer,
}

/// What a finished call reports on its span.
#[derive(Debug)]
pub struct CallEnd<'a> {
    /// The failure's class; `None` for a success.
    pub class: Option<ErrorClass>,
    /// Attempts sent upstream.
    pub attempts: u32,
    /// Time waiting for the pacer or a concurrency slot.
    pub paced: Duration,
    /// The drift summary, when the reply no longer matched the contract.
    pub drift: Option<String>,
    /// The dependency's breaker after the call.
    pub breaker: &'a BreakerState,
}

impl CallTrace {
    /// `ctx` with this span as the trace context the upstream gets (`_meta.traceparent`
    /// and `_meta.tracestate`), replacing the caller's.
    pub fn upstream_context(&self, ctx: &CallContext) -> CallContext {
        let mut meta = ctx.meta.clone().unwrap_or_default();
        meta.insert(
            "traceparent".into(),
            Value::String(traceparent(&self.context)),
        );
        let state = self.context.trace_state().header();
        if state.is_empty() {
            meta.remove("tracestate");
        } else {
            meta.insert("tracestate".into(), Value::String(state));
        }
        CallContext {
            meta: Some(meta),
            ..ctx.clone()
        }
    }

    /// The span of attempt number `n` (1-based) of the call.
    pub fn attempt(&self, spec: &ToolSpec, n: u32) -> AttemptTrace {
        let (name, mut attributes) = attempt_attributes(spec);
        attributes.push(KeyValue::new("toolgate.attempt", i64::from(n)));
        let parent = Context::new().with_remote_span_context(self.context.clone());
        let span = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Client)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &parent);
        AttemptTrace { span }
    }

    /// Ends the call's span with its outcome.
    pub fn end(mut self, end: &CallEnd<'_>) {
        for attribute in outcome_attributes(end) {
            self.span.set_attribute(attribute);
        }
        // The class, not the model's sentence: an invalid-arguments sentence quotes
        // the argument values the schema rejected.
        if let Some(class) = end.class {
            self.span.set_status(Status::error(class.as_str()));
        }
        self.span.end();
    }
}

/// One attempt's span, until its reply is interpreted.
#[derive(Debug)]
pub struct AttemptTrace {
    span: opentelemetry_sdk::trace::Span,
}

impl AttemptTrace {
    /// What came back on the wire: the status (and a JSON-RPC error's code), or the
    /// kind of transport failure.
    pub fn reply(&mut self, sent: &Result<UpstreamResponse, SendError>) {
        for attribute in reply_attributes(sent) {
            self.span.set_attribute(attribute);
        }
    }

    /// Ends the attempt's span: `class` is how the attempt failed, `None` for a reply
    /// that was used.
    pub fn end(mut self, class: Option<ErrorClass>) {
        if let Some(class) = class {
            self.span
                .set_attribute(KeyValue::new("toolgate.error_class", class.as_str()));
            self.span
                .set_attribute(KeyValue::new("error.type", class.as_str()));
            self.span.set_status(Status::error(class.as_str()));
        }
        self.span.end();
    }
}

/// The call span's attributes known when it starts.
fn call_attributes(spec: &ToolSpec, call_id: Option<&str>) -> Vec<KeyValue> {
    let mut attributes = vec![
        KeyValue::new("gen_ai.operation.name", "execute_tool"),
        KeyValue::new("gen_ai.tool.name", spec.name.clone()),
        KeyValue::new("toolgate.dependency", spec.dependency.name.clone()),
        KeyValue::new("toolgate.contract_version", spec.contract.version.clone()),
    ];
    if let ToolKind::Mcp { server, .. } = &spec.kind {
        attributes.push(KeyValue::new("gen_ai.tool.type", "extension"));
        attributes.push(KeyValue::new("toolgate.mcp_server", server.clone()));
    } else {
        attributes.push(KeyValue::new("gen_ai.tool.type", "function"));
    }
    if let Some(id) = call_id.and_then(call_id_text) {
        attributes.push(KeyValue::new("gen_ai.tool.call.id", id));
    }
    attributes
}

/// A JSON-RPC id's JSON text as the id itself: a string without its quotes, a number
/// as written; cut to [`MAX_CALL_ID`] characters, control characters dropped.
fn call_id_text(json: &str) -> Option<String> {
    let text = if json.starts_with('"') {
        serde_json::from_str::<String>(json).ok()?
    } else {
        json.to_string()
    };
    let text: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_CALL_ID)
        .collect();
    (!text.is_empty()).then_some(text)
}

/// The call span's attributes known when it ends.
fn outcome_attributes(end: &CallEnd<'_>) -> Vec<KeyValue> {
    let mut attributes = vec![
        KeyValue::new("toolgate.attempts", i64::from(end.attempts)),
        KeyValue::new(
            "toolgate.paced_ms",
            i64::try_from(end.paced.as_millis()).unwrap_or(i64::MAX),
        ),
        KeyValue::new("toolgate.drift", end.drift.is_some()),
        KeyValue::new("toolgate.breaker.state", breaker_state(end.breaker)),
    ];
    if let Some(summary) = &end.drift {
        attributes.push(KeyValue::new("toolgate.drift.summary", summary.clone()));
    }
    if let Some(class) = end.class {
        attributes.push(KeyValue::new("toolgate.error_class", class.as_str()));
        attributes.push(KeyValue::new("error.type", class.as_str()));
    }
    attributes
}

fn breaker_state(state: &BreakerState) -> &'static str {
    match state {
        BreakerState::Closed => "closed",
        BreakerState::Open { .. } => "open",
        BreakerState::HalfOpen => "half_open",
    }
}

/// An attempt span's name and its attributes known before it is sent: the HTTP method
/// and the upstream's host and port (never the URL: its query may carry a key), or the
/// MCP method and the tool's name on its server.
fn attempt_attributes(spec: &ToolSpec) -> (String, Vec<KeyValue>) {
    let mut attributes = Vec::with_capacity(6);
    let base = &spec.dependency.base_url;
    if let Some(host) = base.host_str() {
        attributes.push(KeyValue::new("server.address", host.to_string()));
        if let Some(port) = base.port_or_known_default() {
            attributes.push(KeyValue::new("server.port", i64::from(port)));
        }
    }
    let name = match &spec.kind {
        ToolKind::Http(template) => {
            let method = template.method.as_str().to_string();
            attributes.push(KeyValue::new("http.request.method", method.clone()));
            method
        }
        ToolKind::Mcp { tool, .. } => {
            attributes.push(KeyValue::new("mcp.method.name", "tools/call"));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
            format!("tools/call {tool}")
        }
    };
    (name, attributes)
}

/// What one attempt's wire outcome adds to its span.
fn reply_attributes(sent: &Result<UpstreamResponse, SendError>) -> Vec<KeyValue> {
    match sent {
        Ok(reply) => {
            let mut attributes = vec![KeyValue::new(
                "http.response.status_code",
                i64::from(reply.status),
            )];
            // An MCP answer's body is `{"error": {"code": …}}` for a JSON-RPC error: its
            // code is the MCP conventions' `rpc.response.status_code`. Only the code is
            // read — never the message or the result.
            if let Some(code) = jsonrpc_error_code(&reply.body) {
                attributes.push(KeyValue::new("rpc.response.status_code", code.to_string()));
            }
            attributes
        }
        Err(e) => {
            let (kind, status) = match e {
                SendError::Timeout(_) => ("timeout", None),
                SendError::Connect { .. } => ("connect", None),
                SendError::Build { .. } => ("build", None),
                SendError::Broken { .. } => ("broken", None),
                SendError::Protocol { .. } => ("protocol", None),
                SendError::TooLarge { status, .. } => ("too_large", Some(*status)),
                SendError::TooManyValues { .. } => ("too_many_values", None),
                SendError::NoRoom { status, .. } => ("no_room", Some(*status)),
            };
            let mut attributes = vec![KeyValue::new("toolgate.transport_error", kind)];
            if let Some(status) = status {
                attributes.push(KeyValue::new(
                    "http.response.status_code",
                    i64::from(status),
                ));
            }
            attributes
        }
    }
}

/// The JSON-RPC error code of an MCP attempt's body, when it is an error. Cheap for
/// other bodies: only a body that starts as `{"error"` is parsed.
fn jsonrpc_error_code(body: &[u8]) -> Option<i64> {
    if !body.starts_with(br#"{"error""#) {
        return None;
    }
    let v: Value = serde_json::from_slice(body).ok()?;
    v.get("error")?.get("code")?.as_i64()
}

/// `{endpoint}/v1/traces`, keeping a path the endpoint already has (a collector behind a
/// prefix).
fn traces_endpoint(endpoint: &url::Url) -> url::Url {
    let mut url = endpoint.clone();
    let path = url.path().trim_end_matches('/').to_string();
    url.set_path(&format!("{path}/v1/traces"));
    url
}

/// Scheme, host and port: what a log line may say about the collector (its URL may
/// carry credentials).
fn origin_of(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

/// The OTLP exporter, logging a failing collector once (and its recovery), not once per
/// batch; the error text never shows the endpoint's full URL.
#[derive(Debug)]
struct LoggedOnce<E> {
    inner: E,
    failing: AtomicBool,
    redact: String,
    origin: String,
}

impl<E> LoggedOnce<E> {
    /// Records whether an export failed; true when that differs from the last one (the
    /// first failure, and the first success after failures: what is logged).
    fn changed(&self, failed: bool) -> bool {
        self.failing.swap(failed, Ordering::Relaxed) != failed
    }
}

impl<E: SpanExporter> SpanExporter for LoggedOnce<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let result = self.inner.export(batch).await;
        if self.changed(result.is_err()) {
            match &result {
                Err(e) => {
                    let error = e.to_string().replace(&self.redact, &self.origin);
                    tracing::warn!(
                        collector = %self.origin,
                        spans,
                        %error,
                        "trace export failed; spans are dropped until the collector answers (logged once)"
                    );
                }
                Ok(()) => tracing::info!(collector = %self.origin, "trace export works again"),
            }
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

#[cfg(test)]
mod tests;

use crate::trace_context::{caller_context, traceparent};
