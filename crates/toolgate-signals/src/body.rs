//! Rate-limit signals that arrive in an error body instead of headers.
//!
//! Sources (one rule each):
//! - Slack Web API (<https://docs.slack.dev/apis/web-api/rate-limits>): HTTP 429 with
//!   `Retry-After` and the body `{"ok": false, "error": "ratelimited"}`.
//! - Discord (<https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit-rate-limit-response-structure>):
//!   429 with `{"message": "You are being rate limited.", "retry_after": 64.57,
//!   "global": false}`; `retry_after` is float seconds, `global` says every route is
//!   limited. (Telegram's `"parameters": {"retry_after": 5}` has the same meaning.)
//! - GraphQL servers (Apollo's convention, used by Linear, Shopify and others): an
//!   error whose `extensions.code` is `RATE_LIMITED`, `RATELIMITED` or `THROTTLED`;
//!   GitHub's GraphQL API sets `"type": "RATE_LIMITED"` on the error instead.
//! - Shopify GraphQL Admin (<https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits>):
//!   `extensions.cost` carries `requestedQueryCost` and `throttleStatus`
//!   (`maximumAvailable`, `currentlyAvailable`, `restoreRate` points per second); a
//!   request waits `(requested - available) / restoreRate` seconds.
//! - GitHub GraphQL (<https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api>):
//!   a query may select `rateLimit { limit cost remaining resetAt }`, `resetAt` an
//!   ISO-8601 time.
//! - Salesforce REST (<https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html>):
//!   an exceeded allocation returns `REQUEST_LIMIT_EXCEEDED`, in REST as
//!   `[{"message": "TotalRequests Limit exceeded.", "errorCode": "REQUEST_LIMIT_EXCEEDED"}]`.
//!
//! - A budget in an object named by a rate-limit word, with the members beside it
//!   (SoundCloud's `errors[].meta.rate_limit`, `remaining_requests`, `reset_time`), on a
//!   throttled reply (`body/limit_object.rs`).
//!
//! - Deprecation in an error body: fields that name one (`sunset_date`, `deprecated`),
//!   failing those the messages and codes read for what they say about the called
//!   resource (Google Campaign Manager's 403 "Version v2.x of the … API is no longer
//!   supported"; Slack's `method_deprecated` and `deprecated_endpoint` errors). A successful
//!   body's notices are read by [`read_success`] (`body/notices.rs`).
//!
//! Only the first [`MAX_BODY_PREFIX`] bytes are read. A cheap case-insensitive scan for
//! `limit`, `throttl` and `retry_after` comes first, so an ordinary error body costs a
//! single pass over at most 4 KiB and no JSON parse. When it matches, each known key is
//! located in the prefix and only the value after it is parsed, so a body truncated at
//! the bound still yields the fields inside the prefix. Keys preceded by a backslash
//! (inside an escaped string) are skipped.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::recovery::Recovery;
use crate::{Deprecation, MAX_WAIT, Quota, reset, walk, warning};
use words::Set;

mod calls_in_period;
mod envelope;
mod extensions;
mod form;
mod limit_object;
mod markup_notices;
mod members;
mod notices;
mod operation_errors;
mod relayed_headers;
mod usage_counts;
mod usage_report;
mod words;

/// How much of a body is ever looked at.
pub const MAX_BODY_PREFIX: usize = 4096;
/// How much of each end of a successful body [`read_success`] looks at.
const SUCCESS_WINDOW: usize = 1024;
/// At most this many occurrences of one key are examined.
const MAX_HITS_PER_KEY: usize = 8;

/// What an error body says about rate limiting.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct BodySignals {
    /// The body says "you are throttled" (or the status is 429 and the body
    /// carries a wait).
    pub rate_limited: bool,
    /// The wait the body asks for, capped at [`MAX_WAIT`].
    pub retry_after: Option<Duration>,
    /// On a success, the wait it asks for before the next call (Stack Exchange's
    /// `backoff`); the same as `retry_after` there, named apart for pacing.
    pub next_call_after: Option<Duration>,
    /// Quotas the body reports: Shopify's `"cost"` bucket, GitHub's `"graphql"`.
    pub quota: Vec<Quota>,
    /// The vendor code that said so (`ratelimited`, `RATE_LIMITED`, `THROTTLED`,
    /// `REQUEST_LIMIT_EXCEEDED`), to show the model as is.
    pub reason: Option<String>,
    /// Discord's `"global": true`: every route is limited, not just this one.
    pub global: bool,
    /// A deprecation or retirement the body names: an error body's fields
    /// (`sunset_date`, `deprecation_date`, `deprecated: true`) or words about the called
    /// resource, or a successful body's notices (`body/notices.rs`).
    pub deprecation: Option<Deprecation>,
    /// Notices for the model that a successful answer carries: a GraphQL answer's
    /// `extensions` (`warnings`, `deprecations`: deprecated fields and operations in
    /// use), and deprecation notices at the top of a JSON answer or in its `meta`
    /// (`body/notices.rs`), verbatim. Folded into [`crate::Signals::warnings`].
    pub warnings: Vec<String>,
    /// What an error body says would fix the failure ([`crate::recovery`]).
    pub recovery: Option<crate::recovery::Recovery>,
    /// The account's refusal says no more than a budget spent ("Out of resource
    /// quota."): beside a throttle's short header wait it is that window's.
    pub budget_said_alone: bool,
}

/// Whether a response body is worth giving to [`read`]: any error status (≥ 400), or
/// a success whose body is an error envelope — a top-level `error`, `errors`,
/// `errcode`, `retCode`, `fault`… with a value, or `"success": false` / `"ok": false`
/// (`body/envelope.rs` says why and which), or a GraphQL answer whose `data` reports
/// that an operation failed (a payload's `userErrors`, a union's error member:
/// `body/operation_errors.rs`). Bodies of other successful calls are left alone: only
/// their first bytes are looked at, and nothing is parsed.
///
/// ```
/// use toolgate_signals::body::worth_reading;
/// assert!(worth_reading(429, b""));
/// assert!(worth_reading(200, br#"  {"errors":[{"message":"Throttled"}]}"#));
/// assert!(worth_reading(200, br#"{"error":["EAPI:Rate limit exceeded"],"result":{}}"#));
/// assert!(!worth_reading(200, br#"{"error":null,"data":{}}"#));
/// ```
#[must_use]
pub fn worth_reading(status: u16, body: &[u8]) -> bool {
    status >= 400
        || envelope::is_error_envelope(body)
        || operation_errors::reports_failure(body)
        // Form fields (`error=invalid_grant&…`, `ACK=Failure&…`) say what the members of
        // a JSON object say (`body/form.rs`).
        || form::as_json(&body[..body.len().min(MAX_BODY_PREFIX)])
            .is_some_and(|fields| envelope::is_error_envelope(&fields))
}

/// Reads the rate-limit signals in the first [`MAX_BODY_PREFIX`] bytes of `body`.
///
/// Call it for bodies [`worth_reading`] accepts, with the response's status and the
/// time it was received; merge the result with [`crate::read`]'s (the longer wait wins,
/// either `rate_limited` counts). Total: any bytes give a value.
///
/// ```
/// use std::time::Duration;
/// use toolgate_signals::body::read;
/// let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
/// let b = read(429, br#"{"message":"You are being rate limited.","retry_after":1.5,"global":false}"#, now);
/// assert!(b.rate_limited);
/// assert_eq!(b.retry_after, Some(Duration::from_millis(1500)));
/// ```
#[must_use]
pub fn read(status: u16, body: &[u8], now: DateTime<Utc>) -> BodySignals {
    // A form-encoded body is read as the JSON object of its fields (`body/form.rs`).
    let fields = form::as_json(&body[..body.len().min(MAX_BODY_PREFIX)]);
    let body = fields.as_deref().unwrap_or(body);
    let mut out = read_prefix(status, body, now);
    // The end of a maintenance window a 502, 503 or 504 names is its wait.
    let prefix = &body[..body.len().min(MAX_BODY_PREFIX)];
    out.retry_after = out
        .retry_after
        .max(crate::maintenance::wait(status, prefix, now));
    out
}

fn read_prefix(status: u16, body: &[u8], now: DateTime<Utc>) -> BodySignals {
    let prefix = &body[..body.len().min(MAX_BODY_PREFIX)];
    let recovery = crate::recovery::read_refusal(status, prefix);
    let mut out = BodySignals {
        recovery,
        budget_said_alone: recovery == Some(crate::recovery::Recovery::Account)
            && crate::recovery::budget_said_alone(prefix),
        ..BodySignals::default()
    };
    // Waits, throttle words and deprecation dates in any field, at any depth. A field
    // that names a deprecation is the more precise reading; failing one, the messages and
    // codes are read for what they say about the called resource (Google's "Version v2.x
    // of the … API is no longer supported", Slack's `method_deprecated`), while words
    // about one parameter say nothing of it.
    let mut walked = walk::walk(prefix, now);
    out.deprecation = walked.deprecation.take().or_else(|| {
        let said: Vec<warning::Retirement> = walked
            .retirement_texts
            .iter()
            .filter_map(|t| match warning::what_it_says(t, now) {
                warning::Said::AboutTheCall(r) => Some(r),
                warning::Said::AboutAPart | warning::Said::Nothing => None,
            })
            .collect();
        warning::declared(&said)
    });
    // A refusal whose words say the called endpoint, API version or model reached its
    // end ("This endpoint has been sunset", "API version 1.0.0 is no longer supported")
    // is not the request's to fix, whatever its 4xx: only a move to what replaced it
    // helps. Words about one parameter or field stay the request's.
    if (400..500).contains(&status)
        && matches!(out.recovery, None | Some(Recovery::Request))
        && walked
            .retirement_texts
            .iter()
            .any(|t| warning::says_the_call_ended(t, now))
    {
        out.recovery = Some(Recovery::Retired);
    }
    // The body's own status says 429 even where the reply's does not (an error
    // envelope sent with a 200).
    let mirrored_429 = envelope::mirrors_too_many_requests(prefix);
    if !mentions_limits(prefix)
        && !mirrored_429
        && walked.wait.is_none()
        && walked.reset_wait.is_none()
        && walked.text_wait.is_none()
        && walked.told_wait.is_none()
        && walked.reason.is_none()
        && !walked.throttled_text
    {
        return out;
    }
    let strings = |key: &str| values(prefix, key).filter_map(|v| v.as_str().map(str::to_owned));
    let reason = strings("error")
        .find(|e| matches!(e.as_str(), "ratelimited" | "rate_limited"))
        .or_else(|| {
            strings("code").find(|c| {
                matches!(
                    c.to_ascii_uppercase().as_str(),
                    "RATE_LIMITED" | "RATELIMITED" | "THROTTLED"
                )
            })
        })
        .or_else(|| strings("type").find(|t| t == "RATE_LIMITED"))
        .or_else(|| strings("errorCode").find(|c| c == "REQUEST_LIMIT_EXCEEDED"))
        // A status or code naming the limit passed: Google Maps' `OVER_QUERY_LIMIT`,
        // Tencent Cloud's `RequestLimitExceeded`.
        .or_else(|| {
            ["status", "code", "Code"]
                .iter()
                .flat_map(|k| strings(k))
                .find(|c| envelope::names_a_limit_passed(c.as_bytes()))
        })
        .or(walked.reason)
        // A code saying "limit exceeded" beside a message that puts the limit on
        // something else (Danipa's `DAILY_LIMIT_EXCEEDED`, "Transaction would exceed daily
        // sending limit") means that limit, unless the body also names a throttle.
        .filter(|code| !walked.other_limit || says_a_throttle(code));
    if let Some(wait) = values(prefix, "retry_after")
        .filter_map(|v| v.as_f64())
        .filter_map(seconds)
        .max()
    {
        out.retry_after = Some(wait);
        out.global = values(prefix, "global").any(|v| v.as_bool() == Some(true));
    }
    out.retry_after = out.retry_after.max(walked.wait);
    // A reset time or a wait in words is a wait only on a reply that says it is
    // throttled: on any other error it is information, not an instruction to wait.
    let throttled = reason.is_some() || walked.throttled_text || mirrored_429;
    if throttled || status == 429 {
        out.retry_after = out.retry_after.max(walked.reset_wait).max(walked.text_wait);
    } else if status >= 400 {
        // A refusal that tells the caller to wait says what mends it, throttled or not
        // (an account blocked for five minutes).
        out.retry_after = out.retry_after.max(walked.told_wait);
    }
    if let Some(status_obj) = values(prefix, "throttleStatus").find(Value::is_object) {
        let requested = values(prefix, "requestedQueryCost").find_map(|v| v.as_f64());
        shopify(&status_obj, requested, &mut out);
    }
    if let Some(rl) = values(prefix, "rateLimit").find(Value::is_object) {
        github_graphql(&rl, now, &mut out);
    }
    out.rate_limited = throttled || (status == 429 && out.retry_after.is_some());
    // A throttled reply's budget in an object of its own (SoundCloud's JSON:API
    // `errors[].meta.rate_limit`), when no reader above found one.
    if (out.rate_limited || status == 429)
        && out.quota.is_empty()
        && let Some(q) = limit_object::quota(prefix, now)
    {
        out.quota.push(q);
    }
    // A router's throttle repeating the upstream's rate-limit headers in its error.
    if (out.rate_limited || status == 429) && out.quota.is_empty() {
        out.quota = relayed_headers::quotas(prefix, now);
    }
    out.reason = reason;
    out
}

/// The quotas a successful GraphQL answer reports about itself: Shopify's
/// `extensions.cost.throttleStatus` and a selected GitHub `rateLimit`; and the
/// deprecation notices it carries in `extensions` (`body/extensions.rs`). They arrive on
/// every 200, usually after `data` (at the end of the body), and they are how such an
/// API warns before it throttles; an API that says so only in the body would otherwise
/// run its agents into the limit unwarned. Only the first and the last
/// [`SUCCESS_WINDOW`] bytes are looked at (Shopify's `extensions` closes the body; a
/// selected `rateLimit` usually opens `data`), and only after a substring search finds
/// one of the keys, so every other answer costs at most eight short scans on the call path. A
/// REST answer's `rate_limit` object that says what is left (Sportmonks' on every
/// answer) is read the same way ([`limit_object::state`]).
/// A top-level `backoff` (Stack Exchange's seconds to wait before calling the same
/// method again) is the answer's wait, kept as `retry_after` with nothing refused.
#[must_use]
pub fn read_success(body: &[u8], now: DateTime<Utc>) -> Option<BodySignals> {
    let head = &body[..body.len().min(SUCCESS_WINDOW)];
    let tail = &body[body.len().saturating_sub(SUCCESS_WINDOW)..];
    let mut out = BodySignals::default();
    // Every reader's words, looked for once in each window.
    let seen = words::sets_in(body, SUCCESS_WINDOW);
    for (window, mentioned) in [(head, seen.head), (tail, seen.tail)] {
        // The windows overlap on a short body: a quota found once is not read twice.
        let quota_known = !out.quota.is_empty();
        if !quota_known
            && mentioned.has(Set::ThrottleStatus)
            && let Some(status_obj) = values(window, "throttleStatus").find(Value::is_object)
        {
            // On a success nothing was refused: the bucket's state, not a wait.
            shopify(&status_obj, None, &mut out);
        }
        if !quota_known
            && mentioned.has(Set::RateLimit)
            && let Some(rl) = values(window, "rateLimit").find(Value::is_object)
        {
            github_graphql(&rl, now, &mut out);
        }
        // A REST answer's own budget in a `rate_limit` object (Sportmonks).
        if out.quota.is_empty()
            && mentioned.has(Set::RateLimitObject)
            && let Some(Value::Object(obj)) = values(window, "rate_limit").find(Value::is_object)
            && let Some(q) = limit_object::state(&obj, now)
        {
            out.quota.push(q);
        }
        if out.warnings.is_empty()
            && mentioned.has(Set::Extensions)
            && let Some(ext) = values(window, "extensions").find(Value::is_object)
        {
            out.warnings = extensions::notices(&ext);
        }
        if !out.quota.is_empty() && !out.warnings.is_empty() {
            break;
        }
    }
    if out.quota.is_empty() {
        out.quota = members::quotas(body, SUCCESS_WINDOW, seen, now);
    }
    if out.quota.is_empty() {
        out.quota = usage_report::quotas(body);
    }
    if out.quota.is_empty() {
        out.quota = usage_counts::quotas(body, now);
    }
    if out.quota.is_empty() {
        out.quota
            .extend(members::calls_left(body, SUCCESS_WINDOW, seen, now));
    }
    if out.quota.is_empty() {
        out.quota.extend(calls_in_period::quota(body));
    }
    // On a success nothing was refused: a wait is only one the answer asks for before
    // the next call.
    out.retry_after = members::backoff(body, SUCCESS_WINDOW, seen);
    out.next_call_after = out.retry_after;
    let mut found = notices::read(body, SUCCESS_WINDOW, seen, now);
    // An XML answer's warnings, read by the same rule.
    if found.warnings.is_empty()
        && found.deprecation.is_none()
        && let Some(xml) = markup_notices::read(body, SUCCESS_WINDOW, now)
    {
        found = xml;
    }
    for w in found.warnings {
        if !out.warnings.contains(&w) {
            out.warnings.push(w);
        }
    }
    out.deprecation = found.deprecation;
    (!out.quota.is_empty()
        || !out.warnings.is_empty()
        || out.deprecation.is_some()
        || out.retry_after.is_some())
    .then_some(out)
}

/// The shortest stated wait an account's allowance may come back in: a throttle's
/// header wait shorter than this makes a budget said alone a window that passes.
const ACCOUNT_WAIT_FLOOR: std::time::Duration = std::time::Duration::from_secs(60);

impl crate::Signals {
    /// Folds what an error body said into the header signals of the same response: the
    /// longer wait wins (still at most [`MAX_WAIT`]), either `rate_limited` counts, and
    /// body quotas join the header quotas (a policy both name keeps the header values,
    /// then most constraining first, at most [`crate::quota::MAX_POLICIES`]).
    ///
    /// ```
    /// use toolgate_signals::{Flavour, Headers, body, read};
    /// let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    /// let (status, raw) = (400, br#"{"ok": false, "error": "ratelimited"}"#);
    /// let mut s = read(status, &Headers::new(&[]), now, Flavour::Auto);
    /// if body::worth_reading(status, raw) {
    ///     s.absorb_body(body::read(status, raw, now));
    /// }
    /// assert!(s.rate_limited);
    /// ```
    pub fn absorb_body(&mut self, b: BodySignals) {
        self.rate_limited |= b.rate_limited;
        // A challenge's `error` names the fix more precisely than a body's words,
        // except an account that must change: no credential mends that.
        self.recovery = match (self.recovery, b.recovery) {
            // A budget refused with nothing else said, in a reply whose headers state a
            // throttle's short wait ("Out of resource quota." beside `Retry-After: 20`):
            // the wait is what the upstream measured, so the budget is a window that
            // passes. Words that name credits, a plan or billing (`insufficient_quota`)
            // stay the account's, the header's wait being when it renews.
            (header, Some(crate::recovery::Recovery::Account))
                if b.budget_said_alone
                    && self.rate_limited
                    && self.retry_after.is_some_and(|w| w < ACCOUNT_WAIT_FLOOR) =>
            {
                header
            }
            (_, Some(crate::recovery::Recovery::Account | crate::recovery::Recovery::Holdings)) => {
                b.recovery
            }
            (header, body) => header.or(body),
        };
        if self.deprecation.is_none() {
            self.deprecation = b.deprecation;
        }
        for w in b.warnings {
            if self.warnings.contains(&w) {
                continue;
            }
            // A body's notice is read as a `Warning` text is (deprecated? replaced by
            // what?), so a program sees the same whichever way the upstream said it.
            if self.notices.len() < crate::warning::MAX_NOTICES
                && !self.notices.iter().any(|n| n.text == w)
            {
                self.notices.push(crate::warning::body_notice(&w));
            }
            self.warnings.push(w);
        }
        // A body's bare-number wait whose milliseconds are the reply's own spent reset
        // (PluralKit's `retry_after` beside a millisecond `X-RateLimit-Reset`).
        let body_wait = b
            .retry_after
            .map(|w| crate::wait_unit::corroborated(w, self.quota.iter().chain(&b.quota)));
        self.retry_after = self.retry_after.max(body_wait).map(|d| d.min(MAX_WAIT));
        self.next_call_after = self
            .next_call_after
            .max(b.next_call_after)
            .map(|d| d.min(MAX_WAIT));
        let mut c = crate::quota::Collector {
            quotas: std::mem::take(&mut self.quota),
            ..Default::default()
        };
        for q in b.quota {
            c.quota(q);
        }
        self.quota = c.quotas;
        crate::quota::sort_most_constraining(&mut self.quota);
        self.quota.truncate(crate::quota::MAX_POLICIES);
    }
}

/// Whether a code names a throttle outright (`RATE_LIMITED`, `ThrottlingException`,
/// `too_many_requests`), not merely some limit passed.
fn says_a_throttle(code: &str) -> bool {
    let n = crate::walk::normalise(code);
    [
        "ratelimit",
        "throttl",
        "toomanyrequests",
        "slowdown",
        "resourceexhausted",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// The cheap first pass: does the prefix mention anything this module reads?
fn mentions_limits(prefix: &[u8]) -> bool {
    use crate::headers::contains_ci;
    contains_ci(prefix, b"limit")
        || contains_ci(prefix, b"throttl")
        || contains_ci(prefix, b"retry_after")
}

/// The JSON values following each `"key":` in the prefix (outside escaped strings).
fn values<'a>(prefix: &'a [u8], key: &str) -> impl Iterator<Item = Value> + use<'a> {
    let quoted = format!("\"{key}\"").into_bytes();
    let mut from = 0;
    let mut hits = 0;
    std::iter::from_fn(move || {
        while hits < MAX_HITS_PER_KEY {
            let i = find(&prefix[from..], &quoted)? + from;
            from = i + quoted.len();
            if i > 0 && prefix[i - 1] == b'\\' {
                continue;
            }
            hits += 1;
            let mut j = from;
            while prefix.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            if prefix.get(j) != Some(&b':') {
                continue;
            }
            let value = serde_json::Deserializer::from_slice(&prefix[j + 1..])
                .into_iter::<Value>()
                .next();
            if let Some(Ok(v)) = value {
                return Some(v);
            }
        }
        None
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Non-negative, finite seconds as a capped `Duration`.
fn seconds(s: f64) -> Option<Duration> {
    (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s.min(MAX_WAIT.as_secs_f64())))
}

/// Shopify's leaky bucket: a `"cost"` quota, and the wait for the requested cost.
fn shopify(status: &Value, requested: Option<f64>, out: &mut BodySignals) {
    let num = |k: &str| {
        status
            .get(k)
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    let (max, available, rate) = (
        num("maximumAvailable"),
        num("currentlyAvailable"),
        num("restoreRate"),
    );
    let refill = |points: f64| rate.filter(|r| *r > 0.0).and_then(|r| seconds(points / r));
    let to_full = match (max, available) {
        (Some(m), Some(a)) => refill((m - a).max(0.0)),
        _ => None,
    };
    // Float-to-integer casts saturate, so huge or odd values cannot wrap.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = |v: f64| v as u64;
    let q = Quota {
        limit: max.map(whole),
        remaining: available.map(whole),
        reset_after: to_full.map(|d| d.min(reset::MAX_RESET)),
        ..Quota::new("cost")
    };
    if !q.is_empty() {
        out.quota.push(q);
    }
    if let (Some(req), Some(a)) = (requested, available)
        && req > a
        && let Some(wait) = refill(req - a)
    {
        out.retry_after = out.retry_after.max(Some(wait));
    }
}

/// Fields of a `rateLimit` object read one budget each.
const MAX_FIELD_BUDGETS: usize = 8;

/// GitHub GraphQL's `rateLimit` object: a `"graphql"` quota. An object whose members are
/// budgets of their own, one per field of the query, gives one quota per field: the
/// graphql-rate-limit directive's response extension, `"rateLimit": {"Query.quote":
/// {"remaining": 2, "consumed": 1, "resets": 15}}`
/// (<https://github.com/ravangen/graphql-rate-limit/tree/master/examples/response-extension>),
/// where what is left and what was used make the limit.
fn github_graphql(rl: &Value, now: DateTime<Utc>, out: &mut BodySignals) {
    let n = |k: &str| rl.get(k).and_then(Value::as_u64);
    if n("limit").is_none()
        && n("remaining").is_none()
        && let Some(fields) = rl.as_object()
    {
        for (field, budget) in fields.iter().take(MAX_FIELD_BUDGETS) {
            let n = |k: &str| budget.get(k).and_then(Value::as_u64);
            let Some(remaining) = n("remaining") else {
                continue;
            };
            let used = n("consumed").or_else(|| n("used"));
            out.quota.push(Quota {
                limit: n("limit").or_else(|| used.map(|u| u.saturating_add(remaining))),
                remaining: Some(remaining),
                reset_after: ["resets", "reset", "resetAt"].iter().find_map(|k| {
                    let v = budget.get(*k)?;
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    reset::parse_str(&text, now)
                }),
                ..Quota::new(crate::quota::normalise_policy(field))
            });
        }
        return;
    }
    let q = Quota {
        limit: n("limit"),
        remaining: n("remaining"),
        reset_after: rl
            .get("resetAt")
            .and_then(Value::as_str)
            .and_then(|t| reset::parse_timestamp(t, now))
            .map(|t| reset::until(t, now, reset::MAX_RESET)),
        ..Quota::new("graphql")
    };
    if !q.is_empty() {
        out.quota.push(q);
    }
}

#[cfg(test)]
mod tests;
