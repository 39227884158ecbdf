//! Names a caller chooses that a server may read as a name the tool sets itself.
//!
//! An object argument spread into the query (`{name*}`) or into a form body (`repeat`)
//! makes its member names parameters, and an object placed in a JSON body keeps its
//! member names. Servers do not compare names byte for byte: PHP turns spaces, dots and
//! an unmatched `[` in a parameter name into `_` and reads `a[…]` as the parameter `a`
//! (https://www.php.net/manual/en/language.variables.external.php); ASP.NET and many
//! Java frameworks look query parameters up regardless of case; Go's `encoding/json`
//! matches object keys to fields case-insensitively, Unicode folding included (`ſ` is
//! `s`, the Kelvin sign `K` is `k`), and keeps the last match
//! (https://pkg.go.dev/encoding/json#Unmarshal). So `API.KEY=…` can replace a tool's own
//! `api_key`, and `{"role":"viewer","ROLE":"admin"}` passes a schema that checks
//! `role` while the server reads `admin`. A name is compared by the key such a server
//! reads it under, never as written.

use std::collections::HashMap;

use super::decoded_name::decoded;
use super::request::RenderError;

/// The key a lenient server reads the query or form parameter `name` under: decoded,
/// the part before a closed `[…]`, leading spaces dropped, spaces, dots and an open `[`
/// as `_`, case folded.
pub(super) fn parameter_key(name: &str) -> String {
    Spelling::of(name).base
}

/// How a lenient server reads a parameter name as a whole: the key of its base (see
/// [`parameter_key`]) and, for `a[…]`, the bracketed rest, decoded and case folded.
struct Spelling {
    base: String,
    brackets: Option<String>,
}

impl Spelling {
    fn of(name: &str) -> Spelling {
        let text = decoded(name);
        // `a[…]` is the array `a`; a `[` that no `]` closes is a character, mangled below.
        let (base, brackets) = match text.split_once('[') {
            Some((name, rest)) if rest.contains(']') => (name, Some(member_key(rest))),
            _ => (text.as_str(), None),
        };
        let mangled: String = base
            .trim_start_matches(' ')
            .chars()
            .map(|c| match c {
                ' ' | '.' | '[' => '_',
                other => other,
            })
            .collect();
        Spelling {
            base: member_key(&mangled),
            brackets,
        }
    }
}

/// A member that was spread: the argument it came from and its name as written.
type Member<'a> = (&'a str, &'a str);

/// The members spread under one base key.
#[derive(Default)]
struct Base<'a> {
    bare: Option<Member<'a>>,
    bracketed: HashMap<String, Member<'a>>,
}

/// The names that callers' objects spread into one query or one form body, each with
/// the argument it came from: no two may be read as one parameter, or the caller's
/// object sends one name twice (parameter pollution) and the server keeps the value it
/// likes, not the one the input schema checked. Two are read as one when they share a
/// spelling, or a base of which one is bare (`x=1&x[]=2`: the array `x` replaces the
/// value `x`, or the other way round); `filter[status]` and `filter[type]` are two
/// members of one array. Kept by key, so a call's cost grows with its members, not
/// with their square.
#[derive(Default)]
pub(super) struct SpreadNames<'a>(HashMap<String, Base<'a>>);

impl<'a> SpreadNames<'a> {
    /// Adds the member `name` of the argument `from`, or refuses it with the earlier
    /// name it would be read as (or as reaching a JavaScript server's object prototype,
    /// `prototype_names.rs`); `what` names the parameters ("query parameters").
    pub(super) fn add(
        &mut self,
        from: &'a str,
        name: &'a str,
        what: &str,
    ) -> Result<(), RenderError> {
        if super::prototype_names::reaches_prototype(name) {
            return Err(super::prototype_names::refusal(from, name));
        }
        let member = (from, name);
        let Spelling { base, brackets } = Spelling::of(name);
        let bare = brackets.is_none();
        let seen = self.0.entry(base).or_default();
        let earlier = match brackets {
            None => seen
                .bare
                .or_else(|| seen.bracketed.values().next().copied()),
            Some(brackets) => seen
                .bare
                .or_else(|| seen.bracketed.get(&brackets).copied())
                .or_else(|| {
                    seen.bracketed.insert(brackets, member);
                    None
                }),
        };
        match earlier {
            // A list member repeats its own name on purpose (`tag=a&tag=b`).
            Some(first) if first == member => Ok(()),
            Some((first_from, first)) => {
                let source = if first_from == from {
                    format!("the argument `{from}` holds")
                } else {
                    format!("the arguments `{first_from}` and `{from}` hold")
                };
                Err(RenderError(format!(
                    "{source} the members `{first}` and `{name}`, {what} a server may read as one; send each name once, in one spelling"
                )))
            }
            None => {
                if bare {
                    seen.bare = Some(member);
                }
                Ok(())
            }
        }
    }
}

/// The key a case-insensitive JSON reader matches the member `name` under.
pub fn member_key(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == '\u{17f}' { 's' } else { c })
        .collect()
}

/// Whether `name` is spelt in letters that are not ASCII but fold onto ASCII ones
/// (`ſ`, `K`): no API names a member so, and a folding reader takes it for the ASCII
/// name a schema checks under its own spelling.
fn disguised(name: &str) -> bool {
    !name.is_ascii() && member_key(name).is_ascii()
}

/// The first pair of member names, anywhere in `value`, that a case-insensitive JSON
/// reader reads as one (or one name disguised as an ASCII one, paired with itself).
pub(super) fn members_read_alike(value: &serde_json::Value) -> Option<(String, String)> {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut seen: Vec<(String, &str)> = Vec::with_capacity(map.len());
            for (name, member) in map {
                if disguised(name) {
                    return Some((name.clone(), member_key(name)));
                }
                let key = member_key(name);
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                    return Some(((*first).to_owned(), name.clone()));
                }
                seen.push((key, name));
                if let Some(pair) = members_read_alike(member) {
                    return Some(pair);
                }
            }
            None
        }
        Value::Array(items) => items.iter().find_map(members_read_alike),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{members_read_alike, parameter_key};

    #[test]
    fn names_a_lenient_server_reads_as_one_share_a_key() {
        for alias in [
            "api_key",
            "API_KEY",
            "Api_Key",
            "api.key",
            "api key",
            " api_key",
            "api[key",
            "api_key[]",
            "api_key[0]",
            "api%5Fkey",
            "api%255Fkey",
            "api%2Ekey",
        ] {
            assert_eq!(parameter_key(alias), "api_key", "{alias:?}");
        }
        for other in ["api_keys", "apikey", "key", "api-key", "x[api_key]"] {
            assert_ne!(parameter_key(other), "api_key", "{other:?}");
        }
    }

    #[test]
    fn members_a_folding_reader_takes_for_one_are_found_at_any_depth() {
        for (value, pair) in [
            (json!({"role": "viewer", "ROLE": "admin"}), ("ROLE", "role")),
            (json!({"a": {"Id": 1, "iD": 2}}), ("Id", "iD")),
            (json!([{"x": 1}, {"ok": 1, "OK": 2}]), ("OK", "ok")),
            // The long s and the Kelvin sign fold onto `s` and `k`.
            (json!({"mask": 1, "ma\u{17f}k": 2}), ("mask", "ma\u{17f}k")),
            (json!({"\u{212a}ey": 1}), ("\u{212a}ey", "key")),
        ] {
            let (a, b) = members_read_alike(&value).expect("found");
            let mut got = [a, b];
            got.sort();
            let mut want = [pair.0.to_owned(), pair.1.to_owned()];
            want.sort();
            assert_eq!(got, want, "{value}");
        }
        for plain in [
            json!({"role": "viewer", "roles": ["a"]}),
            json!({"naïve": 1, "naive": 2}),
            json!({"straße": 1}),
            json!([{"id": 1}, {"id": 2}]),
            json!("ROLE"),
        ] {
            assert_eq!(members_read_alike(&plain), None, "{plain}");
        }
    }
}
