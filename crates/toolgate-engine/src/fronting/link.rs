//! The call path's view of an upstream session ([`McpLink`]) over the MCP client's
//! connection, and the client's settings from a server's config.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolgate_mcp_client::{Connection, Relay, ServerSpec, Transport};

use tokio::sync::Notify;

use crate::upstream::mcp::{BoxFuture, LinkError, LinkReply, McpLink, unknown_tool};
use toolgate_config::{McpServerSpec, McpTransport};

/// A connection as the call path uses it.
#[derive(Debug, Clone)]
pub struct ClientLink {
    /// The session.
    pub connection: Connection,
    /// Woken when the server refuses a call for not knowing the tool, so its tools are
    /// checked again now rather than at the next scheduled check.
    pub recheck: Arc<Notify>,
}

impl McpLink for ClientLink {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        timeout: Duration,
        relay: Option<Relay>,
    ) -> BoxFuture<'a, Result<LinkReply, LinkError>> {
        Box::pin(async move {
            let reply = self
                .connection
                .request(method, params, timeout, relay)
                .await;
            if method == "tools/call" && unknown_tool::refuses_as_unknown(&reply) {
                // One stored wake-up however many calls are refused before the check.
                self.recheck.notify_one();
            }
            reply
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
        limits: toolgate_mcp_client::Limits {
            max_server_requests: spec.limits.max_server_requests,
            max_pending_requests: toolgate_mcp_client::Limits::default().max_pending_requests,
            answer_timeout: spec.limits.answer_timeout,
            stderr_lines_per_second: spec.limits.stderr_lines_per_second,
            offered: toolgate_mcp_client::Offered {
                sampling: spec.limits.server_requests.sampling,
                elicitation: spec.limits.server_requests.elicitation,
                roots: spec.limits.server_requests.roots,
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_requests_a_server_may_send_reach_the_client_as_its_offer() {
        let config = crate::fixtures::config(
            "mcp_servers:\n  kb:\n    url: 'http://127.0.0.1:9/mcp'\n    owner: o\n    limits: { server_requests: [elicitation] }\n",
        );
        let client = server_spec(&config.mcp_servers["kb"], 1 << 20);
        assert_eq!(
            client.limits.offered,
            toolgate_mcp_client::Offered {
                sampling: false,
                elicitation: true,
                roots: false
            }
        );
    }

    #[test]
    fn a_stdio_servers_inherit_env_reaches_the_client() {
        let config = crate::fixtures::config(
            "mcp_servers:\n  ev:\n    command: [node, server.js]\n    inherit_env: [KB_TOKEN, UNSET_ONE]\n    owner: o\n",
        );
        let client = server_spec(&config.mcp_servers["ev"], 1 << 20);
        // The server's caps from config, not the client's defaults.
        assert_eq!(
            client.limits.max_server_requests,
            config.mcp_servers["ev"].limits.max_server_requests
        );
        let Transport::Stdio { inherit_env, .. } = client.transport else {
            panic!("stdio");
        };
        assert_eq!(inherit_env, ["KB_TOKEN", "UNSET_ONE"]);
    }
}
