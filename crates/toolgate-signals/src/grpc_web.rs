//! A gRPC status carried in a reply's headers: gRPC-web's trailers-only reply
//! (`grpc-status: 16`, `grpc-message: …` as headers of an HTTP 200, with no body —
//! gRPC's PROTOCOL-WEB.md; Envoy's `grpc_web` filter and tonic-web answer so), and the
//! same fields a proxy leaves beside the HTTP status it chose (a 401 with
//! `grpc-status: 16`).
//!
//! Read as a status, a trailers-only 200 is a success, and its empty body would be told
//! as drift: [`stands_for`] names the HTTP status the gRPC status maps to (the mapping
//! the Connect protocol and grpc-gateway share), so the reply is classified as that
//! failure, as a failed GraphQL reply is ([`crate::graphql`]). What would fix it is
//! gRPC's own retry guidance ([`recovery`]).
//!
//! Bounded: one header value of at most a few digits is read.

use crate::headers::Headers;
use crate::recovery::Recovery;

/// Longest `grpc-status` value read: gRPC's codes are 0 to 16.
const MAX_DIGITS: usize = 3;

/// The gRPC status number a `grpc-status` value names; `None` for anything but a
/// short decimal numeral.
fn code(value: &[u8]) -> Option<u64> {
    let value = value.trim_ascii();
    if value.is_empty() || value.len() > MAX_DIGITS || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// The HTTP status a `grpc-status` header value stands for; `None` for `0` (OK) and for
/// a value that is not a gRPC status. Codes gRPC has not defined stand for a 500, as
/// gRPC's `UNKNOWN` does.
///
/// ```
/// use toolgate_signals::grpc_web::stands_for;
/// assert_eq!(stands_for(b"16"), Some(401));
/// assert_eq!(stands_for(b"14"), Some(503));
/// assert_eq!(stands_for(b"0"), None);
/// assert_eq!(stands_for(b"unavailable"), None);
/// ```
#[must_use]
pub fn stands_for(grpc_status: &[u8]) -> Option<u16> {
    Some(match code(grpc_status)? {
        0 => return None,
        1 => 499,
        3 | 9 | 11 => 400,
        4 => 504,
        5 => 404,
        6 | 10 => 409,
        7 => 403,
        8 => 429,
        12 => 501,
        14 => 503,
        16 => 401,
        _ => 500,
    })
}

/// What the `grpc-status` header of a reply says would fix it, by gRPC's retry
/// guidance (`UNAVAILABLE` passes, `INVALID_ARGUMENT` is the request's, `UNAUTHENTICATED`
/// the credentials'); `None` without one, or for `OK`.
pub(crate) fn recovery(headers: &Headers<'_>) -> Option<Recovery> {
    let value = headers.get("grpc-status")?;
    crate::recovery::grpc_number(code(value).filter(|c| *c != 0)?)
}

#[cfg(test)]
mod tests {
    use super::{recovery, stands_for};
    use crate::headers::Headers;
    use crate::recovery::Recovery;

    #[test]
    fn every_grpc_status_stands_for_an_http_failure() {
        // gRPC's codes 1 to 16, by the mapping Connect and grpc-gateway share.
        let want = [
            499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401,
        ];
        for (n, status) in (1..=16).zip(want) {
            assert_eq!(stands_for(n.to_string().as_bytes()), Some(status), "{n}");
        }
        // A code gRPC has not defined is an unknown failure, not a success.
        assert_eq!(stands_for(b"42"), Some(500));
        assert_eq!(stands_for(b" 7 "), Some(403));
    }

    #[test]
    fn ok_and_what_is_no_status_stand_for_nothing() {
        for v in [
            &b"0"[..],
            b"",
            b"UNAVAILABLE",
            b"-1",
            b"1e3",
            b"99999999999999999999",
            b"\xff",
        ] {
            assert_eq!(stands_for(v), None, "{v:?}");
        }
    }

    #[test]
    fn the_header_says_what_would_fix_the_failure() {
        let one = |v: &str| {
            let fields = [("Grpc-Status", v.as_bytes())];
            recovery(&Headers::new(&fields))
        };
        assert_eq!(one("16"), Some(Recovery::Credentials));
        assert_eq!(one("3"), Some(Recovery::Request));
        assert_eq!(one("14"), Some(Recovery::Transient));
        assert_eq!(one("12"), Some(Recovery::Unsupported));
        assert_eq!(one("0"), None);
        assert_eq!(one("13"), None);
        assert_eq!(recovery(&Headers::new(&[])), None);
    }
}
