//! The lockfile, `toolgate.lock.json`: the tool, prompt and resource template definitions of each upstream
//! MCP server as they were when `toolgate lock` ran, which live definitions are compared
//! with.
//!
//! ```json
//! { "lockfile_version": 1, "servers": { "<server>": { "locked_at": "…", "protocol_version": "…",
//!   "server_name": "…", "server_version": "…", "tools": [ … ], "prompts": [ … ],
//!   "resource_templates": [ … ] } },
//!   "learned": { "<tool>": { "learned_at": "…", "samples": 412, "schema": { … } } } }
//! ```
//!
//! `learned` (absent when empty) holds the contracts learned from the responses of tools
//! that declare none ([`crate::Learner`]): a restart resumes from them, and a reviewer
//! can copy a `schema` into the tool's `contract.response_schema` to declare it.
//!
//! It is reviewed like code, so its text is deterministic: pretty-printed, every object's
//! keys sorted (schemas included: key order means nothing in JSON Schema, and a server
//! that emits keys in another order must not make a noisy diff), tools and prompts sorted
//! by name, resource templates by URI template, a trailing newline. Reading the text and writing it again gives the same bytes.

use crate::definition::ToolDefinition;
use crate::prompt::PromptDefinition;
use crate::resource_template::ResourceTemplateDefinition;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The lockfile format this build reads and writes.
pub const LOCKFILE_VERSION: u64 = 1;
/// Larger files are refused unread: a lockfile of a few hundred tools is well under 1 MiB.
pub const MAX_LOCKFILE_BYTES: u64 = 16 * 1024 * 1024;

/// Pinned definitions of every locked server, by the server's name in the config.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lockfile {
    /// One entry per upstream server.
    pub servers: BTreeMap<String, PinnedServer>,
    /// Learned contracts, by the tool's exposed name.
    pub learned: BTreeMap<String, LearnedPin>,
}

/// A contract learned from a tool's successful responses, as pinned by `toolgate lock`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedPin {
    /// When it was pinned, RFC 3339 (given by the caller).
    pub learned_at: String,
    /// How many responses it was learned from.
    pub samples: u64,
    /// Some fields were left unlearned at the path cap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
    /// The learned JSON Schema of the response.
    pub schema: Value,
}

/// One server's pinned definitions and what it said about itself at `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PinnedServer {
    /// `serverInfo.name` from `initialize`.
    pub server_name: String,
    /// `serverInfo.version` from `initialize`.
    pub server_version: String,
    /// The negotiated MCP protocol version.
    pub protocol_version: String,
    /// When the pins were taken, RFC 3339 (given by the caller; this crate reads no clock).
    pub locked_at: String,
    /// The tools, sorted by name when written.
    pub tools: Vec<ToolDefinition>,
    /// The prompts, sorted by name when written (absent when the server offers none, as
    /// in lockfiles written before prompts were pinned).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptDefinition>,
    /// The resource templates, sorted by URI template when written (absent when the
    /// server lists none, as in lockfiles written before they were pinned).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<ResourceTemplateDefinition>,
}

impl PinnedServer {
    /// Sorts each kind of definition by what names it, as the file is written.
    fn sort(&mut self) {
        self.tools.sort_by(|a, b| a.name.cmp(&b.name));
        self.prompts.sort_by(|a, b| a.name.cmp(&b.name));
        self.resource_templates
            .sort_by(|a, b| a.uri_template.cmp(&b.uri_template));
    }
}

/// Why a lockfile could not be read or written. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    /// Reading, writing or renaming failed.
    #[error("cannot {action} the lockfile {}: {source}", path.display())]
    Io {
        /// What was being done ("read", "write", "replace").
        action: &'static str,
        /// The lockfile.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// Over [`MAX_LOCKFILE_BYTES`].
    #[error(
        "the lockfile {} is {size} bytes, over the {MAX_LOCKFILE_BYTES}-byte limit; it is not a toolgate lockfile, or it was damaged — run `toolgate lock` to write it again",
        path.display()
    )]
    TooLarge {
        /// The lockfile.
        path: PathBuf,
        /// Its size (at least; reading stopped past the limit).
        size: u64,
    },
    /// Not JSON.
    #[error(
        "the lockfile {} is not valid JSON at line {line}, column {column}: {message}; restore it from version control or run `toolgate lock` again",
        path.display()
    )]
    Json {
        /// The lockfile.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's explanation.
        message: String,
    },
    /// `lockfile_version` is newer than this build knows.
    #[error(
        "the lockfile {} has lockfile_version {version}: it was written by a newer toolgate (this one reads version {LOCKFILE_VERSION}); upgrade toolgate",
        path.display()
    )]
    NewerVersion {
        /// The lockfile.
        path: PathBuf,
        /// The version found.
        version: u64,
    },
    /// JSON, but not a lockfile.
    #[error("the lockfile {} is not a toolgate lockfile: {message}", path.display())]
    Shape {
        /// The lockfile.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
}

/// A name from the file, safe and short enough for an error message.
fn shown(name: &str) -> String {
    crate::text::capped(&crate::text::one_line(name), 80)
}

/// A server entry's deserialization error, narrowed to the tool it is about when it is
/// about one (serde's message alone does not say which of 200 tools lacks a field).
fn where_in(entry: &Value, error: serde_json::Error) -> String {
    let tools = entry.get("tools").and_then(Value::as_array);
    for (i, tool) in tools.into_iter().flatten().enumerate() {
        if let Err(e) = ToolDefinition::deserialize(tool) {
            let name = tool.get("name").and_then(Value::as_str).map(shown);
            return match name {
                Some(n) => format!("tools[{i}] (`{n}`): {e}"),
                None => format!("tools[{i}]: {e}"),
            };
        }
    }
    error.to_string()
}

impl Lockfile {
    /// Reads the lockfile at `path`; `Ok(None)` when there is none.
    pub fn read(path: &Path) -> Result<Option<Lockfile>, PinError> {
        let io = |action, source| PinError::Io {
            action,
            path: path.to_path_buf(),
            source,
        };
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("read", e)),
        };
        // Read at most one byte past the limit: the metadata could be stale, or the path
        // a device that never ends.
        let mut bytes = Vec::new();
        file.take(MAX_LOCKFILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io("read", e))?;
        let size = bytes.len() as u64;
        if size > MAX_LOCKFILE_BYTES {
            return Err(PinError::TooLarge {
                path: path.to_path_buf(),
                size,
            });
        }
        Lockfile::parse(path, &bytes).map(Some)
    }

    /// Parses lockfile text; `path` is only used in error messages.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Lockfile, PinError> {
        let shape = |message: String| PinError::Shape {
            path: path.to_path_buf(),
            message,
        };
        let value: Value = serde_json::from_slice(bytes).map_err(|e| PinError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let Value::Object(top) = &value else {
            return Err(shape("the top level is not a JSON object".to_owned()));
        };
        // The version is judged before the rest: a newer format may differ anywhere.
        match top.get("lockfile_version") {
            None => return Err(shape("it has no `lockfile_version`".to_owned())),
            Some(v) => match v.as_u64() {
                Some(LOCKFILE_VERSION) => {}
                Some(n) if n > LOCKFILE_VERSION => {
                    return Err(PinError::NewerVersion {
                        path: path.to_path_buf(),
                        version: n,
                    });
                }
                _ => {
                    return Err(shape(format!(
                        "`lockfile_version` is {}, expected {LOCKFILE_VERSION}",
                        crate::text::capped(&v.to_string(), 40)
                    )));
                }
            },
        }
        let entries = match top.get("servers") {
            Some(Value::Object(entries)) => entries,
            Some(_) => return Err(shape("`servers` is not a JSON object".to_owned())),
            None => return Err(shape("it has no `servers`".to_owned())),
        };
        let mut servers = BTreeMap::new();
        for (name, entry) in entries {
            let server = PinnedServer::deserialize(entry)
                .map_err(|e| shape(format!("server `{}`: {}", shown(name), where_in(entry, e))))?;
            servers.insert(name.clone(), server);
        }
        let mut learned = BTreeMap::new();
        match top.get("learned") {
            None => {}
            Some(Value::Object(entries)) => {
                for (tool, entry) in entries {
                    let pin = LearnedPin::deserialize(entry).map_err(|e| {
                        shape(format!("learned contract of `{}`: {e}", shown(tool)))
                    })?;
                    learned.insert(tool.clone(), pin);
                }
            }
            Some(_) => return Err(shape("`learned` is not a JSON object".to_owned())),
        }
        Ok(Lockfile { servers, learned })
    }

    /// Adds or replaces the pins of one server; the others are kept. Each kind of
    /// definition is sorted by what names it.
    pub fn merge(&mut self, server: impl Into<String>, mut pinned: PinnedServer) {
        pinned.sort();
        self.servers.insert(server.into(), pinned);
    }

    /// The pins of one server.
    pub fn server(&self, server: &str) -> Option<&PinnedServer> {
        self.servers.get(server)
    }

    /// The file's text: pretty-printed, keys sorted, tools sorted by name, trailing
    /// newline.
    pub fn to_json_string(&self) -> String {
        let mut servers = Map::new();
        for (name, s) in &self.servers {
            let mut s = s.clone();
            s.sort();
            servers.insert(
                name.clone(),
                serde_json::to_value(&s).unwrap_or(Value::Null),
            );
        }
        let mut top = Map::new();
        top.insert("lockfile_version".into(), Value::from(LOCKFILE_VERSION));
        top.insert("servers".into(), Value::Object(servers));
        if !self.learned.is_empty() {
            let learned: Map<String, Value> = self
                .learned
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect();
            top.insert("learned".into(), Value::Object(learned));
        }
        let sorted = sort_keys(Value::Object(top));
        let mut text = serde_json::to_string_pretty(&sorted).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the lockfile atomically: the text goes to a temporary file in the same
    /// directory, is flushed to disk, then renamed over `path`, so a reader (or a crash)
    /// sees the old file or the new one, never half of one.
    pub fn write(&self, path: &Path) -> Result<(), PinError> {
        let io = |action, source| PinError::Io {
            action,
            path: path.to_path_buf(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "toolgate.lock.json".to_owned());
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let tmp = dir.join(format!(
            ".{file_name}.{}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .map_err(|e| io("write", e))?;
            f.write_all(self.to_json_string().as_bytes())
                .map_err(|e| io("write", e))?;
            f.sync_all().map_err(|e| io("write", e))?;
            drop(f);
            std::fs::rename(&tmp, path).map_err(|e| io("replace", e))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
            return result;
        }
        // Make the rename itself durable; a failure here leaves a correct file behind.
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Every object's keys in sorted order, at any depth.
fn sort_keys(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests;
