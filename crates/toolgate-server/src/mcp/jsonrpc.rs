//! JSON-RPC 2.0 framing: reading one message, and writing results and errors.
//!
//! Every transport reads messages through [`parse`], so a malformed body, a batch or a
//! bad id is refused the same way over HTTP (sessions and stateless alike) and stdio.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::envelope::{Params, ParamsField};

/// The error codes, by name (one list for the client, the server and every transport).
pub use toolgate_mcp_client::codes::{
    HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR, SERVER_BUSY, UNSUPPORTED_PROTOCOL_VERSION,
};

/// A request id, as the JSON text to echo: a string exactly as received, or an integer
/// in i64 range (the ids JSON-RPC and rmcp's `RequestId` accept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Id(String);

impl Id {
    /// The id's JSON text.
    pub fn json(&self) -> &str {
        &self.0
    }

    fn from_raw(raw: &RawValue) -> Option<Id> {
        let text = raw.get();
        if text.starts_with('"') {
            return Some(Id(text.to_owned()));
        }
        // An integer: digits only (no fraction or exponent), within i64. It is echoed in
        // its canonical form, which is the text received for every integer but `-0`.
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse::<i64>().ok().map(|n| Id(n.to_string()))
    }
}

/// One message from a client, with its params' fields read (the one read of them).
#[derive(Debug)]
pub enum Message<'a> {
    /// A request: it gets exactly one answer.
    Request {
        id: Id,
        method: Cow<'a, str>,
        params: Option<Params>,
    },
    /// A notification: it gets no answer.
    Notification {
        method: Cow<'a, str>,
        params: Option<Params>,
    },
    /// The client's answer to a server→client request: its id (`None` when null or
    /// malformed) and its `result` (Ok) or `error` (Err), as JSON text.
    Reply {
        id: Option<Id>,
        outcome: Result<&'a RawValue, &'a RawValue>,
    },
}

impl Message<'_> {
    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            Message::Reply { .. } => None,
        }
    }

    /// The params, for requests and notifications.
    pub fn params(&self) -> Option<&Params> {
        match self {
            Message::Request { params, .. } | Message::Notification { params, .. } => {
                params.as_ref()
            }
            Message::Reply { .. } => None,
        }
    }
}

/// Why a body is not a message; answered with [`Refusal::to_json`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
}

impl Refusal {
    /// The JSON-RPC error answer (its id is null: the request's id is unknown or bad).
    pub fn to_json(&self) -> Vec<u8> {
        error(None, self.code, &self.message, None)
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    /// Present (even as `null`) or absent: `Option<&RawValue>` alone would read `null`
    /// as absent and turn a request with a null id into a notification.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    /// Read here, in the one pass over the body: no stage reads the params again.
    #[serde(default, deserialize_with = "present_params")]
    params: Option<ParamsField>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

fn present_params<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ParamsField>, D::Error> {
    ParamsField::deserialize(d).map(Some)
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// [`parse`], refusing first a message of more JSON values than one of `max_bytes` (the
/// transport's size limit) may hold: at most one per
/// [`toolgate_contract::BYTES_PER_VALUE`] bytes of it, the rule an upstream's replies
/// are held to. Reading the params builds a tree of them, which for tiny values (`{}`,
/// `0`) takes tens of times their text; without the count a client's 4 MiB of `{},`
/// costs over 100 MB, and a few such requests at once the process.
pub fn parse_within(bytes: &[u8], max_bytes: usize) -> Result<Message<'_>, Refusal> {
    let limit = max_bytes / toolgate_contract::BYTES_PER_VALUE;
    if toolgate_contract::more_values_than(bytes, limit) {
        return Err(Refusal {
            code: INVALID_REQUEST,
            message: format!(
                "Invalid Request: the message holds more than {limit} JSON values, more than \
                 toolgate reads of one (one per {} bytes of its size limit); send fewer, larger values",
                toolgate_contract::BYTES_PER_VALUE
            ),
        });
    }
    parse(bytes)
}

/// The most of a reader's explanation a refusal quotes, in bytes.
const MAX_REASON: usize = 200;

/// `text` cut to at most `max` bytes at a character boundary, marked with `…` when cut.
fn cut_short(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

/// Reads one JSON-RPC message.
pub fn parse(bytes: &[u8]) -> Result<Message<'_>, Refusal> {
    let refuse = |code, message: &str| Refusal {
        code,
        message: message.to_owned(),
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        if serde_json::from_slice::<&RawValue>(bytes).is_err() {
            return Err(refuse(
                PARSE_ERROR,
                "Parse error: the body is not valid JSON",
            ));
        }
        return Err(refuse(
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are not supported; send one message per request",
        ));
    }
    let envelope: Envelope<'_> = match serde_json::from_slice(bytes) {
        Ok(e) => e,
        Err(e) if e.is_syntax() || e.is_eof() => {
            return Err(refuse(
                PARSE_ERROR,
                &format!("Parse error: the body is not valid JSON ({e})"),
            ));
        }
        Err(e) => {
            // What serde found wrong (a member given twice, a member of the wrong type,
            // nesting too deep) is the client's own request read back to it; cut short,
            // since a wrong type quotes the value.
            return Err(refuse(
                INVALID_REQUEST,
                &format!(
                    "Invalid Request: expected a JSON-RPC 2.0 message object ({})",
                    cut_short(&e.to_string(), MAX_REASON)
                ),
            ));
        }
    };
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        return Err(refuse(
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let params = match envelope.params {
        None => None,
        Some(ParamsField::Object(params)) => Some(params),
        Some(ParamsField::NotObject) => {
            return Err(refuse(
                INVALID_REQUEST,
                "Invalid Request: `params` must be an object",
            ));
        }
    };
    match (envelope.method, envelope.id) {
        (Some(method), Some(raw)) => {
            let id = Id::from_raw(raw).ok_or_else(|| {
                refuse(
                    INVALID_REQUEST,
                    "Invalid Request: the id must be a string or an integer in the i64 range",
                )
            })?;
            Ok(Message::Request { id, method, params })
        }
        (Some(method), None) => Ok(Message::Notification { method, params }),
        (None, Some(raw)) if envelope.error.is_some() || envelope.result.is_some() => {
            let outcome = match (envelope.error, envelope.result) {
                (Some(error), _) => Err(error),
                (None, Some(result)) => Ok(result),
                (None, None) => {
                    return Err(refuse(
                        INVALID_REQUEST,
                        "Invalid Request: a message needs a `method`",
                    ));
                }
            };
            Ok(Message::Reply {
                id: Id::from_raw(raw),
                outcome,
            })
        }
        _ => Err(refuse(
            INVALID_REQUEST,
            "Invalid Request: a message needs a `method`",
        )),
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` with `result` serialised.
pub fn result<T: Serialize + ?Sized>(id: &Id, result: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.json().as_bytes());
    out.extend_from_slice(br#","result":"#);
    // Serialising model types into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, result);
    out.push(b'}');
    out
}

/// `{"jsonrpc":"2.0","id":…,"result":<raw>}` with `raw` already JSON.
pub fn raw_result(id: &Id, raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + 48);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.json().as_bytes());
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(raw);
    out.push(b'}');
    out
}

/// A JSON-RPC error answer; `id` is `None` when the request's id is not known.
pub fn error(id: Option<&Id>, code: i64, message: &str, data: Option<&Value>) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + 96);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.map_or("null", Id::json).as_bytes());
    out.extend_from_slice(br#","error":{"code":"#);
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(br#","message":"#);
    super::answer::write_str(&mut out, message);
    if let Some(data) = data {
        out.extend_from_slice(br#","data":"#);
        let _ = serde_json::to_writer(&mut out, data);
    }
    out.extend_from_slice(b"}}");
    out
}

#[cfg(test)]
mod tests;
