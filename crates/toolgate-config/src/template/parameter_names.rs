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

use percent_encoding::percent_decode_str;

/// Layers of percent-encoding undone before comparing: the one every server undoes,
/// and one more for a proxy that decodes in front of the application.
const DECODED_LAYERS: usize = 2;

/// The key a lenient server reads the query or form parameter `name` under: decoded,
/// the part before a closed `[…]`, leading spaces dropped, spaces, dots and an open `[`
/// as `_`, case folded.
pub(super) fn parameter_key(name: &str) -> String {
    let mut text = name.to_owned();
    for _ in 0..DECODED_LAYERS {
        let decoded = percent_decode_str(&text).decode_utf8_lossy().into_owned();
        if decoded == text {
            break;
        }
        text = decoded;
    }
    // `a[…]` is the array `a`; a `[` that no `]` closes is a character, mangled below.
    let base = match text.split_once('[') {
        Some((name, rest)) if rest.contains(']') => name.to_owned(),
        _ => text.clone(),
    };
    let mangled: String = base
        .trim_start_matches(' ')
        .chars()
        .map(|c| match c {
            ' ' | '.' | '[' => '_',
            other => other,
        })
        .collect();
    member_key(&mangled)
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
