//! The call path's view of an upstream session ([`McpLink`]) over the MCP client's
//! connection, and the client's settings from a server's config.

use std::time::Duration;

use serde_json::Value;
use toolgate_mcp_client::{Connection, Failure, Relay, ServerSpec, Transport};

use crate::config::{McpServerSpec, McpTransport};
use crate::upstream::mcp::{BoxFuture, LinkError, LinkReply, McpLink};

/// A connection as the call path uses it.
#[derive(Debug, Clone)]
pub struct ClientLink(pub Connection);

impl McpLink for ClientLink {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        timeout: Duration,
        relay: Option<Relay>,
    ) -> BoxFuture<'a, Result<LinkReply, LinkError>> {
        Box::pin(async move {
            match self.0.request(method, params, timeout, relay).await {
                Ok(r) => Ok(LinkReply {
                    outcome: r.outcome,
                    status: r.status,
                    headers: r.headers,
                    latency: r.latency,
                }),
                Err(Failure::Timeout(t)) => Err(LinkError::Timeout(t)),
                Err(Failure::Connect { detail }) => Err(LinkError::Connect(detail)),
                Err(Failure::Broken { detail }) => Err(LinkError::Broken(detail)),
                Err(Failure::Status {
                    status,
                    headers,
                    body,
                }) => Err(LinkError::Status {
                    status,
                    headers,
                    body,
                }),
                Err(Failure::Protocol { detail }) => Err(LinkError::Protocol(detail)),
                Err(Failure::TooLarge { limit }) => Err(LinkError::TooLarge(limit)),
            }
        })
    }
}

/// The client's settings for `spec`.
pub fn server_spec(spec: &McpServerSpec, max_message_bytes: usize) -> ServerSpec {
    let transport = match &spec.transport {
        McpTransport::Http { url, headers } => Transport::Http {
            url: url.clone(),
            headers: headers.clone(),
        },
        McpTransport::Stdio {
            program,
            args,
            env,
            cwd,
        } => Transport::Stdio {
            program: program.clone(),
            args: args.clone(),
            env: env.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect(),
            cwd: cwd.clone(),
        },
    };
    ServerSpec {
        name: spec.name.clone(),
        transport,
        max_message_bytes,
    }
}

/// A link failure in words (no URLs, no header values).
pub fn describe(e: &LinkError) -> String {
    match e {
        LinkError::Timeout(t) => format!("no answer within {t:?}"),
        LinkError::Connect(d) => format!("could not reach the server: {d}"),
        LinkError::Broken(d) => format!("the server went away during the request: {d}"),
        LinkError::Status { status, .. } => format!("the server answered HTTP {status}"),
        LinkError::Protocol(d) => format!("the server broke the protocol: {d}"),
        LinkError::TooLarge(limit) => format!("the server's answer is larger than {limit} bytes"),
    }
}
