//! A server's limits (`limits`: tools per server, bytes per definition, bytes per
//! server): what a listing refused for them, and the size a definition counts against
//! them.

use std::collections::BTreeSet;

use serde_json::Value;
use toolgate_config::ServerLimits;
use toolgate_contract::ToolDefinition;
use toolgate_mcp_client::Skipped;

/// What one listing kept, and what it refused for the server's limits.
#[derive(Debug, Default)]
pub struct Listed {
    /// The definitions within the limits, in the server's order.
    pub tools: Vec<ToolDefinition>,
    /// What was over them.
    pub refused: Refusals,
}

/// Definitions refused for a server's limits: counts, and a few names for people.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Refusals {
    /// Tools past `max_tools`.
    pub over_count: usize,
    /// Definitions larger than `max_definition_bytes`.
    pub too_large: usize,
    /// Definitions past `max_total_bytes`.
    pub over_total: usize,
    /// Definitions toolgate cannot read: a field of the wrong type, or a name with a
    /// control, space or hidden character (one that could pass for another tool), or
    /// one nested deeper than toolgate reads.
    pub unreadable: usize,
    /// Names listed more than once with different definitions: no copy is taken from
    /// the list, since either could be the one a reviewer saw (a pinned one is served
    /// from its pin).
    pub conflicting: usize,
    /// The first few refused names (one line, capped), for the incident and the log;
    /// never shown to a model.
    pub examples: Vec<String>,
    /// Refused definitions whose name is not known (the client named only so many, or
    /// none could be read): any pinned one not listed may be among them.
    pub unnamed: usize,
    /// Refused tools that are pinned: their pin is not read as a removed tool. With
    /// `unnamed` refusals, every pinned one not listed is counted here, as possibly
    /// refused: whether it is gone cannot be told.
    pub pinned: BTreeSet<String>,
}

/// Refused names kept for people.
const REFUSED_EXAMPLES: usize = 10;

impl Refusals {
    /// Nothing was refused.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// How many were refused, for whatever reason.
    pub fn total(&self) -> usize {
        self.over_count + self.too_large + self.over_total + self.unreadable + self.conflicting
    }

    /// One line for people, e.g. "99000 tools past max_tools (1000); 2 definitions larger than
    /// max_definition_bytes (65536)".
    pub fn describe(&self, limits: &ServerLimits) -> String {
        let mut parts = Vec::new();
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if self.over_count > 0 {
            parts.push(format!(
                "{} past max_tools ({})",
                plural(self.over_count, "tool", "tools"),
                limits.max_tools
            ));
        }
        if self.too_large > 0 {
            parts.push(format!(
                "{} larger than max_definition_bytes ({})",
                plural(self.too_large, "definition", "definitions"),
                limits.max_definition_bytes
            ));
        }
        if self.over_total > 0 {
            parts.push(format!(
                "{} past max_total_bytes ({})",
                plural(self.over_total, "definition", "definitions"),
                limits.max_total_bytes
            ));
        }
        if self.unreadable > 0 {
            parts.push(format!(
                "{} toolgate cannot read (a field of the wrong type, a name with a hidden character, or nesting deeper than it reads)",
                plural(self.unreadable, "definition", "definitions")
            ));
        }
        if self.conflicting > 0 {
            parts.push(format!(
                "{} listed more than once with different definitions (none is taken from the list; a pinned one is served from its pin)",
                plural(self.conflicting, "name", "names")
            ));
        }
        if self.unnamed > 0 {
            parts.push(format!(
                "{} of them without a known name, so pinned definitions not listed are read as possibly refused, not removed",
                self.unnamed
            ));
        }
        parts.join("; ")
    }

    /// Adds what another list of the same server refused (its prompts' to its tools'):
    /// counts and examples, for the one incident; `pinned` stays this list's own.
    pub(super) fn absorb(&mut self, other: &Refusals) {
        self.over_count += other.over_count;
        self.too_large += other.too_large;
        self.over_total += other.over_total;
        self.unreadable += other.unreadable;
        self.conflicting += other.conflicting;
        self.unnamed += other.unnamed;
        let room = REFUSED_EXAMPLES.saturating_sub(self.examples.len());
        self.examples
            .extend(other.examples.iter().take(room).cloned());
    }

    /// Entries the client left out of a page before toolgate read it: each
    /// larger than a message may be (so larger than `max_definition_bytes` too), or
    /// past what one message holds (so past `max_total_bytes`).
    /// The client names only so many; the others are counted as `unnamed`.
    pub(super) fn skipped_by_client(&mut self, skipped: &Skipped, pinned: &BTreeSet<String>) {
        self.too_large += skipped.too_large;
        self.over_total += skipped.over_total;
        for name in &skipped.names {
            self.note(Some(name), pinned);
        }
        let left_out = skipped.too_large + skipped.over_total;
        self.unnamed += left_out.saturating_sub(skipped.names.len());
        if !skipped.is_empty() {
            tracing::warn!(too_large = skipped.too_large, over_total = skipped.over_total, examples = %self.examples.join(", "), "an MCP server's list held entries larger than a message may be; they are refused and the others read");
        }
    }

    pub(super) fn note(&mut self, name: Option<&str>, pinned: &BTreeSet<String>) {
        let Some(name) = name else {
            self.unnamed += 1;
            return;
        };
        if pinned.contains(name) {
            self.pinned.insert(name.to_string());
        }
        if self.examples.len() < REFUSED_EXAMPLES {
            // Hidden characters shown as `\u{…}`: the name may be the reason it is refused.
            let shown: String = toolgate_contract::one_line(name).chars().take(80).collect();
            self.examples.push(shown);
        }
    }
}

/// The length of `v` as compact JSON, without building the text.
pub(super) fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    let _ = serde_json::to_writer(&mut n, v);
    n.0
}
