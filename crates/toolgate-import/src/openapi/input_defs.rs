//! Input schemas' definitions written once per config. Each tool's input schema keeps
//! its own `$defs` (the model reads it whole, and `input_schema` cannot refer to the
//! shared `schemas` section), so an API whose request bodies reach a large graph
//! repeats it in every tool that takes one: DocuSign's envelope definition converts to
//! about 1 MB, and tens of its operations take it. A definition that two tools carry
//! alike is written the first time with a YAML anchor (`envelopeDefinition:
//! &envelopeDefinition …`) and every later time as its alias (`*envelopeDefinition`).
//! A YAML reader expands an alias to the same value, so the gateway, `check` and the
//! model see exactly what they saw before; only the file is smaller.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::operations::Tool;
use super::yaml::{write_alias_entry, write_anchored_entry, write_entry, write_key};

/// One definition met in the tools' input schemas: how often, and its anchor once
/// written.
#[derive(Debug)]
struct Met<'a> {
    value: &'a Value,
    uses: usize,
    anchor: Option<String>,
}

/// The repeated definitions of one config's tools, and the anchors given so far.
#[derive(Debug)]
pub struct InputDefs<'a> {
    /// Definition name → the distinct definitions of that name (usually one).
    met: HashMap<&'a str, Vec<Met<'a>>>,
    anchors: HashSet<String>,
}

fn defs_of(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    schema.get("$defs").and_then(Value::as_object)
}

impl<'a> InputDefs<'a> {
    /// Counts every definition of every tool's input schemas (and full input schemas),
    /// so that only those used more than once get an anchor.
    pub fn count(tools: &'a [Tool]) -> Self {
        let mut met: HashMap<&'a str, Vec<Met<'a>>> = HashMap::new();
        let schemas = tools
            .iter()
            .flat_map(|t| std::iter::once(&t.input_schema).chain(&t.full_input_schema));
        for defs in schemas.filter_map(defs_of) {
            for (name, value) in defs {
                // Scalars (`true`) cost less written than named.
                if !matches!(value, Value::Object(m) if !m.is_empty()) {
                    continue;
                }
                let same = met.entry(name.as_str()).or_default();
                match same.iter_mut().find(|m| m.value == value) {
                    Some(m) => m.uses += 1,
                    None => same.push(Met {
                        value,
                        uses: 1,
                        anchor: None,
                    }),
                }
            }
        }
        InputDefs {
            met,
            anchors: HashSet::new(),
        }
    }

    /// Writes `key: schema` at `level` as [`write_entry`] would, but for each
    /// repeated definition in its `$defs`: anchored where first written, an alias after.
    pub fn write(&mut self, out: &mut String, key: &str, schema: &'a Value, level: usize) {
        let Value::Object(m) = schema else {
            return write_entry(out, key, schema, level);
        };
        if defs_of(schema).is_none_or(|d| d.is_empty()) {
            return write_entry(out, key, schema, level);
        }
        write_key(out, key, level);
        for (k, v) in m {
            if k != "$defs" {
                write_entry(out, k, v, level + 1);
                continue;
            }
            write_key(out, k, level + 1);
            for (name, def) in v.as_object().into_iter().flatten() {
                self.write_def(out, name, def, level + 2);
            }
        }
    }

    fn write_def(&mut self, out: &mut String, name: &str, def: &Value, level: usize) {
        let Some(met) = self
            .met
            .get_mut(name)
            .and_then(|same| same.iter_mut().find(|m| m.value == def))
            .filter(|m| m.uses > 1)
        else {
            return write_entry(out, name, def, level);
        };
        if let Some(anchor) = &met.anchor {
            return write_alias_entry(out, name, anchor, level);
        }
        let anchor = fresh_anchor(&mut self.anchors, name);
        write_anchored_entry(out, name, def, level, &anchor);
        met.anchor = Some(anchor);
    }
}

/// An anchor named after the definition where its name is one an anchor can carry
/// as it is, numbered when taken (two definitions of one name that differ).
fn fresh_anchor(taken: &mut HashSet<String>, name: &str) -> String {
    let base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    let base = if base.is_empty() { "def".into() } else { base };
    let mut anchor = base.clone();
    let mut n = 2;
    while taken.contains(&anchor) {
        anchor = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(anchor.clone());
    anchor
}

#[cfg(test)]
mod tests;
