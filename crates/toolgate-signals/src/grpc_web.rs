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
//! A reply that has a body sends its trailers as the body's last frame instead
//! (PROTOCOL-WEB.md: a frame is a flag byte, a 4-byte big-endian length and the
//! payload; a flag byte with its high bit `0x80` set marks the trailers frame, whose
//! payload is HTTP/1 header lines, `grpc-status:14\r\ngrpc-message:…\r\n`). A 200 whose
//! trailers frame names a status other than OK is that failure, read by
//! [`body_trailers`].
//!
//! `application/grpc-web-text` sends the same frames as base64, each flush encoded on its
//! own (so padding may stand in the middle of the body): such a body of at most
//! [`MAX_TEXT_BODY`] bytes is decoded, piece by piece, and read the same way.
//!
//! Bounded: one header value of at most a few digits is read; in a body, at most
//! [`MAX_FRAMES`] frame headers are stepped over (their payloads are skipped, not read)
//! and only a last frame of at most [`MAX_TRAILERS`] bytes is read.

use std::borrow::Cow;

use crate::headers::Headers;
use crate::recovery::Recovery;

/// Longest `grpc-status` value read: gRPC's codes are 0 to 16.
const MAX_DIGITS: usize = 3;
/// Frames stepped over to reach a body's last one: a unary reply has two (its message
/// and the trailers); a longer stream is not read for its status.
const MAX_FRAMES: usize = 64;
/// Longest trailers frame read: a status, a message and a few metadata lines.
const MAX_TRAILERS: usize = 8 * 1024;
/// Longest base64 body decoded: a unary reply's message and its trailers. Only a
/// `grpc-web-text` reply with a success status pays for the decoding.
const MAX_TEXT_BODY: usize = 64 * 1024;
/// A frame's flag byte, its 4-byte length after it.
const FRAME_HEADER: usize = 5;
/// The flag bit of a trailers frame.
const TRAILERS_FLAG: u8 = 0x80;

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

/// The failure a gRPC-web body's trailers frame names: what its `grpc-status` stands
/// for and would be fixed by, and the status and message as sent, for the model's
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trailers<'a> {
    /// The HTTP status the `grpc-status` stands for ([`stands_for`]).
    pub stands_for: u16,
    /// What would fix it, by gRPC's retry guidance.
    pub recovery: Option<Recovery>,
    /// The `grpc-status` value, trimmed (owned when the body was base64).
    pub status: Cow<'a, [u8]>,
    /// The `grpc-message` value, trimmed (percent-encoded, as sent).
    pub message: Option<Cow<'a, [u8]>>,
}

/// The failure named in the trailers frame of a gRPC-web body, given the reply's
/// `Content-Type` (`application/grpc-web…`, binary framing, or `application/grpc-web-text…`,
/// the frames in base64); `None` for any other reply, for a body
/// whose last frame is not a trailers frame, for more than [`MAX_FRAMES`] frames or a
/// trailers frame over [`MAX_TRAILERS`] bytes, for a base64 body over [`MAX_TEXT_BODY`]
/// bytes or not base64, and for `grpc-status: 0`. Only frame
/// headers are stepped over until the last frame, so a message that holds the words
/// `grpc-status` is never read as one.
///
/// ```
/// use toolgate_signals::grpc_web::body_trailers;
/// let trailers = b"grpc-status:16\r\ngrpc-message:token%20expired\r\n";
/// let mut body = vec![0x80, 0, 0, 0, trailers.len() as u8];
/// body.extend_from_slice(trailers);
/// let t = body_trailers(b"application/grpc-web+proto", &body).unwrap();
/// assert_eq!(t.stands_for, 401);
/// assert_eq!(t.message.as_deref(), Some(&b"token%20expired"[..]));
/// ```
#[must_use]
pub fn body_trailers<'a>(content_type: &[u8], body: &'a [u8]) -> Option<Trailers<'a>> {
    const KIND: &[u8] = b"application/grpc-web";
    let kind = content_type.trim_ascii_start();
    if !kind
        .get(..KIND.len())
        .is_some_and(|k| k.eq_ignore_ascii_case(KIND))
    {
        return None;
    }
    let text = kind
        .get(KIND.len()..KIND.len() + 5)
        .is_some_and(|k| k.eq_ignore_ascii_case(b"-text"));
    if !text {
        return trailers_of(last_trailers_frame(body)?).map(Trailers::borrowed);
    }
    if body.len() > MAX_TEXT_BODY {
        return None;
    }
    let decoded = base64_pieces(body)?;
    let t = trailers_of(last_trailers_frame(&decoded)?)?;
    Some(Trailers {
        stands_for: t.stands_for,
        recovery: t.recovery,
        status: Cow::Owned(t.status.to_vec()),
        message: t.message.map(|m| Cow::Owned(m.to_vec())),
    })
}

/// What a trailers frame's payload names, borrowed from it.
struct Found<'a> {
    stands_for: u16,
    recovery: Option<Recovery>,
    status: &'a [u8],
    message: Option<&'a [u8]>,
}

impl<'a> Trailers<'a> {
    fn borrowed(t: Found<'a>) -> Self {
        Trailers {
            stands_for: t.stands_for,
            recovery: t.recovery,
            status: Cow::Borrowed(t.status),
            message: t.message.map(Cow::Borrowed),
        }
    }
}

/// The status and message of a trailers frame's payload; `None` without a failed
/// `grpc-status`.
fn trailers_of(payload: &[u8]) -> Option<Found<'_>> {
    let (mut status, mut message) = (None, None);
    for line in payload.split(|b| *b == b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let (name, value) = (line[..colon].trim_ascii(), line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"grpc-status") {
            status = Some(value);
        } else if name.eq_ignore_ascii_case(b"grpc-message") {
            message = Some(value);
        }
    }
    let status = status?;
    Some(Found {
        stands_for: stands_for(status)?,
        recovery: code(status).and_then(crate::recovery::grpc_number),
        status,
        message,
    })
}

/// The bytes of a base64 body written in pieces, each with its own padding (gRPC-web-text
/// encodes each flushed frame on its own): a `=` ends a piece, and the bits it pads are
/// dropped. Both alphabets are read; whitespace is skipped; any other byte is not
/// base64 and gives `None`.
fn base64_pieces(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut bits, mut held) = (0u32, 0u32);
    for &c in text {
        let six = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                (bits, held) = (0, 0);
                continue;
            }
            c if c.is_ascii_whitespace() => continue,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(six);
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push(u8::try_from(bits >> held).ok()?);
            bits &= (1 << held) - 1;
        }
    }
    Some(out)
}

/// The payload of a body's last frame when that frame is a trailers frame and the
/// frames before it fill the body exactly.
fn last_trailers_frame(body: &[u8]) -> Option<&[u8]> {
    let mut at = 0;
    for _ in 0..MAX_FRAMES {
        let header = body.get(at..at + FRAME_HEADER)?;
        let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]);
        let len = usize::try_from(len).ok()?;
        let end = (at + FRAME_HEADER).checked_add(len)?;
        if end > body.len() {
            return None;
        }
        if end == body.len() {
            let trailers = header[0] & TRAILERS_FLAG != 0 && len <= MAX_TRAILERS;
            return trailers.then(|| &body[at + FRAME_HEADER..end]);
        }
        at = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{body_trailers, recovery, stands_for};
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

    /// One frame: its flag byte, its length, its payload.
    fn frame(flag: u8, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![flag];
        f.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    const GRPC_WEB: &[u8] = b"application/grpc-web+proto";

    #[test]
    fn the_trailers_frame_ending_a_body_names_the_failure() {
        let message = frame(0, b"\x0a\x05hello");
        // The reply's Content-Type, its trailers, the status they stand for, the fix.
        type Case<'a> = (&'a [u8], &'a [u8], u16, Option<Recovery>);
        let cases: [Case<'_>; 4] = [
            (
                GRPC_WEB,
                b"grpc-status:16\r\ngrpc-message:bad%20token\r\n",
                401,
                Some(Recovery::Credentials),
            ),
            (
                b"application/grpc-web",
                b"Grpc-Status: 14\r\n",
                503,
                Some(Recovery::Transient),
            ),
            (
                b"Application/GRPC-Web+json",
                b"x-trace:1\ngrpc-status:9\n",
                400,
                Some(Recovery::Request),
            ),
            (GRPC_WEB, b"grpc-status:13\r\ngrpc-message:boom", 500, None),
        ];
        for (kind, trailers, status, recovery) in cases {
            for body in [
                frame(0x80, trailers),
                [message.clone(), frame(0x80, trailers)].concat(),
            ] {
                let t = body_trailers(kind, &body).unwrap_or_else(|| panic!("{trailers:?}"));
                assert_eq!(
                    (t.stands_for, t.recovery),
                    (status, recovery),
                    "{trailers:?}"
                );
            }
        }
        // Values are trimmed; the message stays as sent.
        let spaced = frame(0x80, b"grpc-status: 16 \r\ngrpc-message: bad%20token \r\n");
        let t = body_trailers(GRPC_WEB, &spaced).unwrap();
        assert_eq!(
            (&*t.status, t.message.as_deref()),
            (&b"16"[..], Some(&b"bad%20token"[..]))
        );
    }

    /// Standard base64 of `bytes`, for the tests (the text form of a gRPC-web body).
    fn base64(bytes: &[u8]) -> Vec<u8> {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = Vec::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            for i in 0..4 {
                out.push(if i <= chunk.len() {
                    ALPHABET[(n >> (18 - 6 * i) & 63) as usize]
                } else {
                    b'='
                });
            }
        }
        out
    }

    const GRPC_WEB_TEXT: &[u8] = b"application/grpc-web-text+proto";

    #[test]
    fn a_base64_body_is_read_for_its_trailers_frame() {
        let message = frame(0, b"\x0a\x05hello");
        let failed = frame(0x80, b"grpc-status:16\r\ngrpc-message:token%20expired\r\n");
        // The whole body encoded at once, and each frame encoded on its own (padding in
        // the middle), as a server that flushes every frame writes it.
        for body in [
            base64(&[message.clone(), failed.clone()].concat()),
            [base64(&message), base64(&failed)].concat(),
            base64(&failed),
        ] {
            let t = body_trailers(GRPC_WEB_TEXT, &body).unwrap();
            assert_eq!(t.stands_for, 401);
            assert_eq!(t.recovery, Some(Recovery::Credentials));
            assert_eq!(t.message.as_deref(), Some(&b"token%20expired"[..]));
        }
        let unavailable = base64(&frame(0x80, b"grpc-status:14\r\n"));
        let t = body_trailers(b"application/grpc-web-text", &unavailable).unwrap();
        assert_eq!((t.stands_for, t.recovery), (503, Some(Recovery::Transient)));
    }

    #[test]
    fn a_base64_body_that_is_ok_long_or_not_base64_is_not_read() {
        let ok = base64(&frame(0x80, b"grpc-status:0\r\n"));
        let failed = base64(&frame(0x80, b"grpc-status:16\r\n"));
        let long = [
            base64(&frame(0, &vec![b'm'; super::MAX_TEXT_BODY])),
            failed.clone(),
        ]
        .concat();
        let mut broken = failed.clone();
        broken[3] = b'*';
        for body in [ok, long, broken, b"{\"error\":\"x\"}".to_vec()] {
            assert_eq!(body_trailers(GRPC_WEB_TEXT, &body), None, "{body:?}");
        }
        // The binary form's bytes are no base64.
        assert_eq!(
            body_trailers(GRPC_WEB_TEXT, &frame(0x80, b"grpc-status:16\r\n")),
            None
        );
    }

    #[test]
    fn only_a_binary_grpc_web_body_ending_in_a_failed_trailers_frame_is_read() {
        let failed = frame(0x80, b"grpc-status:16\r\n");
        let message = frame(0, b"grpc-status:16\r\n");
        let many: Vec<u8> = (0..65)
            .flat_map(|_| frame(0, b"m"))
            .chain(failed.clone())
            .collect();
        let big = frame(
            0x80,
            &[b"grpc-status:16\r\n".as_slice(), &[b' '; 9000]].concat(),
        );
        for (kind, body) in [
            // OK, no status, a message frame last, a frame left unfinished or cut short.
            (GRPC_WEB, frame(0x80, b"grpc-status:0\r\n")),
            (GRPC_WEB, frame(0x80, b"grpc-message:none\r\n")),
            (GRPC_WEB, [message.clone()].concat()),
            (GRPC_WEB, [failed.clone(), message.clone()].concat()),
            (GRPC_WEB, [failed.clone(), vec![0x80, 0, 0]].concat()),
            (GRPC_WEB, failed[..failed.len() - 1].to_vec()),
            (GRPC_WEB, vec![0x80, 0xff, 0xff, 0xff, 0xff, b'g']),
            (GRPC_WEB, Vec::new()),
            // More frames than are stepped over, a trailers frame larger than is read.
            (GRPC_WEB, many),
            (GRPC_WEB, big),
            // Binary frames sent as base64 text, another type.
            (&b"application/grpc-web-text"[..], failed.clone()),
            (b"application/json", failed.clone()),
            (b"application/grpc", failed.clone()),
        ] {
            assert_eq!(body_trailers(kind, &body), None, "{kind:?} {body:?}");
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
