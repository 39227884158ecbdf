//! Member names a caller chooses that a JavaScript server reads as the prototype of its
//! objects rather than as data.
//!
//! A query parser that builds nested objects from `a[b]=…` (`qs`, used by Express:
//! CVE-2022-24999) or a deep merge of a JSON body into defaults follows
//! `__proto__` and `constructor.prototype` to `Object.prototype`, so one call sets a
//! property every object of the server inherits (prototype pollution, CWE-1321): an
//! `isAdmin`, a template option, or a hang. No API names a member so, and the input
//! schema cannot tell: an object the schema leaves open passes any name. So such a
//! name is refused wherever the caller's member names reach a server — spread into the
//! query or a form body, or kept in a JSON body or a bracketed form field — in every
//! spelling a reader takes for it: percent-encoded, in brackets or after a dot
//! (`__proto__[isAdmin]`, `constructor[prototype][x]`, `a.__proto__.b`), case folded.

use serde_json::Value;

use super::decoded_name::decoded;

/// Whether the parameter or member name `name` reaches an object's prototype: one of
/// its segments (split at `[`, `]` and `.`) is `__proto__`, or `constructor` is
/// followed by `prototype`.
pub(super) fn reaches_prototype(name: &str) -> bool {
    // Every body member name at any depth is asked: most say neither `proto` nor `%`,
    // and are answered without decoding or allocating.
    if !name.contains('%')
        && !name
            .as_bytes()
            .windows(5)
            .any(|w| w.eq_ignore_ascii_case(b"proto"))
    {
        return false;
    }
    let key = decoded(name).to_lowercase();
    let segments: Vec<&str> = key
        .split(['[', ']', '.'])
        .filter(|s| !s.is_empty())
        .collect();
    segments.contains(&"__proto__")
        || segments
            .windows(2)
            .any(|w| w == ["constructor", "prototype"])
}

/// The first member name, at any depth of `value`, that reaches an object's prototype
/// (see [`reaches_prototype`]), or a `constructor` object holding a `prototype`
/// member, named by its path (`constructor.prototype`).
pub(super) fn prototype_member(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => map.iter().find_map(|(name, member)| {
            if reaches_prototype(name) {
                return Some(name.clone());
            }
            if name.eq_ignore_ascii_case("constructor")
                && let Value::Object(inner) = member
                && let Some(proto) = inner.keys().find(|k| k.eq_ignore_ascii_case("prototype"))
            {
                return Some(format!("{name}.{proto}"));
            }
            prototype_member(member)
        }),
        Value::Array(items) => items.iter().find_map(prototype_member),
        _ => None,
    }
}

/// The refusal of a call whose argument `arg` holds the member `name`.
pub(super) fn refusal(arg: &str, name: &str) -> super::request::RenderError {
    super::request::RenderError(format!(
        "the argument `{arg}` holds the member `{name}`, which a JavaScript server may read as the prototype of its objects; no API names a member so"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{prototype_member, reaches_prototype};

    #[test]
    fn names_that_reach_a_prototype_are_found_in_every_spelling() {
        for name in [
            "__proto__",
            "__PROTO__",
            "__proto__[isAdmin]",
            "a[__proto__][b]",
            "a.__proto__.b",
            "constructor[prototype][isAdmin]",
            "constructor.prototype",
            "%5F%5Fproto%5F%5F",
            "__proto%255F_",
            "__proto__%5Bx%5D",
        ] {
            assert!(reaches_prototype(name), "{name:?}");
        }
        for name in [
            "proto",
            "__proto",
            "_proto_",
            "constructor",
            "prototype",
            "prototype[constructor]",
            "constructor_prototype",
            "a[constructor]",
        ] {
            assert!(!reaches_prototype(name), "{name:?}");
        }
    }

    #[test]
    fn members_that_reach_a_prototype_are_found_at_any_depth() {
        for (value, name) in [
            (json!({"__proto__": {"isAdmin": true}}), "__proto__"),
            (json!({"a": [{"b": {"__proto__": 1}}]}), "__proto__"),
            (
                json!({"constructor": {"prototype": {"x": 1}}}),
                "constructor.prototype",
            ),
            (
                json!({"x": {"Constructor": {"PROTOTYPE": 1}}}),
                "Constructor.PROTOTYPE",
            ),
        ] {
            assert_eq!(prototype_member(&value).as_deref(), Some(name), "{value}");
        }
        for plain in [
            json!({"constructor": "Ford"}),
            json!({"prototype": {"constructor": 1}}),
            json!({"proto": 1, "name": "__proto__"}),
            json!(["__proto__"]),
        ] {
            assert_eq!(prototype_member(&plain), None, "{plain}");
        }
    }
}
