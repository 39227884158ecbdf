//! Per-tool overrides of an MCP server's tools: owner, contract, probe, deadline and
//! notes, each falling back to the server's own.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::compile::tool::valid_tool_name;
use crate::compile::{Compiler, limits};
use crate::model::*;
use crate::raw::*;

/// What a tool's override falls back to, and what decides whether it may be probed.
pub(super) struct ServerDefaults<'a> {
    pub name: &'a str,
    /// The server is called only with the caller's authority (`token_exchange`).
    pub exchanged: bool,
    pub deadline: Duration,
    pub notes: NotesMode,
    pub learn: Option<Learn>,
}

impl Compiler<'_> {
    pub(super) fn tool_overrides(
        &mut self,
        path: &str,
        raw: BTreeMap<String, RawMcpTool>,
        server: &ServerDefaults<'_>,
    ) -> BTreeMap<String, McpToolOverride> {
        let mut tools = BTreeMap::new();
        for (tool, o) in raw {
            let tpath = format!("{path}.tools.{tool}");
            let tool_override = self.tool_override(&tpath, &tool, o, server);
            tools.insert(tool, tool_override);
        }
        tools
    }

    fn tool_override(
        &mut self,
        tpath: &str,
        tool: &str,
        o: RawMcpTool,
        server: &ServerDefaults<'_>,
    ) -> McpToolOverride {
        if !valid_tool_name(tool) {
            self.err(
                tpath,
                format!("`{tool}` is not a valid tool name"),
                "use the upstream's tool name: 1–64 letters, digits, `_`, `-` or `.`",
            );
        }
        let contract = o
            .contract
            .and_then(|c| self.contract(tpath, c, server.learn));
        if server.exchanged && o.probe.is_some() {
            self.err(
                format!("{tpath}.probe"),
                format!(
                    "a probe has no caller whose token could be exchanged, and server `{}` is called only with the caller's authority: it would fail on every run",
                    server.name
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
                server.deadline,
                limits::MIN_DEADLINE,
            )
        });
        let notes = o
            .notes
            .as_deref()
            .map(|n| self.notes_mode(format!("{tpath}.notes"), Some(n), server.notes));
        let owner = o
            .owner
            .map(|o| o.trim().to_string())
            .filter(|o| !o.is_empty());
        McpToolOverride {
            owner,
            contract,
            probe,
            deadline,
            notes,
        }
    }
}
