//! Keyword values a description copies into a schema, held to the shapes the JSON
//! Schema 2020-12 meta-schema requires. Descriptions get them wrong (`type: {…}` where a
//! property named `type` was meant, `required: true` from Swagger 1.2, `minLength:
//! "5"`); copied as they are, the schema fails the meta-schema, and with it the shared
//! set or the tool that holds it. A malformed keyword is left out instead: the schema
//! is then looser there, never wrong.

use serde_json::Value;

/// The types `type` may name.
const SIMPLE_TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// `value` as keyword `key` of a 2020-12 schema, repaired where that is unambiguous
/// (duplicates and unknown names dropped from `type` and `required` lists), or `None`
/// when it cannot be used at all.
pub fn conform(key: &str, value: &Value) -> Option<Value> {
    match key {
        "type" => match value {
            Value::String(t) if SIMPLE_TYPES.contains(&t.as_str()) => Some(value.clone()),
            Value::Array(list) => {
                let kept = unique_strings(list, |t| SIMPLE_TYPES.contains(&t));
                (!kept.is_empty()).then(|| Value::Array(kept))
            }
            _ => None,
        },
        "required" => match value {
            Value::Array(list) => {
                let kept = unique_strings(list, |_| true);
                (!kept.is_empty()).then(|| Value::Array(kept))
            }
            _ => None,
        },
        "enum" => value.is_array().then(|| value.clone()),
        "format" | "pattern" | "contentEncoding" | "contentMediaType" | "description" | "title" => {
            value.is_string().then(|| value.clone())
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => is_non_negative_integer(value).then(|| value.clone()),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            value.is_number().then(|| value.clone())
        }
        "multipleOf" => value
            .as_f64()
            .is_some_and(|n| n > 0.0)
            .then(|| value.clone()),
        "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => {
            value.is_boolean().then(|| value.clone())
        }
        "examples" => value.is_array().then(|| value.clone()),
        // `const`, `default` and anything else take any value.
        _ => Some(value.clone()),
    }
}

/// What a warning says about a keyword left out.
pub fn dropped(key: &str, value: &Value) -> String {
    let mut shown = value.to_string();
    if shown.len() > 60 {
        let mut cut = 57;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
        shown.push('…');
    }
    format!("a schema's `{key}: {shown}` is not valid JSON Schema; it is left out")
}

/// Makes `schema` pass the 2020-12 meta-schema by leaving out each keyword the
/// meta-schema rejects, deepest first as the validator reports them: a net under
/// [`conform`] for shapes it does not know. Returns what was left out; a schema that
/// cannot be repaired becomes `true`.
pub fn repair(schema: &mut Value) -> Vec<String> {
    let mut notes = Vec::new();
    // Each round removes one member, so a schema of n members needs at most n rounds;
    // the bound only keeps a pathological one from taking long.
    for _ in 0..256 {
        let pointer = match jsonschema::draft202012::meta::validate(schema) {
            Ok(()) => return notes,
            Err(e) => e.instance_path().as_str().to_string(),
        };
        match remove_at(schema, &pointer) {
            Some((key, value)) => notes.push(dropped(&key, &value)),
            None => break,
        }
    }
    notes.push("a schema could not be made valid JSON Schema; it accepts anything instead".into());
    *schema = Value::Bool(true);
    notes
}

/// Removes what the JSON pointer `pointer` names from its parent object or array;
/// `None` for the root or a pointer to nothing.
fn remove_at(doc: &mut Value, pointer: &str) -> Option<(String, Value)> {
    let (parent, last) = pointer.rsplit_once('/')?;
    let key = last.replace("~1", "/").replace("~0", "~");
    match doc.pointer_mut(parent)? {
        Value::Object(m) => m.remove(&key).map(|v| (key, v)),
        Value::Array(a) => {
            let i: usize = key.parse().ok()?;
            (i < a.len()).then(|| (key, a.remove(i)))
        }
        _ => None,
    }
}

fn unique_strings(list: &[Value], keep: impl Fn(&str) -> bool) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for v in list {
        if let Value::String(s) = v
            && keep(s)
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    }
    out
}

/// A JSON Schema integer: `3` or `3.0`, not negative.
fn is_non_negative_integer(value: &Value) -> bool {
    value.is_u64() || value.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta_valid(key: &str, value: &Value) -> bool {
        jsonschema::draft202012::meta::is_valid(&json!({ key: value }))
    }

    #[test]
    fn what_conform_keeps_passes_the_meta_schema() {
        let values = [
            json!("string"),
            json!("file"),
            json!(["string", "null", "string", "nope", 3]),
            json!([]),
            json!({"type": "string", "enum": ["a"]}),
            json!(true),
            json!(null),
            json!(-1),
            json!(0),
            json!(2.0),
            json!(2.5),
            json!("5"),
            json!(["a", "a", 1]),
            json!(["x"]),
        ];
        for key in [
            "type",
            "required",
            "enum",
            "format",
            "pattern",
            "minLength",
            "maxItems",
            "minimum",
            "exclusiveMaximum",
            "multipleOf",
            "uniqueItems",
            "readOnly",
            "examples",
            "const",
            "default",
        ] {
            for v in &values {
                if let Some(kept) = conform(key, v) {
                    assert!(meta_valid(key, &kept), "{key}: {v} kept as {kept}");
                }
                if meta_valid(key, v) && key != "type" && key != "required" {
                    assert_eq!(conform(key, v).as_ref(), Some(v), "{key}: {v} is fine");
                }
            }
        }
        assert_eq!(
            conform("type", &json!(["string", "null", "string", "nope"])),
            Some(json!(["string", "null"]))
        );
        assert_eq!(conform("type", &json!({"type": "string"})), None);
        assert_eq!(conform("required", &json!(true)), None);
    }

    #[test]
    fn repair_leaves_out_what_the_meta_schema_rejects_and_keeps_the_rest() {
        let mut schema = json!({
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "string", "minLength": "5"},
                "b": {"$defs": 3, "items": {"maxItems": -1}},
            },
            "allOf": [7],
        });
        let notes = repair(&mut schema);
        assert!(jsonschema::draft202012::meta::is_valid(&schema), "{schema}");
        assert_eq!(schema["required"], json!(["a"]));
        assert_eq!(schema["properties"]["a"], json!({"type": "string"}));
        assert!(notes.iter().any(|n| n.contains("minLength")), "{notes:?}");
        let mut fine = json!({"type": "string"});
        assert!(repair(&mut fine).is_empty());
        assert_eq!(fine, json!({"type": "string"}));
    }
}
