//! Tools of upstream MCP servers. A call of `kb__search` becomes a `tools/call` of
//! `search` on the server `kb`, through that server's [`McpLink`] (a session over
//! streamable HTTP or a stdio child process). What the server sends during the call —
//! progress, log messages, sampling, elicitation and roots requests — is relayed to the
//! calling client through its [`ClientChannel`], and the client's answers back.
//!
//! The reply is reported as the HTTP kind reports its own: the status and headers of the
//! streamable-HTTP answer (so rate-limit headers, `Retry-After` and `Deprecation` feed
//! the same signals) and, as the body, the `result`'s JSON text as the client crate
//! read it (never turned into a `Value` and back), or the JSON-RPC error beside an
//! empty body; [`interpret`] reads what it must, and the same bytes go on to the answer.

mod emoji_variation;
pub mod foreign_meta;
mod form_shape;
mod interpret;
pub(crate) mod link_target;
pub(crate) mod lookalike;
pub(crate) mod media_type;
mod members;
pub mod note_lines;
pub mod notification_budget;
pub(crate) mod relayed_meta;
pub(crate) mod relayed_text;
pub(crate) mod result_check;
pub(crate) mod secret_form;
pub(crate) mod smuggled_text;
pub(crate) mod structured_text;
mod terminal_escape;
pub mod unknown_tool;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolgate_signals::Signals;

use super::{AttemptResult, CallContext, SendError, Upstream, UpstreamResponse};
use toolgate_config::ToolSpec;

use notification_budget::NotificationBudget;

pub use interpret::interpret;

pub use toolgate_mcp_client::{Failure as LinkError, Relay, Relayed, Reply as LinkReply, RpcError};

/// A boxed future, for the object-safe traits below.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One upstream MCP server's session, as the call path sees it.
pub trait McpLink: Send + Sync + std::fmt::Debug {
    /// One request; messages the server sends meanwhile go to `relay`.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        timeout: Duration,
        relay: Option<Relay>,
    ) -> BoxFuture<'a, Result<LinkReply, LinkError>>;
}

/// A session of one caller's own, opened with a token exchanged for the caller's, and
/// that token (scrubbed from whatever the server answers on the session).
#[derive(Debug, Clone)]
pub struct CallerLink {
    /// The caller's session.
    pub link: Arc<dyn McpLink>,
    /// The exchanged token it carries.
    pub token: Arc<toolgate_config::Secret>,
}

/// The sessions of a server called with each caller's authority (`token_exchange`).
pub trait CallerLinks: Send + Sync + std::fmt::Debug {
    /// The session of the caller whose validated access token is `access_token`; an
    /// error (nothing is sent) when there is none or it cannot be exchanged.
    fn link<'a>(
        &'a self,
        access_token: Option<&'a toolgate_config::Secret>,
    ) -> BoxFuture<'a, Result<CallerLink, crate::exchange::ExchangeError>>;
}

/// The way back to the client that made a call.
pub trait ClientChannel: Send + Sync + std::fmt::Debug {
    /// A notification related to the call, before its answer.
    fn notify(&self, method: &str, params: Option<Value>);
    /// A request to the client related to the call; its answer.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
    ) -> BoxFuture<'a, Result<Value, RpcError>>;
    /// The capabilities the client declared, when known.
    fn capabilities(&self) -> Option<Value>;
}

/// The 2026-07-28 request `_meta` key naming the request's revision.
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The 2026-07-28 request `_meta` key naming the log level a request wants.
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// A prepared `tools/call`.
#[derive(Debug)]
pub struct McpRequest {
    params: Value,
    client: Option<Arc<dyn ClientChannel>>,
    /// The caller's own session, for a server called with the caller's authority.
    caller: Option<CallerLink>,
    /// The calling agent's share of the reply memory.
    agent_replies: Option<Arc<toolgate_resilience::ReplyShare>>,
    /// The calling agent's name: the server's questions during the call count against
    /// its share of the server's slots (`gateway.server_request_share`).
    agent: Option<Arc<str>>,
}

/// One upstream MCP tool.
#[derive(Debug, Clone)]
pub struct McpUpstream {
    link: Arc<dyn McpLink>,
    /// The tool's name on the server.
    tool: String,
    /// Callers' own sessions, when the server is called with the caller's authority.
    callers: Option<Arc<dyn CallerLinks>>,
    /// The server's configured credentials (its `env`, its headers' credentials),
    /// scrubbed from every result: a server that prints its environment
    /// (server-everything's `get-env`) must not hand them to the model.
    credentials: Arc<[String]>,
    /// The gateway's reply memory and the server's part of it: a result is held in
    /// them until its answer is sent.
    replies: Option<(
        Arc<toolgate_resilience::ReplyMemory>,
        Arc<toolgate_resilience::ReplyShare>,
    )>,
}

impl McpUpstream {
    /// The tool `tool` of the server behind `link`.
    pub fn new(link: Arc<dyn McpLink>, tool: String) -> McpUpstream {
        McpUpstream {
            link,
            tool,
            callers: None,
            credentials: Arc::new([]),
            replies: None,
        }
    }

    /// The same tool, its results held in `replies` (`gateway.max_buffered_response_bytes`):
    /// a result that does not fit is dropped, as an HTTP reply would be.
    #[must_use]
    pub fn holding(
        mut self,
        replies: Arc<toolgate_resilience::ReplyMemory>,
        share: Arc<toolgate_resilience::ReplyShare>,
    ) -> McpUpstream {
        self.replies = Some((replies, share));
        self
    }

    /// The same tool, its results scrubbed of `dependency`'s credentials.
    #[must_use]
    pub fn scrubbing(mut self, dependency: &toolgate_config::Dependency) -> McpUpstream {
        self.credentials = crate::exchange::echo::credentials(dependency).into();
        self
    }

    /// The same tool, called on each caller's own session (`token_exchange`).
    #[must_use]
    pub fn with_callers(mut self, callers: Option<Arc<dyn CallerLinks>>) -> McpUpstream {
        self.callers = callers;
        self
    }
}

impl Upstream for McpUpstream {
    type Request = McpRequest;

    fn prepare(&self, args: &Map<String, Value>, ctx: &CallContext) -> Result<McpRequest, String> {
        let mut params = json!({ "name": self.tool, "arguments": args });
        let mut meta = Map::new();
        let asked = |key: &str| ctx.meta.as_ref().and_then(|m| m.get(key));
        // The client's progress token is passed to the connection, which sends the server
        // a token of its own in its place (two agents may both pick `1`) and hands the
        // server's progress back under the client's token (`with_own_progress_token`).
        if let Some(token) = asked("progressToken") {
            meta.insert("progressToken".into(), token.clone());
        }
        // A server on the 2026-07-28 revision sends log messages for a request only when
        // its `_meta` names a level. A client of that revision said what it wants (or
        // nothing: then no logs); a handshake-era client set its level on its session,
        // where toolgate filters what it relays, so everything is asked for upstream.
        let level = if asked(PROTOCOL_VERSION).is_some() {
            asked(LOG_LEVEL).cloned()
        } else {
            Some(Value::String("debug".into()))
        };
        if let Some(level) = level {
            meta.insert(LOG_LEVEL.into(), level);
        }
        if !meta.is_empty() {
            params["_meta"] = Value::Object(meta);
        }
        // The trace context goes upstream the MCP way, in `params._meta` (the call's span
        // when toolgate traces, else the caller's, when valid).
        for (key, value) in crate::trace_context::propagated(ctx.meta.as_ref()) {
            params["_meta"][key] = Value::String(value);
        }
        Ok(McpRequest {
            params,
            client: ctx.client.clone(),
            caller: None,
            agent_replies: ctx.agent.as_ref().map(|a| a.replies().clone()),
            agent: ctx.agent.as_ref().map(|a| Arc::from(a.name())),
        })
    }

    async fn authorize(
        &self,
        request: &mut McpRequest,
        ctx: &CallContext,
    ) -> Result<(), crate::exchange::ExchangeError> {
        if let Some(callers) = &self.callers {
            request.caller = Some(callers.link(ctx.access_token.as_deref()).await?);
        }
        Ok(())
    }

    async fn attempt(
        &self,
        request: &McpRequest,
        timeout: Duration,
    ) -> Result<UpstreamResponse, SendError> {
        let link = request.caller.as_ref().map_or(&self.link, |c| &c.link);
        let (relay, rx) = relay_channel();
        let relay = owned(relay, request.agent.as_ref());
        let call = link.request(
            "tools/call",
            Some(request.params.clone()),
            timeout,
            Some(relay),
        );
        let token = request.caller.as_ref().map(|c| c.token.0.as_str());
        let secrets: Vec<&str> = token
            .into_iter()
            .chain(self.credentials.iter().map(String::as_str))
            .collect();
        let reply = while_relaying(call, rx, request.client.as_deref(), &secrets).await;
        let mut sent = to_response(reply);
        if let Ok(response) = &mut sent {
            for secret in &secrets {
                scrub(response, secret);
            }
        }
        // Read whole by the client (each message within `max_response_bytes`); from here
        // until its answer is sent, the result counts against the reply memory.
        if let (Ok(response), Some((replies, share))) = (&mut sent, &self.replies) {
            let mut held = replies
                .hold_in(share)
                .for_agent(request.agent_replies.as_ref());
            if let Err(full) = held.grow(response.body.len()) {
                return Err(SendError::NoRoom {
                    status: response.status,
                    headers: std::mem::take(&mut response.headers),
                    held: full.held,
                    limit: full.limit,
                    part: full.part,
                });
            }
            let body = std::mem::take(&mut response.body);
            response.body = super::response::held_body(body, held);
        }
        sent
    }

    fn interpret(
        &self,
        spec: &ToolSpec,
        sent: Result<UpstreamResponse, SendError>,
        signals: Option<&Signals>,
        past_sunset: bool,
    ) -> AttemptResult {
        interpret(spec, sent, signals, past_sunset)
    }
}

/// A reply without `token` (the caller's exchanged token, a configured credential): in
/// the result, and in a JSON-RPC error's message and data.
fn scrub(response: &mut UpstreamResponse, token: &str) {
    use crate::exchange::echo;
    response.body = echo::scrub(std::mem::take(&mut response.body), token);
    if let Some(error) = response.rpc_error.as_mut() {
        error.message = echo::scrub_text(&error.message, token);
        if let Some(data) = error.data.take() {
            let text = data.to_string();
            error.data = Some(if text.contains(token) {
                serde_json::from_str(&echo::scrub_text(&text, token)).unwrap_or(Value::Null)
            } else {
                data
            });
        }
    }
}

/// A relay for one request, and the receiving end [`while_relaying`] drains.
pub fn relay_channel() -> (Relay, mpsc::Receiver<Relayed>) {
    let (tx, rx) = mpsc::channel::<Relayed>(64);
    (Relay::new(tx), rx)
}

/// `relay`, the server requests it receives counted against `agent`'s share of the
/// server's slots (`gateway.server_request_share`); a call of no configured agent
/// counts against the server's `max_server_requests` only.
pub fn owned(relay: Relay, agent: Option<&Arc<str>>) -> Relay {
    match agent {
        Some(agent) => relay.owned_by(Arc::clone(agent)),
        None => relay,
    }
}

/// Runs `call` while passing what the server sends meanwhile to `client`, in order (a
/// server that asks the client a question waits for the answer before it goes on);
/// messages that arrived just before the answer are delivered before it. What the
/// server sends is scrubbed of `secrets` (its configured credentials, a caller's
/// exchanged token) on the way, as its results are, and its notifications are bounded
/// per call (see [`notification_budget`]).
///
/// A server may also answer the call without waiting for its question's answer: the
/// call's answer then ends the wait (the question is withdrawn), so a client that never
/// answers cannot hold a finished call open.
pub async fn while_relaying<T>(
    call: impl Future<Output = T>,
    mut rx: mpsc::Receiver<Relayed>,
    client: Option<&dyn ClientChannel>,
    secrets: &[&str],
) -> T {
    let mut budget = NotificationBudget::default();
    tokio::pin!(call);
    loop {
        let held = budget.held_until();
        tokio::select! {
            biased;
            Some(message) = rx.recv() => {
                let Some(message) = budgeted(&mut budget, message) else { continue };
                // What passes goes after the progress held before it, in the order the
                // server sent them (the client hears its latest progress before it is
                // asked a question).
                if let Some((method, params)) = budget.due() {
                    relay(client, Relayed::Notification { method, params }, secrets).await;
                }
                let relaying = relay(client, message, secrets);
                tokio::pin!(relaying);
                tokio::select! {
                    biased;
                    () = &mut relaying => {}
                    reply = &mut call => return after_reply(reply, &mut rx, client, secrets, &mut budget).await,
                }
            }
            () = sleep_until_some(held) => {
                if let Some((method, params)) = budget.due() {
                    relay(client, Relayed::Notification { method, params }, secrets).await;
                }
            }
            reply = &mut call => return after_reply(reply, &mut rx, client, secrets, &mut budget).await,
        }
    }
}

/// A message as the budget lets it through now (requests always pass).
fn budgeted(budget: &mut NotificationBudget, message: Relayed) -> Option<Relayed> {
    match message {
        Relayed::Notification { method, params } => budget
            .admit(method, params)
            .map(|(method, params)| Relayed::Notification { method, params }),
        request => Some(request),
    }
}

/// Sleeps until `at`, or for ever without one.
async fn sleep_until_some(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The call has its answer: what the server sent just before it is passed on, except
/// questions, which nobody is waiting for any more (they are answered as cancelled),
/// and then what the budget still owes the client (the latest progress, how many
/// notifications were dropped).
async fn after_reply<T>(
    reply: T,
    rx: &mut mpsc::Receiver<Relayed>,
    client: Option<&dyn ClientChannel>,
    secrets: &[&str],
    budget: &mut NotificationBudget,
) -> T {
    while let Ok(message) = rx.try_recv() {
        match message {
            Relayed::Request { method, answer, .. } => {
                let _ = answer.send(Err(RpcError {
                    code: toolgate_mcp_client::codes::INTERNAL_ERROR,
                    message: format!("{method} was not relayed: the call it belongs to has ended"),
                    data: None,
                }));
            }
            notification => {
                if let Some(n) = budgeted(budget, notification) {
                    if let Some((method, params)) = budget.due() {
                        relay(client, Relayed::Notification { method, params }, secrets).await;
                    }
                    relay(client, n, secrets).await;
                }
            }
        }
    }
    for (method, params) in budget.closing() {
        relay(client, Relayed::Notification { method, params }, secrets).await;
    }
    reply
}

/// Which client capability a server→client request needs.
fn capability_of(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// A server asking to sample the agent's model may ask the client to attach context
/// "from this server" or "from all servers" (`includeContext`). Through toolgate "this
/// server" is every fronted server, and "all servers" every server the agent's client
/// talks to: one server could have the agent's model repeat what the others said. So
/// the request reaches the client asking for none (the default; the other two values
/// are soft-deprecated since MCP 2025-11-25).
fn confine_sampling_context(params: Option<&mut Value>) {
    if let Some(Value::Object(p)) = params
        && p.get("includeContext").is_some_and(|c| c != "none")
    {
        p.insert("includeContext".into(), Value::String("none".into()));
    }
}

/// The most tokens a server's sampling request may ask the agent's model for: a server
/// asking for more has the agent's model write (and its owner pay for) what the
/// server wants, without end, up to 16 requests at once per server. Larger asks are
/// lowered to it, and an ask that is not a positive integer (the specification
/// requires one) is set to it.
pub const MAX_SAMPLING_TOKENS: u64 = 8_192;

/// `maxTokens` of a sampling request held to [`MAX_SAMPLING_TOKENS`].
fn cap_sampling_tokens(params: Option<&mut Value>) {
    if let Some(Value::Object(p)) = params {
        let asked = p
            .get("maxTokens")
            .and_then(Value::as_u64)
            .filter(|n| *n > 0);
        if asked.is_none_or(|n| n > MAX_SAMPLING_TOKENS) {
            p.insert("maxTokens".into(), MAX_SAMPLING_TOKENS.into());
        }
    }
}

/// An elicitation that sends the user to a URL of the server's choosing (MCP
/// 2025-11-25's URL mode) rather than asking in a form.
fn asks_for_a_visit(method: &str, params: Option<&Value>) -> bool {
    method == "elicitation/create"
        && params
            .and_then(|p| p.get("mode"))
            .is_some_and(|m| m != "form")
}

/// Why a URL-mode elicitation's `url` may not reach the user ([`link_target::visit_refusal`];
/// a visit without a string `url` included), or `None` for any other request.
fn bad_visit(method: &str, params: Option<&Value>) -> Option<String> {
    if !asks_for_a_visit(method, params) {
        return None;
    }
    match params.and_then(|p| p.get("url")).and_then(Value::as_str) {
        Some(url) => link_target::visit_refusal(url),
        None => Some("has no string `url`".into()),
    }
}

/// Whether the client declared URL-mode elicitation. A client declaring `elicitation: {}`
/// takes forms only (the specification's reading of an empty object), and one sent a
/// URL it did not ask for may show a server's login page as if toolgate asked.
fn takes_visits(client: &dyn ClientChannel) -> bool {
    client
        .capabilities()
        .is_some_and(|caps| caps.get("elicitation").and_then(|e| e.get("url")).is_some())
}

/// Whether a sampling request offers the agent's model tools of the server's
/// (`tools`, `toolChoice`: MCP 2025-11-25).
fn offers_tools(method: &str, params: Option<&Value>) -> bool {
    method == "sampling/createMessage"
        && params.is_some_and(|p| {
            ["tools", "toolChoice"]
                .iter()
                .any(|key| p.get(*key).is_some_and(|v| !v.is_null()))
        })
}

/// Whether the client declared sampling with tools (`sampling.tools`). The specification
/// forbids a server to send tools to a client that did not, and such a client may read
/// the request without them, or treat their text as the conversation's.
fn takes_tools(client: &dyn ClientChannel) -> bool {
    client
        .capabilities()
        .is_some_and(|caps| caps.get("sampling").and_then(|s| s.get("tools")).is_some())
}

/// Passes one relayed message to the client, or answers it when the client cannot.
pub async fn relay(client: Option<&dyn ClientChannel>, message: Relayed, secrets: &[&str]) {
    match message {
        Relayed::Notification { method, mut params } => {
            if let Some(c) = client {
                // Hidden characters go first, so a secret the server split with them
                // is whole, and scrubbed, before the client sees it joined.
                relayed_text::mark(&method, params.as_mut());
                relayed_meta::clean(params.as_mut());
                if let Some(p) = params.as_mut() {
                    crate::exchange::echo::scrub_value(p, secrets);
                }
                c.notify(&method, params);
            }
        }
        Relayed::Request {
            method,
            mut params,
            answer,
        } => {
            // Hidden characters go first, as for a notification.
            relayed_text::mark(&method, params.as_mut());
            relayed_meta::clean(params.as_mut());
            if let Some(p) = params.as_mut() {
                crate::exchange::echo::scrub_value(p, secrets);
            }
            if method == "sampling/createMessage" {
                confine_sampling_context(params.as_mut());
                cap_sampling_tokens(params.as_mut());
            }
            let declared = |c: &dyn ClientChannel| match capability_of(&method) {
                Some(cap) => c.capabilities().is_some_and(|caps| caps.get(cap).is_some()),
                // `ping` and requests toolgate does not know: the client decides.
                None => true,
            };
            let misshapen = form_shape::refusal(&method, params.as_ref());
            let secret = secret_form::secret_asked(&method, params.as_ref());
            let bad_visit = bad_visit(&method, params.as_ref());
            let result = match client {
                Some(c) if declared(c) && misshapen.is_some() => {
                    let why = misshapen.unwrap_or_default();
                    tracing::warn!(method, %why, "an MCP server sent a form of another shape than the specification's; not relayed");
                    Err(RpcError {
                        code: toolgate_mcp_client::codes::INVALID_PARAMS,
                        message: format!("toolgate relays only forms of the flat shape the MCP specification gives them (primitive fields, no nesting): {why}"),
                        data: None,
                    })
                }
                Some(c) if declared(c) && secret.is_some() => {
                    tracing::warn!(method, field = %crate::explain::upstream_text(secret.as_deref().unwrap_or_default(), &Default::default(), 80), "an MCP server asked the user for a secret in a form; not relayed");
                    Err(RpcError {
                        code: toolgate_mcp_client::codes::INVALID_PARAMS,
                        message: "toolgate does not relay a form asking the user for a password, key, token or payment credential: MCP servers ask for those in URL mode only".into(),
                        data: None,
                    })
                }
                Some(c) if declared(c) && bad_visit.is_some() => {
                    let why = bad_visit.unwrap_or_default();
                    tracing::warn!(method, %why, "an MCP server asked to send the user to a URL a browser must not open; not relayed");
                    Err(RpcError {
                        code: toolgate_mcp_client::codes::INVALID_PARAMS,
                        message: format!("toolgate relays URL-mode elicitation to web pages on the public internet only: the request {why}"),
                        data: None,
                    })
                }
                Some(c) if declared(c) && asks_for_a_visit(&method, params.as_ref()) && !takes_visits(c) => {
                    Err(RpcError {
                        code: toolgate_mcp_client::codes::INVALID_PARAMS,
                        message: "the calling client does not accept URL-mode elicitation (it did not declare elicitation.url)".into(),
                        data: None,
                    })
                }
                Some(c) if declared(c) && offers_tools(&method, params.as_ref()) && !takes_tools(c) => {
                    Err(RpcError {
                        code: toolgate_mcp_client::codes::INVALID_PARAMS,
                        message: "the calling client does not accept sampling with tools (it did not declare sampling.tools)".into(),
                        data: None,
                    })
                }
                Some(c) if declared(c) => c.request(&method, params).await,
                Some(_) => Err(RpcError {
                    code: toolgate_mcp_client::codes::METHOD_NOT_FOUND,
                    message: format!(
                        "the calling client did not declare the capability {} needs",
                        method
                    ),
                    data: None,
                }),
                None => Err(RpcError {
                    code: toolgate_mcp_client::codes::METHOD_NOT_FOUND,
                    message: format!(
                        "{method} cannot be relayed: no client is waiting for this call"
                    ),
                    data: None,
                }),
            };
            let _ = answer.send(result);
        }
    }
}

/// A link's answer as the reply the pipeline reads: the status and headers of the
/// streamable-HTTP answer, and the `result`'s text as the body (moved, not copied or
/// parsed), or the JSON-RPC error beside an empty body.
fn to_response(reply: Result<LinkReply, LinkError>) -> Result<UpstreamResponse, SendError> {
    match reply {
        Ok(r) => {
            let (body, rpc_error) = match r.outcome {
                Ok(result) => (
                    bytes::Bytes::from(Box::<str>::from(result).into_boxed_bytes()),
                    None,
                ),
                Err(e) => (bytes::Bytes::new(), Some(Box::new(e))),
            };
            Ok(UpstreamResponse {
                status: r.status,
                headers: r.headers,
                body,
                latency: r.latency,
                rpc_error,
            })
        }
        Err(LinkError::Status {
            status,
            headers,
            body,
        }) => Ok(UpstreamResponse {
            status,
            headers,
            body,
            latency: Duration::ZERO,
            rpc_error: None,
        }),
        Err(LinkError::Timeout(t)) => Err(SendError::Timeout(t)),
        Err(LinkError::Connect { detail }) => Err(SendError::Connect { detail }),
        Err(LinkError::Broken { detail }) => Err(SendError::Broken { detail }),
        Err(LinkError::Protocol { detail }) => Err(SendError::Protocol { detail }),
        Err(LinkError::TooLarge { limit }) => Err(SendError::TooLarge {
            status: 200,
            headers: HeaderMap::new(),
            limit,
        }),
        Err(LinkError::TooManyValues { limit }) => Err(SendError::TooManyValues { limit }),
    }
}

#[cfg(test)]
pub(crate) mod tests;
