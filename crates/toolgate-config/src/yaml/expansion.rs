//! How large a YAML document is once its aliases are read as copies, measured before
//! any value is built.
//!
//! An alias (`*name`) stands for a whole copy of its anchor (`&name`), and the
//! parser's own guard counts alias jumps, not what they copy: one 10 KB anchor aliased
//! 100,000 times passes it and expands to a gigabyte. The measure walks the document
//! the way a reader would — aliases followed — adding up the bytes each node would
//! take written out as compact JSON, and stops at the first node past the limit, so
//! the walk itself costs at most the limit's worth of steps and no memory.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Where a document first passed the limit, as a field path (`tools.t.extra[512]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overflow {
    /// The path of the node being read when the limit was passed; empty for the root.
    pub path: String,
}

/// `Ok` when `text`, read with its aliases as copies, stays within `limit` bytes of
/// compact JSON; otherwise where it passed. A text without anchors cannot expand and
/// is not walked. Syntax errors are left for the reader proper to report.
pub fn measure(text: &str, limit: usize) -> Result<(), Overflow> {
    // Without an anchor there is nothing an alias could repeat (an alias to no anchor
    // is a syntax error the reader reports), and without an alias nothing is repeated.
    if !text.as_bytes().contains(&b'&') || !text.as_bytes().contains(&b'*') {
        return Ok(());
    }
    let walk = Walk {
        left: Cell::new(limit),
        over: Cell::new(false),
        path: std::cell::RefCell::new(Vec::new()),
    };
    let result = Node(&walk).deserialize(yaml_serde::Deserializer::from_str(text));
    match result {
        // The parser's own alias guard (jumps past a hundred per node) is the same
        // story told earlier: the document repeats more than it holds.
        Err(e) if walk.over.get() || e.to_string().starts_with("repetition limit exceeded") => {
            let mut segments = walk.path.into_inner();
            segments.reverse();
            Err(Overflow {
                path: segments.concat().trim_start_matches('.').to_string(),
            })
        }
        _ => Ok(()),
    }
}

/// The walk's state, shared by every level.
struct Walk {
    /// Bytes still allowed.
    left: Cell<usize>,
    /// Set when the limit was passed (an error for any other reason leaves it clear).
    over: Cell<bool>,
    /// Path segments, innermost first, gathered while an overflow unwinds.
    path: std::cell::RefCell<Vec<String>>,
}

impl Walk {
    fn spend<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.over.set(true);
                Err(E::custom("expanded past the limit"))
            }
        }
    }

    /// Records `segment` as the step into the node that failed, when it failed by size.
    fn unwinding(&self, segment: impl FnOnce() -> String) {
        if self.over.get() {
            self.path.borrow_mut().push(segment());
        }
    }
}

/// One node: counted, and its children walked.
struct Node<'w>(&'w Walk);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A mapping key: counted, and its text kept (reusing one buffer per mapping) in case
/// the value under it is where the limit is passed.
struct Key<'w, 'b>(&'w Walk, &'b mut String);

impl<'de> DeserializeSeed<'de> for Key<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Bytes of a key kept for the path in an error; a longer key is cut there.
const KEY_SHOWN: usize = 64;

impl<'de> Visitor<'de> for Key<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.1.clear();
        let mut end = v.len().min(KEY_SHOWN);
        while !v.is_char_boundary(end) {
            end -= 1;
        }
        self.1.push_str(&v[..end]);
        self.0.spend(v.len() + 3)
    }

    // A key that is not text (a number, a collection) is counted like any node; its
    // place in a path is shown as `?`.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.1.clear();
        self.1.push('?');
        self.0.spend(8)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.visit_bool(false)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.visit_bool(false)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.visit_bool(false)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_bool(false)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.1.clear();
        self.1.push('?');
        Node(self.0).visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.1.clear();
        self.1.push('?');
        Node(self.0).visit_map(map)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        self.1.clear();
        self.1.push('?');
        Node(self.0).visit_enum(data)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.spend(5)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.spend(8)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.spend(8)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.0.spend(16)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.0.spend(16)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.spend(8)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.spend(v.len() + 3)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.0.spend(v.len() + 3)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.spend(5)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.spend(5)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        Node(self.0).deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.spend(2)?;
        let mut index = 0usize;
        loop {
            match seq.next_element_seed(Node(self.0)) {
                Ok(Some(())) => index += 1,
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.0.unwinding(|| format!("[{index}]"));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.spend(2)?;
        let mut key = String::new();
        loop {
            match map.next_key_seed(Key(self.0, &mut key)) {
                Ok(Some(())) => {}
                Ok(None) => return Ok(()),
                Err(e) => return Err(e),
            }
            if let Err(e) = map.next_value_seed(Node(self.0)) {
                self.0.unwinding(|| format!(".{key}"));
                return Err(e);
            }
        }
    }

    // A tagged node (`!custom {…}`) is read as its content.
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use serde::de::VariantAccess;
        let ((), variant) = data.variant_seed(Node(self.0))?;
        variant.newtype_variant_seed(Node(self.0))
    }
}
