//! Compiling a contract's schema into the read check's table of rules: which keywords
//! are decided while reading (`Builder::keyword`), which subschemas are handed to
//! `jsonschema` (`Builder::delegate`), and how `$ref`s, local and shared, are followed.

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::PatternCache;
use serde_json::{Value, json};

use super::{
    ANY, MAX_ALIASES, Member, NEVER, Node, NodeId, ReadCheck, Rules, Scalar, exact_f64, kind,
};
use crate::borrowed::Borrowed;
use crate::borrowed::scan::QuotedName;
use crate::fragment::percent_decode;
use crate::shared::{SHARED_REF_PREFIX, SharedSchemas, for_validator, parse_ref};
use crate::validate::any_ref;

/// `required` names tracked per object (one bit each).
const MAX_REQUIRED: usize = 64;
/// Subschemas handed to `jsonschema` per contract: each one that has a `$ref` compiles
/// a copy of the whole schema, so a schema that needs more is checked the full way.
const MAX_DELEGATES: usize = 32;
/// Subschemas nested, and `$ref` links followed, on the way to any one subschema: a
/// schema deeper than this (a chain of thousands of references, which a config written
/// by hand can hold) is checked the full way instead of overflowing the stack here.
const MAX_DEPTH: u32 = 128;
/// The name the whole schema takes when a delegated subschema refers into it.
const CONTRACT_URI: &str = "urn:toolgate:contract";

impl ReadCheck {
    /// Compiles `schema` (whose `toolgate:schemas/…` references name components of
    /// `shared`), or `None` when it cannot be checked this way (then every body is
    /// checked the full way).
    #[cfg(test)]
    pub fn compile(schema: &Value, shared: Option<&SharedSchemas>) -> Option<ReadCheck> {
        Self::compile_sharing(schema, shared, &PatternCache::new())
    }

    /// [`ReadCheck::compile`], taking each `pattern`'s compiled regular expression from
    /// `patterns`.
    pub(crate) fn compile_sharing(
        schema: &Value,
        shared: Option<&SharedSchemas>,
        patterns: &PatternCache,
    ) -> Option<ReadCheck> {
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
            patterns,
            nodes: vec![Node::Any, Node::Never],
            targets: HashMap::new(),
            delegates: 0,
            depth: 0,
            too_deep: false,
        };
        let root = builder.child(schema, Place::Contract(String::new()))?;
        let mut nodes = builder.nodes;
        note_skipped_strings(&mut nodes);
        Some(ReadCheck { nodes, root })
    }
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
    /// Where the delegated subschemas' `pattern`s are compiled, once for all contracts.
    patterns: &'s PatternCache,
    nodes: Vec<Node>,
    /// `$ref` targets already compiled (or compiling), by reference.
    targets: HashMap<String, NodeId>,
    /// Validators compiled for this contract alone (those of shared components are
    /// compiled once for all and not counted).
    delegates: usize,
    /// Subschemas being compiled, one inside the other (see [`MAX_DEPTH`]).
    depth: u32,
    /// Set when [`MAX_DEPTH`] was passed: nothing more is compiled or delegated.
    too_deep: bool,
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
        if self.too_deep {
            return None;
        }
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
        let compiled = if any_ref(schema, |r| r.starts_with('#')) {
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
        let mut options =
            jsonschema::options_for::<Borrowed>().with_pattern_cache(self.patterns.clone());
        if let Some(shared) = self.shared {
            options = options.with_registry(shared.registry());
        }
        let validator = options.build(&compiled).ok()?;
        Some(Node::Delegate(Arc::new(validator)))
    }

    fn node(&mut self, schema: &'s Value, place: &Place) -> Option<Node> {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return None;
        }
        self.depth += 1;
        let node = self.rules_node(schema, place);
        self.depth -= 1;
        node
    }

    /// [`Builder::node`] one level down.
    fn rules_node(&mut self, schema: &'s Value, place: &Place) -> Option<Node> {
        let map = match schema {
            Value::Bool(true) => return Some(Node::Any),
            Value::Bool(false) => return Some(Node::Never),
            Value::Object(map) => map,
            _ => return None,
        };
        if let Some(key) = ["anyOf", "oneOf"]
            .into_iter()
            .find(|k| map.contains_key(*k))
        {
            // Beside any other validating keyword both would apply: not decided here.
            if map.keys().any(|k| k != key && !annotation(k, place)) {
                return None;
            }
            return self.by_kind(map[key].as_array()?, &place.join(key));
        }
        let mut rules = Rules::default();
        let mut validating = 0u32;
        let mut reference = None;
        // `properties` first, whatever the keywords' order: its names' order is the one
        // an object's names are expected in (`ReadCheck::object`), and a schema that
        // lists `required` first would otherwise put its required names ahead of the
        // others, so a body written in the declared order missed the guess on its first
        // optional name.
        let properties_first = map
            .get_key_value("properties")
            .into_iter()
            .chain(map.iter().filter(|(key, _)| *key != "properties"));
        for (key, value) in properties_first {
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
            _ if annotation(key, place) => return Some(Keyword::Annotation),
            // Everything else (`allOf`, `pattern`, `$id`, `minProperties`, …).
            _ => return None,
        }
        Some(Keyword::Validating)
    }

    /// An `anyOf`'s or `oneOf`'s `branches` as one node, when each compiles here and no
    /// two may hold the same kind of value: then at most one branch can accept a value,
    /// the one its kind picks, so "any of" and "one of" agree, and a value of a kind no
    /// branch holds fails as it does in every branch. Otherwise `None` (the whole
    /// subschema goes to `jsonschema`).
    fn by_kind(&mut self, branches: &'s [Value], place: &Place) -> Option<Node> {
        /// More branches than kinds cannot be disjoint (seven kinds, numbers one).
        const MAX_BRANCHES: usize = 6;
        if branches.is_empty() || branches.len() > MAX_BRANCHES {
            return None;
        }
        let mut picks = Vec::with_capacity(branches.len());
        let mut taken = 0u8;
        for (i, branch) in branches.iter().enumerate() {
            let node = self.node(branch, &place.join(&i.to_string()))?;
            let mut kinds = self.kinds_of(&node);
            if kinds & kind::NUMBER != 0 {
                kinds |= kind::NUMBER;
            }
            if kinds & taken != 0 {
                return None;
            }
            taken |= kinds;
            self.nodes.push(node);
            picks.push((kinds, self.nodes.len() - 1));
        }
        Some(Node::ByKind(picks.into()))
    }

    /// The kinds of value `node` may accept: all of them where that is not known (a
    /// delegated subschema, a `$ref` target still compiling).
    fn kinds_of(&self, node: &Node) -> u8 {
        let mut node = node;
        for _ in 0..MAX_ALIASES {
            match node {
                Node::Never => return 0,
                Node::Rules(rules) => return rules.types,
                Node::ByKind(picks) => return picks.iter().fold(0, |all, (k, _)| all | k),
                Node::Alias(target) => node = &self.nodes[*target],
                Node::Any | Node::Delegate(_) => return kind::ALL,
            }
        }
        kind::ALL
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

/// Keywords that describe and never reject (2020-12 treats `format` and the `content*`
/// keywords as annotations unless told otherwise), and the containers of subschemas,
/// compiled when a `$ref` reaches them.
fn annotation(key: &str, place: &Place) -> bool {
    match key {
        "$schema" => matches!(place, Place::Contract(p) if p.is_empty()),
        "$defs" | "definitions" | "title" | "description" | "default" | "examples" | "example"
        | "$comment" | "deprecated" | "readOnly" | "writeOnly" | "format" | "contentMediaType"
        | "contentEncoding" | "contentSchema" | "nullable" | "discriminator" | "xml"
        | "externalDocs" => true,
        _ => key.starts_with("x-"),
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

/// Marks each member and each array's items whose schema takes any string without
/// reading its text (see [`Member::strings_skipped`]). Done once every node is
/// compiled: a `$ref` target is a placeholder until its own schema is.
fn note_skipped_strings(nodes: &mut [Node]) {
    let skipped: Vec<bool> = (0..nodes.len())
        .map(|node| skips_strings(nodes, node))
        .collect();
    for node in nodes.iter_mut() {
        let Node::Rules(rules) = node else { continue };
        rules.item_strings_skipped = skipped[rules.items];
        let additional = rules.additional;
        for member in &mut rules.members {
            member.strings_skipped = skipped[member.schema.unwrap_or(additional)];
        }
    }
}

/// Whether [`ReadCheck::value`] checks a string against `node` only by reading it to
/// its end: the same steps the check takes (aliases and a pick by kind each count
/// against [`MAX_ALIASES`]), ending at a schema that takes any string and reads no
/// text, so skipping the string straight away decides exactly as the full step does.
fn skips_strings(nodes: &[Node], mut node: NodeId) -> bool {
    for _ in 0..MAX_ALIASES {
        match &nodes[node] {
            Node::Alias(target) => node = *target,
            Node::Any => return true,
            Node::Rules(rules) => {
                return rules.admits(kind::STRING).is_some() && !rules.reads_strings();
            }
            Node::ByKind(branches) => {
                match branches.iter().find(|(kinds, _)| kinds & kind::STRING != 0) {
                    Some(&(_, branch)) => node = branch,
                    None => return false,
                }
            }
            Node::Never | Node::Delegate(_) => return false,
        }
    }
    false
}

fn member<'m>(members: &'m mut Vec<Member>, name: &str) -> &'m mut Member {
    let at = match members.iter().position(|m| &*m.name == name) {
        Some(at) => at,
        None => {
            members.push(Member {
                name: name.into(),
                written_as_is: !name.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20),
                quoted: QuotedName::of(name),
                schema: None,
                required_bit: 0,
                strings_skipped: false,
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
