//! An example instance of a JSON Schema: every declared property, one array item, the
//! first alternative. Used to compare contracts on re-import (an example of the new
//! contract checked against the old one gives the runtime drift diff) and to stand in
//! for an upstream answer where the spec gives none.

use serde_json::{Map, Value, json};

/// Depth beyond which only required properties are generated, and then nothing.
const FULL_DEPTH: usize = 8;
const MAX_DEPTH: usize = 16;

/// An instance of `root` (a document whose `$ref`s point into its own `$defs`).
pub fn generate(root: &Value) -> Value {
    gen_at(root, root, 0)
}

fn gen_at(root: &Value, s: &Value, depth: usize) -> Value {
    let Value::Object(m) = s else {
        return Value::Null;
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
        let target = r.strip_prefix('#').and_then(|p| root.pointer(p));
        let base = target
            .map(|t| gen_at(root, t, depth + 1))
            .unwrap_or(Value::Null);
        let rest: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| *k != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        return if rest.is_empty() {
            base
        } else {
            merge(base, gen_at(root, &Value::Object(rest), depth + 1))
        };
    }
    if let Some(c) = m.get("const") {
        return c.clone();
    }
    if let Some(e) = m
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.iter().find(|v| !v.is_null()).or(e.first()))
    {
        return e.clone();
    }
    if let Some(Value::Array(all)) = m.get("allOf") {
        let mut v = Value::Null;
        for b in all {
            v = merge(v, gen_at(root, b, depth + 1));
        }
        let rest = without(m, &["allOf"]);
        return merge(v, gen_at(root, &rest, depth + 1));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alts)) = m.get(key) {
            let first = alts
                .iter()
                .find(|a| a.get("type") != Some(&json!("null")))
                .or(alts.first());
            let v = first
                .map(|a| gen_at(root, a, depth + 1))
                .unwrap_or(Value::Null);
            let rest = without(m, &[key]);
            return merge(v, gen_at(root, &rest, depth + 1));
        }
    }
    let ty = match m.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ if m.contains_key("properties") => Some("object"),
        _ if m.contains_key("items") => Some("array"),
        _ => None,
    };
    match ty {
        Some("object") => {
            let required: Vec<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(Value::Object(props)) = m.get("properties") {
                for (k, p) in props {
                    if depth < FULL_DEPTH || required.contains(&k.as_str()) {
                        out.insert(k.clone(), gen_at(root, p, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        Some("array") => {
            let min = m
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            match m.get("items") {
                Some(i) if depth < MAX_DEPTH => Value::Array(
                    (0..min.min(3))
                        .map(|_| gen_at(root, i, depth + 1))
                        .collect(),
                ),
                _ => json!([]),
            }
        }
        Some("string") => {
            if let Some(d) = m.get("default").filter(|d| d.is_string()) {
                return d.clone();
            }
            let text = match m.get("format").and_then(Value::as_str) {
                Some("date-time") => "2024-01-02T03:04:05Z",
                Some("date") => "2024-01-02",
                Some("uri" | "url") => "https://example.com/x",
                Some("email") => "someone@example.com",
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
                Some("ipv4") => "192.0.2.1",
                _ => "example",
            };
            let min = m.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = m
                .get("maxLength")
                .and_then(Value::as_u64)
                .map(|n| n as usize);
            let mut s = text.to_string();
            while s.len() < min {
                s.push('x');
            }
            if let Some(max) = max {
                s.truncate(max);
            }
            Value::String(s)
        }
        Some("integer") => {
            let lo = m.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            let lo = m
                .get("exclusiveMinimum")
                .and_then(Value::as_i64)
                .map(|x| x + 1)
                .unwrap_or(lo);
            json!(
                lo.max(
                    m.get("maximum")
                        .and_then(Value::as_i64)
                        .map(|_| lo)
                        .unwrap_or(lo)
                )
            )
        }
        Some("number") => json!(m.get("minimum").and_then(Value::as_f64).unwrap_or(1.5)),
        Some("boolean") => json!(true),
        Some("null") => Value::Null,
        _ => Value::Null,
    }
}

fn without(m: &Map<String, Value>, keys: &[&str]) -> Value {
    Value::Object(
        m.iter()
            .filter(|(k, _)| {
                !keys.contains(&k.as_str()) && !matches!(k.as_str(), "$defs" | "$schema")
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        (Value::Null, b) => b,
        (a, Value::Null) => a,
        (_, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_validate_against_their_schema() {
        let schema = json!({
            "type": "object", "required": ["id", "kind"],
            "properties": {
                "id": {"type": "integer", "minimum": 3},
                "kind": {"enum": ["a", "b"]},
                "when": {"type": ["string", "null"], "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 10}},
                "child": {"$ref": "#/$defs/Node"},
                "either": {"anyOf": [{"type": "null"}, {"type": "boolean"}]}
            },
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
        });
        let v = generate(&schema);
        assert!(jsonschema::draft202012::is_valid(&schema, &v), "{v}");
        assert_eq!(v["id"], 3);
        assert_eq!(v["either"], true);
    }
}
