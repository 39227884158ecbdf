//! An argument's value as text, as each part of a request writes it: a list's items
//! one by one, form-encoded for a query or form, comma-joined for a header, spread into
//! pairs when exploded. Shared by the query, the header and the form body, so each
//! writes a list the same way.

use serde_json::Value;

use super::request::RenderError;

/// An argument's text where a header is written: a list's items joined by commas.
pub(super) fn comma_joined(items: &[String]) -> Result<String, RenderError> {
    Ok(items.join(","))
}

/// `text` encoded as `application/x-www-form-urlencoded` writes a name or a value.
pub(super) fn form_encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A list in a query value or form field (OpenAPI's `form` style unexploded, Swagger
/// 2.0's `csv`): each item form-encoded, the commas between them literal, so a server
/// tells `a,b` (two items) from `a%2Cb` (one item holding a comma), as in a path.
pub(super) fn form_list(items: &[String]) -> String {
    items
        .iter()
        .map(|item| form_encoded(item))
        .collect::<Vec<_>>()
        .join(",")
}

/// Text form of an argument for a URL or header: strings as-is, numbers and booleans
/// printed, arrays joined by commas, objects as JSON; `null` counts as absent.
fn scalar_text(v: &Value) -> Option<String> {
    item_texts(v).map(|items| items.join(","))
}

/// The text of each item of a list argument (one item for anything else): the comma
/// between items is the list's separator (OpenAPI's `simple` and `form` styles, RFC
/// 6570's `{list}`), which a path writes literally while an item's own comma is
/// percent-encoded, so a server can tell `a,b` (two items) from `a%2Cb` (one).
pub(super) fn item_texts(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => Some(
            items
                .iter()
                .map(|item| match item {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
        ),
        other => Some(vec![other.to_string()]),
    }
}

/// The query pairs of an exploded argument (`{name*}`): a list is the parameter once per
/// item, an object one parameter per member (OpenAPI `style: form, explode: true`),
/// anything else the parameter once; absent or `null` is no parameter. A member that is
/// itself a list is exploded the same way, its name once per item (`status=a&status=b`):
/// joined into one value its commas would be encoded, and the server would read one
/// item holding commas.
pub(super) fn exploded<'a>(name: &'a str, value: Option<&'a Value>) -> Vec<(&'a str, String)> {
    let each = |key: &'a str, items: &'a [Value]| {
        items
            .iter()
            .filter_map(move |item| Some((key, scalar_text(item)?)))
    };
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => each(name, items).collect(),
        Some(Value::Object(members)) => members
            .iter()
            .flat_map(|(k, v)| match v {
                Value::Array(items) => each(k.as_str(), items).collect::<Vec<_>>(),
                other => scalar_text(other)
                    .map(|t| (k.as_str(), t))
                    .into_iter()
                    .collect(),
            })
            .collect(),
        Some(other) => scalar_text(other).map(|t| (name, t)).into_iter().collect(),
    }
}
