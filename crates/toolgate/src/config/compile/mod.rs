//! Turns the raw config into the validated model, collecting every error on the way.
//!
//! Each section entry (a dependency, a tool) is deserialized on its own, so one typo
//! does not hide the problems in the next entry; semantic checks (owners, references
//! between entries, templates against input schemas) run on whatever did deserialize.
//! Dependencies are compiled in `dependency.rs`, tools (request, schemas, contract) in `tool.rs`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

mod dependency;
mod tool;

pub use tool::output_schema;

use super::error::ConfigError;
use super::model::*;
use super::raw::*;
use super::units::{parse_bytes, parse_duration};

/// Reads environment variables; injected so tests do not touch the process environment.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Compiles a parsed YAML document. `dir` is where relative schema files resolve.
pub fn compile(
    doc: yaml_serde::Value,
    dir: &Path,
    env: EnvLookup<'_>,
) -> Result<Config, Vec<ConfigError>> {
    let mut c = Compiler {
        errors: Vec::new(),
        dir: dir.to_path_buf(),
        env,
    };
    let config = c.config(doc);
    if c.errors.is_empty() {
        config.ok_or_else(|| vec![ConfigError::new("", "the configuration is empty")])
    } else {
        Err(c.errors)
    }
}

struct Compiler<'a> {
    errors: Vec<ConfigError>,
    dir: PathBuf,
    env: EnvLookup<'a>,
}

impl Compiler<'_> {
    fn err(&mut self, path: impl Into<String>, message: impl Into<String>, help: &str) {
        let mut e = ConfigError::new(path, message);
        if !help.is_empty() {
            e = e.help(help);
        }
        self.errors.push(e);
    }

    /// Deserializes one entry, recording the error (with its inner field path) on failure.
    fn entry<T: DeserializeOwned>(&mut self, path: &str, value: yaml_serde::Value) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let inner = e.path().to_string();
                let full = if inner == "." || inner.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}.{inner}")
                };
                let msg = e.into_inner().to_string();
                let help = if msg.contains("unknown field") {
                    "remove the field or fix its spelling (see docs/configuration.md)"
                } else if msg.contains("missing field") {
                    "add the field (see docs/configuration.md)"
                } else {
                    "fix the value's type (see docs/configuration.md)"
                };
                self.err(full, msg, help);
                None
            }
        }
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

    fn expand(&mut self, path: &str, text: &str) -> String {
        match expand_env(text, self.env) {
            Ok(s) => s,
            Err(var) => {
                self.err(
                    path,
                    format!("environment variable {var} is not set"),
                    &format!("export {var} before starting toolgate, or remove the reference"),
                );
                String::new()
            }
        }
    }

    fn url(&mut self, path: &str, text: &str) -> Option<url::Url> {
        let expanded = self.expand(path, text);
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
        let mut raw_deps = BTreeMap::new();
        let mut raw_tools = BTreeMap::new();
        for (key, value) in top {
            let Some(key) = key.as_str().map(str::to_string) else {
                self.err("", "top-level keys must be strings", "");
                continue;
            };
            match key.as_str() {
                "gateway" => gateway = self.entry::<RawGateway>("gateway", value),
                "alerts" => alerts = self.entry::<RawAlerts>("alerts", value),
                "dependencies" | "tools" => {
                    let Some(map) = self.entry::<BTreeMap<String, yaml_serde::Value>>(&key, value)
                    else {
                        continue;
                    };
                    for (name, v) in map {
                        let path = format!("{key}.{name}");
                        if key == "tools" {
                            if let Some(t) = self.entry::<RawTool>(&path, v) {
                                raw_tools.insert(name, t);
                            }
                        } else if let Some(d) = self.entry::<RawDependency>(&path, v) {
                            raw_deps.insert(name, d);
                        }
                    }
                }
                other => self.err(
                    other,
                    format!("unknown top-level section `{other}`"),
                    "the sections are gateway, alerts, dependencies and tools",
                ),
            }
        }
        let gateway = self.gateway(gateway.unwrap_or_default());
        let alerts = self.alerts(alerts.unwrap_or_default());
        let mut dependencies = BTreeMap::new();
        for (name, raw) in raw_deps {
            if let Some(dep) = self.dependency(&name, raw) {
                dependencies.insert(name, Arc::new(dep));
            }
        }
        let mut tools = BTreeMap::new();
        let tool_names: Vec<String> = raw_tools.keys().cloned().collect();
        for (name, raw) in raw_tools {
            if let Some(tool) = self.tool(&name, raw, &dependencies, &tool_names, &gateway) {
                tools.insert(name, Arc::new(tool));
            }
        }
        if tools.is_empty() && self.errors.is_empty() {
            self.err(
                "tools",
                "no tools are configured",
                "add at least one tool under `tools:`",
            );
        }
        Some(Config {
            gateway,
            alerts,
            dependencies,
            tools,
        })
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
                self.err(
                    "gateway.auth_token_env",
                    format!("environment variable {var} is not set"),
                    &format!("export {var} with the bearer token clients must send"),
                );
                None
            }
        });
        let max_response_bytes = match raw.max_response_bytes.as_deref().map(parse_bytes) {
            None => 8 << 20,
            Some(Ok(n)) => n,
            Some(Err(msg)) => {
                self.err(
                    "gateway.max_response_bytes",
                    msg,
                    "write a size like `8MiB`",
                );
                8 << 20
            }
        };
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
            max_request_bytes,
            max_sessions: count(raw.max_sessions, 10_000),
            session_idle: self.duration(
                "gateway.session_idle".into(),
                raw.session_idle.as_ref(),
                Duration::from_secs(600),
            ),
            drain: self.duration(
                "gateway.drain".into(),
                raw.drain.as_ref(),
                Duration::from_secs(30),
            ),
            listen,
            state: PathBuf::from(raw.state.unwrap_or_else(|| ".toolgate/state.db".into())),
            auth_token,
            allowed_hosts: raw.allowed_hosts.unwrap_or_default(),
            deadline: self.duration(
                "gateway.deadline".into(),
                raw.deadline.as_ref(),
                Duration::from_secs(30),
            ),
            max_response_bytes,
        }
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
        let d = |c: &mut Self, field: &str, v: Option<String>, default: Duration| {
            c.duration(format!("alerts.{field}"), v.as_ref(), default)
        };
        AlertsConfig {
            webhooks,
            owners,
            throttle: d(self, "throttle", raw.throttle, Duration::from_secs(3600)),
            evaluate_every: d(
                self,
                "evaluate_every",
                raw.evaluate_every,
                Duration::from_secs(30),
            ),
            recovery_window: d(
                self,
                "recovery_window",
                raw.recovery_window,
                Duration::from_secs(3600),
            ),
            sunset_within: d(
                self,
                "sunset_within",
                raw.sunset_within,
                Duration::from_secs(30 * 86_400),
            ),
            circuit_open_for: d(
                self,
                "circuit_open_for",
                raw.circuit_open_for,
                Duration::from_secs(600),
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
}
