//! A form-mode elicitation's `requestedSchema` held to the shape MCP gives it.
//!
//! The specification restricts a form to a flat object of primitive fields — strings
//! (with a format of email, URI, date or date-time), numbers, integers, booleans,
//! single-select enums and multi-select enums (an array of strings picked from a list)
//! — "to simplify client user experience" (2025-11-25 and later, "Elicitation",
//! requested schema: <https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation>).
//! A hostile server nests instead: an object field holding `password`, an array of
//! objects, `additionalProperties` asking for whatever the user types, a `$ref` to a
//! definition. A client may render such a form all the same, while toolgate's check of
//! what it asks for (`secret_form.rs`) reads its top-level fields only; so a form of
//! another shape is not relayed, whatever it asks. A field's `oneOf` (and a
//! multi-select's `anyOf`) is MCP's titled enum only when each choice is a `const`
//! value with its words; over schemas it nests like any other keyword.

use serde_json::{Map, Value};

/// Keywords that put a schema inside a field, or a field outside `properties`.
const NESTING: [&str; 16] = [
    "properties",
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "items",
    "prefixItems",
    "contains",
    "$ref",
    "$dynamicRef",
    "$defs",
    "definitions",
    "allOf",
    "not",
    "if",
];

/// Why `params` of a form-mode `elicitation/create` is not of the specification's
/// shape, when it is not; `None` for a flat form and for any other request.
pub(super) fn refusal(method: &str, params: Option<&Value>) -> Option<String> {
    let params = params?;
    if method != "elicitation/create" || params.get("mode").is_some_and(|m| m != "form") {
        return None;
    }
    let schema = params.get("requestedSchema")?;
    let Some(schema) = schema.as_object() else {
        return Some("its requestedSchema is not an object".to_owned());
    };
    if schema.get("type").is_some_and(|t| t != "object") {
        return Some("its requestedSchema is not of type object".to_owned());
    }
    for key in NESTING.iter().filter(|k| **k != "properties") {
        // `additionalProperties: false` closes the form; anything else opens it.
        if schema
            .get(*key)
            .is_some_and(|v| !(*key == "additionalProperties" && v == &Value::Bool(false)))
        {
            return Some(format!("its requestedSchema has `{key}`"));
        }
    }
    let properties = match schema.get("properties") {
        None => return None,
        Some(Value::Object(p)) => p,
        Some(_) => return Some("its requestedSchema's properties are not an object".to_owned()),
    };
    properties.iter().find_map(|(name, field)| {
        let shown = crate::explain::upstream_text(name, &Default::default(), 80);
        let why = match field.as_object() {
            None => Some("is not a schema".to_owned()),
            Some(field) => field_refusal(field),
        };
        why.map(|why| format!("its field `{shown}` {why}"))
    })
}

/// Why one field is not a primitive one, when it is not.
fn field_refusal(field: &Map<String, Value>) -> Option<String> {
    let kind = field.get("type").and_then(Value::as_str);
    if kind == Some("array") {
        // A multi-select enum: an array of strings picked from a list.
        let Some(items) = field.get("items").and_then(Value::as_object) else {
            return Some("is an array without a list of choices".to_owned());
        };
        let picks = items.get("type").is_some_and(|t| t == "string") || items.contains_key("anyOf");
        if !picks {
            return Some("is an array of something other than choices".to_owned());
        }
        if let Some(key) = nested(items, "") {
            return Some(format!("holds `{key}` in its items"));
        }
        if let Some(why) = choices_refusal(items) {
            return Some(format!("{why} in its items"));
        }
        return nested(field, "items").map(|key| format!("has `{key}`"));
    }
    match kind {
        Some("string" | "number" | "integer" | "boolean") => {}
        // A single-select enum may leave its type out; anything else must name one.
        None if field.contains_key("enum") || field.contains_key("oneOf") => {}
        Some(other) => {
            let shown = crate::explain::upstream_text(other, &Default::default(), 40);
            return Some(format!("is of type `{shown}`, not a primitive one"));
        }
        None => return Some("names no primitive type".to_owned()),
    }
    if let Some(why) = choices_refusal(field) {
        return Some(why);
    }
    nested(field, "").map(|key| format!("has `{key}`"))
}

/// What a choice of a titled enum may say: its value, and the words shown for it.
const CHOICE_KEYS: [&str; 3] = ["const", "title", "description"];

/// Why the `oneOf` or `anyOf` of `schema` is not a list of titled choices, when it is
/// not. MCP writes a titled single-select enum as `oneOf` and a titled multi-select's
/// items as `anyOf`, each choice a `const` value and its `title`; the same keywords over
/// schemas (an object of secrets, a `$ref`, a string described as an API key) ask for
/// whatever those schemas describe, which is no field of a flat form.
fn choices_refusal(schema: &Map<String, Value>) -> Option<String> {
    ["oneOf", "anyOf"].into_iter().find_map(|key| {
        let choices = schema.get(key)?;
        let Some(choices) = choices.as_array() else {
            return Some(format!("has a `{key}` that is not a list"));
        };
        if choices.iter().all(is_titled_choice) {
            None
        } else {
            Some(format!("has a `{key}` of schemas, not of titled values"))
        }
    })
}

/// `{"const": "s", "title": "Small"}`: a primitive value, and nothing but its words.
fn is_titled_choice(choice: &Value) -> bool {
    let Some(choice) = choice.as_object() else {
        return false;
    };
    let value_is_primitive = choice
        .get("const")
        .is_some_and(|c| c.is_string() || c.is_number() || c.is_boolean());
    value_is_primitive && choice.keys().all(|k| CHOICE_KEYS.contains(&k.as_str()))
}

/// The first nesting keyword `schema` has, but `allowed`.
fn nested(schema: &Map<String, Value>, allowed: &str) -> Option<&'static str> {
    NESTING
        .iter()
        .copied()
        .find(|k| *k != allowed && schema.contains_key(*k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(properties: Value) -> Value {
        json!({"message": "A few details", "requestedSchema": {"type": "object", "properties": properties}})
    }

    fn refused(params: &Value) -> Option<String> {
        refusal("elicitation/create", Some(params))
    }

    #[test]
    fn every_field_kind_of_the_specification_passes() {
        let flat = form(json!({
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "score": {"type": "number"},
            "ok": {"type": "boolean", "default": false},
            "colour": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2},
            "picks": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
        }));
        assert_eq!(refused(&flat), None);
        let mut closed = form(json!({"v": {"type": "string"}}));
        closed["requestedSchema"]["additionalProperties"] = json!(false);
        assert_eq!(refused(&closed), None);
        let url =
            json!({"mode": "url", "url": "https://e.com", "message": "m", "elicitationId": "e"});
        assert_eq!(refused(&url), None);
    }

    #[test]
    fn nested_and_open_forms_are_refused() {
        for params in [
            form(
                json!({"details": {"type": "object", "properties": {"password": {"type": "string"}}}}),
            ),
            form(json!({"details": {"properties": {"password": {"type": "string"}}}})),
            form(
                json!({"rows": {"type": "array", "items": {"type": "object", "properties": {"pin": {"type": "string"}}}}}),
            ),
            form(json!({"v": {"$ref": "#/$defs/secret"}})),
            form(json!({"v": {"type": "string", "allOf": [{"title": "API key"}]}})),
            form(json!({"v": {"type": "array"}})),
            form(json!({"v": {"type": "array", "items": {"type": "string"}, "$ref": "#/x"}})),
            form(json!({"v": "string"})),
            form(json!({"v": {"type": "null"}})),
            json!({"message": "m", "requestedSchema": {"type": "object", "properties": {},
                   "additionalProperties": {"type": "string", "description": "anything"}}}),
            json!({"message": "m", "requestedSchema": {"type": "object",
                   "patternProperties": {".*": {"type": "string"}}}}),
            json!({"message": "m", "requestedSchema": {"type": "array"}}),
            json!({"message": "m", "requestedSchema": "a form"}),
        ] {
            assert!(refused(&params).is_some(), "{params}");
        }
    }

    /// MCP's titled single-select enum is a `oneOf` (and its multi-select an `anyOf` in
    /// `items`) whose every choice is a `const` value with a `title`; the same keywords
    /// over schemas ask for anything a schema can describe, an object of secrets among
    /// them, and nothing of it is one of the form's fields.
    #[test]
    fn a_field_choosing_among_schemas_rather_than_titled_values_is_refused() {
        let object = json!({"type": "object", "properties": {"password": {"type": "string"}}});
        for field in [
            json!({"oneOf": [object.clone()]}),
            json!({"type": "string", "oneOf": [{"const": "s", "title": "S"}, object.clone()]}),
            json!({"type": "string", "oneOf": [{"$ref": "#/$defs/secret"}]}),
            json!({"type": "string", "oneOf": [{"type": "string", "description": "your API key"}]}),
            json!({"oneOf": [{"const": {"token": ""}, "title": "Token"}]}),
            json!({"oneOf": "s"}),
            json!({"type": "array", "items": {"anyOf": [object.clone()]}}),
            json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "X", "properties": {}}]}}),
            json!({"anyOf": [object]}),
        ] {
            assert!(refused(&form(json!({"v": field}))).is_some(), "{field}");
        }
        let titled = form(json!({
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "picks": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y"}]}},
        }));
        assert_eq!(refused(&titled), None);
    }
}
