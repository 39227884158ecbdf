//! A memo of recent drift diagnoses, keyed by the body's shape.
//!
//! Why: when an upstream breaks, every call drifts the same way, and diagnosing a drift
//! (a `Value` of the body, every validator error, the shape walk, rename detection) costs
//! several times a valid call's check. The diagnosis of a *structural* drift — missing,
//! added, retyped or renamed fields — depends only on the body's shape (member names and
//! value types, arrays by the distinct shapes of their items), so a body of a shape
//! diagnosed a moment ago gets that diagnosis again for the price of one walk over the
//! borrowed document. A drift that also broke value-level rules (enum, bounds, formats)
//! depends on the values, and is never memoised.

use std::sync::{Arc, Mutex};

use crate::borrowed::Doc;
use crate::drift::{Change, Drift};

/// Shapes remembered per contract; an upstream rarely breaks in more ways at once.
const ENTRIES: usize = 8;

/// The memo of one contract.
#[derive(Debug, Default)]
pub(crate) struct DriftMemo {
    entries: Mutex<Vec<(u64, Arc<Drift>)>>,
}

impl Clone for DriftMemo {
    /// A copy of a contract starts with its own empty memo.
    fn clone(&self) -> Self {
        DriftMemo::default()
    }
}

impl DriftMemo {
    /// The diagnosis of a body of shape `key`, if one was memoised.
    pub(crate) fn get(&self, key: u64) -> Option<Drift> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, d)| Drift::clone(d))
    }

    /// Remembers `drift` for shape `key` when it is purely structural.
    pub(crate) fn put(&self, key: u64, drift: &Drift) {
        if drift
            .changes
            .iter()
            .any(|c| matches!(c, Change::Invalid { .. }))
        {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(k, _)| *k != key);
        if entries.len() >= ENTRIES {
            entries.remove(0);
        }
        entries.push((key, Arc::new(drift.clone())));
    }
}

/// A hash of the document's shape: member names (in any order) and value types, arrays
/// by the set of their items' shapes. FNV-1a, for a stable and allocation-free walk.
pub(crate) fn shape_key(doc: &Doc<'_>) -> u64 {
    let mut h = Fnv::new();
    shape(doc, &mut h, 0);
    h.0
}

fn shape(doc: &Doc<'_>, h: &mut Fnv, depth: usize) {
    if depth > 64 {
        h.byte(b'~');
        return;
    }
    match doc {
        Doc::Null => h.byte(b'n'),
        Doc::Bool(_) => h.byte(b'b'),
        // Integer and float are different JSON Schema types.
        Doc::Number(n) if n.is_f64() => h.byte(b'f'),
        Doc::Number(_) => h.byte(b'i'),
        Doc::String(_) => h.byte(b's'),
        Doc::Array(items) => {
            h.byte(b'[');
            // Order-free and repeat-free: combine the distinct item shapes commutatively.
            let mut seen: Vec<u64> = Vec::new();
            for item in items {
                let mut ih = Fnv::new();
                shape(item, &mut ih, depth + 1);
                if !seen.contains(&ih.0) {
                    seen.push(ih.0);
                }
            }
            seen.sort_unstable();
            for s in seen {
                h.u64(s);
            }
            h.byte(b']');
        }
        Doc::Object(members) => {
            h.byte(b'{');
            let mut parts: Vec<u64> = members
                .iter()
                .map(|(k, v)| {
                    let mut mh = Fnv::new();
                    mh.bytes(k.as_bytes());
                    mh.byte(0);
                    shape(v, &mut mh, depth + 1);
                    mh.0
                })
                .collect();
            parts.sort_unstable();
            for p in parts {
                h.u64(p);
            }
            h.byte(b'}');
        }
    }
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }
    fn bytes(&mut self, bs: &[u8]) {
        for &b in bs {
            self.byte(b);
        }
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(json: &str) -> u64 {
        shape_key(&Doc::parse(json.as_bytes()).expect("json"))
    }

    #[test]
    fn values_order_and_repeats_do_not_change_the_shape() {
        assert_eq!(
            key(r#"{"a":1,"b":[{"x":"p"},{"x":"q"}]}"#),
            key(r#"{"b":[{"x":"other"}],"a":7}"#)
        );
    }

    #[test]
    fn names_and_types_do() {
        let base = key(r#"{"results":[{"snippet":"a"}]}"#);
        assert_ne!(base, key(r#"{"results":[{"excerpt":"a"}]}"#));
        assert_ne!(base, key(r#"{"results":[{"snippet":1}]}"#));
        assert_ne!(
            base,
            key(r#"{"results":[{"snippet":"a"},{"excerpt":"a"}]}"#)
        );
        assert_ne!(key(r#"{"n":1}"#), key(r#"{"n":1.5}"#));
    }
}
