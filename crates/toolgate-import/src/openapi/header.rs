//! Header names from a description, held to HTTP's rules: a name that is not an HTTP
//! token (`""`, `ADVICEment API Key`) cannot be sent, and `check` refuses a config that
//! names one, so the importer leaves it out and says so.

/// Whether `name` is an HTTP field name (RFC 9110 § 5.1: a non-empty `token`).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tokens_are_header_names() {
        for ok in ["X-API-Key", "Notion-Version", "x_y", "a.b", "~"] {
            assert!(is_header_name(ok), "{ok}");
            assert!(http_accepts(ok), "{ok}");
        }
        for bad in [
            "",
            "ADVICEment API Key",
            "a:b",
            "a\u{0}b",
            "é",
            "a\"b",
            "(x)",
            "a/b",
        ] {
            assert!(!is_header_name(bad), "{bad:?}");
            assert!(!http_accepts(bad), "{bad:?}");
        }
    }

    /// What `check` uses.
    fn http_accepts(name: &str) -> bool {
        http::HeaderName::from_bytes(name.as_bytes()).is_ok()
    }
}
