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

/// What a body with a repeated member name is told with: the parser's position (`at
/// line 1 column 29`), never the name, which the upstream wrote.
pub(crate) fn repeated_member(body: &[u8]) -> Option<String> {
    let mut reader = serde_json::Deserializer::from_slice(body);
    match UniqueNames.deserialize(&mut reader) {
        Err(e) if e.is_data() => Some(e.to_string()),
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
            assert!(
                found.starts_with("an object names the same member twice at line 1 column"),
                "{body}: {found}"
            );
        }
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
