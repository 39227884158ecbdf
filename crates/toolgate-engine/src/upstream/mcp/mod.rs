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

pub mod foreign_meta;
mod interpret;
mod members;
pub mod note_lines;
pub mod notification_budget;
pub(crate) mod result_check;
mod secret_form;
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
        // The client's progress token goes upstream unchanged, so the server's progress
        // notifications carry the token the client is waiting for.
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
            let mut held = replies.hold_in(share);
            if let Err(full) = held.grow(response.body.len()) {
                return Err(SendError::NoRoom {
                    status: response.status,
                    headers: std::mem::take(&mut response.headers),
                    held: full.held,
                    limit: full.limit,
                    share: full.share,
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

/// An elicitation that sends the user to a URL of the server's choosing (MCP
/// 2025-11-25's URL mode) rather than asking in a form.
fn asks_for_a_visit(method: &str, params: Option<&Value>) -> bool {
    method == "elicitation/create"
        && params
            .and_then(|p| p.get("mode"))
            .is_some_and(|m| m != "form")
}

/// Whether the client declared URL-mode elicitation. A client declaring `elicitation: {}`
/// takes forms only (the specification's reading of an empty object), and one sent a
/// URL it did not ask for may show a server's login page as if toolgate asked.
fn takes_visits(client: &dyn ClientChannel) -> bool {
    client
        .capabilities()
        .is_some_and(|caps| caps.get("elicitation").and_then(|e| e.get("url")).is_some())
}

/// Passes one relayed message to the client, or answers it when the client cannot.
pub async fn relay(client: Option<&dyn ClientChannel>, message: Relayed, secrets: &[&str]) {
    match message {
        Relayed::Notification { method, mut params } => {
            if let Some(c) = client {
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
            if let Some(p) = params.as_mut() {
                crate::exchange::echo::scrub_value(p, secrets);
            }
            if method == "sampling/createMessage" {
                confine_sampling_context(params.as_mut());
            }
            let declared = |c: &dyn ClientChannel| match capability_of(&method) {
                Some(cap) => c.capabilities().is_some_and(|caps| caps.get(cap).is_some()),
                // `ping` and requests toolgate does not know: the client decides.
                None => true,
            };
            let secret = secret_form::secret_asked(&method, params.as_ref());
            let result = match client {
                Some(c) if declared(c) && secret.is_some() => {
                    tracing::warn!(method, field = %crate::explain::upstream_text(secret.as_deref().unwrap_or_default(), &Default::default(), 80), "an MCP server asked the user for a secret in a form; not relayed");
                    Err(RpcError {
                        code: toolgate_mcp_client::codes::INVALID_PARAMS,
                        message: "toolgate does not relay a form asking the user for a password, key, token or payment credential: MCP servers ask for those in URL mode only".into(),
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
pub(crate) mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;

    use super::*;
    use crate::pipeline::{self, Origin, Route, Services};

    /// The spec of an upstream tool `name` (`kb__<tool>`) of a server `kb`.
    pub(crate) fn tool_spec(name: &str, output_schema: Option<Value>) -> ToolSpec {
        let config = toolgate_config::parse(
            std::path::Path::new("t.yaml"),
            "mcp_servers:\n  kb: { url: 'http://127.0.0.1:9/mcp', owner: kb@example.com, retry: { max_attempts: 3, base_delay: 10ms } }\n",
            std::path::Path::new("."),
            &|_| None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let server = &config.mcp_servers["kb"];
        let tool = name.strip_prefix("kb__").unwrap_or(name);
        let input = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let def = crate::fronting::spec::Definition {
            name: tool,
            title: None,
            description: Some("Searches."),
            input_schema: &input,
            output_schema: output_schema.as_ref(),
            annotations: Some(&json!({"readOnlyHint": true})),
        };
        crate::fronting::spec::tool_spec(server, &def, "1.0.0").unwrap_or_else(|e| panic!("{e}"))
    }

    /// What the fake server does for one request: messages sent first, then the reply.
    struct Scripted {
        before: Vec<(String, Option<Value>, bool)>,
        reply: Result<LinkReply, LinkError>,
    }

    #[derive(Debug, Default)]
    struct FakeLink {
        script: Mutex<VecDeque<Scripted>>,
        seen: Mutex<Vec<Value>>,
        answers: Mutex<Vec<Result<Value, RpcError>>>,
    }

    impl std::fmt::Debug for Scripted {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Scripted")
        }
    }

    impl McpLink for FakeLink {
        fn request<'a>(
            &'a self,
            _method: &'a str,
            params: Option<Value>,
            _timeout: Duration,
            relay: Option<Relay>,
        ) -> BoxFuture<'a, Result<LinkReply, LinkError>> {
            Box::pin(async move {
                self.seen
                    .lock()
                    .unwrap()
                    .push(params.clone().unwrap_or(Value::Null));
                // As a connection does: progress comes back under the token sent
                // upstream in the caller's place.
                let (params, relay) = toolgate_mcp_client::with_own_progress_token(params, relay);
                let upstream_token = params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get("progressToken"))
                    .cloned();
                let step = self.script.lock().unwrap().pop_front();
                let Some(step) = step else {
                    return Err(LinkError::Connect {
                        detail: "no script".into(),
                    });
                };
                for (method, mut params, is_request) in step.before {
                    let Some(relay) = &relay else { continue };
                    if let (Some(Value::Object(p)), Some(token)) =
                        (params.as_mut(), &upstream_token)
                        && p.get("progressToken").is_some()
                    {
                        p.insert("progressToken".into(), token.clone());
                    }
                    if is_request {
                        let (tx, rx) = tokio::sync::oneshot::channel();
                        relay
                            .send(Relayed::Request {
                                method,
                                params,
                                answer: tx,
                            })
                            .await;
                        let answer = rx.await.unwrap_or_else(|_| {
                            Err(RpcError {
                                code: -1,
                                message: "dropped".into(),
                                data: None,
                            })
                        });
                        self.answers.lock().unwrap().push(answer);
                    } else {
                        relay.send(Relayed::Notification { method, params }).await;
                    }
                }
                step.reply
            })
        }
    }

    #[derive(Debug, Default)]
    struct FakeClient {
        notified: Mutex<Vec<String>>,
        requested: Mutex<Vec<(String, Option<Value>)>>,
        capabilities: Option<Value>,
    }

    impl ClientChannel for FakeClient {
        fn notify(&self, method: &str, _params: Option<Value>) {
            self.notified.lock().unwrap().push(method.to_string());
        }
        fn request<'a>(
            &'a self,
            method: &'a str,
            params: Option<Value>,
        ) -> BoxFuture<'a, Result<Value, RpcError>> {
            self.requested
                .lock()
                .unwrap()
                .push((method.to_string(), params));
            Box::pin(async move { Ok(json!({ "answered": method })) })
        }
        fn capabilities(&self) -> Option<Value> {
            self.capabilities.clone()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_flood_of_notifications_during_a_call_reaches_the_client_bounded() {
        let client = FakeClient::default();
        let (relay, rx) = relay_channel();
        let server = async move {
            for i in 0..5_000 {
                relay
                    .send(Relayed::Notification {
                        method: "notifications/message".into(),
                        params: Some(json!({"level": "info", "data": format!("log {i}")})),
                    })
                    .await;
            }
            "done"
        };
        assert_eq!(while_relaying(server, rx, Some(&client), &[]).await, "done");
        // The cap, and one message saying how many more were dropped (progress is
        // coalesced by the same budget: see its tests).
        assert_eq!(
            client.notified.lock().unwrap().len(),
            notification_budget::MESSAGES_PER_CALL + 1
        );
    }

    // The reply type is the link's; its error is large because it carries headers.
    #[allow(clippy::result_large_err)]
    fn ok(result: Value) -> Result<LinkReply, LinkError> {
        Ok(LinkReply {
            outcome: Ok(serde_json::value::to_raw_value(&result).unwrap()),
            status: 200,
            headers: HeaderMap::new(),
            latency: Duration::from_millis(2),
            skipped: Default::default(),
        })
    }

    /// One agent call of the tool over `link`, with the default services and context.
    async fn run_once(link: &Arc<FakeLink>) -> pipeline::CallOutcome {
        let r = route(link.clone(), None);
        pipeline::run(
            &r,
            &services(),
            Map::new(),
            Origin::Agent,
            &CallContext::default(),
        )
        .await
    }

    fn route(link: Arc<FakeLink>, output: Option<Value>) -> Route<McpUpstream> {
        let spec = Arc::new(tool_spec("kb__search", output));
        let dependency = Arc::new(crate::dependency::DependencyState::new(
            spec.dependency.clone(),
        ));
        Route::new(
            spec,
            Arc::new(crate::tool_state::ToolState::new()),
            dependency,
            McpUpstream::new(link, "search".into()),
        )
    }

    fn services() -> Services {
        Services {
            metrics: Arc::new(crate::metrics::Metrics::new()),
            incidents: Arc::new(crate::watch::incidents::Incidents::new(
                None,
                Duration::from_secs(3600),
            )),
            telemetry: None,
            learning: Default::default(),
            audit: None,
            replies: toolgate_resilience::ReplyMemory::unlimited(),
        }
    }

    #[tokio::test]
    async fn messages_during_a_call_reach_the_client_before_the_answer_and_requests_are_answered() {
        let link = Arc::new(FakeLink::default());
        link.script.lock().unwrap().push_back(Scripted {
            before: vec![
                (
                    "notifications/progress".into(),
                    Some(json!({"progressToken": "p", "progress": 1})),
                    false,
                ),
                ("sampling/createMessage".into(), Some(json!({})), true),
                ("elicitation/create".into(), Some(json!({})), true),
                ("notifications/message".into(), None, false),
            ],
            reply: ok(json!({"content": [{"type": "text", "text": "done"}]})),
        });
        let client = Arc::new(FakeClient {
            capabilities: Some(json!({"sampling": {}})),
            ..FakeClient::default()
        });
        let ctx = CallContext {
            client: Some(client.clone()),
            meta: Some(serde_json::from_value(json!({"progressToken": "p"})).unwrap()),
            call_id: None,
            agent: None,
            access_token: None,
        };
        let r = route(link.clone(), None);
        let outcome = pipeline::run(&r, &services(), Map::new(), Origin::Agent, &ctx).await;
        assert!(outcome.result.is_ok(), "{:?}", outcome.result.err());
        assert_eq!(
            *client.notified.lock().unwrap(),
            ["notifications/progress", "notifications/message"]
        );
        let answers = link.answers.lock().unwrap();
        assert_eq!(
            answers[0],
            Ok(json!({"answered": "sampling/createMessage"}))
        );
        assert_eq!(
            answers[1].as_ref().map_err(|e| e.code),
            Err(toolgate_mcp_client::codes::METHOD_NOT_FOUND),
            "elicitation was not declared"
        );
        // The client's progress token went upstream with the call.
        assert_eq!(link.seen.lock().unwrap()[0]["_meta"]["progressToken"], "p");
        assert_eq!(link.seen.lock().unwrap()[0]["name"], "search");
    }

    /// A URL-mode elicitation (a server sending the user to a page of its choosing)
    /// reaches only a client that declared it takes them; a form reaches any client
    /// that declared elicitation.
    #[tokio::test]
    async fn a_url_elicitation_reaches_only_a_client_that_takes_them() {
        let visit = json!({"mode": "url", "url": "https://login.evil.example/", "message": "Sign in", "elicitationId": "e1"});
        let form = json!({"message": "Your name?", "requestedSchema": {"type": "object", "properties": {}}});
        for (declared, params, relayed) in [
            (json!({"elicitation": {}}), visit.clone(), false),
            (json!({"elicitation": {"form": {}}}), visit.clone(), false),
            (json!({"elicitation": {"url": {}}}), visit.clone(), true),
            (json!({"elicitation": {}}), form.clone(), true),
            (
                json!({"elicitation": {}}),
                json!({"mode": "unknown"}),
                false,
            ),
        ] {
            let client = FakeClient {
                capabilities: Some(declared.clone()),
                ..FakeClient::default()
            };
            let (answer, rx) = tokio::sync::oneshot::channel();
            relay(
                Some(&client),
                Relayed::Request {
                    method: "elicitation/create".into(),
                    params: Some(params.clone()),
                    answer,
                },
                &[],
            )
            .await;
            let got = rx.await.unwrap();
            assert_eq!(got.is_ok(), relayed, "{declared} {params}: {got:?}");
            if !relayed {
                assert_eq!(
                    got.unwrap_err().code,
                    toolgate_mcp_client::codes::INVALID_PARAMS
                );
            }
        }
    }

    /// A form asking the user for a credential is not relayed, even to a client that
    /// declared elicitation: the specification has servers ask for secrets in URL mode
    /// only, and a form relayed by toolgate reads as toolgate's question.
    #[tokio::test]
    async fn a_form_asking_for_a_secret_reaches_no_client() {
        let client = FakeClient {
            capabilities: Some(json!({"elicitation": {"form": {}, "url": {}}})),
            ..FakeClient::default()
        };
        for params in [
            json!({"message": "To finish the search, sign in", "requestedSchema": {"type": "object",
                "properties": {"github_token": {"type": "string"}}}}),
            json!({"mode": "form", "message": "Confirm", "requestedSchema": {"type": "object",
                "properties": {"value": {"type": "string", "description": "Your OpenAI API key"}}}}),
        ] {
            let (answer, rx) = tokio::sync::oneshot::channel();
            relay(
                Some(&client),
                Relayed::Request {
                    method: "elicitation/create".into(),
                    params: Some(params.clone()),
                    answer,
                },
                &[],
            )
            .await;
            let e = rx.await.unwrap().expect_err("refused");
            assert_eq!(
                e.code,
                toolgate_mcp_client::codes::INVALID_PARAMS,
                "{params}"
            );
            assert!(e.message.contains("URL mode only"), "{}", e.message);
        }
    }

    /// A client that records what it is sent and never answers a question.
    #[derive(Debug, Default)]
    struct SilentClient {
        notified: Mutex<Vec<Option<Value>>>,
        asked: Mutex<Vec<Option<Value>>>,
    }

    impl ClientChannel for SilentClient {
        fn notify(&self, _method: &str, params: Option<Value>) {
            self.notified.lock().unwrap().push(params);
        }
        fn request<'a>(
            &'a self,
            _method: &'a str,
            params: Option<Value>,
        ) -> BoxFuture<'a, Result<Value, RpcError>> {
            self.asked.lock().unwrap().push(params);
            Box::pin(std::future::pending())
        }
        fn capabilities(&self) -> Option<Value> {
            Some(json!({"sampling": {}, "elicitation": {}}))
        }
    }

    #[tokio::test]
    async fn a_question_left_unanswered_does_not_hold_a_finished_call_open() {
        let (relay, rx) = relay_channel();
        let client = SilentClient::default();
        let (answer, withdrawn) = tokio::sync::oneshot::channel();
        // The server asks, then answers the call without waiting for the reply.
        let call = async move {
            relay
                .send(Relayed::Request {
                    method: "sampling/createMessage".into(),
                    params: Some(json!({"maxTokens": 5})),
                    answer,
                })
                .await;
            tokio::task::yield_now().await;
            "the result"
        };
        let got = tokio::time::timeout(
            Duration::from_secs(5),
            while_relaying(call, rx, Some(&client), &[]),
        )
        .await;
        assert_eq!(got, Ok("the result"));
        assert_eq!(
            client.asked.lock().unwrap().len(),
            1,
            "the client was asked"
        );
        assert!(withdrawn.await.is_err(), "the question was withdrawn");
    }

    #[tokio::test]
    async fn what_a_server_sends_during_a_call_is_scrubbed_of_its_credentials() {
        const KEY: &str = "mcp-SECRET-9a8b7c6d5e4f3a2b";
        let client = SilentClient::default();
        relay(
            Some(&client),
            Relayed::Notification {
                method: "notifications/message".into(),
                params: Some(json!({"level": "info", "data": {"auth": format!("Bearer {KEY}")}})),
            },
            &[KEY],
        )
        .await;
        let (answer, _rx) = tokio::sync::oneshot::channel();
        let asking = relay(
            Some(&client),
            Relayed::Request {
                method: "elicitation/create".into(),
                params: Some(json!({"message": format!("confirm {KEY}")})),
                answer,
            },
            &[KEY],
        );
        // The silent client never answers; what it was asked is what matters here.
        let _ = tokio::time::timeout(Duration::from_millis(10), asking).await;
        let sent = format!(
            "{:?} {:?}",
            client.notified.lock().unwrap(),
            client.asked.lock().unwrap()
        );
        assert!(!sent.contains(KEY), "{sent}");
        assert!(
            sent.contains("Bearer [redacted]") && sent.contains("confirm [redacted]"),
            "{sent}"
        );
    }

    #[tokio::test]
    async fn a_sampling_request_reaches_the_agent_asking_for_no_other_servers_context() {
        let client = FakeClient {
            capabilities: Some(json!({"sampling": {"context": {}}})),
            ..FakeClient::default()
        };
        for asked in ["allServers", "thisServer", "none"] {
            let (answer, _rx) = tokio::sync::oneshot::channel();
            let params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Summarise."}}],
                "includeContext": asked,
                "maxTokens": 50
            });
            relay(
                Some(&client),
                Relayed::Request {
                    method: "sampling/createMessage".into(),
                    params: Some(params.clone()),
                    answer,
                },
                &[],
            )
            .await;
            let (_, got) = client.requested.lock().unwrap().pop().expect("relayed");
            let mut expected = params;
            expected["includeContext"] = json!("none");
            assert_eq!(got, Some(expected), "includeContext {asked}");
        }
        // Without the field, nothing is added.
        let (answer, _rx) = tokio::sync::oneshot::channel();
        let plain = json!({"messages": [], "maxTokens": 5});
        relay(
            Some(&client),
            Relayed::Request {
                method: "sampling/createMessage".into(),
                params: Some(plain.clone()),
                answer,
            },
            &[],
        )
        .await;
        assert_eq!(
            client.requested.lock().unwrap().pop().unwrap().1,
            Some(plain)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_tool_error_passes_through_once_and_a_rate_limit_error_is_waited_out() {
        let link = Arc::new(FakeLink::default());
        let tool_error =
            json!({"content": [{"type": "text", "text": "no such user"}], "isError": true});
        link.script.lock().unwrap().push_back(Scripted {
            before: vec![],
            reply: ok(tool_error.clone()),
        });
        let r = route(link.clone(), None);
        let s = services();
        let outcome =
            pipeline::run(&r, &s, Map::new(), Origin::Agent, &CallContext::default()).await;
        let failure = outcome.result.expect_err("a tool error");
        assert_eq!(failure.class, ErrorClass::ToolError);
        assert_eq!(
            link.seen.lock().unwrap().len(),
            1,
            "a tool error is never retried"
        );
        let passed: Value =
            serde_json::from_slice(failure.passthrough.as_deref().unwrap_or_default()).unwrap();
        assert_eq!(passed, tool_error);

        link.script.lock().unwrap().push_back(Scripted {
            before: vec![],
            reply: Ok(LinkReply {
                outcome: Err(RpcError {
                    code: -32023,
                    message: "slow down".into(),
                    data: Some(json!({"retryAfterSeconds": 2})),
                }),
                status: 200,
                headers: HeaderMap::new(),
                latency: Duration::from_millis(1),
                skipped: Default::default(),
            }),
        });
        link.script.lock().unwrap().push_back(Scripted {
            before: vec![],
            reply: ok(json!({"content": []})),
        });
        let started = tokio::time::Instant::now();
        let outcome =
            pipeline::run(&r, &s, Map::new(), Origin::Agent, &CallContext::default()).await;
        assert!(outcome.result.is_ok(), "{:?}", outcome.result.err());
        assert!(
            started.elapsed() >= Duration::from_secs(2),
            "the wait was honoured: {:?}",
            started.elapsed()
        );
        assert_eq!(link.seen.lock().unwrap().len(), 3);
    }

    /// A result the client refused for holding more JSON values than toolgate parses
    /// of a message fails the call like an oversized body, naming the bound, once.
    #[tokio::test]
    async fn a_result_of_too_many_values_fails_as_too_costly_to_read() {
        let link = Arc::new(FakeLink::default());
        link.script.lock().unwrap().push_back(Scripted {
            before: vec![],
            reply: Err(LinkError::TooManyValues { limit: 65_536 }),
        });
        let outcome = run_once(&link).await;
        let failure = outcome.result.expect_err("refused");
        assert!(
            failure
                .message
                .contains("the MCP server answered with a message of more than 65536 JSON values"),
            "{}",
            failure.message
        );
        assert_eq!(link.seen.lock().unwrap().len(), 1, "not retried");
    }

    /// A fronted server's redirect names its target to the model only on the server's
    /// own origin: one to another host is a redirect, its URL kept from the model.
    #[tokio::test]
    async fn a_redirect_to_another_host_is_not_named_to_the_model() {
        for (location, shown) in [
            ("https://login.evil.example/mcp?next=kb", false),
            ("//login.evil.example/mcp", false),
            ("http://127.0.0.1:9/mcp/v2", true),
            ("/mcp/v2", true),
        ] {
            let link = Arc::new(FakeLink::default());
            let mut headers = HeaderMap::new();
            headers.insert(
                http::header::LOCATION,
                http::HeaderValue::from_str(location).unwrap(),
            );
            link.script.lock().unwrap().push_back(Scripted {
                before: vec![],
                reply: Err(LinkError::Status {
                    status: 307,
                    headers,
                    body: bytes::Bytes::new(),
                }),
            });
            let outcome = run_once(&link).await;
            let failure = outcome.result.expect_err("a redirect");
            assert!(failure.message.contains("HTTP 307"), "{}", failure.message);
            assert_eq!(
                failure.message.contains(location),
                shown,
                "{location}: {}",
                failure.message
            );
            assert!(!failure.message.contains("evil"), "{}", failure.message);
        }
    }

    /// A server that prints its environment (server-everything's `get-env`) does not
    /// hand the model the credentials toolgate configured for it; the rest stands.
    #[tokio::test]
    async fn a_result_never_carries_the_servers_configured_credentials() {
        let link = Arc::new(FakeLink::default());
        link.script.lock().unwrap().push_back(Scripted {
            before: vec![],
            reply: ok(json!({"content": [{"type": "text",
                "text": "GITHUB_TOKEN=ghp_0123456789abcdefghij\nHOME=/root"}]})),
        });
        let mut dependency = crate::fixtures::dependency("kb", "http://127.0.0.1:9/mcp");
        dependency.secrets = vec![toolgate_config::Secret("ghp_0123456789abcdefghij".into())];
        let upstream = McpUpstream::new(link, "search".into()).scrubbing(&dependency);
        let request = upstream
            .prepare(&Map::new(), &CallContext::default())
            .unwrap();
        let response = upstream
            .attempt(&request, Duration::from_secs(5))
            .await
            .unwrap();
        let body = String::from_utf8_lossy(&response.body);
        assert!(!body.contains("ghp_0123"), "{body}");
        assert!(
            body.contains("GITHUB_TOKEN=[redacted]") && body.contains("HOME=/root"),
            "{body}"
        );
    }

    #[tokio::test]
    async fn a_result_is_held_in_the_reply_memory_until_dropped_and_refused_without_room() {
        let link = Arc::new(FakeLink::default());
        for _ in 0..2 {
            link.script.lock().unwrap().push_back(Scripted {
                before: vec![],
                reply: ok(json!({"content": [{"type": "text", "text": "x".repeat(400)}]})),
            });
        }
        // The server may hold half of it: one result of ~410 bytes, not two.
        let replies = toolgate_resilience::ReplyMemory::new(1_000);
        let upstream =
            McpUpstream::new(link, "search".into()).holding(replies.clone(), Arc::default());
        let request = upstream
            .prepare(&Map::new(), &CallContext::default())
            .unwrap();
        let first = upstream
            .attempt(&request, Duration::from_secs(5))
            .await
            .unwrap();
        let size = first.body.len();
        assert!(size > 400);
        assert_eq!(replies.held(), size, "held while the result lives");
        let second = upstream.attempt(&request, Duration::from_secs(5)).await;
        assert!(
            matches!(second, Err(SendError::NoRoom { held, limit: 500, .. }) if held == size),
            "{second:?}"
        );
        let copy = first.body.clone();
        drop(first);
        assert_eq!(replies.held(), size, "a copy of the body keeps its share");
        drop(copy);
        assert_eq!(replies.held(), 0);
    }

    #[tokio::test]
    async fn a_result_that_breaks_the_pinned_output_schema_is_drift_after_one_call() {
        let schema = json!({"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": {"type": "object", "required": ["snippet"], "properties": {"snippet": {"type": "string"}}}}}});
        let link = Arc::new(FakeLink::default());
        link.script.lock().unwrap().push_back(Scripted {
            before: vec![],
            reply: ok(json!({"content": [], "structuredContent": {"results": [{"excerpt": "x"}]}})),
        });
        let r = route(link.clone(), Some(schema));
        let outcome = pipeline::run(
            &r,
            &services(),
            Map::new(),
            Origin::Agent,
            &CallContext::default(),
        )
        .await;
        let failure = outcome.result.expect_err("drift");
        assert_eq!(failure.class, ErrorClass::ContractDrift);
        assert!(
            failure.message.contains("excerpt") && failure.message.contains("snippet"),
            "{}",
            failure.message
        );
        assert_eq!(link.seen.lock().unwrap().len(), 1);
    }

    use toolgate_resilience::ErrorClass;
}
