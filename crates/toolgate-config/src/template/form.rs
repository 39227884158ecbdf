//! A form body (`application/x-www-form-urlencoded`) from a rendered object: a form
//! field has no JSON types, so arrays and objects travel as the field's style says.

use std::collections::BTreeMap;

use serde_json::Value;

use super::argument_text::{form_encoded, form_list, value_text};
use super::parameter_names::{SpreadNames, members_read_alike, parameter_key};
use super::request::{FormStyle, RenderError};

/// `a=1&b=x+y`: each member of the rendered object a field, sent as its style says
/// (JSON text by default). An object spread into fields of its own (`repeat`) may not
/// name a field the body's `template` names, as a lenient server reads names: its
/// members come from the caller, the template's fields from the tool.
pub(super) fn form_body(
    template: &Value,
    rendered: &Value,
    styles: &BTreeMap<String, FormStyle>,
) -> Result<String, RenderError> {
    let mut out = FormPairs::default();
    let mut spread = SpreadNames::default();
    if let Value::Object(map) = rendered {
        for (k, v) in map {
            let style = styles.get(k).copied().unwrap_or(FormStyle::Json);
            match (style, v) {
                (FormStyle::Repeat, Value::Object(members)) => {
                    spread_names_own(template, k, members)?;
                    for member in members.keys() {
                        spread.add(k, member, "form fields")?;
                    }
                }
                (FormStyle::Brackets | FormStyle::Deep, Value::Object(_) | Value::Array(_)) => {
                    bracketed_names_hold(k, v)?;
                }
                _ => {}
            }
            form_field(&mut out, k, v, style);
        }
    }
    Ok(out.0.join("&"))
}

/// Refuses member names that would not reach a server as written inside `field[…]`: a
/// bracket in one moves its value elsewhere in the nesting a server reads
/// (`field[a]x[b]`), and two a case-insensitive binder reads as one leave it the one it
/// likes.
fn bracketed_names_hold(field: &str, value: &Value) -> Result<(), RenderError> {
    if let Some(name) = bracketed_name(value) {
        return Err(RenderError(format!(
            "the field `{field}` holds the member `{name}`, whose bracket would change where a server reads its value; name members without `[` or `]`"
        )));
    }
    if let Some((first, second)) = members_read_alike(value) {
        return Err(RenderError(format!(
            "the field `{field}` holds the members `{first}` and `{second}`, which a server may read as one; send each name once, in one spelling"
        )));
    }
    Ok(())
}

/// The first member name, at any depth, holding a `[` or a `]`.
fn bracketed_name(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) => map.iter().find_map(|(name, member)| {
            if name.contains(['[', ']']) {
                Some(name.as_str())
            } else {
                bracketed_name(member)
            }
        }),
        Value::Array(items) => items.iter().find_map(bracketed_name),
        _ => None,
    }
}

/// Refuses a member of the object spread from the field `spread` that a server may
/// read as another field of the body's template.
fn spread_names_own(
    template: &Value,
    spread: &str,
    members: &serde_json::Map<String, Value>,
) -> Result<(), RenderError> {
    let Value::Object(fields) = template else {
        return Ok(());
    };
    for member in members.keys() {
        let key = parameter_key(member);
        if let Some(field) = fields
            .keys()
            .find(|f| f.as_str() != spread && parameter_key(f) == key)
        {
            return Err(RenderError(format!(
                "the field `{spread}` names the form field `{member}`, which a server may read as `{field}`, a field the tool sets itself"
            )));
        }
    }
    Ok(())
}

/// The `name=value` pairs of a form body, each already encoded.
#[derive(Default)]
struct FormPairs(Vec<String>);

impl FormPairs {
    fn append_pair(&mut self, key: &str, value: &str) {
        self.0
            .push(format!("{}={}", form_encoded(key), form_encoded(value)));
    }

    /// `key=a,b`: the commas between the items literal (see [`form_list`]).
    fn append_list(&mut self, key: &str, items: &[String]) {
        self.0
            .push(format!("{}={}", form_encoded(key), form_list(items)));
    }
}

fn form_text(v: &Value) -> Option<String> {
    (!v.is_null()).then(|| value_text(v))
}

fn form_field(out: &mut FormPairs, key: &str, v: &Value, style: FormStyle) {
    match (style, v) {
        (_, Value::Null) => {}
        (FormStyle::Json, _) | (_, Value::String(_) | Value::Number(_) | Value::Bool(_)) => {
            if let Some(text) = form_text(v) {
                out.append_pair(key, &text);
            }
        }
        (FormStyle::Repeat, Value::Array(items)) => {
            for item in items {
                form_field(out, key, item, FormStyle::Json);
            }
        }
        (FormStyle::Repeat, Value::Object(m)) => {
            for (k, item) in m {
                form_field(out, k, item, FormStyle::Json);
            }
        }
        (FormStyle::Comma, Value::Array(items)) => {
            let parts: Vec<String> = items.iter().filter_map(form_text).collect();
            out.append_list(key, &parts);
        }
        (FormStyle::Comma, Value::Object(m)) => {
            let parts: Vec<String> = m
                .iter()
                .filter_map(|(k, item)| form_text(item).map(|t| [k.clone(), t]))
                .flatten()
                .collect();
            out.append_list(key, &parts);
        }
        (FormStyle::Brackets | FormStyle::Deep, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let sub = if style == FormStyle::Deep || item.is_object() || item.is_array() {
                    format!("{key}[{i}]")
                } else {
                    format!("{key}[]")
                };
                form_field(out, &sub, item, style);
            }
        }
        (FormStyle::Brackets | FormStyle::Deep, Value::Object(m)) => {
            for (k, item) in m {
                form_field(out, &format!("{key}[{k}]"), item, style);
            }
        }
    }
}
