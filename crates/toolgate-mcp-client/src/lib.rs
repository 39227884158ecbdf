//! toolgate's client for one upstream MCP server, over streamable HTTP or over
//! a stdio child process.
//!
//! # What it does
//!
//! A [`Connection`] speaks MCP to one server: it performs the initialize
//! handshake (offering revision 2025-11-25, accepting 2025-03-26, 2025-06-18
//! and 2025-11-25; over HTTP the stateless 2026-07-28 revision is used when a
//! server refuses the handshake, see below), sends requests and notifications, and hands back what
//! happened on the wire as it happened: the JSON-RPC `result` *or* `error`
//! ([`Reply::outcome`]), the HTTP status and headers of the answer (quota
//! headers, `Retry-After`, `Deprecation` — the gateway turns them into
//! policy), the latency, and every message the server sends while a request
//! runs ([`Relayed`], through the request's [`Relay`]). Messages the server
//! sends outside any request become [`Event`]s.
//!
//! The transport is owned here rather than borrowed from rmcp because the
//! gateway needs exactly what a general-purpose client hides: the status and
//! headers of every answer, the raw JSON-RPC error, and the in-request
//! messages tied to the request that caused them.
//!
//! # What it does not do
//!
//! No retries, no classification, no pacing, no validation of results. The
//! only things it repairs by itself are the ones that are part of the
//! transport: a lost HTTP session (404 on a request carrying our session id →
//! one new handshake and one resend), a server-sent-events stream that ends
//! before the answer but gave event ids (resumed with `GET` +
//! `Last-Event-ID`, waiting what `retry:` asked for, at least 250 ms), the
//! standalone `GET` stream (reopened with backoff), `ping` requests (answered `{}`), and a
//! stdio child that exits, or closes its stdout and lives on (stopped after
//! 500 ms, then restarted with backoff and re-initialised). Every
//! other failure is a [`Failure`] for the gateway to judge.
//!
//! # What a server can cost
//!
//! Whatever a server sends, what it costs is bounded ([`Limits`]). `ping` is
//! answered inline, never in a task: over HTTP the stream it came on waits
//! for the answer's POST; over stdio an answer the child's stdin has no room
//! for is dropped. Every other server→client request takes one of
//! [`Limits::max_server_requests`] slots until its answer is written or
//! POSTed (each POST within [`Limits::answer_timeout`]); with all taken it is
//! shed — refused with JSON-RPC error -32000 over stdio, dropped over HTTP —
//! and counted ([`Connection::server_requests`]). The first shed request sends
//! [`Event::Misbehaving`], then at most one a minute. Each owner of a relay
//! ([`Relay::owned_by`]: the gateway's agents) holds at most its share of the slots
//! ([`Connection::share_server_requests`]); beyond it a request is refused with
//! -32000 on both transports, as the owner's doing rather than the server's. Notifications go to
//! bounded channels without waiting; the child's stderr is logged at most
//! [`Limits::stderr_lines_per_second`] lines a second, the rest counted.
//!
//! # HTTP
//!
//! No I/O happens before the first use. The first use is the handshake: the
//! gateway relays server→client requests (sampling, elicitation, roots) and
//! resource subscriptions, which the handshake revisions carry and 2026-07-28
//! replaces or drops, so a server serving both gets the handshake (and
//! `server/discover` may list only the stateless revision even then). A server
//! that refuses the handshake (a 4xx other than 408/429, or an answer that is
//! not an initialize result) is asked `server/discover` (with the `_meta` keys
//! `io.modelcontextprotocol/protocolVersion` and
//! `io.modelcontextprotocol/clientCapabilities`); if it offers only the
//! stateless revision 2026-07-28 it is spoken to without a session, every
//! request carrying those `_meta` keys and the `MCP-Protocol-Version`,
//! `Mcp-Method` and (for `tools/call`, `prompts/get`, `resources/read`)
//! `Mcp-Name` headers, and later handshakes go to discovery directly.
//! Such a server asks the client through input-required results: each
//! question goes to the request's [`Relay`] like a handshake-era server's
//! request, and the request is sent again with the answers
//! (`input_required.rs`). One that
//! is down, rate limiting or failing (5xx, 408, 429) fails the call instead. The handshake keeps the
//! `Mcp-Session-Id` the server assigns and sends it with
//! `MCP-Protocol-Version` on every later request, and opens the standalone
//! GET stream (405: the server has none). Each answer is either one
//! `application/json` message or a `text/event-stream` read until the event
//! carrying our answer. Dropping a request's future closes its stream; under
//! the handshake revisions it also sends `notifications/cancelled` in the
//! background (under 2026-07-28 the closed stream is the cancellation).
//! Configured header values are credentials: they are sent, never logged,
//! and never part of a [`Failure`].
//!
//! # Stdio: how messages are attributed to requests
//!
//! Stdio has no per-request stream: everything the server writes arrives on
//! one stdout, so the client decides which request a message belongs to.
//! An answer belongs to the pending request with its id. A
//! `notifications/progress` belongs to the request whose
//! `params._meta.progressToken` it names (the token is remembered when the
//! request is written); one naming no pending request is dropped. On both
//! transports a request's progress token goes upstream replaced by one of the
//! client's own, unique in the process, and its progress comes back with the
//! caller's: callers pick tokens freely (the SDKs use their request ids), and
//! two callers' `1` on one connection must not share one request's progress. Every other
//! notification (logging, …) and every server→client request (sampling,
//! elicitation, roots) belongs to the request it cites in `params._meta` —
//! by id under `io.modelcontextprotocol/related-request-id`, or by its
//! progress token under `progressToken` — or, citing none, to the only
//! request pending. It is never guessed among several: when several are
//! pending and it cites none of them (or cites one that is not pending), a
//! server request is refused with JSON-RPC error -32602 (what the
//! specification asks of a client for a request not associated with one of
//! its own) and counted as unroutable, a logging notification becomes an
//! [`Event`], and any other notification is dropped. A server request that
//! belongs to a request without a relay, or comes with nothing pending, is
//! answered with JSON-RPC error -32601; such notifications become
//! [`Event`]s. List-changed and resource-updated
//! notifications describe the server, not a request: on both transports they
//! always become [`Event`]s. A stdout line longer than
//! [`ServerSpec::max_message_bytes`] is skipped without being buffered, and
//! the request it answers fails with [`Failure::TooLarge`] — unless it answers a
//! list request: on every transport a list answer past the limit is read entry
//! by entry, the entries past the limit left out and counted in
//! [`Reply::skipped`] (`list_filter.rs`). The child's stderr
//! goes line by line to `tracing` (target `upstream`, field `server`).
//!
//! The child starts with a clean environment: `PATH`, `HOME`, `LANG`,
//! `LANGUAGE`, `LC_*`, `TZ` and `TMPDIR` from this process, the variables
//! named in `inherit_env`, and its configured `env` — nothing else of this
//! process's environment (its credentials included). On Unix it runs in a
//! process group of its own, killed as a whole when the child exits, when
//! the connection is shut down or dropped, so what it started goes with it.
//! Stdio always uses the handshake, without a `server/discover` probe: some
//! handshake-era servers fail on a request that comes before `initialize`.
//!
//! [`Connection::start`] must be called inside a Tokio runtime: it spawns the
//! stdio child and the tasks that read it.
//!
//! # Example
//!
//! ```no_run
//! # async fn example() -> Result<(), toolgate_mcp_client::Failure> {
//! use std::time::Duration;
//! use toolgate_mcp_client::{Connection, Relay, Relayed, ServerSpec, Transport};
//!
//! let spec = ServerSpec {
//!     name: "kb".into(),
//!     transport: Transport::Http { url: "http://127.0.0.1:3001/mcp".parse().unwrap(), headers: vec![] },
//!     max_message_bytes: 4 << 20,
//!     limits: toolgate_mcp_client::Limits::default(),
//! };
//! let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
//! let (kb, _events) = Connection::start(spec, http);
//! let (tx, mut relayed) = tokio::sync::mpsc::channel(16);
//! tokio::spawn(async move {
//!     while let Some(message) = relayed.recv().await {
//!         if let Relayed::Request { answer, .. } = message {
//!             // A real gateway asks its own client (the agent) here.
//!             let _ = answer.send(Ok(serde_json::json!({})));
//!         }
//!     }
//! });
//! let reply = kb
//!     .request(
//!         "tools/call",
//!         Some(serde_json::json!({"name": "search", "arguments": {"q": "rust"}})),
//!         Duration::from_secs(30),
//!         Some(Relay::new(tx)),
//!     )
//!     .await?;
//! println!("{} in {:?}: {:?}", reply.status, reply.latency, reply.outcome);
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]
// `Failure::Status` carries the answer's headers by value because the
// gateway reads them (Retry-After, quota); failures are the rare path, so the
// size of the `Err` variant costs nothing that matters.
#![allow(clippy::result_large_err)]

mod bounds;
pub use bounds::{LineBudget, Take};
pub mod codes;
mod echoed;
mod http_transport;
pub use bounds::STREAM_BYTES_PER_WINDOW;
mod input_required;
mod list_filter;
pub use list_filter::Skipped;
mod lone_surrogate;
mod message;
mod one_stream;
mod progress;
pub use message::RpcOutcome;

/// What every request of a [`Connection`] does with its progress token: `params` go
/// upstream with a token of the client's own, and the relay gives progress under that
/// token back as the caller's, and drops progress under any other. For stand-ins of a
/// connection.
pub fn with_own_progress_token(
    params: Option<Value>,
    relay: Option<Relay>,
) -> (Option<Value>, Option<Relay>) {
    progress::swap(params, relay)
}
mod scan;
mod sse;
mod stdio;

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// The handshake revision offered in `initialize`.
pub const OFFERED_PROTOCOL_VERSION: &str = "2025-11-25";
/// The handshake revisions accepted in the server's answer.
pub const ACCEPTED_PROTOCOL_VERSIONS: &[&str] = &["2025-03-26", "2025-06-18", "2025-11-25"];

/// The stateless revision, tried first over HTTP with `server/discover`.
pub const STATELESS_PROTOCOL_VERSION: &str = "2026-07-28";

const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long `notify` and the re-initialisation after a stdio restart may wait
/// for a handshake (they have no caller deadline of their own).
const BACKGROUND_INIT_TIMEOUT: Duration = Duration::from_secs(30);

/// One upstream MCP server as toolgate's config describes it.
#[derive(Clone)]
pub struct ServerSpec {
    /// The server's name in toolgate's config (for logs).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Cap on one answer or one SSE event or one stdout line; larger →
    /// [`Failure::TooLarge`].
    pub max_message_bytes: usize,
    /// What the server may cost the client (see [`Limits`]).
    pub limits: Limits,
}

/// Bounds on what one server can make the client do, whatever it sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Server→client requests (sampling, elicitation, roots, …) answered at
    /// once; one arriving with all taken is shed: refused with JSON-RPC error
    /// -32000 over stdio, dropped over HTTP, and counted
    /// ([`Connection::server_requests`], [`Event::Misbehaving`]). `ping` takes
    /// no slot: it is answered inline. Default 16.
    pub max_server_requests: usize,
    /// The client's own requests a stdio server may leave unanswered at once
    /// (each waits until its caller's deadline): one more fails at once with
    /// [`Failure::Connect`], unsent, and is counted ([`Connection::pending`]), so a
    /// server that never answers costs a bounded map, whatever the callers send.
    /// Default 1024.
    pub max_pending_requests: usize,
    /// How long the POST of one answer to a server request may take (HTTP),
    /// or the write of one relayed answer may wait for the child's stdin
    /// (stdio). Default 10 s.
    pub answer_timeout: Duration,
    /// Lines of the child's stderr logged per second; the rest are counted
    /// and reported as "suppressed" with the next line logged. Default 50.
    pub stderr_lines_per_second: u32,
    /// Which server→client requests the client offers (declares as its
    /// capabilities) and passes to the relay; one it does not offer is
    /// refused with "method not found" without reaching the relay. Default all.
    pub offered: Offered,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_server_requests: 16,
            max_pending_requests: 1024,
            answer_timeout: Duration::from_secs(10),
            stderr_lines_per_second: 50,
            offered: Offered::default(),
        }
    }
}

/// The server→client requests a client offers a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offered {
    /// `sampling/createMessage`: the server asks the agent's model.
    pub sampling: bool,
    /// `elicitation/create`: the server asks the agent's user.
    pub elicitation: bool,
    /// `roots/list`: the server asks which roots the agent works in.
    pub roots: bool,
}

impl Default for Offered {
    fn default() -> Self {
        Offered {
            sampling: true,
            elicitation: true,
            roots: true,
        }
    }
}

impl Offered {
    /// The capability `method` needs, and whether it is offered; `None` for
    /// methods no capability governs (`ping`, and ones the client does not know,
    /// which the relay decides).
    pub fn allows(&self, method: &str) -> Option<(&'static str, bool)> {
        match method {
            "sampling/createMessage" => Some(("sampling", self.sampling)),
            "elicitation/create" => Some(("elicitation", self.elicitation)),
            "roots/list" => Some(("roots", self.roots)),
            _ => None,
        }
    }

    /// The client capabilities that declare these offers.
    fn capabilities(&self) -> Value {
        let mut caps = serde_json::Map::new();
        if self.sampling {
            caps.insert("sampling".into(), json!({}));
        }
        if self.elicitation {
            caps.insert("elicitation".into(), json!({}));
        }
        if self.roots {
            caps.insert("roots".into(), json!({"listChanged": false}));
        }
        Value::Object(caps)
    }
}

/// What happened to the requests one server sent the client, since the
/// connection started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerRequestStats {
    /// Server→client requests received (`ping` included).
    pub received: u64,
    /// Being answered now: relayed and waiting for the caller's answer, or
    /// its write or POST (at most [`Limits::max_server_requests`]).
    pub in_flight: usize,
    /// The most ever in flight at once.
    pub peak_in_flight: usize,
    /// Refused or dropped because every slot was taken or the child's stdin
    /// was full.
    pub shed: u64,
    /// Refused because the owner of the request they belong to (the relay's
    /// [`Relay::owned_by`]) held its share of the slots: its own doing, not the
    /// server's, so not in `shed`.
    pub over_share: u64,
    /// Refused because the request that caused them could not be known (stdio).
    pub unroutable: u64,
}

/// The client's own requests to a stdio server waiting for their answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PendingStats {
    /// Written and not answered yet (always 0 over HTTP, where each request waits on
    /// its own answer).
    pub waiting: usize,
    /// Failed unsent because [`Limits::max_pending_requests`] were waiting.
    pub refused: u64,
}

impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSpec")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("limits", &self.limits)
            .finish()
    }
}

/// How to reach a server.
#[derive(Clone)]
pub enum Transport {
    /// Streamable HTTP. Header values are secrets: they are never logged.
    Http {
        /// The MCP endpoint.
        url: url::Url,
        /// Sent with every request (e.g. `Authorization`).
        headers: Vec<(http::HeaderName, http::HeaderValue)>,
    },
    /// A child process speaking newline-delimited JSON-RPC.
    Stdio {
        /// The executable.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Set in the child's environment. Values are never logged.
        env: Vec<(String, String)>,
        /// Names of variables the child inherits from this process besides
        /// `PATH`, `HOME`, `LANG`, `LC_*`, `TZ` and `TMPDIR`: nothing else
        /// of this process's environment reaches the child.
        inherit_env: Vec<String>,
        /// Its working directory (toolgate's when `None`).
        cwd: Option<std::path::PathBuf>,
    },
}

/// Names only: header and env values may be credentials, and a URL's query
/// may carry a key.
impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", &redacted_url(url))
                .field(
                    "headers",
                    &headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
                )
                .finish(),
            Transport::Stdio {
                program,
                args,
                env,
                inherit_env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("program", program)
                .field("args", &args.len())
                .field(
                    "env",
                    &env.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
                )
                .field("inherit_env", inherit_env)
                .field("cwd", cwd)
                .finish(),
        }
    }
}

/// A URL without its query, fragment or credentials: what may appear in logs
/// and failure details.
pub(crate) fn redacted_url(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{}://{host}:{port}{}", url.scheme(), url.path()),
        None => format!("{}://{host}{}", url.scheme(), url.path()),
    }
}

/// What the server said in its `initialize` answer.
#[derive(Clone, Debug)]
pub struct Initialized {
    /// The negotiated revision.
    pub protocol_version: String,
    /// `serverInfo.name`.
    pub server_name: String,
    /// `serverInfo.version`.
    pub server_version: String,
    /// The server's capabilities, as sent.
    pub capabilities: Value,
    /// The server's instructions, if any.
    pub instructions: Option<String>,
    /// The whole initialize result, as sent.
    pub result: Value,
}

/// The answer to one request.
#[derive(Clone, Debug)]
pub struct Reply {
    /// `result` as the server wrote it (JSON text: the client does not build a
    /// `Value` of it, so a gateway can pass it on as it came), or the JSON-RPC
    /// `error`.
    pub outcome: RpcOutcome,
    /// HTTP status of the POST's answer (200 for stdio).
    pub status: u16,
    /// The POST answer's headers (empty for stdio).
    pub headers: http::HeaderMap,
    /// Request written → answer read.
    pub latency: Duration,
    /// Entries of a list answer (`tools/list` and its like) left out of
    /// `outcome`: each larger than [`ServerSpec::max_message_bytes`], or past what
    /// one answer keeps. Empty for every other answer.
    pub skipped: Skipped,
}

impl Reply {
    /// The `result` as a `Value`, for answers read whole (tool lists, resources).
    /// It was read as JSON when it arrived, so it always parses.
    pub fn into_value(self) -> Result<Value, RpcError> {
        self.outcome
            .map(|raw| serde_json::from_str(raw.get()).unwrap_or(Value::Null))
    }
}

/// A JSON-RPC error object, as the server sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// `code`.
    pub code: i64,
    /// `message`.
    pub message: String,
    /// `data`, if any.
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// Why a request got no JSON-RPC answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Failure {
    /// No answer within the caller's deadline (a `notifications/cancelled`
    /// was sent).
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// Refused, reset, DNS, or the child is not running or exited
    /// mid-request. Never contains a URL query or header values.
    #[error("could not reach the server: {detail}")]
    Connect {
        /// What happened.
        detail: String,
    },
    /// A non-2xx answer (429, 503 with Retry-After, 500, 401…), its body
    /// capped at 4 KiB.
    #[error("the server answered HTTP {status}")]
    Status {
        /// The status.
        status: u16,
        /// The answer's headers.
        headers: http::HeaderMap,
        /// The first 4 KiB of the body.
        body: bytes::Bytes,
    },
    /// The request was written, but the server process exited (or the connection was
    /// shut down) before it answered: whether the server acted on it is unknown, so
    /// unlike [`Failure::Connect`] this is not safe to resend blindly.
    #[error("the server went away during the request: {detail}")]
    Broken {
        /// What happened.
        detail: String,
    },
    /// Not JSON-RPC, a wrong content type, broken SSE, a stream that ended
    /// without the answer, a handshake the client cannot accept.
    #[error("the server broke the protocol: {detail}")]
    Protocol {
        /// What was wrong.
        detail: String,
    },
    /// A message larger than [`ServerSpec::max_message_bytes`].
    #[error("the server's message is larger than the {limit}-byte limit")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// A message holding more JSON values than toolgate parses of one: one per
    /// `toolgate_contract::BYTES_PER_VALUE` bytes of [`ServerSpec::max_message_bytes`]
    /// (tiny or nested values would take many times the message's size to read).
    #[error("the server's message holds more than {limit} JSON values")]
    TooManyValues {
        /// The limit.
        limit: usize,
    },
}

impl Failure {
    pub(crate) fn connect(detail: impl Into<String>) -> Failure {
        Failure::Connect {
            detail: detail.into(),
        }
    }
    pub(crate) fn protocol(detail: impl Into<String>) -> Failure {
        Failure::Protocol {
            detail: detail.into(),
        }
    }
}

/// Where the messages a server sends during one request go.
#[derive(Clone, Debug)]
pub struct Relay {
    /// The receiving end belongs to whoever made the request.
    tx: mpsc::Sender<Relayed>,
    /// The progress token the request carried, and the one it went upstream with
    /// (see [`progress`]): a progress notification is handed on with the caller's.
    progress: Option<Arc<progress::Swapped>>,
    /// Whose share of the server-request slots the requests relayed here count
    /// against ([`Connection::share_server_requests`]); `None`: only the cap.
    owner: Option<Arc<str>>,
}

impl Relay {
    /// A relay that sends to `tx`.
    pub fn new(tx: mpsc::Sender<Relayed>) -> Relay {
        Relay {
            tx,
            progress: None,
            owner: None,
        }
    }

    /// The same relay, the server requests it receives counted against `owner`'s
    /// share of the slots (an opaque key: the gateway's name for the calling agent).
    #[must_use]
    pub fn owned_by(mut self, owner: Arc<str>) -> Relay {
        self.owner = Some(owner);
        self
    }

    /// The owner key the relay carries, if any.
    pub fn owner(&self) -> Option<&Arc<str>> {
        self.owner.as_ref()
    }

    /// The notification as the requester knows it (progress with the requester's own
    /// token), or `None` when it is not the requester's to see (see
    /// [`progress::relayable`]).
    fn notification(&self, method: String, params: Option<Value>) -> Option<Relayed> {
        let params = progress::relayable(&method, params, self.progress.as_deref())?;
        Some(Relayed::Notification { method, params })
    }

    /// Hands a message on as the requester knows it (a notification with the
    /// requester's own progress token), waiting for room: backpressure on this request
    /// only. False when the requester has gone. A notification that is not the
    /// requester's is dropped (true: the requester is still there).
    pub async fn send(&self, message: Relayed) -> bool {
        let message = match message {
            Relayed::Notification { method, params } => match self.notification(method, params) {
                Some(n) => n,
                None => return !self.tx.is_closed(),
            },
            request => request,
        };
        self.tx.send(message).await.is_ok()
    }

    /// Hands on a notification, waiting for room.
    pub(crate) async fn send_notification(&self, method: String, params: Option<Value>) {
        self.send(Relayed::Notification { method, params }).await;
    }

    /// Hands on a notification if there is room; false when it was dropped for want
    /// of room or requester (one that is not the requester's is dropped quietly).
    pub(crate) fn try_send_notification(&self, method: String, params: Option<Value>) -> bool {
        match self.notification(method, params) {
            Some(n) => self.tx.try_send(n).is_ok(),
            None => true,
        }
    }
}

/// A message the server sent during a request.
#[derive(Debug)]
pub enum Relayed {
    /// `notifications/progress`, `notifications/message` and any other
    /// notification that arrives on this request's stream (HTTP) or, for
    /// stdio, that belongs to it (see the crate docs).
    Notification {
        /// The notification's method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
    /// A server→client request during this request: `sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, … Send the answer through
    /// `answer`; the client writes it to the server. A dropped sender is
    /// answered with JSON-RPC error -32603 "the calling client went away".
    Request {
        /// The request's method.
        method: String,
        /// Its params.
        params: Option<Value>,
        /// Where the answer goes.
        answer: oneshot::Sender<Result<Value, RpcError>>,
    },
}

/// Something the server did outside any request.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `notifications/tools/list_changed`.
    ToolsChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
    /// `notifications/resources/updated`.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// Any other server-initiated notification outside a request (e.g. logging).
    Notification {
        /// The notification's method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
    /// The stdio child was restarted and re-initialised.
    Restarted,
    /// The stdio child exited (before a restart).
    Exited {
        /// How it exited.
        detail: String,
    },
    /// The HTTP session was re-established after a 404.
    SessionLost,
    /// The server sends more requests than the client answers at once (or
    /// than its stdin takes): the excess is shed. Sent on the first shed
    /// request, then at most once a minute while it goes on; the gateway
    /// can tell the server's owner.
    Misbehaving {
        /// What the server did.
        detail: String,
        /// Requests shed since the connection started.
        shed: u64,
    },
}

/// A connection to one upstream MCP server. Cheap to clone; the server is
/// released (stdio child killed, standalone stream closed) when the last
/// clone is dropped.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.inner.name)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Inner {
    pub(crate) name: String,
    pub(crate) max_message_bytes: usize,
    next_id: AtomicI64,
    pub(crate) events: Arc<bounds::Events>,
    pub(crate) limits: Limits,
    pub(crate) server_requests: Arc<bounds::ServerRequests>,
    /// Held for a whole handshake, so concurrent callers share one.
    init_lock: tokio::sync::Mutex<()>,
    /// Shared, not copied: every request asks for it, and it holds the server's whole
    /// initialize result.
    initialized: Mutex<Option<Arc<Initialized>>>,
    /// Cancelled when the connection is shut down or dropped: every
    /// background task watches it.
    pub(crate) closed: CancellationToken,
    pub(crate) kind: Kind,
}

pub(crate) enum Kind {
    Http(http_transport::Http),
    Stdio(stdio::Stdio),
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    pub(crate) fn next_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Sends an event without waiting: a gateway that is slow to drain its
    /// events must not stall the server's messages.
    pub(crate) fn emit(&self, event: Event) {
        self.events.emit(event);
    }

    fn ready(&self) -> Option<Arc<Initialized>> {
        let ready = match &self.kind {
            Kind::Http(h) => h.is_ready(),
            Kind::Stdio(s) => s.is_ready(),
        };
        if ready {
            lock(&self.initialized).clone()
        } else {
            None
        }
    }

    pub(crate) async fn ensure_initialized(self: &Arc<Self>) -> Result<Arc<Initialized>, Failure> {
        if let Some(i) = self.ready() {
            return Ok(i);
        }
        let _one_handshake = self.init_lock.lock().await;
        if let Some(i) = self.ready() {
            return Ok(i);
        }
        if self.closed.is_cancelled() {
            return Err(Failure::connect("the connection was shut down"));
        }
        let init = match &self.kind {
            Kind::Http(h) => h.handshake(self).await?,
            Kind::Stdio(s) => s.handshake(self).await?,
        };
        tracing::debug!(server = %self.name, version = %init.protocol_version, "upstream initialised");
        let init = Arc::new(init);
        *lock(&self.initialized) = Some(Arc::clone(&init));
        Ok(init)
    }

    /// Best effort, in the background: tells the server we stopped waiting.
    fn cancel_in_background(self: &Arc<Self>, id: i64) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let inner = Arc::clone(self);
        runtime.spawn(async move {
            let body = message::cancelled(id);
            let sent = match &inner.kind {
                Kind::Http(h) => h.post_notification("notifications/cancelled", body).await,
                Kind::Stdio(s) => s.write_line(body).await,
            };
            if let Err(e) = sent {
                tracing::debug!(server = %inner.name, request = id, error = %e, "could not send notifications/cancelled");
            }
        });
    }
}

fn client_info() -> Value {
    json!({"name": "toolgate", "version": env!("CARGO_PKG_VERSION")})
}

/// The `initialize` params, offering the newest handshake revision and, as
/// client capabilities, the server→client requests `offered` allows (the
/// gateway relays them to the agent).
pub(crate) fn initialize_params(offered: &Offered) -> Value {
    json!({
        "protocolVersion": OFFERED_PROTOCOL_VERSION,
        "capabilities": offered.capabilities(),
        "clientInfo": client_info(),
    })
}

/// A request's params with the `_meta` keys every 2026-07-28 request
/// carries (the revision has no handshake to state them once). Params that
/// are not an object are left as they are: there is nowhere to put them.
pub(crate) fn with_request_meta(params: Option<&Value>, offered: &Offered) -> Value {
    let mut params = params.cloned().unwrap_or_else(|| json!({}));
    if let Value::Object(map) = &mut params {
        let meta = map.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.insert(
                META_PROTOCOL_VERSION.into(),
                STATELESS_PROTOCOL_VERSION.into(),
            );
            meta.insert(META_CLIENT_CAPABILITIES.into(), offered.capabilities());
            meta.entry(META_CLIENT_INFO).or_insert_with(client_info);
        }
    }
    params
}

/// A `server/discover` result that offers the stateless revision *only*, as what
/// the gateway would have learnt from a handshake.
///
/// A server that also offers a handshake revision gets the handshake: the
/// 2026-07-28 revision replaces server→client requests during a call (sampling,
/// elicitation, roots) with input-required results and has no resource
/// subscriptions, and the gateway relays those to clients of every revision as
/// the handshake revisions carry them. `None` → the handshake.
pub(crate) fn discovered(result: &RawValue) -> Option<Initialized> {
    let result: Value = serde_json::from_str(result.get()).ok()?;
    let versions: Vec<&str> = result
        .get("supportedVersions")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let stateless = versions.contains(&STATELESS_PROTOCOL_VERSION);
    let handshake = versions
        .iter()
        .any(|v| ACCEPTED_PROTOCOL_VERSIONS.contains(v));
    if !stateless || handshake {
        return None;
    }
    let info = result
        .get("_meta")
        .and_then(|m| m.get(META_SERVER_INFO))
        .or_else(|| result.get("serverInfo"));
    let text = |key: &str| {
        info.and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(Initialized {
        protocol_version: STATELESS_PROTOCOL_VERSION.to_owned(),
        server_name: text("name"),
        server_version: text("version"),
        capabilities: result.get("capabilities").cloned().unwrap_or(json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        result,
    })
}

/// Checks the server's `initialize` answer.
pub(crate) fn initialized_from(outcome: RpcOutcome) -> Result<Initialized, Failure> {
    let result = outcome.map_err(|e| {
        Failure::protocol(format!(
            "the server refused initialize (JSON-RPC error {}: {})",
            e.code,
            quoted_briefly(&e.message, 200)
        ))
    })?;
    let result: Value = serde_json::from_str(result.get())
        .map_err(|e| Failure::protocol(format!("the initialize result: {e}")))?;
    let version = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| Failure::protocol("the initialize result has no protocolVersion"))?;
    if !ACCEPTED_PROTOCOL_VERSIONS.contains(&version) {
        return Err(Failure::protocol(format!(
            "the server answered protocol version {}; the client speaks {}",
            quoted_briefly(version, 40),
            ACCEPTED_PROTOCOL_VERSIONS.join(", ")
        )));
    }
    let info = result.get("serverInfo");
    let text = |key: &str| {
        info.and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Ok(Initialized {
        protocol_version: version.to_owned(),
        server_name: text("name"),
        server_version: text("version"),
        capabilities: result.get("capabilities").cloned().unwrap_or(json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        result,
    })
}

/// A server's text in a failure: its first `max` characters, quoted with control
/// characters escaped, and `…` when there is more. The failure reaches the log and
/// `dependency_health`; a server answering the handshake with a megabyte of version
/// string or error message must not put it there.
fn quoted_briefly(text: &str, max: usize) -> String {
    let head: String = text.chars().take(max).collect();
    let more = if text.chars().nth(max).is_some() {
        "…"
    } else {
        ""
    };
    format!("{head:?}{more}")
}

/// The [`Event`] a notification about the server's state stands for.
pub(crate) fn state_event(method: &str, params: Option<&Value>) -> Option<Event> {
    match method {
        "notifications/tools/list_changed" => Some(Event::ToolsChanged),
        "notifications/prompts/list_changed" => Some(Event::PromptsChanged),
        "notifications/resources/list_changed" => Some(Event::ResourcesChanged),
        "notifications/resources/updated" => Some(Event::ResourceUpdated {
            uri: params
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }),
        _ => None,
    }
}

/// The refusal of a server request no caller can answer.
pub(crate) fn no_handler(method: &str) -> RpcError {
    RpcError {
        code: codes::METHOD_NOT_FOUND,
        message: format!("method not found: {method} (no request is waiting for it)"),
        data: None,
    }
}

/// The refusal of a server request beyond [`Limits::max_server_requests`].
pub(crate) fn overloaded(cap: usize) -> RpcError {
    RpcError {
        code: codes::SERVER_BUSY,
        message: format!(
            "too many requests: the client answers at most {cap} of this server's requests at once"
        ),
        data: None,
    }
}

pub(crate) fn went_away() -> RpcError {
    RpcError {
        code: codes::INTERNAL_ERROR,
        message: "the calling client went away".to_owned(),
        data: None,
    }
}

/// The answer to a server→client request: `ping` is answered here, a request
/// the client did not offer is refused here; anything else goes to the relay,
/// and without one the client has no handler.
pub(crate) async fn answer_server_request(
    method: String,
    params: Option<Value>,
    relay: Option<Relay>,
    offered: &Offered,
) -> Result<Value, RpcError> {
    if method == "ping" {
        return Ok(json!({}));
    }
    if let Some((capability, false)) = offered.allows(&method) {
        return Err(RpcError {
            code: codes::METHOD_NOT_FOUND,
            message: format!(
                "method not found: {method} (this client does not offer the {capability} capability)"
            ),
            data: None,
        });
    }
    let Some(relay) = relay else {
        return Err(no_handler(&method));
    };
    let (tx, rx) = oneshot::channel();
    let asked = relay
        .send(Relayed::Request {
            method,
            params,
            answer: tx,
        })
        .await;
    if !asked {
        return Err(went_away());
    }
    rx.await.unwrap_or_else(|_| Err(went_away()))
}

/// Sends `notifications/cancelled` for the request it names when dropped
/// while armed: a request future dropped before its answer, or one that ran
/// out of time.
struct CancelOnDrop {
    inner: Weak<Inner>,
    id: Option<i64>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let (Some(id), Some(inner)) = (self.id, self.inner.upgrade()) {
            inner.cancel_in_background(id);
        }
    }
}

impl Connection {
    /// Starts the connection. Stdio: spawns the child now, captures its
    /// stderr line by line into `tracing` (target "upstream", field
    /// `server = name`), and supervises it: when it exits it is restarted
    /// with backoff (0.5 s doubling to 30 s, reset after 60 s of uptime),
    /// re-initialised, and [`Event::Restarted`] is sent. HTTP: no I/O until
    /// first use. `http` is the gateway's pooled client (no redirects).
    pub fn start(spec: ServerSpec, http: reqwest::Client) -> (Connection, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::channel(256);
        let ServerSpec {
            name,
            transport,
            max_message_bytes,
            limits,
        } = spec;
        let events = Arc::new(bounds::Events::new(name.clone(), tx));
        let server_requests = Arc::new(bounds::ServerRequests::new(limits.max_server_requests));
        let kind = match transport {
            Transport::Http { url, headers } => {
                Kind::Http(http_transport::Http::new(http, url, headers))
            }
            Transport::Stdio {
                program,
                args,
                env,
                inherit_env,
                cwd,
            } => Kind::Stdio(stdio::Stdio::new(
                stdio::Command {
                    program,
                    args,
                    env,
                    inherit_env,
                    cwd,
                },
                stdio::Setup {
                    name: name.clone(),
                    max: max_message_bytes,
                    limits,
                    events: Arc::clone(&events),
                    server_requests: Arc::clone(&server_requests),
                },
            )),
        };
        let inner = Arc::new(Inner {
            name,
            max_message_bytes,
            next_id: AtomicI64::new(1),
            events,
            limits,
            server_requests,
            init_lock: tokio::sync::Mutex::new(()),
            initialized: Mutex::new(None),
            closed: CancellationToken::new(),
            kind,
        });
        if let Kind::Stdio(s) = &inner.kind {
            s.launch(&inner);
        }
        (Connection { inner }, rx)
    }

    /// Ensures an initialised session (idempotent, concurrent callers share
    /// one handshake) and returns what the server said.
    pub async fn initialize(&self, timeout: Duration) -> Result<Initialized, Failure> {
        tokio::time::timeout(timeout, self.inner.ensure_initialized())
            .await
            .unwrap_or(Err(Failure::Timeout(timeout)))
            .map(|init| Initialized::clone(&init))
    }

    /// One request (e.g. "tools/list", "tools/call", "resources/read").
    /// Initialises first if needed (within the same `timeout`). If the HTTP
    /// server answers 404 to a request carrying our session id (the session
    /// was lost, e.g. a redeploy), re-initialises once and resends once,
    /// transparently, and sends [`Event::SessionLost`]. Messages the server
    /// sends while this request runs go to `relay` (if given). Dropping the
    /// returned future before the answer sends `notifications/cancelled`
    /// (with the request id) to the server, in the background; so does
    /// running out of time.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        relay: Option<Relay>,
    ) -> Result<Reply, Failure> {
        let mut guard = CancelOnDrop {
            inner: Arc::downgrade(&self.inner),
            id: None,
        };
        let inner = &self.inner;
        // The caller's progress token is replaced by one of toolgate's own upstream:
        // callers choose theirs freely (SDKs use their request ids, so two agents'
        // first calls both say `1`), and on a connection several callers share, the
        // server's progress for one must not be taken for another's.
        let (params, relay) = progress::swap(params, relay);
        let work = async {
            inner.ensure_initialized().await?;
            match &inner.kind {
                Kind::Http(h) => {
                    h.request(inner, method, params.as_ref(), relay, &mut guard.id)
                        .await
                }
                Kind::Stdio(s) => {
                    s.request(inner, method, params.as_ref(), relay, &mut guard.id)
                        .await
                }
            }
        };
        let result = tokio::time::timeout(timeout, work).await;
        match result {
            Ok(done) => {
                // Answered, or failed on the wire: nothing left to cancel.
                guard.id = None;
                done
            }
            Err(_) => Err(Failure::Timeout(timeout)),
        }
    }

    /// One notification. Initialises first if needed (waiting at most 30 s
    /// for the handshake).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), Failure> {
        self.initialize(BACKGROUND_INIT_TIMEOUT).await?;
        let body = message::notification(method, params.as_ref());
        match &self.inner.kind {
            Kind::Http(h) => h.post_notification(method, body).await,
            Kind::Stdio(s) => s.write_line(body).await,
        }
    }

    /// What the last successful initialize returned.
    pub fn initialized(&self) -> Option<Initialized> {
        lock(&self.inner.initialized).as_deref().cloned()
    }

    /// Whether a handshake has succeeded (without copying its result).
    pub fn is_initialized(&self) -> bool {
        lock(&self.inner.initialized).is_some()
    }

    /// What happened to the requests the server sent: how many, how many are
    /// being answered now, how many were shed or could not be attributed.
    pub fn server_requests(&self) -> ServerRequestStats {
        self.inner.server_requests.stats()
    }

    /// Each owner of a relay ([`Relay::owned_by`]) holds at most `fraction` of the
    /// [`Limits::max_server_requests`] slots at once (rounded up, at least one),
    /// whether or not others are asking: a slot is held until the owner answers and
    /// cannot be taken back. A request beyond it is refused with JSON-RPC error
    /// -32000 naming `setting`, and counted in [`ServerRequestStats::over_share`].
    /// A fraction outside (0, 1) is no share (the default). Takes effect for the
    /// next request; slots held stay held.
    pub fn share_server_requests(&self, fraction: f64, setting: &'static str) {
        self.inner.server_requests.set_share(fraction, setting);
    }

    /// The fraction of the slots one owner may hold now (1: no share).
    pub fn server_request_share(&self) -> f64 {
        self.inner.server_requests.share()
    }

    /// The client's own requests waiting for the server's answers, and how many
    /// failed unsent because [`Limits::max_pending_requests`] were.
    pub fn pending(&self) -> PendingStats {
        match &self.inner.kind {
            Kind::Http(_) => PendingStats::default(),
            Kind::Stdio(s) => s.pending(),
        }
    }

    /// The stdio child's process id while it runs (`None` for HTTP).
    pub fn pid(&self) -> Option<u32> {
        match &self.inner.kind {
            Kind::Http(_) => None,
            Kind::Stdio(s) => s.pid(),
        }
    }

    /// HTTP: DELETE the session (best effort). Stdio: close stdin, kill
    /// after 2 s. Either way the connection is finished: later requests
    /// fail with [`Failure::Connect`].
    pub async fn shutdown(&self) {
        match &self.inner.kind {
            Kind::Http(h) => h.shutdown(&self.inner).await,
            Kind::Stdio(s) => s.shutdown().await,
        }
        self.inner.closed.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version never offered is refused, and what the server wrote instead is quoted
    /// within bounds, on one line: a megabyte of version or error message does not reach
    /// the log or `dependency_health`.
    #[test]
    fn a_handshake_answer_never_offered_is_refused_and_quoted_briefly() {
        let raw = |v: Value| serde_json::value::to_raw_value(&v).unwrap();
        let huge = format!("1999-01-01\u{1b}[2J\n{}", "9".repeat(1 << 20));
        let failures = [
            initialized_from(Ok(raw(json!({"protocolVersion": huge})))),
            initialized_from(Err(RpcError {
                code: -32602,
                message: huge.clone(),
                data: None,
            })),
        ];
        for failure in failures {
            let Err(Failure::Protocol { detail }) = failure else {
                panic!("expected a protocol failure")
            };
            assert!(detail.len() < 400, "{} bytes", detail.len());
            assert!(!detail.chars().any(char::is_control), "{detail}");
            assert!(detail.contains("1999-01-01"), "{detail}");
        }
    }

    #[test]
    fn only_the_known_handshake_revisions_are_accepted() {
        let raw = |v: Value| serde_json::value::to_raw_value(&v).unwrap();
        let ok = initialized_from(Ok(raw(json!({
            "protocolVersion": "2025-06-18",
            "serverInfo": {"name": "kb", "version": "1.2"},
            "capabilities": {"tools": {}},
            "instructions": "be kind"
        }))))
        .unwrap();
        assert_eq!(
            (ok.server_name.as_str(), ok.server_version.as_str()),
            ("kb", "1.2")
        );
        assert_eq!(ok.instructions.as_deref(), Some("be kind"));
        for bad in [json!({"protocolVersion": "2024-11-05"}), json!({})] {
            assert!(matches!(
                initialized_from(Ok(raw(bad))),
                Err(Failure::Protocol { .. })
            ));
        }
        let refused = initialized_from(Err(RpcError {
            code: -32602,
            message: "no".into(),
            data: None,
        }));
        assert!(matches!(refused, Err(Failure::Protocol { detail }) if detail.contains("-32602")));
    }

    #[test]
    fn debug_output_carries_no_secrets() {
        let spec = ServerSpec {
            name: "kb".into(),
            transport: Transport::Http {
                url: "https://user:pw@kb.example/mcp?key=SECRET1"
                    .parse()
                    .unwrap(),
                headers: vec![(
                    http::header::AUTHORIZATION,
                    http::HeaderValue::from_static("Bearer SECRET2"),
                )],
            },
            max_message_bytes: 1,
            limits: Limits::default(),
        };
        let text = format!("{spec:?}");
        assert!(text.contains("https://kb.example/mcp") && text.contains("authorization"));
        assert!(!text.contains("SECRET") && !text.contains("pw"), "{text}");
        let stdio = Transport::Stdio {
            program: "srv".into(),
            args: vec!["--token=SECRET3".into()],
            env: vec![("API_KEY".into(), "SECRET4".into())],
            inherit_env: vec![],
            cwd: None,
        };
        let text = format!("{stdio:?}");
        assert!(
            text.contains("API_KEY") && !text.contains("SECRET"),
            "{text}"
        );
    }
}
