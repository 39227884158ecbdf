//! How a path parameter's list or object is written (OpenAPI 3's style table). A
//! template writes a list comma-separated and an object as JSON text, so only a scalar
//! and an unexploded list (`simple` `a,b`, `label` `.a,b`, `matrix` `;x=a,b`) come out
//! right as they are. The others are asked of the model in a shape the template can
//! send exactly: text already joined, one value, or one argument per member.

use serde_json::Value;

use super::schema::Dialect;

/// How a path parameter is sent.
#[derive(Debug, PartialEq, Eq)]
pub enum PathStyle {
    /// `{arg}` as it is: a scalar, or a list the way a template joins it (commas).
    AsIs,
    /// The model writes the value as one text in the serialisation the description
    /// names (`a.b` for an exploded `label` list, `R,100,G,200` for an object), said in
    /// the argument's description.
    Text(String),
    /// An exploded `matrix` list (`;x=a;x=b`): the parameter's name stands before every
    /// item, which a template writes once, so one item is sent (`;x=a`).
    OneItem,
    /// An exploded `matrix` object (`;R=100;G=200`): each member the schema names is an
    /// argument of its own, written `;member={arg}`.
    Members(Vec<String>),
    /// Nothing the template can write matches the description.
    Unsendable(String),
}

/// The style of path parameter `p` whose schema (resolved) is `schema`.
pub fn of(p: &Value, schema: &Value, dialect: Dialect) -> PathStyle {
    if dialect == Dialect::Swagger2 || p.get("content").is_some() {
        return PathStyle::AsIs;
    }
    let kind = schema.get("type").and_then(Value::as_str);
    let list = kind == Some("array") || schema.get("items").is_some();
    let object = !list && (kind == Some("object") || schema.get("properties").is_some());
    if !list && !object {
        return PathStyle::AsIs;
    }
    let style = p.get("style").and_then(Value::as_str).unwrap_or("simple");
    let explode = p.get("explode").and_then(Value::as_bool).unwrap_or(false);
    let members = || {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let pairs = |between: &str, joiner: &str| {
        let named = members();
        let example = if named.is_empty() {
            format!("name{joiner}value{between}name{joiner}value")
        } else {
            named
                .iter()
                .take(2)
                .map(|m| format!("{m}{joiner}…"))
                .collect::<Vec<_>>()
                .join(between)
        };
        format!(
            "An object written as one text: each member's name and value joined by `{joiner}`, the members separated by `{between}` (`{example}`)."
        )
    };
    match (style, list, explode) {
        (_, true, false) if matches!(style, "simple" | "label" | "matrix") => PathStyle::AsIs,
        ("simple", true, true) => PathStyle::AsIs,
        ("label", true, true) => PathStyle::Text(
            "Several values are written as one text, separated by `.` (`a.b`).".into(),
        ),
        ("matrix", true, true) => PathStyle::OneItem,
        ("simple" | "label" | "matrix", false, false) => PathStyle::Text(pairs(",", ",")),
        ("simple", false, true) => PathStyle::Text(pairs(",", "=")),
        ("label", false, true) => PathStyle::Text(pairs(".", "=")),
        ("matrix", false, true) => {
            let named = members();
            let usable = !named.is_empty()
                && named.iter().all(|m| {
                    !m.is_empty()
                        && m.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                });
            if usable {
                PathStyle::Members(named)
            } else {
                PathStyle::Unsendable(
                    "it is an exploded `matrix` object whose members the schema does not name (each is written `;name=value`)".into(),
                )
            }
        }
        // A style no path parameter has (`form`): read as the default, `simple`.
        _ => PathStyle::AsIs,
    }
}

#[cfg(test)]
mod tests;
