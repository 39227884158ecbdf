//! Turns the raw config into the validated model, collecting every error on the way.
//!
//! Each section entry (a dependency, a tool) is deserialized on its own, so one typo
//! does not hide the problems in the next entry; semantic checks (owners, references
//! between entries, templates against input schemas) run on whatever did deserialize.
//! Each section has its file: `gateway.rs`, `dependency.rs`, `tool.rs` (request, schemas,
//! contract, in `tool/`), `mcp_server.rs` (transport, names, overrides, in
//! `mcp_server/`), `alerts.rs`, `telemetry.rs`; this one reads the document and holds
//! what they share (errors, durations, URLs, variables).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use toolgate_contract::{ContractCache, SchemaFiles};

mod agents;
mod alerts;
mod audit;
mod dependency;
mod gateway;
mod known;
mod limits;
mod mcp_server;
mod schemas;
mod scopes;
mod sections;
mod server_limits;
mod session;
mod telemetry;
mod token_exchange;
mod tool;

pub use tool::{notes_member, output_schema, valid_tool_name};

use sections::Defined;
use tool::InputValidators;

use super::error::ConfigError;
use super::model::*;
use super::raw::*;
use super::units::parse_duration;

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
        input_validators: InputValidators::default(),
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
    /// Input schemas compiled so far, by their compact JSON text: tools whose input
    /// schemas are alike (DocuSign's 399 tools have 267 distinct ones, up to 0.8 MB
    /// each) share one validator instead of holding a compiled copy each.
    input_validators: InputValidators,
    /// Field paths already reported and removed before deserializing (unknown, or of
    /// the wrong type): what later checks say about their absence is not a new error.
    dropped: Vec<String>,
    secrets: Secrets,
    /// The unset variables tolerated under [`Secrets::Optional`]; what later checks
    /// say about their fields is not an error either.
    unset: Vec<UnsetVariable>,
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
            // Read from a reference: a copy of the entry (a tool with its schemas) would
            // double what it holds in memory for the whole read.
            let err = match serde_path_to_error::deserialize::<_, T>(&value) {
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
            let range = account_hold_range();
            let help = if msg.contains("unknown field") {
                "remove the field or fix its spelling (see docs/configuration.md)"
            } else if msg.contains("missing field") {
                "add the field (see docs/configuration.md)"
            } else if full.ends_with(".account_hold") {
                // `account_hold: 0` is a number, not a duration: the range says what is.
                range.as_str()
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

    /// An account hold (`gateway.account_hold`, a dependency's `account_hold`): from
    /// [`limits::MIN_ACCOUNT_HOLD`] to [`limits::MAX_ACCOUNT_HOLD`]. Every error names
    /// the range, and leaves `default` in place.
    fn account_hold(&mut self, path: String, text: Option<&String>, default: Duration) -> Duration {
        let Some(text) = text else {
            return default;
        };
        let (min, max) = (limits::MIN_ACCOUNT_HOLD, limits::MAX_ACCOUNT_HOLD);
        let range = format!("from {} to {}", limits::show(min), limits::show(max));
        let help = account_hold_range();
        match parse_duration(text) {
            Ok(d) if (min..=max).contains(&d) => d,
            Ok(_) => {
                let message = format!(
                    "{} `{text}` is outside the accepted range ({range})",
                    limits::field_name(&path)
                );
                self.err(path, message, &help);
                default
            }
            Err(msg) => {
                self.err(path, msg, &help);
                default
            }
        }
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

    /// The whole document: its sections read one by one (so one broken entry hides
    /// nothing else), then compiled in the order their references need: the gateway
    /// first (its settings are defaults for the rest), dependencies and servers before
    /// the tools that name them.
    fn config(&mut self, doc: yaml_serde::Value) -> Option<Config> {
        let yaml_serde::Value::Mapping(top) = doc else {
            self.err(
                "",
                "the configuration must be a mapping with `dependencies` and `tools`",
                "see docs/configuration.md for an example",
            );
            return None;
        };
        let raw = self.sections(top);
        let mut gateway = self.gateway(raw.gateway.unwrap_or_default());
        let alerts = self.alerts(raw.alerts.unwrap_or_default());
        let mut dependencies = self.dependencies(raw.dependencies, &gateway);
        let scopes = self.tool_scopes(&raw.tools, &raw.mcp_servers, gateway.auth.as_ref());
        let mcp_servers = self.mcp_servers(raw.mcp_servers, &mut dependencies, &gateway);
        self.shared_schemas(raw.schemas);
        let mut tools = BTreeMap::new();
        for (name, tool) in raw.tools {
            if let Some(tool) = self.tool(&name, tool, &dependencies, &raw.defined, &gateway) {
                tools.insert(name, Arc::new(tool));
            }
        }
        self.exchanged_tools(&tools);
        self.server_name_spaces_free(&mcp_servers, &tools);
        if tools.is_empty() && mcp_servers.is_empty() && self.errors.is_empty() {
            self.err(
                "tools",
                "no tools are configured",
                "add at least one tool under `tools:`, or an MCP server under `mcp_servers:`",
            );
        }
        let telemetry = raw.telemetry.and_then(|t| self.telemetry(t));
        let agents = self.agents(raw.agents, gateway.auth.as_ref());
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
            scopes,
        })
    }

    /// The `dependencies:` entries that compiled, each with its token exchange.
    fn dependencies(
        &mut self,
        raw: BTreeMap<String, RawDependency>,
        gateway: &GatewayConfig,
    ) -> BTreeMap<String, Arc<Dependency>> {
        let mut dependencies = BTreeMap::new();
        for (name, mut raw) in raw {
            let exchange = raw.token_exchange.take();
            if let Some(mut dep) = self.dependency(&name, raw, gateway) {
                if let Some(x) = exchange {
                    let path = format!("dependencies.{name}");
                    dep.token_exchange =
                        self.dependency_token_exchange(&path, x, &dep, gateway.auth.as_ref());
                }
                dependencies.insert(name, Arc::new(dep));
            }
        }
        dependencies
    }

    /// The `mcp_servers:` entries that compiled; each server's dependency joins
    /// `dependencies` under the server's name, which no dependency may have.
    fn mcp_servers(
        &mut self,
        raw: BTreeMap<String, RawMcpServer>,
        dependencies: &mut BTreeMap<String, Arc<Dependency>>,
        gateway: &GatewayConfig,
    ) -> BTreeMap<String, Arc<McpServerSpec>> {
        let mut servers = BTreeMap::new();
        for (name, raw) in raw {
            if dependencies.contains_key(&name) {
                self.err(
                    format!("mcp_servers.{name}"),
                    format!("`{name}` is both a dependency and an MCP server"),
                    "rename one of them: a server's name is also its dependency's name",
                );
                continue;
            }
            if let Some(server) = self.mcp_server(&name, raw, gateway) {
                servers.insert(name, server);
            }
        }
        self.prefixes_distinct(&servers);
        servers
            .into_iter()
            .map(|(name, s)| {
                dependencies.insert(name.clone(), s.dependency.clone());
                (name, Arc::new(s))
            })
            .collect()
    }

    /// No HTTP tool is named inside a prefixed server's name space.
    fn server_name_spaces_free(
        &mut self,
        mcp_servers: &BTreeMap<String, Arc<McpServerSpec>>,
        tools: &BTreeMap<String, Arc<ToolSpec>>,
    ) {
        for (name, s) in mcp_servers {
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

/// What an `account_hold` may be, as its errors say.
fn account_hold_range() -> String {
    format!(
        "write a duration from {} to {}, e.g. `5m` or `1h`",
        limits::show(limits::MIN_ACCOUNT_HOLD),
        limits::show(limits::MAX_ACCOUNT_HOLD)
    )
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
    fn the_account_hold_is_five_minutes_unless_set_and_a_dependency_overrides_the_gateway() {
        let load = |gateway: &str, dependency: &str| {
            let text = format!(
                "gateway:\n  drain: 5s\n{gateway}dependencies:\n  d: {{base_url: 'http://127.0.0.1:8080'{dependency}}}\n  e: {{base_url: 'http://127.0.0.1:8081'}}\nmcp_servers:\n  m: {{url: 'http://127.0.0.1:9000/mcp', owner: o@example.com{dependency}}}\n  n: {{url: 'http://127.0.0.1:9001/mcp', owner: o@example.com}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
            );
            super::super::parse(Path::new("t.yaml"), &text, Path::new("."), &|_| None)
                .map(|c| {
                    let hold = |name: &str| c.dependencies[name].account_hold.as_secs();
                    (hold("d"), hold("e"), hold("m"), hold("n"))
                })
                .map_err(|e| e.to_string())
        };
        assert_eq!(load("", ""), Ok((300, 300, 300, 300)));
        assert_eq!(
            load("  account_hold: 1h\n", ""),
            Ok((3600, 3600, 3600, 3600))
        );
        // An HTTP API and a fronted MCP server each override the gateway alike.
        assert_eq!(
            load("  account_hold: 1h\n", ", account_hold: 90s"),
            Ok((90, 3600, 90, 3600))
        );
        assert_eq!(load("", ", account_hold: 1s"), Ok((1, 300, 1, 300)));
        assert_eq!(
            load("  account_hold: 24h\n", ""),
            Ok((86_400, 86_400, 86_400, 86_400))
        );
    }

    #[test]
    fn an_account_hold_out_of_range_or_unreadable_names_the_key_and_the_range() {
        let load = |gateway: &str, dependency: &str| {
            let text = format!(
                "gateway:\n  drain: 5s\n{gateway}dependencies:\n  d: {{base_url: 'http://127.0.0.1:8080'{dependency}}}\nmcp_servers:\n  m: {{url: 'http://127.0.0.1:9000/mcp', owner: o@example.com{dependency}}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
            );
            super::super::parse(Path::new("t.yaml"), &text, Path::new("."), &|_| None)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        for bad in [
            "0s",
            "0",
            "-5m",
            "500ms",
            "25h",
            "365d",
            "soon",
            "''",
            "1e400s",
            "5 minutes",
        ] {
            let err = load("", &format!(", account_hold: {bad}")).unwrap_err();
            assert!(
                err.contains("dependencies.d.account_hold") && err.contains("from 1s to 24h"),
                "{bad}: {err}"
            );
            assert!(
                err.contains("mcp_servers.m.account_hold"),
                "{bad}: the server's key is named too: {err}"
            );
            let err = load(&format!("  account_hold: {bad}\n"), "").unwrap_err();
            assert!(
                err.contains("gateway.account_hold") && err.contains("from 1s to 24h"),
                "{bad}: {err}"
            );
        }
        // Not a string at all: refused as the wrong type, at the key.
        let err = load("", ", account_hold: [5m]").unwrap_err();
        assert!(err.contains("dependencies.d.account_hold"), "{err}");
        assert!(err.contains("mcp_servers.m.account_hold"), "{err}");
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
