//! A member of a nested argument object that the input schema does not declare, but
//! that a case-insensitive reader takes for one it does: `{"user": {"ROLE": "admin"}}`
//! against a schema that checks `user.role`. The schema lets an undeclared member
//! through unchecked; Go's `encoding/json` (and .NET's and Jackson's, set to ignore
//! case) reads it as `role`, so the value the schema would have refused reaches the
//! upstream. Top-level arguments are not looked at: the request template places them
//! by their exact names, and an unknown one is never sent.

use serde_json::{Map, Value};
use toolgate_config::template::member_key;

use super::arguments::{MAX_DEPTH, resolve};

/// Why the arguments would be read otherwise than checked, or `None`.
pub(super) fn misread_member(schema: &Map<String, Value>, args: &Value) -> Option<String> {
    let Value::Object(args) = args else {
        return None;
    };
    let Some(Value::Object(properties)) = resolve(schema, schema, 0)?.get("properties") else {
        return None;
    };
    args.iter().find_map(|(name, value)| {
        let property = properties.get(name).filter(|_| has_members(value))?;
        nested(schema, property, value, &format!("/{name}"), 1)
    })
}

fn nested(
    root: &Map<String, Value>,
    schema: &Value,
    value: &Value,
    at: &str,
    depth: usize,
) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    let schema = resolve(root, schema.as_object()?, 0)?;
    match value {
        Value::Array(items) => {
            let item = schema.get("items")?;
            items
                .iter()
                .enumerate()
                .filter(|(_, v)| has_members(v))
                .find_map(|(i, v)| nested(root, item, v, &format!("{at}/{i}"), depth + 1))
        }
        Value::Object(members) => {
            let Some(Value::Object(properties)) = schema.get("properties") else {
                return None;
            };
            members.iter().find_map(|(name, member)| {
                if let Some(property) = properties.get(name) {
                    return has_members(member)
                        .then(|| nested(root, property, member, &format!("{at}/{name}"), depth + 1))
                        .flatten();
                }
                let key = member_key(name);
                let declared = properties.keys().find(|p| member_key(p) == key)?;
                Some(format!(
                    "{at}: `{name}` is not a property the tool declares, and a server may read it as `{declared}`; send `{declared}` as written"
                ))
            })
        }
        _ => None,
    }
}

/// Whether a value can hold members to misread: only objects and arrays are walked, so
/// a scalar argument (most of them, on every call) costs no path of its own.
fn has_members(value: &Value) -> bool {
    value.is_object() || value.is_array()
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::misread_member;

    fn schema() -> Map<String, Value> {
        let Value::Object(schema) = json!({
            "type": "object",
            "properties": {
                "Role": {"type": "string"},
                "user": {"$ref": "#/$defs/user"},
                "users": {"type": "array", "items": {"$ref": "#/$defs/user"}}
            },
            "$defs": {"user": {"type": "object", "properties": {
                "role": {"enum": ["viewer"]},
                "mask": {"type": "string"},
                "key": {"type": "string"}
            }}}
        }) else {
            unreachable!()
        };
        schema
    }

    #[test]
    fn an_undeclared_member_a_folding_reader_takes_for_a_declared_one_is_named() {
        for (args, at) in [
            (json!({"user": {"ROLE": "admin"}}), "/user: `ROLE`"),
            (
                json!({"user": {"role": "viewer", "Role": "admin"}}),
                "/user: `Role`",
            ),
            (
                json!({"users": [{"role": "viewer"}, {"rOlE": "admin"}]}),
                "/users/1: `rOlE`",
            ),
            (json!({"user": {"ma\u{17f}k": "x"}}), "/user: `ma\u{17f}k`"),
            (json!({"user": {"\u{212a}ey": "x"}}), "/user: `\u{212a}ey`"),
        ] {
            let problem = misread_member(&schema(), &args).expect("named");
            assert!(problem.starts_with(at), "{args}: {problem}");
        }
    }

    #[test]
    fn declared_members_other_names_and_top_level_arguments_pass() {
        for args in [
            json!({"user": {"role": "viewer", "mask": "m"}}),
            json!({"user": {"roles": ["x"], "extra": 1}}),
            // Top-level names are placed by exact name: `role` here is never sent.
            json!({"role": "admin", "Role": "x"}),
            json!({"users": [{"role": "viewer"}], "other": {"ROLE": 1}}),
        ] {
            assert_eq!(misread_member(&schema(), &args), None, "{args}");
        }
    }
}
