//! A read-only, case-insensitive view over response header fields.
//!
//! Owns lookup only: names are compared ASCII-case-insensitively (RFC 9110 §5.1),
//! repeated fields are kept in order (RFC 9110 §5.3) and can be joined with ", "
//! for list-valued fields. It never interprets values.

/// A read-only view over response headers, borrowed from the caller.
///
/// ```
/// use toolgate_signals::Headers;
/// let fields: [(&str, &[u8]); 2] = [("Retry-After", b"120"), ("retry-after", b"5")];
/// let h = Headers::new(&fields);
/// assert_eq!(h.get("RETRY-AFTER"), Some(&b"120"[..]));
/// assert_eq!(h.get_all("retry-after").count(), 2);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Headers<'a> {
    fields: &'a [(&'a str, &'a [u8])],
}

impl<'a> Headers<'a> {
    /// Wraps `(name, value)` pairs in the order they were received.
    #[must_use]
    pub fn new(fields: &'a [(&'a str, &'a [u8])]) -> Self {
        Self { fields }
    }

    /// The raw value of the first field called `name`, if any.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        self.get_all(name).next()
    }

    /// Every value of the fields called `name`, in received order.
    pub fn get_all<'n>(&self, name: &'n str) -> impl Iterator<Item = &'a [u8]> + use<'a, 'n> {
        self.fields
            .iter()
            .filter(move |(n, _)| n.trim_ascii().eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

    /// The first value called `name`, with surrounding whitespace removed, if it is UTF-8.
    #[must_use]
    pub fn get_str(&self, name: &str) -> Option<&'a str> {
        self.get(name)
            .and_then(|v| std::str::from_utf8(v.trim_ascii()).ok())
    }

    /// All values called `name` joined with `", "` (RFC 9110 §5.3), lossily decoded.
    /// `None` when no such field exists.
    #[must_use]
    pub fn joined(&self, name: &str) -> Option<String> {
        let mut out: Option<String> = None;
        for v in self.get_all(name) {
            let text = String::from_utf8_lossy(v.trim_ascii());
            match out.as_mut() {
                Some(s) => {
                    s.push_str(", ");
                    s.push_str(&text);
                }
                None => out = Some(text.into_owned()),
            }
        }
        out
    }

    /// Whether any field called `name` is present.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Every `(name, value)` pair, in received order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a [u8])> {
        self.fields.iter().map(|(n, v)| (*n, *v))
    }

    /// Whether the view holds no fields at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

/// Whether `name` starts with `prefix`, ignoring ASCII case.
pub(crate) fn has_prefix_ci(name: &str, prefix: &str) -> bool {
    name.len() >= prefix.len()
        && name.is_char_boundary(prefix.len())
        && name[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Whether `needle` occurs in `hay`, ASCII case ignored.
pub(crate) fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_case_insensitive_and_ordered() {
        let fields: [(&str, &[u8]); 4] = [
            ("Link", b"<a>; rel=x"),
            ("content-type", b"text/plain"),
            ("LINK", b"<b>; rel=y"),
            ("Retry-After", b"  7 \t"),
        ];
        let h = Headers::new(&fields);
        assert_eq!(h.get("link"), Some(&b"<a>; rel=x"[..]));
        assert_eq!(h.get_all("Link").collect::<Vec<_>>().len(), 2);
        assert_eq!(h.joined("link").as_deref(), Some("<a>; rel=x, <b>; rel=y"));
        assert_eq!(h.get_str("retry-after"), Some("7"));
        assert!(h.contains("CONTENT-TYPE"));
        assert!(!h.contains("missing"));
        assert_eq!(h.joined("missing"), None);
    }

    #[test]
    fn non_utf8_values_are_not_strs_but_join_lossily() {
        let fields: [(&str, &[u8]); 1] = [("x", &[0xff, b'1'])];
        let h = Headers::new(&fields);
        assert_eq!(h.get_str("x"), None);
        assert_eq!(h.joined("x").as_deref(), Some("\u{fffd}1"));
    }

    #[test]
    fn prefix_match_handles_multibyte_names() {
        assert!(has_prefix_ci("X-RateLimit-Limit", "x-ratelimit-"));
        assert!(!has_prefix_ci("é-ratelimit", "xx"));
        assert!(!has_prefix_ci("x", "x-"));
    }
}
