//! A fronted server called with each caller's authority (`mcp_servers.<s>.token_exchange`).
//!
//! The server's own session — the one that lists its tools and checks them against
//! the pins — keeps toolgate's own `headers`. A caller's tool calls, resource reads
//! and prompts go on a session of that caller's own, opened with the token exchanged
//! for the caller's (RFC 8693) in `Authorization`: a handshake-era server binds its
//! session to the user who opened it (as the MCP spec asks servers to), so one
//! session cannot carry several users' tokens, and a 2026-07-28 server gets the
//! caller's token on every request of that session.
//!
//! Sessions are keyed by the SHA-256 of the exchanged token, so a refreshed token opens
//! a new session and the old one ages out. At most [`MAX_SESSIONS`] are kept per
//! server; one unused for [`IDLE`] is closed, and when the table is full the least
//! recently used goes. A session is closed upstream (HTTP DELETE) when it goes unless a
//! call is still using it, which then ends it by dropping it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use tokio::time::Instant;
use toolgate_config::Secret;
use toolgate_mcp_client::{Connection, ServerSpec, Transport};

use crate::exchange::{ExchangeError, Exchanger};
use crate::fronting::link::ClientLink;
use crate::sync::lock as guard;
use crate::upstream::mcp::{BoxFuture, CallerLink, CallerLinks};

/// Callers' sessions kept per server.
pub const MAX_SESSIONS: usize = 1_000;
/// A caller's session unused this long is closed.
pub const IDLE: Duration = Duration::from_secs(600);

/// The callers' sessions of one server.
#[derive(Debug)]
pub struct CallerSessions {
    server: String,
    /// The server's client settings; each caller's session replaces `Authorization`.
    spec: ServerSpec,
    http: reqwest::Client,
    exchanger: Arc<Exchanger>,
    sessions: Mutex<HashMap<[u8; 32], Session>>,
    capacity: usize,
    /// The server's wake-up for a check of its tools, which a caller's session rings
    /// too when the server does not know a tool.
    recheck: Arc<tokio::sync::Notify>,
}

#[derive(Debug)]
struct Session {
    /// Handed to each call as it is, so a call still holding it is seen when it goes.
    link: Arc<ClientLink>,
    used: Instant,
}

impl CallerSessions {
    /// Sessions of the server `spec` describes (streamable HTTP), each with a token
    /// from `exchanger`.
    pub fn new(
        spec: ServerSpec,
        http: reqwest::Client,
        exchanger: Arc<Exchanger>,
        recheck: Arc<tokio::sync::Notify>,
    ) -> Self {
        CallerSessions::with_capacity(spec, http, exchanger, MAX_SESSIONS, recheck)
    }

    /// The same, keeping at most `capacity` sessions.
    pub fn with_capacity(
        spec: ServerSpec,
        http: reqwest::Client,
        exchanger: Arc<Exchanger>,
        capacity: usize,
        recheck: Arc<tokio::sync::Notify>,
    ) -> Self {
        CallerSessions {
            server: spec.name.clone(),
            spec,
            http,
            exchanger,
            sessions: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
            recheck,
        }
    }

    /// The session of the caller whose validated access token is `access_token`
    /// (`None`: an API key, the shared token or no credential, which cannot be
    /// exchanged and is refused).
    pub async fn caller(&self, access_token: Option<&Secret>) -> Result<CallerLink, ExchangeError> {
        let token = self.exchanger.token(access_token).await?;
        let key = crate::exchange::digest(&token);
        let now = Instant::now();
        let mut closing = Vec::new();
        let link = {
            let mut sessions = guard(&self.sessions);
            if let Some(s) = sessions.get_mut(&key) {
                s.used = now;
                s.link.clone()
            } else {
                sessions.retain(|_, s| {
                    let keep = now.saturating_duration_since(s.used) < IDLE;
                    if !keep {
                        closing.push(s.link.clone());
                    }
                    keep
                });
                if sessions.len() >= self.capacity
                    && let Some(oldest) =
                        sessions.iter().min_by_key(|(_, s)| s.used).map(|(k, _)| *k)
                    && let Some(s) = sessions.remove(&oldest)
                {
                    closing.push(s.link);
                }
                let link = Arc::new(ClientLink {
                    connection: self.open(&token)?,
                    recheck: self.recheck.clone(),
                });
                sessions.insert(
                    key,
                    Session {
                        link: link.clone(),
                        used: now,
                    },
                );
                link
            }
        };
        close(closing);
        Ok(CallerLink { link, token })
    }

    /// How many callers' sessions are open.
    pub fn open_sessions(&self) -> usize {
        guard(&self.sessions).len()
    }

    /// Closes every caller's session (the server is stopped or reconfigured).
    pub async fn shutdown(&self) {
        let all: Vec<Arc<ClientLink>> =
            guard(&self.sessions).drain().map(|(_, s)| s.link).collect();
        for link in all {
            link.connection.shutdown().await;
        }
    }

    /// A session carrying `token`; no I/O until its first request.
    fn open(&self, token: &Secret) -> Result<Connection, ExchangeError> {
        let Transport::Http { url, headers } = &self.spec.transport else {
            // The config refuses `token_exchange` on a `command` server.
            return Err(unavailable(format!(
                "MCP server {} is not reached over HTTP, so it cannot be called with the caller's authority",
                self.server
            )));
        };
        let mut value = HeaderValue::from_str(&format!("Bearer {}", token.0))
            .map_err(|_| unavailable("the issued token does not fit in a header".into()))?;
        value.set_sensitive(true);
        let mut headers: Vec<(HeaderName, HeaderValue)> = headers
            .iter()
            .filter(|(name, _)| name != http::header::AUTHORIZATION)
            .cloned()
            .collect();
        headers.push((http::header::AUTHORIZATION, value));
        let spec = ServerSpec {
            transport: Transport::Http {
                url: url.clone(),
                headers,
            },
            ..self.spec.clone()
        };
        // What the server says on its own on a caller's session (a changed tool list)
        // is not read: the server's own session watches its definitions. Dropping the
        // events also spares a 2026-07-28 server one open subscription per caller.
        let (connection, _events) = Connection::start(spec, self.http.clone());
        Ok(connection)
    }
}

impl CallerLinks for CallerSessions {
    fn link<'a>(
        &'a self,
        access_token: Option<&'a Secret>,
    ) -> BoxFuture<'a, Result<CallerLink, ExchangeError>> {
        Box::pin(self.caller(access_token))
    }
}

fn unavailable(why: String) -> ExchangeError {
    ExchangeError::Unavailable(crate::exchange::endpoint::Unreachable {
        class: toolgate_resilience::ErrorClass::ServerError,
        why,
    })
}

/// Closes sessions that went, in the background: upstream (HTTP DELETE) when no call
/// holds one any more; one still in use ends when its last call drops it.
fn close(sessions: Vec<Arc<ClientLink>>) {
    for link in sessions {
        if let Ok(ClientLink { connection, .. }) = Arc::try_unwrap(link) {
            tokio::spawn(async move { connection.shutdown().await });
        }
    }
}

#[cfg(test)]
mod tests;
