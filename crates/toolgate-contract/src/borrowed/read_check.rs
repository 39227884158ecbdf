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
//! the bytes are one JSON document that `serde_json` accepts and that the schema
//! accepts; `false` means "not vouched for" — the body is invalid, or holds something
//! this check does not decide (a float under `integer`, a bound too large for an exact
//! comparison) — and the caller reads the body the full way, whose verdict and drift
//! report stand.
//!
//! The keywords most contracts are made of (`type`, `properties`, `required`, `items`,
//! `enum` of scalars, bounds, local `$ref`s; `Builder::keyword` lists them) are decided
//! here, as the bytes go by, and so are shared components (`toolgate:schemas/…`), which
//! imported contracts are made of. A subschema with any other keyword (`anyOf`,
//! `pattern`, `allOf`, …) is handed to `jsonschema` whole: only the value it judges is
//! read into a [`Doc`] and checked by a validator compiled for that subschema
//! (`Node::Delegate`), and the rest of the body is still checked in passing. A schema
//! with a file `$ref` or an `$id` has no read check. Tests compare it with `jsonschema`
//! on generated schemas and documents (`read_check_tests.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::Validator;
use serde_json::{Number, Value, json};

use super::scan::Reader;
use super::{Borrowed, Doc};
use crate::fragment::percent_decode;
use crate::shared::{SHARED_REF_PREFIX, SharedSchemas, for_validator, parse_ref};

/// Index of a [`Node`] in [`ReadCheck::nodes`].
type NodeId = usize;

/// `true`, `{}`: any JSON value.
const ANY: NodeId = 0;
/// `false`: no value.
const NEVER: NodeId = 1;
/// `$ref`s followed in a row before giving up (a schema may alias itself).
const MAX_ALIASES: usize = 32;
/// `required` names tracked per object (one bit each).
const MAX_REQUIRED: usize = 64;
/// Subschemas handed to `jsonschema` per contract: each one that has a `$ref` compiles
/// a copy of the whole schema, so a schema that needs more is checked the full way.
const MAX_DELEGATES: usize = 32;
/// The name the whole schema takes when a delegated subschema refers into it.
const CONTRACT_URI: &str = "urn:toolgate:contract";

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
    schema: Option<NodeId>,
    required_bit: u64,
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
            min_items: None,
            max_items: None,
            members: Vec::new(),
            required: 0,
            additional: ANY,
        }
    }
}

impl ReadCheck {
    /// Compiles `schema` (whose `toolgate:schemas/…` references name components of
    /// `shared`), or `None` when it cannot be checked this way (then every body is
    /// checked the full way).
    pub fn compile(schema: &Value, shared: Option<&SharedSchemas>) -> Option<ReadCheck> {
        if let Some(dialect) = schema.get("$schema") {
            let dialect = dialect.as_str()?.trim_end_matches('#');
            if dialect != "https://json-schema.org/draft/2020-12/schema" {
                return None;
            }
        }
        if !self_contained(schema, shared.is_some(), 0) {
            return None;
        }
        let mut builder = Builder {
            root: schema,
            shared,
            nodes: vec![Node::Any, Node::Never],
            targets: HashMap::new(),
            delegates: 0,
        };
        let root = builder.child(schema, Place::Contract(String::new()))?;
        Some(ReadCheck {
            nodes: builder.nodes,
            root,
        })
    }

    /// `true` when `bytes` are one JSON document (surrounding whitespace allowed) that
    /// `serde_json` accepts and the schema accepts; `false` when that was not shown.
    pub fn vouches_for(&self, bytes: &[u8]) -> bool {
        let Some(mut reader) = Reader::new(bytes) else {
            return false;
        };
        self.value(&mut reader, self.root).is_some() && reader.at_end()
    }

    /// Reads one value at the reader's position and checks it against `node`; `None`
    /// when it is not JSON, not valid, or not decided here.
    fn value(&self, r: &mut Reader<'_>, mut node: NodeId) -> Option<()> {
        for _ in 0..MAX_ALIASES {
            match &self.nodes[node] {
                Node::Alias(target) => node = *target,
                Node::Any => return skip(r),
                Node::Never => return None,
                Node::Rules(rules) => return self.checked(r, rules),
                Node::Delegate(validator) => {
                    let doc = r.value()?;
                    return validator.is_valid(&doc).then_some(());
                }
            }
        }
        None
    }

    fn checked(&self, r: &mut Reader<'_>, rules: &Rules) -> Option<()> {
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
                let Doc::Number(number) = r.number()? else {
                    return None;
                };
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

    fn array(&self, r: &mut Reader<'_>, rules: &Rules) -> Option<()> {
        r.enter()?;
        let mut count = 0u64;
        r.list_until(b']', |r| {
            count += 1;
            self.value(r, rules.items)
        })?;
        r.leave();
        within(count, rules.min_items, rules.max_items)
    }

    fn object(&self, r: &mut Reader<'_>, rules: &Rules) -> Option<()> {
        r.enter()?;
        let mut seen = 0u64;
        r.list_until(b'}', |r| {
            let name = r.member_name()?;
            // A repeated name is checked each time: if every occurrence is valid, the
            // last one (the one a `Value` keeps) is.
            let member = rules
                .members
                .iter()
                .find(|m| m.name.len() == name.len() && *m.name == *name);
            let schema = match member {
                Some(m) => {
                    seen |= m.required_bit;
                    m.schema.unwrap_or(rules.additional)
                }
                None => rules.additional,
            };
            self.value(r, schema)
        })?;
        r.leave();
        (seen & rules.required == rules.required).then_some(())
    }
}

/// Reads one value of any shape, checking only that it is JSON.
fn skip(r: &mut Reader<'_>) -> Option<()> {
    r.skip_space();
    match r.peek()? {
        b'{' => {
            r.enter()?;
            r.list_until(b'}', |r| {
                r.member_name()?;
                skip(r)
            })?;
            r.leave();
            Some(())
        }
        b'[' => {
            r.enter()?;
            r.list_until(b']', skip)?;
            r.leave();
            Some(())
        }
        b'"' => r.string().map(drop),
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

/// Whether every `$ref` in `schema` is local (`#…`) or names a shared component (with
/// `shared`), and no `$id` moves the base: then a delegated subschema resolves its
/// references inside the schema and the shared registry, and nothing is read from a
/// file.
fn self_contained(schema: &Value, shared: bool, depth: u32) -> bool {
    if depth > 256 {
        return false;
    }
    match schema {
        Value::Object(map) => map.iter().all(|(key, value)| match key.as_str() {
            "$ref" => value.as_str().is_some_and(|r| {
                r.starts_with('#') || (shared && r.starts_with(SHARED_REF_PREFIX))
            }),
            "$id" | "$dynamicRef" | "$dynamicAnchor" | "$anchor" => false,
            // Values, not schemas.
            "const" | "enum" | "default" | "examples" => true,
            _ => self_contained(value, shared, depth + 1),
        }),
        Value::Array(items) => items.iter().all(|v| self_contained(v, shared, depth + 1)),
        _ => true,
    }
}

/// Where a subschema sits, as a JSON Pointer (unescaped `~0`/`~1` form).
#[derive(Debug, Clone)]
enum Place {
    /// In the contract's own schema.
    Contract(String),
    /// In a shared component, whose references all name components: its subschemas
    /// compile against the registry alone.
    Component {
        set: String,
        name: String,
        pointer: String,
    },
}

impl Place {
    /// The place one step down (`segment` already escaped).
    fn join(&self, segment: &str) -> Place {
        match self {
            Place::Contract(p) => Place::Contract(format!("{p}/{segment}")),
            Place::Component { set, name, pointer } => Place::Component {
                set: set.clone(),
                name: name.clone(),
                pointer: format!("{pointer}/{segment}"),
            },
        }
    }
}

/// Compiles a schema into nodes.
struct Builder<'s> {
    root: &'s Value,
    shared: Option<&'s SharedSchemas>,
    nodes: Vec<Node>,
    /// `$ref` targets already compiled (or compiling), by reference.
    targets: HashMap<String, NodeId>,
    /// Validators compiled for this contract alone (those of shared components are
    /// compiled once for all and not counted).
    delegates: usize,
}

impl<'s> Builder<'s> {
    /// Compiles the subschema at `place` into a node.
    fn child(&mut self, schema: &'s Value, place: Place) -> Option<NodeId> {
        let node = match self.node(schema, &place) {
            Some(node) => node,
            None => self.delegate(schema, &place)?,
        };
        Some(match node {
            Node::Any => ANY,
            Node::Never => NEVER,
            other => {
                self.nodes.push(other);
                self.nodes.len() - 1
            }
        })
    }

    /// The subschema at `place` as its own `jsonschema` validator. Inside a component it
    /// is the registry's, compiled once for every contract. In the contract's schema, one
    /// without a local `$ref` compiles alone (shared components through the registry);
    /// one with a local `$ref` compiles as a reference into a copy of the whole schema,
    /// so its references resolve as they do in the contract.
    fn delegate(&mut self, schema: &Value, place: &Place) -> Option<Node> {
        let pointer = match place {
            Place::Component { set, name, pointer } => {
                let reference = format!(
                    "{SHARED_REF_PREFIX}{set}#/$defs/{name}{}",
                    fragment(pointer)
                );
                return Some(Node::Delegate(self.shared?.read_delegate(&reference)?));
            }
            Place::Contract(pointer) => pointer,
        };
        if self.delegates == MAX_DELEGATES {
            return None;
        }
        self.delegates += 1;
        let compiled = if has_local_ref(schema, 0) {
            let mut contract = for_validator(self.root);
            contract
                .as_object_mut()?
                .insert("$id".into(), json!(CONTRACT_URI));
            json!({
                "$ref": format!("{CONTRACT_URI}#{}", fragment(pointer)),
                "$defs": {"contract": contract},
            })
        } else {
            for_validator(schema)
        };
        let mut options = jsonschema::options_for::<Borrowed>();
        if let Some(shared) = self.shared {
            options = options.with_registry(shared.registry());
        }
        let validator = options.build(&compiled).ok()?;
        Some(Node::Delegate(Arc::new(validator)))
    }

    fn node(&mut self, schema: &'s Value, place: &Place) -> Option<Node> {
        let map = match schema {
            Value::Bool(true) => return Some(Node::Any),
            Value::Bool(false) => return Some(Node::Never),
            Value::Object(map) => map,
            _ => return None,
        };
        let mut rules = Rules::default();
        let mut validating = 0u32;
        let mut reference = None;
        for (key, value) in map {
            match self.keyword(key, value, &mut rules, place)? {
                Keyword::Validating => validating += 1,
                Keyword::Reference(target) => reference = Some(target),
                Keyword::Annotation => {}
            }
        }
        Some(match (reference, validating) {
            // `$ref` beside other validating keywords applies both: not decided here.
            (Some(_), 1..) => return None,
            (Some(target), 0) => Node::Alias(target),
            (None, 0) => Node::Any,
            (None, _) => Node::Rules(Box::new(rules)),
        })
    }

    /// Takes one keyword into `rules`; `None` when it is one this check does not decide.
    fn keyword(
        &mut self,
        key: &str,
        value: &'s Value,
        rules: &mut Rules,
        place: &Place,
    ) -> Option<Keyword> {
        match key {
            "type" => rules.types = types(value)?,
            "enum" => {
                if rules.allowed.is_some() {
                    return None;
                }
                rules.allowed = Some(scalars(value.as_array()?)?);
            }
            "const" => {
                if rules.allowed.is_some() {
                    return None;
                }
                rules.allowed = Some(scalars(std::slice::from_ref(value))?);
            }
            "minLength" => rules.min_length = Some(value.as_u64()?),
            "maxLength" => rules.max_length = Some(value.as_u64()?),
            "minItems" => rules.min_items = Some(value.as_u64()?),
            "maxItems" => rules.max_items = Some(value.as_u64()?),
            "minimum" => rules.minimum = Some(bound(value)?),
            "maximum" => rules.maximum = Some(bound(value)?),
            "exclusiveMinimum" => rules.exclusive_minimum = Some(bound(value)?),
            "exclusiveMaximum" => rules.exclusive_maximum = Some(bound(value)?),
            "items" => rules.items = self.child(value, place.join("items"))?,
            "additionalProperties" => {
                rules.additional = self.child(value, place.join("additionalProperties"))?;
            }
            "properties" => {
                for (name, sub) in value.as_object()? {
                    let escaped = name.replace('~', "~0").replace('/', "~1");
                    let schema = self.child(sub, place.join(&format!("properties/{escaped}")))?;
                    member(&mut rules.members, name).schema = Some(schema);
                }
            }
            "required" => {
                let names = value.as_array()?;
                if names.len() > MAX_REQUIRED {
                    return None;
                }
                for (i, name) in names.iter().enumerate() {
                    let bit = 1u64 << i;
                    member(&mut rules.members, name.as_str()?).required_bit |= bit;
                    rules.required |= bit;
                }
            }
            "uniqueItems" if value == &Value::Bool(false) => return Some(Keyword::Annotation),
            "$ref" => return Some(Keyword::Reference(self.reference(value.as_str()?)?)),
            "$schema" if matches!(place, Place::Contract(p) if p.is_empty()) => {
                return Some(Keyword::Annotation);
            }
            // Containers of subschemas, compiled when a `$ref` reaches them.
            "$defs" | "definitions" => return Some(Keyword::Annotation),
            // Annotations: they describe, they never reject (2020-12 treats `format`
            // and the `content*` keywords as annotations unless told otherwise).
            "title" | "description" | "default" | "examples" | "example" | "$comment"
            | "deprecated" | "readOnly" | "writeOnly" | "format" | "contentMediaType"
            | "contentEncoding" | "contentSchema" | "nullable" | "discriminator" | "xml"
            | "externalDocs" => return Some(Keyword::Annotation),
            _ if key.starts_with("x-") => return Some(Keyword::Annotation),
            // Everything else (`allOf`, `pattern`, `$id`, `minProperties`, …).
            _ => return None,
        }
        Some(Keyword::Validating)
    }

    /// The node a `$ref` names: local (`#` or `#/json/pointer`) or a shared component.
    fn reference(&mut self, reference: &'s str) -> Option<NodeId> {
        if let Some(&id) = self.targets.get(reference) {
            return Some(id);
        }
        let (target, place) = match reference.strip_prefix('#') {
            Some(pointer) => {
                if !(pointer.is_empty() || pointer.starts_with('/')) || pointer.contains('%') {
                    return None;
                }
                let target = self.root.pointer(pointer)?;
                (target, Place::Contract(pointer.to_owned()))
            }
            None => {
                let named = parse_ref(reference)?;
                let place = Place::Component {
                    set: named.set.to_owned(),
                    name: named.name.to_owned(),
                    pointer: percent_decode(named.pointer),
                };
                (self.shared?.lookup(reference)?, place)
            }
        };
        // Reserve the node first: the target may refer back to itself.
        self.nodes.push(Node::Any);
        let id = self.nodes.len() - 1;
        self.targets.insert(reference.to_owned(), id);
        let node = match self.node(target, &place) {
            Some(node) => node,
            None => self.delegate(target, &place)?,
        };
        self.nodes[id] = match node {
            Node::Any => Node::Alias(ANY),
            Node::Never => Node::Alias(NEVER),
            other => other,
        };
        Some(id)
    }
}

/// Whether a local `$ref` (`#…`) appears anywhere in `schema`.
fn has_local_ref(schema: &Value, depth: u32) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| {
            (key == "$ref" && value.as_str().is_some_and(|r| r.starts_with('#')))
                || (depth < 256 && has_local_ref(value, depth + 1))
        }),
        Value::Array(items) => items
            .iter()
            .any(|v| depth < 256 && has_local_ref(v, depth + 1)),
        _ => false,
    }
}

/// A JSON Pointer as a URI fragment: every byte but unreserved ones and `/`
/// percent-encoded (the resolver decodes them before following the pointer).
fn fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for &b in pointer.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

enum Keyword {
    Validating,
    Reference(NodeId),
    Annotation,
}

fn member<'m>(members: &'m mut Vec<Member>, name: &str) -> &'m mut Member {
    let at = match members.iter().position(|m| &*m.name == name) {
        Some(at) => at,
        None => {
            members.push(Member {
                name: name.into(),
                schema: None,
                required_bit: 0,
            });
            members.len() - 1
        }
    };
    &mut members[at]
}

fn types(value: &Value) -> Option<u8> {
    let one = |name: &Value| {
        Some(match name.as_str()? {
            "null" => kind::NULL,
            "boolean" => kind::BOOL,
            // `integer` also admits floats with no fraction (`1.0`): not decided here.
            "integer" => kind::INTEGER,
            "number" => kind::INTEGER | kind::FLOAT,
            "string" => kind::STRING,
            "array" => kind::ARRAY,
            "object" => kind::OBJECT,
            _ => return None,
        })
    };
    match value {
        Value::Array(names) => names.iter().try_fold(0, |acc, n| Some(acc | one(n)?)),
        name => one(name),
    }
}

/// `enum`/`const` values, when all are null, booleans or strings.
fn scalars(values: &[Value]) -> Option<Vec<Scalar>> {
    values
        .iter()
        .map(|v| match v {
            Value::Null => Some(Scalar::Null),
            Value::Bool(b) => Some(Scalar::Bool(*b)),
            Value::String(s) => Some(Scalar::String(s.clone())),
            _ => None,
        })
        .collect()
}

fn bound(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => exact_f64(n),
        _ => None,
    }
}

#[cfg(test)]
#[path = "read_check_tests.rs"]
mod tests;
