//! JSON-RPC messages as they arrive from a server, sorted by kind, and the
//! few messages the client writes.

use serde_json::{Map, Value, json};

use crate::RpcError;

/// One message from the server.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// An answer to one of our requests (integer ids are ours; any other id
    /// cannot be, and such an answer is dropped by the caller).
    Response { id: Option<i64>, message: Value },
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

/// Sorts one parsed message. `None`: not a JSON-RPC message.
pub(crate) fn classify(message: Value) -> Option<Incoming> {
    let Value::Object(ref map) = message else {
        return None;
    };
    match (map.get("method"), map.get("id")) {
        (Some(Value::String(method)), Some(id)) if !id.is_null() => Some(Incoming::Request {
            id: id.clone(),
            method: method.clone(),
            params: map.get("params").cloned(),
        }),
        (Some(Value::String(method)), None) => Some(Incoming::Notification {
            method: method.clone(),
            params: map.get("params").cloned(),
        }),
        (None, Some(id)) if map.contains_key("result") || map.contains_key("error") => {
            Some(Incoming::Response {
                id: id.as_i64(),
                message,
            })
        }
        _ => None,
    }
}

/// Parses a body or an event's data into messages; a batch (an array, which
/// revisions before 2025-06-18 allowed) yields each of its members.
pub(crate) fn parse(bytes: &[u8]) -> Result<Vec<Incoming>, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the message is not JSON ({e})"))?;
    let values = match value {
        Value::Array(items) => items,
        single => vec![single],
    };
    values
        .into_iter()
        .map(|v| classify(v).ok_or_else(|| "the message is not a JSON-RPC message".to_owned()))
        .collect()
}

/// A response's `result`, or its `error`.
pub(crate) fn outcome(message: &Value) -> Result<Result<Value, RpcError>, String> {
    if let Some(error) = message.get("error") {
        return Ok(Err(RpcError {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            data: error.get("data").cloned(),
        }));
    }
    match message.get("result") {
        Some(result) => Ok(Ok(result.clone())),
        None => Err("the response has neither `result` nor `error`".to_owned()),
    }
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
        let got = parse(br#"[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":"s1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}},{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}]"#).unwrap();
        assert!(matches!(got[0], Incoming::Response { id: Some(3), .. }));
        assert!(matches!(&got[1], Incoming::Request { method, .. } if method == "ping"));
        assert!(
            matches!(&got[2], Incoming::Notification { method, params: Some(_) } if method == "notifications/progress")
        );
        assert!(matches!(got[3], Incoming::Response { id: None, .. }));
        assert!(parse(b"<html>").is_err());
        assert!(parse(br#"{"hello":1}"#).is_err());
        assert!(parse(b"42").is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            if let Ok(messages) = parse(&bytes) {
                for m in messages {
                    if let Incoming::Response { message, .. } = m {
                        let _ = outcome(&message);
                    }
                }
            }
        }
    }

    #[test]
    fn an_error_response_keeps_code_message_and_data() {
        let e = outcome(&json!({"id":1,"error":{"code":-32602,"message":"bad","data":{"x":1}}}))
            .unwrap()
            .unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (-32602, "bad"));
        assert_eq!(e.data, Some(json!({"x":1})));
        assert!(outcome(&json!({"id":1})).is_err());
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
