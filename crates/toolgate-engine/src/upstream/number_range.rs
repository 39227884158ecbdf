//! JSON numbers larger than toolgate's parser holds.
//!
//! RFC 8259 sets no limit on a number's size, so `1e400`, `-1e400` or an integer of 400
//! digits is valid JSON; toolgate's parser holds numbers as 64-bit floats and refuses
//! those whose magnitude overflows one ("number out of range"). A reply carrying one
//! is still passed on as the upstream wrote it. Only the reading that checks it (the
//! contract, repeated member names) is given a copy in which each such number stands
//! as the largest finite number of its sign: still a number, still an integer (every
//! value that large is one), and beyond every bound a schema can write short of it, so
//! `type`, `minimum` and `maximum` keep their meaning.

use serde_json::Error;
use toolgate_contract::{BodyError, ResponseContract};

/// What a number past the largest finite 64-bit float is read as.
const LARGEST: &[u8] = b"1.7976931348623157e308";

/// Whether the parser refused the text for a number it cannot hold.
pub(crate) fn is_out_of_range(e: &Error) -> bool {
    e.to_string().starts_with("number out of range")
}

/// `body` with every number too large to hold written as the largest finite one of
/// its sign; `None` when it has none. Strings are copied as they are; nothing else is
/// read, so a body that is not JSON stays what it was.
pub(crate) fn clamped(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut changed = false;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                let end = string_end(body, i);
                out.extend_from_slice(&body[i..end]);
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = body[i..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .map_or(body.len(), |n| i + n);
                let token = &body[i..end];
                let overflows = std::str::from_utf8(token)
                    .ok()
                    .and_then(|t| t.parse::<f64>().ok())
                    .is_some_and(f64::is_infinite);
                if overflows {
                    if token[0] == b'-' {
                        out.push(b'-');
                    }
                    out.extend_from_slice(LARGEST);
                    changed = true;
                } else {
                    out.extend_from_slice(token);
                }
                i = end;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// Where the string opening at `start` ends (past its closing quote; the end of the
/// body when it has none).
fn string_end(body: &[u8], start: usize) -> usize {
    toolgate_contract::string_end(body, start + 1).map_or(body.len(), |quote| quote + 1)
}

/// `body` parsed, with numbers too large to hold read as the largest finite ones.
pub(crate) fn parse(body: &[u8]) -> serde_json::Result<serde_json::Value> {
    match serde_json::from_slice(body) {
        Err(e) if is_out_of_range(&e) => match clamped(body) {
            Some(readable) => serde_json::from_slice(&readable),
            None => Err(e),
        },
        parsed => parsed,
    }
}

/// The contract's check of `body`, reading numbers too large to hold as the largest
/// finite ones (see the module's docs).
pub(crate) fn check(contract: &ResponseContract, body: &[u8]) -> Result<(), BodyError> {
    match contract.check_bytes(body) {
        Err(BodyError::NotJson(e)) if is_out_of_range(&e) => match clamped(body) {
            Some(readable) => contract.check_bytes(&readable),
            None => Err(BodyError::NotJson(e)),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numbers_past_the_largest_float_are_rewritten_and_strings_never() {
        let body = format!(
            r#"{{"a":1e400,"b":-1e400,"c":{},"d":1e-400,"e":1.5,"s":"1e400 \" 1e999","n":[-0,12]}}"#,
            "9".repeat(400)
        );
        let readable = String::from_utf8(clamped(body.as_bytes()).expect("changed")).unwrap();
        assert_eq!(
            readable,
            r#"{"a":1.7976931348623157e308,"b":-1.7976931348623157e308,"c":1.7976931348623157e308,"d":1e-400,"e":1.5,"s":"1e400 \" 1e999","n":[-0,12]}"#
        );
        let value: serde_json::Value = serde_json::from_str(&readable).expect("reads");
        assert!(value["a"].as_f64().unwrap().is_finite());
        assert_eq!(clamped(br#"{"a":1,"s":"1e400"}"#), None);
        // Text that is not JSON stays what it was around the number.
        assert_eq!(
            clamped(b"not json 1e400 at all").as_deref(),
            Some(&b"not json 1.7976931348623157e308 at all"[..])
        );
    }

    #[test]
    fn the_parser_refusal_is_told_from_others() {
        let refused = serde_json::from_str::<serde_json::Value>("[1e400]").unwrap_err();
        assert!(is_out_of_range(&refused), "{refused}");
        let other = serde_json::from_str::<serde_json::Value>("[1,").unwrap_err();
        assert!(!is_out_of_range(&other));
    }
}
