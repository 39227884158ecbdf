//! HTTP tools: the request template of a tool rendered against its dependency's base
//! URL, sent through the shared pooled client.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{CallContext, SendError, Upstream, UpstreamClient, UpstreamResponse};
use toolgate_config::ToolSpec;
use toolgate_config::template::RenderedRequest;

/// An HTTP tool's upstream.
#[derive(Debug, Clone)]
pub struct HttpUpstream {
    client: UpstreamClient,
    tool: Arc<ToolSpec>,
    max_response_bytes: usize,
}

impl HttpUpstream {
    /// The upstream of `tool`, answering at most `max_response_bytes` of body.
    pub fn new(client: UpstreamClient, tool: Arc<ToolSpec>, max_response_bytes: usize) -> Self {
        HttpUpstream {
            client,
            tool,
            max_response_bytes,
        }
    }
}

impl Upstream for HttpUpstream {
    type Request = RenderedRequest;

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ctx: &CallContext,
    ) -> Result<RenderedRequest, String> {
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
        Ok(rendered)
    }

    async fn attempt(
        &self,
        request: &RenderedRequest,
        timeout: Duration,
    ) -> Result<UpstreamResponse, SendError> {
        self.client
            .send(
                &self.tool.dependency,
                request,
                timeout,
                self.max_response_bytes,
            )
            .await
    }
}
