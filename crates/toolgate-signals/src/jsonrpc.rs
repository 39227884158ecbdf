//! Whether a successful reply is a JSON-RPC error response, and which HTTP status it
//! stands for.
//!
//! JSON-RPC servers send their errors inside the body, most with a 200: Solana's nodes,
//! Ethereum's execution clients (EIP-1474), Bitcoin Core for JSON-RPC 2.0 requests. Read
//! as a status such a reply is a success, and a contract that expects `result` refuses
//! it as drift, which pages the tool's owner for a node that is briefly behind.
//!
//! A response is one only when its top holds an `id` and nothing but `jsonrpc`
//! (`"2.0"`), `id` and `error`, or `result` set to `null` beside them as JSON-RPC 1.0
//! writes it (one of the two present), and its `error` is an object with an integer `code` and a string `message` (JSON-RPC 2.0
//! §5.1). A business object with an `error` member of its own is not one. The code
//! stands for a status by the specification's reserved codes: -32700 (parse error),
//! -32600 (invalid request) and -32602 (invalid params) are the request's, a 400;
//! -32601 (method not found) a method the server does not have, a 501; -32603 and the
//! codes servers define (-32000 to -32099, and any other) a 500, whose fix the error's
//! words tell ([`crate::recovery`] reads them).
//!
//! Bounded: only a body of at most [`MAX_BODY`] bytes whose first member is one of the
//! four (an `id` only when a JSON-RPC member follows its value) and that holds the name
//! `"error"` is parsed; every other 2xx costs a look at its first bytes, and a JSON-RPC
//! result one vectorised search for that name.

use serde_json::{Map, Value};

/// Bytes of a reply read: an error response is short.
const MAX_BODY: usize = 16 * 1024;

/// The HTTP status a 2xx body stands for when it is a JSON-RPC error response; `None`
/// for any other body, a JSON-RPC result included.
///
/// ```
/// use toolgate_signals::jsonrpc::failed;
/// let lagging = br#"{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind by 42 slots"},"id":1}"#;
/// assert_eq!(failed(lagging), Some(500));
/// let params = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}"#;
/// assert_eq!(failed(params), Some(400));
/// assert_eq!(failed(br#"{"jsonrpc":"2.0","id":1,"result":"0x1"}"#), None);
/// ```
#[must_use]
pub fn failed(body: &[u8]) -> Option<u16> {
    let head = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if body[head] != b'{' || body.len() > MAX_BODY || !first_member_is_rpc(&body[head + 1..]) {
        return None;
    }
    // A result, which every successful call of a JSON-RPC API is, names no `error`
    // member (only data can hold the word): no tree is built of it.
    memchr::memmem::find(body, b"\"error\"")?;
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    let shaped = top.iter().all(|(k, v)| match k.as_str() {
        "jsonrpc" => v.as_str() == Some("2.0"),
        "id" | "error" => true,
        "result" => v.is_null(),
        _ => false,
    });
    let versioned = top.contains_key("jsonrpc") || top.contains_key("result");
    if !shaped || !versioned || !top.contains_key("id") {
        return None;
    }
    status_of(top.get("error")?.as_object()?)
}

/// The status an error object stands for; `None` when it is not one (no integer
/// `code`, no string `message`).
fn status_of(error: &Map<String, Value>) -> Option<u16> {
    let code = error.get("code")?.as_i64()?;
    error.get("message")?.as_str()?;
    Some(match code {
        -32700 | -32600 | -32602 => 400,
        -32601 => 501,
        _ => 500,
    })
}

/// Whether an object's first member (`rest` follows its `{`) is one a JSON-RPC response
/// holds, so that most bodies are turned away without being parsed: `jsonrpc`, `error`
/// or `result`; or `id` with a scalar value followed by one of those three, since many
/// an answer begins with its own `id`.
fn first_member_is_rpc(rest: &[u8]) -> bool {
    let rpc = |name: &[u8]| matches!(name, b"jsonrpc" | b"error" | b"result");
    match first_name(rest) {
        Some((b"id", after)) => after_scalar(after)
            .and_then(first_name)
            .is_some_and(|(next, _)| rpc(next)),
        Some((name, _)) => rpc(name),
        None => false,
    }
}

/// The first member name of an object's rest and what follows its closing quote;
/// `None` when there is none, or it holds an escape (no JSON-RPC member does).
fn first_name(rest: &[u8]) -> Option<(&[u8], &[u8])> {
    let name = rest.trim_ascii_start().strip_prefix(b"\"")?;
    let end = memchr::memchr2(b'"', b'\\', name)?;
    (name[end] == b'"').then(|| (&name[..end], &name[end + 1..]))
}

/// What follows `: <scalar> ,` after a member name; `None` when the value is not a
/// plain string, a number or `null` (a JSON-RPC `id` is one of these), or no member
/// follows it.
fn after_scalar(after_name: &[u8]) -> Option<&[u8]> {
    let value = after_name
        .trim_ascii_start()
        .strip_prefix(b":")?
        .trim_ascii_start();
    let end = match value.first()? {
        b'"' => {
            let close = memchr::memchr2(b'"', b'\\', &value[1..])?;
            (value[1 + close] == b'"').then_some(close + 2)?
        }
        b'n' => value.starts_with(b"null").then_some(4)?,
        b if b.is_ascii_digit() || *b == b'-' => value
            .iter()
            .position(|b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
            .unwrap_or(value.len()),
        _ => return None,
    };
    value[end..].trim_ascii_start().strip_prefix(b",")
}

#[cfg(test)]
mod tests {
    use super::failed;

    #[test]
    fn error_responses_stand_for_the_status_their_code_names() {
        let cases: [(&[u8], u16); 8] = [
            // Bitcoin Core's RPC_IN_WARMUP, JSON-RPC 1.0's `result: null` beside it.
            (
                br#"{"result":null,"error":{"code":-28,"message":"Loading block index"},"id":"1"}"#,
                500,
            ),
            (
                br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"Parse error"}}"#,
                400,
            ),
            (
                br#"{"id":7,"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}"#,
                400,
            ),
            (
                br#"{ "id" : "req-1" , "error":{"code":-32602,"message":"Invalid params"},"jsonrpc":"2.0"}"#,
                400,
            ),
            (
                br#"{"id":null,"result":null,"error":{"code":-32603,"message":"Internal error"}}"#,
                500,
            ),
            (
                br#"{"error":{"code":-32601,"message":"the method eth_x does not exist"},"jsonrpc":"2.0","id":null}"#,
                501,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
                500,
            ),
            // EIP-1474's "execution reverted", an application-defined code.
            (
                br#"  {"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x08c3"}}"#,
                500,
            ),
        ];
        for (body, status) in cases {
            assert_eq!(
                failed(body),
                Some(status),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn results_and_business_objects_are_not_failures() {
        let bodies: [&[u8]; 14] = [
            // An answer that begins with its own `id`, or an `id` that is no scalar, is
            // turned away before it is parsed.
            br#"{"id":5,"name":"x","error":{"code":-1,"message":"x"},"jsonrpc":"2.0"}"#,
            br#"{"id":{"n":1},"jsonrpc":"2.0","error":{"code":-1,"message":"x"}}"#,
            br#"{"id":"a\"b","jsonrpc":"2.0","error":{"code":-1,"message":"x"}}"#,
            // A REST error envelope: no `id`, no version.
            br#"{"error":{"code":404,"message":"Not found"}}"#,
            br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"no id"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"err":null}}"#,
            // A result that holds a failed transaction is data.
            br#"{"jsonrpc":"2.0","id":1,"result":{"meta":{"err":{"InstructionError":[0,{"Custom":1}]}}}}"#,
            // An object with an `error` member of its own beside other data.
            br#"{"id":"job_1","error":{"code":-1,"message":"import failed"},"rows":3}"#,
            br#"{"error":{"code":-1,"message":"x"},"result":{"ok":true},"id":1}"#,
            // Not JSON-RPC's version, a code that is not an integer, no message.
            br#"{"jsonrpc":"1.5","id":1,"error":{"code":-32000,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":"-32000","message":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
            br#"[{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"}}]"#,
        ];
        for body in bodies {
            assert_eq!(failed(body), None, "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn bad_input_is_bounded_and_refused() {
        assert_eq!(failed(b""), None);
        assert_eq!(failed(b"{"), None);
        assert_eq!(
            failed(b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-1,"),
            None
        );
        assert_eq!(failed(b"\xff\xfe{}"), None);
        // An error response past the bytes read is not parsed.
        let mut long = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":""#.to_vec();
        long.extend(std::iter::repeat_n(b'a', 20_000));
        long.extend_from_slice(br#""}}"#);
        assert_eq!(failed(&long), None);
    }
}
