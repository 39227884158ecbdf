//! A schema given as `{ $ref: file }`, read relative to the config file within the
//! directories schema files may come from.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::compile::Compiler;
use crate::yaml::{MAX_DEPTH, MAX_EXPANDED_BYTES, YamlError};

impl Compiler<'_> {
    /// Inline schema, or `{ $ref: file }` loaded relative to the config file.
    pub(super) fn load_schema(&mut self, path: &str, raw: Value) -> Option<(Value, PathBuf)> {
        let file_ref = match &raw {
            Value::Object(m) if m.len() == 1 => m
                .get("$ref")
                .and_then(Value::as_str)
                .filter(|r| !r.starts_with('#') && !r.starts_with("toolgate:")),
            _ => None,
        };
        let Some(file_ref) = file_ref else {
            return Some((raw, self.dir.clone()));
        };
        let file = self.dir.join(file_ref);
        let bytes = match self.files.read(&file) {
            Ok(b) => b,
            Err(e) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("cannot use schema file {file_ref}: {e}"),
                    "the path is relative to the config file; files outside its directory need gateway.schema_roots",
                );
                return None;
            }
        };
        // Parse errors say where, never what: the message must not echo the file.
        let parsed: Result<Value, String> = match std::str::from_utf8(&bytes) {
            Err(_) => Err("not UTF-8 text".into()),
            Ok(text) if file_ref.ends_with(".json") => serde_json::from_str(text)
                .map_err(|e| format!("not JSON (line {}, column {})", e.line(), e.column())),
            Ok(text) => crate::yaml::from_str(text).map_err(|e| match e {
                YamlError::Syntax(e) => match e.location() {
                    Some(l) => format!("not YAML (line {}, column {})", l.line(), l.column()),
                    None => "not YAML".into(),
                },
                YamlError::Nested(at) => format!(
                    "nested more than {MAX_DEPTH} levels deep (line {}, column {})",
                    at.line, at.column
                ),
                // The path would name the file's keys: the message says only what.
                YamlError::Expanded(_) => format!(
                    "YAML whose aliases (`*name`) repeat their anchors to more than {} MiB read as copies",
                    MAX_EXPANDED_BYTES / 1024 / 1024
                ),
            }),
        };
        match parsed {
            Ok(v @ (Value::Object(_) | Value::Bool(_))) => Some((
                v,
                file.parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| self.dir.clone()),
            )),
            Ok(_) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("schema file {file_ref} is not a JSON Schema object"),
                    "the file must hold one JSON Schema object, e.g. `{\"type\": \"object\"}`",
                );
                None
            }
            Err(e) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("schema file {file_ref} is {e}"),
                    "fix the file's JSON (or YAML)",
                );
                None
            }
        }
    }
}
