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
mod tests {
    use crate::{McpTransport, OnChange, glob};

    fn parse(yaml: &str) -> Result<crate::Config, String> {
        let env = |k: &str| (k == "KB_TOKEN").then(|| "s3cret".to_string());
        crate::parse(
            std::path::Path::new("gw.yaml"),
            yaml,
            std::path::Path::new("."),
            &env,
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn a_server_in_three_lines_gets_the_defaults() {
        let c = parse(
            "mcp_servers:\n  kb:\n    url: http://127.0.0.1:3001/mcp\n    owner: kb@example.com\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let kb = &c.mcp_servers["kb"];
        assert_eq!(kb.prefix, "kb");
        assert_eq!(kb.exposed_name("search"), "kb__search");
        assert_eq!(kb.on_change, OnChange::Warn);
        assert_eq!(kb.lock, std::path::Path::new("./gw.lock.json"));
        assert_eq!(kb.dependency.name, "kb");
        assert_eq!(kb.dependency.timeout, std::time::Duration::from_secs(30));
        assert!(
            c.dependencies.contains_key("kb"),
            "the server is a dependency"
        );
        assert!(matches!(kb.transport, McpTransport::Http { .. }));
    }

    #[test]
    fn every_mistake_is_reported_at_once() {
        let e = parse(
            "mcp_servers:\n  a:\n    url: http://x/mcp\n    command: [node]\n  b:\n    command: []\n    owner: o\n  c:\n    url: http://x/mcp\n    owner: o\n    prefix: 'x__y'\n    on_change: explode\n    include: ['bad name']\n  d:\n    owner: o\n",
        )
        .expect_err("invalid");
        for needle in [
            "either `url` or `command`",
            "MCP server `a` has no owner",
            "the command is empty",
            "contains the separator",
            "unknown on_change `explode`",
            "`bad name` is not a tool name or pattern",
            "needs `url` (streamable HTTP) or `command` (stdio)",
        ] {
            assert!(e.contains(needle), "missing {needle:?} in:\n{e}");
        }
    }

    #[test]
    fn headers_are_expanded_and_stdio_takes_env_and_cwd() {
        let c = parse(
            "mcp_servers:\n  kb:\n    url: http://127.0.0.1:3001/mcp\n    owner: o\n    headers: { Authorization: 'Bearer ${KB_TOKEN}' }\n  ev:\n    command: [node, server.js, stdio]\n    env: { TOKEN: '${KB_TOKEN}' }\n    owner: o\n    prefix: ''\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let McpTransport::Http { headers, .. } = &c.mcp_servers["kb"].transport else {
            panic!("http");
        };
        assert_eq!(headers[0].1.to_str().ok(), Some("Bearer s3cret"));
        assert!(headers[0].1.is_sensitive());
        let ev = &c.mcp_servers["ev"];
        let McpTransport::Stdio {
            program, args, env, ..
        } = &ev.transport
        else {
            panic!("stdio");
        };
        assert_eq!((program.as_str(), args.len()), ("node", 2));
        assert_eq!(env[0].1.0, "s3cret");
        assert_eq!(format!("{:?}", env[0].1), "Secret(***)");
        assert_eq!(ev.exposed_name("echo"), "echo");
    }

    #[test]
    fn stdio_children_get_a_clean_environment_plus_inherit_env() {
        let c = parse(
            "mcp_servers:\n  ev:\n    command: [node, server.js]\n    inherit_env: [KB_TOKEN, UNSET_ONE]\n    owner: o\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let ev = &c.mcp_servers["ev"];
        let McpTransport::Stdio { inherit_env, .. } = &ev.transport else {
            panic!("stdio");
        };
        assert_eq!(inherit_env, &["KB_TOKEN", "UNSET_ONE"]);
        // The inherited value is a credential: redacted like `env`'s.
        assert!(ev.dependency.secrets.iter().any(|s| s.0 == "s3cret"));

        let e = parse(
            "mcp_servers:\n  ev:\n    command: [node, server.js]\n    inherit_env: ['A=B']\n    owner: o\n  kb:\n    url: http://127.0.0.1:3001/mcp\n    inherit_env: [KB_TOKEN]\n    owner: o\n",
        )
        .expect_err("bad inherit_env");
        assert!(e.contains("mcp_servers.ev.inherit_env.0"), "{e}");
        assert!(e.contains("apply to a `command` server"), "{e}");
    }

    #[test]
    fn a_server_may_not_share_a_name_or_prefix() {
        let e = parse(
            "dependencies:\n  kb: { base_url: 'http://x' }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  one: { url: 'http://x/mcp', owner: o, prefix: kb }\n  two: { url: 'http://x/mcp', owner: o, prefix: kb }\n",
        )
        .expect_err("collisions");
        assert!(e.contains("both a dependency and an MCP server"), "{e}");
        assert!(e.contains("both use the prefix `kb`"), "{e}");
    }

    #[test]
    fn prefix_collision_refused_at_check() {
        let e = parse(
            "mcp_servers:\n  one: { url: 'http://x/mcp', owner: o, prefix: a }\n  two: { url: 'http://x/mcp', owner: o, prefix: a_ }\n",
        )
        .expect_err("`a` + `_echo` and `a_` + `echo` are the same name");
        assert!(
            e.contains(
                "the prefixes `a` (server `one`) and `a_` (server `two`) can name the same tool"
            ),
            "{e}"
        );
        assert!(e.contains("mcp_servers.two.prefix"), "{e}");
        // Server names are the default prefixes: the same rule holds for them.
        let e = parse(
            "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  kb_: { url: 'http://x/mcp', owner: o }\n",
        )
        .expect_err("kb and kb_");
        assert!(e.contains("can name the same tool"), "{e}");
        parse(
            "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  kb_2: { url: 'http://x/mcp', owner: o }\n",
        )
        .unwrap_or_else(|e| panic!("`kb` and `kb_2` cannot collide: {e}"));
    }

    #[test]
    fn tool_limits_default_and_override_key_by_key() {
        let c = parse(
            "gateway:\n  mcp_server_limits: { max_tools: 50, max_total_bytes: 1MiB }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { max_tools: 5 } }\n  ev: { url: 'http://x/mcp', owner: o }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let kb = c.mcp_servers["kb"].limits;
        assert_eq!(
            (kb.max_tools, kb.max_definition_bytes, kb.max_total_bytes),
            (5, 64 << 10, 1 << 20)
        );
        assert_eq!(c.mcp_servers["ev"].limits.max_tools, 50);
        let e = parse(
            "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { max_tools: 0, max_definition_bytes: lots } }\n",
        )
        .expect_err("zero and nonsense");
        assert!(e.contains("max_tools is 0"), "{e}");
        assert!(
            e.contains("mcp_servers.kb.limits.max_definition_bytes"),
            "{e}"
        );
    }

    #[test]
    fn which_requests_a_server_may_send_the_agent_is_set_gateway_wide_and_per_server() {
        let c = parse(
            "gateway:\n  mcp_server_limits: { server_requests: [elicitation] }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  ev: { url: 'http://x/mcp', owner: o, limits: { server_requests: [sampling, roots] } }\n  no: { url: 'http://x/mcp', owner: o, limits: { server_requests: [] } }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let allowed = |s: &str| {
            let r = c.mcp_servers[s].limits.server_requests;
            (r.sampling, r.elicitation, r.roots)
        };
        assert_eq!(allowed("kb"), (false, true, false), "the gateway's");
        assert_eq!(allowed("ev"), (true, false, true), "the server's own");
        assert_eq!(allowed("no"), (false, false, false));
        let all = parse("mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            all.mcp_servers["kb"].limits.server_requests,
            crate::ServerRequests::ALL,
            "every kind, as before the setting existed"
        );
        let e = parse(
            "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { server_requests: [sampling, create_message] } }\n",
        )
        .expect_err("an unknown kind");
        assert!(e.contains("mcp_servers.kb.limits.server_requests"), "{e}");
        assert!(
            e.contains("`create_message` is not a kind of server request"),
            "{e}"
        );
    }

    #[test]
    fn what_a_server_may_ask_of_toolgate_is_capped_from_config() {
        let c = parse(
            "gateway:\n  mcp_server_limits: { max_server_requests: 4, answer_timeout: 2s }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { stderr_lines_per_second: 5 } }\n  ev: { url: 'http://x/mcp', owner: o }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let kb = c.mcp_servers["kb"].limits;
        assert_eq!(
            (
                kb.max_server_requests,
                kb.answer_timeout,
                kb.stderr_lines_per_second
            ),
            (4, std::time::Duration::from_secs(2), 5)
        );
        assert_eq!(
            c.mcp_servers["ev"].limits.stderr_lines_per_second, 50,
            "the default"
        );
        let e = parse(
            "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { max_server_requests: 0, answer_timeout: 1h, stderr_lines_per_second: 99999 } }\n",
        )
        .expect_err("zero, too long, too many");
        assert!(
            e.contains("mcp_servers.kb.limits.max_server_requests"),
            "{e}"
        );
        assert!(e.contains("mcp_servers.kb.limits.answer_timeout"), "{e}");
        assert!(
            e.contains("mcp_servers.kb.limits.stderr_lines_per_second"),
            "{e}"
        );
    }

    #[test]
    fn globs() {
        for (p, n, want) in [
            ("get_*", "get_user", true),
            ("get_*", "get", false),
            ("*", "", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("search", "search", true),
            ("search", "searcher", false),
            ("*_admin", "x_admin", true),
            ("a*a", "a", false),
        ] {
            assert_eq!(glob(p, n), want, "{p} {n}");
        }
    }
}
