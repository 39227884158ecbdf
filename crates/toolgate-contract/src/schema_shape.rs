//! Reads a JSON Schema node as an *expected shape*: follows `$ref` (local pointers such as
//! `#/$defs/x` and `#/definitions/x`), merges `allOf` and `$ref` siblings, and collects
//! `type`, `properties`, `required`, `items`/`prefixItems`, `additionalProperties` and the
//! `anyOf`/`oneOf` alternatives. It does not look at instances: choosing an alternative
//! is the walk's job. Unknown keywords and unresolvable references mean "unconstrained",
//! because the validator, not this module, is the judge of validity.

use crate::shared::{SHARED_REF_PREFIX, SharedSchemas};
use crate::types::Types;
use serde_json::Value;
use std::collections::BTreeMap;

/// How many `$ref`/`allOf` expansions one resolution may make; a cycle that never
/// reaches a structural keyword (`a: {$ref: b}`, `b: {$ref: a}`) must still terminate.
const MAX_EXPANSIONS: usize = 256;
/// How far `type_hint` looks through nested alternatives before answering "any".
const HINT_DEPTH: usize = 8;

/// The document `$ref`s resolve in: the schema itself, and the shared components its
/// `toolgate:schemas/…` references name (see `shared`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Root<'s> {
    pub(crate) doc: &'s Value,
    pub(crate) shared: Option<&'s SharedSchemas>,
}

impl<'s> From<&'s Value> for Root<'s> {
    fn from(doc: &'s Value) -> Root<'s> {
        Root { doc, shared: None }
    }
}

/// The merged, structural reading of one or more schemas that all apply to one value.
#[derive(Debug, Default)]
pub(crate) struct Expected<'s> {
    /// Allowed types; `None` when no `type` (or `const`/`enum`) constrains them.
    pub(crate) types: Option<Types>,
    /// Declared properties; several schemas when `allOf` branches declare the same name.
    pub(crate) properties: BTreeMap<&'s str, Vec<&'s Value>>,
    /// Whether any schema declared `properties` (then unknown keys are reported as new).
    pub(crate) declares_properties: bool,
    pub(crate) required: Vec<&'s str>,
    /// Schemas for tuple positions (`prefixItems`, or array-form `items` in old drafts).
    pub(crate) prefix_items: Vec<Vec<&'s Value>>,
    /// Schemas for every other element.
    pub(crate) items: Vec<&'s Value>,
    /// `additionalProperties` when it is a schema: applies to undeclared keys.
    pub(crate) additional: Vec<&'s Value>,
    /// `additionalProperties: false` somewhere.
    pub(crate) closed: bool,
    /// `patternProperties` present: undeclared keys may be legitimate, so they are neither
    /// reported as new nor checked (we do not evaluate the regexes ourselves).
    pub(crate) patterned: bool,
    /// `anyOf`/`oneOf` groups, each a list of alternative schemas.
    pub(crate) alternatives: Vec<Vec<&'s Value>>,
    /// A `false` schema: nothing is allowed here.
    pub(crate) never: bool,
}

impl<'s> Expected<'s> {
    /// Resolves `schemas` (a conjunction) against the document `root`.
    pub(crate) fn resolve(root: Root<'s>, schemas: &[&'s Value]) -> Expected<'s> {
        let mut e = Expected::default();
        let mut work: Vec<&'s Value> = schemas.iter().rev().copied().collect();
        let mut expansions = 0;
        while let Some(schema) = work.pop() {
            let obj = match schema {
                Value::Bool(false) => {
                    e.never = true;
                    continue;
                }
                Value::Object(obj) => obj,
                _ => continue,
            };
            let mut more: Vec<&'s Value> = Vec::new();
            if let Some(target) = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| lookup(root, r))
            {
                more.push(target);
            }
            if let Some(all) = obj.get("allOf").and_then(Value::as_array) {
                more.extend(all.iter());
            }
            if expansions + more.len() <= MAX_EXPANSIONS {
                expansions += more.len();
                work.extend(more.into_iter().rev());
            }
            e.absorb(obj);
        }
        e
    }

    /// Takes the structural keywords of one schema object (not its references).
    fn absorb(&mut self, obj: &'s serde_json::Map<String, Value>) {
        if let Some(t) = declared_types(obj) {
            self.types = Some(self.types.map_or(t, |old| old.intersect(t)));
        }
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            self.declares_properties = true;
            for (k, v) in props {
                self.properties.entry(k.as_str()).or_default().push(v);
            }
        }
        if let Some(req) = obj.get("required").and_then(Value::as_array) {
            self.required.extend(req.iter().filter_map(Value::as_str));
        }
        let mut tuple = obj.get("prefixItems").and_then(Value::as_array);
        match obj.get("items") {
            Some(Value::Array(old_style)) => tuple = Some(old_style),
            Some(items) => self.items.push(items),
            None => {}
        }
        if let Some(tuple) = tuple {
            for (i, s) in tuple.iter().enumerate() {
                if self.prefix_items.len() <= i {
                    self.prefix_items.push(Vec::new());
                }
                if let Some(slot) = self.prefix_items.get_mut(i) {
                    slot.push(s);
                }
            }
            // Draft 7 spelling of "every element past the tuple".
            if let Some(rest) = obj.get("additionalItems").filter(|v| v.is_object()) {
                self.items.push(rest);
            }
        }
        match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => self.closed = true,
            Some(schema @ Value::Object(_)) => self.additional.push(schema),
            _ => {}
        }
        if obj.contains_key("patternProperties") {
            self.patterned = true;
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = obj
                .get(key)
                .and_then(Value::as_array)
                .filter(|a| !a.is_empty())
            {
                self.alternatives.push(alts.iter().collect());
            }
        }
    }

    /// Merges a chosen alternative into this reading, as if it were an `allOf` branch.
    pub(crate) fn merge(&mut self, other: Expected<'s>) {
        if let Some(t) = other.types {
            self.types = Some(self.types.map_or(t, |old| old.intersect(t)));
        }
        for (k, v) in other.properties {
            self.properties.entry(k).or_default().extend(v);
        }
        self.declares_properties |= other.declares_properties;
        self.required.extend(other.required);
        for (i, slot) in other.prefix_items.into_iter().enumerate() {
            if self.prefix_items.len() <= i {
                self.prefix_items.push(Vec::new());
            }
            if let Some(mine) = self.prefix_items.get_mut(i) {
                mine.extend(slot);
            }
        }
        self.items.extend(other.items);
        self.additional.extend(other.additional);
        self.closed |= other.closed;
        self.patterned |= other.patterned;
        self.alternatives.extend(other.alternatives);
        self.never |= other.never;
    }
}

/// Types allowed by `type`, `const` or `enum` in one schema object.
fn declared_types(obj: &serde_json::Map<String, Value>) -> Option<Types> {
    let mut out: Option<Types> = None;
    let mut narrow = |t: Types| out = Some(out.map_or(t, |o: Types| o.intersect(t)));
    match obj.get("type") {
        Some(Value::String(name)) => narrow(Types::from_name(name).unwrap_or(Types::ANY)),
        Some(Value::Array(names)) => narrow(
            names
                .iter()
                .filter_map(Value::as_str)
                .filter_map(Types::from_name)
                .fold(Types::NONE, Types::union),
        ),
        _ => {}
    }
    if let Some(c) = obj.get("const") {
        narrow(Types::of(c).widened());
    }
    if let Some(Value::Array(options)) = obj.get("enum") {
        // An integral option also admits e.g. 2.0; widen so we never contradict the validator.
        narrow(
            options
                .iter()
                .map(|v| Types::of(v).widened())
                .fold(Types::NONE, Types::union),
        );
    }
    out
}

/// Resolves a `$ref` that points into this document (`#`, `#/$defs/x`) or at a shared
/// component (`toolgate:schemas/set/name`). Anchors and other documents are left to the
/// validator: `None` reads as unconstrained.
pub(crate) fn lookup<'s>(root: Root<'s>, reference: &str) -> Option<&'s Value> {
    if reference.starts_with(SHARED_REF_PREFIX) {
        return root.shared?.lookup(reference);
    }
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root.doc);
    }
    if !fragment.starts_with('/') {
        return None;
    }
    root.doc.pointer(&crate::fragment::percent_decode(fragment))
}

/// The type a field is expected to have, for naming it in a report ("string", "object").
pub(crate) fn type_hint(root: Root<'_>, schemas: &[&Value]) -> Types {
    hint(root, schemas, 0)
}

fn hint(root: Root<'_>, schemas: &[&Value], depth: usize) -> Types {
    let e = Expected::resolve(root, schemas);
    let implied = if e.declares_properties || !e.required.is_empty() {
        Types::OBJECT
    } else if !e.items.is_empty() || !e.prefix_items.is_empty() {
        Types::ARRAY
    } else {
        Types::ANY
    };
    let mut t = e.types.unwrap_or(implied);
    if depth < HINT_DEPTH {
        for group in &e.alternatives {
            let any_of = group
                .iter()
                .map(|alt| hint(root, &[alt], depth + 1))
                .fold(Types::NONE, Types::union);
            t = t.intersect(any_of);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn follows_refs_and_merges_all_of() {
        let root = json!({
            "$defs": {"base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
            "allOf": [{"$ref": "#/$defs/base"}, {"properties": {"name": {"type": "string"}}}]
        });
        let e = Expected::resolve((&root).into(), &[&root]);
        assert_eq!(e.types, Some(Types::OBJECT));
        assert_eq!(
            e.properties.keys().copied().collect::<Vec<_>>(),
            ["id", "name"]
        );
        assert_eq!(e.required, ["id"]);
    }

    #[test]
    fn ref_cycles_terminate() {
        let root = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        let e = Expected::resolve((&root).into(), &[&root]);
        assert_eq!(e.types, None);
    }

    #[test]
    fn nullable_type_array_and_hints() {
        let root = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        assert_eq!(
            type_hint((&root).into(), &[&root]),
            Types::STRING.union(Types::NULL)
        );
        let enum_schema = json!({"enum": ["a", "b"]});
        assert_eq!(type_hint((&root).into(), &[&enum_schema]), Types::STRING);
        let obj = json!({"properties": {}});
        assert_eq!(type_hint((&root).into(), &[&obj]), Types::OBJECT);
    }

    #[test]
    fn decodes_escaped_pointers() {
        let root = json!({"$defs": {"a/b": {"type": "string"}, "c%d": {"type": "integer"}}});
        assert_eq!(
            lookup((&root).into(), "#/$defs/a~1b"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            lookup((&root).into(), "#/$defs/c%25d"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(lookup((&root).into(), "other.json#/x"), None);
    }
}
