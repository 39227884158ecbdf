//! How many JSON values a body holds, counted on its bytes without parsing it.
//!
//! A parsed JSON value costs tens of bytes of memory whatever its text costs: `[[1]]`
//! is five bytes of text and two vectors once parsed, so 7 MB of nested arrays or of
//! `0,` grow to hundreds of megabytes as a tree. Counting first lets a reply whose tree
//! would be out of proportion be refused before any tree of it is built.

/// Bytes of text per JSON value a reply may have, at the least: a reply may hold one
/// value per this many bytes of the size limit of replies. At the default 8 MiB limit
/// that is 524,288 values, a tree of some tens of megabytes.
pub const BYTES_PER_VALUE: usize = 16;

/// Whether `body` holds more than `limit` JSON values. Counts an upper estimate (one
/// value per `[`, `{` and `,` outside strings, plus one), and stops counting past the
/// limit, so the cost is one pass over the bytes at most and nothing is allocated. A
/// body no longer than `limit` bytes cannot hold more (each value takes a byte), so the
/// common reply, far below the limit, is not read at all.
pub fn more_values_than(body: &[u8], limit: usize) -> bool {
    if body.len() <= limit {
        return false;
    }
    let mut values = 1usize;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                i += 1;
                while i < body.len() {
                    match body[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'[' | b'{' | b',' => {
                values += 1;
                if values > limit {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The index of the quote that closes the JSON string whose text starts at `from` (just
/// after its opening quote), escapes stepped over; `None` when it does not close. A
/// vectorised search for the next quote or backslash: readers that only skip strings
/// on every reply (whose text is most of a body) need not look at each byte.
pub fn string_end(text: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let at = from + memchr::memchr2(b'"', b'\\', text.get(from..)?)?;
        if text[at] == b'"' {
            return Some(at);
        }
        from = at + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings() {
        assert!(!more_values_than(b"1", 1));
        assert!(more_values_than(b"[1]", 1));
        assert!(!more_values_than(b"[1]", 2));
        assert!(!more_values_than(br#"{"a":1,"b":[2,3]}"#, 5));
        assert!(more_values_than(br#"{"a":1,"b":[2,3]}"#, 4));
        // Brackets and commas inside strings, escaped quotes included, are text.
        assert!(!more_values_than(br#"["[[[,,,{{{", "\"[,[,[,"]"#, 3));
    }

    #[test]
    fn a_string_ends_at_its_first_unescaped_quote() {
        let text = br#""a\"b\\" tail"#;
        assert_eq!(string_end(text, 1), Some(7));
        assert_eq!(string_end(br#""open \""#, 1), None);
        assert_eq!(string_end(br#""x\"#, 1), None, "an escape at the very end");
    }

    #[test]
    fn nested_arrays_count_every_level() {
        let one = format!("{}1{}", "[".repeat(120), "]".repeat(120));
        let body = format!("[{}]", vec![one; 1000].join(","));
        assert!(more_values_than(body.as_bytes(), 120_000));
        assert!(!more_values_than(body.as_bytes(), 121_001));
    }
}
