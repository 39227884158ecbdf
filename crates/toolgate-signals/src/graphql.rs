//! Whether a successful reply is a GraphQL response that failed, and which HTTP status
//! its errors stand for.
//!
//! GraphQL servers answer a well-formed request with a 200 when the client accepts
//! `application/json`, whatever went wrong (GraphQL over HTTP, "application/json"
//! responses; Grafbase's and Ayrshare's gateway docs say the same): the failure is in
//! the body, `{"errors": [{"message": …, "extensions": {"code": …}}], "data": null}`.
//! Read as a status, such a reply is a success, and a response contract loose enough
//! for GraphQL's `data` passes it.
//!
//! The GraphQL specification (§7.1 Response Format) allows only `data`, `errors` and
//! `extensions` at the top of a response (and a few servers add a member of their own,
//! named exactly: monday.com's `account_id`), and every error has a `message` string: a
//! business object with an `errors` field of its own, or an `errors` list that is empty,
//! is not a GraphQL failure. Without `data` (a request error: the document did not parse
//! or validate) or with `data: null` (execution failed at its root) nothing came back,
//! so the reply failed, with the status its error codes stand for: the codes Apollo
//! Server, Hasura, Shopify, GitHub, AWS AppSync and graphql-java write
//! (`UNAUTHENTICATED`, `FORBIDDEN`, `BAD_USER_INPUT`, `THROTTLED`, `access-denied`,
//! `UnauthorizedException`, `ValidationError`). When several errors name one, a 4xx
//! wins over a 5xx, as the GraphQL-over-HTTP draft advises for the
//! `application/graphql-response+json` status. Without a known code, a request error
//! stands for a 400 and a failed execution for a 500; the recovery reader still reads
//! the errors' codes and messages for what would fix it. With `data` beside the errors,
//! the reply holds partial data, told as such.
//!
//! Bounded: only the first [`MAX_BODY`] bytes are parsed, at most [`MAX_ERRORS`] errors
//! are looked at.

use serde_json::{Map, Value};

/// Bytes of a reply read: a GraphQL failure is short, and one that is not whole in
/// this prefix is not read as one.
const MAX_BODY: usize = 64 * 1024;
/// Errors looked at.
const MAX_ERRORS: usize = 32;
/// Longest code read.
const MAX_CODE: usize = 64;

/// What a GraphQL reply with errors says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Nothing came back: the call failed, as a reply of this HTTP status would have.
    Failed {
        /// The status its errors stand for.
        status: u16,
    },
    /// Data came back beside errors: some fields are missing or null.
    Partial {
        /// How many errors came with it.
        errors: usize,
    },
}

/// What a 2xx body says when it is a GraphQL response with errors; `None` for any
/// other body, a GraphQL success included.
///
/// ```
/// use toolgate_signals::graphql::{read, Reply};
/// let body = br#"{"errors":[{"message":"no","extensions":{"code":"UNAUTHENTICATED"}}],"data":null}"#;
/// assert_eq!(read(body), Some(Reply::Failed { status: 401 }));
/// assert_eq!(read(br#"{"errors":[],"data":{"a":1}}"#), None);
/// ```
#[must_use]
pub fn read(body: &[u8]) -> Option<Reply> {
    let head = body.iter().position(|b| !b.is_ascii_whitespace())?;
    // Every successful reply passes here: only one whose first member could be
    // GraphQL's and that names `errors` is parsed, so most answers cost a few bytes'
    // look, not a search of the whole body.
    if body[head] != b'{'
        || body.len() > MAX_BODY
        || !first_name_could_be_graphql(&body[head + 1..])
        || memchr::memmem::find(body, b"\"errors\"").is_none()
    {
        return None;
    }
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    if top.keys().any(|k| !is_top_member(k.as_bytes())) {
        return None;
    }
    let errors = top.get("errors")?.as_array()?;
    if errors.is_empty() || !errors.iter().all(is_error) {
        return None;
    }
    match top.get("data") {
        Some(Value::Object(_)) => Some(Reply::Partial {
            errors: errors.len(),
        }),
        Some(Value::Null) => Some(Reply::Failed {
            status: named(errors).unwrap_or(500),
        }),
        None => Some(Reply::Failed {
            status: named(errors).unwrap_or(400),
        }),
        // `data` is an object or null (§7.1.1): anything else is not GraphQL's.
        Some(_) => None,
    }
}

/// Whether the first member name of an object (`rest` follows its `{`) could begin a
/// GraphQL response: `data`, `errors` or `extensions`, since those are all its top may
/// hold; or a member servers are known to add ([`ADDED_MEMBERS`]) whose scalar value is
/// followed by one of those three, so an answer that merely begins with an
/// `account_id` is not searched. A name with an escape, or text that is not a plain
/// name, is left to the full reading.
fn first_name_could_be_graphql(rest: &[u8]) -> bool {
    match first_name(rest) {
        Name::Plain(name, after) if ADDED_MEMBERS.contains(&name) => {
            matches!(first_name(after_scalar(after)), Name::Plain(next, _) if is_spec_member(next))
        }
        Name::Plain(name, _) => is_spec_member(name),
        Name::Unsure => true,
        Name::Absent => false,
    }
}

/// The first member name of an object's rest.
enum Name<'a> {
    /// A name without escapes, and what follows its closing quote.
    Plain(&'a [u8], &'a [u8]),
    /// A name with an escape, or one not closed in the bytes given.
    Unsure,
    /// No name: not an object's member.
    Absent,
}

fn first_name(rest: &[u8]) -> Name<'_> {
    let Some(name) = rest.trim_ascii_start().strip_prefix(b"\"") else {
        return Name::Absent;
    };
    match memchr::memchr2(b'"', b'\\', name) {
        Some(end) if name[end] == b'"' => Name::Plain(&name[..end], &name[end + 1..]),
        _ => Name::Unsure,
    }
}

/// What follows `: <scalar> ,` after a member name: the rest after the comma, or
/// nothing when the value is not a number or a plain string (an added member's value is
/// an id).
fn after_scalar(after_name: &[u8]) -> &[u8] {
    let Some(value) = after_name.trim_ascii_start().strip_prefix(b":") else {
        return &[];
    };
    let value = value.trim_ascii_start();
    let end = match value.first() {
        Some(b'"') => match memchr::memchr2(b'"', b'\\', &value[1..]) {
            Some(i) if value[1 + i] == b'"' => i + 2,
            _ => return &[],
        },
        Some(b) if b.is_ascii_digit() || *b == b'-' => value
            .iter()
            .position(|b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
            .unwrap_or(value.len()),
        _ => return &[],
    };
    value[end..]
        .trim_ascii_start()
        .strip_prefix(b",")
        .unwrap_or_default()
}

/// Members a GraphQL server is known to add beside the specification's three, named
/// exactly: monday.com's `account_id` (`{"errors": […], "account_id": 123}`). A body
/// with any other member is not read as GraphQL's, so a business object with an
/// `errors` field stays data.
const ADDED_MEMBERS: [&[u8]; 1] = [b"account_id"];

/// The members GraphQL's specification allows at the top of a response (§7.1).
fn is_spec_member(name: &[u8]) -> bool {
    matches!(name, b"data" | b"errors" | b"extensions")
}

/// Whether a top-level member name may be a GraphQL response's: one the specification
/// allows, or one of [`ADDED_MEMBERS`].
fn is_top_member(name: &[u8]) -> bool {
    is_spec_member(name) || ADDED_MEMBERS.contains(&name)
}

/// A GraphQL error: an object with a `message` string (§7.1.2).
fn is_error(e: &Value) -> bool {
    e.as_object()
        .and_then(|m| m.get("message"))
        .is_some_and(Value::is_string)
}

/// The status the errors' codes stand for, a 4xx before a 5xx.
fn named(errors: &[Value]) -> Option<u16> {
    let statuses = errors
        .iter()
        .take(MAX_ERRORS)
        .filter_map(Value::as_object)
        .filter_map(error_status);
    statuses.min_by_key(|s| (*s >= 500, *s))
}

/// The status one error stands for: the one it names in its `extensions` (Infrahub's
/// `http_status`, monday.com's `status_code`, Akeneo's `http_code`); else its code
/// (`extensions.code` as Apollo, Hasura and Shopify write it, graphql-java's
/// `extensions.classification`, the `extensions.errorType` of graphql-java's extended
/// error types as Netflix DGS writes it, GitHub's `type`, AppSync's `errorType`, or a
/// `code` of its own); else its message's words.
fn error_status(e: &Map<String, Value>) -> Option<u16> {
    let ext = e.get("extensions").and_then(Value::as_object);
    if let Some(named) = ext.and_then(named_status) {
        return Some(named);
    }
    let candidates = [
        ext.and_then(|x| x.get("code")),
        ext.and_then(|x| x.get("classification")),
        ext.and_then(|x| x.get("errorType")),
        e.get("type"),
        e.get("errorType"),
        e.get("code"),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find_map(code_status)
        .or_else(|| {
            e.get("message")
                .and_then(Value::as_str)
                .and_then(message_status)
        })
}

/// An HTTP error status an error's `extensions` name, as a number or a numeral.
fn named_status(ext: &Map<String, Value>) -> Option<u16> {
    const KEYS: [&str; 5] = [
        "httpstatus",
        "statuscode",
        "httpcode",
        "httpstatuscode",
        "status",
    ];
    ext.iter()
        .filter(|(k, _)| KEYS.contains(&crate::walk::normalise(k).as_str()))
        .find_map(|(_, v)| {
            let n = match v {
                Value::Number(n) => n.as_u64()?,
                Value::String(s) => s.trim().parse().ok()?,
                _ => return None,
            };
            u16::try_from(n).ok().filter(|s| (400..=599).contains(s))
        })
}

/// The status an error's message says, where no code does: a thing not found, no one
/// signed in (Strawberry's "User is not authenticated"), access refused (Django's "You do
/// not have permission to perform this action", Spring Security's "Access is denied"), a
/// throttle.
fn message_status(message: &str) -> Option<u16> {
    let w = crate::passed::words(message);
    let phrase = |p: &[&str]| {
        w.windows(p.len())
            .any(|win| win.iter().zip(p).all(|(x, y)| x == y))
    };
    if phrase(&["not", "found"]) || phrase(&["does", "not", "exist"]) || phrase(&["no", "such"]) {
        Some(404)
    } else if phrase(&["not", "authenticated"])
        || phrase(&["authentication", "required"])
        || w.iter().any(|x| x == "unauthenticated")
    {
        Some(401)
    } else if phrase(&["not", "authorized"])
        || phrase(&["not", "authorised"])
        || phrase(&["access", "denied"])
        || phrase(&["access", "is", "denied"])
        || phrase(&["permission", "denied"])
        || phrase(&["not", "have", "permission"])
        || phrase(&["no", "permission"])
        || w.iter().any(|x| x == "forbidden")
    {
        Some(403)
    } else if phrase(&["rate", "limit"])
        || phrase(&["rate", "limited"])
        || phrase(&["too", "many", "requests"])
        || w.iter().any(|x| x == "throttled")
    {
        Some(429)
    } else {
        None
    }
}

/// A code's status, by its letters alone (`BAD_USER_INPUT`, `bad-user-input` and
/// `BadUserInput` are one code; AppSync's `UnauthorizedException` is `Unauthorized`). A
/// code that ends by saying no one is signed in or the user may not (Hot Chocolate's
/// `AUTH_NOT_AUTHENTICATED` and `AUTH_NOT_AUTHORIZED`) is a 401 or a 403 whatever its
/// prefix.
pub(crate) fn code_status(code: &str) -> Option<u16> {
    if code.len() > MAX_CODE {
        return None;
    }
    // AppSync names a data source's error after it: `DynamoDB:ConditionalCheckFailedException`.
    let own = code.rsplit_once(':').map_or(code, |(_, own)| own);
    let folded = crate::walk::normalise(own);
    let name = folded.strip_suffix("exception").unwrap_or(&folded);
    // A write's condition not met (DynamoDB's `ConditionalCheckFailed`) is a failed
    // precondition; a table's provisioned throughput passed, a throttle.
    if name.ends_with("conditionalcheckfailed") || name == "preconditionfailed" {
        return Some(412);
    }
    if name.ends_with("throughputexceeded") {
        return Some(429);
    }
    // A query measured against a limit of its own size, in any wording of the code
    // (gqlgen's `COMPLEXITY_LIMIT_EXCEEDED`, `QUERY_DEPTH_LIMIT_EXCEEDED`): the query
    // must be made smaller. A budget of complexity spent over a window is a throttle's,
    // named otherwise.
    if (name.contains("complexity") || name.contains("depth")) && name.ends_with("exceeded") {
        return Some(400);
    }
    if name.ends_with("notauthenticated") {
        return Some(401);
    }
    if name.ends_with("notauthorized") || name.ends_with("notauthorised") {
        return Some(403);
    }
    Some(match name {
        "unauthenticated"
        | "unauthorized"
        | "unauthorised"
        | "authenticationerror"
        | "invalidjwt"
        | "jwtinvalid"
        | "invalidtoken"
        | "invalidheaders" => 401,
        "forbidden" | "accessdenied" | "permissiondenied" | "permissionerror" => 403,
        "badrequest"
        | "baduserinput"
        | "badinput"
        | "invalidinput"
        | "invalidargument"
        | "validationerror"
        | "validationfailed"
        | "graphqlvalidationfailed"
        | "graphqlparsefailed"
        | "parsefailed"
        | "parseerror"
        | "invalidsyntax"
        | "operationresolutionfailure"
        | "persistedquerynotfound"
        | "persistedquerynotsupported"
        | "maxcostexceeded"
        | "maxdepthexceeded"
        | "maxcomplexityexceeded"
        | "querycomplexityexceeded"
        | "complexityexceeded"
        | "querytoocomplex"
        | "depthlimitexceeded"
        | "constraintviolation"
        | "failedprecondition" => 400,
        "notfound" | "resourcenotfound" => 404,
        "conflict" => 409,
        "throttled" | "ratelimited" | "ratelimitexceeded" | "toomanyrequests" => 429,
        "internalservererror" | "internalerror" | "internal" | "servererror" | "unexpected" => 500,
        "serviceunavailable" | "unavailable" => 503,
        "timeout" | "gatewaytimeout" => 504,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
