//! Tools of upstream MCP servers. A call of `kb__search` becomes a `tools/call` of
//! `search` on the server `kb`, through that server's [`McpLink`] (a session over
//! streamable HTTP or a stdio child process). What the server sends during the call —
//! progress, log messages, sampling, elicitation and roots requests — is relayed to the
//! calling client through its [`ClientChannel`], and the client's answers back.
//!
//! The reply is reported as the HTTP kind reports its own: the status and headers of the
//! streamable-HTTP answer (so rate-limit headers, `Retry-After` and `Deprecation` feed
//! the same signals) and, as the body, the JSON-RPC outcome `{"result": …}` or
//! `{"error": …}`, which [`interpret`] reads.

mod interpret;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolgate_signals::Signals;

use super::{AttemptResult, CallContext, SendError, Upstream, UpstreamResponse};
use crate::config::ToolSpec;

pub use interpret::interpret;

pub use toolgate_mcp_client::{Relay, Relayed, RpcError};

/// What a session returned for one request.
#[derive(Debug)]
pub struct LinkReply {
    /// The JSON-RPC `result`, or its `error`.
    pub outcome: Result<Value, RpcError>,
    /// HTTP status of the answer (200 for stdio).
    pub status: u16,
    /// Headers of the answer (empty for stdio).
    pub headers: HeaderMap,
    /// Request written → answer read.
    pub latency: Duration,
}

/// Why a request to an upstream server got no JSON-RPC answer.
#[derive(Debug)]
pub enum LinkError {
    /// No answer in time.
    Timeout(Duration),
    /// Not reachable, or the process is not running.
    Connect(String),
    /// A non-2xx HTTP answer (429 and 503 with `Retry-After`, 5xx, 401, …).
    Status {
        /// The status.
        status: u16,
        /// Its headers.
        headers: HeaderMap,
        /// The start of its body.
        body: bytes::Bytes,
    },
    /// The server broke the protocol (not JSON-RPC, a stream that ended unanswered).
    Protocol(String),
    /// The answer was over the size cap.
    TooLarge(usize),
}

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

/// A prepared `tools/call`.
#[derive(Debug)]
pub struct McpRequest {
    params: Value,
    client: Option<Arc<dyn ClientChannel>>,
}

/// One upstream MCP tool.
#[derive(Debug, Clone)]
pub struct McpUpstream {
    link: Arc<dyn McpLink>,
    /// The tool's name on the server.
    tool: String,
}

impl McpUpstream {
    /// The tool `tool` of the server behind `link`.
    pub fn new(link: Arc<dyn McpLink>, tool: String) -> McpUpstream {
        McpUpstream { link, tool }
    }
}

impl Upstream for McpUpstream {
    type Request = McpRequest;

    fn prepare(&self, args: &Map<String, Value>, ctx: &CallContext) -> Result<McpRequest, String> {
        let mut params = json!({ "name": self.tool, "arguments": args });
        // The client's progress token goes upstream unchanged, so the server's progress
        // notifications carry the token the client is waiting for.
        if let Some(token) = ctx.meta.as_ref().and_then(|m| m.get("progressToken")) {
            params["_meta"] = json!({ "progressToken": token });
        }
        Ok(McpRequest {
            params,
            client: ctx.client.clone(),
        })
    }

    async fn attempt(
        &self,
        request: &McpRequest,
        timeout: Duration,
    ) -> Result<UpstreamResponse, SendError> {
        let (tx, mut rx) = mpsc::channel::<Relayed>(64);
        let call = self.link.request(
            "tools/call",
            Some(request.params.clone()),
            timeout,
            Some(Relay { tx }),
        );
        tokio::pin!(call);
        let client = request.client.as_deref();
        // Relayed messages are handled in order while the call runs (a server that asks
        // the client a question waits for the answer before it goes on), and those that
        // arrived just before the answer are delivered before it.
        let reply = loop {
            tokio::select! {
                biased;
                Some(message) = rx.recv() => relay(client, message).await,
                reply = &mut call => {
                    while let Ok(message) = rx.try_recv() {
                        relay(client, message).await;
                    }
                    break reply;
                }
            }
        };
        to_response(reply)
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

/// Which client capability a server→client request needs.
fn capability_of(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// Passes one relayed message to the client, or answers it when the client cannot.
pub async fn relay(client: Option<&dyn ClientChannel>, message: Relayed) {
    match message {
        Relayed::Notification { method, params } => {
            if let Some(c) = client {
                c.notify(&method, params);
            }
        }
        Relayed::Request {
            method,
            params,
            answer,
        } => {
            let declared = |c: &dyn ClientChannel| match capability_of(&method) {
                Some(cap) => c.capabilities().is_some_and(|caps| caps.get(cap).is_some()),
                // `ping` and requests toolgate does not know: the client decides.
                None => true,
            };
            let result = match client {
                Some(c) if declared(c) => c.request(&method, params).await,
                Some(_) => Err(RpcError {
                    code: -32601,
                    message: format!(
                        "the calling client did not declare the capability {} needs",
                        method
                    ),
                    data: None,
                }),
                None => Err(RpcError {
                    code: -32601,
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

/// A link's answer as the wire-level reply the pipeline reads.
fn to_response(reply: Result<LinkReply, LinkError>) -> Result<UpstreamResponse, SendError> {
    match reply {
        Ok(r) => {
            let body = match &r.outcome {
                Ok(result) => json!({ "result": result }),
                Err(e) => {
                    json!({ "error": { "code": e.code, "message": e.message, "data": e.data } })
                }
            };
            Ok(UpstreamResponse {
                status: r.status,
                headers: r.headers,
                body: serde_json::to_vec(&body).unwrap_or_default().into(),
                latency: r.latency,
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
        }),
        Err(LinkError::Timeout(t)) => Err(SendError::Timeout(t)),
        Err(LinkError::Connect(detail)) => Err(SendError::Connect { detail }),
        Err(LinkError::Protocol(detail)) => Err(SendError::Protocol { detail }),
        Err(LinkError::TooLarge(limit)) => Err(SendError::TooLarge {
            status: 200,
            headers: HeaderMap::new(),
            limit,
        }),
    }
}
