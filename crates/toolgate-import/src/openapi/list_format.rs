//! How a list's items are separated where a request template writes them. A template
//! joins a list with commas, or repeats its parameter; a description may name another
//! separator (Swagger 2.0's `collectionFormat: pipes`, `ssv`, `tsv`; OpenAPI 3's
//! `pipeDelimited` and `spaceDelimited` form fields), which the model then writes as one
//! text already joined. A header writes its list comma-joined with no escape for an
//! item's own comma, so an item is held to none: `a` and `b,c` would reach the server
//! as three items.

use serde_json::{Value, json};

/// A header list item: anything but a comma, which would split it into two.
pub const NO_COMMA: &str = "^[^,]*$";

/// The separator a Swagger 2.0 `collectionFormat` names that is not a comma and not the
/// parameter repeated, in words for the model: `|`, a space, a tab. `None` for `csv`
/// (the default), `multi`, or none.
pub fn swagger_separator(p: &Value) -> Option<&'static str> {
    match p.get("collectionFormat").and_then(Value::as_str)? {
        "pipes" => Some("`|`"),
        "ssv" => Some("a space"),
        "tsv" => Some("a tab"),
        _ => None,
    }
}

/// The separator an OpenAPI 3 `pipeDelimited` or `spaceDelimited` style names.
pub fn style_separator(style: &str) -> Option<&'static str> {
    match style {
        "pipeDelimited" => Some("`|`"),
        "spaceDelimited" => Some("a space"),
        _ => None,
    }
}

/// Makes `schema` one text the model writes with the items joined by `separator`
/// (as [`swagger_separator`] words it), keeping the parameter's own description.
pub fn as_joined_text(schema: &mut Value, separator: &str) {
    let described = schema
        .get("description")
        .and_then(Value::as_str)
        .map(|d| format!("{d} "))
        .unwrap_or_default();
    *schema = json!({
        "type": "string",
        "description": format!("{described}Several values are written as one text, separated by {separator}."),
    });
}

/// The one type `schema` names: `type: array`, or OpenAPI 3.1's `type: [array, "null"]`,
/// whose `null` says only that the value may be empty, so it is styled as the other
/// type (an object's members spread, a list's items joined). `None` without a type, or
/// with more than one beside `null`.
pub fn single_type(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(ts) => {
            let mut named = ts.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            let first = named.next()?;
            named.next().is_none().then_some(first)
        }
        _ => None,
    }
}

/// Whether an inline schema is a list's (`type: array`, or `items` without a type).
pub fn is_list(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => schema.get("items").is_some(),
    }
}

/// `schema` (a list's, written comma-joined in a header) with each item held to
/// [`NO_COMMA`]. Inline items take the pattern themselves; items that already have a
/// pattern, or a list named by `$ref`, are held through `allOf`, which leaves what the
/// schema says as it is.
pub fn items_without_commas(schema: Value) -> Value {
    match schema {
        Value::Object(mut m) if !m.contains_key("$ref") => {
            let items = m.remove("items").unwrap_or_else(|| json!({}));
            let held = match items {
                Value::Object(mut i) if !i.contains_key("pattern") && !i.contains_key("$ref") => {
                    i.insert("pattern".into(), json!(NO_COMMA));
                    Value::Object(i)
                }
                other => json!({"allOf": [other, {"pattern": NO_COMMA}]}),
            };
            m.insert("items".into(), held);
            Value::Object(m)
        }
        other => json!({"allOf": [other, {"items": {"pattern": NO_COMMA}}]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_list_item_cannot_hold_the_comma_that_separates_items() {
        let inline = items_without_commas(json!({"type": "array", "items": {"type": "string"}}));
        let patterned = items_without_commas(
            json!({"type": "array", "items": {"type": "string", "pattern": "^[a-z,]+$"}}),
        );
        let by_ref = json!({"$defs": {"ids": {"type": "array", "items": {"type": "string"}}},
            "allOf": [items_without_commas(json!({"$ref": "#/$defs/ids"}))]});
        for schema in [inline, patterned, by_ref] {
            let v = jsonschema::validator_for(&schema).unwrap();
            assert!(v.is_valid(&json!(["a", "bc"])), "{schema}");
            assert!(!v.is_valid(&json!(["a", "b,c"])), "{schema}");
        }
    }

    #[test]
    fn only_separators_a_template_does_not_write_are_joined_by_the_model() {
        assert_eq!(
            swagger_separator(&json!({"collectionFormat": "pipes"})),
            Some("`|`")
        );
        assert_eq!(
            swagger_separator(&json!({"collectionFormat": "tsv"})),
            Some("a tab")
        );
        for written in [
            json!({}),
            json!({"collectionFormat": "csv"}),
            json!({"collectionFormat": "multi"}),
        ] {
            assert_eq!(swagger_separator(&written), None, "{written}");
        }
    }
}
