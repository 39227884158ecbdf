//! Diffs two observed responses (old vs new) the way a contract check would: infer both
//! shapes, compare them, and pair renames — here with one more kind of evidence, equal
//! values under the old and the new name. Used by probes and `toolgate diff` when there
//! is no schema, only two bodies.

use crate::drift::Change;
use crate::findings::Findings;
use crate::path::{Path, Seg};
use crate::shape::{Shape, infer_shape};
use crate::types::Types;
use serde_json::Value;

/// Values compared per field when looking for equal-value evidence.
const MAX_SAMPLES: usize = 64;

/// Diffs two observed responses. A field the old body always had and the new one lacks is
/// missing; a field only the new body has is new; fields seen only sometimes are optional
/// and their absence is not a change.
pub fn diff_values(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Findings::default();
    diff_shapes(
        &infer_shape(old),
        &infer_shape(new),
        &mut Path::default(),
        &mut out,
    );
    out.into_changes(&|parent, from, to| same_values(old, new, parent, from, to))
}

/// Observed numbers are integers or not by accident: compare them as one kind.
fn observed(t: Types) -> Types {
    if t.intersect(Types::INTEGER.union(Types::NUMBER)).is_empty() {
        t
    } else {
        t.union(Types::INTEGER).union(Types::NUMBER)
    }
}

fn diff_shapes(old: &Shape, new: &Shape, path: &mut Path, out: &mut Findings) {
    if matches!(old, Shape::Unknown) || matches!(new, Shape::Unknown) {
        return; // an empty array on either side tells us nothing about its elements
    }
    if matches!(old, Shape::TooDeep) || matches!(new, Shape::TooDeep) {
        out.invalid(
            path,
            format!(
                "nested deeper than {} levels; not compared further",
                crate::MAX_DEPTH
            ),
        );
        return;
    }
    let (ot, nt) = (observed(old.types()), observed(new.types()));
    if !ot.contains(nt) {
        out.type_changed(path, old.types(), new.types());
    }
    if let (Some(of), Some(nf)) = (old.object_fields(), new.object_fields()) {
        for (key, o) in of {
            path.push(Seg::Key(key.clone()));
            match nf.get(key) {
                Some(n) => diff_shapes(&o.shape, &n.shape, path, out),
                None if !o.optional => out.missing(path, o.shape.types()),
                None => {}
            }
            path.pop();
        }
        for (key, n) in nf.iter().filter(|(k, _)| !of.contains_key(*k)) {
            path.push(Seg::Key(key.clone()));
            out.added(path, n.shape.types());
            path.pop();
        }
    }
    if let (Some(oi), Some(ni)) = (old.array_items(), new.array_items()) {
        path.push(Seg::Items);
        diff_shapes(oi, ni, path, out);
        path.pop();
    }
}

/// Equal values at the same positions under the old and the new name: at least one
/// match, and matches in at least half of the positions compared. Nulls and booleans
/// are too common to count.
fn same_values(old: &Value, new: &Value, parent: &Path, from: &str, to: &str) -> bool {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    collect(old, &parent.0, from, &mut a);
    collect(new, &parent.0, to, &mut b);
    let compared = a.len().min(b.len());
    let matches = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x == y && !matches!(x, None | Some(Value::Null | Value::Bool(_))))
        .count();
    matches > 0 && matches * 2 >= compared
}

/// The values found under `key` in every object at `segs` (array elements in order).
fn collect<'v>(value: &'v Value, segs: &[Seg], key: &str, out: &mut Vec<Option<&'v Value>>) {
    if out.len() >= MAX_SAMPLES {
        return;
    }
    match segs.split_first() {
        None => out.push(value.get(key)),
        Some((Seg::Key(k), rest)) => {
            if let Some(child) = value.get(k) {
                collect(child, rest, key, out);
            }
        }
        Some((Seg::Items, rest)) => {
            for item in value.as_array().into_iter().flatten() {
                collect(item, rest, key, out);
            }
        }
        Some((Seg::Index(i), rest)) => {
            if let Some(child) = value.get(i) {
                collect(child, rest, key, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_pair_a_rename_among_rivals() {
        let old =
            json!({"items": [{"name": "Ada", "city": "London"}, {"name": "Bob", "city": "Paris"}]});
        let new = json!({"items": [{"label": "Ada", "town": "London"}, {"label": "Bob", "town": "Paris"}]});
        let changes = diff_values(&old, &new);
        let whys: Vec<(String, String)> = changes
            .iter()
            .filter_map(|c| match c {
                Change::Renamed { from, to, why, .. } => {
                    Some((format!("{from}->{to}"), why.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            whys,
            vec![
                (
                    "items[].city->items[].town".to_owned(),
                    "same type, same values".to_owned()
                ),
                (
                    "items[].name->items[].label".to_owned(),
                    "same type, same values".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn snippet_to_excerpt_between_two_probe_responses() {
        let old = json!({"results": [{"title": "a", "snippet": "one"}, {"title": "b", "snippet": "two"}]});
        let new = json!({"results": [{"title": "a", "excerpt": "one"}, {"title": "b", "excerpt": "two"}]});
        assert_eq!(
            diff_values(&old, &new),
            vec![Change::Renamed {
                from: "results[].snippet".into(),
                to: "results[].excerpt".into(),
                type_name: "string".into(),
                why: "same type, same values".into(),
            }]
        );
    }

    #[test]
    fn identical_values_have_no_changes() {
        let v = json!({"a": [{"b": {"c": [1, 2]}}], "d": null});
        assert!(diff_values(&v, &v).is_empty());
        assert!(diff_values(&json!({}), &json!({})).is_empty());
    }

    #[test]
    fn integer_to_fraction_is_not_a_change() {
        assert!(diff_values(&json!({"score": 1}), &json!({"score": 0.5})).is_empty());
    }

    #[test]
    fn optional_fields_absent_are_not_changes() {
        let old = json!([{"a": 1, "b": 2}, {"a": 1}]);
        let new = json!([{"a": 5}]);
        assert!(diff_values(&old, &new).is_empty());
    }

    #[test]
    fn type_change_and_new_field() {
        let changes = diff_values(&json!({"id": 1}), &json!({"id": "1", "extra": [1]}));
        assert_eq!(
            changes,
            vec![
                Change::Added {
                    path: "extra".into(),
                    found: "array".into()
                },
                Change::TypeChanged {
                    path: "id".into(),
                    expected: "integer".into(),
                    found: "string".into()
                },
            ]
        );
    }
}
