//! The call path's view of an upstream session ([`McpLink`]) over the MCP client's
//! connection, and the client's settings from a server's config.

use std::time::Duration;

use serde_json::Value;
use toolgate_mcp_client::{Connection, Relay, ServerSpec, Transport};

use crate::upstream::mcp::{BoxFuture, LinkError, LinkReply, McpLink};
use toolgate_config::{McpServerSpec, McpTransport};

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
        Box::pin(self.0.request(method, params, timeout, relay))
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
            inherit_env,
            cwd,
        } => Transport::Stdio {
            program: program.clone(),
            args: args.clone(),
            env: env.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect(),
            inherit_env: inherit_env.clone(),
            cwd: cwd.clone(),
        },
    };
    ServerSpec {
        name: spec.name.clone(),
        transport,
        max_message_bytes,
        limits: toolgate_mcp_client::Limits::default(),
    }
}
