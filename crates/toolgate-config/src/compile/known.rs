//! Unknown fields, at any depth, each reported on its own.
//!
//! serde stops at the first unknown field of an entry and then has nothing to give
//! back, so three typos in one dependency would read as one error, and the
//! dependency would vanish (every tool using it would then be "not defined"). Instead
//! every mapping is checked against the config's own JSON Schema (generated from the
//! raw types, so it cannot drift from them) before deserializing: each unknown key is
//! one error with a did-you-mean, and is removed so the rest of the entry still
//! deserializes and is checked.

use std::sync::LazyLock;

use serde_json::Value;

use super::Compiler;

static CONFIG_SCHEMA: LazyLock<Value> = LazyLock::new(crate::json_schema);

impl Compiler<'_> {
    /// Reports and removes the keys of `value` (at field path `path`) that the schema
    /// at JSON pointer `pointer` into the config schema does not define.
    pub(super) fn strip_unknown(
        &mut self,
        path: &str,
        pointer: &str,
        value: &mut yaml_serde::Value,
    ) {
        let schema: &Value = &CONFIG_SCHEMA;
        let Some(node) = schema.pointer(pointer) else {
            return;
        };
        let defs = schema.get("$defs");
        let mut found = Vec::new();
        walk(node, defs, path, value, &mut found, 0);
        for (at, key, known) in found {
            let help = match did_you_mean(&key, known.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`? (see docs/configuration.md)"),
                None if known.is_empty() => "remove the field (see docs/configuration.md)".into(),
                None => format!(
                    "remove the field or fix its spelling; the fields here are {} (see docs/configuration.md)",
                    known.join(", ")
                ),
            };
            self.err(at.clone(), format!("unknown field `{key}`"), &help);
            self.dropped.push(at);
        }
    }
}

/// (field path, unknown key, the keys that are allowed there).
type Unknown = (String, String, Vec<String>);

fn walk(
    schema: &Value,
    defs: Option<&Value>,
    path: &str,
    value: &mut yaml_serde::Value,
    out: &mut Vec<Unknown>,
    depth: usize,
) {
    // The raw types nest a handful of levels; the bound only guards against a cycle.
    if depth > 32 {
        return;
    }
    let candidates = resolve(schema, defs, 0);
    match value {
        yaml_serde::Value::Mapping(map) => {
            let Some(object) = candidates
                .iter()
                .find(|s| s.get("properties").is_some())
                .or_else(|| {
                    candidates
                        .iter()
                        .find(|s| s.get("additionalProperties").is_some_and(Value::is_object))
                })
            else {
                return;
            };
            let properties = object.get("properties").and_then(Value::as_object);
            let additional = object.get("additionalProperties");
            let mut unknown = Vec::new();
            for (k, v) in map.iter_mut() {
                let Some(key) = k.as_str() else { continue };
                let child_path = format!("{path}.{key}");
                match properties.and_then(|p| p.get(key)) {
                    Some(child) => walk(child, defs, &child_path, v, out, depth + 1),
                    None => match additional {
                        Some(Value::Bool(false)) => unknown.push(key.to_string()),
                        Some(child @ Value::Object(_)) => {
                            walk(child, defs, &child_path, v, out, depth + 1)
                        }
                        _ => {}
                    },
                }
            }
            let known: Vec<String> = properties
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            for key in unknown {
                map.remove(key.as_str());
                out.push((format!("{path}.{key}"), key, known.clone()));
            }
        }
        yaml_serde::Value::Sequence(items) => {
            let Some(item_schema) = candidates.iter().find_map(|s| s.get("items")) else {
                return;
            };
            for (i, item) in items.iter_mut().enumerate() {
                walk(
                    item_schema,
                    defs,
                    &format!("{path}.{i}"),
                    item,
                    out,
                    depth + 1,
                );
            }
        }
        _ => {}
    }
}

/// The concrete schemas `schema` stands for: `$ref`s followed, `anyOf`/`oneOf` flattened
/// (an `Option<T>` field is `anyOf: [T, null]`).
fn resolve<'s>(schema: &'s Value, defs: Option<&'s Value>, depth: usize) -> Vec<&'s Value> {
    if depth > 16 {
        return Vec::new();
    }
    if let Some(name) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        return defs
            .and_then(|d| d.get(name))
            .map(|s| resolve(s, defs, depth + 1))
            .unwrap_or_default();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(variants) = schema.get(key).and_then(Value::as_array) {
            return variants
                .iter()
                .flat_map(|v| resolve(v, defs, depth + 1))
                .collect();
        }
    }
    vec![schema]
}

/// The closest of `known` to `word`, if it is close enough to be a typo.
pub(super) fn did_you_mean<'a>(
    word: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let w = word.to_ascii_lowercase();
    let limit = 2.max(word.chars().count() / 3);
    known
        .into_iter()
        .map(|k| (edit_distance(&w, &k.to_ascii_lowercase()), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_inside_sequences_and_maps_are_each_one_error() {
        let yaml = "alerts:\n  webhooks:\n    - url: http://a.example\n      fromat: slack\n  owners:\n    a@example.com:\n      webhook: []\n  throttel: 1h\n";
        let errors = crate::parse(
            std::path::Path::new("t.yaml"),
            yaml,
            std::path::Path::new("."),
            &|_| None,
        )
        .expect_err("typos");
        let found: Vec<(&str, Option<&str>)> = errors
            .errors
            .iter()
            .map(|e| (e.path.as_str(), e.help.as_deref()))
            .collect();
        assert_eq!(
            found,
            vec![
                (
                    "alerts.webhooks.0.fromat",
                    Some("did you mean `format`? (see docs/configuration.md)")
                ),
                (
                    "alerts.owners.a@example.com.webhook",
                    Some("did you mean `webhooks`? (see docs/configuration.md)")
                ),
                (
                    "alerts.throttel",
                    Some("did you mean `throttle`? (see docs/configuration.md)")
                ),
            ]
        );
    }

    #[test]
    fn did_you_mean_finds_typos_and_ignores_strangers() {
        let fields = ["timeout", "retry", "base_url", "max_attempts"];
        assert_eq!(did_you_mean("timout", fields), Some("timeout"));
        assert_eq!(did_you_mean("max_atempts", fields), Some("max_attempts"));
        assert_eq!(did_you_mean("BASE_URL", fields), Some("base_url"));
        assert_eq!(did_you_mean("colour", fields), None);
        assert_eq!(edit_distance("serch_api", "search_api"), 1);
    }
}
