//! Header fields that never carry a signal, so a reply made only of them is not read.
//!
//! Why: [`crate::read`] runs on every reply, and each of its families scans every field
//! for its own names. Most successful replies carry nothing but HTTP's own framing,
//! caching and representation fields, and reading them through every family was a few
//! percent of a call's CPU for an empty answer. Each name here is one no family reads
//! and that no signal is spelled as; `tests` runs every reader over all of them at once,
//! with values that would mean something under another name, and requires silence.
//!
//! `Date` belongs here: it is only the clock a `Retry-After` date is read against, and a
//! reply without a `Retry-After` has nothing to read it for. `Expires` too: it is about
//! caching, but on a 429 made only of such fields [`crate::read`] still reads it as the
//! refusal's expiry ([`crate::retry_after::from_expires`]).

/// Lower-case names, compared ASCII-case-insensitively.
const INERT: &[&str] = &[
    // HTTP semantics, caching and framing (RFC 9110, 9111, 9112).
    "accept-ranges",
    "age",
    "allow",
    "cache-control",
    "connection",
    "content-disposition",
    "content-encoding",
    "content-language",
    "content-length",
    "content-location",
    "content-range",
    "content-type",
    "date",
    "etag",
    "expires",
    "keep-alive",
    "last-modified",
    "location",
    "pragma",
    "server",
    "set-cookie",
    "transfer-encoding",
    "vary",
    "via",
    "alt-svc",
    // CORS and browser security policy.
    "access-control-allow-credentials",
    "access-control-allow-headers",
    "access-control-allow-methods",
    "access-control-allow-origin",
    "access-control-expose-headers",
    "access-control-max-age",
    "content-security-policy",
    "cross-origin-opener-policy",
    "cross-origin-resource-policy",
    "permissions-policy",
    "referrer-policy",
    "strict-transport-security",
    "x-content-type-options",
    "x-frame-options",
    "x-xss-protection",
    // MCP's streamable HTTP transport (a fronted server's replies).
    "mcp-protocol-version",
    "mcp-session-id",
    // Request identifiers and platform stamps.
    "cf-cache-status",
    "cf-ray",
    "request-id",
    "x-amz-cf-id",
    "x-amz-request-id",
    "x-amzn-requestid",
    "x-cache",
    "x-correlation-id",
    "x-powered-by",
    "x-request-id",
    "x-served-by",
];

/// Whether `name` is a field no reader looks at.
///
/// Every reply's every field is asked this, so the names are kept by length
/// ([`BY_LENGTH`]) and a field is compared only with those of its own length (a few at
/// most) rather than with each of the list: a reply's seven plain fields cost 1,950
/// instructions compared one name at a time.
pub(crate) fn is_inert(name: &str) -> bool {
    let name = name.trim_ascii();
    BY_LENGTH.get(name.len()).is_some_and(|same_length| {
        same_length
            .iter()
            .any(|known| known.eq_ignore_ascii_case(name))
    })
}

/// [`INERT`]'s names by their length: the names of length `n` at index `n`.
static BY_LENGTH: std::sync::LazyLock<Vec<Vec<&'static str>>> = std::sync::LazyLock::new(|| {
    let longest = INERT.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut by_length = vec![Vec::new(); longest + 1];
    for name in INERT {
        by_length[name.len()].push(*name);
    }
    by_length
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Flavour, Headers, Signals};
    use chrono::{TimeZone, Utc};

    /// Values that are signals under some name: counts, waits, dates, quota lists,
    /// deprecation words, links and warnings.
    const VALUES: &[&str] = &[
        "0",
        "3",
        "47",
        "-1",
        "true",
        "Wed, 21 Oct 2026 07:28:00 GMT",
        "2026-10-21T07:28:00Z",
        "@1790000000",
        "limit=100, remaining=0, reset=30",
        "\"default\";r=0;t=30",
        "100;w=60",
        "deprecated",
        "299 - \"Deprecated API: use /v2\"",
        "<https://api.example.com/v2>; rel=\"successor-version\"",
        "<https://example.com/deprecation>; rel=\"deprecation\"",
        "",
    ];

    /// Every reader, given every inert field with every value at once, finds nothing:
    /// the shortcut in `read` can never hide a signal. Each status the readers treat
    /// differently is tried, with each family's flavour.
    #[test]
    fn no_reader_finds_anything_in_inert_fields() {
        let now = Utc.with_ymd_and_hms(2026, 10, 21, 7, 0, 0).unwrap();
        // Each name as listed and upper-cased, so case folding is covered too.
        let names: Vec<String> = INERT
            .iter()
            .flat_map(|n| [n.to_string(), n.to_uppercase()])
            .collect();
        for value in VALUES {
            let fields: Vec<(&str, &[u8])> = names
                .iter()
                .map(|n| (n.as_str(), value.as_bytes()))
                .collect();
            let headers = Headers::new(&fields);
            for status in [200, 403, 429, 503] {
                // Auto runs every family; the others are those Auto gates on detection.
                for flavour in [
                    Flavour::Auto,
                    Flavour::Github,
                    Flavour::Discord,
                    Flavour::Reddit,
                ] {
                    let read = crate::read_fields(status, &headers, now, flavour);
                    let expected = Signals {
                        rate_limited: status == 429,
                        ..Signals::default()
                    };
                    assert_eq!(
                        read, expected,
                        "value {value:?}, status {status}, {flavour:?}"
                    );
                }
            }
        }
    }

    /// Each name is inert in any case and with spaces around it, and a name that differs
    /// by one byte, or is longer or shorter by one, is not: names are compared only with
    /// those of their own length, so every length is tried.
    #[test]
    fn a_name_is_inert_exactly_when_it_is_one_of_the_list() {
        for known in INERT {
            assert!(is_inert(known));
            assert!(is_inert(&format!(" {} ", known.to_uppercase())));
            assert!(!is_inert(&format!("{known}s")), "{known}s");
            assert!(!is_inert(&known[1..]), "{}", &known[1..]);
            for at in 0..known.len() {
                let mut changed = known.as_bytes().to_vec();
                changed[at] = b'#';
                let changed = String::from_utf8(changed).unwrap_or_default();
                assert!(!is_inert(&changed), "{changed}");
            }
        }
        assert!(!is_inert(""));
        assert!(!is_inert(&"x".repeat(4096)));
        assert!(!is_inert(
            "x-ratelimit-remaining-requests-per-minute-of-the-day"
        ));
    }

    #[test]
    fn the_shortcut_needs_every_field_inert() {
        let now = Utc.with_ymd_and_hms(2026, 10, 21, 7, 0, 0).unwrap();
        let plain: [(&str, &[u8]); 3] = [
            ("Content-Type", b"application/json"),
            (" date ", b"Wed, 21 Oct 2026 07:00:00 GMT"),
            ("ETag", b"\"abc\""),
        ];
        assert!(plain.iter().all(|(n, _)| is_inert(n)));
        let s = crate::read(200, &Headers::new(&plain), now, Flavour::Auto);
        assert_eq!(s, Signals::default());
        // One signal among inert fields is read, against the reply's own Date.
        let mut fields = plain.to_vec();
        fields.push(("Retry-After", b"Wed, 21 Oct 2026 07:00:47 GMT"));
        let s = crate::read(503, &Headers::new(&fields), now, Flavour::Auto);
        assert_eq!(s.retry_after, Some(std::time::Duration::from_secs(47)));
        assert!(!is_inert("X-RateLimit-Remaining"));
        assert!(!is_inert("Link"));
        assert!(!is_inert("Warning"));
    }
}
