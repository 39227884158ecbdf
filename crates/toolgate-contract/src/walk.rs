//! Walks a received value alongside the expected shape of its schema and records
//! structural findings: required fields missing, undeclared fields, type changes. Runs only
//! after the validator has said "invalid", so it favours clear findings over speed, but
//! its work is bounded (depth, elements per array, total visits) so any input terminates.

use crate::findings::Findings;
use crate::path::{Path, Seg};
use crate::schema_shape::{Expected, Root, type_hint};
use crate::shared::SharedSchemas;
use crate::types::Types;
use serde_json::{Map, Value};

/// Deepest nesting (values, plus alternatives tried at one value) the diff descends into.
pub const MAX_DEPTH: usize = 64;
/// Elements checked per array; findings from them are merged per path.
pub const MAX_ITEMS: usize = 1_000;
/// Total schema-node visits per diff: `anyOf` trials multiply work, this keeps it bounded.
const BUDGET: usize = 200_000;

/// Diffs `value` against the schema document `root` (whose top level is the schema),
/// with its `toolgate:schemas/…` references resolved in `shared`.
pub(crate) fn diff_against_schema(
    root: &Value,
    shared: Option<&SharedSchemas>,
    value: &Value,
) -> Findings {
    let mut walker = Walker {
        root: Root { doc: root, shared },
        budget: BUDGET,
    };
    let mut out = Findings::default();
    walker.walk(&[root], value, &mut Path::default(), 0, &mut out);
    if walker.budget == 0 {
        // Said once, at the root: which paths went unvisited depends on trial order.
        out.invalid(
            &Path::default(),
            "diff stopped early: the response and schema are too large to compare in full",
        );
    }
    out
}

struct Walker<'s> {
    root: Root<'s>,
    budget: usize,
}

impl<'s> Walker<'s> {
    /// Spends one unit of work; false once the budget is gone (the caller then stops).
    fn tick(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    fn walk(
        &mut self,
        schemas: &[&'s Value],
        value: &Value,
        path: &mut Path,
        depth: usize,
        out: &mut Findings,
    ) {
        if !self.tick() {
            return;
        }
        if depth > MAX_DEPTH {
            out.invalid(
                path,
                format!("nested deeper than {MAX_DEPTH} levels; not compared further"),
            );
            return;
        }
        let mut exp = Expected::resolve(self.root, schemas);
        // Alternatives chosen may bring their own; each round is bounded by the budget.
        while let Some(group) = exp.alternatives.pop() {
            if let Some(best) = self.closest(&group, value, path, depth) {
                exp.merge(Expected::resolve(self.root, &[best]));
            }
        }
        let found = Types::of(value);
        if exp.never {
            out.invalid(path, "no value is allowed here (the schema is `false`)");
            return;
        }
        if let Some(allowed) = exp.types.filter(|t| !t.accepts(found)) {
            out.type_changed(path, allowed, found);
            return;
        }
        match value {
            Value::Object(map) => self.walk_object(&exp, map, path, depth, out),
            Value::Array(items) => self.walk_array(&exp, items, path, depth, out),
            _ => {}
        }
    }

    /// The `anyOf`/`oneOf` alternative the value is closest to: one whose type fits, then
    /// fewest breaking findings, then fewest new fields. That is the one whose diff is worth showing.
    fn closest(
        &mut self,
        group: &[&'s Value],
        value: &Value,
        path: &mut Path,
        depth: usize,
    ) -> Option<&'s Value> {
        let mut best: Option<((bool, usize, usize), &'s Value)> = None;
        for &alt in group {
            let mut trial = Findings::default();
            self.walk(&[alt], value, path, depth + 1, &mut trial);
            let failing = trial.failing();
            let score = (trial.type_changed_at(path), failing, trial.len() - failing);
            if best.is_none_or(|(b, _)| score < b) {
                best = Some((score, alt));
            }
            if score == (false, 0, 0) {
                break;
            }
        }
        best.map(|(_, alt)| alt)
    }

    fn walk_object(
        &mut self,
        exp: &Expected<'s>,
        map: &Map<String, Value>,
        path: &mut Path,
        depth: usize,
        out: &mut Findings,
    ) {
        for (name, schemas) in &exp.properties {
            path.push(Seg::Key((*name).to_owned()));
            match map.get(*name) {
                Some(child) => self.walk(schemas, child, path, depth + 1, out),
                None if exp.required.contains(name) => {
                    out.missing(path, type_hint(self.root, schemas))
                }
                None => {} // optional and absent: not a change
            }
            path.pop();
        }
        for name in &exp.required {
            if !exp.properties.contains_key(name) && !map.contains_key(*name) {
                path.push(Seg::Key((*name).to_owned()));
                out.missing(path, Types::ANY);
                path.pop();
            }
        }
        if exp.patterned {
            return;
        }
        for (key, child) in map {
            if exp.properties.contains_key(key.as_str()) {
                continue;
            }
            if !self.tick() {
                return;
            }
            path.push(Seg::Key(key.clone()));
            // New fields are informative wherever the schema names its fields, even when
            // additionalProperties allows them: a rename shows up as missing + new.
            if exp.declares_properties || exp.closed {
                out.added(path, Types::of(child));
            }
            if !exp.additional.is_empty() {
                self.walk(&exp.additional, child, path, depth + 1, out);
            }
            path.pop();
        }
    }

    fn walk_array(
        &mut self,
        exp: &Expected<'s>,
        items: &[Value],
        path: &mut Path,
        depth: usize,
        out: &mut Findings,
    ) {
        for (i, item) in items.iter().enumerate().take(MAX_ITEMS) {
            let (seg, schemas) = match exp.prefix_items.get(i) {
                Some(schemas) => (Seg::Index(i), schemas.as_slice()),
                None if !exp.items.is_empty() => (Seg::Items, exp.items.as_slice()),
                None => break,
            };
            path.push(seg);
            self.walk(schemas, item, path, depth + 1, out);
            path.pop();
            if self.budget == 0 {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drift::Change;
    use serde_json::json;

    fn diff(schema: &Value, value: &Value) -> Vec<Change> {
        diff_against_schema(schema, None, value).into_changes(&|_, _, _| false)
    }

    #[test]
    fn any_of_picks_the_closest_alternative() {
        let schema = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}, "c": {"type": "string"}}, "required": ["b", "c"]}
        ]});
        let changes = diff(&schema, &json!({"b": "x", "c": "y"}));
        assert_eq!(
            changes,
            vec![Change::TypeChanged {
                path: "b".into(),
                expected: "integer".into(),
                found: "string".into()
            }]
        );
    }

    #[test]
    fn additional_properties_schema_checks_map_values() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        let changes = diff(&schema, &json!({"x": 1, "y": "two"}));
        assert_eq!(
            changes,
            vec![Change::TypeChanged {
                path: "y".into(),
                expected: "integer".into(),
                found: "string".into()
            }]
        );
    }

    #[test]
    fn prefix_items_keep_positions() {
        let schema =
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]});
        let changes = diff(&schema, &json!(["a", "b"]));
        assert_eq!(
            changes,
            vec![Change::TypeChanged {
                path: "[1]".into(),
                expected: "integer".into(),
                found: "string".into()
            }]
        );
    }

    #[test]
    fn huge_alternative_fan_out_terminates() {
        // anyOf nested 40 deep with 3 alternatives each (3^40 paths): bounded by depth and budget.
        let mut defs = serde_json::Map::new();
        defs.insert("d0".into(), json!({"type": "object", "required": ["z"]}));
        for i in 1..=40 {
            let prev = format!("#/$defs/d{}", i - 1);
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": prev}, {"$ref": prev}, {"type": "string"}]}),
            );
        }
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d40"});
        let changes = diff(&schema, &json!({"a": 1}));
        assert!(!changes.is_empty());
    }
}
