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
            if let Some(sample) = m
                .get("pattern")
                .and_then(Value::as_str)
                .and_then(sample_pattern)
            {
                return Value::String(sample);
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
            match m
                .get("multipleOf")
                .and_then(Value::as_i64)
                .filter(|k| *k > 0)
            {
                Some(k) => json!((lo + k - 1).div_euclid(k).max(1) * k),
                None => json!(lo),
            }
        }
        Some("number") => {
            let lo = m.get("minimum").and_then(Value::as_f64).unwrap_or(1.0);
            match m
                .get("multipleOf")
                .and_then(Value::as_f64)
                .filter(|k| *k > 0.0)
            {
                Some(k) => json!((lo / k).ceil().max(1.0) * k),
                None => json!(lo),
            }
        }
        Some("boolean") => json!(true),
        Some("null") => Value::Null,
        _ => Value::Null,
    }
}

/// A string matching the simple regular expressions specs use for identifiers
/// (`^[CGD][A-Z0-9]{8,}$`, `^(0|[1-9][0-9]*)$`, `^\d{10}\.\d{6}$`): the first choice of
/// every class and alternation, each quantifier at its minimum (at least once for `+`).
/// `None` for anything it does not understand.
pub fn sample_pattern(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    sample_seq(&chars, &mut i, &mut out, 0)?;
    (i == chars.len()).then_some(out)
}

fn sample_seq(c: &[char], i: &mut usize, out: &mut String, depth: usize) -> Option<()> {
    if depth > 8 {
        return None;
    }
    while *i < c.len() {
        let atom: String = match c[*i] {
            '^' | '$' => {
                *i += 1;
                continue;
            }
            ')' => return Some(()),
            '|' => {
                // The first alternative is taken: skip the rest of this group.
                let mut level = 0;
                while *i < c.len() {
                    match c[*i] {
                        '(' => level += 1,
                        ')' if level == 0 => return Some(()),
                        ')' => level -= 1,
                        '\\' => *i += 1,
                        _ => {}
                    }
                    *i += 1;
                }
                return Some(());
            }
            '(' => {
                *i += 1;
                if c.get(*i) == Some(&'?') {
                    *i += 1;
                    if c.get(*i) == Some(&':') {
                        *i += 1;
                    } else {
                        return None;
                    }
                }
                let mut inner = String::new();
                sample_seq(c, i, &mut inner, depth + 1)?;
                if c.get(*i) != Some(&')') {
                    return None;
                }
                *i += 1;
                inner
            }
            '[' => {
                *i += 1;
                if c.get(*i) == Some(&'^') {
                    return None;
                }
                let first = match c.get(*i)? {
                    '\\' => {
                        *i += 1;
                        escape(*c.get(*i)?)?
                    }
                    ch => *ch,
                };
                while *i < c.len() && c[*i] != ']' {
                    if c[*i] == '\\' {
                        *i += 1;
                    }
                    *i += 1;
                }
                *i += 1;
                first.to_string()
            }
            '\\' => {
                *i += 1;
                let e = escape(*c.get(*i)?)?;
                *i += 1;
                e.to_string()
            }
            '.' => {
                *i += 1;
                "a".to_string()
            }
            '*' | '+' | '?' | '{' => return None,
            ch => {
                *i += 1;
                ch.to_string()
            }
        };
        let times = quantifier(c, i)?;
        for _ in 0..times {
            out.push_str(&atom);
        }
    }
    Some(())
}

fn escape(e: char) -> Option<char> {
    Some(match e {
        'd' => '0',
        'w' => 'a',
        's' => ' ',
        'D' | 'W' | 'S' => 'a',
        'b' | 'B' => return None,
        other => other,
    })
}

/// How many times to repeat the atom just read.
fn quantifier(c: &[char], i: &mut usize) -> Option<usize> {
    let n = match c.get(*i) {
        Some('*') | Some('?') => {
            *i += 1;
            0
        }
        Some('+') => {
            *i += 1;
            1
        }
        Some('{') => {
            let end = c[*i..].iter().position(|x| *x == '}')? + *i;
            let body: String = c[*i + 1..end].iter().collect();
            *i = end + 1;
            body.split(',').next()?.trim().parse().ok()?
        }
        _ => return Some(1),
    };
    // A lazy or possessive marker changes nothing about the minimum.
    if matches!(c.get(*i), Some('?') | Some('+')) {
        *i += 1;
    }
    Some(n.min(64))
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

    #[test]
    fn pattern_samples_match_their_pattern() {
        for p in [
            r"^[CGD][A-Z0-9]{8,}$",
            r"^(0|[1-9][0-9]*)$",
            r"^\d{10}\.\d{6}$",
            r"^B[A-Z0-9]{8,}$",
            r"^[T][A-Z0-9]{2,}$",
            r"^(?:[a-z]+-)?v\d+$",
            r"^#?[0-9a-f]{6}$",
        ] {
            let s = sample_pattern(p).unwrap_or_else(|| panic!("no sample for {p}"));
            let schema = json!({"type": "string", "pattern": p});
            assert!(
                jsonschema::draft202012::is_valid(&schema, &json!(s)),
                "{p}: {s}"
            );
        }
        assert_eq!(sample_pattern(r"^[^a]+$"), None);
        let v = generate(&json!({"type": "integer", "minimum": 5, "multipleOf": 8}));
        assert_eq!(v, 8);
    }
}
