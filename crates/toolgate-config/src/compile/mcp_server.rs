//! Compiling one upstream MCP server: its transport (`url` with headers, or `command`
//! with env and cwd), owner, prefix, lockfile, change policy, tool filters, the
//! dependency settings it shares with HTTP APIs (timeout, retries, rate-limit headers,
//! status page) and its per-tool overrides.

use std::collections::BTreeMap;
use std::time::Duration;

use http::header::{HeaderName, HeaderValue};

use super::dependency::DependencySettings;
use super::tool::valid_tool_name;
use super::{Compiler, limits};
use crate::model::*;
use crate::raw::*;

impl Compiler<'_> {
    pub(super) fn mcp_server(
        &mut self,
        name: &str,
        mut raw: RawMcpServer,
        gateway: &GatewayConfig,
    ) -> Option<McpServerSpec> {
        let path = format!("mcp_servers.{name}");
        if !valid_prefix(name) {
            self.err(
                &path,
                format!("`{name}` is not a valid server name"),
                "use 1–32 letters, digits, `_` or `-` (it names a dependency and prefixes tool names)",
            );
        }
        let owner = match raw.owner.as_deref().map(str::trim) {
            Some(o) if !o.is_empty() => Some(o.to_string()),
            _ => {
                self.err(
                    format!("{path}.owner"),
                    format!("MCP server `{name}` has no owner"),
                    "add `owner: alice@example.com` — the person or rota alerted when its tools drift",
                );
                None
            }
        };
        let prefix = raw.prefix.take().unwrap_or_else(|| name.to_string());
        if !prefix.is_empty() && !valid_prefix(&prefix) {
            self.err(
                format!("{path}.prefix"),
                format!("prefix `{prefix}` is not valid"),
                "use 1–32 letters, digits, `_` or `-`, or `\"\"` to keep the upstream's names",
            );
        }
        if prefix.contains(PREFIX_SEPARATOR) {
            self.err(
                format!("{path}.prefix"),
                format!("prefix `{prefix}` contains the separator `{PREFIX_SEPARATOR}`"),
                "remove the double underscore: toolgate adds it between prefix and tool name",
            );
        }
        let lock = match raw.lock.take() {
            Some(l) if !l.trim().is_empty() => self.dir.join(l),
            Some(_) => {
                self.err(
                    format!("{path}.lock"),
                    "the lock path is empty",
                    "name a file, or leave `lock` out for the default beside the config",
                );
                self.lock_default.clone()
            }
            None => self.lock_default.clone(),
        };
        let on_change = match raw.on_change.as_deref() {
            None | Some("warn") => OnChange::Warn,
            Some("block") => OnChange::Block,
            Some(other) => {
                self.err(
                    format!("{path}.on_change"),
                    format!("unknown on_change `{other}`"),
                    "use `warn` (serve the pinned definition, raise an incident) or `block` (also hide the tool)",
                );
                OnChange::Warn
            }
        };
        let include = self.patterns(
            &format!("{path}.include"),
            raw.include.take().unwrap_or_default(),
        );
        let exclude = self.patterns(
            &format!("{path}.exclude"),
            raw.exclude.take().unwrap_or_default(),
        );
        // The dependency part is the same as an HTTP API's, so it is compiled the same way.
        let base_url = match &raw.url {
            Some(_) => None,
            None => url::Url::parse(&format!("stdio://{}", name.to_ascii_lowercase())).ok(),
        };
        let dependency = self.dependency_settings(
            name,
            &path,
            DependencySettings {
                base_url: raw.url.clone(),
                fixed_url: base_url,
                headers: if raw.command.is_none() {
                    raw.headers.clone()
                } else {
                    BTreeMap::new()
                },
                timeout: raw.timeout.take(),
                default_timeout: Duration::from_secs(30),
                retry: raw.retry.take(),
                rate_limit_headers: raw.rate_limit_headers.take(),
                status_page: raw.status_page.take(),
                version: None,
                allow_link_local: raw.allow_link_local.unwrap_or(false),
            },
        );
        let mut dependency = dependency;
        if let Some(x) = raw.token_exchange.take() {
            if raw.command.is_some() {
                self.err(
                    format!("{path}.token_exchange"),
                    "a `command` server is one process serving every caller: it cannot be called with each caller's authority",
                    "reach the server over streamable HTTP (`url:`), or remove `token_exchange` and give the process its own credentials in `env`",
                );
            } else {
                let exchange = self.token_exchange(&path, x, gateway.auth.as_ref());
                if let Some(d) = dependency.as_mut() {
                    d.token_exchange = exchange;
                }
            }
        }
        let exchanged = dependency
            .as_ref()
            .is_some_and(|d| d.token_exchange.is_some());
        let transport = self.mcp_transport(&path, &raw, dependency.as_ref());
        if let (
            Some(d),
            Some(McpTransport::Stdio {
                env, inherit_env, ..
            }),
        ) = (dependency.as_mut(), &transport)
        {
            d.secrets = env.iter().map(|(_, v)| v.clone()).collect();
            // An inherited variable is passed on because the server needs it: as a
            // credential, most likely, so its value is redacted like `env`'s.
            d.secrets.extend(
                inherit_env
                    .iter()
                    .filter_map(|name| (self.env)(name))
                    .filter(|v| !v.is_empty())
                    .map(Secret),
            );
        }
        let check_every = self.duration_min(
            format!("{path}.check_every"),
            raw.check_every.as_ref(),
            Duration::from_secs(300),
            Duration::from_secs(1),
        );
        let deadline = self.duration_min(
            format!("{path}.deadline"),
            raw.deadline.as_ref(),
            gateway.deadline,
            limits::MIN_DEADLINE,
        );
        let notes = self.notes_mode(format!("{path}.notes"), raw.notes.as_deref(), gateway.notes);
        let limits = self.tool_limits(
            &format!("{path}.limits"),
            raw.limits.as_ref(),
            gateway.mcp_server_limits,
        );
        let mut tools = BTreeMap::new();
        for (tool, o) in std::mem::take(&mut raw.tools) {
            let tpath = format!("{path}.tools.{tool}");
            if !valid_tool_name(&tool) {
                self.err(
                    &tpath,
                    format!("`{tool}` is not a valid tool name"),
                    "use the upstream's tool name: 1–64 letters, digits, `_`, `-` or `.`",
                );
            }
            let contract = o
                .contract
                .and_then(|c| self.contract(&tpath, c, gateway.learn));
            if exchanged && o.probe.is_some() {
                self.err(
                    format!("{tpath}.probe"),
                    format!(
                        "a probe has no caller whose token could be exchanged, and server `{name}` is called only with the caller's authority: it would fail on every run"
                    ),
                    "remove the probe, or probe a tool of a server or dependency that has credentials of its own",
                );
            }
            let probe = o.probe.map(|p| Probe {
                every: self.duration_min(
                    format!("{tpath}.probe.every"),
                    p.every.as_ref(),
                    Duration::from_secs(3600),
                    limits::MIN_PROBE_EVERY,
                ),
                arguments: p.arguments,
            });
            let deadline = o.deadline.as_ref().map(|d| {
                self.duration_min(
                    format!("{tpath}.deadline"),
                    Some(d),
                    deadline,
                    limits::MIN_DEADLINE,
                )
            });
            let notes = o
                .notes
                .as_deref()
                .map(|n| self.notes_mode(format!("{tpath}.notes"), Some(n), notes));
            let owner = o
                .owner
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty());
            tools.insert(
                tool,
                McpToolOverride {
                    owner,
                    contract,
                    probe,
                    deadline,
                    notes,
                },
            );
        }
        Some(McpServerSpec {
            name: name.to_string(),
            transport: transport?,
            owner: owner?,
            prefix,
            lock,
            learn: gateway.learn,
            on_change,
            include,
            exclude,
            dependency: std::sync::Arc::new(dependency?),
            check_every,
            deadline,
            notes,
            tools,
            limits,
        })
    }

    fn mcp_transport(
        &mut self,
        path: &str,
        raw: &RawMcpServer,
        dependency: Option<&Dependency>,
    ) -> Option<McpTransport> {
        match (&raw.url, &raw.command) {
            (Some(_), None) => {
                if !raw.env.is_empty() || !raw.inherit_env.is_empty() || raw.cwd.is_some() {
                    self.err(
                        path,
                        "`env`, `inherit_env` and `cwd` apply to a `command` server, not to a `url` one",
                        "remove them, or start the server with `command:`",
                    );
                }
                // The URL and headers were checked as the dependency's.
                let dependency = dependency?;
                Some(McpTransport::Http {
                    url: dependency.base_url.clone(),
                    headers: dependency.headers.clone(),
                })
            }
            (None, Some(command)) => {
                if !raw.headers.is_empty() {
                    self.err(
                        format!("{path}.headers"),
                        "`headers` apply to a `url` server; a `command` server is reached over stdio",
                        "pass credentials to the process with `env:` instead",
                    );
                }
                let Some((program, args)) = command.split_first() else {
                    self.err(
                        format!("{path}.command"),
                        "the command is empty",
                        "write the program and its arguments, e.g. `[node, server.js]`",
                    );
                    return None;
                };
                if program.trim().is_empty() {
                    self.err(
                        format!("{path}.command"),
                        "the program name is empty",
                        "write the program and its arguments, e.g. `[node, server.js]`",
                    );
                    return None;
                }
                let mut env = Vec::new();
                for (k, v) in &raw.env {
                    let value = self.expand(&format!("{path}.env.{k}"), v);
                    if k.is_empty() || k.contains('=') || k.contains('\0') {
                        self.err(
                            format!("{path}.env.{k}"),
                            format!("`{k}` is not a valid environment variable name"),
                            "use letters, digits and `_`",
                        );
                        continue;
                    }
                    env.push((k.clone(), Secret(value)));
                }
                for (i, name) in raw.inherit_env.iter().enumerate() {
                    if name.is_empty() || name.contains('=') || name.contains('\0') {
                        self.err(
                            format!("{path}.inherit_env.{i}"),
                            format!("`{name}` is not a valid environment variable name"),
                            "name a variable of toolgate's environment, e.g. `GITHUB_TOKEN`",
                        );
                    }
                }
                let cwd = raw.cwd.as_ref().map(|c| self.dir.join(c));
                if let Some(c) = &cwd
                    && !c.is_dir()
                {
                    self.err(
                        format!("{path}.cwd"),
                        format!("`{}` is not a directory", c.display()),
                        "name an existing directory (relative paths start at the config file's directory)",
                    );
                }
                Some(McpTransport::Stdio {
                    program: program.clone(),
                    args: args.to_vec(),
                    env,
                    inherit_env: raw.inherit_env.clone(),
                    cwd,
                })
            }
            (Some(_), Some(_)) => {
                self.err(
                    path,
                    "an MCP server has either `url` or `command`, not both",
                    "keep `url` for a streamable HTTP server, `command` for a stdio one",
                );
                None
            }
            (None, None) => {
                self.err(
                    path,
                    "an MCP server needs `url` (streamable HTTP) or `command` (stdio)",
                    "e.g. `url: http://127.0.0.1:3001/mcp` or `command: [node, server.js]`",
                );
                None
            }
        }
    }

    /// Header names checked, values `${ENV}`-expanded and marked sensitive.
    pub(super) fn header_list(
        &mut self,
        path: &str,
        raw: &BTreeMap<String, String>,
    ) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = Vec::new();
        for (k, v) in raw {
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
        headers
    }

    fn patterns(&mut self, path: &str, raw: Vec<String>) -> Vec<String> {
        for (i, p) in raw.iter().enumerate() {
            if p.is_empty() || !p.chars().all(|c| c == '*' || valid_tool_char(c)) {
                self.err(
                    format!("{path}.{i}"),
                    format!("`{p}` is not a tool name or pattern"),
                    "use the upstream's tool names; `*` matches any run of characters",
                );
            }
        }
        raw
    }

    /// Exposed names must be unique across servers and HTTP tools; a collision is known
    /// only once the tools are, so this is checked again at run time. Here: two servers
    /// with the same prefix would collide on every shared tool name, and so would two
    /// prefixes that differ by a trailing `_` (`a` + `__` + `_echo` and `a_` + `__` +
    /// `echo` are both `a___echo`) — the only way distinct prefixes without `__` can.
    pub(super) fn prefixes_distinct(&mut self, servers: &BTreeMap<String, McpServerSpec>) {
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        for (name, s) in servers {
            if s.prefix.is_empty() {
                continue;
            }
            if let Some(other) = seen.insert(&s.prefix, name) {
                self.err(
                    format!("mcp_servers.{name}.prefix"),
                    format!(
                        "servers `{other}` and `{name}` both use the prefix `{}`",
                        s.prefix
                    ),
                    "give each server its own prefix, so their tool names cannot collide",
                );
            }
        }
        for (name, s) in servers {
            let Some(shorter) = s.prefix.strip_suffix('_') else {
                continue;
            };
            if let Some(other) = seen.get(shorter) {
                self.err(
                    format!("mcp_servers.{name}.prefix"),
                    format!(
                        "the prefixes `{shorter}` (server `{other}`) and `{}` (server `{name}`) can name the same tool: `{shorter}{PREFIX_SEPARATOR}_x` and `{}{PREFIX_SEPARATOR}x` are both `{}{PREFIX_SEPARATOR}x`",
                        s.prefix, s.prefix, s.prefix
                    ),
                    "give the servers prefixes that do not differ only by a trailing `_`",
                );
            }
        }
    }
}

fn valid_tool_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn valid_prefix(p: &str) -> bool {
    (1..=32).contains(&p.len())
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests;
