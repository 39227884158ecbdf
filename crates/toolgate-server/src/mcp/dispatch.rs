//! The MCP server, transport-agnostic: one JSON-RPC message in, at most one answer out
//! (what a request sends its client before the answer goes through its `Outbound`).
//! Streamable HTTP and stdio both call [`Server::handle`]; what differs between them
//! (sessions, headers, status codes, framing) stays in the transports.
//!
//! Two lifecycles reach it. The handshake revisions (up to 2025-11-25) negotiate a
//! version with `initialize`, and the transport passes that version with each later
//! request. The 2026-07-28 revision has no handshake: each request carries its version
//! and client capabilities in `params._meta` (its era is decided once, `envelope::Era::decide`), and its
//! results carry `resultType` (and cache hints on lists).

use std::sync::Arc;

use rmcp::model::{
    DiscoverResult, Implementation, InitializeRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool,
};
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

use super::envelope::{Era, EraRefusal, Meta, Params};
pub use super::envelope::{INLINE_VERSION, META_CAPABILITIES, META_VERSION, is_supported};
use super::listen::{self, Wanted};

mod reach;
mod scopes;
pub use scopes::StepUp;

/// The version `initialize` answers when the client asks for one it cannot have over a
/// handshake (2026-07-28 or an unknown one).
const NEWEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

/// The supported version equal to `version`.
fn supported(version: &str) -> Option<&'static ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|v| v.as_str() == version)
}

/// Methods 2026-07-28 removed: the handshake and its keep-alive, the session's log
/// level (a request now names its own, `_meta["io.modelcontextprotocol/logLevel"]`) and
/// resource subscriptions (now `subscriptions/listen`). A request of that revision
/// naming one is answered as an unknown method, HTTP 404, as the revision asks.
const REMOVED_IN_INLINE: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// The revision request `id` (`method`, `meta`, in a session of version `session`)
/// is answered under, or the error that answers it when none can be.
fn era_of(id: &Id, method: &str, meta: &Meta, session: Option<&str>) -> Result<Era, Box<Reply>> {
    match Era::decide(method, meta, session) {
        Ok(era) => Ok(era),
        Err(EraRefusal::Unsupported(version)) => {
            let supported: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .map(|v| v.as_str())
                .collect();
            Err(Box::new(Reply::err(
                id,
                jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                Some(&json!({ "requested": version, "supported": supported })),
                Era::Modern,
            )))
        }
        Err(EraRefusal::MetaMalformed(missing)) => {
            let mut reply = Reply::err(
                id,
                jsonrpc::INVALID_PARAMS,
                &format!(
                    "Invalid params: request _meta is missing or has malformed required fields: {missing}"
                ),
                None,
                Era::Modern,
            );
            reply.error = Some(Refused::malformed_meta());
            Err(Box::new(reply))
        }
    }
}

/// Results that carry cache hints (`ttlMs`, `cacheScope`) under 2026-07-28, besides
/// `tools/list`.
const CACHE_HINTED: [&str; 4] = [
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// A refused request as both transports answer it: its JSON-RPC code and, decided
/// here once, the HTTP status the 2026-07-28 streamable HTTP transport answers it with
/// (errors intermediaries must see are HTTP errors too; the rest travel in a 200).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The HTTP status under 2026-07-28; handshake-era answers are always 200.
    pub modern_status: u16,
}

impl Refused {
    /// A refusal with `code`, at the status the revision gives that code.
    fn new(code: i64) -> Refused {
        let modern_status = match code {
            jsonrpc::METHOD_NOT_FOUND => 404,
            jsonrpc::HEADER_MISMATCH
            | jsonrpc::UNSUPPORTED_PROTOCOL_VERSION
            | jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY => 400,
            _ => 200,
        };
        Refused {
            code,
            modern_status,
        }
    }

    /// Invalid params because the request's required `_meta` keys are missing or
    /// malformed: an HTTP 400, where other invalid params are a 200.
    fn malformed_meta() -> Refused {
        Refused {
            code: jsonrpc::INVALID_PARAMS,
            modern_status: 400,
        }
    }
}

/// One answer, with what a transport needs to frame it.
#[derive(Debug)]
pub struct Reply {
    /// The JSON-RPC message.
    pub body: Vec<u8>,
    /// Why, when the answer is an error.
    pub error: Option<Refused>,
    /// The revision it was answered under (HTTP maps 2026-07-28 errors to statuses).
    pub era: Era,
    /// For a successful `initialize`: the negotiated version, which opens a session.
    pub negotiated: Option<ProtocolVersion>,
    /// For a successful `initialize`: the client's `capabilities`, as sent.
    pub client_capabilities: Option<Value>,
}

impl Reply {
    /// No answer at all: a subscription whose stream ended (over stdio, an answer
    /// after it would only confuse the client).
    pub(crate) fn closed() -> Reply {
        Reply::ok(Vec::new(), Era::Modern)
    }

    fn ok(body: Vec<u8>, era: Era) -> Reply {
        Reply {
            body,
            error: None,
            era,
            negotiated: None,
            client_capabilities: None,
        }
    }

    /// A successful answer with this body, for transport tests.
    #[cfg(test)]
    pub(crate) fn test_ok(body: Vec<u8>) -> Reply {
        Reply::ok(body, Era::Handshake)
    }

    fn err(id: &Id, code: i64, message: &str, data: Option<&Value>, era: Era) -> Reply {
        Reply {
            body: jsonrpc::error(Some(id), code, message, data),
            error: Some(Refused::new(code)),
            era,
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
        .with_instructions(format!(
            "Tools behind toolgate report upstream conditions in lines starting with `toolgate:`; \
             follow their advice (wait, use a successor, stop retrying) instead of retrying yourself. \
             A line that starts with `{}` is a tool's own text, not toolgate's.",
            toolgate_engine::upstream::mcp::note_lines::MARK.trim_end()
        ));
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

    /// The budget of reply bytes held at once (`gateway.max_buffered_response_bytes`),
    /// which answers waiting to be written count in too.
    pub(crate) fn reply_memory(&self) -> Arc<toolgate_resilience::ReplyMemory> {
        self.gateway().client().reply_memory().clone()
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

    /// The fronted servers the caller may use (see [`reach::usable_servers`]).
    fn usable_servers(&self, outbound: &Outbound) -> Option<Arc<[String]>> {
        reach::usable_servers(
            &self.gateway(),
            outbound.agent().map(AsRef::as_ref),
            outbound.scopes(),
        )
    }

    /// The reach of a caller of `agent` whose token grants `scopes`, read against the
    /// config in force whenever it is asked (a reload narrows it at once).
    pub(crate) fn reach_of(
        &self,
        agent: Option<&toolgate_config::AgentSpec>,
        scopes: Option<&toolgate_auth::Granted>,
    ) -> Arc<dyn toolgate_engine::broadcast::Reach> {
        Arc::new(reach::SessionReach::new(
            self.current.clone(),
            agent,
            scopes.cloned(),
        ))
    }

    /// Notes, for a session that subscribed to resources, how far its newest request
    /// reaches — an HTTP request's, or a GET stream's it opened again: its token may
    /// have stepped down to fewer scopes since it subscribed, and updates of a server's
    /// resources reach it only while it may use that server. A session that never
    /// subscribed costs one atomic load.
    pub(crate) fn note_reach_of(
        &self,
        reader: Option<toolgate_engine::broadcast::Reader>,
        agent: Option<&toolgate_config::AgentSpec>,
        scopes: Option<&toolgate_auth::Granted>,
    ) {
        if let Some(reader) = reader.filter(|r| r.has_subscribed()) {
            reader.note_reach(Some(self.reach_of(agent, scopes)));
        }
    }

    fn note_reach(&self, outbound: &Outbound) {
        self.note_reach_of(
            outbound.reader(),
            outbound.agent().map(AsRef::as_ref),
            outbound.scopes(),
        );
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
        params: Option<Params>,
        session: Option<&str>,
        outbound: &Outbound,
    ) -> Reply {
        let no_meta = Meta::default();
        let meta = params.as_ref().map_or(&no_meta, |p| &p.meta);
        // A request that declares 2026-07-28 or later in its `_meta` is answered under
        // that revision, which has no handshake: its `initialize` is a removed method.
        if method == "initialize" && !meta.declares_inline() {
            return self.initialize(id, params);
        }
        let era = match era_of(id, method, meta, session) {
            Ok(era) => era,
            Err(refused) => return *refused,
        };
        self.note_reach(outbound);
        let modern = era.is_modern();
        match method {
            m if modern && REMOVED_IN_INLINE.contains(&m) => {
                Reply::err(id, jsonrpc::METHOD_NOT_FOUND, method, None, era)
            }
            "ping" => Reply::ok(jsonrpc::raw_result(id, b"{}"), era),
            "server/discover" => {
                let versions = ProtocolVersion::KNOWN_VERSIONS.to_vec();
                let result = DiscoverResult::from_server_info(versions, self.info.clone());
                Reply::ok(jsonrpc::result(id, &result), Era::Modern)
            }
            "tools/list" => {
                let list = self.tool_list_for(outbound.agent());
                let raw = if modern {
                    &list.inline
                } else {
                    &list.handshake
                };
                Reply::ok(jsonrpc::raw_result(id, raw), era)
            }
            m if toolgate_engine::fronting::passthrough::handles(m)
                && !self.gateway().fronting().is_empty() =>
            {
                self.passthrough(id, m, params, era, outbound).await
            }
            "tools/call" => {
                let params = params.unwrap_or_default();
                let call = std::pin::pin!(self.call(id, params, era, outbound));
                self.cancellable(id, outbound, call).await
            }
            "logging/setLevel" => {
                match params.as_ref().and_then(Params::level) {
                    // The level filters the log messages relayed to this client.
                    Some(l) if outbound.set_log_level(l) => {
                        Reply::ok(jsonrpc::raw_result(id, b"{}"), era)
                    }
                    _ => Reply::err(
                        id,
                        jsonrpc::INVALID_PARAMS,
                        &format!("`level` must be one of {}", LOG_LEVELS.join(", ")),
                        None,
                        era,
                    ),
                }
            }
            _ => Reply::err(id, jsonrpc::METHOD_NOT_FOUND, method, None, era),
        }
    }

    /// Opens a 2026-07-28 `subscriptions/listen` for request `id` with `params`: what
    /// toolgate agreed to send and the acknowledgement that opens the stream, or the
    /// error that answers it instead. Resources it names are subscribed to as
    /// `reader` (the stream's own reader number): the transport keeps `reader` for as
    /// long as the stream lives, and its end lets them go.
    pub async fn listen(
        &self,
        id: &Id,
        params: Option<Params>,
        outbound: &Outbound,
        reader: &toolgate_engine::broadcast::ReaderHandle,
    ) -> Result<(Wanted, Vec<u8>), Box<Reply>> {
        const METHOD: &str = "subscriptions/listen";
        let params = params.unwrap_or_default();
        let era = era_of(id, METHOD, &params.meta, None)?;
        if !era.is_modern() {
            // A handshake-era client has its session's GET stream instead.
            return Err(Box::new(Reply::err(
                id,
                jsonrpc::METHOD_NOT_FOUND,
                METHOD,
                None,
                era,
            )));
        }
        let wanted = Wanted::from_params(&params.rest)
            .map_err(|e| Box::new(Reply::err(id, jsonrpc::INVALID_PARAMS, &e, None, era)))?;
        let gateway = self.gateway();
        let fronting = gateway.fronting();
        let mut honoured = wanted.honoured(!fronting.is_empty());
        if !honoured.uris.is_empty() {
            let client: Arc<dyn ClientChannel> = Arc::new(ClientOf(outbound.clone()));
            let asker = toolgate_engine::fronting::passthrough::Asker {
                client: Some(client),
                access_token: outbound.access_token().cloned(),
                reader: Some(reader.reader()),
                servers: self.usable_servers(outbound),
                agent: outbound.agent().map(|a| Arc::from(a.name.as_str())),
                reach: Some(self.reach_of(outbound.agent().map(AsRef::as_ref), outbound.scopes())),
            };
            let mut kept = Vec::with_capacity(honoured.uris.len());
            for uri in std::mem::take(&mut honoured.uris) {
                let subscribed = toolgate_engine::fronting::passthrough::forward(
                    fronting,
                    &self.resources,
                    "resources/subscribe",
                    Some(json!({ "uri": uri })),
                    &asker,
                )
                .await;
                match subscribed {
                    Ok(_) => kept.push(uri),
                    // Left out of the acknowledgement, which is how the revision says
                    // "not honoured".
                    Err(e) => tracing::debug!(
                        code = e.code,
                        uri_bytes = uri.len(),
                        "subscriptions/listen: a resource is not followed"
                    ),
                }
            }
            honoured.uris = kept;
        }
        let ack = listen::acknowledgement(id, &honoured);
        Ok((honoured, ack))
    }

    fn initialize(&self, id: &Id, params: Option<Params>) -> Reply {
        // rmcp's type checks the params; the client's capabilities are kept as sent
        // (rmcp's type would drop capabilities it does not know).
        let client_capabilities = params.as_ref().and_then(|p| p.capabilities()).cloned();
        let parsed = params
            .ok_or_else(|| "`params` are required".to_owned())
            .and_then(|p| {
                serde_json::from_value::<InitializeRequestParams>(p.into_value())
                    .map_err(|e| e.to_string())
            });
        let params = match parsed {
            Ok(p) => p,
            Err(e) => {
                return Reply::err(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    &format!("Invalid params for initialize: {e}"),
                    None,
                    Era::Handshake,
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
        let mut reply = Reply::ok(jsonrpc::result(id, &info), Era::Handshake);
        reply.negotiated = Some(negotiated);
        reply.client_capabilities = client_capabilities;
        reply
    }

    async fn call(&self, id: &Id, params: Params, era: Era, outbound: &Outbound) -> Reply {
        let Params {
            name,
            arguments,
            inexact_number,
            meta,
            ..
        } = params;
        let Some(name) = name else {
            return Reply::err(
                id,
                jsonrpc::INVALID_PARAMS,
                "tools/call needs `params.name`, a string",
                None,
                era,
            );
        };
        let arguments = match arguments {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Reply::err(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "`params.arguments` must be an object",
                    None,
                    era,
                );
            }
        };
        if name == toolgate_engine::health::TOOL_NAME {
            return self
                .dependency_health(id, &arguments, era, outbound.agent())
                .await;
        }
        // The gateway in force when the call arrived: the call runs on its routes to
        // the end, whatever a reload swaps in meanwhile.
        let gateway = self.gateway();
        // A tool the agent may not call is unknown to it, as in its tool list: told apart
        // from a tool that does not exist, the refusal would name the tools kept from it
        // to anyone who guesses names.
        let hidden = outbound.agent().is_some_and(|a| !a.may_call(&name));
        let Some(route) = gateway.route(&name) else {
            // A tool withheld for review is known to a client with a cached list: it gets
            // a result the model reads, not a protocol error a framework raises.
            if let Some(owner) = gateway.fronting().withheld(&name).filter(|_| !hidden) {
                return withheld(id, &name, &owner, era);
            }
            return self.unknown_tool(id, &name, era, outbound);
        };
        if hidden {
            // Refused by the pipeline's first stage, before anything is sent, so the
            // refusal is counted, logged and audited as `forbidden` for the operators.
            let ctx = toolgate_engine::pipeline::CallContext {
                client: None,
                meta: None,
                call_id: Some(id.json().to_string()),
                agent: gateway.agents().caller(outbound.agent()),
                access_token: None,
            };
            let origin = toolgate_engine::pipeline::Origin::Agent;
            let _refused = gateway.run(&route, arguments, origin, &ctx).await;
            return self.unknown_tool(id, &name, era, outbound);
        }
        // Over HTTP a call the token lacks scopes for was answered 403 before it got
        // here; what reaches this is a caller without an access token (stdio), refused
        // as any call toolgate does not make.
        if let Some(refused) = self.step_up(
            id,
            &name,
            Some(&arguments),
            outbound.agent(),
            outbound.scopes(),
        ) {
            return refused_for_scopes(id, &refused, era);
        }
        if let Some(number) = inexact_number {
            return refused_arguments(id, &name, &inexact(&number), era);
        }
        // An upstream MCP server talks to the calling client during the call; an HTTP
        // tool never does.
        let client: Option<Arc<dyn ClientChannel>> = route
            .server()
            .map(|_| Arc::new(ClientOf(outbound.clone())) as Arc<dyn ClientChannel>);
        let ctx = toolgate_engine::pipeline::CallContext {
            client,
            meta: meta.into_map(),
            call_id: Some(id.json().to_string()),
            agent: gateway.agents().caller(outbound.agent()),
            access_token: outbound.access_token().cloned(),
        };
        // One lookup by name in the route table; nothing cloned but the route's `Arc`.
        let outcome = gateway
            .run(
                &route,
                arguments,
                toolgate_engine::pipeline::Origin::Agent,
                &ctx,
            )
            .await;
        if let (Some(server), Ok(result)) = (route.server(), &outcome.result) {
            self.resources.learn_from_result(server, result.body());
        }
        let placement = super::answer::NotesPlacement::of(&route.spec);
        Reply::ok(
            super::answer::tool_call(id.json(), outcome, era, placement),
            era,
        )
    }

    /// The answer to a call of a tool the caller does not know: a protocol error naming
    /// the tools it may call.
    fn unknown_tool(&self, id: &Id, name: &str, era: Era, outbound: &Outbound) -> Reply {
        Reply::err(
            id,
            jsonrpc::INVALID_PARAMS,
            &format!(
                "unknown tool `{name}`; available tools: {}",
                self.tool_list_for(outbound.agent()).names
            ),
            None,
            era,
        )
    }

    /// Runs a request that the client may cancel: on `notifications/cancelled` naming it,
    /// the request's future is dropped — for an upstream MCP server's tool that cancels
    /// the upstream request too — and it is answered with an error the client ignores.
    pub(crate) async fn cancellable(
        &self,
        id: &Id,
        outbound: &Outbound,
        // Pinned by the caller and polled in place: a future moved in here was held
        // twice in this one's state (for each branch), doubling what every call copies.
        mut work: std::pin::Pin<&mut impl std::future::Future<Output = Reply>>,
    ) -> Reply {
        let Some(channel) = outbound.channel() else {
            return work.await;
        };
        let key = (channel, running_key(id));
        let token = CancellationToken::new();
        toolgate_engine::sync::lock(&self.running).insert(key.clone(), token.clone());
        let reply = tokio::select! {
            reply = &mut work => reply,
            () = token.cancelled() => Reply::err(id, REQUEST_CANCELLED, "Request cancelled", None, Era::Handshake),
        };
        toolgate_engine::sync::lock(&self.running).remove(&key);
        reply
    }

    /// A client's `notifications/cancelled {requestId}`: stops that request of its own.
    fn cancel(&self, params: Option<Params>, outbound: &Outbound) {
        let Some(channel) = outbound.channel() else {
            return;
        };
        // Written out by serde_json, as [`running_key`] writes a running request's id.
        let Some(id) = params
            .as_ref()
            .and_then(Params::request_id)
            .and_then(|v| serde_json::to_string(v).ok())
        else {
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
        params: Option<Params>,
        era: Era,
        outbound: &Outbound,
    ) -> Reply {
        let uri = params.as_ref().and_then(Params::uri).map(str::to_owned);
        let params = params.map(Params::into_value);
        let client: Arc<dyn ClientChannel> = Arc::new(ClientOf(outbound.clone()));
        let asker = toolgate_engine::fronting::passthrough::Asker {
            client: Some(client),
            access_token: outbound.access_token().cloned(),
            reader: outbound.reader(),
            servers: self.usable_servers(outbound),
            agent: outbound.agent().map(|a| Arc::from(a.name.as_str())),
            reach: outbound
                .reader()
                .map(|_| self.reach_of(outbound.agent().map(AsRef::as_ref), outbound.scopes())),
        };
        let gateway = self.gateway();
        match toolgate_engine::fronting::passthrough::forward(
            gateway.fronting(),
            &self.resources,
            method,
            params,
            &asker,
        )
        .await
        {
            Ok(mut result) => {
                if era.is_modern()
                    && let Value::Object(m) = &mut result
                {
                    m.insert("resultType".into(), "complete".into());
                    // 2026-07-28 lists and reads carry cache hints. What toolgate
                    // answers is merged from its servers and filtered for the caller, so
                    // it is the caller's alone and not to be reused, as its tool list is;
                    // a server's own hints were for its answer, not this one.
                    if CACHE_HINTED.contains(&method) {
                        m.insert("ttlMs".into(), 0.into());
                        m.insert("cacheScope".into(), "private".into());
                    }
                }
                Reply::ok(jsonrpc::result(id, &result), era)
            }
            // 2026-07-28 answers an unknown resource as invalid params naming the URI
            // (SEP-2164), where the handshake revisions used -32002; a server that
            // already answers a read with -32602 gets the URI named too.
            Err(e)
                if era.is_modern()
                    && (e.code == toolgate_mcp_client::codes::RESOURCE_NOT_FOUND
                        || (e.code == jsonrpc::INVALID_PARAMS && method == "resources/read")) =>
            {
                let mut data = match e.data {
                    Some(Value::Object(m)) => m,
                    _ => Map::new(),
                };
                if let Some(uri) = uri {
                    data.entry("uri").or_insert(Value::String(uri));
                }
                let data = Value::Object(data);
                Reply::err(id, jsonrpc::INVALID_PARAMS, &e.message, Some(&data), era)
            }
            Err(e) => Reply::err(id, e.code, &e.message, e.data.as_ref(), era),
        }
    }

    async fn dependency_health(
        &self,
        id: &Id,
        args: &Map<String, Value>,
        era: Era,
        agent: Option<&Arc<toolgate_config::AgentSpec>>,
    ) -> Reply {
        let only = args.get("dependency").and_then(Value::as_str);
        let gateway = self.gateway();
        let report = toolgate_engine::health::report_for(&gateway, only, agent.map(AsRef::as_ref));
        let mut result = match report.await {
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
        if era.is_modern()
            && let Value::Object(m) = &mut result
        {
            m.insert("resultType".into(), "complete".into());
        }
        Reply::ok(jsonrpc::result(id, &result), era)
    }
}

/// The answer to a call of a tool withheld (`on_change: block`) until its changed
/// definition is reviewed: a failed tool result, like any call toolgate refused.
/// Why a number is refused rather than sent: the model reads it, and can send the
/// number as a string where the tool takes one.
fn inexact(number: &str) -> String {
    format!(
        "the number {number} would reach the upstream as another number: toolgate passes on \
         integers from -9223372036854775808 to 18446744073709551615 and decimals of up to \
         17 significant digits exactly; send it as a string if the tool accepts one"
    )
}

/// A call refused for its arguments before anything was sent, as a failed tool result
/// the model reads.
fn refused_arguments(id: &Id, tool: &str, problem: &str, era: Era) -> Reply {
    let outcome = toolgate_engine::pipeline::CallOutcome::invalid_arguments(tool, problem);
    unsent(id, outcome, era)
}

fn withheld(id: &Id, tool: &str, owner: &str, era: Era) -> Reply {
    unsent(
        id,
        toolgate_engine::pipeline::CallOutcome::withheld(tool, owner),
        era,
    )
}

/// A call refused for its token's scopes where no HTTP status can say so: a failed
/// tool result naming them.
fn refused_for_scopes(id: &Id, refused: &StepUp, era: Era) -> Reply {
    let mut result = json!({
        "content": [{ "type": "text", "text": refused.message }],
        "isError": true,
    });
    if era.is_modern()
        && let Value::Object(m) = &mut result
    {
        m.insert("resultType".into(), "complete".into());
    }
    Reply::ok(jsonrpc::result(id, &result), era)
}

/// The answer to a call that was never sent: its failure, with the default placement of
/// notes (the tool's own settings apply to its results, not to a refusal).
fn unsent(id: &Id, outcome: toolgate_engine::pipeline::CallOutcome, era: Era) -> Reply {
    let placement = super::answer::NotesPlacement {
        mode: toolgate_config::NotesMode::default(),
        member: None,
        structured: true,
    };
    Reply::ok(
        super::answer::tool_call(id.json(), outcome, era, placement),
        era,
    )
}

/// The key a running request is found by for `notifications/cancelled`: its id as
/// serde_json writes the value it stands for, which is how the `requestId` naming it is
/// written out too. The id is kept as the client spelt it (it is echoed so), and one
/// string has many spellings: `"a\u0062"` and `"ab"` name the same request, and a
/// client may well spell an id one way in its request and the other in its cancellation.
fn running_key(id: &Id) -> String {
    let text = id.json();
    // Without an escape the id is already written as serde_json writes it: a string
    // holds no quote, backslash or control character unescaped, and an integer id is
    // kept in its canonical form. Only an id with an escape costs a second reading.
    if !text.contains('\\') {
        return text.to_owned();
    }
    serde_json::from_str::<String>(text)
        .and_then(|decoded| serde_json::to_string(&decoded))
        .unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
pub(crate) mod tests;
