//! The configuration file exactly as written: serde types that mirror the YAML.
//!
//! Nothing outside `config` sees these types. They are turned into the validated
//! model (`model.rs`) by `compile.rs`, which collects every error at once. The JSON
//! Schema of the config file (`docs/config.schema.json`) is generated from them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod agents;
pub use agents::*;
mod audit;
pub use audit::RawAudit;
mod token_exchange;
pub use token_exchange::RawTokenExchange;

/// A toolgate configuration file.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Listener, state store and access control.
    #[serde(default)]
    pub gateway: Option<RawGateway>,
    /// Where incidents are sent.
    #[serde(default)]
    pub alerts: Option<RawAlerts>,
    /// Upstream APIs, by name.
    #[serde(default)]
    pub dependencies: BTreeMap<String, RawDependency>,
    /// Component schemas shared by contracts, by set (an imported API's name) and
    /// component name: a contract refers to one as `toolgate:schemas/<set>/<name>`, and
    /// every contract compiles against the one copy.
    #[serde(default)]
    pub schemas: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
    /// Tools exposed to agents over MCP, by name.
    #[serde(default)]
    pub tools: BTreeMap<String, RawTool>,
    /// Existing MCP servers toolgate stands in front of, by name (also their dependency
    /// name): their tools are listed next to the tools above, with the same contracts,
    /// retries, pacing and notes.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, RawMcpServer>,
    /// Traces of every call, exported over OTLP.
    #[serde(default)]
    pub telemetry: Option<RawTelemetry>,
    /// The agents toolgate tells apart, by name: how each is recognised, the tools it
    /// may call and its quota.
    #[serde(default)]
    pub agents: BTreeMap<String, RawAgent>,
}

/// Telemetry export.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTelemetry {
    /// OTLP trace export: a span per tool call and per upstream attempt.
    pub otlp: Option<RawOtlp>,
}

/// An OTLP endpoint.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOtlp {
    /// The collector's base URL, e.g. `http://collector:4318` (traces go to `/v1/traces`).
    pub endpoint: String,
    /// `http/protobuf` (the default and the only one supported).
    pub protocol: Option<String>,
    /// The fraction of calls traced, 0.0–1.0 (default 1.0); a caller's sampled
    /// `traceparent` is always followed.
    pub sample: Option<f64>,
}

/// An upstream MCP server: exactly one of `url` (streamable HTTP) or `command` (a stdio
/// child process started by toolgate).
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMcpServer {
    /// The server's streamable HTTP endpoint, e.g. `http://127.0.0.1:3001/mcp`.
    pub url: Option<String>,
    /// A stdio server: the program and its arguments, e.g. `[node, server.js]`. toolgate
    /// starts it, restarts it with backoff when it exits, and stops it on shutdown.
    pub command: Option<Vec<String>>,
    /// Environment variables for `command` (`${ENV}` is expanded; values are never logged).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Names of toolgate's environment variables `command` inherits. It starts with a
    /// clean environment: only `PATH`, `HOME`, `LANG`, `LC_*`, `TZ`, `TMPDIR`, these and
    /// `env`.
    #[serde(default)]
    pub inherit_env: Vec<String>,
    /// Working directory of `command`, relative to the config file.
    pub cwd: Option<String>,
    /// Headers sent with every request to `url`; `${ENV}` is expanded. Values are never logged.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The person or rota alerted when the server's tools drift (required).
    pub owner: Option<String>,
    /// Tools appear as `<prefix>__<tool>`. Default: the server's name; `""` keeps the
    /// upstream's names unchanged.
    pub prefix: Option<String>,
    /// The lockfile with the pinned tool definitions (written by `toolgate lock`),
    /// relative to the config file. Default: `<config name>.lock.json` beside the config.
    pub lock: Option<String>,
    /// What a tool definition that differs from its pin does: `warn` (default: keep
    /// serving the pinned definition and raise an incident) or `block` (also stop
    /// exposing the changed tool until the lock is updated).
    pub on_change: Option<String>,
    /// Only these upstream tools (names, `*` matches any run of characters).
    pub include: Option<Vec<String>>,
    /// Never these upstream tools (names or `*` patterns); wins over `include`.
    pub exclude: Option<Vec<String>>,
    /// Per-attempt timeout, e.g. `30s` (default); at least 10ms.
    pub timeout: Option<String>,
    /// How long calls are held back after the server refused the account behind them
    /// (billing, plan, suspended key), between single trial calls, e.g. `15m`. Default
    /// `gateway.account_hold`; from 1s to 24h.
    pub account_hold: Option<String>,
    /// Retry policy for calls to this server.
    pub retry: Option<RawRetry>,
    /// Which rate-limit header family the server's HTTP answers use (`auto` by default).
    pub rate_limit_headers: Option<String>,
    /// A status page to poll.
    pub status_page: Option<RawStatusPage>,
    /// How often the live tool definitions are compared with the pins, besides start-up
    /// and the server's list-changed notifications. Default `5m`; at least 1s.
    pub check_every: Option<String>,
    /// Overall deadline of one call of this server's tools, overriding the gateway default.
    pub deadline: Option<String>,
    /// Where the notes of this server's tools travel (`text`, `structured`, `both`,
    /// `inline`).
    pub notes: Option<String>,
    /// Accept a `url` (and status page) on a link-local address or a cloud metadata
    /// endpoint, which `check` refuses otherwise. Default false.
    pub allow_link_local: Option<bool>,
    /// OAuth scopes a caller's access token must carry to call this server's tools and
    /// use its prompts, resources and completions, beside `gateway.auth.scopes`
    /// (needs `gateway.auth`). A token without them is answered 403
    /// `insufficient_scope` naming them, so its client can ask for them.
    pub scopes: Option<Vec<String>>,
    /// Per-tool overrides, by the upstream's tool name.
    #[serde(default)]
    pub tools: BTreeMap<String, RawMcpTool>,
    /// Caps on what this server may list, overriding `gateway.mcp_server_limits` key by key.
    pub limits: Option<RawServerLimits>,
    /// Call its tools (and read its resources and prompts) with the caller's authority: a
    /// token exchanged for the caller's access token at the authorization server (RFC
    /// 8693), on a session of the caller's own. `headers` stay toolgate's own, for the
    /// session that lists and checks the server's definitions. A `url` server only.
    pub token_exchange: Option<RawTokenExchange>,
}

/// Caps on what one upstream MCP server can cost: its tools (what is over a cap is
/// refused with an incident for the server's owner), its requests to toolgate and its
/// stderr.
#[derive(Debug, Default, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawServerLimits {
    /// Tools kept per server (default 1000); the rest are refused.
    pub max_tools: Option<u32>,
    /// Largest tool definition (its JSON as listed), e.g. `64KiB` (default).
    pub max_definition_bytes: Option<RawSize>,
    /// Largest total of a server's definitions, e.g. `2MiB` (default).
    pub max_total_bytes: Option<RawSize>,
    /// Requests the server may have toolgate answer at once (sampling, elicitation,
    /// roots; default 16); more are refused and counted. `ping` is always answered.
    pub max_server_requests: Option<u32>,
    /// How long sending one answer to the server may take (default `10s`).
    pub answer_timeout: Option<String>,
    /// Lines of a stdio server's stderr logged per second (default 50); the rest are
    /// counted and reported as suppressed.
    pub stderr_lines_per_second: Option<u32>,
    /// The requests of its own the server may send the agent during a call, any of
    /// `sampling`, `elicitation`, `roots` (default all three; `[]` for none).
    pub server_requests: Option<Vec<String>>,
}

/// Overrides for one tool of an upstream MCP server.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMcpTool {
    /// The owner of this tool, instead of the server's.
    pub owner: Option<String>,
    /// A response contract for the result's `structuredContent`, instead of the pinned
    /// `outputSchema`.
    pub contract: Option<RawContract>,
    /// A scheduled check of the live contract, with the arguments to call the tool with.
    pub probe: Option<RawProbe>,
    /// Overall deadline of one call, overriding the server's.
    pub deadline: Option<String>,
    /// Where this tool's notes travel, overriding the server's.
    pub notes: Option<String>,
    /// OAuth scopes a call of this tool needs, instead of the server's `scopes` (`[]`:
    /// none beyond `gateway.auth.scopes`).
    pub scopes: Option<Vec<String>>,
}

/// Gateway settings.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawGateway {
    /// Address for /mcp, /metrics, /healthz, /readyz and /admin. Default 127.0.0.1:8765.
    pub listen: Option<String>,
    /// Where incidents, deprecations, probe results and dead letters are kept: a path of
    /// the embedded SQLite store (default `.toolgate/state.db`; a file, not empty, not
    /// `:memory:`, so incidents survive a restart), or a `postgres://` URL of a store
    /// shared by several replicas (`${ENV}` expanded; never logged).
    pub state: Option<String>,
    /// A `redis://` URL: replicas share quota, breaker, retry budget and agents' quotas through
    /// it (`${ENV}` expanded; never logged). Without it each replica keeps its own.
    pub shared: Option<String>,
    /// This replica's name in logs, metrics and incidents (e.g. `${HOSTNAME}`).
    pub replica: Option<String>,
    /// Name of an environment variable holding a bearer token required on /mcp and /admin.
    pub auth_token_env: Option<String>,
    /// Name of an environment variable holding a bearer token that /metrics then
    /// requires (an administrator's credential is accepted too), so that agents' names
    /// and calls are not shown to anyone who can reach the listener. Without it
    /// /metrics is served without credentials, for scrapers on a trusted network.
    pub metrics_token_env: Option<String>,
    /// OAuth 2.1 access tokens on /mcp: the resource toolgate is, the authorization
    /// servers it trusts, the scopes it requires.
    pub auth: Option<RawAuth>,
    /// Extra `Host` header values accepted on every endpoint (loopback names are always
    /// accepted), e.g. `toolgate.internal` or `gw.example.com:8443`.
    pub allowed_hosts: Option<Vec<String>>,
    /// `Origin` values accepted on /mcp besides loopback origins, e.g.
    /// `https://app.example.com` or `http://localhost:*`. A request with any other Origin
    /// is refused with 403; one without an Origin is not affected.
    pub allowed_origins: Option<Vec<String>>,
    /// Open client connections at most; beyond it new connections are closed at once.
    /// Default 1024.
    pub max_connections: Option<u32>,
    /// Threads that serve client connections, each with its own event loop; a connection
    /// stays on the thread it was given. Default: one per core, or 0 when the config
    /// fronts MCP servers. 0 serves connections on the runtime that runs the background
    /// jobs.
    pub serving_threads: Option<u32>,
    /// Time a client has to send a request's headers before the connection is closed.
    /// Default 10s.
    pub header_timeout: Option<String>,
    /// An idle keep-alive connection is closed after this long. Default 60s.
    pub idle_timeout: Option<String>,
    /// Time a client has to send a request's body once its headers are in; a body still
    /// arriving then is answered 408 and the connection closed. Default 30s.
    pub body_timeout: Option<String>,
    /// An answer the client has not read any of for this long closes its connection
    /// (the answer is dropped). Default 30s.
    pub send_timeout: Option<String>,
    /// How long calls to a dependency are held back after the upstream refused the
    /// account behind them (billing, plan, suspended key), between single trial calls,
    /// unless the dependency sets its own. Default 5m; from 1s to 24h.
    pub account_hold: Option<String>,
    /// Largest request body accepted (413 beyond), e.g. `4MiB` (default).
    pub max_request_bytes: Option<String>,
    /// MCP sessions (initialize handshakes) kept at most; beyond it `initialize` is
    /// answered 503 with Retry-After. Default 10000.
    pub max_sessions: Option<u32>,
    /// The fraction of `max_sessions` one caller (an agent; for an access token, one
    /// user of it) may hold once the table is full: it is then refused, and a caller
    /// below its share takes the place of the least recently used session of the one
    /// most beyond it. Default 0.5; 1 turns it off.
    pub session_share: Option<f64>,
    /// The fraction of `max_buffered_response_bytes` the replies of one agent's calls
    /// may hold at once: beyond it the agent's calls are not sent (and a reply that
    /// does not fit is dropped), so one agent with many slow or huge calls leaves the
    /// others room. Default 0.5; 1 turns it off.
    pub reply_share: Option<f64>,
    /// The fraction of each fronted MCP server's `max_server_requests` the calls of one
    /// agent may hold at once: the server's questions (sampling, elicitation, roots)
    /// waiting for that agent's answers. Beyond it the server is refused for that
    /// agent's call, so one agent that leaves questions unanswered leaves the others
    /// room. Default 0.5; 1 turns it off.
    pub server_request_share: Option<f64>,
    /// A session unused this long is ended. Default 10m.
    pub session_idle: Option<String>,
    /// Name of an environment variable holding the key (at least 32 bytes) that seals
    /// session ids: every replica of a fleet given the same key serves every session, so
    /// a load balancer needs no session affinity. Without it a session lives on the
    /// replica that opened it (random ids).
    pub session_key_env: Option<String>,
    /// Name of an environment variable holding the previous session key: ids it sealed
    /// are still accepted while a new `session_key_env` rolls out.
    pub session_key_previous_env: Option<String>,
    /// How long a sealed session id is valid after `initialize`, however it is used.
    /// Default 24h; from 1m to 30d. Only with `session_key_env`.
    pub session_lifetime: Option<String>,
    /// Where the other replicas of a fleet reach this replica's `/mcp`, e.g.
    /// `http://${POD_IP}:8080/mcp`. A 2026-07-28 client's retry of a call waiting for
    /// its input that reaches another replica is passed on to the one holding the call.
    /// Only with `session_key_env` (the key seals the address into the call's
    /// `requestState`). Without it such a retry needs affinity.
    pub replica_url: Option<String>,
    /// On SIGTERM or Ctrl-C, how long in-flight calls may take to finish. Default 30s.
    pub drain: Option<String>,
    /// On SIGTERM or Ctrl-C, how long new requests are still served while `/readyz`
    /// already answers 503, so a load balancer can move traffic away before the
    /// listener stops. Default 5s; `0s` stops at once.
    pub shutdown_delay: Option<String>,
    /// Reload the config file when its content changes, as on SIGHUP: `toolgate serve`
    /// looks at it every 2 s (modification time and size, then the content). Default
    /// false. Takes effect at start-up.
    pub reload_watch: Option<bool>,
    /// Default overall deadline of one tool call, covering every attempt and wait. Default 30s; at least 10ms.
    pub deadline: Option<String>,
    /// Largest upstream response body accepted, e.g. `8MiB` or `1048576`. Default 8MiB; at least 1KiB.
    pub max_response_bytes: Option<RawSize>,
    /// Upstream reply bytes held in memory at once, over every call, e.g. `128MiB` (default).
    /// At the limit a reply is not read further and no new call is sent. At least `max_response_bytes`.
    pub max_buffered_response_bytes: Option<RawSize>,
    /// Extra directories a contract's `$ref` may read schema files from, relative to the
    /// config file. The config file's own directory is always allowed; nothing else is.
    pub schema_roots: Option<Vec<String>>,
    /// Where a call's `toolgate:` notes (quota, deprecation, brownout, status page) reach
    /// the client: `text` (a text block of `toolgate:` lines), `structured` (a `toolgate`
    /// member `{"notes": [...]}` inside `structuredContent`, declared in every
    /// `outputSchema`), `both` (the member and a text block of their own) or `inline`
    /// (default: as `both`, with the lines inside the first text block after a blank
    /// line, so frameworks that read only the text, only the first block, or only
    /// `structuredContent` all hand the notes to the model).
    pub notes: Option<String>,
    /// Whether an HTTP tool's answer carries its body as `structuredContent` (with an
    /// `outputSchema` listed) besides the text block (default `true`). Agent frameworks
    /// that hand the model the whole result (llama-index, google-adk, haystack,
    /// LangChain.js) then show it the body twice; `false` sends the text block alone,
    /// which every framework reads. Upstream MCP servers' results pass as they send them.
    pub structured_content: Option<bool>,
    /// Caps on the tools each upstream MCP server lists (`max_tools` 1000,
    /// `max_definition_bytes` 64KiB, `max_total_bytes` 2MiB by default); a server's own
    /// `limits` override them.
    pub mcp_server_limits: Option<RawServerLimits>,
    /// Learning contracts for tools that declare none (HTTP tools without a
    /// `response_schema`, upstream MCP tools without an `outputSchema`): `enabled`,
    /// `enforce_after` (20) and `max_paths` (1000) by default.
    pub learn: Option<RawLearn>,
    /// The audit trail: every tool call recorded (agent, tool, time, outcome, attempts,
    /// latency, a hash of the arguments) and kept for `retention` (default `30d`);
    /// `enabled` (default true).
    pub audit: Option<RawAudit>,
}

/// A byte size: a number of bytes, or text with a unit (`512KiB`, `8MiB`).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RawSize {
    /// Bytes.
    Bytes(u64),
    /// With a unit.
    Text(String),
}

/// Alert delivery.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAlerts {
    /// Webhooks that receive every incident.
    #[serde(default)]
    pub webhooks: Vec<RawWebhook>,
    /// Webhooks per owner (the `owner` of a tool), in addition to the global ones.
    #[serde(default)]
    pub owners: BTreeMap<String, RawOwnerAlerts>,
    /// At most one notification per incident per this interval, e.g. `1h` (default); at least 1s.
    pub throttle: Option<String>,
    /// How often the built-in alert rules are evaluated. Default `30s`; at least 1s.
    pub evaluate_every: Option<String>,
    /// Window of the recovery-rate and success-rate rules. Default `1h`; at least 1m.
    pub recovery_window: Option<String>,
    /// Alert when a sunset is this close and no successor is configured. Default `30d`; at least 1h.
    pub sunset_within: Option<String>,
    /// Alert when a circuit breaker has been open this long. Default `10m`; at least 1s.
    pub circuit_open_for: Option<String>,
}

/// Notification targets of one owner.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOwnerAlerts {
    /// Webhooks for this owner's incidents.
    #[serde(default)]
    pub webhooks: Vec<RawWebhook>,
}

/// A webhook target.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawWebhook {
    /// URL to POST incidents to.
    pub url: String,
    /// `json` (default) or `slack` (`{"text": …}`).
    pub format: Option<String>,
}

/// An upstream API.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDependency {
    /// Scheme, host, port and optional base path, e.g. `https://api.example.com/v1`.
    pub base_url: String,
    /// Headers sent on every request; `${ENV}` is expanded. Values are never logged.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Per-attempt timeout, e.g. `10s`. Default 10s; at least 10ms.
    pub timeout: Option<String>,
    /// How long calls are held back after the upstream refused the account behind them
    /// (billing, plan, suspended key), between single trial calls, e.g. `15m`. Default
    /// `gateway.account_hold`; from 1s to 24h.
    pub account_hold: Option<String>,
    /// Retry policy for this dependency.
    pub retry: Option<RawRetry>,
    /// Which rate-limit header family the API speaks (`auto` by default).
    pub rate_limit_headers: Option<String>,
    /// A status page to poll.
    pub status_page: Option<RawStatusPage>,
    /// How to read the upstream's current contract version, and what to do when it is newer.
    pub version: Option<RawVersionCheck>,
    /// Accept a `base_url` (and status page) on a link-local address or a cloud
    /// metadata endpoint (169.254.0.0/16, fe80::/10, 169.254.169.254,
    /// `metadata.google.internal`, …), which `check` refuses otherwise. Default false.
    pub allow_link_local: Option<bool>,
    /// Call it with the caller's authority: a token exchanged for the caller's access
    /// token at the authorization server (RFC 8693), instead of the dependency's own
    /// credentials.
    pub token_exchange: Option<RawTokenExchange>,
    /// Origins besides the `base_url`'s (`https://docs.example.com`: scheme, host and
    /// optional port, nothing else) whose links the upstream may name in a deprecation
    /// notice (its documentation link, a successor's address), for the dependency's
    /// owner: kept in the deprecation incident and its stored notice. The model is
    /// still told only links on the `base_url`'s origin or on `model_link_origins`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_origins: Vec<String>,
    /// Origins whose deprecation links the model is told too (in the `toolgate:` note,
    /// the `_meta` signals and `dependency_health`); they are the owner's as well.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_link_origins: Vec<String>,
}

/// Version gating: where the upstream says which contract version it serves.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawVersionCheck {
    /// A response header carrying `major.minor` (e.g. `API-Version`).
    pub header: Option<String>,
    /// A JSON pointer into the response body (e.g. `/meta/version`).
    pub pointer: Option<String>,
    /// `warn` (default): incident "wrapper older than upstream"; `refuse`: also refuse calls.
    pub gate: Option<String>,
}

/// Retry policy.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    /// Attempts in total, including the first: 1 (no retries) to 10. Default 3.
    pub max_attempts: Option<u32>,
    /// Backoff base, e.g. `100ms`. Default 100ms; at least 1ms.
    pub base_delay: Option<String>,
    /// Backoff cap, e.g. `5s`. Default 5s; at least `base_delay`.
    pub max_delay: Option<String>,
}

/// A status page (Atlassian Statuspage v2, health+json or Spring-style health).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawStatusPage {
    /// URL of the status JSON.
    pub url: String,
    /// Poll interval, e.g. `60s` (default); at least 1s.
    pub every: Option<String>,
}

/// A tool exposed to agents.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTool {
    /// The dependency this tool calls.
    pub dependency: String,
    /// The person or rota that owns the contract (required).
    pub owner: Option<String>,
    /// OAuth scopes a caller's access token must carry to call this tool, beside
    /// `gateway.auth.scopes` (needs `gateway.auth`). A token without them is answered
    /// 403 `insufficient_scope` naming them, so its client can ask for them.
    pub scopes: Option<Vec<String>>,
    /// What the tool does, for the model.
    pub description: Option<String>,
    /// A human-readable title.
    pub title: Option<String>,
    /// How the upstream request is built from arguments.
    pub request: RawRequest,
    /// MCP tool annotations (`readOnlyHint`, `idempotentHint`, `destructiveHint`, `openWorldHint`).
    pub annotations: Option<RawAnnotations>,
    /// JSON Schema of the arguments. Default: an object with no required properties.
    pub input_schema: Option<Value>,
    /// The full JSON Schema arguments are checked against, when `input_schema` is a
    /// shorter form for the model (`toolgate import openapi --compact`).
    pub full_input_schema: Option<Value>,
    /// The response contract; without one, it is learned from the tool's responses.
    pub contract: Option<RawContract>,
    /// A scheduled check of the live contract.
    pub probe: Option<RawProbe>,
    /// The tool to use instead once this one is deprecated.
    pub successor: Option<String>,
    /// Overall deadline of one call, overriding the gateway default; at least 10ms.
    pub deadline: Option<String>,
    /// Where this tool's notes travel (`text`, `structured`, `both` or `inline`), overriding
    /// `gateway.notes`.
    pub notes: Option<String>,
    /// Whether this tool's answer carries `structuredContent` (and lists an
    /// `outputSchema`), overriding `gateway.structured_content`.
    pub structured_content: Option<bool>,
}

/// Request template. `{name}` is replaced by the argument `name`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRequest {
    /// HTTP method. Default GET.
    pub method: Option<String>,
    /// Path appended to the dependency's base URL; arguments are percent-encoded.
    pub path: String,
    /// Query parameters; a parameter whose arguments are absent is left out.
    #[serde(default)]
    pub query: BTreeMap<String, String>,
    /// Extra headers for this tool; one the dependency also sends is replaced by the
    /// tool's (an operation that takes other credentials than the API's default).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Headers of the dependency this tool does not send: an operation the API serves
    /// without credentials (OpenAPI's `security: []`) must not be sent them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omit_headers: Vec<String>,
    /// Query parameters of the dependency's `base_url` this tool does not send: a key
    /// an API takes in the query (OpenAPI's `apiKey` `in: query`), left off an
    /// operation it serves without credentials or with others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omit_query: Vec<String>,
    /// JSON body template; a string that is exactly `{name}` becomes the argument's JSON value.
    pub body: Option<Value>,
    /// How the body is sent: `json` (default), `form`
    /// (`application/x-www-form-urlencoded`; the body template must be an object),
    /// `multipart` (`multipart/form-data`, each field a text part; the body template must
    /// be an object) or `text` (the body template is a string, `"{arg}"`: the argument's
    /// text sent as it is, as `content_type` or `text/plain; charset=utf-8`; absent, no
    /// body is sent).
    pub body_encoding: Option<String>,
    /// The `Content-Type` of a `json` body when it is not `application/json`: another
    /// JSON media type (`application/merge-patch+json`, `application/vnd.api+json`),
    /// which some APIs require of a body they read; of a `text` body, any one media
    /// type (`application/xml`, `text/csv`).
    pub content_type: Option<String>,
    /// How a form field holding an array or object is sent: `json` (default, JSON
    /// text), `repeat` (`a=1&a=2`, object members as fields), `comma` (`a=1,2`),
    /// `brackets` (`a[]=1`, `a[b]=1`) or `deep` (`a[0]=1`, `a[0][b]=1`).
    #[serde(default)]
    pub form_style: BTreeMap<String, String>,
}

/// MCP tool annotations.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawAnnotations {
    /// The tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no additional effect.
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
}

/// A versioned response contract.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawContract {
    /// `major.minor`.
    pub version: String,
    /// JSON Schema 2020-12 of the response body, inline or `{ $ref: path/to/file.json }`
    /// (relative to the config file; only files inside its directory or
    /// `gateway.schema_roots`, at most 4 MiB). Without it (or with `{}`, which declares
    /// nothing), the contract is learned from the tool's successful responses.
    pub response_schema: Option<Value>,
    /// Who wrote `response_schema`: `declared` (the default: a person) or `imported`
    /// (`toolgate import openapi` took it from the API description). Only reported
    /// (status, metrics, console); an imported contract is enforced like a declared one.
    pub origin: Option<String>,
    /// What a response that does not match the contract does: `fail` (the call fails
    /// with the diff; the default for a declared schema) or `warn` (the call returns the
    /// data with a `toolgate:` note; the default for a learned contract). Both raise the
    /// owner's incident.
    pub on_drift: Option<String>,
    /// Learning of this tool's contract, overriding `gateway.learn` key by key.
    pub learn: Option<RawLearn>,
}

/// Learning a contract from a tool's successful responses, where none is declared.
#[derive(Debug, Default, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLearn {
    /// Learn contracts at all (default true); without, such a tool has no contract.
    pub enabled: Option<bool>,
    /// Responses learned from before the contract is enforced (default 20; at least 1).
    pub enforce_after: Option<u64>,
    /// Fields learned per contract at most (default 1000); past it new fields are not
    /// learned and stay unchecked.
    pub max_paths: Option<u32>,
}

/// Probe settings.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawProbe {
    /// Interval, e.g. `1h` (default); at least 1s.
    pub every: Option<String>,
    /// Arguments to call the tool with.
    #[serde(default)]
    pub arguments: serde_json::Map<String, Value>,
}
