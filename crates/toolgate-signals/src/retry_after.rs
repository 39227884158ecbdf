//! `Retry-After` and its millisecond variants: how long the server asks us to wait.
//!
//! Sources:
//! - RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`; HTTP-date in all three
//!   forms of §5.6.7 (IMF-fixdate, obsolete RFC 850, asctime), plus the near misses
//!   [`crate::reset::http_date`] accepts (`UTC` for `GMT`, no day name). Decimals such as `1.5`
//!   (Shopify documents `Retry-After: 2.0`, Discord sends fractional seconds) are tolerated,
//!   and so is a delay written with its unit (`30s`, `1500ms`, `PT30S`).
//! - `retry-after-ms` and `x-ms-retry-after-ms`: Azure SDK guidelines
//!   (<https://azure.github.io/azure-sdk/general_azurecore.html#retry-policy>), also sent by
//!   OpenAI-compatible servers.
//! - `X-Retry-After`: Docker Hub's API documented it as "a unix timestamp of when you
//!   can call the API again" (docs.docker.com/reference/api/hub/latest, before the docs
//!   moved to `Retry-After` seconds, docker/docs#22916). With no standard behind it, it is
//!   read in every shape a reset takes ([`reset::parse`]): an epoch is a time, a small
//!   number is seconds, a date is a date.
//! - `X-Retry-In`: vulcand/oxy's rate limiter (behind several reverse proxies) answers
//!   "max rate reached: retry-in 30s" with `X-Retry-In: 30s` (vulcand/oxy#139), a length
//!   in Go's duration syntax.
//! - `grpc-retry-pushback-ms`: gRPC A6 client retries
//!   (<https://github.com/grpc/proposal/blob/master/A6-client-retries.md>); a negative
//!   value means "do not retry", which is not a wait and is ignored here.
//!
//! - `Expires` on a throttled reply ([`from_expires`]): Adobe Pass's concurrency
//!   monitoring documents that "the 429 response \"Expires\" header includes the
//!   timestamp when the next call would be considered valid, or when the throttling
//!   expires" (experienceleague.adobe.com/en/docs/pass/cm/throttling-mechanism). A
//!   refusal that may be reused until then says the same refusal stands until then.
//!
//! Every result is capped at [`MAX_WAIT`]; a date in the past means "now" (zero). This
//! module only parses; deciding whether to honour the wait is the resilience crate's job.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::{Headers, num, reset};

/// The longest wait ever reported (24 h): anything longer is treated as absurd and capped.
pub const MAX_WAIT: Duration = Duration::from_secs(24 * 3600);

/// Parses a `Retry-After` value: delay-seconds (decimals tolerated), an HTTP-date, or
/// one of the other timestamp forms of [`reset::parse_timestamp`] (RFC 3339 above all).
///
/// Returns `None` for anything else (including negative numbers); never exceeds
/// [`MAX_WAIT`].
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use std::time::Duration;
/// let now = Utc.with_ymd_and_hms(2015, 10, 21, 7, 27, 0).unwrap();
/// let p = |v: &str| toolgate_signals::retry_after::parse(v.as_bytes(), now);
/// assert_eq!(p("120"), Some(Duration::from_secs(120)));
/// assert_eq!(p("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::from_secs(60)));
/// ```
#[must_use]
pub fn parse(value: &[u8], now: DateTime<Utc>) -> Option<Duration> {
    let v = std::str::from_utf8(value).ok()?.trim();
    // A date without its day name also starts with a digit ("31 Dec 1999 …").
    // Beyond RFC 9110, a date in any form the reset fields accept: Zoom, for one,
    // sends `Retry-After: 2026-12-04T09:00:00Z` when a daily limit is used up, and a
    // wait the server stated in a form we refuse would be replaced by a guess.
    num::decimal_seconds(v, MAX_WAIT)
        .or_else(|| length_with_unit(v))
        .or_else(|| reset::parse_timestamp(v, now).map(|t| reset::until(t, now, MAX_WAIT)))
}

/// A delay written with its unit, as servers send it though RFC 9110 allows only
/// seconds: a Go duration (`30s`, `1500ms`, `1m30s`; the Câmara dos Deputados' API
/// sent `Retry-After: 30s`) or an ISO 8601 duration (`PT30S`). Dropping the unit would
/// drop the wait the server stated, and reading `1500ms` as seconds would be 25
/// minutes. A date never parses as either: both need a unit right after each number.
fn length_with_unit(v: &str) -> Option<Duration> {
    num::go_duration(v, MAX_WAIT).or_else(|| reset::iso_duration(v).map(|d| d.min(MAX_WAIT)))
}

/// Parses a millisecond wait (`retry-after-ms`, `x-ms-retry-after-ms`,
/// `grpc-retry-pushback-ms`): non-negative integer milliseconds, capped at [`MAX_WAIT`].
#[must_use]
pub fn parse_ms(value: &[u8]) -> Option<Duration> {
    num::decimal_millis(std::str::from_utf8(value).ok()?, MAX_WAIT)
}

/// Fields carrying seconds or an HTTP-date.
const SECONDS_FIELDS: [&str; 1] = ["retryafter"];
/// Fields carrying seconds, an epoch or a date, told apart as a reset is.
const RESET_SHAPED_FIELDS: [&str; 1] = ["xretryafter"];
/// Fields carrying integer milliseconds.
const MILLIS_FIELDS: [&str; 3] = ["retryafterms", "xmsretryafterms", "grpcretrypushbackms"];
/// Fields carrying a length with its unit, in Go's syntax (`30s`, `1m30s`), or bare
/// seconds: vulcand/oxy's rate limiter answers `X-Retry-In: 30s`.
const DURATION_FIELDS: [&str; 2] = ["retryin", "xretryin"];

/// Whether `name` is `folded` once told apart as these fields are: ASCII letters and
/// digits only, lower case. Servers spell the one field several ways — `Retry-After`,
/// `RetryAfter` (Helix ALM's 429), `Retry_After` — and a wait the server stated under a
/// spelling we refuse would be replaced by a guess. Compared without allocating: every
/// field of a reply is looked at.
fn spelt_as(name: &str, folded: &str) -> bool {
    name.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
        .eq(folded.bytes())
}

/// The values of the fields whose name is spelt as one of `names`.
fn fields<'a>(
    headers: &Headers<'a>,
    names: &'static [&'static str],
) -> impl Iterator<Item = &'a [u8]> {
    headers
        .iter()
        .filter(move |(n, _)| names.iter().any(|f| spelt_as(n, f)))
        .map(|(_, v)| v)
}

/// The longest wait any Retry-After variant asks for, across repeated fields.
///
/// A `Retry-After` date is read against the response's own `Date` when it has one: the
/// server computed "retry at 12:00:47" on its clock, so the wait it meant is that date
/// minus its `Date` (RFC 9110 §10.2.3 and §6.6.1), whatever our clock says. A server
/// clock a minute fast would otherwise turn a 47 s wait into 107 s, or one a minute slow
/// into no wait at all.
#[must_use]
pub fn from_headers(headers: &Headers<'_>, now: DateTime<Utc>) -> Option<Duration> {
    // The `Date` is parsed only when there is a `Retry-After` to read against it.
    let mut server_now = None;
    let secs = fields(headers, &SECONDS_FIELDS).filter_map(|v| {
        let at = *server_now.get_or_insert_with(|| {
            headers
                .get_str("date")
                .and_then(|d| reset::http_date(d, now))
                .unwrap_or(now)
        });
        parse(v, at)
    });
    let millis = fields(headers, &MILLIS_FIELDS).filter_map(parse_ms);
    let reset_shaped = fields(headers, &RESET_SHAPED_FIELDS)
        .filter_map(|v| reset::parse(v, now).map(|d| d.min(MAX_WAIT)));
    let lengths = fields(headers, &DURATION_FIELDS).filter_map(parse_length);
    secs.chain(millis).chain(reset_shaped).chain(lengths).max()
}

/// A length with its unit (`30s`, `1m30s`, `250ms`) or bare seconds, capped at
/// [`MAX_WAIT`].
fn parse_length(value: &[u8]) -> Option<Duration> {
    let v = std::str::from_utf8(value).ok()?.trim();
    num::go_duration(v, MAX_WAIT).or_else(|| num::decimal_seconds(v, MAX_WAIT))
}

/// The wait a throttled reply's `Expires` states: the time from the reply's `Date` (else
/// `now`) to a later `Expires`, in an HTTP-date. Only for a reply already known to be a
/// throttle, and only when it states no other wait: on any other reply `Expires` is
/// about caching. A date not after the reply's (`0`, the epoch, the `Date` itself, as
/// pages that must not be cached send) says nothing.
#[must_use]
pub fn from_expires(headers: &Headers<'_>, now: DateTime<Utc>) -> Option<Duration> {
    let expires = reset::http_date(headers.get_str("expires")?.trim(), now)?;
    let sent = headers
        .get_str("date")
        .and_then(|d| reset::http_date(d.trim(), now))
        .unwrap_or(now);
    (expires > sent).then(|| reset::until(expires, sent, MAX_WAIT))
}

#[cfg(test)]
mod tests;
