//! What every tool definition costs the model: the name, description and input schema
//! go into each agent's context on every `tools/list`. The import reports the sizes,
//! and `--compact` writes a shorter form for the model (descriptions trimmed, nested
//! schemas summarised) while the full schema is still the one arguments are checked
//! against.

use serde_json::{Map, Value, json};

use super::Stats;
use super::operations::Tool;
// Already read as text when imported: cut only, so an entity is not decoded twice.
use super::text::cut;

/// Property nesting kept as it is in the compact form; deeper schemas are summarised.
const KEEP_DEPTH: usize = 2;
/// Longest tool description in the compact form.
const TOOL_TEXT: usize = 300;
/// Longest property description in the compact form.
const FIELD_TEXT: usize = 100;

/// Bytes of one tool's definition as the model gets it.
pub fn bytes(t: &Tool) -> usize {
    t.name.len() + t.description.len() + super::json_bytes::len(&t.input_schema)
}

/// Total bytes, and the five largest definitions, largest first.
pub fn measure(tools: &[Tool]) -> (usize, Vec<(String, usize)>) {
    let mut sizes: Vec<(String, usize)> =
        tools.iter().map(|t| (t.name.clone(), bytes(t))).collect();
    let total = sizes.iter().map(|(_, n)| n).sum();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    sizes.truncate(5);
    (total, sizes)
}

/// The report line on sizes.
pub fn report(s: &Stats, compact: bool) -> String {
    let largest: Vec<String> = s
        .largest
        .iter()
        .map(|(n, b)| format!("{n} {}", kb(*b)))
        .collect();
    let mut line = format!(
        "tool definitions: {} in all{}; largest: {}",
        kb(s.definition_bytes),
        if compact { " (compact)" } else { "" },
        if largest.is_empty() {
            "none".to_string()
        } else {
            largest.join(", ")
        }
    );
    if !compact && s.largest.first().is_some_and(|(_, b)| *b > 8 * 1024) {
        line.push_str(
            "; --compact writes a shorter form for the model and still enforces the full schema",
        );
    }
    line
}

fn kb(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else {
        format!("{:.1} KB", n as f64 / 1024.0)
    }
}

/// Rewrites `t` in the compact form: the model sees the trimmed description and the
/// summarised schema; the full schema is kept to validate arguments.
pub fn compact(t: &mut Tool) {
    // How to page stays whole at the end, as the full description has it.
    let tail = t.paging.as_deref();
    let head = tail
        .and_then(|tail| t.description.strip_suffix(tail))
        .map_or(t.description.as_str(), str::trim_end);
    t.description = super::operations::with_tail(head, tail, TOOL_TEXT);
    let full = t.input_schema.clone();
    let short = summarise(&full, &full, 0);
    if short != full {
        t.full_input_schema = Some(full);
        t.input_schema = short;
    }
}

/// `s` (inside the document `root`) with `$ref`s inlined, descriptions trimmed and
/// everything nested deeper than [`KEEP_DEPTH`] properties replaced by a summary.
fn summarise(root: &Value, s: &Value, depth: usize) -> Value {
    let Value::Object(m) = s else {
        return s.clone();
    };
    if let Some(target) = m
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
    {
        return summarise(root, target, depth);
    }
    if depth > KEEP_DEPTH {
        return summary(root, s);
    }
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "$defs" | "$ref" | "title" | "examples" => {}
            "description" => {
                if let Some(d) = v.as_str() {
                    out.insert(k.clone(), json!(cut(d, FIELD_TEXT)));
                }
            }
            "properties" | "patternProperties" => {
                let props: Map<String, Value> = v
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(n, ps)| (n.clone(), summarise(root, ps, depth + 1)))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Object(props));
            }
            "items" | "additionalProperties" | "not" => {
                out.insert(k.clone(), summarise(root, v, depth + 1));
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                let parts: Vec<Value> = v
                    .as_array()
                    .map(|a| a.iter().map(|b| summarise(root, b, depth + 1)).collect())
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Array(parts));
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// A deep schema in a few words: its type, and for an object its field names.
fn summary(root: &Value, s: &Value) -> Value {
    let resolved = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
        .unwrap_or(s);
    let mut out = Map::new();
    if let Some(t) = resolved.get("type") {
        out.insert("type".into(), t.clone());
    }
    if let Some(e) = resolved.get("enum") {
        out.insert("enum".into(), e.clone());
    }
    let fields: Vec<&str> = resolved
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).take(12).collect())
        .unwrap_or_default();
    let text = if fields.is_empty() {
        "Nested value; the full schema is checked when the tool is called.".to_string()
    } else {
        format!(
            "Object with fields {}; the full schema is checked when the tool is called.",
            fields.join(", ")
        )
    };
    out.insert("description".into(), json!(text));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(schema: &Value, v: &Value) -> bool {
        jsonschema::draft202012::new(schema).unwrap().is_valid(v)
    }

    #[test]
    fn the_compact_form_summarises_deep_schemas_and_accepts_what_the_full_one_does() {
        let full = json!({"type": "object", "required": ["body"], "properties": {"body": {
            "type": "object", "description": "x ".repeat(200), "properties": {
                "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Deep"}}}}}},
            "$defs": {"Deep": {"type": "object", "required": ["z"], "properties": {
                "z": {"type": "string"}, "y": {"type": "object"}}}}});
        let short = summarise(&full, &full, 0);
        assert!(short.get("$defs").is_none(), "{short}");
        let deep = &short["properties"]["body"]["properties"]["a"]["properties"]["b"];
        assert_eq!(deep["type"], "object");
        assert!(
            deep["description"].as_str().unwrap().contains("z, y"),
            "{deep}"
        );
        assert!(
            short["properties"]["body"]["description"]
                .as_str()
                .unwrap()
                .len()
                < 120
        );
        assert!(short.to_string().len() < full.to_string().len());
        // Whatever the full schema accepts, the summary does too: the model is never
        // told less is allowed than toolgate enforces.
        let ok = json!({"body": {"a": {"b": {"z": "1"}}}});
        assert!(valid(&full, &ok) && valid(&short, &ok));
        let bad = json!({"body": {"a": {"b": {"y": {}}}}});
        assert!(!valid(&full, &bad) && valid(&short, &bad));
    }
}
