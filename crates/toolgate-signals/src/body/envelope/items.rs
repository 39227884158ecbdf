//! Whether a list of per-item results says every item failed: the batch, push, SMS and
//! email APIs that answer a 200 whatever became of each message or record, and put the
//! failure inside it (`{"results": [{"error": "NotRegistered"}]}`, `{"messages":
//! [{"status": "15", "error-text": "Illegal Sender Address - rejected"}]}`, a list of
//! `{"ErrorCode": 406, "Message": …}`, an `{"index": {"status": 409, "error": {…}}}` per
//! document).
//!
//! When every item the window shows failed, nothing went through and the reply is a
//! failure whose words say why. When some went through, the reply is a partial success:
//! it is data for the model, and retrying would send those items twice. A list of
//! records that merely carry a state or an error of their own (jobs, checks, devices) is
//! data too, so an item counts as failed only by what a result of the call says: a
//! failure flag beside an error member, or an error member in an item that holds nothing
//! but codes, messages and ids.

use super::{FAILED_STATUS_WORDS, TopLevel, array_objects, folded, is_empty_value};

/// Names (folded) of an item's members that hold its error. Not `reason`, which a
/// record may hold for anything: it counts only beside a failure flag.
const ERROR_MEMBERS: [&str; 9] = [
    "error",
    "errors",
    "errortext",
    "errorcode",
    "errormessage",
    "errormsg",
    "errordescription",
    "errordetails",
    "rejectreason",
];

/// Names (folded) of an item's members that hold its outcome as a status or a code.
const STATUS_MEMBERS: [&str; 5] = [
    "status",
    "code",
    "statuscode",
    "httpstatuscode",
    "resultcode",
];

/// Words a result's status fails with, beside the envelope's own ([`FAILED_STATUS_WORDS`]):
/// a message `rejected` or `invalid`, a payment `refused`.
const FAILED_ITEM_WORDS: [&str; 3] = ["rejected", "invalid", "refused"];

/// Names (folded) of a flag whose `false` says the item failed.
const SUCCESS_FLAGS: [&str; 3] = ["success", "ok", "accepted"];

/// Whether a list's name (folded) says it holds the call's results, one per item sent:
/// `results`, `messages`, `recipients`, `responses`, `compositeResponse`, `items`,
/// `entries`, `records`, `tickets`, or `data` (a push service's tickets). A list named
/// for what it holds otherwise (`rows`, `jobs`, `checks`) is records, whatever their
/// fields say.
pub(super) fn names_results(name: &[u8]) -> bool {
    const ENDINGS: [&str; 10] = [
        "results",
        "messages",
        "recipients",
        "responses",
        "response",
        "items",
        "entries",
        "records",
        "tickets",
        "data",
    ];
    ENDINGS.iter().any(|e| name.ends_with(e.as_bytes()))
}

/// Whether a member (its name folded) holds the API's data rather than the reply's
/// report: a list of results inside it is what was asked for (a log of earlier calls).
pub(super) fn is_data(name: &[u8]) -> bool {
    matches!(name, b"data" | b"result" | b"results" | b"payload")
}

/// Whether every object of the list `list` starts (as far as the window shows it, at
/// most [`super::MAX_ITEMS`]) is a result that failed. An empty list, or one of texts, is
/// not.
pub(super) fn every_item_failed(list: &[u8]) -> bool {
    let items = array_objects(list);
    !items.is_empty() && items.iter().all(|item| item_failed(item))
}

/// Whether one item is a result that failed ([`every_item_failed`]). An item that is
/// one member wrapping an object (a bulk API's `{"index": {…}}`, the action named) is
/// read as that object.
fn item_failed(item: &[u8]) -> bool {
    let mut members = TopLevel::new(item);
    let (mut flag, mut error, mut only_reports, mut count) = (false, false, true, 0);
    let mut reason = false;
    let (mut status_words, mut http_failed) = (false, false);
    let mut wrapped = None;
    while let Some((key, value)) = members.next_member() {
        count += 1;
        let name = folded(key);
        let is = |names: &[&str]| names.iter().any(|n| *name == *n.as_bytes());
        if value.starts_with(b"{") {
            wrapped = Some(value);
        }
        if is(&STATUS_MEMBERS) {
            flag |= status_says_failed(value);
            // A status written as an object of its own: its group or name says the
            // outcome, and its words are the error (`"status": {"groupName":
            // "REJECTED", "name": "REJECTED_NOT_ENOUGH_CREDITS", "description": …}`).
            if value.starts_with(b"{") && status_object_failed(value) {
                flag = true;
                error = true;
            }
        }
        // An HTTP failure number beside a status in words: the words are the error
        // (`{"statusCode": 405, "status": "InsufficientBalance"}`).
        if *name == *b"status" && value.starts_with(b"\"") && !is_empty_value(value) {
            status_words = true;
        }
        if is(&["statuscode", "httpstatuscode"]) && http_failure(value) {
            http_failed = true;
        }
        if is(&SUCCESS_FLAGS) && value.starts_with(b"false") {
            flag = true;
        }
        if is(&ERROR_MEMBERS) {
            error |= !is_empty_value(value);
            continue;
        }
        // The error in an object of its own (a push ticket's `"details": {"error": …}`),
        // or in the item's own reply body, one object or a list of them (a batch of HTTP
        // requests: `{"status": 403, "body": {"error": {…}}}`, `"body": [{"errorCode": …}]`).
        if is(&["details", "detail", "body"]) {
            error |= holds_an_error(value);
        }
        reason |= *name == *b"reason" && !is_empty_value(value);
        only_reports &= super::names_a_report(&name) || *name == *b"index";
    }
    if count == 1
        && let Some(inner) = wrapped
    {
        return item_failed_within(inner);
    }
    (flag && (error || reason)) || (error && only_reports) || (http_failed && status_words)
}

/// Whether a status object's group or name starts with a failure word (`REJECTED`,
/// `REJECTED_NOT_ENOUGH_CREDITS`, `FAILED`, `ERROR`).
fn status_object_failed(object: &[u8]) -> bool {
    const FAILED: [&str; 5] = ["rejected", "failed", "failure", "error", "undeliverable"];
    let mut members = TopLevel::new(object);
    while let Some((key, value)) = members.next_member() {
        let name = folded(key);
        if !matches!(&*name, b"groupname" | b"name" | b"group") {
            continue;
        }
        let Some(text) = value.strip_prefix(b"\"") else {
            continue;
        };
        let first = text
            .iter()
            .position(|b| !b.is_ascii_alphabetic())
            .map_or(text, |end| &text[..end]);
        if FAILED
            .iter()
            .any(|w| w.as_bytes().eq_ignore_ascii_case(first))
        {
            return true;
        }
    }
    false
}

/// An HTTP status of 400 to 599, as a number or a string of digits.
fn http_failure(value: &[u8]) -> bool {
    let digits = value.strip_prefix(b"\"").unwrap_or(value);
    let end = digits
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    std::str::from_utf8(&digits[..end])
        .ok()
        .and_then(|d| d.parse::<u16>().ok())
        .is_some_and(|n| (400..600).contains(&n))
}

/// Whether an object, or the first object of a list, holds a non-empty error member.
fn holds_an_error(value: &[u8]) -> bool {
    let object = match value.first() {
        Some(b'{') => value,
        Some(b'[') => match array_objects(value).first() {
            Some(first) => first,
            None => return false,
        },
        _ => return false,
    };
    let mut members = TopLevel::new(object);
    while let Some((key, value)) = members.next_member() {
        let name = folded(key);
        if ERROR_MEMBERS.iter().any(|n| *name == *n.as_bytes()) && !is_empty_value(value) {
            return true;
        }
    }
    false
}

/// [`item_failed`] for the object one wrapper holds; no deeper.
fn item_failed_within(inner: &[u8]) -> bool {
    let mut members = TopLevel::new(inner);
    let (mut flag, mut error) = (false, false);
    while let Some((key, value)) = members.next_member() {
        let name = folded(key);
        let is = |names: &[&str]| names.iter().any(|n| *name == *n.as_bytes());
        if is(&STATUS_MEMBERS) {
            flag |= status_says_failed(value);
        }
        if is(&ERROR_MEMBERS) {
            error |= !is_empty_value(value);
        }
    }
    flag && error
}

/// A status or code that says a result failed: an HTTP status of 400 to 599 (a number or
/// a string of digits), a code other than 0 or a 2xx written as a string of digits (an
/// SMS API's `"status": "15"`), or a failure word (`"error"`, `"rejected"`). A bare
/// number that is not an HTTP failure may be a success code (`"statusCode": 101`).
fn status_says_failed(value: &[u8]) -> bool {
    if let Some(text) = value.strip_prefix(b"\"") {
        let end = text.iter().position(|b| *b == b'"').unwrap_or(text.len());
        let word = &text[..end];
        return super::is_failure_number(word) && word.iter().all(u8::is_ascii_digit)
            || FAILED_STATUS_WORDS
                .iter()
                .filter(|w| **w != "\"0\"")
                .any(|w| w.trim_matches('"').as_bytes().eq_ignore_ascii_case(word))
            || FAILED_ITEM_WORDS
                .iter()
                .any(|w| w.as_bytes().eq_ignore_ascii_case(word));
    }
    let end = value
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(value.len());
    std::str::from_utf8(&value[..end])
        .ok()
        .and_then(|d| d.parse::<u16>().ok())
        .is_some_and(|n| (400..600).contains(&n))
}

#[cfg(test)]
#[path = "items_tests.rs"]
mod tests;
