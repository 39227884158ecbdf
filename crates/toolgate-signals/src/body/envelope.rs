//! Whether a body sent with a success status is an error envelope.
//!
//! Many APIs answer errors, throttling included, with a 200: GraphQL (`{"errors": …}`),
//! Kraken (`{"error": [...]}`), the MediaWiki Action API and Deezer (`{"error": {…}}`),
//! Baidu (`{"error_code": …}`), WeChat (`{"errcode": …}`), Bybit (`{"retCode": …}`),
//! Apigee (`{"fault": …}`), Slack (`"ok": false`) and Marketo (`"success": false`).
//!
//! The same names also stand in healthy bodies with an empty value — `"error": null`,
//! `"errcode": 0` (WeChat's success), `"retCode": 0` (Bybit's), `"errors": []` — and a
//! `"success": false` can belong to one item of a listing. A successful body read as a
//! throttle fails a call whose data was fine, so only the body's own top-level members
//! count, and only with a value that says something went wrong. Nothing is parsed: the
//! first [`WINDOW`] bytes are scanned once, tracking depth and strings.

/// Bytes of a success body looked at.
pub(super) const WINDOW: usize = 256;

/// Top-level member names whose non-empty value is an error.
const ERROR_KEYS: [&str; 9] = [
    "errors",
    "error",
    "error_code",
    "errorcode",
    "errcode",
    "err_code",
    "retcode",
    "ret_code",
    "fault",
];

/// Top-level member names whose `false` is an error.
const SUCCESS_KEYS: [&str; 2] = ["success", "ok"];

/// Top-level status words that say the request failed: JSend's `"status": "fail"` /
/// `"error"`, and the `"status": "0"` of APIs such as Etherscan's
/// (`{"status":"0","message":"NOTOK","result":"Max rate limit reached"}`). Only a
/// string counts: a number 0 is as often a success code.
const FAILED_STATUS_WORDS: [&str; 6] = [
    "\"error\"",
    "\"fail\"",
    "\"failed\"",
    "\"failure\"",
    "\"0\"",
    "\"notok\"",
];

/// Whether the first [`WINDOW`] bytes of `body` are a JSON object with a top-level
/// member that reports an error.
pub(super) fn is_error_envelope(body: &[u8]) -> bool {
    let head = &body[..body.len().min(WINDOW)];
    let mut members = TopLevel::new(head);
    while let Some((key, value)) = members.next_member() {
        if ERROR_KEYS
            .iter()
            .any(|k| key.eq_ignore_ascii_case(k.as_bytes()))
        {
            if !is_empty_value(value) {
                return true;
            }
        } else if says_failed(key, value) {
            return true;
        }
    }
    false
}

/// A `"success": false` / `"ok": false`, or a failed status word.
fn says_failed(key: &[u8], value: &[u8]) -> bool {
    let is = |names: &[&str]| names.iter().any(|k| key.eq_ignore_ascii_case(k.as_bytes()));
    (is(&SUCCESS_KEYS) && value.starts_with(b"false"))
        || (is(&["status"])
            && FAILED_STATUS_WORDS.iter().any(|w| {
                value.len() >= w.len() && value[..w.len()].eq_ignore_ascii_case(w.as_bytes())
            }))
}

/// `null`, `false`, zero, `""`, `"0"`, `[]` or `{}` at the start of a value: the
/// member is there, and says nothing went wrong. A value cut off by the window is not
/// empty when what is seen of it is not.
fn is_empty_value(v: &[u8]) -> bool {
    let word =
        |w: &[u8]| v.starts_with(w) && v.get(w.len()).is_none_or(|b| !b.is_ascii_alphanumeric());
    if word(b"null") || word(b"false") || word(b"0") || word(b"\"\"") || word(b"\"0\"") {
        return true;
    }
    for (open, close) in [(b'[', b']'), (b'{', b'}')] {
        if let Some(rest) = v.strip_prefix(&[open]) {
            return skip_ws(rest).first() == Some(&close);
        }
    }
    false
}

fn skip_ws(b: &[u8]) -> &[u8] {
    &b[b.iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len())..]
}

/// The top-level members of a JSON object, read from a prefix of it: each key's raw
/// bytes (escapes left as they are) and the bytes where its value starts.
struct TopLevel<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> TopLevel<'a> {
    /// Members of `bytes` when it starts (after whitespace) with `{`; none otherwise.
    fn new(bytes: &'a [u8]) -> TopLevel<'a> {
        let start = bytes.len() - skip_ws(bytes).len();
        match bytes.get(start) {
            Some(b'{') => TopLevel {
                bytes,
                at: start + 1,
            },
            _ => TopLevel {
                bytes,
                at: bytes.len(),
            },
        }
    }

    /// The next member at depth one, or `None` at the object's end or where the window
    /// cuts a key.
    fn next_member(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let b = self.bytes;
        self.at = b.len() - skip_ws(&b[self.at.min(b.len())..]).len();
        if b.get(self.at) == Some(&b',') {
            self.at += 1;
            self.at = b.len() - skip_ws(&b[self.at..]).len();
        }
        if b.get(self.at) != Some(&b'"') {
            return None;
        }
        let key_start = self.at + 1;
        let key_end = string_end(b, key_start)?;
        let after = skip_ws(&b[key_end + 1..]);
        let after = skip_ws(after.strip_prefix(b":")?);
        let value_start = b.len() - after.len();
        // A value the window cuts is still judged by what is seen of it.
        self.at = value_end(b, value_start).unwrap_or(b.len());
        Some((&b[key_start..key_end], &b[value_start..]))
    }
}

/// The index of the `"` closing the string whose content starts at `from`.
fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The index just past the value starting at `from`, or `None` when the window cuts it.
fn value_end(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i + 1)? + 1;
                if depth == 0 {
                    return Some(i);
                }
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                if depth == 0 {
                    // The enclosing object's end: a scalar ended here.
                    return Some(i);
                }
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_members_with_a_value_make_an_envelope() {
        for b in [
            &br#"{"error":["EAPI:Rate limit exceeded"],"result":{}}"#[..],
            br#"{"error":{"code":"ratelimited","info":"..."}}"#,
            br#"{"error_code":18,"error_msg":"Open api qps request limit reached"}"#,
            br#"{"errcode":45009,"errmsg":"reach max api daily quota limit"}"#,
            br#"{"retCode":10006,"retMsg":"Too many visits!"}"#,
            br#"{"requestId":"e42b","success": false,"errors":[]}"#,
            br#" { "ok" :false, "error": "ratelimited"}"#,
            br#"{"data":null,"errors":[{"message":"Throttled"}]}"#,
            br#"{"meta":{"a":[1,{"b":"}"}]},"fault":{"faultstring":"Spike arrest violation"}}"#,
            br#"{"error":"a string cut off by the window, which is long enough to be cut"#,
            // JSend and Etherscan: a failed status word.
            br#"{"status":"0","message":"NOTOK","result":"Max rate limit reached"}"#,
            br#"{"status": "fail", "data": {"title": "A title is required"}}"#,
            br#"{"status":"error","message":"Too many requests"}"#,
        ] {
            assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
        }
    }

    #[test]
    fn healthy_bodies_are_not_envelopes() {
        for b in [
            &br#"{"error":null,"result":{"items":[{"title":"HTTP 429 Too Many Requests"}]}}"#[..],
            br#"{"errcode":0,"errmsg":"ok","data":{}}"#,
            br#"{"retCode":0,"retMsg":"OK","result":{}}"#,
            br#"{"errors":[],"data":{}}"#,
            br#"{"errors": [ ], "data":{}}"#,
            br#"{"error":"","message":"Too many requests today"}"#,
            br#"{"error":false}"#,
            br#"{"jobs":[{"id":1,"success":false,"info":"rate limit exceeded"}]}"#,
            br#"{"data":{"error":"rate limited"},"ok":true}"#,
            br#"{"note":"\"error\": \"x\"","okay":false}"#,
            br#"{"success":true}"#,
            br#"{"status":"1","message":"OK","result":[]}"#,
            br#"{"status":0,"results":[]}"#,
            br#"{"status":"success","data":{}}"#,
            br#"{"data":{"status":"error"}}"#,
            br#"{"data":{"error":null}}"#,
            br#"{"ok":true,"messages":[{"text":"rate limit"}]}"#,
            br#"["error"]"#,
            b"plain text",
            b"",
        ] {
            assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
        }
    }

    #[test]
    fn only_the_window_is_read() {
        let mut body = br#"{"items":""#.to_vec();
        body.extend(std::iter::repeat_n(b'x', WINDOW));
        body.extend(br#"","error":"late"}"#);
        assert!(!is_error_envelope(&body));
    }
}
