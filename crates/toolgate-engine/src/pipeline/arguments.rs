//! Arguments as agent frameworks send them. Some fill every optional argument the model
//! left out with `null` (crewai-tools' MCP adapter and mcp-use do); a schema that does
//! not accept `null` there would refuse an ordinary call before it reached the upstream.
//! A `null` at a property that is not required and whose schema surely refuses `null`
//! means "left out": it is removed before the arguments are checked and sent. Everything
//! else is left as it came — a `null` the schema accepts is data, and a required
//! property's `null` is still refused with the schema's own words.

use serde_json::{Map, Value};

/// Nested objects followed at most this deep: arguments are small, and a schema that
/// refers to itself must not send the walk round forever.
pub(super) const MAX_DEPTH: usize = 16;

/// Removes the `null`s that stand for a left-out optional property, at the top level
/// and inside nested objects the schema describes. Returns the removed paths
/// (`/limit`, `/filter/since`), for the log.
pub fn drop_null_optionals(
    schema: &Map<String, Value>,
    args: &mut Map<String, Value>,
) -> Vec<String> {
    let mut dropped = Vec::new();
    // Most calls carry no `null` at all: nothing to walk.
    if args.values().any(has_null) {
        walk(schema, schema, args, "", 0, &mut dropped);
    }
    dropped
}

fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(m) => m.values().any(has_null),
        _ => false,
    }
}

fn walk(
    root: &Map<String, Value>,
    schema: &Map<String, Value>,
    args: &mut Map<String, Value>,
    at: &str,
    depth: usize,
    dropped: &mut Vec<String>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(root, schema, 0).unwrap_or(schema);
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)))
    };
    args.retain(|name, value| {
        let drop = value.is_null()
            && !required(name)
            && properties
                .get(name)
                .is_some_and(|property| refuses_null(root, property, 0));
        if drop {
            dropped.push(format!("{at}/{name}"));
        }
        !drop
    });
    for (name, value) in args.iter_mut() {
        if let (Value::Object(nested), Some(Value::Object(property))) =
            (value, properties.get(name))
        {
            walk(
                root,
                property,
                nested,
                &format!("{at}/{name}"),
                depth + 1,
                dropped,
            );
        }
    }
}

/// Whether `schema` surely refuses `null`. Unsure (an unresolvable `$ref`, a keyword
/// not read here) counts as accepting it, so such a `null` is left for the validator.
fn refuses_null(root: &Map<String, Value>, schema: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let schema = match schema {
        Value::Bool(accepts) => return !accepts,
        Value::Object(m) => m,
        _ => return false,
    };
    if schema.contains_key("$ref") {
        return match resolve(root, schema, depth) {
            Some(target) if !std::ptr::eq(target, schema) => {
                refuses_null(root, &Value::Object(target.clone()), depth + 1)
            }
            _ => false,
        };
    }
    // OpenAPI 3.0's spelling.
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        return false;
    }
    let by_type = match schema.get("type") {
        Some(Value::String(t)) => t != "null",
        Some(Value::Array(types)) => !types.iter().any(|t| t == "null"),
        _ => false,
    };
    let by_const = schema.get("const").is_some_and(|c| !c.is_null());
    let by_enum = schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.iter().any(Value::is_null));
    let every = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                !branches.is_empty() && branches.iter().all(|b| refuses_null(root, b, depth + 1))
            })
    };
    let by_all_of = schema
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|branches| branches.iter().any(|b| refuses_null(root, b, depth + 1)));
    by_type || by_const || by_enum || every("anyOf") || every("oneOf") || by_all_of
}

/// The schema a local `$ref` (`#/$defs/x`, `#/definitions/x`) points at; `schema`
/// itself when it has no `$ref`; `None` when the reference cannot be followed here.
pub(super) fn resolve<'a>(
    root: &'a Map<String, Value>,
    schema: &'a Map<String, Value>,
    depth: usize,
) -> Option<&'a Map<String, Value>> {
    let Some(reference) = schema.get("$ref") else {
        return Some(schema);
    };
    if depth > MAX_DEPTH {
        return None;
    }
    let pointer = reference.as_str()?.strip_prefix('#')?;
    let target = if pointer.is_empty() {
        root
    } else {
        let mut at = root.get(pointer.strip_prefix('/')?.split('/').next()?)?;
        for part in pointer.split('/').skip(2) {
            let part = part.replace("~1", "/").replace("~0", "~");
            at = at.get(&part)?;
        }
        at.as_object()?
    };
    resolve(root, target, depth + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value, args: Value) -> (Value, Vec<String>) {
        let schema = schema.as_object().unwrap().clone();
        let mut args = args.as_object().unwrap().clone();
        let dropped = drop_null_optionals(&schema, &mut args);
        (Value::Object(args), dropped)
    }

    #[test]
    fn a_null_for_an_optional_property_that_refuses_null_is_left_out() {
        let schema = json!({
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": { "type": "string" },
                "limit": { "type": "integer" },
                "lang": { "enum": ["en", "de"] },
                "mode": { "anyOf": [{ "type": "string" }, { "type": "integer" }] },
            }
        });
        let (args, dropped) = run(
            schema,
            json!({ "query": "rust", "limit": null, "lang": null, "mode": null }),
        );
        assert_eq!(args, json!({ "query": "rust" }));
        assert_eq!(dropped, ["/limit", "/lang", "/mode"]);
    }

    #[test]
    fn a_null_the_schema_accepts_or_a_required_one_stays() {
        let schema = json!({
            "type": "object",
            "required": ["must"],
            "properties": {
                "must": { "type": "string" },
                "nullable_union": { "type": ["string", "null"] },
                "oas30": { "type": "string", "nullable": true },
                "any": {},
                "branch": { "oneOf": [{ "type": "string" }, { "type": "null" }] },
                "in_enum": { "enum": ["a", null] },
            }
        });
        let args = json!({
            "must": null, "nullable_union": null, "oas30": null, "any": null,
            "branch": null, "in_enum": null, "undeclared": null
        });
        let (after, dropped) = run(schema, args.clone());
        assert_eq!(after, args, "nothing the schema accepts is removed");
        assert!(dropped.is_empty());
    }

    #[test]
    fn nested_objects_and_local_refs_are_followed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "filter": { "$ref": "#/$defs/Filter" },
                "page": { "$ref": "#/definitions/Page" },
            },
            "$defs": {
                "Filter": {
                    "type": "object",
                    "properties": { "since": { "type": "string", "format": "date" } }
                }
            },
            "definitions": { "Page": { "type": "integer" } }
        });
        let (args, dropped) = run(
            schema,
            json!({ "filter": { "since": null, "kept": 1 }, "page": null }),
        );
        assert_eq!(args, json!({ "filter": { "kept": 1 } }));
        assert_eq!(dropped, ["/page", "/filter/since"]);
    }

    #[test]
    fn a_self_referring_schema_ends() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": { "Node": { "$ref": "#/$defs/Node" } }
        });
        let (args, _) = run(schema, json!({ "x": null }));
        assert_eq!(args, json!({ "x": null }));
    }
}
