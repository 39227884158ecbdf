//! The validated configuration the gateway runs on.
//!
//! Every value here has been checked: durations are `Duration`s, URLs are parsed,
//! schemas are compiled, every tool names an owner and an existing dependency.
//! Runtime code only ever sees these types.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolgate_contract::ResponseContract;
use toolgate_signals::Flavour;

use super::template::RequestTemplate;

mod agents;
pub use agents::*;
mod audit;
pub use audit::AuditSettings;
mod scopes;
pub use scopes::{ServerScopes, ToolScopes};
mod token_exchange;
pub use token_exchange::{ACCESS_TOKEN_TYPE, ClientAuth, TokenExchange};

/// The whole configuration.
#[derive(Debug)]
pub struct Config {
    /// Gateway settings.
    pub gateway: GatewayConfig,
    /// Where incidents go and when the built-in rules fire.
    pub alerts: AlertsConfig,
    /// Dependencies by name.
    pub dependencies: BTreeMap<String, Arc<Dependency>>,
    /// HTTP tools by name.
    pub tools: BTreeMap<String, Arc<ToolSpec>>,
    /// Upstream MCP servers by name (each is also a dependency of the same name).
    pub mcp_servers: BTreeMap<String, Arc<McpServerSpec>>,
    /// Trace export, when configured.
    pub telemetry: Option<Otlp>,
    /// Configured agents by name.
    pub agents: BTreeMap<String, Arc<AgentSpec>>,
    /// The OAuth scopes tool calls need beyond `gateway.auth.scopes`.
    pub scopes: ToolScopes,
}

/// OTLP trace export.
#[derive(Debug, Clone)]
pub struct Otlp {
    /// The collector's base URL.
    pub endpoint: url::Url,
    /// Fraction of calls traced.
    pub sample: f64,
}

/// How toolgate reaches an upstream MCP server.
#[derive(Debug, Clone)]
pub enum McpTransport {
    /// Streamable HTTP.
    Http {
        /// The MCP endpoint.
        url: url::Url,
        /// Headers on every request (values secret).
        headers: Vec<(http::header::HeaderName, http::header::HeaderValue)>,
    },
    /// A stdio child process.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment (values secret).
        env: Vec<(String, Secret)>,
        /// Names of toolgate's variables it inherits (beyond PATH, HOME, locale, TZ, TMPDIR).
        inherit_env: Vec<String>,
        /// Working directory.
        cwd: Option<PathBuf>,
    },
}

/// What a tool definition that differs from its pin does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnChange {
    /// Keep serving the pinned definition; raise an incident.
    Warn,
    /// Also stop exposing the changed tool until the lock is updated.
    Block,
}

/// An upstream MCP server.
#[derive(Debug)]
pub struct McpServerSpec {
    /// Its name in the config (also its dependency's name).
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// Owner of its tools, unless a tool override names another.
    pub owner: String,
    /// `""`, or the prefix of exposed names (`<prefix>__<tool>`).
    pub prefix: String,
    /// The lockfile holding its pinned definitions.
    pub lock: PathBuf,
    /// What a changed definition does.
    pub on_change: OnChange,
    /// Upstream tool names or `*` patterns to expose (empty: all).
    pub include: Vec<String>,
    /// Upstream tool names or `*` patterns never exposed.
    pub exclude: Vec<String>,
    /// Its dependency: timeout, retries, rate-limit headers, status page.
    pub dependency: Arc<Dependency>,
    /// How often live definitions are compared with the pins.
    pub check_every: Duration,
    /// Call deadline of its tools.
    pub deadline: Duration,
    /// Where its tools' notes travel.
    pub notes: NotesMode,
    /// Per-tool overrides by upstream name.
    pub tools: BTreeMap<String, McpToolOverride>,
    /// Caps on what the server may list.
    pub limits: ServerLimits,
    /// Learning of the contracts of its tools without an `outputSchema`.
    pub learn: Option<Learn>,
}

/// Caps on what one upstream MCP server can cost. Its tools: a server that lists
/// 100,000 tools, or descriptions of megabytes, would otherwise cost memory, metric
/// series and a huge `tools/list` for every client; what is over a cap is refused (an
/// incident for the server's owner and a log line), never served. Its requests to
/// toolgate (sampling, elicitation, roots) and its stderr: a server flooding either
/// is shed and counted rather than answered without end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// Tools kept per server.
    pub max_tools: usize,
    /// Bytes of one tool definition (its JSON as listed).
    pub max_definition_bytes: usize,
    /// Bytes of all of a server's definitions together.
    pub max_total_bytes: usize,
    /// Server→client requests answered at once; the excess is refused and counted.
    pub max_server_requests: usize,
    /// How long sending one answer to a server request may take.
    pub answer_timeout: std::time::Duration,
    /// Lines of a stdio server's stderr logged per second; the rest are counted.
    pub stderr_lines_per_second: u32,
    /// The requests of its own the server may have toolgate pass on to the agent.
    pub server_requests: ServerRequests,
}

/// The requests an upstream MCP server may send the agent through toolgate during a
/// call; toolgate declares only these as its client capabilities to the server, and
/// refuses any other ("method not found") without the agent seeing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerRequests {
    /// `sampling/createMessage`: the server prompts the agent's model.
    pub sampling: bool,
    /// `elicitation/create`: the server asks the agent's user.
    pub elicitation: bool,
    /// `roots/list`: the server asks which roots the agent works in.
    pub roots: bool,
}

impl ServerRequests {
    /// Every kind allowed: what a server may ask when nothing is configured.
    pub const ALL: ServerRequests = ServerRequests {
        sampling: true,
        elicitation: true,
        roots: true,
    };
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            max_tools: 1_000,
            max_definition_bytes: 64 << 10,
            max_total_bytes: 2 << 20,
            max_server_requests: 16,
            answer_timeout: std::time::Duration::from_secs(10),
            stderr_lines_per_second: 50,
            server_requests: ServerRequests::ALL,
        }
    }
}

/// The separator between a server's prefix and a tool name.
pub const PREFIX_SEPARATOR: &str = "__";

impl McpServerSpec {
    /// Whether the upstream tool `name` is exposed (include, then exclude).
    pub fn exposes(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| glob(p, name)))
            && !self.exclude.iter().any(|p| glob(p, name))
    }

    /// The name the upstream tool `name` is listed under.
    pub fn exposed_name(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}{PREFIX_SEPARATOR}{name}", self.prefix)
        }
    }
}

/// `*` matches any run of characters (including none); everything else matches itself.
pub fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Overrides for one upstream MCP tool.
#[derive(Debug, Clone, Default)]
pub struct McpToolOverride {
    /// Owner instead of the server's.
    pub owner: Option<String>,
    /// A contract for `structuredContent` instead of the pinned `outputSchema`.
    pub contract: Option<Contract>,
    /// A scheduled probe.
    pub probe: Option<Probe>,
    /// Call deadline.
    pub deadline: Option<Duration>,
    /// Where its notes travel.
    pub notes: Option<NotesMode>,
}

/// How a tool reaches its upstream.
#[derive(Debug)]
pub enum ToolKind {
    /// An HTTP request rendered from a template (boxed: a template is far larger than
    /// an MCP tool's two names).
    Http(Box<RequestTemplate>),
    /// A tool of an upstream MCP server.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name on that server.
        tool: String,
    },
}

/// Gateway settings.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// Listen address.
    pub listen: SocketAddr,
    /// SQLite state path (unused when `postgres` is set).
    pub state: PathBuf,
    /// A PostgreSQL URL: the store shared by replicas, instead of SQLite.
    pub postgres: Option<Secret>,
    /// A Redis URL: quota, breaker, retry budget and agents' quotas shared by replicas.
    pub shared: Option<Secret>,
    /// This replica's name.
    pub replica: Option<String>,
    /// Bearer token for /mcp and /admin (already read from the environment).
    pub auth_token: Option<Secret>,
    /// The fraction of a full session table one caller may hold, in (0, 1].
    pub session_share: f64,
    /// The fraction of the reply memory one agent's replies may hold, in (0, 1].
    pub reply_share: f64,
    /// The fraction of a fronted server's `max_server_requests` one agent's calls may
    /// hold, in (0, 1].
    pub server_request_share: f64,
    /// Bearer token /metrics requires (besides an administrator's credential), when
    /// set; `None`: /metrics is open.
    pub metrics_token: Option<Secret>,
    /// OAuth access tokens on /mcp, when configured.
    pub auth: Option<AuthConfig>,
    /// Extra accepted Host values.
    pub allowed_hosts: Vec<String>,
    /// Extra accepted Origin values on /mcp.
    pub allowed_origins: Vec<String>,
    /// Open client connections at most.
    pub max_connections: usize,
    /// Threads serving client connections, as they are started: `None`, one per core
    /// (the default for a gateway of HTTP tools); 0, none: connections are served on the
    /// background runtime (the default for a gateway that fronts MCP servers, resolved
    /// when the config is read, so a reload that adds the first MCP server names this key
    /// as needing a restart).
    pub serving_threads: Option<usize>,
    /// Time to send a request's headers.
    pub header_timeout: Duration,
    /// Idle keep-alive connections are closed after this.
    pub idle_timeout: Duration,
    /// Time to send a request's body once its headers are in.
    pub body_timeout: Duration,
    /// A connection whose client reads nothing of its answer for this long is closed.
    pub send_timeout: Duration,
    /// How long calls are held back after an account refusal, for the dependencies
    /// that set no `account_hold` of their own.
    pub account_hold: Duration,
    /// Request body cap in bytes.
    pub max_request_bytes: usize,
    /// MCP sessions kept at most.
    pub max_sessions: usize,
    /// Idle sessions are ended after this.
    pub session_idle: Duration,
    /// Keys that seal session ids, the current one first (then the previous one); empty
    /// when sessions live on the replica that opened them.
    pub session_keys: Vec<Secret>,
    /// Validity of a sealed session id from its `initialize`.
    pub session_lifetime: Duration,
    /// Where the fleet's other replicas reach this one's `/mcp`, to pass on a retry of
    /// a call this replica holds (only with `session_keys`).
    pub replica_url: Option<url::Url>,
    /// Drain deadline on shutdown.
    pub drain: Duration,
    /// How long requests are still served after a shutdown begins (readiness fails).
    pub shutdown_delay: Duration,
    /// Whether `toolgate serve` reloads the config file when it changes.
    pub reload_watch: bool,
    /// Default call deadline.
    pub deadline: Duration,
    /// Response body cap in bytes.
    pub max_response_bytes: usize,
    /// Cap in bytes on every upstream reply held at once.
    pub max_buffered_response_bytes: usize,
    /// Where a call's notes travel, unless a tool says otherwise.
    pub notes: NotesMode,
    /// Whether HTTP tools' answers carry `structuredContent`, unless a tool says otherwise.
    pub structured_content: bool,
    /// Caps on each upstream MCP server's tools, unless the server sets its own.
    pub mcp_server_limits: ServerLimits,
    /// Learning of contracts where none is declared; `None` when turned off.
    pub learn: Option<Learn>,
    /// The lockfile beside the config (`<config name>.lock.json`): learned contracts
    /// are pinned there.
    pub lockfile: PathBuf,
    /// The audit trail (`gateway.audit`).
    pub audit: AuditSettings,
}

/// How a contract is learned from a tool's successful responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learn {
    /// Responses learned from before the contract is enforced.
    pub enforce_after: u64,
    /// Fields learned at most.
    pub max_paths: usize,
}

impl Default for Learn {
    fn default() -> Learn {
        Learn {
            enforce_after: toolgate_contract::DEFAULT_ENFORCE_AFTER,
            max_paths: toolgate_contract::DEFAULT_MAX_PATHS,
        }
    }
}

/// Where a tool's contract comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContractOrigin {
    /// A `response_schema` in the config, written by a person.
    Declared,
    /// A `response_schema` that `toolgate import openapi` took from the API description
    /// (`origin: imported`); enforced like a declared one.
    Imported,
    /// An upstream MCP tool's `outputSchema`, pinned in the lockfile.
    Pinned,
    /// Learned from the tool's successful responses.
    Learned,
    /// None: nothing declared, learning turned off.
    None,
}

/// What a response that does not match the contract does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDrift {
    /// The call fails with the diff.
    Fail,
    /// The call returns the data, with a note.
    Warn,
}

/// Where a call's `toolgate:` notes travel to the client. Some frameworks hand the model
/// only the text blocks, others only `structuredContent`, and some only the first text
/// block; `Inline` (the default) reaches all three kinds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NotesMode {
    /// A text block of `toolgate:` lines after the result's text.
    Text,
    /// A `toolgate` member (`{"notes": [...]}`) inside `structuredContent`; a result
    /// without structured content (a failure) or whose body already uses the member's
    /// name still carries its notes as text, so a note is never dropped.
    Structured,
    /// Both: the member, and a text block of its own after the result's text.
    Both,
    /// As `Both`, but the `toolgate:` lines go inside the first text block, after the
    /// result's text and a blank line, instead of a block of their own: some frameworks
    /// hand the model only the first block, or turn several blocks into one list. The
    /// default: of the frameworks measured, it is the only placement every one of them
    /// hands to the model.
    #[default]
    Inline,
}

impl NotesMode {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            NotesMode::Text => "text",
            NotesMode::Structured => "structured",
            NotesMode::Both => "both",
            NotesMode::Inline => "inline",
        }
    }

    /// Parses the config spelling.
    pub fn parse(s: &str) -> Option<NotesMode> {
        [
            NotesMode::Text,
            NotesMode::Structured,
            NotesMode::Both,
            NotesMode::Inline,
        ]
        .into_iter()
        .find(|m| m.as_str() == s)
    }

    /// Notes go into `structuredContent` (when there is one).
    pub fn in_structured(self) -> bool {
        matches!(
            self,
            NotesMode::Structured | NotesMode::Both | NotesMode::Inline
        )
    }

    /// Notes go into a text block even when they also went into `structuredContent`.
    pub fn in_text(self) -> bool {
        matches!(self, NotesMode::Text | NotesMode::Both | NotesMode::Inline)
    }

    /// The text notes are appended to the first text block rather than added as a
    /// block of their own.
    pub fn in_first_block(self) -> bool {
        self == NotesMode::Inline
    }
}

/// A secret value whose `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Alert routing and rule settings.
#[derive(Debug, Clone)]
pub struct AlertsConfig {
    /// Webhooks receiving every incident.
    pub webhooks: Vec<Webhook>,
    /// Extra webhooks per owner.
    pub owners: BTreeMap<String, Vec<Webhook>>,
    /// At most one notification per incident per interval.
    pub throttle: Duration,
    /// Rule evaluation interval.
    pub evaluate_every: Duration,
    /// Recovery-rate and success-rate window.
    pub recovery_window: Duration,
    /// Sunset warning horizon.
    pub sunset_within: Duration,
    /// Breaker-open alert threshold.
    pub circuit_open_for: Duration,
}

impl AlertsConfig {
    /// The webhooks an incident of `owner` goes to: the owner's, then the global ones.
    pub fn targets(&self, owner: &str) -> Vec<&Webhook> {
        self.owners
            .get(owner)
            .into_iter()
            .flatten()
            .chain(&self.webhooks)
            .collect()
    }
}

/// Webhook format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookFormat {
    /// The incident as JSON.
    Json,
    /// `{"text": …}` as Slack incoming webhooks expect.
    Slack,
}

/// A webhook target.
#[derive(Debug, Clone)]
pub struct Webhook {
    /// Target URL.
    pub url: url::Url,
    /// Payload format.
    pub format: WebhookFormat,
}

/// An upstream API.
#[derive(Debug)]
pub struct Dependency {
    /// Name from the config.
    pub name: String,
    /// Base URL; scheme, host and port of every request come from here only.
    pub base_url: url::Url,
    /// Headers sent on every request (names validated; values secret).
    pub headers: Vec<(http::header::HeaderName, http::header::HeaderValue)>,
    /// Per-attempt timeout.
    pub timeout: Duration,
    /// How long calls are held back after an account refusal, between trial calls.
    pub account_hold: Duration,
    /// Retry policy.
    pub retry: RetryPolicy,
    /// Rate-limit header family.
    pub flavour: Flavour,
    /// Status page to poll.
    pub status_page: Option<StatusPage>,
    /// Version gating.
    pub version: Option<VersionCheck>,
    /// Other configured secret values (a stdio MCP server's environment): masked in
    /// every upstream text toolgate passes on, like header values.
    pub secrets: Vec<Secret>,
    /// Called with the caller's authority: a token exchanged for the caller's (RFC
    /// 8693) goes in `Authorization`. `None`: the dependency's own credentials.
    pub token_exchange: Option<std::sync::Arc<TokenExchange>>,
    /// `allow_link_local: true`: toolgate may connect to the addresses `check` refuses
    /// by default (metadata, link-local, unspecified, broadcast), also where a name
    /// resolves there at call time.
    pub allow_link_local: bool,
    /// Where the upstream's deprecation links may point besides the `base_url`'s own
    /// origin (`link_origins`, `model_link_origins`).
    pub link_origins: LinkOrigins,
}

/// The origins an owner admitted for the links an upstream names beside its replies
/// (a deprecation's documentation link, a successor's address). The `base_url`'s own
/// origin is always admitted and is not listed here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkOrigins {
    /// Named to the dependency's owner only (`link_origins`).
    pub owner: Vec<url::Origin>,
    /// Named to the model as well (`model_link_origins`).
    pub model: Vec<url::Origin>,
}

impl LinkOrigins {
    /// Whether a link on `origin` may be named to the dependency's owner.
    pub fn for_owner(&self, origin: &url::Origin) -> bool {
        self.owner.contains(origin) || self.model.contains(origin)
    }

    /// Whether a link on `origin` may be named to the model.
    pub fn for_model(&self, origin: &url::Origin) -> bool {
        self.model.contains(origin)
    }
}

/// Where the upstream's contract version is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSource {
    /// A response header.
    Header(http::header::HeaderName),
    /// A JSON pointer into the body.
    Pointer(String),
}

/// Version gating of a dependency.
#[derive(Debug, Clone)]
pub struct VersionCheck {
    /// Where to read the version.
    pub source: VersionSource,
    /// Refuse calls when the upstream is newer than the tool's contract.
    pub refuse: bool,
}

/// Retry policy.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts in total (≥ 1).
    pub max_attempts: u32,
    /// Backoff base.
    pub base_delay: Duration,
    /// Backoff cap.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
        }
    }
}

/// A status page to poll.
#[derive(Debug, Clone)]
pub struct StatusPage {
    /// URL of the status JSON.
    pub url: url::Url,
    /// Poll interval.
    pub every: Duration,
}

/// The names of the tools toolgate serves itself: no configured tool may take one,
/// and a fronted server's tool of such a name (or one differing only by case) is not
/// exposed.
pub const BUILT_IN_TOOLS: [&str; 1] = ["dependency_health"];

/// MCP annotations of a tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

impl Annotations {
    /// Whether a retry after an ambiguous failure is safe: read-only or idempotent tools,
    /// and GET/HEAD requests unless annotations say otherwise.
    pub fn retry_safe(&self, method: &http::Method) -> bool {
        if self.read_only == Some(true) || self.idempotent == Some(true) {
            return true;
        }
        if self.idempotent == Some(false) || self.destructive == Some(true) {
            return false;
        }
        method.is_idempotent()
    }
}

/// The versioned response contract of a tool.
#[derive(Debug, Clone)]
pub struct Contract {
    /// `major.minor` as written.
    pub version: String,
    /// Compiled response schema.
    pub response: ResponseContract,
    /// `outputSchema` advertised over MCP (an object schema; non-object bodies are wrapped).
    pub output_schema: serde_json::Map<String, Value>,
    /// Whether the upstream body is wrapped as `{"result": …}` for MCP.
    pub wraps_result: bool,
    /// Whether `output_schema` is advertised: always for HTTP tools; for an upstream MCP
    /// tool only when it declares one (or a contract override gives one).
    pub advertised: bool,
    /// Where the contract comes from.
    pub origin: ContractOrigin,
    /// What drift does.
    pub on_drift: OnDrift,
    /// How it is learned, for [`ContractOrigin::Learned`].
    pub learn: Option<Learn>,
}

/// A probe.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Interval.
    pub every: Duration,
    /// Arguments.
    pub arguments: serde_json::Map<String, Value>,
}

/// A tool.
#[derive(Debug)]
pub struct ToolSpec {
    /// Name exposed over MCP.
    pub name: String,
    /// Dependency it calls.
    pub dependency: Arc<Dependency>,
    /// Owner (person or rota).
    pub owner: String,
    /// Description for the model.
    pub description: String,
    /// Title.
    pub title: Option<String>,
    /// How a call reaches the upstream.
    pub kind: ToolKind,
    /// Annotations.
    pub annotations: Annotations,
    /// Input JSON Schema as advertised.
    pub input_schema: serde_json::Map<String, Value>,
    /// Compiled input validator.
    pub input_validator: Arc<jsonschema::Validator>,
    /// Response contract.
    pub contract: Contract,
    /// Probe.
    pub probe: Option<Probe>,
    /// Successor tool.
    pub successor: Option<String>,
    /// Call deadline.
    pub deadline: Duration,
    /// Where this tool's notes travel (its own `notes`, else the gateway's).
    pub notes: NotesMode,
    /// The name of the notes member inside `structuredContent`: `toolgate`, or
    /// `_toolgate` when the contract's schema itself declares a `toolgate` property;
    /// `None` when it declares both (notes then travel as text only).
    pub notes_member: Option<&'static str>,
}

impl ToolSpec {
    /// Whether retries after ambiguous failures are safe for this tool: for an HTTP
    /// tool, its annotations or else its method; for an MCP tool, only its annotations
    /// (`readOnlyHint` or `idempotentHint`), as `tools/call` says nothing by itself.
    pub fn retry_safe(&self) -> bool {
        match &self.kind {
            ToolKind::Http(request) => self.annotations.retry_safe(&request.method),
            ToolKind::Mcp { .. } => self.annotations.retry_safe(&http::Method::POST),
        }
    }

    /// The HTTP request template, for an HTTP tool.
    pub fn http_request(&self) -> Option<&RequestTemplate> {
        match &self.kind {
            ToolKind::Http(r) => Some(&**r),
            ToolKind::Mcp { .. } => None,
        }
    }
}
