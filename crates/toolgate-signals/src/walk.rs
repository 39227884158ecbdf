//! Error bodies read by their words, at any depth: the waits, throttle codes and
//! deprecation dates that real APIs put in JSON (and XML) errors.
//!
//! Field names are compared lower-case with `_`, `-` and other punctuation removed, so
//! `retry_after`, `retryAfter`, `Retry-After` and `retryafter` are one name. What is
//! read:
//! - **waits**: `retry_after`, `retryAfter`, `retry_after_ms`, `retryAfterSeconds`,
//!   `retryDelay` (google.rpc.RetryInfo), `retry_in`, `wait`, `wait_seconds`,
//!   `backoff`, `estimated_time`, `cooldown`, and `throttle` with a unit
//!   (`ThrottleSeconds`, where zero is no wait). The unit comes from the name's suffix
//!   (`ms`/`millis`/`milliseconds`, `s`/`sec`/`seconds`, `min`/`minutes`), else the
//!   value's syntax: a protobuf `Duration` or Go duration string (`"30s"`,
//!   `"0.021s"`, `"1m30s"`), an ISO 8601 duration (`"PT30S"`), a timestamp (the wait
//!   until it), a `{seconds, nanos}` object, or a bare number of seconds (a bare
//!   number past [`MAX_WAIT`] is taken as milliseconds).
//! - **throttle codes**: string values of `code`, `error`, `type`, `__type`, `reason`,
//!   `status`, `errorType`, `errorCode`, `error_name`, `category` whose words say
//!   throttled (`rate_limit…`, `Throttling…`, `TooManyRequests`, `RESOURCE_EXHAUSTED`,
//!   `SlowDown`, `…QuotaExceeded`, `ProvisionedThroughputExceeded`, …), and messages
//!   (`message`, `description`, `detail`, `error_message`, `note`, and a name ending in
//!   `message` or `msg` that says whose it is: `resultMessage`, `rtnMsg`) that say "rate limit",
//!   "too many requests", "throttled", "request limit reached", "rate exceeded" or "call
//!   frequency";
//!   in XML, each element read as the field of its name (`walk/markup.rs`: SOAP faults,
//!   S3's `<Code>SlowDown</Code>`).
//! - **reset times** (`rate_reset`, `RateLimitResetTime`: a reset word with a rate-limit
//!   word), **retry instants** (`retry_at`, MetaApi's `recommendedRetryTime`, WSO2's
//!   `nextAccessTime`: a timestamp
//!   or an epoch) and **waits stated in words** in messages ("reset in 3 seconds", see
//!   [`crate::wait_text`]): kept apart, and counted as waits by [`crate::body::read`] only
//!   on a reply that says it is throttled.
//! - strings in an array are read as values of the field the array hangs from
//!   (Kraken's `"error": ["EAPI:Rate limit exceeded"]`).
//! - **deprecation**: fields naming a deprecation (`deprecated: true`,
//!   `deprecation_date`) or a retirement (`sunset`, `sunset_date`, `retirement_date`,
//!   `end_of_life`, `eol_date`, `removal_date`) with a date; and messages and codes whose
//!   words speak of one (kept as `retirement_texts`, codes read as words).
//!
//! The walk is bounded: [`MAX_DEPTH`] levels and [`MAX_NODES`] values.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::num::TimeUnit;
use crate::{Deprecation, MAX_WAIT, num, reset};

mod languages;
mod markup;

pub(crate) use languages::MESSAGE_NAMES;

pub(crate) use markup::{
    attributes as xml_attributes, elements as xml_elements, page_headings,
    start_tags as xml_start_tags,
};

const MAX_DEPTH: usize = 8;
const MAX_NODES: usize = 1024;
/// Longest message text searched for throttle phrases, and shown as the reason.
const MAX_MESSAGE: usize = 300;

/// What the walk found.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    pub wait: Option<Duration>,
    /// When a rate-limit reset field (`rate_reset`, `RateLimitResetTime`) says the
    /// quota comes back: a wait only when the body also says it is throttled.
    pub reset_wait: Option<Duration>,
    /// A wait a message states in words ("reset in 3 seconds", "try again in 20s"):
    /// likewise a wait only on a throttled reply.
    pub text_wait: Option<Duration>,
    /// A wait a message tells the caller to keep ("Please wait 5 minutes before trying
    /// again", "retry after 7 seconds"): an instruction, so a wait on any refusal.
    pub told_wait: Option<Duration>,
    /// A throttle code, shown to the model as is.
    pub reason: Option<String>,
    /// A message says, in words, that the caller is throttled.
    pub throttled_text: bool,
    /// A message speaks of a limit of something other than calls (an amount, a size,
    /// money moved) without saying the caller is throttled: the reply's "limit exceeded"
    /// code means that limit.
    pub other_limit: bool,
    pub deprecation: Option<Deprecation>,
    /// Messages and codes that speak of a deprecation or an end ("Version v2.x of the …
    /// API is no longer supported", Slack's `method_deprecated`), codes read as words:
    /// [`crate::body::read`] reads them for what they say about the called resource when
    /// no field names a deprecation. At most [`MAX_TEXTS`].
    pub retirement_texts: Vec<String>,
}

/// Retirement texts kept from one body.
const MAX_TEXTS: usize = 8;

/// Reads a JSON (or XML) error body; nothing when it is neither.
pub(crate) fn walk(prefix: &[u8], now: DateTime<Utc>) -> Walked {
    let mut out = Walked::default();
    match serde_json::from_slice::<Value>(prefix) {
        Ok(v) => {
            let mut nodes = 0;
            visit(&v, None, 0, &mut nodes, now, &mut out);
        }
        Err(_) => {
            markup::read(&String::from_utf8_lossy(prefix), now, &mut out);
            plain_text(prefix, now, &mut out);
        }
    }
    out
}

/// A body that is neither JSON nor markup is one message ("Rate limit exceeded. Please
/// try again in 60 seconds."), read for its words like a `message` field.
fn plain_text(prefix: &[u8], now: DateTime<Utc>, out: &mut Walked) {
    let head = String::from_utf8_lossy(&prefix[..prefix.len().min(MAX_MESSAGE * 4)]);
    let text = head.trim_start();
    if text.is_empty() || text.starts_with('<') || text.starts_with('{') || text.starts_with('[') {
        return;
    }
    message(text, now, out);
}

/// What a message says: throttled in words, or a limit of another thing, and a wait it
/// states.
fn message(s: &str, now: DateTime<Utc>, out: &mut Walked) {
    if says_throttled_text(s) {
        out.throttled_text = true;
    } else if crate::passed::names_other_limit(s) {
        out.other_limit = true;
    }
    out.text_wait = out
        .text_wait
        .max(crate::wait_text::wait_in(s))
        .max(crate::wait_text::wait_until(s, now));
    out.told_wait = out.told_wait.max(crate::wait_text::told_to_wait(s));
}

/// `key` is the field an array hangs from: its strings are read as that field's values
/// (Kraken's `"error": ["EAPI:Rate limit exceeded"]`, monday.com's `"errors": [text]`).
fn visit(
    v: &Value,
    key: Option<&str>,
    depth: usize,
    nodes: &mut usize,
    now: DateTime<Utc>,
    out: &mut Walked,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            let reset_before = out.reset_wait;
            // An `errors` object keyed by what failed (Shelly Cloud's `{"errors":
            // {"max_req": "Request limit reached!"}}`, a form's `{"errors": {"email":
            // "can't be blank"}}`) holds its messages under those keys.
            let keyed_errors = key.is_some_and(|k| normalise(k) == "errors");
            for (k, child) in map {
                *nodes += 1;
                if *nodes > MAX_NODES {
                    return;
                }
                if keyed_errors && child.is_string() {
                    field("message", child, now, out);
                }
                field(k, child, now, out);
                visit(child, Some(k), depth + 1, nodes, now, out);
            }
            // A budget that says of itself it is not exceeded (myTracker's 429 lists
            // every quota, `"exceeded": false` beside the spent one's `true`) resets
            // a budget the caller still has: its reset is not the wait.
            if not_exceeded(map) {
                out.reset_wait = reset_before;
            }
        }
        Value::Array(items) => {
            for child in items {
                *nodes += 1;
                if *nodes > MAX_NODES {
                    return;
                }
                if let (Some(k), Value::String(_)) = (key, child) {
                    field(k, child, now, out);
                }
                visit(child, None, depth + 1, nodes, now, out);
            }
        }
        _ => {}
    }
}

/// Names of the member by which a budget says whether it is spent.
const EXCEEDED: [&str; 3] = ["exceeded", "isExceeded", "is_exceeded"];

/// The object says of itself that its budget is not exceeded; three lookups, no scan.
fn not_exceeded(map: &serde_json::Map<String, Value>) -> bool {
    EXCEEDED
        .iter()
        .any(|k| map.get(*k) == Some(&Value::Bool(false)))
}

/// A field name without case and punctuation: `retry_after_ms` → `retryafterms`
/// (also how a 200 body's notice members are named, `response_metadata`).
pub(crate) fn normalise(k: &str) -> String {
    k.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(64)
        .collect()
}

/// The wait a field name announces, and the unit its suffix gives.
fn wait_name(k: &str) -> Option<Option<TimeUnit>> {
    const BASES: [&str; 9] = [
        "retryafter",
        "retrydelay",
        "retryin",
        "wait",
        "waittime",
        "backoff",
        "estimatedtime",
        "cooldown",
        "retryinterval",
    ];
    // Words that name a wait only with a unit after them: Bungie's `ThrottleSeconds`
    // is how long to wait, while a bare `throttle` is as often a setting (a rate); so is
    // Mailgun's `retry-seconds`, while a bare `retry` is a count or a flag.
    const WITH_UNIT_ONLY: [&str; 2] = ["throttle", "retry"];
    if BASES.contains(&k) {
        return Some(None);
    }
    // `retry_in_seconds` is `retryin` + `seconds`; `wait_in_ms` is `wait` + `in` + `ms`.
    TimeUnit::SUFFIXES.iter().find_map(|(suffix, unit)| {
        let base = k.strip_suffix(suffix)?;
        let known = BASES.contains(&base)
            || WITH_UNIT_ONLY.contains(&base)
            || base.strip_suffix("in").is_some_and(|b| BASES.contains(&b));
        known.then_some(Some(*unit))
    })
}

/// A field naming the instant a retry may go (`retry_at`, `retryTime`, MetaApi's
/// `recommendedRetryTime`, `next_retry_at`), or the next call may (WSO2's
/// `nextAccessTime`, `next_request_at`: `next`, what is allowed, and a time word): a
/// time, not a length.
fn is_retry_time_name(k: &str) -> bool {
    let retry = [
        "retryat",
        "retrytime",
        "retrytimestamp",
        "retrydate",
        "retryafterdate",
    ]
    .iter()
    .any(|end| k.ends_with(end));
    let next_call = k.strip_prefix("next").is_some_and(|rest| {
        ["access", "request", "call", "allowed"].iter().any(|what| {
            rest.strip_prefix(what)
                .is_some_and(|when| matches!(when, "time" | "at" | "timestamp" | "date"))
        })
    });
    retry || next_call
}

/// The wait until a retry instant: a timestamp string, or an epoch number (seconds or
/// milliseconds by its size); a small number is not an instant and says nothing.
fn retry_time_value(v: &Value, now: DateTime<Utc>) -> Option<Duration> {
    let at = match v {
        Value::String(s) => reset::parse_timestamp(s.trim(), now)?,
        Value::Number(n) => {
            let epoch = n.as_u64().filter(|e| *e >= 1_000_000_000)?;
            if epoch >= 1_000_000_000_000 {
                DateTime::from_timestamp_millis(i64::try_from(epoch).ok()?)?
            } else {
                DateTime::from_timestamp(i64::try_from(epoch).ok()?, 0)?
            }
        }
        _ => return None,
    };
    Some(reset::until(at, now, MAX_WAIT))
}

fn field(k: &str, v: &Value, now: DateTime<Utc>, out: &mut Walked) {
    let k = normalise(k);
    if let Some(unit) = wait_name(&k)
        && let Some(d) = wait_value(v, unit, now)
    {
        // Bungie sends `ThrottleSeconds: 0` in every envelope, errors of any kind
        // included: a zero throttle is no throttle, not an invitation to retry at once.
        if !(d.is_zero() && k.starts_with("throttle")) {
            out.wait = out.wait.max(Some(d));
        }
        return;
    }
    // An instant may be a record's data (a job's next attempt) as well as the server's
    // word on this reply, so, like a reset time, it is a wait only on a throttled reply.
    if is_retry_time_name(&k)
        && let Some(d) = retry_time_value(v, now)
    {
        out.reset_wait = out.reset_wait.max(Some(d));
        return;
    }
    if is_reset_name(&k)
        && let Some(d) = reset_value(v, now)
    {
        out.reset_wait = out.reset_wait.max(Some(d));
        return;
    }
    if let Value::String(s) = v {
        // A message field holding one identifier (Viber's `"status_message":
        // "tooManyRequests"`) is a code too, as a code field holding a sentence is a
        // message below.
        let one_word = !s.trim().contains(' ');
        if out.reason.is_none()
            && (is_code_field(&k) || (one_word && is_message_field(&k)))
            && says_throttled_code(s)
        {
            out.reason = Some(s.chars().take(MAX_MESSAGE).collect());
        }
        // A code field holding a sentence (`"error": "Too many requests. Please retry
        // after 30 seconds."`) is a message too.
        if is_message_field(&k) || (is_code_field(&k) && s.trim().contains(' ')) {
            message(s, now, out);
        }
        if (is_message_field(&k) || is_code_field(&k)) && out.retirement_texts.len() < MAX_TEXTS {
            let text: String = s.chars().take(MAX_MESSAGE).collect();
            if crate::warning::speaks_of_retirement(&text) {
                let words = crate::warning::as_words(&text);
                if !out.retirement_texts.contains(&words) {
                    out.retirement_texts.push(words);
                }
            }
        }
    }
    deprecation_field(&k, v, now, out);
}

/// A field naming when a rate limit resets (`rate_reset`, `RateLimitResetTime`,
/// `quota_reset_at`): the reset word with a rate-limit word, so `password_reset` is not.
/// A reset named by nothing else (`reset`, Slite's `resetDate` beside its quota's
/// `limit`, `reset_at`) is one too, and so is the end of the counting period
/// (`period_end`): the caller counts a reset only on a throttled reply, where the only
/// thing a bare reset can be is the throttle's.
fn is_reset_name(k: &str) -> bool {
    (k.contains("reset")
        && (k.contains("ratelimit")
            || k.starts_with("rate")
            || k.contains("quota")
            || k.contains("throttl")))
        || matches!(
            k,
            "reset" | "resetat" | "resetdate" | "resettime" | "resetsat" | "resetsin"
        )
        // The end of the period the calls are counted in is when they come back:
        // Enphase's `"period": "minute", "period_end": 1401742500`.
        || matches!(k, "periodend" | "windowend")
}

/// A reset value: a number is delta seconds or an epoch by its magnitude, a string any
/// shape [`reset::parse_str`] knows; capped at [`MAX_WAIT`].
fn reset_value(v: &Value, now: DateTime<Utc>) -> Option<Duration> {
    let d = match v {
        Value::Number(n) => {
            let f = n.as_f64().filter(|f| f.is_finite() && *f >= 0.0)?;
            reset::parse_str(&format!("{f}"), now)?
        }
        Value::String(s) => reset::parse_str(s, now)?,
        _ => return None,
    };
    Some(d.min(MAX_WAIT))
}

fn is_code_field(k: &str) -> bool {
    matches!(
        k,
        "code"
            | "error"
            | "type"
            | "reason"
            | "status"
            | "errortype"
            | "errorcode"
            | "errorname"
            // Taobao's `sub_code` beside its numeric `code`.
            | "subcode"
            | "category"
            | "tag"
            // OAuth 1.0a's problem reporting (`oauth_problem=token_expired`).
            | "oauthproblem"
    )
}

/// A message field: one of the names below, or a name that ends in a message word and
/// says whose message it is (`resultMessage`, `resultMsg`, `returnAuthMsg`, `rtnMsg`, as
/// Asian gateways and portals name their envelopes' text, and OAuth 2.0's
/// `error_description`, RFC 6749 §5.2, which Podio's 420 fills with "Please wait 300
/// seconds before trying again"; `responseDesc`, `resultDesc`, as payment gateways
/// shorten it), at most [`MAX_MESSAGE_NAME`] characters.
fn is_message_field(k: &str) -> bool {
    let named = |k: &str| {
        named_message_field(k)
            || (k.len() <= MAX_MESSAGE_NAME
                && ["message", "msg", "description", "desc"]
                    .iter()
                    .any(|w| k.strip_suffix(w).is_some_and(|head| head.len() >= 2)))
    };
    // Numbered messages are messages too: 한국투자증권's `msg1` beside its `msg_cd`.
    let unnumbered = k.trim_end_matches(|c: char| c.is_ascii_digit());
    named(k) || (k.len() - unnumbered.len() <= 2 && unnumbered.len() < k.len() && named(unnumbered))
}

/// The longest field name read as a message by its ending.
const MAX_MESSAGE_NAME: usize = 24;

fn named_message_field(k: &str) -> bool {
    matches!(
        k,
        "message"
            | "description"
            | "detail"
            | "errormessage"
            // Vonage's per-message `error-text`.
            | "errortext"
            | "errormsg"
            | "errmsg"
            | "retmsg"
            // MiniMax's `base_resp.status_msg`, Taobao's `sub_msg`.
            | "statusmsg"
            | "statusmessage"
            | "submsg"
            | "msg"
            | "info"
            // Alpha Vantage's whole answer when throttled: `Note` or `Information`.
            | "note"
            | "information"
            | "faultstring"
            | "errorsummary"
            | "title"
            | "errors"
            // Skroutz's `{"errors": [{"code": …, "messages": ["…"]}]}`: each a message.
            | "messages"
            // The `{"status":"0","message":"NOTOK","result":"Max rate limit reached"}`
            // envelope (Etherscan and its forks) says what went wrong in `result`; only
            // a string is read as words.
            | "result"
    ) || languages::MESSAGE_NAMES.contains(&k)
        || PEOPLE_TEXT_NAMES.contains(&k)
}

/// Names a message takes when it is written for the people using the API rather than for
/// its developers: in their language (`translated`, `localized`, Apple's
/// `NSLocalizedDescription`), shown in a screen (`display`, `displayText`), or a FHIR
/// `OperationOutcome` issue's `diagnostics`. A reply whose only words are there is read
/// by them ("translated": "Your API key has expired. …").
pub(crate) const PEOPLE_TEXT_NAMES: [&str; 10] = [
    "translated",
    "translation",
    "localized",
    "localised",
    "localizeddescription",
    "nslocalizeddescription",
    "display",
    "displaytext",
    "diagnostics",
    "usertext",
];

/// An error code whose words say "throttled".
fn says_throttled_code(s: &str) -> bool {
    if s.len() > 120 {
        return false;
    }
    let n = normalise(s);
    [
        "ratelimit",
        "throttl",
        "toomanyrequests",
        // GData's `too_many_recent_calls`.
        "toomanycalls",
        "toomanyrecentcalls",
        "resourceexhausted",
        "slowdown",
        "quotaexceeded",
        "requestlimitexceeded",
        "calllimitexceeded",
        "apilimitexceeded",
        "provisionedthroughputexceeded",
        "serverbusy",
        "overquerylimit",
        "requestsexceeded",
    ]
    .iter()
    .any(|w| n.contains(w))
        || crate::passed::says_limit_passed(s)
}

/// A message that says, in words, that the caller is throttled.
fn says_throttled_text(s: &str) -> bool {
    let t: String = s
        .chars()
        .take(MAX_MESSAGE)
        .collect::<String>()
        .to_lowercase();
    [
        "rate limit",
        "ratelimit",
        // OpenStack's `{"overLimit": {"message": "This request was rate-limited."}}`.
        "rate-limit",
        "too many requests",
        "request limit reached",
        "throttled",
        "rate exceeded",
        "too many visits",
        "too many calls",
        "too many api calls",
        "quota limit",
        // "Our standard API call frequency is 5 calls per minute" (Alpha Vantage), "request
        // frequency exceeds the limit".
        "call frequency",
        "request frequency",
    ]
    .iter()
    .any(|p| t.contains(p))
        || languages::says_throttled(&t)
        || crate::passed::says_limit_passed(s)
}

/// A wait value in any of the shapes in the module header.
fn wait_value(v: &Value, unit: Option<TimeUnit>, now: DateTime<Utc>) -> Option<Duration> {
    let d = match v {
        Value::Number(n) => {
            let f = n.as_f64().filter(|f| f.is_finite() && *f >= 0.0)?;
            match unit {
                Some(unit) => unit.float(f, MAX_WAIT)?,
                // A bare number too large for seconds is milliseconds.
                None if f > MAX_WAIT.as_secs_f64() => TimeUnit::Millis.float(f, MAX_WAIT)?,
                None => TimeUnit::Seconds.float(f, MAX_WAIT)?,
            }
        }
        Value::String(s) => {
            // Digits of other scripts ("۳۰", "३०", "１０") read as the ASCII ones.
            let ascii = num::with_ascii_digits(s.trim());
            let s = ascii.as_deref().unwrap_or(s).trim();
            match unit {
                // Seconds are also what the other shapes below are read as.
                Some(unit) if unit != TimeUnit::Seconds => unit.decimal(s, MAX_WAIT)?,
                _ => num::decimal_seconds(s, MAX_WAIT)
                    .or_else(|| num::go_duration(s, MAX_WAIT))
                    .or_else(|| reset::iso_duration(s))
                    .or_else(|| {
                        reset::parse_timestamp(s, now).map(|t| reset::until(t, now, MAX_WAIT))
                    })?,
            }
        }
        Value::Object(o) => {
            // google.protobuf.Duration as an object.
            let secs = o
                .get("seconds")
                .and_then(|s| s.as_u64().or_else(|| s.as_str().and_then(num::parse_u64)))?;
            let nanos = o
                .get("nanos")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n < 1_000_000_000)
                .unwrap_or(0);
            Duration::new(secs.min(MAX_WAIT.as_secs()), nanos)
        }
        _ => return None,
    };
    Some(d.min(MAX_WAIT))
}

/// Deprecation and retirement fields.
fn deprecation_field(k: &str, v: &Value, now: DateTime<Utc>, out: &mut Walked) {
    let retire = k.contains("sunset")
        || k.contains("retire")
        || k.contains("endoflife")
        || k == "eol"
        || k.starts_with("eoldate")
        || k.contains("removaldate")
        || k.contains("shutdowndate");
    let deprecate = k.contains("deprecat");
    if !retire && !deprecate {
        return;
    }
    let date = v.as_str().and_then(|s| reset::parse_timestamp(s, now));
    let d = out.deprecation.get_or_insert_with(Deprecation::default);
    match (retire, date, v) {
        (true, Some(t), _) => d.sunset = d.sunset.or(Some(t)),
        (false, Some(t), _) => {
            d.since = Some(d.since.map_or(t, |s| s.min(t)));
            d.deprecated |= t <= now;
        }
        (false, None, Value::Bool(true)) => d.deprecated = true,
        _ => {}
    }
    if *d == Deprecation::default() {
        out.deprecation = None;
    }
}

#[cfg(test)]
mod tests;
