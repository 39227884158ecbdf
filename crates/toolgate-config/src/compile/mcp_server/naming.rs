//! The names an MCP server's tools are exposed under: its prefix, the `include` and
//! `exclude` patterns that choose its tools, and prefixes that cannot collide.

use std::collections::BTreeMap;

use crate::compile::Compiler;
use crate::model::*;

impl Compiler<'_> {
    /// The prefix as given (the server's name by default), reported when it is not a
    /// valid prefix or holds the separator toolgate adds itself.
    pub(super) fn prefix(&mut self, path: &str, prefix: String) -> String {
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
        prefix
    }

    pub(super) fn patterns(&mut self, path: &str, raw: Vec<String>) -> Vec<String> {
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
    pub(in crate::compile) fn prefixes_distinct(
        &mut self,
        servers: &BTreeMap<String, McpServerSpec>,
    ) {
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

pub(super) fn valid_prefix(p: &str) -> bool {
    (1..=32).contains(&p.len())
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
