//! The MCP server, transport-agnostic: one JSON-RPC message in, at most one answer out
//! (what a request sends its client before the answer goes through its `Outbound`).
//! Streamable HTTP and stdio both call [`Server::handle`]; what differs between them
//! (sessions, headers, status codes, framing) stays in the transports.
//!
//! Two lifecycles reach it. The handshake revisions (up to 2025-11-25) negotiate a
//! version with `initialize`, and the transport passes that version with each later
//! request. The 2026-07-28 revision has no handshake: each request carries its version
//! and client capabilities in `params._meta` (such a request is "inline" here), and its
//! results carry `resultType` (and cache hints on lists).

use std::sync::Arc;

use rmcp::model::{
    DiscoverResult, Implementation, InitializeRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::jsonrpc::{self, Id, Message};
use super::outbound::{LOG_LEVELS, Outbound};
use tokio_util::sync::CancellationToken;
use toolgate_engine::broadcast::Broadcast;
use toolgate_engine::gateway::Gateway;
use toolgate_engine::sync::lock;
use toolgate_engine::upstream::mcp::{BoxFuture, ClientChannel, RpcError};

/// The error a cancelled request is answered with (the client ignores it).
use toolgate_mcp_client::codes::REQUEST_CANCELLED;

/// `_meta` keys of the 2026-07-28 revision.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The first revision without the `initialize` handshake.
pub const INLINE_VERSION: &str = "2026-07-28";
/// The version `initialize` answers when the client asks for one it cannot have over a
/// handshake (2026-07-28 or an unknown one).
const NEWEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

/// Whether a protocol version is one this server speaks; the list is rmcp's.
pub fn is_supported(version: &str) -> bool {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|v| v.as_str() == version)
}

/// The supported version equal to `version`.
fn supported(version: &str) -> Option<&'static ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|v| v.as_str() == version)
}

/// What a request says about its own lifecycle, read from `params._meta`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inline {
    /// `io.modelcontextprotocol/protocolVersion`, when it is a string.
    pub version: Option<String>,
    /// Whether `io.modelcontextprotocol/clientCapabilities` is an object.
    pub capabilities: bool,
    /// That object, when it is one.
    pub client_capabilities: Option<Value>,
}

impl Inline {
    /// Reads the `_meta` of `params` (absent or malformed keys read as absent).
    pub fn of(params: Option<&RawValue>) -> Inline {
        #[derive(serde::Deserialize)]
        struct P {
            #[serde(rename = "_meta")]
            meta: Option<Map<String, Value>>,
        }
        let mut meta = params
            .and_then(|p| serde_json::from_str::<P>(p.get()).ok())
            .and_then(|p| p.meta)
            .unwrap_or_default();
        let client_capabilities = meta.remove(META_CAPABILITIES).filter(Value::is_object);
        Inline {
            version: meta
                .get(META_VERSION)
                .and_then(Value::as_str)
                .map(str::to_owned),
            capabilities: client_capabilities.is_some(),
            client_capabilities,
        }
    }

    /// Both required keys are there: the request selects the 2026-07-28 lifecycle.
    pub fn complete(&self) -> bool {
        self.version.is_some() && self.capabilities
    }

    fn missing(&self) -> String {
        let mut missing = Vec::new();
        if self.version.is_none() {
            missing.push(META_VERSION);
        }
        if !self.capabilities {
            missing.push(META_CAPABILITIES);
        }
        missing.join(", ")
    }
}

/// One answer, with what a transport needs to frame it.
#[derive(Debug)]
pub struct Reply {
    /// The JSON-RPC message.
    pub body: Vec<u8>,
    /// The error code, when the answer is an error.
    pub error: Option<i64>,
    /// Answered under the 2026-07-28 lifecycle (HTTP maps its errors to statuses).
    pub inline: bool,
    /// The request lacked its required `_meta` keys (an HTTP 400 under 2026-07-28).
    pub meta_malformed: bool,
    /// For a successful `initialize`: the negotiated version, which opens a session.
    pub negotiated: Option<ProtocolVersion>,
    /// For a successful `initialize`: the client's `capabilities`, as sent.
    pub client_capabilities: Option<Value>,
}

impl Reply {
    fn ok(body: Vec<u8>, inline: bool) -> Reply {
        Reply {
            body,
            error: None,
            inline,
            meta_malformed: false,
            negotiated: None,
            client_capabilities: None,
        }
    }

    /// A successful answer with this body, for transport tests.
    #[cfg(test)]
    pub(crate) fn test_ok(body: Vec<u8>) -> Reply {
        Reply::ok(body, false)
    }

    fn err(id: &Id, code: i64, message: &str, data: Option<&Value>, inline: bool) -> Reply {
        Reply {
            body: jsonrpc::error(Some(id), code, message, data),
            error: Some(code),
            inline,
            meta_malformed: false,
            negotiated: None,
            client_capabilities: None,
        }
    }
}

/// The calling client's way back, as the call path sees it.
#[derive(Debug)]
struct ClientOf(Outbound);

impl ClientChannel for ClientOf {
    fn notify(&self, method: &str, params: Option<Value>) {
        self.0.notify(method, params);
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
    ) -> BoxFuture<'a, Result<Value, RpcError>> {
        Box::pin(async move { self.0.request(method, params).await })
    }

    fn capabilities(&self) -> Option<Value> {
        self.0.client_capabilities().cloned()
    }
}

/// `tools/list` for one route table: handshake shape, 2026-07-28 shape, and the names
/// for the unknown-tool error.
#[derive(Debug)]
struct ToolList {
    routes: Arc<toolgate_engine::gateway::RouteTable>,
    handshake: Vec<u8>,
    inline: Vec<u8>,
    names: String,
}

/// `tools/list` for `routes`, without what `agent` may not call.
fn build_tool_list(
    routes: Arc<toolgate_engine::gateway::RouteTable>,
    agent: Option<&toolgate_config::AgentSpec>,
) -> ToolList {
    let mut specs: Vec<&Arc<toolgate_config::ToolSpec>> = routes
        .values()
        .map(|r| &r.spec)
        .filter(|spec| agent.is_none_or(|a| a.may_call(&spec.name)))
        .collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut tools: Vec<Tool> = specs.iter().map(|t| super::describe(t)).collect();
    tools.push(super::health_tool());
    let names = tools
        .iter()
        .map(|t| t.name.as_ref())
        .collect::<Vec<_>>()
        .join(", ");
    let list = serde_json::to_value(&tools).unwrap_or(Value::Array(Vec::new()));
    let handshake = serde_json::to_vec(&json!({ "tools": list })).unwrap_or_default();
    let inline = serde_json::to_vec(&json!({
        "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": list
    }))
    .unwrap_or_default();
    ToolList {
        routes,
        handshake,
        inline,
        names,
    }
}

/// The MCP server over a gateway. Cheap to share (`Arc`); answers concurrently.
#[derive(Debug)]
pub struct Server {
    /// The gateway in force, replaced by a reload; read once per request.
    current: Arc<toolgate_engine::reload::Current>,
    info: ServerConfig,
    /// `tools/list` results for the current route table.
    tools: std::sync::Mutex<Option<Arc<ToolList>>>,
    /// The same, for each agent whose tools are restricted.
    agent_tools: std::sync::Mutex<std::collections::HashMap<String, Arc<ToolList>>>,
    /// Which upstream server listed which resource.
    resources: toolgate_engine::fronting::passthrough::ResourceIndex,
    /// Tool calls running now, by (the client's session or connection, request id), so
    /// `notifications/cancelled` can stop one.
    running: std::sync::Mutex<std::collections::HashMap<(usize, String), CancellationToken>>,
    /// Server-initiated notifications to every connected client.
    broadcast: Broadcast,
}

impl Server {
    /// A server over `gateway` alone (no reloads: stdio without a config file, tests).
    pub fn new(gateway: Arc<Gateway>) -> Server {
        Server::serving(toolgate_engine::reload::Current::new(gateway, None))
    }

    /// Builds the server info once; the tool list is built when the tools change.
    pub fn serving(current: Arc<toolgate_engine::reload::Current>) -> Server {
        let gateway = current.load();
        // Logging is advertised so clients may set a level: it filters the log messages
        // relayed to that client (`Outbound::notify`). Tools may change at run time when
        // an upstream MCP server's do, and what upstream servers offer besides tools is
        // passed through.
        let mut capabilities = json!({ "logging": {}, "tools": { "listChanged": true } });
        if let (Value::Object(c), Value::Object(extra)) = (
            &mut capabilities,
            toolgate_engine::fronting::passthrough::capabilities(gateway.fronting()),
        ) {
            c.extend(extra);
        }
        let capabilities: ServerCapabilities =
            serde_json::from_value(capabilities).unwrap_or_default();
        let info = ServerConfig::new(capabilities)
        .with_server_info(Implementation::new("toolgate", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Tools behind toolgate report upstream conditions in lines starting with `toolgate:`; \
             follow their advice (wait, use a successor, stop retrying) instead of retrying yourself.",
        );
        Server {
            broadcast: gateway.broadcast().clone(),
            current,
            info,
            tools: std::sync::Mutex::new(None),
            agent_tools: Default::default(),
            resources: Default::default(),
            running: Default::default(),
        }
    }

    /// The gateway in force.
    fn gateway(&self) -> Arc<Gateway> {
        self.current.load()
    }

    /// The tool list for the current route table, serialised once per table.
    fn tool_list(&self) -> Arc<ToolList> {
        let routes = self.gateway().routes();
        let mut cache = lock(&self.tools);
        if let Some(list) = cache.as_ref()
            && Arc::ptr_eq(&list.routes, &routes)
        {
            return list.clone();
        }
        let built = Arc::new(build_tool_list(routes, None));
        *cache = Some(built.clone());
        built
    }

    /// The tool list `agent` sees: without the tools it may not call. An agent without
    /// tool patterns sees the shared list; the others' lists are cached per agent (the
    /// config bounds how many).
    fn tool_list_for(&self, agent: Option<&Arc<toolgate_config::AgentSpec>>) -> Arc<ToolList> {
        let Some(agent) = agent.filter(|a| a.tools.is_some() || !a.deny.is_empty()) else {
            return self.tool_list();
        };
        let routes = self.gateway().routes();
        let mut cache = lock(&self.agent_tools);
        if let Some(list) = cache.get(&agent.name)
            && Arc::ptr_eq(&list.routes, &routes)
        {
            return list.clone();
        }
        let built = Arc::new(build_tool_list(routes, Some(agent)));
        cache.insert(agent.name.clone(), built.clone());
        built
    }

    /// Notifications to every connected client (`notifications/tools/list_changed`, …):
    /// the transports deliver them on each session's GET stream and on stdio.
    pub fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    /// Answers one message. `session` is the version negotiated by this client's
    /// `initialize`, when there was one. `outbound` is the way back to the client that
    /// sent it: a request sends its notifications and server→client requests through
    /// it, and a client's answer to one of those (a JSON-RPC response) is handed to the
    /// request waiting for it. Notifications and responses get `None`.
    pub async fn handle(
        &self,
        message: Message<'_>,
        session: Option<&str>,
        outbound: &Outbound,
    ) -> Option<Reply> {
        match message {
            Message::Request { id, method, params } => {
                Some(self.request(&id, &method, params, session, outbound).await)
            }
            Message::Reply { id, outcome } => {
                if !outbound.deliver(id.as_ref(), outcome) {
                    tracing::debug!(
                        id = id.as_ref().map_or("null", Id::json),
                        "a client's response matches no request waiting for one: dropped"
                    );
                }
                None
            }
            Message::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    self.cancel(params, outbound);
                }
                None
            }
        }
    }

    async fn request(
        &self,
        id: &Id,
        method: &str,
        params: Option<&RawValue>,
        session: Option<&str>,
        outbound: &Outbound,
    ) -> Reply {
        if method == "initialize" {
            return self.initialize(id, params);
        }
        let inline = Inline::of(params);
        if let Some(version) = &inline.version
            && !is_supported(version)
        {
            let supported: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .map(|v| v.as_str())
                .collect();
            return Reply::err(
                id,
                jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                Some(&json!({ "requested": version, "supported": supported })),
                true,
            );
        }
        // A request declaring 2026-07-28 or later, and `server/discover`, use the
        // 2026-07-28 lifecycle, which needs both `_meta` keys.
        let is_inline = method == "server/discover"
            || inline
                .version
                .as_deref()
                .is_some_and(|v| v >= INLINE_VERSION);
        if is_inline && !inline.complete() {
            let mut reply = Reply::err(
                id,
                jsonrpc::INVALID_PARAMS,
                &format!(
                    "Invalid params: request _meta is missing or has malformed required fields: {}",
                    inline.missing()
                ),
                None,
                true,
            );
            reply.meta_malformed = true;
            return reply;
        }
        let modern = if is_inline {
            inline
                .version
                .as_deref()
                .is_some_and(|v| v >= INLINE_VERSION)
        } else {
            session.is_some_and(|v| v >= INLINE_VERSION)
        };
        match method {
            "ping" if modern => Reply::err(id, jsonrpc::METHOD_NOT_FOUND, method, None, true),
            "ping" => Reply::ok(jsonrpc::raw_result(id, b"{}"), false),
            "server/discover" => {
                let versions = ProtocolVersion::KNOWN_VERSIONS.to_vec();
                let result = DiscoverResult::from_server_info(versions, self.info.clone());
                Reply::ok(jsonrpc::result(id, &result), true)
            }
            "tools/list" => {
                let list = self.tool_list_for(outbound.agent());
                let raw = if modern {
                    &list.inline
                } else {
                    &list.handshake
                };
                Reply::ok(jsonrpc::raw_result(id, raw), modern)
            }
            m if toolgate_engine::fronting::passthrough::handles(m)
                && !self.gateway().fronting().is_empty() =>
            {
                self.passthrough(id, m, params, modern, outbound).await
            }
            "tools/call" => {
                self.cancellable(id, outbound, self.call(id, params, modern, outbound))
                    .await
            }
            "logging/setLevel" => {
                let level = params
                    .and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
                    .and_then(|p| p.get("level").and_then(Value::as_str).map(str::to_owned));
                match level {
                    // The level filters the log messages relayed to this client.
                    Some(l) if outbound.set_log_level(&l) => {
                        let raw: &[u8] = if modern {
                            br#"{"resultType":"complete"}"#
                        } else {
                            b"{}"
                        };
                        Reply::ok(jsonrpc::raw_result(id, raw), modern)
                    }
                    _ => Reply::err(
                        id,
                        jsonrpc::INVALID_PARAMS,
                        &format!("`level` must be one of {}", LOG_LEVELS.join(", ")),
                        None,
                        modern,
                    ),
                }
            }
            _ => Reply::err(id, jsonrpc::METHOD_NOT_FOUND, method, None, modern),
        }
    }

    fn initialize(&self, id: &Id, params: Option<&RawValue>) -> Reply {
        let params_raw = params;
        let parsed = params
            .ok_or_else(|| "`params` are required".to_owned())
            .and_then(|p| {
                serde_json::from_str::<InitializeRequestParams>(p.get()).map_err(|e| e.to_string())
            });
        let params = match parsed {
            Ok(p) => p,
            Err(e) => {
                return Reply::err(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    &format!("Invalid params for initialize: {e}"),
                    None,
                    false,
                );
            }
        };
        let requested = params.protocol_version.as_str();
        let negotiated = match supported(requested) {
            Some(v) if v.has_initialize() => v.clone(),
            _ => NEWEST_HANDSHAKE,
        };
        let mut info = self.info.clone();
        info.protocol_version = negotiated.clone();
        let mut reply = Reply::ok(jsonrpc::result(id, &info), false);
        reply.negotiated = Some(negotiated);
        reply.client_capabilities = client_capabilities(params_raw);
        reply
    }

    async fn call(
        &self,
        id: &Id,
        params: Option<&RawValue>,
        modern: bool,
        outbound: &Outbound,
    ) -> Reply {
        let mut params = params
            .and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
            .unwrap_or_default();
        let Some(Value::String(name)) = params.remove("name") else {
            return Reply::err(
                id,
                jsonrpc::INVALID_PARAMS,
                "tools/call needs `params.name`, a string",
                None,
                modern,
            );
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Reply::err(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "`params.arguments` must be an object",
                    None,
                    modern,
                );
            }
        };
        if name == toolgate_engine::health::TOOL_NAME {
            return self.dependency_health(id, &arguments, modern).await;
        }
        #[cfg(test)]
        if name == tests::RELAY_TOOL {
            return tests::relay_tool(id, params.get("_meta"), outbound, modern).await;
        }
        // The gateway in force when the call arrived: the call runs on its routes to
        // the end, whatever a reload swaps in meanwhile.
        let gateway = self.gateway();
        let Some(route) = gateway.route(&name) else {
            // A tool withheld for review is known to a client with a cached list: it gets
            // a result the model reads, not a protocol error a framework raises.
            if let Some(owner) = gateway.fronting().withheld(&name) {
                return withheld(id, &name, &owner, modern);
            }
            return Reply::err(
                id,
                jsonrpc::INVALID_PARAMS,
                &format!(
                    "unknown tool `{name}`; available tools: {}",
                    self.tool_list_for(outbound.agent()).names
                ),
                None,
                modern,
            );
        };
        // An upstream MCP server talks to the calling client during the call; an HTTP
        // tool never does.
        let client: Option<Arc<dyn ClientChannel>> = route
            .server()
            .map(|_| Arc::new(ClientOf(outbound.clone())) as Arc<dyn ClientChannel>);
        let ctx = toolgate_engine::pipeline::CallContext {
            client,
            meta: match params.remove("_meta") {
                Some(Value::Object(m)) => Some(m),
                _ => None,
            },
            call_id: Some(id.json().to_string()),
            agent: gateway.agents().caller(outbound.agent()),
            access_token: outbound.access_token().cloned(),
        };
        // One lookup by name in the route table; nothing cloned but the route's `Arc`.
        let outcome = toolgate_engine::pipeline::run(
            &route,
            gateway.services(),
            arguments,
            toolgate_engine::pipeline::Origin::Agent,
            &ctx,
        )
        .await;
        let placement = super::answer::NotesPlacement::of(&route.spec);
        Reply::ok(
            super::answer::tool_call(id.json(), outcome, modern, placement),
            modern,
        )
    }

    /// Runs a request that the client may cancel: on `notifications/cancelled` naming it,
    /// the request's future is dropped — for an upstream MCP server's tool that cancels
    /// the upstream request too — and it is answered with an error the client ignores.
    async fn cancellable(
        &self,
        id: &Id,
        outbound: &Outbound,
        work: impl std::future::Future<Output = Reply>,
    ) -> Reply {
        let Some(channel) = outbound.channel() else {
            return work.await;
        };
        let key = (channel, id.json().to_string());
        let token = CancellationToken::new();
        toolgate_engine::sync::lock(&self.running).insert(key.clone(), token.clone());
        let reply = tokio::select! {
            reply = work => reply,
            () = token.cancelled() => Reply::err(id, REQUEST_CANCELLED, "Request cancelled", None, false),
        };
        toolgate_engine::sync::lock(&self.running).remove(&key);
        reply
    }

    /// A client's `notifications/cancelled {requestId}`: stops that request of its own.
    fn cancel(&self, params: Option<&RawValue>, outbound: &Outbound) {
        let Some(channel) = outbound.channel() else {
            return;
        };
        let id = params
            .and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
            .and_then(|p| p.get("requestId").cloned());
        let Some(id) = id.and_then(|v| serde_json::to_string(&v).ok()) else {
            return;
        };
        if let Some(token) = toolgate_engine::sync::lock(&self.running).remove(&(channel, id)) {
            token.cancel();
        }
    }

    async fn passthrough(
        &self,
        id: &Id,
        method: &str,
        params: Option<&RawValue>,
        modern: bool,
        outbound: &Outbound,
    ) -> Reply {
        let params = params.and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
        let client: Arc<dyn ClientChannel> = Arc::new(ClientOf(outbound.clone()));
        let gateway = self.gateway();
        match toolgate_engine::fronting::passthrough::forward(
            gateway.fronting(),
            &self.resources,
            method,
            params,
            Some(client),
        )
        .await
        {
            Ok(mut result) => {
                if modern && let Value::Object(m) = &mut result {
                    m.insert("resultType".into(), "complete".into());
                }
                Reply::ok(jsonrpc::result(id, &result), modern)
            }
            Err(e) => Reply::err(id, e.code, &e.message, e.data.as_ref(), modern),
        }
    }

    async fn dependency_health(&self, id: &Id, args: &Map<String, Value>, modern: bool) -> Reply {
        let only = args.get("dependency").and_then(Value::as_str);
        let mut result = match toolgate_engine::health::report(&self.gateway(), only).await {
            Ok(report) => json!({
                "content": [{ "type": "text", "text": toolgate_engine::health::summary(&report) }],
                "structuredContent": report,
                "isError": false,
            }),
            Err(message) => json!({
                "content": [{ "type": "text", "text": format!(
                    "{}: {message}. Error class: client_error.", toolgate_engine::health::TOOL_NAME
                ) }],
                "isError": true,
            }),
        };
        if modern && let Value::Object(m) = &mut result {
            m.insert("resultType".into(), "complete".into());
        }
        Reply::ok(jsonrpc::result(id, &result), modern)
    }
}

/// The answer to a call of a tool withheld (`on_change: block`) until its changed
/// definition is reviewed: a failed tool result, like any call toolgate refused.
fn withheld(id: &Id, tool: &str, owner: &str, modern: bool) -> Reply {
    let outcome = toolgate_engine::pipeline::CallOutcome::withheld(tool, owner);
    let placement = super::answer::NotesPlacement {
        mode: toolgate_config::NotesMode::default(),
        member: None,
    };
    Reply::ok(
        super::answer::tool_call(id.json(), outcome, modern, placement),
        modern,
    )
}

/// The `capabilities` object of `initialize` params, as the client sent it (rmcp's type
/// would drop capabilities it does not know).
fn client_capabilities(params: Option<&RawValue>) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct P {
        capabilities: Option<Value>,
    }
    serde_json::from_str::<P>(params?.get())
        .ok()?
        .capabilities
        .filter(Value::is_object)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A tool that exists only in tests: it sends two progress notifications (with the
    /// call's `progressToken`, if any), one log message, and one
    /// `sampling/createMessage` through the call's `Outbound`, and returns what the client
    /// answered as its text.
    pub(crate) const RELAY_TOOL: &str = "relay_test";

    pub(crate) async fn relay_tool(
        id: &Id,
        meta: Option<&Value>,
        outbound: &Outbound,
        modern: bool,
    ) -> Reply {
        let token = meta
            .and_then(|m| m.get("progressToken"))
            .cloned()
            .unwrap_or_else(|| json!("relay"));
        for progress in [1, 2] {
            outbound.notify(
                "notifications/progress",
                Some(json!({ "progressToken": token, "progress": progress, "total": 2 })),
            );
        }
        outbound.notify(
            "notifications/message",
            Some(json!({ "level": "info", "logger": "relay", "data": "asking the client" })),
        );
        let asked = outbound
            .request(
                "sampling/createMessage",
                Some(json!({
                    "messages": [{ "role": "user", "content": { "type": "text", "text": "hello?" } }],
                    "maxTokens": 16
                })),
            )
            .await;
        let sampling = outbound
            .client_capabilities()
            .is_some_and(|c| c.get("sampling").is_some());
        let text = match asked {
            Ok(v) => format!(
                "client answered: {} (sampling declared: {sampling})",
                v.pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
            ),
            Err(e) => format!("client could not answer: {e} (sampling declared: {sampling})"),
        };
        let mut result = json!({ "content": [{ "type": "text", "text": text }], "isError": false });
        if modern && let Value::Object(m) = &mut result {
            m.insert("resultType".into(), "complete".into());
        }
        Reply::ok(jsonrpc::result(id, &result), modern)
    }

    const CONFIG: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

    pub(crate) fn server() -> Server {
        let dir = std::env::temp_dir().join(format!(
            "toolgate-dispatch-{}-{}",
            std::process::id(),
            rand::random::<u64>()
        ));
        let yaml = format!(
            "gateway:\n  state: {}\n{CONFIG}",
            dir.join("s.db").display()
        );
        let env = |_: &str| None;
        let config = toolgate_config::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &env,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
        Server::new(Gateway::new(config, store).unwrap())
    }

    async fn ask(s: &Server, body: &str, session: Option<&str>) -> (Value, Reply) {
        let message = jsonrpc::parse(body.as_bytes()).expect("a message");
        let reply = s
            .handle(message, session, &Outbound::none())
            .await
            .expect("an answer");
        let value = serde_json::from_slice(&reply.body).expect("JSON");
        (value, reply)
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[tokio::test]
    async fn initialize_negotiates_a_handshake_version() {
        let s = server();
        for (asked, got) in [
            ("2025-06-18", "2025-06-18"),
            ("2025-03-26", "2025-03-26"),
            ("2026-07-28", "2025-11-25"),
            ("2099-01-01", "2025-11-25"),
        ] {
            let (v, reply) = ask(
                &s,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{asked}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
                ),
                None,
            )
            .await;
            assert_eq!(v["result"]["protocolVersion"], got, "{asked}");
            assert_eq!(reply.negotiated.as_ref().map(|p| p.as_str()), Some(got));
            assert_eq!(
                v["result"]["capabilities"],
                json!({"logging": {}, "tools": {"listChanged": true}})
            );
        }
        let (v, reply) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            None,
        )
        .await;
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
        assert!(reply.negotiated.is_none());
    }

    #[tokio::test]
    async fn each_lifecycle_gets_its_own_shapes_and_errors() {
        let s = server();
        let (v, _) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            Some("2025-11-25"),
        )
        .await;
        assert_eq!(v["result"], json!({}));
        let (v, reply) = ask(
            &s,
            &format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{{META}}}}}"#),
            None,
        )
        .await;
        assert_eq!(
            v["error"]["code"],
            jsonrpc::METHOD_NOT_FOUND,
            "2026-07-28 has no ping"
        );
        assert!(reply.inline);

        let (v, _) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            Some("2025-11-25"),
        )
        .await;
        assert!(v["result"].get("resultType").is_none());
        assert_eq!(
            v["result"]["tools"][1]["name"],
            toolgate_engine::health::TOOL_NAME
        );
        let (v, _) = ask(
            &s,
            &format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{META}}}}}"#),
            None,
        )
        .await;
        assert_eq!(v["result"]["resultType"], "complete");
        assert_eq!(v["result"]["ttlMs"], 0);

        let unsupported = META.replace("2026-07-28", "2099-01-01");
        let (v, reply) = ask(
            &s,
            &format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{{unsupported}}}}}"#
            ),
            None,
        )
        .await;
        assert_eq!(v["error"]["code"], jsonrpc::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(v["error"]["data"]["requested"], "2099-01-01");
        assert!(reply.inline);

        let (v, reply) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            None,
        )
        .await;
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
        assert!(reply.meta_malformed);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(META_CAPABILITIES)
        );

        let (v, _) = ask(
            &s,
            &format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{{{META}}}}}"#
            ),
            None,
        )
        .await;
        assert_eq!(v["result"]["supportedVersions"][4], "2026-07-28");
        assert_eq!(
            v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "toolgate"
        );

        let (v, _) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":8,"method":"resources/list"}"#,
            Some("2025-11-25"),
        )
        .await;
        assert_eq!(v["error"]["code"], jsonrpc::METHOD_NOT_FOUND);
        let (v, _) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"loud"}}"#,
            Some("2025-11-25"),
        )
        .await;
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
        let (v, _) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{"level":"warning"}}"#,
            Some("2025-11-25"),
        )
        .await;
        assert_eq!(v["result"], json!({}));
        let (v, _) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope"}}"#,
            Some("2025-11-25"),
        )
        .await;
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("available tools: t, dependency_health")
        );
        let notification =
            jsonrpc::parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .expect("parses");
        assert!(
            s.handle(notification, Some("2025-11-25"), &Outbound::none())
                .await
                .is_none()
        );
    }
}
