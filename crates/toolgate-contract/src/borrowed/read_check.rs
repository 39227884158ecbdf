//! A contract check made while the body is read, with no tree built.
//!
//! Why: on almost every call the body is valid, and all the call path wants is that
//! verdict. Reading the body into a [`Doc`] and then walking it with the validator was
//! the largest part of toolgate's own CPU on a call (a seventh, in a profile under
//! `bench/run`): one node per value, one vector per array and object, and property
//! lookups by scanning members. Here the schema is compiled once into a small table of
//! rules, and the body is checked against it in the same pass that checks it is JSON.
//!
//! It is a shortcut, never the judge. [`ReadCheck::vouches_for`] answers `true` only when
//! the bytes are one JSON document that `serde_json` accepts, in which no object names a
//! member twice, and that the schema accepts; `false` means "not vouched for" — the body
//! is invalid, or holds something this check does not decide (a float under `integer`,
//! a bound too large for an exact comparison) — and the caller reads the body the full
//! way, whose verdict and drift report stand.
//!
//! The keywords most contracts are made of (`type`, `properties`, `required`, `items`,
//! `enum` of scalars, bounds, local `$ref`s; `read_check/compile.rs` lists them) are decided
//! here, as the bytes go by, and so are shared components (`toolgate:schemas/…`), which
//! imported contracts are made of, and an `anyOf` or `oneOf` whose branches hold
//! different kinds of value (an object or `null`; a string or an array), whose value's
//! first byte says which branch judges it. A subschema with any other keyword (an
//! `anyOf` of two objects, `pattern`, `allOf`, …) is handed to `jsonschema` whole: only the value it judges is
//! read into a [`Doc`] and checked by a validator compiled for that subschema
//! (`Node::Delegate`), and the rest of the body is still checked in passing. A schema
//! with a file `$ref` or an `$id` has no read check. Tests compare it with `jsonschema`
//! on generated schemas and documents (`read_check_tests.rs`).

use std::sync::Arc;

use jsonschema::Validator;
use serde_json::Number;

use super::scan::{EscapeNotes, QuotedName, Reader};
use super::{Borrowed, Doc, EscapeSites};

/// Index of a [`Node`] in [`ReadCheck::nodes`].
type NodeId = usize;

/// `true`, `{}`: any JSON value.
const ANY: NodeId = 0;
/// `false`: no value.
const NEVER: NodeId = 1;
/// `$ref`s followed in a row before giving up (a schema may alias itself).
const MAX_ALIASES: usize = 32;

/// A response schema compiled for checking bodies as they are read.
#[derive(Debug)]
pub struct ReadCheck {
    nodes: Vec<Node>,
    root: NodeId,
}

#[derive(Debug)]
enum Node {
    /// Any JSON value (also the placeholder while a `$ref` target compiles).
    Any,
    /// No value.
    Never,
    /// A schema that is only a `$ref` (plus annotations).
    Alias(NodeId),
    /// A schema with validating keywords.
    Rules(Box<Rules>),
    /// A subschema with a keyword not decided here: its value is read into a [`Doc`]
    /// and judged by `jsonschema` (shared by every contract, inside a component).
    Delegate(Arc<Validator<Borrowed>>),
    /// An `anyOf` or `oneOf` whose branches hold disjoint kinds of value (an object or
    /// `null`, as imported contracts write a body beside an empty answer): the value's
    /// first byte picks the one branch that may hold it, [`kind`] bits with both number
    /// bits set wherever either is.
    ByKind(Box<[(u8, NodeId)]>),
}

/// The kinds of JSON value `type` tells apart, as bits.
mod kind {
    pub const NULL: u8 = 1;
    pub const BOOL: u8 = 2;
    /// A number `serde_json` reads as an integer (`u64` or `i64`).
    pub const INTEGER: u8 = 4;
    /// A number `serde_json` reads as a float.
    pub const FLOAT: u8 = 8;
    pub const STRING: u8 = 16;
    pub const ARRAY: u8 = 32;
    pub const OBJECT: u8 = 64;
    pub const ALL: u8 = 127;
    /// Both number bits: a number's first byte does not tell an integer from a float.
    pub const NUMBER: u8 = INTEGER | FLOAT;

    /// The kinds a value starting with `byte` may be (anything else is a number or not
    /// JSON, which the branch's own reading finds).
    pub fn of_first_byte(byte: u8) -> u8 {
        match byte {
            b'{' => OBJECT,
            b'[' => ARRAY,
            b'"' => STRING,
            b't' | b'f' => BOOL,
            b'n' => NULL,
            _ => NUMBER,
        }
    }
}

/// An `enum` or `const` member this check can compare without building a value.
#[derive(Debug, PartialEq)]
enum Scalar {
    Null,
    Bool(bool),
    String(String),
}

/// One schema's validating keywords; each applies only to values of its kind, as in
/// JSON Schema (`properties` says nothing about a string).
#[derive(Debug)]
struct Rules {
    /// `type`, as [`kind`] bits.
    types: u8,
    /// `enum` / `const`: the only values allowed.
    allowed: Option<Vec<Scalar>>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    items: NodeId,
    /// Whether a string item is only read to its end (see [`Member::strings_skipped`]).
    item_strings_skipped: bool,
    min_items: Option<u64>,
    max_items: Option<u64>,
    /// `properties` and `required` by member name: the name's schema (`None`: only
    /// required, so `additionalProperties` judges its value) and its `required` bit.
    members: Vec<Member>,
    /// Bits of every `required` name.
    required: u64,
    /// `additionalProperties` (ANY when absent).
    additional: NodeId,
}

#[derive(Debug)]
struct Member {
    name: Box<str>,
    /// Whether JSON writes `name` as its own bytes (no quote, backslash or control
    /// character to escape), so a body's name can be compared with it byte for byte.
    written_as_is: bool,
    /// The name with its quotes in words, when short enough (see [`QuotedName`]).
    quoted: Option<QuotedName>,
    schema: Option<NodeId>,
    required_bit: u64,
    /// Whether a string value of this member is only read to its end: its schema
    /// (aliases followed, `additionalProperties` when it has none) takes any string and
    /// reads no text, as most members' `{"type": "string"}` does. Set when the contract
    /// compiles (`compile::note_skipped_strings`).
    ///
    /// Why: two values of three in a typical body are strings of such members and
    /// items, and reaching `skip_string` through the general step (the alias loop, the
    /// node's kind, the first byte's dispatch, the rules' tests) cost as much as reading
    /// a short string.
    strings_skipped: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            types: kind::ALL,
            allowed: None,
            min_length: None,
            max_length: None,
            minimum: None,
            maximum: None,
            exclusive_minimum: None,
            exclusive_maximum: None,
            items: ANY,
            item_strings_skipped: true,
            min_items: None,
            max_items: None,
            members: Vec::new(),
            required: 0,
            additional: ANY,
        }
    }
}

impl ReadCheck {
    /// `true` when `bytes` are one JSON document (surrounding whitespace allowed) that
    /// `serde_json` accepts, where no object names a member twice, and that the schema
    /// accepts; `false` when that was not shown.
    ///
    /// A repeated name is never vouched for: readers disagree on which value it has, so
    /// no one reading of such a body can be checked for all (the full check refuses it).
    pub fn vouches_for(&self, bytes: &[u8]) -> bool {
        let Some(mut reader) = Reader::new(bytes) else {
            return false;
        };
        self.value(&mut reader, self.root).is_some() && reader.at_end()
    }

    /// Like [`ReadCheck::vouches_for`], and when it vouches, where the body's bytes
    /// need escaping inside a JSON string, noted on the way (`None`: not vouched for,
    /// or a body too long for 32-bit offsets).
    pub fn vouch(&self, bytes: &[u8]) -> Option<EscapeSites> {
        let mut reader = Reader::noting_escapes(bytes)?;
        self.value(&mut reader, self.root)?;
        if !reader.at_end() {
            return None;
        }
        Some(EscapeSites::new(reader.into_escapes()))
    }

    /// Whether `bytes` are vouched for, and how many member names were read in full
    /// rather than met where the schema expected them.
    #[cfg(test)]
    pub(crate) fn names_read(&self, bytes: &[u8]) -> (bool, usize) {
        let Some(mut reader) = Reader::new(bytes) else {
            return (false, 0);
        };
        let vouched = self.value(&mut reader, self.root).is_some() && reader.at_end();
        (vouched, reader.names_read)
    }

    /// Whether `bytes` are vouched for, and how many numbers were read to their value.
    #[cfg(test)]
    pub(crate) fn numbers_read(&self, bytes: &[u8]) -> (bool, usize) {
        let Some(mut reader) = Reader::new(bytes) else {
            return (false, 0);
        };
        let vouched = self.value(&mut reader, self.root).is_some() && reader.at_end();
        (vouched, reader.numbers_read)
    }

    /// Whether `bytes` are vouched for, and how many values took the general step
    /// ([`ReadCheck::value`]) rather than a shortcut.
    #[cfg(test)]
    pub(crate) fn values_stepped(&self, bytes: &[u8]) -> (bool, usize) {
        let Some(mut reader) = Reader::new(bytes) else {
            return (false, 0);
        };
        let vouched = self.value(&mut reader, self.root).is_some() && reader.at_end();
        (vouched, reader.values_stepped)
    }

    /// Takes every value through the general step, as the check did before its
    /// shortcuts, for comparing the two.
    #[cfg(test)]
    pub(crate) fn without_shortcuts(mut self) -> ReadCheck {
        for node in &mut self.nodes {
            if let Node::Rules(rules) = node {
                rules.item_strings_skipped = false;
                for member in &mut rules.members {
                    member.strings_skipped = false;
                }
            }
        }
        self
    }

    /// How many subschemas are handed to `jsonschema`.
    #[cfg(test)]
    pub(crate) fn delegated(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n, Node::Delegate(_)))
            .count()
    }

    /// Reads one value at the reader's position and checks it against `node`; `None`
    /// when it is not JSON, not valid, or not decided here.
    fn value<E: EscapeNotes>(&self, r: &mut Reader<'_, E>, mut node: NodeId) -> Option<()> {
        #[cfg(test)]
        {
            r.values_stepped += 1;
        }
        for _ in 0..MAX_ALIASES {
            match &self.nodes[node] {
                Node::Alias(target) => node = *target,
                Node::Any => return skip(r),
                Node::Never => return None,
                Node::Rules(rules) => return self.checked(r, rules),
                Node::Delegate(validator) => {
                    let doc = r.value()?;
                    // The validator saw only the last value of a repeated name, the
                    // text holds them all: not vouched for, the full check decides.
                    if r.repeated {
                        return None;
                    }
                    return validator.is_valid(&doc).then_some(());
                }
                Node::ByKind(branches) => {
                    r.skip_space();
                    let kind = kind::of_first_byte(r.peek()?);
                    node = branches.iter().find(|(kinds, _)| kinds & kind != 0)?.1;
                }
            }
        }
        None
    }

    /// [`ReadCheck::value`], with a string read to its end at once when
    /// `strings_skipped` says that is all `node` does with one (see
    /// [`Member::strings_skipped`]).
    #[inline(always)]
    fn value_or_string<E: EscapeNotes>(
        &self,
        r: &mut Reader<'_, E>,
        node: NodeId,
        strings_skipped: bool,
    ) -> Option<()> {
        if strings_skipped {
            r.skip_space();
            if r.peek() == Some(b'"') {
                return r.skip_string();
            }
        }
        self.value(r, node)
    }

    fn checked<E: EscapeNotes>(&self, r: &mut Reader<'_, E>, rules: &Rules) -> Option<()> {
        r.skip_space();
        match r.peek()? {
            b'{' => {
                rules.admits(kind::OBJECT)?;
                rules.no_allowed_list()?;
                self.object(r, rules)
            }
            b'[' => {
                rules.admits(kind::ARRAY)?;
                rules.no_allowed_list()?;
                self.array(r, rules)
            }
            b'"' => {
                rules.admits(kind::STRING)?;
                if !rules.reads_strings() {
                    return r.skip_string();
                }
                let text = r.string()?;
                rules.string(&text)
            }
            b't' | b'f' | b'n' => {
                let (word, kind, scalar) = match r.peek()? {
                    b't' => (&b"true"[..], kind::BOOL, Scalar::Bool(true)),
                    b'f' => (&b"false"[..], kind::BOOL, Scalar::Bool(false)),
                    _ => (&b"null"[..], kind::NULL, Scalar::Null),
                };
                r.literal(word, Doc::Null)?;
                rules.admits(kind)?;
                rules.scalar(&scalar)
            }
            _ => {
                let token = r.number_token()?;
                // A fraction is a float whatever its digits: read only when its whole
                // part does not settle the bounds.
                if let Some(range) = token.fraction_range()
                    && rules.bounds_hold_anywhere_in(range)
                {
                    rules.admits(kind::FLOAT)?;
                    return rules.no_allowed_list();
                }
                let number = r.read_number(token)?;
                let kind = if number.is_f64() {
                    kind::FLOAT
                } else {
                    kind::INTEGER
                };
                rules.admits(kind)?;
                rules.number(&number)
            }
        }
    }

    fn array<E: EscapeNotes>(&self, r: &mut Reader<'_, E>, rules: &Rules) -> Option<()> {
        r.enter()?;
        let mut count = 0u64;
        r.list_until(b']', |r| {
            count += 1;
            self.value_or_string(r, rules.items, rules.item_strings_skipped)
        })?;
        r.leave();
        within(count, rules.min_items, rules.max_items)
    }

    fn object<E: EscapeNotes>(&self, r: &mut Reader<'_, E>, rules: &Rules) -> Option<()> {
        r.enter()?;
        let mut seen = 0u64;
        // The schema's own names already met in this object, one bit per place in
        // `rules.members`: a repeat of one is found by a bit test, where noting it among
        // the names compared it with every name before it (most of an object's names
        // are the schema's). Other names, and those past the bits, are noted as before;
        // the two sets never share a name.
        let mut met = 0u64;
        // The schema's name expected next: objects of one schema are mostly written with
        // their names in one order, so the name after the last one met is tried first,
        // against the bytes as they stand (see `Reader::member_name_is`), before the
        // name is read and looked up among them all. One miss ends the guessing for the
        // rest of the object: a body written in another order (sorted names) pays for one
        // guess per object, not one per name.
        let mut expected = 0usize;
        let mut guessing = true;
        let names = r.names_from();
        r.list_until(b'}', |r| {
            let predicted = match rules.members.get(expected) {
                Some(m) if guessing && expected < 64 && m.written_as_is => {
                    guessing = r.member_name_is(&m.name, m.quoted.as_ref())?;
                    guessing.then_some((expected, m))
                }
                _ => None,
            };
            let (at, m) = match predicted {
                Some(hit) => hit,
                None => {
                    let name = r.member_name()?;
                    match rules.member(&name) {
                        Some((at, m)) if at < 64 => (at, m),
                        Some((_, m)) => {
                            r.note_name(names, name)?;
                            seen |= m.required_bit;
                            let schema = m.schema.unwrap_or(rules.additional);
                            return self.value_or_string(r, schema, m.strings_skipped);
                        }
                        None => {
                            r.note_name(names, name)?;
                            return self.value(r, rules.additional);
                        }
                    }
                }
            };
            let bit = 1u64 << at;
            if met & bit != 0 {
                return None;
            }
            met |= bit;
            expected = at + 1;
            seen |= m.required_bit;
            let schema = m.schema.unwrap_or(rules.additional);
            self.value_or_string(r, schema, m.strings_skipped)
        })?;
        r.close_names(names)?;
        r.leave();
        (seen & rules.required == rules.required).then_some(())
    }
}

/// Reads one value of any shape, checking only that it is JSON.
fn skip<E: EscapeNotes>(r: &mut Reader<'_, E>) -> Option<()> {
    r.skip_space();
    match r.peek()? {
        b'{' => {
            r.enter()?;
            let names = r.names_from();
            r.list_until(b'}', |r| {
                let name = r.member_name()?;
                r.note_name(names, name)?;
                skip(r)
            })?;
            r.close_names(names)?;
            r.leave();
            Some(())
        }
        b'[' => {
            r.enter()?;
            r.list_until(b']', skip)?;
            r.leave();
            Some(())
        }
        b'"' => r.skip_string(),
        b't' => r.literal(b"true", Doc::Null).map(drop),
        b'f' => r.literal(b"false", Doc::Null).map(drop),
        b'n' => r.literal(b"null", Doc::Null).map(drop),
        _ => r.number().map(drop),
    }
}

fn within(n: u64, min: Option<u64>, max: Option<u64>) -> Option<()> {
    (min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)).then_some(())
}

impl Rules {
    /// The member of `properties` or `required` called `name`, with its place.
    #[inline]
    fn member(&self, name: &str) -> Option<(usize, &Member)> {
        self.members
            .iter()
            .enumerate()
            .find(|(_, m)| m.name.len() == name.len() && *m.name == *name)
    }

    fn admits(&self, kind: u8) -> Option<()> {
        (self.types & kind != 0).then_some(())
    }

    /// `enum`/`const` hold scalars here, so no array or object is one of them.
    fn no_allowed_list(&self) -> Option<()> {
        self.allowed.is_none().then_some(())
    }

    fn scalar(&self, value: &Scalar) -> Option<()> {
        match &self.allowed {
            Some(allowed) => allowed.contains(value).then_some(()),
            None => Some(()),
        }
    }

    /// Whether a string's text matters to these rules (`enum`, `const`, lengths): when
    /// it does not, the string is only read to its end, not decoded.
    #[inline]
    fn reads_strings(&self) -> bool {
        self.allowed.is_some() || self.min_length.is_some() || self.max_length.is_some()
    }

    fn string(&self, text: &str) -> Option<()> {
        if let Some(allowed) = &self.allowed {
            allowed
                .iter()
                .any(|a| matches!(a, Scalar::String(s) if s == text))
                .then_some(())?;
        }
        if self.min_length.is_some() || self.max_length.is_some() {
            // Lengths count characters, as the validator does.
            within(
                text.chars().count() as u64,
                self.min_length,
                self.max_length,
            )?;
        }
        Some(())
    }

    /// Whether every bound holds for any value from `low` to `high` (both included):
    /// then a number known to lie there needs no reading to be judged. Only ever says
    /// `true` when each bound holds at both ends, so `false` means "read it", not
    /// "out of bounds".
    fn bounds_hold_anywhere_in(&self, (low, high): (f64, f64)) -> bool {
        self.minimum.is_none_or(|m| low >= m)
            && self.maximum.is_none_or(|m| high <= m)
            && self.exclusive_minimum.is_none_or(|m| low > m)
            && self.exclusive_maximum.is_none_or(|m| high < m)
    }

    fn number(&self, number: &Number) -> Option<()> {
        // `enum`/`const` here hold no numbers (see `scalars`).
        self.no_allowed_list()?;
        let bounded = self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some();
        if !bounded {
            return Some(());
        }
        let v = exact_f64(number)?;
        let ok = self.minimum.is_none_or(|m| v >= m)
            && self.maximum.is_none_or(|m| v <= m)
            && self.exclusive_minimum.is_none_or(|m| v > m)
            && self.exclusive_maximum.is_none_or(|m| v < m);
        ok.then_some(())
    }
}

/// The number as an `f64` when that is exact (integers up to 2^53, and floats, which
/// `serde_json` already holds as `f64`): compared as `f64`s, bounds then judge as the
/// validator's exact comparison does. `None` for larger integers.
fn exact_f64(number: &Number) -> Option<f64> {
    const EXACT: u64 = 1 << 53;
    if let Some(u) = number.as_u64() {
        return (u <= EXACT).then_some(u as f64);
    }
    if let Some(i) = number.as_i64() {
        return (i.unsigned_abs() <= EXACT).then_some(i as f64);
    }
    number.as_f64()
}

mod compile;

#[cfg(test)]
#[path = "read_check_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "read_check/walk_tests.rs"]
mod walk_tests;
