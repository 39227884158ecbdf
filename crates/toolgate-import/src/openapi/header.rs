//! Header names from a description, held to HTTP's rules: a name that is not an HTTP
//! token (`""`, `ADVICEment API Key`) cannot be sent, and `check` refuses a config that
//! names one, so the importer leaves it out and says so.

/// Why a header parameter is the gateway's or the connection's to send, never an
/// argument or a value from the description: `Host` chosen by the model would send the
/// call to another site on the same address, a `Content-Length` or `Transfer-Encoding`
/// that disagrees with the body breaks the framing, the hop-by-hop ones (`Connection`,
/// `Upgrade`, …) are about one connection only, and toolgate writes the trace context
/// itself. `None` for a header the operation may send.
pub fn set_by_gateway(name: &str) -> Option<&'static str> {
    match name.to_ascii_lowercase().as_str() {
        "host" => Some("toolgate sends the host of the dependency's base_url"),
        "content-type" => Some("toolgate sets it from the body encoding"),
        "content-length" | "transfer-encoding" => Some("toolgate frames the body itself"),
        "connection" | "keep-alive" | "te" | "trailer" | "upgrade" | "proxy-connection"
        | "expect" => Some("it describes one connection, which toolgate manages"),
        "traceparent" | "tracestate" => Some("toolgate sends the call's own trace context"),
        _ => None,
    }
}

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

    #[test]
    fn headers_of_the_connection_and_the_trace_are_the_gateway_s() {
        for name in [
            "Host",
            "content-length",
            "Transfer-Encoding",
            "Connection",
            "Upgrade",
            "traceparent",
            "Content-Type",
        ] {
            assert!(set_by_gateway(name).is_some(), "{name}");
        }
        for name in ["Accept", "User-Agent", "X-Request-Id", "If-Match"] {
            assert!(set_by_gateway(name).is_none(), "{name}");
        }
    }

    /// What `check` uses.
    fn http_accepts(name: &str) -> bool {
        http::HeaderName::from_bytes(name.as_bytes()).is_ok()
    }
}
