//! Cookie parameters (`in: cookie`). A request carries one `Cookie` header (RFC 6265
//! § 5.4) of `name=value` pairs separated by `; `, so they are sent as one header
//! template. A template with an absent argument is not sent at all, so the header holds
//! the required cookies and the description's fixed values; an optional cookie rides
//! along only when it would be the header's only pair.

use serde_json::{Value, json};

/// RFC 6265's `cookie-octet`s: no space, `"`, `,`, `;` or `\`, so a value cannot end
/// its pair and start another cookie.
pub const OCTETS: &str = r"^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$";

#[derive(Debug)]
enum CookieValue {
    /// Text from the description, escaped for a template already.
    Fixed(String),
    /// The value's template: one argument (`{arg}`), or an object's members between
    /// literal separators (`R,{color_R},G,{color_G}`); `arg` names it in notes.
    Arg {
        arg: String,
        value: String,
        required: bool,
    },
}

/// The cookie parameters of one operation, in the order the description lists them.
#[derive(Debug, Default)]
pub struct Cookies(Vec<(String, CookieValue)>);

/// What becomes of the cookie parameters.
#[derive(Debug)]
pub struct Sent {
    /// The `Cookie` header's template, when any cookie is sent.
    pub header: Option<String>,
    /// Optional cookies that cannot be sent, as (cookie name, argument).
    pub left_out: Vec<(String, String)>,
}

impl Cookies {
    /// A cookie whose value the description fixes (an `enum` of one value, a `const`).
    pub fn fixed(&mut self, name: &str, escaped_value: String) {
        self.0
            .push((name.to_string(), CookieValue::Fixed(escaped_value)));
    }

    /// A cookie the model gives, as argument `arg`.
    pub fn argument(&mut self, name: &str, arg: &str, required: bool) {
        self.0.push((
            name.to_string(),
            CookieValue::Arg {
                arg: arg.to_string(),
                value: format!("{{{arg}}}"),
                required,
            },
        ));
    }

    /// A cookie holding an object with `explode: false` (`color=R,100,G,200`): each
    /// member, as (member name, argument), written after its name, all separated by
    /// literal commas. A member's value is still held to the cookie octets, so it
    /// cannot add a member or a cookie of its own.
    pub fn members(&mut self, name: &str, members: &[(String, String)], required: bool) {
        let value = members
            .iter()
            .map(|(member, arg)| format!("{member},{{{arg}}}"))
            .collect::<Vec<_>>()
            .join(",");
        let arg = members
            .iter()
            .map(|(_, arg)| arg.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        self.0.push((
            name.to_string(),
            CookieValue::Arg {
                arg,
                value,
                required,
            },
        ));
    }

    pub fn finish(self) -> Sent {
        let pair = |name: &str, v: &CookieValue| match v {
            CookieValue::Fixed(text) => format!("{name}={text}"),
            CookieValue::Arg { value, .. } => format!("{name}={value}"),
        };
        let always = |v: &CookieValue| {
            matches!(
                v,
                CookieValue::Fixed(_) | CookieValue::Arg { required: true, .. }
            )
        };
        let sent: Vec<String> = self
            .0
            .iter()
            .filter(|(_, v)| always(v))
            .map(|(n, v)| pair(n, v))
            .collect();
        let optional: Vec<(String, String)> = self
            .0
            .iter()
            .filter_map(|(n, v)| match v {
                CookieValue::Arg {
                    arg,
                    required: false,
                    ..
                } => Some((n.clone(), arg.clone())),
                _ => None,
            })
            .collect();
        if sent.is_empty() && optional.len() == 1 {
            let header = self
                .0
                .iter()
                .find(|(_, v)| !always(v))
                .map(|(n, v)| pair(n, v));
            return Sent {
                header,
                left_out: Vec::new(),
            };
        }
        Sent {
            header: (!sent.is_empty()).then(|| sent.join("; ")),
            left_out: optional,
        }
    }
}

/// The most members an object cookie may have: each is an argument of its own, as a
/// `deepObject` query's are, and past that the tool is no longer one a model can fill.
pub const MOST_MEMBERS: usize = 32;

/// How a cookie parameter's value is written in its pair.
#[derive(Debug, PartialEq, Eq)]
pub enum CookieShape {
    /// As the argument's text: a scalar, or a list comma-joined (`ids=a,b`).
    Value,
    /// An object with `explode: false` whose members the schema names: each an argument,
    /// written `name=R,{R},G,{G}`.
    Members(Vec<String>),
    /// Nothing cookie octets can carry, and why.
    Unsendable(String),
}

/// How cookie parameter `p` with (resolved) schema `schema` is written. OpenAPI's
/// only cookie style is `form`: an object unexploded is `color=R,100,G,200`; exploded
/// (the default) its members would be pairs of their own, which OpenAPI 3.0 and 3.1
/// write as a query's `R=100&G=200`, a `Cookie` header cannot carry. A `content` media
/// type (JSON) holds quotes and commas, which no cookie value may.
pub fn shape(p: &Value, schema: &Value) -> CookieShape {
    if let Some(media) = p
        .get("content")
        .and_then(Value::as_object)
        .and_then(|c| c.keys().next())
    {
        let text = media.to_ascii_lowercase().starts_with("text/plain");
        return if text {
            CookieShape::Value
        } else {
            CookieShape::Unsendable(format!(
                "its value is `{media}` text, whose quotes and commas a cookie cannot carry"
            ))
        };
    }
    if let Some(least) = exploded_list_least(p, schema).filter(|n| *n > 1) {
        return CookieShape::Unsendable(format!(
            "it is an exploded list of at least {least} items, which OpenAPI writes as the cookie once per item, of which a server keeps one"
        ));
    }
    let object = !is_list(schema.as_object().unwrap_or(&serde_json::Map::new()))
        && (super::list_format::single_type(schema) == Some("object")
            || schema.get("properties").is_some());
    if !object {
        return CookieShape::Value;
    }
    let members: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    // A member's name is written into the cookie as it is: only cookie octets that
    // are not the separators themselves can be.
    let usable = !members.is_empty()
        && members.iter().all(|m| {
            !m.is_empty()
                && m.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    let explode = p.get("explode").and_then(Value::as_bool).unwrap_or(true);
    if members.len() > MOST_MEMBERS {
        CookieShape::Unsendable(format!(
            "it is an object of {} members, each of which would be an argument of its own (at most {MOST_MEMBERS})",
            members.len()
        ))
    } else if explode {
        CookieShape::Unsendable(
            "it is an exploded object, whose members OpenAPI writes as `a=1&b=2`, which a Cookie header cannot carry".into(),
        )
    } else if usable {
        CookieShape::Members(members)
    } else {
        CookieShape::Unsendable(
            "it is an object whose members the schema does not name as plain words".into(),
        )
    }
}

/// Whether cookie `p`, whose (resolved) schema is `schema`, is an exploded list (the
/// `form` style's default). OpenAPI writes one as the cookie once per item (`ids=a&ids=b`
/// in 3.0's table, `ids=a; ids=b` as a `Cookie` header can carry it), and a server keeps
/// one of the pairs, so it is sent one item a call ([`one_item`]); joined by commas it
/// would be read as one item `a,b`.
pub fn exploded_list(p: &Value, schema: &Value) -> bool {
    exploded_list_least(p, schema).is_some()
}

/// The `minItems` of an exploded list cookie (0 without one); `None` for anything else.
fn exploded_list_least(p: &Value, schema: &Value) -> Option<u64> {
    let m = schema.as_object()?;
    let explode = p.get("explode").and_then(Value::as_bool).unwrap_or(true);
    (is_list(m) && explode && p.get("content").is_none())
        .then(|| m.get("minItems").and_then(Value::as_u64).unwrap_or(0))
}

/// `schema` held to lists of at most one item.
pub fn one_item(schema: Value) -> Value {
    match schema {
        Value::Object(mut m) if !m.contains_key("$ref") => {
            let most = m
                .get("maxItems")
                .and_then(Value::as_u64)
                .map_or(1, |n| n.min(1));
            m.insert("maxItems".into(), json!(most));
            Value::Object(m)
        }
        other => json!({"allOf": [other, {"maxItems": 1}]}),
    }
}

/// `schema` held to [`OCTETS`] (a string one; numbers and booleans print as octets).
/// A list's items are held to them too: `pattern` reads strings only, and each item is
/// written into the pair (`ids=a,b`), where an item `a; admin=1` would add a cookie.
pub fn restricted(schema: Value) -> Value {
    match schema {
        Value::Object(mut m) if is_list(&m) => {
            let items = m.remove("items").unwrap_or_else(|| json!({}));
            m.insert("items".into(), restricted(items));
            // `type: [array, string]` may be a string too.
            m.entry("pattern").or_insert_with(|| json!(OCTETS));
            Value::Object(m)
        }
        Value::Object(mut m) if !m.contains_key("pattern") && !m.contains_key("$ref") => {
            m.insert("pattern".into(), json!(OCTETS));
            Value::Object(m)
        }
        other => json!({"allOf": [other, {"pattern": OCTETS}, {"items": {"pattern": OCTETS}}]}),
    }
}

/// Whether an inline schema is a list's (`type: array`, or `items` without a type).
fn is_list(m: &serde_json::Map<String, Value>) -> bool {
    match m.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => m.contains_key("items"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_and_fixed_cookies_share_one_header() {
        let mut c = Cookies::default();
        c.argument("session", "session", true);
        c.fixed("lang", "en".into());
        c.argument("theme", "theme", false);
        let sent = c.finish();
        assert_eq!(sent.header.as_deref(), Some("session={session}; lang=en"));
        assert_eq!(
            sent.left_out,
            vec![("theme".to_string(), "theme".to_string())]
        );
    }

    #[test]
    fn a_lone_optional_cookie_is_the_header_and_several_are_not_sent() {
        let mut c = Cookies::default();
        c.argument("theme", "theme_cookie", false);
        let sent = c.finish();
        assert_eq!(sent.header.as_deref(), Some("theme={theme_cookie}"));
        assert!(sent.left_out.is_empty());
        let mut c = Cookies::default();
        c.argument("a", "a", false);
        c.argument("b", "b", false);
        let sent = c.finish();
        assert_eq!(sent.header, None);
        assert_eq!(sent.left_out.len(), 2);
    }

    #[test]
    fn only_an_unexploded_object_of_named_members_is_written_member_by_member() {
        let object = |n: usize| {
            let props: serde_json::Map<String, Value> = (0..n)
                .map(|i| (format!("m{i}"), json!({"type": "string"})))
                .collect();
            json!({"type": "object", "properties": props})
        };
        let unexploded = json!({"explode": false});
        assert_eq!(
            shape(&unexploded, &object(2)),
            CookieShape::Members(vec!["m0".into(), "m1".into()])
        );
        for (p, schema) in [
            (json!({}), object(2)),
            (unexploded.clone(), object(MOST_MEMBERS + 1)),
            (unexploded.clone(), json!({"type": "object"})),
            (json!({"content": {"application/json": {}}}), json!({})),
        ] {
            assert!(
                matches!(shape(&p, &schema), CookieShape::Unsendable(_)),
                "{p} {schema}"
            );
        }
        assert_eq!(
            shape(&json!({}), &json!({"type": "array"})),
            CookieShape::Value
        );
    }

    #[test]
    fn a_cookie_value_cannot_start_another_cookie() {
        let schema = restricted(json!({"type": "string"}));
        let v = jsonschema::validator_for(&schema).unwrap();
        assert!(v.is_valid(&json!("abc-123_x.y")));
        for bad in ["a; admin=1", "a b", "a,b", "\"a\""] {
            assert!(!v.is_valid(&json!(bad)), "{bad}");
        }
        let wrapped = restricted(json!({"$ref": "#/$defs/x"}));
        assert!(wrapped.get("allOf").is_some());
    }

    /// A list cookie is written `ids=a,b`: each item is held to the octets, so an
    /// item cannot end the pair and add a cookie of its own, whether the list is
    /// inline or named by `$ref`.
    #[test]
    fn a_list_cookie_item_cannot_start_another_cookie() {
        let inline = restricted(json!({"type": "array", "items": {"type": "string"}}));
        let by_ref = json!({"$defs": {"ids": {"type": "array", "items": {"type": "string"}}},
            "allOf": [restricted(json!({"$ref": "#/$defs/ids"}))]});
        for schema in [inline, by_ref] {
            let v = jsonschema::validator_for(&schema).unwrap();
            assert!(v.is_valid(&json!(["a", "b-2"])), "{schema}");
            for bad in ["a; admin=1", "a,b", "a b"] {
                assert!(!v.is_valid(&json!(["ok", bad])), "{bad} {schema}");
            }
        }
    }
}
