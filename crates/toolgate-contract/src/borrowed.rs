//! A parsed JSON document that borrows its strings from the bytes it was read from, and
//! its [`jsonschema`] representation, so a body can be checked against a contract
//! without building a `serde_json::Value` tree.
//!
//! Why: on every successful call the body is only *checked*; it reaches the client as
//! the upstream's own bytes. A `Value` costs one allocation per string and a hash index
//! per object, and building and dropping it was most of a call's CPU (docs/performance.md).
//! Here a string without escapes is a slice of the input and an object is one vector of
//! members in document order; parsing is still `serde_json`'s, so what is valid JSON and
//! how numbers read are exactly the same.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use jsonschema::json::{Array, Json, Node, NodeIdentity, Object};
use jsonschema::types::JsonType;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

#[cfg(test)]
mod choices;
mod escape_sites;
mod read_check;
mod scan;
pub use escape_sites::EscapeSites;
pub(crate) use read_check::ReadCheck;
pub use scan::special_mask as json_special_mask;

/// One JSON value whose strings borrow from the parsed bytes where they can.
#[derive(Debug, Clone, PartialEq)]
pub enum Doc<'a> {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, read exactly as `serde_json` reads it.
    Number(Number),
    /// A string: borrowed unless it contained escapes.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Doc<'a>>),
    /// An object's members in document order; a repeated name keeps its first position
    /// and its last value, as `serde_json::Map` does.
    Object(Vec<(Cow<'a, str>, Doc<'a>)>),
}

impl<'a> Doc<'a> {
    /// Parses `bytes` as one JSON document (trailing whitespace allowed, nothing else).
    ///
    /// The direct reader (`borrowed/scan.rs`) answers the common case; whatever it does not
    /// accept is read by `serde_json`, which gives the verdict and the error message.
    pub fn parse(bytes: &'a [u8]) -> Result<Doc<'a>, serde_json::Error> {
        Doc::parse_noting_repeats(bytes).map(|(doc, _)| doc)
    }

    /// [`Doc::parse`], also saying whether some object repeated a member name (the
    /// document then holds only the last value of each; the text holds them all).
    pub fn parse_noting_repeats(bytes: &'a [u8]) -> Result<(Doc<'a>, bool), serde_json::Error> {
        match scan::read(bytes) {
            Some(read) => Ok(read),
            None => Doc::parse_with_serde(bytes),
        }
    }

    /// [`Doc::parse`] through `serde_json`'s deserializer alone.
    fn parse_with_serde(bytes: &'a [u8]) -> Result<(Doc<'a>, bool), serde_json::Error> {
        let repeated = Cell::new(false);
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let doc = DocSeed(&repeated).deserialize(&mut de)?;
        de.end()?;
        Ok((doc, repeated.get()))
    }

    /// The same value as a `serde_json::Value` (for error reports; allocates).
    pub fn to_value(&self) -> Value {
        match self {
            Doc::Null => Value::Null,
            Doc::Bool(b) => Value::Bool(*b),
            Doc::Number(n) => Value::Number(n.clone()),
            Doc::String(s) => Value::String(s.to_string()),
            Doc::Array(items) => Value::Array(items.iter().map(Doc::to_value).collect()),
            Doc::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// Reads one value; notes in its cell when an object repeated a member name.
struct DocSeed<'r>(&'r Cell<bool>);

impl<'de> DeserializeSeed<'de> for DocSeed<'_> {
    type Value = Doc<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Doc<'de>, D::Error> {
        deserializer.deserialize_any(DocVisitor(self.0))
    }
}

struct DocVisitor<'r>(&'r Cell<bool>);

impl<'de> Visitor<'de> for DocVisitor<'_> {
    type Value = Doc<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Doc<'de>, E> {
        Ok(Doc::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Doc<'de>, E> {
        Ok(Doc::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Doc<'de>, E> {
        Ok(Doc::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Doc<'de>, E> {
        // As `serde_json::Value` does: a non-finite float cannot be a JSON number.
        Ok(Number::from_f64(v).map_or(Doc::Null, Doc::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Doc<'de>, E> {
        Ok(Doc::String(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Doc<'de>, E> {
        Ok(Doc::String(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Doc<'de>, E> {
        Ok(Doc::String(Cow::Owned(v)))
    }

    fn visit_unit<E>(self) -> Result<Doc<'de>, E> {
        Ok(Doc::Null)
    }

    fn visit_none<E>(self) -> Result<Doc<'de>, E> {
        Ok(Doc::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Doc<'de>, D::Error> {
        DocSeed(self.0).deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(DocSeed(self.0))? {
            items.push(item);
        }
        Ok(Doc::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(name) = map.next_key_seed(NameSeed)? {
            let value = map.next_value_seed(DocSeed(self.0))?;
            members.push((name, value));
        }
        if merge_repeated_names(&mut members) {
            self.0.set(true);
        }
        Ok(Doc::Object(members))
    }
}

/// Object member names, borrowed when they have no escapes (`Cow`'s own `Deserialize`
/// always copies).
struct NameSeed;

impl<'de> DeserializeSeed<'de> for NameSeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(NameVisitor)
    }
}

struct NameVisitor;

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object member name")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// Objects with a repeated member name are rare and always suspicious; they get the
/// `serde_json::Map` meaning (first position, last value) so `minProperties` and
/// `additionalProperties` judge the same object a `Value` would.
/// Whether there were any.
fn merge_repeated_names(members: &mut Vec<(Cow<'_, str>, Doc<'_>)>) -> bool {
    let repeated = if members.len() <= 16 {
        members
            .iter()
            .enumerate()
            .any(|(i, (name, _))| members[..i].iter().any(|(seen, _)| seen == name))
    } else {
        let mut names: Vec<&str> = members.iter().map(|(n, _)| n.as_ref()).collect();
        names.sort_unstable();
        names.windows(2).any(|w| w[0] == w[1])
    };
    if !repeated {
        return false;
    }
    let mut position: std::collections::HashMap<String, usize> = Default::default();
    let mut merged = Vec::with_capacity(members.len());
    for (name, value) in members.drain(..) {
        match position.get(name.as_ref()) {
            Some(&i) => {
                let slot: &mut (Cow<'_, str>, Doc<'_>) = &mut merged[i];
                slot.1 = value;
            }
            None => {
                position.insert(name.to_string(), merged.len());
                merged.push((name, value));
            }
        }
    }
    *members = merged;
    true
}

/// The [`jsonschema`] representation over [`Doc`]: `jsonschema::options_for::<Borrowed>()`.
#[derive(Debug)]
pub struct Borrowed;

impl Json for Borrowed {
    type Node<'a> = &'a Doc<'a>;
    type PreparedKey = String;
    type StringBuffer = ();

    // Lookups scan the member vector, so one pass over the members beats several lookups.
    const KEYS_PER_LOOKUP: usize = 8;
    // A parsed tree: no node contains itself.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(Self::Node<'_>) -> T) -> T {
        f(&Doc::String(Cow::Borrowed(string)))
    }
}

impl<'a> Node<'a, Borrowed> for &'a Doc<'a> {
    type Object = Members<'a>;
    type Array = Items<'a>;
    type Number = &'a Number;

    fn as_object(&self) -> Option<Members<'a>> {
        match self {
            Doc::Object(members) => Some(Members(members)),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<Items<'a>> {
        match self {
            Doc::Array(items) => Some(Items(items)),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            Doc::String(s) => Some(Cow::Borrowed(s.as_ref())),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<&'a Number> {
        match self {
            Doc::Number(n) => Some(n),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self {
            Doc::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self, Doc::Null)
    }

    fn json_type(&self) -> JsonType {
        match self {
            Doc::Null => JsonType::Null,
            Doc::Bool(_) => JsonType::Boolean,
            Doc::Number(_) => JsonType::Number,
            Doc::String(_) => JsonType::String,
            Doc::Array(_) => JsonType::Array,
            Doc::Object(_) => JsonType::Object,
        }
    }

    fn equals_value(&self, expected: &Value) -> bool {
        // Scalars compare without building a `Value` (`enum` of strings is common).
        match (self, expected) {
            (Doc::Null, _) => expected.is_null(),
            (Doc::Bool(a), _) => expected.as_bool() == Some(*a),
            (Doc::String(a), _) => expected.as_str() == Some(a.as_ref()),
            _ => jsonschema::json::cmp::equal(&self.to_value(), expected),
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(Doc::to_value(self))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(
            std::ptr::from_ref::<Doc<'a>>(self) as usize
        ))
    }
}

/// An object's members, for [`Borrowed`].
#[derive(Debug, Clone, Copy)]
pub struct Members<'a>(&'a [(Cow<'a, str>, Doc<'a>)]);

impl<'a> Object<'a, Borrowed> for Members<'a> {
    type Node = &'a Doc<'a>;
    type MemberName = &'a str;
    type MembersIter = MembersIter<'a>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, key: &String) -> Option<&'a Doc<'a>> {
        self.0
            .iter()
            .find(|(name, _)| name.as_ref() == key.as_str())
            .map(|(_, value)| value)
    }

    fn members(&self) -> MembersIter<'a> {
        MembersIter(self.0.iter())
    }
}

/// Iterates an object's members, for [`Borrowed`].
#[derive(Debug)]
pub struct MembersIter<'a>(std::slice::Iter<'a, (Cow<'a, str>, Doc<'a>)>);

impl<'a> Iterator for MembersIter<'a> {
    type Item = (&'a str, &'a Doc<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(name, value)| (name.as_ref(), value))
    }
}

/// An array's items, for [`Borrowed`].
#[derive(Debug, Clone, Copy)]
pub struct Items<'a>(&'a [Doc<'a>]);

impl<'a> Array<'a, Borrowed> for Items<'a> {
    type Node = &'a Doc<'a>;
    type ElementsIter = std::slice::Iter<'a, Doc<'a>>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn elements(&self) -> std::slice::Iter<'a, Doc<'a>> {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests;
