//! Upstream kinds behind one interface: an [`Upstream`] turns a call's validated
//! arguments into a request once ([`Upstream::prepare`]) and makes one attempt with it
//! at a time ([`Upstream::attempt`]), reporting what happened on the wire — a reply
//! (status, headers, body bytes, latency) or a transport failure. It never retries,
//! classifies or parses: the pipeline does that the same way for every kind.
//!
//! HTTP tools are the first kind ([`HttpUpstream`]); tools of upstream MCP servers the
//! second ([`McpUpstream`]). What a reply means is the kind's to say
//! ([`Upstream::interpret`]): an HTTP status and body, or a JSON-RPC answer.

mod charset;
mod checked_body;
mod client;
mod duplicate_names;
mod http;
mod interpret;
pub mod mcp;
pub(crate) mod number_range;
pub(crate) mod own_origin;
mod pinned_version;
mod plain_http;
mod resolve;
mod response;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use toolgate_signals::Signals;

pub use checked_body::CheckedBody;
pub use client::UpstreamClient;
pub use http::{HttpRequest, HttpUpstream};
pub use interpret::{AttemptResult, interpret, read_signals};
pub use mcp::McpUpstream;
pub use response::{SendError, UpstreamResponse};

use toolgate_config::ToolSpec;

/// What the caller of one tool call brings besides its arguments.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// The way back to the calling client, for upstreams that talk to it during a call
    /// (an MCP server's progress, logging, sampling and elicitation). `None` for probes.
    pub client: Option<Arc<dyn mcp::ClientChannel>>,
    /// The `_meta` of the client's `tools/call` (its progress token, trace context).
    pub meta: Option<Map<String, Value>>,
    /// The JSON text of the `tools/call` request's id, for the call's trace span.
    pub call_id: Option<String>,
    /// The configured agent that made the call; `None`: anonymous (or a probe).
    pub agent: Option<crate::agents::CallAgent>,
    /// The caller's validated access token, which a dependency with `token_exchange`
    /// exchanges for its own (RFC 8693); `None` for an API key, the shared token, no
    /// credential, or a probe. Never logged, never sent upstream as it is.
    pub access_token: Option<Arc<toolgate_config::Secret>>,
}

/// One kind of upstream a tool can call.
pub trait Upstream: Send + Sync + std::fmt::Debug {
    /// A prepared request, built once per call and reused by every attempt.
    type Request: Send + Sync;

    /// Builds the request from arguments that passed the tool's input schema. An error
    /// is a request toolgate cannot form (the model's to fix): nothing is sent.
    fn prepare(
        &self,
        args: &Map<String, Value>,
        ctx: &CallContext,
    ) -> Result<Self::Request, String>;

    /// Puts the caller's authority on a prepared request, for an upstream that is
    /// called with it (`token_exchange`): the token exchanged for the caller's goes in
    /// `Authorization`. Nothing to do by default. Runs once per call, before the first
    /// attempt; an error means nothing is sent.
    fn authorize(
        &self,
        _request: &mut Self::Request,
        _ctx: &CallContext,
    ) -> impl Future<Output = Result<(), crate::exchange::error::ExchangeError>> + Send {
        async { Ok(()) }
    }

    /// One attempt, answered (or failed) within `timeout`.
    fn attempt(
        &self,
        request: &Self::Request,
        timeout: Duration,
    ) -> impl Future<Output = Result<UpstreamResponse, SendError>> + Send;

    /// What one attempt's reply means. HTTP semantics by default: the status, then the
    /// body against the contract.
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

/// Every upstream kind, so one route table holds HTTP and MCP tools alike (and a call
/// is dispatched with a `match`, not through a trait object).
#[derive(Debug, Clone)]
pub enum AnyUpstream {
    /// An HTTP tool.
    Http(HttpUpstream),
    /// A tool of an upstream MCP server.
    Mcp(McpUpstream),
}

/// A prepared request of either kind.
#[derive(Debug)]
pub enum AnyRequest {
    /// For [`AnyUpstream::Http`].
    Http(HttpRequest),
    /// For [`AnyUpstream::Mcp`].
    Mcp(mcp::McpRequest),
}

impl Upstream for AnyUpstream {
    type Request = AnyRequest;

    fn prepare(&self, args: &Map<String, Value>, ctx: &CallContext) -> Result<AnyRequest, String> {
        match self {
            AnyUpstream::Http(u) => u.prepare(args, ctx).map(AnyRequest::Http),
            AnyUpstream::Mcp(u) => u.prepare(args, ctx).map(AnyRequest::Mcp),
        }
    }

    async fn authorize(
        &self,
        request: &mut AnyRequest,
        ctx: &CallContext,
    ) -> Result<(), crate::exchange::error::ExchangeError> {
        match (self, request) {
            (AnyUpstream::Http(u), AnyRequest::Http(r)) => u.authorize(r, ctx).await,
            (AnyUpstream::Mcp(u), AnyRequest::Mcp(r)) => u.authorize(r, ctx).await,
            // `prepare` of the same upstream made the request: not reachable, and
            // `attempt` refuses it.
            _ => Ok(()),
        }
    }

    async fn attempt(
        &self,
        request: &AnyRequest,
        timeout: Duration,
    ) -> Result<UpstreamResponse, SendError> {
        match (self, request) {
            (AnyUpstream::Http(u), AnyRequest::Http(r)) => u.attempt(r, timeout).await,
            (AnyUpstream::Mcp(u), AnyRequest::Mcp(r)) => u.attempt(r, timeout).await,
            // `prepare` of the same upstream made the request: not reachable.
            _ => Err(SendError::Build {
                detail: "the request was prepared for another kind of upstream".into(),
            }),
        }
    }

    fn interpret(
        &self,
        spec: &ToolSpec,
        sent: Result<UpstreamResponse, SendError>,
        signals: Option<&Signals>,
        past_sunset: bool,
    ) -> AttemptResult {
        match self {
            AnyUpstream::Http(u) => u.interpret(spec, sent, signals, past_sunset),
            AnyUpstream::Mcp(u) => u.interpret(spec, sent, signals, past_sunset),
        }
    }
}

/// The `status` label of an attempt's upstream request; `None` when nothing was sent
/// (the request could not be built), which is no upstream request.
pub fn status_label(
    sent: &Result<UpstreamResponse, SendError>,
) -> Option<crate::metrics::StatusLabel> {
    use crate::metrics::StatusLabel;
    Some(match sent {
        Ok(r) => StatusLabel::Code(r.status),
        Err(SendError::TooLarge { status, .. } | SendError::NoRoom { status, .. }) => {
            StatusLabel::Code(*status)
        }
        Err(SendError::Timeout(_)) => StatusLabel::Timeout,
        Err(SendError::Connect { .. } | SendError::Broken { .. }) => StatusLabel::Connect,
        Err(SendError::Protocol { .. }) => StatusLabel::Protocol,
        // An MCP server's answer, refused on its bytes: a 200 in transport terms.
        Err(SendError::TooManyValues { .. }) => StatusLabel::Code(200),
        Err(SendError::Build { .. }) => return None,
    })
}
