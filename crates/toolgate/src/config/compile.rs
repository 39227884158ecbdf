//! Turns the raw config into the validated model, collecting every error on the way.
//!
//! Each section entry (a dependency, a tool) is deserialized on its own, so one typo
//! does not hide the problems in the next entry; semantic checks (owners, references
//! between entries, templates against input schemas) run on whatever did deserialize.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use reqwest::header::{HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use toolgate_contract::ResponseContract;
use toolgate_signals::Flavour;

use super::error::ConfigError;
use super::model::*;
use super::raw::*;
use super::template::{RequestTemplate, Template};
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
        GatewayConfig {
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

    fn dependency(&mut self, name: &str, raw: RawDependency) -> Option<Dependency> {
        let path = format!("dependencies.{name}");
        let base_url = self.url(&format!("{path}.base_url"), &raw.base_url);
        let mut headers = Vec::new();
        for (k, v) in &raw.headers {
            let hpath = format!("{path}.headers.{k}");
            let value = self.expand(&hpath, v);
            match (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                (Ok(n), Ok(mut v)) => {
                    v.set_sensitive(true);
                    headers.push((n, v));
                }
                (Err(_), _) => self.err(
                    hpath,
                    format!("`{k}` is not a valid header name"),
                    "use letters, digits and `-`",
                ),
                (_, Err(_)) => self.err(
                    hpath,
                    "the header value contains characters not allowed in HTTP headers",
                    "remove control characters and newlines from the value",
                ),
            }
        }
        let retry_raw = raw.retry.unwrap_or_default();
        let defaults = RetryPolicy::default();
        let max_attempts = retry_raw.max_attempts.unwrap_or(defaults.max_attempts);
        if max_attempts == 0 || max_attempts > 10 {
            self.err(
                format!("{path}.retry.max_attempts"),
                format!("max_attempts is {max_attempts}"),
                "use a number from 1 (no retries) to 10",
            );
        }
        let retry = RetryPolicy {
            max_attempts: max_attempts.clamp(1, 10),
            base_delay: self.duration(
                format!("{path}.retry.base_delay"),
                retry_raw.base_delay.as_ref(),
                defaults.base_delay,
            ),
            max_delay: self.duration(
                format!("{path}.retry.max_delay"),
                retry_raw.max_delay.as_ref(),
                defaults.max_delay,
            ),
        };
        let flavour = match raw.rate_limit_headers {
            None => Flavour::Auto,
            Some(text) => serde_json::from_value::<Flavour>(Value::String(text.clone())).unwrap_or_else(|_| {
                self.err(format!("{path}.rate_limit_headers"), format!("unknown rate-limit header family `{text}`"), "use auto, ietf, github, atlassian, zendesk, shopify, discord, x, openai, anthropic, salesforce, hubspot or microsoft_graph");
                Flavour::Auto
            }),
        };
        let status_page = raw.status_page.and_then(|sp| {
            let every = self.duration(
                format!("{path}.status_page.every"),
                sp.every.as_ref(),
                Duration::from_secs(60),
            );
            self.url(&format!("{path}.status_page.url"), &sp.url)
                .map(|url| StatusPage { url, every })
        });
        let timeout = self.duration(
            format!("{path}.timeout"),
            raw.timeout.as_ref(),
            Duration::from_secs(10),
        );
        let version = raw.version.and_then(|v| self.version_check(&path, v));
        Some(Dependency {
            name: name.to_string(),
            base_url: base_url?,
            headers,
            timeout,
            retry,
            flavour,
            status_page,
            version,
        })
    }

    fn version_check(&mut self, path: &str, raw: RawVersionCheck) -> Option<VersionCheck> {
        let vpath = format!("{path}.version");
        let refuse = match raw.gate.as_deref() {
            None | Some("warn") => false,
            Some("refuse") => true,
            Some(other) => {
                self.err(
                    format!("{vpath}.gate"),
                    format!("unknown gate `{other}`"),
                    "use `warn` or `refuse`",
                );
                false
            }
        };
        let source = match (raw.header, raw.pointer) {
            (Some(h), None) => match HeaderName::from_bytes(h.as_bytes()) {
                Ok(n) => VersionSource::Header(n),
                Err(_) => {
                    self.err(
                        format!("{vpath}.header"),
                        format!("`{h}` is not a valid header name"),
                        "use letters, digits and `-`",
                    );
                    return None;
                }
            },
            (None, Some(p)) if p.is_empty() || p.starts_with('/') => VersionSource::Pointer(p),
            (None, Some(p)) => {
                self.err(
                    format!("{vpath}.pointer"),
                    format!("`{p}` is not a JSON pointer"),
                    "start it with `/`, e.g. `/meta/version`",
                );
                return None;
            }
            _ => {
                self.err(
                    &vpath,
                    "name exactly one of `header` or `pointer`",
                    "e.g. `version: { header: API-Version, gate: warn }`",
                );
                return None;
            }
        };
        Some(VersionCheck { source, refuse })
    }

    fn tool(
        &mut self,
        name: &str,
        raw: RawTool,
        deps: &BTreeMap<String, Arc<Dependency>>,
        tool_names: &[String],
        gateway: &GatewayConfig,
    ) -> Option<ToolSpec> {
        let path = format!("tools.{name}");
        if name == "dependency_health" {
            self.err(
                &path,
                "`dependency_health` is a built-in tool",
                "give this tool another name",
            );
        }
        if !valid_tool_name(name) {
            self.err(
                &path,
                format!("`{name}` is not a valid tool name"),
                "use 1–64 letters, digits, `_`, `-` or `.`",
            );
        }
        let owner = match raw.owner.as_deref().map(str::trim) {
            Some(o) if !o.is_empty() => Some(o.to_string()),
            _ => {
                self.err(format!("{path}.owner"), format!("tool `{name}` has no owner"), "add `owner: alice@example.com` — the person or rota alerted when its contract drifts");
                None
            }
        };
        let dependency = deps.get(&raw.dependency).cloned();
        if dependency.is_none() {
            let known: Vec<&str> = deps.keys().map(String::as_str).collect();
            self.err(
                format!("{path}.dependency"),
                format!(
                    "tool `{name}` uses dependency `{}`, which is not defined",
                    raw.dependency
                ),
                &format!(
                    "define it under `dependencies:` or use one of: {}",
                    if known.is_empty() {
                        "(none defined)".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            );
        }
        if let Some(s) = &raw.successor
            && !tool_names.contains(s)
        {
            self.err(
                format!("{path}.successor"),
                format!("successor `{s}` is not a configured tool"),
                "name a tool defined under `tools:`, or remove `successor`",
            );
        }
        let input_schema = self.input_schema(&path, raw.input_schema);
        let request = self.request(&path, raw.request, input_schema.as_ref().map(|(s, _)| s));
        let contract = match raw.contract {
            Some(c) => self.contract(&path, c),
            None => {
                self.err(format!("{path}.contract"), format!("tool `{name}` has no contract"), "add `contract: { version: \"1.0\", response_schema: {...} }` — the shape of a valid response");
                None
            }
        };
        let probe = raw.probe.map(|p| Probe {
            every: self.duration(
                format!("{path}.probe.every"),
                p.every.as_ref(),
                Duration::from_secs(3600),
            ),
            arguments: p.arguments,
        });
        let deadline = self.duration(
            format!("{path}.deadline"),
            raw.deadline.as_ref(),
            gateway.deadline,
        );
        let a = raw.annotations.unwrap_or_default();
        let (input_schema, input_validator) = input_schema?;
        Some(ToolSpec {
            name: name.to_string(),
            dependency: dependency?,
            owner: owner?,
            description: raw
                .description
                .unwrap_or_else(|| format!("Calls {}.", raw.dependency)),
            title: raw.title,
            request: request?,
            annotations: Annotations {
                read_only: a.read_only_hint,
                destructive: a.destructive_hint,
                idempotent: a.idempotent_hint,
                open_world: a.open_world_hint,
            },
            input_schema,
            input_validator,
            contract: contract?,
            probe,
            successor: raw.successor,
            deadline,
        })
    }

    fn input_schema(
        &mut self,
        path: &str,
        raw: Option<Value>,
    ) -> Option<(Map<String, Value>, Arc<jsonschema::Validator>)> {
        let schema = raw.unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
        let Value::Object(map) = &schema else {
            self.err(
                format!("{path}.input_schema"),
                "input_schema must be a JSON Schema object",
                "write `input_schema: { type: object, properties: {...} }`",
            );
            return None;
        };
        if map.get("type").is_some_and(|t| t != "object") {
            self.err(
                format!("{path}.input_schema.type"),
                "MCP tool arguments are always an object",
                "set `type: object`",
            );
            return None;
        }
        match jsonschema::draft202012::new(&schema) {
            Ok(v) => Some((map.clone(), Arc::new(v))),
            Err(e) => {
                self.err(
                    format!("{path}.input_schema"),
                    format!("input_schema is not a valid JSON Schema: {e}"),
                    "fix the schema (JSON Schema 2020-12)",
                );
                None
            }
        }
    }

    fn request(
        &mut self,
        path: &str,
        raw: RawRequest,
        input_schema: Option<&Map<String, Value>>,
    ) -> Option<RequestTemplate> {
        let rpath = format!("{path}.request");
        let method_text = raw
            .method
            .unwrap_or_else(|| "GET".into())
            .to_ascii_uppercase();
        let method = match Method::from_bytes(method_text.as_bytes()) {
            Ok(m) if ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].contains(&m.as_str()) => {
                Some(m)
            }
            _ => {
                self.err(
                    format!("{rpath}.method"),
                    format!("`{method_text}` is not a supported method"),
                    "use GET, POST, PUT, PATCH, DELETE or HEAD",
                );
                None
            }
        };
        if !raw.path.starts_with('/') {
            self.err(
                format!("{rpath}.path"),
                format!("path `{}` must start with `/`", raw.path),
                "the path is appended to the dependency's base_url; write it like `/v3/search`",
            );
        }
        let mut headers = Vec::new();
        for (k, v) in raw.headers {
            match HeaderName::from_bytes(k.as_bytes()) {
                Ok(n) => headers.push((n, Template::parse(&v))),
                Err(_) => self.err(
                    format!("{rpath}.headers.{k}"),
                    format!("`{k}` is not a valid header name"),
                    "use letters, digits and `-`",
                ),
            }
        }
        let template = RequestTemplate {
            method: method?,
            path: Template::parse(&raw.path),
            query: raw
                .query
                .into_iter()
                .map(|(k, v)| (k, Template::parse(&v)))
                .collect(),
            headers,
            body: raw.body,
        };
        if let Some(props) = input_schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            let mut missing: Vec<&str> = template
                .arguments()
                .into_iter()
                .filter(|a| !props.contains_key(*a))
                .collect();
            missing.dedup();
            if !missing.is_empty() {
                self.err(&rpath, format!("the request uses {} but input_schema declares no such propert{}", missing.iter().map(|m| format!("{{{m}}}")).collect::<Vec<_>>().join(", "), if missing.len() == 1 { "y" } else { "ies" }), "add the argument to input_schema.properties, or fix the placeholder's spelling");
            }
        }
        Some(template)
    }

    fn contract(&mut self, path: &str, raw: RawContract) -> Option<Contract> {
        let cpath = format!("{path}.contract");
        if !is_major_minor(&raw.version) {
            self.err(
                format!("{cpath}.version"),
                format!("contract version `{}` is not `major.minor`", raw.version),
                "write it like \"3.1\" (quoted, so YAML keeps it a string)",
            );
        }
        let (schema, base) =
            self.load_schema(&format!("{cpath}.response_schema"), raw.response_schema)?;
        let response = match ResponseContract::compile(&schema, Some(&base)) {
            Ok(r) => r,
            Err(e) => {
                self.err(
                    format!("{cpath}.response_schema"),
                    format!("response_schema is not usable: {e}"),
                    "fix the schema (JSON Schema 2020-12)",
                );
                return None;
            }
        };
        let (output_schema, wraps_result) = output_schema(&schema);
        Some(Contract {
            version: raw.version,
            response,
            output_schema,
            wraps_result,
        })
    }

    /// Inline schema, or `{ $ref: file }` loaded relative to the config file.
    fn load_schema(&mut self, path: &str, raw: Value) -> Option<(Value, PathBuf)> {
        let file_ref = match &raw {
            Value::Object(m) if m.len() == 1 => m
                .get("$ref")
                .and_then(Value::as_str)
                .filter(|r| !r.starts_with('#')),
            _ => None,
        };
        let Some(file_ref) = file_ref else {
            return Some((raw, self.dir.clone()));
        };
        let file = self.dir.join(file_ref);
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("cannot read schema file {}: {e}", file.display()),
                    "the path is relative to the config file",
                );
                return None;
            }
        };
        let parsed: Result<Value, String> = if file_ref.ends_with(".json") {
            serde_json::from_str(&text).map_err(|e| e.to_string())
        } else {
            yaml_serde::from_str(&text).map_err(|e| e.to_string())
        };
        match parsed {
            Ok(v) => Some((
                v,
                file.parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| self.dir.clone()),
            )),
            Err(e) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("schema file {} is not valid: {e}", file.display()),
                    "fix the file's JSON",
                );
                None
            }
        }
    }
}

/// The `outputSchema` advertised over MCP. MCP requires an object; a contract for a
/// non-object body (an array, a scalar) is wrapped as `{"result": …}`, and so is the body.
pub fn output_schema(schema: &Value) -> (Map<String, Value>, bool) {
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object")
        || (schema.get("type").is_none() && schema.get("properties").is_some());
    if is_object && let Value::Object(m) = schema {
        return (m.clone(), false);
    }
    let mut inner = schema.clone();
    let mut wrapper = Map::new();
    // Definitions must stay at the root for `#/$defs/...` references to resolve.
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(v) = inner.as_object_mut().and_then(|m| m.remove(key)) {
            wrapper.insert(key.to_string(), v);
        }
    }
    wrapper.insert("type".into(), json!("object"));
    wrapper.insert("properties".into(), json!({ "result": inner }));
    wrapper.insert("required".into(), json!(["result"]));
    (wrapper, true)
}

fn is_major_minor(v: &str) -> bool {
    let mut parts = v.split('.');
    let ok =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

fn valid_tool_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
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
    fn non_object_contracts_are_wrapped_with_their_definitions_at_the_root() {
        let (s, wrapped) = output_schema(
            &json!({"type": "array", "items": {"$ref": "#/$defs/x"}, "$defs": {"x": {"type": "string"}}}),
        );
        assert!(wrapped);
        assert_eq!(s["$defs"]["x"]["type"], "string");
        assert_eq!(s["properties"]["result"]["type"], "array");
        assert_eq!(s["required"], json!(["result"]));
        let (s, wrapped) = output_schema(&json!({"type": "object", "properties": {}}));
        assert!(!wrapped);
        assert_eq!(s["type"], "object");
    }

    #[test]
    fn versions() {
        assert!(is_major_minor("3.1"));
        assert!(!is_major_minor("3"));
        assert!(!is_major_minor("3.1.0"));
        assert!(!is_major_minor("v3.1"));
    }
}
