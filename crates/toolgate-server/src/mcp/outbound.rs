//! Messages from toolgate to its clients: those that belong to one request
//! ([`Outbound`]: progress and log notifications, sampling, elicitation and roots
//! requests, delivered on that request's own channel before its answer) and those that
//! belong to no request (`toolgate_engine::broadcast`: list-changed notifications to every
//! client).
//!
//! The transports decide how a message travels: an HTTP POST's answer becomes an event
//! stream once its request sends something, a session's GET stream carries broadcasts,
//! stdio writes lines. This module only holds the queues, the ids and the waiting.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};

use super::jsonrpc::{self, Id};
use toolgate_engine::sync::lock;

/// Server→client requests one session (or stdio connection) may have waiting at once:
/// a client that never answers cannot make toolgate hold more.
pub const MAX_PENDING: usize = 64;

/// Messages one request may have queued for a client that is not reading; past it,
/// notifications are dropped (with a warning) rather than held without bound.
pub const QUEUE: usize = 1024;

/// MCP log levels, least severe first (syslog's order).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The number in the next server→client request id ("tg-N"): unique in the process, and
/// a string, so it can never equal an id a client chose for its own requests.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A JSON-RPC error: the client's answer to a server→client request, or why toolgate
/// could not ask (the same type the engine relays from upstream MCP servers).
pub use toolgate_mcp_client::RpcError;

/// Why toolgate could not ask the client (no answer came from it).
fn local(message: impl Into<String>) -> RpcError {
    RpcError {
        code: jsonrpc::INTERNAL_ERROR,
        message: message.into(),
        data: None,
    }
}

/// Where one request's messages to its client go; the transport drains it in order.
pub(crate) type Sink = mpsc::Sender<Vec<u8>>;

/// The way back to the client that sent one request. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Outbound {
    inner: Option<Arc<Inner>>,
    /// The agent that sent the request (`None`: anonymous), from its credentials.
    agent: Option<Arc<toolgate_config::AgentSpec>>,
    /// The caller's validated access token, for dependencies that exchange it (RFC
    /// 8693); `None` for an API key, the shared token, or no credential.
    access_token: Option<Arc<toolgate_config::Secret>>,
    /// The scopes the caller's access token grants; `None` for any other credential,
    /// which grants none.
    scopes: Option<toolgate_auth::Granted>,
}

#[derive(Debug)]
struct Inner {
    /// `None` when the transport has no way to send before the answer.
    sink: Option<Sink>,
    /// The session or connection the client's answers come back on; `None` when they
    /// cannot (stateless requests).
    link: Option<Arc<SessionLink>>,
    /// Capabilities declared by the request itself (2026-07-28 `_meta`).
    capabilities: Option<Value>,
    /// A 2026-07-28 request's own log level (`_meta["io.modelcontextprotocol/logLevel"]`,
    /// as [`LOG_LEVELS`] rank + 1; [`NO_LOGS`] when it named none): that revision sends
    /// a request log messages only when it asked for them. `None`: the session's level.
    log_floor: Option<u8>,
}

/// The log floor of a request that asked for no log messages.
const NO_LOGS: u8 = u8::MAX;

/// Whether a `notifications/message` with `params` is at or above `floor` (a
/// [`LOG_LEVELS`] rank + 1). Read after [`with_known_level`], so every message has one
/// of the eight levels.
fn log_passes(floor: u8, params: Option<&Value>) -> bool {
    if floor == NO_LOGS {
        return false;
    }
    let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
    let rank = level.and_then(|l| LOG_LEVELS.iter().position(|x| *x == l));
    rank.unwrap_or(0) as u8 + 1 >= floor
}

/// `params` of a log message whose level is one of the eight, as written; any other
/// (`"PWNED"`, `"ERROR"`, a number, none) is rewritten as `debug`, the least severe. A
/// server that names a level of its own would otherwise pass every filter a client
/// set, and hand the client a message its schema does not allow; as `debug` it reaches
/// only a client that asked for everything, its words kept.
fn with_known_level(params: Option<Value>) -> Option<Value> {
    let mut params = params;
    let level = params.as_ref().and_then(|p| p.get("level"));
    let known = level
        .and_then(Value::as_str)
        .is_some_and(|l| LOG_LEVELS.contains(&l));
    if !known && let Some(Value::Object(p)) = params.as_mut() {
        p.insert("level".to_owned(), Value::from(LOG_LEVELS[0]));
    }
    params
}

impl Outbound {
    /// For callers with no way back (tests, probes): notify drops, request fails.
    pub fn none() -> Outbound {
        Outbound::default()
    }

    /// The same way back, for a request sent by `agent`.
    pub fn with_agent(mut self, agent: Option<Arc<toolgate_config::AgentSpec>>) -> Outbound {
        self.agent = agent;
        self
    }

    /// What the client that sent the request reads notifications as; `None` when it
    /// has no session or connection to receive them on.
    pub fn reader(&self) -> Option<toolgate_engine::broadcast::Reader> {
        self.inner
            .as_ref()?
            .link
            .as_ref()
            .map(|l| l.reader.reader())
    }

    /// The agent that sent the request; `None`: anonymous.
    pub fn agent(&self) -> Option<&Arc<toolgate_config::AgentSpec>> {
        self.agent.as_ref()
    }

    /// The same way back, for a request that came with the caller's `access_token`.
    pub fn with_access_token(
        mut self,
        access_token: Option<Arc<toolgate_config::Secret>>,
    ) -> Outbound {
        self.access_token = access_token;
        self
    }

    /// The caller's validated access token, if it sent one.
    pub fn access_token(&self) -> Option<&Arc<toolgate_config::Secret>> {
        self.access_token.as_ref()
    }

    /// The same way back, for a request whose access token grants `scopes`.
    pub fn with_scopes(mut self, scopes: Option<toolgate_auth::Granted>) -> Outbound {
        self.scopes = scopes;
        self
    }

    /// The scopes the caller's access token grants; `None`: no access token, no scope.
    pub fn scopes(&self) -> Option<&toolgate_auth::Granted> {
        self.scopes.as_ref()
    }

    /// A way back through `sink`, with answers routed through `link`.
    pub(crate) fn new(
        sink: Option<Sink>,
        link: Option<Arc<SessionLink>>,
        capabilities: Option<Value>,
    ) -> Outbound {
        Outbound {
            inner: Some(Arc::new(Inner {
                sink,
                link,
                capabilities,
                log_floor: None,
            })),
            agent: None,
            access_token: None,
            scopes: None,
        }
    }

    /// The same way back, for a 2026-07-28 request that named `level` in its `_meta`
    /// (`None`: it named none, so it is sent no log messages; an unknown name reads as
    /// `debug`, everything). Call right after [`Outbound::new`].
    pub(crate) fn with_request_log_level(mut self, level: Option<&str>) -> Outbound {
        let floor = match level {
            None => NO_LOGS,
            Some(l) => LOG_LEVELS
                .iter()
                .position(|x| *x == l)
                .map_or(1, |rank| rank as u8 + 1),
        };
        if let Some(inner) = self.inner.as_mut().and_then(Arc::get_mut) {
            inner.log_floor = Some(floor);
        }
        self
    }

    /// A notification related to this request (`notifications/progress`,
    /// `notifications/message`, …), delivered before the request's answer, in order.
    /// After the answer, or with no way back, it is dropped.
    /// A log message (`notifications/message`) below the level the client set with
    /// `logging/setLevel`, or the 2026-07-28 request's own level, is dropped here.
    pub fn notify(&self, method: &str, params: Option<Value>) {
        let Some(inner) = self.inner.as_ref() else {
            return;
        };
        let Some(sink) = inner.sink.as_ref() else {
            return;
        };
        let params = if method == "notifications/message" {
            with_known_level(params)
        } else {
            params
        };
        if method == "notifications/message" {
            let wanted = match (inner.log_floor, &inner.link) {
                (Some(floor), _) => log_passes(floor, params.as_ref()),
                (None, Some(link)) => link.wants_log(params.as_ref()),
                (None, None) => true,
            };
            if !wanted {
                return;
            }
        }
        match sink.try_send(message(None, method, params.as_ref())) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => tracing::warn!(
                method,
                queued = QUEUE,
                "the client is not reading its stream: notification dropped"
            ),
            Err(TrySendError::Closed(_)) => {
                tracing::debug!(method, "notification after the request ended: dropped");
            }
        }
    }

    /// A server→client request related to this request; toolgate picks the id (a
    /// string "tg-N", unique in the process) and waits for the client's answer (no
    /// timeout here; the caller bounds it). Err when the client answered with an error,
    /// the transport cannot carry requests (stateless 2026-07-28 POSTs, `none()`),
    /// `MAX_PENDING` requests are already waiting, or the session or connection ended.
    /// Dropping the future forgets the request: a late answer is then dropped.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
        let inner = self.inner.as_ref();
        let (Some(sink), Some(link)) = (
            inner.and_then(|i| i.sink.as_ref()),
            inner.and_then(|i| i.link.as_ref()),
        ) else {
            return Err(local(format!(
                "cannot send {method} to this client: its transport carries no server requests \
                 (a stateless 2026-07-28 request, or no client at all)"
            )));
        };
        let key = format!("\"tg-{}\"", NEXT_ID.fetch_add(1, Ordering::Relaxed));
        let answer = link.register(&key, method)?;
        let _forget = Forget {
            link: link.clone(),
            key: key.clone(),
        };
        if sink
            .send(message(Some(&key), method, params.as_ref()))
            .await
            .is_err()
        {
            return Err(local(format!(
                "cannot send {method}: the request's stream to the client has ended"
            )));
        }
        match answer.await {
            Ok(outcome) => outcome,
            Err(_) => Err(local(format!(
                "no answer to {method}: the client's session or connection ended"
            ))),
        }
    }

    /// The client's capabilities from its `initialize` (or the 2026-07-28 `_meta`), so the
    /// gateway relays sampling only to a client that declared `sampling`, etc.
    pub fn client_capabilities(&self) -> Option<&Value> {
        let inner = self.inner.as_ref()?;
        inner
            .capabilities
            .as_ref()
            .or_else(|| inner.link.as_ref().and_then(|l| l.capabilities.get()))
    }

    /// Records the client's `logging/setLevel` (a [`LOG_LEVELS`] name) for the session
    /// or connection this request came on; false for an unknown level.
    pub(crate) fn set_log_level(&self, level: &str) -> bool {
        let Some(rank) = LOG_LEVELS.iter().position(|l| *l == level) else {
            return false;
        };
        if let Some(link) = self.inner.as_ref().and_then(|i| i.link.as_ref()) {
            link.min_log.store(rank as u8 + 1, Ordering::Relaxed);
        }
        true
    }

    /// Which session or connection this request came on (its identity while it lives),
    /// so a client's `notifications/cancelled` finds the request it names and no other
    /// client's request with the same id.
    pub(crate) fn channel(&self) -> Option<usize> {
        self.inner
            .as_ref()
            .and_then(|i| i.link.as_ref())
            .filter(|l| !l.one_call)
            .map(|l| Arc::as_ptr(l) as usize)
    }

    /// Hands a client's answer to the request waiting for it; whether one was.
    pub(crate) fn deliver(&self, id: Option<&Id>, outcome: Result<&RawValue, &RawValue>) -> bool {
        match (self.inner.as_ref().and_then(|i| i.link.as_ref()), id) {
            (Some(link), Some(id)) => link.resolve(id.json(), outcome),
            _ => false,
        }
    }
}

/// Removes a pending request when its waiting future ends, answered or not.
struct Forget {
    link: Arc<SessionLink>,
    key: String,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.link.forget(&self.key);
    }
}

type Waiting = oneshot::Sender<Result<Value, RpcError>>;

/// One client's way back for answers: a session (HTTP) or a connection (stdio). Holds
/// the server→client requests waiting for an answer and the client's capabilities.
#[derive(Debug)]
pub(crate) struct SessionLink {
    /// What the client reads notifications as: those sent to this session alone (a
    /// subscribed resource's updates) reach no other.
    reader: toolgate_engine::broadcast::ReaderHandle,
    pending: Mutex<Pending>,
    capabilities: OnceLock<Value>,
    /// The least severe log level the client wants, as its rank in [`LOG_LEVELS`] plus
    /// one; 0 until it sets one (then every level is sent).
    min_log: AtomicU8,
    /// A link of one 2026-07-28 call (its questions' answers come with its retry), not
    /// of a session or connection: nothing else arrives on it, so it names no channel.
    one_call: bool,
}

#[derive(Debug, Default)]
struct Pending {
    waiting: HashMap<String, Waiting>,
    closed: bool,
}

impl Default for SessionLink {
    fn default() -> Self {
        SessionLink {
            reader: Default::default(),
            pending: Mutex::default(),
            capabilities: OnceLock::new(),
            min_log: AtomicU8::new(0),
            one_call: false,
        }
    }
}

impl SessionLink {
    /// The link of one 2026-07-28 call: where its questions wait for the answers its
    /// retry brings.
    pub(crate) fn for_one_call() -> SessionLink {
        SessionLink {
            one_call: true,
            ..SessionLink::default()
        }
    }

    pub(crate) fn new(capabilities: Option<Value>) -> SessionLink {
        let link = SessionLink::default();
        if let Some(c) = capabilities {
            let _ = link.capabilities.set(c);
        }
        link
    }

    /// What the client reads notifications as.
    pub(crate) fn reader(&self) -> u64 {
        self.reader.id()
    }

    /// The session as a reader of notifications, as others keep it.
    pub(crate) fn notification_reader(&self) -> toolgate_engine::broadcast::Reader {
        self.reader.reader()
    }

    /// Records the capabilities from the client's `initialize` (the first one counts).
    pub(crate) fn set_capabilities(&self, capabilities: Value) {
        let _ = self.capabilities.set(capabilities);
    }

    /// Whether a log message with these params is at or above the client's level.
    fn wants_log(&self, params: Option<&Value>) -> bool {
        log_passes(self.min_log.load(Ordering::Relaxed), params)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        lock(&self.pending)
    }

    fn register(
        &self,
        key: &str,
        method: &str,
    ) -> Result<oneshot::Receiver<Result<Value, RpcError>>, RpcError> {
        let mut pending = self.lock();
        if pending.closed {
            return Err(local(format!(
                "cannot send {method}: the client's session or connection has ended"
            )));
        }
        if pending.waiting.len() >= MAX_PENDING {
            return Err(RpcError {
                code: jsonrpc::SERVER_BUSY,
                message: format!(
                    "cannot send {method}: {MAX_PENDING} requests to this client are already \
                     waiting for its answers"
                ),
                data: Some(serde_json::json!({ "max_pending": MAX_PENDING })),
            });
        }
        let (tx, rx) = oneshot::channel();
        pending.waiting.insert(key.to_owned(), tx);
        Ok(rx)
    }

    fn forget(&self, key: &str) {
        self.lock().waiting.remove(key);
    }

    /// Requests waiting for an answer.
    #[cfg(test)]
    pub(crate) fn pending(&self) -> usize {
        self.lock().waiting.len()
    }

    /// Hands a client's `result` for the question with id `key` (its JSON text) to the
    /// request waiting for it (an input-required retry's answer); whether one was.
    pub(crate) fn resolve_answer(&self, key: &str, result: &RawValue) -> bool {
        self.resolve(key, Ok(result))
    }

    /// Hands a refusal of toolgate's own to the question with id `key`: the call goes
    /// on without the client's answer.
    pub(crate) fn refuse(&self, key: &str, message: &str) -> bool {
        let Some(waiting) = self.lock().waiting.remove(key) else {
            return false;
        };
        let _ = waiting.send(Err(local(message)));
        true
    }

    /// Hands the answer with id `key` (its JSON text) to its request; whether one was
    /// waiting.
    fn resolve(&self, key: &str, outcome: Result<&RawValue, &RawValue>) -> bool {
        let Some(waiting) = self.lock().waiting.remove(key) else {
            return false;
        };
        let answer = match outcome {
            Ok(result) => serde_json::from_str::<Value>(result.get())
                .map_err(|e| local(format!("the client's result is not JSON: {e}"))),
            Err(error) => Err(client_error(error)),
        };
        // The waiting future may have been dropped since: then nobody wants it.
        let _ = waiting.send(answer);
        true
    }

    /// Ends the link: every waiting request fails, and new ones are refused.
    pub(crate) fn close(&self) {
        let mut pending = self.lock();
        pending.closed = true;
        pending.waiting.clear();
    }
}

/// The client's JSON-RPC error object as an [`RpcError`]; a malformed one still fails
/// the request, with a message that says so.
fn client_error(raw: &RawValue) -> RpcError {
    #[derive(serde::Deserialize)]
    struct E {
        code: i64,
        message: String,
        data: Option<Value>,
    }
    match serde_json::from_str::<E>(raw.get()) {
        Ok(e) => RpcError {
            code: e.code,
            message: e.message,
            data: e.data,
        },
        Err(_) => local(format!(
            "the client answered with a malformed error: {}",
            raw.get().chars().take(200).collect::<String>()
        )),
    }
}

/// Whether a message written here ([`message`]) is a request to the client: only
/// requests carry an id, and it comes first.
pub(crate) fn is_request(message: &[u8]) -> bool {
    message.starts_with(br#"{"jsonrpc":"2.0","id":"#)
}

/// A JSON-RPC request (with `id`, its JSON text) or notification.
fn message(id: Option<&str>, method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + method.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","#);
    if let Some(id) = id {
        out.extend_from_slice(br#""id":"#);
        out.extend_from_slice(id.as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(br#""method":"#);
    super::answer::write_str(&mut out, method);
    if let Some(params) = params {
        out.extend_from_slice(br#","params":"#);
        // Serialising a Value into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut out, params);
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests;
