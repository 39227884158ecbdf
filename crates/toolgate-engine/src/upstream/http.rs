//! HTTP tools: the request template of a tool rendered against its dependency's base
//! URL, sent through the shared pooled client.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{CallContext, SendError, Upstream, UpstreamClient, UpstreamResponse};
use toolgate_config::ToolSpec;
use toolgate_config::template::RenderedRequest;

/// One call's request to an HTTP tool: rendered once, sent by every attempt.
#[derive(Debug)]
pub struct HttpRequest {
    rendered: RenderedRequest,
    /// The calling agent's share of the reply memory.
    agent_replies: Option<Arc<toolgate_resilience::ReplyShare>>,
}

impl HttpRequest {
    /// The request as it is sent.
    pub fn rendered(&self) -> &RenderedRequest {
        &self.rendered
    }
}

/// An HTTP tool's upstream.
#[derive(Debug, Clone)]
pub struct HttpUpstream {
    client: UpstreamClient,
    tool: Arc<ToolSpec>,
    max_response_bytes: usize,
    /// The dependency's token exchange, when it is called with the caller's authority.
    exchange: Option<Arc<crate::exchange::Exchanger>>,
    /// The dependency's configured credentials, scrubbed from every reply.
    credentials: Arc<[String]>,
    /// The dependency's part of the reply memory.
    share: Option<Arc<toolgate_resilience::ReplyShare>>,
}

impl HttpUpstream {
    /// The upstream of `tool`, answering at most `max_response_bytes` of body.
    pub fn new(client: UpstreamClient, tool: Arc<ToolSpec>, max_response_bytes: usize) -> Self {
        HttpUpstream {
            credentials: crate::exchange::echo::credentials(&tool.dependency).into(),
            client,
            tool,
            max_response_bytes,
            exchange: None,
            share: None,
        }
    }

    /// The same upstream, its replies held within the dependency's `share` of the
    /// reply memory.
    #[must_use]
    pub fn sharing(mut self, share: Arc<toolgate_resilience::ReplyShare>) -> Self {
        self.share = Some(share);
        self
    }

    /// The same upstream, called with a token exchanged for the caller's (shared by
    /// every tool of the dependency, with its cache).
    #[must_use]
    pub fn with_exchange(mut self, exchange: Option<Arc<crate::exchange::Exchanger>>) -> Self {
        self.exchange = exchange;
        self
    }
}

impl Upstream for HttpUpstream {
    type Request = HttpRequest;

    fn prepare(&self, args: &Map<String, Value>, ctx: &CallContext) -> Result<HttpRequest, String> {
        let mut rendered = match self.tool.http_request() {
            Some(request) => request
                .render(&self.tool.dependency.base_url, args)
                .map_err(|e| e.0)?,
            None => return Err(format!("{} is not an HTTP tool", self.tool.name)),
        };
        // W3C trace context as headers (the call's span when toolgate traces, else the
        // caller's, when valid).
        for (name, value) in crate::trace_context::propagated(ctx.meta.as_ref()) {
            if let Ok(value) = reqwest::header::HeaderValue::from_str(&value) {
                rendered
                    .headers
                    .insert(reqwest::header::HeaderName::from_static(name), value);
            }
        }
        Ok(HttpRequest {
            rendered,
            agent_replies: ctx.agent.as_ref().map(|a| a.replies().clone()),
        })
    }

    async fn authorize(
        &self,
        request: &mut HttpRequest,
        ctx: &CallContext,
    ) -> Result<(), crate::exchange::error::ExchangeError> {
        let Some(exchange) = &self.exchange else {
            return Ok(());
        };
        let token = exchange.token(ctx.access_token.as_deref()).await?;
        // `wire::parse` let through visible ASCII only, so this cannot fail.
        let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", token.0))
            .map_err(|_| {
                crate::exchange::error::ExchangeError::Unavailable(
                    crate::exchange::endpoint::Unreachable {
                        class: toolgate_resilience::ErrorClass::ServerError,
                        why: "the issued token does not fit in a header".into(),
                    },
                )
            })?;
        value.set_sensitive(true);
        request
            .rendered
            .headers
            .insert(reqwest::header::AUTHORIZATION, value);
        Ok(())
    }

    fn interpret(
        &self,
        spec: &ToolSpec,
        sent: Result<UpstreamResponse, SendError>,
        signals: Option<&toolgate_signals::Signals>,
        past_sunset: bool,
    ) -> crate::upstream::interpret::AttemptResult {
        let max_values = self.max_response_bytes / toolgate_contract::BYTES_PER_VALUE;
        crate::upstream::interpret::interpret_within(spec, sent, signals, past_sunset, max_values)
    }

    async fn attempt(
        &self,
        request: &HttpRequest,
        timeout: Duration,
    ) -> Result<UpstreamResponse, SendError> {
        let mut sent = self
            .client
            .send(
                &self.tool.dependency,
                &request.rendered,
                timeout,
                self.max_response_bytes,
                self.share.as_ref(),
                request.agent_replies.as_ref(),
            )
            .await;
        // An upstream that echoes the exchanged token or the dependency's credentials
        // (a debugging endpoint returning the request's headers) does not hand them on.
        if let Ok(response) = &mut sent {
            let exchanged = exchanged_token(self.exchange.is_some(), &request.rendered);
            for secret in exchanged
                .into_iter()
                .chain(self.credentials.iter().map(String::as_str))
            {
                let body = std::mem::take(&mut response.body);
                response.body = crate::exchange::echo::scrub(body, secret);
            }
        }
        sent
    }
}

/// The token `authorize` put on `request`, when the upstream is called with one.
fn exchanged_token(exchanged: bool, request: &RenderedRequest) -> Option<&str> {
    if !exchanged {
        return None;
    }
    let value = request.headers.get(reqwest::header::AUTHORIZATION)?;
    value.to_str().ok()?.strip_prefix("Bearer ")
}
