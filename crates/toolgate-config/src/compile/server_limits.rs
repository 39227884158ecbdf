//! Caps on what one upstream MCP server may list and ask (`gateway.mcp_server_limits`,
//! and a server's own `limits`).

use std::time::Duration;

use super::Compiler;
use crate::model::*;
use crate::raw::*;
use crate::units::parse_bytes;

impl Compiler<'_> {
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
            out.server_requests = self.server_requests(path, kinds);
        }
        if let Some(d) = self.answer_timeout(path, raw.answer_timeout.as_ref(), out.answer_timeout)
        {
            out.answer_timeout = d;
        }
        out
    }

    /// `server_requests`: the kinds of request the server may send toolgate.
    fn server_requests(&mut self, path: &str, kinds: &[String]) -> ServerRequests {
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
        allowed
    }

    /// `answer_timeout`, when given and within 100ms..10m.
    fn answer_timeout(
        &mut self,
        path: &str,
        raw: Option<&String>,
        default: Duration,
    ) -> Option<Duration> {
        raw?;
        let key = format!("{path}.answer_timeout");
        let errors = self.errors.len();
        let d = self.duration(key.clone(), raw, default);
        if self.errors.len() != errors {
            return None;
        }
        if (Duration::from_millis(100)..=Duration::from_secs(600)).contains(&d) {
            return Some(d);
        }
        self.err(
            key,
            format!("answer_timeout {d:?} is outside 100ms..10m"),
            "write a duration like `10s`",
        );
        None
    }
}
