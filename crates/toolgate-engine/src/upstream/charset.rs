//! A reply body in the character set its `Content-Type` names, read as UTF-8.
//!
//! JSON between systems is UTF-8 (RFC 8259), and everything after this step — the
//! contract check, the notes, the client — reads UTF-8. Some servers still answer in
//! another set: UTF-16 (older .NET and Java stacks, with a byte order mark), or
//! ISO-8859-1 / Windows-1252 (older PHP and Java servlet stacks). Such a body is
//! decoded to UTF-8 here, so its data reaches the client instead of failing as "not
//! JSON". A body that is already valid UTF-8 is left as it is whatever the label says:
//! a server labelling UTF-8 bytes `iso-8859-1` is common, and re-decoding them would
//! garble every non-ASCII letter. A body in a set toolgate does not decode fails with
//! a reason that names the set, so the owner knows what to change. The decoding is
//! `toolgate_signals::charset`'s, which fronted MCP servers' answers go through too;
//! here are the reply's headers and the sentence.

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap};
use toolgate_signals::charset::{Undecodable, to_utf8};

/// `body` as UTF-8: as it came when it is UTF-8 already, decoded when its first bytes
/// show UTF-16, else decoded from the character set its `Content-Type` declares.
/// `Err` holds why it could not be read, for the "not JSON" message; bytes that are
/// neither UTF-8 nor in a named set are returned as they came, for the JSON check.
pub fn as_utf8(headers: &HeaderMap, body: Bytes) -> Result<Bytes, String> {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    match to_utf8(content_type, &body) {
        Ok(None) => Ok(body),
        Ok(Some(text)) => Ok(Bytes::from(text)),
        Err(Undecodable::InvalidUtf16) => {
            Err("the body is in UTF-16 but is not valid UTF-16".to_owned())
        }
        Err(Undecodable::Unsupported(other)) => Err(format!(
            "the body is not UTF-8; its Content-Type names the character set {}, which toolgate does not decode (JSON is UTF-8, RFC 8259)",
            crate::explain::quoted(&other)
        )),
    }
}

#[cfg(test)]
mod tests;
