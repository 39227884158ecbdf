//! A body written as form fields (`application/x-www-form-urlencoded`), read as the JSON
//! object of its fields.
//!
//! Some APIs answer in the encoding their requests use: an OAuth token endpoint's error
//! (`error=bad_verification_code&error_description=The+code+passed+is+incorrect+or+expired.`,
//! sent with a 200 by GitHub's token exchange and device flow), OAuth 1.0a's problem
//! reports (`oauth_problem=token_expired&oauth_problem_advice=…`), and name-value-pair
//! APIs whose every answer is a 200 (`ACK=Failure&L_ERRORCODE0=10002&L_LONGMESSAGE0=
//! Security%20header%20is%20not%20valid`). Their fields say what a JSON error's members
//! say, so they are read by the same rules once decoded: `error` is an error's code,
//! `error_description` and `L_LONGMESSAGE0` its messages, `ACK=Failure` its status.
//!
//! Only a body that is nothing but fields counts: each `name=value` pair separated by
//! `&`, names of letters, digits, `_`, `-`, `.`, `[` and `]`, values without spaces or
//! quotes (as percent-encoding leaves them). A sentence, JSON or markup never parses.
//! Bounded: only the first [`super::MAX_BODY_PREFIX`] bytes are given, at most
//! [`MAX_FIELDS`] fields are kept, and the first of a repeated name wins.

use serde_json::{Map, Value};

/// Fields kept from one body.
const MAX_FIELDS: usize = 32;

/// The fields of a form-encoded `body` as a JSON object's bytes; `None` when the body is
/// not form fields or holds none.
pub(super) fn as_json(body: &[u8]) -> Option<Vec<u8>> {
    // Every successful body passes here: JSON, markup and anything else that does not
    // open with a name's letter costs one look at its first bytes.
    let start = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if !body[start].is_ascii_alphabetic() {
        return None;
    }
    let text = std::str::from_utf8(&body[start..]).ok()?.trim();
    // A lone word (`Forbidden`) or a sentence is text, not a field.
    if !text.contains('=') {
        return None;
    }
    let mut fields = Map::new();
    for pair in text.split('&') {
        let (name, value) = pair.split_once('=')?;
        if !is_name(name) || !is_encoded_value(value) {
            return None;
        }
        if fields.len() < MAX_FIELDS && !fields.contains_key(name) {
            fields.insert(name.to_owned(), Value::String(decoded(value)));
        }
    }
    serde_json::to_vec(&Value::Object(fields)).ok()
}

fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'[' | b']'))
}

/// A value as form encoding leaves it: no spaces, quotes, braces or markup.
fn is_encoded_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'<' | b'>' | b'{' | b'}'))
}

/// A value with `+` read as a space and `%XX` as the byte it names; bytes that do not
/// make UTF-8 are replaced.
fn decoded(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| {
            bytes
                .get(at)
                .and_then(|b| char::from(*b).to_digit(16))
                .and_then(|d| u8::try_from(d).ok())
        };
        let escaped = (bytes[i] == b'%')
            .then(|| hex(i + 1).zip(hex(i + 2)))
            .flatten();
        match (bytes[i], escaped) {
            (_, Some((hi, lo))) => {
                out.push(hi * 16 + lo);
                i += 2;
            }
            (b'+', None) => out.push(b' '),
            (b, None) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::as_json;

    fn read(body: &str) -> Option<serde_json::Value> {
        as_json(body.as_bytes()).map(|j| serde_json::from_slice(&j).unwrap_or_default())
    }

    #[test]
    fn form_fields_are_read_as_the_members_of_an_object() {
        let got = read("error=bad_verification_code&error_description=The+code+passed+is+incorrect%2C+or+expired.&error_uri=https%3A%2F%2Fexample.com").unwrap_or_default();
        assert_eq!(got["error"], "bad_verification_code");
        assert_eq!(
            got["error_description"],
            "The code passed is incorrect, or expired."
        );
        let nvp = read("ACK=Failure&L_ERRORCODE0=10002&L_LONGMESSAGE0=Security%20header%20is%20not%20valid&L_LONGMESSAGE0=second").unwrap_or_default();
        assert_eq!(nvp["L_LONGMESSAGE0"], "Security header is not valid");
    }

    #[test]
    fn text_json_and_markup_are_not_form_fields() {
        for body in [
            "Forbidden",
            "Too many requests, please try again later.",
            "error: token has expired",
            r#"{"error":"invalid_token"}"#,
            "<Error><Code>x=y</Code></Error>",
            "a=b c",
            "=value",
            "",
        ] {
            assert_eq!(read(body), None, "{body}");
        }
    }

    #[test]
    fn a_broken_escape_is_kept_as_written() {
        let got = read("error=bad%zzcode%").unwrap_or_default();
        assert_eq!(got["error"], "bad%zzcode%");
    }
}
