//! JSON type sets: the vocabulary shared by the schema walk, shape inference and rename
//! pairing. Owns how a value's type is named ("integer", "string | null") and when two
//! type sets count as "the same type" for a rename. Knows nothing about schemas or paths.

use serde_json::Value;

/// A set of JSON types as a bit set; `integer` is its own bit so that a schema saying
/// "integer" can reject `1.5`, while "number" accepts integers too (see [`Types::accepts`]).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub(crate) struct Types(u8);

impl Types {
    pub(crate) const NONE: Types = Types(0);
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(1 << 1);
    pub(crate) const INTEGER: Types = Types(1 << 2);
    pub(crate) const NUMBER: Types = Types(1 << 3);
    pub(crate) const STRING: Types = Types(1 << 4);
    pub(crate) const ARRAY: Types = Types(1 << 5);
    pub(crate) const OBJECT: Types = Types(1 << 6);
    pub(crate) const ANY: Types = Types(0x7f);

    /// Order used when naming a set; matches how people read "string | null".
    const NAMES: [(Types, &'static str); 7] = [
        (Types::OBJECT, "object"),
        (Types::ARRAY, "array"),
        (Types::STRING, "string"),
        (Types::NUMBER, "number"),
        (Types::INTEGER, "integer"),
        (Types::BOOLEAN, "boolean"),
        (Types::NULL, "null"),
    ];

    /// The type of one JSON value. Numbers with no fractional part are integers, as in
    /// JSON Schema 2020-12 (`1.0` is an integer), so we agree with the validator.
    pub(crate) fn of(value: &Value) -> Types {
        match value {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Number(n) => {
                let integral =
                    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
                if integral {
                    Types::INTEGER
                } else {
                    Types::NUMBER
                }
            }
            Value::String(_) => Types::STRING,
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
        }
    }

    /// Parses a JSON Schema type name; unknown names yield `None` (and are ignored).
    pub(crate) fn from_name(name: &str) -> Option<Types> {
        Some(match name {
            "null" => Types::NULL,
            "boolean" => Types::BOOLEAN,
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "string" => Types::STRING,
            "array" => Types::ARRAY,
            "object" => Types::OBJECT,
            _ => return None,
        })
    }

    pub(crate) fn union(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    pub(crate) fn intersect(self, other: Types) -> Types {
        Types(self.0 & other.0)
    }

    pub(crate) fn contains(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// "number" admits integers: widen the set the way a validator reads it.
    pub(crate) fn widened(self) -> Types {
        if self.contains(Types::NUMBER) {
            self.union(Types::INTEGER)
        } else {
            self
        }
    }

    /// Does a schema that allows `self` accept a value of type `found`?
    pub(crate) fn accepts(self, found: Types) -> bool {
        self.widened().contains(found)
    }

    /// "Same type" for rename pairing: every type the new field shows is one the old field
    /// allowed. Integer/number and a field that was nullable count as the same type.
    pub(crate) fn compatible(expected: Types, found: Types) -> bool {
        if expected.is_empty() || found.is_empty() {
            return false;
        }
        expected.accepts(found) || found.accepts(expected)
    }

    /// Human name: "string", "string | null", "any".
    pub(crate) fn name(self) -> String {
        if self == Types::ANY || self == Types::ANY.intersect(Types(!Types::INTEGER.0)) {
            return "any".to_owned();
        }
        if self.is_empty() {
            return "nothing".to_owned();
        }
        let mut parts = Vec::new();
        for (t, n) in Types::NAMES {
            // "number | integer" says nothing "number" does not.
            if t == Types::INTEGER && self.contains(Types::NUMBER) {
                continue;
            }
            if self.contains(t) {
                parts.push(n);
            }
        }
        parts.join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integral_floats_are_integers() {
        assert_eq!(Types::of(&json!(1.0)), Types::INTEGER);
        assert_eq!(Types::of(&json!(1.5)), Types::NUMBER);
        assert_eq!(Types::of(&json!(-3)), Types::INTEGER);
    }

    #[test]
    fn number_accepts_integer_not_reverse() {
        assert!(Types::NUMBER.accepts(Types::INTEGER));
        assert!(!Types::INTEGER.accepts(Types::NUMBER));
    }

    #[test]
    fn names() {
        assert_eq!(Types::STRING.union(Types::NULL).name(), "string | null");
        assert_eq!(Types::NUMBER.union(Types::INTEGER).name(), "number");
        assert_eq!(Types::ANY.name(), "any");
    }

    #[test]
    fn compatibility() {
        assert!(Types::compatible(
            Types::STRING.union(Types::NULL),
            Types::STRING
        ));
        assert!(Types::compatible(Types::NUMBER, Types::INTEGER));
        assert!(!Types::compatible(Types::STRING, Types::ARRAY));
        assert!(!Types::compatible(Types::NONE, Types::STRING));
    }
}
