//! Whether a GraphQL reply sent with a 200 reports, inside its `data`, that an operation
//! failed.
//!
//! Many GraphQL schemas model an operation's failure as data rather than as a top-level
//! error: a mutation payload's `userErrors` (or `errors`, `applicationErrors`) list, a
//! result union whose `__typename` names the error member (`MutationError`,
//! `RateLimited`), a payload whose `success` is `false`. The reply is then
//! `{"data": {"<operation>": {…}}}` with nothing at the top to say so, and a throttle
//! told there ("Too many requests to the supplier") would pass unread.
//!
//! Only the operation's own payload counts: a member of an object reached from `data`
//! through objects alone, at most [`MAX_DEPTH`] levels down. Anything inside a list is
//! a record of the data (a help-centre article about "Too many requests", an import's
//! rejected rows) and says nothing of the call. An empty list, a `null` error and
//! `success: true` are a success's members.
//!
//! A batch of answers (`[{"data": …}, {"data": …}]`) reports a failure when every
//! answer does: one failed beside the others' data is a partial success.
//!
//! Cost: a body is looked at only when its first member is `data` (a GraphQL answer),
//! or it is a list whose first item's is, and only its first [`WINDOW`] bytes are
//! scanned, tracking depth and strings; nothing is parsed, nothing allocated.

use super::envelope::string_end;

/// Bytes of a GraphQL answer looked at: an operation's payload opens the answer.
const WINDOW: usize = 1024;

/// Object levels below the top an operation's payload may sit at: `data` (1), the
/// operation (2), a namespace the operation lives in (`hotelX.search`, 3 and 4).
const MAX_DEPTH: usize = 5;

/// Answers of a batch looked at.
const MAX_ANSWERS: usize = 16;

/// Whether the first [`WINDOW`] bytes of `body` are a GraphQL answer whose data reports
/// that an operation failed, or a batch of answers (a JSON list of them, as servers that
/// batch operations send) every one of which does. A batch with one answer failed holds
/// the others' data, and stays a success.
pub(super) fn reports_failure(body: &[u8]) -> bool {
    let head = &body[..body.len().min(WINDOW)];
    let at = skip_ws(head, 0);
    match head.get(at) {
        Some(b'{') => answer_reports_failure(head, at),
        Some(b'[') => every_answer_failed(head, at),
        _ => false,
    }
}

/// Whether the answer object opening at `at` has a leading `data` that reports a failure.
fn answer_reports_failure(head: &[u8], at: usize) -> bool {
    data_value(head, at).is_some_and(|data| scan(head, data))
}

/// Whether the list opening at `open` is whole in `head` and holds only answers that
/// report a failure (at least one, at most [`MAX_ANSWERS`]).
fn every_answer_failed(head: &[u8], open: usize) -> bool {
    let mut i = skip_ws(head, open + 1);
    for _ in 0..MAX_ANSWERS {
        if head.get(i) != Some(&b'{') || !answer_reports_failure(head, i) {
            return false;
        }
        let Some(end) = object_end(head, i) else {
            return false;
        };
        i = skip_ws(head, end);
        match head.get(i) {
            Some(b',') => i = skip_ws(head, i + 1),
            Some(b']') => return true,
            _ => return false,
        }
    }
    false
}

/// Where the value of the `"data"` member leading the object opening at `at` starts,
/// when it is an object.
fn data_value(head: &[u8], at: usize) -> Option<usize> {
    let name = skip_ws(head, at + 1);
    let rest = head.get(name..)?;
    if !rest.starts_with(b"\"data\"") {
        return None;
    }
    let colon = skip_ws(head, name + b"\"data\"".len());
    if head.get(colon) != Some(&b':') {
        return None;
    }
    let value = skip_ws(head, colon + 1);
    (head.get(value) == Some(&b'{')).then_some(value)
}

/// The index just past the object opening at `at`, or `None` when `b` cuts it.
fn object_end(b: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i + 1)? + 1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Walks the object opening at `start`, looking at each member whose path from `data`
/// runs through objects only. Two counters stand for the stack of open containers:
/// how many are open, and how many of the outermost are such objects.
fn scan(b: &[u8], start: usize) -> bool {
    let (mut depth, mut through_objects) = (0usize, 0usize);
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'{' => {
                if through_objects == depth && depth < MAX_DEPTH {
                    through_objects += 1;
                }
                depth += 1;
                i += 1;
            }
            b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                if through_objects == depth {
                    through_objects -= 1;
                }
                depth -= 1;
                if depth == 0 {
                    return false;
                }
                i += 1;
            }
            b'"' => {
                let Some(end) = string_end(b, i + 1) else {
                    return false;
                };
                let colon = skip_ws(b, end + 1);
                // A member of the operation's payload: below `data`, through objects.
                let in_payload = through_objects == depth && depth >= 2;
                if b.get(colon) == Some(&b':') {
                    if in_payload && member_says_failed(&b[i + 1..end], &b[skip_ws(b, colon + 1)..])
                    {
                        return true;
                    }
                    i = colon + 1;
                } else {
                    i = end + 1;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// Whether a payload member (`name`, raw) with the value starting `value` reports a
/// failure: a non-empty list named for errors, a `__typename` naming an error type, a
/// `success`/`ok` of `false`, or an `error` object.
fn member_says_failed(name: &[u8], value: &[u8]) -> bool {
    if folded_ends_with(name, b"errors") {
        // `"userErrors": [{…}]` or `["Rate limit exceeded"]`; `[]` is a success's.
        let first = skip_ws(value, 1);
        return value.first() == Some(&b'[') && matches!(value.get(first), Some(b'{' | b'"'));
    }
    if folded_is(name, b"typename") {
        return value
            .strip_prefix(b"\"")
            .and_then(|v| v.get(..string_end(v, 0)?))
            .is_some_and(names_an_error_type);
    }
    if [b"success".as_slice(), b"ok", b"succeeded"]
        .iter()
        .any(|n| folded_is(name, n))
    {
        return value.starts_with(b"false");
    }
    folded_is(name, b"error") && value.first() == Some(&b'{')
}

/// Whether a union member's type name is its error side: `MutationError`,
/// `UserError`, `ThrottledError`, `RateLimited`, `Throttled`.
fn names_an_error_type(type_name: &[u8]) -> bool {
    [
        b"error".as_slice(),
        b"exception",
        b"ratelimited",
        b"throttled",
    ]
    .iter()
    .any(|end| folded_ends_with(type_name, end))
}

/// Whether `name`'s letters and digits, lowercased, end with `suffix` (lowercase):
/// `userErrors`, `user_errors` and `USER-ERRORS` all end with `errors`. Compared from
/// the end, without building the folded name.
fn folded_ends_with(name: &[u8], suffix: &[u8]) -> bool {
    let mut letters = name
        .iter()
        .rev()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase);
    suffix
        .iter()
        .rev()
        .all(|want| letters.next() == Some(*want))
}

/// Whether `name`'s letters and digits, lowercased, are `folded` (`__typename` is
/// `typename`).
fn folded_is(name: &[u8], folded: &[u8]) -> bool {
    let mut letters = name
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase);
    folded.iter().all(|want| letters.next() == Some(*want)) && letters.next().is_none()
}

/// The index of the first non-whitespace byte at or after `from`.
fn skip_ws(b: &[u8], from: usize) -> usize {
    b.iter()
        .skip(from)
        .position(|c| !c.is_ascii_whitespace())
        .map_or(b.len(), |n| from + n)
}

#[cfg(test)]
mod tests;
