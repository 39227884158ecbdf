//! Shape inference: a compact type tree of any JSON value, for offline diffing and probes.
//! Array elements are merged into one element shape (a field seen in only some elements
//! becomes optional; different kinds become a union), so a 1,000-result response has the
//! shape of one result. Bounded: at most [`MAX_ITEMS`] elements per array and
//! [`MAX_DEPTH`] levels; deeper parts are marked [`Shape::TooDeep`].

use crate::types::Types;
use crate::walk::{MAX_DEPTH, MAX_ITEMS};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// The inferred type tree of a JSON value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Shape {
    /// Nothing observed (the elements of an empty array).
    Unknown,
    /// `null`.
    Null,
    /// `true` / `false`.
    Boolean,
    /// A number without a fractional part.
    Integer,
    /// A number with a fractional part (or integers and fractions mixed).
    Number,
    /// A string.
    String,
    /// An array; `items` merges every element seen.
    Array {
        /// The merged element shape.
        items: Box<Shape>,
    },
    /// An object and its fields.
    Object {
        /// Fields by name.
        fields: BTreeMap<String, Field>,
    },
    /// Several kinds seen at one place (e.g. `string | null`); members have distinct kinds.
    Union {
        /// The members, in a fixed kind order.
        of: Vec<Shape>,
    },
    /// Nested deeper than [`MAX_DEPTH`]; not inferred.
    TooDeep,
}

/// One field of an object shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The field's shape.
    pub shape: Shape,
    /// Absent from some of the merged objects.
    pub optional: bool,
}

/// Infers the shape of any JSON value.
pub fn infer_shape(value: &Value) -> Shape {
    infer(value, 0)
}

fn infer(value: &Value, depth: usize) -> Shape {
    if depth > MAX_DEPTH {
        return Shape::TooDeep;
    }
    match value {
        Value::Null => Shape::Null,
        Value::Bool(_) => Shape::Boolean,
        Value::Number(_) if Types::of(value) == Types::INTEGER => Shape::Integer,
        Value::Number(_) => Shape::Number,
        Value::String(_) => Shape::String,
        Value::Array(items) => {
            let items = items
                .iter()
                .take(MAX_ITEMS)
                .map(|v| infer(v, depth + 1))
                .fold(Shape::Unknown, merge);
            Shape::Array {
                items: Box::new(items),
            }
        }
        Value::Object(map) => Shape::Object {
            fields: map
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        Field {
                            shape: infer(v, depth + 1),
                            optional: false,
                        },
                    )
                })
                .collect(),
        },
    }
}

impl Shape {
    /// The JSON types this shape admits.
    pub(crate) fn types(&self) -> Types {
        match self {
            Shape::Unknown | Shape::TooDeep => Types::ANY,
            Shape::Null => Types::NULL,
            Shape::Boolean => Types::BOOLEAN,
            Shape::Integer => Types::INTEGER,
            Shape::Number => Types::NUMBER,
            Shape::String => Types::STRING,
            Shape::Array { .. } => Types::ARRAY,
            Shape::Object { .. } => Types::OBJECT,
            Shape::Union { of } => of.iter().map(Shape::types).fold(Types::NONE, Types::union),
        }
    }

    /// The object member of this shape, if any.
    pub(crate) fn object_fields(&self) -> Option<&BTreeMap<String, Field>> {
        match self {
            Shape::Object { fields } => Some(fields),
            Shape::Union { of } => of.iter().find_map(Shape::object_fields),
            _ => None,
        }
    }

    /// The element shape of this shape's array member, if any.
    pub(crate) fn array_items(&self) -> Option<&Shape> {
        match self {
            Shape::Array { items } => Some(items),
            Shape::Union { of } => of.iter().find_map(Shape::array_items),
            _ => None,
        }
    }

    /// Kind order for union members; integer and number share a slot (they merge).
    fn rank(&self) -> u8 {
        match self {
            Shape::Object { .. } => 0,
            Shape::Array { .. } => 1,
            Shape::String => 2,
            Shape::Number | Shape::Integer => 3,
            Shape::Boolean => 4,
            Shape::TooDeep => 5,
            Shape::Null => 6,
            Shape::Unknown | Shape::Union { .. } => 7,
        }
    }
}

/// Merges two observations of one place into a shape that describes both.
fn merge(a: Shape, b: Shape) -> Shape {
    match (a, b) {
        (Shape::Unknown, x) | (x, Shape::Unknown) => x,
        (Shape::Integer, Shape::Number) | (Shape::Number, Shape::Integer) => Shape::Number,
        (Shape::Array { items: x }, Shape::Array { items: y }) => Shape::Array {
            items: Box::new(merge(*x, *y)),
        },
        (Shape::Object { fields: x }, Shape::Object { fields: mut y }) => {
            let mut out = BTreeMap::new();
            for (k, fx) in x {
                let field = match y.remove(&k) {
                    Some(fy) => Field {
                        shape: merge(fx.shape, fy.shape),
                        optional: fx.optional || fy.optional,
                    },
                    None => Field {
                        shape: fx.shape,
                        optional: true,
                    },
                };
                out.insert(k, field);
            }
            for (k, fy) in y {
                out.insert(
                    k,
                    Field {
                        shape: fy.shape,
                        optional: true,
                    },
                );
            }
            Shape::Object { fields: out }
        }
        (x, y) if x.rank() == y.rank() && x.rank() < 7 => x,
        (x, y) => {
            let mut members: Vec<Shape> = Vec::new();
            for s in [x, y] {
                match s {
                    Shape::Union { of } => members.extend(of),
                    other => members.push(other),
                }
            }
            let mut out: Vec<Shape> = Vec::new();
            for m in members {
                match out.iter().position(|o| o.rank() == m.rank()) {
                    Some(i) => {
                        let existing = std::mem::replace(&mut out[i], Shape::Unknown);
                        out[i] = merge(existing, m);
                    }
                    None => out.push(m),
                }
            }
            out.sort_by_key(Shape::rank);
            if out.len() == 1 {
                out.pop().unwrap_or(Shape::Unknown)
            } else {
                Shape::Union { of: out }
            }
        }
    }
}

impl fmt::Display for Shape {
    /// Compact notation: `{results: [{snippet: string, tags?: [string]}], total: integer}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Unknown => f.write_str("unknown"),
            Shape::Null => f.write_str("null"),
            Shape::Boolean => f.write_str("boolean"),
            Shape::Integer => f.write_str("integer"),
            Shape::Number => f.write_str("number"),
            Shape::String => f.write_str("string"),
            Shape::TooDeep => f.write_str("…"),
            Shape::Array { items } => write!(f, "[{items}]"),
            Shape::Object { fields } => {
                f.write_str("{")?;
                for (i, (k, field)) in fields.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    let q = if field.optional { "?" } else { "" };
                    write!(f, "{sep}{k}{q}: {}", field.shape)?;
                }
                f.write_str("}")
            }
            Shape::Union { of } => {
                for (i, s) in of.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{s}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_array_elements() {
        let v = json!({"results": [
            {"title": "a", "score": 1, "tags": []},
            {"title": "b", "score": 0.5, "tags": ["x"], "extra": null},
            {"title": null, "score": 2}
        ], "total": 3});
        assert_eq!(
            infer_shape(&v).to_string(),
            "{results: [{extra?: null, score: number, tags?: [string], title: string | null}], total: integer}"
        );
    }

    #[test]
    fn scalars_and_empty() {
        assert_eq!(infer_shape(&json!([])).to_string(), "[unknown]");
        assert_eq!(infer_shape(&json!({})).to_string(), "{}");
        assert_eq!(
            infer_shape(&json!([1, "a", [true]])).to_string(),
            "[[boolean] | string | integer]"
        );
    }

    #[test]
    fn deep_values_are_capped() {
        let mut v = json!(1);
        for _ in 0..200 {
            v = json!([v]);
        }
        assert!(infer_shape(&v).to_string().contains('…'));
    }
}
