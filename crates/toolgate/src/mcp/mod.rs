//! The MCP surface, and the only module that touches `rmcp` (it had three major
//! versions in 2026; keeping it here keeps an upgrade to one module).
//!
//! Tools come from the config, so `ServerHandler` is implemented by hand: `list_tools`
//! serves the precomputed list, `call_tool` runs the pipeline and puts its outcome
//! into MCP terms (`structuredContent`, text content, notes, `_meta`). Over HTTP, most
//! `tools/call` requests never reach it: `direct` answers them with the same members
//! from the upstream's bytes (see that module for why and when).

pub mod direct;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::config::ToolSpec;
use crate::gateway::Gateway;
use crate::pipeline::CallOutcome;

/// `_meta` key under which every result carries its signals.
pub const SIGNALS_META_KEY: &str = "dev.toolgate/signals";

/// Prefix of every note line in a result's text content.
pub const NOTE_PREFIX: &str = "toolgate: ";

/// An MCP server over a gateway; cheap to clone (one per session).
#[derive(Debug, Clone)]
pub struct McpServer {
    gateway: Arc<Gateway>,
    tools: Arc<Vec<Tool>>,
}

impl McpServer {
    /// Builds the tool list once; every session shares it.
    pub fn new(gateway: Arc<Gateway>) -> McpServer {
        let mut tools: Vec<Tool> = gateway
            .config()
            .tools
            .values()
            .map(|t| describe(t))
            .collect();
        tools.push(health_tool());
        McpServer {
            gateway,
            tools: Arc::new(tools),
        }
    }

    async fn dependency_health(&self, args: Option<JsonObject>) -> CallToolResult {
        let only = args
            .as_ref()
            .and_then(|a| a.get("dependency"))
            .and_then(Value::as_str);
        match crate::health::report(&self.gateway, only).await {
            Ok(report) => {
                let text = crate::health::summary(&report);
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = Some(report);
                r
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(format!(
                "{}: {message}. Error class: client_error.",
                crate::health::TOOL_NAME
            ))]),
        }
    }
}

/// The built-in `dependency_health` tool.
fn health_tool() -> Tool {
    let input = json!({
        "type": "object",
        "properties": { "dependency": { "type": "string", "description": "Only this dependency (default: all)." } }
    });
    let output = json!({
        "type": "object",
        "required": ["dependencies"],
        "properties": { "dependencies": { "type": "object", "additionalProperties": { "type": "object" } } }
    });
    let as_object = |v: Value| match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    Tool::new(
        crate::health::TOOL_NAME,
        "Health of the APIs behind this server's tools: status (healthy/degraded/down/unknown), latency against \
         baseline, error rate, quota left, circuit breaker, status page, deprecations, open incidents, and advice. \
         Call it before a burst of calls or after a failure to decide whether to wait, slow down or use another tool.",
        Arc::new(as_object(input)),
    )
    .with_raw_output_schema(Arc::new(as_object(output)))
    .with_annotations(ToolAnnotations::new().read_only(true).idempotent(true).open_world(false))
}

fn describe(spec: &ToolSpec) -> Tool {
    let mut tool = Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        Arc::new(spec.input_schema.clone()),
    )
    .with_raw_output_schema(Arc::new(spec.contract.output_schema.clone()));
    if let Some(title) = &spec.title {
        tool = tool.with_title(title.clone());
    }
    let a = spec.annotations;
    if a != Default::default() {
        let mut ann = ToolAnnotations::new();
        ann.read_only_hint = a.read_only;
        ann.destructive_hint = a.destructive;
        ann.idempotent_hint = a.idempotent;
        ann.open_world_hint = a.open_world;
        tool = tool.with_annotations(ann);
    }
    let mut meta = JsonObject::new();
    meta.insert(
        "dev.toolgate/contract".into(),
        json!({ "version": spec.contract.version, "owner": spec.owner, "dependency": spec.dependency.name }),
    );
    tool.with_meta(MetaObject(meta))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolgate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Tools behind toolgate report upstream conditions in lines starting with `toolgate:`; \
                 follow their advice (wait, use a successor, stop retrying) instead of retrying yourself.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name == crate::health::TOOL_NAME {
            return Ok(self.dependency_health(request.arguments).await.into());
        }
        let Some(spec) = self.gateway.tool(&request.name) else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; available tools: {}",
                    request.name,
                    known.join(", ")
                ),
                None,
            ));
        };
        let spec = spec.clone();
        let outcome = self
            .gateway
            .call(&spec, request.arguments.unwrap_or_default())
            .await;
        Ok(to_result(outcome).into())
    }
}

/// Puts a pipeline outcome into MCP terms. Notes go into `content` (clients show the
/// model `content`, rarely `_meta`), and the same data, structured, into `_meta`.
pub fn to_result(outcome: CallOutcome) -> CallToolResult {
    let CallOutcome {
        result,
        notes,
        signals,
    } = outcome;
    let mut content = Vec::with_capacity(2);
    let mut result_value = None;
    let is_error = match result {
        Ok(structured) => {
            content.push(ContentBlock::text(structured.text()));
            result_value = Some(structured.to_value());
            false
        }
        Err(failure) => {
            content.push(ContentBlock::text(failure.message));
            true
        }
    };
    if !notes.is_empty() {
        content.push(ContentBlock::text(notes_text(&notes)));
    }
    let mut meta = JsonObject::new();
    meta.insert(SIGNALS_META_KEY.into(), signals);
    let mut r = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    r.structured_content = result_value;
    r.with_meta(Some(MetaObject(meta)))
}

/// The notes as one text block, a `toolgate:` line each.
pub fn notes_text(notes: &[String]) -> String {
    let lines: Vec<String> = notes.iter().map(|n| format!("{NOTE_PREFIX}{n}")).collect();
    lines.join("\n")
}

/// Serves MCP over stdin/stdout until the client disconnects.
pub async fn serve_stdio(gateway: Arc<Gateway>) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let service = McpServer::new(gateway)
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}

/// Everything under `/mcp`: `tools/call` answered directly where it can be (see
/// `direct`), every other request by rmcp's streamable HTTP service.
pub fn http_router(
    gateway: Arc<Gateway>,
    allowed_hosts: Vec<String>,
    shutdown: tokio_util::sync::CancellationToken,
) -> axum::Router {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(allowed_hosts);
    let direct = Arc::new(direct::Direct::new(gateway.clone(), hosts.clone()));
    let sessions = direct.session_manager();
    axum::Router::new()
        .fallback_service(http_service(gateway, hosts, sessions, shutdown))
        .layer(axum::middleware::from_fn_with_state(
            direct,
            direct::serve_or_pass,
        ))
}

/// rmcp's streamable HTTP service. Handshake-era clients get sessions (kept in
/// `sessions`, which the direct path reads too); 2026-07-28 requests are served
/// statelessly by the same handler. `hosts` is the complete list of allowed `Host` names.
fn http_service(
    gateway: Arc<Gateway>,
    hosts: Vec<String>,
    sessions: Arc<rmcp::transport::streamable_http_server::session::local::LocalSessionManager>,
    shutdown: tokio_util::sync::CancellationToken,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    McpServer,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let server = McpServer::new(gateway);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)))
        // A stateless (2026-07-28) call rmcp answers gets one JSON body rather than
        // a one-event SSE stream: no stream task, keep-alive timer or chunked framing.
        .with_json_response(true)
        .with_cancellation_token(shutdown);
    StreamableHttpService::new(move || Ok(server.clone()), sessions, config)
}
