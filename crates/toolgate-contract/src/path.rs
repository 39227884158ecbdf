//! Paths into a JSON document in toolgate's notation: `results[].snippet` — keys joined
//! with '.', every element of an array as `[]` (so findings in several elements collapse
//! into one), tuple positions as `[0]`, the root as the empty string (reports show it as
//! `(root)`).
//! Also converts the validator's JSON Pointers into this notation.

use serde_json::Value;
use std::fmt;

/// One step from a value to a child.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Seg {
    /// An object member.
    Key(String),
    /// Any element of an array (all elements share one path).
    Items,
    /// A fixed tuple position (`prefixItems`), kept apart because each has its own schema.
    Index(usize),
}

/// A path from the root; ordering is segment-wise so parents sort before children.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Path(pub(crate) Vec<Seg>);

impl Path {
    pub(crate) fn push(&mut self, seg: Seg) {
        self.0.push(seg);
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }

    /// Splits `a.b.c` into (`a.b`, `c`) when the last step is a key; renames pair only
    /// among keys that share a parent.
    pub(crate) fn parent_and_key(&self) -> Option<(Path, &str)> {
        match self.0.split_last() {
            Some((Seg::Key(k), rest)) => Some((Path(rest.to_vec()), k.as_str())),
            _ => None,
        }
    }

    /// Converts a validator instance location (JSON Pointer) into our notation, reading
    /// the instance to tell array indices from object keys that happen to be digits.
    pub(crate) fn from_pointer(pointer: &str, instance: &Value) -> Path {
        let mut path = Path::default();
        let mut current = Some(instance);
        for raw in pointer.split('/').skip(1) {
            let token = raw.replace("~1", "/").replace("~0", "~");
            match current {
                Some(Value::Array(items)) => {
                    current = token.parse::<usize>().ok().and_then(|i| items.get(i));
                    path.push(Seg::Items);
                }
                Some(Value::Object(map)) => {
                    current = map.get(&token);
                    path.push(Seg::Key(token));
                }
                _ => {
                    current = None;
                    path.push(Seg::Key(token));
                }
            }
        }
        path
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Seg::Items => f.write_str("[]")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_notation() {
        let p = Path(vec![
            Seg::Key("results".into()),
            Seg::Items,
            Seg::Key("snippet".into()),
        ]);
        assert_eq!(p.to_string(), "results[].snippet");
        assert_eq!(Path::default().to_string(), "");
        assert_eq!(
            Path(vec![Seg::Items, Seg::Key("a".into())]).to_string(),
            "[].a"
        );
        assert_eq!(
            Path(vec![Seg::Key("t".into()), Seg::Index(1)]).to_string(),
            "t[1]"
        );
    }

    #[test]
    fn pointer_uses_instance_to_spot_arrays() {
        let doc = json!({"results": [{"a/b": 1}], "10": {"x": 1}});
        assert_eq!(
            Path::from_pointer("/results/0/a~1b", &doc).to_string(),
            "results[].a/b"
        );
        assert_eq!(Path::from_pointer("/10/x", &doc).to_string(), "10.x");
        assert_eq!(Path::from_pointer("", &doc).to_string(), "");
    }
}
