//! JSON-RPC messages as they arrive from a server, sorted by kind, and the
//! few messages the client writes.

use serde::{Deserialize, Deserializer};
use serde_json::error::Category;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::RpcError;

/// A response's `result` as the server wrote it (JSON text, never turned into a
/// `Value` here), or its `error`.
pub type RpcOutcome = Result<Box<RawValue>, RpcError>;

/// One message from the server.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// An answer to one of our requests (integer ids are ours; any other id
    /// cannot be, and such an answer is dropped by the caller).
    Response {
        id: Option<i64>,
        outcome: RpcOutcome,
    },
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
}

/// A message's members as read: present (even as `null`) or absent, and the
/// `result` as its text.
#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(borrow, default, deserialize_with = "present_raw")]
    result: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn present_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Sorts one message. `None`: not a JSON-RPC message.
fn classify(wire: Wire<'_>) -> Option<Incoming> {
    match (wire.method, wire.id) {
        (Some(Value::String(method)), Some(id)) if !id.is_null() => Some(Incoming::Request {
            id,
            method,
            params: wire.params,
        }),
        (Some(Value::String(method)), None) => Some(Incoming::Notification {
            method,
            params: wire.params,
        }),
        (None, Some(id)) if wire.result.is_some() || wire.error.is_some() => {
            let outcome = match (wire.error, wire.result) {
                (Some(error), _) => Err(RpcError {
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    data: error.get("data").cloned(),
                }),
                (None, Some(result)) => Ok(result.to_owned()),
                (None, None) => return None,
            };
            Some(Incoming::Response {
                id: id.as_i64(),
                outcome,
            })
        }
        _ => None,
    }
}

/// Why a message was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unread {
    /// Not JSON, or not JSON-RPC: what was wrong.
    Malformed(String),
    /// More JSON values than toolgate parses of a message of the size limit: one per
    /// [`toolgate_contract::BYTES_PER_VALUE`] bytes of it. Parsing builds a tree, and
    /// tiny or nested values (`[[[[…]]]]`, a million `0,`) cost tens of times their
    /// text; counted on the bytes, before anything is built.
    TooManyValues(usize),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Malformed(why) => f.write_str(why),
            Unread::TooManyValues(limit) => {
                write!(f, "the message holds more than {limit} JSON values")
            }
        }
    }
}

/// The most JSON values a message may hold when messages may be `max_bytes` long.
pub(crate) fn value_limit(max_bytes: usize) -> usize {
    max_bytes / toolgate_contract::BYTES_PER_VALUE
}

/// Parses a body or an event's data into messages, in one pass; a batch (an
/// array, which revisions before 2025-06-18 allowed) yields each of its members. A
/// `\u` escape of a lone surrogate is read as `\ufffd` ([`crate::lone_surrogate`]).
/// `max_bytes` is the size limit of one message, which bounds its values too.
pub(crate) fn parse(bytes: &[u8], max_bytes: usize) -> Result<Vec<Incoming>, Unread> {
    // Half a character escaped alone is read as U+FFFD in whatever the server sent
    // (a result, a listing, a prompt, a notification): kept, it would have the
    // agent's every later request to its model refused.
    let well_formed = crate::lone_surrogate::replaced(bytes);
    let bytes = well_formed.as_deref().unwrap_or(bytes);
    let limit = value_limit(max_bytes);
    if toolgate_contract::more_values_than(bytes, limit) {
        return Err(Unread::TooManyValues(limit));
    }
    let refuse = |e: serde_json::Error| {
        Unread::Malformed(match e.classify() {
            Category::Data => "the message is not a JSON-RPC message".to_owned(),
            _ => format!("the message is not JSON ({e})"),
        })
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let wires: Vec<Wire<'_>> = if first == Some(&b'[') {
        serde_json::from_slice(bytes).map_err(refuse)?
    } else {
        vec![serde_json::from_slice(bytes).map_err(refuse)?]
    };
    wires
        .into_iter()
        .map(|w| {
            classify(w).ok_or_else(|| {
                Unread::Malformed("the message is not a JSON-RPC message".to_owned())
            })
        })
        .collect()
}

pub(crate) fn request(id: i64, method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut map = Map::new();
    map.insert("jsonrpc".into(), "2.0".into());
    map.insert("id".into(), id.into());
    map.insert("method".into(), method.into());
    if let Some(p) = params {
        map.insert("params".into(), p.clone());
    }
    serde_json::to_vec(&Value::Object(map)).unwrap_or_default()
}

pub(crate) fn notification(method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut map = Map::new();
    map.insert("jsonrpc".into(), "2.0".into());
    map.insert("method".into(), method.into());
    if let Some(p) = params {
        map.insert("params".into(), p.clone());
    }
    serde_json::to_vec(&Value::Object(map)).unwrap_or_default()
}

pub(crate) fn response(id: &Value, answer: &Result<Value, RpcError>) -> Vec<u8> {
    let message = match answer {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => {
            let mut error = json!({"code": e.code, "message": e.message});
            if let Some(data) = &e.data {
                error["data"] = data.clone();
            }
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
    };
    serde_json::to_vec(&message).unwrap_or_default()
}

pub(crate) fn cancelled(id: i64) -> Vec<u8> {
    notification(
        "notifications/cancelled",
        Some(&json!({"requestId": id, "reason": "the calling client stopped waiting"})),
    )
}

/// The `progressToken` a request carries in `params._meta`, as JSON text (a
/// token may be a string or a number; its text tells them apart).
pub(crate) fn progress_token(params: Option<&Value>) -> Option<String> {
    params?
        .get("_meta")?
        .get("progressToken")
        .filter(|t| t.is_string() || t.is_number())
        .map(Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_sorted_by_kind() {
        let got = parse(br#"[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":"s1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}},{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}]"#, 1 << 20).unwrap();
        assert!(matches!(got[0], Incoming::Response { id: Some(3), .. }));
        assert!(matches!(&got[1], Incoming::Request { method, .. } if method == "ping"));
        assert!(
            matches!(&got[2], Incoming::Notification { method, params: Some(_) } if method == "notifications/progress")
        );
        assert!(matches!(got[3], Incoming::Response { id: None, .. }));
        assert!(parse(b"<html>", 1 << 20).is_err());
        assert!(parse(br#"{"hello":1}"#, 1 << 20).is_err());
        assert!(parse(b"42", 1 << 20).is_err());
    }

    #[test]
    fn a_message_of_more_values_than_its_size_allows_is_refused_before_it_is_parsed() {
        // 160 bytes of message allow 10 values; the envelope holds 4 of them.
        let answer = |result: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
        assert!(parse(answer("[1,2]").as_bytes(), 160).is_ok());
        assert_eq!(
            parse(answer("[[[[[[[[1]]]]]]]]").as_bytes(), 160).unwrap_err(),
            Unread::TooManyValues(10)
        );
        // Values inside strings are text, not values.
        assert!(parse(answer(r#""[[[[[[[[,,,,]]]]]]]]""#).as_bytes(), 160).is_ok());
        let at_scale = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":[{}0]}}"#,
            "0,".repeat(70_000)
        );
        assert_eq!(
            parse(at_scale.as_bytes(), 1 << 20).unwrap_err(),
            Unread::TooManyValues(65_536)
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            let _ = parse(&bytes, 1 << 20);
        }
    }

    /// Half a character escaped alone (a lone surrogate, which browser tools copy
    /// from web pages): JavaScript and Python clients keep it, and the model APIs they
    /// send the conversation to refuse every later request. Each is read as U+FFFD, in
    /// a result passed on as text and in a notification or request parsed into values,
    /// which used to fail whole over it.
    #[test]
    fn half_a_character_escaped_alone_is_read_as_the_replacement_character() {
        let result = parse(
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a \ud83d b"}],"structuredContent":{"t":"\udc00"},"_meta":{"k":"x\uDBFF"}}}"#,
            1 << 20,
        )
        .unwrap();
        let Some(Incoming::Response {
            outcome: Ok(raw), ..
        }) = result.first()
        else {
            panic!("{result:?}");
        };
        let value: Value = serde_json::from_str(raw.get()).unwrap();
        assert_eq!(value["content"][0]["text"], "a \u{fffd} b");
        assert_eq!(value["structuredContent"]["t"], "\u{fffd}");
        assert_eq!(value["_meta"]["k"], "x\u{fffd}");
        let progress = parse(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"page \ud800"}}"#,
            1 << 20,
        )
        .unwrap();
        let Some(Incoming::Notification {
            params: Some(p), ..
        }) = progress.first()
        else {
            panic!("{progress:?}");
        };
        assert_eq!(p["message"], "page \u{fffd}");
        let asked = parse(
            br#"{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"\udfff?"}}"#,
            1 << 20,
        )
        .unwrap();
        let Some(Incoming::Request {
            params: Some(p), ..
        }) = asked.first()
        else {
            panic!("{asked:?}");
        };
        assert_eq!(p["message"], "\u{fffd}?");
    }

    #[test]
    fn surrogate_pairs_and_escaped_backslashes_are_read_as_written() {
        let text = r#"{"t":"\ud83d\ude00 \\ud800"}"#;
        let message = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{text}}}"#);
        let Some(Incoming::Response {
            outcome: Ok(raw), ..
        }) = parse(message.as_bytes(), 1 << 20).unwrap().pop()
        else {
            panic!("not a response");
        };
        assert_eq!(raw.get(), text);
    }

    #[test]
    fn an_error_response_keeps_code_message_and_data_and_a_result_its_text() {
        let outcome = |text: &str| match parse(text.as_bytes(), 1 << 20).unwrap().pop() {
            Some(Incoming::Response { outcome, .. }) => outcome,
            other => panic!("{other:?}"),
        };
        let e = outcome(r#"{"id":1,"error":{"code":-32602,"message":"bad","data":{"x":1}}}"#)
            .unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (-32602, "bad"));
        assert_eq!(e.data, Some(json!({"x":1})));
        // The result's text is kept as written: an exponent, an integer past u64,
        // and key order that a `Value` would change.
        let r = outcome(r#"{"id":1,"result":{"z":1e2,"a":123456789012345678901234567890}}"#);
        assert_eq!(
            r.unwrap().get(),
            r#"{"z":1e2,"a":123456789012345678901234567890}"#
        );
        assert!(parse(br#"{"id":1}"#, 1 << 20).is_err());
        assert!(parse(br#"{"id":1,"method":7}"#, 1 << 20).is_err());
        assert!(parse(br#"{"id":null,"method":"x"}"#, 1 << 20).is_err());
    }

    #[test]
    fn progress_tokens_keep_their_type() {
        let p = json!({"_meta":{"progressToken":7}});
        assert_eq!(progress_token(Some(&p)).as_deref(), Some("7"));
        let p = json!({"_meta":{"progressToken":"7"}});
        assert_eq!(progress_token(Some(&p)).as_deref(), Some("\"7\""));
        assert_eq!(progress_token(Some(&json!({"_meta":{}}))), None);
    }
}
