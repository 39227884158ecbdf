//! One fronted server's life: its connection started with its pins read, stopped at
//! shutdown, and the sessions and settings the rest of the gateway reaches it through.

use std::sync::{Arc, Mutex};

use toolgate_config::{Config, McpServerSpec};
use toolgate_mcp_client::Connection;

use super::check::mtime;
use super::{Fronted, ServerEvents, State, callers, link};
use crate::upstream::UpstreamClient;
use crate::upstream::mcp::McpLink;

impl Fronted {
    /// Reads the server's pins and starts its connection (a stdio child is spawned now).
    pub(super) fn start(
        name: &str,
        spec: &Arc<McpServerSpec>,
        config: &Config,
        client: &UpstreamClient,
        metrics: &crate::metrics::Metrics,
    ) -> anyhow::Result<ServerEvents> {
        let lock_mtime = mtime(&spec.lock);
        let pins = toolgate_contract::Lockfile::read(&spec.lock)
            .map_err(|e| anyhow::anyhow!("MCP server `{name}`: {e}"))?
            .and_then(|l| l.server(name).cloned());
        let client_spec = link::server_spec(spec, config.gateway.max_response_bytes);
        let http = client.http_for(spec.dependency.allow_link_local);
        let recheck = Arc::new(tokio::sync::Notify::new());
        let callers = spec.dependency.token_exchange.clone().map(|x| {
            let exchanger = crate::exchange::Exchanger::new(name, x, http.clone(), metrics);
            Arc::new(callers::CallerSessions::new(
                client_spec.clone(),
                http.clone(),
                Arc::new(exchanger),
                recheck.clone(),
            ))
        });
        let (connection, rx) = Connection::start(client_spec, http.clone());
        share_server_requests(&connection, config);
        let link: Arc<dyn McpLink> = Arc::new(link::ClientLink {
            connection: connection.clone(),
            recheck: recheck.clone(),
        });
        let fronted = Arc::new(Fronted {
            spec: spec.clone(),
            connection,
            link,
            callers,
            replies: client.reply_memory().clone(),
            recheck,
            listings: Mutex::default(),
            state: Mutex::new(State {
                from_lock: pins.is_some(),
                pins,
                lock_mtime,
                ..State::default()
            }),
        });
        Ok((fronted, rx))
    }

    /// Applies `config`'s `gateway.server_request_share` to the running connection (a
    /// reload that keeps the server): slots held stay held.
    pub(super) fn share_server_requests(&self, config: &Config) {
        share_server_requests(&self.connection, config);
    }

    /// Ends the server's session (and its callers') and stops its child process.
    pub async fn stop(&self) {
        if let Some(callers) = &self.callers {
            callers.shutdown().await;
        }
        self.connection.shutdown().await;
    }

    /// Whether the server is called with each caller's authority (`token_exchange`).
    pub(crate) fn calls_with_callers_authority(&self) -> bool {
        self.callers.is_some()
    }

    /// The session to use for the caller whose validated access token is
    /// `access_token`: the caller's own when the server is called with the caller's
    /// authority (`Some`), else the server's (`None`). An error means nothing may be
    /// sent.
    pub async fn caller_link(
        &self,
        access_token: Option<&toolgate_config::Secret>,
    ) -> Result<Option<crate::upstream::mcp::CallerLink>, crate::exchange::ExchangeError> {
        match &self.callers {
            Some(callers) => callers.caller(access_token).await.map(Some),
            None => Ok(None),
        }
    }

    /// How many callers' own sessions are open (0 for a server called with
    /// toolgate's own credentials).
    pub fn caller_sessions(&self) -> usize {
        self.callers.as_ref().map_or(0, |c| c.open_sessions())
    }

    /// The server's configuration.
    pub fn spec(&self) -> &Arc<McpServerSpec> {
        &self.spec
    }

    /// The server's session, for requests that are not tool calls.
    pub fn link(&self) -> &Arc<dyn McpLink> {
        &self.link
    }

    /// What the server said at its last handshake.
    pub fn initialized(&self) -> Option<toolgate_mcp_client::Initialized> {
        self.connection.initialized()
    }
}

/// Each agent's share of the server's slots for its questions: a slot is held until
/// the agent answers, so one agent that leaves questions unanswered would otherwise
/// hold them all, and every other agent's calls would have theirs refused.
fn share_server_requests(connection: &Connection, config: &Config) {
    connection.share_server_requests(
        config.gateway.server_request_share,
        "gateway.server_request_share",
    );
}
