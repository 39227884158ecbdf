//! Compares two versions of one JSON Schema (a pinned tool definition's `inputSchema` or
//! `outputSchema` and the live one) and explains the difference as a rename-aware
//! [`Drift`], the same vocabulary response drift uses.
//!
//! Why schema against schema and not "an example of one checked against the other" (what
//! a re-import of an OpenAPI spec does): an example shows only what one generated
//! instance exercises. It cannot see an optional property that disappeared, a property
//! that became required, a narrowed `enum`, or — the case that matters most for pinned
//! definitions — a changed `description` of a nested property, which is where a poisoned
//! tool hides its instruction. Walking both schemas side by side sees all of those, and
//! its work is bounded by the schemas alone (an example generator expands `$ref` fan-out
//! exponentially).
//!
//! Direction decides what is breaking. Inputs: callers keep sending what the old schema
//! allowed, so a new required property, a removed or narrowed one break them, while a new
//! optional property does not. Outputs: callers keep reading what the old schema promised,
//! so a removed property or a widened type breaks them, while a new property does not.

use crate::drift::{Change, Drift};
use crate::findings::Findings;
use crate::path::{Path, Seg};
use crate::schema_shape::Expected;
use crate::text::{capped, changed_window};
use crate::types::Types;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The schema that allows everything, standing in for an absent `items`.
static ANY_SCHEMA: Value = Value::Bool(true);

/// Which way data flows through the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Arguments callers send (`inputSchema`).
    Input,
    /// Results callers read (`outputSchema`).
    Output,
}

/// Deepest schema nesting compared; deeper differences are reported once at the cut.
const MAX_DEPTH: usize = 32;
/// Units of work per comparison (a node visited, a property or keyword collected):
/// shared `$defs` reached from many places are compared at every place, and this keeps
/// a hostile fan-out bounded (a full budget is well under a second).
const BUDGET: usize = 200_000;
/// `$ref`/`allOf` expansions when collecting the keywords of one node.
const MAX_EXPANSIONS: usize = 256;
/// How far [`Walker::hint`] looks through nested alternatives (as `type_hint` does).
const HINT_DEPTH: usize = 8;
/// Differences reported inside one keyword the walk does not descend into (`anyOf`).
const MAX_LEAVES: usize = 8;
/// Characters kept of a keyword's old and new value.
const VALUE_CHARS: usize = 600;

/// Keywords whose change cannot break a caller: they describe, they do not constrain.
/// They still matter (a description is what the model reads) and are always reported.
fn is_annotation(keyword: &str) -> bool {
    matches!(
        keyword,
        "description"
            | "title"
            | "examples"
            | "example"
            | "default"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "$comment"
            | "$anchor"
            | "$id"
            | "$schema"
            | "contentMediaType"
    ) || keyword.starts_with("x-")
}

/// Keywords the structural walk reads itself; everything else is compared as a keyword.
fn is_structural(keyword: &str) -> bool {
    matches!(
        keyword,
        "$ref"
            | "$defs"
            | "definitions"
            | "allOf"
            | "properties"
            | "required"
            | "items"
            | "prefixItems"
            | "type"
    )
}

/// The rename-aware diff of `old` → `new`, or `None` when they are equal (object key
/// order does not count). Never empty when the schemas differ.
pub(crate) fn diff_schemas(old: &Value, new: &Value, direction: Direction) -> Option<Drift> {
    if old == new {
        return None;
    }
    // `required`, `type` and `enum` are sets: another order is not a change.
    let (old, new) = (&normalized(old, 0), &normalized(new, 0));
    if old == new {
        return None;
    }
    let mut w = Walker::new(old, new, direction);
    w.walk(&[old], &[new], &mut Path::default(), 0);
    let mut changes = w.changes_level_by_level();
    if w.budget == 0 {
        changes.push(Change::Invalid {
            path: String::new(),
            message: "comparison stopped early: the schemas are too large to compare in full"
                .to_owned(),
        });
    }
    changes.append(&mut w.extra);
    unreached_definitions(&w, &mut changes);
    if changes.is_empty() {
        first_leaf_changes(old, new, direction, &mut changes);
    }
    if changes.is_empty() {
        changes.push(Change::Invalid {
            path: String::new(),
            message: "the schema changed".to_owned(),
        });
    }
    // Breaking changes first, each group by path, so the summary leads with what breaks.
    changes.sort_by(|a, b| {
        (!a.is_breaking(), a.path(), a.kind_name()).cmp(&(
            !b.is_breaking(),
            b.path(),
            b.kind_name(),
        ))
    });
    Some(Drift::new(changes, Vec::new()))
}

/// A definition nothing refers to still reaches the model (it reads the schema's text),
/// so its changes are reported too, at the root: every `$defs` or `definitions` entry
/// the walk did not reach on either side.
fn unreached_definitions(w: &Walker<'_>, changes: &mut Vec<Change>) {
    let (old, new) = (w.old_root, w.new_root);
    for defs in ["$defs", "definitions"] {
        fn table<'v>(root: &'v Value, defs: &str) -> Option<&'v serde_json::Map<String, Value>> {
            root.get(defs).and_then(Value::as_object)
        }
        let names: BTreeSet<&String> = table(old, defs)
            .into_iter()
            .chain(table(new, defs))
            .flat_map(|m| m.keys())
            .collect();
        for name in names {
            let (o, n) = (
                table(old, defs).and_then(|m| m.get(name)),
                table(new, defs).and_then(|m| m.get(name)),
            );
            let seen = |v: Option<&Value>| {
                v.is_some_and(|v| w.reached.contains(&(std::ptr::from_ref(v) as usize)))
            };
            if o == n || seen(o) || seen(n) {
                continue;
            }
            let mut leaves = Vec::new();
            leaf_diffs(o, n, format!("{defs}/{}", escape(name)), &mut leaves, 0);
            for (pointer, b, a) in leaves {
                changes.push(keyword_change(
                    &Path::default(),
                    &pointer,
                    b,
                    a,
                    w.direction,
                ));
            }
        }
    }
}

/// Schemas equal as values but not structurally different anywhere the walk looks:
/// still a change, shown at its first places.
fn first_leaf_changes(old: &Value, new: &Value, direction: Direction, changes: &mut Vec<Change>) {
    let mut leaves = Vec::new();
    leaf_diffs(Some(old), Some(new), String::new(), &mut leaves, 0);
    for (pointer, b, a) in leaves {
        let pointer = pointer.trim_start_matches('/');
        changes.push(keyword_change(&Path::default(), pointer, b, a, direction));
    }
}

/// (keyword, old value addresses, new value addresses, type changed here) → changes.
type KeywordMemo = BTreeMap<(String, Vec<usize>, Vec<usize>, bool), Vec<Change>>;

struct Walker<'s> {
    old_root: &'s Value,
    new_root: &'s Value,
    direction: Direction,
    budget: usize,
    findings: Findings,
    /// Changes that are not structural findings (keywords, required-ness, widened types).
    extra: Vec<Change>,
    /// Paths of properties only the new schema declares and requires.
    required_new: BTreeSet<String>,
    /// The (old, new) pairs of schema nodes already compared, by the schema objects they
    /// consist of (the referring `{"$ref": …}` object included). Meeting a pair again
    /// means the same referring object was reached again — a `$ref` cycle — and its
    /// differences are already reported. Two properties referring to one `$defs` entry
    /// are two referring objects, so a change in the entry is reported under both.
    visited: BTreeSet<(Vec<usize>, Vec<usize>)>,
    /// Keyword comparisons already made, by keyword and the addresses of both values.
    keyword_memo: KeywordMemo,
    /// Addresses of every schema object compared (both documents).
    reached: BTreeSet<usize>,
    /// Type hints already worked out, by (document, schema addresses, alternative depth).
    hint_memo: BTreeMap<(usize, Vec<usize>, usize), Types>,
    /// Schemas of properties only the old side declares, by path (for renames).
    removed_at: BTreeMap<String, Vec<&'s Value>>,
    /// Schemas of properties only the new side declares, by path.
    added_at: BTreeMap<String, (Path, Vec<&'s Value>)>,
}

/// A key as a JSON Pointer token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Addresses of values, for memo keys.
fn identity_of(values: &[&Value]) -> Vec<usize> {
    values
        .iter()
        .map(|v| std::ptr::from_ref(*v) as usize)
        .collect()
}

/// A memoised keyword change, moved to another place.
fn at_path(change: &Change, path: &str) -> Change {
    let mut c = change.clone();
    if let Change::Keyword { path: p, .. } = &mut c {
        *p = path.to_owned();
    }
    c
}

/// The schema objects a node reaches through `$ref` and `allOf`, by address.
fn identity(root: &Value, schemas: &[&Value]) -> Vec<usize> {
    let mut ids: Vec<usize> = reach(root, schemas)
        .into_iter()
        .map(|s| std::ptr::from_ref(s) as usize)
        .collect();
    ids.sort_unstable();
    ids
}

/// Nesting beyond which [`normalized`] leaves a value as it is.
const NORMALIZE_DEPTH: usize = 256;

/// `schema` with the set-valued keywords (`required`, `type`, `enum`) sorted.
fn normalized(schema: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(m) if depth < NORMALIZE_DEPTH => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("required" | "type" | "enum", Value::Array(items)) => {
                            let mut items = items.clone();
                            items.sort_by_cached_key(Value::to_string);
                            items.dedup();
                            Value::Array(items)
                        }
                        _ => normalized(v, depth + 1),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) if depth < NORMALIZE_DEPTH => {
            Value::Array(items.iter().map(|v| normalized(v, depth + 1)).collect())
        }
        other => other.clone(),
    }
}

impl<'s> Walker<'s> {
    /// A walker over `old_root` → `new_root`, with the whole budget and nothing found.
    fn new(old_root: &'s Value, new_root: &'s Value, direction: Direction) -> Self {
        Walker {
            old_root,
            new_root,
            direction,
            budget: BUDGET,
            findings: Findings::default(),
            extra: Vec::new(),
            required_new: BTreeSet::new(),
            visited: BTreeSet::new(),
            removed_at: BTreeMap::new(),
            added_at: BTreeMap::new(),
            keyword_memo: KeywordMemo::new(),
            hint_memo: BTreeMap::new(),
            reached: BTreeSet::new(),
        }
    }

    /// The findings of the walk so far as changes, one level at a time.
    ///
    /// Renames are only known once a level's findings are paired; a renamed property's
    /// own schema is then compared old against new (its description may have changed
    /// with its name), which can find renames one level down, and so on.
    fn changes_level_by_level(&mut self) -> Vec<Change> {
        let mut changes: Vec<Change> = Vec::new();
        loop {
            let findings = std::mem::take(&mut self.findings);
            let level = findings.into_changes(&|_, _, _| false);
            self.walk_below(&level);
            let direction = self.direction;
            changes.extend(level.into_iter().map(|c| match c {
                // A new input property callers must now send breaks every existing call.
                Change::Added { path, found }
                    if direction == Direction::Input && self.required_new.contains(&path) =>
                {
                    Change::Invalid {
                        path,
                        message: format!("new required property ({found})"),
                    }
                }
                other => other,
            }));
            if self.findings.len() == 0 || self.budget == 0 {
                break;
            }
        }
        changes
    }

    /// Below one level's changes: a renamed property's old and new schemas compared, an
    /// added property's schema described.
    fn walk_below(&mut self, level: &[Change]) {
        for c in level {
            match c {
                Change::Renamed { from, to, .. } => {
                    let o = self.removed_at.get(from).cloned();
                    let n = self.added_at.get(to).cloned();
                    if let (Some(o), Some((mut at, n))) = (o, n) {
                        let depth = at.0.len();
                        self.walk(&o, &n, &mut at, depth);
                    }
                }
                Change::Added { path, .. } => {
                    if let Some((at, n)) = self.added_at.get(path).cloned() {
                        self.describe_new(&n, &at, 0);
                    }
                }
                _ => {}
            }
        }
    }

    /// Spends `units` of the budget (never below zero).
    fn charge(&mut self, units: usize) {
        self.budget = self.budget.saturating_sub(units);
    }

    /// [`Expected::resolve`], charged by what it collected: a node reached from many
    /// places costs its size at each, so a large shared definition cannot multiply work
    /// past the budget.
    fn resolve(&mut self, root: &'s Value, schemas: &[&'s Value]) -> Expected<'s> {
        let e = Expected::resolve(root.into(), schemas);
        // Reading an `enum` walks every option (to learn its types): count those too.
        let options: usize = reach(root, schemas)
            .iter()
            .filter_map(|s| s.get("enum").and_then(Value::as_array))
            .map(Vec::len)
            .sum();
        let size = e.properties.values().map(Vec::len).sum::<usize>()
            + e.alternatives.iter().map(Vec::len).sum::<usize>()
            + e.items.len()
            + e.prefix_items.len()
            + options;
        self.charge(1 + size);
        e
    }

    /// The types a node allows, as `schema_shape::type_hint` reads them, but charged to
    /// the budget: nested `anyOf` groups reached through `$ref` multiply (a few hundred
    /// references can mean 100⁸ alternatives), and an untrusted schema must not make
    /// that a hang. Past the budget a node reads as "any type".
    fn hint(&mut self, root: &'s Value, schemas: &[&'s Value], depth: usize) -> Types {
        if self.budget == 0 {
            return Types::ANY;
        }
        let key = (
            std::ptr::from_ref(root) as usize,
            identity_of(schemas),
            depth,
        );
        if let Some(t) = self.hint_memo.get(&key) {
            return *t;
        }
        let t = self.hint_uncached(root, schemas, depth);
        self.hint_memo.insert(key, t);
        t
    }

    fn hint_uncached(&mut self, root: &'s Value, schemas: &[&'s Value], depth: usize) -> Types {
        let e = self.resolve(root, schemas);
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
                let mut any_of = Types::NONE;
                for alt in group {
                    any_of = any_of.union(self.hint(root, &[alt], depth + 1));
                }
                t = t.intersect(any_of);
            }
        }
        t
    }

    /// [`keywords`], charged by the number of values collected.
    fn keywords(
        &mut self,
        root: &'s Value,
        schemas: &[&'s Value],
    ) -> BTreeMap<&'s str, Vec<&'s Value>> {
        let k = keywords(root, schemas);
        self.charge(1 + k.values().map(Vec::len).sum::<usize>());
        k
    }

    fn walk(&mut self, old: &[&'s Value], new: &[&'s Value], path: &mut Path, depth: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        if depth > MAX_DEPTH {
            if old != new {
                self.findings.invalid(
                    path,
                    format!("nested deeper than {MAX_DEPTH} levels; not compared further"),
                );
            }
            return;
        }
        let key = (identity(self.old_root, old), identity(self.new_root, new));
        if self.visited.contains(&key) {
            return;
        }
        self.reached.extend(key.0.iter().chain(&key.1).copied());
        self.visited.insert(key);
        self.compare_node(old, new, path, depth);
    }

    fn compare_node(
        &mut self,
        old: &[&'s Value],
        new: &[&'s Value],
        path: &mut Path,
        depth: usize,
    ) {
        let oe = self.resolve(self.old_root, old);
        let ne = self.resolve(self.new_root, new);
        let ot = self.hint(self.old_root, old, 0);
        let nt = self.hint(self.new_root, new, 0);
        let types_changed = ot != nt;
        if types_changed {
            // Inputs: the new schema must accept every type callers send; outputs: callers
            // must accept every type the new schema may return.
            let breaks = match self.direction {
                Direction::Input => !nt.accepts(ot),
                Direction::Output => !ot.accepts(nt),
            };
            if breaks {
                self.findings.type_changed(path, ot, nt);
            } else {
                self.extra.push(Change::Keyword {
                    path: path.to_string(),
                    keyword: "type".to_owned(),
                    before: Some(ot.name()),
                    after: Some(nt.name()),
                    breaking: false,
                });
            }
        }
        self.compare_keywords(old, new, path, types_changed);
        if ot.intersect(Types::OBJECT).is_empty() || nt.intersect(Types::OBJECT).is_empty() {
            // One side is not an object at all: the type change already says it.
        } else {
            self.compare_properties(&oe, &ne, path, depth);
        }
        if !ot.intersect(Types::ARRAY).is_empty() && !nt.intersect(Types::ARRAY).is_empty() {
            // A side without `items` (or without a tuple position) allows any element:
            // compared as the `true` schema, so adding `items` narrows and removing widens.
            let any: &'s Value = &ANY_SCHEMA;
            let or_any = |v: &Vec<&'s Value>| if v.is_empty() { vec![any] } else { v.clone() };
            if !oe.items.is_empty() || !ne.items.is_empty() {
                path.push(Seg::Items);
                self.walk(&or_any(&oe.items), &or_any(&ne.items), path, depth + 1);
                path.pop();
            }
            let tuple = oe.prefix_items.len().max(ne.prefix_items.len());
            for i in 0..tuple {
                let side = |p: &Vec<Vec<&'s Value>>| p.get(i).map_or_else(|| vec![any], or_any);
                let (o, n) = (side(&oe.prefix_items), side(&ne.prefix_items));
                path.push(Seg::Index(i));
                self.walk(&o, &n, path, depth + 1);
                path.pop();
            }
        }
    }

    fn compare_properties(
        &mut self,
        oe: &Expected<'s>,
        ne: &Expected<'s>,
        path: &mut Path,
        depth: usize,
    ) {
        let names: BTreeSet<&str> = oe
            .properties
            .keys()
            .chain(ne.properties.keys())
            .copied()
            .collect();
        for name in names {
            path.push(Seg::Key(name.to_owned()));
            let was_required = oe.required.contains(&name);
            let is_required = ne.required.contains(&name);
            match (oe.properties.get(name), ne.properties.get(name)) {
                (Some(o), Some(n)) => {
                    self.walk(o, n, path, depth + 1);
                    if was_required != is_required {
                        self.required_flip(path, was_required, is_required);
                    }
                }
                (Some(o), None) => {
                    let t = self.hint(self.old_root, o, 0);
                    self.findings.missing(path, t);
                    self.removed_at.insert(path.to_string(), o.clone());
                }
                (None, Some(n)) => {
                    let t = self.hint(self.new_root, n, 0);
                    self.findings.added(path, t);
                    self.added_at
                        .insert(path.to_string(), (path.clone(), n.clone()));
                    if is_required {
                        self.required_new.insert(path.to_string());
                    }
                }
                (None, None) => {}
            }
            path.pop();
        }
        // `required` names without a `properties` entry (allowed by JSON Schema).
        for name in ne
            .required
            .iter()
            .filter(|n| !ne.properties.contains_key(*n))
        {
            if !oe.required.contains(name) && !oe.properties.contains_key(name) {
                path.push(Seg::Key((*name).to_owned()));
                self.required_flip(path, false, true);
                path.pop();
            }
        }
        if oe.closed != ne.closed {
            // Closing an input object refuses keys callers may send; opening an output
            // object lets unknown keys reach callers. The other two ways are relaxations.
            let breaks = match self.direction {
                Direction::Input => ne.closed,
                Direction::Output => oe.closed,
            };
            let show = |closed: bool| Some(if closed { "false" } else { "allowed" }.to_owned());
            self.extra.push(Change::Keyword {
                path: path.to_string(),
                keyword: "additionalProperties".to_owned(),
                before: show(oe.closed),
                after: show(ne.closed),
                breaking: breaks,
            });
        }
    }

    /// Compares every non-structural keyword of the two nodes (after `$ref`/`allOf`).
    fn compare_keywords(
        &mut self,
        old: &[&'s Value],
        new: &[&'s Value],
        path: &Path,
        types_changed: bool,
    ) {
        let ok = self.keywords(self.old_root, old);
        let nk = self.keywords(self.new_root, new);
        let names: BTreeSet<&str> = ok.keys().chain(nk.keys()).copied().collect();
        for name in names {
            let (o, n) = (ok.get(name), nk.get(name));
            // One keyword value reached from many places (a shared definition) is compared
            // and rendered once; its changes are repeated at each place.
            let ids = |v: Option<&Vec<&'s Value>>| v.map(|vs| identity_of(vs)).unwrap_or_default();
            let key = (name.to_owned(), ids(o), ids(n), types_changed);
            let here = path.to_string();
            if let Some(known) = self.keyword_memo.get(&key) {
                let repeated: Vec<Change> = known.iter().map(|c| at_path(c, &here)).collect();
                self.extra.extend(repeated);
                continue;
            }
            let mut found = Vec::new();
            if o != n {
                self.keyword_changes(name, o, n, path, types_changed, &mut found);
            }
            self.extra.extend(found.iter().cloned());
            self.keyword_memo.insert(key, found);
        }
    }
}

impl<'s> Walker<'s> {
    /// The changes of keyword `name` between the values `o` and `n` (which differ).
    fn keyword_changes(
        &self,
        name: &str,
        o: Option<&Vec<&'s Value>>,
        n: Option<&Vec<&'s Value>>,
        path: &Path,
        types_changed: bool,
        out: &mut Vec<Change>,
    ) {
        let one = |v: Option<&Vec<&'s Value>>| -> Option<Value> {
            v.map(|vs| match vs.as_slice() {
                [single] => (*single).clone(),
                many => Value::Array(many.iter().map(|v| (*v).clone()).collect()),
            })
        };
        let (ov, nv) = (one(o), one(n));
        let nested = ov.as_ref().is_some_and(|v| v.is_object() || v.is_array())
            || nv.as_ref().is_some_and(|v| v.is_object() || v.is_array());
        if nested && name != "enum" && name != "examples" {
            // A keyword holding schemas (`anyOf`, `not`, `additionalProperties`) is
            // reported at its differing leaves, so a description changed inside an
            // alternative is shown as precisely as one on a property.
            let mut leaves = Vec::new();
            leaf_diffs(ov.as_ref(), nv.as_ref(), format!("/{name}"), &mut leaves, 0);
            for (pointer, b, a) in leaves {
                if types_changed && pointer.ends_with("/type") {
                    continue; // the type change at this node already says it
                }
                let pointer = pointer.trim_start_matches('/');
                out.push(keyword_change(path, pointer, b, a, self.direction));
            }
        } else {
            out.push(keyword_change(
                path,
                name,
                ov.as_ref(),
                nv.as_ref(),
                self.direction,
            ));
        }
    }

    /// The texts of a property only the new schema has (its `description` and `title`,
    /// and those of the properties and items inside it): they are new words the model
    /// reads, where a poisoned instruction is as likely as in a changed description.
    fn describe_new(&mut self, schemas: &[&'s Value], path: &Path, depth: usize) {
        if self.budget == 0 || depth > MAX_DEPTH {
            return;
        }
        self.budget -= 1;
        for (name, values) in self.keywords(self.new_root, schemas) {
            if matches!(name, "description" | "title") {
                for v in values {
                    self.extra
                        .push(keyword_change(path, name, None, Some(v), self.direction));
                }
            }
        }
        let e = self.resolve(self.new_root, schemas);
        let mut child = path.clone();
        for (name, s) in &e.properties {
            child.push(Seg::Key((*name).to_owned()));
            self.describe_new(s, &child, depth + 1);
            child.pop();
        }
        if !e.items.is_empty() {
            child.push(Seg::Items);
            self.describe_new(&e.items, &child, depth + 1);
        }
    }

    /// A property that is declared on both sides but required on one only.
    fn required_flip(&mut self, path: &Path, was: bool, is: bool) {
        // Inputs: a newly required property refuses calls without it. Outputs: a property
        // that is no longer required may be absent where callers relied on it.
        let breaks = match self.direction {
            Direction::Input => is,
            Direction::Output => was,
        };
        let show = |r: bool| Some(if r { "required" } else { "optional" }.to_owned());
        self.extra.push(Change::Keyword {
            path: path.to_string(),
            keyword: "required".to_owned(),
            before: show(was),
            after: show(is),
            breaking: breaks,
        });
    }
}

/// Every schema object a node consists of: the given ones and those reached through
/// `$ref` and `allOf`, each once, in document order of discovery.
fn reach<'s>(root: &'s Value, schemas: &[&'s Value]) -> Vec<&'s Value> {
    let mut out: Vec<&'s Value> = Vec::new();
    let mut work: Vec<&'s Value> = schemas.iter().rev().copied().collect();
    let mut expansions = 0;
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    while let Some(schema) = work.pop() {
        if !seen.insert(std::ptr::from_ref(schema) as usize) {
            continue;
        }
        out.push(schema);
        let Value::Object(obj) = schema else {
            continue;
        };
        let mut more: Vec<&'s Value> = Vec::new();
        if let Some(target) = obj
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| crate::schema_shape::lookup(root.into(), r))
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
    }
    out
}

/// The non-structural keywords of a node (over every object it [`reach`]es), each with
/// the values it has there (several when `allOf` branches repeat it).
fn keywords<'s>(root: &'s Value, schemas: &[&'s Value]) -> BTreeMap<&'s str, Vec<&'s Value>> {
    let mut out: BTreeMap<&'s str, Vec<&'s Value>> = BTreeMap::new();
    for schema in reach(root, schemas) {
        let obj = match schema {
            Value::Object(obj) => obj,
            // `true` allows everything, like `{}`; `false` nothing.
            Value::Bool(false) => {
                out.entry("false schema").or_default().push(schema);
                continue;
            }
            _ => continue,
        };
        for (k, v) in obj {
            // A boolean `additionalProperties` is compared structurally, with direction.
            if is_structural(k) || (k == "additionalProperties" && v.is_boolean()) {
                continue;
            }
            out.entry(k.as_str()).or_default().push(v);
        }
        // An unresolvable reference is compared by its text.
        if let Some(r) = obj.get("$ref")
            && r.as_str()
                .and_then(|r| crate::schema_shape::lookup(root.into(), r))
                .is_none()
        {
            out.entry("$ref").or_default().push(r);
        }
    }
    out
}

/// Differing leaves of two JSON values, as (JSON Pointer, old, new); at most
/// [`MAX_LEAVES`], depth-first in key order.
fn leaf_diffs<'v>(
    a: Option<&'v Value>,
    b: Option<&'v Value>,
    pointer: String,
    out: &mut Vec<(String, Option<&'v Value>, Option<&'v Value>)>,
    depth: usize,
) {
    if out.len() >= MAX_LEAVES || a == b {
        return;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) if depth < MAX_DEPTH => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let child = format!("{pointer}/{}", escape(k));
                leaf_diffs(x.get(k), y.get(k), child, out, depth + 1);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y)))
            if depth < MAX_DEPTH && x.len() == y.len() =>
        {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                leaf_diffs(Some(p), Some(q), format!("{pointer}/{i}"), out, depth + 1);
            }
        }
        _ => out.push((pointer, a, b)),
    }
}

/// A [`Change::Keyword`] for `keyword` (a name, or a pointer below the node) at `path`.
fn keyword_change(
    path: &Path,
    keyword: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    direction: Direction,
) -> Change {
    // The node's own keyword (`default`, `anyOf`) or the leaf below it (`anyOf/0/title`).
    let first = keyword.split('/').next().unwrap_or(keyword);
    let last = keyword.rsplit('/').next().unwrap_or(keyword);
    let breaking = if is_annotation(first) || is_annotation(last) {
        false
    } else if keyword == "enum" {
        enum_breaks(before, after, direction)
    } else {
        // Bounds, formats, patterns, `not`, conditionals: whether one got stricter or
        // looser is not worked out per keyword, so any change counts as breaking.
        true
    };
    let (before, after) = shown_pair(before, after);
    Change::Keyword {
        path: path.to_string(),
        keyword: keyword.to_owned(),
        before,
        after,
        breaking,
    }
}

/// Inputs break when a value callers could send is no longer allowed; outputs break when
/// a value callers do not expect may now arrive. An absent `enum` allows everything.
fn enum_breaks(before: Option<&Value>, after: Option<&Value>, direction: Direction) -> bool {
    fn set(v: Option<&Value>) -> Option<Vec<&Value>> {
        v.and_then(Value::as_array).map(|a| a.iter().collect())
    }
    let (old, new) = (set(before), set(after));
    let (narrower_side, wider_side) = match direction {
        Direction::Input => (new, old),
        Direction::Output => (old, new),
    };
    match (narrower_side, wider_side) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(allowed), Some(used)) => used.iter().any(|v| !allowed.contains(v)),
    }
}

/// Old and new keyword values as text: strings as they are, the rest as compact JSON,
/// both cut around what differs.
fn shown_pair(before: Option<&Value>, after: Option<&Value>) -> (Option<String>, Option<String>) {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match (before.map(text), after.map(text)) {
        (Some(b), Some(a)) => {
            let (b, a) = changed_window(&b, &a, VALUE_CHARS);
            (Some(b), Some(a))
        }
        (b, a) => (
            b.map(|b| capped(&crate::text::one_line(&b), VALUE_CHARS)),
            a.map(|a| capped(&crate::text::one_line(&a), VALUE_CHARS)),
        ),
    }
}
