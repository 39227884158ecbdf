//! A JSON value's text, counted or fingerprinted as it is written and never held: the
//! input schema of one tool of a large API is up to megabytes of text, and building it
//! only to take its length, or keeping it as a map key, costs that much again per tool.

use std::hash::{BuildHasher, Hasher, RandomState};
use std::io;

use serde_json::Value;

/// Bytes of `v`'s compact JSON text (what `v.to_string().len()` says).
pub fn len(v: &Value) -> usize {
    let mut counter = Counter(0);
    // Writing to a counter cannot fail, and a `Value` always serialises.
    let _ = serde_json::to_writer(&mut counter, v);
    counter.0
}

struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Fingerprints of JSON texts, for telling equal texts apart from different ones
/// without keeping them: 128 bits from two keyed hashes, the keys random per
/// `Fingerprints`, so no description can be written to make two texts collide.
#[derive(Debug, Default)]
pub struct Fingerprints {
    keys: [RandomState; 2],
}

impl Fingerprints {
    /// The fingerprint of `v`'s compact JSON text.
    pub fn of(&self, v: &Value) -> (u64, u64, usize) {
        let mut w = HashWriter {
            hashers: [self.keys[0].build_hasher(), self.keys[1].build_hasher()],
            len: 0,
        };
        // Hashing cannot fail, and a `Value` always serialises.
        let _ = serde_json::to_writer(&mut w, v);
        let [a, b] = w.hashers;
        (a.finish(), b.finish(), w.len)
    }
}

struct HashWriter<H> {
    hashers: [H; 2],
    len: usize,
}

impl<H: Hasher> io::Write for HashWriter<H> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for h in &mut self.hashers {
            h.write(buf);
        }
        self.len += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_count_is_the_length_of_the_text() {
        for v in [
            json!(null),
            json!("tab\there \u{2028} \"quoted\" é"),
            json!({"a": [1, 2.5, -3e40, {"b": {}}], "ü": true}),
            json!([]),
        ] {
            assert_eq!(len(&v), v.to_string().len(), "{v}");
        }
    }

    #[test]
    fn equal_texts_share_a_fingerprint_and_different_ones_do_not() {
        let f = Fingerprints::default();
        let a = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        let same = serde_json::from_str::<Value>(&a.to_string()).unwrap();
        assert_eq!(f.of(&a), f.of(&same));
        for other in [
            json!({"type": "object", "properties": {"x": {"type": "integer"}}}),
            json!({"properties": {"x": {"type": "string"}}, "type": "object"}),
            json!({"type": "object", "properties": {"x ": {"type": "string"}}}),
        ] {
            assert_ne!(f.of(&a), f.of(&other), "{other}");
        }
    }
}
