//! Finds a JSON object that names one member twice in an upstream's reply.
//!
//! RFC 8259 leaves such an object's meaning open (I-JSON, RFC 7493, forbids it) and
//! readers disagree: toolgate's parser, JavaScript and Python keep the last value, Go's
//! `encoding/json/v2` refuses the document, others keep the first. toolgate checks the
//! contract on one reading and hands the client the body as the upstream wrote it, so
//! `{"role":"admin","role":"user"}` would pass a check as `user` and reach a model that
//! may read `admin`. Such a reply is refused instead: no reading of it is safe to pick.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Where a body names a member twice: the parser's position of the second name (`line
/// 1 column 29`), never the name, which the upstream wrote.
///
/// Every reply is read for it, so the bytes are scanned first without building
/// anything; only a body the scan finds a repeat in, or cannot decide (a member name
/// written with an escape, which may spell another), is parsed to find and place it.
pub(crate) fn repeated_member(body: &[u8]) -> Option<String> {
    match scan(body) {
        Scan::Unique => None,
        Scan::Repeated | Scan::Undecided => parsed(body),
    }
}

/// What the byte scan found.
#[derive(Debug, PartialEq, Eq)]
enum Scan {
    Unique,
    Repeated,
    Undecided,
}

/// Objects of more names than this are checked by sorting their names when they close
/// rather than by comparing each new name with those before it, so an object of many
/// thousands of names costs `n log n`, not `n²`.
const COMPARED_ONE_BY_ONE: usize = 32;

/// One pass over the bytes: the member names of every object open at a point are kept
/// as slices of the body in one list (each object's from where it opened), and a new
/// name is compared with its object's. Strings are skipped with a vectorised search for
/// their end. Anything not well-formed is left to the parser.
fn scan(body: &[u8]) -> Scan {
    let mut names: Vec<&[u8]> = Vec::new();
    // Per open container: where its names start in `names` (`None` for an array), and
    // whether the next string is a name.
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut expecting_name = false;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                let Some(end) = toolgate_contract::string_end(body, i + 1) else {
                    return Scan::Undecided;
                };
                if expecting_name && let Some(Some(from)) = open.last() {
                    let name = &body[i + 1..end];
                    if name.contains(&b'\\') {
                        return Scan::Undecided;
                    }
                    let own = &names[*from..];
                    if own.len() < COMPARED_ONE_BY_ONE && own.contains(&name) {
                        return Scan::Repeated;
                    }
                    names.push(name);
                    expecting_name = false;
                }
                i = end;
            }
            b'{' => {
                open.push(Some(names.len()));
                expecting_name = true;
            }
            b'[' => open.push(None),
            b'}' | b']' => match open.pop() {
                Some(Some(from)) => {
                    let own = &mut names[from..];
                    if own.len() > COMPARED_ONE_BY_ONE {
                        own.sort_unstable();
                        if own.windows(2).any(|w| w[0] == w[1]) {
                            return Scan::Repeated;
                        }
                    }
                    names.truncate(from);
                }
                Some(None) => {}
                None => return Scan::Undecided,
            },
            b',' => expecting_name = matches!(open.last(), Some(Some(_))),
            _ => {}
        }
        i += 1;
    }
    if open.is_empty() {
        Scan::Unique
    } else {
        Scan::Undecided
    }
}

/// The parser's walk: finds and places a repeated name, escapes decoded.
fn parsed(body: &[u8]) -> Option<String> {
    let mut reader = serde_json::Deserializer::from_slice(body);
    match UniqueNames.deserialize(&mut reader) {
        Err(e) if e.is_data() => Some(format!("line {} column {}", e.line(), e.column())),
        // A number too large for the parser must not end the search before a repeat
        // that follows it: the rest is read with such numbers written in range.
        Err(e) if super::number_range::is_out_of_range(&e) => {
            super::number_range::clamped(body).and_then(|readable| parsed(&readable))
        }
        // Not JSON at all, or fine: the contract check says which.
        _ => None,
    }
}

const REPEATED: &str = "an object names the same member twice";

/// Walks any JSON value, failing on the first object with a repeated member name.
#[derive(Clone, Copy)]
struct UniqueNames;

impl<'de> DeserializeSeed<'de> for UniqueNames {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueNames {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i128<E>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(name) = members.next_key::<std::borrow::Cow<'de, str>>()? {
            if !seen.insert(name) {
                return Err(de::Error::custom(REPEATED));
            }
            members.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::repeated_member;

    #[test]
    fn a_member_named_twice_is_found_at_any_depth() {
        for body in [
            r#"{"role":"admin","role":"user"}"#,
            r#"{"a":[1,{"b":{"c":1,"d":2,"c":3}}]}"#,
            r#"[{"x":1},{"y":1,"y":1}]"#,
            // The same name spelled with an escape is the same name.
            r#"{"role":"admin","r\u006fle":"user"}"#,
        ] {
            let found = repeated_member(body.as_bytes()).unwrap_or_default();
            assert!(found.starts_with("line 1 column "), "{body}: {found}");
        }
    }

    #[test]
    fn the_byte_scan_decides_what_it_can_and_leaves_the_rest_to_the_parser() {
        use super::{Scan, scan};
        let many: Vec<String> = (0..1000).map(|i| format!("\"k{i}\":{i}")).collect();
        let wide = format!("{{{}}}", many.join(","));
        let wide_repeated = format!("{{{},\"k7\":0}}", many.join(","));
        for (body, expected) in [
            (r#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#, Scan::Unique),
            (r#"{"a":"{\"a\":1,\"a\":2}","b":["a","a"]}"#, Scan::Unique),
            (r#"{"a":{"x":1},"a":2}"#, Scan::Repeated),
            (r#"[{"x":[{}],"y":1,"x":2}]"#, Scan::Repeated),
            (r#"{"r\u006fle":1,"role":2}"#, Scan::Undecided),
            (r#"{"a":1"#, Scan::Undecided),
            (wide.as_str(), Scan::Unique),
            (wide_repeated.as_str(), Scan::Repeated),
        ] {
            assert_eq!(scan(body.as_bytes()), expected, "{body}");
        }
        assert!(repeated_member(wide_repeated.as_bytes()).is_some());
        assert!(repeated_member(wide.as_bytes()).is_none());
    }

    #[test]
    fn unique_names_numbers_and_broken_json_are_left_to_the_contract() {
        for body in [
            r#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#,
            r#"{"id":123456789012345678901234567890,"f":0.1000000000000000055511151231257827}"#,
            r#""text""#,
            "null",
            r#"{"a":1,"b""#,
            "not json",
        ] {
            assert_eq!(repeated_member(body.as_bytes()), None, "{body}");
        }
    }
}
