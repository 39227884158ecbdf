//! How toolgate reaches an MCP server: streamable HTTP at `url` (with `headers`), or a
//! child process started from `command` (with `env`, `inherit_env` and `cwd`) over stdio.

use std::collections::BTreeMap;
use std::path::PathBuf;

use http::header::{HeaderName, HeaderValue};

use crate::compile::Compiler;
use crate::model::*;
use crate::raw::*;

/// The help for either mistake in a stdio server's `command`: no program to start.
const COMMAND_HELP: &str = "write the program and its arguments, e.g. `[node, server.js]`";

impl Compiler<'_> {
    /// Exactly one of `url` and `command`; the settings of the other kind are reported.
    pub(super) fn mcp_transport(
        &mut self,
        path: &str,
        raw: &RawMcpServer,
        dependency: Option<&Dependency>,
    ) -> Option<McpTransport> {
        match (&raw.url, &raw.command) {
            (Some(_), None) => self.http_transport(path, raw, dependency),
            (None, Some(command)) => self.stdio_transport(path, raw, command),
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

    fn http_transport(
        &mut self,
        path: &str,
        raw: &RawMcpServer,
        dependency: Option<&Dependency>,
    ) -> Option<McpTransport> {
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

    fn stdio_transport(
        &mut self,
        path: &str,
        raw: &RawMcpServer,
        command: &[String],
    ) -> Option<McpTransport> {
        if !raw.headers.is_empty() {
            self.err(
                format!("{path}.headers"),
                "`headers` apply to a `url` server; a `command` server is reached over stdio",
                "pass credentials to the process with `env:` instead",
            );
        }
        let (program, args) = self.program(path, command)?;
        let env = self.stdio_env(path, &raw.env);
        self.inherited_names(path, &raw.inherit_env);
        let cwd = self.stdio_cwd(path, raw.cwd.as_ref());
        Some(McpTransport::Stdio {
            program: program.clone(),
            args: args.to_vec(),
            env,
            inherit_env: raw.inherit_env.clone(),
            cwd,
        })
    }

    /// The program and its arguments; without a program there is nothing to start.
    fn program<'c>(
        &mut self,
        path: &str,
        command: &'c [String],
    ) -> Option<(&'c String, &'c [String])> {
        let Some((program, args)) = command.split_first() else {
            self.err(
                format!("{path}.command"),
                "the command is empty",
                COMMAND_HELP,
            );
            return None;
        };
        if program.trim().is_empty() {
            self.err(
                format!("{path}.command"),
                "the program name is empty",
                COMMAND_HELP,
            );
            return None;
        }
        Some((program, args))
    }

    /// `env` with `${VAR}` expanded; a name no process could be given is left out.
    fn stdio_env(&mut self, path: &str, raw: &BTreeMap<String, String>) -> Vec<(String, Secret)> {
        let mut env = Vec::new();
        for (k, v) in raw {
            let value = self.expand(&format!("{path}.env.{k}"), v);
            if !valid_variable_name(k) {
                self.err(
                    format!("{path}.env.{k}"),
                    format!("`{k}` is not a valid environment variable name"),
                    "use letters, digits and `_`",
                );
                continue;
            }
            env.push((k.clone(), Secret(value)));
        }
        env
    }

    fn inherited_names(&mut self, path: &str, names: &[String]) {
        for (i, name) in names.iter().enumerate() {
            if !valid_variable_name(name) {
                self.err(
                    format!("{path}.inherit_env.{i}"),
                    format!("`{name}` is not a valid environment variable name"),
                    "name a variable of toolgate's environment, e.g. `GITHUB_TOKEN`",
                );
            }
        }
    }

    /// The working directory, relative to the config file's; it must exist.
    fn stdio_cwd(&mut self, path: &str, raw: Option<&String>) -> Option<PathBuf> {
        let cwd = raw.map(|c| self.dir.join(c));
        if let Some(c) = &cwd
            && !c.is_dir()
        {
            self.err(
                format!("{path}.cwd"),
                format!("`{}` is not a directory", c.display()),
                "name an existing directory (relative paths start at the config file's directory)",
            );
        }
        cwd
    }

    /// Header names checked, values `${ENV}`-expanded and marked sensitive.
    pub(in crate::compile) fn header_list(
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
}

/// What the operating system refuses as a variable's name: empty, or holding `=` or NUL.
fn valid_variable_name(name: &str) -> bool {
    !(name.is_empty() || name.contains('=') || name.contains('\0'))
}
