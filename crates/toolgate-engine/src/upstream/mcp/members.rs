//! One JSON object's members in their order, each value as written, and an object
//! written back from them: a result is changed where it must be and nowhere else (its
//! numbers, whatever their size, and its other members stay as the server wrote them).

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The members of one JSON object in their order, each value as written.
pub struct Members<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for InOrder<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Members<'a>, M::Error> {
                let mut members = Vec::new();
                while let Some((name, value)) = map.next_entry::<String, &'de RawValue>()? {
                    members.push((name, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(InOrder(std::marker::PhantomData))
    }
}

/// A JSON object of `members`, each value written as given.
pub fn object<'a>(members: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<u8> {
    let mut out = vec![b'{'];
    for (i, (name, value)) in members.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Writing a string into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut out, name);
        out.push(b':');
        out.extend_from_slice(value.as_bytes());
    }
    out.push(b'}');
    out
}
