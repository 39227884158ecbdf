//! Turns the raw config into the validated model, collecting every error on the way.
//!
//! Each section entry (a dependency, a tool) is deserialized on its own, so one typo
//! does not hide the problems in the next entry; semantic checks (owners, references
//! between entries, templates against input schemas) run on whatever did deserialize.
//! Dependencies are compiled in `dependency.rs`, tools (request, schemas, contract) in `tool.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use toolgate_contract::{ContractCache, SchemaFiles};

mod agents;
mod audit;
mod dependency;
mod known;
mod limits;
mod mcp_server;
mod schemas;
mod session;
mod token_exchange;
mod tool;

pub use tool::{notes_member, output_schema, valid_tool_name};

use super::error::ConfigError;
use super::model::*;
use super::raw::*;
use super::units::{parse_bytes, parse_duration};

/// `gateway.serving_threads` at most.
const MAX_SERVING_THREADS: usize = 1024;

/// Reads environment variables; injected so tests do not touch the process environment.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Compiles a parsed YAML document. `dir` is where relative schema files resolve.
pub fn compile(
    doc: yaml_serde::Value,
    file: &Path,
    dir: &Path,
    env: EnvLookup<'_>,
) -> Result<Config, Vec<ConfigError>> {
    compile_with(doc, file, dir, env, Secrets::Required).map(|(config, _)| config)
}

/// What a compile does with a `${VAR}` (or `*_env` variable) that is not set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secrets {
    /// It is an error: the gateway cannot run without it.
    Required,
    /// It is recorded and its field left out or given an inert placeholder: commands
    /// that only read (the incidents in the store, the running gateway's status) need
    /// none of the upstreams' credentials.
    Optional,
}

/// A variable a compile with [`Secrets::Optional`] found unset, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsetVariable {
    /// The field that names it, e.g. `gateway.state`.
    pub path: String,
    /// The variable.
    pub var: String,
}

/// [`compile`], choosing what an unset variable is.
pub fn compile_with(
    doc: yaml_serde::Value,
    file: &Path,
    dir: &Path,
    env: EnvLookup<'_>,
    secrets: Secrets,
) -> Result<(Config, Vec<UnsetVariable>), Vec<ConfigError>> {
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("toolgate");
    let mut c = Compiler {
        errors: Vec::new(),
        lock_default: dir.join(format!("{stem}.lock.json")),
        dir: dir.to_path_buf(),
        env,
        files: SchemaFiles::none(),
        contracts: ContractCache::default(),
        dropped: Vec::new(),
        secrets,
        unset: Vec::new(),
    };
    let config = c.config(doc);
    if c.errors.is_empty() {
        let unset = std::mem::take(&mut c.unset);
        config
            .map(|config| (config, unset))
            .ok_or_else(|| vec![ConfigError::new("", "the configuration is empty")])
    } else {
        Err(c.errors)
    }
}

struct Compiler<'a> {
    errors: Vec<ConfigError>,
    dir: PathBuf,
    /// Where an MCP server's pins are kept unless it names a lockfile.
    lock_default: PathBuf,
    env: EnvLookup<'a>,
    /// Where schema files may be read from (set once `gateway.schema_roots` is known).
    files: SchemaFiles,
    /// The contracts compiled so far, by text, against the `schemas:` section (compiled
    /// once: the components contracts share).
    contracts: ContractCache,
    /// Field paths already reported and removed before deserializing (unknown, or of
    /// the wrong type): what later checks say about their absence is not a new error.
    dropped: Vec<String>,
    secrets: Secrets,
    /// The unset variables tolerated under [`Secrets::Optional`]; what later checks
    /// say about their fields is not an error either.
    unset: Vec<UnsetVariable>,
}

/// The names written under `dependencies:` and `tools:`, whether or not their entry
/// compiled: a reference to an entry that has its own error is not a second error.
struct Defined {
    dependencies: BTreeSet<String>,
    tools: BTreeSet<String>,
}

impl Compiler<'_> {
    fn err(&mut self, path: impl Into<String>, message: impl Into<String>, help: &str) {
        let path = path.into();
        let under = |d: &str| {
            path.strip_prefix(d)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        if self.dropped.iter().any(|d| under(d)) || self.unset.iter().any(|u| under(&u.path)) {
            return;
        }
        let mut e = ConfigError::new(path, message);
        if !help.is_empty() {
            e = e.help(help);
        }
        self.errors.push(e);
    }

    /// Deserializes one entry, recording every error (with its inner field path).
    /// Unknown fields at any depth are reported first, one error each, and dropped
    /// (`schema` points at the entry's schema in the config schema). A field of the
    /// wrong type is reported and dropped too, and the rest deserialized again, so the
    /// entry still exists (with that field's default) for the checks that follow; only
    /// an entry that cannot be read without the field (a required one) is `None`.
    fn entry<T: DeserializeOwned>(
        &mut self,
        path: &str,
        schema: &str,
        mut value: yaml_serde::Value,
    ) -> Option<T> {
        if !schema.is_empty() {
            self.strip_unknown(path, schema, &mut value);
        }
        // Each round drops one field, so the entry's size bounds the loop; the cap is a backstop.
        for _ in 0..64 {
            let err = match serde_path_to_error::deserialize::<_, T>(value.clone()) {
                Ok(v) => return Some(v),
                Err(e) => e,
            };
            let inner = err.path().to_string();
            let full = if inner == "." || inner.is_empty() {
                path.to_string()
            } else {
                format!("{path}.{inner}")
            };
            let segments: Vec<serde_path_to_error::Segment> = err.path().iter().cloned().collect();
            let msg = err.into_inner().to_string();
            if let Some(field) = missing_field(&msg)
                && self.dropped.contains(&format!("{full}.{field}"))
            {
                return None;
            }
            let help = if msg.contains("unknown field") {
                "remove the field or fix its spelling (see docs/configuration.md)"
            } else if msg.contains("missing field") {
                "add the field (see docs/configuration.md)"
            } else {
                "fix the value's type (see docs/configuration.md)"
            };
            self.err(full.clone(), msg, help);
            if !remove_field(&mut value, &segments) {
                return None;
            }
            self.dropped.push(full);
        }
        None
    }

    fn duration(&mut self, path: String, text: Option<&String>, default: Duration) -> Duration {
        match text.map(|t| parse_duration(t)) {
            None => default,
            Some(Ok(d)) => d,
            Some(Err(msg)) => {
                self.err(
                    path,
                    msg,
                    "write a duration like `250ms`, `10s`, `5m` or `1h`",
                );
                default
            }
        }
    }

    /// A duration that must be at least `min`: shorter ones cannot work (a probe every
    /// 0s is a request loop, a 0s timeout fails every call).
    fn duration_min(
        &mut self,
        path: String,
        text: Option<&String>,
        default: Duration,
        min: Duration,
    ) -> Duration {
        let errors = self.errors.len();
        let d = self.duration(path.clone(), text, default);
        if d < min && self.errors.len() == errors {
            self.err(
                path.clone(),
                format!(
                    "{} `{}` is below the minimum of {}",
                    limits::field_name(&path),
                    text.map(String::as_str).unwrap_or_default(),
                    limits::show(min)
                ),
                &format!("use at least {}", limits::show(min)),
            );
            return default;
        }
        d
    }

    /// `gateway.state`: a file path, so incidents survive a restart. A relative path
    /// starts at the config file's directory (as schema files and the lockfile do), so
    /// `serve` and `incidents` name the same store from whatever directory they run in.
    fn state_path(&mut self, raw: Option<String>) -> PathBuf {
        const DEFAULT: &str = ".toolgate/state.db";
        let Some(text) = raw else {
            return self.dir.join(DEFAULT);
        };
        let t = text.trim();
        // SQLite opens "" as a private temporary database and ":memory:" (or a
        // `mode=memory` URI) in memory: both lose every incident on restart.
        if t.is_empty() || t == ":memory:" || t.contains("mode=memory") {
            let what = if t.is_empty() {
                "an empty state path is a temporary database".to_string()
            } else {
                format!("`{text}` is an in-memory database")
            };
            self.err(
                "gateway.state",
                format!("{what}: every incident would be lost on restart"),
                &format!("write a file path, e.g. `{DEFAULT}` (the default)"),
            );
            return self.dir.join(DEFAULT);
        }
        self.dir.join(text)
    }

    /// The config file's directory plus `gateway.schema_roots` (relative to it): the
    /// only places a contract's `$ref` may read files from.
    fn schema_roots(&mut self, extra: Vec<String>) {
        let mut roots = vec![self.dir.clone()];
        for (i, r) in extra.into_iter().enumerate() {
            let root = self.dir.join(&r);
            if root.is_dir() {
                roots.push(root);
            } else {
                self.err(
                    format!("gateway.schema_roots.{i}"),
                    format!("schema root `{r}` is not a directory"),
                    "name an existing directory (relative paths start at the config file's directory)",
                );
            }
        }
        match SchemaFiles::new(&roots) {
            Ok(files) => self.files = files,
            Err(e) => self.err("gateway", e.to_string(), ""),
        }
    }

    fn expand(&mut self, path: &str, text: &str) -> String {
        match expand_env(text, self.env) {
            Ok(s) => s,
            Err(var) => {
                self.unset_variable(
                    path,
                    &var,
                    &format!("export {var} before starting toolgate, or remove the reference"),
                );
                String::new()
            }
        }
    }

    /// A variable `path` needs is not set: an error, or (for a command that only reads)
    /// a note of it, after which nothing more is said about the field.
    fn unset_variable(&mut self, path: &str, var: &str, help: &str) {
        match self.secrets {
            Secrets::Required => {
                self.err(path, format!("environment variable {var} is not set"), help)
            }
            Secrets::Optional => self.unset.push(UnsetVariable {
                path: path.to_string(),
                var: var.to_string(),
            }),
        }
    }

    fn url(&mut self, path: &str, text: &str) -> Option<url::Url> {
        let expanded = self.expand(path, text);
        if self.unset.iter().any(|u| u.path == path) {
            // An inert stand-in that no lookup can resolve (RFC 6761 `.invalid`): a
            // command that only reads never calls it.
            return url::Url::parse("http://unset.invalid/").ok();
        }
        match url::Url::parse(&expanded) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Some(u),
            Ok(_) => {
                self.err(
                    path,
                    format!("`{text}` is not an http(s) URL with a host"),
                    "write it like `https://api.example.com`",
                );
                None
            }
            Err(e) => {
                self.err(
                    path,
                    format!("`{text}` is not a URL: {e}"),
                    "write it like `https://api.example.com`",
                );
                None
            }
        }
    }

    fn config(&mut self, doc: yaml_serde::Value) -> Option<Config> {
        let yaml_serde::Value::Mapping(top) = doc else {
            self.err(
                "",
                "the configuration must be a mapping with `dependencies` and `tools`",
                "see docs/configuration.md for an example",
            );
            return None;
        };
        let mut gateway = None;
        let mut alerts = None;
        let mut telemetry = None;
        let mut raw_deps = BTreeMap::new();
        let mut raw_tools = BTreeMap::new();
        let mut raw_servers = BTreeMap::new();
        let mut raw_agents = BTreeMap::new();
        let mut raw_schemas = BTreeMap::new();
        let mut defined = Defined {
            dependencies: BTreeSet::new(),
            tools: BTreeSet::new(),
        };
        for (key, value) in top {
            let Some(key) = key.as_str().map(str::to_string) else {
                self.err("", "top-level keys must be strings", "");
                continue;
            };
            match key.as_str() {
                "gateway" => {
                    gateway = self.entry::<RawGateway>("gateway", "/properties/gateway", value)
                }
                "alerts" => alerts = self.entry::<RawAlerts>("alerts", "/properties/alerts", value),
                "telemetry" => {
                    telemetry =
                        self.entry::<RawTelemetry>("telemetry", "/properties/telemetry", value)
                }
                "agents" => {
                    let Some(map) =
                        self.entry::<BTreeMap<String, yaml_serde::Value>>(&key, "", value)
                    else {
                        continue;
                    };
                    for (name, v) in map {
                        let path = format!("agents.{name}");
                        let schema = "/properties/agents/additionalProperties";
                        if let Some(a) = self.entry::<RawAgent>(&path, schema, v) {
                            raw_agents.insert(name, a);
                        }
                    }
                }
                "mcp_servers" => {
                    let Some(map) =
                        self.entry::<BTreeMap<String, yaml_serde::Value>>(&key, "", value)
                    else {
                        continue;
                    };
                    for (name, v) in map {
                        let path = format!("mcp_servers.{name}");
                        defined.dependencies.insert(name.clone());
                        let schema = "/properties/mcp_servers/additionalProperties";
                        if let Some(s) = self.entry::<RawMcpServer>(&path, schema, v) {
                            raw_servers.insert(name, s);
                        }
                    }
                }
                "schemas" => {
                    if let Some(sets) = self.entry("schemas", "", value) {
                        raw_schemas = sets;
                    }
                }
                "dependencies" | "tools" => {
                    let Some(map) =
                        self.entry::<BTreeMap<String, yaml_serde::Value>>(&key, "", value)
                    else {
                        continue;
                    };
                    let schema = format!("/properties/{key}/additionalProperties");
                    for (name, v) in map {
                        let path = format!("{key}.{name}");
                        if key == "tools" {
                            defined.tools.insert(name.clone());
                            if let Some(t) = self.entry::<RawTool>(&path, &schema, v) {
                                raw_tools.insert(name, t);
                            }
                        } else {
                            defined.dependencies.insert(name.clone());
                            if let Some(d) = self.entry::<RawDependency>(&path, &schema, v) {
                                raw_deps.insert(name, d);
                            }
                        }
                    }
                }
                other => {
                    const SECTIONS: [&str; 8] = [
                        "gateway",
                        "schemas",
                        "agents",
                        "alerts",
                        "dependencies",
                        "tools",
                        "mcp_servers",
                        "telemetry",
                    ];
                    let help = match known::did_you_mean(other, SECTIONS) {
                        Some(best) => format!("did you mean `{best}`?"),
                        None => {
                            "the sections are gateway, alerts, dependencies, schemas, tools, mcp_servers, telemetry and agents"
                                .into()
                        }
                    };
                    self.err(other, format!("unknown top-level section `{other}`"), &help)
                }
            }
        }
        let gateway = self.gateway(gateway.unwrap_or_default());
        let alerts = self.alerts(alerts.unwrap_or_default());
        let mut dependencies = BTreeMap::new();
        for (name, mut raw) in raw_deps {
            let exchange = raw.token_exchange.take();
            if let Some(mut dep) = self.dependency(&name, raw) {
                if let Some(x) = exchange {
                    let path = format!("dependencies.{name}");
                    dep.token_exchange =
                        self.dependency_token_exchange(&path, x, &dep, gateway.auth.as_ref());
                }
                dependencies.insert(name, Arc::new(dep));
            }
        }
        let mut servers = BTreeMap::new();
        for (name, raw) in raw_servers {
            if dependencies.contains_key(&name) {
                self.err(
                    format!("mcp_servers.{name}"),
                    format!("`{name}` is both a dependency and an MCP server"),
                    "rename one of them: a server's name is also its dependency's name",
                );
                continue;
            }
            if let Some(server) = self.mcp_server(&name, raw, &gateway) {
                servers.insert(name, server);
            }
        }
        self.prefixes_distinct(&servers);
        let mcp_servers: BTreeMap<String, Arc<McpServerSpec>> = servers
            .into_iter()
            .map(|(name, s)| {
                dependencies.insert(name.clone(), s.dependency.clone());
                (name, Arc::new(s))
            })
            .collect();
        self.shared_schemas(raw_schemas);
        let mut tools = BTreeMap::new();
        for (name, raw) in raw_tools {
            if let Some(tool) = self.tool(&name, raw, &dependencies, &defined, &gateway) {
                tools.insert(name, Arc::new(tool));
            }
        }
        self.exchanged_tools(&tools);
        for (name, s) in &mcp_servers {
            // An unprefixed server's tools are known only at run time; a prefixed one
            // can still collide with an HTTP tool named like `kb__search`.
            if let Some(tool) = tools.keys().find(|t| {
                !s.prefix.is_empty() && t.starts_with(&format!("{}{PREFIX_SEPARATOR}", s.prefix))
            }) {
                self.err(
                    format!("tools.{tool}"),
                    format!(
                        "tool `{tool}` uses the name space of MCP server `{name}` (prefix `{}`)",
                        s.prefix
                    ),
                    "rename the tool, or give the server another prefix",
                );
            }
        }
        if tools.is_empty() && mcp_servers.is_empty() && self.errors.is_empty() {
            self.err(
                "tools",
                "no tools are configured",
                "add at least one tool under `tools:`, or an MCP server under `mcp_servers:`",
            );
        }
        let telemetry = telemetry.and_then(|t| self.telemetry(t));
        let agents = self.agents(raw_agents, gateway.auth.as_ref());
        let mut gateway = gateway;
        if gateway.serving_threads.is_none() && !mcp_servers.is_empty() {
            // A fronted server's client connections are shared by the calls of every
            // thread, so each pinned call would hand its request to another thread's
            // event loop and be woken back from it; measured, that cost fronted calls
            // more CPU than pinning saved them (docs/performance.md).
            gateway.serving_threads = Some(0);
        }
        Some(Config {
            gateway,
            alerts,
            dependencies,
            tools,
            mcp_servers,
            telemetry,
            agents,
        })
    }

    /// `gateway.serving_threads`: a thread each is a runtime and a stack; past
    /// [`MAX_SERVING_THREADS`] that is a typo, not a machine.
    fn serving_threads(&mut self, raw: Option<u32>) -> Option<usize> {
        let n = raw? as usize;
        if n > MAX_SERVING_THREADS {
            self.err(
                "gateway.serving_threads",
                format!("{n} threads: at most {MAX_SERVING_THREADS}"),
                "leave it out for one thread per core",
            );
            return None;
        }
        Some(n)
    }

    /// A size setting (`8MiB` or a number of bytes), `default` when unset or unreadable
    /// (reported at `path`).
    fn size(&mut self, path: &str, raw: Option<RawSize>, default: usize, example: &str) -> usize {
        let Some(raw) = raw else {
            return default;
        };
        let parsed = match raw {
            RawSize::Bytes(n) => usize::try_from(n).map_err(|_| format!("`{n}` is too large")),
            RawSize::Text(text) => parse_bytes(&text),
        };
        match parsed {
            Ok(n) => n,
            Err(msg) => {
                self.err(path, msg, &format!("write a size like `8MiB`; {example}"));
                default
            }
        }
    }

    fn gateway(&mut self, raw: RawGateway) -> GatewayConfig {
        let listen_text = raw.listen.unwrap_or_else(|| "127.0.0.1:8765".into());
        let listen = listen_text.parse::<SocketAddr>().unwrap_or_else(|_| {
            self.err(
                "gateway.listen",
                format!("`{listen_text}` is not an address"),
                "write it like `127.0.0.1:8765`",
            );
            SocketAddr::from(([127, 0, 0, 1], 8765))
        });
        let auth_token = raw.auth_token_env.and_then(|var| match (self.env)(&var) {
            Some(v) if !v.is_empty() => Some(Secret(v)),
            _ => {
                self.unset_variable(
                    "gateway.auth_token_env",
                    &var,
                    &format!("export {var} with the bearer token clients must send"),
                );
                None
            }
        });
        let auth = raw.auth.and_then(|a| self.auth(a));
        let max_response_bytes = self.size(
            "gateway.max_response_bytes",
            raw.max_response_bytes,
            8 << 20,
            "use at least 1KiB, e.g. `8MiB`",
        );
        let max_response_bytes = if max_response_bytes < limits::MIN_RESPONSE_BYTES {
            self.err(
                "gateway.max_response_bytes",
                format!(
                    "max_response_bytes is {max_response_bytes} bytes, so every upstream response would be refused"
                ),
                "use at least 1KiB, e.g. `8MiB`",
            );
            8 << 20
        } else {
            max_response_bytes
        };
        let buffered_default = (128 << 20).max(max_response_bytes);
        let max_buffered_response_bytes = self.size(
            "gateway.max_buffered_response_bytes",
            raw.max_buffered_response_bytes,
            buffered_default,
            "e.g. `128MiB`",
        );
        let max_buffered_response_bytes = if max_buffered_response_bytes < max_response_bytes {
            self.err(
                "gateway.max_buffered_response_bytes",
                format!(
                    "max_buffered_response_bytes ({max_buffered_response_bytes} bytes) is less than \
                     max_response_bytes ({max_response_bytes} bytes), so a reply of the allowed size could never be read"
                ),
                "make it at least max_response_bytes, e.g. 16 times it",
            );
            buffered_default
        } else {
            max_buffered_response_bytes
        };
        let (state, postgres) = match raw.state {
            Some(text) if text.starts_with("postgres://") || text.starts_with("postgresql://") => {
                let url = self.expand("gateway.state", &text);
                (PathBuf::from(".toolgate/state.db"), Some(Secret(url)))
            }
            other => (self.state_path(other), None),
        };
        let shared = raw.shared.map(|text| {
            let url = self.expand("gateway.shared", &text);
            if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
                self.err(
                    "gateway.shared",
                    "`shared` must be a redis:// or rediss:// URL",
                    "e.g. `shared: redis://cache.internal:6379/0`",
                );
            }
            Secret(url)
        });
        let replica = raw.replica.map(|r| self.expand("gateway.replica", &r));
        self.schema_roots(raw.schema_roots.unwrap_or_default());
        let max_request_bytes = match raw.max_request_bytes.as_deref().map(parse_bytes) {
            None => 4 << 20,
            Some(Ok(n)) => n,
            Some(Err(msg)) => {
                self.err("gateway.max_request_bytes", msg, "write a size like `4MiB`");
                4 << 20
            }
        };
        let count = |n: Option<u32>, default: usize| n.map_or(default, |n| n as usize);
        GatewayConfig {
            allowed_origins: raw.allowed_origins.unwrap_or_default(),
            max_connections: count(raw.max_connections, 1024),
            serving_threads: self.serving_threads(raw.serving_threads),
            header_timeout: self.duration(
                "gateway.header_timeout".into(),
                raw.header_timeout.as_ref(),
                Duration::from_secs(10),
            ),
            idle_timeout: self.duration(
                "gateway.idle_timeout".into(),
                raw.idle_timeout.as_ref(),
                Duration::from_secs(60),
            ),
            // Below a second a connection would be cut for a scheduling hiccup.
            body_timeout: self.duration_min(
                "gateway.body_timeout".into(),
                raw.body_timeout.as_ref(),
                Duration::from_secs(30),
                Duration::from_secs(1),
            ),
            send_timeout: self.duration_min(
                "gateway.send_timeout".into(),
                raw.send_timeout.as_ref(),
                Duration::from_secs(30),
                Duration::from_secs(1),
            ),
            max_request_bytes,
            max_sessions: count(raw.max_sessions, 10_000),
            session_idle: self.duration(
                "gateway.session_idle".into(),
                raw.session_idle.as_ref(),
                Duration::from_secs(600),
            ),
            session_keys: self.session_keys(
                raw.session_key_env.as_deref(),
                raw.session_key_previous_env.as_deref(),
            ),
            session_lifetime: self
                .session_lifetime(raw.session_lifetime.as_ref(), raw.session_key_env.is_some()),
            replica_url: self
                .replica_url(raw.replica_url.as_deref(), raw.session_key_env.is_some()),
            drain: self.duration(
                "gateway.drain".into(),
                raw.drain.as_ref(),
                Duration::from_secs(30),
            ),
            shutdown_delay: self.duration(
                "gateway.shutdown_delay".into(),
                raw.shutdown_delay.as_ref(),
                Duration::from_secs(5),
            ),
            reload_watch: raw.reload_watch.unwrap_or(false),
            listen,
            state,
            postgres,
            shared,
            replica,
            auth_token,
            auth,
            allowed_hosts: raw.allowed_hosts.unwrap_or_default(),
            deadline: self.duration_min(
                "gateway.deadline".into(),
                raw.deadline.as_ref(),
                Duration::from_secs(30),
                limits::MIN_DEADLINE,
            ),
            max_response_bytes,
            max_buffered_response_bytes,
            notes: self.notes_mode(
                "gateway.notes".into(),
                raw.notes.as_deref(),
                NotesMode::default(),
            ),
            structured_content: raw.structured_content.unwrap_or(true),
            mcp_server_limits: self.tool_limits(
                "gateway.mcp_server_limits",
                raw.mcp_server_limits.as_ref(),
                ServerLimits::default(),
            ),
            learn: self.learn("gateway.learn", raw.learn.as_ref(), Some(Learn::default())),
            lockfile: self.lock_default.clone(),
            audit: self.audit(raw.audit.as_ref()),
        }
    }

    /// Caps on one server's tools: each key given replaces the one in `base`. A cap of
    /// zero would refuse every tool, so it is an error.
    pub(super) fn tool_limits(
        &mut self,
        path: &str,
        raw: Option<&RawServerLimits>,
        base: ServerLimits,
    ) -> ServerLimits {
        let Some(raw) = raw else {
            return base;
        };
        let mut out = base;
        if let Some(n) = raw.max_tools {
            if n == 0 {
                self.err(
                    format!("{path}.max_tools"),
                    "max_tools is 0, so every tool would be refused",
                    "use at least 1 (the default is 1000)",
                );
            } else {
                out.max_tools = n as usize;
            }
        }
        let size = |this: &mut Self, key: &str, value: Option<&RawSize>, into: &mut usize| {
            let parsed = match value {
                None => return,
                Some(RawSize::Bytes(n)) => {
                    usize::try_from(*n).map_err(|_| format!("`{n}` is too large"))
                }
                Some(RawSize::Text(text)) => parse_bytes(text),
            };
            match parsed {
                Ok(0) => this.err(
                    format!("{path}.{key}"),
                    format!("{key} is 0, so every tool would be refused"),
                    "write a size like `64KiB`",
                ),
                Ok(n) => *into = n,
                Err(msg) => this.err(format!("{path}.{key}"), msg, "write a size like `64KiB`"),
            }
        };
        size(
            self,
            "max_definition_bytes",
            raw.max_definition_bytes.as_ref(),
            &mut out.max_definition_bytes,
        );
        size(
            self,
            "max_total_bytes",
            raw.max_total_bytes.as_ref(),
            &mut out.max_total_bytes,
        );
        // What a server may ask of toolgate. Zero would refuse every question (or log
        // nothing); past these, a cap bounds nothing any more.
        let count = |this: &mut Self, key: &str, value: Option<u32>, max: u32, into: &mut u32| {
            match value {
                None => {}
                Some(n) if (1..=max).contains(&n) => *into = n,
                Some(n) => this.err(
                    format!("{path}.{key}"),
                    format!("{key} is {n}, outside 1..={max}"),
                    "the default is usually right; raise it only for a server that needs it",
                ),
            }
        };
        let mut requests = u32::try_from(out.max_server_requests).unwrap_or(u32::MAX);
        count(
            self,
            "max_server_requests",
            raw.max_server_requests,
            1024,
            &mut requests,
        );
        out.max_server_requests = requests as usize;
        count(
            self,
            "stderr_lines_per_second",
            raw.stderr_lines_per_second,
            10_000,
            &mut out.stderr_lines_per_second,
        );
        if let Some(kinds) = &raw.server_requests {
            let mut allowed = ServerRequests {
                sampling: false,
                elicitation: false,
                roots: false,
            };
            for kind in kinds {
                match kind.as_str() {
                    "sampling" => allowed.sampling = true,
                    "elicitation" => allowed.elicitation = true,
                    "roots" => allowed.roots = true,
                    other => self.err(
                        format!("{path}.server_requests"),
                        format!(
                            "`{}` is not a kind of server request",
                            toolgate_contract::one_line(other)
                                .chars()
                                .take(40)
                                .collect::<String>()
                        ),
                        "use any of sampling, elicitation, roots (or `[]` for none)",
                    ),
                }
            }
            out.server_requests = allowed;
        }
        if raw.answer_timeout.is_some() {
            let key = format!("{path}.answer_timeout");
            let errors = self.errors.len();
            let d = self.duration(key.clone(), raw.answer_timeout.as_ref(), out.answer_timeout);
            if self.errors.len() == errors {
                if (Duration::from_millis(100)..=Duration::from_secs(600)).contains(&d) {
                    out.answer_timeout = d;
                } else {
                    self.err(
                        key,
                        format!("answer_timeout {d:?} is outside 100ms..10m"),
                        "write a duration like `10s`",
                    );
                }
            }
        }
        out
    }

    fn telemetry(&mut self, raw: RawTelemetry) -> Option<Otlp> {
        let otlp = raw.otlp?;
        let endpoint = self.url("telemetry.otlp.endpoint", &otlp.endpoint);
        match otlp.protocol.as_deref() {
            None | Some("http/protobuf") => {}
            Some(other) => self.err(
                "telemetry.otlp.protocol",
                format!("protocol `{other}` is not supported"),
                "use `http/protobuf` (OTLP over HTTP)",
            ),
        }
        let sample = otlp.sample.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&sample) {
            self.err(
                "telemetry.otlp.sample",
                format!("sample {sample} is not a fraction"),
                "use a number from 0.0 (trace nothing) to 1.0 (trace every call)",
            );
        }
        Some(Otlp {
            endpoint: endpoint?,
            sample: sample.clamp(0.0, 1.0),
        })
    }

    /// `notes: text | structured | both | inline`.
    fn notes_mode(&mut self, path: String, text: Option<&str>, default: NotesMode) -> NotesMode {
        let Some(text) = text else {
            return default;
        };
        NotesMode::parse(text.trim()).unwrap_or_else(|| {
            let help = match known::did_you_mean(text, ["text", "structured", "both", "inline"]) {
                Some(best) => format!("did you mean `{best}`?"),
                None => "write `text`, `structured`, `both` or `inline`".to_string(),
            };
            self.err(
                path,
                format!("notes `{text}` is not one of text, structured, both, inline"),
                &help,
            );
            default
        })
    }

    fn alerts(&mut self, raw: RawAlerts) -> AlertsConfig {
        let webhooks = self.webhooks("alerts.webhooks", raw.webhooks);
        let owners = raw
            .owners
            .into_iter()
            .map(|(owner, o)| {
                let hooks = self.webhooks(&format!("alerts.owners.{owner}.webhooks"), o.webhooks);
                (owner, hooks)
            })
            .collect();
        let d = |c: &mut Self, field: &str, v: Option<String>, default: Duration, min: Duration| {
            c.duration_min(format!("alerts.{field}"), v.as_ref(), default, min)
        };
        AlertsConfig {
            webhooks,
            owners,
            throttle: d(
                self,
                "throttle",
                raw.throttle,
                Duration::from_secs(3600),
                limits::MIN_THROTTLE,
            ),
            evaluate_every: d(
                self,
                "evaluate_every",
                raw.evaluate_every,
                Duration::from_secs(30),
                limits::MIN_EVALUATE_EVERY,
            ),
            recovery_window: d(
                self,
                "recovery_window",
                raw.recovery_window,
                Duration::from_secs(3600),
                limits::MIN_RECOVERY_WINDOW,
            ),
            sunset_within: d(
                self,
                "sunset_within",
                raw.sunset_within,
                Duration::from_secs(30 * 86_400),
                limits::MIN_SUNSET_WITHIN,
            ),
            circuit_open_for: d(
                self,
                "circuit_open_for",
                raw.circuit_open_for,
                Duration::from_secs(600),
                limits::MIN_CIRCUIT_OPEN_FOR,
            ),
        }
    }

    fn webhooks(&mut self, at: &str, raw: Vec<RawWebhook>) -> Vec<Webhook> {
        let mut out = Vec::new();
        for (i, w) in raw.into_iter().enumerate() {
            let path = format!("{at}.{i}");
            let format = match w.format.as_deref() {
                None | Some("json") => WebhookFormat::Json,
                Some("slack") => WebhookFormat::Slack,
                Some(other) => {
                    self.err(
                        format!("{path}.format"),
                        format!("unknown webhook format `{other}`"),
                        "use `json` or `slack`",
                    );
                    WebhookFormat::Json
                }
            };
            if let Some(url) = self.url(&format!("{path}.url"), &w.url) {
                out.push(Webhook { url, format });
            }
        }
        out
    }
}

/// `K` of serde's "missing field `K`".
fn missing_field(msg: &str) -> Option<&str> {
    msg.strip_prefix("missing field `")?.split('`').next()
}

/// Removes the mapping entry at `path` (serde's path of a failed field) from `value`.
/// Only a field of a mapping is removed: dropping a sequence item would shift the
/// positions of the items after it, and the errors would name the wrong ones.
fn remove_field(value: &mut yaml_serde::Value, path: &[serde_path_to_error::Segment]) -> bool {
    use serde_path_to_error::Segment;
    let Some((Segment::Map { key }, parents)) = path.split_last() else {
        return false;
    };
    let mut at = value;
    for segment in parents {
        let next = match (segment, at) {
            (Segment::Map { key }, yaml_serde::Value::Mapping(m)) => m.get_mut(key.as_str()),
            (Segment::Seq { index }, yaml_serde::Value::Sequence(items)) => items.get_mut(*index),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return false,
        }
    }
    match at {
        yaml_serde::Value::Mapping(m) => m.remove(key.as_str()).is_some(),
        _ => false,
    }
}

/// Expands `${VAR}`; `$$` is a literal `$`. Returns the name of a missing variable.
pub fn expand_env(text: &str, env: EnvLookup<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{')
            && let Some(end) = body.find('}')
        {
            let var = &body[..end];
            out.push_str(&env(var).ok_or_else(|| var.to_string())?);
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_expansion() {
        let env = |k: &str| (k == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(
            expand_env("Bearer ${TOKEN}", &env),
            Ok("Bearer s3cret".into())
        );
        assert_eq!(expand_env("a $$ b $x", &env), Ok("a $ b $x".into()));
        assert_eq!(expand_env("${MISSING}", &env), Err("MISSING".into()));
    }

    #[test]
    fn serving_threads_default_to_one_per_core_and_a_typo_is_refused() {
        let load_with = |gateway: &str, servers: &str| {
            let text = format!(
                "gateway:\n{gateway}{servers}dependencies:\n  d: {{base_url: 'http://127.0.0.1:8080'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
            );
            super::super::parse(Path::new("t.yaml"), &text, Path::new("."), &|_| None)
                .map(|c| c.gateway.serving_threads)
                .map_err(|e| e.to_string())
        };
        let load = |gateway: &str| load_with(gateway, "");
        assert_eq!(load("  drain: 5s\n"), Ok(None));
        // A gateway that fronts MCP servers serves on the shared runtime unless told.
        let fronting =
            "mcp_servers:\n  m: {url: 'http://127.0.0.1:9000/mcp', owner: o@example.com}\n";
        assert_eq!(load_with("  drain: 5s\n", fronting), Ok(Some(0)));
        assert_eq!(load_with("  serving_threads: 3\n", fronting), Ok(Some(3)));
        assert_eq!(load("  serving_threads: 0\n"), Ok(Some(0)));
        assert_eq!(load("  serving_threads: 6\n"), Ok(Some(6)));
        let err = load("  serving_threads: 40000\n").unwrap_err();
        assert!(
            err.contains("gateway.serving_threads") && err.contains("at most 1024"),
            "{err}"
        );
        let err = load("  serving_threads: -1\n").unwrap_err();
        assert!(err.contains("serving_threads"), "{err}");
    }

    #[test]
    fn link_local_and_metadata_addresses_are_refused_unless_allowed() {
        let env = |_: &str| Some("169.254.169.254".to_string());
        let check = |deps: &str| {
            let text = format!(
                "{deps}tools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
            );
            super::super::parse(Path::new("t.yaml"), &text, Path::new("."), &env)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        // Expanded first, then classified: `${VAR}` cannot hide the address.
        let err = check("dependencies:\n  d: {base_url: 'http://${HOST}/'}\n").unwrap_err();
        assert!(
            err.contains("dependencies.d.base_url") && err.contains("metadata"),
            "{err}"
        );
        let err = check("dependencies:\n  d:\n    base_url: https://api.example.com\n    status_page: {url: 'http://[fe80::1]/status'}\n").unwrap_err();
        assert!(
            err.contains("dependencies.d.status_page.url") && err.contains("link-local"),
            "{err}"
        );
        let err = check("dependencies:\n  d: {base_url: https://api.example.com}\nmcp_servers:\n  m: {url: 'http://metadata.google.internal/mcp', owner: o@example.com}\n").unwrap_err();
        assert!(
            err.contains("mcp_servers.m.url") && err.contains("allow_link_local: true"),
            "{err}"
        );
        check("dependencies:\n  d: {base_url: 'http://${HOST}/', allow_link_local: true, status_page: {url: 'http://169.254.1.1/'}}\n").unwrap();
        check("dependencies:\n  d: {base_url: 'http://127.0.0.1:8080'}\n").unwrap();
        check("dependencies:\n  d: {base_url: 'http://10.0.0.8'}\n").unwrap();
    }
}
