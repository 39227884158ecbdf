//! How a path parameter's list or object is written (OpenAPI 3's style table). A
//! template writes a list comma-separated and an object as JSON text, so only a scalar
//! and an unexploded list (`simple` `a,b`, `label` `.a,b`, `matrix` `;x=a,b`) come out
//! right as they are. The others are asked of the model in a shape the template can
//! send exactly: one argument per member or item, with the style's separators written
//! as literal path text (a value's own `,` or `=` is percent-encoded, so only literal
//! text keeps them as the table shows), or, failing that, text already joined.

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
    /// item, which a template writes once. With `minItems` above one, that many items
    /// are arguments of their own (`;x={x_1};x={x_2}`); otherwise one item is sent.
    Items(u64),
    /// An object whose members the schema names: each member is an argument of its own,
    /// written between the style's literal separators (`.R,{R},G,{G}`, `;R={R};G={G}`).
    Members(Vec<String>, MemberLayout),
    /// Nothing the template can write matches the description.
    Unsendable(String),
}

/// How an object's members are laid out in the path, after the style table:
/// `lead` + each `member{joiner}value`, the members separated by `between`.
#[derive(Debug, PartialEq, Eq)]
pub struct MemberLayout {
    /// Before the first member: ``, `.`, `;` or `;name=`.
    pub lead: String,
    /// Between a member's name and its value: `,` or `=`.
    pub joiner: &'static str,
    /// Between members: `,`, `.` or `;`.
    pub between: &'static str,
}

impl MemberLayout {
    /// The path text for `members`, each written by `value_of(member)`.
    pub fn write(&self, members: &[(String, String)]) -> String {
        let written: Vec<String> = members
            .iter()
            .map(|(member, value)| format!("{member}{}{value}", self.joiner))
            .collect();
        format!("{}{}", self.lead, written.join(self.between))
    }
}

/// The most items an exploded `matrix` list's `minItems` may ask for: each is an
/// argument of its own, and past a handful the tool is no longer one a model can fill.
pub const MOST_MATRIX_ITEMS: u64 = 8;

/// The style of path parameter `p` whose schema (resolved) is `schema`.
pub fn of(p: &Value, schema: &Value, dialect: Dialect) -> PathStyle {
    if dialect == Dialect::Swagger2 {
        // `pipes`, `ssv` and `tsv` separate the items by what a template never writes
        // between them: the model joins them. `csv` (the default) is the template's
        // own comma.
        return match super::list_format::swagger_separator(p) {
            Some(separator) if super::list_format::is_list(schema) => PathStyle::Text(format!(
                "Several values are written as one text, separated by {separator}."
            )),
            _ => PathStyle::AsIs,
        };
    }
    if p.get("content").is_some() {
        return PathStyle::AsIs;
    }
    let kind = super::list_format::single_type(schema);
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
        ("matrix", true, true) => {
            let least = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            if least > MOST_MATRIX_ITEMS {
                PathStyle::Unsendable(format!(
                    "it is an exploded `matrix` list (`;name=a;name=b`) of at least {least} items, each of which would be an argument of its own (at most {MOST_MATRIX_ITEMS})"
                ))
            } else {
                PathStyle::Items(least.max(1))
            }
        }
        (_, false, _) if matches!(style, "simple" | "label" | "matrix") => {
            let name = p.get("name").and_then(Value::as_str).unwrap_or("");
            let named = members();
            // A member's name is written into the path as it is: only names a path
            // segment keeps literally (and no template brace) can be.
            let usable = !named.is_empty()
                && named.iter().all(|m| {
                    !m.is_empty()
                        && m.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                });
            let (lead, joiner, between) = match (style, explode) {
                ("simple", false) => (String::new(), ",", ","),
                ("simple", true) => (String::new(), "=", ","),
                ("label", false) => (".".to_string(), ",", ","),
                ("label", true) => (".".to_string(), "=", "."),
                ("matrix", false) => (format!(";{name}="), ",", ","),
                _ => (";".to_string(), "=", ";"),
            };
            if usable {
                PathStyle::Members(
                    named,
                    MemberLayout {
                        lead,
                        joiner,
                        between,
                    },
                )
            } else if style == "matrix" && explode {
                PathStyle::Unsendable(
                    "it is an exploded `matrix` object whose members the schema does not name (each is written `;name=value`)".into(),
                )
            } else {
                PathStyle::Text(pairs(between, joiner))
            }
        }
        // A style no path parameter has (`form`): read as the default, `simple`.
        _ => PathStyle::AsIs,
    }
}

#[cfg(test)]
mod tests;
