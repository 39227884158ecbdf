//! Which members of a schema object hold schemas. The walkers that look for `$ref`s or
//! `required` lists pass over the data keywords, whose values are instances (a `$ref`
//! key in an `enum` value is text), and must read the keywords that map names to
//! schemas (`properties`, `$defs`, …) as such: their keys are names, so a property
//! called `default` or `enum` is a schema like any other, never the keyword.

use serde_json::Value;

/// `const`, `enum`, `default`, `example` and `examples`: values, not schemas.
pub(crate) fn holds_data(keyword: &str) -> bool {
    matches!(
        keyword,
        "const" | "enum" | "default" | "example" | "examples"
    )
}

/// Keywords whose value maps names (not keywords) to schemas.
pub(crate) fn maps_names(keyword: &str) -> bool {
    matches!(
        keyword,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// The values under the schema object `m` that may hold schemas: each keyword's value
/// but the data ones', and of a keyword mapping names to schemas each schema.
pub(crate) fn subschemas(m: &serde_json::Map<String, Value>) -> Vec<&Value> {
    let mut out = Vec::new();
    for (k, c) in m {
        match c {
            _ if holds_data(k) => {}
            Value::Object(named) if maps_names(k) => out.extend(named.values()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_property_named_like_a_keyword_is_a_schema() {
        let s = json!({
            "type": "object",
            "default": {"$ref": "data"},
            "properties": {"default": {"$ref": "a"}, "enum": {"$ref": "b"}},
            "$defs": {"examples": {"$ref": "c"}},
        });
        let refs: Vec<&str> = subschemas(s.as_object().unwrap())
            .into_iter()
            .filter_map(|v| v.get("$ref").and_then(Value::as_str))
            .collect();
        assert_eq!(refs, ["a", "b", "c"]);
    }
}
